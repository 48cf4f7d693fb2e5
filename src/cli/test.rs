//! `tempo test`: golden-encounter test files run, and their report (`tempo::testing`).

use super::{Failure, Format, LoadArgs, Outcome};
use clap::Args;
use std::path::PathBuf;
use tempo::testing;

/// Run golden-encounter tests: `*.test.ron` files that play a scenario under a ruleset and say
/// what must happen (see docs/testing.md).
///
/// Each PATH is a test file or a folder searched for `*.test.ron` files (none given: the
/// current folder). Prints a line per test, each failure's reason (a readable diff for a
/// golden trace that changed), then `N passed, M failed`. Exit code 0: all passed; 1: a test
/// failed; 2: a PATH could not be read or no test was found.
#[derive(Args)]
pub struct TestArgs {
    /// Test files or folders.
    paths: Vec<PathBuf>,
    /// Write the golden traces (`golden: "FILE"`) from this run instead of comparing.
    #[arg(long)]
    bless: bool,
    /// `text` for people (like `cargo test`), `json` for scripts (one document on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    // Each test's ruleset is read as `tempo run` reads it, under the same limits.
    #[command(flatten)]
    load: LoadArgs,
}

pub fn test(args: TestArgs) -> Outcome {
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths };
    let found = testing::file::discover(&paths).map_err(super::cannot)?;
    let options = testing::Options { bless: args.bless, keep_traces: false, limits: args.load.limits() };
    let outcomes = testing::run_all(&found, options);
    let text = match args.format {
        Format::Text => testing::report::to_text(&outcomes),
        Format::Json => format!("{}\n", testing::report::to_json(&outcomes)),
    };
    super::write_stdout("the report", &text)?;
    if outcomes.iter().all(|o| o.passed) {
        Ok(())
    } else {
        Err(Failure::Problems)
    }
}
