//! The `summary` table: written by `ingest` beside each part's games and events (and merged into
//! one file per source at the commit), one row per month, time class, band of 100 Elo, variant,
//! venue and claimant, holding the report's own counts ([`SummaryCounts::summary_counts`]) and
//! example candidates. A report whose filters
//! fall on those keys' edges (source globs, whole months, time classes, Elo bounds on a multiple
//! of 100) adds the rows up instead of reading every game: the same figures, from a table of
//! hundreds of rows per source instead of millions.
//!
//! The counting is the report's (`aggregate`): at ingest each game is counted by the same code
//! as in a report that reads the games, into [`SummaryCounts`] per key; `ingest` hands
//! [`summarizer`] to the dataset's partition writer, which feeds it each part's batches.

use std::{
    collections::{HashMap, hash_map::Entry},
    path::Path,
};

use anyhow::{Context, Result, anyhow, bail};
use arrow_array::{
    Array, BinaryArray, BooleanArray, Int32Array, MapArray, RecordBatch, StringArray, UInt32Array, UInt64Array,
    cast::AsArray,
    types::{Int32Type, UInt64Type},
};
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use crate::{
    dataset::{
        partition::Summarizer,
        schema::summary::{self as table, Counts, Row},
    },
    engine::{laws::Claimant, vocabulary::TimeClass},
    pgn::{
        GameStatus,
        venue::{Rulebook, Venue},
    },
};

use super::{
    aggregate::{self, EventCursor, Examples, GameColumns, GameEvents, Pass},
    filter::{self, Filter, GameFacts, days_from_civil},
    group::{By, GroupFacts},
    model::{Example, Report},
    sketch::Sketch,
    tables::{self, civil_from_days, get, get_str},
    tally::{SummaryCounts, Tally},
};

/// A summary row's key: month (year * 12 + month - 1), time class, lower Elo rounded down to a
/// multiple of 100, variant, venue, claimant; the two names by their numbers in [`Keyed`]'s [`Names`] (looking
/// a game's key up then allocates nothing). Rows sort by the key with the names themselves.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct RowKey {
    month: Option<i64>,
    time_class: Option<u32>,
    elo_band: Option<i32>,
    variant: u32,
    venue: Venue,
    claimant: Claimant,
}

/// The games of one key.
#[derive(Default)]
struct Cell {
    counts: SummaryCounts,
    skipped: u64,
    no_moves: u64,
    examples: Examples,
    fingerprints: Sketch,
    /// A merged row had no sketch (written before it existed): the cell's is unknown.
    no_sketch: bool,
}

/// Each distinct name once, numbered in order of appearance.
#[derive(Default)]
struct Names {
    numbers: HashMap<String, u32, FxBuildHasher>,
    names: Vec<String>,
    /// The number found last: games in a row mostly have the same name.
    last: u32,
}

impl Names {
    #[inline]
    fn number(&mut self, name: &str) -> u32 {
        if self.names.get(self.last as usize).is_some_and(|last| last == name) {
            return self.last;
        }
        if let Some(&n) = self.numbers.get(name) {
            self.last = n;
            return n;
        }
        let n = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.numbers.insert(name.to_owned(), n);
        self.last = n;
        n
    }
}

/// Counts a part's games by key, as the report counts them.
#[derive(Default)]
struct Keyed {
    time_classes: Names,
    variants: Names,
    /// Where each key's cell is in `cells`.
    rows: HashMap<RowKey, usize, FxBuildHasher>,
    cells: Vec<(RowKey, Cell)>,
    /// The last game's key and cell.
    last: Option<(RowKey, usize)>,
    events: GameEvents,
}

impl Keyed {
    /// Where `key`'s cell is in `cells` (a new one when the key is new).
    #[inline]
    fn at(&mut self, key: RowKey) -> usize {
        let at = match self.last {
            Some((last, at)) if last == key => at,
            _ => match self.rows.entry(key) {
                Entry::Occupied(e) => *e.get(),
                Entry::Vacant(e) => {
                    self.cells.push((key, Cell::default()));
                    *e.insert(self.cells.len() - 1)
                }
            },
        };
        self.last = Some((key, at));
        at
    }
}

/// The [`Summarizer`] that `ingest` writes each part's summary with.
pub fn summarizer() -> Box<dyn Summarizer> {
    Box::<Keyed>::default()
}

/// The month key of a date (days since 1970-01-01), as [`Tally`] keys its months.
fn month_of(days: i32) -> i64 {
    let (year, month, _) = civil_from_days(days);
    year * 12 + i64::from(month) - 1
}

