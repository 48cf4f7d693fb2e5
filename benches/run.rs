//! Runner benchmark: `tempo::run::run` playing long encounters, in trace records (events) per
//! second.
//!
//! Run with `cargo bench -p tempo-benches --bench run`. Results and how to read them: `docs/performance.md`.
//!
//! Every scenario is built in code, deterministically (fixed seed, no randomness in the setup).
//! Participants have a huge `hp_max` and deal 1 damage, so nobody drops: setup plays each
//! scenario once and panics unless the encounter reached its round limit, so no benchmark can
//! quietly measure a fight that ended in round 1. The number of trace records of that run is the
//! benchmark's throughput (the runner is deterministic: every iteration writes the same trace).
//!
//! - `run_duel/2xR`: `rulesets/frontiers.rules`, two participants over R rounds (1,000, and 250
//!   and 2,000 to see how cost grows with the length of the encounter).
//! - `run_sinks/SINK/2x1000`: the 1,000-round duel by a reused runner into a counting sink
//!   (nothing kept) and into the JSONL and text writers (to `io::sink()`).
//! - `run_participants/N`: the same ruleset, N participants in N/2 pairs over 50 rounds
//!   (`run_participants/200` is the 200-participant crowd). In both, everyone holds back 1 AP
//!   (`HoldBack`), so every round has attacks, a free action and ripostes.
//! - `run_reactions/VARIANT/N`: a small ruleset written below, where an attack is answered by no
//!   one (`none`), by its victim (`victim`) or by every enemy of the attacker (`all`: N/2
//!   reactions per attack).
//!
//! Sampling is flat, 10 samples in a 3 s window. An input that takes more than 0.3 s a run gets
//! one run per sample, and criterion then prints "Unable to complete 10 samples in 3.0s": that is
//! intended (asking for more time would only add runs to each sample).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};
use tempo::check::{compile_path, compile_str, Compilation};
use tempo::diagnostics::render::{to_text, TextStyle};
use tempo::ir::Ruleset;
use tempo::run::scenario::Scenario;
use tempo::run::sink::{Count, Format, Writer};
use tempo::run::trace::{Event, Record};
use tempo::run::Runner;

const SEED: u64 = 7;

/// Rounds of `run_duel` (1,000 is the reference; the others show growth with length).
const DUEL_ROUNDS: &[u32] = &[250, 1_000, 2_000];

/// Participant counts of `run_participants` (pairs over `CROWD_ROUNDS`).
const PARTICIPANTS: &[usize] = &[10, 50, 200];
const CROWD_ROUNDS: u32 = 50;

/// Participant counts of `run_reactions`, and its rounds (fewer for `all`, see `Reactions::rounds`).
const REACTION_SIZES: &[usize] = &[10, 50, 200];
const REACTION_ROUNDS: u32 = 10;

/// A purpose-made ruleset: 3 AP a turn, a strike for 1 AP, and (per variant) a free reaction to
/// every strike by no one, by the victim, or by every enemy of the striker.
fn reaction_rules(variant: Reactions) -> String {
    let reaction = match variant {
        Reactions::None => "",
        Reactions::Victim => {
            "reaction parry { cost 0; on attack by enemy against self; resolve { actor.hp -= damage } }"
        }
        Reactions::All => "reaction parry { cost 0; on attack by enemy; resolve { actor.hp -= damage } }",
    };
    format!(
        "ruleset reactions_{name}
stat hp_max = 1000000
stat damage = 1
stat skill = 2
stat defense = 12
space grid
pool ap \"Action Points\" {{ max 3; refresh at encounter_start; refresh at turn_start; keep at turn_end }}
pool hp \"Hit Points\" {{ max hp_max }}
category attack
event hit
initiative {{ value 0 }}
round {{ phase fight: turns }}
priority active, initiative, gm
chains lifo
default cost 1 ap
action strike {{
  category attack
  target enemy within 1
  resolve {{ check 1d20 + skill vs target.defense {{ success {{ target.hp -= damage; emit hit }} }} }}
}}
{reaction}
",
        name = variant.name()
    )
}

#[derive(Debug, Clone, Copy)]
enum Reactions {
    None,
    Victim,
    All,
}

