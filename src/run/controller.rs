//! Controllers: a participant's controller as the run holds it (the scenario's spec, how far its
//! script has been used, its policy resolved to indices), and the decisions they make.

use super::scenario::{Controller, Policy, Step};
use crate::ir;

/// A participant's controller and how far its script has been used.
#[derive(Debug, Clone)]
pub struct ControlState {
    pub spec: Controller,
    pub used: Vec<bool>,
    /// The policy for what the script does not cover, resolved to indices once.
    pub policy: Chosen,
    /// Actions taken in the current turn, to stop a policy that never ends its turn.
    pub taken: u32,
}

/// A policy with its names resolved: copied freely, never allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    Aggressive,
    HoldBack(ir::PoolId, i64),
    Greedy,
    Random,
    Passive,
}

impl Chosen {
    pub fn of(policy: &Policy, r: &ir::Ruleset) -> Chosen {
        match policy {
            Policy::Aggressive => Chosen::Aggressive,
            Policy::Greedy => Chosen::Greedy,
            Policy::Random => Chosen::Random,
            Policy::Passive => Chosen::Passive,
            // The scenario check has made sure the pool exists.
            Policy::HoldBack { pool, keep } => match r.pools.iter().position(|p| &p.name == pool) {
                Some(p) => Chosen::HoldBack(ir::PoolId(p as u32), *keep),
                None => Chosen::Aggressive,
            },
        }
    }
}

/// Most actions one controller may take in one turn.
pub const MAX_ACTIONS_PER_TURN: u32 = 50;

/// What to do next on one's turn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    Act { action: ir::ActionId, target: Option<usize>, units: Option<i64> },
    EndTurn,
}

impl ControlState {
    pub fn new(spec: Controller, r: &ir::Ruleset) -> ControlState {
        let (n, policy) = match &spec {
            Controller::Script { steps, fallback } => (steps.len(), Chosen::of(fallback, r)),
            Controller::Policy(p) => (0, Chosen::of(p, r)),
        };
        ControlState { spec, used: vec![false; n], policy, taken: 0 }
    }

    pub fn steps(&self) -> &[Step] {
        match &self.spec {
            Controller::Script { steps, .. } => steps,
            Controller::Policy(_) => &[],
        }
    }

    /// Whether the script still holds a reaction for `round`: only then is a participant asked
    /// for another answer to an event already answered.
    pub fn reaction_scripted(&self, round: u32) -> bool {
        self.steps()
            .iter()
            .zip(&self.used)
            .any(|(s, used)| !used && matches!(s, Step::React { round: r, .. } if *r == round))
    }

    /// Back to the script's start, for the next encounter.
    pub fn reset(&mut self) {
        self.used.iter_mut().for_each(|u| *u = false);
        self.taken = 0;
    }

    /// Becomes a copy of `other`, a controller of the same participant of the same scenario:
    /// how far its script has got, its policy and its count of actions this turn. The spec is
    /// the scenario's, the same in both, and not copied (it owns strings).
    pub fn copy_from(&mut self, other: &ControlState) {
        let ControlState { spec: _, used, policy, taken } = other;
        self.used.clone_from(used);
        self.policy = *policy;
        self.taken = *taken;
    }
}
