//! Simulation benchmark: whole encounters per second, as `tempo sim` plays them.
//!
//! Run with `cargo bench -p tempo-benches --bench sim`. Results and how to read them: `docs/performance.md`.
//!
//! - `sim_encounters/EXAMPLE/untraced`: a batch of `BATCH` encounters of a shipped example
//!   (`frontiers-duel`, `cheatsheet-skirmish`, `active-phase-ambush`), each played by a reused
//!   runner into the simulation's counting sink, nothing kept: what `tempo sim` pays per thread.
//! - `sim_encounters/EXAMPLE/traced`: the same encounters written as JSON lines to
//!   `io::sink()`: what a batch of `tempo run --format jsonl` would pay, less the processes.
//! - `sim_threads/J`: `tempo::sim::simulate` of `THREADED` duels on J threads (1 and 2): the
//!   speed-up of the rayon split, summing included.
//!
//! Each encounter plays with the batch's seed for its index (`tempo::sim::seed_of`), so every
//! iteration plays the same encounters. Throughput is in encounters.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::path::Path;
use std::time::Duration;
use tempo::check::compile_path;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::run::sink::{Format, Writer};
use tempo::run::Runner;
use tempo::sim::{self, seed_of, Batch, Counter};

const BATCH: u64 = 200;
const THREADED: u64 = 4_000;
const SEED: u64 = 1;

fn load(rules: &str, example: &str) -> (Ruleset, Scenario) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let c = compile_path(&root.join(rules));
    assert!(!c.has_errors(), "{rules} does not compile");
    let text = std::fs::read_to_string(root.join(example)).expect("the example reads");
    (c.ruleset.expect("compiled"), scenario::parse(&text).expect("the example parses"))
}

fn benches(c: &mut Criterion) {
    let inputs = [
        ("frontiers-duel", load("rulesets/frontiers.rules", "examples/frontiers-duel.ron")),
        ("cheatsheet-skirmish", load("rulesets/cheatsheet.rules", "examples/cheatsheet-skirmish.ron")),
        ("active-phase-ambush", load("rulesets/active-phase.rules", "examples/active-phase-ambush.ron")),
    ];
    let mut group = c.benchmark_group("sim_encounters");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(BATCH));
    for (name, (r, s)) in &inputs {
        let layout = sim::layout(r, s).expect("the example fits");
        let mut counter = Counter::new(r, s, &layout).expect("the example fits");
        group.bench_function(BenchmarkId::new(*name, "untraced"), |b| {
            b.iter(|| {
                for i in 0..BATCH {
                    let _ = counter.play(seed_of(SEED, i));
                }
            })
        });
        let out = Writer::new(std::io::BufWriter::new(std::io::sink()), Format::Jsonl, &r.files);
        let mut traced = Runner::new(r, s, out).expect("the example fits");
        group.bench_function(BenchmarkId::new(*name, "traced"), |b| {
            b.iter(|| {
                for i in 0..BATCH {
                    let _ = traced.play(Some(seed_of(SEED, i)));
                }
            })
        });
    }
    group.finish();

    let (r, s) = &inputs[0].1;
    let layout = sim::layout(r, s).expect("the example fits");
    let batch = Batch { seed: SEED, runs: 0..THREADED };
    let mut group = c.benchmark_group("sim_threads");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(THREADED));
    for jobs in [1, 2] {
        group.bench_function(BenchmarkId::from_parameter(jobs), |b| {
            b.iter(|| sim::simulate(r, s, &layout, &batch, Some(jobs), &|_| {}).expect("plays"))
        });
    }
    group.finish();
}

criterion_group!(simulation, benches);
criterion_main!(simulation);
