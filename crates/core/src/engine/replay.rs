//! Replays one game's mainline and turns it into events and a summary.
//!
//! [`Replay`] is a state machine fed by the PGN reader (or by tests): [`Replay::start`] with the
//! game's start, [`Replay::play`] per move, [`Replay::finish`] at the end. It owns the events,
//! the claims and the clocks, and is reused from game to game by one worker thread; the
//! position and the repetition window are its [`Rules`]' (standard chess, or a Lichess
//! variant).

use shakmaty::{
    Color, KnownOutcome, Outcome,
    san::{San, SanPlus},
};

use crate::engine::{
    clocks::{Annotations, Eval},
    ending::Ending,
    event::{Detail, Differs, Event, Perpetual},
    fingerprint::MovesHash,
    laws::{Automatic, Claimant, Fivefold, InForce},
    rules::Rules,
    standard::StandardRules,
    start::{ErrorKind, GameError},
    summary::{DrawReason, FinalStatus, Summary},
    tracker::Occurrences,
    variant::VariantRules,
};

/// Plies a game is replayed for at most. No game the Laws allow is longer (fivefold and the
/// 75-move rule end one within 8,848½ moves, 17,697 plies), so only a broken or made-up game
/// reaches it; it bounds what one game costs in time and memory (events are kept per game).
pub const MAX_PLIES: u32 = 20_000;

/// A game's result (shakmaty's `Outcome`) from its `Result` tag: `1-0`, `0-1`, `1/2-1/2`, or
/// unknown for `*` and anything else.
pub fn result_of_tag(tag: &str) -> Outcome {
    Outcome::from_ascii(tag.as_bytes()).unwrap_or(Outcome::Unknown)
}

/// The final score of `color` in a game of `result`, if known.
pub fn score(result: Outcome, color: Color) -> Option<f64> {
    Some(match result.known()?.winner() {
        None => 0.5,
        Some(winner) => f64::from(u8::from(winner == color)),
    })
}

/// Everything the engine found in one game.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub error: Option<GameError>,
    pub summary: Summary,
    pub events: Vec<Event>,
    /// The replayed moves, for the game's fingerprint (finished by the reader, which has the tags).
    pub moves: MovesHash,
    /// How the game ended, as the missed-claim rule asks.
    pub end: GameEnd,
}

impl Analysis {
    /// The analysis of a game stopped by `error` before anything was replayed.
    pub fn failed(error: GameError) -> Analysis {
        let end = GameEnd::new(0, true, Outcome::Unknown, 0);
        Analysis { error: Some(error), summary: Summary::empty(), events: Vec::new(), moves: MovesHash::default(), end }
    }
}

/// What the replay found in a game so far, folded into the [`Summary`] at the end.
#[derive(Default)]
pub(crate) struct Findings {
    pub(crate) max_occurrence: u32,
    pub(crate) first_occurrence: [Option<u32>; 3],
    /// The first fifth (or later) occurrence after five consecutive alternate moves by each
    /// player ([`Fivefold::Consecutive`]).
    pub(crate) first_consecutive_fivefold: Option<u32>,
    pub(crate) positions_reaching_3: u32,
    /// Plies at which the side to move could claim, in order.
    pub(crate) opportunities: Vec<Opportunity>,
    pub(crate) pseudo: u32,
    pub(crate) hidden: u32,
    pub(crate) first_halfmove_100: Option<u32>,
    pub(crate) first_halfmove_150: Option<u32>,
    /// Last ply's occurrences and whether a claim by move existed there.
    pub(crate) last_occurrences: Occurrences,
    pub(crate) last_claim_by_move: bool,
    /// Plies from the first occurrence of the first position to occur thrice to its third, and
    /// who gave check with every move between.
    pub(crate) first_threefold: Option<(u32, Option<Perpetual>)>,
    /// The ply of the position the last irreversible move reached (0: none was played).
    pub(crate) last_irreversible: u32,
    pub(crate) moves: MovesHash,
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

impl Findings {
    /// Notes a claim opportunity at `ply` (at least one of the two kinds).
    #[inline]
    fn opportunity(&mut self, ply: u32, on_board: bool, by_move: bool) {
        self.opportunities.push(Opportunity { ply, on_board, by_move, move_played: false });
    }

