//! Expressions and effects in the IR.

use super::*;
pub use crate::syntax::ast::Way;

/// Whose value an expression reads, relative to the rule being run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Who {
    /// The participant the rule runs for: the actor, the reactor, the pool's or condition's holder.
    Owner,
    /// The target of the action being resolved.
    Target,
    /// Whoever did the event a reaction or trigger answers.
    EventActor,
    /// The target of the event a reaction or trigger answers (the one attacked).
    EventTarget,
    /// Whoever applied the condition the rule belongs to (the holder, for one held from the start).
    Source,
    /// `enemy_side`: the side opposing the owner's (the side of the first participant in the
    /// scenario who is not on the owner's side); names only pools kept `per side`.
    EnemySide,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Builtin {
    /// The current round number, 1-based (0 before the first round).
    Round,
    /// True during the owner's own turn.
    OwnTurn,
    /// True during the last turn of the current phase.
    FinalTurn,
    /// True during a surprise round.
    SurpriseRound,
    /// The units (or zones) of movement the action being resolved paid for; 0 elsewhere.
    Units,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Func {
    Min,
    Max,
    Abs,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    Int(i64),
    Bool(bool),
    Dice {
        count: u32,
        sides: u32,
    },
    /// `dice(COUNT, SIDES)`: dice whose number and size are read as they are rolled (from a
    /// stat, a pool, a level). A count of 0 or less rolls nothing and is 0; more than
    /// `MAX_DICE` dice, or sides outside 1 to `MAX_SIDES`, stop the run.
    DiceOf(Box<Expr>, Box<Expr>),
    Stat(Who, StatId),
    Derived(Who, DerivedId),
    Pool(Who, PoolId),
    PoolMax(Who, PoolId),
    PoolMin(Who, PoolId),
    Initiative(Who),
    /// The total of the participant's most recent check (0 before any).
    LastCheck(Who),
    /// Whether the participant's most recent check was a critical.
    LastCritical(Who),
    /// Inside `degrees`: a fact of the roll being graded.
    Roll(RollFact),
    /// `trigger.amount`: the amount of the event being answered, as answers left it so far.
    TriggerAmount,
    /// `amount(EVENT)`: the amount the last `emit EVENT(...)` ended with, its answers done.
    Amount(EventId),
    /// How many participants standing, related to the owner by the relation, are each within
    /// their own value of the expression of the participant (`count_near(ally, target, reach)`).
    CountNear(Relation, Who, Box<Expr>),
    /// `count(NdM OP X)`, `count(dice(N, M) OP X)`: a pool of `[count, sides]` dice (read as
    /// `DiceOf` reads them) rolled at once, and how many of its dice meet `OP X` (`X` read once,
    /// after the roll): successes on a dice pool, one trace line with every face.
    CountDice(CmpOp, Box<[Expr; 3]>),
    /// `count(RELATION, COND)`: how many participants still in the encounter, related to the
    /// owner by the relation, meet the condition, read with each of them as `self`.
    CountWho(Relation, Box<Expr>),
    /// `count(NAME OP X)`, `count(NAME, SYMBOL)`: one of the counts a named roll made when it
    /// was rolled (its `Roll::counts`, by place); 0 before that roll.
    RollCount(RollId, u32),
    Builtin(Builtin),
    Distance(Who),
    /// `distance(A, B)`: how far two participants are from each other.
    DistanceBetween(Who, Who),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    Has(Who, ConditionId),
    /// Held, and applied by the second participant.
    HasFrom(Who, ConditionId, Who),
    /// The magnitude the condition was applied with (1 without one), 0 when not held.
    Condition(Who, ConditionId),
    Is(Who, Relation),
    /// The event a reaction or trigger answers is (or is of) this action, category or kind.
    TriggerIs(EventRef),
    /// `WHO holds KIND`: holds an object of that kind.
    Holds(Who, ObjectId),
    /// `handlers(KIND)`: how many hold the object of that kind the owner holds (0 when none).
    Handlers(ObjectId),
    /// `PILE has KIND`: the pile holds at least one of the kind (its index in the pile's set).
    PileHas(PileAt, u32),
    /// `count(PILE)`, `count(PILE, KIND)`: how many items the pile holds, or of one kind.
    PileCount(PileAt, Option<u32>),
    /// `value(PILE)`, `highest(PILE)`, `lowest(PILE)`: what the numbers of its items come to.
    PileValue(PileAt, PileRead),
    Call(Func, Vec<Expr>),
}

impl Expr {
    /// The expressions written directly inside this one, left to right. Every walker over
    /// expressions goes through here, so a variant with children added later is walked
    /// everywhere, or this match stops compiling.
    pub fn children(&self) -> impl DoubleEndedIterator<Item = &Expr> {
        let (pair, list): ([Option<&Expr>; 2], &[Expr]) = match self {
            Expr::Int(_)
            | Expr::Bool(_)
            | Expr::Dice { .. }
            | Expr::Stat(..)
            | Expr::Derived(..)
            | Expr::Pool(..)
            | Expr::PoolMax(..)
            | Expr::PoolMin(..)
            | Expr::Initiative(_)
            | Expr::LastCheck(_)
            | Expr::LastCritical(_)
            | Expr::Roll(_)
            | Expr::TriggerAmount
            | Expr::Amount(_)
            | Expr::Builtin(_)
            | Expr::Distance(_)
            | Expr::DistanceBetween(..)
            | Expr::Has(..)
            | Expr::HasFrom(..)
            | Expr::Condition(..)
            | Expr::Is(..)
            | Expr::TriggerIs(_)
            | Expr::Holds(..)
            | Expr::Handlers(_)
            | Expr::PileHas(..)
            | Expr::PileCount(..)
            | Expr::PileValue(..)
            | Expr::RollCount(..) => ([None, None], &[]),
            Expr::CountNear(_, _, x) | Expr::CountWho(_, x) | Expr::Neg(x) | Expr::Not(x) => ([Some(x), None], &[]),
            Expr::CountDice(_, parts) => ([None, None], &parts[..]),
            Expr::DiceOf(a, b) | Expr::Binary(_, a, b) | Expr::Compare(_, a, b) => ([Some(a), Some(b)], &[]),
            Expr::Call(_, args) => ([None, None], args),
        };
        pair.into_iter().flatten().chain(list)
    }

    /// Calls `f` on this expression and every expression inside it, each before its children,
    /// children left to right. Uses a stack of its own rather than the call stack: a
    /// hand-written IR can nest as deep as its reader allows.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            f(e);
            stack.extend(e.children().rev());
        }
    }
}

