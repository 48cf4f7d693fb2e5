//! Warnings: legal rules that are probably mistakes. Run only on a ruleset without errors.

use super::consteval::eval;
use super::merge::Entry;
use super::scope::Scope;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, AssignOp, Effect, Expr};
use crate::syntax::ast::Decl;

/// How a rule touches a pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Touch {
    Read,
    /// Paid as a cost.
    Spend,
    /// Lowered by an effect (damage, a drain): not spending, so a pool only lowered so (Hit
    /// Points) is not "never refilled".
    Lower,
    Refill,
}

/// Every touch of every pool, with the pool whose own declaration it is in (if any).
struct Uses {
    touches: Vec<(ir::PoolId, Touch, Option<ir::PoolId>)>,
    inside: Option<ir::PoolId>,
    /// In downtime or a rest: lowering a pool there is recovery (Wounds healing), not spending.
    recovery: bool,
}

impl Uses {
    fn add(&mut self, pool: ir::PoolId, touch: Touch) {
        self.touches.push((pool, touch, self.inside));
    }

    fn expr(&mut self, e: &Expr) {
        e.walk(&mut |x| {
            if let Expr::Pool(_, p) | Expr::PoolMax(_, p) | Expr::PoolMin(_, p) = x {
                self.add(*p, Touch::Read);
            }
        });
    }

    fn costs(&mut self, costs: &[ir::Cost]) {
        for c in costs {
            self.add(c.pool, Touch::Spend);
            self.expr(&c.amount);
        }
    }

    fn effects(&mut self, effects: &[Effect]) {
        for e in effects {
            match e {
                Effect::Pool { pool, op, value, .. } => {
                    let touch = match op {
                        AssignOp::Sub if self.recovery => Touch::Read,
                        AssignOp::Sub => Touch::Lower,
                        _ => Touch::Refill,
                    };
                    self.add(*pool, touch);
                    self.expr(value);
                }
                Effect::Initiative { value, .. }
                | Effect::Move(value)
                | Effect::MoveAway(value)
                | Effect::MoveThrough(value)
                | Effect::Push { distance: value, .. } => self.expr(value),
                Effect::Apply { duration, magnitude, .. } => {
                    duration.iter().for_each(|d| self.duration(d));
                    magnitude.iter().for_each(|m| self.expr(m));
                }
                Effect::Choose { options, .. } => options.iter().for_each(|o| self.effects(&o.effects)),
                Effect::Check { roll, against, outcomes } => {
                    self.expr(roll);
                    self.expr(against);
                    outcomes.blocks().for_each(|b| self.effects(b));
                    if let Some(g) = &outcomes.graded {
                        g.shifts.iter().chain(&g.opponent).for_each(|s| self.expr(&s.when));
                    }
                }
                Effect::If { cond, then, otherwise } => {
                    self.expr(cond);
                    self.effects(then);
                    self.effects(otherwise);
                }
                Effect::Repeat { cond, body } => {
                    self.expr(cond);
                    self.effects(body);
                }
                Effect::Each { within, filter, body, .. } => {
                    within.iter().chain(filter).for_each(|x| self.expr(x));
                    self.effects(body);
                }
                Effect::Pay(costs) => self.costs(costs),
                Effect::MoveLeaping { amount, leap, .. } => {
                    self.expr(amount);
                    self.expr(leap);
                }
                Effect::Take { within: Some(x), .. }
                | Effect::Handle { within: Some(x), .. }
                | Effect::Drop { distance: Some(x), .. } => self.expr(x),
                _ => {}
            }
        }
    }

    fn use_limits(&mut self, limits: &[ir::UseLimit]) {
        for l in limits {
            l.pool.iter().for_each(|p| self.add(*p, Touch::Read));
            self.expr(&l.amount);
        }
    }

    fn duration(&mut self, d: &ir::Duration) {
        if let ir::Duration::Rounds(e) | ir::Duration::While(e) = d {
            self.expr(e);
        }
    }
}

