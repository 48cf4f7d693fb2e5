//! The world: what a snapshot of the encounter is. Who takes part and on which side, their stats,
//! pools and conditions, where they stand, whether they are present, and initiative and order.
//!
//! Flat vectors indexed by participant × stat / pool / condition. Queries here read only the
//! world (and the ruleset's definitions); nothing here rolls, decides or writes the trace.

use super::buffers::refill;
use super::held::HeldConditions;
use crate::ir::{self, Ruleset};

/// A thing on the map or in hands (`object`).
#[derive(Debug, PartialEq, Eq)]
pub struct Object {
    pub name: super::trace::Name,
    pub kind: ir::ObjectId,
    /// Where it lies while nobody holds it.
    pub at: i64,
    /// Who holds it, in the order they took hold.
    pub holders: Vec<usize>,
}

// By hand, for `clone_from`: a copied world keeps its objects' holder lists.
impl Clone for Object {
    fn clone(&self) -> Object {
        Object { name: self.name.clone(), kind: self.kind, at: self.at, holders: self.holders.clone() }
    }

    fn clone_from(&mut self, other: &Object) {
        self.name.clone_from(&other.name);
        self.kind = other.kind;
        self.at = other.at;
        self.holders.clone_from(&other.holders);
    }
}

/// The ground as one mover meets it in one move: per terrain kind, how many units each place
/// takes and whether it stops the move; how wide a blocking stretch a leap clears.
#[derive(Debug, Clone, Copy)]
pub struct Ground<'a> {
    pub kinds: &'a [(i64, bool)],
    pub leap: i64,
}

/// The farthest from 0 anyone is placed, in units (or zones). Moves stop at it and scenarios may
/// not place anyone past it, so a distance always fits an `i64` and a far-away enemy can never
/// wrap around into a near one.
pub const MAX_POSITION: i64 = 1_000_000_000_000;

/// Where each pool's values are kept in the world's `pools`: participant `who`'s value of pool
/// `p` at `row * stride[p] + p`, where the row is `who`'s own, or for a pool kept `per side` the
/// first member of `who`'s side (`side_first`).
#[derive(Debug, Default)]
struct PoolLayout {
    n_pools: usize,
    /// How far apart one pool's values are for consecutive rows: `n_pools`, or 0 for a
    /// `shared` pool, whose one value every participant's index reaches.
    stride: Vec<usize>,
    /// Per pool: kept `per side`, its value held in the row of the side's first member.
    per_side: Vec<bool>,
    /// Per participant: the first participant of its side in the scenario's order (set with
    /// the sides, `World::set_sides`).
    side_first: Vec<usize>,
}

impl PoolLayout {
    fn reset(&mut self, r: &Ruleset, n: usize) {
        self.n_pools = r.pools.len();
        self.stride.clear();
        self.stride.extend(r.pools.iter().map(|p| if p.shared { 0 } else { self.n_pools }));
        self.per_side.clear();
        self.per_side.extend(r.pools.iter().map(|p| p.per_side));
        refill(&mut self.side_first, n, 0);
    }

    fn copy_from(&mut self, other: &PoolLayout) {
        let PoolLayout { n_pools, stride, per_side, side_first } = other;
        self.n_pools = *n_pools;
        self.stride.clone_from(stride);
        self.per_side.clone_from(per_side);
        self.side_first.clone_from(side_first);
    }
}

