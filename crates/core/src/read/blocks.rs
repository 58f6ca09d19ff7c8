//! Splitting one stream into chunks of whole games on many threads.
//!
//! [`crate::read::chunk::Splitter`] reads the stream line by line on one thread, which caps a big
//! machine (docs/performance.md, "Figures behind the code"). Here the stream comes as
//! blocks (a pzstd file's frames, or pieces of a plain file) whose lines are read on the
//! threads that decode them: a [`Survey`] ([`crate::read::survey`]) reads a block's whole lines from each state the text
//! before it may have left the line model in (few: `line::CANDIDATES`). The runs agree as soon as
//! they reach the same state, mostly within a game, so a survey costs little more than one
//! reading. The [`Stitcher`] then takes the blocks in order on one thread: it reads the line
//! that straddles two blocks, picks the run that starts from the state really reached, and
//! hands out chunks: one that lies within a block shares the block's buffer; one that goes on
//! into the next block is copied. Chunks, game starts and read errors are exactly the
//! `Splitter`'s (so the output does not depend on the path taken).
//!
//! A run from inside a tag section does not know the section's first tag; if it needs it (a
//! tag line after a blank line), the survey cannot tell, and the stitcher reads that block's
//! lines itself.

use std::{collections::VecDeque, io, sync::Arc};

use memchr::{memchr, memrchr};

use crate::read::{
    chunk::{Chunk, ChunkBytes, MAX_GAME, ReadError, game_too_long},
    frames::FrameDecoder,
    line::Lines,
    survey::Survey,
};

/// Puts surveyed blocks back together, in order, as the chunks a `Splitter` makes.
pub struct Stitcher {
    target: usize,
    max_game: usize,
    /// Offset of the current game's start in the stream (0 before the first).
    game: u64,
    /// The model at the start of the line being read.
    lines: Lines,
    /// Bytes from `offset` on, not handed out yet: `pending[line..]` is a line that goes on in
    /// the next block.
    pending: Vec<u8>,
    line: usize,
    /// Game starts in `pending`.
    games: Vec<usize>,
    offset: u64,
    seq: u64,
    ready: VecDeque<Chunk>,
    spare: Vec<Vec<u8>>,
    /// A block's game starts (reused).
    starts: Vec<usize>,
    /// Blocks with line breaks whose lines this thread read itself (no survey, or one that could
    /// not tell).
    unsurveyed: u64,
    blocks: u64,
    shared: u64,
    /// The stream starts inside the input ([`crate::read::chunk::Splitter::inside`]).
    inside: bool,
}

/// Chunk buffers kept for reuse.
const SPARE: usize = 4;

impl Stitcher {
    pub fn new(target: usize) -> Stitcher {
        Stitcher {
            target: target.max(1),
            max_game: MAX_GAME,
            game: 0,
            lines: Lines::new(),
            pending: Vec::new(),
            line: 0,
            games: Vec::new(),
            offset: 0,
            seq: 0,
            ready: VecDeque::new(),
            spare: Vec::new(),
            starts: Vec::new(),
            unsurveyed: 0,
            blocks: 0,
            shared: 0,
            inside: false,
        }
    }

    /// See [`crate::read::chunk::Splitter::inside`].
    pub fn inside(mut self) -> Self {
        self.lines = Lines::inside();
        self.inside = true;
        self
    }

    /// Bounds the bytes from a game's start to the end of the next game start's line, as
    /// [`crate::read::chunk::Splitter::with_max_game`] does (and with the same error).
    pub fn with_max_game(mut self, max: usize) -> Self {
        self.max_game = max.max(1);
        self
    }

    /// Bytes taken so far.
    pub fn bytes(&self) -> u64 {
        self.offset + self.pending.len() as u64
    }

    /// Fails when more than `max_game` bytes lie between the current game's start and `end`.
    fn check_game(&self, end: u64) -> Result<(), ReadError> {
        if end - self.game > self.max_game as u64 { Err(game_too_long(self.game, self.max_game)) } else { Ok(()) }
    }

