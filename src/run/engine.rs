//! The engine: one encounter's state, split by owner, and the sink its events go to.
//!
//! - `world` (world.rs): what a snapshot of the encounter is; its conditions held, with their
//!   indexes, are a part of their own (`world.held`, held.rs).
//! - `clock` (clock.rs): where the encounter is in time.
//! - `ledger` (ledger.rs): what has been used and gained, for limits and caps.
//! - `pending` (pending.rs): what is under way: pool changes to settle, answers, readies,
//!   deferred and multi-round actions.
//! - `controls`, `gm` (controller.rs): who decides, and how far their scripts have got.
//! - `budget` (budget.rs): the step budget that stops runaway cycles.
//! - `scratch` (scratch.rs): buffers, never observable.
//! - `names` (names.rs): the names events carry, made once.
//! - `out`: the sink, and the sequence number of the next event.
//! - `tables` (tables.rs): what is worked out once per ruleset and scenario, only read.
//! - `search` (`Searcher`, below) and `replay` (lookahead.rs): a `Search` controller's
//!   playouts: the engines they play in, and what a playout's engine replays (search.rs).
//!
//! The behaviour lives in `impl Engine` blocks by concern: `encounter.rs`, `initiative.rs`,
//! `turns.rs`, `downtime.rs` (time), `act.rs` (declarations), `answers.rs` (reactions,
//! triggers, gains), `effects.rs`, `pools.rs`, `movement.rs`, `checks.rs`, `thresholds.rs`
//! (what effects do, settling), `decide.rs` (controllers), `eval.rs` (expressions). An engine
//! is made once for a ruleset and a scenario and `reset` before each encounter, keeping its
//! allocations. Every part a run changes can be copied into another engine's (`copy_from`),
//! which then plays on exactly as this one would.

use super::budget::Budget;
use super::clock::Clock;
use super::controller::ControlState;
use super::ctx::Ctx;
use super::error::RunError;
use super::ledger::Ledger;
use super::lookahead::{Logged, Replay};
use super::names::Names;
use super::pending::Pending;
use super::scenario::Resolved;
use super::scratch::Scratch;
use super::sink::{Fact, Sink};
use super::tables::Tables;
use super::trace::{Event, Record};
use super::world::World;
use crate::ir::Ruleset;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::rc::Rc;

/// The stream of a run's seed that draws a random seating (the dice are stream 0).
const SEATING_STREAM: u64 = 1;

/// The sink, and what the engine adds to each event it takes.
pub(crate) struct Out<S> {
    pub sink: S,
    seq: u64,
    /// Setting up (stats, pools, conditions held from the start) writes nothing.
    pub(super) muted: bool,
}

pub struct Engine<'r, S> {
    /// The ruleset being played (read through `ruleset()`).
    ruleset: &'r Ruleset,
    pub world: World<'r>,
    pub clock: Clock<'r>,
    pub ledger: Ledger,
    pub pending: Pending<'r>,
    pub controls: Vec<ControlState>,
    pub budget: Budget,
    pub scratch: Scratch,
    pub names: Names,
    /// What is worked out once per ruleset and scenario, shared by every engine playing them.
    pub tables: Rc<Tables>,
    /// Per participant and pool (`who * pools + pool`), the pool's max and min when their
    /// expressions read only numbers and the owner's stats (`shape::fixed_for_owner`),
    /// evaluated once at setup: pools are clamped on every change, and `max 3 + finesse_mod`
    /// was evaluated each time. `None`: evaluated where read (an error is raised there, with
    /// the round it happens in). Not among the tables: they are made from the stats of one
    /// encounter, which a stat's default may roll.
    pub fixed_max: Vec<Option<i64>>,
    pub fixed_min: Vec<Option<i64>>,
    pub rng: ChaCha8Rng,
    /// Dry runs (a policy asking "could I?") roll no dice and write no trace.
    pub dry: bool,
    /// The rule whose work is under way (a timing clause, an action, its cost, a trigger, a
    /// threshold, ...): the events it causes carry its location (`Record::rule`).
    pub rule: Option<crate::ir::Loc>,
    /// The event whose consequences are under way (a turn, an action, a trigger, a check, a
    /// choice, a pool change whose threshold fired): the events they cause name it
    /// (`Record::because`).
    pub because: Option<u64>,
    /// How many changes of state (a pool's value, a condition held, a position) the engine has
    /// made, and dice rolled (the generator's state): a `repeat while` stops after a pass that
    /// made none.
    pub(crate) changes_made: u64,
    /// The amounts of the events with one being answered now, innermost last (`trigger.amount`
    /// names its slot through `EventInfo::amount`).
    pub amounts: Vec<i64>,
    /// Per event: the amount its last `emit EVENT(...)` ended with (`amount(EVENT)`).
    pub(crate) last_amount: Vec<i64>,
    /// Each policy decision is written with what it considered (`tempo run --decisions`).
    pub decisions: bool,
    /// The playouts of `Search` controllers: only in the engine of a real encounter with one.
    pub(crate) search: Option<Box<Searcher<'r>>>,
    /// In a playout's engine: the decisions it replays before it plays on.
    pub(crate) replay: Option<Box<Replay>>,
    /// In the exact solver's engines: the outcomes of the dice and of the solved participants'
    /// decisions (tape.rs).
    pub(crate) tape: Option<Box<super::tape::Tape>>,
    /// What named rolls counted (`roll NAME = ...`), read by `count(NAME ...)`.
    pub(crate) rolled: super::rolled::Rolled,
    pub out: Out<S>,
}

