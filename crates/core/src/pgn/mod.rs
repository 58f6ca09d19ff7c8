//! Reading games: the scanner reads each game slice's first game, its tags
//! ([`crate::pgn::tag_section`]) and mainline moves ([`crate::pgn::movetext`]), as `pgn-reader` would; `pgn-reader` reads the tags the scanner cannot be sure
//! of (unterminated, or longer than the reader's buffer is sure to hold) and any further game it
//! finds in a slice. `GameVisitor::showing_whole_slices` ([`reference`]) is the reference:
//! `pgn-reader` reads every slice whole and skips the first game's movetext itself.

pub(crate) mod commands;
pub(crate) mod movetext;
pub mod record;
pub mod reference;
pub(crate) mod scan;
pub mod tag_section;
pub mod tags;
pub mod venue;

use std::{
    cell::Cell,
    io,
    ops::{ControlFlow, Range},
};

use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::CastlingMode;

use crate::{
    engine::ending::Ending,
    engine::fingerprint,
    engine::laws::{Claimant, InForce},
    engine::replay::{self, Analysis, Replay, VariantReplay},
    engine::rules::Rules,
    engine::start::{ErrorKind, GameError, Start, Variant, VariantStart},
    pgn::movetext::{Mainline, Token},
    pgn::{
        tags::Tags,
        venue::{Rulebook, Venue},
    },
    read::chunk::{CHUNK_BYTES, Chunk, Splitter},
};

/// What became of a game: replayed to its end, stopped by an error, or not replayed (a variant
/// other than standard chess, Chess960 and the Lichess variants). The `status` column and `dump` name it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Ok,
    Error,
    Skipped,
}

crate::engine::vocabulary::serialize_as_str!(GameStatus);

impl GameStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Ok => "ok",
            GameStatus::Error => "error",
            GameStatus::Skipped => "skipped",
        }
    }
}

/// One game as read and analysed.
#[derive(Clone, Debug)]
pub struct Game {
    /// Every tag in file order, decoded as UTF-8, or Latin-1 where it is not valid UTF-8.
    pub tags: Tags,
    /// The variant replayed (Chess960 also when only the FEN needs it), or the one skipped.
    pub variant: Variant,
    pub result: Outcome,
    /// `None` when the variant is not replayed.
    pub analysis: Option<Analysis>,
    /// The mainline moves as written, only when the visitor was asked to keep them.
    pub moves: Vec<SanPlus>,
    /// Base and increment seconds of the `TimeControl` tag ([`tags::time_control`]).
    pub time_control: Option<(u32, u32)>,
    /// How its tags say it ended (`TerminationDetails`, `Termination`).
    pub ending: Option<Ending>,
    /// Where it was played, as its tags say ([`Venue::infer`]; `ingest --venue` may set it).
    pub venue: Venue,
    /// Who could claim a threefold under the rules in force on its venue and date
    /// ([`Rulebook::in_force`]).
    pub claimant: Claimant,
}

/// The tags a finished game's recorded ending ([`Ending::recorded`]) and fingerprint
/// ([`fingerprint::Parts`]) read.
const FINISHING_TAGS: [&str; 9] =
    ["TerminationDetails", "Termination", "White", "Black", "Date", "UTCDate", "FEN", "Event", "Site"];

impl Game {
    /// A game of no tags and no moves, not replayed (for an input's record that holds no game).
    pub fn empty() -> Game {
        Game {
            tags: Tags::default(),
            variant: Variant::Standard,
            result: Outcome::Unknown,
            analysis: None,
            moves: Vec::new(),
            time_control: None,
            ending: None,
            venue: Venue::Unknown,
            claimant: Claimant::SideToMove,
        }
    }

    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.get(name)
    }

    /// Why the replay stopped, if it did.
    pub fn error(&self) -> Option<&GameError> {
        self.analysis.as_ref().and_then(|a| a.error.as_ref())
    }

    pub fn status(&self) -> GameStatus {
        match &self.analysis {
            None => GameStatus::Skipped,
            Some(a) if a.error.is_some() => GameStatus::Error,
            Some(_) => GameStatus::Ok,
        }
    }
}

