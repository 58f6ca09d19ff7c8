//! Golden tests: small games whose every repetition event is known exactly, worked out by hand
//! from the FIDE Laws (Art. 9.2, 9.6). Each case lists every event the game must produce.

use std::ops::ControlFlow;

use threefold::{Detail, Event, Game, Perpetual, Summary, for_each_game};

fn games(pgn_text: &str) -> Vec<Game> {
    let mut out = Vec::new();
    for_each_game(pgn_text.as_bytes(), |g| {
        out.push(g);
        ControlFlow::Continue(())
    })
    .expect("in-memory PGN reads");
    out
}

fn game(pgn_text: &str) -> Game {
    let mut all = games(pgn_text);
    assert_eq!(all.len(), 1, "expected one game");
    all.remove(0)
}

/// One line per event, compact enough to read a whole game's expectations at a glance.
fn render(e: &Event) -> String {
    match &e.detail {
        Detail::Repetition { occurrence, earlier_plies, claimable, automatic, cycle_plies, perpetual } => format!(
            "{} repetition occ={occurrence} earlier={earlier_plies:?} cycle={cycle_plies}{}{}{}",
            e.ply,
            perpetual.map_or(String::new(), |p| format!(" perpetual={}", p.as_str())),
            if *claimable { " claimable" } else { "" },
            if *automatic { " automatic" } else { "" }
        ),
        Detail::ClaimByMove { san, uci, occurrence, earlier_plies, played } => format!(
            "{} claim_by_move {san} {uci} occ={occurrence} earlier={earlier_plies:?}{}",
            e.ply,
            if *played { " played" } else { "" }
        ),
        Detail::PseudoRepetition { differs, board_occurrence, fide_occurrence, earlier_plies } => format!(
            "{} pseudo {} board={board_occurrence} fide={fide_occurrence} earlier={earlier_plies:?}",
            e.ply,
            differs.as_str()
        ),
        Detail::HiddenRepetition { fen_occurrence, fide_occurrence, earlier_plies } => {
            format!("{} hidden fen={fen_occurrence} fide={fide_occurrence} earlier={earlier_plies:?}", e.ply)
        }
    }
}

fn rendered(g: &Game) -> Vec<String> {
    g.analysis.as_ref().expect("replayed").events.iter().map(render).collect()
}

fn summary(g: &Game) -> &Summary {
    &g.analysis.as_ref().expect("replayed").summary
}

fn assert_events(g: &Game, expected: &[&str]) {
    let got = rendered(g);
    assert_eq!(got, expected, "\n got: {got:#?}");
}

