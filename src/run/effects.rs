//! Effects: what each effect of a rule does, run in order, with the pool changes of a
//! `state_order` held and flushed; conditions given and taken away.

use super::costs::Costs;
use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::held::Held;
use super::pending::Staged;
use super::sink::Sink;
use super::trace::{Cause, Event};
use crate::ir::{self, AssignOp, Effect, Way};

impl<'r, S: Sink> Engine<'r, S> {
    /// Gives `who` a condition; `origin` is (the condition implying it, who applied it).
    pub fn apply(
        &mut self,
        who: usize,
        c: ir::ConditionId,
        magnitude: i64,
        duration: Option<&'r ir::Duration>,
        (implied_by, source): (Option<ir::ConditionId>, Option<usize>),
        ctx: &Ctx,
    ) -> Result<(), RunError> {
        let def = &self.ruleset().conditions[c.index()];
        let duration = duration.or(def.lasts.as_ref());
        let mut held =
            Held { magnitude, until: None, rounds_left: None, while_: None, implied_by, source, until_source: None };
        match duration {
            Some(ir::Duration::Until(t)) => held.until = Some(*t),
            Some(ir::Duration::UntilSource { end }) => {
                held.until_source = Some(super::held::SourceTurn { end: *end, armed: false });
            }
            Some(ir::Duration::Rounds(e)) => held.rounds_left = Some(self.eval(e, ctx)?),
            Some(ir::Duration::While(e)) => held.while_ = Some(e),
            Some(ir::Duration::Maintained) | None => {}
        }
        let before = self.world.held.get(who, c).map(|h| h.magnitude);
        if !self.world.held.set(who, c, held) {
            self.changes_made += 1;
            let (name, cond) = (self.names.who[who].clone(), self.names.condition[c.index()].clone());
            // Outside any rule (held from the start), the condition's own declaration.
            let rule = self.rule.or(Some(def.loc));
            let seq = self.emit_by(Event::Condition { who: name, condition: cond, on: true }, rule);
            // What a condition implies, it implies because it is held.
            let outer = self.caused_by(seq);
            for &implied in &def.implies {
                if !self.world.held.has(who, implied) {
                    self.apply(who, implied, 1, None, (Some(c), source), ctx)?;
                }
            }
            self.because = outer;
        } else if let Some(from) = before.filter(|m| *m != magnitude) {
            // Held already, with another magnitude: the new one is read from now on.
            self.changes_made += 1;
            let (name, cond) = (self.names.who[who].clone(), self.names.condition[c.index()].clone());
            let rule = self.rule.or(Some(def.loc));
            self.emit_by(Event::Magnitude { who: name, condition: cond, from, to: magnitude }, rule);
        }
        Ok(())
    }

    pub fn remove(&mut self, who: usize, c: ir::ConditionId) {
        if self.world.held.take(who, c).is_none() {
            return;
        }
        self.changes_made += 1;
        let (name, cond) = (self.names.who[who].clone(), self.names.condition[c.index()].clone());
        // A condition that ends outside any rule has run its course: its declaration says how
        // long it lasts.
        let rule = self.rule.or(Some(self.ruleset().conditions[c.index()].loc));
        let seq = self.emit_by(Event::Condition { who: name, condition: cond, on: false }, rule);
        let outer = self.caused_by(seq);
        for other in 0..self.ruleset().conditions.len() {
            let id = ir::ConditionId(other as u32);
            if self.world.held.get(who, id).is_some_and(|h| h.implied_by == Some(c)) {
                self.remove(who, id);
            }
        }
        self.because = outer;
    }

    /// Runs effects in order. An encounter that ends meanwhile still lets them finish
    /// (Frontiers, "Leaving Encounter Play Mid-Round": the current action finishes resolving).
    ///
    /// With a `state_order`, the rule's changes to its pools are held while they follow one
    /// another and applied in that order when anything else happens or the rule ends (`flush`).
    ///
    /// `rule` is where the rule is written: the events its effects cause name it.
    pub(crate) fn run_effects(
        &mut self,
        effects: &'r [Effect],
        c: &Ctx,
        cause: &Cause,
        rule: ir::Loc,
    ) -> Result<(), RunError> {
        let staging = !self.ruleset().state_order.is_empty();
        let was = std::mem::replace(&mut self.pending.staging, staging);
        let done = self.flush().and_then(|()| {
            let outer = self.under(rule);
            let done = self.run_flow(effects, c, cause).map_err(|e| e.at(self.rule));
            self.rule = outer;
            done
        });
        let done = done.and_then(|_| self.flush());
        self.pending.staging = was;
        done.map_err(|e| e.within(|| cause.to_string()).in_rule(|| cause.to_string()))
    }

