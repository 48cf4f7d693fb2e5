//! `tempo solve`: the exact outcome of one small encounter, under its controllers or under
//! optimal play by one participant or side.

use super::{LoadArgs, Outcome};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use tempo::solve;

/// Solve one encounter exactly: every outcome's probability and the expected rounds, with no
/// sampling error.
///
/// Every roll is enumerated with its exact probability (dice, draws from piles, drawn orders,
/// random seating, a `Random` controller's picks), and states reached again between rounds are
/// merged, so small encounters (a duel of a few rounds) solve in seconds. Without `--for`,
/// everyone plays by their controllers: the answer `tempo sim` estimates. With `--for WHO` (a
/// participant, or a side: all its participants), WHO plays optimally to maximise its side's
/// chance to be left standing (every action at every target, the end of the turn, every
/// reaction and declining it, every `choose` answer, initiative adjustments, slot takers),
/// everyone else by their controllers. A participant under `Policy(Search)` plays optimally for
/// its own side either way, as `Search` plays an encounter small enough to solve.
///
/// Exit code 0: solved; 1: the ruleset or scenario is wrong, a rule failed, the encounter
/// cannot be solved soundly (a script whose fallback is `Search`; a hidden phase with a solved
/// participant), or the state budget ran out (the message says how far it got and what to
/// shrink); 2: a file could not be read.
#[derive(Args)]
pub struct SolveArgs {
    /// The ruleset: `.rules` source or `.ron` IR from `tempo compile`.
    rules: PathBuf,
    /// The scenario (RON).
    scenario: PathBuf,
    /// Solve for WHO (a participant's name, or a side's): its optimal play.
    #[arg(long = "for", value_name = "WHO")]
    for_who: Option<String>,
    /// Stop after exploring this many positions (each branch point and round's end met).
    #[arg(long, value_name = "N", default_value_t = solve::DEFAULT_MAX_STATES)]
    max_states: u64,
    /// With `--for`: WHO's decisions in the first round as optimal play meets them, each with
    /// every option's value.
    #[arg(long)]
    plan: bool,
    /// `text` for people, `json` for scripts (../shared/design/contracts.md).
    #[arg(long, value_enum, default_value_t = super::Format::Text)]
    format: super::Format,
    #[command(flatten)]
    changes: super::Changes,
    #[command(flatten)]
    load: LoadArgs,
}

/// The solver thread's stack: address space, touched only as deep as the recursion goes.
const SOLVER_STACK: usize = 1 << 30;

pub fn solve(args: SolveArgs) -> Outcome {
    let mut ruleset = super::load_ruleset(&args.rules, args.load)?.ruleset;
    let mut scenario = super::load_scenario(&args.scenario)?;
    args.changes.apply(&mut scenario, &mut [&mut ruleset])?;
    let ask = solve::Ask {
        for_who: args.for_who.clone(),
        max_states: args.max_states,
        plan: args.plan,
        ..Default::default()
    };
    let tell = std::io::stderr().is_terminal();
    let mut progress = |p: solve::Progress| {
        if tell {
            eprint!("\rsolving: {} positions, {} states between rounds", p.states, p.merged);
        }
    };
    // The solver recurses once per branch point along a path of the encounter: a thread of its
    // own with room for very long paths, so a deep one is never a stack overflow.
    let solved = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(SOLVER_STACK)
            .spawn_scoped(scope, || solve::solve(&ruleset, &scenario, &ask, &mut progress))
            .map(|h| h.join())
    });
    let solved = match solved {
        Ok(Ok(solved)) => solved,
        _ => return Err(super::cannot("the solver's thread could not be started or failed")),
    };
    if tell {
        eprint!("\r\x1b[K");
    }
    let solution = match solved {
        Ok(s) => s,
        Err(solve::SolveError::Run(e)) => return Err(super::run::run_failed(&e, Some(&ruleset))),
        Err(solve::SolveError::Refused(tempo::run::Refusal::Run(e))) => {
            return Err(super::run::scenario_failed(&e, &args.scenario))
        }
        Err(e) => return Err(super::problem(tempo::diagnostics::Code::BadScenario, e)),
    };
    let rules = file_name(&args.rules);
    let scenario_name = args.scenario.display().to_string();
    let maximised = args.for_who.as_ref().and(solution.value.as_ref()).map(|_| {
        let side = scenario
            .participants
            .iter()
            .find(|p| Some(&p.name) == args.for_who.as_ref())
            .map_or_else(|| args.for_who.clone().unwrap_or_default(), |p| p.side.clone());
        format!("{side} left standing")
    });
    let heading = solve::Heading {
        rules: &rules,
        scenario: &scenario_name,
        for_who: args.for_who.as_deref(),
        maximised: maximised.as_deref(),
    };
    let text = match args.format {
        super::Format::Text => solve::text(&heading, &solution),
        super::Format::Json => {
            let mut s = serde_json::to_string(&solve::json(&heading, &solution, args.plan)).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    super::write_stdout("the solution", &text)
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}
