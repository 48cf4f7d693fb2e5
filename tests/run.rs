//! The runner, mechanism by mechanism, on small purpose-written rulesets. Each test asserts the
//! exact trace lines that show the mechanism worked (text trace, in order).

use tempo::check::compile_str;
use tempo::diagnostics::Code;
use tempo::run::{run, scenario, trace, RunError};

fn play(rules: &str, scenario_text: &str) -> Result<String, RunError> {
    let c = compile_str("t.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let ruleset = c.ruleset.expect("compiles");
    let s = scenario::parse(scenario_text).expect("scenario parses");
    run(&ruleset, &s, None).map(|records| trace::to_text(&records))
}

/// The codes of the diagnostics a ruleset gets.
fn codes_of(rules: &str) -> Vec<Code> {
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

const DUEL: &str = r#"ruleset duel
initiative { value speed; ties higher speed, then table }
round { phase act: turns }
stat speed = 0
stat hp_max = 20
pool ap { max 3; refresh at turn_start; keep at turn_end }
pool hp { max hp_max; when <= 0 { apply down } }
condition down { blocks actions, free_actions, reactions }
category attack
action strike { cost 1 ap; category attack; target enemy; resolve { target.hp -= 1 } }
action heavy { cost 2 ap; category attack; target enemy; resolve { target.hp -= 3 } }
free action shout { }
limit each free: 1 per round
reaction parry { cost 1 ap; on attack by enemy against self; resolve { actor.hp -= 1 } }
"#;

fn two(a: &str, b: &str, rounds: u32) -> String {
    format!(
        r#"(seed: 1, rounds: {rounds}, participants: [
  (name: "A", side: "a", controller: {a}),
  (name: "B", side: "b", controller: {b}),
])"#
    )
}

// Frontiers, 000 "Reactions Share Your Action Pool": unspent AP persists after your turn and
// pays for a reaction before your next turn, where it is overwritten by the refresh.
#[test]
fn unspent_ap_pays_for_a_reaction_then_is_overwritten() {
    let a = r#"Script(steps: [Act(round: 1, action: "strike", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let b = r#"Script(steps: [Act(round: 1, action: "strike", target: "A"), EndTurn(round: 1)], fallback: Passive)"#;
    let a = a.replace("fallback: Passive)", "fallback: Aggressive)").replace(
        "EndTurn(round: 1)], fallback: Aggressive",
        "EndTurn(round: 1), EndTurn(round: 2)], fallback: Aggressive",
    );
    let t = play(DUEL, &two(&a, b, 2)).unwrap();
    assert_in_order(
        &t,
        &[
            "A: ap 3 -> 2 (strike by A)",
            "A's turn ends.",
            "B uses strike (action) at A",
            "A answers strike with parry.",
            "A: ap 2 -> 1 (parry by A)",
            "== Round 2 ==",
            "A: ap 1 -> 3 (refresh at turn_start)",
        ],
    );
}

// Frontiers, 000 "Declaring and Resolving an Action": no declaring without the full cost.
#[test]
fn a_declaration_that_cannot_be_paid_is_rejected_with_the_reason() {
    let a = r#"Script(steps: [Act(round: 1, action: "heavy", target: "B"), Act(round: 1, action: "heavy", target: "B")], fallback: Passive)"#;
    let t = play(DUEL, &two(a, "Policy(Passive)", 1)).unwrap();
    assert_in_order(&t, &["A uses heavy (action) at B, paying 2 ap.", "A cannot use heavy: needs 2 ap, has 1 [cost]"]);
}

// Frontiers, 000 "Free Actions": once per round per ability.
#[test]
fn a_free_action_is_used_once_per_round() {
    let a = r#"Script(steps: [Act(round: 1, action: "shout"), Act(round: 1, action: "shout"), Act(round: 2, action: "shout")], fallback: Passive)"#;
    let t = play(DUEL, &two(a, "Policy(Passive)", 2)).unwrap();
    assert_in_order(
        &t,
        &[
            "A uses shout (free)",
            "A cannot use shout: shout may be used 1 time(s) per round, 1 already [limit]",
            "== Round 2 ==",
            "A uses shout (free)",
        ],
    );
}

// Frontiers, 000 "Edge Cases: Reaction Chains": the most recently declared reaction resolves
// first; declarations follow priority (active participant, then initiative order).
#[test]
fn reactions_declared_in_priority_order_resolve_last_first() {
    let rules = r#"ruleset chain
initiative { value speed }
round { phase act: turns }
stat speed = 0
pool ap { max 3; refresh at turn_start }
pool hp { max 20 }
event shout
action call { cost 1 ap; resolve { emit shout } }
reaction echo { cost 1 ap; on shout by other; resolve { hp -= 1 } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "Caller", side: "x", stats: {"speed": 9}, controller: Script(steps: [Act(round: 1, action: "call"), EndTurn(round: 1)], fallback: Passive)),
  (name: "First", side: "x", stats: {"speed": 5}, controller: Policy(Aggressive)),
  (name: "Second", side: "y", stats: {"speed": 1}, controller: Policy(Aggressive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            // Every reaction declared and paid, in priority order, before any resolves...
            "First answers shout with echo.",
            "First: ap 3 -> 2 (echo by First)",
            "Second answers shout with echo.",
            "Second: ap 3 -> 2 (echo by Second)",
            // ...then resolved, last declared first.
            "Second's echo resolves.",
            "Second: hp 20 -> 19",
            "First's echo resolves.",
            "First: hp 20 -> 19",
        ],
    );
}

// Frontiers, 000 "Edge Cases: Interrupting Effects": only an effect that says it interrupts
// resolves before the action; a cancelling interrupt stops the action's effects.
#[test]
fn an_interrupting_reaction_resolves_first_and_can_cancel() {
    let rules = r#"ruleset dodge
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool hp { max 10 }
action strike { cost 1 ap; target enemy; resolve { target.hp -= 5 } }
reaction dodge { cost 1 ap; on strike against self; interrupts; resolve { cancel } }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "strike", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let t = play(rules, &two(a, "Policy(Aggressive)", 1)).unwrap();
    assert_in_order(
        &t,
        &["A uses strike (action) at B", "B answers strike with dodge.", "B uses dodge (reaction)", "A's turn ends."],
    );
    assert!(!t.contains("B: hp 10 -> 5"), "the strike was cancelled:\n{t}");
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

// Frontiers, 000 "Overspending Energy" and "Negative Energy Limits": down to minus half of max
// rounded down, one Wound-or-Fatigue choice per overspend, past the floor rejected.
#[test]
fn overspend_goes_to_the_floor_with_a_price_and_no_further() {
    let rules = r#"ruleset energy
initiative { value 0 }
round { phase act: turns }
stat energy_max = 7
pool energy { max energy_max; overspend to -(energy_max / 2) { choose owner "price" { wound: { wounds += 1 } fatigue: { fatigue += 1 } } } }
pool wounds { max none; start 0 }
pool fatigue { max none; start 0 }
action blast { cost 4 energy }
downtime every 1 hour { energy += 1; wounds -= 1; fatigue -= 1 }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "blast"), Act(round: 1, action: "blast"), Choose(answer: "fatigue"), Act(round: 1, action: "blast")], fallback: Passive)"#;
    let t = play(rules, &two(a, "Policy(Passive)", 1)).unwrap();
    assert_in_order(
        &t,
        &[
            "A: energy 7 -> 3 (blast by A)",
            "A: energy 3 -> -1 (blast by A)",
            "A chooses fatigue (price).",
            "A: fatigue 0 -> 1 (overspend)",
            "A cannot use blast: needs 4 energy, has -1 [cost]",
        ],
    );
}

// Frontiers, 000 "Edge Cases: Multiple State Changes Simultaneously": HP, then Wounds, then
// Fatigue, then unconsciousness or death, whatever order the rule writes them in.
#[test]
fn simultaneous_state_changes_resolve_in_the_stated_order() {
    let rules = r#"ruleset states
initiative { value 0 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
pool hp { max 5; when <= 0 { wounds += 1; apply unconscious } }
pool wounds { max none; start 0; when > 1 { if hp <= 0 { apply dead } } }
pool fatigue { max none; start 0; when > 1 { apply unconscious } }
state_order hp, wounds, fatigue
condition unconscious { blocks actions, reactions }
condition dead { blocks actions, reactions }
action doom { cost 1 ap; target enemy; resolve { target.fatigue += 2; target.hp -= 5 } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Script(steps: [Act(round: 1, action: "doom", target: "B")], fallback: Passive)),
  (name: "B", side: "b", pools: {"wounds": 1}, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        // Written Fatigue first, applied in `state_order`: the damage, the Wound it gives, the Fatigue.
        &["B: hp 5 -> 0", "B: wounds 1 -> 2 (hp <= 0)", "B: fatigue 0 -> 2", "B is now unconscious.", "B is now dead."],
    );
}

// The changes a rule makes to `state_order` pools one after another are held and applied in that
// order; the rule's own reads see them at once; each pool's thresholds come before the next
// pool's changes (the Wound at 0 HP before the rule's own Wound); other pools change as written;
// condition changes wait for the action to finish, and a later step of it still comes first.
#[test]
fn held_state_changes_are_read_at_once_and_applied_in_order() {
    let rules = r#"ruleset states
initiative { value 0 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
pool hp { max 5; when <= 0 { wounds += 1; apply unconscious } }
pool wounds { max none; start 0; when > 2 { apply dead } }
pool fatigue { max none; start 0; when > 0 { apply tired } }
pool grit { max none; start 0 }
state_order hp, wounds, fatigue
condition unconscious { blocks actions, reactions }
condition dead { blocks actions, reactions }
condition tired
condition marked
action doom {
  cost 1 ap
  target enemy
  resolve {
    target.fatigue += 1
    target.hp -= 5
    target.grit += 1
    if target.hp <= 0 and target.fatigue == 1 and target.wounds == 0 { target.wounds += 1 }
    apply marked to target
    target.hp += 0
  }
}
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Script(steps: [Act(round: 1, action: "doom", target: "B")], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "B: grit 0 -> 1 (doom by A)",
            "B: hp 5 -> 0 (doom by A)",
            "B: wounds 0 -> 1 (hp <= 0)",
            "B: wounds 1 -> 2 (doom by A)",
            "B: fatigue 0 -> 1 (doom by A)",
            "B is now marked.",
            "B is now unconscious.",
            "B is now tired.",
        ],
    );
    assert!(!t.contains("B is now dead."), "{t}");
}

// Cheat sheet, 001 "Actions/Turn Cheat Sheet": FP decays by 1 at the end of each turn unless
// Flow State was used.
#[test]
fn a_pool_decays_unless_a_condition_holds() {
    let rules = r#"ruleset flow
initiative { value 0 }
round { phase act: turns }
pool ap { max 5; refresh at turn_start }
pool fp { max none; start 2; decay 1 at turn_end unless self has flow_state }
condition flow_state { lasts until turn_start }
action flow { cost 1 ap; resolve { apply flow_state } }
action spend_fp { cost 1 fp }
"#;
    let a = r#"Script(steps: [EndTurn(round: 1), Act(round: 2, action: "flow")], fallback: Passive)"#;
    let t = play(rules, &two(a, "Policy(Passive)", 3)).unwrap();
    assert_in_order(
        &t,
        &[
            "A: fp 2 -> 1 (decay at turn_end)",
            "== Round 2 ==",
            "A is now flow_state.",
            "A's turn ends.",
            "== Round 3 ==",
        ],
    );
    let round2 = &t[t.find("== Round 2 ==").unwrap()..t.find("== Round 3 ==").unwrap()];
    assert!(!round2.contains("A: fp 1 -> 0"), "no decay with Flow State:\n{round2}");
}

// Frontiers, 000 "Edge Cases: Skipped Turn Due to Incapacitation": pools still refresh, the
// turn ends at once.
#[test]
fn an_incapacitated_participant_still_refreshes_and_its_turn_ends_at_once() {
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", conditions: ["down"], pools: {"ap": 0}, controller: Policy(Aggressive)),
  (name: "B", side: "b", controller: Policy(Passive)),
  (name: "C", side: "a", controller: Policy(Passive)),
])"#;
    let t = play(DUEL, s).unwrap();
    assert_in_order(&t, &["A's turn.", "A: ap 0 -> 3 (refresh at turn_start)", "A's turn ends."]);
    let turn = &t[t.find("A's turn.").unwrap()..t.find("A's turn ends.").unwrap()];
    assert!(!turn.contains("A uses"), "{turn}");
}

