//! Computes a [`Report`] in two streaming passes: `events` first (per-game edge cases and claim
//! kinds, finished as soon as the next game's events begin, since a partition is sorted by game),
//! then `games` (rates, draw reasons, outcomes; and the tags of the few example games the first
//! pass picked). Memory: one batch, one game's events, a few counters per group and example.

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
};

use anyhow::{Result, bail};
use arrow_array::{
    BooleanArray, Date32Array, Float64Array, Int16Array, Int32Array, Int64Array, StringArray, UInt32Array, UInt64Array,
    types::{Date32Type, Float64Type, Int16Type, Int32Type, Int64Type, UInt32Type, UInt64Type},
};

use crate::{
    dataset::schema::col,
    engine::event::{Differs, EventKind, Perpetual},
    engine::summary::DrawReason,
    pgn::GameStatus,
};

use super::{
    clocks::{Clocks, GameClocks},
    model::{
        Bucket, Claims, Count, EdgeCase, Example, Group, Outcome, Rates, Report, TIME_CLASSES, band_from, band_label,
    },
    read::{self, get, get_bool, get_str},
};

/// Example games per case in the report: enough to look at, short enough to read.
pub const EXAMPLES_PER_CASE: usize = 5;

/// Which game: sorts as the queries' `ORDER BY source, frame_offset, byte_offset`.
type Key = (String, u64, u64);

/// The `limit` smallest items seen so far.
struct Smallest<T: Ord> {
    limit: usize,
    items: Vec<T>,
}

impl<T: Ord> Smallest<T> {
    fn new(limit: usize) -> Self {
        Smallest { limit, items: Vec::new() }
    }

    fn offer(&mut self, item: T) {
        if self.items.len() < self.limit || self.items.last().is_some_and(|last| item < *last) {
            let at = self.items.partition_point(|x| *x < item);
            self.items.insert(at, item);
            self.items.truncate(self.limit);
        }
    }
}

/// Example candidates rank flagged games first (`false` sorts before `true`, hence "not flagged").
type Candidate = (bool, Key, String);

/// One game's events so far.
#[derive(Default)]
struct GameEvents {
    /// ply -> (a claimable repetition stands there, a claimable move was played there)
    claim_plies: HashMap<u32, (bool, bool)>,
    castling_events: u64,
    castling_flag: bool,
    castling_first_ply: Option<u32>,
    castling_max_board: u32,
    ep_events: u64,
    hidden_events: u64,
    ep_flag: bool,
    ep_first_ply: Option<u32>,
}

#[derive(Default)]
struct EventTotals {
    claims: Claims,
    castling: EdgeCase,
    en_passant: EdgeCase,
    hidden: EdgeCase,
}

struct EventPass {
    current: Option<(Key, GameEvents)>,
    totals: EventTotals,
    castling: Smallest<Candidate>,
    en_passant: Smallest<Candidate>,
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

impl EventPass {
    fn new() -> Self {
        EventPass {
            current: None,
            totals: EventTotals::default(),
            castling: Smallest::new(EXAMPLES_PER_CASE),
            en_passant: Smallest::new(EXAMPLES_PER_CASE),
        }
    }

