//! Run: plays encounters of a compiled ruleset, headless, with seeded dice, writing what
//! happened into a sink as it happens.
//!
//! Invariants: the runner knows rounds, phases, turns, pools, costs, triggers and choices only
//! as the IR describes them; state is flat vectors indexed by participant × pool / stat /
//! condition; the same ruleset, scenario and seed give the same events (one ChaCha8 stream, no
//! hash-map iteration); a rule that would loop forever is stopped by a step budget.
//!
//! The pipeline inside: `scenario` (names → indices, once) → `engine` (the state, by owner:
//! world and the conditions it holds, clock, ledger, pending, controllers, budget, scratch,
//! names; and the tables it only reads) → `encounter` (the encounter and its rounds),
//! `initiative`, `turns`, `downtime` (time), `act` (declarations), `answers` (reactions,
//! triggers, gains), `effects` (what effects do), `pools`, `movement`, `checks`, `thresholds`
//! (settling), `decide` (controllers), `search` and `lookahead` (the `Search` policy's
//! playouts), `eval` (expressions) → `sink` (a writer, a vector, a
//! count) in `trace`'s vocabulary, `jsonl` (JSON lines).

mod accounts;
mod act;
mod answers;
mod budget;
mod buffers;
mod canon;
mod checks;
mod clock;
mod controller;
mod costs;
mod counting;
mod ctx;
mod decide;
mod downtime;
mod drawn;
mod draws;
mod effects;
mod encounter;
mod engine;
mod error;
mod eval;
mod exact;
mod explore;
mod granted;
mod held;
mod hidden;
mod initiative;
mod items;
mod jsonl;
pub mod labels;
mod ledger;
mod lookahead;
mod movement;
pub(crate) mod names;
mod odds;
mod offered;
mod pending;
mod piles;
mod pools;
mod refusals;
mod rolled;
mod rolls;
pub mod scenario;
mod scratch;
mod search;
mod secret;
mod shape;
pub mod sink;
mod slots;
mod solver;
mod tables;
mod tape;
mod thresholds;
pub mod trace;
mod turns;
mod unscored;
mod world;
pub use world::MAX_POSITION;

pub use engine::ExactShared;
pub use error::RunError;
pub use explore::{Explorer, Reached, Refusal};
pub use odds::Fraction;
pub use sink::Sink;
pub use solver::{Decision as SolvedDecision, Progress, Solver, Stop, Value};
pub use unscored::unscored;

use crate::ir::Ruleset;
use engine::Engine;
use trace::{Event, Record};

/// Plays encounters of one scenario under one ruleset, again and again, into one sink. The
/// scenario is checked against the ruleset once; each `play` starts from a reset engine that
/// keeps its allocations.
///
/// An encounter can also be played a round at a time (`begin`, `play_round`, `finish`; `play`
/// is those three), and between two rounds one runner can become a copy of another of the same
/// ruleset and scenario (`copy_from`), which then plays on exactly as the other would: the
/// same events, with the same dice. This is how a policy looks ahead: it copies where the
/// encounter stands into a runner of its own, plays that on, and throws it away.
pub struct Runner<'a, S: Sink> {
    engine: Engine<'a, S>,
    scenario: &'a scenario::Scenario,
    setup: scenario::Resolved,
    /// An encounter has begun and not yet finished (nor failed).
    under_way: bool,
}

