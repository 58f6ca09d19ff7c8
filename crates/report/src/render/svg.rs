//! Each chart as one standalone SVG: its title, what it is computed over, axes with labels, a
//! legend for its series, and its rows as marks that carry their figure in `data-*` attributes
//! (label, series, value, interval, count, games) so that tests can read the drawing back. Colours
//! and fonts are attributes, not page CSS, so a chart saved on its own looks the same.

use std::fmt::Write;

use super::chart::{Chart, Kind, Measure, Row};

/// Drawing width in user units; the page scales it down to fit (A4 included).
pub const WIDTH: f64 = 760.0;
/// Okabe–Ito colours: told apart with every common colour blindness.
const PALETTE: [&str; 8] = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999933", "#000000"];
const ONE_SERIES: &str = "#3b6ea8";
const SMALL: &str = "#c4c4c4";
const INK: &str = "#222222";
const FAINT: &str = "#666666";
const GRID: &str = "#e3e3e3";

pub fn escape(s: &str) -> String {
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

/// The `data-*` attributes of a row: what the tests read back.
pub fn data_attributes(r: &Row) -> String {
    let mut out = format!("data-label=\"{}\"", escape(&r.label));
    if let Some(s) = &r.series {
        let _ = write!(out, " data-series=\"{}\"", escape(s));
    }
    let _ = write!(
        out,
        " data-value=\"{}\" data-interval=\"{}\" data-count=\"{}\" data-games=\"{}\" data-small=\"{}\"",
        escape(&r.value),
        escape(&r.interval),
        r.count,
        r.games,
        r.small
    );
    out
}

/// A row in words, for its tooltip.
fn tooltip(chart: &Chart, r: &Row) -> String {
    let series = r.series.as_deref().map(|s| format!(" [{s}]")).unwrap_or_default();
    let interval = if r.interval.is_empty() { String::new() } else { format!(", 95% interval {}", r.interval) };
    let small = if r.small { ", few games" } else { "" };
    format!("{}{series}: {}{interval} ({} {} of {}{small})", r.label, r.value, r.count, chart.count_header, r.games)
}

fn colour(chart: &Chart, r: &Row) -> &'static str {
    if r.small {
        return SMALL;
    }
    match (&r.series, chart.series.len()) {
        (Some(s), n) if n > 0 => PALETTE[chart.series.iter().position(|x| x == s).unwrap_or(0) % PALETTE.len()],
        _ => ONE_SERIES,
    }
}

/// Splits text into lines of at most `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let Some(line) = lines.last_mut() else { break };
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_owned());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// A round upper end for an axis holding `max`, and its tick step.
fn axis_end(max: f64, unit: Measure) -> (f64, f64) {
    if unit == Measure::Score {
        return (1.0, 0.25);
    }
    let max = if max > 0.0 { max } else { 1.0 };
    let magnitude = 10f64.powf(max.log10().floor());
    let step = [0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| s * 5.0 >= max)
        .unwrap_or(magnitude * 10.0);
    let end = (max / step).ceil() * step;
    if unit == Measure::Percent { (end.min(100.0), step) } else { (end, step) }
}

fn tick_text(v: f64, unit: Measure) -> String {
    let text =
        if v.fract().abs() < 1e-9 { format!("{v:.0}") } else { format!("{v:.2}").trim_end_matches('0').to_owned() };
    if unit == Measure::Percent { format!("{text}%") } else { text }
}

/// The drawing so far, and where the next line goes.
struct Svg {
    body: String,
    y: f64,
}

impl Svg {
    fn text(&mut self, x: f64, y: f64, anchor: &str, extra: &str, text: &str) {
        let _ = writeln!(
            self.body,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" fill=\"{INK}\"{extra}>{}</text>",
            escape(text)
        );
    }

    /// Title, then what the figures are over, wrapped.
    fn heading(&mut self, chart: &Chart) {
        self.text(8.0, 20.0, "start", " font-weight=\"bold\" font-size=\"14\"", &chart.title);
        self.y = 38.0;
        let mut over = chart.over.clone();
        if chart.rows.iter().any(|r| r.small) {
            over.push_str("; grey: fewer games than --min-games, too few to compare");
        }
        for line in wrap(&over, 118) {
            let _ = writeln!(
                self.body,
                "<text x=\"8\" y=\"{:.1}\" fill=\"{FAINT}\" font-size=\"11\">{}</text>",
                self.y,
                escape(&line)
            );
            self.y += 14.0;
        }
        self.y += 4.0;
    }

