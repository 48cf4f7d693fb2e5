//! `tempo sweep`: reading the ranges, playing the points (or bisecting for a target), and
//! writing the report, the shard or the HTML page. The playing and the report are the library's
//! (`tempo::sim::sweep`).

use super::batch::{emit, file_name, inputs, json, parse_shard, progress_bar, write_html, OutputArgs, SimFormat};
use super::{Failure, Outcome};
use clap::Args;
use std::path::{Path, PathBuf};
use tempo::diagnostics::Code;
use tempo::sim::sweep::{self, report, shard, target, Grid, Point, PointError, SweepSet, Swept};
use tempo::sim::{self, Batch};

/// Play one scenario at every value of a number, or every point of a grid of two, all on the
/// same seeds, and show how the outcome shares, the length and the other counts move.
///
/// Every point plays run i with the same seed (common random numbers), so each point's change
/// from the one before it is a paired difference, measured far more finely than separate
/// batches would. With --target, only the points a bisection needs are played, to find the two
/// neighbouring values between which an outcome's share crosses the target.
/// Exit code 0: report written; 1: the ruleset, scenario or a name is wrong; 2: a file could not
/// be read or written, or the arguments are wrong.
#[derive(Args)]
pub struct SweepArgs {
    /// The ruleset: `.rules` source or `.ron` IR from `tempo compile`.
    rules: PathBuf,
    /// The scenario (RON, see docs/scenario.md).
    scenario: PathBuf,
    /// `NAME=LO..HI[:STEP]`: a number to sweep, LO, LO+STEP, ... up to HI (HI included when a
    /// step lands on it; STEP 1 if left out). NAME is `STAT` (the ruleset's default),
    /// `PARTICIPANT.STAT` or `SIDE.STAT`, as for `--set` elsewhere. Two ranges make a grid (the
    /// first its rows). `NAME=VALUE` fixes a number for every point.
    #[arg(long = "set", value_name = "NAME=LO..HI[:STEP]", required = true, value_parser = sweep::parse_sweep_set)]
    set: Vec<SweepSet>,
    /// Give WHO (a participant, else a side) the policy POLICY in place of its controller, at
    /// every point (as `tempo sim --control`).
    #[arg(long = "control", value_name = "WHO=POLICY", value_parser = tempo::run::scenario::parse_control)]
    control: Vec<tempo::run::scenario::ControlFlag>,
    /// Seat the participants in an order drawn anew for each run (`random`), or as the scenario
    /// writes them (`as-written`), in place of the scenario's `seating` (as `tempo sim --seating`).
    #[arg(long, value_name = "HOW")]
    seating: Option<super::SeatingArg>,
    /// `OUTCOME=SHARE` (`"heroes left standing=0.5"`, or `=50%`): find, by bisection over the one
    /// range, the two neighbouring values between which the outcome's share crosses SHARE,
    /// playing only the points that needs. Says so when the share does not cross it in the range,
    /// or is not monotone over the points played.
    #[arg(long, value_name = "OUTCOME=SHARE", value_parser = target::parse_target, conflicts_with = "shard")]
    target: Option<target::TargetFlag>,
    /// Encounters to play at each point.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    runs: u64,
    /// The batch's seed (default: the scenario's); run i of every point plays with a seed derived
    /// from it and i.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Threads to play on (default: one per core). The output does not depend on it.
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Play only the K-th of N equal, disjoint slices of the runs (K from 1) at every point, and
    /// write its exact totals as JSON on stdout, for `tempo sim merge`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, conflicts_with = "html")]
    shard: Option<(u64, u64)>,
    /// No progress bar (there is none anyway when stderr is not a terminal).
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    load: super::LoadArgs,
}

/// The ranges and the fixed sets, each name at most once.
fn split(sets: &[SweepSet]) -> Result<(Vec<Swept>, Vec<tempo::run::scenario::SetFlag>), Failure> {
    let (mut ranges, mut fixed) = (Vec::new(), Vec::new());
    for s in sets {
        match s {
            SweepSet::Range(r) => ranges.push(r.clone()),
            SweepSet::Fixed(f) => fixed.push(f.clone()),
        }
    }
    // A fixed name may be given twice (the later wins, as `--set` does); a swept one only once.
    for (i, r) in ranges.iter().enumerate() {
        if ranges[..i].iter().any(|o| o.name == r.name) || fixed.iter().any(|f| f.name == r.name) {
            return Err(super::cannot(format!("`{}` is swept and also set (or swept twice): give it once", r.name)));
        }
    }
    match ranges.len() {
        0 => Err(super::cannot("give a range to sweep: `--set NAME=LO..HI` (e.g. `--set Brute.hp_max=20..30`)")),
        1 | 2 => Ok((ranges, fixed)),
        n => Err(super::cannot(format!("{n} ranges: a sweep takes one, or two for a grid"))),
    }
}