fn collect(r: &ir::Ruleset) -> Uses {
    let mut u = Uses { touches: Vec::new(), inside: None, recovery: false };
    r.stats.iter().for_each(|s| u.expr(&s.default));
    r.derived.iter().for_each(|d| u.expr(&d.value));
    for (i, p) in r.pools.iter().enumerate() {
        let id = ir::PoolId(i as u32);
        u.inside = Some(id);
        p.max.iter().for_each(|e| u.expr(e));
        u.expr(&p.min);
        u.expr(&p.start);
        for step in &p.at {
            step.guard.iter().for_each(|g| u.expr(g));
            match &step.op {
                ir::PoolOp::Refresh => u.add(id, Touch::Refill),
                ir::PoolOp::Gain { amount, cap } => {
                    u.add(id, Touch::Refill);
                    u.expr(amount);
                    cap.iter().for_each(|(c, _)| u.expr(c));
                }
                ir::PoolOp::Decay(e) => u.expr(e),
                ir::PoolOp::Convert(into) => {
                    // The target pool is refilled by someone else's declaration.
                    u.inside = None;
                    u.add(*into, Touch::Refill);
                    u.inside = Some(id);
                }
                _ => {}
            }
        }
        for g in &p.gains {
            u.add(id, Touch::Refill);
            u.expr(&g.amount);
            g.guard.iter().for_each(|e| u.expr(e));
            g.cap.iter().for_each(|(c, _)| u.expr(c));
        }
        if let Some(o) = &p.overspend {
            u.expr(&o.floor);
            u.effects(&o.price);
        }
        for t in &p.thresholds {
            u.expr(&t.value);
            u.effects(&t.effects);
        }
    }
    u.inside = None;
    for c in &r.conditions {
        c.blocks.spend.iter().for_each(|p| u.add(*p, Touch::Read));
        c.lasts.iter().for_each(|d| u.duration(d));
        c.maintain.iter().for_each(|(_, e, _)| u.effects(e));
        c.hooks.iter().for_each(|(_, e, _)| u.effects(e));
        c.check_modifier.iter().chain(&c.against_modifier).for_each(|e| u.expr(e));
    }
    for adjust in &r.cost_adjustments {
        adjust.when.iter().for_each(|w| u.expr(w));
        match &adjust.op {
            ir::CostAdjustOp::Scale(e) => u.expr(e),
            ir::CostAdjustOp::Add(costs) => u.costs(costs),
        }
    }
    for a in &r.actions {
        for rule in &a.costs {
            rule.when.iter().for_each(|w| u.expr(w));
            u.costs(&rule.terms);
        }
        u.costs(&a.partner_cost);
        if let Some(p) = &a.partners {
            u.expr(&p.count);
            p.within.iter().for_each(|e| u.expr(e));
        }
        a.requires.iter().for_each(|req| u.expr(&req.cond));
        u.use_limits(&a.limits);
        a.target.within.iter().for_each(|e| u.expr(e));
        a.rounds.iter().for_each(|e| u.expr(e));
        if let Some(i) = &a.interrupted {
            u.expr(&i.when);
            u.effects(&i.effects);
        }
        u.effects(&a.effects);
    }
    for t in &r.triggers {
        t.requires.iter().for_each(|e| u.expr(e));
        u.use_limits(&t.limits);
        u.effects(&t.effects);
    }
    for h in &r.hooks {
        h.guard.iter().for_each(|g| u.expr(g));
        u.effects(&h.effects);
    }
    for l in &r.limits {
        l.pool.iter().for_each(|p| u.add(*p, Touch::Read));
        u.expr(&l.amount);
        l.guard.iter().for_each(|g| u.expr(g));
    }
    let init = &r.initiative;
    u.expr(&init.value);
    init.adjust.iter().for_each(|e| u.expr(e));
    init.range.iter().for_each(|(lo, hi)| {
        u.expr(lo);
        u.expr(hi);
    });
    for tie in &init.ties {
        if let ir::TieBreak::Higher(e)
        | ir::TieBreak::Lower(e)
        | ir::TieBreak::Roll(e)
        | ir::TieBreak::RollUntilDifferent(e) = tie
        {
            u.expr(e);
        }
    }
    for ph in &r.phases {
        // `turns requires` and `repeat while` read pools too (a die kept out of the bag).
        ph.guard.iter().chain(&ph.takes).chain(&ph.again).for_each(|g| u.expr(g));
        if let ir::PhaseKind::Step(e) = &ph.kind {
            u.effects(e);
        }
    }
    r.downtime.iter().for_each(|d| u.expr(&d.every_hours));
    r.rests.iter().for_each(|d| d.hours.iter().chain(&d.minutes).for_each(|h| u.expr(h)));
    u.recovery = true;
    r.downtime.iter().for_each(|d| u.effects(&d.effects));
    r.rests.iter().for_each(|d| u.effects(&d.effects));
    u.recovery = false;
    r.outros.iter().for_each(|d| u.effects(&d.effects));
    r.state_order.iter().for_each(|p| u.add(*p, Touch::Read));
    u
}

