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
use std::sync::Arc;

/// Most points a sweep plays (a grid counts every cell): beyond it, a step or `--target` says
/// what is wanted at a cost one machine can pay.
pub const MOST_POINTS: u64 = 10_000;

/// One point of a sweep: the numbers set, and the layout of its counts. Only the numbers differ
/// from point to point, so no point holds a ruleset or a scenario of its own: whatever plays it
/// sets its numbers on a working copy ([`Grid::set_on`]), and the points of one grid share one
/// layout (a 2,000-action ruleset swept over 700 points held 700 copies of both, and each thread
/// a runner for every point: 2.5 GB; issue 45).
pub struct Point {
    /// Each swept name with its value here, in the order the ranges were given.
    pub set: Vec<(String, i64)>,
    pub layout: Arc<Layout>,
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

    /// A working copy of the grid's ruleset and scenario, for [`Grid::set_on`].
    pub fn copy(&self) -> (Ruleset, Scenario) {
        (self.ruleset.clone(), self.scenario.clone())
    }

    /// Sets the numbers `set` (a point's: every range's name with a value) on a working copy, as
    /// `--set NAME=VALUE` sets them. Setting is assigning: each name reaches the same places at
    /// every point (a stat's default, or the named participants' own values), so a copy that
    /// held another point's numbers holds exactly this point's afterwards, as a fresh copy would.
    pub fn set_on(set: &[(String, i64)], ruleset: &mut Ruleset, scenario: &mut Scenario) -> Result<(), PointError> {
        for (name, value) in set {
            let flag = SetFlag { name: name.clone(), value: *value };
            scenario::apply_set(scenario, ruleset, &flag).map_err(|p| PointError::Set(flag.clone(), Box::new(p)))?;
        }
        Ok(())
    }

    /// Point `k` of the grid: each range's value set as `--set NAME=VALUE` sets it.
    pub fn point(&self, k: u64) -> Result<Point, PointError> {
        self.points(&[k]).map(|mut p| p.remove(0))
    }

