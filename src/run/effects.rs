//! Running effects: pool changes, conditions, checks, choices; and settling thresholds.

use super::costs::Costs;
use super::ctx::{Ctx, EventInfo};
use super::engine::Engine;
use super::error::RunError;
use super::held::Held;
use super::pending::{Change, HeldChange, Staged};
use super::sink::{Fact, Sink};
use super::trace::{Cause, Event};
use super::world::MAX_POSITION;
use super::world::{Ground, LastCheck};
use crate::ir::{self, AssignOp, Effect, Timing, Way};

impl<'r, S: Sink> Engine<'r, S> {
    /// Sets a pool, clamped to its bounds, and records the change with its cause.
    pub fn set_pool(&mut self, who: usize, p: ir::PoolId, value: i64, cause: &Cause) -> Result<(), RunError> {
        let value = self.clamp_pool(who, p, value)?;
        self.set_pool_raw(who, p, value, cause);
        Ok(())
    }

    /// `value` within the pool's bounds.
    fn clamp_pool(&mut self, who: usize, p: ir::PoolId, value: i64) -> Result<i64, RunError> {
        let max = self.pool_max(who, p)?;
        let min = self.pool_min(who, p)?;
        // A pool overspent below its minimum recovers from where it is (Frontiers: negative
        // Energy recovers at the normal rate); effects never push it further down. A meter
        // overspent above its max, the same way from above.
        let from = self.world.pool(who, p);
        let value = value.max(min.min(from));
        let rising = self.r.pools[p.index()].rising;
        Ok(max.map_or(value, |m| value.min(if rising { m.max(min).max(from) } else { m.max(min) })))
    }

    /// A pool after paying `amount` of it: a resource goes down, a rising meter up.
    pub(in crate::run) fn after_paying(&self, p: ir::PoolId, now: i64, amount: i64) -> i64 {
        match self.r.pools[p.index()].rising {
            true => now.saturating_add(amount),
            false => now.saturating_sub(amount),
        }
    }

    /// How much of a payment of `amount` goes past the pool's bounds: below a resource's floor,
    /// above a meter's max (0 when it fits).
    pub(in crate::run) fn past_bounds(&mut self, who: usize, p: ir::PoolId, amount: i64) -> Result<i64, RunError> {
        let now = self.world.pool(who, p);
        let next = self.after_paying(p, now, amount);
        Ok(match self.r.pools[p.index()].rising {
            true => self.pool_max(who, p)?.map_or(0, |max| next.saturating_sub(max).clamp(0, amount.max(0))),
            false => self.pool_min(who, p)?.saturating_sub(next).clamp(0, amount.max(0)),
        })
    }

    /// Sets a pool without clamping (overspend goes below the minimum).
    pub fn set_pool_raw(&mut self, who: usize, p: ir::PoolId, value: i64, cause: &Cause) {
        let at = self.world.pool_at(who, p);
        let from = self.world.pools[at];
        if from == value {
            return;
        }
        self.world.pools[at] = value;
        self.changes += 1;
        self.record_pool(who, p, from, value, cause);
    }