    /// Notes that the move played after the last opportunity was one of its declared moves.
    fn claim_move_played(&mut self) {
        if let Some(o) = self.opportunities.last_mut() {
            o.move_played = true;
        }
    }
}

/// Replays one game of standard chess (the default) or of a Lichess variant ([`VariantReplay`]):
/// the loop over its moves, with the position and window kept by the rules `R`.
///
/// [`crate::for_each_game`] drives it from PGN; by hand, a game's moves are played one by one and
/// the game finished under the rules in force:
///
/// ```
/// use shakmaty::san::SanPlus;
/// use threefold_core::{EventKind, InForce, Replay, Start, Variant, result_of_tag};
///
/// let mut replay = Replay::new();
/// replay.start(Start::new(&Variant::from_tag(None), None)?, None);
/// for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"] {
///     replay.play_san(&san.parse::<SanPlus>()?);
/// }
/// let analysis = replay.finish(result_of_tag("1/2-1/2"), None, InForce::FIDE);
/// // Black could claim before 4...Ng8 by declaring it: the start position would stand a third time.
/// let claim = analysis.events.iter().find(|e| e.kind() == EventKind::ClaimByMove).expect("a claim");
/// assert_eq!(claim.ply, 7);
/// assert_eq!(analysis.summary.claim_opportunities_by_move, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
// `Rules` lives in a module private to the crate: no other rules can be plugged in from outside.
pub struct Replay<R: Rules = StandardRules> {
    rules: R,
    /// A game started and its start could be set up.
    started: bool,
    start_turn: Color,
    ply: u32,
    events: Vec<Event>,
    /// Claim-by-move events of the current ply, with their moves, to mark the one played.
    pending: Vec<(usize, R::Move)>,
    findings: Findings,
    error: Option<GameError>,
    /// The clocks and evaluations of the moves' comments.
    annotations: Annotations,
}

/// Replays one game of a Lichess variant.
pub type VariantReplay = Replay<VariantRules>;

impl<R: Rules> Default for Replay<R> {
    fn default() -> Replay<R> {
        Replay {
            rules: R::default(),
            started: false,
            start_turn: Color::White,
            ply: 0,
            events: Vec::new(),
            pending: Vec::new(),
            findings: Findings::default(),
            error: None,
            annotations: Annotations::default(),
        }
    }
}

impl Replay {
    pub fn new() -> Replay {
        Replay::default()
    }
}

impl<R: Rules> Replay<R> {
    fn reset(&mut self, base_seconds: Option<u32>) {
        self.annotations.reset(base_seconds);
        self.events.clear();
        self.pending.clear();
        self.findings = Findings::default();
        self.error = None;
        self.ply = 0;
    }

    /// Starts a game from `start` and records its first position (ply 0). `base_seconds` is the
    /// clocks' start (the `TimeControl` tag's base), if known.
    pub fn start(&mut self, start: R::Start, base_seconds: Option<u32>) {
        self.reset(base_seconds);
        self.rules.start(start);
        self.started = true;
        self.start_turn = self.rules.turn();
        self.visit();
    }

    /// Starts a game that cannot be replayed (its FEN is impossible).
    pub fn start_failed(&mut self, error: GameError) {
        self.reset(None);
        self.started = false;
        self.error = Some(error);
    }

