//! Allocation in the runner's steady state, counted by a global allocator: the extra
//! allocations of a longer encounter against its extra trace events. The scenario is a long
//! Frontiers duel driven by the HoldBack and Aggressive policies (attacks, checks, reactions,
//! pool steps, limits); other paths (the Random policy, choices, scripts) are not covered here.

use crate::counting::{allocations, ONE_AT_A_TIME};

fn duel_scenario(rounds: u32) -> tempo::run::scenario::Scenario {
    let text = format!(
        r#"(seed: 5, rounds: {rounds}, participants: [
  (name: "A", side: "a", stats: {{"hp_max": 1000000, "damage": 1}}, position: 0, controller: Policy(HoldBack(pool: "ap", keep: 1, spend_on_reactions: true))),
  (name: "B", side: "b", stats: {{"hp_max": 1000000, "damage": 1}}, position: 1, controller: Policy(Aggressive)),
])"#
    );
    tempo::run::scenario::parse(&text).unwrap()
}

/// (allocations, trace events) of a duel of `rounds` rounds where nobody falls.
fn duel(ruleset: &tempo::ir::Ruleset, rounds: u32) -> (u64, u64) {
    let scenario = duel_scenario(rounds);
    let before = allocations();
    let records = tempo::run::run(ruleset, &scenario, None).unwrap();
    let after = allocations();
    (after - before, records.len() as u64)
}

#[test]
fn steady_state_allocations_per_event_are_measured() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let c = tempo::check::compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let ruleset = c.ruleset.unwrap();
    let (a1, e1) = duel(&ruleset, 200);
    let (a2, e2) = duel(&ruleset, 400);
    let per_event = (a2 - a1) as f64 / (e2 - e1) as f64;
    println!(
        "steady state: {:.3} allocations per event ({} events more, {} allocations more)",
        per_event,
        e2 - e1,
        a2 - a1
    );
    assert!(e2 > e1 + 1000, "the duel must go on for the whole run");
    // Nothing per event: the only extra allocations of a longer run are the trace's own vector
    // growing (it doubles, so a few at most). Measured 1 on 2026-11-21.
    assert!(a2 - a1 <= 4, "{} allocations for {} more events ({per_event:.3} per event)", a2 - a1, e2 - e1);
}

/// (allocations, events) of the same duel replayed by a runner that has played it once, into
/// a sink that only counts.
fn replay(ruleset: &tempo::ir::Ruleset, rounds: u32) -> (u64, u64) {
    replayed(ruleset, &duel_scenario(rounds))
}

/// (allocations, events) of `scenario` replayed by a runner that has played it once, into a
/// sink that only counts.
fn replayed(ruleset: &tempo::ir::Ruleset, scenario: &tempo::run::scenario::Scenario) -> (u64, u64) {
    let mut runner = tempo::run::Runner::new(ruleset, scenario, tempo::run::sink::Count::default()).unwrap();
    runner.play(None).unwrap();
    *runner.sink_mut() = tempo::run::sink::Count::default();
    let before = allocations();
    runner.play(None).unwrap();
    let after = allocations();
    (after - before, runner.sink().events)
}

#[test]
fn a_reused_runner_allocates_the_same_whatever_the_length() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let c = tempo::check::compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let ruleset = c.ruleset.unwrap();
    let (a1, e1) = replay(&ruleset, 200);
    let (a2, e2) = replay(&ruleset, 400);
    println!("replayed: {a1} allocations for {e1} events, {a2} for {e2}");
    assert!(e2 > e1 + 1000, "the duel must go on for the whole run");
    // Reset keeps every buffer, and no trace is kept: what is left is per encounter (the final
    // state's maps), not per round or per event.
    assert_eq!(a1, a2, "a longer encounter allocates more when replayed");
    assert!(a1 <= 64, "{a1} allocations to replay an encounter");
}

/// Allocations of a simulation's counter playing `runs` whole encounters after a warm-up.
fn simulated(ruleset: &tempo::ir::Ruleset, scenario: &tempo::run::scenario::Scenario, runs: u64) -> u64 {
    let layout = tempo::sim::layout(ruleset, scenario).unwrap();
    let mut counter = tempo::sim::Counter::new(ruleset, scenario, &layout).unwrap();
    let mut totals = tempo::sim::totals::Totals::new(&layout);
    counter.play_into(3, 0..50, &mut totals);
    let before = allocations();
    counter.play_into(3, 50..50 + runs, &mut totals);
    allocations() - before
}

