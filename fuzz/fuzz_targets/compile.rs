//! Arbitrary bytes as `input.rules` (which may `extends "frontiers.rules"`) through the whole
//! compiler: no panic, every diagnostic inside its file and renderable as text and JSON, and a
//! ruleset that compiles writes an IR that reads back equal.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let c = tempo_fuzz::compile(data);
    tempo_fuzz::check_diagnostics(&c);
    assert_eq!(c.ruleset.is_some(), !c.has_errors(), "an IR comes with no errors, and only then");
    if let Some(r) = &c.ruleset {
        tempo_fuzz::check_ir_round_trip(r);
    }
});
