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
pub struct Counters {
    /// Compressed (raw) bytes read from the input.
    pub raw_bytes: AtomicU64,
    /// Decompressed bytes handed to the replay.
    pub bytes: AtomicU64,
    pub games: AtomicU64,
    pub events: AtomicU64,
    pub errors: AtomicU64,
}

const LOG_EVERY: Duration = Duration::from_secs(5);

/// Shows the progress of one input until dropped.
pub struct Progress {
    stop: Arc<AtomicBool>,
    ticker: Option<thread::JoinHandle<()>>,
}

impl Progress {
    pub fn start(name: &str, size: Option<u64>, counters: Arc<Counters>, quiet: bool) -> Progress {
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
                    show_bar(&name, size, &counters, &flag);
                } else {
                    log_lines(&name, size, &counters, &flag);
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

fn show_bar(name: &str, size: Option<u64>, c: &Counters, stop: &AtomicBool) {
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
        bar.set_position(c.raw_bytes.load(Relaxed));
        bar.set_message(format!(
            "{games} games, {} events, {} errors, {gps:.0} games/s, {mbps:.1} MB/s",
            c.events.load(Relaxed),
            c.errors.load(Relaxed)
        ));
        thread::park_timeout(Duration::from_millis(200));
    }
    bar.finish_and_clear();
}

fn log_lines(name: &str, size: Option<u64>, c: &Counters, stop: &AtomicBool) {
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
        eprintln!(
            "threefold: {name}: {done}, {games} games, {} events, {} errors, {gps:.0} games/s, {mbps:.1} MB/s",
            c.events.load(Relaxed),
            c.errors.load(Relaxed)
        );
    }
}
