//! Scenarios: who takes part and how their decisions are made (contracts.md, "Scenarios";
//! format in docs/scenario.md). Parsed from RON, then checked against a ruleset, which turns
//! every name into an index once.

mod control;
mod piles;
mod place;
mod policy;
mod problem;
mod quoted;
mod ready;
mod set;

pub use control::{apply as apply_control, check as check_controls, parse_control, ControlFlag};
pub use place::{span_of, Seg};
pub use problem::{Problem, What};
pub use set::{apply as apply_set, parse_set, reached, split_assignment, target_of, SetFlag};

use crate::ir::{self, Ruleset};
use crate::run::controller::{self, Chosen, Control};
use crate::run::world::MAX_POSITION;
pub use policy::SearchSpec;
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
    /// How the participants are seated: as written, or drawn anew for each run.
    #[serde(default)]
    pub seating: Seating,
}

/// The seating order: what the rules fall back on where they leave an order open (turns under
/// `order table`, ties nothing breaks, the order within a side, ...).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum Seating {
    /// The order of `participants`.
    #[default]
    AsWritten,
    /// Shuffled for each run, from the run's seed (its own stream: the dice are the same as
    /// with `AsWritten`), so neither side is seated first by the file: a fair fight.
    Random,
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
    /// Starting contents of piles, by pile, each item by its kind (`{"hand": ["strike",
    /// "strike", "dash"]}`), instead of the pile's start (empty, or `starts full`).
    #[serde(default)]
    pub piles: BTreeMap<String, Vec<String>>,
    /// Place on the grid (units along a line) or index of a zone.
    #[serde(default)]
    pub position: i64,
    pub controller: Controller,
    /// Its loadout: the only actions and reactions its controller is offered, by name. `None`
    /// (the field left out): every one of the ruleset's; empty: none.
    #[serde(default)]
    pub actions: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
pub enum Controller {
    /// A built-in policy decides everything.
    Policy(Policy),
    /// Scripted decisions first; the fallback policy decides what the script does not cover.
    Script { steps: Vec<Step>, fallback: Policy },
}

