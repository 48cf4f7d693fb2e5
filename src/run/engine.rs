//! The encounter: initiative, rounds of phases, turns, timings, the end, and downtime after.

use super::control::Decision;
use super::state::{Ctx, Engine};
use super::trace::{Cause, Event, FinalState, Name, OrderEntry};
use super::RunError;
use crate::ir::{self, ActionKind, PhaseKind, Timing, TurnStep};
use rand_core::RngCore;
use std::collections::BTreeMap;

impl<'r> Engine<'r> {
    /// Makes initiative: values, adjustments, order and ties; emits `initiative`.
    pub fn make_initiative(&mut self) -> Result<(), RunError> {
        let r = self.r;
        let init = &r.initiative;
        let first_time = self.order.is_empty();
        self.following.iter_mut().for_each(|f| *f = false);
        for who in 0..self.n {
            if !self.present[who] {
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
            self.initiative[who] = v;
        }
        self.order_by_initiative()
    }

    /// Orders participants by the current values and tie-breaks; emits `initiative`.
    pub fn order_by_initiative(&mut self) -> Result<(), RunError> {
        let r = self.r;
        let init = &r.initiative;
        let present: Vec<usize> = (0..self.n).filter(|w| self.present[*w]).collect();
        let mut groups: Vec<Vec<usize>> = match init.order {
            ir::Order::Table => present.iter().map(|w| vec![*w]).collect(),
            ir::Order::BySide => {
                let mut sides: Vec<u32> = Vec::new();
                let player_sides = present.iter().filter(|w| self.players[**w]).map(|w| self.sides[*w]);
                for s in player_sides.chain(present.iter().map(|w| self.sides[*w])) {
                    if !sides.contains(&s) {
                        sides.push(s);
                    }
                }
                sides.iter().flat_map(|s| present.iter().filter(|w| self.sides[**w] == *s).map(|w| vec![*w])).collect()
            }
            ir::Order::HighestFirst | ir::Order::LowestFirst => {
                let mut sorted = present.clone();
                let high = init.order == ir::Order::HighestFirst;
                // Doubled, so a follower sorts half a step ahead of the others at its value.
                let keys: Vec<i64> = (0..self.n)
                    .map(|w| {
                        let v = self.initiative[w].saturating_mul(2);
                        let v = if high { v.saturating_neg() } else { v };
                        v.saturating_sub(i64::from(self.following[w]))
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
        self.order = groups;
        self.ordered_values = self.initiative.clone();
        self.emit_order();
        Ok(())
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
                ir::TieBreak::Higher(e) | ir::TieBreak::Roll(e) => {
                    let mut v = Vec::new();
                    for &w in &group {
                        v.push((-self.eval(e, &Ctx { owner: w, ..Ctx::default() })?, w));
                    }
                    v
                }
                ir::TieBreak::PlayersFirst => group.iter().map(|w| (i64::from(!self.players[*w]), *w)).collect(),
                ir::TieBreak::Table => group.iter().map(|w| (*w as i64, *w)).collect(),
                ir::TieBreak::Gm => {
                    let mut order = group.clone();
                    if self.gm == super::scenario::Policy::Random {
                        for i in (1..order.len()).rev() {
                            let j = (self.rng.next_u64() % (i as u64 + 1)) as usize;
                            order.swap(i, j);
                        }
                    }
                    let names: Vec<&str> = order.iter().map(|w| &*self.names[*w]).collect();
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
        self.fresh_budget();
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
                    for (i, cond) in r.conditions.iter().enumerate() {
                        if cond.positive != want || !self.has(who, ir::ConditionId(i as u32)) {
                            continue;
                        }
                        let source = self.held(who, ir::ConditionId(i as u32)).and_then(|h| h.source);
                        for (at, effects) in &cond.hooks {
                            if *at == t {
                                let cause = Cause::Named(self.condition_names[i].clone());
                                self.run_effects(effects, &Ctx { source, ..c }, &cause)?;
                            }
                        }
                    }
                    if *step == TurnStep::Hooks {
                        for hook in &r.hooks {
                            if hook.timing != t {
                                continue;
                            }
                            if let Some(g) = &hook.guard {
                                if self.eval(g, &c)? == 0 {
                                    continue;
                                }
                            }
                            let cause = super::trace::Cause::Hook(self.timing_name(t));
                            self.run_effects(&hook.effects, &c, &cause)?;
                        }
                    }
                }
                TurnStep::Maintain => {
                    for (i, cond) in r.conditions.iter().enumerate() {
                        let id = ir::ConditionId(i as u32);
                        if !self.has(who, id) {
                            continue;
                        }
                        for (at, effects) in &cond.maintain {
                            if *at != t {
                                continue;
                            }
                            let saved = std::mem::replace(&mut self.cancelled, false);
                            let cause = Cause::Maintain(self.condition_names[i].clone());
                            let source = self.held(who, id).and_then(|h| h.source);
                            self.run_effects(effects, &Ctx { source, ..c }, &cause)?;
                            if std::mem::replace(&mut self.cancelled, saved) {
                                self.remove(who, id);
                            }
                        }
                    }
                }
                TurnStep::Expire => {
                    for i in 0..r.conditions.len() {
                        let id = ir::ConditionId(i as u32);
                        if self.held(who, id).is_some_and(|h| h.until == Some(t)) {
                            self.remove(who, id);
                        }
                    }
                }
            }
        }
        Ok(())
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
            if self.ended.is_some() && t != Timing::EncounterEnd {
                break;
            }
            self.at_for(who, t, &all)?;
        }
        self.buf_in_order = order;
        self.settle()
    }

    /// Everyone present in initiative order, in a reused buffer; give it back in
    /// `buf_in_order` when done.
    fn in_order(&mut self) -> Vec<usize> {
        let mut seen = std::mem::take(&mut self.buf_seen);
        seen.clear();
        seen.resize(self.n, false);
        let mut out = std::mem::take(&mut self.buf_in_order);
        out.clear();
        for w in self.order.iter().flatten().copied().chain(0..self.n) {
            if self.present[w] && !seen[w] {
                seen[w] = true;
                out.push(w);
            }
        }
        self.buf_seen = seen;
        out
    }

    /// A scripted delay: `who` steps out of its place at `at` and re-enters right after a
    /// participant still to act this round, keeping that place in later rounds (002). Returns
    /// true when the queue changed.
    fn delay(&mut self, who: usize, queue: &mut Vec<Vec<usize>>, at: usize) -> bool {
        let round = self.round;
        let Some(after) = self.take_step(who, |s| match s {
            super::scenario::Step::Delay { round: r, after } if *r == round => Some(after.clone()),
            _ => None,
        }) else {
            return false;
        };
        let name = self.names[who].clone();
        if !self.r.initiative.allow.delay {
            self.not_allowed(who, "delay", "the ruleset does not allow delaying");
            return false;
        }
        let Some(other) = self.names.iter().position(|n| **n == *after) else { return false };
        let Some(place) = queue.iter().skip(at + 1).position(|g| g.contains(&other)).map(|p| p + at + 1) else {
            let reason = format!("{after} has already acted this round");
            self.emit(Event::Rejected { actor: name, action: "delay".into(), code: "not-now", reason: reason.into() });
            return false;
        };
        queue.remove(at);
        queue.insert(place, vec![who]);
        // Keep the new place for later rounds.
        self.order.retain(|g| g.as_slice() != [who]);
        let pos = self.order.iter().position(|g| g.contains(&other)).map_or(self.order.len(), |p| p + 1);
        self.order.insert(pos, vec![who]);
        let answer = Name::from(format!("after {after}"));
        let question = self.intern("delay");
        self.emit(Event::Choice { who: name, question, answer });
        true
    }

    /// A scripted stay, delay or ready the ruleset does not `allow`: a `rejected` event.
    fn not_allowed(&mut self, who: usize, what: &'static str, reason: &'static str) {
        let actor = self.names[who].clone();
        let action = self.intern(what);
        self.emit(Event::Rejected { actor, action, code: "not-allowed", reason: reason.into() });
    }

    /// Scripted stays: a later place chosen once, when the encounter starts, then locked (004).
    fn stays(&mut self) -> Result<(), RunError> {
        let mut moved = false;
        for who in 0..self.n {
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
            let Some(other) = self.names.iter().position(|n| **n == *after) else { continue };
            let mine = self.order.iter().position(|g| g.contains(&who));
            let theirs = self.order.iter().position(|g| g.contains(&other));
            if let (Some(m), Some(t)) = (mine, theirs) {
                // Sharing a tied group with them, one leaves it for the place right after it.
                if t > m || (t == m && other != who) {
                    self.order[m].retain(|w| *w != who);
                    self.order.insert(t + 1, vec![who]);
                    self.order.retain(|g| !g.is_empty());
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
            .order
            .iter()
            .map(|g| match g.as_slice() {
                [one] => OrderEntry::One(self.names[*one].clone()),
                many => OrderEntry::Together(many.iter().map(|w| self.names[*w].clone()).collect()),
            })
            .collect();
        let values =
            (0..self.n).filter(|w| self.present[*w]).map(|w| (self.names[w].clone(), self.initiative[w])).collect();
        self.last_order = Some(order.clone());
        self.emit(Event::Initiative { order, values });
    }

    /// Multi-round actions of `who` are paid again; the last payment resolves them.
    fn continue_ongoing(&mut self, who: usize) -> Result<(), RunError> {
        let mut i = 0;
        while i < self.ongoing.len() {
            if self.ongoing[i].who != who {
                i += 1;
                continue;
            }
            let mut going = self.ongoing.remove(i);
            let action = &self.r.actions[going.action.index()];
            let (actor, name) = (self.names[who].clone(), self.action_names[going.action.index()].clone());
            // Continuing costs what the action costs now; it cannot be paid while blocked.
            let cost = self.cost_of(who, going.action, &going.ctx, None)?;
            let mut paid = self.blocked(who, action.kind).is_none();
            for (p, amount) in &cost {
                let min = self.pool_min(who, *p)?;
                paid &= self.pool(who, *p) - amount >= min && self.spend_blocked(who, *p).is_none();
            }
            if paid {
                for (p, amount) in cost {
                    let now = self.pool(who, p);
                    self.set_pool_raw(who, p, now - amount, &Cause::Continued(name.clone()));
                }
            }
            if !paid {
                self.emit(Event::Ongoing { actor, action: name, outcome: "lost: it could not be paid" });
                continue;
            }
            going.left -= 1;
            if going.left > 0 {
                self.ongoing.insert(i, going);
                i += 1;
            } else {
                self.emit(Event::Ongoing { actor, action: name.clone(), outcome: "complete" });
                let effects = action.effects.clone();
                self.run_effects(&effects, &going.ctx, &Cause::Named(name))?;
                self.settle()?;
            }
        }
        Ok(())
    }

    /// One participant's turn, or a tied group's acting together: their turns all start, then
    /// each acts in turn, then their turns all end (004: tied participants gain their slots
    /// simultaneously). The surprised have no turn in the surprise round.
    fn turns(&mut self, group: &[usize]) -> Result<(), RunError> {
        let r = self.r;
        let mut members = std::mem::take(&mut self.buf_members);
        members.clear();
        for &who in group {
            if !self.present[who] {
                continue;
            }
            let round = self.round;
            if self
                .take_step(who, |s| matches!(s, super::scenario::Step::Leave { round: r } if *r == round).then_some(()))
                .is_some()
            {
                self.present[who] = false;
                let name = self.names[who].clone();
                self.emit(Event::Leave { who: name });
                self.check_end();
                continue;
            }
            if (self.surprise_round && self.surprised[who]) || self.holding[who] {
                continue;
            }
            members.push(who);
        }
        for &who in &members {
            self.active = Some(who);
            let actor = self.names[who].clone();
            self.emit(Event::TurnStart { actor });
            self.turn_over = false;
            self.at_for(who, Timing::TurnStart, &r.turn_start)?;
            self.settle()?;
            self.continue_ongoing(who)?;
            // An `end_turn` reached from the turn start (a drain to 0 slots) ends this turn
            // before it is played; the flag would otherwise be reset for the acting loop.
            self.ended_at_start[who] = self.turn_over;
        }
        for &who in &members {
            if self.ended.is_some() {
                break;
            }
            self.turn_seq += 1;
            self.active = Some(who);
            self.controls[who].taken = 0;
            self.turn_over = self.ended_at_start[who];
            // An incapacitated participant's turn ends at once; start and end still happen.
            let acting = !self.turn_over
                && (self.blocked(who, ActionKind::Action).is_none() || self.blocked(who, ActionKind::Free).is_none());
            if acting {
                if let Some(ready) = self.ask_ready(who) {
                    let name = self.names[who].clone();
                    if r.initiative.allow.ready {
                        let action = self.action_names[ready.action.index()].clone();
                        let question = self.intern("ready");
                        self.emit(Event::Choice { who: name, question, answer: action });
                        self.readied.push(ready);
                        self.holding[who] = true;
                    } else {
                        self.not_allowed(who, "ready", "the ruleset does not allow readying");
                    }
                    continue;
                }
            }
            while acting && !self.turn_over && self.ended.is_none() && self.present[who] {
                match self.ask_turn(who)? {
                    Decision::EndTurn => break,
                    Decision::Act { action, target, units } => {
                        self.controls[who].taken += 1;
                        self.fresh_budget();
                        self.declare(who, action, target, units, None)?;
                        self.check_end();
                    }
                }
            }
        }
        for &who in &members {
            if !self.holding[who] {
                self.end_turn_of(who)?;
            }
        }
        self.active = None;
        self.buf_members = members;
        Ok(())
    }

    /// The end of one participant's turn: its turn-end work, then the `turn_end` event.
    pub(super) fn end_turn_of(&mut self, who: usize) -> Result<(), RunError> {
        let r = self.r;
        let saved = self.active;
        self.active = Some(who);
        let actor = self.names[who].clone();
        self.at_for(who, Timing::TurnEnd, &r.turn_end)?;
        self.settle()?;
        self.emit(Event::TurnEnd { actor });
        self.active = saved;
        Ok(())
    }

    /// The encounter ends when one side is left standing (or none).
    pub fn check_end(&mut self) {
        if self.ended.is_some() || self.table_rounds {
            return;
        }
        // Which sides still have someone standing: none, one, or more than one.
        let mut first: Option<u32> = None;
        for w in 0..self.n {
            if self.standing(w) {
                match first {
                    None => first = Some(self.sides[w]),
                    Some(side) if side != self.sides[w] => return,
                    Some(_) => {}
                }
            }
        }
        self.ended = Some(match first {
            Some(_) => "one side is left standing".into(),
            None => "nobody is left standing".into(),
        });
    }

    fn round(&mut self) -> Result<(), RunError> {
        let r = self.r;
        self.in_round = true;
        for log in &mut self.round_log {
            log.clear();
        }
        self.gained.clear();
        self.emit(Event::RoundStart {});
        if r.initiative.made_at == Timing::RoundStart && self.round > 1 && !self.table_rounds {
            self.make_initiative()?;
        }
        self.at_all(Timing::RoundStart)?;
        for (p, phase) in r.phases.iter().enumerate() {
            if self.ended.is_some() {
                break;
            }
            if let Some(g) = &phase.guard {
                if self.eval(g, &Ctx::default())? == 0 {
                    continue;
                }
            }
            let id = ir::PhaseId(p as u32);
            self.phase_at = p;
            self.phase_seq += 1;
            self.emit(Event::PhaseStart { phase: self.phase_names[p].clone() });
            self.at_all(Timing::PhaseStart(id))?;
            match &phase.kind {
                PhaseKind::Turns => {
                    // Initiative changed since the order was made (an effect, a `follow`): the
                    // new values order the turns from this phase on, never turns already taken.
                    if self.initiative != self.ordered_values && !self.table_rounds {
                        self.order_by_initiative()?;
                    }
                    self.allowed = Some(super::state::TURN_KINDS);
                    self.turn_phase = true;
                    // The order, in a reused buffer, as this round's queue (delays change it).
                    let mut queue = std::mem::take(&mut self.buf_queue);
                    queue.clone_from(&self.order);
                    let mut gi = 0;
                    while gi < queue.len() {
                        if self.ended.is_some() {
                            break;
                        }
                        if let [who] = queue[gi].as_slice() {
                            let who = *who;
                            if self.delay(who, &mut queue, gi) {
                                continue;
                            }
                        }
                        let last = queue.iter().rposition(|g| g.iter().any(|w| self.present[*w]));
                        self.final_turn = Some(gi) == last;
                        self.turns(&queue[gi])?;
                        gi += 1;
                    }
                    self.buf_queue = queue;
                    self.final_turn = false;
                    self.turn_phase = false;
                }
                PhaseKind::Simultaneous(kinds) => {
                    let kinds: &'r [ActionKind] = if kinds.is_empty() { &ActionKind::ALL } else { kinds };
                    self.allowed = Some(kinds);
                    // Everyone declares (and pays) in initiative order, then all resolve; the
                    // engine resolves each declaration as it is paid for, in that same order.
                    let order = self.in_order();
                    for &who in &order {
                        if self.ended.is_some() {
                            break;
                        }
                        if self.surprise_round && self.surprised[who] {
                            continue;
                        }
                        self.turn_seq += 1;
                        self.controls[who].taken = 0;
                        self.turn_over = false;
                        while !self.turn_over && self.ended.is_none() {
                            match self.ask_turn(who)? {
                                Decision::EndTurn => break,
                                Decision::Act { action, target, units } => {
                                    self.controls[who].taken += 1;
                                    self.fresh_budget();
                                    self.declare_or_defer(who, action, target, units, None, true)?;
                                }
                            }
                        }
                    }
                    self.buf_in_order = order;
                    // Then everything declared resolves, in initiative order, all of it before the
                    // encounter can end.
                    for d in std::mem::take(&mut self.deferred) {
                        self.fresh_budget();
                        self.resolve(d.who, d.action, d.target, d.ctx, &d.cause, false)?;
                    }
                    self.check_end();
                }
                PhaseKind::Step(effects) => {
                    let order = self.in_order();
                    for &who in &order {
                        self.fresh_budget();
                        let cause = Cause::Named(self.phase_names[p].clone());
                        self.run_effects(effects, &Ctx { owner: who, ..Ctx::default() }, &cause)?;
                    }
                    self.buf_in_order = order;
                    self.settle()?;
                }
            }
            self.allowed = None;
            self.at_all(Timing::PhaseEnd(id))?;
            self.emit(Event::PhaseEnd { phase: self.phase_names[p].clone() });
        }
        // A ready that did not happen this round is dropped, unless it keeps waiting; the
        // turn it held open ends now.
        let mut i = 0;
        while i < self.readied.len() {
            if self.readied[i].keep {
                i += 1;
                continue;
            }
            let who = self.readied.remove(i).who;
            self.holding[who] = false;
            if self.present[who] {
                self.end_turn_of(who)?;
            }
        }
        self.at_all(Timing::RoundEnd)?;
        // Durations counted in rounds tick down at the end of each round.
        for who in 0..self.n {
            for c in 0..r.conditions.len() {
                let at = who * r.conditions.len() + c;
                let expired = match self.conds[at].as_mut().and_then(|h| h.rounds_left.as_mut()) {
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
        self.in_round = false;
        Ok(())
    }

    /// Plays the encounter to its end and returns why it ended.
    pub fn encounter(
        &mut self,
        max_rounds: u32,
        outro: Option<&super::scenario::OutroSpec>,
    ) -> Result<String, RunError> {
        let names = self.names.clone();
        self.emit(Event::EncounterStart { participants: names });
        self.make_initiative()?;
        if let Some(Event::Initiative { order, .. }) = self.records.last().map(|r| r.event.clone()) {
            self.last_order = Some(order);
        }
        self.stays()?;
        self.at_all(Timing::EncounterStart)?;
        while self.ended.is_none() {
            if self.round >= max_rounds {
                self.ended = Some(format!("the round limit ({max_rounds}) was reached"));
                break;
            }
            self.round += 1;
            self.surprise_round = self.round == 1 && self.surprised.iter().any(|s| *s);
            self.round()?;
            self.check_end();
        }
        let mut reason = self.ended.clone().unwrap_or_default();
        if let Some(spec) = outro {
            reason = self.outro(spec, &reason)?;
        }
        let saved = self.ended.take();
        self.at_all(Timing::EncounterEnd)?;
        self.ended = saved;
        Ok(reason)
    }

    /// Winds the encounter down: the outro's effects for everyone; an outro that continues
    /// plays more rounds in table order, without initiative, upkeep and all (004).
    fn outro(&mut self, spec: &super::scenario::OutroSpec, reason: &str) -> Result<String, RunError> {
        let r = self.r;
        let Some(outro) = r.outros.iter().find(|o| o.name == spec.name) else { return Ok(reason.to_string()) };
        self.ended = None;
        for who in 0..self.n {
            let cause = Cause::Named(Name::from(outro.name.as_str()));
            self.run_effects(&outro.effects, &Ctx { owner: who, ..Ctx::default() }, &cause)?;
        }
        self.settle()?;
        if !outro.continues {
            return Ok(format!("{reason}; outro {}", outro.name));
        }
        self.table_rounds = true;
        self.order = (0..self.n).filter(|w| self.present[*w]).map(|w| vec![w]).collect();
        for _ in 0..spec.rounds {
            self.ended = None;
            self.round += 1;
            self.surprise_round = false;
            self.round()?;
        }
        self.ended = None;
        Ok(format!("{reason}; outro {} for {} round(s)", outro.name, spec.rounds))
    }

    /// Every participant's pools and conditions.
    pub fn final_state(&self) -> BTreeMap<Name, FinalState> {
        let r = self.r;
        (0..self.n)
            .map(|w| {
                let pools = r
                    .pools
                    .iter()
                    .enumerate()
                    .map(|(p, _)| (self.pool_names[p].clone(), self.pool(w, ir::PoolId(p as u32))))
                    .collect();
                let conditions = (0..r.conditions.len())
                    .filter(|c| self.has(w, ir::ConditionId(*c as u32)))
                    .map(|c| self.condition_names[c].clone())
                    .collect();
                (self.names[w].clone(), FinalState { pools, conditions })
            })
            .collect()
    }

    /// Hours of downtime after the encounter; an interrupted hour recovers nothing.
    /// Plays the hours of downtime; returns how many hours at its end went uninterrupted.
    pub fn downtime(&mut self, hours: u32, interrupted: Option<u32>) -> Result<u32, RunError> {
        let r = self.r;
        self.round = 0;
        let mut since_start = 0u32;
        for hour in 1..=hours {
            self.fresh_budget();
            self.emit(Event::Downtime { hour });
            if Some(hour) == interrupted {
                // Time must restart for recovery to resume.
                since_start = 0;
                continue;
            }
            since_start += 1;
            for d in &r.downtime {
                let every = self.eval(&d.every_hours, &Ctx::default())?;
                if every > 0 && i64::from(since_start) % every == 0 {
                    for who in 0..self.n {
                        self.run_effects(
                            &d.effects,
                            &Ctx { owner: who, ..Ctx::default() },
                            &Cause::Static("downtime"),
                        )?;
                    }
                }
            }
            self.settle()?;
        }
        Ok(since_start)
    }

    /// Takes a rest for everyone. `slept` is the uninterrupted hours the downtime ended with
    /// (`None` without downtime: the rest is simply taken); a rest of `hours N` needs N.
    pub fn rest(&mut self, name: &str, slept: Option<u32>) -> Result<(), RunError> {
        let r = self.r;
        if let Some(rest) = r.rests.iter().find(|x| x.name == name) {
            let needed = match &rest.hours {
                Some(h) => self.eval(h, &Ctx::default())?,
                None => 0,
            };
            let label = Name::from(rest.name.as_str());
            if let Some(slept) = slept.filter(|s| i64::from(*s) < needed) {
                let outcome = format!("cut short: {slept} of {needed} uninterrupted hours");
                self.emit(Event::Rest { rest: label, outcome });
                return Ok(());
            }
            self.emit(Event::Rest { rest: label, outcome: "taken".into() });
            for who in 0..self.n {
                let cause = Cause::Named(Name::from(rest.name.as_str()));
                self.run_effects(&rest.effects, &Ctx { owner: who, ..Ctx::default() }, &cause)?;
            }
            self.settle()?;
        }
        Ok(())
    }
}
