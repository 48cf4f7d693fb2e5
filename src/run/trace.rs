//! The trace: what happened, in order (contracts.md, "Traces"). One event per line as JSON, or a
//! play-by-play for people. Names, not ids: the trace is for people and scripts.

use super::labels::Labels;
use crate::ir::Loc;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;
use text::{cause_text, decision_text, encounter_end_text, item_list, pool_roll_text, revealed_text};

mod dice;
mod piles;
mod text;
pub use dice::Dice;
pub use piles::{SidePools, TablePiles};

/// A name shared by every event that mentions it: copying one is a reference count, not an
/// allocation, so writing an event allocates nothing in the steady state. `Rc`, not `Arc`: a
/// runner and its events stay on one thread (the simulation makes one runner per thread), and
/// an event copies and drops several names, which were atomic operations with `Arc`.
pub type Name = Rc<str>;

/// The `reason` of the second `encounter_end` event, after downtime and rests: the state once
/// they are over. Its text is `Downtime ends.`, so the text says "Encounter ends" once.
pub const AFTER_DOWNTIME: &str = "after downtime";

/// What changed a pool. Rendered as text (`"attack by Aria"`) only when the trace is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// Paying for or resolving an action: `attack by Aria`.
    Action { action: Name, by: Name },
    /// A combo partner paying: `combo with Aria`.
    Partner { action: Name, with: Name },
    /// A multi-round action paid again: `ritual (continued)`.
    Continued(Name),
    /// A pool step at a timing: `refresh at turn_start`.
    Step { op: &'static str, timing: Timing },
    /// A hook at a timing: `at turn_start`.
    Hook(Timing),
    /// A threshold: `hp <= 0`.
    Threshold { pool: Name, op: &'static str, value: i64 },
    /// A gain answering an event: `gain on hit`.
    Gain(Name),
    /// An upkeep payment: `maintain grappling`.
    Maintain(Name),
    /// A condition, trigger, phase, rest or outro by name.
    Named(Name),
    /// `overspend`, `downtime`, `threshold`.
    Static(&'static str),
}

/// A timing as traces name it: `turn_start`, `phase_end(upkeep)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Timing {
    Plain(&'static str),
    PhaseStart(Name),
    PhaseEnd(Name),
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timing::Plain(t) => f.write_str(t),
            Timing::PhaseStart(p) => write!(f, "phase_start({p})"),
            Timing::PhaseEnd(p) => write!(f, "phase_end({p})"),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Action { action, by } => write!(f, "{action} by {by}"),
            Cause::Partner { action, with } => write!(f, "{action} with {with}"),
            Cause::Continued(action) => write!(f, "{action} (continued)"),
            Cause::Step { op, timing } => write!(f, "{op} at {timing}"),
            Cause::Hook(timing) => write!(f, "at {timing}"),
            Cause::Threshold { pool, op, value } => write!(f, "{pool} {op} {value}"),
            Cause::Gain(source) => write!(f, "gain on {source}"),
            Cause::Maintain(name) => write!(f, "maintain {name}"),
            Cause::Named(name) => f.write_str(name),
            Cause::Static(text) => f.write_str(text),
        }
    }
}

impl Serialize for Cause {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A dice pool as rolled: every face, in the order rolled, and the test each was counted by.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolRoll {
    pub faces: Vec<u32>,
    /// `>= 5`: the comparison and the value it was read as.
    pub counting: String,
    /// A named roll's name (`roll attack = ...`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Name>,
    /// What a named roll threw, when it is more than `NdM`: `2 ability + 1 difficulty`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thrown: Option<String>,
    /// Per face, the symbols it shows (`-` for none, a numbered die's face as its number), when
    /// some die has custom faces; `faces` then holds each face's place on its die, from 1.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shown: Vec<String>,
    /// Every count a named roll was read by, in the order its block reads them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<Counted>,
}

/// One reading of a named roll: `>= 5` (how many dice met it) or a symbol (how often it shows).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counted {
    pub counting: String,
    pub count: i64,
}

