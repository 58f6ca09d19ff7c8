//! Replays one game's mainline and turns it into events and a summary.
//!
//! [`Replay`] is a state machine fed by the PGN reader (or by tests): [`Replay::start`] with the
//! game's start, [`Replay::play`] per move, [`Replay::finish`] at the end. It owns the repetition
//! window and scratch buffers and is reused from game to game by one worker thread.

use shakmaty::{
    CastlingMode, Chess, Color, Move, Position,
    san::{San, SanError, SanPlus},
    uci::UciMove,
};

use crate::{
    engine::clocks::{Annotations, Eval},
    engine::event::{Detail, Differs, Event, Perpetual},
    engine::identity::{self, Identity, Key},
    engine::start::{ErrorKind, GameError, Start},
    engine::summary::{DrawReason, FinalStatus, Summary},
    engine::tracker::{Counts, Tracker},
};

/// Plies a game is replayed for at most. No game the Laws allow is longer (fivefold and the
/// 75-move rule end one within 8,848½ moves, 17,697 plies), so only a broken or made-up game
/// reaches it; it bounds what one game costs in time and memory (events are kept per game).
pub const MAX_PLIES: u32 = 20_000;

/// The result of a game, from its `Result` tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    Unknown,
}

impl GameResult {
    pub fn from_tag(tag: &str) -> GameResult {
        match tag {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }

    /// Final score of `color`, if known.
    pub fn score(self, color: Color) -> Option<f64> {
        match (self, color) {
            (GameResult::Draw, _) => Some(0.5),
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => Some(1.0),
            (GameResult::WhiteWins, Color::Black) | (GameResult::BlackWins, Color::White) => Some(0.0),
            (GameResult::Unknown, _) => None,
        }
    }

    pub fn is_decisive(self) -> bool {
        matches!(self, GameResult::WhiteWins | GameResult::BlackWins)
    }
}

/// Everything the engine found in one game.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub error: Option<GameError>,
    pub summary: Summary,
    pub events: Vec<Event>,
}

/// Per-game running statistics, folded into the [`Summary`] at the end (by both replays: this
/// one and [`crate::engine::variant`]'s).
#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) max_occurrence: u32,
    pub(crate) first_occurrence: [Option<u32>; 3],
    pub(crate) positions_reaching_3: u32,
    /// Plies at which the side to move could claim, in order.
    pub(crate) opportunities: Vec<Opportunity>,
    pub(crate) pseudo: u32,
    pub(crate) hidden: u32,
    pub(crate) first_halfmove_100: Option<u32>,
    pub(crate) first_halfmove_150: Option<u32>,
    /// Last ply's counts and whether a claim by move existed there.
    pub(crate) last_counts: Counts,
    pub(crate) last_claim_by_move: bool,
    /// Plies from the first occurrence of the first position to occur thrice to its third, and
    /// who gave check with every move between.
    pub(crate) first_threefold: Option<(u32, Option<Perpetual>)>,
}

/// A ply at which the side to move could claim a threefold, and how.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Opportunity {
    pub(crate) ply: u32,
    /// The position stands on the board for the third time or more (9.2.1.2).
    pub(crate) on_board: bool,
    /// A move would make a position occur for the third time (9.2.1.1) ...
    pub(crate) by_move: bool,
    /// ... and one such move was the one played next.
    pub(crate) move_played: bool,
}

impl Stats {
    /// Notes a claim opportunity at `ply` (at least one of the two kinds).
    #[inline]
    pub(crate) fn opportunity(&mut self, ply: u32, on_board: bool, by_move: bool) {
        self.opportunities.push(Opportunity { ply, on_board, by_move, move_played: false });
    }

    /// Notes that the move played after the last opportunity was one of its declared moves.
    pub(crate) fn claim_move_played(&mut self) {
        if let Some(o) = self.opportunities.last_mut() {
            o.move_played = true;
        }
    }
}

