//! The runner, mechanism by mechanism, where a `tempo test` file cannot say it. Most of the
//! runner's encounters are test files in tests/runner/ (run by tests/runner.rs); what stays here
//! calls the API (a sink, the IR), reads compile diagnostics or the words of an error, counts
//! lines or compares parts of a trace, or holds a property over many seeds. Rulesets shared with
//! the test files are read from tests/runner/rules/.

use tempo::check::compile_str;
use tempo::diagnostics::Code;
use tempo::run::{run, scenario, sink, trace, RunError};

/// The text trace of `rules` on a scenario (tests/picks.rs plays with it too).
pub(crate) fn play(rules: &str, scenario_text: &str) -> Result<String, RunError> {
    let c = compile_str("t.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let ruleset = c.ruleset.expect("compiles");
    let s = scenario::parse(scenario_text).expect("scenario parses");
    run(&ruleset, &s, None).map(|records| trace::to_text(&records))
}

/// The codes of the diagnostics a ruleset gets.
pub(crate) fn codes_of(rules: &str) -> Vec<Code> {
    compile_str("t.rules", rules).diagnostics.iter().map(|d| d.code).collect()
}

/// Each expected line must appear, in this order (other lines may come between).
#[track_caller]
fn assert_in_order(text: &str, expected: &[&str]) {
    let mut from = 0;
    for want in expected {
        match text[from..].find(want) {
            Some(at) => from += at + want.len(),
            None => panic!("`{want}` not found (in order) in trace:\n{text}"),
        }
    }
}

const DUEL: &str = include_str!("runner/rules/duel.rules");

fn two(a: &str, b: &str, rounds: u32) -> String {
    format!(
        r#"(seed: 1, rounds: {rounds}, participants: [
  (name: "A", side: "a", controller: {a}),
  (name: "B", side: "b", controller: {b}),
])"#
    )
}

// Engine: triggers that feed each other forever are stopped, naming the cycle.
#[test]
fn a_trigger_cycle_is_stopped_and_named() {
    let rules = r#"ruleset loop
initiative { value 0 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
event ping
event pong
action start { cost 1 ap; resolve { emit ping } }
trigger bounce { on ping; resolve { emit pong } }
trigger back { on pong; resolve { emit ping } }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "start")], fallback: Passive)"#;
    match play(rules, &two(a, "Policy(Passive)", 1)) {
        Err(RunError::Cycle(names)) => {
            assert!(names.contains(&"bounce".to_string()) && names.contains(&"back".to_string()), "{names:?}")
        }
        other => panic!("expected a cycle, got {other:?}"),
    }
    // A trigger that answers its own event, one at a time: stopped too, not cut off silently.
    let rules = "ruleset echo\ninitiative { value 0 }\nround { phase act: turns }\npool ap { max 1; refresh at turn_start }\n\
                 event ping\naction start { cost 1 ap; resolve { emit ping } }\ntrigger again { on ping by self; resolve { emit ping } }\n";
    match play(rules, &two(a, "Policy(Passive)", 1)) {
        Err(RunError::Cycle(names)) => assert_eq!(names, vec!["again".to_string()]),
        other => panic!("expected a cycle, got {other:?}"),
    }
}

// Cheat sheet, 001: +1 FP from a successful reaction, once per round.
#[test]
fn a_gain_on_an_event_is_capped_per_round() {
    let rules = r#"ruleset gains
initiative { value 0 }
round { phase act: turns }
pool ap { max 5; refresh at turn_start }
pool fp { max none; start 0; gain 1 on poke by self, at most 1 per round }
action poke { cost 1 ap }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "poke"), Act(round: 1, action: "poke"), Act(round: 2, action: "poke")], fallback: Passive)"#;
    let t = play(rules, &two(a, "Policy(Passive)", 2)).unwrap();
    assert_in_order(&t, &["A: fp 0 -> 1 (gain on poke)", "== Round 2 ==", "A: fp 1 -> 2 (gain on poke)"]);
    assert_eq!(t.matches("(gain on poke)").count(), 2, "{t}");
}

// Frontiers, 000 "Interrupted Downtime": an interrupted hour recovers nothing and restarts the count.
#[test]
fn interrupted_downtime_recovers_nothing_that_hour() {
    let rules = r#"ruleset rest
initiative { value 0 }
round { phase act: turns }
pool hp { max 10 }
downtime every 2 hours { hp += 5 }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", pools: {"hp": 0}, controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
], after: (downtime_hours: 5, interrupted_hour: 2))"#;
    let t = play(rules, s).unwrap();
    assert_in_order(&t, &["Downtime, hour 4.", "A: hp 0 -> 5 (downtime)", "Downtime, hour 5."]);
    let before = &t[..t.find("Downtime, hour 4.").unwrap()];
    assert!(!before.contains("A: hp 0 -> 5"), "hour 2 was interrupted:\n{t}");
}

// Engine: same ruleset, scenario and seed give the same trace; a compiled `.ron` IR runs
// exactly like its source; another seed gives other dice.
#[test]
fn runs_are_deterministic_and_ir_runs_like_source() {
    let rules = std::fs::read_to_string("rulesets/frontiers.rules").unwrap();
    let ir = compile_str("frontiers.rules", &rules).ruleset.unwrap();
    let from_ron = tempo::ir::Ruleset::from_ron(&ir.to_ron().unwrap()).unwrap();
    let s = scenario::parse(&std::fs::read_to_string("examples/frontiers-duel.ron").unwrap()).unwrap();
    let a = sink::to_jsonl(&run(&ir, &s, None).unwrap(), &ir.files);
    let b = sink::to_jsonl(&run(&ir, &s, None).unwrap(), &ir.files);
    let c = sink::to_jsonl(&run(&from_ron, &s, None).unwrap(), &from_ron.files);
    assert_eq!(a, b);
    assert_eq!(a, c);
    let other = sink::to_jsonl(&run(&ir, &s, Some(12345)).unwrap(), &ir.files);
    assert_ne!(a, other, "the seed changes the dice");
}

// Contract: scenario names are checked against the ruleset, every problem listed.
#[test]
fn a_scenario_that_does_not_fit_is_refused_with_every_problem() {
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"sped": 1}, controller: Script(steps: [Act(round: 1, action: "strik")], fallback: Passive)),
])"#;
    match play(DUEL, s) {
        Err(RunError::Scenario(problems)) => {
            assert_eq!(problems.len(), 2, "{problems:?}");
            assert!(problems[0].to_string().contains("did you mean `speed`"), "{problems:?}");
            assert!(problems[1].to_string().contains("did you mean `strike`"), "{problems:?}");
        }
        other => panic!("expected scenario problems, got {other:?}"),
    }
}

