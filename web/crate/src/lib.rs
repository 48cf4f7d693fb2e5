//! tempo's embedding API (`tempo::api`) for the playground's Web Worker: every call takes and
//! returns strings (JSON where it has parts), so the JavaScript side needs no generated classes.

use serde_json::{json, Value};
use std::cell::RefCell;
use tempo::api::{self, Sources};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The worker's handler for a Rust panic (which should not happen): it reports the message
    /// and the page starts a new worker, since the module may be left in a broken state.
    #[wasm_bindgen(js_namespace = self, js_name = tempoPanic)]
    fn tempo_panic(message: &str);
}

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| tempo_panic(&info.to_string())));
}

/// The files of a JSON object `{path: text}`.
fn sources(files: &str) -> Result<Sources, String> {
    let map: serde_json::Map<String, Value> =
        serde_json::from_str(files).map_err(|e| format!("the files are not a JSON object: {e}"))?;
    let mut sources = Sources::new();
    for (path, text) in &map {
        sources.insert(path, text.as_str().unwrap_or_default());
    }
    Ok(sources)
}

/// The diagnostics of a compilation, as the JSON of `tempo check --format json` and as its text.
fn diagnostics(compilation: &api::Compilation) -> Value {
    let parsed: Value = serde_json::from_str(&api::diagnostics_json(compilation)).unwrap_or(Value::Null);
    json!({
        "diagnostics": parsed.get("diagnostics").cloned().unwrap_or(Value::Array(Vec::new())),
        "text": api::diagnostics_text(compilation, 100),
    })
}

fn failure(message: impl Into<String>) -> String {
    json!({ "error": message.into() }).to_string()
}

/// A seed given as decimal text; none when empty.
fn seed(text: &str) -> Result<Option<u64>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| format!("the seed `{text}` is not a whole number from 0 to 2^64 - 1"))
}

/// Compiles `path` among `files`: `{diagnostics, text}` and, with no error, the ruleset.
fn compiled(files: &str, path: &str) -> Result<(Value, Option<api::Ruleset>), String> {
    let compilation = api::compile(&sources(files)?, path);
    let report = diagnostics(&compilation);
    Ok((report, compilation.ruleset))
}

/// `tempo check`: `{diagnostics: [...], text}`.
#[wasm_bindgen]
pub fn check(files: &str, path: &str) -> String {
    match compiled(files, path) {
        Ok((report, _)) => report.to_string(),
        Err(e) => failure(e),
    }
}

/// `tempo fmt`: `{text}` in the canonical layout, or `{error}` with the syntax diagnostics.
#[wasm_bindgen]
pub fn format(text: &str) -> String {
    match api::format(text) {
        Ok(text) => json!({ "text": text }).to_string(),
        Err(e) => failure(e.to_string()),
    }
}

/// `tempo run`: `{check, trace, error}`; `check` holds the diagnostics when the rules have errors
/// (nothing is played then).
#[wasm_bindgen]
pub fn run(files: &str, path: &str, scenario: &str, why: bool, seed_text: &str) -> String {
    let (report, ruleset) = match compiled(files, path) {
        Ok(c) => c,
        Err(e) => return failure(e),
    };
    let Some(ruleset) = ruleset else { return json!({ "check": report }).to_string() };
    let outcome = seed(seed_text).and_then(|seed| {
        let scenario = api::scenario(scenario).map_err(|e| format!("the scenario: {e}"))?;
        let options = api::TraceOptions { why, ..api::TraceOptions::default() };
        api::run(&ruleset, &scenario, seed, options).map_err(|e| format!("error[{}]: {e}", e.code().name()))
    });
    match outcome {
        Ok(trace) => json!({
            "check": report,
            "trace": trace.text,
            "error": trace.error.map(|e| format!("error[{}]: {e}", e.code().name())),
        })
        .to_string(),
        Err(e) => json!({ "check": report, "error": e }).to_string(),
    }
}

thread_local! {
    /// The simulation being played a part at a time (one per worker).
    static SIMULATION: RefCell<Option<api::Simulation>> = const { RefCell::new(None) };
}

