//! A game's fingerprint (`games.fingerprint`): one 64-bit hash of what makes two records the
//! same game, whatever their source wrote around it: the players (normalised), the date, the
//! result, the variant and start, and the moves as played (not as written: comments, move
//! numbers, annotation glyphs and SAN's spelling do not count). The moves are folded in as they
//! are replayed ([`MovesHash`]: xxHash64's round per ply over the change of the position's
//! pieces-and-side Polyglot key, which the replay computes anyway, and which names the move
//! exactly), the rest hashed once at the end with xxHash64. `tests/oracle/FORMAT.md` gives the
//! exact bytes.

use std::hash::Hasher;

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
    /// Adds a move, given by how it changed the pieces-and-side key.
    #[inline(always)]
    pub fn push(&mut self, board_change: u64) {
        self.0 = self.0.wrapping_add(board_change.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1);
    }
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
    /// The Lichess game id of `Site`, if any: two Lichess games are one only if their ids are
    /// (short games of the same players on one day often have the same moves).
    pub lichess_id: &'a str,
}

/// The fingerprint of a game of `plies` replayed plies whose moves folded to `moves`: xxHash64
/// of the parts, each followed by 0x1f, then the moves' word and the plies (little-endian). A
/// player's name is taken with ASCII letters lowercased, ASCII digits kept, other ASCII (spaces,
/// commas, dots, hyphens) left out and anything else kept: "Kasparov, G." and "Kasparov G" are
/// one name. The bytes are gathered on the stack and hashed in one write where they fit (xxHash64's
/// streaming writes of a few bytes each were most of its cost; the hash is the same).
pub fn fingerprint(parts: &Parts, moves: MovesHash, plies: u32) -> u64 {
    let mut out = Gathered { hash: XxHash64::with_seed(0), buf: [0; 256], len: 0 };
    for name in [parts.white, parts.black] {
        for &b in name.as_bytes() {
            if b.is_ascii_alphanumeric() || !b.is_ascii() {
                out.push(b.to_ascii_lowercase());
            }
        }
        out.push(0x1f);
    }
    for text in [parts.date, parts.result, parts.variant, parts.fen, parts.lichess_id] {
        out.extend(text.trim_ascii().as_bytes());
        out.push(0x1f);
    }
    out.extend(&moves.0.to_le_bytes());
    out.extend(&plies.to_le_bytes());
    out.flush();
    out.hash.finish()
}

/// Bytes on their way to the hash, gathered in a buffer and written when it is full.
struct Gathered {
    hash: XxHash64,
    buf: [u8; 256],
    len: usize,
}

impl Gathered {
    #[inline]
    fn push(&mut self, b: u8) {
        if self.len == self.buf.len() {
            self.flush();
        }
        self.buf[self.len] = b;
        self.len += 1;
    }

    fn extend(&mut self, bytes: &[u8]) {
        if self.len + bytes.len() > self.buf.len() {
            self.flush();
            if bytes.len() > self.buf.len() {
                self.hash.write(bytes);
                return;
            }
        }
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    fn flush(&mut self) {
        self.hash.write(&self.buf[..self.len]);
        self.len = 0;
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
        Parts { white, black: "Miles, A.", date: "1986.10.??", result, variant: "standard", fen: "", lichess_id: "" }
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

    /// The bytes the buffer gathers hash as the plain concatenation does, whatever their lengths.
    #[test]
    fn gathered_bytes_hash_as_one_plain_write() {
        let long_name = "Ab, c. ".repeat(60);
        let long_fen = "8/8/8/8/8/8/8/8 w - - 0 1 ".repeat(20);
        for (white, fen) in [("Karpov, Anatoly", ""), (long_name.as_str(), ""), ("x", long_fen.as_str())] {
            let p = Parts {
                white,
                black: "Miles, A.",
                date: " 1986 ",
                result: "*",
                variant: "standard",
                fen,
                lichess_id: "ab",
            };
            let mut moves = MovesHash::default();
            moves.push(7);
            let mut plain = Vec::new();
            for name in [p.white, p.black] {
                plain.extend(
                    name.bytes().filter(|b| b.is_ascii_alphanumeric() || !b.is_ascii()).map(|b| b.to_ascii_lowercase()),
                );
                plain.push(0x1f);
            }
            for text in [p.date, p.result, p.variant, p.fen, p.lichess_id] {
                plain.extend(text.trim_ascii().bytes());
                plain.push(0x1f);
            }
            plain.extend(moves.0.to_le_bytes());
            plain.extend(3u32.to_le_bytes());
            assert_eq!(
                fingerprint(&p, moves, 3),
                XxHash64::oneshot(0, &plain),
                "white {} bytes, fen {}",
                white.len(),
                fen.len()
            );
        }
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
