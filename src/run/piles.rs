//! Piles of items as the world holds them (`items`, `pile`): each participant's piles are
//! counts per kind of the pile's set, in one flat vector, so copying a world (Search's
//! playouts) copies numbers into the allocation it has. A pile kept `shared` is held in the
//! first participant's block, one kept `per side` in the block of the side's first member:
//! every index reaches that one pile, and the other blocks of it stay empty. A leaf: the draws
//! are in `items.rs`.

use super::buffers::refill;
use crate::ir::{ItemKind, PileId, PileRead, Ruleset};

/// Whose a pile is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kept {
    /// Each participant's own.
    Own,
    /// `shared`: one for the encounter, in participant 0's block.
    Table,
    /// `per side`: one for each side, in the block of the side's first member.
    Side,
}

/// Every participant's piles: per participant a block of `stride` counts, one per kind of each
/// pile's set, the piles in declaration order.
#[derive(Debug, Default)]
pub(crate) struct Piles {
    /// Per pile: where its kinds start in a participant's block; one more entry, the block's
    /// length, ends the last pile.
    start: Vec<usize>,
    counts: Vec<u32>,
    /// Per pile: whose it is.
    kept: Vec<Kept>,
    /// Per participant: the first member of its side in the scenario's order (`set_sides`).
    side_first: Vec<usize>,
}

impl Piles {
    /// Empties every pile for `n` participants, then fills those declared `starts full`, each
    /// once: a `shared` pile in its one block. Until `set_sides`, everyone is a side of its own.
    pub fn reset(&mut self, r: &Ruleset, n: usize) {
        self.start.clear();
        let mut at = 0;
        for p in &r.piles {
            self.start.push(at);
            at += r.item_sets.get(p.set.index()).map_or(0, |s| s.kinds.len());
        }
        self.start.push(at);
        self.kept.clear();
        self.kept.extend(r.piles.iter().map(|p| match (p.shared, p.per_side) {
            (true, _) => Kept::Table,
            (false, true) => Kept::Side,
            (false, false) => Kept::Own,
        }));
        self.side_first.clear();
        self.side_first.extend(0..n);
        refill(&mut self.counts, n * at, 0);
        for who in 0..n {
            for (i, p) in r.piles.iter().enumerate().filter(|(_, p)| p.full) {
                let pile = PileId(i as u32);
                if self.holder(who, pile) != who {
                    continue;
                }
                let Some(set) = r.item_sets.get(p.set.index()) else { continue };
                for (slot, kind) in self.pile_mut(who, pile).iter_mut().zip(&set.kinds) {
                    *slot = kind.count;
                }
            }
        }
    }

    /// Keeps each side's piles kept `per side` in its first member's block (`side_first`, per
    /// participant), emptying the blocks no index reaches any more. Called once the sides are
    /// known, before anything is drawn.
    pub fn set_sides(&mut self, side_first: &[usize]) {
        self.side_first.clear();
        self.side_first.extend_from_slice(side_first);
        for (who, _) in side_first.iter().enumerate().filter(|(who, first)| *who != **first) {
            for i in 0..self.kept.len() {
                if self.kept[i] == Kept::Side {
                    let (a, b) = self.own_span(who, PileId(i as u32));
                    if let Some(block) = self.counts.get_mut(a..b) {
                        block.fill(0);
                    }
                }
            }
        }
    }

    /// Becomes a copy of `other`, in the allocations it has.
    pub fn copy_from(&mut self, other: &Piles) {
        self.start.clone_from(&other.start);
        self.counts.clone_from(&other.counts);
        self.kept.clone_from(&other.kept);
        self.side_first.clone_from(&other.side_first);
    }

    /// The participant whose block holds `who`'s pile: `who`, participant 0 for a `shared`
    /// pile, the first member of `who`'s side for a pile kept `per side`.
    #[inline]
    pub fn holder(&self, who: usize, pile: PileId) -> usize {
        match self.kept.get(pile.index()) {
            Some(Kept::Table) => 0,
            Some(Kept::Side) => self.side_first.get(who).copied().unwrap_or(who),
            _ => who,
        }
    }

    /// The kinds of a pile's set, with their numbers (none for a pile that is not there).
    pub fn kinds(r: &Ruleset, pile: PileId) -> &[ItemKind] {
        r.piles.get(pile.index()).and_then(|p| r.item_sets.get(p.set.index())).map_or(&[], |s| &s.kinds)
    }

