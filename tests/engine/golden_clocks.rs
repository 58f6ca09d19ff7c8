//! Golden tests of the clocks and evaluations, worked out by hand: which comment's
//! `[%clk]` / `[%eval]` belongs to which event and to whom (docs/format.md "Clocks and
//! evaluations"). The side to move at ply p made move p - 1, so its clock is the one written
//! after that move; the opponent's is the one after move p; the evaluation is the one after
//! move p, from White's side on events and from the claimant's in the summary.

use std::ops::ControlFlow;

use threefold::{Event, Game, Summary, for_each_game};

fn game(pgn: &str) -> Game {
    let mut out = Vec::new();
    for_each_game(pgn.as_bytes(), |g| {
        out.push(g);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(out.len(), 1);
    out.remove(0)
}

fn summary(g: &Game) -> &Summary {
    &g.analysis.as_ref().unwrap().summary
}

/// Each event as `ply kind: clock opponent_clock eval_cp eval_mate` (`-` for null).
fn clocks(g: &Game) -> Vec<String> {
    let show = |v: Option<i64>| v.map_or("-".to_owned(), |v| v.to_string());
    let events: &[Event] = &g.analysis.as_ref().unwrap().events;
    events
        .iter()
        .map(|e| {
            let c = &e.clocks;
            format!(
                "{} {}: {} {} {} {}",
                e.ply,
                e.kind().as_str(),
                show(c.clock_ms),
                show(c.opponent_clock_ms),
                show(c.eval_cp),
                show(c.eval_mate.map(i64::from))
            )
        })
        .collect()
}

/// A Lichess blitz game with a clock after every move: Black could claim first, at ply 7 by
/// declaring 4... Ng8, and played on: its clock then is the one after its move 3... Nf6, 2:50.
#[test]
fn a_lichess_game_whose_missed_claim_has_a_known_clock() {
    let g = game(
        "[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/abcdefgh\"]\n[Result \"1-0\"]\n\
         [TimeControl \"180+2\"]\n\n1. Nf3 { [%clk 0:03:00] } 1... Nf6 { [%clk 0:03:00] } 2. Ng1 { [%clk 0:02:58] } \
         2... Ng8 { [%clk 0:02:55] } 3. Nf3 { [%clk 0:02:57] } 3... Nf6 { [%clk 0:02:50] } 4. Ng1 { [%clk 0:02:56] } \
         4... Ng8 { [%clk 0:02:41] } 5. e4 { [%clk 0:02:54] } 1-0\n",
    );
    assert_eq!(g.time_control, Some((180, 2)));
    assert_eq!(
        clocks(&g),
        [
            "4 repetition: 178000 175000 - -",
            "5 repetition: 175000 177000 - -",
            "6 repetition: 177000 170000 - -",
            "7 repetition: 170000 176000 - -",
            "7 claim_by_move: 170000 176000 - -",
            "8 repetition: 176000 161000 - -",
            "8 claim_by_move: 176000 161000 - -",
        ]
    );
    let s = summary(&g);
    assert!(s.has_clocks && !s.has_evals);
    // Lichess takes no claim by a declared move: the first claim is the board's at ply 8, and
    // either player could make it, so no claimant's score.
    assert_eq!((s.first_claim_ply, s.first_missed_claim_ply), (Some(8), Some(8)));
    assert_eq!((s.first_claim_clock_ms, s.first_missed_claim_clock_ms), (Some(176_000), Some(176_000)));
    assert_eq!(s.claimant_score_after_first_missed, None);
}

/// chess.com writes tenths, and its `TimeControl` `180` (no increment) gives no base: the first
/// moves' clocks are then unknown. A malformed `[%clk 0:02]` is no clock: that move has none, and
/// the game not every clock.
#[test]
fn chess_com_tenths_and_a_malformed_clock() {
    let g = game(
        "[Site \"Chess.com\"]\n[TimeControl \"180\"]\n\n1. Nf3 {[%clk 0:02:59.9]} 1... Nf6 {[%clk 0:02:58.7]} \
         2. Ng1 {[%clk 0:02:55.1]} 2... Ng8 {[%clk 0:02:50.05]} 3. Nf3 {[%clk 0:02]} *\n",
    );
    assert_eq!(g.time_control, None);
    assert_eq!(clocks(&g), ["4 repetition: 175100 170050 - -", "5 repetition: 170050 - - -"]);
    assert!(!summary(&g).has_clocks);
}

/// Evaluations, mates among them, in comments with two commands and text around: each event
/// gets the one written after the move that made its position, from White's side; the summary
/// turns it to the claimant's. `[%eval 0.5 ]` (a space before `]`) is malformed, and of two
/// evaluations in one comment the first counts.
#[test]
fn evaluations_with_mates_two_commands_and_text() {
    let g = game(
        "[TimeControl \"60+0\"]\n[Result \"0-1\"]\n\n1. Nf3 {[%eval 0.5 ] [%clk 0:01:00]} Nf6 {[%eval 0.25]} \
         2. Ng1 {Good move? [%clk 0:00:59] [%eval -0.1] then [%eval 9.99]} Ng8 {[%eval #-3]} 3. Nf3 {[%eval #2,30]} \
         Nf6 {[%clk 0:00:58] text [%eval -1.5]} 4. Ng1 {[%eval 1.25]} Ng8 {[%eval #-1]} 0-1\n",
    );
    assert_eq!(
        clocks(&g),
        [
            "4 repetition: 59000 - - -3",
            "5 repetition: - - - 2",
            "6 repetition: - 58000 -150 -",
            "7 repetition: 58000 - 125 -",
            "7 claim_by_move: 58000 - 125 -",
            "8 repetition: - - - -1",
            "8 claim_by_move: - - - -1",
        ]
    );
    let s = summary(&g);
    assert!(!s.has_clocks && s.has_evals);
    // Black could claim at ply 7, where White stood +1.25: -125 for Black, who missed it (and
    // missed the claim at ply 8 of the decisive game too, where White is mated in 1).
    assert_eq!((s.first_claim_ply, s.first_claim_clock_ms, s.first_claim_eval_cp), (Some(7), Some(58_000), Some(-125)));
    assert_eq!((s.first_missed_claim_ply, s.first_missed_claim_eval_cp), (Some(7), Some(-125)));
    assert_eq!(s.first_missed_claim_eval_mate, None);
}

/// From a FEN with Black to move, Black makes move 1 and White move 2: at ply 7 White is to move
/// and its clock is the one after its move 4. Kd1 (move 6), the opponent's after 4... Ke8.
#[test]
fn from_a_fen_where_black_moves_first() {
    let g = game(
        "[FEN \"4k3/8/8/8/8/8/8/4K2R b - - 0 1\"]\n[TimeControl \"300+0\"]\n\n1... Kd8 {[%clk 0:04:50]} \
         2. Kd1 {[%clk 0:04:45]} Ke8 {[%clk 0:04:40]} 3. Ke1 {[%clk 0:04:35]} Kd8 {[%clk 0:04:30]} \
         4. Kd1 {[%clk 0:04:25]} Ke8 {[%clk 0:04:20]} 5. Ke1 {[%clk 0:04:15]} *\n",
    );
    assert_eq!(
        clocks(&g),
        [
            "4 repetition: 280000 275000 - -",
            "5 repetition: 275000 270000 - -",
            "6 repetition: 270000 265000 - -",
            "7 repetition: 265000 260000 - -",
            "7 claim_by_move: 265000 260000 - -",
            "8 repetition: 260000 255000 - -",
            "8 claim_by_move: 260000 255000 - -",
        ]
    );
    let s = summary(&g);
    assert!(s.has_clocks);
    assert_eq!(s.first_claim_color, Some(shakmaty::Color::White));
    assert_eq!((s.first_claim_ply, s.first_claim_clock_ms), (Some(7), Some(265_000)));
    // White declared 5.Ke1 at ply 7 (the FEN position a third time) with the game's last move:
    // claimed, not missed.
    assert_eq!((s.first_missed_claim_ply, s.first_missed_claim_clock_ms), (None, None));
}

/// Comments without a valid command (`[%clk]` with nothing, `[%clk x]`, `[%emt]`, which is not
/// read) give no clock and no evaluation. (No event can stand at ply 0 or 1, where the base
/// time counts: the unit test of `engine::clocks` covers those plies.)
#[test]
fn comments_without_commands_leave_the_clocks_unknown() {
    let g =
        game("[TimeControl \"600+5\"]\n\n1. Nf3 {a} Nf6 {b [%clk]} 2. Ng1 {[%emt 0:00:03]} Ng8 {[%clk x]} 3. Nf3 *\n");
    assert_eq!(clocks(&g), ["4 repetition: - - - -", "5 repetition: - - - -"]);
    assert!(!summary(&g).has_clocks && !summary(&g).has_evals);
}
