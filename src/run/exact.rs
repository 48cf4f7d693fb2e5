//! `Search` plays exactly where the encounter is small: the first time one of its decisions is
//! searched, the whole encounter is solved (solver.rs) with every searcher's decisions as branch
//! points, within a budget of positions (`Search(exact: N)`); if it solves, every later decision
//! of every searcher is answered from the solution (the option with the best exact chance for
//! its side) and no playout is played. Whether an encounter solves depends on the ruleset and
//! the scenario alone, so a run plays the same whichever runs its runner played before.
//!
//! The solution knows the states between rounds; a decision is taken inside one. So the round
//! under way is followed again from its start (`Explorer::record`: the real run's dice and
//! logged decisions, written on a tape), and each option is valued from there, the states after
//! the round read from the solution. Where the followed state is not the real one (a decision
//! the tape cannot retrace), `Search` plays that decision by its playouts.

use super::controller::Chosen;
use super::engine::{Engine, Exact, ExactShared};
use super::explore::Explorer;
use super::lookahead::Logged;
use super::odds::Odds;
use super::scenario::{Resolved, Scenario};
use super::solver::{Memo, Solver};
use crate::ir::Ruleset;
use std::sync::Arc;

/// Where the solution stands.
enum Solution<'a> {
    /// Not tried yet: the encounter's ruleset and scenario, and the budget.
    Untried {
        budget: u64,
    },
    Solved(Box<Solver<'a, 'static, f64>>),
    /// Too large for the budget, or not soundly solvable (a hidden phase, a `side_value`).
    Unsolved,
}

pub(crate) struct ExactPlay<'a> {
    ruleset: &'a Ruleset,
    scenario: &'a Scenario,
    /// Per participant: played by `Search` (a branch point of the solution).
    deciders: Vec<bool>,
    solution: Solution<'a>,
}

impl<'a> ExactPlay<'a> {
    /// For an encounter with searchers: `None` when one of them plays by playouts alone
    /// (`exact: 0`), for a solution would then take it for an exact player.
    pub(crate) fn new(r: &'a Ruleset, s: &'a Scenario, setup: &Resolved) -> Option<ExactPlay<'a>> {
        let budgets: Vec<u64> = setup
            .controllers
            .iter()
            .filter_map(|c| match c.policy {
                Chosen::Search(p) => Some(p.exact),
                _ => None,
            })
            .collect();
        let budget = budgets.iter().copied().min().filter(|b| *b > 0)?;
        let deciders = setup.controllers.iter().map(|c| matches!(c.policy, Chosen::Search(_))).collect();
        Some(ExactPlay { ruleset: r, scenario: s, deciders, solution: Solution::Untried { budget } })
    }

    /// A walk of the encounter with the searchers' decisions as branch points; `None` where it
    /// cannot be solved soundly.
    fn solver(r: &'a Ruleset, s: &'a Scenario, deciders: &[bool]) -> Option<Solver<'a, 'static, f64>> {
        // A `side_value` is what searchers play for there; the solution values winning.
        if r.derived.iter().any(|d| d.name == super::search::SIDE_VALUE) {
            return None;
        }
        let explorer = Explorer::new(r, s, deciders).ok()?;
        let side_of = deciders.iter().enumerate().map(|(who, d)| d.then(|| explorer.side_of(who))).collect();
        let outcomes = explorer.outcomes();
        Some(Solver::new(explorer, side_of, outcomes, false, false, Box::new(|_| {})))
    }

    /// Solves the whole encounter within `budget` positions (and `WORK_PER_POSITION` times as
    /// much work), where the first round's probe says it may fit, on a thread with room for a path
    /// through the whole encounter; where no thread can be had (WebAssembly), here, as deep as
    /// this thread's stack safely allows (`SHALLOW_DEPTH`).
    fn solve(&self, budget: u64) -> Solution<'a> {
        let (r, s, deciders) = (self.ruleset, self.scenario, self.deciders.as_slice());
        let solve_all = |max_depth: u32| {
            let work = budget.saturating_mul(WORK_PER_POSITION);
            let mut probe = Self::solver(r, s, deciders)?;
            // The first round alone, within a small share of the work: larger says the whole
            // will not fit, found out at that share of the cost.
            (probe.max_work, probe.max_depth) = (work / PROBE_SHARE, max_depth);
            probe.first_round_only = Some(Default::default());
            let probed = probe.root();
            let ends = probe.first_round_only.as_ref().map_or(0, |e| e.len() as u64);
            probed.ok()?;
            // Each state the first round ends in has a round of its own to walk, about as
            // large: an encounter whose first round says it cannot fit is not tried.
            if probe.work.saturating_mul(ends + 1) > work.saturating_mul(PROBE_SLACK) {
                return None;
            }
            let mut solver = Self::solver(r, s, deciders)?;
            (solver.max_states, solver.max_work, solver.max_depth) = (budget, work, max_depth);
            solver.root().ok()?;
            Some(solver.into_memo())
        };
        let on_thread = std::thread::scope(|scope| {
            let spawned =
                std::thread::Builder::new().stack_size(SOLVE_STACK).spawn_scoped(scope, || solve_all(u32::MAX));
            spawned.ok().map(|h| h.join().ok().flatten())
        });
        let memo = match on_thread {
            Some(memo) => memo,
            None => solve_all(super::solver::SHALLOW_DEPTH),
        };
        match memo {
            Some(memo) => self.adopted(Arc::new(memo)),
            None => Solution::Unsolved,
        }
    }

    /// Plays by a finished solve's values.
    fn adopted(&self, memo: Arc<Memo<f64>>) -> Solution<'a> {
        let Some(mut solver) = Self::solver(self.ruleset, self.scenario, &self.deciders) else {
            return Solution::Unsolved;
        };
        solver.adopt(memo);
        // Every position a real run reaches is in the solution: a decision is valued from its
        // round's start to the round's end, the states after read from it.
        solver.frozen = true;
        Solution::Solved(Box::new(solver))
    }
}

