//! Policies answer a `choose` one step ahead (issue 43, item 7; docs/scenario.md, "How outcomes
//! are scored"), and `tempo sim` notes each action a policy cannot score. The rulesets and
//! scenarios are in tests/choose/.

use crate::run::play;
use tempo::check::compile_path;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::sim::{self as simulation, summary, Batch};

fn ruleset(name: &str) -> Ruleset {
    let c = compile_path(std::path::Path::new(&format!("tests/choose/{name}")));
    assert!(!c.has_errors(), "{name}: {:?}", c.diagnostics);
    c.ruleset.expect("compiles")
}

fn scenario_file(name: &str) -> Scenario {
    let text = std::fs::read_to_string(format!("tests/choose/{name}")).expect("scenario reads");
    scenario::parse(&text).expect("scenario parses")
}

fn source(name: &str) -> String {
    std::fs::read_to_string(format!("tests/choose/{name}")).expect("ruleset reads")
}

/// The share of `outcome` in 400 runs of the scenario.
fn share(rules: &str, scenario: &str, outcome: &str) -> f64 {
    let (r, s) = (ruleset(rules), scenario_file(scenario));
    let layout = simulation::layout(&r, &s).expect("the scenario fits");
    let batch = Batch { seed: s.seed, runs: 0..400 };
    let totals = simulation::simulate(&r, &s, &layout, &batch, Some(1), &|_| {}).expect("plays");
    let summary = summary::summarise(rules, s.seed, &layout, &totals);
    summary.outcomes.iter().find(|o| o.outcome == outcome).map_or(0.0, |o| o.count as f64 / summary.completed as f64)
}

/// Ash's answer to "How many actions this turn?" in round 1 against Bo with this parry.
fn actions_against(parry: i64) -> String {
    let scenario = format!(
        r#"(seed: 2, rounds: 1, participants: [
  (name: "Ash", side: "a", controller: Policy(Greedy)),
  (name: "Bo", side: "b", stats: {{"parry": {parry}}}, controller: Policy(Passive)),
])"#
    );
    let trace = play(&source("multi_action.rules"), &scenario).expect("runs");
    let line = trace.lines().find(|l| l.contains("Ash chooses")).unwrap_or_else(|| panic!("no choice\n{trace}"));
    line.trim().to_string()
}

// 1d10 against the parry, -2 for two actions, -4 for three: against parry 6 one action hits
// 50% (0.5 hits), two 30% each (0.6), three 10% each (0.3): two. Against parry 9 only one
// action can hit at all; against parry 2 three at 50% (1.5) beat two at 70% (1.4).
#[test]
fn the_number_of_actions_is_weighed_against_the_penalty() {
    assert_eq!(actions_against(6), "Ash chooses two (How many actions this turn?).");
    assert_eq!(actions_against(9), "Ash chooses one (How many actions this turn?).");
    assert_eq!(actions_against(2), "Ash chooses three (How many actions this turn?).");
}

// Always taking three actions at -4 (what scoring the fullest pool did) left two thirds of
// these fights at the round limit.
#[test]
fn multi_action_fights_no_longer_stall() {
    let stalled = share("multi_action.rules", "multi_action-duel.ron", "round limit");
    assert!(stalled < 0.2, "{stalled}");
}

// A warjack strikes once a turn, so focus past the first is wasted: the warcaster gives each
// warjack one, never all three to the first.
#[test]
fn the_warcaster_spreads_its_focus() {
    let trace = play(&source("warcaster.rules"), &source("warcaster-battle.ron")).expect("runs");
    let choices: Vec<&str> = trace.lines().filter(|l| l.contains("Caster chooses")).collect();
    assert!(!choices.is_empty(), "{trace}");
    assert!(choices.iter().all(|l| l.contains("chooses one")), "{choices:?}");
    assert!(trace.contains("Lancer: charge 0 -> 1") && trace.contains("Charger: charge 0 -> 1"), "{trace}");
    let won = share("warcaster.rules", "warcaster-battle.ron", "cygnar left standing");
    assert!(won > 0.6, "{won}");
}

/// The hexer's answer in round 1 when its script names this action (its loadout: that action
/// and a strike, so what it does next in the turn is strike).
fn hexer_answer(action: &str) -> String {
    let scenario = format!(
        r#"(seed: 5, rounds: 1, participants: [
  (name: "Hexer", side: "a", actions: ["{action}", "strike"],
   controller: Script(steps: [Act(round: 1, action: "{action}", target: "Brute")], fallback: Passive)),
  (name: "Brute", side: "b", actions: ["strike", "riposte"], controller: Policy(Passive)),
])"#
    );
    let trace = play(&source("hexes.rules"), &scenario).expect("runs");
    let line = trace.lines().find(|l| l.contains("Hexer chooses")).unwrap_or_else(|| panic!("no choice\n{trace}"));
    line.trim().to_string()
}

// Neither condition is marked positive or negative. Rooting a brute that never needs to move
// does nothing; silencing it stops its ripostes. Soaking it is -4 to a swim it never makes;
// exposing it is +3 to the hexer's strikes.
#[test]
fn the_condition_that_matters_is_given() {
    assert_eq!(hexer_answer("hex"), "Hexer chooses silence (Which hex?).");
    assert_eq!(hexer_answer("curse"), "Hexer chooses expose (Which curse?).");
}

// Smash's damage goes through `emit hit(3)` and a trigger: noted, once. Bash reads the amount
// its own emit leaves, which the scorer follows: not noted, and Greedy bashes.
#[test]
fn an_action_greedy_cannot_score_is_noted_once() {
    let r = ruleset("smash.rules");
    let s = scenario::parse(
        r#"(seed: 1, rounds: 3, participants: [
  (name: "A", side: "a", controller: Policy(Greedy)),
  (name: "B", side: "b", controller: Policy(Greedy)),
  (name: "C", side: "b", controller: Policy(Aggressive)),
])"#,
    )
    .expect("parses");
    let notes = tempo::run::unscored(&r, &s);
    assert_eq!(
        notes,
        ["Greedy cannot score Smash (its effect goes through emit hit(...)): it scores it 0 and never takes it for its \
          effect"]
    );
    let duel = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Greedy)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let trace = play(&source("smash.rules"), duel).expect("runs");
    assert!(trace.contains("A uses bash (action) at B"), "{trace}");
}

// Without a Greedy player nothing is noted.
#[test]
fn nothing_is_noted_without_a_policy_that_scores_actions() {
    let r = ruleset("smash.rules");
    let s = scenario::parse(
        r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Aggressive)),
  (name: "B", side: "b", controller: Policy(Random)),
])"#,
    )
    .expect("parses");
    assert!(tempo::run::unscored(&r, &s).is_empty());
}

// Issue 44: an action that only moves items (a card thrown away by its number) scores 0 for
// Greedy, and the note says so.
#[test]
fn an_action_that_only_moves_items_is_noted() {
    let text = "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\npool hp { max 10 }\n\
                items cards { two = 2, nine = 9 }\npile hand of cards { starts full }\npile discard of cards\n\
                action hit { target enemy; resolve { target.hp -= highest(hand) } }\n\
                action toss \"Toss\" { resolve { move lowest from hand to discard } }\n";
    let r = tempo::check::compile_str("t.rules", text).ruleset.expect("compiles");
    let s = scenario::parse(
        r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Greedy)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#,
    )
    .expect("parses");
    assert_eq!(
        tempo::run::unscored(&r, &s),
        ["Greedy cannot score Toss (its effect only moves items, from hand): it scores it 0 and never takes it for \
          its effect"]
    );
}
