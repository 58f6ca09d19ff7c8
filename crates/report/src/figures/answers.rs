//! The research questions answered in sentences, with their numbers and 95% intervals: what the
//! page and the terminal open with, before any chart. Each sentence is built from the same rows as
//! the charts ([`Rows`]), so a number reads the same in the sentence and in the chart.

use super::{
    chart::{Measure, Row, Rows, SIDE_BY_SIDE, games_text, thousands},
    model::{Rates, Report, Stats},
};

fn with_interval(r: &Row) -> String {
    let few = if r.small { ", few games" } else { "" };
    if r.interval.is_empty() { r.value.clone() } else { format!("{} ({}{few})", r.value, r.interval) }
}

fn rate(b: Rows, n: u64, d: u64, unit: Measure) -> String {
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
        rate(b, o.threefold, g, Measure::Percent),
        games_text(g),
        rate(b, o.fivefold, g, Measure::Percent)
    ));
    if st.left_out_with_claim > 0 {
        out.push(format!(
            "Claims nobody could miss: the missed-claim figures leave out the {} with a claim whose program drew a \
             threefold itself or adjudicated (engine play; chess.com since June 2019); the table by venue gives \
             engine play's.",
            games_text(st.left_out_with_claim),
        ));
    }
    if o.with_claim > 0 {
        out.push(format!(
            "How often are claims missed? Of the {} in which a threefold could be claimed, {} missed one: no claim \
             was made and play then left the repetition (a pawn move, a capture or a lost castling right followed, \
             or the game was not drawn). In {} more every claim not made was only passed over: the game ended \
             drawn in the same repetition. Missed on the board (9.2.1.2): {} of the {} with such a claim; by \
             declaring the move that repeats (9.2.1.1): {} of the {} with one.",
            games_text(o.with_claim),
            rate(b, o.missed, o.with_claim, Measure::Percent),
            rate(b, o.passed_over, o.with_claim, Measure::Percent),
            rate(b, o.missed_on_board, o.with_claim_on_board, Measure::Percent),
            thousands(o.with_claim_on_board),
            rate(b, o.missed_by_move, o.with_claim_by_move, Measure::Percent),
            thousands(o.with_claim_by_move)
        ));
        let li = &st.lichess;
        if li.with_claim_on_board > 0 {
            out.push(format!(
                "On Lichess either player may claim, and never by a declared move: of the {} played on Lichess \
                 with a claim on the board, {} missed it. Lichess claims a threefold by itself where a player's preference says \
                 so, and that preference's default changed over the years: read its figure by year (`--by year`).",
                games_text(li.with_claim_on_board),
                rate(b, li.missed_on_board, li.with_claim_on_board, Measure::Percent)
            ));
        }
        let c = &st.claims;
        out.push(format!(
            "{} of the {} claim opportunities could be claimed only by declaring the move that repeats \
             (Art. 9.2.1.1), not on the board; in {} the only chances were of that kind.",
            rate(b, c.by_move_only, c.opportunities, Measure::Percent),
            thousands(c.opportunities),
            games_text(c.games_only_by_move)
        ));
    } else if st.left_out_with_claim == 0 {
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
        let r = b.rate("", None, n, g, Measure::Per1000);
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
            reasons.iter().map(|c| format!("{} {}", c.label, rate(b, c.games, st.drawn, Measure::Percent))).collect();
        out.push(format!(
            "How did draws really end? Of the {} drawn (the recorded ending where the game has one, else \
             inferred from the final position; agreement_or_unrecorded: the PGN cannot tell an agreement from a \
             claim nobody wrote down): {}.",
            games_text(st.drawn),
            mix.join(", ")
        ));
    }
    let quick = &st.clocks.first_claim_by_clock[0];
    let slow = &st.clocks.first_claim_by_clock[4];
    if quick.games + slow.games > 0 {
        out.push(format!(
            "Time trouble? With under 10 s on the claimant's clock the first claim was missed in {} of {}; \
             with 3 minutes or more in {} of {}.",
            rate(b, quick.passed_over, quick.games, Measure::Percent),
            games_text(quick.games),
            rate(b, slow.passed_over, slow.games, Measure::Percent),
            games_text(slow.games)
        ));
    }
    out
}

