//! Declaring actions: whether one may be declared now (kind, limits, requirements, target,
//! cost), paying, and resolving it.

use super::costs::Costs;
use super::ctx::{Ctx, EventInfo};
use super::engine::Engine;
use super::error::RunError;
use super::ledger::{Declared, Now};
use super::pending::{Deferred, Ongoing};
use super::refusals::{limit_refused, uses_refused, Subject};
use super::sink::{Fact, Sink};
use super::trace::{Cause, Event, Name, NameKind, Named, Paid, Targets};
use crate::ir::{self, ActionKind};
use std::borrow::Cow;

/// Why a declaration is refused: a stable code and a reason a designer understands.
#[derive(Debug, Clone)]
pub struct Reject {
    pub code: &'static str,
    pub reason: Cow<'static, str>,
    /// The rule that refused (a limit, a cost, a blocking condition, ...); `None`: the action's
    /// own declaration.
    pub rule: Option<ir::Loc>,
    /// The pools and conditions `reason` names, for the text's labels.
    pub named: Named,
}

fn reject(code: &'static str, reason: &'static str) -> Reject {
    Reject { code, reason: Cow::Borrowed(reason), rule: None, named: Named::default() }
}

/// Refuses with a formatted reason, formatted only when someone will read it: a policy's dry
/// run ("could I?") refuses often and reads only the verdict. `@ loc` names the refusing rule.
macro_rules! refuse_named {
    ($engine:expr, @ $rule:expr, $code:expr, $($kind:ident($part:expr)),+ $(,)?) => {{
        let mut reason = String::new();
        let mut named = Named::default();
        if !$engine.dry {
            $(refuse_named!(@part reason, named, $kind, $part);)+
        }
        return Ok(Err(Reject { code: $code, reason: Cow::Owned(reason), rule: $rule, named }));
    }};
    (@part $r:ident, $n:ident, text, $e:expr) => {
        let _ = std::fmt::Write::write_fmt(&mut $r, format_args!("{}", $e));
    };
    (@part $r:ident, $n:ident, pool, $e:expr) => {
        $r.push_str($e);
        $n.push(&$r, $e, NameKind::Pool);
    };
    (@part $r:ident, $n:ident, condition, $e:expr) => {
        $r.push_str($e);
        $n.push(&$r, $e, NameKind::Condition);
    };
}

/// Refuses with a formatted reason, as `refuse!`, whose pools and conditions (`pool(NAME)`,
/// `condition(NAME)` among `text(...)` parts) the text writes with their labels.
macro_rules! refuse {
    ($engine:expr, @ $rule:expr, $code:expr, $($fmt:tt)+) => {
        return Ok(Err(Reject {
            code: $code,
            reason: if $engine.dry { Cow::Borrowed("") } else { Cow::Owned(format!($($fmt)+)) },
            rule: $rule,
            named: Named::default(),
        }))
    };
    ($engine:expr, $code:expr, $($fmt:tt)+) => {
        refuse!($engine, @ None, $code, $($fmt)+)
    };
}

