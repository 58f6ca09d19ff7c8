//! Finds mainline tokens that `pgn-reader` would skip without a word.
//!
//! `pgn-reader` calls the visitor only for tokens it can read as SAN; anything else in move
//! position (`d8Q` without `=`, `e2-e4`, `0000`, stray words) is passed over silently, so a game
//! would be replayed without a move. This scanner walks one game's bytes with the reader's own
//! tokenization rules (comments, `;` and `%` lines, variations, NAGs, move numbers, results) and
//! reports the first mainline token that is not SAN, with the number of SAN tokens before it, so
//! the replay can stop there with an error instead.
//!
//! The scan also collects the mainline's moves, so the replay need not have the reader parse the
//! movetext a second time; `tests/engine/scan_agrees.rs` and the `pgn_to_events` fuzz target check that
//! these are the moves `pgn-reader` itself reads ([`crate::pgn::reference`]). It says where the
//! reader would end the game. The tag section before the movetext is read in
//! [`crate::pgn::tag_section`], both with the cursor of [`crate::pgn::scan`].

use std::ops::Range;

use memchr::memchr;
use shakmaty::{Outcome, san::SanPlus};

use crate::pgn::scan::{Digits, Scan};

/// What the scan of one game's movetext found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scanned {
    /// The first mainline token the reader would skip.
    pub bad: Option<BadToken>,
    /// The last result marker of the mainline (`*` is `Unknown`).
    pub result: Option<Outcome>,
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

/// Where a comment of exactly 16 bytes ends (Lichess's ` [%clk 0:01:00] `), its text and the
/// `}` after it checked as one word with no call: for a comment that short, setting up
/// `memchr`'s vector search costs more than the comment. `None`: search as usual.
#[inline(always)]
fn short_comment_end(s: &[u8]) -> Option<usize> {
    const ONES: u128 = u128::from_le_bytes([0x01; 16]);
    const HIGHS: u128 = u128::from_le_bytes([0x80; 16]);
    let (&text, close) = s.split_first_chunk::<16>()?;
    // A byte is `}` where `x` has a zero byte (the usual "has a zero byte" test on a word).
    let x = u128::from_le_bytes(text) ^ (ONES * u128::from(b'}'));
    let has_close = x.wrapping_sub(ONES) & !x & HIGHS != 0;
    (close.first() == Some(&b'}') && !has_close).then_some(16)
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

/// A token of the mainline.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Token {
    Move(SanPlus),
    /// A `{}` comment's text (a range of the game's bytes, braces left out): what `pgn-reader`
    /// hands a visitor's `comment`. One still open at the end runs to the end of the game.
    Comment(Range<usize>),
    /// The first token that is not a move (the reader would skip it).
    Bad(BadToken),
}

/// One game's mainline, read token by token with the reader's tokenization, so the replay can
/// play each move as it is read and nothing grows with the length of the game.
pub(crate) struct Mainline<'a> {
    sc: Scan<'a>,
    moves: u32,
    /// After a result marker the game is over: a stray token there loses no move.
    after_result: bool,
    ended: bool,
    /// Where the game's text ends (see [`Mainline::finish_at`]).
    end: usize,
    out: Scanned,
}

