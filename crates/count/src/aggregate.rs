//! Computes a [`Report`] in one streaming pass over each part of the dataset: a part's games and
//! their events are read side by side (both are sorted by game key), so each game meets its
//! events, passes the filter or not, and adds to the figures of all games and of its group.
//! Memory: a batch of each table, one game's events, the counters of each group and month.

use std::collections::HashMap;

use anyhow::{Result, bail};
use arrow_array::{
    BooleanArray, Date32Array, Float64Array, Int16Array, Int32Array, Int64Array, RecordBatch, StringArray, UInt32Array,
    UInt64Array,
    types::{Date32Type, Float64Type, Int16Type, Int32Type, Int64Type, UInt32Type, UInt64Type},
};
use rayon::prelude::*;

use crate::{
    dataset::schema::{
        col,
        summary::{self, Game},
    },
    engine::{
        event::{Differs, EventKind, Perpetual},
        laws::Claimant,
        summary::DrawReason,
        vocabulary::TimeClass,
    },
    pgn::{
        GameStatus,
        venue::{Rulebook, Venue},
    },
    read::key::GameKey,
};

use super::{
    copies::{self, Dedup},
    filter::{self, Filter, GameFacts},
    group::{By, GroupFacts, Sort},
    model::{Copies, Example, GroupStats, LeftOut, Report, band_from},
    piece::{Piece, units},
    sketch::Sketch,
    tables::{self, get, get_bool, get_str},
    tally::{GameRecord, Tally},
};

/// Example games per case in the report: enough to look at, short enough to read.
pub(crate) const EXAMPLES_PER_CASE: usize = 5;

/// Which game: sorts as the queries' `ORDER BY source, frame_offset, byte_offset`.
pub(crate) type DatasetGameKey = (String, u64, u64);

/// The `limit` smallest items seen so far.
#[derive(Clone)]
pub(crate) struct Smallest<T: Ord> {
    limit: usize,
    pub items: Vec<T>,
}

impl<T: Ord> Smallest<T> {
    fn new(limit: usize) -> Self {
        Smallest { limit, items: Vec::new() }
    }

    pub(crate) fn wants(&self, item: &T) -> bool {
        self.items.len() < self.limit || self.items.last().is_some_and(|last| item < last)
    }

    pub(crate) fn offer(&mut self, item: T) {
        if self.wants(&item) {
            let at = self.items.partition_point(|x| *x < item);
            self.items.insert(at, item);
            self.items.truncate(self.limit);
        }
    }
}

/// Example candidates rank flagged games first (`false` sorts before `true`, hence "not flagged").
pub(crate) type Candidate = (bool, DatasetGameKey, Example);

/// What a game's events add: claim opportunities by kind and edge-case events.
#[derive(Default, Clone, Copy)]
pub(super) struct Played {
    on_board: u64,
    by_move_only: u64,
    by_move_only_played: u64,
    castling_events: u64,
    ep_events: u64,
    hidden_events: u64,
}

/// One game's events.
#[derive(Default)]
pub(super) struct GameEvents {
    /// ply -> (a claimable repetition stands there, a claimable move was played there); a fast
    /// hasher (rustc's): the default SipHash cost more than the rest of counting a game.
    claim_plies: HashMap<u32, (bool, bool), rustc_hash::FxBuildHasher>,
    castling_events: u64,
    castling_flag: bool,
    castling_first_ply: Option<u32>,
    castling_max_board: u32,
    ep_events: u64,
    hidden_events: u64,
    ep_flag: bool,
    ep_first_ply: Option<u32>,
}

impl GameEvents {
    /// Empties it for the next game, field by field (a new map per game cost a third as much as
    /// counting the game).
    pub(super) fn clear(&mut self) {
        let GameEvents {
            claim_plies,
            castling_events,
            castling_flag,
            castling_first_ply,
            castling_max_board,
            ep_events,
            hidden_events,
            ep_flag,
            ep_first_ply,
        } = self;
        claim_plies.clear();
        (*castling_events, *castling_flag, *castling_first_ply, *castling_max_board) = (0, false, None, 0);
        (*ep_events, *hidden_events, *ep_flag, *ep_first_ply) = (0, 0, false, None);
    }

