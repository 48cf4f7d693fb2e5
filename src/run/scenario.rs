//! Scenarios: who takes part and how their decisions are made (contracts.md, "Scenarios";
//! format in docs/scenario.md). Parsed from RON, then checked against a ruleset, which turns
//! every name into an index once.

use crate::ir::{self, Ruleset};
use crate::run::world::MAX_POSITION;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Used when `--seed` is not given.
    #[serde(default)]
    pub seed: u64,
    /// The encounter ends after this many rounds at the latest.
    pub rounds: u32,
    pub participants: Vec<ParticipantSpec>,
    /// The side that surprises the others (needs `surprise round` in the ruleset).
    #[serde(default)]
    pub surprise: Option<String>,
    /// Decisions the rules leave to the GM (ties, GM choices).
    #[serde(default = "default_gm")]
    pub gm: Policy,
    /// Standing answers to the ruleset's GM questions: question (as written in `choose gm`) to
    /// option. Every asking of that question is answered so, whatever the `gm` policy.
    #[serde(default)]
    pub gm_answers: BTreeMap<String, String>,
    /// How the encounter is wound down, by the name of one of the ruleset's outros.
    #[serde(default)]
    pub outro: Option<OutroSpec>,
    /// What happens after the encounter.
    #[serde(default)]
    pub after: Option<After>,
    /// Ground laid on places of the line, by the names of the ruleset's `terrain` kinds.
    #[serde(default)]
    pub terrain: Vec<TerrainSpec>,
    /// Things on the map or in hands, by the names of the ruleset's `object` kinds.
    #[serde(default)]
    pub objects: Vec<ObjectSpec>,
}

/// `(kind: "difficult", from: 2, to: 5)`: the places from `from` to `to` (both included; `to`
/// defaults to `from`) are of that terrain.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainSpec {
    pub kind: String,
    pub from: i64,
    #[serde(default)]
    pub to: Option<i64>,
}

/// `(kind: "shield", held_by: ["B"])` or `(kind: "chest", at: 3)`; `name` (the kind's, by default)
/// is what traces call it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectSpec {
    pub kind: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub at: Option<i64>,
    #[serde(default)]
    pub held_by: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutroSpec {
    pub name: String,
    /// For an outro that `continues`: how many more rounds, without initiative.
    #[serde(default)]
    pub rounds: u32,
}

fn default_gm() -> Policy {
    Policy::Aggressive
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParticipantSpec {
    pub name: String,
    pub side: String,
    #[serde(default)]
    pub player: bool,
    /// Stat values; stats not named keep the ruleset's defaults.
    #[serde(default)]
    pub stats: BTreeMap<String, i64>,
    /// Starting pool values instead of the pools' `start`.
    #[serde(default)]
    pub pools: BTreeMap<String, i64>,
    /// Conditions held when the encounter starts.
    #[serde(default)]
    pub conditions: Vec<HeldSpec>,
    /// Place on the grid (units along a line) or index of a zone.
    #[serde(default)]
    pub position: i64,
    pub controller: Controller,
}

#[derive(Debug, Clone, Deserialize)]
pub enum Controller {
    /// A built-in policy decides everything.
    Policy(Policy),
    /// Scripted decisions first; the fallback policy decides what the script does not cover.
    Script { steps: Vec<Step>, fallback: Policy },
}

/// A built-in way of deciding.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub enum Policy {
    /// Spends everything on offence: the first affordable action against the first enemy in
    /// reach, again and again; takes every reaction it can afford; answers a choice with the
    /// option that scores best for it in the state (docs/scenario.md, "How outcomes are scored").
    /// As the GM's policy: the first option of a `choose gm`, ties in seating order.
    Aggressive,
    /// Like `Aggressive`, but never spends `pool` below `keep` on its own turn, so the rest
    /// can pay for reactions.
    HoldBack { pool: String, keep: i64 },
    /// Weighs every candidate by a documented score of its effects (expected harm to enemies,
    /// help to itself and allies, the price of an overspend) and takes the best, one ply deep;
    /// closes in like `Aggressive` when nothing scores above 0. Reactions like `Aggressive`.
    Greedy,
    /// Decides at random from the run's seeded generator.
    Random,
    /// Ends every turn at once and declines every reaction (a dummy); answers choices like
    /// `Aggressive`.
    Passive,
}

