//! Golden tests: small games whose every repetition event is known exactly, worked out by hand
//! from the FIDE Laws (Art. 9.2, 9.6). Each case lists every event the game must produce.

use std::ops::ControlFlow;

use threefold::{Detail, Event, Game, for_each_game};

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
        Detail::Repetition { occurrence, earlier_plies, claimable, automatic } => format!(
            "{} repetition occ={occurrence} earlier={earlier_plies:?}{}{}",
            e.ply,
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
            "4 repetition occ=2 earlier=[0]",
            "5 repetition occ=2 earlier=[1]",
            "6 repetition occ=2 earlier=[2]",
            "7 repetition occ=2 earlier=[3]",
            // Black, at the second occurrence, may claim by declaring Ng8 (9.2.1.1).
            "7 claim_by_move Ng8 f6g8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] claimable",
            // White may claim on the board, and also by declaring Nf3.
            "8 claim_by_move Nf3 g1f3 occ=3 earlier=[1, 5]",
        ],
    );
    let s = &g.analysis.as_ref().unwrap().summary;
    assert_eq!(s.claim_opportunities, 2);
    assert_eq!(s.first_claim_ply, Some(7));
    assert_eq!(s.missed_claims, 1, "ply 7 was followed by a move; ply 8 ended in a draw");
    assert_eq!(s.claimant_score_after_first_missed, Some(0.5));
    assert_eq!(s.positions_reaching_3, 1);
    assert_eq!(s.draw_reason.map(|r| r.as_str()), Some("threefold"));
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!(e.identity.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(e.identity.zobrist, 0x463b96181691fc9c, "Polyglot key of the start position");
}

#[test]
fn fivefold_is_automatic() {
    let g = game("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 9. e4 1-0\n");
    let starts: Vec<String> = rendered(&g).into_iter().filter(|l| l.contains("earlier=[0")).collect();
    assert_eq!(
        starts,
        [
            "4 repetition occ=2 earlier=[0]",
            "7 claim_by_move Ng8 f6g8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] claimable",
            "11 claim_by_move Ng8 f6g8 occ=4 earlier=[0, 4, 8] played",
            "12 repetition occ=4 earlier=[0, 4, 8] claimable",
            "15 claim_by_move Ng8 f6g8 occ=5 earlier=[0, 4, 8, 12] played",
            "16 repetition occ=5 earlier=[0, 4, 8, 12] claimable automatic",
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
            "8 repetition occ=2 earlier=[4]",
            "9 repetition occ=2 earlier=[5]",
            "10 repetition occ=2 earlier=[6]",
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
            "8 repetition occ=2 earlier=[4]",
            "9 repetition occ=2 earlier=[5]",
            "10 repetition occ=2 earlier=[6]",
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
            "6 repetition occ=2 earlier=[2]",
            "7 repetition occ=2 earlier=[3]",
            "8 repetition occ=2 earlier=[4]",
            "9 repetition occ=2 earlier=[5]",
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
            "9 repetition occ=2 earlier=[5]",
            "10 repetition occ=2 earlier=[6]",
            "11 repetition occ=2 earlier=[7]",
            "12 repetition occ=2 earlier=[8]",
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
    assert_events(&g, &["5 repetition occ=2 earlier=[1]", "5 hidden fen=1 fide=2 earlier=[1]"]);
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!(e.identity.ep, None);
    assert_eq!(e.identity.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -");
}

#[test]
fn pinned_pawn_en_passant_is_not_a_right() {
    // After 1.e4 the d4 pawn could take e.p. pseudo-legally, but dxe3 would open the 4th rank to
    // the rook on h4 and expose the king on a4: no e.p. right, so 3.Ke1 repeats the position.
    let g = game("[FEN \"8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kb5 2. Kd1 Ka4 3. Ke1 *\n");
    assert_events(&g, &["5 repetition occ=2 earlier=[1]", "5 hidden fen=1 fide=2 earlier=[1]"]);
    let e = &g.analysis.as_ref().unwrap().events[0];
    assert_eq!(e.identity.fen(), "8/8/8/8/k2pP2R/8/8/4K3 b - -");
}

#[test]
fn en_passant_that_leaves_a_check_unanswered_is_not_a_right() {
    // 1.e4 uncovers Bd1's check on h5: dxe3 e.p. would not answer it, so there is no e.p. right
    // and 3.Bd1+ repeats the position of 1.e4+.
    let g = game("[FEN \"8/8/8/7k/3p4/8/4P3/K2B4 w - - 0 1\"]\n\n1. e4+ Kh6 2. Bc2 Kh5 3. Bd1+ *\n");
    assert_events(&g, &["5 repetition occ=2 earlier=[1]", "5 hidden fen=1 fide=2 earlier=[1]"]);
    assert_eq!(g.analysis.as_ref().unwrap().events[0].identity.fen(), "8/8/8/7k/3pP3/8/8/K2B4 b - -");
}

#[test]
fn en_passant_by_a_diagonally_pinned_pawn_is_not_a_right() {
    // The d4 pawn is pinned by Bb2 against the king on f6: dxe3 e.p. would leave the diagonal.
    let g = game("[FEN \"8/8/5k2/8/3p4/8/1B2P3/K7 w - - 0 1\"]\n\n1. e4 Kf7 2. Bc1 Kf6 3. Bb2 *\n");
    assert_events(&g, &["5 repetition occ=2 earlier=[1]", "5 hidden fen=1 fide=2 earlier=[1]"]);
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
            "4 repetition occ=2 earlier=[0]",
            "5 repetition occ=2 earlier=[1]",
            "6 repetition occ=2 earlier=[2]",
            "7 repetition occ=2 earlier=[3]",
            "7 claim_by_move Ng8 h6g8 occ=3 earlier=[0, 4] played",
            "8 repetition occ=3 earlier=[0, 4] claimable",
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
    assert!(got.contains(&"51 repetition occ=2 earlier=[47]".to_owned()), "{got:#?}");
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
    assert_eq!(rendered(&g), ["4 repetition occ=2 earlier=[0]"]);
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
    let g = game("[Variant \"Crazyhouse\"]\n\n1. e4 e5 2. Nf3 *\n");
    assert_eq!(g.status().as_str(), "skipped");
    assert_eq!(g.variant.name(), "Crazyhouse");
    let g = game("[Variant \"From Position\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. Kf1 *\n");
    assert_eq!((g.status().as_str(), g.variant.name()), ("ok", "standard"));
}
