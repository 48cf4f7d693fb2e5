//! The baseline of the whole-process compile comparison (`docs/performance.md`, "Compile"): reads
//! a file of compiled IR as JSON (from `compile-inputs`) into `tempo::ir::Ruleset` with
//! serde_json, the way `tempo compile` reads a `.rules` file and builds the same value.
//!
//! ```text
//! cargo run --release --example read-ir-json -- /tmp/big3.json
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: read-ir-json FILE.json");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("cannot read `{path}`: {e}");
            return ExitCode::from(2);
        }
    };
    match serde_json::from_str::<tempo::ir::Ruleset>(&text) {
        Ok(ruleset) => {
            println!("{} actions", ruleset.actions.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("`{path}` is not tempo IR as JSON: {e}");
            ExitCode::from(1)
        }
    }
}
