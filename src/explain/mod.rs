//! One game explained, for checking a surprising row by eye: a readable timeline of its
//! repetition events ([`explain`]), and a page with each event's position and its earlier
//! occurrences as boards ([`page`], [`board_svg`]); the game found by its key in a file or a
//! dataset ([`locate`]). `threefold explain` prints and writes them; the report links its
//! example games to their pages.

pub(crate) mod board_svg;
pub(crate) mod locate;
pub(crate) mod page;
mod words;

use std::{collections::HashMap, fmt::Write as _, ops::ControlFlow, path::Path};

use anyhow::{Context, Result, bail};

use shakmaty::{CastlingSide, Chess, Color, Position, Square};

use self::{
    locate::{Found, find, source_input},
    words::{board_claim, color_name, no_declared_claim, ordinal, rules_line},
};
use crate::{
    engine::{
        event::{Detail, Event, Perpetual},
        laws::Claimant,
        replay::{Fate, GameEnd},
        start::{Start, Variant},
        vocabulary::printable,
    },
    pgn::{self, Game},
    read::key::GameKey,
};

/// The positions of the replayed mainline and the label of the move that reached each one.
struct Timeline {
    positions: Vec<Chess>,
    labels: Vec<String>,
}

impl Timeline {
    fn new(game: &Game) -> Option<Timeline> {
        // The Lichess variants' positions are another library's (crates/core/src/engine/variant.rs): their
        // events are listed by `dump`, not told here.
        if let Variant::Lichess(_) = game.variant {
            return None;
        }
        let start = Start::new(&game.variant, game.tag("FEN")).ok()?;
        let mut pos = start.pos;
        let mut positions = vec![pos.clone()];
        let mut labels = vec!["the start position".to_owned()];
        for san in &game.moves {
            let Ok(m) = san.san.to_move(&pos) else { break };
            let number = pos.fullmoves();
            let dots = if pos.turn() == Color::White { "." } else { "..." };
            labels.push(format!("{number}{dots}{san}"));
            pos.play_unchecked(m);
            positions.push(pos.clone());
        }
        Some(Timeline { positions, labels })
    }

    fn label(&self, ply: u32) -> &str {
        self.labels.get(ply as usize).map_or("?", String::as_str)
    }

    fn labels(&self, plies: &[u32]) -> String {
        plies.iter().map(|&p| self.label(p)).collect::<Vec<_>>().join(", ")
    }

    /// The castling rights held at `earlier` and gone at `now`, in words.
    fn lost_rights(&self, earlier: u32, now: u32) -> Vec<String> {
        let (Some(a), Some(b)) = (self.positions.get(earlier as usize), self.positions.get(now as usize)) else {
            return Vec::new();
        };
        let mut lost = Vec::new();
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if a.castles().has(color, side) && !b.castles().has(color, side) {
                    let side = if side == CastlingSide::KingSide { "kingside" } else { "queenside" };
                    lost.push(format!("{}'s {side} castling right", color_name(color)));
                }
            }
        }
        lost
    }

    fn legal_ep(&self, ply: u32) -> Option<Square> {
        self.positions.get(ply as usize).and_then(|p| p.legal_ep_square())
    }

    /// The first ply after `ply` reached by an irreversible move (a pawn move, a capture, a
    /// castling right lost): where play left the repetition.
    fn left_after(&self, ply: u32) -> Option<u32> {
        let pairs = self.positions.windows(2).enumerate().skip(ply as usize);
        pairs
            .map(|(i, w)| (i as u32 + 1, w))
            .find(|(_, w)| {
                w[1].halfmoves() == 0 || w[1].castles().castling_rights() != w[0].castles().castling_rights()
            })
            .map(|(q, _)| q)
    }
}

/// The claims a ply offered: on the board, by a declared move, and whether a declared move was
/// played next (the parts of [`GameEnd::fate`]).
#[derive(Clone, Copy, Default)]
struct Offer {
    on_board: bool,
    by_move: bool,
    played: bool,
}

