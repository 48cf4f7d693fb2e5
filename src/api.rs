//! The embedding API: what a program built on tempo needs, from memory, with no files, threads
//! or terminal. The browser playground and any later binding use this module; everything in it
//! builds with `--no-default-features` (and so for `wasm32-unknown-unknown`).
//!
//! The pipeline, one call a stage: [`compile`] rules held in [`Sources`] (their diagnostics as
//! text with [`diagnostics_text`] or as the JSON of `tempo check --format json` with
//! [`diagnostics_json`]); read a [`scenario`]; [`run`] an encounter into a trace, or
//! [`run_into`] any [`Sink`]; [`simulate`] many; [`format`] a file; make its cheat [`sheet`].
//!
//! ```
//! use tempo::api;
//!
//! let rules = "ruleset duel\n\
//!     initiative { value 0; ties table }\n\
//!     round { phase act: turns }\n\
//!     stat hp_max = 10\n\
//!     pool ap { max 2; refresh at turn_start }\n\
//!     pool hp { max hp_max }\n\
//!     action strike { cost 1 ap; target enemy; resolve { target.hp -= 3 } }\n";
//! let sources = api::Sources::new().with("duel.rules", rules);
//! let compiled = api::compile(&sources, "duel.rules");
//! assert!(!compiled.has_errors(), "{}", api::diagnostics_text(&compiled, 80));
//! let ruleset = compiled.ruleset.expect("no errors, so an IR");
//!
//! let scenario = api::scenario(
//!     r#"(seed: 1, rounds: 1, participants: [
//!         (name: "A", side: "a", controller: Policy(Aggressive)),
//!         (name: "B", side: "b", controller: Policy(Aggressive)),
//!     ])"#,
//! )
//! .expect("a scenario");
//! let trace = api::run(&ruleset, &scenario, None, api::TraceOptions::default()).expect("it fits");
//! assert!(trace.error.is_none());
//! assert!(trace.text.contains("A uses strike"), "{}", trace.text);
//! ```

use crate::check::{self, MemoryLoader};
use crate::diagnostics::render;
use crate::run::sink::{self, Writer};
use std::path::Path;

pub use crate::check::Compilation;
pub use crate::diagnostics::Diagnostic;
pub use crate::doc::Sheet;
pub use crate::fmt::FormatError;
pub use crate::ir::Ruleset;
pub use crate::run::scenario::Scenario;
pub use crate::run::{RunError, Runner, Sink};
pub use crate::sim::compare::Comparison;
use crate::sim::layout::Layout;
pub use crate::sim::summary::Summary;
use crate::sim::totals::Totals;

/// Rules files held in memory, by path: a file's `extends` reads among them, relative to its
/// own path as on disk.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    loader: MemoryLoader,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Adds (or, for a path already held, replaces) a file.
    pub fn with(mut self, path: &str, text: &str) -> Sources {
        self.insert(path, text);
        self
    }

    /// Adds a file, or replaces the text of one already held at that path.
    pub fn insert(&mut self, path: &str, text: &str) {
        let files = &mut self.loader.files;
        match files.iter_mut().find(|(p, _)| p.as_path() == Path::new(path)) {
            Some((_, held)) => *held = text.as_bytes().to_vec(),
            None => files.push((path.into(), text.as_bytes().to_vec())),
        }
    }
}

/// Compiles the file at `path` among `sources`: every diagnostic of every file of its chain,
/// and the IR when there is no error (`Compilation::ruleset`).
pub fn compile(sources: &Sources, path: &str) -> Compilation {
    check::compile_with(&sources.loader, Path::new(path))
}

/// The diagnostics as `tempo check` prints them (without colour), `width` columns wide.
pub fn diagnostics_text(compilation: &Compilation, width: usize) -> String {
    render::to_text(&compilation.diagnostics, &compilation.sources, render::TextStyle { color: false, width })
}

/// The diagnostics as the JSON document of `tempo check --format json` (contracts.md).
pub fn diagnostics_json(compilation: &Compilation) -> String {
    render::to_json(&compilation.diagnostics, &compilation.sources)
}

/// The text in the canonical layout (docs/formatting.md); a text that does not parse is
/// refused with its syntax diagnostics.
pub fn format(text: &str) -> Result<String, FormatError> {
    crate::fmt::format_source(text)
}