// Controllers: a policy does not repeat an untargeted action in one turn.
#[test]
fn a_policy_takes_an_untargeted_action_once_per_turn() {
    let rules = r#"ruleset wave
initiative { value 0 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
action work { cost 1 ap }
free action wave { }
"#;
    let t = play(rules, &two("Policy(Aggressive)", "Policy(Passive)", 1)).unwrap();
    assert_eq!(t.matches("A uses wave").count(), 1, "{t}");
    assert_eq!(t.matches("A uses work").count(), 1, "{t}");
}

// Frontiers, 000, the Zone Movement variant: a scenario position outside the zones is refused,
// saying which (the moves themselves: tests/runner/movement-is-traced-and-zone-positions-are-checked).
#[test]
fn a_position_outside_the_zones_is_refused() {
    let zoned = "ruleset zoned\ninitiative { value 0 }\nround { phase act: turns }\nspace zones: engaged, near, far\n";
    let s = two("Policy(Passive)", "Policy(Passive)", 1)
        .replace(r#"(name: "B", side: "b","#, r#"(name: "B", side: "b", position: 5,"#);
    match play(zoned, &s) {
        Err(RunError::Scenario(problems)) => {
            assert!(problems[0].to_string().contains("position 5 is not a zone"), "{problems:?}")
        }
        other => panic!("expected a scenario problem, got {other:?}"),
    }
}

/// Takes `limit` events, then stops (as a writer whose reader went away does).
struct Closes {
    taken: usize,
    limit: usize,
}

impl tempo::run::Sink for Closes {
    fn record(&mut self, _: trace::Record) {
        self.taken += 1;
    }

    fn stopped(&self) -> bool {
        self.taken >= self.limit
    }
}

// Streaming: a sink that stops taking events abandons the encounter at the next round with
// `RunError::Output`, instead of playing all of it into nothing.
#[test]
fn a_stopped_sink_abandons_the_encounter() {
    let ruleset = compile_str("t.rules", DUEL).ruleset.unwrap();
    let s = scenario::parse(
        r#"(seed: 1, rounds: 500, participants: [
  (name: "A", side: "a", stats: {"hp_max": 100000}, controller: Policy(Aggressive)),
  (name: "B", side: "b", stats: {"hp_max": 100000}, controller: Policy(Aggressive)),
])"#,
    )
    .unwrap();
    let whole = run(&ruleset, &s, None).unwrap().len();
    assert!(whole > 1000, "the full encounter is long ({whole} events)");
    let mut sink = Closes { taken: 0, limit: 20 };
    let result = tempo::run::run_into(&ruleset, &s, None, &mut sink);
    assert_eq!(result.err(), Some(RunError::Output));
    // The round under way when it stopped is finished; none after it is started.
    assert!(sink.taken < 60, "{} events after the sink stopped at 20", sink.taken);
}

// Policies (docs/scenario.md, "How outcomes are scored"). Wounds and Fatigue as in Frontiers:
// past the maximum takes you out, so each is scored by how close it is to that.
const TRACKS: &str = include_str!("runner/rules/tracks.rules");

// Random still answers from the run's seeded generator: the same seed, the same answers.
#[test]
fn a_random_chooser_is_seeded() {
    let s = r#"(seed: 5, rounds: 1, participants: [
  (name: "A", side: "a", pools: {"wounds": 1, "fatigue": 1}, controller: Policy(Random)),
  (name: "B", side: "b", controller: Policy(Passive)),
], after: (downtime_hours: 6))"#;
    assert_eq!(play(TRACKS, s).unwrap(), play(TRACKS, s).unwrap());
}

// Choices: an option written empty (`no: { }`) is a deliberate answer, not a no-op to skip; an
// option with effects that would change nothing now is skipped while another would change
// something (docs/scenario.md, "Options that change nothing").
#[test]
fn an_empty_option_is_an_answer_but_a_no_op_option_is_skipped() {
    let rules = r#"ruleset ask
initiative { value 0 }
round { phase act: turns }
pool hp { max 10 }
pool ward { max 3; start 0 }
downtime every 1 hour {
  choose owner "Mend?" { yes: { hp += 1 } no: { } }
  choose owner "Lower the ward?" { lower: { ward -= 1 } raise: { ward += 1 } }
}
"#;
    let s = r#"(seed: SEED, rounds: 1, participants: [
  (name: "A", side: "a", pools: {"hp": 5}, controller: Policy(Random)),
  (name: "B", side: "b", controller: Policy(Passive)),
], after: (downtime_hours: 8))"#;
    let mut answers = String::new();
    for seed in 1..=4 {
        answers += &play(rules, &s.replace("SEED", &seed.to_string())).unwrap();
    }
    assert!(answers.contains("A chooses no (Mend?)."), "{answers}");
    assert!(answers.contains("A chooses yes (Mend?)."), "{answers}");
    // At 0 the ward cannot be lowered: the first hour always raises it.
    for seed in 1..=4 {
        let t = play(rules, &s.replace("SEED", &seed.to_string())).unwrap();
        assert_in_order(&t, &["Downtime, hour 1.", "A chooses raise (Lower the ward?)."]);
    }
}