/// What became of the claims offered at `ply`, in words: the engine's rule ([`GameEnd::fate`]).
fn fate_words(t: &Timeline, end: &GameEnd, offer: Offer, ply: u32) -> String {
    match end.fate(ply, offer.on_board, offer.by_move, offer.played) {
        Fate::Claimed if end.went_on_after(ply) => "claimed by the declared move played next".to_owned(),
        Fate::Claimed => "claimed".to_owned(),
        Fate::PassedOver => match end.plies - ply {
            0 => "passed over; the game ended drawn here".to_owned(),
            1 => "passed over; the game ended drawn in the same repetition 1 ply later".to_owned(),
            n => format!("passed over; the game ended drawn in the same repetition {n} plies later"),
        },
        Fate::Missed => match t.left_after(ply) {
            Some(q) if q <= end.plies => format!("missed: play left the repetition at {}", t.label(q)),
            _ if end.stopped => "missed: the replay stopped at a bad move token after it".to_owned(),
            _ if end.decisive => "missed: the game was decided".to_owned(),
            _ => "missed: the game went on and did not end drawn".to_owned(),
        },
    }
}

/// A repetition event in words: which earlier positions, a perpetual check, a claim.
fn repetition(t: &Timeline, e: &Event) -> String {
    let Detail::Repetition { occurrence, earlier_plies, cycle_plies, perpetual, .. } = &e.detail else {
        return String::new();
    };
    let mut line = format!(
        "{}: the same position (9.2.2) as after {} occurs for the {} time.",
        t.label(e.ply),
        t.labels(earlier_plies),
        ordinal(*occurrence)
    );
    if let Some(p) = perpetual {
        let who = p.side();
        let whose = if *p == Perpetual::Both { "every move" } else { &format!("every {who} move") };
        let since = t.label(e.ply - cycle_plies);
        let _ = write!(line, " Perpetual check by {who}: {whose} since {since} gave check.");
    }
    line
}

fn describe(
    t: &Timeline,
    end: &GameEnd,
    offers: &HashMap<u32, Offer>,
    claimant: Claimant,
    e: &Event,
    out: &mut String,
) {
    let here = t.label(e.ply);
    let mover = color_name(e.turn);
    let fate = || fate_words(t, end, offers.get(&e.ply).copied().unwrap_or_default(), e.ply);
    let _ = match &e.detail {
        Detail::Repetition { automatic: true, .. } => {
            writeln!(out, "  {} The game is drawn automatically (fivefold, 9.6.1).", repetition(t, e))
        }
        Detail::Repetition { claimable: true, .. } => {
            writeln!(out, "  {} {}: {}.", repetition(t, e), board_claim(claimant, mover), fate())
        }
        Detail::Repetition { .. } => writeln!(out, "  {}", repetition(t, e)),
        Detail::PseudoRepetition { board_occurrence, fide_occurrence, earlier_plies, .. } => {
            let first = earlier_plies.first().copied().unwrap_or(0);
            let mut why = Vec::new();
            for &p in earlier_plies {
                for lost in t.lost_rights(p, e.ply) {
                    if !why.contains(&lost) {
                        why.push(lost);
                    }
                }
            }
            let mut reasons: Vec<String> = why.iter().map(|w| format!("{w} is gone")).collect();
            let now_ep = t.legal_ep(e.ply);
            if let Some(p) = earlier_plies.iter().copied().find(|&p| t.legal_ep(p) != now_ep) {
                reasons.push(match (t.legal_ep(p), now_ep) {
                    (Some(sq), None) => {
                        format!("the en-passant capture on {sq} possible after {} is not possible now", t.label(p))
                    }
                    (None, Some(sq)) => {
                        format!("an en-passant capture on {sq} is possible now, not after {}", t.label(p))
                    }
                    (a, b) => format!("the en-passant square differs ({a:?} then, {b:?} now)"),
                });
            }
            writeln!(
                out,
                "  {here}: the board of {} again, but {}: not the same position (9.2.2). The board has occurred {board_occurrence} times, the position {fide_occurrence} {}.",
                t.label(first),
                if reasons.is_empty() { "the rights differ".to_owned() } else { reasons.join(" and ") },
                if *fide_occurrence == 1 { "time" } else { "times" },
            )
        }
        Detail::HiddenRepetition { fen_occurrence, fide_occurrence, earlier_plies } => writeln!(
            out,
            "  {here}: the same position (9.2.2) as after {}, though FEN strings differ in the e.p. field (a double push with no legal e.p. capture): FEN comparison counts {fen_occurrence}, FIDE counts {fide_occurrence}.",
            t.labels(earlier_plies)
        ),
        Detail::ClaimByMove { san, occurrence, earlier_plies, played, .. } => writeln!(
            out,
            "  {here}: {mover} may claim a draw by declaring {san} (9.2.1.1): the position after it would occur for the {} time (as after {}); {}: {}.",
            ordinal(*occurrence),
            t.labels(earlier_plies),
            match (*played, end.went_on_after(e.ply)) {
                (true, _) => "the move was played",
                (false, true) => "another move was played",
                (false, false) => "the game ended here",
            },
            no_declared_claim(claimant).map_or_else(fate, str::to_owned)
        ),
    };
}