/// Most passes of a `repeat while`: a loop a rule cannot end stops here.
pub const MAX_REPEATS: u32 = 1000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Effect {
    Pool {
        who: Who,
        pool: PoolId,
        op: AssignOp,
        value: Expr,
    },
    Initiative {
        who: Who,
        op: AssignOp,
        value: Expr,
    },
    Apply {
        who: Who,
        condition: ConditionId,
        magnitude: Option<Expr>,
        duration: Option<Duration>,
    },
    Remove {
        who: Who,
        condition: ConditionId,
    },
    Emit(EventId),
    /// `emit EVENT(EXPR)`: an event with an amount its answers may change.
    EmitWith(EventId, Expr),
    /// `trigger.amount OP EXPR`: changes the amount of the event being answered.
    Amount {
        op: AssignOp,
        value: Expr,
    },
    Choose {
        chooser: Chooser,
        question: String,
        options: Vec<ChoiceOption>,
        loc: Loc,
    },
    Check {
        roll: Expr,
        against: Expr,
        outcomes: Outcomes,
    },
    If {
        cond: Expr,
        then: Vec<Effect>,
        otherwise: Vec<Effect>,
    },
    /// `body` again and again while `cond` holds, stopping after a pass that changed no pool, no
    /// condition and no position and rolled no dice, and after `MAX_REPEATS` passes.
    Repeat {
        cond: Expr,
        body: Vec<Effect>,
    },
    /// `for each RELATION [within EXPR] [where COND] { ... }`: `body` once for each participant
    /// still in the encounter related to the owner by `relation`, in scenario order, with
    /// `target` bound to them. `within` is read for the owner (with `target` the participant):
    /// how far from the owner they may be. `filter` is read with the participant as `self`, as
    /// `count(RELATION, COND)` reads its condition. Who is looped over is settled as the loop
    /// starts; one who leaves the encounter before their pass is skipped. Loops do not nest.
    Each {
        relation: Relation,
        within: Option<Expr>,
        filter: Option<Expr>,
        body: Vec<Effect>,
    },
    Move(Expr),
    /// Voluntary movement away from the target or the nearest enemy.
    MoveAway(Expr),
    /// Voluntary movement toward the target or the nearest enemy and past it, through its place.
    MoveThrough(Expr),
    Push {
        who: Who,
        distance: Expr,
    },
    Pay(Vec<Cost>),
    Follow(Who),
    EndTurn,
    EndEncounter,
    Cancel,
    RollInitiative,
    ClearConditions,
    /// Trade places with another participant.
    Swap(Who),
    /// What an interrupting answer answers goes on with the one answering as its target.
    Redirect,
    /// A voluntary move that clears blocking terrain up to `leap` places wide.
    MoveLeaping {
        way: Way,
        amount: Expr,
        leap: Expr,
    },
    /// The owner takes an object of the kind: out of `from`'s hands, or one lying within
    /// `within` (0 without either).
    Take {
        kind: ObjectId,
        from: Option<Who>,
        within: Option<Expr>,
    },
    /// The owner takes hold of an object of the kind within `within`, with whoever holds it.
    Handle {
        kind: ObjectId,
        within: Option<Expr>,
    },
    /// `from` lets go of its object of the kind; it lies at their place, or `distance` places
    /// from it toward (or away from) the owner.
    Drop {
        kind: ObjectId,
        from: Who,
        toward: bool,
        distance: Option<Expr>,
    },
    /// A draw or a move of items between piles.
    Pile(PileEffect),
    /// `roll NAME = DICE`: dice rolled once, and every count its block reads from them.
    Roll(Box<Roll>),
}

