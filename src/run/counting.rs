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