    /// Applies the changes to `state_order` pools held since the last flush: the changes one
    /// rule made one after another, which happen at once (Frontiers, "Multiple State Changes
    /// Simultaneously"). Changes to one pool are recorded as they were made, their thresholds
    /// looked at with every other change's at the next `settle`. Changes to several pools are
    /// undone and made again pool by pool in `state_order`, each pool's thresholds looked at
    /// before the next pool's changes (the Wound at 0 HP before the Fatigue of the same hit);
    /// the condition changes those thresholds cause wait for the next `settle`.
    #[inline]
    pub fn flush(&mut self) -> Result<(), RunError> {
        // Called around every rule's effects and before most effects; nothing is held most
        // times, and then no call is made.
        match self.pending.staged.first() {
            None => Ok(()),
            Some(first) => {
                let pool = first.pool;
                self.flush_staged(pool)
            }
        }
    }

    /// `flush` of the held changes, the first of them to `pool`.
    #[inline(never)]
    fn flush_staged(&mut self, pool: ir::PoolId) -> Result<(), RunError> {
        let mut staged = std::mem::take(&mut self.pending.staged);
        let done = if staged.iter().all(|s| s.pool == pool) {
            let outer = self.rule;
            for s in &staged {
                if s.from != s.to {
                    self.rule = s.rule;
                    self.record_pool(s.who, s.pool, s.from, s.to, &s.cause);
                }
            }
            self.rule = outer;
            Ok(())
        } else {
            for s in staged.iter().rev() {
                let at = self.world.pool_at(s.who, s.pool);
                self.world.pools[at] = s.from;
            }
            let was = std::mem::replace(&mut self.pending.staging, false);
            let mut held = std::mem::take(&mut self.pending.conditions);
            let done = self.ordered_pass(&[], &staged, &mut held);
            held.append(&mut self.pending.conditions);
            self.pending.conditions = held;
            self.pending.staging = was;
            done.map(|_| ())
        };
        staged.clear();
        self.pending.staged = staged;
        done
    }

    /// Runs effects until one halts the rest: an `emit` whose event an interrupting answer
    /// cancelled stops everything after it in the same rule, branches included (001, Dodge:
    /// a dodged hit deals no damage). Returns whether it halted.
    pub(super) fn run_flow(&mut self, effects: &'r [Effect], c: &Ctx, cause: &Cause) -> Result<bool, RunError> {
        for (i, e) in effects.iter().enumerate() {
            self.step()?;
            if self.effect(e, c, cause)? {
                return Ok(true);
            }
            // An emitted event was redirected: the rest of the block targets the one who took it.
            if self.pending.retarget.is_some() {
                let retargeted = Ctx { target: self.pending.retarget.take(), ..*c };
                if !self.pending.immediate.is_empty() {
                    self.immediately()?;
                }
                return self.run_flow(&effects[i + 1..], &retargeted, cause);
            }
            if !self.pending.immediate.is_empty() {
                self.immediately()?;
            }
        }
        Ok(false)
    }

