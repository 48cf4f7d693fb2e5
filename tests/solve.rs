//! `tempo solve` held to answers worked out by hand: independent dynamic programmes over the
//! economies' own numbers, in exact fractions, for a duel with dice on both sides and for the
//! two races of tests/search/ (optimal play, `Aggressive` and `Random`); merging inside rounds
//! changes no answer; `tempo sim` agrees; what cannot be solved soundly is refused with a
//! message that says why.

use super::search::{ruleset, scenario_with};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use tempo::check::compile_str;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::solve::{self, Ask, Solution, SolveError};

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

fn solved(r: &Ruleset, s: &Scenario, for_who: Option<&str>) -> Solution {
    let ask = Ask { for_who: for_who.map(str::to_string), ..Ask::default() };
    solve::solve(r, s, &ask, &mut |_| {}).expect("solves")
}

/// The probability of the outcome named `name`.
fn p(s: &Solution, name: &str) -> BigRational {
    s.outcomes.iter().find(|(n, _)| n == name).map(|(_, p)| p.clone()).expect("an outcome of that name")
}

/// tests/solve/duel.rules by hand: at the start of round `r` with Ana at `a` hp and Bo at `b`,
/// the chances of (Ana's side left, Bo's side left, the round limit) and the expected last
/// round. Ana strikes first each round; a strike hits on `1d6 >= hit` for 1 hp.
fn duel(r: u32, a: i64, b: i64) -> ([BigRational; 3], BigRational) {
    const ROUNDS: u32 = 6;
    let (ana_hits, bo_hits) = (q(4, 6), q(3, 6));
    let round = BigRational::from_integer(BigInt::from(r));
    let mut out = [BigRational::zero(), BigRational::zero(), BigRational::zero()];
    let mut rounds = BigRational::zero();
    // Ana's strike, then (if Bo stands) Bo's.
    for (ana_p, b_after) in [(ana_hits.clone(), b - 1), (BigRational::one() - &ana_hits, b)] {
        if b_after <= 0 {
            out[0] += &ana_p;
            rounds += &ana_p * &round;
            continue;
        }
        for (bo_p, a_after) in [(bo_hits.clone(), a - 1), (BigRational::one() - &bo_hits, a)] {
            let w = &ana_p * &bo_p;
            if a_after <= 0 {
                out[1] += &w;
                rounds += &w * &round;
            } else if r == ROUNDS {
                out[2] += &w;
                rounds += &w * &round;
            } else {
                let (next, next_rounds) = duel(r + 1, a_after, b_after);
                for (o, n) in out.iter_mut().zip(next) {
                    *o += &w * n;
                }
                rounds += &w * next_rounds;
            }
        }
    }
    (out, rounds)
}

#[test]
fn the_duel_is_solved_as_by_hand() {
    let r = ruleset("tests/solve/duel.rules");
    let s = scenario_with("tests/solve/duel.ron", &[]);
    let got = solved(&r, &s, None);
    let ([heroes, foes, limit], rounds) = duel(1, 3, 4);
    assert_eq!(p(&got, "heroes left standing"), heroes);
    assert_eq!(p(&got, "foes left standing"), foes);
    assert_eq!(p(&got, "round limit"), limit);
    assert_eq!(p(&got, "nobody left standing"), BigRational::zero());
    assert_eq!(got.rounds, rounds);
    // Every probability is there: they add up to one.
    let total: BigRational = got.outcomes.iter().map(|(_, p)| p.clone()).sum();
    assert_eq!(total, BigRational::one());
}

/// The races of tests/search/ (clash.rules, plan.rules) by hand, as tests/search.rs's `exact`
/// module writes them, in fractions: the Hero's chance of putting the Foe down in its two turns.
mod race {
    use super::q;
    use num_rational::BigRational;
    use num_traits::{One, Zero};

    pub struct Race {
        pub gain: u32,
        pub max: u32,
        pub foe_hp: i64,
        /// Per action in declaration order: cost, and (chance, damage) outcomes.
        pub actions: Vec<(u32, Vec<(BigRational, i64)>)>,
    }

