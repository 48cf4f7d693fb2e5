//! The baseline of the whole-process compile comparison (`docs/performance.md`, "Compile"): reads
//! a file of compiled IR as JSON (from `compile-inputs`) into `tempo::ir::Ruleset` with
//! serde_json, the way `tempo compile` reads a `.rules` file and builds the same value.
//!
//! ```text
//! cargo run --release --features bench-tools --example read-ir-json -- /tmp/big3.json
//! ```

use std::process::ExitCode;

#[path = "../support/input.rs"]
mod input;

fn main() -> ExitCode {
    let (path, text) = match input::first_file("read-ir-json FILE.json") {
        Ok(read) => read,
        Err(code) => return code,
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
