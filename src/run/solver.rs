//! The exact solver's dynamic programme (`tempo solve`, src/solve/; and `Search` where the
//! encounter is small, exact.rs).
//!
//! The encounter is a tree of chances (every die, draw and random pick, each outcome as
//! likely) and of the solved participants' decisions. The solver walks it a round at a time
//! with the runner itself (`Explorer`): a round is played again from its start for each
//! branch, the outcomes so far written on a tape, because part of where a round stands is the
//! runner's call stack. Between two rounds nothing is on the stack, so the states reached there
//! are merged by their canonical bytes (canon.rs): the value of a state is worked out once,
//! however many ways lead to it (memoised dynamic programming over a DAG: every round moves the
//! clock on, so no state is reached from itself).
//!
//! A state's value is exact: the probability of each outcome and the expected number of rounds,
//! as fractions of big integers. A chance is the mean of its outcomes' values; a solved
//! participant's decision takes the option with the highest chance of its own side being left
//! standing (the first of equals), and its value is that option's: with solved participants on
//! two sides, each plays its best against the other's (backward induction).

use super::error::RunError;
use super::explore::{Explorer, Reached};
use super::odds::{Fraction, Odds};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The values worked out, by canonical bytes. (Fx: the keys are the encounter's own bytes, not
/// an adversary's, and it hashes them several times faster than the default SipHash; its order
/// is never read.)
pub type Memo<N = Fraction> = FxHashMap<Box<[u8]>, Value<N>>;

/// How many of the solved side's first decisions a plan keeps at most.
const PLAN_KEPT: usize = 4096;

/// How deep the walk may recurse (branch points along one path) before it stops, where it runs
/// on whatever thread asks (each level takes a few kilobytes of stack in a debug build, and a
/// thread may have 2 MiB): `Search`'s answers inside a round, which stop at the round's end
/// (`frozen`). A whole encounter is solved on a thread of its own with a large stack
/// (`tempo solve`, exact.rs), which lifts this.
pub const SHALLOW_DEPTH: u32 = 256;

/// One decision of the solved side and what each option is worth.
#[derive(Debug, Clone)]
pub struct Decision<N = Fraction> {
    /// Who decides, and in which round.
    pub who: String,
    pub round: u32,
    /// What was rolled or drawn before it in the round, in words.
    pub after: Vec<String>,
    /// Each option with the solved side's chance to be left standing after taking it.
    pub options: Vec<(String, N)>,
    /// The option taken (the best, the first of equals).
    pub best: usize,
}

/// Why a walk gave no answer.
#[derive(Debug, Clone)]
pub enum Stop {
    /// A rule failed while playing (as it would in `tempo run`).
    Run(RunError),
    /// The state budget ran out (or the walk went deeper than allowed): how far it got.
    Budget { states: u64, merged: u64, round: u32 },
}

/// What a position is worth: per outcome its probability, and the expected rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Value<N = Fraction> {
    pub outcomes: Vec<N>,
    pub rounds: N,
}

impl<N: Odds> Value<N> {
    fn zero(n: usize) -> Self {
        Value { outcomes: vec![N::zero(); n], rounds: N::zero() }
    }

    fn ended(n: usize, outcome: usize, round: u32) -> Self {
        let mut v = Self::zero(n);
        if let Some(p) = v.outcomes.get_mut(outcome) {
            *p = N::one();
        }
        v.rounds = N::whole(round);
        v
    }

    fn add(&mut self, other: &Self) {
        for (a, b) in self.outcomes.iter_mut().zip(&other.outcomes) {
            a.add(b);
        }
        self.rounds.add(&other.rounds);
    }

    fn add_scaled(&mut self, other: &Self, by: &N) {
        for (a, b) in self.outcomes.iter_mut().zip(&other.outcomes) {
            a.add_scaled(b, by);
        }
        self.rounds.add_scaled(&other.rounds, by);
    }

    fn divide(&mut self, n: u32) {
        for p in &mut self.outcomes {
            p.divide(n);
        }
        self.rounds.divide(n);
    }
}

/// Progress, told now and then while a solve runs.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub states: u64,
    pub merged: u64,
}

/// How often (in positions) progress is told.
const PROGRESS_EVERY: u64 = 1 << 15;