/// Starts `tempo sim`: `{check, runs}` when it can be played (then `sim_step` plays it),
/// `{check, error}` when not.
#[wasm_bindgen]
pub fn sim_start(files: &str, path: &str, scenario: &str, runs: f64, seed_text: &str) -> String {
    SIMULATION.with(|s| s.replace(None));
    let (report, ruleset) = match compiled(files, path) {
        Ok(c) => c,
        Err(e) => return failure(e),
    };
    let Some(ruleset) = ruleset else { return json!({ "check": report }).to_string() };
    let name = path.rsplit('/').next().unwrap_or(path).to_string();
    let started = seed(seed_text).and_then(|seed| {
        let scenario = api::scenario(scenario).map_err(|e| format!("the scenario: {e}"))?;
        // Whole runs only; f64 holds every count a browser will play.
        let runs = if runs.is_finite() && runs >= 1.0 { runs as u64 } else { 1 };
        api::Simulation::new(ruleset, scenario, &name, runs, seed)
            .map_err(|e| format!("error[{}]: {e}", e.code().name()))
    });
    match started {
        Ok(simulation) => {
            SIMULATION.with(|s| s.replace(Some(simulation)));
            json!({ "check": report, "ok": true }).to_string()
        }
        Err(e) => json!({ "check": report, "error": e }).to_string(),
    }
}

/// Plays up to `at_most` more runs: `{done, finished}`, or `{error}`.
#[wasm_bindgen]
pub fn sim_step(at_most: f64) -> String {
    SIMULATION.with(|s| match s.borrow_mut().as_mut() {
        Some(simulation) => match simulation.step(at_most.max(1.0) as u64) {
            Ok(done) => json!({ "done": done, "finished": simulation.finished() }).to_string(),
            Err(e) => failure(format!("error[{}]: {e}", e.code().name())),
        },
        None => failure("no simulation is started"),
    })
}

/// The summary of the runs played so far: `{text, html}` (the page of `tempo sim --html`).
#[wasm_bindgen]
pub fn sim_summary(scenario_name: &str) -> String {
    SIMULATION.with(|s| match s.borrow().as_ref() {
        Some(simulation) => {
            let summary = simulation.summary().measured(scenario_name, &[], &[]);
            json!({
                "text": api::summary_text(&summary),
                "html": api::summary_html(&summary).unwrap_or_else(|e| format!("<p>{e}</p>")),
            })
            .to_string()
        }
        None => failure("no simulation is started"),
    })
}

/// `tempo compare A B SCENARIO`: `{text, html}`, or `{check_a, check_b, error}`.
#[wasm_bindgen]
pub fn compare(files: &str, paths: &str, scenario: &str, names: &str, runs: f64, seed_text: &str) -> String {
    let [path_a, path_b]: [&str; 2] = match paths.split('\n').collect::<Vec<_>>().try_into() {
        Ok(p) => p,
        Err(_) => return failure("two paths, one a line"),
    };
    let (scenario_name, label_a, label_b) = {
        let mut n = names.split('\n');
        (n.next().unwrap_or_default(), n.next().unwrap_or(path_a), n.next().unwrap_or(path_b))
    };
    let (a, b) = match (compiled(files, path_a), compiled(files, path_b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return failure(e),
    };
    let (Some(ra), Some(rb)) = (a.1, b.1) else {
        return json!({ "check_a": a.0, "check_b": b.0, "error": "a ruleset has errors" }).to_string();
    };
    let outcome = seed(seed_text).and_then(|seed| {
        let scenario = api::scenario(scenario).map_err(|e| format!("the scenario: {e}"))?;
        let runs = if runs.is_finite() && runs >= 1.0 { runs as u64 } else { 1 };
        api::compare((&ra, &rb), &scenario, (label_a, label_b), runs, seed)
            .map_err(|e| format!("error[{}]: {e}", e.code().name()))
    });
    match outcome {
        Ok(c) => {
            let c = c.measured(scenario_name, None, &[], &[]);
            json!({
                "text": api::compare_text(&c),
                "html": api::compare_html(&c).unwrap_or_else(|e| format!("<p>{e}</p>")),
            })
            .to_string()
        }
        Err(e) => json!({ "check_a": a.0, "check_b": b.0, "error": e }).to_string(),
    }
}

/// `tempo doc --html`: `{html}`, or `{check}` when the rules have errors.
#[wasm_bindgen]
pub fn sheet(files: &str, path: &str) -> String {
    let sources = match sources(files) {
        Ok(s) => s,
        Err(e) => return failure(e),
    };
    match api::sheet(&sources, path) {
        (_, Some(sheet)) => json!({ "html": api::sheet_html(&sheet) }).to_string(),
        (compilation, None) => json!({ "check": diagnostics(&compilation) }).to_string(),
    }
}

/// What hovering at byte `offset` of `path` shows (Markdown, as the language server's hover):
/// `{text}`, or `{}` where nothing is shown.
#[wasm_bindgen]
pub fn hover(files: &str, path: &str, offset: f64) -> String {
    let sources = match sources(files) {
        Ok(s) => s,
        Err(e) => return failure(e),
    };
    let offset = if offset.is_finite() && offset >= 0.0 { offset as usize } else { 0 };
    match api::hover(&sources, path, offset) {
        Some(text) => json!({ "text": text }).to_string(),
        None => "{}".to_string(),
    }
}
