//! Arbitrary bytes (read as UTF-8, invalid sequences replaced) as a `*.test.ron` file, read by
//! the parser `tempo test` uses (`testing::file::parse`). A file that parses is run twice:
//!
//! 1. in memory, as `tempo test` runs it (`testing::check::run_test`), against Frontiers held in
//!    memory, whatever ruleset it names, with what it would read from the disk taken out
//!    (`scenario_file`, `golden`), at most 3 seeds, 3 rounds, 2 hours of downtime;
//! 2. from the disk (`testing::run_all`, what `tempo test FOLDER [--bless]` runs), written into a
//!    folder made once (below) beside a fixed second test, `--bless` on for an input of odd
//!    length: the paths it names (ruleset, scenario file, golden) meet the folder rule
//!    (`tempo::outside-folder`) and `--bless`'s refusals (`tempo::bless-refused`). Only when its
//!    own scenario (if any) stays within 3 seeds, 3 rounds and 2 hours of downtime.
//!
//! The folder (`tempo-fuzz-test-file-PID` in the temporary folder; the current folder is moved
//! to `here/`):
//!
//! ```text
//! secret.rules, secret.ron      outside both folders; they hold SECRET (never to be printed)
//! here/                         the current folder: a test may read here (near.rules)
//! here/tests/                   the folder given to `tempo test`
//!   frontiers.rules, frontiers-two-ap.rules (extends it), duel.ron, other.test.ron
//!   shared.trace                other.test.ron's golden trace
//!   out.rules -> ../../secret.rules, out -> ../.. (links leading out)
//! ```
//!
//! A test may fail; nothing may panic, its outcomes render as text and JSON, and after the disk
//! run: no outcome or report holds SECRET; no file but golden traces inside `tests/` was written
//! (the rulesets, the scenario, both test files, the files outside are as they were); and when
//! any outcome says `tempo::bless-refused`, no golden trace was written at all.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tempo::testing::{self, check, file, Found, Outcome};

/// What the files outside hold; no outcome may print it.
const SECRET: &str = "SECRET-7f3a9c";
const TWO_AP: &[u8] = include_bytes!("../../rulesets/frontiers-two-ap.rules");
const DUEL: &str = include_str!("../../examples/frontiers-duel.ron");
const OTHER: &str =
    "(ruleset: \"frontiers-two-ap.rules\", scenario_file: \"duel.ron\", seeds: [7], golden: \"shared.trace\")\n";
const SHARED: &str = "--- seed 7\nnot this run's trace\n";

/// The folder, made once: its root, and every file in it with what it holds.
struct Fixture {
    base: PathBuf,
    tests: PathBuf,
    files: Vec<(PathBuf, Vec<u8>)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("tempo-fuzz-test-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let here = base.join("here");
        let tests = here.join("tests");
        std::fs::create_dir_all(&tests).expect("the fixture's folder");
        let secret = format!("{SECRET} = 1\n{SECRET}\n").into_bytes();
        let files: Vec<(PathBuf, Vec<u8>)> = vec![
            (base.join("secret.rules"), secret.clone()),
            (base.join("secret.ron"), secret),
            (here.join("near.rules"), tempo_fuzz::FRONTIERS.to_vec()),
            (tests.join("frontiers.rules"), tempo_fuzz::FRONTIERS.to_vec()),
            (tests.join("frontiers-two-ap.rules"), TWO_AP.to_vec()),
            (tests.join("duel.ron"), DUEL.as_bytes().to_vec()),
            (tests.join("other.test.ron"), OTHER.as_bytes().to_vec()),
            (tests.join("shared.trace"), SHARED.as_bytes().to_vec()),
        ];
        for (path, bytes) in &files {
            std::fs::write(path, bytes).expect("a fixture file");
        }
        std::os::unix::fs::symlink("../../secret.rules", tests.join("out.rules")).expect("a link");
        std::os::unix::fs::symlink("../..", tests.join("out")).expect("a link");
        std::env::set_current_dir(&here).expect("the current folder");
        Fixture { base, tests, files }
    })
}

