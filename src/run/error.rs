//! Why a run could not finish.

use super::budget::STEP_BUDGET;
use crate::diagnostics::Code;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The scenario names things the ruleset does not have (every problem listed).
    Scenario(Vec<String>),
    /// Triggers or thresholds kept firing each other; the names of the rules in the cycle.
    Cycle(Vec<String>),
    /// A rule could not be evaluated (a value overflowed, a `target` that is not there).
    Rule(String),
    /// The sink stopped taking events (its output failed, e.g. a closed pipe): the encounter
    /// was abandoned at the start of the next round.
    Output,
}

impl RunError {
    /// Says where a rule failed: each caller on the way out adds the rule it was running, so the
    /// message reads from the failing value out to the action or timing that began it.
    pub fn within(self, place: impl FnOnce() -> String) -> RunError {
        match self {
            RunError::Rule(message) => RunError::Rule(format!("{message}, in {}", place())),
            other => other,
        }
    }

    /// The diagnostic code a run that failed this way is reported under. `Output` (the trace
    /// could not be written) is reported by the caller with the write error itself.
    pub fn code(&self) -> Code {
        match self {
            RunError::Scenario(_) => Code::BadScenario,
            RunError::Cycle(_) => Code::TriggerCycle,
            RunError::Rule(_) | RunError::Output => Code::RuleFailed,
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(problems) => {
                write!(f, "the scenario does not fit the ruleset:\n  {}", problems.join("\n  "))
            }
            RunError::Cycle(names) => write!(
                f,
                "the encounter was stopped after {} steps: these rules keep triggering each other: {}",
                STEP_BUDGET,
                names.join(" -> ")
            ),
            RunError::Rule(message) => write!(f, "a rule could not be applied: {message}"),
            RunError::Output => f.write_str("the trace could not be written, so the encounter was abandoned"),
        }
    }
}
