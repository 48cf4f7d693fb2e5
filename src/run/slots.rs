//! Who takes a turn: `turns requires COND` leaves out those for whom it fails, and with
//! `slots by side` each place in the turn order is a slot of its holder's side, taken by one of
//! that side who has not yet had a turn in the phase: the side's choice when several could. A
//! slot nobody can take passes with no turn, so nothing counts it as one.

use super::controller::{Chosen, Decision, Step};
use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Event, Name};
use crate::ir::{self, Timing};

impl<'r, S: Sink> Engine<'r, S> {
    /// `turns requires COND`: whether `who` takes a turn in the phase being played (always,
    /// without one). Dice it rolls are the phase's.
    pub(super) fn takes_turn(&mut self, who: usize) -> Result<bool, RunError> {
        let phase = &self.ruleset().phases[self.clock.phase_at];
        let Some(cond) = &phase.takes else { return Ok(true) };
        let outer = self.under(phase.loc);
        let holds = self.eval(cond, &Ctx { owner: who, ..Ctx::default() });
        self.rule = outer;
        Ok(holds? != 0)
    }

    /// `repeat while COND`: whether phase `p`, just played, is played again: COND holds for
    /// anyone present and the round has played it fewer than `MAX_PASSES` times in a row
    /// (`passes`: the phase last played and how many times).
    pub(super) fn again(&mut self, p: usize, passes: &mut (usize, u32)) -> Result<bool, RunError> {
        let phase = &self.ruleset().phases[p];
        *passes = if passes.0 == p { (p, passes.1 + 1) } else { (p, 1) };
        let Some(cond) = phase.again.as_ref().filter(|_| passes.1 < crate::ir::MAX_PASSES) else {
            return Ok(false);
        };
        if self.clock.ended.is_some() {
            return Ok(false);
        }
        let outer = self.under(phase.loc);
        let mut holds = false;
        for who in 0..self.world.n {
            if self.world.present[who] && self.eval(cond, &Ctx { owner: who, ..Ctx::default() })? != 0 {
                holds = true;
                break;
            }
        }
        self.rule = outer;
        if !holds {
            passes.1 = 0;
        }
        Ok(holds)
    }

    /// The members of `group` who take a turn in the phase being played.
    pub(super) fn takers(&mut self, group: &[usize]) -> Result<Vec<usize>, RunError> {
        let mut out = Vec::with_capacity(group.len());
        for &w in group {
            if self.takes_turn(w)? {
                out.push(w);
            }
        }
        Ok(out)
    }

    /// The slot held by `holder` comes up: those of its side in the order who are here, not
    /// surprised, not holding a readied action, standing and without a turn in this phase
    /// (`taken`) may take it; of them, those who could afford some action once their turn has
    /// started are the options (none: the first who may, without a choice). With more than one
    /// option the first of them decides (`choose_taker`). Returns who takes it, after saying in
    /// the trace who chose or who takes it when it is not the holder, or that the slot passes;
    /// `None` when nobody can.
    pub(super) fn slot_taker(&mut self, holder: usize, taken: &[bool]) -> Result<Option<usize>, RunError> {
        let side = self.world.sides[holder];
        let mut first = None;
        let mut able = Vec::new();
        let order = self.in_order();
        for &w in &order {
            let free = self.world.sides[w] == side
                && !taken.get(w).copied().unwrap_or(true)
                && self.world.standing(w)
                && !(self.clock.surprise_round && self.world.surprised[w])
                && !self.pending.holding[w];
            // The holder's own `turns requires` held when its slot came up.
            if !free || (w != holder && !self.takes_turn(w)?) {
                continue;
            }
            first = first.or(Some(w));
            if self.as_if_its_turn(w, |e| e.affords_anything(w))? {
                able.push(w);
            }
        }
        self.scratch.in_order = order;
        let rule = Some(self.ruleset().initiative.loc);
        let slot = Name::from(format!("{}'s slot", self.names.who[holder]));
        let who = match able.as_slice() {
            [_, _, ..] => {
                let decider = able[0];
                let pick = self.choose_taker(decider, &able)?;
                let question = Name::from(format!("who takes {slot}"));
                let (who, answer) = (self.names.who[decider].clone(), self.names.who[pick].clone());
                self.emit_by(Event::Choice { who, question, answer }, rule);
                return Ok(Some(pick));
            }
            [one] => Some(*one),
            [] => first,
        };
        if who != Some(holder) {
            let side = self.names.side.get(side as usize).cloned().unwrap_or_else(|| Name::from("its side"));
            let taker = who.map(|w| self.names.who[w].clone());
            self.emit_by(Event::Slot { holder: self.names.who[holder].clone(), side, taker }, rule);
        }
        Ok(who)
    }

