//! Cutting a decompressed PGN stream into chunks of whole games, so that chunks can be parsed on
//! different threads and give exactly the games one `pgn_reader::Reader` over the whole stream
//! gives.
//!
//! A cut is made only at the start of a line where `pgn-reader` itself starts a new game: a line
//! beginning with `[` after movetext (the reader ends movetext at any newline followed by `[`), or
//! any content line after movetext was ended by an empty line. Never inside a `{}` comment, and
//! never after a tag line (the reader reads tags on, across blank lines). The splitter follows
//! the reader's rules line by line with the line model ([`crate::read::line`]).

use std::{
    io::{self, Read},
    ops::{Deref, Range},
    sync::Arc,
};

use crate::read::line::{BOM, Lines};

/// Default target size of a chunk in bytes.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Bytes asked of the input per read.
const READ: usize = 1 << 16;

/// The most bytes read from a game's start before the next game start is seen (the end of its
/// line): a game is never cut, so without a bound a comment left open, a line without a break or
/// a file that is not PGN would be held in memory whole. The longest real games are well under
/// a megabyte; tests read games of 200 MiB.
pub const MAX_GAME: usize = 208 << 20;

/// The error that ends an input at `game`, the start of a game (or of the input) after which no
/// game start came within `max` bytes: the same whichever way the input is cut.
pub(crate) fn game_too_long(game: u64, max: usize) -> ReadError {
    let error = io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "no game starts within {} MiB of the game at decompressed byte {game} (a comment left open, a line without a break, or not PGN); the input is read no further",
            max >> 20
        ),
    );
    ReadError { offset: game, error }
}

/// A run of whole games.
#[derive(Debug)]
pub struct Chunk {
    /// Position of the chunk in its input, counting from 0.
    pub seq: u64,
    /// Offset of the chunk's first byte in the decompressed stream.
    pub offset: u64,
    pub data: ChunkBytes,
    /// Where the line of each game's start begins in `data`, ascending; bytes before the first
    /// are whitespace. The stream's first line may begin with a byte-order mark, which
    /// [`Chunk::game_slices`] leaves out of its game.
    pub games: Vec<usize>,
    /// The chunk begins the input (not a stream started inside it: a shard, a resumed run).
    pub starts_input: bool,
}

/// A chunk's bytes: a buffer of its own, or part of a block that several chunks share (cut
/// from surveyed blocks, a chunk that lies within one block is not copied out of it).
#[derive(Debug)]
pub enum ChunkBytes {
    Owned(Vec<u8>),
    Shared(Arc<Vec<u8>>, Range<usize>),
}

impl ChunkBytes {
    /// Keeps the first `len` bytes.
    pub fn truncate(&mut self, len: usize) {
        match self {
            ChunkBytes::Owned(bytes) => bytes.truncate(len),
            ChunkBytes::Shared(_, range) => range.end = range.end.min(range.start + len),
        }
    }
}

impl Deref for ChunkBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            ChunkBytes::Owned(bytes) => bytes,
            ChunkBytes::Shared(block, range) => &block[range.clone()],
        }
    }
}

impl Chunk {
    /// The bytes of each game, with its offset in `data`. A byte-order mark at the start of the
    /// stream is left out: `pgn-reader` skips one there (before any whitespace) and nowhere else
    /// (where a game ends the next byte is a `[` or a line break), so a game slice holds no mark
    /// the reader skips, and one at a slice's start is text, the start of a tagless game's
    /// movetext.
    pub fn game_slices(&self) -> impl Iterator<Item = (usize, &[u8])> {
        let bom = if self.starts_input && self.data.starts_with(BOM) { BOM.len() } else { 0 };
        self.games.iter().enumerate().map(move |(i, &start)| {
            let end = self.games.get(i + 1).copied().unwrap_or(self.data.len());
            let start = if start == 0 { bom } else { start };
            (start, &self.data[start..end])
        })
    }
}

