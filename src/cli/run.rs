//! `tempo run`: one encounter played headless, its trace written as it happens; and how a
//! scenario that does not fit its ruleset, or a run that fails, is reported (also for `why`
//! and `sim`).

use super::{Failure, LoadArgs, Outcome};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use tempo::diagnostics::render;
use tempo::run::sink;

/// Run one encounter headless and print its trace.
///
/// RULES is a `.rules` file or a compiled `.ron` IR; SCENARIO is a RON scenario (see
/// docs/scenario.md). Exit code 0: ran to the end; 1: the ruleset or scenario is wrong, or a
/// rule failed while running (diagnostic on stderr); 2: a file could not be read.
#[derive(Args)]
pub struct RunArgs {
    /// The ruleset: `.rules` source or `.ron` IR from `tempo compile`.
    rules: PathBuf,
    /// The scenario (RON).
    scenario: PathBuf,
    /// Seed for the dice; overrides the scenario's.
    #[arg(long)]
    seed: Option<u64>,
    /// `text` for people, `jsonl` for scripts (one JSON object per line).
    #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
    format: TraceFormat,
    /// Text: end each line with its event number and, for a line a rule caused, where that
    /// rule is written, as `[#SEQ FILE:LINE:COLUMN]` (JSON lines always carry both, as `seq`
    /// and `rule`). `tempo why ... --event SEQ` explains one of them.
    #[arg(long)]
    why: bool,
    /// Text: leave out routine pool bookkeeping (`refresh at turn_start`, `lose at turn_end`
    /// and the other pool steps of timings); what actions, effects, thresholds and choices
    /// change is still shown. JSON lines always hold every event.
    #[arg(long, short)]
    quiet: bool,
    /// Text: show the ruleset's own names (`ap`, `shield_raised`) instead of the labels it
    /// declares for them ("Action Points", "Shield Raised"), as `tempo test` golden traces and
    /// JSON lines do.
    #[arg(long)]
    names: bool,
    /// Write each decision a policy makes with the options it considered (Greedy with the
    /// score of each) and the one it took: a `decision` event in either format.
    #[arg(long)]
    decisions: bool,
    #[command(flatten)]
    changes: super::Changes,
    #[command(flatten)]
    load: LoadArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    Text,
    Jsonl,
}

pub fn run(args: RunArgs) -> Outcome {
    let mut ruleset = super::load_ruleset(&args.rules, args.load)?.ruleset;
    let mut scenario = super::load_scenario(&args.scenario)?;
    args.changes.apply(&mut scenario, &mut [&mut ruleset])?;
    // Events are written as they happen: nothing of the trace is kept in memory, and a run that
    // fails has printed everything up to the failure before the error.
    let format = match args.format {
        TraceFormat::Jsonl => sink::Format::Jsonl,
        TraceFormat::Text => sink::Format::Text,
    };
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    let labels = (!args.names).then(|| tempo::run::labels::Labels::new(&ruleset));
    let writer = sink::Writer::new(out, format, &ruleset.files)
        .why(args.why)
        .quiet(args.quiet)
        .labels(labels)
        .hide_downed(&ruleset, &scenario);
    let mut runner = match tempo::run::Runner::new(&ruleset, &scenario, writer) {
        Ok(runner) => runner.decisions(args.decisions),
        Err(e) => return Err(scenario_failed(&e, &args.scenario)),
    };
    let played = runner.play(args.seed);
    match (runner.into_sink().finish(), played) {
        // The reader stopped reading (`tempo run ... | head`): it has what it wanted.
        (Err(e), _) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        (Err(e), _) => Err(super::cannot(format!("cannot write the trace: {e}"))),
        (Ok(_), Ok(())) => Ok(()),
        (Ok(_), Err(e)) => Err(run_failed(&e, Some(&ruleset))),
    }
}

/// A scenario that does not fit its ruleset: each problem once, shown at its place in the
/// scenario, as `check` shows the ruleset's.
pub fn scenario_failed(e: &tempo::run::RunError, scenario: &Path) -> Failure {
    if !matches!(e, tempo::run::RunError::Scenario(_)) {
        return run_failed(e, None);
    }
    let mut sources = tempo::source::SourceMap::new();
    let file = sources.add(scenario.display().to_string(), super::read_input(scenario).unwrap_or_default());
    let diagnostics = e.diagnostics(&sources, Some((file, &[])), &[]).unwrap_or_default();
    let _ = std::io::stderr().write_all(render::to_text(&diagnostics, &sources, super::text_style()).as_bytes());
    Failure::Problems
}

/// A run that could not finish, as a diagnostic with its code: a rule that failed is shown in
/// its source when the ruleset's files can be read, else named by its place.
pub fn run_failed(e: &tempo::run::RunError, ruleset: Option<&tempo::ir::Ruleset>) -> Failure {
    let Some(r) = ruleset.filter(|_| matches!(e, tempo::run::RunError::Rule { rule: Some(_), .. })) else {
        return super::problem(e.code(), e);
    };
    let (sources, _) = tempo::why::sources_of(r, |name| super::read_input(Path::new(name)).ok());
    match e.diagnostics(&sources, None, &r.files) {
        Some(diagnostics) => {
            let _ =
                std::io::stderr().write_all(render::to_text(&diagnostics, &sources, super::text_style()).as_bytes());
            Failure::Problems
        }
        None => {
            let place = e.rule_place(&r.files).map(|p| format!(" (rule at {p})")).unwrap_or_default();
            super::problem(e.code(), format!("{e}{place}"))
        }
    }
}