/// Every file and link under `dir`, sorted (links not followed).
fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out.sort();
    out
}

fn render(outcomes: &[Outcome]) -> String {
    let text = testing::report::to_text(outcomes);
    let _ = testing::report::summary(outcomes);
    let json = testing::report::to_json(outcomes);
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "the outcome's JSON is not JSON");
    text + &json
}

fn in_memory(mut test: testing::TestFile) {
    test.scenario_file = None;
    test.golden = None;
    test.seeds.truncate(3);
    if let Some(s) = &mut test.scenario {
        s.rounds = s.rounds.min(tempo_fuzz::ROUNDS);
        if let Some(after) = &mut s.after {
            after.downtime_hours = after.downtime_hours.min(2);
        }
    }
    static FRONTIERS: OnceLock<check::Loaded> = OnceLock::new();
    let ruleset = FRONTIERS.get_or_init(|| Ok(tempo_fuzz::frontiers().clone()));
    let options = testing::Options { bless: false, keep_traces: true, limits: Default::default() };
    let outcome = check::run_test("fuzzed", Path::new("fuzzed.test.ron"), &test, ruleset, options, Path::new("."));
    render(&[outcome]);
}

fn on_disk(text: &str, bless: bool) {
    let f = fixture();
    let before = listing(&f.base);
    let fuzzed = f.tests.join("fuzzed.test.ron");
    std::fs::write(&fuzzed, text).expect("the fuzzed test file");
    let found = [
        Found { name: "fuzzed".into(), path: fuzzed.clone(), root: f.tests.clone() },
        Found { name: "other".into(), path: f.tests.join("other.test.ron"), root: f.tests.clone() },
    ];
    let options = testing::Options { bless, keep_traces: true, limits: Default::default() };
    let outcomes = testing::run_all(&found, options);
    let shown = render(&outcomes);
    let leaked =
        outcomes.iter().any(|o| o.message.contains(SECRET) || o.traces.iter().any(|(_, t)| t.contains(SECRET)));
    assert!(!leaked && !shown.contains(SECRET), "a file outside the folders was printed");
    // What was there is as it was (golden traces aside), and the new files are golden traces.
    let mut after = listing(&f.base);
    after.retain(|p| *p != fuzzed);
    let mut new: Vec<&PathBuf> = after.iter().filter(|p| !before.contains(p)).collect();
    new.retain(|p| !p.starts_with(&f.tests) || p.parent() != Some(f.tests.as_path()) || p.is_dir());
    assert!(new.is_empty(), "written outside the test's folder, or made a folder: {new:?}");
    let written: Vec<&PathBuf> = after.iter().filter(|p| !before.contains(p)).collect();
    let shared = &f.files[f.files.len() - 1];
    let shared_changed = std::fs::read(&shared.0).ok().as_deref() != Some(shared.1.as_slice());
    for (path, bytes) in &f.files[..f.files.len() - 1] {
        assert!(std::fs::read(path).ok().as_deref() == Some(bytes.as_slice()), "`--bless` wrote over {path:?}");
    }
    let refused = outcomes.iter().any(|o| o.message.contains("tempo::bless-refused"));
    assert!(
        !refused || (written.is_empty() && !shared_changed),
        "`--bless` refused a golden trace and still wrote {written:?} (shared.trace changed: {shared_changed})"
    );
    assert!(bless || (written.is_empty() && !shared_changed), "a golden trace was written without --bless");
    // The next input starts from the same folder.
    for p in written {
        let _ = std::fs::remove_file(p);
    }
    if shared_changed {
        std::fs::write(&shared.0, &shared.1).expect("shared.trace again");
    }
    let _ = std::fs::remove_file(&fuzzed);
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(test) = file::parse(&text) else { return };
    let small = test.seeds.len() <= 3
        && test
            .scenario
            .as_ref()
            .is_none_or(|s| s.rounds <= tempo_fuzz::ROUNDS && s.after.as_ref().is_none_or(|a| a.downtime_hours <= 2));
    in_memory(test);
    if small {
        on_disk(&text, data.len() % 2 == 1);
    }
});