/// What a declaration will pay, pool by pool, and whether it overspends.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    pub paid: Costs,
    /// The allies finishing a combo, and what each pays (`None` for any other action; boxed,
    /// as plans are made and moved for every candidate of every decision).
    pub partners: Option<Box<[(usize, Costs)]>>,
    /// The cost rule paid (`None`: the cost came from adjustments alone).
    pub cost_rule: Option<ir::Loc>,
    /// What the cost rule pays in initiative (`cost 10 initiative`); 0 for most.
    pub initiative: i64,
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
        if let Err(no) = self.may_declare_now(who, a, as_reaction)? {
            return Ok(Err(no));
        }
        if let Err(no) = self.check_target(who, a, target)? {
            return Ok(Err(no));
        }
        let ctx = match as_reaction {
            Some(ev) => Ctx { owner: who, target, ..*ev },
            None => Ctx { owner: who, target, ..Ctx::default() },
        };
        if let Err(no) = self.check_limits(who, a, &ctx, units)? {
            return Ok(Err(no));
        }
        // The cost is made here and only borrowed by its check: a cost is 104 bytes, and
        // passing it back through the check's nested results copied it twice on every plan.
        let (cost, cost_rule) = self.cost_and_rule(a, &ctx, units)?;
        if let Err(no) = self.check_cost(who, a, &ctx, &cost, cost_rule)? {
            return Ok(Err(no));
        }
        let initiative = match self.check_initiative_cost(who, a, &ctx, cost_rule)? {
            Ok(n) => n,
            Err(no) => return Ok(Err(no)),
        };
        // Most actions are no combo: no call to look for partners.
        let partners = if self.ruleset().actions[a.index()].partner_cost.is_empty() {
            None
        } else {
            match self.find_partners(who, a, target, ctx)? {
                Ok(partners) => (!partners.is_empty()).then(|| partners.into_boxed_slice()),
                Err(no) => return Ok(Err(no)),
            }
        };
        Ok(Ok(Plan { paid: cost, partners, cost_rule, initiative }))
    }

    /// Whether `who` may declare action `a` at all now: present, the kind allowed now (a
    /// reaction only as an answer), not surprised, not blocked by a condition.
    #[inline(always)]
    fn may_declare_now(
        &mut self,
        who: usize,
        a: ir::ActionId,
        as_reaction: Option<&Ctx>,
    ) -> Result<Result<(), Reject>, RunError> {
        let r = self.ruleset();
        let kind = r.actions[a.index()].kind;
        if !self.world.present[who] {
            return Ok(Err(reject("absent", "has left the encounter")));
        }
        if self.tables.lacks(who, a) {
            let (actor, action) = (&self.names.who[who], &self.names.action[a.index()]);
            refuse!(self, "loadout", "{actor} has no `{action}` in its loadout");
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
            refuse_named!(self, @ rule, "blocked", text("is "), condition(cond), text(format_args!(", which blocks {} actions", kind.word())));
        }
        if self.tables.shapes[a.index()].moves {
            if let Some(c) = self.world.held.movement_blocked(who) {
                let (cond, rule) = (&r.conditions[c.index()].name, Some(blocking(r, c)));
                refuse_named!(self, @ rule, "blocked", text("is "), condition(cond), text(", which blocks movement"));
            }
        }
        Ok(Ok(()))
    }

    /// The target: present, of the kind the action wants, and within its reach.
    #[inline(always)]
    fn check_target(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
    ) -> Result<Result<(), Reject>, RunError> {
        let action = &self.ruleset().actions[a.index()];
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
        Ok(Ok(()))
    }

    /// What limit `l` counts so far in its period for `who`: its own uses, or with `per side`
    /// those of every member of its side.
    fn used_by(
        &self,
        who: usize,
        (per_side, per, pool): (bool, ir::Period, Option<ir::PoolId>),
        matches: impl Fn(ir::ActionId) -> bool,
    ) -> i64 {
        let now = self.now();
        if !per_side {
            return self.ledger.used(who, per, pool, now, matches);
        }
        let side = self.world.sides[who];
        (0..self.world.n)
            .filter(|&o| self.world.sides[o] == side)
            .map(|o| self.ledger.used(o, per, pool, now, &matches))
            .sum()
    }

    /// Limits: the action's own, then the ruleset's on its kind, categories or itself.
    /// Then its requirements.
    #[inline(always)]
    fn check_limits(
        &mut self,
        who: usize,
        a: ir::ActionId,
        ctx: &Ctx,
        units: Option<i64>,
    ) -> Result<Result<(), Reject>, RunError> {
        let r = self.ruleset();
        let action = &r.actions[a.index()];
        for l in &action.limits {
            let max = self.eval(&l.amount, ctx)?;
            let used = self.used_by(who, (l.per_side, l.per, l.pool), |x| x == a);
            if used >= max {
                let side = if l.per_side { " by its side" } else { "" };
                refuse!(self, @ Some(l.loc), "limit", "{}{side}", uses_refused("it", max, used, l.per));
            }
        }
        for l in &r.limits {
            if !l.covers(action, a) {
                continue;
            }
            if let Some(g) = &l.guard {
                if self.eval(g, ctx)? == 0 {
                    continue;
                }
            }
            let max = self.eval(&l.amount, ctx)?;
            let subject = l.subject;
            let matches = |x: ir::ActionId| -> bool {
                if l.each {
                    return x == a;
                }
                l.covers(&r.actions[x.index()], x)
            };
            let used = self.used_by(who, (l.per_side, l.per, l.pool), matches);
            let this = match l.pool {
                Some(p) => self.cost_of(who, a, ctx, units)?.of(p),
                None => 1,
            };
            if used + this > max {
                let subject = match subject {
                    _ if l.each => Subject::It,
                    ir::LimitSubject::Kind(k) => Subject::Kind(k.word()),
                    ir::LimitSubject::Category(cat) => Subject::Category(&r.categories[cat.index()].name),
                    ir::LimitSubject::Action(_) => Subject::It,
                };
                let pool = l.pool.map(|p| (r.pools[p.index()].name.as_str(), this));
                let (mut reason, named) = match self.dry {
                    true => (String::new(), Named::default()),
                    false => limit_refused(subject, max, used, l.per, pool),
                };
                if l.per_side && !self.dry {
                    reason.push_str(" by its side");
                }
                return Ok(Err(Reject { code: "limit", reason: Cow::Owned(reason), rule: Some(l.loc), named }));
            }
        }
        for req in &action.requires {
            if self.eval(&req.cond, ctx)? == 0 {
                refuse!(self, @ Some(req.loc), "requires", "a requirement of {} does not hold", action.name);
            }
        }
        Ok(Ok(()))
    }

    /// What the cost rule `cost_rule` pays in initiative, if the payer's value stays at or above
    /// the floor: the low end of the initiative's `range`, else 0.
    fn check_initiative_cost(
        &mut self,
        who: usize,
        a: ir::ActionId,
        ctx: &Ctx,
        cost_rule: Option<ir::Loc>,
    ) -> Result<Result<i64, Reject>, RunError> {
        let r = self.ruleset();
        let rule = r.actions[a.index()].costs.iter().find(|c| Some(c.loc) == cost_rule);
        let Some(amount) = rule.and_then(|c| c.initiative.as_ref()) else { return Ok(Ok(0)) };
        let n = self.eval(amount, ctx)?;
        if n <= 0 {
            return Ok(Ok(0));
        }
        let floor = match &r.initiative.range {
            Some((lo, _)) => self.eval(lo, &Ctx { owner: who, ..Ctx::default() })?,
            None => 0,
        };
        let have = self.world.initiative[who];
        if have.saturating_sub(n) < floor {
            refuse!(self, @ cost_rule, "cost", "needs {n} initiative, has {have} and may not go below {floor}");
        }
        Ok(Ok(n))
    }

    /// The cost `cost` (from the cost rule `cost_rule`), paid in full: every pool affords its
    /// part (within an overspend floor or a meter's ceiling) and none is blocked.
    #[inline(always)]
    fn check_cost(
        &mut self,
        who: usize,
        a: ir::ActionId,
        ctx: &Ctx,
        cost: &Costs,
        cost_rule: Option<ir::Loc>,
    ) -> Result<Result<(), Reject>, RunError> {
        let r = self.ruleset();
        for (p, amount) in cost {
            if amount <= 0 {
                continue;
            }
            if let Some(c) = self.world.held.spend_blocked(who, p) {
                let (pool, cond) = (&r.pools[p.index()].name, &r.conditions[c.index()].name);
                refuse_named!(self, @ Some(blocking(r, c)), "blocked", text("is "), condition(cond), text(", which blocks spending "), pool(pool));
            }
            let have = self.world.pool(who, p);
            if r.pools[p.index()].rising {
                // A meter pays by filling: up to its max, or to the overspend ceiling.
                let max = self.pool_max(who, p)?.unwrap_or(i64::MAX);
                let ceiling = match &r.pools[p.index()].overspend {
                    Some(o) => self.eval(&o.floor, ctx)?.max(max),
                    None => max,
                };
                if have.saturating_add(amount) > ceiling {
                    let pool = &r.pools[p.index()].name;
                    let rule = Some(payment_rule(r, a, cost_rule, p));
                    refuse_named!(self, @ rule, "cost", text(format_args!("needs room for {amount} ")), pool(pool), text(format_args!(", is at {have} of {ceiling}")));
                }
                continue;
            }
            let min = self.pool_min(who, p)?;
            let floor = match &r.pools[p.index()].overspend {
                Some(o) => self.eval(&o.floor, ctx)?.min(min),
                None => min,
            };
            if have - amount < floor {
                let pool = &r.pools[p.index()].name;
                let rule = Some(payment_rule(r, a, cost_rule, p));
                refuse_named!(self, @ rule, "cost", text(format_args!("needs {amount} ")), pool(pool), text(format_args!(", has {have}")));
            }
        }
        Ok(Ok(()))
    }

    /// A combo: partners (the target if an ally, then the first allies who can) pay too.
    /// Called only for an action with a partner cost.
    #[inline(never)]
    fn find_partners(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        ctx: Ctx,
    ) -> Result<Result<Vec<(usize, Costs)>, Reject>, RunError> {
        let action = &self.ruleset().actions[a.index()];
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
        Ok(Ok(partners))
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

    /// The cost of an action now, and where the cost rule chosen is written. Inlined: most
    /// actions' costs are fixed, and every plan asks for one.
    #[inline(always)]
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
    #[inline(never)]
    fn evaluated_cost(
        &mut self,
        a: ir::ActionId,
        ctx: &Ctx,
        units: Option<i64>,
    ) -> Result<(Costs, Option<ir::Loc>), RunError> {
        let r = self.ruleset();
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
        let r = self.ruleset();
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
    pub(super) fn now(&self) -> Now {
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
    pub(crate) fn declare_or_defer(
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
    pub(super) fn declare_and_pay(
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
                let rule = rej.rule.unwrap_or(self.ruleset().actions[a.index()].loc);
                self.emit_by(
                    Event::Rejected { actor, action, code: rej.code, reason: rej.reason, named: rej.named },
                    Some(rule),
                );
                return Ok(None);
            }
        };
        let r = self.ruleset();
        let action = &r.actions[a.index()];
        let outer = self.rule;
        let cause = Cause::Action { action: self.names.action[a.index()].clone(), by: self.names.who[who].clone() };
        // The declaration first, then what it pays: the payments, the partner's share and an
        // overspend's price are its consequences (`because` names its `action` event).
        let mut paid = Paid::default();
        let kept = self.out.sink.keeps_records();
        for (p, amount) in plan.paid.iter().filter(|_| kept) {
            if amount != 0 {
                paid.push(self.names.pool[p.index()].clone(), amount);
            }
        }
        if plan.initiative != 0 && kept {
            paid.push(Name::from("initiative"), plan.initiative);
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
        )?;
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
        if plan.initiative != 0 {
            // Paid like a pool: the value is lower from now on (the order, as any change of it).
            self.world.following[who] = false;
            self.world.initiative[who] = self.world.initiative[who].saturating_sub(plan.initiative);
            // As `initiative -= N` in a resolve: `reorder immediately` orders everyone again now.
            self.rule = plan.cost_rule.or(Some(action.loc));
            self.reorder_now()?;
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
            if let (true, Some(e)) = (amount > 0, self.ruleset().pools[p.index()].on_spend) {
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
        let r = self.ruleset();
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
            self.granted_turn(who, a, &ctx)?;
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
