//! The `[%clk …]` and `[%eval …]` commands of a mainline comment (the clock after a move, an
//! engine's evaluation of the position it made), read as python-chess's `GameNode.clock()` and
//! `GameNode.eval()` read them (`CLOCK_REGEX`, `EVAL_REGEX` of `chess/pgn.py` 1.11): the first
//! match of each kind in a comment counts, a later one is ignored, and a malformed one is not a
//! match (the search goes on past it). Digits and whitespace are ASCII (python-chess's `\d`
//! and `\s` also take other Unicode ones; the oracle reads those as no match, FORMAT.md).
//! No allocation: a comment is searched in place.

use crate::engine::clocks::Eval;

/// A clock is kept only below this many seconds, a mate only within `i32`: python-chess takes any
/// length of digits, the columns a bounded number (FORMAT.md; the oracle applies the same bounds).
const MAX_CLOCK_SECONDS: f64 = 1e9;

/// The commands found in one comment.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(crate) struct Commands {
    /// `[%clk H:MM:SS(.s)]`: the clock in milliseconds (rounded half to even, as Python's `round`).
    pub clock_ms: Option<i64>,
    /// `[%eval 0.17]`, `[%eval #-3]`: from White's point of view.
    pub eval: Option<Eval>,
}

/// Reads `comment` (the bytes between its braces).
// Inlined: Lichess's lone clock is read in the replay loop, without a call.
#[inline(always)]
pub(crate) fn read(comment: &[u8]) -> Commands {
    // Lichess writes a clock after every move, alone in its comment: read it without searching.
    match lone_clock(comment) {
        Some(ms) => Commands { clock_ms: Some(ms), eval: None },
        None => eval_then_clock(comment).unwrap_or_else(|| search(comment)),
    }
}

/// Lichess's form of a comment with an evaluation, ` [%eval 0.17] [%clk 0:03:00] `, read
/// without searching: an evaluation command first, then exactly a lone clock. Anything else,
/// `None`, goes the general way, which reads this form alike (the evaluation is the first
/// command and ends at the first `]`; the rest holds one clock and no other command).
#[inline(never)]
fn eval_then_clock(comment: &[u8]) -> Option<Commands> {
    let body = comment.strip_prefix(b" ").unwrap_or(comment).strip_prefix(b"[%eval")?;
    let eval = eval(body)?;
    let close = body.iter().position(|&b| b == b']')?;
    let clock_ms = lone_clock(&body[close + 1..])?;
    Some(Commands { clock_ms: Some(clock_ms), eval })
}

/// Reads `comment` by searching it for commands.
#[inline(never)]
fn search(comment: &[u8]) -> Commands {
    let mut found = Commands::default();
    // The first match of each kind decides, also when its value is out of bounds (then none).
    let (mut clock_matched, mut eval_matched) = (false, false);
    let mut at = 0;
    while let Some(p) = memchr::memchr(b'[', &comment[at..]) {
        let rest = &comment[at + p..];
        at += p + 1;
        if !clock_matched && let Some(body) = rest.strip_prefix(b"[%clk") {
            if let Some(value) = clock(body) {
                (clock_matched, found.clock_ms) = (true, value);
            }
        } else if !eval_matched
            && let Some(body) = rest.strip_prefix(b"[%eval")
            && let Some(value) = eval(body)
        {
            (eval_matched, found.eval) = (true, value);
        }
        if clock_matched && eval_matched {
            break;
        }
    }
    found
}

/// The clock of a comment that is ` [%clk H:MM:SS] ` (spaces optional) and nothing else: the
/// form of nearly every comment in a Lichess file, read by fixed positions. Anything else,
/// `None`, goes the general way (which reads this form alike: the unit tests check both).
#[inline(always)]
fn lone_clock(comment: &[u8]) -> Option<i64> {
    // Lichess's exact form, ` [%clk H:MM:SS] `, as one 16-byte word: its fixed bytes and the
    // digits' high nibbles by one mask, the digits' low nibbles (at most 9) by one add.
    if let Ok(&word) = <&[u8; 16]>::try_from(comment) {
        let x = u128::from_le_bytes(word);
        if x & LONE_MASK == LONE_FIXED && (x & LOW_NIBBLES).wrapping_add(SIX_AT_DIGITS) & HIGH_NIBBLES == 0 {
            let [h, m1, m2, s1, s2] = DIGITS_AT.map(|i| i64::from((x >> (8 * i)) as u8 & 0x0f));
            return Some(((h * 60 + m1 * 10 + m2) * 60 + s1 * 10 + s2) * 1000);
        }
    }
    // Other lengths and spacings (`[%clk 12:34:56] ` is 16 bytes too).
    lone_clock_by_patterns(comment)
}

