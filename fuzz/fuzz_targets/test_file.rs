//! Arbitrary bytes (read as UTF-8, invalid sequences replaced) as a `*.test.ron` file, read by
//! the parser `tempo test` uses (`testing::file::parse`). A file that parses is run, as `tempo
//! test` runs it (`testing::check::run_test`), against Frontiers held in memory, whatever ruleset
//! it names. What it would read from the disk is taken out first (`scenario_file`, `golden`: a
//! test with neither a scenario nor an expectation fails, as it should), at most 3 seeds are
//! played and the scenario is cut to 3 rounds and 2 hours of downtime, so an input runs fast. A
//! test may fail; nothing may panic, and its outcome renders as text and JSON.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tempo::testing::{self, check, file};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(mut test) = file::parse(&text) else { return };
    test.scenario_file = None;
    test.golden = None;
    test.seeds.truncate(3);
    if let Some(s) = &mut test.scenario {
        s.rounds = s.rounds.min(tempo_fuzz::ROUNDS);
        if let Some(after) = &mut s.after {
            after.downtime_hours = after.downtime_hours.min(2);
        }
    }
    static FRONTIERS: std::sync::OnceLock<check::Loaded> = std::sync::OnceLock::new();
    let ruleset = FRONTIERS.get_or_init(|| Ok(tempo_fuzz::frontiers().clone()));
    let options = testing::Options { bless: false, keep_traces: true, limits: Default::default() };
    let outcome = check::run_test("fuzzed", Path::new("fuzzed.test.ron"), &test, ruleset, options, Path::new("."));
    let outcomes = [outcome];
    let _ = testing::report::to_text(&outcomes);
    let _ = testing::report::summary(&outcomes);
    let json = testing::report::to_json(&outcomes);
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "the outcome's JSON is not JSON");
});
