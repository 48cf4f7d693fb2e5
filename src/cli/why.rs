//! `tempo why`: one event of a run explained by the chain of its causes, each shown in its
//! source.

use super::{Failure, LoadArgs, Outcome};
use clap::Args;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use tempo::check::LoadedRuleset;
use tempo::diagnostics::render;
use tempo::why;

/// Explain one event of a run: the chain of its causes back to the turn, phase or round
/// that began it, each with the rule that caused it, shown in its source.
///
/// Plays the encounter as `tempo run` does (same seed, same events) and follows event SEQ
/// back: a pool change to the action that paid it, a reaction to the trigger it answered, an
/// outcome to its check, a threshold's effect to the change that crossed it, a refusal to
/// the rule that refused. Event numbers are `seq` in `tempo run --format jsonl`, and `#SEQ`
/// in `tempo run --why`. Exit code 0: explained; 1: the ruleset or scenario is wrong, or the
/// run failed before the event; 2: a file could not be read, or there is no event SEQ.
#[derive(Args)]
pub struct WhyArgs {
    /// The ruleset: `.rules` source or `.ron` IR from `tempo compile` (its sources are read
    /// for excerpts when they are at hand).
    rules: PathBuf,
    /// The scenario (RON).
    scenario: PathBuf,
    /// The event to explain: its `seq`.
    #[arg(long, value_name = "SEQ")]
    event: u64,
    /// Seed for the dice; overrides the scenario's (use the one the run was made with).
    #[arg(long)]
    seed: Option<u64>,
    /// Give the `--control`s and `--set`s the run was made with.
    #[command(flatten)]
    changes: super::Changes,
    #[command(flatten)]
    load: LoadArgs,
}

pub fn why(args: WhyArgs) -> Outcome {
    let event = args.event;
    let LoadedRuleset { mut ruleset, sources } = super::load_ruleset(&args.rules, args.load)?;
    // The sources, for excerpts: the compilation's own, or for an IR the files it names.
    let (sources, found) = match sources {
        Some(sources) => (sources, vec![true; ruleset.files.len()]),
        None => why::sources_of(&ruleset, |name| super::read_input(Path::new(name)).ok()),
    };
    let mut scenario = super::load_scenario(&args.scenario)?;
    args.changes.apply(&mut scenario, &mut [&mut ruleset])?;
    let play = |keep: why::Keep| -> Result<(Result<(), tempo::run::RunError>, why::Keep), Failure> {
        let mut runner = tempo::run::Runner::new(&ruleset, &scenario, keep)
            .map_err(|e| super::run::scenario_failed(&e, &args.scenario))?;
        // Abandoned past the event (`Output`): everything that could be a cause was written.
        let played = runner.play(args.seed);
        Ok((played, runner.into_sink()))
    };
    let (played, kept) = play(why::Keep::new(event))?;
    let Some(asked) = why::find(&kept.steps, event).cloned() else {
        if let Err(e) = &played {
            if !matches!(e, tempo::run::RunError::Output) {
                eprintln!("the run stopped before event #{event}:");
                return Err(super::run::run_failed(e, Some(&ruleset)));
            }
        }
        let last = kept.written;
        return Err(super::cannot(format!(
            "there is no event #{event}: this run wrote {last} events (#0 to #{})",
            last.saturating_sub(1)
        )));
    };
    // The window holds the latest events; a cause farther back is found by playing again.
    let mut chain: Vec<why::Step> = vec![asked];
    loop {
        let refs: Vec<&why::Step> = chain.iter().collect();
        let Some(cause) = why::next_cause(&refs, event) else { break };
        let step = match why::find(&kept.steps, cause) {
            Some(step) => step.clone(),
            None => match why::find(&play(why::Keep::only(cause))?.1.steps, cause) {
                Some(step) => step.clone(),
                None => break,
            },
        };
        chain.push(step);
    }
    let chain: Vec<&why::Step> = chain.iter().collect();
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal();
    let style = render::TextStyle { color, ..super::text_style() };
    super::write_stdout("the explanation", &why::to_text(&chain, &ruleset.files, &sources, &found, style))
}