/// [`lone_clock`] by slice patterns: byte comparisons in place, no call to compare slices.
#[inline(never)]
fn lone_clock_by_patterns(comment: &[u8]) -> Option<i64> {
    let c = match comment {
        [b' ', rest @ ..] => rest,
        c => c,
    };
    let c = match c {
        [rest @ .., b' '] => rest,
        c => c,
    };
    let (tens, rest) = match c {
        [b'[', b'%', b'c', b'l', b'k', b' ', rest @ ..] if rest.len() == 8 => (b'0', rest),
        [b'[', b'%', b'c', b'l', b'k', b' ', tens, rest @ ..] if rest.len() == 8 => (*tens, rest),
        _ => return None,
    };
    let &[h, b':', m1, m2, b':', s1, s2, b']'] = rest else { return None };
    let digits = [tens, h, m1, m2, s1, s2];
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let [h1, h2, m1, m2, s1, s2] = digits.map(|d| i64::from(d - b'0'));
    Some((((h1 * 10 + h2) * 60 + m1 * 10 + m2) * 60 + s1 * 10 + s2) * 1000)
}

/// Where the digits of ` [%clk H:MM:SS] ` are.
const DIGITS_AT: [u32; 5] = [7, 9, 10, 12, 13];
/// ` [%clk 0:00:00] ` with every digit `0`, as a little-endian word.
const LONE_FIXED: u128 = u128::from_le_bytes(*b" [%clk 0:00:00] ");
/// Every byte of that form whole, and the high nibble of each digit.
const LONE_MASK: u128 = nibble_mask(0xff, 0xf0);
/// The low nibble of each digit, and the same bits with a carry out of each.
const LOW_NIBBLES: u128 = nibble_mask(0, 0x0f);
const HIGH_NIBBLES: u128 = nibble_mask(0, 0xf0);
/// 6 at each digit: a low nibble above 9 carries into its high nibble (never into the next byte).
const SIX_AT_DIGITS: u128 = nibble_mask(0, 0x06);

/// A word with `digit` at the digits' bytes and `fixed` at the others.
const fn nibble_mask(fixed: u8, digit: u8) -> u128 {
    let mut bytes = [fixed; 16];
    let mut k = 0;
    while k < DIGITS_AT.len() {
        bytes[DIGITS_AT[k] as usize] = digit;
        k += 1;
    }
    u128::from_le_bytes(bytes)
}

/// Python's `\s` over ASCII; a CRLF is one character after the oracle's universal newlines.
fn skip_space(s: &[u8]) -> Option<&[u8]> {
    match s {
        [b'\r', b'\n', rest @ ..] => Some(rest),
        [b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1f, rest @ ..] => Some(rest),
        _ => None,
    }
}

/// The leading ASCII digits of `s` and the rest.
fn digits(s: &[u8]) -> (&[u8], &[u8]) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    s.split_at(n)
}

/// A run of digits as a number, saturating (a saturated value is out of any bound used here).
fn number(d: &[u8]) -> u64 {
    d.iter().fold(0u64, |n, &b| n.saturating_mul(10).saturating_add(u64::from(b - b'0')))
}

