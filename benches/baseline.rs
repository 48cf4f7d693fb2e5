//! `tempo run` against a hand-written program that plays the same Frontiers duel
//! (`benches/baseline/duel.rs`), both writing the same JSON lines. `tests/baseline.rs` checks
//! that the two outputs are byte-identical, so the ratio compares equal work.
//!
//! - `cargo bench -p tempo-benches --bench baseline`: both in one process, each writing its JSON lines through a
//!   `BufWriter` into `io::sink()`, alternately (criterion), at 10,000 rounds; the throughput is
//!   events. Each tempo iteration is one `Runner::play` of a runner made once, as `tempo sim`
//!   does; the ruleset is compiled and the scenario read in setup.
//! - `benches/baseline/compare.sh`: the same as whole processes (`tempo run ... --format jsonl`
//!   against this benchmark's binary with `--print`), as the speed issue measured it.
//! - `baseline --print ROUNDS SEED` writes the hand-written program's JSON lines to stdout;
//!   `baseline --scenario ROUNDS SEED` writes the scenario for `tempo run`.

#[path = "baseline/duel.rs"]
mod duel;

use criterion::{criterion_group, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::io::{self, BufWriter, Write};
use std::time::Duration;
use tempo::run::sink::{Format, Writer};
use tempo::run::Runner;

const SEED: u64 = 7;
const ROUNDS: u32 = 10_000;

fn versus(c: &mut Criterion) {
    // The traces name files as `tempo run` at the repository's root does; `cargo bench` starts
    // in benches/.
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).expect("the repository's root");
    let compiled = tempo::check::compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let ruleset = compiled.ruleset.expect("rulesets/frontiers.rules compiles");
    let scenario = tempo::run::scenario::parse(&duel::scenario(SEED, ROUNDS)).expect("the duel scenario reads");
    let events = duel::play(SEED, ROUNDS, &mut io::sink()).expect("writing to io::sink()");
    eprintln!("input: the Frontiers duel, 2 participants x {ROUNDS} rounds, {events} events");

    let mut group = c.benchmark_group("versus_baseline");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(events));
    group.bench_function(BenchmarkId::new("hand_written", ROUNDS), |b| {
        b.iter(|| {
            let mut out = BufWriter::new(io::sink());
            duel::play(SEED, ROUNDS, &mut out).unwrap();
            out.flush().unwrap();
        })
    });
    let sink = Writer::new(BufWriter::new(io::sink()), Format::Jsonl, &ruleset.files);
    let mut runner = Runner::new(&ruleset, &scenario, sink).expect("the scenario fits the ruleset");
    group.bench_function(BenchmarkId::new("tempo", ROUNDS), |b| b.iter(|| runner.play(None).unwrap()));
    group.finish();
}

criterion_group!(benches, versus);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<u64>().ok());
    for (flag, print) in [("--print", true), ("--scenario", false)] {
        if let Some(i) = args.iter().position(|a| a == flag) {
            let (Some(rounds), Some(seed)) = (number(i + 1), number(i + 2)) else {
                eprintln!("usage: baseline {flag} ROUNDS SEED");
                std::process::exit(2);
            };
            let rounds = u32::try_from(rounds).unwrap_or(u32::MAX);
            let stdout = io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            let written = if print {
                duel::play(seed, rounds, &mut out).map(|_| ())
            } else {
                out.write_all(duel::scenario(seed, rounds).as_bytes())
            };
            if let Err(e) = written.and_then(|()| out.flush()) {
                eprintln!("baseline: {e}");
                std::process::exit(1);
            }
            return;
        }
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