/// What a replay does with a game's moves and comments, so that the PGN reader can drive
/// either replay through code made for each (no per-move dispatch).
pub trait Replayer {
    fn is_replaying(&self) -> bool;
    fn play_san(&mut self, san: &SanPlus);
    fn note_comment(&mut self, clock_ms: Option<i64>, eval: Option<Eval>);
    fn fail(&mut self, kind: ErrorKind, token: String);
    fn finish(&mut self, result: GameResult) -> Analysis;
}

impl Replayer for Replay {
    #[inline]
    fn is_replaying(&self) -> bool {
        Replay::is_replaying(self)
    }
    #[inline]
    fn play_san(&mut self, san: &SanPlus) {
        Replay::play_san(self, san)
    }
    #[inline]
    fn note_comment(&mut self, clock_ms: Option<i64>, eval: Option<Eval>) {
        Replay::note_comment(self, clock_ms, eval)
    }
    fn fail(&mut self, kind: ErrorKind, token: String) {
        Replay::fail(self, kind, token)
    }
    fn finish(&mut self, result: GameResult) -> Analysis {
        Replay::finish(self, result)
    }
}

#[derive(Default)]
pub struct Replay {
    tracker: Tracker,
    pos: Chess,
    mode: Option<CastlingMode>,
    start_turn: Option<Color>,
    /// Zobrist key of the current pieces and side to move, updated move by move.
    board_zobrist: u64,
    ply: u32,
    events: Vec<Event>,
    /// Claim-by-move events of the current ply, with their moves, to mark the one played.
    pending: Vec<(usize, Move)>,
    stats: Stats,
    error: Option<GameError>,
    scratch: Vec<u32>,
    /// The clocks and evaluations of the moves' comments.
    annotations: Annotations,
}

impl Replay {
    pub fn new() -> Replay {
        Replay::default()
    }

    /// Starts a game from `start` and records its first position (ply 0). `base_seconds` is the
    /// clocks' start (the `TimeControl` tag's base), if known.
    pub fn start(&mut self, start: Start, base_seconds: Option<u32>) {
        self.annotations.reset(base_seconds);
        self.tracker.reset();
        self.events.clear();
        self.pending.clear();
        self.stats = Stats::default();
        self.error = None;
        self.ply = 0;
        self.mode = Some(start.mode);
        self.start_turn = Some(start.pos.turn());
        self.board_zobrist = identity::board_zobrist(start.pos.board(), start.pos.turn());
        self.pos = start.pos;
        self.visit();
    }

    /// Starts a game that cannot be replayed (its FEN is impossible).
    pub fn start_failed(&mut self, error: GameError) {
        self.annotations.reset(None);
        self.tracker.reset();
        self.events.clear();
        self.pending.clear();
        self.stats = Stats::default();
        self.mode = None;
        self.error = Some(error);
    }

    /// Whether moves are still being replayed (no error so far).
    pub fn is_replaying(&self) -> bool {
        self.mode.is_some() && self.error.is_none()
    }

    /// Plays the next mainline move, written as `san`. On an error the replay stops; later calls
    /// are ignored.
    pub fn play_san(&mut self, san: &SanPlus) {
        if !self.is_replaying() {
            return;
        }
        if self.ply >= MAX_PLIES {
            return self.fail(ErrorKind::TooLong, san.san.to_string());
        }
        let kind = match san.san {
            San::Null => Err(ErrorKind::NullMove),
            _ => crate::engine::san::to_move(&self.pos, &san.san).map_err(|e| match e {
                SanError::AmbiguousSan => ErrorKind::AmbiguousMove,
                SanError::IllegalSan => ErrorKind::IllegalMove,
            }),
        };
        match kind {
            Ok(m) => self.play(m),
            Err(kind) => self.fail(kind, san.san.to_string()),
        }
    }

