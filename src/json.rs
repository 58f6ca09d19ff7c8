//! Games as JSON lines, in the record format shared with the python-chess oracle
//! (`tests/oracle/FORMAT.md`).

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
    let analysis = game.analysis.as_ref();
    json!({
        "index": index,
        "white": game.tag("White"),
        "black": game.tag("Black"),
        "result": game.tag("Result"),
        "status": game.status(),
        "variant": game.variant.name(),
        "error": analysis.and_then(|a| a.error.as_ref()).map(|e| json!({
            "kind": e.kind.as_str(), "ply": e.ply, "token": e.token,
        })),
        "summary": analysis.map(|a| summary_json(&a.summary)),
        "events": analysis.map_or(Vec::new(), |a| a.events.iter().map(event_json).collect()),
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
        "kind": e.kind(),
        "ply": e.ply,
        "fullmove": e.fullmove,
        "turn": turn_char(e.turn).to_string(),
        "placement": id.placement,
        "castling": id.castling,
        "ep": id.ep.map(|sq| sq.to_string()),
        "fen": id.fen,
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
