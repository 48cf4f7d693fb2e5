//! Loadouts: a participant's `actions` are the only actions and reactions its controller is
//! offered. Nothing outside them is used under any policy, a script step naming one is refused
//! with a reason, and a name the ruleset does not have is a scenario problem with a suggestion.

use tempo::check::compile_path;
use tempo::diagnostics::render;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::run::trace::{Event, Record};
use tempo::run::{RunError, Runner, Sink};
use tempo::source::SourceMap;

const FRONTIERS: &str = "rulesets/frontiers.rules";

fn ruleset() -> Ruleset {
    compile_path(std::path::Path::new(FRONTIERS)).ruleset.expect("compiles")
}

fn scenario_file(path: &str) -> Scenario {
    scenario::parse(&std::fs::read_to_string(path).unwrap()).expect("parses")
}

/// How often each participant used Surge and Riposte, over every run into it.
#[derive(Default)]
struct Uses {
    /// (Aria, Brute) × (surge, riposte).
    counts: [[u32; 2]; 2],
}

impl Sink for Uses {
    fn record(&mut self, record: Record) {
        let Event::Action { actor, action, .. } = &record.event else { return };
        let who = usize::from(&**actor == "Brute");
        match &**action {
            "surge" => self.counts[who][0] += 1,
            "riposte" => self.counts[who][1] += 1,
            _ => {}
        }
    }
}

/// Over 250 runs of each policy (given as `--control` gives it, which keeps the loadout), the
/// Brute, whose loadout has neither, never surges nor ripostes; Aria, who has every action,
/// does both, so the policies would have used them.
#[test]
fn nothing_outside_a_loadout_is_used_by_any_policy() {
    let r = ruleset();
    let mut aria_used = [0u32; 2];
    let policies = [
        "Aggressive",
        "HoldBack(pool: \"ap\", keep: 1)",
        "HoldBack(pool: \"ap\", keep: 1, spend_on_reactions: true)",
        "Greedy",
        "Random",
        "Passive",
        // Few playouts: a debug build plays 250 encounters of it in seconds; every candidate
        // a playout tries is offered as for any policy.
        "Search(playouts: 4, rollout: Random)",
    ];
    for policy in policies {
        let mut s = scenario_file("tests/loadout/duel.ron");
        for who in ["Aria", "Brute"] {
            let flag = scenario::parse_control(&format!("{who}={policy}")).unwrap();
            scenario::apply_control(&mut s, &flag).unwrap();
        }
        let mut runner = Runner::new(&r, &s, Uses::default()).expect("fits");
        // 250 seeds (was 1,000): a debug build took minutes; the check on Aria below still fails
        // if the policies could not have used the two actions at all.
        for seed in 0..250 {
            runner.play(Some(seed)).expect("plays");
        }
        let [aria, brute] = runner.sink().counts;
        assert_eq!(brute, [0, 0], "{policy}: the Brute surged or riposted");
        aria_used[0] += aria[0];
        aria_used[1] += aria[1];
    }
    assert!(aria_used[0] > 0 && aria_used[1] > 0, "Aria never surged or riposted: {aria_used:?}");
}

/// `Act` and `React` steps naming what the loadout lacks are refused, each with a `rejected`
/// event that says so; the script goes on (its Attack is taken).
#[test]
fn a_step_outside_the_loadout_is_rejected() {
    let r = ruleset();
    let s = scenario_file("tests/loadout/script.ron");
    let records = tempo::run::run(&r, &s, None).expect("plays");
    let trace = tempo::run::sink::to_jsonl(&records, &r.files);
    let rejected: Vec<&str> = trace.lines().filter(|l| l.contains("\"rejected\"")).collect();
    assert_eq!(rejected.len(), 2, "{trace}");
    assert!(rejected.iter().all(|l| l.contains("\"code\":\"loadout\"")), "{trace}");
    assert!(trace.contains("Brute has no `surge` in its loadout"), "{trace}");
    assert!(trace.contains("Brute has no `riposte` in its loadout"), "{trace}");
    insta::assert_snapshot!("script-trace", trace);
}

/// A name in `actions` the ruleset does not have is a scenario problem at that name, with the
/// closest action as a suggestion.
#[test]
fn an_unknown_name_in_a_loadout_is_a_problem_with_did_you_mean() {
    let path = "tests/loadout/misfit.ron";
    let text = std::fs::read_to_string(path).unwrap();
    let s = scenario::parse(&text).unwrap();
    let r = ruleset();
    let Err(e) = Runner::new(&r, &s, Vec::<Record>::new()) else { panic!("accepted") };
    assert!(matches!(e, RunError::Scenario(_)));
    let mut sources = SourceMap::new();
    let file = sources.add(path, text.clone());
    let diagnostics = e.diagnostics(&sources, Some((file, &[])), &r.files).expect("placed");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].help.as_deref(), Some("did you mean `surge`?"));
    let style = render::TextStyle { color: false, width: 80 };
    insta::assert_snapshot!("misfit", render::to_text(&diagnostics, &sources, style));
}
