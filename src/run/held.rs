//! The conditions held: per participant × condition what it holds, and the indexes kept in
//! step with it (bits per participant, the conditions that block each kind of action, who holds
//! each condition, how many are held `while` something holds or until their source's turns).
//!
//! Written only through `set` and `take`, which keep every index in step; the world (world.rs)
//! holds this part and answers, through it, whether someone is standing.

use crate::ir::{self, Expr, Ruleset};

/// A condition held by a participant. Copied freely: its `while` is the ruleset's own
/// expression, borrowed, so a held condition owns nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Held<'r> {
    pub magnitude: i64,
    pub until: Option<ir::Timing>,
    pub(crate) rounds_left: Option<i64>,
    pub(crate) while_: Option<&'r Expr>,
    /// Applied because another condition implies it; removed with that one.
    pub(crate) implied_by: Option<ir::ConditionId>,
    /// Who applied it (none for a condition held from the start).
    pub source: Option<usize>,
    /// `until turn_start(source)` / `until turn_end(source)`: ends with the source's turns.
    pub(crate) until_source: Option<SourceTurn>,
}

/// A duration counted on the turns of whoever applied the condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SourceTurn {
    /// Ends as the source's turn ends (else as it starts).
    pub end: bool,
    /// A turn of the source has started since the condition was applied.
    pub(crate) armed: bool,
}

#[derive(Debug, Default)]
pub(crate) struct HeldConditions<'r> {
    n_conditions: usize,
    /// Per participant × condition: what it holds.
    conds: Vec<Option<Held<'r>>>,
    /// Per participant: the conditions it holds, as bits (`words` words each), so asking
    /// whether anything blocks an action is a few word operations, not a walk over every
    /// condition (issue 10: `standing` was rescanned on every settle and every choice).
    bits: Vec<u64>,
    words: usize,
    /// The conditions that block each kind of action (`ActionKind::ALL` order), movement, and
    /// spending each pool, as bits.
    kind_blocks: Vec<u64>,
    movement_blocks: Vec<u64>,
    spend_blocks: Vec<u64>,
    /// Per participant: how many of its conditions are held `while` something holds, so
    /// checking those after every change skips everyone who holds none.
    whiles: Vec<u32>,
    whiles_total: u32,
    /// How many held conditions end with their source's turns: the turn steps look for them
    /// only while there are some.
    source_timed: u32,
    /// Per condition: who holds it, in no particular order (users sort what they take).
    holders: Vec<Vec<usize>>,
}

impl<'r> HeldConditions<'r> {
    /// Nothing held by any of `n` participants; every vector keeps its allocation.
    pub fn reset(&mut self, r: &Ruleset, n: usize) {
        let n_conditions = r.conditions.len();
        self.n_conditions = n_conditions;
        self.conds.clear();
        self.conds.resize(n * n_conditions, None);
        let words = n_conditions.div_ceil(64);
        self.words = words;
        super::buffers::refill(&mut self.bits, n * words, 0);
        super::buffers::refill(&mut self.kind_blocks, ir::ActionKind::ALL.len() * words, 0);
        super::buffers::refill(&mut self.movement_blocks, words, 0);
        super::buffers::refill(&mut self.spend_blocks, r.pools.len() * words, 0);
        for (c, def) in r.conditions.iter().enumerate() {
            let (word, bit) = (c / 64, 1u64 << (c % 64));
            for (k, kind) in ir::ActionKind::ALL.iter().enumerate() {
                if def.blocks.kinds.contains(kind) {
                    self.kind_blocks[k * words + word] |= bit;
                }
            }
            if def.blocks.movement {
                self.movement_blocks[word] |= bit;
            }
            for p in &def.blocks.spend {
                self.spend_blocks[p.index() * words + word] |= bit;
            }
        }
        super::buffers::refill(&mut self.whiles, n, 0);
        self.holders.resize_with(n_conditions, Vec::new);
        self.holders.truncate(n_conditions);
        self.holders.iter_mut().for_each(Vec::clear);
        self.whiles_total = 0;
        self.source_timed = 0;
    }

    /// Becomes a copy of `other`, in the allocations it has (none made once they are as large).
    pub fn copy_from(&mut self, other: &HeldConditions<'r>) {
        // Destructured whole, so that a field added later cannot be forgotten here.
        let HeldConditions {
            n_conditions,
            conds,
            bits,
            words,
            kind_blocks,
            movement_blocks,
            spend_blocks,
            whiles,
            whiles_total,
            source_timed,
            holders,
        } = other;
        self.n_conditions = *n_conditions;
        self.conds.clone_from(conds);
        self.bits.clone_from(bits);
        self.words = *words;
        self.kind_blocks.clone_from(kind_blocks);
        self.movement_blocks.clone_from(movement_blocks);
        self.spend_blocks.clone_from(spend_blocks);
        self.whiles.clone_from(whiles);
        self.whiles_total = *whiles_total;
        self.source_timed = *source_timed;
        self.holders.clone_from(holders);
    }

