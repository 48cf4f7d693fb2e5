//! `tempo run`: one encounter played headless, its trace written as it happens; and how a
//! scenario that does not fit its ruleset, or a run that fails, is reported (also for `why`
//! and `sim`).

use super::{Failure, LoadArgs, Outcome};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
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
    load: LoadArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    Text,
    Jsonl,
}

pub fn run(args: RunArgs) -> Outcome {
    let ruleset = super::load_ruleset(&args.rules, args.load)?.ruleset;
    let scenario = super::load_scenario(&args.scenario)?;
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
        (Ok(_), Err(e)) => Err(run_failed(&e)),
    }
}

/// A scenario that does not fit its ruleset: each problem once, at `FILE:LINE:COLUMN` of the
/// name it is about when that name is written in the scenario.
pub fn scenario_failed(e: &tempo::run::RunError, scenario: &Path) -> Failure {
    let tempo::run::RunError::Scenario(problems) = e else { return run_failed(e) };
    let text = super::read_input(scenario).unwrap_or_default();
    eprintln!("error[{}]: the scenario does not fit the ruleset:", e.code().name());
    for problem in problems {
        match tempo::run::scenario::locate(&text, problem) {
            Some((at, _)) => {
                let (line, column) = tempo::run::scenario::line_column(&text, at);
                eprintln!("  {}:{line}:{column}: {problem}", scenario.display());
            }
            None => eprintln!("  {}: {problem}", scenario.display()),
        }
    }
    Failure::Problems
}

/// A run that could not finish, as a diagnostic line with its code.
pub fn run_failed(e: &tempo::run::RunError) -> Failure {
    super::problem(e.code(), e)
}
