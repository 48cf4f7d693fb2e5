//! Every example scenario runs to the end under its ruleset, deterministically, and its JSONL trace
//! is snapshotted; every shipped ruleset has at least one example (docs/scenario.md, "Examples").
//!
//! An example is paired with its ruleset by name: `examples/<ruleset-stem>-<what>.ron` runs under
//! the longest `rulesets/<stem>.rules` whose stem, followed by `-`, begins the example's stem
//! (`frontiers-two-ap-duel` runs under `frontiers-two-ap`, not `frontiers`).

use std::path::{Path, PathBuf};
use tempo::check::compile_path;
use tempo::diagnostics::render;
use tempo::run::sink::{self, Format, Writer};
use tempo::run::{run, run_into, scenario, trace, Runner};

/// The files in `dir` ending in `.ext`, sorted by name; `tempo test` files (`.test.ron`) are
/// tests, not scenarios, and are left out (tests/testing.rs runs them).
fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .unwrap_or_else(|e| panic!("cannot read {dir}/: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
        .filter(|p| !p.to_string_lossy().ends_with(".test.ron"))
        .collect();
    out.sort();
    out
}

fn stem(path: &Path) -> String {
    path.file_stem().and_then(|s| s.to_str()).unwrap().to_string()
}

/// Ruleset stems, longest first, so the first match is the most specific.
fn ruleset_stems() -> Vec<String> {
    let mut stems: Vec<String> = files("rulesets", "rules").iter().map(|p| stem(p)).collect();
    stems.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    stems
}

/// The ruleset an example runs under: the longest ruleset stem that, followed by `-`, begins the
/// example's stem.
fn ruleset_of(example: &str, stems: &[String]) -> Option<String> {
    stems.iter().find(|s| example.starts_with(&format!("{s}-"))).cloned()
}

#[test]
fn examples_are_paired_by_the_longest_ruleset_stem() {
    let mut stems: Vec<String> = ["frontiers", "frontiers-two-ap", "game-flow"].iter().map(|s| s.to_string()).collect();
    stems.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    assert_eq!(ruleset_of("frontiers-duel", &stems).as_deref(), Some("frontiers"));
    assert_eq!(ruleset_of("frontiers-two-ap-duel", &stems).as_deref(), Some("frontiers-two-ap"));
    assert_eq!(ruleset_of("game-flow-goblin-ambush", &stems).as_deref(), Some("game-flow"));
    assert_eq!(ruleset_of("frontiers", &stems), None, "a stem alone names no example");
    assert_eq!(ruleset_of("frontiersx-duel", &stems), None);
}

#[test]
fn every_example_runs_deterministically_and_its_trace_is_snapshotted() {
    let stems = ruleset_stems();
    let examples = files("examples", "ron");
    assert!(!examples.is_empty(), "examples/ holds no .ron files");
    let mut failures = Vec::new();
    for path in &examples {
        let name = stem(path);
        let Some(rules) = ruleset_of(&name, &stems) else {
            failures.push(format!(
                "examples/{name}.ron: no ruleset; name it `<ruleset-stem>-<what>.ron` after a file in rulesets/"
            ));
            continue;
        };
        // Relative, as the header's command gives it: traces name rules by this path.
        let rules_path = PathBuf::from(format!("rulesets/{rules}.rules"));
        let text = std::fs::read_to_string(path).unwrap();

        // The header tells a person what to type.
        let command = format!("tempo run rulesets/{rules}.rules examples/{name}.ron");
        if !text.lines().take_while(|l| l.starts_with("//")).any(|l| l.contains(&command)) {
            failures.push(format!("examples/{name}.ron: the comment header should give the command `{command}`"));
        }

        let compilation = compile_path(&rules_path);
        let Some(ruleset) = compilation.ruleset else {
            let shown = render::to_text(
                &compilation.diagnostics,
                &compilation.sources,
                render::TextStyle { color: false, width: 100 },
            );
            failures.push(format!("rulesets/{rules}.rules does not compile:\n{shown}"));
            continue;
        };
        let scenario = match scenario::parse(&text) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("examples/{name}.ron: {e}"));
                continue;
            }
        };
        let records = match run(&ruleset, &scenario, None) {
            Ok(records) => records,
            Err(e) => {
                failures.push(format!("examples/{name}.ron under rulesets/{rules}.rules: {e}"));
                continue;
            }
        };
        assert!(
            matches!(records.last().map(|r| &r.event), Some(trace::Event::EncounterEnd { .. })),
            "examples/{name}.ron: the trace does not end with `encounter_end`"
        );
        let again = run(&ruleset, &scenario, None).expect("the second run fails where the first did not");
        assert!(again == records, "examples/{name}.ron: a second run with the same seed gives another trace");
        // A reused runner resets completely: after an encounter with other dice, the scenario's
        // own seed plays exactly as in a fresh run.
        let mut runner = Runner::new(&ruleset, &scenario, Vec::new()).unwrap();
        runner.play(Some(scenario.seed ^ 0x5eed)).expect("another seed fails");
        runner.sink_mut().clear();
        runner.play(None).expect("the replay fails");
        assert!(*runner.sink() == records, "examples/{name}.ron: a reused runner plays another trace");
        // The streaming writers write what the whole-trace renderers do, byte for byte.
        let files = &ruleset.files;
        for (format, why, whole) in [
            (Format::Jsonl, false, sink::to_jsonl(&records, files)),
            (Format::Text, false, trace::to_text(&records)),
            (Format::Text, true, trace::to_text_why(&records, files)),
        ] {
            let writer = Writer::new(Vec::new(), format, files).why(why);
            let streamed = run_into(&ruleset, &scenario, None, writer).unwrap();
            let bytes = streamed.finish().unwrap();
            assert!(bytes == whole.as_bytes(), "examples/{name}.ron: the {format:?} writer (why: {why}) differs");
        }
        if let Err(e) = causes_hold(&records) {
            failures.push(format!("examples/{name}.ron: {e}"));
        }
        insta::assert_snapshot!(format!("trace-{name}"), sink::to_jsonl(&records, files));
    }
    assert!(failures.is_empty(), "{} problem(s):\n\n{}", failures.len(), failures.join("\n\n"));
}

