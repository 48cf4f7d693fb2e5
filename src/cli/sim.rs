//! `tempo sim`, `tempo sim merge` and `tempo compare`: reading the inputs, the progress bar,
//! writing the summary, the shard or the HTML page, and the exit codes. The counting and the
//! statistics are the library's (`tempo::sim`).

use super::batch::{emit, file_name, inputs, json, parse_shard, progress_bar, write_html, OutputArgs, SimFormat};
use super::{Failure, Outcome};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use tempo::sim::{self, compare, shard, summary, Batch};

/// Play many encounters and summarise them: outcomes, length, pool use and waste, action
/// use, reactions, conditions, each estimate with its 95% interval (see docs/simulation.md).
///
/// Run i plays with a seed derived from --seed and i, so any run can be replayed with
/// `tempo run`; the summary is the same whatever --jobs is. `tempo sim merge` merges shards.
/// Exit code 0: summary written (runs that failed are counted in it); 1: the ruleset or
/// scenario is wrong; 2: a file could not be read or written.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SimArgs {
    #[command(subcommand)]
    merge: Option<SimCommand>,
    /// The ruleset: `.rules` source or `.ron` IR from `tempo compile`.
    #[arg(required = true)]
    rules: Option<PathBuf>,
    /// The scenario (RON, see docs/scenario.md).
    #[arg(required = true)]
    scenario: Option<PathBuf>,
    #[command(flatten)]
    batch: BatchArgs,
    /// Play only the K-th of N equal, disjoint slices of the runs (K from 1) and write its exact
    /// totals as JSON on stdout, for `tempo sim merge`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, conflicts_with = "html")]
    shard: Option<(u64, u64)>,
    /// Also play the scenario with SIDE under each policy listed (`heroes=Aggressive,Greedy,Search`;
    /// commas inside a policy's parentheses do not split it), every combination on the same
    /// seeds: a matrix of outcome shares per outcome, rows the first side named, columns the
    /// second (give the flag once per side, at most two). Without `SIDE=`, every side gets the
    /// list. The last policy listed is taken as the strongest: where every side named plays it,
    /// which actions were affordable but never taken (dead) or taken every time (dominant).
    #[arg(long = "skill", value_name = "[SIDE=]POLICY,...", value_parser = tempo::sim::skill::parse_skill, conflicts_with = "shard")]
    skill: Vec<tempo::sim::skill::SkillFlag>,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    load: super::LoadArgs,
}

#[derive(Subcommand)]
enum SimCommand {
    /// Merge shards written by `tempo sim ... --shard K/N` into the summary of the whole batch,
    /// exactly as one machine playing every run would have written it.
    Merge {
        /// The shard files (JSON), every slice of one batch.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        output: OutputArgs,
        /// Write the summary (or the sweep's report) to FILE instead of stdout, and only when
        /// the shards make one batch: a failed merge leaves FILE as it was.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        to: Option<PathBuf>,
    },
}

/// Play one scenario under two rulesets (RULES_A RULES_B SCENARIO), two scenarios under one
/// ruleset (--scenarios RULES SCENARIO_A SCENARIO_B), or one scenario under two sets of players
/// (RULES SCENARIO --control-b WHO=POLICY), on the same seeds and show what B changes.
///
/// Each count for A and B, and the paired difference B - A (what B changes) with its 95%
/// interval; a difference that is not noise is marked `*`. Each side is labelled by its file
/// name (by its players, with --control-b). Exit codes as for `sim`.
#[derive(Args)]
pub struct CompareArgs {
    /// Ruleset A (the base); with --scenarios or two paths, the one ruleset.
    #[arg(value_name = "RULES_A|RULES")]
    first: PathBuf,
    /// Ruleset B (the variant); with --scenarios, scenario A (the base); with two paths, the
    /// scenario.
    #[arg(value_name = "RULES_B|SCENARIO_A|SCENARIO")]
    second: PathBuf,
    /// The scenario, played under both; with --scenarios, scenario B (the variant).
    #[arg(value_name = "SCENARIO|SCENARIO_B")]
    third: Option<PathBuf>,
    /// Compare two scenarios under one ruleset: RULES SCENARIO_A SCENARIO_B. The batch's seed
    /// defaults to scenario A's.
    #[arg(long)]
    scenarios: bool,
    /// As --control, for B only, after every --control: `tempo compare RULES SCENARIO
    /// --control heroes=Greedy --control-b heroes=Search` asks whether Search plays the heroes
    /// better than Greedy, paired on the same seeds. Repeatable.
    #[arg(long = "control-b", value_name = "WHO=POLICY", value_parser = tempo::run::scenario::parse_control)]
    control_b: Vec<tempo::run::scenario::ControlFlag>,
    #[command(flatten)]
    batch: BatchArgs,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    load: super::LoadArgs,
}

