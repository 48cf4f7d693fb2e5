//! `order drawn` (issue 32): each turn of a phase of turns drawn at random from those still to
//! have one, like a die from a bag; with `slots by side`, a die of a side, by how many of its
//! members are left. Properties over many seeds, counted with honest tolerances.

use std::collections::BTreeMap;
use tempo::check::compile_str;
use tempo::diagnostics::Code;
use tempo::ir::Ruleset;
use tempo::run::{run, scenario, trace};

fn ruleset(rules: &str) -> Ruleset {
    let c = compile_str("t.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.ruleset.expect("compiles")
}

/// The text trace of `participants` (RON entries) played for `rounds` with `seed`.
fn play(r: &Ruleset, seed: u64, rounds: u32, participants: &str) -> String {
    let text = format!("(seed: {seed}, rounds: {rounds}, participants: [{participants}])");
    let s = scenario::parse(&text).expect("scenario parses");
    trace::to_text(&run(r, &s, None).expect("plays"))
}

/// Who took a turn, in order, round by round.
fn turns_by_round(text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        if line.starts_with("== Round ") {
            out.push(Vec::new());
        } else if let Some(who) = line.strip_suffix("'s turn.") {
            if let Some(round) = out.last_mut() {
                round.push(who.to_string());
            }
        }
    }
    out
}

const PLAIN: &str = r#"ruleset bag
pool pinned { max none; start 0 }
initiative { order drawn }
round { phase act: turns requires pinned < 3 }
action wait { cost 0; limit 1 per turn; resolve { } }
"#;

fn unit(name: &str, side: &str) -> String {
    format!(r#"(name: "{name}", side: "{side}", controller: Policy(Aggressive)),"#)
}

#[test]
fn every_order_of_three_is_drawn_about_as_often() {
    // 600 rounds over 100 seeds: each of the 6 orders is expected 100 times (sd about 9);
    // 60 to 140 is more than four sd either way. A fixed order, or one made from the seating,
    // gives one order 600 times.
    let r = ruleset(PLAIN);
    let who = [unit("A", "a"), unit("B", "b"), unit("C", "c")].concat();
    let mut orders: BTreeMap<String, u32> = BTreeMap::new();
    for seed in 0..100 {
        let text = play(&r, seed, 6, &who);
        let rounds = turns_by_round(&text);
        assert_eq!(rounds.len(), 6, "{text}");
        for round in rounds {
            let mut seen = round.clone();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), round.len(), "someone acted twice in a phase: {round:?}\n{text}");
            assert_eq!(round.len(), 3, "{text}");
            *orders.entry(round.join(" ")).or_default() += 1;
        }
    }
    assert_eq!(orders.len(), 6, "{orders:?}");
    for (order, n) in &orders {
        assert!((60..=140).contains(n), "{order} drawn {n} times in 600: {orders:?}");
    }
}

#[test]
fn each_draw_is_written_before_the_turn() {
    let r = ruleset(PLAIN);
    let text = play(&r, 3, 1, &[unit("A", "a"), unit("B", "b")].concat());
    let draws: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("Drawn from the bag: ")).collect();
    let turns = turns_by_round(&text).concat();
    let drawn: Vec<String> = draws.iter().map(|d| d.trim_end_matches('.').to_string()).collect();
    assert_eq!(drawn, turns, "{text}");
    // Nothing is ordered in advance, so no initiative line is written.
    assert!(!text.contains("Initiative:"), "{text}");
}

#[test]
fn a_die_kept_out_of_the_bag_is_never_drawn() {
    // X is pinned out of the phase: never drawn, no turn; the others are drawn every round.
    let r = ruleset(PLAIN);
    let pinned = r#"(name: "X", side: "a", pools: {"pinned": 3}, controller: Policy(Aggressive)),"#;
    let who = [pinned.to_string(), unit("Y", "a"), unit("Z", "b")].concat();
    for seed in 0..40 {
        let text = play(&r, seed, 3, &who);
        assert!(!text.contains("Drawn from the bag: X") && !text.contains("X's turn."), "{text}");
        for round in turns_by_round(&text) {
            assert_eq!(round.len(), 2, "{text}");
        }
    }
}

const SLOTS: &str = r#"ruleset bag
pool pinned { max none; start 0 }
initiative { order drawn; slots by side }
round { phase act: turns requires pinned < 3 }
action wait { cost 0; limit 1 per turn; resolve { } }
"#;

/// The side of whoever took the first turn of each round, by the first letter of the name.
fn first_sides(text: &str) -> Vec<char> {
    turns_by_round(text).iter().filter_map(|r| r.first().and_then(|w| w.chars().next())).collect()
}

