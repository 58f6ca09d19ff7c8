//! The report's figures, in display order: the headline table, the rates by rating band and
//! time class, then the months', the shares' and the clocks' charts, with the groups (if any)
//! side by side. Beyond a dozen groups [`many`] lays the same charts out with groups as rows.
//! The rows and charts themselves are built with [`chart`] (95% Wilson [`interval`]s);
//! [`answers`] puts the main ones in sentences.

pub(crate) mod answers;
pub(crate) mod chart;
mod clocks;
mod interval;
pub(crate) mod many;
mod months;
mod shares;

// The counts the figures are made of, under the names the figures' modules use.
use threefold_count::{model, tally};

use self::{
    chart::{Chart, Kind, Measure, Row, Rows, chart, per_set, replayed_text, side_by_side, with_claim_text},
    model::{Group, Rates, Report, Stats},
};

/// Every figure with the groups (if any) side by side.
pub(super) fn side_by_side_charts(r: &Report) -> Vec<Chart> {
    let b = Rows { min_games: r.min_games };
    let mut all = vec![headline(r, b)];
    all.extend(headline_by_venue(r, b));
    all.extend(rate_charts(r, b));
    all.extend(months::charts(r, b));
    all.extend(shares::charts(r, b));
    all.extend(clocks::charts(r, b));
    // A chart with no games behind any of its bars says nothing (no clocks in the data, say).
    all.retain(|c| c.kind == Kind::Table || c.rows.iter().any(|row| row.games > 0));
    all
}

fn headline(r: &Report, b: Rows) -> Chart {
    let mut sets: Vec<(Option<&str>, &Stats)> = vec![(None, &r.all)];
    if !r.groups.is_empty() {
        sets = vec![(Some("all"), &r.all)];
        sets.extend(r.groups.iter().map(|g| (Some(g.label.as_str()), &g.stats)));
    }
    let mut per_series = Vec::new();
    for (s, st) in &sets {
        let mut rows = Vec::new();
        let (o, c, g) = (&st.overall, &st.claims, st.overall.games);
        rows.push(b.count("Games replayed", *s, g, r.matched));
        rows.push(b.rate("Reached a threefold (position 3× on the board)", *s, o.threefold, g, Measure::Percent));
        rows.push(b.rate("Reached a fivefold", *s, o.fivefold, g, Measure::Percent));
        rows.push(b.rate("A threefold claim was available", *s, o.with_claim, g, Measure::Percent));
        rows.push(b.rate(
            "Play went on after a claim (share of games with a claim)",
            *s,
            o.missed,
            o.with_claim,
            Measure::Percent,
        ));
        rows.push(b.rate(
            "Claim opportunities only by declaring a move (share of opportunities)",
            *s,
            c.by_move_only,
            c.opportunities,
            Measure::Percent,
        ));
        rows.push(b.rate(
            "Games whose every claim needed a declared move",
            *s,
            c.games_only_by_move,
            o.with_claim,
            Measure::Percent,
        ));
        rows.push(b.score("Claimant's average score after missing the first claim", *s, &st.claimant));
        rows.push(b.rate("Drawn games with an inferred reason", *s, st.drawn, g, Measure::Percent));
        rows.push(b.rate(
            "Castling-rights pseudo-repetitions, games per 1,000",
            *s,
            st.castling.games,
            g,
            Measure::Per1000,
        ));
        rows.push(b.rate("E.p. pseudo-repetitions, games per 1,000", *s, st.en_passant.games, g, Measure::Per1000));
        rows.push(b.rate(
            "Hidden repetitions (FEN e.p. field), games per 1,000",
            *s,
            st.hidden.games,
            g,
            Measure::Per1000,
        ));
        rows.push(b.rate("Went on after a fivefold, games per 1,000", *s, st.after_fivefold, g, Measure::Per1000));
        rows.push(b.rate(
            "Went on after the 75-move rule, games per 1,000",
            *s,
            st.after_75_moves,
            g,
            Measure::Per1000,
        ));
        rows.extend(clocks::headline_rows(&st.clocks, *s, b));
        per_series.push(rows);
    }
    Chart {
        id: "headline".into(),
        title: "Headline figures".into(),
        over: replayed_text(r),
        label_header: "figure",
        count_header: "count",
        kind: Kind::Table,
        unit: Measure::Percent,
        axis: String::new(),
        series: sets.iter().filter_map(|(s, _)| s.map(str::to_owned)).collect(),
        rows: side_by_side(per_series, r.min_games),
        by_group: Vec::new(),
    }
}

