//! The world: what a snapshot of the encounter is. Who takes part and on which side, their stats,
//! pools and conditions, where they stand, whether they are present, and initiative and order.
//!
//! Flat vectors indexed by participant × stat / pool / condition. Queries here read only the
//! world (and the ruleset's definitions); nothing here rolls, decides or writes the trace.

use crate::ir::{self, Expr, Ruleset};

/// A condition held by a participant.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    pub magnitude: i64,
    pub until: Option<ir::Timing>,
    pub rounds_left: Option<i64>,
    pub while_: Option<Expr>,
    /// Applied because another condition implies it; removed with that one.
    pub implied_by: Option<ir::ConditionId>,
    /// Who applied it (none for a condition held from the start).
    pub source: Option<usize>,
}

#[derive(Debug, Default)]
pub struct World {
    /// Participants.
    pub n: usize,
    n_stats: usize,
    n_pools: usize,
    n_conditions: usize,
    pub sides: Vec<u32>,
    pub players: Vec<bool>,
    pub positions: Vec<i64>,
    pub stats: Vec<i64>,
    pub pools: Vec<i64>,
    pub conds: Vec<Option<Held>>,
    pub present: Vec<bool>,
    /// Per participant: on a side the surprise round leaves out.
    pub surprised: Vec<bool>,
    /// Per participant: the total of its most recent check, and whether it was a critical.
    pub last_check: Vec<(i64, bool)>,
    pub initiative: Vec<i64>,
    /// Per participant: it `follow`ed someone, so it goes ahead of anyone else at its value
    /// (right after the one it followed) until initiative is made again.
    pub following: Vec<bool>,
    /// Who acts when: groups in order, a group acting together.
    pub order: Vec<Vec<usize>>,
    /// The initiative values the current order was made from.
    pub ordered_values: Vec<i64>,
}

impl World {
    /// Empties the world for `n` participants, keeping every vector's allocation; stats, pools
    /// and positions are zero until the caller fills them.
    pub fn reset(&mut self, r: &Ruleset, n: usize) {
        self.n = n;
        self.n_stats = r.stats.len();
        self.n_pools = r.pools.len();
        self.n_conditions = r.conditions.len();
        refill(&mut self.sides, n, 0);
        refill(&mut self.players, n, false);
        refill(&mut self.positions, n, 0);
        refill(&mut self.stats, n * self.n_stats, 0);
        refill(&mut self.pools, n * self.n_pools, 0);
        self.conds.clear();
        self.conds.resize(n * self.n_conditions, None);
        refill(&mut self.present, n, true);
        refill(&mut self.surprised, n, false);
        refill(&mut self.last_check, n, (0, false));
        refill(&mut self.initiative, n, 0);
        refill(&mut self.following, n, false);
        self.order.clear();
        self.ordered_values.clear();
    }

    pub fn stat_at(&self, who: usize, s: usize) -> usize {
        who * self.n_stats + s
    }

    pub fn pool_at(&self, who: usize, p: ir::PoolId) -> usize {
        who * self.n_pools + p.index()
    }

    pub fn cond_at(&self, who: usize, c: ir::ConditionId) -> usize {
        who * self.n_conditions + c.index()
    }

    pub fn pool(&self, who: usize, p: ir::PoolId) -> i64 {
        self.pools[self.pool_at(who, p)]
    }

    pub fn stat(&self, who: usize, s: ir::StatId) -> i64 {
        self.stats[self.stat_at(who, s.index())]
    }

    pub fn held(&self, who: usize, c: ir::ConditionId) -> Option<&Held> {
        self.conds.get(self.cond_at(who, c)).and_then(Option::as_ref)
    }

    pub fn has(&self, who: usize, c: ir::ConditionId) -> bool {
        self.held(who, c).is_some()
    }

    /// Is `other` in relation `rel` to `me`?
    pub fn relates(&self, me: usize, other: usize, rel: ir::Relation) -> bool {
        use ir::Relation::*;
        match rel {
            Self_ => me == other,
            Ally => me != other && self.sides[me] == self.sides[other],
            Enemy => self.sides[me] != self.sides[other],
            Other => me != other,
            Any => true,
            Player => self.players[other],
            NonPlayer => !self.players[other],
        }
    }