/// The walk: the explorer it plays with, the values worked out so far, and what it maximises.
pub struct Solver<'a, 'p, N = Fraction> {
    explorer: Explorer<'a>,
    memo: Memo<N>,
    /// Values worked out by another walk of the same encounter, read only (`share`).
    shared: Option<Arc<Memo<N>>>,
    outcomes: usize,
    /// Per participant: the side (an outcome's index) whose chance it maximises when it is a
    /// solved participant.
    side_of: Vec<Option<usize>>,
    states: u64,
    /// The positions explored, each counted with the tape entries replayed to reach it: about
    /// the walk's time (a position deep in a long round costs a replay of all before it).
    pub work: u64,
    /// Positions explored (and work spent) before the walk stops, and how deep it may recurse.
    pub max_states: u64,
    pub max_work: u64,
    pub max_depth: u32,
    /// Every state between rounds the walk can reach is known already (a finished solve's
    /// values adopted): one not known means the walk strayed from it, and it stops there.
    pub frozen: bool,
    /// A probe of the first round only: the states it ends in are kept here, not walked on.
    pub first_round_only: Option<std::collections::HashSet<Box<[u8]>>>,
    depth: u32,
    deepest: u32,
    plan: Option<Vec<Planned<N>>>,
    between_rounds_only: bool,
    /// Per tape entry of the walk under way, in words (kept for the plan only).
    said: Vec<String>,
    /// Which walk of a round's tree is under way (the plan tells their decisions apart by it).
    visit: u64,
    visits: u64,
    progress: Box<dyn FnMut(Progress) + 'p>,
}

/// A decision met in the first round, with where it was met (to keep those optimal play meets):
/// which walk of a round's tree (`visit`) and the tape there.
struct Planned<N> {
    visit: u64,
    taken: Vec<u32>,
    decision: Decision<N>,
}

impl<'a, 'p, N: Odds> Solver<'a, 'p, N> {
    /// A walk of `explorer`'s encounter; `side_of` per participant (solved ones only), the side
    /// it plays for; `outcomes`, how many outcomes an encounter has; with `plan`, the solved
    /// decisions of the first round are kept with every option's value.
    pub fn new(
        explorer: Explorer<'a>,
        side_of: Vec<Option<usize>>,
        outcomes: usize,
        plan: bool,
        between_rounds_only: bool,
        progress: Box<dyn FnMut(Progress) + 'p>,
    ) -> Self {
        Solver {
            explorer,
            memo: Memo::default(),
            shared: None,
            outcomes,
            side_of,
            states: 0,
            work: 0,
            max_states: u64::MAX,
            max_work: u64::MAX,
            max_depth: SHALLOW_DEPTH,
            frozen: false,
            first_round_only: None,
            depth: 0,
            deepest: 0,
            plan: plan.then(Vec::new),
            between_rounds_only,
            said: Vec::new(),
            visit: 0,
            visits: 0,
            progress,
        }
    }

    /// The value of the encounter from its start.
    pub fn root(&mut self) -> Result<Value<N>, Stop> {
        self.tree(None, &mut Vec::new())
    }

    /// The value of the position reached by playing from the state kept at depth 0 with the
    /// outcomes `taken` (a round's start, `Explorer::record`).
    pub fn from_kept(&mut self, taken: &mut Vec<u32>) -> Result<Value<N>, Stop> {
        self.tree(Some(0), taken)
    }

    pub fn explorer(&mut self) -> &mut Explorer<'a> {
        &mut self.explorer
    }

    /// The value worked out for `key`, by this walk or the one shared.
    fn known(&self, key: &[u8]) -> Option<&Value<N>> {
        self.memo.get(key).or_else(|| self.shared.as_deref()?.get(key))
    }

    /// Everything worked out so far, to share with walks of the same encounter on other
    /// threads (`adopt`); this walk reads it from there too from now on.
    pub fn share(&mut self) -> Arc<Memo<N>> {
        if !self.memo.is_empty() || self.shared.is_none() {
            let mut all = self.shared.take().map(|m| (*m).clone()).unwrap_or_default();
            all.extend(std::mem::take(&mut self.memo));
            self.shared = Some(Arc::new(all));
        }
        self.shared.clone().unwrap_or_default()
    }

    /// Everything worked out, for another thread (`adopt`).
    pub fn into_memo(mut self) -> Memo<N> {
        let mut all = self.shared.take().map(|m| (*m).clone()).unwrap_or_default();
        all.extend(std::mem::take(&mut self.memo));
        all
    }

    /// Reads the values another walk of the same encounter worked out (`share`).
    pub fn adopt(&mut self, memo: Arc<Memo<N>>) {
        self.shared = Some(memo);
    }

    /// Positions explored so far, and distinct states worked out.
    pub fn states(&self) -> u64 {
        self.states
    }

    pub fn merged(&self) -> u64 {
        (self.memo.len() + self.shared.as_deref().map_or(0, Memo::len)) as u64
    }

    /// The solved decisions optimal play meets in the first round (with `plan`).
    pub fn plan(&mut self) -> Vec<Decision<N>> {
        self.plan.take().map(optimal_path).unwrap_or_default()
    }

    /// What `who` maximises: its side's chance to be left standing.
    pub fn score(&self, who: usize, v: &Value<N>) -> N {
        let side = self.side_of.get(who).copied().flatten();
        side.and_then(|k| v.outcomes.get(k).cloned()).unwrap_or_else(N::zero)
    }
}

