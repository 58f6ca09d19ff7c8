//! The research questions answered in sentences, with their numbers and 95% intervals: what the
//! page and the terminal open with, before any chart. Each sentence is built from the same rows as
//! the charts ([`Rows`]), so a number reads the same in the sentence and in the chart.

use super::{
    figures::{Row, Rows, Unit, games_text, thousands},
    model::{Rates, Report, Stats},
};

fn with_interval(r: &Row) -> String {
    let few = if r.small { ", few games" } else { "" };
    if r.interval.is_empty() { r.value.clone() } else { format!("{} ({}{few})", r.value, r.interval) }
}

fn rate(b: Rows, n: u64, d: u64, unit: Unit) -> String {
    with_interval(&b.rate("", None, n, d, unit))
}

/// The answers over one set of games.
fn answers(st: &Stats, b: Rows) -> Vec<String> {
    let (o, g) = (&st.overall, st.overall.games);
    let mut out = Vec::new();
    if g == 0 {
        out.push("No replayed game matches: there is nothing to answer.".into());
        return out;
    }
    out.push(format!(
        "How often does a position repeat? {} of the {} replayed reached a threefold repetition (a position \
         stood on the board for the third time, by the FIDE identity), {} a fivefold.",
        rate(b, o.threefold, g, Unit::Percent),
        games_text(g),
        rate(b, o.fivefold, g, Unit::Percent)
    ));
    if o.with_claim > 0 {
        out.push(format!(
            "How often are claims missed? Of the {} in which a threefold could be claimed, {} went on after it.",
            games_text(o.with_claim),
            rate(b, o.missed, o.with_claim, Unit::Percent)
        ));
        let c = &st.claims;
        out.push(format!(
            "{} of the {} claim opportunities could be claimed only by declaring the move that repeats \
             (Art. 9.2.1.1), not on the board; in {} the only chances were of that kind.",
            rate(b, c.by_move_only, c.opportunities, Unit::Percent),
            thousands(c.opportunities),
            games_text(c.games_only_by_move)
        ));
    } else {
        out.push("How often are claims missed? No game offered a threefold claim.".into());
    }
    if let Some(average) = st.claimant.average() {
        let cl = &st.claimant;
        out.push(format!(
            "Did passing over a claim pay? The player who let the first claim pass scored {average:.3} on average \
             over {} ({} wins, {} draws, {} losses).",
            games_text(cl.games),
            thousands(cl.wins),
            thousands(cl.draws),
            thousands(cl.losses)
        ));
    }
    let per_1000 = |n: u64| {
        let r = b.rate("", None, n, g, Unit::Per1000);
        format!("{}: {} per 1,000 games ({})", games_text(n), r.value, r.interval)
    };
    out.push(format!(
        "Do castling and e.p. rights matter? Castling rights made a repeated board a different position in {}; \
         an e.p. right in {}.",
        per_1000(st.castling.games),
        per_1000(st.en_passant.games)
    ));
    if st.drawn > 0 {
        let mut reasons: Vec<&super::model::Count> = st.draw_reasons.iter().filter(|c| c.games > 0).collect();
        reasons.sort_by_key(|c| std::cmp::Reverse(c.games));
        let mix: Vec<String> =
            reasons.iter().map(|c| format!("{} {}", c.label, rate(b, c.games, st.drawn, Unit::Percent))).collect();
        out.push(format!(
            "How did draws really end? Of the {} drawn (reason inferred from the final position): {}.",
            games_text(st.drawn),
            mix.join(", ")
        ));
    }
    let quick = &st.clocks.first_claim_by_clock[0];
    let slow = &st.clocks.first_claim_by_clock[4];
    if quick.games + slow.games > 0 {
        out.push(format!(
            "Time trouble? With under 10 s on the claimant's clock the first claim was passed over in {} of {}; \
             with 3 minutes or more in {} of {}.",
            rate(b, quick.passed_over, quick.games, Unit::Percent),
            games_text(quick.games),
            rate(b, slow.passed_over, slow.games, Unit::Percent),
            games_text(slow.games)
        ));
    }
    out
}

/// The answers for the report: over all its games, then the sharpest figure per group.
pub fn paragraphs(r: &Report) -> Vec<String> {
    let b = Rows { min_games: r.min_games };
    let mut out = vec![format!(
        "Over {}: {} in {} source(s), {} replayed ({} skipped variant(s) left out).",
        r.filter_text,
        games_text(r.matched),
        r.sources.len(),
        thousands(r.all.overall.games),
        thousands(r.skipped)
    )];
    out.extend(answers(&r.all, b));
    if let Some(by) = &r.by {
        // Each group's share, `part` giving its count and the games it is a share of.
        let per_group = |part: fn(&Rates) -> (u64, u64)| {
            let parts: Vec<String> = r
                .groups
                .iter()
                .map(|g| {
                    let (n, of) = part(&g.stats.overall);
                    format!("{} {} of {}", g.label, rate(b, n, of, Unit::Percent), thousands(of))
                })
                .collect();
            parts.join("; ")
        };
        out.push(format!("By {by}, play went on after a claim in: {}.", per_group(|o| (o.missed, o.with_claim))));
        out.push(format!("By {by}, games reaching a threefold: {}.", per_group(|o| (o.threefold, o.games))));
        if r.groups.iter().any(|g| g.stats.overall.with_claim < r.min_games) {
            out.push(format!(
                "Groups with fewer than {} games behind a rate are marked \"few games\" and greyed: their intervals are wide.",
                r.min_games
            ));
        }
    }
    out
}
