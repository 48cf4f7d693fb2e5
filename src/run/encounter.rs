//! The encounter: initiative, rounds of phases, turns, timings, the end, and downtime after.

use super::clock::TURN_KINDS;
use super::controller::{Chosen, Decision};
use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::pending::Ongoing;
use super::sink::{Fact, Sink};
use super::trace::{Cause, Event, FinalState, Name, OrderEntry};
use crate::ir::{self, ActionKind, PhaseKind, Timing, TurnStep};
use rand_core::RngCore;
use std::collections::BTreeMap;

impl<'r, S: Sink> Engine<'r, S> {
    /// Makes initiative: values, adjustments, order and ties; emits `initiative`.
    pub fn make_initiative(&mut self) -> Result<(), RunError> {
        let r = self.r;
        let init = &r.initiative;
        // Its rolls and the GM's choices on ties are the initiative's.
        let outer = self.under(init.loc);
        let first_time = self.world.order().is_empty();
        self.world.following.iter_mut().for_each(|f| *f = false);
        for who in 0..self.world.n {
            if !self.world.present[who] {
                continue;
            }
            let c = Ctx { owner: who, ..Ctx::default() };
            let mut v = self.eval(&init.value, &c)?;
            if let (Some(adjust), true) = (&init.adjust, first_time) {
                let max = self.eval(adjust, &c)?;
                v = v.saturating_add(self.ask_adjust(who, max));
            }
            if let Some((lo, hi)) = &init.range {
                let (lo, hi) = (self.eval(lo, &c)?, self.eval(hi, &c)?);
                v = v.clamp(lo.min(hi), hi.max(lo));
            }
            self.world.initiative[who] = v;
        }
        let done = self.order_by_initiative();
        self.rule = outer;
        done
    }

    /// Orders participants by the current values and tie-breaks; emits `initiative`.
    pub fn order_by_initiative(&mut self) -> Result<(), RunError> {
        let r = self.r;
        let init = &r.initiative;
        let present: Vec<usize> = (0..self.world.n).filter(|w| self.world.present[*w]).collect();
        let mut groups: Vec<Vec<usize>> = match init.order {
            ir::Order::Table => present.iter().map(|w| vec![*w]).collect(),
            ir::Order::BySide => {
                let mut sides: Vec<u32> = Vec::new();
                let player_sides = present.iter().filter(|w| self.world.players[**w]).map(|w| self.world.sides[*w]);
                for s in player_sides.chain(present.iter().map(|w| self.world.sides[*w])) {
                    if !sides.contains(&s) {
                        sides.push(s);
                    }
                }
                sides
                    .iter()
                    .flat_map(|s| present.iter().filter(|w| self.world.sides[**w] == *s).map(|w| vec![*w]))
                    .collect()
            }
            ir::Order::HighestFirst | ir::Order::LowestFirst | ir::Order::Alternating => {
                let mut sorted = present.clone();
                let high = init.order != ir::Order::LowestFirst;
                // Doubled, so a follower sorts half a step ahead of the others at its value.
                let keys: Vec<i64> = (0..self.world.n)
                    .map(|w| {
                        let v = self.world.initiative[w].saturating_mul(2);
                        let v = if high { v.saturating_neg() } else { v };
                        v.saturating_sub(i64::from(self.world.following[w]))
                    })
                    .collect();
                let key = |w: usize| keys[w];
                sorted.sort_by_key(|w| key(*w));
                // Break ties: walk runs of equal values through the tie-breaks in order.
                let mut out: Vec<Vec<usize>> = Vec::new();
                let mut i = 0;
                while i < sorted.len() {
                    let mut j = i;
                    while j < sorted.len() && key(sorted[j]) == key(sorted[i]) {
                        j += 1;
                    }
                    let tied: Vec<usize> = sorted[i..j].to_vec();
                    out.extend(self.break_ties(vec![tied], 0)?);
                    i = j;
                }
                out
            }
        };
        groups.retain(|g| !g.is_empty());
        if init.order == ir::Order::Alternating {
            groups = self.alternate(groups);
        }
        *self.world.order_mut() = groups;
        self.world.ordered_values = self.world.initiative.clone();
        self.emit_order();
        Ok(())
    }

    /// `order alternating`: the groups, best first, dealt out one per side in turn (a group
    /// goes with the side of its first member), the sides in the order their best comes.
    fn alternate(&self, groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
        let side = |g: &Vec<usize>| g.first().map(|w| self.world.sides[*w]);
        let mut sides: Vec<Option<u32>> = Vec::new();
        for g in &groups {
            if !sides.contains(&side(g)) {
                sides.push(side(g));
            }
        }
        let mut queues: Vec<std::collections::VecDeque<Vec<usize>>> = vec![Default::default(); sides.len()];
        for g in groups {
            if let Some(i) = sides.iter().position(|s| *s == side(&g)) {
                queues[i].push_back(g);
            }
        }
        let mut out = Vec::new();
        while queues.iter().any(|q| !q.is_empty()) {
            for q in &mut queues {
                if let Some(g) = q.pop_front() {
                    out.push(g);
                }
            }
        }
        out
    }

