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

pub mod check;
pub mod file;
pub mod golden;
pub mod report;

pub use check::{Options, Outcome};
pub use file::{Found, TestFile};

#[cfg(feature = "fs")]
use crate::par::*;
#[cfg(feature = "fs")]
use std::collections::BTreeMap;
#[cfg(feature = "fs")]
use std::path::{Path, PathBuf};

/// Reads, parses and runs one test file (its ruleset loaded for it alone).
#[cfg(feature = "fs")]
pub fn run_file(name: &str, path: &Path, options: Options) -> Outcome {
    match read(path) {
        Ok(test) => {
            let ruleset = check::load_ruleset(&file::beside(path, &test.ruleset), options.limits);
            check::run_test(name, path, &test, &ruleset, options, &[])
        }
        Err(message) => failed(name, path, message),
    }
}

/// Runs every test found, in parallel, each ruleset loaded once; outcomes in the order found.
#[cfg(feature = "fs")]
pub fn run_all(found: &[Found], options: Options) -> Vec<Outcome> {
    let parsed: Vec<Result<TestFile, String>> = found.par_iter().map(|f| read(&f.path)).collect();
    let mut wanted: Vec<PathBuf> =
        found.iter().zip(&parsed).filter_map(|(f, t)| Some(file::beside(&f.path, &t.as_ref().ok()?.ruleset))).collect();
    wanted.sort();
    wanted.dedup();
    let loaded: BTreeMap<PathBuf, check::Loaded> =
        wanted.into_par_iter().map(|p| (p.clone(), check::load_ruleset(&p, options.limits))).collect();
    let inputs = inputs_of(found, &parsed);
    let shared = shared_goldens(found, &parsed);
    found
        .par_iter()
        .zip(parsed.par_iter())
        .zip(shared.par_iter())
        .map(|((f, test), shared)| match test {
            Ok(_) if !shared.is_empty() => failed(
                &f.name,
                &f.path,
                format!(
                    "its golden trace is also the golden trace of {}: two tests cannot share one golden file \
                     (which trace it held would depend on which test ran last)",
                    shared.join(", ")
                ),
            ),
            Ok(test) => match loaded.get(&file::beside(&f.path, &test.ruleset)) {
                Some(ruleset) => check::run_test(&f.name, &f.path, test, ruleset, options, &inputs),
                None => failed(&f.name, &f.path, "its ruleset was not loaded".into()),
            },
            Err(message) => failed(&f.name, &f.path, message.clone()),
        })
        .collect()
}

/// Every file the tests read: their test files, rulesets and scenario files (what `--bless`
/// must never write over).
#[cfg(feature = "fs")]
fn inputs_of(found: &[Found], parsed: &[Result<TestFile, String>]) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = found.iter().map(|f| f.path.clone()).collect();
    for (f, test) in found.iter().zip(parsed) {
        if let Ok(test) = test {
            inputs.push(file::beside(&f.path, &test.ruleset));
            inputs.extend(test.scenario_file.as_deref().map(|s| file::beside(&f.path, s)));
        }
    }
    inputs.sort();
    inputs.dedup();
    inputs
}

/// For each test, the other tests (by name) whose golden trace is the same file as its own.
#[cfg(feature = "fs")]
fn shared_goldens(found: &[Found], parsed: &[Result<TestFile, String>]) -> Vec<Vec<String>> {
    use crate::check::Loader;
    let loader = crate::check::FsLoader::default();
    let goldens: Vec<Option<PathBuf>> = found
        .iter()
        .zip(parsed)
        .map(|(f, t)| {
            let written = t.as_ref().ok()?.golden.as_deref()?;
            Some(loader.identity(&golden::locate(&f.path, written).ok()?))
        })
        .collect();
    goldens
        .iter()
        .enumerate()
        .map(|(i, mine)| {
            let Some(mine) = mine else { return Vec::new() };
            (0..found.len())
                .filter(|&j| j != i && goldens[j].as_ref() == Some(mine))
                .map(|j| format!("`{}`", found[j].name))
                .collect()
        })
        .collect()
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
