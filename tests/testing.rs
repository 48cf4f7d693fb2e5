//! `tempo test`: golden-encounter test files (docs/testing.md), through the command line. Each
//! test writes its files into a folder of its own and runs `tempo test .` there.

use std::path::{Path, PathBuf};
use std::process::Command;

const RULES: &str = "ruleset jab
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool hp { max 10 }
condition dazed { }
action jab {
  cost 1 ap
  target enemy
  resolve { target.hp -= 2 }
}
limit jab: 1 per turn
";

/// A scenario: A jabs B twice (the second is refused by the limit), B does nothing.
const SCENARIO: &str = r#"(rounds: 1, participants: [
    (name: "A", side: "a", position: 0,
     controller: Script(steps: [Act(round: 1, action: "jab", target: "B"), Act(round: 1, action: "jab", target: "B"), EndTurn(round: 1)], fallback: Passive)),
    (name: "B", side: "b", position: 1, controller: Policy(Passive)),
  ])"#;

/// A fresh folder holding `jab.rules` and `a.test.ron` with these fields after `ruleset` and
/// `scenario`.
fn folder(tag: &str, fields: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tempo-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("jab.rules"), RULES).unwrap();
    let test = format!("(\n  ruleset: \"jab.rules\",\n  scenario: {SCENARIO},\n{fields}\n)\n");
    std::fs::write(dir.join("a.test.ron"), test).unwrap();
    dir
}

fn tempo_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo"))
        .arg("test")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// The reason a single test failed, as the text report gives it.
fn failure(tag: &str, fields: &str) -> String {
    let dir = folder(tag, fields);
    let (code, out, err) = tempo_in(&dir, &["."]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.trim_end().ends_with("0 passed, 1 failed"), "{out}");
    let start = out.find("---- a (./a.test.ron) ----\n").unwrap_or_else(|| panic!("{out}"));
    let rest = &out[start..];
    rest[rest.find('\n').unwrap() + 1..rest.find("\n\nfailed:").unwrap()].to_string()
}

