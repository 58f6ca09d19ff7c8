//! The pieces a report's reading is cut into: each row group of a part that the filter does not
//! rule out by its statistics is read on its own, the rest only counted. `aggregate` counts the
//! pieces, `copies` finds the copies among them, in the same order.

use anyhow::{Result, bail};

use crate::read::key::GameKey;

use super::{filter::Filter, tables};

/// A piece of the work, counted on its own (in parallel with the others).
pub(crate) enum Piece<'p> {
    /// Rows counted, not read: a part of a source no `--source` matches, or row groups whose
    /// statistics rule out the filter.
    Count(u64),
    /// One row group of a part's games, and the events of the keys from its first game's (the
    /// part's start for the first row group) to the next row group's first (the part's end).
    Read { part: &'p tables::Part, group: usize, from: Option<GameKey>, to: Option<GameKey> },
}

/// A part's units: each row group that the filter does not rule out by its statistics.
pub(crate) fn units<'p>(part: &'p tables::Part, filter: &Filter) -> Result<Vec<Piece<'p>>> {
    if !filter.source_matches(&part.source) {
        return Ok(vec![Piece::Count(tables::row_count(&part.games)?)]);
    }
    let groups = tables::row_groups(&part.games, &|g| {
        !filter.rules_out(tables::range(g, "UTCDate"), tables::range(g, "WhiteElo"), tables::range(g, "BlackElo"))
    })?;
    let firsts = if groups.len() > 1 { tables::first_keys(&part.games)? } else { vec![None; groups.len()] };
    if firsts.iter().flatten().zip(firsts.iter().flatten().skip(1)).any(|(a, b)| a >= b) {
        bail!("{}: games are not sorted by key across row groups", part.games.display());
    }
    let mut units = Vec::new();
    for (group, &(rows, kept)) in groups.iter().enumerate() {
        if !kept {
            units.push(Piece::Count(rows));
            continue;
        }
        // From this row group's first key (the first: from the start); to the next non-empty
        // row group's first key (the last: to the end).
        let from = if group == 0 { None } else { firsts[group] };
        let to = firsts[group + 1..].iter().flatten().next().copied();
        units.push(Piece::Read { part, group, from, to });
    }
    Ok(units)
}