#[derive(Args)]
struct BatchArgs {
    /// Encounters to play.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    runs: u64,
    /// The batch's seed (default: the scenario's); run i plays with a seed derived from it.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Threads to play on (default: one per core). The output does not depend on it.
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// No progress bar (there is none anyway when stderr is not a terminal).
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    changes: super::Changes,
}

fn print_summary(s: &summary::Summary, output: &OutputArgs, to: Option<&Path>, inputs: &[PathBuf]) -> Outcome {
    if let Some(path) = &output.html {
        write_html(path, inputs, sim::html::sim_page(s))?;
    }
    let text = match output.format {
        SimFormat::Text => {
            let mut text = summary::to_text(s);
            if let Some(k) = &s.skill {
                text.push_str(&sim::skill::to_text(k));
            }
            text
        }
        SimFormat::Json => json(s),
    };
    emit(&text, to, inputs)
}

pub fn sim(args: SimArgs) -> Outcome {
    if let Some(SimCommand::Merge { files, output, to }) = &args.merge {
        return merge(files, output, to.as_deref());
    }
    let (Some(rules_path), Some(scenario_path)) = (&args.rules, &args.scenario) else {
        return Err(super::cannot("give a ruleset and a scenario (or `tempo sim merge FILES...`)"));
    };
    let loaded = super::load_ruleset(rules_path, args.load)?;
    let read = inputs(&loaded, rules_path, &[scenario_path]);
    let mut ruleset = loaded.ruleset;
    let mut scenario = super::load_scenario(scenario_path)?;
    args.batch.changes.apply(&mut scenario, &mut [&mut ruleset])?;
    let layout = sim::layout(&ruleset, &scenario).map_err(|e| super::run::scenario_failed(&e, scenario_path))?;
    let seed = args.batch.seed.unwrap_or(scenario.seed);
    let runs = match args.shard {
        Some((k, n)) => sim::shard_range(args.batch.runs, k, n),
        None => 0..args.batch.runs,
    };
    let batch = Batch { seed, runs: runs.clone() };
    let seats = skill_seats(&args.skill, &scenario, &layout, &ruleset)?;
    let cells = seats.iter().take(2).map(|s| s.policies.len() as u64).product::<u64>();
    let cells = if seats.is_empty() { 0 } else { cells };
    let bar = progress_bar((runs.end - runs.start).saturating_mul(1 + cells), args.batch.quiet);
    let progress = |n: u64| bar.inc(n);
    let jobs = super::jobs(args.batch.jobs);
    let totals = sim::simulate(&ruleset, &scenario, &layout, &batch, jobs, &progress)
        .map_err(|e| super::run::run_failed(&e, Some(&ruleset)))?;
    let name = file_name(rules_path);
    let scenario_name = file_name(scenario_path);
    let (sets, controls) = args.batch.changes.texts();
    if args.shard.is_some() {
        bar.finish_and_clear();
        let ir = ruleset.to_ron().unwrap_or_default();
        let shard = shard::Shard {
            format: shard::FORMAT,
            tempo: env!("CARGO_PKG_VERSION").to_string(),
            ruleset: name,
            scenario: scenario_name,
            fingerprint: shard::fingerprint(&[&ir, &format!("{scenario:?}")]),
            seed,
            runs: args.batch.runs,
            from: runs.start,
            to: runs.end,
            layout,
            totals,
            sets,
            controls,
        };
        return super::write_stdout("the summary", &json(&shard));
    }
    let mut s = summary::summarise(&name, seed, &layout, &totals).measured(&scenario_name, &sets, &controls);
    // What a policy cannot score, said once per (policy, action), on stderr and in the JSON.
    s.notes = tempo::run::unscored(&ruleset, &scenario);
    if !seats.is_empty() {
        let skill = sim::skill::play(&ruleset, &scenario, &seats, &batch, jobs, &progress)
            .map_err(|e| super::run::run_failed(&e, Some(&ruleset)))?;
        s.skill = Some(skill);
    }
    bar.finish_and_clear();
    for note in &s.notes {
        eprintln!("note: {note}");
    }
    print_summary(&s, &args.output, None, &read)
}