impl<'r, S: Sink> Engine<'r, S> {
    /// An engine for this ruleset and resolved scenario, with their `tables`, writing to
    /// `sink`. Call `reset` before each encounter.
    pub fn new(r: &'r Ruleset, tables: Rc<Tables>, setup: &Resolved, sink: S) -> Engine<'r, S> {
        Engine {
            ruleset: r,
            world: World::default(),
            clock: Clock::default(),
            ledger: Ledger::default(),
            pending: Pending::default(),
            controls: setup.controllers.iter().map(ControlState::new).collect(),
            budget: Budget::default(),
            scratch: Scratch::default(),
            names: Names::new(r, &setup.names).with_sides(&setup.side_names),
            tables,
            fixed_max: Vec::new(),
            fixed_min: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(0),
            dry: false,
            rule: None,
            because: None,
            amounts: Vec::new(),
            last_amount: Vec::new(),
            decisions: false,
            search: None,
            replay: None,
            tape: None,
            rolled: Default::default(),
            changes_made: 0,
            out: Out { sink, seq: 0, muted: false },
        }
    }

    /// The ruleset being played: borrowed for the engine's whole life, not from the engine, so
    /// it can be read while any part of the engine is changed.
    #[inline]
    pub fn ruleset(&self) -> &'r Ruleset {
        self.ruleset
    }

    /// Sets up the encounter's start: every part back to its initial state (allocations kept),
    /// the dice seeded, stats and pools at the scenario's values or the ruleset's defaults,
    /// conditions held from the start applied. Nothing of the setup is written to the sink.
    pub fn reset(&mut self, setup: &Resolved, seed: u64) -> Result<(), RunError> {
        let r = self.ruleset();
        let n = setup.names.len();
        self.world.reset(r, n);
        self.world.set_sides(&setup.sides);
        self.world.players.copy_from_slice(&setup.players);
        self.world.positions.copy_from_slice(&setup.positions);
        if setup.seating == super::scenario::Seating::Random {
            self.seat_at_random(seed);
        }
        self.world.terrain.extend_from_slice(&setup.terrain);
        self.world.objects.extend(setup.objects.iter().map(|(name, kind, at, holders)| super::world::Object {
            name: name.as_str().into(),
            kind: *kind,
            at: *at,
            holders: holders.clone(),
        }));
        for (who, side) in setup.sides.iter().enumerate() {
            self.world.surprised[who] = setup.surprise.is_some_and(|s| s != *side);
        }
        self.clock.reset(n);
        self.ledger.reset(n);
        self.pending.reset(n);
        self.controls.iter_mut().for_each(ControlState::reset);
        self.budget.reset();
        self.scratch.reset();
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        if let Some(s) = self.search.as_deref_mut() {
            s.reset(seed);
        }
        self.dry = false;
        self.rule = None;
        self.because = None;
        self.amounts.clear();
        super::buffers::refill(&mut self.last_amount, self.ruleset.events.len(), 0);
        self.out.seq = 0;
        self.out.muted = true;
        let set_up = self.set_up(setup);
        self.out.muted = false;
        set_up
    }

