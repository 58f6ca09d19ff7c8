//! Finds mainline tokens that `pgn-reader` would skip without a word.
//!
//! `pgn-reader` calls the visitor only for tokens it can read as SAN; anything else in move
//! position (`d8Q` without `=`, `e2-e4`, `0000`, stray words) is passed over silently, so a game
//! would be replayed without a move. This scanner walks one game's bytes with the reader's own
//! tokenization rules (comments, `;` and `%` lines, variations, NAGs, move numbers, results) and
//! reports the first mainline token that is not SAN, with the number of SAN tokens before it, so
//! the replay can stop there with an error instead.

use shakmaty::san::SanPlus;

use crate::replay::GameResult;

/// What a digit-led token was.
enum Digits {
    Result(GameResult),
    Castling,
    Other,
}

/// What the scan of one game's movetext found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scanned {
    /// The first mainline token the reader would skip.
    pub bad: Option<BadToken>,
    /// The last result marker of the mainline (`*` is `Unknown`).
    pub result: Option<GameResult>,
    /// The mainline ends inside a `{` comment.
    pub open_comment: bool,
}

/// A mainline token that is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadToken {
    /// SAN tokens of the mainline before this one.
    pub moves_before: u32,
    pub token: String,
    /// A null move written in a form the reader does not know (`0000`, `@@@@`).
    pub null_move: bool,
}

/// Bytes that end a token, as `pgn-reader` defines them, as a table: the scan looks up every
/// byte of every token.
static TOKEN_END: [bool; 256] = {
    let mut table = [false; 256];
    let ends = b" \t\n\r{}()!?$;.*";
    let mut i = 0;
    while i < ends.len() {
        table[ends[i] as usize] = true;
        i += 1;
    }
    table
};

fn is_token_end(b: u8) -> bool {
    TOKEN_END[b as usize]
}

/// Whether `token` has one of the common shapes of SAN (`e4`, `exd5`, `Nf3`, `Nbxd2`, `R1e1+`,
/// `O-O-O#`, ...), all of which `SanPlus::from_ascii` reads. A fast path only: a token that
/// fails it is checked by `SanPlus::from_ascii` itself.
fn is_plain_san(token: &[u8]) -> bool {
    let t = match token {
        [rest @ .., b'+' | b'#'] => rest,
        _ => token,
    };
    let file = |b: u8| matches!(b, b'a'..=b'h');
    let rank = |b: u8| matches!(b, b'1'..=b'8');
    let piece = |b: u8| matches!(b, b'N' | b'B' | b'R' | b'Q' | b'K');
    match *t {
        [b'O', b'-', b'O'] | [b'O', b'-', b'O', b'-', b'O'] => true,
        [f, r] => file(f) && rank(r),
        [p, f, r] => piece(p) && file(f) && rank(r),
        // `exd5` or `Nxd5`
        [p, b'x', f, r] => (file(p) || piece(p)) && file(f) && rank(r),
        [p, d, f, r] => piece(p) && (file(d) || rank(d)) && file(f) && rank(r),
        [p, d, b'x', f, r] => piece(p) && (file(d) || rank(d)) && file(f) && rank(r),
        _ => false,
    }
}

