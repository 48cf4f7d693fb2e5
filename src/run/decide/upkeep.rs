//! Optional upkeeps (`maintain at turn_start optional { pay 2 ap }`): the checker writes each as a
//! `choose` of the holder between `pay` (the upkeep's block) and `lapse` (`cancel`), so scripts
//! (`Choose(answer: "lapse")`), `Search`, the exact solver and the trace take it as any choice.
//! Here: what the built-in policies answer, and when nobody need be asked.

use super::super::costs::Costs;
use super::super::ctx::Ctx;
use super::super::engine::Engine;
use super::super::error::RunError;
use super::super::sink::Sink;
use super::score::has_dice;
use crate::ir::{self, Effect};

/// The option that pays the upkeep (the checker writes it first).
pub(super) const PAY: usize = 0;
/// The option that lets it lapse.
pub(super) const LAPSE: usize = 1;

impl<S: Sink> Engine<'_, S> {
    /// Whether the `choose` written at `loc` is an optional upkeep.
    pub(super) fn is_upkeep(&self, loc: ir::Loc) -> bool {
        self.tables.upkeeps.contains(&loc)
    }

    /// An optional upkeep that cannot be paid lapses whatever its holder would choose: `true`
    /// when a `pay` of its block (one not behind an `if`) asks more than its holder's pools can
    /// give now. Amounts that roll dice are not looked at (rolling them here would change the
    /// run), so such an upkeep is asked.
    pub(super) fn upkeep_unpayable(&mut self, pay: &[Effect], c: &Ctx) -> Result<bool, RunError> {
        for e in pay {
            let Effect::Pay(costs) = e else { continue };
            if costs.iter().any(|cost| has_dice(self.ruleset(), &cost.amount, 0)) {
                return Ok(false);
            }
            let mut plan = Costs::default();
            for cost in costs {
                let amount = self.eval(&cost.amount, c)?;
                plan.add(cost.pool, amount)?;
            }
            for (p, a) in &plan {
                if self.past_bounds(c.owner, p, a)? != 0 {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}
