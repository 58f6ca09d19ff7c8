//! A game's tags ([`Tags`]), typed values from them as the Hugging Face
//! `Lichess/standard-chess-games` dataset types them, and the fields derived from tags
//! (`lichess_id`, `time_class`).

use std::ops::Range;

use crate::engine::vocabulary::TimeClass;

/// A game's tags in file order, names and values decoded as UTF-8, or Latin-1 (every byte one
/// character) where they are not valid UTF-8. All of them live in one string: two allocations
/// per game, not two per tag. A tag section that is UTF-8 is copied whole and its tags are
/// ranges in it ([`Tags::refill`]): one copy per game rather than two per tag.
#[derive(Clone, Debug, Default)]
pub struct Tags {
    text: String,
    /// Per tag, where its name and its value lie in `text`.
    spans: Vec<(Range<usize>, Range<usize>)>,
}

impl PartialEq for Tags {
    fn eq(&self, other: &Tags) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Tags {}

impl Tags {
    pub fn new() -> Tags {
        // A Lichess game's tags take about 400 bytes.
        Tags { text: String::with_capacity(512), spans: Vec::with_capacity(20) }
    }

    /// No tags any more, over a copy of `section` (the text of a tag section), whose tags
    /// [`Tags::push_within`] adds by their ranges in it. The buffers are kept: a game's tags
    /// are read into an earlier game's ([`crate::pgn::GameVisitor::recycle`]).
    pub fn refill(&mut self, section: &str) {
        self.text.clear();
        self.text.push_str(section);
        self.spans.clear();
    }

    /// Appends the tag whose name and value lie at `name` and `value` in the section
    /// [`Tags::refill`] copied; `false` (nothing added) where a range is not text there.
    pub fn push_within(&mut self, name: Range<usize>, value: Range<usize>) -> bool {
        let ok = self.text.get(name.clone()).is_some() && self.text.get(value.clone()).is_some();
        if ok {
            self.spans.push((name, value));
        }
        ok
    }

    /// Appends a tag as read from the file.
    pub fn push(&mut self, name: &[u8], value: &[u8]) {
        let start = self.text.len();
        push_decoded(&mut self.text, name);
        let name_end = self.text.len();
        push_decoded(&mut self.text, value);
        self.spans.push((start..name_end, name_end..self.text.len()));
    }

    /// The tags as (name, value), in file order, duplicates included.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.spans.iter().map(|(name, value)| (&self.text[name.clone()], &self.text[value.clone()]))
    }

    /// The tags' names, in file order, as bytes: a name compared as bytes needs no check that
    /// its ends are `str` boundaries (the batch builder looks at every tag's).
    pub fn names(&self) -> impl Iterator<Item = &[u8]> {
        let bytes = self.text.as_bytes();
        self.spans.iter().map(move |(name, _)| &bytes[name.clone()])
    }

    /// The name and value of the `i`th tag (of [`Tags::iter`]).
    pub fn entry(&self, i: usize) -> (&str, &str) {
        let (name, value) = &self.spans[i];
        (&self.text[name.clone()], &self.text[value.clone()])
    }

    /// The value of the `i`th tag (of [`Tags::iter`]).
    pub fn value(&self, i: usize) -> &str {
        &self.text[self.spans[i].1.clone()]
    }

    /// The values of the first tags called `names`, in one pass over the tags (a tag that is
    /// absent, as `Variant` and `FEN` mostly are, costs a pass over all of them). Inlined into
    /// its caller, where the names are constants to compare with: left to the compiler, some
    /// builds called it instead (350 more instructions per game).
    #[inline(always)]
    pub fn get_each<const N: usize>(&self, names: [&str; N]) -> [Option<&str>; N] {
        let bytes = self.text.as_bytes();
        let mut found = [None; N];
        for (name, value) in &self.spans {
            let name = &bytes[name.clone()];
            if let Some(k) = names.iter().position(|n| n.as_bytes() == name)
                && found[k].is_none()
            {
                found[k] = Some(&self.text[value.clone()]);
            }
        }
        found
    }

