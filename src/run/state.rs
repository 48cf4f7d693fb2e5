//! The run state: flat vectors indexed by participant × pool / stat / condition, and expression
//! evaluation over it. No names are looked up here.

use super::control::ControlState;
use super::trace::{Dice, Event, Name, Record};
use super::RunError;
use crate::ir::{self, BinOp, CmpOp, Expr, Func, Ruleset, Who};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

/// A condition held by a participant.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    pub magnitude: i64,
    pub until: Option<ir::Timing>,
    pub rounds_left: Option<i64>,
    pub while_: Option<Expr>,
    /// Applied because another condition implies it; removed with that one.
    pub implied_by: Option<ir::ConditionId>,
    /// Who applied it (none for a condition held from the start).
    pub source: Option<usize>,
}

/// What an expression is evaluated for: whose values `self`, `target`, `actor`, `victim` mean,
/// and the event a reaction or trigger answers.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ctx {
    pub owner: usize,
    pub target: Option<usize>,
    pub actor: Option<usize>,
    pub victim: Option<usize>,
    pub event: Option<EventInfo>,
    /// Units of movement the action being resolved paid for.
    pub units: i64,
    /// Inside a condition's own rules: who applied it.
    pub source: Option<usize>,
}

/// The event being answered: an action (with its kind) or an emitted event.
#[derive(Debug, Clone, Copy)]
pub struct EventInfo {
    pub action: Option<ir::ActionId>,
    pub custom: Option<ir::EventId>,
}

/// A multi-round action under way.
#[derive(Debug, Clone)]
pub struct Ongoing {
    pub who: usize,
    pub action: ir::ActionId,
    /// Turns still to pay for before it resolves.
    pub left: i64,
    pub ctx: Ctx,
}

/// An action readied for an event (001, Ready Action).
#[derive(Debug, Clone)]
pub struct Readied {
    pub who: usize,
    pub action: ir::ActionId,
    pub target: Option<usize>,
    pub on: ir::EventRef,
    pub keep: bool,
}

/// Most pools one cost may name (after adjustments).
pub const MAX_COST_POOLS: usize = 8;

/// Amounts of pools, held inline: a cost names few pools, so planning and paying one never
/// touches the heap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    items: [(ir::PoolId, i64); MAX_COST_POOLS],
    len: usize,
}

impl Default for Costs {
    fn default() -> Costs {
        Costs { items: [(ir::PoolId(0), 0); MAX_COST_POOLS], len: 0 }
    }
}

impl Costs {
    /// Adds to a pool's amount, or names a new pool.
    pub fn add(&mut self, pool: ir::PoolId, amount: i64) -> Result<(), RunError> {
        if let Some(x) = self.items[..self.len].iter_mut().find(|x| x.0 == pool) {
            x.1 = x.1.saturating_add(amount);
            return Ok(());
        }
        if self.len == MAX_COST_POOLS {
            return Err(RunError::Rule(format!("a cost names more than {MAX_COST_POOLS} pools")));
        }
        self.items[self.len] = (pool, amount);
        self.len += 1;
        Ok(())
    }

    pub fn as_slice(&self) -> &[(ir::PoolId, i64)] {
        &self.items[..self.len]
    }

    pub fn iter(&self) -> std::slice::Iter<'_, (ir::PoolId, i64)> {
        self.as_slice().iter()
    }

    pub fn scale(&mut self, k: i64) {
        for x in &mut self.items[..self.len] {
            x.1 = x.1.saturating_mul(k);
        }
    }
}

impl<'a> IntoIterator for &'a Costs {
    type Item = &'a (ir::PoolId, i64);
    type IntoIter = std::slice::Iter<'a, (ir::PoolId, i64)>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for Costs {
    type Item = (ir::PoolId, i64);
    type IntoIter = std::iter::Take<std::array::IntoIter<(ir::PoolId, i64), MAX_COST_POOLS>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().take(self.len)
    }
}

/// A declaration paid for and waiting to resolve (simultaneous phases).
#[derive(Debug, Clone)]
pub struct Deferred {
    pub who: usize,
    pub action: ir::ActionId,
    pub target: Option<usize>,
    pub ctx: Ctx,
    pub cause: super::trace::Cause,
}

/// One action's uses over the encounter, for limits per encounter.
#[derive(Debug, Clone)]
pub struct Used {
    pub action: ir::ActionId,
    pub uses: i64,
    pub paid: Vec<(ir::PoolId, i64)>,
}

