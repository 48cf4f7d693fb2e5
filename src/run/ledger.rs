//! The ledger: what each participant has used and gained, for limits and caps. Declarations of
//! the current round, actions used over the encounter, and what capped gains have added.
//!
//! Written only when a declaration is paid (`act.rs`) and when a capped gain adds (`effects.rs`,
//! `act.rs`); the round's part is cleared as each round starts.

use super::costs::Costs;
use super::error::RunError;
use crate::ir::{self, Period};

/// One declaration, for limits.
#[derive(Debug, Clone)]
pub struct Declared {
    pub action: ir::ActionId,
    pub round: u32,
    pub turn: u64,
    pub phase: u64,
    pub trigger: Option<u64>,
    pub paid: Costs,
}

/// One action's uses over the encounter, for limits per encounter. What it paid is held inline
/// (`Costs`), not in a vector of its own: a `Search` playout starts from a copy with fewer uses
/// than the last one ended with, and each use it adds would allocate its list again.
#[derive(Debug, Clone, Copy)]
pub struct Used {
    pub action: ir::ActionId,
    pub uses: i64,
    pub paid: Costs,
}

/// Where the clock is, as far as a period of a limit is concerned.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Now {
    pub round: u32,
    pub turn: u64,
    pub phase: u64,
    pub trigger: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Ledger {
    /// Declarations of the current round, per participant (cleared as each round starts), so
    /// a limit check reads only its own participant's round, never the whole encounter.
    pub(crate) round_log: Vec<Vec<Declared>>,
    /// Per participant, each action used this encounter.
    pub(crate) encounter_log: Vec<Vec<Used>>,
    /// (participant, pool, gain index or usize::MAX - step index, round, amount) for caps.
    gained: Vec<(usize, ir::PoolId, usize, u32, i64)>,
    /// Capped gains totalled over the encounter: (participant, pool, gain key, total).
    gained_total: Vec<(usize, ir::PoolId, usize, i64)>,
    /// Per pool value (`World::pool_at`): changed, or refreshed, since the encounter began. The
    /// first refresh of a pool that is not overwrites what could not yet have been spent, so it
    /// loses nothing (`Fact::Lost`). Short (not yet grown to every pool) reads as untouched.
    touched: Vec<bool>,
}

impl Ledger {
    /// Empty, for `n` participants; the per-participant logs keep their allocations.
    pub fn reset(&mut self, n: usize) {
        self.round_log.resize_with(n, Vec::new);
        self.encounter_log.resize_with(n, Vec::new);
        self.round_log.iter_mut().for_each(Vec::clear);
        self.encounter_log.iter_mut().for_each(Vec::clear);
        self.gained.clear();
        self.gained_total.clear();
        self.touched.clear();
    }

    /// Becomes a copy of `other`, in the allocations it has.
    pub fn copy_from(&mut self, other: &Ledger) {
        // Destructured whole, so that a field added later cannot be forgotten here.
        let Ledger { round_log, encounter_log, gained, gained_total, touched } = other;
        self.round_log.clone_from(round_log);
        self.encounter_log.clone_from(encounter_log);
        self.gained.clone_from(gained);
        self.gained_total.clone_from(gained_total);
        self.touched.clone_from(touched);
    }

    /// Writes the ledger canonically (canon.rs): each declaration's turn, phase and answered
    /// event as how far back from `now`'s. Not `touched`, which only tells the sink what a
    /// refresh lost.
    pub(crate) fn canon(&self, c: &mut super::canon::Canon, now: Now) {
        let Ledger { round_log, encounter_log, gained, gained_total, touched: _ } = self;
        c.n(round_log.len());
        for log in round_log {
            c.n(log.len());
            for d in log {
                let Declared { action, round, turn, phase, trigger, paid } = d;
                c.put(action);
                c.put(&now.round.wrapping_sub(*round));
                c.put(&now.turn.wrapping_sub(*turn));
                c.put(&now.phase.wrapping_sub(*phase));
                c.put(&trigger.map(|t| now.trigger.wrapping_sub(t)));
                paid.canon(c);
            }
        }
        c.n(encounter_log.len());
        let uses: &[Vec<Used>] = if c.unread_uses { &[] } else { encounter_log };
        for log in uses {
            c.n(log.len());
            for u in log {
                c.put(&u.action);
                c.int(u.uses);
                u.paid.canon(c);
            }
        }
        c.n(gained.len());
        for (who, pool, key, round, amount) in gained {
            c.put(&(who, pool, key, now.round.wrapping_sub(*round), amount));
        }
        if !c.unread_gains {
            c.put(gained_total);
        }
    }

