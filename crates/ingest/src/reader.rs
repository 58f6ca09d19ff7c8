//! The reader stage: opens one input, decompresses and cuts it into chunks of whole games, names
//! each game by its key ([`crate::read::key`]), and sends the chunks of the games this run is to
//! replay: those of its [`Span`] (a shard's share of the input), after the games that staged parts
//! already hold (a resumed run).

use std::{
    fs::File,
    io,
    ops::Range,
    path::{Path, PathBuf},
    sync::{Arc, atomic::Ordering::Relaxed},
};

use crossbeam_channel::{Receiver, Sender};

use crate::{
    parquet_input::{Cursors, PIECE_ROWS, ParquetInput, RefuseParquet, Rendered},
    progress::Counters,
    read::chunk::{Chunk, ChunkBytes, ReadError},
    read::input::{self, Compression, Layout},
    read::key::{GameKey, Segment, SegmentLog, key_in},
};

/// The games of an input a run replays: from the game at `lo` (the input's start by default)
/// up to the one at `hi` (excluded; the input's end if `None`). Both are game starts that every
/// reading of the input agrees on ([`crate::shard`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub lo: GameKey,
    pub hi: Option<GameKey>,
}

/// A chunk to replay, and what names its games.
pub(crate) struct Work {
    pub chunk: Chunk,
    /// The segments of the stream the chunk lies in ([`key_in`] gives each game's key).
    pub segments: Vec<Segment>,
    /// The key of its last game, and the decompressed bytes it covers.
    pub last: Option<GameKey>,
    pub bytes: u64,
    /// For a Parquet input: the rows the chunk's games are.
    pub piece: Option<Piece>,
}

/// Rows of one row group of a Parquet input, written as PGN (the chunk's text).
pub(crate) struct Piece {
    /// Its row group's number in the input (its games' `frame_offset`): files kept from an
    /// earlier run may come before the files read.
    pub frame_offset: u64,
    pub rows: Range<u64>,
    /// Where each row's game starts in the text, and which rows have a null movetext.
    pub rendered: Rendered,
}

impl Work {
    /// The key of the game at `offset` in the chunk.
    pub(crate) fn key(&self, offset: usize) -> GameKey {
        key_in(&self.segments, self.chunk.offset + offset as u64)
    }
}

/// Where an input's SHA-256 is left once all of it has been read.
pub(crate) type Digest = Arc<std::sync::Mutex<Option<String>>>;

/// How reading an input ended.
pub(crate) struct ReadEnd {
    pub compression: Option<Compression>,
    /// Decompressed bytes covered by the games sent (from the span's start to its end).
    pub bytes: u64,
    pub error: Option<ReadError>,
    /// Where the error is, as a key (the error's offset counts in the stream read).
    pub error_at: Option<GameKey>,
    /// A Parquet input's row groups, file by file (of the files read).
    pub row_groups: Vec<u64>,
}

impl ReadEnd {
    /// Reading that could not start.
    pub(crate) fn failed(error: io::Error) -> ReadEnd {
        ReadEnd {
            compression: None,
            bytes: 0,
            error: Some(ReadError { offset: 0, error }),
            error_at: None,
            row_groups: Vec::new(),
        }
    }
}

/// The reader's ends of the pipes, and what to read.
pub(crate) struct ReaderEnds {
    pub chunks: Sender<Work>,
    pub slots: Receiver<()>,
    pub recycled: Receiver<ChunkBytes>,
    pub span: Span,
    /// The last game the staged parts hold: the run goes on after it.
    pub resume_after: Option<GameKey>,
}

/// Reading settings of the run.
pub(crate) struct ReadSettings {
    pub chunk_bytes: usize,
    pub decoders: usize,
    pub digest: Option<Digest>,
}