/// Per-game state while the movetext is read.
pub struct Movetext {
    moves: Vec<SanPlus>,
    time_control: Option<(u32, u32)>,
    tags: Tags,
    variant: Variant,
    outcome: Option<Outcome>,
    /// The `Result` tag's result, if the game has the tag.
    tag_result: Option<Outcome>,
    /// The game is replayed by the variant replay (decided once per game).
    lichess: bool,
}

/// At most this many games' tag buffers are kept for reuse (about 0.5 KB each): more than a
/// chunk holds of Lichess games.
const SPARE_TAGS: usize = 4096;

/// Replays games as `pgn-reader` and the movetext scanner read them, with a reusable [`Replay`].
#[derive(Default)]
pub struct GameVisitor {
    replay: Replay,
    variant_replay: VariantReplay,
    keep_moves: bool,
    /// Show the reader each slice whole (the reference for the tags-only showing).
    whole_slices: bool,
    /// Where the scanner found each tag's name and value (a buffer reused from game to game).
    tag_ranges: Vec<(Range<usize>, Range<usize>, bool)>,
    /// Tags of games written out ([`GameVisitor::recycle`]), whose buffers the next games fill:
    /// two allocations and two frees less per game.
    spare_tags: Vec<Tags>,
    /// The venue of every game (`ingest --venue`), instead of the tags': its rules read the
    /// game's claims.
    venue: Option<Venue>,
}

impl GameVisitor {
    pub fn new() -> GameVisitor {
        GameVisitor::default()
    }

    /// A visitor that gives every game `venue` (`None`: each game's tags say).
    pub fn with_venue(venue: Option<Venue>) -> GameVisitor {
        GameVisitor { venue, ..GameVisitor::default() }
    }

    /// Takes back a game read by this visitor, once it is written, for its buffers to hold a
    /// later game's (as many as a chunk's games, at most [`SPARE_TAGS`]).
    pub fn recycle(&mut self, game: Game) {
        if self.spare_tags.len() < SPARE_TAGS {
            self.spare_tags.push(game.tags);
        }
    }

    /// A visitor that also keeps each game's mainline moves (for `explain`).
    pub fn keeping_moves() -> GameVisitor {
        GameVisitor { keep_moves: true, ..GameVisitor::default() }
    }

    /// Reads the games of `slice`, which holds whole games as [`crate::read::chunk`] cuts them (one
    /// game, unless the reader splits it further).
    pub fn read_slice(&mut self, slice: &[u8], out: &mut Vec<Game>) -> io::Result<()> {
        let view = ReaderView::new(slice);
        let mut reader = Reader::new(&view);
        self.read_view(&mut reader, &view, 0..slice.len(), out)
    }

