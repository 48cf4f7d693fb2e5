//! What a side owns (issue 44, mechanism 1): pools kept `per side`, `enemy_side`, limits counted
//! per side and an initiative made once for each side, where a `tempo test` file cannot say it
//! (the exact solver, JSON lines, a property over seeds, diagnostics, scenario problems). The
//! encounters themselves are tests/runner/a-side-pool-is-one-value-for-each-side and
//! tests/runner/a-limit-per-side-counts-every-member.

use num_bigint::BigInt;
use num_rational::BigRational;
use tempo::check::compile_str;
use tempo::diagnostics::{render, Code};
use tempo::ir::Ruleset;
use tempo::run::{run, scenario, trace};

fn compiled(rules: &str) -> Ruleset {
    let c = compile_str("t.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.ruleset.expect("compiles")
}

const COMMAND_POINTS: &str = include_str!("runner/rules/command-points.rules");

/// Two heroes against one foe; a strike that spends a point of its side's `edge` hits surely,
/// else on 4+. The heroes' side holds one point between them.
const EDGE: &str = "ruleset edge
initiative { value speed }
round { phase act: turns }
stat speed = 0
stat hp_max = 9
pool ap { max 1; refresh at turn_start }
pool hp { max hp_max; when <= 0 { apply down } }
pool edge { per side; start 1 }
condition down { blocks actions, free_actions, reactions }
action strike {
  cost 1 ap
  target enemy
  resolve { if edge > 0 { edge -= 1; target.hp -= 1 } else { if 1d6 >= 4 { target.hp -= 1 } } }
}
";

const EDGE_SCENARIO: &str = r#"(rounds: 2, participants: [
  (name: "Ana", side: "heroes", stats: {"speed": 3}, controller: Policy(Aggressive)),
  (name: "Cy", side: "heroes", stats: {"speed": 2}, controller: Policy(Aggressive)),
  (name: "Bo", side: "foes", stats: {"speed": 1, "hp_max": 2}, controller: Policy(Aggressive)),
])"#;

// The exact solver merges states by their canonical bytes, which hold a side's pools: by hand,
// Ana spends the heroes' one point (Bo to 1 hp), Cy hits on 4+ (1/2); else in round 2 either of
// two strikes on 4+ (3/4): 1/2 + 1/2 * 3/4 = 7/8. Were the point each hero's, Bo would fall at
// once (1); were the side's pool merged away, the answer would differ too.
#[test]
fn the_exact_solver_counts_a_sides_pool_once() {
    let r = compiled(EDGE);
    let s = scenario::parse(EDGE_SCENARIO).expect("scenario parses");
    let ask = tempo::solve::Ask::default();
    let got = tempo::solve::solve(&r, &s, &ask, &mut |_| {}).expect("solves");
    let p = |name: &str| got.outcomes.iter().find(|(n, _)| n == name).map(|(_, p)| p.clone()).expect(name);
    assert_eq!(p("heroes left standing"), BigRational::new(BigInt::from(7), BigInt::from(8)));
    assert_eq!(p("round limit"), BigRational::new(BigInt::from(1), BigInt::from(8)));
}

// JSON lines: a side's pool change names the side (`"side":true`), and `encounter_end` lists a
// side's pools once, under `sides`, not with each member.
#[test]
fn json_lines_charge_the_side_and_list_its_pools_once() {
    let r = compiled(COMMAND_POINTS);
    let s = scenario::parse(
        r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", stats: {"speed": 9}, controller: Script(steps: [Act(round: 1, action: "order")], fallback: Passive)),
  (name: "C", side: "a", controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#,
    )
    .expect("scenario parses");
    let records = run(&r, &s, None).expect("runs");
    let lines = tempo::run::sink::to_jsonl(&records, &[]);
    let events: Vec<serde_json::Value> = lines.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let paid = events
        .iter()
        .find(|e| e["event"] == "pool" && e["cause"] == "order by A" && e["who"] == "a")
        .expect("the side's payment");
    assert_eq!((paid["pool"].as_str(), paid["from"].as_i64(), paid["to"].as_i64()), (Some("cp"), Some(3), Some(2)));
    assert_eq!(paid["side"], true);
    let theirs = events.iter().find(|e| e["event"] == "pool" && e["who"] == "b" && e["cause"] == "order by A");
    assert_eq!(theirs.map(|e| e["to"].clone()), Some(serde_json::json!(2)));
    // A participant's pool change says nothing of sides.
    assert!(events.iter().filter(|e| e["event"] == "pool" && e["who"] == "A").all(|e| e.get("side").is_none()));
    let end = events.iter().find(|e| e["event"] == "encounter_end").expect("an end");
    assert_eq!(end["sides"], serde_json::json!({"a": {"cp": 2, "fury": 0}, "b": {"cp": 2, "fury": 0}}));
    assert_eq!(end["state"]["A"]["pools"], serde_json::json!({"ap": 1}));
    assert_eq!(end["state"]["C"]["pools"], serde_json::json!({"ap": 1}));
}

// `value 1d6 per side`: one roll for each side, which all its members share; the trace shows
// one roll per side, and a tie between sides is rolled off once for each side.
#[test]
fn an_initiative_per_side_is_rolled_once_and_shared() {
    let rules =
        "ruleset kt\ninitiative { value 1d6 per side; ties roll 1d6 until different }\nround { phase act: turns }\n\
                 pool ap { max 1; refresh at turn_start }\n";
    let r = compiled(rules);
    let s = scenario::parse(
        r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Passive)),
  (name: "C", side: "a", controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
  (name: "D", side: "b", controller: Policy(Passive)),
])"#,
    )
    .expect("scenario parses");
    let mut differed = false;
    for seed in 0..40 {
        let records = run(&r, &s, Some(seed)).expect("runs");
        let (order, values) = records
            .iter()
            .find_map(|rec| match &rec.event {
                trace::Event::Initiative { order, values } => Some((order.clone(), values.clone())),
                _ => None,
            })
            .expect("an initiative");
        // A tie between the sides is rolled off once for each side too: they never interleave.
        let sides: String = (order.iter())
            .map(|o| match o {
                trace::OrderEntry::One(n) if ["A", "C"].contains(&&**n) => 'a',
                _ => 'b',
            })
            .collect();
        assert!(sides == "aabb" || sides == "bbaa", "seed {seed}: {order:?}");
        let v = |name: &str| values.iter().find(|(n, _)| &***n == name).map(|(_, v)| *v).expect(name);
        assert_eq!(v("A"), v("C"), "seed {seed}: {values:?}");
        assert_eq!(v("B"), v("D"), "seed {seed}: {values:?}");
        differed |= v("A") != v("B");
        // The first roll of the initiative is the first side's, the second the other's.
        let text = trace::to_text(&records);
        let rolls: Vec<&str> = text.lines().take(3).filter(|l| l.contains("rolls 1d6")).collect();
        assert!(rolls.len() == 2 && rolls[0].contains("A rolls") && rolls[1].contains("B rolls"), "{text}");
    }
    assert!(differed, "two sides' rolls always equal: not rolled apart");
}

