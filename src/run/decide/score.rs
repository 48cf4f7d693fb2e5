//! Scores: how good an outcome looks to one participant, read from the state without changing
//! it (docs/scenario.md, "How outcomes are scored"). Policies answer choices with them, and
//! `Greedy` weighs its candidate actions with them.
//!
//! The score is static: effects are looked at, not run. A pool change counts by how much closer
//! (or farther) it brings its holder to a harmful threshold of the pool, a resource by its share
//! of the pool's maximum, a condition by what it blocks; checks and conditions with dice are
//! weighed by their exact chances. Everything is read in a dry run (no dice, no trace); nothing
//! here writes to the world, the ledger or the generator.

use super::super::ctx::Ctx;
use super::super::engine::Engine;
use super::super::sink::Sink;
use crate::ir::{self, BinOp, CmpOp, Effect, Expr};

/// What entering a harmful threshold is worth; one step before it is 1, two steps 1/2, ...
const INSIDE: f64 = 2.0;
/// A resource (a pool with a maximum and no harmful threshold): its whole maximum is worth this.
const RESOURCE_WEIGHT: f64 = 0.25;
/// A condition that blocks both actions and reactions (it takes its holder out).
const OUT: f64 = 1.0;
/// A condition that hinders (blocks something, disadvantage, marked negative), or helps
/// (advantage, marked positive), by this much.
const HINDER: f64 = 0.25;
/// Distributions larger than this fall back to averages.
const MAX_OUTCOMES: usize = 4096;
/// How deep nested effects and derived values are followed.
const MAX_DEPTH: u32 = 16;

/// The outcomes of a roll: `p[i]` is the chance of `lo + i`.
struct Dist {
    lo: i64,
    p: Vec<f64>,
}

impl Dist {
    fn point(v: i64) -> Dist {
        Dist { lo: v, p: vec![1.0] }
    }

    fn mean(&self) -> f64 {
        self.p.iter().enumerate().map(|(i, p)| (self.lo as f64 + i as f64) * p).sum()
    }

    fn neg(&self) -> Dist {
        let hi = self.lo.saturating_add(self.p.len() as i64 - 1);
        Dist { lo: hi.saturating_neg(), p: self.p.iter().rev().copied().collect() }
    }

    /// The distribution of the sum of two independent rolls.
    fn plus(&self, o: &Dist) -> Option<Dist> {
        let n = self.p.len() + o.p.len() - 1;
        if n > MAX_OUTCOMES || self.p.len().saturating_mul(o.p.len()) > 1 << 20 {
            return None;
        }
        let mut p = vec![0.0; n];
        for (i, a) in self.p.iter().enumerate() {
            for (j, b) in o.p.iter().enumerate() {
                p[i + j] += a * b;
            }
        }
        Some(Dist { lo: self.lo.checked_add(o.lo)?, p })
    }

    fn times(&self, k: i64) -> Option<Dist> {
        if k == 0 {
            return Some(Dist::point(0));
        }
        if k < 0 {
            return self.neg().times(k.checked_neg()?);
        }
        let n = (self.p.len() - 1).checked_mul(usize::try_from(k).ok()?)? + 1;
        if n > MAX_OUTCOMES {
            return None;
        }
        let mut p = vec![0.0; n];
        for (i, x) in self.p.iter().enumerate() {
            p[i * k as usize] = *x;
        }
        Some(Dist { lo: self.lo.checked_mul(k)?, p })
    }

    /// The chance that a value of this roll stands in `op` to 0.
    fn chance(&self, op: CmpOp) -> f64 {
        self.p.iter().enumerate().filter(|(i, _)| op.holds(self.lo.saturating_add(*i as i64), 0)).map(|(_, p)| p).sum()
    }
}

/// Whether evaluating `e` rolls dice (following derived values).
pub(super) fn has_dice(r: &ir::Ruleset, e: &Expr, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let d = |x: &Expr| has_dice(r, x, depth + 1);
    match e {
        // A named roll's count is as random as its dice, whose throw is not in the expression.
        Expr::Dice { .. } | Expr::DiceOf(..) | Expr::CountDice(..) | Expr::RollCount(..) => true,
        Expr::Derived(_, id) => r.derived.get(id.index()).is_none_or(|x| d(&x.value)),
        _ => e.children().any(d),
    }
}