fn point_failed(e: PointError, scenario: &Path, ruleset: &tempo::ir::Ruleset) -> Failure {
    match e {
        PointError::Set(flag, p) => {
            let hint = p.suggestion().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
            super::problem(Code::BadScenario, format!("--set {}: {}{hint}", flag.name, p.message()))
        }
        PointError::Run(e @ tempo::run::RunError::Scenario(_)) => super::run::scenario_failed(&e, scenario),
        PointError::Run(e) => super::run::run_failed(&e, Some(ruleset)),
    }
}

pub fn sweep(args: SweepArgs) -> Outcome {
    let (ranges, fixed) = split(&args.set)?;
    let loaded = super::load_ruleset(&args.rules, args.load)?;
    let read = inputs(&loaded, &args.rules, &[&args.scenario]);
    let mut ruleset = loaded.ruleset;
    let mut scenario = super::load_scenario(&args.scenario)?;
    let changes = super::Changes { control: args.control.clone(), set: fixed.clone(), seating: args.seating };
    changes.apply(&mut scenario, &mut [&mut ruleset])?;
    let grid = Grid { ruleset: &ruleset, scenario: &scenario, ranges: &ranges };
    let n = grid.len();
    if let Some(twice) = grid.reached_twice() {
        return Err(super::cannot(twice));
    }
    if args.target.is_some() && ranges.len() != 1 {
        return Err(super::cannot("--target looks along one range: give one `--set NAME=LO..HI`"));
    }
    if args.target.is_none() && n > sweep::MOST_POINTS {
        return Err(super::cannot(format!(
            "{} points: a sweep plays at most {}; give a STEP (`NAME=LO..HI:STEP`), or --target to bisect",
            grid.count_text(),
            sweep::MOST_POINTS
        )));
    }
    // The first point shows any name that is not there, before anything is played.
    let first = grid.point(0).map_err(|e| point_failed(e, &args.scenario, &ruleset))?;
    if args.shard.is_some() {
        // A shard `sim merge` could not read is refused before anything is played.
        let empty = shard::PointShard {
            set: first.set.clone(),
            totals: tempo::sim::totals::Totals::new(&first.layout),
            paired: None,
            layout: (*first.layout).clone(),
        };
        let least = shard::SweepShard::least_bytes(&empty, n);
        if least > shard::MAX_SHARD_BYTES {
            return Err(too_large(grid.count_text(), least));
        }
    }
    let seed = args.seed.unwrap_or(scenario.seed);
    let runs = match args.shard {
        Some((k, n)) => sim::shard_range(args.runs, k, n),
        None => 0..args.runs,
    };
    let batch = Batch { seed, runs: runs.clone() };
    let jobs = super::jobs(args.jobs);
    let names = Names {
        ruleset: file_name(&args.rules),
        scenario: file_name(&args.scenario),
        parameters: ranges.iter().map(|r| r.name.clone()).collect(),
        ranges: ranges.iter().map(Swept::text).collect(),
        sets: fixed.iter().map(|f| f.text()).collect(),
        controls: args.control.iter().map(tempo::run::scenario::ControlFlag::text).collect(),
    };
    let failed = |e: PointError| point_failed(e, &args.scenario, &ruleset);
    let ran = |e: tempo::run::RunError| super::run::run_failed(&e, Some(&ruleset));
    let report = match &args.target {
        Some(t) => {
            let bar = progress_bar(args.runs.saturating_mul(2 * (2 + u64::from(64 - n.leading_zeros()))), args.quiet);
            let progress = |k: u64| bar.inc(k);
            let found = target::find(&grid, t, &batch, jobs, &progress).map_err(|e| target_failed(e, &failed, &ran))?;
            let points: Vec<Point> = grid.points(&found.probed).map_err(failed)?;
            let pairs: Vec<bool> = (0..points.len()).map(|k| k > 0).collect();
            let played = sweep::play(&grid, &points, &pairs, &batch, jobs, &progress).map_err(ran)?;
            bar.finish_and_clear();
            let values: Vec<i64> = points.iter().map(|p| p.set[0].1).collect();
            let shares: Vec<_> = points
                .iter()
                .zip(&played.totals)
                .map(|(p, t2)| {
                    report::share(&p.layout, t2, &t.outcome).unwrap_or(tempo::sim::stats::Estimate::point(0.0))
                })
                .collect();
            let aim = target::target(t, &found, &values, &shares);
            let head = names.head(seed, args.runs);
            report::sweep(&head, report::rows(&at(&points), &played, &head), Some(aim))
        }
        None => {
            let points: Vec<Point> = grid.points(&(0..n).collect::<Vec<u64>>()).map_err(failed)?;
            let row = usize::try_from(ranges.last().map(Swept::len).unwrap_or(1)).unwrap_or(usize::MAX);
            let pairs = sweep::pairs_in_rows(points.len(), row);
            let bar = progress_bar((runs.end - runs.start).saturating_mul(n), args.quiet);
            let progress = |k: u64| bar.inc(k);
            let played = sweep::play(&grid, &points, &pairs, &batch, jobs, &progress).map_err(ran)?;
            bar.finish_and_clear();
            if args.shard.is_some() {
                let s = names.shard(&ruleset, &scenario, &batch, args.runs, &points, played).to_json();
                if s.len() as u64 > shard::MAX_SHARD_BYTES {
                    return Err(too_large(grid.count_text(), s.len() as u64));
                }
                return super::write_stdout("the shard", &s);
            }
            let head = names.head(seed, args.runs);
            report::sweep(&head, report::rows(&at(&points), &played, &head), None)
        }
    };
    print(&report, &args.output, None, &read)
}

