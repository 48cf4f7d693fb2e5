//! What the runner knows of each action before the first event, found once per runner: whether
//! it moves its actor, whether it is bought per unit, and which of its checks can depend on the
//! target. Policies try an action against the nearest targets in turn; when the reason it is
//! refused cannot depend on the target (its cost, a limit, a condition of the actor), trying
//! the next target would be refused the same way, so they stop at the first.

use super::costs::Costs;
use crate::ir::{self, Effect, Expr, Ruleset, Who};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Its own effects move the actor (refused to a holder of a condition that
    /// `blocks movement`).
    pub moves: bool,
    /// Bought per unit (movement).
    pub(crate) per_unit: bool,
    /// Its own effects move the actor away (`move away`): a retreat, which the offensive
    /// policies never choose.
    pub(crate) retreats: bool,
    /// Its cost, cost adjustments, limits or partner cost read the target: a refusal for cost
    /// or a limit may change with the target.
    pub(crate) costs_see_target: bool,
    /// Its `requires` read the target.
    pub(crate) requires_see_target: bool,
    /// A condition the actor must hold to use it: its first `requires` is `self has C`, or an
    /// `and` whose first operand is (`self has guarding and distance(victim) <= 1`). A reaction
    /// is not offered to those who do not hold it (planning would refuse it, rolling nothing).
    pub needs: Option<ir::ConditionId>,
    /// Its reach (`within`) reads the target. If not, a target out of reach means every
    /// farther one is too.
    pub(crate) reach_sees_target: bool,
}

impl Shape {
    pub(crate) fn of_all(r: &Ruleset) -> Vec<Shape> {
        r.actions.iter().enumerate().map(|(i, a)| Shape::of(r, ir::ActionId(i as u32), a)).collect()
    }

    fn of(r: &Ruleset, id: ir::ActionId, a: &ir::Action) -> Shape {
        let sees = |e: &Expr| reads_target(r, e, 0);
        let own_costs =
            a.costs.iter().any(|c| c.when.as_ref().is_some_and(sees) || c.terms.iter().any(|t| sees(&t.amount)));
        let adjustments = r.cost_adjustments.iter().filter(|adj| adj.covers(a, id)).any(|adj| {
            adj.when.as_ref().is_some_and(sees)
                || match &adj.op {
                    ir::CostAdjustOp::Scale(e) => sees(e),
                    ir::CostAdjustOp::Add(costs) => costs.iter().any(|c| sees(&c.amount)),
                }
        });
        let limits = a.limits.iter().any(|l| sees(&l.amount))
            || r.limits
                .iter()
                .filter(|l| l.covers(a, id))
                .any(|l| sees(&l.amount) || l.guard.as_ref().is_some_and(sees));
        // A pool's overspend floor is judged with the action's target in view.
        let floors = r.pools.iter().any(|p| p.overspend.as_ref().is_some_and(|o| sees(&o.floor)));
        Shape {
            moves: moves(&a.effects),
            retreats: a
                .effects
                .iter()
                .any(|e| matches!(e, ir::Effect::MoveAway(_) | ir::Effect::MoveLeaping { way: ir::Way::Away, .. })),
            per_unit: a.costs.iter().flat_map(|c| &c.terms).any(|t| t.per.is_some()),
            // A combo's partner is the target when it is an ally: always target-dependent.
            costs_see_target: own_costs || adjustments || limits || floors || !a.partner_cost.is_empty(),
            requires_see_target: a.requires.iter().any(|req| sees(&req.cond)),
            needs: a.requires.first().and_then(|req| needed(&req.cond)),
            reach_sees_target: a.target.within.as_ref().is_some_and(sees),
        }
    }

    /// Whether a refusal with this code (`act::Reject::code`) would refuse every other target
    /// too (`range`: every farther one).
    pub(crate) fn refuses_the_rest(&self, code: &str) -> bool {
        match code {
            "absent" | "not-now" | "surprised" => true,
            "blocked" | "limit" | "cost" => !self.costs_see_target,
            "requires" => !self.requires_see_target,
            "range" => !self.reach_sees_target,
            _ => false,
        }
    }
}

