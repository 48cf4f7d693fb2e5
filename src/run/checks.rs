//! Checks: a roll against a target number or an opposed roll, graded by degrees, and the branch
//! its outcome runs.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Cause, Event};
use super::world::LastCheck;
use crate::ir::{self, Effect};

impl<'r, S: Sink> Engine<'r, S> {
    pub(super) fn check(
        &mut self,
        roll: &ir::Expr,
        against: &ir::Expr,
        o: &'r ir::Outcomes,
        c: &Ctx,
        cause: &Cause,
    ) -> Result<bool, RunError> {
        let (modifier, edge) = self.check_modifiers(c)?;
        let mut first = None;
        let mut total = self.eval_with_first(roll, c, &mut first)?;
        if edge != 0 {
            let mut again = None;
            let second = self.eval_with_first(roll, c, &mut again)?;
            if (edge > 0) == (second > total) {
                total = second;
                first = again;
            }
        }
        let total = total.saturating_add(modifier);
        if let Some(g) = &o.graded {
            return self.graded_check(total, first, against, g, c, cause);
        }
        let target = self.eval(against, c)?;
        let critical = first.is_some_and(|(face, sides)| face == i64::from(sides) && sides > 1);
        let fumble = first.is_some_and(|(face, sides)| face == 1 && sides > 1);
        let success = total >= target;
        let (outcome, effects): (usize, &[Effect]) = match (success, critical, fumble) {
            (true, true, _) if o.critical.is_some() => (2, o.critical.as_deref().unwrap_or(&[])),
            (true, _, _) => (0, &o.success),
            (false, _, true) if o.fumble.is_some() => (3, o.fumble.as_deref().unwrap_or(&[])),
            (false, _, _) => (1, &o.failure),
        };
        let who = self.names.who[c.owner].clone();
        let outcome_name = self.names.outcome[outcome].clone();
        let seq = self.emit(Event::Check { who, roll: total, against: target, outcome: outcome_name, opposed: None });
        self.world.last_check[c.owner] = LastCheck { total, critical: outcome == 2, level: None };
        let outer = self.caused_by(seq);
        let halted = self.run_flow(effects, c, cause);
        self.because = outer;
        halted
    }

    /// What the conditions held make of a check run for `c`: the sum of the modifiers and the
    /// edge (advantages less disadvantages), from the owner's conditions and, for a check with
    /// another as its target, the target's `modify checks against self`. Scorers read it too
    /// (decide/score.rs), so a check is weighed as it would be rolled.
    pub(super) fn check_modifiers(&mut self, c: &Ctx) -> Result<(i64, i32), RunError> {
        let mut modifier = 0i64;
        let mut edge = 0i32;
        let r = self.ruleset();
        // A modifier scoped to some actions (`on reaction`) reaches the checks of those alone.
        let reaches = |on: Option<ir::EventRef>| match on {
            None => true,
            Some(on) => c.acting.is_some_and(|a| super::ctx::EventInfo::action(a).is(r, on)),
        };
        for cond in 0..self.ruleset().conditions.len() {
            let id = ir::ConditionId(cond as u32);
            if !self.world.held.has(c.owner, id) {
                continue;
            }
            let def = &self.ruleset().conditions[cond];
            if let (Some(m), true) = (&def.check_modifier, reaches(def.check_modifier_on)) {
                modifier = modifier.saturating_add(self.eval(m, c)?);
            }
            if !reaches(def.check_edge_on) {
                continue;
            }
            match def.check_edge {
                Some(ir::Edge::Advantage) => edge += 1,
                Some(ir::Edge::Disadvantage) => edge -= 1,
                None => {}
            }
        }
        // What the target's conditions do to checks made against it (`modify checks against
        // self`), read as the target's.
        if let Some(t) = c.target.filter(|t| *t != c.owner) {
            let as_target = Ctx { owner: t, target: Some(c.owner), ..*c };
            for cond in 0..self.ruleset().conditions.len() {
                let id = ir::ConditionId(cond as u32);
                if !self.world.held.has(t, id) {
                    continue;
                }
                let def = &self.ruleset().conditions[cond];
                if let (Some(m), true) = (&def.against_modifier, reaches(def.against_modifier_on)) {
                    modifier = modifier.saturating_add(self.eval(m, &as_target)?);
                }
                if !reaches(def.against_edge_on) {
                    continue;
                }
                match def.against_edge {
                    Some(ir::Edge::Advantage) => edge += 1,
                    Some(ir::Edge::Disadvantage) => edge -= 1,
                    None => {}
                }
            }
        }
        Ok((modifier, edge))
    }

