//! What is under way: pool changes whose thresholds have not been looked at, answers being
//! resolved (how deep, whether one cancelled what it answers), readied actions, declarations
//! waiting to resolve, and multi-round actions.
//!
//! `act.rs` opens and closes answers and readies; `effects.rs` adds pool changes and settles
//! them; `encounter.rs` resolves what waits at the end of a phase and continues what is ongoing
//! at a turn's start. Nothing here survives the encounter.

use super::ctx::Ctx;
use super::trace::Cause;
use crate::ir;

/// A multi-round action under way.
#[derive(Debug, Clone)]
pub struct Ongoing {
    pub who: usize,
    pub action: ir::ActionId,
    /// Turns still to pay for before it resolves.
    pub left: i64,
    pub ctx: Ctx,
}

/// An action readied for an event (001, Ready Action).
#[derive(Debug, Clone)]
pub struct Readied {
    pub who: usize,
    pub action: ir::ActionId,
    pub target: Option<usize>,
    pub on: ir::EventRef,
    pub keep: bool,
}

/// A declaration paid for and waiting to resolve (simultaneous phases).
#[derive(Debug, Clone)]
pub struct Deferred {
    pub who: usize,
    pub action: ir::ActionId,
    pub target: Option<usize>,
    pub ctx: Ctx,
    pub cause: Cause,
}

#[derive(Debug, Default)]
pub struct Pending {
    /// Pool changes whose thresholds have not been looked at yet: (who, pool, old value).
    pub changed: Vec<(usize, ir::PoolId, i64)>,
    /// An interrupting answer (or a `maintain` that could not pay) cancelled what it answers.
    pub cancelled: bool,
    /// How deeply answers to events are nested (triggers, gains, reactions).
    pub chain_depth: u32,
    /// How deeply reactions to reactions are nested.
    pub reaction_depth: u32,
    pub readied: Vec<Readied>,
    /// Per participant: it readied an action, so its turn is held open until the action is
    /// taken or the ready is dropped; its later turns are not taken meanwhile (001, Ready Action).
    pub holding: Vec<bool>,
    pub deferred: Vec<Deferred>,
    pub ongoing: Vec<Ongoing>,
}

impl Pending {
    pub fn reset(&mut self, n: usize) {
        self.changed.clear();
        self.cancelled = false;
        self.chain_depth = 0;
        self.reaction_depth = 0;
        self.readied.clear();
        super::world::refill(&mut self.holding, n, false);
        self.deferred.clear();
        self.ongoing.clear();
    }
}
