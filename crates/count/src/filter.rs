//! Which games a report is over: `--source GLOB`, `--since`/`--until` (the game's date),
//! `--time-class`, `--venue`, `--min-elo`/`--max-elo` (the lower Elo of the two players). A game
//! is in when it passes every filter given; its events follow it (the aggregate joins them to
//! their game).

use anyhow::{Result, bail};
use arrow_array::{Array, StringArray};
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;

use super::tables::Range;
use crate::{engine::vocabulary::TimeClass, pgn::venue::Venue};

/// The filters as given on the command line, checked.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Filter {
    pub sources: Vec<String>,
    /// Days since 1970-01-01, inclusive.
    pub since: Option<i32>,
    pub until: Option<i32>,
    pub time_classes: Vec<String>,
    /// Where the games were played (`games.venue`), each a [`Venue`]'s name.
    pub venues: Vec<String>,
    pub min_elo: Option<i32>,
    pub max_elo: Option<i32>,
    #[serde(skip)]
    globs: Option<GlobSet>,
}

/// What the filter needs of a game.
#[derive(Clone, Copy)]
pub struct GameFacts<'a> {
    pub source: &'a str,
    pub date: Option<i32>,
    pub time_class: Option<&'a str>,
    pub venue: Venue,
    pub lower_elo: Option<i32>,
}

impl Filter {
    /// Checks and compiles the filters. `since`/`until` are `YYYY-MM-DD`, `YYYY-MM` or `YYYY`
    /// (a month or year from its first day, until its last).
    pub fn new(
        sources: Vec<String>,
        since: Option<&str>,
        until: Option<&str>,
        time_classes: Vec<String>,
        venues: Vec<String>,
        min_elo: Option<i32>,
        max_elo: Option<i32>,
    ) -> Result<Filter> {
        let globs = if sources.is_empty() {
            None
        } else {
            let mut set = GlobSetBuilder::new();
            for s in &sources {
                set.add(Glob::new(s).map_err(|e| anyhow::anyhow!("--source {s:?}: {e}"))?);
            }
            Some(set.build()?)
        };
        for class in &time_classes {
            if !TimeClass::LABELS.contains(&class.as_str()) {
                bail!("--time-class {class:?}: expected one of {}", TimeClass::LABELS.join(", "));
            }
        }
        for venue in &venues {
            if Venue::parse(venue).is_none() {
                let names: Vec<&str> = Venue::ALL.iter().map(|v| v.as_str()).collect();
                bail!("--venue {venue:?}: expected one of {}", names.join(", "));
            }
        }
        let since = since.map(|s| period(s, false)).transpose()?;
        let until = until.map(|s| period(s, true)).transpose()?;
        if let (Some(a), Some(b)) = (since, until)
            && a > b
        {
            bail!("--since is after --until: no game could match");
        }
        if let (Some(a), Some(b)) = (min_elo, max_elo)
            && a > b
        {
            bail!("--min-elo {a} is above --max-elo {b}: no game could match");
        }
        Ok(Filter { sources, since, until, time_classes, venues, min_elo, max_elo, globs })
    }

    pub fn is_empty(&self) -> bool {
        self.globs.is_none()
            && self.since.is_none()
            && self.until.is_none()
            && self.time_classes.is_empty()
            && self.venues.is_empty()
            && self.min_elo.is_none()
            && self.max_elo.is_none()
    }

    /// Whether a source can hold matching games at all (whole partitions are skipped when not).
    pub fn source_matches(&self, source: &str) -> bool {
        self.globs.as_ref().is_none_or(|g| g.is_match(source))
    }

    pub fn matches(&self, g: &GameFacts) -> bool {
        self.source_matches(g.source) && self.matches_in_source(g)
    }

    /// [`Filter::matches`] for a game of a source that [`Filter::source_matches`] accepted: the
    /// reports ask once per source, not per game (the glob match was a sixth of a report's time).
    pub fn matches_in_source(&self, g: &GameFacts) -> bool {
        if self.since.is_some() || self.until.is_some() {
            // A game without a full date cannot be placed in the period.
            let Some(d) = g.date else { return false };
            if self.since.is_some_and(|s| d < s) || self.until.is_some_and(|u| d > u) {
                return false;
            }
        }
        if !self.time_classes.is_empty()
            && !self.time_classes.iter().any(|c| c == g.time_class.unwrap_or(TimeClass::UNKNOWN))
        {
            return false;
        }
        if !self.venues.is_empty() && !self.venues.iter().any(|v| v == g.venue.as_str()) {
            return false;
        }
        if self.min_elo.is_some() || self.max_elo.is_some() {
            let Some(elo) = g.lower_elo else { return false };
            if self.min_elo.is_some_and(|m| elo < m) || self.max_elo.is_some_and(|m| elo > m) {
                return false;
            }
        }
        true
    }

