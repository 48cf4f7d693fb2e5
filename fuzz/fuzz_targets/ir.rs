//! Arbitrary bytes as a RON IR, as `tempo run x.ron` reads it (`Ruleset::from_ron`); one that
//! loads is played on the fixed scenarios. Reading may refuse; it and the run may not panic.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(r) = tempo::ir::Ruleset::from_ron(text) else { return };
    tempo_fuzz::run_scenarios(&r);
});