/// A built-in way of deciding. Read by hand (scenario/policy.rs), so that `Search` may be
/// written bare.
#[derive(Debug, Clone, PartialEq)]
pub enum Policy {
    /// Spends everything on offence: the first affordable action against the first enemy in
    /// reach, again and again; takes every reaction it can afford; answers a choice with the
    /// option that scores best for it in the state (docs/scenario.md, "How outcomes are scored").
    /// As the GM's policy: the first option of a `choose gm`, ties in seating order.
    Aggressive,
    /// Like `Aggressive`, but never spends `pool` below `keep` on its own turn, so the rest
    /// can pay for reactions; and spends it below `keep` on a reaction only when the reaction
    /// saves someone from going down (docs/scenario.md, "When a reaction saves someone"), or,
    /// with `spend_on_reactions: true`, on any reaction (the first affordable one offered).
    HoldBack {
        pool: String,
        keep: i64,
        /// Absent: false.
        spend_on_reactions: bool,
    },
    /// Weighs every candidate by a documented score of its effects (expected harm to enemies,
    /// help to itself and allies, the price of an overspend) less what its points could buy
    /// instead this round, and takes the best, one ply deep; closes in like `Aggressive` when
    /// nothing scores above 0. Reactions like `Aggressive`.
    Greedy,
    /// Decides at random from the run's seeded generator.
    Random,
    /// Ends every turn at once and declines every reaction (a dummy); answers choices like
    /// `Aggressive`.
    Passive,
    /// Decides its turns and reactions by playing the encounter forward: each candidate is
    /// tried in playouts from a copy of the state under the real rules (its own later choices
    /// by `rollout`, everyone else's by their own controllers, dice drawn afresh), and the one
    /// with the best value for its side is taken (docs/scenario.md, "Search").
    Search(SearchSpec),
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
    /// With `slots by side`, when a slot of one's side comes up in round `round` and one
    /// decides who takes it, give it to `taker` (if `taker` can take it).
    Slot { round: u32, taker: String },
    /// On one's turn in round `round`, ready `action` for when `on` happens (an action, a
    /// category, an action kind or an event), instead of acting (`allow ready`). When it
    /// happens, the action is taken at once and one's place in the order moves there. Unless
    /// `keep` is true, a ready still waiting at the end of the round is dropped. `by: "enemy"`
    /// (or `"ally"`) waits only for what an enemy (an ally) does; without it, anyone but
    /// oneself sets it off. Without `target`, an action that needs one aims at whoever set it
    /// off, as a reaction does.
    Ready {
        round: u32,
        action: String,
        on: String,
        #[serde(default)]
        by: Option<String>,
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
    options.from_str(text).map_err(|e| match nested_policy(text, &e) {
        Some(hint) => format!("this is not a valid scenario: {}: {hint}", e.span),
        None => format!("this is not a valid scenario: {e}"),
    })
}

/// `fallback: Policy(Greedy)`: a script's fallback written as a controller, which serde names
/// as the odd "unexpected variant `Policy` in enum `Policy`". What a fallback may be, and the
/// same policy written as one.
fn nested_policy(text: &str, e: &ron::error::SpannedError) -> Option<String> {
    let ron::Error::NoSuchEnumVariant { expected, found, .. } = &e.code else { return None };
    if found != "Policy" || !expected.contains(&"Greedy") {
        return None;
    }
    // The words after `Policy` on its line, up to the `)` that closes `Policy(`.
    let line = text.lines().nth(e.span.start.line.checked_sub(1)?)?;
    let after = &line[line.find("Policy")? + "Policy".len()..];
    let inner = after.trim_start().strip_prefix('(').and_then(|rest| {
        let mut depth = 0usize;
        let end = rest.char_indices().find(|&(_, c)| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' if depth == 0 => true,
            ')' => {
                depth -= 1;
                false
            }
            _ => false,
        })?;
        Some(rest[..end.0].trim())
    });
    let policy = inner.filter(|p| !p.is_empty()).unwrap_or("Greedy");
    let names: Vec<String> = expected.iter().map(|v| format!("`{v}`")).collect();
    let (last, rest) = names.split_last()?;
    Some(format!(
        "a fallback is a policy itself, not a controller: write `fallback: {policy}`, not \
         `fallback: Policy({policy})`; a fallback is {} or {last}",
        rest.join(", ")
    ))
}

/// A scenario checked against a ruleset: names resolved to indices.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub names: Vec<String>,
    pub sides: Vec<u32>,
    pub(crate) side_names: Vec<String>,
    pub players: Vec<bool>,
    pub positions: Vec<i64>,
    /// participants × stats; `None` keeps the ruleset's default.
    pub stats: Vec<Vec<Option<i64>>>,
    /// Per stat (or empty): a number standing for its default (`Runner::set_numbers`).
    pub(crate) defaults: Vec<Option<i64>>,
    pub pools: Vec<Vec<Option<i64>>>,
    /// Per participant, the piles the scenario fills: the pile and its count per kind.
    pub piles: Vec<Vec<(ir::PileId, Vec<u32>)>>,
    /// Conditions held from the start, with who applied them (if the scenario says).
    pub conditions: Vec<Vec<(ir::ConditionId, Option<usize>)>>,
    /// Per participant, its script and policy with every name resolved.
    pub controllers: Vec<Control>,
    /// Per participant, its loadout: per action of the ruleset, whether it may use it; `None`
    /// for every action (no `actions` written).
    pub loadouts: Vec<Option<Vec<bool>>>,
    pub surprise: Option<u32>,
    /// `gm_answers`, checked: (question, option index).
    pub gm_answers: Vec<(String, usize)>,
    /// The option names of the scripts' `Choose` steps (`controller::Step::Choose` indexes
    /// them); `Tables::script_answers` turns each into an option per `choose` of the ruleset.
    pub answers: Vec<String>,
    /// Stretches of terrain: first place, last place (first <= last), kind.
    pub terrain: Vec<(i64, i64, ir::TerrainId)>,
    /// Objects: name, kind, place (when lying), holders.
    pub objects: Vec<(String, ir::ObjectId, i64, Vec<usize>)>,
    /// How the encounter is wound down (`outro`).
    pub outro: Option<Outro>,
    /// The rest taken after the encounter (`after.rest`), an index into the ruleset's rests.
    pub rest: Option<usize>,
    pub seating: Seating,
}