// Cheat sheet, 001 "Surprise Attacks": only the surprising side acts in the surprise round; the
// surprised start with nothing.
#[test]
fn in_a_surprise_round_only_the_surprising_side_acts() {
    let rules = r#"ruleset ambush
initiative { value speed }
round { phase act: turns }
stat speed = 0
surprise round applies surprised
condition surprised { lasts until turn_start }
pool ap { max 2; refresh at round_start unless self has surprised and surprise_round }
action strike { cost 1 ap; target enemy }
at encounter_start if self has surprised { ap = 0 }
"#;
    let s = r#"(seed: 1, rounds: 2, surprise: "ambushers", participants: [
  (name: "Victim", side: "camp", stats: {"speed": 9}, controller: Policy(Aggressive)),
  (name: "Rogue", side: "ambushers", stats: {"speed": 1}, controller: Policy(Aggressive)),
])"#;
    let t = play(rules, s).unwrap();
    let round1 = &t[t.find("== Round 1 ==").unwrap()..t.find("== Round 2 ==").unwrap()];
    assert!(round1.contains("Rogue uses strike"), "{round1}");
    assert!(!round1.contains("Victim uses"), "{round1}");
    assert_in_order(
        &t,
        &["Victim: ap 2 -> 0 (at encounter_start)", "== Round 2 ==", "Victim: ap 0 -> 2", "Victim uses strike"],
    );
}

// Active Phase, 004 "Encounter Flow": tied Awareness acts in the same Active Phase, players
// first among the tied.
#[test]
fn ties_can_act_together_or_put_players_first() {
    let rules = r#"ruleset ties
initiative { value awareness; ties players_first, then simultaneous }
round { phase act: turns }
stat awareness = 0
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "Orc", side: "m", stats: {"awareness": 5}, controller: Policy(Passive)),
  (name: "Hero", side: "p", player: true, stats: {"awareness": 5}, controller: Policy(Passive)),
  (name: "Elf", side: "p", player: true, stats: {"awareness": 5}, controller: Policy(Passive)),
  (name: "Rat", side: "m", stats: {"awareness": 2}, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(&t, &["Initiative: [Hero (5), Elf (5)] together, then Orc (5), then Rat (2)."]);
}

// 004 "Upkeep" / durations: an effect that lasts N rounds ends after the Nth round.
#[test]
fn a_duration_in_rounds_runs_out() {
    let rules = r#"ruleset timed
initiative { value 0 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
condition blessed { positive }
action bless { cost 1 ap; resolve { apply blessed for 2 rounds } }
"#;
    let a =
        r#"Script(steps: [Act(round: 1, action: "bless"), EndTurn(round: 2), EndTurn(round: 3)], fallback: Passive)"#;
    let t = play(rules, &two(a, "Policy(Passive)", 3)).unwrap();
    // The countdown happens as the round ends, before the `round_end` event.
    assert_in_order(&t, &["A is now blessed.", "-- end of round 1", "A is no longer blessed.", "-- end of round 2"]);
    let before = &t[..t.find("-- end of round 1").unwrap()];
    assert!(!before.contains("no longer blessed"), "{before}");
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
    let a = trace::to_jsonl(&run(&ir, &s, None).unwrap(), &ir.files);
    let b = trace::to_jsonl(&run(&ir, &s, None).unwrap(), &ir.files);
    let c = trace::to_jsonl(&run(&from_ron, &s, None).unwrap(), &from_ron.files);
    assert_eq!(a, b);
    assert_eq!(a, c);
    let other = trace::to_jsonl(&run(&ir, &s, Some(12345)).unwrap(), &ir.files);
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

const ORDERS: &str = r#"ruleset orders
initiative { value speed; allow delay, stay }
round { phase act: turns }
stat speed = 0
pool slots { max 3; refresh at turn_start }
pool reserve { max none; start 0 }
action strike { cost 1 slots; target enemy }
action ritual { cost 2 slots; rounds 2; resolve { reserve += 5 } }
action combo { cost 1 slots; partner cost 1 reserve; resolve { slots += 0 } }
outro all_resolve "All Resolve" ends { clear_conditions }
outro slow_burn "Slow Burn" continues { }
"#;

fn three(a: &str, b: &str, c: &str, rounds: u32, extra: &str) -> String {
    format!(
        r#"(seed: 1, rounds: {rounds}, {extra} participants: [
  (name: "A", side: "x", stats: {{"speed": 9}}, controller: {a}),
  (name: "B", side: "x", stats: {{"speed": 5}}, controller: {b}),
  (name: "C", side: "y", stats: {{"speed": 1}}, controller: {c}),
])"#
    )
}

// Game flow, 002 "Initiative": a delaying character re-enters lower and keeps the new place.
#[test]
fn a_delay_reenters_later_and_keeps_the_place() {
    let a = r#"Script(steps: [Delay(round: 1, after: "B")], fallback: Passive)"#;
    let t = play(ORDERS, &three(a, "Policy(Passive)", "Policy(Passive)", 2, "")).unwrap();
    assert_in_order(
        &t,
        &[
            "== Round 1 ==",
            "A chooses after B (delay).",
            "B's turn.",
            "A's turn.",
            "C's turn.",
            "== Round 2 ==",
            "B's turn.",
            "A's turn.",
            "C's turn.",
        ],
    );
}

// Active Phase, 004 "Stay Action": a later place chosen once, then locked.
#[test]
fn a_stay_moves_a_participant_later_once() {
    let a = r#"Script(steps: [Stay(after: "C")], fallback: Passive)"#;
    let t = play(ORDERS, &three(a, "Policy(Passive)", "Policy(Passive)", 1, "")).unwrap();
    assert_in_order(
        &t,
        &[
            "Initiative: A (9), then B (5), then C (1).",
            "Initiative: B (5), then C (1), then A (9).",
            "B's turn.",
            "C's turn.",
            "A's turn.",
        ],
    );
}

// Active Phase, 004 "Multi-Round Actions": paid this round and the next, resolved at the end.
#[test]
fn a_multi_round_action_is_paid_each_round_and_resolves_at_the_end() {
    let a =
        r#"Script(steps: [Act(round: 1, action: "ritual"), EndTurn(round: 1), EndTurn(round: 2)], fallback: Passive)"#;
    let t = play(ORDERS, &three(a, "Policy(Passive)", "Policy(Passive)", 2, "")).unwrap();
    assert_in_order(
        &t,
        &[
            "A uses ritual (action), paying 2 slots.",
            "== Round 2 ==",
            "A: slots 1 -> 3 (refresh at turn_start)",
            "A: slots 3 -> 1 (ritual (continued))",
            "A's ritual is complete.",
            "A: reserve 0 -> 5",
        ],
    );
    let round1 = &t[..t.find("== Round 2 ==").unwrap()];
    assert!(!round1.contains("reserve 0 -> 5"), "resolves only at the end:\n{round1}");
}

// Active Phase, 004 "Combo actions": the active character starts, an ally pays from reserve.
#[test]
fn a_combo_needs_an_ally_who_pays_the_partner_cost() {
    let a = r#"Script(steps: [Act(round: 1, action: "combo"), Act(round: 1, action: "combo")], fallback: Passive)"#;
    let s = three(a, "Policy(Aggressive)", "Policy(Passive)", 1, "")
        .replace(r#"(name: "B", side: "x","#, r#"(name: "B", side: "x", pools: {"reserve": 1},"#);
    let t = play(ORDERS, &s).unwrap();
    assert_in_order(
        &t,
        &[
            "A uses combo (action)",
            "B: reserve 1 -> 0 (combo with A)",
            "A cannot use combo: needs an ally who can pay the partner cost [partner]",
        ],
    );
}

// Frontiers, 000 "Edge Cases: Leaving Encounter Play Mid-Round" / 004 outros: leaving, and an
// outro that goes on for rounds without initiative.
#[test]
fn leaving_and_a_slow_burn_outro() {
    let c = r#"Script(steps: [Leave(round: 1)], fallback: Passive)"#;
    let t =
        play(ORDERS, &three("Policy(Passive)", "Policy(Passive)", c, 5, r#"outro: (name: "slow_burn", rounds: 2),"#))
            .unwrap();
    assert_in_order(
        &t,
        &[
            "C leaves the encounter.",
            "== Round 2 ==",
            "A's turn.",
            "== Round 3 ==",
            "Encounter ends: one side is left standing; outro slow_burn for 2 round(s).",
        ],
    );
    assert!(!t.contains("== Round 4 =="), "{t}");
}

// Frontiers, 000 "Damage While Down During Resolution" and "Reactions": the fall to 0 HP
// applies when the action has resolved, before reactions to it; the unconscious cannot react.
#[test]
fn someone_dropped_by_an_action_cannot_react_to_it() {
    let rules = r#"ruleset down
initiative { value 0 }
round { phase act: turns }
pool ap { max 2; refresh at turn_start; keep at turn_end }
pool hp { max 2; when <= 0 { apply down while hp <= 0 } }
condition down { blocks actions, reactions }
action hit { cost 1 ap; target enemy; resolve { target.hp -= 2 } }
reaction strike_back { cost 1 ap; on hit by enemy against self; resolve { actor.hp -= 1 } }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "hit", target: "B")], fallback: Passive)"#;
    let t = play(rules, &two(a, "Policy(Aggressive)", 1)).unwrap();
    assert_in_order(&t, &["B: hp 2 -> 0", "B is now down."]);
    assert!(!t.contains("strike_back"), "{t}");
}