    pub(super) fn add(&mut self, e: &EventColumns, i: usize) {
        let ply = e.ply.value(i);
        // The occurrence counts, read only by the kinds that use them (most events are repetitions).
        let board = || get(&e.board, i).unwrap_or(0);
        let fide = || get(&e.fide, i).unwrap_or(0);
        let fen = || get(&e.fen, i).unwrap_or(0);
        let min = |first: Option<u32>| Some(first.map_or(ply, |p| p.min(ply)));
        match EventKind::parse(e.kind.value(i)) {
            Some(EventKind::Repetition) if get_bool(&e.claimable, i) == Some(true) => {
                self.claim_plies.entry(ply).or_default().0 = true;
            }
            Some(EventKind::ClaimByMove) => {
                self.claim_plies.entry(ply).or_default().1 |= get_bool(&e.played, i) == Some(true);
            }
            Some(EventKind::PseudoRepetition) => {
                let differs = get_str(&e.differs, i).and_then(Differs::parse);
                let board = board();
                let false_claim = board >= 3 && fide() < 3;
                if matches!(differs, Some(Differs::Castling | Differs::Both)) {
                    self.castling_events += 1;
                    self.castling_flag |= false_claim;
                    self.castling_first_ply = min(self.castling_first_ply);
                    self.castling_max_board = self.castling_max_board.max(board);
                }
                if matches!(differs, Some(Differs::EnPassant | Differs::Both)) {
                    self.ep_events += 1;
                    self.ep_flag |= false_claim;
                    self.ep_first_ply = min(self.ep_first_ply);
                }
            }
            Some(EventKind::HiddenRepetition) => {
                self.hidden_events += 1;
                self.ep_flag |= fide() >= 3 && fen() < 3;
                self.ep_first_ply = min(self.ep_first_ply);
            }
            _ => {}
        }
    }

    /// What the game's events add to the counts.
    pub(super) fn played(&self) -> Played {
        if self.claim_plies.is_empty() && self.castling_events + self.ep_events + self.hidden_events == 0 {
            // Most games: no event counts.
            return Played::default();
        }
        let on_board = self.claim_plies.values().filter(|(board, _)| *board).count() as u64;
        Played {
            on_board,
            by_move_only: self.claim_plies.len() as u64 - on_board,
            by_move_only_played: self.claim_plies.values().filter(|(board, played)| !board && *played).count() as u64,
            castling_events: self.castling_events,
            ep_events: self.ep_events,
            hidden_events: self.hidden_events,
        }
    }
}

const EVENT_COLUMNS: [&str; 11] = [
    col::SOURCE,
    col::FRAME_OFFSET,
    col::BYTE_OFFSET,
    col::PLY,
    col::KIND,
    col::CLAIMABLE,
    col::PLAYED,
    col::DIFFERS,
    col::BOARD_OCCURRENCE,
    col::FIDE_OCCURRENCE,
    col::FEN_OCCURRENCE,
];

/// The `events` columns of one batch (the arrays share the batch's buffers).
pub(super) struct EventColumns {
    frame_offset: UInt64Array,
    byte_offset: UInt64Array,
    ply: UInt32Array,
    kind: StringArray,
    claimable: BooleanArray,
    played: BooleanArray,
    differs: StringArray,
    board: UInt32Array,
    fide: UInt32Array,
    fen: UInt32Array,
    rows: usize,
}

impl EventColumns {
    fn of(b: &RecordBatch) -> Result<EventColumns> {
        let u32s = |name| tables::numbers::<UInt32Type>(b, name).cloned();
        Ok(EventColumns {
            frame_offset: tables::numbers::<UInt64Type>(b, col::FRAME_OFFSET)?.clone(),
            byte_offset: tables::numbers::<UInt64Type>(b, col::BYTE_OFFSET)?.clone(),
            ply: u32s(col::PLY)?,
            kind: tables::strings(b, col::KIND)?.clone(),
            claimable: tables::bools(b, col::CLAIMABLE)?.clone(),
            played: tables::bools(b, col::PLAYED)?.clone(),
            differs: tables::strings(b, col::DIFFERS)?.clone(),
            board: u32s(col::BOARD_OCCURRENCE)?,
            fide: u32s(col::FIDE_OCCURRENCE)?,
            fen: u32s(col::FEN_OCCURRENCE)?,
            rows: b.num_rows(),
        })
    }

    fn key(&self, i: usize) -> (u64, u64) {
        (self.frame_offset.value(i), self.byte_offset.value(i))
    }
}

/// The events of a part, read in step with its games.
pub(super) struct EventCursor<I> {
    pub(super) batches: I,
    pub(super) current: Option<EventColumns>,
    pub(super) row: usize,
    /// Events of games not in the games table are skipped and counted (a source whose commit a
    /// killed run left unfinished), not an error.
    pub(super) lenient: bool,
    pub(super) unmatched: u64,
}

impl<I: Iterator<Item = Result<RecordBatch>>> EventCursor<I> {
    /// The key of the next event, loading batches as needed.
    pub(super) fn peek(&mut self) -> Result<Option<(u64, u64)>> {
        loop {
            if let Some(c) = &self.current
                && self.row < c.rows
            {
                return Ok(Some(c.key(self.row)));
            }
            match self.batches.next() {
                Some(batch) => {
                    self.current = Some(EventColumns::of(&batch?)?);
                    self.row = 0;
                }
                None => return Ok(None),
            }
        }
    }

    /// Passes over the events before the game at `key` (all that are left with `None`): those
    /// of games in a row group that was not read.
    fn pass_over(&mut self, key: Option<(u64, u64)>) -> Result<()> {
        while let Some(next) = self.peek()? {
            if key.is_some_and(|k| next >= k) {
                break;
            }
            self.row += 1;
        }
        Ok(())
    }