// Scenario: a `gm_answers` question or option the ruleset does not have is a scenario error, with
// a did-you-mean (the answers given: tests/runner/a-scenario-tells-the-gm-how-to-answer-a-named-question/).
#[test]
fn a_gm_answer_the_ruleset_does_not_have_is_a_scenario_error() {
    let rules = std::fs::read_to_string("rulesets/frontiers.rules").unwrap();
    let s = |answers: &str| {
        format!(
            r#"(seed: 1, rounds: 1, gm_answers: {{{answers}}}, participants: [
  (name: "A", side: "a", stats: {{"initiative_base": 1}}, conditions: ["initiating"], controller: Policy(Passive)),
  (name: "B", side: "b", stats: {{"initiative_base": 9}}, position: 30, controller: Policy(Passive)),
])"#
        )
    };
    let e = play(&rules, &s(r#""Let the initiator act first?": "no""#)).unwrap_err().to_string();
    assert!(e.contains("gm_answers: the ruleset has no GM question `Let the initiator act first?`"), "{e}");
    assert!(e.contains("did you mean `Let the initiator act first in Round 1?`"), "{e}");
    let e = play(&rules, &s(r#""Let the initiator act first in Round 1?": "maybe""#)).unwrap_err().to_string();
    assert!(e.contains("has no option `maybe`"), "{e}");
}

// Choices: a move that would end where it starts (already next to the enemy) changes nothing,
// so it is not taken while the other way would move (docs/scenario.md, "Options that change
// nothing").
#[test]
fn a_move_that_goes_nowhere_is_a_no_op_option() {
    let rules = r#"ruleset roll
initiative { value speed }
round { phase act: turns }
space grid
stat speed = 0
pool ap { max 1; refresh at turn_start }
action roll { resolve { choose owner "Which way?" { toward: { move 3 } away: { move away 3 } } } }
"#;
    let s = |seed: u64, at: i64| {
        format!(
            r#"(seed: {seed}, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 9}}, position: {at}, controller: Script(steps: [Act(round: 1, action: "roll")], fallback: Random)),
  (name: "B", side: "b", position: 10, controller: Policy(Passive)),
])"#
        )
    };
    let mut far = String::new();
    for seed in 1..=6 {
        let t = play(rules, &s(seed, 9)).unwrap();
        assert!(t.contains("A chooses away (Which way?)."), "next to B, only away moves:\n{t}");
        far += &play(rules, &s(seed, 0)).unwrap();
    }
    assert!(far.contains("A chooses toward") && far.contains("A chooses away"), "{far}");
}

// Choices: a draw or a move of items that would move none (the pile holds none of the kind, or
// is empty) changes nothing, so it is not taken while another option would move an item (docs/
// scenario.md, "Options that change nothing"; issue 32, doc gap 1: `lose_a` was taken with no
// `a` in hand).
#[test]
fn a_draw_or_move_of_items_that_moves_none_is_a_no_op_option() {
    let rules = r#"ruleset toss
items cards { a, b }
pile hand of cards { starts full }
pile lost of cards
pile deck of cards
initiative { value 0 }
round { phase act: turns }
action toss {
  resolve {
    choose owner "Lose which?" { lose_a: { move a from hand to lost } lose_b: { move b from hand to lost } }
    choose owner "Refill how?" { draw: { draw 1 from deck to hand } pick: { move random 1 from deck to hand } all: { move all from deck to hand } back: { move all from lost to hand } }
  }
}
"#;
    for policy in ["Random", "Aggressive", "Passive", "Greedy"] {
        for seed in 1..=4 {
            let s = format!(
                r#"(seed: {seed}, rounds: 1, participants: [
  (name: "A", side: "a", piles: {{"hand": ["b"]}}, controller: Script(steps: [Act(round: 1, action: "toss")], fallback: {policy})),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#
            );
            let t = play(rules, &s).unwrap();
            assert_in_order(&t, &["A chooses lose_b (Lose which?).", "A chooses back (Refill how?)."]);
        }
    }
}

/// Issue 14: a critical is read on the die that counts. With inline disadvantage
/// (`min(1d20, 1d20)`) a 20 thrown away is no critical; with advantage (`max`), a 20 kept is one
/// even when the first die rolled was lower.
#[test]
fn criticals_are_read_on_the_die_that_is_kept() {
    let rules = |roll: &str| {
        format!(
            "ruleset crit
initiative {{ value 0 }}
round {{ phase act: turns }}
pool ap {{ max 1; refresh at turn_start }}
pool hp {{ max 1000 }}
action strike {{
  cost 1 ap
  target enemy
  resolve {{ check {roll} vs 2 {{ success {{ target.hp -= 1 }} critical {{ target.hp -= 100 }} }} }}
}}
"
        )
    };
    let scenario = |seed: u64| {
        format!(
            r#"(seed: {seed}, rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Script(steps: [Act(round: 1, action: "strike", target: "B")], fallback: Passive)),
  (name: "B", side: "b", position: 1, controller: Policy(Passive)),
])"#
        )
    };
    // The two rolls and whether the check was a critical, for each seed.
    let throws = |roll: &str, seed: u64| -> (i64, i64, bool) {
        let t = play(&rules(roll), &scenario(seed)).unwrap();
        let rolls: Vec<i64> =
            t.lines().filter_map(|l| l.trim().strip_prefix("A rolls 1d20: ")).map(|n| n.parse().unwrap()).collect();
        assert_eq!(rolls.len(), 2, "{t}");
        (rolls[0], rolls[1], t.contains(", critical."))
    };
    let (mut dropped_twenty, mut kept_late_twenty) = (0, 0);
    for seed in 0..400 {
        let (a, b, critical) = throws("min(1d20, 1d20)", seed);
        assert_eq!(critical, a.min(b) == 20, "disadvantage, seed {seed}: {a} and {b}");
        dropped_twenty += usize::from(a == 20 && b < 20);
        let (a, b, critical) = throws("max(1d20, 1d20)", seed);
        assert_eq!(critical, a.max(b) == 20, "advantage, seed {seed}: {a} and {b}");
        kept_late_twenty += usize::from(a < 20 && b == 20);
    }
    // The seeds meet both cases the old reading got wrong.
    assert!(dropped_twenty > 0 && kept_late_twenty > 0, "{dropped_twenty} {kept_late_twenty}");
}

/// `roll EXPR until different` rolls again among those still tied: with dice it breaks, three
/// participants on 1d1000 coming out in some order, no GM, one roll each (the roll-off that never
/// breaks: tests/runner/a-roll-off-until-different-that-never-breaks-goes-on-to-the-next-tie-break).
#[test]
fn a_roll_off_with_dice_breaks_the_tie() {
    let rules = "ruleset ties
initiative { value 5; ties roll 1d1000 until different, then gm }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
";
    let three = r#"(rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)), (name: "C", side: "c", controller: Policy(Passive)),
])"#;
    let t = play(rules, three).unwrap();
    assert!(!t.contains("GM chooses"), "{t}");
    assert_eq!(t.matches("rolls 1d1000").count(), 3, "{t}");
}

