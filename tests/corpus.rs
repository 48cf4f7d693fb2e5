//! The corpus of small economies (tests/corpus/README.md): the files in tests/corpus/cases/ are
//! exactly what tests/corpus/generate.rs writes (`TEMPO_BLESS_CORPUS=1 cargo test --test it
//! corpus::` writes them, and the README's table of cases), there are at least 40 cases and
//! every kind has several, and each case checks clean, is in `tempo fmt`'s layout, keeps to the
//! bounds that make it solvable exactly, and plays to its end.

mod generate;

use generate::{Case, Kind};
use std::path::{Path, PathBuf};
use tempo::check::compile_str;
use tempo::run::trace::Event;
use tempo::run::{run, scenario};

const CASES: &str = "tests/corpus/cases";
const README: &str = "tests/corpus/README.md";
const TABLE_START: &str = "<!-- cases: written by tests/corpus/generate.rs -->\n";
const TABLE_END: &str = "<!-- end of cases -->\n";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file the generator writes, by its path under the repository, with its text.
fn generated(cases: &[Case]) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for c in cases {
        out.push((root().join(CASES).join(format!("{}.rules", c.name)), c.rules.clone()));
        out.push((root().join(CASES).join(format!("{}.ron", c.name)), c.scenario.clone()));
    }
    out
}

/// The README with its table of cases replaced by `table`.
fn readme_with(readme: &str, table: &str) -> String {
    let start = readme.find(TABLE_START).expect("the README marks where the table starts") + TABLE_START.len();
    let end = readme.find(TABLE_END).expect("the README marks where the table ends");
    format!("{}{table}{}", &readme[..start], &readme[end..])
}

#[test]
fn the_cases_are_what_the_generator_writes() {
    let cases = generate::cases();
    let files = generated(&cases);
    let readme_path = root().join(README);
    let readme = std::fs::read_to_string(&readme_path).expect("the README reads");
    let want_readme = readme_with(&readme, &generate::table(&cases));
    if std::env::var_os("TEMPO_BLESS_CORPUS").is_some() {
        let dir = root().join(CASES);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the folder of cases is made");
        for (path, text) in &files {
            std::fs::write(path, text).expect("a case is written");
        }
        std::fs::write(&readme_path, &want_readme).expect("the README is written");
        return;
    }
    let bless = "run `TEMPO_BLESS_CORPUS=1 cargo test --test it corpus::` to write them";
    for (path, text) in &files {
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        assert!(on_disk == *text, "{} is not what tests/corpus/generate.rs writes: {bless}", path.display());
    }
    let mut on_disk: Vec<PathBuf> =
        std::fs::read_dir(root().join(CASES)).expect("the cases read").map(|e| e.expect("an entry").path()).collect();
    on_disk.sort();
    let mut written: Vec<PathBuf> = files.into_iter().map(|(p, _)| p).collect();
    written.sort();
    assert_eq!(on_disk, written, "tests/corpus/cases/ holds other files than the generator's: {bless}");
    assert!(readme == want_readme, "{README}'s table of cases is not the generator's: {bless}");
}

#[test]
fn there_are_forty_cases_or_more_and_several_of_every_kind() {
    let cases = generate::cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    for kind in Kind::ALL {
        let of_kind: Vec<&Case> = cases.iter().filter(|c| c.kind == kind).collect();
        assert!(of_kind.len() >= 4, "{kind:?} has {} cases", of_kind.len());
        for c in of_kind {
            assert!(c.name.starts_with(&format!("{}-", kind.prefix())), "{} is of kind {kind:?}", c.name);
        }
    }
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "two cases share a name");
}

/// Each case compiles with no diagnostic at all, says what it tests in its first line, keeps
/// to the bounds of a solvable economy (at most 6 rounds, A Greedy, no `Search`, no positions,
/// no hidden phase), and plays to the end of its encounter on several seeds.
#[test]
fn every_case_checks_clean_and_plays_to_its_end() {
    for c in generate::cases() {
        let file = format!("{}.rules", c.name);
        assert!(c.rules.starts_with(&format!("# {} (", c.name)), "{file} starts by saying what it tests");
        let words = |text: &str| {
            text.split(|ch: char| !ch.is_alphanumeric() && ch != '_')
                .any(|w| ["hidden", "space", "move", "position", "Search"].contains(&w))
        };
        assert!(
            !words(&c.rules) && !words(&c.scenario),
            "{} uses hidden phases, positions, movement or Search",
            c.name
        );
        let compiled = compile_str(&file, &c.rules);
        assert!(compiled.diagnostics.is_empty(), "{file}: {:?}", compiled.diagnostics);
        let ruleset = compiled.ruleset.expect("compiles");
        let s = scenario::parse(&c.scenario).unwrap_or_else(|e| panic!("{}.ron: {e}", c.name));
        assert!(s.rounds <= 6, "{}.ron plays {} rounds", c.name, s.rounds);
        assert!(
            c.scenario.contains("(name: \"A\", side: \"heroes\"")
                && c.scenario
                    .lines()
                    .any(|l| l.contains("(name: \"A\"") && l.ends_with("controller: Policy(Greedy)),")),
            "{}.ron: A is on the heroes' side under Greedy",
            c.name
        );
        for seed in 0..4 {
            let records = run(&ruleset, &s, Some(seed)).unwrap_or_else(|e| panic!("{} (seed {seed}): {e:?}", c.name));
            let last = records.last().map(|r| &r.event);
            assert!(
                matches!(last, Some(Event::EncounterEnd { .. })),
                "{} (seed {seed}) does not end its encounter",
                c.name
            );
        }
    }
}

#[test]
fn every_case_is_in_the_canonical_layout() {
    if std::env::var_os("TEMPO_BLESS_CORPUS").is_some() {
        return; // the files are being written by the test beside this one
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tempo"))
        .args(["fmt", "--check", CASES])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("tempo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!((out.status.code(), stdout.as_ref()), (Some(0), ""), "{}", String::from_utf8_lossy(&out.stderr));
}
