//! `tempo doc`: the cheat sheet of every shipped ruleset (Markdown snapshots, one HTML), a
//! variant's changes first, and the exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn tempo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(args).env("NO_COLOR", "1").output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn shipped() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("rulesets")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    files.sort();
    files
}

fn sheet(path: &Path, format: &str) -> String {
    let (code, stdout, stderr) = tempo(&["doc", path.to_str().unwrap(), "--format", format]);
    assert_eq!(code, 0, "{}: {stderr}", path.display());
    stdout
}

#[test]
fn every_shipped_ruleset_has_a_cheat_sheet() {
    let files = shipped();
    assert!(files.len() > 5);
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(name, sheet(&path, "md"));
    }
}

#[test]
fn frontiers_fits_about_two_printed_pages() {
    let text = sheet(Path::new("rulesets/frontiers.rules"), "md");
    let lines = text.lines().count();
    assert!((100..=160).contains(&lines), "{lines} lines");
}

#[test]
fn the_html_page_is_self_contained_and_escaped() {
    let page = sheet(Path::new("rulesets/frontiers.rules"), "html");
    assert!(page.starts_with("<!DOCTYPE html>"));
    for external in ["<script", "<link", "src=", "http://", "https://"] {
        assert!(!page.contains(external), "{external}");
    }
    // The overspend's question is quoted text in the rules: escaped on the page.
    assert!(page.contains("&quot;Overspend: gain a Wound or a Fatigue?&quot;"));
    assert!(page.contains("@media print"));
    insta::assert_snapshot!("frontiers-html", page);
}

#[test]
fn a_variant_starts_with_its_changes() {
    let text = sheet(Path::new("rulesets/frontiers-four-ap.rules"), "md");
    let first_section = text.lines().find(|l| l.starts_with("## ")).unwrap();
    assert_eq!(first_section, "## Changes from the base (`frontiers.rules`)");
    let change = text.lines().find(|l| l.starts_with("- Changed pool")).unwrap();
    assert!(change.contains("`ap`") && change.contains("now max `4` (was max `3`)"), "{change}");

    let text = sheet(Path::new("rulesets/frontiers-action-movement.rules"), "md");
    assert!(text.contains("- Removed pool **Movement Points** (`mp`)"), "{text}");
    // A ruleset that extends nothing has no such section.
    assert!(!sheet(Path::new("rulesets/frontiers.rules"), "md").contains("Changes from the base"));
}

#[test]
fn a_ruleset_with_errors_gets_its_diagnostics_and_no_sheet() {
    let (code, stdout, stderr) = tempo(&["doc", "tests/diagnostics/unknown-pool.rules"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert!(stderr.contains("tempo::unknown-pool"), "{stderr}");
}

#[test]
fn an_unreadable_file_or_output_exits_2() {
    let (code, stdout, stderr) = tempo(&["doc", "tests/no-such-file.rules"]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    let (code, _, stderr) = tempo(&["doc", "rulesets/frontiers.rules", "-o", "/no/such/folder/sheet.md"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert_eq!(tempo(&["doc", "rulesets/frontiers.rules", "--format", "pdf"]).0, 2);
}

#[test]
fn output_goes_to_the_file_asked_for() {
    let dir = std::env::temp_dir().join(format!("tempo-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("sheet.html");
    for _ in 0..2 {
        // Written new, then replaced.
        let (code, stdout, stderr) =
            tempo(&["doc", "rulesets/frontiers.rules", "--format", "html", "-o", out.to_str().unwrap()]);
        assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), sheet(Path::new("rulesets/frontiers.rules"), "html"));
    let leftovers = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn named_effects_have_their_own_section() {
    let dir = std::env::temp_dir().join(format!("tempo-doc-effects-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("effects.rules");
    std::fs::write(
        &path,
        "ruleset effects\ninitiative { value 0 }\nround { phase act: turns }\npool hp { max 20 }\n\
         ## The roll every weapon makes.\neffect strike_roll { hp -= 1 }\naction slash { resolve { do strike_roll } }\n",
    )
    .unwrap();
    let md = sheet(&path, "md");
    let section = md.split("## Named effects").nth(1).expect("a Named effects section");
    assert!(
        section.contains("- **strike_roll**: what `do strike_roll` does: `hp -= 1`. The roll every weapon makes."),
        "{md}"
    );
    assert!(md.contains("`do strike_roll`"), "the action shows what it runs: {md}");
    let _ = std::fs::remove_dir_all(&dir);
}