impl<N: Odds> Solver<'_, '_, N> {
    /// The value of the position reached by playing from `from` (a kept state's depth; `None`:
    /// the encounter's start) with the outcomes `taken`.
    fn tree(&mut self, from: Option<usize>, taken: &mut Vec<u32>) -> Result<Value<N>, Stop> {
        self.depth += 1;
        let v = self.walk(from, taken);
        self.depth -= 1;
        v
    }

    fn walk(&mut self, from: Option<usize>, taken: &mut Vec<u32>) -> Result<Value<N>, Stop> {
        self.states += 1;
        self.work += 1 + taken.len() as u64;
        if self.states > self.max_states || self.work > self.max_work || self.depth > self.max_depth {
            return Err(Stop::Budget { states: self.states - 1, merged: self.memo.len() as u64, round: self.deepest });
        }
        if self.states % PROGRESS_EVERY == 0 {
            (self.progress)(Progress { states: self.states, merged: self.memo.len() as u64 });
        }
        match self.explorer.play(from, taken).map_err(Stop::Run)? {
            Reached::Ended { outcome, round } => Ok(Value::ended(self.outcomes, outcome, round)),
            Reached::Between => self.between(from),
            Reached::Chance { outcomes, die, weights } => {
                let mut sum = Value::zero(self.outcomes);
                let telling = self.plan.is_some() && from.is_none_or(|d| d == 0);
                let total: u128 = weights.iter().map(|w| u128::from(*w)).sum();
                for k in 0..outcomes {
                    if telling {
                        let what = match (die, weights.is_empty()) {
                            (true, _) => format!("d{outcomes}: {}", k + 1),
                            (false, true) => format!("draw {} of {outcomes}", k + 1),
                            (false, false) => format!("{k} successes"),
                        };
                        self.say(taken.len(), what);
                    }
                    let weight = weights.get(k as usize).copied();
                    if weight == Some(0) {
                        continue;
                    }
                    taken.push(k);
                    let v = self.tree(from, taken);
                    taken.pop();
                    match weight {
                        Some(w) => sum.add_scaled(&v?, &N::ratio(w, total)),
                        None => sum.add(&v?),
                    }
                }
                if weights.is_empty() {
                    sum.divide(outcomes);
                }
                Ok(sum)
            }
            Reached::Checkpoint { key } => {
                if self.between_rounds_only {
                    taken.push(0);
                    let v = self.tree(from, taken);
                    taken.pop();
                    return v;
                }
                if let Some(v) = self.known(&key) {
                    return Ok(v.clone());
                }
                self.say(taken.len(), String::new());
                taken.push(0);
                let v = self.tree(from, taken);
                taken.pop();
                let v = v?;
                self.memo.insert(key, v.clone());
                Ok(v)
            }
            Reached::Decide { who, options, key } => {
                let Some(key) = key.filter(|_| !self.between_rounds_only) else {
                    return self.decide(from, taken, who, options);
                };
                if let Some(v) = self.known(&key) {
                    return Ok(v.clone());
                }
                let v = self.decide(from, taken, who, options)?;
                self.memo.insert(key, v.clone());
                Ok(v)
            }
        }
    }

    /// Keeps what tape entry `at` of the walk under way was, in words (for the plan; a
    /// checkpoint's is empty).
    fn say(&mut self, at: usize, what: String) {
        if self.plan.is_none() {
            return;
        }
        self.said.resize(at, String::new());
        self.said.push(what);
    }

