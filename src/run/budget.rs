//! The step budget: a rule set that would loop forever is stopped, and the rules that kept
//! firing are named.

use super::trace::Name;
use std::collections::VecDeque;

/// The most effects one cascade may run (everything one declaration, one participant's work
/// at a timing, or one hour of downtime sets off) before it is stopped as a runaway cycle.
/// Counted per cascade, not per encounter, so a long fight is never mistaken for a cycle.
pub(crate) const STEP_BUDGET: u64 = 200_000;

/// How many recent firings are kept to name a cycle.
const RECENT: usize = 64;

#[derive(Debug, Default)]
pub(crate) struct Budget {
    steps: u64,
    /// Recent trigger firings, to name the cycle when the step budget runs out.
    recent: VecDeque<Name>,
}

impl Budget {
    pub fn reset(&mut self) {
        self.steps = 0;
        self.recent.clear();
        // Once, to its full length: a copy into this budget then never allocates.
        self.recent.reserve(RECENT);
    }

    /// Becomes a copy of `other`, in the allocation it has.
    pub fn copy_from(&mut self, other: &Budget) {
        let Budget { steps, recent } = other;
        self.steps = *steps;
        self.recent.clone_from(recent);
    }

    /// Starts a new cascade: the step budget counts from zero again.
    pub fn fresh(&mut self) {
        self.steps = 0;
    }

    /// Counts one effect against the step budget; false once it is spent.
    pub fn step(&mut self) -> bool {
        self.steps += 1;
        self.steps <= STEP_BUDGET
    }

    /// Remembers a rule that fired, to name a cycle if the run has to be stopped.
    pub fn fired(&mut self, name: Name) {
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(name);
    }

    /// The distinct rules that fired most recently, oldest first: the cycle's members.
    pub(crate) fn cycle_names(&self) -> Vec<String> {
        let mut cycle: Vec<String> = Vec::new();
        for name in self.recent.iter().rev().take(12) {
            if !cycle.iter().any(|c| **c == **name) {
                cycle.push(name.to_string());
            }
        }
        cycle.reverse();
        cycle
    }
}
