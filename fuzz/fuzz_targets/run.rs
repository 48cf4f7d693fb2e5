//! Arbitrary bytes as a ruleset (with the Frontiers base available); one that compiles is played
//! on two fixed scenarios (a bare pair and the Frontiers duel, 3 rounds at most, seed 7), the
//! trace written to `io::sink()`. A run may stop with an error; it may not panic, overflow the
//! stack or hang (the runner's step budget bounds a cascade).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let c = tempo_fuzz::compile(data);
    if let Some(r) = &c.ruleset {
        tempo_fuzz::run_scenarios(r);
    }
});