/// How harmful holding a condition is: 1 for one that takes its holder out (blocks actions and
/// reactions), 1/4 for one that hinders, -1/4 for one that helps, else 0.
fn condition_weight(r: &ir::Ruleset, c: ir::ConditionId) -> f64 {
    let Some(def) = r.conditions.get(c.index()) else { return 0.0 };
    let blocks = |k| def.blocks.kinds.contains(&k);
    if blocks(ir::ActionKind::Action) && blocks(ir::ActionKind::Reaction) {
        OUT
    } else if !def.blocks.kinds.is_empty()
        || def.blocks.movement
        || !def.blocks.spend.is_empty()
        || def.check_edge == Some(ir::Edge::Disadvantage)
        || def.against_edge == Some(ir::Edge::Advantage)
        || def.positive == Some(false)
    {
        HINDER
    } else if def.check_edge == Some(ir::Edge::Advantage)
        || def.against_edge == Some(ir::Edge::Disadvantage)
        || def.positive == Some(true)
    {
        -HINDER
    } else {
        0.0
    }
}

/// Whether effects (in any branch) give a condition that blocks something: a threshold with
/// such effects is harmful, and its pool is scored by the distance to it.
fn harmful(r: &ir::Ruleset, effects: &[Effect], depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let deeper = |x: &[Effect]| harmful(r, x, depth + 1);
    effects.iter().any(|e| match e {
        Effect::Apply { condition, .. } => r.conditions.get(condition.index()).is_some_and(|c| {
            let blocks = |c: &ir::Condition| !c.blocks.kinds.is_empty() || c.blocks.movement;
            blocks(c) || c.implies.iter().any(|i| r.conditions.get(i.index()).is_some_and(blocks))
        }),
        Effect::If { then, otherwise, .. } => deeper(then) || deeper(otherwise),
        Effect::Repeat { body, .. } | Effect::Each { body, .. } => deeper(body),
        Effect::Check { outcomes, .. } => outcomes.blocks().any(deeper),
        Effect::Choose { options, .. } => options.iter().any(|o| deeper(&o.effects)),
        _ => false,
    })
}

