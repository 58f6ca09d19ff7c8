//! SAN tokens to moves, for the common cases: [`parse`] reads a token without `shakmaty`'s
//! general reader, [`to_move`] finds its move without building a move list.
//!
//! `shakmaty`'s [`San::to_move`] generates every candidate move into a 256-entry list and returns
//! it by value: most of what replaying a game costs (docs/performance.md). Most moves
//! in real games are a piece or pawn moving to a square with one legal mover; for those the
//! mover is found from attack bitboards and the move is legal when it leaves its own king
//! unattacked. Anything else (castling, en passant, an ambiguous, illegal or odd token) goes to
//! [`San::to_move`], so the answer is always exactly `shakmaty`'s: debug builds (the fuzz targets
//! too) assert it on every move, and `tests/engine/san_agrees.rs` checks it in every position of ~900
//! real games for every legal move's SAN and many mutilated ones.

use shakmaty::{
    Bitboard, Board, Chess, Color, File, Move, Position, Rank, Role, Square, attacks,
    san::{ParseSanError, San, SanError, SanPlus, Suffix},
};

/// `token` read as SAN, exactly as [`SanPlus::from_ascii`] reads it. Piece and pawn moves
/// (`e4`, `exd5`, `Nbd7`, `R1xe2+`, `e8=Q#`) are read here byte by byte, at a third of the cost;
/// anything else (castling, drops, null moves, lowercase promotions, errors) by `shakmaty`.
/// Debug builds assert the two agree on every token; `tests/engine/san_agrees.rs` checks every short
/// string. Inlined into the movetext scanner, once per move of every game.
#[inline]
pub fn parse(token: &[u8]) -> Result<SanPlus, ParseSanError> {
    let found = parse_normal(token).map_or_else(|| SanPlus::from_ascii(token), Ok);
    debug_assert_eq!(
        found.as_ref().ok(),
        SanPlus::from_ascii(token).as_ref().ok(),
        "{:?}",
        String::from_utf8_lossy(token)
    );
    found
}

/// A piece or pawn move, read as `shakmaty`'s SAN reader reads it; `None`: ask shakmaty.
#[inline(always)]
fn parse_normal(token: &[u8]) -> Option<SanPlus> {
    let (suffix, t) = match token.split_last()? {
        (b'+', rest) => (Some(Suffix::Check), rest),
        (b'#', rest) => (Some(Suffix::Checkmate), rest),
        _ => (None, token),
    };
    let (role, t) = match t.first()? {
        b'N' => (Role::Knight, &t[1..]),
        b'B' => (Role::Bishop, &t[1..]),
        b'R' => (Role::Rook, &t[1..]),
        b'Q' => (Role::Queen, &t[1..]),
        b'K' => (Role::King, &t[1..]),
        b'a'..=b'h' => (Role::Pawn, t),
        _ => return None,
    };
    let (promotion, t) = match t {
        [rest @ .., b'=', p] => (Some(promotion_role(*p)?), rest),
        _ => (None, t),
    };
    // What remains: an optional file and rank of the mover, an optional `x`, the target square
    // (read from the end, this is shakmaty's reading: `e4` is a target, `ed5` a file and one).
    let (to, t) = match t {
        [rest @ .., f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            (Square::from_coords(File::new(u32::from(f - b'a')), Rank::new(u32::from(r - b'1'))), rest)
        }
        _ => return None,
    };
    let (capture, t) = match t {
        [rest @ .., b'x'] => (true, rest),
        _ => (false, t),
    };
    let (file, rank) = match *t {
        [] => (None, None),
        [f @ b'a'..=b'h'] => (Some(File::new(u32::from(f - b'a'))), None),
        [r @ b'1'..=b'8'] => (None, Some(Rank::new(u32::from(r - b'1')))),
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            (Some(File::new(u32::from(f - b'a'))), Some(Rank::new(u32::from(r - b'1'))))
        }
        _ => return None,
    };
    Some(SanPlus { san: San::Normal { role, file, rank, capture, to, promotion }, suffix })
}

