//! Estimates and their 95% intervals, from exact integer sums (docs/simulation.md, "Intervals").
//!
//! - Proportions: Wilson score interval.
//! - Means: the normal interval `mean ± 1.96 · s / √n` (s the sample standard deviation); the
//!   central limit theorem makes it right for large n, and simulations have thousands of runs.
//! - Ratios of totals (per round, per turn): the delta method's normal interval.
//! - Paired outcome differences: the exact two-sided McNemar (sign) test on discordant pairs.

use serde::{Deserialize, Serialize};

/// The 97.5% point of the standard normal distribution.
pub(crate) const Z: f64 = 1.959_963_984_540_054;

/// An estimate with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// Rounds for output: the same sums give the same digits, and the last bits of a platform's
/// `sqrt` or `ln` do not show.
pub fn round(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1e4).round() / 1e4
    } else {
        0.0
    }
}

impl Estimate {
    pub fn point(value: f64) -> Estimate {
        Estimate { value: round(value), low: round(value), high: round(value) }
    }

    fn new(value: f64, low: f64, high: f64) -> Estimate {
        Estimate { value: round(value), low: round(low), high: round(high) }
    }

    /// Whether the interval leaves out 0 (a difference that is not noise at 95%).
    pub(crate) fn excludes_zero(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// A proportion `k / n` with its Wilson score interval.
pub(crate) fn wilson(k: u64, n: u64) -> Estimate {
    if n == 0 {
        return Estimate::point(0.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Estimate::new(p, (centre - half).max(0.0), (centre + half).min(1.0))
}

/// The mean of `n` values whose sum is `s` and sum of squares `ss`, with its normal interval.
pub fn mean(n: u64, s: i128, ss: i128) -> Estimate {
    if n == 0 {
        return Estimate::point(0.0);
    }
    let m = s as f64 / n as f64;
    if n < 2 {
        return Estimate::point(m);
    }
    // The variance from exact integers: (n·ss − s²) / (n·(n−1)), never negative.
    let num = (n as i128).saturating_mul(ss).saturating_sub(s.saturating_mul(s)).max(0);
    let var = num as f64 / (n as f64 * (n as f64 - 1.0));
    let half = Z * (var / n as f64).sqrt();
    Estimate::new(m, m - half, m + half)
}

/// The ratio of two totals `Σx / Σy` over `n` runs, with the delta method's interval: the
/// variance of x − R·y, from the sums, over n·ȳ².
pub fn ratio(n: u64, x: (i128, i128), y: (i128, i128), xy: i128) -> Estimate {
    let (sx, sxx) = x;
    let (sy, syy) = y;
    if n == 0 || sy == 0 {
        return Estimate::point(0.0);
    }
    let r = sx as f64 / sy as f64;
    if n < 2 {
        return Estimate::point(r);
    }
    let nf = n as f64;
    let my = sy as f64 / nf;
    let cov = |a: i128, b: i128, ab: i128| (ab as f64 - a as f64 * b as f64 / nf) / (nf - 1.0);
    let var = (cov(sx, sx, sxx) - 2.0 * r * cov(sx, sy, xy) + r * r * cov(sy, sy, syy)).max(0.0);
    let half = Z * (var / nf).sqrt() / my;
    Estimate::new(r, r - half, r + half)
}

/// The two-sided p-value of the exact McNemar test: `b` pairs where only A had the outcome, `c`
/// where only B had it; under "no difference" each discordant pair is a fair coin.
pub(crate) fn mcnemar(b: u64, c: u64) -> f64 {
    let m = b + c;
    if m == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // P(X ≤ k) for X ~ Binomial(m, 1/2), summed in logs so that large m does not underflow.
    let ln2 = std::f64::consts::LN_2;
    let mut ln_choose = 0.0_f64; // ln C(m, 0)
    let mut terms = Vec::with_capacity(k as usize + 1);
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((m - i + 1) as f64).ln() - (i as f64).ln();
        }
        terms.push(ln_choose - m as f64 * ln2);
    }
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = top.exp() * terms.iter().map(|t| (t - top).exp()).sum::<f64>();
    round((2.0 * tail).min(1.0))
}

/// The smallest value whose cumulative count reaches the fraction `q` of all (nearest rank).
pub(crate) fn quantile(histogram: &std::collections::BTreeMap<u32, u64>, q: f64) -> u32 {
    let n: u64 = histogram.values().sum();
    if n == 0 {
        return 0;
    }
    let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
    let mut seen = 0;
    for (value, count) in histogram {
        seen += count;
        if seen >= rank {
            return *value;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_published_values() {
        // 81 of 263 (Wilson 1927 via Newcombe 1998, method 3): 0.2553 to 0.3662.
        let e = wilson(81, 263);
        assert_eq!((e.low, e.high), (0.2553, 0.3662));
        // Nothing seen: the interval still reaches up (0 of 10: 0 to 0.2775).
        let e = wilson(0, 10);
        assert_eq!((e.value, e.low, e.high), (0.0, 0.0, 0.2775));
    }

    #[test]
    fn mean_interval_from_sums() {
        // Values 1..=10: mean 5.5, s = 3.0277, half = 1.96 · s / √10 = 1.8765.
        let s: i128 = (1..=10).sum();
        let ss: i128 = (1..=10).map(|x| x * x).sum();
        let e = mean(10, s, ss);
        assert_eq!((e.value, e.low, e.high), (5.5, 3.6235, 7.3765));
        // Every value the same: no width.
        assert_eq!(mean(5, 15, 45), Estimate::point(3.0));
    }

    #[test]
    fn ratio_of_proportional_totals_has_no_width() {
        // x = 2·y in every run: the ratio is exactly 2.
        let ys = [3i128, 5, 7, 4];
        let sy: i128 = ys.iter().sum();
        let syy: i128 = ys.iter().map(|y| y * y).sum();
        let e = ratio(4, (2 * sy, 4 * syy), (sy, syy), 2 * syy);
        assert_eq!(e, Estimate::point(2.0));
    }

    #[test]
    fn mcnemar_is_the_exact_sign_test() {
        // 0 vs 6 discordant: 2 · (1/2)^6 = 0.03125.
        assert_eq!(mcnemar(0, 6), 0.0313);
        // 1 vs 5: 2 · 7/64 = 0.21875.
        assert_eq!(mcnemar(1, 5), 0.2188);
        assert_eq!(mcnemar(3, 3), 1.0);
        // Large counts do not underflow: 4,000 vs 6,000 is far from even.
        assert_eq!(mcnemar(4000, 6000), 0.0);
        assert!(mcnemar(5000, 5050) > 0.6);
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let h: std::collections::BTreeMap<u32, u64> = [(1, 2), (2, 5), (3, 3)].into_iter().collect();
        assert_eq!(quantile(&h, 0.1), 1);
        assert_eq!(quantile(&h, 0.5), 2);
        assert_eq!(quantile(&h, 0.9), 3);
    }
}
