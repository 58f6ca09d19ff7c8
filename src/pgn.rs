//! Reading games from PGN with `pgn-reader`: tags, mainline moves, result.

use std::{cell::Cell, io, ops::{ControlFlow, Range}};

use pgn_reader::{Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{CastlingMode, Color, KnownOutcome};

use crate::{
    chunk::{CHUNK_BYTES, Chunk, Splitter},
    movetext::{self, BadToken},
    replay::{Analysis, GameResult, Replay},
    start::{ErrorKind, GameError, Start, Variant},
    summary::Summary,
};

/// One game as read and analysed.
#[derive(Clone, Debug)]
pub struct Game {
    /// Every tag in file order, decoded as UTF-8, or Latin-1 where it is not valid UTF-8.
    pub tags: Vec<(String, String)>,
    /// The variant replayed (Chess960 also when only the FEN needs it), or the one skipped.
    pub variant: Variant,
    pub result: GameResult,
    /// `None` when the variant is not replayed.
    pub analysis: Option<Analysis>,
    /// The mainline moves as written, only when the visitor was asked to keep them.
    pub moves: Vec<SanPlus>,
}

impl Game {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn status(&self) -> &'static str {
        match &self.analysis {
            None => "skipped",
            Some(a) if a.error.is_some() => "error",
            Some(_) => "ok",
        }
    }
}

/// Decodes bytes as UTF-8, falling back to Latin-1 (every byte one character) for old files.
pub fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// Per-game state while the movetext is read.
pub struct Movetext {
    moves: Vec<SanPlus>,
    tags: Vec<(String, String)>,
    variant: Variant,
    outcome: Option<GameResult>,
}

/// A `pgn-reader` visitor that replays each game with a reusable [`Replay`].
#[derive(Default)]
pub struct GameVisitor {
    replay: Replay,
    keep_moves: bool,
    /// The first mainline token of the current game that the reader will skip, if known.
    bad_token: Option<BadToken>,
    /// SAN tokens of the current game's mainline seen so far.
    sans: u32,
    /// The movetext result marker of the slice's first game, by the scanner's reading (a marker
    /// that `pgn-reader` finds inside a token it skips does not count).
    slice_result: Option<Option<GameResult>>,
}

impl GameVisitor {
    pub fn new() -> GameVisitor {
        GameVisitor::default()
    }

    /// A visitor that also keeps each game's mainline moves (for `explain`).
    pub fn keeping_moves() -> GameVisitor {
        GameVisitor { keep_moves: true, ..GameVisitor::default() }
    }
}

impl GameVisitor {
    /// Reads the games of `slice`, which holds whole games as [`crate::chunk`] cuts them (one
    /// game, unless the reader splits it further), checking each mainline for tokens the reader
    /// would skip.
    pub fn read_slice(&mut self, slice: &[u8], out: &mut Vec<Game>) -> io::Result<()> {
        let window = Window::new(slice);
        let mut reader = Reader::new(&window);
        self.read_window(&mut reader, &window, 0..slice.len(), out)
    }

    /// Reads the games of `window`'s bytes in `range` with `reader`, whose buffer is empty and
    /// stays empty after a successful read (the reader took every byte up to the range's end).
    fn read_window<'w>(
        &mut self,
        reader: &mut Reader<&'w Window<'w>>,
        window: &'w Window<'w>,
        range: Range<usize>,
        out: &mut Vec<Game>,
    ) -> io::Result<()> {
        let slice = &window.data[range.clone()];
        let scanned = movetext::scan(slice);
        self.bad_token = scanned.bad;
        self.slice_result = Some(scanned.result);
        let read = if scanned.open_comment {
            // A comment left open runs to the end of the input, as python-chess reads it too;
            // the reader would instead fail the game, so close it (rare: a copy is fine).
            let closed = [slice, b"}\n"].concat();
            let mut reader = Reader::new(&closed[..]);
            Self::read_all(&mut reader, self, out)
        } else {
            window.show(range);
            Self::read_all(reader, self, out)
        };
        self.bad_token = None;
        self.slice_result = None;
        read
    }

    fn read_all<R: io::Read>(reader: &mut Reader<R>, visitor: &mut GameVisitor, out: &mut Vec<Game>) -> io::Result<()> {
        while let Some(game) = reader.read_game(visitor)? {
            out.push(game);
        }
        Ok(())
    }

    /// Stops the replay when the next mainline token is one the reader skipped.
    fn stop_at_bad_token(&mut self) {
        if let Some(bad) = self.bad_token.as_ref().filter(|b| b.moves_before == self.sans) {
            let kind = if bad.null_move { ErrorKind::NullMove } else { ErrorKind::InvalidMove };
            self.replay.fail(kind, bad.token.clone());
            self.bad_token = None;
        }
    }
}

impl Visitor for GameVisitor {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = Game;