#[test]
fn every_kind_of_expectation_passes_when_it_holds() {
    let dir = folder(
        "pass",
        r#"  expect: ["A uses jab (action) at B, paying 1 ap.", "A cannot use jab"],
  absent: ["B uses"],
  events: [{"event": "action", "actor": "A", "action": "jab", "paid": {"ap": 1}}, {"event": "pool", "who": "B", "pool": "hp", "to": 8}],
  anywhere: [{"event": "rejected", "code": "limit"}],
  never: [{"event": "pool", "who": "A", "pool": "hp"}],
  final: {"B": (pools: {"hp": 8}, conditions: []), "A": (pools: {"ap": 2})},
  seeds: [1, 2],"#,
    );
    let (code, out, err) = tempo_in(&dir, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out, "running 1 test\ntest a ... ok\n\n1 passed, 0 failed\n");
    let (code, json, _) = tempo_in(&dir, &["--format", "json"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["passed"], 1);
    assert_eq!(doc["failed"], 0);
    assert_eq!(doc["tests"][0]["name"], "a");
    assert_eq!(doc["tests"][0]["file"], "./a.test.ron");
    assert_eq!(doc["tests"][0]["passed"], true);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn each_kind_of_expectation_fails_when_it_does_not_hold() {
    let out_of_order = failure(
        "order",
        r#"  events: [{"event": "pool", "who": "B", "pool": "hp", "to": 8}, {"event": "action", "actor": "A"}],"#,
    );
    assert!(
        out_of_order.starts_with(r#"events[1] {"actor":"A","event":"action"} not found in order"#),
        "{out_of_order}"
    );
    assert!(out_of_order.contains("(it happens, but not after the events before it in the list)"), "{out_of_order}");
    let missing = failure("anywhere", r#"  anywhere: [{"event": "condition", "condition": "dazed"}],"#);
    assert!(missing.starts_with(r#"anywhere: {"condition":"dazed","event":"condition"} never happens"#), "{missing}");
    let present = failure("never", r#"  never: [{"event": "rejected"}],"#);
    assert!(
        present.starts_with(r#"never: {"event":"rejected"} happens: {"seq":8,"round":1,"event":"rejected","#),
        "{present}"
    );
    let end = failure(
        "final",
        r#"  final: {"B": (pools: {"hp": 10, "mana": 1}, conditions: ["dazed"]), "C": (pools: {"hp": 1})},"#,
    );
    assert_eq!(
        end,
        "final: B's hp is 8, not 10\nfinal: B has no pool `mana` (pools: ap, hp)\nfinal: B holds [], not [dazed]\n\
         final: no participant `C` (there are A, B)"
    );
    let text = failure("text", r#"  expect: ["A cannot use jab", "A uses jab"],"#);
    assert!(text.starts_with("`A uses jab` not found (in order) in the trace:"), "{text}");
    let finished = failure("error", r#"  error: "tempo::trigger-cycle","#);
    assert!(finished.starts_with("expected the run to stop with tempo::trigger-cycle, it finished:"), "{finished}");
    let nothing = failure("nothing", "");
    assert!(nothing.starts_with("the test expects nothing"), "{nothing}");
    let unknown = failure("field", r#"  expected: ["x"],"#);
    assert!(unknown.starts_with("not a valid test file:") && unknown.contains("expected"), "{unknown}");
}

#[test]
fn errors_expected_from_the_scenario_or_the_ruleset() {
    // A scenario naming an action the ruleset does not have fails the run with `scenario`.
    let dir = folder("bad-scenario", r#"  error: "tempo::scenario","#);
    let text = std::fs::read_to_string(dir.join("a.test.ron"))
        .unwrap()
        .replace(r#"action: "jab", target"#, r#"action: "jabb", target"#);
    std::fs::write(dir.join("a.test.ron"), text).unwrap();
    let (code, out, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 0, "{out}");
    // A ruleset that does not compile passes only when its error is the one expected.
    std::fs::write(dir.join("jab.rules"), RULES.replace("cost 1 ap", "cost 1 apx")).unwrap();
    let (code, out, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("`jab.rules` does not compile") && out.contains("tempo::unknown-pool"), "{out}");
    let text =
        std::fs::read_to_string(dir.join("a.test.ron")).unwrap().replace("tempo::scenario", "tempo::unknown-pool");
    std::fs::write(dir.join("a.test.ron"), text).unwrap();
    let (code, out, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 0, "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_golden_trace_is_written_by_bless_and_a_change_is_shown_as_a_diff() {
    let dir = folder("golden", r#"  golden: "a.trace","#);
    let (code, out, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 1);
    assert!(
        out.contains("the golden trace `a.trace` does not exist yet: run `tempo test --bless` to write it"),
        "{out}"
    );
    let (code, out, _) = tempo_in(&dir, &[".", "--bless"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("test a ... ok\n  golden trace `a.trace` written\n"), "{out}");
    let golden = std::fs::read_to_string(dir.join("a.trace")).unwrap();
    assert!(golden.starts_with("--- seed 0\nEncounter starts: A, B.\n"), "{golden}");
    let (code, _, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 0, "the blessed trace is the trace");
    // The rules change: the diff shows the lines that moved.
    std::fs::write(dir.join("jab.rules"), RULES.replace("target.hp -= 2", "target.hp -= 3")).unwrap();
    let (code, out, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("golden-diff", out);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn paths_that_cannot_be_read_or_hold_no_test_exit_2() {
    let dir = folder("empty", "");
    std::fs::remove_file(dir.join("a.test.ron")).unwrap();
    let (code, _, err) = tempo_in(&dir, &["."]);
    assert_eq!(code, 2);
    assert!(err.contains("no test files (`*.test.ron`) in `.`"), "{err}");
    let (code, _, err) = tempo_in(&dir, &["missing"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read `missing`"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_broken_test_file_fails_with_its_line_and_column_and_the_others_still_run() {
    let dir = folder("broken", r#"  expect: ["A uses jab"],"#);
    std::fs::write(dir.join("b.test.ron"), "(\n  ruleset: \"jab.rules\"\n  scenario: ()\n)\n").unwrap();
    std::fs::write(
        dir.join("c.test.ron"),
        "(ruleset: \"nowhere.rules\", scenario: (rounds: 1, participants: []), expect: [\"x\"])",
    )
    .unwrap();
    let (code, out, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 1);
    assert!(out.contains("test a ... ok\ntest b ... FAILED\ntest c ... FAILED\n"), "{out}");
    assert!(out.contains("not a valid test file: 3:3"), "the RON error's place: {out}");
    assert!(out.contains("`nowhere.rules`"), "{out}");
    assert!(out.trim_end().ends_with("1 passed, 2 failed"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The project's own example passes, and so does a folder of conformance cases, run from the
/// project's root with no flag: their rulesets are in `rulesets/`, outside the folders given but
/// inside the current folder (issue 45). From `examples/` itself, `../rulesets/` is outside both.
#[test]
fn the_example_and_the_conformance_cases_pass_through_the_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = tempo_in(root, &["examples/frontiers-duel.test.ron", "tests/conformance/cheatsheet"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("test examples/frontiers-duel ... ok\n"), "{out}");
    assert!(out.contains("test ap-5-each-round ... ok\n"), "{out}");
    let cases = std::fs::read_dir(root.join("tests/conformance/cheatsheet")).unwrap().count();
    assert!(out.trim_end().ends_with(&format!("{} passed, 0 failed", cases + 1)), "{out}");
    let (code, out, _) = tempo_in(&root.join("examples"), &["frontiers-duel.test.ron"]);
    assert_eq!(code, 1, "{out}");
    let refused = "[tempo::outside-folder] the ruleset `../rulesets/frontiers.rules` (`../rulesets/frontiers.rules`) \
                   leads outside the folder `.` and the current folder";
    assert!(out.contains(refused), "{out}");
}

/// A test's ruleset may be a compiled IR, as for `tempo run`.
#[test]
fn a_compiled_ruleset_is_tested_like_its_source() {
    let dir = folder("ir", r#"  final: {"B": (pools: {"hp": 8})},"#);
    let out = Command::new(env!("CARGO_BIN_EXE_tempo"))
        .args(["compile", "jab.rules", "-o", "jab.ron"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.join("a.test.ron")).unwrap().replace("\"jab.rules\"", "\"jab.ron\"");
    std::fs::write(dir.join("a.test.ron"), text).unwrap();
    let (code, out, err) = tempo_in(&dir, &["."]);
    assert_eq!(code, 0, "{out}{err}");
    // A file that is not an IR fails the test with the IR code.
    std::fs::write(dir.join("jab.ron"), "(not: an IR)").unwrap();
    let (code, out, _) = tempo_in(&dir, &["."]);
    assert_eq!(code, 1);
    assert!(out.contains("`jab.ron` is not a tempo IR"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

// `tempo run` prints the ruleset's labels; a test's text fragments may be written either way
// (all of one test's in the same one), and fail when neither matches.
#[test]
fn text_expectations_match_labels_or_names() {
    let labelled =
        RULES.replace("pool ap {", "pool ap \"Action Points\" {").replace("action jab {", "action jab \"Jab\" {");
    for (tag, expect, passes) in [
        (
            "labels",
            r#"  expect: ["A uses Jab (action) at B, paying 1 Action Points.", "B: hp 10 -> 8 (Jab by A)"],"#,
            true,
        ),
        ("names", r#"  expect: ["A uses jab (action) at B, paying 1 ap.", "B: hp 10 -> 8 (jab by A)"],"#, true),
        ("mixed", r#"  expect: ["A uses Jab (action) at B, paying 1 ap."],"#, false),
    ] {
        let dir = folder(tag, expect);
        std::fs::write(dir.join("jab.rules"), &labelled).unwrap();
        let (code, out, err) = tempo_in(&dir, &["."]);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(code == 0, passes, "{tag}: {out}{err}");
    }
}