/// The claims each ply offered, from its events, as the game's rules in force had them (a
/// declared move's only where such a claim existed, as the summary counts).
fn offers(events: &[Event], claimant: Claimant) -> HashMap<u32, Offer> {
    let mut offers: HashMap<u32, Offer> = HashMap::new();
    for e in events {
        let offer = offers.entry(e.ply).or_default();
        match e.detail {
            Detail::Repetition { claimable: true, automatic: false, .. } => offer.on_board = true,
            Detail::ClaimByMove { played, .. } if claimant.declared_move() => {
                offer.by_move = true;
                offer.played |= played;
            }
            _ => {}
        }
    }
    offers
}

/// The whole timeline of `game` as text.
pub(crate) fn explain(game: &Game) -> String {
    let mut out = String::new();
    // Tag values are the PGN's: never raw control characters on a terminal.
    let tag = |n: &str| printable(game.tag(n).unwrap_or("?")).into_owned();
    let _ = writeln!(
        out,
        "{} - {}, {} {} (round {}), {}",
        tag("White"),
        tag("Black"),
        tag("Event"),
        tag("Date"),
        tag("Round"),
        tag("Result")
    );
    let Some(analysis) = &game.analysis else {
        let _ = writeln!(out, "Variant {}: not replayed.", game.variant.name());
        return out;
    };
    let s = &analysis.summary;
    let _ = writeln!(
        out,
        "Variant {}; {} plies replayed; highest occurrence {}; final position: {}; draw reason: {}.",
        game.variant.name(),
        s.plies,
        s.max_occurrence,
        s.final_status.as_str(),
        s.draw_reason.map_or("-", |r| r.as_str())
    );
    if let Some(line) = rules_line(game.claimant) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(err) = &analysis.error {
        let _ = writeln!(out, "Replay stopped: {err}.");
    }
    let Some(timeline) = Timeline::new(game) else {
        if let Variant::Lichess(_) = game.variant {
            let _ = writeln!(out, "{} events: see `threefold dump`.", analysis.events.len());
        }
        return out;
    };
    if analysis.events.is_empty() {
        let _ = writeln!(out, "No position occurs twice.");
    }
    let offers = offers(&analysis.events, game.claimant);
    for e in &analysis.events {
        describe(&timeline, &analysis.end, &offers, game.claimant, e, &mut out);
    }
    if s.claim_opportunities > 0 {
        let _ = writeln!(
            out,
            "Claim opportunities: {}, missed: {}, passed over: {} (missed on the board {} of {}, by a declared move {} of {}).",
            s.claim_opportunities,
            s.missed_claims,
            s.passed_over_claims,
            s.missed_claims_on_board,
            s.claim_opportunities_on_board,
            s.missed_claims_by_move,
            s.claim_opportunities_by_move
        );
    }
    out
}

/// The game of `text`, the PGN that [`find`] cut out at `key` of `file`, with its moves.
pub(crate) fn read_game(text: &[u8], key: GameKey, file: &Path) -> Result<Game> {
    let mut game = None;
    let read = pgn::for_each_game_with(text, pgn::GameVisitor::keeping_moves(), |g| {
        game = Some(g);
        ControlFlow::Break(())
    });
    let (Ok(_), Some(game)) = (read, game) else {
        bail!("cannot read the game at {} of {}", key.text(), file.display());
    };
    Ok(game)
}

