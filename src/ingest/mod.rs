//! `threefold ingest`: PGN collections to the Parquet dataset, in three stages joined by bounded
//! channels:
//!
//! 1. a reader thread decompresses the input and cuts it into chunks of whole games ([`crate::read::chunk`]);
//!    a pzstd file's frames (or plain text's blocks) are decompressed and surveyed for game
//!    starts on more threads first ([`crate::read::blocks`]), and the reader only stitches them;
//! 2. workers on a rayon pool replay each chunk with one `pgn_reader::Reader` and a reused
//!    [`GameVisitor`], building Arrow batches ([`schema`]);
//! 3. this thread puts the batches back in input order and writes them ([`crate::dataset`]).
//!
//! At most `2 × threads + 2` chunks are in flight (the reader takes a slot before each chunk and
//! the writer gives it back after writing it), so memory does not depend on the input size, and
//! the output bytes do not depend on the number of threads. A replayed chunk's buffer goes back
//! to the reader, which reads a later chunk into it (or, for a chunk that shares a decoded block,
//! gives the block back to the decoders once no chunk holds it: the chunks in flight bound the
//! blocks held too).

pub mod progress;

use std::{
    collections::BTreeMap,
    fs::{self, File},
    io,
    path::{Path, PathBuf},
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
    time::Instant,
};

use anyhow::{Context, Result, bail};
use arrow_array::RecordBatch;
use crossbeam_channel::bounded;
use serde_json::{Value, json};
use std::ops::ControlFlow;

use crate::{
    dataset::Dataset,
    dataset::commit::Committed,
    dataset::schema::{self, EventsBuilder, GamesBuilder},
    engine::event::EventKind,
    ingest::progress::{Counters, Progress},
    pgn::{GameStatus, GameVisitor},
    read::chunk::{Chunk, ChunkBytes, ReadError},
    read::input::{self, Compression},
};

/// What the command line asked for.
pub struct Options {
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    pub source: Option<String>,
    pub threads: Option<usize>,
    pub quiet: bool,
    pub chunk_bytes: usize,
}

/// Replay threads per column-encoding thread (see [`run`]).
const REPLAY_PER_ENCODER: usize = 4;

const EXTENSIONS: [&str; 4] = [".pgn", ".pgn.zst", ".pgn.bz2", ".pgn.gz"];

/// Counts over games, summed over chunks and inputs.
#[derive(Default, Clone, Debug)]
struct Tally {
    games: u64,
    /// Games whose replay stopped on an error.
    errors: u64,
    /// Games in a variant that is not replayed.
    skipped: u64,
    events: [u64; 4],
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.errors += other.errors;
        self.skipped += other.skipped;
        for (a, b) in self.events.iter_mut().zip(other.events) {
            *a += b;
        }
    }

    fn event_total(&self) -> u64 {
        self.events.iter().sum()
    }

    fn events_json(&self) -> Value {
        Value::Object(EventKind::ALL.iter().zip(self.events).map(|(k, n)| (k.as_str().to_owned(), json!(n))).collect())
    }
}

/// One input to read, and the source (partition) it goes to.
struct Input {
    path: PathBuf,
    source: String,
}

