//! `threefold_core::engine::san::to_move` resolves most SAN without `shakmaty`'s move list and hands the rest
//! to `San::to_move`; its answer must always be `shakmaty`'s. Checked here position by position
//! on real games (standard, Chess960 and set-up positions): every legal move's SAN, and each of
//! them mutilated (no disambiguation, a wrong or extra file/rank, the capture mark flipped, other
//! promotions, another piece) so that ambiguous and illegal answers are compared too. Debug builds
//! (the fuzz targets too) also assert it on every move the replay plays.

use std::{ops::ControlFlow, path::Path};

use crate::common;

use shakmaty::{Chess, File, Move, Position, Rank, Role, Square, san::San};
use threefold::{GameVisitor, Start, for_each_game_with};
use threefold_core::read::input;

/// SAN variants of `san` that may resolve differently, including `san` itself.
fn mutilations(san: San) -> Vec<San> {
    let mut out = vec![san];
    if let San::Normal { role, file, rank, capture, to, promotion } = san {
        let normal =
            |role, file, rank, capture, to, promotion| San::Normal { role, file, rank, capture, to, promotion };
        out.push(normal(role, None, None, capture, to, promotion));
        out.push(normal(role, file, rank, !capture, to, promotion));
        out.push(normal(role, Some(File::new((u32::from(to) % 8) ^ 1)), rank, capture, to, promotion));
        out.push(normal(role, file, Some(Rank::new((u32::from(to) / 8) ^ 3)), capture, to, promotion));
        for p in [None, Some(Role::Queen), Some(Role::Knight), Some(Role::King), Some(Role::Pawn)] {
            out.push(normal(role, file, rank, capture, to, p));
        }
        for r in Role::ALL {
            out.push(normal(r, None, None, capture, to, promotion));
        }
        // Same piece one square over: often illegal, sometimes another piece's move.
        out.push(normal(role, file, rank, capture, Square::new((u32::from(to) + 1) % 64), promotion));
    }
    out
}

#[derive(Default)]
struct Check {
    positions: u64,
    compared: u64,
    differ: u64,
    /// SAN of a legal move that `san::parse` reads otherwise than `SanPlus::from_ascii`.
    misparsed: u64,
    failures: Vec<String>,
}

impl Check {
    fn compare(&mut self, pos: &Chess, san: San) {
        let ours = threefold_core::engine::san::to_move(pos, &san);
        let theirs = san.to_move(pos);
        self.compared += 1;
        if ours != theirs {
            self.differ += 1;
        }
        if ours != theirs && self.failures.len() < 20 {
            let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Always);
            self.failures.push(format!("{san} in {fen}: ours {ours:?}, shakmaty {theirs:?}"));
        }
    }

    fn position(&mut self, pos: &Chess, played: San) {
        self.positions += 1;
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        for &m in &legal {
            let token = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
            let theirs = shakmaty::san::SanPlus::from_ascii(token.as_bytes()).ok();
            if threefold_core::engine::san::parse(token.as_bytes()).ok() != theirs {
                self.misparsed += 1;
                if self.failures.len() < 20 {
                    self.failures.push(format!("{token} parses differently"));
                }
            }
        }
        for m in legal {
            for san in mutilations(San::from_move(pos, m)) {
                self.compare(pos, san);
            }
        }
        for san in mutilations(played) {
            self.compare(pos, san);
        }
    }
}

/// Checks every position of the first `games` games of a file, read as `threefold` reads
/// them, up to a game's first move that does not resolve.
fn check_file(check: &mut Check, path: &Path, games: usize) {
    let (_, stream) = input::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut left = games;
    for_each_game_with(stream, GameVisitor::keeping_moves(), |game| {
        // Games of a variant that is not replayed have no analysis and no start here.
        if game.analysis.is_some()
            && let Ok(start) = Start::new(&game.variant, game.tag("FEN"))
        {
            let mut pos = start.pos;
            for san in &game.moves {
                check.position(&pos, san.san);
                let Ok(m) = san.san.to_move(&pos) else { break };
                pos.play_unchecked(m);
            }
        }
        left -= 1;
        if left == 0 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })
    .unwrap();
}

