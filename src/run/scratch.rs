//! Scratch buffers: reused between events so that the steady state allocates nothing. Never
//! observable: each user clears what it takes before use and gives it back after, and a
//! nested user (an answer inside an answer) takes a fresh one. The priority order is a cache
//! of what `world.order` and `clock.active` determine.

use super::controller::Decision;
use crate::ir;
use std::rc::Rc;

#[derive(Debug, Default)]
pub struct Scratch {
    /// The priority order last computed, and what it was computed from: the active
    /// participant and the version of `world.order`. Shared: an answer iterates its own
    /// handle while answers nested in it read the same order.
    pub priority: Rc<Vec<usize>>,
    pub(crate) priority_key: Option<(Option<usize>, u64)>,
    /// Per participant: its place in `priority`.
    pub(crate) priority_rank: Vec<usize>,
    /// `settle`: the batch of pool changes being looked at, and the changes of one
    /// `state_order` pool being looked at (the condition changes held back until every pool is
    /// done are state, in `pending.conditions`).
    pub settling: Vec<super::pending::Change>,
    pub(crate) at_rank: Vec<super::pending::Change>,
    /// `answer`: the reactions that answer the event, those on offer to one participant,
    /// those affordable, the chain declared.
    pub reactions: Vec<ir::ActionId>,
    pub(crate) askers: Vec<usize>,
    pub offers: Vec<ir::ActionId>,
    pub affordable: Vec<(ir::ActionId, Option<usize>)>,
    pub chain: Vec<(usize, ir::ActionId, Option<usize>)>,
    /// The reactions of a chain, declared and paid, waiting to resolve.
    pub declared: Vec<super::pending::Deferred>,
    /// Policies: per participant, everyone present by distance from it, and the
    /// `world.layout_version` it was sorted at; the decisions considered.
    pub nearest: Vec<Vec<usize>>,
    pub(crate) nearest_version: Vec<u64>,
    pub decisions: Vec<Decision>,
    /// `Greedy`: each candidate with the score of its effects and what it pays.
    pub weighed: Vec<(Decision, f64, super::costs::Costs)>,
    /// The scorer reads an option's consequences (decide/ahead.rs): conditions, and pools that
    /// last a round at most, are worth what they let their holder do, not a fixed weight.
    pub(crate) consequences: bool,
    /// The scorer: each `emit EVENT(AMOUNT)` scored so far in the effects being scored, with
    /// the `amount(EVENT)` it stood in for (put back when those effects are scored).
    pub(crate) emitted: Vec<(ir::EventId, i64)>,
    /// The round loop: everyone in order, seen marks, the round's queue, a group's members
    /// (with the `seq` of each one's `turn_start`).
    pub in_order: Vec<usize>,
    pub seen: Vec<bool>,
    pub queue: Vec<Vec<usize>>,
    pub members: Vec<(usize, Option<u64>)>,
    /// `slots by side`: who has had a turn in the phase of turns being played.
    pub(crate) slot_taken: Vec<bool>,
    /// Who is standing when the encounter ends, for `Fact::Ended`.
    pub standing: Vec<bool>,
    /// With `--decisions`: the question and option names of the `choose` being asked, for the
    /// account of a `Search` choice (accounts.rs); `None` between questions.
    pub(crate) choice: Option<(super::trace::Name, Vec<super::trace::Name>)>,
}

impl Scratch {
    /// Forgets the cached priority order (the participants changed); buffers stay allocated.
    pub fn reset(&mut self) {
        self.priority_key = None;
        self.nearest_version.iter_mut().for_each(|v| *v = u64::MAX);
    }
}
