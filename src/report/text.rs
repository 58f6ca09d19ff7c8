//! The report as plain-text tables for the terminal. Layout: a chart's title on its own line, then
//! what it is computed over, a header and one row per figure, columns separated by at least two
//! spaces (labels never contain two spaces in a row, so the table splits back into cells).

use std::fmt::Write;

use super::{
    figures::Chart,
    model::{Example, Report},
};
use crate::engine::vocabulary::printable;

/// Pads cells to their column's width: the first column left-aligned, the others right-aligned.
fn table(out: &mut String, rows: &[Vec<String>], left_aligned: usize) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            let pad = widths[c].saturating_sub(cell.chars().count());
            line.push_str("  ");
            if c < left_aligned {
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', pad));
            } else {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

fn chart(out: &mut String, chart: &Chart) {
    let _ = writeln!(out, "{}", chart.title);
    let _ = writeln!(out, "  {}", chart.over);
    let mut rows = vec![vec![
        chart.label_header.to_owned(),
        "value".to_owned(),
        chart.count_header.to_owned(),
        "of games".to_owned(),
    ]];
    rows.extend(
        chart.rows.iter().map(|r| vec![r.label.clone(), r.value.clone(), r.count.to_string(), r.games.to_string()]),
    );
    table(out, &rows, 1);
    out.push('\n');
}

/// A tag value as a table cell: on one line, and with no control character reaching the terminal.
fn cell(value: &Option<String>) -> String {
    match value.as_deref().map(str::trim) {
        Some(v) if !v.is_empty() => printable(&v.split_whitespace().collect::<Vec<_>>().join(" ")).into_owned(),
        _ => "-".to_owned(),
    }
}

fn examples(out: &mut String, examples: &[Example], dataset: &str) {
    out.push_str("Example games\n");
    if examples.is_empty() {
        out.push_str("  none: no castling or e.p. edge case, no game went on after an automatic draw\n");
        return;
    }
    let mut rows = vec![
        ["case", "game", "white", "black", "event", "date", "round", "result", "site", "detail"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for e in examples {
        rows.push(vec![
            e.case.clone(),
            e.place(),
            cell(&e.white),
            cell(&e.black),
            cell(&e.event),
            cell(&e.date),
            cell(&e.round),
            cell(&e.result),
            cell(&e.site),
            e.detail.clone(),
        ]);
    }
    table(out, &rows, 10);
    out.push_str("  each game's timeline:\n");
    for e in examples {
        let _ = writeln!(out, "    {}", printable(&e.command(dataset)));
    }
}

/// The whole report as text.
pub fn render(report: &Report, charts: &[Chart]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "threefold report: {}", report.dataset);
    let _ = writeln!(
        out,
        "{} games in {} source(s): {}; {} skipped variant(s)\n",
        report.rows,
        report.sources.len(),
        report.sources.join(", "),
        report.skipped
    );
    for c in charts {
        chart(&mut out, c);
    }
    examples(&mut out, &report.examples, &report.dataset);
    out
}