/// One declaration, for limits.
#[derive(Debug, Clone)]
pub struct Declared {
    pub action: ir::ActionId,
    pub round: u32,
    pub turn: u64,
    pub phase: u64,
    pub trigger: Option<u64>,
    pub paid: Costs,
}

pub struct Engine<'r> {
    pub r: &'r Ruleset,
    pub n: usize,
    pub names: Vec<Name>,
    /// The ruleset's names, interned once so events share them.
    pub pool_names: Vec<Name>,
    pub action_names: Vec<Name>,
    /// Per action: its effects include voluntary movement (refused to a holder of a condition
    /// that `blocks movement`).
    pub action_moves: Vec<bool>,
    pub condition_names: Vec<Name>,
    pub event_names: Vec<Name>,
    pub trigger_names: Vec<Name>,
    pub interned: Vec<((usize, usize), Name)>,
    /// The priority order last computed, and what it was computed from.
    pub priority_cache: Vec<usize>,
    pub priority_active: Option<usize>,
    pub priority_of: Vec<Vec<usize>>,
    pub priority_spares: Vec<Vec<usize>>,
    /// Buffers reused by `settle`, so settling allocates nothing once they have grown.
    pub settling: Vec<(usize, ir::PoolId, i64)>,
    pub held_back: Vec<(usize, &'r ir::Effect)>,
    /// Buffers `answer` reuses between events.
    pub buf_offers: Vec<ir::ActionId>,
    pub buf_affordable: Vec<(ir::ActionId, Option<usize>)>,
    pub buf_chain: Vec<(usize, ir::ActionId, Option<usize>)>,
    /// Buffers the policies reuse between decisions.
    pub buf_nearest: Vec<usize>,
    pub buf_decisions: Vec<super::control::Decision>,
    /// Buffers the round loop reuses.
    pub buf_in_order: Vec<usize>,
    pub buf_seen: Vec<bool>,
    pub buf_queue: Vec<Vec<usize>>,
    pub buf_members: Vec<usize>,
    pub phase_names: Vec<Name>,
    pub sides: Vec<u32>,
    pub players: Vec<bool>,
    pub positions: Vec<i64>,
    pub stats: Vec<i64>,
    pub pools: Vec<i64>,
    pub conds: Vec<Option<Held>>,
    pub initiative: Vec<i64>,
    /// Per participant: it `follow`ed someone, so it goes ahead of anyone else at its value
    /// (right after the one it followed) until initiative is made again.
    pub following: Vec<bool>,
    pub order: Vec<Vec<usize>>,
    pub present: Vec<bool>,
    pub round: u32,
    pub active: Option<usize>,
    pub final_turn: bool,
    pub surprise_round: bool,
    pub surprised: Vec<bool>,
    /// Declarations of the current round, per participant (cleared as each round starts), so
    /// a limit check reads only its own participant's round, never the whole encounter.
    pub round_log: Vec<Vec<Declared>>,
    /// Per participant, each action used this encounter.
    pub encounter_log: Vec<Vec<Used>>,
    /// (participant, pool, gain index or usize::MAX - step index, round, amount) for caps.
    pub gained: Vec<(usize, ir::PoolId, usize, u32, i64)>,
    /// Capped gains totalled over the encounter: (participant, pool, gain key, total).
    pub gained_total: Vec<(usize, ir::PoolId, usize, i64)>,
    pub turn_seq: u64,
    pub phase_seq: u64,
    pub trigger_seq: u64,
    pub rng: ChaCha8Rng,
    pub records: Vec<Record>,
    pub controls: Vec<ControlState>,
    pub gm: super::scenario::Policy,
    pub steps: u64,
    /// Recent trigger firings, to name the cycle when the step budget runs out.
    pub recent: std::collections::VecDeque<Name>,
    /// Pool changes whose thresholds have not been looked at yet: (who, pool, old value).
    pub pending: Vec<(usize, ir::PoolId, i64)>,
    pub ended: Option<String>,
    pub turn_over: bool,
    /// Per participant: its turn was ended by its own turn-start work (an `end_turn` there).
    pub ended_at_start: Vec<bool>,
    /// Per participant: the total of its most recent check, and whether it was a critical.
    pub last_check: Vec<(i64, bool)>,
    /// Per participant: it readied an action, so its turn is held open until the action is
    /// taken or the ready is dropped; its later turns are not taken meanwhile (001, Ready Action).
    pub holding: Vec<bool>,
    pub cancelled: bool,
    /// How deeply answers to events are nested (triggers, gains, reactions).
    pub chain_depth: u32,
    /// How deeply reactions to reactions are nested.
    pub reaction_depth: u32,
    /// Kinds that may be declared now: `None` outside turns and declaration phases.
    pub allowed: Option<&'r [ir::ActionKind]>,
    /// The index of the phase being played (meaningful while `allowed` is set).
    pub phase_at: usize,
    /// In a phase of turns: only the active participant declares.
    pub turn_phase: bool,
    /// Dry runs (a policy asking "could I?") roll no dice and write no trace.
    pub dry: bool,
    pub ongoing: Vec<Ongoing>,
    pub deferred: Vec<Deferred>,
    pub readied: Vec<Readied>,
    /// Inside a round; events outside rounds carry a null round.
    pub in_round: bool,
    /// The initiative values the current order was made from.
    pub ordered_values: Vec<i64>,
    /// Rounds without initiative (an outro that continues): the order stays as it is.
    pub table_rounds: bool,
    /// The order last written to the trace, so an unchanged order is not written again.
    pub last_order: Option<Vec<super::trace::OrderEntry>>,
}

