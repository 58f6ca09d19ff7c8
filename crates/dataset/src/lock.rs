//! Runs that share a dataset: a source is written by one run at a time, and the manifest is
//! read, merged and rewritten by one at a time.
//!
//! Each is an advisory lock (`flock`, which Linux's NFS client maps to byte-range locks, so it
//! holds across machines on NFSv4) on a file in `DIR/.locks/`. The system releases a lock when
//! its process ends, killed or not, so a lock never outlives its run. The holder writes its
//! machine and process into the file, so that a run that finds the lock taken can say who has it.

use std::{
    fs::{self, File, OpenOptions, TryLockError},
    io::{Read, Seek, Write},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};

const LOCKS: &str = ".locks";

/// A lock held until dropped.
pub struct Lock {
    _file: File,
}

/// This process, as a lock file names it.
pub fn this_process() -> String {
    let host = fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_owned()).unwrap_or_default();
    format!("{} pid {}", if host.is_empty() { "this machine" } else { &host }, std::process::id())
}

fn lock_file(root: &Path, name: &str) -> Result<(File, PathBuf)> {
    let dir = root.join(LOCKS);
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(name);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open the lock file {}", path.display()))?;
    Ok((file, path))
}

fn claimed(mut file: File, path: &Path) -> Result<Lock> {
    let who = this_process();
    (|| -> std::io::Result<()> {
        file.set_len(0)?;
        file.rewind()?;
        file.write_all(who.as_bytes())
    })()
    .with_context(|| format!("cannot write the lock file {}", path.display()))?;
    Ok(Lock { _file: file })
}

/// Takes the lock of `source` if no other run holds it; otherwise says who holds it.
pub fn try_source(root: &Path, source: &str) -> Result<std::result::Result<Lock, String>> {
    try_unit(root, &format!("source={source}"))
}

/// Takes the lock of a partition being written (a source's, or a shard's: `unit`), as
/// [`try_source`].
pub fn try_unit(root: &Path, unit: &str) -> Result<std::result::Result<Lock, String>> {
    let (mut file, path) = lock_file(root, &format!("{unit}.lock"))?;
    match file.try_lock() {
        Ok(()) => claimed(file, &path).map(Ok),
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            Ok(Err(if holder.trim().is_empty() { "another run".to_owned() } else { holder.trim().to_owned() }))
        }
        Err(TryLockError::Error(e)) => Err(e).with_context(|| format!("cannot lock {}", path.display())),
    }
}

/// Waits for the lock of the manifest (held while it is read, merged and rewritten).
pub fn manifest(root: &Path) -> Result<Lock> {
    let (file, path) = lock_file(root, "manifest.lock")?;
    file.lock().with_context(|| format!("cannot lock {}", path.display()))?;
    claimed(file, &path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source's lock is one run's at a time (two opens of the file stand for two processes:
    /// `flock` locks belong to the open file); the second is told who holds it, and gets it once
    /// the first lets go.
    #[test]
    fn a_source_is_locked_by_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let first = try_source(dir.path(), "a").unwrap().unwrap();
        let held = try_source(dir.path(), "a").unwrap().err().unwrap();
        assert_eq!(held, this_process());
        assert!(try_source(dir.path(), "b").unwrap().is_ok());
        drop(first);
        assert!(try_source(dir.path(), "a").unwrap().is_ok());
    }
}
