//! The report as figures: titled lists of rows, each with its value and 95% interval already
//! formatted and the number of games it is computed over. The terminal tables, the HTML charts
//! and `--json` all show these same rows, so a number can only be printed one way.
//!
//! With `--by`, a row also names its series (the group), and every chart puts the groups side by
//! side. A row whose denominator is under `--min-games` is marked `small`: greyed and labelled,
//! never drawn as if it were as sure as the others.

use serde::Serialize;

use super::{
    interval::wilson,
    model::{Report, Scores, Stats},
};

/// What a row's value is.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// A share in percent, with a Wilson interval.
    Percent,
    /// Games per 1,000, with a Wilson interval.
    Per1000,
    /// An average score (1 a win, ½ a draw), no interval.
    Score,
    /// A plain count.
    Count,
}

/// How a chart is drawn.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A table (the headline figures mix units).
    Table,
    /// Horizontal bars with whiskers, series side by side.
    Bars,
    /// Vertical bars in label order (a histogram), series side by side.
    Columns,
    /// One bar per label, split by series into shares that add up to 100%.
    Stacked,
    /// One line per series over the labels (months).
    Lines,
    /// Shares stacked over the labels (months).
    Area,
    /// One row per group, its rate a dot with its 95% interval, the group named at the row's
    /// start (beyond a dozen groups).
    Dots,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Row {
    pub label: String,
    /// The group (or the part of a stacked bar) the row is for.
    pub series: Option<String>,
    /// Formatted value: `6.6%`, `0.54` (per 1,000 games), `0.487` (score), a count or `n/a`.
    pub value: String,
    /// The 95% Wilson interval, formatted (`6.1–7.2%`), or empty.
    pub interval: String,
    /// What the value counts (games, opportunities, ...).
    pub count: u64,
    /// What it is counted over (the denominator; games unless the chart says otherwise).
    pub games: u64,
    /// The value as a number in the chart's unit (percent, per 1,000, score, count).
    pub magnitude: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Under `--min-games`: shown greyed and marked.
    pub small: bool,
    /// What the value is (the headline table mixes units).
    pub unit: Measure,
}

#[derive(Serialize, Debug, Clone)]
pub struct Chart {
    /// Stable name (HTML id, SVG file name, tests).
    pub id: String,
    pub title: String,
    /// What the figures are computed over, in words.
    pub over: String,
    /// Header of the label column.
    pub label_header: &'static str,
    /// Header of the count column.
    pub count_header: &'static str,
    pub kind: Kind,
    pub unit: Measure,
    /// The value axis, in words.
    pub axis: String,
    /// The series in display order (empty without `--by`, except stacked charts' parts).
    pub series: Vec<String>,
    pub rows: Vec<Row>,
    /// Beyond a dozen groups, where the chart shows all games: every group's rows (`series` the
    /// group, `label` the chart's label), for the page's collapsed table and `--json`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_group: Vec<Row>,
}

/// Builds rows, knowing `--min-games`.
#[derive(Clone, Copy)]
pub(crate) struct Rows {
    pub min_games: u64,
}

pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The sources a report is over: all of them up to [`SIDE_BY_SIDE`], else the first and the
/// last (`--json` lists them all).
pub(crate) fn sources_text(sources: &[String]) -> String {
    match sources {
        [first, .., last] if sources.len() > SIDE_BY_SIDE => {
            format!("{first} … {last}, {} sources listed in --json", sources.len())
        }
        _ => sources.join(", "),
    }
}

pub(crate) fn games_text(n: u64) -> String {
    format!("{} game{}", thousands(n), if n == 1 { "" } else { "s" })
}

impl Rows {
    /// `n` of `d` as a share (percent or per 1,000) with its interval.
    pub(crate) fn rate(&self, label: impl Into<String>, series: Option<&str>, n: u64, d: u64, unit: Measure) -> Row {
        let scale = if unit == Measure::Per1000 { 1000.0 } else { 100.0 };
        let (digits, suffix) = if unit == Measure::Per1000 { (2, "") } else { (1, "%") };
        let ci = wilson(n, d);
        Row {
            label: label.into(),
            series: series.map(str::to_owned),
            value: ci.map_or("n/a".into(), |c| format!("{:.*}{suffix}", digits, c.rate * scale)),
            interval: ci.map_or(String::new(), |c| {
                format!("{:.*}–{:.*}{suffix}", digits, c.low * scale, digits, c.high * scale)
            }),
            count: n,
            games: d,
            magnitude: ci.map(|c| c.rate * scale),
            low: ci.map(|c| c.low * scale),
            high: ci.map(|c| c.high * scale),
            small: d < self.min_games,
            unit,
        }
    }

