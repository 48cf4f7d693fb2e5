//! `tempo solve`: exact answers for small encounters, where `tempo sim` can only estimate.
//!
//! The encounter is a tree of chances (every die, draw and random pick, each outcome as
//! likely) and, with `for`, of the solved side's decisions. The solver walks it a round at a
//! time with the runner itself (`run::Explorer`): a round is played again from its start for
//! each branch, the outcomes so far written on a tape, because part of where a round stands is
//! the runner's call stack. Between two rounds nothing is on the stack, so the states reached
//! there are merged by their canonical bytes (src/run/canon.rs): the value of a state is worked
//! out once, however many ways lead to it (memoised dynamic programming over a DAG: every
//! round moves the clock on, so no state is reached from itself).
//!
//! A state's value is exact: the probability of each outcome and the expected number of rounds,
//! as fractions of big integers. A chance is the mean of its outcomes' values; a decision of the
//! solved side takes the option with the highest chance of that side being left standing (the
//! first of equals), and its value is that option's.

mod report;

pub use report::{json, text, Heading};

use crate::run::{Explorer, Reached, Refusal, RunError};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use std::collections::HashMap;
use std::rc::Rc;

/// The positions a solve explores unless told otherwise (`--max-states`).
pub const DEFAULT_MAX_STATES: u64 = 2_000_000;

/// How many of the solved side's first decisions a plan keeps at most.
const PLAN_KEPT: usize = 4096;

/// What to solve.
#[derive(Debug, Clone, Default)]
pub struct Ask {
    /// Whose decisions are solved for: a participant, or a side (all of its participants),
    /// maximising the chance of its side being left standing. `None`: everyone plays by their
    /// controllers.
    pub for_who: Option<String>,
    /// The most positions explored before the solve stops (`--max-states`).
    pub max_states: u64,
    /// Keep the solved side's first decisions, with every option's value.
    pub plan: bool,
}

/// An exact answer.
#[derive(Debug, Clone)]
pub struct Solution {
    /// Per outcome (numbered as `tempo sim` numbers them), its name and probability.
    pub outcomes: Vec<(String, BigRational)>,
    /// The expected number of rounds played.
    pub rounds: BigRational,
    /// Positions explored: each branch point and each round's end met while walking the tree,
    /// a state between rounds reached again counted once.
    pub states: u64,
    /// Distinct states between rounds (each solved once).
    pub merged: u64,
    /// With `Ask::side`: that side's chance to be left standing under optimal play.
    pub value: Option<BigRational>,
    /// With `Ask::plan`: the solved side's decisions in the encounter's first round as optimal
    /// play meets them, each with every option's value.
    pub plan: Vec<Decision>,
}

/// One decision of the solved side and what each option is worth.
#[derive(Debug, Clone)]
pub struct Decision {
    /// Who decides, and in which round.
    pub who: String,
    pub round: u32,
    /// What was rolled or drawn before it in the round, in words.
    pub after: Vec<String>,
    /// Each option with the solved side's chance to be left standing after taking it.
    pub options: Vec<(String, BigRational)>,
    /// The option taken (the best, the first of equals).
    pub best: usize,
}

/// Why a solve gave no answer.
#[derive(Debug, Clone)]
pub enum SolveError {
    /// The encounter cannot be solved soundly as it is.
    Refused(Refusal),
    /// A rule failed while playing (as it would in `tempo run`).
    Run(RunError),
    /// `for` names neither a participant nor a side; the closest name, if one is close.
    Unknown { name: String, suggestion: Option<String> },
    /// The state budget ran out: how far the solve got.
    Budget { states: u64, merged: u64, round: u32 },
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Refused(Refusal::Run(e)) | SolveError::Run(e) => write!(f, "{e}"),
            SolveError::Refused(Refusal::Searcher(who)) => write!(
                f,
                "{who} is played by `Search`, whose playouts roll dice the solver cannot enumerate: solve for it (`--for {who}`) or give it another policy (`--control {who}=Greedy`)"
            ),
            SolveError::Refused(Refusal::Hidden(phase)) => write!(
                f,
                "phase `{phase}` is hidden: a solved participant would see what the others picked in secret, so optimal play there is not solved (solve without `--for` for the controllers' exact answer)"
            ),
            SolveError::Unknown { name, suggestion } => {
                write!(f, "`{name}` is neither a participant nor a side of the scenario")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean `{s}`?"),
                    None => Ok(()),
                }
            }
            SolveError::Budget { states, merged, round } => write!(
                f,
                "stopped after exploring {states} positions ({merged} distinct states between rounds, the deepest after round {round}) without an answer: shrink the encounter (fewer rounds, less HP, fewer participants or dice) or raise --max-states"
            ),
        }
    }
}

/// What a position is worth: per outcome its probability, and the expected rounds.
#[derive(Debug, Clone, PartialEq)]
struct Value {
    outcomes: Vec<BigRational>,
    rounds: BigRational,
}