pub fn run(options: Options) -> Result<ExitCode> {
    let started = Instant::now();
    let inputs = plan(&options)?;
    let mut dataset = Dataset::open(&options.out)?;
    let threads = options.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("replay-{i}"))
        .build()
        .context("cannot start the replay threads")?;
    // With many replay threads, Parquet columns are encoded and compressed in parallel too, so
    // the one thread that writes in order does little more than append bytes: one encoding
    // thread per REPLAY_PER_ENCODER replay threads (encoding costs about 1/7 of replaying, by
    // callgrind). Below that, the writing thread encodes itself: an idle pool's threads spin
    // after every batch, which cost more CPU than the encoding (21% of a core beside one
    // replay thread).
    let encoders = match threads / REPLAY_PER_ENCODER {
        0 => None,
        n => Some(Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("encode-{i}"))
                .build()
                .context("cannot start the encoding threads")?,
        )),
    };

    // The views read every partition by a glob, so they do not depend on what this run adds;
    // written first, they are there for the partitions committed even if the run stops early.
    dataset.write_views()?;
    dataset.remove_stale(&inputs.iter().map(|i| i.source.as_str()).collect::<Vec<_>>())?;
    let mut total = Tally::default();
    let mut failed = 0usize;
    for input in &inputs {
        let (entry, tally, committed) = ingest_input(input, &dataset, &pool, &encoders, threads, &options)?;
        if entry.get("status").and_then(Value::as_str) != Some("ok") {
            failed += 1;
            if let Some(error) = entry.get("error").and_then(Value::as_str) {
                eprintln!("threefold: {error}");
            }
        }
        total.add(&tally);
        // Recorded as soon as the source's partition is committed (or its failure known), and
        // written at once (in a dataset of over 100 sources, within a second): an output error
        // or a kill later in the run leaves a manifest that describes the partitions committed
        // before. A kill right after a commit leaves its entry in the commit's record, which
        // the next run writes to the manifest.
        dataset.update_manifest(entry, committed)?;
    }
    dataset.flush_manifest()?;

    if !options.quiet {
        let secs = started.elapsed().as_secs_f64();
        let kinds: Vec<String> =
            EventKind::ALL.iter().zip(total.events).map(|(k, n)| format!("{} {n}", k.as_str())).collect();
        eprintln!(
            "threefold: {} input(s), {failed} failed; {} games ({} with errors, {} skipped variants); {} events ({}); {secs:.1} s, {:.0} games/s; dataset {}",
            inputs.len(),
            total.games,
            total.errors,
            total.skipped,
            total.event_total(),
            kinds.join(", "),
            total.games as f64 / secs.max(1e-3),
            dataset.root().display(),
        );
    }
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Expands directories and names each input's source; refuses two inputs for one source.
fn plan(options: &Options) -> Result<Vec<Input>> {
    let mut paths = Vec::new();
    for path in &options.inputs {
        if path.is_dir() {
            let mut found = Vec::new();
            find_pgn(path, &mut found)?;
            if found.is_empty() {
                bail!("{} contains no {} files", path.display(), EXTENSIONS.join(", "));
            }
            found.sort();
            paths.extend(found);
        } else {
            paths.push(path.clone());
        }
    }
    if options.source.is_some() && paths.len() != 1 {
        bail!("--source names one input's partition, but {} inputs were given; ingest them one by one", paths.len());
    }
    let mut inputs: Vec<Input> = Vec::new();
    for path in paths {
        let source = match &options.source {
            Some(name) => {
                if !valid_source(name) {
                    bail!("--source {name:?}: use letters, digits, '.', '_' and '-' only, not starting with '.'");
                }
                name.clone()
            }
            None if path.as_os_str() == "-" => bail!("reading stdin needs --source NAME to name its partition"),
            None => source_name(&path),
        };
        if let Some(other) = inputs.iter().find(|i| i.source == source) {
            bail!(
                "{} and {} would both be source {source:?}; ingest one of them with --source",
                other.path.display(),
                path.display()
            );
        }
        inputs.push(Input { path, source });
    }
    Ok(inputs)
}

fn find_pgn(dir: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry.with_context(|| format!("cannot list {}", dir.display()))?.path();
        if path.is_dir() {
            find_pgn(&path, found)?;
        } else {
            let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
            if EXTENSIONS.iter().any(|ext| name.ends_with(ext)) {
                found.push(path);
            }
        }
    }
    Ok(())
}

