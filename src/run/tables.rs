//! The tables: what the runner works out once per ruleset and scenario, before the first event,
//! and only reads from then on. Every engine playing the scenario shares one (`Engine::tables`),
//! so a playout copied from an engine copies none of it.

use super::controller::Step;
use super::costs::Costs;
use super::scenario::{Policy, Resolved};
use super::shape::Shape;
use crate::ir::{self, Ruleset};

#[derive(Debug)]
pub struct Tables {
    /// Per action: what planning asks of it again and again, found once.
    pub shapes: Vec<Shape>,
    /// Per action, its cost if it can never change (`shape::fixed_costs`).
    pub fixed_costs: Vec<Option<(Costs, Option<ir::Loc>)>>,
    /// Per event slot of the dispatch table, who can answer it (`shape::answerable`).
    pub answerable: Vec<u8>,
    /// Per action, the same for the event of its use: its own slot, its categories' and its
    /// kind's together (`shape::answerable_action`).
    pub answerable_action: Vec<u8>,
    /// Per trigger: a condition it needs its owner to hold (`shape::trigger_needs`).
    pub trigger_needs: Vec<Option<ir::ConditionId>>,
    /// Some pool's payments are an event (`emit EVENT on spend`).
    pub spend_events: bool,
    /// Some script holds a `React` step: only then can anyone add a second answer to an event.
    pub scripted_reactions: bool,
    /// How the GM decides what the scenario does not answer.
    pub gm: Policy,
    /// The scenario's standing answers to GM questions: (question, option index).
    pub gm_answers: Vec<(String, usize)>,
}

impl Tables {
    pub fn new(r: &Ruleset, setup: &Resolved, gm: Policy) -> Tables {
        Tables {
            shapes: Shape::of_all(r),
            fixed_costs: super::shape::fixed_costs(r),
            answerable: super::shape::answerable(r),
            answerable_action: super::shape::answerable_action(r),
            trigger_needs: super::shape::trigger_needs(r),
            spend_events: r.pools.iter().any(|p| p.on_spend.is_some()),
            scripted_reactions: setup
                .controllers
                .iter()
                .any(|c| c.steps.iter().any(|s| matches!(s, Step::React { .. }))),
            gm,
            gm_answers: setup.gm_answers.clone(),
        }
    }
}