    /// Hands every event of the game at `key` to `f`; an event of an earlier game (one not in the
    /// games file) is an error, not something to skip.
    pub(super) fn take(&mut self, key: (u64, u64), mut f: impl FnMut(&EventColumns, usize)) -> Result<()> {
        while let Some(next) = self.peek()? {
            if next > key {
                break;
            }
            if next < key {
                if !self.lenient {
                    bail!(
                        "an event of the game at {}:{} that is not in the games table, or out of order",
                        next.0,
                        next.1
                    );
                }
                self.unmatched += 1;
            } else if let Some(c) = &self.current {
                f(c, self.row);
            }
            self.row += 1;
        }
        Ok(())
    }
}

/// The tags an example shows, in [`GameColumns::tags`] order.
const EXAMPLE_TAGS: [&str; 7] = ["Event", "Site", "White", "Black", "Result", "Date", "Round"];

const GAME_COLUMNS: [&str; 42] = [
    col::SOURCE,
    col::LICHESS_ID,
    col::VENUE,
    col::FRAME_OFFSET,
    col::BYTE_OFFSET,
    "Event",
    "Site",
    "White",
    "Black",
    "Result",
    "Date",
    "UTCDate",
    "Round",
    "WhiteElo",
    "BlackElo",
    col::TIME_CLASS,
    col::STATUS,
    col::REPLAY_VARIANT,
    col::PLIES,
    col::MAX_OCCURRENCE,
    col::FIRST_PLY_OCCURRENCE_3,
    col::CLAIM_OPPORTUNITIES,
    col::MISSED_CLAIMS,
    col::PASSED_OVER_CLAIMS,
    col::CLAIM_OPPORTUNITIES_ON_BOARD,
    col::CLAIM_OPPORTUNITIES_BY_MOVE,
    col::MISSED_CLAIMS_ON_BOARD,
    col::MISSED_CLAIMS_BY_MOVE,
    col::CLAIMANT_SCORE_AFTER_FIRST_MISSED,
    col::PLIES_AFTER_FIVEFOLD,
    col::FIRST_PLY_HALFMOVE_150,
    col::PLIES_AFTER_AUTOMATIC_FIVEFOLD,
    col::PLIES_AFTER_AUTOMATIC_75_MOVES,
    col::DRAW_REASON,
    col::FIRST_THREEFOLD_PERPETUAL,
    col::HAS_CLOCKS,
    col::HAS_EVALS,
    col::FIRST_CLAIM_PLY,
    col::FIRST_MISSED_CLAIM_PLY,
    col::FIRST_CLAIM_CLOCK_MS,
    col::FIRST_MISSED_CLAIM_EVAL_CP,
    col::FIRST_MISSED_CLAIM_EVAL_MATE,
];

/// The `games` columns the report reads, from one batch.
pub(super) struct GameColumns<'a> {
    pub(super) source: &'a StringArray,
    lichess_id: &'a StringArray,
    /// `None` in games written before the column was.
    venue: Option<&'a StringArray>,
    /// `None` in games written before the column was (their venue's rules then say).
    claimant: Option<&'a StringArray>,
    pub(super) status: &'a StringArray,
    pub(super) variant: &'a StringArray,
    pub(super) time_class: &'a StringArray,
    draw_reason: &'a StringArray,
    perpetual: &'a StringArray,
    tags: [&'a StringArray; 7],
    frame_offset: &'a UInt64Array,
    byte_offset: &'a UInt64Array,
    utc_date: &'a Date32Array,
    white_elo: &'a Int16Array,
    black_elo: &'a Int16Array,
    score: &'a Float64Array,
    plies: &'a UInt32Array,
    max_occurrence: &'a UInt32Array,
    first3: &'a UInt32Array,
    opportunities: &'a UInt32Array,
    missed: &'a UInt32Array,
    /// `None` in games written before the column was.
    passed_over: Option<&'a UInt32Array>,
    /// Opportunities and misses on the board, then by a declared move.
    kinds: [(&'a UInt32Array, &'a UInt32Array); 2],
    after5: &'a UInt32Array,
    first150: &'a UInt32Array,
    /// Plies after an automatic fivefold, and 75-move rule, in force; `None` in games written
    /// before the columns were (which count every fivefold and 75 moves).
    automatic: Option<(&'a UInt32Array, &'a UInt32Array)>,
    has_clocks: &'a BooleanArray,
    has_evals: &'a BooleanArray,
    first_claim: &'a UInt32Array,
    first_missed: &'a UInt32Array,
    first_claim_clock: &'a Int64Array,
    first_missed_cp: &'a Int64Array,
    first_missed_mate: &'a Int32Array,
    /// `None` in games written before the column was.
    fingerprint: Option<&'a UInt64Array>,
}

