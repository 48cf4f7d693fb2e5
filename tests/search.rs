//! `Search` held to exact answers: on a race small enough to solve by dynamic programming it
//! plays within 3 points of the best response to its opponent, where Greedy and Aggressive do
//! not; it replays exactly (same seed, same trace; the same summary for every `--jobs` and
//! shard split); and on the Frontiers duel it finds the plan that wins every time.
//!
//! Run counts are chosen for debug builds (`cargo test` in CI): each is the fewest that makes
//! the assertion a clear margin, said where it is chosen.

use tempo::check::compile_path;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::run::{run, trace};
use tempo::sim::stats::Estimate;
use tempo::sim::summary::{self, Summary};
use tempo::sim::{self as simulation, Batch};

const CLASH: &str = "tests/search/clash.rules";
const CLASH_SCENARIO: &str = "tests/search/clash.ron";
const FRONTIERS: &str = "rulesets/frontiers.rules";
const FRONTIERS_SCENARIO: &str = "tests/search/frontiers-duel.ron";
const MIRROR_SCENARIO: &str = "tests/search/mirror.ron";

/// The race of tests/search/clash.rules, solved exactly. The Hero acts first each round and
/// the Foe's claw takes 1 of the Hero's 2 hp each turn, so the Hero has exactly two turns: the
/// state is (turn, Hero's AP, Foe's hp), and a decision is one of the affordable actions or the
/// end of the turn, as the runner offers them.
mod exact {
    pub struct Action {
        pub cost: u32,
        /// (chance, damage to the Foe).
        pub outcomes: &'static [(f64, i64)],
    }

    pub struct Race {
        pub turns: u32,
        pub gain: u32,
        pub max: u32,
        pub foe_hp: i64,
        /// In the ruleset's declaration order.
        pub actions: &'static [Action],
    }

    /// How the Hero decides.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub enum Hero {
        /// The best response: the decision with the highest chance of winning.
        Best,
        /// `Aggressive`: the first affordable action in declaration order, until none is.
        First,
        /// `Random`: uniformly among the affordable actions and the end of the turn.
        Uniform,
    }

    /// tests/search/clash.rules with the scenario's numbers.
    pub const CLASH: Race = Race {
        turns: 2,
        gain: 3,
        max: 4,
        foe_hp: 9,
        actions: &[
            // swing: `if 1d2 == 1 { target.hp -= 3 }`
            Action { cost: 1, outcomes: &[(0.5, 3), (0.5, 0)] },
            // blast
            Action { cost: 4, outcomes: &[(1.0, 6)] },
            // jab
            Action { cost: 1, outcomes: &[(1.0, 1)] },
        ],
    };

    /// tests/search/plan.rules with its scenario's numbers.
    pub const PLAN: Race = Race {
        turns: 2,
        gain: 4,
        max: 5,
        foe_hp: 15,
        actions: &[
            // swing: `if 1d6 >= 2 { target.hp -= 2 }`
            Action { cost: 1, outcomes: &[(5.0 / 6.0, 2), (1.0 / 6.0, 0)] },
            // blast
            Action { cost: 5, outcomes: &[(1.0, 11)] },
            // jab
            Action { cost: 1, outcomes: &[(1.0, 1)] },
        ],
    };

    impl Race {
        /// The Hero's chance of putting the Foe down before it is down itself.
        pub fn win(&self, hero: Hero) -> f64 {
            // `start 0` and `gain ... at turn_start`: the first turn opens with the gain.
            self.value(0, self.gain.min(self.max), self.foe_hp, hero)
        }

        /// In turn `turn` (from 0) with `ap` left, the Foe at `hp`.
        fn value(&self, turn: u32, ap: u32, hp: i64, hero: Hero) -> f64 {
            if hp <= 0 {
                return 1.0;
            }
            // Ending the last turn leaves the Hero to the claw that downs it.
            let end = if turn + 1 < self.turns {
                self.value(turn + 1, (ap + self.gain).min(self.max), hp, hero)
            } else {
                0.0
            };
            let acts: Vec<f64> = self
                .actions
                .iter()
                .filter(|a| a.cost <= ap)
                .map(|a| a.outcomes.iter().map(|&(p, d)| p * self.value(turn, ap - a.cost, hp - d, hero)).sum())
                .collect();
            match hero {
                Hero::Best => acts.iter().copied().fold(end, f64::max),
                Hero::First => acts.first().copied().unwrap_or(end),
                Hero::Uniform => (end + acts.iter().sum::<f64>()) / (acts.len() + 1) as f64,
            }
        }
    }
}

