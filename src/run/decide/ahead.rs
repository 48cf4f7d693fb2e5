//! Choices answered one step ahead (docs/scenario.md, "How outcomes are scored"): a policy weighs
//! each option of a `choose` by what taking it leads to. The option's pool changes and
//! conditions are supposed on the world as it is (written in place, then put back exactly),
//! and the position is read for the chooser: what each one the option touches, and the chooser,
//! can still do with the pools left and the conditions held, against what they could do before.
//!
//! Nothing is cloned and nothing allocated: what was supposed is undone from a fixed list on
//! the stack. Nothing is written to the trace, the ledger or the generator.

use super::super::controller::MAX_ACTIONS_PER_TURN;
use super::super::ctx::Ctx;
use super::super::engine::Engine;
use super::super::held::Held;
use super::super::sink::Sink;
use crate::ir::{self, ActionKind, Effect};

/// What being able to react, or to move when one must close in, is worth (as a condition that
/// hinders weighs in the static score).
const ABLE: f64 = 0.25;
/// Most changes one option is supposed with; effects past them are scored, not supposed.
const MAX_SUPPOSED: usize = 32;
/// How deep nested `if`s are followed.
const MAX_DEPTH: u32 = 16;

/// One change supposed, with what puts it back.
#[derive(Clone, Copy)]
enum Supposed<'r> {
    Pool { who: usize, at: usize, was: i64 },
    Applied { who: usize, condition: ir::ConditionId },
    Removed { who: usize, condition: ir::ConditionId, held: Held<'r> },
}

impl Supposed<'_> {
    fn who(&self) -> usize {
        match *self {
            Supposed::Pool { who, .. } | Supposed::Applied { who, .. } | Supposed::Removed { who, .. } => who,
        }
    }
}

/// The changes supposed for one option, held on the stack.
struct Undo<'r> {
    items: [Option<Supposed<'r>>; MAX_SUPPOSED],
    len: usize,
}

impl<'r> Undo<'r> {
    fn new() -> Undo<'r> {
        Undo { items: [None; MAX_SUPPOSED], len: 0 }
    }

    fn push(&mut self, s: Supposed<'r>) -> bool {
        match self.items.get_mut(self.len) {
            Some(slot) => {
                *slot = Some(s);
                self.len += 1;
                true
            }
            None => false,
        }
    }

    fn full(&self) -> bool {
        self.len >= MAX_SUPPOSED
    }

    /// Each participant the changes touch, once, in the order first touched.
    fn touched(&self, i: usize) -> Option<usize> {
        let who = self.items.get(i).copied().flatten()?.who();
        let earlier = self.items[..i].iter().flatten().any(|s| s.who() == who);
        (!earlier).then_some(who)
    }
}

