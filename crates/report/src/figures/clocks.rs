//! The clocks' and evaluations' figures: was a claim missed in time trouble, or to play for a
//! win? The bands ([`threefold_count::clocks`]) are those of `queries/missed_claims_by_clock.sql`
//! and `missed_claims_by_eval.sql`.

use threefold_count::model::{Clocks, Report};

use super::chart::{Chart, Kind, Measure, Row, Rows, games_text, sets, thousands};

/// Headline rows: how many games have clocks and evaluations, and the two sharpest figures.
pub(crate) fn headline_rows(c: &Clocks, s: Option<&str>, b: Rows) -> Vec<Row> {
    let quick = &c.first_claim_by_clock[0];
    let better = &c.first_missed_by_eval[2];
    vec![
        b.count("Games with a clock after every move", s, c.games_with_clocks, c.games_with_clocks),
        b.rate(
            "First claim missed with < 10 s on the claimant's clock (share)",
            s,
            quick.passed_over,
            quick.games,
            Measure::Percent,
        ),
        b.count("Games with an engine evaluation", s, c.games_with_evals, c.games_with_evals),
        b.score("Claimant's average score after passing over a claim when clearly better", s, &better.claimant),
    ]
}

/// The two charts.
pub(crate) fn charts(r: &Report, b: Rows) -> Vec<Chart> {
    let c = &r.all.clocks;
    let with_claim: u64 = c.first_claim_by_clock.iter().map(|x| x.games).sum();
    let missed: u64 = c.first_missed_by_eval.iter().map(|x| x.games).sum();
    let series: Vec<String> = r.groups.iter().map(|g| g.label.clone()).collect();
    let side_by_side = |f: &dyn Fn(Option<&str>, &Clocks) -> Vec<Row>| -> Vec<Row> {
        let rows: Vec<Vec<Row>> = sets(r).into_iter().map(|(s, st)| f(s, &st.clocks)).collect();
        // Each band's groups together.
        let bands = rows.first().map_or(0, Vec::len);
        (0..bands).flat_map(|i| rows.iter().filter_map(move |set| set.get(i).cloned())).collect()
    };
    vec![
        Chart {
            id: "first_claim_by_clock".into(),
            title: "First claim missed, by the claimant's remaining time".into(),
            over: format!(
                "over the {} with a claim opportunity among the {} with a clock after every move",
                games_text(with_claim),
                thousands(c.games_with_clocks)
            ),
            label_header: "clock",
            count_header: "missed",
            kind: Kind::Bars,
            unit: Measure::Percent,
            axis: "share of games with a first claim in the band (95% interval)".into(),
            series: series.clone(),
            rows: side_by_side(&|s, c| {
                c.first_claim_by_clock
                    .iter()
                    .map(|x| b.rate(&x.label, s, x.passed_over, x.games, Measure::Percent))
                    .collect()
            }),
            by_group: Vec::new(),
        },
        Chart {
            id: "first_missed_by_eval".into(),
            title: "Claimant's average score after passing over the first claim, by evaluation".into(),
            over: format!(
                "over the {} with a missed claim among the {} with an evaluation (claimant's side: clearly worse < -1.00 < about equal < +1.00 < clearly better)",
                games_text(missed),
                thousands(c.games_with_evals)
            ),
            label_header: "evaluation",
            count_header: "scored",
            kind: Kind::Bars,
            unit: Measure::Score,
            axis: "average score (1 a win, 0.5 a draw)".into(),
            series,
            rows: side_by_side(&|s, c| {
                c.first_missed_by_eval.iter().map(|x| b.score(&x.label, s, &x.claimant)).collect()
            }),
            by_group: Vec::new(),
        },
    ]
}
