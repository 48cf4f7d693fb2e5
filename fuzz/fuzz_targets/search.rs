//! Arbitrary bytes (read as UTF-8, invalid sequences replaced) as a scenario, played under
//! Frontiers with every participant's controller replaced by `Search(playouts: 4, rounds:
//! Some(1))` (scripts too), at most 3 rounds and 2 hours of downtime, seed 7, the trace written
//! to `io::sink()` as JSON lines. The scenario may be refused and the run may stop with an error;
//! nothing may panic or hang.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tempo::run::scenario::{self, Controller, Policy, SearchSpec};
use tempo::run::sink::{Format, Writer};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(mut s) = scenario::parse(&text) else { return };
    s.rounds = s.rounds.min(tempo_fuzz::ROUNDS);
    if let Some(after) = &mut s.after {
        after.downtime_hours = after.downtime_hours.min(2);
    }
    let search = SearchSpec { playouts: 4, rounds: Some(1), ..SearchSpec::default() };
    for p in &mut s.participants {
        p.controller = Controller::Policy(Policy::Search(search.clone()));
    }
    let r = tempo_fuzz::frontiers();
    let writer = Writer::new(std::io::sink(), Format::Jsonl, &r.files);
    let Ok(mut runner) = tempo::run::Runner::new(r, &s, writer) else { return };
    if let Err(e) = runner.play(Some(tempo_fuzz::SEED)) {
        let _ = e.to_string();
        let _ = e.code();
    }
});
