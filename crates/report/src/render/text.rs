//! The report as plain-text tables for the terminal. Layout: a chart's title on its own line, then
//! what it is computed over, a header and one row per figure, columns separated by at least two
//! spaces (labels never contain two spaces in a row, so the table splits back into cells).

use std::fmt::Write;

use super::{
    chart::{Chart, Kind, Row},
    model::{Example, Report},
};
use threefold_core::engine::vocabulary::printable;

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

/// A row's cells, as the page's `data-*` attributes hold them (tests compare the two).
pub(crate) fn cells(chart: &Chart, r: &Row) -> Vec<String> {
    let mut cells = vec![r.label.clone()];
    if !chart.series.is_empty() {
        cells.push(r.series.clone().unwrap_or_default());
    }
    cells.push(r.value.clone());
    cells.push(if r.interval.is_empty() { "-".into() } else { r.interval.clone() });
    cells.push(r.count.to_string());
    cells.push(r.games.to_string());
    if r.small {
        cells.push("few games".into());
    }
    cells
}

fn chart(out: &mut String, chart: &Chart) {
    let _ = writeln!(out, "{}", chart.title);
    let _ = writeln!(out, "  {}", chart.over);
    let mut header = vec![chart.label_header.to_owned()];
    if !chart.series.is_empty() {
        header.push(if chart.kind == Kind::Stacked || chart.kind == Kind::Area { "part" } else { "group" }.into());
    }
    header.extend(["value", "95% CI", chart.count_header, "of games"].map(str::to_owned));
    let mut rows = vec![header];
    rows.extend(chart.rows.iter().map(|r| cells(chart, r)));
    table(out, &rows, 1 + usize::from(!chart.series.is_empty()));
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

/// Splits text into lines of at most `width` characters, at spaces; later lines indented.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let Some(line) = lines.last_mut() else { break };
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(format!("  {word}"));
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// The whole report as text.
pub(crate) fn render(report: &Report, charts: &[Chart]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "threefold report: {}", printable(&report.dataset));
    let _ = writeln!(out, "Filter: {}", printable(&report.filter_text));
    if let Some(by) = &report.by {
        let _ = writeln!(out, "Groups: by {by}; rates over fewer than {} games marked \"few games\"", report.min_games);
    }
    let _ = writeln!(
        out,
        "{} of the dataset's {} games match, in {} source(s): {}; {} skipped variant(s), {} without a move",
        report.matched,
        report.rows,
        report.sources.len(),
        printable(&super::chart::sources_text(&report.sources)),
        report.skipped,
        report.no_moves
    );
    // In the heading's block: the first lines say how many games are copies.
    for line in wrap(&super::answers::copies_sentence(report), 100) {
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
    for paragraph in super::answers::paragraphs(report) {
        for line in wrap(&paragraph, 100) {
            let _ = writeln!(out, "{line}");
        }
    }
    out.push('\n');
    for c in charts {
        chart(&mut out, c);
    }
    examples(&mut out, &report.examples, &report.dataset);
    out
}
