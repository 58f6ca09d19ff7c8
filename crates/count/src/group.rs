//! `--by`: which group a game is in, for figures side by side. `source`, `time-class`,
//! `rating-band`, `variant`, `venue` (where it was played: `games.venue`), `year` or `month` of
//! the game's date, or `collection` with a rules
//! file naming a collection per source glob (`--collections FILE`: lines `GLOB,COLLECTION`, the
//! first matching line wins, `#` starts a comment; a source matching no line is in `other`).
//!
//! A game's year and month come from its date (`UTCDate`, else a full `Date`: what `--since`
//! and `--until` compare); a game without one in a source named like a Lichess monthly dump,
//! `lichess_db_<variant>_rated_YYYY-MM` ([`dump_month`]), is in that month; any other is
//! `undated`.

use std::path::Path;

use anyhow::{Context, Result, bail};
use globset::{Glob, GlobMatcher};

use super::{model::band_label, tables::civil_from_days};
use crate::{engine::vocabulary::TimeClass, pgn::venue::Venue};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ByKind {
    Source,
    Collection,
    TimeClass,
    RatingBand,
    Variant,
    Venue,
    Year,
    Month,
}

/// `--sort`: the order of groups shown as rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Sort {
    /// The grouping's own order: years and months in time, sources with dates in their name in
    /// time order, time classes fastest first, rating bands by rating.
    #[default]
    Name,
    /// The highest value first.
    Value,
}

impl ByKind {
    pub fn name(self) -> &'static str {
        match self {
            ByKind::Source => "source",
            ByKind::Collection => "collection",
            ByKind::TimeClass => "time class",
            ByKind::RatingBand => "rating band",
            ByKind::Variant => "variant",
            ByKind::Venue => "venue",
            ByKind::Year => "year",
            ByKind::Month => "month",
        }
    }
}

/// The collection of each source, from the rules file.
#[derive(Debug, Clone)]
pub struct Collections {
    rules: Vec<(GlobMatcher, String)>,
}

/// Where no rule matches.
pub const OTHER: &str = "other";

/// The year or month of a game without a date (and not in a monthly dump).
pub const UNDATED: &str = "undated";

/// The month a source named like a Lichess monthly dump holds: `lichess_db_<variant>_rated_YYYY-MM`
/// exactly (the variant in ASCII letters and digits, the month 01 to 12), after the extensions
/// `.pgn`, `.zst`, `.bz2`, `.gz` that ingest strips from a file's name (in any case).
pub fn dump_month(source: &str) -> Option<(i64, u32)> {
    let mut name = source;
    while let Some(ext) =
        [".zst", ".bz2", ".gz", ".pgn"].iter().find(|ext| name.len() > ext.len() && name.to_lowercase().ends_with(*ext))
    {
        name = &name[..name.len() - ext.len()];
    }
    let rest = name.strip_prefix("lichess_db_")?;
    let (variant, date) = rest.split_once("_rated_")?;
    let b = date.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if variant.is_empty() || !variant.bytes().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    if b.len() != 7 || b[4] != b'-' || !digits(0..4) || !digits(5..7) {
        return None;
    }
    let (year, month): (i64, u32) = (date[..4].parse().ok()?, date[5..7].parse().ok()?);
    (1..=12).contains(&month).then_some((year, month))
}

impl Collections {
    pub fn parse(text: &str) -> Result<Collections> {
        let mut rules = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let Some((glob, name)) = line.split_once(',') else {
                bail!("line {}: expected GLOB,COLLECTION, found {line:?}", n + 1);
            };
            let (glob, name) = (glob.trim(), name.trim());
            if name.is_empty() {
                bail!("line {}: no collection name after {glob:?}", n + 1);
            }
            let matcher = Glob::new(glob).with_context(|| format!("line {}", n + 1))?.compile_matcher();
            rules.push((matcher, name.to_owned()));
        }
        if rules.is_empty() {
            bail!("no GLOB,COLLECTION line");
        }
        Ok(Collections { rules })
    }

    pub fn open(path: &Path) -> Result<Collections> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        Collections::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    pub fn of(&self, source: &str) -> &str {
        self.rules.iter().find(|(g, _)| g.is_match(source)).map_or(OTHER, |(_, name)| name)
    }

    /// Collection names in the file's order, then `other`.
    fn order(&self, label: &str) -> usize {
        self.rules.iter().position(|(_, n)| n == label).unwrap_or(self.rules.len())
    }
}

