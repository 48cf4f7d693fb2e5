//! Running one test file: its ruleset loaded, its scenario played for each seed, every
//! expectation held against the trace.
// Without `fs` nothing reaches the running of a test file (its entry points read files), but
// the expectations stay in the core: what is only run from those entry points is unused there.
#![cfg_attr(not(feature = "fs"), allow(dead_code))]

use super::file::{self, FinalState, Pattern, TestFile};
use super::golden;
use crate::check::Limits;
#[cfg(feature = "fs")]
use crate::check::RulesetError;
#[cfg(feature = "fs")]
use crate::diagnostics::render::{self, TextStyle};
use crate::ir::Ruleset;
use crate::run::{self, sink, trace};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How tests run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Write golden files instead of comparing with them.
    pub bless: bool,
    /// Keep each seed's text trace in the outcome (to show it).
    pub keep_traces: bool,
    /// How rulesets are read, as for `tempo run` (`--allow-outside`).
    pub limits: Limits,
}

/// What one test came to.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub name: String,
    pub file: PathBuf,
    pub passed: bool,
    /// Why it failed (empty when it passed); a golden file written says so.
    pub message: String,
    /// The text trace of each seed run, when `Options::keep_traces`.
    pub traces: Vec<(Option<u64>, String)>,
}

/// A ruleset loaded for tests: compiled, or the reason it is not (rendered diagnostics with the
/// first error's code, or why the file cannot be read).
pub type Loaded = Result<Ruleset, LoadError>;

#[derive(Debug, Clone)]
pub struct LoadError {
    /// The first error's diagnostic code, when there is one.
    pub codes: Vec<String>,
    pub message: String,
    /// Every file read while loading it (its `extends` chain): what `--bless` must never write.
    pub files: Vec<PathBuf>,
}

/// Every file a loaded ruleset was read from: the ruleset and its `extends` chain, base first
/// (for an IR, the files it was compiled from, as it names them).
pub fn files_of(loaded: &Loaded) -> Vec<PathBuf> {
    match loaded {
        Ok(r) => r.files.iter().map(PathBuf::from).collect(),
        Err(e) => e.files.clone(),
    }
}

/// Loads a ruleset as `tempo run` does (`check::load_ruleset`): `.rules` compiled under
/// `limits`, `.ron` read as IR.
#[cfg(feature = "fs")]
pub fn load_ruleset(path: &Path, limits: Limits) -> Loaded {
    match crate::check::load_ruleset(path, limits) {
        Ok(loaded) => Ok(loaded.ruleset),
        Err(RulesetError::Unreadable(message)) => Err(LoadError { codes: Vec::new(), message, files: Vec::new() }),
        Err(RulesetError::NotIr(message)) => {
            Err(LoadError { codes: vec![crate::diagnostics::Code::BadIr.name()], message, files: Vec::new() })
        }
        Err(RulesetError::Compile(compilation)) => {
            let errors: Vec<_> = compilation.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
            let shown = render::to_text(&errors, &compilation.sources, TextStyle { color: false, width: 100 });
            Err(LoadError {
                codes: errors.iter().map(|d| d.code.name()).collect(),
                message: format!("`{}` does not compile:\n{shown}", path.display()),
                files: compilation.sources.names().map(PathBuf::from).collect(),
            })
        }
    }
}

/// Most events one seed of a test may write. A test's trace is held whole to check it (in order,
/// anywhere, the golden diff), so a scenario of a billion rounds would fill the memory; a golden
/// encounter is short (the shipped ones write at most a few hundred thousand events), and one past this is refused.
pub const MAX_TEST_EVENTS: usize = 1_000_000;

/// Keeps a run's events up to [`MAX_TEST_EVENTS`], then stops the run.
#[derive(Default)]
struct Capped {
    records: Vec<trace::Record>,
    over: bool,
}

impl sink::Sink for Capped {
    fn record(&mut self, record: trace::Record) {
        if self.records.len() < MAX_TEST_EVENTS {
            self.records.push(record);
        } else {
            self.over = true;
        }
    }

    fn stopped(&self) -> bool {
        self.over
    }
}

/// Plays one seed, its events kept up to the cap; a run past it is an error that says so.
fn play(
    ruleset: &Ruleset,
    scenario: &run::scenario::Scenario,
    seed: Option<u64>,
    at: &str,
) -> Result<Result<Vec<trace::Record>, run::RunError>, String> {
    let mut capped = Capped::default();
    let result = run::run_into(ruleset, scenario, seed, &mut capped).map(|_| ());
    if capped.over {
        return Err(format!(
            "the trace is longer than {MAX_TEST_EVENTS} events{at}: a test holds its trace in memory to check it, \
             so it plays short encounters (fewer `rounds`); `tempo run` streams a long one"
        ));
    }
    Ok(result.map(|_| capped.records))
}

