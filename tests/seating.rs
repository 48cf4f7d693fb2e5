//! Random seating (`seating: Random`, `--seating random`): drawn for each run from its seed,
//! written in the trace, and fair: in a mirror duel each side takes the first turn about half
//! the time. Seated as written, a run is what it was before seating could be drawn.

use tempo::check::compile_path;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario, Seating};
use tempo::run::trace::{Event, Record};
use tempo::run::{Runner, Sink};

const FRONTIERS: &str = "rulesets/frontiers.rules";
const DUEL: &str = "tests/seating/duel.ron";

fn ruleset() -> Ruleset {
    compile_path(std::path::Path::new(FRONTIERS)).ruleset.expect("compiles")
}

fn duel(seating: Seating) -> Scenario {
    let mut s = scenario::parse(&std::fs::read_to_string(DUEL).unwrap()).expect("parses");
    s.seating = seating;
    s
}

/// Who took the first turn of each run, and the seatings drawn.
#[derive(Default)]
struct Firsts {
    /// Runs in which Ann took the first turn, and runs in all.
    ann: u32,
    runs: u32,
    seen_first: bool,
    seatings: u32,
}

impl Sink for Firsts {
    fn record(&mut self, record: Record) {
        match &record.event {
            Event::EncounterStart { .. } => self.seen_first = false,
            Event::Seating { .. } => self.seatings += 1,
            Event::TurnStart { actor } if !self.seen_first => {
                self.seen_first = true;
                self.runs += 1;
                self.ann += u32::from(&**actor == "Ann");
            }
            _ => {}
        }
    }
}

fn firsts(s: &Scenario) -> Firsts {
    let r = ruleset();
    let mut runner = Runner::new(&r, s, Firsts::default()).expect("fits");
    for seed in 0..1000 {
        runner.play(Some(seed)).expect("plays");
    }
    runner.into_sink()
}

/// Over 1,000 runs seated at random, Ann goes first in 40% to 60% of them (the share of a fair
/// coin over 1,000 tosses lies outside that less than once in 10^9); seated as written she goes
/// first every time, and no seating is written.
#[test]
fn a_random_seating_gives_each_side_the_first_turn_about_half_the_time() {
    let drawn = firsts(&duel(Seating::Random));
    assert_eq!((drawn.runs, drawn.seatings), (1000, 1000));
    assert!((400..=600).contains(&drawn.ann), "Ann went first in {} of 1,000 runs", drawn.ann);
    let written = firsts(&duel(Seating::AsWritten));
    assert_eq!((written.runs, written.ann, written.seatings), (1000, 1000, 0));
}

/// The same seed draws the same seating; the trace names it right after the encounter starts,
/// and the tie the GM leaves to the seating follows it.
#[test]
fn the_seating_drawn_is_in_the_trace() {
    let r = ruleset();
    let s = duel(Seating::Random);
    // A seed whose seating puts Bea first: the file's order would not show the draw.
    let (seed, records) = (0..64)
        .map(|seed| (seed, tempo::run::run(&r, &s, Some(seed)).expect("plays")))
        .find(|(_, records)| matches!(&records[1].event, Event::Seating { order } if &*order[0] == "Bea"))
        .expect("some seed seats Bea first");
    assert_eq!(tempo::run::run(&r, &s, Some(seed)).unwrap(), records, "the same seed, the same run");
    let trace = tempo::run::sink::to_jsonl(&records, &r.files);
    let head: Vec<&str> = trace.lines().take(4).collect();
    insta::assert_snapshot!("seated-at-random", format!("seed {seed}\n{}", head.join("\n")));
}

/// Seated as written, written or left out, a run is byte for byte what it was: no seating is
/// drawn, and no die of the run's stream is spent on one. Seated at random, the dice are the
/// same stream: a run whose draw keeps the written seating is the same run.
#[test]
fn as_written_is_the_run_without_a_seating() {
    let r = ruleset();
    let text = std::fs::read_to_string(DUEL).unwrap().replace("  seating: Random,\n", "");
    let left_out = scenario::parse(&text).unwrap();
    assert_eq!(left_out.seating, Seating::AsWritten);
    for seed in 0..50 {
        let before = tempo::run::run(&r, &left_out, Some(seed)).unwrap();
        assert_eq!(tempo::run::run(&r, &duel(Seating::AsWritten), Some(seed)).unwrap(), before);
        let mut random = tempo::run::run(&r, &duel(Seating::Random), Some(seed)).unwrap();
        let Event::Seating { order } = random.remove(1).event else { panic!("no seating written") };
        if &*order[0] == "Ann" {
            // The rest renumbered as if the seating were not written: the same events.
            for (i, record) in random.iter_mut().enumerate() {
                record.seq = i as u64;
                if let Some(b) = record.because.as_mut() {
                    *b -= u64::from(*b > 1);
                }
            }
            assert_eq!(random, before, "seed {seed}");
        }
    }
}