impl Effect {
    /// The blocks of effects written directly inside this one (an `if`'s branches, a check's
    /// outcomes, a choice's options, a loop's body).
    pub fn blocks(&self) -> Box<dyn Iterator<Item = &[Effect]> + '_> {
        match self {
            Effect::If { then, otherwise, .. } => Box::new([&then[..], &otherwise[..]].into_iter()),
            Effect::Repeat { body, .. } | Effect::Each { body, .. } => Box::new(std::iter::once(&body[..])),
            Effect::Check { outcomes, .. } => Box::new(outcomes.blocks()),
            Effect::Choose { options, .. } => Box::new(options.iter().map(|o| &o.effects[..])),
            _ => Box::new(std::iter::empty()),
        }
    }

    /// Whether a `for each` loop is written anywhere inside these effects.
    pub fn any_loop(effects: &[Effect]) -> bool {
        let mut stack = vec![effects];
        while let Some(list) = stack.pop() {
            for e in list {
                if matches!(e, Effect::Each { .. }) {
                    return true;
                }
                stack.extend(e.blocks());
            }
        }
        false
    }
}

/// A named roll: its dice, rolled in order, then each of its counts made on those faces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Roll {
    pub id: RollId,
    pub name: String,
    pub parts: Vec<RollPart>,
    /// Every count its block reads (`Expr::RollCount` names one by place), made right after
    /// the roll, so the trace shows them with the faces they were made on.
    pub counts: Vec<RollCounting>,
}

/// `COUNT` dice of one kind: numbered faces 1 to `sides`, or a declared die's faces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RollPart {
    pub count: Expr,
    pub faces: Faces,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Faces {
    Sides(Expr),
    Die(DieId),
}

/// One way a named roll is read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RollCounting {
    /// How many numbered dice show a face that meets `OP X` (`X` read right after the roll).
    Compare(CmpOp, Expr),
    /// How many times the symbol shows on the custom dice's faces.
    Symbol(SymbolId),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceOption {
    pub name: String,
    pub effects: Vec<Effect>,
}