impl Reactions {
    fn name(self) -> &'static str {
        match self {
            Reactions::None => "none",
            Reactions::Victim => "victim",
            Reactions::All => "all",
        }
    }

    /// Rounds per run. With `all`, a round has 3N strikes and 3N²/2 reactions, and the runner
    /// stops an encounter after 200,000 effects (its guard against trigger cycles), so `all`
    /// gets fewer rounds as N grows: about 100,000 effects per run at most.
    fn rounds(self, participants: usize) -> u32 {
        match self {
            Reactions::None | Reactions::Victim => REACTION_ROUNDS,
            Reactions::All => {
                let n = participants;
                (100_000 / (3 * n * n / 2 + 10 * n)).clamp(1, REACTION_ROUNDS as usize) as u32
            }
        }
    }
}

fn checked(what: &str, compiled: Compilation) -> Ruleset {
    if compiled.has_errors() || compiled.ruleset.is_none() {
        panic!(
            "{what} does not compile:\n{}",
            to_text(&compiled.diagnostics, &compiled.sources, TextStyle { color: false, width: 100 })
        );
    }
    compiled.ruleset.expect("checked above")
}

/// Two sides of `per_side`, in pairs: side A's i-th at position 3i, side B's i-th at 3i + 1, so
/// each one has exactly one enemy in reach (distance 1) and nobody needs to move. Written as RON
/// and read with `tempo::run::scenario::parse`, as `tempo run` reads a scenario file.
fn scenario(per_side: usize, rounds: u32, stats: &str, controller: &str) -> Scenario {
    let mut text = format!("(seed: {SEED}, rounds: {rounds}, participants: [\n");
    for (side, offset) in [("heroes", 0), ("monsters", 1)] {
        for i in 0..per_side {
            let (name, player, position) = (format!("{}{i}", &side[..1]), side == "heroes", 3 * i + offset);
            writeln!(
                text,
                "  (name: {name:?}, side: {side:?}, player: {player}, stats: {{{stats}}}, position: {position}, \
                 controller: {controller}),"
            )
            .unwrap();
        }
    }
    text.push_str("])\n");
    tempo::run::scenario::parse(&text).unwrap_or_else(|e| panic!("the generated scenario does not parse: {e}"))
}

/// The Frontiers setup: nobody drops (1 damage against a million HP); everyone keeps 1 AP for a
/// riposte.
fn frontiers_scenario(per_side: usize, rounds: u32) -> Scenario {
    scenario(
        per_side,
        rounds,
        r#""hp_max": 1000000, "damage": 1"#,
        r#"Policy(HoldBack(pool: "ap", keep: 1, spend_on_reactions: true))"#,
    )
}

/// One benchmark input: the ruleset, the scenario and what a run of it writes.
struct Input {
    label: String,
    ruleset: Ruleset,
    scenario: Scenario,
    records: u64,
}

/// Plays the scenario once, checks that it reached the round limit with actions (and, if
/// `reacts`, reactions) in every round, and counts what it wrote.
fn prepare(label: String, ruleset: Ruleset, scenario: Scenario, reacts: bool) -> Input {
    let start = Instant::now();
    let trace = tempo::run::run(&ruleset, &scenario, None).unwrap_or_else(|e| panic!("{label}: the run fails: {e}"));
    let elapsed = start.elapsed();
    check_reached_limit(&label, &trace, scenario.rounds);
    // Declarations of actions (`reaction == false`) or reactions: how many, in how many rounds.
    let declared = |reaction: bool| {
        let records: Vec<&Record> = trace
            .iter()
            .filter(|r| matches!(&r.event, Event::Action { kind, .. } if is_reaction(kind) == reaction))
            .collect();
        let rounds: BTreeSet<u32> = records.iter().filter_map(|r| r.round).collect();
        (records.len(), rounds.len())
    };
    let (actions, action_rounds) = declared(false);
    let (reactions, reaction_rounds) = declared(true);
    eprintln!(
        "input {label}: {} participants, {} rounds, {} records ({actions} actions, {reactions} reactions), one run {:.1} ms",
        scenario.participants.len(),
        scenario.rounds,
        trace.len(),
        elapsed.as_secs_f64() * 1e3
    );
    let rounds = scenario.rounds as usize;
    assert_eq!(action_rounds, rounds, "{label}: some rounds have no actions");
    if reacts {
        assert_eq!(reaction_rounds, rounds, "{label}: some rounds have no reactions");
    } else {
        assert_eq!(reactions, 0, "{label}: reactions where none can happen");
    }
    Input { label, ruleset, scenario, records: trace.len() as u64 }
}

