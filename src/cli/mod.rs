//! The command line: one module per command, each with its arguments (their doc comments are
//! the `--help` text) and its handler; here what several share. A handler reports what went
//! wrong on stderr and returns a [`Failure`]; [`exit_code`] is the one place that turns it into
//! the exit code.

mod batch;
pub mod check;
pub mod compile;
pub mod doc;
pub mod explain;
pub mod fmt;
pub mod lsp;
pub mod run;
pub mod sim;
pub mod solve;
pub mod sweep;
pub mod test;
pub mod why;

use clap::{Args, ValueEnum};
use std::fmt::Display;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use tempo::check::{Compilation, Limits, LoadedRuleset, RulesetError};
use tempo::diagnostics::{render, Code};

/// Why a command did not succeed, already reported on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The input has problems: a ruleset with errors, a scenario that does not fit, a rule that
    /// failed while running, a test that failed, a file `fmt --check` would change, a language
    /// client that left without `shutdown`.
    Problems,
    /// The tool could not do its work: a file could not be read or written, an argument names
    /// nothing there is.
    CannotRun,
}

/// What a command's handler returns.
pub type Outcome = Result<(), Failure>;

/// The exit code of a command (../shared/design/contracts.md, and each command's `--help`):
/// 0 done, 1 problems found, 2 it could not run.
pub fn exit_code(outcome: Outcome) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Problems) => ExitCode::from(1),
        Err(Failure::CannotRun) => ExitCode::from(2),
    }
}

/// Prints `error: MESSAGE`: the tool could not do its work.
pub fn cannot(message: impl Display) -> Failure {
    eprintln!("error: {message}");
    Failure::CannotRun
}

/// Prints a problem found outside the compiler's diagnostics (a scenario, a run, an IR) as a
/// diagnostic line with its code.
pub fn problem(code: Code, message: impl Display) -> Failure {
    eprintln!("error[{}]: {message}", code.name());
    Failure::Problems
}

/// How rules files may be read: shared by every command that compiles one.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct LoadArgs {
    /// Let `extends` name files outside the folder of the file given (and its subfolders).
    /// Refused by default, so a ruleset from elsewhere cannot read other files on the machine.
    #[arg(long)]
    pub allow_outside: bool,
}

impl LoadArgs {
    pub fn limits(self) -> Limits {
        Limits { allow_outside: self.allow_outside, ..Limits::default() }
    }
}

/// `text` or `json`, for the commands that write diagnostics or a report.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// How diagnostics are drawn on stderr: colour when it is a terminal and `NO_COLOR` is unset,
/// as wide as `COLUMNS` says.
pub fn text_style() -> render::TextStyle {
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal();
    let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100);
    render::TextStyle { color, width }
}

/// Prints every diagnostic of a compilation on stderr.
pub fn print_diagnostics(compilation: &Compilation) {
    let text = render::to_text(&compilation.diagnostics, &compilation.sources, text_style());
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// What a set of compilations comes to: a file that could not be read beats errors.
pub fn compiled(compilations: &[Compilation]) -> Outcome {
    if compilations.iter().any(|c| c.unreadable) {
        Err(Failure::CannotRun)
    } else if compilations.iter().any(Compilation::has_errors) {
        Err(Failure::Problems)
    } else {
        Ok(())
    }
}

/// Writes `text` to stdout; done also when the reader stopped reading (`| head`). `what` names
/// it in the message when it cannot be written.
pub fn write_stdout(what: &str, text: &str) -> Outcome {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(cannot(format!("cannot write {what}: {e}"))),
    }
}

/// Most threads `--jobs` gives a batch, per core: beyond a few per core, threads only take turns
/// (and a pool of 16,000 took minutes to start and stop).
pub const JOBS_PER_CORE: usize = 4;

/// `--jobs` as the batch is played with (`sim`, `compare`, `sweep`): at most
/// [`JOBS_PER_CORE`] × the cores (at least 1), saying so on stderr when it lowers the value asked.
pub fn jobs(asked: Option<u16>) -> Option<usize> {
    let asked = usize::from(asked?);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let most = cores.saturating_mul(JOBS_PER_CORE).max(1);
    if asked > most {
        eprintln!(
            "note: --jobs {asked} lowered to {most} ({JOBS_PER_CORE} per core on {cores} cores): more threads only take turns"
        );
        return Some(most);
    }
    Some(asked)
}