/// `YYYY-MM` of a month key ([`month_of`]).
fn month_name(key: i64) -> String {
    let (year, month) = (key.div_euclid(12), key.rem_euclid(12) + 1);
    if !(0..10_000).contains(&year) {
        return format!("{year:04}-{month:02}");
    }
    // By hand: `format!` was a tenth of writing a part's summary.
    let digits = [year / 1000, year / 100 % 10, year / 10 % 10, year % 10, -1, month / 10, month % 10];
    digits.iter().map(|&d| if d < 0 { '-' } else { char::from(b'0' + d as u8) }).collect()
}

/// An example candidate as the summary stores it (JSON): the example and whether it ranks first
/// (a flagged case; `false` for automatic draws, ranked by key alone).
#[derive(Serialize, Deserialize)]
struct Candidate {
    flagged: bool,
    #[serde(flatten)]
    example: Example,
}

impl Summarizer for Keyed {
    fn add(&mut self, games: &RecordBatch, events: &RecordBatch) -> Result<()> {
        if games.num_rows() == 0 {
            return Ok(());
        }
        let c = GameColumns::of(games)?;
        let mut cursor = EventCursor {
            batches: std::iter::once(Ok(events.clone())),
            current: None,
            row: 0,
            lenient: false,
            unmatched: 0,
        };
        for i in 0..games.num_rows() {
            let game_events = &mut self.events;
            game_events.clear();
            cursor.take(c.key(i), |e, row| game_events.add(e, row))?;
            let facts = c.facts(i);
            let key = RowKey {
                month: facts.date.map(month_of),
                time_class: facts.time_class.map(|t| self.time_classes.number(t)),
                elo_band: facts.lower_elo.map(|e| e.div_euclid(100) * 100),
                variant: self.variants.number(c.variant.value(i)),
                venue: facts.venue,
                claimant: c.claimant(i, facts.venue),
            };
            let at = self.at(key);
            let cell = &mut self.cells[at].1;
            if c.status.value(i) == GameStatus::Skipped.as_str() {
                cell.skipped += 1;
                continue;
            }
            if c.no_moves(i) {
                cell.no_moves += 1;
                continue;
            }
            match c.fingerprint(i) {
                Some(f) => cell.fingerprints.insert(f),
                None => cell.no_sketch = true,
            }
            let record = c.record(i, self.events.played(), &facts);
            cell.counts.add(&record, &record.game);
            cell.examples.offer(&c, i, &record, &self.events);
        }
        if cursor.peek()?.is_some() {
            bail!("internal error: an event of no game of its chunk");
        }
        Ok(())
    }

    fn merge(&mut self, summary: &RecordBatch) -> Result<()> {
        let c = Columns::of(summary)?;
        for i in 0..summary.num_rows() {
            let (source, month) = (c.source.value(i), month_key(get_str(c.month, i))?);
            let (time_class, elo_band) = (get_str(c.time_class, i), get(c.elo_band, i));
            let key = RowKey {
                month: month.map(|m| m.0),
                time_class: time_class.map(|t| self.time_classes.number(t)),
                elo_band,
                variant: self.variants.number(c.variant.value(i)),
                venue: c.venue(i),
                claimant: c.claimant(i),
            };
            let at = self.at(key);
            let cell = &mut self.cells[at].1;
            cell.skipped += c.skipped.value(i);
            cell.no_moves += c.no_moves.map_or(0, |a| a.value(i));
            cell.counts.merge(SummaryCounts::from_summary(&c.counts(i), &c.buckets(i)?));
            offer_candidates(&mut cell.examples, source, c.examples.value(i))?;
            match c.sketch(i)? {
                Some(sketch) => cell.fingerprints.merge(&sketch),
                None => cell.no_sketch = true,
            }
        }
        Ok(())
    }

