//! Compare: one scenario under two rulesets, or two scenarios under one ruleset, on the same
//! seeds. Run i of A and run i of B share their seed, so each count has a paired difference
//! B − A (what B changes); its mean and 95% interval come from those differences, and outcomes
//! also get the exact McNemar test on the discordant pairs.

use super::layout::{Kind, Layout};
use super::stats::{self, Estimate};
use super::summary::{self, Summary};
use super::totals::Totals;
use super::{seed_of, Batch, Counter};
use crate::ir::Ruleset;
#[cfg(feature = "parallel")]
use crate::par::*;
use crate::run::scenario::Scenario;
use crate::run::RunError;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Sums of the paired differences of the counts A and B both have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    /// (place in A's layout, place in B's layout) of each count both have, in A's order.
    pub pairs: Vec<(usize, usize)>,
    /// Pairs where both runs finished.
    pub n: u64,
    pub sum: Vec<i128>,
    pub(crate) sum_sq: Vec<i128>,
}

impl Paired {
    pub fn new(a: &Layout, b: &Layout) -> Paired {
        let keys_b = b.keys();
        let pairs: Vec<(usize, usize)> = a
            .keys()
            .iter()
            .enumerate()
            .filter_map(|(i, k)| keys_b.iter().position(|x| x == k).map(|j| (i, j)))
            .collect();
        let n = pairs.len();
        Paired { pairs, n: 0, sum: vec![0; n], sum_sq: vec![0; n] }
    }

    pub(crate) fn add(&mut self, a: &[i64], b: &[i64]) {
        self.n += 1;
        for (k, (i, j)) in self.pairs.iter().enumerate() {
            let d = i128::from(b[*j]) - i128::from(a[*i]);
            self.sum[k] += d;
            self.sum_sq[k] += d * d;
        }
    }

    /// `merge`, refusing where a sum would not fit: for pairs read from files.
    pub(crate) fn try_merge(&mut self, other: &Paired) -> Result<(), ()> {
        let n = self.n.checked_add(other.n).ok_or(())?;
        let mut sum = self.sum.clone();
        let mut sum_sq = self.sum_sq.clone();
        for (x, y) in sum.iter_mut().zip(&other.sum).chain(sum_sq.iter_mut().zip(&other.sum_sq)) {
            *x = x.checked_add(*y).ok_or(())?;
        }
        (self.n, self.sum, self.sum_sq) = (n, sum, sum_sq);
        Ok(())
    }

    pub(crate) fn merge(&mut self, other: &Paired) {
        self.n += other.n;
        self.sum.iter_mut().zip(&other.sum).for_each(|(x, y)| *x += y);
        self.sum_sq.iter_mut().zip(&other.sum_sq).for_each(|(x, y)| *x += y);
    }
}

/// Everything a comparison adds up.
pub struct Compared {
    pub a: Totals,
    pub b: Totals,
    pub paired: Paired,
}