impl PoolRoll {
    /// A pool counted once (`count(12d6 >= 5)`).
    pub fn counted(faces: Vec<u32>, counting: String) -> PoolRoll {
        PoolRoll { faces, counting, name: None, thrown: None, shown: Vec::new(), counts: Vec::new() }
    }

    /// The faces as the trace line shows them: `6 5 1`, or `success, -, failure threat`.
    fn faces_text(&self) -> String {
        if self.shown.is_empty() {
            self.faces.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
        } else {
            self.shown.join(", ")
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub seq: u64,
    pub round: Option<u32>,
    #[serde(flatten)]
    pub event: Event,
    /// Where the rule that caused the event is written (`None` for events no rule causes).
    /// Written as `"rule": "FILE:LINE:COLUMN"` with the ruleset's file table, so serde skips it
    /// here (`jsonl::Encoder` writes it; its tests hold it to serde_json's output).
    #[serde(skip)]
    pub rule: Option<Loc>,
    /// The event whose consequences this one is (`seq`): the turn an action was taken in, the
    /// action a payment paid for, the trigger a reaction answered, the check an outcome
    /// followed, the pool change whose threshold fired. `None` for the encounter's start.
    /// `tempo why` follows these back; the JSON lines do not carry them.
    #[serde(skip)]
    pub because: Option<u64>,
}

/// Where a rule is written: `rulesets/frontiers.rules:52:3`, the file named by the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleAt<'a> {
    pub files: &'a [String],
    pub loc: Loc,
}

impl fmt::Display for RuleAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.files.get(usize::from(self.loc.file)).map_or("?", String::as_str);
        write!(f, "{file}:{}:{}", self.loc.line, self.loc.column)
    }
}

impl Event {
    /// A policy's turn decision (`tempo run --decisions`): not a reaction, no pass, no question.
    pub(crate) fn decision(
        who: Name,
        policy: &'static str,
        considered: Vec<Considered>,
        chosen: Option<Considered>,
    ) -> Event {
        Event::Decision { who, policy, considered, chosen, reaction: false, pass: None, question: None }
    }

    /// Whether a rule causes events of this kind. The encounter's frame (its start and end,
    /// the order, rounds, phases and turns beginning and ending, downtime's hours, leaving)
    /// belongs to no rule and carries no `rule`.
    pub(crate) fn has_rule(&self) -> bool {
        !matches!(
            self,
            Event::EncounterStart { .. }
                | Event::Seating { .. }
                | Event::Initiative { .. }
                | Event::RoundStart {}
                | Event::RoundEnd {}
                | Event::PhaseStart { .. }
                | Event::PhaseEnd { .. }
                | Event::TurnStart { .. }
                | Event::TurnEnd { .. }
                | Event::Downtime { .. }
                | Event::Leave { .. }
                | Event::EncounterEnd { .. }
        )
    }
}

/// Every participant's pools, conditions and piles, for `encounter_end`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FinalState {
    pub pools: BTreeMap<Name, i64>,
    pub conditions: Vec<Name>,
    /// The magnitude of each held condition whose magnitude is not 1 (none listed when all are).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub magnitudes: BTreeMap<Name, i64>,
    /// What each pile holds, by pile name: its items' names, one per item, in the order of
    /// their set (an empty pile as `[]`; no piles listed when the ruleset declares none).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub piles: BTreeMap<Name, Vec<Name>>,
}

/// One object at the end: where it lies, or who holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalObject {
    pub object: Name,
    /// Where it lies; `None` while someone holds it.
    pub at: Option<i64>,
    pub held_by: Vec<Name>,
}

/// One participant's choice in a `hidden` phase: the action declared (with its target) or the
/// answer chosen; `choice: None`, it chose nothing. With `picks N`, one per pick, in the order
/// picked (the same `who` again).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Revealed {
    pub who: Name,
    pub choice: Option<Name>,
    pub target: Option<Name>,
}

/// What a name in a refusal's reason is, for its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    Pool,
    Condition,
    Category,
}