    /// Splits tied groups with the tie-breaks from index `k` on; unbroken ties act in the
    /// scenario's order, except `simultaneous`, which keeps them together.
    fn break_ties(&mut self, groups: Vec<Vec<usize>>, k: usize) -> Result<Vec<Vec<usize>>, RunError> {
        let r = self.r;
        let mut out = Vec::new();
        for group in groups {
            if group.len() < 2 {
                out.push(group);
                continue;
            }
            let Some(tie) = r.initiative.ties.get(k) else {
                out.extend(group.into_iter().map(|w| vec![w]));
                continue;
            };
            let keyed: Vec<(i64, usize)> = match tie {
                ir::TieBreak::Simultaneous => {
                    // The rest of the tie-breaks order the group's members; it stays one group.
                    let ordered = self.break_ties(vec![group], k + 1)?;
                    out.push(ordered.concat());
                    continue;
                }
                ir::TieBreak::RollUntilDifferent(e) => {
                    let rolled = self.roll_off(group, e, 0)?;
                    out.extend(self.break_ties(rolled, k + 1)?);
                    continue;
                }
                ir::TieBreak::Higher(e) | ir::TieBreak::Roll(e) => {
                    let mut v = Vec::new();
                    for &w in &group {
                        v.push((-self.eval(e, &Ctx { owner: w, ..Ctx::default() })?, w));
                    }
                    v
                }
                ir::TieBreak::PlayersFirst => group.iter().map(|w| (i64::from(!self.world.players[*w]), *w)).collect(),
                ir::TieBreak::NonPlayersFirst => {
                    group.iter().map(|w| (i64::from(self.world.players[*w]), *w)).collect()
                }
                ir::TieBreak::Table => group.iter().map(|w| (*w as i64, *w)).collect(),
                ir::TieBreak::Gm => {
                    let mut order = group.clone();
                    if self.tables.gm == super::scenario::Policy::Random {
                        for i in (1..order.len()).rev() {
                            let j = (self.rng.next_u64() % (i as u64 + 1)) as usize;
                            order.swap(i, j);
                        }
                    }
                    let names: Vec<&str> = order.iter().map(|w| &*self.names.who[*w]).collect();
                    self.emit(Event::Choice {
                        who: "GM".into(),
                        question: "tie in initiative".into(),
                        answer: Name::from(names.join(", ")),
                    });
                    order.into_iter().enumerate().map(|(i, w)| (i as i64, w)).collect()
                }
            };
            let mut keyed = keyed;
            keyed.sort_by_key(|(key, w)| (*key, *w));
            let mut sub: Vec<Vec<usize>> = Vec::new();
            let mut last: Option<i64> = None;
            for (key, w) in keyed {
                if last == Some(key) {
                    if let Some(g) = sub.last_mut() {
                        g.push(w);
                    }
                } else {
                    sub.push(vec![w]);
                }
                last = Some(key);
            }
            out.extend(self.break_ties(sub, k + 1)?);
        }
        Ok(out)
    }

    /// Everything that happens at a timing for one participant: pool steps, condition effects
    /// and expiries, hooks.
    fn at_for(&mut self, who: usize, t: Timing, steps: &[TurnStep]) -> Result<(), RunError> {
        let r = self.r;
        self.budget.fresh();
        let c = Ctx { owner: who, ..Ctx::default() };
        for step in steps {
            match step {
                TurnStep::Pools => self.pool_steps(who, t)?,
                TurnStep::Negative | TurnStep::Positive | TurnStep::Hooks => {
                    let want = match step {
                        TurnStep::Negative => Some(false),
                        TurnStep::Positive => Some(true),
                        _ => None,
                    };
                    let mut next = 0;
                    while let Some(i) = self.world.held.next(who, next) {
                        next = i + 1;
                        let cond = &r.conditions[i];
                        if cond.positive != want {
                            continue;
                        }
                        let source = self.world.held.get(who, ir::ConditionId(i as u32)).and_then(|h| h.source);
                        for (at, effects, loc) in &cond.hooks {
                            if *at == t {
                                let cause = Cause::Named(self.names.condition[i].clone());
                                self.run_effects(effects, &Ctx { source, ..c }, &cause, *loc)?;
                            }
                        }
                    }
                    if *step == TurnStep::Hooks {
                        for hook in &r.hooks {
                            if hook.timing != t {
                                continue;
                            }
                            if let Some(g) = &hook.guard {
                                // Dice its guard rolls are the hook's.
                                let outer = self.under(hook.loc);
                                let holds = self.eval(g, &c)? != 0;
                                self.rule = outer;
                                if !holds {
                                    continue;
                                }
                            }
                            let cause = super::trace::Cause::Hook(self.names.timing(t));
                            self.run_effects(&hook.effects, &c, &cause, hook.loc)?;
                        }
                    }
                }
                TurnStep::Maintain => {
                    let mut next = 0;
                    while let Some(i) = self.world.held.next(who, next) {
                        next = i + 1;
                        let (id, cond) = (ir::ConditionId(i as u32), &r.conditions[i]);
                        for (at, effects, loc) in &cond.maintain {
                            if *at != t {
                                continue;
                            }
                            let saved = std::mem::replace(&mut self.pending.cancelled, false);
                            let cause = Cause::Maintain(self.names.condition[i].clone());
                            let source = self.world.held.get(who, id).and_then(|h| h.source);
                            self.run_effects(effects, &Ctx { source, ..c }, &cause, *loc)?;
                            if std::mem::replace(&mut self.pending.cancelled, saved) {
                                // The upkeep that could not be paid ends it.
                                let outer = self.under(*loc);
                                self.remove(who, id);
                                self.rule = outer;
                            }
                        }
                    }
                }
                TurnStep::Expire => {
                    let mut next = 0;
                    while let Some(i) = self.world.held.next(who, next) {
                        next = i + 1;
                        let id = ir::ConditionId(i as u32);
                        if self.world.held.get(who, id).is_some_and(|h| h.until == Some(t)) {
                            self.remove(who, id);
                        }
                    }
                    if matches!(t, Timing::TurnStart | Timing::TurnEnd) && self.world.held.any_source_timed() {
                        self.expire_by_source(who, t == Timing::TurnEnd);
                    }
                }
            }
        }
        Ok(())
    }

