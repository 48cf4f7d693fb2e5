//! The embedding API (`tempo::api`) gives what the command line gives: the same IR, trace,
//! summary, layout and sheet, from memory. The binary is the reference, run on the same files.

use std::path::Path;
use std::process::Command;
use tempo::api;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every shipped ruleset, held in memory under its path relative to the repository.
fn shipped() -> api::Sources {
    let mut sources = api::Sources::new();
    let mut paths: Vec<_> = std::fs::read_dir(root().join("rulesets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    paths.sort();
    for p in paths {
        let name = format!("rulesets/{}", p.file_name().unwrap().to_string_lossy());
        sources.insert(&name, &std::fs::read_to_string(&p).unwrap());
    }
    sources
}

fn tempo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(args).current_dir(root()).output().unwrap();
    assert!(out.status.success(), "tempo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn compiling_from_memory_gives_the_ir_tempo_compile_writes() {
    let sources = shipped();
    for name in [
        "rulesets/frontiers.rules",
        "rulesets/frontiers-two-ap.rules",
        "rulesets/game-flow.rules",
        "rulesets/cheatsheet.rules",
        "rulesets/active-phase-house-ability.rules",
    ] {
        if !root().join(name).exists() {
            continue;
        }
        let compiled = api::compile(&sources, name);
        assert!(!compiled.has_errors(), "{}", api::diagnostics_text(&compiled, 100));
        let ir = api::ir_to_ron(compiled.ruleset.as_ref().unwrap()).unwrap() + "\n";
        assert_eq!(ir, tempo(&["compile", name]), "{name}");
        let back = api::ir_from_ron(&ir).unwrap();
        assert_eq!(&back, compiled.ruleset.as_ref().unwrap());
    }
}

#[test]
fn diagnostics_are_those_of_tempo_check() {
    let broken = "ruleset broken\npool ap { max 3; refresh at turn_begin }\naction a { cost 1 mana }\n";
    let sources = api::Sources::new().with("broken.rules", broken);
    let compiled = api::compile(&sources, "broken.rules");
    assert!(compiled.has_errors());
    let dir = std::env::temp_dir().join(format!("tempo-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("broken.rules"), broken).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tempo"))
        .args(["check", "broken.rules", "--format", "json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours: serde_json::Value = serde_json::from_str(&api::diagnostics_json(&compiled)).unwrap();
    assert_eq!(ours["diagnostics"], cli["diagnostics"]);
    let text = api::diagnostics_text(&compiled, 100);
    assert!(text.contains("tempo::unknown-pool"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_gives_the_trace_tempo_run_prints() {
    let sources = shipped();
    let ruleset = api::compile(&sources, "rulesets/frontiers.rules").ruleset.unwrap();
    let scenario =
        api::scenario(&std::fs::read_to_string(root().join("examples/frontiers-duel.ron")).unwrap()).unwrap();
    let cases: [(api::TraceOptions, &[&str]); 3] = [
        (api::TraceOptions::default(), &[]),
        (api::TraceOptions { jsonl: true, ..Default::default() }, &["--format", "jsonl"]),
        (
            api::TraceOptions { why: true, quiet: true, names: true, decisions: true, ..Default::default() },
            &["--why", "--quiet", "--names", "--decisions"],
        ),
    ];
    for (options, flags) in cases {
        let trace = api::run(&ruleset, &scenario, Some(3), options).unwrap();
        assert!(trace.error.is_none(), "{:?}", trace.error);
        let mut args = vec!["run", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--seed", "3"];
        args.extend_from_slice(flags);
        assert_eq!(trace.text, tempo(&args), "{flags:?}");
    }
}

#[test]
fn a_scenario_that_does_not_fit_is_an_error_before_anything_is_played() {
    let ruleset = api::compile(&shipped(), "rulesets/frontiers.rules").ruleset.unwrap();
    let scenario = api::scenario(
        r#"(seed: 1, rounds: 1, participants: [(name: "A", side: "a", controller: Script(steps: [Act(round: 1, action: "nosuch")], fallback: Passive))])"#,
    )
    .unwrap();
    let err = api::run(&ruleset, &scenario, None, api::TraceOptions::default()).unwrap_err();
    assert_eq!(err.code().name(), "tempo::scenario");
}

#[test]
fn a_simulation_gives_the_summary_tempo_sim_prints() {
    let ruleset = api::compile(&shipped(), "rulesets/frontiers.rules").ruleset.unwrap();
    let scenario =
        api::scenario(&std::fs::read_to_string(root().join("examples/frontiers-duel.ron")).unwrap()).unwrap();
    // The command line names the scenario's file; a library caller names it so.
    let summary = api::simulate(&ruleset, &scenario, "frontiers.rules", 200, Some(9)).unwrap().measured(
        "frontiers-duel.ron",
        &[],
        &[],
    );
    let args =
        ["sim", "rulesets/frontiers.rules", "examples/frontiers-duel.ron", "--runs", "200", "--seed", "9", "--quiet"];
    assert_eq!(api::summary_text(&summary), tempo(&args));
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    assert_eq!(api::summary_json(&summary), tempo(&json_args));
    let page = api::summary_html(&summary).unwrap();
    assert!(page.contains("<svg"), "the page draws its charts");
}

#[test]
fn format_and_sheet_are_those_of_the_command_line() {
    let sources = shipped();
    let text = std::fs::read_to_string(root().join("rulesets/frontiers.rules")).unwrap();
    assert_eq!(api::format(&text).unwrap(), text, "shipped rulesets are in the canonical layout");
    let messy = "ruleset m\npool ap{max 3;refresh at turn_start}\n";
    assert_eq!(api::format(messy).unwrap(), "ruleset m\npool ap { max 3; refresh at turn_start }\n");
    assert!(api::format("ruleset m\npool {").is_err());
    let (compiled, sheet) = api::sheet(&sources, "rulesets/frontiers.rules");
    assert!(!compiled.has_errors());
    let sheet = sheet.unwrap();
    assert_eq!(api::sheet_markdown(&sheet), tempo(&["doc", "rulesets/frontiers.rules"]));
    assert_eq!(api::sheet_html(&sheet), tempo(&["doc", "rulesets/frontiers.rules", "--format", "html"]));
}

#[test]
fn a_simulation_played_in_parts_gives_the_summary_of_one_played_whole() {
    let ruleset = api::compile(&shipped(), "rulesets/frontiers.rules").ruleset.unwrap();
    let scenario =
        api::scenario(&std::fs::read_to_string(root().join("examples/frontiers-duel.ron")).unwrap()).unwrap();
    let whole = api::simulate(&ruleset, &scenario, "frontiers.rules", 250, Some(9)).unwrap();
    let mut parts = api::Simulation::new(ruleset, scenario, "frontiers.rules", 250, Some(9)).unwrap();
    let mut done = Vec::new();
    while !parts.finished() {
        done.push(parts.step(64).unwrap());
    }
    assert_eq!(done, [64, 128, 192, 250]);
    assert_eq!(api::summary_json(&parts.summary()), api::summary_json(&whole));
    assert_eq!(parts.step(64).unwrap(), 250, "a finished simulation plays no more");
}

#[test]
fn a_comparison_is_the_one_tempo_compare_prints() {
    let sources = shipped();
    let a = api::compile(&sources, "rulesets/frontiers.rules").ruleset.unwrap();
    let b = api::compile(&sources, "rulesets/frontiers-two-ap.rules").ruleset.unwrap();
    let scenario =
        api::scenario(&std::fs::read_to_string(root().join("examples/frontiers-duel.ron")).unwrap()).unwrap();
    let c = api::compare((&a, &b), &scenario, ("frontiers.rules", "frontiers-two-ap.rules"), 200, Some(3))
        .unwrap()
        .measured("frontiers-duel.ron", None, &[], &[]);
    let args = [
        "compare",
        "rulesets/frontiers.rules",
        "rulesets/frontiers-two-ap.rules",
        "examples/frontiers-duel.ron",
        "--runs",
        "200",
        "--seed",
        "3",
        "--quiet",
    ];
    assert_eq!(api::compare_text(&c), tempo(&args));
    assert!(api::compare_html(&c).unwrap().contains("<svg"));
}

#[test]
fn hover_shows_a_declaration_and_its_doc_as_the_language_server_does() {
    let sources = shipped();
    let text = std::fs::read_to_string(root().join("rulesets/frontiers.rules")).unwrap();
    let at = text.find("stat finesse ").unwrap() + "stat ".len();
    let shown = api::hover(&sources, "rulesets/frontiers.rules", at).unwrap();
    assert!(shown.starts_with("```tempo\nstat finesse = 10\n```"), "{shown}");
    assert!(shown.contains("Finesse score: breaks initiative ties"), "{shown}");
    let keyword = api::hover(&sources, "rulesets/frontiers.rules", text.find("  refresh at").unwrap() + 2).unwrap();
    assert!(keyword.contains("`refresh` (keyword)"), "{keyword}");
    assert_eq!(api::hover(&sources, "rulesets/frontiers.rules", 0), None, "a comment");
    assert_eq!(api::hover(&sources, "nowhere.rules", 0), None);
}
