//! `hidden` phases: everyone chooses against the state the phase started with, nobody seeing
//! another's choice; the choices are revealed together (one `revealed` event), then declared,
//! paid and resolved in initiative order.
//!
//! Nothing a choice does is applied before everyone has chosen, so each chooser's policy reads
//! the phase's start. A `Search` chooser plays forward with the runner itself, from the round's
//! start: in those playouts the others' choices in this same phase are made by their policies
//! (a script's fallback, a searcher's rollout), never by their scripts or logged decisions, so
//! the look-ahead cannot see what they actually chose.

use super::controller::{Chosen, Decision};
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Event, Revealed};
use crate::ir::{self, ActionKind};

impl<'r, S: Sink> Engine<'r, S> {
    /// A `simultaneous hidden` phase (`p`): one declaration each, or none.
    pub(super) fn hidden_simultaneous(&mut self, p: usize, kinds: &'r [ActionKind]) -> Result<(), RunError> {
        let kinds: &'r [ActionKind] = if kinds.is_empty() { &ActionKind::ALL } else { kinds };
        self.clock.allowed = Some(kinds);
        let order = self.in_order();
        let mut chosen: Vec<(usize, Option<Decision>)> = Vec::with_capacity(order.len());
        self.clock.hiding = true;
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
            let decision = match self.ask_hidden(who)? {
                Decision::EndTurn => None,
                act => Some(act),
            };
            chosen.push((who, decision));
        }
        self.clock.hiding = false;
        let choices = chosen
            .iter()
            .map(|(who, d)| {
                let (choice, target) = match d {
                    Some(Decision::Act { action, target, .. }) => {
                        (Some(self.names.action[action.index()].clone()), target.map(|t| self.names.who[t].clone()))
                    }
                    _ => (None, None),
                };
                Revealed { who: self.names.who[*who].clone(), choice, target }
            })
            .collect();
        let phase = self.names.phase[p].clone();
        let seq = self.emit_by(Event::Revealed { phase, choices }, Some(self.ruleset().phases[p].loc));
        let outer = self.caused_by(seq);
        // Declared and paid in initiative order: a choice no longer valid now (its cost spent by
        // an earlier declaration, its target gone) is refused with the usual `rejected` event.
        for (who, d) in chosen {
            let Some(Decision::Act { action, target, units }) = d else { continue };
            if self.clock.ended.is_some() {
                break;
            }
            self.clock.turn_seq += 1;
            self.controls[who].taken = 1;
            self.budget.fresh();
            self.declare_or_defer(who, action, target, units, None, true)?;
        }
        self.because = outer;
        self.scratch.in_order = order;
        for d in std::mem::take(&mut self.pending.deferred) {
            self.budget.fresh();
            self.resolve(&d, false)?;
        }
        self.check_end();
        Ok(())
    }

    /// `who`'s one choice in a hidden phase. In a `Search` playout of another's choice in this
    /// phase, `who` chooses by its policy: neither its script nor its logged decision is known.
    fn ask_hidden(&mut self, who: usize) -> Result<Decision, RunError> {
        let phase = self.clock.phase_seq;
        let unseen = self.replay.as_deref().is_some_and(|r| r.hidden == Some(phase) && r.who != who);
        if !unseen {
            return self.ask_turn(who);
        }
        let policy = match self.controls[who].policy {
            Chosen::Search(params) => {
                // Its logged decision is passed over, so the replay stays in step.
                if let Some(r) = self.replay.as_deref_mut() {
                    if !r.diverged && r.next < r.log.len() {
                        r.next += 1;
                    }
                }
                params.rollout.chosen()
            }
            other => {
                // Its script's step for this phase is used up unseen, as it would have been, so
                // it is not played in a later phase of the playout instead.
                if !self.controls[who].steps().is_empty() {
                    self.ask_turn(who)?;
                }
                other
            }
        };
        self.policy_turn(who, policy)
    }
}

/// Whether phase `p` is a `hidden` one the runner plays apart.
pub(super) fn is_hidden(r: &ir::Ruleset, p: usize) -> bool {
    r.phases.get(p).is_some_and(|ph| ph.hidden)
}