impl<S: Sink> Engine<'_, S> {
    /// The exact value of an expression without dice; `None` if it cannot be evaluated here.
    fn exact(&mut self, e: &Expr, c: &Ctx) -> Option<i64> {
        let was = self.dry;
        self.dry = true;
        let v = self.eval(e, c).ok();
        self.dry = was;
        v
    }

    /// Who a `for each` loop of `c`'s would pass over, as the runner settles it, each with how
    /// sure: 1 when its `within` and `where` are known to hold, halved for each that has dice.
    pub(in crate::run) fn looped_over(&mut self, e: &Effect, c: &Ctx) -> Vec<(usize, f64)> {
        let Effect::Each { relation, within, filter, .. } = e else { return Vec::new() };
        let mut out = Vec::new();
        for o in 0..self.world.n {
            if !self.world.present[o] || !self.world.relates(c.owner, o, *relation) {
                continue;
            }
            let mut sure = 1.0;
            if let Some(w) = within {
                match has_dice(self.ruleset(), w, 0) {
                    true => sure *= 0.5,
                    false => match self.exact(w, &Ctx { target: Some(o), ..*c }) {
                        Some(reach) if self.world.distance(o, c.owner) > reach => continue,
                        _ => {}
                    },
                }
            }
            // `where` as `count` reads it: the participant is `self`.
            if let Some(f) = filter {
                match has_dice(self.ruleset(), f, 0) {
                    true => sure *= 0.5,
                    false => {
                        if self.exact(f, &Ctx { owner: o, ..*c }) == Some(0) {
                            continue;
                        }
                    }
                }
            }
            out.push((o, sure));
        }
        out
    }

    /// The outcomes of an expression made of dice, sums, differences and constant multiples;
    /// `None` for anything else.
    fn dist(&mut self, e: &Expr, c: &Ctx, depth: u32) -> Option<Dist> {
        let r = self.ruleset();
        if depth > MAX_DEPTH {
            return None;
        }
        if !has_dice(r, e, 0) {
            return self.exact(e, c).map(Dist::point);
        }
        match e {
            Expr::Dice { count, sides } => {
                // Both bound the distribution before anything is allocated: a `1d4000000000`
                // must fall back to averages, not ask for gigabytes.
                if *count as usize > MAX_OUTCOMES || *sides as usize > MAX_OUTCOMES {
                    return None;
                }
                let face = Dist { lo: 1, p: vec![1.0 / f64::from((*sides).max(1)); (*sides).max(1) as usize] };
                let mut total = Dist::point(0);
                for _ in 0..*count {
                    total = total.plus(&face)?;
                }
                Some(total)
            }
            Expr::DiceOf(count, sides) => {
                let (n, s) = (self.exact(count, c)?, self.exact(sides, c)?);
                if n <= 0 {
                    return Some(Dist::point(0));
                }
                let (n, s) = (u32::try_from(n).ok()?, u32::try_from(s).ok()?);
                self.dist(&Expr::Dice { count: n, sides: s }, c, depth + 1)
            }
            Expr::CountDice(op, parts) => self.pool_dist(*op, parts, c),
            Expr::Derived(w, id) => {
                let inner = Ctx { owner: c.who(*w).ok()?, ..*c };
                self.dist(&r.derived.get(id.index())?.value, &inner, depth + 1)
            }
            Expr::Neg(x) => Some(self.dist(x, c, depth + 1)?.neg()),
            Expr::Binary(BinOp::Add, a, b) => self.dist(a, c, depth + 1)?.plus(&self.dist(b, c, depth + 1)?),
            Expr::Binary(BinOp::Sub, a, b) => self.dist(a, c, depth + 1)?.plus(&self.dist(b, c, depth + 1)?.neg()),
            Expr::Binary(BinOp::Mul, a, b) if !has_dice(r, b, 0) => {
                self.dist(a, c, depth + 1)?.times(self.exact(b, c)?)
            }
            Expr::Binary(BinOp::Mul, a, b) if !has_dice(r, a, 0) => {
                self.dist(b, c, depth + 1)?.times(self.exact(a, c)?)
            }
            _ => None,
        }
    }

    /// How many dice of a pool meet its test: binomial, each die meeting it with the share of
    /// faces that do. Values with dice of their own (the count, the sides, the test's value)
    /// fall back to averages.
    fn pool_dist(&mut self, op: ir::CmpOp, parts: &[Expr; 3], c: &Ctx) -> Option<Dist> {
        let r = self.ruleset();
        let [count, sides, against] = parts;
        if parts.iter().any(|x| has_dice(r, x, 0)) {
            return None;
        }
        let (n, s, x) = (self.exact(count, c)?, self.exact(sides, c)?, self.exact(against, c)?);
        if n <= 0 {
            return Some(Dist::point(0));
        }
        if n as usize > MAX_OUTCOMES || s <= 0 || s as usize > MAX_OUTCOMES {
            return None;
        }
        let p = (1..=s).filter(|f| op.holds(*f, x)).count() as f64 / s as f64;
        let one = Dist { lo: 0, p: vec![1.0 - p, p] };
        let mut total = Dist::point(0);
        for _ in 0..n {
            total = total.plus(&one)?;
        }
        Some(total)
    }

    /// The expected value of an expression (a comparison's is its chance of holding); `None`
    /// if it cannot be evaluated here. Products, quotients, `min` and `max` of rolls use the
    /// rolls' averages.
    pub(super) fn expected_value(&mut self, e: &Expr, c: &Ctx, depth: u32) -> Option<f64> {
        let r = self.ruleset();
        if depth > MAX_DEPTH {
            return None;
        }
        if !has_dice(r, e, 0) {
            return self.exact(e, c).map(|v| v as f64);
        }
        if let Some(d) = self.dist(e, c, depth + 1) {
            return Some(d.mean());
        }
        let deeper = depth + 1;
        match e {
            Expr::Derived(w, id) => {
                let inner = Ctx { owner: c.who(*w).ok()?, ..*c };
                self.expected_value(&r.derived.get(id.index())?.value, &inner, deeper)
            }
            Expr::Neg(x) => Some(-self.expected_value(x, c, deeper)?),
            Expr::Not(x) => Some(1.0 - self.truth(x, c, deeper)?),
            Expr::Compare(op, a, b) => self.chance(*op, a, b, c, deeper),
            Expr::Binary(op, a, b) => match op {
                BinOp::And => Some(self.truth(a, c, deeper)? * self.truth(b, c, deeper)?),
                BinOp::Or => {
                    let (x, y) = (self.truth(a, c, deeper)?, self.truth(b, c, deeper)?);
                    Some(1.0 - (1.0 - x) * (1.0 - y))
                }
                _ => {
                    let (x, y) = (self.expected_value(a, c, deeper)?, self.expected_value(b, c, deeper)?);
                    match op {
                        BinOp::Add => Some(x + y),
                        BinOp::Sub => Some(x - y),
                        BinOp::Mul => Some(x * y),
                        BinOp::Div if y != 0.0 => Some(x / y),
                        _ => None,
                    }
                }
            },
            Expr::Call(f, args) => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.expected_value(a, c, deeper)?);
                }
                let first = values.first().copied()?;
                Some(match f {
                    ir::Func::Min => values.into_iter().fold(first, f64::min),
                    ir::Func::Max => values.into_iter().fold(first, f64::max),
                    ir::Func::Abs => first.abs(),
                })
            }
            _ => None,
        }
    }

    /// The chance that a condition holds.
    fn truth(&mut self, e: &Expr, c: &Ctx, depth: u32) -> Option<f64> {
        match e {
            Expr::Compare(..) | Expr::Not(_) | Expr::Bool(_) | Expr::Binary(BinOp::And | BinOp::Or, ..) => {
                self.expected_value(e, c, depth).map(|p| p.clamp(0.0, 1.0))
            }
            _ => match self.dist(e, c, depth) {
                Some(d) => Some(d.chance(CmpOp::Ne)),
                None => self.expected_value(e, c, depth).map(|v| if v != 0.0 { 1.0 } else { 0.0 }),
            },
        }
    }

    /// The chance that `a op b`: exact for rolls `dist` knows, else by comparing averages.
    fn chance(&mut self, op: CmpOp, a: &Expr, b: &Expr, c: &Ctx, depth: u32) -> Option<f64> {
        if let (Some(x), Some(y)) = (self.dist(a, c, depth), self.dist(b, c, depth)) {
            if let Some(d) = x.plus(&y.neg()) {
                return Some(d.chance(op));
            }
        }
        let (x, y) = (self.expected_value(a, c, depth)?, self.expected_value(b, c, depth)?);
        let holds = match op {
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
        };
        Some(if holds { 1.0 } else { 0.0 })
    }

    /// What a value of a pool is worth to its holder: minus the danger of each harmful
    /// threshold (2 inside it, 1/n when n steps away), or for a resource (a maximum, no
    /// harmful threshold) its share of the maximum times 1/4; other pools are worth nothing.
    fn worth(&mut self, who: usize, p: ir::PoolId, v: f64) -> f64 {
        let r = self.ruleset();
        let Some(pool) = r.pools.get(p.index()) else { return 0.0 };
        let mut danger = 0.0;
        let mut guarded = false;
        for t in &pool.thresholds {
            if !harmful(r, &t.effects, 0) {
                continue;
            }
            let Some(at) = self.exact(&t.value, &Ctx::of(who)) else { continue };
            let at = at as f64;
            let steps = match t.op {
                CmpOp::Lt => v - at + 1.0,
                CmpOp::Le => v - at,
                CmpOp::Gt => at - v + 1.0,
                CmpOp::Ge => at - v,
                CmpOp::Eq | CmpOp::Ne => continue,
            };
            guarded = true;
            danger += if steps <= 0.0 { INSIDE } else { (1.0 / steps).min(1.0) };
        }
        if guarded {
            return -danger;
        }
        // Read for its consequences, a pool that lasts a round at most is worth what it buys
        // (decide/ahead.rs), not its share.
        if self.scratch.consequences && self.tables.per_round.get(p.index()).copied().unwrap_or(false) {
            return 0.0;
        }
        // A meter (heat) is worth less the fuller it is.
        let sign = if pool.rising { -1.0 } else { 1.0 };
        match self.pool_max(who, p) {
            Ok(Some(max)) if max > 0 => sign * RESOURCE_WEIGHT * v / max as f64,
            _ => 0.0,
        }
    }

    /// Whether a candidate that scores `s` and pays `paid` may still be taken when nothing
    /// scores above 0 (Greedy's fall-back): not when it scores below 0, nor when it gains
    /// nothing and pays from a pool its whole side keeps (`per side`), which allies could use.
    pub(in crate::run) fn worth_trying(&self, s: f64, paid: &super::super::costs::Costs) -> bool {
        s > 0.0 || (s >= 0.0 && !paid.into_iter().any(|(p, n)| n > 0 && self.world.per_side(p)))
    }

    /// +1 for `me` and its allies, -1 for anyone else: harm to an enemy is good for `me`.
    pub(super) fn side_sign(&self, me: usize, other: usize) -> f64 {
        if me == other || self.world.relates(me, other, ir::Relation::Ally) {
            1.0
        } else {
            -1.0
        }
    }

    /// How good effects run for `c` look to `me`, summed over the effects (each read against the
    /// state as it is now). Effects the scorer cannot read count 0.
    pub(in crate::run) fn score(&mut self, effects: &[Effect], c: &Ctx, me: usize, depth: u32) -> f64 {
        if depth > MAX_DEPTH {
            return 0.0;
        }
        let mark = self.scratch.emitted.len();
        let mut total = 0.0;
        for e in effects {
            if let Effect::EmitWith(event, amount) = e {
                self.stand_in_amount(*event, amount, c, depth);
            }
            total += self.score_one(e, c, me, depth);
        }
        // The amounts the effects' emits stood in for are put back, last first.
        while self.scratch.emitted.len() > mark {
            if let Some((event, was)) = self.scratch.emitted.pop() {
                if let Some(slot) = self.last_amount.get_mut(event.index()) {
                    *slot = was;
                }
            }
        }
        total
    }

    /// `emit EVENT(AMOUNT)` scored: the `amount(EVENT)` read after it is AMOUNT (its average,
    /// with dice), as it is when no answer changes it; the value it stood in for is kept in
    /// `scratch.emitted` to be put back.
    fn stand_in_amount(&mut self, event: ir::EventId, amount: &Expr, c: &Ctx, depth: u32) {
        let Some(v) = self.expected_value(amount, c, depth + 1) else { return };
        let Some(slot) = self.last_amount.get_mut(event.index()) else { return };
        let was = std::mem::replace(slot, v.round() as i64);
        self.scratch.emitted.push((event, was));
    }

    /// What giving a condition weighs, for its holder: `condition_weight`; read for its
    /// consequences, only a condition that takes its holder out (the rest is what it allows
    /// and forbids, decide/ahead.rs).
    fn held_weight(&self, condition: ir::ConditionId) -> f64 {
        let w = condition_weight(self.ruleset(), condition);
        if self.scratch.consequences && w < OUT {
            0.0
        } else {
            w
        }
    }

    /// The chance that a check of `roll` against `against` run for `c` succeeds, with what the
    /// conditions held add to it (`check_modifiers`): exact for rolls `dist` knows, else by
    /// comparing averages; an edge rolls twice (1 - (1-p)^2 with advantage, p^2 with
    /// disadvantage). 1/2 when it cannot be read.
    fn hit_chance(&mut self, roll: &Expr, against: &Expr, c: &Ctx, depth: u32) -> f64 {
        let was = self.dry;
        self.dry = true;
        let (modifier, edge) = self.check_modifiers(c).unwrap_or((0, 0));
        self.dry = was;
        let p = match (self.dist(roll, c, depth), self.dist(against, c, depth)) {
            (Some(x), Some(y)) if modifier == 0 => x.plus(&y.neg()).map(|d| d.chance(CmpOp::Ge)),
            (Some(x), Some(y)) => {
                x.plus(&Dist::point(modifier)).and_then(|x| x.plus(&y.neg())).map(|d| d.chance(CmpOp::Ge))
            }
            _ => None,
        };
        let p = match p {
            Some(p) => p,
            None => match (self.expected_value(roll, c, depth), self.expected_value(against, c, depth)) {
                (Some(x), Some(y)) if x + modifier as f64 >= y => 1.0,
                (Some(_), Some(_)) => 0.0,
                _ => 0.5,
            },
        };
        match edge.signum() {
            1 => 1.0 - (1.0 - p) * (1.0 - p),
            -1 => p * p,
            _ => p,
        }
    }

    fn score_one(&mut self, e: &Effect, c: &Ctx, me: usize, depth: u32) -> f64 {
        let r = self.ruleset();
        let deeper = depth + 1;
        match e {
            Effect::Pool { who, pool, op, value } => {
                let (Ok(p), Some(v)) = (self.party(c, *who), self.expected_value(value, c, deeper)) else { return 0.0 };
                let now = self.world.pool(p, *pool) as f64;
                let next = match op {
                    ir::AssignOp::Set => v,
                    ir::AssignOp::Add => now + v,
                    ir::AssignOp::Sub => now - v,
                };
                // The bounds `set_pool` holds a pool to.
                let min = self.pool_min(p, *pool).map_or(f64::MIN, |m| m as f64);
                let max = self.pool_max(p, *pool).ok().flatten().map_or(f64::MAX, |m| m as f64);
                let next = next.max(min.min(now)).min(max.max(min));
                if next == now {
                    return 0.0;
                }
                self.side_sign(me, p) * (self.worth(p, *pool, next) - self.worth(p, *pool, now))
            }
            Effect::Apply { who, condition, .. } => match c.who(*who) {
                Ok(p) if !self.world.held.has(p, *condition) => -self.side_sign(me, p) * self.held_weight(*condition),
                _ => 0.0,
            },
            Effect::Remove { who, condition } => match c.who(*who) {
                Ok(p) if self.world.held.has(p, *condition) => self.side_sign(me, p) * self.held_weight(*condition),
                _ => 0.0,
            },
            Effect::Check { roll, against, outcomes } => {
                let hit = self.hit_chance(roll, against, c, deeper);
                // Graded: scored as its plainest success (the last success level) against its
                // plainest failure (the first failure level).
                let (success, failure) = match &outcomes.graded {
                    None => (&outcomes.success[..], &outcomes.failure[..]),
                    Some(g) => {
                        let levels = r.degrees.get(g.degrees.index()).map_or(&[][..], |d| &d.levels[..]);
                        let block = |l: Option<usize>| {
                            l.and_then(|l| g.runs.get(l).copied().flatten())
                                .and_then(|b| g.blocks.get(b as usize))
                                .map_or(&[][..], Vec::as_slice)
                        };
                        (block(levels.iter().rposition(|l| l.success)), block(levels.iter().position(|l| !l.success)))
                    }
                };
                let success = self.score(success, c, me, deeper);
                let failure = self.score(failure, c, me, deeper);
                hit * success + (1.0 - hit) * failure
            }
            Effect::If { cond, then, otherwise } => {
                let p = self.truth(cond, c, deeper).unwrap_or(0.5);
                let (a, b) = (self.score(then, c, me, deeper), self.score(otherwise, c, me, deeper));
                p * a + (1.0 - p) * b
            }
            // Scored as one pass, as likely as its condition: a lower bound of what it does.
            Effect::Repeat { cond, body } => {
                let p = self.truth(cond, c, deeper).unwrap_or(0.5);
                p * self.score(body, c, me, deeper)
            }
            // A pass for each participant it would reach, each with its own `target`.
            Effect::Each { body, .. } => {
                let mut sum = 0.0;
                for (o, sure) in self.looped_over(e, c) {
                    sum += sure * self.score(body, &Ctx { target: Some(o), ..*c }, me, deeper);
                }
                sum
            }
            Effect::Choose { chooser, options, .. } => {
                let by = match chooser {
                    ir::Chooser::Owner => Some(c.owner),
                    ir::Chooser::Target => c.target,
                    ir::Chooser::Gm => None,
                };
                let mut scores = Vec::with_capacity(options.len());
                for o in options {
                    scores.push(self.score(&o.effects, c, me, deeper));
                }
                let first = scores.first().copied().unwrap_or(0.0);
                match by {
                    // The GM's policy answers with the first option (Random aside).
                    None => first,
                    // A chooser on `me`'s side takes the best for `me`, anyone else the worst.
                    Some(b) if self.side_sign(me, b) > 0.0 => scores.into_iter().fold(first, f64::max),
                    Some(_) => scores.into_iter().fold(first, f64::min),
                }
            }
            _ => 0.0,
        }
    }

    /// Whether running `effects` for `c` could change anything, read from the state as it is:
    /// `false` only when every effect is known to leave things as they are (a pool held at its
    /// bound, a condition already held or already gone, an `if` whose branch does nothing).
    /// Anything the reader cannot tell (dice in an amount, movement, events) counts as a change.
    pub(in crate::run) fn would_change(&mut self, effects: &[Effect], c: &Ctx, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        let deeper = depth + 1;
        effects.iter().any(|e| match e {
            Effect::Pool { who, pool, op, value } => {
                let Ok(p) = c.who(*who) else { return true };
                if has_dice(self.ruleset(), value, 0) {
                    return true;
                }
                let Some(v) = self.exact(value, c) else { return true };
                let now = self.world.pool(p, *pool);
                let next = match op {
                    ir::AssignOp::Set => Some(v),
                    ir::AssignOp::Add => now.checked_add(v),
                    ir::AssignOp::Sub => now.checked_sub(v),
                };
                let Some(next) = next else { return true };
                // The bounds `set_pool` holds a pool to.
                let (Ok(min), Ok(max)) = (self.pool_min(p, *pool), self.pool_max(p, *pool)) else { return true };
                let next = next.max(min.min(now));
                let next = max.map_or(next, |m| next.min(m.max(min)));
                next != now
            }
            Effect::Apply { who, condition, magnitude, duration } => match c.who(*who) {
                Ok(p) => match self.world.held.get(p, *condition).map(|h| h.magnitude) {
                    // Held already: applying it again changes something only if it brings a
                    // duration or another magnitude.
                    Some(held) => {
                        let m = match magnitude {
                            Some(x) if has_dice(self.ruleset(), x, 0) => return true,
                            Some(x) => self.exact(x, c),
                            None => Some(1),
                        };
                        duration.is_some()
                            || self.ruleset().conditions.get(condition.index()).is_none_or(|d| d.lasts.is_some())
                            || m != Some(held)
                    }
                    None => true,
                },
                Err(_) => true,
            },
            Effect::Remove { who, condition } => c.who(*who).map_or(true, |p| self.world.held.has(p, *condition)),
            Effect::Repeat { cond, body } => match has_dice(self.ruleset(), cond, 0) {
                true => self.would_change(body, c, deeper),
                false => match self.exact(cond, c) {
                    Some(0) => false,
                    Some(_) => self.would_change(body, c, deeper),
                    None => true,
                },
            },
            Effect::If { cond, then, otherwise } => match has_dice(self.ruleset(), cond, 0) {
                true => self.would_change(then, c, deeper) || self.would_change(otherwise, c, deeper),
                false => match self.exact(cond, c) {
                    Some(0) => self.would_change(otherwise, c, deeper),
                    Some(_) => self.would_change(then, c, deeper),
                    None => true,
                },
            },
            Effect::Check { outcomes, .. } => outcomes.blocks().any(|x| self.would_change(x, c, deeper)),
            Effect::Choose { options, .. } => options.iter().any(|o| self.would_change(&o.effects, c, deeper)),
            Effect::Each { body, .. } => self
                .looped_over(e, c)
                .into_iter()
                .any(|(o, _)| self.would_change(body, &Ctx { target: Some(o), ..*c }, deeper)),
            // A move that would end where it starts: next to its goal already, against an edge,
            // or blocked.
            Effect::Move(amount) | Effect::MoveAway(amount) => {
                if has_dice(self.ruleset(), amount, 0) {
                    return true;
                }
                let Some(n) = self.exact(amount, c) else { return true };
                if self.world.held.movement_blocked(c.owner).is_some() {
                    return false;
                }
                let way = if matches!(e, Effect::Move(_)) { ir::Way::Toward } else { ir::Way::Away };
                match self.destination(way, c.owner, c.target, n.max(0), 0) {
                    Ok(to) => to.is_some_and(|to| self.bounded(to) != self.world.positions[c.owner]),
                    Err(_) => true,
                }
            }
            Effect::Pile(p) => self.pile_would_change(p, c),
            _ => true,
        })
    }

    /// Whether a draw or a move of items could move any: not when the pile it takes from holds
    /// none of what it takes, or it takes none. Into the pile it comes from still counts (its
    /// `items` event is written).
    fn pile_would_change(&mut self, e: &ir::PileEffect, c: &Ctx) -> bool {
        let (from, n) = match e {
            ir::PileEffect::Draw { count, from, .. } => (from, Some(count)),
            ir::PileEffect::Move { pick: ir::Pick::Random(n), from, .. } => (from, Some(n)),
            ir::PileEffect::Move { from, .. } => (from, None),
        };
        let Ok(a) = self.party(c, from.who) else { return true };
        // `move highest|lowest` takes one while the pile holds any, as `all` does.
        let kind = match e {
            ir::PileEffect::Move { pick: ir::Pick::Kind(k), .. } => Some(*k),
            _ => None,
        };
        if self.world.piles.count(a, from.pile, kind) <= 0 {
            return false;
        }
        match n {
            Some(n) if !has_dice(self.ruleset(), n, 0) => self.exact(n, c).is_none_or(|n| n > 0),
            _ => true,
        }
    }

    /// Whether `v` of pool `p` would be inside one of its harmful thresholds for `who`.
    pub(super) fn inside_harmful(&mut self, who: usize, p: ir::PoolId, v: i64) -> bool {
        let r = self.ruleset();
        let Some(pool) = r.pools.get(p.index()) else { return false };
        pool.thresholds.iter().any(|t| {
            harmful(r, &t.effects, 0) && self.exact(&t.value, &Ctx::of(who)).is_some_and(|at| t.op.holds(v, at))
        })
    }

    /// Whether effects run for `c` could take `victim` down from where it stands now: a change
    /// of one of its pools that, at either end of its roll, lands inside a harmful threshold it
    /// is not inside yet, or a condition that takes its holder out. Every branch of a check, an
    /// `if` or a `choose` counts as possible.
    pub(in crate::run) fn could_down(&mut self, effects: &[Effect], c: &Ctx, victim: usize, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let r = self.ruleset();
        let deeper = depth + 1;
        effects.iter().any(|e| match e {
            Effect::Pool { who, pool, op, value } => {
                if c.who(*who).ok() != Some(victim) {
                    return false;
                }
                let now = self.world.pool(victim, *pool);
                if self.inside_harmful(victim, *pool, now) {
                    return false;
                }
                // A value without dice is read as it is: no distribution is built (and none
                // allocated) for the plain damage most reactions are weighed against.
                let ends = if !has_dice(r, value, 0) {
                    match self.exact(value, c) {
                        Some(v) => (v, v),
                        None => return false,
                    }
                } else {
                    match self.dist(value, c, deeper) {
                        Some(d) => (d.lo, d.lo.saturating_add(d.p.len() as i64 - 1)),
                        None => match self.expected_value(value, c, deeper) {
                            Some(v) => (v.floor() as i64, v.ceil() as i64),
                            None => return false,
                        },
                    }
                };
                [ends.0, ends.1].into_iter().any(|v| {
                    let next = match op {
                        ir::AssignOp::Set => v,
                        ir::AssignOp::Add => now.saturating_add(v),
                        ir::AssignOp::Sub => now.saturating_sub(v),
                    };
                    self.inside_harmful(victim, *pool, next)
                })
            }
            Effect::Apply { who, condition, .. } => {
                c.who(*who).ok() == Some(victim)
                    && !self.world.held.has(victim, *condition)
                    && condition_weight(r, *condition) >= OUT
            }
            Effect::If { then, otherwise, .. } => {
                self.could_down(then, c, victim, deeper) || self.could_down(otherwise, c, victim, deeper)
            }
            Effect::Repeat { body, .. } => self.could_down(body, c, victim, deeper),
            Effect::Each { body, .. } => self
                .looped_over(e, c)
                .into_iter()
                .any(|(o, _)| self.could_down(body, &Ctx { target: Some(o), ..*c }, victim, deeper)),
            Effect::Check { outcomes, .. } => outcomes.blocks().any(|b| self.could_down(b, c, victim, deeper)),
            Effect::Choose { options, .. } => options.iter().any(|o| self.could_down(&o.effects, c, victim, deeper)),
            _ => false,
        })
    }

    /// How good declaring `a` looks to `who` now: its effects scored for its target, plus the
    /// price of each pool its cost overspends (costs themselves are not counted).
    pub(in crate::run) fn score_action(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
        paid: &super::super::costs::Costs,
    ) -> f64 {
        let r = self.ruleset();
        let Some(action) = r.actions.get(a.index()) else { return 0.0 };
        let c = Ctx { owner: who, target, units: units.unwrap_or(0), acting: Some(a), ..Ctx::default() };
        let mut s = self.score(&action.effects, &c, who, 0);
        for (p, amount) in paid {
            let Some(o) = r.pools.get(p.index()).and_then(|x| x.overspend.as_ref()) else { continue };
            if amount > 0 && self.past_bounds(who, p, amount).is_ok_and(|x| x > 0) {
                s += self.score(&o.price, &Ctx::of(who), who, 1);
            }
        }
        s
    }
}