    pub(super) fn effect(&mut self, e: &'r Effect, c: &Ctx, cause: &Cause) -> Result<bool, RunError> {
        // Anything seen other than a pool change (an event, a roll, a choice, a condition, a
        // move, a payment) ends a run of simultaneous pool changes: they apply first.
        if !self.pending.staged.is_empty() && ends_run(e) {
            self.flush()?;
        }
        match e {
            Effect::Pool { who, pool, op, value } => self.change_pool(who, pool, op, value, c, cause)?,
            Effect::Initiative { who, op, value } => {
                let who = c.who(*who)?;
                let v = self.eval(value, c)?;
                self.world.following[who] = false;
                // Takes effect from the next ordering (Frontiers: next round), unless the
                // ruleset reorders at once.
                self.world.initiative[who] = assign(self.world.initiative[who], *op, v);
                self.reorder_now()?;
            }
            Effect::Apply { who, condition, magnitude, duration } => {
                let who = c.who(*who)?;
                let m = match magnitude {
                    Some(e) => self.eval(e, c)?,
                    None => 1,
                };
                self.apply(who, *condition, m, duration.as_ref(), (None, Some(c.owner)), c)?;
            }
            Effect::Remove { who, condition } => {
                let who = c.who(*who)?;
                self.remove(who, *condition);
            }
            Effect::Emit(event) => return self.emit_event(*event, c),
            Effect::EmitWith(event, amount) => {
                let v = self.eval(amount, c)?;
                return self.emit_with(*event, Some(v), c);
            }
            Effect::Amount { op, value } => {
                let v = self.eval(value, c)?;
                if let Some(slot) = c.event.and_then(|i| i.amount) {
                    if let Some(now) = self.amounts.get_mut(slot as usize) {
                        let next = assign(*now, *op, v);
                        self.changes_made += u64::from(next != *now);
                        *now = next;
                    }
                }
            }
            Effect::Choose { chooser, question, options, loc } => {
                return self.choose(chooser, question, options, *loc, c, cause)
            }
            Effect::Check { roll, against, outcomes } => return self.check(roll, against, outcomes, c, cause),
            Effect::Repeat { cond, body } => return self.repeat(cond, body, c, cause),
            Effect::Each { relation, within, filter, body } => {
                return self.each(*relation, (within.as_ref(), filter.as_ref()), body, c, cause)
            }
            Effect::If { cond, then, otherwise } => {
                let branch = if self.eval(cond, c)? != 0 { then } else { otherwise };
                return self.run_flow(branch, c, cause);
            }
            Effect::Move(amount) | Effect::MoveAway(amount) | Effect::MoveThrough(amount) => {
                let way = match e {
                    Effect::Move(_) => Way::Toward,
                    Effect::MoveAway(_) => Way::Away,
                    _ => Way::Through,
                };
                return self.voluntary_move(way, amount, None, c);
            }
            Effect::MoveLeaping { way, amount, leap } => return self.voluntary_move(*way, amount, Some(leap), c),
            Effect::Take { kind, from, within } => self.take(kind, from, within, c)?,
            Effect::Handle { kind, within } => {
                let reach = match within {
                    Some(x) => self.eval(x, c)?,
                    None => 0,
                };
                if let Some(o) = self.nearest_object(*kind, c.owner, reach, false) {
                    self.take_hold(o, c.owner);
                }
            }
            Effect::Drop { kind, from, toward, distance } => return self.drop_held(kind, from, *toward, distance, c),
            Effect::Push { who, distance } => {
                let who = c.who(*who)?;
                let n = self.eval(distance, c)?.max(0);
                let dir = if self.world.positions[who] >= self.world.positions[c.owner] { 1 } else { -1 };
                let to = self.world.positions[who].saturating_add(dir * n);
                self.place(who, to, true);
            }
            Effect::Pay(costs) => self.pay(costs, c, cause)?,
            Effect::Follow(who) => {
                let who = c.who(*who)?;
                // "Immediately after": the next value after theirs, ahead of anyone already at
                // it (003, Choose to Delay). Fixed now, so it does not move if they move later.
                let later = if self.ruleset().initiative.order == ir::Order::LowestFirst { 1 } else { -1 };
                self.world.initiative[c.owner] = self.world.initiative[who].saturating_add(later);
                self.world.following[c.owner] = who != c.owner;
                self.world.ordered_values.clear();
                self.reorder_now()?;
            }
            Effect::EndTurn => self.clock.turn_over = true,
            Effect::EndEncounter => self.clock.ended = Some("ended by a rule".into()),
            Effect::Cancel => self.pending.cancelled = true,
            Effect::Redirect => self.pending.redirected = Some(c.owner),
            Effect::Pile(p) => self.pile_effect(p, c)?,
            Effect::Swap(other) => {
                let other = c.who(*other)?;
                let (mine, theirs) = (self.world.positions[c.owner], self.world.positions[other]);
                if other != c.owner && mine != theirs {
                    // Both places are taken at once: neither blocks the other.
                    self.place(c.owner, theirs, false);
                    self.place(other, mine, true);
                }
            }
            Effect::RollInitiative => self.make_initiative()?,
            Effect::Roll(roll) => self.roll_named(roll, c)?,
            Effect::ClearConditions => {
                for cond in 0..self.ruleset().conditions.len() {
                    self.remove(c.owner, ir::ConditionId(cond as u32));
                }
            }
        }
        Ok(false)
    }