    fn legend(&mut self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        let mut x = 8.0;
        for (i, name) in names.iter().enumerate() {
            let width = 24.0 + 7.0 * name.chars().count() as f64;
            if x + width > WIDTH - 8.0 {
                x = 8.0;
                self.y += 16.0;
            }
            let _ = writeln!(
                self.body,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                self.y,
                PALETTE[i % PALETTE.len()]
            );
            self.text(x + 16.0, self.y + 10.5, "start", "", name);
            x += width;
        }
        self.y += 22.0;
    }

    fn finish(self, chart: &Chart) -> String {
        let height = self.y.ceil() + 4.0;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" width=\"{WIDTH}\" height=\"{height}\" \
             viewBox=\"0 0 {WIDTH} {height}\" font-family=\"system-ui, sans-serif\" font-size=\"12\" role=\"img\" \
             aria-label=\"{}\">\n<rect width=\"{WIDTH}\" height=\"{height}\" fill=\"#ffffff\"/>\n{}</svg>\n",
            escape(&chart.title),
            self.body
        )
    }
}

/// Labels in first-seen order.
fn labels(rows: &[Row]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in rows {
        if !out.contains(&r.label.as_str()) {
            out.push(&r.label);
        }
    }
    out
}

fn top(r: &Row) -> f64 {
    r.high.or(r.magnitude).unwrap_or(0.0)
}

/// Vertical grid lines and tick labels under a horizontal plot.
fn x_axis(svg: &mut Svg, x0: f64, width: f64, (end, step): (f64, f64), top_y: f64, unit: Measure, label: &str) {
    let mut v = 0.0;
    while v <= end + step * 1e-6 {
        let x = x0 + width * v / end;
        let _ = writeln!(
            svg.body,
            "<line x1=\"{x:.1}\" y1=\"{top_y:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{GRID}\"/>",
            svg.y
        );
        svg.text(x, svg.y + 14.0, "middle", " font-size=\"11\"", &tick_text(v, unit));
        v += step;
    }
    svg.text(x0 + width / 2.0, svg.y + 30.0, "middle", "", label);
    svg.y += 38.0;
}

/// Horizontal bars with 95% whiskers; a label's series side by side.
fn bars(svg: &mut Svg, chart: &Chart) {
    let (x0, width) = (230.0, 340.0);
    let axis = axis_end(chart.rows.iter().map(top).fold(0.0, f64::max), chart.unit);
    let per_label = chart.series.len().max(1) as f64;
    let bar_height = if per_label > 1.0 { 13.0 } else { 17.0 };
    let plot_top = svg.y;
    let mut g = String::new();
    for label in labels(&chart.rows) {
        let rows: Vec<&Row> = chart.rows.iter().filter(|r| r.label == label).collect();
        let block = bar_height * rows.len() as f64 + 2.0 * (rows.len() as f64 - 1.0);
        let _ = writeln!(
            g,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"{INK}\">{}</text>",
            x0 - 8.0,
            svg.y + block / 2.0 + 4.0,
            escape(label)
        );
        for r in rows {
            let scale = |v: f64| x0 + width * (v / axis.0).clamp(0.0, 1.0);
            let w = scale(r.magnitude.unwrap_or(0.0)) - x0;
            let mid = svg.y + bar_height / 2.0;
            let mut mark = format!(
                "<rect x=\"{x0}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{bar_height}\" fill=\"{}\"/>",
                svg.y,
                colour(chart, r)
            );
            let mut end = x0 + w;
            if let (Some(lo), Some(hi)) = (r.low, r.high) {
                let (a, b) = (scale(lo), scale(hi));
                let _ = write!(
                    mark,
                    "<path d=\"M{a:.1} {mid:.1}H{b:.1}M{a:.1} {:.1}V{:.1}M{b:.1} {:.1}V{:.1}\" stroke=\"{INK}\" stroke-width=\"1.2\" fill=\"none\"/>",
                    mid - 4.0,
                    mid + 4.0,
                    mid - 4.0,
                    mid + 4.0
                );
                end = end.max(b);
            }
            let note = if r.small { " · few games" } else { "" };
            // A group without games for this label keeps its slot, empty, so the others line up.
            let text = if r.games == 0 {
                String::new()
            } else {
                format!(
                    "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\" font-size=\"11\">{} ({}/{}){note}</text>",
                    end + 5.0,
                    mid + 4.0,
                    if r.small { FAINT } else { INK },
                    escape(&r.value),
                    r.count,
                    r.games
                )
            };
            let _ = writeln!(
                g,
                "<g class=\"row\" {}><title>{}</title>{mark}{text}</g>",
                data_attributes(r),
                escape(&tooltip(chart, r))
            );
            svg.y += bar_height + 2.0;
        }
        svg.y += 6.0;
    }
    if chart.rows.is_empty() {
        svg.text(x0, svg.y + 14.0, "start", "", "no games");
        svg.y += 22.0;
    }
    x_axis(svg, x0, width, axis, plot_top, chart.unit, &chart.axis);
    // Bars over the grid: drawn after it.
    svg.body.push_str(&g);
}