    /// Becomes a copy of `other`, an engine of the same ruleset and scenario (its `tables`),
    /// from where `other` stands on: the same events follow, played with the same dice. Copied
    /// into the allocations this engine has, so a copy into an engine that has held as large a
    /// state allocates nothing. Not copied: the tables (shared, the same), the names (made
    /// from the same ruleset and scenario, the same), the scratch buffers (never observable;
    /// its caches are keyed by the world's versions, which the copy moves on) and the sink
    /// (this engine's own, which goes on taking events; the `seq` of the next is copied).
    pub fn copy_from<T>(&mut self, other: &Engine<'r, T>) {
        // Destructured whole, so that a field added later cannot be forgotten here.
        let Engine {
            ruleset,
            world,
            clock,
            ledger,
            pending,
            controls,
            budget,
            scratch: _,
            names: _,
            tables: _,
            fixed_max,
            fixed_min,
            rng,
            dry,
            rule,
            because,
            changes_made,
            amounts,
            last_amount,
            decisions,
            search,
            replay: _,
            tape: _,
            rolled,
            out,
        } = other;
        // A decision inside a block (a `choose`) may come after its roll: its counts go along.
        self.rolled.copy_from(rolled);
        debug_assert!(std::ptr::eq(self.ruleset, *ruleset) && self.controls.len() == controls.len());
        self.world.copy_from(world);
        self.clock.copy_from(clock);
        self.ledger.copy_from(ledger);
        self.pending.copy_from(pending);
        for (mine, theirs) in self.controls.iter_mut().zip(controls) {
            mine.copy_from(theirs);
        }
        self.budget.copy_from(budget);
        self.fixed_max.clone_from(fixed_max);
        self.fixed_min.clone_from(fixed_min);
        self.rng.clone_from(rng);
        self.dry = *dry;
        self.rule = *rule;
        self.because = *because;
        self.changes_made = *changes_made;
        self.amounts.clone_from(amounts);
        self.last_amount.clone_from(last_amount);
        self.decisions = *decisions;
        // A copy searches on with the same seeds (a playout's engine, which has no searcher,
        // is told what to replay after the copy).
        if let (Some(mine), Some(theirs)) = (self.search.as_deref_mut(), search.as_deref()) {
            mine.copy_from(theirs);
        }
        self.out.seq = out.seq;
        self.out.muted = out.muted;
    }

    fn set_up(&mut self, setup: &Resolved) -> Result<(), RunError> {
        let r = self.ruleset();
        // Nothing of the last run's participants is read while the stats are set.
        self.fixed_max.clear();
        self.fixed_min.clear();
        // Stats: the scenario's values, else the ruleset's defaults (which may read other stats).
        for who in 0..self.world.n {
            for (i, stat) in r.stats.iter().enumerate() {
                let v = match (setup.stats[who][i], setup.defaults.get(i).copied().flatten()) {
                    (Some(v), _) | (None, Some(v)) => v,
                    (None, None) => self
                        .eval(&stat.default, &Ctx::of(who))
                        .map_err(|e| e.within(|| format!("the default of stat `{}`", stat.name)))?,
                };
                let at = self.world.stat_at(who, i);
                self.world.stats[at] = v;
            }
        }
        self.fix_bounds();
        // Pools start at their `start` (or the scenario's value). A side's pool starts from its
        // first member's `start`, unless a member's scenario value sets it.
        for who in 0..self.world.n {
            for (p, pool) in r.pools.iter().enumerate() {
                let v = match setup.pools[who][p] {
                    Some(v) => v,
                    None if pool.per_side && self.world.side_first(who) != who => continue,
                    None => self
                        .eval(&pool.start, &Ctx::of(who))
                        .map_err(|e| e.within(|| format!("the start of pool `{}`", pool.name)))?,
                };
                let at = self.world.pool_at(who, crate::ir::PoolId(p as u32));
                self.world.pools[at] = v;
            }
        }
        // Piles the scenario fills start with what it names instead.
        for (who, piles) in setup.piles.iter().enumerate() {
            for (pile, counts) in piles {
                for (slot, n) in self.world.piles.pile_mut(who, *pile).iter_mut().zip(counts) {
                    *slot = *n;
                }
            }
        }
        let surprise_condition = r.surprise.as_ref().and_then(|s| s.applies);
        for who in 0..self.world.n {
            let c = Ctx::of(who);
            for &(cond, source) in &setup.conditions[who] {
                self.apply(who, cond, 1, None, (None, source), &c)?;
            }
            if let (true, Some(cond)) = (self.world.surprised[who], surprise_condition) {
                self.apply(who, cond, 1, None, (None, None), &c)?;
            }
        }
        Ok(())
    }

    /// Draws the seating of this run from its seed, on a stream of its own: the dice (stream 0)
    /// are those of the same seed seated as written, so a random seating changes the seating
    /// alone, and a run seated as written draws nothing.
    fn seat_at_random(&mut self, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(SEATING_STREAM);
        let mut seating: Vec<usize> = (0..self.world.n).collect();
        for i in (1..seating.len()).rev() {
            // The solver's tape draws the seating as it draws everything else.
            let j = if self.tape.is_some() {
                self.below(i as u64 + 1) as usize
            } else {
                (rng.next_u64() % (i as u64 + 1)) as usize
            };
            seating.swap(i, j);
        }
        self.world.seat_in(&seating);
    }