    fn batch(&mut self, batch: &arrow_array::RecordBatch) -> Result<()> {
        let source = read::strings(batch, col::SOURCE)?;
        let frame_offset = read::numbers::<UInt64Type>(batch, col::FRAME_OFFSET)?;
        let byte_offset = read::numbers::<UInt64Type>(batch, col::BYTE_OFFSET)?;
        let ply = read::numbers::<UInt32Type>(batch, col::PLY)?;
        let kind = read::strings(batch, col::KIND)?;
        let claimable = read::bools(batch, col::CLAIMABLE)?;
        let played = read::bools(batch, col::PLAYED)?;
        let differs = read::strings(batch, col::DIFFERS)?;
        let board = read::numbers::<UInt32Type>(batch, col::BOARD_OCCURRENCE)?;
        let fide = read::numbers::<UInt32Type>(batch, col::FIDE_OCCURRENCE)?;
        let fen = read::numbers::<UInt32Type>(batch, col::FEN_OCCURRENCE)?;
        for i in 0..batch.num_rows() {
            let (src, index) = (source.value(i), (frame_offset.value(i), byte_offset.value(i)));
            let same = self.current.as_ref().is_some_and(|((s, f, b), _)| s == src && (*f, *b) == index);
            if !same {
                if let Some(((s, f, b), _)) = &self.current {
                    // Counting distinct games relies on each game's events being contiguous.
                    if s.as_str() == src && (*f, *b) > index {
                        bail!(
                            "events are not sorted by game ({src}: the game at {f}:{b} before the one at {}:{})",
                            index.0,
                            index.1
                        );
                    }
                }
                self.finish_game();
                self.current = Some(((src.to_owned(), index.0, index.1), GameEvents::default()));
            }
            let Some((_, game)) = self.current.as_mut() else { continue };
            let ply = ply.value(i);
            let (board, fide, fen) = (get(board, i).unwrap_or(0), get(fide, i).unwrap_or(0), get(fen, i).unwrap_or(0));
            match EventKind::parse(kind.value(i)) {
                Some(EventKind::Repetition) if get_bool(claimable, i) == Some(true) => {
                    game.claim_plies.entry(ply).or_default().0 = true;
                }
                Some(EventKind::ClaimByMove) => {
                    let entry = game.claim_plies.entry(ply).or_default();
                    entry.1 |= get_bool(played, i) == Some(true);
                }
                Some(EventKind::PseudoRepetition) => {
                    let differs = get_str(differs, i).and_then(Differs::parse);
                    let false_claim = board >= 3 && fide < 3;
                    if matches!(differs, Some(Differs::Castling | Differs::Both)) {
                        game.castling_events += 1;
                        game.castling_flag |= false_claim;
                        game.castling_first_ply = Some(game.castling_first_ply.map_or(ply, |p| p.min(ply)));
                        game.castling_max_board = game.castling_max_board.max(board);
                    }
                    if matches!(differs, Some(Differs::EnPassant | Differs::Both)) {
                        game.ep_events += 1;
                        game.ep_flag |= false_claim;
                        game.ep_first_ply = Some(game.ep_first_ply.map_or(ply, |p| p.min(ply)));
                    }
                }
                Some(EventKind::HiddenRepetition) => {
                    game.hidden_events += 1;
                    game.ep_flag |= fide >= 3 && fen < 3;
                    game.ep_first_ply = Some(game.ep_first_ply.map_or(ply, |p| p.min(ply)));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn finish_game(&mut self) {
        let Some((key, game)) = self.current.take() else { return };
        let t = &mut self.totals;
        let on_board = game.claim_plies.values().filter(|(board, _)| *board).count() as u64;
        let by_move_only = game.claim_plies.len() as u64 - on_board;
        t.claims.opportunities += game.claim_plies.len() as u64;
        t.claims.on_board += on_board;
        t.claims.by_move_only += by_move_only;
        t.claims.by_move_only_played +=
            game.claim_plies.values().filter(|(board, played)| !board && *played).count() as u64;
        t.claims.games_with_on_board += u64::from(on_board > 0);
        t.claims.games_with_by_move_only += u64::from(by_move_only > 0);
        t.claims.games_only_by_move += u64::from(by_move_only > 0 && on_board == 0);

        if game.castling_events > 0 {
            t.castling.games += 1;
            t.castling.events += game.castling_events;
            let mut detail = format!(
                "{} pseudo-repetition(s) from ply {}; board seen {}×",
                game.castling_events,
                game.castling_first_ply.unwrap_or(0),
                game.castling_max_board
            );
            if game.castling_flag {
                detail.push_str(", the position fewer than 3×: a board-only count would allow a claim");
            }
            self.castling.offer((!game.castling_flag, key.clone(), detail));
        }
        if game.ep_events > 0 {
            t.en_passant.games += 1;
            t.en_passant.events += game.ep_events;
        }
        if game.hidden_events > 0 {
            t.hidden.games += 1;
            t.hidden.events += game.hidden_events;
        }
        if game.ep_events + game.hidden_events > 0 {
            let mut detail = format!(
                "{} e.p. pseudo-repetition(s), {} hidden repetition(s), from ply {}",
                game.ep_events,
                game.hidden_events,
                game.ep_first_ply.unwrap_or(0)
            );
            if game.ep_flag {
                detail.push_str("; an e.p.-blind or FEN-string count would get the claim wrong");
            }
            self.en_passant.offer((!game.ep_flag, key, detail));
        }
    }
}

const GAME_COLUMNS: [&str; 33] = [
    col::SOURCE,
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
    col::PLIES,
    col::MAX_OCCURRENCE,
    col::FIRST_PLY_OCCURRENCE_3,
    col::FIRST_PLY_OCCURRENCE_5,
    col::CLAIM_OPPORTUNITIES,
    col::MISSED_CLAIMS,
    col::CLAIMANT_SCORE_AFTER_FIRST_MISSED,
    col::PLIES_AFTER_FIVEFOLD,
    col::FIRST_PLY_HALFMOVE_150,
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

/// How the report (and `queries/repetition_kinds.sql`) names a null `first_threefold_perpetual`.
pub const NO_PERPETUAL: &str = "none";

#[derive(Default)]
struct GamePass {
    rows: u64,
    skipped: u64,
    sources: Vec<String>,
    overall: Rates,
    /// Keyed so that bands sort by rating with `unknown` last.
    bands: BTreeMap<(bool, i32), Rates>,
    time_classes: HashMap<String, Rates>,
    drawn: u64,
    reasons: HashMap<String, u64>,
    /// Threefold and fivefold draws by [`Perpetual::ALL`], then with none.
    perpetual: [u64; 4],
    claimant: Outcome,
    after_fivefold: u64,
    after_75_moves: u64,
    buckets: BTreeMap<u32, u64>,
    clocks: Clocks,
    /// Example games found by the events pass, waiting for their tags.
    wanted: HashMap<Key, Example>,
    automatic: Option<Smallest<(Key, Example)>>,
}

/// The `games` columns the report reads, from one batch.
struct GameColumns<'a> {
    source: &'a StringArray,
    status: &'a StringArray,
    time_class: &'a StringArray,
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
    first5: &'a UInt32Array,
    opportunities: &'a UInt32Array,
    missed: &'a UInt32Array,
    after5: &'a UInt32Array,
    first150: &'a UInt32Array,
    has_clocks: &'a BooleanArray,
    has_evals: &'a BooleanArray,
    first_claim: &'a UInt32Array,
    first_missed: &'a UInt32Array,
    first_claim_clock: &'a Int64Array,
    first_missed_cp: &'a Int64Array,
    first_missed_mate: &'a Int32Array,
}

/// The tags an example shows, in [`GameColumns::tags`] order.
const EXAMPLE_TAGS: [&str; 7] = ["Event", "Site", "White", "Black", "Result", "Date", "Round"];

impl<'a> GameColumns<'a> {
    fn of(batch: &'a arrow_array::RecordBatch) -> Result<GameColumns<'a>> {
        let s = |name| read::strings(batch, name);
        let u32s = |name| read::numbers::<UInt32Type>(batch, name);
        let mut tags = Vec::new();
        for name in EXAMPLE_TAGS {
            tags.push(s(name)?);
        }
        Ok(GameColumns {
            source: s(col::SOURCE)?,
            status: s(col::STATUS)?,
            time_class: s(col::TIME_CLASS)?,
            draw_reason: s(col::DRAW_REASON)?,
            perpetual: s(col::FIRST_THREEFOLD_PERPETUAL)?,
            tags: tags.try_into().map_err(|_| anyhow::anyhow!("internal error: tag columns"))?,
            frame_offset: read::numbers::<UInt64Type>(batch, col::FRAME_OFFSET)?,
            byte_offset: read::numbers::<UInt64Type>(batch, col::BYTE_OFFSET)?,
            utc_date: read::numbers::<Date32Type>(batch, "UTCDate")?,
            white_elo: read::numbers::<Int16Type>(batch, "WhiteElo")?,
            black_elo: read::numbers::<Int16Type>(batch, "BlackElo")?,
            score: read::numbers::<Float64Type>(batch, col::CLAIMANT_SCORE_AFTER_FIRST_MISSED)?,
            plies: u32s(col::PLIES)?,
            max_occurrence: u32s(col::MAX_OCCURRENCE)?,
            first3: u32s(col::FIRST_PLY_OCCURRENCE_3)?,
            first5: u32s(col::FIRST_PLY_OCCURRENCE_5)?,
            opportunities: u32s(col::CLAIM_OPPORTUNITIES)?,
            missed: u32s(col::MISSED_CLAIMS)?,
            after5: u32s(col::PLIES_AFTER_FIVEFOLD)?,
            first150: u32s(col::FIRST_PLY_HALFMOVE_150)?,
            has_clocks: read::bools(batch, col::HAS_CLOCKS)?,
            has_evals: read::bools(batch, col::HAS_EVALS)?,
            first_claim: u32s(col::FIRST_CLAIM_PLY)?,
            first_missed: u32s(col::FIRST_MISSED_CLAIM_PLY)?,
            first_claim_clock: read::numbers::<Int64Type>(batch, col::FIRST_CLAIM_CLOCK_MS)?,
            first_missed_cp: read::numbers::<Int64Type>(batch, col::FIRST_MISSED_CLAIM_EVAL_CP)?,
            first_missed_mate: read::numbers::<Int32Type>(batch, col::FIRST_MISSED_CLAIM_EVAL_MATE)?,
        })
    }

    /// Fills an example's tags from row `i`.
    fn fill(&self, example: &mut Example, i: usize) {
        let [event, site, white, black, result, date, round] = self.tags.map(|a| get_str(a, i).map(str::to_owned));
        example.white = white;
        example.black = black;
        example.event = event;
        example.date = date.or_else(|| get(self.utc_date, i).map(read::date32_to_pgn));
        example.round = round;
        example.result = result;
        example.site = site;
    }
}

impl GamePass {
    /// Counts a threefold or fivefold draw by its perpetual check.
    fn repetition_draw(&mut self, reason: &str, perpetual: Option<&str>) {
        if [DrawReason::Threefold, DrawReason::Fivefold].iter().any(|r| r.as_str() == reason) {
            let kind = perpetual.and_then(Perpetual::parse);
            let k = Perpetual::ALL.iter().position(|&p| Some(p) == kind).unwrap_or(Perpetual::ALL.len());
            self.perpetual[k] += 1;
        }
    }

    fn batch(&mut self, batch: &arrow_array::RecordBatch) -> Result<()> {
        let c = GameColumns::of(batch)?;
        for i in 0..batch.num_rows() {
            self.rows += 1;
            let src = c.source.value(i);
            if self.sources.last().is_none_or(|last| last != src) && !self.sources.iter().any(|x| x == src) {
                self.sources.push(src.to_owned());
            }
            // Skipped variants have no replay: every query leaves them out of its rates.
            if c.status.value(i) == GameStatus::Skipped.as_str() {
                self.skipped += 1;
                continue;
            }
            self.count(&c, i);
            self.examples(&c, i);
        }
        Ok(())
    }

    /// Adds row `i` to the rates, the claimants' scores, the draw reasons and the buckets.
    fn count(&mut self, c: &GameColumns, i: usize) {
        let max = get(c.max_occurrence, i).unwrap_or(0);
        let rates = Rates {
            games: 1,
            threefold: u64::from(max >= 3),
            fivefold: u64::from(max >= 5),
            with_claim: u64::from(get(c.opportunities, i).unwrap_or(0) > 0),
            missed: u64::from(get(c.missed, i).unwrap_or(0) > 0),
        };
        self.overall.add(&rates);
        let band = band_from(get(c.white_elo, i), get(c.black_elo, i));
        self.bands.entry((band.is_none(), band.unwrap_or(0))).or_default().add(&rates);
        let class = get_str(c.time_class, i).unwrap_or("unknown");
        match self.time_classes.get_mut(class) {
            Some(r) => r.add(&rates),
            None => {
                self.time_classes.insert(class.to_owned(), rates);
            }
        }
        match get(c.score, i) {
            Some(1.0) => self.claimant.wins += 1,
            Some(0.5) => self.claimant.draws += 1,
            Some(0.0) => self.claimant.losses += 1,
            _ => {}
        }
        self.claimant.games += u64::from(get(c.score, i).is_some());
        if let Some(reason) = get_str(c.draw_reason, i) {
            self.drawn += 1;
            *self.reasons.entry(reason.to_owned()).or_default() += 1;
            self.repetition_draw(reason, get_str(c.perpetual, i));
        }
        if let Some(p) = get(c.first3, i) {
            *self.buckets.entry(p / 10 * 10).or_default() += 1;
        }
        self.clocks.add(&GameClocks {
            has_clocks: get_bool(c.has_clocks, i) == Some(true),
            has_evals: get_bool(c.has_evals, i) == Some(true),
            first_claim_ply: get(c.first_claim, i),
            first_missed_claim_ply: get(c.first_missed, i),
            first_claim_clock_ms: get(c.first_claim_clock, i),
            first_missed_eval: (get(c.first_missed_cp, i), get(c.first_missed_mate, i)),
            score: get(c.score, i),
        });
    }

    /// Fills the tags of an example the events pass found in row `i`, and offers row `i` as an
    /// example of an automatic draw ignored.
    fn examples(&mut self, c: &GameColumns, i: usize) {
        let key = (c.source.value(i).to_owned(), c.frame_offset.value(i), c.byte_offset.value(i));
        let ply_count = get(c.plies, i);
        let went_on_5 = get(c.after5, i).is_some_and(|n| n > 0);
        let went_on_75 = matches!((get(c.first150, i), ply_count), (Some(f), Some(p)) if f < p);
        if let Some(example) = self.wanted.get_mut(&key) {
            c.fill(example, i);
        }
        if !(went_on_5 || went_on_75) {
            return;
        }
        let mut parts = Vec::new();
        if went_on_5 {
            let at = get(c.first5, i).unwrap_or(0);
            parts.push(format!("{} plies after a fivefold at ply {at}", get(c.after5, i).unwrap_or(0)));
        }
        if let (true, Some(at), Some(p)) = (went_on_75, get(c.first150, i), ply_count) {
            parts.push(format!("{} plies after the 75-move rule at ply {at}", p - at));
        }
        self.after_fivefold += u64::from(went_on_5);
        self.after_75_moves += u64::from(went_on_75);
        let mut example = Example {
            case: "automatic_draw_ignored".into(),
            source: key.0.clone(),
            frame_offset: key.1,
            byte_offset: key.2,
            detail: format!("went on {}", parts.join(" and ")),
            ..Example::default()
        };
        c.fill(&mut example, i);
        if let Some(automatic) = self.automatic.as_mut() {
            automatic.offer((key, example));
        }
    }
}

fn example(case: &str, (_, (source, frame_offset, byte_offset), detail): Candidate) -> Example {
    Example { case: case.into(), source, frame_offset, byte_offset, detail, ..Example::default() }
}

/// Reads the dataset at `dir` and computes every figure of the report.
pub fn compute(dir: &Path) -> Result<Report> {
    let game_files = read::table_files(dir, "games")?;
    if game_files.is_empty() {
        bail!("{} has no games/source=*/*.parquet: not a threefold dataset (see `threefold ingest`)", dir.display());
    }
    let event_files = read::table_files(dir, "events")?;

    let mut events = EventPass::new();
    read::scan(&event_files, &EVENT_COLUMNS, |b| events.batch(b))?;
    events.finish_game();

    let candidates: Vec<Example> = (events.castling.items.into_iter().map(|c| example("castling", c)))
        .chain(events.en_passant.items.into_iter().map(|c| example("en_passant", c)))
        .collect();
    let mut games = GamePass {
        wanted: candidates.iter().map(|e| (e.key(), e.clone())).collect(),
        automatic: Some(Smallest::new(EXAMPLES_PER_CASE)),
        ..GamePass::default()
    };
    read::scan(&game_files, &GAME_COLUMNS, |b| games.batch(b))?;

    let mut examples: Vec<Example> =
        candidates.iter().map(|c| games.wanted.remove(&c.key()).unwrap_or_else(|| c.clone())).collect();
    examples.extend(games.automatic.take().map(|s| s.items).unwrap_or_default().into_iter().map(|(_, e)| e));

    let mut by_time_class: Vec<Group> =
        games.time_classes.into_iter().map(|(label, rates)| Group { label, rates }).collect();
    let order = |label: &str| TIME_CLASSES.iter().position(|c| *c == label).unwrap_or(TIME_CLASSES.len());
    by_time_class.sort_by(|a, b| (order(&a.label), &a.label).cmp(&(order(&b.label), &b.label)));

    let mut draw_reasons: Vec<Count> = games.reasons.into_iter().map(|(label, games)| Count { label, games }).collect();
    let order = |label: &str| DrawReason::ALL.iter().position(|r| r.as_str() == label).unwrap_or(DrawReason::ALL.len());
    draw_reasons.sort_by(|a, b| (order(&a.label), &a.label).cmp(&(order(&b.label), &b.label)));

    Ok(Report {
        dataset: dir.display().to_string(),
        sources: games.sources,
        stale_sources: Vec::new(),
        rows: games.rows,
        skipped: games.skipped,
        overall: games.overall,
        by_rating_band: games
            .bands
            .into_iter()
            .map(|((unknown, from), rates)| Group { label: band_label((!unknown).then_some(from)), rates })
            .collect(),
        by_time_class,
        drawn: games.drawn,
        draw_reasons,
        repetition_draws_by_perpetual: Perpetual::ALL
            .iter()
            .map(|p| p.as_str())
            .chain([NO_PERPETUAL])
            .zip(games.perpetual)
            .map(|(label, games)| Count { label: label.to_owned(), games })
            .collect(),
        claimant: games.claimant,
        claims: events.totals.claims,
        castling: events.totals.castling,
        en_passant: events.totals.en_passant,
        hidden: events.totals.hidden,
        after_fivefold: games.after_fivefold,
        after_75_moves: games.after_75_moves,
        first_threefold_ply: games.buckets.into_iter().map(|(from_ply, games)| Bucket { from_ply, games }).collect(),
        clocks: games.clocks,
        examples,
    })
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
    }

    #[test]
    fn bands_match_the_queries() {
        assert_eq!(band_label(band_from(Some(1599), Some(1600))), "1400-1599");
        assert_eq!(band_label(band_from(Some(2000), Some(2100))), "2000-2199");
        assert_eq!(band_label(band_from(None, Some(2100))), "unknown");
        assert_eq!(band_label(band_from(Some(-5), Some(10))), "-200--1");
    }
}
