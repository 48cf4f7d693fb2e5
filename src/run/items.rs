//! Draws and moves of items between piles at run time. Draws are uniform over the items in the
//! pile, from the run's one generator; each draw or move is one `items` event naming every item
//! taken.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Event, Name};
use crate::ir::{Pick, PileAt, PileEffect, PileId};

impl<S: Sink> Engine<'_, S> {
    /// `draw N from A to B` and `move KIND|random N|all|highest|lowest from A to B`: one event naming every
    /// item taken (none when the pile had none to give).
    pub(super) fn pile_effect(&mut self, e: &PileEffect, c: &Ctx) -> Result<(), RunError> {
        let (how, pick, from, to) = match e {
            PileEffect::Draw { count, from, to } => ("draws", Some(count), from, to),
            PileEffect::Move { pick: Pick::Random(n), from, to } => ("moves", Some(n), from, to),
            PileEffect::Move { from, to, .. } => ("moves", None, from, to),
        };
        let (a, b) = ((self.party(c, from.who)?, from.pile), (self.party(c, to.who)?, to.pile));
        let mut taken: Vec<usize> = Vec::new();
        match (e, pick) {
            (_, Some(n)) => {
                let n = self.eval(n, c)?;
                self.take_at_random(a, b, n, &mut taken);
            }
            (PileEffect::Move { pick: Pick::Kind(k), .. }, None) => {
                if self.world.piles.move_one(a, b, *k as usize) {
                    taken.push(*k as usize);
                }
            }
            (PileEffect::Move { pick: Pick::Extreme(highest), .. }, None) => {
                let kinds = super::piles::Piles::kinds(self.ruleset(), a.1);
                if let Some(k) = self.world.piles.extreme(a.0, a.1, kinds, *highest) {
                    if self.world.piles.move_one(a, b, k) {
                        taken.push(k);
                    }
                }
            }
            _ => {
                let have: Vec<u32> = self.world.piles.pile(a.0, a.1).to_vec();
                for (k, n) in have.iter().enumerate() {
                    for _ in 0..*n {
                        if self.world.piles.move_one(a, b, k) {
                            taken.push(k);
                        }
                    }
                }
            }
        }
        if !taken.is_empty() {
            self.changes_made += 1;
        }
        if !self.dry {
            self.items_event(how, &taken, (a.0, from), (b.0, to));
        }
        Ok(())
    }

    /// Up to `n` items of `a`'s pile at random, without replacement, into `b`'s; fewer when it
    /// holds fewer. A dry run takes the first items in the set's order and rolls nothing.
    fn take_at_random(&mut self, a: (usize, PileId), b: (usize, PileId), n: i64, taken: &mut Vec<usize>) {
        // At most what the pile holds now: a draw into the pile it comes from never empties it.
        let held: i64 = self.world.piles.pile(a.0, a.1).iter().map(|n| i64::from(*n)).sum();
        for _ in 0..n.clamp(0, held) {
            let total: u64 = self.world.piles.pile(a.0, a.1).iter().map(|n| u64::from(*n)).sum();
            if total == 0 {
                break;
            }
            let mut at = if self.dry {
                0
            } else {
                // The generator moved on: a `repeat while` pass that drew is not the same pass.
                self.changes_made += 1;
                (self.die(u32::try_from(total).unwrap_or(u32::MAX)) - 1) as u64
            };
            let pile = self.world.piles.pile(a.0, a.1);
            let mut kind = 0;
            for (k, count) in pile.iter().enumerate() {
                if at < u64::from(*count) {
                    kind = k;
                    break;
                }
                at -= u64::from(*count);
            }
            if self.world.piles.move_one(a, b, kind) {
                taken.push(kind);
            }
        }
    }

    fn items_event(&mut self, how: &'static str, taken: &[usize], from: (usize, &PileAt), to: (usize, &PileAt)) {
        let r = self.ruleset();
        let set = r.piles.get(from.1.pile.index()).map(|p| p.set.index()).unwrap_or(0);
        let kinds = self.names.item.get(set);
        let items: Vec<Name> = taken.iter().filter_map(|k| kinds.and_then(|names| names.get(*k)).cloned()).collect();
        let pile = |p: &PileAt| self.names.pile.get(p.pile.index()).cloned().unwrap_or_else(|| Name::from("?"));
        let (from_pile, to_pile) = (pile(from.1), pile(to.1));
        let to_who = (to.0 != from.0).then(|| self.names.who[to.0].clone());
        let who = self.names.who[from.0].clone();
        self.emit(Event::Items { who, how, items, from: from_pile, to: to_pile, to_who });
    }
}