pub(super) fn ruleset(path: &str) -> Ruleset {
    let c = compile_path(std::path::Path::new(path));
    assert!(!c.has_errors(), "{path}: {:?}", c.diagnostics);
    c.ruleset.expect("compiles")
}

/// The scenario at `path` with each `(from, to)` replaced once (each must be there).
pub(super) fn scenario_with(path: &str, changes: &[(&str, &str)]) -> Scenario {
    let mut text = std::fs::read_to_string(path).expect("scenario reads");
    for (from, to) in changes {
        assert_eq!(text.matches(from).count(), 1, "{path} says {from} once");
        text = text.replacen(from, to, 1);
    }
    scenario::parse(&text).expect("scenario parses")
}

/// The clash with the Hero under `policy` (as written in a scenario).
fn clash_with(policy: &str) -> Scenario {
    race_with(CLASH_SCENARIO, policy)
}

/// A race's scenario with the Hero under `policy`.
fn race_with(path: &str, policy: &str) -> Scenario {
    scenario_with(path, &[("controller: Policy(Search)", &format!("controller: Policy({policy})"))])
}

/// A batch over both cores, summarised.
fn simulate(r: &Ruleset, s: &Scenario, seed: u64, runs: u64) -> Summary {
    let layout = simulation::layout(r, s).expect("the scenario fits");
    let batch = Batch { seed, runs: 0..runs };
    let totals = simulation::simulate(r, s, &layout, &batch, Some(2), &|_| {}).expect("plays");
    summary::summarise("t.rules", seed, &layout, &totals)
}

/// The share of encounters that ended with `outcome`, with its Wilson interval.
fn share(s: &Summary, outcome: &str) -> Estimate {
    assert_eq!(s.completed, s.runs, "every run ran to the end: {:?}", s.failures);
    let row = s.outcomes.iter().find(|o| o.outcome == outcome).unwrap_or_else(|| panic!("no outcome {outcome}"));
    row.share
}

fn pct(e: Estimate) -> String {
    format!("{:.1}% [{:.1}, {:.1}]", 100.0 * e.value, 100.0 * e.low, 100.0 * e.high)
}

/// The clash's outcomes: the Hero wins or is down, never the round limit (which `Search` would
/// value otherwise than a loss, and the programme counts as one).
fn hero_wins(s: &Summary) -> Estimate {
    let wins = share(s, "heroes left standing");
    let losses = share(s, "foes left standing");
    assert!((wins.value + losses.value - 1.0).abs() < 1e-9, "only wins and losses: {:?}", s.outcomes);
    wins
}

#[test]
fn the_exact_solution_models_the_runner() {
    // For fixed Hero policies the programme's chance must fall in the simulation's 95%
    // interval: Aggressive exercises the swing and the turn limit; Random every action, the
    // end of a turn with AP kept, the gain and its cap. 10,000 runs give intervals of about
    // ±0.9 points (Aggressive at 65.6%) and ±0.6 (Random at 9.4%), ~3 s in debug.
    let r = ruleset(CLASH);
    for (policy, hero) in [("Aggressive", exact::Hero::First), ("Random", exact::Hero::Uniform)] {
        let exact = exact::CLASH.win(hero);
        let sim = hero_wins(&simulate(&r, &clash_with(policy), 1, 10_000));
        println!("{policy}: exact {:.2}%, simulated {}", 100.0 * exact, pct(sim));
        assert!(sim.low <= exact && exact <= sim.high, "{policy}: exact {exact}, simulated {sim:?}");
    }
}