/// An action's cost when nothing it depends on can change, found once so that planning (which
/// policies do for every action at every decision) does not evaluate it again: its first cost
/// rule has no guard, its amounts are numbers and buy no units, and every `adjust cost` that
/// covers it is unguarded, with numbers only. The same steps as the runner's `cost_and_rule`,
/// in the same order; `None` (evaluated each time) for anything else, or if it fails.
pub fn fixed_costs(r: &Ruleset) -> Vec<Option<(Costs, Option<ir::Loc>)>> {
    r.actions.iter().enumerate().map(|(i, a)| fixed_cost(r, ir::ActionId(i as u32), a)).collect()
}

fn fixed_cost(r: &Ruleset, id: ir::ActionId, a: &ir::Action) -> Option<(Costs, Option<ir::Loc>)> {
    let number = |e: &Expr| match e {
        Expr::Int(n) => Some(*n),
        _ => None,
    };
    let mut out = Costs::default();
    let chosen = a.costs.first();
    if let Some(rule) = chosen {
        if rule.when.is_some() {
            return None;
        }
        for term in &rule.terms {
            if term.per.is_some() {
                return None;
            }
            out.add(term.pool, number(&term.amount)?).ok()?;
        }
    }
    for adj in r.cost_adjustments.iter().filter(|adj| adj.covers(a, id)) {
        if adj.when.is_some() {
            return None;
        }
        match &adj.op {
            ir::CostAdjustOp::Scale(e) => out.scale(number(e)?),
            ir::CostAdjustOp::Add(costs) => {
                for c in costs {
                    out.add(c.pool, number(&c.amount)?).ok()?;
                }
            }
        }
    }
    Some((out, chosen.map(|rule| rule.loc)))
}

/// Whether `e` is the same number for its owner all run long: it reads only numbers and the
/// owner's stats (which are set before the run and never change), through derived values and
/// arithmetic. No dice, pools, conditions, positions or other participants. Deeper than the
/// checker allows derived values to nest counts as "not fixed", the safe answer.
pub fn fixed_for_owner(r: &Ruleset, e: &Expr, depth: u32) -> bool {
    if depth > 64 {
        return false;
    }
    let deeper = |e: &Expr| fixed_for_owner(r, e, depth + 1);
    match e {
        Expr::Int(_) | Expr::Bool(_) | Expr::Stat(Who::Owner, _) => true,
        Expr::Derived(Who::Owner, id) => r.derived.get(id.index()).is_some_and(|d| deeper(&d.value)),
        Expr::Neg(_) | Expr::Not(_) | Expr::Binary(..) | Expr::Compare(..) | Expr::Call(..) => e.children().all(deeper),
        // Skipping the children of the rest is on purpose: `count_near` reads positions and
        // `dice(..)` rolls, whatever their children are, and a variant added later counts as
        // "not fixed" until it is looked at, the safe answer.
        _ => false,
    }
}

/// Whether `e` reads anything of the target (through derived values too). Deeper than the
/// checker allows derived values to nest counts as "reads it", the safe answer.
fn reads_target(r: &Ruleset, e: &Expr, depth: u32) -> bool {
    if depth > 64 {
        return true;
    }
    let who = |w: &Who| *w == Who::Target;
    let deeper = |e: &Expr| reads_target(r, e, depth + 1);
    match e {
        Expr::Int(_)
        | Expr::Bool(_)
        | Expr::Dice { .. }
        | Expr::Builtin(_)
        | Expr::TriggerIs(_)
        | Expr::Roll(_)
        | Expr::TriggerAmount
        | Expr::Amount(_) => false,
        Expr::Stat(w, _)
        | Expr::Pool(w, _)
        | Expr::PoolMax(w, _)
        | Expr::PoolMin(w, _)
        | Expr::Initiative(w)
        | Expr::LastCheck(w)
        | Expr::LastCritical(w)
        | Expr::Distance(w)
        | Expr::Has(w, _)
        | Expr::Condition(w, _)
        | Expr::Is(w, _)
        | Expr::Holds(w, _) => who(w),
        Expr::Handlers(_) => false,
        Expr::PileHas(at, _) | Expr::PileCount(at, _) | Expr::PileValue(at, _) => who(&at.who),
        // Its counts were made where the roll is, with values read there: assume the worst.
        Expr::RollCount(..) => true,
        Expr::HasFrom(a, _, b) | Expr::DistanceBetween(a, b) => who(a) || who(b),
        Expr::Derived(w, id) => who(w) || r.derived.get(id.index()).is_none_or(|d| deeper(&d.value)),
        Expr::CountNear(_, w, _) => who(w) || e.children().any(deeper),
        // Each participant counted is `self` inside the condition: reading `target` there is
        // reading the target all the same.
        Expr::CountWho(..) | Expr::CountDice(..) => e.children().any(deeper),
        Expr::Neg(_) | Expr::Not(_) | Expr::Binary(..) | Expr::Compare(..) | Expr::DiceOf(..) | Expr::Call(..) => {
            e.children().any(deeper)
        }
    }
}