/// The byte ranges of a refusal's reason that are names (at most two: "is dazed, which blocks
/// spending ap"), for the text to put labels in their place without guessing at words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Named([Option<(u16, u16, NameKind)>; 2]);

impl Named {
    /// Records `name`, just written to `reason`, as a name of `kind` (a third is not kept).
    pub(crate) fn push(&mut self, reason: &str, name: &str, kind: NameKind) {
        let (Ok(end), Some(slot)) = (u16::try_from(reason.len()), self.0.iter_mut().find(|s| s.is_none())) else {
            return;
        };
        let Ok(len) = u16::try_from(name.len()) else { return };
        *slot = Some((end.saturating_sub(len), end, kind));
    }

    /// `reason` with its names replaced by their labels.
    fn relabel<'a>(&self, reason: &'a str, l: &Labels) -> std::borrow::Cow<'a, str> {
        if self.0[0].is_none() || l.is_empty() {
            return std::borrow::Cow::Borrowed(reason);
        }
        let mut out = String::with_capacity(reason.len() + 16);
        let mut at = 0;
        for (start, end, kind) in self.0.iter().flatten() {
            let (start, end) = (usize::from(*start), usize::from(*end));
            let (Some(before), Some(name)) = (reason.get(at..start), reason.get(start..end)) else {
                return std::borrow::Cow::Borrowed(reason);
            };
            out.push_str(before);
            out.push_str(match kind {
                NameKind::Pool => l.pool(name),
                NameKind::Condition => l.condition(name),
                NameKind::Category => l.category(name),
            });
            at = end;
        }
        out.push_str(reason.get(at..).unwrap_or(""));
        std::borrow::Cow::Owned(out)
    }
}

