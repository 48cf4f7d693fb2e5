//! What the fuzz targets share: the Frontiers base and the fixed scenarios, compiled in so a
//! target reads nothing from the disk, and the checks every compilation must pass.

use std::io;
use std::path::Path;
use std::sync::OnceLock;
use tempo::check::{compile_with, Compilation, MemoryLoader};
use tempo::diagnostics::render;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::run::sink::{Format, Writer};
use tempo::sim::shard::Shard;
use tempo::sim::sweep::shard::{read as shard_read, AnyShard};

/// The default ruleset, which fuzzed inputs may extend as `extends "frontiers.rules"`.
pub const FRONTIERS: &[u8] = include_bytes!("../../rulesets/frontiers.rules");

/// A duel under Frontiers (stats and actions named by the base), played for fewer rounds.
const DUEL: &str = include_str!("../../examples/frontiers-duel.ron");

/// Two participants that name nothing of the ruleset, so any ruleset with an action can be run.
const BARE: &str = r#"(
  seed: 7,
  rounds: 3,
  participants: [
    (name: "A", side: "one", player: true, position: 0, controller: Policy(Aggressive)),
    (name: "B", side: "two", position: 3, controller: Policy(Random)),
  ],
)"#;

/// Terrain and objects for a ruleset that declares terrain `t` and `u` and object `o` (the seed
/// `ground.rules`): stretches at both edges of the line and an object held and one lying.
const GROUND: &str = r#"(
  seed: 7,
  rounds: 3,
  terrain: [(kind: "t", from: 1, to: 2), (kind: "u", from: -1000000000000, to: -4), (kind: "t", from: 5, to: 1000000000000)],
  objects: [(kind: "o", held_by: ["A", "B"]), (kind: "o", name: "second", at: 2)],
  participants: [
    (name: "A", side: "one", player: true, position: 0, controller: Policy(Aggressive)),
    (name: "B", side: "two", position: 3, controller: Policy(Random)),
    (name: "C", side: "two", position: 6, controller: Policy(Greedy)),
  ],
)"#;

/// The seed every run uses, so a crash replays.
pub const SEED: u64 = 7;

/// Most rounds a fuzzed run plays: enough for start/end hooks and a second turn.
pub const ROUNDS: u32 = 3;

/// The fixed scenarios, parsed once: the bare pair, the Frontiers duel (3 rounds) and the ground.
pub fn scenarios() -> &'static [Scenario] {
    static SCENARIOS: OnceLock<Vec<Scenario>> = OnceLock::new();
    SCENARIOS.get_or_init(|| {
        let mut duel = scenario::parse(DUEL).expect("the duel example is a scenario");
        duel.rounds = duel.rounds.min(ROUNDS);
        if let Some(after) = &mut duel.after {
            after.downtime_hours = after.downtime_hours.min(2);
        }
        vec![
            scenario::parse(BARE).expect("the bare scenario parses"),
            duel,
            scenario::parse(GROUND).expect("the ground scenario parses"),
        ]
    })
}

/// Compiles `bytes` as `input.rules`, with `frontiers.rules` beside it.
pub fn compile(bytes: &[u8]) -> Compilation {
    let loader = MemoryLoader::new().with("input.rules", bytes.to_vec()).with("frontiers.rules", FRONTIERS.to_vec());
    compile_with(&loader, Path::new("input.rules"))
}

/// Every diagnostic points inside its file, and renders as text and as JSON without panicking.
pub fn check_diagnostics(c: &Compilation) {
    for d in &c.diagnostics {
        for label in std::iter::once(&d.primary).chain(&d.secondary) {
            let text = c.sources.text(label.span.file);
            let (start, end) = (label.span.start as usize, label.span.end as usize);
            assert!(start <= end && end <= text.len(), "span outside its file: {d:?}");
            assert!(text.is_char_boundary(start) && text.is_char_boundary(end), "span cuts a character in two: {d:?}");
        }
    }
    let style = render::TextStyle { color: false, width: 80 };
    let _ = render::to_text(&c.diagnostics, &c.sources, style);
    let json = render::to_json(&c.diagnostics, &c.sources);
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "the JSON diagnostics are not JSON");
}

/// The IR `tempo compile` would write must read back as the same IR.
pub fn check_ir_round_trip(r: &Ruleset) {
    let ron = r.to_ron().expect("a compiled ruleset serializes");
    let back = Ruleset::from_ron(&ron).unwrap_or_else(|e| panic!("the IR does not read back: {e}"));
    assert!(back == *r, "the IR read back differs from the one written");
}

/// Plays every fixed scenario the ruleset accepts, with the fixed seed, writing the trace to
/// nowhere (JSON lines for one scenario, text for the other, so both writers run). A scenario the
/// ruleset refuses, or a run that stops with an error, is fine: only panics and hangs are bugs.
pub fn run_scenarios(r: &Ruleset) {
    for (i, s) in scenarios().iter().enumerate() {
        let format = if i % 2 == 0 { Format::Jsonl } else { Format::Text };
        let writer = Writer::new(io::sink(), format, &r.files).why(i % 4 == 1);
        let Ok(mut runner) = tempo::run::Runner::new(r, s, writer) else { continue };
        if let Err(e) = runner.play(Some(SEED)) {
            let _ = e.to_string();
            let _ = e.code();
        }
    }
}

/// Frontiers compiled once: the fixed ruleset the readers' targets (`shard`, `test_file`,
/// `sweep`, `search`) play under.
pub fn frontiers() -> &'static Ruleset {
    static FRONTIERS_IR: OnceLock<Ruleset> = OnceLock::new();
    FRONTIERS_IR.get_or_init(|| compile(FRONTIERS).ruleset.expect("the Frontiers base compiles"))
}

/// The Frontiers duel as the example writes it (6 rounds): the scenario the seed shards were
/// played on.
pub fn duel() -> &'static Scenario {
    static DUEL_AS_WRITTEN: OnceLock<Scenario> = OnceLock::new();
    DUEL_AS_WRITTEN.get_or_init(|| scenario::parse(DUEL).expect("the duel example is a scenario"))
}

/// The seed shard `tempo sim ... --runs 16 --shard 1/2` wrote for the duel: its header is the
/// honest shard's, so that the two merge.
const SIM_SEED: &str = include_str!("../seeds/shard/sim-1of2.json");

/// An honest `sim` shard, played here with `simulate`: runs 8..16 of the duel's batch of 16,
/// seed 7, headed as `tempo sim` heads it (the header read from the seed shard 1/2, whose
/// fingerprint names the files as the CLI compiled them). The seed shard 1/2 and it make a
/// whole batch, so a fuzzed shard near that seed reaches the merged summary.
pub fn honest_shard() -> &'static Shard {
    static HONEST: OnceLock<Shard> = OnceLock::new();
    HONEST.get_or_init(|| {
        let Ok(AnyShard::Sim(head)) = shard_read(SIM_SEED) else { panic!("the seed shard reads") };
        let (r, s) = (frontiers(), duel());
        let layout = tempo::sim::layout(r, s).expect("the duel fits Frontiers");
        let batch = tempo::sim::Batch { seed: head.seed, runs: 8..16 };
        let totals = tempo::sim::simulate(r, s, &layout, &batch, Some(1), &|_| {}).expect("the duel plays");
        Shard { from: 8, to: 16, layout, totals, ..*head }
    })
}

/// Sweeps at most this many points and plays at most this many runs at each (so an input runs
/// in milliseconds).
pub const MOST_POINTS: u64 = 16;
pub const MOST_RUNS: u64 = 8;
