//! `Search` benchmark: what a playout and a decision cost (issue 29).
//!
//! Run with `cargo bench -p tempo-benches --bench search`. Results and how to read them: `docs/performance.md`,
//! "Search".
//!
//! - `search/copy_between_rounds`: one runner of the Frontiers duel becomes a copy of another
//!   standing before round 1 (`Runner::copy_from`), into a runner that has held a copy before:
//!   the snapshot-and-restore a playout starts with. Compared with `search/event`, one event's
//!   share of an untraced encounter.
//! - `search/event`: an untraced encounter of the same duel played by a reused runner into a
//!   sink that keeps nothing, divided by its events (the throughput is in events).
//! - `search/playout`: a copy of the duel standing before round 1, played on to the end into a
//!   sink that keeps nothing: a playout's work. `search/sim_encounter`: the same encounter as
//!   `tempo sim` plays it (the counting sink, from its start, with its downtime).
//! - `search/decision`: the duel with Aria under `Search` (defaults) against the Brute under
//!   `Aggressive`, one encounter divided by the `Search` decisions it made (the throughput is
//!   in decisions).
//! - `search/decision_16`: the same at 16 participants (eight a side, `skirmish_16`), one hero
//!   under `Search` (defaults), the other heroes `Greedy`, the monsters `Aggressive` (issue 43
//!   item 8: within 10 ms a decision). The heroes win it whatever Hero0 does, so most of its
//!   decisions stop early (docs/scenario.md). `search/decision_16_even`: the same with the
//!   Brutes at 17 HP, where Greedy heroes win about 38%: decisions that matter.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use std::path::Path;
use std::time::Duration;
use tempo::check::compile_path;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::run::trace::{Event, Record};
use tempo::run::Runner;
use tempo::sim::{self, Counter};

const SEED: u64 = 7;

fn load(rules: &str, example: &str) -> (Ruleset, String) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let c = compile_path(&root.join(rules));
    assert!(!c.has_errors(), "{rules} does not compile");
    let text = std::fs::read_to_string(root.join(example)).expect("the example reads");
    (c.ruleset.expect("compiled"), text)
}

/// The shipped duel with Aria's script cut to her initiative adjustment, her other decisions
/// left to `policy`: the measurement.
fn duel_under(text: &str, policy: &str) -> Scenario {
    let start = text.find("        steps: [").expect("Aria's script");
    let end = text.find("        fallback: HoldBack(pool: \"ap\", keep: 1),").expect("Aria's fallback");
    let cut = format!(
        "{}        steps: [Adjust(by: 2)],\n        fallback: {policy},{}",
        &text[..start],
        &text[end + "        fallback: HoldBack(pool: \"ap\", keep: 1),".len()..]
    );
    scenario::parse(&cut).expect("the cut duel parses")
}

fn benches(c: &mut Criterion) {
    let (r, text) = load("rulesets/frontiers.rules", "examples/frontiers-duel.ron");
    let plain = duel_under(&text, "Greedy");
    let searched = duel_under(&text, "Search");

    let mut group = c.benchmark_group("search");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.sampling_mode(SamplingMode::Flat);

    // Events of one untraced encounter, to turn times into "events".
    let events = tempo::run::run(&r, &plain, Some(SEED)).expect("the duel plays").len() as u64;

    let mut started = Runner::new(&r, &plain, ()).expect("the duel fits");
    started.begin(Some(SEED)).expect("the duel begins");
    let mut copy = Runner::new(&r, &plain, ()).expect("the duel fits");
    assert!(copy.copy_from(&started));
    group.bench_function("copy_between_rounds", |b| b.iter(|| copy.copy_from(&started)));

    let mut whole = Runner::new(&r, &plain, ()).expect("the duel fits");
    group.throughput(Throughput::Elements(events));
    group.bench_function("event", |b| b.iter(|| whole.play(Some(SEED)).expect("the duel plays")));
    group.throughput(Throughput::Elements(1));

    group.bench_function("playout", |b| {
        b.iter(|| {
            assert!(copy.copy_from(&started));
            copy.finish().expect("the duel plays on")
        })
    });

    let layout = sim::layout(&r, &plain).expect("the duel fits");
    let mut counter = Counter::new(&r, &plain, &layout).expect("the duel fits");
    group.bench_function("sim_encounter", |b| {
        b.iter(|| {
            let _ = counter.play(SEED);
        })
    });

    let decisions = search_decisions(&r, &searched);
    let mut search = Runner::new(&r, &searched, ()).expect("the duel fits");
    group.throughput(Throughput::Elements(decisions.max(1)));
    group.bench_function("decision", |b| b.iter(|| search.play(Some(SEED)).expect("the searched duel plays")));

    let mut counted = Vec::new();
    for (name, hp) in [("decision_16", 14), ("decision_16_even", 17)] {
        let many = scenario::parse(&skirmish_16(hp)).expect("the 16-participant skirmish parses");
        let decisions_16 = search_decisions(&r, &many);
        let mut search_16 = Runner::new(&r, &many, ()).expect("the skirmish fits");
        group.throughput(Throughput::Elements(decisions_16.max(1)));
        group.bench_function(name, |b| b.iter(|| search_16.play(Some(SEED)).expect("the skirmish plays")));
        counted.push(format!("{decisions_16} in {name}"));
    }
    group.finish();
    eprintln!(
        "search bench: {events} events per untraced duel; {decisions} Search turn decisions in the searched duel; {}",
        counted.join(", ")
    );
}

/// How many decisions the searchers make in the encounter measured (its seed's).
fn search_decisions(r: &Ruleset, s: &Scenario) -> u64 {
    let mut accounted = Runner::new(r, s, Vec::<Record>::new()).expect("the encounter fits").decisions(true);
    accounted.play(Some(SEED)).expect("the searched encounter plays");
    accounted.sink().iter().filter(|rec| matches!(&rec.event, Event::Decision { policy: "search", .. })).count() as u64
}

/// Eight heroes (the duel's Aria, the first under `Search`, the rest `Greedy`) against eight
/// of the duel's Brutes (`Aggressive`, `hp` HP), in a line, Frontiers rules, six rounds.
fn skirmish_16(hp: i64) -> String {
    let mut participants = String::new();
    for i in 0..8 {
        let policy = if i == 0 { "Search" } else { "Greedy" };
        participants.push_str(&format!(
            "    (name: \"Hero{i}\", side: \"heroes\", stats: {{\"finesse\": 14, \"finesse_mod\": 2, \
             \"initiative_base\": 6, \"attack_bonus\": 3, \"damage\": 4}}, position: {}, \
             controller: Policy({policy})),\n",
            i * 2
        ));
        participants.push_str(&format!(
            "    (name: \"Brute{i}\", side: \"monsters\", stats: {{\"initiative_base\": 5, \"hp_max\": {hp}, \
             \"attack_bonus\": 1, \"damage\": 5}}, position: {}, controller: Policy(Aggressive)),\n",
            i * 2 + 5
        ));
    }
    format!("(\n  seed: 7,\n  rounds: 6,\n  participants: [\n{participants}  ],\n)\n")
}

criterion_group!(search_benches, benches);
criterion_main!(search_benches);
