//! Pools: a value set within its bounds, what paying does to it, and the steps (refresh, lose,
//! decay, convert, gain) pools take at a timing.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::{Fact, Sink};
use super::trace::{Cause, Event};
use crate::ir::{self, Timing};

impl<'r, S: Sink> Engine<'r, S> {
    /// Sets a pool, clamped to its bounds, and records the change with its cause.
    pub(crate) fn set_pool(&mut self, who: usize, p: ir::PoolId, value: i64, cause: &Cause) -> Result<(), RunError> {
        let value = self.clamp_pool(who, p, value)?;
        self.set_pool_raw(who, p, value, cause);
        Ok(())
    }

    /// `value` within the pool's bounds.
    pub(super) fn clamp_pool(&mut self, who: usize, p: ir::PoolId, value: i64) -> Result<i64, RunError> {
        let max = self.pool_max(who, p)?;
        let min = self.pool_min(who, p)?;
        // A pool overspent below its minimum recovers from where it is (Frontiers: negative
        // Energy recovers at the normal rate); effects never push it further down. A meter
        // overspent above its max, the same way from above.
        let from = self.world.pool(who, p);
        let value = value.max(min.min(from));
        let rising = self.ruleset().pools[p.index()].rising;
        Ok(max.map_or(value, |m| value.min(if rising { m.max(min).max(from) } else { m.max(min) })))
    }

    /// A pool after paying `amount` of it: a resource goes down, a rising meter up.
    pub(in crate::run) fn after_paying(&self, p: ir::PoolId, now: i64, amount: i64) -> i64 {
        match self.ruleset().pools[p.index()].rising {
            true => now.saturating_add(amount),
            false => now.saturating_sub(amount),
        }
    }

    /// How much of a payment of `amount` goes past the pool's bounds: below a resource's floor,
    /// above a meter's max (0 when it fits).
    pub(in crate::run) fn past_bounds(&mut self, who: usize, p: ir::PoolId, amount: i64) -> Result<i64, RunError> {
        let now = self.world.pool(who, p);
        let next = self.after_paying(p, now, amount);
        Ok(match self.ruleset().pools[p.index()].rising {
            true => self.pool_max(who, p)?.map_or(0, |max| next.saturating_sub(max).clamp(0, amount.max(0))),
            false => self.pool_min(who, p)?.saturating_sub(next).clamp(0, amount.max(0)),
        })
    }

    /// Sets a pool without clamping (overspend goes below the minimum).
    pub(crate) fn set_pool_raw(&mut self, who: usize, p: ir::PoolId, value: i64, cause: &Cause) {
        let at = self.world.pool_at(who, p);
        let from = self.world.pools[at];
        if from == value {
            return;
        }
        self.world.pools[at] = value;
        self.ledger.touch(at);
        self.changes_made += 1;
        self.record_pool(who, p, from, value, cause);
    }

    /// A pool change made: its thresholds are to be looked at, and the trace shows it.
    pub(super) fn record_pool(&mut self, who: usize, p: ir::PoolId, from: i64, to: i64, cause: &Cause) {
        let seq = if self.dry {
            None
        } else {
            // A side's pool is charged to the side, whoever changed it.
            let side = self.world.per_side(p);
            let who_name = match side {
                true => self.names.side.get(self.world.sides[who] as usize).unwrap_or(&self.names.who[who]).clone(),
                false => self.names.who[who].clone(),
            };
            let pool = self.names.pool[p.index()].clone();
            self.emit(Event::Pool { who: who_name, pool, from, to, cause: cause.clone(), side })
        };
        self.pending.changed.push((who, p, from, seq));
        if self.ruleset().pools[p.index()].thresholds.iter().any(|t| t.immediately) {
            self.pending.immediate.push((who, p, from, seq));
        }
    }