/// The grouping of a report.
#[derive(Debug, Clone)]
pub struct By {
    pub kind: ByKind,
    pub collections: Option<Collections>,
    pub sort: Sort,
}

/// What grouping needs of a game.
pub struct GroupFacts<'a> {
    pub source: &'a str,
    pub time_class: Option<&'a str>,
    pub band: Option<i32>,
    pub variant: &'a str,
    /// The game's date (days since 1970-01-01), as the filters take it.
    pub date: Option<i32>,
    /// Its venue's name (`games.venue`).
    pub venue: &'a str,
}

impl By {
    pub fn new(kind: ByKind, collections: Option<&Path>) -> Result<By> {
        let collections = match (kind, collections) {
            (ByKind::Collection, Some(path)) => Some(Collections::open(path)?),
            (ByKind::Collection, None) => bail!("--by collection needs --collections FILE (lines GLOB,COLLECTION)"),
            (_, Some(_)) => bail!("--collections is for --by collection"),
            (_, None) => None,
        };
        Ok(By { kind, collections, sort: Sort::Name })
    }

    /// The group a game is in.
    pub fn label<'a>(&'a self, g: &GroupFacts<'a>) -> std::borrow::Cow<'a, str> {
        match self.kind {
            ByKind::Source => g.source.into(),
            ByKind::Collection => self.collections.as_ref().map_or(OTHER, |c| c.of(g.source)).into(),
            ByKind::TimeClass => g.time_class.unwrap_or(TimeClass::UNKNOWN).into(),
            ByKind::RatingBand => band_label(g.venue, g.band).into(),
            ByKind::Variant => g.variant.into(),
            ByKind::Venue => g.venue.into(),
            ByKind::Year | ByKind::Month => {
                let month = match g.date {
                    Some(days) => {
                        let (year, month, _) = civil_from_days(days);
                        Some((year, month))
                    }
                    None => dump_month(g.source),
                };
                match (month, self.kind) {
                    (Some((year, _)), ByKind::Year) => format!("{year:04}").into(),
                    (Some((year, month)), _) => format!("{year:04}-{month:02}").into(),
                    (None, _) => UNDATED.into(),
                }
            }
        }
    }