    /// A pool effect: set at once, or held while the rule's `state_order` changes follow one
    /// another (`flush`).
    #[inline]
    fn change_pool(
        &mut self,
        who: &ir::Who,
        pool: &ir::PoolId,
        op: &AssignOp,
        value: &ir::Expr,
        c: &Ctx,
        cause: &Cause,
    ) -> Result<(), RunError> {
        let who = self.party(c, *who)?;
        let v = self.eval(value, c)?;
        let next = assign(self.world.pool(who, *pool), *op, v);
        if self.pending.staging && self.ruleset().state_order.contains(pool) {
            // Held: the world shows the new value (the rule's own reads see it), the
            // rest waits for the flush.
            let to = self.clamp_pool(who, *pool, next)?;
            let at = self.world.pool_at(who, *pool);
            let from = std::mem::replace(&mut self.world.pools[at], to);
            self.changes_made += u64::from(from != to);
            let (pool, op, value, cause, rule) = (*pool, *op, v, cause.clone(), self.rule);
            self.pending.staged.push(Staged { who, pool, op, value, from, to, cause, rule });
        } else {
            self.set_pool(who, *pool, next, cause)?;
        }
        Ok(())
    }

    /// `choose`: the chooser picks an option, whose effects run; returns whether they halted.
    fn choose(
        &mut self,
        chooser: &ir::Chooser,
        question: &str,
        options: &'r [ir::ChoiceOption],
        loc: ir::Loc,
        c: &Ctx,
        cause: &Cause,
    ) -> Result<bool, RunError> {
        let who = match chooser {
            ir::Chooser::Owner => Some(c.owner),
            ir::Chooser::Target => Some(c.who(ir::Who::Target)?),
            ir::Chooser::Gm => None,
        };
        if self.decisions {
            let names = options.iter().map(|o| self.names.intern(&o.name)).collect();
            self.scratch.choice = Some((self.names.intern(question), names));
        }
        let pick = self.ask_choice(who, loc, options, c);
        self.scratch.choice = None;
        let pick = pick?.min(options.len().saturating_sub(1));
        if let Some(o) = options.get(pick) {
            let who_name = match who {
                Some(w) => self.names.who[w].clone(),
                None => self.names.intern("GM"),
            };
            let (question, answer) = (self.names.intern(question), self.names.intern(&o.name));
            let seq = self.emit_by(Event::Choice { who: who_name, question, answer }, Some(loc));
            let outer = self.caused_by(seq);
            let halted = self.run_flow(&o.effects, c, cause);
            self.because = outer;
            return halted;
        }
        Ok(false)
    }

    /// `repeat while COND`: at most `ir::MAX_REPEATS` passes; returns whether a pass halted.
    fn repeat(&mut self, cond: &ir::Expr, body: &'r [Effect], c: &Ctx, cause: &Cause) -> Result<bool, RunError> {
        for _ in 0..ir::MAX_REPEATS {
            if self.eval(cond, c)? == 0 {
                break;
            }
            let before = self.changes_made;
            if self.run_flow(body, c, cause)? {
                return Ok(true);
            }
            // A pass that changed nothing and rolled nothing would be followed by the same pass.
            if self.changes_made == before {
                break;
            }
        }
        Ok(false)
    }

