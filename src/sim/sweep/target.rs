//! `--target "OUTCOME=SHARE"`: the two neighbouring values of a range between which an outcome's
//! share crosses a target, found by bisection so that only the points it needs are played.
//!
//! Each point probed is played on the batch's seeds, so two probes differ only by the number
//! swept (common random numbers), and a probe is never replayed for the bisection. The points
//! probed are then played together once more to pair each with its neighbour: the second pass
//! is what gives the paired changes, and it yields the same totals as the probes.

use super::super::stats::Estimate;
use super::super::{simulate, Batch};
use super::report::{self, Target};
use super::{Grid, PointError};
use crate::diagnostics::did_you_mean;
use crate::run::RunError;

/// `--target "OUTCOME=SHARE"`, as given.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetFlag {
    pub outcome: String,
    /// Between 0 and 1.
    pub share: f64,
}

/// Reads `OUTCOME=SHARE`: the share as `0.5` or `50%`.
pub fn parse_target(text: &str) -> Result<TargetFlag, String> {
    let Some((outcome, share)) = text.rsplit_once('=') else {
        return Err(format!("`{text}` is not OUTCOME=SHARE (`heroes left standing=0.5`)"));
    };
    let (outcome, share) = (outcome.trim(), share.trim());
    let value = match share.strip_suffix('%') {
        Some(pct) => pct.trim().parse::<f64>().map(|p| p / 100.0),
        None => share.parse::<f64>(),
    }
    .map_err(|_| format!("`{share}` is not a share (write 0.5 or 50%)"))?;
    if !(0.0..=1.0).contains(&value) || outcome.is_empty() {
        return Err(format!("`{text}`: the share is between 0 and 1 (or 0% and 100%) and the outcome is named"));
    }
    Ok(TargetFlag { outcome: outcome.to_string(), share: value })
}

/// What a target search found: the values (indices into the range) it probed, in order of
/// value, and which two of them bracket the crossing.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub probed: Vec<u64>,
    /// Positions in `probed` of the bracket's ends (the range's ends when it does not cross).
    pub ends: (usize, usize),
    pub verdict: &'static str,
}

/// Why a target could not be looked for.
#[derive(Debug)]
pub enum TargetError {
    Point(PointError),
    /// The outcome is none of the encounter's: its outcomes, and the closest.
    NoOutcome {
        outcome: String,
        outcomes: Vec<String>,
        closest: Option<String>,
    },
    /// A point with no run that finished has no share to compare.
    NoShare {
        value: i64,
    },
}

impl From<PointError> for TargetError {
    fn from(e: PointError) -> Self {
        TargetError::Point(e)
    }
}

impl From<RunError> for TargetError {
    fn from(e: RunError) -> Self {
        TargetError::Point(PointError::Run(e))
    }
}