/// What `tempo why` follows: every event but the first names an earlier event as its cause,
/// and a pool change an action made (`attack by Aria`) leads back to that action's declaration,
/// through its checks, choices and `resolve`, never past a turn.
fn causes_hold(records: &[trace::Record]) -> Result<(), String> {
    use trace::{Cause, Event};
    for r in records {
        match r.because {
            None if r.seq != 0 => return Err(format!("#{} ({:?}) names no cause", r.seq, r.event)),
            Some(b) if b >= r.seq => return Err(format!("#{} names a later cause #{b}", r.seq)),
            _ => {}
        }
        let (Event::Pool { cause: Cause::Action { action, by }, .. }
        | Event::Pool { cause: Cause::Partner { action, with: by }, .. }) = &r.event
        else {
            continue;
        };
        let mut at = r.because;
        loop {
            let Some(step) = at.and_then(|s| records.get(s as usize)) else {
                return Err(format!("#{}: `{action} by {by}` leads to no declaration", r.seq));
            };
            match &step.event {
                Event::Action { actor, action: a, .. } if a == action && actor == by => break,
                Event::Check { .. } | Event::Choice { .. } | Event::Resolve { .. } | Event::Condition { .. } => {}
                Event::Pool { .. } | Event::Roll { .. } => {}
                other => return Err(format!("#{}: `{action} by {by}` leads to #{} {other:?}", r.seq, step.seq)),
            }
            at = step.because;
        }
    }
    Ok(())
}

#[test]
fn every_shipped_ruleset_has_an_example() {
    let stems = ruleset_stems();
    let examples: Vec<String> = files("examples", "ron").iter().map(|p| stem(p)).collect();
    let missing: Vec<&String> =
        stems.iter().filter(|s| !examples.iter().any(|e| ruleset_of(e, &stems).as_ref() == Some(*s))).collect();
    assert!(
        missing.is_empty(),
        "these rulesets have no example in examples/ (add `examples/<stem>-<what>.ron`): {missing:?}"
    );
}

/// The fenced blocks of a markdown text with their info strings.
fn fenced_blocks(markdown: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in markdown.lines() {
        match &mut open {
            None if line.starts_with("```") => open = Some((line[3..].trim().to_string(), Vec::new())),
            None => {}
            Some(_) if line.trim() == "```" => {
                let (info, lines) = open.take().unwrap();
                blocks.push((info, lines.join("\n") + "\n"));
            }
            Some((_, lines)) => lines.push(line),
        }
    }
    blocks
}

