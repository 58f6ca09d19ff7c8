//! The FIDE identity of a position (Art. 9.2.2) and its printable components.
//!
//! Two positions are the same when the same player is to move, the same pieces stand on the same
//! squares, the castling *rights* are the same, and the en-passant square is the same *where an e.p.
//! capture is actually legal*. [`Key`] holds exactly that, plus the FEN-style e.p. field (for the
//! "hidden repetition" check) and two Zobrist fingerprints used only to skip unequal keys quickly:
//! equality is always decided on the exact components.

use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, Move, Position, Role, Square,
    zobrist::{Zobrist64, ZobristValue},
};

/// Everything the repetition tracker compares, computed once per ply without allocation.
#[derive(Clone, Debug)]
pub struct Key {
    pub board: Board,
    pub turn: Color,
    /// Castling rights as the squares of the rooks that may still castle.
    pub castling: Bitboard,
    /// E.p. square only when a legal e.p. capture exists (FIDE identity).
    pub legal_ep: Option<Square>,
    /// E.p. square whenever the last move was a double push (how FEN writes it).
    pub fen_ep: Option<Square>,
    /// Zobrist key of board and side to move only (castling and e.p. keys removed).
    pub board_zobrist: u64,
}

impl Key {
    /// Computes the key of `pos` from scratch.
    pub fn of(pos: &Chess) -> Key {
        Key::new(pos, board_zobrist(pos.board(), pos.turn()))
    }

    /// Computes the key of `pos`, given the Zobrist key of its pieces and side to move (see
    /// [`board_zobrist`]), which the replay updates move by move.
    #[inline(always)]
    pub fn new(pos: &Chess, board_zobrist: u64) -> Key {
        Key {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            legal_ep: pos.legal_ep_square(),
            fen_ep: pos.maybe_ep_square(),
            board_zobrist,
        }
    }

    /// Polyglot Zobrist key of the FIDE identity (e.p. only when legal): the board key with the
    /// castling and e.p. keys added. Only events print it, so it is not kept per ply.
    pub fn zobrist(&self) -> u64 {
        let mut zobrist = self.board_zobrist;
        for color in Color::ALL {
            let rooks = self.castling & Bitboard::from_rank(color.backrank());
            if rooks.is_empty() {
                continue;
            }
            // A rook that may castle stands beside its king on the back rank: h-side of it for
            // the king side (also in Chess960, where the king stands between its two rooks).
            let king = self.board.king_of(color).map(Square::file);
            for rook in rooks {
                let side = CastlingSide::from_king_side(king.is_some_and(|k| rook.file() > k));
                zobrist ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
        if let Some(sq) = self.legal_ep {
            zobrist ^= Zobrist64::zobrist_for_en_passant_file(sq.file()).0;
        }
        zobrist
    }

    /// Same pieces on the same squares, same side to move.
    #[inline]
    pub fn same_board(&self, other: &Key) -> bool {
        self.board_zobrist == other.board_zobrist && self.turn == other.turn && self.board == other.board
    }

    /// Same position under FIDE Art. 9.2.2 (assumes `same_board`).
    #[inline]
    pub fn same_rights(&self, other: &Key) -> bool {
        self.castling == other.castling && self.legal_ep == other.legal_ep
    }

    /// Whether the side to move is in check: the move that led here gave check.
    pub fn in_check(&self) -> bool {
        self.board
            .king_of(self.turn)
            .is_some_and(|king| self.board.attacks_to(king, !self.turn, self.board.occupied()).any())
    }
}

/// The Polyglot Zobrist key of the pieces on `board` and of `turn` to move, without castling
/// and e.p. keys: what [`Key::board_zobrist`] holds.
pub fn board_zobrist(board: &Board, turn: Color) -> u64 {
    // Most games start from the standard position: its key is computed once.
    static STANDARD: std::sync::LazyLock<u64> =
        std::sync::LazyLock::new(|| pieces_zobrist(&Board::new()) ^ Zobrist64::zobrist_for_white_turn().0);
    if turn == Color::White && *board == const { Board::new() } {
        return *STANDARD;
    }
    pieces_zobrist(board) ^ if turn == Color::White { Zobrist64::zobrist_for_white_turn().0 } else { 0 }
}

/// The Polyglot Zobrist keys of the pieces on `board`, combined.
fn pieces_zobrist(board: &Board) -> u64 {
    let mut z = 0;
    // By piece bitboard: cheaper than asking the board for each occupied square's piece.
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = role.of(color);
            for sq in board.by_piece(piece) {
                z ^= Zobrist64::zobrist_for_piece(sq, piece).0;
            }
        }
    }
    z
}