/// Runs one parsed test under its loaded ruleset; with `bless`, writes its golden trace (never
/// over its test file, its ruleset's files or its scenario file). `root`: the folder its scenario
/// file must lie in (`within`), unless `options.limits.allow_outside`. Public so a test held in
/// memory can be run against a ruleset held in memory (the `test_file` fuzz target); `path`
/// places the files the test names (`scenario_file`, `golden`), read only when it names them.
pub fn run_test(name: &str, path: &Path, test: &TestFile, ruleset: &Loaded, options: Options, root: &Path) -> Outcome {
    let (outcome, planned) = plan(name, path, test, ruleset, options, root);
    match planned {
        #[cfg(feature = "fs")]
        Some(planned) => {
            let mut inputs = files_of(ruleset);
            inputs.push(path.to_path_buf());
            inputs.push(file::beside(path, &test.ruleset));
            inputs.extend(test.scenario_file.as_deref().map(|f| file::beside(path, f)));
            let mut outcomes = [outcome];
            super::bless::write_all(&[(0, planned)], &mut outcomes, &inputs, false);
            let [outcome] = outcomes;
            outcome
        }
        _ => outcome,
    }
}

/// Runs one test; with `bless`, the golden trace to write (not written yet: `bless::write_all`
/// writes a run's all together, or none).
pub(crate) fn plan(
    name: &str,
    path: &Path,
    test: &TestFile,
    ruleset: &Loaded,
    options: Options,
    root: &Path,
) -> (Outcome, Option<golden::Pending>) {
    let mut outcome = Outcome {
        name: name.to_string(),
        file: path.to_path_buf(),
        passed: true,
        message: String::new(),
        traces: Vec::new(),
    };
    let root = (!options.limits.allow_outside).then_some(root);
    match check(path, test, ruleset, options, root, &mut outcome) {
        Ok(planned) => (outcome, planned),
        Err(problem) => {
            outcome.passed = false;
            outcome.message = problem;
            (outcome, None)
        }
    }
}

fn check(
    path: &Path,
    test: &TestFile,
    ruleset: &Loaded,
    options: Options,
    root: Option<&Path>,
    outcome: &mut Outcome,
) -> Result<Option<golden::Pending>, String> {
    if !test.expects_something() {
        return Err("the test expects nothing: give it `expect`, `events`, `final`, `error`, `golden` or another \
                    expectation"
            .into());
    }
    let golden_at = test.golden.as_deref().map(|g| golden::locate(path, g)).transpose()?;
    let mut scenario = file::scenario_of(test, path, root)?;
    let ruleset = match (ruleset, &test.error) {
        (Ok(r), _) => r,
        (Err(e), Some(code)) if e.codes.iter().any(|c| c == code) => return Ok(None),
        (Err(e), _) => return Err(e.message.clone()),
    };
    // The ruleset is shared by the tests of a folder: a test that sets a default sets its own copy.
    let set_ruleset;
    let ruleset = if test.set.is_empty() {
        ruleset
    } else {
        let mut r = ruleset.clone();
        for written in &test.set {
            let f = run::scenario::parse_set(written).map_err(|e| format!("set: {e}"))?;
            run::scenario::apply_set(&mut scenario, &mut r, &f).map_err(|p| format!("set `{written}`: {p}"))?;
        }
        set_ruleset = r;
        &set_ruleset
    };
    let seeds: Vec<Option<u64>> =
        if test.seeds.is_empty() { vec![None] } else { test.seeds.iter().copied().map(Some).collect() };
    let mut golden_text = String::new();
    for seed in seeds {
        let at = seed.map(|s| format!(" (seed {s})")).unwrap_or_default();
        let records = match (play(ruleset, &scenario, seed, &at)?, &test.error) {
            (Ok(records), None) => records,
            (Ok(records), Some(code)) => {
                return Err(format!(
                    "expected the run to stop with {code}{at}, it finished:\n{}",
                    trace::to_text(&records)
                ))
            }
            (Err(e), Some(code)) => {
                let got = e.code().name();
                if got != *code {
                    return Err(format!("expected {code}{at}, got {got}: {e}"));
                }
                continue;
            }
            (Err(e), None) => return Err(format!("the run failed{at}: [{}] {e}", e.code().name())),
        };
        let text = trace::to_text(&records);
        if options.keep_traces {
            outcome.traces.push((seed, text.clone()));
        }
        // Text fragments may be written as `tempo run` prints them (with the ruleset's labels) or
        // with its names (`--names`, golden traces).
        let labelled = trace::to_text_labelled(&records, &run::labels::Labels::new(ruleset));
        expectations(test, &records, &ruleset.files, [&text, &labelled], &at)?;
        if test.golden.is_some() {
            golden::append(&mut golden_text, seed.unwrap_or(scenario.seed), &text);
        }
    }
    match golden_at {
        // A golden trace stays in its test's own folder, links followed, whatever `--allow-outside` says.
        Some(at) => golden::compare(&at, &golden_text, options.bless, &file::folder_of(path)),
        None => Ok(None),
    }
}