    #[derive(Clone, Copy)]
    pub enum Hero {
        Best,
        /// `Aggressive`: the first affordable action.
        First,
        /// `Random`: uniformly among the affordable actions and the end of the turn.
        Uniform,
    }

    pub fn clash() -> Race {
        let coin = vec![(q(1, 2), 3), (q(1, 2), 0)];
        Race { gain: 3, max: 4, foe_hp: 9, actions: vec![(1, coin), (4, vec![(q(1, 1), 6)]), (1, vec![(q(1, 1), 1)])] }
    }

    pub fn plan() -> Race {
        let swing = vec![(q(5, 6), 2), (q(1, 6), 0)];
        Race {
            gain: 4,
            max: 5,
            foe_hp: 15,
            actions: vec![(1, swing), (5, vec![(q(1, 1), 11)]), (1, vec![(q(1, 1), 1)])],
        }
    }

    impl Race {
        pub fn win(&self, hero: Hero) -> BigRational {
            self.value(0, self.gain.min(self.max), self.foe_hp, hero)
        }

        fn value(&self, turn: u32, ap: u32, hp: i64, hero: Hero) -> BigRational {
            if hp <= 0 {
                return BigRational::one();
            }
            let end =
                if turn == 0 { self.value(1, (ap + self.gain).min(self.max), hp, hero) } else { BigRational::zero() };
            let acts: Vec<BigRational> = self
                .actions
                .iter()
                .filter(|(cost, _)| *cost <= ap)
                .map(|(cost, outcomes)| {
                    outcomes.iter().map(|(p, d)| p * self.value(turn, ap - cost, hp - d, hero)).sum()
                })
                .collect();
            match hero {
                Hero::Best => acts.into_iter().fold(end, |a, b| if b > a { b } else { a }),
                Hero::First => acts.into_iter().next().unwrap_or(end),
                Hero::Uniform => {
                    let n = acts.len() as i64 + 1;
                    (end + acts.into_iter().sum::<BigRational>()) / BigRational::from_integer(n.into())
                }
            }
        }
    }
}

#[test]
fn the_races_are_solved_as_by_hand_for_every_way_of_playing() {
    for (rules, scenario, race) in [
        ("tests/search/clash.rules", "tests/search/clash.ron", race::clash()),
        ("tests/search/plan.rules", "tests/search/plan.ron", race::plan()),
    ] {
        let r = ruleset(rules);
        let under = |policy: &str| scenario_with(scenario, &[("controller: Policy(Search)", policy)]);
        let best = solved(&r, &under("controller: Policy(Greedy)"), Some("Hero"));
        assert_eq!(best.value, Some(race.win(race::Hero::Best)), "{rules}: optimal play");
        assert_eq!(p(&best, "heroes left standing"), race.win(race::Hero::Best));
        let first = solved(&r, &under("controller: Policy(Aggressive)"), None);
        assert_eq!(p(&first, "heroes left standing"), race.win(race::Hero::First), "{rules}: Aggressive");
        // A `Random` controller's picks are chances like dice.
        let uniform = solved(&r, &under("controller: Policy(Random)"), None);
        assert_eq!(p(&uniform, "heroes left standing"), race.win(race::Hero::Uniform), "{rules}: Random");
    }
    // The figures the rulesets' comments give.
    assert_eq!(race::clash().win(race::Hero::Best), q(53, 64));
    assert_eq!(race::plan().win(race::Hero::Best), q(205, 216));
}

#[test]
fn merging_inside_rounds_changes_no_answer_and_explores_less() {
    let cases = [
        ("tests/search/clash.rules", "tests/search/clash.ron", Some("Hero")),
        ("tests/solve/duel.rules", "tests/solve/duel.ron", None),
        ("tests/solve/duel.rules", "tests/solve/duel.ron", Some("Bo")),
    ];
    for (rules, scenario, for_who) in cases {
        let r = ruleset(rules);
        let s = scenario_with(scenario, &[]);
        let ask = Ask { for_who: for_who.map(str::to_string), ..Ask::default() };
        let merged = solve::solve(&r, &s, &ask, &mut |_| {}).expect("solves");
        let apart = Ask { between_rounds_only: true, ..ask };
        let apart = solve::solve(&r, &s, &apart, &mut |_| {}).expect("solves");
        assert_eq!(merged.outcomes, apart.outcomes, "{rules} for {for_who:?}");
        assert_eq!(merged.rounds, apart.rounds, "{rules} for {for_who:?}");
        assert!(merged.states < apart.states, "{rules}: {} positions merged, {} apart", merged.states, apart.states);
    }
}