/// Rows of a dot chart, in user units.
const DOT_ROW: f64 = 12.0;
/// Longest group name shown whole in a dot chart (longer ones are cut, whole in the tooltip).
const DOT_LABEL_CHARS: usize = 44;

/// One row per group: its name at the row's start, its rate a dot with the 95% interval as a
/// whisker, the value at the row's end; tick labels above and below, grid lines between.
fn dots(svg: &mut Svg, chart: &Chart) {
    let longest = chart.rows.iter().map(|r| r.label.chars().count().min(DOT_LABEL_CHARS)).max().unwrap_or(0);
    let x0 = (16.0 + 5.6 * longest as f64).clamp(90.0, 270.0);
    let width = WIDTH - x0 - 150.0;
    let (end, step) = axis_end(chart.rows.iter().map(top).fold(0.0, f64::max), chart.unit);
    let scale = |v: f64| x0 + width * (v / end).clamp(0.0, 1.0);
    let ticks: Vec<f64> = (0..).map(|k| k as f64 * step).take_while(|v| *v <= end + step * 1e-6).collect();
    for v in &ticks {
        svg.text(scale(*v), svg.y + 10.0, "middle", " font-size=\"10\"", &tick_text(*v, chart.unit));
    }
    svg.y += 16.0;
    let plot_top = svg.y;
    let (mut shading, mut g) = (String::new(), String::new());
    for (k, r) in chart.rows.iter().enumerate() {
        let mid = svg.y + DOT_ROW / 2.0;
        let mut label: String = r.label.chars().take(DOT_LABEL_CHARS).collect();
        if label.len() < r.label.len() {
            label.pop();
            label.push('…');
        }
        // Every other row shaded, so that a row can be followed from its name to its dot.
        if k % 2 == 1 {
            let _ = writeln!(
                shading,
                "<rect x=\"4\" y=\"{:.1}\" width=\"{:.1}\" height=\"{DOT_ROW}\" fill=\"#f2f2f2\"/>",
                svg.y,
                WIDTH - 8.0
            );
        }
        let ink = if r.small { FAINT } else { INK };
        let mut mark =
            format!("<text x=\"8\" y=\"{:.1}\" fill=\"{ink}\" font-size=\"10\">{}</text>", mid + 3.5, escape(&label));
        if let (Some(lo), Some(hi)) = (r.low, r.high) {
            let (a, b) = (scale(lo), scale(hi));
            let _ = write!(
                mark,
                "<path d=\"M{a:.1} {mid:.1}H{b:.1}M{a:.1} {:.1}V{:.1}M{b:.1} {:.1}V{:.1}\" stroke=\"{}\" stroke-width=\"1\" fill=\"none\"/>",
                mid - 3.0,
                mid + 3.0,
                mid - 3.0,
                mid + 3.0,
                if r.small { SMALL } else { INK }
            );
        }
        if let Some(v) = r.magnitude {
            let fill = if r.small { "#ffffff" } else { ONE_SERIES };
            let stroke = if r.small { FAINT } else { ONE_SERIES };
            let _ = write!(
                mark,
                "<circle cx=\"{:.1}\" cy=\"{mid:.1}\" r=\"3.2\" fill=\"{fill}\" stroke=\"{stroke}\"/>",
                scale(v)
            );
        }
        let note = if r.small { " · few" } else { "" };
        let _ = write!(
            mark,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{ink}\" font-size=\"10\">{} ({}/{}){note}</text>",
            x0 + width + 10.0,
            mid + 3.5,
            escape(&r.value),
            r.count,
            r.games
        );
        let _ = writeln!(
            g,
            "<g class=\"row\" {}><title>{}</title>{mark}</g>",
            data_attributes(r),
            escape(&tooltip(chart, r))
        );
        svg.y += DOT_ROW;
    }
    if chart.rows.is_empty() {
        svg.text(x0, svg.y + 14.0, "start", "", "no games");
        svg.y += 22.0;
    }
    // Shading first, then the grid, then the rows' marks.
    svg.body.push_str(&shading);
    for v in &ticks {
        let x = scale(*v);
        let _ = writeln!(
            svg.body,
            "<line x1=\"{x:.1}\" y1=\"{plot_top:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{GRID}\"/>",
            svg.y
        );
    }
    svg.body.push_str(&g);
    for v in &ticks {
        svg.text(scale(*v), svg.y + 12.0, "middle", " font-size=\"10\"", &tick_text(*v, chart.unit));
    }
    svg.text(x0 + width / 2.0, svg.y + 28.0, "middle", "", &chart.axis);
    svg.y += 36.0;
}