    /// `who`'s turn starts (or ends, `end`): the conditions that last until that, on anyone,
    /// end; those that last until the end of `who`'s next turn count this start.
    fn expire_by_source(&mut self, who: usize, end: bool) {
        for holder in 0..self.world.n {
            let mut next = 0;
            while let Some(i) = self.world.held.next(holder, next) {
                next = i + 1;
                let id = ir::ConditionId(i as u32);
                let Some(h) = self.world.held.get_mut(holder, id) else { continue };
                let Some(turn) = h.until_source.as_mut().filter(|_| h.source == Some(who)) else { continue };
                let ends = match (end, turn.end) {
                    (false, false) => true,
                    (false, true) => {
                        turn.armed = true;
                        false
                    }
                    (true, true) => turn.armed,
                    (true, false) => false,
                };
                if ends {
                    self.remove(holder, id);
                }
            }
        }
    }

    /// A timing for everyone present, in initiative order.
    fn at_all(&mut self, t: Timing) -> Result<(), RunError> {
        let all = [
            TurnStep::Pools,
            TurnStep::Negative,
            TurnStep::Maintain,
            TurnStep::Expire,
            TurnStep::Positive,
            TurnStep::Hooks,
        ];
        let order = self.in_order();
        for &who in &order {
            if self.clock.ended.is_some() && t != Timing::EncounterEnd {
                break;
            }
            self.at_for(who, t, &all)?;
        }
        self.scratch.in_order = order;
        self.settle()
    }

    /// Everyone present in initiative order, in a reused buffer; give it back in
    /// `scratch.in_order` when done.
    fn in_order(&mut self) -> Vec<usize> {
        let mut out = std::mem::take(&mut self.scratch.in_order);
        self.world.in_order(&mut out, &mut self.scratch.seen);
        out
    }

    /// A roll-off among `group`, highest first, rolled again among those still tied until none
    /// is or `MAX_ROLL_OFFS` have been rolled: the groups in order (a group left is still tied).
    fn roll_off(&mut self, group: Vec<usize>, e: &ir::Expr, rolled: u32) -> Result<Vec<Vec<usize>>, RunError> {
        if group.len() < 2 || rolled >= ir::MAX_ROLL_OFFS {
            return Ok(vec![group]);
        }
        let mut keyed = Vec::with_capacity(group.len());
        for &w in &group {
            keyed.push((-self.eval(e, &Ctx { owner: w, ..Ctx::default() })?, w));
        }
        keyed.sort_by_key(|(key, w)| (*key, *w));
        let mut out = Vec::new();
        let mut at = 0;
        while at < keyed.len() {
            let same = keyed[at..].iter().take_while(|(key, _)| *key == keyed[at].0).count();
            let tied: Vec<usize> = keyed[at..at + same].iter().map(|(_, w)| *w).collect();
            out.extend(self.roll_off(tied, e, rolled + 1)?);
            at += same;
        }
        Ok(out)
    }

    /// A scripted delay: `who` steps out of its place at `at` and re-enters right after a
    /// participant still to act this round, keeping that place in later rounds (002). Returns
    /// true when the queue changed.
    fn delay(&mut self, who: usize, queue: &mut Vec<Vec<usize>>, at: usize) -> bool {
        let round = self.clock.round;
        let Some(after) = self.take_step(who, |s| match s {
            super::scenario::Step::Delay { round: r, after } if *r == round => Some(after.clone()),
            _ => None,
        }) else {
            return false;
        };
        let name = self.names.who[who].clone();
        if !self.r.initiative.allow.delay {
            self.not_allowed(who, "delay", "the ruleset does not allow delaying");
            return false;
        }
        let Some(other) = self.names.who.iter().position(|n| **n == *after) else { return false };
        let Some(place) = queue.iter().skip(at + 1).position(|g| g.contains(&other)).map(|p| p + at + 1) else {
            let reason = format!("{after} has already acted this round");
            let event = Event::Rejected { actor: name, action: "delay".into(), code: "not-now", reason: reason.into() };
            self.emit_by(event, Some(self.r.initiative.loc));
            return false;
        };
        queue.remove(at);
        queue.insert(place, vec![who]);
        // Keep the new place for later rounds.
        self.world.order_mut().retain(|g| g.as_slice() != [who]);
        let pos =
            self.world.order().iter().position(|g| g.contains(&other)).map_or(self.world.order().len(), |p| p + 1);
        self.world.order_mut().insert(pos, vec![who]);
        let answer = Name::from(format!("after {after}"));
        let question = self.names.intern("delay");
        self.emit_by(Event::Choice { who: name, question, answer }, Some(self.r.initiative.loc));
        true
    }