    fn begin_tags(&mut self) -> ControlFlow<Game, Self::Tags> {
        self.sans = 0;
        ControlFlow::Continue(Vec::new())
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Game> {
        tags.push((decode_text(name), decode_text(&value.decode())));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Game, Movetext> {
        let find = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        let mut variant = Variant::from_tag(find("Variant"));
        if let Variant::Other(_) = variant {
            let result = GameResult::from_tag(find("Result").unwrap_or(""));
            return ControlFlow::Break(Game { tags, variant, result, analysis: None, moves: Vec::new() });
        }
        match Start::new(&variant, find("FEN")) {
            Ok(start) => {
                if start.mode == CastlingMode::Chess960 {
                    variant = Variant::Chess960;
                }
                self.replay.start(start);
            }
            Err(error) => self.replay.start_failed(error),
        }
        ControlFlow::Continue(Movetext { moves: Vec::new(), tags, variant, outcome: None })
    }

    fn san(&mut self, movetext: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Game> {
        self.stop_at_bad_token();
        if self.keep_moves && self.replay.is_replaying() {
            movetext.moves.push(san_plus);
        }
        self.replay.play_san(&san_plus);
        self.sans += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _movetext: &mut Movetext) -> ControlFlow<Game, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, movetext: &mut Movetext, outcome: Outcome) -> ControlFlow<Game> {
        movetext.outcome = Some(match outcome {
            Outcome::Known(KnownOutcome::Decisive { winner: Color::White }) => GameResult::WhiteWins,
            Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }) => GameResult::BlackWins,
            Outcome::Known(KnownOutcome::Draw) => GameResult::Draw,
            Outcome::Unknown => GameResult::Unknown,
        });
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Movetext) -> Game {
        self.stop_at_bad_token();
        self.bad_token = None;
        let tag_result = movetext.tags.iter().find(|(n, _)| n == "Result").map(|(_, v)| GameResult::from_tag(v));
        let marker = self.slice_result.take().unwrap_or(movetext.outcome);
        let result = match tag_result {
            Some(r) if r != GameResult::Unknown => r,
            _ => marker.unwrap_or(GameResult::Unknown),
        };
        let analysis = self.replay.finish(result);
        Game { tags: movetext.tags, variant: movetext.variant, result, analysis: Some(analysis), moves: movetext.moves }
    }
}

impl Game {
    /// A game whose text `pgn-reader` could not read.
    fn unreadable(error: &io::Error) -> Game {
        let error = GameError { kind: ErrorKind::InvalidPgn, ply: 0, token: error.to_string() };
        Game {
            tags: Vec::new(),
            variant: Variant::Standard,
            result: GameResult::Unknown,
            analysis: Some(Analysis { error: Some(error), summary: Summary::empty(), events: Vec::new() }),
            moves: Vec::new(),
        }
    }
}

impl GameVisitor {
    /// Reads the games of `chunk` one game slice at a time, calling `f` with the offset of each
    /// game's first byte in the chunk, until `f` breaks. A slice the reader cannot read becomes
    /// a game with an `invalid_pgn` error: nothing is dropped silently.
    pub fn read_chunk(&mut self, chunk: &Chunk, mut f: impl FnMut(usize, Game) -> ControlFlow<()>) -> ControlFlow<()> {
        let mut games = Vec::new();
        // One reader (and its buffer) for the whole chunk, shown one game slice at a time.
        let window = Window::new(&chunk.data);
        let mut reader = Reader::new(&window);
        for (start, slice) in chunk.game_slices() {
            games.clear();
            if let Err(e) = self.read_window(&mut reader, &window, start..start + slice.len(), &mut games) {
                games.push(Game::unreadable(&e));
                // The reader may hold the rest of the failed slice: start afresh.
                reader = Reader::new(&window);
            }
            let lead = slice.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let lead = if slice[lead..].starts_with(b"\xef\xbb\xbf") { lead + 3 } else { lead };
            for game in games.drain(..) {
                f(start + lead, game)?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// A chunk's bytes as the reader sees them: only up to the end of the game slice being read, so
/// the reader ends each game where the splitter cut it, while one reader serves the chunk.
struct Window<'a> {
    data: &'a [u8],
    pos: Cell<usize>,
    end: Cell<usize>,
}

impl<'a> Window<'a> {
    fn new(data: &'a [u8]) -> Window<'a> {
        Window { data, pos: Cell::new(0), end: Cell::new(data.len()) }
    }

    /// Makes `range` the bytes the reader gets next.
    fn show(&self, range: Range<usize>) {
        self.pos.set(range.start);
        self.end.set(range.end);
    }
}

impl io::Read for &Window<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (pos, end) = (self.pos.get(), self.end.get());
        let n = buf.len().min(end - pos);
        buf[..n].copy_from_slice(&self.data[pos..pos + n]);
        self.pos.set(pos + n);
        Ok(n)
    }
}

/// Reads every game of `input`, calling `f` with each in order until it breaks.
pub fn for_each_game<R: io::Read>(input: R, f: impl FnMut(Game) -> ControlFlow<()>) -> io::Result<()> {
    for_each_game_with(input, GameVisitor::new(), f)
}

/// Like [`for_each_game`] with a given visitor; `f` may stop the reading early.
pub fn for_each_game_with<R: io::Read>(
    input: R,
    mut visitor: GameVisitor,
    mut f: impl FnMut(Game) -> ControlFlow<()>,
) -> io::Result<()> {
    let mut splitter = Splitter::new(input, CHUNK_BYTES);
    while let Some(chunk) = splitter.next_chunk().map_err(|e| e.error)? {
        if visitor.read_chunk(&chunk, |_, game| f(game)).is_break() {
            break;
        }
    }
    Ok(())
}
