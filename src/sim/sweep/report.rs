//! The report of a sweep: each point's summary (exactly what `tempo sim` prints for it), the
//! paired change from the point before it, and the target's bracket when one was asked for; as
//! one JSON document (../shared/design/contracts.md) or a table for a person.

use super::super::compare::{self, Difference};
use super::super::layout::Layout;
use super::super::stats::{self, Estimate, Toward};
use super::super::summary::{self, Summary};
use super::Played;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The version of the sweep document; raised when a field changes meaning or goes away.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    pub format: u32,
    pub ruleset: String,
    pub scenario: String,
    pub seed: u64,
    /// Encounters played at each point.
    pub runs: u64,
    /// The swept names, in the order given: the first is the grid's rows, the second its columns.
    pub parameters: Vec<String>,
    /// Each range as given (`Brute.hp_max=20..30`, `ap_max=2..8:2`).
    pub ranges: Vec<String>,
    /// Each `--set` fixed for the whole sweep, as given (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
    /// Each `--control` the sweep was played under, as given (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<String>,
    /// The points played, in order of their values (row by row for a grid).
    pub points: Vec<PointRow>,
    /// With `--target`: where the share crosses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRow {
    /// Each swept name with its value at this point.
    pub set: BTreeMap<String, i64>,
    /// What `tempo sim` with these `--set`s prints as JSON.
    pub summary: Summary,
    /// The paired difference from the point before it (for a grid, the one before it in its
    /// row); left out for the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The values of the point compared with (A); this point is B.
    pub from: BTreeMap<String, i64>,
    /// Seeds on which both points ran to the end: the differences are over these.
    pub paired: u64,
    /// Each count both points have and at least one counted: B − A, as `tempo compare` reports
    /// it.
    pub differences: Vec<Difference>,
}

/// Where an outcome's share crosses the target share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    pub outcome: String,
    pub share: f64,
    /// The two neighbouring values between which the share crosses the target (left out when it
    /// does not cross it in the range).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between: Option<[i64; 2]>,
    /// The share at each end of `between`, or of the range when the target lies outside it.
    pub ends: [Estimate; 2],
    /// `crossed`, or `below` / `above` when the share is below or above the target at both ends
    /// of the range.
    pub verdict: String,
    /// Whether the shares of the points played rise (or fall) steadily from one end to the
    /// other; when not, the bracket is one crossing and there may be others.
    pub monotone: bool,
    /// Whether neither end's interval holds the target: when one does, the bracket is within the
    /// noise and more runs would place it better.
    pub settled: bool,
}

/// Where a point is and what it counts: its swept values, and its layout.
pub type At<'a> = (&'a [(String, i64)], &'a Layout);

/// The points' rows: each point's summary, and its change from the point it is paired with.
pub fn rows(points: &[At<'_>], played: &Played, head: &Head<'_>) -> Vec<PointRow> {
    let mut out = Vec::with_capacity(points.len());
    for (k, (set, layout)) in points.iter().enumerate() {
        let s = summary::summarise(head.ruleset, head.seed, layout, &played.totals[k]).measured(
            head.scenario,
            &point_sets(head.sets, set),
            head.controls,
        );
        let change = match (played.paired.get(k), k.checked_sub(1).and_then(|j| points.get(j))) {
            (Some(Some(paired)), Some((before, before_layout))) => Some(Change {
                from: values(before),
                paired: paired.n,
                differences: compare::differences(
                    (before_layout, layout),
                    (&played.totals[k - 1], &played.totals[k]),
                    paired,
                ),
            }),
            _ => None,
        };
        out.push(PointRow { set: values(set), summary: s, change });
    }
    out
}

/// What every point shares: the names and numbers a report is headed with.
pub struct Head<'a> {
    pub ruleset: &'a str,
    pub scenario: &'a str,
    pub seed: u64,
    pub runs: u64,
    pub ranges: &'a [String],
    pub parameters: &'a [String],
    pub sets: &'a [String],
    pub controls: &'a [String],
}

/// The whole report.
pub fn sweep(head: &Head<'_>, points: Vec<PointRow>, target: Option<Target>) -> Sweep {
    Sweep {
        format: FORMAT,
        ruleset: head.ruleset.to_string(),
        scenario: head.scenario.to_string(),
        seed: head.seed,
        runs: head.runs,
        parameters: head.parameters.to_vec(),
        ranges: head.ranges.to_vec(),
        sets: head.sets.to_vec(),
        controls: head.controls.to_vec(),
        points,
        target,
    }
}

/// The `--set`s a point was played under, as `tempo sim` would name them: the fixed ones, then
/// the point's values.
pub fn point_sets(fixed: &[String], set: &[(String, i64)]) -> Vec<String> {
    fixed.iter().cloned().chain(set.iter().map(|(n, v)| format!("{n}={v}"))).collect()
}

fn values(set: &[(String, i64)]) -> BTreeMap<String, i64> {
    set.iter().cloned().collect()
}

/// The share of outcome `outcome` at a point, with its interval (None when the point's layout
/// has no such outcome).
pub fn share(layout: &Layout, totals: &super::super::totals::Totals, outcome: &str) -> Option<Estimate> {
    (0..layout.outcomes())
        .find(|k| layout.outcome_name(*k) == outcome)
        .map(|k| summary::estimate(layout, totals, layout.outcome(k)))
}

