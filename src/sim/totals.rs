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
        // Totals of runs played here hold i64 counts of at most 2^64 runs: their sums fit i128,
        // so only forged totals (shards read from files, which `try_merge` checks) can overflow.
        let _ = self.try_merge(other);
    }

    /// `merge`, refusing (and leaving the sums partly added) where a sum would not fit: what a
    /// merge of shards read from files calls.
    pub fn try_merge(&mut self, other: &Totals) -> Result<(), String> {
        let too_big = || "a sum does not fit (the shard's counts are not a real batch's)".to_string();
        let add_u64 = |a: &mut u64, b: u64| a.checked_add(b).map(|v| *a = v).ok_or_else(too_big);
        add_u64(&mut self.played, other.played)?;
        add_u64(&mut self.completed, other.completed)?;
        let add = |a: &mut Vec<i128>, b: &[i128]| -> Result<(), String> {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (x, y) in a.iter_mut().zip(b) {
                *x = x.checked_add(*y).ok_or_else(too_big)?;
            }
            Ok(())
        };
        add(&mut self.sum, &other.sum)?;
        add(&mut self.sum_sq, &other.sum_sq)?;
        add(&mut self.by_round, &other.by_round)?;
        add(&mut self.by_turn, &other.by_turn)?;
        add(&mut self.options, &other.options)?;
        if self.by_first.len() < other.by_first.len() {
            self.by_first.resize(other.by_first.len(), 0);
        }
        for (x, y) in self.by_first.iter_mut().zip(&other.by_first) {
            add_u64(x, *y)?;
        }
        for (k, v) in &other.rounds {
            add_u64(self.rounds.entry(*k).or_default(), *v)?;
        }
        for (k, v) in &other.chains {
            add_u64(self.chains.entry(*k).or_default(), *v)?;
        }
        for (action, codes) in &other.refusals {
            let mine = self.refusals.entry(action.clone()).or_default();
            for (code, (s, ss)) in codes {
                let e = mine.entry(code.clone()).or_default();
                e.0 = e.0.checked_add(*s).ok_or_else(too_big)?;
                e.1 = e.1.checked_add(*ss).ok_or_else(too_big)?;
            }
        }
        for (code, f) in &other.failures {
            match self.failures.get_mut(code) {
                None => {
                    self.failures.insert(code.clone(), f.clone());
                }
                Some(mine) => {
                    let count = mine.count.checked_add(f.count).ok_or_else(too_big)?;
                    if f.first_run < mine.first_run {
                        *mine = f.clone();
                    }
                    mine.count = count;
                }
            }
        }
        Ok(())
    }

    /// What is wrong with totals read from a file for `layout` and a slice of `runs` runs: sizes
    /// that do not match the layout, counts that no batch could give. Empty when none.
    pub fn problems(&self, layout: &Layout, runs: u64) -> Vec<String> {
        let mut out = Vec::new();
        let Some(len) = layout.checked_len() else {
            return vec!["its layout is too large to be a ruleset's".into()];
        };
        for (name, v) in
            [("sum", &self.sum), ("sum_sq", &self.sum_sq), ("by_round", &self.by_round), ("by_turn", &self.by_turn)]
        {
            if v.len() != len {
                out.push(format!("its `{name}` holds {} counts where its layout has {len}", v.len()));
            }
        }
        let first = (layout.sides.len() + 1).checked_mul(layout.outcomes() + 1);
        if Some(self.by_first.len()) != first && !self.by_first.is_empty() {
            out.push("its `by_first` does not match its layout".into());
        }
        if !out.is_empty() {
            return out;
        }
        if self.played > runs {
            out.push(format!("it played {} runs of a {runs}-run slice", self.played));
        }
        if self.completed > self.played {
            out.push(format!("{} runs ran to the end of {} played", self.completed, self.played));
        }
        let failed = self.failures.values().try_fold(0u64, |a, f| a.checked_add(f.count));
        if failed != self.played.checked_sub(self.completed) {
            out.push("its failures do not add up to the runs that did not finish".into());
        }
        let lengths = self.rounds.values().try_fold(0u64, |a, c| a.checked_add(*c));
        let rounds: Option<i128> =
            self.rounds.iter().try_fold(0i128, |a, (r, c)| a.checked_add(i128::from(*r).checked_mul(i128::from(*c))?));
        if lengths != Some(self.completed) || rounds != self.sum.get(Layout::ROUNDS).copied() {
            out.push("its encounter lengths do not add up to its runs and rounds".into());
        }
        let n = i128::from(self.completed);
        for at in 0..len {
            let (s, ss) = (self.sum[at], self.sum_sq[at]);
            // Σx² ≥ 0, and (Σx)² ≤ n·Σx² (Cauchy–Schwarz) for any real counts; a share is
            // between 0 and n.
            let square_ok = ss >= 0 && s.checked_mul(s).zip(n.checked_mul(ss)).is_none_or(|(a, b)| a <= b);
            let share_ok = layout.kind(at) != super::layout::Kind::Indicator || (0..=n).contains(&s);
            if !square_ok || !share_ok {
                out.push(format!("its count {at} ({s}, {ss}) is not a sum over {n} runs"));
                break;
            }
        }
        out
    }
}

/// Adds option counts position by position (a side that counted none has none).
fn add_options(mine: &mut Vec<i128>, other: impl ExactSizeIterator<Item = i128>) {
    if mine.len() < other.len() {
        mine.resize(other.len(), 0);
    }
    mine.iter_mut().zip(other).for_each(|(x, y)| *x += y);
}