/// A sweep whose shard would be past what `sim merge` reads.
fn too_large(points: String, bytes: u64) -> Failure {
    super::cannot(format!(
        "a shard of this sweep's {points} points takes {} bytes or more, past the {} a shard file may hold \
         (`sim merge` could not read it): sweep fewer points (a STEP, or the range in parts)",
        bytes,
        shard::MAX_SHARD_BYTES
    ))
}

fn target_failed(
    e: target::TargetError,
    failed: &dyn Fn(PointError) -> Failure,
    ran: &dyn Fn(tempo::run::RunError) -> Failure,
) -> Failure {
    match e {
        target::TargetError::Point(PointError::Run(e)) => ran(e),
        target::TargetError::Point(e) => failed(e),
        target::TargetError::NoOutcome { outcome, outcomes, closest } => {
            let hint = closest.map(|c| format!("; did you mean `{c}`?")).unwrap_or_default();
            let all = outcomes.join(", ");
            super::problem(Code::BadScenario, format!("--target: no outcome `{outcome}` (the outcomes: {all}){hint}"))
        }
        target::TargetError::NoShare { value } => super::problem(
            Code::BadScenario,
            format!("--target: at {value} no encounter ran to the end, so there is no share"),
        ),
    }
}

/// The names a sweep's report and shard are headed with.
struct Names {
    ruleset: String,
    scenario: String,
    parameters: Vec<String>,
    ranges: Vec<String>,
    sets: Vec<String>,
    controls: Vec<String>,
}

impl Names {
    fn head(&self, seed: u64, runs: u64) -> report::Head<'_> {
        report::Head {
            ruleset: &self.ruleset,
            scenario: &self.scenario,
            seed,
            runs,
            ranges: &self.ranges,
            parameters: &self.parameters,
            sets: &self.sets,
            controls: &self.controls,
        }
    }

    fn shard(
        &self,
        ruleset: &tempo::ir::Ruleset,
        scenario: &tempo::run::scenario::Scenario,
        batch: &Batch,
        runs: u64,
        points: &[Point],
        played: sweep::Played,
    ) -> shard::SweepShard {
        let ir = ruleset.to_ron().unwrap_or_default();
        let ranges = self.ranges.join(" ");
        shard::SweepShard {
            kind: shard::SweepShard::KIND.to_string(),
            format: shard::FORMAT,
            tempo: env!("CARGO_PKG_VERSION").to_string(),
            ruleset: self.ruleset.clone(),
            scenario: self.scenario.clone(),
            fingerprint: tempo::sim::shard::fingerprint(&[&ir, &format!("{scenario:?}"), &ranges]),
            seed: batch.seed,
            runs,
            from: batch.runs.start,
            to: batch.runs.end,
            parameters: self.parameters.clone(),
            ranges: self.ranges.clone(),
            sets: self.sets.clone(),
            controls: self.controls.clone(),
            points: points
                .iter()
                .zip(played.totals)
                .zip(played.paired)
                .map(|((p, totals), paired)| shard::PointShard {
                    set: p.set.clone(),
                    layout: (*p.layout).clone(),
                    totals,
                    paired,
                })
                .collect(),
        }
    }
}

fn print(report: &report::Sweep, output: &OutputArgs, to: Option<&Path>, inputs: &[PathBuf]) -> Outcome {
    if let Some(path) = &output.html {
        write_html(path, inputs, sweep::html::page(report))?;
    }
    let text = match output.format {
        SimFormat::Text => report::to_text(report),
        SimFormat::Json => json(report),
    };
    emit(&text, to, inputs)
}

/// `tempo sim merge` of a sweep's shards: the report of the whole sweep.
pub(super) fn merge(
    shards: &[shard::SweepShard],
    names: &[String],
    output: &OutputArgs,
    to: Option<&Path>,
    files: &[PathBuf],
) -> Outcome {
    let merged = match shard::merge(shards, names) {
        Ok(m) => m,
        Err(problems) => {
            eprintln!("error: these shards do not make one sweep:\n  {}", problems.join("\n  "));
            return Err(Failure::Problems);
        }
    };
    let f = &merged.first;
    let names = Names {
        ruleset: f.ruleset.clone(),
        scenario: f.scenario.clone(),
        parameters: f.parameters.clone(),
        ranges: f.ranges.clone(),
        sets: f.sets.clone(),
        controls: f.controls.clone(),
    };
    let at: Vec<report::At<'_>> = f.points.iter().map(|p| (p.set.as_slice(), &p.layout)).collect();
    let head = names.head(f.seed, f.runs);
    print(&report::sweep(&head, report::rows(&at, &merged.played, &head), None), output, to, files)
}

fn at(points: &[Point]) -> Vec<report::At<'_>> {
    points.iter().map(|p| (p.set.as_slice(), &*p.layout)).collect()
}