/// Plays run i of the batch as A and as B with the same seed, on `jobs` threads: each side a
/// ruleset and a scenario (two rulesets and one scenario, or one ruleset and two scenarios).
pub fn compare(
    rules: (&Ruleset, &Ruleset),
    scenarios: (&Scenario, &Scenario),
    layouts: (&Layout, &Layout),
    batch: &Batch,
    jobs: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Compared, RunError> {
    let (ra, rb) = rules;
    let (la, lb) = layouts;
    let (sa, sb) = scenarios;
    let xa = Counter::new(ra, sa, la)?.exact_solution();
    let xb = Counter::new(rb, sb, lb)?.exact_solution();
    let empty = || Compared { a: Totals::new(la), b: Totals::new(lb), paired: Paired::new(la, lb) };
    let work = || {
        super::blocks(&batch.runs)
            .map_init(
                || {
                    let a = Counter::new(ra, sa, la).ok().map(|c| c.adopting(xa.as_ref()));
                    (a, Counter::new(rb, sb, lb).ok().map(|c| c.adopting(xb.as_ref())))
                },
                |counters, block| {
                    let mut out = empty();
                    if let (Some(ca), Some(cb)) = counters {
                        for i in block.clone() {
                            let seed = seed_of(batch.seed, i);
                            let a = ca.play(seed);
                            let b = cb.play(seed);
                            if let (Ok(ta), Ok(tb)) = (&a, &b) {
                                out.paired.add(&ta.values, &tb.values);
                            }
                            match a {
                                Ok(t) => out.a.add(t),
                                Err(e) => out.a.fail(i, seed, &e),
                            }
                            match b {
                                Ok(t) => out.b.add(t),
                                Err(e) => out.b.fail(i, seed, &e),
                            }
                        }
                    }
                    progress(block.end - block.start);
                    out
                },
            )
            .reduce(empty, |mut x, y| {
                x.a.merge(&y.a);
                x.b.merge(&y.b);
                x.paired.merge(&y.paired);
                x
            })
    };
    Ok(super::on_threads(jobs, work))
}

/// One count under A and B, and their paired difference B − A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// The count, as `docs/simulation.md` names it: `outcome/heroes wins`, `rounds`, ...
    pub metric: String,
    /// Per encounter (a share for outcomes and `.../ever`).
    pub a: f64,
    pub b: f64,
    /// Mean of the paired differences B − A (what B changes), with its 95% interval.
    pub difference: Estimate,
    /// For shares: the exact McNemar test's two-sided p-value.
    pub(crate) p_value: Option<f64>,
    /// The difference is not noise at 95%: for shares the exact test's p < 0.05 alone (it is
    /// exact; the normal interval is not, and may leave out 0 where a few discordant pairs are
    /// all the evidence), for the rest the interval leaves out 0.
    pub marked: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub format: u32,
    /// The scenario's file name (A's when two scenarios are compared).
    #[serde(default)]
    pub scenario: String,
    /// B's scenario's file name, when two scenarios are compared under one ruleset.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scenario_b: String,
    /// What the report calls A and B: the file names of what differs between them (the
    /// rulesets, or the scenarios), their paths as given when the names are the same.
    #[serde(default)]
    pub labels: [String; 2],
    pub seed: u64,
    pub runs: u64,
    /// Pairs in which both runs finished (the differences are over these).
    pub paired: u64,
    pub a: Summary,
    pub b: Summary,
    /// Counts both rulesets have and at least one of them ever counted, in A's order.
    pub differences: Vec<Difference>,
    /// Each `--set` both were played under, as given (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
    /// Each `--control` both were played under, as given (none: the scenario's own
    /// controllers, and the field is left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<String>,
}

pub fn summarise(names: (&str, &str), seed: u64, layouts: (&Layout, &Layout), c: &Compared) -> Comparison {
    let (la, lb) = layouts;
    Comparison {
        format: summary::FORMAT,
        scenario: String::new(),
        scenario_b: String::new(),
        labels: [names.0.to_string(), names.1.to_string()],
        seed,
        runs: c.a.played,
        paired: c.paired.n,
        a: summary::summarise(names.0, seed, la, &c.a),
        b: summary::summarise(names.1, seed, lb, &c.b),
        differences: differences(layouts, (&c.a, &c.b), &c.paired),
        sets: Vec::new(),
        controls: Vec::new(),
    }
}

/// The differences B − A of the counts both have and at least one of them ever counted, in A's
/// order.
pub(crate) fn differences(layouts: (&Layout, &Layout), totals: (&Totals, &Totals), p: &Paired) -> Vec<Difference> {
    let (la, lb) = layouts;
    let (ta, tb) = totals;
    let keys = la.keys();
    let mut differences = Vec::new();
    for (k, (i, j)) in p.pairs.iter().enumerate() {
        if ta.sum[*i] == 0 && tb.sum[*j] == 0 {
            continue;
        }
        let a = summary::estimate(la, ta, *i).value;
        let b = summary::estimate(lb, tb, *j).value;
        let difference = stats::mean(p.n, p.sum[k], p.sum_sq[k]);
        let (p_value, marked) = match la.kind(*i) {
            Kind::Indicator => {
                // d is 1 where only B had it, −1 where only A did: Σd and Σd² give both counts.
                let only_b = u64::try_from((p.sum_sq[k] + p.sum[k]) / 2).unwrap_or(0);
                let only_a = u64::try_from((p.sum_sq[k] - p.sum[k]) / 2).unwrap_or(0);
                let pv = stats::mcnemar(only_a, only_b);
                (Some(pv), pv < 0.05)
            }
            Kind::Count => (None, difference.excludes_zero()),
        };
        differences.push(Difference { metric: keys[*i].clone(), a, b, difference, p_value, marked });
    }
    differences
}

