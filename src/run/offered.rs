//! What was affordable at each decision a policy made, and whether it was taken
//! (`Fact::Offered`), for the skill report's dead and dominant options (docs/simulation.md,
//! "Skill sensitivity"). Found only for a sink that asks (`Sink::wants_options`), so no other
//! run pays for it, and found without rolling dice or changing the world, so it never changes
//! what happens.

use super::controller::{Chosen, Decision};
use super::engine::Engine;
use super::error::RunError;
use super::sink::{Fact, Sink};
use crate::ir;

impl<S: Sink> Engine<'_, S> {
    /// Whether `Fact::Offered` is to be told.
    pub(crate) fn telling_options(&self) -> bool {
        self.telling() && self.out.sink.wants_options()
    }

    /// Tells what `who` could afford on its turn when its policy took `decision`. Affordable is
    /// judged the same way whatever the policy (the policies that stop at the first candidate
    /// that will do are not asked): what `Greedy` and `Search` weigh, each action with some
    /// target it can pay for now (movement only when closing in on an enemy; an untargeted
    /// action once a turn; a preparation not while one is pending).
    pub(crate) fn tell_turn_options(&mut self, who: usize, decision: Decision) -> Result<(), RunError> {
        let mut found = Vec::new();
        self.candidates(who, Chosen::Greedy, &mut found)?;
        let chosen = match decision {
            Decision::Act { action, .. } => Some(action),
            Decision::EndTurn => None,
        };
        let mut actions: Vec<ir::ActionId> = found
            .iter()
            .filter_map(|d| match d {
                Decision::Act { action, .. } => Some(*action),
                Decision::EndTurn => None,
            })
            .collect();
        // What the policy took was affordable, whatever the search above found.
        actions.extend(chosen);
        self.tell_options(who, &mut actions, chosen);
        Ok(())
    }

    /// Tells which reactions `who` was offered when its policy answered with `answer`.
    pub(crate) fn tell_reaction_options(
        &mut self,
        who: usize,
        offers: &[(ir::ActionId, Option<usize>)],
        answer: Option<(ir::ActionId, Option<usize>)>,
    ) {
        let mut actions: Vec<ir::ActionId> = offers.iter().map(|(a, _)| *a).collect();
        let chosen = answer.map(|(a, _)| a);
        actions.extend(chosen);
        self.tell_options(who, &mut actions, chosen);
    }

    /// One `Fact::Offered` per distinct action, in declaration order.
    fn tell_options(&mut self, who: usize, actions: &mut Vec<ir::ActionId>, chosen: Option<ir::ActionId>) {
        actions.sort_by_key(|a| a.index());
        actions.dedup();
        for a in actions.iter() {
            self.tell(Fact::Offered { who, action: a.index(), chosen: Some(*a) == chosen });
        }
    }
}
