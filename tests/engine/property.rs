//! Property test: on random legal games full of back-and-forth moves, the engine's incremental
//! window counts equal a naive recount over every earlier position, using shakmaty's own
//! FIDE equality (`Chess: Eq`) instead of our `Key`, and claim-by-move found by trying every
//! legal move at every ply (no shortcut). Each event's Zobrist key (updated move by move in the
//! engine) must equal shakmaty's key of the position computed from scratch, and each
//! repetition's cycle and perpetual check (and the summary's first threefold) a recount of the
//! checks over all plies between.

use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, fen::Fen, san::SanPlus, zobrist::Zobrist64};
use threefold::{Detail, EARLIER_PLIES_MAX, Perpetual, Replay, Start};

/// The earliest plies, as many as an event lists.
fn listed(plies: &[usize]) -> &[usize] {
    &plies[..plies.len().min(EARLIER_PLIES_MAX)]
}

/// xorshift64*: deterministic, so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random game that mostly shuffles pieces back and forth, so positions recur often, with
/// occasional pawn moves, captures, castling and king moves that change the rights; with
/// `checks`, half the moves are a quiet check where there is one (perpetual checks).
fn random_game(rng: &mut Rng, start: &Chess, max_plies: usize, checks: bool) -> Vec<Move> {
    let mut pos = start.clone();
    let mut moves: Vec<Move> = Vec::new();
    while moves.len() < max_plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        if checks && rng.below(2) == 0 {
            let gives_check = |m: &Move| {
                let mut after = pos.clone();
                after.play_unchecked(*m);
                !m.is_zeroing() && after.is_check()
            };
            let quiet_checks: Vec<Move> = legal.iter().copied().filter(gives_check).collect();
            if !quiet_checks.is_empty() {
                let m = quiet_checks[rng.below(quiet_checks.len())];
                pos.play_unchecked(m);
                moves.push(m);
                continue;
            }
        }
        // Undo our own move of two plies ago when possible.
        let back = moves.len().checked_sub(2).map(|i| moves[i]).and_then(|m| {
            legal.iter().copied().find(|l| l.from() == Some(m.to()) && l.to() == m.from().unwrap_or(m.to()))
        });
        let m = match (back, rng.below(10)) {
            (Some(b), 0..=6) => b,
            _ => {
                let quiet: Vec<Move> = legal.iter().copied().filter(|m| !m.is_zeroing()).collect();
                if !quiet.is_empty() && rng.below(8) != 0 {
                    quiet[rng.below(quiet.len())]
                } else {
                    legal[rng.below(legal.len())]
                }
            }
        };
        pos.play_unchecked(m);
        moves.push(m);
    }
    moves
}

fn same_board(a: &Chess, b: &Chess) -> bool {
    a.board() == b.board() && a.turn() == b.turn()
}

fn same_fen(a: &Chess, b: &Chess) -> bool {
    same_board(a, b)
        && a.castles().castling_rights() == b.castles().castling_rights()
        && a.ep_square(EnPassantMode::Always) == b.ep_square(EnPassantMode::Always)
}

/// Who gave check with every move from ply `from` to ply `to`, asked of each position.
fn naive_perpetual(positions: &[Chess], from: usize, to: usize) -> Option<Perpetual> {
    let all = |white: bool| {
        (from + 1..=to).filter(|&j| positions[j - 1].turn().is_white() == white).all(|j| positions[j].is_check())
    };
    match (all(true), all(false)) {
        (true, true) => Some(Perpetual::Both),
        (true, false) => Some(Perpetual::White),
        (false, true) => Some(Perpetual::Black),
        (false, false) => None,
    }
}

/// Every event the naive recount expects, rendered as text, and last the first threefold.
fn naive_events(start: &Chess, moves: &[Move]) -> Vec<String> {
    let mut positions = vec![start.clone()];
    for &m in moves {
        let mut p = positions.last().unwrap().clone();
        p.play_unchecked(m);
        positions.push(p);
    }
    let mut out = Vec::new();
    let mut first_threefold = None;
    for (k, pos) in positions.iter().enumerate() {
        let earlier = &positions[..k];
        let fide: Vec<usize> = (0..k).filter(|&j| earlier[j] == *pos).collect();
        let board: Vec<usize> = (0..k).filter(|&j| same_board(&earlier[j], pos)).collect();
        let fen = (0..k).filter(|&j| same_fen(&earlier[j], pos)).count() + 1;
        let n = fide.len() + 1;
        let zobrist = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        if n >= 2 {
            let (previous, cycle) = (fide[n - 2], k - fide[n - 2]);
            let perpetual = naive_perpetual(&positions, previous, k);
            out.push(format!("{k} repetition {n} {:?} {:016x} {cycle} {perpetual:?}", listed(&fide), zobrist(pos)));
        }
        if n == 3 && first_threefold.is_none() {
            first_threefold = Some((k - fide[0], naive_perpetual(&positions, fide[0], k)));
        }
        if board.len() + 1 > n {
            out.push(format!("{k} pseudo {} {n} {:?}", board.len() + 1, listed(&board)));
        }
        if n >= 2 && fen < n {
            out.push(format!("{k} hidden {fen} {n} {:?}", listed(&fide)));
        }
        let mut claims = Vec::new();
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let seen: Vec<usize> = (0..=k).filter(|&j| positions[j] == after).collect();
            if seen.len() >= 2 {
                let played = moves.get(k) == Some(&m);
                let san = SanPlus::from_move(pos.clone(), m);
                claims.push(format!(
                    "{k} claim {san} {} {:?} {played} {:016x}",
                    seen.len() + 1,
                    listed(&seen),
                    zobrist(&after)
                ));
            }
        }
        out.extend(claims);
    }
    let (span, perpetual) = first_threefold.map_or((None, None), |(s, p)| (Some(s as u32), p));
    out.push(format!("first threefold {span:?} {perpetual:?}"));
    out
}