impl Value {
    fn zero(n: usize) -> Value {
        Value { outcomes: vec![BigRational::zero(); n], rounds: BigRational::zero() }
    }

    fn ended(n: usize, outcome: usize, round: u32) -> Value {
        let mut v = Value::zero(n);
        if let Some(p) = v.outcomes.get_mut(outcome) {
            *p = BigRational::one();
        }
        v.rounds = BigRational::from_integer(BigInt::from(round));
        v
    }

    fn add(&mut self, other: &Value) {
        for (a, b) in self.outcomes.iter_mut().zip(&other.outcomes) {
            *a += b;
        }
        self.rounds += &other.rounds;
    }

    fn divide(&mut self, n: u32) {
        let n = BigRational::from_integer(BigInt::from(n));
        for p in &mut self.outcomes {
            *p /= &n;
        }
        self.rounds /= &n;
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

struct Solver<'a, 'p> {
    explorer: Explorer<'a>,
    memo: HashMap<Box<[u8]>, Rc<Value>>,
    outcomes: usize,
    side: Option<usize>,
    states: u64,
    max_states: u64,
    deepest: u32,
    plan: Option<Vec<Planned>>,
    /// Per tape entry of the walk under way, in words (kept for the plan only).
    said: Vec<String>,
    /// Which walk of a round's tree is under way (the plan tells their decisions apart by it).
    visit: u64,
    visits: u64,
    progress: &'p mut dyn FnMut(Progress),
}

/// A decision met in the first round, with where it was met (to keep those optimal play meets):
/// which walk of a round's tree (`visit`) and the tape there.
struct Planned {
    visit: u64,
    taken: Vec<u32>,
    decision: Decision,
}

/// Solves the scenario under the ruleset as `ask` says; `progress` is told now and then.
pub fn solve(
    r: &crate::ir::Ruleset,
    s: &crate::run::scenario::Scenario,
    ask: &Ask,
    progress: &mut dyn FnMut(Progress),
) -> Result<Solution, SolveError> {
    let (deciders, side_name) = match &ask.for_who {
        Some(who) => solved(s, who)?,
        None => (Vec::new(), None),
    };
    let explorer = Explorer::new(r, s, &deciders).map_err(SolveError::Refused)?;
    let side = side_name.and_then(|n| explorer.sides().iter().position(|s| *s == n));
    let outcomes = explorer.sides().len() + crate::sim::layout::OTHER_OUTCOMES.len();
    let names: Vec<String> = (0..outcomes).map(|k| outcome_name(explorer.sides(), k)).collect();
    let mut solver = Solver {
        explorer,
        memo: HashMap::new(),
        outcomes,
        side,
        states: 0,
        max_states: if ask.max_states == 0 { DEFAULT_MAX_STATES } else { ask.max_states },
        deepest: 0,
        plan: ask.plan.then(Vec::new),
        said: Vec::new(),
        visit: 0,
        visits: 0,
        progress,
    };
    let value = solver.tree(None, &mut Vec::new())?;
    let plan = solver.plan.take().map(optimal_path).unwrap_or_default();
    Ok(Solution {
        outcomes: names.into_iter().zip(value.outcomes.iter().cloned()).collect(),
        value: solver.side.and_then(|k| value.outcomes.get(k).cloned()),
        rounds: value.rounds,
        states: solver.states,
        merged: solver.memo.len() as u64,
        plan,
    })
}

/// Whose decisions `who` names (a participant, else a side), and their side.
fn solved(s: &crate::run::scenario::Scenario, who: &str) -> Result<(Vec<bool>, Option<String>), SolveError> {
    let ps = &s.participants;
    if let Some(p) = ps.iter().find(|p| p.name == who) {
        return Ok((ps.iter().map(|q| q.name == who).collect(), Some(p.side.clone())));
    }
    if ps.iter().any(|p| p.side == who) {
        return Ok((ps.iter().map(|q| q.side == who).collect(), Some(who.to_string())));
    }
    let names = ps.iter().flat_map(|p| [p.name.as_str(), p.side.as_str()]);
    let suggestion = names
        .map(|n| (strsim::jaro_winkler(n, who), n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n.to_string());
    Err(SolveError::Unknown { name: who.to_string(), suggestion })
}

/// The name of outcome `k`, as `tempo sim` names it.
fn outcome_name(sides: &[String], k: usize) -> String {
    match sides.get(k) {
        Some(side) => format!("{side} left standing"),
        None => crate::sim::layout::OTHER_OUTCOMES.get(k - sides.len()).copied().unwrap_or("other").to_string(),
    }
}

impl Solver<'_, '_> {
    /// The value of the position reached by playing from `from` (a kept state's depth; `None`:
    /// the encounter's start) with the outcomes `taken`.
    fn tree(&mut self, from: Option<usize>, taken: &mut Vec<u32>) -> Result<Value, SolveError> {
        self.states += 1;
        if self.states > self.max_states {
            return Err(SolveError::Budget {
                states: self.states - 1,
                merged: self.memo.len() as u64,
                round: self.deepest,
            });
        }
        if self.states % PROGRESS_EVERY == 0 {
            (self.progress)(Progress { states: self.states, merged: self.memo.len() as u64 });
        }
        match self.explorer.play(from, taken).map_err(SolveError::Run)? {
            Reached::Ended { outcome, round } => Ok(Value::ended(self.outcomes, outcome, round)),
            Reached::Between => self.between(from),
            Reached::Chance { outcomes, die } => {
                let mut sum = Value::zero(self.outcomes);
                let telling = self.plan.is_some() && from.is_none_or(|d| d == 0);
                for k in 0..outcomes {
                    if telling {
                        let what = if die {
                            format!("d{outcomes}: {}", k + 1)
                        } else {
                            format!("draw {} of {outcomes}", k + 1)
                        };
                        self.say(taken.len(), what);
                    }
                    taken.push(k);
                    let v = self.tree(from, taken);
                    taken.pop();
                    sum.add(&v?);
                }
                sum.divide(outcomes);
                Ok(sum)
            }
            Reached::Checkpoint { key } => {
                if let Some(v) = self.memo.get(&key) {
                    return Ok((**v).clone());
                }
                self.say(taken.len(), String::new());
                taken.push(0);
                let v = self.tree(from, taken);
                taken.pop();
                let v = v?;
                self.memo.insert(key, Rc::new(v.clone()));
                Ok(v)
            }
            Reached::Decide { who, options, key: None } => self.decide(from, taken, who, options),
            Reached::Decide { who, options, key: Some(key) } => {
                if let Some(v) = self.memo.get(&key) {
                    return Ok((**v).clone());
                }
                let v = self.decide(from, taken, who, options)?;
                self.memo.insert(key, Rc::new(v.clone()));
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
    fn between(&mut self, from: Option<usize>) -> Result<Value, SolveError> {
        if let Some(v) = self.memo.get(self.explorer.key()) {
            return Ok((**v).clone());
        }
        let key: Box<[u8]> = self.explorer.key().into();
        let depth = from.map_or(0, |d| d + 1);
        self.explorer.keep(depth);
        self.deepest = self.deepest.max(self.explorer.round_of(depth));
        let (visit, said) = (self.visit, std::mem::take(&mut self.said));
        self.visits += 1;
        self.visit = self.visits;
        let v = self.tree(Some(depth), &mut Vec::new());
        (self.visit, self.said) = (visit, said);
        let v = v?;
        self.memo.insert(key, Rc::new(v.clone()));
        Ok(v)
    }

    /// A decision of the solved side: the option with the best chance for it, the first of
    /// equals.
    fn decide(&mut self, from: Option<usize>, taken: &mut Vec<u32>, who: usize, n: usize) -> Result<Value, SolveError> {
        let first_round = from.is_none_or(|d| d == 0);
        let labels: Vec<String> = if first_round && self.plan.is_some() {
            (0..n).map(|i| self.explorer.option_label(i)).collect()
        } else {
            Vec::new()
        };
        let who_name = self.explorer.names().get(who).cloned().unwrap_or_default();
        let mut best: Option<(usize, Value)> = None;
        let mut values = Vec::new();
        for i in 0..n {
            if !labels.is_empty() {
                self.say(taken.len(), format!("{who_name}: {}", labels[i]));
            }
            taken.push(i as u32);
            let v = self.tree(from, taken);
            taken.pop();
            let v = v?;
            let score = self.score(&v);
            if !labels.is_empty() {
                values.push(score.clone());
            }
            if best.as_ref().is_none_or(|(_, b)| score > self.score(b)) {
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

    /// What the solved side maximises: its chance to be left standing.
    fn score(&self, v: &Value) -> BigRational {
        self.side.and_then(|k| v.outcomes.get(k).cloned()).unwrap_or_else(BigRational::zero)
    }
}

/// The decisions optimal play meets: those every earlier decision of whose round (the same
/// start, a shorter tape that begins theirs) took the best option, in the order met.
fn optimal_path(planned: Vec<Planned>) -> Vec<Decision> {
    let on_path = |p: &Planned| {
        planned.iter().all(|q| {
            q.visit != p.visit
                || q.taken.len() >= p.taken.len()
                || !p.taken.starts_with(&q.taken)
                || p.taken[q.taken.len()] as usize == q.decision.best
        })
    };
    let mut kept: Vec<(u64, Vec<u32>, Decision)> =
        planned.iter().filter(|p| on_path(p)).map(|p| (p.visit, p.taken.clone(), p.decision.clone())).collect();
    // In the order play meets them: by walk (the encounter's start first), then by tape.
    kept.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    kept.into_iter().map(|(_, _, d)| d).collect()
}