fn valid_source(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The file name without its extensions (`.pgn`, `.zst`, `.bz2`, `.gz`), other characters than
/// letters, digits, `.`, `_` and `-` replaced by `_`.
fn source_name(path: &Path) -> String {
    let mut name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loop {
        let lower = name.to_lowercase();
        match [".zst", ".bz2", ".gz", ".pgn"].iter().find(|ext| lower.ends_with(*ext)) {
            Some(ext) if name.len() > ext.len() => name.truncate(name.len() - ext.len()),
            _ => break,
        }
    }
    let name: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect();
    let name = name.trim_start_matches('.');
    if name.is_empty() { "input".to_owned() } else { name.to_owned() }
}

/// What a worker made of one chunk.
struct Replayed {
    seq: u64,
    games: RecordBatch,
    events: RecordBatch,
    tally: Tally,
}

/// Replays the games of one chunk; `game_index` in the batches counts from 0 within the chunk.
fn replay_chunk(chunk: &Chunk, source: &str, visitor: &mut GameVisitor) -> Result<Replayed> {
    let mut games = GamesBuilder::new();
    let mut events = EventsBuilder::new();
    let mut tally = Tally::default();
    let mut index = 0u64;
    let _ = visitor.read_chunk(chunk, |offset, game| {
        games.append(source, index, chunk.offset + offset as u64, &game);
        match game.status() {
            GameStatus::Error => tally.errors += 1,
            GameStatus::Skipped => tally.skipped += 1,
            GameStatus::Ok => {}
        }
        if let Some(analysis) = &game.analysis {
            for event in &analysis.events {
                events.append(source, index, event);
                tally.events[event.kind() as usize] += 1;
            }
        }
        index += 1;
        ControlFlow::Continue(())
    });
    tally.games = index;
    Ok(Replayed { seq: chunk.seq, games: games.finish()?, events: events.finish()?, tally })
}

/// How reading an input ended.
struct ReadEnd {
    compression: Option<Compression>,
    bytes: u64,
    error: Option<ReadError>,
}

/// The reader stage: opens, decompresses and splits one input, sending chunks while it holds
/// slots. With `threads` >= 2, a pzstd file or plain text is read in blocks that more threads
/// decompress and survey for game starts ([`input::chunker`], [`crate::read::blocks`]).
fn read_input(
    path: &Path,
    chunk_bytes: usize,
    threads: usize,
    counters: Arc<Counters>,
    chunks: crossbeam_channel::Sender<Chunk>,
    slots: crossbeam_channel::Receiver<()>,
    recycled: crossbeam_channel::Receiver<ChunkBytes>,
) -> ReadEnd {
    let raw = counters.clone();
    let count = move |n| {
        raw.raw_bytes.fetch_add(n, Relaxed);
    };
    let opened = if path.as_os_str() == "-" {
        input::chunker(input::Counted { inner: io::stdin(), count }, threads, chunk_bytes)
    } else {
        File::open(path).and_then(|f| input::chunker_file(f, count, threads, chunk_bytes))
    };
    let (compression, mut chunker) = match opened {
        Ok(x) => x,
        Err(error) => return ReadEnd { compression: None, bytes: 0, error: Some(ReadError { offset: 0, error }) },
    };
    loop {
        while let Ok(buffer) = recycled.try_recv() {
            chunker.recycle(buffer);
        }
        match chunker.next_chunk() {
            Ok(Some(chunk)) => {
                counters.bytes.fetch_add(chunk.data.len() as u64, Relaxed);
                // The writer gone means it failed; it reports why.
                if slots.recv().is_err() || chunks.send(chunk).is_err() {
                    break;
                }
            }
            Ok(None) => break,
            Err(error) => {
                return ReadEnd { compression: Some(compression), bytes: error.offset, error: Some(error) };
            }
        }
    }
    ReadEnd { compression: Some(compression), bytes: chunker.bytes_read(), error: None }
}

/// Reads, replays and writes one input; returns its manifest entry, tally and commit (none when
/// the input failed). Errors are output (dataset) errors, which stop the whole run; input errors
/// are in the entry.
fn ingest_input(
    input: &Input,
    dataset: &Dataset,
    pool: &rayon::ThreadPool,
    encoders: &Option<Arc<rayon::ThreadPool>>,
    threads: usize,
    options: &Options,
) -> Result<(Value, Tally, Option<Committed>)> {
    let started = Instant::now();
    let is_stdin = input.path.as_os_str() == "-";
    let size = if is_stdin { None } else { fs::metadata(&input.path).ok().map(|m| m.len()) };
    let counters = Arc::new(Counters::default());
    let mut partition = dataset.partition(&input.source, encoders)?;
    let progress = Progress::start(&input.source, size, counters.clone(), options.quiet);

    let in_flight = 2 * threads + 2;
    let (chunk_tx, chunk_rx) = bounded::<Chunk>(in_flight);
    let (result_tx, result_rx) = bounded::<Result<Replayed>>(in_flight);
    let (slot_tx, slot_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = slot_tx.send(());
    }
    // Replayed chunks' bytes go back to the reader: a buffer of its own for a later chunk, a
    // shared block to the decoders once no chunk holds it.
    let (recycle_tx, recycle_rx) = bounded::<ChunkBytes>(in_flight);
    for _ in 0..threads {
        let (chunks, results, recycle) = (chunk_rx.clone(), result_tx.clone(), recycle_tx.clone());
        let source = input.source.clone();
        pool.spawn(move || {
            let mut visitor = GameVisitor::new();
            while let Ok(chunk) = chunks.recv() {
                let replayed = replay_chunk(&chunk, &source, &mut visitor);
                let _ = recycle.try_send(chunk.data);
                if results.send(replayed).is_err() {
                    break;
                }
            }
        });
    }
    drop((chunk_rx, result_tx, recycle_tx));

    let mut tally = Tally::default();
    let next_index = AtomicU64::new(0);
    let (read_end, written) = std::thread::scope(|scope| {
        let reader = {
            let counters = counters.clone();
            let path = input.path.clone();
            let chunk_bytes = options.chunk_bytes;
            std::thread::Builder::new().name("read".into()).spawn_scoped(scope, move || {
                read_input(&path, chunk_bytes, threads, counters, chunk_tx, slot_rx, recycle_rx)
            })
        };
        let written = (|| -> Result<()> {
            let mut waiting: BTreeMap<u64, Replayed> = BTreeMap::new();
            let mut next = 0u64;
            for result in &result_rx {
                let replayed = result?;
                waiting.insert(replayed.seq, replayed);
                while let Some(r) = waiting.remove(&next) {
                    let base = next_index.load(Relaxed);
                    let games = schema::offset_game_index(&r.games, base)?;
                    let events = schema::offset_game_index(&r.events, base)?;
                    partition.write(&games, &events)?;
                    next_index.fetch_add(r.tally.games, Relaxed);
                    tally.add(&r.tally);
                    counters.games.fetch_add(r.tally.games, Relaxed);
                    counters.events.fetch_add(r.tally.event_total(), Relaxed);
                    counters.errors.fetch_add(r.tally.errors, Relaxed);
                    next += 1;
                    let _ = slot_tx.send(());
                }
            }
            Ok(())
        })();
        // On a write error, closing our ends stops the reader and the workers.
        drop(result_rx);
        drop(slot_tx);
        let read_end = match reader {
            Ok(handle) => handle.join().unwrap_or_else(|_| ReadEnd {
                compression: None,
                bytes: 0,
                error: Some(ReadError { offset: 0, error: io::Error::other("reader thread panicked") }),
            }),
            Err(e) => ReadEnd { compression: None, bytes: 0, error: Some(ReadError { offset: 0, error: e }) },
        };
        (read_end, written)
    });
    drop(progress);
    if let Err(e) = written {
        partition.abort();
        return Err(e.context(format!("while writing the dataset for {}", input.path.display())));
    }

    let mut entry = json!({
        "source": input.source,
        "path": if is_stdin { "-".to_owned() } else { absolute(&input.path) },
        "size": size,
        "compression": read_end.compression.map(|c| format!("{c:?}").to_lowercase()),
        "decompressed_bytes": read_end.bytes,
        "games": tally.games,
        "events": tally.event_total(),
        "events_by_kind": tally.events_json(),
        "games_with_errors": tally.errors,
        "skipped_variants": tally.skipped,
        "seconds": (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
    });
    let committed = match read_end.error {
        None => {
            entry["status"] = json!("ok");
            entry["error"] = Value::Null;
            entry["error_offset"] = Value::Null;
            Some(partition.commit(&entry)?)
        }
        Some(ReadError { offset, error }) => {
            partition.abort();
            // Nothing of this input is in the dataset.
            entry["games_before_error"] = json!(tally.games);
            entry["events_before_error"] = json!(tally.event_total());
            entry["games"] = json!(0);
            entry["events"] = json!(0);
            tally = Tally::default();
            let what = if read_end.compression.is_none() { "cannot open" } else { "cannot read" };
            entry["status"] = json!("failed");
            entry["error"] = json!(format!(
                "{what} {}: {error} (at decompressed byte {offset}); nothing was written for source {:?}{}",
                input.path.display(),
                input.source,
                if dataset.has_partition(&input.source) { ", its previous partition is kept" } else { "" }
            ));
            entry["error_offset"] = json!(offset);
            None
        }
    };
    Ok((entry, tally, committed))
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_names() {
        assert_eq!(
            source_name(Path::new("/x/lichess_db_standard_rated_2024-01.pgn.zst")),
            "lichess_db_standard_rated_2024-01"
        );
        assert_eq!(source_name(Path::new("a b.PGN")), "a_b");
        assert!(valid_source("2024-01"));
        assert!(!valid_source("../x"));
    }
}