/// The answers for the report: over all its games, then the sharpest figure per group.
pub(crate) fn paragraphs(r: &Report) -> Vec<String> {
    let b = Rows { min_games: r.min_games };
    let mut out = vec![format!(
        "Over {}: {} in {} source(s), {} replayed with moves ({} skipped variant(s) and {} without a move left out).",
        r.filter_text,
        games_text(r.matched),
        r.sources.len(),
        thousands(r.all.overall.games),
        thousands(r.skipped),
        thousands(r.no_moves)
    )];
    out.extend(answers(&r.all, b));
    if let Some(by) = &r.by {
        // Each group's share, `part` giving its count and the games it is a share of; beyond a
        // dozen groups, the extremes and the spread.
        let per_group = |part: fn(&Rates) -> (u64, u64)| {
            if r.groups.len() > SIDE_BY_SIDE {
                return spread(r, b, by, part);
            }
            let parts: Vec<String> = r
                .groups
                .iter()
                .map(|g| {
                    let (n, of) = part(&g.stats.overall);
                    format!("{} {} of {}", g.label, rate(b, n, of, Measure::Percent), thousands(of))
                })
                .collect();
            parts.join("; ")
        };
        out.push(format!("By {by}, a claim was missed in: {}.", per_group(|o| (o.missed, o.with_claim))));
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

/// Many groups' shares in a few words: the highest and the lowest, and the range of the middle
/// 90% ("highest … lowest …; 136 of 150 months between 2.0% and 9.1%"). The extremes and the
/// range are over the groups with at least `--min-games` games behind the rate when there are
/// any (a group of 3 games at 100% says little), else over every group with a game.
fn spread(r: &Report, b: Rows, by: &str, part: fn(&Rates) -> (u64, u64)) -> String {
    let plural = super::many::plural(by);
    let rows: Vec<Row> = r
        .groups
        .iter()
        .map(|g| {
            let (n, of) = part(&g.stats.overall);
            b.rate(&g.label, None, n, of, Measure::Percent)
        })
        .filter(|row| row.games > 0)
        .collect();
    let sure: Vec<&Row> = rows.iter().filter(|row| !row.small).collect();
    let mut pool: Vec<&Row> = if sure.is_empty() { rows.iter().collect() } else { sure };
    if pool.is_empty() {
        return format!("no {by} has a game behind this rate");
    }
    // Highest first; ties in the groups' order.
    pool.sort_by(|x, y| y.magnitude.partial_cmp(&x.magnitude).unwrap_or(std::cmp::Ordering::Equal));
    let described = |row: &Row| format!("{} {} of {}", row.label, with_interval(row), thousands(row.games));
    let (high, low) = (pool[0], pool[pool.len() - 1]);
    let mut text = format!("highest {}, lowest {}", described(high), described(low));
    let cut = pool.len() / 20;
    let (top, bottom) = (pool[cut], pool[pool.len() - 1 - cut]);
    let (lo, hi) = (bottom.magnitude.unwrap_or(0.0), top.magnitude.unwrap_or(0.0));
    let between = pool.iter().filter(|row| row.magnitude.is_some_and(|v| v >= lo && v <= hi)).count();
    text.push_str(&format!("; {between} of {} {plural} between {} and {}", pool.len(), bottom.value, top.value));
    let left_out = rows.len() - pool.len();
    if left_out > 0 {
        text.push_str(&format!(
            " ({left_out} {} with fewer than {} games behind the rate left out)",
            if left_out == 1 { by.to_owned() } else { plural.clone() },
            r.min_games
        ));
    } else if pool.iter().all(|row| row.small) {
        text.push_str(&format!(" (every {by} has fewer than {} games behind the rate)", r.min_games));
    }
    let without = r.groups.len() - rows.len();
    if without > 0 {
        text.push_str(&format!("; {without} without any"));
    }
    text
}

/// The report's first words on copies.
pub(crate) fn copies_sentence(report: &Report) -> String {
    let c = &report.copies;
    let estimate = match (c.copies_estimate, c.games) {
        (_, 0) => "No replayed game in the selection, so no copies.".to_owned(),
        (Some(copies), games) => format!(
            "About {} of the {} games ({:.1}%) are copies of another game in the selection (estimate from fingerprints)",
            thousands(copies),
            thousands(games),
            100.0 * copies as f64 / games as f64
        ),
        (None, _) => "How many games are copies of another is unavailable: part of the selection was ingested before fingerprints existed (ingesting it again adds them)".to_owned(),
    };
    let Some(l) = &c.left_out else {
        return if c.games == 0 { estimate } else { format!("{estimate}; `--dedup` counts each once.") };
    };
    let by: Vec<String> = l
        .by_source
        .iter()
        .map(|s| {
            format!("{} of source {} (copies of games in {})", thousands(s.copies), s.source, s.of_sources.join(", "))
        })
        .collect();
    let left = if l.copies == 0 {
        "left out no copies".to_owned()
    } else {
        format!("left out {} copies: {}", thousands(l.copies), by.join("; "))
    };
    if c.games == 0 {
        format!("Each game counted once (--dedup): {left}.")
    } else {
        format!("Each game counted once (--dedup): {left}. {estimate}.")
    }
}