#[test]
fn search_plays_within_three_points_of_the_exact_best_response() {
    let r = ruleset(CLASH);
    let best = exact::CLASH.win(exact::Hero::Best);
    let first = exact::CLASH.win(exact::Hero::First);
    // The optimum is 53/64: swing, and stop at the first hit to blast next turn; spending
    // every AP on swings (what Aggressive does, and Greedy, whose one-ply score puts the swing
    // above the jab and cannot see the blast it saves for) is 42/64; saving every AP for the
    // blast never wins (6 of 9 hp).
    assert!((best - 53.0 / 64.0).abs() < 1e-12, "optimum {best}");
    assert!((first - 42.0 / 64.0).abs() < 1e-12, "all swings {first}");
    // Enough runs that 3 points are 2.5 standard errors of a share at the optimum: 989
    // (6,944 x p(1 - p), rounded up), ~55 ms each in debug on one core.
    let runs = ((2.5_f64 / 0.03).powi(2) * best * (1.0 - best)).ceil() as u64;
    // `Search` at its defaults (200 playouts, Greedy rollouts, exploration 0.5, to the end).
    let search = hero_wins(&simulate(&r, &clash_with("Search"), 2, runs));
    println!("exact optimum {:.2}%; Search over {runs} runs {}", 100.0 * best, pct(search));
    assert!(search.value >= best - 0.03, "Search {search:?} is more than 3 points below the optimum {best}");
    // Nor above it by more than chance: nothing beats the best response.
    assert!(search.value <= best + 0.03, "Search {search:?} beats the optimum {best}: the programme is wrong");
    // The one-ply policies are clearly below: their intervals end 10 points under the optimum.
    for policy in ["Greedy", "Aggressive"] {
        let other = hero_wins(&simulate(&r, &clash_with(policy), 2, runs));
        println!("{policy} over {runs} runs {}", pct(other));
        assert!(other.high < best - 0.10, "{policy} {other:?} against the optimum {best}");
        assert!(other.high < search.low, "{policy} {other:?} against Search {search:?}");
    }
}

