//! A game's fingerprint (`games.fingerprint`): one 64-bit hash of what makes two records the
//! same game, whatever their source wrote around it: the players (normalised), the date, the
//! result, the variant and start, and the moves as played (not as written: comments, move
//! numbers, annotation glyphs and SAN's spelling do not count). The moves are folded in as they
//! are replayed ([`MovesHash`], one multiply-rotate step per ply, xxHash64's round), the rest
//! hashed once at the end with xxHash64. `tests/oracle/FORMAT.md` gives the exact bytes.

use shakmaty::Move;
use twox_hash::XxHash64;

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const SEED: u64 = 0x27D4_EB2F_1656_67C5;

/// The replayed moves so far, folded into one word.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MovesHash(u64);

impl Default for MovesHash {
    fn default() -> MovesHash {
        MovesHash(SEED)
    }
}

impl MovesHash {
    /// Adds a move given by its [`code`].
    #[inline(always)]
    pub fn push(&mut self, code: u64) {
        self.0 = self.0.wrapping_add(code.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1);
    }
}

/// A move as a number: from | to << 6 | promotion << 12; castling king | rook << 6 | 7 << 12
/// (the rook's square in standard chess too); a drop to << 6 | (8 + role) << 12. Roles are
/// numbered pawn 1 to king 6, as in shakmaty and python-chess.
macro_rules! move_code {
    ($m:expr, $Move:path) => {{
        use $Move as M;
        match $m {
            M::Normal { from, to, promotion, .. } => {
                from as u64 | (to as u64) << 6 | promotion.map_or(0, |r| r as u64) << 12
            }
            M::EnPassant { from, to } => from as u64 | (to as u64) << 6,
            M::Castle { king, rook } => king as u64 | (rook as u64) << 6 | 7 << 12,
            M::Put { role, to } => (to as u64) << 6 | (8 + role as u64) << 12,
        }
    }};
}
pub(crate) use move_code;

/// [`move_code`] of a standard move.
#[inline(always)]
pub fn code(m: Move) -> u64 {
    move_code!(m, Move)
}

/// What a fingerprint hashes besides the moves, as the game's tags and record give them.
pub struct Parts<'a> {
    pub white: &'a str,
    pub black: &'a str,
    /// `Date`, else `UTCDate`, where it has a digit.
    pub date: &'a str,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: &'a str,
    pub variant: &'a str,
    /// The `FEN` tag, if any.
    pub fen: &'a str,
}

/// The fingerprint of a game of `plies` replayed plies whose moves folded to `moves`.
pub fn fingerprint(parts: &Parts, moves: MovesHash, plies: u32) -> u64 {
    let mut bytes = Vec::with_capacity(96);
    for name in [parts.white, parts.black] {
        push_name(&mut bytes, name);
        bytes.push(0x1f);
    }
    for text in [parts.date, parts.result, parts.variant, parts.fen] {
        bytes.extend_from_slice(text.trim_ascii().as_bytes());
        bytes.push(0x1f);
    }
    bytes.extend_from_slice(&moves.0.to_le_bytes());
    bytes.extend_from_slice(&plies.to_le_bytes());
    XxHash64::oneshot(0, &bytes)
}

/// A player's name as the fingerprint takes it: ASCII letters lowercased, ASCII digits kept,
/// other ASCII (spaces, commas, dots, hyphens) left out, anything else kept as it is: "Kasparov,
/// G." and "Kasparov G" are one name.
fn push_name(out: &mut Vec<u8>, name: &str) {
    for &b in name.as_bytes() {
        if b.is_ascii_alphanumeric() {
            out.push(b.to_ascii_lowercase());
        } else if !b.is_ascii() {
            out.push(b);
        }
    }
}

/// The date a fingerprint takes: `Date` where it has a digit, else `UTCDate` where it has one.
pub fn date<'a>(date: Option<&'a str>, utc_date: Option<&'a str>) -> &'a str {
    let dated = |d: &&str| d.bytes().any(|b| b.is_ascii_digit());
    date.filter(dated).or(utc_date.filter(dated)).unwrap_or("").trim_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'a>(white: &'a str, result: &'a str) -> Parts<'a> {
        Parts { white, black: "Miles, A.", date: "1986.10.??", result, variant: "standard", fen: "" }
    }

    #[test]
    fn names_are_normalised_and_everything_else_counts() {
        let moves = MovesHash::default();
        let a = fingerprint(&parts("Karpov, Anatoly", "1/2-1/2"), moves, 0);
        assert_eq!(a, fingerprint(&parts("karpov anatoly", "1/2-1/2"), moves, 0));
        assert_ne!(a, fingerprint(&parts("Karpov, Anatoli", "1/2-1/2"), moves, 0));
        assert_ne!(a, fingerprint(&parts("Karpov, Anatoly", "1-0"), moves, 0));
        let mut played = moves;
        played.push(12 | 28 << 6);
        assert_ne!(a, fingerprint(&parts("Karpov, Anatoly", "1/2-1/2"), played, 0));
    }

    #[test]
    fn move_order_counts() {
        let (mut ab, mut ba) = (MovesHash::default(), MovesHash::default());
        ab.push(1);
        ab.push(2);
        ba.push(2);
        ba.push(1);
        assert_ne!(ab, ba);
    }

    #[test]
    fn dates() {
        assert_eq!(date(Some("????.??.??"), Some("2013.01.01")), "2013.01.01");
        assert_eq!(date(Some(" 1986.10.?? "), None), "1986.10.??");
        assert_eq!(date(None, None), "");
    }
}
