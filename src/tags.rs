//! Typed values from PGN tags, as the Hugging Face `Lichess/standard-chess-games` dataset types
//! them, and the fields derived from tags (`lichess_id`, `time_class`).

/// A rating or rating difference (`1500`, `+12`, `-7`); `None` for `?`, empty or out of range.
pub fn int16(value: &str) -> Option<i16> {
    value.trim().parse().ok()
}

/// Days since 1970-01-01 of a `YYYY.MM.DD` date (`-` or `/` also accepted); `None` if any part is
/// unknown (`????.??.??`) or impossible.
pub fn date32(value: &str) -> Option<i32> {
    let mut parts = value.trim().split(['.', '-', '/']);
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
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
/// classical; `-` is correspondence. `None` when the tag is not of the form `base+increment`.
pub fn time_class(time_control: &str) -> Option<&'static str> {
    let tc = time_control.trim();
    if tc == "-" {
        return Some("correspondence");
    }
    let (base, inc) = tc.split_once('+')?;
    let base: u64 = base.parse().ok()?;
    let inc: u64 = inc.parse().ok()?;
    let estimate = base.saturating_add(inc.saturating_mul(40));
    Some(match estimate {
        0..30 => "ultrabullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        _ => "classical",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_tags() {
        assert_eq!(int16("+12"), Some(12));
        assert_eq!(int16("?"), None);
        assert_eq!(date32("1970.01.01"), Some(0));
        assert_eq!(date32("2013.01.01"), Some(15706));
        assert_eq!(date32("2024.02.29"), Some(19782));
        assert_eq!(date32("2023.02.29"), None);
        assert_eq!(date32("????.??.??"), None);
        assert_eq!(time32("23:59:59"), Some(86399));
        assert_eq!(time32("24:00:00"), None);
    }

    #[test]
    fn derived() {
        assert_eq!(lichess_id("https://lichess.org/j1dkb5dw"), Some("j1dkb5dw"));
        assert_eq!(lichess_id("https://lichess.org/study/abc"), None);
        assert_eq!(lichess_id("Tilburg"), None);
        assert_eq!(time_class("15+0"), Some("ultrabullet"));
        assert_eq!(time_class("60+0"), Some("bullet"));
        assert_eq!(time_class("120+2"), Some("blitz"));
        assert_eq!(time_class("300+3"), Some("blitz"));
        assert_eq!(time_class("600+5"), Some("rapid"));
        assert_eq!(time_class("1800+0"), Some("classical"));
        assert_eq!(time_class("-"), Some("correspondence"));
        assert_eq!(time_class("?"), None);
    }
}