impl<'a> GameColumns<'a> {
    pub(super) fn of(batch: &'a RecordBatch) -> Result<GameColumns<'a>> {
        let s = |name| tables::strings(batch, name);
        let u32s = |name| tables::numbers::<UInt32Type>(batch, name);
        let mut tags = Vec::new();
        for name in EXAMPLE_TAGS {
            tags.push(s(name)?);
        }
        Ok(GameColumns {
            source: s(col::SOURCE)?,
            lichess_id: s(col::LICHESS_ID)?,
            venue: match batch.column_by_name(col::VENUE) {
                Some(_) => Some(s(col::VENUE)?),
                None => None,
            },
            claimant: match batch.column_by_name(col::CLAIMANT) {
                Some(_) => Some(s(col::CLAIMANT)?),
                None => None,
            },
            status: s(col::STATUS)?,
            variant: s(col::REPLAY_VARIANT)?,
            time_class: s(col::TIME_CLASS)?,
            draw_reason: s(col::DRAW_REASON)?,
            perpetual: s(col::FIRST_THREEFOLD_PERPETUAL)?,
            tags: tags.try_into().map_err(|_| anyhow::anyhow!("internal error: tag columns"))?,
            frame_offset: tables::numbers::<UInt64Type>(batch, col::FRAME_OFFSET)?,
            byte_offset: tables::numbers::<UInt64Type>(batch, col::BYTE_OFFSET)?,
            utc_date: tables::numbers::<Date32Type>(batch, "UTCDate")?,
            white_elo: tables::numbers::<Int16Type>(batch, "WhiteElo")?,
            black_elo: tables::numbers::<Int16Type>(batch, "BlackElo")?,
            score: tables::numbers::<Float64Type>(batch, col::CLAIMANT_SCORE_AFTER_FIRST_MISSED)?,
            plies: u32s(col::PLIES)?,
            max_occurrence: u32s(col::MAX_OCCURRENCE)?,
            first3: u32s(col::FIRST_PLY_OCCURRENCE_3)?,
            opportunities: u32s(col::CLAIM_OPPORTUNITIES)?,
            missed: u32s(col::MISSED_CLAIMS)?,
            passed_over: match batch.column_by_name(col::PASSED_OVER_CLAIMS) {
                Some(_) => Some(u32s(col::PASSED_OVER_CLAIMS)?),
                None => None,
            },
            kinds: [
                (u32s(col::CLAIM_OPPORTUNITIES_ON_BOARD)?, u32s(col::MISSED_CLAIMS_ON_BOARD)?),
                (u32s(col::CLAIM_OPPORTUNITIES_BY_MOVE)?, u32s(col::MISSED_CLAIMS_BY_MOVE)?),
            ],
            after5: u32s(col::PLIES_AFTER_FIVEFOLD)?,
            first150: u32s(col::FIRST_PLY_HALFMOVE_150)?,
            automatic: match batch.column_by_name(col::PLIES_AFTER_AUTOMATIC_75_MOVES) {
                Some(_) => {
                    Some((u32s(col::PLIES_AFTER_AUTOMATIC_FIVEFOLD)?, u32s(col::PLIES_AFTER_AUTOMATIC_75_MOVES)?))
                }
                None => None,
            },
            has_clocks: tables::bools(batch, col::HAS_CLOCKS)?,
            has_evals: tables::bools(batch, col::HAS_EVALS)?,
            first_claim: u32s(col::FIRST_CLAIM_PLY)?,
            first_missed: u32s(col::FIRST_MISSED_CLAIM_PLY)?,
            first_claim_clock: tables::numbers::<Int64Type>(batch, col::FIRST_CLAIM_CLOCK_MS)?,
            first_missed_cp: tables::numbers::<Int64Type>(batch, col::FIRST_MISSED_CLAIM_EVAL_CP)?,
            first_missed_mate: tables::numbers::<Int32Type>(batch, col::FIRST_MISSED_CLAIM_EVAL_MATE)?,
            fingerprint: match batch.column_by_name(col::FINGERPRINT) {
                Some(_) => Some(tables::numbers::<UInt64Type>(batch, col::FINGERPRINT)?),
                None => None,
            },
        })
    }

    /// The game's fingerprint: `None` for a skipped game, or in games without the column.
    #[inline]
    pub(super) fn fingerprint(&self, i: usize) -> Option<u64> {
        self.fingerprint.and_then(|f| get(f, i))
    }

    pub(super) fn key(&self, i: usize) -> (u64, u64) {
        (self.frame_offset.value(i), self.byte_offset.value(i))
    }

    /// The venue of the game in row `i` (Lichess takes no claim by a declared move; an OTB game
    /// relayed on a Lichess broadcast is `otb`). Games written before the venue column are
    /// Lichess's (a lichess.org `Site`, or a source named `lichess…`) or of unknown venue.
    pub(super) fn venue(&self, i: usize) -> Venue {
        filter::venue_at(self.venue, self.lichess_id, self.source, i)
    }

    /// Who could claim a threefold in the game in row `i` of `venue` (`games.claimant`); in games
    /// written before the column, the venue's rules, whatever the date.
    pub(super) fn claimant(&self, i: usize, venue: Venue) -> Claimant {
        match self.claimant.and_then(|c| get_str(c, i)).and_then(Claimant::parse) {
            Some(claimant) => claimant,
            None => Rulebook::of(venue, None).in_force(None).claimant,
        }
    }

    /// Whether the game in row `i` was replayed and has no moves.
    pub(super) fn no_moves(&self, i: usize) -> bool {
        self.status.value(i) == GameStatus::Ok.as_str() && get(self.plies, i) == Some(0)
    }

    /// What the filters, the groups and the summary's key take from row `i`: its source, date
    /// (as the filters take it), time class, venue and lower Elo, each read once.
    pub(super) fn facts(&self, i: usize) -> GameFacts<'a> {
        let (white, black) = (get(self.white_elo, i), get(self.black_elo, i));
        GameFacts {
            source: self.source.value(i),
            date: filter::game_date(get(self.utc_date, i), get_str(self.tags[5], i)),
            time_class: get_str(self.time_class, i),
            venue: self.venue(i),
            lower_elo: white.zip(black).map(|(w, b)| i32::from(w.min(b))),
        }
    }

