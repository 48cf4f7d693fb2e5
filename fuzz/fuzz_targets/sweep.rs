//! Arbitrary bytes (read as UTF-8, invalid sequences replaced) as the flags of `tempo sweep`,
//! one a line: `target OUTCOME=SHARE` is read by `parse_target`, any other line by
//! `parse_sweep_set` (a range `NAME=LO..HI[:STEP]` or a fixed `NAME=VALUE`). Over the Frontiers
//! duel (3 rounds), the fixed numbers are set, the grid of the one or two ranges is built and its
//! first and last points made whatever its length; a grid of at most 16 points is played (8 runs
//! a point) into the report, as text and JSON; with a target and one range of at most 2^20
//! points, `target::find` bisects it (4 runs a probe) and the target's report is made. Anything
//! may be refused; nothing may panic. Every point of a grid played has the totals it has when
//! played alone, on a fresh copy of the ruleset and scenario (the sweep plays all points with one
//! runner per thread).

#![no_main]

use libfuzzer_sys::fuzz_target;
use tempo::run::scenario::{self, SetFlag};
use tempo::sim::sweep::{self, report, target, Grid, Point, SweepSet, Swept};
use tempo::sim::Batch;

fn head<'a>(names: &'a (Vec<String>, Vec<String>, Vec<String>), controls: &'a [String]) -> report::Head<'a> {
    report::Head {
        ruleset: "frontiers.rules",
        scenario: "frontiers-duel.ron",
        seed: tempo_fuzz::SEED,
        runs: tempo_fuzz::MOST_RUNS,
        ranges: &names.0,
        parameters: &names.1,
        sets: &names.2,
        controls,
    }
}

fn play_all(grid: &Grid<'_>, names: &(Vec<String>, Vec<String>, Vec<String>)) {
    let Ok(points) = grid.points(&(0..grid.len()).collect::<Vec<u64>>()) else { return };
    let row = usize::try_from(grid.ranges.last().map(Swept::len).unwrap_or(1)).unwrap_or(usize::MAX);
    let pairs = sweep::pairs_in_rows(points.len(), row);
    let batch = Batch { seed: tempo_fuzz::SEED, runs: 0..tempo_fuzz::MOST_RUNS };
    let Ok(played) = sweep::play(grid, &points, &pairs, &batch, Some(1), &|_| {}) else { return };
    same_as_alone(grid, &points, &batch, &played);
    let at: Vec<report::At<'_>> = points.iter().map(|p| (p.set.as_slice(), &*p.layout)).collect();
    let h = head(names, &[]);
    let r = report::sweep(&h, report::rows(&at, &played, &h), None);
    let _ = report::to_text(&r);
    let json = serde_json::to_string(&r).expect("a report serializes");
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "the report's JSON is not JSON");
}

/// Each point's totals are those of the point played alone, on a fresh copy of the ruleset and
/// scenario with its numbers set (issue 45: a sweep plays every point with one runner per
/// thread, the numbers set on it).
fn same_as_alone(grid: &Grid<'_>, points: &[Point], batch: &Batch, played: &sweep::Played) {
    for (p, totals) in points.iter().zip(&played.totals) {
        let (mut ruleset, mut scenario) = grid.copy();
        Grid::set_on(&p.set, &mut ruleset, &mut scenario).expect("a point's numbers set again");
        let Ok(alone) = tempo::sim::simulate(&ruleset, &scenario, &p.layout, batch, Some(1), &|_| {}) else {
            panic!("a point the sweep played cannot be played alone")
        };
        assert!(alone == *totals, "a point's totals in the sweep differ from the point played alone: {:?}", p.set);
    }
}

fn bisect(grid: &Grid<'_>, t: &target::TargetFlag, names: &(Vec<String>, Vec<String>, Vec<String>)) {
    let batch = Batch { seed: tempo_fuzz::SEED, runs: 0..4 };
    let Ok(found) = target::find(grid, t, &batch, Some(1), &|_| {}) else { return };
    let Ok(points) = grid.points(&found.probed) else { panic!("a point the bisection probed cannot be made again") };
    let pairs: Vec<bool> = (0..points.len()).map(|k| k > 0).collect();
    let Ok(played) = sweep::play(grid, &points, &pairs, &batch, Some(1), &|_| {}) else { return };
    let values: Vec<i64> = points.iter().map(|p| p.set[0].1).collect();
    let shares: Vec<_> = points
        .iter()
        .zip(&played.totals)
        .map(|(p, totals)| {
            report::share(&p.layout, totals, &t.outcome).unwrap_or(tempo::sim::stats::Estimate::point(0.0))
        })
        .collect();
    let aim = target::target(t, &found, &values, &shares);
    let at: Vec<report::At<'_>> = points.iter().map(|p| (p.set.as_slice(), &*p.layout)).collect();
    let h = head(names, &[]);
    let r = report::sweep(&h, report::rows(&at, &played, &h), Some(aim));
    let _ = report::to_text(&r);
    let _ = serde_json::to_string(&r).expect("a report serializes");
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (mut ranges, mut fixed, mut aim): (Vec<Swept>, Vec<SetFlag>, Option<target::TargetFlag>) =
        (vec![], vec![], None);
    for line in text.lines().take(4) {
        if let Some(t) = line.strip_prefix("target ") {
            let Ok(t) = target::parse_target(t) else { return };
            aim = Some(t);
            continue;
        }
        match sweep::parse_sweep_set(line) {
            Ok(SweepSet::Range(r)) => ranges.push(r),
            Ok(SweepSet::Fixed(f)) => fixed.push(f),
            Err(_) => return,
        }
    }
    if ranges.is_empty() || ranges.len() > 2 {
        return;
    }
    let mut ruleset = tempo_fuzz::frontiers().clone();
    let mut scenario = tempo_fuzz::scenarios()[1].clone();
    for f in &fixed {
        if scenario::apply_set(&mut scenario, &mut ruleset, f).is_err() {
            return;
        }
    }
    let grid = Grid { ruleset: &ruleset, scenario: &scenario, ranges: &ranges };
    let n = grid.len();
    if grid.point(0).is_err() || grid.point(n.saturating_sub(1)).is_err() {
        return;
    }
    let names = (
        ranges.iter().map(Swept::text).collect(),
        ranges.iter().map(|r| r.name.clone()).collect(),
        fixed.iter().map(SetFlag::text).collect(),
    );
    match aim {
        Some(t) if ranges.len() == 1 && n <= 1 << 20 => bisect(&grid, &t, &names),
        Some(_) => {}
        None if n <= tempo_fuzz::MOST_POINTS => play_all(&grid, &names),
        None => {}
    }
});