    /// The first held condition of `who` whose `blocks` clause says yes.
    fn blocking(&self, r: &Ruleset, who: usize, says: impl Fn(&ir::Blocks) -> bool) -> Option<ir::ConditionId> {
        (0..self.n_conditions)
            .map(|c| ir::ConditionId(c as u32))
            .find(|c| self.has(who, *c) && says(&r.conditions[c.index()].blocks))
    }

    /// May `who` answer an event by `actor` against `victim` under this pattern?
    pub fn may_answer(&self, who: usize, actor: usize, victim: Option<usize>, on: &ir::EventPattern) -> bool {
        if !self.present[who] {
            return false;
        }
        if let Some(by) = on.by {
            if !self.relates(who, actor, by) {
                return false;
            }
        }
        match (on.against, victim) {
            (None, _) => true,
            (Some(against), Some(v)) => self.relates(who, v, against),
            (Some(_), None) => false,
        }
    }

    /// A held condition that forbids `kind` of action.
    pub fn blocked(&self, r: &Ruleset, who: usize, kind: ir::ActionKind) -> Option<ir::ConditionId> {
        self.blocking(r, who, |b| b.kinds.contains(&kind))
    }

    pub fn movement_blocked(&self, r: &Ruleset, who: usize) -> Option<ir::ConditionId> {
        self.blocking(r, who, |b| b.movement)
    }

    pub fn spend_blocked(&self, r: &Ruleset, who: usize, pool: ir::PoolId) -> Option<ir::ConditionId> {
        self.blocking(r, who, |b| b.spend.contains(&pool))
    }

    /// Able to take part: present and not kept from both actions and reactions.
    pub fn standing(&self, r: &Ruleset, who: usize) -> bool {
        self.present[who]
            && !(self.blocked(r, who, ir::ActionKind::Action).is_some()
                && self.blocked(r, who, ir::ActionKind::Reaction).is_some())
    }

    pub fn distance(&self, a: usize, b: usize) -> i64 {
        (self.positions[a] - self.positions[b]).abs()
    }

    /// The nearest enemy of `who` still standing (ties: the first in the scenario).
    pub fn nearest_enemy(&self, r: &Ruleset, who: usize) -> Option<usize> {
        (0..self.n)
            .filter(|o| self.present[*o] && self.standing(r, *o) && self.relates(who, *o, ir::Relation::Enemy))
            .min_by_key(|o| (self.distance(*o, who), *o))
    }

    /// Where a voluntary move of `steps` places in direction `dir` ends, under the grid's
    /// rules: it stops before an enemy's place (`enemies_block`) and never ends on a place
    /// someone else holds (`no_sharing`), stepping back until free. `past` (the one moved
    /// through) does not block.
    pub fn walk(&self, r: &Ruleset, who: usize, dir: i64, steps: i64, past: Option<usize>) -> i64 {
        let from = self.positions[who];
        let ir::Space::Grid { enemies_block, no_sharing } = r.space else {
            return from.saturating_add(dir.saturating_mul(steps));
        };
        // Only those standing hold a place: the fallen can be stepped over. The one moved
        // through blocks nobody's way, but its place is still its own to end on.
        let held_by = |at: i64, blocking: bool| {
            (0..self.n).any(|o| {
                o != who
                    && !(blocking && Some(o) == past)
                    && self.standing(r, o)
                    && self.positions[o] == at
                    && (!blocking || self.relates(who, o, ir::Relation::Enemy))
            })
        };
        let mut taken = 0;
        while taken < steps {
            let next = from.saturating_add(dir.saturating_mul(taken + 1));
            if enemies_block && held_by(next, true) {
                break;
            }
            taken += 1;
        }
        if no_sharing {
            while taken > 0 && held_by(from.saturating_add(dir.saturating_mul(taken)), false) {
                taken -= 1;
            }
        }
        from.saturating_add(dir.saturating_mul(taken))
    }

    /// Everyone present in initiative order, then anyone present the order does not name.
    /// `seen` is a reused buffer.
    pub fn in_order(&self, out: &mut Vec<usize>, seen: &mut Vec<bool>) {
        seen.clear();
        seen.resize(self.n, false);
        out.clear();
        for w in self.order.iter().flatten().copied().chain(0..self.n) {
            if self.present[w] && !seen[w] {
                seen[w] = true;
                out.push(w);
            }
        }
    }
}

/// `v` becomes `n` copies of `x`, in the allocation it has.
pub fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}
