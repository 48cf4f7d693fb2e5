//! `tempo solve` benchmark: what an exact answer costs.
//!
//! Run with `cargo bench -p tempo-benches --bench solve`. Results: `docs/performance.md`,
//! "Solve".
//!
//! - `solve/fair_duel`: examples/frontiers-fair-duel.ron under its controllers (about 99,000
//!   positions, 6,900 states kept).
//! - `solve/plan_for_hero`: tests/search/plan.rules, the Hero playing optimally (about 23,000
//!   positions).
//! - `solve/pool_02`: the corpus's second dice-pool case, A playing optimally (pools weighed by
//!   their successes).

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use std::path::Path;
use std::time::Duration;
use tempo::check::compile_path;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::solve::{self, Ask};

fn load(rules: &str, scenario: &str, changes: &[(&str, &str)]) -> (Ruleset, Scenario) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let c = compile_path(&root.join(rules));
    assert!(!c.has_errors(), "{rules} does not compile");
    let mut text = std::fs::read_to_string(root.join(scenario)).expect("the scenario reads");
    for (from, to) in changes {
        text = text.replacen(from, to, 1);
    }
    (c.ruleset.expect("compiled"), scenario::parse(&text).expect("the scenario parses"))
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    group.sampling_mode(SamplingMode::Flat);
    let cases = [
        ("fair_duel", "rulesets/frontiers.rules", "examples/frontiers-fair-duel.ron", None, vec![]),
        (
            "plan_for_hero",
            "tests/search/plan.rules",
            "tests/search/plan.ron",
            Some("Hero"),
            vec![("controller: Policy(Search)", "controller: Policy(Greedy)")],
        ),
        ("pool_02", "tests/corpus/cases/pool-02.rules", "tests/corpus/cases/pool-02.ron", Some("A"), vec![]),
    ];
    for (name, rules, scenario, for_who, changes) in cases {
        let (r, s) = load(rules, scenario, &changes);
        let ask = Ask { for_who: for_who.map(str::to_string), ..Ask::default() };
        group.bench_function(name, |b| b.iter(|| solve::solve(&r, &s, &ask, &mut |_| {}).expect("solves")));
    }
    group.finish();
}

criterion_group!(solve_benches, benches);
criterion_main!(solve_benches);
