//! The scanner's cursor over one game's bytes ([`Scan`]), with `pgn-reader`'s rules for where a
//! token ends and how a token that starts with a digit reads (a move number, a result, castling
//! with zeros). A file of its own because both the tag section ([`crate::pgn::tag_section`]) and
//! the mainline ([`crate::pgn::movetext`]) are read with it. Every method is `#[inline]`: their
//! callers are in other files, and a call per byte or token cost 1.1% of the replay (callgrind).

use memchr::memchr;
use shakmaty::{
    CastlingSide,
    san::{San, SanPlus, Suffix},
};

use shakmaty::{Color, KnownOutcome, Outcome};

/// What a digit-led token was.
pub(super) enum Digits {
    Result(Outcome),
    Castling(SanPlus),
    Other,
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

#[inline]
fn is_token_end(b: u8) -> bool {
    TOKEN_END[b as usize]
}

/// A position in one game's bytes: `s[i..]` is what is left to read.
pub(super) struct Scan<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
}

impl Scan<'_> {
    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    #[inline]
    pub(super) fn at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }
    #[inline]
    pub(super) fn starts_with(&self, p: &[u8]) -> bool {
        self.s[self.i..].starts_with(p)
    }
    #[inline]
    pub(super) fn skip_past(&mut self, b: u8) {
        self.i = memchr(b, &self.s[self.i..]).map_or(self.s.len(), |p| self.i + p + 1);
    }
    #[inline]
    pub(super) fn skip_until(&mut self, b: u8) {
        self.i = memchr(b, &self.s[self.i..]).map_or(self.s.len(), |p| self.i + p);
    }
    /// End of the token starting here.
    #[inline]
    pub(super) fn token_end(&self) -> usize {
        let mut j = self.i;
        while j < self.s.len() && !is_token_end(self.s[j]) {
            j += 1;
        }
        j
    }
    /// Whether the token starting here is exactly `token`.
    #[inline]
    pub(super) fn is_token(&self, token: &[u8]) -> bool {
        self.starts_with(token) && self.s.get(self.i + token.len()).is_none_or(|&c| is_token_end(c))
    }
    #[inline]
    pub(super) fn skip_token(&mut self) {
        self.i = self.token_end();
    }
    #[inline]
    pub(super) fn eat(&mut self, p: &[u8]) -> bool {
        let ok = self.starts_with(p);
        if ok {
            self.i += p.len();
        }
        ok
    }
    #[inline]
    pub(super) fn eat_dash(&mut self) -> bool {
        self.eat(b"-") || self.eat("\u{2013}".as_bytes()) || self.eat("\u{2014}".as_bytes())
    }

    /// Reads a token starting with a digit (or `½`) exactly as `pgn-reader` does.
    #[inline]
    pub(super) fn number_result_or_castling(&mut self) -> Digits {
        let first = self.s[self.i];
        self.i += 1;
        match first {
            b'0' => {
                if self.eat_dash() {
                    if self.eat(b"1") {
                        return Digits::Result(Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }));
                    }
                    if self.eat(b"0") {
                        let side = if self.eat_dash() && self.eat(b"0") {
                            CastlingSide::QueenSide
                        } else {
                            CastlingSide::KingSide
                        };
                        let suffix = if self.eat(b"+") {
                            Some(Suffix::Check)
                        } else if self.eat(b"#") {
                            Some(Suffix::Checkmate)
                        } else {
                            None
                        };
                        return Digits::Castling(SanPlus { san: San::Castle(side), suffix });
                    }
                }
            }
            b'1' => {
                if self.eat_dash() {
                    if self.eat(b"0") {
                        return Digits::Result(Outcome::Known(KnownOutcome::Decisive { winner: Color::White }));
                    }
                } else if self.eat(b"/2") && self.eat_dash() && self.eat(b"1/2") {
                    return Digits::Result(Outcome::Known(KnownOutcome::Draw));
                } else {
                    self.skip_digits_and_dots();
                }
            }
            b'\xc2' => {
                if self.eat(b"\xbd") && self.eat_dash() && self.eat("\u{bd}".as_bytes()) {
                    return Digits::Result(Outcome::Known(KnownOutcome::Draw));
                }
            }
            _ => self.skip_digits_and_dots(),
        }
        Digits::Other
    }
    #[inline]
    pub(super) fn skip_digits_and_dots(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        while matches!(self.peek(), Some(b'.' | b' ')) {
            self.i += 1;
        }
    }

    /// Passes over a space and the move number after it (` 2. `, ` 1... `) as the arms for a
    /// space and for a move number would, if they come next; these change nothing else.
    #[inline]
    pub(super) fn skip_spaced_move_number(&mut self) {
        if self.peek() == Some(b' ')
            && let Some(c @ b'1'..=b'9') = self.at(1)
            && (c != b'1' || matches!(self.at(2), Some(b'0'..=b'9' | b'.')))
        {
            self.i += 2;
            self.skip_digits_and_dots();
        }
    }

    #[inline]
    pub(super) fn skip_whitespace(&mut self, mut new_line: bool) {
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