/// An entry of `initiative.order`: one name, or a group acting together.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OrderEntry {
    One(Name),
    Together(Vec<Name>),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    EncounterStart {
        participants: Vec<Name>,
    },
    /// The seating drawn for this run (`seating: Random`), first seat first; written right
    /// after `encounter_start`, and only when drawn.
    Seating {
        order: Vec<Name>,
    },
    Initiative {
        order: Vec<OrderEntry>,
        values: BTreeMap<Name, i64>,
    },
    RoundStart {},
    RoundEnd {},
    PhaseStart {
        phase: Name,
    },
    PhaseEnd {
        phase: Name,
    },
    TurnStart {
        actor: Name,
    },
    TurnEnd {
        actor: Name,
    },
    Pool {
        /// The participant whose pool changed, or for a pool kept `per side` the side's name.
        who: Name,
        pool: Name,
        from: i64,
        to: i64,
        cause: Cause,
        /// `who` names a side: the pool is kept `per side`.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        side: bool,
    },
    Roll {
        who: Name,
        dice: Dice,
        /// The total; for a dice pool, how many dice met its test.
        result: i64,
        /// A dice pool's faces and test (`count(12d6 >= 5)`); `None` for a roll that adds.
        #[serde(flatten)]
        pool: Option<Box<PoolRoll>>,
    },
    Action {
        actor: Name,
        action: Name,
        kind: &'static str,
        targets: Targets,
        paid: Paid,
    },
    Rejected {
        actor: Name,
        action: Name,
        code: &'static str,
        reason: std::borrow::Cow<'static, str>,
        /// Where `reason` names a pool or a condition, so the text can say its label (JSON
        /// carries the names, as everywhere).
        #[serde(skip)]
        named: Named,
    },
    Trigger {
        source: Name,
        reactor: Name,
        reaction: Name,
    },
    /// A declared reaction resolves (after every reaction of its chain was declared and paid).
    Resolve {
        actor: Name,
        action: Name,
    },
    /// The choices of a `hidden` phase, shown together once everyone has chosen, in initiative
    /// order, a participant's picks in the order picked (each made against the state the phase
    /// started with and the chooser's own earlier picks).
    Revealed {
        phase: Name,
        choices: Vec<Revealed>,
    },
    Condition {
        who: Name,
        condition: Name,
        on: bool,
    },
    Choice {
        who: Name,
        question: Name,
        answer: Name,
    },
    /// A condition held already applied again with another magnitude.
    Magnitude {
        who: Name,
        condition: Name,
        from: i64,
        to: i64,
    },
    /// With `slots by side`: the slot `holder` rolled, of `side`, taken by `taker`, who is not
    /// its holder, with no choice made; `taker: None`: nobody could take it, and it passes.
    Slot {
        holder: Name,
        side: Name,
        taker: Option<Name>,
    },
    /// With `order drawn`, the next turn drawn from the bag: `who` alone, or with `slots by
    /// side` a die of `side`, with `who` when only one of it could take the turn (`who: None`:
    /// a `choice` of the side's taker follows).
    Drawn {
        side: Option<Name>,
        who: Option<Name>,
    },
    /// A pass of a `for each RELATION` loop of `who`'s rule, with `target` bound to `target`.
    Each {
        who: Name,
        relation: &'static str,
        target: Name,
    },
    Check {
        who: Name,
        roll: i64,
        against: i64,
        /// `success`, `failure`, `critical`, `fumble`, or a level of the check's degrees.
        outcome: Name,
        /// In a graded contest: the level the roll it was against reached.
        #[serde(skip_serializing_if = "Option::is_none")]
        opposed: Option<Name>,
    },
    Downtime {
        hour: u32,
    },
    /// A participant moves (`forced`: pushed by an effect, costing nothing).
    Move {
        who: Name,
        from: i64,
        to: i64,
        forced: bool,
    },
    /// A participant leaves the encounter.
    Leave {
        who: Name,
    },
    /// A participant takes hold of an object (`holds`) or lets go of it; `at`: where it lies
    /// once nobody holds it.
    Object {
        object: Name,
        who: Name,
        holds: bool,
        at: Option<i64>,
    },
    /// Items drawn or moved from one pile to another (`draw`, `move ... from A to B`): every
    /// item taken, in the order taken (none when the pile had none to give). `who` owns the
    /// pile they left; `to_who` owns the pile they went to, when someone else does.
    Items {
        who: Name,
        /// `draws` or `moves`.
        how: &'static str,
        items: Vec<Name>,
        from: Name,
        to: Name,
        #[serde(skip_serializing_if = "Option::is_none")]
        to_who: Option<Name>,
    },
    /// A multi-round action ends: resolved, or lost because a payment could not be made.
    Ongoing {
        actor: Name,
        action: Name,
        outcome: &'static str,
    },
    /// A rest after the encounter: taken, or cut short by too few uninterrupted hours.
    Rest {
        rest: Name,
        outcome: String,
    },
    EncounterEnd {
        reason: String,
        state: BTreeMap<Name, FinalState>,
        /// Each side's pools kept `per side`, listed once for the side; then the piles kept
        /// `shared` and `per side` (none listed when the ruleset keeps none).
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        sides: SidePools,
        #[serde(flatten)]
        piles: TablePiles,
        /// Where each of the scenario's objects is (none listed when it has none).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        objects: Vec<FinalObject>,
    },
    /// A policy's turn decision, with what it considered (`tempo run --decisions` only); for
    /// `Search`, its reactions too (`reaction`).
    Decision {
        who: Name,
        policy: &'static str,
        considered: Vec<Considered>,
        /// `None`: the turn ends (or, for a reaction, it declines).
        chosen: Option<Considered>,
        /// Whether to answer an event with a reaction, not a turn's next step.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        reaction: bool,
        /// `Search`: what ending the turn (for a reaction, declining it) was worth.
        #[serde(skip_serializing_if = "Option::is_none")]
        pass: Option<Pass>,
        /// A `Search` choice (a `choose`, an optional upkeep): its question; `considered` are its
        /// options, each `action` an option's name.
        #[serde(skip_serializing_if = "Option::is_none")]
        question: Option<Name>,
    },
    /// A turn granted by a reaction (`grants turn`) begins (`end` false) or ends, for `who`.
    Granted {
        who: Name,
        action: Name,
        end: bool,
    },
}

/// What `Search` found ending the turn, or declining a reaction, worth: its mean value over its
/// playouts, rounded to thousandths.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Pass {
    pub score: f64,
    pub playouts: u32,
}