#[test]
fn san_resolution_agrees_with_shakmaty_on_real_positions() {
    let mut check = Check::default();
    for name in
        ["lichess_db_standard_rated_2013-01-first300.pgn", "karpov_miles_tilburg_1986.pgn", "tcec-chess960-game35.pgn"]
    {
        check_file(&mut check, &common::sample(name), 300);
    }
    let mut least = 15_000;
    if let Some(corpus) = common::corpus("SAN resolution against shakmaty on corpus games") {
        for (file, games) in [
            ("lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst", 300),
            ("otb/pgnmentor-players.pgn.zst", 300),
            ("engine/tcec-chess960.pgn.zst", 60),
            ("variants/chess960rwch.pgn", 40),
            ("edge/fenSetup.pgn", 100),
            ("edge/chessalyzer-en-passant.pgn", 100),
            ("edge/promotion.pgn", 100),
            ("edge/chessalyzer-multiple-promotions.pgn", 100),
        ] {
            check_file(&mut check, &corpus.join(file), games);
        }
        least = 50_000;
    }
    assert!(check.positions > least, "only {} positions", check.positions);
    assert!(
        check.differ == 0 && check.misparsed == 0,
        "{} of {} resolve differently, {} legal moves' SAN parse differently; first:\n{}",
        check.differ,
        check.compared,
        check.misparsed,
        check.failures.join("\n")
    );
}

/// Pinned pieces, discovered checks, a capture of the pinning piece, and the standard SAN rule
/// that a pinned piece does not count for disambiguation.
#[test]
fn san_resolution_agrees_on_pins() {
    let mut check = Check::default();
    for fen in [
        "4k3/8/8/8/4r3/8/4N3/4K3 w - - 0 1",        // knight pinned on the file
        "4k3/8/8/8/4r3/8/4R3/4K3 w - - 0 1",        // rook pinned, may move along the pin
        "4k3/8/8/1b6/8/3N4/8/5K1N w - - 0 1",       // Nd3 pinned diagonally; Nf2 only from h1
        "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1",          // king takes an unprotected pawn
        "4k3/8/8/8/1q6/8/3P4/4K3 w - - 0 1",        // pawn pinned diagonally
        "4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1",        // pawn takes the pinning bishop
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1", // en passant and castling go to shakmaty
        "8/2P1k3/8/8/8/8/8/4K3 w - - 0 1",          // promotion
        "4r2k/8/8/8/8/8/4K3/R7 w - - 0 1",          // in check on the file: Ke1 stays in it
        "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",          // in check: the king takes the checker
        "4k3/8/8/8/8/3n4/8/R3K2R w KQ - 0 1",       // knight check: no block, Kf1/Ke2 only
        "4k3/8/8/8/1b6/8/8/R3K1NR w KQ - 0 1",      // bishop check: blocks and king moves
        "3rk3/8/8/8/8/8/8/3QK3 w - - 0 1",          // the queen is attacked, not pinned
    ] {
        let pos: Chess =
            fen.parse::<shakmaty::fen::Fen>().unwrap().into_position(shakmaty::CastlingMode::Standard).unwrap();
        let mut sans: Vec<San> = pos.legal_moves().into_iter().map(|m| San::from_move(&pos, m)).collect();
        sans.extend(
            [
                "Nf2", "Nc1", "Rxe4", "Re3", "Rd2", "Kxd2", "dxc3", "d3", "d4", "exd6", "c8=Q", "c8", "Nf1", "Ke1",
                "Ke2", "Kd2", "Kxd2", "Kf1", "Nd2", "Bd2", "Rd1", "Qxd8",
            ]
            .map(|s| s.parse::<San>().unwrap()),
        );
        for san in sans {
            check.positions += 1;
            for san in mutilations(san) {
                check.compare(&pos, san);
            }
        }
    }
    assert!(check.differ == 0, "{}", check.failures.join("\n"));
}

/// `threefold_core::engine::san::parse` reads SAN tokens byte by byte where it can and must read every token
/// as `SanPlus::from_ascii` does: every string of up to 5 bytes over the bytes SAN is made of
/// (and some it is not). Every legal move's SAN in every position of the games above is checked
/// too, by `Check::position`.
#[test]
fn san_parsing_agrees_with_shakmaty() {
    use shakmaty::san::SanPlus;
    let alphabet = b"NBRQKPaeh1458x=+#O-@Z0";
    let mut compared = 0u64;
    let mut token = Vec::new();
    for len in 0..=5u32 {
        for n in 0..alphabet.len().pow(len) {
            token.clear();
            token.extend((0..len).map(|k| alphabet[n / alphabet.len().pow(k) % alphabet.len()]));
            let ours = threefold_core::engine::san::parse(&token).ok();
            let theirs = SanPlus::from_ascii(&token).ok();
            assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(&token));
            compared += 1;
        }
    }
    assert!(compared > 5_000_000, "{compared} strings");
}