/// Every expectation of the test against one seed's trace.
fn expectations(
    test: &TestFile,
    records: &[trace::Record],
    files: &[String],
    [text, labelled]: [&str; 2],
    at: &str,
) -> Result<(), String> {
    // `expect` in order in one of the two texts, the names' first; `absent` in neither.
    let in_order = |text: &str| -> Result<(), String> {
        let mut from = 0;
        for want in &test.expect {
            match text[from..].find(want.as_str()) {
                Some(i) => from += i + want.len(),
                None => return Err(format!("`{want}` not found (in order){at} in the trace:\n{text}")),
            }
        }
        Ok(())
    };
    if let Err(named) = in_order(text) {
        if labelled == text || in_order(labelled).is_err() {
            return Err(named);
        }
    }
    for never in &test.absent {
        if text.contains(never.as_str()) || labelled.contains(never.as_str()) {
            return Err(format!("`{never}` must not appear{at}, trace:\n{text}"));
        }
    }
    if !(test.events.is_empty() && test.anywhere.is_empty() && test.never.is_empty()) {
        let lines = sink::to_jsonl(records, files);
        let lines: Vec<&str> = lines.lines().collect();
        let events = lines
            .iter()
            .map(|line| serde_json::from_str(line).map_err(|e| format!("an event is not JSON ({e}): {line}")))
            .collect::<Result<Vec<serde_json::Value>, String>>()?;
        let mut next = 0;
        for (k, pattern) in test.events.iter().enumerate() {
            match events[next..].iter().position(|e| matches(pattern, e)) {
                Some(i) => next += i + 1,
                None => {
                    let hint = if events.iter().any(|e| matches(pattern, e)) {
                        " (it happens, but not after the events before it in the list)"
                    } else {
                        ""
                    };
                    return Err(format!("events[{k}] {} not found in order{at}{hint}; trace:\n{text}", shown(pattern)));
                }
            }
        }
        for pattern in &test.anywhere {
            if !events.iter().any(|e| matches(pattern, e)) {
                return Err(format!("anywhere: {} never happens{at}; trace:\n{text}", shown(pattern)));
            }
        }
        for pattern in &test.never {
            if let Some(i) = events.iter().position(|e| matches(pattern, e)) {
                return Err(format!("never: {} happens{at}: {}", shown(pattern), lines[i]));
            }
        }
    }
    if !test.final_state.is_empty() {
        final_state(&test.final_state, records, at)?;
    }
    Ok(())
}

/// Whether every field the pattern names is in the event with an equal value.
fn matches(pattern: &Pattern, event: &serde_json::Value) -> bool {
    pattern.iter().all(|(field, want)| event.get(field).is_some_and(|got| same(want, got)))
}

/// JSON equality, with numbers compared as numbers (`2` equals `2.0`).
fn same(want: &serde_json::Value, got: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (want, got) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same(x, y)))
        }
        _ => want == got,
    }
}

fn shown(pattern: &Pattern) -> String {
    serde_json::to_string(pattern).unwrap_or_else(|_| format!("{pattern:?}"))
}

fn final_state(want: &BTreeMap<String, FinalState>, records: &[trace::Record], at: &str) -> Result<(), String> {
    let Some((state, sides)) = records.iter().rev().find_map(|r| match &r.event {
        trace::Event::EncounterEnd { state, sides, .. } => Some((state, sides)),
        _ => None,
    }) else {
        return Err(format!("the run wrote no `encounter_end`{at}"));
    };
    let mut problems = Vec::new();
    for (who, expected) in want {
        // A participant, or a side by its pools kept `per side` (it holds no conditions).
        let named = |name: &trace::Name| &**name == who.as_str();
        let got = match (state.iter().find(|(name, _)| named(name)), sides.iter().find(|(name, _)| named(name))) {
            (Some((_, s)), _) => (&s.pools, Some(&s.conditions)),
            (None, Some((_, pools))) => (pools, None),
            (None, None) => {
                let names: Vec<&str> = state.keys().chain(sides.keys()).map(|n| &**n).collect();
                let what = if sides.is_empty() { "participant" } else { "participant or side" };
                problems.push(format!("final: no {what} `{who}` (there are {})", names.join(", ")));
                continue;
            }
        };
        for (pool, value) in &expected.pools {
            match got.0.iter().find(|(name, _)| &***name == pool.as_str()) {
                Some((_, v)) if v == value => {}
                Some((_, v)) => problems.push(format!("final: {who}'s {pool} is {v}, not {value}")),
                None => {
                    let pools: Vec<&str> = got.0.keys().map(|n| &**n).collect();
                    problems.push(format!("final: {who} has no pool `{pool}` (pools: {})", pools.join(", ")));
                }
            }
        }
        if let Some(conditions) = &expected.conditions {
            let mut want: Vec<&str> = conditions.iter().map(String::as_str).collect();
            let mut held: Vec<&str> = got.1.into_iter().flatten().map(|c| &**c).collect();
            want.sort_unstable();
            held.sort_unstable();
            if want != held {
                problems.push(format!("final: {who} holds [{}], not [{}]", held.join(", "), want.join(", ")));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}{at}", problems.join("\n")))
    }
}
