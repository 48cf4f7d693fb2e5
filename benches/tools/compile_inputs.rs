//! Writes the inputs of the whole-process compile comparison (`docs/performance.md`, "Compile"):
//! the generated ruleset of `benches/support/generate.rs` with ACTIONS actions as `STEM.rules`,
//! and the IR it compiles to as compact JSON, `STEM.json`, for `read-ir-json` to read back.
//!
//! ```text
//! cargo run --release --features bench-tools --example compile-inputs -- 12500 /tmp/big3
//! ```
//!
//! About 240 bytes per action: 12,500 actions is about 3 MB, 37,500 about 9 MB, 125,000 about
//! 30 MB. Exits 1, with the diagnostics, if the ruleset does not compile cleanly. This is a
//! benchmark tool, not part of the `tempo` command line: tempo itself writes IR only as RON.

#[path = "../support/generate.rs"]
mod generate;

use std::process::ExitCode;
use tempo::check::compile_str;
use tempo::diagnostics::render::{to_text, TextStyle};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(actions), Some(stem), 2) = (args.first().and_then(|a| a.parse::<usize>().ok()), args.get(1), args.len())
    else {
        eprintln!("usage: compile-inputs ACTIONS STEM   (writes STEM.rules and STEM.json)");
        return ExitCode::from(2);
    };
    let text = generate::generate(actions);
    let compiled = compile_str(&format!("{stem}.rules"), &text);
    let Some(ruleset) = compiled.ruleset.as_ref().filter(|_| compiled.diagnostics.is_empty()) else {
        eprintln!(
            "the generated ruleset does not compile cleanly:\n{}",
            to_text(&compiled.diagnostics, &compiled.sources, TextStyle { color: false, width: 100 })
        );
        return ExitCode::from(1);
    };
    let json = match serde_json::to_string(ruleset) {
        Ok(json) => json,
        Err(e) => {
            eprintln!("cannot write the IR as JSON: {e}");
            return ExitCode::from(1);
        }
    };
    for (path, body) in [(format!("{stem}.rules"), &text), (format!("{stem}.json"), &json)] {
        if let Err(e) = std::fs::write(&path, body) {
            eprintln!("cannot write `{path}`: {e}");
            return ExitCode::from(2);
        }
    }
    eprintln!("{stem}.rules: {} bytes, {actions} actions; {stem}.json: {} bytes", text.len(), json.len());
    ExitCode::SUCCESS
}