    /// Reads the games of `view`'s bytes in `range` with `reader`, whose buffer is empty and
    /// stays empty after a successful read (the reader took every byte up to the range's end).
    fn read_view<'v>(
        &mut self,
        reader: &mut Reader<&'v ReaderView<'v>>,
        view: &'v ReaderView<'v>,
        range: Range<usize>,
        out: &mut Vec<Game>,
    ) -> io::Result<()> {
        let first = if self.whole_slices { None } else { self.read_first_game(&view.data[range.clone()], out) };
        self.read_rest(reader, view, range, first, out)
    }

    /// [`Self::read_view`] after the first game: `first` is where it ends when the scanner read
    /// it; else (`None`) the reader reads it first, then the rest of the slice. Inlined into
    /// its callers, as it was into `read_view` before `read_rows` shared it.
    #[inline(always)]
    fn read_rest<'v>(
        &mut self,
        reader: &mut Reader<&'v ReaderView<'v>>,
        view: &'v ReaderView<'v>,
        range: Range<usize>,
        first: Option<usize>,
        out: &mut Vec<Game>,
    ) -> io::Result<()> {
        let slice = &view.data[range.clone()];
        let whole = self.whole_slices && first.is_none();
        let mut visitor = SliceVisitor { games: self, first: None, end: None, partial: Vec::new() };
        let rest = match first {
            Some(end) => end,
            None => {
                // The reader reads the first game's tags, shown only those: its movetext is the
                // scanner's to read, and the reader's skip over it would cost a seventh of the
                // replay on Lichess files with a clock comment after every move.
                let movetext = tag_section::tags_end(slice);
                view.show_game(range.start..if whole { range.end } else { range.start + movetext });
                visitor.first = Some((slice, movetext));
                out.extend(reader.read_game(&mut visitor)?);
                // After the tags the reader read when the scanner did not take the game (a
                // variant not replayed), or after the whitespace of a slice holding no game.
                visitor.end.unwrap_or(movetext)
            }
        };
        // The rest of the slice (whitespace, unless the reader finds more games in it than the
        // splitter did), from where the scanner ended the first game: the reader's pending skip
        // of its movetext, if any, stops at once there.
        if !whole {
            // Where the scanner read the game, the reader has not been shown this slice and its
            // buffer is empty: after whitespace alone, as a slice mostly ends, it would find no
            // game, at a cost of about 500 instructions (callgrind, pgnmentor).
            if first.is_some() && slice[rest..].iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
                return Ok(());
            }
            view.show(range.start + rest..range.end);
        }
        while let Some(game) = reader.read_game(&mut visitor)? {
            out.push(game);
        }
        Ok(())
    }

    /// Reads the slice's first game without `pgn-reader` when the scanner is sure to read its
    /// tags as the reader would ([`tag_section::read_tag_section`]): the reader's tag parsing and
    /// its handing over of each tag cost as much as the scanner's whole reading of a short
    /// game. Returns where the game ends, or `None` (nothing read) for the reader to read it.
    fn read_first_game(&mut self, slice: &[u8], out: &mut Vec<Game>) -> Option<usize> {
        let found = &mut self.tag_ranges;
        found.clear();
        let movetext = tag_section::read_tag_section(slice, |name, value, escaped| found.push((name, value, escaped)))?;
        // One UTF-8 check for the whole tag section rather than one per name and value (cut at
        // ASCII bytes, its tags are UTF-8 too), and not over the movetext, which is most of a
        // game's bytes; the section is copied once and its tags kept as ranges in it. A value
        // with a backslash is unescaped as the reader does.
        let text = std::str::from_utf8(&slice[..movetext]).ok();
        let mut tags = self.spare_tags.pop().unwrap_or_default();
        tags.refill(text.unwrap_or(""));
        for (name, value, escaped) in found.drain(..) {
            if text.is_none() || escaped || !tags.push_within(name.clone(), value.clone()) {
                tags.push(&slice[name], &RawTag(&slice[value]).decode());
            }
        }
        Some(self.read_after_tags(tags, slice, movetext, out))
    }

    /// Reads the game of `tags` whose movetext starts at `movetext` in `slice`: begun from its
    /// tags ([`Self::begin`]: variant, FEN, result) and replayed, or skipped. Returns where its
    /// text ends in `slice`.
    #[inline(always)]
    fn read_after_tags(&mut self, tags: Tags, slice: &[u8], movetext: usize, out: &mut Vec<Game>) -> usize {
        match self.begin(tags) {
            Ok(state) => {
                let (game, end) = self.replay_mainline(state, slice, movetext);
                out.push(game);
                end
            }
            Err(skipped) => {
                out.push(skipped);
                Mainline::at(slice, movetext).finish_at().1
            }
        }
    }

    /// A game of a variant that is not replayed: its tags, result, recorded ending and rules.
    /// Kept out of [`Self::begin`], which every game calls: inlined there, it cost the scanner
    /// its inlined tag reading.
    #[cold]
    #[inline(never)]
    fn skipped(
        &self,
        tags: Tags,
        variant: Variant,
        tag_result: Option<Outcome>,
        time_control: Option<(u32, u32)>,
    ) -> Game {
        let result = tag_result.unwrap_or(Outcome::Unknown);
        let [details, termination, event, site, white, black, date, utc_date] =
            tags.get_each(["TerminationDetails", "Termination", "Event", "Site", "White", "Black", "Date", "UTCDate"]);
        let ending = Ending::recorded(details, termination, result);
        let venue = self.venue.unwrap_or_else(|| Venue::infer(event, site, white, black));
        let claimant = in_force(venue, site, date, utc_date).claimant;
        Game { tags, variant, result, analysis: None, moves: Vec::new(), time_control, ending, venue, claimant }
    }

    /// Starts a game from its tags, or returns it whole when its variant is not replayed.
    #[allow(clippy::result_large_err)] // the `Err` is the game itself, handed straight on
    fn begin(&mut self, tags: Tags) -> Result<Movetext, Game> {
        let [time_control, variant_tag, fen, result_tag] = tags.get_each(["TimeControl", "Variant", "FEN", "Result"]);
        let time_control = time_control.and_then(tags::time_control);
        let mut variant = Variant::from_tag(variant_tag);
        let tag_result = result_tag.map(replay::result_of_tag);
        let base = time_control.map(|(base, _)| base);
        let movetext = |tags, variant, lichess| Movetext {
            moves: Vec::new(),
            time_control,
            tags,
            variant,
            outcome: None,
            tag_result,
            lichess,
        };
        match variant {
            Variant::Other(_) => return Err(self.skipped(tags, variant, tag_result, time_control)),
            Variant::Lichess(rules) => {
                match VariantStart::new(rules, fen) {
                    Ok(start) => self.variant_replay.start(start, base),
                    Err(error) => self.variant_replay.start_failed(error),
                }
                return Ok(movetext(tags, variant, true));
            }
            Variant::Standard | Variant::Chess960 => {}
        }
        match Start::new(&variant, fen) {
            Ok(start) => {
                if start.mode == CastlingMode::Chess960 {
                    variant = Variant::Chess960;
                }
                self.replay.start(start, base);
            }
            Err(error) => self.replay.start_failed(error),
        }
        Ok(movetext(tags, variant, false))
    }

    /// Plays a move the reader passed on (a further game of a slice: the scanner's path,
    /// [`Self::replay_mainline`], picks the replay once per game instead).
    fn play(&mut self, movetext: &mut Movetext, san: SanPlus) {
        match movetext.lichess {
            false => play(&mut self.replay, self.keep_moves, movetext, san),
            true => play(&mut self.variant_replay, self.keep_moves, movetext, san),
        }
    }

    /// Reads the commands of a mainline comment after the last move played.
    fn comment(&mut self, movetext: &Movetext, comment: &[u8]) {
        match movetext.lichess {
            false => note_comment(&mut self.replay, comment),
            true => note_comment(&mut self.variant_replay, comment),
        }
    }

    /// Replays the mainline of `game` (the slice's first game) as the scanner reads it, move by
    /// move, up to its end or the first token the reader would skip, where the replay stops
    /// with an error; the result marker counts by the scanner's reading too (a marker the
    /// reader finds inside a token it skips does not).
    /// Returns the game and where its text ends in `game` ([`Mainline::finish_at`]).
    fn replay_mainline(&mut self, movetext: Movetext, game: &[u8], start: usize) -> (Game, usize) {
        let keep = self.keep_moves;
        let (movetext, scanned, end) = match movetext.lichess {
            false => replay_mainline(&mut self.replay, keep, movetext, game, start),
            true => replay_mainline(&mut self.variant_replay, keep, movetext, game, start),
        };
        (self.finish(movetext, scanned), end)
    }

    /// The game's record: the result is the `Result` tag's when it is decisive or a draw, else
    /// the movetext marker's.
    fn finish(&mut self, movetext: Movetext, marker: Option<Outcome>) -> Game {
        let result = match movetext.tag_result {
            Some(r) if r.is_known() => r,
            _ => marker.unwrap_or(Outcome::Unknown),
        };
        // The tags the ending and the fingerprint read, found in one pass.
        let [details, termination, white, black, date, utc_date, fen, event, site] =
            movetext.tags.get_each(FINISHING_TAGS);
        let ending = Ending::recorded(details, termination, result);
        let venue = self.venue.unwrap_or_else(|| Venue::infer(event, site, white, black));
        let laws = in_force(venue, site, date, utc_date);
        let mut analysis = match movetext.lichess {
            false => self.replay.finish(result, ending, laws),
            true => self.variant_replay.finish(result, ending, laws),
        };
        let parts = fingerprint::Parts {
            white: white.unwrap_or(""),
            black: black.unwrap_or(""),
            date: fingerprint::date(date, utc_date),
            result: result.as_str(),
            variant: movetext.variant.name(),
            fen: fen.unwrap_or(""),
            lichess_id: site.and_then(tags::lichess_id).unwrap_or(""),
        };
        analysis.summary.fingerprint = fingerprint::fingerprint(&parts, analysis.moves, analysis.summary.plies);
        Game {
            ending,
            venue,
            claimant: laws.claimant,
            tags: movetext.tags,
            variant: movetext.variant,
            result,
            analysis: Some(analysis),
            moves: movetext.moves,
            time_control: movetext.time_control,
        }
    }
}

