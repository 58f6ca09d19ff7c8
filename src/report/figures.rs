//! The report as figures: titled lists of rows, each with its value already formatted and the
//! number of games it is computed over. The terminal table and the HTML charts both draw these
//! same rows, so a number can only be printed one way.

use super::model::{Group, Rates, Report};
use crate::engine::event::Perpetual;

/// One figure: a bar in a chart, or a line of the headline table.
#[derive(Debug, Clone)]
pub struct Row {
    pub label: String,
    /// Formatted value: `6.6%`, `0.54` (per 1,000 games), `0.487` (score) or a plain count.
    pub value: String,
    /// What the value counts (games, opportunities, ...), as a number.
    pub count: u64,
    /// Games the figure is computed over.
    pub games: u64,
    /// Bar length relative to the chart's longest bar (0..=1).
    pub bar: f64,
}

#[derive(Debug, Clone)]
pub struct Chart {
    /// Stable name (HTML id, tests).
    pub id: &'static str,
    pub title: String,
    /// What the figures are computed over, in words.
    pub over: String,
    /// Header of the label column.
    pub label_header: &'static str,
    /// Header of the count column.
    pub count_header: &'static str,
    /// Drawn as bars (else a plain table: the headline figures mix units).
    pub bars: bool,
    pub rows: Vec<Row>,
}

fn pct(n: u64, d: u64) -> (String, f64) {
    if d == 0 {
        return ("n/a".into(), 0.0);
    }
    let v = 100.0 * n as f64 / d as f64;
    (format!("{v:.1}%"), v)
}

fn per_1000(n: u64, d: u64) -> (String, f64) {
    if d == 0 {
        return ("n/a".into(), 0.0);
    }
    let v = 1000.0 * n as f64 / d as f64;
    (format!("{v:.2}"), v)
}

/// A row from a (text, magnitude) pair; `bar` is scaled later by [`scaled`].
fn row(label: impl Into<String>, (value, magnitude): (String, f64), count: u64, games: u64) -> Row {
    Row { label: label.into(), value, count, games, bar: magnitude }
}

/// Scales the bars so the longest is 1: small shares stay visible.
fn scaled(mut rows: Vec<Row>) -> Vec<Row> {
    let max = rows.iter().map(|r| r.bar).fold(0.0, f64::max);
    for r in &mut rows {
        r.bar = if max > 0.0 { r.bar / max } else { 0.0 };
    }
    rows
}

fn games_text(n: u64) -> String {
    format!("{n} game{}", if n == 1 { "" } else { "s" })
}

fn replayed_text(r: &Report) -> String {
    format!("over {} (status ok or error; {} skipped variant(s) left out)", games_text(r.overall.games), r.skipped)
}

fn group_rows(groups: &[Group], f: impl Fn(&Rates) -> (u64, u64)) -> Vec<Row> {
    scaled(
        groups
            .iter()
            .map(|g| {
                let (n, d) = f(&g.rates);
                row(&g.label, pct(n, d), n, d)
            })
            .collect(),
    )
}

fn headline(r: &Report) -> Chart {
    let o = &r.overall;
    let c = &r.claims;
    let g = o.games;
    let mut rows = vec![
        row("Games replayed", (g.to_string(), 0.0), g, r.rows),
        row("Reached a threefold (position 3× on the board)", pct(o.threefold, g), o.threefold, g),
        row("Reached a fivefold", pct(o.fivefold, g), o.fivefold, g),
        row("A threefold claim was available", pct(o.with_claim, g), o.with_claim, g),
        row(
            "Play went on after a claim (share of games with a claim)",
            pct(o.missed, o.with_claim),
            o.missed,
            o.with_claim,
        ),
        row(
            "Claim opportunities only by declaring a move (share of opportunities)",
            pct(c.by_move_only, c.opportunities),
            c.by_move_only,
            o.with_claim,
        ),
        row(
            "Games whose every claim needed a declared move",
            pct(c.games_only_by_move, o.with_claim),
            c.games_only_by_move,
            o.with_claim,
        ),
    ];
    let average = r.claimant.average().map_or("n/a".into(), |a| format!("{a:.3}"));
    rows.push(row(
        "Claimant's average score after missing the first claim",
        (average, 0.0),
        r.claimant.games,
        r.claimant.games,
    ));
    rows.push(row("Drawn games with an inferred reason", pct(r.drawn, g), r.drawn, g));
    rows.push(row(
        "Castling-rights pseudo-repetitions, games per 1,000",
        per_1000(r.castling.games, g),
        r.castling.games,
        g,
    ));
    rows.push(row("E.p. pseudo-repetitions, games per 1,000", per_1000(r.en_passant.games, g), r.en_passant.games, g));
    rows.push(row(
        "Hidden repetitions (FEN e.p. field), games per 1,000",
        per_1000(r.hidden.games, g),
        r.hidden.games,
        g,
    ));
    rows.push(row("Went on after a fivefold, games per 1,000", per_1000(r.after_fivefold, g), r.after_fivefold, g));
    rows.push(row(
        "Went on after the 75-move rule, games per 1,000",
        per_1000(r.after_75_moves, g),
        r.after_75_moves,
        g,
    ));
    rows.extend(super::clocks::headline_rows(&r.clocks));
    Chart {
        id: "headline",
        title: "Headline figures".into(),
        over: replayed_text(r),
        label_header: "figure",
        count_header: "count",
        bars: false,
        rows,
    }
}