/// One scripted decision.
#[derive(Debug, Clone, Deserialize)]
pub enum Step {
    /// In round `round`, on the participant's own turn (or a simultaneous phase), declare `action`.
    Act {
        round: u32,
        action: String,
        #[serde(default)]
        target: Option<String>,
        /// Units or zones to move, for costs paid per unit.
        #[serde(default)]
        units: Option<i64>,
    },
    /// End the turn in round `round`.
    EndTurn { round: u32 },
    /// In round `round`, answer an event with `reaction` when it is offered.
    React {
        round: u32,
        reaction: String,
        #[serde(default)]
        target: Option<String>,
    },
    /// Decline every reaction offered in round `round` not scripted with `React`.
    Decline { round: u32 },
    /// The answer to the next choice asked of this participant.
    Choose { answer: String },
    /// Move initiative by this much when the ruleset allows an adjustment.
    Adjust { by: i64 },
    /// When the encounter starts, take a place right after `after`, locked (`allow stay`).
    Stay { after: String },
    /// In round `round`, wait and act right after `after`, keeping that place (`allow delay`).
    Delay { round: u32, after: String },
    /// Leave the encounter at the start of one's turn in round `round`.
    Leave { round: u32 },
    /// On one's turn in round `round`, ready `action` for when `on` happens (an action, a
    /// category, an action kind or an event), instead of acting (`allow ready`). When it
    /// happens, the action is taken at once and one's place in the order moves there. Unless
    /// `keep` is true, a ready still waiting at the end of the round is dropped.
    Ready {
        round: u32,
        action: String,
        on: String,
        #[serde(default)]
        target: Option<String>,
        #[serde(default)]
        keep: bool,
    },
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct After {
    /// Hours of downtime after the encounter.
    #[serde(default)]
    pub downtime_hours: u32,
    /// The hour (1-based) in which the downtime is interrupted: it recovers nothing.
    #[serde(default)]
    pub interrupted_hour: Option<u32>,
    /// A rest to take after the downtime, by name.
    #[serde(default)]
    pub rest: Option<String>,
}

/// A condition held from the start: `"poisoned"`, or `(name: "grappled", by: "Ogre")` for one
/// whose rules care who applied it (`source`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum HeldSpec {
    Name(String),
    From { name: String, by: String },
}

/// Parses a scenario from RON.
/// Optional fields may be written without `Some(...)`: `target: "Brute"`.
pub fn parse(text: &str) -> Result<Scenario, String> {
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    options.from_str(text).map_err(|e| format!("this is not a valid scenario: {e}"))
}

/// A scenario checked against a ruleset: names resolved to indices.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub names: Vec<String>,
    pub sides: Vec<u32>,
    pub side_names: Vec<String>,
    pub players: Vec<bool>,
    pub positions: Vec<i64>,
    /// participants × stats; `None` keeps the ruleset's default.
    pub stats: Vec<Vec<Option<i64>>>,
    pub pools: Vec<Vec<Option<i64>>>,
    /// Conditions held from the start, with who applied them (if the scenario says).
    pub conditions: Vec<Vec<(ir::ConditionId, Option<usize>)>>,
    pub controllers: Vec<Controller>,
    pub surprise: Option<u32>,
    /// `gm_answers`, checked: (question, option index).
    pub gm_answers: Vec<(String, usize)>,
    /// Stretches of terrain: first place, last place (first <= last), kind.
    pub terrain: Vec<(i64, i64, ir::TerrainId)>,
    /// Objects: name, kind, place (when lying), holders.
    pub objects: Vec<(String, ir::ObjectId, i64, Vec<usize>)>,
}

/// Most participants in one encounter. A table never comes close; the runner's work per round
/// grows with the square of the crowd (everyone looks at everyone), so 10,000 would take minutes
/// a round and look like a hang. 1,000 take about half a second a round.
pub const MAX_PARTICIPANTS: usize = 1000;

