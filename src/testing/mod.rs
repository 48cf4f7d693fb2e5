//! Golden encounters (`tempo test`, docs/testing.md): test files that play a scenario under a
//! ruleset for some seeds and say what must happen: text fragments in order, events matched by
//! their fields (in order, anywhere, never), the final state, an error code, a golden trace.
//!
//! - `file`: the format, parsing, finding `*.test.ron` files under folders.
//! - `check`: one test run and every expectation held against its trace.
//! - `golden`: golden traces compared with a diff, or written (`--bless`).
//! - `report`: the outcomes as text (like `cargo test`) or JSON.
//!
//! The project's conformance cases are test files and run through `run_file` (tests/conformance.rs).

#[cfg(feature = "fs")]
mod bless;
pub mod check;
pub mod file;
pub mod golden;
pub mod report;
mod within;

pub use check::{Options, Outcome};
pub use file::{Found, TestFile};

#[cfg(feature = "fs")]
use crate::par::*;
#[cfg(feature = "fs")]
use std::collections::BTreeMap;
#[cfg(feature = "fs")]
use std::path::{Path, PathBuf};

/// Reads, parses and runs one test file (its ruleset loaded for it alone), the files it names
/// kept inside its own folder or the current folder (`within`).
#[cfg(feature = "fs")]
pub fn run_file(name: &str, path: &Path, options: Options) -> Outcome {
    run_file_within(name, path, &file::folder_of(path), options)
}

/// As [`run_file`], the files the test names kept inside `root` (the folder given to `tempo
/// test`) or the current folder, unless `options.limits.allow_outside`.
#[cfg(feature = "fs")]
pub fn run_file_within(name: &str, path: &Path, root: &Path, options: Options) -> Outcome {
    let found = [Found { name: name.to_string(), path: path.to_path_buf(), root: root.to_path_buf() }];
    // `run_all` gives one outcome per test found.
    run_all(&found, options).pop().unwrap_or_else(|| failed(name, path, "the test was not run".into()))
}

/// Runs every test found, in parallel, each ruleset loaded once; outcomes in the order found.
/// Every file a test reads lies inside the folder that found it (`Found::root`) or the current
/// folder, links followed, unless `--allow-outside`: a ruleset or scenario file outside is refused before it is opened.
/// With `--bless`, the golden traces are written after every test has run, all or none
/// (`bless::write_all`).
#[cfg(feature = "fs")]
pub fn run_all(found: &[Found], options: Options) -> Vec<Outcome> {
    let outside = !options.limits.allow_outside;
    let parsed: Vec<Result<TestFile, String>> = found
        .par_iter()
        .map(|f| {
            if outside {
                within::check(&f.path, &f.root, "the test file")?;
            }
            read(&f.path)
        })
        .collect();
    // Each test's ruleset, or why it may not be read.
    let rulesets: Vec<Option<Result<PathBuf, String>>> = found
        .iter()
        .zip(&parsed)
        .map(|(f, t)| {
            let written = &t.as_ref().ok()?.ruleset;
            let at = file::beside(&f.path, written);
            Some(match outside {
                true => within::check(&at, &f.root, &format!("the ruleset `{written}`")).map(|()| at),
                false => Ok(at),
            })
        })
        .collect();
    let mut wanted: Vec<PathBuf> = rulesets.iter().filter_map(|r| r.clone()?.ok()).collect();
    wanted.sort();
    wanted.dedup();
    let loaded: BTreeMap<PathBuf, check::Loaded> =
        wanted.into_par_iter().map(|p| (p.clone(), check::load_ruleset(&p, options.limits))).collect();
    let ran: Vec<(Outcome, Option<golden::Pending>)> = found
        .par_iter()
        .zip(parsed.par_iter())
        .zip(rulesets.par_iter())
        .map(|((f, test), ruleset)| match (test, ruleset) {
            (Ok(test), Some(Ok(at))) => match loaded.get(at) {
                Some(ruleset) => check::plan(&f.name, &f.path, test, ruleset, options, &f.root),
                None => (failed(&f.name, &f.path, "its ruleset was not loaded".into()), None),
            },
            (Ok(_), Some(Err(message))) => (failed(&f.name, &f.path, message.clone()), None),
            (Ok(_), None) => (failed(&f.name, &f.path, "its ruleset was not loaded".into()), None),
            (Err(message), _) => (failed(&f.name, &f.path, message.clone()), None),
        })
        .collect();
    let mut outcomes = Vec::with_capacity(ran.len());
    let mut planned = Vec::new();
    for (i, (outcome, pending)) in ran.into_iter().enumerate() {
        outcomes.push(outcome);
        planned.extend(pending.map(|p| (i, p)));
    }
    if !planned.is_empty() {
        // A golden trace refused where it is named (empty, absolute, `..`, `.rules`/`.ron`, a
        // link leading out: its test failed saying why) refuses the run's: all or none.
        let refused_before = found.iter().zip(&parsed).any(|(f, t)| {
            t.as_ref().ok().and_then(|t| t.golden.as_deref()).is_some_and(|g| golden::refused(&f.path, g))
        });
        bless::write_all(&planned, &mut outcomes, &inputs_of(found, &parsed, &rulesets, &loaded), refused_before);
    }
    outcomes
}

/// Every file the tests read: their test files, rulesets (with every file of their `extends`
/// chains) and scenario files: what `--bless` must never write over.
#[cfg(feature = "fs")]
fn inputs_of(
    found: &[Found],
    parsed: &[Result<TestFile, String>],
    rulesets: &[Option<Result<PathBuf, String>>],
    loaded: &BTreeMap<PathBuf, check::Loaded>,
) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = found.iter().map(|f| f.path.clone()).collect();
    for ((f, test), ruleset) in found.iter().zip(parsed).zip(rulesets) {
        if let Ok(test) = test {
            inputs.extend(test.scenario_file.as_deref().map(|s| file::beside(&f.path, s)));
        }
        if let Some(Ok(at)) = ruleset {
            inputs.push(at.clone());
            inputs.extend(loaded.get(at).map(check::files_of).unwrap_or_default());
        }
    }
    inputs.sort();
    inputs.dedup();
    inputs
}

#[cfg(feature = "fs")]
fn read(path: &Path) -> Result<TestFile, String> {
    // As every input is read: a regular file, size-capped (a pipe or /dev/zero named `x.test.ron`
    // would hang or fill the memory).
    let text = crate::check::read_text(path, crate::check::MAX_INPUT_BYTES)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    file::parse(&text)
}

#[cfg(feature = "fs")]
fn failed(name: &str, path: &Path, message: String) -> Outcome {
    Outcome { name: name.to_string(), file: path.to_path_buf(), passed: false, message, traces: Vec::new() }
}
