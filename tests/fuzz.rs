//! Property tests: arbitrary bytes and mutated shipped rulesets never make the compiler panic,
//! a mutated ruleset that still compiles never makes the runner panic, and a very long line
//! never makes the text renderer panic. A panic fails the property, and proptest shrinks it to a
//! small input. The cargo-fuzz targets in `fuzz/` search the same ground for much longer.

use proptest::prelude::*;
use std::path::Path;
use tempo::check::{compile_with, MemoryLoader};

fn compile_bytes(bytes: Vec<u8>) {
    let loader = MemoryLoader::new()
        .with("input.rules", bytes)
        .with("frontiers.rules", std::fs::read("rulesets/frontiers.rules").unwrap());
    let c = compile_with(&loader, Path::new("input.rules"));
    // Every diagnostic's span lies inside its file, so rendering cannot go out of bounds.
    for d in &c.diagnostics {
        let len = c.sources.text(d.primary.span.file).len() as u32;
        assert!(d.primary.span.end <= len, "span past the end of the file: {d:?}");
    }
    let _ = tempo::diagnostics::render::to_text(
        &c.diagnostics,
        &c.sources,
        tempo::diagnostics::render::TextStyle { color: false, width: 80 },
    );
    let _ = tempo::diagnostics::render::to_json(&c.diagnostics, &c.sources);
}

/// A duel that names nothing of the ruleset, short enough to keep a case fast.
const BARE_SCENARIO: &str = r#"(seed: 7, rounds: 2, participants: [
  (name: "A", side: "a", player: true, controller: Policy(Aggressive)),
  (name: "B", side: "b", position: 3, controller: Policy(Random)),
])"#;

/// The Frontiers duel of `examples/`, cut to two rounds and one hour of downtime.
fn frontiers_duel() -> tempo::run::scenario::Scenario {
    let text = std::fs::read_to_string("examples/frontiers-duel.ron").unwrap();
    let mut duel = tempo::run::scenario::parse(&text).unwrap();
    duel.rounds = 2;
    if let Some(after) = &mut duel.after {
        after.downtime_hours = after.downtime_hours.min(1);
    }
    duel
}

/// Compiles the bytes (with the Frontiers base beside them) and, if they compile, plays both
/// scenarios with seed 7 into a counting sink. A scenario the ruleset refuses, or a run that
/// stops with an error, is fine; a panic is not.
fn compile_and_run(bytes: Vec<u8>) {
    let loader = MemoryLoader::new()
        .with("input.rules", bytes)
        .with("frontiers.rules", std::fs::read("rulesets/frontiers.rules").unwrap());
    let c = compile_with(&loader, Path::new("input.rules"));
    let Some(r) = &c.ruleset else { return };
    let scenarios = [tempo::run::scenario::parse(BARE_SCENARIO).unwrap(), frontiers_duel()];
    for s in &scenarios {
        let _ = tempo::run::run_into(r, s, Some(7), tempo::run::sink::Count::default());
    }
}

fn shipped_texts() -> Vec<String> {
    let mut out: Vec<(String, String)> = std::fs::read_dir("rulesets")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("rules"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out.into_iter().map(|(_, t)| t).collect()
}

/// One edit to a text: delete a range, insert a token, or duplicate a range.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, &'static str),
    Duplicate(usize, usize),
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    ":",
    ";",
    ",",
    ".",
    "+",
    "-",
    "*",
    "/",
    "==",
    "<=",
    "#",
    "##",
    "\"",
    "0",
    "1d20",
    "99999999999999999999",
    "pool",
    "max",
    "override",
    "remove",
    "extends",
    "when",
    "at",
    "turn_start",
    "ap",
    "self",
    "target",
    "actor",
    "trigger",
    "if",
    "not",
    "has",
    "is",
    "cost",
    "limit",
    "each",
    "per",
    "round",
    "phase",
    "resolve",
    "choose",
    "check",
    "vs",
    "\n",
    " ",
    "é",
    "✦",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), prop::sample::select(TOKENS)).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 0usize..80).prop_map(|(a, n)| Edit::Duplicate(a, n)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let len = bytes.len().max(1);
        match e {
            Edit::Delete(at, n) => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                bytes.drain(at.min(bytes.len())..end);
            }
            Edit::Insert(at, t) => {
                let at = (at % len).min(bytes.len());
                bytes.splice(at..at, t.bytes());
            }
            Edit::Duplicate(at, n) => {
                let at = (at % len).min(bytes.len());
                let end = (at + n).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(end..end, copy);
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        compile_bytes(bytes);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "(ruleset [a-z]{1,5} )?[ -~\n]{0,300}") {
        compile_bytes(text.into_bytes());
    }

    #[test]
    fn mutated_rulesets_never_panic(which in any::<usize>(), edits in prop::collection::vec(edit(), 1..6)) {
        let texts = shipped_texts();
        let text = &texts[which % texts.len()];
        compile_bytes(apply(text, &edits));
    }
}

proptest! {
    // Each case compiles and runs: kept few so `cargo test` stays quick.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mutated_rulesets_run_without_panicking(which in any::<usize>(), edits in prop::collection::vec(edit(), 1..4)) {
        let texts = shipped_texts();
        let text = &texts[which % texts.len()];
        compile_and_run(apply(text, &edits));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// A line of 70,000+ characters with a token in error at its end: the diagnostic's column is
    /// past 65,535, which the text renderer must survive (it panicked there once).
    #[test]
    fn a_very_long_line_renders(
        width in 70_000usize..90_000,
        filler in prop::sample::select(&[" ", "\t"][..]),
        bad in prop::sample::select(&["@", "}", "pool", "\"", "99999999999999999999"][..]),
    ) {
        let line = filler.repeat(width);
        compile_bytes(format!("ruleset long\npool ap {{ max 3 }} {line} {bad}\n").into_bytes());
        compile_bytes(format!("ruleset long\n{line}{bad}\n").into_bytes());
    }
}