/// Who answers a choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Chooser {
    Owner,
    Target,
    Gm,
}

/// What a check does on each result; a missing `critical` falls back to `success`, a missing
/// `fumble` to `failure`. A check read by declared degrees has its effects in `graded` instead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcomes {
    pub success: Vec<Effect>,
    pub failure: Vec<Effect>,
    pub critical: Option<Vec<Effect>>,
    pub fumble: Option<Vec<Effect>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graded: Option<Box<Graded>>,
}

impl Outcomes {
    /// Every block of effects written, once each.
    pub fn blocks(&self) -> impl Iterator<Item = &[Effect]> {
        [Some(&self.success[..]), Some(&self.failure[..]), self.critical.as_deref(), self.fumble.as_deref()]
            .into_iter()
            .flatten()
            .chain(self.graded.iter().flat_map(|g| g.blocks.iter().map(Vec::as_slice)))
    }
}

/// A check read by declared degrees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graded {
    pub degrees: crate::ir::DegreesId,
    pub contest: Contest,
    /// Shifts of this check's own level, after the degrees' own.
    pub shifts: Vec<crate::ir::LevelShift>,
    /// Shifts of the level of the roll it is against, in a contest.
    pub opponent: Vec<crate::ir::LevelShift>,
    /// The effects written, one block per outcome written.
    pub blocks: Vec<Vec<Effect>>,
    /// For each level of the degrees, the block it runs: its own, else the nearest level toward
    /// the other side's that has one (a missing `major` runs `hard`'s), else none.
    pub runs: Vec<Option<u32>>,
}

/// What a graded check's `vs` is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Contest {
    /// A value: the check's level is read on its own roll.
    Value,
    /// A roll (it has dice): both rolls are graded and compared, level first, then total.
    Roll,
    /// `WHO.last_check`: compared with that check's recorded level and total.
    LastCheck(Who),
}

