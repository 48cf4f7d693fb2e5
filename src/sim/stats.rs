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

/// Decimals an estimate keeps in the JSON.
pub(crate) const DECIMALS: u32 = 4;

/// Which way a number is rounded: an interval's bounds outward, so that what is shown still
/// holds the interval; an estimate to the nearest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toward {
    Down,
    Nearest,
    Up,
}

/// `x` rounded `toward` at `decimals`, and at as many more as it takes (up to 15) not to show 0
/// or 1 where `x` is not exactly that: a bound of 0 or 1 reads "impossible" or "certain". Returns
/// the number and the decimals it needs. A non-finite `x` is 0.
pub fn rounded(x: f64, decimals: u32, toward: Toward) -> (f64, u32) {
    if !x.is_finite() {
        return (0.0, decimals);
    }
    // A millionth of the last digit is float noise (0.3 stored as 0.29999...), not a value:
    // rounding outward past it would widen the interval by a whole digit for nothing.
    const NOISE: f64 = 1e-6;
    let mut d = decimals;
    loop {
        let scale = 10f64.powi(d as i32);
        let y = x * scale;
        let r = match toward {
            Toward::Down => (y + NOISE).floor(),
            Toward::Nearest => y.round(),
            Toward::Up => (y - NOISE).ceil(),
        } / scale;
        // `+ 0.0` makes a −0 plain 0.
        let r = r + 0.0;
        let landmark = (r == 0.0 && x != 0.0) || (r == 1.0 && x != 1.0);
        if !landmark {
            return (r, d);
        }
        if d >= 15 {
            return (x, 17);
        }
        d += 1;
    }
}

/// Rounds for output: the same sums give the same digits, and the last bits of a platform's
/// `sqrt` or `ln` do not show.
pub fn round(x: f64) -> f64 {
    rounded(x, DECIMALS, Toward::Nearest).0
}

impl Estimate {
    pub fn point(value: f64) -> Estimate {
        Estimate { value: round(value), low: round(value), high: round(value) }
    }

    /// The estimate to the nearest, its interval rounded outward.
    fn new(value: f64, low: f64, high: f64) -> Estimate {
        Estimate {
            value: round(value),
            low: rounded(low, DECIMALS, Toward::Down).0,
            high: rounded(high, DECIMALS, Toward::Up).0,
        }
    }