    /// The value of the first tag called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        // Names compared as bytes: no check of `str` boundaries for the tags passed over.
        let bytes = self.text.as_bytes();
        let (_, value) = self.spans.iter().find(|(n, _)| &bytes[n.clone()] == name.as_bytes())?;
        Some(&self.text[value.clone()])
    }
}

/// Appends `bytes` decoded as UTF-8, or as Latin-1 where they are not valid UTF-8.
pub fn push_decoded(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => out.push_str(s),
        Err(_) => out.extend(bytes.iter().map(|&b| b as char)),
    }
}

/// A rating or rating difference (`1500`, `+12`, `-7`); `None` for `?`, empty or out of range.
pub fn int16(value: &str) -> Option<i16> {
    // Lichess writes plain digits: read them at once (up to 4 digits fit an i16), without the
    // trimming and sign handling of the general parse, which gives the same for these.
    let b = value.as_bytes();
    if (1..=4).contains(&b.len()) && b.iter().all(u8::is_ascii_digit) {
        return Some(b.iter().fold(0, |n, &d| n * 10 + i16::from(d - b'0')));
    }
    value.trim().parse().ok()
}

/// The value of two ASCII digits.
fn two_digits(b: &[u8]) -> u32 {
    u32::from(b[0] - b'0') * 10 + u32::from(b[1] - b'0')
}

/// Whether `b` has ASCII digits at every position but the `separators`, and `sep` at those.
fn digits_with(b: &[u8], sep: u8, separators: [usize; 2]) -> bool {
    b.iter().enumerate().all(|(i, &c)| if separators.contains(&i) { c == sep } else { c.is_ascii_digit() })
}

/// Days since 1970-01-01 of a `YYYY.MM.DD` date (`-` or `/` also accepted); `None` if any part is
/// unknown (`????.??.??`) or impossible.
pub fn date32(value: &str) -> Option<i32> {
    // `YYYY.MM.DD` as Lichess writes it, read by position: the general parse below splits and
    // parses each part, several hundred instructions a game; same checks, same result.
    let b = value.as_bytes();
    if b.len() == 10 && digits_with(b, b'.', [4, 7]) {
        let y = i64::from(two_digits(&b[..2]) * 100 + two_digits(&b[2..4]));
        let (m, d) = (two_digits(&b[5..7]), two_digits(&b[8..10]));
        if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
            return None;
        }
        return i32::try_from(days_from_civil(y, m, d)).ok();
    }
    let mut parts = value.trim().split(['.', '-', '/']);
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// The first and last day (since 1970-01-01) a `Date` may mean: one day for a full date, a month
/// or a year where the rest is unknown (`1986.10.??`, `2014.??.??`); `None` without a year.
pub fn period(value: &str) -> Option<(i64, i64)> {
    if let Some(day) = date32(value) {
        return Some((i64::from(day), i64::from(day)));
    }
    let mut parts = value.trim().split(['.', '-', '/']);
    let year = parts.next().filter(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()))?.parse::<i64>().ok()?;
    match parts.next().and_then(|m| m.parse::<u32>().ok()).filter(|m| (1..=12).contains(m)) {
        Some(m) => Some((days_from_civil(year, m, 1), days_from_civil(year, m, days_in_month(year, m)))),
        None => Some((days_from_civil(year, 1, 1), days_from_civil(year, 12, 31))),
    }
}

/// Days in month `m` (1 to 12) of year `y` of the proleptic Gregorian calendar.
pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `(year, month, day)` of a day count from 1970-01-01: H. Hinnant's `civil_from_days`, exact
/// for every value (the inverse of [`days_from_civil`]).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month as u32, day as u32)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds since midnight of a `HH:MM:SS` time.
pub fn time32(value: &str) -> Option<i32> {
    // `HH:MM:SS` read by position, as for dates; the general parse is the reference.
    let b = value.as_bytes();
    if b.len() == 8 && digits_with(b, b':', [2, 5]) {
        let (h, m, s) = (two_digits(&b[..2]) as i32, two_digits(&b[3..5]) as i32, two_digits(&b[6..8]) as i32);
        if !(0..24).contains(&h) || !(0..60).contains(&m) || !(0..=60).contains(&s) {
            return None;
        }
        return Some(h * 3600 + m * 60 + s);
    }
    let mut parts = value.trim().split(':');
    let h: i32 = parts.next()?.parse().ok()?;
    let m: i32 = parts.next()?.parse().ok()?;
    let s: i32 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(0..24).contains(&h) || !(0..60).contains(&m) || !(0..=60).contains(&s) {
        return None;
    }
    Some(h * 3600 + m * 60 + s)
}

