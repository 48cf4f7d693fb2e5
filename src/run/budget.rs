//! The step budget: a rule set that would loop forever is stopped, and the rules that kept
//! firing are named.

use super::trace::Name;
use std::collections::VecDeque;

/// The most effects one cascade may run (everything one declaration, one participant's work
/// at a timing, or one hour of downtime sets off) before it is stopped as a runaway cycle.
/// Counted per cascade, not per encounter, so a long fight is never mistaken for a cycle.
pub(crate) const STEP_BUDGET: u64 = 200_000;

/// The most dice one cascade may throw (docs/reliability.md). Dice cost no step, and one roll
/// may throw hundreds of thousands (`<250 x dice(1000, 6)>`), so they have a budget of their
/// own: `repeat while true { roll r = <250 x dice(1000, 6)> }` wrote 1 GB of trace in 30 s.
pub(crate) const DICE_BUDGET: u64 = 1_000_000;

/// How many recent firings are kept to name a cycle.
const RECENT: usize = 64;

#[derive(Debug, Default)]
pub(crate) struct Budget {
    steps: u64,
    /// Dice thrown in this cascade.
    dice: u64,
    /// Rules fired in this cascade (only those name a cycle: one fired earlier is not in it).
    fired_now: usize,
    /// Recent trigger firings, to name the cycle when the step budget runs out.
    recent: VecDeque<Name>,
}

impl Budget {
    pub fn reset(&mut self) {
        self.steps = 0;
        self.dice = 0;
        self.fired_now = 0;
        self.recent.clear();
        // Once, to its full length: a copy into this budget then never allocates.
        self.recent.reserve(RECENT);
    }

    /// Becomes a copy of `other`, in the allocation it has.
    pub fn copy_from(&mut self, other: &Budget) {
        let Budget { steps, dice, fired_now, recent } = other;
        self.steps = *steps;
        self.dice = *dice;
        self.fired_now = *fired_now;
        self.recent.clone_from(recent);
    }

    /// Starts a new cascade: the step budget counts from zero again.
    pub fn fresh(&mut self) {
        self.steps = 0;
        self.dice = 0;
        self.fired_now = 0;
    }

    /// Counts one die thrown (checked at the next step: `dice_spent`).
    #[inline]
    pub fn threw(&mut self) {
        self.dice += 1;
    }

    /// Whether this cascade has thrown more than `DICE_BUDGET` dice.
    pub fn dice_spent(&self) -> bool {
        self.dice > DICE_BUDGET
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
        self.fired_now += 1;
    }

    /// The distinct rules that fired most recently in this cascade, oldest first: the cycle's
    /// members. Empty when none fired in it (a loop inside one rule: `RunError::in_rule` names it).
    pub(crate) fn cycle_names(&self) -> Vec<String> {
        let mut cycle: Vec<String> = Vec::new();
        for name in self.recent.iter().rev().take(12.min(self.fired_now)) {
            if !cycle.iter().any(|c| **c == **name) {
                cycle.push(name.to_string());
            }
        }
        cycle.reverse();
        cycle
    }
}
