//! The hand-written Frontiers duel under `benches/` is what `tempo run` is measured against
//! (`cargo bench -p tempo-benches --bench baseline`). The comparison is honest only while both programs write
//! the same bytes: the same dice, the same decisions, the same events.

#[path = "../benches/baseline/duel.rs"]
mod duel;

use std::io::BufWriter;
use tempo::run::sink::{Format, Writer};

fn tempo_jsonl(seed: u64, rounds: u32) -> Vec<u8> {
    let compiled = tempo::check::compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let ruleset = compiled.ruleset.expect("rulesets/frontiers.rules compiles");
    let scenario = tempo::run::scenario::parse(&duel::scenario(seed, rounds)).expect("the scenario reads");
    let sink = Writer::new(BufWriter::new(Vec::new()), Format::Jsonl, &ruleset.files);
    let sink = tempo::run::run_into(&ruleset, &scenario, None, sink).expect("the duel runs");
    sink.finish().expect("writing to memory").into_inner().expect("flushing to memory")
}

fn hand_written(seed: u64, rounds: u32) -> Vec<u8> {
    let mut out = Vec::new();
    duel::play(seed, rounds, &mut out).expect("writing to memory");
    out
}

fn assert_same(seed: u64, rounds: u32) {
    let (ours, theirs) = (tempo_jsonl(seed, rounds), hand_written(seed, rounds));
    if ours != theirs {
        let (a, b) = (String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs));
        let line = a.lines().zip(b.lines()).position(|(x, y)| x != y);
        let shown = |t: &str| line.and_then(|l| t.lines().nth(l)).unwrap_or("(no such line)").to_string();
        panic!(
            "seed {seed}, {rounds} rounds: tempo wrote {} lines, the baseline {}; first difference at line {line:?}:\n tempo:    {}\n baseline: {}",
            a.lines().count(),
            b.lines().count(),
            shown(&a),
            shown(&b)
        );
    }
}

#[test]
fn the_baseline_writes_what_tempo_writes_for_the_benchmarked_duel() {
    // The benchmark's own seed, over enough rounds for every shape of turn to occur many times.
    assert_same(7, 2_000);
}

#[test]
fn the_baseline_writes_what_tempo_writes_for_other_seeds_and_lengths() {
    for seed in [0, 1, 42, u64::MAX] {
        for rounds in [1, 3, 50] {
            assert_same(seed, rounds);
        }
    }
}

#[test]
fn the_scenario_is_the_documented_duel() {
    // `docs/performance.md` gives this scenario by hand; the baseline must play that one.
    let text = duel::scenario(7, 10_000);
    assert!(text.contains("rounds: 10000"), "{text}");
    assert!(text.contains(r#"stats: {"hp_max": 1000000, "damage": 1}"#), "{text}");
    assert!(text.contains(r#"controller: Policy(HoldBack(pool: "ap", keep: 1, spend_on_reactions: true))"#), "{text}");
}