/// `repeat while COND { ... }`: again while COND holds, stopping after a pass that changed
/// nothing (an empty answer ends it) and after `MAX_REPEATS` passes.
#[test]
fn repeat_while_stops_when_its_condition_fails_or_a_pass_changes_nothing() {
    let rules = "ruleset loop
initiative { value 0 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
pool coins { max 100 }
pool gems { max 100 }
action spend {
  cost 1 ap
  resolve {
    repeat while coins > 0 { coins -= 1; gems += 1 }
    repeat while gems > 2 { choose owner \"Sell a gem?\" { keep: { } sell: { gems -= 1 } } }
    repeat while true { coins = 0 }
  }
}
";
    let scenario = r#"(rounds: 1, participants: [
  (name: "A", side: "a", pools: {"coins": 4, "gems": 0},
   controller: Script(steps: [Act(round: 1, action: "spend"), Choose(answer: "sell"), Choose(answer: "keep"), Choose(answer: "sell")], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let t = play(rules, scenario).unwrap();
    // Four passes move every coin; the condition then fails.
    assert_eq!(t.matches("A: coins").count(), 4, "{t}");
    assert_in_order(&t, &["A: coins 1 -> 0", "A: gems 3 -> 4"]);
    // One gem sold, then `keep` changes nothing: the loop ends there, the third answer unused.
    assert_in_order(&t, &["A chooses sell", "A: gems 4 -> 3", "A chooses keep"]);
    assert_eq!(t.matches("A chooses").count(), 2, "{t}");
    // `repeat while true` over a pass that changes nothing ends at once.
    assert!(t.contains("A's turn ends."), "{t}");
}

/// `modify checks with advantage on reaction`: the holder's reactions roll twice, its actions
/// once (the cheat sheet's Total Defense); `by N on NAME` adds only to those actions' checks.
#[test]
fn a_check_modifier_scoped_to_a_kind_reaches_only_that_kinds_checks() {
    let rules = "ruleset scoped
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 2; refresh at turn_start }
pool rp { max 1; refresh at turn_start }
pool hp { max 100 }
category shots
condition braced { modify checks with advantage on reaction; modify checks by 50 on shots }
action strike { cost 1 ap; target enemy; resolve { check 1d20 vs 5 { success { target.hp -= 1 } } } }
action shoot { cost 1 ap; category shots; target enemy; resolve { check 1d20 vs 5 { success { target.hp -= 1 } } } }
reaction parry { cost 1 rp; on strike against self; resolve { check 1d20 vs 5 { success { cancel } } } }
";
    let scenario = r#"(rounds: 1, participants: [
  (name: "A", side: "a", position: 0, conditions: ["braced"],
   controller: Script(steps: [Act(round: 1, action: "strike", target: "B"), Act(round: 1, action: "shoot", target: "B")], fallback: Passive)),
  (name: "B", side: "b", position: 1, conditions: ["braced"], controller: Policy(Aggressive)),
])"#;
    let t = play(rules, scenario).unwrap();
    let between = |from: &str, to: &str| {
        let start = t.find(from).unwrap_or_else(|| panic!("{from}\n{t}"));
        let end = start + t[start..].find(to).unwrap_or_else(|| panic!("{to}\n{t}"));
        t[start..end].to_string()
    };
    // A's strike: one die; B's parry (a reaction): two.
    assert_eq!(between("A uses strike", "B answers").matches("A rolls 1d20").count(), 1, "{t}");
    assert_eq!(between("B's parry resolves.", "A uses shoot").matches("B rolls 1d20").count(), 2, "{t}");
    // The shot (category shots) gets +50: its check cannot fail against 5.
    let shot = between("A uses shoot", "A's turn ends.");
    assert_eq!(shot.matches("A rolls 1d20").count(), 1, "{t}");
    assert!(shot.contains(", success."), "{t}");
    let roll: i64 = shot.lines().find_map(|l| l.trim().strip_prefix("A rolls 1d20: ")).unwrap().parse().unwrap();
    assert!(shot.contains(&format!("A's check: {} vs 5", roll + 50)), "{t}");
}

/// Issue 14: `modify checks against self ...` changes the checks others' actions make against
/// the holder (attacks against you have disadvantage, or -N), scoped like the holder's own.
#[test]
fn a_condition_modifies_the_checks_made_against_its_holder() {
    let rules = "ruleset against
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 2; refresh at turn_start }
pool hp { max 100 }
category attacks
condition hidden { modify checks against self with disadvantage on attacks }
condition exposed { modify checks against self by 50 }
action strike { cost 1 ap; category attacks; target enemy; resolve { check 1d20 vs 30 { success { target.hp -= 1 } } } }
action taunt { cost 1 ap; target enemy; resolve { check 1d20 vs 30 { success { target.hp -= 1 } } } }
";
    let scenario = |conditions: &str| {
        format!(
            r#"(rounds: 1, participants: [
  (name: "A", side: "a", position: 0,
   controller: Script(steps: [Act(round: 1, action: "strike", target: "B"), Act(round: 1, action: "taunt", target: "B")], fallback: Passive)),
  (name: "B", side: "b", position: 1, conditions: [{conditions}], controller: Policy(Passive)),
])"#
        )
    };
    let rolls = |t: &str, from: &str, to: &str| {
        let start = t.find(from).unwrap_or_else(|| panic!("{from}\n{t}"));
        let end = start + t[start..].find(to).unwrap_or_else(|| panic!("{to}\n{t}"));
        t[start..end].matches("A rolls 1d20").count()
    };
    // Hidden: the strike (an attack) against B rolls twice; the taunt (not an attack) once.
    let t = play(rules, &scenario(r#""hidden""#)).unwrap();
    assert_eq!(rolls(&t, "A uses strike", "A uses taunt"), 2, "{t}");
    assert_eq!(rolls(&t, "A uses taunt", "A's turn ends."), 1, "{t}");
    // Exposed: +50 to every check against B, so both succeed against 30.
    let t = play(rules, &scenario(r#""exposed""#)).unwrap();
    assert_eq!(t.matches(", success.").count(), 2, "{t}");
    assert!(!t.contains(", failure."), "{t}");
    // Neither changes B's own checks, nor A's checks against someone else: without B holding
    // them, a 1d20 never reaches 30.
    let t = play(rules, &scenario("")).unwrap();
    assert_eq!(t.matches(", failure.").count(), 2, "{t}");
}

// An emitted event is of the action that emitted it for `trigger is` (its name, categories and
// kind), and only for `trigger is`: `on CATEGORY` still answers the use of the action alone.
#[test]
fn an_emitted_event_is_of_its_emitter_for_trigger_is_only() {
    let rules = r#"ruleset emitter
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool marks { max none; start 0 }
category counter
event hit
action strike { cost 1 ap; target enemy; resolve { emit hit } }
action riposte_like { cost 1 ap; category counter; target enemy; resolve { emit hit } }
trigger from_counter { on hit by self; requires trigger is counter; resolve { marks += 1 } }
trigger from_strike { on hit by self; requires trigger is strike and trigger is action and trigger is hit; resolve { marks += 10 } }
trigger on_counter_use { on counter by self; resolve { marks += 100 } }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "strike", target: "B"), Act(round: 1, action: "riposte_like", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let text = play(rules, &two(a, "Policy(Passive)", 1)).expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses strike (action) at B",
            "A: marks 0 -> 10 (from_strike",
            "A uses riposte_like (action) at B",
            "A: marks 10 -> 11 (from_counter",
            "A: marks 11 -> 111 (on_counter_use",
        ],
    );
    // One answer each: the use of `riposte_like` once (not again for its `hit`), its hit once.
    assert_eq!(text.matches("(on_counter_use").count(), 1, "{text}");
    assert_eq!(text.matches("(from_counter").count(), 1, "{text}");
    assert_eq!(text.matches("(from_strike").count(), 1, "{text}");
}

// Dice whose count and size come from stats (issue 14): sides of 0, or more than 1000 dice, stop
// the run, naming the dice (the dice rolled: tests/runner/dice-read-their-count-and-size-from-stats/).
#[test]
fn dice_read_from_stats_that_cannot_be_rolled_stop_the_run() {
    let rules = include_str!("runner/rules/computed-dice.rules");
    let scenario = |level: i64, die: i64| {
        format!(
            r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"level": {level}, "die": {die}}}, controller: Script(steps: [Act(round: 1, action: "hit", target: "B"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#
        )
    };
    let err = play(rules, &scenario(2, 0)).expect_err("sides of 0 stop the run");
    assert!(err.to_string().contains("dice(2, 0)"), "{err}");
    let err = play(rules, &scenario(1001, 6)).expect_err("more than 1000 dice stop the run");
    assert!(err.to_string().contains("dice(1001, 6)"), "{err}");
}

// Durations counted on the turns of whoever applied the condition (issue 14): `until
// turn_end(source)` outlasts the source's current turn and ends with its next one; `until
// turn_start(source)` ends as the source's next turn starts. The holder's own turns do not count.
#[test]
fn a_condition_can_last_until_the_end_of_its_sources_next_turn() {
    let rules = r#"ruleset source_turns
initiative { value speed; ties table }
round { phase act: turns }
stat speed = 0
pool ap { max 3; refresh at turn_start }
condition marked { lasts until turn_end(source) }
condition dazed { lasts until turn_start(source) }
action mark { cost 1 ap; target enemy; resolve { apply marked to target; apply dazed to target } }
action wait { cost 1 ap; resolve { } }
"#;
    let scenario = r#"(seed: 1, rounds: 3, participants: [
  (name: "A", side: "a", stats: {"speed": 2}, controller: Script(steps: [Act(round: 1, action: "mark", target: "B"), EndTurn(round: 1), Act(round: 2, action: "wait"), EndTurn(round: 2), EndTurn(round: 3)], fallback: Passive)),
  (name: "B", side: "b", stats: {"speed": 1}, controller: Policy(Passive)),
])"#;
    let text = play(rules, scenario).expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses mark (action) at B",
            "B is now marked.",
            "B is now dazed.",
            "A's turn ends.",
            "B's turn.",
            "B's turn ends.",
            "== Round 2 ==",
            "A's turn.",
            "B is no longer dazed.",
            "A uses wait (action)",
            "B is no longer marked.",
            "A's turn ends.",
            "B's turn.",
        ],
    );
    // Nothing else ends them: once each.
    assert_eq!(text.matches("B is no longer marked").count(), 1, "{text}");
    assert_eq!(text.matches("B is no longer dazed").count(), 1, "{text}");
}