fn tempo(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tempo"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("tempo runs");
    assert!(out.status.success(), "tempo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The Frontiers duel with `Search` on both sides: two searchers, reactions, choices.
fn search_against_search() -> Scenario {
    // By playouts (`exact: 0`, as Aria's is in the file): the duel of two searchers is too
    // large to solve quickly.
    scenario_with(FRONTIERS_SCENARIO, &[("controller: Policy(Aggressive)", "controller: Policy(Search(exact: 0))")])
}

#[test]
fn the_same_seed_replays_a_search_game_exactly() {
    let clash = (ruleset(CLASH), clash_with("Search"));
    let duel = (ruleset(FRONTIERS), search_against_search());
    for (r, s) in [&clash, &duel] {
        for seed in [1, 2, 3] {
            let once = trace::to_text(&run(r, s, Some(seed)).expect("plays"));
            let again = trace::to_text(&run(r, s, Some(seed)).expect("plays"));
            assert_eq!(once, again, "seed {seed}");
        }
    }
    // And on the binary, the decisions' accounts included, byte for byte.
    for args in [
        &[CLASH, CLASH_SCENARIO, "--seed", "4", "--decisions"][..],
        &[FRONTIERS, FRONTIERS_SCENARIO, "--seed", "4", "--decisions", "--format", "jsonl"][..],
    ] {
        let argv = [&["run"][..], args].concat();
        let once = tempo(&argv);
        assert!(once.contains("(search) considers") || once.contains("\"policy\":\"search\""), "{once}");
        assert_eq!(tempo(&argv), once, "tempo {argv:?}");
    }
}

#[test]
fn a_search_simulation_is_the_same_for_every_jobs_and_shard_split() {
    // Search against Search on the Frontiers duel; 24 runs (~2 s a batch in debug) are enough
    // to play every searcher's decision kind many times over.
    let dir = std::env::temp_dir().join(format!("tempo-search-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let scenario = dir.join("search-duel.ron");
    let text = std::fs::read_to_string(FRONTIERS_SCENARIO).expect("reads");
    let text = text.replacen("controller: Policy(Aggressive)", "controller: Policy(Search(exact: 0))", 1);
    std::fs::write(&scenario, text).expect("writes");
    let scenario = scenario.display().to_string();
    same_for_every_split(&dir, &[FRONTIERS, &scenario], "24");
    // Played exactly (a corpus case, solved once and shared between threads): the same again.
    same_for_every_split(&dir, &["tests/corpus/cases/bait-01.rules", "tests/corpus/cases/bait-01.ron"], "200");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tempo sim FILES --runs RUNS` gives the same summary with 1 and 2 jobs, and as 2 shards merged.
fn same_for_every_split(dir: &std::path::Path, files: &[&str], runs: &str) {
    let sim = [&["sim"][..], files, &["--runs", runs, "--seed", "5"]].concat();
    let one = tempo(&[&sim[..], &["--jobs", "1", "--format", "json"]].concat());
    let two = tempo(&[&sim[..], &["--jobs", "2", "--format", "json"]].concat());
    assert_eq!(two, one, "--jobs 2 differs from --jobs 1");
    assert!(one.contains(&format!("\"runs\": {runs}")), "{one}");
    let mut files = Vec::new();
    for k in ["1/2", "2/2"] {
        let file = dir.join(format!("shard-{}.json", &k[..1]));
        std::fs::write(&file, tempo(&[&sim[..], &["--shard", k]].concat())).expect("writes");
        files.push(file.display().to_string());
    }
    let merged = tempo(&[&["sim", "merge", "--format", "json"][..], &[&files[0][..], &files[1][..]]].concat());
    assert_eq!(merged, one, "the merge of 2 shards differs from the whole");
}

#[test]
fn search_wins_the_frontiers_duel_that_no_other_policy_does() {
    // Aria keeps only her Adjust; Search (by playouts, `exact: 0`) finds move, Surge, Surge against the
    // Aggressive Brute. The issue asks for 90%; it won 100% of 200 when measured, so 60 runs
    // (~4 s in debug; all 60 won put the interval's low end at 94%) leave the 90% line far
    // behind unless Search breaks.
    let r = ruleset(FRONTIERS);
    let s = scenario_with(FRONTIERS_SCENARIO, &[]);
    let heroes = share(&simulate(&r, &s, 7, 60), "heroes left standing");
    println!("Aria Search vs Brute Aggressive: {}", pct(heroes));
    assert!(heroes.value >= 0.9, "{heroes:?}");
}

#[test]
fn search_beats_greedy_from_either_seat_of_a_mirror_match() {
    // Two fencers alike in every stat (tests/search/mirror.ron, 20 HP so the fight lasts): Ann
    // Search vs Bea Greedy, then Ann Greedy vs Bea Search. (The Frontiers duel is no mirror:
    // whoever plays Aria well wins it in her first turn, Greedy included since it weighs costs.)
    // Measured over 200 runs a seat: Search wins 99.5% from either seat, Greedy 0.5%; Greedy
    // against itself 58.5% for Ann. 30 runs a seat keep the intervals apart unless Search
    // wins under about 2 in 3.
    let r = ruleset(FRONTIERS);
    let runs = 30;
    let ann_search = scenario_with(MIRROR_SCENARIO, &[]);
    let bea_search = scenario_with(
        MIRROR_SCENARIO,
        &[
            ("controller: Policy(Search(exact: 0))", "controller: Policy(Placeholder)"),
            ("controller: Policy(Greedy)", "controller: Policy(Search(exact: 0))"),
            ("controller: Policy(Placeholder)", "controller: Policy(Greedy)"),
        ],
    );
    let first = simulate(&r, &ann_search, 8, runs);
    let second = simulate(&r, &bea_search, 8, runs);
    let (as_ann, greedy_as_bea) = (share(&first, "heroes left standing"), share(&first, "monsters left standing"));
    let (greedy_as_ann, as_bea) = (share(&second, "heroes left standing"), share(&second, "monsters left standing"));
    println!(
        "Search as Ann {}, as Bea {}; Greedy as Ann {}, as Bea {}",
        pct(as_ann),
        pct(as_bea),
        pct(greedy_as_ann),
        pct(greedy_as_bea)
    );
    assert!(as_ann.low > greedy_as_ann.high, "as Ann: Search {as_ann:?}, Greedy {greedy_as_ann:?}");
    assert!(as_bea.low > greedy_as_bea.high, "as Bea: Search {as_bea:?}, Greedy {greedy_as_bea:?}");
    assert!(as_ann.value + as_bea.value >= 1.5, "Search wins most games from both seats");
}

#[test]
fn search_finds_a_plan_of_sure_hits_then_saving() {
    // The best plan here needs two jabs and then the end of the turn with AP kept. By playouts
    // alone Search missed it (Greedy rollouts never end a turn early, so after a jab they spend
    // the rest on swings and lose: 90.8% at seed 2); the encounter solves within Search's
    // default exact budget (22,806 positions), so Search plays it exactly.
    let r = ruleset("tests/search/plan.rules");
    let scenario = "tests/search/plan.ron";
    let best = exact::PLAN.win(exact::Hero::Best);
    assert!((best - 205.0 / 216.0).abs() < 1e-12, "optimum {best}");
    let first = exact::PLAN.win(exact::Hero::First);
    let sim = hero_wins(&simulate(&r, &race_with(scenario, "Aggressive"), 1, 10_000));
    assert!(sim.low <= first && first <= sim.high, "Aggressive: exact {first}, simulated {sim:?}");
    // 336 runs: 3 points are 2.5 standard errors at the optimum.
    let runs = ((2.5_f64 / 0.03).powi(2) * best * (1.0 - best)).ceil() as u64;
    let search = hero_wins(&simulate(&r, &race_with(scenario, "Search"), 2, runs));
    println!("exact optimum {:.2}%; Search over {runs} runs {}", 100.0 * best, pct(search));
    assert!(search.value >= best - 0.03, "Search {search:?} is more than 3 points below the optimum {best}");
}

/// How often the Hero used each of `actions` in one encounter of the treasure room under
/// `rules`.
fn treasure_uses(rules: &str, actions: &[&str]) -> Vec<usize> {
    let r = ruleset(rules);
    let s = scenario::parse(&std::fs::read_to_string("tests/search/treasure.ron").unwrap()).unwrap();
    let records = run(&r, &s, None).expect("the treasure room plays");
    actions
        .iter()
        .map(|a| {
            records
                .iter()
                .filter(|rec| {
                    matches!(&rec.event, trace::Event::Action { actor, action, .. }
                        if &**actor == "Hero" && &**action == *a)
                })
                .count()
        })
        .collect()
}

#[test]
fn a_ruleset_says_what_a_side_values_in_place_of_winning() {
    // A guard who does nothing, 1 AP a turn for five rounds, a coin or a blow. Played to win,
    // Search strikes the guard down in three turns and grabs nothing; where the ruleset derives
    // `side_value = gold`, it grabs every turn and never strikes.
    assert_eq!(treasure_uses("tests/search/treasure.rules", &["grab", "strike"]), vec![0, 3]);
    assert_eq!(treasure_uses("tests/search/treasure.value.rules", &["grab", "strike"]), vec![5, 0]);
}

/// What the Hero answers the chest's question with, when its script opens the chest in round 1
/// and `fallback` decides the rest.
fn chest_answer(fallback: &str) -> String {
    let r = ruleset("tests/search/chest.rules");
    let text = std::fs::read_to_string("tests/search/treasure.ron").unwrap().replacen(
        "controller: Policy(Search(playouts: 60))",
        &format!("controller: Script(steps: [Act(round: 1, action: \"chest\")], fallback: {fallback})"),
        1,
    );
    let records = run(&r, &scenario::parse(&text).unwrap(), None).expect("the chest opens");
    let text = trace::to_text(&records);
    let line = text.lines().find(|l| l.contains("chooses")).expect("a choice was made").to_string();
    line
}

#[test]
fn search_answers_a_choice_by_playouts() {
    // Two coins or a dent: nothing in the effects' score tells them apart (neither pool has a
    // threshold), so a plain policy takes the first; `Search`, valuing gold (`side_value`),
    // plays both out and takes the coins.
    assert!(chest_answer("Passive").contains("chooses dent"), "{}", chest_answer("Passive"));
    assert!(chest_answer("Search").contains("chooses coins"), "{}", chest_answer("Search"));
}

/// The first `Search` decision line of `tempo run RULES SCENARIO --control A=Search --decisions`.
fn first_search_decision(rules: &str, scenario: &str, seed: &str) -> String {
    let text = tempo(&["run", rules, scenario, "--control", "A=Search", "--decisions", "--seed", seed]);
    text.lines().find(|l| l.contains("(search) considers")).unwrap_or_else(|| panic!("no decision: {text}")).to_string()
}

#[test]
fn search_weighs_every_target_and_strikes_the_dangerous_one() {
    // tests/corpus/cases/target-01: A's first decision, with 1 AP, strikes the Sniper (2 hp, 2 a
    // hit) rather than the Brute (3 hp, 1 a hit), the first enemy found; both are candidates.
    // Exactly, the Sniper first wins 49.6%, the Brute first 9.8%: the playouts tell them apart
    // at every seed tried.
    for seed in ["1", "2"] {
        let line =
            first_search_decision("tests/corpus/cases/target-01.rules", "tests/corpus/cases/target-01.ron", seed);
        assert!(line.contains("strike at Brute (") && line.contains("strike at Sniper ("), "{line}");
        assert!(line.ends_with("takes strike at Sniper."), "{line}");
    }
}

#[test]
fn decisions_show_what_ending_the_turn_and_declining_were_worth() {
    // The end of the turn is a candidate with its value and playouts, listed last, in text and
    // in JSON (`pass`); so is declining a reaction.
    // Played exactly (the corpus case solves), each value is a chance; by playouts, a mean.
    let line = first_search_decision("tests/corpus/cases/hold-01.rules", "tests/corpus/cases/hold-01.ron", "1");
    assert!(line.contains(", the end of its turn (0.852 exactly); takes strike at Foe."), "{line}");
    let by_playouts = |format: &str| {
        let (rules, scenario) = ("tests/corpus/cases/hold-01.rules", "tests/corpus/cases/hold-01.ron");
        let control = ["--control", "A=Search(exact: 0)", "--decisions", "--seed", "1", "--format", format];
        tempo(&[&["run", rules, scenario][..], &control[..]].concat())
    };
    let text = by_playouts("text");
    let line = text.lines().find(|l| l.contains("(search) considers")).expect("a Search decision");
    assert!(line.contains(", the end of its turn (") && line.contains(" playouts); takes"), "{line}");
    let text = by_playouts("jsonl");
    let turn = text.lines().find(|l| l.contains("\"policy\":\"search\"")).expect("a Search decision");
    assert!(turn.contains("\"pass\":{\"score\":"), "{turn}");
    let reaction = text
        .lines()
        .find(|l| l.contains("\"policy\":\"search\"") && l.contains("\"reaction\":true"))
        .expect("a Search reaction decision (the parry)");
    assert!(reaction.contains("\"pass\":{\"score\":"), "{reaction}");
}

/// The exact budget decides, by the encounter alone, whether Search solves: hold-01 takes
/// 3,044 positions and 18,790 replayed entries, so 2,000 positions (20,000 work, a probe of
/// 312) are too few and its decisions go to the playouts, 20,000 are enough; and a budget past
/// the cap is refused where the policy is read.
#[test]
fn the_exact_budget_decides_whether_search_solves() {
    let first = |policy: &str| {
        let args = ["run", "tests/corpus/cases/hold-01.rules", "tests/corpus/cases/hold-01.ron", "--decisions"];
        let text = tempo(&[&args[..], &["--seed", "1", "--control", &format!("A={policy}")]].concat());
        text.lines().find(|l| l.contains("(search) considers")).expect(&text).to_string()
    };
    assert!(first("Search(exact: 2000)").contains(" playouts)"));
    assert!(first("Search(exact: 20000)").contains(" exactly)"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tempo"))
        .args(["run", "tests/corpus/cases/hold-01.rules", "tests/corpus/cases/hold-01.ron"])
        .args(["--control", "A=Search(exact: 10000001)"])
        .output()
        .expect("tempo runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("at most 10000000 positions"), "{err}");
}

/// `tempo run RULES EXAMPLE --control CONTROL --decisions`: the text line of the first Search
/// decision asking `question`, and its JSON lines event.
fn searched_question(rules: &str, example: &str, control: &str, question: &str) -> (String, String) {
    let run = |format: &str| tempo(&["run", rules, example, "--control", control, "--decisions", "--format", format]);
    let text = run("text");
    let wanted = format!("(search) considers for {question}:");
    let line = text.lines().find(|l| l.contains(&wanted)).expect(&text).to_string();
    let json = run("jsonl");
    let key = format!("\"question\":\"{question}\"");
    let event = json.lines().find(|l| l.contains(&key)).expect(&json).to_string();
    (line, event)
}

/// An initiative adjustment Search makes is accounted for like its turns: each adjustment it
/// weighed (the extremes and none) with its value, and the one taken, in text and JSON lines.
#[test]
fn decisions_show_a_searched_initiative_adjustment() {
    let (line, event) = searched_question(
        "rulesets/frontiers.rules",
        "examples/frontiers-duel.ron",
        "heroes=Search(playouts: 30, exact: 0)",
        "initiative",
    );
    assert!(line.contains("-2 (") && line.contains("+0 (") && line.contains("+2 ("), "{line}");
    assert!(line.contains(" playouts); takes ") || line.contains(" playouts), "), "{line}");
    assert!(event.contains("\"considered\":[{\"action\":\"-2\""), "{event}");
}

/// Who of a side takes its slot, where a `Search` member decides it, is accounted for like a
/// `choose`: the question `slot`, each member who could take it with its value, and the taker.
#[test]
fn decisions_show_who_search_gives_a_slot_to() {
    let (line, event) = searched_question(
        "rulesets/side-slots.rules",
        "examples/side-slots-skirmish.ron",
        "raiders=Search(playouts: 20, exact: 0)",
        "slot",
    );
    assert!(line.contains(" playouts)") && line.contains("; takes "), "{line}");
    assert!(event.contains("\"considered\":[{\"action\":\""), "{event}");
}

/// A decision that has not mattered stops early: with a Brute that cannot hurt her, Aria wins
/// whatever she does, so each turn decision's candidates get 16 playouts each (every one a
/// win), not the 200 of the budget; the rollout's choice (the attack) is kept.
#[test]
fn a_decision_that_has_not_mattered_stops_after_sixteen_playouts_each() {
    let text = tempo(&[
        "run",
        "rulesets/frontiers.rules",
        "examples/frontiers-fair-duel.ron",
        "--control",
        "heroes=Search(exact: 0)",
        "--set",
        "Brute.damage=0",
        "--set",
        "Brute.attack_bonus=-20",
        "--decisions",
    ]);
    let turns: Vec<&str> = text.lines().filter(|l| l.contains("(search) considers Attack")).collect();
    assert!(!turns.is_empty(), "{text}");
    for line in turns {
        assert!(line.contains("Attack at Brute (1 over 16 playouts)"), "{line}");
        assert!(line.contains("the end of its turn (1 over 16 playouts); takes Attack at Brute."), "{line}");
    }
}

#[test]
fn search_plays_small_encounters_exactly() {
    // Each corpus case solves within Search's default exact budget, so every decision of its
    // is answered from the solution: the round is followed from its start to the decision (dice
    // drawn as the real run drew them, a pool's successes counted, reactions, choices), and the
    // followed state is the real one. A decision not followed would be played by playouts.
    for case in ["hold-01", "bait-01", "choose-01", "pool-01", "target-01"] {
        let rules = format!("tests/corpus/cases/{case}.rules");
        let scenario = format!("tests/corpus/cases/{case}.ron");
        for seed in ["1", "2"] {
            let text = tempo(&["run", &rules, &scenario, "--control", "A=Search", "--decisions", "--seed", seed]);
            let lines: Vec<&str> = text.lines().filter(|l| l.contains("(search) considers")).collect();
            assert!(lines.iter().any(|l| l.contains(" exactly), ")), "{case} seed {seed}: no exact choice\n{text}");
            for line in lines {
                assert!(!line.contains(" playouts)"), "{case} seed {seed}: played by playouts: {line}");
            }
        }
    }
}

/// tests/search/upkeep.rules: A, cursed and played by `a`, against B, who is not; both strike,
/// and neither may jab.
fn upkeep(a: &str) -> Scenario {
    scenario::parse(&format!(
        "(seed: 1, rounds: 4, participants: [
          (name: \"A\", side: \"a\", conditions: [\"cursed\"], actions: [\"strike\"], controller: Policy({a})),
          (name: \"B\", side: \"b\", actions: [\"strike\"], controller: Policy(Aggressive)),
        ])"
    ))
    .unwrap()
}

#[test]
fn search_lets_an_optional_upkeep_lapse_in_time() {
    // The curse does nothing but cost 1 of A's 3 hp a turn unless let go (`maintain ...
    // optional`); A and B trade a point a turn, A first. Aggressive pays while paying leaves it
    // standing (round 1), lets it lapse when paying would take it down (round 2), and is beaten
    // by the point it paid. Search sees the upkeep as its decision, by playouts or exactly, lets
    // it lapse at once, and wins the trade.
    let r = ruleset("tests/search/upkeep.rules");
    for (policy, first, wins) in
        [("Aggressive", "pay", false), ("Search", "lapse", true), ("Search(exact: 0)", "lapse", true)]
    {
        let text = trace::to_text(&run(&r, &upkeep(policy), None).expect("the curse plays"));
        let answer = text.lines().find(|l| l.contains("(upkeep of cursed)")).unwrap_or_default();
        assert_eq!(answer.trim(), format!("A chooses {first} (upkeep of cursed)."), "{policy}:\n{text}");
        assert_eq!(text.contains("B is now down."), wins, "{policy}:\n{text}");
        assert_eq!(text.contains("A is now down."), !wins, "{policy}:\n{text}");
    }
}

#[test]
fn search_weighs_a_reaction_to_the_end_of_a_turn_and_an_optional_upkeep() {
    // `on turn_end by enemy` is offered as any reaction is: Search's reaction decision lists it,
    // with what declining was worth. An optional upkeep is one of its choices: `--decisions`
    // writes what paying and lapsing were worth.
    let text = tempo(&["run", "tests/search/upkeep.rules", "tests/search/upkeep.ron", "--decisions"]);
    let line =
        text.lines().find(|l| l.contains("(search) considers as a reaction jab")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("no reaction ("), "{line}");
    assert!(text.contains("A answers turn_end with jab."), "{text}");
    // Its optional upkeep is its choice, accounted for like its turns and reactions.
    let upkeep = text
        .lines()
        .find(|l| l.contains("(search) considers for upkeep of cursed: pay ("))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(upkeep.contains(", lapse (") && upkeep.ends_with("takes lapse."), "{upkeep}");
    let json =
        tempo(&["run", "tests/search/upkeep.rules", "tests/search/upkeep.ron", "--decisions", "--format", "jsonl"]);
    let decision =
        json.lines().find(|l| l.contains("\"question\":\"upkeep of cursed\"") && l.contains("\"event\":\"decision\""));
    assert!(decision.is_some_and(|d| d.contains("\"chosen\":{\"action\":\"lapse\"}")), "{json}");
}