    /// Whether no game of a row group can match, from its statistics: its `UTCDate`s (when it
    /// has no null one, so that no game's date comes from `Date`) all outside `--since`/`--until`,
    /// or a player's Elos all under `--min-elo`, or both players' all over `--max-elo` (a game
    /// without both Elos fails those filters anyway). `None`: no statistics, nothing ruled out.
    pub fn rules_out(&self, utc_date: Option<Range>, white_elo: Option<Range>, black_elo: Option<Range>) -> bool {
        if let Some(d) = utc_date.filter(|d| d.nulls == Some(0))
            && (self.since.is_some_and(|s| d.max < i64::from(s)) || self.until.is_some_and(|u| d.min > i64::from(u)))
        {
            return true;
        }
        if let Some(m) = self.min_elo.map(i64::from)
            && [white_elo, black_elo].iter().flatten().any(|r| r.max < m)
        {
            return true;
        }
        if let (Some(m), Some(w), Some(b)) = (self.max_elo.map(i64::from), white_elo, black_elo)
            && w.min > m
            && b.min > m
        {
            return true;
        }
        false
    }

    /// The filter in words, for the top of every output.
    pub fn describe(&self) -> String {
        if self.is_empty() {
            return "all games".into();
        }
        let mut parts = Vec::new();
        if !self.sources.is_empty() {
            parts.push(format!("source {}", self.sources.join(" or ")));
        }
        match (self.since, self.until) {
            (Some(a), Some(b)) => parts.push(format!("dated {} to {}", iso(a), iso(b))),
            (Some(a), None) => parts.push(format!("dated {} or later", iso(a))),
            (None, Some(b)) => parts.push(format!("dated {} or earlier", iso(b))),
            (None, None) => {}
        }
        if !self.time_classes.is_empty() {
            parts.push(format!("time class {}", self.time_classes.join(" or ")));
        }
        if !self.venues.is_empty() {
            parts.push(format!("venue {}", self.venues.join(" or ")));
        }
        match (self.min_elo, self.max_elo) {
            (Some(a), Some(b)) => parts.push(format!("lower Elo {a} to {b}")),
            (Some(a), None) => parts.push(format!("lower Elo {a} or more")),
            (None, Some(b)) => parts.push(format!("lower Elo {b} or less")),
            (None, None) => {}
        }
        format!("games with {}", parts.join("; "))
    }
}

/// Whether a source is named as one of Lichess games (`lichess_db_…`, `lichess-…`): its games
/// are Lichess games even without a `Site` tag (`GameColumns::venue`).
pub fn is_lichess(source: &str) -> bool {
    source.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("lichess"))
}

