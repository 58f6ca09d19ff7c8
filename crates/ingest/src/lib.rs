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
//!
//! Outside a run, [`games`] reads an input's games one by one (`dump`) or finds one by its key
//! (`explain`), whatever its form.
//!
//! As a library: [`run`] with [`Options`], here one game, its start position three times.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let pgn = dir.path().join("casual.pgn");
//! std::fs::write(&pgn, "[Event \"Casual\"]\n[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n")?;
//! let out = dir.path().join("dataset");
//! threefold_ingest::run(threefold_ingest::Options::new(vec![pgn], out.clone()))?;
//! // One source, `casual`, with its games, events and summary tables.
//! for table in ["games", "events", "summary"] {
//!     assert!(out.join(table).join("source=casual").join("part-00000.parquet").exists());
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```

mod fingerprint;
mod freshness;
pub mod games;
pub mod parquet_input;
mod plan;
mod progress;
mod reader;
pub mod rows;
pub mod shard;
mod sharded;
mod turns;

// The layers below under their own names, as the code of every crate names them.
use threefold_core::{engine, pgn, read};
use threefold_dataset as dataset;

pub use plan::{Options, Plan, Threads};

use std::{
    collections::BTreeMap,
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

use self::{
    fingerprint::Fingerprint,
    freshness::Freshness,
    plan::Input,
    reader::{Digest, ReadEnd, ReadSettings, ReaderEnds, Span, Work},
};
use crate::{
    dataset::manifest::{Committed, FileEntry, InputStatus, ManifestEntry},
    dataset::schema::{self, BatchBuilder},
    dataset::{
        Dataset, continuation,
        partition::{self, Partition, ResumeKey, RowCounts},
    },
    dataset::{RULES_VERSION, TOOL_VERSION, lock},
    engine::event::EventKind,
    pgn::{GameVisitor, venue::Venue},
    progress::{Counters, Progress, RunShare},
    read::chunk::{ChunkBytes, ReadError},
    read::key::GameKey,
};

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
enum Disposition {
    Ingested,
    UpToDate,
    Failed,
    /// Another run holds its source.
    Busy,
    /// This shard's span is staged; the source waits for its other shards.
    Staged,
    /// Another shard reads it (an input that is read whole).
    OtherShard,
}

/// What a run did, input by input.
#[derive(Default)]
struct RunTally {
    games: RowCounts,
    ingested: usize,
    up_to_date: usize,
    failed: usize,
    busy: usize,
    staged: usize,
    other_shard: usize,
}

pub fn run(options: Options) -> Result<ExitCode> {
    let started = Instant::now();
    let plan = Plan::new(options)?;
    let mut dataset = Dataset::open(&plan.out)?;
    if plan.finish {
        return sharded::finish_all(&mut dataset, plan.quiet);
    }
    // Before the pools: their threads, and every input's reader, inherit it.
    let _turns = turns::LongTurns::on_one_cpu();
    let pools = Pools::new(&plan.threads)?;
    // The views read every partition by a glob, so they do not depend on what this run adds;
    // written first, they are there for the partitions committed even if the run stops early.
    dataset.write_views()?;
    let mut leftovers = dataset.leftovers(&plan.inputs.iter().map(|i| i.source.as_str()).collect::<Vec<_>>())?;
    let mut run = RunTally::default();
    let sizes: Vec<u64> = plan.inputs.iter().map(Input::size).collect();
    let mut share = RunShare { started, total: sizes.iter().sum(), before: 0, read_before: 0 };
    let mut whole_inputs = 0;
    for (input, size) in plan.inputs.iter().zip(&sizes) {
        let leftovers = leftovers.remove(&input.source).unwrap_or_default();
        let context = RunContext { dataset: &mut dataset, pools: &pools, plan: &plan, leftovers: &leftovers, share };
        let (disposition, tally) = match plan.shard {
            None => ingest_one(input, Unit::whole(&input.source), context)?,
            Some(shard) => sharded::ingest_shard(input, shard, &mut whole_inputs, context)?,
        };
        share.before += size;
        if disposition == Disposition::Ingested {
            share.read_before += size;
        }
        run.games.add(&tally);
        match disposition {
            Disposition::Ingested => run.ingested += 1,
            Disposition::UpToDate => run.up_to_date += 1,
            Disposition::Failed => run.failed += 1,
            Disposition::Busy => run.busy += 1,
            Disposition::Staged => run.staged += 1,
            Disposition::OtherShard => run.other_shard += 1,
        }
    }
    dataset.flush_manifest()?;
    if !plan.quiet {
        print_summary(&plan, &run, started.elapsed().as_secs_f64(), dataset.root());
    }
    Ok(if run.failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What ingesting one input needs of the run.
struct RunContext<'a> {
    dataset: &'a mut Dataset,
    pools: &'a Pools,
    plan: &'a Plan,
    /// Folders that killed runs left for the input's source.
    leftovers: &'a [PathBuf],
    share: RunShare,
}

/// Ingests one input unless another run holds its source or it is up to date, and records it in
/// the manifest.
fn ingest_one(input: &Input, unit: Unit, context: RunContext) -> Result<(Disposition, RowCounts)> {
    let RunContext { dataset, pools, plan, leftovers, share } = context;
    let _lock = match lock::try_source(dataset.root(), &input.source)? {
        Ok(lock) => lock,
        Err(holder) => {
            // That run writes the partition; this one has nothing to add (exit status 0).
            eprintln!(
                "threefold: {}: skipped, source {:?} is being written by {holder}",
                input.path.display(),
                input.source
            );
            return Ok((Disposition::Busy, RowCounts::default()));
        }
    };
    dataset::remove_leftovers(leftovers)?;
    let missing = input.missing_files();
    if !missing.is_empty() {
        // Ingested as it is: the next run adds the files that arrive (a month's append).
        eprintln!(
            "threefold: {}: {} of its files missing ({}): a download that did not finish? Its games \
             are read without them; the next run adds them",
            input.path.display(),
            missing.len(),
            missing.join(", ")
        );
    }
    let fingerprint = input.fingerprint();
    if let Some(entry) = up_to_date(input, dataset, fingerprint.as_ref(), plan.force) {
        // Parts a killed `--force` run staged for it are of no use now.
        dataset::partition::discard_staging(dataset.root(), &unit.name)?;
        if !plan.quiet {
            eprintln!("threefold: {}: up to date (source {:?})", input.path.display(), input.source);
        }
        dataset.update_manifest(entry, None)?;
        return Ok((Disposition::UpToDate, RowCounts::default()));
    }
    let mut unit = unit;
    unit.kept = kept_files(input, dataset, &unit, plan, fingerprint.as_ref());
    let (entry, tally, committed) = ingest_input(input, &unit, dataset, pools, plan, fingerprint, share)?;
    let disposition = if entry.status == InputStatus::Ok { Disposition::Ingested } else { Disposition::Failed };
    if let Some(error) = &entry.error {
        eprintln!("threefold: {error}");
    } else if !unit.kept.is_empty() && !plan.quiet {
        eprintln!(
            "threefold: {}: {} file(s) read, {} kept (source {:?})",
            input.path.display(),
            entry.files_read.unwrap_or_default(),
            entry.files_kept.unwrap_or_default(),
            input.source
        );
    }
    // Recorded as soon as the source's partition is committed (or its failure known), and
    // written at once (in a dataset of over 100 sources, within a second): an output error or a
    // kill later in the run leaves a manifest that describes the partitions committed before. A
    // kill right after a commit leaves its entry in the commit's record, which the next run
    // writes to the manifest.
    dataset.update_manifest(entry, committed)?;
    Ok((disposition, tally))
}

/// The files of a Parquet month whose rows its committed partition holds and keeps, when only
/// files added after them need reading ([`Freshness`]): the partition is then reopened as staged
/// parts for this run to go on from (unless a run killed while doing so left them). Says why the
/// whole month is read when a recorded file changed.
fn kept_files(
    input: &Input,
    dataset: &Dataset,
    unit: &Unit,
    plan: &Plan,
    fingerprint: Option<&Fingerprint>,
) -> Vec<FileEntry> {
    let (Some(entry), Some(fingerprint)) = (dataset.entry(&input.source), fingerprint) else { return Vec::new() };
    let usable = input.grows_by_files()
        && !plan.force
        && plan.shard.is_none()
        && entry.status.is_complete()
        && !dataset::is_stale(entry)
        && entry.venue.as_deref() == input.venue.map(Venue::as_str)
        && dataset.has_partition(&input.source);
    if !usable {
        return Vec::new();
    }
    let kept = match Freshness::of(&entry.files, &fingerprint.files) {
        Freshness::Added { kept } => kept,
        Freshness::Whole(why) => {
            if let Some(why) = why.filter(|_| !plan.quiet) {
                eprintln!("threefold: {}: {why}: reading all its files again", input.path.display());
            }
            return Vec::new();
        }
    };
    let key = resume_key(unit.shard, &kept, plan, Some(fingerprint), input.venue);
    if partition::resumable(dataset.root(), &input.source, &unit.name, &key).is_none() {
        let counts = RowCounts {
            games: entry.games,
            errors: entry.games_with_errors,
            skipped: entry.skipped_variants,
            events: EventKind::ALL.map(|k| entry.events_by_kind.get(k.as_str()).copied().unwrap_or_default()),
        };
        let committed = continuation::Committed { counts, bytes: entry.decompressed_bytes };
        if let Err(e) = continuation::reopen(dataset.root(), &input.source, &unit.name, key, committed) {
            // An output error stops the whole run when the month is written again.
            eprintln!("threefold: {}: {e:#}: reading all its files again", input.path.display());
            return Vec::new();
        }
    }
    if !plan.quiet {
        eprintln!(
            "threefold: {}: {} file(s) added after the {} ingested: reading only those (source {:?})",
            input.path.display(),
            fingerprint.files.len() - kept.len(),
            kept.len(),
            input.source
        );
    }
    kept
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
        && entry.venue.as_deref() == input.venue.map(Venue::as_str)
        && entry.size == Some(fingerprint.size)
        && (input.sha256.is_none() || entry.sha256 == input.sha256)
        && dataset.has_partition(&input.source)
        && entry.fingerprint.as_deref().is_some_and(|recorded| fingerprint.matches(recorded, &input.path));
    let files = (!entry.files.is_empty()).then_some(entry.files.len() as u32);
    (same && !force).then(|| ManifestEntry {
        status: InputStatus::UpToDate,
        modified_unix_ns: fingerprint.modified_unix_ns,
        path: absolute(&input.path),
        files_kept: files,
        files_read: files.map(|_| 0),
        ..entry.clone()
    })
}

fn print_summary(plan: &Plan, run: &RunTally, secs: f64, root: &Path) {
    let total = &run.games;
    let kinds: Vec<String> =
        EventKind::ALL.iter().zip(total.events).map(|(k, n)| format!("{} {n}", k.as_str())).collect();
    let mut busy = if run.busy > 0 { format!(", {} written by another run", run.busy) } else { String::new() };
    if let Some(shard) = plan.shard {
        busy += &format!(
            "; shard {shard}: {} staged for other shards to complete, {} read whole by another shard",
            run.staged, run.other_shard
        );
    }
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
    /// The key of the chunk's last game, and the decompressed bytes it covers.
    last: Option<GameKey>,
    bytes: u64,
    games: RecordBatch,
    events: RecordBatch,
    tally: RowCounts,
}

/// Replays the games of one chunk, each named by its key.
fn replay_chunk(work: &Work, source: &str, visitor: &mut GameVisitor, batch: &mut BatchBuilder) -> Result<Replayed> {
    // A game slice mostly holds one game (the reader may find more in one).
    batch.reserve(work.chunk.games.len());
    let mut tally = RowCounts::default();
    let _ = visitor.read_chunk(&work.chunk, |offset, game| {
        tally.add_game(&game);
        batch.append(work.key(offset), game);
        ControlFlow::Continue(())
    });
    let (games, events) = batch.finish(source, |game| visitor.recycle(game))?;
    let (seq, last, bytes) = (work.chunk.seq, work.last, work.bytes);
    Ok(Replayed { seq, last, bytes, games, events, tally })
}

/// Channels between the stages of one input, each bounded by the chunks in flight.
struct Pipes {
    chunks: (Sender<Work>, Receiver<Work>),
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
fn spawn_workers(pool: &rayon::ThreadPool, workers: usize, input: &Input, pipes: &Pipes) {
    for _ in 0..workers {
        let (chunks, results, recycle) = (pipes.chunks.1.clone(), pipes.results.0.clone(), pipes.recycle.0.clone());
        let (source, venue) = (input.source.clone(), input.venue);
        pool.spawn(move || {
            // Its venue's rules read each game's claims.
            let mut visitor = GameVisitor::with_venue(venue);
            // Reused from chunk to chunk, as the visitor is.
            let mut batch = BatchBuilder::new();
            while let Ok(work) = chunks.recv() {
                let replayed = match &work.piece {
                    Some(_) => rows::replay_piece(&work, &source, &mut visitor),
                    None => replay_chunk(&work, &source, &mut visitor, &mut batch),
                };
                let _ = recycle.try_send(work.chunk.data);
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
) -> Result<RowCounts> {
    let mut tally = partition.resumed().0.clone();
    let mut waiting: BTreeMap<u64, Replayed> = BTreeMap::new();
    let mut next = 0u64;
    for result in results {
        let replayed = result?;
        waiting.insert(replayed.seq, replayed);
        while let Some(r) = waiting.remove(&next) {
            partition.write(&r.games, &r.events)?;
            partition.chunk_done(&r.tally, r.last, r.bytes)?;
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

/// The partition a run writes for one input: the source's whole, or one shard's span of it.
pub struct Unit {
    /// [`partition::unit_name`].
    pub name: String,
    pub shard: Option<(u32, u32)>,
    pub span: Span,
    /// A Parquet month's first files, whose rows the partition already holds: the run reads
    /// the files after them ([`Freshness`]).
    pub kept: Vec<FileEntry>,
}

impl Unit {
    pub fn whole(source: &str) -> Unit {
        Unit { name: partition::unit_name(source, None), shard: None, span: Span::default(), kept: Vec::new() }
    }
}

/// Reads, replays and writes one input (or a shard's span of it); returns its manifest entry,
/// tally and commit (none when the input failed, or for a shard, whose partition is staged
/// complete for the source's commit). Errors are output (dataset) errors, which stop the whole
/// run; input errors are in the entry.
fn ingest_input(
    input: &Input,
    unit: &Unit,
    dataset: &Dataset,
    pools: &Pools,
    plan: &Plan,
    fingerprint: Option<Fingerprint>,
    share: RunShare,
) -> Result<(ManifestEntry, RowCounts, Option<Committed>)> {
    let started = Instant::now();
    let size = fingerprint.as_ref().map(|f| f.size);
    let digest: Option<Digest> = input.sha256.as_ref().map(|_| Arc::default());
    let counters = Arc::new(Counters::default());
    let mut partition = open_partition(input, unit, dataset, pools, plan, fingerprint.as_ref())?;
    let (_, resume_after, staged_bytes, _) = partition.resumed();
    // Files kept from the partition are not read: the progress is the others'.
    let kept_size: u64 = unit.kept.iter().map(|f| f.size).sum();
    let progress =
        Progress::start(&input.source, size.map(|s| s.saturating_sub(kept_size)), counters.clone(), plan.quiet, share);
    let pipes = Pipes::new(plan.threads.in_flight);
    spawn_workers(&pools.replay, plan.threads.replay, input, &pipes);
    let Pipes { chunks, results, slots, recycle } = pipes;
    let (read_end, written) = std::thread::scope(|scope| {
        let reader = {
            let (counters, decoders) = (counters.clone(), plan.threads.decoders);
            let span = unit.span;
            let ends = ReaderEnds { chunks: chunks.0, slots: slots.1, recycled: recycle.1, span, resume_after };
            let settings = ReadSettings { chunk_bytes: plan.chunk_bytes, decoders, digest: digest.clone() };
            // A grown input's files after those kept (freshness), read from their first row group.
            let (kept, first_group) = (unit.kept.len(), freshness::row_groups(&unit.kept));
            std::thread::Builder::new()
                .name("read".into())
                .spawn_scoped(scope, move || input.read(kept, first_group, settings, counters, ends))
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
    record_files(&mut entry, unit, fingerprint.as_ref(), &read_end);
    entry.decompressed_bytes += staged_bytes;
    entry.sha256 = digest.and_then(|d| d.lock().ok()?.clone());
    match failure(input, &mut entry, read_end) {
        None if unit.shard.is_some() => {
            partition.complete(&entry)?;
            Ok((entry, tally, None))
        }
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
            Ok((entry, RowCounts::default(), None))
        }
    }
}

/// Opens the input's partition, going on from parts an interrupted run staged if it can.
fn open_partition(
    input: &Input,
    unit: &Unit,
    dataset: &Dataset,
    pools: &Pools,
    plan: &Plan,
    fingerprint: Option<&Fingerprint>,
) -> Result<Partition> {
    let key = resume_key(unit.shard, &unit.kept, plan, fingerprint, input.venue);
    let partition =
        dataset.partition(&input.source, &unit.name, key, &pools.encoders, threefold_count::summary::summarizer)?;
    let (done, resume_after, _, parts) = partition.resumed();
    if resume_after.is_some() && !plan.quiet {
        eprintln!(
            "threefold: {}: resuming after {} games ({parts} part(s) staged by an interrupted run)",
            input.path.display(),
            done.games
        );
    }
    Ok(partition)
}

/// What staged parts of a run must match to be gone on from.
fn resume_key(
    shard: Option<(u32, u32)>,
    kept: &[FileEntry],
    plan: &Plan,
    fingerprint: Option<&Fingerprint>,
    venue: Option<Venue>,
) -> ResumeKey {
    ResumeKey {
        size: fingerprint.map(|f| f.size),
        fingerprint: fingerprint.map(|f| f.sample_hash.clone()),
        rules_version: RULES_VERSION.to_owned(),
        schema_version: schema::version().to_owned(),
        part_games: plan.part_games,
        chunk_bytes: plan.chunk_bytes,
        shard: shard.map(|(k, n)| format!("{k}/{n}")),
        // Parts that continue a committed partition are not a whole run's, nor one another's
        // when they kept other files.
        kept_files: (!kept.is_empty()).then_some(kept.len() as u32),
        venue: venue.map(|v| v.as_str().to_owned()),
    }
}

/// Records a Parquet input's files in its entry: each with its fingerprint and row groups (the
/// kept ones as recorded before), and how many were kept and read.
fn record_files(entry: &mut ManifestEntry, unit: &Unit, fingerprint: Option<&Fingerprint>, read_end: &ReadEnd) {
    let Some(fingerprint) = fingerprint.filter(|f| !f.files.is_empty()) else { return };
    let read = &fingerprint.files[unit.kept.len().min(fingerprint.files.len())..];
    // Row groups are known of files whose footers were read: all of them, or none (a failure).
    if read.len() != read_end.row_groups.len() {
        return;
    }
    let files = read.iter().zip(&read_end.row_groups).map(|(file, &row_groups)| FileEntry {
        name: file.name.clone(),
        size: file.fingerprint.size,
        fingerprint: file.fingerprint.sample_hash.clone(),
        row_groups,
    });
    entry.files = unit.kept.iter().cloned().chain(files).collect();
    entry.files_kept = Some(unit.kept.len() as u32);
    entry.files_read = Some(read.len() as u32);
}

/// Why the input failed, if it did: it could not be read to its end, or its SHA-256 is not the
/// one expected.
fn failure(input: &Input, entry: &mut ManifestEntry, read_end: ReadEnd) -> Option<String> {
    match read_end.error {
        Some(ReadError { offset, error }) => {
            if input.errors_name_their_place() {
                // The error names the file (of a folder's several) and the row group.
                return Some(format!("cannot read {error}"));
            }
            let what = if read_end.compression.is_none() { "cannot open" } else { "cannot read" };
            // Named as games are: a shard or a resumed run reads a stream that starts inside
            // the input.
            let at = read_end.error_at.unwrap_or(GameKey { frame_offset: 0, byte_offset: offset });
            entry.error_offset = Some(at.byte_offset);
            entry.error_frame_offset = (at.frame_offset > 0).then_some(at.frame_offset);
            Some(format!("{what} {}: {error} (at {at})", input.path.display()))
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
    tally: &RowCounts,
    seconds: f64,
) -> ManifestEntry {
    ManifestEntry {
        source: input.source.clone(),
        path: if input.is_stdin() { "-".to_owned() } else { absolute(&input.path) },
        size: fingerprint.map(|f| f.size),
        fingerprint: fingerprint.map(|f| f.sample_hash.clone()),
        modified_unix_ns: fingerprint.and_then(|f| f.modified_unix_ns),
        rules_version: Some(RULES_VERSION.to_owned()),
        schema_version: Some(schema::version().to_owned()),
        tool_version: Some(TOOL_VERSION.to_owned()),
        venue: input.venue.map(|v| v.as_str().to_owned()),
        compression: input.compression_name(read_end.compression),
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