/// The page of the game at `key` of `source` in the dataset at `dir`: what `threefold explain
/// DIR --source SOURCE --game KEY --html FILE` writes (for the report's example games).
pub(crate) fn page_of_dataset_game(dir: &Path, source: &str, key: GameKey) -> Result<String> {
    let (file, source) = source_input(dir, Some(source))?;
    let found = find(&file, Some(key)).with_context(|| format!("cannot read {}", file.display()))?;
    let Found::Game { key, text } = found else {
        bail!("no game starts at {} in {}", key.text(), file.display());
    };
    let game = read_game(&text, key, &file)?;
    let site = printable(game.tag("Site").unwrap_or("?")).into_owned();
    let heading = format!("Game {} of source {source} ({}), Site {site}", key.text(), file.display());
    Ok(page::render(&game, &heading, &explain(&game)).html)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explained(pgn_text: &str) -> String {
        let mut out = String::new();
        pgn::for_each_game_with(pgn_text.as_bytes(), pgn::GameVisitor::keeping_moves(), |game| {
            out = explain(&game);
            ControlFlow::Break(())
        })
        .unwrap();
        out
    }

    #[test]
    fn a_perpetual_check_is_named() {
        let text = explained(
            "[FEN \"7k/6p1/7p/5Q2/8/8/1qr2PPP/6K1 w - - 0 1\"]\n\n1. Qf8+ Kh7 2. Qf5+ Kh8 3. Qf8+ Kh7 4. Qf5+ Kh8 *\n",
        );
        assert!(
            text.contains(
                "2...Kh8: the same position (9.2.2) as after the start position occurs for the 2nd time. \
                 Perpetual check by White: every White move since the start position gave check."
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "4...Kh8: the same position (9.2.2) as after the start position, 2...Kh8 occurs for the 3rd time. \
                 Perpetual check by White: every White move since 2...Kh8 gave check. White, to move, may claim"
            ),
            "{text}"
        );
        let text = explained("1. Nf3 Nf6 2. Ng1 Ng8 *\n");
        assert!(text.contains("occurs for the 2nd time.\n") && !text.contains("Perpetual"), "{text}");
    }

    /// The claims read by the game's rules in force, as its summary counts them: on chess.com
    /// since June 2019 the server drew, on Lichess either player claimed on the board; neither
    /// had a claim by a declared move.
    #[test]
    fn claims_are_worded_by_the_rules_in_force() {
        let shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8";
        let chess_com = explained(&format!("[Site \"Chess.com\"]\n[Date \"2020.05.05\"]\n\n{shuffle} 1/2-1/2\n"));
        assert!(chess_com.contains("the program drew a threefold itself"), "{chess_com}");
        assert!(
            chess_com.contains("2...Ng8 occurs for the 3rd time. The program running the game draws"),
            "{chess_com}"
        );
        assert!(chess_com.contains("the move was played: no claim by a declared move existed"), "{chess_com}");
        let lichess = explained(&format!("[Site \"https://lichess.org/abcdefgh\"]\n\n{shuffle} 5. e4 1-0\n"));
        assert!(lichess.contains("Either player may claim a draw (by a button, on this venue): missed"), "{lichess}");
        assert!(lichess.contains("missed on the board 1 of 1, by a declared move 0 of 0"), "{lichess}");
        let otb = explained(&format!("[Site \"Tilburg\"]\n[Event \"Interpolis\"]\n\n{shuffle} 5. e4 1-0\n"));
        assert!(otb.contains("White, to move, may claim a draw (9.2.1.2): missed") && !otb.contains("rules in force"));
    }

    /// The declared-move verdicts follow the engine's missed-claim rule (claimed, passed over,
    /// missed): Black may declare 4...Ng8, which makes the start position occur for the third
    /// time.
    #[test]
    fn a_declared_move_is_claimed_or_missed_as_the_summary_counts_it() {
        let shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1";
        for (rest, verdict) in [
            ("Ng8 1/2-1/2", "; the move was played: claimed by the declared move played next."),
            ("Ng8 0-1", "; the move was played: missed: the game was decided."),
            (
                "Ng8 5. Nf3 1/2-1/2",
                "; the move was played: passed over; the game ended drawn in the same repetition 2 plies later.",
            ),
            ("Ng8 5. e4 1/2-1/2", "; the move was played: missed: play left the repetition at 5.e4."),
            (
                "Nc6 1/2-1/2",
                "; another move was played: passed over; the game ended drawn in the same repetition 1 ply later.",
            ),
            ("1/2-1/2", "; the game ended here: claimed.\n"),
            ("0-1", "; the game ended here: missed: the game was decided."),
        ] {
            let text = explained(&format!("{shuffle} {rest}\n"));
            let claim = "4.Ng1: Black may claim a draw by declaring Ng8 (9.2.1.1): the position after it would \
                         occur for the 3rd time (as after the start position, 2...Ng8)";
            assert!(text.contains(&format!("{claim}{verdict}")), "{rest}: {text}");
        }
    }
}