impl<'a> Mainline<'a> {
    /// Starts at `movetext`, where [`tags_end`] says the movetext of `game` starts.
    pub(crate) fn at(game: &'a [u8], movetext: usize) -> Mainline<'a> {
        let sc = Scan { s: game, i: movetext };
        Mainline { sc, moves: 0, after_result: false, ended: false, end: game.len(), out: Scanned::default() }
    }

    /// Lichess's form of a ply, `SAN { [%clk 0:03:00] }` (a move, one space, a 16-byte comment),
    /// then the space and move number after it: the move and the comment's text, as
    /// [`Self::next_token`] would give them in turn; `None`, with nothing read, where the text
    /// has another form (the caller then takes the next token). One check of the bytes instead
    /// of a step of the scanner for each of the move, the space, the comment and the number.
    #[inline(always)]
    pub(crate) fn lichess_ply(&mut self) -> Option<(SanPlus, Range<usize>)> {
        // (Callers try it only once a comment of this form was read, [`lichess_form`]: games
        // without such comments are spared the check after every move.)
        let sc = &self.sc;
        // A move's first byte takes the scanner's arm for other tokens (no digit: a move
        // number, a result or castling with zeros go their own ways).
        if self.ended || !matches!(sc.peek(), Some(b'a'..=b'h' | b'N' | b'B' | b'R' | b'Q' | b'K' | b'O')) {
            return None;
        }
        let end = sc.token_end();
        let text = end + 2..end + 18;
        if sc.s.get(end..end + 2) != Some(b" {") || short_comment_end(&sc.s[end + 2..]) != Some(16) {
            return None;
        }
        // (A lone `e` before `.p.`, which the arm passes over, never has ` {` after it.)
        let san = crate::engine::san::parse(&sc.s[sc.i..end]).ok()?;
        self.moves += 1;
        self.sc.i = text.end + 1;
        self.sc.skip_spaced_move_number();
        Some((san, text))
    }

    /// The next move, or the first token that is not a move (reported once; the moves after it
    /// are still returned). `None` at the end of the mainline.
    // Inlined into the replay loop as `step` is: a call per token cost 3-5% of the replay
    // thread (returning the token through memory, saving registers).
    #[inline(always)]
    pub(crate) fn next_token(&mut self) -> Option<Token> {
        self.step(true)
    }

    /// Like [`Mainline::finish`], also returning where the game's text ends as `pgn-reader`
    /// ends it: the line break of the `\n[` or blank line that ends it (from there the reader's
    /// skip of a movetext stops at once), or the end of `game`.
    pub(crate) fn finish_at(mut self) -> (Scanned, usize) {
        while self.step(false).is_some() {}
        (self.out, self.end)
    }

    fn bad(&mut self, token: &[u8], null_move: bool) -> Option<Token> {
        if self.out.bad.is_some() {
            return None;
        }
        let bad = BadToken { moves_before: self.moves, token: String::from_utf8_lossy(token).into_owned(), null_move };
        self.out.bad = Some(bad.clone());
        Some(Token::Bad(bad))
    }

    fn end(&mut self, at: usize) -> Option<Token> {
        self.ended = true;
        self.end = at;
        None
    }

    /// Reads up to the next token to report; with `read_moves` false, moves and bad tokens
    /// are passed over unread.
    ///
    /// One function on purpose: it is the byte-level state machine every movetext byte of every
    /// game goes through, one `match` on the byte whose arms share the scan position and the
    /// after-result state; the common case (a move token) stays in it without a call. Each arm
    /// is short and says what it reads where that is not obvious.
    #[inline(always)]
    fn step(&mut self, read_moves: bool) -> Option<Token> {
        if self.ended {
            return None;
        }
        while let Some(c) = self.sc.peek() {
            let sc = &mut self.sc;
            match c {
                b'{' => {
                    sc.i += 1;
                    let text = sc.i;
                    match short_comment_end(&sc.s[sc.i..]).or_else(|| memchr(b'}', &sc.s[sc.i..])) {
                        Some(p) => {
                            sc.i += p + 1;
                            let end = sc.i - 1;
                            sc.skip_spaced_move_number();
                            if read_moves {
                                return Some(Token::Comment(text..end));
                            }
                        }
                        None => {
                            self.out.open_comment = true;
                            let at = sc.s.len();
                            self.end(at);
                            return read_moves.then_some(Token::Comment(text..at));
                        }
                    }
                }
                b'\n' => {
                    sc.i += 1;
                    match sc.peek() {
                        Some(b'%') => sc.skip_until(b'\n'),
                        Some(b'[' | b'\n') => {
                            let at = sc.i - 1;
                            return self.end(at);
                        }
                        Some(b'\r') if sc.at(1) == Some(b'\n') => {
                            let at = sc.i - 1;
                            return self.end(at);
                        }
                        _ => {}
                    }
                }
                b';' => sc.skip_until(b'\n'),
                b'(' => {
                    sc.i += 1;
                    // Stopped at the line break that ends the game, or at the end.
                    if !skip_variation(sc) {
                        let at = sc.i;
                        return self.end(at);
                    }
                }
                b'*' => {
                    sc.i += 1;
                    self.after_result = true;
                    self.out.result = Some(Outcome::Unknown);
                }
                b' ' | b'\t' | b'\r' | b'.' | b')' | b'!' | b'?' => sc.i += 1,
                b'$' => {
                    sc.i += 1;
                    sc.skip_token();
                }
                // A move number (no result or castling starts so): its digits, dots and spaces.
                b'1'..=b'9' if c != b'1' || matches!(sc.at(1), Some(b'0'..=b'9' | b'.')) => {
                    sc.i += 1;
                    sc.skip_digits_and_dots();
                }
                // The reader reads results, castling with zeros and move numbers by their prefix;
                // what follows starts a new token.
                b'0'..=b'9' | b'\xc2' if c != b'\xc2' || sc.at(1) == Some(0xbd) => {
                    // `0000` as a whole token (a null move); checked without scanning to the
                    // token's end, which made a long run of zeros quadratic (found by fuzzing).
                    if c == b'0' && !self.after_result && sc.is_token(b"0000") {
                        sc.i += 4;
                        if read_moves && let Some(bad) = self.bad(b"0000", true) {
                            return Some(bad);
                        }
                        continue;
                    }
                    match sc.number_result_or_castling() {
                        Digits::Castling(san) => {
                            if read_moves {
                                self.moves += 1;
                                return Some(Token::Move(san));
                            }
                        }
                        Digits::Result(r) => {
                            self.after_result = true;
                            self.out.result = Some(r);
                        }
                        Digits::Other => {}
                    }
                }
                _ => {
                    // A stray `}` is skipped with the rest of its token, like anything not SAN.
                    let start = sc.i;
                    sc.i = if c == b'}' { sc.i + 1 } else { sc.i };
                    sc.i = sc.token_end();
                    let token = &sc.s[start..sc.i];
                    if token == b"}" {
                        continue;
                    }
                    if token == b"e" && sc.starts_with(b".p.") {
                        sc.i += 3; // "e.p." after an en-passant capture
                        continue;
                    }
                    if !read_moves {
                        continue;
                    }
                    if let Ok(san) = crate::engine::san::parse(token) {
                        self.moves += 1;
                        return Some(Token::Move(san));
                    }
                    if self.after_result && token != b"@@@@" {
                        // Not reported, and read on as the reader reads it: a move's prefix
                        // (not taken, as something other than a token end follows), then what
                        // follows it; without one, the token is skipped.
                        if let Ok((_, n)) = SanPlus::from_ascii_prefix(token) {
                            sc.i = start + n.max(1);
                        }
                        continue;
                    }
                    if let Some(bad) = self.bad(token, token == b"@@@@") {
                        return Some(bad);
                    }
                }
            }
        }
        let at = self.sc.s.len();
        self.end(at)
    }
}

/// Whether a comment (its text's range) is of the form after which a replay tries each ply in
/// Lichess's form first ([`Mainline::lichess_ply`]): 16 bytes, as ` [%clk 0:03:00] `.
pub(crate) fn lichess_form(text: &Range<usize>) -> bool {
    text.len() == 16
}

#[cfg(test)]
mod tests {
    use memchr::memchr;
    use shakmaty::{Color, KnownOutcome};