#[test]
fn the_simulation_agrees_with_the_exact_answer() {
    let r = ruleset("tests/solve/duel.rules");
    let s = scenario_with("tests/solve/duel.ron", &[]);
    let exact = solved(&r, &s, None);
    // 20,000 encounters: the share's 99.9% interval is about ±1.2 points wide.
    let layout = tempo::sim::layout(&r, &s).expect("the scenario fits");
    let batch = tempo::sim::Batch { seed: 7, runs: 0..20_000 };
    let totals = tempo::sim::simulate(&r, &s, &layout, &batch, Some(2), &|_| {}).expect("simulates");
    let summary = tempo::sim::summary::summarise("duel.rules", 7, &layout, &totals).measured("duel.ron", &[], &[]);
    for (name, p) in &exact.outcomes {
        let row = summary.outcomes.iter().find(|o| &o.outcome == name).expect("the same outcomes");
        let (share, n) = (row.count as f64 / 20_000.0, 20_000.0);
        let half = 3.29 * (share * (1.0 - share) / n).sqrt() + 1e-9;
        let exact: f64 = num_traits::ToPrimitive::to_f64(p).expect("a number");
        assert!((share - exact).abs() <= half, "{name}: simulated {share}, exact {exact}");
    }
}

#[test]
fn what_cannot_be_solved_soundly_is_refused_with_why() {
    let r = ruleset("tests/search/clash.rules");
    // A participant under `Search` plays optimally for its side, as Search plays a small
    // encounter: without `--for`, the same answer as solving for it.
    let s = scenario_with("tests/search/clash.ron", &[]);
    let searched = solve::solve(&r, &s, &Ask::default(), &mut |_| {}).expect("solved");
    let for_it =
        solve::solve(&r, &s, &Ask { for_who: Some("heroes".into()), ..Ask::default() }, &mut |_| {}).expect("solved");
    assert_eq!(searched.outcomes, for_it.outcomes);
    // A script whose fallback is `Search` decides some things itself: refused, with why.
    let scripted = scenario_with(
        "tests/search/clash.ron",
        &[("controller: Policy(Search)", "controller: Script(steps: [], fallback: Search)")],
    );
    let e = solve::solve(&r, &scripted, &Ask::default(), &mut |_| {}).expect_err("refused");
    assert!(e.to_string().contains("Hero is played by `Search`"), "{e}");
    // A name that is neither a participant nor a side.
    let e = solve::solve(&r, &s, &Ask { for_who: Some("Heor".into()), ..Ask::default() }, &mut |_| {})
        .expect_err("unknown");
    assert!(matches!(&e, SolveError::Unknown { suggestion: Some(h), .. } if h == "Hero"), "{e}");
    // A state budget too small: how far it got, and what to shrink.
    let small = Ask { for_who: Some("Hero".into()), max_states: 50, ..Ask::default() };
    let e = solve::solve(&r, &s, &small, &mut |_| {}).expect_err("over budget");
    let said = e.to_string();
    assert!(said.contains("stopped after exploring 50 positions") && said.contains("fewer rounds"), "{said}");
}