    /// A scripted stay, delay or ready the ruleset does not `allow`: a `rejected` event.
    fn not_allowed(&mut self, who: usize, what: &'static str, reason: &'static str) {
        let actor = self.names.who[who].clone();
        let action = self.names.intern(what);
        let event = Event::Rejected { actor, action, code: "not-allowed", reason: reason.into() };
        self.emit_by(event, Some(self.r.initiative.loc));
    }

    /// Scripted stays: a later place chosen once, when the encounter starts, then locked (004).
    fn stays(&mut self) -> Result<(), RunError> {
        let mut moved = false;
        for who in 0..self.world.n {
            let Some(after) = self.take_step(who, |s| match s {
                super::scenario::Step::Stay { after } => Some(after.clone()),
                _ => None,
            }) else {
                continue;
            };
            if !self.r.initiative.allow.stay {
                self.not_allowed(who, "stay", "the ruleset does not allow staying");
                continue;
            }
            let Some(other) = self.names.who.iter().position(|n| **n == *after) else { continue };
            let mine = self.world.order().iter().position(|g| g.contains(&who));
            let theirs = self.world.order().iter().position(|g| g.contains(&other));
            if let (Some(m), Some(t)) = (mine, theirs) {
                // Sharing a tied group with them, one leaves it for the place right after it.
                if t > m || (t == m && other != who) {
                    self.world.order_mut()[m].retain(|w| *w != who);
                    self.world.order_mut().insert(t + 1, vec![who]);
                    self.world.order_mut().retain(|g| !g.is_empty());
                    moved = true;
                }
            }
        }
        if moved {
            self.emit_order();
        }
        Ok(())
    }

    /// Writes the current order to the trace.
    fn emit_order(&mut self) {
        let order: Vec<OrderEntry> = self
            .world
            .order()
            .iter()
            .map(|g| match g.as_slice() {
                [one] => OrderEntry::One(self.names.who[*one].clone()),
                many => OrderEntry::Together(many.iter().map(|w| self.names.who[*w].clone()).collect()),
            })
            .collect();
        let values = (0..self.world.n)
            .filter(|w| self.world.present[*w])
            .map(|w| (self.names.who[w].clone(), self.world.initiative[w]))
            .collect();
        self.emit(Event::Initiative { order, values });
    }

    /// Multi-round actions of `who` are paid again; the last payment resolves them.
    fn continue_ongoing(&mut self, who: usize) -> Result<(), RunError> {
        let mut i = 0;
        while i < self.pending.ongoing.len() {
            if self.pending.ongoing[i].who != who {
                i += 1;
                continue;
            }
            let mut going = self.pending.ongoing.remove(i);
            let action = &self.r.actions[going.action.index()];
            let outer = self.under(action.loc);
            let (actor, name) = (self.names.who[who].clone(), self.names.action[going.action.index()].clone());
            // An interruption that holds now (changed by nothing that settled) loses it before
            // it is paid again.
            if let Some(cut) = &action.interrupted {
                if self.eval(&cut.when, &going.ctx)? != 0 {
                    self.rule = outer;
                    self.lose_ongoing(going, "lost: interrupted")?;
                    continue;
                }
            }
            // Continuing costs what the action costs now; it cannot be paid while blocked.
            let cost = self.cost_of(who, going.action, &going.ctx, None)?;
            let mut paid = self.world.held.blocked(who, action.kind).is_none();
            for (p, amount) in &cost {
                paid &= self.past_bounds(who, p, amount)? == 0 && self.world.held.spend_blocked(who, p).is_none();
            }
            if paid {
                for (p, amount) in &cost {
                    let now = self.world.pool(who, p);
                    let next = self.after_paying(p, now, amount);
                    self.set_pool_raw(who, p, next, &Cause::Continued(name.clone()));
                }
                if self.tables.spend_events {
                    let c = Ctx { owner: who, ..going.ctx };
                    self.spent(&cost, &c)?;
                }
            }
            if !paid {
                self.rule = outer;
                self.lose_ongoing(going, "lost: it could not be paid")?;
                continue;
            }
            going.left -= 1;
            if going.left > 0 {
                self.pending.ongoing.insert(i, going);
                i += 1;
            } else {
                self.emit(Event::Ongoing { actor, action: name.clone(), outcome: "complete" });
                self.run_effects(&action.effects, &going.ctx, &Cause::Named(name), action.loc)?;
                self.settle()?;
            }
            self.rule = outer;
        }
        Ok(())
    }

    /// Multi-round actions under way whose `interrupted when` holds are lost: looked at each
    /// time the run settles.
    pub(super) fn interrupt_ongoing(&mut self) -> Result<(), RunError> {
        let r = self.r;
        let mut i = 0;
        while i < self.pending.ongoing.len() {
            let going = &self.pending.ongoing[i];
            let Some(cut) = &r.actions[going.action.index()].interrupted else {
                i += 1;
                continue;
            };
            let ctx = going.ctx;
            if self.eval(&cut.when, &ctx)? == 0 {
                i += 1;
                continue;
            }
            let going = self.pending.ongoing.remove(i);
            self.lose_ongoing(going, "lost: interrupted")?;
        }
        Ok(())
    }