/// Bisects the grid's one range for where the share of `t.outcome` crosses `t.share`: at or
/// above the target on one side, below on the other. `progress` hears of every run played.
pub fn find(
    grid: &Grid<'_>,
    t: &TargetFlag,
    batch: &Batch,
    jobs: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Found, TargetError> {
    let mut probed: Vec<(u64, bool)> = Vec::new();
    let mut at_or_above = |k: u64| -> Result<bool, TargetError> {
        let p = grid.point(k)?;
        if !(0..p.layout.outcomes()).any(|i| p.layout.outcome_name(i) == t.outcome) {
            let outcomes: Vec<String> = (0..p.layout.outcomes()).map(|i| p.layout.outcome_name(i)).collect();
            let closest = did_you_mean(&t.outcome, outcomes.iter().map(String::as_str));
            return Err(TargetError::NoOutcome { outcome: t.outcome.clone(), outcomes, closest });
        }
        let (mut ruleset, mut scenario) = grid.copy();
        Grid::set_on(&p.set, &mut ruleset, &mut scenario)?;
        let totals = simulate(&ruleset, &scenario, &p.layout, batch, jobs, progress)?;
        let share = report::share(&p.layout, &totals, &t.outcome).filter(|_| totals.completed > 0);
        let value = p.set.first().map(|s| s.1).unwrap_or_default();
        let above = share.ok_or(TargetError::NoShare { value })?.value >= t.share;
        probed.push((k, above));
        Ok(above)
    };
    let last = grid.last();
    let (first_above, last_above) = (at_or_above(0)?, if last == 0 { None } else { Some(at_or_above(last)?) });
    let verdict = match last_above {
        Some(l) if l != first_above => "crossed",
        _ if first_above => "above",
        _ => "below",
    };
    if verdict == "crossed" {
        let (mut lo, mut hi) = (0, last);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if at_or_above(mid)? == first_above {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return Ok(found(probed, lo, hi, verdict));
    }
    Ok(found(probed, 0, last, verdict))
}

fn found(mut probed: Vec<(u64, bool)>, lo: u64, hi: u64, verdict: &'static str) -> Found {
    probed.sort_by_key(|p| p.0);
    probed.dedup_by_key(|p| p.0);
    let ks: Vec<u64> = probed.iter().map(|p| p.0).collect();
    let at = |k: u64| ks.iter().position(|x| *x == k).unwrap_or(0);
    Found { ends: (at(lo), at(hi)), probed: ks, verdict }
}

/// The target's report from the shares of the points probed, in order of value.
pub fn target(t: &TargetFlag, found: &Found, values: &[i64], shares: &[Estimate]) -> Target {
    let (a, b) = found.ends;
    let get = |i: usize| shares.get(i).cloned().unwrap_or(Estimate::point(0.0));
    let rising = shares.first().zip(shares.last()).is_some_and(|(f, l)| l.value >= f.value);
    let monotone = shares.windows(2).all(|w| if rising { w[1].value >= w[0].value } else { w[1].value <= w[0].value });
    let holds = |e: &Estimate| e.low <= t.share && t.share <= e.high;
    let crossed = found.verdict == "crossed";
    Target {
        outcome: t.outcome.clone(),
        share: t.share,
        between: crossed.then(|| [values.get(a).copied().unwrap_or(0), values.get(b).copied().unwrap_or(0)]),
        ends: [get(a), get(b)],
        verdict: found.verdict.to_string(),
        monotone,
        settled: crossed && !holds(&get(a)) && !holds(&get(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_an_outcome_and_a_share() {
        assert_eq!(
            parse_target("heroes left standing=0.5"),
            Ok(TargetFlag { outcome: "heroes left standing".into(), share: 0.5 })
        );
        assert_eq!(parse_target("x = 25%").map(|t| t.share), Ok(0.25));
        assert!(parse_target("x=1.5").is_err());
        assert!(parse_target("x=half").is_err());
        assert!(parse_target("=0.5").is_err());
        assert!(parse_target("x").is_err());
    }

    #[test]
    fn a_bracket_is_the_two_probes_around_the_crossing() {
        let f = found(vec![(0, true), (9, false), (4, true), (6, false), (5, true)], 5, 6, "crossed");
        assert_eq!(f.probed, vec![0, 4, 5, 6, 9]);
        assert_eq!(f.ends, (2, 3));
        let shares: Vec<Estimate> = [0.9, 0.7, 0.55, 0.45, 0.2].iter().map(|v| Estimate::point(*v)).collect();
        let t = target(&TargetFlag { outcome: "x".into(), share: 0.5 }, &f, &[10, 14, 15, 16, 19], &shares);
        assert_eq!(t.between, Some([15, 16]));
        assert!(t.monotone && t.settled);
        let bumpy: Vec<Estimate> = [0.9, 0.4, 0.55, 0.45, 0.2].iter().map(|v| Estimate::point(*v)).collect();
        assert!(!target(&TargetFlag { outcome: "x".into(), share: 0.5 }, &f, &[10, 14, 15, 16, 19], &bumpy).monotone);
    }
}