impl<'a, S: Sink> Runner<'a, S> {
    /// Checks the scenario against the ruleset (every problem listed).
    pub fn new(r: &'a Ruleset, s: &'a scenario::Scenario, sink: S) -> Result<Runner<'a, S>, RunError> {
        let setup = scenario::resolve(s, r).map_err(RunError::Scenario)?;
        // Shared by counting, not borrowed: the runner owns them, and the engine it also owns
        // cannot borrow from its sibling.
        let tables = std::rc::Rc::new(tables::Tables::new(r, &setup, s.gm.clone()));
        let mut engine = Engine::new(r, std::rc::Rc::clone(&tables), &setup, sink);
        if setup.controllers.iter().any(|c| matches!(c.policy, controller::Chosen::Search(_))) {
            let start = Engine::new(r, std::rc::Rc::clone(&tables), &setup, ());
            let play = Engine::new(r, tables, &setup, ());
            let mut searcher = engine::Searcher::new(start, play);
            searcher.exact =
                exact::ExactPlay::new(r, s, &setup).map(|e| Box::new(e) as Box<dyn engine::Exact<'a> + 'a>);
            engine.search = Some(Box::new(searcher));
        }
        Ok(Runner { engine, scenario: s, setup, under_way: false })
    }

    /// The exact solution this runner's searchers play by where the encounter is small
    /// (`Search(exact: N)`), solved now if it was not yet; `None` without searchers. Other
    /// runners of the same ruleset and scenario `adopt_exact` it instead of solving it again:
    /// they play exactly as they would have.
    pub fn exact_solution(&mut self) -> Option<ExactShared> {
        Some(self.engine.search.as_deref_mut()?.exact.as_deref_mut()?.share())
    }

    /// Plays by a solution `exact_solution` gave for a runner of the same ruleset and scenario.
    pub fn adopt_exact(&mut self, solution: &ExactShared) {
        if let Some(exact) = self.engine.search.as_deref_mut().and_then(|s| s.exact.as_deref_mut()) {
            exact.adopt(solution);
        }
    }

    /// Writes each policy decision with the options it considered (a `decision` event).
    pub fn decisions(mut self, on: bool) -> Runner<'a, S> {
        self.engine.decisions = on;
        self
    }

    /// Plays the next encounters with other numbers, as `--set` would have set them in the
    /// ruleset and scenario this runner was made from: `defaults`, stat index and value (a
    /// stat's default, `--set STAT=N`); `own`, participant index, stat index and value (that
    /// participant's own value, `--set WHO.STAT=N`). Each replaces what an earlier call set
    /// for the same stat (or participant's stat); nothing else changes. Refused (`false`,
    /// nothing changed) for a runner with searchers, whose playouts and exact solution were
    /// made from the numbers it started with, and for an index out of range.
    pub fn set_numbers(&mut self, defaults: &[(usize, i64)], own: &[(usize, usize, i64)]) -> bool {
        let stats = self.engine.ruleset().stats.len();
        let fits = defaults.iter().all(|(i, _)| *i < stats)
            && own.iter().all(|(who, i, _)| self.setup.stats.get(*who).is_some_and(|s| *i < s.len()));
        if self.engine.search.is_some() || !fits {
            return false;
        }
        if !defaults.is_empty() && self.setup.defaults.len() != stats {
            self.setup.defaults.resize(stats, None);
        }
        for (i, v) in defaults {
            self.setup.defaults[*i] = Some(*v);
        }
        for (who, i, v) in own {
            self.setup.stats[*who][*i] = Some(*v);
        }
        true
    }

    /// Plays one encounter; `seed` overrides the scenario's. Every event goes to the sink as it
    /// happens, so after an error the sink holds everything up to it.
    pub fn play(&mut self, seed: Option<u64>) -> Result<(), RunError> {
        // A rule that failed outside any rule's effects is placed at the rule under way.
        self.play_once(seed).map_err(|e| e.at(self.engine.rule))
    }

    fn play_once(&mut self, seed: Option<u64>) -> Result<(), RunError> {
        self.begin(seed)?;
        self.finish()
    }

    /// Begins an encounter (`seed` overrides the scenario's): set up, and played up to its
    /// first round. An encounter under way is dropped.
    pub fn begin(&mut self, seed: Option<u64>) -> Result<(), RunError> {
        let (e, s) = (&mut self.engine, self.scenario);
        self.under_way = false;
        e.reset(&self.setup, seed.unwrap_or(s.seed))?;
        e.begin()?;
        self.under_way = true;
        Ok(())
    }

    /// Plays the next round of the encounter under way. Returns whether it played one: not
    /// once the encounter has ended (someone won, or the scenario's rounds are played), nor
    /// when none is under way. The encounter stays under way until `finish`.
    pub fn play_round(&mut self) -> Result<bool, RunError> {
        if !self.under_way {
            return Ok(false);
        }
        // A failed round leaves nothing to play on from.
        self.under_way = false;
        let played = self.engine.next_round(self.scenario.rounds)?;
        self.under_way = true;
        Ok(played)
    }

    /// Plays the encounter under way to its end, and what the scenario has follow it
    /// (downtime, a rest). Does nothing when none is under way.
    pub fn finish(&mut self) -> Result<(), RunError> {
        if !self.under_way {
            return Ok(());
        }
        self.under_way = false;
        let (e, s) = (&mut self.engine, self.scenario);
        while e.next_round(s.rounds)? {}
        let reason = e.end(self.setup.outro)?;
        let ((state, sides, piles), objects) = (e.final_state(), e.final_objects());
        e.emit(Event::EncounterEnd { reason, state, sides, piles, objects });
        e.clock.ended = None;
        if let Some(after) = &s.after {
            let slept = if after.downtime_hours > 0 {
                Some(e.downtime(after.downtime_hours, after.interrupted_hour)?)
            } else {
                None
            };
            if let Some(rest) = self.setup.rest {
                e.rest(rest, slept)?;
            }
            if after.downtime_hours > 0 || after.rest.is_some() {
                let ((state, sides, piles), objects) = (e.final_state(), e.final_objects());
                e.emit(Event::EncounterEnd { reason: trace::AFTER_DOWNTIME.into(), state, sides, piles, objects });
            }
        }
        Ok(())
    }

    /// The round the encounter under way has reached: 0 before its first.
    pub fn round(&self) -> u32 {
        self.engine.clock.round
    }

    /// Becomes a copy of `other` as it stands between two rounds, keeping its own sink: the
    /// encounter under way there (if any) is under way here, and plays on into this sink
    /// exactly as it would there. Both must play the same ruleset and the same scenario (the
    /// same values in memory, not equal ones); if not, nothing is copied and this returns false.
    /// Copied into the allocations this runner has: once it has held as large a state, a copy
    /// allocates nothing.
    #[must_use]
    pub fn copy_from<T: Sink>(&mut self, other: &Runner<'a, T>) -> bool {
        if !std::ptr::eq(self.engine.ruleset(), other.engine.ruleset()) || !std::ptr::eq(self.scenario, other.scenario)
        {
            return false;
        }
        self.engine.copy_from(&other.engine);
        self.under_way = other.under_way;
        true
    }

    /// The names events carry, shared by every event of this runner (for sinks that index).
    pub(crate) fn names(&self) -> &names::Names {
        &self.engine.names
    }

    pub fn sink(&self) -> &S {
        &self.engine.out.sink
    }

    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.engine.out.sink
    }

    pub fn into_sink(self) -> S {
        self.engine.out.sink
    }
}

/// Plays the scenario under the ruleset into `sink`. `seed` overrides the scenario's.
pub fn run_into<S: Sink>(r: &Ruleset, s: &scenario::Scenario, seed: Option<u64>, sink: S) -> Result<S, RunError> {
    let mut runner = Runner::new(r, s, sink)?;
    runner.play(seed)?;
    Ok(runner.into_sink())
}

/// Plays the scenario under the ruleset and returns every event. `seed` overrides the
/// scenario's.
pub fn run(r: &Ruleset, s: &scenario::Scenario, seed: Option<u64>) -> Result<Vec<Record>, RunError> {
    run_into(r, s, seed, Vec::new())
}