// Cheat sheet, 001 "Surprise Attacks": the surprised take no turn and no reaction in it.
#[test]
fn the_surprised_have_no_turn_and_no_reaction_in_the_surprise_round() {
    let rules = r#"ruleset ambush2
initiative { value init }
round { phase act: turns }
stat init = 0
surprise round applies surprised
condition surprised { lasts until turn_start }
pool rp { max 1; refresh at turn_start }
action poke { cost 0; target enemy }
reaction flinch { cost 1 rp; on poke by enemy against self }
"#;
    let s = r#"(seed: 1, rounds: 1, surprise: "ambushers", participants: [
  (name: "Victim", side: "camp", stats: {"init": 9}, controller: Policy(Aggressive)),
  (name: "Ambusher", side: "ambushers", stats: {"init": 1}, controller: Script(steps: [Act(round: 1, action: "poke", target: "Victim")], fallback: Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert!(!t.contains("Victim's turn."), "{t}");
    assert!(!t.contains("flinch"), "{t}");
    assert!(!t.contains("Victim is no longer surprised"), "{t}");
}

// Frontiers, 000 "Simultaneous Turn Alternative": all declare, then resolve in initiative order,
// so a declaration made before resolution resolves even if its maker is knocked out first.
#[test]
fn in_a_simultaneous_phase_everyone_declares_then_all_resolve() {
    let rules = r#"ruleset sim
initiative { value init }
round { phase clash: simultaneous }
stat init = 0
pool ap { max 1; refresh at round_start }
pool hp { max 1; when <= 0 { apply down } }
condition down { blocks actions, reactions }
action hit { cost 1 ap; target enemy; resolve { target.hp -= 1 } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"init": 9}, controller: Script(steps: [Act(round: 1, action: "hit", target: "B")], fallback: Passive)),
  (name: "B", side: "b", stats: {"init": 1}, controller: Script(steps: [Act(round: 1, action: "hit", target: "A")], fallback: Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(&t, &["A uses hit (action) at B", "B uses hit (action) at A", "B: hp 1 -> 0", "A: hp 1 -> 0"]);
}

// Frontiers, 000 "Overspending Energy": each overspend is one Wound-or-Fatigue, however deep.
#[test]
fn one_overspend_costs_one_price() {
    let rules = r#"ruleset deep
initiative { value 0 }
round { phase act: turns }
pool energy { max 6; overspend to -3 { wounds += 1 } }
pool wounds { max none; start 0 }
action blast { cost 3 energy }
downtime every 1 hour { energy += 1 }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", pools: {"energy": 0}, controller: Script(steps: [Act(round: 1, action: "blast")], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(&t, &["A: energy 0 -> -3", "A: wounds 0 -> 1 (overspend)"]);
    assert!(!t.contains("wounds 1 -> 2"), "{t}");
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

// Active Phase, 004 "Encounter Flow": tied participants gain their slots at the same time.
#[test]
fn a_tied_group_starts_its_turns_together() {
    let rules = r#"ruleset tied
initiative { value awareness; ties simultaneous }
round { phase act: turns }
stat awareness = 0
pool slots { max 3; start 0; refresh at turn_start; lose at turn_end }
action work { cost 1 slots }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "p", stats: {"awareness": 5}, controller: Policy(Passive)),
  (name: "B", side: "p", stats: {"awareness": 5}, controller: Policy(Passive)),
  (name: "Orc", side: "m", stats: {"awareness": 1}, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "A's turn.",
            "A: slots 0 -> 3",
            "B's turn.",
            "B: slots 0 -> 3",
            "A's turn ends.",
            "B's turn ends.",
            "Orc's turn.",
        ],
    );
}

// Cheat sheet, 001 "Ready Action": the readied action is taken when its trigger happens, and
// the readier's place in the order moves to that point for later rounds.
#[test]
fn a_readied_action_fires_on_its_trigger_and_moves_the_place() {
    let rules = r#"ruleset ready
initiative { value init; allow ready }
round { phase act: turns }
stat init = 0
pool ap { max 2; refresh at turn_start }
pool hp { max 9 }
action open_door { cost 1 ap }
action shoot { cost 1 ap; target enemy; resolve { target.hp -= 1 } }
"#;
    let s = r#"(seed: 1, rounds: 2, participants: [
  (name: "Archer", side: "a", stats: {"init": 9}, controller: Script(steps: [Ready(round: 1, action: "shoot", on: "open_door", target: "Guard")], fallback: Passive)),
  (name: "Guard", side: "b", stats: {"init": 5}, controller: Script(steps: [Act(round: 1, action: "open_door")], fallback: Passive)),
  (name: "Cook", side: "b", stats: {"init": 1}, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "Archer chooses shoot (ready).",
            "Guard uses open_door",
            "Archer answers open_door with shoot.",
            "Guard: hp 9 -> 8",
            "== Round 2 ==",
            "Guard's turn.",
            "Archer's turn.",
            "Cook's turn.",
        ],
    );
}

// Engine: the step budget is per cascade, so a long fight without any cycle runs to its end.
#[test]
fn a_long_fight_is_not_mistaken_for_a_trigger_cycle() {
    let rules = std::fs::read_to_string("rulesets/frontiers.rules").unwrap();
    let s = r#"(seed: 7, rounds: 12000, participants: [
  (name: "A", side: "heroes", stats: {"hp_max": 1000000, "damage": 1}, position: 0, controller: Policy(HoldBack(pool: "ap", keep: 1))),
  (name: "B", side: "monsters", stats: {"hp_max": 1000000, "damage": 1}, position: 1, controller: Policy(HoldBack(pool: "ap", keep: 1))),
])"#;
    let t = play(&rules, s).expect("no cycle in a long duel");
    assert!(t.contains("the round limit (12000) was reached"), "{}", &t[t.len().saturating_sub(400)..]);
}

// Frontiers, 000 "Movement" / "Forced Movement" and the Zone Movement variant: moving and being
// pushed are traced; a scenario position outside the zones is refused.
#[test]
fn movement_is_traced_and_zone_positions_are_checked() {
    let rules = r#"ruleset moving
initiative { value 0 }
round { phase act: turns }
pool mp { max 3; refresh at turn_start }
pool ap { max 1; refresh at turn_start }
action walk { cost 1 mp per unit; resolve { move units } }
action shove { cost 1 ap; target enemy within 1; resolve { push target 2 } }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "walk", units: 3), Act(round: 1, action: "shove", target: "B")], fallback: Passive)"#;
    let s = two(a, "Policy(Passive)", 1).replace(r#"(name: "B", side: "b","#, r#"(name: "B", side: "b", position: 4,"#);
    let t = play(rules, &s).unwrap();
    assert_in_order(&t, &["A moves from 0 to 3.", "A uses shove (action) at B", "B is pushed from 4 to 6."]);
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

// Active Phase, 004 "Encounter Outro": All Resolve ends every combat effect at once; a stay the
// ruleset does not allow is refused.
#[test]
fn an_ending_outro_clears_conditions_and_a_disallowed_stay_is_refused() {
    let rules = r#"ruleset outro
initiative { value 0 }
round { phase act: turns }
condition burning
outro all_resolve "All Resolve" ends { clear_conditions }
"#;
    let s = r#"(seed: 1, rounds: 1, outro: (name: "all_resolve"), participants: [
  (name: "A", side: "a", conditions: ["burning"], controller: Script(steps: [Stay(after: "B")], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "A cannot use stay: the ruleset does not allow staying [not-allowed]",
            "A is no longer burning.",
            "outro all_resolve",
        ],
    );
}

// Language: `blocks movement` refuses an action that is movement, and stops a move elsewhere;
// `move away` steps back from the target (003, Movement Actions and Disengage).
#[test]
fn movement_can_be_blocked_and_can_go_away() {
    let rules = r#"ruleset steps
initiative { value 0 }
round { phase act: turns }
space grid
pool ap { max 3; refresh at turn_start }
condition held { blocks movement }
action close { cost 1 ap; resolve { move 3 } }
action back { cost 1 ap; resolve { move away 2 } }
action lunge { cost 1 ap; target enemy; resolve { check 1d20 vs 0 { success { move 1 } } } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Script(steps: [Act(round: 1, action: "close"), Act(round: 1, action: "back")], fallback: Passive)),
  (name: "B", side: "b", position: 9, conditions: ["held"], controller: Script(steps: [Act(round: 1, action: "close"), Act(round: 1, action: "lunge", target: "A")], fallback: Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "A moves from 0 to 3.",
            "A moves from 3 to 1.",
            "B cannot use close: is held, which blocks movement [blocked]",
            "B uses lunge (action) at A",
        ],
    );
    assert!(!t.contains("B moves"), "a held participant never moves:\n{t}");
}

// Engine: an `end_turn` reached from the turn start ends that turn before it is played
// (004, Multi-Round Actions: the recovery drain takes every slot).
#[test]
fn end_turn_at_turn_start_skips_the_turn() {
    let rules = r#"ruleset drained
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start; when <= 0 { end_turn } }
condition drained { at turn_start { ap = 0 } }
action strike { cost 1 ap }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", conditions: ["drained"], controller: Policy(Aggressive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(&t, &["A: ap 3 -> 0 (drained)", "A's turn ends."]);
    assert!(!t.contains("A uses strike"), "the drained turn is not played:\n{t}");
}

// Engine: `follow` goes right after the one followed, ahead of anyone already at the value
// just below theirs (003, Choose to Delay).
#[test]
fn follow_goes_right_after_ahead_of_a_tie() {
    let rules = r#"ruleset follow
stat speed = 0
initiative { value speed; made at round_start }
round { phase prep: simultaneous preparation; phase act: turns }
preparation wait { target other; resolve { follow target } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "C", side: "b", stats: {"speed": 15}, controller: Policy(Passive)),
  (name: "A", side: "a", stats: {"speed": 25}, controller: Script(steps: [Act(round: 1, action: "wait", target: "B")], fallback: Passive)),
  (name: "B", side: "b", stats: {"speed": 16}, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &["Initiative: A (25), then B (16), then C (15).", "Initiative: B (16), then A (15), then C (15)."],
    );
}

// Engine: tie-breaks after `simultaneous` order the shared turn without splitting it (004:
// tied characters gain their slots together, players first).
#[test]
fn tie_breaks_after_simultaneous_order_the_group() {
    let rules = r#"ruleset shared
initiative { value 5; ties simultaneous, then players_first }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
action strike { cost 1 ap }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "Npc", side: "b", controller: Policy(Aggressive)),
  (name: "Pc", side: "a", player: true, controller: Policy(Aggressive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &["Initiative: [Pc (5), Npc (5)] together.", "Pc's turn.", "Npc's turn.", "Pc uses strike", "Npc uses strike"],
    );
}

// Engine: a rest of `hours N` needs N uninterrupted hours at the end of the downtime (002,
// Rest & Downtime); overspent pools recover from where they are (000, Negative Energy Limits).
#[test]
fn a_rest_needs_its_hours_and_overspent_pools_recover_from_below() {
    let rules = r#"ruleset rest
initiative { value 0 }
round { phase act: turns }
pool energy { max 5; overspend to -2 { } }
pool hp { max 10 }
downtime every 1 hour { energy += 1 }
rest full hours 3 { hp = hp.max }
"#;
    let scenario = |interrupted: u32| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", pools: {{"energy": -2, "hp": 4}}, controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
], after: (downtime_hours: 4, interrupted_hour: {interrupted}, rest: "full"))"#
        )
    };
    let t = play(rules, &scenario(2)).unwrap();
    assert_in_order(&t, &["A: energy -2 -> -1 (downtime)", "Rest: full, cut short: 2 of 3 uninterrupted hours."]);
    assert!(!t.contains("A: hp 4 -> 10"), "{t}");
    let t = play(rules, &scenario(1)).unwrap();
    assert_in_order(&t, &["Rest: full, taken.", "A: hp 4 -> 10 (full)"]);
}

// Language: `chains fifo` resolves reactions in the order they were declared.
#[test]
fn fifo_chains_resolve_in_declaration_order() {
    let rules = r#"ruleset chain
initiative { value speed }
round { phase act: turns }
chains fifo
stat speed = 0
pool ap { max 3; refresh at turn_start }
pool hp { max 20 }
event shout
action call { cost 1 ap; resolve { emit shout } }
reaction echo { cost 1 ap; on shout by other; resolve { hp -= 1 } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "Caller", side: "x", stats: {"speed": 9}, controller: Script(steps: [Act(round: 1, action: "call"), EndTurn(round: 1)], fallback: Passive)),
  (name: "First", side: "x", stats: {"speed": 5}, controller: Policy(Aggressive)),
  (name: "Second", side: "y", stats: {"speed": 1}, controller: Policy(Aggressive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "First answers shout with echo.",
            "Second answers shout with echo.",
            "First's echo resolves.",
            "First: hp 20 -> 19",
            "Second's echo resolves.",
            "Second: hp 20 -> 19",
        ],
    );
}

// Language: a condition remembers who applied it: `has ... by` and `lasts while source ...`
// (001, Feint and Grapple).
#[test]
fn a_condition_knows_its_source() {
    let rules = r#"ruleset source
initiative { value speed }
round { phase act: turns }
stat speed = 0
pool ap { max 2; refresh at turn_start }
condition marked { }
condition holding { maintain at turn_start { pay 2 ap } }
condition held { lasts while source has holding }
action mark { cost 0; target enemy; resolve { apply marked to target } }
action grab { cost 0; target enemy; resolve { apply holding; apply held to target } }
action hit { cost 0; target enemy; resolve { if target has marked by self { target.ap -= 1 } } }
action release { cost 0; resolve { remove holding } }
"#;
    let s = r#"(seed: 1, rounds: 2, participants: [
  (name: "A", side: "a", stats: {"speed": 9}, controller: Script(steps: [Act(round: 1, action: "mark", target: "C"), Act(round: 1, action: "grab", target: "C"), Act(round: 1, action: "hit", target: "C"), EndTurn(round: 1), Act(round: 2, action: "release")], fallback: Passive)),
  (name: "B", side: "a", stats: {"speed": 5}, pools: {"ap": 1}, controller: Script(steps: [Act(round: 1, action: "hit", target: "C"), EndTurn(round: 1), Act(round: 2, action: "hit", target: "C")], fallback: Passive)),
  (name: "C", side: "b", stats: {"speed": 1}, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "C is now marked.",
            "C is now held.",
            "C: ap 2 -> 1 (hit by A)",
            "B uses hit (action) at C",
            "== Round 2 ==",
            "A uses release",
            "A is no longer holding.",
            "C is no longer held.",
        ],
    );
    assert!(!t.contains("C: ap 1 -> 0 (hit by B)"), "only the marker's hits use the mark:\n{t}");
}