    /// `for each RELATION [within N] [where COND]`: who is looped over is settled first, in
    /// scenario order; then the body once for each still in the encounter, `target` bound to
    /// them. Returns whether a pass halted (the rest of the rule, other passes included).
    fn each(
        &mut self,
        relation: ir::Relation,
        (within, filter): (Option<&ir::Expr>, Option<&ir::Expr>),
        body: &'r [Effect],
        c: &Ctx,
        cause: &Cause,
    ) -> Result<bool, RunError> {
        let mut looped = Vec::new();
        for o in 0..self.world.n {
            if !self.world.present[o] || !self.world.relates(c.owner, o, relation) {
                continue;
            }
            if let Some(w) = within {
                if self.world.distance(o, c.owner) > self.eval(w, &Ctx { target: Some(o), ..*c })? {
                    continue;
                }
            }
            // Read as `count` reads its condition: the participant is `self`.
            if let Some(f) = filter {
                if self.eval(f, &Ctx { owner: o, ..*c })? == 0 {
                    continue;
                }
            }
            looped.push(o);
        }
        for o in looped {
            if !self.world.present[o] {
                continue;
            }
            let (who, target) = (self.names.who[c.owner].clone(), self.names.who[o].clone());
            let seq = self.emit(Event::Each { who, relation: relation.word(), target });
            let outer = self.caused_by(seq);
            let halted = self.run_flow(body, &Ctx { target: Some(o), ..*c }, cause);
            self.because = outer;
            if halted? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `take KIND [from WHO | within N]`: out of another's hands or off the ground, into the owner's.
    fn take(
        &mut self,
        kind: &ir::ObjectId,
        from: &Option<ir::Who>,
        within: &Option<ir::Expr>,
        c: &Ctx,
    ) -> Result<(), RunError> {
        let found = match from {
            // Out of one's own hands into one's own hands is no taking.
            Some(w) if c.who(*w)? == c.owner => None,
            Some(w) => {
                let w = c.who(*w)?;
                self.world.objects.iter().position(|o| o.kind == *kind && o.holders.contains(&w))
            }
            None => {
                let reach = match within {
                    Some(x) => self.eval(x, c)?,
                    None => 0,
                };
                self.nearest_object(*kind, c.owner, reach, true)
            }
        };
        if let Some(o) = found {
            for h in std::mem::take(&mut self.world.objects[o].holders) {
                self.let_go(o, h, None);
            }
            self.take_hold(o, c.owner);
        }
        Ok(())
    }

    /// `drop KIND`: the holder lets go of it; let go by its last holder, it lands.
    fn drop_held(
        &mut self,
        kind: &ir::ObjectId,
        from: &ir::Who,
        toward: bool,
        distance: &Option<ir::Expr>,
        c: &Ctx,
    ) -> Result<bool, RunError> {
        let w = c.who(*from)?;
        let Some(o) = self.world.objects.iter().position(|o| o.kind == *kind && o.holders.contains(&w)) else {
            return Ok(false);
        };
        let n = match distance {
            Some(x) => self.eval(x, c)?.max(0),
            None => 0,
        };
        self.world.objects[o].holders.retain(|h| *h != w);
        let lies = if self.world.objects[o].holders.is_empty() { Some(self.landing(w, c, toward, n)) } else { None };
        if let Some(at) = lies {
            self.world.objects[o].at = at;
        }
        self.let_go(o, w, lies);
        Ok(false)
    }

    /// `pay COSTS` (in `maintain`): all of them if every pool affords its part, else nothing and
    /// the maintenance is cancelled.
    fn pay(&mut self, costs: &[ir::Cost], c: &Ctx, cause: &Cause) -> Result<(), RunError> {
        // Only meaningful in `maintain`; the caller checks the result through `cancelled`.
        let mut plan = Costs::default();
        for cost in costs {
            let amount = self.eval(&cost.amount, c)?;
            plan.add(cost.pool, amount)?;
        }
        let mut affordable = true;
        for (p, a) in &plan {
            affordable &= self.past_bounds(c.owner, p, a)? == 0;
        }
        if affordable {
            for (p, a) in &plan {
                let now = self.world.pool(c.owner, p);
                let next = self.after_paying(p, now, a);
                self.set_pool_raw(c.owner, p, next, cause);
            }
            if self.tables.spend_events {
                self.spent(&plan, c)?;
            }
        } else {
            self.pending.cancelled = true;
        }
        Ok(())
    }
}

/// `now` changed by `op` with `v`.
pub(super) fn assign(now: i64, op: AssignOp, v: i64) -> i64 {
    match op {
        AssignOp::Set => v,
        AssignOp::Add => now.saturating_add(v),
        AssignOp::Sub => now.saturating_sub(v),
    }
}

/// Whether an effect is seen other than as a pool change, so that pool changes held before it
/// apply first (`Engine::flush`). Changes to initiative and flags are not seen until later.
fn ends_run(e: &Effect) -> bool {
    !matches!(
        e,
        Effect::Pool { .. }
            | Effect::If { .. }
            | Effect::Initiative { .. }
            | Effect::Follow(_)
            | Effect::EndTurn
            | Effect::EndEncounter
            | Effect::Cancel
            | Effect::Redirect
    )
}