/// A vertical plot area: y axis with grid lines; returns the scale from value to y.
fn y_axis(
    svg: &mut Svg,
    x0: f64,
    width: f64,
    height: f64,
    axis: (f64, f64),
    unit: Measure,
    label: &str,
) -> impl Fn(f64) -> f64 + use<> {
    let top = svg.y;
    let (end, step) = axis;
    let mut v = 0.0;
    while v <= end + step * 1e-6 {
        let y = top + height - height * v / end;
        let _ = writeln!(
            svg.body,
            "<line x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{GRID}\"/>",
            x0 + width
        );
        svg.text(x0 - 6.0, y + 4.0, "end", " font-size=\"11\"", &tick_text(v, unit));
        v += step;
    }
    let (cx, cy) = (16.0, top + height / 2.0);
    svg.text(cx, cy, "middle", &format!(" font-size=\"10\" transform=\"rotate(-90 {cx} {cy:.1})\""), label);
    move |v: f64| top + height - height * (v / end).clamp(0.0, 1.0)
}

/// Labels along an x axis, thinned to about `max` of them.
fn x_labels(svg: &mut Svg, xs: &[(f64, &str)], y: f64, max: usize) {
    let every = xs.len().div_ceil(max.max(1)).max(1);
    let mut last: Option<f64> = None;
    for (i, (x, label)) in xs.iter().enumerate() {
        // Every n-th label, and none closer to the previous one than its own width.
        let room = 7.0 * label.chars().count() as f64;
        if i % every == 0 && last.is_none_or(|l| x - l >= room) {
            svg.text(*x, y, "middle", " font-size=\"11\"", label);
            last = Some(*x);
        }
    }
}

/// A histogram: columns in label order, a label's series side by side.
fn columns(svg: &mut Svg, chart: &Chart) {
    let (x0, width, height) = (70.0, 670.0, 220.0);
    let axis = axis_end(chart.rows.iter().map(top).fold(0.0, f64::max), chart.unit);
    let plot_top = svg.y;
    let y = y_axis(svg, x0, width, height, axis, chart.unit, &chart.axis);
    let labels = labels(&chart.rows);
    let slot = width / labels.len().max(1) as f64;
    let per = chart.series.len().max(1) as f64;
    let bar = (slot - 4.0) / per;
    let mut xs = Vec::new();
    for (k, label) in labels.iter().enumerate() {
        let left = x0 + slot * k as f64 + 2.0;
        xs.push((left + slot / 2.0 - 2.0, *label));
        for (j, r) in chart.rows.iter().filter(|r| r.label == *label).enumerate() {
            let x = left + bar * j as f64;
            let top_y = y(r.magnitude.unwrap_or(0.0));
            let mut mark = format!(
                "<rect x=\"{x:.1}\" y=\"{top_y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"/>",
                (bar - 1.0).max(1.0),
                (plot_top + height - top_y).max(0.0),
                colour(chart, r)
            );
            if let (Some(lo), Some(hi)) = (r.low, r.high) {
                let mid = x + bar / 2.0;
                let _ = write!(
                    mark,
                    "<path d=\"M{mid:.1} {:.1}V{:.1}\" stroke=\"{INK}\" stroke-width=\"1\"/>",
                    y(lo),
                    y(hi)
                );
            }
            let _ = writeln!(
                svg.body,
                "<g class=\"row\" {}><title>{}</title>{mark}</g>",
                data_attributes(r),
                escape(&tooltip(chart, r))
            );
        }
    }
    svg.y = plot_top + height;
    x_labels(svg, &xs, svg.y + 14.0, 20);
    svg.text(x0 + width / 2.0, svg.y + 30.0, "middle", "", chart.label_header);
    svg.y += 38.0;
}