// Language: an interrupting answer that cancels an emitted event halts the rest of the rule
// that emitted it; `actor.last_check` reads the total of the attacker's check (001, Dodge/Parry:
// a dodge comes after the attack would hit, against its roll).
#[test]
fn a_cancelled_emit_halts_the_rest_and_last_check_is_readable() {
    let rules = r#"ruleset dodge
initiative { value speed }
round { phase act: turns }
stat speed = 0
stat skill = 0
pool ap { max 2; refresh at turn_start }
pool hp { max 10 }
event would_hit
action attack { cost 1 ap; target enemy; resolve { check 1d20 + skill vs 10 { success { emit would_hit; target.hp -= 3 } } } }
reaction dodge { cost 1 ap; on would_hit against self; interrupts; resolve { check 1d20 + skill vs actor.last_check { success { cancel } } } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 9, "skill": 20}, controller: Script(steps: [Act(round: 1, action: "attack", target: "B"), Act(round: 1, action: "attack", target: "C")], fallback: Passive)),
  (name: "B", side: "b", stats: {"skill": 100}, controller: Policy(Aggressive)),
  (name: "C", side: "b", stats: {"skill": -100}, controller: Policy(Aggressive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "A uses attack (action) at B",
            "A's check: ",
            "B answers would_hit with dodge.",
            "B's check: ",
            "success",
            "A uses attack (action) at C",
            "C answers would_hit with dodge.",
            "C's check: ",
            "failure",
            "C: hp 10 -> 7 (attack by A)",
        ],
    );
    assert!(!t.contains("B: hp 10 -> 7"), "a dodged hit deals nothing:\n{t}");
}

// Language: `count_near(RELATION, WHO, REACH)` counts those standing within their own reach
// of someone (001, Gang-up).
#[test]
fn count_near_counts_those_within_their_own_reach() {
    let rules = r#"ruleset gang
initiative { value speed }
round { phase act: turns }
space grid
stat speed = 0
stat reach = 1
pool ap { max 1; refresh at turn_start }
pool hp { max 10 }
action strike { cost 1 ap; target enemy; resolve { target.hp -= 1 + count_near(ally, target, reach) } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 9}, position: 0, controller: Script(steps: [Act(round: 1, action: "strike", target: "E")], fallback: Passive)),
  (name: "B", side: "a", position: 2, controller: Policy(Passive)),
  (name: "C", side: "a", position: 3, controller: Policy(Passive)),
  (name: "D", side: "a", stats: {"reach": 3}, position: 4, controller: Policy(Passive)),
  (name: "E", side: "b", position: 1, controller: Policy(Passive)),
])"#;
    // B (1 away, reach 1) and D (3 away, reach 3) threaten E; C (2 away, reach 1) does not.
    let t = play(rules, s).unwrap();
    assert_in_order(&t, &["E: hp 10 -> 7 (strike by A)"]);
}

// Engine: a chain is declared and paid before any of it resolves, so a reaction that
// cancels the action does not take back the others: they were declared and paid, and they
// resolve (000, Reaction Chains: a chain is declared, then resolved).
#[test]
fn a_cancel_in_a_chain_leaves_the_other_declarations_paid_and_resolving() {
    let rules = r#"ruleset chain
initiative { value speed }
round { phase act: turns }
stat speed = 0
pool ap { max 2; refresh at turn_start }
pool hp { max 10 }
action strike { cost 1 ap; target enemy; resolve { target.hp -= 3 } }
reaction block { cost 1 ap; on strike against ally; interrupts; resolve { cancel } }
reaction dodge { cost 1 ap; on strike against self; interrupts; resolve { cancel; hp += 1 } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 9}, controller: Script(steps: [Act(round: 1, action: "strike", target: "B"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", stats: {"speed": 5}, pools: {"hp": 5}, controller: Policy(Aggressive)),
  (name: "C", side: "b", stats: {"speed": 1}, controller: Policy(Aggressive)),
])"#;
    let t = play(rules, s).unwrap();
    // B declares first (priority), C second; C's block resolves first and cancels the strike;
    // B's dodge was declared and paid, and still resolves.
    assert_in_order(
        &t,
        &[
            "A uses strike (action) at B",
            "B answers strike with dodge.",
            "B: ap 2 -> 1 (dodge by B)",
            "C answers strike with block.",
            "C: ap 2 -> 1 (block by C)",
            "C's block resolves.",
            "B's dodge resolves.",
            "B: hp 5 -> 6 (dodge by B)",
        ],
    );
    assert!(!t.lines().any(|l| l.contains(": hp ") && l.contains("(strike by A)")), "the strike was cancelled:\n{t}");
}

// Language: `move through` goes past its target to the far side; under `enemies_block` only
// that one enemy's place may be passed, and under `no_sharing` it never ends on a taken place
// (001, Tumble Through).
#[test]
fn move_through_passes_its_target_only() {
    let rules = r#"ruleset tumble
initiative { value speed }
round { phase act: turns }
space grid: enemies_block, no_sharing
stat speed = 0
pool ap { max 1; refresh at turn_start }
action tumble { cost 1 ap; target enemy within 1; resolve { move through 3 } }
"#;
    let scenario = |c_at: i64| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 9}}, position: 0, controller: Script(steps: [Act(round: 1, action: "tumble", target: "B")], fallback: Passive)),
  (name: "B", side: "b", position: 1, controller: Policy(Passive)),
  (name: "C", side: "b", position: {c_at}, controller: Policy(Passive)),
])"#
        )
    };
    // Nothing beyond B: one place past it, not three.
    assert_in_order(&play(rules, &scenario(9)).unwrap(), &["A moves from 0 to 2."]);
    // C holds the place beyond B: A cannot end there, nor on B's place, so it stays.
    let t = play(rules, &scenario(2)).unwrap();
    assert!(!t.contains("A moves"), "{t}");
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
const TRACKS: &str = r#"ruleset tracks
initiative { value 0 }
round { phase act: turns }
stat vigor_mod = 0
derive wound_max = 1 + vigor_mod
pool energy { max 6; overspend to -3 { choose owner "Overspend: gain a Wound or a Fatigue?" { wound: { wounds += 1 } fatigue: { fatigue += 1 } } } }
pool wounds { max none; start 0; when > wound_max { apply dead } }
pool fatigue { max none; start 0; when > 1 { apply out } }
condition dead { blocks actions, reactions }
condition out { blocks actions, reactions }
action surge { cost 4 energy }
downtime every 1 hour { choose owner "Remove a Wound or a Fatigue?" { wound: { wounds -= 1 } fatigue: { fatigue -= 1 } } }
"#;

// Frontiers, 000 "Downtime Recovery": one Wound or one Fatigue an hour. With no Wound to
// remove, a policy removes the Fatigue (it used to remove the Wound it did not have).
#[test]
fn a_policy_removes_what_it_has_not_a_wound_it_lacks() {
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", pools: {"wounds": 0, "fatigue": 1}, controller: Policy(Aggressive)),
  (name: "B", side: "b", pools: {"wounds": 1, "fatigue": 0}, controller: Policy(Passive)),
], after: (downtime_hours: 1))"#;
    let t = play(TRACKS, s).unwrap();
    assert_in_order(
        &t,
        &[
            "A chooses fatigue (Remove a Wound or a Fatigue?).",
            "A: fatigue 1 -> 0 (downtime)",
            "B chooses wound (Remove a Wound or a Fatigue?).",
            "B: wounds 1 -> 0 (downtime)",
        ],
    );
}

// Frontiers, 000 "Overspend as Controlled Bleed": a character with more room for Wounds bleeds
// into Wounds, one closer to its Fatigue maximum too; with equal room, the first option.
#[test]
fn an_overspend_bleeds_into_the_track_with_more_room() {
    let s = |vigor: i64, fatigue: i64| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"vigor_mod": {vigor}}}, pools: {{"energy": 1, "fatigue": {fatigue}}}, controller: Script(steps: [Act(round: 1, action: "surge")], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#
        )
    };
    // Room for 1 more of each: the first option.
    let t = play(TRACKS, &s(0, 0)).unwrap();
    assert_in_order(&t, &["A chooses wound (Overspend: gain a Wound or a Fatigue?).", "A: wounds 0 -> 1 (overspend)"]);
    // One Fatigue from the maximum: the Wound.
    let t = play(TRACKS, &s(0, 1)).unwrap();
    assert_in_order(&t, &["A chooses wound (Overspend: gain a Wound or a Fatigue?)."]);
    assert!(!t.contains("dead") && !t.contains("out"), "{t}");
    // Room for 3 Wounds with a Fatigue already held: still the Wound.
    let t = play(TRACKS, &s(2, 1)).unwrap();
    assert_in_order(&t, &["A chooses wound (Overspend: gain a Wound or a Fatigue?)."]);
    // A Wound already at the maximum would kill: the Fatigue.
    let dying = s(0, 0).replace(r#""fatigue": 0"#, r#""fatigue": 0, "wounds": 1"#);
    let t = play(TRACKS, &dying).unwrap();
    assert_in_order(
        &t,
        &["A chooses fatigue (Overspend: gain a Wound or a Fatigue?).", "A: fatigue 0 -> 1 (overspend)"],
    );
}

// Random still answers from the run's seeded generator: the same seed, the same answers.
#[test]
fn a_random_chooser_is_seeded() {
    let s = r#"(seed: 5, rounds: 1, participants: [
  (name: "A", side: "a", pools: {"wounds": 1, "fatigue": 1}, controller: Policy(Random)),
  (name: "B", side: "b", controller: Policy(Passive)),
], after: (downtime_hours: 6))"#;
    assert_eq!(play(TRACKS, s).unwrap(), play(TRACKS, s).unwrap());
}

// Frontiers, 000 "Gaining a Wound": the downed reawaken at encounter end only if an ally can
// reach them, a fact of the state: nobody is asked.
#[test]
fn nobody_reaches_the_downed_when_no_ally_stands() {
    let rules = std::fs::read_to_string("rulesets/frontiers.rules").unwrap();
    let s = |ally: &str| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", pools: {{"hp": 0}}, conditions: ["unconscious"], controller: Policy(Passive)),
  {ally}
  (name: "B", side: "b", position: 9, controller: Policy(Passive)),
])"#
        )
    };
    let alone = play(&rules, &s("")).unwrap();
    assert!(!alone.contains("A: hp 0 -> 1"), "{alone}");
    let down = r#"(name: "C", side: "a", pools: {"hp": 0}, conditions: ["unconscious"], controller: Policy(Passive)),"#;
    let t = play(&rules, &s(down)).unwrap();
    assert!(!t.contains("A: hp 0 -> 1"), "a downed ally reaches nobody:\n{t}");
    let stuck = r#"(name: "C", side: "a", position: 2, conditions: ["immobilized"], controller: Policy(Passive)),"#;
    let t = play(&rules, &s(stuck)).unwrap();
    assert!(!t.contains("A: hp 0 -> 1"), "an ally who cannot move reaches only the adjacent:\n{t}");
    let beside = r#"(name: "C", side: "a", position: 1, conditions: ["immobilized"], controller: Policy(Passive)),"#;
    let t = play(&rules, &s(beside)).unwrap();
    assert_in_order(&t, &["A: hp 0 -> 1 (at encounter_end)"]);
    let standing = r#"(name: "C", side: "a", position: 40, controller: Policy(Passive)),"#;
    let t = play(&rules, &s(standing)).unwrap();
    assert_in_order(&t, &["A: hp 0 -> 1 (at encounter_end)"]);
    assert!(!t.contains("reach them?"), "nobody is asked:\n{t}");
}

// Greedy weighs its candidates: a weak first action and a strong second one. Aggressive takes
// the first declared; Greedy the one that does more harm.
#[test]
fn greedy_takes_the_stronger_action_where_aggressive_takes_the_first() {
    let rules = r#"ruleset greedy
initiative { value speed }
round { phase act: turns }
stat speed = 0
pool ap { max 2; refresh at turn_start }
pool hp { max 20; when <= 0 { apply down } }
condition down { blocks actions, reactions }
action jab { cost 1 ap; target enemy; resolve { target.hp -= 1 } }
action swing { cost 1 ap; target enemy; resolve { check 1d20 vs 6 { success { target.hp -= 1d6 + 2 } } } }
"#;
    let s = |policy: &str| {
        format!(
            r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 1}}, controller: Policy({policy})),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#
        )
    };
    let aggressive = play(rules, &s("Aggressive")).unwrap();
    assert_in_order(&aggressive, &["A uses jab (action) at B", "A uses jab (action) at B"]);
    assert!(!aggressive.contains("swing"), "{aggressive}");
    let greedy = play(rules, &s("Greedy")).unwrap();
    assert_in_order(&greedy, &["A uses swing (action) at B", "A uses swing (action) at B"]);
    assert!(!greedy.contains("jab"), "{greedy}");
}