    // The queries below are `#[inline]`: the runner's modules land in different codegen
    // units, and a call across units is not inlined without it (`next`, `blocked` and the like
    // are called tens of thousands of times a duel, each for a few instructions).
    /// Writes the conditions held canonically (canon.rs): each one held, with what it lasts for
    /// and who holds each condition in order; not the indexes, which follow from them.
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        let HeldConditions {
            n_conditions,
            conds,
            bits: _,
            words: _,
            kind_blocks: _,
            movement_blocks: _,
            spend_blocks: _,
            whiles: _,
            whiles_total: _,
            source_timed: _,
            holders,
        } = self;
        c.n(*n_conditions);
        c.n(conds.len());
        for held in conds {
            let Some(h) = held else {
                c.flag(false);
                continue;
            };
            let Held { magnitude, until, rounds_left, while_, implied_by, source, until_source } = h;
            c.flag(true);
            c.int(*magnitude);
            c.put(until);
            c.put(rounds_left);
            // The `while` of a held condition is its own definition's: whether it has one.
            c.flag(while_.is_some());
            c.put(implied_by);
            c.put(source);
            c.put(&until_source.map(|s| (s.end, s.armed)));
        }
        c.put(holders);
    }

    #[inline]
    fn at(&self, who: usize, c: ir::ConditionId) -> usize {
        who * self.n_conditions + c.index()
    }

    /// What `who` holds of `c`, if it holds it.
    #[inline]
    pub fn get(&self, who: usize, c: ir::ConditionId) -> Option<&Held<'r>> {
        self.conds.get(self.at(who, c)).and_then(Option::as_ref)
    }

    pub(crate) fn get_mut(&mut self, who: usize, c: ir::ConditionId) -> Option<&mut Held<'r>> {
        let at = self.at(who, c);
        self.conds.get_mut(at).and_then(Option::as_mut)
    }

    #[inline]
    pub fn has(&self, who: usize, c: ir::ConditionId) -> bool {
        let i = c.index();
        i < self.n_conditions && self.bits[who * self.words + i / 64] & (1 << (i % 64)) != 0
    }

    /// The first condition at or after `from` (in declaration order) that `who` holds. Loops
    /// over the conditions someone holds go through this, re-reading as they go, so a
    /// condition applied or removed by an earlier step of the loop is seen as a walk over
    /// every condition would see it.
    #[inline]
    pub fn next(&self, who: usize, from: usize) -> Option<usize> {
        if from >= self.n_conditions {
            return None;
        }
        let words = &self.bits[who * self.words..(who + 1) * self.words];
        let (mut w, mut mask) = (from / 64, !0u64 << (from % 64));
        while w < words.len() {
            let bits = words[w] & mask;
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            w += 1;
            mask = !0;
        }
        None
    }

    /// `who` holds `c` as `held` from now on; returns whether it held `c` before.
    pub fn set(&mut self, who: usize, c: ir::ConditionId, held: Held<'r>) -> bool {
        let was = self.take(who, c);
        let i = c.index();
        self.holders[i].push(who);
        self.bits[who * self.words + i / 64] |= 1 << (i % 64);
        if held.while_.is_some() {
            self.whiles[who] += 1;
            self.whiles_total += 1;
        }
        if held.until_source.is_some() {
            self.source_timed += 1;
        }
        let at = self.at(who, c);
        self.conds[at] = Some(held);
        was.is_some()
    }

    /// `who` no longer holds `c`; what it held, if anything.
    pub fn take(&mut self, who: usize, c: ir::ConditionId) -> Option<Held<'r>> {
        let at = self.at(who, c);
        let held = self.conds.get_mut(at)?.take()?;
        let i = c.index();
        if let Some(k) = self.holders[i].iter().position(|w| *w == who) {
            self.holders[i].swap_remove(k);
        }
        self.bits[who * self.words + i / 64] &= !(1 << (i % 64));
        if held.while_.is_some() {
            self.whiles[who] -= 1;
            self.whiles_total -= 1;
        }
        if held.until_source.is_some() {
            self.source_timed -= 1;
        }
        Some(held)
    }

    /// Everyone who holds `c`, in no particular order.
    #[inline]
    pub fn holders(&self, c: ir::ConditionId) -> &[usize] {
        self.holders.get(c.index()).map_or(&[], Vec::as_slice)
    }

    /// Whether anyone holds a condition that ends with its source's turns.
    pub(crate) fn any_source_timed(&self) -> bool {
        self.source_timed > 0
    }

    /// Whether anyone holds a condition `while` something holds, and whether `who` does.
    pub(crate) fn any_whiles(&self, who: Option<usize>) -> bool {
        match who {
            None => self.whiles_total > 0,
            Some(w) => self.whiles[w] > 0,
        }
    }

    /// The first condition (in declaration order) that `who` holds and `mask` names.
    #[inline]
    fn first(&self, who: usize, mask: &[u64]) -> Option<ir::ConditionId> {
        let held = &self.bits[who * self.words..(who + 1) * self.words];
        held.iter().zip(mask).enumerate().find_map(|(w, (h, m))| {
            let both = h & m;
            (both != 0).then(|| ir::ConditionId((w * 64) as u32 + both.trailing_zeros()))
        })
    }

    #[inline]
    fn kind_mask(&self, kind: ir::ActionKind) -> &[u64] {
        let k = ir::ActionKind::ALL.iter().position(|x| *x == kind).unwrap_or(0);
        &self.kind_blocks[k * self.words..(k + 1) * self.words]
    }

    /// A held condition that forbids `kind` of action.
    #[inline]
    pub fn blocked(&self, who: usize, kind: ir::ActionKind) -> Option<ir::ConditionId> {
        self.first(who, self.kind_mask(kind))
    }

    #[inline]
    pub(crate) fn movement_blocked(&self, who: usize) -> Option<ir::ConditionId> {
        self.first(who, &self.movement_blocks)
    }

    #[inline]
    pub(crate) fn spend_blocked(&self, who: usize, pool: ir::PoolId) -> Option<ir::ConditionId> {
        let p = pool.index();
        self.spend_blocks.get(p * self.words..(p + 1) * self.words).and_then(|mask| self.first(who, mask))
    }
}
