//! Games as JSON lines, in the record format shared with the python-chess oracle
//! (`tests/oracle/FORMAT.md`).

use std::io::{self, Write};

use serde::{Serialize, Serializer, ser::SerializeMap};
use serde_json::{Value, json};
use shakmaty::Color;

use crate::{
    event::{Detail, Event},
    identity::turn_char,
    pgn::Game,
    summary::Summary,
};

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

pub fn game_json(index: u64, game: &Game) -> Value {
    let mut record = record_without_events(index, game);
    let events = game.analysis.as_ref().map_or(Vec::new(), |a| a.events.iter().map(event_json).collect());
    if let Value::Object(map) = &mut record {
        map.insert("events".into(), Value::Array(events));
    }
    record
}

/// Writes [`game_json`] as `serde_json::to_writer` would, byte for byte, but makes each event's
/// `Value` only while it is written: a game of thousands of shuffling moves has hundreds of
/// thousands of events, and as one `Value` (100,000 plies) it took 1.4 GB.
pub fn write_game(out: impl Write, index: u64, game: &Game) -> io::Result<()> {
    serde_json::to_writer(out, &Record { head: record_without_events(index, game), events: &Events(game) })
        .map_err(io::Error::from)
}

/// A game's record: its fields but the events, and the events, written where a `Value` object
/// (whose keys are sorted) puts them.
struct Record<'a> {
    head: Value,
    events: &'a Events<'a>,
}

struct Events<'a>(&'a Game);

impl Serialize for Events<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.analysis.as_ref().into_iter().flat_map(|a| a.events.iter().map(event_json)))
    }
}

impl Serialize for Record<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let fields = self.head.as_object().into_iter().flatten();
        let mut map = s.serialize_map(None)?;
        let mut events_written = false;
        for (key, value) in fields {
            if !events_written && key.as_str() > "events" {
                map.serialize_entry("events", self.events)?;
                events_written = true;
            }
            map.serialize_entry(key, value)?;
        }
        if !events_written {
            map.serialize_entry("events", self.events)?;
        }
        map.end()
    }
}

/// A game's record but its events.
fn record_without_events(index: u64, game: &Game) -> Value {
    let analysis = game.analysis.as_ref();
    json!({
        "index": index,
        "white": game.tag("White"),
        "black": game.tag("Black"),
        "result": game.tag("Result"),
        "status": game.status().as_str(),
        "variant": game.variant.name(),
        "error": analysis.and_then(|a| a.error.as_ref()).map(|e| json!({
            "kind": e.kind.as_str(), "ply": e.ply, "token": e.token,
        })),
        "summary": analysis.map(|a| summary_json(&a.summary)),
    })
}

pub fn summary_json(s: &Summary) -> Value {
    json!({
        "plies": s.plies,
        "max_occurrence": s.max_occurrence,
        "first_ply_occurrence_2": s.first_ply_occurrence_2,
        "first_ply_occurrence_3": s.first_ply_occurrence_3,
        "first_ply_occurrence_5": s.first_ply_occurrence_5,
        "positions_reaching_3": s.positions_reaching_3,
        "claim_opportunities": s.claim_opportunities,
        "first_claim_ply": s.first_claim_ply,
        "first_claim_color": s.first_claim_color.map(color_name),
        "missed_claims": s.missed_claims,
        "first_missed_claim_ply": s.first_missed_claim_ply,
        "claimant_score_after_first_missed": s.claimant_score_after_first_missed,
        "plies_after_fivefold": s.plies_after_fivefold,
        "pseudo_repetitions": s.pseudo_repetitions,
        "hidden_repetitions": s.hidden_repetitions,
        "first_ply_halfmove_100": s.first_ply_halfmove_100,
        "first_ply_halfmove_150": s.first_ply_halfmove_150,
        "final_status": s.final_status.as_str(),
        "draw_reason": s.draw_reason.map(|r| r.as_str()),
    })
}

pub fn event_json(e: &Event) -> Value {
    let id = &e.identity;
    let mut v = json!({
        "kind": e.kind().as_str(),
        "ply": e.ply,
        "fullmove": e.fullmove,
        "turn": turn_char(e.turn).to_string(),
        "placement": id.placement(),
        "castling": id.castling(),
        "ep": id.ep.map(|sq| sq.to_string()),
        "fen": id.fen(),
        "zobrist": format!("{:016x}", id.zobrist),
        "halfmove_clock": e.halfmove_clock,
        "earlier_plies": e.earlier_plies(),
    });
    let extra = match &e.detail {
        Detail::Repetition { occurrence, claimable, automatic, .. } => json!({
            "occurrence": occurrence, "claimable": claimable, "automatic": automatic,
        }),
        Detail::ClaimByMove { san, uci, occurrence, played, .. } => json!({
            "san": san, "uci": uci, "occurrence": occurrence, "played": played,
        }),
        Detail::PseudoRepetition { differs, board_occurrence, fide_occurrence, .. } => json!({
            "differs": differs.as_str(), "board_occurrence": board_occurrence,
            "fide_occurrence": fide_occurrence,
        }),
        Detail::HiddenRepetition { fen_occurrence, fide_occurrence, .. } => json!({
            "fen_occurrence": fen_occurrence, "fide_occurrence": fide_occurrence,
        }),
    };
    if let (Value::Object(map), Value::Object(more)) = (&mut v, extra) {
        map.extend(more);
    }
    v
}

#[cfg(test)]
mod tests {
    use std::{fmt::Write as _, ops::ControlFlow};

    use super::*;
    use crate::pgn;

    /// `write_game` writes the bytes of `game_json` serialized whole, on the sample games and on
    /// a long shuffle (events of every kind, games without events, and errors).
    #[test]
    fn write_game_writes_what_game_json_serializes() {
        let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/data-samples");
        let mut text = String::new();
        for entry in std::fs::read_dir(samples).unwrap() {
            text += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
            text += "\n";
        }
        text += "[Event \"shuffle\"]\n\n";
        for n in 1..=300 {
            write!(text, "{}. Nf3 Nf6 {}. Ng1 Ng8 ", 2 * n - 1, 2 * n).unwrap();
        }
        text += "Qxx9 *\n\n[Event \"empty\"]\n\n*\n";
        let (mut games, mut events) = (0, 0);
        pgn::for_each_game(text.as_bytes(), |game| {
            let mut streamed = Vec::new();
            write_game(&mut streamed, games, &game).unwrap();
            assert_eq!(String::from_utf8(streamed).unwrap(), serde_json::to_string(&game_json(games, &game)).unwrap());
            games += 1;
            events += game.analysis.as_ref().map_or(0, |a| a.events.len());
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(games > 300 && events > 600, "{games} games, {events} events");
    }
}