    use super::*;
    use crate::pgn::reference::{
        Item, check_scan_against_reader, first_bad_token, reader_items, reader_mainline, scan, scan_items,
        scan_items_with,
    };

    fn bad(pgn: &str) -> Option<(u32, String)> {
        first_bad_token(pgn.as_bytes()).map(|b| (b.moves_before, b.token))
    }

    #[test]
    fn a_short_comment_ends_where_the_search_finds_its_end() {
        let base = *b" [%clk 0:01:00] } 2. Nf3";
        let mut cases: Vec<Vec<u8>> = vec![base.to_vec(), b"}".to_vec(), b"".to_vec(), base[..16].to_vec()];
        // `}` (and bytes either side of it in value) at every position of the first 18 bytes.
        for at in 0..18 {
            for b in [b'}', b'|', b'~', 0x7d ^ 0x80, 0, 0xff] {
                let mut c = base.to_vec();
                c[at] = b;
                cases.push(c);
            }
        }
        for c in cases {
            if let Some(end) = short_comment_end(&c) {
                assert_eq!(Some(end), memchr(b'}', &c), "{c:?}");
            }
        }
        assert_eq!(short_comment_end(&base), Some(16));
    }

    /// The move number after a comment is passed over in the comment's step: the comment's
    /// text must still end at its brace (it ran on to the move number while this was written,
    /// which the clock search still read right), and every move and comment stay as the reader's.
    #[test]
    fn a_comment_ends_at_its_brace_when_the_move_number_after_it_is_passed_over() {
        let game = "[Event \"x\"]\n\n1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:02:59] } 2. Nf3 {x} 10. a3 \
                    {y}  3... Nc6 {z} 1-0 {w} 12.d4 1-0\n";
        let (items, scanned) = scan_items(game.as_bytes());
        assert_eq!(items, reader_items(game.as_bytes()).unwrap());
        let comments: Vec<&[u8]> =
            items.iter().filter_map(|i| if let Item::Comment(c) = i { Some(&c[..]) } else { None }).collect();
        assert_eq!(comments, [&b" [%clk 0:03:00] "[..], b" [%clk 0:02:59] ", b"x", b"y", b"z", b"w"]);
        assert_eq!(scanned.result, Some(Outcome::Known(KnownOutcome::Decisive { winner: Color::White })));
        assert!(check_scan_against_reader(game.as_bytes()).is_ok());
    }

