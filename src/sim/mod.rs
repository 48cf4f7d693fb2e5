//! Sim: many encounters of one scenario, counted as they happen and summed exactly, with
//! estimates and intervals for the designer (docs/simulation.md).
//!
//! The pipeline: `layout` (where each count lives) → `tally` (a sink that counts one
//! encounter) → `totals` (exact sums over runs; threads and shards merge them) → `summary`
//! (estimates with intervals, as a table or JSON) and `compare` (two rulesets on the same seeds).
//! `stats` holds the interval methods, `shard` the file a shard writes, `sweep` one scenario at
//! every value of a number (or two) on the same seeds.
//!
//! Invariants: run i's seed depends only on the batch seed and i (`seed_of`); every sum is an
//! integer, so how the runs are split between threads or machines never changes a byte.

pub mod compare;
pub mod html;
pub mod layout;
pub mod shard;
pub mod skill;
pub mod stats;
pub mod summary;
pub mod sweep;
pub mod tally;
pub mod totals;

use crate::ir::Ruleset;
use crate::par::*;
use crate::run::scenario::{self, Scenario};
use crate::run::{RunError, Runner};
use layout::Layout;
use std::ops::Range;
use tally::Tally;
use totals::Totals;

/// Runs are handed to threads in blocks of this many: small enough to spread the work, large
/// enough that a block's set-up is nothing beside its encounters.
const BLOCK: u64 = 64;

/// The seed of run `i` of a batch seeded `seed`: SplitMix64 of `seed + (i + 1) · φ`, where φ is
/// 0x9E3779B97F4A7C15 (wrapping arithmetic). Any run can be replayed alone with
/// `tempo run RULES SCENARIO --seed <seed_of(seed, i)>`.
pub fn seed_of(seed: u64, i: u64) -> u64 {
    const PHI: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut z = seed.wrapping_add(i.wrapping_add(1).wrapping_mul(PHI));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Which runs of a batch to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub seed: u64,
    /// Run indices (0-based); run i plays with `seed_of(seed, i)`.
    pub runs: Range<u64>,
}

/// The runs of shard `k` (1-based) of `n` over `runs` runs: disjoint, in order, covering all.
pub fn shard_range(runs: u64, k: u64, n: u64) -> Range<u64> {
    let at = |j: u64| (u128::from(runs) * u128::from(j) / u128::from(n.max(1))) as u64;
    at(k.saturating_sub(1))..at(k)
}

/// The layout of counts for a ruleset and scenario; the scenario's problems if it does not fit.
pub fn layout(r: &Ruleset, s: &Scenario) -> Result<Layout, RunError> {
    let setup = scenario::resolve(s, r).map_err(RunError::Scenario)?;
    Ok(Layout::new(r, s, &setup))
}

/// A runner that counts, made once per thread and reused for each of its runs.
pub struct Counter<'a> {
    runner: Runner<'a, Tally<'a>>,
}

impl<'a> Counter<'a> {
    pub fn new(r: &'a Ruleset, s: &'a Scenario, layout: &'a Layout) -> Result<Counter<'a>, RunError> {
        Counter::counting(r, s, layout, false)
    }

    /// A counter that also counts, when `options`, what was affordable at each decision a
    /// policy made and what was taken (`Tally::count_options`).
    pub fn counting(
        r: &'a Ruleset,
        s: &'a Scenario,
        layout: &'a Layout,
        options: bool,
    ) -> Result<Counter<'a>, RunError> {
        let mut tally = Tally::new(layout);
        if options {
            tally.count_options();
        }
        let mut runner = Runner::new(r, s, tally)?;
        let names = tally::Index::new(runner.names());
        runner.sink_mut().set_index(names);
        Ok(Counter { runner })
    }

    /// The exact solution this counter's searchers play by, solved now
    /// (`Runner::exact_solution`), for the counters on other threads to adopt.
    pub fn exact_solution(&mut self) -> Option<crate::run::ExactShared> {
        self.runner.exact_solution()
    }