impl Comparison {
    /// Names what was measured, here and in both summaries: the scenario's file name (and B's
    /// when two scenarios are compared), each `--set` and each `--control` as given.
    pub fn measured(
        mut self,
        scenario: &str,
        scenario_b: Option<&str>,
        sets: &[String],
        controls: &[String],
    ) -> Comparison {
        self.scenario = scenario.to_string();
        self.scenario_b = scenario_b.unwrap_or_default().to_string();
        self.sets = sets.to_vec();
        self.controls = controls.to_vec();
        self.a = self.a.measured(scenario, sets, controls);
        self.b = self.b.measured(scenario_b.unwrap_or(scenario), sets, controls);
        self
    }

    /// B also played under these controls (`compare --control-b`): its summary lists them
    /// after the shared ones.
    pub fn played_b(mut self, controls_b: &[String]) -> Comparison {
        self.b.controls.extend(controls_b.iter().cloned());
        self
    }

    /// What the report calls A and B (the rulesets' names unless said).
    pub fn labelled(mut self, a: &str, b: &str) -> Comparison {
        self.labels = [a.to_string(), b.to_string()];
        self
    }

    /// `frontiers-two-ap.rules - frontiers.rules`: the differences' heading.
    pub fn b_minus_a(&self, minus: &str) -> String {
        format!("{} {minus} {}", self.labels[1], self.labels[0])
    }

    /// What both sides share: the scenario (two rulesets) or the ruleset (two scenarios).
    pub fn shared(&self) -> String {
        if self.scenario_b.is_empty() {
            self.scenario.clone()
        } else {
            self.a.ruleset.clone()
        }
    }
}

/// The rows of the differences table: metric, A, B, B − A with its interval, the exact test's
/// p-value for shares, `*` where the difference is not noise.
pub(crate) fn difference_rows(c: &Comparison) -> Vec<Vec<String>> {
    c.differences
        .iter()
        .map(|d| {
            vec![
                d.metric.clone(),
                summary::num(d.a),
                summary::num(d.b),
                summary::show(&d.difference),
                d.p_value.map(stats::show_p).unwrap_or_default(),
                if d.marked { "*".into() } else { String::new() },
            ]
        })
        .collect()
}

/// The comparison as a table: A, B, B − A with its interval, `*` where it is not noise.
pub fn to_text(c: &Comparison) -> String {
    let mut out = String::new();
    let [la, lb] = &c.labels;
    let _ = writeln!(
        out,
        "{la} against {lb}, {}: {} encounters each on the same seeds (seed {}), {} pairs ran to the end.",
        c.shared(),
        c.runs,
        c.seed,
        c.paired
    );
    summary::changes_line(&mut out, &c.sets, &c.controls);
    let _ =
        writeln!(out, "Per encounter; outcome/... and .../ever are shares. {}: what {lb} changes.", c.b_minus_a("-"));
    out.push_str("* : the difference is not noise at 95% (for shares, the exact McNemar test's p < 0.05, the\n");
    out.push_str("interval not used; for the rest, the interval leaves out 0).\n\n");
    let difference = c.b_minus_a("-");
    summary::table(&mut out, &["metric", la, lb, &difference, "McNemar p", ""], &difference_rows(c));
    for (label, s) in [(la, &c.a), (lb, &c.b)] {
        let _ = writeln!(out, "\n{label}: outcome by the side that took the first turn:");
        let rows = summary::first_side_rows(s);
        summary::table(&mut out, &["first turn", "outcome", "encounters", "share"], &rows);
    }
    for (label, s) in [(la, &c.a), (lb, &c.b)] {
        for f in &s.failures {
            let _ = writeln!(
                out,
                "\n{label}: {} runs failed with {} (first: tempo run ... --seed {}): {}",
                f.count, f.code, f.first_seed, f.message
            );
        }
    }
    out
}