    /// A pool change made: its thresholds are to be looked at, and the trace shows it.
    fn record_pool(&mut self, who: usize, p: ir::PoolId, from: i64, to: i64, cause: &Cause) {
        let seq = if self.dry {
            None
        } else {
            let (who_name, pool) = (self.names.who[who].clone(), self.names.pool[p.index()].clone());
            self.emit(Event::Pool { who: who_name, pool, from, to, cause: cause.clone() })
        };
        self.pending.changed.push((who, p, from, seq));
        if self.r.pools[p.index()].thresholds.iter().any(|t| t.immediately) {
            self.pending.immediate.push((who, p, from, seq));
        }
    }

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
        let def = &self.r.conditions[c.index()];
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
        if !self.world.held.set(who, c, held) {
            self.changes += 1;
            let (name, cond) = (self.names.who[who].clone(), self.names.condition[c.index()].clone());
            // Outside any rule (held from the start), the condition's own declaration.
            let rule = self.rule.or(Some(def.loc));
            let seq = self.emit_by(Event::Condition { who: name, condition: cond, on: true }, rule);
            // What a condition implies, it implies because it is held.
            let outer = self.caused_by(seq);
            for implied in def.implies.clone() {
                if !self.world.held.has(who, implied) {
                    self.apply(who, implied, 1, None, (Some(c), source), ctx)?;
                }
            }
            self.because = outer;
        }
        Ok(())
    }

    pub fn remove(&mut self, who: usize, c: ir::ConditionId) {
        if self.world.held.take(who, c).is_none() {
            return;
        }
        self.changes += 1;
        let (name, cond) = (self.names.who[who].clone(), self.names.condition[c.index()].clone());
        // A condition that ends outside any rule has run its course: its declaration says how
        // long it lasts.
        let rule = self.rule.or(Some(self.r.conditions[c.index()].loc));
        let seq = self.emit_by(Event::Condition { who: name, condition: cond, on: false }, rule);
        let outer = self.caused_by(seq);
        for other in 0..self.r.conditions.len() {
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
    pub fn run_effects(
        &mut self,
        effects: &'r [Effect],
        c: &Ctx,
        cause: &Cause,
        rule: ir::Loc,
    ) -> Result<(), RunError> {
        let staging = !self.r.state_order.is_empty();
        let was = std::mem::replace(&mut self.pending.staging, staging);
        let done = self.flush().and_then(|()| {
            let outer = self.under(rule);
            let done = self.run_flow(effects, c, cause);
            self.rule = outer;
            done
        });
        let done = done.and_then(|_| self.flush());
        self.pending.staging = was;
        done.map_err(|e| e.within(|| cause.to_string()))
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
    fn run_flow(&mut self, effects: &'r [Effect], c: &Ctx, cause: &Cause) -> Result<bool, RunError> {
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

    /// The `immediately` thresholds the changes made since the last look crossed into, each in
    /// full (its condition changes too) before the rule goes on. Changes they make are looked at
    /// in turn, as many times as the budget of steps allows.
    pub fn immediately(&mut self) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.r;
        while !self.pending.immediate.is_empty() {
            let batch = std::mem::take(&mut self.pending.immediate);
            for (i, &(who, p, old, seq)) in batch.iter().enumerate() {
                let now = step_end(&batch, i).unwrap_or_else(|| self.world.pool(who, p));
                for t in r.pools[p.index()].thresholds.iter().filter(|t| t.immediately) {
                    let c = Ctx { owner: who, ..Ctx::default() };
                    let value = self.eval(&t.value, &c)?;
                    if t.op.holds(now, value) && !t.op.holds(old, value) {
                        self.step()?;
                        let cause =
                            Cause::Threshold { pool: self.names.pool[p.index()].clone(), op: t.op.symbol(), value };
                        let outer = self.under(t.loc);
                        let because = self.caused_by(seq);
                        let done = self.run_flow(&t.effects, &c, &cause);
                        self.rule = outer;
                        self.because = because;
                        done?;
                    }
                }
            }
        }
        Ok(())
    }

    fn effect(&mut self, e: &'r Effect, c: &Ctx, cause: &Cause) -> Result<bool, RunError> {
        // Anything seen other than a pool change (an event, a roll, a choice, a condition, a
        // move, a payment) ends a run of simultaneous pool changes: they apply first.
        if !self.pending.staged.is_empty() && ends_run(e) {
            self.flush()?;
        }
        match e {
            Effect::Pool { who, pool, op, value } => {
                let who = c.who(*who)?;
                let v = self.eval(value, c)?;
                let next = assign(self.world.pool(who, *pool), *op, v);
                if self.pending.staging && self.r.state_order.contains(pool) {
                    // Held: the world shows the new value (the rule's own reads see it), the
                    // rest waits for the flush.
                    let to = self.clamp_pool(who, *pool, next)?;
                    let at = self.world.pool_at(who, *pool);
                    let from = std::mem::replace(&mut self.world.pools[at], to);
                    self.changes += u64::from(from != to);
                    let (pool, op, value, cause, rule) = (*pool, *op, v, cause.clone(), self.rule);
                    self.pending.staged.push(Staged { who, pool, op, value, from, to, cause, rule });
                } else {
                    self.set_pool(who, *pool, next, cause)?;
                }
            }
            Effect::Initiative { who, op, value } => {
                let who = c.who(*who)?;
                let v = self.eval(value, c)?;
                self.world.following[who] = false;
                // Takes effect from the next ordering (Frontiers: next round).
                self.world.initiative[who] = assign(self.world.initiative[who], *op, v);
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
                        self.changes += u64::from(next != *now);
                        *now = next;
                    }
                }
            }
            Effect::Choose { chooser, question, options, loc } => {
                let who = match chooser {
                    ir::Chooser::Owner => Some(c.owner),
                    ir::Chooser::Target => Some(c.who(ir::Who::Target)?),
                    ir::Chooser::Gm => None,
                };
                let pick = self.ask_choice(who, question, options, c).min(options.len().saturating_sub(1));
                if let Some(o) = options.get(pick) {
                    let who_name = match who {
                        Some(w) => self.names.who[w].clone(),
                        None => self.names.intern("GM"),
                    };
                    let (question, answer) = (self.names.intern(question), self.names.intern(&o.name));
                    let seq = self.emit_by(Event::Choice { who: who_name, question, answer }, Some(*loc));
                    let outer = self.caused_by(seq);
                    let halted = self.run_flow(&o.effects, c, cause);
                    self.because = outer;
                    return halted;
                }
            }
            Effect::Check { roll, against, outcomes } => return self.check(roll, against, outcomes, c, cause),
            Effect::Repeat { cond, body } => {
                for _ in 0..ir::MAX_REPEATS {
                    if self.eval(cond, c)? == 0 {
                        break;
                    }
                    let before = self.changes;
                    if self.run_flow(body, c, cause)? {
                        return Ok(true);
                    }
                    // A pass that changed nothing would be followed by the same pass.
                    if self.changes == before {
                        break;
                    }
                }
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
            Effect::Take { kind, from, within } => {
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
            }
            Effect::Handle { kind, within } => {
                let reach = match within {
                    Some(x) => self.eval(x, c)?,
                    None => 0,
                };
                if let Some(o) = self.nearest_object(*kind, c.owner, reach, false) {
                    self.take_hold(o, c.owner);
                }
            }
            Effect::Drop { kind, from, toward, distance } => {
                let w = c.who(*from)?;
                let Some(o) = self.world.objects.iter().position(|o| o.kind == *kind && o.holders.contains(&w)) else {
                    return Ok(false);
                };
                let n = match distance {
                    Some(x) => self.eval(x, c)?.max(0),
                    None => 0,
                };
                self.world.objects[o].holders.retain(|h| *h != w);
                let lies =
                    if self.world.objects[o].holders.is_empty() { Some(self.landing(w, c, *toward, n)) } else { None };
                if let Some(at) = lies {
                    self.world.objects[o].at = at;
                }
                self.let_go(o, w, lies);
            }
            Effect::Push { who, distance } => {
                let who = c.who(*who)?;
                let n = self.eval(distance, c)?.max(0);
                let dir = if self.world.positions[who] >= self.world.positions[c.owner] { 1 } else { -1 };
                let to = self.world.positions[who].saturating_add(dir * n);
                self.place(who, to, true);
            }
            Effect::Pay(costs) => {
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
            }
            Effect::Follow(who) => {
                let who = c.who(*who)?;
                // "Immediately after": the next value after theirs, ahead of anyone already at
                // it (003, Choose to Delay). Fixed now, so it does not move if they move later.
                let later = if self.r.initiative.order == ir::Order::LowestFirst { 1 } else { -1 };
                self.world.initiative[c.owner] = self.world.initiative[who].saturating_add(later);
                self.world.following[c.owner] = who != c.owner;
                self.world.ordered_values.clear();
            }
            Effect::EndTurn => self.clock.turn_over = true,
            Effect::EndEncounter => self.clock.ended = Some("ended by a rule".to_string()),
            Effect::Cancel => self.pending.cancelled = true,
            Effect::Redirect => self.pending.redirected = Some(c.owner),
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
            Effect::ClearConditions => {
                for cond in 0..self.r.conditions.len() {
                    self.remove(c.owner, ir::ConditionId(cond as u32));
                }
            }
        }
        Ok(false)
    }

    /// `move [away|through] N [leap L]` by the rule's owner: nothing while something blocks its
    /// movement or there is nobody to move toward or away from; else it travels.
    fn voluntary_move(
        &mut self,
        way: Way,
        amount: &ir::Expr,
        leap: Option<&ir::Expr>,
        c: &Ctx,
    ) -> Result<bool, RunError> {
        let n = self.eval(amount, c)?.max(0);
        let leap = match leap {
            Some(x) => self.eval(x, c)?.clamp(0, 2 * MAX_POSITION),
            None => 0,
        };
        if self.world.held.movement_blocked(c.owner).is_some() {
            return Ok(false);
        }
        match self.destination(way, c.owner, c.target, n, leap)? {
            Some(to) => self.travel(c.owner, to, c),
            None => Ok(false),
        }
    }

    /// Where a move of `n` units the way `way` would take `who` (`None`: nobody to move toward
    /// or away from), with a leap that clears blocking terrain up to `leap` places wide.
    pub(super) fn destination(
        &mut self,
        way: Way,
        who: usize,
        target: Option<usize>,
        n: i64,
        leap: i64,
    ) -> Result<Option<i64>, RunError> {
        // The ground is read for the mover once per move, and only where there is terrain.
        let mut kinds = Vec::new();
        if !self.world.terrain.is_empty() {
            let r = self.r;
            let me = Ctx::of(who);
            for t in &r.terrains {
                let cost = match &t.slows {
                    Some((amount, spared)) => match spared {
                        Some(x) if self.eval(x, &me)? != 0 => 1,
                        _ => self.eval(amount, &me)?.max(1),
                    },
                    None => 1,
                };
                let stops = match &t.blocks {
                    Some(Some(spared)) => self.eval(spared, &me)? == 0,
                    Some(None) => true,
                    None => false,
                };
                kinds.push((cost, stops));
            }
        }
        let ground = (!self.world.terrain.is_empty()).then_some(Ground { kinds: &kinds, leap });
        Ok(match way {
            Way::Toward => self.toward(who, target, n, ground),
            Way::Away => self.away(who, target, n, ground),
            Way::Through => self.through(who, target, n, ground),
        })
    }

    /// Where `move through N` would take `who`: toward `target` (or the nearest standing enemy)
    /// and past it, at most to the first place beyond it, its own place not blocking (001,
    /// Tumble Through).
    fn through(&self, who: usize, target: Option<usize>, n: i64, ground: Option<Ground>) -> Option<i64> {
        let g = target.filter(|t| *t != who).or_else(|| self.world.nearest_enemy(who))?;
        let gap = self.world.positions[g] - self.world.positions[who];
        let dir = if gap >= 0 { 1 } else { -1 };
        Some(self.world.walk(self.r, who, dir, gap.abs() + 1, n, Some(g), ground))
    }

    /// Voluntary movement of `who` to `to`. With `reach` declared, the way is cut where it
    /// steps into, out of, or first out of a place within, someone's reach, and each such event
    /// is offered there (the mover standing where it happens): an interrupting reaction that
    /// cancels it ends the move there and the rest of the rule (`true`); a mover that can no
    /// longer move, or was moved by an answer, stops there.
    fn travel(&mut self, who: usize, to: i64, c: &Ctx) -> Result<bool, RunError> {
        let r = self.r;
        let to = self.bounded(to);
        let from = self.world.positions[who];
        let Some(reach) = r.reach.as_ref().filter(|_| from != to) else {
            self.place(who, to, false);
            return Ok(false);
        };
        let answered = |e: ir::EventId| {
            let slot = r.dispatch.slot(ir::EventRef::Custom(e));
            self.tables.answerable.get(slot).copied().unwrap_or(u8::MAX) != 0 || !self.pending.readied.is_empty()
        };
        if ![reach.enter, reach.leave, reach.move_in].into_iter().any(answered) {
            self.place(who, to, false);
            return Ok(false);
        }
        let dir = (to - from).signum();
        // Steps are counted from `from`: the mover stands at `from + dir * k` after k steps.
        let steps = (to - from).abs();
        let mut stops: Vec<(i64, u8, usize, ir::EventId)> = Vec::new();
        let outer = self.under(reach.loc);
        for o in 0..self.world.n {
            if o == who || !self.world.present[o] || !self.world.standing(o) {
                continue;
            }
            let range = self.eval(&reach.range, &Ctx::of(o))?;
            if range < 0 {
                continue;
            }
            let at = self.world.positions[o];
            // The places within reach are [at - range, at + range]; as steps from `from`:
            let (lo, hi) = {
                let (a, b) = ((at - range - from) * dir, (at + range - from) * dir);
                (a.min(b), a.max(b))
            };
            // Within reach after k steps: lo <= k <= hi. Each event once per move and participant.
            if lo <= 0 && hi >= 0 && hi < steps {
                stops.push((hi, 1, o, reach.leave));
            } else if lo > 0 && lo <= steps {
                stops.push((lo, 0, o, reach.enter));
                if hi < steps {
                    stops.push((hi, 1, o, reach.leave));
                }
            }
            // The first step taken from a place within reach.
            let first = lo.max(0);
            if first <= hi && first < steps {
                stops.push((first, 2, o, reach.move_in));
            }
        }
        self.rule = outer;
        // The way is cut only where someone could answer (an ally's reach, say, is no stop).
        stops.retain(|&(_, _, o, event)| self.could_answer(event, who, o));
        // Where they happen along the way; arriving before leaving; then initiative order.
        let mut order = Vec::new();
        let mut seen = Vec::new();
        self.world.in_order(&mut order, &mut seen);
        let rank = |o: usize| order.iter().position(|x| *x == o).unwrap_or(usize::MAX);
        stops.sort_by_key(|&(k, kind, o, _)| (k, kind, rank(o)));
        for (k, _, o, event) in stops {
            let here = from + dir * k;
            if self.world.positions[who] != here {
                self.place(who, here, false);
            }
            let info = EventInfo { action: None, custom: Some(event), emitter: c.acting, amount: None };
            let name = self.names.event[event.index()].clone();
            let saved = std::mem::replace(&mut self.pending.cancelled, false);
            self.answer(info, who, Some(o), true, &name)?;
            if std::mem::replace(&mut self.pending.cancelled, saved) {
                return Ok(true);
            }
            self.answer(info, who, Some(o), false, &name)?;
            let moved = self.world.positions[who] != here;
            if moved
                || !self.world.standing(who)
                || self.world.held.movement_blocked(who).is_some()
                || self.clock.ended.is_some()
            {
                return Ok(false);
            }
        }
        self.place(who, to, false);
        Ok(false)
    }

    /// Where `move N` would take `who`: toward `target` or the nearest standing enemy, stopping
    /// next to it (in its zone with zones); `None` when there is nobody to move toward.
    pub(super) fn toward(&self, who: usize, target: Option<usize>, n: i64, ground: Option<Ground>) -> Option<i64> {
        let goal = target.or_else(|| self.world.nearest_enemy(who))?;
        let closest = if matches!(self.r.space, ir::Space::Zones(_)) { 0 } else { 1 };
        let gap = self.world.positions[goal] - self.world.positions[who];
        Some(self.world.walk(self.r, who, gap.signum(), (gap.abs() - closest).max(0), n, None, ground))
    }

    /// Voluntary movement away from `target`, or from the nearest standing enemy.
    /// Whether anything could answer `event` done by `actor` to `victim`, by who may answer it
    /// (a reaction's, trigger's or gain's `by` and `against`), or a readied action waiting for it.
    fn could_answer(&self, event: ir::EventId, actor: usize, victim: usize) -> bool {
        let r = self.r;
        let info = EventInfo { action: None, custom: Some(event), emitter: None, amount: None };
        let anyone =
            |on: &ir::EventPattern| (0..self.world.n).any(|w| self.world.may_answer(w, actor, Some(victim), on));
        let answers = r.dispatch.responders(ir::EventRef::Custom(event)).iter().any(|&responder| match responder {
            ir::Responder::Trigger(t) => r.triggers.get(t.index()).is_some_and(|t| anyone(&t.on)),
            ir::Responder::Gain(p, g) => {
                r.pools.get(p.index()).and_then(|p| p.gains.get(g as usize)).is_some_and(|g| anyone(&g.on))
            }
            ir::Responder::Reaction(a) => r.actions.get(a.index()).and_then(|a| a.on.as_ref()).is_some_and(anyone),
        });
        answers || self.pending.readied.iter().any(|x| x.who != actor && info.is(r, x.on))
    }

    /// Where `move away N` would take `who`; `None` when there is nobody to move away from.
    pub(super) fn away(&self, who: usize, target: Option<usize>, n: i64, ground: Option<Ground>) -> Option<i64> {
        let from = target.filter(|t| *t != who).or_else(|| self.world.nearest_enemy(who))?;
        // Sharing a place, one steps back toward lower positions (the table's convention).
        let dir = if self.world.positions[who] > self.world.positions[from] { 1 } else { -1 };
        Some(self.world.walk(self.r, who, dir, n, n, None, ground))
    }

    /// The object of `kind` nearest `who` within `reach` (ties: the first in the scenario):
    /// lying only (`lying`), or lying or held by others (as one takes hold of it with them).
    /// One `who` holds already is not found.
    fn nearest_object(&self, kind: ir::ObjectId, who: usize, reach: i64, lying: bool) -> Option<usize> {
        let here = self.world.positions[who];
        (0..self.world.objects.len())
            .filter(|&o| {
                let obj = &self.world.objects[o];
                obj.kind == kind && !obj.holders.contains(&who) && (obj.holders.is_empty() || !lying)
            })
            .map(|o| (o, (self.world.object_place(o) - here).abs()))
            .filter(|&(_, d)| d <= reach)
            .min_by_key(|&(o, d)| (d, o))
            .map(|(o, _)| o)
    }

    /// Where an object `w` lets go of comes to lie: `n` places from `w` toward the rule's owner
    /// (`toward`) or away from them; when `w` is the owner, from their target or nearest enemy.
    /// It lies on the farthest open place (nobody standing there) that far or nearer, else at
    /// `w`'s own place.
    fn landing(&self, w: usize, c: &Ctx, toward: bool, n: i64) -> i64 {
        let here = self.world.positions[w];
        if n == 0 {
            return here;
        }
        let other = if w != c.owner {
            Some(c.owner)
        } else {
            c.target.filter(|t| *t != w).or_else(|| self.world.nearest_enemy(w))
        };
        let Some(other) = other else { return here };
        let there = self.world.positions[other];
        let to_other = if there >= here { 1 } else { -1 };
        let dir = if toward { to_other } else { -to_other };
        let open = |at: i64| {
            (0..self.world.n)
                .all(|o| !(self.world.present[o] && self.world.standing(o) && self.world.positions[o] == at))
        };
        // Each step back passes a place someone holds: at most one step a participant.
        let room = if dir > 0 { MAX_POSITION - here } else { here + MAX_POSITION };
        let mut k = n.min(room.max(0));
        while k > 0 && !open(here + dir * k) {
            k -= 1;
        }
        here + dir * k
    }

    fn take_hold(&mut self, o: usize, who: usize) {
        if self.world.objects[o].holders.contains(&who) {
            return;
        }
        self.world.objects[o].holders.push(who);
        self.changes += 1;
        let (object, name) = (self.world.objects[o].name.clone(), self.names.who[who].clone());
        self.emit(Event::Object { object, who: name, holds: true, at: None });
    }

    /// Records `who` letting go of object `o`; `lies`: where it now lies, if nobody holds it.
    fn let_go(&mut self, o: usize, who: usize, lies: Option<i64>) {
        self.changes += 1;
        let (object, name) = (self.world.objects[o].name.clone(), self.names.who[who].clone());
        self.emit(Event::Object { object, who: name, holds: false, at: lies });
    }

    /// A position as `place` would hold it: inside the zone list, or within the edge.
    pub(super) fn bounded(&self, to: i64) -> i64 {
        match &self.r.space {
            ir::Space::Zones(zones) => to.clamp(0, zones.len().saturating_sub(1) as i64),
            _ => to.clamp(-MAX_POSITION, MAX_POSITION),
        }
    }

    /// Moves a participant (kept inside the zone list when space is zones) and records it.
    fn place(&mut self, who: usize, to: i64, forced: bool) {
        let to = self.bounded(to);
        let from = self.world.positions[who];
        if from == to {
            return;
        }
        self.world.place(who, to);
        self.changes += 1;
        let name = self.names.who[who].clone();
        self.emit(Event::Move { who: name, from, to, forced });
    }

    fn check(
        &mut self,
        roll: &ir::Expr,
        against: &ir::Expr,
        o: &'r ir::Outcomes,
        c: &Ctx,
        cause: &Cause,
    ) -> Result<bool, RunError> {
        let mut modifier = 0i64;
        let mut edge = 0i32;
        let r = self.r;
        // A modifier scoped to some actions (`on reaction`) reaches the checks of those alone.
        let reaches = |on: Option<ir::EventRef>| match on {
            None => true,
            Some(on) => c.acting.is_some_and(|a| super::ctx::EventInfo::action(a).is(r, on)),
        };
        for cond in 0..self.r.conditions.len() {
            let id = ir::ConditionId(cond as u32);
            if !self.world.held.has(c.owner, id) {
                continue;
            }
            let def = &self.r.conditions[cond];
            if let (Some(m), true) = (&def.check_modifier, reaches(def.check_modifier_on)) {
                modifier = modifier.saturating_add(self.eval(m, c)?);
            }
            if !reaches(def.check_edge_on) {
                continue;
            }
            match def.check_edge {
                Some(ir::Edge::Advantage) => edge += 1,
                Some(ir::Edge::Disadvantage) => edge -= 1,
                None => {}
            }
        }
        // What the target's conditions do to checks made against it (`modify checks against
        // self`), read as the target's.
        if let Some(t) = c.target.filter(|t| *t != c.owner) {
            let as_target = Ctx { owner: t, target: Some(c.owner), ..*c };
            for cond in 0..self.r.conditions.len() {
                let id = ir::ConditionId(cond as u32);
                if !self.world.held.has(t, id) {
                    continue;
                }
                let def = &self.r.conditions[cond];
                if let (Some(m), true) = (&def.against_modifier, reaches(def.against_modifier_on)) {
                    modifier = modifier.saturating_add(self.eval(m, &as_target)?);
                }
                if !reaches(def.against_edge_on) {
                    continue;
                }
                match def.against_edge {
                    Some(ir::Edge::Advantage) => edge += 1,
                    Some(ir::Edge::Disadvantage) => edge -= 1,
                    None => {}
                }
            }
        }
        let mut first = None;
        let mut total = self.eval_with_first(roll, c, &mut first)?;
        if edge != 0 {
            let mut again = None;
            let second = self.eval_with_first(roll, c, &mut again)?;
            if (edge > 0) == (second > total) {
                total = second;
                first = again;
            }
        }
        let total = total.saturating_add(modifier);
        if let Some(g) = &o.graded {
            return self.graded_check(total, first, against, g, c, cause);
        }
        let target = self.eval(against, c)?;
        let critical = first.is_some_and(|(face, sides)| face == i64::from(sides) && sides > 1);
        let fumble = first.is_some_and(|(face, sides)| face == 1 && sides > 1);
        let success = total >= target;
        let (outcome, effects): (usize, &[Effect]) = match (success, critical, fumble) {
            (true, true, _) if o.critical.is_some() => (2, o.critical.as_deref().unwrap_or(&[])),
            (true, _, _) => (0, &o.success),
            (false, _, true) if o.fumble.is_some() => (3, o.fumble.as_deref().unwrap_or(&[])),
            (false, _, _) => (1, &o.failure),
        };
        let who = self.names.who[c.owner].clone();
        let outcome_name = self.names.outcome[outcome].clone();
        let seq = self.emit(Event::Check { who, roll: total, against: target, outcome: outcome_name, opposed: None });
        self.world.last_check[c.owner] = LastCheck { total, critical: outcome == 2, level: None };
        let outer = self.caused_by(seq);
        let halted = self.run_flow(effects, c, cause);
        self.because = outer;
        halted
    }

    /// A check read by declared degrees: its level, and in a contest the other roll's, decide
    /// which block runs.
    fn graded_check(
        &mut self,
        total: i64,
        first: Option<(i64, u32)>,
        against: &ir::Expr,
        g: &'r ir::Graded,
        c: &Ctx,
        cause: &Cause,
    ) -> Result<bool, RunError> {
        let r = self.r;
        let Some(degrees) = r.degrees.get(g.degrees.index()) else {
            return Err(RunError::Rule(format!(
                "a check names degrees #{} that the ruleset does not have",
                g.degrees.0
            )));
        };
        let natural = first.map_or(0, |(face, _)| face);
        // The other side first: a contest's margin is the difference of the two totals.
        let (theirs, their_level) = match g.contest {
            ir::Contest::Value => (self.eval(against, c)?, None),
            ir::Contest::Roll => {
                let mut their_first = None;
                let t = self.eval_with_first(against, c, &mut their_first)?;
                let n = their_first.map_or(0, |(face, _)| face);
                let level = self.level(degrees, [t, n, t.saturating_sub(n), t.saturating_sub(total)], c)?;
                (t, Some(level))
            }
            ir::Contest::LastCheck(w) => {
                let last = self.world.last_check[c.who(w)?];
                let level = match last.level {
                    Some((d, level)) if d == g.degrees => Some(level as usize),
                    _ => None,
                };
                (last.total, level)
            }
        };
        let mine =
            self.level(degrees, [total, natural, total.saturating_sub(natural), total.saturating_sub(theirs)], c)?;
        let mine = self.shifted(mine, &g.shifts, degrees.levels.len(), c)?;
        let their_level = match their_level {
            Some(l) => Some(self.shifted(l, &g.opponent, degrees.levels.len(), c)?),
            None => None,
        };
        let succeeded = |l: usize| degrees.levels.get(l).is_some_and(|x| x.success);
        // A contest is won by the better level, then the higher total; a tie goes to the checker.
        // Without a level on the other side (an ungraded last check), totals alone decide.
        let wins = match (g.contest, their_level) {
            (ir::Contest::Value, _) => true,
            (_, Some(l)) => mine < l || (mine == l && total >= theirs),
            (_, None) => total >= theirs,
        };
        let outcome = match wins || !succeeded(mine) {
            true => mine,
            // Beaten: the best failure level.
            false => degrees.levels.iter().position(|l| !l.success).unwrap_or(mine),
        };
        let block = g.runs.get(outcome).copied().flatten().and_then(|b| g.blocks.get(b as usize));
        let effects: &[Effect] = block.map_or(&[], Vec::as_slice);
        let who = self.names.who[c.owner].clone();
        let names = &self.names.levels[g.degrees.index()];
        let outcome_name = names.get(outcome).cloned().unwrap_or_default();
        let opposed =
            their_level.filter(|_| g.contest != ir::Contest::Value).map(|l| names.get(l).cloned().unwrap_or_default());
        let seq = self.emit(Event::Check { who, roll: total, against: theirs, outcome: outcome_name, opposed });
        self.world.last_check[c.owner] =
            LastCheck { total, critical: outcome == 0, level: Some((g.degrees, mine as u32)) };
        let outer = self.caused_by(seq);
        let halted = self.run_flow(effects, c, cause);
        self.because = outer;
        halted
    }

    /// The first level whose `when` holds for a roll's facts (total, natural, modifier,
    /// margin), then the degrees' own shifts.
    fn level(&mut self, d: &ir::Degrees, facts: [i64; 4], c: &Ctx) -> Result<usize, RunError> {
        let outer = std::mem::replace(&mut self.facts, facts);
        let mut at = d.levels.len().saturating_sub(1);
        for (i, level) in d.levels.iter().enumerate() {
            let reached = match &level.when {
                None => true,
                Some(w) => self.eval(w, c)? != 0,
            };
            if reached {
                at = i;
                break;
            }
        }
        let at = self.shifted(at, &d.shifts, d.levels.len(), c);
        self.facts = outer;
        at
    }

    /// A level moved one step up (toward 0, the best) or down per shift whose `when` holds.
    fn shifted(&mut self, mut at: usize, shifts: &[ir::LevelShift], n: usize, c: &Ctx) -> Result<usize, RunError> {
        for s in shifts {
            if self.eval(&s.when, c)? != 0 {
                at = match s.up {
                    true => at.saturating_sub(1),
                    false => (at + 1).min(n.saturating_sub(1)),
                };
            }
        }
        Ok(at)
    }

    /// Pool steps (refresh, lose, decay, convert, gain) of one participant at a timing.
    pub fn pool_steps(&mut self, who: usize, timing: Timing) -> Result<(), RunError> {
        let r = self.r;
        for (p, pool) in r.pools.iter().enumerate() {
            let id = ir::PoolId(p as u32);
            for (s, step) in pool.at.iter().enumerate() {
                if step.timing != timing {
                    continue;
                }
                let c = Ctx { owner: who, ..Ctx::default() };
                // A step's work, its guard's dice included, is its own rule's; a failure ends the
                // run, so the rule under way is restored only on success (`reset` clears it).
                let outer = self.under(step.loc);
                if let Some(g) = &step.guard {
                    if self.eval(g, &c)? == 0 {
                        self.rule = outer;
                        continue;
                    }
                }
                self.step()?;
                let cause = Cause::Step { op: op_word(&step.op), timing: self.names.timing(timing) };
                let now = self.world.pool(who, id);
                let floor = self.pool_min(who, id)?.max(0).min(now.max(self.pool_min(who, id)?));
                match &step.op {
                    // A meter is emptied, not filled.
                    ir::PoolOp::Refresh if pool.rising => {
                        let min = self.pool_min(who, id)?;
                        self.set_pool(who, id, min, &cause)?;
                    }
                    ir::PoolOp::Refresh => {
                        let max = self.pool_max(who, id)?.unwrap_or(now);
                        // Nothing could be spent before the encounter started.
                        if timing != Timing::EncounterStart {
                            self.tell(Fact::Lost { who, pool: p, amount: now.max(0) });
                        }
                        self.set_pool(who, id, max, &cause)?;
                    }
                    ir::PoolOp::Keep => {}
                    ir::PoolOp::Lose => {
                        self.tell(Fact::Lost { who, pool: p, amount: now.saturating_sub(floor.min(now)) });
                        self.set_pool(who, id, floor.min(now), &cause)?;
                    }
                    ir::PoolOp::Decay(e) => {
                        let n = self.eval(e, &c)?;
                        let next = now.saturating_sub(n).max(floor.min(now));
                        self.tell(Fact::Lost { who, pool: p, amount: now.saturating_sub(next) });
                        self.set_pool(who, id, next, &cause)?;
                    }
                    ir::PoolOp::Convert(into) => {
                        if now > 0 {
                            let there = self.world.pool(who, *into);
                            self.set_pool(who, *into, there.saturating_add(now), &cause)?;
                            self.set_pool(who, id, 0, &cause)?;
                        }
                    }
                    ir::PoolOp::Gain { amount, cap } => {
                        let mut n = self.eval(amount, &c)?;
                        if let Some((cap, per)) = cap {
                            let cap = self.eval(cap, &c)?;
                            let key = usize::MAX - s;
                            n = n.min(cap - self.ledger.gained_this(who, id, key, *per, self.clock.round)).max(0);
                            self.ledger.note_gain(who, id, key, n, self.clock.round);
                        }
                        let max = self.pool_max(who, id)?;
                        let next = max.map_or(now.saturating_add(n), |m| now.saturating_add(n).min(m.max(now)));
                        self.set_pool(who, id, next, &cause)?;
                    }
                }
                self.rule = outer;
            }
        }
        Ok(())
    }

    /// Thresholds of every pool that changed, in `state_order` then declaration order; condition
    /// changes they cause wait until all pools are done (Frontiers, "Multiple State Changes").
    /// Each pool of `state_order` also sees, in the same round, the changes the thresholds of
    /// the pools before it made (HP's Wound at 0 HP); what thresholds change otherwise is
    /// settled the same way in the next round, after the condition changes.
    pub fn settle(&mut self) -> Result<(), RunError> {
        self.flush()?;
        // Changes made outside a rule's effects (costs, pool steps): their `immediately`
        // thresholds now, before the others.
        if !self.pending.immediate.is_empty() {
            self.immediately()?;
        }
        let was = std::mem::replace(&mut self.pending.staging, false);
        let done = self.settle_rounds();
        self.pending.staging = was;
        done?;
        self.expire_while()?;
        if !self.pending.ongoing.is_empty() {
            self.interrupt_ongoing()?;
        }
        Ok(())
    }

    fn settle_rounds(&mut self) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.r;
        let ordered = r.state_order.len();
        let rank = |p: ir::PoolId| r.state_order.iter().position(|x| *x == p).unwrap_or(ordered + p.index());
        let mut rounds = 0;
        while !self.pending.changed.is_empty() || !self.pending.conditions.is_empty() {
            rounds += 1;
            if rounds > 64 {
                return Err(RunError::Cycle(vec!["pool thresholds that keep changing each other".into()]));
            }
            // Work on this batch while effects collect the next one in `pending`; both buffers
            // are kept for the next settle. Condition changes a flush held come first.
            let mut batch = std::mem::take(&mut self.scratch.settling);
            std::mem::swap(&mut batch, &mut self.pending.changed);
            batch.sort_by_key(|(who, p, _, _)| (rank(*p), *who));
            let mut deferred = std::mem::take(&mut self.pending.conditions);
            let rest = self.ordered_pass(&batch, &[], &mut deferred)?;
            for (i, &(who, p, old, seq)) in batch.iter().enumerate().skip(rest) {
                self.thresholds(who, p, old, seq, step_end(&batch, i), &mut deferred)?;
            }
            for &(who, e, rule, seq) in &deferred {
                let c = Ctx { owner: who, ..Ctx::default() };
                let outer = self.caused_by(seq);
                self.run_effects(std::slice::from_ref(e), &c, &Cause::Static("threshold"), rule)?;
                self.because = outer;
            }
            batch.clear();
            deferred.clear();
            // Held meanwhile by a flush nested in the effects above: the next round's.
            deferred.append(&mut self.pending.conditions);
            self.scratch.settling = batch;
            self.pending.conditions = deferred;
        }
        Ok(())
    }

    /// The pools of `state_order`, each in turn: the held changes made to it (`staged`, in the
    /// order they were made), then its thresholds, for its changes in `batch` (sorted by rank)
    /// and those made since (the held ones, those of the thresholds of the pools before it).
    /// Condition changes go to `deferred`. Returns where `batch` goes on past these pools.
    fn ordered_pass(
        &mut self,
        batch: &[Change],
        staged: &[Staged],
        deferred: &mut Vec<HeldChange<'r>>,
    ) -> Result<usize, RunError> {
        let r: &'r ir::Ruleset = self.r;
        let mut next = 0;
        let mut at_rank = std::mem::take(&mut self.scratch.at_rank);
        for (k, &p) in r.state_order.iter().enumerate() {
            if r.state_order[..k].contains(&p) {
                continue; // named twice: its place is the first
            }
            for s in staged.iter().filter(|s| s.pool == p) {
                let value = assign(self.world.pool(s.who, p), s.op, s.value);
                let outer = std::mem::replace(&mut self.rule, s.rule);
                let done = self.set_pool(s.who, p, value, &s.cause);
                self.rule = outer;
                done?;
            }
            at_rank.clear();
            let start = next;
            while next < batch.len() && batch[next].1 == p {
                next += 1;
            }
            at_rank.extend_from_slice(&batch[start..next]);
            // Changes made since the batch was taken are rare (a threshold's own): the common
            // pass over `state_order` calls neither `retain` nor the sort for nothing.
            if !self.pending.changed.is_empty() {
                self.pending.changed.retain(|&change| {
                    let here = change.1 == p;
                    if here {
                        at_rank.push(change);
                    }
                    !here
                });
            }
            if at_rank.len() > 1 {
                at_rank.sort_by_key(|(who, _, _, _)| *who);
            }
            for (i, &(who, p, old, seq)) in at_rank.iter().enumerate() {
                self.thresholds(who, p, old, seq, step_end(&at_rank, i), deferred)?;
            }
        }
        at_rank.clear();
        self.scratch.at_rank = at_rank;
        Ok(next)
    }

    /// The thresholds of `p` that its change from `old` to `to` (the pool's value now when
    /// `None`) crossed into: their effects run, their condition changes wait in `deferred`.
    /// `seq` is the change's `pool` event, the cause of what they do.
    fn thresholds(
        &mut self,
        who: usize,
        p: ir::PoolId,
        old: i64,
        seq: Option<u64>,
        to: Option<i64>,
        deferred: &mut Vec<HeldChange<'r>>,
    ) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.r;
        let now = to.unwrap_or_else(|| self.world.pool(who, p));
        for t in r.pools[p.index()].thresholds.iter().filter(|t| !t.immediately) {
            let c = Ctx { owner: who, ..Ctx::default() };
            let value = self.eval(&t.value, &c)?;
            let inside = |v: i64| t.op.holds(v, value);
            if inside(now) && !inside(old) {
                let cause = Cause::Threshold { pool: self.names.pool[p.index()].clone(), op: t.op.symbol(), value };
                let outer = self.under(t.loc);
                let because = self.caused_by(seq);
                let done = self.threshold_effects(&t.effects, who, &cause, t.loc, seq, deferred);
                self.rule = outer;
                self.because = because;
                done?;
            }
        }
        Ok(())
    }

    /// Runs threshold effects, but holds back condition changes (deeply, inside `if`s).
    fn threshold_effects(
        &mut self,
        effects: &'r [Effect],
        who: usize,
        cause: &Cause,
        rule: ir::Loc,
        seq: Option<u64>,
        deferred: &mut Vec<HeldChange<'r>>,
    ) -> Result<(), RunError> {
        let c = Ctx { owner: who, ..Ctx::default() };
        for e in effects {
            match e {
                Effect::Apply { .. } | Effect::Remove { .. } => deferred.push((who, e, rule, seq)),
                Effect::If { cond, then, otherwise } => {
                    let branch = if self.eval(cond, &c)? != 0 { then } else { otherwise };
                    self.threshold_effects(branch, who, cause, rule, seq, deferred)?;
                }
                other => {
                    self.step()?;
                    self.effect(other, &c, cause)?;
                    // A threshold targets nobody: a redirect of its event has nothing to turn.
                    self.pending.retarget = None;
                }
            }
        }
        Ok(())
    }

    /// Conditions held `while` something holds end when it stops holding.
    pub fn expire_while(&mut self) -> Result<(), RunError> {
        if !self.world.held.any_whiles(None) {
            return Ok(());
        }
        for who in 0..self.world.n {
            if !self.world.held.any_whiles(Some(who)) {
                continue;
            }
            for cond in 0..self.r.conditions.len() {
                let id = ir::ConditionId(cond as u32);
                let Some((e, source)) = self.world.held.get(who, id).and_then(|h| Some((h.while_?, h.source))) else {
                    continue;
                };
                if self.eval(e, &Ctx { owner: who, source, ..Ctx::default() })? == 0 {
                    self.remove(who, id);
                }
            }
        }
        Ok(())
    }
}