/// The Lichess game id from a `Site` tag such as `https://lichess.org/AbCdEfGh`.
pub fn lichess_id(site: &str) -> Option<&str> {
    // The form of every Lichess game, checked at once; the general reading below gives the same.
    if let Some(id) = site.strip_prefix("https://lichess.org/")
        && id.len() == 8
        && id.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Some(id);
    }
    let site = site.trim();
    let rest = ["https://lichess.org/", "http://lichess.org/", "lichess.org/"]
        .iter()
        .find_map(|prefix| site.strip_prefix(prefix))?;
    let segment = rest.split(['/', '?', '#']).next()?;
    let id = match segment.len() {
        8 => segment,
        12 => &segment[..8], // game id followed by a player id
        _ => return None,
    };
    id.bytes().all(|b| b.is_ascii_alphanumeric()).then_some(id)
}

/// Lichess's speed category from a `TimeControl` tag: estimated duration = base seconds + 40 ×
/// increment seconds; < 30 ultrabullet, < 180 bullet, < 480 blitz, < 1500 rapid, otherwise
/// classical. The tag's forms:
/// - `base+increment` (Lichess, `180+2`; chess.com's increment may be a fraction, `180+0.5`);
/// - `base` alone (chess.com, `180`): no increment;
/// - `moves/seconds`, periods joined by `:` (the PGN standard's `40/7200:3600`, chess.com's daily
///   `1/259200`): the first period; a day or more for it is correspondence, else its time for 40
///   moves is the estimate;
/// - `-` (Lichess: no clock) is correspondence.
///
/// `None` for anything else (`?`, `*180`, words).
pub fn time_class(time_control: &str) -> Option<TimeClass> {
    let tc = time_control.trim();
    if tc == "-" {
        return Some(TimeClass::Correspondence);
    }
    let seconds = |d: &str| -> Option<f64> {
        let ok = !d.is_empty() && d.len() <= 12 && d.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        ok.then(|| d.parse::<f64>().ok()).flatten()
    };
    let first = tc.split(':').next()?;
    if let Some((moves, period)) = first.split_once('/') {
        let (moves, period) = (seconds(moves)?, seconds(period.split('+').next()?)?);
        if moves < 1.0 {
            return None;
        }
        if period >= 86_400.0 {
            return Some(TimeClass::Correspondence);
        }
        return Some(time_class_of((period * 40.0 / moves) as u64, 0));
    }
    let (base, inc) = match first.split_once('+') {
        Some((base, inc)) => (seconds(base)?, seconds(inc)?),
        None => (seconds(first)?, 0.0),
    };
    Some(time_class_of((base + 40.0 * inc) as u64, 0))
}

/// The speed Lichess itself gave a game, in its `Event`: `Rated Blitz game`, `Casual Bullet
/// game`, `Rated Rapid tournament https://…`, `rated classical game` (its API's form). Lichess's
/// own label comes before the time control: before it had a rapid category (its 2013 games have
/// none) its "Classical" took in what is rapid today, and a researcher citing its 2013 classical
/// games means those. `None` for other events (`Lichess Titled Arena`, a variant's `Rated
/// Crazyhouse game`).
pub fn lichess_time_class(event: &str) -> Option<TimeClass> {
    let mut words = event.split_ascii_whitespace();
    let mode = words.next()?;
    if !(mode.eq_ignore_ascii_case("rated") || mode.eq_ignore_ascii_case("casual")) {
        return None;
    }
    let speed = words.next()?;
    let class = [
        ("ultrabullet", TimeClass::UltraBullet),
        ("bullet", TimeClass::Bullet),
        ("blitz", TimeClass::Blitz),
        ("rapid", TimeClass::Rapid),
        ("classical", TimeClass::Classical),
        ("correspondence", TimeClass::Correspondence),
    ]
    .into_iter()
    .find(|(word, _)| speed.eq_ignore_ascii_case(word))?
    .1;
    let kind = words.next()?;
    ["game", "tournament", "swiss", "arena", "simul"].iter().any(|k| kind.eq_ignore_ascii_case(k)).then_some(class)
}