/// In how many of 400 rounds (seeds 0 to 79, five rounds each) side a took the first turn;
/// `check` looks at each run's trace.
fn side_a_first(r: &Ruleset, who: &str, check: impl Fn(&str)) -> usize {
    let (mut a_first, mut rounds) = (0, 0);
    for seed in 0..80 {
        let text = play(r, seed, 5, who);
        check(&text);
        let firsts = first_sides(&text);
        rounds += firsts.len();
        a_first += firsts.iter().filter(|s| **s == 'a').count();
    }
    assert_eq!(rounds, 400);
    a_first
}

#[test]
fn a_side_is_drawn_by_how_many_of_its_dice_are_left() {
    // Three of the four dice are side a's: a is drawn first 3/4 of the time (300 of 400, sd
    // about 8.7; 260 to 340 is over four sd). A side-alternating or seating order gives 400 or
    // 0, a draw of the side at even odds 200.
    let r = ruleset(SLOTS);
    let who = [unit("a1", "a"), unit("a2", "a"), unit("a3", "a"), unit("b1", "b")].concat();
    let a_first = side_a_first(&r, &who, |text| {
        for round in turns_by_round(text) {
            let mut seen = round.clone();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), 4, "each unit acts once a round: {round:?}\n{text}");
        }
    });
    assert!((260..=340).contains(&a_first), "side a first in {a_first} of 400 rounds");
}

#[test]
fn a_side_with_a_die_kept_out_comes_up_later() {
    // aX is pinned out: side a has one die (aY), side b one (bZ), so a comes first half the time
    // (200 of 400, sd 10); were aX's die still in the bag, 2/3 (267).
    let r = ruleset(SLOTS);
    let pinned = r#"(name: "aX", side: "a", pools: {"pinned": 3}, controller: Policy(Aggressive)),"#;
    let who = [pinned.to_string(), unit("aY", "a"), unit("bZ", "b")].concat();
    let a_first = side_a_first(&r, &who, |text| {
        assert!(!text.contains("aX's turn.") && !text.contains("taken by aX"), "{text}");
    });
    assert!((160..=240).contains(&a_first), "side a first in {a_first} of 400 rounds");
}

#[test]
fn the_side_chooses_who_takes_its_die() {
    // A script's `Slot` step names the taker, as for a slot: C takes side a's first die.
    let r = ruleset(SLOTS);
    let who = r#"(name: "A", side: "a", controller: Script(steps: [Slot(round: 1, taker: "C")], fallback: Aggressive)),
        (name: "C", side: "a", controller: Policy(Aggressive)),
        (name: "B", side: "b", controller: Policy(Aggressive)),"#;
    let text = play(&r, 1, 1, who);
    assert!(text.contains("A chooses C (who takes a die of the a)."), "{text}");
    let round = turns_by_round(&text).concat();
    let at = |w: &str| round.iter().position(|x| x == w);
    assert!(at("C") < at("A") && at("A").is_some(), "{text}");
}

#[test]
fn the_trace_of_a_drawn_round() {
    let r = ruleset(SLOTS);
    // Cole is pinned out of the bag; the allies' two dice and the axis's one are drawn each round.
    let pinned = r#"(name: "Cole", side: "allies", pools: {"pinned": 3}, controller: Policy(Aggressive)),"#;
    let who = [pinned.to_string(), unit("Ash", "allies"), unit("Bren", "allies"), unit("Kell", "axis")].concat();
    insta::assert_snapshot!(play(&r, 5, 2, &who));
}

#[test]
fn clauses_that_order_nothing_are_errors() {
    for clause in [
        "value 1d6",
        "made at round_start",
        "adjust up to 2",
        "range 0 to 5",
        "ties gm",
        "reorder immediately",
        "allow delay",
    ] {
        let rules = format!("ruleset x\ninitiative {{ order drawn; {clause} }}\nround {{ phase act: turns }}\n");
        let codes: Vec<Code> = compile_str("t.rules", &rules).diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![Code::MisplacedClause], "{clause}");
    }
    assert!(!compile_str("t.rules", SLOTS).has_errors());
}

#[test]
fn a_search_game_replays_the_same_draws() {
    let rules = r#"ruleset bag
pool hp { max 4; start 4 }
initiative { order drawn; slots by side }
round { phase act: turns }
action strike { cost 0; limit 1 per turn; target enemy; resolve { target.hp -= 1d2 } }
action wait { cost 0; limit 1 per turn; resolve { } }
"#;
    let r = ruleset(rules);
    let search = r#"controller: Policy(Search(playouts: 8))"#;
    let who = format!(
        r#"(name: "A", side: "a", {search}), (name: "B", side: "a", {search}), (name: "C", side: "b", controller: Policy(Aggressive)), (name: "D", side: "b", controller: Policy(Random)),"#
    );
    let first = play(&r, 11, 3, &who);
    assert!(first.contains("Drawn from the bag"), "{first}");
    assert_eq!(first, play(&r, 11, 3, &who));
}
