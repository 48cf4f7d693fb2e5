//! Answers: an event offered to the reactions, triggers and gains that answer it, in priority
//! order, nested up to a depth.

use super::clock::TURN_KINDS;
use super::ctx::{Ctx, EventInfo};
use super::engine::Engine;
use super::error::RunError;
use super::pending::Deferred;
use super::sink::{Fact, Sink};
use super::trace::{Cause, Event, Name};
use super::world::World;
use crate::ir;
use std::rc::Rc;

/// Deepest nesting of answers to answers before the run is stopped as a cycle.
const MAX_NESTING: u32 = 64;

impl<S: Sink> Engine<'_, S> {
    /// An emitted event: the actor is the owner of the effect, the target its target. Returns
    /// whether an interrupting answer cancelled it, which halts the rest of the emitting rule.
    pub(crate) fn emit_event(&mut self, e: ir::EventId, c: &Ctx) -> Result<bool, RunError> {
        self.emit_with(e, None, c)
    }

    /// `emit EVENT` or `emit EVENT(AMOUNT)`: answered before (interrupting answers may cancel
    /// it) and after; an amount its answers changed is kept for `amount(EVENT)`.
    pub(crate) fn emit_with(&mut self, e: ir::EventId, amount: Option<i64>, c: &Ctx) -> Result<bool, RunError> {
        let slot = amount.map(|v| {
            self.amounts.push(v);
            (self.amounts.len() - 1) as u32
        });
        let info = EventInfo { action: None, custom: Some(e), emitter: c.acting, amount: slot, timing: None };
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

    /// A timing answered as an event (`on turn_end by enemy`, `on round_start`), after the
    /// timing's own work is done and settled: done by whoever's turn it is (`turn_start`,
    /// `turn_end`), or by nobody (`actor` is `None`; the checker allows no `by`, `actor` or
    /// aimed reaction there). Never cancelled: what an answer cancels or redirects goes nowhere.
    pub(crate) fn answer_timing(&mut self, t: ir::Timing, actor: Option<usize>) -> Result<(), RunError> {
        let r = self.ruleset();
        if r.dispatch.by_timing.is_empty() || r.dispatch.responders(ir::EventRef::Timing(t)).is_empty() {
            return Ok(());
        }
        let name = self.names.answered(t);
        self.new_cascade();
        let saved = std::mem::replace(&mut self.pending.cancelled, false);
        let saved_redirect = self.pending.redirected.take();
        let answered = self.answer(EventInfo::timing(t), actor.unwrap_or(0), None, false, &name);
        self.pending.cancelled = saved;
        self.pending.redirected = saved_redirect;
        answered?;
        self.settle()
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
        let r = self.ruleset();
        // Answers nested this deep only happen when rules feed each other without end.
        if self.pending.chain_depth >= MAX_NESTING {
            let names = self.budget.cycle_names();
            if names.is_empty() {
                let message = format!("answers were nested more than {MAX_NESTING} deep");
                return Err(RunError::Stopped { message, rule: None });
            }
            return Err(RunError::Cycle(names));
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

    /// `answer` past its check that someone may answer. A timing that happens to nobody
    /// (`round_start`) is answered without an actor.
    #[inline(never)]
    fn offer(
        &mut self,
        info: EventInfo,
        actor: usize,
        victim: Option<usize>,
        interrupting: bool,
        source: &Name,
    ) -> Result<(), RunError> {
        let r = self.ruleset();
        self.pending.chain_depth += 1;
        self.clock.trigger_seq += 1;
        let trigger_seq = self.clock.trigger_seq;
        let order = self.take_priority();
        let ev_ctx = Ctx {
            owner: actor,
            target: None,
            actor: info.timing.is_none_or(ir::Timing::has_actor).then_some(actor),
            victim,
            event: Some(info),
            units: 0,
            source: None,
            acting: None,
        };
        // Triggers and gains: automatic.
        self.triggers_and_gains(info, interrupting, source, &order, ev_ctx)?;
        if !interrupting {
            self.take_readied(info, actor, source)?;
        }
        // Reactions: each participant in priority order may declare one; resolve last first.
        // `chains depth` bounds how deep reactions to reactions go.
        // Buffers kept between events (an answer nested inside this one starts its own).
        let mut chain = std::mem::take(&mut self.scratch.chain);
        let mut offers = std::mem::take(&mut self.scratch.offers);
        let mut affordable = std::mem::take(&mut self.scratch.affordable);
        let mut reactions = std::mem::take(&mut self.scratch.reactions);
        // The reactions that answer this event at all, found once, not once per participant.
        answering_reactions(r, info, interrupting, &mut reactions);
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
                    if self.tables.lacks(who, ra) {
                        let on = r.actions[ra.index()].on.as_ref();
                        if on.is_some_and(|on| self.world.may_answer(who, actor, victim, on)) {
                            self.refuse_scripted_reaction(who, ra);
                        }
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
                if let Some((ra, target)) = self.ask_reaction(who, &affordable, again, &c)? {
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
            self.declare_chain(&chain[from..], source, ev_ctx, trigger_seq, &mut declared)?;
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
        let outcome = self.resolve_declared(&mut declared, trigger_seq);
        self.scratch.declared = declared;
        outcome?;
        self.pending.chain_depth -= 1;
        chain.clear();
        self.scratch.chain = chain;
        self.scratch.offers = offers;
        self.scratch.affordable = affordable;
        Ok(())
    }

    /// The triggers and pool gains that answer an event: automatic, in priority order.
    fn triggers_and_gains(
        &mut self,
        info: EventInfo,
        interrupting: bool,
        source: &Name,
        order: &[usize],
        ev_ctx: Ctx,
    ) -> Result<(), RunError> {
        let r = self.ruleset();
        let (actor, victim) = (ev_ctx.owner, ev_ctx.victim);
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
                        for &who in one.as_ref().map_or(order, Option::as_slice) {
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
                        // A side's pool gains once for the side: by its first member who answers.
                        let mut sides_gained: Vec<u32> = Vec::new();
                        for &who in one.as_ref().map_or(order, Option::as_slice) {
                            if !self.world.may_answer(who, actor, victim, &gain.on) {
                                continue;
                            }
                            let side = self.world.sides[who];
                            if self.world.per_side(p) && sides_gained.contains(&side) {
                                continue;
                            }
                            let c = Ctx { owner: who, ..ev_ctx };
                            if let Some(guard) = &gain.guard {
                                if self.eval(guard, &c)? == 0 {
                                    continue;
                                }
                            }
                            if self.world.per_side(p) {
                                sides_gained.push(side);
                            }
                            let mut n = self.eval(&gain.amount, &c)?;
                            let holder = self.world.pool_holder(who, p);
                            if let Some((cap, per)) = &gain.cap {
                                let cap = self.eval(cap, &c)?;
                                n = n
                                    .min(cap - self.ledger.gained_this(holder, p, g as usize, *per, self.clock.round))
                                    .max(0);
                            }
                            if n == 0 {
                                continue;
                            }
                            self.ledger.note_gain(holder, p, g as usize, n, self.clock.round);
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
        Ok(())
    }

    /// Readied actions whose event this is are taken now, outside their owner's turn, and
    /// their owner's place in the order moves here (001, Ready Action).
    fn take_readied(&mut self, info: EventInfo, actor: usize, source: &Name) -> Result<(), RunError> {
        let r = self.ruleset();
        let mut fire = Vec::new();
        let mut i = 0;
        while i < self.pending.readied.len() {
            let x = &self.pending.readied[i];
            let by = x.by.is_none_or(|rel| self.world.relates(x.who, actor, rel));
            if x.who != actor && by && info.is(self.ruleset(), x.on) && self.world.present[x.who] {
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
            let fired =
                self.emit_by(Event::Trigger { source: source.clone(), reactor: who_name, reaction: action_name }, rule);
            let outer = self.caused_by(fired);
            // With no target of its own, it aims at whoever set it off, as a reaction does.
            let target = ready.target.or_else(|| default_reaction_target(r, ready.action, actor, ready.who));
            self.declare(ready.who, ready.action, target, None, None)?;
            self.because = outer;
            (self.clock.allowed, self.clock.turn_phase, self.clock.active) = saved;
            // The turn the ready held open ends after the action.
            if std::mem::take(&mut self.pending.holding[ready.who]) {
                self.end_turn_of(ready.who)?;
            }
            // From now on the readied participant acts right after whoever set it off.
            self.world.order_mut().retain(|g| g.as_slice() != [ready.who]);
            let after =
                self.world.order().iter().position(|g| g.contains(&actor)).map_or(self.world.order().len(), |q| q + 1);
            self.world.order_mut().insert(after, vec![ready.who]);
        }
        Ok(())
    }

    /// A chain's reactions declared and paid, in the order their makers declared them; each one
    /// paid is added to `declared`.
    fn declare_chain(
        &mut self,
        links: &[(usize, ir::ActionId, Option<usize>)],
        source: &Name,
        ev_ctx: Ctx,
        trigger_seq: u64,
        declared: &mut Vec<Deferred>,
    ) -> Result<(), RunError> {
        let r = self.ruleset();
        for &(who, ra, target) in links {
            if self.clock.ended.is_some() {
                break;
            }
            let (reactor, reaction) = (self.names.who[who].clone(), self.names.action[ra.index()].clone());
            self.budget.fired(reaction.clone());
            let fired = self
                .emit_by(Event::Trigger { source: source.clone(), reactor, reaction }, Some(r.actions[ra.index()].loc));
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
        Ok(())
    }

    /// The declared reactions of a chain resolved in turn (`declared` is left empty).
    /// Inlined into `offer`, its one caller, as it was before it was split out: a call of its
    /// own, and the drop of the buffer handed back after it, cost every offered event.
    #[inline(always)]
    fn resolve_declared(&mut self, declared: &mut Vec<Deferred>, trigger_seq: u64) -> Result<(), RunError> {
        let r = self.ruleset();
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
        outcome
    }

    /// The active participant first, then initiative order, then everyone else: remade only
    /// when the active participant or the initiative order changed.
    fn take_priority(&mut self) -> Rc<Vec<usize>> {
        let (r, world, active, scratch) = (self.ruleset(), &self.world, self.clock.active, &mut self.scratch);
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

/// The reactions that answer an event at all (interrupting or not), each once. Inlined into
/// `offer`, its one caller, as it was before it was split out.
#[inline(always)]
fn answering_reactions(r: &ir::Ruleset, info: EventInfo, interrupting: bool, reactions: &mut Vec<ir::ActionId>) {
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
    for &w in &world.seating {
        push(w, out);
    }
}

/// The dispatch slots of an event: the action, its categories and its kind, the emitted event,
/// or the timing.
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
    let timing = info.timing.map(ir::EventRef::Timing);
    action
        .into_iter()
        .chain(categories.iter().map(|c| ir::EventRef::Category(*c)))
        .chain(kind)
        .chain(custom)
        .chain(timing)
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
