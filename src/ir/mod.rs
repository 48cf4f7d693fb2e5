//! The interpreter IR: what the runner executes.
//!
//! Invariants: every reference is a typed index into one of the `Ruleset` vectors (no name
//! lookups at run time; strings are for display only); the IR round-trips through RON exactly;
//! `format_version` changes whenever the shape does. Reactions, triggers and event gains are
//! indexed by event in `dispatch`, so the runner asks only the rules that answer an event.

mod arith;
mod expr;
mod piles;
pub mod validate;

pub use crate::syntax::ast::{ActionKind, AssignOp, BinOp, CmpOp, Period};
pub use arith::{checked, floor_div, floor_rem};
pub use expr::*;
pub use piles::*;
use serde::{Deserialize, Serialize};

/// Bumped whenever the IR's shape changes; the runner refuses other versions.
pub const FORMAT_VERSION: u32 = 15;

macro_rules! ids {
    ($($name:ident),*) => {$(
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}

ids!(
    StatId,
    DerivedId,
    PoolId,
    CategoryId,
    EventId,
    ConditionId,
    ActionId,
    TriggerId,
    PhaseId,
    DegreesId,
    TerrainId,
    ObjectId,
    RollId,
    DieId,
    SymbolId
);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ruleset {
    pub format_version: u32,
    pub name: String,
    pub title: Option<String>,
    /// The source files rules were written in, as given on the command line or in `extends`
    /// (the names diagnostics use); a [`Loc`]'s `file` indexes this.
    pub files: Vec<String>,
    pub stats: Vec<Stat>,
    pub derived: Vec<Derived>,
    pub pools: Vec<Pool>,
    pub categories: Vec<Named>,
    pub events: Vec<Named>,
    pub conditions: Vec<Condition>,
    pub actions: Vec<Action>,
    pub triggers: Vec<Trigger>,
    pub hooks: Vec<Hook>,
    pub limits: Vec<Limit>,
    /// Changes to the costs of whole kinds, categories or actions, applied in order after an
    /// action's own cost is chosen.
    pub cost_adjustments: Vec<CostAdjust>,
    pub initiative: Initiative,
    pub phases: Vec<Phase>,
    pub priority: Vec<PriorityStep>,
    pub chains: Chains,
    pub space: Space,
    pub surprise: Option<Surprise>,
    pub downtime: Vec<Downtime>,
    pub rests: Vec<Rest>,
    pub outros: Vec<Outro>,
    /// Pools whose thresholds resolve first when several change at once (the rest follow in
    /// declaration order); condition changes from thresholds are applied after all of them.
    pub state_order: Vec<PoolId>,
    pub turn_start: Vec<TurnStep>,
    pub turn_end: Vec<TurnStep>,
    /// Declared levels of success (`degrees`), for the checks graded by them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub degrees: Vec<Degrees>,
    /// `reach EXPR`: how far each participant threatens, and the events of movement through it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<Reach>,
    /// Kinds of ground a scenario lays on places of the line (`terrain`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) terrains: Vec<Terrain>,
    /// Kinds of things on the map or in hands (`object`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<Named>,
    /// Sets of items (`items`), and the piles every participant has of them (`pile`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub item_sets: Vec<ItemSet>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub piles: Vec<Pile>,
    /// How many `roll NAME = ...` statements there are: a roll's counts are kept by its index.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rolls: u32,
    /// Dice with custom faces (`die`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<Die>,
    /// Every symbol some die's face shows, in the order first written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    pub dispatch: Dispatch,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A die with custom faces: each face shows some symbols (a symbol may be shown twice, or none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Die {
    pub name: String,
    pub label: Option<String>,
    /// Per face, the symbols it shows.
    pub faces: Vec<Vec<SymbolId>>,
}

/// A kind of ground. Both expressions are read for the mover, once per move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Terrain {
    pub name: String,
    pub label: Option<String>,
    /// Units of a move each place of it takes, and when the mover is spared that (`unless`).
    pub slows: Option<(Expr, Option<Expr>)>,
    /// `Some(spared)`: voluntary moves stop before it, unless `spared` holds for the mover.
    pub blocks: Option<Option<Expr>>,
}

/// How far each participant threatens (`range`, read as theirs), and the events voluntary
/// movement makes through it: stepping into someone's reach, stepping out of it, and the first
/// step out of a place within it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reach {
    pub range: Expr,
    pub enter: EventId,
    pub leave: EventId,
    pub(crate) move_in: EventId,
    pub loc: Loc,
}

