//! Scenario and run-time problems are diagnostics: each at its place (the value at fault in the
//! scenario, the rule under way in the ruleset), with "did you mean", rendered as the
//! ruleset's are, for the terminal (no colour, 80 columns) and as JSON.

use tempo::check::compile_path;
use tempo::diagnostics::render;
use tempo::run::{scenario, RunError, Runner};
use tempo::source::SourceMap;

const STYLE: render::TextStyle = render::TextStyle { color: false, width: 80 };

fn ruleset(path: &str) -> tempo::ir::Ruleset {
    compile_path(std::path::Path::new(path)).ruleset.expect("compiles")
}

/// A scenario that does not fit `rulesets/frontiers.rules`: its text, the error, its problems as
/// diagnostics placed in it, and the sources they are placed in.
struct Misfit {
    text: String,
    error: RunError,
    diagnostics: Vec<tempo::diagnostics::Diagnostic>,
    sources: SourceMap,
}

fn misfit(path: &str) -> Misfit {
    let text = std::fs::read_to_string(path).unwrap();
    let s = scenario::parse(&text).expect("parses");
    let r = ruleset("rulesets/frontiers.rules");
    let Err(e) = Runner::new(&r, &s, Vec::<tempo::run::trace::Record>::new()) else { panic!("refused") };
    let mut sources = SourceMap::new();
    let file = sources.add(path, text.clone());
    let diagnostics = e.diagnostics(&sources, Some((file, &[])), &r.files).expect("placed");
    Misfit { text, error: e, diagnostics, sources }
}

#[test]
fn scenario_problems_are_placed_with_did_you_mean() {
    let Misfit { text, error: e, diagnostics, sources } = misfit("tests/scenario/misfit.ron");
    // Every problem is at the name it is about, `Ready`'s too.
    let at = |needle: &str| text.find(needle).unwrap();
    let starts: Vec<usize> = diagnostics.iter().map(|d| d.primary.span.start as usize).collect();
    let want = ["\"finese\"", "\"Brut\"", "\"atack\"", "\"hitt\"", "\"apx\""].map(at);
    assert_eq!(starts, want, "{diagnostics:#?}");
    let helps: Vec<Option<&str>> = diagnostics.iter().map(|d| d.help.as_deref()).collect();
    assert_eq!(
        helps,
        [
            Some("did you mean `finesse`?"),
            Some("did you mean `Brute`?"),
            Some("did you mean `attack`?"),
            Some("did you mean `hit`?"),
            Some("did you mean `ap`?"),
        ]
    );
    insta::assert_snapshot!("misfit-text", render::to_text(&diagnostics, &sources, STYLE));
    insta::assert_snapshot!("misfit-json", render::to_json(&diagnostics, &sources));
    // The one-line form (`tempo compare`, the language server) says the same.
    assert!(e.to_string().contains("Aria: `Ready` waits for `hitt`, which is no action, category, kind or event of the ruleset; did you mean `hit`?"), "{e}");
}

#[test]
fn a_problem_in_a_test_file_is_found_under_its_scenario_field() {
    let text = r#"(ruleset: "x.rules", scenario: (rounds: 1, participants: [
  (name: "A", side: "a", stats: {"sped": 1}, controller: Policy(Passive)),
]))"#;
    let path = [scenario::Seg::Field("scenario"), scenario::Seg::Field("participants"), scenario::Seg::Index(0)];
    let stat = [&path[..], &[scenario::Seg::Field("stats"), scenario::Seg::Key("sped".into())]].concat();
    let (start, end) = scenario::span_of(text, &stat).expect("reads");
    assert_eq!(&text[start..end], "\"sped\"");
}

#[test]
fn a_rule_that_fails_is_shown_at_the_rule_under_way() {
    let r = ruleset("tests/runtime/overflow.rules");
    let s = scenario::parse(&std::fs::read_to_string("tests/runtime/start.ron").unwrap()).unwrap();
    let mut runner = Runner::new(&r, &s, Vec::<tempo::run::trace::Record>::new()).expect("fits");
    let e = runner.play(None).expect_err("overflows");
    let RunError::Rule { rule: Some(loc), .. } = &e else { panic!("no rule: {e:?}") };
    assert_eq!((loc.line, loc.column), (7, 1), "the action `boom`");
    assert_eq!(e.rule_place(&r.files).as_deref(), Some("tests/runtime/overflow.rules:7:1"));
    let (sources, _) = tempo::why::sources_of(&r, |name| std::fs::read_to_string(name).ok());
    let diagnostics = e.diagnostics(&sources, None, &r.files).expect("placed");
    insta::assert_snapshot!("rule-failed-text", render::to_text(&diagnostics, &sources, STYLE));
    insta::assert_snapshot!("rule-failed-json", render::to_json(&diagnostics, &sources));
}

#[test]
fn a_search_written_wrong_is_placed_at_the_value_at_fault() {
    let Misfit { text, diagnostics, .. } = misfit("tests/scenario/search-misfit.ron");
    let at = |needle: &str| text.find(needle).unwrap();
    let starts: Vec<usize> = diagnostics.iter().map(|d| d.primary.span.start as usize).collect();
    assert_eq!(starts, [at("-1.0"), at("Search)))"), at("Search,")], "{diagnostics:#?}");
    let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(messages[0].contains("`exploration` is a number 0 or more"), "{messages:?}");
    assert!(messages[1].contains("its `rollout` cannot be `Search`"), "{messages:?}");
    assert!(messages[2].contains("the GM's policy cannot be `Search`"), "{messages:?}");
}

/// `fallback: Policy(Greedy)`: the fallback written as a controller. The message says what a
/// fallback may be and shows the same policy written as one, not serde's "unexpected variant
/// `Policy`".
#[test]
fn a_fallback_written_as_a_controller_is_shown_as_a_policy() {
    let duel = std::fs::read_to_string("examples/frontiers-duel.ron").unwrap();
    let wrong = duel.replace("fallback: HoldBack(pool: \"ap\", keep: 1)", "fallback: Policy(Greedy)");
    assert_ne!(duel, wrong, "examples/frontiers-duel.ron has no `fallback: HoldBack(...)` any more");
    let e = scenario::parse(&wrong).expect_err("refused");
    assert!(e.contains("write `fallback: Greedy`"), "{e}");
    insta::assert_snapshot!("fallback-policy", e);
    let nested =
        duel.replace("fallback: HoldBack(pool: \"ap\", keep: 1)", "fallback: Policy(HoldBack(pool: \"ap\", keep: 1))");
    let e = scenario::parse(&nested).expect_err("refused");
    assert!(e.contains("write `fallback: HoldBack(pool: \"ap\", keep: 1)`"), "{e}");
}