fn engine_events(start: &Chess, mode: CastlingMode, moves: &[Move]) -> Vec<String> {
    let mut replay = Replay::new();
    replay.start(Start { pos: start.clone(), mode }, None);
    for &m in moves {
        replay.play(m);
    }
    let analysis = replay.finish(shakmaty::Outcome::Unknown, None, threefold::InForce::FIDE);
    let s = &analysis.summary;
    let first_threefold = format!("first threefold {:?} {:?}", s.first_threefold_span, s.first_threefold_perpetual);
    analysis
        .events
        .iter()
        .map(|e| {
            let (k, z) = (e.ply, e.identity.zobrist);
            match &e.detail {
                Detail::Repetition { occurrence, earlier_plies, cycle_plies, perpetual, .. } => {
                    format!("{k} repetition {occurrence} {earlier_plies:?} {z:016x} {cycle_plies} {perpetual:?}")
                }
                Detail::PseudoRepetition { board_occurrence, fide_occurrence, earlier_plies, .. } => {
                    format!("{k} pseudo {board_occurrence} {fide_occurrence} {earlier_plies:?}")
                }
                Detail::HiddenRepetition { fen_occurrence, fide_occurrence, earlier_plies } => {
                    format!("{k} hidden {fen_occurrence} {fide_occurrence} {earlier_plies:?}")
                }
                Detail::ClaimByMove { san, occurrence, earlier_plies, played, .. } => {
                    format!("{k} claim {san} {occurrence} {earlier_plies:?} {played} {z:016x}")
                }
            }
        })
        .chain([first_threefold])
        .collect()
}

fn check(start: &Chess, seeds: std::ops::Range<u64>, max_plies: usize) -> usize {
    check_mode(start, CastlingMode::Standard, seeds, max_plies)
}

fn check_mode(start: &Chess, mode: CastlingMode, seeds: std::ops::Range<u64>, max_plies: usize) -> usize {
    check_games(start, mode, seeds, max_plies, false).len()
}

/// The engine's lines of every game, checked against the naive recount (the summary's line left
/// out).
fn check_games(
    start: &Chess,
    mode: CastlingMode,
    seeds: std::ops::Range<u64>,
    max_plies: usize,
    checks: bool,
) -> Vec<String> {
    let mut events = Vec::new();
    for seed in seeds {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let moves = random_game(&mut rng, start, max_plies, checks);
        let mut expected = naive_events(start, &moves);
        let mut got = engine_events(start, mode, &moves);
        // The engine orders claims by move generation, the naive list too; sort both to compare sets per ply.
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "seed {seed}");
        events.extend(got.into_iter().filter(|l| !l.starts_with("first threefold")));
    }
    events
}

#[test]
fn incremental_counts_equal_naive_recount_from_start() {
    let events = check(&Chess::default(), 0..300, 120);
    // Long shuffles list only the earliest plies; the counts go on.
    let long = check(&Chess::default(), 1000..1010, 400);
    assert!(long > 0);
    assert!(events > 1000, "the generator must produce repetitions, got {events} events");
}

#[test]
fn incremental_counts_equal_naive_recount_with_en_passant_and_castling() {
    // Pawns that can take e.p. next to squares of double pushes, castling rights on both sides.
    let fen: Fen = "r3k2r/pppq1ppp/2n2n2/3pp3/1bPP4/2N2N2/PP1QPPPP/R3KB1R w KQkq - 0 1".parse().unwrap();
    let start: Chess = fen.into_position(CastlingMode::Standard).unwrap();
    let events = check(&start, 0..300, 120);
    assert!(events > 1000, "got {events} events");
}

#[test]
fn incremental_counts_equal_naive_recount_in_chess960() {
    // King on b1/b8 between rooks on a- and h-files: castling moves the king and both rooks'
    // squares overlap their targets, which the move-by-move Zobrist key must get right.
    let fen: Fen = "rk4nr/pppppppp/8/8/8/8/PPPPPPPP/RK4NR w KQkq - 0 1".parse().unwrap();
    let start: Chess = fen.into_position(CastlingMode::Chess960).unwrap();
    let events = check_mode(&start, CastlingMode::Chess960, 0..300, 120);
    assert!(events > 1000, "got {events} events");
}

#[test]
fn cycles_and_perpetual_checks_equal_a_recount_of_the_checks() {
    // Queens and open kings, half the moves checks: perpetual checks by either side, and cycles
    // in which only some moves check. Black to move first in half the games. (No `both`: a
    // mutual perpetual check is impossible with the orthodox pieces; the unit tests of `checks`
    // and `event` cover it.)
    let mut kinds = std::collections::BTreeMap::new();
    for fen in ["3qk3/8/8/8/8/8/8/3QK3 w - - 0 1", "3qk3/8/2r5/8/8/5R2/8/3QK3 b - - 0 1"] {
        let start: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        for line in check_games(&start, CastlingMode::Standard, 0..150, 160, true) {
            if line.contains(" repetition ") {
                *kinds.entry(line.rsplit(' ').next().unwrap().to_owned()).or_insert(0) += 1;
            }
        }
    }
    for kind in ["None", "Some(White)", "Some(Black)"] {
        assert!(kinds.get(kind).is_some_and(|&n| n > 20), "{kinds:?}");
    }
}