// Greedy does not pay an overspend that would take it out for a blow, and closes in first.
#[test]
fn greedy_weighs_the_price_of_an_overspend_and_closes_in() {
    let rules = r#"ruleset greedy
initiative { value speed }
round { phase act: turns }
space grid
stat speed = 0
pool ap { max 3; refresh at turn_start }
pool mp { max 3; refresh at turn_start }
pool energy { max 2; overspend to -2 { wounds += 1 } }
pool wounds { max none; start 0; when > 0 { apply dead } }
pool hp { max 20; when <= 0 { apply down } }
condition down { blocks actions, reactions }
condition dead { blocks actions, reactions }
action walk { cost 1 mp per unit; resolve { move units } }
action strike { cost 1 ap; target enemy within 1; resolve { target.hp -= 2 } }
action surge { cost 1 ap + 2 energy; target enemy within 1; resolve { target.hp -= 6 } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 1}, position: 0, controller: Policy(Greedy)),
  (name: "B", side: "b", position: 3, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(
        &t,
        &["A uses walk", "A uses surge (action) at B", "A uses strike (action) at B", "A uses strike (action) at B"],
    );
    assert!(
        !t.contains("A: energy 0 ->") && !t.contains("A: wounds 0 -> 1"),
        "Greedy overspent into a fatal Wound:\n{t}"
    );
}

/// Policies try targets nearest first and stop at a refusal no other target could change
/// (`run::shape`). A cost that reads the target is not such a refusal: here the nearest enemy
/// is too costly to strike (armoured, 5 AP) and the farther one is not (1 AP), so the policy
/// must go on to the farther one. Were the cost taken as the same for every target, it would
/// stop at the first and strike no one.
#[test]
fn a_cost_that_reads_the_target_lets_the_policy_try_the_next_target() {
    let rules = r#"ruleset t
initiative { value 0; ties table }
round { phase act: turns }
stat armour = 0
pool ap { max 3; refresh at turn_start }
pool hp { max 10 }
action strike {
  cost 5 ap when target.armour > 0
  cost 1 ap
  target enemy
  resolve { target.hp -= 1 }
}
"#;
    let scenario_text = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Aggressive)),
  (name: "Near", side: "b", stats: {"armour": 1}, position: 1, controller: Policy(Passive)),
  (name: "Far", side: "b", position: 5, controller: Policy(Passive)),
])"#;
    let text = play(rules, scenario_text).unwrap();
    assert_in_order(&text, &["A uses strike (action) at Far, paying 1 ap."]);
    assert!(!text.contains("at Near"), "{text}");
}

/// The reverse: a refusal for reach, with a reach that does not read the target, ends the
/// search (every farther target is out of reach too), and the turn still ends cleanly; a
/// nearer enemy within reach is struck.
#[test]
fn out_of_reach_ends_the_search_and_the_nearest_in_reach_is_struck() {
    let rules = r#"ruleset t
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
pool hp { max 10 }
action strike { cost 1 ap; target enemy within 1; resolve { target.hp -= 1 } }
"#;
    let far = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Aggressive)),
  (name: "B", side: "b", position: 3, controller: Policy(Passive)),
  (name: "C", side: "b", position: 6, controller: Policy(Passive)),
])"#;
    let text = play(rules, far).unwrap();
    assert!(!text.contains("uses strike"), "{text}");
    assert_in_order(&text, &["A's turn.", "A's turn ends."]);
    let near = far.replace("position: 3", "position: 1");
    let text = play(rules, &near).unwrap();
    assert_in_order(&text, &["A uses strike (action) at B, paying 1 ap."]);
}

// Scenario: a participant placed inside a threshold (0 HP) holds the conditions the threshold
// gives, with their `while`, but not its other effects: no Wound is added (docs/scenario.md,
// "Starting inside a threshold"). So a Stabilize wakes them as it would anyone fallen.
#[test]
fn a_participant_placed_at_zero_hp_starts_unconscious_without_a_second_wound() {
    let rules = std::fs::read_to_string("rulesets/frontiers.rules").unwrap();
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "Medic", side: "a", stats: {"initiative_base": 9}, position: 0, controller: Script(steps: [Act(round: 1, action: "stabilize", target: "Down")], fallback: Passive)),
  (name: "Down", side: "a", pools: {"hp": 0, "wounds": 1}, position: 1, controller: Policy(Aggressive)),
  (name: "Foe", side: "b", position: 30, controller: Policy(Passive)),
])"#;
    let t = play(&rules, s).unwrap();
    assert_in_order(
        &t,
        &[
            "Encounter starts",
            "Down is now unconscious.",
            "Down is now prone.",
            "Initiative:",
            "Medic uses stabilize (action) at Down",
            "Down: hp 0 -> 1 (stabilize by Medic)",
            "Down is no longer unconscious.",
            "Down's turn.",
        ],
    );
    assert!(!t.contains("Down: wounds"), "the scenario's Wound is the only one:\n{t}");
    // Placed past the Wound maximum: dead from the start.
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "Gone", side: "a", pools: {"wounds": 3}, controller: Policy(Aggressive)),
  (name: "Foe", side: "b", position: 30, controller: Policy(Passive)),
])"#;
    let t = play(&rules, s).unwrap();
    assert_in_order(&t, &["Encounter starts", "Gone is now dead.", "Initiative:"]);
    assert!(!t.contains("Gone uses"), "{t}");
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

// Scenario: `gm_answers` tells the GM how to answer a named `choose gm` question, whatever its
// policy; a question or option the ruleset does not have is a scenario error.
#[test]
fn a_scenario_tells_the_gm_how_to_answer_a_named_question() {
    let rules = std::fs::read_to_string("rulesets/frontiers.rules").unwrap();
    let s = |answers: &str| {
        format!(
            r#"(seed: 1, rounds: 1, gm_answers: {{{answers}}}, participants: [
  (name: "A", side: "a", stats: {{"initiative_base": 1}}, conditions: ["initiating"], controller: Policy(Passive)),
  (name: "B", side: "b", stats: {{"initiative_base": 9}}, position: 30, controller: Policy(Passive)),
])"#
        )
    };
    // The Aggressive GM takes the first option, `yes`; told `no`, it says no.
    let t = play(&rules, &s("")).unwrap();
    assert_in_order(&t, &["GM chooses yes (Let the initiator act first in Round 1?).", "A's turn.", "B's turn."]);
    let t = play(&rules, &s(r#""Let the initiator act first in Round 1?": "no""#)).unwrap();
    assert_in_order(&t, &["GM chooses no (Let the initiator act first in Round 1?).", "B's turn.", "A's turn."]);
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

// Engine: two changes to one pool before its thresholds are looked at are one crossing: a rule
// doing `hp -= 2; hp -= 1` from 3 HP gives one Wound, not two.
#[test]
fn two_changes_before_a_settle_cross_a_threshold_once() {
    let rules = r#"ruleset twice
initiative { value speed }
round { phase act: turns }
stat speed = 0
pool ap { max 1; refresh at turn_start }
pool hp { max 10; when <= 0 { wounds += 1 } }
pool wounds { max none; start 0 }
action hit { target enemy; resolve { target.hp -= 2; target.hp -= 1 } }
"#;
    let s = r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 9}, controller: Script(steps: [Act(round: 1, action: "hit", target: "B")], fallback: Passive)),
  (name: "B", side: "b", pools: {"hp": 3}, controller: Policy(Passive)),
])"#;
    let t = play(rules, s).unwrap();
    assert_in_order(&t, &["B: hp 3 -> 1 (hit by A)", "B: hp 1 -> 0 (hit by A)", "B: wounds 0 -> 1 (hp <= 0)"]);
    assert!(!t.contains("B: wounds 1 -> 2"), "one crossing, one Wound:\n{t}");
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

/// Issue 14: the Aggressive policy does not walk away from the enemy it is closing on. A Dash
/// (untargeted, once a turn) brings it nearer; the retreat that is then the only other
/// untargeted action is never taken.
#[test]
fn aggressive_never_retreats_after_a_dash() {
    let rules = "ruleset dash
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool hp { max 10 }
action strike { cost 1 ap; target enemy; requires distance(target) <= 1; resolve { target.hp -= 1 } }
action dash { cost 1 ap; resolve { move 3 } }
action retreat { cost 1 ap; resolve { move away 3 } }
";
    let scenario = r#"(rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Aggressive)),
  (name: "B", side: "b", position: 10, controller: Policy(Passive)),
])"#;
    let t = play(rules, scenario).unwrap();
    assert_in_order(&t, &["A uses dash (action)", "A moves from 0 to 3."]);
    assert!(!t.contains("A uses retreat"), "{t}");
    assert!(!t.contains("A moves from 3 to 0"), "{t}");
}

/// `roll EXPR until different` rolls again among those still tied; a tie that can never break
/// (a constant) goes on to the next tie-break after `MAX_ROLL_OFFS` roll-offs.
#[test]
fn a_roll_off_until_different_that_never_breaks_goes_on_to_the_next_tie_break() {
    let rules = "ruleset ties
initiative { value 5; ties roll 0 until different, then gm }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
";
    let scenario = r#"(rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let t = play(rules, scenario).unwrap();
    assert_in_order(&t, &["GM chooses A, B (tie in initiative).", "Initiative: A (5), then B (5)."]);
    // With dice, it breaks: three participants on 1d1000 come out in some order, no GM.
    let dice = rules.replace("roll 0 until different", "roll 1d1000 until different");
    let three = scenario.replace(
        r#"(name: "B", side: "b", controller: Policy(Passive)),"#,
        r#"(name: "B", side: "b", controller: Policy(Passive)), (name: "C", side: "c", controller: Policy(Passive)),"#,
    );
    let t = play(&dice, &three).unwrap();
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

// Dice whose count and size come from stats (issue 14): `dice(level, die)` rolls `level` dice of
// `die` sides as they stand when rolled; a count of 0 rolls nothing; sides of 0 stop the run.
#[test]
fn dice_read_their_count_and_size_from_stats() {
    let rules = r#"ruleset computed_dice
initiative { value 0; ties table }
round { phase act: turns }
stat level = 0
stat die = 6
pool ap { max 3; refresh at turn_start }
pool hp { max 100 }
action hit { cost 1 ap; target enemy; resolve { target.hp -= dice(level, die) } }
"#;
    let scenario = |level: i64, die: i64| {
        format!(
            r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"level": {level}, "die": {die}}}, controller: Script(steps: [Act(round: 1, action: "hit", target: "B"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#
        )
    };
    let text = play(rules, &scenario(3, 8)).expect("runs");
    assert_in_order(&text, &["A uses hit (action) at B", "A rolls 3d8: ", "B: hp 100 -> "]);
    // Level 0: nothing is rolled and nothing is lost.
    let text = play(rules, &scenario(0, 8)).expect("runs");
    assert!(!text.contains("rolls"), "{text}");
    assert!(!text.contains("B: hp 100 ->"), "{text}");
    // A die of no sides is a rule that cannot be played.
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

// Alternating activation (issue 14): sides take turns one activation each, the side of the best
// value first, each side's own best first; a side that runs out drops out of the rotation.
#[test]
fn sides_can_alternate_activations() {
    let rules = "ruleset alternate
initiative { value speed; order alternating; ties table }
round { phase act: turns }
stat speed = 0
";
    let scenario = r#"(seed: 1, rounds: 1, participants: [
  (name: "A1", side: "a", stats: {"speed": 10}, controller: Policy(Passive)),
  (name: "A2", side: "a", stats: {"speed": 9}, controller: Policy(Passive)),
  (name: "A3", side: "a", stats: {"speed": 8}, controller: Policy(Passive)),
  (name: "B1", side: "b", stats: {"speed": 7}, controller: Policy(Passive)),
  (name: "B2", side: "b", stats: {"speed": 1}, controller: Policy(Passive)),
])"#;
    let text = play(rules, scenario).expect("runs");
    assert_in_order(
        &text,
        &[
            "Initiative: A1 (10), then B1 (7), then A2 (9), then B2 (1), then A3 (8).",
            "A1's turn.",
            "B1's turn.",
            "A2's turn.",
            "B2's turn.",
            "A3's turn.",
        ],
    );
}

// Ties that put non-players first (issue 14), the mirror of `players_first`.
#[test]
fn ties_can_put_non_players_first() {
    let rules = "ruleset npcs_first
initiative { value 5; ties non_players_first, then table }
round { phase act: turns }
";
    let scenario = r#"(seed: 1, rounds: 1, participants: [
  (name: "Hero", side: "a", player: true, controller: Policy(Passive)),
  (name: "Goblin", side: "b", controller: Policy(Passive)),
])"#;
    let text = play(rules, scenario).expect("runs");
    assert_in_order(&text, &["Initiative: Goblin (5), then Hero (5).", "Goblin's turn.", "Hero's turn."]);
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

