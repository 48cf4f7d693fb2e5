//! `simultaneous hidden picks N` (issue 32, mechanism 9): each chooses up to N declarations in
//! secret, each knowing its own earlier picks (they count for limits, their costs are taken) but
//! none of the others'; all are revealed in one line, then declared, paid and resolved in
//! initiative order, a participant's picks in the order picked (docs/language.md, "Hidden
//! choices"). The ruleset: a hand of two cards, a lead card and a second card each round.

use crate::run::{codes_of, play};
use tempo::check::compile_str;
use tempo::diagnostics::Code;
use tempo::run::{run, scenario};

const CARDS: &str = include_str!("runner/rules/picks.rules");

/// A (hand: blow and guard) and B, one round; `phase` replaces the ruleset's phase line.
fn cards(a: &str, b: &str, phase: &str) -> String {
    let rules = CARDS.replace("phase pick: simultaneous hidden picks 2", phase);
    let scenario = format!(
        r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", stats: {{"speed": 2}}, piles: {{"hand": ["blow", "guard"]}},
   actions: ["lead_blow", "second_blow", "lead_guard", "second_guard"], controller: {a}),
  (name: "B", side: "b", stats: {{"speed": 1}}, actions: ["counter_blow", "counter_guard", "jab"], controller: {b}),
])"#
    );
    play(&rules, &scenario).expect("runs")
}

/// A script of A's picks in round 1.
fn script(picks: &[&str]) -> String {
    let steps: Vec<String> = picks.iter().map(|a| format!("Act(round: 1, action: \"{a}\")")).collect();
    format!("Script(steps: [{}], fallback: Passive)", steps.join(", "))
}

fn revealed(trace: &str) -> &str {
    trace.lines().find(|l| l.starts_with("Revealed:")).unwrap_or("no reveal")
}

// The second pick knows the first: a policy picking A's two cards does not pick the same card
// twice, nor two lead cards (each is a limit of 1 a round, which the first pick already uses,
// though nothing is declared before the reveal); both are then declared without a refusal.
#[test]
fn a_second_pick_knows_the_first() {
    for a in ["Policy(Greedy)", "Policy(Search(playouts: 16, rollout: Greedy, rounds: Some(1)))"] {
        let trace = cards(a, "Policy(Passive)", "phase pick: simultaneous hidden picks 2");
        let line = revealed(&trace);
        let picked: Vec<&str> = ["lead_blow", "second_blow", "lead_guard", "second_guard"]
            .into_iter()
            .filter(|c| line.contains(c))
            .collect();
        assert_eq!(picked.len(), 2, "{a}: two different cards, one lead and one second\n{trace}");
        let leads = picked.iter().filter(|c| c.starts_with("lead")).count();
        let blows = picked.iter().filter(|c| c.ends_with("blow")).count();
        assert_eq!((leads, blows), (1, 1), "{a}: one lead, one second, two cards\n{trace}");
        assert!(!trace.contains("rejected") && !trace.contains("refused"), "{a}\n{trace}");
        assert!(
            trace.contains("A moves blow from hand to ") && trace.contains("A moves guard from hand to "),
            "{trace}"
        );
    }
}

// But not the others': B, after A in initiative, reads what A's cards cost. In an open
// simultaneous phase B sees what A declared and answers it; in a hidden one B's picks are the
// same whatever A picked, for a policy reading the state and for one playing forward.
#[test]
fn a_pick_does_not_see_the_others_picks() {
    let open = "phase pick: simultaneous";
    let hidden = "phase pick: simultaneous hidden picks 2";
    let b_picks = |trace: &str| revealed(trace).split("; B plays ").nth(1).unwrap_or("").to_string();
    let b_uses =
        |trace: &str| trace.lines().filter(|l| l.trim_start().starts_with("B uses")).collect::<Vec<_>>().join("\n");
    for b in ["Policy(Greedy)", "Policy(Search(playouts: 24, rollout: Greedy, rounds: Some(1)))"] {
        let (blow, guard) = (script(&["lead_blow"]), script(&["lead_guard"]));
        let (seen_blow, seen_guard) = (cards(&blow, b, open), cards(&guard, b, open));
        assert_ne!(b_uses(&seen_blow), b_uses(&seen_guard), "open, {b}: B sees A's card\n{seen_blow}\n{seen_guard}");
        let both = script(&["lead_blow", "second_guard"]);
        let traces = [cards(&blow, b, hidden), cards(&guard, b, hidden), cards(&both, b, hidden)];
        for t in &traces[1..] {
            assert_eq!(b_picks(&traces[0]), b_picks(t), "hidden, {b}: B cannot see A's cards\n{}\n{t}", traces[0]);
        }
        assert!(
            revealed(&traces[2]).starts_with("Revealed: A plays lead_blow, then second_guard; B plays "),
            "{}",
            traces[2]
        );
    }
}

