//! Every shipped ruleset compiles with no diagnostics at all, its IR is snapshotted, and the IR
//! round-trips through RON (and JSON) exactly.

use std::path::PathBuf;
use tempo::check::compile_path;
use tempo::diagnostics::render;
use tempo::ir::Ruleset;

fn shipped() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("rulesets")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("rules"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_five_systems_are_shipped() {
    for name in ["frontiers", "cheatsheet", "game-flow", "phased-combat", "active-phase"] {
        let path = PathBuf::from(format!("rulesets/{name}.rules"));
        assert!(path.exists(), "{} is missing", path.display());
    }
}

#[test]
fn every_shipped_ruleset_compiles_cleanly_and_round_trips() {
    let files = shipped();
    assert!(!files.is_empty());
    for path in files {
        let c = compile_path(&path);
        let shown = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 100 });
        assert!(c.diagnostics.is_empty(), "{} has diagnostics:\n{shown}", path.display());
        let ir = c.ruleset.expect("no IR without errors");
        let ron = ir.to_ron().unwrap();
        let back = Ruleset::from_ron(&ron).unwrap();
        assert_eq!(back, ir, "{} does not round-trip through RON", path.display());
        assert_eq!(back.to_ron().unwrap(), ron, "{} RON is not stable", path.display());
        let json = serde_json::to_string(&ir).unwrap();
        assert_eq!(serde_json::from_str::<Ruleset>(&json).unwrap(), ir);
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        insta::assert_snapshot!(format!("ir-{stem}"), ron);
    }
}

#[test]
fn other_format_versions_are_refused() {
    let c = compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let mut ir = c.ruleset.unwrap();
    ir.format_version += 1;
    let err = Ruleset::from_ron(&ir.to_ron().unwrap()).unwrap_err();
    assert!(err.contains("format version"), "{err}");
}