/// Plays a move with `replay` (kept in `movetext` when asked).
#[inline]
fn play<R: Rules>(replay: &mut Replay<R>, keep_moves: bool, movetext: &mut Movetext, san: SanPlus) {
    if keep_moves && replay.is_replaying() {
        movetext.moves.push(san);
    }
    replay.play_san(&san);
}

/// Hands a mainline comment's clock and evaluation to `replay`.
fn note_comment<R: Rules>(replay: &mut Replay<R>, comment: &[u8]) {
    let found = commands::read(comment);
    if found.clock_ms.is_some() || found.eval.is_some() {
        replay.note_comment(found.clock_ms, found.eval);
    }
}

/// Replays the mainline of `game` (the slice's first game) with `replay` as the scanner reads
/// it, move by move, up to its end or the first token the reader would skip, where the replay
/// stops with an error; the result marker counts by the scanner's reading too (a marker the
/// reader finds inside a token it skips does not). Generic, so that each replay gets a loop of
/// its own. Returns the movetext, the marker and where the game's text ends in `game`
/// ([`Mainline::finish_at`]).
fn replay_mainline<R: Rules>(
    replay: &mut Replay<R>,
    keep_moves: bool,
    mut movetext: Movetext,
    game: &[u8],
    start: usize,
) -> (Movetext, Option<Outcome>, usize) {
    let mut mainline = Mainline::at(game, start);
    // Once a 16-byte comment was read (Lichess's clock after a move), each ply is first tried
    // in Lichess's form, which skips the scanner's steps for the space, comment and number.
    let mut lichess = false;
    while replay.is_replaying() {
        if lichess && let Some((san, text)) = mainline.lichess_ply() {
            play(replay, keep_moves, &mut movetext, san);
            note_comment(replay, &game[text]);
            continue;
        }
        match mainline.next_token() {
            None => break,
            Some(Token::Move(san)) => play(replay, keep_moves, &mut movetext, san),
            Some(Token::Comment(text)) => {
                lichess = movetext::lichess_form(&text);
                note_comment(replay, &game[text]);
            }
            Some(Token::Bad(bad)) => {
                let kind = if bad.null_move { ErrorKind::NullMove } else { ErrorKind::InvalidMove };
                replay.fail(kind, bad.token);
            }
        }
    }
    let (scanned, end) = mainline.finish_at();
    (movetext, scanned.result, end)
}