/// The IR as `tempo compile` writes it (RON).
pub fn ir_to_ron(ruleset: &Ruleset) -> Result<String, String> {
    ruleset.to_ron().map_err(|e| e.to_string())
}

/// An IR written by `tempo compile` or [`ir_to_ron`].
pub fn ir_from_ron(text: &str) -> Result<Ruleset, String> {
    Ruleset::from_ron(text)
}

/// A scenario (docs/scenario.md). Whether it fits a ruleset is checked when it is run.
pub fn scenario(text: &str) -> Result<Scenario, String> {
    crate::run::scenario::parse(text)
}

/// How [`run`] writes its trace; the default is `tempo run`'s text with the ruleset's labels.
#[derive(Debug, Clone, Copy, Default)]
pub struct TraceOptions {
    /// JSON lines (contracts.md, "Traces") instead of text.
    pub jsonl: bool,
    /// Text: each line ends with its event number and the rule that caused it (`--why`).
    pub why: bool,
    /// Text: routine pool bookkeeping left out (`--quiet`).
    pub quiet: bool,
    /// Text: the ruleset's names instead of its labels (`--names`).
    pub names: bool,
    /// A `decision` event for each policy decision (`--decisions`).
    pub decisions: bool,
}

/// A played encounter: its trace, and the problem that stopped it early, if one did (the
/// trace then holds everything up to it).
#[derive(Debug)]
pub struct Trace {
    pub text: String,
    pub error: Option<RunError>,
}

/// Plays one encounter as `tempo run` does; `seed` overrides the scenario's. An error is a
/// scenario that does not fit the ruleset (nothing was played).
pub fn run(
    ruleset: &Ruleset,
    scenario: &Scenario,
    seed: Option<u64>,
    options: TraceOptions,
) -> Result<Trace, RunError> {
    let format = if options.jsonl { sink::Format::Jsonl } else { sink::Format::Text };
    let labels = (!options.names).then(|| crate::run::labels::Labels::new(ruleset));
    let writer = Writer::new(Vec::new(), format, &ruleset.files)
        .why(options.why)
        .quiet(options.quiet)
        .labels(labels)
        .hide_downed(ruleset, scenario);
    let mut runner = Runner::new(ruleset, scenario, writer)?.decisions(options.decisions);
    let played = runner.play(seed);
    // Writing into memory cannot fail.
    let bytes = runner.into_sink().finish().unwrap_or_default();
    Ok(Trace { text: String::from_utf8_lossy(&bytes).into_owned(), error: played.err() })
}

/// Plays one encounter into `sink` (a vector of records, a count, a writer of one's own).
pub fn run_into<S: Sink>(ruleset: &Ruleset, scenario: &Scenario, seed: Option<u64>, sink: S) -> Result<S, RunError> {
    crate::run::run_into(ruleset, scenario, seed, sink)
}

/// Plays `runs` encounters as `tempo sim` does (run i with a seed derived from `seed`, or the
/// scenario's, and i) and summarises them; `name` is the ruleset's name in the summary (name the
/// scenario, and any changes it was played under, with `Summary::measured`). The
/// same summary whatever the number of threads, and with none.
pub fn simulate(
    ruleset: &Ruleset,
    scenario: &Scenario,
    name: &str,
    runs: u64,
    seed: Option<u64>,
) -> Result<Summary, RunError> {
    let layout = crate::sim::layout(ruleset, scenario)?;
    let seed = seed.unwrap_or(scenario.seed);
    let batch = crate::sim::Batch { seed, runs: 0..runs };
    let totals = crate::sim::simulate(ruleset, scenario, &layout, &batch, None, &|_| {})?;
    Ok(crate::sim::summary::summarise(name, seed, &layout, &totals))
}

/// A simulation played a part at a time, for a caller that shows progress and may stop between
/// parts (the browser playground, which has no threads): the same runs and, once every part is
/// played, the same summary as [`simulate`], since each part's totals are merged exactly.
pub struct Simulation {
    ruleset: Ruleset,
    scenario: Scenario,
    layout: Layout,
    name: String,
    seed: u64,
    runs: u64,
    totals: Totals,
    done: u64,
}

