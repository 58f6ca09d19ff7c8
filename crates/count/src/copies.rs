//! Copies: the same game (same fingerprint) more than once in a report's selection, as when one
//! file is ingested under two source names. Every report says about how many there are, from a
//! [`Sketch`] of the fingerprints (summed from the summary, or built while reading the games);
//! `--dedup` finds them exactly, in a first pass over the games ([`find`]), and the counting
//! pass leaves out every copy but the first by (source, frame_offset, byte_offset), as the
//! `games_unique` view does. The first pass holds 16 bytes per selected game (fingerprint,
//! unit, row): ~1.5 GB for a Lichess month of 95 M games, hence opt-in.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use arrow_array::types::{Date32Type, Int16Type, UInt64Type};
use rayon::prelude::*;

use crate::dataset::schema::col;

use super::{
    filter::{self, Filter, GameFacts},
    model::{LeftOut, SourceCopies},
    piece::Piece,
    tables::{self, get, get_str},
};

/// The rows each unit leaves out (`--dedup`), found by [`find`].
pub(super) struct Dedup {
    /// By unit (the order of `aggregate::compute`'s units): sorted rows of its row group.
    out: Vec<Vec<u32>>,
    pub left_out: LeftOut,
}

impl Dedup {
    #[inline]
    pub(super) fn leaves_out(&self, unit: usize, row: u32) -> bool {
        self.out.get(unit).is_some_and(|rows| rows.binary_search(&row).is_ok())
    }
}

const COLUMNS: [&str; 10] = [
    col::SOURCE,
    col::LICHESS_ID,
    col::FRAME_OFFSET,
    col::BYTE_OFFSET,
    "Date",
    "UTCDate",
    "WhiteElo",
    "BlackElo",
    col::TIME_CLASS,
    col::FINGERPRINT,
];

/// One unit's selected games with a fingerprint: (fingerprint, row), and its source and first
/// and last keys (to check that units come in (source, key) order).
type Found = (Vec<(u64, u32)>, Option<(String, (u64, u64), (u64, u64))>);

fn read(unit: &Piece, filter: &Filter) -> Result<Found> {
    let &Piece::Read { part, group, .. } = unit else { return Ok((Vec::new(), None)) };
    // The venue column is newer than some datasets: `venue_at` reads their Lichess games.
    let (batches, _) = tables::batches_with(&part.games, &COLUMNS, &[col::VENUE], &|i, _| i == group)?;
    let (mut found, mut row, mut keys) = (Vec::new(), 0_u32, None::<((u64, u64), (u64, u64))>);
    for batch in batches {
        let b = batch?;
        let source = tables::strings(&b, col::SOURCE)?;
        let lichess_id = tables::strings(&b, col::LICHESS_ID)?;
        let venue = match b.column_by_name(col::VENUE) {
            Some(_) => Some(tables::strings(&b, col::VENUE)?),
            None => None,
        };
        let (frame, byte) = (
            tables::numbers::<UInt64Type>(&b, col::FRAME_OFFSET)?,
            tables::numbers::<UInt64Type>(&b, col::BYTE_OFFSET)?,
        );
        let (date, utc) = (tables::strings(&b, "Date")?, tables::numbers::<Date32Type>(&b, "UTCDate")?);
        let elos = (tables::numbers::<Int16Type>(&b, "WhiteElo")?, tables::numbers::<Int16Type>(&b, "BlackElo")?);
        let time_class = tables::strings(&b, col::TIME_CLASS)?;
        let fingerprint = tables::numbers::<UInt64Type>(&b, col::FINGERPRINT)?;
        for i in 0..b.num_rows() {
            let key = (frame.value(i), byte.value(i));
            keys = Some((keys.map_or(key, |k| k.0), key));
            // As `GameColumns::facts`.
            let lower_elo = get(elos.0, i).zip(get(elos.1, i)).map(|(w, b)| i32::from(w.min(b)));
            let facts = GameFacts {
                source: source.value(i),
                date: filter::game_date(get(utc, i), get_str(date, i)),
                time_class: get_str(time_class, i),
                venue: filter::venue_at(venue, lichess_id, source, i),
                lower_elo,
            };
            if let Some(f) = get(fingerprint, i)
                && filter.matches_in_source(&facts)
            {
                found.push((f, row));
            }
            row += 1;
        }
    }
    Ok((found, keys.map(|(first, last)| (part.source.clone(), first, last))))
}

/// The first pass of `--dedup`: which rows of which units are copies of a game before them by
/// (source, frame_offset, byte_offset). Runs on the caller's thread pool; the result does not
/// depend on it.
pub(super) fn find(units: &[&Piece], filter: &Filter) -> Result<Dedup> {
    let read: Vec<Found> = units.par_iter().map(|u| read(u, filter)).collect::<Result<_>>()?;
    // Units are in source order, then key order: so (unit, row) is (source, key) order.
    let mut last: Option<(&str, (u64, u64))> = None;
    for (source, first, end) in read.iter().filter_map(|r| r.1.as_ref()) {
        if last.is_some_and(|(s, k)| (s, k) >= (source.as_str(), *first)) {
            bail!("source {source}: parts are not in key order, so --dedup cannot tell which copy is first");
        }
        last = Some((source, *end));
    }
    let sources: Vec<&str> = units
        .iter()
        .map(|u| match u {
            Piece::Read { part, .. } => part.source.as_str(),
            Piece::Count(_) => "",
        })
        .collect();
    let mut all: Vec<(u64, u32, u32)> = Vec::with_capacity(read.iter().map(|r| r.0.len()).sum());
    for (unit, (found, _)) in read.iter().enumerate() {
        all.extend(found.iter().map(|&(f, row)| (f, unit as u32, row)));
    }
    drop(read);
    all.par_sort_unstable();
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); units.len()];
    // (copy's source, kept game's source) -> copies.
    let mut pairs: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    let mut first: Option<(u64, u32)> = None;
    for &(f, unit, row) in &all {
        match first {
            Some((g, kept)) if g == f => {
                out[unit as usize].push(row);
                let name = |u: u32| sources[u as usize];
                *pairs.entry((name(unit), name(kept))).or_default() += 1;
            }
            _ => first = Some((f, unit)),
        }
    }
    out.iter_mut().for_each(|rows| rows.sort_unstable());
    let mut left_out = LeftOut::default();
    for ((source, kept), n) in pairs {
        left_out.copies += n;
        match left_out.by_source.last_mut() {
            Some(s) if s.source == source => {
                s.copies += n;
                s.of_sources.push(kept.to_owned());
            }
            _ => left_out.by_source.push(SourceCopies {
                source: source.to_owned(),
                copies: n,
                of_sources: vec![kept.to_owned()],
            }),
        }
    }
    Ok(Dedup { out, left_out })
}
