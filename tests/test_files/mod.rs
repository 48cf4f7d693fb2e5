//! Playing one golden-encounter test file as one trial: shared by the harnesses that run folders
//! of them (`tests/conformance.rs`, `tests/runner.rs`).

use libtest_mimic::Failed;
use std::path::Path;
use tempo::testing::{self, Options};

/// Runs the test file at `path` as `tempo test` does; with the environment variable `show` set,
/// prints each seed's trace (for reading a failure).
pub fn play(name: &str, path: &Path, show: &str) -> Result<(), Failed> {
    let show = std::env::var_os(show).is_some();
    let outcome = testing::run_file(name, path, Options { bless: false, keep_traces: show, ..Options::default() });
    for (seed, trace) in &outcome.traces {
        let at = seed.map(|s| format!(" (seed {s})")).unwrap_or_default();
        println!("--- {name}{at}\n{trace}");
    }
    if outcome.passed {
        Ok(())
    } else {
        Err(outcome.message.into())
    }
}
