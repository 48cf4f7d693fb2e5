//! Outcomes for people (like `cargo test`: a line per test, the failures, a summary line) and
//! for scripts (one JSON document).

use super::Outcome;
use serde::Serialize;

/// The text report. Its last line is `N passed, M failed`.
pub fn to_text(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    let plural = if outcomes.len() == 1 { "" } else { "s" };
    out.push_str(&format!("running {} test{plural}\n", outcomes.len()));
    for o in outcomes {
        let verdict = if o.passed { "ok" } else { "FAILED" };
        out.push_str(&format!("test {} ... {verdict}\n", o.name));
        if o.passed && !o.message.is_empty() {
            out.push_str(&format!("  {}\n", o.message));
        }
    }
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.passed).collect();
    if !failed.is_empty() {
        out.push_str("\nfailures:\n");
        for o in &failed {
            out.push_str(&format!("\n---- {} ({}) ----\n{}\n", o.name, o.file.display(), o.message.trim_end()));
        }
        out.push_str("\nfailed:\n");
        for o in &failed {
            out.push_str(&format!("    {}\n", o.name));
        }
    }
    out.push_str(&format!("\n{}\n", summary(outcomes)));
    out
}

/// `N passed, M failed`.
pub fn summary(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    format!("{} passed, {failed} failed", outcomes.len() - failed)
}

#[derive(Serialize)]
struct JsonTest<'a> {
    name: &'a str,
    file: String,
    passed: bool,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    tests: Vec<JsonTest<'a>>,
    passed: usize,
    failed: usize,
}

/// The JSON report: `{"tests": [{"name", "file", "passed", "message"}], "passed": N, "failed": M}`.
pub fn to_json(outcomes: &[Outcome]) -> String {
    let tests = outcomes
        .iter()
        .map(|o| JsonTest {
            name: &o.name,
            file: o.file.to_string_lossy().into_owned(),
            passed: o.passed,
            message: &o.message,
        })
        .collect();
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    let report = JsonReport { tests, passed: outcomes.len() - failed, failed };
    serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
