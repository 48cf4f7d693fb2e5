//! Movement: where a move goes (toward, away, through, leaping), travelling step by step past
//! those who could answer it, and objects taken, dropped and landing.

use super::ctx::{Ctx, EventInfo};
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::Event;
use super::world::{Ground, MAX_POSITION};
use crate::ir::{self, Way};

impl<'r, S: Sink> Engine<'r, S> {
    /// `move [away|through] N [leap L]` by the rule's owner: nothing while something blocks its
    /// movement or there is nobody to move toward or away from; else it travels.
    pub(super) fn voluntary_move(
        &mut self,
        way: Way,
        amount: &ir::Expr,
        leap: Option<&ir::Expr>,
        c: &Ctx,
    ) -> Result<bool, RunError> {
        let mut n = self.eval(amount, c)?.max(0);
        if !self.pending.granted.is_empty() {
            n = self.granted_move(c.owner, n);
        }
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
            let r = self.ruleset();
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
        Some(self.world.walk(self.ruleset(), who, dir, gap.abs() + 1, n, Some(g), ground))
    }

    /// Voluntary movement of `who` to `to`. With `reach` declared, the way is cut where it
    /// steps into, out of, or first out of a place within, someone's reach, and each such event
    /// is offered there (the mover standing where it happens): an interrupting reaction that
    /// cancels it ends the move there and the rest of the rule (`true`); a mover that can no
    /// longer move, or was moved by an answer, stops there.
    fn travel(&mut self, who: usize, to: i64, c: &Ctx) -> Result<bool, RunError> {
        let r = self.ruleset();
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
            let info = EventInfo { action: None, custom: Some(event), emitter: c.acting, amount: None, timing: None };
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
        let closest = if matches!(self.ruleset().space, ir::Space::Zones(_)) { 0 } else { 1 };
        let gap = self.world.positions[goal] - self.world.positions[who];
        Some(self.world.walk(self.ruleset(), who, gap.signum(), (gap.abs() - closest).max(0), n, None, ground))
    }

    /// Voluntary movement away from `target`, or from the nearest standing enemy.
    /// Whether anything could answer `event` done by `actor` to `victim`, by who may answer it
    /// (a reaction's, trigger's or gain's `by` and `against`), or a readied action waiting for it.
    fn could_answer(&self, event: ir::EventId, actor: usize, victim: usize) -> bool {
        let r = self.ruleset();
        let info = EventInfo { action: None, custom: Some(event), emitter: None, amount: None, timing: None };
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
        Some(self.world.walk(self.ruleset(), who, dir, n, n, None, ground))
    }

    /// The object of `kind` nearest `who` within `reach` (ties: the first in the scenario):
    /// lying only (`lying`), or lying or held by others (as one takes hold of it with them).
    /// One `who` holds already is not found.
    pub(super) fn nearest_object(&self, kind: ir::ObjectId, who: usize, reach: i64, lying: bool) -> Option<usize> {
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
    pub(super) fn landing(&self, w: usize, c: &Ctx, toward: bool, n: i64) -> i64 {
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

    pub(super) fn take_hold(&mut self, o: usize, who: usize) {
        if self.world.objects[o].holders.contains(&who) {
            return;
        }
        self.world.objects[o].holders.push(who);
        self.changes_made += 1;
        let (object, name) = (self.world.objects[o].name.clone(), self.names.who[who].clone());
        self.emit(Event::Object { object, who: name, holds: true, at: None });
    }

    /// Records `who` letting go of object `o`; `lies`: where it now lies, if nobody holds it.
    pub(super) fn let_go(&mut self, o: usize, who: usize, lies: Option<i64>) {
        self.changes_made += 1;
        let (object, name) = (self.world.objects[o].name.clone(), self.names.who[who].clone());
        self.emit(Event::Object { object, who: name, holds: false, at: lies });
    }

    /// A position as `place` would hold it: inside the zone list, or within the edge.
    pub(super) fn bounded(&self, to: i64) -> i64 {
        match &self.ruleset().space {
            ir::Space::Zones(zones) => to.clamp(0, zones.len().saturating_sub(1) as i64),
            _ => to.clamp(-MAX_POSITION, MAX_POSITION),
        }
    }

    /// Moves a participant (kept inside the zone list when space is zones) and records it.
    pub(super) fn place(&mut self, who: usize, to: i64, forced: bool) {
        let to = self.bounded(to);
        let from = self.world.positions[who];
        if from == to {
            return;
        }
        self.world.place(who, to);
        self.changes_made += 1;
        let name = self.names.who[who].clone();
        self.emit(Event::Move { who: name, from, to, forced });
    }
}

/// What the policies ask of position: how far closing in is, and whether a move moves at all.
impl<S: Sink> Engine<'_, S> {
    /// Whether a move toward `target` (or, untargeted, the nearest standing enemy) would move
    /// nothing: the actor is already next to it (in its zone), where `move` stops.
    pub(crate) fn moves_nothing(&self, who: usize, target: Option<usize>, nearest: &[usize]) -> bool {
        let reach = if matches!(self.ruleset().space, ir::Space::Zones(_)) { 0 } else { 1 };
        match target {
            Some(t) if t != who => self.world.distance(t, who) <= reach,
            _ => self.closing_in(who, nearest).is_none(),
        }
    }

    /// The units a move closing in on the nearest enemy standing may take, most and fewest
    /// (melee reach is adjacency on a grid, the same zone with zones); `None` when none is
    /// needed or there is no one to close in on.
    #[inline]
    pub(crate) fn closing_in(&self, who: usize, nearest: &[usize]) -> Option<(i64, i64)> {
        let reach = if matches!(self.ruleset().space, ir::Space::Zones(_)) { 0 } else { 1 };
        // The nearest enemy standing (ties: scenario order), as `World::nearest_enemy` finds
        // it, but from the list already sorted.
        let closest = nearest
            .iter()
            .find(|&&o| self.world.relates(who, o, ir::Relation::Enemy) && self.world.standing(o))
            .map(|&o| self.world.distance(o, who))?;
        (closest > reach).then_some((closest - reach, 1))
    }
}
