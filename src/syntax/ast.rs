//! The syntax tree: what a `.rules` file says, with a byte span on every node.
//!
//! Names are still strings here; `check` resolves them. Nothing here knows about pest.

use crate::source::{FileId, Span};

/// A name as written, with where it was written. Names are short: held inline (up to 24
/// bytes), a name costs no allocation of its own (issue 10, item 6: the tree is most of a
/// compile's peak memory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: compact_str::CompactString,
    pub span: Span,
}

/// A comment kept for the formatter. `doc` is true for `##` comments. The text is held inline
/// up to 24 bytes, like names: a generated or well-commented file has one per declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub text: compact_str::CompactString,
    pub doc: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct File {
    pub file: FileId,
    pub name: Ident,
    pub extends: Option<(String, Span)>,
    pub items: Vec<Item>,
    pub comments: Vec<Comment>,
}

/// One top-level declaration.
#[derive(Debug, Clone)]
pub struct Item {
    /// The `##` lines directly above the item, joined with newlines.
    pub doc: Option<compact_str::CompactString>,
    /// `override` was written in front of it.
    pub(crate) is_override: bool,
    pub(crate) decl: Decl,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub(crate) enum Decl {
    Title(String),
    Stat {
        name: Ident,
        default: Expr,
    },
    Derive {
        name: Ident,
        value: Expr,
    },
    Category {
        name: Ident,
        label: Option<String>,
    },
    Event {
        name: Ident,
        label: Option<String>,
    },
    Pool(Pool),
    Condition(Condition),
    Initiative(Vec<InitiativeClause>),
    Round(Vec<Phase>),
    Priority(Vec<Ident>),
    Chains {
        order: Ident,
        depth: Option<Expr>,
    },
    Limit(Box<Limit>),
    DefaultCost(CostTerms),
    Action(Action),
    Trigger(Action),
    /// Boxed, as the larger declarations are: every item is as large as the largest kind, and a
    /// large ruleset is mostly actions.
    Hook(Box<Hook>),
    Space {
        kind: Ident,
        zones: Vec<Ident>,
    },
    Surprise(Option<Ident>),
    Downtime {
        name: Option<Ident>,
        every: Box<Expr>,
        body: Block,
    },
    Rest {
        name: Ident,
        label: Option<String>,
        hours: Option<Box<Expr>>,
        /// `minutes 15`: a length in minutes instead of hours.
        minutes: Option<Box<Expr>>,
        body: Block,
    },
    Outro {
        name: Ident,
        label: Option<String>,
        continues: bool,
        body: Block,
    },
    StateOrder(Vec<Ident>),
    Sequence {
        timing: Ident,
        steps: Vec<Ident>,
    },
    Remove {
        kind: DeclKind,
        name: Ident,
    },
    CostAdjust {
        subject: Ident,
        /// `except NAME, ...`: kinds, categories or actions of the subject left alone.
        except: Vec<Ident>,
        op: CostAdjustOp,
        when: Option<Box<Expr>>,
    },
    /// `effect NAME { ... }`: effects written once, used by `do NAME`.
    Effect {
        name: Ident,
        body: Block,
    },
    /// `degrees NAME { LEVEL: SIDE when COND ... }`: levels of success, best first.
    Degrees(Degrees),
    /// `default degrees NAME`: the degrees of every check that names none.
    DefaultDegrees(Ident),
    /// `reach EXPR`: how far each participant threatens.
    Reach(Expr),
    /// `terrain NAME ["Label"] { slows EXPR [unless COND]; blocks [unless COND] }`.
    Terrain(Box<Terrain>),
    /// `object NAME ["Label"]`: a kind of thing on the map or in someone's hands.
    Object {
        name: Ident,
        label: Option<String>,
    },
    /// `items NAME ["Label"] { KIND [xN], ... }`: a set of items piles hold.
    Items(Box<ItemSet>),
    /// `pile NAME ["Label"] of SET [{ starts full }]`: a pile of items, one per participant.
    Pile(Box<PileDecl>),
    /// `die NAME ["Label"] { faces: FACE, ... }`: a die with custom faces, each the symbols it
    /// shows (none for `-`).
    Die {
        name: Ident,
        label: Option<String>,
        faces: Vec<Vec<Ident>>,
    },
}

/// `items cards { strike x2, dash }`.
#[derive(Debug, Clone)]
pub struct ItemSet {
    pub name: Ident,
    pub label: Option<String>,
    /// Each kind, its `xN` as written (the checker reads the number) and its number (`= 2`).
    pub kinds: Vec<ItemKindDecl>,
}

/// `strike x2`, `joker = 100`: a kind of item in `items`.
#[derive(Debug, Clone)]
pub struct ItemKindDecl {
    pub name: Ident,
    /// `x2` as written (the checker reads the number).
    pub times: Option<Ident>,
    /// `= 2`: the kind's number, as written (the checker reads it).
    pub value: Option<Ident>,
}

/// `pile deck of cards { starts full }`.
#[derive(Debug, Clone)]
pub struct PileDecl {
    pub name: Ident,
    pub label: Option<String>,
    pub of: Ident,
    pub full: bool,
    /// `shared`: one pile for the whole encounter (where the word is).
    pub shared: Option<Span>,
    /// `per side`: one pile for each side (where the words are).
    pub per_side: Option<Span>,
}

/// `hand` or `target.hand` in a draw or a move of items.
#[derive(Debug, Clone, PartialEq)]
pub struct PileRef {
    pub who: Option<Ident>,
    pub pile: Ident,
}

/// Which items `move ... from PILE to PILE` takes.
#[derive(Debug, Clone, PartialEq)]
pub enum PilePick {
    /// One of this kind.
    Kind(Ident),
    /// So many at random (one without a number).
    Random(Option<Expr>),
    All,
    /// The item of the highest number (`true`) or the lowest.
    Extreme(bool),
}

/// A kind of ground the scenario lays on places of the line.
#[derive(Debug, Clone, PartialEq)]
pub struct Terrain {
    pub name: Ident,
    pub label: Option<String>,
    /// `slows N [if|unless COND]`: each place takes N units of a move.
    pub slows: Option<(Expr, Option<Guard>)>,
    /// `blocks [if|unless COND]`: a move stops before it.
    pub blocks: Option<(Span, Option<Guard>)>,
}

/// Levels of success a check can reach, best first, and what shifts a roll by a level.
#[derive(Debug, Clone, PartialEq)]
pub struct Degrees {
    pub name: Ident,
    pub levels: Vec<DegreeLevel>,
    pub shifts: Vec<DegreeShift>,
}

/// `hard: success when COND`.
#[derive(Debug, Clone, PartialEq)]
pub struct DegreeLevel {
    pub name: Ident,
    /// `success` or `failure`, as written.
    pub side: Ident,
    pub when: Option<Expr>,
}

/// `up when COND` (`up` false: `down`); in a check, `opponent` shifts the roll it is against.
#[derive(Debug, Clone, PartialEq)]
pub struct DegreeShift {
    pub opponent: bool,
    pub up: bool,
    pub when: Expr,
    pub span: Span,
}

/// `degrees NAME, SHIFT, ...` after a check's `vs`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CheckDegrees {
    pub name: Ident,
    pub shifts: Vec<DegreeShift>,
}