/// `answerable` bit: something answers the event once it has happened.
pub const ANSWERS_AFTER: u8 = 1;
/// `answerable` bit: something answers the event before it completes (`interrupts`).
pub const ANSWERS_BEFORE: u8 = 2;

/// Per slot of the dispatch table (`ir::Dispatch::slot`), whether any trigger, gain or reaction
/// answers it after it happens (`ANSWERS_AFTER`) or interrupts it (`ANSWERS_BEFORE`). Most
/// events a run offers (a turn announced, an attack nobody can parry) are answered by nothing at
/// one of the two moments; the runner then skips offering them.
pub fn answerable(r: &Ruleset) -> Vec<u8> {
    let when = |interrupts: bool| if interrupts { ANSWERS_BEFORE } else { ANSWERS_AFTER };
    r.dispatch
        .by_event
        .iter()
        .chain(&r.dispatch.by_timing)
        .map(|slot| {
            slot.iter().fold(0, |bits, responder| {
                bits | match *responder {
                    ir::Responder::Trigger(t) => r.triggers.get(t.index()).map_or(0, |t| when(t.interrupts)),
                    ir::Responder::Gain(..) => ANSWERS_AFTER,
                    ir::Responder::Reaction(a) => {
                        r.actions.get(a.index()).filter(|a| a.on.is_some()).map_or(0, |a| when(a.interrupts))
                    }
                }
            })
        })
        .collect()
}

/// Per action, `answerable` of every slot its use is offered in (`act::slots`: the action, its
/// categories, its kind), joined.
pub fn answerable_action(r: &Ruleset) -> Vec<u8> {
    let answerable = answerable(r);
    let bits = |e: ir::EventRef| answerable.get(r.dispatch.slot(e)).copied().unwrap_or(0);
    r.actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.categories
                .iter()
                .fold(bits(ir::EventRef::Action(ir::ActionId(i as u32))) | bits(ir::EventRef::Kind(a.kind)), |b, c| {
                    b | bits(ir::EventRef::Category(*c))
                })
        })
        .collect()
}

/// Per trigger: a condition its owner must hold for it to fire, when its first `requires` needs
/// it (`needed`; the first: a later one is reached only after earlier ones, which may roll dice,
/// were evaluated), so a trigger that answers every turn of a crowd is tried only on
/// those who hold `C` (a bit test) instead of evaluated for everyone.
pub fn trigger_needs(r: &Ruleset) -> Vec<Option<ir::ConditionId>> {
    r.triggers.iter().map(|t| t.requires.first().and_then(needed)).collect()
}

/// The condition a requirement needs its owner to hold, when it fails without it before
/// anything is evaluated: `self has C`, or an `and` whose first operand needs it (`and` stops at
/// its first false operand).
fn needed(e: &Expr) -> Option<ir::ConditionId> {
    match e {
        Expr::Has(Who::Owner, c) => Some(*c),
        Expr::Binary(ir::BinOp::And, first, _) => needed(first),
        _ => None,
    }
}

/// Whether an action is movement: its own effects (not a branch of a check or a choice) move
/// the actor. A move inside a branch is still stopped when it happens, by the effect itself.
fn moves(effects: &[Effect]) -> bool {
    effects.iter().any(|e| {
        matches!(e, Effect::Move(_) | Effect::MoveAway(_) | Effect::MoveThrough(_) | Effect::MoveLeaping { .. })
    })
}
