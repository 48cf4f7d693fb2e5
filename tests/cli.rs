//! The command line as scripts use it: exit codes, JSON on stdout, explain, compile -o.

use std::process::Command;

fn tempo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(args).env("NO_COLOR", "1").output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_exit_codes() {
    assert_eq!(tempo(&["check", "rulesets/frontiers.rules"]).0, 0);
    assert_eq!(tempo(&["check", "tests/diagnostics/unused-pool.rules"]).0, 0, "warnings alone exit 0");
    assert_eq!(tempo(&["check", "tests/diagnostics/unknown-pool.rules"]).0, 1);
    assert_eq!(tempo(&["check", "tests/diagnostics/missing-base.rules"]).0, 1);
    assert_eq!(tempo(&["check", "tests/no-such-file.rules"]).0, 2);
    assert_eq!(tempo(&["check", "rulesets/frontiers.rules", "tests/no-such-file.rules"]).0, 2);
    assert_eq!(tempo(&["check"]).0, 2, "missing arguments are a usage error");
    assert_eq!(tempo(&["check", "--format", "yaml", "x.rules"]).0, 2);
}

/// A folder stands for every `.rules` file under it, sorted, as for `fmt`: each file's
/// diagnostics printed, exit 1 when any has an error; `--format json` stays one document.
#[test]
fn check_takes_a_folder() {
    let (code, _, stderr) = tempo(&["check", "tests/diagnostics/newcomer"]);
    assert_eq!(code, 1, "{stderr}");
    insta::assert_snapshot!("check-folder-text", stderr);
    let (code, stdout, _) = tempo(&["check", "--format", "json", "tests/diagnostics/newcomer/"]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let files: Vec<&str> = doc["diagnostics"].as_array().unwrap().iter().map(|d| d["file"].as_str().unwrap()).collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    assert_eq!(files.len(), 5, "{stdout}");
    assert_eq!(tempo(&["check", "rulesets"]).0, 0, "every shipped ruleset checks clean");
    // docs/economies.md's four economies, written from the user docs alone, stay clean.
    assert_eq!(tempo(&["check", "docs/economies"]).0, 0, "docs/economies checks clean");
    assert_eq!(tempo(&["check", "grammar"]).0, 2, "a folder with no `.rules` file is refused");
}

#[test]
fn check_json_is_one_document_on_stdout() {
    let (code, stdout, _) = tempo(&[
        "check",
        "--format",
        "json",
        "tests/diagnostics/unknown-pool.rules",
        "tests/diagnostics/unused-pool.rules",
    ]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let diags = doc["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 2);
    assert_eq!(diags[0]["code"], "tempo::unknown-pool");
    assert_eq!(diags[0]["file"], "tests/diagnostics/unknown-pool.rules");
    assert_eq!(diags[0]["help"], "did you mean `ap`?");
    assert_eq!(diags[1]["severity"], "warning");
    for key in ["line", "column", "end_line", "end_column", "offset", "length", "message", "related"] {
        assert!(diags[0].get(key).is_some(), "missing {key}");
    }
}

#[test]
fn compile_writes_ron_that_reads_back() {
    let dir = std::env::temp_dir().join(format!("tempo-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("frontiers.ron");
    let (code, _, _) = tempo(&["compile", "rulesets/frontiers.rules", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0);
    let ir = tempo::ir::Ruleset::from_ron(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(ir.name, "frontiers");
    let (code, stdout, _) = tempo(&["compile", "tests/diagnostics/unknown-pool.rules"]);
    assert_eq!((code, stdout.as_str()), (1, ""), "no IR is written when there are errors");
}

// `tempo compile` streams the RON into its output: the bytes are what `Ruleset::to_ron` makes,
// then a newline, on stdout and in a file alike; a file it cannot create is exit code 2.
#[test]
fn compile_streams_the_same_ron_to_stdout_and_to_a_file() {
    let dir = std::env::temp_dir().join(format!("tempo-cli-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("cheatsheet.ron");
    let (code, stdout, _) = tempo(&["compile", "rulesets/cheatsheet.rules"]);
    assert_eq!(code, 0);
    assert_eq!(tempo(&["compile", "rulesets/cheatsheet.rules", "-o", out.to_str().unwrap()]).0, 0);
    let file = std::fs::read_to_string(&out).unwrap();
    let compiled = tempo::check::compile_path(std::path::Path::new("rulesets/cheatsheet.rules"));
    let expected = format!("{}\n", compiled.ruleset.expect("compiles").to_ron().unwrap());
    assert_eq!(stdout, expected);
    assert_eq!(file, expected);
    let nowhere = dir.join("no-such-folder").join("x.ron");
    let (code, _, stderr) = tempo(&["compile", "rulesets/cheatsheet.rules", "-o", nowhere.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
}

#[test]
fn explain_knows_every_code() {
    for code in tempo::diagnostics::Code::ALL {
        let (exit, stdout, _) = tempo(&["explain", &code.name()]);
        assert_eq!(exit, 0);
        assert!(stdout.contains("Example"), "{}", code.name());
    }
    let (exit, _, stderr) = tempo(&["explain", "unknown-pol"]);
    assert_eq!(exit, 2);
    assert!(stderr.contains("tempo::unknown-pool"), "{stderr}");
    let (exit, stdout, _) = tempo(&["explain", "--list"]);
    assert_eq!(exit, 0);
    assert_eq!(stdout.lines().count(), tempo::diagnostics::Code::ALL.len());
}

#[test]
fn every_command_has_help() {
    for cmd in [
        vec!["--help"],
        vec!["check", "--help"],
        vec!["compile", "--help"],
        vec!["explain", "--help"],
        vec!["sim", "--help"],
        vec!["sim", "merge", "--help"],
        vec!["compare", "--help"],
        vec!["doc", "--help"],
    ] {
        let (code, stdout, _) = tempo(&cmd);
        assert_eq!(code, 0);
        assert!(stdout.contains("Usage"), "{cmd:?}");
    }
}

#[test]
fn run_exit_codes_and_formats() {
    let (code, stdout, _) =
        tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--format", "jsonl"]);
    assert_eq!(code, 0);
    let first: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["event"], "encounter_start");
    assert_eq!(first["seq"], 0);
    assert!(first["round"].is_null());
    let (code, stdout, _) = tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("Encounter starts:"), "{stdout}");
    // The text names pools, actions and conditions by their labels; `--names` by their names.
    assert!(stdout.contains("Aria uses Attack (action) at Brute, paying 1 Action Points."), "{stdout}");
    assert!(stdout.contains("Aria: Wounds 0 -> 1 (Hit Points <= 0)"), "{stdout}");
    let (_, named, _) = tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--names"]);
    assert!(named.contains("Aria uses attack (action) at Brute, paying 1 ap."), "{named}");
    // An action that paid nothing is said so by its kind alone.
    let (_, cheat, _) = tempo(&["run", "rulesets/cheatsheet.rules", "examples/cheatsheet-skirmish.ron"]);
    assert!(!cheat.contains("paying free"), "{cheat}");
    let (code, _, stderr) = tempo(&["run", "rulesets/cheatsheet.rules", "examples/frontiers-duel.ron"]);
    assert_eq!(code, 1, "a scenario that does not fit its ruleset");
    assert!(stderr.contains("tempo::scenario"), "{stderr}");
    assert_eq!(tempo(&["run", "rulesets/frontiers.rules", "examples/no-such.ron"]).0, 2);
    assert_eq!(tempo(&["run", "tests/diagnostics/unknown-pool.rules", "examples/frontiers-duel.ron"]).0, 1);
}

#[test]
fn a_compiled_ir_runs_like_its_source() {
    let dir = std::env::temp_dir().join(format!("tempo-cli-ir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ir = dir.join("frontiers.ron");
    assert_eq!(tempo(&["compile", "rulesets/frontiers.rules", "-o", ir.to_str().unwrap()]).0, 0);
    let from_source =
        tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--format", "jsonl", "--seed", "3"]);
    let from_ir =
        tempo(&["run", ir.to_str().unwrap(), "examples/frontiers-duel.ron", "--format", "jsonl", "--seed", "3"]);
    assert_eq!(from_source.0, 0);
    assert_eq!(from_source.1, from_ir.1);
}

#[test]
fn runtime_problems_are_diagnostics_with_exit_code_1() {
    let (code, stdout, stderr) = tempo(&["run", "tests/runtime/loop.rules", "tests/runtime/start.ron"]);
    assert_eq!(code, 1);
    // The trace streams: what happened before the failure is printed, up to the action that
    // set the cycle off, and the encounter never ends.
    assert!(stdout.starts_with("Encounter starts: A, B."), "{stdout}");
    assert!(
        stdout.trim_end().ends_with("A uses start (action), paying 1 ap.\n  A: ap 1 -> 0 (start by A)"),
        "{stdout}"
    );
    assert!(!stdout.contains("Encounter ends"), "{stdout}");
    assert!(
        stderr.contains("tempo::trigger-cycle") && stderr.contains("bounce") && stderr.contains("back"),
        "{stderr}"
    );
    let (code, _, stderr) = tempo(&["run", "tests/runtime/overflow.rules", "tests/runtime/start.ron"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("tempo::rule-failed") && stderr.contains("overflowed"), "{stderr}");
}

const SIM: [&str; 3] = ["sim", "rulesets/cheatsheet.rules", "examples/cheatsheet-skirmish.ron"];

#[test]
fn sim_output_is_the_same_whatever_the_jobs() {
    for format in ["text", "json"] {
        let run = |jobs: &str| {
            tempo(&[&SIM[..], &["--runs", "200", "--seed", "3", "--jobs", jobs, "--format", format]].concat())
        };
        let (code, one, err) = run("1");
        assert_eq!(code, 0, "{err}");
        assert!(err.is_empty(), "no progress bar when stderr is not a terminal: {err}");
        assert_eq!(run("2").1, one, "--jobs 2, {format}");
        assert_eq!(run("3").1, one, "--jobs 3, {format}");
    }
}

#[test]
fn four_shards_merge_byte_for_byte_into_one_run() {
    let dir = std::env::temp_dir().join(format!("tempo-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // What the batch was played under travels in the shards: the merge names it as one run does.
    let args = ["--runs", "203", "--seed", "11", "--set", "Kestrel.melee=70", "--control", "bandits=Greedy"];
    let (code, whole, err) = tempo(&[&SIM[..], &args, &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(whole.contains("\"scenario\": \"cheatsheet-skirmish.ron\""), "{whole}");
    assert!(whole.contains("\"sets\": [\n    \"Kestrel.melee=70\"\n  ]"), "{whole}");
    let (_, whole_text, _) = tempo(&[&SIM[..], &args].concat());
    assert!(
        whole_text.starts_with("cheatsheet.rules, cheatsheet-skirmish.ron: 203 encounters (seed 11)"),
        "{whole_text}"
    );
    assert!(whole_text.contains("\nset: Kestrel.melee=70; control: bandits=Greedy\n"), "{whole_text}");
    let mut files = Vec::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let (code, out, err) = tempo(&[&SIM[..], &args, &["--shard", &shard]].concat());
        assert_eq!(code, 0, "{err}");
        let file = dir.join(format!("shard-{k}.json"));
        std::fs::write(&file, out).unwrap();
        files.push(file.display().to_string());
    }
    let merge = |files: &[String]| {
        let mut argv = vec!["sim", "merge", "--format", "json"];
        argv.extend(files.iter().map(String::as_str));
        tempo(&argv)
    };
    let (code, merged, err) = merge(&files);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole, "the merge of 4 shards differs from one run of all seeds");
    let mut argv = vec!["sim", "merge"];
    argv.extend(files.iter().map(String::as_str));
    assert_eq!(tempo(&argv).1, whole_text, "the merge's text differs from one run's");
    // Three of four: refused, and the missing runs named.
    let (code, _, err) = merge(&files[..3]);
    assert_eq!(code, 1);
    assert!(err.contains("no shard played runs"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rolled initiative: either side may take the first turn. The split adds up to the whole, and
/// three shards merge into exactly what one machine prints.
#[test]
fn outcomes_split_by_first_side_add_up_and_merge_exactly() {
    let dir = std::env::temp_dir().join(format!("tempo-first-side-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sim = ["sim", "rulesets/frontiers-initiative-rolled.rules", "examples/frontiers-initiative-rolled-duel.ron"];
    let args = ["--runs", "150", "--seed", "5", "--format", "json"];
    let (code, whole, err) = tempo(&[&sim[..], &args].concat());
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&whole).unwrap();
    let split = doc["outcomes_by_first_side"].as_array().unwrap();
    let sides: Vec<&str> = split.iter().map(|f| f["side"].as_str().unwrap()).collect();
    assert_eq!(sides, ["heroes", "monsters"], "either side goes first some of the time");
    let completed: u64 = split.iter().map(|f| f["completed"].as_u64().unwrap()).sum();
    assert_eq!(completed, doc["completed"].as_u64().unwrap());
    for (k, o) in doc["outcomes"].as_array().unwrap().iter().enumerate() {
        let count: u64 = split.iter().map(|f| f["outcomes"][k]["count"].as_u64().unwrap()).sum();
        assert_eq!(count, o["count"].as_u64().unwrap(), "{o}");
    }
    let mut files = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let (code, out, err) = tempo(&[&sim[..], &args[..4], &["--shard", &shard]].concat());
        assert_eq!(code, 0, "{err}");
        let file = dir.join(format!("shard-{k}.json"));
        std::fs::write(&file, out).unwrap();
        files.push(file.display().to_string());
    }
    let mut argv = vec!["sim", "merge", "--format", "json"];
    argv.extend(files.iter().map(String::as_str));
    let (code, merged, err) = tempo(&argv);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_lists_the_problems_of_each_ruleset() {
    // The cheat-sheet scenario names pools and actions Frontiers does not have, and the other way.
    let (code, _, err) =
        tempo(&["compare", "rulesets/frontiers.rules", "rulesets/cheatsheet.rules", "examples/frontiers-duel.ron"]);
    assert_eq!(code, 1);
    assert!(err.contains("under B (`rulesets/cheatsheet.rules`)"), "{err}");
    assert!(!err.contains("under A"), "A fits: {err}");
    let (code, stdout, err) = tempo(&[
        "compare",
        "rulesets/frontiers.rules",
        "rulesets/frontiers-two-ap.rules",
        "examples/frontiers-duel.ron",
        "--runs",
        "300",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("frontiers.rules against frontiers-two-ap.rules, frontiers-duel.ron: 300 encounters"),
        "{stdout}"
    );
    assert!(stdout.contains("pool/Brute/ap/lost"), "{stdout}");
}

/// `compare RULES SCENARIO --control-b`: one ruleset, one scenario, two sets of players, paired
/// on the same seeds; each side labelled by who plays, B's summary naming its extra control.
/// Passive heroes never win the Frontiers duel and Greedy ones always do (docs/simulation.md).
#[test]
fn compare_plays_two_sets_of_players_on_the_same_seeds() {
    let base = ["compare", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--runs", "60", "--quiet"];
    let players = ["--control", "heroes=Passive", "--control-b", "heroes=Greedy"];
    let (code, text, err) = tempo(&[&base[..], &players[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("heroes=Greedy - heroes=Passive"), "{text}");
    let row = text.lines().find(|l| l.trim_start().starts_with("outcome/heroes left standing")).expect(&text);
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert!(!cells[5].starts_with('-') && row.ends_with('*'), "a marked positive difference: {row}");
    let (code, json, err) = tempo(&[&base[..], &players[..], &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["labels"], serde_json::json!(["heroes=Passive", "heroes=Greedy"]));
    assert_eq!(doc["a"]["controls"], serde_json::json!(["heroes=Passive"]));
    assert_eq!(doc["b"]["controls"], serde_json::json!(["heroes=Passive", "heroes=Greedy"]));
    // Two paths without --control-b compare nothing: said, not guessed.
    let (code, _, err) = tempo(&base);
    assert_eq!(code, 2);
    assert!(err.contains("--control-b"), "{err}");
}

/// `compare --scenarios`: one ruleset, two scenarios; B (a Brute with 30 HP) lowers the heroes'
/// wins, and every report shows it as a negative difference B − A, each side by its path (the
/// two files have the same name).
#[test]
fn compare_reports_what_b_changes_as_b_minus_a() {
    let dir = std::env::temp_dir().join(format!("tempo-compare-b-a-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tough = edited_duel(&dir, r#""hp_max": 14"#, r#""hp_max": 30"#);
    let page = dir.join("compare.html");
    let base = "examples/frontiers-duel.ron";
    let args = ["compare", "--scenarios", "rulesets/frontiers.rules", base, &tough, "--runs", "100", "--quiet"];
    let args = [&args[..], &["--control", "heroes=Greedy"]].concat();
    let (code, text, err) = tempo(&[&args[..], &["--html", page.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(text.starts_with(&format!("{base} against {tough}, frontiers.rules: 100 encounters")), "{text}");
    assert!(text.contains(&format!("{tough} - {base}")), "{text}");
    let row = text.lines().find(|l| l.trim_start().starts_with("outcome/heroes left standing")).expect(&text);
    // metric (three words), A, B, then the difference.
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert!(cells[5].starts_with('-') && row.ends_with('*'), "a marked negative difference: {row}");
    let (code, json, err) = tempo(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["scenario"], "frontiers-duel.ron");
    assert_eq!(doc["scenario_b"], "frontiers-duel.ron");
    assert_eq!(doc["labels"], serde_json::json!([base, tough]));
    assert_eq!(doc["b"]["scenario"], "frontiers-duel.ron");
    let d = doc["differences"].as_array().unwrap();
    let heroes = d.iter().find(|d| d["metric"] == "outcome/heroes left standing").unwrap();
    assert!(heroes["difference"]["value"].as_f64().unwrap() < 0.0, "{heroes}");
    assert!(heroes["difference"]["high"].as_f64().unwrap() < 0.0, "{heroes}");
    assert!(heroes["b"].as_f64().unwrap() < heroes["a"].as_f64().unwrap(), "{heroes}");
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html.find("<td>outcome/heroes left standing</td>").expect("the differences table");
    let row = &html[at..at + html[at..].find("</tr>").unwrap()];
    assert!(row.contains("<td>-0."), "{row}");
    assert!(html.contains(&format!("Differences {tough} − {base}")), "the chart and table say which way");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_refuses_bad_input_with_a_message() {
    let (code, _, err) = tempo(&[&SIM[..], &["--shard", "5/4"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("K goes from 1 to N"), "{err}");
    let (code, _, err) = tempo(&["sim", "rulesets/frontiers.rules", "examples/cheatsheet-skirmish.ron", "--runs", "5"]);
    assert_eq!(code, 1);
    assert!(err.contains("tempo::scenario"), "{err}");
    let (code, _, _) = tempo(&["sim", "rulesets/frontiers.rules", "tests/no-such-scenario.ron"]);
    assert_eq!(code, 2);
    let (code, _, err) = tempo(&["sim", "merge", "Cargo.toml"]);
    assert_eq!(code, 1);
    assert!(err.contains("is not a tempo shard"), "{err}");
}

#[test]
fn sim_and_compare_write_the_html_page_they_are_asked_for() {
    let dir = std::env::temp_dir().join(format!("tempo-html-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("sim.html");
    let (code, stdout, err) =
        tempo(&[&SIM[..], &["--runs", "20", "--quiet", "--html", page.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("Outcome:"), "the summary still goes to stdout: {stdout}");
    let html = std::fs::read_to_string(&page).expect("the page is written");
    assert!(html.contains("id=\"chart-outcomes\"") && html.contains("<svg"), "{html}");
    let page = dir.join("compare.html");
    let (code, _, err) = tempo(&[
        "compare",
        "rulesets/frontiers.rules",
        "rulesets/frontiers-two-ap.rules",
        "examples/frontiers-duel.ron",
        "--runs",
        "20",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&page).expect("the page is written").contains("chart-differences"));
    // A page that cannot be written: exit 2, said.
    let (code, _, err) = tempo(&[&SIM[..], &["--runs", "5", "--html", "/no/such/dir/x.html"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("cannot write"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tempo run` names the rule behind each event: a pool change an action's effect made names
/// the action, a refusal by a limit names the limit; `--why` adds it to the text, and the text
/// without `--why` is unchanged.
#[test]
fn traces_name_the_rule_that_caused_each_event() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-why");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("why.rules");
    let scenario = dir.join("why.ron");
    std::fs::write(
        &rules,
        "ruleset why
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool hp { max 10 }
action jab {
  cost 1 ap
  target enemy
  resolve { target.hp -= 2 }
}
limit jab: 1 per turn
",
    )
    .unwrap();
    std::fs::write(
        &scenario,
        r#"(rounds: 1, participants: [
  (name: "A", side: "a", position: 0,
   controller: Script(steps: [Act(round: 1, action: "jab", target: "B"), Act(round: 1, action: "jab", target: "B"), EndTurn(round: 1)], fallback: Passive)),
  (name: "B", side: "b", position: 1, controller: Policy(Passive)),
])"#,
    )
    .unwrap();
    let (rules, scenario) = (rules.to_str().unwrap(), scenario.to_str().unwrap());
    let (code, jsonl, stderr) = tempo(&["run", rules, scenario, "--format", "jsonl"]);
    assert_eq!(code, 0, "{stderr}");
    let line = |event: &str| jsonl.lines().find(|l| l.contains(event)).unwrap_or_else(|| panic!("{event}:\n{jsonl}"));
    // The hit: the action, line 6. The payment: its cost, line 7. The refusal: the limit, line 11.
    assert!(line(r#""pool":"hp""#).ends_with(&format!(r#""cause":"jab by A","rule":"{rules}:6:1"}}"#)), "{jsonl}");
    assert!(line(r#""pool":"ap","from":3"#).ends_with(&format!(r#""rule":"{rules}:7:3"}}"#)), "{jsonl}");
    assert!(line(r#""event":"rejected""#).contains(r#""code":"limit""#), "{jsonl}");
    assert!(line(r#""event":"rejected""#).ends_with(&format!(r#""rule":"{rules}:11:1"}}"#)), "{jsonl}");
    // Events no rule causes carry no `rule` at all.
    assert!(!line(r#""event":"turn_start""#).contains("rule"), "{jsonl}");
    assert!(!line(r#""event":"round_start""#).contains("rule"), "{jsonl}");

    let (code, why, stderr) = tempo(&["run", rules, scenario, "--why"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(why.contains(&format!("  B: hp 10 -> 8 (jab by A) [#7 {rules}:6:1]\n")), "{why}");
    let refused = format!(
        "  A cannot use jab: it may be used only once per turn, and has been used once [limit] [#8 {rules}:11:1]\n"
    );
    assert!(why.contains(&refused), "{why}");
    assert!(why.contains("\nA's turn. [#4]\n"), "frame lines have no location: {why}");
    let (code, plain, _) = tempo(&["run", rules, scenario]);
    assert_eq!(code, 0);
    assert!(!plain.contains(rules), "no locations without --why: {plain}");
    assert!(plain.contains("  B: hp 10 -> 8 (jab by A)\n"), "{plain}");

    // `tempo why`: the hit goes back through the action to the turn; the refusal shows the
    // limit that refused it, in its source.
    let (code, hit, stderr) = tempo(&["why", rules, scenario, "--event", "7"]);
    assert_eq!(code, 0, "{stderr}");
    let steps: Vec<&str> = hit.lines().filter(|l| l.contains('☞')).collect();
    assert_eq!(
        steps,
        [
            "  ☞ #7, round 1: B: hp 10 -> 8 (jab by A)",
            "  ☞ because #5, round 1: A uses jab (action) at B, paying 1 ap. (the same rule)",
            "  ☞ because #4, round 1: A's turn.",
        ],
        "{hit}"
    );
    assert!(hit.contains(" 6 │ action jab {"), "{hit}");
    let (code, refusal, _) = tempo(&["why", rules, scenario, "--event", "8"]);
    assert_eq!(code, 0);
    assert!(refusal.contains(" 11 │ limit jab: 1 per turn") && refusal.contains("this rule refused it"), "{refusal}");
    assert!(refusal.contains("because #4, round 1: A's turn."), "{refusal}");
    // The payment is the action's consequence, written after it, by its cost clause.
    let (_, paid, _) = tempo(&["why", rules, scenario, "--event", "6"]);
    assert!(paid.contains(" 7 │   cost 1 ap") && paid.contains("because #5, round 1: A uses jab"), "{paid}");
    // No such event: exit 2, saying how many there are.
    let (code, _, stderr) = tempo(&["why", rules, scenario, "--event", "99"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("there is no event #99: this run wrote 15 events (#0 to #14)"), "{stderr}");
}

/// A compiled IR explains with excerpts while its sources are at hand, and with locations
/// alone when they are not.
#[test]
fn why_explains_from_a_compiled_ir_with_or_without_its_sources() {
    let dir = std::env::temp_dir().join(format!("tempo-why-ir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ir = dir.join("frontiers.ron");
    let (code, _, _) = tempo(&["compile", "rulesets/frontiers.rules", "-o", ir.to_str().unwrap()]);
    assert_eq!(code, 0);
    // The duel's riposte damage (#17): resolve ← declared ← trigger ← the attack ← the turn.
    let (code, out, stderr) = tempo(&["why", ir.to_str().unwrap(), "examples/frontiers-duel.ron", "--event", "17"]);
    assert_eq!(code, 0, "{stderr}");
    let steps: Vec<&str> = out.lines().filter(|l| l.contains('☞')).collect();
    assert_eq!(steps.len(), 6, "{out}");
    assert!(steps[0].contains("#17, round 1: Aria: hp 10 -> 5 (riposte by Brute)"), "{out}");
    assert!(steps[1].contains("because #16, round 1: Brute's riposte resolves."), "{out}");
    assert!(steps[2].contains("because #14, round 1: Brute uses riposte (reaction), paying 1 ap."), "{out}");
    assert!(steps[3].contains("because #13, round 1: Brute answers attack with riposte."), "{out}");
    // The riposte answers the attack itself, not its check.
    assert!(steps[4].contains("because #8, round 1: Aria uses attack (action) at Brute, paying 1 ap."), "{out}");
    assert!(steps[5].contains("because #4, round 1: Aria's turn."), "{out}");
    assert!(out.contains("reaction riposte \"Riposte\" {"), "the source is read: {out}");
    // Run from elsewhere, the IR's file names lead nowhere: locations alone.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tempo"))
        .args(["why", ir.to_str().unwrap()])
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/frontiers-duel.ron"))
        .args(["--event", "17"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("(rule at rulesets/frontiers.rules:255:1; its source is not at hand)"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 14: a scenario that does not fit its ruleset says each problem once, at the line and
/// column of the name in the scenario file.
#[test]
fn scenario_problems_are_given_once_each_at_their_place() {
    let dir = std::env::temp_dir().join(format!("tempo-scenario-place-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("bad.ron");
    let text = r#"(
  rounds: 1,
  participants: [
    (name: "A", side: "a", position: 0,
     controller: Script(steps: [Act(round: 1, action: "atack", target: "B"), Act(round: 1, action: "atack", target: "B")], fallback: Passive)),
    (name: "B", side: "b", position: 1, controller: Policy(Passive)),
  ],
)"#;
    std::fs::write(&scenario, text).unwrap();
    let (code, _, stderr) = tempo(&["run", "rulesets/frontiers.rules", scenario.to_str().unwrap()]);
    assert_eq!(code, 1);
    let at = text.find("\"atack\"").unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    // Shown as `check` shows a ruleset's diagnostics: the message, the place, the help.
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("`atack`")).collect();
    assert_eq!(lines.len(), 1, "once, not once per step: {stderr}");
    assert!(lines[0].contains("× A: the ruleset has no action `atack`"), "{stderr}");
    assert!(stderr.contains(&format!("[{}:{line}:{column}]", scenario.display())), "{stderr}");
    assert!(stderr.contains("help: did you mean `attack`?"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 14: `tempo run --quiet` leaves out routine pool bookkeeping (the pool steps of
/// timings), and keeps everything an action or a rule's effect changed.
#[test]
fn quiet_hides_routine_bookkeeping() {
    let (code, full, _) = tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron"]);
    assert_eq!(code, 0);
    let (code, quiet, _) = tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--quiet"]);
    assert_eq!(code, 0);
    assert!(full.contains("(refresh at turn_start)") && full.contains("(lose at turn_end)"), "{full}");
    assert!(!quiet.contains(" at turn_start)") && !quiet.contains(" at turn_end)"), "{quiet}");
    let kept = |t: &str| t.lines().filter(|l| !(l.contains(" at ") && l.ends_with(')') && l.contains(" -> "))).count();
    assert_eq!(kept(&full), quiet.lines().count(), "only bookkeeping lines go:\n{quiet}");
    assert!(quiet.contains("Brute: Hit Points 14 -> 10 (Attack by Aria)"), "{quiet}");
    assert!(quiet.contains("Aria: Wounds 0 -> 1 (Hit Points <= 0)"), "{quiet}");
}

/// Issue 14: `tempo run --decisions` gives an account of each policy decision: the options it
/// considered (Greedy's with scores) and the one it took; without the flag nothing is added.
#[test]
fn decisions_are_accounted_for_on_request() {
    let dir = std::env::temp_dir().join(format!("tempo-decisions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("greedy.ron");
    std::fs::write(
        &scenario,
        r#"(seed: 1, rounds: 1, participants: [
  (name: "Aria", side: "a", position: 0, controller: Policy(Greedy)),
  (name: "Brute", side: "b", stats: {"hp_max": 40}, position: 1, controller: Policy(Aggressive)),
])"#,
    )
    .unwrap();
    let s = scenario.to_str().unwrap();
    let (code, text, _) = tempo(&["run", "rulesets/frontiers.rules", s, "--decisions"]);
    assert_eq!(code, 0);
    let greedy = text.lines().find(|l| l.starts_with("  Aria (greedy) considers ")).expect(&text);
    assert!(greedy.contains("Attack at Brute (") && greedy.contains("; takes "), "{greedy}");
    // What it takes is the best score it listed. (The Brute has the HP to outlast her first turn.)
    let taken = greedy.split("; takes ").nth(1).unwrap().trim_end_matches('.');
    let scores: Vec<(String, f64)> = greedy["  Aria (greedy) considers ".len()..greedy.find("; takes").unwrap()]
        .split(", ")
        .filter_map(|o| {
            let (name, score) = o.rsplit_once(" (")?;
            Some((name.to_string(), score.trim_end_matches(')').parse().ok()?))
        })
        .collect();
    let best = scores.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(best.0, taken, "{greedy}");
    assert!(text.contains("  Brute (aggressive) considers Attack at Aria; takes Attack at Aria."), "{text}");
    let (_, jsonl, _) = tempo(&["run", "rulesets/frontiers.rules", s, "--decisions", "--format", "jsonl"]);
    let decision: serde_json::Value = jsonl
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["event"] == "decision")
        .unwrap();
    assert_eq!(decision["policy"], "greedy");
    assert!(decision["considered"][0]["score"].is_number(), "{decision}");
    let (_, plain, _) = tempo(&["run", "rulesets/frontiers.rules", s, "--format", "jsonl"]);
    assert!(!plain.contains("\"decision\""));
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 14: the play-by-play leaves out the routine pool steps of a participant held by a
/// condition that blocks actions (down, unconscious); JSON lines keep every event.
#[test]
fn downed_participants_bookkeeping_is_not_printed() {
    let dir = std::env::temp_dir().join(format!("tempo-downed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("down.rules");
    std::fs::write(
        &rules,
        "ruleset down
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 3; refresh at turn_start; lose at turn_end }
condition down { blocks actions, reactions }
action knock { cost 1 ap; target enemy; resolve { apply down to target } }
",
    )
    .unwrap();
    let scenario = dir.join("down.ron");
    std::fs::write(
        &scenario,
        r#"(seed: 1, rounds: 2, participants: [
  (name: "A", side: "a", pools: {"ap": 0}, controller: Script(steps: [EndTurn(round: 1), Act(round: 2, action: "knock", target: "C"), EndTurn(round: 2)], fallback: Passive)),
  (name: "B", side: "b", pools: {"ap": 0}, conditions: ["down"], controller: Policy(Passive)),
  (name: "C", side: "b", pools: {"ap": 0}, controller: Policy(Passive)),
  (name: "D", side: "b", pools: {"ap": 0}, controller: Policy(Passive)),
])"#,
    )
    .unwrap();
    let (r, s) = (rules.to_str().unwrap(), scenario.to_str().unwrap());
    let (code, text, _) = tempo(&["run", r, s]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("A: ap 0 -> 3 (refresh at turn_start)"), "{text}");
    // C is knocked down in round 2, before its turn: its steps stop there. B was down from the
    // start.
    assert_eq!(text.matches("C: ap 0 -> 3 (refresh at turn_start)").count(), 1, "round 1 only: {text}");
    assert_eq!(text.matches("D: ap 0 -> 3 (refresh at turn_start)").count(), 2, "{text}");
    assert!(!text.contains("B: ap 0 -> 3"), "B is down: {text}");
    let (_, jsonl, _) = tempo(&["run", r, s, "--format", "jsonl"]);
    assert!(jsonl.contains(r#""who":"B","pool":"ap""#), "{jsonl}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A folder of its own under the temporary folder, emptied.
fn scratch(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tempo-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tempo_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_tempo")).args(args).current_dir(dir).env("NO_COLOR", "1").output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

const JAB: &str = "ruleset jab
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool hp { max 10 }
action jab {
  cost 1 ap
  target enemy
  resolve { target.hp -= 2 }
}
";

/// A test file playing A's one jab at B under RULESET, expecting B at 8 hp.
fn jab_test(ruleset: &str) -> String {
    format!(
        r#"(ruleset: "{ruleset}", scenario: (rounds: 1, participants: [
    (name: "A", side: "a", position: 0,
     controller: Script(steps: [Act(round: 1, action: "jab", target: "B"), EndTurn(round: 1)], fallback: Passive)),
    (name: "B", side: "b", position: 1, controller: Policy(Passive)),
  ]), final: {{"B": (pools: {{"hp": 8}})}})"#
    )
}

/// `tempo test` reads a test's ruleset as `tempo run` reads it: a base outside the ruleset's
/// folder only with `--allow-outside`.
#[test]
fn test_reads_a_ruleset_under_the_limits_of_run() {
    let dir = scratch("test-outside");
    std::fs::create_dir_all(dir.join("v")).unwrap();
    std::fs::write(dir.join("base.rules"), JAB).unwrap();
    std::fs::write(dir.join("v/v.rules"), "ruleset v\nextends \"../base.rules\"\n").unwrap();
    std::fs::write(dir.join("a.test.ron"), jab_test("v/v.rules")).unwrap();
    let (code, out, err) = tempo_in(&dir, &["test", "."]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("tempo::outside-folder"), "{out}");
    let (code, out, err) = tempo_in(&dir, &["test", "--allow-outside", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.ends_with("1 passed, 0 failed\n"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A compiled IR is read for `tempo test` as for `tempo run`: a byte-order mark skipped, a folder
/// refused by name.
#[test]
fn test_reads_a_compiled_ruleset_as_run_does() {
    let dir = scratch("test-ir");
    std::fs::write(dir.join("jab.rules"), JAB).unwrap();
    let (code, ir, err) = tempo_in(&dir, &["compile", "jab.rules"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(dir.join("jab.ron"), format!("\u{feff}{ir}")).unwrap();
    std::fs::write(dir.join("a.test.ron"), jab_test("jab.ron")).unwrap();
    let (code, out, err) = tempo_in(&dir, &["test", "."]);
    assert_eq!(code, 0, "{out}{err}");
    std::fs::create_dir_all(dir.join("folder.ron")).unwrap();
    std::fs::write(dir.join("a.test.ron"), jab_test("folder.ron")).unwrap();
    let (code, out, _) = tempo_in(&dir, &["test", "."]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("cannot read `folder.ron`: it is a folder, not a file"), "{out}");
    let (code, _, err) = tempo_in(&dir, &["run", "folder.ron", "a.test.ron"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("error: cannot read `folder.ron`: it is a folder, not a file"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn control_replaces_a_controller_and_changes_the_outcome() {
    let duel = ["rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--runs", "200", "--format", "json"];
    let share = |extra: &[&str]| {
        let (code, stdout, stderr) = tempo(&[&["sim"][..], &duel[..], extra].concat());
        assert_eq!(code, 0, "{stderr}");
        let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let heroes = doc["outcomes"].as_array().unwrap().iter().find(|o| o["outcome"] == "heroes left standing");
        (heroes.unwrap()["count"].as_u64().unwrap(), doc.get("controls").cloned())
    };
    // The shipped duel: Aria's script and HoldBack lose to the Brute most of the time; Greedy
    // surges twice and wins every time. Without `--control` the JSON has no `controls`.
    let (won, controls) = share(&[]);
    assert!(won < 50, "{won}");
    assert_eq!(controls, None);
    let (won, controls) = share(&["--control", "Aria=Greedy"]);
    assert_eq!(won, 200);
    assert_eq!(controls, Some(serde_json::json!(["Aria=Greedy"])));
    // Later flags win: the same participant given back a losing policy.
    assert_eq!(share(&["--control", "Aria=Greedy", "--control", "Aria=Passive"]).0, 0);
    // `run` replays one of them: the script (Adjust, move, attack) is dropped with it.
    let (code, stdout, _) =
        tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--control", "Aria = Greedy"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("Aria uses Surge (action) at Brute"), "{stdout}");
    assert!(stdout.contains("Initiative: Aria (6)"), "no Adjust from the dropped script: {stdout}");
}

#[test]
fn control_names_a_side_and_headers_say_so() {
    let (code, stdout, stderr) = tempo(&[
        "compare",
        "rulesets/frontiers.rules",
        "rulesets/frontiers-two-ap.rules",
        "examples/frontiers-duel.ron",
        "--runs",
        "50",
        "--control",
        "monsters=Passive",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\ncontrol: monsters=Passive\n"), "{stdout}");
    // A Brute that never acts loses every encounter under both rulesets.
    let (code, stdout, _) = tempo(&[
        "sim",
        "rulesets/frontiers.rules",
        "examples/frontiers-duel.ron",
        "--runs",
        "50",
        "--control",
        "monsters=Passive",
        "--control",
        "heroes=Aggressive",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("\ncontrol: monsters=Passive, heroes=Aggressive\n"), "{stdout}");
    assert!(stdout.contains("heroes left standing   50"), "{stdout}");
}

#[test]
fn control_of_an_unknown_name_suggests_one() {
    for command in [&["run"][..], &["sim", "--runs", "5"][..]] {
        let args =
            [command, &["rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--control", "Brutee=Greedy"][..]]
                .concat();
        let (code, stdout, stderr) = tempo(&args);
        assert_eq!((code, stdout.as_str()), (1, ""), "as for other scenario problems");
        assert!(stderr.contains("no side or participant `Brutee`"), "{stderr}");
        assert!(stderr.contains("did you mean `Brute`?"), "{stderr}");
    }
}

#[test]
fn control_with_a_bad_policy_says_what_is_wrong() {
    let run = |control: &str| {
        tempo(&["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--control", control])
    };
    let (code, _, stderr) = run("Aria=Greedier");
    assert_eq!(code, 2, "a value that is no policy is a usage error");
    assert!(stderr.contains("`Greedier` is not a policy"), "{stderr}");
    let (code, _, stderr) = run("Aria");
    assert_eq!(code, 2);
    assert!(stderr.contains("is not WHO=POLICY"), "{stderr}");
    // A policy that reads but names a pool the ruleset lacks: a problem of the scenario, said of
    // the flag, not of the file's own controller.
    let (code, _, stderr) = run(r#"Aria=HoldBack(pool: "app", keep: 1)"#);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(r#"--control Aria=HoldBack(pool: "app", keep: 1): the ruleset has no pool `app`"#),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `ap`?"), "{stderr}");
}

/// Issue 29, item 4: `--skill` plays every combination of the listed policies on the same
/// seeds; each cell is exactly what `--control` gives for those policies, and the whole does
/// not depend on the number of threads.
#[test]
fn skill_cells_are_the_control_runs_of_the_same_seeds() {
    let duel = ["rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--runs", "40", "--format", "json"];
    let heroes = ["Aggressive", "Greedy", "Search(playouts: 10)"];
    let monsters = ["Aggressive", "HoldBack(pool: \"ap\", keep: 1)", "Random"];
    let sim = |extra: &[&str]| {
        let (code, stdout, stderr) = tempo(&[&["sim"][..], &duel[..], extra].concat());
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap()
    };
    let (h, m) = (format!("heroes={}", heroes.join(",")), format!("monsters={}", monsters.join(",")));
    let doc = sim(&["--skill", &h, "--skill", &m, "--jobs", "2"]);
    assert_eq!(sim(&["--skill", &h, "--skill", &m, "--jobs", "1"]), doc, "--jobs 1 and --jobs 2 differ");
    // The summary beside it is the scenario's own, as without `--skill`.
    let mut plain = doc.clone();
    plain.as_object_mut().unwrap().remove("skill");
    assert_eq!(plain, sim(&[]));
    let skill = &doc["skill"];
    assert_eq!(skill["sides"], serde_json::json!(["heroes", "monsters"]));
    assert_eq!(skill["policies"], serde_json::json!([heroes, monsters]));
    assert_eq!(skill["runs"], 40);
    let cells = skill["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 9);
    for (i, hero) in heroes.iter().enumerate() {
        for (j, monster) in monsters.iter().enumerate() {
            let cell = &cells[i * 3 + j];
            assert_eq!(cell["policies"], serde_json::json!([hero, monster]));
            let alone = sim(&["--control", &format!("heroes={hero}"), "--control", &format!("monsters={monster}")]);
            assert_eq!(cell["outcomes"], alone["outcomes"], "{hero} against {monster}");
            assert_eq!(cell["completed"], alone["completed"]);
        }
    }
    // Under the strongest (Search against Random): every row's counts add up to its verdict,
    // and the reactions offered are counted with the actions.
    let options = skill["options"].as_array().unwrap();
    assert!(!options.is_empty());
    for o in options {
        let (affordable, chosen) = (o["affordable"].as_u64().unwrap(), o["chosen"].as_u64().unwrap());
        assert!(chosen <= affordable && affordable > 0, "{o}");
        let verdict = if chosen == 0 {
            "dead"
        } else if chosen == affordable {
            "dominant"
        } else {
            "mixed"
        };
        assert_eq!(o["verdict"], verdict, "{o}");
    }
    let row = |side: &str, action: &str| options.iter().find(|o| o["side"] == side && o["action"] == action);
    assert!(row("heroes", "surge").is_some(), "{options:?}");
    // A reaction is offered only to one attacked: where the heroes attacked, the monsters'
    // riposte is counted with the actions. (Search now downs the Brute with two Surges, so this
    // cell may see no attack at all.)
    if row("heroes", "attack").is_some_and(|o| o["chosen"] != 0) {
        assert!(
            row("monsters", "riposte").is_some_and(|o| o["kind"] == "reaction"),
            "reactions are counted: {options:?}"
        );
    }
    // Text and HTML show the matrix.
    let (code, text, _) = tempo(&["sim", duel[0], duel[1], "--runs", "20", "--skill", "Aggressive,Greedy"]);
    assert_eq!(code, 0);
    assert!(text.contains("Skill sensitivity: heroes (rows) against monsters (columns), 20 encounters"), "{text}");
    let corner = text.lines().find(|l| l.starts_with("  heroes \\ monsters ")).expect(&text);
    assert_eq!(corner.split_whitespace().skip(3).collect::<Vec<_>>(), ["Aggressive", "Greedy"], "{text}");
    assert!(
        text.contains("Options under the strongest policies asked for (heroes: Greedy, monsters: Greedy)"),
        "{text}"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-skill");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("skill.html");
    let (code, _, _) = tempo(&[
        "sim",
        duel[0],
        duel[1],
        "--runs",
        "20",
        "--skill",
        "Aggressive,Greedy",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2 id=\"skill\">Skill sensitivity</h2>"), "{html}");
    assert!(html.contains("<th>heroes \\ monsters</th><th>Aggressive</th><th>Greedy</th>"), "{html}");
}

/// Dead and dominant options: an action that is affordable but never worth taking is dead, one
/// taken whenever it is affordable is dominant.
#[test]
fn skill_finds_dead_and_dominant_options() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-skill-options");
    std::fs::create_dir_all(&dir).unwrap();
    let (rules, scenario) = (dir.join("options.rules"), dir.join("options.ron"));
    std::fs::write(
        &rules,
        "ruleset options
initiative { value 0 }
round { phase act: turns }
pool ap { max 2; refresh at turn_start }
pool hp { max 30 }
action jab {
  cost 1 ap
  target enemy
  resolve { target.hp -= 2 }
}
action flail {
  cost 1 ap
  target enemy
  resolve { self.hp -= 1 }
}
",
    )
    .unwrap();
    std::fs::write(
        &scenario,
        r#"(rounds: 3, participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Passive)),
  (name: "B", side: "b", position: 1, controller: Policy(Passive)),
])"#,
    )
    .unwrap();
    let (rules, scenario) = (rules.to_str().unwrap(), scenario.to_str().unwrap());
    let (code, stdout, stderr) =
        tempo(&["sim", rules, scenario, "--runs", "10", "--skill", "Random,Greedy", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let options = doc["skill"]["options"].as_array().unwrap();
    let verdict = |side: &str, action: &str| {
        let o = options.iter().find(|o| o["side"] == side && o["action"] == action).expect(action);
        (o["verdict"].as_str().unwrap().to_string(), o["affordable"].as_u64().unwrap())
    };
    // Under Greedy, both sides: 3 rounds of 2 AP, each point able to pay for either, so both
    // are affordable at 2 decisions a turn and jab is taken at every one of them.
    for side in ["a", "b"] {
        assert_eq!(verdict(side, "jab"), ("dominant".to_string(), 60), "{options:?}");
        assert_eq!(verdict(side, "flail"), ("dead".to_string(), 60), "{options:?}");
    }
    // A side the scenario does not have is a problem of the scenario.
    let (code, _, stderr) = tempo(&["sim", rules, scenario, "--runs", "5", "--skill", "villains=Greedy"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no side `villains`"), "{stderr}");
}

/// `examples/frontiers-duel.ron` with `from` replaced by `to` (once), written into `dir`.
fn edited_duel(dir: &std::path::Path, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string("examples/frontiers-duel.ron").unwrap();
    assert_eq!(text.matches(from).count(), 1, "the duel says {from} once");
    let path = dir.join("frontiers-duel.ron");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path.to_string_lossy().into_owned()
}

/// Runs both command lines and asserts they succeed with the same output; returns it.
fn same_output(edited: &[&str], set: &[&str]) -> String {
    let (code_a, a, err_a) = tempo(edited);
    let (code_b, b, err_b) = tempo(set);
    assert_eq!((code_a, code_b), (0, 0), "{err_a}{err_b}");
    assert_eq!(a, b, "{edited:?} against {set:?}");
    a
}

#[test]
fn set_is_byte_identical_to_editing_the_file() {
    let dir = std::env::temp_dir().join(format!("tempo-cli-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let duel = "examples/frontiers-duel.ron";
    let run = ["run", "rulesets/frontiers.rules"];
    // A participant's stat: the Brute with 20 HP.
    let brute = edited_duel(&dir, r#""hp_max": 14"#, r#""hp_max": 20"#);
    let edited = same_output(
        &[&run[..], &[brute.as_str(), "--format", "jsonl"]].concat(),
        &[&run[..], &[duel, "--format", "jsonl", "--set", "Brute.hp_max=20"]].concat(),
    );
    let plain = tempo(&[&run[..], &[duel, "--format", "jsonl"]].concat()).1;
    assert_ne!(edited, plain, "20 HP must change the duel for the comparison to mean anything");
    // A side's stat: every monster (the Brute) deals 3.
    let side = edited_duel(&dir, r#""damage": 5"#, r#""damage": 3"#);
    same_output(
        &[&run[..], &[side.as_str(), "--format", "jsonl"]].concat(),
        &[&run[..], &[duel, "--format", "jsonl", "--set", "monsters.damage=3"]].concat(),
    );
    // A stat's default in the ruleset: 12 HP for whoever the scenario gives none (Aria),
    // compared on `sim`'s JSON, which names the ruleset by its file name only.
    let rules = std::fs::read_to_string("rulesets/frontiers.rules").unwrap();
    assert_eq!(rules.matches("stat hp_max = 10\n").count(), 1);
    let edited_rules = dir.join("frontiers.rules");
    std::fs::write(&edited_rules, rules.replacen("stat hp_max = 10\n", "stat hp_max = 12\n", 1)).unwrap();
    let edited_rules = edited_rules.to_string_lossy().into_owned();
    // The summary names what was set (`sets`); the rest is the same.
    let sim = ["sim", "--runs", "200", "--format", "json", "--quiet"];
    let (code, edited, err) = tempo(&[&sim[..], &[edited_rules.as_str(), duel]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, set, err) = tempo(&[&sim[..], &["rulesets/frontiers.rules", duel, "--set", "hp_max=12"]].concat());
    assert_eq!(code, 0, "{err}");
    let mut set: serde_json::Value = serde_json::from_str(&set).unwrap();
    let sets = set.as_object_mut().unwrap().remove("sets");
    assert_eq!(sets, Some(serde_json::json!(["hp_max=12"])));
    assert_eq!(set, serde_json::from_str::<serde_json::Value>(&edited).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn set_of_an_unknown_name_suggests_one() {
    let duel = ["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--set"];
    let (code, _, err) = tempo(&[&duel[..], &["Brut.hp_max=20"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("did you mean `Brute`?"), "{err}");
    let (code, _, err) = tempo(&[&duel[..], &["hpmax=20"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("the ruleset has no stat `hpmax`") && err.contains("did you mean `hp_max`?"), "{err}");
    let (code, _, err) = tempo(&[&duel[..], &["Brute.hp_max=lots"]].concat());
    assert_eq!(code, 2, "a value that is no number is a usage error: {err}");
}

#[test]
fn why_takes_the_sets_and_controls_the_run_was_made_with() {
    let duel = ["rulesets/frontiers.rules", "examples/frontiers-duel.ron"];
    let given = ["--set", "Brute.hp_max=40", "--control", "Aria=Greedy"];
    let (code, trace, err) = tempo(&[&["run"][..], &duel[..], &given[..], &["--format", "jsonl"]].concat());
    assert_eq!(code, 0, "{err}");
    let plain = tempo(&[&["run"][..], &duel[..], &["--format", "jsonl"]].concat()).1;
    // The last event of the longer run: past the end of the plain one, so only the same
    // `--set` and `--control` find it.
    let (events, plain_events) = (trace.lines().count(), plain.lines().count());
    assert!(events > plain_events, "40 HP must make the duel longer ({events} against {plain_events} events)");
    let last = (events - 1).to_string();
    let (code, text, err) = tempo(&[&["why"][..], &duel[..], &given[..], &["--event", last.as_str()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(!text.is_empty());
    let (code, _, _) = tempo(&[&["why"][..], &duel[..], &["--event", last.as_str()]].concat());
    assert_ne!(code, 0, "without them the event is not in the run");
}

#[test]
fn seating_random_is_the_scenario_field_given_on_the_command_line() {
    let dir = std::env::temp_dir().join(format!("tempo-cli-seating-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let duel = "tests/seating/duel.ron";
    let text = std::fs::read_to_string(duel).unwrap();
    // The file without its `seating: Random`: seated as written.
    let written = dir.join("duel.ron");
    std::fs::write(&written, text.replace("  seating: Random,\n", "")).unwrap();
    let written = written.to_string_lossy().into_owned();
    let run = ["run", "rulesets/frontiers.rules", "--format", "jsonl", "--seed", "3"];
    let drawn =
        same_output(&[&run[..], &[duel]].concat(), &[&run[..], &[written.as_str(), "--seating", "random"]].concat());
    assert!(drawn.lines().nth(1).is_some_and(|l| l.contains(r#""event":"seating""#)), "{drawn}");
    // And back: `--seating as-written` is the file without the field, which draws nothing.
    let plain = same_output(
        &[&run[..], &[written.as_str()]].concat(),
        &[&run[..], &[duel, "--seating", "as-written"]].concat(),
    );
    assert!(!plain.contains(r#""event":"seating""#), "{plain}");
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue 45, item 5: `--set` and `--control` could not reach a participant whose name holds a
// dot ("is not a stat") or an `=`; such a name is written in double quotes.
#[test]
fn set_and_control_reach_names_holding_a_dot_or_an_equals_sign_when_quoted() {
    let dir = scratch("quoted-names");
    let rules = JAB.replace("pool hp { max 10 }", "stat hp_max = 10\npool hp { max hp_max }");
    std::fs::write(dir.join("r.rules"), rules).unwrap();
    let scenario = r#"(rounds: 1, participants: [
  (name: "Sgt. Rock", side: "a", position: 0, controller: Policy(Aggressive)),
  (name: "A=B", side: "b", position: 1, controller: Policy(Aggressive)),
])"#;
    std::fs::write(dir.join("s.ron"), scenario).unwrap();
    let run = |extra: &[&str]| tempo_in(&dir, &[&["run", "r.rules", "s.ron", "--names"][..], extra].concat());
    let (code, out, err) = run(&["--set", r#""Sgt. Rock".hp_max=3"#, "--control", r#""A=B"=Passive"#]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("A=B: hp 10 -> 8 (jab by Sgt. Rock)"), "{out}");
    assert!(!out.contains("A=B uses jab"), "A=B is Passive: {out}");
    assert!(out.contains("  Sgt. Rock: ap 0, hp 3\n"), "hp_max set to 3: {out}");
    // The unquoted forms say how to write them.
    let (code, _, err) = run(&["--set", "Sgt. Rock.hp_max=3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(r#"`"Sgt. Rock".hp_max`"#), "{err}");
    let (code, _, err) = run(&["--set", r#""Sgt. Rock.hp_max=3"#]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not closed"), "{err}");
    // A sweep reads the quoted form too, and labels its rows with it.
    let (code, out, err) =
        tempo_in(&dir, &["sweep", "r.rules", "s.ron", "--set", r#""Sgt. Rock".hp_max=3..4"#, "--runs", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""Sgt. Rock".hp_max=3..4"#), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}
