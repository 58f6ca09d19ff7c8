//! 95% Wilson score intervals for the report's rates: a share of 1 in 4 games reads 25%
//! (4.6–69.9%), not as sure a 25% as one over 150,000 games. Wilson rather than the normal
//! approximation because it stays inside 0..1 and is sound for small counts and rates near 0.

use serde::Serialize;

/// The normal quantile for a two-sided 95% interval.
const Z: f64 = 1.959_963_984_540_054;

/// A rate `successes / trials` with its interval, all as proportions (0..=1).
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
pub(crate) struct Interval {
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

/// The Wilson score interval (without continuity correction); `None` over no trials.
pub(crate) fn wilson(successes: u64, trials: u64) -> Option<Interval> {
    if trials == 0 {
        return None;
    }
    let n = trials as f64;
    let p = successes.min(trials) as f64 / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0 or n successes the bound is exactly 0 or 1 (the formula gives it up to rounding).
    let low = if successes == 0 { 0.0 } else { (centre - half).max(0.0) };
    let high = if successes >= trials { 1.0 } else { (centre + half).min(1.0) };
    Some(Interval { rate: p, low, high })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Reference values from the closed form, checked against scipy in tests/report/queries.rs.
        let i = wilson(1, 4).unwrap();
        assert!((i.low - 0.045_587).abs() < 1e-5 && (i.high - 0.699_358).abs() < 1e-5, "{i:?}");
        let i = wilson(0, 10).unwrap();
        assert_eq!(i.low, 0.0);
        assert!((i.high - 0.277_533).abs() < 1e-5, "{i:?}");
        assert_eq!(wilson(10, 10).unwrap().high, 1.0);
        assert!(wilson(0, 0).is_none());
    }
}