/// The outcomes any point saw (and the target's), in the first point's order.
pub(crate) fn seen_outcomes(s: &Sweep) -> Vec<String> {
    let Some(first) = s.points.first() else { return Vec::new() };
    first
        .summary
        .outcomes
        .iter()
        .map(|o| o.outcome.clone())
        .filter(|name| {
            s.target.as_ref().is_some_and(|t| &t.outcome == name)
                || s.points.iter().any(|p| p.summary.outcomes.iter().any(|o| &o.outcome == name && o.count > 0))
        })
        .collect()
}

/// The change of one metric, in percentage points for a share: `-2.9 [-4.1, -1.7] *`; the bounds
/// rounded outward, as every bound is.
fn change_cell(p: &PointRow, metric: &str, share: bool) -> String {
    let Some(d) = p.change.as_ref().and_then(|c| c.differences.iter().find(|d| d.metric == metric)) else {
        return String::new();
    };
    let e = &d.difference;
    let signed = |x: f64, toward: Toward| {
        let s = if share {
            // A share's decimals are a percent's plus two, as in the shares beside it.
            let (r, d) = stats::rounded(x, 3, toward);
            format!("{:.*}", d.saturating_sub(2) as usize, r * 100.0)
        } else {
            summary::num_toward(x, toward)
        };
        if x > 0.0 {
            format!("+{s}")
        } else {
            s
        }
    };
    let mark = if d.marked { " *" } else { "" };
    format!(
        "{} [{}, {}]{mark}",
        signed(e.value, Toward::Nearest),
        signed(e.low, Toward::Down),
        signed(e.high, Toward::Up)
    )
}

/// The sweep as a table, one row per point: each outcome's share and its change from the point
/// before, the mean length and its change; then the target's bracket.
pub fn to_text(s: &Sweep) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}, {}: sweep of {} ({} points), {} encounters each on the same seeds (seed {}).",
        s.ruleset,
        s.scenario,
        s.ranges.join(" by "),
        s.points.len(),
        s.runs,
        s.seed
    );
    let changes = summary::changes(&s.sets, &s.controls);
    if !changes.is_empty() {
        let _ = writeln!(out, "Every point with {changes}.");
    }
    out.push_str(
        "95% intervals in brackets. change: the paired difference from the row above (percentage points\n\
         for shares); * : not noise at 95% (exact McNemar p < 0.05 for shares, else the interval leaves out 0).\n\n",
    );
    let outcomes = seen_outcomes(s);
    let mut header: Vec<String> = s.parameters.clone();
    for o in &outcomes {
        header.push(o.clone());
        header.push("change".into());
    }
    header.push("rounds".into());
    header.push("change".into());
    let rows: Vec<Vec<String>> = s
        .points
        .iter()
        .map(|p| {
            let mut row: Vec<String> =
                s.parameters.iter().map(|n| p.set.get(n).map(i64::to_string).unwrap_or_default()).collect();
            for o in &outcomes {
                let share = p.summary.outcomes.iter().find(|x| &x.outcome == o).map(|x| &x.share);
                row.push(share.map(summary::show_share).unwrap_or_default());
                row.push(change_cell(p, &format!("outcome/{o}"), true));
            }
            row.push(summary::show(&p.summary.rounds.mean));
            row.push(change_cell(p, "rounds", false));
            row
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    summary::table(&mut out, &header, &rows);
    for p in &s.points {
        let failed: u64 = p.summary.failures.iter().map(|f| f.count).sum();
        if failed > 0 {
            let at: Vec<String> = p.set.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let _ = writeln!(out, "\nAt {}: {failed} runs failed (see `tempo sim` with these --set).", at.join(", "));
        }
    }
    if let Some(t) = &s.target {
        target_text(&mut out, s, t);
    }
    out
}

pub(crate) fn target_text(out: &mut String, s: &Sweep, t: &Target) {
    let name = s.parameters.first().map(String::as_str).unwrap_or("the value");
    let pct = |e: &Estimate| summary::show_share(e);
    let _ = write!(out, "\nTarget: {} at {}%: ", t.outcome, summary::num(t.share * 100.0));
    match (t.verdict.as_str(), t.between) {
        ("crossed", Some([lo, hi])) => {
            let _ = writeln!(
                out,
                "the share crosses it between {name} = {lo} ({}) and {name} = {hi} ({}).",
                pct(&t.ends[0]),
                pct(&t.ends[1])
            );
        }
        (verdict, _) => {
            let _ = writeln!(
                out,
                "not reached in the range: the share is {verdict} it at both ends ({} and {}).",
                pct(&t.ends[0]),
                pct(&t.ends[1])
            );
        }
    }
    if !t.monotone {
        out.push_str("The share is not monotone over the points played: this is one crossing, there may be others.\n");
    }
    if t.verdict == "crossed" && !t.settled {
        out.push_str(
            "An end's interval holds the target: the bracket is within the noise; more --runs would place it better.\n",
        );
    }
}