/// A read error with the decompressed offset where it happened.
#[derive(Debug)]
pub struct ReadError {
    pub offset: u64,
    pub error: io::Error,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at decompressed byte {}: {}", self.offset, self.error)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Cuts a byte stream into [`Chunk`]s of about `target` bytes of whole games.
pub struct Splitter<R> {
    input: R,
    target: usize,
    max_game: usize,
    lines: Lines,
    /// Bytes read and not yet handed out are `pending[..filled]`; `pending[..scanned]` is
    /// classified line by line. Bytes past `filled` are left from earlier use of the buffer
    /// (see [`Self::recycle`]): reading over them spares zeroing every buffer before a read.
    pending: Vec<u8>,
    filled: usize,
    scanned: usize,
    /// `pending[scanned..searched]` holds no line break: a long line is searched only once.
    searched: usize,
    /// Game starts found in `pending[..scanned]`.
    starts: Vec<usize>,
    /// Buffers of chunks handed back, for the next chunks.
    spare: Vec<Vec<u8>>,
    /// Decompressed offset of `pending[0]`.
    offset: u64,
    seq: u64,
    eof: bool,
    /// The stream starts inside the input, at a game ([`Self::inside`]).
    inside: bool,
}

/// A new buffer of `len` zero bytes, which reads may then overwrite without zeroing them first:
/// allocated zeroed, a buffer of this size is fresh memory from the system, zero already, where
/// zeroing it read by read cost a tenth of the reading thread's work on 8 MB of text.
fn zeroed(len: usize) -> Vec<u8> {
    vec![0; len]
}

/// Buffers kept for reuse; more are dropped.
const SPARE: usize = 4;

impl<R: Read> Splitter<R> {
    pub fn new(input: R, target: usize) -> Splitter<R> {
        Splitter {
            input,
            target: target.max(1),
            max_game: MAX_GAME,
            lines: Lines::new(),
            pending: zeroed(target.max(1) + READ),
            filled: 0,
            scanned: 0,
            searched: 0,
            starts: Vec::new(),
            spare: Vec::new(),
            offset: 0,
            seq: 0,
            eof: false,
            inside: false,
        }
    }

    /// The stream starts inside the input, at a game's first byte (not at the input's start,
    /// where a byte-order mark is skipped).
    pub fn inside(mut self) -> Self {
        self.lines = Lines::inside();
        self.inside = true;
        self
    }

    /// Bounds the bytes from a game's start to the end of the next game start's line
    /// (default [`MAX_GAME`]).
    pub fn with_max_game(mut self, max: usize) -> Self {
        self.max_game = max.max(1);
        self
    }

    /// Decompressed bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.offset + self.filled as u64
    }

    /// Fails when more than `max_game` bytes lie between the current game's start (or the
    /// input's) and `end`: the end of the next game start's line, or the bytes read so far.
    fn check_game(&self, end: usize) -> Result<(), ReadError> {
        let game = self.starts.last().copied().unwrap_or(0);
        if end - game > self.max_game { Err(game_too_long(self.offset + game as u64, self.max_game)) } else { Ok(()) }
    }

    /// Takes back a chunk's buffer once its games are read, so that a later chunk is read into
    /// memory already mapped and written, rather than a new allocation zeroed byte by byte.
    pub fn recycle(&mut self, bytes: ChunkBytes) {
        if let ChunkBytes::Owned(buffer) = bytes
            && self.spare.len() < SPARE
        {
            self.spare.push(buffer);
        }
    }

