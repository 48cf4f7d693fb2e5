//! The numbers a solve's values are made of (solver.rs): exact fractions of big integers for
//! `tempo solve`, whose answers are printed exactly, and floats for `Search` (exact.rs), which
//! only compares them. Fractions cost a third of a solve's time in arithmetic and allocation;
//! a float's rounding (about 1e-15 on a probability) is far below anything a decision turns on,
//! and `better` takes values that close as equal, so the first of equals (or the rollout's own
//! choice) is kept as it is with fractions.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use std::fmt::Debug;

/// A probability or an expected count, added and scaled as the solver needs.
pub trait Odds: Clone + Debug + PartialEq + Send + Sync + 'static {
    fn zero() -> Self;
    fn one() -> Self;
    fn whole(n: u32) -> Self;
    /// `w / total`, one outcome's weight among its chance's.
    fn ratio(w: u64, total: u128) -> Self;
    fn add(&mut self, other: &Self);
    /// `self += other * by`.
    fn add_scaled(&mut self, other: &Self, by: &Self);
    fn divide(&mut self, n: u32);
    /// Strictly better than `other`: by more than rounding could make.
    fn better(&self, other: &Self) -> bool;
    fn to_f64(&self) -> f64;
}

impl Odds for BigRational {
    fn zero() -> Self {
        Zero::zero()
    }

    fn one() -> Self {
        One::one()
    }

    fn whole(n: u32) -> Self {
        BigRational::from_integer(BigInt::from(n))
    }

    fn ratio(w: u64, total: u128) -> Self {
        BigRational::new(BigInt::from(w), BigInt::from(total))
    }

    fn add(&mut self, other: &Self) {
        *self += other;
    }

    fn add_scaled(&mut self, other: &Self, by: &Self) {
        *self += other * by;
    }

    fn divide(&mut self, n: u32) {
        *self /= BigRational::from_integer(BigInt::from(n));
    }

    fn better(&self, other: &Self) -> bool {
        self > other
    }

    fn to_f64(&self) -> f64 {
        ToPrimitive::to_f64(self).unwrap_or(f64::NAN)
    }
}

/// How far apart two float values must be to differ: a few hundred roundings of a probability.
const FLOAT_EQUAL: f64 = 1e-12;

impl Odds for f64 {
    fn zero() -> Self {
        0.0
    }

    fn one() -> Self {
        1.0
    }

    fn whole(n: u32) -> Self {
        f64::from(n)
    }

    fn ratio(w: u64, total: u128) -> Self {
        w as f64 / total as f64
    }

    fn add(&mut self, other: &Self) {
        *self += other;
    }

    fn add_scaled(&mut self, other: &Self, by: &Self) {
        *self += other * by;
    }

    fn divide(&mut self, n: u32) {
        *self /= f64::from(n);
    }

    fn better(&self, other: &Self) -> bool {
        *self > *other + FLOAT_EQUAL
    }

    fn to_f64(&self) -> f64 {
        *self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_within_rounding_are_equal_and_fractions_are_exact() {
        let third = f64::ratio(1, 3);
        let mut sum = <f64 as Odds>::zero();
        for _ in 0..3 {
            sum.add(&third);
        }
        assert!(!sum.better(&1.0) && !1.0.better(&sum));
        assert!(0.5001.better(&0.5));
        let mut exact = <BigRational as Odds>::zero();
        for _ in 0..3 {
            exact.add(&BigRational::ratio(1, 3));
        }
        assert_eq!(exact, <BigRational as Odds>::one());
        assert!(BigRational::ratio(1_000_000_000_001, 2_000_000_000_000).better(&BigRational::ratio(1, 2)));
    }
}