/// The work a solve may spend per position of its budget: a position is reached by replaying
/// its round from the start, so its cost grows with the decisions and dice before it in the
/// round (solver.rs, `work`); capping the work too keeps a solve of long rounds (thirty options
/// a decision) within about the time of one of short ones.
const WORK_PER_POSITION: u64 = 10;

/// How far past the work budget the first round's estimate of the whole (its work times the
/// states it ends in, plus one) may go before the solve is not tried: the estimate is rough,
/// and an encounter that shrinks as it goes (foes fall, pools run out) solves in far less.
const PROBE_SLACK: u64 = 4;

/// The first round may take at most this share of the work budget (1/64; so an encounter of
/// one long round is not tried either): most encounters too large to solve are found out at
/// that share of the budget's time.
const PROBE_SHARE: u64 = 64;

/// The stack of the thread a whole encounter is solved on: address space, touched only as deep
/// as the walk goes.
const SOLVE_STACK: usize = 1 << 30;

impl<'a> Exact<'a> for ExactPlay<'a> {
    fn best(
        &mut self,
        start: &Engine<'a, ()>,
        log: &[Logged],
        live: &[u8],
        who: usize,
        options: &[Logged],
        default: Option<usize>,
    ) -> Option<(usize, Vec<f64>)> {
        if let Solution::Untried { budget } = self.solution {
            self.solution = self.solve(budget);
        }
        let Solution::Solved(solver) = &mut self.solution else { return None };
        let followed = solver.explorer().record(start, log).ok()??;
        if followed.who != who || *followed.state != *live {
            return None;
        }
        let (mut taken, n) = (followed.taken, followed.options);
        let offered = solver.explorer().options().to_vec();
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            taken.push(i as u32);
            let v = solver.from_kept(&mut taken);
            taken.pop();
            values.push(solver.score(who, &v.ok()?));
        }
        // Each of the real decision's options valued as the solution values it; where the tape
        // does not offer one of them, the decision is left to the playouts.
        let mut valued = Vec::with_capacity(options.len());
        for o in options {
            valued.push(values.get(offered.iter().position(|p| p == o)?)?);
        }
        if valued.is_empty() {
            return None;
        }
        // The best (the first of equals), unless the rollout policy's own choice is as good.
        let mut best = 0;
        for (j, v) in valued.iter().enumerate() {
            if v.better(valued[best]) {
                best = j;
            }
        }
        if let Some(d) = default.filter(|d| valued.get(*d).is_some_and(|v| !valued[best].better(v))) {
            best = d;
        }
        let shown = valued.iter().map(|v| **v).collect();
        Some((best, shown))
    }

    fn share(&mut self) -> ExactShared {
        if let Solution::Untried { budget } = self.solution {
            self.solution = self.solve(budget);
        }
        match &mut self.solution {
            Solution::Solved(solver) => ExactShared(solver.share()),
            _ => ExactShared(Arc::new(())),
        }
    }

    fn adopt(&mut self, solution: &ExactShared) {
        self.solution = match Arc::clone(&solution.0).downcast::<Memo<f64>>() {
            Ok(memo) => self.adopted(memo),
            Err(_) => Solution::Unsolved,
        };
    }
}