/// How the pieces-and-side Zobrist key changes when `turn` plays `m`: the keys of every piece
/// that leaves or reaches a square, and the side to move. Castling and e.p. rights are not part
/// of it; [`Key::new`] adds them per position.
#[inline(always)]
pub fn move_zobrist_change(m: Move, turn: Color) -> u64 {
    let piece = |sq, role: Role, color: Color| Zobrist64::zobrist_for_piece(sq, role.of(color)).0;
    let mut z = Zobrist64::zobrist_for_white_turn().0;
    match m {
        Move::Normal { role, from, capture, to, promotion } => {
            z ^= piece(from, role, turn) ^ piece(to, promotion.unwrap_or(role), turn);
            if let Some(captured) = capture {
                z ^= piece(to, captured, !turn);
            }
        }
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            z ^= piece(from, Role::Pawn, turn) ^ piece(to, Role::Pawn, turn) ^ piece(captured, Role::Pawn, !turn);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            // In Chess960 a target square may be the start square of the other piece: the
            // four keys still cancel exactly where nothing changed.
            z ^= piece(king, Role::King, turn)
                ^ piece(side.king_to(turn), Role::King, turn)
                ^ piece(rook, Role::Rook, turn)
                ^ piece(side.rook_to(turn), Role::Rook, turn);
        }
        Move::Put { role, to } => z ^= piece(to, role, turn),
    }
    z
}

/// The printable identity components of a position, as recorded with every event. The texts
/// are parts of one string, the identity FEN: one allocation per event and per copy of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Identity FEN: placement, side, castling, legal e.p. (or `-`).
    fen: String,
    /// Where the placement ends in `fen`.
    placement_end: usize,
    /// Where the castling field ends in `fen` (it starts three bytes after the placement).
    castling_end: usize,
    pub turn: Color,
    /// Legal e.p. square, if any.
    pub ep: Option<Square>,
    pub zobrist: u64,
    /// What a variant adds to the identity ([`crate::engine::variant`]): crazyhouse pockets and
    /// promoted pieces, three-check's remaining checks; `None` where there is nothing.
    pub variant_state: Option<String>,
}

/// `dump` writes an identity as its parts and its Zobrist key in hex.
impl serde::Serialize for Identity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(6))?;
        map.serialize_entry("placement", self.placement())?;
        map.serialize_entry("castling", self.castling())?;
        map.serialize_entry("ep", &self.ep.map(|sq| sq.to_string()))?;
        map.serialize_entry("fen", self.fen())?;
        map.serialize_entry("zobrist", &format!("{:016x}", self.zobrist))?;
        map.serialize_entry("variant_state", &self.variant_state)?;
        map.end()
    }
}

impl Identity {
    pub fn of(key: &Key, mode: CastlingMode) -> Identity {
        let mut fen = Vec::with_capacity(90);
        push_placement(&key.board, &mut fen);
        let placement_end = fen.len();
        fen.extend_from_slice(&[b' ', key.turn.char() as u8, b' ']);
        push_castling(&key.board, key.castling, mode, &mut fen);
        let castling_end = fen.len();
        fen.push(b' ');
        match key.legal_ep {
            Some(sq) => fen.extend_from_slice(&[sq.file().char() as u8, sq.rank().char() as u8]),
            None => fen.push(b'-'),
        }
        let fen = String::from_utf8(fen).expect("FEN letters are ASCII");
        Identity {
            fen,
            placement_end,
            castling_end,
            turn: key.turn,
            ep: key.legal_ep,
            zobrist: key.zobrist(),
            variant_state: None,
        }
    }

    /// Identity FEN: placement, side, castling, legal e.p. (or `-`).
    pub fn fen(&self) -> &str {
        &self.fen
    }

    /// Board part of the FEN.
    pub fn placement(&self) -> &str {
        &self.fen[..self.placement_end]
    }

    /// FEN castling letters (`KQkq`), Shredder-FEN letters (`HAha`) in Chess960, or `-`.
    pub fn castling(&self) -> &str {
        &self.fen[self.placement_end + 3..self.castling_end]
    }
}

