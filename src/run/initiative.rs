//! Initiative: values rolled and adjusted, the order they make (by side, alternating, table),
//! ties broken, and the order written.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Event, Name, OrderEntry};
use crate::ir;

impl<'r, S: Sink> Engine<'r, S> {
    /// Makes initiative: values, adjustments, order and ties; emits `initiative`.
    pub(crate) fn make_initiative(&mut self) -> Result<(), RunError> {
        let r = self.ruleset();
        let init = &r.initiative;
        // Its rolls and the GM's choices on ties are the initiative's.
        let outer = self.under(init.loc);
        let first_time = self.world.order().is_empty();
        self.world.following.iter_mut().for_each(|f| *f = false);
        // Made anew: its ties are broken anew.
        self.world.forget_tie_rolls();
        for who in 0..self.world.n {
            if !self.world.present[who] {
                continue;
            }
            // `per side`: made once, for the side's first member here; the others share it.
            if init.value_per_side {
                let side = self.world.sides[who];
                let first = (0..who).find(|&o| self.world.present[o] && self.world.sides[o] == side);
                if let Some(o) = first {
                    self.world.initiative[who] = self.world.initiative[o];
                    continue;
                }
            }
            let c = Ctx { owner: who, ..Ctx::default() };
            let mut v = self.eval(&init.value, &c)?;
            if let (Some(adjust), true) = (&init.adjust, first_time) {
                let max = self.eval(adjust, &c)?;
                v = v.saturating_add(self.ask_adjust(who, max)?);
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

    /// `reorder immediately`: a change of initiative during a phase of turns orders everyone
    /// again at once (and the phase re-places those still to act); otherwise the next phase of
    /// turns does.
    pub(crate) fn reorder_now(&mut self) -> Result<(), RunError> {
        let init = &self.ruleset().initiative;
        if !init.reorder_now || !self.clock.turn_phase || self.clock.table_rounds {
            return Ok(());
        }
        // Its tie-breaks (rolls, the GM's choice) are the initiative's.
        let outer = self.under(init.loc);
        let done = self.order_by_initiative();
        self.rule = outer;
        done
    }

    /// Orders participants by the current values and tie-breaks; emits `initiative`.
    pub(crate) fn order_by_initiative(&mut self) -> Result<(), RunError> {
        let r = self.ruleset();
        let init = &r.initiative;
        // In seating order: every order below keeps it among equals.
        let present: Vec<usize> = self.world.seating.iter().copied().filter(|w| self.world.present[*w]).collect();
        let mut groups: Vec<Vec<usize>> = match init.order {
            // Drawn: nothing is ordered in advance; what runs in order outside the draws (timings,
            // step phases) follows the seating.
            ir::Order::Table | ir::Order::Drawn => present.iter().map(|w| vec![*w]).collect(),
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
        // Made again in the middle of a phase of turns: the rest of the phase follows it.
        self.clock.reordered |= self.clock.turn_phase;
        // A drawn order has nothing to write until each turn is drawn (a `drawn` event).
        if init.order != ir::Order::Drawn {
            self.emit_order();
        }
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

    /// Splits tied groups (each in seating order) with the tie-breaks from index `k` on;
    /// unbroken ties act in seating order, except `simultaneous`, which keeps them together.
    fn break_ties(&mut self, groups: Vec<Vec<usize>>, k: usize) -> Result<Vec<Vec<usize>>, RunError> {
        let r = self.ruleset();
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
                    let rolled = self.roll_off(group, e, k, 0)?;
                    out.extend(self.break_ties(rolled, k + 1)?);
                    continue;
                }
                ir::TieBreak::Roll(e) => {
                    let mut v = Vec::new();
                    for &w in &group {
                        v.push((-self.kept_roll(e, k, w, 0)?, w));
                    }
                    v
                }
                ir::TieBreak::Higher(e) => {
                    let mut v = Vec::new();
                    for &w in &group {
                        v.push((-self.eval(e, &Ctx { owner: w, ..Ctx::default() })?, w));
                    }
                    v
                }
                ir::TieBreak::Lower(e) => {
                    let mut v = Vec::new();
                    for &w in &group {
                        v.push((self.eval(e, &Ctx { owner: w, ..Ctx::default() })?, w));
                    }
                    v
                }
                ir::TieBreak::PlayersFirst => group.iter().map(|w| (i64::from(!self.world.players[*w]), *w)).collect(),
                ir::TieBreak::NonPlayersFirst => {
                    group.iter().map(|w| (i64::from(self.world.players[*w]), *w)).collect()
                }
                ir::TieBreak::Table => group.iter().map(|w| (self.world.seat[*w] as i64, *w)).collect(),
                ir::TieBreak::Gm => {
                    let mut order = group.clone();
                    if self.tables.gm == super::scenario::Policy::Random {
                        for i in (1..order.len()).rev() {
                            let j = self.below(i as u64 + 1) as usize;
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
            let seat = &self.world.seat;
            keyed.sort_by_key(|(key, w)| (*key, seat[*w]));
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

    /// `w`'s roll `depth` for tie-break `k`: the one kept since the order was made, else rolled
    /// now and kept, so a reorder before the order is made again (`reorder immediately`, values
    /// changed before a phase) breaks the same tie the same way, rolling only for those who have
    /// no kept roll.
    fn kept_roll(&mut self, e: &ir::Expr, k: usize, w: usize, depth: usize) -> Result<i64, RunError> {
        let w = self.side_roller(w);
        if let Some(v) = self.world.tie_roll(k, w, depth) {
            return Ok(v);
        }
        let v = self.eval(e, &Ctx { owner: w, ..Ctx::default() })?;
        self.world.keep_tie_roll(k, w, v);
        Ok(v)
    }

    /// Who rolls for `w`: `w`, or with `value ... per side` the first member of its side here,
    /// whose rolls (the value and each tie-break's) the whole side shares.
    fn side_roller(&self, w: usize) -> usize {
        if !self.ruleset().initiative.value_per_side {
            return w;
        }
        let side = self.world.sides[w];
        (0..self.world.n).find(|&o| self.world.present[o] && self.world.sides[o] == side).unwrap_or(w)
    }

    /// A roll-off for tie-break `k` among `group`, highest first, rolled again among those still
    /// tied until none is or `MAX_ROLL_OFFS` have been rolled: the groups in order (a group left
    /// is still tied). Rolls kept since the order was made are read, not rolled again.
    fn roll_off(
        &mut self,
        group: Vec<usize>,
        e: &ir::Expr,
        k: usize,
        rolled: u32,
    ) -> Result<Vec<Vec<usize>>, RunError> {
        // Members of one side share their rolls with `value ... per side`: rolling again
        // could never part them.
        let per_side = self.ruleset().initiative.value_per_side;
        let one_side = per_side && group.iter().all(|w| self.world.sides[*w] == self.world.sides[group[0]]);
        if group.len() < 2 || rolled >= ir::MAX_ROLL_OFFS || one_side {
            return Ok(vec![group]);
        }
        let mut keyed = Vec::with_capacity(group.len());
        for &w in &group {
            keyed.push((-self.kept_roll(e, k, w, rolled as usize)?, w));
        }
        let seat = &self.world.seat;
        keyed.sort_by_key(|(key, w)| (*key, seat[*w]));
        let mut out = Vec::new();
        let mut at = 0;
        while at < keyed.len() {
            let same = keyed[at..].iter().take_while(|(key, _)| *key == keyed[at].0).count();
            let tied: Vec<usize> = keyed[at..at + same].iter().map(|(_, w)| *w).collect();
            out.extend(self.roll_off(tied, e, k, rolled + 1)?);
            at += same;
        }
        Ok(out)
    }

    /// Writes the current order to the trace.
    pub(super) fn emit_order(&mut self) {
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
}