/// `\s(\d+):(\d+):(\d+(?:\.\d*)?)\]` after `[%clk`: `None` if it does not match, else the
/// clock if it is within bounds.
fn clock(body: &[u8]) -> Option<Option<i64>> {
    let s = skip_space(body)?;
    let (h, s) = digits(s);
    let s = s.strip_prefix(b":").filter(|_| !h.is_empty())?;
    let (m, s) = digits(s);
    let seconds = s.strip_prefix(b":").filter(|_| !m.is_empty())?;
    let (whole, s) = digits(seconds);
    if whole.is_empty() {
        return None;
    }
    let s = match s.strip_prefix(b".") {
        Some(s) => digits(s).1,
        None => s,
    };
    if s.first() != Some(&b']') {
        return None;
    }
    let fraction = &seconds[whole.len()..seconds.len() - s.len()];
    if let Some(ms) = exact_ms(h, m, whole, fraction) {
        return Some(Some(ms));
    }
    // The seconds as Python's `float()` reads them (`59.` too); then Python adds the int hours
    // and minutes, converted to a float first.
    let text = std::str::from_utf8(&seconds[..seconds.len() - s.len()]).unwrap_or("");
    let seconds: f64 = text.parse().unwrap_or(f64::INFINITY);
    let hm = number(h).saturating_mul(3600).saturating_add(number(m).saturating_mul(60));
    let total = hm as f64 + seconds;
    Some((total < MAX_CLOCK_SECONDS).then(|| (total * 1000.0).round_ties_even() as i64))
}

/// The clock in whole milliseconds without floats, where that is sure to be what Python's float
/// arithmetic rounds to: at most 3 decimals (`fraction` is the dot and its digits, or empty) and
/// short parts. Then the float sum is within a few ulps of an integer count of milliseconds
/// below 10^12, far less than the half a millisecond that would change its rounding. The common
/// case (`0:03:00`, `0:02:59.9`), at a fraction of the cost of parsing a float.
fn exact_ms(h: &[u8], m: &[u8], whole: &[u8], fraction: &[u8]) -> Option<i64> {
    let decimals = fraction.len().saturating_sub(1);
    if h.len() > 6 || m.len() > 6 || whole.len() > 6 || decimals > 3 {
        return None;
    }
    let seconds = number(h) * 3600 + number(m) * 60 + number(whole);
    let milli = fraction.get(1..).map_or(0, number) * [1000, 100, 10, 1][decimals];
    (seconds < MAX_CLOCK_SECONDS as u64).then(|| (seconds * 1000 + milli) as i64)
}

/// `\s(?:\#([+-]?\d+)|([+-]?(?:\d{0,10}\.\d{1,2}|\d{1,10}\.?)))(?:,(\d+))?\]` after `[%eval`:
/// `None` if it does not match, else the evaluation if it is within bounds.
fn eval(body: &[u8]) -> Option<Option<Eval>> {
    let s = skip_space(body)?;
    if let Some(s) = s.strip_prefix(b"#") {
        let (negative, s) = sign(s);
        let (d, s) = digits(s);
        if d.is_empty() || !depth_and_close(s) {
            return None;
        }
        let n = i64::try_from(number(d)).unwrap_or(i64::MAX);
        let n = if negative { -n } else { n };
        return Some(i32::try_from(n).ok().map(Eval::Mate));
    }
    let (negative, s) = sign(s);
    let (whole, s) = digits(s);
    let (fraction, rest) = match s.strip_prefix(b".") {
        Some(after) => {
            let (f, rest) = digits(after);
            (Some(f), rest)
        }
        None => (None, s),
    };
    let ok = match fraction {
        // `\d{1,10}` with no dot
        None => (1..=10).contains(&whole.len()),
        // `\d{1,10}\.` or `\d{0,10}\.\d{1,2}`
        Some(f) => whole.len() <= 10 && (f.len() <= 2) && !(whole.is_empty() && f.is_empty()),
    };
    if !ok || !depth_and_close(rest) {
        return None;
    }
    // Python reads the value as a float and rounds it times 100: with at most 10 + 2 digits the
    // float is within far less than half a centipawn of the exact count, so the integer is it.
    let fraction = fraction.unwrap_or_default();
    let cp = number(whole) as i64 * 100 + number(fraction) as i64 * if fraction.len() == 1 { 10 } else { 1 };
    Some(Some(Eval::Cp(if negative { -cp } else { cp })))
}

/// An optional sign: whether it is `-`, and the rest.
fn sign(s: &[u8]) -> (bool, &[u8]) {
    match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    }
}

