//! Who takes a turn: `turns requires COND` leaves out those for whom it fails, and with
//! `slots by side` each place in the turn order is a slot of its holder's side, and whoever of
//! that side has not yet had a turn in the phase takes it. A slot nobody can take passes with
//! no turn, so nothing counts it as one.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Event, Name};

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

    /// The slot held by `holder` comes up: the first of its side in the order who is here, not
    /// surprised, not holding a readied action, standing and without a turn in this phase
    /// (`taken`) takes it, one who could afford something ahead of one who could not. Returns
    /// who, after saying in the trace when it is not the holder; `None` when nobody can.
    pub(super) fn slot_taker(&mut self, holder: usize, taken: &[bool]) -> Result<Option<usize>, RunError> {
        let side = self.world.sides[holder];
        let mut first = None;
        let mut able = None;
        let order = self.in_order();
        for &w in &order {
            let free = self.world.sides[w] == side
                && !taken.get(w).copied().unwrap_or(true)
                && self.world.standing(w)
                && !(self.clock.surprise_round && self.world.surprised[w])
                && !self.pending.holding[w];
            if !free || !self.takes_turn(w)? {
                continue;
            }
            first = first.or(Some(w));
            if self.affords_anything(w) {
                able = Some(w);
                break;
            }
        }
        self.scratch.in_order = order;
        let who = able.or(first);
        if let Some(w) = who.filter(|w| *w != holder) {
            let answer = Name::from(format!("{}'s slot", self.names.who[holder]));
            let question = self.names.intern("turn");
            let event = Event::Choice { who: self.names.who[w].clone(), question, answer };
            self.emit_by(event, Some(self.ruleset().initiative.loc));
        }
        Ok(who)
    }
}
