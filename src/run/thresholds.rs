//! Thresholds: what pool changes crossed into, `immediately` or at the next settle (in
//! `state_order` when it is set), and conditions held `while` something holds.

use super::ctx::Ctx;
use super::effects::assign;
use super::engine::Engine;
use super::error::RunError;
use super::pending::{Change, HeldChange, Staged};
use super::sink::Sink;
use super::trace::Cause;
use crate::ir::{self, Effect};

impl<'r, S: Sink> Engine<'r, S> {
    /// The `immediately` thresholds the changes made since the last look crossed into, each in
    /// full (its condition changes too) before the rule goes on. Changes they make are looked at
    /// in turn, as many times as the budget of steps allows.
    pub fn immediately(&mut self) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.ruleset();
        while !self.pending.immediate.is_empty() {
            let batch = std::mem::take(&mut self.pending.immediate);
            for (i, &(who, p, old, seq)) in batch.iter().enumerate() {
                let now = step_end(&batch, i).unwrap_or_else(|| self.world.pool(who, p));
                for t in r.pools[p.index()].thresholds.iter().filter(|t| t.immediately) {
                    let c = Ctx { owner: who, ..Ctx::default() };
                    let value = self.eval(&t.value, &c)?;
                    if t.op.holds(now, value) && !t.op.holds(old, value) {
                        self.step()?;
                        let cause =
                            Cause::Threshold { pool: self.names.pool[p.index()].clone(), op: t.op.symbol(), value };
                        let outer = self.under(t.loc);
                        let because = self.caused_by(seq);
                        let done = self.run_flow(&t.effects, &c, &cause);
                        self.rule = outer;
                        self.because = because;
                        done?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Thresholds of every pool that changed, in `state_order` then declaration order; condition
    /// changes they cause wait until all pools are done (Frontiers, "Multiple State Changes").
    /// Each pool of `state_order` also sees, in the same round, the changes the thresholds of
    /// the pools before it made (HP's Wound at 0 HP); what thresholds change otherwise is
    /// settled the same way in the next round, after the condition changes.
    pub fn settle(&mut self) -> Result<(), RunError> {
        self.flush()?;
        // Changes made outside a rule's effects (costs, pool steps): their `immediately`
        // thresholds now, before the others.
        if !self.pending.immediate.is_empty() {
            self.immediately()?;
        }
        let was = std::mem::replace(&mut self.pending.staging, false);
        let done = self.settle_rounds();
        self.pending.staging = was;
        done?;
        self.expire_while()?;
        if !self.pending.ongoing.is_empty() {
            self.interrupt_ongoing()?;
        }
        Ok(())
    }

    fn settle_rounds(&mut self) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.ruleset();
        let ordered = r.state_order.len();
        let rank = |p: ir::PoolId| r.state_order.iter().position(|x| *x == p).unwrap_or(ordered + p.index());
        let mut rounds = 0;
        while !self.pending.changed.is_empty() || !self.pending.conditions.is_empty() {
            rounds += 1;
            if rounds > 64 {
                return Err(RunError::Cycle(vec!["pool thresholds that keep changing each other".into()]));
            }
            // Work on this batch while effects collect the next one in `pending`; both buffers
            // are kept for the next settle. Condition changes a flush held come first.
            let mut batch = std::mem::take(&mut self.scratch.settling);
            std::mem::swap(&mut batch, &mut self.pending.changed);
            batch.sort_by_key(|(who, p, _, _)| (rank(*p), *who));
            let mut deferred = std::mem::take(&mut self.pending.conditions);
            let rest = self.ordered_pass(&batch, &[], &mut deferred)?;
            for (i, &(who, p, old, seq)) in batch.iter().enumerate().skip(rest) {
                self.thresholds(who, p, old, seq, step_end(&batch, i), &mut deferred)?;
            }
            for &(who, e, rule, seq) in &deferred {
                let c = Ctx { owner: who, ..Ctx::default() };
                let outer = self.caused_by(seq);
                self.run_effects(std::slice::from_ref(e), &c, &Cause::Static("threshold"), rule)?;
                self.because = outer;
            }
            batch.clear();
            deferred.clear();
            // Held meanwhile by a flush nested in the effects above: the next round's.
            deferred.append(&mut self.pending.conditions);
            self.scratch.settling = batch;
            self.pending.conditions = deferred;
        }
        Ok(())
    }

    /// The pools of `state_order`, each in turn: the held changes made to it (`staged`, in the
    /// order they were made), then its thresholds, for its changes in `batch` (sorted by rank)
    /// and those made since (the held ones, those of the thresholds of the pools before it).
    /// Condition changes go to `deferred`. Returns where `batch` goes on past these pools.
    pub(super) fn ordered_pass(
        &mut self,
        batch: &[Change],
        staged: &[Staged],
        deferred: &mut Vec<HeldChange<'r>>,
    ) -> Result<usize, RunError> {
        let r: &'r ir::Ruleset = self.ruleset();
        let mut next = 0;
        let mut at_rank = std::mem::take(&mut self.scratch.at_rank);
        for (k, &p) in r.state_order.iter().enumerate() {
            if r.state_order[..k].contains(&p) {
                continue; // named twice: its place is the first
            }
            for s in staged.iter().filter(|s| s.pool == p) {
                let value = assign(self.world.pool(s.who, p), s.op, s.value);
                let outer = std::mem::replace(&mut self.rule, s.rule);
                let done = self.set_pool(s.who, p, value, &s.cause);
                self.rule = outer;
                done?;
            }
            at_rank.clear();
            let start = next;
            while next < batch.len() && batch[next].1 == p {
                next += 1;
            }
            at_rank.extend_from_slice(&batch[start..next]);
            // Changes made since the batch was taken are rare (a threshold's own): the common
            // pass over `state_order` calls neither `retain` nor the sort for nothing.
            if !self.pending.changed.is_empty() {
                self.pending.changed.retain(|&change| {
                    let here = change.1 == p;
                    if here {
                        at_rank.push(change);
                    }
                    !here
                });
            }
            if at_rank.len() > 1 {
                at_rank.sort_by_key(|(who, _, _, _)| *who);
            }
            for (i, &(who, p, old, seq)) in at_rank.iter().enumerate() {
                self.thresholds(who, p, old, seq, step_end(&at_rank, i), deferred)?;
            }
        }
        at_rank.clear();
        self.scratch.at_rank = at_rank;
        Ok(next)
    }

    /// The thresholds of `p` that its change from `old` to `to` (the pool's value now when
    /// `None`) crossed into: their effects run, their condition changes wait in `deferred`.
    /// `seq` is the change's `pool` event, the cause of what they do.
    fn thresholds(
        &mut self,
        who: usize,
        p: ir::PoolId,
        old: i64,
        seq: Option<u64>,
        to: Option<i64>,
        deferred: &mut Vec<HeldChange<'r>>,
    ) -> Result<(), RunError> {
        let r: &'r ir::Ruleset = self.ruleset();
        let now = to.unwrap_or_else(|| self.world.pool(who, p));
        for t in r.pools[p.index()].thresholds.iter().filter(|t| !t.immediately) {
            let c = Ctx { owner: who, ..Ctx::default() };
            let value = self.eval(&t.value, &c)?;
            let inside = |v: i64| t.op.holds(v, value);
            if inside(now) && !inside(old) {
                let cause = Cause::Threshold { pool: self.names.pool[p.index()].clone(), op: t.op.symbol(), value };
                let outer = self.under(t.loc);
                let because = self.caused_by(seq);
                let done = self.threshold_effects(&t.effects, who, &cause, t.loc, seq, deferred);
                self.rule = outer;
                self.because = because;
                done?;
            }
        }
        Ok(())
    }

    /// Runs threshold effects, but holds back condition changes (deeply, inside `if`s).
    fn threshold_effects(
        &mut self,
        effects: &'r [Effect],
        who: usize,
        cause: &Cause,
        rule: ir::Loc,
        seq: Option<u64>,
        deferred: &mut Vec<HeldChange<'r>>,
    ) -> Result<(), RunError> {
        let c = Ctx { owner: who, ..Ctx::default() };
        for e in effects {
            match e {
                Effect::Apply { .. } | Effect::Remove { .. } => deferred.push((who, e, rule, seq)),
                Effect::If { cond, then, otherwise } => {
                    let branch = if self.eval(cond, &c)? != 0 { then } else { otherwise };
                    self.threshold_effects(branch, who, cause, rule, seq, deferred)?;
                }
                other => {
                    self.step()?;
                    self.effect(other, &c, cause)?;
                    // A threshold targets nobody: a redirect of its event has nothing to turn.
                    self.pending.retarget = None;
                }
            }
        }
        Ok(())
    }

    /// Conditions held `while` something holds end when it stops holding.
    pub(crate) fn expire_while(&mut self) -> Result<(), RunError> {
        if !self.world.held.any_whiles(None) {
            return Ok(());
        }
        for who in 0..self.world.n {
            if !self.world.held.any_whiles(Some(who)) {
                continue;
            }
            // Only the conditions held, re-read as the loop goes (a removal may remove others).
            let mut next = 0;
            while let Some(cond) = self.world.held.next(who, next) {
                next = cond + 1;
                let id = ir::ConditionId(cond as u32);
                let Some((e, source)) = self.world.held.get(who, id).and_then(|h| Some((h.while_?, h.source))) else {
                    continue;
                };
                if self.eval(e, &Ctx { owner: who, source, ..Ctx::default() })? == 0 {
                    self.remove(who, id);
                }
            }
        }
        Ok(())
    }
}

/// Where the change at `i` of a list of changes (who, pool, value before) ended: at the value
/// before the next change to the same pool of the same participant, if one follows in the list
/// (the list keeps the order they were made in), else `None` (the pool's value now). So several
/// changes to one pool between two looks are each one step, and a threshold is crossed once per
/// step that enters it: `hp -= 2; hp -= 1` from 3 enters `hp <= 0` once; a refresh to 5 then a
/// drain to 0 leaves it and enters it again.
fn step_end(changes: &[Change], i: usize) -> Option<i64> {
    let (who, p, _, _) = changes[i];
    changes.get(i + 1).filter(|(w, q, _, _)| *w == who && *q == p).map(|(_, _, before, _)| *before)
}