/// One option a policy considered: an action and its target, with the score `Greedy` gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Considered {
    pub action: Name,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Name>,
    /// `Greedy`'s score, or `Search`'s mean value over its playouts, rounded to thousandths;
    /// other policies do not score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// `Search`: how many playouts tried this option; 0 where it played exactly (its score is
    /// then its side's exact chance to be left standing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playouts: Option<u32>,
}

impl Considered {
    fn text(&self, l: &Labels) -> String {
        let at = self.target.as_ref().map(|t| format!(" at {t}")).unwrap_or_default();
        let score = match (self.score, self.playouts) {
            // Answered from the solved encounter (run/exact.rs): a chance, not a mean.
            (Some(s), Some(0)) => format!(" ({s} exactly)"),
            (Some(s), Some(n)) => format!(" ({s} over {n} playouts)"),
            (Some(s), None) => format!(" ({s})"),
            _ => String::new(),
        };
        format!("{}{at}{score}", l.action(&self.action))
    }
}

/// An action's targets: none or one (serialized as a list, as contracts.md says).
#[derive(Debug, Clone, PartialEq)]
pub struct Targets(pub Option<Name>);

impl Serialize for Targets {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

/// What an action paid, pool by pool, in the order the cost names them; serialized as a map
/// sorted by pool name, as contracts.md shows it. The first pool is held inline and the rest
/// (costs naming several pools are rare) in a vector: every event of a run is moved into a sink
/// as a `Record`, and an inline array of eight would make each of them twice as large.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Paid {
    first: Option<(Name, i64)>,
    rest: Vec<(Name, i64)>,
}

impl Paid {
    pub fn push(&mut self, pool: Name, amount: i64) {
        if self.first.is_none() {
            self.first = Some((pool, amount));
        } else {
            self.rest.push((pool, amount));
        }
    }

    /// Entries sorted by pool name (equal names in the order paid), without allocating.
    pub fn sorted(&self) -> impl Iterator<Item = &(Name, i64)> {
        let mut last: Option<(&str, usize)> = None;
        std::iter::from_fn(move || {
            let next = self
                .first
                .iter()
                .chain(&self.rest)
                .enumerate()
                .filter(|(i, x)| last.is_none_or(|l| (&*x.0, *i) > l))
                .min_by(|(i, x), (j, y)| (&*x.0, i).cmp(&(&*y.0, j)))?;
            last = Some((&*next.1 .0, next.0));
            Some(next.1)
        })
    }
}

impl Serialize for Paid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.sorted().map(|(k, v)| (k, v)))
    }
}

/// The trace as a play-by-play for a person (what `sink::Writer` writes with `Format::Text`).
pub fn to_text(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        out.push_str(&text_line(r));
        out.push('\n');
    }
    out
}

/// The play-by-play with the ruleset's labels (what `tempo run` prints by default).
#[cfg_attr(not(feature = "fs"), allow(dead_code))]
pub(crate) fn to_text_labelled(records: &[Record], labels: &Labels) -> String {
    let mut out = String::new();
    for r in records {
        out.push_str(&text_line_labelled(r, labels));
        out.push('\n');
    }
    out
}