    /// A multi-round action is lost: said in the trace, then its `interrupted` block runs.
    fn lose_ongoing(&mut self, going: Ongoing, outcome: &'static str) -> Result<(), RunError> {
        let action = &self.r.actions[going.action.index()];
        let (actor, name) = (self.names.who[going.who].clone(), self.names.action[going.action.index()].clone());
        let outer = self.under(action.loc);
        self.emit(Event::Ongoing { actor, action: name.clone(), outcome });
        if let Some(cut) = action.interrupted.as_ref().filter(|c| !c.effects.is_empty()) {
            self.run_effects(&cut.effects, &going.ctx, &Cause::Named(name), cut.loc)?;
            self.settle()?;
        }
        self.rule = outer;
        Ok(())
    }

    /// One participant's turn, or a tied group's acting together: their turns all start, then
    /// each acts in turn, then their turns all end (004: tied participants gain their slots
    /// simultaneously). The surprised have no turn in the surprise round.
    fn turns(&mut self, group: &[usize]) -> Result<(), RunError> {
        let r = self.r;
        let mut members = std::mem::take(&mut self.scratch.members);
        members.clear();
        for &who in group {
            if !self.world.present[who] {
                continue;
            }
            let round = self.clock.round;
            if self
                .take_step(who, |s| matches!(s, super::scenario::Step::Leave { round: r } if *r == round).then_some(()))
                .is_some()
            {
                self.world.set_present(who, false);
                let name = self.names.who[who].clone();
                self.emit(Event::Leave { who: name });
                self.check_end();
                continue;
            }
            if (self.clock.surprise_round && self.world.surprised[who]) || self.pending.holding[who] {
                continue;
            }
            members.push((who, None));
        }
        // What happens in a turn happens because the turn began.
        let outer = self.because;
        for (who, started) in members.iter_mut() {
            let who = *who;
            self.clock.active = Some(who);
            let actor = self.names.who[who].clone();
            *started = self.emit(Event::TurnStart { actor });
            self.because = outer;
            self.caused_by(*started);
            self.clock.turn_over = false;
            self.at_for(who, Timing::TurnStart, &r.turn_start)?;
            self.settle()?;
            self.continue_ongoing(who)?;
            // An `end_turn` reached from the turn start (a drain to 0 slots) ends this turn
            // before it is played; the flag would otherwise be reset for the acting loop.
            self.clock.ended_at_start[who] = self.clock.turn_over;
        }
        for &(who, started) in &members {
            if self.clock.ended.is_some() {
                break;
            }
            self.because = outer;
            self.caused_by(started);
            self.clock.turn_seq += 1;
            self.clock.active = Some(who);
            self.controls[who].taken = 0;
            self.clock.turn_over = self.clock.ended_at_start[who];
            // An incapacitated participant's turn ends at once; start and end still happen.
            let acting = !self.clock.turn_over
                && (self.world.held.blocked(who, ActionKind::Action).is_none()
                    || self.world.held.blocked(who, ActionKind::Free).is_none());
            if acting {
                if let Some(ready) = self.ask_ready(who) {
                    let name = self.names.who[who].clone();
                    if r.initiative.allow.ready {
                        let action = self.names.action[ready.action.index()].clone();
                        let question = self.names.intern("ready");
                        let rule = Some(r.actions[ready.action.index()].loc);
                        self.emit_by(Event::Choice { who: name, question, answer: action }, rule);
                        self.pending.readied.push(ready);
                        self.pending.holding[who] = true;
                    } else {
                        self.not_allowed(who, "ready", "the ruleset does not allow readying");
                    }
                    continue;
                }
            }
            if acting && !self.clock.turn_over && self.telling() && !self.affords_anything(who) {
                self.tell(Fact::Stuck { who });
            }
            while acting && !self.clock.turn_over && self.clock.ended.is_none() && self.world.present[who] {
                match self.ask_turn(who)? {
                    Decision::EndTurn => break,
                    Decision::Act { action, target, units } => {
                        self.controls[who].taken += 1;
                        self.budget.fresh();
                        self.declare(who, action, target, units, None)?;
                        self.check_end();
                    }
                }
            }
        }
        for &(who, started) in &members {
            self.because = outer;
            self.caused_by(started);
            if !self.pending.holding[who] {
                self.end_turn_of(who)?;
            }
        }
        self.because = outer;
        self.clock.active = None;
        self.scratch.members = members;
        Ok(())
    }

    /// Whether `who` could afford any action it may use now (movement only if it needs to close
    /// in), asked the way the planner asks for a policy: a dry run, no dice. A rule that fails
    /// while asking counts as "affords something": only the real run may fail on it.
    fn affords_anything(&mut self, who: usize) -> bool {
        let mut options = std::mem::take(&mut self.scratch.decisions);
        let found = self.candidates(who, Chosen::Aggressive, &mut options);
        let any = found.is_err() || !options.is_empty();
        self.scratch.decisions = options;
        any
    }

