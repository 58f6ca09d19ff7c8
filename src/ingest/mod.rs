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

pub mod fingerprint;
pub mod plan;
pub mod progress;

pub use plan::{Options, Plan, Threads};

use std::{
    collections::BTreeMap,
    fs::{self, File},
    io,
    path::{Path, PathBuf},
    process::ExitCode,
    sync::{Arc, atomic::Ordering::Relaxed},
    time::Instant,
};

use anyhow::{Context, Result};
use arrow_array::RecordBatch;
use crossbeam_channel::{Receiver, Sender, bounded};
use std::ops::ControlFlow;

use self::{fingerprint::Fingerprint, plan::Input};
use crate::{
    dataset::commit::Committed,
    dataset::manifest::{InputStatus, ManifestEntry},
    dataset::schema::{self, EventsBuilder, GamesBuilder},
    dataset::{self, RULES_VERSION, TOOL_VERSION, lock},
    dataset::{
        Dataset,
        partition::{Counts, Partition, ResumeKey},
    },
    engine::event::EventKind,
    ingest::progress::{Counters, Progress, RunShare},
    pgn::{GameStatus, GameVisitor},
    read::chunk::{Chunk, ChunkBytes, ReadError},
    read::input::{self, Compression},
};

/// Counts over games ([`Counts`]), per chunk, input and run.
type Tally = Counts;

/// Thread pools of a run.
struct Pools {
    replay: rayon::ThreadPool,
    encoders: Option<Arc<rayon::ThreadPool>>,
}

impl Pools {
    fn new(threads: &Threads) -> Result<Pools> {
        let pool = |n: usize, name: &'static str| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(move |i| format!("{name}-{i}"))
                .build()
                .with_context(|| format!("cannot start the {name} threads"))
        };
        let encoders = match threads.encoders {
            0 => None,
            n => Some(Arc::new(pool(n, "encode")?)),
        };
        Ok(Pools { replay: pool(threads.replay, "replay")?, encoders })
    }
}

/// What a run did with one input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Ingested,
    UpToDate,
    Failed,
    /// Another run holds its source.
    Busy,
}

/// What a run did, input by input.
#[derive(Default)]
struct RunTally {
    games: Tally,
    ingested: usize,
    up_to_date: usize,
    failed: usize,
    busy: usize,
}