/// The seats `--skill` asks for, every policy checked against the ruleset and every side
/// against the scenario (exit code 1 when one is wrong).
fn skill_seats(
    flags: &[sim::skill::SkillFlag],
    scenario: &tempo::run::scenario::Scenario,
    layout: &sim::layout::Layout,
    ruleset: &tempo::ir::Ruleset,
) -> Result<Vec<sim::skill::Seat>, Failure> {
    if flags.is_empty() {
        return Ok(Vec::new());
    }
    let seats = sim::skill::seats(flags, &layout.sides)
        .map_err(|e| super::problem(tempo::diagnostics::Code::BadScenario, e))?;
    let all: Vec<_> = seats.iter().flat_map(|s| s.policies.iter().cloned()).collect();
    super::control(&mut scenario.clone(), &all, &[ruleset])?;
    Ok(seats)
}

fn merge(files: &[PathBuf], output: &OutputArgs, to: Option<&Path>) -> Outcome {
    let (mut shards, mut sweeps) = (Vec::new(), Vec::new());
    let (mut shard_names, mut sweep_names) = (Vec::new(), Vec::new());
    for f in files {
        let text = super::read_input(f).map_err(|e| super::cannot(format!("cannot read `{}`: {e}", f.display())))?;
        match sim::sweep::shard::read(&text) {
            Ok(sim::sweep::shard::AnyShard::Sim(s)) => {
                shards.push(*s);
                shard_names.push(f.display().to_string());
            }
            Ok(sim::sweep::shard::AnyShard::Sweep(s)) => {
                sweeps.push(*s);
                sweep_names.push(f.display().to_string());
            }
            Err(e) => {
                eprintln!("error: `{}` is not a tempo shard: {e}", f.display());
                return Err(Failure::Problems);
            }
        }
    }
    match (shards.is_empty(), sweeps.is_empty()) {
        (true, false) => return super::sweep::merge(&sweeps, &sweep_names, output, to, files),
        (false, false) => {
            eprintln!("error: these are shards of a sweep and of a `sim`: merge each batch's shards on its own");
            return Err(Failure::Problems);
        }
        _ => {}
    }
    match shard::merge(&shards, &shard_names) {
        Ok((first, totals)) => {
            let s = summary::summarise(&first.ruleset, first.seed, &first.layout, &totals).measured(
                &first.scenario,
                &first.sets,
                &first.controls,
            );
            print_summary(&s, output, to, files)
        }
        Err(problems) => {
            eprintln!("error: these shards do not make one batch:\n  {}", problems.join("\n  "));
            Err(Failure::Problems)
        }
    }
}

/// What each side of a comparison plays: its ruleset and scenario, with the paths they were
/// read from.
struct Side {
    rules: PathBuf,
    scenario: PathBuf,
}

