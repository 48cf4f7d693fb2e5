//! Controllers: a participant's controller as the run holds it (its script with every name
//! resolved to an index at load, how far the script has been used, its policy), and the
//! decisions they make. Nothing here holds a scenario's name: the runtime never looks one up.

use crate::ir;

/// A participant's controller, resolved from the scenario (`scenario::resolve`).
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    /// The script, in the scenario's order; empty for a policy alone.
    pub steps: Vec<Step>,
    /// The policy for what the script does not cover.
    pub policy: Chosen,
}

/// One scripted decision (`scenario::Step`), its actions, participants and events resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Act {
        round: u32,
        action: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
    },
    EndTurn {
        round: u32,
    },
    React {
        round: u32,
        reaction: ir::ActionId,
        target: Option<usize>,
    },
    Decline {
        round: u32,
    },
    /// The answer is an option's name, which question it answers known only when asked: an
    /// index into the scenario's answers (`Resolved::answers`), which `Tables::script_answers`
    /// turns into an option per `choose` of the ruleset.
    Choose {
        answer: usize,
    },
    Adjust {
        by: i64,
    },
    Stay {
        after: usize,
    },
    Delay {
        round: u32,
        after: usize,
    },
    Leave {
        round: u32,
    },
    Slot {
        round: u32,
        taker: usize,
    },
    Ready {
        round: u32,
        action: ir::ActionId,
        on: ir::EventRef,
        /// `by: "enemy"` / `"ally"`: only what such a participant does sets it off.
        by: Option<ir::Relation>,
        target: Option<usize>,
        keep: bool,
    },
}

/// A participant's controller and how far its script has been used.
#[derive(Debug, Clone)]
pub(crate) struct ControlState {
    pub steps: Vec<Step>,
    pub used: Vec<bool>,
    /// The policy for what the script does not cover.
    pub policy: Chosen,
    /// Actions taken in the current turn, to stop a policy that never ends its turn.
    pub taken: u32,
}

/// A policy with its names resolved: copied freely, never allocating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Chosen {
    Aggressive,
    /// The pool, what it keeps of it on its own turn, and whether any reaction may spend what
    /// it kept (else only one that saves someone).
    HoldBack(ir::PoolId, i64, bool),
    Greedy,
    Random,
    Passive,
    Search(SearchParams),
}

/// `Search`'s parameters, resolved (scenario::SearchSpec says what each is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchParams {
    pub playouts: u32,
    pub rollout: Rollout,
    pub exploration: f64,
    pub rounds: Option<u32>,
    /// The positions the encounter is solved within for exact play (exact.rs); 0: never.
    pub exact: u64,
}

/// The policies a `Search` plays its own later decisions by in a playout: any but `Search`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rollout {
    Aggressive,
    HoldBack(ir::PoolId, i64, bool),
    Greedy,
    Random,
    Passive,
}

impl Rollout {
    /// `policy` as a rollout (`Search` itself falls back to `Greedy`; the scenario refuses it).
    pub fn of(policy: Chosen) -> Rollout {
        match policy {
            Chosen::Aggressive => Rollout::Aggressive,
            Chosen::HoldBack(p, keep, spend) => Rollout::HoldBack(p, keep, spend),
            Chosen::Random => Rollout::Random,
            Chosen::Passive => Rollout::Passive,
            Chosen::Greedy | Chosen::Search(_) => Rollout::Greedy,
        }
    }

    pub fn chosen(self) -> Chosen {
        match self {
            Rollout::Aggressive => Chosen::Aggressive,
            Rollout::HoldBack(p, keep, spend) => Chosen::HoldBack(p, keep, spend),
            Rollout::Greedy => Chosen::Greedy,
            Rollout::Random => Chosen::Random,
            Rollout::Passive => Chosen::Passive,
        }
    }
}

impl Chosen {
    /// The policy that makes the decisions `Search` does not search (choices, and everything
    /// inside a playout once it has left the decisions it replays): its rollout.
    pub fn plain(self) -> Chosen {
        match self {
            Chosen::Search(p) => p.rollout.chosen(),
            other => other,
        }
    }
}

/// Most actions one controller may take in one turn.
pub(crate) const MAX_ACTIONS_PER_TURN: u32 = 50;

/// What to do next on one's turn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Decision {
    Act { action: ir::ActionId, target: Option<usize>, units: Option<i64> },
    EndTurn,
}

impl ControlState {
    pub fn new(control: &Control) -> ControlState {
        let steps = control.steps.clone();
        ControlState { used: vec![false; steps.len()], steps, policy: control.policy, taken: 0 }
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Whether the script still holds a reaction for `round`: only then is a participant asked
    /// for another answer to an event already answered.
    pub(crate) fn reaction_scripted(&self, round: u32) -> bool {
        self.steps
            .iter()
            .zip(&self.used)
            .any(|(s, used)| !used && matches!(s, Step::React { round: r, .. } if *r == round))
    }

    /// Back to the script's start, for the next encounter.
    pub fn reset(&mut self) {
        self.used.iter_mut().for_each(|u| *u = false);
        self.taken = 0;
    }

    /// Writes how far the script has got and the actions taken this turn (canon.rs); the steps
    /// and the policy are the scenario's, the same in every state of one encounter.
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        let ControlState { steps: _, used, policy: _, taken } = self;
        c.put(used);
        c.put(taken);
    }

    /// Becomes a copy of `other`, a controller of the same participant of the same scenario:
    /// how far its script has got, its policy and its count of actions this turn. The steps
    /// are the scenario's, resolved once, the same in both, and not copied.
    pub fn copy_from(&mut self, other: &ControlState) {
        let ControlState { steps: _, used, policy, taken } = other;
        self.used.clone_from(used);
        self.policy = *policy;
        self.taken = *taken;
    }
}