// A script's steps answer the picks in order; a pick no longer valid at the reveal (here: the
// same card twice, which the script does not check) is refused there as any declaration is, and
// the snapshot keeps the whole trace: one reveal line, each pick declared in the order picked.
#[test]
fn scripted_picks_are_revealed_in_one_line_then_declared_in_order() {
    let a = script(&["lead_blow", "second_blow"]);
    let b = "Script(steps: [Act(round: 1, action: \"jab\", target: \"A\"), EndTurn(round: 1)], fallback: Passive)";
    insta::assert_snapshot!("hidden_picks_trace", cards(&a, b, "phase pick: simultaneous hidden picks 2"));
}

// The JSON lines' `revealed` event keeps its shape: one entry per pick, the same `who` again.
#[test]
fn the_json_reveal_lists_every_pick() {
    let rules = compile_str("t.rules", CARDS).ruleset.expect("compiles");
    let text = format!(
        r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", piles: {{"hand": ["blow", "guard"]}}, controller: {}),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#,
        script(&["lead_guard", "second_blow"])
    );
    let s = scenario::parse(&text).expect("scenario parses");
    let records = run(&rules, &s, None).expect("runs");
    let json = tempo::run::sink::to_jsonl(&records, &rules.files);
    let line = json.lines().find(|l| l.contains("\"revealed\"")).expect("a revealed event");
    assert!(
        line.contains(r#""choices":[{"who":"A","choice":"lead_guard","target":null},{"who":"A","choice":"second_blow","target":null},{"who":"B","choice":null,"target":null}]"#),
        "{line}"
    );
}

// `picks N must`: one who would stop picking while a pick is offered takes the first one
// offered, for each pick: a passive A, or a script that ends its picks, plays both cards.
#[test]
fn must_takes_the_first_pick_offered() {
    let b = "Policy(Passive)";
    for a in ["Policy(Passive)", "Script(steps: [EndTurn(round: 1)], fallback: Passive)"] {
        let free = cards(a, b, "phase pick: simultaneous hidden picks 2");
        assert!(revealed(&free).starts_with("Revealed: A plays nothing;"), "{free}");
        let must = cards(a, b, "phase pick: simultaneous hidden picks 2 must");
        // lead_blow, the first written; then second_blow is the same card and lead_guard a
        // second lead card: second_guard.
        assert!(revealed(&must).starts_with("Revealed: A plays lead_blow, then second_guard;"), "{must}");
        assert!(!must.contains("cannot use"), "{must}");
    }
    // With nothing offered (an empty hand), nothing is taken.
    let rules =
        CARDS.replace("phase pick: simultaneous hidden picks 2", "phase pick: simultaneous hidden picks 2 must");
    let scenario = r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", actions: ["lead_blow", "second_blow", "lead_guard", "second_guard"], controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#;
    let trace = play(&rules, scenario).expect("runs");
    assert!(revealed(&trace).starts_with("Revealed: A plays nothing; B plays "), "{trace}");
}

// `picks` means something only after `simultaneous hidden`, and counts 1 or more.
#[test]
fn picks_are_checked() {
    let with = |phase: &str| codes_of(&CARDS.replace("phase pick: simultaneous hidden picks 2", phase));
    assert_eq!(with("phase pick: simultaneous hidden picks 1"), vec![]);
    assert_eq!(with("phase pick: simultaneous hidden picks 1 must"), vec![]);
    assert_eq!(with("phase pick: simultaneous picks 2 must"), vec![Code::MisplacedClause]);
    assert_eq!(with("phase pick: simultaneous hidden picks 0"), vec![Code::BadCount]);
    assert_eq!(with("phase pick: simultaneous hidden picks 99"), vec![Code::BadCount]);
    assert_eq!(with("phase pick: simultaneous picks 2"), vec![Code::MisplacedClause]);
    assert_eq!(with("phase pick: turns picks 2"), vec![Code::MisplacedClause]);
    assert_eq!(with("phase pick: step picks 2 { hp -= 1 }"), vec![Code::MisplacedClause]);
    // `hidden` on a phase of turns is the one error, not two.
    assert_eq!(with("phase pick: turns hidden picks 2"), vec![Code::MisplacedClause]);
    let c = compile_str("t.rules", &CARDS.replace("picks 2", "picks 0"));
    let message = &c.diagnostics[0].message;
    assert!(message.contains("picks 0") && message.contains("1 to 50"), "{message}");
}