    /// Notes the clock and evaluation of a comment after the last move played (the first of
    /// each kind counts); ignored before the first move and once the replay stopped.
    #[inline]
    pub fn note_comment(&mut self, clock_ms: Option<i64>, eval: Option<Eval>) {
        if self.is_replaying() && self.ply > 0 {
            self.annotations.note(self.ply, clock_ms, eval);
        }
    }

    /// Stops the replay at the current ply with an error (e.g. a token that is not a move);
    /// past [`MAX_PLIES`], any token in move position stops it as `TooLong`.
    pub fn fail(&mut self, kind: ErrorKind, token: String) {
        if self.is_replaying() {
            let kind = if self.ply >= MAX_PLIES { ErrorKind::TooLong } else { kind };
            self.error = Some(GameError { kind, ply: self.ply, token });
        }
    }

    /// Plays a legal move.
    #[inline]
    pub fn play(&mut self, m: Move) {
        for &(i, pm) in &self.pending {
            if pm == m
                && let Detail::ClaimByMove { played, .. } = &mut self.events[i].detail
            {
                *played = true;
                self.stats.claim_move_played();
            }
        }
        self.pending.clear();
        self.board_zobrist ^= identity::move_zobrist_change(m, self.pos.turn());
        self.pos.play_unchecked(m);
        if m.is_zeroing() {
            self.tracker.reset();
        }
        self.ply += 1;
        self.visit();
    }

    fn mode(&self) -> CastlingMode {
        self.mode.unwrap_or(CastlingMode::Standard)
    }

    /// Counts the current position and records its events. Inlined into [`Self::play`], its
    /// only caller per ply: a call's entry and exit cost 16 instructions a ply (callgrind).
    #[inline(always)]
    fn visit(&mut self) {
        let ply = self.ply;
        let turn = self.pos.turn();
        let halfmove_clock = self.pos.halfmoves();
        let fullmove = self.pos.fullmoves().get();
        let key = Key::new(&self.pos, self.board_zobrist);
        // The key is updated move by move; fuzzing and debug builds check it against a recount.
        debug_assert_eq!(
            key.zobrist(),
            self.pos.zobrist_hash::<shakmaty::zobrist::Zobrist64>(shakmaty::EnPassantMode::Legal).0
        );
        let counts = self.tracker.observe(key, ply);

        self.stats.last_counts = counts;
        self.stats.max_occurrence = self.stats.max_occurrence.max(counts.fide);
        // Most positions occur for the first time: everything else is out of line.
        if counts.board >= 2 {
            self.repeated(counts, ply, fullmove, turn, halfmove_clock);
        }
        if halfmove_clock >= 100 {
            self.fifty_moves(ply, halfmove_clock);
        }
        // A move leads to a position with the opponent to move; only if such a position already
        // occurred twice, and could follow this one, can a move reach a third occurrence.
        let by_move = self.tracker.any_twice(!turn)
            && self.tracker.may_follow_by_one_move(self.pos.board(), turn)
            && self.claims_by_move(ply, fullmove, turn, halfmove_clock);
        self.stats.last_claim_by_move = by_move;
        if counts.fide >= 3 || by_move {
            self.stats.opportunity(ply, counts.fide >= 3, by_move);
        }
    }