    /// An example of `case` for the game in row `i`, with its tags.
    fn example(&self, i: usize, case: &str, detail: String) -> Example {
        let [event, site, white, black, result, date, round] = self.tags.map(|a| get_str(a, i).map(str::to_owned));
        Example {
            case: case.into(),
            source: self.source.value(i).to_owned(),
            frame_offset: self.frame_offset.value(i),
            byte_offset: self.byte_offset.value(i),
            white,
            black,
            event,
            date: date.or_else(|| get(self.utc_date, i).map(tables::date32_to_pgn)),
            round,
            result,
            site,
            detail,
        }
    }

    /// What the figures take from row `i` (and the game's events), with its [`Self::facts`].
    pub(super) fn record<'e>(&'e self, i: usize, played: Played, facts: &GameFacts<'e>) -> GameRecord<'e> {
        let GameFacts { date, time_class, venue, lower_elo, .. } = *facts;
        let max = get(self.max_occurrence, i).unwrap_or(0);
        let plies = get(self.plies, i);
        let claimant = self.claimant(i, venue);
        // Where no claim by a declared move existed, its events offered none.
        let played = match claimant.declared_move() {
            true => played,
            false => Played { by_move_only: 0, by_move_only_played: 0, ..played },
        };
        let (after_fivefold, after_75_moves) = match self.automatic {
            Some((five, seventy_five)) => {
                (get(five, i).is_some_and(|n| n > 0), get(seventy_five, i).is_some_and(|n| n > 0))
            }
            None => (
                get(self.after5, i).is_some_and(|n| n > 0),
                matches!((get(self.first150, i), plies), (Some(f), Some(p)) if f < p),
            ),
        };
        let kind = |(o, m): (&UInt32Array, &UInt32Array)| (get(o, i).unwrap_or(0) > 0, get(m, i).unwrap_or(0) > 0);
        let (first_claim, first_missed) = (get(self.first_claim, i), get(self.first_missed, i));
        let has_clocks = get_bool(self.has_clocks, i) == Some(true);
        let has_evals = get_bool(self.has_evals, i) == Some(true);
        let draw_reason = get_str(self.draw_reason, i);
        let game = Game {
            threefold: max >= 3,
            fivefold: max >= 5,
            with_claim: get(self.opportunities, i).unwrap_or(0) > 0,
            missed: get(self.missed, i).unwrap_or(0) > 0,
            passed_over: self.passed_over.is_some_and(|p| get(p, i).unwrap_or(0) > 0),
            on_board: kind(self.kinds[0]),
            by_move: kind(self.kinds[1]),
            drawn: draw_reason.and_then(DrawReason::parse).filter(|r| DrawReason::WITH_MOVES.contains(r)),
            perpetual: get_str(self.perpetual, i).and_then(Perpetual::parse),
            score: get(self.score, i),
            after_fivefold,
            after_75_moves,
            has_clocks,
            first_claim_clock: get(self.first_claim_clock, i).filter(|_| has_clocks).map(summary::clock_band),
            first_claim_passed_over: first_claim.is_some() && first_missed == first_claim,
            has_evals,
            first_missed_eval: first_missed
                .filter(|_| has_evals)
                .map(|_| summary::eval_band(get(self.first_missed_cp, i), get(self.first_missed_mate, i))),
            claims_on_board: played.on_board,
            claims_by_move_only: played.by_move_only,
            claims_by_move_only_played: played.by_move_only_played,
            castling_events: played.castling_events,
            en_passant_events: played.ep_events,
            hidden_events: played.hidden_events,
        };
        GameRecord {
            game,
            venue,
            claimant,
            band: band_from(lower_elo),
            time_class: time_class.unwrap_or(TimeClass::UNKNOWN),
            draw_reason,
            first_threefold: get(self.first3, i),
            date,
        }
    }
}

