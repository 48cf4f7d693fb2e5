//! Run: plays one encounter of a compiled ruleset, headless, with seeded dice, and writes what
//! happened as a trace.
//!
//! Invariants: the runner knows rounds, phases, turns, pools, costs, triggers and choices only
//! as the IR describes them; state is flat vectors indexed by participant × pool / stat /
//! condition; the same ruleset, scenario and seed give the same trace (one ChaCha8 stream, no
//! hash-map iteration); a rule that would loop forever is stopped by a step budget.

mod act;
mod control;
mod effects;
mod engine;
pub mod scenario;
mod state;
pub mod trace;

use crate::ir::Ruleset;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use state::{Ctx, Engine};
use trace::{Event, Name, Record};

/// Why a run could not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The scenario names things the ruleset does not have (every problem listed).
    Scenario(Vec<String>),
    /// Triggers or thresholds kept firing each other; the names of the rules in the cycle.
    Cycle(Vec<String>),
    /// A rule could not be evaluated (a value overflowed, a `target` that is not there).
    Rule(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(problems) => {
                write!(f, "the scenario does not fit the ruleset:\n  {}", problems.join("\n  "))
            }
            RunError::Cycle(names) => write!(
                f,
                "the encounter was stopped after {} steps: these rules keep triggering each other: {}",
                state::STEP_BUDGET,
                names.join(" -> ")
            ),
            RunError::Rule(message) => write!(f, "a rule could not be applied: {message}"),
        }
    }
}

/// Plays the scenario under the ruleset. `seed` overrides the scenario's.
pub fn run(r: &Ruleset, s: &scenario::Scenario, seed: Option<u64>) -> Result<Vec<Record>, RunError> {
    let resolved = scenario::resolve(s, r).map_err(RunError::Scenario)?;
    let n = resolved.names.len();
    let mut e = Engine {
        r,
        n,
        names: resolved.names.iter().map(|n| Name::from(n.as_str())).collect(),
        pool_names: r.pools.iter().map(|x| Name::from(x.name.as_str())).collect(),
        action_names: r.actions.iter().map(|x| Name::from(x.name.as_str())).collect(),
        action_moves: r.actions.iter().map(|x| effects::moves(&x.effects)).collect(),
        condition_names: r.conditions.iter().map(|x| Name::from(x.name.as_str())).collect(),
        event_names: r.events.iter().map(|x| Name::from(x.name.as_str())).collect(),
        trigger_names: r.triggers.iter().map(|x| Name::from(x.name.as_str())).collect(),
        interned: Vec::new(),
        priority_cache: Vec::new(),
        priority_active: None,
        priority_of: Vec::new(),
        priority_spares: Vec::new(),
        settling: Vec::new(),
        held_back: Vec::new(),
        buf_offers: Vec::new(),
        buf_affordable: Vec::new(),
        buf_chain: Vec::new(),
        buf_nearest: Vec::new(),
        buf_decisions: Vec::new(),
        buf_in_order: Vec::new(),
        buf_seen: Vec::new(),
        buf_queue: Vec::new(),
        buf_members: Vec::new(),
        phase_names: r.phases.iter().map(|x| Name::from(x.name.as_str())).collect(),
        sides: resolved.sides.clone(),
        players: resolved.players.clone(),
        positions: resolved.positions.clone(),
        stats: vec![0; n * r.stats.len()],
        pools: vec![0; n * r.pools.len()],
        conds: vec![None; n * r.conditions.len()],
        initiative: vec![0; n],
        order: Vec::new(),
        present: vec![true; n],
        round: 0,
        active: None,
        final_turn: false,
        surprise_round: false,
        surprised: resolved.sides.iter().map(|side| resolved.surprise.is_some_and(|s| s != *side)).collect(),
        round_log: vec![Vec::new(); n],
        encounter_log: vec![Vec::new(); n],
        gained: Vec::new(),
        gained_total: Vec::new(),
        turn_seq: 0,
        phase_seq: 0,
        trigger_seq: 0,
        rng: ChaCha8Rng::seed_from_u64(seed.unwrap_or(s.seed)),
        records: Vec::new(),
        controls: resolved.controllers.iter().cloned().map(|c| control::ControlState::new(c, r)).collect(),
        gm: s.gm.clone(),
        steps: 0,
        recent: std::collections::VecDeque::with_capacity(64),
        pending: Vec::new(),
        ended: None,
        turn_over: false,
        ended_at_start: vec![false; n],
        last_check: vec![(0, false); n],
        holding: vec![false; n],
        following: vec![false; n],
        cancelled: false,
        chain_depth: 0,
        reaction_depth: 0,
        allowed: None,
        phase_at: 0,
        turn_phase: false,
        dry: false,
        last_order: None,
        ongoing: Vec::new(),
        deferred: Vec::new(),
        readied: Vec::new(),
        in_round: false,
        ordered_values: Vec::new(),
        table_rounds: false,
    };
    // Stats: the scenario's values, else the ruleset's defaults (which may read other stats).
    for who in 0..n {
        for (i, stat) in r.stats.iter().enumerate() {
            let v = match resolved.stats[who][i] {
                Some(v) => v,
                None => e.eval(&stat.default, &Ctx { owner: who, ..Ctx::default() })?,
            };
            e.stats[who * r.stats.len() + i] = v;
        }
    }
    // Pools start at their `start` (or the scenario's value); nothing is traced before the start.
    for who in 0..n {
        for (p, pool) in r.pools.iter().enumerate() {
            let v = match resolved.pools[who][p] {
                Some(v) => v,
                None => e.eval(&pool.start, &Ctx { owner: who, ..Ctx::default() })?,
            };
            e.pools[who * r.pools.len() + p] = v;
        }
    }
    let surprise_condition = r.surprise.as_ref().and_then(|s| s.applies);
    for who in 0..n {
        let c = Ctx { owner: who, ..Ctx::default() };
        for (cond, source) in resolved.conditions[who].clone() {
            e.apply(who, cond, 1, None, (None, source), &c)?;
        }
        if let (true, Some(cond)) = (e.surprised[who], surprise_condition) {
            e.apply(who, cond, 1, None, (None, None), &c)?;
        }
    }
    e.records.clear();
    let reason = e.encounter(s.rounds, s.outro.as_ref())?;
    let state = e.final_state();
    e.emit(Event::EncounterEnd { reason, state });
    e.ended = None;
    if let Some(after) = &s.after {
        let slept = if after.downtime_hours > 0 {
            Some(e.downtime(after.downtime_hours, after.interrupted_hour)?)
        } else {
            None
        };
        if let Some(rest) = &after.rest {
            e.rest(rest, slept)?;
        }
        if after.downtime_hours > 0 || after.rest.is_some() {
            let state = e.final_state();
            e.emit(Event::EncounterEnd { reason: "after downtime".into(), state });
        }
    }
    Ok(e.records)
}
