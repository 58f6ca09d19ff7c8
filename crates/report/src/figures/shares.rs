//! The figures of shares: how draws ended (a stacked bar per group), perpetual checks among
//! repetition draws, the claimant's result, claims on the board or by a declared move, edge cases
//! per 1,000 games and the ply of the first threefold (a histogram with a tail bucket).

use super::{
    chart::{
        Chart, Kind, Measure, Row, Rows, chart, games_text, per_set, replayed_text, sets, thousands, with_claim_text,
    },
    model::{Count, Report},
    tally::NO_PERPETUAL,
};
use threefold_core::engine::event::Perpetual;

/// Draw reasons present, in the engine's order.
pub(crate) fn reason_order<'a>(counts: impl Iterator<Item = &'a Count>) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for c in counts {
        if !labels.contains(&c.label) {
            labels.push(c.label.clone());
        }
    }
    let order = |l: &String| {
        threefold_core::engine::summary::DrawReason::ALL.iter().position(|r| r.as_str() == l).unwrap_or(usize::MAX)
    };
    labels.sort_by_key(|l| (order(l), l.clone()));
    labels
}

/// Buckets of 10 plies up to here; later first threefolds go to one tail bucket.
pub(crate) const PLY_TAIL: u32 = 150;

/// Shares: draw reasons, the claimants' results, kinds of claim, edge cases, first threefolds.
pub(crate) fn charts(r: &Report, b: Rows) -> Vec<Chart> {
    let with_claim = with_claim_text(r);
    let all_sets = sets(r);
    let reasons = reason_order(all_sets.iter().flat_map(|(_, st)| st.draw_reasons.iter()));
    let drawn: u64 = r.all.drawn;
    let mut draw_rows = Vec::new();
    for (s, st) in &all_sets {
        let label = s.unwrap_or("all games");
        for reason in &reasons {
            let n = st.draw_reasons.iter().find(|c| c.label == *reason).map_or(0, |c| c.games);
            draw_rows.push(b.rate(label, Some(reason), n, st.drawn, Measure::Percent));
        }
    }
    let perpetual_label = |kind: &str| match Perpetual::parse(kind) {
        Some(Perpetual::White) => "perpetual check by White",
        Some(Perpetual::Black) => "perpetual check by Black",
        Some(Perpetual::Both) => "perpetual check by both sides",
        None => "no perpetual check",
    };
    let repetition_draws: u64 = r.all.repetition_draws_by_perpetual.iter().map(|c| c.games).sum();
    let threefold_games: u64 = r.all.first_threefold_ply.iter().map(|x| x.games).sum();
    vec![
        Chart {
            id: "draw_reasons".into(),
            title: "How draws ended (inferred from the final position)".into(),
            over: format!("over the {} drawn without a replay error, of {}", games_text(drawn), r.filter_text),
            label_header: "games",
            count_header: "games",
            kind: Kind::Stacked,
            unit: Measure::Percent,
            axis: "share of drawn games".into(),
            series: reasons,
            rows: draw_rows,
            by_group: Vec::new(),
        },
        chart(
            r,
            "repetition_draws_by_perpetual",
            "Threefold and fivefold draws: perpetual check or not (moves to the first threefold)",
            format!("over the {} drawn by threefold or fivefold", games_text(repetition_draws)),
            "kind",
            "games",
            Kind::Bars,
            Measure::Percent,
            "share of repetition draws (95% interval)",
            per_set(r, |s, st| {
                let draws: u64 = st.repetition_draws_by_perpetual.iter().map(|c| c.games).sum();
                st.repetition_draws_by_perpetual
                    .iter()
                    .map(|c| {
                        let label =
                            if c.label == NO_PERPETUAL { "no perpetual check" } else { perpetual_label(&c.label) };
                        b.rate(label, s, c.games, draws, Measure::Percent)
                    })
                    .collect()
            }),
        ),
        chart(
            r,
            "claimant_outcome",
            "Final result of the player who let the first claim pass",
            format!("over the {} with a missed claim and a known result", games_text(r.all.claimant.games)),
            "result",
            "games",
            Kind::Bars,
            Measure::Percent,
            "share of games (95% interval)",
            per_set(r, |s, st| {
                let o = &st.claimant;
                [("win", o.wins), ("draw", o.draws), ("loss", o.losses)]
                    .into_iter()
                    .map(|(label, n)| b.rate(label, s, n, o.games, Measure::Percent))
                    .collect()
            }),
        ),
        chart(
            r,
            "claim_kinds",
            "Claim opportunities: on the board (9.2.1.2) or only by declaring a move (9.2.1.1)",
            format!("{} opportunities (plies), {with_claim}", thousands(r.all.claims.opportunities)),
            "opportunity",
            "plies",
            Kind::Bars,
            Measure::Percent,
            "share of opportunities (95% interval)",
            per_set(r, |s, st| {
                let c = &st.claims;
                vec![
                    b.rate("on the board", s, c.on_board, c.opportunities, Measure::Percent),
                    b.rate("only by declaring a move", s, c.by_move_only, c.opportunities, Measure::Percent),
                ]
            }),
        ),
        chart(
            r,
            "edge_cases",
            "Edge cases, games per 1,000",
            replayed_text(r),
            "case",
            "games",
            Kind::Bars,
            Measure::Per1000,
            "games per 1,000 (95% interval)",
            per_set(r, |s, st| {
                [
                    ("castling rights differ", st.castling.games),
                    ("e.p. right differs", st.en_passant.games),
                    ("hidden repetition (FEN e.p.)", st.hidden.games),
                    ("went on after fivefold", st.after_fivefold),
                    ("went on after 75 moves", st.after_75_moves),
                ]
                .into_iter()
                .map(|(label, n)| b.rate(label, s, n, st.overall.games, Measure::Per1000))
                .collect()
            }),
        ),
        chart(
            r,
            "first_threefold_ply",
            &format!("Ply of the first threefold, buckets of 10 plies, {PLY_TAIL} and later together"),
            format!("over the {} reaching a threefold", games_text(threefold_games)),
            "plies",
            "games",
            Kind::Columns,
            Measure::Percent,
            "share of games reaching a threefold",
            per_set(r, |s, st| {
                let total: u64 = st.first_threefold_ply.iter().map(|x| x.games).sum();
                let mut rows: Vec<Row> = (0..PLY_TAIL / 10)
                    .map(|k| {
                        let from = k * 10;
                        let n = st.first_threefold_ply.iter().find(|x| x.from_ply == from).map_or(0, |x| x.games);
                        b.rate(format!("{from}-{}", from + 9), s, n, total, Measure::Percent)
                    })
                    .collect();
                let tail: u64 = st.first_threefold_ply.iter().filter(|x| x.from_ply >= PLY_TAIL).map(|x| x.games).sum();
                rows.push(b.rate(format!("{PLY_TAIL}+"), s, tail, total, Measure::Percent));
                rows
            }),
        ),
    ]
}