#[test]
fn only_source_may_name_whose_turn_a_duration_counts() {
    let rules = "ruleset bad_source
initiative { value 0 }
round { phase act: turns }
condition marked { lasts until turn_end(target) }
";
    let c = compile_str("t.rules", rules);
    assert!(
        c.diagnostics.iter().any(|d| d.message.contains("`turn_end(target)` is not a duration")),
        "{:?}",
        c.diagnostics
    );
}

// Named effect blocks (issue 14): `effect NAME { ... }` is written once and `do NAME` runs it
// where it is named, with that place's `target`; two `do` run it twice.
#[test]
fn a_named_effect_runs_where_do_names_it() {
    let rules = r#"ruleset effects
initiative { value 0; ties table }
round { phase act: turns }
stat skill = 0
pool ap { max 3; refresh at turn_start }
pool hp { max 20 }
effect strike_roll {
  check 1d20 + skill vs 10 {
    success { target.hp -= 3 }
  }
}
action slash { cost 1 ap; target enemy; resolve { do strike_roll } }
action lunge { cost 2 ap; target enemy; resolve { do strike_roll; do strike_roll } }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "lunge", target: "B"), Act(round: 1, action: "slash", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let scenario = two(a, "Policy(Passive)", 1)
        .replace(r#"(name: "A", side: "a","#, r#"(name: "A", side: "a", stats: {"skill": 20},"#);
    let text = play(rules, &scenario).expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses lunge (action) at B",
            "B: hp 20 -> 17 (lunge by A)",
            "B: hp 17 -> 14 (lunge by A)",
            "A uses slash (action) at B",
            "B: hp 14 -> 11 (slash by A)",
        ],
    );
    assert_eq!(text.matches("A's check").count(), 3, "{text}");
}

// A variant may override or remove a named effect like any other declaration.
#[test]
fn a_variant_overrides_or_removes_a_named_effect() {
    use tempo::check::{compile_with, MemoryLoader};
    let base = "ruleset base
initiative { value 0 }
round { phase act: turns }
pool hp { max 20 }
effect hurt { hp -= 1 }
action a { resolve { do hurt } }
";
    let loader = MemoryLoader::new()
        .with("/r/base.rules", base)
        .with("/r/over.rules", "ruleset over extends \"base.rules\"\noverride effect hurt { hp -= 5 }\n")
        .with("/r/rem.rules", "ruleset rem extends \"base.rules\"\nremove effect hurt\n");
    let over = compile_with(&loader, std::path::Path::new("/r/over.rules"));
    assert!(over.diagnostics.is_empty(), "{:?}", over.diagnostics);
    let ron = over.ruleset.expect("compiles").to_ron().expect("writes");
    assert!(ron.contains("Int(5)") && !ron.contains("Int(1)"), "{ron}");
    let rem = compile_with(&loader, std::path::Path::new("/r/rem.rules"));
    let codes: Vec<String> = rem.diagnostics.iter().map(|d| d.code.name()).collect();
    assert_eq!(codes, ["tempo::unknown-effect"], "the action still names the removed effect");
}