pub(crate) fn lints(r: &ir::Ruleset, scope: &Scope) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let uses = collect(r);
    for (i, pool) in r.pools.iter().enumerate() {
        let id = ir::PoolId(i as u32);
        let Some(span) = scope.pools.span(id.0) else {
            continue;
        };
        let outside = uses.touches.iter().filter(|(p, _, inside)| *p == id && *inside != Some(id)).count();
        if outside == 0 {
            // Its own clauses (`gain 1 on hit`, `refresh at turn_start`) may change it: then
            // something changes it, but nothing else reads or spends what they change.
            let own = !pool.gains.is_empty() || pool.at.iter().any(|s| !matches!(s.op, ir::PoolOp::Keep));
            let label = match own {
                true => "only its own clauses change it: no cost, effect or condition reads or spends it",
                false => "nothing spends, reads or changes it",
            };
            out.push(
                Diagnostic::warning(Code::UnusedPool, span, format!("pool `{}` is never used", pool.name))
                    .label(label)
                    .help("use it in a cost or an effect, or delete it"),
            );
            continue;
        }
        let spent = uses.touches.iter().any(|(p, t, _)| *p == id && *t == Touch::Spend);
        // A meter is given back its room by what lowers it: venting, decay, a refresh.
        let refilled = match pool.rising {
            false => uses.touches.iter().any(|(p, t, _)| *p == id && *t == Touch::Refill),
            true => {
                uses.touches.iter().any(|(p, t, _)| *p == id && *t == Touch::Lower)
                    || pool
                        .at
                        .iter()
                        .any(|s| matches!(s.op, ir::PoolOp::Refresh | ir::PoolOp::Lose | ir::PoolOp::Decay(_)))
            }
        };
        if spent && !refilled {
            let (message, help) = match pool.rising {
                false => {
                    ("is spent but never refilled", format!("e.g. `refresh at turn_start` in pool `{}`", pool.name))
                }
                true => (
                    "fills but nothing ever lowers it",
                    format!("e.g. `decay 2 at turn_start` in pool `{}`", pool.name),
                ),
            };
            out.push(
                Diagnostic::warning(Code::NeverRefilled, span, format!("pool `{}` {message}", pool.name))
                    .label("nothing gives it back")
                    .help(help),
            );
        }
    }
    for (i, action) in r.actions.iter().enumerate() {
        let Some(span) = scope.actions.span(i as u32) else {
            continue;
        };
        for rule in &action.costs {
            for cost in &rule.terms {
                let Some(pool) = r.pools.get(cost.pool.index()) else {
                    continue;
                };
                let (Some(amount), Some(max)) = (eval(r, &cost.amount), pool.max.as_ref().and_then(|m| eval(r, m)))
                else {
                    continue;
                };
                // The room a payment has: from the floor (or overspend limit) up to the max for a
                // resource; from the floor up to the max (or overspend ceiling) for a meter.
                let room = match pool.rising {
                    false => {
                        let lowest = match &pool.overspend {
                            Some(o) => eval(r, &o.floor),
                            None => eval(r, &pool.min).map(|m| m.min(0)),
                        };
                        lowest.map(|lowest| max.saturating_sub(lowest))
                    }
                    true => {
                        let ceiling = match &pool.overspend {
                            Some(o) => eval(r, &o.floor).map(|c| c.max(max)),
                            None => Some(max),
                        };
                        ceiling.zip(eval(r, &pool.min)).map(|(c, min)| c.saturating_sub(min))
                    }
                };
                let Some(room) = room else { continue };
                if amount > room {
                    let mut d = Diagnostic::warning(
                        Code::Unaffordable,
                        span,
                        format!(
                            "`{}` costs {amount} {} but the pool never holds more than {max}",
                            action.name, pool.name
                        ),
                    )
                    .label("can never be declared")
                    .help("lower the cost or raise the pool's max");
                    if let Some(pool_span) = scope.pools.span(cost.pool.0) {
                        d = d.with_secondary(pool_span, "the pool is declared here");
                    }
                    out.push(d);
                }
            }
        }
    }
    out
}