    /// Fills `fixed_max` and `fixed_min` once the stats are set.
    fn fix_bounds(&mut self) {
        let r = self.ruleset();
        let fixed = |e: &crate::ir::Expr| super::shape::fixed_for_owner(r, e, 0);
        // Which bounds can be fixed depends on the pool alone; their values on the participant.
        let bounds: Vec<(Option<&crate::ir::Expr>, Option<&crate::ir::Expr>)> =
            r.pools.iter().map(|p| (p.max.as_ref().filter(|e| fixed(e)), Some(&p.min).filter(|e| fixed(e)))).collect();
        let (mut max, mut min) = (std::mem::take(&mut self.fixed_max), std::mem::take(&mut self.fixed_min));
        max.clear();
        min.clear();
        for who in 0..self.world.n {
            let c = Ctx::of(who);
            for &(top, floor) in &bounds {
                max.push(top.and_then(|e| self.eval(e, &c).ok()));
                min.push(floor.and_then(|e| self.eval(e, &c).ok()));
            }
        }
        (self.fixed_max, self.fixed_min) = (max, min);
    }

    /// Writes an event to the sink (not in a dry run, not while setting up), naming the rule
    /// under way if the event is one a rule causes.
    /// Returns the event's `seq`, or `None` when nothing was written.
    pub fn emit(&mut self, event: Event) -> Option<u64> {
        let rule = if event.has_rule() { self.rule } else { None };
        self.emit_by(event, rule)
    }

    /// Writes an event caused by the rule written at `rule` (a refusal names the rule that
    /// refused); returns its `seq`, or `None` when nothing was written.
    pub(crate) fn emit_by(&mut self, event: Event, rule: Option<crate::ir::Loc>) -> Option<u64> {
        if self.dry || self.out.muted {
            return None;
        }
        let seq = self.out.seq;
        let record = Record { seq, round: self.clock.event_round(), event, rule, because: self.because };
        self.out.seq += 1;
        self.out.sink.record(record);
        Some(seq)
    }

    /// Makes the event `seq` (when one was written) the cause of the events that follow;
    /// returns the cause it replaces, to be restored with `self.because = was`.
    pub(crate) fn caused_by(&mut self, seq: Option<u64>) -> Option<u64> {
        let was = self.because;
        if seq.is_some() {
            self.because = seq;
        }
        was
    }

    /// Makes `rule` the rule under way; returns the one it replaces, to be restored with
    /// `self.rule = was` when its work is done.
    pub fn under(&mut self, rule: crate::ir::Loc) -> Option<crate::ir::Loc> {
        self.rule.replace(rule)
    }

    /// Whether facts are to be told: the sink wants them and this is not a dry run or setup.
    pub fn telling(&self) -> bool {
        !self.dry && !self.out.muted && self.out.sink.wants_facts()
    }

    /// Tells the sink a fact (see `telling`).
    pub fn tell(&mut self, fact: Fact<'_>) {
        if self.telling() {
            self.out.sink.fact(fact);
        }
    }

    /// Tells the sink who is standing as the encounter ends.
    pub(crate) fn tell_ended(&mut self) {
        if !self.telling() {
            return;
        }
        let mut standing = std::mem::take(&mut self.scratch.standing);
        standing.clear();
        standing.extend((0..self.world.n).map(|w| self.world.standing(w)));
        self.out.sink.fact(Fact::Ended { standing: &standing });
        self.scratch.standing = standing;
    }

    /// Starts a new cascade (everything one declaration, one participant's work at a timing or
    /// one hour of downtime sets off): the step and dice budgets count from zero again, and
    /// `amount(EVENT)` reads only what this cascade emitted, 0 for an event it has not emitted
    /// (an attack that missed does not deal the damage an earlier turn's hit emitted).
    pub(crate) fn new_cascade(&mut self) {
        self.budget.fresh();
        self.last_amount.fill(0);
    }

    /// Counts one effect against the step budget; a spent budget stops the run as a cycle. The
    /// dice thrown since the cascade began are looked at too (`budget::DICE_BUDGET`).
    pub fn step(&mut self) -> Result<(), RunError> {
        self.step_taped()?;
        if self.budget.dice_spent() {
            let max = super::budget::DICE_BUDGET;
            return Err(RunError::Stopped {
                message: format!("more than {max} dice were thrown in one cascade"),
                rule: None,
            });
        }
        if self.budget.step() {
            Ok(())
        } else {
            Err(RunError::Cycle(self.budget.cycle_names()))
        }
    }
}

