//! One input per diagnostic code under `tests/diagnostics/CODE.rules`, each snapshotted as the
//! terminal shows it (no colour, 80 columns) and as `check --format json` prints it.
//! `unreadable-file.rules` deliberately does not exist.

use std::path::Path;
use tempo::check::compile_path;
use tempo::diagnostics::{render, Code};

fn render_all(path: &Path) -> (tempo::check::Compilation, String, String) {
    let c = compile_path(path);
    let text = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 80 });
    let json = render::to_json(&c.diagnostics, &c.sources);
    (c, text, json)
}

#[test]
fn every_code_has_an_input_that_produces_it() {
    let mut failures = Vec::new();
    for &code in Code::ALL.iter().filter(|c| !c.is_runtime()) {
        let path = format!("tests/diagnostics/{}.rules", code.slug());
        let (c, text, json) = render_all(Path::new(&path));
        if !c.diagnostics.iter().any(|d| d.code == code) {
            failures.push(format!("{path} does not produce {}:\n{text}", code.name()));
            continue;
        }
        insta::assert_snapshot!(format!("{}-text", code.slug()), text);
        insta::assert_snapshot!(format!("{}-json", code.slug()), json);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_input_file_is_for_a_known_code() {
    for entry in std::fs::read_dir("tests/diagnostics").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("rules") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap();
        assert!(Code::parse(stem).is_some(), "{} is named after no diagnostic code", path.display());
    }
}

#[test]
fn all_semantic_errors_are_reported_in_one_run() {
    let text = "ruleset many
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turnstart }
action a { cost 1 apx }
action b { requires ap }
derive d = nothing + 1
";
    let c = tempo::check::compile_str("many.rules", text);
    let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::UnknownTiming, Code::UnknownPool, Code::TypeMismatch, Code::UnknownName]);
    assert!(c.ruleset.is_none(), "no IR when there are errors");
}

#[test]
fn did_you_mean_reaches_names_inherited_through_extends() {
    let loader = tempo::check::MemoryLoader::new()
        .with(
            "base.rules",
            "ruleset base\ninitiative { value 0 }\nround { phase act: turns }\npool fatigue { max 3 }\n",
        )
        .with("v.rules", "ruleset v extends \"base.rules\"\nat turn_start { fatige += 1 }\n");
    let c = tempo::check::compile_with(&loader, Path::new("v.rules"));
    let d = c.diagnostics.iter().find(|d| d.code == Code::UnknownPool).expect("unknown pool");
    assert_eq!(d.help.as_deref(), Some("did you mean `fatigue`?"));
}

#[test]
fn duplicate_points_at_both_definitions() {
    let (c, _, _) = render_all(Path::new("tests/diagnostics/duplicate-definition.rules"));
    let d = c.diagnostics.iter().find(|d| d.code == Code::Duplicate).unwrap();
    assert_eq!(d.secondary.len(), 1);
    assert!(d.secondary[0].span.start < d.primary.span.start);
}