    /// Pool steps (refresh, lose, decay, convert, gain) of one participant at a timing. The
    /// steps of pools kept `per side` run only when `for_side` (once for each side: the
    /// caller passes it for one member of each side, or for the one whose turn it is).
    pub(crate) fn pool_steps(&mut self, who: usize, timing: Timing, for_side: bool) -> Result<(), RunError> {
        let r = self.ruleset();
        for (p, pool) in r.pools.iter().enumerate() {
            let id = ir::PoolId(p as u32);
            if pool.per_side && !for_side {
                continue;
            }
            for (s, step) in pool.at.iter().enumerate() {
                if step.timing != timing {
                    continue;
                }
                let c = Ctx { owner: who, ..Ctx::default() };
                // A step's work, its guard's dice included, is its own rule's; a failure ends the
                // run, so the rule under way is restored only on success (`reset` clears it).
                let outer = self.under(step.loc);
                if let Some(g) = &step.guard {
                    if self.eval(g, &c)? == 0 {
                        self.rule = outer;
                        continue;
                    }
                }
                self.step()?;
                let cause = Cause::Step { op: op_word(&step.op), timing: self.names.timing(timing) };
                let now = self.world.pool(who, id);
                let floor = self.pool_min(who, id)?.max(0).min(now.max(self.pool_min(who, id)?));
                match &step.op {
                    // A meter is emptied, not filled.
                    ir::PoolOp::Refresh if pool.rising => {
                        let min = self.pool_min(who, id)?;
                        self.set_pool(who, id, min, &cause)?;
                    }
                    ir::PoolOp::Refresh => {
                        let max = self.pool_max(who, id)?.unwrap_or(now);
                        // Nothing could be spent before the encounter started, nor before the
                        // first refresh of a pool nothing has changed since (the first turn of
                        // its owner); a pool no cost names is a counter, never spent, so what a
                        // refresh overwrites is not lost either (the sink knows which those are).
                        let at = self.world.pool_at(who, id);
                        if timing != Timing::EncounterStart && self.ledger.touched(at) {
                            self.tell(Fact::Lost { who: self.world.pool_holder(who, id), pool: p, amount: now.max(0) });
                        }
                        if timing != Timing::EncounterStart {
                            self.ledger.touch(at);
                        }
                        self.set_pool(who, id, max, &cause)?;
                    }
                    ir::PoolOp::Keep => {}
                    ir::PoolOp::Lose => {
                        self.tell(Fact::Lost {
                            who: self.world.pool_holder(who, id),
                            pool: p,
                            amount: now.saturating_sub(floor.min(now)),
                        });
                        self.set_pool(who, id, floor.min(now), &cause)?;
                    }
                    ir::PoolOp::Decay(e) => {
                        let n = self.eval(e, &c)?;
                        let next = now.saturating_sub(n).max(floor.min(now));
                        self.tell(Fact::Lost {
                            who: self.world.pool_holder(who, id),
                            pool: p,
                            amount: now.saturating_sub(next),
                        });
                        self.set_pool(who, id, next, &cause)?;
                    }
                    ir::PoolOp::Convert(into) => {
                        if now > 0 {
                            let there = self.world.pool(who, *into);
                            self.set_pool(who, *into, there.saturating_add(now), &cause)?;
                            self.set_pool(who, id, 0, &cause)?;
                        }
                    }
                    ir::PoolOp::Gain { amount, cap } => {
                        let mut n = self.eval(amount, &c)?;
                        if let Some((cap, per)) = cap {
                            let cap = self.eval(cap, &c)?;
                            let key = usize::MAX - s;
                            let holder = self.world.pool_holder(who, id);
                            n = n.min(cap - self.ledger.gained_this(holder, id, key, *per, self.clock.round)).max(0);
                            self.ledger.note_gain(holder, id, key, n, self.clock.round);
                        }
                        let max = self.pool_max(who, id)?;
                        let next = max.map_or(now.saturating_add(n), |m| now.saturating_add(n).min(m.max(now)));
                        self.set_pool(who, id, next, &cause)?;
                    }
                }
                self.rule = outer;
            }
        }
        Ok(())
    }
}

fn op_word(op: &ir::PoolOp) -> &'static str {
    match op {
        ir::PoolOp::Refresh => "refresh",
        ir::PoolOp::Keep => "keep",
        ir::PoolOp::Lose => "lose",
        ir::PoolOp::Decay(_) => "decay",
        ir::PoolOp::Convert(_) => "convert",
        ir::PoolOp::Gain { .. } => "gain",
    }
}