/// What a `Search` engine keeps between decisions: the round's start and the engine playouts
/// run in. Only the engine of a real encounter has one; a playout's engine never searches.
pub(crate) struct Searcher<'r> {
    pub(crate) start: Engine<'r, ()>,
    pub(crate) play: Engine<'r, ()>,
    /// `start` holds the state at the start of the round under way (not before the first
    /// round, nor after the last, where decisions are made by the rollout policy).
    pub(crate) ready: bool,
    /// `start` is the encounter's start, before `begin` (not a round's).
    pub(crate) at_begin: bool,
    /// The scenario's round limit, which a playout keeps too.
    pub(crate) max_rounds: u32,
    /// The `Search` decisions made since `start`, in order.
    pub(crate) log: Vec<Logged>,
    /// The encounter's seed, and how many `Search` decisions it has made: where each
    /// decision's playouts draw their dice from.
    pub(crate) seed: u64,
    pub(crate) made: u64,
    /// The ruleset's `derive side_value`, when it has one: what a side values in place of
    /// winning (found by name once, when the searcher is made).
    pub(crate) side_value: Option<usize>,
    /// Per candidate of the decision being made, the value of its playout `j` at `[j]`: the
    /// candidates' playouts `j` share their dice, so two are compared playout by playout.
    /// Kept between decisions (cleared, not freed).
    pub(crate) values: Vec<Vec<f64>>,
    /// Where the encounter is small enough to solve: the searchers' decisions answered exactly
    /// (exact.rs); `None` when a searcher plays by playouts alone.
    pub(crate) exact: Option<Box<dyn Exact<'r> + 'r>>,
    /// The real encounter's state where a decision is made, canonically (for `exact` to check
    /// it followed the round there).
    pub(crate) canon: super::canon::Canon,
}

/// `Search`'s exact play (exact.rs), held by the searcher without the engine importing the
/// solver that plays it.
pub(crate) trait Exact<'r> {
    /// `who`'s best of `options` (its index) and each option's chance for `who`'s side, for
    /// the decision after the `log`ged ones of the round that began at `start`; `live`, the
    /// real state's canonical bytes now; `default`, the rollout policy's choice, taken among
    /// equals. `None`: not answered exactly (the encounter too large to solve, or the round
    /// not followed to this decision).
    fn best(
        &mut self,
        start: &Engine<'r, ()>,
        log: &[Logged],
        live: &[u8],
        who: usize,
        options: &[Logged],
        default: Option<usize>,
    ) -> Option<(usize, Vec<f64>)>;

    /// The solution, solved now if it was not yet, for the searchers of other runners of the
    /// same ruleset and scenario (`adopt`).
    fn share(&mut self) -> ExactShared;

    /// Plays by a solution another runner of the same ruleset and scenario `share`d.
    fn adopt(&mut self, solution: &ExactShared);
}

/// A solved encounter's values (or the word that it does not solve), shared between the
/// runners of one ruleset and scenario on several threads, so it is solved once
/// (`Runner::exact_solution`). Adopting one changes nothing a run does, only how soon: whether
/// an encounter solves, and its values, depend on the ruleset and scenario alone.
#[derive(Clone)]
pub struct ExactShared(pub(crate) std::sync::Arc<dyn std::any::Any + Send + Sync>);

impl<S: Sink> Engine<'_, S> {
    /// Writes the encounter's state into `out` (cleared first), canonically (see the module).
    pub(crate) fn canonical(&self, out: &mut super::canon::Canon) {
        out.clear();
        let now = self.now();
        let Engine {
            ruleset: _,
            world,
            clock,
            ledger,
            pending,
            controls,
            budget: _,
            scratch: _,
            names: _,
            tables: _,
            fixed_max,
            fixed_min,
            rng: _,
            dry,
            rule: _,
            because: _,
            changes_made: _,
            amounts,
            last_amount,
            decisions: _,
            search: _,
            replay: _,
            tape: _,
            rolled,
            out: _,
        } = self;
        world.canon(out);
        clock.canon(out);
        ledger.canon(out, now);
        pending.canon(out);
        out.n(controls.len());
        for c in controls {
            c.canon(out);
        }
        out.put(fixed_max);
        out.put(fixed_min);
        out.flag(*dry);
        out.put(amounts);
        out.put(last_amount);
        rolled.canon(out);
    }
}