#[test]
fn a_simulated_encounter_allocates_a_bounded_number_of_times() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let c = tempo::check::compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let ruleset = c.ruleset.unwrap();
    let text = std::fs::read_to_string("examples/frontiers-duel.ron").unwrap();
    let scenario = tempo::run::scenario::parse(&text).unwrap();
    let (a1, a2) = (simulated(&ruleset, &scenario, 200), simulated(&ruleset, &scenario, 400));
    let per_run = a2.saturating_sub(a1) as f64 / 200.0;
    println!("simulated: {a1} allocations for 200 encounters, {a2} for 400 ({per_run:.1} per encounter)");
    // What a run allocates is per encounter, not per event: the end-of-encounter state the last
    // event carries (maps of names), reasons written for refusals, freed at once; nothing is
    // kept, so memory stays flat however many runs (docs/performance.md measures it). Measured
    // 2026-11-23: 68.7 per encounter of this duel, the same for the first 200 as the next 200.
    let (a1, a2) = (a1 as f64, a2 as f64);
    assert!((a2 - 2.0 * a1).abs() <= 0.1 * a1, "400 encounters do not allocate twice what 200 do: {a1} and {a2}");
    assert!(per_run <= 100.0, "{per_run} allocations per simulated encounter");
}

/// The Frontiers duel with Aria under `Search(playouts: N)` against an aggressive Brute. Her
/// rollout is `Aggressive`: `Greedy`, the default, builds a dice distribution (a vector) for
/// each check it weighs, which is the rollout policy's cost, not the playout's (measured: 766
/// allocations at 200 playouts, 790 at 400, for the same encounter).
fn searched_duel(playouts: u32) -> tempo::run::scenario::Scenario {
    let text = format!(
        r#"(seed: 7, rounds: 6, participants: [
  (name: "Aria", side: "heroes", stats: {{"finesse": 14, "finesse_mod": 2, "initiative_base": 6, "attack_bonus": 3, "damage": 4}},
   position: 0, controller: Script(steps: [Adjust(by: 2)], fallback: Search(playouts: {playouts}, rollout: Aggressive))),
  (name: "Brute", side: "monsters", stats: {{"initiative_base": 5, "hp_max": 14, "attack_bonus": 1, "damage": 5}},
   position: 5, controller: Policy(Aggressive)),
])"#
    );
    tempo::run::scenario::parse(&text).unwrap()
}

/// A `Search` playout allocates nothing once warm: the copy of the round's start, the replay
/// and the tree reuse what earlier playouts left. Twice the playouts, the same encounter (it is
/// won the same way), the same allocations: what a decision allocates is per decision (its
/// candidates), never per playout. Measured 38 and 38 on 2026-11-27 (before the ledger's uses,
/// an encounter's end reason, a condition's implications and a two-pool payment stopped
/// allocating: 4,592 and 8,261).
#[test]
fn search_playouts_allocate_nothing_once_warm() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let c = tempo::check::compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let ruleset = c.ruleset.unwrap();
    let (a1, e1) = replayed(&ruleset, &searched_duel(200));
    let (a2, e2) = replayed(&ruleset, &searched_duel(400));
    println!("searched duel: {a1} allocations at 200 playouts a decision, {a2} at 400 ({e1} and {e2} events)");
    assert_eq!(e1, e2, "the two budgets must play the same encounter for the comparison to hold");
    assert!(a1 > 0, "a decision allocates its candidates: a count of 0 would mean nothing was counted");
    assert!(a2 <= a1, "{} more allocations for 200 more playouts a decision", a2 - a1);
}

/// Issue 32: a named roll keeps its faces and counts in buffers the runner reuses, so a longer
/// encounter of named rolls, replayed into a sink that keeps no records (a playout's), allocates
/// no more than a shorter one.
#[test]
fn named_rolls_allocate_nothing_per_roll_when_no_record_is_kept() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let rules = "ruleset rolls
pool hp { max 1000000 }
pool hits { max none }
die boost { faces: -, success, success advantage }
initiative { value 0 }
round { phase act: turns }
action shoot {
  target enemy
  resolve {
    roll attack = 6d6 + dice(2, boost)
    hits = count(attack >= 5) + count(attack, success)
    target.hp -= count(attack == 1) + hits
  }
}
";
    let c = tempo::check::compile_str("rolls.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let ruleset = c.ruleset.unwrap();
    let played = |rounds: u32| {
        let scenario = tempo::run::scenario::parse(&format!(
            r#"(seed: 5, rounds: {rounds}, participants: [
  (name: "A", side: "a", controller: Policy(Aggressive)),
  (name: "B", side: "b", controller: Policy(Aggressive)),
])"#
        ))
        .unwrap();
        let mut runner = tempo::run::Runner::new(&ruleset, &scenario, ()).unwrap();
        runner.play(None).unwrap();
        let before = allocations();
        runner.play(None).unwrap();
        allocations() - before
    };
    let (a1, a2) = (played(100), played(200));
    println!("named rolls replayed: {a1} allocations for 100 rounds, {a2} for 200");
    assert_eq!(a1, a2, "a longer encounter of named rolls allocates more");
}
