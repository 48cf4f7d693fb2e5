//! Why a run could not finish.

use super::budget::STEP_BUDGET;
use super::scenario::{Problem, Seg};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::Loc;
use crate::source::{FileId, SourceMap, Span};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The scenario names things the ruleset does not have (every problem listed).
    Scenario(Vec<Problem>),
    /// Triggers or thresholds kept firing each other; the names of the rules in the cycle.
    Cycle(Vec<String>),
    /// A budget ran out inside one rule, with no rules firing each other: the step budget in a
    /// `repeat while` (or loops inside loops), or the dice budget. `rule` names the rule.
    Stopped { message: String, rule: Option<String> },
    /// A rule could not be evaluated (a value overflowed, a `target` that is not there).
    Rule {
        message: String,
        /// The innermost rule under way when it failed, if the engine knew one.
        rule: Option<Loc>,
    },
    /// The sink stopped taking events (its output failed, e.g. a closed pipe): the encounter
    /// was abandoned at the start of the next round.
    Output,
    /// The exact solver's run met a branch point past its tape and stopped there (src/run/tape.rs):
    /// never reported, the solver plays the round again.
    Branched,
}

impl RunError {
    /// A rule that could not be applied; where, `at` adds.
    pub fn rule(message: impl Into<String>) -> RunError {
        RunError::Rule { message: message.into(), rule: None }
    }

    /// Says which rule was under way when a rule failed, unless a rule further in already said.
    pub fn at(self, rule: Option<Loc>) -> RunError {
        match self {
            RunError::Rule { message, rule: None } => RunError::Rule { message, rule },
            other => other,
        }
    }

    /// Says where a rule failed: each caller on the way out adds the rule it was running, so the
    /// message reads from the failing value out to the action or timing that began it.
    pub fn within(self, place: impl FnOnce() -> String) -> RunError {
        match self {
            RunError::Rule { message, rule } => RunError::Rule { message: format!("{message}, in {}", place()), rule },
            other => other,
        }
    }

    /// Names the rule a budget ran out in (`place`: "smash by Aria"), unless a rule further in
    /// already did: a step budget spent with no rule fired in the cascade is a loop of this one.
    pub fn in_rule(self, place: impl FnOnce() -> String) -> RunError {
        match self {
            RunError::Cycle(names) if names.is_empty() => RunError::Stopped {
                message: format!(
                    "{STEP_BUDGET} steps were spent in one cascade by a `repeat while` (or loops inside loops) that \
                     keeps going"
                ),
                rule: Some(place()),
            },
            RunError::Stopped { message, rule: None } => RunError::Stopped { message, rule: Some(place()) },
            other => other,
        }
    }

    /// The diagnostic code a run that failed this way is reported under. `Output` (the trace
    /// could not be written) is reported by the caller with the write error itself.
    pub fn code(&self) -> Code {
        match self {
            RunError::Scenario(_) => Code::BadScenario,
            RunError::Cycle(_) | RunError::Stopped { .. } => Code::TriggerCycle,
            RunError::Rule { .. } | RunError::Output | RunError::Branched => Code::RuleFailed,
        }
    }

    /// Where the rule that failed is written, `FILE:LINE:COLUMN`, for a line without its source.
    pub fn rule_place(&self, files: &[String]) -> Option<String> {
        let RunError::Rule { rule: Some(loc), .. } = self else { return None };
        let file = files.get(usize::from(loc.file))?;
        Some(format!("{file}:{}:{}", loc.line, loc.column))
    }

    /// This error as diagnostics, for `diagnostics::render`: each scenario problem at its place
    /// in `scenario` (the file in `sources` holding it, and the path to the scenario inside that
    /// file, empty when the file is the scenario); a rule that failed at that rule, when
    /// `sources` holds its file (named `files[loc.file]`, as `ir::Ruleset::files` names them).
    /// `None` when there is no place to show: the caller says it in a line.
    pub fn diagnostics(
        &self,
        sources: &SourceMap,
        scenario: Option<(FileId, &[Seg])>,
        files: &[String],
    ) -> Option<Vec<Diagnostic>> {
        match self {
            RunError::Scenario(problems) => {
                let (file, within) = scenario?;
                let text = sources.text(file);
                Some(problems.iter().map(|p| p.diagnostic(file, text, within)).collect())
            }
            RunError::Rule { rule: Some(loc), .. } => {
                let name = files.get(usize::from(loc.file))?;
                let file = (0..sources.names().count()).map(|i| FileId(i as u32)).find(|f| sources.name(*f) == name)?;
                let (start, end) = span_in(sources.text(file), loc)?;
                let span = Span::new(file, start, end);
                Some(vec![Diagnostic::error(self.code(), span, self.to_string()).label("while applying this rule")])
            }
            _ => None,
        }
    }
}

/// Where a `Loc` is in `text`: from its line and column (1-based, in characters) to the end of
/// that line, as `why` shows a rule. `None` when the text has no such place.
fn span_in(text: &str, loc: &Loc) -> Option<(usize, usize)> {
    let line_start = match loc.line {
        0 => return None,
        1 => 0,
        n => text.match_indices('\n').nth(n as usize - 2).map(|(i, _)| i + 1)?,
    };
    let line = &text[line_start..];
    let line = line[..line.find('\n').unwrap_or(line.len())].trim_end();
    let start = line.char_indices().nth((loc.column as usize).checked_sub(1)?).map(|(i, _)| i)?;
    Some((line_start + start, line_start + line.len()))
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(problems) => {
                f.write_str("the scenario does not fit the ruleset:")?;
                problems.iter().try_for_each(|p| write!(f, "\n  {p}"))
            }
            RunError::Cycle(names) if names.is_empty() => {
                write!(f, "the encounter was stopped after {STEP_BUDGET} steps in one cascade")
            }
            RunError::Cycle(names) => write!(
                f,
                "the encounter was stopped after {} steps: these rules keep triggering each other: {}",
                STEP_BUDGET,
                names.join(" -> ")
            ),
            RunError::Stopped { message, rule: Some(rule) } => {
                write!(f, "the encounter was stopped: {message}, in {rule}")
            }
            RunError::Stopped { message, rule: None } => write!(f, "the encounter was stopped: {message}"),
            RunError::Rule { message, .. } => write!(f, "a rule could not be applied: {message}"),
            RunError::Output => f.write_str("the trace could not be written, so the encounter was abandoned"),
            RunError::Branched => f.write_str("the solver's run stopped at a branch point past its tape"),
        }
    }
}