#[derive(Debug, Default)]
pub(crate) struct World<'r> {
    /// Participants.
    pub n: usize,
    n_stats: usize,
    /// Where each pool's values are kept in `pools`.
    layout: PoolLayout,
    /// Set through `set_sides`, which keeps `side_first` in step.
    pub sides: Vec<u32>,
    pub players: Vec<bool>,
    pub positions: Vec<i64>,
    pub stats: Vec<i64>,
    pub pools: Vec<i64>,
    /// The conditions each participant holds, and the indexes kept in step with them.
    pub held: HeldConditions<'r>,
    pub present: Vec<bool>,
    /// Per participant: on a side the surprise round leaves out.
    pub surprised: Vec<bool>,
    /// Per participant: its most recent check.
    pub last_check: Vec<LastCheck>,
    pub initiative: Vec<i64>,
    /// Per participant: it `follow`ed someone, so it goes ahead of anyone else at its value
    /// (right after the one it followed) until initiative is made again.
    pub following: Vec<bool>,
    /// Who acts when: groups in order, a group acting together. Changed only through
    /// `order_mut`, which counts the change, so what is made from the order (the priority of
    /// answers) is remade only when it changed, without comparing the whole order per event.
    order: Vec<Vec<usize>>,
    order_version: u64,
    /// Counts every change of place or presence (never reset): what is made from places (each
    /// participant's nearest-first list) is remade only when this moved.
    layout_version: u64,
    /// The initiative values the current order was made from.
    pub(crate) ordered_values: Vec<i64>,
    /// The tie-break rolls made since the order was last made, kept so a reorder does not roll
    /// them again: per tie-break `k` and participant `w` (at `k * n + w`), the first roll, then
    /// each roll-off's.
    pub(crate) tie_rolls: Vec<Vec<i64>>,
    /// Stretches of terrain from the scenario: first place, last place, kind.
    pub terrain: Vec<(i64, i64, ir::TerrainId)>,
    /// Objects, in the scenario's order.
    pub objects: Vec<Object>,
    /// The participants in seating order (the scenario's, unless `seating: Random` drew
    /// another), and each one's place in it: the order the rules fall back on.
    pub seating: Vec<usize>,
    pub seat: Vec<usize>,
    /// Every participant's piles of items.
    pub piles: super::piles::Piles,
}

impl<'r> World<'r> {
    /// Empties the world for `n` participants, keeping every vector's allocation; stats, pools
    /// and positions are zero until the caller fills them.
    pub fn reset(&mut self, r: &Ruleset, n: usize) {
        self.n = n;
        self.n_stats = r.stats.len();
        self.layout.reset(r, n);
        refill(&mut self.sides, n, 0);
        refill(&mut self.players, n, false);
        refill(&mut self.positions, n, 0);
        refill(&mut self.stats, n * self.n_stats, 0);
        refill(&mut self.pools, n * self.layout.n_pools, 0);
        self.held.reset(r, n);
        refill(&mut self.present, n, true);
        refill(&mut self.surprised, n, false);
        refill(&mut self.last_check, n, LastCheck::default());
        refill(&mut self.initiative, n, 0);
        refill(&mut self.following, n, false);
        self.order.clear();
        self.order_version += 1;
        self.layout_version += 1;
        self.ordered_values.clear();
        self.forget_tie_rolls();
        self.terrain.clear();
        self.objects.clear();
        self.seating.clear();
        self.seating.extend(0..n);
        self.seat.clear();
        self.seat.extend(0..n);
        self.piles.reset(r, n);
    }

    /// Seats the participants in `seating` (each once) from now on.
    pub fn seat_in(&mut self, seating: &[usize]) {
        self.seating.clear();
        self.seating.extend_from_slice(seating);
        for (place, &who) in seating.iter().enumerate() {
            if let Some(s) = self.seat.get_mut(who) {
                *s = place;
            }
        }
        self.order_version += 1;
    }

    /// Becomes a copy of `other`, in the allocations it has (none made once they are as large).
    pub fn copy_from(&mut self, other: &World<'r>) {
        // Destructured whole, so that a field added later cannot be forgotten here.
        let World {
            n,
            n_stats,
            layout,
            sides,
            players,
            positions,
            stats,
            pools,
            held,
            present,
            surprised,
            last_check,
            initiative,
            following,
            order,
            order_version: _,
            layout_version: _,
            ordered_values,
            tie_rolls,
            terrain,
            objects,
            seating,
            seat,
            piles,
        } = other;
        self.n = *n;
        self.n_stats = *n_stats;
        self.layout.copy_from(layout);
        self.sides.clone_from(sides);
        self.players.clone_from(players);
        self.positions.clone_from(positions);
        self.stats.clone_from(stats);
        self.pools.clone_from(pools);
        self.held.copy_from(held);
        self.present.clone_from(present);
        self.surprised.clone_from(surprised);
        self.last_check.clone_from(last_check);
        self.initiative.clone_from(initiative);
        self.following.clone_from(following);
        self.order.clone_from(order);
        // The versions are this world's own cache keys, not state: they move on, so what was
        // made from this world's order and places before the copy is made again.
        self.order_version += 1;
        self.layout_version += 1;
        self.ordered_values.clone_from(ordered_values);
        self.tie_rolls.clone_from(tie_rolls);
        self.terrain.clone_from(terrain);
        self.objects.clone_from(objects);
        self.seating.clone_from(seating);
        self.seat.clone_from(seat);
        self.piles.copy_from(piles);
    }