/// Where reading starts: the game the run starts at (seeking there when the input allows), and
/// whether that game itself is already staged.
fn start_of(span: Span, resume_after: Option<GameKey>) -> (GameKey, bool) {
    match resume_after {
        Some(last) if last >= span.lo => (last, true),
        _ => (span.lo, false),
    }
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// Reads one input and sends the chunks of the games to replay, while it holds slots.
pub(crate) fn read_input(path: &Path, settings: ReadSettings, counters: Arc<Counters>, ends: ReaderEnds) -> ReadEnd {
    let ReaderEnds { chunks, slots, recycled, span, resume_after } = ends;
    if span.hi == Some(span.lo) {
        // An empty span (a shard whose frames hold no game start of their own).
        let compression = input::open(path).ok().map(|(c, _)| c);
        return ReadEnd { compression, bytes: 0, error: None, error_at: None, row_groups: Vec::new() };
    }
    let (start, start_staged) = start_of(span, resume_after);
    let raw = counters.clone();
    let count = move |n| {
        raw.raw_bytes.fetch_add(n, Relaxed);
    };
    let ReadSettings { chunk_bytes, decoders, digest } = settings;
    let stdin = path.as_os_str() == "-";
    // Inputs in frames or plain text are entered at the start game; the rest is read from its
    // beginning, and the games before the start are read, not replayed. Hashing reads it all.
    let seek = !stdin
        && digest.is_none()
        && matches!(Layout::of_file(path), Ok(Layout::Frames | Layout::Text))
        && std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let from = if seek { start } else { GameKey::default() };
    let log = SegmentLog::starting_at(from);
    let opened = match digest {
        _ if stdin => {
            // Parquet cannot come through a pipe: refused, saying so, rather than read as text.
            let stdin = RefuseParquet::new(io::stdin());
            input::chunker_at(input::Counted { inner: stdin, count }, decoders, chunk_bytes, from, Some(&log))
        }
        Some(digest) => File::open(path).and_then(|f| {
            let hashed = input::Counted { inner: input::Hashed::new(f, digest), count };
            input::chunker_at(hashed, decoders, chunk_bytes, from, Some(&log))
        }),
        None => {
            File::open(path).and_then(|f| input::chunker_file_at(f, count, decoders, chunk_bytes, from, Some(&log)))
        }
    };
    let (compression, mut chunker) = match opened {
        Ok(x) => x,
        Err(error) => return ReadEnd::failed(error),
    };
    let fail = |offset: u64, error: io::Error| ReadEnd {
        compression: Some(compression),
        bytes: 0,
        error: Some(ReadError { offset, error }),
        error_at: Some(log.key_at(offset)),
        row_groups: Vec::new(),
    };
    // The stream offset where the games sent begin (the bytes before are the staged parts' or
    // another shard's), and whether the start game has been seen.
    let mut first: Option<u64> = None;
    let mut found_start = start == GameKey::default();
    let mut reached_hi = false;
    let mut seq = 0u64;
    let mut segments = Vec::new();
    let mut keys: Vec<GameKey> = Vec::new();
    let end = loop {
        while let Ok(buffer) = recycled.try_recv() {
            chunker.recycle(buffer);
        }
        let mut chunk = match chunker.next_chunk() {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break chunker.bytes_read(),
            Err(error) => return fail(error.offset, error.error),
        };
        counters.bytes.fetch_add(chunk.data.len() as u64, Relaxed);
        log.covering(chunk.offset, chunk.offset + chunk.data.len() as u64, &mut segments);
        keys.clear();
        keys.extend(chunk.games.iter().map(|&g| key_in(&segments, chunk.offset + g as u64)));
        if !found_start && let Some(&k) = keys.iter().find(|&&k| k >= start) {
            if k != start {
                let what = format!(
                    "no game starts at {start} (the next is at {k}): the input is not the one whose games were staged or planned"
                );
                return fail(chunk.offset, invalid(what));
            }
            found_start = true;
        }
        // Games before the start (or the staged start game itself) are not this run's, and
        // games from the span's end on are the next shard's.
        let before = keys.iter().take_while(|&&k| k < start || (start_staged && k == start)).count();
        let stop = span.hi.and_then(|hi| keys.iter().position(|&k| k >= hi));
        if let (Some(at), Some(hi)) = (stop, span.hi)
            && keys[at] != hi
        {
            let what = format!(
                "no game starts at {hi}, where the next shard begins (the next is at {}): the input changed since the shards were planned",
                keys[at]
            );
            return fail(chunk.offset, invalid(what));
        }
        let keep_to = stop.unwrap_or(keys.len());
        if let Some(at) = stop {
            reached_hi = true;
            chunk.data.truncate(chunk.games[at]);
            chunk.games.truncate(at);
        }
        let stream_end = chunk.offset + chunk.data.len() as u64;
        if before >= keep_to {
            chunker.recycle(chunk.data);
            if reached_hi {
                break stream_end;
            }
            continue;
        }
        chunk.games.drain(..before);
        let from =
            *first.get_or_insert(if start == GameKey::default() { 0 } else { chunk.offset + chunk.games[0] as u64 });
        let bytes = stream_end - chunk.offset.max(from);
        chunk.seq = seq;
        seq += 1;
        let work = Work { chunk, segments: segments.clone(), last: Some(keys[keep_to - 1]), bytes, piece: None };
        // The writer gone means it failed; it reports why.
        if slots.recv().is_err() || chunks.send(work).is_err() || reached_hi {
            break stream_end;
        }
    };
    if !found_start {
        let what =
            format!("the input ends before {start}, where this run was to start: it is not the one planned or staged");
        return fail(end, invalid(what));
    }
    if let (Some(hi), false) = (span.hi, reached_hi) {
        let what = format!(
            "the input ends before {hi}, where the next shard begins: it changed since the shards were planned"
        );
        return fail(end, invalid(what));
    }
    ReadEnd {
        compression: Some(compression),
        bytes: end - first.unwrap_or(end),
        error: None,
        error_at: None,
        row_groups: Vec::new(),
    }
}

/// Reads a Parquet input's footers and sends its row groups' rows to replay, in pieces of at
/// most [`PIECE_ROWS`], while it holds slots: the rows of the span, after the last game staged.
/// Keys are (row group, row), so a span or a resumed run starts at its row group without reading
/// the ones before. `files` may be the input's last files only, after `first_group` row groups
/// of files whose rows are already in the partition: their keys count on from there.
/// `decoders` threads (at least this one) decode and write the pieces as PGN, as the decoder
/// threads decompress and survey PGN, so that the replay threads only replay.
pub(crate) fn read_parquet(
    files: &[PathBuf],
    first_group: u64,
    decoders: usize,
    counters: Arc<Counters>,
    ends: ReaderEnds,
) -> ReadEnd {
    let ReaderEnds { chunks, slots, recycled, span, resume_after } = ends;
    let input = match ParquetInput::open(files) {
        Ok(input) => Arc::new(input),
        Err(error) => return ReadEnd::failed(error),
    };
    let key = |group: usize, row: u64| GameKey { frame_offset: first_group + group as u64, byte_offset: row };
    let (start, start_staged) = start_of(span, resume_after);
    // The pieces to send, in order: row group, rows, and their share of its bytes.
    let mut pieces: Vec<(usize, Range<u64>, u64, u64)> = Vec::new();
    for (g, group) in input.groups.iter().enumerate() {
        if span.hi.is_some_and(|hi| key(g, 0) >= hi) {
            break;
        }
        let mut from = match key(g, 0).frame_offset.cmp(&start.frame_offset) {
            std::cmp::Ordering::Less => continue,
            std::cmp::Ordering::Equal => start.byte_offset + u64::from(start_staged),
            std::cmp::Ordering::Greater => 0,
        };
        while from < group.rows {
            let to = (from + PIECE_ROWS).min(group.rows);
            let part = |bytes: u64| bytes * (to - from) / group.rows.max(1);
            pieces.push((g, from..to, part(group.bytes), part(group.compressed)));
            from = to;
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let cursors = Cursors::new(&input);
    let error: std::sync::Mutex<Option<(usize, io::Error)>> = std::sync::Mutex::new(None);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let decode = || {
        loop {
            // A slot first, then the next piece: the earliest piece not yet sent always holds a
            // slot, so the writer, which gives slots back in order, is never left waiting.
            loop {
                match slots.recv_timeout(std::time::Duration::from_millis(50)) {
                    Ok(()) => break,
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) if !failed.load(Relaxed) => {}
                    Err(_) => return,
                }
            }
            let i = next.fetch_add(1, Relaxed);
            let Some((group, rows, bytes, compressed)) = pieces.get(i).cloned() else { return };
            if failed.load(Relaxed) {
                return;
            }
            let mut rendered = Rendered::default();
            if let Ok(ChunkBytes::Owned(text)) = recycled.try_recv() {
                rendered.text = text;
            }
            let first = i == 0 || pieces[i - 1].0 != group;
            match input.render_next(&cursors, group, rows.clone(), first, &failed, &mut rendered) {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    let mut first = error.lock().unwrap_or_else(|e| e.into_inner());
                    if first.as_ref().is_none_or(|(at, _)| i < *at) {
                        *first = Some((i, e));
                    }
                    failed.store(true, Relaxed);
                    return;
                }
            }
            counters.bytes.fetch_add(bytes, Relaxed);
            counters.raw_bytes.fetch_add(compressed, Relaxed);
            let text = std::mem::take(&mut rendered.text);
            let games = rendered.starts.clone();
            let chunk = Chunk { seq: i as u64, offset: 0, data: ChunkBytes::Owned(text), games, starts_input: false };
            let last = Some(key(group, rows.end - 1));
            let piece = Piece { frame_offset: key(group, 0).frame_offset, rows, rendered };
            if chunks.send(Work { chunk, segments: Vec::new(), last, bytes, piece: Some(piece) }).is_err() {
                return;
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..decoders.max(1) {
            scope.spawn(decode);
        }
        decode();
    });
    let sent = next.load(Relaxed).min(pieces.len());
    let bytes = pieces[..sent].iter().map(|p| p.2).sum();
    let error = error.into_inner().unwrap_or_else(|e| e.into_inner()).map(|(_, error)| ReadError { offset: 0, error });
    ReadEnd { compression: None, bytes, error, error_at: None, row_groups: input.row_groups_per_file() }
}
