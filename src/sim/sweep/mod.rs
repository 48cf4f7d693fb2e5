//! Sweep: one scenario played at every value of one number (or every point of a grid of two),
//! all on the same seeds, so that neighbouring points are paired run by run (common random
//! numbers) and their difference is measured far more finely than two separate batches would
//! allow (docs/simulation.md, "Sweeps").
//!
//! `flag` reads `--set NAME=LO..HI[:STEP]`; here each point is built (the scenario and ruleset
//! with its numbers set, exactly as `--set` sets them) and played; `report` turns the totals into
//! the report, `target` finds where an outcome's share crosses a target by bisection, `shard`
//! writes and merges the totals of a slice of the runs, `html` draws the chart.

pub mod flag;
pub mod html;
pub mod report;
pub mod shard;
pub mod target;

use super::compare::Paired;
use super::layout::Layout;
use super::totals::Totals;
use super::{on_threads, seed_of, Batch, Counter};
use crate::ir::Ruleset;
#[cfg(feature = "parallel")]
use crate::par::*;
use crate::run::scenario::{self, Problem, Scenario, SetFlag};
use crate::run::RunError;
pub use flag::{parse_sweep_set, SweepSet, Swept};

/// Most points a sweep plays (a grid counts every cell): beyond it, a step or `--target` says
/// what is wanted at a cost one machine can pay.
pub const MOST_POINTS: u64 = 10_000;

/// One point of a sweep: the numbers set, and what they made of the ruleset and scenario.
pub struct Point {
    /// Each swept name with its value here, in the order the ranges were given.
    pub set: Vec<(String, i64)>,
    pub ruleset: Ruleset,
    pub scenario: Scenario,
    pub layout: Layout,
}

/// The ranges swept, over a ruleset and scenario with everything else already applied.
pub struct Grid<'a> {
    pub ruleset: &'a Ruleset,
    pub scenario: &'a Scenario,
    pub ranges: &'a [Swept],
}

/// Why a point could not be made: a name that is not there, or a scenario that does not fit.
#[derive(Debug)]
pub enum PointError {
    Set(SetFlag, Box<Problem>),
    Run(RunError),
}

impl<'a> Grid<'a> {
    /// How many points the grid has (every combination of the ranges' values), as a `u64`:
    /// `u64::MAX` past it ([`Grid::count_text`] says how many).
    pub fn len(&self) -> u64 {
        self.ranges
            .iter()
            .map(Swept::count)
            .try_fold(1u128, u128::checked_mul)
            .map_or(u64::MAX, |n| u64::try_from(n).unwrap_or(u64::MAX))
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.iter().any(|r| r.count() == 0)
    }

    /// How many points the grid has, exactly, in digits: a range over every `i64` holds 2^64
    /// values (one more than `u64::MAX`), and a grid of two such ranges 2^128 (one more than
    /// `u128::MAX`, the only product that does not fit).
    pub fn count_text(&self) -> String {
        match self.ranges.iter().map(Swept::count).try_fold(1u128, u128::checked_mul) {
            Some(n) => n.to_string(),
            None => "340282366920938463463374607431768211456".to_string(),
        }
    }

    /// The index of the grid's last point along its one range (`--target`'s bisection): the
    /// range's count − 1, which always fits a `u64`.
    pub fn last(&self) -> u64 {
        let n = self.ranges.first().map(Swept::count).unwrap_or(1).max(1);
        u64::try_from(n - 1).unwrap_or(u64::MAX)
    }

    /// The values of point `k`, row-major: the last range varies fastest.
    pub fn values(&self, k: u64) -> Vec<i64> {
        flag::grid_values(self.ranges, k)
    }

    /// Two ranges that reach one participant's own value of one stat (`Brute.hp_max` and
    /// `monsters.hp_max`, Brute on side `monsters`): the later range would win at every point,
    /// so the rows would be labelled with values they do not play. What to say, or `None`.
    pub fn reached_twice(&self) -> Option<String> {
        let reached: Vec<_> = self.ranges.iter().map(|r| scenario::reached(self.scenario, &r.name)).collect();
        for (j, b) in reached.iter().enumerate() {
            for (i, a) in reached[..j].iter().enumerate() {
                let (Some((stat_a, who_a)), Some((stat_b, who_b))) = (a, b) else { continue };
                if let Some(who) = who_b.iter().find(|w| stat_a == stat_b && who_a.contains(w)) {
                    return Some(format!(
                        "`{}` and `{}` both reach {who}'s {stat_a}: each point would play the second's value, so \
                         the rows would be labelled wrongly; sweep two different numbers (or one range)",
                        self.ranges[i].name, self.ranges[j].name
                    ));
                }
            }
        }
        None
    }