#[test]
fn the_scenario_guide_lists_every_example_and_quotes_one_exactly() {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scenario.md");
    let doc = std::fs::read_to_string(&doc_path).expect("docs/scenario.md is missing");
    let stems = ruleset_stems();
    let mut problems = Vec::new();
    for path in files("examples", "ron") {
        let name = stem(&path);
        let Some(rules) = ruleset_of(&name, &stems) else { continue };
        let row = format!("| `{name}.ron` | `{rules}.rules` |");
        if !doc.lines().any(|l| l.starts_with(&row)) {
            problems.push(format!("docs/scenario.md has no table row starting `{row}`"));
        }
    }
    // The complete example is a whole example file, quoted as it is.
    let quoted: Vec<String> = fenced_blocks(&doc)
        .into_iter()
        .filter(|(info, text)| info == "ron" && text.starts_with("//"))
        .map(|(_, text)| text)
        .collect();
    assert!(!quoted.is_empty(), "docs/scenario.md quotes no complete example (a ```ron block starting with `//`)");
    for text in quoted {
        let file = text
            .lines()
            .find_map(|l| l.split("examples/").nth(1))
            .map(|rest| rest.split_whitespace().next().unwrap_or("").to_string())
            .unwrap_or_default();
        match std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(&file)) {
            Ok(original) if original == text => {}
            Ok(_) => problems.push(format!("docs/scenario.md quotes examples/{file}, but not as it is now")),
            Err(_) => problems.push(format!("docs/scenario.md quotes `examples/{file}`, which does not exist")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `Search` plays every shipped example (phases, simultaneous declarations, reactions, chains,
/// choices, downtime): each participant's policy, and each script's fallback, made
/// `Search(playouts: 8)`, scripts kept. It runs to the end, and the same seed plays the same
/// trace again. A small budget: what is checked is that the playouts replay and run under every
/// ruleset, not how well they play.
#[test]
fn search_plays_every_example_to_the_end_the_same_way_twice() {
    let stems = ruleset_stems();
    let search = scenario::Policy::Search(scenario::SearchSpec { playouts: 8, ..Default::default() });
    let mut failures = Vec::new();
    for path in files("examples", "ron") {
        let name = stem(&path);
        let Some(rules) = ruleset_of(&name, &stems) else { continue };
        let Some(ruleset) = compile_path(&PathBuf::from(format!("rulesets/{rules}.rules"))).ruleset else { continue };
        let Ok(mut s) = scenario::parse(&std::fs::read_to_string(&path).unwrap()) else { continue };
        for p in &mut s.participants {
            match &mut p.controller {
                scenario::Controller::Policy(policy) => *policy = search.clone(),
                scenario::Controller::Script { fallback, .. } => *fallback = search.clone(),
            }
        }
        let first = match run(&ruleset, &s, None) {
            Ok(records) => records,
            Err(e) => {
                failures.push(format!("examples/{name}.ron under Search: {e}"));
                continue;
            }
        };
        if !matches!(first.last().map(|r| &r.event), Some(trace::Event::EncounterEnd { .. })) {
            failures.push(format!("examples/{name}.ron under Search: the trace does not end with `encounter_end`"));
        }
        match run(&ruleset, &s, None) {
            Ok(again) if again == first => {}
            Ok(_) => failures.push(format!("examples/{name}.ron under Search: the same seed played another trace")),
            Err(e) => failures.push(format!("examples/{name}.ron under Search, again: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every golden test kept beside the examples (`examples/*.test.ron`) passes, as
/// `tempo test examples` runs them.
#[test]
fn every_golden_test_beside_the_examples_passes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut tests: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.ron"))
        .collect();
    tests.sort();
    assert!(tests.len() >= 2, "the Frontiers duel and the dice-pool firefight at least");
    for path in tests {
        let name = stem(&path);
        let options = tempo::testing::Options { bless: false, ..Default::default() };
        let outcome = tempo::testing::run_file(&name, &path, options);
        assert!(outcome.passed, "{}: {}", path.display(), outcome.message);
    }
}