/// [`time_class`] of a time control already read as base and increment seconds.
pub fn time_class_of(base: u64, inc: u64) -> TimeClass {
    let estimate = base.saturating_add(inc.saturating_mul(40));
    match estimate {
        0..30 => TimeClass::UltraBullet,
        30..180 => TimeClass::Bullet,
        180..480 => TimeClass::Blitz,
        480..1500 => TimeClass::Rapid,
        _ => TimeClass::Classical,
    }
}

/// The base and increment seconds of a `TimeControl` tag written exactly `base+increment` in
/// ASCII digits (at most 9 each), as Lichess writes it (`180+2`); `None` for `-` or anything else.
pub fn time_control(value: &str) -> Option<(u32, u32)> {
    let (base, increment) = value.split_once('+')?;
    let seconds = |d: &str| -> Option<u32> {
        ((1..=9).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit())).then(|| d.parse().ok())?
    };
    Some((seconds(base)?, seconds(increment)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_keep_order_duplicates_and_latin1() {
        let mut tags = Tags::new();
        tags.push(b"Event", b"Tilburg");
        tags.push(b"White", b"Karpov");
        tags.push(b"Event", b"second");
        tags.push(b"Black", b"Mil\xe9s");
        tags.push(b"Empty", b"");
        let all: Vec<_> = tags.iter().collect();
        assert_eq!(
            all,
            [("Event", "Tilburg"), ("White", "Karpov"), ("Event", "second"), ("Black", "Mil\u{e9}s"), ("Empty", "")]
        );
        assert_eq!(tags.get("Event"), Some("Tilburg"));
        assert_eq!(tags.get("Black"), Some("Mil\u{e9}s"));
        assert_eq!(tags.get("Empty"), Some(""));
        assert_eq!(tags.get("Round"), None);
        let names = ["Round", "Event", "Black", "Empty", "White"];
        assert_eq!(tags.get_each(names), names.map(|n| tags.get(n)));
    }

    #[test]
    fn typed_tags() {
        assert_eq!(int16("+12"), Some(12));
        assert_eq!(int16("?"), None);
        assert_eq!(date32("1970.01.01"), Some(0));
        for (days, date) in [(0, (1970, 1, 1)), (15_706, (2013, 1, 1)), (18_901, (2021, 10, 1)), (-1, (1969, 12, 31))] {
            assert_eq!(civil_from_days(days), date);
            assert_eq!(days_from_civil(date.0, date.1, date.2), days);
        }
        assert_eq!(date32("2013.01.01"), Some(15706));
        assert_eq!(date32("2024.02.29"), Some(19782));
        assert_eq!(date32("2023.02.29"), None);
        assert_eq!(date32("????.??.??"), None);
        assert_eq!(time32("23:59:59"), Some(86399));
        assert_eq!(time32("24:00:00"), None);
    }

    /// The by-position readings of Lichess's forms give what the general parse gives.
    #[test]
    fn typed_tags_fast_forms_agree_with_the_general_parse() {
        let general_date = |v: &str| date32(&v.replace('.', "-"));
        let general_time = |v: &str| time32(&format!(" {v}"));
        let general_int = |v: &str| int16(&format!(" {v}"));
        for y in ["0000", "0001", "1899", "1900", "1970", "2000", "2021", "2100", "9999"] {
            for m in ["00", "01", "02", "09", "10", "12", "13", "99"] {
                for d in ["00", "01", "28", "29", "30", "31", "32", "99"] {
                    let v = format!("{y}.{m}.{d}");
                    assert_eq!(date32(&v), general_date(&v), "{v}");
                }
            }
        }
        for h in ["00", "09", "23", "24", "99"] {
            for m in ["00", "59", "60"] {
                for s in ["00", "59", "60", "61"] {
                    let v = format!("{h}:{m}:{s}");
                    assert_eq!(time32(&v), general_time(&v), "{v}");
                }
            }
        }
        for v in ["0", "7", "0012", "1500", "9999", "32767", "99999", "+12", "-7", "?", "", "1a"] {
            assert_eq!(int16(v), general_int(v), "{v}");
        }
        assert_eq!(date32("2021.1.01"), Some(18628));
        assert_eq!(date32("2021.10.0x"), None);
        assert_eq!(time32("1:02:03"), Some(3723));
    }

    #[test]
    fn derived() {
        assert_eq!(lichess_id("https://lichess.org/j1dkb5dw"), Some("j1dkb5dw"));
        assert_eq!(lichess_id("https://lichess.org/study/abc"), None);
        assert_eq!(lichess_id("Tilburg"), None);
        assert_eq!(lichess_id("https://lichess.org/j1dkb5d!"), None);
        assert_eq!(lichess_id("https://lichess.org/j1dkb5dw "), Some("j1dkb5dw"));
        assert_eq!(lichess_id("https://lichess.org/j1dkb5dwXYZW"), Some("j1dkb5dw"));
        assert_eq!(time_class("15+0").map(TimeClass::as_str), Some("ultrabullet"));
        assert_eq!(time_class("60+0").map(TimeClass::as_str), Some("bullet"));
        assert_eq!(time_class("120+2").map(TimeClass::as_str), Some("blitz"));
        assert_eq!(time_class("300+3").map(TimeClass::as_str), Some("blitz"));
        assert_eq!(time_class("600+5").map(TimeClass::as_str), Some("rapid"));
        assert_eq!(time_class("1800+0").map(TimeClass::as_str), Some("classical"));
        assert_eq!(time_class("-").map(TimeClass::as_str), Some("correspondence"));
        assert_eq!(time_class("?"), None);
        // Other servers' and the PGN standard's forms.
        assert_eq!(time_class("180").map(TimeClass::as_str), Some("blitz"));
        assert_eq!(time_class("180+0.5").map(TimeClass::as_str), Some("blitz"));
        assert_eq!(time_class("60+0.5").map(TimeClass::as_str), Some("bullet"));
        assert_eq!(time_class("1/259200").map(TimeClass::as_str), Some("correspondence"));
        assert_eq!(time_class("1/86400").map(TimeClass::as_str), Some("correspondence"));
        assert_eq!(time_class("40/7200:3600").map(TimeClass::as_str), Some("classical"));
        assert_eq!(time_class("40/900+30").map(TimeClass::as_str), Some("rapid"));
        for odd in ["", "*180", "0/60", "1/", "+2", "180+", "abc", "1.2.3", "99999999999999"] {
            assert_eq!(time_class(odd), None, "{odd:?}");
        }
        // Lichess's own label.
        assert_eq!(lichess_time_class("Rated Classical game"), Some(TimeClass::Classical));
        assert_eq!(lichess_time_class("rated blitz game"), Some(TimeClass::Blitz));
        assert_eq!(
            lichess_time_class("Rated Rapid tournament https://lichess.org/tournament/x"),
            Some(TimeClass::Rapid)
        );
        assert_eq!(lichess_time_class("Casual UltraBullet game"), Some(TimeClass::UltraBullet));
        for other in ["Lichess Titled Arena", "Rated Crazyhouse game", "Rated Blitz", "Bullet Shield Arena", ""] {
            assert_eq!(lichess_time_class(other), None, "{other:?}");
        }
        assert_eq!(time_control("180+2"), Some((180, 2)));
        assert_eq!(time_control("0+1"), Some((0, 1)));
        for other in ["-", "180", " 180+2", "180+", "+2", "180++2", "180+-2", "1234567890+0", "40/7200:3600", "?"] {
            assert_eq!(time_control(other), None, "{other}");
        }
    }
}