fn is_reaction(kind: &str) -> bool {
    kind == "reaction"
}

fn check_reached_limit(label: &str, trace: &[Record], rounds: u32) {
    let last = trace.last().unwrap_or_else(|| panic!("{label}: empty trace"));
    match &last.event {
        Event::EncounterEnd { reason, .. } => assert!(
            reason.contains("round limit"),
            "{label}: the encounter ended early ({reason}), not at the round limit"
        ),
        other => panic!("{label}: the trace does not end with encounter_end: {other:?}"),
    }
    let last_round = trace.iter().filter_map(|r| r.round).max().unwrap_or(0);
    assert_eq!(last_round, rounds, "{label}: the encounter did not play all {rounds} rounds");
}

fn bench_inputs(c: &mut Criterion, group_name: &str, inputs: &[Input]) {
    // Flat sampling (the same number of iterations in every sample): one iteration of the
    // largest inputs takes seconds, so they get one per sample and the group stays short.
    let mut group = c.benchmark_group(group_name);
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.sampling_mode(SamplingMode::Flat);
    for input in inputs {
        group.throughput(Throughput::Elements(input.records));
        group.bench_with_input(BenchmarkId::from_parameter(&input.label), input, |b, input| {
            b.iter(|| tempo::run::run(black_box(&input.ruleset), black_box(&input.scenario), None).unwrap())
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("rulesets/frontiers.rules");
    let frontiers = checked("rulesets/frontiers.rules", compile_path(&path));

    let duels: Vec<Input> = DUEL_ROUNDS
        .iter()
        .map(|&rounds| prepare(format!("2x{rounds}"), frontiers.clone(), frontiers_scenario(1, rounds), true))
        .collect();
    let participants: Vec<Input> = PARTICIPANTS
        .iter()
        .map(|&n| prepare(n.to_string(), frontiers.clone(), frontiers_scenario(n / 2, CROWD_ROUNDS), true))
        .collect();
    let mut reactions = Vec::new();
    for variant in [Reactions::None, Reactions::Victim, Reactions::All] {
        let name = format!("reactions_{}.rules", variant.name());
        let ruleset = checked(&name, compile_str(&name, &reaction_rules(variant)));
        for &n in REACTION_SIZES {
            let s = scenario(n / 2, variant.rounds(n), "", "Policy(Aggressive)");
            let reacts = !matches!(variant, Reactions::None);
            reactions.push(prepare(format!("{}/{n}", variant.name()), ruleset.clone(), s, reacts));
        }
    }

    bench_inputs(c, "run_duel", &duels);
    bench_sinks(c, &duels[1]);
    bench_inputs(c, "run_participants", &participants);
    bench_inputs(c, "run_reactions", &reactions);
}

/// The 1,000-round duel into each kind of sink, by a runner reused between iterations:
/// `count` (events counted, none kept: what a simulation pays), `jsonl` and `text` (written
/// to `io::sink()` through a buffer: what `tempo run > /dev/null` pays, less the process).
fn bench_sinks(c: &mut Criterion, input: &Input) {
    let mut group = c.benchmark_group("run_sinks");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(input.records));
    let mut counted = Runner::new(&input.ruleset, &input.scenario, Count::default()).unwrap();
    group.bench_function(BenchmarkId::new("count", &input.label), |b| b.iter(|| counted.play(None).unwrap()));
    for (name, format) in [("jsonl", Format::Jsonl), ("text", Format::Text)] {
        let out = Writer::new(std::io::BufWriter::new(std::io::sink()), format, &input.ruleset.files);
        let mut written = Runner::new(&input.ruleset, &input.scenario, out).unwrap();
        group.bench_function(BenchmarkId::new(name, &input.label), |b| b.iter(|| written.play(None).unwrap()));
    }
    group.finish();
}

criterion_group!(run, benches);
criterion_main!(run);