    /// Writes the piles canonically (canon.rs): every count, a `shared` pile's and a side's
    /// among them (state the exact solver merges by; the blocks no index reaches stay 0).
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        c.put(&self.counts);
    }

    fn span(&self, who: usize, pile: PileId) -> (usize, usize) {
        self.own_span(self.holder(who, pile), pile)
    }

    /// Where `pile` is in `who`'s own block, whoever holds it.
    fn own_span(&self, who: usize, pile: PileId) -> (usize, usize) {
        let stride = self.start.last().copied().unwrap_or(0);
        let i = pile.index();
        let (a, b) = (self.start.get(i).copied().unwrap_or(0), self.start.get(i + 1).copied().unwrap_or(0));
        (who * stride + a, who * stride + b.max(a))
    }

    /// A participant's pile: a count per kind of its set (empty for a pile that is not there).
    pub fn pile(&self, who: usize, pile: PileId) -> &[u32] {
        let (a, b) = self.span(who, pile);
        self.counts.get(a..b).unwrap_or(&[])
    }

    pub fn pile_mut(&mut self, who: usize, pile: PileId) -> &mut [u32] {
        let (a, b) = self.span(who, pile);
        self.counts.get_mut(a..b).unwrap_or(&mut [])
    }

    /// How many items the pile holds, or of one kind.
    pub fn count(&self, who: usize, pile: PileId, kind: Option<u32>) -> i64 {
        let p = self.pile(who, pile);
        match kind {
            Some(k) => p.get(k as usize).map_or(0, |n| i64::from(*n)),
            None => p.iter().map(|n| i64::from(*n)).sum(),
        }
    }

    /// What the numbers of the pile's items come to (`kinds`: its set's; a kind without a
    /// number counts 0): their sum, or the highest or lowest number held (0 when empty).
    pub fn read(&self, who: usize, pile: PileId, kinds: &[ItemKind], read: PileRead) -> i64 {
        let values = kinds.iter().map(|k| k.value.unwrap_or(0));
        let held = self.pile(who, pile).iter().zip(values).filter(|(n, _)| **n > 0);
        match read {
            PileRead::Sum => held.fold(0i64, |sum, (n, v)| sum.saturating_add(v.saturating_mul(i64::from(*n)))),
            PileRead::Highest => held.map(|(_, v)| v).max().unwrap_or(0),
            PileRead::Lowest => held.map(|(_, v)| v).min().unwrap_or(0),
        }
    }

    /// The kind `move highest` (`true`) or `move lowest` takes: of those held, the one of the
    /// highest (lowest) number, the first its set lists among those tied; none when empty.
    pub fn extreme(&self, who: usize, pile: PileId, kinds: &[ItemKind], highest: bool) -> Option<usize> {
        let mut best: Option<(usize, i64)> = None;
        let values = kinds.iter().map(|k| k.value.unwrap_or(0));
        for (k, (n, v)) in self.pile(who, pile).iter().zip(values).enumerate() {
            let better = match best {
                None => true,
                Some((_, b)) => (highest && v > b) || (!highest && v < b),
            };
            if *n > 0 && better {
                best = Some((k, v));
            }
        }
        best.map(|(k, _)| k)
    }

    /// Moves one of kind `k` between two piles of one set; false when `from` has none.
    pub fn move_one(&mut self, from: (usize, PileId), to: (usize, PileId), k: usize) -> bool {
        match self.pile_mut(from.0, from.1).get_mut(k) {
            Some(n) if *n > 0 => *n -= 1,
            _ => return false,
        }
        if let Some(n) = self.pile_mut(to.0, to.1).get_mut(k) {
            *n = n.saturating_add(1);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Piles;
    use crate::ir::PileId;
    use crate::run::canon::Canon;

    fn ruleset() -> crate::ir::Ruleset {
        let text = "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\nitems cards { ace, king x2 }\n\
                    pile deck of cards { shared; starts full }\npile camp of cards { per side; starts full }\n\
                    pile hand of cards { starts full }\n";
        let c = crate::check::compile_str("t.rules", text);
        c.ruleset.expect("compiles")
    }

    fn canon(p: &Piles) -> Vec<u8> {
        let mut c = Canon::default();
        p.canon(&mut c);
        c.bytes
    }

    #[test]
    fn a_shared_pile_is_one_full_pile_whoever_names_it_and_part_of_the_state() {
        let (deck, camp, hand) = (PileId(0), PileId(1), PileId(2));
        let r = ruleset();
        let mut p = Piles::default();
        p.reset(&r, 3);
        p.set_sides(&[0, 0, 2]);
        // Filled once: every index reaches the one deck; the blocks no index reaches stay empty.
        for who in 0..3 {
            assert_eq!(p.pile(who, deck), &[1, 2]);
            assert_eq!(p.holder(who, deck), 0);
            assert_eq!(p.pile(who, hand), &[1, 2], "each participant's own pile starts full");
        }
        assert_eq!(p.counts.iter().sum::<u32>(), 3 + 2 * 3 + 3 * 3, "one deck, two camps, three hands");
        // One camp for each side: A and B share side 0's, C has its own.
        assert_eq!((p.holder(1, camp), p.holder(2, camp)), (0, 2));
        let before = canon(&p);
        assert!(p.move_one((1, deck), (1, hand), 0));
        assert_eq!(p.pile(2, deck), &[0, 2], "what B drew is gone for C too");
        assert!(!p.move_one((2, deck), (2, hand), 0), "and C cannot draw it again");
        assert!(p.move_one((1, camp), (1, hand), 1));
        assert_eq!((p.pile(0, camp), p.pile(2, camp)), (&[1, 1][..], &[1, 2][..]));
        // The canonical bytes hold the shared pile: the exact solver merges states by them.
        assert_ne!(canon(&p), before);
        let mut copy = Piles::default();
        copy.copy_from(&p);
        assert_eq!((copy.pile(2, deck), copy.holder(1, camp)), (&[0, 2][..], 0));
    }
}