    /// Takes the next block of the stream and the survey made of it (if any). Chunks that lie
    /// within the block share it; only a chunk that goes on into the next block is copied.
    /// Fails where a `Splitter` would ([`crate::read::chunk::MAX_GAME`]); the chunks before are
    /// ready, and nothing more may be pushed.
    pub fn push(&mut self, shared: &Arc<Vec<u8>>, survey: Option<&Survey>) -> Result<(), ReadError> {
        let block = &shared[..];
        // Offset of `block[0]` in the stream.
        let at = self.bytes();
        let Some(head) = memchr(b'\n', block).map(|p| p + 1) else {
            self.pending.extend_from_slice(block);
            return self.check_game(self.bytes());
        };
        let tail = memrchr(b'\n', block).map_or(head, |p| p + 1);
        // The line across the blocks, read where it is copied to anyway (a long line once).
        self.pending.extend_from_slice(&block[..head]);
        let end = self.pending.len() - 1;
        if self.lines.line(&self.pending[self.line..end]) {
            self.check_game(at + head as u64)?;
            self.game = self.offset + self.line as u64;
            self.game_at(self.line);
        }
        // The block's whole lines, from the survey when it can tell.
        let mut starts = std::mem::take(&mut self.starts);
        starts.clear();
        let surveyed = survey.filter(|s| s.head == head && s.tail == tail);
        self.blocks += 1;
        match surveyed.and_then(|s| s.read(&self.lines, &mut starts)) {
            Some(after) => self.lines = after,
            None => {
                self.unsurveyed += 1;
                self.lines.scan(&block[head..tail], head, &mut starts);
            }
        }
        // Chunks: the current one is `pending` followed by `block[taken..]`, or (`pending` empty)
        // starts at `block[taken]` after a cut in this block.
        let mut taken = head;
        let mut within = false;
        // A start's line can end too far from the game before only if the block does.
        let far = at + block.len() as u64 - self.game > self.max_game as u64;
        for &s in &starts {
            if far {
                let line_end = s + memchr(b'\n', &block[s..]).map_or(block.len() - s, |p| p + 1);
                if let Err(e) = self.check_game(at + line_end as u64) {
                    self.starts = starts;
                    return Err(e);
                }
            }
            self.game = at + s as u64;
            let at = self.pending.len() + (s - taken);
            if at >= self.target {
                if within {
                    let games = std::mem::take(&mut self.games);
                    self.emit(ChunkBytes::Shared(shared.clone(), taken..s), games);
                } else {
                    self.pending.extend_from_slice(&block[taken..s]);
                    self.cut(self.pending.len());
                }
                (taken, within) = (s, true);
            }
            self.games.push(self.pending.len() + (s - taken));
        }
        self.pending.extend_from_slice(&block[taken..]);
        self.line = self.pending.len() - (block.len() - tail);
        self.starts = starts;
        // Whatever line comes next, the current game (or the next) is longer than this.
        self.check_game(self.bytes())
    }

    /// The stream has ended: the last line (without a line break) and the last chunk.
    pub fn finish(&mut self) {
        if self.line < self.pending.len() && self.lines.line(&self.pending[self.line..]) {
            self.games.push(self.line);
        }
        if !self.pending.is_empty() {
            let at = self.pending.len();
            self.cut(at);
        }
    }

    /// A game starts at `pending[at]`, on a line read across blocks.
    fn game_at(&mut self, at: usize) {
        if at >= self.target {
            self.cut(at);
            self.line = 0;
            self.games.push(0);
        } else {
            self.games.push(at);
        }
    }

    /// Hands out `pending[..at]` as a chunk (the rest begins the next).
    fn cut(&mut self, at: usize) {
        // At full size from the start: growing it block by block would copy it over and over.
        let mut rest = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(self.target + self.target / 4));
        rest.clear();
        rest.extend_from_slice(&self.pending[at..]);
        self.pending.truncate(at);
        let data = std::mem::replace(&mut self.pending, rest);
        let games = std::mem::take(&mut self.games);
        self.emit(ChunkBytes::Owned(data), games);
    }

    fn emit(&mut self, data: ChunkBytes, games: Vec<usize>) {
        let len = data.len() as u64;
        if let ChunkBytes::Shared(..) = data {
            self.shared += len;
        }
        let starts_input = self.offset == 0 && !self.inside;
        self.ready.push_back(Chunk { seq: self.seq, offset: self.offset, data, games, starts_input });
        self.seq += 1;
        self.offset += len;
    }

    /// Takes back a chunk's own buffer (a shared block goes back to its decoder instead).
    pub fn recycle(&mut self, buffer: Vec<u8>) {
        if self.spare.len() < SPARE {
            self.spare.push(buffer);
        }
    }

    /// Bytes handed out in chunks that share their block (the rest were copied).
    pub fn shared(&self) -> u64 {
        self.shared
    }

    pub fn next_ready(&mut self) -> Option<Chunk> {
        self.ready.pop_front()
    }

    /// Blocks with line breaks taken so far, and how many of them this thread read line by line.
    pub fn blocks(&self) -> (u64, u64) {
        (self.blocks, self.unsurveyed)
    }
}

