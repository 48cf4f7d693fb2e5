//! The encounter: its start, rounds of phases, the end, and the final state written.

use super::clock::TURN_KINDS;
use super::controller::Decision;
use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Cause, Event, FinalState, Name, SidePools, TablePiles};
use crate::ir::{self, ActionKind, PhaseKind, Timing};
use std::collections::BTreeMap;

impl<'r, S: Sink> Engine<'r, S> {
    /// The encounter ends when one side is left standing (or none).
    pub(crate) fn check_end(&mut self) {
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
        let r = self.ruleset();
        self.clock.in_round = true;
        self.ledger.new_round();
        let outer = self.because;
        let started = self.emit(Event::RoundStart {});
        self.caused_by(started);
        if r.initiative.made_at == Timing::RoundStart && self.clock.round > 1 && !self.clock.table_rounds {
            self.make_initiative()?;
        }
        self.at_all(Timing::RoundStart)?;
        let (mut at, mut passes) = (0, (0, 0));
        while let Some(phase) = r.phases.get(at) {
            // The next phase, unless this one is played again.
            let p = at;
            at += 1;
            if self.clock.ended.is_some() {
                break;
            }
            if let Some(g) = &phase.guard {
                if self.eval(g, &Ctx::default())? == 0 {
                    continue;
                }
            }
            let id = ir::PhaseId(p as u32);
            if let Some(t) = self.tape.as_deref_mut() {
                t.frames.round = Some((at, passes));
            }
            self.clock.phase_at = p;
            self.clock.phase_seq += 1;
            let phase_started = self.emit(Event::PhaseStart { phase: self.names.phase[p].clone() });
            let round_cause = self.caused_by(phase_started);
            if r.initiative.made_at == Timing::PhaseStart(id) && !self.clock.table_rounds {
                self.make_initiative()?;
            }
            self.at_all(Timing::PhaseStart(id))?;
            match &phase.kind {
                PhaseKind::Turns => self.turn_phase()?,
                PhaseKind::Simultaneous(kinds) if super::hidden::is_hidden(r, p) => {
                    self.hidden_simultaneous(p, kinds)?
                }
                PhaseKind::Simultaneous(kinds) => self.simultaneous_phase(kinds)?,
                PhaseKind::Step(effects) => {
                    let order = self.in_order();
                    for &who in &order {
                        self.new_cascade();
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
            if self.again(p, &mut passes)? {
                at = p;
            }
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

    /// A phase of turns: the groups of the initiative order (reordered first if values changed) take
    /// their turns, delays moving them later in this round's queue.
    fn turn_phase(&mut self) -> Result<(), RunError> {
        // Initiative changed since the order was made (an effect, a `follow`): the
        // new values order the turns from this phase on, never turns already taken.
        if self.world.initiative != self.world.ordered_values && !self.clock.table_rounds {
            // Its tie-breaks (rolls, the GM's choice) are the initiative's.
            let outer = self.under(self.ruleset().initiative.loc);
            self.order_by_initiative()?;
            self.rule = outer;
        }
        self.clock.allowed = Some(TURN_KINDS);
        self.clock.turn_phase = true;
        self.clock.reordered = false;
        if self.ruleset().initiative.order == ir::Order::Drawn && !self.clock.table_rounds {
            let done = self.drawn_turns();
            self.clock.final_turn = false;
            self.clock.turn_phase = false;
            return done;
        }
        // The order, in a reused buffer, as this round's queue (delays change it).
        let mut queue = std::mem::take(&mut self.scratch.queue);
        queue.clone_from(self.world.order());
        let slots = self.ruleset().initiative.side_slots;
        let mut taken = std::mem::take(&mut self.scratch.slot_taken);
        if slots {
            // A slot is one place: those tied together hold a slot each.
            Self::one_per_group(&mut queue);
            super::buffers::refill(&mut taken, self.world.n, false);
        }
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
            if let Some(t) = self.tape.as_deref_mut() {
                t.frames.queue = Some((queue.clone(), gi, taken.clone()));
            }
            if self.ruleset().phases[self.clock.phase_at].takes.is_some() && !slots {
                let group = self.takers(&queue[gi])?;
                if !group.is_empty() {
                    self.turns(&group)?;
                }
            } else if !slots {
                self.turns(&queue[gi])?;
            } else if let Some(holder) = queue[gi].first().copied() {
                // A holder `turns requires` leaves out takes its slot out with it: nobody takes
                // it, and no turn is played or counted for it.
                let who = if self.takes_turn(holder)? { self.slot_taker(holder, &taken)? } else { None };
                if let Some(who) = who {
                    taken[who] = true;
                    self.turns(&[who])?;
                }
            }
            gi += 1;
            if std::mem::take(&mut self.clock.reordered) {
                self.requeue(&mut queue, gi);
                if slots {
                    Self::one_per_group(&mut queue);
                }
            }
        }
        self.scratch.slot_taken = taken;
        self.scratch.queue = queue;
        if let Some(t) = self.tape.as_deref_mut() {
            t.frames.queue = None;
        }
        self.clock.final_turn = false;
        self.clock.turn_phase = false;
        Ok(())
    }

    /// The order was made again during this phase: the groups from `from` on (those still to
    /// act) become the new order's, less everyone who has already had a turn in it, so the order
    /// the trace printed is the order played.
    fn requeue(&self, queue: &mut Vec<Vec<usize>>, from: usize) {
        let cut = from.min(queue.len());
        let mut acted = vec![false; self.world.n];
        for &w in queue[..cut].iter().flatten() {
            acted[w] = true;
        }
        queue.truncate(cut);
        for g in self.world.order() {
            let rest: Vec<usize> = g.iter().copied().filter(|w| !acted[*w]).collect();
            if !rest.is_empty() {
                queue.push(rest);
            }
        }
    }

    /// Splits every group of the queue into one group per member, in the group's order.
    fn one_per_group(queue: &mut Vec<Vec<usize>>) {
        if queue.iter().all(|g| g.len() == 1) {
            return;
        }
        let flat: Vec<Vec<usize>> = queue.iter().flatten().map(|w| vec![*w]).collect();
        *queue = flat;
    }

    /// Starts `who`'s declarations in a simultaneous phase (open or hidden), as a turn of its
    /// own; false for one surprised in the surprise round, who declares nothing.
    pub(super) fn starts_declaring(&mut self, who: usize) -> bool {
        if self.clock.surprise_round && self.world.surprised[who] {
            return false;
        }
        self.clock.turn_seq += 1;
        self.controls[who].taken = 0;
        self.clock.turn_over = false;
        true
    }

    /// A phase of simultaneous declarations: everyone declares (and pays) in initiative order, then
    /// everything declared resolves.
    fn simultaneous_phase(&mut self, kinds: &'r [ActionKind]) -> Result<(), RunError> {
        let kinds: &'r [ActionKind] = if kinds.is_empty() { &ActionKind::ALL } else { kinds };
        self.clock.allowed = Some(kinds);
        // Everyone declares (and pays) in initiative order, then all resolve; the
        // engine resolves each declaration as it is paid for, in that same order.
        let order = self.in_order();
        for &who in &order {
            if self.clock.ended.is_some() {
                break;
            }
            if !self.starts_declaring(who) {
                continue;
            }
            while !self.clock.turn_over && self.clock.ended.is_none() {
                match self.ask_turn(who)? {
                    Decision::EndTurn => break,
                    Decision::Act { action, target, units } => {
                        self.controls[who].taken += 1;
                        self.new_cascade();
                        self.declare_or_defer(who, action, target, units, None, true)?;
                    }
                }
            }
        }
        self.scratch.in_order = order;
        // Then everything declared resolves, in initiative order, all of it before the
        // encounter can end.
        self.resolve_the_phase_declarations()
    }

    /// What a simultaneous phase (open or hidden) declared resolves, in initiative order, all
    /// of it before the encounter can end.
    pub(super) fn resolve_the_phase_declarations(&mut self) -> Result<(), RunError> {
        for d in std::mem::take(&mut self.pending.deferred) {
            self.new_cascade();
            self.resolve(&d, false)?;
        }
        self.check_end();
        Ok(())
    }

    /// A scenario states where things stand, not how they got there: a participant placed inside
    /// a pool's threshold (at 0 HP) holds the conditions that threshold gives (Unconscious, with
    /// its `while`), but its other effects (the Wound of falling, ending a turn) are history the
    /// scenario states itself (docs/scenario.md, "Starting inside a threshold").
    fn starting_conditions(&mut self) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.ruleset();
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
        self.search_begins();
        let begun = self.begin_encounter();
        self.search_round_ends();
        begun
    }

    fn begin_encounter(&mut self) -> Result<(), RunError> {
        let names = self.names.who.clone();
        // Everything in the encounter happens, in the end, because it started.
        let started = self.emit(Event::EncounterStart { participants: names });
        self.caused_by(started);
        if self.tables.seating == super::scenario::Seating::Random {
            let order = self.world.seating.iter().map(|w| self.names.who[*w].clone()).collect();
            self.emit(Event::Seating { order });
        }
        self.starting_conditions()?;
        // Made at a phase's start, initiative is first made in round 1's phase; until then
        // the seating order stands.
        if !matches!(self.ruleset().initiative.made_at, Timing::PhaseStart(_)) {
            self.make_initiative()?;
        }
        self.stays()?;
        self.at_all(Timing::EncounterStart)?;
        self.ledger.untouch_all();
        Ok(())
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
            self.clock.ended = Some(format!("the round limit ({max_rounds}) was reached").into());
            return Ok(false);
        }
        self.search_round_starts(max_rounds);
        self.clock.round += 1;
        self.clock.surprise_round = self.clock.round == 1 && self.world.surprised.iter().any(|s| *s);
        self.round()?;
        self.check_end();
        self.search_round_ends();
        Ok(true)
    }

    /// Ends the encounter once `next_round` has played its last round: the outro, if any, and
    /// the end hooks. Returns why it ended.
    pub fn end(&mut self, outro: Option<super::scenario::Outro>) -> Result<String, RunError> {
        // Who is standing is told as the end is decided, before outros and end hooks change it.
        self.tell_ended();
        let mut reason = self.clock.ended.clone().unwrap_or_default().into_owned();
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
    fn outro(&mut self, spec: super::scenario::Outro, reason: &str) -> Result<String, RunError> {
        let r = self.ruleset();
        let Some(outro) = r.outros.get(spec.outro) else { return Ok(reason.to_string()) };
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
        let seated = self.world.seating.iter().filter(|w| self.world.present[**w]).map(|w| vec![*w]).collect();
        *self.world.order_mut() = seated;
        for _ in 0..spec.rounds {
            self.clock.ended = None;
            self.clock.round += 1;
            self.clock.surprise_round = false;
            self.round()?;
        }
        self.clock.ended = None;
        Ok(format!("{reason}; outro {} for {} round(s)", outro.name, spec.rounds))
    }

    /// Every participant's pools, conditions and piles; and apart, each side's pools kept `per
    /// side`, once for the side, and the piles kept `shared` (once) and `per side` (once for
    /// each side).
    pub(crate) fn final_state(&self) -> (BTreeMap<Name, FinalState>, SidePools, TablePiles) {
        let r = self.ruleset();
        let mut sides = SidePools::new();
        for w in (0..self.world.n).filter(|&w| self.world.side_first(w) == w) {
            let pools: BTreeMap<Name, i64> = (r.pools.iter().enumerate())
                .filter(|(_, pool)| pool.per_side)
                .map(|(p, _)| (self.names.pool[p].clone(), self.world.pool(w, ir::PoolId(p as u32))))
                .collect();
            if let (false, Some(side)) = (pools.is_empty(), self.names.side.get(self.world.sides[w] as usize)) {
                sides.insert(side.clone(), pools);
            }
        }
        let mut table = TablePiles::default();
        for (p, pile) in r.piles.iter().enumerate() {
            let (name, id) = (self.names.pile[p].clone(), ir::PileId(p as u32));
            if pile.shared && self.world.n > 0 {
                table.shared.insert(name, self.pile_items(0, id));
            } else if pile.per_side {
                for w in (0..self.world.n).filter(|&w| self.world.side_first(w) == w) {
                    if let Some(side) = self.names.side.get(self.world.sides[w] as usize) {
                        table.sides.entry(side.clone()).or_default().insert(name.clone(), self.pile_items(w, id));
                    }
                }
            }
        }
        let state = (0..self.world.n)
            .map(|w| {
                let pools = r
                    .pools
                    .iter()
                    .enumerate()
                    .filter(|(_, pool)| !pool.per_side)
                    .map(|(p, _)| (self.names.pool[p].clone(), self.world.pool(w, ir::PoolId(p as u32))))
                    .collect();
                let held = |c: usize| self.world.held.get(w, ir::ConditionId(c as u32)).map(|h| h.magnitude);
                let conditions = (0..r.conditions.len())
                    .filter(|c| held(*c).is_some())
                    .map(|c| self.names.condition[c].clone())
                    .collect();
                let magnitudes = (0..r.conditions.len())
                    .filter_map(|c| held(c).filter(|m| *m != 1).map(|m| (self.names.condition[c].clone(), m)))
                    .collect();
                let piles = (r.piles.iter().enumerate())
                    .filter(|(_, pile)| !pile.shared && !pile.per_side)
                    .map(|(p, _)| (self.names.pile[p].clone(), self.pile_items(w, ir::PileId(p as u32))))
                    .collect();
                (self.names.who[w].clone(), FinalState { pools, conditions, magnitudes, piles })
            })
            .collect();
        (state, sides, table)
    }

    /// What `who`'s pile holds: its items' names, one per item, in the order of their set.
    fn pile_items(&self, who: usize, pile: ir::PileId) -> Vec<Name> {
        let set = self.ruleset().piles.get(pile.index()).map_or(0, |p| p.set.index());
        let kinds = self.names.item.get(set);
        let held = self.world.piles.pile(who, pile);
        held.iter()
            .enumerate()
            .flat_map(|(k, n)| {
                let name = kinds.and_then(|names| names.get(k)).cloned();
                std::iter::repeat_n(name, *n as usize).flatten()
            })
            .collect()
    }

    /// Where each object is, in the scenario's order.
    pub(crate) fn final_objects(&self) -> Vec<super::trace::FinalObject> {
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
}
