//! The figures beyond a dozen groups ([`SIDE_BY_SIDE`]), up to a few hundred (150 monthly
//! Lichess dumps): bars side by side in a group's colour stop being readable, so the groups become
//! rows. The main rates get a chart of their own with one row per group (a dot and its 95%
//! interval, the group named at the row's start), in the groups' order or by value (`--sort`);
//! every other chart shows all games, and carries every group's rows in
//! [`Chart::by_group`] (a collapsed table on the page, and `--json`). The answers name the
//! extremes and the spread instead of every group ([`super::answers`]).

use super::{
    chart::{Chart, Kind, Measure, Row, Rows, SIDE_BY_SIDE, replayed_text, with_claim_text},
    model::{Rates, Report},
    side_by_side_charts,
};

/// The rates shown one row per group: id, title, what the rate is over, count header, and the
/// count with its denominator.
type GroupRate = (&'static str, &'static str, &'static str, &'static str, fn(&Rates) -> (u64, u64));

const GROUP_RATES: [GroupRate; 2] = [
    ("threefold_by_group", "Games reaching a threefold", "share of games (95% interval)", "threefold", |o| {
        (o.threefold, o.games)
    }),
    (
        "missed_by_group",
        "Play went on after a claim was available",
        "share of games with a claim (95% interval)",
        "missed",
        |o| (o.missed, o.with_claim),
    ),
];

/// Sorts rows by value, highest first; rows without a value last; ties keep their order.
pub(crate) fn by_value(rows: &mut [Row]) {
    rows.sort_by(|a, b| b.magnitude.partial_cmp(&a.magnitude).unwrap_or(std::cmp::Ordering::Equal));
}

/// The charts of a report with more than [`SIDE_BY_SIDE`] groups.
pub(crate) fn charts(r: &Report) -> Vec<Chart> {
    debug_assert!(r.groups.len() > SIDE_BY_SIDE);
    let b = Rows { min_games: r.min_games };
    let by = r.by.clone().unwrap_or_default();
    // The charts over all games, as without --by, and the same with every group beside.
    let alone = Report { groups: Vec::new(), ..r.clone() };
    let mut charts = side_by_side_charts(&alone);
    let grouped = side_by_side_charts(r);
    for chart in &mut charts {
        // The monthly draw mix is a chart per group side by side; each group's months are in
        // the JSON's `groups`.
        if chart.kind == Kind::Area {
            continue;
        }
        let Some(g) = grouped.iter().find(|g| g.id == chart.id) else { continue };
        chart.by_group = g
            .rows
            .iter()
            .filter(|row| row.series.as_deref() != Some("all"))
            .map(|row| {
                let mut row = row.clone();
                if chart.kind == Kind::Stacked {
                    // A stacked bar per group, split by its parts: the group is the row's label.
                    std::mem::swap(&mut row.label, row.series.get_or_insert_default());
                }
                row
            })
            .collect();
    }
    let per_group = GROUP_RATES.iter().map(|&(id, title, axis, count_header, part)| {
        let mut rows: Vec<Row> = r
            .groups
            .iter()
            .map(|g| {
                let (n, d) = part(&g.stats.overall);
                b.rate(&g.label, None, n, d, Measure::Percent)
            })
            .collect();
        if r.sort.is_some() {
            by_value(&mut rows);
        }
        let over = if id == "missed_by_group" { with_claim_text(r) } else { replayed_text(r) };
        let order = if r.sort.is_some() { "highest first" } else { "in their order" };
        Chart {
            id: id.into(),
            // Not "by month": the charts over time are named so.
            title: format!("{title}, one row per {by}"),
            over: format!("{over}; {} {}, {order}", r.groups.len(), plural(&by)),
            label_header: header(&by),
            count_header,
            kind: Kind::Dots,
            unit: Measure::Percent,
            axis: axis.into(),
            series: Vec::new(),
            rows,
            by_group: Vec::new(),
        }
    });
    // After the headline table, before the charts over all games.
    let at = usize::from(charts.first().is_some_and(|c| c.kind == Kind::Table));
    charts.splice(at..at, per_group);
    charts
}

/// The plural of a grouping's name (`sources`, `time classes`).
pub(crate) fn plural(by: &str) -> String {
    if by.ends_with('s') { format!("{by}es") } else { format!("{by}s") }
}

/// A grouping's name as a column header.
fn header(by: &str) -> &'static str {
    use threefold_count::group::ByKind;
    [
        ByKind::Source,
        ByKind::Collection,
        ByKind::TimeClass,
        ByKind::RatingBand,
        ByKind::Variant,
        ByKind::Venue,
        ByKind::Year,
        ByKind::Month,
    ]
    .into_iter()
    .map(ByKind::name)
    .find(|name| *name == by)
    .unwrap_or("group")
}
