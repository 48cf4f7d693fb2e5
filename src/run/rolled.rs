//! What named rolls counted, kept between a roll and the counts its block reads (the engine's
//! `rolled`; `rolls` throws them).

use crate::ir;

/// The faces of the roll being made and the counts each roll last made. Reused: a roll
/// allocates nothing once its buffers have grown, unless the trace keeps its faces.
#[derive(Debug, Default)]
pub(crate) struct Rolled {
    /// The roll being made, die by die: `(0, face)` for a numbered die, `(die + 1, face
    /// index)` for a die with custom faces.
    pub(super) faces: Vec<(u32, u32)>,
    /// The parts of the roll being made, as thrown: `(kind, dice, sides)`, kinds as in `faces`.
    pub(super) parts: Vec<(u32, u32, u32)>,
    /// Per roll (`ir::RollId`), the counts its last roll made, by place.
    pub(super) counts: Vec<Vec<i64>>,
    /// The roll a `degrees` level is being read on: total, natural, modifier, margin
    /// (`ir::RollFact` order).
    pub(crate) facts: [i64; 4],
}

impl Rolled {
    /// `count(NAME ...)`: what that roll's last throw counted in that place (0 before any).
    /// The same counts as `other`, in buffers of its own (a playout's engine copying the real one).
    pub(crate) fn copy_from(&mut self, other: &Rolled) {
        self.facts = other.facts;
        self.counts.resize_with(other.counts.len(), Vec::new);
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            mine.clear();
            mine.extend_from_slice(theirs);
        }
    }

    /// Writes what named rolls last counted canonically (canon.rs); not the roll being made,
    /// which is never under way between two rounds.
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        c.put(&self.counts);
        c.put(&self.facts);
    }

    pub(crate) fn count(&self, roll: ir::RollId, place: u32) -> i64 {
        self.counts.get(roll.index()).and_then(|c| c.get(place as usize)).copied().unwrap_or(0)
    }
}