// An effect that no `do` names is still checked (its mistakes do not wait for a first use).
#[test]
fn an_unused_effect_is_still_checked() {
    let rules = "ruleset unused_effect
initiative { value 0 }
round { phase act: turns }
pool hp { max 20 }
effect hurt { hp -= no_such_value }
";
    let c = compile_str("t.rules", rules);
    let codes: Vec<String> = c.diagnostics.iter().map(|d| d.code.name()).collect();
    assert_eq!(codes, ["tempo::unknown-name"], "{:?}", c.diagnostics);
}

// Without `default degrees`, an outcome named after a level of the degrees is not a built-in one
// (with it: tests/runner/default-degrees-grade-every-check-that-names-none).
#[test]
fn without_default_degrees_a_level_is_not_a_built_in_outcome() {
    let rules = include_str!("runner/rules/degrees.rules").replace("action plain", "action bare { target enemy; resolve { check skill vs 10 { critical_success { target.hp -= 10 } } } }\naction plain");
    let c = compile_str("t.rules", &rules);
    let codes: Vec<String> = c.diagnostics.iter().map(|d| d.code.name()).collect();
    assert_eq!(codes, ["tempo::unknown-option"], "{:?}", c.diagnostics);
}

/// Reach and the movement events through it (issue 14: opportunity attacks without a separate
/// action; issue 15: moving out of a threatened hex).
const REACH: &str = include_str!("runner/rules/reach.rules");

#[test]
fn reach_events_need_reach() {
    let rules = REACH.replace("reach reach_stat\n", "");
    let c = compile_str("t.rules", &rules);
    let d = c.diagnostics.iter().find(|d| d.code.name() == "tempo::unknown-event").expect("an unknown event");
    assert!(format!("{d:?}").contains("reach 1"), "{d:?}");
}

/// Issue 14: an answer may reduce an effect, not only cancel it. The attack emits its damage as
/// the event's amount; a ward absorbs what it can, armour takes 1 off every hit; the attack deals
/// what is left.
const WARDS: &str = r#"ruleset wards
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool hp { max 20 }
pool ward { max 5 }
event incoming "Damage about to be taken"
action strike { cost 1 ap; target enemy; resolve { emit incoming(6); target.hp -= max(amount(incoming), 0) } }
reaction absorb {
  on incoming against self
  interrupts
  requires ward > 0
  resolve {
    if ward >= trigger.amount { ward -= trigger.amount; trigger.amount = 0 } else { trigger.amount -= ward; ward = 0 }
  }
}
trigger armour { on incoming against self; interrupts; resolve { trigger.amount -= 1 } }
"#;

#[test]
fn an_answer_can_reduce_the_amount_of_an_event() {
    let a = r#"Script(steps: [Act(round: 1, action: "strike", target: "B"), Act(round: 1, action: "strike", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let b = r#"Script(steps: [React(round: 1, reaction: "absorb"), React(round: 1, reaction: "absorb")], fallback: Passive)"#;
    let t = play(WARDS, &two(a, b, 1)).expect("runs");
    assert_in_order(
        &t,
        &[
            // 6, less 1 for armour, less the ward's 5: nothing.
            "B answers incoming with absorb.",
            "B: ward 5 -> 0 (absorb by B)",
            "A uses strike (action) at B",
            // The ward is spent: 6 less 1.
            "B: hp 20 -> 15 (strike by A)",
        ],
    );
    assert_eq!(t.matches("B: hp").count(), 1, "the first strike dealt nothing:\n{t}");
    // Outside an answer there is no event amount to change.
    let c = compile_str(
        "t.rules",
        &WARDS.replace("action strike {", "action bad { resolve { trigger.amount -= 1 } }\naction strike {"),
    );
    let codes: Vec<String> = c.diagnostics.iter().map(|d| d.code.name()).collect();
    assert_eq!(codes, ["tempo::misplaced-clause"], "{:?}", c.diagnostics);
}

/// Issue 14: a meter that costs fill (heat), written the right way up: it starts empty, pays by
/// rising toward its max, overspends past it into a price, and cools by what lowers it.
const HEAT: &str = include_str!("runner/rules/heat.rules");

#[test]
fn a_meter_needs_a_max_and_its_lints_read_it_the_right_way_up() {
    let c = compile_str("t.rules", &HEAT.replace("  max 10\n", ""));
    let codes: Vec<String> = c.diagnostics.iter().map(|d| d.code.name()).collect();
    assert!(codes.contains(&"tempo::misplaced-clause".to_string()), "{codes:?}");
    // Nothing lowers it: it fills for good.
    let c = compile_str(
        "t.rules",
        &HEAT.replace("  decay 2 at turn_start\n", "").replace("resolve { heat -= 4 }", "resolve { }"),
    );
    let d = c.diagnostics.iter().find(|d| d.code.name() == "tempo::never-refilled").expect("warned");
    assert!(d.message.contains("fills but nothing ever lowers it"), "{}", d.message);
    // As written it is fine: costs of 6 fit between 0 and the ceiling of 14.
    let c = compile_str("t.rules", HEAT);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
}