/// A ruleset with degrees read on the margin and the natural die (beat by 10: a critical
/// success; miss by 10: a critical failure; a natural 1 one level worse). `1d1` always shows 1,
/// so every level below is fixed by the stats alone.
const DEGREES: &str = r#"ruleset degrees
initiative { value 0; ties table }
round { phase act: turns }
stat skill = 0
stat guard = 0
pool ap { max 9; refresh at turn_start }
pool hp { max 100 }
degrees pf2 {
  critical_success: success when margin >= 10
  success: success when margin >= 0
  failure: failure when margin > -10
  critical_failure: failure
  up when natural == 20
  down when natural == 1
}
## Contests: a modifier of 50 to 99 is great, whatever the total.
degrees tiers {
  great: success when modifier >= 50 and modifier < 100
  good: success when total >= 10
  bad: failure
}
action plain { target enemy; resolve { check skill vs 10 degrees pf2 { critical_success { target.hp -= 10 } success { target.hp -= 5 } failure { hp -= 1 } critical_failure { hp -= 2 } } } }
action rolled { target enemy; resolve { check 1d1 + skill vs 10 degrees pf2 { critical_success { target.hp -= 10 } success { target.hp -= 5 } failure { hp -= 1 } critical_failure { hp -= 2 } } } }
action sparse { target enemy; resolve { check skill vs 10 degrees pf2 { success { target.hp -= 5 } failure { hp -= 1 } } } }
action best_only { target enemy; resolve { check skill vs 10 degrees pf2 { critical_success { target.hp -= 10 } } } }
action contest { target enemy; resolve { check 1d1 + skill vs 1d1 + target.guard degrees tiers { great { target.hp -= 7 } good { target.hp -= 3 } bad { hp -= 1 } } } }
action pressed { target enemy; resolve { check skill vs 10 degrees pf2, up when target.hp < 100 { critical_success { target.hp -= 10 } success { target.hp -= 5 } } } }
"#;