/// `now` changed by `op` with `v`.
fn assign(now: i64, op: AssignOp, v: i64) -> i64 {
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

fn op_word(op: &ir::PoolOp) -> &'static str {
    match op {
        ir::PoolOp::Refresh => "refresh",
        ir::PoolOp::Keep => "keep",
        ir::PoolOp::Lose => "lose",
        ir::PoolOp::Decay(_) => "decay",
        ir::PoolOp::Convert(_) => "convert",
        ir::PoolOp::Gain { .. } => "gain",
    }
}

/// Whether an action is movement: its own effects (not a branch of a check or a choice) move
/// the actor. A move inside a branch is still stopped when it happens, by the effect itself.
pub fn moves(effects: &[Effect]) -> bool {
    effects.iter().any(|e| {
        matches!(e, Effect::Move(_) | Effect::MoveAway(_) | Effect::MoveThrough(_) | Effect::MoveLeaping { .. })
    })
}

/// Where the change at `i` of a list of changes (who, pool, value before) ended: at the value
/// before the next change to the same pool of the same participant, if one follows in the list
/// (the list keeps the order they were made in), else `None` (the pool's value now). So several
/// changes to one pool between two looks are each one step, and a threshold is crossed once per
/// step that enters it: `hp -= 2; hp -= 1` from 3 enters `hp <= 0` once; a refresh to 5 then a
/// drain to 0 leaves it and enters it again.
fn step_end(changes: &[Change], i: usize) -> Option<i64> {
    let (who, p, _, _) = changes[i];
    changes.get(i + 1).filter(|(w, q, _, _)| *w == who && *q == p).map(|(_, _, before, _)| *before)
}
