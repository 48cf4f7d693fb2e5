//! The runner, mechanism by mechanism, on small purpose-written rulesets: one `tempo test` file
//! (docs/testing.md) per encounter under `tests/runner/`, its ruleset in `tests/runner/rules/`.
//! Each file is one named test (its path under `tests/runner/` without `.test.ron`), run by the
//! same code as `tempo test`, so `cargo test --test runner a-free-action` runs one and
//! `tempo test tests/runner` runs them all from the command line. What the format cannot say
//! (API calls, compile diagnostics, error messages, counts, properties over many seeds) stays in
//! tests/run.rs.
//!
//! A last test keeps the folder tidy: every file says what it shows (`rule`), and every ruleset
//! in `tests/runner/rules/` is used by a test.

mod test_files;

use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use tempo::testing;

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/runner")
}

fn check_case(name: &str, path: &Path) -> Result<(), Failed> {
    test_files::play(name, path, "RUNNER_TRACE")
}

/// Every test file, as (name, path), sorted; an unreadable folder is one failing trial.
fn cases() -> Result<Vec<(String, PathBuf)>, String> {
    let found = testing::file::discover(&[folder()])?;
    Ok(found.into_iter().map(|f| (f.name, f.path)).collect())
}

/// Each file says what it shows, and each ruleset of `rules/` is some file's.
fn check_folder(cases: &[(String, PathBuf)]) -> Result<(), Failed> {
    let mut problems = Vec::new();
    let mut used = BTreeSet::new();
    for (name, path) in cases {
        let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        match testing::file::parse(&text) {
            Ok(test) => {
                if test.rule.as_deref().is_none_or(str::is_empty) {
                    problems.push(format!("{name}: give the test a `rule` saying what it shows"));
                }
                used.insert(testing::file::beside(path, &test.ruleset));
            }
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    let rules = folder().join("rules");
    let entries = fs::read_dir(&rules).map_err(|e| format!("{}: {e}", rules.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if !used.contains(&path) {
            problems.push(format!("{} is used by no test", path.display()));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    match cases() {
        Ok(cases) => {
            trials.extend(cases.iter().cloned().map(|(name, path)| {
                let label = name.clone();
                Trial::test(label, move || check_case(&name, &path))
            }));
            trials.push(Trial::test("runner folder: every test says its rule, every ruleset is used", move || {
                check_folder(&cases)
            }));
        }
        Err(e) => trials.push(Trial::test("runner folder", move || Err(e.into()))),
    }
    libtest_mimic::run(&args, trials).exit();
}