    /// Counts a position that occurred before (on the same board at least) and records its
    /// events.
    #[inline(never)]
    fn repeated(&mut self, counts: Counts, ply: u32, fullmove: u32, turn: Color, halfmove_clock: u32) {
        let st = &mut self.stats;
        for (i, n) in [2, 3, 5].into_iter().enumerate() {
            if counts.fide >= n && st.first_occurrence[i].is_none() {
                st.first_occurrence[i] = Some(ply);
            }
        }
        if counts.fide == 3 {
            st.positions_reaching_3 += 1;
            if st.first_threefold.is_none() {
                // The earliest plies are listed: the first is the first occurrence.
                let first = self.tracker.fide_earlier()[0];
                st.first_threefold = Some((ply - first, self.tracker.perpetual(first, ply)));
            }
        }

        let key = self.tracker.last_key().expect("just observed");
        let identity = Identity::of(key, self.mode());
        let event = |detail| Event {
            ply,
            fullmove,
            turn,
            halfmove_clock,
            identity: identity.clone(),
            clocks: Default::default(),
            detail,
        };
        if counts.fide >= 2 {
            self.events.push(event(Detail::Repetition {
                occurrence: counts.fide,
                earlier_plies: self.tracker.fide_earlier().to_vec(),
                claimable: counts.fide >= 3,
                automatic: counts.fide >= 5,
                cycle_plies: ply - self.tracker.previous(),
                perpetual: self.tracker.perpetual(self.tracker.previous(), ply),
            }));
        }
        if counts.board > counts.fide {
            let differs = match (counts.castling_differs, counts.ep_differs) {
                (true, true) => Differs::Both,
                (true, false) => Differs::Castling,
                _ => Differs::EnPassant,
            };
            self.stats.pseudo += 1;
            self.events.push(event(Detail::PseudoRepetition {
                differs,
                board_occurrence: counts.board,
                fide_occurrence: counts.fide,
                earlier_plies: self.tracker.board_earlier().to_vec(),
            }));
        }
        if counts.fide >= 2 && counts.fen < counts.fide {
            self.stats.hidden += 1;
            self.events.push(event(Detail::HiddenRepetition {
                fen_occurrence: counts.fen,
                fide_occurrence: counts.fide,
                earlier_plies: self.tracker.fide_earlier().to_vec(),
            }));
        }
    }

    /// Notes the first plies at which the fifty- and seventy-five-move counts were reached.
    #[cold]
    fn fifty_moves(&mut self, ply: u32, halfmove_clock: u32) {
        let st = &mut self.stats;
        if st.first_halfmove_100.is_none() {
            st.first_halfmove_100 = Some(ply);
        }
        if halfmove_clock >= 150 && st.first_halfmove_150.is_none() {
            st.first_halfmove_150 = Some(ply);
        }
    }

    /// Records a `claim_by_move` event for each legal move that would make a position occur for
    /// the third time or more. Returns whether there was one. The caller has checked that a
    /// position with the opponent to move occurred twice and may follow this one.
    #[inline(never)]
    fn claims_by_move(&mut self, ply: u32, fullmove: u32, turn: Color, halfmove_clock: u32) -> bool {
        let mode = self.mode();
        let mut found = false;
        for m in self.pos.legal_moves() {
            // A pawn move or capture reaches a position never seen before; other moves are
            // tried only when their pieces-and-side key matches a position seen twice.
            if m.is_zeroing() {
                continue;
            }
            let board_zobrist = self.board_zobrist ^ identity::move_zobrist_change(m, turn);
            if !self.tracker.repeated_board(board_zobrist) {
                continue;
            }
            let mut after = self.pos.clone();
            after.play_unchecked(m);
            let key = Key::new(&after, board_zobrist);
            let seen = self.tracker.lookup_repeated(&key, &mut self.scratch);
            if seen < 2 {
                continue;
            }
            found = true;
            self.pending.push((self.events.len(), m));
            self.events.push(Event {
                ply,
                fullmove,
                turn,
                halfmove_clock,
                identity: Identity::of(&key, mode),
                clocks: Default::default(),
                detail: Detail::ClaimByMove {
                    san: SanPlus::from_move(self.pos.clone(), m).to_string(),
                    uci: UciMove::from_move(m, mode).to_string(),
                    occurrence: seen + 1,
                    earlier_plies: self.scratch.clone(),
                    played: false,
                },
            });
        }
        found
    }