/// The scenario's `outro`, resolved: an index into the ruleset's outros and the rounds more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outro {
    pub outro: usize,
    pub rounds: u32,
}

/// Most participants in one encounter. A table never comes close; the runner's work per round
/// grows with the square of the crowd (everyone looks at everyone), so 10,000 would take minutes
/// a round and look like a hang. 1,000 take about half a second a round.
pub(crate) const MAX_PARTICIPANTS: usize = 1000;

/// Checks names in the scenario against the ruleset, turning each into an index once; every
/// problem is listed, each once, with where it is in the scenario.
pub fn resolve(s: &Scenario, r: &Ruleset) -> Result<Resolved, Vec<Problem>> {
    if s.participants.len() > MAX_PARTICIPANTS {
        let what = What::TooManyParticipants { count: s.participants.len() };
        return Err(vec![Problem::new(vec![Seg::Field("participants")], what)]);
    }
    let mut check = Resolver::new(s, r);
    let mut out = Resolved {
        names: check.names.iter().map(|n| n.to_string()).collect(),
        sides: Vec::new(),
        side_names: Vec::new(),
        players: Vec::new(),
        positions: Vec::new(),
        stats: Vec::new(),
        defaults: Vec::new(),
        pools: Vec::new(),
        piles: Vec::new(),
        conditions: Vec::new(),
        controllers: Vec::new(),
        loadouts: Vec::new(),
        surprise: None,
        gm_answers: Vec::new(),
        answers: Vec::new(),
        terrain: Vec::new(),
        objects: Vec::new(),
        outro: None,
        rest: None,
        seating: s.seating,
    };
    if s.participants.is_empty() {
        check.problem(vec![Seg::Field("participants")], What::NoParticipants);
    }
    for (i, p) in s.participants.iter().enumerate() {
        check.participant(i, p, &mut out);
    }
    check.surprise(&mut out);
    check.wind_down(&mut out);
    check.gm_answers(&mut out);
    if matches!(s.gm, Policy::Search(_)) {
        check.problem(vec![Seg::Field("gm")], What::SearchGm);
    }
    check.terrain(&mut out);
    check.objects(&mut out);
    let Resolver { problems, side_names, answers, .. } = check;
    out.side_names = side_names;
    out.answers = answers;
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problem::once_each(problems))
    }
}

/// What `resolve` works with: the ruleset's names, the scenario's, and the problems found.
struct Resolver<'a> {
    s: &'a Scenario,
    r: &'a Ruleset,
    /// The participants' names, in seating order.
    names: Vec<&'a str>,
    side_names: Vec<String>,
    /// The option names scripts answer choices with (`Choose` steps), in the order written.
    answers: Vec<String>,
    problems: Vec<Problem>,
}

/// The index of `name` among `names`, or its problem: the ruleset (or the scenario) has no
/// `kind` of that name.
fn find<'n>(names: impl Iterator<Item = &'n str> + Clone, name: &str, kind: &'static str) -> Result<usize, What> {
    names.clone().position(|n| n == name).ok_or_else(|| What::Unknown {
        kind,
        name: name.to_string(),
        candidates: names.map(str::to_string).collect(),
    })
}

fn at(path: &[Seg], more: impl IntoIterator<Item = Seg>) -> Vec<Seg> {
    path.iter().cloned().chain(more).collect()
}