    /// The next chunk, `None` at the end of the input.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, ReadError> {
        loop {
            // Classify complete lines; cut at the first game start past the target size.
            loop {
                let start = self.scanned;
                let known = self.searched.saturating_sub(start);
                let Some((len, starts_game)) = self.lines.next_line(&self.pending[start..self.filled], known) else {
                    self.searched = self.filled;
                    break;
                };
                if starts_game {
                    self.check_game(start + len)?;
                    if start >= self.target {
                        return Ok(Some(self.cut(start, len - 1)));
                    }
                    self.starts.push(start);
                }
                self.scanned = start + len;
            }
            if self.eof {
                if self.filled == 0 {
                    return Ok(None);
                }
                // The last line has no line break.
                if self.scanned < self.filled && self.lines.line(&self.pending[self.scanned..self.filled]) {
                    self.starts.push(self.scanned);
                }
                let mut data = std::mem::take(&mut self.pending);
                data.truncate(self.filled);
                let games = std::mem::take(&mut self.starts);
                self.filled = 0;
                self.scanned = 0;
                self.searched = 0;
                return Ok(Some(self.emit(data, games)));
            }
            // Whatever line comes next, the current game (or the next) is longer than this.
            self.check_game(self.filled)?;
            self.fill()?;
        }
    }

    /// After [`Self::next_chunk`] failed: the whole games read before the error — all but the
    /// last one begun, which the error may have cut or which was too long — as a last chunk, for
    /// a reader that writes what it could read (`dump`); `None` if there are none. `ingest`
    /// writes nothing of a failed input and does not ask.
    pub fn salvage(&mut self) -> Option<Chunk> {
        let (&last, whole) = self.starts.split_last()?;
        if whole.is_empty() {
            return None;
        }
        let games = whole.to_vec();
        let mut data = std::mem::take(&mut self.pending);
        data.truncate(last);
        self.starts.clear();
        (self.filled, self.scanned, self.searched) = (0, 0, 0);
        Some(self.emit(data, games))
    }

    /// Hands out `pending[..start]` as a chunk; the game starting at `start`, whose first line
    /// is `nl` bytes long, begins the next one.
    fn cut(&mut self, start: usize, nl: usize) -> Chunk {
        // The next chunk's buffer at full size now: growing it read by read would copy it over
        // and over.
        let mut rest = self.spare.pop().unwrap_or_else(|| zeroed(self.target + READ));
        let tail = self.filled - start;
        if rest.len() < tail {
            rest.resize(tail, 0);
        }
        rest[..tail].copy_from_slice(&self.pending[start..self.filled]);
        self.pending.truncate(start);
        let data = std::mem::replace(&mut self.pending, rest);
        let games = std::mem::replace(&mut self.starts, vec![0]);
        self.filled = tail;
        self.scanned = nl + 1;
        self.searched = 0;
        self.emit(data, games)
    }

    fn emit(&mut self, data: Vec<u8>, games: Vec<usize>) -> Chunk {
        let starts_input = self.offset == 0 && !self.inside;
        let chunk = Chunk { seq: self.seq, offset: self.offset, data: ChunkBytes::Owned(data), games, starts_input };
        self.seq += 1;
        self.offset += chunk.data.len() as u64;
        chunk
    }

    fn fill(&mut self) -> Result<(), ReadError> {
        let len = self.filled;
        if self.pending.len() < len + READ {
            self.pending.resize(len + READ, 0);
        }
        loop {
            match self.input.read(&mut self.pending[len..len + READ]) {
                Ok(n) => {
                    self.filled = len + n;
                    if n == 0 {
                        self.eof = true;
                    }
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(ReadError { offset: self.bytes_read(), error }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use memchr::memchr;

    use super::*;

    /// The game slices leave out the stream's byte-order mark, and only that one (also when a
    /// game with a mark starts a chunk).
    #[test]
    fn game_slices_leave_out_the_byte_order_mark_at_the_start_of_the_stream_only() {
        let pgn = b"\xef\xbb\xbf[Event \"a\"]\n\n1. e4 *\n\n\xef\xbb\xbf[Event \"b\"]\n";
        for target in [1 << 20, 1] {
            let mut splitter = Splitter::new(&pgn[..], target);
            let mut slices = Vec::new();
            while let Some(chunk) = splitter.next_chunk().unwrap() {
                slices.extend(chunk.game_slices().map(|(start, s)| (chunk.offset as usize + start, s.to_vec())));
            }
            let first = b"[Event \"a\"]\n\n1. e4 *\n\n".to_vec();
            assert_eq!(slices, [(3, first), (25, b"\xef\xbb\xbf[Event \"b\"]\n".to_vec())], "chunks of {target}");
        }
    }

    #[test]
    fn splitter_keeps_every_byte() {
        let pgn = "[Event \"a\"]\n\n1. e4 1-0\n\n[Event \"b\"]\n\n1. d4 0-1\n".repeat(50);
        let mut splitter = Splitter::new(pgn.as_bytes(), 10);
        let mut all = Vec::new();
        let mut n = 0;
        while let Some(chunk) = splitter.next_chunk().unwrap() {
            assert_eq!(chunk.offset as usize, all.len());
            assert!(chunk.data.starts_with(b"[Event"));
            assert_eq!(chunk.games, vec![0]);
            all.extend_from_slice(&chunk.data);
            n += 1;
        }
        assert_eq!(all, pgn.as_bytes());
        assert_eq!(n, 100);
    }

    /// After a read error, the games begun before it but the last (which it may have cut) are
    /// handed out whole; and after a game too long, those before that game.
    #[test]
    fn salvage_gives_the_whole_games_before_an_error() {
        struct FailAfter<'a>(&'a [u8]);
        impl Read for FailAfter<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() {
                    return Err(io::Error::other("broken"));
                }
                let n = buf.len().min(self.0.len()).min(7);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let game = |i: usize| format!("[Event \"{i}\"]\n\n1. e4 e5 1/2-1/2\n\n");
        let text: String = (0..10).map(game).collect();
        let cut = text.len() - 5;
        let mut splitter = Splitter::new(FailAfter(&text.as_bytes()[..cut]), 1 << 20);
        assert!(splitter.next_chunk().is_err());
        let chunk = splitter.salvage().unwrap();
        assert_eq!((chunk.offset, chunk.games.len()), (0, 9));
        assert_eq!(&chunk.data[..], &text.as_bytes()[..9 * game(0).len()]);
        assert!(splitter.salvage().is_none());

        let long = format!("{}[Event \"x\"]\n\n1. e4 {{{}}} *\n\n{}", game(0), "y".repeat(200), game(1));
        let mut splitter = Splitter::new(long.as_bytes(), 1 << 20).with_max_game(100);
        assert_eq!(splitter.next_chunk().unwrap_err().offset, game(0).len() as u64);
        let chunk = splitter.salvage().unwrap();
        assert_eq!((&chunk.data[..], chunk.games), (game(0).as_bytes(), vec![0]));
    }

    /// Game starts as `Lines::line` gives them line by line, as absolute offsets.
    fn line_by_line(text: &[u8]) -> Vec<usize> {
        let mut lines = Lines::new();
        let mut out = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let end = memchr(b'\n', &text[start..]).map_or(text.len(), |p| start + p);
            if lines.line(&text[start..end]) {
                out.push(start);
            }
            start = end + 1;
        }
        out
    }

    /// The splitter's shortcuts for plain movetext lines and tag lines find exactly the game
    /// starts that classifying every line finds: on real files with comments, variations,
    /// escape lines, CRLF and header-only games, with small chunks so that lines straddle
    /// reads, and with chunk buffers handed back for reuse.
    #[test]
    fn line_shortcuts_find_every_game_start() {
        let tmp = tempfile::tempdir().unwrap();
        for path in crate::testdata::splitter_files(
            &["edge", "otb", "lichess", "variants"],
            "the splitter's shortcuts on the corpus",
            tmp.path(),
        ) {
            let text = std::fs::read(&path).unwrap();
            for (target, recycle) in [(1 << 20, false), (4096, false), (4096, true), (100_000, true)] {
                let mut splitter = Splitter::new(&text[..], target);
                let mut found = Vec::new();
                let mut all = Vec::new();
                while let Some(chunk) = splitter.next_chunk().unwrap() {
                    found.extend(chunk.games.iter().map(|g| chunk.offset as usize + g));
                    all.extend_from_slice(&chunk.data);
                    if recycle {
                        // Reused buffers hold the bytes of earlier chunks past what is read.
                        splitter.recycle(chunk.data);
                    }
                }
                assert_eq!(found, line_by_line(&text), "{} with chunks of {target}", path.display());
                assert!(all == text, "{}: the chunks are not the input", path.display());
            }
        }
    }
}