    /// A check read by declared degrees: its level, and in a contest the other roll's, decide
    /// which block runs.
    fn graded_check(
        &mut self,
        total: i64,
        first: Option<(i64, u32)>,
        against: &ir::Expr,
        g: &'r ir::Graded,
        c: &Ctx,
        cause: &Cause,
    ) -> Result<bool, RunError> {
        let r = self.ruleset();
        let Some(degrees) = r.degrees.get(g.degrees.index()) else {
            return Err(RunError::rule(format!(
                "a check names degrees #{} that the ruleset does not have",
                g.degrees.0
            ))
            .at(self.rule));
        };
        let natural = first.map_or(0, |(face, _)| face);
        // The other side first: a contest's margin is the difference of the two totals.
        let (theirs, their_level) = match g.contest {
            ir::Contest::Value => (self.eval(against, c)?, None),
            ir::Contest::Roll => {
                let mut their_first = None;
                let t = self.eval_with_first(against, c, &mut their_first)?;
                let n = their_first.map_or(0, |(face, _)| face);
                let level = self.level(degrees, [t, n, t.saturating_sub(n), t.saturating_sub(total)], c)?;
                (t, Some(level))
            }
            ir::Contest::LastCheck(w) => {
                let last = self.world.last_check[c.who(w)?];
                let level = match last.level {
                    Some((d, level)) if d == g.degrees => Some(level as usize),
                    _ => None,
                };
                (last.total, level)
            }
        };
        let mine =
            self.level(degrees, [total, natural, total.saturating_sub(natural), total.saturating_sub(theirs)], c)?;
        let mine = self.shifted(mine, &g.shifts, degrees.levels.len(), c)?;
        let their_level = match their_level {
            Some(l) => Some(self.shifted(l, &g.opponent, degrees.levels.len(), c)?),
            None => None,
        };
        let succeeded = |l: usize| degrees.levels.get(l).is_some_and(|x| x.success);
        // A contest is won by the better level, then the higher total; a tie goes to the checker.
        // Without a level on the other side (an ungraded last check), totals alone decide.
        let wins = match (g.contest, their_level) {
            (ir::Contest::Value, _) => true,
            (_, Some(l)) => mine < l || (mine == l && total >= theirs),
            (_, None) => total >= theirs,
        };
        let outcome = match wins || !succeeded(mine) {
            true => mine,
            // Beaten: the best failure level.
            false => degrees.levels.iter().position(|l| !l.success).unwrap_or(mine),
        };
        let block = g.runs.get(outcome).copied().flatten().and_then(|b| g.blocks.get(b as usize));
        let effects: &[Effect] = block.map_or(&[], Vec::as_slice);
        let who = self.names.who[c.owner].clone();
        let names = &self.names.levels[g.degrees.index()];
        let outcome_name = names.get(outcome).cloned().unwrap_or_default();
        let opposed =
            their_level.filter(|_| g.contest != ir::Contest::Value).map(|l| names.get(l).cloned().unwrap_or_default());
        let seq = self.emit(Event::Check { who, roll: total, against: theirs, outcome: outcome_name, opposed });
        self.world.last_check[c.owner] =
            LastCheck { total, critical: outcome == 0, level: Some((g.degrees, mine as u32)) };
        let outer = self.caused_by(seq);
        let halted = self.run_flow(effects, c, cause);
        self.because = outer;
        halted
    }

    /// The first level whose `when` holds for a roll's facts (total, natural, modifier,
    /// margin), then the degrees' own shifts.
    fn level(&mut self, d: &ir::Degrees, facts: [i64; 4], c: &Ctx) -> Result<usize, RunError> {
        let outer = std::mem::replace(&mut self.rolled.facts, facts);
        let mut at = d.levels.len().saturating_sub(1);
        for (i, level) in d.levels.iter().enumerate() {
            let reached = match &level.when {
                None => true,
                Some(w) => self.eval(w, c)? != 0,
            };
            if reached {
                at = i;
                break;
            }
        }
        let at = self.shifted(at, &d.shifts, d.levels.len(), c);
        self.rolled.facts = outer;
        at
    }

    /// A level moved one step up (toward 0, the best) or down per shift whose `when` holds.
    fn shifted(&mut self, mut at: usize, shifts: &[ir::LevelShift], n: usize, c: &Ctx) -> Result<usize, RunError> {
        for s in shifts {
            if self.eval(&s.when, c)? != 0 {
                at = match s.up {
                    true => at.saturating_sub(1),
                    false => (at + 1).min(n.saturating_sub(1)),
                };
            }
        }
        Ok(at)
    }
}