/// Chunks of a stream read as blocks by a [`FrameDecoder`] that surveys them.
pub struct BlockSplitter {
    blocks: FrameDecoder,
    stitcher: Stitcher,
    error: Option<ReadError>,
    ended: bool,
}

impl BlockSplitter {
    pub fn new(blocks: FrameDecoder, target: usize) -> BlockSplitter {
        BlockSplitter { blocks, stitcher: Stitcher::new(target), error: None, ended: false }
    }

    /// See [`crate::read::chunk::Splitter::inside`].
    pub fn inside(mut self) -> Self {
        self.stitcher = self.stitcher.inside();
        self
    }

    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, ReadError> {
        loop {
            if let Some(chunk) = self.stitcher.next_ready() {
                return Ok(Some(chunk));
            }
            if let Some(error) = self.error.take() {
                return Err(error);
            }
            if self.ended {
                return Ok(None);
            }
            match self.blocks.next_block() {
                None => {
                    self.stitcher.finish();
                    self.ended = true;
                }
                Some(block) => {
                    let data = Arc::new(block.data);
                    if let Err(e) = self.stitcher.push(&data, block.survey.as_ref()) {
                        self.error = Some(e);
                        self.ended = true;
                    } else if let Some(error) = block.error {
                        self.error = Some(ReadError { offset: self.stitcher.bytes(), error });
                        self.ended = true;
                    }
                    // The next block may be decoded now; this one's buffer goes back once no
                    // chunk shares it (so the chunks in flight bound the blocks held).
                    self.blocks.free_slot();
                    self.give_back(data);
                }
            }
        }
    }

    /// Takes back a chunk's bytes once its games are read.
    pub fn recycle(&mut self, bytes: ChunkBytes) {
        match bytes {
            ChunkBytes::Owned(buffer) => self.stitcher.recycle(buffer),
            ChunkBytes::Shared(block, _) => self.give_back(block),
        }
    }

    /// A block's buffer goes back to the decoders when this was its last holder.
    fn give_back(&mut self, block: Arc<Vec<u8>>) {
        if let Ok(buffer) = Arc::try_unwrap(block) {
            self.blocks.recycle_buffer(buffer);
        }
    }

    /// Bytes handed out in chunks that share their block, and all bytes handed out so far.
    pub fn shared(&self) -> (u64, u64) {
        (self.stitcher.shared(), self.stitcher.bytes())
    }

    pub fn bytes_read(&self) -> u64 {
        self.stitcher.bytes()
    }

    /// See [`FrameDecoder::dispatcher_cpu_seconds`].
    pub fn dispatcher_cpu_seconds(&self) -> Option<f64> {
        self.blocks.dispatcher_cpu_seconds()
    }
}

/// A stream's chunks, cut on one thread or from surveyed blocks.
pub enum Chunker {
    Lines(crate::read::chunk::Splitter<Box<dyn io::Read + Send>>),
    Blocks(Box<BlockSplitter>),
}

impl Chunker {
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, ReadError> {
        match self {
            Chunker::Lines(s) => s.next_chunk(),
            Chunker::Blocks(s) => s.next_chunk(),
        }
    }

    /// Takes back a chunk's bytes once its games are read.
    pub fn recycle(&mut self, bytes: ChunkBytes) {
        match self {
            Chunker::Lines(s) => s.recycle(bytes),
            Chunker::Blocks(s) => s.recycle(bytes),
        }
    }