/// Writes the board part of a FEN: an event is recorded for every repetition, and the general
/// formatter (or a lookup of each square's piece) costs several times as much.
fn push_placement(board: &Board, out: &mut Vec<u8>) {
    let mut letters = [0u8; 64];
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = role.of(color);
            for sq in board.by_piece(piece) {
                letters[usize::from(sq)] = piece.char() as u8;
            }
        }
    }
    for rank in letters.chunks_exact(8).rev() {
        let mut empty = 0u8;
        for &letter in rank {
            if letter == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(b'0' + empty);
                empty = 0;
            }
            out.push(letter);
        }
        if empty > 0 {
            out.push(b'0' + empty);
        }
        out.push(b'/');
    }
    out.pop(); // no '/' after the first rank
}

/// Writes the FEN castling field. Standard chess uses `KQkq`; Chess960 uses Shredder-FEN letters
/// (the files of the castling rooks), white first, each colour from the h-file down.
fn push_castling(board: &Board, rights: Bitboard, mode: CastlingMode, out: &mut Vec<u8>) {
    let start = out.len();
    for color in Color::ALL {
        let king_file = board.king_of(color).map(|k| k.file());
        for sq in (rights & Bitboard::from_rank(color.backrank())).into_iter().rev() {
            let letter = match mode {
                CastlingMode::Chess960 => sq.file().char(),
                CastlingMode::Standard if king_file.is_some_and(|k| sq.file() > k) => 'k',
                CastlingMode::Standard => 'q',
            } as u8;
            out.push(match color {
                Color::White => letter.to_ascii_uppercase(),
                Color::Black => letter,
            });
        }
    }
    if out.len() == start {
        out.push(b'-');
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{EnPassantMode, fen::Fen};

    use super::*;

    /// The hand-written placement and identity FEN equal shakmaty's own FEN (its first four
    /// fields, e.p. only when legal) along pseudo-random games, which castle, capture e.p. and
    /// promote now and then.
    #[test]
    fn identity_fen_is_shakmatys_fen() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let (mut checked, mut ep, mut promoted) = (0, 0, 0);
        // Every other game is Chess960 (castling rooks off the corner files), where only the
        // placement and the Zobrist key are compared: its castling letters are Shredder-FEN's.
        let chess960 = [
            "nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w GBgb - 0 1",
            "bbqrkrnn/pppppppp/8/8/8/8/PPPPPPPP/BBQRKRNN w FDfd - 0 1",
        ];
        let mut checked960 = 0;
        for game in 0..200 {
            let mode = if game % 2 == 1 { CastlingMode::Chess960 } else { CastlingMode::Standard };
            let mut pos = match mode {
                CastlingMode::Standard => Chess::default(),
                CastlingMode::Chess960 => {
                    let fen: Fen = chess960[game / 2 % 2].parse().expect("FEN");
                    fen.into_position(mode).expect("Chess960 start")
                }
            };
            for _ in 0..150 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Prefer pawn moves so that games reach promotions and e.p. squares.
                let pawn: Vec<_> = moves.iter().filter(|m| m.role() == Role::Pawn).collect();
                let m = match pawn.is_empty() || state.is_multiple_of(3) {
                    true => moves[(state >> 8) as usize % moves.len()],
                    false => *pawn[(state >> 8) as usize % pawn.len()],
                };
                promoted += usize::from(m.is_promotion());
                pos.play_unchecked(m);
                let id = Identity::of(&Key::of(&pos), mode);
                ep += usize::from(id.ep.is_some());
                assert_eq!(id.zobrist, pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0);
                assert_eq!(id.placement(), pos.board().to_string());
                if mode == CastlingMode::Chess960 {
                    checked960 += usize::from(pos.castles().any());
                    continue;
                }
                let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                let fields: Vec<&str> = fen.split(' ').take(4).collect();
                assert_eq!(id.fen(), fields.join(" "));
                assert_eq!((id.placement(), id.castling()), (fields[0], fields[2]));
                checked += 1;
            }
        }
        assert!(checked > 5_000 && ep > 10 && promoted > 10, "{checked} positions, {ep} e.p., {promoted} promotions");
        assert!(checked960 > 1_000, "{checked960} Chess960 positions with castling rights");
    }
}
