//! A game's record as JSON: the format `threefold dump` prints and the python-chess oracle writes
//! (`tests/oracle/FORMAT.md`): the records' own `Serialize` derives, with every object's keys in
//! sorted order, as the oracle writes them.

use std::io::{self, Write};

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::{Game, GameStatus, venue::Venue};
use crate::engine::{ending::Ending, laws::Claimant, start::GameError};

/// A game's record. Fields in sorted key order; the summary and each event go through a
/// `Value` (whose keys are sorted). Events are made one at a time while they are written: a game
/// of thousands of shuffling moves has hundreds of thousands of them.
#[derive(Serialize)]
struct DumpRecord<'a> {
    base_seconds: Option<u32>,
    black: Option<&'a str>,
    claimant: Claimant,
    ending: Option<Ending>,
    error: Option<&'a GameError>,
    #[serde(serialize_with = "events")]
    events: &'a Game,
    increment_seconds: Option<u32>,
    index: u64,
    result: Option<&'a str>,
    status: GameStatus,
    #[serde(serialize_with = "sorted")]
    summary: Option<&'a crate::engine::summary::Summary>,
    variant: &'a str,
    venue: Venue,
    white: Option<&'a str>,
}

impl<'a> DumpRecord<'a> {
    fn of(index: u64, game: &'a Game) -> DumpRecord<'a> {
        let time_control = game.time_control;
        DumpRecord {
            base_seconds: time_control.map(|(base, _)| base),
            black: game.tag("Black"),
            claimant: game.claimant,
            ending: game.ending,
            error: game.error(),
            events: game,
            increment_seconds: time_control.map(|(_, increment)| increment),
            index,
            result: game.tag("Result"),
            status: game.status(),
            summary: game.analysis.as_ref().map(|a| &a.summary),
            variant: game.variant.name(),
            venue: game.venue,
            white: game.tag("White"),
        }
    }
}

/// A record written with its keys sorted.
struct Sorted<'a, T>(&'a T);

impl<T: Serialize> Serialize for Sorted<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_value(self.0).map_err(serde::ser::Error::custom)?.serialize(s)
    }
}

fn sorted<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    Sorted(value).serialize(s)
}

fn events<S: Serializer>(game: &&Game, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(game.analysis.as_ref().map_or(&[][..], |a| &a.events).iter().map(Sorted))
}

/// A game's record as one `Value`.
pub fn game_json(index: u64, game: &Game) -> serde_json::Result<Value> {
    serde_json::to_value(DumpRecord::of(index, game))
}

/// Writes a game's record as one line of JSON (without the newline).
pub fn write_game(out: impl Write, index: u64, game: &Game) -> io::Result<()> {
    serde_json::to_writer(out, &DumpRecord::of(index, game)).map_err(io::Error::from)
}