/// The `pgn-reader` visitor for one game slice. The reader reads every game's tags; the
/// slice's first game is then replayed from the movetext scanner's reading while the reader
/// skips its movetext (one pass over the moves, not two); a further game the reader finds in
/// the slice has its movetext read by the reader.
struct SliceVisitor<'v, 's> {
    games: &'v mut GameVisitor,
    /// The slice and where its first game's movetext starts, until that movetext begins.
    first: Option<(&'s [u8], usize)>,
    /// Where the scanner ended the first game.
    end: Option<usize>,
    /// The parts of a comment longer than the reader's buffer read so far.
    partial: Vec<u8>,
}

impl Visitor for SliceVisitor<'_, '_> {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = Game;

    fn begin_tags(&mut self) -> ControlFlow<Game, Self::Tags> {
        ControlFlow::Continue(Tags::new())
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Game> {
        tags.push(name, &value.decode());
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Game, Movetext> {
        let first = self.first.take();
        match (self.games.begin(tags), first) {
            (Err(skipped), _) => ControlFlow::Break(skipped),
            (Ok(movetext), Some((slice, start))) => {
                let (game, end) = self.games.replay_mainline(movetext, slice, start);
                self.end = Some(end);
                ControlFlow::Break(game)
            }
            (Ok(movetext), None) => ControlFlow::Continue(movetext),
        }
    }

    fn san(&mut self, movetext: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Game> {
        self.games.play(movetext, san_plus);
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _movetext: &mut Movetext) -> ControlFlow<Game, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn partial_comment(&mut self, _movetext: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<Game> {
        self.partial.extend_from_slice(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(&mut self, movetext: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<Game> {
        if self.partial.is_empty() {
            self.games.comment(movetext, comment.as_bytes());
        } else {
            // A long comment comes in parts: read it whole, as the scanner does.
            let mut whole = std::mem::take(&mut self.partial);
            whole.extend_from_slice(comment.as_bytes());
            self.games.comment(movetext, &whole);
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, movetext: &mut Movetext, outcome: Outcome) -> ControlFlow<Game> {
        movetext.outcome = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Movetext) -> Game {
        let marker = movetext.outcome;
        self.games.finish(movetext, marker)
    }
}

impl Game {
    /// A game whose text `pgn-reader` could not read.
    fn unreadable(error: &io::Error) -> Game {
        let error = GameError { kind: ErrorKind::InvalidPgn, ply: 0, token: error.to_string() };
        Game {
            tags: Tags::default(),
            variant: Variant::Standard,
            result: Outcome::Unknown,
            analysis: Some(Analysis::failed(error)),
            moves: Vec::new(),
            time_control: None,
            ending: None,
            venue: Venue::Unknown,
            claimant: Claimant::SideToMove,
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
        let view = ReaderView::new(&chunk.data);
        let mut reader = Reader::new(&view);
        for (start, slice) in chunk.game_slices() {
            games.clear();
            if let Err(e) = self.read_view(&mut reader, &view, start..start + slice.len(), &mut games) {
                games.push(Game::unreadable(&e));
                // The reader may hold the rest of the failed slice: start afresh.
                reader = Reader::new(&view);
            }
            let lead = slice.iter().take_while(|b| b.is_ascii_whitespace()).count();
            for game in games.drain(..) {
                f(start + lead, game)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Reads the games of `chunk`, whose game slices are the rows of a table (Lichess's Parquet:
    /// [`crate::ingest::rows`]), calling `f` with each row's number and each game its slice
    /// holds, until `f` breaks. `tags` fills a row's tags, read from the table's columns (into
    /// a written game's buffers: [`Self::recycle`]), or returns `false` when the row's slice
    /// holds them as PGN: that slice is read as [`Self::read_chunk`] reads one. Any other
    /// slice holds what follows the game's tag section (whitespace, the movetext, and anything
    /// after it, which [`tag_section::movetext_after_tags`] says is the movetext); its game is
    /// replayed from it as [`Self::read_first_game`] replays a game after its tags (the same
    /// start, variant, FEN and result handling, the same errors), and any further game in the
    /// slice is read as `read_chunk` reads one.
    pub fn read_rows(
        &mut self,
        chunk: &Chunk,
        mut tags: impl FnMut(usize, &mut Tags) -> bool,
        mut f: impl FnMut(usize, Game) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut games = Vec::new();
        let view = ReaderView::new(&chunk.data);
        let mut reader = Reader::new(&view);
        for (row, (start, slice)) in chunk.game_slices().enumerate() {
            games.clear();
            let range = start..start + slice.len();
            let mut row_tags = self.spare_tags.pop().unwrap_or_default();
            let read = if tags(row, &mut row_tags) {
                let end = self.read_after_tags(row_tags, slice, tag_section::movetext_start(slice), &mut games);
                self.read_rest(&mut reader, &view, range, Some(end), &mut games)
            } else {
                self.spare_tags.push(row_tags);
                self.read_view(&mut reader, &view, range, &mut games)
            };
            if let Err(e) = read {
                games.push(Game::unreadable(&e));
                reader = Reader::new(&view);
            }
            for game in games.drain(..) {
                f(row, game)?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// A chunk's bytes as the reader sees them: only up to the end of the game slice being read, so
/// the reader ends each game where the splitter cut it, while one reader serves the chunk.
struct ReaderView<'a> {
    data: &'a [u8],
    pos: Cell<usize>,
    end: Cell<usize>,
    /// A line break to hand the reader before `data[pos..end]`.
    lead: Cell<bool>,
}

impl<'a> ReaderView<'a> {
    fn new(data: &'a [u8]) -> ReaderView<'a> {
        ReaderView { data, pos: Cell::new(0), end: Cell::new(data.len()), lead: Cell::new(false) }
    }

    /// Makes `range` the bytes the reader gets next.
    fn show(&self, range: Range<usize>) {
        self.pos.set(range.start);
        self.end.set(range.end);
        self.lead.set(false);
    }

    /// Makes `range`, from the start of a game slice, the bytes the reader gets next. The reader
    /// skips a byte-order mark where it starts a game; a slice holds none that it skips in the
    /// stream ([`Chunk::game_slices`]), so a slice that starts with one is handed over after a
    /// line break, which the reader skips as whitespace before the game, and the mark is text.
    fn show_game(&self, range: Range<usize>) {
        let lead = self.data[range.clone()].starts_with(crate::read::line::BOM);
        self.show(range);
        self.lead.set(lead);
    }
}

impl io::Read for &ReaderView<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.lead.get() && !buf.is_empty() {
            self.lead.set(false);
            buf[0] = b'\n';
            return Ok(1);
        }
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

/// Like [`for_each_game`] with a given visitor; `f` may stop the reading early. On a read
/// error, `f` still gets the whole games read before it, then the error is returned.
pub fn for_each_game_with<R: io::Read>(
    input: R,
    mut visitor: GameVisitor,
    mut f: impl FnMut(Game) -> ControlFlow<()>,
) -> io::Result<()> {
    let mut splitter = Splitter::new(input, CHUNK_BYTES);
    loop {
        match splitter.next_chunk() {
            Ok(Some(chunk)) => {
                if visitor.read_chunk(&chunk, |_, game| f(game)).is_break() {
                    return Ok(());
                }
                splitter.recycle(chunk.data);
            }
            Ok(None) => return Ok(()),
            Err(error) => {
                // The whole games read before the error are still read; if `f` stops among
                // them, it did not need the rest.
                if let Some(chunk) = splitter.salvage()
                    && visitor.read_chunk(&chunk, |_, game| f(game)).is_break()
                {
                    return Ok(());
                }
                return Err(error.error);
            }
        }
    }
}

/// The rules a game of `venue` at `site` played on its `Date` (else `UTCDate`) was under. Kept
/// out of the game's finish: inlined there, it cost the scanner its inlined tag reading (+2% a
/// game).
#[inline(never)]
fn in_force(venue: Venue, site: Option<&str>, date: Option<&str>, utc_date: Option<&str>) -> InForce {
    Rulebook::of(venue, site).in_force(tags::period(fingerprint::date(date, utc_date)))
}
