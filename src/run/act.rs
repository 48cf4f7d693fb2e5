//! Declaring actions (kind, limits, requirements, cost), paying, resolving, and offering the
//! reactions, triggers and gains that answer what happened.

use super::clock::TURN_KINDS;
use super::costs::Costs;
use super::ctx::{Ctx, EventInfo};
use super::engine::Engine;
use super::error::RunError;
use super::ledger::{Declared, Now};
use super::pending::{Deferred, Ongoing};
use super::sink::{Fact, Sink};
use super::trace::{Cause, Event, Name, Paid, Targets};
use super::world::World;
use crate::ir::{self, ActionKind, Period};
use std::borrow::Cow;
use std::rc::Rc;

/// Deepest nesting of answers to answers before the run is stopped as a cycle.
const MAX_NESTING: u32 = 64;

/// Why a declaration is refused: a stable code and a reason a designer understands.
#[derive(Debug, Clone)]
pub struct Reject {
    pub code: &'static str,
    pub reason: Cow<'static, str>,
    /// The rule that refused (a limit, a cost, a blocking condition, ...); `None`: the action's
    /// own declaration.
    pub rule: Option<ir::Loc>,
}

fn reject(code: &'static str, reason: &'static str) -> Reject {
    Reject { code, reason: Cow::Borrowed(reason), rule: None }
}

/// Refuses with a formatted reason, formatted only when someone will read it: a policy's dry
/// run ("could I?") refuses often and reads only the verdict. `@ loc` names the refusing rule.
macro_rules! refuse {
    ($engine:expr, @ $rule:expr, $code:expr, $($fmt:tt)+) => {
        return Ok(Err(Reject {
            code: $code,
            reason: if $engine.dry { Cow::Borrowed("") } else { Cow::Owned(format!($($fmt)+)) },
            rule: $rule,
        }))
    };
    ($engine:expr, $code:expr, $($fmt:tt)+) => {
        refuse!($engine, @ None, $code, $($fmt)+)
    };
}

/// What a declaration will pay, pool by pool, and whether it overspends.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub paid: Costs,
    /// The allies finishing a combo, and what each pays (`None` for any other action; boxed,
    /// as plans are made and moved for every candidate of every decision).
    pub partners: Option<Box<[(usize, Costs)]>>,
    /// The cost rule paid (`None`: the cost came from adjustments alone).
    pub cost_rule: Option<ir::Loc>,
}