    /// The pool value at `at` (`World::pool_at`) changed or was refreshed.
    pub(crate) fn touch(&mut self, at: usize) {
        if self.touched.len() <= at {
            self.touched.resize(at + 1, false);
        }
        self.touched[at] = true;
    }

    /// Whether the pool value at `at` changed or was refreshed since the encounter began.
    pub(crate) fn touched(&self, at: usize) -> bool {
        self.touched.get(at).copied().unwrap_or(false)
    }

    /// The encounter begins: what was set up to here (start values, `encounter_start` steps)
    /// could not have been spent.
    pub(crate) fn untouch_all(&mut self) {
        self.touched.iter_mut().for_each(|t| *t = false);
    }

    /// A new round: limits and caps per round start again.
    pub(crate) fn new_round(&mut self) {
        self.round_log.iter_mut().for_each(Vec::clear);
        self.gained.clear();
    }

    /// Records a paid declaration.
    pub fn declared(&mut self, who: usize, d: Declared) -> Result<(), RunError> {
        match self.encounter_log[who].iter_mut().find(|u| u.action == d.action) {
            Some(used) => {
                used.uses += 1;
                for (p, amount) in &d.paid {
                    used.paid.add(p, amount)?;
                }
            }
            None => self.encounter_log[who].push(Used { action: d.action, uses: 1, paid: d.paid }),
        }
        self.round_log[who].push(d);
        Ok(())
    }

    /// Uses (or, with `pool`, the amount of it paid) in the current period, of matching actions.
    pub fn used(
        &self,
        who: usize,
        per: Period,
        pool: Option<ir::PoolId>,
        now: Now,
        matches: impl Fn(ir::ActionId) -> bool,
    ) -> i64 {
        if per == Period::Encounter {
            return self.encounter_log[who]
                .iter()
                .filter(|u| matches(u.action))
                .map(|u| match pool {
                    Some(p) => u.paid.of(p),
                    None => u.uses,
                })
                .sum();
        }
        self.round_log[who]
            .iter()
            .filter(|d| matches(d.action))
            .filter(|d| match per {
                Period::Turn => d.turn == now.turn,
                Period::Round | Period::Encounter => d.round == now.round,
                Period::Phase => d.phase == now.phase,
                Period::Trigger => d.trigger == Some(now.trigger),
            })
            .map(|d| match pool {
                Some(p) => d.paid.of(p),
                None => 1,
            })
            .sum()
    }

    /// Whether `who` declared action `a` in turn `turn`.
    #[inline]
    pub(crate) fn used_in_turn(&self, who: usize, a: ir::ActionId, turn: u64) -> bool {
        self.round_log[who].iter().any(|d| d.action == a && d.turn == turn)
    }

    /// How much a capped gain has added in the current period (a round, or the encounter).
    pub(crate) fn gained_this(&self, who: usize, pool: ir::PoolId, key: usize, per: Period, round: u32) -> i64 {
        if per == Period::Encounter {
            return self.gained_total.iter().filter(|g| g.0 == who && g.1 == pool && g.2 == key).map(|g| g.3).sum();
        }
        self.gained
            .iter()
            .filter(|(w, p, k, r, _)| *w == who && *p == pool && *k == key && *r == round)
            .map(|g| g.4)
            .sum()
    }

    /// Records what a capped gain added, for this round and for the encounter.
    pub(crate) fn note_gain(&mut self, who: usize, pool: ir::PoolId, key: usize, n: i64, round: u32) {
        self.gained.push((who, pool, key, round, n));
        match self.gained_total.iter_mut().find(|g| g.0 == who && g.1 == pool && g.2 == key) {
            Some(g) => g.3 += n,
            None => self.gained_total.push((who, pool, key, n)),
        }
    }
}