struct Scan<'a> {
    s: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }
    fn starts_with(&self, p: &[u8]) -> bool {
        self.s[self.i..].starts_with(p)
    }
    fn skip_past(&mut self, b: u8) {
        self.i = memchr(b, &self.s[self.i..]).map_or(self.s.len(), |p| self.i + p + 1);
    }
    fn skip_until(&mut self, b: u8) {
        self.i = memchr(b, &self.s[self.i..]).map_or(self.s.len(), |p| self.i + p);
    }
    /// End of the token starting here.
    fn token_end(&self) -> usize {
        let mut j = self.i;
        while j < self.s.len() && !is_token_end(self.s[j]) {
            j += 1;
        }
        j
    }
    fn skip_token(&mut self) {
        self.i = self.token_end();
    }
    fn eat(&mut self, p: &[u8]) -> bool {
        let ok = self.starts_with(p);
        if ok {
            self.i += p.len();
        }
        ok
    }
    fn eat_dash(&mut self) -> bool {
        self.eat(b"-") || self.eat("\u{2013}".as_bytes()) || self.eat("\u{2014}".as_bytes())
    }

    /// Reads a token starting with a digit (or `½`) exactly as `pgn-reader` does.
    fn number_result_or_castling(&mut self) -> Digits {
        let first = self.s[self.i];
        self.i += 1;
        match first {
            b'0' => {
                if self.eat_dash() {
                    if self.eat(b"1") {
                        return Digits::Result(GameResult::BlackWins);
                    }
                    if self.eat(b"0") {
                        let _ = self.eat_dash() && self.eat(b"0");
                        let _ = self.eat(b"+") || self.eat(b"#");
                        return Digits::Castling;
                    }
                }
            }
            b'1' => {
                if self.eat_dash() {
                    if self.eat(b"0") {
                        return Digits::Result(GameResult::WhiteWins);
                    }
                } else if self.eat(b"/2") && self.eat_dash() && self.eat(b"1/2") {
                    return Digits::Result(GameResult::Draw);
                } else {
                    self.skip_digits_and_dots();
                }
            }
            b'\xc2' => {
                if self.eat(b"\xbd") && self.eat_dash() && self.eat("\u{bd}".as_bytes()) {
                    return Digits::Result(GameResult::Draw);
                }
            }
            _ => self.skip_digits_and_dots(),
        }
        Digits::Other
    }
    fn skip_digits_and_dots(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        while matches!(self.peek(), Some(b'.' | b' ')) {
            self.i += 1;
        }
    }

    fn skip_whitespace(&mut self, mut new_line: bool) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    new_line = true;
                    self.i += 1;
                }
                b'%' if new_line => self.skip_past(b'\n'),
                _ => return,
            }
        }
    }
}

use memchr::{memchr, memchr3};

/// Skips the tag section as `pgn-reader` reads it; movetext may start on a tag's line.
fn skip_tags(sc: &mut Scan) {
    if sc.starts_with(b"\xef\xbb\xbf") {
        sc.i += 3;
    }
    sc.skip_whitespace(true);
    while sc.peek() == Some(b'[') {
        sc.i += 1;
        let rest = &sc.s[sc.i..];
        match memchr3(b'"', b'\n', b']', rest) {
            Some(p) if rest[p] == b'"' => {
                sc.i += p + 1;
                // the value, with backslash escapes, ends at a quote or the line's end
                loop {
                    let Some(p) = memchr3(b'\\', b'"', b'\n', &sc.s[sc.i..]) else {
                        sc.i = sc.s.len();
                        break;
                    };
                    sc.i += p;
                    match sc.s[sc.i] {
                        b'\\' => sc.i = (sc.i + 2).min(sc.s.len()),
                        b'"' => {
                            sc.i += 1;
                            break;
                        }
                        _ => break,
                    }
                }
            }
            Some(p) => sc.i += p + 1,
            None => {
                sc.i = sc.s.len();
                return;
            }
        }
        // after the value: spaces, then `]` or a line break end the tag
        while let Some(c) = sc.peek() {
            match c {
                b' ' | b'\t' | b'\r' => sc.i += 1,
                b']' => {
                    sc.i += 1;
                    sc.skip_whitespace(false);
                    break;
                }
                b'\n' => {
                    sc.i += 1;
                    sc.skip_whitespace(true);
                    break;
                }
                _ => break,
            }
        }
    }
}

