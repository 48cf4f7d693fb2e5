//! Expression evaluation over the run's state: the language's values at run time. Dice roll
//! from the run's one generator and are written to the trace (a dry run rolls nothing and takes
//! the highest faces); arithmetic is checked and follows the IR's definitions.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Dice, Event};
use crate::ir::{self, BinOp, Expr, Func};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

impl<S: Sink> Engine<'_, S> {
    /// The participant `w` names here, as a holder of pools: `enemy_side` is the first member
    /// of the opposing side, whose slot holds that side's pools kept `per side`.
    #[inline]
    pub(crate) fn party(&self, c: &Ctx, w: ir::Who) -> Result<usize, RunError> {
        match w {
            ir::Who::EnemySide => Ok(self.world.enemy_side_of(c.owner)),
            _ => c.who(w),
        }
    }

    /// Rolls `count` dice of `sides`, emitting a roll event; a dry run takes the highest faces.
    pub fn roll(&mut self, who: usize, count: u32, sides: u32) -> (i64, i64) {
        if self.dry {
            return (i64::from(count) * i64::from(sides), i64::from(sides));
        }
        let mut total = 0i64;
        let mut first = 0i64;
        for i in 0..count {
            let face = self.die(sides);
            if i == 0 {
                first = face;
            }
            total += face;
        }
        // The generator moved on: a `repeat while` pass that rolled is not the same pass again.
        self.changes_made += 1;
        let name = self.names.who[who].clone();
        self.emit(Event::Roll { who: name, dice: Dice { count, sides }, result: total, pool: None });
        (total, first)
    }

    #[inline]
    pub fn eval(&mut self, e: &Expr, c: &Ctx) -> Result<i64, RunError> {
        // Most amounts are plain numbers (costs, floors, gains): no call for those.
        if let Expr::Int(n) = e {
            return Ok(*n);
        }
        let mut first = None;
        self.eval_with_first(e, c, &mut first)
    }

    /// Evaluates, remembering the die that counts for criticals and fumbles: the first die
    /// rolled, except that `min` and `max` keep the die of the argument they keep.
    pub(crate) fn eval_with_first(
        &mut self,
        e: &Expr,
        c: &Ctx,
        first: &mut Option<(i64, u32)>,
    ) -> Result<i64, RunError> {
        let r = self.ruleset();
        Ok(match e {
            Expr::Int(n) => *n,
            Expr::Bool(b) => i64::from(*b),
            Expr::Dice { count, sides } => {
                let (total, face) = self.roll(c.owner, *count, *sides);
                if first.is_none() {
                    *first = Some((face, *sides));
                }
                total
            }
            Expr::DiceOf(count, sides) => self.dice_of(count, sides, c, first)?,
            Expr::Stat(w, id) => {
                let who = c.who(*w)?;
                self.world.stat(who, *id)
            }
            Expr::Derived(w, id) => {
                let who = c.who(*w)?;
                let inner = Ctx { owner: who, ..*c };
                let d = &r.derived[id.index()];
                self.eval_with_first(&d.value, &inner, first)
                    .map_err(|e| e.within(|| format!("derived value `{}`", d.name)))?
            }
            Expr::Pool(w, id) => {
                let who = self.party(c, *w)?;
                self.world.pool(who, *id)
            }
            Expr::PoolMax(w, id) => {
                let who = self.party(c, *w)?;
                self.pool_max(who, *id)?.unwrap_or(i64::MAX)
            }
            Expr::PoolMin(w, id) => {
                let who = self.party(c, *w)?;
                self.pool_min(who, *id)?
            }
            Expr::Initiative(w) => {
                let who = c.who(*w)?;
                self.world.initiative[who]
            }
            Expr::Builtin(b) => match b {
                ir::Builtin::Round => i64::from(self.clock.round),
                ir::Builtin::OwnTurn => i64::from(self.clock.active == Some(c.owner)),
                ir::Builtin::FinalTurn => i64::from(self.clock.final_turn),
                ir::Builtin::SurpriseRound => i64::from(self.clock.surprise_round),
                ir::Builtin::Units => c.units,
            },
            Expr::Distance(w) => {
                let who = c.who(*w)?;
                self.world.distance(who, c.owner)
            }
            Expr::DistanceBetween(a, b) => self.world.distance(c.who(*a)?, c.who(*b)?),
            Expr::LastCheck(w) => self.world.last_check[c.who(*w)?].total,
            Expr::LastCritical(w) => i64::from(self.world.last_check[c.who(*w)?].critical),
            Expr::Roll(fact) => self.rolled.facts[*fact as usize],
            Expr::TriggerAmount => {
                c.event.and_then(|i| i.amount).and_then(|s| self.amounts.get(s as usize)).copied().unwrap_or(0)
            }
            Expr::Amount(e) => self.last_amount.get(e.index()).copied().unwrap_or(0),
            Expr::CountNear(rel, w, reach) => self.count_near(*rel, *w, reach, c, first)?,
            Expr::CountDice(op, parts) => self.count_dice(*op, parts, c)?,
            Expr::RollCount(roll, place) => self.rolled.count(*roll, *place),
            Expr::CountWho(rel, cond) => self.count_who(*rel, cond, c)?,
            Expr::Neg(x) => self.eval_with_first(x, c, first)?.checked_neg().ok_or_else(|| self.arith(c))?,
            Expr::Not(x) => i64::from(self.eval_with_first(x, c, first)? == 0),
            Expr::Binary(op, a, b) => {
                let a = self.eval_with_first(a, c, first)?;
                match op {
                    BinOp::And if a == 0 => return Ok(0),
                    BinOp::Or if a != 0 => return Ok(1),
                    _ => {}
                }
                let b = self.eval_with_first(b, c, first)?;
                match op {
                    BinOp::Add => a.checked_add(b).ok_or_else(|| self.arith(c))?,
                    BinOp::Sub => a.checked_sub(b).ok_or_else(|| self.arith(c))?,
                    BinOp::Mul => a.checked_mul(b).ok_or_else(|| self.arith(c))?,
                    BinOp::Div => ir::floor_div(a, b).ok_or_else(|| self.arith(c))?,
                    BinOp::Rem => ir::floor_rem(a, b).ok_or_else(|| self.arith(c))?,
                    BinOp::And | BinOp::Or => i64::from(b != 0),
                }
            }
            Expr::Compare(op, a, b) => {
                let a = self.eval_with_first(a, c, first)?;
                let b = self.eval_with_first(b, c, first)?;
                i64::from(op.holds(a, b))
            }
            Expr::Has(w, id) => {
                let who = c.who(*w)?;
                i64::from(self.world.held.has(who, *id))
            }
            Expr::HasFrom(w, id, by) => {
                let (who, by) = (c.who(*w)?, c.who(*by)?);
                i64::from(self.world.held.get(who, *id).is_some_and(|h| h.source == Some(by)))
            }
            Expr::Condition(w, id) => {
                let who = c.who(*w)?;
                self.world.held.get(who, *id).map(|h| h.magnitude).unwrap_or(0)
            }
            Expr::Is(w, rel) => {
                let who = c.who(*w)?;
                i64::from(self.world.relates(c.owner, who, *rel))
            }
            Expr::Holds(w, kind) => {
                let who = c.who(*w)?;
                i64::from(self.world.holds(who, *kind))
            }
            Expr::Handlers(kind) => self.world.handlers(c.owner, *kind),
            Expr::PileHas(at, kind) => {
                i64::from(self.world.piles.count(self.party(c, at.who)?, at.pile, Some(*kind)) > 0)
            }
            Expr::PileCount(at, kind) => self.world.piles.count(self.party(c, at.who)?, at.pile, *kind),
            Expr::PileValue(at, read) => {
                let kinds = super::piles::Piles::kinds(self.ruleset(), at.pile);
                self.world.piles.read(self.party(c, at.who)?, at.pile, kinds, *read)
            }
            Expr::TriggerIs(event) => i64::from(c.event.is_some_and(|ev| ev.is_of(self.ruleset(), *event))),
            Expr::Call(f, args) => self.call(*f, args, c, first)?,
        })
    }

    /// The number and sides of dice known only now (`dice(N, S)`, a pool's `count(...)`): none
    /// when N is 0 or less; past the IR's bounds an error naming the call, `around` its text.
    pub(super) fn dice_read(
        &mut self,
        count: &Expr,
        sides: &Expr,
        c: &Ctx,
        around: (&str, &str),
    ) -> Result<Option<(u32, u32)>, RunError> {
        let (n, s) = (self.eval(count, c)?, self.eval(sides, c)?);
        if n <= 0 {
            return Ok(None);
        }
        let (max_n, max_s) = (ir::validate::MAX_DICE, ir::validate::MAX_SIDES);
        let count = u32::try_from(n).ok().filter(|n| *n <= max_n);
        let sides = u32::try_from(s).ok().filter(|s| (1..=max_s).contains(s));
        match count.zip(sides) {
            Some(both) => Ok(Some(both)),
            None => Err(RunError::rule(format!(
                "{}dice({n}, {s}){}: at most {max_n} dice of 1 to {max_s} sides",
                around.0, around.1
            ))
            .at(self.rule)),
        }
    }

    /// `dice(N, S)`: a number of dice and sides known only now, within the IR's bounds.
    fn dice_of(
        &mut self,
        count: &Expr,
        sides: &Expr,
        c: &Ctx,
        first: &mut Option<(i64, u32)>,
    ) -> Result<i64, RunError> {
        let Some((count, sides)) = self.dice_read(count, sides, c, ("", ""))? else {
            return Ok(0);
        };
        let (total, face) = self.roll(c.owner, count, sides);
        if first.is_none() {
            *first = Some((face, sides));
        }
        Ok(total)
    }

    /// `count_near`: how many standing others of a relation are within reach of someone.
    fn count_near(
        &mut self,
        rel: ir::Relation,
        w: ir::Who,
        reach: &Expr,
        c: &Ctx,
        first: &mut Option<(i64, u32)>,
    ) -> Result<i64, RunError> {
        let of = c.who(w)?;
        let mut count = 0;
        for o in 0..self.world.n {
            if o == of || !self.world.standing(o) || !self.world.relates(c.owner, o, rel) {
                continue;
            }
            let range = self.eval_with_first(reach, &Ctx { owner: o, ..*c }, first)?;
            if self.world.distance(o, of) <= range {
                count += 1;
            }
        }
        Ok(count)
    }

    /// `min`, `max` or `abs` of the arguments, with the die of the argument kept.
    fn call(&mut self, f: Func, args: &[Expr], c: &Ctx, first: &mut Option<(i64, u32)>) -> Result<i64, RunError> {
        // `min` and `max` keep one argument: its die is the one that counts for a
        // critical (`min(1d20, 1d20)` is disadvantage: a 20 thrown away is no
        // critical). Ties keep the first argument.
        let mut kept: Option<(i64, Option<(i64, u32)>)> = None;
        for a in args {
            let mut own = None;
            let v = self.eval_with_first(a, c, &mut own)?;
            let better = match (f, &kept) {
                (_, None) => true,
                (Func::Min, Some((k, _))) => v < *k,
                (Func::Max, Some((k, _))) => v > *k,
                (Func::Abs, Some(_)) => false,
            };
            if better {
                kept = Some((v, own));
            }
        }
        let (v, die) = kept.unwrap_or((0, None));
        if first.is_none() {
            *first = die;
        }
        Ok(match f {
            Func::Min | Func::Max => v,
            Func::Abs => v.checked_abs().ok_or_else(|| self.arith(c))?,
        })
    }

    /// A value that overflowed or was divided by zero, for whom and when.
    fn arith(&self, c: &Ctx) -> RunError {
        RunError::rule(format!(
            "a value overflowed or was divided by zero, for {} in round {}",
            self.names.who.get(c.owner).map_or("nobody", |n| &**n),
            self.clock.round
        ))
        .at(self.rule)
    }

    /// The pool's max for `who`: the one found at setup when it cannot change, else evaluated.
    /// In line (it is read on every pool change), the evaluation out of line.
    #[inline]
    pub fn pool_max(&mut self, who: usize, p: ir::PoolId) -> Result<Option<i64>, RunError> {
        let at = who * self.ruleset().pools.len() + p.index();
        if let Some(Some(max)) = self.fixed_max.get(at) {
            return Ok(Some(*max));
        }
        self.pool_max_evaluated(who, p)
    }

    #[inline(never)]
    fn pool_max_evaluated(&mut self, who: usize, p: ir::PoolId) -> Result<Option<i64>, RunError> {
        let pool = &self.ruleset().pools[p.index()];
        match &pool.max {
            Some(e) => Ok(Some(
                self.eval(e, &Ctx { owner: who, ..Ctx::default() })
                    .map_err(|e| e.within(|| format!("the max of pool `{}`", pool.name)))?,
            )),
            None => Ok(None),
        }
    }

    /// `pool_max`'s counterpart.
    #[inline]
    pub(crate) fn pool_min(&mut self, who: usize, p: ir::PoolId) -> Result<i64, RunError> {
        let at = who * self.ruleset().pools.len() + p.index();
        if let Some(Some(min)) = self.fixed_min.get(at) {
            return Ok(*min);
        }
        self.pool_min_evaluated(who, p)
    }

    #[inline(never)]
    fn pool_min_evaluated(&mut self, who: usize, p: ir::PoolId) -> Result<i64, RunError> {
        let pool = &self.ruleset().pools[p.index()];
        self.eval(&pool.min, &Ctx { owner: who, ..Ctx::default() })
            .map_err(|e| e.within(|| format!("the min of pool `{}`", pool.name)))
    }
}

/// A uniform integer from 1 to `sides`, without modulo bias.
pub(super) fn uniform(rng: &mut ChaCha8Rng, sides: u32) -> i64 {
    let sides = u64::from(sides.max(1));
    let zone = u64::MAX - (u64::MAX % sides);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return (x % sides) as i64 + 1;
        }
    }
}
