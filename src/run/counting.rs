//! Numbers made by counting at run time: the dice of a pool that meet a test (one roll event
//! with every face), and the participants of a relation for whom a condition holds.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Dice, Event, PoolRoll};
use crate::ir::{self, CmpOp, Expr};

impl<S: Sink> Engine<'_, S> {
    /// `count(NdM OP X)`: the pool rolled at once, then `X` read, then its dice counted. A count
    /// of 0 or less rolls nothing and is 0; a dry run takes the highest faces.
    pub(super) fn count_dice(&mut self, op: CmpOp, parts: &[Expr; 3], c: &Ctx) -> Result<i64, RunError> {
        let [count, sides, against] = parts;
        let Some((count, sides)) = self.dice_read(count, sides, c, ("count(", " ...)"))? else {
            return Ok(0);
        };
        if self.recording() && !self.dry {
            // The real run drew the faces before reading the test (below).
            let faces: Vec<i64> = (0..count).map(|_| super::eval::uniform(&mut self.rng, sides)).collect();
            let x = self.eval(against, c)?;
            let k = (1..=sides).filter(|f| op.holds(i64::from(*f), x)).count() as u32;
            let hits = faces.iter().filter(|f| op.holds(**f, x)).count();
            if let Some(t) = self.tape.as_deref_mut() {
                match super::tape::successes(count, sides, k) {
                    Some(w) => t.noted(hits as u32, w.len() as u64),
                    // A read tape draws such a pool die by die, before the test: not followable.
                    None => t.lose(),
                }
            }
            self.changes_made += 1;
            return Ok(hits as i64);
        }
        if self.tape.is_some() && !self.dry {
            // The solver weighs the number of successes, not each face: n + 1 outcomes, not
            // sides^n. The test's value is read first (its own dice, if any, are drawn first).
            let x = self.eval(against, c)?;
            let k = (1..=sides).filter(|f| op.holds(i64::from(*f), x)).count() as u32;
            if let Some(hits) = self.taped_successes(count, sides, k) {
                self.changes_made += 1;
                return Ok(hits);
            }
        }
        let faces: Vec<u32> =
            if self.dry { vec![sides; count as usize] } else { (0..count).map(|_| self.die(sides) as u32).collect() };
        let x = self.eval(against, c)?;
        let hits = faces.iter().filter(|f| op.holds(i64::from(**f), x)).count() as i64;
        if !self.dry {
            // The generator moved on: a `repeat while` pass that rolled is not the same pass again.
            self.changes_made += 1;
            let who = self.names.who[c.owner].clone();
            let counting = format!("{} {x}", op.symbol());
            let pool = Some(Box::new(PoolRoll::counted(faces, counting)));
            self.emit(Event::Roll { who, dice: Dice { count, sides }, result: hits, pool });
        }
        Ok(hits)
    }

    /// `count(RELATION, COND)`: the participants still in the encounter, related to the owner
    /// by the relation, for whom the condition holds (each `self` inside it).
    pub(super) fn count_who(&mut self, rel: ir::Relation, cond: &Expr, c: &Ctx) -> Result<i64, RunError> {
        let mut n = 0;
        for o in 0..self.world.n {
            if !self.world.present[o] || !self.world.relates(c.owner, o, rel) {
                continue;
            }
            if self.eval(cond, &Ctx { owner: o, ..*c })? != 0 {
                n += 1;
            }
        }
        Ok(n)
    }
}
