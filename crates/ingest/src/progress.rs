//! Progress on stderr: a bar when stderr is a terminal, a log line every few seconds otherwise,
//! nothing with `--quiet`; and the final summary.

use std::{
    io::IsTerminal,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering::Relaxed},
    },
    thread,
    time::{Duration, Instant},
};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Counters shared by the pipeline stages of one input.
#[derive(Default)]
pub(crate) struct Counters {
    /// Compressed (raw) bytes read from the input.
    pub raw_bytes: AtomicU64,
    /// Decompressed bytes handed to the replay.
    pub bytes: AtomicU64,
    pub games: AtomicU64,
    pub events: AtomicU64,
    pub errors: AtomicU64,
}

const LOG_EVERY: Duration = Duration::from_secs(5);

/// Where the whole run stands when an input starts: what the bar's run-wide ETA counts from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunShare {
    pub started: Instant,
    /// Bytes of every input of the run (files whose size is known).
    pub total: u64,
    /// Bytes of the inputs before this one (read, up to date or failed).
    pub before: u64,
    /// Bytes read by this run before this input (what the rate counts).
    pub read_before: u64,
}

impl RunShare {
    /// The run's share done and the time left at its rate so far, once `raw` bytes of the
    /// current input are read.
    fn eta(&self, raw: u64) -> Option<String> {
        if self.total == 0 {
            return None;
        }
        let done = (self.before + raw).min(self.total);
        let rate = (self.read_before + raw) as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
        let left = if rate > 0.0 { (self.total - done) as f64 / rate } else { f64::INFINITY };
        let eta = if left.is_finite() {
            let s = left.round() as u64;
            format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
        } else {
            "?".into()
        };
        Some(format!("run {:.1}% of {} MB, ETA {eta}", done as f64 * 100.0 / self.total as f64, self.total / 1_000_000))
    }
}

/// Shows the progress of one input until dropped.
pub(crate) struct Progress {
    stop: Arc<AtomicBool>,
    ticker: Option<thread::JoinHandle<()>>,
}

impl Progress {
    pub(crate) fn start(
        name: &str,
        size: Option<u64>,
        counters: Arc<Counters>,
        quiet: bool,
        run: RunShare,
    ) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        if quiet {
            return Progress { stop, ticker: None };
        }
        let name = name.to_owned();
        let flag = stop.clone();
        let terminal = std::io::stderr().is_terminal();
        let ticker = thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                if terminal {
                    show_bar(&name, size, &counters, &flag, &run);
                } else {
                    log_lines(&name, size, &counters, &flag, &run);
                }
            })
            .ok();
        Progress { stop, ticker }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(t) = self.ticker.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

fn rates(c: &Counters, start: Instant) -> (u64, f64, f64) {
    let secs = start.elapsed().as_secs_f64().max(1e-3);
    let games = c.games.load(Relaxed);
    (games, games as f64 / secs, c.bytes.load(Relaxed) as f64 / secs / 1e6)
}

fn show_bar(name: &str, size: Option<u64>, c: &Counters, stop: &AtomicBool, run: &RunShare) {
    let bar = match size {
        Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
    };
    let template = if size.is_some() {
        "{prefix} [{bar:25}] {bytes}/{total_bytes} {eta} {msg}"
    } else {
        "{prefix} {spinner} {bytes} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(name.to_owned());
    let start = Instant::now();
    while !stop.load(Relaxed) {
        let (games, gps, mbps) = rates(c, start);
        let raw = c.raw_bytes.load(Relaxed);
        bar.set_position(raw);
        let eta = run.eta(raw).map(|e| format!("; {e}")).unwrap_or_default();
        bar.set_message(format!(
            "{games} games, {} events, {} errors, {gps:.0} games/s, {mbps:.1} MB/s{eta}",
            c.events.load(Relaxed),
            c.errors.load(Relaxed)
        ));
        thread::park_timeout(Duration::from_millis(200));
    }
    bar.finish_and_clear();
}

fn log_lines(name: &str, size: Option<u64>, c: &Counters, stop: &AtomicBool, run: &RunShare) {
    let start = Instant::now();
    let mut last = Instant::now();
    while !stop.load(Relaxed) {
        thread::park_timeout(Duration::from_millis(100));
        if last.elapsed() < LOG_EVERY {
            continue;
        }
        last = Instant::now();
        let (games, gps, mbps) = rates(c, start);
        let raw = c.raw_bytes.load(Relaxed);
        let done = match size {
            Some(n) if n > 0 => format!("{:.1}% of {} MB", raw as f64 * 100.0 / n as f64, n / 1_000_000),
            _ => format!("{} MB read", raw / 1_000_000),
        };
        let eta = run.eta(raw).map(|e| format!("; {e}")).unwrap_or_default();
        eprintln!(
            "threefold: {name}: {done}, {games} games, {} events, {} errors, {gps:.0} games/s, {mbps:.1} MB/s{eta}",
            c.events.load(Relaxed),
            c.errors.load(Relaxed)
        );
    }
}
