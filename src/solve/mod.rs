//! `tempo solve`: exact answers for small encounters, where `tempo sim` can only estimate.
//!
//! The dynamic programme itself is the runner's (src/run/solver.rs), which `Search` also
//! plays by where an encounter is small; here what to solve, and the answer.

mod report;

pub use report::{json, text, Heading};

pub use crate::run::Progress;
use crate::run::{Explorer, Fraction, Refusal, RunError, Solver, Stop};
use num_rational::BigRational;

/// The positions a solve explores unless told otherwise (`--max-states`).
pub const DEFAULT_MAX_STATES: u64 = 2_000_000;

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
    /// Merge states between rounds only, not turn decisions inside them: the same answer,
    /// explored the long way (tests hold the two equal).
    pub between_rounds_only: bool,
}

/// One decision of the solved side and what each option is worth.
pub type Decision = crate::run::SolvedDecision<BigRational>;

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
                "phase `{phase}` is hidden: a solved participant (named by `--for`, or played by `Search`) would see what the others picked in secret, so optimal play there is not solved (solve without `--for`, with no participant under `Search`, for the controllers' exact answer)"
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

/// Solves the scenario under the ruleset as `ask` says; `progress` is told now and then.
pub fn solve(
    r: &crate::ir::Ruleset,
    s: &crate::run::scenario::Scenario,
    ask: &Ask,
    progress: &mut dyn FnMut(Progress),
) -> Result<Solution, SolveError> {
    let (for_who, side_name) = match &ask.for_who {
        Some(who) => solved(s, who)?,
        None => (vec![false; s.participants.len()], None),
    };
    // A participant played by `Search` plays optimally for its own side, as `Search` does
    // where the encounter solves within its budget (run/exact.rs): solved too.
    let deciders: Vec<bool> =
        s.participants.iter().zip(&for_who).map(|(p, named)| *named || plays_by_search(&p.controller)).collect();
    let explorer = Explorer::new(r, s, &deciders).map_err(SolveError::Refused)?;
    let side = side_name.and_then(|n| explorer.sides().iter().position(|s| *s == n));
    let outcomes = explorer.outcomes();
    let names: Vec<String> = (0..outcomes).map(|k| outcome_name(explorer.sides(), k)).collect();
    // Those named by `--for` play for its side; a searcher not named, for its own.
    let side_of = (0..deciders.len())
        .map(|who| match (for_who[who], deciders[who]) {
            (true, _) => side,
            (false, true) => Some(explorer.side_of(who)),
            (false, false) => None,
        })
        .collect();
    let mut solver: Solver<Fraction> =
        Solver::new(explorer, side_of, outcomes, ask.plan, ask.between_rounds_only, Box::new(progress));
    solver.max_states = if ask.max_states == 0 { DEFAULT_MAX_STATES } else { ask.max_states };
    // `tempo solve` runs on a thread with room for very long paths (src/cli/solve.rs).
    solver.max_depth = u32::MAX;
    let value = solver.root().map_err(|stop| match stop {
        Stop::Run(e) => SolveError::Run(e),
        Stop::Budget { states, merged, round } => SolveError::Budget { states, merged, round },
    })?;
    let plan = solver
        .plan()
        .into_iter()
        .map(|d| Decision {
            who: d.who,
            round: d.round,
            after: d.after,
            options: d.options.into_iter().map(|(o, v)| (o, v.into_big())).collect(),
            best: d.best,
        })
        .collect();
    Ok(Solution {
        outcomes: names.into_iter().zip(value.outcomes.iter().map(|p| p.clone().into_big())).collect(),
        value: side.and_then(|k| value.outcomes.get(k).map(|p| p.clone().into_big())),
        rounds: value.rounds.into_big(),
        states: solver.states(),
        merged: solver.merged(),
        plan,
    })
}

/// Whether a controller leaves every decision to `Search` (a script with a `Search` fallback
/// decides some itself, which the solver would not follow: still refused).
fn plays_by_search(c: &crate::run::scenario::Controller) -> bool {
    use crate::run::scenario::{Controller, Policy};
    matches!(c, Controller::Policy(Policy::Search(_)))
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