/// Threefold and fivefold draws by who gave perpetual check over the first threefold's moves.
fn perpetual(r: &Report) -> Chart {
    let draws: u64 = r.repetition_draws_by_perpetual.iter().map(|c| c.games).sum();
    let label = |kind: &str| match Perpetual::parse(kind) {
        Some(Perpetual::White) => "perpetual check by White",
        Some(Perpetual::Black) => "perpetual check by Black",
        Some(Perpetual::Both) => "perpetual check by both sides",
        None => "no perpetual check",
    };
    Chart {
        id: "repetition_draws_by_perpetual",
        title: "Threefold and fivefold draws: perpetual check or not (moves to the first threefold)".into(),
        over: format!("over the {} drawn by threefold or fivefold", games_text(draws)),
        label_header: "kind",
        count_header: "games",
        bars: true,
        rows: scaled(
            r.repetition_draws_by_perpetual
                .iter()
                .map(|c| row(label(&c.label), pct(c.games, draws), c.games, draws))
                .collect(),
        ),
    }
}

/// Every figure of the report, in display order.
pub fn charts(r: &Report) -> Vec<Chart> {
    let mut all = vec![headline(r)];
    all.extend(rate_charts(r));
    all.extend(share_charts(r));
    all.extend(super::clocks::charts(&r.clocks));
    all
}

/// A chart of bars.
fn chart(
    id: &'static str,
    title: &str,
    over: String,
    label_header: &'static str,
    count_header: &'static str,
    rows: Vec<Row>,
) -> Chart {
    Chart { id, title: title.into(), over, label_header, count_header, bars: true, rows }
}

fn with_claim_text(r: &Report) -> String {
    format!("over the {} with a claim opportunity", games_text(r.overall.with_claim))
}

/// Rates by rating band and by time class.
fn rate_charts(r: &Report) -> Vec<Chart> {
    let with_claim = with_claim_text(r);
    vec![
        chart(
            "threefold_by_rating_band",
            "Games reaching a threefold, by rating band (lower Elo)",
            replayed_text(r),
            "rating band",
            "threefold",
            group_rows(&r.by_rating_band, |x| (x.threefold, x.games)),
        ),
        chart(
            "threefold_by_time_class",
            "Games reaching a threefold, by time class",
            replayed_text(r),
            "time class",
            "threefold",
            group_rows(&r.by_time_class, |x| (x.threefold, x.games)),
        ),
        chart(
            "missed_by_rating_band",
            "Play went on after a claim was available, by rating band",
            with_claim.clone(),
            "rating band",
            "missed",
            group_rows(&r.by_rating_band, |x| (x.missed, x.with_claim)),
        ),
        chart(
            "missed_by_time_class",
            "Play went on after a claim was available, by time class",
            with_claim.clone(),
            "time class",
            "missed",
            group_rows(&r.by_time_class, |x| (x.missed, x.with_claim)),
        ),
    ]
}

/// Shares: draw reasons, the claimants' results, kinds of claim, edge cases, first threefolds.
fn share_charts(r: &Report) -> Vec<Chart> {
    let with_claim = with_claim_text(r);
    let c = &r.claims;
    let threefold_games: u64 = r.first_threefold_ply.iter().map(|b| b.games).sum();
    vec![
        chart(
            "draw_reasons",
            "Draw reasons (inferred from the final position)",
            format!("over the {} drawn without a replay error", games_text(r.drawn)),
            "reason",
            "games",
            scaled(r.draw_reasons.iter().map(|d| row(&d.label, pct(d.games, r.drawn), d.games, r.drawn)).collect()),
        ),
        perpetual(r),
        chart(
            "claimant_outcome",
            "Final result of the player who let the first claim pass",
            format!("over the {} with a missed claim and a known result", games_text(r.claimant.games)),
            "result",
            "games",
            scaled(
                [("win", r.claimant.wins), ("draw", r.claimant.draws), ("loss", r.claimant.losses)]
                    .into_iter()
                    .map(|(label, n)| row(label, pct(n, r.claimant.games), n, r.claimant.games))
                    .collect(),
            ),
        ),
        chart(
            "claim_kinds",
            "Claim opportunities: on the board (9.2.1.2) or only by declaring a move (9.2.1.1)",
            format!("{} opportunities (plies), {with_claim}", c.opportunities),
            "opportunity",
            "plies",
            scaled(vec![
                row("on the board", pct(c.on_board, c.opportunities), c.on_board, r.overall.with_claim),
                row(
                    "only by declaring a move",
                    pct(c.by_move_only, c.opportunities),
                    c.by_move_only,
                    r.overall.with_claim,
                ),
            ]),
        ),
        chart(
            "edge_cases",
            "Edge cases, games per 1,000",
            replayed_text(r),
            "case",
            "games",
            scaled(
                [
                    ("castling rights differ", r.castling.games),
                    ("e.p. right differs", r.en_passant.games),
                    ("hidden repetition (FEN e.p.)", r.hidden.games),
                    ("went on after fivefold", r.after_fivefold),
                    ("went on after 75 moves", r.after_75_moves),
                ]
                .into_iter()
                .map(|(label, n)| row(label, per_1000(n, r.overall.games), n, r.overall.games))
                .collect(),
            ),
        ),
        chart(
            "first_threefold_ply",
            "Ply of the first threefold, buckets of 10 plies",
            format!("over the {} reaching a threefold", games_text(threefold_games)),
            "plies",
            "games",
            scaled(
                r.first_threefold_ply
                    .iter()
                    .map(|b| {
                        row(
                            format!("{}-{}", b.from_ply, b.from_ply + 9),
                            pct(b.games, threefold_games),
                            b.games,
                            threefold_games,
                        )
                    })
                    .collect(),
            ),
        ),
    ]
}