/// The headline's rates per venue, over all the report's games, where they are of more than one
/// venue: who may claim, whether by a declared move, and what ends a game by itself differ by
/// venue (an engine is made to claim, or the program running the match draws or adjudicates), so
/// a pooled rate describes none of them. Each row counts claims as the headline does (the
/// program's left out), but engine play's row, whose every claim is the program's.
fn headline_by_venue(r: &Report, b: Rows) -> Option<Chart> {
    let venues = &r.all.by_venue;
    if venues.len() < 2 {
        return None;
    }
    let per_series = venues
        .iter()
        .map(|v| {
            let (o, s) = (&v.rates, Some(v.label.as_str()));
            vec![
                b.count("Games replayed", s, o.games, o.games),
                b.rate("Reached a threefold (position 3× on the board)", s, o.threefold, o.games, Measure::Percent),
                b.rate("A threefold claim was available", s, o.with_claim, o.games, Measure::Percent),
                b.rate(
                    "Play went on after a claim (share of games with a claim)",
                    s,
                    o.missed,
                    o.with_claim,
                    Measure::Percent,
                ),
                b.rate(
                    "Claims passed over, drawn in the same repetition",
                    s,
                    o.passed_over,
                    o.with_claim,
                    Measure::Percent,
                ),
                b.rate(
                    "Play went on after a claim on the board (share of games with one)",
                    s,
                    o.missed_on_board,
                    o.with_claim_on_board,
                    Measure::Percent,
                ),
                b.rate("Reached a fivefold", s, o.fivefold, o.games, Measure::Percent),
            ]
        })
        .collect();
    Some(Chart {
        id: "headline_by_venue".into(),
        title: "Headline figures by venue (their rules differ: read each apart; the program's claims only in engine \
                play's row)"
            .into(),
        over: replayed_text(r),
        label_header: "figure",
        count_header: "count",
        kind: Kind::Table,
        unit: Measure::Percent,
        axis: String::new(),
        series: venues.iter().map(|v| v.label.clone()).collect(),
        rows: side_by_side(per_series, r.min_games),
        by_group: Vec::new(),
    })
}

fn groups(groups: &[Group], s: Option<&str>, b: Rows, f: impl Fn(&Rates) -> (u64, u64)) -> Vec<Row> {
    groups
        .iter()
        .map(|g| {
            let (n, d) = f(&g.rates);
            b.rate(&g.label, s, n, d, Measure::Percent)
        })
        .collect()
}

/// Rates by rating band and by time class.
fn rate_charts(r: &Report, b: Rows) -> Vec<Chart> {
    let share = "share of games (95% interval)";
    vec![
        chart(
            r,
            "threefold_by_rating_band",
            "Games reaching a threefold, by rating band (lower rating, in each venue's own pool)",
            replayed_text(r),
            "rating band",
            "threefold",
            Kind::Bars,
            Measure::Percent,
            share,
            per_set(r, |s, st| groups(&st.by_rating_band, s, b, |x| (x.threefold, x.games))),
        ),
        chart(
            r,
            "threefold_by_time_class",
            "Games reaching a threefold, by time class",
            replayed_text(r),
            "time class",
            "threefold",
            Kind::Bars,
            Measure::Percent,
            share,
            per_set(r, |s, st| groups(&st.by_time_class, s, b, |x| (x.threefold, x.games))),
        ),
        chart(
            r,
            "missed_by_rating_band",
            "Play went on after a claim was available, by rating band (in each venue's own pool)",
            with_claim_text(r),
            "rating band",
            "missed",
            Kind::Bars,
            Measure::Percent,
            "share of games with a claim (95% interval)",
            per_set(r, |s, st| groups(&st.by_rating_band, s, b, |x| (x.missed, x.with_claim))),
        ),
        chart(
            r,
            "missed_by_time_class",
            "Play went on after a claim was available, by time class",
            with_claim_text(r),
            "time class",
            "missed",
            Kind::Bars,
            Measure::Percent,
            "share of games with a claim (95% interval)",
            per_set(r, |s, st| groups(&st.by_time_class, s, b, |x| (x.missed, x.with_claim))),
        ),
    ]
}