/// One bar per label split into its series' shares.
fn stacked(svg: &mut Svg, chart: &Chart) {
    let (x0, width) = (170.0, 560.0);
    let plot_top = svg.y;
    let mut g = String::new();
    for label in labels(&chart.rows) {
        let _ = writeln!(
            g,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"{INK}\">{}</text>",
            x0 - 8.0,
            svg.y + 14.0,
            escape(label)
        );
        let mut x = x0;
        for r in chart.rows.iter().filter(|r| r.label == label) {
            let w = width * r.magnitude.unwrap_or(0.0) / 100.0;
            let fill = colour(chart, r);
            let text = if w > 34.0 {
                format!(
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#ffffff\" font-size=\"11\">{}</text>",
                    x + w / 2.0,
                    svg.y + 14.0,
                    escape(&r.value)
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                g,
                "<g class=\"row\" {}><title>{}</title><rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.2}\" height=\"20\" fill=\"{fill}\"/>{text}</g>",
                data_attributes(r),
                escape(&tooltip(chart, r)),
                svg.y
            );
            x += w;
        }
        svg.y += 26.0;
    }
    x_axis(svg, x0, width, (100.0, 25.0), plot_top, Measure::Percent, &chart.axis);
    svg.body.push_str(&g);
}

/// Lines over periods (one per series, with its 95% band), or shares stacked over them.
fn over_time(svg: &mut Svg, chart: &Chart) {
    let (x0, width, height) = (70.0, 660.0, 220.0);
    let area = chart.kind == Kind::Area;
    let axis = if area { (100.0, 25.0) } else { axis_end(chart.rows.iter().map(top).fold(0.0, f64::max), chart.unit) };
    let plot_top = svg.y;
    let y = y_axis(svg, x0, width, height, axis, chart.unit, &chart.axis);
    let mut periods: Vec<&str> = chart.rows.iter().map(|r| r.label.as_str()).collect();
    periods.sort_unstable();
    periods.dedup();
    // Placed in time, not side by side: a gap of years shows as one.
    let (first, last) = (periods.first().map_or(0, |p| month_index(p)), periods.last().map_or(0, |p| month_index(p)));
    let x_of = |label: &str| {
        if last > first {
            x0 + width * (month_index(label) - first) as f64 / (last - first) as f64
        } else {
            x0 + width / 2.0
        }
    };
    let names: Vec<Option<&str>> =
        if chart.series.is_empty() { vec![None] } else { chart.series.iter().map(|s| Some(s.as_str())).collect() };
    let mut below: Vec<f64> = vec![0.0; periods.len()];
    for (i, name) in names.iter().enumerate() {
        let rows: Vec<&Row> = chart.rows.iter().filter(|r| r.series.as_deref() == *name).collect();
        let fill = if name.is_some() { PALETTE[i % PALETTE.len()] } else { ONE_SERIES };
        if area && periods.len() == 1 {
            // One period: its mix as a stacked column, since an area needs two.
            let share = rows.first().and_then(|r| r.magnitude).unwrap_or(0.0);
            let (top_y, bottom_y) = (y(below[0] + share), y(below[0]));
            below[0] += share;
            let _ = writeln!(
                svg.body,
                "<rect x=\"{:.1}\" y=\"{top_y:.1}\" width=\"40\" height=\"{:.1}\" fill=\"{fill}\"/>",
                x_of(periods[0]) - 20.0,
                bottom_y - top_y
            );
        } else if area {
            let mut upper = Vec::new();
            let mut lower = Vec::new();
            for (k, p) in periods.iter().enumerate() {
                let share = rows.iter().find(|r| r.label == *p).and_then(|r| r.magnitude).unwrap_or(0.0);
                lower.push(format!("{:.1},{:.1}", x_of(p), y(below[k])));
                below[k] += share;
                upper.push(format!("{:.1},{:.1}", x_of(p), y(below[k])));
            }
            lower.reverse();
            let _ = writeln!(
                svg.body,
                "<polygon points=\"{} {}\" fill=\"{fill}\" fill-opacity=\"0.85\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>",
                upper.join(" "),
                lower.join(" ")
            );
        } else {
            // The line and its band join the periods with enough games; the others are hollow
            // points only, not drawn as if as sure.
            let with: Vec<&&Row> = rows.iter().filter(|r| r.magnitude.is_some() && !r.small).collect();
            let band: Vec<String> = with
                .iter()
                .map(|r| format!("{:.1},{:.1}", x_of(&r.label), y(r.high.unwrap_or(0.0))))
                .chain(with.iter().rev().map(|r| format!("{:.1},{:.1}", x_of(&r.label), y(r.low.unwrap_or(0.0)))))
                .collect();
            if with.len() > 1 {
                let _ = writeln!(
                    svg.body,
                    "<polygon points=\"{}\" fill=\"{fill}\" fill-opacity=\"0.15\"/>",
                    band.join(" ")
                );
                let line: Vec<String> = with
                    .iter()
                    .map(|r| format!("{:.1},{:.1}", x_of(&r.label), y(r.magnitude.unwrap_or(0.0))))
                    .collect();
                let _ = writeln!(
                    svg.body,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"{fill}\" stroke-width=\"1.8\"/>",
                    line.join(" ")
                );
            }
        }
    }
    // The marks in the rows' order (what the terminal table lists), over the lines and areas.
    for r in &chart.rows {
        let i = r.series.as_ref().and_then(|s| chart.series.iter().position(|x| x == s));
        let fill = i.map_or(ONE_SERIES, |i| PALETTE[i % PALETTE.len()]);
        let mark = match (area, r.magnitude) {
            (false, Some(v)) => format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\" stroke=\"{fill}\"/>",
                x_of(&r.label),
                y(v),
                if r.small { "#ffffff" } else { fill }
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            svg.body,
            "<g class=\"row\" {}><title>{}</title>{mark}</g>",
            data_attributes(r),
            escape(&tooltip(chart, r))
        );
    }
    if periods.is_empty() {
        svg.text(x0 + width / 2.0, plot_top + height / 2.0, "middle", "", "no dated games");
    }
    svg.y = plot_top + height;
    let xs: Vec<(f64, &str)> = periods.iter().map(|p| (x_of(p), *p)).collect();
    x_labels(svg, &xs, svg.y + 14.0, 12);
    svg.text(x0 + width / 2.0, svg.y + 30.0, "middle", "", chart.label_header);
    svg.y += 38.0;
}

/// `YYYY-MM` or `YYYY` as months since year 0.
fn month_index(period: &str) -> i64 {
    let year: i64 = period.get(..4).and_then(|y| y.parse().ok()).unwrap_or(0);
    let month: i64 = period.get(5..7).and_then(|m| m.parse().ok()).unwrap_or(1);
    year * 12 + month - 1
}

/// The chart as a standalone SVG document (no XML declaration: it is inlined in the page too).
pub fn render(chart: &Chart) -> String {
    let mut svg = Svg { body: String::new(), y: 0.0 };
    svg.heading(chart);
    svg.legend(&chart.series);
    match chart.kind {
        Kind::Bars | Kind::Table => bars(&mut svg, chart),
        Kind::Columns => columns(&mut svg, chart),
        Kind::Stacked => stacked(&mut svg, chart),
        Kind::Lines | Kind::Area => over_time(&mut svg, chart),
        Kind::Dots => dots(&mut svg, chart),
    }
    svg.finish(chart)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_end_on_round_numbers() {
        assert_eq!(axis_end(7.3, Measure::Percent), (8.0, 2.0));
        assert_eq!(axis_end(73.0, Measure::Percent), (80.0, 20.0));
        assert_eq!(axis_end(99.5, Measure::Percent), (100.0, 20.0));
        assert_eq!(axis_end(0.0, Measure::Per1000), (1.0, 0.2));
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
    }
}