/// The venue of the game in row `i` of a `games` batch (`GameColumns::venue`): its `venue`
/// column where the batch has one.
pub fn venue_at(venue: Option<&StringArray>, lichess_id: &StringArray, source: &StringArray, i: usize) -> Venue {
    match venue {
        Some(venue) => Venue::parse(venue.value(i)).unwrap_or(Venue::Unknown),
        None if lichess_id.is_valid(i) || is_lichess(source.value(i)) => Venue::Lichess,
        None => Venue::Unknown,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i32 {
    crate::pgn::tags::days_from_civil(year, month, day) as i32
}

/// `(year, month, day)` as days, if it is a calendar date.
fn civil(year: i64, month: u32, day: u32) -> Option<i32> {
    ((1..=12).contains(&month) && day >= 1 && day <= crate::pgn::tags::days_in_month(year, month))
        .then(|| days_from_civil(year, month, day))
}

/// A PGN `Date` tag that is a full date, `YYYY.MM.DD` exactly (`1986.??.??` and the like are not).
pub fn pgn_date(tag: &str) -> Option<i32> {
    let b = tag.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10 || b[4] != b'.' || b[7] != b'.' || !digits(0..4) || !digits(5..7) || !digits(8..10) {
        return None;
    }
    // Digits checked above: their values by hand (`str::parse` cost more than the rest).
    let number = |r: std::ops::Range<usize>| b[r].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    civil(i64::from(number(0..4)), number(5..7), number(8..10))
}

/// A game's date: `UTCDate` (already a date in the table), else `Date` where it is a full date.
pub fn game_date(utc_date: Option<i32>, date: Option<&str>) -> Option<i32> {
    utc_date.or_else(|| date.and_then(pgn_date))
}

/// `--since`/`--until`: `YYYY-MM-DD`, `YYYY-MM` or `YYYY` (dots allowed too); `end` takes the
/// last day of a month or year.
fn period(text: &str, end: bool) -> Result<i32> {
    let parts: Vec<&str> = text.split(['-', '.']).collect();
    let number = |s: &str| s.parse::<u32>().ok().filter(|_| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    let bad = || anyhow::anyhow!("{text:?} is not a date: expected YYYY-MM-DD, YYYY-MM or YYYY");
    let year = parts.first().and_then(|s| number(s)).filter(|_| parts[0].len() == 4).ok_or_else(bad)? as i64;
    let (month, day) = match parts.len() {
        1 => (if end { 12 } else { 1 }, None),
        2 => (number(parts[1]).ok_or_else(bad)?, None),
        3 => (number(parts[1]).ok_or_else(bad)?, Some(number(parts[2]).ok_or_else(bad)?)),
        _ => return Err(bad()),
    };
    if !(1..=12).contains(&month) {
        return Err(bad());
    }
    let day = day.unwrap_or(if end { crate::pgn::tags::days_in_month(year, month) } else { 1 });
    civil(year, month, day).ok_or_else(bad)
}

/// Days since 1970-01-01 as `YYYY-MM-DD`.
pub fn iso(days: i32) -> String {
    super::tables::date32_to_pgn(days).replace('.', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(pgn_date("1970.01.01"), Some(0));
        assert_eq!(pgn_date("2000.02.29"), Some(11_016));
        assert_eq!(pgn_date("2001.02.29"), None);
        assert_eq!(pgn_date("1986.??.??"), None);
        assert_eq!(pgn_date("1986.1.05"), None);
        assert_eq!(game_date(Some(5), Some("1970.01.01")), Some(5));
        assert_eq!(period("2021-02", true).unwrap(), pgn_date("2021.02.28").unwrap());
        assert_eq!(period("2021", false).unwrap(), pgn_date("2021.01.01").unwrap());
        assert_eq!(period("2020.12.31", false).unwrap(), pgn_date("2020.12.31").unwrap());
        assert!(period("21-02", false).is_err() && period("2021-13", false).is_err() && period("x", true).is_err());
        assert_eq!(iso(pgn_date("2013.01.31").unwrap()), "2013-01-31");
        for d in [-700_000, -1, 0, 59, 10_000, 20_000] {
            assert_eq!(pgn_date(&super::super::tables::date32_to_pgn(d)), Some(d));
        }
    }

    #[test]
    fn filters() {
        let (blitz, lichess) = (vec!["blitz".into()], vec!["lichess".into()]);
        let f = Filter::new(vec!["lichess*".into()], Some("2013-01"), None, blitz, lichess, Some(1800), None).unwrap();
        let game = |source, date, class, elo| GameFacts {
            source,
            date,
            time_class: class,
            venue: Venue::Lichess,
            lower_elo: elo,
        };
        let jan = pgn_date("2013.01.15");
        assert!(f.matches(&game("lichess_2013", jan, Some("blitz"), Some(1800))));
        assert!(!f.matches(&game("otb", jan, Some("blitz"), Some(1800))));
        assert!(!f.matches(&game("lichess_2013", None, Some("blitz"), Some(1800))));
        assert!(!f.matches(&game("lichess_2013", jan, None, Some(1800))));
        assert!(!f.matches(&game("lichess_2013", jan, Some("blitz"), None)));
        assert!(!f.matches(&game("lichess_2013", jan, Some("blitz"), Some(1799))));
        let otb = GameFacts { venue: Venue::Otb, ..game("lichess_2013", jan, Some("blitz"), Some(1800)) };
        assert!(!f.matches(&otb));
        assert_eq!(
            f.describe(),
            "games with source lichess*; dated 2013-01-01 or later; time class blitz; venue lichess; lower Elo 1800 or more"
        );
        assert!(Filter::new(vec![], None, None, vec!["fast".into()], vec![], None, None).is_err());
        assert!(Filter::new(vec![], None, None, vec![], vec!["chess.com".into()], None, None).is_err());
        assert!(Filter::new(vec!["[".into()], None, None, vec![], vec![], None, None).is_err());
        assert!(Filter::default().matches(&game("x", None, None, None)));
    }

    #[test]
    fn row_groups_ruled_out_by_their_statistics() {
        let range = |min, max, nulls| Some(Range { min, max, nulls });
        let jan = (i64::from(pgn_date("2013.01.01").unwrap()), i64::from(pgn_date("2013.01.31").unwrap()));
        let f = Filter::new(vec![], Some("2013-02"), None, vec![], vec![], None, None).unwrap();
        assert!(f.rules_out(range(jan.0, jan.1, Some(0)), None, None));
        // A null UTCDate: that game's date may come from Date.
        assert!(!f.rules_out(range(jan.0, jan.1, Some(1)), None, None));
        assert!(!f.rules_out(range(jan.0, jan.1, None), None, None));
        let f = Filter::new(vec![], None, Some("2012"), vec![], vec![], None, None).unwrap();
        assert!(f.rules_out(range(jan.0, jan.1, Some(0)), None, None));
        let f = Filter::new(vec![], None, None, vec![], vec![], Some(1800), Some(2000)).unwrap();
        assert!(f.rules_out(None, range(1000, 2500, Some(3)), range(1000, 1799, None)));
        assert!(!f.rules_out(None, range(1000, 2500, Some(3)), range(1000, 1800, None)));
        assert!(f.rules_out(None, range(2001, 2500, None), range(2100, 2300, None)));
        assert!(!f.rules_out(None, range(2001, 2500, None), range(2000, 2300, None)));
        assert!(!Filter::default().rules_out(range(0, 1, Some(0)), range(0, 1, None), range(0, 1, None)));
    }
}