    fn finish(&mut self, source: &str) -> Result<RecordBatch> {
        let mut cells = std::mem::take(&mut self.cells);
        self.rows.clear();
        self.last = None;
        let (time_classes, variants) = (&self.time_classes.names, &self.variants.names);
        // The keys with their names, and where each cell is (a cell is large to move).
        let mut order: Vec<_> = cells
            .iter()
            .enumerate()
            .map(|(at, (k, _))| {
                let time_class = k.time_class.map(|n| time_classes[n as usize].as_str());
                let variant = variants[k.variant as usize].as_str();
                (k.month, time_class, k.elo_band, variant, k.venue, k.claimant, at)
            })
            .collect();
        order.sort_unstable();
        let mut builder = table::Builder::with_capacity(order.len());
        for (.., at) in order {
            let (key, cell) = &mut cells[at];
            let (counts, first_threefold_ply) = cell.counts.summary_counts();
            let candidates: Vec<Candidate> = std::mem::take(&mut cell.examples)
                .cases
                .into_iter()
                .flat_map(|c| c.items)
                .map(|(first, _, example)| Candidate { flagged: !first, example })
                .collect();
            builder.append(Row {
                month: key.month.map(month_name),
                time_class: key.time_class.map(|n| time_classes[n as usize].clone()),
                elo_band: key.elo_band,
                variant: variants[key.variant as usize].clone(),
                venue: key.venue.as_str().to_owned(),
                claimant: key.claimant.as_str().to_owned(),
                skipped: cell.skipped,
                no_moves: cell.no_moves,
                counts,
                first_threefold_ply,
                examples: if candidates.is_empty() { "[]".to_owned() } else { serde_json::to_string(&candidates)? },
                fingerprints: (!cell.no_sketch).then(|| cell.fingerprints.to_bytes()),
            });
        }
        Ok(builder.finish(source)?)
    }
}

