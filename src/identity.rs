//! The FIDE identity of a position (Art. 9.2.2) and its printable components.
//!
//! Two positions are the same when the same player is to move, the same pieces stand on the same
//! squares, the castling *rights* are the same, and the en-passant square is the same *where an e.p.
//! capture is actually legal*. [`Key`] holds exactly that, plus the FEN-style e.p. field (for the
//! "hidden repetition" check) and two Zobrist fingerprints used only to skip unequal keys quickly:
//! equality is always decided on the exact components.

use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Position, Square,
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
    /// Polyglot Zobrist key of the FIDE identity (legal e.p.).
    pub zobrist: u64,
    /// Zobrist key of board and side to move only (castling and e.p. keys removed).
    pub board_zobrist: u64,
}

impl Key {
    /// Computes the key of `pos`. `zobrist` is the position's FIDE Zobrist key if the caller
    /// already has it (updated incrementally), otherwise it is computed here.
    pub fn new(pos: &Chess, zobrist: Option<u64>) -> Key {
        let legal_ep = pos.legal_ep_square();
        let zobrist =
            zobrist.unwrap_or_else(|| pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0);
        let mut board_zobrist = zobrist;
        let castles = pos.castles();
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if castles.has(color, side) {
                    board_zobrist ^= Zobrist64::zobrist_for_castling_right(color, side).0;
                }
            }
        }
        if let Some(sq) = legal_ep {
            board_zobrist ^= Zobrist64::zobrist_for_en_passant_file(sq.file()).0;
        }
        Key {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: castles.castling_rights(),
            legal_ep,
            fen_ep: pos.maybe_ep_square(),
            zobrist,
            board_zobrist,
        }
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
}

/// The printable identity components of a position, as recorded with every event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Board part of the FEN.
    pub placement: String,
    pub turn: Color,
    /// FEN castling letters (`KQkq`), Shredder-FEN letters (`HAha`) in Chess960, or `-`.
    pub castling: String,
    /// Legal e.p. square, if any.
    pub ep: Option<Square>,
    /// Identity FEN: placement, side, castling, legal e.p. (or `-`).
    pub fen: String,
    pub zobrist: u64,
}

impl Identity {
    pub fn of(key: &Key, mode: CastlingMode) -> Identity {
        let placement = key.board.to_string();
        let castling = castling_letters(&key.board, key.castling, mode);
        let ep = key.legal_ep.map_or_else(|| "-".to_owned(), |sq| sq.to_string());
        let fen = format!("{placement} {} {castling} {ep}", turn_char(key.turn));
        Identity { placement, turn: key.turn, castling, ep: key.legal_ep, fen, zobrist: key.zobrist }
    }
}

pub fn turn_char(color: Color) -> char {
    match color {
        Color::White => 'w',
        Color::Black => 'b',
    }
}

/// FEN castling field. Standard chess uses `KQkq`; Chess960 uses Shredder-FEN letters (the
/// files of the castling rooks), white first, each colour from the h-file down.
fn castling_letters(board: &Board, rights: Bitboard, mode: CastlingMode) -> String {
    let mut out = String::new();
    for color in Color::ALL {
        let mut rooks: Vec<Square> = (rights & Bitboard::from_rank(color.backrank())).into_iter().collect();
        rooks.sort_by(|a, b| b.cmp(a));
        for sq in rooks {
            let letter = match mode {
                CastlingMode::Chess960 => sq.file().char(),
                CastlingMode::Standard => {
                    let king_file = board.king_of(color).map(|k| k.file());
                    if king_file.is_some_and(|k| sq.file() > k) { 'k' } else { 'q' }
                }
            };
            out.push(match color {
                Color::White => letter.to_ascii_uppercase(),
                Color::Black => letter,
            });
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}