/// The whole pass: what the filter lets in, added to all games and to each group.
pub(super) struct Pass<'f> {
    filter: &'f Filter,
    by: Option<&'f By>,
    unfinished: &'f [String],
    unmatched_events: u64,
    pub(super) rows: u64,
    pub(super) matched: u64,
    pub(super) skipped: u64,
    pub(super) no_moves: u64,
    pub(super) sources: Vec<String>,
    pub(super) all: Tally,
    pub(super) groups: HashMap<String, Tally>,
    events: GameEvents,
    pub(super) examples: Examples,
    /// The selection's replayed games' fingerprints, copies included, and how many games.
    pub(super) fingerprints: Sketch,
    pub(super) fingerprinted: u64,
    /// Some games had no fingerprint to add (an older dataset): no estimate.
    pub(super) no_sketch: bool,
    /// `--dedup`: the copies to leave out.
    dedup: Option<&'f Dedup>,
}

impl<'f> Pass<'f> {
    pub(super) fn new(filter: &'f Filter, by: Option<&'f By>, unfinished: &'f [String]) -> Self {
        Pass {
            filter,
            by,
            unfinished,
            unmatched_events: 0,
            rows: 0,
            matched: 0,
            skipped: 0,
            no_moves: 0,
            sources: Vec::new(),
            all: Tally::default(),
            groups: HashMap::new(),
            events: GameEvents::default(),
            examples: Examples::default(),
            fingerprints: Sketch::default(),
            fingerprinted: 0,
            no_sketch: false,
            dedup: None,
        }
    }

    /// Adds the counts of a later part's pass: the sources in first-seen order, the examples
    /// that rank first, the rest summed; so the result is the same whichever thread read what.
    fn merge(&mut self, other: Pass) {
        self.unmatched_events += other.unmatched_events;
        self.rows += other.rows;
        self.matched += other.matched;
        self.skipped += other.skipped;
        self.no_moves += other.no_moves;
        for source in other.sources {
            if !self.sources.contains(&source) {
                self.sources.push(source);
            }
        }
        self.all.merge(other.all);
        for (label, tally) in other.groups {
            match self.groups.get_mut(&label) {
                Some(t) => t.merge(tally),
                None => {
                    self.groups.insert(label, tally);
                }
            }
        }
        self.examples.merge(other.examples);
        self.fingerprints.merge(&other.fingerprints);
        self.fingerprinted += other.fingerprinted;
        self.no_sketch |= other.no_sketch;
    }

    /// Counts one [`Piece`].
    fn unit(&mut self, index: usize, unit: &Piece) -> Result<()> {
        let &Piece::Read { part, group, from, to } = unit else {
            if let Piece::Count(rows) = unit {
                self.rows += rows;
            }
            return Ok(());
        };
        let lenient = self.unfinished.contains(&part.source);
        // The events row groups that may hold the unit's keys.
        let (batches, _) =
            tables::batches_where(&part.events, &EVENT_COLUMNS, &|_, g| tables::may_hold_keys(g, from, to))?;
        let mut events = EventCursor { batches, current: None, row: 0, lenient, unmatched: 0 };
        // The columns' keys are read as pairs: compared as such.
        let (from, to) = (from.map(GameKey::pair), to.map(GameKey::pair));
        // Events of the games before this row group's (another unit's, or not read).
        if from.is_some() {
            events.pass_over(from)?;
        }
        let optional = [col::FINGERPRINT, col::CLAIMANT];
        let (games, _) = tables::batches_with(&part.games, &GAME_COLUMNS, &optional, &|i, _| i == group)?;
        let mut last: Option<(u64, u64)> = None;
        let mut row = 0_u32;
        for batch in games {
            let batch = batch?;
            let c = GameColumns::of(&batch)?;
            for i in 0..batch.num_rows() {
                let key = c.key(i);
                if last.is_some_and(|l| l >= key) || to.is_some_and(|t| key >= t) {
                    bail!("{}: games are not sorted by key at {}:{}", part.games.display(), key.0, key.1);
                }
                last = Some(key);
                let copy = self.dedup.is_some_and(|d| d.leaves_out(index, row));
                row += 1;
                self.game(&c, i, &mut events, copy)?;
            }
        }
        // Events after the last game and before the next row group's first: of no game.
        while let Some((f, b)) = events.peek()? {
            if to.is_some_and(|t| (f, b) >= t) {
                break;
            }
            if !lenient {
                bail!("{}: an event of the game at {f}:{b}, which is not in the games table", part.events.display());
            }
            events.unmatched += 1;
            events.row += 1;
        }
        self.unmatched_events += events.unmatched;
        Ok(())
    }