    /// This counter, playing by `solution` where there is one (`Runner::adopt_exact`).
    pub fn adopting(mut self, solution: Option<&crate::run::ExactShared>) -> Counter<'a> {
        if let Some(x) = solution {
            self.runner.adopt_exact(x);
        }
        self
    }

    /// Plays the next runs with other numbers (`Runner::set_numbers`); `false` (nothing
    /// changed) where the runner cannot take them.
    pub fn set_numbers(&mut self, defaults: &[(usize, i64)], own: &[(usize, usize, i64)]) -> bool {
        self.runner.set_numbers(defaults, own)
    }

    /// Plays run `i` and returns its tally (valid until the next `play`), or why it failed.
    pub fn play(&mut self, seed: u64) -> Result<&Tally<'a>, RunError> {
        self.runner.sink_mut().clear();
        self.runner.play(Some(seed))?;
        let tally = self.runner.sink();
        if tally.ended() {
            Ok(tally)
        } else {
            Err(RunError::rule("the encounter did not reach its end"))
        }
    }

    /// Plays the runs and adds each to `totals`.
    pub fn play_into(&mut self, batch_seed: u64, runs: Range<u64>, totals: &mut Totals) {
        for i in runs {
            let seed = seed_of(batch_seed, i);
            match self.play(seed) {
                Ok(tally) => totals.add(tally),
                Err(e) => totals.fail(i, seed, &e),
            }
        }
    }
}

/// Plays a batch on `jobs` threads (all cores if `None`), calling `progress` with the number of
/// runs each finished block held. Returns the exact totals, the same whatever `jobs` is.
pub fn simulate(
    r: &Ruleset,
    s: &Scenario,
    layout: &Layout,
    batch: &Batch,
    jobs: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Totals, RunError> {
    simulate_counting(r, s, layout, batch, jobs, progress, false)
}

/// `simulate`, also counting, when `options`, what was affordable at each decision and what
/// was taken (`Totals::options`).
pub fn simulate_counting(
    r: &Ruleset,
    s: &Scenario,
    layout: &Layout,
    batch: &Batch,
    jobs: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
    options: bool,
) -> Result<Totals, RunError> {
    // The scenario is checked once, before any thread starts, and the searchers' exact
    // solution (if any) solved once for every thread.
    let solution = Counter::counting(r, s, layout, options)?.exact_solution();
    let work = || {
        blocks(&batch.runs)
            .map_init(
                || Counter::counting(r, s, layout, options).ok().map(|c| c.adopting(solution.as_ref())),
                |counter, block| {
                    let mut totals = Totals::new(layout);
                    if let Some(counter) = counter {
                        counter.play_into(batch.seed, block.clone(), &mut totals);
                    }
                    progress(block.end - block.start);
                    totals
                },
            )
            .reduce(
                || Totals::new(layout),
                |mut a, b| {
                    a.merge(&b);
                    a
                },
            )
    };
    Ok(on_threads(jobs, work))
}

/// Runs `work` on a pool of `jobs` threads (one per core if `None`); on this thread if no pool
/// can be had.
#[cfg(feature = "parallel")]
fn on_threads<T: Send>(jobs: Option<usize>, work: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().num_threads(jobs.unwrap_or(0)).build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

/// Without threads, `work` runs here (it gives the same results on any number of threads).
#[cfg(not(feature = "parallel"))]
fn on_threads<T>(_jobs: Option<usize>, work: impl FnOnce() -> T) -> T {
    work()
}

/// The blocks of a batch's runs, made as they are taken: a batch of 10^12 runs holds no more
/// memory than one of 10^3 (issue 33).
#[cfg(feature = "parallel")]
fn blocks(runs: &Range<u64>) -> impl ParallelIterator<Item = Range<u64>> + use<> {
    let (start, end, count) = block_span(runs);
    (0..count).into_par_iter().map(move |b| block(start, end, b))
}

/// Without threads, the same blocks in order.
#[cfg(not(feature = "parallel"))]
fn blocks(runs: &Range<u64>) -> crate::par::Seq<impl Iterator<Item = Range<u64>> + use<>> {
    let (start, end, count) = block_span(runs);
    (0..count).into_par_iter().map(move |b| block(start, end, b))
}

fn block_span(runs: &Range<u64>) -> (u64, u64, u64) {
    let (start, end) = (runs.start, runs.end.max(runs.start));
    (start, end, (end - start).div_ceil(BLOCK))
}

fn block(start: u64, end: u64, b: u64) -> Range<u64> {
    let at = start + b * BLOCK;
    at..at.saturating_add(BLOCK).min(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_splitmix64() {
        // SplitMix64's reference output for state 0 after one step: 0xE220A8397B1DCDAF.
        assert_eq!(seed_of(0, 0), 0xE220_A839_7B1D_CDAF);
        assert_ne!(seed_of(0, 1), seed_of(1, 0));
    }

    #[test]
    fn shards_cover_every_run_once() {
        for runs in [0u64, 1, 7, 1000, 1001] {
            for n in 1..6u64 {
                let ranges: Vec<_> = (1..=n).map(|k| shard_range(runs, k, n)).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[ranges.len() - 1].end, runs);
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            }
        }
    }
}