fn degrees_run(skill: i64, guard: i64, actions: &[&str]) -> String {
    let steps: Vec<String> = actions.iter().map(|a| format!(r#"Act(round: 1, action: "{a}", target: "B")"#)).collect();
    let a = format!("Script(steps: [{}, EndTurn(round: 1)], fallback: Passive)", steps.join(", "));
    let scenario = two(&a, "Policy(Passive)", 1)
        .replace(r#"(name: "A", side: "a","#, &format!(r#"(name: "A", side: "a", stats: {{"skill": {skill}}},"#))
        .replace(r#"(name: "B", side: "b","#, &format!(r#"(name: "B", side: "b", stats: {{"guard": {guard}}},"#));
    play(DEGREES, &scenario).expect("runs")
}

// Issue 14: degrees of success by margin, and the natural die shifting the degree.
#[test]
fn degrees_read_the_margin_then_shift_on_the_natural_die() {
    // No die: the margin alone. 20 vs 10 beats it by 10.
    let t = degrees_run(20, 0, &["plain"]);
    assert_in_order(&t, &["A's check: 20 vs 10, critical_success.", "B: hp 100 -> 90"]);
    let t = degrees_run(12, 0, &["plain"]);
    assert_in_order(&t, &["A's check: 12 vs 10, success.", "B: hp 100 -> 95"]);
    let t = degrees_run(1, 0, &["plain"]);
    assert_in_order(&t, &["A's check: 1 vs 10, failure.", "A: hp 100 -> 99"]);
    let t = degrees_run(0, 0, &["plain"]);
    assert_in_order(&t, &["A's check: 0 vs 10, critical_failure.", "A: hp 100 -> 98"]);
    // A natural 1 is one level worse: a critical success becomes a success, a failure a
    // critical failure; the worst level stays the worst.
    let t = degrees_run(19, 0, &["rolled"]);
    assert_in_order(&t, &["A's check: 20 vs 10, success.", "B: hp 100 -> 95"]);
    let t = degrees_run(8, 0, &["rolled"]);
    assert_in_order(&t, &["A's check: 9 vs 10, critical_failure.", "A: hp 100 -> 98"]);
    let t = degrees_run(-20, 0, &["rolled"]);
    assert_in_order(&t, &["A's check: -19 vs 10, critical_failure.", "A: hp 100 -> 98"]);
}

// A level without a block runs its side's nearest level toward the other side, and nothing when
// that side has none written there.
#[test]
fn a_level_without_a_block_runs_the_nearest_toward_the_other_side() {
    let t = degrees_run(20, 0, &["sparse"]);
    assert_in_order(&t, &["A's check: 20 vs 10, critical_success.", "B: hp 100 -> 95"]);
    let t = degrees_run(-20, 0, &["sparse"]);
    assert_in_order(&t, &["A's check: -20 vs 10, critical_failure.", "A: hp 100 -> 99"]);
    let t = degrees_run(12, 0, &["best_only"]);
    assert!(t.contains("A's check: 12 vs 10, success.") && !t.contains("B: hp"), "{t}");
}

// A check against a roll is a contest: both rolls are graded, the better level wins, then the
// higher total, and a tie goes to the one checking; a beaten success is the best failure level.
#[test]
fn a_contest_compares_levels_before_totals() {
    // A great (modifier 60, total 61) against B good (modifier 150 is past great; total 151).
    let t = degrees_run(60, 150, &["contest"]);
    assert_in_order(&t, &["A's check: 61 vs 151 (good), great.", "B: hp 100 -> 93"]);
    // Both great: the higher total wins.
    let t = degrees_run(60, 80, &["contest"]);
    assert_in_order(&t, &["A's check: 61 vs 81 (great), bad.", "A: hp 100 -> 99"]);
    // Both good, equal totals: the one checking wins.
    let t = degrees_run(20, 20, &["contest"]);
    assert_in_order(&t, &["A's check: 21 vs 21 (good), good.", "B: hp 100 -> 97"]);
}

// A check's own shift (`up when ...`) moves its level after the degrees' own.
#[test]
fn a_check_may_shift_its_own_level() {
    let t = degrees_run(12, 0, &["plain", "pressed"]);
    assert_in_order(
        &t,
        &[
            "A's check: 12 vs 10, success.",
            "B: hp 100 -> 95",
            "A's check: 12 vs 10, critical_success.",
            "B: hp 95 -> 85",
        ],
    );
}

// `default degrees` grades every check that names none; the built-in outcomes remain without it.
#[test]
fn default_degrees_grade_every_check_that_names_none() {
    let rules = DEGREES.replace("action plain", "default degrees pf2\naction bare { target enemy; resolve { check skill vs 10 { critical_success { target.hp -= 10 } } } }\naction plain");
    let a = r#"Script(steps: [Act(round: 1, action: "bare", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let scenario = two(a, "Policy(Passive)", 1)
        .replace(r#"(name: "A", side: "a","#, r#"(name: "A", side: "a", stats: {"skill": 25},"#);
    let t = play(&rules, &scenario).expect("runs");
    assert_in_order(&t, &["A's check: 25 vs 10, critical_success.", "B: hp 100 -> 90"]);
    // Without the default the same outcome name is not a built-in one.
    let c = compile_str("t.rules", &rules.replace("default degrees pf2\n", ""));
    let codes: Vec<String> = c.diagnostics.iter().map(|d| d.code.name()).collect();
    assert_eq!(codes, ["tempo::unknown-option"], "{:?}", c.diagnostics);
}

/// Reach and the movement events through it (issue 14: opportunity attacks without a separate
/// action; issue 15: moving out of a threatened hex).
const REACH: &str = r#"ruleset reach
initiative { value 0; ties table }
round { phase act: turns }
space grid
stat reach_stat = 1
pool ap { max 3; refresh at turn_start }
pool rp { max 1; refresh at turn_start }
pool hp { max 20; when <= 0 { apply down } }
condition down { blocks actions, reactions, movement }
condition rooted { blocks movement }
reach reach_stat
action retreat { cost 1 ap; resolve { move away 4; hp += 0 } }
action approach { cost 1 ap; resolve { move 6 } }
action shove { cost 1 ap; target enemy; resolve { push target 3 } }
reaction opportunity_attack { cost 1 rp; on leave_reach by enemy against self; interrupts; resolve { actor.hp -= 5 } }
reaction set_spear { on enter_reach by enemy against self; resolve { actor.hp -= 1 } }
reaction hold_fast { cost 1 rp; on move_in_reach by enemy against self; interrupts; resolve { apply rooted to actor; cancel } }
"#;

fn reach_run(a_steps: &str, others: &str) -> String {
    let scenario = format!(
        r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Script(steps: [{a_steps}, EndTurn(round: 1)], fallback: Passive)),
{others}])"#
    );
    play(REACH, &scenario).expect("runs")
}

#[test]
fn leaving_reach_is_answered_before_the_step_and_entering_after_it() {
    let t = reach_run(
        r#"Act(round: 1, action: "retreat"), Act(round: 1, action: "approach")"#,
        r#"  (name: "B", side: "b", position: 1, controller: Script(steps: [React(round: 1, reaction: "opportunity_attack")], fallback: Passive)),
  (name: "C", side: "b", position: -6, controller: Script(steps: [React(round: 1, reaction: "set_spear")], fallback: Passive)),
"#,
    );
    assert_in_order(
        &t,
        &[
            "A uses retreat (action)",
            "B answers leave_reach with opportunity_attack.",
            "A: hp 20 -> 15 (opportunity_attack by B)",
            "A moves from 0 to -4.",
            "A uses approach (action)",
            "A moves from -4 to -5.",
            "C answers enter_reach with set_spear.",
            "A: hp 15 -> 14 (set_spear by C)",
        ],
    );
    // The move toward C passes nobody else's reach, so it is one line.
    assert!(!t.contains("A moves from -4 to -4"), "{t}");
}

#[test]
fn an_answer_that_cancels_the_movement_stops_it_and_the_rest_of_the_rule() {
    let t = reach_run(
        r#"Act(round: 1, action: "retreat")"#,
        r#"  (name: "B", side: "b", position: 1, controller: Script(steps: [React(round: 1, reaction: "hold_fast")], fallback: Passive)),
"#,
    );
    assert_in_order(&t, &["A uses retreat (action)", "B answers move_in_reach with hold_fast.", "A is now rooted."]);
    assert!(!t.contains("A moves from"), "the move was stopped where it began:\n{t}");
}

#[test]
fn a_move_is_cut_only_where_someone_could_answer() {
    // B is A's ally: its reach answers nothing, so the move past it is not cut there.
    let t = reach_run(
        r#"Act(round: 1, action: "retreat")"#,
        r#"  (name: "B", side: "a", position: 1, controller: Policy(Passive)),
  (name: "C", side: "b", position: -1, controller: Script(steps: [React(round: 1, reaction: "opportunity_attack")], fallback: Passive)),
"#,
    );
    assert_in_order(&t, &["C answers leave_reach with opportunity_attack.", "A moves from 0 to 4."]);
    // Cut at the ally's reach, the move would show `A moves from 0 to 2.` first.
    assert!(!t.contains("A moves from 0 to 2."), "{t}");
}

#[test]
fn reach_events_need_reach() {
    let rules = REACH.replace("reach reach_stat\n", "");
    let c = compile_str("t.rules", &rules);
    let d = c.diagnostics.iter().find(|d| d.code.name() == "tempo::unknown-event").expect("an unknown event");
    assert!(format!("{d:?}").contains("reach 1"), "{d:?}");
}

/// Issue 14: thresholds are looked at when the rule that changed the pool ends (Frontiers,
/// "Damage While Down During Resolution"), unless written `immediately`: then right after each
/// change, so a second hit lands on the HP the threshold restored.
const STAGGER: &str = r#"ruleset stagger
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool wounds { max none }
pool hp { max 10; when <= 0 IMMEDIATELY { wounds += 1; hp = hp.max } }
action double_hit { cost 1 ap; target enemy; resolve { target.hp -= 5; target.hp -= 3 } }
"#;

#[test]
fn an_immediate_threshold_runs_between_two_hits_of_one_rule() {
    let a =
        r#"Script(steps: [Act(round: 1, action: "double_hit", target: "B"), EndTurn(round: 1)], fallback: Passive)"#;
    let scenario = two(a, "Policy(Passive)", 1)
        .replace(r#"(name: "B", side: "b","#, r#"(name: "B", side: "b", pools: {"hp": 5},"#);
    let now = play(&STAGGER.replace("IMMEDIATELY", "immediately"), &scenario).expect("runs");
    assert_in_order(
        &now,
        &["B: hp 5 -> 0 (double_hit by A)", "B: wounds 0 -> 1", "B: hp 0 -> 10", "B: hp 10 -> 7 (double_hit by A)"],
    );
    // Deferred (the default): the second hit finds 0 HP and is lost; the threshold runs once,
    // after the action.
    let later = play(&STAGGER.replace(" IMMEDIATELY", ""), &scenario).expect("runs");
    assert_in_order(&later, &["B: hp 5 -> 0 (double_hit by A)", "B: wounds 0 -> 1", "B: hp 0 -> 10"]);
    assert!(!later.contains("B: hp 10 -> 7"), "{later}");
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
const HEAT: &str = r#"ruleset heat
initiative { value 0; ties table }
round { phase act: turns }
pool actions { max 2; refresh at turn_start }
pool stress { rising; max 5 }
pool heat {
  rising
  max 10
  decay 2 at turn_start
  overspend to 14 { stress += 1 }
  when >= 10 { apply overheated }
}
condition overheated
action quick { cost 1 actions + 3 heat }
action full { cost 2 actions + 6 heat }
action vent { cost 1 actions; resolve { heat -= 4 } }
"#;

#[test]
fn a_rising_meter_fills_with_costs_and_overspends_past_its_max() {
    let a = r#"Script(steps: [Act(round: 1, action: "full"), Act(round: 2, action: "quick"), Act(round: 2, action: "quick"), Act(round: 3, action: "full"), Act(round: 4, action: "full"), Act(round: 4, action: "vent")], fallback: Passive)"#;
    let t = play(HEAT, &two(a, "Policy(Passive)", 4)).expect("runs");
    assert_in_order(
        &t,
        &[
            "A: heat 0 -> 6 (full by A)",
            "A: heat 6 -> 4 (decay at turn_start)",
            "A: heat 4 -> 7 (quick by A)",
            "A: heat 7 -> 10 (quick by A)",
            "A is now overheated.",
            "A: heat 10 -> 8 (decay at turn_start)",
            // Past the max, up to the overspend ceiling: the price is paid.
            "A: heat 8 -> 14 (full by A)",
            "A: stress 0 -> 1 (overspend)",
            // Overspent, it cools from where it is.
            "A: heat 14 -> 12 (decay at turn_start)",
            "A cannot use full: needs room for 6 heat, is at 12 of 14 [cost]",
            "A: heat 12 -> 8 (vent by A)",
        ],
    );
}

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

// Issue 15: `adjust cost all except CATEGORY` reaches every action but those named, also an
// action priced by `default cost` with no category at all.
#[test]
fn an_adjustment_can_leave_out_a_category() {
    let rules = r#"ruleset except_demo
initiative { value 0; ties table }
round { phase act: turns }
pool slots { max 20; refresh at turn_start }
category printed
default cost 1 slots
adjust cost all except printed, free: * 4
action plain { resolve { } }
action special { category printed; cost 3 slots; resolve { } }
free action wave { }
"#;
    let a = r#"Script(steps: [Act(round: 1, action: "plain"), Act(round: 1, action: "special"), Act(round: 1, action: "wave"), EndTurn(round: 1)], fallback: Passive)"#;
    let text = play(rules, &two(a, "Policy(Passive)", 1)).expect("runs");
    assert_in_order(
        &text,
        &["A uses plain (action), paying 4 slots.", "A uses special (action), paying 3 slots.", "A uses wave (free)"],
    );
}

// Issue 15: `interrupted when COND { ... }` loses a multi-round action under way as soon as COND
// holds (not at its next payment); the block runs whenever it is lost, unpaid too.
#[test]
fn a_multi_round_action_is_interrupted_when_its_condition_holds() {
    let rules = r#"ruleset ritual
initiative { value speed; ties table }
round { phase act: turns }
stat speed = 0
pool ap { max 2; refresh at turn_start }
pool hp { max 10 }
pool done { max none; start 0 }
condition chanting
condition stunned
action ritual {
  rounds 3
  interrupted when self has stunned { remove chanting }
  cost 2 ap
  resolve { done += 1 }
}
trigger begin { on ritual by self; resolve { apply chanting } }
action stun { target enemy; cost 1 ap; resolve { apply stunned to target } }
condition bound { blocks actions }
action bind { target enemy; cost 1 ap; resolve { apply bound to target } }
"#;
    // A begins the ritual; B stuns A in the same round: lost at once, the chant ends.
    let scenario = |b_acts: &str| {
        format!(
            r#"(seed: 1, rounds: 3, participants: [
  (name: "A", side: "a", stats: {{"speed": 9}}, controller: Script(steps: [Act(round: 1, action: "ritual"), EndTurn(round: 1), EndTurn(round: 2), EndTurn(round: 3)], fallback: Passive)),
  (name: "B", side: "b", controller: Script(steps: [{b_acts}], fallback: Passive)),
])"#
        )
    };
    let text =
        play(rules, &scenario(r#"Act(round: 1, action: "stun", target: "A"), EndTurn(round: 1)"#)).expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses ritual (action)",
            "A is now chanting.",
            "B uses stun (action) at A",
            "A is now stunned.",
            "A's ritual is lost: interrupted.",
            "A is no longer chanting.",
            "== Round 2 ==",
        ],
    );
    assert!(!text.contains("(ritual (continued))"), "{text}");
    // Not stunned: paid in rounds 2 and 3, then it resolves.
    let text = play(rules, &scenario(r#"EndTurn(round: 1)"#)).expect("runs");
    assert_in_order(&text, &["A: ap 2 -> 0 (ritual (continued))", "A's ritual is complete.", "A: done 0 -> 1"]);
    // A continuation that cannot be paid (A bound, so blocked from acting) loses it too, and the
    // block runs all the same.
    let text =
        play(rules, &scenario(r#"Act(round: 1, action: "bind", target: "A"), EndTurn(round: 1)"#)).expect("runs");
    assert_in_order(
        &text,
        &[
            "B uses bind (action) at A",
            "== Round 2 ==",
            "A's ritual is lost: it could not be paid.",
            "A is no longer chanting.",
        ],
    );
    // `interrupted when` on an action of one round is misplaced.
    assert_eq!(codes_of("ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\naction quick { interrupted when true; resolve { } }\n"), vec![Code::MisplacedClause]);
}

// Issue 15: `redirect` in an interrupting answer turns what it answers onto the one answering:
// an action resolves against them; after an emitted event, the rest of the emitting block and
// the event's later answers take them as the target. `swap WHO` trades places.
#[test]
fn an_interrupting_answer_can_redirect_what_it_answers_to_itself() {
    let rules = r#"ruleset guard
initiative { value speed; ties table }
round { phase act: turns }
space grid
stat speed = 0
pool ap { max 3; refresh at turn_start }
pool hp { max 20 }
pool marks { max none; start 0 }
event would_hit
event hit
action bolt { target enemy; cost 1 ap; resolve { target.hp -= 5 } }
action strike { target enemy; cost 1 ap; resolve { emit would_hit; target.hp -= 3; emit hit } }
reaction shield_bolt { on bolt by enemy against ally; interrupts; cost 1 ap; resolve { redirect } }
reaction shield_strike { on would_hit by enemy against ally; interrupts; cost 1 ap; resolve { redirect; swap victim } }
trigger count_hit { on hit against self; resolve { marks += 1 } }
"#;
    let s = |attack: &str| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 9}}, position: 0, controller: Script(steps: [Act(round: 1, action: "{attack}", target: "B"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", position: 1, controller: Policy(Passive)),
  (name: "G", side: "b", position: 3, controller: Policy(Aggressive)),
])"#
        )
    };
    // An action: the bolt resolves against G.
    let text = play(rules, &s("bolt")).expect("runs");
    assert_in_order(
        &text,
        &["A uses bolt (action) at B", "G answers bolt with shield_bolt.", "G: hp 20 -> 15 (bolt by A)"],
    );
    assert!(!text.contains("B: hp"), "{text}");
    // An emitted event: G takes B's place, the rest of the strike and its `hit` are G's.
    let text = play(rules, &s("strike")).expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses strike (action) at B",
            "G answers would_hit with shield_strike.",
            "G moves from 3 to 1.",
            "B is pushed from 1 to 3.",
            "G: hp 20 -> 17 (strike by A)",
            "G: marks 0 -> 1 (count_hit",
        ],
    );
    assert!(!text.contains("B: hp"), "{text}");
    assert!(!text.contains("B: marks"), "{text}");
    // Outside an answer, `redirect` is misplaced.
    assert_eq!(
        codes_of(
            "ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\naction quick { resolve { redirect } }\n"
        ),
        vec![Code::MisplacedClause]
    );
}

// Issue 15: a `shared` pool has one value for the whole encounter: every participant reads,
// pays from and adds to the same total. Steps at timings are refused on it.
#[test]
fn a_shared_pool_is_one_total_for_everyone() {
    let rules = r#"ruleset party
initiative { value speed; ties table }
round { phase act: turns }
stat speed = 0
pool ap { max 2; refresh at turn_start }
pool luck "Party luck" { shared; max 5; start 3 }
pool effort { shared; max none; start 0; when >= 3 { end_encounter } }
action push_on { cost 1 ap; resolve { effort += 1 } }
action lucky { cost 1 luck; resolve { } }
"#;
    let s = r#"(seed: 1, rounds: 2, participants: [
  (name: "A", side: "a", stats: {"speed": 9}, controller: Script(steps: [Act(round: 1, action: "push_on"), Act(round: 1, action: "lucky"), EndTurn(round: 1)], fallback: Passive)),
  (name: "C", side: "a", stats: {"speed": 5}, controller: Script(steps: [Act(round: 1, action: "lucky"), Act(round: 1, action: "push_on"), Act(round: 1, action: "push_on"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let text = play(rules, s).expect("runs");
    assert_in_order(
        &text,
        &[
            "A: effort 0 -> 1 (push_on by A)",
            "A: luck 3 -> 2 (lucky by A)",
            "C: luck 2 -> 1 (lucky by C)",
            "C: effort 1 -> 2 (push_on by C)",
            "C: effort 2 -> 3 (push_on by C)",
            "Encounter ends",
        ],
    );
    // A step at a timing would run once for each participant.
    assert_eq!(codes_of("ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\npool effort { shared; max 5; refresh at round_start }\n"), vec![Code::MisplacedClause]);
}

// Issue 15: `partners N within R`: a combo needs N allies, each within R of the actor, each paying
// the partner cost; with fewer it is refused, and nobody pays.
#[test]
fn a_combo_can_need_several_partners_in_range() {
    let rules = r#"ruleset teamwork
initiative { value speed; ties table }
round { phase act: turns }
space grid
stat speed = 0
pool ap { max 3; refresh at turn_start }
pool help { max 2 }
action lift { cost 1 ap; partner cost 1 help; partners 2 within 2; resolve { } }
"#;
    let s = |far: i64| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 9}}, position: 0, controller: Script(steps: [Act(round: 1, action: "lift"), EndTurn(round: 1)], fallback: Passive)),
  (name: "P", side: "a", position: 1, controller: Policy(Aggressive)),
  (name: "Q", side: "a", position: {far}, controller: Policy(Aggressive)),
  (name: "B", side: "b", position: 30, controller: Policy(Passive)),
])"#
        )
    };
    let text = play(rules, &s(2)).expect("runs");
    assert_in_order(&text, &["A uses lift (action)", "P: help 2 -> 1 (lift with A)", "Q: help 2 -> 1 (lift with A)"]);
    let text = play(rules, &s(3)).expect("runs");
    assert_in_order(&text, &["A cannot use lift: needs 2 allies who can pay the partner cost, has 1 [partner]"]);
    assert!(!text.contains("(lift with A)"), "{text}");
}

