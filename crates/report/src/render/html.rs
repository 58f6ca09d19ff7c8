//! The report as one self-contained HTML5 page: inline CSS, charts as inline SVG drawn by
//! [`super::svg`], nothing fetched from anywhere, no script. It opens with the answers in
//! sentences, then the charts, each with a link that saves its SVG on its own; it prints on A4
//! (charts scale to the page width). Every mark and table row carries its figure in `data-*`
//! attributes so that tests can read the page back.

use std::fmt::Write;

use super::{
    chart::{Chart, Kind},
    model::{Example, Report},
    svg::{self, data_attributes, escape},
};

const STYLE: &str = "
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 52em; padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .2em .6em; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; overflow-wrap: normal; }
tr.small td, td.small { color: #888; }
.groups { font-size: .9em; } .groups td.n { white-space: normal; } .groups th { overflow-wrap: anywhere; }
figure { margin: 1.5em 0; break-inside: avoid; }
figure svg { display: block; max-width: 100%; height: auto; }
.over { color: #666; font-size: .9em; display: block; }
.answers p { margin: .4em 0; }
a.svg { font-size: .85em; }
.examples { font-size: .85em; } .examples code { overflow-wrap: anywhere; }
@media print { body { margin: 0; max-width: none; font-size: 11pt; } a.svg { display: none; } h2 { break-after: avoid; } }
";

/// Beyond a dozen groups: the collapsed tables of every group's figures.
const MANY_STYLE: &str = "
details.by-group { font-size: .8em; margin: .3em 0 1em; }
details.by-group summary { cursor: pointer; color: #333; }
.wide { overflow-x: auto; }
.wide th, .wide td { padding: .1em .4em; }
.wide td.n { white-space: nowrap; }
";

/// Every group's rows of a chart ([`Chart::by_group`]) as one collapsed table: a row per group,
/// a column per label, each cell the value over its interval.
fn by_group(out: &mut String, chart: &Chart, by: &str) {
    if chart.by_group.is_empty() {
        return;
    }
    let mut labels: Vec<&str> = Vec::new();
    let mut groups: Vec<&str> = Vec::new();
    let mut cells = std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for r in &chart.by_group {
        let group = r.series.as_deref().unwrap_or_default();
        if !labels.contains(&r.label.as_str()) {
            labels.push(&r.label);
        }
        if seen.insert(group) {
            groups.push(group);
        }
        cells.insert((group, r.label.as_str()), r);
    }
    let _ = write!(
        out,
        "<details class=\"by-group\"><summary>Every {}'s figures ({} {})</summary>\n<div class=\"wide\"><table>\n<thead><tr><th>{}</th>",
        escape(by),
        groups.len(),
        escape(&super::many::plural(by)),
        escape(by)
    );
    for label in &labels {
        let _ = write!(out, "<th class=\"n\">{}</th>", escape(label));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for group in &groups {
        let _ = write!(out, "<tr><td>{}</td>", escape(group));
        for label in &labels {
            match cells.get(&(*group, *label)) {
                Some(r) => {
                    let interval = interval_html(&r.interval);
                    let _ = write!(
                        out,
                        "<td class=\"n{}\">{}{interval}</td>",
                        if r.small { " small" } else { "" },
                        escape(&r.value)
                    );
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div></details>\n");
}

/// Percent-encodes a document for a `data:` link (everything but unreserved characters).
fn data_uri(svg: &str) -> String {
    let mut out = String::from("data:image/svg+xml;charset=utf-8,");
    for b in svg.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~ ".contains(&b) {
            out.push(if b == b' ' { ' ' } else { b as char });
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out.replace(' ', "%20")
}

/// Groups per headline table on the page (the terminal lists them all in one).
const GROUPS_PER_TABLE: usize = 4;

/// A table chart (the headline figures mix units): a row per figure; with groups, a column per
/// group, each cell its value over its interval.
fn table(out: &mut String, chart: &Chart, by: &str) {
    let _ = writeln!(
        out,
        "<section id=\"{}\" data-title=\"{}\">\n<h2>{}</h2>\n<p class=\"over\">{}</p>",
        escape(&chart.id),
        escape(&chart.title),
        escape(&chart.title),
        escape(&chart.over)
    );
    if chart.series.is_empty() {
        let _ = writeln!(
            out,
            "<table>\n<thead><tr><th>{}</th><th>value</th><th>95% CI</th><th>{}</th><th>of games</th></tr></thead>\n<tbody>",
            escape(chart.label_header),
            escape(chart.count_header)
        );
        for r in &chart.rows {
            let _ = writeln!(
                out,
                "<tr class=\"figure{}\" {}><td>{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                if r.small { " small" } else { "" },
                data_attributes(r),
                escape(&r.label),
                if r.small { " <em>(few games)</em>" } else { "" },
                escape(&r.value),
                escape(&r.interval),
                r.count,
                r.games
            );
        }
    } else {
        // A table per few groups: as many side by side as fit across an A4 page.
        for names in chart.series.chunks(GROUPS_PER_TABLE) {
            let _ = write!(out, "<table class=\"groups\">\n<thead><tr><th>{}</th>", escape(chart.label_header));
            for s in names {
                let _ = write!(out, "<th class=\"n\">{}</th>", escape(s));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            let mut label: Option<&str> = None;
            for r in chart.rows.iter().filter(|r| r.series.as_ref().is_some_and(|s| names.contains(s))) {
                if label != Some(r.label.as_str()) {
                    if label.is_some() {
                        out.push_str("</tr>\n");
                    }
                    let _ = write!(out, "<tr><td>{}</td>", escape(&r.label));
                    label = Some(&r.label);
                }
                let interval = interval_html(&r.interval);
                let _ = write!(
                    out,
                    "<td class=\"n figure{}\" {} title=\"{} of {} games{}\">{}{interval}</td>",
                    if r.small { " small" } else { "" },
                    data_attributes(r),
                    r.count,
                    r.games,
                    if r.small { ", few games" } else { "" },
                    escape(&r.value)
                );
            }
            out.push_str("</tr>\n</tbody>\n</table>\n");
        }
        out.push_str("</section>\n");
        return;
    }
    out.push_str("</tbody>\n</table>\n");
    by_group(out, chart, by);
    out.push_str("</section>\n");
}

/// A chart: its SVG inline, and a link saving that same SVG.
fn figure(out: &mut String, chart: &Chart, by: &str) {
    let drawing = svg::render(chart);
    let _ = writeln!(
        out,
        "<figure class=\"chart\" id=\"{}\" data-title=\"{}\">\n{drawing}<figcaption><a class=\"svg\" download=\"{}.svg\" href=\"{}\">Save this chart as SVG</a></figcaption>",
        escape(&chart.id),
        escape(&chart.title),
        escape(&chart.id),
        data_uri(&drawing)
    );
    by_group(out, chart, by);
    out.push_str("</figure>\n");
}

fn site_cell(site: Option<&str>) -> String {
    match site {
        Some(s) if s.starts_with("https://") || s.starts_with("http://") => {
            format!("<a href=\"{}\">{}</a>", escape(s), escape(s))
        }
        Some(s) => escape(s),
        None => String::new(),
    }
}

/// The examples' table; `links[i]`, where there is one, is the page of example `i`'s game.
fn examples(out: &mut String, examples: &[Example], dataset: &str, links: &[Option<String>]) {
    out.push_str("<section id=\"examples\" class=\"examples\">\n<h2>Example games</h2>\n");
    if examples.is_empty() {
        out.push_str(
            "<p>No castling or e.p. edge case, and no game went on after an automatic draw.</p>\n</section>\n",
        );
        return;
    }
    out.push_str(
        "<p class=\"over\">Castling and e.p. cases with a wrong claim first, then by source and game; \
         the queries in <code>queries/</code> list them all.</p>\n<table>\n<thead><tr><th>case</th><th>game</th>\
         <th>detail</th></tr></thead>\n<tbody>\n",
    );
    for (i, e) in examples.iter().enumerate() {
        let text = |v: &Option<String>| escape(v.as_deref().unwrap_or("?"));
        let command = match links.get(i).and_then(Option::as_deref) {
            Some(href) => format!(
                "<a class=\"explain\" href=\"{}\"><code>{}</code></a>",
                escape(href),
                escape(&e.command(dataset))
            ),
            None => format!("<code>{}</code>", escape(&e.command(dataset))),
        };
        let _ = writeln!(
            out,
            "<tr class=\"example\" data-case=\"{}\" data-source=\"{}\" data-frame-offset=\"{}\" data-byte-offset=\"{}\"><td>{}</td>\
             <td><strong>{} – {}</strong>, {} ({}), round {}, {}<br>{} {}</td><td>{}<br>{command}</td></tr>",
            escape(&e.case),
            escape(&e.source),
            e.frame_offset,
            e.byte_offset,
            escape(&e.case.replace('_', " ")),
            text(&e.white),
            text(&e.black),
            text(&e.event),
            text(&e.date),
            text(&e.round),
            text(&e.result),
            escape(&e.place()),
            site_cell(e.site.as_deref()),
            escape(&e.detail),
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The whole page; each example game's command is a link to `links[i]` where there is one (its
/// `explain` page, written beside the report page).
pub(crate) fn render(report: &Report, charts: &[Chart], links: &[Option<String>]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>threefold report: {}</title>\n<style>{STYLE}</style>\n{}</head>\n<body>\n",
        escape(&report.dataset),
        if charts.iter().any(|c| !c.by_group.is_empty()) {
            format!("<style>{MANY_STYLE}</style>\n")
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        out,
        "<h1>Repetitions under the FIDE Laws (Art. 9.2, 9.6)</h1>\n<p><strong>Filter: {}.</strong>{}</p>\n<p>Dataset <code>{}</code>: {} of its {} games match, in {} source(s) \
         ({}); {} skipped variant(s) and {} game(s) without a move are left out of every figure. Made by threefold {} with <code>threefold report</code>; \
         rating band = the lower rating of the two players in bands of 200, within the venue's own rating pool (FIDE Elo over the board, Lichess's Glicko-2, another server's, an engine list's); intervals are 95% Wilson score intervals.</p>",
        escape(&report.filter_text),
        report.by.as_ref().map_or(String::new(), |by| format!(
            " Groups: by {}; rates over fewer than {} games are greyed and marked \"few games\".",
            escape(by),
            report.min_games
        )),
        escape(&report.dataset),
        report.matched,
        report.rows,
        report.sources.len(),
        escape(&super::chart::sources_text(&report.sources)),
        report.skipped,
        report.no_moves,
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(out, "<p class=\"copies\">{}</p>", escape(&super::answers::copies_sentence(report)));
    out.push_str("<section class=\"answers\" id=\"answers\">\n<h2>Answers</h2>\n");
    for paragraph in super::answers::paragraphs(report) {
        let _ = writeln!(out, "<p>{}</p>", escape(&paragraph));
    }
    out.push_str("</section>\n");
    let by = report.by.as_deref().unwrap_or("group");
    for chart in charts {
        if chart.kind == Kind::Table {
            table(&mut out, chart, by);
        } else {
            figure(&mut out, chart, by);
        }
    }
    examples(&mut out, &report.examples, &report.dataset, links);
    out.push_str("</body>\n</html>\n");
    out
}

/// A figure's interval under its value in a table cell, or nothing.
fn interval_html(interval: &str) -> String {
    if interval.is_empty() { String::new() } else { format!("<br><small>{}</small>", escape(interval)) }
}