#[test]
fn repeated_start_position() {
    let g = game("[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n");
    assert_events(
        &g,
        &[
            "4 repetition occ=2 earlier=[0] cycle=4",
            "5 repetition occ=2 earlier=[1] cycle=4",
            "6 repetition occ=2 earlier=[2] cycle=4",
            "7 repetition occ=2 earlier=[3] cycle=4",
            // Black, at the second occurrence, may claim by declaring Ng8 (9.2.1.1).
            "7 claim_by_move Ng8 f6g8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] cycle=4 claimable",
            // White may claim on the board, and also by declaring Nf3.
            "8 claim_by_move Nf3 g1f3 occ=3 earlier=[1, 5]",
        ],
    );
    let s = &g.analysis.as_ref().unwrap().summary;
    assert_eq!(s.claim_opportunities, 2);
    assert_eq!(s.first_claim_ply, Some(7));
    // Black declared Ng8 at ply 7 and the game ended with it: the repetition drew the game, no
    // claim was missed (regression: the played declared move used to count as play going on).
    assert_eq!(s.missed_claims, 0, "the game ended at the repetition it could claim");
    assert_eq!(s.first_missed_claim_ply, None);
    assert_eq!(s.claimant_score_after_first_missed, None);
    assert_eq!(s.positions_reaching_3, 1);
    assert_eq!(s.draw_reason.map(|r| r.as_str()), Some("threefold"));
    // A shuffle without a check: no perpetual; the start position stands at plies 0, 4 and 8.
    assert_eq!((s.first_threefold_span, s.first_threefold_perpetual), (Some(8), None));
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!(e.identity.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(e.identity.zobrist, 0x463b96181691fc9c, "Polyglot key of the start position");
}

/// The claim opportunities and missed claims of a game: (opportunities, on the board, by a
/// declared move), then (missed, on the board, by a declared move), then the claims passed over,
/// then the first missed ply.
fn claims(g: &Game) -> ([u32; 3], [u32; 3], u32, Option<u32>) {
    let s = summary(g);
    (
        [s.claim_opportunities, s.claim_opportunities_on_board, s.claim_opportunities_by_move],
        [s.missed_claims, s.missed_claims_on_board, s.missed_claims_by_move],
        s.passed_over_claims,
        s.first_missed_claim_ply,
    )
}

const SHUFFLE: &str = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8";

/// Missed claims, each branch of the rule (Art. 9.2.1): a claim no claim ended the game at is
/// missed only when play then left the repetition (an irreversible move, or no draw); else it
/// was passed over. Ply 7: Black may declare Ng8 (the start position a third time); ply 8: White
/// may claim on the board, or declare Nf3; ply 9: Black on the board or Nf6; ply 10: White on
/// the board or Ng1.
#[test]
fn missed_claim_only_when_play_left_the_repetition() {
    // Drawn by the declared move: Ng8 is the game's last move.
    let g = game(&format!("[Result \"1/2-1/2\"]\n\n{SHUFFLE} 1/2-1/2\n"));
    assert_eq!(claims(&g), ([2, 1, 2], [0, 0, 0], 0, None));

    // The declared move played and the game going on to a draw in the same repetition: ply 7's
    // claim was passed over. At ply 8 White could claim on the board and declared Nf3 instead,
    // which ended the game: neither kind is missed.
    let g = game(&format!("[Result \"1/2-1/2\"]\n\n{SHUFFLE} 5. Nf3 1/2-1/2\n"));
    assert_eq!(claims(&g), ([3, 2, 3], [0, 0, 0], 1, None));
    assert_eq!(summary(&g).claimant_score_after_first_missed, None);

    // The declared move not played, another knight move, then a draw: passed over.
    let g = game("[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Nc6 1/2-1/2\n");
    assert_eq!(claims(&g), ([1, 0, 1], [0, 0, 0], 1, None));

    // More shuffling, then a draw (by agreement, or unrecorded) with no irreversible move: every
    // claim not made was passed over.
    let g = game(&format!("[Result \"1/2-1/2\"]\n\n{SHUFFLE} 5. Nf3 Nf6 6. Ng1 Nc6 1/2-1/2\n"));
    let (_, missed, passed_over, first) = claims(&g);
    assert_eq!((missed, first), ([0, 0, 0], None));
    assert!(passed_over >= 3, "{passed_over}");

    // A pawn move after the claims: play left the repetition, every claim is missed, though the
    // game was drawn later.
    let g = game(&format!("[Result \"1/2-1/2\"]\n\n{SHUFFLE} 5. Nf3 e5 1/2-1/2\n"));
    assert_eq!(claims(&g), ([3, 2, 3], [3, 2, 3], 0, Some(7)));
    assert_eq!(summary(&g).claimant_score_after_first_missed, Some(0.5));

    // Passed over, then a pawn move and a win: missed.
    let g = game(&format!("[Result \"1-0\"]\n\n{SHUFFLE} 5. e4 1-0\n"));
    assert_eq!(claims(&g), ([2, 1, 2], [2, 1, 2], 0, Some(7)));

    // A decisive game ending at a claim: nobody claimed, every claim is missed.
    let g = game(&format!("[Result \"0-1\"]\n\n{SHUFFLE} 0-1\n"));
    assert_eq!(claims(&g), ([2, 1, 2], [2, 1, 2], 0, Some(7)));
    assert_eq!(summary(&g).claimant_score_after_first_missed, Some(1.0), "Black claimant, 0-1");

    // A bad move token after the last ply: what followed is unknown, counted as leaving.
    let g = game(&format!("[Result \"1/2-1/2\"]\n\n{SHUFFLE} 5. Qxx9 1/2-1/2\n"));
    assert_eq!(claims(&g), ([2, 1, 2], [2, 1, 2], 0, Some(7)));

    // A lost castling right is irreversible too: 6.Ke2 leaves the repetition.
    let g = game("[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Ng1 Ng8 4. Nf3 Nf6 5. Ng1 Ng8 6. Ke2 1/2-1/2\n");
    let (_, missed, passed_over, _) = claims(&g);
    assert_eq!((missed[0] > 0, passed_over), (true, 0));
}

/// The draw reason of a drawn game with these tags and moves.
fn reason(tags: &str, moves: &str) -> Option<&'static str> {
    let g = game(&format!("[Result \"1/2-1/2\"]\n{tags}\n{moves} 1/2-1/2\n"));
    summary(&g).draw_reason.map(|r| r.as_str())
}

/// The recorded ending comes before what the final position suggests; a game of no moves is
/// `no_moves`; the residual is `agreement_or_unrecorded`.
#[test]
fn draw_reason_from_the_recorded_ending() {
    // TCEC: adjudicated, though the last position offers a declared-move claim.
    let tcec = "[Termination \"adjudication\"]\n[TerminationDetails \"TCEC draw rule\"]\n";
    assert_eq!(reason(tcec, "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1"), Some("adjudication"));
    assert_eq!(reason("", "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1"), Some("threefold_by_move"));
    // Lichess: a flag fell against a bare king.
    assert_eq!(reason("[Termination \"Time forfeit\"]\n", "1. e4 e5"), Some("timeout_vs_insufficient_material"));
    assert_eq!(reason("[Termination \"Game drawn by agreement\"]\n", "1. e4 e5"), Some("agreement"));
    assert_eq!(reason("[Termination \"Normal\"]\n", "1. e4 e5"), Some("agreement_or_unrecorded"));
    assert_eq!(reason("[Termination \"Game drawn by repetition\"]\n", SHUFFLE), Some("threefold"));
    assert_eq!(reason("", ""), Some("no_moves"));
    let g = game("[Termination \"Time forfeit\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n");
    assert_eq!(g.ending.map(|e| e.as_str()), Some("time_forfeit"));
    assert_eq!(summary(&g).draw_reason, None);
}