    /// The average score of `o`.
    pub(crate) fn score(&self, label: impl Into<String>, series: Option<&str>, o: &Scores) -> Row {
        let average = o.average();
        Row {
            label: label.into(),
            series: series.map(str::to_owned),
            value: average.map_or("n/a".into(), |a| format!("{a:.3}")),
            interval: String::new(),
            count: o.games,
            games: o.games,
            magnitude: average,
            low: None,
            high: None,
            small: o.games < self.min_games,
            unit: Measure::Score,
        }
    }

    /// A plain count (of `of` rows).
    pub(crate) fn count(&self, label: impl Into<String>, series: Option<&str>, n: u64, of: u64) -> Row {
        Row {
            label: label.into(),
            series: series.map(str::to_owned),
            value: thousands(n),
            interval: String::new(),
            count: n,
            games: of,
            magnitude: Some(n as f64),
            low: None,
            high: None,
            small: false,
            unit: Measure::Count,
        }
    }
}

/// The sets of games a chart compares: all games alone, or each group (named).
pub(crate) fn sets(r: &Report) -> Vec<(Option<&str>, &Stats)> {
    if r.groups.is_empty() {
        vec![(None, &r.all)]
    } else {
        r.groups.iter().map(|g| (Some(g.label.as_str()), &g.stats)).collect()
    }
}

pub(super) fn series_names(r: &Report) -> Vec<String> {
    r.groups.iter().map(|g| g.label.clone()).collect()
}

pub(super) fn replayed_text(r: &Report) -> String {
    format!(
        "over the {} replayed of {} ({} skipped variant(s) and {} without a move left out)",
        games_text(r.all.overall.games),
        r.filter_text,
        thousands(r.skipped),
        thousands(r.no_moves)
    )
}

/// Groups drawn side by side in every chart; beyond this many, [`super::many`] lays them out as
/// rows.
pub(crate) const SIDE_BY_SIDE: usize = 12;

/// A chart of rows built from each set of games: each label's series together (a series without
/// the label gets an `n/a` row, so that the bars of a label line up), labels in first-seen order.
pub(super) fn per_set(r: &Report, f: impl Fn(Option<&str>, &Stats) -> Vec<Row>) -> Vec<Row> {
    let mut per_series = vec![f(None, &r.all)];
    if !r.groups.is_empty() {
        // All games first, for the labels' order (every group's labels are among them).
        per_series.extend(sets(r).into_iter().map(|(s, st)| f(s, st)));
        let rows = side_by_side(per_series, r.min_games);
        return rows.into_iter().filter(|row| row.series.is_some()).collect();
    }
    side_by_side(per_series, r.min_games)
}

pub(super) fn side_by_side(per_series: Vec<Vec<Row>>, min_games: u64) -> Vec<Row> {
    let mut labels: Vec<&str> = Vec::new();
    for row in per_series.iter().flatten() {
        if !labels.contains(&row.label.as_str()) {
            labels.push(&row.label);
        }
    }
    let mut rows = Vec::new();
    for label in &labels {
        for set in &per_series {
            match set.iter().find(|row| row.label == *label) {
                Some(row) => rows.push(row.clone()),
                None => {
                    let Some(any) = set.first() else { continue };
                    rows.push(Row {
                        label: (*label).to_owned(),
                        value: "n/a".into(),
                        interval: String::new(),
                        count: 0,
                        games: 0,
                        magnitude: None,
                        low: None,
                        high: None,
                        small: min_games > 0,
                        ..any.clone()
                    });
                }
            }
        }
    }
    rows
}

#[allow(clippy::too_many_arguments)]
pub(super) fn chart(
    r: &Report,
    id: &str,
    title: &str,
    over: String,
    label_header: &'static str,
    count_header: &'static str,
    kind: Kind,
    unit: Measure,
    axis: &str,
    rows: Vec<Row>,
) -> Chart {
    Chart {
        id: id.into(),
        title: title.into(),
        over,
        label_header,
        count_header,
        kind,
        unit,
        axis: axis.into(),
        series: series_names(r),
        rows,
        by_group: Vec::new(),
    }
}

pub(super) fn with_claim_text(r: &Report) -> String {
    format!("over the {} with a claim opportunity, of {}", games_text(r.all.overall.with_claim), r.filter_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_format_rates_with_their_interval() {
        let b = Rows { min_games: 30 };
        let row = b.rate("x", None, 1, 4, Measure::Percent);
        assert_eq!((row.value.as_str(), row.interval.as_str(), row.small), ("25.0%", "4.6–69.9%", true));
        let row = b.rate("x", Some("g"), 3, 5000, Measure::Per1000);
        assert_eq!((row.value.as_str(), row.interval.as_str(), row.small), ("0.60", "0.20–1.76", false));
        assert_eq!(b.rate("x", None, 0, 0, Measure::Percent).value, "n/a");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}