    /// The end of one participant's turn: its turn-end work, then the `turn_end` event.
    pub(super) fn end_turn_of(&mut self, who: usize) -> Result<(), RunError> {
        let r = self.r;
        let saved = self.clock.active;
        self.clock.active = Some(who);
        let actor = self.names.who[who].clone();
        self.at_for(who, Timing::TurnEnd, &r.turn_end)?;
        self.settle()?;
        self.emit(Event::TurnEnd { actor });
        self.clock.active = saved;
        Ok(())
    }

    /// The encounter ends when one side is left standing (or none).
    pub fn check_end(&mut self) {
        if self.clock.ended.is_some() || self.clock.table_rounds {
            return;
        }
        // Which sides still have someone standing: none, one, or more than one.
        let mut first: Option<u32> = None;
        for w in 0..self.world.n {
            if self.world.standing(w) {
                match first {
                    None => first = Some(self.world.sides[w]),
                    Some(side) if side != self.world.sides[w] => return,
                    Some(_) => {}
                }
            }
        }
        self.clock.ended = Some(match first {
            Some(_) => "one side is left standing".into(),
            None => "nobody is left standing".into(),
        });
    }

    fn round(&mut self) -> Result<(), RunError> {
        let r = self.r;
        self.clock.in_round = true;
        self.ledger.new_round();
        let outer = self.because;
        let started = self.emit(Event::RoundStart {});
        self.caused_by(started);
        if r.initiative.made_at == Timing::RoundStart && self.clock.round > 1 && !self.clock.table_rounds {
            self.make_initiative()?;
        }
        self.at_all(Timing::RoundStart)?;
        for (p, phase) in r.phases.iter().enumerate() {
            if self.clock.ended.is_some() {
                break;
            }
            if let Some(g) = &phase.guard {
                if self.eval(g, &Ctx::default())? == 0 {
                    continue;
                }
            }
            let id = ir::PhaseId(p as u32);
            self.clock.phase_at = p;
            self.clock.phase_seq += 1;
            let phase_started = self.emit(Event::PhaseStart { phase: self.names.phase[p].clone() });
            let round_cause = self.caused_by(phase_started);
            if r.initiative.made_at == Timing::PhaseStart(id) && !self.clock.table_rounds {
                self.make_initiative()?;
            }
            self.at_all(Timing::PhaseStart(id))?;
            match &phase.kind {
                PhaseKind::Turns => {
                    // Initiative changed since the order was made (an effect, a `follow`): the
                    // new values order the turns from this phase on, never turns already taken.
                    if self.world.initiative != self.world.ordered_values && !self.clock.table_rounds {
                        // Its tie-breaks (rolls, the GM's choice) are the initiative's.
                        let outer = self.under(r.initiative.loc);
                        self.order_by_initiative()?;
                        self.rule = outer;
                    }
                    self.clock.allowed = Some(TURN_KINDS);
                    self.clock.turn_phase = true;
                    // The order, in a reused buffer, as this round's queue (delays change it).
                    let mut queue = std::mem::take(&mut self.scratch.queue);
                    queue.clone_from(self.world.order());
                    let mut gi = 0;
                    while gi < queue.len() {
                        if self.clock.ended.is_some() {
                            break;
                        }
                        if let [who] = queue[gi].as_slice() {
                            let who = *who;
                            if self.delay(who, &mut queue, gi) {
                                continue;
                            }
                        }
                        let last = queue.iter().rposition(|g| g.iter().any(|w| self.world.present[*w]));
                        self.clock.final_turn = Some(gi) == last;
                        self.turns(&queue[gi])?;
                        gi += 1;
                    }
                    self.scratch.queue = queue;
                    self.clock.final_turn = false;
                    self.clock.turn_phase = false;
                }
                PhaseKind::Simultaneous(kinds) => {
                    let kinds: &'r [ActionKind] = if kinds.is_empty() { &ActionKind::ALL } else { kinds };
                    self.clock.allowed = Some(kinds);
                    // Everyone declares (and pays) in initiative order, then all resolve; the
                    // engine resolves each declaration as it is paid for, in that same order.
                    let order = self.in_order();
                    for &who in &order {
                        if self.clock.ended.is_some() {
                            break;
                        }
                        if self.clock.surprise_round && self.world.surprised[who] {
                            continue;
                        }
                        self.clock.turn_seq += 1;
                        self.controls[who].taken = 0;
                        self.clock.turn_over = false;
                        while !self.clock.turn_over && self.clock.ended.is_none() {
                            match self.ask_turn(who)? {
                                Decision::EndTurn => break,
                                Decision::Act { action, target, units } => {
                                    self.controls[who].taken += 1;
                                    self.budget.fresh();
                                    self.declare_or_defer(who, action, target, units, None, true)?;
                                }
                            }
                        }
                    }
                    self.scratch.in_order = order;
                    // Then everything declared resolves, in initiative order, all of it before the
                    // encounter can end.
                    for d in std::mem::take(&mut self.pending.deferred) {
                        self.budget.fresh();
                        self.resolve(&d, false)?;
                    }
                    self.check_end();
                }
                PhaseKind::Step(effects) => {
                    let order = self.in_order();
                    for &who in &order {
                        self.budget.fresh();
                        let cause = Cause::Named(self.names.phase[p].clone());
                        self.run_effects(effects, &Ctx { owner: who, ..Ctx::default() }, &cause, r.phases[p].loc)?;
                    }
                    self.scratch.in_order = order;
                    self.settle()?;
                }
            }
            self.clock.allowed = None;
            self.at_all(Timing::PhaseEnd(id))?;
            self.emit(Event::PhaseEnd { phase: self.names.phase[p].clone() });
            self.because = round_cause;
        }
        // A ready that did not happen this round is dropped, unless it keeps waiting; the
        // turn it held open ends now.
        let mut i = 0;
        while i < self.pending.readied.len() {
            if self.pending.readied[i].keep {
                i += 1;
                continue;
            }
            let who = self.pending.readied.remove(i).who;
            self.pending.holding[who] = false;
            if self.world.present[who] {
                self.end_turn_of(who)?;
            }
        }
        self.at_all(Timing::RoundEnd)?;
        // Durations counted in rounds tick down at the end of each round.
        for who in 0..self.world.n {
            let mut next = 0;
            while let Some(c) = self.world.held.next(who, next) {
                next = c + 1;
                let expired = match self
                    .world
                    .held
                    .get_mut(who, ir::ConditionId(c as u32))
                    .and_then(|h| h.rounds_left.as_mut())
                {
                    Some(left) => {
                        *left -= 1;
                        *left <= 0
                    }
                    None => false,
                };
                if expired {
                    self.remove(who, ir::ConditionId(c as u32));
                }
            }
        }
        self.emit(Event::RoundEnd {});
        self.because = outer;
        self.clock.in_round = false;
        Ok(())
    }