#[test]
fn optimal_play_in_a_hidden_phase_is_refused() {
    let text =
        "ruleset pennies\nstat speed = 0\ninitiative { value speed }\nround { phase show: simultaneous hidden }\n\
                pool hp { max 2; when <= 0 { apply down } }\npool ap { max 1; refresh at round_start }\n\
                condition down { blocks actions, free_actions, reactions }\n\
                action poke { cost 1 ap; target enemy; resolve { if 1d2 == 1 { target.hp -= 1 } } }\n";
    let c = compile_str("pennies.rules", text);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let r = c.ruleset.expect("compiles");
    let s = scenario::parse(
        "(rounds: 3, participants: [(name: \"A\", side: \"heroes\", controller: Policy(Greedy)), \
         (name: \"B\", side: \"foes\", controller: Policy(Greedy))])",
    )
    .expect("parses");
    let e =
        solve::solve(&r, &s, &Ask { for_who: Some("A".into()), ..Ask::default() }, &mut |_| {}).expect_err("refused");
    assert!(e.to_string().contains("phase `show` is hidden"), "{e}");
    // Under the controllers alone nothing is optimised, so nothing is seen: solved.
    let got = solved(&r, &s, None);
    let total: BigRational = got.outcomes.iter().map(|(_, p)| p.clone()).sum();
    assert_eq!(total, BigRational::one());
}

#[test]
fn the_plan_shows_the_first_decision_with_every_option() {
    let r = ruleset("tests/search/clash.rules");
    let s = scenario_with("tests/search/clash.ron", &[]);
    let ask = Ask { for_who: Some("Hero".into()), plan: true, ..Ask::default() };
    let got = solve::solve(&r, &s, &ask, &mut |_| {}).expect("solves");
    let first = got.plan.first().expect("a first decision");
    assert_eq!((first.who.as_str(), first.round), ("Hero", 1));
    let names: Vec<&str> = first.options.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["swing at Foe", "jab at Foe", "end the turn"]);
    // Swing first (the comment's plan), worth the optimum.
    assert_eq!(first.best, 0);
    assert_eq!(first.options[0].1, q(53, 64));
    // The JSON names the same, with fractions.
    let h = solve::Heading {
        rules: "clash.rules",
        scenario: "clash.ron",
        for_who: Some("Hero"),
        maximised: Some("heroes left standing"),
    };
    let json = solve::json(&h, &got, true);
    assert_eq!(json["outcomes"][0]["probability"]["fraction"], "53/64");
    assert_eq!(json["plan"][0]["options"][0]["option"], "swing at Foe");
}

#[test]
fn a_pool_of_dice_is_weighed_by_its_successes() {
    // Two volleys of `count(3d6 >= 5)` at a foe of 2 hp: the foe stands only if the six dice
    // give fewer than two successes, (2/3)^6 + 6 (1/3) (2/3)^5 = 256/729.
    let text = "ruleset volley\nstat speed = 0\ninitiative { value speed }\nround { phase act: turns }\n\
                pool hp { max 2; when <= 0 { apply down } }\npool ap { max 1; refresh at turn_start }\n\
                condition down { blocks actions, free_actions, reactions }\n\
                action volley { cost 1 ap; target enemy; resolve { target.hp -= count(3d6 >= 5) } }\n";
    let c = compile_str("volley.rules", text);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let r = c.ruleset.expect("compiles");
    let s = scenario::parse(
        "(rounds: 2, participants: [(name: \"A\", side: \"heroes\", stats: {\"speed\": 1}, controller: Policy(Aggressive)), \
         (name: \"B\", side: \"foes\", controller: Policy(Passive))])",
    )
    .expect("parses");
    let got = solved(&r, &s, None);
    assert_eq!(p(&got, "heroes left standing"), q(473, 729));
    assert_eq!(p(&got, "round limit"), q(256, 729));
}