pub fn run(options: Options) -> Result<ExitCode> {
    let started = Instant::now();
    let plan = Plan::new(options)?;
    let mut dataset = Dataset::open(&plan.out)?;
    let pools = Pools::new(&plan.threads)?;
    // The views read every partition by a glob, so they do not depend on what this run adds;
    // written first, they are there for the partitions committed even if the run stops early.
    dataset.write_views()?;
    let mut leftovers = dataset.leftovers(&plan.inputs.iter().map(|i| i.source.as_str()).collect::<Vec<_>>())?;
    let mut run = RunTally::default();
    let sizes: Vec<u64> = plan.inputs.iter().map(|i| fs::metadata(&i.path).map_or(0, |m| m.len())).collect();
    let mut share = RunShare { started, total: sizes.iter().sum(), before: 0, read_before: 0 };
    for (input, size) in plan.inputs.iter().zip(&sizes) {
        let leftovers = leftovers.remove(&input.source).unwrap_or_default();
        let (outcome, tally) = ingest_one(input, &mut dataset, &pools, &plan, &leftovers, share)?;
        share.before += size;
        if outcome == Outcome::Ingested {
            share.read_before += size;
        }
        run.games.add(&tally);
        match outcome {
            Outcome::Ingested => run.ingested += 1,
            Outcome::UpToDate => run.up_to_date += 1,
            Outcome::Failed => run.failed += 1,
            Outcome::Busy => run.busy += 1,
        }
    }
    dataset.flush_manifest()?;
    if !plan.quiet {
        print_summary(&plan, &run, started.elapsed().as_secs_f64(), dataset.root());
    }
    Ok(if run.failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Ingests one input unless another run holds its source or it is up to date, and records it in
/// the manifest.
fn ingest_one(
    input: &Input,
    dataset: &mut Dataset,
    pools: &Pools,
    plan: &Plan,
    leftovers: &[PathBuf],
    share: RunShare,
) -> Result<(Outcome, Tally)> {
    let _lock = match lock::try_source(dataset.root(), &input.source)? {
        Ok(lock) => lock,
        Err(holder) => {
            // That run writes the partition; this one has nothing to add (exit status 0).
            eprintln!(
                "threefold: {}: skipped, source {:?} is being written by {holder}",
                input.path.display(),
                input.source
            );
            return Ok((Outcome::Busy, Tally::default()));
        }
    };
    dataset::remove_leftovers(leftovers)?;
    let fingerprint = if input.is_stdin() { None } else { Fingerprint::of(&input.path).ok() };
    if let Some(entry) = up_to_date(input, dataset, fingerprint.as_ref(), plan.force) {
        // Parts a killed `--force` run staged for it are of no use now.
        dataset::partition::discard_staging(dataset.root(), &input.source)?;
        if !plan.quiet {
            eprintln!("threefold: {}: up to date (source {:?})", input.path.display(), input.source);
        }
        dataset.update_manifest(entry, None)?;
        return Ok((Outcome::UpToDate, Tally::default()));
    }
    let (entry, tally, committed) = ingest_input(input, dataset, pools, plan, fingerprint, share)?;
    let outcome = if entry.status == InputStatus::Ok { Outcome::Ingested } else { Outcome::Failed };
    if let Some(error) = &entry.error {
        eprintln!("threefold: {error}");
    }
    // Recorded as soon as the source's partition is committed (or its failure known), and
    // written at once (in a dataset of over 100 sources, within a second): an output error or a
    // kill later in the run leaves a manifest that describes the partitions committed before. A
    // kill right after a commit leaves its entry in the commit's record, which the next run
    // writes to the manifest.
    dataset.update_manifest(entry, committed)?;
    Ok((outcome, tally))
}

/// The input's entry marked `up_to_date`, when its partition is complete, written with this
/// tool's rules and schema, and the input's size and sampled content are what they were (and,
/// with `--verify-sha256`, its recorded SHA-256 is the one expected).
fn up_to_date(
    input: &Input,
    dataset: &Dataset,
    fingerprint: Option<&Fingerprint>,
    force: bool,
) -> Option<ManifestEntry> {
    let (entry, fingerprint) = (dataset.entry(&input.source)?, fingerprint?);
    let same = entry.status.is_complete()
        && !dataset::is_stale(entry)
        && entry.size == Some(fingerprint.size)
        && entry.fingerprint.as_deref() == Some(fingerprint.sample_sha256.as_str())
        && (input.sha256.is_none() || entry.sha256 == input.sha256)
        && dataset.has_partition(&input.source);
    (same && !force).then(|| ManifestEntry {
        status: InputStatus::UpToDate,
        modified_unix_ns: fingerprint.modified_unix_ns,
        path: absolute(&input.path),
        ..entry.clone()
    })
}

fn print_summary(plan: &Plan, run: &RunTally, secs: f64, root: &Path) {
    let total = &run.games;
    let kinds: Vec<String> =
        EventKind::ALL.iter().zip(total.events).map(|(k, n)| format!("{} {n}", k.as_str())).collect();
    let busy = if run.busy > 0 { format!(", {} written by another run", run.busy) } else { String::new() };
    eprintln!(
        "threefold: {} input(s): {} ingested, {} up to date, {} failed{busy}; {} games ({} with errors, {} skipped variants); {} events ({}); {secs:.1} s, {:.0} games/s; dataset {}",
        plan.inputs.len(),
        run.ingested,
        run.up_to_date,
        run.failed,
        total.games,
        total.errors,
        total.skipped,
        total.event_total(),
        kinds.join(", "),
        total.games as f64 / secs.max(1e-3),
        root.display(),
    );
}

/// What a worker made of one chunk.
struct Replayed {
    seq: u64,
    /// The decompressed byte where the chunk ends.
    end: u64,
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
    let end = chunk.offset + chunk.data.len() as u64;
    Ok(Replayed { seq: chunk.seq, end, games: games.finish()?, events: events.finish()?, tally })
}

/// Where the reader leaves an input's SHA-256 once it has read all of it.
type Digest = Arc<std::sync::Mutex<Option<String>>>;

/// How reading an input ended.
struct ReadEnd {
    compression: Option<Compression>,
    bytes: u64,
    error: Option<ReadError>,
}

impl ReadEnd {
    /// Reading that could not start.
    fn failed(error: io::Error) -> ReadEnd {
        ReadEnd { compression: None, bytes: 0, error: Some(ReadError { offset: 0, error }) }
    }
}

/// The reader stage: opens, decompresses and splits one input, sending chunks while it holds
/// slots. With `decoders` > 0, a pzstd file or plain text is read in blocks that that many
/// threads decompress and survey for game starts ([`input::chunker`], [`crate::read::blocks`]).
/// The reader's ends of the pipes.
struct ReaderEnds {
    chunks: Sender<Chunk>,
    slots: Receiver<()>,
    recycled: Receiver<ChunkBytes>,
    /// Where the input goes on after staged parts (0: from the start).
    resume_at: u64,
}

fn read_input(
    path: &Path,
    chunk_bytes: usize,
    decoders: usize,
    digest: Option<Digest>,
    counters: Arc<Counters>,
    ends: ReaderEnds,
) -> ReadEnd {
    let ReaderEnds { chunks, slots, recycled, resume_at } = ends;
    // Chunks before `resume_at` are in staged parts already: read, not replayed; the others are
    // numbered from 0 for the writer.
    let mut skipped = 0u64;
    let raw = counters.clone();
    let count = move |n| {
        raw.raw_bytes.fetch_add(n, Relaxed);
    };
    let opened = match digest {
        _ if path.as_os_str() == "-" => {
            input::chunker(input::Counted { inner: io::stdin(), count }, decoders, chunk_bytes)
        }
        // Read in order (not at the blocks' offsets) so that the bytes are hashed as they come.
        Some(digest) => File::open(path).and_then(|f| {
            input::chunker(input::Counted { inner: input::Hashed::new(f, digest), count }, decoders, chunk_bytes)
        }),
        None => File::open(path).and_then(|f| input::chunker_file(f, count, decoders, chunk_bytes)),
    };
    let (compression, mut chunker) = match opened {
        Ok(x) => x,
        Err(error) => return ReadEnd::failed(error),
    };
    loop {
        while let Ok(buffer) = recycled.try_recv() {
            chunker.recycle(buffer);
        }
        match chunker.next_chunk() {
            Ok(Some(mut chunk)) => {
                counters.bytes.fetch_add(chunk.data.len() as u64, Relaxed);
                if chunk.offset < resume_at {
                    skipped += 1;
                    chunker.recycle(chunk.data);
                    continue;
                }
                chunk.seq -= skipped;
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

/// Channels between the stages of one input, each bounded by the chunks in flight.
struct Pipes {
    chunks: (Sender<Chunk>, Receiver<Chunk>),
    results: (Sender<Result<Replayed>>, Receiver<Result<Replayed>>),
    /// A slot per chunk in flight: the reader takes one before each chunk, the writer gives it
    /// back after writing it.
    slots: (Sender<()>, Receiver<()>),
    /// Replayed chunks' bytes go back to the reader: a buffer of its own for a later chunk, a
    /// shared block to the decoders once no chunk holds it.
    recycle: (Sender<ChunkBytes>, Receiver<ChunkBytes>),
}

impl Pipes {
    fn new(in_flight: usize) -> Pipes {
        let slots = bounded(in_flight);
        for _ in 0..in_flight {
            let _ = slots.0.send(());
        }
        Pipes { chunks: bounded(in_flight), results: bounded(in_flight), slots, recycle: bounded(in_flight) }
    }
}

/// Starts the replay workers: each replays the chunks it receives until the channel closes.
fn spawn_workers(pool: &rayon::ThreadPool, workers: usize, source: &str, pipes: &Pipes) {
    for _ in 0..workers {
        let (chunks, results, recycle) = (pipes.chunks.1.clone(), pipes.results.0.clone(), pipes.recycle.0.clone());
        let source = source.to_owned();
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
}

/// The writer stage: puts replayed chunks back in input order and writes them, giving each
/// chunk's slot back; returns the input's tally (the staged parts' included).
fn write_in_order(
    results: &Receiver<Result<Replayed>>,
    slots: &Sender<()>,
    partition: &mut Partition,
    counters: &Counters,
) -> Result<Tally> {
    let mut tally = partition.resumed().0.clone();
    let mut waiting: BTreeMap<u64, Replayed> = BTreeMap::new();
    let mut next = 0u64;
    for result in results {
        let replayed = result?;
        waiting.insert(replayed.seq, replayed);
        while let Some(r) = waiting.remove(&next) {
            let games = schema::offset_game_index(&r.games, tally.games)?;
            let events = schema::offset_game_index(&r.events, tally.games)?;
            partition.write(&games, &events)?;
            partition.chunk_done(&r.tally, r.end)?;
            tally.add(&r.tally);
            counters.games.fetch_add(r.tally.games, Relaxed);
            counters.events.fetch_add(r.tally.event_total(), Relaxed);
            counters.errors.fetch_add(r.tally.errors, Relaxed);
            next += 1;
            let _ = slots.send(());
        }
    }
    Ok(tally)
}

/// Reads, replays and writes one input; returns its manifest entry, tally and commit (none when
/// the input failed). Errors are output (dataset) errors, which stop the whole run; input errors
/// are in the entry.
fn ingest_input(
    input: &Input,
    dataset: &Dataset,
    pools: &Pools,
    plan: &Plan,
    fingerprint: Option<Fingerprint>,
    share: RunShare,
) -> Result<(ManifestEntry, Tally, Option<Committed>)> {
    let started = Instant::now();
    let size = fingerprint.as_ref().map(|f| f.size);
    let digest: Option<Digest> = input.sha256.as_ref().map(|_| Arc::default());
    let counters = Arc::new(Counters::default());
    let mut partition = open_partition(input, dataset, pools, plan, fingerprint.as_ref())?;
    let resume_at = partition.resumed().1;
    let progress = Progress::start(&input.source, size, counters.clone(), plan.quiet, share);
    let pipes = Pipes::new(plan.threads.in_flight);
    spawn_workers(&pools.replay, plan.threads.replay, &input.source, &pipes);
    let Pipes { chunks, results, slots, recycle } = pipes;
    let (read_end, written) = std::thread::scope(|scope| {
        let reader = {
            let (counters, path, decoders) = (counters.clone(), input.path.clone(), plan.threads.decoders);
            let ends = ReaderEnds { chunks: chunks.0, slots: slots.1, recycled: recycle.1, resume_at };
            let (digest, chunk_bytes) = (digest.clone(), plan.chunk_bytes);
            std::thread::Builder::new()
                .name("read".into())
                .spawn_scoped(scope, move || read_input(&path, chunk_bytes, decoders, digest, counters, ends))
        };
        drop((chunks.1, results.0, recycle.0));
        let written = write_in_order(&results.1, &slots.0, &mut partition, &counters);
        // On a write error, closing our ends stops the reader and the workers.
        drop((results.1, slots.0));
        let read_end = match reader {
            Ok(handle) => handle.join().unwrap_or_else(|_| ReadEnd::failed(io::Error::other("reader thread panicked"))),
            Err(e) => ReadEnd::failed(e),
        };
        (read_end, written)
    });
    drop(progress);
    let tally = match written {
        Ok(tally) => tally,
        Err(e) => {
            partition.abort();
            return Err(e.context(format!("while writing the dataset for {}", input.path.display())));
        }
    };
    let mut entry = manifest_entry(input, fingerprint.as_ref(), &read_end, &tally, started.elapsed().as_secs_f64());
    entry.sha256 = digest.and_then(|d| d.lock().ok()?.clone());
    match failure(input, &mut entry, read_end) {
        None => {
            let committed = partition.commit(&entry)?;
            Ok((entry, tally, Some(committed)))
        }
        Some(failure) => {
            partition.abort();
            // Nothing of this input is in the dataset.
            entry.games_before_error = Some(tally.games);
            entry.events_before_error = Some(tally.event_total());
            (entry.games, entry.events) = (0, 0);
            entry.status = InputStatus::Failed;
            entry.error = Some(format!(
                "{failure}; nothing was written for source {:?}{}",
                input.source,
                if dataset.has_partition(&input.source) { ", its previous partition is kept" } else { "" }
            ));
            Ok((entry, Tally::default(), None))
        }
    }
}

/// Opens the input's partition, going on from parts an interrupted run staged if it can.
fn open_partition(
    input: &Input,
    dataset: &Dataset,
    pools: &Pools,
    plan: &Plan,
    fingerprint: Option<&Fingerprint>,
) -> Result<Partition> {
    let key = ResumeKey {
        size: fingerprint.map(|f| f.size),
        fingerprint: fingerprint.map(|f| f.sample_sha256.clone()),
        rules_version: RULES_VERSION.to_owned(),
        schema_version: schema::version().to_owned(),
        part_games: plan.part_games,
        chunk_bytes: plan.chunk_bytes,
    };
    let partition = dataset.partition(&input.source, key, &pools.encoders)?;
    let (done, resume_at, parts) = partition.resumed();
    if resume_at > 0 && !plan.quiet {
        eprintln!(
            "threefold: {}: resuming after {} games ({parts} part(s) staged by an interrupted run)",
            input.path.display(),
            done.games
        );
    }
    Ok(partition)
}

/// Why the input failed, if it did: it could not be read to its end, or its SHA-256 is not the
/// one expected.
fn failure(input: &Input, entry: &mut ManifestEntry, read_end: ReadEnd) -> Option<String> {
    match read_end.error {
        Some(ReadError { offset, error }) => {
            let what = if read_end.compression.is_none() { "cannot open" } else { "cannot read" };
            entry.error_offset = Some(offset);
            Some(format!("{what} {}: {error} (at decompressed byte {offset})", input.path.display()))
        }
        None if input.sha256.is_some() && entry.sha256 != input.sha256 => Some(format!(
            "{}: its SHA-256 is {}, --verify-sha256 expects {}",
            input.path.display(),
            entry.sha256.as_deref().unwrap_or("unknown (not read to its end)"),
            input.sha256.as_deref().unwrap_or_default()
        )),
        None => None,
    }
}

/// The manifest entry of an input read to `read_end` (an `ok` one; the caller marks failures).
fn manifest_entry(
    input: &Input,
    fingerprint: Option<&Fingerprint>,
    read_end: &ReadEnd,
    tally: &Tally,
    seconds: f64,
) -> ManifestEntry {
    ManifestEntry {
        source: input.source.clone(),
        path: if input.is_stdin() { "-".to_owned() } else { absolute(&input.path) },
        size: fingerprint.map(|f| f.size),
        fingerprint: fingerprint.map(|f| f.sample_sha256.clone()),
        modified_unix_ns: fingerprint.and_then(|f| f.modified_unix_ns),
        rules_version: Some(RULES_VERSION.to_owned()),
        schema_version: Some(schema::version().to_owned()),
        tool_version: Some(TOOL_VERSION.to_owned()),
        compression: read_end.compression.map(|c| format!("{c:?}").to_lowercase()),
        decompressed_bytes: read_end.bytes,
        games: tally.games,
        events: tally.event_total(),
        events_by_kind: EventKind::ALL.iter().zip(tally.events).map(|(k, n)| (k.as_str().to_owned(), n)).collect(),
        games_with_errors: tally.errors,
        skipped_variants: tally.skipped,
        seconds: (seconds * 1000.0).round() / 1000.0,
        ..ManifestEntry::default()
    }
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).to_string_lossy().into_owned()
}