/// Skips a variation after its `(`; returns false if the game ended inside it.
fn skip_variation(sc: &mut Scan) -> bool {
    let mut depth = 0usize;
    while let Some(c) = sc.peek() {
        match c {
            b'(' => {
                depth += 1;
                sc.i += 1;
            }
            b')' => {
                sc.i += 1;
                match depth.checked_sub(1) {
                    Some(d) => depth = d,
                    None => return true,
                }
            }
            b'{' => {
                sc.i += 1;
                sc.skip_past(b'}');
            }
            b';' => sc.skip_until(b'\n'),
            b'\n' => match sc.at(1) {
                Some(b'%') => {
                    sc.i += 2;
                    sc.skip_until(b'\n');
                }
                Some(b'[' | b'\n') => return false,
                Some(b'\r') if sc.at(2) == Some(b'\n') => return false,
                _ => sc.i += 1,
            },
            _ => sc.i += 1,
        }
    }
    false
}

/// The first mainline token of `game` (one game's bytes, tags included) that `pgn-reader` would
/// skip, if any.
pub fn first_bad_token(game: &[u8]) -> Option<BadToken> {
    scan(game).bad
}

/// Scans one game's mainline with the reader's tokenization: its first bad token, its last
/// result marker, and whether a comment is left open.
pub fn scan(game: &[u8]) -> Scanned {
    let mut out = Scanned::default();
    let sc = &mut Scan { s: game, i: 0 };
    skip_tags(sc);
    let mut moves = 0u32;
    // After a result marker the game is over: a stray token there loses no move.
    let mut after_result = false;
    while let Some(c) = sc.peek() {
        match c {
            b'{' => {
                sc.i += 1;
                match memchr(b'}', &sc.s[sc.i..]) {
                    Some(p) => sc.i += p + 1,
                    None => {
                        out.open_comment = true;
                        return out;
                    }
                }
            }
            b'\n' => {
                sc.i += 1;
                match sc.peek() {
                    Some(b'%') => sc.skip_until(b'\n'),
                    Some(b'[' | b'\n') => return out,
                    Some(b'\r') if sc.at(1) == Some(b'\n') => return out,
                    _ => {}
                }
            }
            b';' => sc.skip_until(b'\n'),
            b'(' => {
                sc.i += 1;
                if !skip_variation(sc) {
                    return out;
                }
            }
            b'*' => {
                sc.i += 1;
                after_result = true;
                out.result = Some(GameResult::Unknown);
            }
            b' ' | b'\t' | b'\r' | b'.' | b')' | b'!' | b'?' => sc.i += 1,
            b'$' => {
                sc.i += 1;
                sc.skip_token();
            }
            // The reader reads results, castling with zeros and move numbers by their prefix;
            // what follows starts a new token.
            b'0'..=b'9' | b'\xc2' if c != b'\xc2' || sc.at(1) == Some(0xbd) => {
                if c == b'0' && !after_result && &game[sc.i..sc.token_end()] == b"0000" {
                    sc.i = sc.token_end();
                    if out.bad.is_none() {
                        out.bad = Some(BadToken { moves_before: moves, token: "0000".into(), null_move: true });
                    }
                    continue;
                }
                match sc.number_result_or_castling() {
                    Digits::Castling => moves += 1,
                    Digits::Result(r) => {
                        after_result = true;
                        out.result = Some(r);
                    }
                    Digits::Other => {}
                }
            }
            _ => {
                // A stray `}` is skipped with the rest of its token, like anything not SAN.
                let start = sc.i;
                sc.i = if c == b'}' { sc.i + 1 } else { sc.i };
                sc.i = sc.token_end();
                let token = &game[start..sc.i];
                if token == b"}" {
                    continue;
                }
                if token == b"e" && sc.starts_with(b".p.") {
                    sc.i += 3; // "e.p." after an en-passant capture
                    continue;
                }
                if is_plain_san(token) || SanPlus::from_ascii(token).is_ok() {
                    moves += 1;
                    continue;
                }
                if after_result && token != b"@@@@" {
                    continue;
                }
                if out.bad.is_none() {
                    out.bad = Some(BadToken {
                        moves_before: moves,
                        token: String::from_utf8_lossy(token).into_owned(),
                        null_move: token == b"@@@@",
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(pgn: &str) -> Option<(u32, String)> {
        first_bad_token(pgn.as_bytes()).map(|b| (b.moves_before, b.token))
    }

    #[test]
    fn ordinary_movetext_has_no_bad_token() {
        let pgn = "[Event \"x\"]\n[Site \"y\"]\n\n1. e4 {comment} e5 $1 2. Nf3!? (2. f4 exf4 {x} (2... d5)) Nc6 \
                   3. Bb5 a6 4. O-O 0-0? 5. exd6 e.p. 1/2-1/2\n";
        assert_eq!(bad(pgn), None);
        assert_eq!(bad("1.e4 e5 2.Nf3 Nc6 12...a6 *"), None);
        assert_eq!(bad("[FEN \"8/8\"] 1. e4 *"), None);
        assert_eq!(bad("1e4 e5 2Nf3 } 0-0-0+ 1\u{2013}0 \u{bd}-\u{bd}"), None);
        assert_eq!(bad("1. e4 ; rest of line d8Q\n e5 *"), None);
    }

    #[test]
    fn tokens_the_reader_would_skip_are_reported() {
        assert_eq!(bad("1. e4 e5 2. d8Q *"), Some((2, "d8Q".into())));
        assert_eq!(bad("1. e2-e4 e5 *"), Some((0, "e2-e4".into())));
        assert_eq!(bad("1. e4 N *"), Some((1, "N".into())));
        assert_eq!(bad("e4 { a { nested } comment } *"), Some((1, "comment".into())));
        assert_eq!(bad("1. e4 }Bb5 *"), Some((1, "}Bb5".into())));
        assert_eq!(bad("1. e4 e5 1/2-1/2\0\0[Event"), None, "after the result nothing is lost");
        assert_eq!(bad("1. e4 e5 1/2 Nf3"), None, "an incomplete 1/2 prefix is consumed, as the reader does");
        assert_eq!(bad("1. e4 e5 * xyz 2. Nf3 d8Q"), None);
        assert!(first_bad_token(b"1. e4 0000 *").unwrap().null_move);
    }

    #[test]
    fn plain_san_shapes_are_san() {
        // Every token of up to 6 bytes over the letters SAN uses, in a fixed pseudo-random
        // sample: the fast path may only accept what `SanPlus::from_ascii` accepts.
        let alphabet = b"abcdefgh12345678NBRQKxO-+#=P9";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut accepted = 0;
        for _ in 0..2_000_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = 2 + (state % 5) as usize;
            let token: Vec<u8> = (0..len).map(|k| alphabet[((state >> (8 + 6 * k)) % alphabet.len() as u64) as usize]).collect();
            if is_plain_san(&token) {
                accepted += 1;
                assert!(SanPlus::from_ascii(&token).is_ok(), "{}", String::from_utf8_lossy(&token));
            }
        }
        assert!(accepted > 1000, "the sample must reach the fast path, got {accepted}");
        for t in ["e4", "exd5", "Nf3", "Nbd2", "R1e1+", "Qxh7#", "O-O", "O-O-O+", "Kxe2"] {
            assert!(is_plain_san(t.as_bytes()), "{t}");
        }
        for t in ["d8Q", "e2-e4", "N", "0-0", "Ph4", "e8=Q"] {
            assert!(!is_plain_san(t.as_bytes()), "{t}");
        }
    }

    #[test]
    fn the_game_ends_where_the_reader_ends_it() {
        assert_eq!(bad("1. e4 e5\n\nd8Q"), None);
        assert_eq!(bad("1. e4 e5\n[Event \"next\"]\n1. d8Q"), None);
        assert_eq!(bad("1. e4 (1. d4\n\n d8Q"), None);
        assert!(scan(b"1. e4 { open").open_comment);
        assert!(!scan(b"1. e4 { closed } e5 (1... c5 { open").open_comment);
        assert_eq!(scan(b"1. e4 Ng81/2-1/2").result, None, "a marker inside a bad token is none");
        assert_eq!(scan(b"1. e4 d8Q 0-1").result, Some(GameResult::BlackWins), "read on after a bad token");
    }
}