impl<'r, S: Sink> Engine<'r, S> {
    /// The option `me` prefers among those `live` allows: the highest `consequence`, the first
    /// of equals.
    pub(in crate::run) fn best_option(
        &mut self,
        me: usize,
        options: &[ir::ChoiceOption],
        c: &Ctx,
        live: impl Fn(usize) -> bool,
    ) -> usize {
        let mut best: Option<(usize, f64)> = None;
        for (i, o) in options.iter().enumerate() {
            if !live(i) {
                continue;
            }
            let s = self.consequence(me, &o.effects, c);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((i, s));
            }
        }
        best.map_or(0, |(i, _)| i)
    }

    /// How good taking effects run for `c` looks to `me`, one step ahead: their score read for
    /// consequences (a condition that takes its holder out, harm by how near it brings a
    /// harmful threshold, lasting resources by their share), plus, for `me` and each one whose
    /// pools or conditions they change, what that one's `prospects` gain (for `me` and its
    /// allies) or lose (for anyone else) once the changes are supposed.
    pub(in crate::run) fn consequence(&mut self, me: usize, effects: &[Effect], c: &Ctx) -> f64 {
        let was = std::mem::replace(&mut self.scratch.consequences, true);
        let now = self.score(effects, c, me, 0);
        self.scratch.consequences = was;
        let mut undo = Undo::new();
        self.suppose(effects, c, &mut undo, 0);
        let mut after = self.side_sign(me, me) * self.prospects(me);
        for i in 0..undo.len {
            if let Some(p) = undo.touched(i).filter(|p| *p != me) {
                after += self.side_sign(me, p) * self.prospects(p);
            }
        }
        self.undo(&undo);
        let mut before = self.side_sign(me, me) * self.prospects(me);
        for i in 0..undo.len {
            if let Some(p) = undo.touched(i).filter(|p| *p != me) {
                before += self.side_sign(me, p) * self.prospects(p);
            }
        }
        now + after - before
    }

    /// Writes the pool changes and conditions of `effects` on the world (an `if` without dice
    /// by its branch; amounts with dice at their average), each with what puts it back.
    fn suppose(&mut self, effects: &[Effect], c: &Ctx, undo: &mut Undo<'r>, depth: u32) {
        if depth > MAX_DEPTH {
            return;
        }
        for e in effects {
            if undo.full() {
                return;
            }
            match e {
                Effect::Pool { who, pool, op, value } => {
                    let Ok(p) = c.who(*who) else { continue };
                    let Some(v) = self.expected_value(value, c, 1) else { continue };
                    let (now, v) = (self.world.pool(p, *pool), v.round() as i64);
                    let next = match op {
                        ir::AssignOp::Set => v,
                        ir::AssignOp::Add => now.saturating_add(v),
                        ir::AssignOp::Sub => now.saturating_sub(v),
                    };
                    let Ok(next) = self.clamp_pool(p, *pool, next) else { continue };
                    if next != now {
                        let at = self.world.pool_at(p, *pool);
                        undo.push(Supposed::Pool { who: p, at, was: now });
                        self.world.pools[at] = next;
                    }
                }
                Effect::Apply { who, condition, magnitude, .. } => {
                    let Ok(p) = c.who(*who) else { continue };
                    let m = match magnitude {
                        Some(x) => self.expected_value(x, c, 1).map_or(1, |v| v.round() as i64),
                        None => 1,
                    };
                    self.suppose_held(p, *condition, m, c.owner, undo);
                    let implies = self.ruleset().conditions.get(condition.index()).map_or(&[][..], |d| &d.implies);
                    for i in implies {
                        self.suppose_held(p, *i, 1, c.owner, undo);
                    }
                }
                Effect::Remove { who, condition } => {
                    let Ok(p) = c.who(*who) else { continue };
                    if let Some(held) = self.world.held.take(p, *condition) {
                        if !undo.push(Supposed::Removed { who: p, condition: *condition, held }) {
                            self.world.held.set(p, *condition, held);
                        }
                    }
                }
                Effect::If { cond, then, otherwise } => match self.exact_without_dice(cond, c) {
                    Some(0) => self.suppose(otherwise, c, undo, depth + 1),
                    Some(_) => self.suppose(then, c, undo, depth + 1),
                    None => {}
                },
                // Each pass it surely makes, with its own `target`.
                Effect::Each { body, .. } => {
                    for (o, sure) in self.looped_over(e, c) {
                        if sure == 1.0 {
                            self.suppose(body, &Ctx { target: Some(o), ..*c }, undo, depth + 1);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The value of an expression without dice (`None` with dice, or when it cannot be read).
    fn exact_without_dice(&mut self, e: &ir::Expr, c: &Ctx) -> Option<i64> {
        let v = self.expected_value(e, c, 1)?;
        (v.fract() == 0.0).then_some(v as i64)
    }

    /// `p` holds `condition` (unless it does already), supposed.
    fn suppose_held(
        &mut self,
        p: usize,
        condition: ir::ConditionId,
        magnitude: i64,
        source: usize,
        undo: &mut Undo<'r>,
    ) {
        if self.world.held.has(p, condition) || undo.full() {
            return;
        }
        let held = Held {
            magnitude,
            until: None,
            rounds_left: None,
            while_: None,
            implied_by: None,
            source: Some(source),
            until_source: None,
        };
        self.world.held.set(p, condition, held);
        undo.push(Supposed::Applied { who: p, condition });
    }

    /// Puts back what was supposed, last first.
    fn undo(&mut self, undo: &Undo<'r>) {
        for s in undo.items[..undo.len].iter().rev().flatten() {
            match *s {
                Supposed::Pool { at, was, .. } => self.world.pools[at] = was,
                Supposed::Applied { who, condition } => {
                    self.world.held.take(who, condition);
                }
                Supposed::Removed { who, condition, held } => {
                    self.world.held.set(who, condition, held);
                }
            }
        }
    }

    /// What `p` can do as things stand: the most one of its actions gives (its score, for its
    /// nearest valid target, times how often its pools pay for it), plus `ABLE` if it can
    /// react (a reaction of its own that nothing blocks and its pools pay for) and `ABLE` if
    /// it must close in on its nearest enemy and can move. A pool refreshed every turn or round
    /// counts full for anyone but the one whose turn it is; nothing counts for one not present.
    pub(in crate::run) fn prospects(&mut self, p: usize) -> f64 {
        if !self.world.present.get(p).copied().unwrap_or(false) {
            return 0.0;
        }
        let r = self.ruleset();
        let (mut best, mut reacts, mut moves) = (0.0f64, false, false);
        for (i, action) in r.actions.iter().enumerate() {
            let a = ir::ActionId(i as u32);
            if self.tables.lacks(p, a) || self.world.held.blocked(p, action.kind).is_some() {
                continue;
            }
            match action.kind {
                ActionKind::Reaction => {
                    reacts = reacts || self.times(p, a) > 0;
                    continue;
                }
                ActionKind::Action | ActionKind::Free | ActionKind::Preparation => {}
                _ => continue,
            }
            if self.tables.shapes[i].per_unit {
                moves = moves || self.world.held.movement_blocked(p).is_none();
                continue;
            }
            let times = self.times(p, a);
            if times == 0 {
                continue;
            }
            let Some(target) = self.prospect_target(p, action) else { continue };
            let paid = self.tables.fixed_costs[i].map(|(costs, _)| costs).unwrap_or_default();
            let s = self.score_action(p, a, target, None, &paid);
            if s > 0.0 {
                best = best.max(s * times as f64);
            }
        }
        let reach = if matches!(r.space, ir::Space::Zones(_)) { 0 } else { 1 };
        let must_close = self.world.nearest_enemy(p).is_some_and(|e| self.world.distance(e, p) > reach);
        best + if reacts { ABLE } else { 0.0 } + if moves && must_close { ABLE } else { 0.0 }
    }

    /// How many times `p`'s pools pay for `a` (a cost that can change: once): its fixed cost
    /// against what each pool has, or would have after its refresh (`prospects`); 0 when a
    /// condition keeps it from spending one. At most once for an action with a use limit or
    /// without a target, as policies take those.
    fn times(&mut self, p: usize, a: ir::ActionId) -> i64 {
        let r = self.ruleset();
        let Some(action) = r.actions.get(a.index()) else { return 0 };
        let once = !action.limits.is_empty() || action.target.kind == ir::TargetKind::None;
        let Some((costs, _)) = self.tables.fixed_costs.get(a.index()).copied().flatten() else { return 1 };
        let mut times = i64::from(MAX_ACTIONS_PER_TURN);
        for (q, amount) in &costs {
            if amount <= 0 {
                continue;
            }
            if self.world.held.spend_blocked(p, q).is_some() {
                return 0;
            }
            let pool = &r.pools[q.index()];
            let now = self.world.pool(p, q);
            let refreshed = self.clock.active != Some(p) && refreshed(pool);
            let room = match (pool.rising, refreshed) {
                (true, true) => {
                    self.pool_max(p, q).ok().flatten().map_or(i64::MAX, |m| m - self.pool_min(p, q).unwrap_or(0))
                }
                (true, false) => self.pool_max(p, q).ok().flatten().map_or(i64::MAX, |m| m.saturating_sub(now)),
                (false, true) => {
                    let full = self.pool_max(p, q).ok().flatten().unwrap_or(now).max(now);
                    full.saturating_sub(self.pool_min(p, q).unwrap_or(0))
                }
                (false, false) => now.saturating_sub(self.pool_min(p, q).unwrap_or(0)),
            };
            times = times.min(room.max(0) / amount);
        }
        if once {
            times.min(1)
        } else {
            times
        }
    }

    /// The target `p` would take `action` at in `prospects`: none or itself for actions without
    /// one; else the nearest one it may aim at (ties: scenario order) for whom the action's
    /// requirements hold; `None` when there is nobody.
    fn prospect_target(&mut self, p: usize, action: &ir::Action) -> Option<Option<usize>> {
        let kind = action.target.kind;
        match kind {
            ir::TargetKind::None => return Some(None),
            ir::TargetKind::Self_ => return Some(Some(p)),
            _ => {}
        }
        let mut best: Option<(i64, usize)> = None;
        for t in 0..self.world.n {
            if !self.world.present[t] || !self.may_target(p, t, kind) {
                continue;
            }
            let d = self.world.distance(t, p);
            if best.is_some_and(|(bd, _)| bd <= d) {
                continue;
            }
            let c = Ctx { owner: p, target: Some(t), acting: None, ..Ctx::default() };
            let holds = action.requires.iter().all(|req| self.exact_without_dice(&req.cond, &c) != Some(0));
            if holds {
                best = Some((d, t));
            }
        }
        best.map(|(_, t)| Some(t))
    }
}

/// Whether an unguarded step fills the pool every turn or round (`refresh`).
fn refreshed(pool: &ir::Pool) -> bool {
    use ir::Timing as T;
    pool.at.iter().any(|step| {
        step.guard.is_none()
            && matches!(step.op, ir::PoolOp::Refresh)
            && matches!(
                step.timing,
                T::RoundStart | T::TurnStart | T::PhaseStart(_) | T::RoundEnd | T::TurnEnd | T::PhaseEnd(_)
            )
    })
}