/// What may be declared during a turn.
pub const TURN_KINDS: &[ir::ActionKind] = &[ir::ActionKind::Action, ir::ActionKind::Free];

/// The most effects one cascade may run (everything one declaration, one participant's work
/// at a timing, or one hour of downtime sets off) before it is stopped as a runaway cycle.
/// Counted per cascade, not per encounter, so a long fight is never mistaken for a cycle.
pub const STEP_BUDGET: u64 = 200_000;

impl Engine<'_> {
    pub fn pool(&self, who: usize, p: ir::PoolId) -> i64 {
        self.pools[who * self.r.pools.len() + p.index()]
    }

    pub fn held(&self, who: usize, c: ir::ConditionId) -> Option<&Held> {
        self.conds.get(who * self.r.conditions.len() + c.index()).and_then(Option::as_ref)
    }

    pub fn has(&self, who: usize, c: ir::ConditionId) -> bool {
        self.held(who, c).is_some()
    }

    pub fn emit(&mut self, event: Event) {
        if self.dry {
            return;
        }
        let round = if self.in_round { Some(self.round) } else { None };
        self.records.push(Record { seq: self.records.len() as u64, round, event });
    }

    /// Starts a new cascade: the step budget counts from zero again.
    pub fn fresh_budget(&mut self) {
        self.steps = 0;
    }

    /// Counts one effect against the step budget.
    pub fn step(&mut self) -> Result<(), RunError> {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            return Err(RunError::Cycle(self.cycle_names()));
        }
        Ok(())
    }

    /// The distinct rules that fired most recently, oldest first: the cycle's members.
    pub fn cycle_names(&self) -> Vec<String> {
        let mut cycle: Vec<String> = Vec::new();
        for name in self.recent.iter().rev().take(12) {
            if !cycle.iter().any(|c| **c == **name) {
                cycle.push(name.to_string());
            }
        }
        cycle.reverse();
        cycle
    }

    /// A shared name for a string of the ruleset (a choice's question or option), made once:
    /// the cache is keyed by the string's address, which does not move during a run.
    pub fn intern(&mut self, text: &str) -> Name {
        let key = (text.as_ptr() as usize, text.len());
        if let Some((_, name)) = self.interned.iter().find(|(k, _)| *k == key) {
            return name.clone();
        }
        let name = Name::from(text);
        self.interned.push((key, name.clone()));
        name
    }

    /// Remembers a rule that fired, to name a cycle if the run has to be stopped.
    pub fn note_fired(&mut self, name: Name) {
        if self.recent.len() == 64 {
            self.recent.pop_front();
        }
        self.recent.push_back(name);
    }

    pub fn who(&self, w: Who, c: &Ctx) -> Result<usize, RunError> {
        match w {
            Who::Owner => Ok(c.owner),
            Who::Target => {
                c.target.ok_or_else(|| RunError::Rule("`target` was used, but the action has no target".into()))
            }
            Who::EventActor => c.actor.ok_or_else(|| RunError::Rule("`actor` was used outside an event".into())),
            Who::EventTarget => {
                c.victim.ok_or_else(|| RunError::Rule("`victim` was used, but the event has no target".into()))
            }
            Who::Source => Ok(c.source.unwrap_or(c.owner)),
        }
    }

    /// Rolls `count` dice of `sides`, emitting a roll event; a dry run takes the highest faces.
    pub fn roll(&mut self, who: usize, count: u32, sides: u32) -> (i64, i64) {
        if self.dry {
            return (i64::from(count) * i64::from(sides), i64::from(sides));
        }
        let mut total = 0i64;
        let mut first = 0i64;
        for i in 0..count {
            let face = uniform(&mut self.rng, sides);
            if i == 0 {
                first = face;
            }
            total += face;
        }
        let name = self.names[who].clone();
        self.emit(Event::Roll { who: name, dice: Dice { count, sides }, result: total });
        (total, first)
    }

    pub fn eval(&mut self, e: &Expr, c: &Ctx) -> Result<i64, RunError> {
        let mut first = None;
        self.eval_with_first(e, c, &mut first)
    }

    /// Evaluates, remembering the first die rolled (for criticals and fumbles).
    pub fn eval_with_first(&mut self, e: &Expr, c: &Ctx, first: &mut Option<(i64, u32)>) -> Result<i64, RunError> {
        let r = self.r;
        let arith = || RunError::Rule("a value overflowed or was divided by zero".into());
        Ok(match e {
            Expr::Int(n) => *n,
            Expr::Bool(b) => i64::from(*b),
            Expr::Dice { count, sides } => {
                let (total, face) = self.roll(c.owner, *count, *sides);
                if first.is_none() {
                    *first = Some((face, *sides));
                }
                total
            }
            Expr::Stat(w, id) => {
                let who = self.who(*w, c)?;
                self.stats[who * r.stats.len() + id.index()]
            }
            Expr::Derived(w, id) => {
                let who = self.who(*w, c)?;
                let inner = Ctx { owner: who, ..*c };
                self.eval_with_first(&r.derived[id.index()].value, &inner, first)?
            }
            Expr::Pool(w, id) => {
                let who = self.who(*w, c)?;
                self.pool(who, *id)
            }
            Expr::PoolMax(w, id) => {
                let who = self.who(*w, c)?;
                self.pool_max(who, *id)?.unwrap_or(i64::MAX)
            }
            Expr::PoolMin(w, id) => {
                let who = self.who(*w, c)?;
                self.pool_min(who, *id)?
            }
            Expr::Initiative(w) => {
                let who = self.who(*w, c)?;
                self.initiative[who]
            }
            Expr::Builtin(b) => match b {
                ir::Builtin::Round => i64::from(self.round),
                ir::Builtin::OwnTurn => i64::from(self.active == Some(c.owner)),
                ir::Builtin::FinalTurn => i64::from(self.final_turn),
                ir::Builtin::SurpriseRound => i64::from(self.surprise_round),
                ir::Builtin::Units => c.units,
            },
            Expr::Distance(w) => {
                let who = self.who(*w, c)?;
                (self.positions[who] - self.positions[c.owner]).abs()
            }
            Expr::LastCheck(w) => self.last_check[self.who(*w, c)?].0,
            Expr::LastCritical(w) => i64::from(self.last_check[self.who(*w, c)?].1),
            Expr::CountNear(rel, w, reach) => {
                let of = self.who(*w, c)?;
                let mut count = 0;
                for o in 0..self.n {
                    if o == of || !self.standing(o) || !self.relates(c.owner, o, *rel) {
                        continue;
                    }
                    let range = self.eval_with_first(reach, &Ctx { owner: o, ..*c }, first)?;
                    if (self.positions[o] - self.positions[of]).abs() <= range {
                        count += 1;
                    }
                }
                count
            }
            Expr::Neg(x) => self.eval_with_first(x, c, first)?.checked_neg().ok_or_else(arith)?,
            Expr::Not(x) => i64::from(self.eval_with_first(x, c, first)? == 0),
            Expr::Binary(op, a, b) => {
                let a = self.eval_with_first(a, c, first)?;
                match op {
                    BinOp::And if a == 0 => return Ok(0),
                    BinOp::Or if a != 0 => return Ok(1),
                    _ => {}
                }
                let b = self.eval_with_first(b, c, first)?;
                match op {
                    BinOp::Add => a.checked_add(b).ok_or_else(arith)?,
                    BinOp::Sub => a.checked_sub(b).ok_or_else(arith)?,
                    BinOp::Mul => a.checked_mul(b).ok_or_else(arith)?,
                    BinOp::Div => crate::check::floor_div(a, b).ok_or_else(arith)?,
                    BinOp::Rem => {
                        let q = crate::check::floor_div(a, b).ok_or_else(arith)?;
                        a.checked_sub(q.checked_mul(b).ok_or_else(arith)?).ok_or_else(arith)?
                    }
                    BinOp::And | BinOp::Or => i64::from(b != 0),
                }
            }
            Expr::Compare(op, a, b) => {
                let a = self.eval_with_first(a, c, first)?;
                let b = self.eval_with_first(b, c, first)?;
                i64::from(match op {
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Gt => a > b,
                    CmpOp::Ge => a >= b,
                    CmpOp::Eq => a == b,
                    CmpOp::Ne => a != b,
                })
            }
            Expr::Has(w, id) => {
                let who = self.who(*w, c)?;
                i64::from(self.has(who, *id))
            }
            Expr::HasFrom(w, id, by) => {
                let (who, by) = (self.who(*w, c)?, self.who(*by, c)?);
                i64::from(self.held(who, *id).is_some_and(|h| h.source == Some(by)))
            }
            Expr::Condition(w, id) => {
                let who = self.who(*w, c)?;
                self.held(who, *id).map(|h| h.magnitude).unwrap_or(0)
            }
            Expr::Is(w, rel) => {
                let who = self.who(*w, c)?;
                i64::from(self.relates(c.owner, who, *rel))
            }
            Expr::TriggerIs(event) => i64::from(c.event.is_some_and(|ev| self.event_is(ev, *event))),
            Expr::Call(f, args) => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.eval_with_first(a, c, first)?);
                }
                match f {
                    Func::Min => values.into_iter().min().unwrap_or(0),
                    Func::Max => values.into_iter().max().unwrap_or(0),
                    Func::Abs => values.first().copied().unwrap_or(0).checked_abs().ok_or_else(arith)?,
                }
            }
        })
    }

    pub fn pool_max(&mut self, who: usize, p: ir::PoolId) -> Result<Option<i64>, RunError> {
        match &self.r.pools[p.index()].max {
            Some(e) => Ok(Some(self.eval(e, &Ctx { owner: who, ..Ctx::default() })?)),
            None => Ok(None),
        }
    }

    pub fn pool_min(&mut self, who: usize, p: ir::PoolId) -> Result<i64, RunError> {
        self.eval(&self.r.pools[p.index()].min, &Ctx { owner: who, ..Ctx::default() })
    }

    /// Is `other` in relation `rel` to `me`?
    pub fn relates(&self, me: usize, other: usize, rel: ir::Relation) -> bool {
        use ir::Relation::*;
        match rel {
            Self_ => me == other,
            Ally => me != other && self.sides[me] == self.sides[other],
            Enemy => self.sides[me] != self.sides[other],
            Other => me != other,
            Any => true,
            Player => self.players[other],
            NonPlayer => !self.players[other],
        }
    }

    /// Does the answered event match `pattern`'s event (an action, its category or kind, or a
    /// custom event)?
    pub fn event_is(&self, ev: EventInfo, pattern: ir::EventRef) -> bool {
        match (pattern, ev.action, ev.custom) {
            (ir::EventRef::Custom(e), _, Some(got)) => e == got,
            (ir::EventRef::Action(a), Some(got), _) => a == got,
            (ir::EventRef::Category(cat), Some(got), _) => self.r.actions[got.index()].categories.contains(&cat),
            (ir::EventRef::Kind(k), Some(got), _) => self.r.actions[got.index()].kind == k,
            _ => false,
        }
    }

    /// True when a held condition forbids `kind` of action.
    pub fn blocked(&self, who: usize, kind: ir::ActionKind) -> Option<ir::ConditionId> {
        (0..self.r.conditions.len())
            .map(|c| ir::ConditionId(c as u32))
            .find(|c| self.has(who, *c) && self.r.conditions[c.index()].blocks.kinds.contains(&kind))
    }

    pub fn movement_blocked(&self, who: usize) -> Option<ir::ConditionId> {
        (0..self.r.conditions.len())
            .map(|c| ir::ConditionId(c as u32))
            .find(|c| self.has(who, *c) && self.r.conditions[c.index()].blocks.movement)
    }

    pub fn spend_blocked(&self, who: usize, pool: ir::PoolId) -> Option<ir::ConditionId> {
        (0..self.r.conditions.len())
            .map(|c| ir::ConditionId(c as u32))
            .find(|c| self.has(who, *c) && self.r.conditions[c.index()].blocks.spend.contains(&pool))
    }

    /// Able to take part: present and not kept from both actions and reactions.
    pub fn standing(&self, who: usize) -> bool {
        self.present[who]
            && !(self.blocked(who, ir::ActionKind::Action).is_some()
                && self.blocked(who, ir::ActionKind::Reaction).is_some())
    }
}

/// A uniform integer from 1 to `sides`, without modulo bias.
fn uniform(rng: &mut ChaCha8Rng, sides: u32) -> i64 {
    let sides = u64::from(sides.max(1));
    let zone = u64::MAX - (u64::MAX % sides);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return (x % sides) as i64 + 1;
        }
    }
}