// A pool is one value for everyone or one for each side, not both: said, with a snapshot.
#[test]
fn a_pool_both_shared_and_per_side_is_refused() {
    let rules =
        "ruleset both\ninitiative { value 0 }\nround { phase act: turns }\npool cp { shared; per side; start 2 }\n";
    let c = compile_str("both.rules", rules);
    let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::MisplacedClause]);
    let style = render::TextStyle { color: false, width: 80 };
    insta::assert_snapshot!("shared-and-per-side", render::to_text(&c.diagnostics, &c.sources, style));
}

// `enemy_side` names only pools kept per side; elsewhere it is refused with its own code.
#[test]
fn enemy_side_names_only_a_sides_pools() {
    let head =
        "ruleset e\ninitiative { value 0 }\nround { phase act: turns }\npool ap { max 1; refresh at turn_start }\n\
                pool hp { max 5 }\npool cp { per side; start 2 }\n\
                action hurt { cost 1 ap; resolve { hp -= 1 } }\n";
    let codes = |body: &str| -> Vec<Code> {
        compile_str("e.rules", &format!("{head}{body}\n")).diagnostics.iter().map(|d| d.code).collect()
    };
    assert_eq!(codes("action a { cost 1 ap; resolve { enemy_side.cp -= 1 } }"), vec![]);
    assert_eq!(codes("action a { cost 1 ap; requires enemy_side.cp > 0 }"), vec![]);
    assert_eq!(codes("action a { cost 1 ap; resolve { enemy_side.hp -= 1 } }"), vec![Code::NotSidePool]);
    assert_eq!(codes("action a { cost 1 ap; requires enemy_side.hp > 0 }"), vec![Code::NotSidePool]);
    assert_eq!(codes("action a { cost 1 ap; requires distance(enemy_side) > 0 }"), vec![Code::NotSidePool]);
}

// A scenario sets a side's starting value through any member's `pools`; two members of a side
// who set it to different numbers are a scenario problem.
#[test]
fn a_scenario_sets_a_sides_pool_once() {
    let r = compiled(COMMAND_POINTS);
    let set = |a: &str, c: &str| {
        format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", pools: {{{a}}}, controller: Policy(Passive)),
  (name: "C", side: "a", pools: {{{c}}}, controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#
        )
    };
    let s = scenario::parse(&set("", "\"cp\": 5")).expect("parses");
    let text = trace::to_text(&run(&r, &s, None).expect("runs"));
    assert!(text.contains("side a: cp 5 -> 6 (gain at round_start)"), "{text}");
    assert!(text.contains("side b: cp 2 -> 3 (gain at round_start)"), "{text}");
    let s = scenario::parse(&set("\"cp\": 5", "\"cp\": 5")).expect("parses");
    assert!(run(&r, &s, None).is_ok(), "members who agree are no problem");
    let s = scenario::parse(&set("\"cp\": 5", "\"cp\": 4")).expect("parses");
    let err = run(&r, &s, None).expect_err("two values for one side");
    let said = err.to_string();
    assert!(
        said.contains("pool `cp` is kept per side, and `A` already set side `a`'s value to another number"),
        "{said}"
    );
}
