//! A scenario's problems with a ruleset as data: what is wrong, the name at fault and the
//! names it could have meant, and where it is written (a path through the scenario's fields,
//! found in its text only when it is shown).

use super::place::{span_of, Seg};
use super::MAX_PARTICIPANTS;
use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::run::world::MAX_POSITION;
use crate::source::{FileId, Span};
use std::fmt;

/// One way a scenario does not fit its ruleset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where it is written: the fields and indices from the top of the scenario down to the
    /// value at fault.
    pub at: Vec<Seg>,
    /// Whose problem it is, as the message starts: a participant's name, `outro`,
    /// `terrain at 3`, ...; empty when the message says it.
    pub whose: String,
    pub what: What,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    /// A name the ruleset (or, for participants, the scenario) does not have; `kind` says what
    /// it should name (`stat`, `action`, `target participant`, ...).
    Unknown {
        kind: &'static str,
        name: String,
        candidates: Vec<String>,
    },
    /// A `Ready` step waits for something that is no action, category, kind or event.
    ReadyOn {
        on: String,
        candidates: Vec<String>,
    },
    TooManyParticipants {
        count: usize,
    },
    NoParticipants,
    SameName {
        name: String,
    },
    /// Two members of a side set the side's one value of a `per side` pool differently.
    SidePoolTwice {
        pool: String,
        side: String,
        first: String,
    },
    FarPosition {
        position: i64,
    },
    NotAZone {
        position: i64,
        zones: Vec<String>,
    },
    NoSuchSide {
        side: String,
    },
    NoSurpriseRound,
    FarTerrain {
        kind: String,
    },
    TerrainWithoutGrid {
        kind: String,
    },
    FarObject {
        name: String,
        place: i64,
    },
    ObjectNowhere {
        name: String,
    },
    /// A `Search` whose `rollout` is `Search` too (playouts would search inside playouts).
    SearchRollout,
    /// The GM's policy is `Search`: the GM has no side whose play could be valued.
    SearchGm,
    /// A `Search` with more playouts than `MAX_PLAYOUTS`.
    SearchPlayouts {
        playouts: u32,
    },
    /// A `Search`'s exploration constant is negative or not a number.
    SearchExploration {
        /// As written (`NaN`, `-1`).
        value: String,
    },
}

impl Problem {
    pub fn new(at: Vec<Seg>, what: What) -> Problem {
        Problem { at, whose: String::new(), what }
    }

    /// The same problem, said of `whose`.
    pub fn of(mut self, whose: &str) -> Problem {
        self.whose = whose.to_string();
        self
    }

    /// What is wrong, in a sentence without the suggestion.
    pub fn message(&self) -> String {
        let said = match &self.what {
            // Participants are the scenario's own names; everything else is the ruleset's.
            What::Unknown { kind, name, .. } if kind.ends_with("participant") => {
                format!("the scenario has no {kind} `{name}`")
            }
            What::Unknown { kind, name, .. } => format!("the ruleset has no {kind} `{name}`"),
            What::ReadyOn { on, .. } => {
                format!("`Ready` waits for `{on}`, which is no action, category, kind or event of the ruleset")
            }
            What::TooManyParticipants { count } => {
                format!("the scenario has {count} participants; an encounter holds at most {MAX_PARTICIPANTS}")
            }
            What::NoParticipants => "the scenario has no participants".to_string(),
            What::SameName { name } => format!("two participants are named `{name}`"),
            What::SidePoolTwice { pool, side, first } => format!(
                "pool `{pool}` is kept per side, and `{first}` already set side `{side}`'s value to another number"
            ),
            What::FarPosition { position } => {
                format!("position {position} is farther from 0 than tempo places anyone ({MAX_POSITION})")
            }
            What::NotAZone { position, zones } => format!(
                "position {position} is not a zone of the ruleset (zones 0 to {}: {})",
                zones.len().saturating_sub(1),
                zones.join(", ")
            ),
            What::NoSuchSide { side } => format!("the surprising side `{side}` has no participants"),
            What::NoSurpriseRound => {
                "the scenario has a surprise side, but the ruleset has no `surprise round`".to_string()
            }
            What::FarTerrain { kind } => {
                format!("terrain `{kind}`: its places are farther from 0 than tempo places anyone ({MAX_POSITION})")
            }
            What::TerrainWithoutGrid { kind } => {
                format!("terrain `{kind}`: terrain lies on the places of `space grid`, which the ruleset does not use")
            }
            What::FarObject { name, place } => {
                format!("object `{name}`: place {place} is farther from 0 than tempo places anyone ({MAX_POSITION})")
            }
            What::SearchRollout => {
                "a `Search` plays out with a simpler policy: its `rollout` cannot be `Search`".to_string()
            }
            What::SearchGm => "the GM's policy cannot be `Search`: the GM has no side to play for".to_string(),
            What::SearchPlayouts { playouts } => super::policy::playouts_refused(*playouts).unwrap_or_default(),
            What::SearchExploration { value } => {
                format!("a `Search`'s `exploration` is a number 0 or more (0.5 by default), not {value}")
            }
            What::ObjectNowhere { name } => {
                format!("object `{name}`: say where it is, either `at: PLACE` or `held_by: [\"NAME\", ...]`")
            }
        };
        if self.whose.is_empty() {
            said
        } else {
            format!("{}: {said}", self.whose)
        }
    }