/// Why the summary cannot answer `filter` (`None`: it can): a date bound inside a month, or an
/// Elo bound inside a band of 100.
pub fn unanswerable(filter: &Filter) -> Option<String> {
    let mut why = Vec::new();
    if let Some(d) = filter.since.filter(|&d| civil_from_days(d).2 != 1) {
        why.push(format!("--since {} is not a month's first day", super::filter::iso(d)));
    }
    if let Some(d) = filter.until.filter(|&d| civil_from_days(d + 1).2 != 1) {
        why.push(format!("--until {} is not a month's last day", super::filter::iso(d)));
    }
    if let Some(e) = filter.min_elo.filter(|e| e.rem_euclid(100) != 0) {
        why.push(format!("--min-elo {e} is not a multiple of 100"));
    }
    if let Some(e) = filter.max_elo.filter(|e| e.rem_euclid(100) != 99) {
        why.push(format!("--max-elo {e} does not end a band of 100 (like 1999)"));
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// The summary files of a source (`DIR/summary/source=S/*.parquet`): one since ingest merges its
/// parts' at the commit; one per part in a dataset written before that (added up all the same).
fn summary_files(dir: &Path, source: &str) -> Result<Vec<std::path::PathBuf>> {
    let folder = dir.join("summary").join(format!("source={source}"));
    let Ok(entries) = std::fs::read_dir(&folder) else { return Ok(Vec::new()) };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.ends_with(".parquet") && !name.starts_with('.') {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The sources whose parts the filter lets in and that have no summary (written before the
/// summary existed), in the parts' order.
pub fn missing(dir: &Path, filter: &Filter) -> Result<Vec<String>> {
    let mut missing: Vec<String> = Vec::new();
    for part in tables::parts(dir)? {
        if filter.source_matches(&part.source)
            && !missing.contains(&part.source)
            && summary_files(dir, &part.source)?.is_empty()
        {
            missing.push(part.source);
        }
    }
    Ok(missing)
}

/// The summary's columns of one batch.
struct Columns<'a> {
    source: &'a StringArray,
    month: &'a StringArray,
    time_class: &'a StringArray,
    elo_band: &'a Int32Array,
    variant: &'a StringArray,
    /// `None` in a summary written before the column was (the `lichess` column, or before it
    /// the source's name, then says whether the games were Lichess's; other venues are unknown).
    venue: Option<&'a StringArray>,
    lichess: Option<&'a BooleanArray>,
    /// `None` in a summary written before the column was (the venue's rules then say).
    claimant: Option<&'a StringArray>,
    skipped: &'a UInt64Array,
    /// `None` in a summary written before the column was.
    no_moves: Option<&'a UInt64Array>,
    counts: Vec<&'a UInt64Array>,
    buckets: &'a MapArray,
    examples: &'a StringArray,
    /// `None` in a summary written before the column was.
    fingerprints: Option<&'a BinaryArray>,
}

impl<'a> Columns<'a> {
    fn of(b: &'a RecordBatch) -> Result<Columns<'a>> {
        let counts =
            table::counts().iter().map(|name| tables::numbers::<UInt64Type>(b, name)).collect::<Result<_>>()?;
        Ok(Columns {
            source: tables::strings(b, table::SOURCE)?,
            month: tables::strings(b, table::MONTH)?,
            time_class: tables::strings(b, table::TIME_CLASS)?,
            elo_band: tables::numbers::<Int32Type>(b, table::ELO_BAND)?,
            variant: tables::strings(b, table::VARIANT)?,
            venue: match b.column_by_name(table::VENUE) {
                Some(_) => Some(tables::strings(b, table::VENUE)?),
                None => None,
            },
            lichess: match b.column_by_name(table::LICHESS) {
                Some(column) => Some(column.as_boolean_opt().context("column lichess is not boolean")?),
                None => None,
            },
            claimant: match b.column_by_name(table::CLAIMANT) {
                Some(_) => Some(tables::strings(b, table::CLAIMANT)?),
                None => None,
            },
            skipped: tables::numbers::<UInt64Type>(b, table::SKIPPED)?,
            no_moves: match b.column_by_name(table::NO_MOVES) {
                Some(_) => Some(tables::numbers::<UInt64Type>(b, table::NO_MOVES)?),
                None => None,
            },
            counts,
            buckets: b
                .column_by_name(table::FIRST_THREEFOLD_PLY)
                .and_then(|c| c.as_any().downcast_ref::<MapArray>())
                .ok_or_else(|| {
                anyhow!("column {} is missing or of an unexpected type", table::FIRST_THREEFOLD_PLY)
            })?,
            examples: tables::strings(b, table::EXAMPLES)?,
            fingerprints: match b.column_by_name(table::FINGERPRINTS) {
                Some(column) => Some(column.as_binary_opt().context("column fingerprints is not binary")?),
                None => None,
            },
        })
    }

    /// Row `i`'s games' venue ([`GameColumns::venue`]).
    fn venue(&self, i: usize) -> Venue {
        let lichess = match (self.venue, self.lichess) {
            (Some(venue), _) => return Venue::parse(venue.value(i)).unwrap_or(Venue::Unknown),
            (None, Some(lichess)) => lichess.value(i),
            (None, None) => filter::is_lichess(self.source.value(i)),
        };
        if lichess { Venue::Lichess } else { Venue::Unknown }
    }

    /// Who could claim in row `i`'s games ([`GameColumns::claimant`]).
    fn claimant(&self, i: usize) -> Claimant {
        match self.claimant.and_then(|c| get_str(c, i)).and_then(Claimant::parse) {
            Some(claimant) => claimant,
            None => Rulebook::of(self.venue(i), None).in_force(None).claimant,
        }
    }

    /// Row `i`'s fingerprint sketch; `None` where the summary has none.
    fn sketch(&self, i: usize) -> Result<Option<Sketch>> {
        match self.fingerprints {
            Some(a) if a.is_valid(i) => Ok(Some(Sketch::from_bytes(a.value(i)).context("fingerprints")?)),
            _ => Ok(None),
        }
    }

    /// Row `i`'s counts.
    fn counts(&self, i: usize) -> Counts {
        Counts::from_values(self.counts.iter().map(|a| a.value(i)))
    }

    fn buckets(&self, i: usize) -> Result<Vec<(u32, u64)>> {
        let entries = self.buckets.value(i);
        let keys = entries.column(0).as_any().downcast_ref::<UInt32Array>();
        let values = entries.column(1).as_any().downcast_ref::<UInt64Array>();
        let (Some(keys), Some(values)) = (keys, values) else {
            bail!("{}: unexpected types", table::FIRST_THREEFOLD_PLY)
        };
        Ok((0..keys.len()).map(|j| (keys.value(j), get(values, j).unwrap_or(0))).collect())
    }
}

/// The report from the summary: the same as [`aggregate::compute`] gives for a filter that
/// [`unanswerable`] passes, over a dataset whose every matching part has a summary ([`missing`]).
pub fn compute(dir: &Path, filter: &Filter, by: Option<&By>, min_games: u64) -> Result<Report> {
    let parts = tables::parts(dir)?;
    if parts.is_empty() {
        bail!("{} has no games/source=*/*.parquet: not a threefold dataset (see `threefold ingest`)", dir.display());
    }
    let mut pass = Pass::new(filter, by, &[]);
    let columns: Vec<&str> =
        [table::SOURCE, table::MONTH, table::TIME_CLASS, table::ELO_BAND, table::VARIANT, table::SKIPPED]
            .into_iter()
            .chain(table::counts().iter().copied())
            .chain([table::FIRST_THREEFOLD_PLY, table::EXAMPLES])
            .collect();
    for (i, part) in parts.iter().enumerate() {
        pass.rows += tables::row_count(&part.games)?;
        // A source's summary once, with its first part (parts are listed source by source).
        if !filter.source_matches(&part.source) || (i > 0 && parts[i - 1].source == part.source) {
            continue;
        }
        for file in summary_files(dir, &part.source)? {
            let add = |pass: &mut Pass| -> Result<()> {
                let optional = [table::VENUE, table::LICHESS, table::CLAIMANT, table::NO_MOVES, table::FINGERPRINTS];
                let (batches, _) = tables::batches_with(&file, &columns, &optional, &|_, _| true)?;
                for batch in batches {
                    let batch = batch?;
                    add_rows(pass, &part.source, &Columns::of(&batch)?, filter, by)?;
                }
                Ok(())
            };
            add(&mut pass).with_context(|| format!("in {}", file.display()))?;
        }
    }
    Ok(aggregate::report(dir, filter, by, min_games, pass))
}

/// A summary row's month (`YYYY-MM`, `None`: undated): its key (year * 12 + month - 1) and its
/// first day (days since 1970-01-01).
fn month_key(text: Option<&str>) -> Result<Option<(i64, i32)>> {
    let Some(text) = text else { return Ok(None) };
    let (year, month) = text.rsplit_once('-').context("a month that is not YYYY-MM")?;
    let (year, month): (i64, u32) = (year.parse()?, month.parse()?);
    Ok(Some((year * 12 + i64::from(month) - 1, days_from_civil(year, month, 1))))
}

/// Offers a summary row's example candidates (`text`, JSON) of `source`, each in its case.
fn offer_candidates(examples: &mut Examples, source: &str, text: &str) -> Result<()> {
    let candidates: Vec<Candidate> =
        if text == "[]" { Vec::new() } else { serde_json::from_str(text).context("examples")? };
    for candidate in candidates {
        let slot = match candidate.example.case.as_str() {
            "castling" => 0,
            "en_passant" => 1,
            _ => 2,
        };
        let key = (source.to_owned(), candidate.example.frame_offset, candidate.example.byte_offset);
        examples.cases[slot].offer((!candidate.flagged, key, candidate.example));
    }
    Ok(())
}

/// Adds the rows of one summary batch of `source` that the filter lets in.
fn add_rows(pass: &mut Pass, source: &str, c: &Columns, filter: &Filter, by: Option<&By>) -> Result<()> {
    for i in 0..c.month.len() {
        let month = month_key(get_str(c.month, i))?;
        let time_class = get_str(c.time_class, i);
        let elo_band = get(c.elo_band, i);
        // The month's first day stands for its games: with bounds on whole months, and Elo
        // bounds on the edges of the bands, every game of the row passes or none does.
        let facts = GameFacts { source, date: month.map(|m| m.1), time_class, venue: c.venue(i), lower_elo: elo_band };
        // Only the summaries of matching sources are read (`compute`).
        if !filter.matches_in_source(&facts) {
            continue;
        }
        let counts = c.counts(i);
        let skipped = c.skipped.value(i);
        let no_moves = c.no_moves.map_or(0, |a| a.value(i));
        let games = counts.games;
        if games + skipped + no_moves == 0 {
            continue;
        }
        pass.matched += games + skipped + no_moves;
        pass.fingerprinted += games;
        if games > 0 {
            match c.sketch(i)? {
                Some(sketch) => pass.fingerprints.merge(&sketch),
                None => pass.no_sketch = true,
            }
        }
        pass.skipped += skipped;
        pass.no_moves += no_moves;
        if !pass.sources.iter().any(|s| s == source) {
            pass.sources.push(source.to_owned());
        }
        let mut examples = Examples::default();
        offer_candidates(&mut examples, source, c.examples.value(i))?;
        if !examples.cases.iter().all(|c| c.items.is_empty()) {
            pass.examples.merge(examples);
        }
        if games == 0 {
            continue;
        }
        // Bands of 200 (the report's) from bands of 100.
        let band = elo_band.map(|b| b.div_euclid(200) * 200);
        let tc = time_class.unwrap_or(TimeClass::UNKNOWN);
        let venue = c.venue(i);
        let tally = Tally::from_summary(&counts, &c.buckets(i)?, venue, c.claimant(i), band, tc, month.map(|m| m.0));
        if let Some(by) = by {
            let variant = c.variant.value(i);
            let facts =
                GroupFacts { source, time_class, band, variant, date: month.map(|m| m.1), venue: venue.as_str() };
            let label = by.label(&facts).into_owned();
            pass.groups.entry(label).or_default().merge(tally.clone());
        }
        pass.all.merge(tally);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn month_names_are_those_of_format() {
        for key in [-13_i64, -1, 0, 11, 12, 1997 * 12, 2026 * 12 + 11, 9999 * 12 + 11, 10_000 * 12, 123_456_789] {
            let (year, month) = (key.div_euclid(12), key.rem_euclid(12) + 1);
            assert_eq!(month_name(key), format!("{year:04}-{month:02}"), "{key}");
        }
    }
}