impl<'a> Resolver<'a> {
    fn new(s: &'a Scenario, r: &'a Ruleset) -> Resolver<'a> {
        let names = s.participants.iter().map(|p| p.name.as_str()).collect();
        Resolver { s, r, names, side_names: Vec::new(), answers: Vec::new(), problems: Vec::new() }
    }

    fn problem(&mut self, at: Vec<Seg>, what: What) {
        self.problems.push(Problem::new(at, what));
    }

    /// The problem of `who` (a participant, `outro`, ...) at `at`, if `found` is one.
    fn found<T>(&mut self, who: &str, at: Vec<Seg>, found: Result<T, What>) -> Option<T> {
        match found {
            Ok(x) => Some(x),
            Err(what) => {
                self.problems.push(Problem::new(at, what).of(who));
                None
            }
        }
    }

    fn participant_index(&mut self, who: &str, at: Vec<Seg>, name: &str) -> Option<usize> {
        let found = find(self.names.iter().copied(), name, "participant");
        self.found(who, at, found)
    }

    fn participant(&mut self, i: usize, p: &ParticipantSpec, out: &mut Resolved) {
        let here = [Seg::Field("participants"), Seg::Index(i)];
        let r = self.r;
        if self.names[..i].contains(&p.name.as_str()) {
            self.problem(at(&here, [Seg::Field("name")]), What::SameName { name: p.name.clone() });
        }
        let side = match self.side_names.iter().position(|n| *n == p.side) {
            Some(x) => x,
            None => {
                self.side_names.push(p.side.clone());
                self.side_names.len() - 1
            }
        };
        out.sides.push(side as u32);
        out.players.push(p.player);
        self.position(&here, p);
        out.positions.push(p.position);
        let mut stats = vec![None; r.stats.len()];
        for (name, value) in &p.stats {
            let found = find(r.stats.iter().map(|x| x.name.as_str()), name, "stat");
            if let Some(x) = self.found(&p.name, at(&here, [Seg::Field("stats"), Seg::Key(name.clone())]), found) {
                stats[x] = Some(*value);
            }
        }
        out.stats.push(stats);
        let mut pools = vec![None; r.pools.len()];
        for (name, value) in &p.pools {
            let found = find(r.pools.iter().map(|x| x.name.as_str()), name, "pool");
            if let Some(x) = self.found(&p.name, at(&here, [Seg::Field("pools"), Seg::Key(name.clone())]), found) {
                pools[x] = Some(*value);
                if let Some(what) = problem::side_pool_twice(r, out, (side as u32, &p.side), x, *value, &self.names) {
                    self.problems
                        .push(Problem::new(at(&here, [Seg::Field("pools"), Seg::Key(name.clone())]), what).of(&p.name));
                }
            }
        }
        out.pools.push(pools);
        let piles = self.piles(&here, p);
        out.piles.push(piles);
        let conditions = self.conditions(&here, p);
        out.conditions.push(conditions);
        let control = self.controller(&at(&here, [Seg::Field("controller")]), p);
        out.controllers.push(control);
        let loadout = self.loadout(&here, p);
        out.loadouts.push(loadout);
    }

    /// The actions `p` may use, per action of the ruleset, from its `actions`; `None` when it
    /// names none (every action). Each name must be an action or reaction of the ruleset.
    fn loadout(&mut self, here: &[Seg], p: &ParticipantSpec) -> Option<Vec<bool>> {
        let names = p.actions.as_ref()?;
        let mut has = vec![false; self.r.actions.len()];
        for (j, name) in names.iter().enumerate() {
            let found = find(self.r.actions.iter().map(|x| x.name.as_str()), name, "action");
            if let Some(a) = self.found(&p.name, at(here, [Seg::Field("actions"), Seg::Index(j)]), found) {
                has[a] = true;
            }
        }
        Some(has)
    }

    fn position(&mut self, here: &[Seg], p: &ParticipantSpec) {
        let place = at(here, [Seg::Field("position")]);
        if p.position.unsigned_abs() > MAX_POSITION.unsigned_abs() {
            self.problems.push(Problem::new(place.clone(), What::FarPosition { position: p.position }).of(&p.name));
        }
        if let ir::Space::Zones(zones) = &self.r.space {
            if p.position < 0 || p.position >= zones.len() as i64 {
                let what = What::NotAZone { position: p.position, zones: zones.clone() };
                self.problems.push(Problem::new(place, what).of(&p.name));
            }
        }
    }

    fn conditions(&mut self, here: &[Seg], p: &ParticipantSpec) -> Vec<(ir::ConditionId, Option<usize>)> {
        let mut conds = Vec::new();
        for (j, held) in p.conditions.iter().enumerate() {
            let held_at = at(here, [Seg::Field("conditions"), Seg::Index(j)]);
            let (name, by) = match held {
                HeldSpec::Name(name) => (name, None),
                HeldSpec::From { name, by } => (name, Some(by)),
            };
            let source = by.and_then(|by| self.participant_index(&p.name, at(&held_at, [Seg::Field("by")]), by));
            let found = find(self.r.conditions.iter().map(|x| x.name.as_str()), name, "condition");
            if let Some(x) = self.found(&p.name, at(&held_at, [Seg::Field("name")]), found) {
                conds.push((ir::ConditionId(x as u32), source));
            }
        }
        conds
    }

    /// A policy with its pool resolved; `Aggressive` stands in for one that names no pool of
    /// the ruleset (a problem, so it never runs).
    fn policy(&mut self, who: &str, here: &[Seg], policy: &Policy) -> Chosen {
        if let Policy::Search(spec) = policy {
            let rollout_at = at(here, [Seg::Field("rollout")]);
            let rollout = match self.policy(who, &rollout_at, &spec.rollout) {
                Chosen::Search(_) => {
                    self.problems.push(Problem::new(rollout_at, What::SearchRollout).of(who));
                    controller::Rollout::Greedy
                }
                other => controller::Rollout::of(other),
            };
            if !(spec.exploration.is_finite() && spec.exploration >= 0.0) {
                let here = at(here, [Seg::Field("exploration")]);
                self.problems
                    .push(Problem::new(here, What::SearchExploration { value: spec.exploration.to_string() }).of(who));
            }
            if spec.playouts > policy::MAX_PLAYOUTS {
                let here = at(here, [Seg::Field("playouts")]);
                self.problems.push(Problem::new(here, What::SearchPlayouts { playouts: spec.playouts }).of(who));
            }
            return Chosen::Search(controller::SearchParams {
                playouts: spec.playouts.clamp(1, policy::MAX_PLAYOUTS),
                rollout,
                exploration: spec.exploration,
                rounds: spec.rounds,
                exact: spec
                    .exact
                    .unwrap_or(u64::from(spec.playouts.max(1)) * policy::EXACT_PER_PLAYOUT)
                    .min(policy::MAX_EXACT),
            });
        }
        match policy {
            Policy::Aggressive => Chosen::Aggressive,
            Policy::Greedy => Chosen::Greedy,
            Policy::Random => Chosen::Random,
            Policy::Passive => Chosen::Passive,
            Policy::HoldBack { pool, keep, spend_on_reactions } => {
                let found = find(self.r.pools.iter().map(|x| x.name.as_str()), pool, "pool");
                match self.found(who, at(here, [Seg::Field("pool")]), found) {
                    Some(p) => Chosen::HoldBack(ir::PoolId(p as u32), *keep, *spend_on_reactions),
                    None => Chosen::Aggressive,
                }
            }
            Policy::Search(_) => Chosen::Aggressive,
        }
    }

    fn controller(&mut self, here: &[Seg], p: &ParticipantSpec) -> Control {
        match &p.controller {
            Controller::Policy(policy) => Control { steps: Vec::new(), policy: self.policy(&p.name, here, policy) },
            Controller::Script { steps, fallback } => {
                let policy = self.policy(&p.name, &at(here, [Seg::Field("fallback")]), fallback);
                let mut resolved = Vec::with_capacity(steps.len());
                for (k, step) in steps.iter().enumerate() {
                    let step_at = at(here, [Seg::Field("steps"), Seg::Index(k)]);
                    // A step naming something unknown is a problem, so the script never runs:
                    // the index 0 put in its place is never read.
                    resolved.push(self.step(&p.name, &step_at, step));
                }
                Control { steps: resolved, policy }
            }
        }
    }

    fn action(&mut self, who: &str, step_at: &[Seg], field: &'static str, name: &str) -> ir::ActionId {
        let found = find(self.r.actions.iter().map(|x| x.name.as_str()), name, "action");
        let index = self.found(who, at(step_at, [Seg::Field(field)]), found);
        ir::ActionId(index.unwrap_or(0) as u32)
    }

    fn target(&mut self, who: &str, step_at: &[Seg], field: &'static str, name: Option<&String>) -> Option<usize> {
        let name = name?;
        let found = find(self.names.iter().copied(), name, "participant").map_err(|what| match what {
            What::Unknown { name, candidates, .. } => What::Unknown { kind: "target participant", name, candidates },
            other => other,
        });
        let index = self.found(who, at(step_at, [Seg::Field(field)]), found);
        Some(index.unwrap_or(0))
    }

    /// A step's target, or the actor itself when the step names none and `action` is a
    /// `target self` one: `target` is optional in a step (docs/scenario.md).
    fn own_target(&self, who: &str, action: ir::ActionId, target: Option<usize>) -> Option<usize> {
        let own = self.r.actions.get(action.index()).is_some_and(|a| a.target.kind == ir::TargetKind::Self_);
        target.or_else(|| self.names.iter().position(|n| *n == who).filter(|_| own))
    }

    fn step(&mut self, who: &str, step_at: &[Seg], step: &Step) -> controller::Step {
        use controller::Step as S;
        match step {
            Step::Act { round, action, target, units } => {
                let action = self.action(who, step_at, "action", action);
                let target = self.target(who, step_at, "target", target.as_ref());
                S::Act { round: *round, action, target: self.own_target(who, action, target), units: *units }
            }
            Step::EndTurn { round } => S::EndTurn { round: *round },
            Step::React { round, reaction, target } => S::React {
                round: *round,
                reaction: self.action(who, step_at, "reaction", reaction),
                target: self.target(who, step_at, "target", target.as_ref()),
            },
            Step::Decline { round } => S::Decline { round: *round },
            Step::Choose { answer } => {
                self.answers.push(answer.clone());
                S::Choose { answer: self.answers.len() - 1 }
            }
            Step::Adjust { by } => S::Adjust { by: *by },
            Step::Stay { after } => S::Stay { after: self.target(who, step_at, "after", Some(after)).unwrap_or(0) },
            Step::Delay { round, after } => {
                S::Delay { round: *round, after: self.target(who, step_at, "after", Some(after)).unwrap_or(0) }
            }
            Step::Leave { round } => S::Leave { round: *round },
            Step::Slot { round, taker } => {
                S::Slot { round: *round, taker: self.target(who, step_at, "taker", Some(taker)).unwrap_or(0) }
            }
            Step::Ready { round, action, on, by, target, keep } => {
                let by = by.as_deref().and_then(|b| {
                    let by = ready::ready_by(b);
                    if by.is_err() {
                        let candidates = vec!["enemy".to_string(), "ally".to_string()];
                        let what = What::Unknown { kind: "`by` of a Ready", name: b.to_string(), candidates };
                        self.problems.push(Problem::new(at(step_at, [Seg::Field("by")]), what).of(who));
                    }
                    by.ok()
                });
                let on = match ready::ready_on(self.r, on) {
                    Some(event) => event,
                    None => {
                        let what = What::ReadyOn { on: on.clone(), candidates: ready::ready_candidates(self.r) };
                        self.problems.push(Problem::new(at(step_at, [Seg::Field("on")]), what).of(who));
                        ir::EventRef::Action(ir::ActionId(0))
                    }
                };
                let action = self.action(who, step_at, "action", action);
                let target = self.target(who, step_at, "target", target.as_ref());
                S::Ready { round: *round, action, on, by, target: self.own_target(who, action, target), keep: *keep }
            }
        }
    }

    fn surprise(&mut self, out: &mut Resolved) {
        let Some(side) = &self.s.surprise else { return };
        match self.side_names.iter().position(|n| n == side) {
            Some(x) => out.surprise = Some(x as u32),
            None => self.problem(vec![Seg::Field("surprise")], What::NoSuchSide { side: side.clone() }),
        }
        if self.r.surprise.is_none() {
            self.problem(vec![Seg::Field("surprise")], What::NoSurpriseRound);
        }
    }

    /// The outro and the rest after the encounter.
    fn wind_down(&mut self, out: &mut Resolved) {
        let r = self.r;
        if let Some(outro) = &self.s.outro {
            let found = find(r.outros.iter().map(|x| x.name.as_str()), &outro.name, "outro");
            let index = self.found("outro", vec![Seg::Field("outro"), Seg::Field("name")], found);
            out.outro = index.map(|i| Outro { outro: i, rounds: outro.rounds });
        }
        if let Some(rest) = self.s.after.as_ref().and_then(|a| a.rest.as_ref()) {
            let found = find(r.rests.iter().map(|x| x.name.as_str()), rest, "rest");
            out.rest = self.found("after", vec![Seg::Field("after"), Seg::Field("rest")], found);
        }
    }

    fn gm_answers(&mut self, out: &mut Resolved) {
        if self.s.gm_answers.is_empty() {
            return;
        }
        let questions = crate::ir::validate::gm_questions(self.r);
        for (question, answer) in &self.s.gm_answers {
            let found = find(questions.iter().map(|(q, _)| q.as_str()), question, "GM question");
            let Some(q) = self.found("gm_answers", vec![Seg::Field("gm_answers"), Seg::Key(question.clone())], found)
            else {
                continue;
            };
            let found = find(questions[q].1.iter().map(String::as_str), answer, "option");
            let whose = format!("gm_answers (\"{question}\")");
            let place = vec![Seg::Field("gm_answers"), Seg::Value(question.clone())];
            if let Some(i) = self.found(&whose, place, found) {
                out.gm_answers.push((question.clone(), i));
            }
        }
    }

    fn terrain(&mut self, out: &mut Resolved) {
        let r = self.r;
        for (j, t) in self.s.terrain.iter().enumerate() {
            let here = vec![Seg::Field("terrain"), Seg::Index(j)];
            let to = t.to.unwrap_or(t.from);
            if t.from.unsigned_abs() > MAX_POSITION.unsigned_abs() || to.unsigned_abs() > MAX_POSITION.unsigned_abs() {
                self.problem(here.clone(), What::FarTerrain { kind: t.kind.clone() });
            }
            if matches!(r.space, ir::Space::Zones(_) | ir::Space::None) {
                self.problem(here.clone(), What::TerrainWithoutGrid { kind: t.kind.clone() });
            }
            let found = find(r.terrains.iter().map(|x| x.name.as_str()), &t.kind, "terrain");
            let whose = format!("terrain at {}", t.from);
            if let Some(k) = self.found(&whose, at(&here, [Seg::Field("kind")]), found) {
                out.terrain.push((t.from.min(to), t.from.max(to), ir::TerrainId(k as u32)));
            }
        }
    }

    fn objects(&mut self, out: &mut Resolved) {
        let r = self.r;
        for (j, o) in self.s.objects.iter().enumerate() {
            let here = vec![Seg::Field("objects"), Seg::Index(j)];
            let name = o.name.clone().unwrap_or_else(|| o.kind.clone());
            let whose = format!("object `{name}`");
            let found = find(r.objects.iter().map(|x| x.name.as_str()), &o.kind, "object");
            let kind = self.found(&whose, at(&here, [Seg::Field("kind")]), found);
            let mut holders = Vec::new();
            for (h, holder) in o.held_by.iter().enumerate() {
                let place = at(&here, [Seg::Field("held_by"), Seg::Index(h)]);
                match self.participant_index(&whose, place, holder) {
                    Some(w) if !holders.contains(&w) => holders.push(w),
                    _ => {}
                }
            }
            let place = match (o.at, o.held_by.is_empty()) {
                (Some(place), true) => {
                    if place.unsigned_abs() > MAX_POSITION.unsigned_abs() {
                        self.problem(at(&here, [Seg::Field("at")]), What::FarObject { name: name.clone(), place });
                    }
                    place
                }
                (None, false) => 0,
                _ => {
                    self.problem(here, What::ObjectNowhere { name: name.clone() });
                    0
                }
            };
            if let Some(k) = kind {
                out.objects.push((name, ir::ObjectId(k as u32), place, holders));
            }
        }
    }
}