fn promotion_role(b: u8) -> Option<Role> {
    Some(match b {
        b'Q' => Role::Queen,
        b'R' => Role::Rook,
        b'B' => Role::Bishop,
        b'N' => Role::Knight,
        _ => return None,
    })
}

/// The move `san` denotes in `pos`, exactly as [`San::to_move`] decides it. Inlined into the
/// replay's one call (once per move), with [`fast`]: left to itself the compiler stopped
/// inlining them when the replay got a sibling for the variants (1.4% more instructions per
/// game).
#[inline(always)]
pub fn to_move(pos: &Chess, san: &San) -> Result<Move, SanError> {
    let found = fast(pos, san).map_or_else(|| san.to_move(pos), Ok);
    debug_assert_eq!(
        found,
        san.to_move(pos),
        "{san} in {}",
        shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
    );
    found
}

/// The move, when `san` is a normal move with exactly one legal mover and no en passant or odd
/// promotion involved; `None` means "ask shakmaty".
#[inline(always)]
fn fast(pos: &Chess, san: &San) -> Option<Move> {
    let San::Normal { role, file, rank, capture, to, promotion } = *san else {
        return None;
    };
    let board = pos.board();
    let turn = pos.turn();
    let occupied = board.occupied();
    let target = board.role_at(to);
    // A capture flag that disagrees with the board, or a target of our own, is an illegal move
    // (or en passant): shakmaty says which.
    if capture != target.is_some() || pos.us().contains(to) {
        return None;
    }
    let back_rank = Bitboard::BACKRANKS.contains(to);
    let from = match role {
        Role::Pawn => {
            match promotion {
                None if !back_rank => {}
                Some(Role::Queen | Role::Rook | Role::Bishop | Role::Knight) if back_rank => {}
                _ => return None,
            }
            if capture {
                attacks::pawn_attacks(!turn, to) & pos.our(Role::Pawn)
            } else {
                let behind = to.offset(turn.fold_wb(-8, 8))?;
                if pos.our(Role::Pawn).contains(behind) {
                    Bitboard::from_square(behind)
                } else if to.rank() == turn.fold_wb(Rank::Fourth, Rank::Fifth) && !occupied.contains(behind) {
                    let start = behind.offset(turn.fold_wb(-8, 8))?;
                    pos.our(Role::Pawn) & Bitboard::from_square(start)
                } else {
                    Bitboard::EMPTY
                }
            }
        }
        _ if promotion.is_some() => return None,
        Role::Knight => attacks::knight_attacks(to) & pos.our(role),
        Role::Bishop => attacks::bishop_attacks(to, occupied) & pos.our(role),
        Role::Rook => attacks::rook_attacks(to, occupied) & pos.our(role),
        Role::Queen => attacks::queen_attacks(to, occupied) & pos.our(role),
        Role::King => attacks::king_attacks(to) & pos.our(role),
    };
    let king = board.king_of(turn)?;
    let mut found = None;
    for from in from {
        if file.is_some_and(|f| f != from.file()) || rank.is_some_and(|r| r != from.rank()) {
            continue;
        }
        // Legal when the king is not attacked after the move, whether or not it is in check
        // now: for the king, by nothing at `to` (with the king gone from `from`, so it shields
        // no slider); for another piece, by nothing once `from` is empty and `to` filled but
        // the piece captured there.
        let legal = if role == Role::King {
            king_may_step(board, turn, from, to)
        } else {
            (pos.king_attackers(king, !turn, (occupied ^ from) | to) & !Bitboard::from_square(to)).is_empty()
        };
        if legal {
            if found.is_some() {
                return None;
            }
            found = Some(Move::Normal { role, from, capture: target, to, promotion });
        }
    }
    found
}

/// Whether the king of `turn` on `king` may step to `to` (not a square of its own): no enemy
/// piece attacks `to` once the king has left its square, so that it shields no slider. This is
/// `shakmaty`'s own rule for king moves, in check or not.
pub(crate) fn king_may_step(board: &Board, turn: Color, king: Square, to: Square) -> bool {
    board.attacks_to(to, !turn, board.occupied() ^ king).is_empty()
}
