//! Finds mainline tokens that `pgn-reader` would skip without a word.
//!
//! `pgn-reader` calls the visitor only for tokens it can read as SAN; anything else in move
//! position (`d8Q` without `=`, `e2-e4`, `0000`, stray words) is passed over silently, so a game
//! would be replayed without a move. This scanner walks one game's bytes with the reader's own
//! tokenization rules (comments, `;` and `%` lines, variations, NAGs, move numbers, results) and
//! reports the first mainline token that is not SAN, with the number of SAN tokens before it, so
//! the replay can stop there with an error instead.

use shakmaty::san::SanPlus;

/// A mainline token that is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadToken {
    /// SAN tokens of the mainline before this one.
    pub moves_before: u32,
    pub token: String,
    /// A null move written in a form the reader does not know (`0000`, `@@@@`).
    pub null_move: bool,
}

fn is_token_end(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'}' | b'(' | b')' | b'!' | b'?' | b'$' | b';' | b'.' | b'*')
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

use memchr::memchr;

/// Skips the tag section as `pgn-reader` reads it; movetext may start on a tag's line.
fn skip_tags(sc: &mut Scan) {
    if sc.starts_with(b"\xef\xbb\xbf") {
        sc.i += 3;
    }
    sc.skip_whitespace(true);
    while sc.peek() == Some(b'[') {
        sc.i += 1;
        let rest = &sc.s[sc.i..];
        let stop = rest.iter().position(|&c| matches!(c, b'"' | b'\n' | b']'));
        match stop {
            Some(p) if rest[p] == b'"' => {
                sc.i += p + 1;
                // the value, with backslash escapes, ends at a quote or the line's end
                while let Some(c) = sc.peek() {
                    match c {
                        b'\\' => sc.i = (sc.i + 2).min(sc.s.len()),
                        b'"' => {
                            sc.i += 1;
                            break;
                        }
                        b'\n' => break,
                        _ => sc.i += 1,
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
    let mut sc = Scan { s: game, i: 0 };
    skip_tags(&mut sc);
    let mut moves = 0u32;
    while let Some(c) = sc.peek() {
        match c {
            b'{' => {
                sc.i += 1;
                sc.skip_past(b'}');
            }
            b'\n' => {
                sc.i += 1;
                match sc.peek() {
                    Some(b'%') => sc.skip_until(b'\n'),
                    Some(b'[' | b'\n') => return None,
                    Some(b'\r') if sc.at(1) == Some(b'\n') => return None,
                    _ => {}
                }
            }
            b';' => sc.skip_until(b'\n'),
            b'(' => {
                sc.i += 1;
                if !skip_variation(&mut sc) {
                    return None;
                }
            }
            b' ' | b'\t' | b'\r' | b'.' | b')' | b'!' | b'?' | b'*' | b'}' => sc.i += 1,
            b'$' => {
                sc.i += 1;
                while sc.peek().is_some_and(|c| !is_token_end(c)) {
                    sc.i += 1;
                }
            }
            _ => {
                let start = sc.i;
                while sc.peek().is_some_and(|c| !is_token_end(c)) {
                    sc.i += 1;
                }
                let token = &game[start..sc.i];
                if matches!(token, b"0000" | b"@@@@") {
                    return Some(BadToken { moves_before: moves, token: String::from_utf8_lossy(token).into_owned(), null_move: true });
                }
                if is_zero_castling(token) {
                    moves += 1;
                    continue;
                }
                if is_move_number_or_result(token) || token == b"e" && sc.starts_with(b".p.") {
                    if token == b"e" {
                        sc.i += 3; // "e.p." after an en-passant capture
                    }
                    continue;
                }
                if SanPlus::from_ascii(token).is_ok() {
                    moves += 1;
                    continue;
                }
                // pgn-reader reads `1.e4` and `12...Nf6` as a number then a move
                if let Some(d) = token.iter().position(|c| !c.is_ascii_digit()).filter(|&d| d > 0 && token[0] != b'0') {
                    sc.i = start + d;
                    continue;
                }
                return Some(BadToken { moves_before: moves, token: String::from_utf8_lossy(token).into_owned(), null_move: false });
            }
        }
    }
    None
}

/// Castling written with zeros, which the reader reads itself (`0-0`, `0-0-0`, with `+`/`#`).
fn is_zero_castling(token: &[u8]) -> bool {
    let t = token.strip_suffix(b"+").or_else(|| token.strip_suffix(b"#")).unwrap_or(token);
    matches!(t, b"0-0" | b"0-0-0")
}

fn is_move_number_or_result(token: &[u8]) -> bool {
    token.iter().all(u8::is_ascii_digit)
        || matches!(token, b"1-0" | b"0-1" | b"1/2-1/2")
        || token == "½-½".as_bytes()
        || token == "1–0".as_bytes()
        || token == "0–1".as_bytes()
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
        assert_eq!(bad("1. e4 ; rest of line d8Q\n e5 *"), None);
    }

    #[test]
    fn tokens_the_reader_would_skip_are_reported() {
        assert_eq!(bad("1. e4 e5 2. d8Q *"), Some((2, "d8Q".into())));
        assert_eq!(bad("1. e2-e4 e5 *"), Some((0, "e2-e4".into())));
        assert_eq!(bad("1. e4 N *"), Some((1, "N".into())));
        assert_eq!(bad("e4 { a { nested } comment } *"), Some((1, "comment".into())));
        assert!(first_bad_token(b"1. e4 0000 *").unwrap().null_move);
    }

    #[test]
    fn the_game_ends_where_the_reader_ends_it() {
        assert_eq!(bad("1. e4 e5\n\nd8Q"), None);
        assert_eq!(bad("1. e4 e5\n[Event \"next\"]\n1. d8Q"), None);
        assert_eq!(bad("1. e4 (1. d4\n\n d8Q"), None);
    }
}
