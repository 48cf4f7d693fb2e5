//! `--set` as `tempo sweep` reads it: `NAME=VALUE` (a number fixed for the whole sweep) or
//! `NAME=LO..HI[:STEP]` (a number swept from LO to HI, HI included when a step lands on it).

use crate::run::scenario::{parse_set, SetFlag};

/// A swept number: `LO`, `LO + STEP`, ... up to `HI`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swept {
    pub name: String,
    pub low: i64,
    pub high: i64,
    pub step: i64,
}

/// One `--set` of a sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SweepSet {
    Fixed(SetFlag),
    Range(Swept),
}

impl Swept {
    /// How many values the range has, exactly: at most 2^64 (every `i64`, step 1).
    pub fn count(&self) -> u128 {
        let span = i128::from(self.high) - i128::from(self.low);
        if span < 0 || self.step <= 0 {
            return 0;
        }
        // 0 ≤ span < 2^64 and step ≥ 1.
        span.unsigned_abs() / u128::from(self.step.unsigned_abs()) + 1
    }

    /// How many values the range has, as a `u64`: `u64::MAX` for the one range of 2^64 values
    /// (use [`Swept::count`] to say how many).
    pub fn len(&self) -> u64 {
        u64::try_from(self.count()).unwrap_or(u64::MAX)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value i (from 0) of the range.
    pub fn value(&self, i: u64) -> i64 {
        let v = i128::from(self.low) + i128::from(i) * i128::from(self.step);
        i64::try_from(v).unwrap_or(self.high)
    }

    /// As given: `NAME=LO..HI` or `NAME=LO..HI:STEP`.
    pub fn text(&self) -> String {
        let step = if self.step == 1 { String::new() } else { format!(":{}", self.step) };
        format!("{}={}..{}{step}", self.name, self.low, self.high)
    }
}

/// The values of point `k` of the grid of `ranges`, row-major: the last range varies fastest.
pub fn grid_values(ranges: &[Swept], k: u64) -> Vec<i64> {
    let mut rest = u128::from(k);
    let mut out = vec![0; ranges.len()];
    for (i, r) in ranges.iter().enumerate().rev() {
        let n = r.count().max(1);
        // `rest % n` < n ≤ 2^64: value `u64::MAX` at most.
        out[i] = r.value(u64::try_from(rest % n).unwrap_or(u64::MAX));
        rest /= n;
    }
    out
}

impl SweepSet {
    pub fn text(&self) -> String {
        match self {
            SweepSet::Fixed(f) => f.text(),
            SweepSet::Range(r) => r.text(),
        }
    }
}

/// Reads `NAME=VALUE` or `NAME=LO..HI[:STEP]` (what clap's value parser calls).
pub fn parse_sweep_set(text: &str) -> Result<SweepSet, String> {
    let Some((name, value)) = crate::run::scenario::split_assignment(text) else {
        return Err(format!("`{text}` is not NAME=LO..HI or NAME=VALUE (`Brute.hp_max=20..30`, `ap_max=3..5`)"));
    };
    let Some((low, rest)) = value.split_once("..") else {
        return parse_set(text).map(SweepSet::Fixed);
    };
    let (high, step) = match rest.split_once(':') {
        Some((high, step)) => (high, Some(step)),
        None => (rest, None),
    };
    // The name is checked as `--set` checks it.
    let SetFlag { name, .. } = parse_set(&format!("{name}=0"))?;
    let number = |s: &str, what: &str| {
        s.trim().parse::<i64>().map_err(|_| format!("`{}` is not a whole number ({what} of `{text}`)", s.trim()))
    };
    let (low, high) = (number(low, "the low end")?, number(high, "the high end")?);
    let step = step.map(|s| number(s, "the step")).transpose()?.unwrap_or(1);
    if step <= 0 {
        return Err(format!("the step of `{text}` must be 1 or more"));
    }
    if low > high {
        return Err(format!("`{text}` runs from {low} down to {high}: write the low end first"));
    }
    Ok(SweepSet::Range(Swept { name, low, high, step }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(text: &str) -> Swept {
        match parse_sweep_set(text) {
            Ok(SweepSet::Range(r)) => r,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn a_range_includes_its_high_end_when_a_step_lands_on_it() {
        let r = range("Brute.hp_max=20..30");
        assert_eq!((r.len(), r.value(0), r.value(10)), (11, 20, 30));
        let r = range("ap_max = 1..10:4");
        assert_eq!((r.len(), r.value(2)), (3, 9));
        assert_eq!(r.text(), "ap_max=1..10:4");
        assert_eq!(range("x=5..5").len(), 1);
        let all = range("x=-9223372036854775808..9223372036854775807");
        assert_eq!((all.len(), all.count()), (u64::MAX, 1u128 << 64));
        assert_eq!((all.value(0), all.value(u64::MAX)), (i64::MIN, i64::MAX));
    }

    #[test]
    fn a_fixed_value_and_bad_ranges() {
        assert!(matches!(parse_sweep_set("hp_max=20"), Ok(SweepSet::Fixed(_))));
        assert!(parse_sweep_set("x=3..1").unwrap_err().contains("low end first"));
        assert!(parse_sweep_set("x=1..3:0").unwrap_err().contains("step"));
        assert!(parse_sweep_set("x=1..b").unwrap_err().contains("high end"));
        assert!(parse_sweep_set("a.b.c=1..2").is_err());
        assert!(parse_sweep_set("x").is_err());
    }
}