pub fn compare(args: CompareArgs) -> Outcome {
    let (a, b) = match (&args.third, args.scenarios) {
        (Some(third), true) => (
            Side { rules: args.first.clone(), scenario: args.second.clone() },
            Side { rules: args.first.clone(), scenario: third.clone() },
        ),
        (Some(third), false) => (
            Side { rules: args.first.clone(), scenario: third.clone() },
            Side { rules: args.second.clone(), scenario: third.clone() },
        ),
        (None, _) if args.scenarios || args.control_b.is_empty() => {
            return Err(super::cannot(
                "compare needs three paths (RULES_A RULES_B SCENARIO, or --scenarios RULES SCENARIO_A \
                 SCENARIO_B), or two with --control-b (RULES SCENARIO)",
            ));
        }
        (None, _) => (
            Side { rules: args.first.clone(), scenario: args.second.clone() },
            Side { rules: args.first.clone(), scenario: args.second.clone() },
        ),
    };
    // One ruleset and one scenario: what differs is who plays (--control-b).
    let players_only = args.third.is_none();
    // Both are read, so that the problems of both are printed.
    let (ra, rb) = match (super::load_ruleset(&a.rules, args.load), super::load_ruleset(&b.rules, args.load)) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(failure), _) | (_, Err(failure)) => return Err(failure),
    };
    let mut read = inputs(&ra, &a.rules, &[&a.scenario, &b.scenario]);
    read.extend(inputs(&rb, &b.rules, &[]));
    let (ra, rb) = (ra.ruleset, rb.ruleset);
    let (mut ra, mut rb) = (ra, rb);
    let mut sa = super::load_scenario(&a.scenario)?;
    let mut sb = if args.scenarios { super::load_scenario(&b.scenario)? } else { sa.clone() };
    if args.scenarios {
        // One ruleset: a stat default set for A is set again, to the same value, for B.
        args.batch.changes.apply(&mut sa, &mut [&mut ra])?;
        args.batch.changes.apply(&mut sb, &mut [&mut rb])?;
    } else {
        args.batch.changes.apply(&mut sa, &mut [&mut ra, &mut rb])?;
        sb = sa.clone();
    }
    super::control(&mut sb, &args.control_b, &[&rb])?;
    // Every problem of both sides with their scenario, before anything is played.
    let (la, lb) = match (sim::layout(&ra, &sa), sim::layout(&rb, &sb)) {
        (Ok(la), Ok(lb)) => (la, lb),
        (la, lb) => {
            for (label, side, result) in [("A", &a, la), ("B", &b, lb)] {
                let differs = if args.scenarios { &side.scenario } else { &side.rules };
                if let Err(e) = result {
                    eprintln!("error[{}]: under {label} (`{}`), {e}", e.code().name(), differs.display());
                }
            }
            return Err(Failure::Problems);
        }
    };
    let seed = args.batch.seed.unwrap_or(sa.seed);
    let batch = Batch { seed, runs: 0..args.batch.runs };
    let bar = progress_bar(args.batch.runs, args.batch.quiet);
    let progress = |n: u64| bar.inc(n);
    let jobs = super::jobs(args.batch.jobs);
    let compared = compare::compare((&ra, &rb), (&sa, &sb), (&la, &lb), &batch, jobs, &progress)
        .map_err(|e| super::problem(e.code(), e))?;
    bar.finish_and_clear();
    let (sets, controls) = args.batch.changes.texts();
    let (scenario_a, scenario_b) = (file_name(&a.scenario), file_name(&b.scenario));
    let controls_b: Vec<String> = args.control_b.iter().map(tempo::run::scenario::ControlFlag::text).collect();
    let mut labels = if args.scenarios { labels(&a.scenario, &b.scenario) } else { labels(&a.rules, &b.rules) };
    if players_only {
        // Labelled by who plays: A as the scenario and --control have it, B with --control-b.
        labels.0 = if controls.is_empty() { "as written".to_string() } else { controls.join(", ") };
        labels.1 = controls_b.join(", ");
    } else if !controls_b.is_empty() {
        labels.1 = format!("{} with {}", labels.1, controls_b.join(", "));
    }
    let c = compare::summarise((&file_name(&a.rules), &file_name(&b.rules)), seed, (&la, &lb), &compared)
        .measured(&scenario_a, args.scenarios.then_some(scenario_b.as_str()), &sets, &controls)
        .played_b(&controls_b)
        .labelled(&labels.0, &labels.1);
    if let Some(path) = &args.output.html {
        write_html(path, &read, sim::html::compare_page(&c))?;
    }
    match args.output.format {
        SimFormat::Text => super::write_stdout("the summary", &compare::to_text(&c)),
        SimFormat::Json => super::write_stdout("the summary", &json(&c)),
    }
}

/// The two files' names, or their paths as given when the names are the same.
fn labels(a: &Path, b: &Path) -> (String, String) {
    let (na, nb) = (file_name(a), file_name(b));
    if na == nb {
        (a.display().to_string(), b.display().to_string())
    } else {
        (na, nb)
    }
}