    /// Decompressed bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        match self {
            Chunker::Lines(s) => s.bytes_read(),
            Chunker::Blocks(s) => s.bytes_read(),
        }
    }

    /// CPU seconds of the thread that read the input into blocks, once it has ended; `None` on
    /// one thread (the reading thread reads it).
    pub fn dispatcher_cpu_seconds(&self) -> Option<f64> {
        match self {
            Chunker::Lines(_) => None,
            Chunker::Blocks(s) => s.dispatcher_cpu_seconds(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::chunk::Splitter;

    type Chunks = Vec<(u64, Vec<u8>, Vec<usize>)>;

    fn by_lines(text: &[u8], target: usize) -> Chunks {
        let (chunks, error) = by_lines_within(text, target, crate::read::chunk::MAX_GAME);
        assert_eq!(error, None);
        chunks
    }

    /// The chunks of a `Splitter` bounding games to `max` bytes, and the offset of its error.
    fn by_lines_within(text: &[u8], target: usize, max: usize) -> (Chunks, Option<u64>) {
        let mut splitter = Splitter::new(text, target).with_max_game(max);
        let mut out = Vec::new();
        loop {
            match splitter.next_chunk() {
                Ok(Some(c)) => out.push((c.offset, c.data.to_vec(), c.games)),
                Ok(None) => return (out, None),
                Err(e) => return (out, Some(e.offset)),
            }
        }
    }

    /// `text` cut at `cuts` into blocks, surveyed unless `survey(i)` says not for block `i`;
    /// with the blocks that have a line break, how many of them had a survey that could not
    /// tell, and the bytes handed out in chunks that share their block.
    fn by_blocks(
        text: &[u8],
        cuts: &[usize],
        target: usize,
        survey: impl Fn(usize) -> bool,
    ) -> (Chunks, (u64, u64), u64) {
        let (chunks, error, stats, shared) = by_blocks_within(text, cuts, target, crate::read::chunk::MAX_GAME, survey);
        assert_eq!(error, None);
        (chunks, stats, shared)
    }

    /// [`by_blocks`] with games bounded to `max` bytes: the chunks ready before an error, and
    /// the error's offset.
    fn by_blocks_within(
        text: &[u8],
        cuts: &[usize],
        target: usize,
        max: usize,
        survey: impl Fn(usize) -> bool,
    ) -> (Chunks, Option<u64>, (u64, u64), u64) {
        let mut unasked = 0;
        let mut stitcher = Stitcher::new(target).with_max_game(max);
        let mut out = Vec::new();
        let mut from = 0;
        for (i, &to) in cuts.iter().chain([&text.len()]).enumerate() {
            let block = &text[from..to];
            let surveyed = if survey(i) { Survey::new(block) } else { None };
            unasked += u64::from(!survey(i) && block.contains(&b'\n'));
            let error = stitcher.push(&Arc::new(block.to_vec()), surveyed.as_ref()).err().map(|e| e.offset);
            while let Some(c) = stitcher.next_ready() {
                out.push((c.offset, c.data.to_vec(), c.games));
            }
            if error.is_some() {
                return (out, error, (0, 0), 0);
            }
            from = to;
        }
        stitcher.finish();
        while let Some(c) = stitcher.next_ready() {
            out.push((c.offset, c.data.to_vec(), c.games));
        }
        let (blocks, unsurveyed) = stitcher.blocks();
        assert_eq!(stitcher.bytes(), text.len() as u64);
        (out, None, (blocks, unsurveyed - unasked), stitcher.shared())
    }

    use crate::testdata::Rng;

    /// Blocks give the chunks the line-by-line splitter gives, on every plain PGN file of the
    /// corpus, the samples and generated text (comments across lines, escape lines, CRLF,
    /// header-only games, blank lines in tag sections), cut into blocks of many sizes, one in
    /// seven not surveyed; and nearly every survey tells.
    #[test]
    fn blocks_cut_the_chunks_lines_cut_on_real_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = ["edge", "otb", "lichess", "variants", "engine"];
        let files = crate::testdata::splitter_files(&dirs, "blocks against lines on the corpus", tmp.path());
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut blocks, mut undecided) = (0, 0);
        for path in files {
            let text = std::fs::read(&path).unwrap();
            for (size, target) in [(997, 4096), (65_536, 1 << 20), (1 << 20, 100_000), (300, 1)] {
                let mut cuts: Vec<usize> =
                    (1..text.len().div_ceil(size)).map(|i| i * size + rng.below(size / 2)).collect();
                cuts.retain(|&c| c < text.len());
                let expected = by_lines(&text, target);
                let (got, (b, u), _) = by_blocks(&text, &cuts, target, |i| i % 7 != 3);
                assert!(got == expected, "{}: blocks of {size}, chunks of {target}", path.display());
                blocks += b;
                undecided += u;
            }
        }
        assert!(blocks > 10_000 && undecided < blocks / 200, "{undecided} of {blocks} surveys could not tell");
    }

    /// A chunk that lies within a block shares it: only chunks that go on into the next block
    /// are copied (on average one per block).
    #[test]
    fn chunks_within_a_block_are_not_copied() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = ["edge", "otb", "lichess", "variants", "engine"];
        let files = crate::testdata::splitter_files(&dirs, "block sharing on the corpus's largest file", tmp.path());
        let path = files.iter().max_by_key(|p| std::fs::metadata(p).unwrap().len()).unwrap();
        let text = std::fs::read(path).unwrap().repeat(5);
        for (size, target) in [(1 << 20, 64 << 10), (4 << 20, 1 << 20)] {
            let cuts: Vec<usize> = (1..text.len().div_ceil(size)).map(|i| i * size).collect();
            let (got, _, shared) = by_blocks(&text, &cuts, target, |_| true);
            assert!(got == by_lines(&text, target));
            let copied = text.len() as f64 - shared as f64;
            let expected = (cuts.len() + 1) as f64 * target as f64;
            assert!(copied < 2.0 * expected, "{}: {copied} bytes copied of {}", path.display(), text.len());
        }
    }

    /// Lines that move the line model between its states, in random orders, cut into blocks at
    /// every byte: the chunks are the line-by-line splitter's. Covers surveys that cannot tell
    /// (a tag line after a blank line in a tag section that began before the block).
    #[test]
    fn blocks_cut_the_chunks_lines_cut_on_generated_text() {
        let pieces: [&[u8]; 20] = [
            b"[Event \"a\"]",
            b"[Site \"b\"]",
            b"  [Event \"c\"]",
            b"[Event \"d\"] 1. e4 {x",
            b"\xef\xbb\xbf[Event \"e\"]",
            b"[Site \"}\"]",
            b"",
            b"",
            b" ",
            b"\r",
            b"1. e4 e5",
            b"1. d4 { open",
            b"close } d5",
            b"}",
            b"{",
            b"; a { b",
            b"%escape {",
            b"1-0",
            b"*",
            b"[Round \"1\"]\r",
        ];
        let mut rng = Rng(12345);
        let mut undecided = 0;
        for _ in 0..3000 {
            let n = 1 + rng.below(24);
            let text: Vec<u8> = (0..n).flat_map(|_| [pieces[rng.below(pieces.len())], b"\n"].concat()).collect();
            let text = &text[..text.len() - rng.below(2)];
            for target in [1, 40, 1 << 20] {
                let expected = by_lines(text, target);
                for cut in 0..=text.len() {
                    let (got, (_, u), _) = by_blocks(text, &[cut], target, |_| true);
                    assert!(got == expected, "{:?} cut at {cut}, chunks of {target}", String::from_utf8_lossy(text));
                    undecided += u;
                }
                let mut cuts: Vec<usize> = (0..3).map(|_| rng.below(text.len() + 1)).collect();
                cuts.sort();
                assert!(by_blocks(text, &cuts, target, |_| true).0 == expected);
            }
        }
        assert!(undecided > 100, "{undecided}");
    }

    /// A game longer than the bound (to the end of the next game start's line) ends the input
    /// at the same game, with the same chunks before, whether lines or blocks cut it: long
    /// games, long lines, comments left open, blank text before the first game.
    #[test]
    fn blocks_fail_where_lines_fail_on_a_game_too_long() {
        let pieces: [&[u8]; 10] = [
            b"[Event \"a\"]",
            b"",
            b"1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6",
            b"1-0",
            b"{ a comment",
            b"} 1. d4",
            b"a line of moves that goes on and on: 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7",
            b"[Site \"b\"]",
            b"          ",
            b"*",
        ];
        let mut rng = Rng(777);
        let (mut failed, mut passed) = (0, 0);
        for _ in 0..2000 {
            let n = 1 + rng.below(40);
            let text: Vec<u8> = (0..n).flat_map(|_| [pieces[rng.below(pieces.len())], b"\n"].concat()).collect();
            let text = &text[..text.len() - rng.below(2)];
            let max = 20 + rng.below(400);
            for target in [1, 64, 1 << 20] {
                let (expected, error) = by_lines_within(text, target, max);
                let mut cuts: Vec<usize> = (0..1 + rng.below(6)).map(|_| rng.below(text.len() + 1)).collect();
                cuts.sort();
                let (got, got_error, _, _) = by_blocks_within(text, &cuts, target, max, |i| i % 3 != 1);
                assert!(
                    (&got, got_error) == (&expected, error),
                    "{:?} cut at {cuts:?}, chunks of {target}, games within {max}: {got_error:?}, lines {error:?}",
                    String::from_utf8_lossy(text)
                );
                if let Some(at) = error {
                    failed += 1;
                    // Where a game starts (or the text does), and more than `max` bytes on.
                    assert!(at == 0 || text[at as usize - 1] == b'\n', "{at}");
                    assert!(text.len() - at as usize > max);
                } else {
                    passed += 1;
                }
            }
        }
        assert!(failed > 500 && passed > 500, "{failed} failed, {passed} passed");
    }
}