/// What a level's condition reads about the roll being graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RollFact {
    /// Everything added up.
    Total,
    /// The face of the die that counts (0 when no die was thrown).
    Natural,
    /// `total - natural`: what was added to the die.
    Modifier,
    /// `total` minus what it is against.
    Margin,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child that says which slot it fills.
    fn marker(k: i64) -> Expr {
        Expr::Int(7000 + k)
    }

    fn boxed(k: i64) -> Box<Expr> {
        Box::new(marker(k))
    }

    /// Which variant `e` is. Naming every variant here means a new one does not compile until
    /// it has a sample below.
    fn variant(e: &Expr) -> usize {
        match e {
            Expr::Int(_) => 0,
            Expr::Bool(_) => 1,
            Expr::Dice { .. } => 2,
            Expr::DiceOf(..) => 3,
            Expr::Stat(..) => 4,
            Expr::Derived(..) => 5,
            Expr::Pool(..) => 6,
            Expr::PoolMax(..) => 7,
            Expr::PoolMin(..) => 8,
            Expr::Initiative(_) => 9,
            Expr::LastCheck(_) => 10,
            Expr::LastCritical(_) => 11,
            Expr::Roll(_) => 12,
            Expr::TriggerAmount => 13,
            Expr::Amount(_) => 14,
            Expr::CountNear(..) => 15,
            Expr::Builtin(_) => 16,
            Expr::Distance(_) => 17,
            Expr::DistanceBetween(..) => 18,
            Expr::Neg(_) => 19,
            Expr::Not(_) => 20,
            Expr::Binary(..) => 21,
            Expr::Compare(..) => 22,
            Expr::Has(..) => 23,
            Expr::HasFrom(..) => 24,
            Expr::Condition(..) => 25,
            Expr::Is(..) => 26,
            Expr::TriggerIs(_) => 27,
            Expr::Holds(..) => 28,
            Expr::Handlers(_) => 29,
            Expr::Call(..) => 30,
            Expr::CountDice(..) => 31,
            Expr::CountWho(..) => 32,
            Expr::PileHas(..) => 33,
            Expr::PileCount(..) => 34,
            Expr::RollCount(..) => 35,
            Expr::PileValue(..) => 36,
        }
    }
    const VARIANTS: usize = 37;

    /// One expression of every variant, each child a distinct marker.
    fn samples() -> Vec<Expr> {
        let w = Who::Owner;
        vec![
            Expr::Int(1),
            Expr::Bool(true),
            Expr::Dice { count: 1, sides: 6 },
            Expr::DiceOf(boxed(0), boxed(1)),
            Expr::Stat(w, StatId(0)),
            Expr::Derived(w, DerivedId(0)),
            Expr::Pool(w, PoolId(0)),
            Expr::PoolMax(w, PoolId(0)),
            Expr::PoolMin(w, PoolId(0)),
            Expr::Initiative(w),
            Expr::LastCheck(w),
            Expr::LastCritical(w),
            Expr::Roll(RollFact::Total),
            Expr::TriggerAmount,
            Expr::Amount(EventId(0)),
            Expr::CountNear(Relation::Ally, Who::Target, boxed(0)),
            Expr::Builtin(Builtin::Round),
            Expr::Distance(Who::Target),
            Expr::DistanceBetween(w, Who::Target),
            Expr::Neg(boxed(0)),
            Expr::Not(boxed(0)),
            Expr::Binary(BinOp::Add, boxed(0), boxed(1)),
            Expr::Compare(CmpOp::Lt, boxed(0), boxed(1)),
            Expr::Has(w, ConditionId(0)),
            Expr::HasFrom(w, ConditionId(0), Who::Source),
            Expr::Condition(w, ConditionId(0)),
            Expr::Is(Who::Target, Relation::Enemy),
            Expr::TriggerIs(EventRef::Custom(EventId(0))),
            Expr::Holds(w, ObjectId(0)),
            Expr::Handlers(ObjectId(0)),
            Expr::Call(Func::Max, vec![marker(0), marker(1), marker(2)]),
            Expr::CountDice(CmpOp::Ge, Box::new([marker(0), marker(1), marker(2)])),
            Expr::CountWho(Relation::Ally, boxed(0)),
            Expr::PileHas(PileAt { who: w, pile: PileId(0) }, 0),
            Expr::PileCount(PileAt { who: w, pile: PileId(0) }, Some(1)),
            Expr::RollCount(RollId(0), 0),
            Expr::PileValue(PileAt { who: w, pile: PileId(0) }, PileRead::Highest),
        ]
    }

    #[test]
    fn the_samples_cover_every_variant() {
        let mut seen = [false; VARIANTS];
        for e in samples() {
            seen[variant(&e)] = true;
        }
        let missing: Vec<usize> = (0..VARIANTS).filter(|&i| !seen[i]).collect();
        assert!(missing.is_empty(), "no sample of variants {missing:?}");
    }

    /// The serialised form names every expression inside a sample, whatever `children` says: a
    /// variant whose children `children` skips shows as fewer markers than written.
    #[test]
    fn children_are_every_expression_inside_left_to_right() {
        for e in samples() {
            let written = ron::to_string(&e).unwrap().matches("Int(70").count();
            let children: Vec<&Expr> = e.children().collect();
            let expected: Vec<Expr> = (0..written as i64).map(marker).collect();
            assert_eq!(children, expected.iter().collect::<Vec<_>>(), "children of {e:?}");
            let backwards: Vec<&Expr> = e.children().rev().collect();
            assert_eq!(backwards, expected.iter().rev().collect::<Vec<_>>(), "children of {e:?}, reversed");
        }
    }

    #[test]
    fn walk_visits_each_expression_before_its_children() {
        let e = Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Neg(boxed(0))),
            Box::new(Expr::Call(Func::Min, vec![marker(1), Expr::Not(boxed(2))])),
        );
        let mut seen = Vec::new();
        e.walk(&mut |x| seen.push(variant(x)));
        assert_eq!(seen, [21, 19, 0, 30, 0, 20, 0]);
        let mut markers = Vec::new();
        e.walk(&mut |x| {
            if let Expr::Int(n) = x {
                markers.push(*n - 7000)
            }
        });
        assert_eq!(markers, [0, 1, 2]);
    }
}
