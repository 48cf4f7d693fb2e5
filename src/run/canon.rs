//! The encounter's state in canonical form: the bytes two engines of one ruleset and scenario
//! agree on exactly when they would play on alike, and a deterministic hash of them. The exact
//! solver (src/solve/) merges the states it reaches between rounds by these bytes.
//!
//! Each part of the state writes its own fields (`canon` beside each part's `copy_from`, each
//! destructured whole so a field added later cannot be forgotten). What is left out, and why:
//! - the machinery: the tables, names, scratch buffers and caches (the world's versions, the
//!   conditions' indexes, which follow from the conditions held), the sink and the sequence
//!   numbers of its events (a pending change's cause, `because`, `rule`), the step budget (a
//!   guard against runaway rules, counted afresh each cascade);
//! - the dice's generator: what is still to be rolled is not where the encounter stands;
//! - what is fixed for the whole encounter: the scripts' steps and the policies (only how far
//!   each script has been used is state), the terrain;
//! - the absolute counters that tell turns, phases and answered events apart: only whether a
//!   recorded declaration was made in the current turn, phase or answer is ever asked, so each
//!   is written as how far back from the current one it was (`Now`).

use crate::ir::{Period, PoolOp, Ruleset};
use std::hash::{Hash, Hasher};

/// The canonical bytes of a state; also a `Hasher`, so any part that derives `Hash` (ids,
/// timings, locations) writes itself into it.
#[derive(Debug, Default, Clone)]
pub(crate) struct Canon {
    pub(crate) bytes: Vec<u8>,
    /// Leave out each participant's last check: the ruleset never reads it (no `last_check`,
    /// `last_critical` or contest against one), and its total, different after every roll,
    /// would keep apart states that play on alike.
    pub(crate) unread_last_check: bool,
    /// Leave out each participant's uses of each action over the encounter: no limit counts
    /// per encounter (the counts only grow, and would keep apart every two histories).
    pub(crate) unread_uses: bool,
    /// Leave out what capped gains added over the encounter: no cap counts per encounter.
    pub(crate) unread_gains: bool,
}

impl Hasher for Canon {
    fn write(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// FNV-1a over the bytes, then SplitMix64's finaliser: the same on every machine and in
    /// every run (std's hashers promise neither).
    fn finish(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in &self.bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        h ^ (h >> 31)
    }
}

impl Canon {
    /// A writer for states of `r`, leaving out what no rule of `r` reads (above).
    pub(crate) fn for_ruleset(r: &Ruleset) -> Canon {
        let encounter = |per: Period| per == Period::Encounter;
        let uses = r.actions.iter().flat_map(|a| &a.limits).any(|l| encounter(l.per))
            || r.limits.iter().any(|l| encounter(l.per));
        let gains = r.pools.iter().any(|p| {
            p.gains.iter().any(|g| g.cap.as_ref().is_some_and(|(_, per)| encounter(*per)))
                || p.at.iter().any(|s| matches!(&s.op, PoolOp::Gain { cap: Some((_, per)), .. } if encounter(*per)))
        });
        Canon { bytes: Vec::new(), unread_last_check: !reads_last_check(r), unread_uses: !uses, unread_gains: !gains }
    }

    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
    }

    /// A length or an index.
    #[inline]
    pub(crate) fn n(&mut self, v: usize) {
        self.write_u64(v as u64);
    }

    #[inline]
    pub(crate) fn int(&mut self, v: i64) {
        self.write_i64(v);
    }

    #[inline]
    pub(crate) fn flag(&mut self, v: bool) {
        self.write_u8(u8::from(v));
    }

    /// Anything that derives `Hash`: written as its derived hash writes it.
    #[inline]
    pub(crate) fn put<T: Hash + ?Sized>(&mut self, v: &T) {
        v.hash(self);
    }
}

/// Whether any rule reads a participant's last check (`last_check`, `last_critical`, a contest
/// against one). Read from the IR as RON, where each is a variant of that name: a name a
/// designer gave that contains one only makes the answer yes, which keeps states apart that
/// could have been merged, never the reverse.
fn reads_last_check(r: &Ruleset) -> bool {
    ron::to_string(r).map_or(true, |text| text.contains("LastCheck") || text.contains("LastCritical"))
}