/// Checks names in the scenario against the ruleset; every problem is listed.
pub fn resolve(s: &Scenario, r: &Ruleset) -> Result<Resolved, Vec<String>> {
    if s.participants.len() > MAX_PARTICIPANTS {
        return Err(vec![format!(
            "the scenario has {} participants; an encounter holds at most {MAX_PARTICIPANTS}",
            s.participants.len()
        )]);
    }
    let mut problems = Vec::new();
    let find = |list: Vec<&str>, name: &str| list.iter().position(|n| *n == name);
    let stat_names: Vec<&str> = r.stats.iter().map(|x| x.name.as_str()).collect();
    let pool_names: Vec<&str> = r.pools.iter().map(|x| x.name.as_str()).collect();
    let cond_names: Vec<&str> = r.conditions.iter().map(|x| x.name.as_str()).collect();
    let action_names: Vec<&str> = r.actions.iter().map(|x| x.name.as_str()).collect();
    let names: Vec<String> = s.participants.iter().map(|p| p.name.clone()).collect();
    let mut side_names: Vec<String> = Vec::new();
    let mut out = Resolved {
        names: names.clone(),
        sides: Vec::new(),
        side_names: Vec::new(),
        players: Vec::new(),
        positions: Vec::new(),
        stats: Vec::new(),
        pools: Vec::new(),
        conditions: Vec::new(),
        controllers: Vec::new(),
        surprise: None,
        gm_answers: Vec::new(),
        terrain: Vec::new(),
        objects: Vec::new(),
    };
    if s.participants.is_empty() {
        problems.push("the scenario has no participants".to_string());
    }
    for (i, p) in s.participants.iter().enumerate() {
        if names[..i].contains(&p.name) {
            problems.push(format!("two participants are named `{}`", p.name));
        }
        let side = match side_names.iter().position(|n| *n == p.side) {
            Some(x) => x,
            None => {
                side_names.push(p.side.clone());
                side_names.len() - 1
            }
        };
        out.sides.push(side as u32);
        out.players.push(p.player);
        if p.position.abs() > MAX_POSITION {
            problems.push(format!(
                "{}: position {} is farther from 0 than tempo places anyone ({MAX_POSITION})",
                p.name, p.position
            ));
        }
        if let ir::Space::Zones(zones) = &r.space {
            if p.position < 0 || p.position >= zones.len() as i64 {
                problems.push(format!(
                    "{}: position {} is not a zone of the ruleset (zones 0 to {}: {})",
                    p.name,
                    p.position,
                    zones.len().saturating_sub(1),
                    zones.join(", ")
                ));
            }
        }
        out.positions.push(p.position);
        let mut stats = vec![None; r.stats.len()];
        for (name, value) in &p.stats {
            match find(stat_names.clone(), name) {
                Some(x) => stats[x] = Some(*value),
                None => problems.push(unknown(&p.name, "stat", name, &stat_names)),
            }
        }
        out.stats.push(stats);
        let mut pools = vec![None; r.pools.len()];
        for (name, value) in &p.pools {
            match find(pool_names.clone(), name) {
                Some(x) => pools[x] = Some(*value),
                None => problems.push(unknown(&p.name, "pool", name, &pool_names)),
            }
        }
        out.pools.push(pools);
        let mut conds = Vec::new();
        for held in &p.conditions {
            let (name, by) = match held {
                HeldSpec::Name(name) => (name, None),
                HeldSpec::From { name, by } => (name, Some(by)),
            };
            let source = match by {
                Some(by) => match names.iter().position(|n| n == by) {
                    Some(w) => Some(w),
                    None => {
                        let known: Vec<&str> = names.iter().map(String::as_str).collect();
                        problems.push(unknown(&p.name, "participant", by, &known));
                        None
                    }
                },
                None => None,
            };
            match find(cond_names.clone(), name) {
                Some(x) => conds.push((ir::ConditionId(x as u32), source)),
                None => problems.push(unknown(&p.name, "condition", name, &cond_names)),
            }
        }
        out.conditions.push(conds);
        let mut check_policy = |policy: &Policy| {
            if let Policy::HoldBack { pool, .. } = policy {
                if find(pool_names.clone(), pool).is_none() {
                    problems.push(unknown(&p.name, "pool", pool, &pool_names));
                }
            }
        };
        match &p.controller {
            Controller::Policy(policy) => check_policy(policy),
            Controller::Script { steps, fallback } => {
                check_policy(fallback);
                for step in steps {
                    let (action, target) = match step {
                        Step::Act { action, target, .. } => (Some(action), target.as_ref()),
                        Step::React { reaction, target, .. } => (Some(reaction), target.as_ref()),
                        Step::Stay { after } | Step::Delay { after, .. } => (None, Some(after)),
                        Step::Ready { action, target, on, .. } => {
                            let known = action_names.contains(&on.as_str())
                                || r.categories.iter().any(|c| &c.name == on)
                                || r.events.iter().any(|e| &e.name == on)
                                || ir::ActionKind::from_word(on).is_some();
                            if !known {
                                problems.push(format!("{}: `Ready` waits for `{on}`, which is no action, category, kind or event of the ruleset", p.name));
                            }
                            (Some(action), target.as_ref())
                        }
                        _ => (None, None),
                    };
                    if let Some(a) = action {
                        if find(action_names.clone(), a).is_none() {
                            problems.push(unknown(&p.name, "action", a, &action_names));
                        }
                    }
                    if let Some(t) = target {
                        if !names.contains(t) {
                            let all: Vec<&str> = names.iter().map(String::as_str).collect();
                            problems.push(unknown(&p.name, "target participant", t, &all));
                        }
                    }
                }
            }
        }
        out.controllers.push(p.controller.clone());
    }
    if let Some(side) = &s.surprise {
        match side_names.iter().position(|n| n == side) {
            Some(x) => out.surprise = Some(x as u32),
            None => problems.push(format!("the surprising side `{side}` has no participants")),
        }
        if r.surprise.is_none() {
            problems.push("the scenario has a surprise side, but the ruleset has no `surprise round`".to_string());
        }
    }
    if let Some(outro) = &s.outro {
        if !r.outros.iter().any(|x| x.name == outro.name) {
            let outros: Vec<&str> = r.outros.iter().map(|x| x.name.as_str()).collect();
            problems.push(unknown("outro", "outro", &outro.name, &outros));
        }
    }
    if let Some(after) = &s.after {
        if let Some(rest) = &after.rest {
            if !r.rests.iter().any(|x| &x.name == rest) {
                let rests: Vec<&str> = r.rests.iter().map(|x| x.name.as_str()).collect();
                problems.push(unknown("after", "rest", rest, &rests));
            }
        }
    }
    if !s.gm_answers.is_empty() {
        let questions = crate::ir::validate::gm_questions(r);
        for (question, answer) in &s.gm_answers {
            match questions.iter().find(|(q, _)| q == question) {
                Some((_, options)) => match options.iter().position(|o| o == answer) {
                    Some(i) => out.gm_answers.push((question.clone(), i)),
                    None => {
                        let options: Vec<&str> = options.iter().map(String::as_str).collect();
                        problems.push(unknown(&format!("gm_answers (\"{question}\")"), "option", answer, &options));
                    }
                },
                None => {
                    let asked: Vec<&str> = questions.iter().map(|(q, _)| q.as_str()).collect();
                    problems.push(unknown("gm_answers", "GM question", question, &asked));
                }
            }
        }
    }
    let terrain_names: Vec<&str> = r.terrains.iter().map(|x| x.name.as_str()).collect();
    for t in &s.terrain {
        let to = t.to.unwrap_or(t.from);
        if t.from.abs() > MAX_POSITION || to.abs() > MAX_POSITION {
            problems.push(format!(
                "terrain `{}`: its places are farther from 0 than tempo places anyone ({MAX_POSITION})",
                t.kind
            ));
        }
        if matches!(r.space, ir::Space::Zones(_) | ir::Space::None) {
            problems.push(format!(
                "terrain `{}`: terrain lies on the places of `space grid`, which the ruleset does not use",
                t.kind
            ));
        }
        match terrain_names.iter().position(|n| *n == t.kind) {
            Some(k) => out.terrain.push((t.from.min(to), t.from.max(to), ir::TerrainId(k as u32))),
            None => problems.push(unknown(&format!("terrain at {}", t.from), "terrain", &t.kind, &terrain_names)),
        }
    }
    let object_names: Vec<&str> = r.objects.iter().map(|x| x.name.as_str()).collect();
    for o in &s.objects {
        let name = o.name.clone().unwrap_or_else(|| o.kind.clone());
        let kind = object_names.iter().position(|n| *n == o.kind);
        if kind.is_none() {
            problems.push(unknown(&format!("object `{name}`"), "object", &o.kind, &object_names));
        }
        let mut holders = Vec::new();
        for h in &o.held_by {
            match names.iter().position(|n| n == h) {
                Some(w) if !holders.contains(&w) => holders.push(w),
                Some(_) => {}
                None => {
                    let known: Vec<&str> = names.iter().map(String::as_str).collect();
                    problems.push(unknown(&format!("object `{name}`"), "participant", h, &known));
                }
            }
        }
        let at = match (o.at, o.held_by.is_empty()) {
            (Some(at), true) => {
                if at.abs() > MAX_POSITION {
                    problems.push(format!(
                        "object `{name}`: place {at} is farther from 0 than tempo places anyone ({MAX_POSITION})"
                    ));
                }
                at
            }
            (None, false) => 0,
            _ => {
                problems.push(format!(
                    "object `{name}`: say where it is, either `at: PLACE` or `held_by: [\"NAME\", ...]`"
                ));
                0
            }
        };
        if let Some(k) = kind {
            out.objects.push((name, ir::ObjectId(k as u32), at, holders));
        }
    }
    out.side_names = side_names;
    if problems.is_empty() {
        Ok(out)
    } else {
        // Once per problem: a name misspelt in ten script steps is one mistake.
        let mut seen = std::collections::BTreeSet::new();
        problems.retain(|p| seen.insert(p.clone()));
        Err(problems)
    }
}

/// Where a problem of `resolve` is written in the scenario's text: the byte offsets of the first
/// string literal (`"jabb"`) holding the first name the problem quotes in backticks, if any.
pub fn locate(text: &str, problem: &str) -> Option<(usize, usize)> {
    let start = problem.find('`')? + 1;
    let len = problem[start..].find('`')?;
    let needle = format!("\"{}\"", &problem[start..start + len]);
    text.find(&needle).map(|at| (at, at + needle.len()))
}

/// The 1-based line and character column of a byte offset in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn unknown(who: &str, what: &str, name: &str, known: &[&str]) -> String {
    let hint = crate::diagnostics::did_you_mean(name, known.iter().copied())
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    format!("{who}: the ruleset has no {what} `{name}`{hint}")
}