/// A fivefold or a 75-move position is the draw's reason only where that rule ended games on the
/// game's date; before (or undated) the position allowed a claim, and the draw is the claim's.
#[test]
fn regression_draw_reason_of_a_fivefold_before_the_rule_is_the_threefold_claimed() {
    let five = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8";
    assert_eq!(reason("[Date \"2018.03.01\"]", five), Some("fivefold"));
    // 2014-2017: five consecutive alternate moves by each player, as here.
    assert_eq!(reason("[Date \"2015.03.01\"]", five), Some("fivefold"));
    assert_eq!(reason("[Date \"1990.03.01\"]", five), Some("threefold"));
    assert_eq!(reason("", five), Some("threefold"));
    let repetition = "[Date \"1990.03.01\"]\n[Termination \"Game drawn by repetition\"]";
    assert_eq!(reason(repetition, five), Some("threefold"));
    let at149 = "[FEN \"7k/8/8/8/8/8/8/K5R1 w - - 149 100\"]\n[SetUp \"1\"]";
    assert_eq!(reason(&format!("{at149}\n[Date \"2020.03.01\"]"), "1. Rg2"), Some("seventy_five_moves"));
    assert_eq!(reason(&format!("{at149}\n[Date \"2010.03.01\"]"), "1. Rg2"), Some("fifty_moves"));
}

