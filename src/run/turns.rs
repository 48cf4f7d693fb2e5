//! Turns: what a turn does (its timings and steps, delaying, ongoing actions carried on or
//! lost, the end of a turn) and the groups of turns a phase plays.

use super::controller::{Chosen, Decision};
use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::pending::Ongoing;
use super::sink::{Fact, Sink};
use super::trace::{Cause, Event, Name};
use crate::ir::{self, ActionKind, Timing, TurnStep};

impl<'r, S: Sink> Engine<'r, S> {
    /// Everything that happens at a timing for one participant: pool steps, condition effects
    /// and expiries, hooks.
    /// `for_side`: the steps of pools kept `per side` run here (once for each side).
    fn at_for(&mut self, who: usize, t: Timing, steps: &[TurnStep], for_side: bool) -> Result<(), RunError> {
        let r = self.ruleset();
        self.new_cascade();
        let c = Ctx { owner: who, ..Ctx::default() };
        for step in steps {
            match step {
                TurnStep::Pools => self.pool_steps(who, t, for_side)?,
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

    /// A timing for everyone present, in initiative order; then its answers.
    pub(super) fn at_all(&mut self, t: Timing) -> Result<(), RunError> {
        let all = [
            TurnStep::Pools,
            TurnStep::Negative,
            TurnStep::Maintain,
            TurnStep::Expire,
            TurnStep::Positive,
            TurnStep::Hooks,
        ];
        let order = self.in_order();
        for (i, &who) in order.iter().enumerate() {
            if self.clock.ended.is_some() && t != Timing::EncounterEnd {
                break;
            }
            // A side's pools step once, with the first of its members in the order.
            let side = self.world.sides[who];
            let first_of_side = !order[..i].iter().any(|&o| self.world.sides[o] == side);
            self.at_for(who, t, &all, first_of_side)?;
        }
        self.scratch.in_order = order;
        self.settle()?;
        // Then the timing as an event, answered once for everyone (`on round_start`).
        self.answer_timing(t, None)
    }

    /// Everyone present in initiative order, in a reused buffer; give it back in
    /// `scratch.in_order` when done.
    pub(super) fn in_order(&mut self) -> Vec<usize> {
        let mut out = std::mem::take(&mut self.scratch.in_order);
        self.world.in_order(&mut out, &mut self.scratch.seen);
        out
    }

    /// A scripted delay: `who` steps out of its place at `at` and re-enters right after a
    /// participant still to act this round, keeping that place in later rounds (002). Returns
    /// true when the queue changed.
    pub(super) fn delay(&mut self, who: usize, queue: &mut Vec<Vec<usize>>, at: usize) -> bool {
        let round = self.clock.round;
        let Some(other) = self.take_step(who, |s| match s {
            super::controller::Step::Delay { round: r, after } if *r == round => Some(*after),
            _ => None,
        }) else {
            return false;
        };
        let name = self.names.who[who].clone();
        if !self.ruleset().initiative.allow.delay {
            self.not_allowed(who, "delay", "the ruleset does not allow delaying");
            return false;
        }
        let after = self.names.who[other].clone();
        let Some(place) = queue.iter().skip(at + 1).position(|g| g.contains(&other)).map(|p| p + at + 1) else {
            let reason = format!("{after} has already acted this round");
            let event = Event::Rejected {
                actor: name,
                action: "delay".into(),
                code: "not-now",
                reason: reason.into(),
                named: Default::default(),
            };
            self.emit_by(event, Some(self.ruleset().initiative.loc));
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
        self.emit_by(Event::Choice { who: name, question, answer }, Some(self.ruleset().initiative.loc));
        true
    }

    /// A scripted stay, delay or ready the ruleset does not `allow`: a `rejected` event.
    fn not_allowed(&mut self, who: usize, what: &'static str, reason: &'static str) {
        let actor = self.names.who[who].clone();
        let action = self.names.intern(what);
        let event =
            Event::Rejected { actor, action, code: "not-allowed", reason: reason.into(), named: Default::default() };
        self.emit_by(event, Some(self.ruleset().initiative.loc));
    }

    /// Scripted stays: a later place chosen once, when the encounter starts, then locked (004).
    pub(super) fn stays(&mut self) -> Result<(), RunError> {
        let mut moved = false;
        for who in 0..self.world.n {
            let Some(other) = self.take_step(who, |s| match s {
                super::controller::Step::Stay { after } => Some(*after),
                _ => None,
            }) else {
                continue;
            };
            if !self.ruleset().initiative.allow.stay {
                self.not_allowed(who, "stay", "the ruleset does not allow staying");
                continue;
            }
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

    /// Multi-round actions of `who` are paid again; the last payment resolves them.
    fn continue_ongoing(&mut self, who: usize) -> Result<(), RunError> {
        let mut i = 0;
        while i < self.pending.ongoing.len() {
            if self.pending.ongoing[i].who != who {
                i += 1;
                continue;
            }
            let mut going = self.pending.ongoing.remove(i);
            let action = &self.ruleset().actions[going.action.index()];
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
        let r = self.ruleset();
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
        let action = &self.ruleset().actions[going.action.index()];
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
    pub(super) fn turns(&mut self, group: &[usize]) -> Result<(), RunError> {
        if let Some(t) = self.tape.as_deref_mut() {
            t.frames.depth += 1;
        }
        let played = self.turns_of(group);
        if let Some(t) = self.tape.as_deref_mut() {
            t.frames.depth -= 1;
        }
        played
    }

    /// `ask_turn` from the turns' loop, which publishes its locals to a tape (`tape::Frames`).
    fn ask_turn_framed(&mut self, who: usize, members: &[(usize, Option<u64>)]) -> Result<Decision, RunError> {
        if let Some(t) = self.tape.as_deref_mut() {
            t.frames.members.clear();
            t.frames.members.extend(members.iter().map(|m| m.0));
            t.frames.acting = who;
            t.frames.asking = true;
        }
        self.checkpoint(who);
        if self.stopped() {
            return Ok(Decision::EndTurn);
        }
        let asked = self.ask_turn(who);
        if let Some(t) = self.tape.as_deref_mut() {
            t.frames.asking = false;
        }
        asked
    }

    fn turns_of(&mut self, group: &[usize]) -> Result<(), RunError> {
        let r = self.ruleset();
        let mut members = std::mem::take(&mut self.scratch.members);
        members.clear();
        for &who in group {
            if !self.world.present[who] {
                continue;
            }
            let round = self.clock.round;
            if self
                .take_step(who, |s| {
                    matches!(s, super::controller::Step::Leave { round: r } if *r == round).then_some(())
                })
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
            self.at_for(who, Timing::TurnStart, &r.turn_start, true)?;
            self.settle()?;
            self.answer_timing(Timing::TurnStart, Some(who))?;
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
                    // Readying is what it does with its turn.
                    self.tell(Fact::Played { who });
                    let name = self.names.who[who].clone();
                    if r.initiative.allow.ready && self.tables.lacks(who, ready.action) {
                        // Waiting for an action it does not have would wait for nothing.
                        self.refuse_outside_loadout(who, ready.action);
                    } else if r.initiative.allow.ready {
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
            if acting && !self.clock.turn_over && self.telling() {
                let fact = if self.affords_anything(who) { Fact::Played { who } } else { Fact::Stuck { who } };
                self.tell(fact);
            }
            while acting && !self.clock.turn_over && self.clock.ended.is_none() && self.world.present[who] {
                let asked = self.ask_turn_framed(who, &members);
                match asked? {
                    Decision::EndTurn => break,
                    Decision::Act { action, target, units } => {
                        self.controls[who].taken += 1;
                        self.new_cascade();
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
    pub(super) fn affords_anything(&mut self, who: usize) -> bool {
        let mut options = std::mem::take(&mut self.scratch.decisions);
        let found = self.candidates(who, Chosen::Aggressive, &mut options);
        let any = found.is_err() || !options.is_empty();
        self.scratch.decisions = options;
        any
    }

    /// The end of one participant's turn: its turn-end work, then the `turn_end` event.
    pub(super) fn end_turn_of(&mut self, who: usize) -> Result<(), RunError> {
        let r = self.ruleset();
        let saved = self.clock.active;
        self.clock.active = Some(who);
        let actor = self.names.who[who].clone();
        self.at_for(who, Timing::TurnEnd, &r.turn_end, true)?;
        self.settle()?;
        let ended = self.emit(Event::TurnEnd { actor });
        // Answers to the turn's end come after it, caused by it.
        let outer = self.caused_by(ended);
        let answered = self.answer_timing(Timing::TurnEnd, Some(who));
        self.because = outer;
        answered?;
        self.clock.active = saved;
        Ok(())
    }
}