// Issue 15: a participant may answer one event with several different reactions; the ruleset's
// `limit ... per trigger` is what stops a second one, and no reaction answers one event twice.
#[test]
fn a_per_trigger_limit_is_what_stops_a_second_reaction_to_one_event() {
    let rules = |limit: &str| {
        format!(
            r#"ruleset answers
initiative {{ value 0; ties table }}
round {{ phase act: turns }}
pool ap {{ max 3; refresh at turn_start }}
pool rp {{ max 4; refresh at turn_start }}
pool hp {{ max 20 }}
category attack
category defence
action strike {{ cost 1 ap; category attack; target enemy; resolve {{ target.hp -= 1 }} }}
reaction dodge {{ cost 1 rp; category defence; on attack by enemy against self; resolve {{ }} }}
reaction parry {{ cost 1 rp; category defence; on attack by enemy against self; resolve {{ }} }}
{limit}
"#
        )
    };
    // B's script holds a Dodge, a second Dodge and a Parry for round 1; A strikes twice.
    let a = r#"Script(steps: [Act(round: 1, action: "strike", target: "B"), Act(round: 1, action: "strike", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let b = r#"Script(steps: [React(round: 1, reaction: "dodge"), React(round: 1, reaction: "dodge"), React(round: 1, reaction: "parry")], fallback: Passive)"#;
    // No limit: the first strike is Dodged and Parried (each once), the second Dodged again.
    let text = play(&rules(""), &two(a, b, 1)).expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses strike (action) at B",
            "B answers strike with dodge.",
            "B: rp 4 -> 3 (dodge by B)",
            "B answers strike with parry.",
            "B: rp 3 -> 2 (parry by B)",
            "A uses strike (action) at B",
            "B answers strike with dodge.",
            "B: rp 2 -> 1 (dodge by B)",
        ],
    );
    assert_eq!(text.matches("B answers").count(), 3, "{text}");
    // One defence per trigger: one answer to each strike, the Parry left unused.
    let text = play(&rules("limit defence: 1 per trigger"), &two(a, b, 1)).expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses strike (action) at B",
            "B answers strike with dodge.",
            "A uses strike (action) at B",
            "B answers strike with dodge.",
        ],
    );
    assert_eq!(text.matches("B answers").count(), 2, "{text}");
    assert!(!text.contains("with parry"), "{text}");
    // A policy answers an event once, limit or not.
    let text = play(&rules(""), &two(a, "Policy(Aggressive)", 1)).expect("runs");
    assert_eq!(text.matches("B answers").count(), 2, "{text}");
}

// Issue 15: `interrupted when` on an action of one round is misplaced (an action of several
// rounds interrupted: tests/runner/a-multi-round-action-is-interrupted-when-its-condition-holds/).
#[test]
fn interrupted_when_on_an_action_of_one_round_is_misplaced() {
    assert_eq!(codes_of("ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\naction quick { interrupted when true; resolve { } }\n"), vec![Code::MisplacedClause]);
}

// Issue 15: outside an answer, `redirect` is misplaced (redirecting an answer:
// tests/runner/an-interrupting-answer-can-redirect-what-it-answers-to-itself/).
#[test]
fn redirect_outside_an_answer_is_misplaced() {
    assert_eq!(
        codes_of(
            "ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\naction quick { resolve { redirect } }\n"
        ),
        vec![Code::MisplacedClause]
    );
}

// Issue 15: a step at a timing on a `shared` pool would run once for each participant, so it is
// refused (the shared pool itself: tests/runner/a-shared-pool-is-one-total-for-everyone).
#[test]
fn a_shared_pool_takes_no_step_at_a_timing() {
    assert_eq!(codes_of("ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\npool effort { shared; max 5; refresh at round_start }\n"), vec![Code::MisplacedClause]);
}

// `distance(A, B)` between two participants; one or two values, no more.
#[test]
fn distance_takes_one_or_two_participants() {
    let head = "ruleset d\ninitiative { value 0 }\nround { phase act: turns }\nspace grid\n";
    assert_eq!(codes_of(&format!("{head}derive near = distance(self, self)\n")), vec![]);
    assert_eq!(codes_of(&format!("{head}derive far = distance(self, self, self)\n")), vec![Code::WrongArity]);
}

