//! Scratch buffers: reused between events so that the steady state allocates nothing. Never
//! observable: each user clears what it takes before use and gives it back after, and a
//! nested user (an answer inside an answer) takes a fresh one. The priority order is a cache
//! of what `world.order` and `clock.active` determine.

use super::controller::Decision;
use crate::ir;

#[derive(Debug, Default)]
pub struct Scratch<'r> {
    /// The priority order last computed, and what it was computed from.
    pub priority: Vec<usize>,
    pub priority_active: Option<usize>,
    pub priority_of: Vec<Vec<usize>>,
    /// Orders for answers nested in an answer (the outer one holds `priority`).
    pub priority_spares: Vec<Vec<usize>>,
    /// `settle`: the batch of pool changes being looked at, and the condition changes held
    /// back until every pool is done.
    pub settling: Vec<(usize, ir::PoolId, i64)>,
    pub held_back: Vec<(usize, &'r ir::Effect)>,
    /// `answer`: the reactions that answer the event, those on offer to one participant,
    /// those affordable, the chain declared.
    pub reactions: Vec<ir::ActionId>,
    pub offers: Vec<ir::ActionId>,
    pub affordable: Vec<(ir::ActionId, Option<usize>)>,
    pub chain: Vec<(usize, ir::ActionId, Option<usize>)>,
    /// Policies: everyone by distance, the decisions considered.
    pub nearest: Vec<usize>,
    pub decisions: Vec<Decision>,
    /// The round loop: everyone in order, seen marks, the round's queue, a group's members.
    pub in_order: Vec<usize>,
    pub seen: Vec<bool>,
    pub queue: Vec<Vec<usize>>,
    pub members: Vec<usize>,
    /// Who is standing when the encounter ends, for `Fact::Ended`.
    pub standing: Vec<bool>,
}

impl Scratch<'_> {
    /// Forgets the cached priority order (the participants changed); buffers stay allocated.
    pub fn reset(&mut self) {
        self.priority.clear();
        self.priority_active = None;
        self.priority_of.clear();
    }
}
