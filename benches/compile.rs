//! Compile benchmark: `tempo::check::compile_str` (and its parsing stage alone) on large
//! generated rulesets, against reading the same compiled IR back from JSON (`serde_json`) and
//! from RON (`Ruleset::from_ron`, the format `tempo compile` writes).
//!
//! Run with `cargo bench -p tempo-benches --bench compile`. Results and how to read them: `docs/performance.md`.
//!
//! The rulesets are generated in code, deterministically (no randomness): a fixed frame of stats,
//! derives, pools, conditions, categories, events, limits, triggers and hooks, then `n` actions
//! cycling through six shapes (costs, conditional costs, limits, `requires`, targets, reactions,
//! resolve blocks with checks, pool changes, conditions applied and removed, movement). Setup
//! panics with the rendered diagnostics if a generated ruleset does not compile cleanly.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::Duration;
use tempo::check::compile_str;
use tempo::diagnostics::render::{to_text, TextStyle};
use tempo::ir::Ruleset;
use tempo::source::FileId;

#[path = "support/generate.rs"]
mod generate;
use generate::generate;

/// Action counts benchmarked.
const SIZES: &[usize] = &[200, 2_000, 10_000];

/// One benchmark input: the source text and the IR it compiles to, as JSON and as RON.
struct Input {
    actions: usize,
    text: String,
    json: String,
    ron: String,
}

fn prepare(actions: usize) -> Input {
    let name = format!("bench_{actions}.rules");
    let text = generate(actions);
    let compiled = compile_str(&name, &text);
    if compiled.has_errors() || compiled.ruleset.is_none() || !compiled.diagnostics.is_empty() {
        panic!(
            "the generated ruleset with {actions} actions does not compile cleanly:\n{}",
            to_text(&compiled.diagnostics, &compiled.sources, TextStyle { color: false, width: 100 })
        );
    }
    let ruleset = compiled.ruleset.expect("checked above");
    assert_eq!(ruleset.actions.len(), actions, "every generated action is in the IR");
    let json = serde_json::to_string(&ruleset).expect("the IR serializes to JSON");
    let ron = ruleset.to_ron().expect("the IR serializes to RON");
    // The IR read back must be the IR written, or the reading benchmarks measure nothing useful.
    let from_json: Ruleset = serde_json::from_str(&json).expect("the IR reads back from JSON");
    assert!(from_json == ruleset, "JSON round trip changed the IR");
    let from_ron = Ruleset::from_ron(&ron).expect("the IR reads back from RON");
    assert!(from_ron == ruleset, "RON round trip changed the IR");
    eprintln!(
        "input {actions} actions: source {} bytes ({} lines), IR as JSON {} bytes, IR as RON {} bytes",
        text.len(),
        text.lines().count(),
        json.len(),
        ron.len()
    );
    Input { actions, text, json, ron }
}

fn benches(c: &mut Criterion) {
    let inputs: Vec<Input> = SIZES.iter().map(|&n| prepare(n)).collect();

    // Compiling 10,000 actions takes most of a second: flat sampling (the same number of
    // iterations in every sample) and short windows keep the run within a few minutes on 2 cores.
    let window = |actions: usize| Duration::from_secs(if actions >= 2_000 { 8 } else { 4 });

    let mut group = c.benchmark_group("compile_str");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).sampling_mode(SamplingMode::Flat);
    for input in &inputs {
        group.measurement_time(window(input.actions));
        group.throughput(Throughput::Bytes(input.text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(input.actions), &input.text, |b, text| {
            b.iter(|| compile_str("bench.rules", black_box(text)))
        });
    }
    group.finish();

    // The parsing stage alone (pest, then the syntax tree), to see what share of compiling it is.
    let mut group = c.benchmark_group("parse");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).sampling_mode(SamplingMode::Flat);
    for input in &inputs {
        group.measurement_time(window(input.actions));
        group.throughput(Throughput::Bytes(input.text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(input.actions), &input.text, |b, text| {
            b.iter(|| {
                let (tree, diagnostics) = tempo::syntax::parse(FileId(0), black_box(text));
                assert!(tree.is_some() && diagnostics.is_empty());
                tree
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("ir_from_json");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for input in &inputs {
        group.throughput(Throughput::Bytes(input.json.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(input.actions), &input.json, |b, json| {
            b.iter(|| serde_json::from_str::<Ruleset>(black_box(json)).unwrap())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("ir_from_ron");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for input in &inputs {
        group.throughput(Throughput::Bytes(input.ron.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(input.actions), &input.ron, |b, ron| {
            b.iter(|| Ruleset::from_ron(black_box(ron)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(compile, benches);
criterion_main!(compile);