    /// Who of `options` (two or more, in the order) `decider` gives the slot to: a script's
    /// `Slot` step for this round naming one of them; else `Search` plays each forward; else
    /// the policy's pick (`policy_taker`), `Search` falling back to `Greedy`'s.
    pub(super) fn choose_taker(&mut self, decider: usize, options: &[usize]) -> Result<usize, RunError> {
        let round = self.clock.round;
        let scripted = self.take_step(decider, |s| match *s {
            Step::Slot { round: r, taker } if r == round && options.contains(&taker) => Some(taker),
            _ => None,
        });
        if let Some(taker) = scripted {
            return Ok(taker);
        }
        if self.taped(decider) {
            let choices: Vec<super::lookahead::Logged> =
                (0..options.len()).map(super::lookahead::Logged::Choice).collect();
            if let Some(super::lookahead::Logged::Choice(i)) = self.taped_pick(decider, &choices) {
                return Ok(options.get(i).copied().unwrap_or(options[0]));
            }
        }
        let policy = self.controls[decider].policy;
        if let Chosen::Search(params) = policy {
            // Accounted for in `--decisions` as a choice of its own (accounts.rs): the question
            // `slot`, an option per member who may take it.
            let outer = if self.decisions {
                let names = options.iter().map(|w| self.names.who[*w].clone()).collect();
                self.scratch.choice.replace((self.names.intern("slot"), names))
            } else {
                self.scratch.choice.take()
            };
            let picked = self.search_choice(decider, params, options.len(), |_| true);
            self.scratch.choice = outer;
            if let Some(i) = picked? {
                return Ok(options.get(i).copied().unwrap_or(options[0]));
            }
        }
        let policy = if matches!(policy, Chosen::Search(_)) { Chosen::Greedy } else { policy };
        self.policy_taker(policy, options)
    }

    /// A policy's taker among `options`, each weighed as its own turn would start: `Greedy`
    /// the one whose best candidate scores highest; `Aggressive` and `HoldBack` the first who
    /// has an action with a target that is not movement; `Random` one at random; `Passive`
    /// the first. The first of equals.
    fn policy_taker(&mut self, policy: Chosen, options: &[usize]) -> Result<usize, RunError> {
        match policy {
            Chosen::Passive => Ok(options[0]),
            Chosen::Random => {
                let k = self.below(options.len() as u64) as usize;
                Ok(options.get(k).copied().unwrap_or(options[0]))
            }
            Chosen::Greedy | Chosen::Search(_) => {
                let mut best: Option<(usize, f64)> = None;
                for &w in options {
                    let value = self.as_if_its_turn(w, |e| e.best_score(w))??;
                    if best.is_none_or(|(_, b)| value > b) {
                        best = Some((w, value));
                    }
                }
                Ok(best.map_or(options[0], |(w, _)| w))
            }
            Chosen::Aggressive | Chosen::HoldBack(..) => {
                for &w in options {
                    let mut found = std::mem::take(&mut self.scratch.decisions);
                    let listed = self.as_if_its_turn(w, |e| e.candidates(w, policy, &mut found))?;
                    let attacks = listed.is_ok()
                        && found.iter().any(|d| matches!(d, Decision::Act { target: Some(_), units: None, .. }));
                    self.scratch.decisions = found;
                    if attacks {
                        return Ok(w);
                    }
                }
                Ok(options[0])
            }
        }
    }

    /// The best score `Greedy` gives one of `who`'s candidates (0 with none).
    fn best_score(&mut self, who: usize) -> Result<f64, RunError> {
        let mut found = std::mem::take(&mut self.scratch.decisions);
        let listed = self.candidates(who, Chosen::Greedy, &mut found);
        let mut best = 0.0f64;
        for d in found.iter().filter(|_| listed.is_ok()) {
            let Decision::Act { action, target, units } = *d else { continue };
            let paid = match self.dry_plan(who, action, target, units)? {
                Ok(plan) => plan.paid,
                Err(_) => Default::default(),
            };
            best = best.max(self.score_action(who, action, target, units, &paid));
        }
        self.scratch.decisions = found;
        Ok(best)
    }

    /// `f` run as if `who`'s turn had started: it is the active participant, and its pools that
    /// refresh at `turn_start` unguarded are full (a meter's empty). Weighs who could take a
    /// slot before anyone's turn starts; the state is put back as it was, and nothing is written.
    pub(super) fn as_if_its_turn<T>(&mut self, who: usize, f: impl FnOnce(&mut Self) -> T) -> Result<T, RunError> {
        let r = self.ruleset();
        let mut saved = Vec::new();
        for (p, pool) in r.pools.iter().enumerate() {
            let refreshed = pool
                .at
                .iter()
                .any(|s| s.timing == Timing::TurnStart && s.guard.is_none() && matches!(s.op, ir::PoolOp::Refresh));
            if !refreshed {
                continue;
            }
            let id = ir::PoolId(p as u32);
            let at = self.world.pool_at(who, id);
            let now = self.world.pools[at];
            // As the refresh would: a pool with no max keeps what it has.
            let to = if pool.rising { self.pool_min(who, id)? } else { self.pool_max(who, id)?.unwrap_or(now) };
            saved.push((at, now, to));
        }
        // Set only once every bound is read: an error leaves the state as it was.
        for &(at, _, to) in &saved {
            self.world.pools[at] = to;
        }
        let (active, dry) = (self.clock.active, self.dry);
        self.clock.active = Some(who);
        self.dry = true;
        let out = f(self);
        self.clock.active = active;
        self.dry = dry;
        for (at, was, _) in saved {
            self.world.pools[at] = was;
        }
        Ok(out)
    }
}