    /// The name it most likely meant, when one is close.
    pub fn suggestion(&self) -> Option<String> {
        match &self.what {
            What::Unknown { name, candidates, .. } | What::ReadyOn { on: name, candidates } => {
                did_you_mean(name, candidates.iter().map(String::as_str))
            }
            _ => None,
        }
    }

    /// What the label under the value at fault says.
    fn label(&self) -> String {
        match &self.what {
            What::Unknown { kind, .. } => format!("no {kind} of this name"),
            What::ReadyOn { .. } => "nothing of the ruleset has this name".to_string(),
            What::SameName { .. } => "named again".to_string(),
            What::SidePoolTwice { .. } => "set again".to_string(),
            What::FarPosition { .. } | What::FarObject { .. } | What::FarTerrain { .. } => "too far".to_string(),
            What::NotAZone { .. } => "no such zone".to_string(),
            _ => String::new(),
        }
    }

    /// As a diagnostic in `file`, whose text is `text`; `within` is the path to the scenario
    /// inside that text (empty when the file is the scenario). A place the text does not show
    /// (written otherwise than the path says) falls back to the nearest enclosing value found.
    pub fn diagnostic(&self, file: FileId, text: &str, within: &[Seg]) -> Diagnostic {
        let path: Vec<Seg> = within.iter().chain(&self.at).cloned().collect();
        let (start, end) = span_of(text, &path).unwrap_or((0, 0));
        let d = Diagnostic::error(Code::BadScenario, Span::new(file, start, end), self.message()).label(self.label());
        match self.suggestion() {
            Some(best) => d.help(format!("did you mean `{best}`?")),
            None => d,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        if let Some(best) = self.suggestion() {
            write!(f, "; did you mean `{best}`?")?;
        }
        Ok(())
    }
}

/// A side's pool has one value: a member who sets it to `value` while an earlier member of its
/// side set it to another number is a problem.
pub(super) fn side_pool_twice(
    r: &crate::ir::Ruleset,
    out: &super::Resolved,
    (side, side_name): (u32, &str),
    pool: usize,
    value: i64,
    names: &[&str],
) -> Option<What> {
    if !r.pools[pool].per_side {
        return None;
    }
    let same_side = (0..out.pools.len()).filter(|&o| out.sides[o] == side);
    let first = same_side.into_iter().find(|&o| out.pools[o][pool].is_some_and(|v| v != value))?;
    Some(What::SidePoolTwice {
        pool: r.pools[pool].name.clone(),
        side: side_name.to_string(),
        first: names.get(first).map(|n| n.to_string()).unwrap_or_default(),
    })
}

/// Each problem once, the first of the same ones kept: a name misspelt in ten script steps is
/// one mistake.
pub(super) fn once_each(problems: Vec<Problem>) -> Vec<Problem> {
    let mut seen = std::collections::BTreeSet::new();
    problems.into_iter().filter(|p| seen.insert(p.to_string())).collect()
}
