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
            check::run_test(name, path, &test, &ruleset, options)
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
    found
        .par_iter()
        .zip(parsed.par_iter())
        .map(|(f, test)| match test {
            Ok(test) => match loaded.get(&file::beside(&f.path, &test.ruleset)) {
                Some(ruleset) => check::run_test(&f.name, &f.path, test, ruleset, options),
                None => failed(&f.name, &f.path, "its ruleset was not loaded".into()),
            },
            Err(message) => failed(&f.name, &f.path, message.clone()),
        })
        .collect()
}

#[cfg(feature = "fs")]
fn read(path: &Path) -> Result<TestFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    file::parse(&text)
}

#[cfg(feature = "fs")]
fn failed(name: &str, path: &Path, message: String) -> Outcome {
    Outcome { name: name.to_string(), file: path.to_path_buf(), passed: false, message, traces: Vec::new() }
}