    /// The interval cut to `[lo, hi]`, for a quantity that cannot leave it (a count is never
    /// below 0, a share never above 1): a normal interval around a mean near its bound would
    /// otherwise reach past it (`0.01 [-0.005, 0.025]`).
    pub(crate) fn within(self, lo: f64, hi: f64) -> Estimate {
        Estimate { value: self.value, low: self.low.clamp(lo, hi), high: self.high.clamp(lo, hi) }
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
    // None seen: the lower bound is 0 exactly (centre − half is 0 up to float noise); all seen:
    // the upper is 1 exactly.
    let low = if k == 0.0 { 0.0 } else { (centre - half).max(0.0) };
    let high = if k == n { 1.0 } else { (centre + half).min(1.0) };
    Estimate::new(p, low, high)
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
/// where only B had it; under "no difference" each discordant pair is a fair coin. Kept to four
/// significant digits, so that a small p is not shown as 0: it is 0 only when nothing is.
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
    let p = (2.0 * tail).min(1.0);
    // Below what an f64 holds (tens of thousands of discordant pairs, all one way): the
    // smallest positive number, not 0, which the test never gives.
    if p > 0.0 {
        significant(p)
    } else {
        f64::MIN_POSITIVE
    }
}

/// `x` to four significant digits (the same digits on every platform).
fn significant(x: f64) -> f64 {
    format!("{x:.3e}").parse().unwrap_or(x)
}

/// A p-value for a person: four decimals, `< 0.0001` below that.
pub(crate) fn show_p(p: f64) -> String {
    if p < 1e-4 {
        return "< 0.0001".to_string();
    }
    let s = format!("{p:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
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
        // Rounded outward: 0.25527 down, 0.36622 up.
        let e = wilson(81, 263);
        assert_eq!((e.low, e.high), (0.2552, 0.3663));
        // Nothing seen: the interval still reaches up (0 of 10: 0 to 0.2775).
        let e = wilson(0, 10);
        assert_eq!((e.value, e.low, e.high), (0.0, 0.0, 0.2776));
    }

    #[test]
    fn bounds_round_outward_and_never_to_0_or_1_unless_exact() {
        assert_eq!(rounded(0.25527, 4, Toward::Down), (0.2552, 4));
        assert_eq!(rounded(0.25523, 4, Toward::Up), (0.2553, 4));
        assert_eq!(rounded(0.25526, 4, Toward::Nearest).0, 0.2553);
        // Float noise is not a value: 4.35 (stored a hair below) stays 4.35 both ways.
        assert_eq!(rounded(4.35, 2, Toward::Down).0, 4.35);
        assert_eq!(rounded(4.35, 2, Toward::Up).0, 4.35);
        // Not 0 unless it is: more digits instead.
        assert_eq!(rounded(3.8e-5, 4, Toward::Up), (0.0001, 4));
        assert_eq!(rounded(3.8e-5, 4, Toward::Down), (0.00003, 5));
        assert_eq!(rounded(4.2e-9, 4, Toward::Nearest), (0.000000004, 9));
        assert_eq!(rounded(-3.8e-5, 4, Toward::Up), (-0.00003, 5));
        assert_eq!(rounded(0.0, 4, Toward::Up), (0.0, 4));
        // Not 1 unless it is.
        assert_eq!(rounded(0.99997, 4, Toward::Up), (0.99997, 5));
        assert_eq!(rounded(0.99997, 4, Toward::Down), (0.9999, 4));
        assert_eq!(rounded(1.0, 4, Toward::Down), (1.0, 4));
        assert_eq!(rounded(f64::NAN, 4, Toward::Up).0, 0.0);
    }

    #[test]
    fn wilson_bounds_are_0_or_1_only_when_exact() {
        // 0 of 100,000: the upper bound is about 3.8e-5, shown as a positive number.
        let e = wilson(0, 100_000);
        assert_eq!((e.value, e.low), (0.0, 0.0));
        assert!(e.high > 0.0 && e.high <= 0.0001, "{e:?}");
        // n of n: the upper bound is 1 exactly, the lower below it.
        let e = wilson(100_000, 100_000);
        assert_eq!((e.value, e.high), (1.0, 1.0));
        assert!(e.low < 1.0 && e.low >= 0.9999, "{e:?}");
        // 4 of 1,000,000: neither bound 0.
        let e = wilson(4, 1_000_000);
        assert!(e.low > 0.0 && e.value > 0.0, "{e:?}");
    }

    #[test]
    fn mean_interval_from_sums() {
        // Values 1..=10: mean 5.5, s = 3.0277, half = 1.96 · s / √10 = 1.8765.
        let s: i128 = (1..=10).sum();
        let ss: i128 = (1..=10).map(|x| x * x).sum();
        let e = mean(10, s, ss);
        // Outward: 3.62348 down, 7.37652 up.
        assert_eq!((e.value, e.low, e.high), (5.5, 3.6234, 7.3766));
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
        assert_eq!(mcnemar(0, 6), 0.03125);
        // 1 vs 5: 2 · 7/64 = 0.21875.
        assert_eq!(mcnemar(1, 5), 0.2188);
        assert_eq!(mcnemar(3, 3), 1.0);
        // Large counts do not underflow: 4,000 vs 6,000 is far from even, and not 0.
        let p = mcnemar(4000, 6000);
        assert!(p > 0.0 && p < 1e-80, "{p}");
        assert!(mcnemar(5000, 5050) > 0.6);
        // Past what an f64 holds: still not 0.
        assert!(mcnemar(0, 2000) > 0.0);
        assert_eq!(show_p(p), "< 0.0001");
        assert_eq!(show_p(0.0313), "0.0313");
        assert_eq!(show_p(1.0), "1");
        assert_eq!(show_p(0.0001), "0.0001");
    }

    /// docs/simulation.md's example of a share marked by the test, not the interval: 4 of 500
    /// pairs disagree, all one way. The normal interval leaves out 0; the exact test does not
    /// find it beyond a fair coin.
    #[test]
    fn an_interval_may_leave_out_0_where_the_exact_test_does_not() {
        let d = mean(500, 4, 4);
        assert_eq!((d.value, d.low, d.high), (0.008, 0.0001, 0.0159));
        assert!(d.excludes_zero());
        assert_eq!(mcnemar(0, 4), 0.125);
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let h: std::collections::BTreeMap<u32, u64> = [(1, 2), (2, 5), (3, 3)].into_iter().collect();
        assert_eq!(quantile(&h, 0.1), 1);
        assert_eq!(quantile(&h, 0.5), 2);
        assert_eq!(quantile(&h, 0.9), 3);
    }
}