// `distance(A, B)` between two participants; one or two values, no more.
#[test]
fn distance_takes_one_or_two_participants() {
    let head = "ruleset d\ninitiative { value 0 }\nround { phase act: turns }\nspace grid\n";
    assert_eq!(codes_of(&format!("{head}derive near = distance(self, self)\n")), vec![]);
    assert_eq!(codes_of(&format!("{head}derive far = distance(self, self, self)\n")), vec![Code::WrongArity]);
}

// Issue 15: `terrain` kinds the scenario lays on places of the line. `slows N` makes each place
// take N units of a move (and compounds with a halved move); `blocks` stops a voluntary move
// before it; `unless COND` spares the mover; `move N leap L` clears a blocking stretch up to L
// places wide, paying a unit a place crossed and the landing place's own cost.
#[test]
fn terrain_slows_or_blocks_moves_and_a_leap_clears_a_narrow_gap() {
    let rules = r#"ruleset ground
initiative { value speed; ties table }
round { phase act: turns }
space grid
stat speed = 0
stat jump = 0
stat wings = 0
pool ap { max 1; refresh at turn_start }
terrain mud "Mud" { slows 3 unless wings > 0 }
terrain pit "Pit" { blocks unless wings > 0 }
terrain gate "Gate" { blocks if wings > 0 }
action walk { cost 1 ap; resolve { move 7 leap jump } }
action creep { cost 1 ap; resolve { move 7 / 2 } }
"#;
    let s = |stats: &str, action: &str, terrain: &str| {
        format!(
            r#"(seed: 1, rounds: 1, terrain: [{terrain}], participants: [
  (name: "A", side: "a", stats: {{"speed": 9, {stats}}}, position: 0, controller: Script(steps: [Act(round: 1, action: "{action}"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", position: 40, controller: Policy(Passive)),
])"#
        )
    };
    let mud = r#"(kind: "mud", from: 2, to: 3)"#;
    // 1 open place, 2 of mud at 3 units each, then 0 left: 1 + 6 = 7.
    assert_in_order(&play(rules, &s("\"jump\": 0", "walk", mud)).expect("runs"), &["A moves from 0 to 3."]);
    // Wings spare the mover the mud: all 7 places.
    assert_in_order(&play(rules, &s("\"wings\": 1", "walk", mud)).expect("runs"), &["A moves from 0 to 7."]);
    // A halved move (3 units) in mud from the start: one place, 3 units.
    let all_mud = r#"(kind: "mud", from: -50, to: 50)"#;
    assert_in_order(&play(rules, &s("\"jump\": 0", "creep", all_mud)).expect("runs"), &["A moves from 0 to 1."]);
    let pit = r#"(kind: "pit", from: 3, to: 4)"#;
    // The pit stops the walk before it.
    assert_in_order(&play(rules, &s("\"jump\": 1", "walk", pit)).expect("runs"), &["A moves from 0 to 2."]);
    // A leap of 2 clears it: 2 open places, 2 in the air, the landing place, then 2 more.
    assert_in_order(&play(rules, &s("\"jump\": 2", "walk", pit)).expect("runs"), &["A moves from 0 to 7."]);
    // `if` applies a clause only when it holds: the gate stops the winged, not the others.
    let gate = r#"(kind: "gate", from: 4)"#;
    assert_in_order(&play(rules, &s("\"wings\": 1", "walk", gate)).expect("runs"), &["A moves from 0 to 3."]);
    assert_in_order(&play(rules, &s("\"jump\": 0", "walk", gate)).expect("runs"), &["A moves from 0 to 7."]);
    // Without terrain in the scenario, the same rules walk the whole way.
    assert_in_order(&play(rules, &s("\"jump\": 0", "walk", "")).expect("runs"), &["A moves from 0 to 7."]);
    // A terrain kind the ruleset does not declare is a scenario error with a did-you-mean.
    let bad = scenario::parse(&s("\"jump\": 0", "walk", r#"(kind: "mudd", from: 1)"#)).expect("parses");
    let c = compile_str("t.rules", rules);
    let problems = scenario::resolve(&bad, c.ruleset.as_ref().expect("compiles")).expect_err("refused");
    assert!(
        problems
            .iter()
            .any(|p| p.to_string() == "terrain at 1: the ruleset has no terrain `mudd`; did you mean `mud`?"),
        "{problems:?}"
    );
}

// Issue 15: `object` kinds placed by the scenario, held or lying. `drop` lets go (the object
// lies N places toward or away from the rule's owner, on the farthest open place), `take ...
// from WHO` moves it into the owner's hands, `take ... within N` picks up one lying that near,
// `handle` takes hold with whoever holds it; `holds` and `handlers(KIND)` read them.
#[test]
fn objects_are_dropped_taken_and_handled_together() {
    let rules = r#"ruleset things
initiative { value speed; ties table }
round { phase act: turns }
space grid
stat speed = 0
pool ap { max 4; refresh at turn_start }
pool slots { max 4; refresh at turn_start }
object blade "Blade"
object crate "Crate"
action knock { cost 1 ap; target enemy within 1; requires target holds blade; resolve { drop blade from target away 3 } }
action knock_near { cost 1 ap; target enemy within 1; resolve { drop blade from target toward 1 } }
action grab { cost 1 ap; resolve { take blade within 1 } }
action snatch { cost 1 ap; target enemy within 1; resolve { take blade from target } }
action lift { cost 1 slots when handlers(crate) > 1; cost 0; resolve { handle crate within 1 } }
"#;
    let s = |a: &str, b: &str| {
        format!(
            r#"(seed: 1, rounds: 1,
  objects: [(kind: "blade", name: "the blade", held_by: ["B"]), (kind: "crate", at: 1)],
  participants: [
  (name: "A", side: "a", stats: {{"speed": 9}}, position: 0, controller: Script(steps: [{a} EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", stats: {{"speed": 5}}, position: 1, controller: Script(steps: [{b} EndTurn(round: 1)], fallback: Passive)),
  (name: "C", side: "b", position: 3, controller: Policy(Passive)),
])"#
        )
    };
    // Knocked 3 away from A: place 4 is open.
    let text = play(
        rules,
        &s(r#"Act(round: 1, action: "knock", target: "B"), Act(round: 1, action: "knock", target: "B"),"#, ""),
    )
    .expect("runs");
    assert_in_order(&text, &["B lets go of the blade; it lies at 4.", "A cannot use knock"]);
    // Toward A, 1 place: A stands there, so no open place short of it: it lies at B's own place.
    let text = play(rules, &s(r#"Act(round: 1, action: "knock_near", target: "B"),"#, "")).expect("runs");
    assert_in_order(&text, &["B lets go of the blade; it lies at 1."]);
    // Snatched out of B's hands; B cannot then pick it up (A holds it).
    let text = play(rules, &s(r#"Act(round: 1, action: "snatch", target: "B"),"#, r#"Act(round: 1, action: "grab"),"#))
        .expect("runs");
    assert_in_order(&text, &["B lets go of the blade.", "A takes hold of the blade.", "B uses grab"]);
    assert!(!text.contains("B takes hold of the blade"), "{text}");
    // Dropped at B's feet, picked up again within 1.
    let text =
        play(rules, &s(r#"Act(round: 1, action: "knock_near", target: "B"),"#, r#"Act(round: 1, action: "grab"),"#))
            .expect("runs");
    assert_in_order(&text, &["it lies at 1.", "B uses grab", "B takes hold of the blade."]);
    // A lifts the crate alone (free), then B joins: B's lift finds two handlers and costs a slot.
    let text = play(
        rules,
        &s(r#"Act(round: 1, action: "lift"),"#, r#"Act(round: 1, action: "lift"), Act(round: 1, action: "lift"),"#),
    )
    .expect("runs");
    assert_in_order(
        &text,
        &[
            "A uses lift (action), paying free.",
            "A takes hold of crate.",
            "B uses lift (action), paying free.",
            "B takes hold of crate.",
            "B uses lift (action), paying 1 slots.",
        ],
    );
    // Naming an undeclared object is an error with a did-you-mean.
    assert_eq!(
        codes_of("ruleset bad\ninitiative { value 0 }\nround { phase act: turns }\nobject blade\naction a { requires self holds bladd; resolve { } }\n"),
        vec![Code::UnknownObject]
    );
}

// Issue 15 (hardening): terrain and objects are worked out stretch by stretch and participant by
// participant, never place by place: a leap over a trillion places that ends against an enemy,
// and an object dropped a trillion places toward a crowded edge, end at once.
#[test]
fn huge_leaps_and_drops_end_without_walking_every_place() {
    let rules = r#"ruleset far
initiative { value speed; ties table }
round { phase act: turns }
space grid: enemies_block
stat speed = 0
pool ap { max 1; refresh at turn_start }
terrain pit { blocks }
object stone
action bound { cost 1 ap; resolve { move 3000000000000 leap 3000000000000 } }
action hurl { cost 1 ap; target enemy; resolve { drop stone away 3000000000000 } }
"#;
    let s = |a: &str, b: &str| {
        format!(
            r#"(seed: 1, rounds: 1, terrain: [(kind: "pit", from: 1, to: 999999999998)],
  objects: [(kind: "stone", held_by: ["A"])],
  participants: [
  (name: "A", side: "a", stats: {{"speed": 9}}, position: 0, controller: Script(steps: [Act(round: 1, action: "{a}", target: "B"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", position: {b}, controller: Policy(Passive)),
  (name: "C", side: "b", position: -1000000000000, controller: Policy(Passive)),
  (name: "D", side: "b", position: -999999999999, controller: Policy(Passive)),
])"#
        )
    };
    // Past the pit, the move ends just before B.
    assert_in_order(&play(rules, &s("bound", "1000000000000")).expect("runs"), &["A moves from 0 to 999999999999."]);
    // B stands on the landing place: the move would end inside the pit, so it steps back over it.
    let text = play(rules, &s("bound", "999999999999")).expect("runs");
    assert!(!text.contains("A moves"), "{text}");
    // Away from B, toward the edge where C and D stand: it lies on the first open place short of them.
    assert_in_order(
        &play(rules, &s("hurl", "1000000000000")).expect("runs"),
        &["A lets go of stone; it lies at -999999999998."],
    );
}

// A pool's max that reads only its owner's stats is worked out once per run (the stats never
// change in a run): each participant keeps their own, and one that cannot be worked out still
// stops the run where it is read, naming the pool.
#[test]
fn a_max_read_from_stats_is_each_participants_own_and_its_errors_still_stop_the_run() {
    let rules = r#"ruleset bounds
initiative { value speed; ties higher speed, then table }
round { phase act: turns }
stat speed = 0
stat cap = 3
stat div = 1
pool ap { max 3; refresh at turn_start }
pool charge { max cap * 2 / div; start 0 }
action build { cost 1 ap; resolve { charge += 100 } }
"#;
    let scenario = |a_div: i64| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 2, "cap": 1, "div": {a_div}}}, controller: Script(steps: [Act(round: 1, action: "build"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", stats: {{"speed": 1, "cap": 4}}, controller: Script(steps: [Act(round: 1, action: "build"), EndTurn(round: 1)], fallback: Passive)),
])"#
        )
    };
    let text = play(rules, &scenario(1)).expect("runs");
    assert_in_order(&text, &["A: charge 0 -> 2", "B: charge 0 -> 8"]);
    let err = play(rules, &scenario(0)).expect_err("a max divided by 0 stops the run");
    assert!(err.to_string().contains("the max of pool `charge`"), "{err}");
}