    /// Whether moves are still being replayed (no error so far).
    #[inline]
    pub fn is_replaying(&self) -> bool {
        self.started && self.error.is_none()
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
        let found = match san.san {
            San::Null => Err(ErrorKind::NullMove),
            _ => self.rules.to_move(&san.san),
        };
        match found {
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
    pub fn play(&mut self, m: R::Move) {
        for &(i, pm) in &self.pending {
            if pm == m
                && let Detail::ClaimByMove { played, .. } = &mut self.events[i].detail
            {
                *played = true;
                self.findings.claim_move_played();
            }
        }
        self.pending.clear();
        let played = self.rules.play(m);
        self.findings.moves.push(played.board_change);
        self.ply += 1;
        if played.irreversible {
            self.findings.last_irreversible = self.ply;
        }
        self.visit();
    }

    /// Counts the current position and records its events. Inlined into [`Self::play`], its
    /// only caller per ply: a call's entry and exit cost 16 instructions a ply (callgrind).
    #[inline(always)]
    fn visit(&mut self) {
        let ply = self.ply;
        let turn = self.rules.turn();
        let halfmove_clock = self.rules.halfmoves();
        let fullmove = self.rules.fullmoves();
        let seen = self.rules.observe(ply);

        self.findings.last_occurrences = seen;
        self.findings.max_occurrence = self.findings.max_occurrence.max(seen.fide);
        // Most positions occur for the first time: everything else is out of line.
        if seen.board >= 2 {
            self.repeated(seen, ply, fullmove, turn, halfmove_clock);
        }
        if halfmove_clock >= 100 && self.rules.counts_halfmoves() {
            self.fifty_moves(ply, halfmove_clock);
        }
        // A move leads to a position with the opponent to move; only if such a position already
        // occurred twice, and could follow this one, can a move reach a third occurrence.
        let by_move = self.rules.may_claim_by_move() && self.claims_by_move(ply, fullmove, turn, halfmove_clock);
        self.findings.last_claim_by_move = by_move;
        if seen.fide >= 3 || by_move {
            self.findings.opportunity(ply, seen.fide >= 3, by_move);
        }
    }

    /// Counts a position that occurred before (on the same board at least) and records its
    /// events.
    #[inline(never)]
    fn repeated(&mut self, seen: Occurrences, ply: u32, fullmove: u32, turn: Color, halfmove_clock: u32) {
        let found = &mut self.findings;
        for (i, n) in [2, 3, 5].into_iter().enumerate() {
            if seen.fide >= n && found.first_occurrence[i].is_none() {
                found.first_occurrence[i] = Some(ply);
            }
        }
        if seen.fide >= 5
            && found.first_consecutive_fivefold.is_none()
            && Fivefold::Consecutive.ends(ply, self.rules.fide_earlier())
        {
            found.first_consecutive_fivefold = Some(ply);
        }
        if seen.fide == 3 {
            found.positions_reaching_3 += 1;
            if found.first_threefold.is_none() {
                // The earliest plies are listed: the first is the first occurrence.
                let first = self.rules.fide_earlier()[0];
                found.first_threefold = Some((ply - first, self.rules.perpetual(first, ply)));
            }
        }

        let repetition = (seen.fide >= 2).then(|| {
            let previous = self.rules.previous();
            Detail::Repetition {
                occurrence: seen.fide,
                earlier_plies: self.rules.fide_earlier().to_vec(),
                claimable: seen.fide >= 3,
                automatic: seen.fide >= 5,
                cycle_plies: ply - previous,
                perpetual: self.rules.perpetual(previous, ply),
            }
        });
        let pseudo = (seen.board > seen.fide).then(|| {
            let differs = match (seen.castling_differs, seen.ep_differs) {
                (true, true) => Differs::Both,
                (true, false) => Differs::Castling,
                _ => Differs::EnPassant,
            };
            self.findings.pseudo += 1;
            Detail::PseudoRepetition {
                differs,
                board_occurrence: seen.board,
                fide_occurrence: seen.fide,
                earlier_plies: self.rules.board_earlier().to_vec(),
            }
        });
        let hidden = (seen.fide >= 2 && seen.fen < seen.fide).then(|| {
            self.findings.hidden += 1;
            Detail::HiddenRepetition {
                fen_occurrence: seen.fen,
                fide_occurrence: seen.fide,
                earlier_plies: self.rules.fide_earlier().to_vec(),
            }
        });
        // The position's identity goes to its last event and is copied for the others: mostly
        // one event, so one text allocated, not two.
        let identity = self.rules.identity();
        let event = |identity, detail| Event {
            ply,
            fullmove,
            turn,
            halfmove_clock,
            identity,
            clocks: Default::default(),
            detail,
        };
        let mut details = [repetition, pseudo, hidden].into_iter().flatten().peekable();
        while let Some(detail) = details.next() {
            if details.peek().is_none() {
                self.events.push(event(identity, detail));
                break;
            }
            self.events.push(event(identity.clone(), detail));
        }
    }

    /// Notes the first plies at which the fifty- and seventy-five-move counts were reached.
    #[cold]
    fn fifty_moves(&mut self, ply: u32, halfmove_clock: u32) {
        let found = &mut self.findings;
        if found.first_halfmove_100.is_none() {
            found.first_halfmove_100 = Some(ply);
        }
        if halfmove_clock >= 150 && found.first_halfmove_150.is_none() {
            found.first_halfmove_150 = Some(ply);
        }
    }

    /// Records a `claim_by_move` event for each legal move that would make a position occur for
    /// the third time or more. Returns whether there was one.
    #[inline(never)]
    fn claims_by_move(&mut self, ply: u32, fullmove: u32, turn: Color, halfmove_clock: u32) -> bool {
        let (events, pending) = (&mut self.events, &mut self.pending);
        let before = events.len();
        self.rules.claims_by_move(|claim| {
            pending.push((events.len(), claim.mv));
            events.push(Event {
                ply,
                fullmove,
                turn,
                halfmove_clock,
                identity: claim.identity,
                clocks: Default::default(),
                detail: Detail::ClaimByMove {
                    san: claim.san,
                    uci: claim.uci,
                    occurrence: claim.occurrence,
                    earlier_plies: claim.earlier_plies,
                    played: false,
                },
            });
        });
        events.len() > before
    }

    /// Ends the game and returns what was found. `result` is the game's result, `ending` how its
    /// tags say it ended, `laws` the rules its claims and automatic endings are read by.
    pub fn finish(&mut self, result: Outcome, ending: Option<Ending>, laws: InForce) -> Analysis {
        let mut events = std::mem::take(&mut self.events);
        // An event's clocks are known only after the move that follows it (the opponent's).
        for event in &mut events {
            event.clocks = self.annotations.at(event.ply);
        }
        self.pending.clear();
        let error = self.error.take();
        if !self.started {
            let end = GameEnd::new(0, error.is_some(), result, 0);
            return Analysis { error, summary: Summary::empty(), events, moves: MovesHash::default(), end };
        }
        let mut found = std::mem::take(&mut self.findings);
        found.read_by(laws);
        let moves = found.moves;
        let final_status = self.rules.final_status();
        let draw_reason = if result == Outcome::Known(KnownOutcome::Draw) && error.is_none() {
            let occurrence = found.last_occurrences.fide;
            let automatic = Automatic {
                fivefold: match laws.fivefold {
                    Fivefold::Never => false,
                    Fivefold::Consecutive => found.first_consecutive_fivefold.is_some(),
                    Fivefold::Any => true,
                },
                seventy_five_moves: laws.seventy_five_moves,
            };
            DrawReason::of_draw(self.ply, ending, occurrence, automatic.fivefold, || {
                self.rules.draw_reason(final_status, occurrence, found.last_claim_by_move, automatic)
            })
        } else {
            None
        };
        let end = GameEnd::new(self.ply, error.is_some(), result, found.last_irreversible);
        let summary = found.summary(&end, self.start_turn, result, &self.annotations, final_status, draw_reason, laws);
        Analysis { error, summary, events, moves, end }
    }
}

/// How a game ended, as far as the missed-claim rule asks (`Summary::missed_claims`). A claim
/// opportunity is *claimed* when the game was not decisive and ended at the position one of its
/// claims was about (its own for a claim on the board; for a claim by a declared move, the one
/// that move makes when it was played next, else its own). An opportunity not claimed was
/// *missed* when play then left the repetition: an irreversible move followed (an erroneous
/// move token counts as one: what came after it is unknown), or the game did not end drawn;
/// else it was *passed over*: the game ended drawn in the same repetition.
#[derive(Clone, Debug, PartialEq)]
pub struct GameEnd {
    /// Plies replayed.
    pub plies: u32,
    /// A further (bad) move token followed the last replayed ply.
    pub stopped: bool,
    pub decisive: bool,
    pub drawn: bool,
    /// The ply of the position the last irreversible move reached (0: none).
    pub last_irreversible: u32,
}

/// What became of one claim opportunity.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    Claimed,
    PassedOver,
    Missed,
}

impl GameEnd {
    pub fn new(plies: u32, stopped: bool, result: Outcome, last_irreversible: u32) -> GameEnd {
        GameEnd {
            plies,
            stopped,
            decisive: result.winner().is_some(),
            drawn: result == Outcome::Known(KnownOutcome::Draw),
            last_irreversible,
        }
    }