/// Every corpus case and every shipped example small enough to solve (under the default
/// budget), under its controllers: `tempo sim`'s 99% interval at 100,000 runs holds the exact
/// answer for every outcome. Ignored in `cargo test` (minutes in a debug build); run it with
/// `cargo test --release --test it solve::sim_agrees_everywhere -- --ignored --nocapture`
/// (docs/simulation.md, "Exact answers", has its last result).
#[test]
#[ignore = "minutes: 100,000 runs of each case; run in release"]
fn sim_agrees_everywhere() {
    let mut cases: Vec<(String, String)> = Vec::new();
    let mut corpus: Vec<_> =
        std::fs::read_dir("tests/corpus/cases").expect("the corpus").flatten().map(|e| e.path()).collect();
    corpus.sort();
    for p in corpus.iter().filter(|p| p.extension().is_some_and(|e| e == "rules")) {
        cases.push((p.display().to_string(), p.with_extension("ron").display().to_string()));
    }
    let mut examples: Vec<_> = std::fs::read_dir("examples").expect("examples").flatten().map(|e| e.path()).collect();
    examples.sort();
    for p in examples
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ron") && !p.display().to_string().ends_with(".test.ron"))
    {
        let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        // The ruleset an example plays: the longest ruleset name its file name starts with.
        let mut rulesets: Vec<String> = std::fs::read_dir("rulesets")
            .expect("rulesets")
            .flatten()
            .filter_map(|e| e.path().file_stem().and_then(|s| s.to_str()).map(str::to_string))
            .collect();
        rulesets.sort_by_key(|r| std::cmp::Reverse(r.len()));
        if let Some(r) = rulesets.iter().find(|r| name.starts_with(r.as_str())) {
            cases.push((format!("rulesets/{r}.rules"), p.display().to_string()));
        }
    }
    let (mut checked, mut skipped, mut outside) = (0, Vec::new(), Vec::new());
    for (rules, scenario) in &cases {
        let r = ruleset(rules);
        let s = scenario::parse(&std::fs::read_to_string(scenario).expect("reads")).expect("parses");
        let exact = match solve::solve(&r, &s, &Ask::default(), &mut |_| {}) {
            Ok(e) => e,
            Err(e) => {
                skipped.push(format!("{scenario}: {e}"));
                continue;
            }
        };
        let runs = 100_000u64;
        let layout = tempo::sim::layout(&r, &s).expect("fits");
        let batch = tempo::sim::Batch { seed: 7, runs: 0..runs };
        let totals = tempo::sim::simulate(&r, &s, &layout, &batch, None, &|_| {}).expect("simulates");
        let summary = tempo::sim::summary::summarise(rules, 7, &layout, &totals).measured(scenario, &[], &[]);
        for (name, p) in &exact.outcomes {
            let row = summary.outcomes.iter().find(|o| &o.outcome == name).expect("the same outcomes");
            let (share, n) = (row.count as f64 / runs as f64, runs as f64);
            let exact: f64 = num_traits::ToPrimitive::to_f64(p).expect("a number");
            // Wilson's 99% interval of the share.
            let z = 2.576f64;
            let centre = (share + z * z / (2.0 * n)) / (1.0 + z * z / n);
            let half = z / (1.0 + z * z / n) * (share * (1.0 - share) / n + z * z / (4.0 * n * n)).sqrt();
            // A hair of slack: at a share of 0 or 1 the bound is the share itself, give or take
            // the last bit of the arithmetic.
            let inside = (centre - half - 1e-12..=centre + half + 1e-12).contains(&exact);
            println!(
                "{scenario} {name}: exact {exact:.5}, simulated {share:.5} [{:.5}, {:.5}]{}",
                centre - half,
                centre + half,
                if inside { "" } else { "  OUTSIDE" }
            );
            if !inside {
                // At 99% about one comparison in a hundred falls outside by chance: such a one
                // is played again on other seeds, and fails only if it falls outside again.
                let again = tempo::sim::Batch { seed: 99, runs: 0..runs };
                let totals = tempo::sim::simulate(&r, &s, &layout, &again, None, &|_| {}).expect("simulates");
                let summary = tempo::sim::summary::summarise(rules, 99, &layout, &totals).measured(scenario, &[], &[]);
                let row = summary.outcomes.iter().find(|o| &o.outcome == name).expect("the same outcomes");
                let share = row.count as f64 / runs as f64;
                let centre = (share + z * z / (2.0 * n)) / (1.0 + z * z / n);
                let half = z / (1.0 + z * z / n) * (share * (1.0 - share) / n + z * z / (4.0 * n * n)).sqrt();
                println!("  again on seed 99: simulated {share:.5} [{:.5}, {:.5}]", centre - half, centre + half);
                if !(centre - half - 1e-12..=centre + half + 1e-12).contains(&exact) {
                    outside.push(format!("{scenario} {name}: exact {exact}, simulated {share} twice outside"));
                }
            }
        }
        checked += 1;
    }
    println!("{checked} solved and simulated; not solved under the default budget: {}", skipped.len());
    for s in &skipped {
        println!("  {s}");
    }
    assert!(outside.is_empty(), "outside the 99% interval:\n{}", outside.join("\n"));
}