/// The events movement through reach makes, by name, when `reach` is declared.
pub(crate) const REACH_EVENTS: [&str; 3] = ["enter_reach", "leave_reach", "move_in_reach"];

/// Levels of success, best first: a graded check reaches the first level whose `when` holds
/// (the last level of each side has none), then each holding shift moves it one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Degrees {
    pub name: String,
    pub levels: Vec<Level>,
    pub shifts: Vec<LevelShift>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    pub name: String,
    /// A success (else a failure): every success level is better than every failure level.
    pub success: bool,
    pub when: Option<Expr>,
}

/// One level better (`up`) or worse when `when` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelShift {
    pub up: bool,
    pub when: Expr,
}

/// Where a rule is written: an index into [`Ruleset::files`], a 1-based line and a 1-based
/// column counted in characters. Data only: a compiled ruleset runs without its sources, and
/// traces name the rule that caused an event with it (`rulesets/frontiers.rules:52:3`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Loc {
    pub file: u16,
    pub line: u32,
    pub column: u32,
}

/// A name for display, with an optional longer label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    pub name: String,
    pub label: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    pub name: String,
    pub default: Expr,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Derived {
    pub name: String,
    pub value: Expr,
}

/// A moment rules hang on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub enum Timing {
    EncounterStart,
    EncounterEnd,
    RoundStart,
    RoundEnd,
    TurnStart,
    TurnEnd,
    PhaseStart(PhaseId),
    PhaseEnd(PhaseId),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    pub name: String,
    pub label: Option<String>,
    /// `None`: unbounded.
    pub max: Option<Expr>,
    pub min: Expr,
    pub start: Expr,
    /// What happens to the pool at timings, in the order written.
    pub at: Vec<PoolStep>,
    /// Gains answering events; indexed in `Ruleset::dispatch`.
    pub gains: Vec<Gain>,
    pub overspend: Option<Overspend>,
    pub thresholds: Vec<Threshold>,
    /// A meter (heat): costs add to it, and it can pay while it stays at most its max (or the
    /// overspend ceiling); it starts at its floor, and `refresh` empties it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rising: bool,
    /// `shared`: one value for the whole encounter, whoever reads, pays or changes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
    /// `per side`: one value for each side, which every member reads, pays from and changes;
    /// its steps and gains run once for the side.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_side: bool,
    /// `emit EVENT on spend`: each payment of the pool is this event, its amount what was paid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) on_spend: Option<EventId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolStep {
    pub timing: Timing,
    pub op: PoolOp,
    /// Runs only when this holds (an `unless` is stored negated).
    pub guard: Option<Expr>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PoolOp {
    /// Set to max, overwriting what is left.
    Refresh,
    /// Leftovers stay; recorded so a trace can say so.
    Keep,
    /// Drop to the floor.
    Lose,
    Decay(Expr),
    /// Move what is left into another pool.
    Convert(PoolId),
    /// Add, up to max, optionally capped per period.
    Gain {
        amount: Expr,
        cap: Option<(Expr, Period)>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gain {
    pub on: EventPattern,
    pub amount: Expr,
    pub guard: Option<Expr>,
    pub cap: Option<(Expr, Period)>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overspend {
    /// The lowest the pool may go when overspending (usually negative).
    pub floor: Expr,
    /// Effects paid for each overspend.
    pub price: Vec<Effect>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    pub op: CmpOp,
    pub value: Expr,
    pub effects: Vec<Effect>,
    pub loc: Loc,
    /// Looked at right after each change of the pool, inside the rule that made it; otherwise
    /// when that rule ends (Frontiers, "Damage While Down During Resolution").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub immediately: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    pub name: String,
    pub label: Option<String>,
    pub blocks: Blocks,
    pub implies: Vec<ConditionId>,
    pub lasts: Option<Duration>,
    /// `Some(true)` positive, `Some(false)` negative: its place in the turn-start sequence.
    pub positive: Option<bool>,
    /// Upkeep and timed effects: when, what, and where each clause is written.
    pub maintain: Vec<(Timing, Vec<Effect>, Loc)>,
    pub hooks: Vec<(Timing, Vec<Effect>, Loc)>,
    /// The upkeeps (indices into `maintain`) written `optional`: each is lowered to a
    /// `choose owner` between paying (`pay`) and letting it lapse (`lapse`: `cancel`), which
    /// the built-in policies other than `Random` and `Search` answer by paying, unless paying
    /// would bring the holder into harm (run/decide/upkeep.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub optional_maintain: Vec<u32>,
    /// Added to every check the holder makes.
    pub check_modifier: Option<Expr>,
    /// Every check the holder makes is rolled twice, keeping the better or worse.
    pub check_edge: Option<Edge>,
    /// `modify checks ... on NAME`: the modifier, or the edge, reaches only the checks of the
    /// holder's actions that NAME covers (an action, a category or a kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) check_modifier_on: Option<EventRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) check_edge_on: Option<EventRef>,
    /// `modify checks against self ...`: added to, or the edge of, the checks others' actions
    /// make with the holder as their target (evaluated as the holder's), scoped as above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) against_modifier: Option<Expr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) against_edge: Option<Edge>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) against_modifier_on: Option<EventRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) against_edge_on: Option<EventRef>,
    /// The declaration: a condition that blocks an action is the rule that refused it.
    pub loc: Loc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Edge {
    Advantage,
    Disadvantage,
}

/// What a condition forbids its holder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocks {
    pub kinds: Vec<ActionKind>,
    pub movement: bool,
    pub spend: Vec<PoolId>,
    /// Where the (last) `blocks` clause is written: a refusal it causes names it.
    pub loc: Option<Loc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Duration {
    Until(Timing),
    /// Until the next turn of whoever applied it starts (`until turn_start(source)`), or until
    /// that turn ends (`until turn_end(source)`: a turn that starts after the condition is
    /// applied, so one applied during the source's own turn outlasts it).
    UntilSource {
        end: bool,
    },
    Rounds(Expr),
    While(Expr),
    Maintained,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    pub name: String,
    pub label: Option<String>,
    pub kind: ActionKind,
    /// Guarded costs first, in the order written; the first whose guard holds applies, else the
    /// unguarded one (or the ruleset's default cost).
    pub costs: Vec<CostRule>,
    pub(crate) partner_cost: Vec<Cost>,
    /// Where the `partner cost` clause is written, if there is one.
    pub(crate) partner_loc: Option<Loc>,
    pub categories: Vec<CategoryId>,
    pub limits: Vec<UseLimit>,
    pub target: Target,
    pub requires: Vec<Require>,
    pub on: Option<EventPattern>,
    pub interrupts: bool,
    pub ends_turn: bool,
    /// A multi-round action: paid each round for this many rounds, resolved at the end.
    pub rounds: Option<Expr>,
    /// A combo's helpers: how many, and how near the actor each must be (without it: one, the
    /// target if an ally, anywhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partners: Option<Box<Partners>>,
    /// What makes a multi-round action under way fail, and what happens when it is lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Box<Interruption>>,
    pub effects: Vec<Effect>,
    /// `grants turn { ... }` of a reaction: the turn its reactor is given once it resolves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grants: Option<Box<GrantedTurn>>,
    pub loc: Loc,
}

/// `grants turn { POOL = EXPR; limit move EXPR; limit actions EXPR }`: a turn inserted for the
/// reactor once its reaction resolves. The pools named hold their budget for that turn only (each
/// pool's own value is kept aside and comes back after); the limits bound what the turn does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrantedTurn {
    pub budget: Vec<(PoolId, Expr)>,
    /// `limit move N`: the turn's voluntary moves go at most this many units together.
    pub moves: Option<Expr>,
    /// `limit actions N`: the turn declares at most this many actions.
    pub actions: Option<Expr>,
    pub loc: Loc,
}

/// A requirement of an action, and where it is written (a refusal names it).
/// `partners COUNT [within RANGE]` of a combo action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Partners {
    pub count: Expr,
    pub within: Option<Expr>,
}

/// `interrupted when COND { ... }` of a multi-round action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interruption {
    /// Looked at whenever the run settles while the action is under way, and before each payment.
    pub when: Expr,
    /// Run whenever the action is lost: interrupted, or a payment that could not be made.
    pub effects: Vec<Effect>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Require {
    pub cond: Expr,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostRule {
    pub when: Option<Expr>,
    pub(crate) terms: Vec<Cost>,
    /// `cost 10 initiative`: lowers the payer's initiative value, never below the floor (the
    /// low end of the initiative's `range`, else 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initiative: Option<Expr>,
    /// The `cost` clause (or the `default cost` declaration it came from).
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub amount: Expr,
    pub pool: PoolId,
    /// `per 2 units`: the amount buys this many units of movement.
    pub per: Option<(u32, Unit)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unit {
    Unit,
    Zone,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UseLimit {
    pub amount: Expr,
    /// Counts an amount of this pool spent, instead of uses.
    pub pool: Option<PoolId>,
    pub per: Period,
    /// `per side`: what every member of the user's side did counts together.
    #[serde(default, skip_serializing_if = "is_false")]
    pub per_side: bool,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    pub kind: TargetKind,
    pub within: Option<Expr>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TargetKind {
    None,
    Self_,
    Ally,
    Enemy,
    Any,
    Other,
}

/// What a reaction, trigger or gain answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventPattern {
    pub event: EventRef,
    pub by: Option<Relation>,
    pub against: Option<Relation>,
}

/// Something that happens: an action (declared or resolved), any action of a category or
/// kind, or an event effects emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub enum EventRef {
    Kind(ActionKind),
    Category(CategoryId),
    Action(ActionId),
    Custom(EventId),
    /// A moment of play answered like an event (`on turn_end by enemy`, `on round_start`):
    /// offered after the timing's own work (pool steps, conditions, hooks), never interrupted.
    Timing(Timing),
}

impl Timing {
    /// Whether the timing has an actor, whose turn it is: `turn_start` and `turn_end`. The
    /// others (rounds, phases, the encounter) happen to nobody in particular.
    pub fn has_actor(self) -> bool {
        matches!(self, Timing::TurnStart | Timing::TurnEnd)
    }

    /// The timing's place in `Dispatch::by_timing`: the six fixed ones, then each phase's start
    /// and end.
    pub fn index(self) -> usize {
        match self {
            Timing::EncounterStart => 0,
            Timing::EncounterEnd => 1,
            Timing::RoundStart => 2,
            Timing::RoundEnd => 3,
            Timing::TurnStart => 4,
            Timing::TurnEnd => 5,
            Timing::PhaseStart(p) => 6 + 2 * p.index(),
            Timing::PhaseEnd(p) => 7 + 2 * p.index(),
        }
    }
}

/// Who someone is relative to the rule's owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Relation {
    Self_,
    Ally,
    Enemy,
    Other,
    Any,
    Player,
    NonPlayer,
}

impl Relation {
    /// The word a rule writes for it: `ally`, `non_player`.
    pub fn word(self) -> &'static str {
        match self {
            Relation::Self_ => "self",
            Relation::Ally => "ally",
            Relation::Enemy => "enemy",
            Relation::Other => "other",
            Relation::Any => "any",
            Relation::Player => "player",
            Relation::NonPlayer => "non_player",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trigger {
    pub name: String,
    pub on: EventPattern,
    pub requires: Vec<Expr>,
    pub interrupts: bool,
    pub limits: Vec<UseLimit>,
    pub effects: Vec<Effect>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hook {
    pub timing: Timing,
    pub guard: Option<Expr>,
    pub effects: Vec<Effect>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    pub subject: LimitSubject,
    /// Actions of the subject this limit neither holds nor counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<LimitSubject>,
    /// Counted for each action of the subject separately ("once per round per ability").
    pub each: bool,
    pub amount: Expr,
    pub pool: Option<PoolId>,
    pub per: Period,
    /// `per side`: what every member of the user's side did counts together.
    #[serde(default, skip_serializing_if = "is_false")]
    pub per_side: bool,
    pub guard: Option<Expr>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostAdjust {
    /// `None`: every action.
    pub subject: Option<LimitSubject>,
    /// Actions of the subject that this adjustment leaves alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<LimitSubject>,
    pub op: CostAdjustOp,
    pub when: Option<Expr>,
    pub loc: Loc,
}

/// Whether a subject (`None`: every action) with its `except` list reaches the action: it is of
/// the subject and of no exception. Limits and cost adjustments both name actions this way.
fn reaches(subject: Option<LimitSubject>, except: &[LimitSubject], action: &Action, id: ActionId) -> bool {
    subject.is_none_or(|s| s.covers(action, id)) && !except.iter().any(|e| e.covers(action, id))
}

impl Limit {
    /// Whether this limit holds the action.
    pub fn covers(&self, action: &Action, id: ActionId) -> bool {
        reaches(Some(self.subject), &self.except, action, id)
    }
}

impl CostAdjust {
    /// Whether this adjustment reaches the action.
    pub fn covers(&self, action: &Action, id: ActionId) -> bool {
        reaches(self.subject, &self.except, action, id)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum CostAdjustOp {
    /// Every amount of the cost is multiplied by this.
    Scale(Expr),
    /// These are added to the cost.
    Add(Vec<Cost>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LimitSubject {
    Kind(ActionKind),
    Category(CategoryId),
    Action(ActionId),
}

impl LimitSubject {
    /// Whether this action is one of those the subject names (its kind, a category, itself).
    pub fn covers(self, action: &Action, id: ActionId) -> bool {
        match self {
            LimitSubject::Kind(k) => action.kind == k,
            LimitSubject::Category(c) => action.categories.contains(&c),
            LimitSubject::Action(x) => x == id,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Initiative {
    pub value: Expr,
    /// `value EXPR per side`: one value made for each side (read from its first member in the
    /// scenario), which all its members share.
    #[serde(default, skip_serializing_if = "is_false")]
    pub value_per_side: bool,
    pub(crate) made_at: Timing,
    /// Each participant may move their value by up to this much, once, when it is made.
    pub adjust: Option<Expr>,
    pub range: Option<(Expr, Expr)>,
    pub order: Order,
    pub ties: Vec<TieBreak>,
    pub allow: Allow,
    /// A change of initiative during a phase of turns re-places those still to act at once
    /// (`reorder immediately`); otherwise the next phase of turns is ordered by it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub reorder_now: bool,
    /// Each place in the order is a slot of its holder's side (`slots by side`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub side_slots: bool,
    pub loc: Loc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Order {
    HighestFirst,
    LowestFirst,
    /// All of the first side (players' side first), then the next; scenario order within a side.
    BySide,
    /// The scenario's seating order, no values.
    Table,
    /// Sides take turns one activation each, the side of the highest value first; within a
    /// side, highest value first (ties broken as written). A side with no one left drops out.
    Alternating,
    /// No order made in advance: in a phase of turns each turn is drawn at random from those
    /// still to have one (with `slots by side`, a side by how many of its members are left,
    /// then the side's taker); elsewhere the seating order.
    Drawn,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TieBreak {
    Higher(Expr),
    /// `lower NAME`: the lower value first.
    Lower(Expr),
    Roll(Expr),
    /// A roll-off repeated among those still tied, at most `MAX_ROLL_OFFS` times; a tie that
    /// survives goes on to the next tie-break.
    RollUntilDifferent(Expr),
    PlayersFirst,
    NonPlayersFirst,
    Simultaneous,
    Gm,
    Table,
}

/// Most passes of a phase that `repeat while` plays again, in one round.
pub const MAX_PASSES: u32 = 100;

/// Most roll-offs of a `roll ... until different` before the tie goes on to the next tie-break
/// (two d6 stay tied 100 times in a row with a chance of 6⁻¹⁰⁰).
pub const MAX_ROLL_OFFS: u32 = 100;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allow {
    /// Wait and re-enter lower, keeping the new place.
    pub delay: bool,
    /// Ready an action on a trigger; acting moves your place.
    pub ready: bool,
    /// Choose a later place once, then locked.
    pub stay: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    pub name: String,
    /// The phase runs only in rounds where this holds.
    pub guard: Option<Expr>,
    pub kind: PhaseKind,
    /// A phase of turns: only those for whom this holds (`self`) take a turn in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takes: Option<Expr>,
    /// Played again while this holds for anyone present (`self`), at most `MAX_PASSES` times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub again: Option<Expr>,
    /// `hidden` (a simultaneous or step phase): everyone chooses against the state the phase
    /// started with; the choices are revealed together, then resolved in initiative order.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// `picks N` (a hidden phase): how many declarations each chooses in secret, each knowing
    /// its own earlier ones; 1 where not written.
    #[serde(default = "one_pick", skip_serializing_if = "is_one_pick")]
    pub picks: u32,
    /// `picks N must`: one who would stop picking while a pick is offered takes the first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub must: bool,
    pub loc: Loc,
}

fn one_pick() -> u32 {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes the field by reference
fn is_one_pick(n: &u32) -> bool {
    *n == 1
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PhaseKind {
    Turns,
    /// The kinds of action allowed; empty means all.
    Simultaneous(Vec<ActionKind>),
    Step(Vec<Effect>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PriorityStep {
    Active,
    Initiative,
    Gm,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chains {
    pub lifo: bool,
    pub depth: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Space {
    None,
    /// Places on a line. `enemies_block`: a move stops before an enemy's place (001, Movement
    /// In Combat); `no_sharing`: a move never ends on a place someone else holds.
    Grid {
        enemies_block: bool,
        no_sharing: bool,
    },
    Zones(Vec<String>),
}

/// A surprise round: only the surprising side acts in the first round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Surprise {
    /// Applied to each surprised participant before the encounter starts.
    pub applies: Option<ConditionId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Downtime {
    pub every_hours: Expr,
    pub effects: Vec<Effect>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rest {
    pub name: String,
    pub label: Option<String>,
    pub hours: Option<Expr>,
    /// A length in minutes (`minutes 15`), when `hours` is not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes: Option<Expr>,
    pub effects: Vec<Effect>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outro {
    pub name: String,
    pub label: Option<String>,
    /// Rounds go on without initiative (slow burn) instead of the encounter ending.
    pub continues: bool,
    pub effects: Vec<Effect>,
    pub loc: Loc,
}

/// A step of the work done at the start or end of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnStep {
    /// Pool refreshes and other pool steps at this timing.
    Pools,
    /// Effects of negative conditions.
    Negative,
    /// Upkeep payments of maintained conditions.
    Maintain,
    /// Conditions that end at this timing.
    Expire,
    /// Effects of positive conditions.
    Positive,
    /// Hooks (`at turn_start { ... }`) and effects of conditions with no polarity.
    Hooks,
}

/// Who answers which event, precomputed so the runner never scans every rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dispatch {
    /// Indexed by [`Dispatch::slot`]; in declaration order within a slot.
    pub(crate) by_event: Vec<Vec<Responder>>,
    pub(crate) n_categories: u32,
    pub n_actions: u32,
    /// The answers to timings (`on turn_end`), indexed by [`Timing::index`]; empty when nothing
    /// answers a timing, else one slot per timing of the ruleset (six, then two per phase).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) by_timing: Vec<Vec<Responder>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Responder {
    Reaction(ActionId),
    Trigger(TriggerId),
    /// The `index`th gain of a pool.
    Gain(PoolId, u32),
}

impl Dispatch {
    /// The dense slot of an event: kinds, then categories, then actions, then custom events,
    /// then timings (past `by_event`, in `by_timing`).
    #[inline]
    pub fn slot(&self, event: EventRef) -> usize {
        let kinds = ActionKind::ALL.len();
        match event {
            EventRef::Timing(t) => self.by_event.len() + t.index(),
            EventRef::Kind(k) => ActionKind::ALL.iter().position(|x| *x == k).unwrap_or(0),
            EventRef::Category(c) => kinds + c.index(),
            EventRef::Action(a) => kinds + self.n_categories as usize + a.index(),
            EventRef::Custom(e) => kinds + self.n_categories as usize + self.n_actions as usize + e.index(),
        }
    }

    #[inline]
    pub fn responders(&self, event: EventRef) -> &[Responder] {
        if let EventRef::Timing(t) = event {
            return self.by_timing.get(t.index()).map(Vec::as_slice).unwrap_or(&[]);
        }
        self.by_event.get(self.slot(event)).map(Vec::as_slice).unwrap_or(&[])
    }
}

impl Ruleset {
    /// The IR as RON, the format `tempo compile` writes.
    pub fn to_ron(&self) -> Result<String, ron::Error> {
        ron::ser::to_string_pretty(self, Self::ron_layout())
    }

    /// Writes what [`Ruleset::to_ron`] returns into `w` as it is made, without holding the whole
    /// text (it is several times the size of the source: most of `tempo compile`'s peak memory
    /// when it was built as one string first).
    pub fn write_ron<W: std::io::Write>(&self, w: W) -> Result<(), ron::Error> {
        ron::Options::default().to_io_writer_pretty(w, self, Self::ron_layout())
    }

    fn ron_layout() -> ron::ser::PrettyConfig {
        ron::ser::PrettyConfig::new().struct_names(false).indentor("  ".to_string())
    }

    /// Reads RON written by [`Ruleset::to_ron`], refusing other format versions and anything
    /// the runner could not run safely (see [`validate::validate`]).
    pub fn from_ron(text: &str) -> Result<Ruleset, String> {
        let ruleset: Ruleset = ron::from_str(text).map_err(|e| e.to_string())?;
        if ruleset.format_version != FORMAT_VERSION {
            return Err(format!(
                "this IR has format version {}, this tempo reads version {FORMAT_VERSION}; recompile the .rules file",
                ruleset.format_version
            ));
        }
        validate::validate(&ruleset).map_err(|e| format!("it is damaged: {e}; recompile the .rules file"))?;
        Ok(ruleset)
    }
}

/// Leaves a flag that is off out of the serialized IR, so a ruleset that does not use it reads
/// as it did before the flag existed.
fn is_false(b: &bool) -> bool {
    !*b
}