/// Movement paid `per zone` needs `space zones`, and `per unit` a grid (or no space at all).
pub(crate) fn movement_units(r: &ir::Ruleset, scope: &Scope) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let zones = matches!(r.space, ir::Space::Zones(_));
    for (i, a) in r.actions.iter().enumerate() {
        let units = a.costs.iter().flat_map(|c| &c.terms).filter_map(|t| t.per.map(|(_, u)| u));
        for unit in units {
            let wrong = match unit {
                ir::Unit::Zone => !zones,
                ir::Unit::Unit => zones,
            };
            if let (true, Some(span)) = (wrong, scope.actions.span(i as u32)) {
                let (said, space) = if zones { ("per unit", "zones") } else { ("per zone", "no zones") };
                out.push(
                    Diagnostic::error(
                        Code::MisplacedClause,
                        span,
                        format!("`{}` pays for movement {said}, but the ruleset has {space}", a.name),
                    )
                    .label("movement unit does not match `space`")
                    .help(if zones {
                        "write `per zone`, or change `space`"
                    } else {
                        "declare `space zones: ...`, or write `per unit`"
                    }),
                );
                break;
            }
        }
    }
    out
}

/// A pool whose minimum is above its maximum: an error, found with default stats.
pub(crate) fn empty_ranges(r: &ir::Ruleset, scope: &Scope, entries: &[Entry]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, pool) in r.pools.iter().enumerate() {
        let (Some(min), Some(max)) = (eval(r, &pool.min), pool.max.as_ref().and_then(|m| eval(r, m))) else {
            continue;
        };
        if min > max {
            let span = entries
                .iter()
                .find_map(|e| match &e.item.decl {
                    Decl::Pool(p) if p.name.name == pool.name => Some(p.name.span),
                    _ => None,
                })
                .or_else(|| scope.pools.span(i as u32));
            if let Some(span) = span {
                out.push(
                    Diagnostic::error(
                        Code::EmptyRange,
                        span,
                        format!("pool `{}` has min {min} above max {max}", pool.name),
                    )
                    .label("no value fits")
                    .help("lower `min` (or leave it out: the floor is 0) or raise `max`"),
                );
            }
        }
    }
    if let Some((lo, hi)) = &r.initiative.range {
        if let (Some(lo), Some(hi)) = (eval(r, lo), eval(r, hi)) {
            let span = entries.iter().find_map(|e| match &e.item.decl {
                Decl::Initiative(clauses) => clauses.iter().find_map(|c| match c {
                    crate::syntax::ast::InitiativeClause::Range(_, _, span) => Some(*span),
                    _ => None,
                }),
                _ => None,
            });
            if let (true, Some(span)) = (lo > hi, span) {
                out.push(
                    Diagnostic::error(Code::EmptyRange, span, format!("the initiative range {lo} to {hi} is empty"))
                        .label("the low end is above the high end")
                        .help(format!("write `range {hi} to {lo}`")),
                );
            }
        }
    }
    out
}