    /// Writes this world canonically (canon.rs): what it holds, not its caches.
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        let World {
            n,
            n_stats: _,
            layout: _,
            sides,
            players,
            positions,
            stats,
            pools,
            held,
            present,
            surprised,
            last_check,
            initiative,
            following,
            order,
            order_version: _,
            layout_version: _,
            ordered_values,
            tie_rolls,
            terrain: _,
            objects,
            seating,
            seat,
            piles,
        } = self;
        c.n(*n);
        c.put(sides);
        c.put(players);
        c.put(positions);
        c.put(stats);
        // Every pool value, a side's pools kept `per side` among them (in the row of the
        // side's first member, `PoolLayout`): they are state the exact solver merges by.
        c.put(pools);
        held.canon(c);
        c.put(present);
        c.put(surprised);
        if !c.unread_last_check {
            c.put(last_check);
        }
        c.put(initiative);
        c.put(following);
        c.put(order);
        c.put(ordered_values);
        c.put(tie_rolls);
        c.n(objects.len());
        for o in objects {
            c.put(&o.kind);
            c.int(o.at);
            c.put(&o.holders);
        }
        c.put(seating);
        c.put(seat);
        piles.canon(c);
    }

    /// The order is made anew: no tie-break roll is kept.
    pub fn forget_tie_rolls(&mut self) {
        self.tie_rolls.iter_mut().for_each(Vec::clear);
    }

    /// `w`'s kept roll for tie-break `k` at roll-off `depth` (0: the first roll).
    pub fn tie_roll(&self, k: usize, w: usize, depth: usize) -> Option<i64> {
        self.tie_rolls.get(k * self.n + w).and_then(|r| r.get(depth)).copied()
    }

    /// Keeps `w`'s next roll for tie-break `k`.
    pub fn keep_tie_roll(&mut self, k: usize, w: usize, v: i64) {
        let at = k * self.n + w;
        if self.tie_rolls.len() <= at {
            self.tie_rolls.resize_with(at + 1, Vec::new);
        }
        self.tie_rolls[at].push(v);
    }

    pub fn order(&self) -> &Vec<Vec<usize>> {
        &self.order
    }

    /// The order, to change it (counted: see `order_version`).
    pub fn order_mut(&mut self) -> &mut Vec<Vec<usize>> {
        self.order_version += 1;
        &mut self.order
    }

    pub fn order_version(&self) -> u64 {
        self.order_version
    }

    pub fn layout_version(&self) -> u64 {
        self.layout_version
    }

    /// `who` stands at `at` from now on.
    pub fn place(&mut self, who: usize, at: i64) {
        self.positions[who] = at.clamp(-MAX_POSITION, MAX_POSITION);
        self.layout_version += 1;
    }

    /// `who` is present or not from now on.
    pub(crate) fn set_present(&mut self, who: usize, present: bool) {
        self.present[who] = present;
        self.layout_version += 1;
    }

    // The accessors below are `#[inline]`: the runner's modules land in different codegen
    // units, and a call across units is not inlined without it (`pool`, `stat`, `relates`
    // and the like are called tens of thousands of times a duel, each for a few instructions).
    #[inline]
    pub(crate) fn stat_at(&self, who: usize, s: usize) -> usize {
        who * self.n_stats + s
    }

    #[inline]
    pub(crate) fn pool_at(&self, who: usize, p: ir::PoolId) -> usize {
        let p = p.index();
        let l = &self.layout;
        let row = if l.per_side[p] { l.side_first[who] } else { who };
        row * l.stride[p] + p
    }

    /// Each participant's side, in the scenario's order; remembers each side's first member.
    pub fn set_sides(&mut self, sides: &[u32]) {
        self.sides.copy_from_slice(sides);
        for (w, side) in sides.iter().enumerate() {
            self.layout.side_first[w] = sides.iter().position(|s| s == side).unwrap_or(w);
        }
        self.piles.set_sides(&self.layout.side_first);
    }

    /// The participant whose slot holds `who`'s value of pool `p`: the first member of `who`'s
    /// side for a pool kept `per side`, else `who` (a `shared` pool's one slot is found from
    /// anyone's index).
    #[inline]
    pub(crate) fn pool_holder(&self, who: usize, p: ir::PoolId) -> usize {
        if self.layout.per_side[p.index()] {
            self.layout.side_first[who]
        } else {
            who
        }
    }

    /// Whether pool `p` is kept `per side`.
    #[inline]
    pub(crate) fn per_side(&self, p: ir::PoolId) -> bool {
        self.layout.per_side[p.index()]
    }

    /// The first member of `who`'s side in the scenario's order.
    #[inline]
    pub(crate) fn side_first(&self, who: usize) -> usize {
        self.layout.side_first[who]
    }

    /// `enemy_side`: the first participant in the scenario's order who is not on `who`'s side
    /// (`who` when everyone is on one side).
    pub(crate) fn enemy_side_of(&self, who: usize) -> usize {
        (0..self.n).find(|&o| self.sides[o] != self.sides[who]).unwrap_or(who)
    }

    #[inline]
    pub fn pool(&self, who: usize, p: ir::PoolId) -> i64 {
        self.pools[self.pool_at(who, p)]
    }

    #[inline]
    pub fn stat(&self, who: usize, s: ir::StatId) -> i64 {
        self.stats[self.stat_at(who, s.index())]
    }

    /// Is `other` in relation `rel` to `me`?
    #[inline]
    pub(crate) fn relates(&self, me: usize, other: usize, rel: ir::Relation) -> bool {
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

    /// May `who` answer an event by `actor` against `victim` under this pattern?
    pub(crate) fn may_answer(&self, who: usize, actor: usize, victim: Option<usize>, on: &ir::EventPattern) -> bool {
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

    /// Able to take part: present and not kept from both actions and reactions.
    #[inline]
    pub fn standing(&self, who: usize) -> bool {
        self.present[who]
            && !(self.held.blocked(who, ir::ActionKind::Action).is_some()
                && self.held.blocked(who, ir::ActionKind::Reaction).is_some())
    }

    /// Where object `o` is: with its first holder, or where it lies.
    pub(crate) fn object_place(&self, o: usize) -> i64 {
        let obj = &self.objects[o];
        obj.holders.first().map_or(obj.at, |&h| self.positions[h])
    }

    /// Whether `who` holds an object of `kind`.
    pub fn holds(&self, who: usize, kind: ir::ObjectId) -> bool {
        self.objects.iter().any(|o| o.kind == kind && o.holders.contains(&who))
    }

    /// How many hold the object of `kind` that `who` holds (the first such, in the scenario's
    /// order); 0 when `who` holds none.
    pub fn handlers(&self, who: usize, kind: ir::ObjectId) -> i64 {
        self.objects.iter().find(|o| o.kind == kind && o.holders.contains(&who)).map_or(0, |o| o.holders.len() as i64)
    }

    /// Positions stay within [`MAX_POSITION`] of 0, so this cannot overflow.
    #[inline]
    pub fn distance(&self, a: usize, b: usize) -> i64 {
        (self.positions[a] - self.positions[b]).abs()
    }

    /// The nearest enemy of `who` still standing (ties: the first in the scenario).
    pub(crate) fn nearest_enemy(&self, who: usize) -> Option<usize> {
        (0..self.n)
            .filter(|o| self.present[*o] && self.standing(*o) && self.relates(who, *o, ir::Relation::Enemy))
            .min_by_key(|o| (self.distance(*o, who), *o))
    }

    /// Where a voluntary move of at most `places` places in direction `dir`, with `budget` units
    /// to spend, ends under the grid's rules: it stops before an enemy's place (`enemies_block`)
    /// and never ends on a place someone else holds (`no_sharing`), stepping back until free.
    /// `past` (the one moved through) does not block. Without `ground` each place takes one unit;
    /// with it, terrain may take more, or stop the move unless a leap clears it.
    #[allow(clippy::too_many_arguments)]
    pub fn walk(
        &self,
        r: &Ruleset,
        who: usize,
        dir: i64,
        places: i64,
        budget: i64,
        past: Option<usize>,
        ground: Option<Ground>,
    ) -> i64 {
        let from = self.positions[who];
        // Never past the edge of the places tempo keeps: a huge move ends there.
        let room = if dir >= 0 { MAX_POSITION - from } else { from + MAX_POSITION };
        let places = places.clamp(0, room.max(0));
        let steps = match ground {
            Some(g) => self.over_ground(from, dir, places, budget.max(0), g),
            None => places.min(budget.max(0)),
        };
        let ir::Space::Grid { enemies_block, no_sharing } = r.space else {
            return from + dir * steps;
        };
        // Only those standing hold a place: the fallen can be stepped over. The one moved
        // through blocks nobody's way, but its place is still its own to end on.
        let held_by = |at: i64, blocking: bool| {
            (0..self.n).any(|o| {
                o != who
                    && !(blocking && Some(o) == past)
                    && self.standing(o)
                    && self.positions[o] == at
                    && (!blocking || self.relates(who, o, ir::Relation::Enemy))
            })
        };
        let mut taken = steps;
        if enemies_block {
            // The move stops before the first enemy on its way: one look at everyone, not a
            // look per place walked (a move can be billions of places long).
            for o in 0..self.n {
                let ahead = (self.positions[o] - from) * dir.signum();
                let blocks = o != who && Some(o) != past && self.standing(o);
                if ahead > 0 && ahead <= taken && blocks && self.relates(who, o, ir::Relation::Enemy) {
                    taken = ahead - 1;
                }
            }
        }
        // A move never ends inside ground that stops it (it stepped back from the far side of a
        // gap it leapt).
        // Back over a whole stretch at a time: a leap may clear billions of places.
        while taken > 0 {
            let at = from + dir * taken;
            if ground.is_some_and(|g| self.ground_at(at, g).1) {
                taken -= self.same_ground(at, -dir).min(taken);
            } else if no_sharing && held_by(at, false) {
                taken -= 1;
            } else {
                break;
            }
        }
        from + dir * taken
    }

    /// How many units a place takes and whether it stops a move: the most any terrain on it
    /// takes (at least 1), and whether any on it stops it.
    fn ground_at(&self, at: i64, g: Ground) -> (i64, bool) {
        let (mut cost, mut stops) = (1, false);
        for &(a, b, kind) in &self.terrain {
            if a <= at && at <= b {
                let (c, s) = g.kinds.get(kind.index()).copied().unwrap_or((1, false));
                cost = cost.max(c);
                stops |= s;
            }
        }
        (cost, stops)
    }

    /// How many places from `at` on (itself included) in direction `dir` lie on the same ground
    /// as `at`: up to the next edge of a stretch (`i64::MAX` when none is ahead).
    fn same_ground(&self, at: i64, dir: i64) -> i64 {
        let mut run = i64::MAX;
        for &(a, b, _) in &self.terrain {
            // The places where the ground may change, walking in `dir`: entering or leaving.
            let edges = if dir > 0 { [a, b.saturating_add(1)] } else { [b, a.saturating_sub(1)] };
            for e in edges {
                let ahead = (e - at) * dir;
                if ahead > 0 {
                    run = run.min(ahead);
                }
            }
        }
        run
    }

    /// How many places a move goes over the ground, stretch by stretch (a move may be billions
    /// of places long; terrain is a few stretches).
    fn over_ground(&self, from: i64, dir: i64, places: i64, mut left: i64, g: Ground) -> i64 {
        let mut moved = 0;
        while moved < places {
            let next = from + dir * (moved + 1);
            let (cost, stops) = self.ground_at(next, g);
            if stops {
                // The whole blocking stretch, up to one place more than a leap clears.
                let mut width = 0;
                while width <= g.leap {
                    let at = next + dir * width;
                    if !self.ground_at(at, g).1 {
                        break;
                    }
                    width = width.saturating_add(self.same_ground(at, dir));
                }
                if width > g.leap || moved + width + 1 > places {
                    break;
                }
                // Crossed in the air, a unit a place; the landing place at its own cost.
                let need = width.saturating_add(self.ground_at(next + dir * width, g).0);
                if need > left {
                    break;
                }
                left -= need;
                moved += width + 1;
                continue;
            }
            let run = self.same_ground(next, dir).min(places - moved);
            let take = run.min(left / cost);
            moved += take;
            left -= take * cost;
            if take < run {
                break;
            }
        }
        moved
    }

    /// Everyone present in initiative order, then anyone present the order does not name, in
    /// seating order.
    /// `seen` is a reused buffer.
    pub fn in_order(&self, out: &mut Vec<usize>, seen: &mut Vec<bool>) {
        seen.clear();
        seen.resize(self.n, false);
        out.clear();
        // Two plain loops, not a flattened chain: this runs at every turn and every offered
        // event, and the chain's adapters were most of its cost.
        let mut visit = |w: usize| {
            if self.present[w] && !seen[w] {
                seen[w] = true;
                out.push(w);
            }
        };
        for group in &self.order {
            for &w in group {
                visit(w);
            }
        }
        for &w in &self.seating {
            visit(w);
        }
    }
}

/// A participant's most recent check, as `last_check`, `last_critical` and contests read it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct LastCheck {
    pub total: i64,
    /// A critical: the built-in outcome `critical`, or the best level of its degrees.
    pub critical: bool,
    /// The level it reached, when it was graded by declared degrees.
    pub level: Option<(crate::ir::DegreesId, u32)>,
}