/// Writes a command's output file through the one writer (`tempo::output`): never over `inputs`
/// (the files the command read, however the name reaches them), a folder, a device or a pipe;
/// atomically. `what` names the output in the message when it is refused ("the IR", "the sheet").
pub fn write_output(
    path: &Path,
    inputs: &[std::path::PathBuf],
    what: &str,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Outcome {
    let guard = tempo::output::Guard { inputs, ..Default::default() };
    tempo::output::write_with(path, guard, what, fill).map_err(cannot)
}

/// The files a compilation read (the file asked for and its bases), for [`write_output`].
pub fn read_files(sources: &tempo::source::SourceMap) -> Vec<std::path::PathBuf> {
    sources.names().map(std::path::PathBuf::from).collect()
}

/// Reads a scenario, an IR or a shard named on the command line (`tempo::check::read_text`).
pub fn read_input(path: &Path) -> Result<String, String> {
    tempo::check::read_text(path, tempo::check::MAX_INPUT_BYTES)
}

/// A ruleset from `.rules` source or `.ron` IR (`tempo::check::load_ruleset`); what is wrong
/// with it printed (for source, every diagnostic) when it is not one.
pub fn load_ruleset(path: &Path, load: LoadArgs) -> Result<LoadedRuleset, Failure> {
    tempo::check::load_ruleset(path, load.limits()).map_err(|e| match e {
        RulesetError::Unreadable(message) => cannot(message),
        RulesetError::NotIr(message) => problem(Code::BadIr, message),
        RulesetError::Compile(compilation) => {
            print_diagnostics(&compilation);
            compiled(std::slice::from_ref(&compilation)).err().unwrap_or(Failure::Problems)
        }
    })
}

/// The scenario with each `--control` given to whom it names, in order (a later one wins); a
/// name that is neither a participant nor a side, or a policy that does not fit a ruleset it is
/// played under (a `HoldBack` pool it lacks), is a problem of the scenario.
pub fn control(
    scenario: &mut tempo::run::scenario::Scenario,
    controls: &[tempo::run::scenario::ControlFlag],
    rulesets: &[&tempo::ir::Ruleset],
) -> Outcome {
    // Each once, though `compare` checks them under both rulesets.
    let mut said: Vec<String> = Vec::new();
    for r in rulesets {
        for p in tempo::run::scenario::check_controls(controls, r) {
            let hint = p.suggestion().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
            let message = format!("{}{hint}", p.message());
            if !said.contains(&message) {
                problem(Code::BadScenario, &message);
                said.push(message);
            }
        }
    }
    if !said.is_empty() {
        return Err(Failure::Problems);
    }
    for c in controls {
        if let Err(p) = tempo::run::scenario::apply_control(scenario, c) {
            let hint = p.suggestion().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
            return Err(problem(Code::BadScenario, format!("--control {}: {}{hint}", c.text(), p.message())));
        }
    }
    Ok(())
}

/// What an encounter is played under beyond its files, for `run`, `why`, `sim` and `compare`:
/// its `--control`s, `--set`s and `--seating`.
#[derive(Args, Clone, Default)]
pub struct Changes {
    /// Give WHO (a participant's name in the scenario, else a side's: all its participants) the
    /// policy POLICY, written as in a scenario (`Greedy`, `Random`, `Aggressive`, `Passive`,
    /// `HoldBack(pool: "ap", keep: 1)`, `Search`), in place of its controller: a script is
    /// dropped with it. Repeatable; where two name the same participant, the later wins.
    #[arg(long = "control", value_name = "WHO=POLICY", value_parser = tempo::run::scenario::parse_control)]
    pub control: Vec<tempo::run::scenario::ControlFlag>,
    /// Set a number without editing a file, exactly as editing it would: `STAT=VALUE` (the
    /// ruleset's default of a stat; for `compare`, in both rulesets), `PARTICIPANT.STAT=VALUE`
    /// or `SIDE.STAT=VALUE` (in the scenario). Repeatable; a later one wins.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = tempo::run::scenario::parse_set)]
    pub set: Vec<tempo::run::scenario::SetFlag>,
    /// Seat the participants in an order drawn anew for each run from its seed (`random`: the
    /// way to a fair fight, where the rules leave who goes first to the seating), or as the
    /// scenario writes them (`as-written`), in place of the scenario's `seating`.
    #[arg(long, value_name = "HOW")]
    pub seating: Option<SeatingArg>,
}

/// `--seating`: the scenario's `seating`, as the command line spells it.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeatingArg {
    AsWritten,
    Random,
}

impl Changes {
    /// Each `--set`, then each `--control`, as given: what a report names it was played under.
    pub fn texts(&self) -> (Vec<String>, Vec<String>) {
        let sets = self.set.iter().map(tempo::run::scenario::SetFlag::text).collect();
        let controls = self.control.iter().map(tempo::run::scenario::ControlFlag::text).collect();
        (sets, controls)
    }

    /// Every `--set`, `--seating`, then every `--control`, applied to the scenario and to the
    /// rulesets it is played under; a name or policy that does not fit is printed as a problem.
    pub fn apply(
        &self,
        scenario: &mut tempo::run::scenario::Scenario,
        rulesets: &mut [&mut tempo::ir::Ruleset],
    ) -> Outcome {
        set(scenario, &self.set, rulesets)?;
        match self.seating {
            Some(SeatingArg::AsWritten) => scenario.seating = tempo::run::scenario::Seating::AsWritten,
            Some(SeatingArg::Random) => scenario.seating = tempo::run::scenario::Seating::Random,
            None => {}
        }
        let played: Vec<&tempo::ir::Ruleset> = rulesets.iter().map(|r| &**r).collect();
        control(scenario, &self.control, &played)
    }
}

/// Each `--set NAME=VALUE` applied, in order (a later one wins), to the scenario and to every
/// ruleset it is played under (`compare` has two), as a hand edit of the files would; a name
/// that is no stat, participant or side is a problem of the scenario, with a suggestion.
pub fn set(
    scenario: &mut tempo::run::scenario::Scenario,
    sets: &[tempo::run::scenario::SetFlag],
    rulesets: &mut [&mut tempo::ir::Ruleset],
) -> Outcome {
    for f in sets {
        for r in rulesets.iter_mut() {
            if let Err(p) = tempo::run::scenario::apply_set(scenario, r, f) {
                let hint = p.suggestion().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
                return Err(problem(Code::BadScenario, format!("--set {}: {}{hint}", f.text(), p.message())));
            }
        }
    }
    Ok(())
}

/// A scenario file, parsed; what is wrong printed when it cannot be read or is not a scenario.
pub fn load_scenario(path: &Path) -> Result<tempo::run::scenario::Scenario, Failure> {
    let text = read_input(path).map_err(|e| cannot(format!("cannot read `{}`: {e}", path.display())))?;
    tempo::run::scenario::parse(&text).map_err(|e| problem(Code::BadScenario, e))
}