    /// The points `ks`, made on one working copy, sharing one layout where theirs are the same
    /// (they are: only numbers differ). A point whose name is not there, or whose scenario does
    /// not fit, is the error.
    pub fn points(&self, ks: &[u64]) -> Result<Vec<Point>, PointError> {
        let (mut ruleset, mut scenario) = self.copy();
        let mut out: Vec<Point> = Vec::with_capacity(ks.len());
        for k in ks {
            let set: Vec<(String, i64)> =
                self.ranges.iter().zip(self.values(*k)).map(|(r, v)| (r.name.clone(), v)).collect();
            Grid::set_on(&set, &mut ruleset, &mut scenario)?;
            let made = super::layout(&ruleset, &scenario).map_err(PointError::Run)?;
            let layout = match out.last() {
                Some(p) if *p.layout == made => Arc::clone(&p.layout),
                _ => Arc::new(made),
            };
            out.push(Point { set, layout });
        }
        Ok(out)
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

/// Plays every point of `grid` on the batch's seeds, run i of every point with the same seed, on
/// `jobs` threads. `paired[k]`: point k is paired with point k − 1 (false for the first of a row).
///
/// Memory does not grow with the points times the ruleset (issue 45): each thread makes one
/// runner from the grid's ruleset and scenario and plays every point with it, only the swept
/// numbers set anew at each point (`Runner::set_numbers`). Where that cannot be (a `Search`
/// controller, whose playouts and exact solution are made from the numbers, or points of
/// different layouts), the thread keeps one working copy of the ruleset and scenario and makes a
/// runner from it for each point in turn. Either way a thread takes a block of runs and plays
/// it point by point, keeping the block's counts at the point before for the pairing; each
/// point's totals and pairs add the same runs in the same order whatever `jobs` is, so the
/// output is the same byte for byte.
pub fn play(
    grid: &Grid<'_>,
    points: &[Point],
    paired: &[bool],
    batch: &Batch,
    jobs: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Played, RunError> {
    // Every point's scenario is checked once, before any thread starts, and its searchers' exact
    // solution (if any) solved once for every thread.
    let mut solutions: Vec<Option<crate::run::ExactShared>> = Vec::with_capacity(points.len());
    {
        let (mut ruleset, mut scenario) = grid.copy();
        for p in points {
            Grid::set_on(&p.set, &mut ruleset, &mut scenario).map_err(point_failed)?;
            solutions.push(Counter::new(&ruleset, &scenario, &p.layout)?.exact_solution());
        }
    }
    let reach = Reach::of(grid, points);
    let empty = || Played {
        totals: points.iter().map(|p| Totals::new(&p.layout)).collect(),
        paired: (0..points.len())
            .map(|k| match (paired.get(k), k.checked_sub(1).and_then(|j| points.get(j))) {
                (Some(true), Some(q)) => Some(Paired::new(&q.layout, &points[k].layout)),
                _ => None,
            })
            .collect(),
    };
    let work = || {
        super::blocks(&batch.runs)
            .map_init(
                || Worker::new(grid, points, reach.as_deref()),
                |worker, block| {
                    let mut out = empty();
                    worker.play_block(points, &solutions, batch.seed, block.clone(), &mut out);
                    progress((block.end - block.start).saturating_mul(points.len() as u64));
                    out
                },
            )
            // Without an identity: a sweep's totals are as large as its points times its counts
            // (about 0.45 MB a point for a 2,000-action duel), and each empty one made to start
            // a reduction was another copy of them.
            .reduce_with(|mut x, y| {
                x.merge(&y);
                x
            })
            .unwrap_or_else(empty)
    };
    Ok(on_threads(jobs, work))
}

/// A point's numbers that cannot be set once the points were made: as a run error (it cannot
/// happen: the points were made by setting them).
fn point_failed(e: PointError) -> RunError {
    match e {
        PointError::Run(e) => e,
        PointError::Set(flag, p) => RunError::rule(format!("--set {}: {}", flag.name, p.message())),
    }
}

/// Where a range's number goes in a runner made from the grid's ruleset and scenario: a stat's
/// default (`STAT`), or the own value of that stat of the participants a `WHO.STAT` reaches
/// (the places `--set` assigns).
enum Reach {
    Default(usize),
    Own(usize, Vec<usize>),
}

impl Reach {
    /// Each range's, in order; `None` where one runner cannot play every point: a name that
    /// does not resolve, or points whose layouts are not the one they share.
    fn of(grid: &Grid<'_>, points: &[Point]) -> Option<Vec<Reach>> {
        let first = points.first()?;
        if !points.iter().all(|p| Arc::ptr_eq(&p.layout, &first.layout)) {
            return None;
        }
        grid.ranges
            .iter()
            .map(|r| {
                let (who, stat) = scenario::target_of(&r.name).ok()?;
                let i = grid.ruleset.stats.iter().position(|x| x.name == stat)?;
                if who.is_none() {
                    return Some(Reach::Default(i));
                }
                let (_, names) = scenario::reached(grid.scenario, &r.name)?;
                let at = |n: &String| grid.scenario.participants.iter().position(|p| p.name == *n);
                Some(Reach::Own(i, names.iter().map(at).collect::<Option<Vec<usize>>>()?))
            })
            .collect()
    }

    /// The numbers of a point (its values, in the ranges' order) as `Runner::set_numbers` takes
    /// them, into `defaults` and `own` (emptied first).
    fn numbers(reach: &[Reach], p: &Point, defaults: &mut Vec<(usize, i64)>, own: &mut Vec<(usize, usize, i64)>) {
        defaults.clear();
        own.clear();
        for (r, (_, v)) in reach.iter().zip(&p.set) {
            match r {
                Reach::Default(i) => defaults.push((*i, *v)),
                Reach::Own(i, who) => own.extend(who.iter().map(|w| (*w, *i, *v))),
            }
        }
    }
}

/// What a thread plays the points with.
enum Worker<'g> {
    /// One runner for every point, each point's numbers set on it.
    One { counter: Box<Counter<'g>>, reach: &'g [Reach] },
    /// A working copy of the ruleset and scenario: each point's numbers set on it, and a runner
    /// made from it for the point.
    Copy(Box<(Ruleset, Scenario)>),
}

impl<'g> Worker<'g> {
    fn new(grid: &'g Grid<'g>, points: &'g [Point], reach: Option<&'g [Reach]>) -> Worker<'g> {
        let one = reach.zip(points.first()).and_then(|(reach, p)| {
            let mut counter = Counter::new(grid.ruleset, grid.scenario, &p.layout).ok()?;
            // A runner with searchers refuses: its playouts are made from the numbers.
            counter.set_numbers(&[], &[]).then_some(Worker::One { counter: Box::new(counter), reach })
        });
        one.unwrap_or_else(|| Worker::Copy(Box::new(grid.copy())))
    }

    /// The runs of `block` at every point, point by point: each tally added to its point's
    /// totals and paired with the same run at the point before.
    fn play_block(
        &mut self,
        points: &[Point],
        solutions: &[Option<crate::run::ExactShared>],
        seed: u64,
        block: std::ops::Range<u64>,
        out: &mut Played,
    ) {
        let runs = usize::try_from(block.end - block.start).unwrap_or(0);
        // Run j of the block at the point before: its counts, or `None` where it failed.
        let mut before: Vec<Option<Vec<i64>>> = vec![None; runs];
        let (mut defaults, mut own) = (Vec::new(), Vec::new());
        for (k, p) in points.iter().enumerate() {
            let played = match self {
                Worker::One { counter, reach } => {
                    Reach::numbers(reach, p, &mut defaults, &mut own);
                    counter.set_numbers(&defaults, &own) && play_runs(counter, k, seed, block.clone(), &mut before, out)
                }
                Worker::Copy(copy) => {
                    let (ruleset, scenario) = &mut **copy;
                    Grid::set_on(&p.set, ruleset, scenario).is_ok()
                        && Counter::new(ruleset, scenario, &p.layout).is_ok_and(|c| {
                            let mut c = c.adopting(solutions.get(k).and_then(Option::as_ref));
                            play_runs(&mut c, k, seed, block.clone(), &mut before, out)
                        })
                }
            };
            // Checked before any thread started: a point that cannot be played is not reached.
            if !played {
                before.iter_mut().for_each(|b| *b = None);
            }
        }
    }
}

/// The block's runs at point `k`, with the counts of each at the point before in `before`
/// (replaced by this point's). Always `true`: each run's failure is counted.
fn play_runs(
    counter: &mut Counter<'_>,
    k: usize,
    seed: u64,
    block: std::ops::Range<u64>,
    before: &mut [Option<Vec<i64>>],
    out: &mut Played,
) -> bool {
    for (j, i) in block.enumerate() {
        let run_seed = seed_of(seed, i);
        match counter.play(run_seed) {
            Ok(t) => {
                out.totals[k].add(t);
                if let (Some(a), Some(Some(pair))) = (&before[j], out.paired.get_mut(k)) {
                    pair.add(a, &t.values);
                }
                match &mut before[j] {
                    Some(b) => b.clone_from(&t.values),
                    none => *none = Some(t.values.clone()),
                }
            }
            Err(e) => {
                out.totals[k].fail(i, run_seed, &e);
                before[j] = None;
            }
        }
    }
    true
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{compile_with, MemoryLoader};

    const FRONTIERS: &str = include_str!("../../../rulesets/frontiers.rules");
    const DUEL: &str = include_str!("../../../examples/frontiers-duel.ron");
    /// Two heroes against a brute: a side's stat reaches two participants.
    const SKIRMISH: &str = include_str!("../../../examples/frontiers-no-revive-skirmish.ron");
    /// The duel with Aria's decisions Search's (by playouts): a runner with searchers.
    const SEARCHED: &str = include_str!("../../../tests/search/frontiers-duel.ron");

    fn frontiers() -> Ruleset {
        let loader = MemoryLoader::new().with("frontiers.rules", FRONTIERS.as_bytes().to_vec());
        compile_with(&loader, std::path::Path::new("frontiers.rules")).ruleset.expect("Frontiers compiles")
    }

    fn range(text: &str) -> Swept {
        match parse_sweep_set(text) {
            Ok(SweepSet::Range(r)) => r,
            other => panic!("{text}: {other:?}"),
        }
    }

    /// Every point of a sweep, played with one runner per thread (or a working copy, with
    /// searchers), has the totals it has played alone from a fresh copy with its numbers set; and
    /// one thread or three give the same totals and pairs.
    #[test]
    fn every_point_of_a_sweep_is_the_point_played_alone_whatever_the_threads() {
        let ruleset = frontiers();
        let cases: [(&str, &[&str], u64, bool); 5] = [
            // Defaults and participants' own values, across two blocks of runs (one short).
            (DUEL, &["hp_max=8..10", "Brute.damage=3..4"], 70, true),
            (DUEL, &["monsters.attack_bonus=0..2", "damage=2..3"], 70, true),
            // A participant's own value it already had in the scenario.
            (DUEL, &["Aria.finesse=10..16:3"], 40, true),
            (SKIRMISH, &["heroes.initiative_base=3..7:2", "physical_defense_base=9..11:2"], 40, true),
            (SEARCHED, &["Brute.hp_max=12..13"], 2, false),
        ];
        for (text, sets, runs, one) in cases {
            let scenario = crate::run::scenario::parse(text).expect("the scenario parses");
            let ranges: Vec<Swept> = sets.iter().map(|s| range(s)).collect();
            let grid = Grid { ruleset: &ruleset, scenario: &scenario, ranges: &ranges };
            let points = grid.points(&(0..grid.len()).collect::<Vec<u64>>()).expect("the points are made");
            let reach = Reach::of(&grid, &points);
            let worker = Worker::new(&grid, &points, reach.as_deref());
            assert_eq!(matches!(worker, Worker::One { .. }), one, "{sets:?}: one runner for every point");
            let row = usize::try_from(ranges.last().map(Swept::len).unwrap_or(1)).unwrap();
            let pairs = pairs_in_rows(points.len(), row);
            let batch = Batch { seed: 11, runs: 0..runs };
            let alone = play(&grid, &points, &pairs, &batch, Some(1), &|_| {}).expect("plays");
            let three = play(&grid, &points, &pairs, &batch, Some(3), &|_| {}).expect("plays");
            assert!(alone == three, "{sets:?}: one thread and three differ");
            assert!(alone.paired.iter().flatten().all(|p| p.n > 0), "{sets:?}: the points were paired");
            for (p, totals) in points.iter().zip(&alone.totals) {
                let (mut r, mut s) = grid.copy();
                Grid::set_on(&p.set, &mut r, &mut s).expect("sets");
                let fresh = super::super::simulate(&r, &s, &p.layout, &batch, Some(1), &|_| {}).expect("plays");
                assert!(fresh == *totals, "{sets:?} at {:?}: the sweep's totals are not the point's alone", p.set);
            }
        }
    }
}