/// The play-by-play with each line's `seq` and its rule's location after it (`tempo run --why`).
pub fn to_text_why(records: &[Record], files: &[String]) -> String {
    let mut out = Vec::new();
    for r in records {
        out.extend_from_slice(text_line(r).as_bytes());
        let _ = write_why(&mut out, r, files);
        out.push(b'\n');
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether an event is routine pool bookkeeping: a pool step at a timing (`refresh at
/// turn_start`), which `tempo run --quiet` leaves out of the text.
pub(crate) fn is_bookkeeping(r: &Record) -> bool {
    matches!(&r.event, Event::Pool { cause: Cause::Step { .. }, .. })
}

/// What `--why` adds after a line: ` [#SEQ FILE:LINE:COLUMN]`, or ` [#SEQ]` for an event no
/// rule causes.
pub(crate) fn write_why(out: &mut impl std::io::Write, r: &Record, files: &[String]) -> std::io::Result<()> {
    match r.rule {
        Some(loc) => write!(out, " [#{} {}]", r.seq, RuleAt { files, loc }),
        None => write!(out, " [#{}]", r.seq),
    }
}

/// One event of the play-by-play (a round's start begins with an empty line), with the names
/// the trace carries.
pub fn text_line(r: &Record) -> String {
    render(r, None)
}

/// The same line with the ruleset's labels where it has them ("Action Points", not `ap`), and
/// an action that paid nothing said so by its kind alone (not "paying free").
pub(crate) fn text_line_labelled(r: &Record, labels: &Labels) -> String {
    render(r, Some(labels))
}

fn render(r: &Record, labels: Option<&Labels>) -> String {
    let none = Labels::none();
    let l = labels.unwrap_or(&none);
    match &r.event {
        Event::EncounterStart { participants } => {
            let names: Vec<&str> = participants.iter().map(|p| &**p).collect();
            format!("Encounter starts: {}.", names.join(", "))
        }
        Event::Seating { order } => {
            let names: Vec<&str> = order.iter().map(|p| &**p).collect();
            format!("Seated at random: {}.", names.join(", "))
        }
        Event::Initiative { order, values } => {
            let names: Vec<String> = order
                .iter()
                .map(|e| match e {
                    OrderEntry::One(n) => format!("{n} ({})", values.get(n).copied().unwrap_or(0)),
                    OrderEntry::Together(g) => format!(
                        "[{}] together",
                        g.iter()
                            .map(|n| format!("{n} ({})", values.get(n).copied().unwrap_or(0)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                })
                .collect();
            format!("Initiative: {}.", names.join(", then "))
        }
        Event::RoundStart {} => format!("\n== Round {} ==", r.round.unwrap_or(0)),
        Event::RoundEnd {} => format!("-- end of round {}", r.round.unwrap_or(0)),
        Event::PhaseStart { phase } => format!("- {phase} phase"),
        Event::PhaseEnd { phase } => format!("- end of {phase} phase"),
        Event::TurnStart { actor } => format!("{actor}'s turn."),
        Event::TurnEnd { actor } => format!("{actor}'s turn ends."),
        Event::Granted { who, action, end: false } => format!("{who} takes a turn granted by {action}."),
        Event::Granted { who, end: true, .. } => format!("{who}'s granted turn ends."),
        Event::Pool { who, pool, from, to, cause, side } => {
            let side = if *side { "side " } else { "" };
            match labels {
                None => format!("  {side}{who}: {pool} {from} -> {to} ({cause})"),
                Some(l) => format!("  {side}{who}: {} {from} -> {to} ({})", l.pool(pool), cause_text(cause, l)),
            }
        }
        Event::Roll { who, dice, result, pool: None } => format!("  {who} rolls {dice}: {result}"),
        Event::Roll { who, dice, result, pool: Some(pool) } => pool_roll_text(who, dice, *result, pool, l),
        Event::Action { actor, action, kind, targets, paid } => {
            let at = targets.0.as_ref().map(|t| format!(" at {t}")).unwrap_or_default();
            let cost: Vec<String> = paid.sorted().map(|(p, n)| format!("{n} {}", l.pool(p))).collect();
            match (labels, cost.is_empty()) {
                (None, true) => format!("  {actor} uses {action} ({kind}){at}, paying free."),
                (None, false) => format!("  {actor} uses {action} ({kind}){at}, paying {}.", cost.join(" + ")),
                (Some(l), true) => format!("  {actor} uses {} ({kind}){at}.", l.action(action)),
                (Some(l), false) => {
                    format!("  {actor} uses {} ({kind}){at}, paying {}.", l.action(action), cost.join(" + "))
                }
            }
        }
        Event::Rejected { actor, action, reason, code, named } => {
            format!("  {actor} cannot use {}: {} [{code}]", l.action(action), named.relabel(reason, l))
        }
        Event::Trigger { source, reactor, reaction } => {
            format!("  {reactor} answers {} with {}.", l.source(source), l.action(reaction))
        }
        Event::Resolve { actor, action } => format!("  {actor}'s {} resolves.", l.action(action)),
        Event::Revealed { choices, .. } => revealed_text(choices, l),
        Event::Condition { who, condition, on } => {
            let condition = l.condition(condition);
            if *on {
                format!("  {who} is now {condition}.")
            } else {
                format!("  {who} is no longer {condition}.")
            }
        }
        Event::Choice { who, question, answer } => format!("  {who} chooses {answer} ({question})."),
        Event::Magnitude { who, condition, from, to } => {
            format!("  {who} is now {} {to} (was {from}).", l.condition(condition))
        }
        Event::Slot { holder, side, taker: Some(taker) } => format!("  {taker} of the {side} takes {holder}'s slot."),
        Event::Drawn { side: None, who: Some(who) } => format!("  Drawn from the bag: {who}."),
        Event::Drawn { side: Some(side), who: None } => format!("  Drawn from the bag: a die of the {side}."),
        Event::Drawn { side: Some(side), who: Some(who) } => {
            format!("  Drawn from the bag: a die of the {side}, taken by {who}.")
        }
        Event::Drawn { side: None, who: None } => "  Drawn from the bag: nothing.".into(),
        Event::Each { who, relation, target } => format!("  {who}, for each {relation}: {target}."),
        Event::Slot { holder, side, taker: None } => {
            format!("  {holder}'s slot passes: nobody of the {side} can take it.")
        }
        Event::Check { who, roll, against, outcome, opposed: None } => {
            format!("  {who}'s check: {roll} vs {against}, {outcome}.")
        }
        Event::Check { who, roll, against, outcome, opposed: Some(theirs) } => {
            format!("  {who}'s check: {roll} vs {against} ({theirs}), {outcome}.")
        }
        Event::Downtime { hour } => format!("Downtime, hour {hour}."),
        Event::Leave { who } => format!("  {who} leaves the encounter."),
        Event::Object { object, who, holds: true, .. } => format!("  {who} takes hold of {object}."),
        Event::Object { object, who, holds: false, at: Some(at) } => {
            format!("  {who} lets go of {object}; it lies at {at}.")
        }
        Event::Object { object, who, holds: false, at: None } => format!("  {who} lets go of {object}."),
        Event::Items { who, how, items, from, to, to_who } => {
            let to = match to_who {
                Some(other) => format!("{other}'s {}", l.pile(to)),
                None => l.pile(to).to_string(),
            };
            format!("  {who} {how} {} from {} to {to}.", item_list(items), l.pile(from))
        }
        Event::Move { who, from, to, forced } => {
            let how = if *forced { "is pushed" } else { "moves" };
            format!("  {who} {how} from {from} to {to}.")
        }
        Event::Ongoing { actor, action, outcome } => format!("  {actor}'s {} is {outcome}.", l.action(action)),
        Event::Rest { rest, outcome } => format!("Rest: {}, {outcome}.", l.rest(rest)),
        Event::Decision { who, policy, considered, chosen, reaction, pass, question } => {
            decision_text(who, policy, considered, chosen, (*reaction, *pass, question.as_ref()), l)
        }
        Event::EncounterEnd { reason, state, sides, piles, objects } => {
            encounter_end_text(reason, state, (sides, piles), objects, l)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Name, Paid};

    #[test]
    fn paid_is_read_sorted_by_pool_name_and_equal_names_keep_their_order() {
        let mut paid = Paid::default();
        for (pool, n) in [("mp", 1), ("ap", 2), ("rp", 3), ("ap", 4), ("energy", 5)] {
            paid.push(Name::from(pool), n);
        }
        let read: Vec<(&str, i64)> = paid.sorted().map(|(p, n)| (&**p, *n)).collect();
        assert_eq!(read, [("ap", 2), ("ap", 4), ("energy", 5), ("mp", 1), ("rp", 3)]);
        assert_eq!(Paid::default().sorted().count(), 0);
    }
}
