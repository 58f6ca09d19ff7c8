//! How the run's threads take turns when they share one CPU.
//!
//! `ingest` is a pipeline of at least three threads (reading, replay, writing). With one CPU to
//! run on (a pinned process, a Slurm task given one CPU), they can only take turns, and Linux's
//! scheduler (EEVDF) preempts a runnable thread after its slice: 1.4 ms on these machines, so
//! ingesting pgnmentor on one core switched threads about 3,000 times, each turn starting
//! with caches the other threads had filled. Since Linux 6.12 a thread may ask for a longer
//! slice (`sched_setattr`'s `sched_runtime` under the normal policy): the run asks for
//! [`SLICE_NS`] while it lasts (its threads inherit it when they start) and puts the caller's
//! back at the end. Its share of the CPU is unchanged; other processes wait longer for their
//! turn, as under any batch job.
//!
//! Not on more CPUs: there a longer slice holds back the stage the others wait for (the clocks
//! sample on two threads took 1.12× the wall time with 20 ms slices).

/// The slice asked for, in nanoseconds (the kernel allows up to 100 ms).
pub(crate) const SLICE_NS: u64 = 50_000_000;

/// The calling thread's scheduling as it was, restored when dropped.
pub(crate) struct LongTurns {
    #[cfg(target_os = "linux")]
    before: Option<linux::SchedAttr>,
}

impl LongTurns {
    /// Asks for slices of [`SLICE_NS`] for the calling thread and the threads it starts, when
    /// the thread may run on one CPU only and under the normal or batch policy. Where the
    /// kernel cannot, nothing changes: only the speed depends on it.
    pub(crate) fn on_one_cpu() -> LongTurns {
        #[cfg(target_os = "linux")]
        {
            LongTurns { before: linux::lengthen(SLICE_NS) }
        }
        #[cfg(not(target_os = "linux"))]
        {
            LongTurns {}
        }
    }

    /// Whether the slice was lengthened.
    #[cfg(test)]
    pub(crate) fn active(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.before.is_some()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }
}

impl Drop for LongTurns {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(before) = &self.before {
            linux::set(before);
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    /// `struct sched_attr` as the kernel first defined it (`SCHED_ATTR_SIZE_VER0`, 48 bytes).
    #[repr(C)]
    #[derive(Clone, Copy, Default, Debug)]
    pub(super) struct SchedAttr {
        size: u32,
        policy: u32,
        flags: u64,
        nice: i32,
        priority: u32,
        pub runtime: u64,
        deadline: u64,
        period: u64,
    }

    /// Only `SCHED_FLAG_RESET_ON_FORK` of what `sched_getattr` reports may be handed back.
    const RESET_ON_FORK: u64 = 0x01;

    pub(super) fn get() -> Option<SchedAttr> {
        let mut attr = SchedAttr::default();
        let size = size_of::<SchedAttr>() as u32;
        // SAFETY: the kernel writes at most `size` bytes into `attr`, a `sched_attr` of that size.
        let done = unsafe { libc::syscall(libc::SYS_sched_getattr, 0, &mut attr as *mut SchedAttr, size, 0) };
        (done == 0).then_some(attr)
    }

    pub(super) fn set(attr: &SchedAttr) -> bool {
        let attr = SchedAttr { size: size_of::<SchedAttr>() as u32, flags: attr.flags & RESET_ON_FORK, ..*attr };
        // SAFETY: `attr` is a valid `sched_attr` of the size it states; the kernel only reads it.
        unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) == 0 }
    }

    fn one_cpu() -> bool {
        // SAFETY: a zeroed cpu_set_t is a valid, empty set; the kernel fills it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a cpu_set_t of the size passed.
        let done = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
        // SAFETY: CPU_COUNT reads the set.
        done == 0 && unsafe { libc::CPU_COUNT(&set) } == 1
    }

    /// Lengthens the calling thread's slice to `ns` when it may run on one CPU only; the
    /// attributes before, to restore, when it did.
    pub(super) fn lengthen(ns: u64) -> Option<SchedAttr> {
        if !one_cpu() {
            return None;
        }
        let before = get()?;
        if before.policy != libc::SCHED_OTHER as u32 && before.policy != libc::SCHED_BATCH as u32 {
            return None;
        }
        set(&SchedAttr { runtime: ns, ..before }).then_some(before)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// On one CPU the thread's slice is the long one while the guard lives and its own again
    /// after; on more CPUs nothing changes.
    #[test]
    fn the_slice_is_long_on_one_cpu_only_and_restored() {
        std::thread::spawn(|| {
            // A sandbox may refuse the call: then a run keeps the default too.
            let Some(before) = linux::get().map(|attr| attr.runtime) else {
                eprintln!("skipped: sched_getattr is not available here");
                return;
            };
            let many = LongTurns::on_one_cpu();
            // A test runner may itself be pinned to one CPU.
            let pinned_already = many.active();
            drop(many);
            assert_eq!(linux::get().unwrap().runtime, before);
            if pinned_already {
                return;
            }
            // SAFETY: a zeroed cpu_set_t is empty; CPU_SET adds the CPU this thread is on.
            let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            let cpu = unsafe { libc::sched_getcpu() }.max(0) as usize;
            unsafe { libc::CPU_SET(cpu, &mut one) };
            // SAFETY: `one` is a cpu_set_t of the size passed.
            assert_eq!(unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &one) }, 0);
            let turns = LongTurns::on_one_cpu();
            assert!(turns.active(), "the slice was not lengthened on one CPU");
            // Linux before 6.12 keeps no slice of the normal policy's own: it reads back as 0.
            let now = linux::get().unwrap().runtime;
            assert!(now == SLICE_NS || now == 0, "slice {now}");
            drop(turns);
            assert_eq!(linux::get().unwrap().runtime, before);
        })
        .join()
        .unwrap();
    }
}
