//! `--by`: which group a game is in, for figures side by side. `source`, `time-class`,
//! `rating-band`, `variant`, or `collection` with a rules file naming a collection per source
//! glob (`--collections FILE`: lines `GLOB,COLLECTION`, the first matching line wins, `#` starts
//! a comment; a source matching no line is in `other`).

use std::path::Path;

use anyhow::{Context, Result, bail};
use globset::{Glob, GlobMatcher};

use super::model::{TIME_CLASSES, band_label};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ByKind {
    Source,
    Collection,
    TimeClass,
    RatingBand,
    Variant,
}

impl ByKind {
    pub fn name(self) -> &'static str {
        match self {
            ByKind::Source => "source",
            ByKind::Collection => "collection",
            ByKind::TimeClass => "time class",
            ByKind::RatingBand => "rating band",
            ByKind::Variant => "variant",
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
}

/// What grouping needs of a game.
pub struct GroupFacts<'a> {
    pub source: &'a str,
    pub time_class: Option<&'a str>,
    pub band: Option<i32>,
    pub variant: &'a str,
}

impl By {
    pub fn new(kind: ByKind, collections: Option<&Path>) -> Result<By> {
        let collections = match (kind, collections) {
            (ByKind::Collection, Some(path)) => Some(Collections::open(path)?),
            (ByKind::Collection, None) => bail!("--by collection needs --collections FILE (lines GLOB,COLLECTION)"),
            (_, Some(_)) => bail!("--collections is for --by collection"),
            (_, None) => None,
        };
        Ok(By { kind, collections })
    }

    /// The group a game is in.
    pub fn label<'a>(&'a self, g: &GroupFacts<'a>) -> std::borrow::Cow<'a, str> {
        match self.kind {
            ByKind::Source => g.source.into(),
            ByKind::Collection => self.collections.as_ref().map_or(OTHER, |c| c.of(g.source)).into(),
            ByKind::TimeClass => g.time_class.unwrap_or("unknown").into(),
            ByKind::RatingBand => band_label(g.band).into(),
            ByKind::Variant => g.variant.into(),
        }
    }

    /// Sorts group labels: time classes and bands in their order, collections in the file's,
    /// the rest by name.
    pub fn sort(&self, labels: &mut [String]) {
        let key = |l: &String| -> (usize, i64, String) {
            match self.kind {
                ByKind::TimeClass => {
                    (TIME_CLASSES.iter().position(|c| c == l).unwrap_or(TIME_CLASSES.len()), 0, l.clone())
                }
                // `FROM-TO`, FROM possibly negative: the dash after the first character ends it.
                ByKind::RatingBand => {
                    match l.get(1..).and_then(|rest| rest.find('-')).and_then(|i| l[..=i].parse().ok()) {
                        Some(from) => (0, from, String::new()),
                        None => (1, 0, l.clone()),
                    }
                }
                ByKind::Collection => (self.collections.as_ref().map_or(0, |c| c.order(l)), 0, l.clone()),
                _ => (0, 0, l.clone()),
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
        let mut l: Vec<String> = ["unknown", "1800-1999", "-200--1", "600-799"].map(String::from).to_vec();
        by.sort(&mut l);
        assert_eq!(l, ["-200--1", "600-799", "1800-1999", "unknown"]);
        let by = By::new(ByKind::TimeClass, None).unwrap();
        let mut l: Vec<String> = ["unknown", "blitz", "bullet"].map(String::from).to_vec();
        by.sort(&mut l);
        assert_eq!(l, ["bullet", "blitz", "unknown"]);
    }
}