/// `(?:,(\d+))?\]`
fn depth_and_close(s: &[u8]) -> bool {
    let s = match s.strip_prefix(b",") {
        Some(s) => {
            let (d, s) = digits(s);
            if d.is_empty() {
                return false;
            }
            s
        }
        None => s,
    };
    s.first() == Some(&b']')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values worked out with python-chess 1.11.2 (`Game().clock()`, `.eval().white()`,
    /// the clock rounded to milliseconds half to even), out-of-bounds ones as FORMAT.md says.
    #[test]
    fn commands_read_as_python_chess_reads_them() {
        let cases: [(&str, Option<i64>, Option<Eval>); 29] = [
            (" [%clk 0:03:00] ", Some(180_000), None),
            ("[%clk 0:02:59.9]", Some(179_900), None),
            ("[%clk 1:00:00.05]", Some(3_600_050), None),
            ("[%clk 0:00:59.]", Some(59_000), None),
            ("[%clk 0:0:5]", Some(5_000), None),
            ("[%clk  0:03:00]", None, None),
            ("[%clk\t0:03:00]", Some(180_000), None),
            ("[%clk 0:03] [%clk 0:02:00]", Some(120_000), None),
            ("[%clk 0:03:00] [%clk 0:02:00]", Some(180_000), None),
            ("text [%eval 0.17] more [%clk 0:01:02]", Some(62_000), Some(Eval::Cp(17))),
            ("[%eval #-3]", None, Some(Eval::Mate(-3))),
            ("[%eval #+3,20]", None, Some(Eval::Mate(3))),
            ("[%eval -0.175]", None, None),
            ("[%eval .5]", None, Some(Eval::Cp(50))),
            ("[%eval 5.]", None, Some(Eval::Cp(500))),
            ("[%eval 0.173] [%eval 1.5]", None, Some(Eval::Cp(150))),
            ("[%eval 12345678901] [%eval 2]", None, Some(Eval::Cp(200))),
            ("[%eval +1.25,15]", None, Some(Eval::Cp(125))),
            ("[%eval 1,]", None, None),
            ("[%eval #0]", None, Some(Eval::Mate(0))),
            ("[%eval #-0]", None, Some(Eval::Mate(0))),
            ("[%eval x] [%eval -2.5]", None, Some(Eval::Cp(-250))),
            ("[%clk 0:03:00.123456]", Some(180_123), None),
            // The first match is out of bounds: no clock (the later one is not looked at).
            ("[%clk 99999999999:00:00] [%clk 0:00:01]", None, None),
            ("[%eval 0.5 ]", None, None),
            ("[%clk 0:00:0.0005]", Some(0), None),
            ("[%clkx 0:00:01] [%clk 0:00:02]", Some(2_000), None),
            ("[%eval1.0] [%eval 3]", None, Some(Eval::Cp(300))),
            ("[%eval #2147483648] [%eval 1]", None, None),
        ];
        for (comment, clock_ms, eval) in cases {
            assert_eq!(read(comment.as_bytes()), Commands { clock_ms, eval }, "{comment}");
            assert!(lone_clock(comment.as_bytes()).is_none_or(|ms| Some(ms) == clock_ms), "{comment}");
        }
        assert_eq!(read(b"[%clk\r\n0:00:03]").clock_ms, Some(3_000), "CRLF is one line break");
        assert_eq!(read(b"[%clk 0:00:\xff3]").clock_ms, None);
        assert_eq!(read(b"[%clk 0:00:03").clock_ms, None);
        assert_eq!(read(b"[%eval #").eval, None);
        // The lone Lichess clock: read by fixed positions, or not at all, as the general way reads it.
        for comment in [
            " [%clk 0:03:00] ",
            "[%clk 1:00:09]",
            "[%clk 12:34:56] ",
            " [%clk 0:3:00] ",
            " [%clk 0:03:00]x",
            "[%clk 0:0a:00]",
            "[%clk 9:59:5/]",
            "[%clk 1x:00:00]",
            " [%clk 9:59:59] ",
            " [%clk 0:0a:00] ",
            " [%clk 0:0::00] ",
            " [%clk 0:0/:00] ",
            " [%clk 0:00:0?] ",
            " [%clk \u{7f}:00:00] ",
            " [%clk 0:00:00]}",
            "x[%clk 0:00:00] ",
            " [%clk 0;00:00] ",
            " [%clk 0:00:00 ] ",
            "  [%clk 0:00:00]",
        ] {
            let general = {
                let mut c = Commands::default();
                let body = comment.as_bytes();
                let at = memchr::memchr(b'[', body).unwrap();
                c.clock_ms = clock(&body[at + 5..]).flatten();
                c.clock_ms
            };
            assert!(lone_clock(comment.as_bytes()).is_none_or(|ms| Some(ms) == general), "{comment}");
            assert_eq!(read(comment.as_bytes()).clock_ms, general, "{comment}");
        }
        assert_eq!(lone_clock(b" [%clk 0:03:00] "), Some(180_000));
        assert_eq!(lone_clock(b"[%clk 12:34:56]"), Some(45_296_000));
        assert_eq!(lone_clock(b" [%clk 9:59:59] "), Some(35_999_000));
        // Every byte of the 16-byte form, changed to every other byte: the word check agrees
        // with the slice patterns.
        let form = *b" [%clk 1:23:45] ";
        for at in 0..16 {
            for b in 0..=255u8 {
                let mut c = form;
                c[at] = b;
                assert_eq!(lone_clock(&c), lone_clock_by_patterns(&c), "{c:?}");
            }
        }
        // Lichess's evaluation-then-clock form read without searching, as the search reads it,
        // also around the forms it must leave to the search.
        for eval in ["0.17", "-1.5", "#-3", "#+3,20", "x", "0.5 ", "12345678901", "5.", ".5", "1,", ""] {
            for clock in [" [%clk 0:03:00] ", "[%clk 0:03:00]", " [%clk 0:3:00] ", " [%clk 0:03:00.5] ", " ", ""] {
                for lead in ["", " ", "  "] {
                    let comment = format!("{lead}[%eval {eval}]{clock}");
                    let c = comment.as_bytes();
                    assert_eq!(read(c), search(c), "{comment}");
                    assert!(eval_then_clock(c).is_none_or(|fast| fast == search(c)), "{comment}");
                }
            }
        }
        assert!(eval_then_clock(b" [%eval 0.17] [%clk 0:03:00] ").is_some());
        assert!(eval_then_clock(b" [%eval #-3] [%clk 0:03:00] ").is_some());
        // Centipawns as integers are what Python's float reading and rounding gives.
        for sign in ["", "+", "-"] {
            for whole in ["", "0", "1", "9", "12", "999", "0000000001", "1234567890", "9999999999"] {
                for fraction in ["", ".", ".0", ".5", ".05", ".17", ".25", ".99", ".995"] {
                    let value = format!("{sign}{whole}{fraction}");
                    let Some(Some(Eval::Cp(cp))) = eval(format!(" {value}]").as_bytes()) else { continue };
                    let float: f64 = value.parse().unwrap();
                    assert_eq!(cp, (float * 100.0).round_ties_even() as i64, "{value}");
                }
            }
        }
        for whole in (0..2_000u64).chain((0..2_000).map(|k| 9_999_999_999 - k * 4_999_999)) {
            for hundredths in 0..100 {
                let value = format!("-{whole}.{hundredths:02}");
                let Some(Some(Eval::Cp(cp))) = eval(format!(" {value}]").as_bytes()) else { panic!("{value}") };
                let float: f64 = value.parse().unwrap();
                assert_eq!(cp, (float * 100.0).round_ties_even() as i64, "{value}");
            }
        }
        // The integer shortcut and the float reading agree where the shortcut is taken.
        for clock in ["0:03:00", "0:02:59.9", "1:59:59.99", "99999:59:59.999", "0:0:0.", "12:345:678.5", "0:00:00.001"]
        {
            let body = format!(" {clock}]");
            let b = body.as_bytes();
            let (h, rest) = digits(&b[1..]);
            let (m, rest) = digits(&rest[1..]);
            let (whole, rest) = digits(&rest[1..]);
            let fraction = &rest[..rest.len() - 1];
            let fast = exact_ms(h, m, whole, fraction);
            let text = std::str::from_utf8(&b[1 + h.len() + 1 + m.len() + 1..b.len() - 1]).unwrap();
            let slow = ((number(h) * 3600 + number(m) * 60) as f64 + text.parse::<f64>().unwrap()) * 1000.0;
            assert_eq!(fast, Some(slow.round_ties_even() as i64), "{clock}");
        }
    }
}
