//! Totals: what many encounters add up to, as exact integer sums, so that any split of the runs
//! (threads, shards on other machines) adds up to the same bytes.

use super::layout::Layout;
use super::tally::Tally;
use crate::run::RunError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Runs that could not finish, by diagnostic code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub count: u64,
    /// The lowest run index that failed this way, and its seed (`tempo run ... --seed`).
    pub first_run: u64,
    pub first_seed: u64,
    /// What the first failure said.
    pub message: String,
}

/// Sums over runs, position by position of a `Layout`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Runs played, finished or not.
    pub played: u64,
    /// Runs that ran to the end (every sum below is over these).
    pub completed: u64,
    /// Σx and Σx² of each count.
    pub sum: Vec<i128>,
    pub(crate) sum_sq: Vec<i128>,
    /// Σx·rounds of each count (for "per round" ratios).
    pub(crate) by_round: Vec<i128>,
    /// Σx·turns of the participant the count belongs to (for "per turn" ratios; 0 where the
    /// count belongs to nobody).
    pub(crate) by_turn: Vec<i128>,
    /// Encounters by length in rounds.
    pub rounds: BTreeMap<u32, u64>,
    /// Chains of reactions by length.
    pub chains: BTreeMap<u32, u64>,
    /// Refusals: action → code → (Σ, Σ²) of per-encounter counts.
    pub refusals: BTreeMap<String, BTreeMap<String, (i128, i128)>>,
    pub failures: BTreeMap<String, Failure>,
    /// Encounters by the side that took the first turn (a row per side, then one for no turn):
    /// how many ran to the end, then how many ended in each outcome (`Layout::outcomes`).
    #[serde(default)]
    pub by_first: Vec<u64>,
    /// Σ of the tally's `options` (affordable, then taken, per participant and action), where
    /// they were counted (the skill report); empty, and left out of a shard, otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<i128>,
}

impl Totals {
    pub fn new(layout: &Layout) -> Totals {
        let n = layout.len();
        Totals {
            played: 0,
            completed: 0,
            sum: vec![0; n],
            sum_sq: vec![0; n],
            by_round: vec![0; n],
            by_turn: vec![0; n],
            rounds: BTreeMap::new(),
            chains: BTreeMap::new(),
            refusals: BTreeMap::new(),
            failures: BTreeMap::new(),
            by_first: vec![0; (layout.sides.len() + 1) * (layout.outcomes() + 1)],
            options: Vec::new(),
        }
    }

    /// Where the row of encounters whose first turn was `side`'s (none: no turn) begins in
    /// `by_first`.
    pub(crate) fn first_row(layout: &Layout, side: Option<usize>) -> usize {
        side.unwrap_or(layout.sides.len()).min(layout.sides.len()) * (layout.outcomes() + 1)
    }

    /// Adds one finished encounter.
    pub fn add(&mut self, t: &Tally<'_>) {
        let layout = t.layout;
        self.played += 1;
        self.completed += 1;
        let rounds = i128::from(t.values[Layout::ROUNDS]);
        for (at, v) in t.values.iter().enumerate() {
            let v = i128::from(*v);
            self.sum[at] += v;
            self.sum_sq[at] += v * v;
            self.by_round[at] += v * rounds;
        }
        for who in 0..layout.participants.len() {
            let turns = i128::from(t.values[layout.turns(who)]);
            let mut per_turn = |at: usize| self.by_turn[at] += i128::from(t.values[at]) * turns;
            per_turn(layout.stuck(who));
            per_turn(layout.turns(who));
            for p in 0..layout.pools.len() {
                per_turn(layout.spent(who, p));
            }
        }
        *self.rounds.entry(u32::try_from(rounds).unwrap_or(u32::MAX)).or_default() += 1;
        for length in &t.chains {
            *self.chains.entry(*length).or_default() += 1;
        }
        add_options(&mut self.options, t.options.iter().map(|v| i128::from(*v)));
        let row = Totals::first_row(layout, t.first_side);
        let mut first = |at: usize| {
            if let Some(v) = self.by_first.get_mut(row + at) {
                *v += 1;
            }
        };
        first(0);
        for k in 0..layout.outcomes() {
            if t.values[layout.outcome(k)] > 0 {
                first(1 + k);
            }
        }
        // Only actions refused in this encounter have an entry: their squares add up right,
        // and an encounter without refusals adds 0 to both sums.
        for (action, code, n) in &t.refusals {
            let entry = self.refusals.entry(action.to_string()).or_default().entry(code.to_string()).or_default();
            entry.0 += i128::from(*n);
            entry.1 += i128::from(*n) * i128::from(*n);
        }
    }

    /// Counts a run that could not finish.
    pub fn fail(&mut self, run: u64, seed: u64, e: &RunError) {
        self.played += 1;
        let code = e.code().name().to_string();
        let first = Failure { count: 0, first_run: run, first_seed: seed, message: e.to_string() };
        let entry = self.failures.entry(code).or_insert(first.clone());
        if run < entry.first_run {
            *entry = Failure { count: entry.count, ..first };
        }
        entry.count += 1;
    }

    /// Adds another set of totals (other runs of the same layout). Exact: the order of merging
    /// never changes the result.
    pub fn merge(&mut self, other: &Totals) {
        self.played += other.played;
        self.completed += other.completed;
        let add = |a: &mut Vec<i128>, b: &Vec<i128>| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.sum, &other.sum);
        add(&mut self.sum_sq, &other.sum_sq);
        add(&mut self.by_round, &other.by_round);
        add(&mut self.by_turn, &other.by_turn);
        add_options(&mut self.options, other.options.iter().copied());
        if self.by_first.len() < other.by_first.len() {
            self.by_first.resize(other.by_first.len(), 0);
        }
        self.by_first.iter_mut().zip(&other.by_first).for_each(|(x, y)| *x += y);
        for (k, v) in &other.rounds {
            *self.rounds.entry(*k).or_default() += v;
        }
        for (k, v) in &other.chains {
            *self.chains.entry(*k).or_default() += v;
        }
        for (action, codes) in &other.refusals {
            let mine = self.refusals.entry(action.clone()).or_default();
            for (code, (s, ss)) in codes {
                let e = mine.entry(code.clone()).or_default();
                e.0 += s;
                e.1 += ss;
            }
        }
        for (code, f) in &other.failures {
            match self.failures.get_mut(code) {
                None => {
                    self.failures.insert(code.clone(), f.clone());
                }
                Some(mine) => {
                    let count = mine.count + f.count;
                    if f.first_run < mine.first_run {
                        *mine = f.clone();
                    }
                    mine.count = count;
                }
            }
        }
    }
}

/// Adds option counts position by position (a side that counted none has none).
fn add_options(mine: &mut Vec<i128>, other: impl ExactSizeIterator<Item = i128>) {
    if mine.len() < other.len() {
        mine.resize(other.len(), 0);
    }
    mine.iter_mut().zip(other).for_each(|(x, y)| *x += y);
}
