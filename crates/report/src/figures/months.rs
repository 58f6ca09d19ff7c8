//! The figures over time: per month of the game's date (per year beyond [`MAX_MONTHS`]), the
//! threefold rate and the missed-claim rate as lines (one per group) and the draw-reason mix as
//! stacked areas (one chart per group).

use super::{
    chart::{Chart, Kind, Measure, Row, Rows, chart, games_text, replayed_text, sets, with_claim_text},
    model::{Month, Report},
    shares::reason_order,
};

/// Months become years when there are more than this many (a century of OTB games).
const MAX_MONTHS: usize = 120;

/// The months of a set of games, or its years when the months would be too many to draw.
fn periods(months: &[Month], by_year: bool) -> Vec<Month> {
    if !by_year {
        return months.to_vec();
    }
    let mut years: Vec<Month> = Vec::new();
    for m in months {
        let year = &m.month[..4];
        if years.last().is_none_or(|y| y.month != year) {
            years.push(Month { month: year.to_owned(), ..Month::default() });
        }
        let Some(y) = years.last_mut() else { continue };
        y.rates.add(&m.rates);
        y.drawn += m.drawn;
        for c in &m.draw_reasons {
            match y.draw_reasons.iter_mut().find(|x| x.label == c.label) {
                Some(x) => x.games += c.games,
                None => y.draw_reasons.push(c.clone()),
            }
        }
    }
    years
}

/// The rate of threefolds and of missed claims per month, and the draw-reason mix per month.
pub(crate) fn charts(r: &Report, b: Rows) -> Vec<Chart> {
    let mut labels: Vec<String> =
        sets(r).iter().flat_map(|(_, st)| st.by_month.iter().map(|m| m.month.clone())).collect();
    labels.sort();
    labels.dedup();
    let by_year = labels.len() > MAX_MONTHS;
    let (period, header) = if by_year { ("year", "year") } else { ("month", "month") };
    let undated: u64 = r.all.undated;
    let dated = format!(
        "by {period} of the game's date (UTCDate, else a full Date); {} without one left out",
        games_text(undated)
    );
    let series_rows = |f: &dyn Fn(&Month, Option<&str>) -> Row| -> Vec<Row> {
        let mut rows: Vec<Row> = sets(r)
            .into_iter()
            .flat_map(|(s, st)| periods(&st.by_month, by_year).into_iter().map(move |m| f(&m, s)).collect::<Vec<_>>())
            .collect();
        rows.sort_by(|a, b| a.label.cmp(&b.label));
        rows
    };
    let mut charts = vec![
        chart(
            r,
            "threefold_by_month",
            &format!("Games reaching a threefold, by {period}"),
            format!("{}, {dated}", replayed_text(r)),
            header,
            "threefold",
            Kind::Lines,
            Measure::Percent,
            "share of games (95% interval)",
            series_rows(&|m, s| b.rate(&m.month, s, m.rates.threefold, m.rates.games, Measure::Percent)),
        ),
        chart(
            r,
            "missed_by_month",
            &format!("Play went on after a claim was available, by {period}"),
            format!("{}, {dated}", with_claim_text(r)),
            header,
            "missed",
            Kind::Lines,
            Measure::Percent,
            "share of games with a claim (95% interval)",
            series_rows(&|m, s| b.rate(&m.month, s, m.rates.missed, m.rates.with_claim, Measure::Percent)),
        ),
    ];
    for (i, (s, st)) in sets(r).into_iter().enumerate() {
        // Periods without a drawn game have no mix to show.
        let months: Vec<Month> = periods(&st.by_month, by_year).into_iter().filter(|m| m.drawn > 0).collect();
        let reasons = reason_order(months.iter().flat_map(|m| m.draw_reasons.iter()));
        let rows = months
            .iter()
            .flat_map(|m| {
                reasons.iter().map(move |reason| {
                    let n = m.draw_reasons.iter().find(|c| c.label == *reason).map_or(0, |c| c.games);
                    b.rate(&m.month, Some(reason), n, m.drawn, Measure::Percent)
                })
            })
            .collect();
        let drawn: u64 = months.iter().map(|m| m.drawn).sum();
        charts.push(Chart {
            id: if s.is_some() { format!("draw_mix_by_month_{}", i + 1) } else { "draw_mix_by_month".into() },
            title: match s {
                Some(s) => format!("How draws ended, by {period}: {s}"),
                None => format!("How draws ended, by {period}"),
            },
            over: format!("over the {} drawn with an inferred reason, {dated}", games_text(drawn)),
            label_header: header,
            count_header: "games",
            kind: Kind::Area,
            unit: Measure::Percent,
            axis: "share of drawn games".into(),
            series: reasons,
            rows,
            by_group: Vec::new(),
        });
    }
    charts
}