impl<S: Sink> Engine<'_, S> {
    /// Checks a declaration without changing anything: kind allowed now, conditions, limits,
    /// requirements, target and the full cost in the right pools.
    pub fn plan(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
        as_reaction: Option<&Ctx>,
    ) -> Result<Result<Plan, Reject>, RunError> {
        let r = self.r;
        let action = &r.actions[a.index()];
        let kind = action.kind;
        if !self.world.present[who] {
            return Ok(Err(reject("absent", "has left the encounter")));
        }
        match (kind, as_reaction.is_some()) {
            (ActionKind::Reaction, false) => {
                return Ok(Err(reject("not-now", "a reaction is used only when its event happens")))
            }
            (ActionKind::Activity, _) => {
                return Ok(Err(reject("not-now", "activities belong to free play, not encounters")))
            }
            (_, true) if kind != ActionKind::Reaction => {
                return Ok(Err(reject("not-now", "only reactions answer events")))
            }
            _ => {}
        }
        if as_reaction.is_none() {
            match self.clock.allowed {
                None => return Ok(Err(reject("not-now", "nothing is declared outside a turn or a declaration phase"))),
                Some(kinds) if !kinds.contains(&kind) => {
                    // The phase being played says which kinds it takes.
                    let phase = r.phases.get(self.clock.phase_at).map(|p| p.loc);
                    refuse!(self, @ phase, "not-now", "{} actions are not taken now", kind.word());
                }
                Some(_) => {}
            }
            if self.clock.turn_phase && self.clock.active != Some(who) {
                return Ok(Err(reject("not-now", "it is not this participant's turn")));
            }
        }
        if self.clock.surprise_round && self.world.surprised[who] {
            return Ok(Err(reject("surprised", "is surprised: only the surprising side acts in the surprise round")));
        }
        if let Some(c) = self.world.held.blocked(who, kind) {
            let (cond, rule) = (&r.conditions[c.index()].name, Some(blocking(r, c)));
            refuse!(self, @ rule, "blocked", "is {cond}, which blocks {} actions", kind.word());
        }
        if self.tables.shapes[a.index()].moves {
            if let Some(c) = self.world.held.movement_blocked(who) {
                let (cond, rule) = (&r.conditions[c.index()].name, Some(blocking(r, c)));
                refuse!(self, @ rule, "blocked", "is {cond}, which blocks movement");
            }
        }
        // The target.
        let wanted = action.target.kind;
        if wanted != ir::TargetKind::None && target.is_none() {
            return Ok(Err(reject("target", "needs a target")));
        }
        if let Some(t) = target {
            let ok = match wanted {
                ir::TargetKind::None => true,
                ir::TargetKind::Self_ => t == who,
                ir::TargetKind::Ally => self.world.relates(who, t, ir::Relation::Ally) || t == who,
                ir::TargetKind::Enemy => self.world.relates(who, t, ir::Relation::Enemy),
                ir::TargetKind::Any => true,
                ir::TargetKind::Other => t != who,
            };
            if !ok || !self.world.present[t] {
                refuse!(self, "target", "{} is not a valid target", self.names.who[t]);
            }
            if let Some(within) = &action.target.within {
                let c = Ctx { owner: who, target: Some(t), ..Ctx::default() };
                let reach = self.eval(within, &c)?;
                let dist = self.world.distance(t, who);
                if dist > reach {
                    refuse!(self, "range", "{} is {dist} away, reach is {reach}", self.names.who[t]);
                }
            }
        }
        let ctx = match as_reaction {
            Some(ev) => Ctx { owner: who, target, ..*ev },
            None => Ctx { owner: who, target, ..Ctx::default() },
        };
        // Limits: the action's own, then the ruleset's on its kind, categories or itself.
        for l in &action.limits {
            let max = self.eval(&l.amount, &ctx)?;
            let used = self.ledger.used(who, l.per, l.pool, self.now(), |x| x == a);
            if used >= max {
                refuse!(
                    self,
                    @ Some(l.loc),
                    "limit",
                    "{} may be used {max} time(s) per {}, {used} already",
                    action.name,
                    period(l.per)
                );
            }
        }
        for l in &r.limits {
            if !l.covers(action, a) {
                continue;
            }
            if let Some(g) = &l.guard {
                if self.eval(g, &ctx)? == 0 {
                    continue;
                }
            }
            let max = self.eval(&l.amount, &ctx)?;
            let subject = l.subject;
            let matches = |x: ir::ActionId| -> bool {
                if l.each {
                    return x == a;
                }
                l.covers(&r.actions[x.index()], x)
            };
            let used = self.ledger.used(who, l.per, l.pool, self.now(), matches);
            let this = match l.pool {
                Some(p) => self.cost_of(who, a, &ctx, units)?.of(p),
                None => 1,
            };
            if used + this > max {
                if l.each && l.pool.is_none() {
                    refuse!(
                        self,
                        @ Some(l.loc),
                        "limit",
                        "{} may be used {max} time(s) per {}, {used} already",
                        action.name,
                        period(l.per)
                    );
                }
                let subject_name = match subject {
                    ir::LimitSubject::Kind(k) => format!("{} actions", k.word()),
                    ir::LimitSubject::Category(cat) => r.categories[cat.index()].name.clone(),
                    ir::LimitSubject::Action(x) => r.actions[x.index()].name.clone(),
                };
                let what = match l.pool {
                    Some(p) => format!("{} spent", r.pools[p.index()].name),
                    None => "use(s)".to_string(),
                };
                refuse!(
                    self,
                    @ Some(l.loc),
                    "limit",
                    "{subject_name} allow {max} {what} per {}, {used} already",
                    period(l.per)
                );
            }
        }
        for req in &action.requires {
            if self.eval(&req.cond, &ctx)? == 0 {
                refuse!(self, @ Some(req.loc), "requires", "a requirement of {} does not hold", action.name);
            }
        }
        // The cost, paid in full.
        let (cost, cost_rule) = self.cost_and_rule(a, &ctx, units)?;
        for (p, amount) in &cost {
            if amount <= 0 {
                continue;
            }
            if let Some(c) = self.world.held.spend_blocked(who, p) {
                let (pool, cond) = (&r.pools[p.index()].name, &r.conditions[c.index()].name);
                refuse!(self, @ Some(blocking(r, c)), "blocked", "is {cond}, which blocks spending {pool}");
            }
            let have = self.world.pool(who, p);
            if r.pools[p.index()].rising {
                // A meter pays by filling: up to its max, or to the overspend ceiling.
                let max = self.pool_max(who, p)?.unwrap_or(i64::MAX);
                let ceiling = match &r.pools[p.index()].overspend {
                    Some(o) => self.eval(&o.floor, &ctx)?.max(max),
                    None => max,
                };
                if have.saturating_add(amount) > ceiling {
                    let pool = &r.pools[p.index()].name;
                    let rule = Some(payment_rule(r, a, cost_rule, p));
                    refuse!(self, @ rule, "cost", "needs room for {amount} {pool}, is at {have} of {ceiling}");
                }
                continue;
            }
            let min = self.pool_min(who, p)?;
            let floor = match &r.pools[p.index()].overspend {
                Some(o) => self.eval(&o.floor, &ctx)?.min(min),
                None => min,
            };
            if have - amount < floor {
                let pool = &r.pools[p.index()].name;
                let rule = Some(payment_rule(r, a, cost_rule, p));
                refuse!(self, @ rule, "cost", "needs {amount} {pool}, has {have}");
            }
        }
        // A combo: partners (the target if an ally, then the first allies who can) pay too.
        let mut partners = Vec::new();
        if !action.partner_cost.is_empty() {
            let (needed, within) = match &action.partners {
                Some(p) => (self.eval(&p.count, &ctx)?, p.within.as_ref().map(|w| self.eval(w, &ctx)).transpose()?),
                None => (1, None),
            };
            let candidates: Vec<usize> = target
                .filter(|t| self.world.relates(who, *t, ir::Relation::Ally))
                .into_iter()
                .chain((0..self.world.n).filter(|o| self.world.relates(who, *o, ir::Relation::Ally)))
                .collect();
            for p in candidates {
                if partners.len() as i64 >= needed {
                    break;
                }
                if partners.iter().any(|(q, _)| *q == p) || within.is_some_and(|w| self.world.distance(who, p) > w) {
                    continue;
                }
                let pc = Ctx { owner: p, ..ctx };
                let mut pay = Costs::default();
                let mut ok = self.world.present[p] && self.world.standing(p) && self.partner_consents(p);
                for c in &action.partner_cost {
                    let amount = self.eval(&c.amount, &pc)?;
                    pay.add(c.pool, amount)?;
                    ok &= self.world.held.spend_blocked(p, c.pool).is_none();
                }
                // The partner pays for the same action: `adjust cost` applies to its share too,
                // judged from its side (004: a combo in the Final Phase costs the partner more).
                self.adjust_costs(a, &pc, &mut pay)?;
                for (pool, amount) in pay.iter() {
                    ok &= self.past_bounds(p, pool, amount)? == 0;
                }
                if ok {
                    partners.push((p, pay));
                }
            }
            if (partners.len() as i64) < needed {
                if needed > 1 {
                    refuse!(self, @ action.partner_loc, "partner", "needs {needed} allies who can pay the partner cost, has {}", partners.len());
                }
                return Ok(Err(reject("partner", "needs an ally who can pay the partner cost")));
            }
        }
        let partners = (!partners.is_empty()).then(|| partners.into_boxed_slice());
        Ok(Ok(Plan { paid: cost, partners, cost_rule }))
    }

    /// The cost of an action now: the first cost rule whose guard holds, then adjustments.
    pub(super) fn cost_of(
        &mut self,
        _who: usize,
        a: ir::ActionId,
        ctx: &Ctx,
        units: Option<i64>,
    ) -> Result<Costs, RunError> {
        Ok(self.cost_and_rule(a, ctx, units)?.0)
    }

    /// The cost of an action now, and where the cost rule chosen is written.
    fn cost_and_rule(
        &mut self,
        a: ir::ActionId,
        ctx: &Ctx,
        units: Option<i64>,
    ) -> Result<(Costs, Option<ir::Loc>), RunError> {
        if let Some(fixed) = self.tables.fixed_costs[a.index()] {
            // Every test run in a debug build holds the shortcut to the evaluation.
            debug_assert_eq!(Some(fixed), self.evaluated_cost(a, ctx, units).ok());
            return Ok(fixed);
        }
        self.evaluated_cost(a, ctx, units)
    }

    /// `cost_and_rule`, evaluated: the first cost rule whose guard holds, then adjustments.
    fn evaluated_cost(
        &mut self,
        a: ir::ActionId,
        ctx: &Ctx,
        units: Option<i64>,
    ) -> Result<(Costs, Option<ir::Loc>), RunError> {
        let r = self.r;
        let action = &r.actions[a.index()];
        let mut chosen: Option<&ir::CostRule> = None;
        for rule in &action.costs {
            match &rule.when {
                Some(w) if self.eval(w, ctx)? != 0 => {
                    chosen = Some(rule);
                    break;
                }
                Some(_) => {}
                None => {
                    chosen = Some(rule);
                    break;
                }
            }
        }
        let mut out = Costs::default();
        if let Some(rule) = chosen {
            for term in &rule.terms {
                let mut n = self.eval(&term.amount, ctx)?;
                if let Some((per, _)) = term.per {
                    let units = units.unwrap_or(i64::from(per)).max(0);
                    let per = i64::from(per.max(1));
                    n = n.saturating_mul((units + per - 1) / per);
                }
                out.add(term.pool, n)?;
            }
        }
        self.adjust_costs(a, ctx, &mut out)?;
        Ok((out, chosen.map(|rule| rule.loc)))
    }

    /// Applies the ruleset's `adjust cost` rules that hold now to a cost of action `a`.
    fn adjust_costs(&mut self, a: ir::ActionId, ctx: &Ctx, out: &mut Costs) -> Result<(), RunError> {
        let r = self.r;
        let action = &r.actions[a.index()];
        for adj in &r.cost_adjustments {
            if !adj.covers(action, a) {
                continue;
            }
            if let Some(w) = &adj.when {
                if self.eval(w, ctx)? == 0 {
                    continue;
                }
            }
            match &adj.op {
                ir::CostAdjustOp::Scale(e) => {
                    let k = self.eval(e, ctx)?;
                    out.scale(k);
                }
                ir::CostAdjustOp::Add(costs) => {
                    for c in costs {
                        let n = self.eval(&c.amount, ctx)?;
                        out.add(c.pool, n)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Where the clock is, for the periods of limits.
    fn now(&self) -> Now {
        let c = &self.clock;
        Now { round: c.round, turn: c.turn_seq, phase: c.phase_seq, trigger: c.trigger_seq }
    }

    /// Declares, pays, resolves. A refused declaration becomes a `rejected` event.
    pub fn declare(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
        as_reaction: Option<&Ctx>,
    ) -> Result<bool, RunError> {
        self.declare_or_defer(who, a, target, units, as_reaction, false)
    }

    /// Declares and pays; with `defer`, the resolution waits in `deferred` (simultaneous phases:
    /// everyone declares, then all resolve).
    pub fn declare_or_defer(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
        as_reaction: Option<&Ctx>,
        defer: bool,
    ) -> Result<bool, RunError> {
        let Some(paid) = self.declare_and_pay(who, a, target, units, as_reaction)? else { return Ok(false) };
        if defer {
            self.pending.deferred.push(paid);
        } else {
            self.resolve(&paid, as_reaction.is_some())?;
        }
        Ok(true)
    }

    /// Checks, declares and pays (an overspend's price included), leaving the resolution to the
    /// caller; `None` when the declaration was refused (the `rejected` event is written).
    fn declare_and_pay(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
        as_reaction: Option<&Ctx>,
    ) -> Result<Option<Deferred>, RunError> {
        let plan = match self.plan(who, a, target, units, as_reaction)? {
            Ok(plan) => plan,
            Err(rej) => {
                let (actor, action) = (self.names.who[who].clone(), self.names.action[a.index()].clone());
                let rule = rej.rule.unwrap_or(self.r.actions[a.index()].loc);
                self.emit_by(Event::Rejected { actor, action, code: rej.code, reason: rej.reason }, Some(rule));
                return Ok(None);
            }
        };
        let r = self.r;
        let action = &r.actions[a.index()];
        let outer = self.rule;
        let cause = Cause::Action { action: self.names.action[a.index()].clone(), by: self.names.who[who].clone() };
        // The declaration first, then what it pays: the payments, the partner's share and an
        // overspend's price are its consequences (`because` names its `action` event).
        let mut paid = Paid::default();
        for (p, amount) in &plan.paid {
            if amount != 0 {
                paid.push(self.names.pool[p.index()].clone(), amount);
            }
        }
        self.rule = Some(action.loc);
        self.ledger.declared(
            who,
            Declared {
                action: a,
                round: self.clock.round,
                turn: self.clock.turn_seq,
                phase: self.clock.phase_seq,
                trigger: as_reaction.map(|_| self.clock.trigger_seq),
                paid: plan.paid,
            },
        );
        let targets = Targets(target.map(|t| self.names.who[t].clone()));
        let (actor, name) = (self.names.who[who].clone(), self.names.action[a.index()].clone());
        let seq = self.emit(Event::Action { actor, action: name, kind: action.kind.word(), targets, paid });
        let because = self.caused_by(seq);
        // Each payment is its cost rule's (`payment_rule`).
        let mut overspends = Vec::new();
        for (p, amount) in &plan.paid {
            if amount == 0 {
                continue;
            }
            let now = self.world.pool(who, p);
            // Energy is spent at declaration; each unit past the floor (or a meter's max) is one
            // overspend.
            let below = self.past_bounds(who, p, amount)?;
            self.rule = Some(payment_rule(r, a, plan.cost_rule, p));
            let next = self.after_paying(p, now, amount);
            self.set_pool_raw(who, p, next, &cause);
            if below > 0 {
                overspends.push((p, below));
                self.tell(Fact::Overspent { who, pool: p.index() });
            }
        }
        // The partner's share is its `partner cost` clause's.
        self.rule = Some(action.partner_loc.unwrap_or(action.loc));
        for (p, pay) in plan.partners.iter().flat_map(|b| b.iter()) {
            let partner_cause =
                Cause::Partner { action: self.names.action[a.index()].clone(), with: self.names.who[who].clone() };
            for (pool, amount) in pay {
                let now = self.world.pool(*p, pool);
                let next = self.after_paying(pool, now, amount);
                self.set_pool_raw(*p, pool, next, &partner_cause);
            }
        }
        self.rule = outer;
        let bought = units.unwrap_or_else(|| {
            let per_unit = action.costs.iter().flat_map(|c| &c.terms).find_map(|t| t.per.map(|(n, _)| i64::from(n)));
            per_unit.unwrap_or(0)
        });
        let ctx = match as_reaction {
            Some(ev) => Ctx { owner: who, target, units: bought, acting: Some(a), ..*ev },
            None => Ctx { owner: who, target, units: bought, acting: Some(a), ..Ctx::default() },
        };
        // Each overspending declaration is one instance of overspend, with one price
        // (Frontiers, "Overspending Energy"), however far below the floor it goes.
        for (p, _) in overspends {
            if let Some(o) = &r.pools[p.index()].overspend {
                self.run_effects(&o.price, &ctx, &Cause::Static("overspend"), o.loc)?;
            }
        }
        // Payments that are events (`emit EVENT on spend`): the payer's, then a partner's.
        if self.tables.spend_events {
            self.spent(&plan.paid, &ctx)?;
            for &(p, pay) in plan.partners.iter().flat_map(|b| b.iter()) {
                self.spent(&pay, &Ctx { owner: p, ..ctx })?;
            }
        }
        self.because = because;
        Ok(Some(Deferred { who, action: a, target, ctx, cause, seq }))
    }

    /// The events of payments (`emit EVENT on spend`), one per pool paid, its amount what was
    /// paid, done by `c.owner`. Answers may not take a payment back: a `cancel` or a `redirect`
    /// changes nothing.
    pub(super) fn spent(&mut self, paid: &Costs, c: &Ctx) -> Result<(), RunError> {
        for (p, amount) in paid.iter() {
            if let (true, Some(e)) = (amount > 0, self.r.pools[p.index()].on_spend) {
                self.emit_with(e, Some(amount), c)?;
                self.pending.retarget = None;
            }
        }
        Ok(())
    }

    /// Resolves a paid declaration: interrupting answers, the effects (unless cancelled), the
    /// state changes they cause, then the answers that come after. All of it is caused by the
    /// declaration (its `action` event), or by what `because` already names if that was not
    /// written.
    pub fn resolve(&mut self, d: &Deferred, reaction: bool) -> Result<(), RunError> {
        let outer = self.caused_by(d.seq);
        let done = self.resolve_paid(d.who, d.action, d.target, d.ctx, &d.cause, reaction);
        self.because = outer;
        done
    }

    fn resolve_paid(
        &mut self,
        who: usize,
        a: ir::ActionId,
        mut target: Option<usize>,
        mut ctx: Ctx,
        cause: &Cause,
        reaction: bool,
    ) -> Result<(), RunError> {
        let r = self.r;
        let action = &r.actions[a.index()];
        let info = EventInfo::action(a);
        let saved_cancel = std::mem::replace(&mut self.pending.cancelled, false);
        let saved_redirect = self.pending.redirected.take();
        let source = self.names.action[a.index()].clone();
        self.answer(info, who, target, true, &source)?;
        let cancelled = std::mem::replace(&mut self.pending.cancelled, saved_cancel);
        // An interrupting answer took it upon itself: the action goes on against that one.
        if let Some(w) = std::mem::replace(&mut self.pending.redirected, saved_redirect) {
            target = Some(w);
            ctx.target = Some(w);
        }
        let rounds = match &action.rounds {
            Some(e) => self.eval(e, &ctx)?,
            None => 1,
        };
        if rounds > 1 {
            // A multi-round action: paid again at the actor's next turns, resolved at the end.
            self.pending.ongoing.push(Ongoing { who, action: a, left: rounds - 1, ctx });
        } else if !cancelled {
            self.run_effects(&action.effects, &ctx, cause, action.loc)?;
        }
        // The action has resolved: its consequences (a fall to 0 HP) apply before anyone answers
        // it (Frontiers, "Damage While Down During Resolution").
        if !reaction {
            self.settle()?;
        }
        self.answer(info, who, target, false, &source)?;
        if !reaction {
            self.settle()?;
        }
        if action.ends_turn {
            self.clock.turn_over = true;
        }
        Ok(())
    }

    /// An emitted event: the actor is the owner of the effect, the target its target. Returns
    /// whether an interrupting answer cancelled it, which halts the rest of the emitting rule.
    pub fn emit_event(&mut self, e: ir::EventId, c: &Ctx) -> Result<bool, RunError> {
        self.emit_with(e, None, c)
    }

    /// `emit EVENT` or `emit EVENT(AMOUNT)`: answered before (interrupting answers may cancel
    /// it) and after; an amount its answers changed is kept for `amount(EVENT)`.
    pub fn emit_with(&mut self, e: ir::EventId, amount: Option<i64>, c: &Ctx) -> Result<bool, RunError> {
        let slot = amount.map(|v| {
            self.amounts.push(v);
            (self.amounts.len() - 1) as u32
        });
        let info = EventInfo { action: None, custom: Some(e), emitter: c.acting, amount: slot };
        let name = self.names.event[e.index()].clone();
        let saved = std::mem::replace(&mut self.pending.cancelled, false);
        let saved_redirect = self.pending.redirected.take();
        let answered = self.answer(info, c.owner, c.target, true, &name).and_then(|()| {
            let redirected = std::mem::replace(&mut self.pending.redirected, saved_redirect);
            if std::mem::replace(&mut self.pending.cancelled, saved) {
                return Ok((true, None));
            }
            // Redirected: the event goes on against the one who took it.
            let victim = redirected.or(c.target);
            self.answer(info, c.owner, victim, false, &name).map(|()| (false, redirected))
        });
        if let Some(slot) = slot {
            let v = self.amounts.get(slot as usize).copied().unwrap_or(0);
            self.amounts.truncate(slot as usize);
            if let Some(last) = self.last_amount.get_mut(e.index()) {
                *last = v;
            }
        }
        // So does the rest of the emitting rule: `run_flow` takes `retarget` up next.
        answered.map(|(cancelled, redirected)| {
            self.pending.retarget = redirected;
            cancelled
        })
    }

    /// Offers the event to everything that answers it: reactions (declared in priority order,
    /// resolved last-declared first), triggers and pool gains. `interrupting` selects the
    /// reactions and triggers that interrupt; gains count once, with the non-interrupting pass.
    #[inline]
    pub fn answer(
        &mut self,
        info: EventInfo,
        actor: usize,
        victim: Option<usize>,
        interrupting: bool,
        source: &Name,
    ) -> Result<(), RunError> {
        if self.clock.ended.is_some() {
            return Ok(());
        }
        let r = self.r;
        // Answers nested this deep only happen when rules feed each other without end.
        if self.pending.chain_depth >= MAX_NESTING {
            return Err(RunError::Cycle(self.budget.cycle_names()));
        }
        // Nothing answers this event at this moment, and no readied action waits for it: the
        // offer would find nobody. Its number is still taken, as the offer would. Most events
        // end here (three in four in a duel), so this part stays small and in line, and the
        // offer (a large function, with its stack frame) is called only for the others.
        let moment = if interrupting { super::shape::ANSWERS_BEFORE } else { super::shape::ANSWERS_AFTER };
        let bits = match info.action {
            Some(a) => self.tables.answerable_action.get(a.index()).copied().unwrap_or(u8::MAX),
            None => {
                slots(r, info).fold(0, |b, s| b | self.tables.answerable.get(r.dispatch.slot(s)).copied().unwrap_or(0))
            }
        };
        let nobody = bits & moment == 0;
        if nobody && (interrupting || self.pending.readied.is_empty()) {
            self.clock.trigger_seq += 1;
            return Ok(());
        }
        self.offer(info, actor, victim, interrupting, source)
    }

    /// `answer` past its check that someone may answer.
    #[inline(never)]
    fn offer(
        &mut self,
        info: EventInfo,
        actor: usize,
        victim: Option<usize>,
        interrupting: bool,
        source: &Name,
    ) -> Result<(), RunError> {
        let r = self.r;
        self.pending.chain_depth += 1;
        self.clock.trigger_seq += 1;
        let trigger_seq = self.clock.trigger_seq;
        let order = self.take_priority();
        let ev_ctx = Ctx {
            owner: actor,
            target: None,
            actor: Some(actor),
            victim,
            event: Some(info),
            units: 0,
            source: None,
            acting: None,
        };
        // Triggers and gains: automatic.
        for slot in slots(r, info) {
            for &responder in r.dispatch.responders(slot) {
                match responder {
                    ir::Responder::Trigger(t) => {
                        let trig = &r.triggers[t.index()];
                        if trig.interrupts != interrupting {
                            continue;
                        }
                        let one = only(&trig.on, actor, victim);
                        let needs = self.tables.trigger_needs[t.index()];
                        for &who in one.as_ref().map_or(&order[..], Option::as_slice) {
                            if needs.is_some_and(|c| !self.world.held.has(who, c)) {
                                continue;
                            }
                            if !self.world.may_answer(who, actor, victim, &trig.on) {
                                continue;
                            }
                            let c = Ctx { owner: who, ..ev_ctx };
                            let mut ok = true;
                            for req in &trig.requires {
                                if self.eval(req, &c)? == 0 {
                                    ok = false;
                                    break;
                                }
                            }
                            if !ok {
                                continue;
                            }
                            self.budget.fired(self.names.trigger[t.index()].clone());
                            self.step()?;
                            let cause = Cause::Named(self.names.trigger[t.index()].clone());
                            self.run_effects(&trig.effects, &c, &cause, trig.loc)?;
                        }
                    }
                    ir::Responder::Gain(p, g) if !interrupting => {
                        let gain = &r.pools[p.index()].gains[g as usize];
                        let one = only(&gain.on, actor, victim);
                        for &who in one.as_ref().map_or(&order[..], Option::as_slice) {
                            if !self.world.may_answer(who, actor, victim, &gain.on) {
                                continue;
                            }
                            let c = Ctx { owner: who, ..ev_ctx };
                            if let Some(guard) = &gain.guard {
                                if self.eval(guard, &c)? == 0 {
                                    continue;
                                }
                            }
                            let mut n = self.eval(&gain.amount, &c)?;
                            if let Some((cap, per)) = &gain.cap {
                                let cap = self.eval(cap, &c)?;
                                n = n
                                    .min(cap - self.ledger.gained_this(who, p, g as usize, *per, self.clock.round))
                                    .max(0);
                            }
                            if n == 0 {
                                continue;
                            }
                            self.ledger.note_gain(who, p, g as usize, n, self.clock.round);
                            let now = self.world.pool(who, p);
                            let max = self.pool_max(who, p)?;
                            let next = max.map_or(now.saturating_add(n), |m| now.saturating_add(n).min(m.max(now)));
                            let outer = self.under(gain.loc);
                            self.set_pool(who, p, next, &Cause::Gain(source.clone()))?;
                            self.rule = outer;
                        }
                    }
                    _ => {}
                }
            }
        }
        // Readied actions whose event this is are taken now, outside their owner's turn, and
        // their owner's place in the order moves here (001, Ready Action).
        if !interrupting {
            let mut fire = Vec::new();
            let mut i = 0;
            while i < self.pending.readied.len() {
                let x = &self.pending.readied[i];
                if x.who != actor && info.is(self.r, x.on) && self.world.present[x.who] {
                    fire.push(self.pending.readied.remove(i));
                } else {
                    i += 1;
                }
            }
            for ready in fire {
                let saved = (self.clock.allowed, self.clock.turn_phase, self.clock.active);
                self.clock.allowed = Some(TURN_KINDS);
                self.clock.turn_phase = false;
                let (who_name, action_name) =
                    (self.names.who[ready.who].clone(), self.names.action[ready.action.index()].clone());
                let rule = Some(r.actions[ready.action.index()].loc);
                let fired = self
                    .emit_by(Event::Trigger { source: source.clone(), reactor: who_name, reaction: action_name }, rule);
                let outer = self.caused_by(fired);
                self.declare(ready.who, ready.action, ready.target, None, None)?;
                self.because = outer;
                (self.clock.allowed, self.clock.turn_phase, self.clock.active) = saved;
                // The turn the ready held open ends after the action.
                if std::mem::take(&mut self.pending.holding[ready.who]) {
                    self.end_turn_of(ready.who)?;
                }
                // From now on the readied participant acts right after whoever set it off.
                self.world.order_mut().retain(|g| g.as_slice() != [ready.who]);
                let after = self
                    .world
                    .order()
                    .iter()
                    .position(|g| g.contains(&actor))
                    .map_or(self.world.order().len(), |q| q + 1);
                self.world.order_mut().insert(after, vec![ready.who]);
            }
        }
        // Reactions: each participant in priority order may declare one; resolve last first.
        // `chains depth` bounds how deep reactions to reactions go.
        // Buffers kept between events (an answer nested inside this one starts its own).
        let mut chain = std::mem::take(&mut self.scratch.chain);
        let mut offers = std::mem::take(&mut self.scratch.offers);
        let mut affordable = std::mem::take(&mut self.scratch.affordable);
        let mut reactions = std::mem::take(&mut self.scratch.reactions);
        // The reactions that answer this event at all, found once, not once per participant.
        reactions.clear();
        for slot in slots(r, info) {
            for responder in r.dispatch.responders(slot) {
                if let ir::Responder::Reaction(ra) = responder {
                    let reaction = &r.actions[ra.index()];
                    if reaction.interrupts == interrupting && reaction.on.is_some() && !reactions.contains(ra) {
                        reactions.push(*ra);
                    }
                }
            }
        }
        // Who may be asked: when every reaction names its possible answerers (the victim for
        // `against self`, the actor for `by self`, the holders of the condition it needs),
        // only those, in priority order; otherwise everyone. An event is not offered to a whole
        // crowd to find the few who may answer it.
        let mut few = std::mem::take(&mut self.scratch.askers);
        few.clear();
        let mut anyone = false;
        for &ra in &reactions {
            let Some(on) = &r.actions[ra.index()].on else { continue };
            match (only(on, actor, victim), self.tables.shapes[ra.index()].needs) {
                (Some(one), _) => few.extend(one),
                (None, Some(c)) => few.extend_from_slice(self.world.held.holders(c)),
                (None, None) => anyone = true,
            }
        }
        if !anyone {
            let rank = &self.scratch.priority_rank;
            few.sort_unstable_by_key(|w| rank.get(*w).copied().unwrap_or(usize::MAX));
            few.dedup();
        }
        let askable: &[usize] = if anyone { &order } else { &few };
        // A participant may answer one event with several reactions, each reaction once: the
        // ruleset's limits (`limit reaction: 1 per trigger`) are what stop a second one. After
        // a round of declarations, those whose script still holds a reaction for this round
        // are asked again, until nobody adds one. The built-in policies answer an event once.
        let mut declared = std::mem::take(&mut self.scratch.declared);
        declared.clear();
        chain.clear();
        let mut again = false;
        loop {
            let from = chain.len();
            for &who in askable {
                if self.clock.ended.is_some() || self.pending.reaction_depth >= r.chains.depth {
                    break;
                }
                if again && !self.controls[who].reaction_scripted(self.clock.round) {
                    continue;
                }
                offers.clear();
                for &ra in &reactions {
                    if self.tables.shapes[ra.index()].needs.is_some_and(|c| !self.world.held.has(who, c)) {
                        continue;
                    }
                    if again && chain.iter().any(|&(w, a, _)| w == who && a == ra) {
                        continue;
                    }
                    if let Some(on) = &r.actions[ra.index()].on {
                        if self.world.may_answer(who, actor, victim, on) {
                            offers.push(ra);
                        }
                    }
                }
                if offers.is_empty() {
                    continue;
                }
                let c = Ctx { owner: who, ..ev_ctx };
                self.clock.trigger_seq = trigger_seq;
                affordable.clear();
                for &ra in &offers {
                    let target = default_reaction_target(r, ra, actor, who);
                    let was = self.dry;
                    self.dry = true;
                    let ok = self.plan(who, ra, target, None, Some(&c));
                    self.dry = was;
                    if ok?.is_ok() {
                        affordable.push((ra, target));
                    }
                }
                if affordable.is_empty() {
                    continue;
                }
                if let Some((ra, target)) = self.ask_reaction(who, &affordable, again) {
                    chain.push((who, ra, target));
                }
            }
            if chain.len() == from {
                break;
            }
            let last_pass = !self.tables.scripted_reactions;
            // A chain (Frontiers, "Reaction Chains"): every reaction is declared and paid, in
            // the order the participants declared them, before any of them resolves; then
            // `chains lifo` resolves the last declared first, `fifo` the first declared first.
            for &(who, ra, target) in &chain[from..] {
                if self.clock.ended.is_some() {
                    break;
                }
                let (reactor, reaction) = (self.names.who[who].clone(), self.names.action[ra.index()].clone());
                self.budget.fired(reaction.clone());
                let fired = self.emit_by(
                    Event::Trigger { source: source.clone(), reactor, reaction },
                    Some(r.actions[ra.index()].loc),
                );
                self.tell(Fact::Answer { depth: self.pending.reaction_depth + 1 });
                let c = Ctx { owner: who, ..ev_ctx };
                self.clock.trigger_seq = trigger_seq;
                self.pending.reaction_depth += 1;
                let outer = self.caused_by(fired);
                let paid = self.declare_and_pay(who, ra, target, None, Some(&c));
                self.because = outer;
                self.pending.reaction_depth -= 1;
                if let Some(paid) = paid? {
                    declared.push(paid);
                }
            }
            if last_pass {
                break;
            }
            again = true;
        }
        self.scratch.reactions = reactions;
        self.scratch.askers = few;
        if r.chains.lifo {
            declared.reverse();
        }
        // A declared reaction resolves even if an earlier resolution took its maker down: it
        // was declared and paid, like an action under way (Frontiers, "Damage While Down During
        // Resolution"). Only the encounter's end stops the chain.
        let mut outcome = Ok(());
        for mut d in declared.drain(..) {
            if self.clock.ended.is_some() {
                break;
            }
            let (actor, action) = (self.names.who[d.who].clone(), self.names.action[d.action.index()].clone());
            // The resolution is caused by the reaction's declaration; what it does, by its
            // `resolve` event.
            let outer = self.caused_by(d.seq);
            let resolves = self.emit_by(Event::Resolve { actor, action }, Some(r.actions[d.action.index()].loc));
            self.because = outer;
            d.seq = resolves.or(d.seq);
            self.clock.trigger_seq = trigger_seq;
            self.pending.reaction_depth += 1;
            outcome = self.resolve(&d, true);
            self.pending.reaction_depth -= 1;
            if outcome.is_err() {
                break;
            }
        }
        declared.clear();
        self.scratch.declared = declared;
        outcome?;
        self.pending.chain_depth -= 1;
        chain.clear();
        self.scratch.chain = chain;
        self.scratch.offers = offers;
        self.scratch.affordable = affordable;
        Ok(())
    }

    /// The active participant first, then initiative order, then everyone else: remade only
    /// when the active participant or the initiative order changed.
    fn take_priority(&mut self) -> Rc<Vec<usize>> {
        let (r, world, active, scratch) = (self.r, &self.world, self.clock.active, &mut self.scratch);
        let key = Some((active, world.order_version()));
        if scratch.priority_key != key {
            // Reuse the buffer unless an answer still reads the old order.
            match Rc::get_mut(&mut scratch.priority) {
                Some(order) => priority_order(r, active, world, order, &mut scratch.seen),
                None => {
                    let mut order = Vec::new();
                    priority_order(r, active, world, &mut order, &mut scratch.seen);
                    scratch.priority = Rc::new(order);
                }
            }
            scratch.priority_rank.clear();
            scratch.priority_rank.resize(world.n, usize::MAX);
            for (i, &w) in scratch.priority.iter().enumerate() {
                scratch.priority_rank[w] = i;
            }
            scratch.priority_key = key;
        }
        Rc::clone(&scratch.priority)
    }
}

/// The ruleset's `priority` steps (the active participant, initiative order), then everyone
/// else, each once.
fn priority_order(r: &ir::Ruleset, active: Option<usize>, world: &World, out: &mut Vec<usize>, seen: &mut Vec<bool>) {
    out.clear();
    seen.clear();
    seen.resize(world.n, false);
    let mut push = |w: usize, out: &mut Vec<usize>| {
        if !seen[w] {
            seen[w] = true;
            out.push(w);
        }
    };
    for step in &r.priority {
        match step {
            ir::PriorityStep::Active => {
                if let Some(a) = active {
                    push(a, out);
                }
            }
            ir::PriorityStep::Initiative => {
                for group in world.order() {
                    for &w in group {
                        push(w, out);
                    }
                }
            }
            ir::PriorityStep::Gm => {}
        }
    }
    for w in 0..world.n {
        push(w, out);
    }
}

/// The dispatch slots of an event: the action, its categories and its kind, or the emitted event.
#[inline]
fn slots(r: &ir::Ruleset, info: EventInfo) -> impl Iterator<Item = ir::EventRef> + '_ {
    let (action, categories, kind) = match info.action {
        Some(a) => {
            let x = &r.actions[a.index()];
            (Some(ir::EventRef::Action(a)), x.categories.as_slice(), Some(ir::EventRef::Kind(x.kind)))
        }
        None => (None, &[][..], None),
    };
    let custom = if info.action.is_none() { info.custom.map(ir::EventRef::Custom) } else { None };
    action.into_iter().chain(categories.iter().map(|c| ir::EventRef::Category(*c))).chain(kind).chain(custom)
}

/// The one participant who may answer under `on`, when the pattern names one: the victim
/// (`against self`: nobody if there is none) or the actor (`by self`). `None` when anyone might.
fn only(on: &ir::EventPattern, actor: usize, victim: Option<usize>) -> Option<Option<usize>> {
    if on.against == Some(ir::Relation::Self_) {
        Some(victim)
    } else if on.by == Some(ir::Relation::Self_) {
        Some(Some(actor))
    } else {
        None
    }
}

/// A reaction with a target aims at whoever did the event (a reaction attack), or at oneself.
fn default_reaction_target(r: &ir::Ruleset, ra: ir::ActionId, actor: usize, who: usize) -> Option<usize> {
    match r.actions[ra.index()].target.kind {
        ir::TargetKind::None => None,
        ir::TargetKind::Self_ => Some(who),
        _ => Some(actor),
    }
}

/// Where condition `c` says what it blocks (its declaration if no clause says).
fn blocking(r: &ir::Ruleset, c: ir::ConditionId) -> ir::Loc {
    let cond = &r.conditions[c.index()];
    cond.blocks.loc.unwrap_or(cond.loc)
}

/// The rule a payment of `pool` for action `a` answers to: the cost rule chosen when it names
/// the pool, else the first cost adjustment of the action that adds it (`adjust cost X: + 1
/// energy`), else the cost rule, else the action.
fn payment_rule(r: &ir::Ruleset, a: ir::ActionId, cost_rule: Option<ir::Loc>, pool: ir::PoolId) -> ir::Loc {
    let action = &r.actions[a.index()];
    let chosen = action.costs.iter().find(|c| Some(c.loc) == cost_rule);
    if let (Some(rule), Some(loc)) = (chosen, cost_rule) {
        if rule.terms.iter().any(|t| t.pool == pool) {
            return loc;
        }
    }
    let adds = |adj: &&ir::CostAdjust| {
        adj.covers(action, a) && matches!(&adj.op, ir::CostAdjustOp::Add(terms) if terms.iter().any(|t| t.pool == pool))
    };
    r.cost_adjustments.iter().find(adds).map(|adj| adj.loc).or(cost_rule).unwrap_or(action.loc)
}

fn period(p: Period) -> &'static str {
    match p {
        Period::Turn => "turn",
        Period::Round => "round",
        Period::Encounter => "encounter",
        Period::Trigger => "event",
        Period::Phase => "phase",
    }
}
