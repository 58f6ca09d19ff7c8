//! The report as one self-contained HTML5 page: inline CSS, charts as inline SVG bars drawn here,
//! nothing fetched from anywhere. Every bar and headline row carries its figure in `data-*`
//! attributes (label, value, count, games) so that tests can read the page back.

use std::fmt::Write;

use super::{
    figures::{Chart, Row},
    model::{Example, Report},
};

const STYLE: &str = "
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 62em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .2em .6em; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.5em 0; } figcaption { margin-bottom: .3em; }
.over { color: #666; font-size: .9em; display: block; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
svg rect { fill: #3b6ea8; }
";

/// Geometry of a bar chart, in SVG user units.
const WIDTH: u32 = 760;
const LABEL_WIDTH: u32 = 230;
const BAR_WIDTH: f64 = 330.0;
const ROW_HEIGHT: u32 = 24;

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

fn data_attributes(r: &Row) -> String {
    format!(
        "data-label=\"{}\" data-value=\"{}\" data-count=\"{}\" data-games=\"{}\"",
        escape(&r.label),
        escape(&r.value),
        r.count,
        r.games
    )
}

fn headline(out: &mut String, chart: &Chart) {
    let _ = writeln!(
        out,
        "<section id=\"{}\" data-title=\"{}\">\n<h2>{}</h2>\n<p class=\"over\">{}</p>",
        chart.id,
        escape(&chart.title),
        escape(&chart.title),
        escape(&chart.over)
    );
    let _ = writeln!(
        out,
        "<table>\n<thead><tr><th>{}</th><th>value</th><th>{}</th><th>of games</th></tr></thead>\n<tbody>",
        escape(chart.label_header),
        escape(chart.count_header)
    );
    for r in &chart.rows {
        let _ = writeln!(
            out,
            "<tr class=\"figure\" {}><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            data_attributes(r),
            escape(&r.label),
            escape(&r.value),
            r.count,
            r.games
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn bar_chart(out: &mut String, chart: &Chart) {
    let height = ROW_HEIGHT * chart.rows.len().max(1) as u32 + 8;
    let _ = writeln!(
        out,
        "<figure class=\"chart\" id=\"{}\" data-title=\"{}\">\n<figcaption><strong>{}</strong><span class=\"over\">{}; bars scaled to the largest value</span></figcaption>",
        chart.id,
        escape(&chart.title),
        escape(&chart.title),
        escape(&chart.over)
    );
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{}\">",
        escape(&chart.title)
    );
    if chart.rows.is_empty() {
        let _ = writeln!(out, "<text x=\"{LABEL_WIDTH}\" y=\"18\">no games</text>");
    }
    for (i, r) in chart.rows.iter().enumerate() {
        let y = 4 + ROW_HEIGHT * i as u32;
        let width = (r.bar * BAR_WIDTH).max(0.0);
        let _ = writeln!(
            out,
            "<g class=\"bar\" {} transform=\"translate(0,{y})\"><title>{}: {} ({} {} of {} games)</title>\
             <text x=\"{}\" y=\"15\" text-anchor=\"end\">{}</text>\
             <rect x=\"{LABEL_WIDTH}\" y=\"2\" width=\"{width:.1}\" height=\"17\" fill=\"#3b6ea8\"/>\
             <text x=\"{:.1}\" y=\"15\">{} ({} of {})</text></g>",
            data_attributes(r),
            escape(&r.label),
            escape(&r.value),
            r.count,
            escape(chart.count_header),
            r.games,
            LABEL_WIDTH - 8,
            escape(&r.label),
            f64::from(LABEL_WIDTH) + width + 6.0,
            escape(&r.value),
            r.count,
            r.games
        );
    }
    out.push_str("</svg>\n</figure>\n");
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

fn examples(out: &mut String, examples: &[Example], dataset: &str) {
    out.push_str("<section id=\"examples\">\n<h2>Example games</h2>\n");
    if examples.is_empty() {
        out.push_str(
            "<p>No castling or e.p. edge case, and no game went on after an automatic draw.</p>\n</section>\n",
        );
        return;
    }
    out.push_str(
        "<p class=\"over\">Castling and e.p. cases with a wrong claim first, then by source and game; \
         the queries in <code>queries/</code> list them all.</p>\n<table>\n<thead><tr><th>case</th><th>game</th>\
         <th>White</th><th>Black</th><th>Event</th><th>Date</th><th>Round</th><th>Result</th><th>Site</th>\
         <th>detail</th><th>timeline</th></tr></thead>\n<tbody>\n",
    );
    for e in examples {
        let text = |v: &Option<String>| escape(v.as_deref().unwrap_or(""));
        let _ = writeln!(
            out,
            "<tr class=\"example\" data-case=\"{}\" data-source=\"{}\" data-frame-offset=\"{}\" data-byte-offset=\"{}\"><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            escape(&e.case),
            escape(&e.source),
            e.frame_offset,
            e.byte_offset,
            escape(&e.case),
            escape(&e.place()),
            text(&e.white),
            text(&e.black),
            text(&e.event),
            text(&e.date),
            text(&e.round),
            text(&e.result),
            site_cell(e.site.as_deref()),
            escape(&e.detail),
            escape(&e.command(dataset))
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The whole page.
pub fn render(report: &Report, charts: &[Chart]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>threefold report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&report.dataset)
    );
    let _ = writeln!(
        out,
        "<h1>Repetitions under the FIDE Laws (Art. 9.2, 9.6)</h1>\n<p>Dataset <code>{}</code>: {} games in {} source(s) \
         ({}); {} skipped variant(s) are left out of every figure. Made by threefold {} with <code>threefold report</code>; \
         rating band = the lower Elo of the two players in bands of 200.</p>",
        escape(&report.dataset),
        report.rows,
        report.sources.len(),
        escape(&report.sources.join(", ")),
        report.skipped,
        env!("CARGO_PKG_VERSION")
    );
    for chart in charts {
        if chart.bars {
            bar_chart(&mut out, chart);
        } else {
            headline(&mut out, chart);
        }
    }
    examples(&mut out, &report.examples, &report.dataset);
    out.push_str("</body>\n</html>\n");
    out
}
