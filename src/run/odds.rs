//! The numbers a solve's values are made of (solver.rs): exact fractions for `tempo solve`,
//! whose answers are printed exactly, and floats for `Search` (exact.rs), which only compares
//! them. A float's rounding (about 1e-15 on a probability) is far below anything a decision
//! turns on, and `better` takes values that close as equal, so the first of equals (or the
//! rollout's own choice) is kept as it is with fractions.
//!
//! Fractions of big integers cost a third of a solve's time in arithmetic and allocation, yet
//! a solve's denominators are products of its dice's faces and most fit in 128 bits: a
//! `Fraction` is a ratio of `i128`s while every step fits (checked), and of big integers from
//! the first step that would overflow. Both are exact, so the answer is the same to the last
//! digit.

use num_bigint::BigInt;
use num_rational::{BigRational, Ratio};
use num_traits::{CheckedAdd, CheckedDiv, CheckedMul, One, ToPrimitive, Zero};
use std::cmp::Ordering;
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

/// An exact fraction: of `i128`s while it fits, of big integers past that (see the module's
/// comment).
#[derive(Clone, Debug)]
pub enum Fraction {
    Small(Ratio<i128>),
    Big(BigRational),
}

fn big(r: &Ratio<i128>) -> BigRational {
    BigRational::new_raw(BigInt::from(*r.numer()), BigInt::from(*r.denom()))
}

impl Fraction {
    /// The same value as a fraction of big integers (reduced, as both kinds always are).
    pub fn into_big(self) -> BigRational {
        match self {
            Fraction::Small(r) => big(&r),
            Fraction::Big(b) => b,
        }
    }

    fn as_big(&self) -> BigRational {
        self.clone().into_big()
    }
}

impl PartialEq for Fraction {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(Ordering::Equal)
    }
}

impl PartialOrd for Fraction {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(match (self, other) {
            (Fraction::Small(a), Fraction::Small(b)) => a.cmp(b),
            _ => self.as_big().cmp(&other.as_big()),
        })
    }
}

impl Odds for Fraction {
    fn zero() -> Self {
        Fraction::Small(<Ratio<i128> as Zero>::zero())
    }

    fn one() -> Self {
        Fraction::Small(<Ratio<i128> as One>::one())
    }

    fn whole(n: u32) -> Self {
        Fraction::Small(Ratio::from_integer(i128::from(n)))
    }

    fn ratio(w: u64, total: u128) -> Self {
        match i128::try_from(total) {
            Ok(t) if t != 0 => Fraction::Small(Ratio::new(i128::from(w), t)),
            _ => Fraction::Big(BigRational::ratio(w, total)),
        }
    }

    fn add(&mut self, other: &Self) {
        if let (Fraction::Small(a), Fraction::Small(b)) = (&*self, other) {
            if let Some(sum) = a.checked_add(b) {
                *self = Fraction::Small(sum);
                return;
            }
        }
        *self = Fraction::Big(self.as_big() + other.as_big());
    }

    fn add_scaled(&mut self, other: &Self, by: &Self) {
        if let (Fraction::Small(a), Fraction::Small(o), Fraction::Small(b)) = (&*self, other, by) {
            if let Some(sum) = o.checked_mul(b).and_then(|p| a.checked_add(&p)) {
                *self = Fraction::Small(sum);
                return;
            }
        }
        *self = Fraction::Big(self.as_big() + other.as_big() * by.as_big());
    }

    fn divide(&mut self, n: u32) {
        if let Fraction::Small(a) = &*self {
            if let Some(q) = a.checked_div(&Ratio::from_integer(i128::from(n))) {
                *self = Fraction::Small(q);
                return;
            }
        }
        let mut b = self.as_big();
        b.divide(n);
        *self = Fraction::Big(b);
    }

    fn better(&self, other: &Self) -> bool {
        self > other
    }

    fn to_f64(&self) -> f64 {
        match self {
            Fraction::Small(r) => ToPrimitive::to_f64(r).unwrap_or(f64::NAN),
            Fraction::Big(b) => ToPrimitive::to_f64(b).unwrap_or(f64::NAN),
        }
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

    /// Denominators past 128 bits: the fraction turns big and stays exact, equal to the same
    /// sums done in big integers throughout, and compares with small fractions by value.
    #[test]
    fn fractions_turn_big_where_i128_overflows_and_stay_exact() {
        let primes = [1_000_003u64, 1_000_033, 1_000_037, 1_000_039, 1_000_081, 1_000_099, 1_000_117];
        let (mut small, mut exact) = (<Fraction as Odds>::zero(), <BigRational as Odds>::zero());
        for (i, p) in primes.iter().enumerate() {
            let (f, b) =
                (Fraction::ratio(i as u64 + 1, u128::from(*p)), BigRational::ratio(i as u64 + 1, u128::from(*p)));
            small.add_scaled(&f, &Fraction::ratio(1, 3));
            exact.add_scaled(&b, &BigRational::ratio(1, 3));
            small.divide(7);
            exact.divide(7);
        }
        assert!(matches!(small, Fraction::Big(_)), "seven 20-bit primes and powers of 3 and 7 pass 127 bits");
        assert_eq!(small.clone().into_big(), exact);
        let half = Fraction::ratio(1, 2);
        assert!(half.better(&small) && !small.better(&half));
        assert_eq!(Fraction::Big(BigRational::ratio(2, 4)), half);
        let mut third = Fraction::whole(1);
        third.divide(3);
        assert_eq!(third.into_big(), BigRational::ratio(1, 3));
    }
}