    /// Ends the game and returns what was found. `result` is the game's result.
    pub fn finish(&mut self, result: GameResult) -> Analysis {
        let mut events = std::mem::take(&mut self.events);
        // An event's clocks are known only after the move that follows it (the opponent's).
        for event in &mut events {
            event.clocks = self.annotations.at(event.ply);
        }
        self.pending.clear();
        let error = self.error.take();
        if self.mode.is_none() {
            return Analysis { error, summary: Summary::empty(), events };
        }
        let st = std::mem::take(&mut self.stats);
        let start_turn = self.start_turn.unwrap_or(Color::White);

        let final_status = final_status(&self.pos);
        let draw_reason = (result == GameResult::Draw && error.is_none())
            .then(|| self.draw_reason(final_status, st.last_counts.fide, st.last_claim_by_move));
        let summary =
            st.summary(self.ply, start_turn, error.is_some(), result, &self.annotations, final_status, draw_reason);
        Analysis { error, summary, events }
    }

    fn draw_reason(&self, status: FinalStatus, occurrence: u32, claim_by_move: bool) -> DrawReason {
        let clock = self.pos.halfmoves();
        if status == FinalStatus::Stalemate {
            DrawReason::Stalemate
        } else if status == FinalStatus::InsufficientMaterial {
            DrawReason::InsufficientMaterial
        } else if occurrence >= 5 {
            DrawReason::Fivefold
        } else if clock >= 150 && status != FinalStatus::Checkmate {
            DrawReason::SeventyFiveMoves
        } else if occurrence >= 3 {
            DrawReason::Threefold
        } else if claim_by_move {
            DrawReason::ThreefoldByMove
        } else if status != FinalStatus::Checkmate
            && (clock >= 100 || (clock == 99 && self.pos.legal_moves().iter().any(|m| !m.is_zeroing())))
        {
            // No claim after a checkmate: it ended the game (Art. 5.1.1, 9.6.2).
            DrawReason::FiftyMoves
        } else {
            DrawReason::Agreement
        }
    }
}

impl Stats {
    /// The game's summary, over `plies` replayed plies from `start_turn`'s move; `stopped`: the
    /// replay stopped at an error (a further move token followed the last ply).
    #[allow(clippy::too_many_arguments)] // one call per replay, each argument a different fact
    pub(crate) fn summary(
        self,
        plies: u32,
        start_turn: Color,
        stopped: bool,
        result: GameResult,
        annotations: &Annotations,
        final_status: FinalStatus,
        draw_reason: Option<DrawReason>,
    ) -> Summary {
        let st = self;
        let color_at = |ply: u32| if ply.is_multiple_of(2) { start_turn } else { !start_turn };
        // A claim is missed when the game went on past the position it is about (an erroneous
        // move token counts as going on), or when the game was decisive: on the board, the
        // position at its ply; by a declared move, the position that move makes if it was played
        // next, else the claimant's own. An opportunity is missed when each claim it had was.
        let went_on_after = |ply: u32| ply < plies || stopped;
        let decisive = result.is_decisive();
        let board_missed = |o: &Opportunity| o.on_board && (decisive || went_on_after(o.ply));
        let move_missed = |o: &Opportunity| o.by_move && (decisive || went_on_after(o.ply + u32::from(o.move_played)));
        let missed: Vec<u32> = st
            .opportunities
            .iter()
            .filter(|o| (!o.on_board || board_missed(o)) && (!o.by_move || move_missed(o)))
            .map(|o| o.ply)
            .collect();
        let count = |f: &dyn Fn(&Opportunity) -> bool| st.opportunities.iter().filter(|o| f(o)).count() as u32;

        // The claimant's clock and evaluation at `ply`, the evaluation from the claimant's side.
        let claimant = |ply: Option<u32>| {
            let at = ply.map(|p| (annotations.at(p), color_at(p)));
            let eval = at.and_then(|(a, color)| Some(a.eval()?.for_side(color)));
            (at.and_then(|(a, _)| a.clock_ms), eval.and_then(Eval::cp), eval.and_then(Eval::mate))
        };
        let first_claim = claimant(st.opportunities.first().map(|o| o.ply));
        let first_missed = claimant(missed.first().copied());
        Summary {
            plies,
            max_occurrence: st.max_occurrence,
            first_ply_occurrence_2: st.first_occurrence[0],
            first_ply_occurrence_3: st.first_occurrence[1],
            first_ply_occurrence_5: st.first_occurrence[2],
            positions_reaching_3: st.positions_reaching_3,
            claim_opportunities: st.opportunities.len() as u32,
            claim_opportunities_on_board: count(&|o| o.on_board),
            claim_opportunities_by_move: count(&|o| o.by_move),
            first_claim_ply: st.opportunities.first().map(|o| o.ply),
            first_claim_color: st.opportunities.first().map(|o| color_at(o.ply)),
            missed_claims: missed.len() as u32,
            missed_claims_on_board: count(&board_missed),
            missed_claims_by_move: count(&move_missed),
            first_missed_claim_ply: missed.first().copied(),
            claimant_score_after_first_missed: missed.first().and_then(|&p| result.score(color_at(p))),
            plies_after_fivefold: st.first_occurrence[2].map(|p| plies - p),
            pseudo_repetitions: st.pseudo,
            hidden_repetitions: st.hidden,
            first_ply_halfmove_100: st.first_halfmove_100,
            first_ply_halfmove_150: st.first_halfmove_150,
            final_status,
            draw_reason,
            first_threefold_span: st.first_threefold.map(|(span, _)| span),
            first_threefold_perpetual: st.first_threefold.and_then(|(_, perpetual)| perpetual),
            has_clocks: annotations.has_clocks(plies),
            has_evals: annotations.has_evals(),
            first_claim_clock_ms: first_claim.0,
            first_claim_eval_cp: first_claim.1,
            first_claim_eval_mate: first_claim.2,
            first_missed_claim_clock_ms: first_missed.0,
            first_missed_claim_eval_cp: first_missed.1,
            first_missed_claim_eval_mate: first_missed.2,
        }
    }
}