    /// Sorts group labels: time classes and bands in their order, collections in the file's,
    /// the rest by name.
    pub fn sort(&self, labels: &mut [String]) {
        let key = |l: &String| -> (usize, i64, String) {
            match self.kind {
                ByKind::TimeClass => (TimeClass::order(l), 0, l.clone()),
                // `VENUE FROM-TO`, by venue, then by rating, `unknown` last; FROM possibly negative:
                // the dash after its first character ends it.
                ByKind::RatingBand => {
                    let (venue, band) = l.split_once(' ').unwrap_or(("", l));
                    let pool = Venue::parse(venue).map_or(Venue::ALL.len(), |v| v as usize);
                    match band.get(1..).and_then(|rest| rest.find('-')).and_then(|i| band[..=i].parse().ok()) {
                        Some(from) => (2 * pool, from, String::new()),
                        None => (2 * pool + 1, 0, l.clone()),
                    }
                }
                ByKind::Collection => (self.collections.as_ref().map_or(0, |c| c.order(l)), 0, l.clone()),
                // Years and months are in time order as text; `undated` last.
                ByKind::Year | ByKind::Month => (usize::from(l == UNDATED), 0, l.clone()),
                // Monthly dumps in time order, then the other sources by name.
                ByKind::Source => match dump_month(l) {
                    Some((year, month)) => (0, year * 12 + i64::from(month), l.clone()),
                    None => (1, 0, l.clone()),
                },
                ByKind::Variant => (0, 0, l.clone()),
                ByKind::Venue => (Venue::parse(l).map_or(Venue::ALL.len(), |v| v as usize), 0, l.clone()),
            }
        };
        labels.sort_by_key(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_first_match_wins() {
        let c = Collections::parse("# online\nlichess*,Lichess\n*tcec*,engines\n\n*,OTB # the rest\n").unwrap();
        assert_eq!(c.of("lichess_2013"), "Lichess");
        assert_eq!(c.of("tcec-cup"), "engines");
        assert_eq!(c.of("karpov"), "OTB");
        assert!(Collections::parse("lichess*").is_err());
        assert!(Collections::parse("# nothing\n").is_err());
    }

    #[test]
    fn groups_sort_in_their_own_order() {
        let by = By::new(ByKind::RatingBand, None).unwrap();
        let mut l: Vec<String> =
            ["lichess 600-799", "otb unknown", "otb 1800-1999", "online -200--1", "lichess unknown", "otb 600-799"]
                .map(String::from)
                .to_vec();
        by.sort(&mut l);
        assert_eq!(
            l,
            ["otb 600-799", "otb 1800-1999", "otb unknown", "lichess 600-799", "lichess unknown", "online -200--1"]
        );
        let by = By::new(ByKind::TimeClass, None).unwrap();
        let mut l: Vec<String> = ["unknown", "blitz", "bullet"].map(String::from).to_vec();
        by.sort(&mut l);
        assert_eq!(l, ["bullet", "blitz", "unknown"]);
        let by = By::new(ByKind::Month, None).unwrap();
        let mut l: Vec<String> = ["undated", "2013-02", "1999-12", "2013-01"].map(String::from).to_vec();
        by.sort(&mut l);
        assert_eq!(l, ["1999-12", "2013-01", "2013-02", "undated"]);
        let by = By::new(ByKind::Source, None).unwrap();
        let mut l: Vec<String> = [
            "otb",
            "lichess_db_standard_rated_2013-02",
            "abc",
            "lichess_db_atomic_rated_2013-03",
            "lichess_db_standard_rated_2013-01",
        ]
        .map(String::from)
        .to_vec();
        by.sort(&mut l);
        assert_eq!(
            l,
            [
                "lichess_db_standard_rated_2013-01",
                "lichess_db_standard_rated_2013-02",
                "lichess_db_atomic_rated_2013-03",
                "abc",
                "otb"
            ]
        );
    }

    #[test]
    fn monthly_dumps_name_their_month() {
        assert_eq!(dump_month("lichess_db_standard_rated_2013-01"), Some((2013, 1)));
        assert_eq!(dump_month("lichess_db_kingOfTheHill_rated_2021-12.pgn.zst"), Some((2021, 12)));
        assert_eq!(dump_month("lichess_db_standard_rated_2013-01-sample"), None);
        assert_eq!(dump_month("lichess_db_standard_rated_2013-13"), None);
        assert_eq!(dump_month("lichess_db__rated_2013-01"), None);
        assert_eq!(dump_month("x_lichess_db_standard_rated_2013-01"), None);
        let by = By::new(ByKind::Month, None).unwrap();
        let game =
            |source, date| GroupFacts { source, time_class: None, band: None, variant: "standard", date, venue: "otb" };
        assert_eq!(by.label(&game("lichess_db_standard_rated_2019-04", None)), "2019-04");
        assert_eq!(by.label(&game("lichess_db_standard_rated_2019-04", Some(0))), "1970-01");
        assert_eq!(by.label(&game("otb", None)), UNDATED);
        let by = By::new(ByKind::Year, None).unwrap();
        assert_eq!(by.label(&game("lichess_db_standard_rated_2019-04", None)), "2019");
    }
}
