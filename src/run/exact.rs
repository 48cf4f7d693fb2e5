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
    Solved(Box<Solver<'a, 'static>>),
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
    fn solver(r: &'a Ruleset, s: &'a Scenario, deciders: &[bool]) -> Option<Solver<'a, 'static>> {
        // A `side_value` is what searchers play for there; the solution values winning.
        if r.derived.iter().any(|d| d.name == super::search::SIDE_VALUE) {
            return None;
        }
        let explorer = Explorer::new(r, s, deciders).ok()?;
        let side_of = deciders.iter().enumerate().map(|(who, d)| d.then(|| explorer.side_of(who))).collect();
        let outcomes = explorer.outcomes();
        Some(Solver::new(explorer, side_of, outcomes, false, false, Box::new(|_| {})))
    }

    /// Solves the whole encounter within `budget` positions, on a thread with room for a path
    /// through the whole encounter; where no thread can be had (WebAssembly), here, as deep as
    /// this thread's stack safely allows (`SHALLOW_DEPTH`).
    fn solve(&self, budget: u64) -> Solution<'a> {
        let (r, s, deciders) = (self.ruleset, self.scenario, self.deciders.as_slice());
        let solve_all = |max_depth: u32| {
            let mut solver = Self::solver(r, s, deciders)?;
            (solver.max_states, solver.max_depth) = (budget, max_depth);
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
    fn adopted(&self, memo: Arc<Memo>) -> Solution<'a> {
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
        // The best of the real decision's options (the first of equals), each valued as the
        // solution values it; one the tape does not offer is not taken.
        let mut best: Option<usize> = None;
        let mut shown = Vec::with_capacity(options.len());
        for (j, o) in options.iter().enumerate() {
            let value = offered.iter().position(|p| p == o).map(|i| &values[i]);
            shown.push(value.map_or(f64::NAN, |v| num_traits::ToPrimitive::to_f64(v).unwrap_or(f64::NAN)));
            if let Some(v) = value {
                let better = best
                    .is_none_or(|b| offered.iter().position(|p| *p == options[b]).is_some_and(|bi| *v > values[bi]));
                if better {
                    best = Some(j);
                }
            }
        }
        // Among equals the rollout policy's own choice keeps its place, as with playouts.
        let value_of = |j: usize| offered.iter().position(|p| *p == options[j]).map(|i| &values[i]);
        if let (Some(b), Some(d)) = (best, default) {
            if value_of(d).is_some() && value_of(d) == value_of(b) {
                best = Some(d);
            }
        }
        best.map(|b| (b, shown))
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
        self.solution = match Arc::clone(&solution.0).downcast::<Memo>() {
            Ok(memo) => self.adopted(memo),
            Err(_) => Solution::Unsolved,
        };
    }
}