    fn game<I: Iterator<Item = Result<RecordBatch>>>(
        &mut self,
        c: &GameColumns,
        i: usize,
        events: &mut EventCursor<I>,
        copy: bool,
    ) -> Result<()> {
        self.rows += 1;
        let facts = c.facts(i);
        let (source, date, time_class) = (facts.source, facts.date, facts.time_class);
        let game_events = &mut self.events;
        game_events.clear();
        events.take(c.key(i), |e, row| game_events.add(e, row))?;
        // Only the parts of matching sources are read (`units`).
        if !self.filter.matches_in_source(&facts) {
            return Ok(());
        }
        // The estimate is of the selection as it stands, copies included: its replayed games
        // with a move (those the summary counts too).
        if c.status.value(i) != GameStatus::Skipped.as_str() && !c.no_moves(i) {
            self.fingerprinted += 1;
            match c.fingerprint(i) {
                Some(f) => self.fingerprints.insert(f),
                None => self.no_sketch = true,
            }
        }
        if copy {
            return Ok(());
        }
        self.matched += 1;
        if self.sources.last().is_none_or(|last| last != source) && !self.sources.iter().any(|x| x == source) {
            self.sources.push(source.to_owned());
        }
        // Skipped variants have no replay: every query leaves them out of its rates.
        if c.status.value(i) == GameStatus::Skipped.as_str() {
            self.skipped += 1;
            return Ok(());
        }
        // A game of no moves (a broadcast's header, an abandoned game) has nothing to count.
        if c.no_moves(i) {
            self.no_moves += 1;
            return Ok(());
        }
        let record = c.record(i, self.events.played(), &facts);
        self.all.add(&record);
        if let Some(by) = self.by {
            let (variant, venue) = (c.variant.value(i), facts.venue.as_str());
            let facts = GroupFacts { source, time_class, band: record.band, variant, date, venue };
            let label = by.label(&facts);
            match self.groups.get_mut(label.as_ref()) {
                Some(t) => t.add(&record),
                None => {
                    let mut t = Tally::default();
                    t.add(&record);
                    self.groups.insert(label.into_owned(), t);
                }
            }
        }
        self.examples.offer(c, i, &record, &self.events);
        Ok(())
    }
}

/// The example games of each case (castling, en passant, automatic draws ignored): the first
/// [`EXAMPLES_PER_CASE`] by rank, flagged games first, then by key.
#[derive(Clone)]
pub(crate) struct Examples {
    pub cases: [Smallest<Candidate>; 3],
}

impl Default for Examples {
    fn default() -> Self {
        Examples { cases: std::array::from_fn(|_| Smallest::new(EXAMPLES_PER_CASE)) }
    }
}

impl Examples {
    /// Adds another set of games' candidates: the first by rank stay.
    pub(crate) fn merge(&mut self, other: Examples) {
        for (into, from) in self.cases.iter_mut().zip(other.cases) {
            for item in from.items {
                into.offer(item);
            }
        }
    }

    /// The examples, case by case, each by rank.
    pub(crate) fn into_list(self) -> Vec<Example> {
        self.cases.into_iter().flat_map(|c| c.items.into_iter().map(|(_, _, e)| e)).collect()
    }

    /// Offers the game in row `i` as an example of each case it shows (`g`: its events): most
    /// games show none, and are passed over here without a call.
    #[inline]
    pub(super) fn offer(&mut self, c: &GameColumns, i: usize, record: &GameRecord, g: &GameEvents) {
        if g.castling_events + g.ep_events + g.hidden_events > 0
            || record.game.after_fivefold
            || record.game.after_75_moves
        {
            self.offer_cases(c, i, record, g);
        }
    }

    fn offer_cases(&mut self, c: &GameColumns, i: usize, record: &GameRecord, g: &GameEvents) {
        let key = || (c.source.value(i).to_owned(), c.frame_offset.value(i), c.byte_offset.value(i));
        let [castling, en_passant, automatic] = &mut self.cases;
        if g.castling_events > 0 && castling.wants(&(!g.castling_flag, key(), Example::default())) {
            let mut detail = format!(
                "{} pseudo-repetition(s) from ply {}; board seen {}×",
                g.castling_events,
                g.castling_first_ply.unwrap_or(0),
                g.castling_max_board
            );
            if g.castling_flag {
                detail.push_str(", the position fewer than 3×: a board-only count would allow a claim");
            }
            castling.offer((!g.castling_flag, key(), c.example(i, "castling", detail)));
        }
        if g.ep_events + g.hidden_events > 0 && en_passant.wants(&(!g.ep_flag, key(), Example::default())) {
            let mut detail = format!(
                "{} e.p. pseudo-repetition(s), {} hidden repetition(s), from ply {}",
                g.ep_events,
                g.hidden_events,
                g.ep_first_ply.unwrap_or(0)
            );
            if g.ep_flag {
                detail.push_str("; an e.p.-blind or FEN-string count would get the claim wrong");
            }
            en_passant.offer((!g.ep_flag, key(), c.example(i, "en_passant", detail)));
        }
        // No flag: by key alone (`false` for every candidate).
        if (record.game.after_fivefold || record.game.after_75_moves)
            && automatic.wants(&(false, key(), Example::default()))
        {
            let mut parts = Vec::new();
            if record.game.after_fivefold {
                // The fivefold in force, which may come after the first one (2014's consecutive rule).
                let after = get(c.automatic.map_or(c.after5, |(five, _)| five), i).unwrap_or(0);
                let at = get(c.plies, i).unwrap_or(0) - after;
                parts.push(format!("{after} plies after a fivefold at ply {at}"));
            }
            if let (true, Some(at), Some(p)) = (record.game.after_75_moves, get(c.first150, i), get(c.plies, i)) {
                parts.push(format!("{} plies after the 75-move rule at ply {at}", p - at));
            }
            let detail = format!("went on {}", parts.join(" and "));
            automatic.offer((false, key(), c.example(i, "automatic_draw_ignored", detail)));
        }
    }
}

