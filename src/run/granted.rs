//! Turns granted out of order (`grants turn { ... }` of a reaction): once the reaction resolves,
//! its reactor plays a turn of its own at once, its actions its controller's free choice as in a
//! turn, spending only the budget the grant names, held to the grant's limits.
//!
//! A granted turn is not a turn: it has no `turn_start` or `turn_end` (no pool steps, hooks or
//! answers to them), it does not start a new turn for `per turn` limits (its uses count in the
//! turn under way when it was granted), and it does not end the turn it interrupts. Each pool the
//! budget names holds the budget for the granted turn; the reactor's own value is put back when
//! it ends (what the budget did not spend is lost, and the reactor's own points are never spent
//! by it). Pools the budget does not name are the reactor's own, spent as in any turn.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::pending::Granted;
use super::sink::Sink;
use super::trace::{Cause, Event};
use crate::ir;

impl<'r, S: Sink> Engine<'r, S> {
    /// `who`'s turn granted by reaction `a` (which grants one), played now; `c` is the
    /// reaction's context, in which the budget and limits are read.
    pub(super) fn granted_turn(&mut self, who: usize, a: ir::ActionId, c: &Ctx) -> Result<(), RunError> {
        let r = self.ruleset();
        let action = &r.actions[a.index()];
        let Some(g) = action.grants.as_deref() else { return Ok(()) };
        if self.clock.ended.is_some() || !self.world.present[who] {
            return Ok(());
        }
        let mut budget = Vec::with_capacity(g.budget.len());
        for (p, e) in &g.budget {
            budget.push((*p, self.eval(e, c)?.max(0)));
        }
        let moves_left = match &g.moves {
            Some(e) => Some(self.eval(e, c)?.max(0)),
            None => None,
        };
        let actions_left = match &g.actions {
            Some(e) => Some(self.eval(e, c)?.max(0)),
            None => None,
        };
        let name = self.names.action[a.index()].clone();
        let actor = self.names.who[who].clone();
        let started =
            self.emit_by(Event::Granted { who: actor.clone(), action: name.clone(), end: false }, Some(g.loc));
        let outer = self.caused_by(started);
        let cause = Cause::Named(name.clone());
        let kept = budget.iter().map(|&(p, _)| (p, self.world.pool(who, p))).collect();
        for &(p, v) in &budget {
            self.set_pool_raw(who, p, v, &cause);
        }
        self.pending.granted.push(Granted { who, kept, moves_left, actions_left });
        let played = self.play_granted(who);
        let kept = self.pending.granted.pop().map(|g| g.kept).unwrap_or_default();
        for (p, v) in kept {
            self.set_pool_raw(who, p, v, &cause);
        }
        self.emit_by(Event::Granted { who: actor, action: name, end: true }, Some(g.loc));
        self.because = outer;
        played
    }

    /// The decisions of a granted turn, asked as a turn's are, until its controller ends it, its
    /// `limit actions` is used up, or it can no longer act. The clock's turn is lent to `who` and
    /// given back after.
    fn play_granted(&mut self, who: usize) -> Result<(), RunError> {
        let saved = (self.clock.active, self.clock.turn_over, self.clock.allowed, self.controls[who].taken);
        let depth = std::mem::replace(&mut self.pending.reaction_depth, 0);
        self.clock.active = Some(who);
        self.clock.turn_over = false;
        self.clock.allowed = Some(self.clock.allowed.unwrap_or(super::clock::TURN_KINDS));
        self.controls[who].taken = 0;
        let mut result = Ok(());
        while !self.clock.turn_over && self.clock.ended.is_none() && self.world.present[who] {
            if self.pending.granted.last().and_then(|g| g.actions_left) == Some(0) {
                break;
            }
            match self.ask_turn(who) {
                Err(e) => {
                    result = Err(e);
                    break;
                }
                Ok(super::controller::Decision::EndTurn) => break,
                Ok(super::controller::Decision::Act { action, target, units }) => {
                    if let Some(left) = self.pending.granted.last_mut().and_then(|g| g.actions_left.as_mut()) {
                        *left -= 1;
                    }
                    self.controls[who].taken += 1;
                    if let Err(e) = self.declare(who, action, target, units, None) {
                        result = Err(e);
                        break;
                    }
                    self.check_end();
                }
            }
        }
        self.pending.reaction_depth = depth;
        (self.clock.active, self.clock.turn_over, self.clock.allowed, self.controls[who].taken) = saved;
        result
    }

    /// A voluntary move of `n` units by `who`, cut to what the innermost granted turn of `who`
    /// under way may still move (`limit move`), which it then spends.
    pub(super) fn granted_move(&mut self, who: usize, n: i64) -> i64 {
        match self.pending.granted.last_mut() {
            Some(Granted { who: w, moves_left: Some(left), .. }) if *w == who => {
                let n = n.min(*left);
                *left -= n;
                n
            }
            _ => n,
        }
    }
}