#[test]
fn a_draw_from_a_shared_deck_is_a_chance_over_what_is_left_in_it() {
    // One deck of three cards for the table (an ace and two blanks); whoever holds the ace
    // strikes the other down. Ana draws first: the ace with 1/3. Else Bo draws from the two
    // left: the ace with 1/2 (1/3 in all). Else the ace is all that is left, and Ana draws it
    // in round 2 (1/3). Ana's side 2/3, Bo's 1/3, never the round limit. (Were each drawing
    // from a deck of its own, Ana would win 1/3 + 2/3 * 2/3 * 1/2 = 5/9 by round 2.)
    let text = "ruleset table_deck\nstat speed = 0\ninitiative { value speed }\nround { phase act: turns }\n\
                pool hp { max 1; when <= 0 { apply down } }\npool ap { max 1; refresh at turn_start }\n\
                condition down { blocks actions, free_actions, reactions }\n\
                items cards { ace, blank x2 }\npile deck of cards { shared; starts full }\npile hand of cards\n\
                action turn_card { cost 1 ap; target enemy; resolve { draw 1 from deck to hand; \
                if hand has ace { target.hp -= 1 } } }\n";
    let c = compile_str("table_deck.rules", text);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let r = c.ruleset.expect("compiles");
    let s = scenario::parse(
        "(rounds: 2, participants: [(name: \"Ana\", side: \"heroes\", stats: {\"speed\": 2}, controller: Policy(Aggressive)), \
         (name: \"Bo\", side: \"foes\", stats: {\"speed\": 1}, controller: Policy(Aggressive))])",
    )
    .expect("parses");
    let got = solved(&r, &s, None);
    assert_eq!(p(&got, "heroes left standing"), q(2, 3));
    assert_eq!(p(&got, "foes left standing"), q(1, 3));
    assert_eq!(p(&got, "round limit"), BigRational::zero());
}

#[test]
fn a_decision_in_a_granted_turn_is_a_branch_point() {
    // B has 1 ap a turn and A 2 hp: B wins in round 1 only by shooting again in the turn its
    // counteract grants when A's turn ends. `dash`, declared first, is the option a stand-in
    // takes: only a solver that branches inside the granted turn finds the win.
    let text = "ruleset granted\ninitiative { value 0 }\nround { phase act: turns }\nstat hp_max = 10\n\
                pool ap { max 1; refresh at turn_start }\npool hp { max hp_max; when <= 0 { apply down } }\n\
                condition down { blocks actions, free_actions, reactions }\n\
                action dash { cost 1 ap; resolve { move 3 } }\n\
                action shoot { cost 1 ap; target enemy; requires distance(target) <= 4; resolve { target.hp -= 1 } }\n\
                reaction counteract { cost 0; on turn_end by enemy; grants turn { ap = 1; limit move 2 } }\n";
    let c = compile_str("granted.rules", text);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let r = c.ruleset.expect("compiles");
    let s = scenario::parse(
        "(rounds: 1, participants: [(name: \"B\", side: \"b\", position: 3, controller: Policy(Passive)), \
         (name: \"A\", side: \"a\", position: 0, stats: {\"hp_max\": 2}, controller: Policy(Passive))])",
    )
    .expect("parses");
    assert_eq!(p(&solved(&r, &s, None), "b left standing"), BigRational::zero());
    let ask = Ask { for_who: Some("B".into()), plan: true, ..Ask::default() };
    let got = solve::solve(&r, &s, &ask, &mut |_| {}).expect("solves");
    assert_eq!(p(&got, "b left standing"), BigRational::one());
    let granted = got
        .plan
        .iter()
        .find(|d| d.after.iter().any(|a| a.contains("react with counteract")))
        .expect("a granted decision");
    let names: Vec<&str> = granted.options.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["dash", "shoot at A", "end the turn"]);
    assert_eq!(granted.best, 1);
}