    /// A state between two rounds: its value once worked out, else worked out from a kept copy.
    fn between(&mut self, from: Option<usize>) -> Result<Value<N>, Stop> {
        let key: Box<[u8]> = self.explorer.key().into();
        if let Some(v) = self.known(&key) {
            return Ok(v.clone());
        }
        if self.frozen {
            return Err(Stop::Budget { states: self.states, merged: self.merged(), round: self.deepest });
        }
        // (Reached from the encounter's start, a state is before the first round.)
        if let Some(ends) = self.first_round_only.as_mut().filter(|_| from.is_some()) {
            ends.insert(key);
            return Ok(Value::zero(self.outcomes));
        }
        let depth = from.map_or(0, |d| d + 1);
        self.explorer.keep(depth);
        self.deepest = self.deepest.max(self.explorer.round_of(depth));
        let (visit, said) = (self.visit, std::mem::take(&mut self.said));
        self.visits += 1;
        self.visit = self.visits;
        let v = self.tree(Some(depth), &mut Vec::new());
        (self.visit, self.said) = (visit, said);
        let v = v?;
        self.memo.insert(key, v.clone());
        Ok(v)
    }

    /// A decision of the solved side: the option with the best chance for it, the first of
    /// equals.
    fn decide(&mut self, from: Option<usize>, taken: &mut Vec<u32>, who: usize, n: usize) -> Result<Value<N>, Stop> {
        let first_round = from.is_none_or(|d| d == 0);
        let labels: Vec<String> = if first_round && self.plan.is_some() {
            (0..n).map(|i| self.explorer.option_label(i)).collect()
        } else {
            Vec::new()
        };
        // Named only for the plan: a name copied at every decision was an allocation each.
        let who_name =
            if labels.is_empty() { String::new() } else { self.explorer.names().get(who).cloned().unwrap_or_default() };
        let mut best: Option<(usize, Value<N>)> = None;
        let mut values = Vec::new();
        for i in 0..n {
            if !labels.is_empty() {
                self.say(taken.len(), format!("{who_name}: {}", labels[i]));
            }
            taken.push(i as u32);
            let v = self.tree(from, taken);
            taken.pop();
            let v = v?;
            let score = self.score(who, &v);
            if !labels.is_empty() {
                values.push(score.clone());
            }
            if best.as_ref().is_none_or(|(_, b)| score.better(&self.score(who, b))) {
                best = Some((i, v));
            }
        }
        let Some((best_i, best_v)) = best else { return Ok(Value::zero(self.outcomes)) };
        if let (Some(plan), false) = (self.plan.as_mut(), labels.is_empty()) {
            if plan.len() < PLAN_KEPT {
                let round = from.map_or(0, |_| 1);
                let after = self.said.iter().take(taken.len()).filter(|s| !s.is_empty()).cloned().collect();
                let decision = Decision {
                    who: who_name,
                    round,
                    after,
                    options: labels.into_iter().zip(values).collect(),
                    best: best_i,
                };
                plan.push(Planned { visit: self.visit, taken: taken.clone(), decision });
            }
        }
        Ok(best_v)
    }
}

/// The decisions optimal play meets: those every earlier decision of whose round (the same
/// start, a shorter tape that begins theirs) took the best option, in the order met.
fn optimal_path<N: Odds>(planned: Vec<Planned<N>>) -> Vec<Decision<N>> {
    // A decision whose options are all worth the same says nothing about how to play.
    let matters = |p: &Planned<N>| p.decision.options.iter().any(|(_, v)| *v != p.decision.options[0].1);
    let on_path = |p: &Planned<N>| {
        planned.iter().all(|q| {
            q.visit != p.visit
                || q.taken.len() >= p.taken.len()
                || !p.taken.starts_with(&q.taken)
                || p.taken[q.taken.len()] as usize == q.decision.best
        })
    };
    let mut kept: Vec<(u64, Vec<u32>, Decision<N>)> = planned
        .iter()
        .filter(|p| matters(p) && on_path(p))
        .map(|p| (p.visit, p.taken.clone(), p.decision.clone()))
        .collect();
    // In the order play meets them: by walk (the encounter's start first), then by tape.
    kept.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    kept.into_iter().map(|(_, _, d)| d).collect()
}