    /// Plies in Lichess's form read at once ([`Mainline::lichess_ply`]) give what the scanner
    /// gives token by token, and what the reader reads, around every way out of that form.
    #[test]
    fn lichess_plies_read_at_once_are_the_tokens_read_one_by_one() {
        let clk = "{ [%clk 0:03:00] }";
        let plies = [
            format!("e4 {clk}"),
            format!("e5 {clk}"),
            "Nf3 { [%eval 0.17] [%clk 0:02:58] }".to_owned(),
            format!("Nc6 {clk}"),
            "Bb5 {0123456789abcdef}".to_owned(),
            format!("a6{clk}"),
            format!("Ba4  {clk}"),
            format!("Nf6 {clk} $1"),
            format!("O-O {clk} (5. d3 {clk})"),
            format!("Be7 {clk} 1/2"),
            format!("Re1 {clk}"),
            format!("b5 ; {clk}\n"),
            format!("Bb3 {clk}"),
            format!("Zz9 {clk}"),
            format!("d6 {clk}"),
        ];
        let mut movetext = String::new();
        for (k, ply) in plies.iter().enumerate() {
            let number = if k % 2 == 0 { format!("{}. ", k / 2 + 1) } else { format!("{}... ", k / 2 + 1) };
            movetext.push_str(&number);
            movetext.push_str(ply);
            movetext.push(' ');
        }
        let game = format!("[Event \"x\"]\n\n{movetext}*\n");
        let (fast, fast_scanned) = scan_items(game.as_bytes());
        let (slow, slow_scanned) = scan_items_with(game.as_bytes(), false);
        assert_eq!((&fast, &fast_scanned), (&slow, &slow_scanned));
        assert!(fast.len() > 20, "{fast:?}");
        // The bad token is the last ply's, after every move before it.
        assert_eq!(fast_scanned.bad.map(|b| (b.moves_before, b.token)), Some((13, "Zz9".to_owned())));
        check_scan_against_reader(game.as_bytes()).unwrap();
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
        assert!(first_bad_token(b"1. e4 0000").unwrap().null_move, "at the end of the input too");
    }

    /// Found by fuzzing (`52. c51Ke3` after a stray `1/2-1/2` in a game's movetext): past a
    /// result marker a token that is not a move is not reported, and the scanner skipped it
    /// whole, where `pgn-reader` reads a move's prefix (`c5`, not taken: a digit follows) and
    /// goes on from there (`1`, a move number; `Ke3`, a move), so the replay lost a move.
    #[test]
    fn regression_after_the_result_a_token_is_read_on_from_its_move_prefix() {
        for pgn in [
            "1. e4 e5 1/2-1/2 2. c51Ke3 Nf3 *",
            "1. e4 1-0 Nf3x Nc6 c51-0 Bb5 d8Q! a6 0-1",
            "1. e4 * }e5 Nf3 e2-e4 O-O-O0 --x Kd2",
        ] {
            let mut scanned = Vec::new();
            let found = scan(pgn.as_bytes(), &mut scanned);
            assert_eq!(found.bad, None, "{pgn}");
            assert_eq!(scanned, reader_mainline(pgn.as_bytes()).unwrap(), "{pgn}");
            assert_eq!(check_scan_against_reader(pgn.as_bytes()), Ok(()), "{pgn}");
        }
    }

    #[test]
    fn the_game_ends_where_the_reader_ends_it() {
        assert_eq!(bad("1. e4 e5\n\nd8Q"), None);
        assert_eq!(bad("1. e4 e5\n[Event \"next\"]\n1. d8Q"), None);
        assert_eq!(bad("1. e4 (1. d4\n\n d8Q"), None);
        assert!(scan(b"1. e4 { open", &mut Vec::new()).open_comment);
        assert!(!scan(b"1. e4 { closed } e5 (1... c5 { open", &mut Vec::new()).open_comment);
        assert_eq!(scan(b"1. e4 Ng81/2-1/2", &mut Vec::new()).result, None, "a marker inside a bad token is none");
        assert_eq!(
            scan(b"1. e4 d8Q 0-1", &mut Vec::new()).result,
            Some(Outcome::Known(KnownOutcome::Decisive { winner: Color::Black })),
            "read on after a bad token"
        );
    }
}