/// The same game from two sources, written differently (comments, move numbers, glyphs, the
/// players' punctuation), has one fingerprint; another move order another.
#[test]
fn same_game_same_fingerprint() {
    let fingerprint = |pgn: &str| summary(&game(pgn)).fingerprint;
    let a = fingerprint(
        "[White \"Karpov, A.\"]\n[Black \"Miles, A\"]\n[Date \"1986.10.??\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n",
    );
    let b = fingerprint(
        "[Event \"x\"]\n[White \"Karpov A\"]\n[Black \"Miles A.\"]\n[Date \"1986.10.??\"]\n[Result \"1-0\"]\n\n1.e4 {book} 1... e5!? 2. Nf3+ 1-0\n",
    );
    let c = fingerprint(
        "[White \"Karpov A\"]\n[Black \"Miles A.\"]\n[Date \"1986.10.??\"]\n[Result \"1-0\"]\n\n1. Nf3 e5 2. e4 1-0\n",
    );
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn fivefold_is_automatic() {
    let g = game("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 9. e4 1-0\n");
    let starts: Vec<String> = rendered(&g).into_iter().filter(|l| l.contains("earlier=[0")).collect();
    assert_eq!(
        starts,
        [
            "4 repetition occ=2 earlier=[0] cycle=4",
            "7 claim_by_move Ng8 f6g8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] cycle=4 claimable",
            "11 claim_by_move Ng8 f6g8 occ=4 earlier=[0, 4, 8] played",
            "12 repetition occ=4 earlier=[0, 4, 8] cycle=4 claimable",
            "15 claim_by_move Ng8 f6g8 occ=5 earlier=[0, 4, 8, 12] played",
            "16 repetition occ=5 earlier=[0, 4, 8, 12] cycle=4 claimable automatic",
        ]
    );
    let s = &g.analysis.as_ref().unwrap().summary;
    assert_eq!(s.first_ply_occurrence_5, Some(16));
    assert_eq!(s.plies_after_fivefold, Some(1));
    assert_eq!(s.max_occurrence, 5);
    // Every opportunity was followed by a move, and White (to move at the first) won.
    assert_eq!(s.first_claim_ply, Some(7));
    assert_eq!(s.claimant_score_after_first_missed, Some(0.0), "Black claimant, 1-0");
}

#[test]
fn castling_right_lost_by_king_move() {
    // After 3...Ke8 the board of 1...e5 is back, but neither side may castle any more; after
    // 4.Ke2 the board of 2.Ke2 is back, but Black has lost its rights since.
    let g = game("1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Ke2 Ke7 5. Ke1 Ke8 *\n");
    assert_events(
        &g,
        &[
            "6 pseudo castling board=2 fide=1 earlier=[2]",
            "7 pseudo castling board=2 fide=1 earlier=[3]",
            "8 repetition occ=2 earlier=[4] cycle=4",
            "9 repetition occ=2 earlier=[5] cycle=4",
            "10 repetition occ=2 earlier=[6] cycle=4",
            "10 pseudo castling board=3 fide=2 earlier=[2, 6]",
        ],
    );
    let events = &g.analysis.as_ref().unwrap().events;
    assert_eq!(events[0].identity.castling(), "-");
    assert_eq!(g.analysis.as_ref().unwrap().summary.pseudo_repetitions, 3);
}

#[test]
fn castling_right_lost_by_rook_move() {
    // After 3...Rh8 the board of 2...Nf6 is back, but only queenside rights remain (Qq).
    let g = game("1. Nf3 Nf6 2. Rg1 Rg8 3. Rh1 Rh8 4. Rg1 Rg8 5. Rh1 Rh8 *\n");
    assert_events(
        &g,
        &[
            "6 pseudo castling board=2 fide=1 earlier=[2]",
            "7 pseudo castling board=2 fide=1 earlier=[3]",
            "8 repetition occ=2 earlier=[4] cycle=4",
            "9 repetition occ=2 earlier=[5] cycle=4",
            "10 repetition occ=2 earlier=[6] cycle=4",
            "10 pseudo castling board=3 fide=2 earlier=[2, 6]",
        ],
    );
    let last = g.analysis.as_ref().unwrap().events.last().unwrap();
    assert_eq!(last.identity.castling(), "Qq");
}

#[test]
fn castling_right_lost_by_rook_capture() {
    // 1.Bxh8 takes Black's kingside rook (and right); 1...Rb8 gives up the queenside right.
    let g = game(
        "[FEN \"r3k2r/8/8/8/8/8/1B6/R3K3 w Qkq - 0 1\"]\n[SetUp \"1\"]\n\n\
         1. Bxh8 Rb8 2. Bg7 Ra8 3. Bh8 Rb8 4. Bg7 Ra8 5. Bh8 *\n",
    );
    assert_events(
        &g,
        &[
            "5 pseudo castling board=2 fide=1 earlier=[1]",
            "6 repetition occ=2 earlier=[2] cycle=4",
            "7 repetition occ=2 earlier=[3] cycle=4",
            "8 repetition occ=2 earlier=[4] cycle=4",
            "9 repetition occ=2 earlier=[5] cycle=4",
            "9 pseudo castling board=3 fide=2 earlier=[1, 5]",
            "9 claim_by_move Rb8 a8b8 occ=3 earlier=[2, 6]",
        ],
    );
    let events = &g.analysis.as_ref().unwrap().events;
    assert_eq!(events[0].identity.castling(), "Q");
    assert_eq!(events[0].identity.fen(), "r3k2B/8/8/8/8/8/8/R3K3 b Q -");
}

#[test]
fn en_passant_right_at_first_occurrence_only() {
    // After 2...d5 White may capture e.p. (exd6); when the board returns after 4...Nf6 it may not.
    let g = game("1. e4 Nf6 2. e5 d5 3. Nf3 Ng8 4. Ng1 Nf6 5. Nf3 Ng8 6. Ng1 Nf6 *\n");
    assert_events(
        &g,
        &[
            "8 pseudo en_passant board=2 fide=1 earlier=[4]",
            "9 repetition occ=2 earlier=[5] cycle=4",
            "10 repetition occ=2 earlier=[6] cycle=4",
            "11 repetition occ=2 earlier=[7] cycle=4",
            "12 repetition occ=2 earlier=[8] cycle=4",
            "12 pseudo en_passant board=3 fide=2 earlier=[4, 8]",
            "12 claim_by_move Nf3 g1f3 occ=3 earlier=[5, 9]",
        ],
    );
    let s = &g.analysis.as_ref().unwrap().summary;
    assert_eq!((s.pseudo_repetitions, s.hidden_repetitions), (2, 0));
}

#[test]
fn double_push_without_legal_capture() {
    // 1.e4 writes e3 into the FEN, but no black pawn can take: the FIDE position after 3.Ng1 is
    // the same, while FEN strings differ (a hidden repetition).
    let g = game("1. e4 Nf6 2. Nf3 Ng8 3. Ng1 *\n");
    assert_events(&g, &["5 repetition occ=2 earlier=[1] cycle=4", "5 hidden fen=1 fide=2 earlier=[1]"]);
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!(e.identity.ep, None);
    assert_eq!(e.identity.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -");
}

#[test]
fn pinned_pawn_en_passant_is_not_a_right() {
    // After 1.e4 the d4 pawn could take e.p. pseudo-legally, but dxe3 would open the 4th rank to
    // the rook on h4 and expose the king on a4: no e.p. right, so 3.Ke1 repeats the position.
    let g = game("[FEN \"8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kb5 2. Kd1 Ka4 3. Ke1 *\n");
    assert_events(&g, &["5 repetition occ=2 earlier=[1] cycle=4", "5 hidden fen=1 fide=2 earlier=[1]"]);
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!(e.identity.fen(), "8/8/8/8/k2pP2R/8/8/4K3 b - -");
}

#[test]
fn en_passant_that_leaves_a_check_unanswered_is_not_a_right() {
    // 1.e4 uncovers Bd1's check on h5: dxe3 e.p. would not answer it, so there is no e.p. right
    // and 3.Bd1+ repeats the position of 1.e4+.
    let g = game("[FEN \"8/8/8/7k/3p4/8/4P3/K2B4 w - - 0 1\"]\n\n1. e4+ Kh6 2. Bc2 Kh5 3. Bd1+ *\n");
    assert_events(&g, &["5 repetition occ=2 earlier=[1] cycle=4", "5 hidden fen=1 fide=2 earlier=[1]"]);
    assert_eq!(g.analysis.as_ref().unwrap().events[0].identity.fen(), "8/8/8/7k/3pP3/8/8/K2B4 b - -");
}

#[test]
fn en_passant_by_a_diagonally_pinned_pawn_is_not_a_right() {
    // The d4 pawn is pinned by Bb2 against the king on f6: dxe3 e.p. would leave the diagonal.
    let g = game("[FEN \"8/8/5k2/8/3p4/8/1B2P3/K7 w - - 0 1\"]\n\n1. e4 Kf7 2. Bc1 Kf6 3. Bb2 *\n");
    assert_events(&g, &["5 repetition occ=2 earlier=[1] cycle=4", "5 hidden fen=1 fide=2 earlier=[1]"]);
    assert_eq!(g.analysis.as_ref().unwrap().events[0].identity.fen(), "8/8/5k2/8/3pP3/8/1B6/K7 b - -");
}

#[test]
fn chess960_uses_shredder_castling_letters() {
    let g = game(
        "[Variant \"Chess960\"]\n[FEN \"bnrkqrnb/pppppppp/8/8/8/8/PPPPPPPP/BNRKQRNB w FCfc - 0 1\"]\n\n\
         1. Nh3 Nh6 2. Ng1 Ng8 3. Nh3 Nh6 4. Ng1 Ng8 1/2-1/2\n",
    );
    assert_eq!(g.variant.name(), "chess960");
    assert_events(
        &g,
        &[
            "4 repetition occ=2 earlier=[0] cycle=4",
            "5 repetition occ=2 earlier=[1] cycle=4",
            "6 repetition occ=2 earlier=[2] cycle=4",
            "7 repetition occ=2 earlier=[3] cycle=4",
            "7 claim_by_move Ng8 h6g8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] cycle=4 claimable",
            "8 claim_by_move Nh3 g1h3 occ=3 earlier=[1, 5]",
        ],
    );
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!(e.identity.castling(), "FCfc");
    assert_eq!(e.identity.fen(), "bnrkqrnb/pppppppp/8/8/8/8/PPPPPPPP/BNRKQRNB w FCfc -");
}

#[test]
fn chess960_fen_without_variant_tag() {
    // Castling rights on the c- and f-file rooks with the king on d1 only exist in Chess960.
    let g = game("[FEN \"bnrkqrnb/pppppppp/8/8/8/8/PPPPPPPP/BNRKQRNB w FCfc - 0 1\"]\n\n1. Nh3 *\n");
    assert_eq!(g.variant.name(), "chess960");
    assert_eq!(g.status().as_str(), "ok");
}

#[test]
fn karpov_miles_tilburg_1986_claim_was_not_valid() {
    // The corpus's file, copied verbatim into the samples.
    let text =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data-samples/karpov_miles_tilburg_1986.pgn")).unwrap();
    let all = games(&String::from_utf8_lossy(&text));
    let g = all.iter().find(|g| g.tag("Round") == Some("13")).expect("round 13");
    let got = rendered(g);
    // 22.Nb5 (ply 43), 24.Nb5 (47), 26.Nb5 (51): the board thrice, the position twice, because
    // Black could still castle queenside after 22.Nb5 only.
    assert!(got.contains(&"47 pseudo castling board=2 fide=1 earlier=[43]".to_owned()), "{got:#?}");
    assert!(got.contains(&"51 repetition occ=2 earlier=[47] cycle=4".to_owned()), "{got:#?}");
    assert!(got.contains(&"51 pseudo castling board=3 fide=2 earlier=[43, 47]".to_owned()), "{got:#?}");
    let s = &g.analysis.as_ref().unwrap().summary;
    assert_eq!(s.max_occurrence, 2, "no position occurred three times");
    assert_eq!(s.first_ply_occurrence_3, None);
    let at_51: Vec<&String> = got.iter().filter(|l| l.starts_with("51 repetition")).collect();
    assert!(at_51.iter().all(|l| !l.contains("claimable")));
}

#[test]
fn bad_moves_stop_the_replay_and_keep_earlier_events() {
    let g = game("1. Nf3 Nf6 2. Ng1 Ng8 3. Ke2 Nf6 *\n");
    let a = g.analysis.as_ref().unwrap();
    let err = a.error.as_ref().expect("illegal 3.Ke2");
    assert_eq!((err.kind.as_str(), err.ply, err.token.as_str()), ("illegal_move", 4, "Ke2"));
    assert_eq!(rendered(&g), ["4 repetition occ=2 earlier=[0] cycle=4"]);
    assert_eq!(a.summary.plies, 4);

    let g = game("1. e4 -- 2. d4 *\n");
    let err = g.analysis.as_ref().unwrap().error.clone().unwrap();
    assert_eq!((err.kind.as_str(), err.ply), ("null_move", 1));

    let g = game("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n");
    let a = g.analysis.as_ref().unwrap();
    assert_eq!(a.error.as_ref().unwrap().kind.as_str(), "invalid_fen");
    assert_eq!(a.summary.plies, 0);
}

#[test]
fn other_variants_are_skipped_with_their_name() {
    let g = game("[Variant \"Seirawan\"]\n\n1. e4 e5 2. Nf3 *\n");
    assert_eq!(g.status().as_str(), "skipped");
    assert_eq!(g.variant.name(), "Seirawan");
    let g = game("[Variant \"From Position\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. Kf1 *\n");
    assert_eq!((g.status().as_str(), g.variant.name()), ("ok", "standard"));
}

/// White's queen checks from f8 and f5 while Black's king steps between h8 and h7: every
/// White move checks, no Black move does.
const QUEEN_CHECKS_FROM_TWO_SQUARES: &str = "7k/6p1/7p/5Q2/8/8/1qr2PPP/6K1 w - - 0 1";

#[test]
fn perpetual_check_by_a_queen_from_two_squares() {
    let g = game(&format!(
        "[FEN \"{QUEEN_CHECKS_FROM_TWO_SQUARES}\"]\n[Result \"1/2-1/2\"]\n\n\
         1. Qf8+ Kh7 2. Qf5+ Kh8 3. Qf8+ Kh7 4. Qf5+ Kh8 1/2-1/2\n"
    ));
    assert_events(
        &g,
        &[
            "4 repetition occ=2 earlier=[0] cycle=4 perpetual=white",
            "5 repetition occ=2 earlier=[1] cycle=4 perpetual=white",
            "6 repetition occ=2 earlier=[2] cycle=4 perpetual=white",
            "7 repetition occ=2 earlier=[3] cycle=4 perpetual=white",
            "7 claim_by_move Kh8 h7h8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] cycle=4 perpetual=white claimable",
            "8 claim_by_move Qf8+ f5f8 occ=3 earlier=[1, 5]",
        ],
    );
    let s = summary(&g);
    assert_eq!((s.first_threefold_span, s.first_threefold_perpetual), (Some(8), Some(Perpetual::White)));
    assert_eq!(s.draw_reason.map(|r| r.as_str()), Some("threefold"), "draw_reason stays as it is");
}

#[test]
fn perpetual_check_alternating_queen_and_knight() {
    // Qc8+, Nc7+, Qe8+, Ne6+ and again: the king walks c4-d5-c6-c5-c4, a cycle of 8 plies with
    // no position repeated inside it.
    let g = game(
        "[FEN \"4Q1q1/8/K3N3/8/2k2r2/8/8/8 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n\
         1. Qc8+ Kd5 2. Nc7+ Kc6 3. Qe8+ Kc5 4. Ne6+ Kc4 5. Qc8+ Kd5 6. Nc7+ Kc6 7. Qe8+ Kc5 8. Ne6+ Kc4 1/2-1/2\n",
    );
    let mut expected: Vec<String> =
        (8..16).map(|k| format!("{k} repetition occ=2 earlier=[{}] cycle=8 perpetual=white", k - 8)).collect();
    expected.extend([
        // Only the king's step back to c4 reaches a position seen twice (plies 0 and 8); a move
        // by White leaves Black's king where it is, so it reaches only the cycle's next position.
        "15 claim_by_move Kc4 c5c4 occ=3 earlier=[0, 8] played".to_owned(),
        "16 repetition occ=3 earlier=[0, 8] cycle=8 perpetual=white claimable".to_owned(),
        "16 claim_by_move Qc8+ e8c8 occ=3 earlier=[1, 9]".to_owned(),
    ]);
    assert_eq!(rendered(&g), expected);
    let s = summary(&g);
    assert_eq!((s.first_threefold_span, s.first_threefold_perpetual), (Some(16), Some(Perpetual::White)));
}

#[test]
fn a_cycle_with_checks_on_some_moves_only_is_no_perpetual() {
    // White checks with 1.Qf8+ and 3.Qf5+ but not with 2.Kf1 and 4.Kg1: the cycle of 8 plies is
    // no perpetual check (nor a shorter one: no position repeats inside it).
    let g = game(&format!(
        "[FEN \"{QUEEN_CHECKS_FROM_TWO_SQUARES}\"]\n\n1. Qf8+ Kh7 2. Kf1 Rd2 3. Qf5+ Kh8 4. Kg1 Rc2 5. Qf8+ *\n"
    ));
    assert_events(&g, &["8 repetition occ=2 earlier=[0] cycle=8", "9 repetition occ=2 earlier=[1] cycle=8"]);
    let s = summary(&g);
    assert_eq!((s.first_threefold_span, s.first_threefold_perpetual), (None, None));
}

#[test]
fn chess960_perpetual_check_by_black() {
    // White starts in check from Qf1; Black's queen checks from f1 and f4. Black keeps both
    // castling rights (rooks a8 and g8, king c8): Shredder letters `ga` in every identity.
    let g = game(
        "[Variant \"Chess960\"]\n[FEN \"r1k3r1/1R6/8/8/8/7P/6P1/5q1K w ga - 0 1\"]\n[Result \"1/2-1/2\"]\n\n\
         1. Kh2 Qf4+ 2. Kh1 Qf1+ 3. Kh2 Qf4+ 4. Kh1 Qf1+ 1/2-1/2\n",
    );
    assert_eq!(g.variant.name(), "chess960");
    assert_events(
        &g,
        &[
            "4 repetition occ=2 earlier=[0] cycle=4 perpetual=black",
            "5 repetition occ=2 earlier=[1] cycle=4 perpetual=black",
            "6 repetition occ=2 earlier=[2] cycle=4 perpetual=black",
            "7 repetition occ=2 earlier=[3] cycle=4 perpetual=black",
            "7 claim_by_move Qf1+ f4f1 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] cycle=4 perpetual=black claimable",
            "8 claim_by_move Kh2 h1h2 occ=3 earlier=[1, 5]",
        ],
    );
    let events = &g.analysis.as_ref().unwrap().events;
    assert_eq!(events[0].identity.fen(), "r1k3r1/1R6/8/8/8/7P/6P1/5q1K w ga -");
    let s = summary(&g);
    assert_eq!((s.first_threefold_span, s.first_threefold_perpetual), (Some(8), Some(Perpetual::Black)));
}

#[test]
fn perpetual_check_from_a_fen_where_black_moves_first() {
    // The first move is Black's: White's moves reach the even plies, and they all check.
    let g = game(
        "[FEN \"5Q1k/6p1/7p/8/8/8/1qr2PPP/6K1 b - - 5 40\"]\n[Result \"1/2-1/2\"]\n\n\
         40... Kh7 41. Qf5+ Kh8 42. Qf8+ Kh7 43. Qf5+ Kh8 44. Qf8+ 1/2-1/2\n",
    );
    assert_events(
        &g,
        &[
            "4 repetition occ=2 earlier=[0] cycle=4 perpetual=white",
            "5 repetition occ=2 earlier=[1] cycle=4 perpetual=white",
            "6 repetition occ=2 earlier=[2] cycle=4 perpetual=white",
            "7 repetition occ=2 earlier=[3] cycle=4 perpetual=white",
            "7 claim_by_move Qf8+ f5f8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] cycle=4 perpetual=white claimable",
            "8 claim_by_move Kh7 h8h7 occ=3 earlier=[1, 5]",
        ],
    );
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!((e.fullmove, e.halfmove_clock, e.turn), (42, 9, shakmaty::Color::Black));
    let s = summary(&g);
    assert_eq!((s.first_threefold_span, s.first_threefold_perpetual), (Some(8), Some(Perpetual::White)));
    assert_eq!(s.first_claim_color, Some(shakmaty::Color::White), "White, to move at ply 7, may claim by 44.Qf8+");
}

#[test]
fn the_cycle_is_exact_past_the_listed_earlier_plies() {
    // Twenty turns of the queen's checks: at ply 80 the position stands for the 21st time, the
    // event lists the earliest 16 plies (0 to 60), and the cycle still counts from ply 76.
    let moves: String = (0..20).map(|i| format!("{}. Qf8+ Kh7 {}. Qf5+ Kh8 ", 2 * i + 1, 2 * i + 2)).collect();
    let g = game(&format!("[FEN \"{QUEEN_CHECKS_FROM_TWO_SQUARES}\"]\n\n{moves}*\n"));
    let at_80: Vec<String> = rendered(&g).into_iter().filter(|l| l.starts_with("80 ")).collect();
    let earliest: Vec<String> = (0..16).map(|i| (4 * i).to_string()).collect();
    assert_eq!(
        at_80,
        [
            format!(
                "80 repetition occ=21 earlier=[{}] cycle=4 perpetual=white claimable automatic",
                earliest.join(", ")
            ),
            "80 claim_by_move Qf8+ f5f8 occ=21 earlier=[1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61]"
                .to_owned(),
        ]
    );
    let s = summary(&g);
    assert_eq!((s.first_threefold_span, s.first_threefold_perpetual), (Some(8), Some(Perpetual::White)));
}

// Lichess variants (docs/format.md "Variants"). Each game below was also run through
// the python-chess oracle (tests/oracle): the same events.

/// Crazyhouse: White drops its knight, Black takes it and White's king walks round: at ply 8 the
/// board of ply 0 is back, but the knight is in Black's pocket, not White's: another position
/// (no event). Black drops it, White takes it back: at ply 16 the pockets match too and the
/// start position repeats, across two captures (a crazyhouse window survives them).
#[test]
fn crazyhouse_repetition_counts_once_the_pockets_match() {
    let g = game(
        "[Variant \"Crazyhouse\"]\n[FEN \"3rk3/8/8/8/8/8/8/R3K3[N] w - - 0 1\"]\n\n\
         1. N@d4 Rxd4 2. Kf1 Rd8 3. Kf2 Kf8 4. Ke1 Ke8 5. Kf1 N@a4 6. Rxa4 Kf8 7. Ra1 Kf7 8. Ke1 Ke8 *\n",
    );
    assert_eq!((g.status().as_str(), g.variant.name()), ("ok", "crazyhouse"));
    assert_events(&g, &["16 repetition occ=2 earlier=[0] cycle=16"]);
    let events = &g.analysis.as_ref().unwrap().events;
    assert_eq!(events[0].identity.variant_state.as_deref(), Some("[N]"));
    assert_eq!(events[0].identity.fen(), "3rk3/8/8/8/8/8/8/R3K3 w - -");
    let s = summary(&g);
    assert_eq!((s.first_ply_halfmove_100, s.draw_reason), (None, None));
}

/// Three-check: the position of ply 0 repeats at ply 4; White's rook then checks (3. Ra8+) and
/// goes back: at ply 8 the board is that of plies 0 and 4, but White has a check fewer to give
/// (`2+3`), so it is a new position, which repeats at ply 12.
#[test]
fn three_check_repetition_broken_by_a_check() {
    let g = game(
        "[Variant \"Three-check\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w - - 3+3 0 1\"]\n\n\
         1. Rb1 Kf8 2. Ra1 Ke8 3. Ra8+ Kd7 4. Ra1 Ke8 5. Rb1 Kf8 6. Ra1 Ke8 *\n",
    );
    assert_eq!(g.variant.name(), "threeCheck");
    assert_events(&g, &["4 repetition occ=2 earlier=[0] cycle=4", "12 repetition occ=2 earlier=[8] cycle=4"]);
    let states: Vec<_> =
        g.analysis.as_ref().unwrap().events.iter().map(|e| e.identity.variant_state.clone().unwrap()).collect();
    assert_eq!(states, ["3+3", "2+3"]);
}

/// After 1...d5 White's e5 pawn could take e.p. by the standard rules, but in atomic the
/// explosion on d6 would take White's own king on e7: no e.p. right, so the position of ply 1
/// repeats at ply 5 (FEN-wise hidden: FEN writes d6 at ply 1). In standard chess the same moves
/// give a pseudo-repetition instead (the e.p. right differs). python-chess's
/// `has_legal_en_passant()` asks the standard rules here; its own atomic moves agree with ours
/// (tests/oracle/README.md, deliberate differences).
#[test]
fn atomic_en_passant_right_follows_the_explosion_rule() {
    let moves = "[FEN \"7k/3pK3/8/4P3/8/8/8/8 b - - 0 1\"]\n\n1... d5 2. Ke8 Kh7 3. Ke7 Kh8 *\n";
    let g = game(&format!("[Variant \"Atomic\"]\n{moves}"));
    assert_eq!(g.variant.name(), "atomic");
    assert_events(&g, &["5 repetition occ=2 earlier=[1] cycle=4", "5 hidden fen=1 fide=2 earlier=[1]"]);
    let g = game(moves);
    assert_eq!(g.variant.name(), "standard");
    assert_events(&g, &["5 pseudo en_passant board=2 fide=1 earlier=[1]"]);
}

/// Crazyhouse: a cycle of drops and captures (White drops N@d4, Black takes and later drops the
/// knight on h4, White takes it back) returns every ten plies; at ply 20 White may claim by
/// declaring the drop N@d4, whose position occurred at plies 1 and 11, and plays it.
#[test]
fn crazyhouse_claim_by_a_declared_drop() {
    let g = game(
        "[Variant \"crazyhouse\"]\n[FEN \"3rk3/8/8/8/8/8/8/4K2R[N] w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n\
         1. N@d4 Rxd4 2. Kf1 N@h4 3. Rxh4 Rd8 4. Rh1 Kf8 5. Ke1 Ke8 6. N@d4 Rxd4 7. Kf1 N@h4 \
         8. Rxh4 Rd8 9. Rh1 Kf8 10. Ke1 Ke8 11. N@d4 1/2-1/2\n",
    );
    let got = rendered(&g);
    assert!(got.contains(&"20 claim_by_move N@d4 N@d4 occ=3 earlier=[1, 11] played".to_owned()), "{got:#?}");
    assert!(got.contains(&"20 repetition occ=3 earlier=[0, 10] cycle=10 claimable".to_owned()), "{got:#?}");
    let s = summary(&g);
    assert_eq!((s.claim_opportunities, s.first_claim_ply, s.max_occurrence), (3, Some(19), 3));
    // A drawn variant game has no draw reason: its inference follows the FIDE Laws.
    assert_eq!(s.draw_reason, None);
}

/// Bad variant input is a per-game error: a drop without the piece in the pocket, a drop
/// outside crazyhouse, a FEN the variant cannot have.
#[test]
fn variant_errors_are_per_game() {
    let cases = [
        ("[Variant \"Crazyhouse\"]\n\n1. N@f3 *\n", "illegal_move", 0, "N@f3"),
        ("[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Nf6 3. Q@e2 *\n", "illegal_move", 4, "Q@e2"),
        ("[Variant \"Atomic\"]\n\n1. e4 P@e5 *\n", "illegal_move", 1, "@e5"),
        ("[Variant \"Horde\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n", "invalid_fen", 0, ""),
    ];
    for (pgn, kind, ply, token) in cases {
        let g = game(pgn);
        let err = g.error().unwrap_or_else(|| panic!("{pgn}: no error"));
        assert_eq!((err.kind.as_str(), err.ply), (kind, ply), "{pgn}");
        if !token.is_empty() {
            assert_eq!(err.token, token, "{pgn}");
        }
    }
}
