//! An encounter played a round at a time plays as one played whole, and a runner copied from
//! another between two rounds plays on exactly as the other does (the same events, the same
//! dice), whatever it held before; once warmed up, a copy allocates nothing. This is what a
//! policy that looks ahead relies on. Every example scenario is tried (paired with its ruleset
//! as tests/examples.rs pairs them), copied after several rounds.

use std::path::{Path, PathBuf};
use tempo::run::scenario::{self, Scenario};
use tempo::run::sink::Count;
use tempo::run::trace::Record;
use tempo::run::Runner;

use crate::counting::{allocations, ONE_AT_A_TIME};

/// Every example with its ruleset's path and scenario: `examples/<stem>-<what>.ron` runs under
/// the longest `rulesets/<stem>.rules` that begins its name.
fn examples() -> Vec<(String, tempo::ir::Ruleset, Scenario)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = |dir: &str, ext: &str| -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
            .filter(|p| !p.to_string_lossy().ends_with(".test.ron"))
            .collect();
        out.sort();
        out
    };
    let stem = |p: &Path| p.file_stem().and_then(|s| s.to_str()).unwrap().to_string();
    let mut stems: Vec<String> = listed("rulesets", "rules").iter().map(|p| stem(p)).collect();
    stems.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    let mut out = Vec::new();
    for path in listed("examples", "ron") {
        let name = stem(&path);
        let rules = stems.iter().find(|s| name.starts_with(&format!("{s}-"))).expect("every example has a ruleset");
        let compiled = tempo::check::compile_path(&PathBuf::from(format!("rulesets/{rules}.rules")));
        let ruleset = compiled.ruleset.unwrap_or_else(|| panic!("rulesets/{rules}.rules does not compile"));
        let scenario = scenario::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        out.push((name, ruleset, scenario));
    }
    assert!(out.len() >= 20, "examples/ holds {} scenarios", out.len());
    out
}

/// Another seed than the scenario's, for the runner whose buffers are dirty.
fn other_seed(s: &Scenario) -> u64 {
    s.seed ^ 0x5eed
}

/// Plays `runner`'s encounter under another seed: through to the end, then again up to
/// `rounds` rounds, so that what it holds (conditions, logs, pending work) is another
/// encounter's, halfway through.
fn dirty(runner: &mut Runner<'_, Vec<Record>>, s: &Scenario, rounds: u32) {
    runner.play(Some(other_seed(s))).unwrap();
    runner.begin(Some(other_seed(s) + 1)).unwrap();
    for _ in 0..rounds {
        runner.play_round().unwrap();
    }
}

#[test]
fn an_encounter_played_round_by_round_and_copied_plays_on_exactly() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut tried = 0;
    for (name, ruleset, s) in examples() {
        let whole = tempo::run::run(&ruleset, &s, None).unwrap();
        // How many rounds the encounter plays, and so where copies can be made.
        let mut probe = Runner::new(&ruleset, &s, Count::default()).unwrap();
        probe.begin(None).unwrap();
        while probe.play_round().unwrap() {}
        let rounds = probe.round();
        let mut at: Vec<u32> = vec![0, 1, 2, rounds / 2, rounds.saturating_sub(1), rounds];
        at.sort();
        at.dedup();
        for k in at {
            let mut original = Runner::new(&ruleset, &s, Vec::new()).unwrap();
            original.begin(None).unwrap();
            for _ in 0..k {
                original.play_round().unwrap();
            }
            let before = original.sink().len();
            let mut copy = Runner::new(&ruleset, &s, Vec::new()).unwrap();
            dirty(&mut copy, &s, k + 1);
            copy.sink_mut().clear();
            assert!(copy.copy_from(&original), "{name}: a runner of the same ruleset and scenario is refused");
            assert_eq!(copy.round(), original.round(), "{name}, after round {k}");
            original.finish().unwrap();
            copy.finish().unwrap();
            assert!(*original.sink() == whole, "{name}: played round by round to {k}, it plays another trace");
            let (after, copied) = (&original.sink()[before..], copy.sink().as_slice());
            assert!(!after.is_empty(), "{name}, after round {k}: nothing left to compare");
            if copied != after {
                let i = copied.iter().zip(after).position(|(a, b)| a != b).unwrap_or(copied.len().min(after.len()));
                panic!(
                    "{name}, copied after round {k}: event {i} of what follows differs\ncopy:     {:?}\noriginal: {:?}",
                    copied.get(i),
                    after.get(i)
                );
            }
            tried += 1;
        }
    }
    // 26 examples, up to six places each (fewer where an encounter is short): 94 on 2026-11-27.
    assert!(tried >= 90, "only {tried} copies tried");
}

#[test]
fn a_copy_into_a_warmed_up_runner_allocates_nothing() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for (name, ruleset, s) in examples() {
        for k in [1, 2, 3] {
            let mut original = Runner::new(&ruleset, &s, Vec::new()).unwrap();
            original.begin(None).unwrap();
            for _ in 0..k {
                original.play_round().unwrap();
            }
            let mut copy = Runner::new(&ruleset, &s, Vec::new()).unwrap();
            dirty(&mut copy, &s, k);
            // Warmed up: it has held this very state, and played on from it.
            assert!(copy.copy_from(&original));
            copy.play_round().unwrap();
            let before = allocations();
            let copied = copy.copy_from(&original);
            let allocated = allocations() - before;
            assert!(copied);
            assert_eq!(allocated, 0, "{name}: a copy after round {k} into a warmed-up runner allocates");
        }
    }
}

#[test]
fn a_runner_of_another_scenario_is_not_copied() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut all = examples().into_iter();
    let (_, ruleset, s) = all.next().unwrap();
    let other = s.clone();
    let mut a = Runner::new(&ruleset, &s, Count::default()).unwrap();
    let mut b = Runner::new(&ruleset, &other, Count::default()).unwrap();
    a.begin(None).unwrap();
    assert!(!b.copy_from(&a), "equal scenarios, but not the same one");
    assert!(!b.play_round().unwrap(), "nothing was copied, so nothing is under way");
    // Before any encounter, and after one: nothing under way.
    b.finish().unwrap();
    assert_eq!(b.sink().events, 0);
    a.finish().unwrap();
    assert!(!a.play_round().unwrap());
}