impl Simulation {
    /// `runs` encounters of `scenario` under `ruleset`, seeded as [`simulate`] seeds them;
    /// refused, before anything is played, when the scenario does not fit the ruleset.
    pub fn new(
        ruleset: Ruleset,
        scenario: Scenario,
        name: &str,
        runs: u64,
        seed: Option<u64>,
    ) -> Result<Simulation, RunError> {
        let layout = crate::sim::layout(&ruleset, &scenario)?;
        let seed = seed.unwrap_or(scenario.seed);
        let totals = Totals::new(&layout);
        Ok(Simulation { ruleset, scenario, layout, name: name.to_string(), seed, runs, totals, done: 0 })
    }

    /// Plays the next `at_most` runs (fewer at the end) and returns how many are played in all.
    pub fn step(&mut self, at_most: u64) -> Result<u64, RunError> {
        let end = self.done.saturating_add(at_most.max(1)).min(self.runs);
        let batch = crate::sim::Batch { seed: self.seed, runs: self.done..end };
        let part = crate::sim::simulate(&self.ruleset, &self.scenario, &self.layout, &batch, None, &|_| {})?;
        self.totals.try_merge(&part).map_err(RunError::rule)?;
        self.done = end;
        Ok(end)
    }

    /// How many runs are played so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// Whether every run is played.
    pub fn finished(&self) -> bool {
        self.done >= self.runs
    }

    /// The summary of the runs played so far.
    pub fn summary(&self) -> Summary {
        crate::sim::summary::summarise(&self.name, self.seed, &self.layout, &self.totals)
    }
}

/// Plays `runs` encounters of `scenario` under `a` and under `b`, run i of both with the same
/// seed, as `tempo compare` does; `names` label the two sides.
pub fn compare(
    rules: (&Ruleset, &Ruleset),
    scenario: &Scenario,
    names: (&str, &str),
    runs: u64,
    seed: Option<u64>,
) -> Result<Comparison, RunError> {
    let (a, b) = rules;
    let (la, lb) = (crate::sim::layout(a, scenario)?, crate::sim::layout(b, scenario)?);
    let seed = seed.unwrap_or(scenario.seed);
    let batch = crate::sim::Batch { seed, runs: 0..runs };
    let compared = crate::sim::compare::compare((a, b), (scenario, scenario), (&la, &lb), &batch, None, &|_| {})?;
    Ok(crate::sim::compare::summarise(names, seed, (&la, &lb), &compared))
}

/// A comparison as `tempo compare` prints it.
pub fn compare_text(comparison: &Comparison) -> String {
    crate::sim::compare::to_text(comparison)
}

/// A comparison as the page of `tempo compare --html`.
pub fn compare_html(comparison: &Comparison) -> Result<String, String> {
    crate::sim::html::compare_page(comparison)
}

/// A summary as `tempo sim` prints it.
pub fn summary_text(summary: &Summary) -> String {
    crate::sim::summary::to_text(summary)
}

/// A summary as `tempo sim --format json` writes it.
pub fn summary_json(summary: &Summary) -> String {
    serde_json::to_string_pretty(summary).map(|s| s + "\n").unwrap_or_default()
}

/// A summary as the page of `tempo sim --html` (self-contained, its charts as SVG).
pub fn summary_html(summary: &Summary) -> Result<String, String> {
    crate::sim::html::sim_page(summary)
}

/// The cheat sheet of the file at `path` among `sources` (`tempo doc`): made only when the chain
/// compiles without errors; the compilation is returned either way, for its diagnostics.
pub fn sheet(sources: &Sources, path: &str) -> (Compilation, Option<Sheet>) {
    crate::doc::generate(&sources.loader, Path::new(path))
}

/// A sheet as Markdown.
pub fn sheet_markdown(sheet: &Sheet) -> String {
    crate::doc::markdown::sheet(sheet)
}

/// What hovering at byte `offset` of the file at `path` among `sources` shows (Markdown, the
/// same as the language server's hover): the name's declaration, doc comment and cheat-sheet
/// entry, or a language word's meaning; `None` off a word or on one that is neither.
pub fn hover(sources: &Sources, path: &str, offset: usize) -> Option<String> {
    let path = Path::new(path);
    let chain = crate::names::Chain::compiled(&sources.loader, path);
    let text = sources.loader.files.iter().find(|(p, _)| p.as_path() == path)?;
    let text = std::str::from_utf8(&text.1).ok()?;
    crate::names::hover(chain.as_ref(), path, text, offset).map(|(value, _)| value)
}

/// A sheet as a self-contained HTML page.
pub fn sheet_html(sheet: &Sheet) -> String {
    crate::doc::html::sheet(sheet)
}
