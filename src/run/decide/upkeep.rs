//! Optional upkeeps (`maintain at turn_start optional { pay 2 ap }`): the checker writes each as a
//! `choose` of the holder between `pay` (the upkeep's block) and `lapse` (`cancel`), so scripts
//! (`Choose(answer: "lapse")`), `Search`, the exact solver and the trace take it as any choice.
//! Here: what the built-in policies answer (pay, unless paying brings the holder into harm), and
//! when nobody need be asked (an upkeep that cannot be paid).

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
    /// when the `pay`s of its block (those not behind an `if` or a `choose`) ask more than its
    /// holder's pools can give now.
    pub(super) fn upkeep_unpayable(&mut self, pay: &[Effect], c: &Ctx) -> Result<bool, RunError> {
        Ok(self.upkeep_outlook(pay, c)?.is_some_and(|(payable, _)| !payable))
    }

    /// What the built-in policies other than `Random` and `Search` answer an optional upkeep
    /// they can pay: what it keeps pays off in turns to come, past the one step they look ahead,
    /// so they pay it, unless paying would bring one of the holder's pools inside a harmful
    /// threshold it is not inside yet (an upkeep in hit points that would take it down).
    pub(super) fn upkeep_answer(&mut self, pay: &[Effect], c: &Ctx) -> Result<usize, RunError> {
        Ok(match self.upkeep_outlook(pay, c)? {
            Some((_, true)) => LAPSE,
            _ => PAY,
        })
    }

    /// The upkeep's `pay`s, not behind an `if` or a `choose`, summed and read against the
    /// holder's pools now: whether they can be paid, and whether paying brings a pool inside a
    /// harmful threshold it is not inside yet. `None` when an amount rolls dice (rolling it here
    /// would change the run): such an upkeep is asked, and paid by the simple policies.
    fn upkeep_outlook(&mut self, pay: &[Effect], c: &Ctx) -> Result<Option<(bool, bool)>, RunError> {
        let mut plan = Costs::default();
        for e in pay {
            let Effect::Pay(costs) = e else { continue };
            for cost in costs {
                if has_dice(self.ruleset(), &cost.amount, 0) {
                    return Ok(None);
                }
                let amount = self.eval(&cost.amount, c)?;
                plan.add(cost.pool, amount)?;
            }
        }
        let (mut payable, mut harms) = (true, false);
        for (p, a) in &plan {
            payable &= self.past_bounds(c.owner, p, a)? == 0;
            let now = self.world.pool(c.owner, p);
            let next = self.after_paying(p, now, a);
            harms |= self.inside_harmful(c.owner, p, next) && !self.inside_harmful(c.owner, p, now);
        }
        Ok(Some((payable, harms)))
    }
}