/// Checkmate, stalemate, insufficient material or none, as `shakmaty`'s `is_checkmate`,
/// `is_stalemate` and `is_insufficient_material` decide them in that order. A game mostly ends
/// with its king free to step somewhere, which shows that a legal move exists without building
/// the whole move list (a seventh of the work at the end of each game).
fn final_status(pos: &Chess) -> FinalStatus {
    if !king_can_step(pos) && pos.legal_moves().is_empty() {
        if pos.is_check() { FinalStatus::Checkmate } else { FinalStatus::Stalemate }
    } else if pos.is_insufficient_material() {
        FinalStatus::InsufficientMaterial
    } else {
        FinalStatus::None
    }
}

/// Whether the side to move has a legal king move (by the rule SAN resolution uses).
fn king_can_step(pos: &Chess) -> bool {
    let (board, turn) = (pos.board(), pos.turn());
    let Some(king) = board.king_of(turn) else { return false };
    (shakmaty::attacks::king_attacks(king) & !pos.us())
        .into_iter()
        .any(|to| crate::engine::san::king_may_step(board, turn, king, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut through a free king square gives shakmaty's final status in every position
    /// of pseudo-random games played to their end (mates and stalemates among them).
    #[test]
    fn final_status_is_shakmatys() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut seen = [0usize; 4];
        let mut stepped = 0;
        for _ in 0..400 {
            let mut pos = Chess::default();
            loop {
                let expected = if pos.is_checkmate() {
                    FinalStatus::Checkmate
                } else if pos.is_stalemate() {
                    FinalStatus::Stalemate
                } else if pos.is_insufficient_material() {
                    FinalStatus::InsufficientMaterial
                } else {
                    FinalStatus::None
                };
                assert_eq!(
                    final_status(&pos),
                    expected,
                    "{}",
                    shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                );
                seen[expected as usize] += 1;
                stepped += usize::from(king_can_step(&pos));
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.halfmoves() > 200 {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pos.play_unchecked(moves[(state >> 8) as usize % moves.len()]);
            }
        }
        assert!(seen.iter().all(|&n| n > 5) && stepped > 1000, "{seen:?} by status, {stepped} with a king step");
    }
}