    /// A scenario states where things stand, not how they got there: a participant placed inside
    /// a pool's threshold (at 0 HP) holds the conditions that threshold gives (Unconscious, with
    /// its `while`), but its other effects (the Wound of falling, ending a turn) are history the
    /// scenario states itself (docs/scenario.md, "Starting inside a threshold").
    fn starting_conditions(&mut self) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.r;
        for who in 0..self.world.n {
            for (p, pool) in r.pools.iter().enumerate() {
                let now = self.world.pool(who, ir::PoolId(p as u32));
                for t in &pool.thresholds {
                    let c = Ctx::of(who);
                    let value = self.eval(&t.value, &c)?;
                    if t.op.holds(now, value) {
                        self.conditions_of(&t.effects, &c, t.loc)?;
                    }
                }
            }
        }
        self.settle()
    }

    /// Only the condition changes of `effects`, following `if`s.
    fn conditions_of(&mut self, effects: &'r [ir::Effect], c: &Ctx, rule: ir::Loc) -> Result<(), RunError> {
        for e in effects {
            match e {
                ir::Effect::Apply { .. } | ir::Effect::Remove { .. } => {
                    self.run_effects(std::slice::from_ref(e), c, &Cause::Static("threshold"), rule)?;
                }
                ir::Effect::If { cond, then, otherwise } => {
                    let branch = if self.eval(cond, c)? != 0 { then } else { otherwise };
                    self.conditions_of(branch, c, rule)?;
                }
                // Where a scenario starts, a loop's conditions are those of one pass.
                ir::Effect::Repeat { cond, body } if self.eval(cond, c)? != 0 => {
                    self.conditions_of(body, c, rule)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Starts the encounter: everything up to the first round. An encounter is `begin`, then
    /// `next_round` until it plays none, then `end` (`Runner::play`).
    pub fn begin(&mut self) -> Result<(), RunError> {
        let names = self.names.who.clone();
        // Everything in the encounter happens, in the end, because it started.
        let started = self.emit(Event::EncounterStart { participants: names });
        self.caused_by(started);
        self.starting_conditions()?;
        // Made at a phase's start, initiative is first made in round 1's phase; until then
        // the seating order stands.
        if !matches!(self.r.initiative.made_at, Timing::PhaseStart(_)) {
            self.make_initiative()?;
        }
        self.stays()?;
        self.at_all(Timing::EncounterStart)
    }

    /// Plays the next round, unless the encounter has ended or has played `max_rounds`
    /// (which ends it); returns whether it played one. Between two rounds the engine may be
    /// copied (`copy_from`), and the copy plays on as this one would.
    pub fn next_round(&mut self, max_rounds: u32) -> Result<bool, RunError> {
        if self.clock.ended.is_some() {
            return Ok(false);
        }
        // Nobody takes the events any more: playing on would only burn time.
        if self.out.sink.stopped() {
            return Err(RunError::Output);
        }
        if self.clock.round >= max_rounds {
            self.clock.ended = Some(format!("the round limit ({max_rounds}) was reached"));
            return Ok(false);
        }
        self.clock.round += 1;
        self.clock.surprise_round = self.clock.round == 1 && self.world.surprised.iter().any(|s| *s);
        self.round()?;
        self.check_end();
        Ok(true)
    }

    /// Ends the encounter once `next_round` has played its last round: the outro, if any, and
    /// the end hooks. Returns why it ended.
    pub fn end(&mut self, outro: Option<&super::scenario::OutroSpec>) -> Result<String, RunError> {
        // Who is standing is told as the end is decided, before outros and end hooks change it.
        self.tell_ended();
        let mut reason = self.clock.ended.clone().unwrap_or_default();
        if let Some(spec) = outro {
            reason = self.outro(spec, &reason)?;
        }
        let saved = self.clock.ended.take();
        self.at_all(Timing::EncounterEnd)?;
        self.clock.ended = saved;
        Ok(reason)
    }

    /// Winds the encounter down: the outro's effects for everyone; an outro that continues
    /// plays more rounds in table order, without initiative, upkeep and all (004).
    fn outro(&mut self, spec: &super::scenario::OutroSpec, reason: &str) -> Result<String, RunError> {
        let r = self.r;
        let Some(outro) = r.outros.iter().find(|o| o.name == spec.name) else { return Ok(reason.to_string()) };
        self.clock.ended = None;
        for who in 0..self.world.n {
            let cause = Cause::Named(Name::from(outro.name.as_str()));
            self.run_effects(&outro.effects, &Ctx { owner: who, ..Ctx::default() }, &cause, outro.loc)?;
        }
        self.settle()?;
        if !outro.continues {
            return Ok(format!("{reason}; outro {}", outro.name));
        }
        self.clock.table_rounds = true;
        *self.world.order_mut() = (0..self.world.n).filter(|w| self.world.present[*w]).map(|w| vec![w]).collect();
        for _ in 0..spec.rounds {
            self.clock.ended = None;
            self.clock.round += 1;
            self.clock.surprise_round = false;
            self.round()?;
        }
        self.clock.ended = None;
        Ok(format!("{reason}; outro {} for {} round(s)", outro.name, spec.rounds))
    }

    /// Every participant's pools and conditions.
    pub fn final_state(&self) -> BTreeMap<Name, FinalState> {
        let r = self.r;
        (0..self.world.n)
            .map(|w| {
                let pools = r
                    .pools
                    .iter()
                    .enumerate()
                    .map(|(p, _)| (self.names.pool[p].clone(), self.world.pool(w, ir::PoolId(p as u32))))
                    .collect();
                let conditions = (0..r.conditions.len())
                    .filter(|c| self.world.held.has(w, ir::ConditionId(*c as u32)))
                    .map(|c| self.names.condition[c].clone())
                    .collect();
                (self.names.who[w].clone(), FinalState { pools, conditions })
            })
            .collect()
    }

    /// Where each object is, in the scenario's order.
    pub fn final_objects(&self) -> Vec<super::trace::FinalObject> {
        self.world
            .objects
            .iter()
            .map(|o| super::trace::FinalObject {
                object: o.name.clone(),
                at: o.holders.is_empty().then_some(o.at),
                held_by: o.holders.iter().map(|&h| self.names.who[h].clone()).collect(),
            })
            .collect()
    }

    /// Hours of downtime after the encounter; an interrupted hour recovers nothing.
    /// Plays the hours of downtime; returns how many hours at its end went uninterrupted.
    pub fn downtime(&mut self, hours: u32, interrupted: Option<u32>) -> Result<u32, RunError> {
        let r = self.r;
        self.clock.round = 0;
        let mut since_start = 0u32;
        let outer = self.because;
        for hour in 1..=hours {
            self.budget.fresh();
            self.because = outer;
            let this_hour = self.emit(Event::Downtime { hour });
            self.caused_by(this_hour);
            if Some(hour) == interrupted {
                // Time must restart for recovery to resume.
                since_start = 0;
                continue;
            }
            since_start += 1;
            for d in &r.downtime {
                let every = self.eval(&d.every_hours, &Ctx::default())?;
                if every > 0 && i64::from(since_start) % every == 0 {
                    for who in 0..self.world.n {
                        self.run_effects(
                            &d.effects,
                            &Ctx { owner: who, ..Ctx::default() },
                            &Cause::Static("downtime"),
                            d.loc,
                        )?;
                    }
                }
            }
            self.settle()?;
        }
        self.because = outer;
        Ok(since_start)
    }

    /// Takes a rest for everyone. `slept` is the uninterrupted hours the downtime ended with
    /// (`None` without downtime: the rest is simply taken); a rest of `hours N` needs N.
    pub fn rest(&mut self, name: &str, slept: Option<u32>) -> Result<(), RunError> {
        let r = self.r;
        if let Some(rest) = r.rests.iter().find(|x| x.name == name) {
            // Downtime is played in whole hours; a length in minutes is met by the minutes of
            // those hours.
            let (needed, per_hour, unit) = match (&rest.hours, &rest.minutes) {
                (Some(h), _) => (self.eval(h, &Ctx::default())?, 1, "hours"),
                (None, Some(m)) => (self.eval(m, &Ctx::default())?, 60, "minutes"),
                (None, None) => (0, 1, "hours"),
            };
            let label = Name::from(rest.name.as_str());
            if let Some(slept) = slept.map(|s| i64::from(s).saturating_mul(per_hour)).filter(|s| *s < needed) {
                let outcome = format!("cut short: {slept} of {needed} uninterrupted {unit}");
                self.emit_by(Event::Rest { rest: label, outcome }, Some(rest.loc));
                return Ok(());
            }
            let taken = self.emit_by(Event::Rest { rest: label, outcome: "taken".into() }, Some(rest.loc));
            let outer = self.caused_by(taken);
            for who in 0..self.world.n {
                let cause = Cause::Named(Name::from(rest.name.as_str()));
                self.run_effects(&rest.effects, &Ctx { owner: who, ..Ctx::default() }, &cause, rest.loc)?;
            }
            self.settle()?;
            self.because = outer;
        }
        Ok(())
    }
}