    /// Whether the game went on after the position at `ply`.
    pub fn went_on_after(&self, ply: u32) -> bool {
        ply < self.plies || self.stopped
    }

    /// What became of an opportunity at `ply` offering a claim `on_board`, `by_move`, whose
    /// declared move was `played` next.
    pub fn fate(&self, ply: u32, on_board: bool, by_move: bool, played: bool) -> Fate {
        let stands = |at: u32| !self.decisive && !self.went_on_after(at);
        if (on_board && stands(ply)) || (by_move && stands(ply + u32::from(played))) {
            Fate::Claimed
        } else if self.stopped || !self.drawn || self.last_irreversible > ply {
            Fate::Missed
        } else {
            Fate::PassedOver
        }
    }
}

impl Findings {
    /// Keeps the claims `laws` allowed: without a claim by a declared move, an opportunity is
    /// one only where the position stands on the board.
    fn read_by(&mut self, laws: InForce) {
        if !laws.claimant.declared_move() {
            self.opportunities.retain_mut(|o| {
                (o.by_move, o.move_played) = (false, false);
                o.on_board
            });
            self.last_claim_by_move = false;
        }
    }

    /// The game's summary, from `start_turn`'s move to `end`.
    #[allow(clippy::too_many_arguments)]
    fn summary(
        self,
        end: &GameEnd,
        start_turn: Color,
        result: Outcome,
        annotations: &Annotations,
        final_status: FinalStatus,
        draw_reason: Option<DrawReason>,
        laws: InForce,
    ) -> Summary {
        let st = self;
        let plies = end.plies;
        let color_at = |ply: u32| if ply.is_multiple_of(2) { start_turn } else { !start_turn };
        let fate = |o: &Opportunity| end.fate(o.ply, o.on_board, o.by_move, o.move_played);
        let missed_at = |o: &&Opportunity| fate(o) == Fate::Missed;
        let missed: Vec<u32> = st.opportunities.iter().filter(missed_at).map(|o| o.ply).collect();
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
            passed_over_claims: count(&|o| fate(o) == Fate::PassedOver),
            missed_claims_on_board: count(&|o| o.on_board && missed_at(&o)),
            missed_claims_by_move: count(&|o| o.by_move && missed_at(&o)),
            first_missed_claim_ply: missed.first().copied(),
            // Only where the side to move alone could claim is the score a claimant's.
            claimant_score_after_first_missed: missed
                .first()
                .filter(|_| laws.claimant == Claimant::SideToMove)
                .and_then(|&p| score(result, color_at(p))),
            plies_after_fivefold: st.first_occurrence[2].map(|p| plies - p),
            plies_after_automatic_fivefold: match laws.fivefold {
                Fivefold::Never => None,
                Fivefold::Consecutive => st.first_consecutive_fivefold,
                Fivefold::Any => st.first_occurrence[2],
            }
            .map(|p| plies - p),
            plies_after_automatic_75_moves: st
                .first_halfmove_150
                .filter(|_| laws.seventy_five_moves)
                .map(|p| plies - p),
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
            fingerprint: 0,
        }
    }
}