/// How `adjust cost` changes a cost.
#[derive(Debug, Clone, PartialEq)]
pub enum CostAdjustOp {
    Scale(Box<Expr>),
    Add(CostTerms),
}

/// The kinds of named declaration, for `remove`, `override` and messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum DeclKind {
    Stat,
    Derive,
    Pool,
    Category,
    Event,
    Condition,
    Action,
    Trigger,
    Limit,
    Rest,
    Outro,
    Hook,
    Downtime,
    Effect,
    Degrees,
    Terrain,
    Object,
    Items,
    Pile,
    Die,
}

impl DeclKind {
    pub fn word(self) -> &'static str {
        match self {
            DeclKind::Stat => "stat",
            DeclKind::Derive => "derived value",
            DeclKind::Pool => "pool",
            DeclKind::Category => "category",
            DeclKind::Event => "event",
            DeclKind::Condition => "condition",
            DeclKind::Action => "action",
            DeclKind::Trigger => "trigger",
            DeclKind::Limit => "limit",
            DeclKind::Rest => "rest",
            DeclKind::Outro => "outro",
            DeclKind::Hook => "hook",
            DeclKind::Downtime => "downtime",
            DeclKind::Effect => "effect",
            DeclKind::Degrees => "degrees",
            DeclKind::Terrain => "terrain",
            DeclKind::Object => "object",
            DeclKind::Items => "set of items",
            DeclKind::Pile => "pile",
            DeclKind::Die => "die",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Pool {
    pub name: Ident,
    pub label: Option<String>,
    pub clauses: Vec<PoolClause>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PoolClause {
    /// `None` is `max none`: unbounded.
    Max(Option<Expr>, Span),
    Min(Expr, Span),
    Start(Expr, Span),
    Refresh {
        at: Timing,
        guard: Option<Guard>,
        span: Span,
    },
    Keep {
        at: Timing,
        span: Span,
    },
    Lose {
        at: Timing,
        guard: Option<Guard>,
        span: Span,
    },
    Decay {
        amount: Expr,
        at: Timing,
        guard: Option<Guard>,
        span: Span,
    },
    Convert {
        into: Ident,
        at: Timing,
        guard: Option<Guard>,
        span: Span,
    },
    Gain {
        amount: Expr,
        when: GainWhen,
        guard: Option<Guard>,
        cap: Option<Cap>,
        span: Span,
    },
    Overspend {
        floor: Expr,
        price: Block,
        span: Span,
    },
    /// `rising`: costs fill the pool instead of emptying it.
    Rising(Span),
    /// `shared`: one value for the whole encounter.
    Shared(Span),
    /// `per side`: one value for each side.
    PerSide(Span),
    /// `emit EVENT on spend`: each payment of the pool is that event.
    SpendEvent(Ident, Span),
    Threshold {
        op: CmpOp,
        value: Expr,
        /// `immediately`: looked at right after each change, not when the rule ends.
        immediately: bool,
        body: Block,
        span: Span,
    },
}

impl PoolClause {
    pub fn span(&self) -> Span {
        match self {
            PoolClause::Max(_, s)
            | PoolClause::Min(_, s)
            | PoolClause::Start(_, s)
            | PoolClause::Rising(s)
            | PoolClause::Shared(s)
            | PoolClause::PerSide(s)
            | PoolClause::SpendEvent(_, s) => *s,
            PoolClause::Refresh { span, .. }
            | PoolClause::Keep { span, .. }
            | PoolClause::Lose { span, .. }
            | PoolClause::Decay { span, .. }
            | PoolClause::Convert { span, .. }
            | PoolClause::Gain { span, .. }
            | PoolClause::Overspend { span, .. }
            | PoolClause::Threshold { span, .. } => *span,
        }
    }

    /// Clauses of the same kind replace each other in an `override`.
    pub(crate) fn kind_word(&self) -> &'static str {
        match self {
            PoolClause::Max(..) => "max",
            PoolClause::Min(..) => "min",
            PoolClause::Start(..) => "start",
            PoolClause::Refresh { .. } => "refresh",
            PoolClause::Keep { .. } => "keep",
            PoolClause::Lose { .. } => "lose",
            PoolClause::Decay { .. } => "decay",
            PoolClause::Convert { .. } => "convert",
            PoolClause::Gain { .. } => "gain",
            PoolClause::Overspend { .. } => "overspend",
            PoolClause::Rising(_) => "rising",
            PoolClause::Shared(_) => "shared",
            PoolClause::PerSide(_) => "per side",
            PoolClause::SpendEvent(..) => "emit",
            PoolClause::Threshold { .. } => "when",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum GainWhen {
    At(Timing),
    On(EventPattern),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cap {
    pub amount: Expr,
    pub per: Period,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    /// `unless` rather than `if`.
    pub negated: bool,
    pub cond: Expr,
}

/// `turn_start` or `phase_start(upkeep)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    pub name: Ident,
    pub arg: Option<Ident>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Period {
    Turn,
    Round,
    Encounter,
    Trigger,
    Phase,
}

#[derive(Debug, Clone)]
pub struct Condition {
    pub name: Ident,
    pub label: Option<String>,
    pub clauses: Vec<ConditionClause>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConditionClause {
    Blocks(Vec<Blocked>, Span),
    Implies(Vec<Ident>, Span),
    Lasts(Duration, Span),
    Polarity {
        positive: bool,
        span: Span,
    },
    Maintain {
        at: Timing,
        /// `optional`: the holder's controller chooses each time whether to pay.
        optional: Option<Span>,
        body: Block,
        span: Span,
    },
    Hook {
        at: Timing,
        body: Block,
        span: Span,
    },
    /// `modify checks by EXPR` or `modify checks with advantage`.
    Modify {
        /// `against self`: the checks others' actions make against the holder.
        against: Option<Ident>,
        by: Option<Expr>,
        with: Option<Ident>,
        /// `on reaction`: only the checks of such actions (an action, category or kind).
        on: Option<Ident>,
        span: Span,
    },
}

impl ConditionClause {
    pub(crate) fn kind_word(&self) -> &'static str {
        match self {
            ConditionClause::Blocks(..) => "blocks",
            ConditionClause::Implies(..) => "implies",
            ConditionClause::Lasts(..) => "lasts",
            ConditionClause::Polarity { .. } => "polarity",
            ConditionClause::Maintain { .. } => "maintain",
            ConditionClause::Hook { .. } => "at",
            ConditionClause::Modify { .. } => "modify",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Blocked {
    /// `actions`, `reactions`, `movement`, ...
    Thing(Ident),
    /// `spend mp`.
    Spend(Ident),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Duration {
    Until(Timing),
    Rounds(Expr),
    While(Expr),
    Maintained(Span),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum InitiativeClause {
    /// `value EXPR [per side]`.
    Value(Expr, bool, Span),
    Made(Timing, Span),
    Adjust(Expr, Span),
    Range(Expr, Expr, Span),
    Order(Ident, Span),
    Ties(Vec<TieBreak>, Span),
    Allow(Vec<Ident>, Span),
    /// `reorder WORD`: when a change of initiative reorders the turns.
    Reorder(Ident, Span),
    /// `slots by WORD`: whose the places in the order are.
    Slots(Ident, Span),
}

impl InitiativeClause {
    /// Where the clause is written.
    pub fn span(&self) -> Span {
        match self {
            InitiativeClause::Value(_, _, s)
            | InitiativeClause::Made(_, s)
            | InitiativeClause::Adjust(_, s)
            | InitiativeClause::Range(_, _, s)
            | InitiativeClause::Order(_, s)
            | InitiativeClause::Ties(_, s)
            | InitiativeClause::Allow(_, s)
            | InitiativeClause::Reorder(_, s)
            | InitiativeClause::Slots(_, s) => *s,
        }
    }

    pub(crate) fn kind_word(&self) -> &'static str {
        match self {
            InitiativeClause::Value(..) => "value",
            InitiativeClause::Made(..) => "made",
            InitiativeClause::Adjust(..) => "adjust",
            InitiativeClause::Range(..) => "range",
            InitiativeClause::Order(..) => "order",
            InitiativeClause::Ties(..) => "ties",
            InitiativeClause::Allow(..) => "allow",
            InitiativeClause::Reorder(..) => "reorder",
            InitiativeClause::Slots(..) => "slots",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TieBreak {
    Higher(Ident),
    /// `lower NAME`: the lower value first.
    Lower(Ident),
    Roll(Expr),
    /// `roll EXPR until different`: rolled again among those still tied.
    RollUntilDifferent(Expr),
    /// `players_first`, `simultaneous`, `gm`, `table`.
    Named(Ident),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub name: Ident,
    pub guard: Option<Guard>,
    pub kind: PhaseKind,
    /// `turns requires COND`: only those for whom it holds take a turn in the phase.
    pub takes: Option<Expr>,
    /// `repeat while COND`: played again while it holds for anyone present.
    pub again: Option<Expr>,
    /// `hidden`, where written: choices made against the phase's start, revealed together.
    pub hidden: Option<Span>,
    /// `picks N`, where written: how many declarations each chooses in a hidden phase (the
    /// number as written, and where).
    pub picks: Option<(String, Span)>,
    /// `must` after `picks N`: each makes its N picks while any is offered.
    pub must: Option<Span>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PhaseKind {
    Turns,
    /// The kinds of action allowed; empty means all.
    Simultaneous(Vec<ActionKind>),
    Step(Block),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    pub each: bool,
    pub subject: Ident,
    /// `except NAME, ...`: kinds, categories or actions of the subject not counted.
    pub except: Vec<Ident>,
    pub amount: LimitAmount,
    pub guard: Option<Guard>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LimitAmount {
    pub amount: Expr,
    /// Counts an amount of this pool spent instead of uses.
    pub pool: Option<Ident>,
    pub per: Period,
    /// `per side`: what every member of the user's side did counts together.
    pub per_side: bool,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ActionKind {
    Action,
    Free,
    Reaction,
    Preparation,
    Activity,
}

impl ActionKind {
    pub const ALL: [ActionKind; 5] =
        [ActionKind::Action, ActionKind::Free, ActionKind::Reaction, ActionKind::Preparation, ActionKind::Activity];

    pub fn word(self) -> &'static str {
        match self {
            ActionKind::Action => "action",
            ActionKind::Free => "free",
            ActionKind::Reaction => "reaction",
            ActionKind::Preparation => "preparation",
            ActionKind::Activity => "activity",
        }
    }

    pub(crate) fn from_word(word: &str) -> Option<ActionKind> {
        ActionKind::ALL.into_iter().find(|k| k.word() == word)
    }
}

#[derive(Debug, Clone)]
pub struct Action {
    pub kind: ActionKind,
    pub name: Ident,
    pub label: Option<compact_str::CompactString>,
    pub clauses: Vec<ActionClause>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ActionClause {
    Cost {
        terms: CostTerms,
        when: Option<Box<Expr>>,
        span: Span,
    },
    Partner(CostTerms, Span),
    /// `partners 2 within 1`: how many helpers a combo needs, and how near.
    Partners {
        count: Box<Expr>,
        within: Option<Box<Expr>>,
        span: Span,
    },
    Category(Vec<Ident>, Span),
    Limit(Box<LimitAmount>),
    Target {
        who: Ident,
        within: Option<Box<Expr>>,
        span: Span,
    },
    Requires(Expr, Span),
    On(Box<EventPattern>),
    Interrupts(Span),
    EndsTurn(Span),
    Rounds(Expr, Span),
    /// `interrupted when COND { ... }`: what makes a multi-round action under way fail, and
    /// what happens when it is lost.
    Interrupted {
        when: Box<Expr>,
        then: Option<Block>,
        span: Span,
    },
    Resolve(Block),
    /// `grants turn { ap = 1; limit move 2 }`: a turn given to the reactor once it resolves.
    Grants(Box<GrantedTurn>),
}

/// `grants turn { POOL = EXPR; limit move EXPR; limit actions EXPR }`.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantedTurn {
    /// The pools set for the granted turn, in the order written.
    pub budget: Vec<(Ident, Expr)>,
    /// The turn's limits, in the order written.
    pub limits: Vec<GrantLimit>,
    pub span: Span,
}

/// `limit move 2`, `limit actions 1` in a granted turn.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantLimit {
    /// `true` for `move` (units moved), `false` for `actions` (actions declared).
    pub moves: bool,
    pub amount: Expr,
    pub span: Span,
}

impl ActionClause {
    pub(crate) fn kind_word(&self) -> &'static str {
        match self {
            ActionClause::Cost { .. } => "cost",
            ActionClause::Partner(..) => "partner",
            ActionClause::Partners { .. } => "partners",
            ActionClause::Category(..) => "category",
            ActionClause::Limit(..) => "limit",
            ActionClause::Target { .. } => "target",
            ActionClause::Requires(..) => "requires",
            ActionClause::On(..) => "on",
            ActionClause::Interrupts(..) => "interrupts",
            ActionClause::EndsTurn(..) => "ends_turn",
            ActionClause::Rounds(..) => "rounds",
            ActionClause::Interrupted { .. } => "interrupted",
            ActionClause::Resolve(..) => "resolve",
            ActionClause::Grants(..) => "grants",
        }
    }

    pub fn span(&self) -> Span {
        match self {
            ActionClause::Cost { span, .. }
            | ActionClause::Partner(_, span)
            | ActionClause::Partners { span, .. }
            | ActionClause::Category(_, span)
            | ActionClause::Target { span, .. }
            | ActionClause::Requires(_, span)
            | ActionClause::Interrupts(span)
            | ActionClause::EndsTurn(span)
            | ActionClause::Rounds(_, span)
            | ActionClause::Interrupted { span, .. } => *span,
            ActionClause::Limit(l) => l.span,
            ActionClause::On(e) => e.span,
            ActionClause::Resolve(b) => b.span,
            ActionClause::Grants(g) => g.span,
        }
    }
}

/// `2 ap + 1 energy`; empty for `0`.
#[derive(Debug, Clone, PartialEq)]
pub struct CostTerms {
    pub(crate) terms: Vec<CostTerm>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CostTerm {
    pub amount: Expr,
    pub pool: Ident,
    /// `per 2 units`: (how many, of what).
    pub per: Option<(u32, Ident)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EventPattern {
    pub event: Ident,
    /// The phase of `on phase_start(PHASE)` / `on phase_end(PHASE)`.
    pub phase: Option<Ident>,
    pub by: Option<Ident>,
    pub against: Option<Ident>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Hook {
    pub name: Option<Ident>,
    pub at: Timing,
    pub guard: Option<Guard>,
    pub body: Block,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub(crate) stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stmt {
    If {
        cond: Expr,
        then: Block,
        otherwise: Option<Block>,
        span: Span,
    },
    /// `repeat while COND { ... }`.
    Repeat {
        cond: Expr,
        body: Block,
        span: Span,
    },
    /// `for each RELATION [within EXPR] [where COND] { ... }`.
    Each {
        relation: Ident,
        within: Option<Expr>,
        filter: Option<Expr>,
        body: Block,
        span: Span,
    },
    Apply {
        condition: Ident,
        magnitude: Option<Expr>,
        to: Option<Ident>,
        /// Boxed: most `apply`s have none, and a duration is as large as the rest of the
        /// statement (every statement is as large as the largest).
        duration: Option<Box<Duration>>,
        span: Span,
    },
    Remove {
        condition: Ident,
        from: Option<Ident>,
        span: Span,
    },
    Emit(Ident),
    /// `emit NAME(EXPR)`: an event with an amount.
    EmitWith(Ident, Box<Expr>),
    /// `do NAME`: the effects of the named `effect`.
    Do(Ident),
    Choose {
        chooser: Ident,
        question: Option<String>,
        options: Vec<(Ident, Block)>,
        span: Span,
    },
    Check {
        roll: Expr,
        against: Expr,
        /// `degrees NAME, ...`: `None` reads the check by the ruleset's default degrees, if any.
        degrees: Option<Box<CheckDegrees>>,
        outcomes: Vec<(Ident, Block)>,
        span: Span,
    },
    Move(Expr, Span),
    /// `move away N`: away from the target or the nearest enemy.
    MoveAway(Expr, Span),
    /// `move through N`: toward the target or the nearest enemy, and past it to its far side.
    MoveThrough(Expr, Span),
    Push {
        who: Ident,
        distance: Expr,
        span: Span,
    },
    Pay(CostTerms),
    Follow(Ident),
    /// `swap WHO`: trade places.
    Swap(Ident),
    /// `move [away|through] N leap L`: a move that clears blocking terrain up to L places wide.
    MoveLeaping {
        way: Way,
        amount: Expr,
        leap: Expr,
        span: Span,
    },
    /// `take KIND [from WHO | within N]`.
    Take {
        kind: Ident,
        from: Option<Ident>,
        within: Option<Expr>,
        span: Span,
    },
    /// `handle KIND [within N]`.
    Handle {
        kind: Ident,
        within: Option<Expr>,
        span: Span,
    },
    /// `drop KIND [from WHO] [toward|away N]`.
    Drop {
        kind: Ident,
        from: Option<Ident>,
        /// `true` for `toward`.
        toward: bool,
        distance: Option<Expr>,
        span: Span,
    },
    /// `draw N from PILE to PILE`: N items at random, without replacement.
    Draw {
        count: Expr,
        from: PileRef,
        to: PileRef,
        span: Span,
    },
    /// `move KIND|random [N]|all from PILE to PILE`.
    MoveItems {
        pick: PilePick,
        from: PileRef,
        to: PileRef,
        span: Span,
    },
    EndTurn(Span),
    EndEncounter(Span),
    Cancel(Span),
    /// `redirect`: what an interrupting answer answers goes on against the one answering.
    Redirect(Span),
    RollInitiative(Span),
    ClearConditions(Span),
    /// `roll NAME = DICE`: dice rolled once, read by the `count(NAME ...)`s after it in its block.
    Roll {
        name: Ident,
        dice: Expr,
        span: Span,
    },
    Assign {
        target: Path,
        op: AssignOp,
        value: Expr,
        span: Span,
    },
}

/// Which way a move goes: toward its target (or the nearest enemy), away from it, or through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Way {
    Toward,
    Away,
    Through,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, Hash)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
}

/// `target.hp`: one or more names joined by dots.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub parts: Vec<Ident>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Nesting depth; the parser refuses trees deeper than its limit, so passes may recurse.
    pub depth: u32,
}

impl Expr {
    /// A node over already-built children; its depth is one more than its deepest child's.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let d = |e: &Expr| e.depth;
        let depth = 1 + match &kind {
            ExprKind::Neg(x) | ExprKind::Not(x) => d(x),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } => d(lhs).max(d(rhs)),
            ExprKind::Has { who, .. } | ExprKind::Is { who, .. } | ExprKind::Holds { who, .. } => d(who),
            ExprKind::Call { args, .. } => args.iter().map(d).max().unwrap_or(0),
            _ => 0,
        };
        Expr { kind, span, depth }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// The digits as written; the checker turns them into a number and reports overflow. Held
    /// inline: most numbers are a few digits, and one allocation each added up in a large file.
    Int(compact_str::CompactString),
    Bool(bool),
    Dice {
        count: Box<str>,
        sides: Box<str>,
    },
    /// A name alone (`hp`, `damage`, `self`): a path of one part, without a vector of its own
    /// (most paths are one name; the allocation each added up in a large file).
    Name(Ident),
    /// Names joined by dots: `target.hp`, `energy.max` (always two or more: the parser makes a
    /// lone name a `Name`).
    Path(Path),
    Call {
        func: Box<Ident>,
        args: Vec<Expr>,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Compare {
        op: CmpOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Has {
        who: Box<Expr>,
        condition: Box<Ident>,
        /// `by WHO`: only if that participant applied it.
        by: Option<Box<Ident>>,
    },
    Is {
        who: Box<Expr>,
        relation: Box<Ident>,
    },
    /// `WHO holds KIND`.
    Holds {
        who: Box<Expr>,
        kind: Box<Ident>,
    },
}

impl ExprKind {
    /// The name, when this is one name alone (not a dotted path, not anything else).
    pub(crate) fn single_name(&self) -> Option<&Ident> {
        match self {
            ExprKind::Name(n) => Some(n),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    /// Whether `a OP b` holds.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
}

/// Equality that ignores where things were written, for "this override changes nothing".
pub trait SameAs {
    fn same_as(&self, other: &Self) -> bool;
}

impl<T: std::fmt::Debug> SameAs for T {
    fn same_as(&self, other: &Self) -> bool {
        spanless_debug(self) == spanless_debug(other)
    }
}

/// The `Debug` text of a node with every span removed, to compare nodes by meaning.
pub(crate) fn spanless_debug<T: std::fmt::Debug>(value: &T) -> String {
    let text = format!("{value:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("Span {") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let close = tail.find('}').map(|c| c + 1).unwrap_or(tail.len());
        rest = &tail[close..];
    }
    out.push_str(rest);
    out
}