// Issue 15: a `terrain` kind the ruleset does not declare is a scenario error with a did-you-mean
// (what terrain does: tests/runner/terrain-slows-or-blocks-moves-and-a-leap-clears-a-narrow-gap/).
#[test]
fn an_undeclared_terrain_kind_is_a_scenario_error() {
    let rules = include_str!("runner/rules/ground.rules");
    let bad = scenario::parse(
        r#"(seed: 1, rounds: 1, terrain: [(kind: "mudd", from: 1)], participants: [
  (name: "A", side: "a", stats: {"speed": 9, "jump": 0}, position: 0, controller: Script(steps: [Act(round: 1, action: "walk"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", position: 40, controller: Policy(Passive)),
])"#,
    )
    .expect("parses");
    let c = compile_str("t.rules", rules);
    let problems = scenario::resolve(&bad, c.ruleset.as_ref().expect("compiles")).expect_err("refused");
    assert!(
        problems
            .iter()
            .any(|p| p.to_string() == "terrain at 1: the ruleset has no terrain `mudd`; did you mean `mud`?"),
        "{problems:?}"
    );
}

// Issue 15: naming an undeclared object is an error (the objects themselves:
// tests/runner/objects-are-dropped-taken-and-handled-together/).
#[test]
fn an_undeclared_object_is_an_error() {
    assert_eq!(
        codes_of("ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\nobject blade\naction a { requires self holds bladd; resolve { } }\n"),
        vec![Code::UnknownObject]
    );
}

// A pool's max that reads only its owner's stats is worked out once per run; one that cannot be
// worked out still stops the run where it is read, naming the pool (each participant's own max:
// tests/runner/a-max-read-from-stats-is-each-participants-own-and-its-errors-still-stop-the-run).
#[test]
fn a_max_read_from_stats_that_cannot_be_worked_out_stops_the_run() {
    let rules = include_str!("runner/rules/bounds.rules");
    let scenario = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 2, "cap": 1, "div": 0}, controller: Script(steps: [Act(round: 1, action: "build"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", stats: {"speed": 1, "cap": 4}, controller: Script(steps: [Act(round: 1, action: "build"), EndTurn(round: 1)], fallback: Passive)),
])"#;
    let err = play(rules, scenario).expect_err("a max divided by 0 stops the run");
    assert!(err.to_string().contains("the max of pool `charge`"), "{err}");
}

// Issue 32: a refusal names pools, conditions and categories as the rest of the text does: by their labels,
// or by their names under `--names` (the JSON trace carries names).
#[test]
fn a_refusal_says_labels_or_names_as_the_rest_of_the_text_does() {
    let rules = r#"ruleset refusals
initiative { value 0 }
round { phase act: turns }
pool ap "Action Points" { max 3; refresh at turn_start }
condition winded "Winded" { blocks spend ap }
category movement "Movement"
limit movement: 2 ap per turn
category feint "Feints"
limit feint: 1 per turn
action stride { category movement; cost 2 ap; resolve { } }
action lunge { cost 3 ap; resolve { } }
action gasp { resolve { apply winded to self } }
action tap { cost 1 ap; resolve { } }
action jab { category feint; resolve { } }
"#;
    let scenario = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Script(steps: [
    Act(round: 1, action: "stride"), Act(round: 1, action: "stride"), Act(round: 1, action: "lunge"),
    Act(round: 1, action: "gasp"), Act(round: 1, action: "tap"), Act(round: 1, action: "jab"),
    Act(round: 1, action: "jab"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let c = compile_str("t.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let ruleset = c.ruleset.expect("compiles");
    let s = scenario::parse(scenario).expect("scenario parses");
    let text = |names: bool| {
        let options = tempo::api::TraceOptions { names, ..Default::default() };
        let trace = tempo::api::run(&ruleset, &s, None, options).expect("runs").text;
        trace.lines().filter(|l| l.contains("cannot use")).collect::<Vec<_>>().join("\n")
    };
    insta::assert_snapshot!("refusals_with_labels", text(false));
    insta::assert_snapshot!("refusals_with_names", text(true));
    let json = tempo::api::run(&ruleset, &s, None, tempo::api::TraceOptions { jsonl: true, ..Default::default() })
        .expect("runs")
        .text;
    assert!(!json.contains("Action Points") && !json.contains("Winded"), "{json}");
    // A category is named by its label too (it was always its name).
    assert!(json.contains("actions of feint may be used only once"), "{json}");
    assert!(!json.contains("Feints") && !json.contains("Movement"), "{json}");
}

const PENNIES: &str = include_str!("runner/rules/hidden.rules");

/// The pennies encounter: A shows `coin` by script, then B (by `policy`) calls; `phase` is
/// the phase as written in PENNIES or a replacement of it.
fn pennies(coin: &str, b: &str, phase: &str) -> String {
    let rules = PENNIES.replace("phase show: simultaneous hidden", phase);
    let scenario = format!(
        r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 2}}, actions: ["heads", "tails"],
   controller: Script(steps: [Act(round: 1, action: "{coin}")], fallback: Passive)),
  (name: "B", side: "b", stats: {{"speed": 1}}, actions: ["call_heads", "call_tails", "guess"], controller: {b}),
])"#
    );
    play(&rules, &scenario).expect("runs")
}

/// What B declared: the `B uses ...` line.
fn b_uses(trace: &str) -> String {
    trace.lines().find(|l| l.trim_start().starts_with("B uses")).unwrap_or("B declared nothing").trim().to_string()
}

// Issue 32, mechanism 9: in a `hidden` phase everyone chooses against the state the phase started
// with. B, after A in initiative and reading A's pools, calls the face A showed in an open
// simultaneous phase; in a hidden one B's choice is the same whatever A chose, for a policy
// reading the state (Greedy) and for one that plays forward with the runner (Search).
#[test]
fn a_hidden_choice_is_made_without_seeing_the_others() {
    let open = "phase show: simultaneous";
    let hidden = "phase show: simultaneous hidden";
    for b in ["Policy(Greedy)", "Policy(Search(playouts: 24, rollout: Greedy, rounds: Some(1)))"] {
        let (heads, tails) = (pennies("heads", b, open), pennies("tails", b, open));
        assert_ne!(b_uses(&heads), b_uses(&tails), "open, {b}: B sees A's face\n{heads}\n{tails}");
        let (heads, tails) = (pennies("heads", b, hidden), pennies("tails", b, hidden));
        assert_eq!(b_uses(&heads), b_uses(&tails), "hidden, {b}: B cannot see A's face\n{heads}\n{tails}");
        assert!(heads.contains("Revealed: A plays heads; B plays "), "{heads}");
        assert!(tails.contains("Revealed: A plays tails; B plays "), "{tails}");
    }
}

// The choices are revealed in one line, then declared, paid and resolved in initiative order;
// a choice no longer valid by then (here: the round's one shared call spent by an earlier
// declarer) is refused as any declaration is.
#[test]
fn hidden_choices_are_revealed_together_then_declared_in_order() {
    let rules = PENNIES.replace("action heads { cost 1 heads;", "action heads { cost 1 heads + 1 calls;");
    let scenario = r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 2}, actions: ["heads", "tails"],
   controller: Script(steps: [Act(round: 1, action: "heads")], fallback: Passive)),
  (name: "B", side: "b", stats: {"speed": 1}, actions: ["call_heads", "call_tails", "guess"],
   controller: Script(steps: [Act(round: 1, action: "guess", target: "A")], fallback: Passive)),
  (name: "C", side: "b", controller: Policy(Passive)),
])"#;
    insta::assert_snapshot!("hidden_phase_trace", play(&rules, scenario).expect("runs"));
}

// `hidden` means something only where choices are made together.
#[test]
fn hidden_on_a_phase_of_turns_or_a_step_is_misplaced() {
    for phase in ["phase show: turns hidden", "phase show: step hidden { hp -= 1 }"] {
        let rules = PENNIES.replace("phase show: simultaneous hidden", phase);
        assert_eq!(codes_of(&rules), vec![Code::MisplacedClause], "{phase}");
    }
}

/// Issue 44, B6: `amount(EVENT)` reads what this cascade emitted, not the last amount anyone
/// emitted. `whiff` emits `incoming` only on a success it never gets; the `hit` of the turn
/// before emitted 5, and `whiff` dealt those 5 again on its miss.
const MISSED: &str = r#"ruleset missed
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
pool hp { max 20 }
event incoming
action hit { cost 1 ap; target enemy; resolve { emit incoming(5); target.hp -= amount(incoming) } }
action whiff {
  cost 1 ap
  target enemy
  resolve {
    check 1 vs 100 { success { emit incoming(5) } }
    target.hp -= amount(incoming)
  }
}
"#;

#[test]
fn amount_reads_only_what_its_own_cascade_emitted() {
    let a = r#"Script(steps: [Act(round: 1, action: "hit", target: "B"), Act(round: 2, action: "whiff", target: "B")], fallback: Passive)"#;
    let t = play(MISSED, &two(a, "Policy(Passive)", 2)).expect("runs");
    assert_in_order(&t, &["B: hp 20 -> 15 (hit by A)", "A uses whiff (action) at B"]);
    assert!(!t.contains("15 -> 10"), "the miss dealt the earlier hit's damage:\n{t}");
    // The checker says where a read may find nothing this rule emitted: `whiff`'s, not `hit`'s.
    let c = compile_str("t.rules", MISSED);
    let warned: Vec<(Code, usize)> = c.diagnostics.iter().map(|d| (d.code, d.primary.span.start as usize)).collect();
    let at = MISSED.rfind("amount(incoming)").unwrap() + "amount(".len();
    assert_eq!(warned, [(Code::AmountNotEmitted, at)], "{:?}", c.diagnostics);
}