    /// Point `k` of the grid: each range's value set as `--set NAME=VALUE` sets it.
    pub fn point(&self, k: u64) -> Result<Point, PointError> {
        let values = self.values(k);
        let mut ruleset = self.ruleset.clone();
        let mut scenario = self.scenario.clone();
        let mut set = Vec::with_capacity(values.len());
        for (r, v) in self.ranges.iter().zip(&values) {
            let flag = SetFlag { name: r.name.clone(), value: *v };
            scenario::apply_set(&mut scenario, &mut ruleset, &flag)
                .map_err(|p| PointError::Set(flag.clone(), Box::new(p)))?;
            set.push((r.name.clone(), *v));
        }
        let layout = super::layout(&ruleset, &scenario).map_err(PointError::Run)?;
        Ok(Point { set, ruleset, scenario, layout })
    }
}

/// What a sweep adds up: each point's totals, and for each point paired with the one before it
/// the paired differences between the two.
#[derive(Debug, Clone, PartialEq)]
pub struct Played {
    pub totals: Vec<Totals>,
    /// `paired[k]`: point k − 1 (A) against point k (B), where point k is paired.
    pub paired: Vec<Option<Paired>>,
}

/// Plays every point on the batch's seeds, run i of every point with the same seed, on `jobs`
/// threads. `paired[k]`: point k is paired with point k − 1 (false for the first of a row).
pub fn play(
    points: &[Point],
    paired: &[bool],
    batch: &Batch,
    jobs: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Played, RunError> {
    // Every point's scenario is checked once, before any thread starts.
    for p in points {
        Counter::new(&p.ruleset, &p.scenario, &p.layout)?;
    }
    let empty = || Played {
        totals: points.iter().map(|p| Totals::new(&p.layout)).collect(),
        paired: (0..points.len())
            .map(|k| match (paired.get(k), k.checked_sub(1).and_then(|j| points.get(j))) {
                (Some(true), Some(q)) => Some(Paired::new(&q.layout, &points[k].layout)),
                _ => None,
            })
            .collect(),
    };
    // Each point's searchers' exact solution (if any), solved once for every thread.
    let solutions: Vec<Option<crate::run::ExactShared>> = points
        .iter()
        .map(|p| Counter::new(&p.ruleset, &p.scenario, &p.layout).ok().and_then(|mut c| c.exact_solution()))
        .collect();
    let work = || {
        super::blocks(&batch.runs)
            .map_init(
                || -> Option<Vec<Counter<'_>>> {
                    points
                        .iter()
                        .zip(&solutions)
                        .map(|(p, x)| {
                            Counter::new(&p.ruleset, &p.scenario, &p.layout).ok().map(|c| c.adopting(x.as_ref()))
                        })
                        .collect()
                },
                |counters, block| {
                    let mut out = empty();
                    if let Some(counters) = counters {
                        for i in block.clone() {
                            play_run(counters, seed_of(batch.seed, i), i, &mut out);
                        }
                    }
                    progress((block.end - block.start).saturating_mul(points.len() as u64));
                    out
                },
            )
            .reduce(empty, |mut x, y| {
                x.merge(&y);
                x
            })
    };
    Ok(on_threads(jobs, work))
}

/// Run i at every point, each tally added to its totals and paired with the point before it.
fn play_run(counters: &mut [Counter<'_>], seed: u64, i: u64, out: &mut Played) {
    let mut before: Option<&super::tally::Tally<'_>> = None;
    for (k, counter) in counters.iter_mut().enumerate() {
        match counter.play(seed) {
            Ok(t) => {
                out.totals[k].add(t);
                if let (Some(a), Some(Some(p))) = (before, out.paired.get_mut(k)) {
                    p.add(&a.values, &t.values);
                }
                before = Some(t);
            }
            Err(e) => {
                out.totals[k].fail(i, seed, &e);
                before = None;
            }
        }
    }
}

impl Played {
    pub fn merge(&mut self, other: &Played) {
        self.totals.iter_mut().zip(&other.totals).for_each(|(a, b)| a.merge(b));
        for (a, b) in self.paired.iter_mut().zip(&other.paired) {
            if let (Some(a), Some(b)) = (a, b) {
                a.merge(b);
            }
        }
    }
}

/// Which points of a grid are paired with the one before them: all but the first of each row
/// (`row` points long; the last range varies along a row).
pub fn pairs_in_rows(points: usize, row: usize) -> Vec<bool> {
    (0..points).map(|k| row != 0 && k % row != 0).collect()
}