/// Reads the dataset at `dir` and computes every figure of the report over the games `filter`
/// lets in, and per group of `by`.
/// `unfinished` names the sources whose commit a killed run left half done: their events may
/// belong to another run's games (left out and counted, not an error). `threads`: how many parts
/// are read at once (default: all cores); the report is the same for any number.
pub fn compute(
    dir: &std::path::Path,
    filter: &Filter,
    by: Option<&By>,
    min_games: u64,
    unfinished: &[String],
    threads: Option<usize>,
    dedup: bool,
) -> Result<Report> {
    let parts = tables::parts(dir)?;
    if parts.is_empty() {
        bail!("{} has no games/source=*/*.parquet: not a threefold dataset (see `threefold ingest`)", dir.display());
    }
    // Row groups in parallel, each counted on its own, then added up in the parts' and row
    // groups' order.
    let work = || -> Result<(Pass, Option<LeftOut>)> {
        let units: Vec<Vec<Piece>> = parts
            .par_iter()
            .map(|part| units(part, filter).map_err(|e| e.context(format!("in {}", part.games.display()))))
            .collect::<Result<_>>()?;
        let units: Vec<&Piece> = units.iter().flatten().collect();
        let copies = if dedup { Some(copies::find(&units, filter)?) } else { None };
        let passes = units
            .par_iter()
            .enumerate()
            .map(|(index, unit)| {
                let mut pass = Pass::new(filter, by, unfinished);
                pass.dedup = copies.as_ref();
                pass.unit(index, unit).map_err(|e| match unit {
                    Piece::Read { part, .. } => e.context(format!("in {}", part.games.display())),
                    Piece::Count(_) => e,
                })?;
                Ok(pass)
            })
            .collect::<Result<Vec<Pass>>>()?;
        let mut pass = Pass::new(filter, by, unfinished);
        for unit in passes {
            pass.merge(unit);
        }
        Ok((pass, copies.map(|c| c.left_out)))
    };
    let (pass, left_out) = match threads {
        Some(n) => rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build()?.install(work)?,
        None => work()?,
    };
    let mut report = report(dir, filter, by, min_games, pass);
    report.copies.left_out = left_out;
    Ok(report)
}

/// The report of a finished pass (over the games, or over the summary).
pub(super) fn report(
    dir: &std::path::Path,
    filter: &Filter,
    by: Option<&By>,
    min_games: u64,
    mut pass: Pass,
) -> Report {
    let examples = std::mem::take(&mut pass.examples).into_list();
    let distinct = (!pass.no_sketch).then(|| pass.fingerprints.estimate().min(pass.fingerprinted));
    let copies = Copies {
        games: pass.fingerprinted,
        distinct_estimate: distinct,
        copies_estimate: distinct.map(|d| pass.fingerprinted - d),
        left_out: None,
    };

    let mut labels: Vec<String> = pass.groups.keys().cloned().collect();
    if let Some(by) = by {
        by.sort(&mut labels);
    }
    let mut groups: Vec<GroupStats> = labels
        .into_iter()
        .map(|label| {
            let stats = pass.groups.remove(&label).unwrap_or_default().finish();
            GroupStats { label, stats }
        })
        .collect();
    let by_value = by.is_some_and(|b| b.sort == Sort::Value);
    if by_value {
        // Highest threefold rate first; groups without games last (the sort is stable).
        let rate = |g: &GroupStats| {
            let o = &g.stats.overall;
            (o.games > 0).then(|| o.threefold as f64 / o.games as f64)
        };
        groups.sort_by(|a, b| rate(b).partial_cmp(&rate(a)).unwrap_or(std::cmp::Ordering::Equal));
    }

    Report {
        dataset: dir.display().to_string(),
        filter_text: filter.describe(),
        filter: filter.clone(),
        by: by.map(|b| b.kind.name().to_owned()),
        sort: by_value.then(|| "value".to_owned()),
        min_games,
        sources: pass.sources,
        stale_sources: Vec::new(),
        rows: pass.rows,
        matched: pass.matched,
        skipped: pass.skipped,
        no_moves: pass.no_moves,
        unmatched_events: pass.unmatched_events,
        all: pass.all.finish(),
        groups,
        examples,
        copies,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_keeps_the_first_in_order() {
        let mut s = Smallest::new(2);
        for x in [5, 3, 9, 1, 4] {
            s.offer(x);
        }
        assert_eq!(s.items, vec![1, 3]);
        assert!(!s.wants(&3) && s.wants(&2));
    }
}
