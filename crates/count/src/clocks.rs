//! The clocks and evaluations counted: was a claim missed in time trouble,
//! or to play for a win? Game by game, from the `games` summary: the claimant's clock at the
//! first claim opportunity (games with clocks), and the claimant's evaluation at the first missed
//! claim with the claimant's final score (games with evaluations). The bands are those of
//! `queries/missed_claims_by_clock.sql` and `missed_claims_by_eval.sql`.

use crate::model::{CLOCK_BANDS, ClockBand, Clocks, EVAL_BANDS, EvalBand, Scores};

pub(crate) fn clock_band(ms: i64) -> usize {
    match ms {
        ..10_000 => 0,
        10_000..30_000 => 1,
        30_000..60_000 => 2,
        60_000..180_000 => 3,
        _ => 4,
    }
}

/// Below -1.00 or getting mated, -1.00 to +1.00, above +1.00 or mating, none.
pub(crate) fn eval_band(cp: Option<i64>, mate: Option<i32>) -> usize {
    match (cp, mate) {
        (_, Some(m)) if m < 0 => 0,
        (_, Some(m)) if m > 0 => 2,
        (_, Some(_)) => 1,
        (Some(cp), None) if cp < -100 => 0,
        (Some(cp), None) if cp > 100 => 2,
        (Some(_), None) => 1,
        (None, None) => 3,
    }
}

/// One game's fields the figures need.
pub(crate) struct GameClocks {
    pub has_clocks: bool,
    pub has_evals: bool,
    pub first_claim_ply: Option<u32>,
    pub first_missed_claim_ply: Option<u32>,
    pub first_claim_clock_ms: Option<i64>,
    pub first_missed_eval: (Option<i64>, Option<i32>),
    pub score: Option<f64>,
}

/// The counts behind [`Clocks`], by band (the labels are added by [`ClockCounts::clocks`]):
/// nothing to allocate, since ingest keeps one per summary row.
#[derive(Default, Clone)]
pub(crate) struct ClockCounts {
    pub games_with_clocks: u64,
    /// Games and of those whose first claim was missed, by [`CLOCK_BANDS`].
    pub first_claim_by_clock: [(u64, u64); CLOCK_BANDS.len()],
    pub games_with_evals: u64,
    /// Games and the claimant's final score, by [`EVAL_BANDS`].
    pub first_missed_by_eval: [(u64, Scores); EVAL_BANDS.len()],
}

impl ClockCounts {
    pub(crate) fn add(&mut self, g: &GameClocks) {
        if g.has_clocks {
            self.games_with_clocks += 1;
            if let Some(ms) = g.first_claim_clock_ms {
                let (games, passed_over) = &mut self.first_claim_by_clock[clock_band(ms)];
                *games += 1;
                *passed_over += u64::from(g.first_claim_ply.is_some() && g.first_missed_claim_ply == g.first_claim_ply);
            }
        }
        if g.has_evals {
            self.games_with_evals += 1;
            if g.first_missed_claim_ply.is_some() {
                let (games, o) =
                    &mut self.first_missed_by_eval[eval_band(g.first_missed_eval.0, g.first_missed_eval.1)];
                *games += 1;
                match g.score {
                    Some(1.0) => o.wins += 1,
                    Some(0.5) => o.draws += 1,
                    Some(_) => o.losses += 1,
                    None => {}
                }
                o.games += u64::from(g.score.is_some());
            }
        }
    }

    /// Adds another set of games' counts.
    pub(crate) fn merge(&mut self, other: &ClockCounts) {
        self.games_with_clocks += other.games_with_clocks;
        for (a, b) in self.first_claim_by_clock.iter_mut().zip(&other.first_claim_by_clock) {
            a.0 += b.0;
            a.1 += b.1;
        }
        self.games_with_evals += other.games_with_evals;
        for (a, b) in self.first_missed_by_eval.iter_mut().zip(&other.first_missed_by_eval) {
            a.0 += b.0;
            a.1.add(&b.1);
        }
    }

    /// The report's form, with the bands' labels.
    pub(crate) fn clocks(&self) -> Clocks {
        Clocks {
            games_with_clocks: self.games_with_clocks,
            first_claim_by_clock: CLOCK_BANDS
                .iter()
                .zip(&self.first_claim_by_clock)
                .map(|(l, &(games, passed_over))| ClockBand { label: (*l).into(), games, passed_over })
                .collect(),
            games_with_evals: self.games_with_evals,
            first_missed_by_eval: EVAL_BANDS
                .iter()
                .zip(&self.first_missed_by_eval)
                .map(|(l, (games, claimant))| EvalBand {
                    label: (*l).into(),
                    games: *games,
                    claimant: claimant.clone(),
                })
                .collect(),
        }
    }
}
