//! The summary of a simulation: every estimate with its 95% interval, as a stable JSON document
//! (docs/simulation.md, "The JSON summary") or a table for a person.

use super::layout::{Kind, Layout};
use super::stats::{self, Estimate, Toward};
use super::totals::Totals;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The version of the JSON document; raised when a field changes meaning or goes away.
pub const FORMAT: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub format: u32,
    pub ruleset: String,
    /// The scenario's file name (empty where the caller named none: a cell of `--skill`).
    #[serde(default)]
    pub scenario: String,
    pub seed: u64,
    /// Runs played, and how many ran to the end (every estimate is over those).
    pub runs: u64,
    pub completed: u64,
    pub failures: Vec<FailureRow>,
    pub outcomes: Vec<OutcomeRow>,
    /// The outcomes again, split by the side that took the encounter's first turn: a row per
    /// side that did (and `no turn` when some encounter had none).
    #[serde(default)]
    pub outcomes_by_first_side: Vec<FirstSide>,
    pub rounds: Rounds,
    pub turns: Vec<TurnRow>,
    pub pools: Vec<PoolRow>,
    pub actions: Vec<ActionRow>,
    pub refusals: Vec<RefusalRow>,
    pub reactions: Reactions,
    pub conditions: Vec<ConditionRow>,
    /// Each `--set` the batch was played under, as given (none: the files as written, and the
    /// field is left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
    /// Each `--control` the batch was played under, as given (none: the scenario's own
    /// controllers, and the field is left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<String>,
    /// The skill report `--skill` asks for (left out without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<Skill>,
    /// Notes on the batch: each action a policy of the scenario cannot score (`run::unscored`),
    /// once. Left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRow {
    pub code: String,
    pub count: u64,
    /// Replays the first failure: `tempo run RULES SCENARIO --seed <first_seed>`.
    pub first_seed: u64,
    pub first_run: u64,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeRow {
    pub outcome: String,
    pub count: u64,
    /// The share of completed encounters (Wilson interval).
    pub share: Estimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstSide {
    /// The side whose participant took the encounter's first turn (`no turn`: nobody had one).
    pub side: String,
    /// Encounters that ran to the end with that first turn (every share is over these).
    pub completed: u64,
    pub outcomes: Vec<OutcomeRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rounds {
    pub mean: Estimate,
    pub median: u32,
    pub(crate) p10: u32,
    pub(crate) p90: u32,
    pub min: u32,
    pub max: u32,
    pub histogram: Vec<Bar>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    pub value: u32,
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRow {
    pub who: String,
    /// Turns per encounter it played: it could act and something was affordable.
    pub turns: Estimate,
    /// Turns it began able to act with nothing it could afford (not among `turns`): per
    /// encounter, and as a share of the turns it could act in, played or stuck (ratio of
    /// totals). A turn it could not act in (incapacitated) is neither.
    pub stuck: Estimate,
    pub stuck_share: Estimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolRow {
    pub who: String,
    pub pool: String,
    /// Paid per encounter, per round and per turn of its owner.
    pub spent: Estimate,
    pub spent_per_round: Estimate,
    pub(crate) spent_per_turn: Estimate,
    /// Left unspent and thrown away (overwritten by a refresh, taken by `lose` or `decay`) when
    /// it could have been spent (not the first refresh of an untouched pool, not a pool no cost
    /// names, not after the end was decided), per encounter and per round.
    pub lost: Estimate,
    pub(crate) lost_per_round: Estimate,
    /// Declarations that paid it below its floor, per encounter.
    pub overspends: Estimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionRow {
    pub who: String,
    pub action: String,
    pub kind: String,
    /// Uses per encounter.
    pub uses: Estimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusalRow {
    pub action: String,
    pub code: String,
    /// Refused declarations per encounter.
    pub refused: Estimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reactions {
    pub per_encounter: Estimate,
    pub(crate) per_round: Estimate,
    pub(crate) chains_per_encounter: Estimate,
    /// Chains by length: 1 is a reaction nobody answered, 2 a reaction answered by another.
    pub chain_lengths: Vec<Bar>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConditionRow {
    pub who: String,
    pub condition: String,
    /// Times applied per encounter.
    pub applied: Estimate,
    /// Share of encounters in which it was applied at least once (Wilson interval).
    pub encounters: Estimate,
}

/// The skill report (the `skill` object of the JSON summary).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The sides varied: the first's policies are the matrix's rows, the second's (if any) its
    /// columns; a side not varied keeps its controllers as the scenario (and `--control`) give.
    pub sides: Vec<String>,
    /// Each varied side's policies as written, in the order given: the last is its strongest.
    pub policies: Vec<Vec<String>>,
    /// Encounters per cell, on the same seeds in every cell.
    pub runs: u64,
    /// Row by row: every combination of the policies, one per varied side.
    pub cells: Vec<Cell>,
    /// Per varied side and action it could take, under the strongest combination (every
    /// varied side under its last policy): decisions at which the action was affordable and
    /// at which it was taken. Only actions affordable at least once.
    pub options: Vec<OptionRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The policy of each varied side, as written.
    pub policies: Vec<String>,
    /// Encounters that ran to the end (every share is over these).
    pub completed: u64,
    /// Every outcome, as in the summary's `outcomes`.
    pub outcomes: Vec<OutcomeRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionRow {
    pub side: String,
    pub action: String,
    pub kind: String,
    /// Decisions (of the side's participants, by their policy) at which it was affordable.
    pub affordable: u64,
    /// Of those, decisions at which it was taken.
    pub chosen: u64,
    /// `chosen / affordable` (Wilson interval over decisions).
    pub share: Estimate,
    /// `dead` (never taken), `dominant` (taken every time) or `mixed`.
    pub verdict: String,
}

/// Estimates one count of the layout from the totals: a proportion or a mean per encounter.
/// Every count the layout keeps (turns, uses, points spent or lost, rounds) is of things that
/// happened, never below 0, and so is its interval.
pub fn estimate(layout: &Layout, t: &Totals, at: usize) -> Estimate {
    let n = t.completed;
    match layout.kind(at) {
        Kind::Indicator => stats::wilson(u64::try_from(t.sum[at]).unwrap_or(0), n),
        Kind::Count => stats::mean(n, t.sum[at], t.sum_sq[at]).within(0.0, f64::INFINITY),
    }
}

fn per_round(t: &Totals, at: usize) -> Estimate {
    let r = Layout::ROUNDS;
    stats::ratio(t.completed, (t.sum[at], t.sum_sq[at]), (t.sum[r], t.sum_sq[r]), t.by_round[at])
        .within(0.0, f64::INFINITY)
}

fn per_turn(layout: &Layout, t: &Totals, who: usize, at: usize) -> Estimate {
    let turns = layout.turns(who);
    stats::ratio(t.completed, (t.sum[at], t.sum_sq[at]), (t.sum[turns], t.sum_sq[turns]), t.by_turn[at])
        .within(0.0, f64::INFINITY)
}

/// Stuck turns over the turns it could act in (played and stuck): `turns` counts only those
/// played, so the denominator's sums are put together from both counts' (Σ turns·stuck is the
/// stuck count's `by_turn`).
fn stuck_share(layout: &Layout, t: &Totals, who: usize) -> Estimate {
    let (turns, stuck) = (layout.turns(who), layout.stuck(who));
    let cross = t.by_turn[stuck];
    let both = (t.sum[turns] + t.sum[stuck], t.sum_sq[turns] + 2 * cross + t.sum_sq[stuck]);
    stats::ratio(t.completed, (t.sum[stuck], t.sum_sq[stuck]), both, cross + t.sum_sq[stuck]).within(0.0, 1.0)
}

fn bars(histogram: &std::collections::BTreeMap<u32, u64>) -> Vec<Bar> {
    histogram.iter().map(|(value, count)| Bar { value: *value, count: *count }).collect()
}

/// The outcomes of the encounters each side began, for the sides that began any.
fn by_first_side(layout: &Layout, t: &Totals) -> Vec<FirstSide> {
    let width = layout.outcomes() + 1;
    let names = layout.sides.iter().map(String::as_str).chain(std::iter::once("no turn"));
    names
        .enumerate()
        .filter_map(|(side, name)| {
            let row = t.by_first.get(side * width..(side + 1) * width)?;
            let completed = *row.first()?;
            (completed > 0).then(|| FirstSide {
                side: name.to_string(),
                completed,
                outcomes: (0..layout.outcomes())
                    .map(|k| {
                        let count = row.get(1 + k).copied().unwrap_or(0);
                        OutcomeRow { outcome: layout.outcome_name(k), count, share: stats::wilson(count, completed) }
                    })
                    .collect(),
            })
        })
        .collect()
}

/// The summary of the totals. Rows where nothing was counted are left out.
pub fn summarise(ruleset: &str, seed: u64, layout: &Layout, t: &Totals) -> Summary {
    let n = t.completed;
    let failures = t
        .failures
        .iter()
        .map(|(code, f)| FailureRow {
            code: code.clone(),
            count: f.count,
            first_seed: f.first_seed,
            first_run: f.first_run,
            message: f.message.clone(),
        })
        .collect();
    let outcomes = (0..layout.outcomes())
        .map(|k| {
            let at = layout.outcome(k);
            OutcomeRow {
                outcome: layout.outcome_name(k),
                count: u64::try_from(t.sum[at]).unwrap_or(0),
                share: estimate(layout, t, at),
            }
        })
        .collect();
    let outcomes_by_first_side = by_first_side(layout, t);
    let rounds = Rounds {
        mean: estimate(layout, t, Layout::ROUNDS),
        median: stats::quantile(&t.rounds, 0.5),
        p10: stats::quantile(&t.rounds, 0.1),
        p90: stats::quantile(&t.rounds, 0.9),
        min: t.rounds.keys().next().copied().unwrap_or(0),
        max: t.rounds.keys().next_back().copied().unwrap_or(0),
        histogram: bars(&t.rounds),
    };
    let mut turns = Vec::new();
    let mut pools = Vec::new();
    let mut actions = Vec::new();
    let mut conditions = Vec::new();
    for (w, who) in layout.participants.iter().enumerate() {
        turns.push(TurnRow {
            who: who.clone(),
            turns: estimate(layout, t, layout.turns(w)),
            stuck: estimate(layout, t, layout.stuck(w)),
            stuck_share: stuck_share(layout, t, w),
        });
        for (p, pool) in layout.pools.iter().enumerate() {
            let (spent, lost, over) = (layout.spent(w, p), layout.lost(w, p), layout.overspent(w, p));
            if t.sum[spent] == 0 && t.sum[lost] == 0 && t.sum[over] == 0 {
                continue;
            }
            pools.push(PoolRow {
                who: who.clone(),
                pool: pool.clone(),
                spent: estimate(layout, t, spent),
                spent_per_round: per_round(t, spent),
                spent_per_turn: per_turn(layout, t, w, spent),
                lost: estimate(layout, t, lost),
                lost_per_round: per_round(t, lost),
                overspends: estimate(layout, t, over),
            });
        }
        for (a, action) in layout.actions.iter().enumerate() {
            let at = layout.uses(w, a);
            if t.sum[at] == 0 {
                continue;
            }
            actions.push(ActionRow {
                who: who.clone(),
                action: action.clone(),
                kind: layout.kinds.get(a).cloned().unwrap_or_default(),
                uses: estimate(layout, t, at),
            });
        }
        for (c, condition) in layout.conditions.iter().enumerate() {
            let at = layout.applied(w, c);
            if t.sum[at] == 0 {
                continue;
            }
            conditions.push(ConditionRow {
                who: who.clone(),
                condition: condition.clone(),
                applied: estimate(layout, t, at),
                encounters: estimate(layout, t, layout.ever(w, c)),
            });
        }
    }
    let refusals = t
        .refusals
        .iter()
        .flat_map(|(action, codes)| {
            codes.iter().map(move |(code, (s, ss))| RefusalRow {
                action: action.clone(),
                code: code.clone(),
                refused: stats::mean(n, *s, *ss).within(0.0, f64::INFINITY),
            })
        })
        .collect();
    let reactions = Reactions {
        per_encounter: estimate(layout, t, Layout::ANSWERS),
        per_round: per_round(t, Layout::ANSWERS),
        chains_per_encounter: estimate(layout, t, Layout::CHAINS),
        chain_lengths: bars(&t.chains),
    };
    Summary {
        format: FORMAT,
        ruleset: ruleset.to_string(),
        scenario: String::new(),
        seed,
        runs: t.played,
        completed: n,
        failures,
        outcomes,
        outcomes_by_first_side,
        rounds,
        turns,
        pools,
        actions,
        refusals,
        reactions,
        conditions,
        sets: Vec::new(),
        controls: Vec::new(),
        skill: None,
        notes: Vec::new(),
    }
}

impl Summary {
    /// Names what was measured: the scenario's file name, each `--set` and each `--control` as
    /// given (`summarise` knows only the totals).
    pub fn measured(mut self, scenario: &str, sets: &[String], controls: &[String]) -> Summary {
        self.scenario = scenario.to_string();
        self.sets = sets.to_vec();
        self.controls = controls.to_vec();
        self
    }
}

/// `1.23 [1.1, 1.36]`: the bounds rounded outward, and no number shown as 0 or 1 unless it is
/// exactly that.
pub fn show(e: &Estimate) -> String {
    format!(
        "{} [{}, {}]",
        num_toward(e.value, Toward::Nearest),
        num_toward(e.low, Toward::Down),
        num_toward(e.high, Toward::Up)
    )
}

/// `57.3% [54.2, 60.4]`: one decimal of a percent, the bounds rounded outward, with more
/// decimals where one would show 0% or 100% for what is not exactly that (`0.0% [0.0, 0.004]`).
pub(crate) fn show_share(e: &Estimate) -> String {
    let percent = |x: f64, toward: Toward| {
        // A share's decimals are a percent's plus two.
        let (r, d) = stats::rounded(x, 3, toward);
        format!("{:.*}", d.saturating_sub(2) as usize, r * 100.0)
    };
    format!(
        "{}% [{}, {}]",
        percent(e.value, Toward::Nearest),
        percent(e.low, Toward::Down),
        percent(e.high, Toward::Up)
    )
}

/// Up to three decimals, trailing zeros dropped: `1.06`, `4`, `0.005`.
pub(crate) fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    match s {
        "-0" | "" => "0".to_string(),
        _ => s.to_string(),
    }
}

/// A bound: three decimals rounded `toward`, more where three would show 0 or 1 for what is
/// not exactly that, trailing zeros dropped.
pub(crate) fn num_toward(x: f64, toward: Toward) -> String {
    let (r, d) = stats::rounded(x, 3, toward);
    let s = format!("{r:.*}", d as usize);
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    match s {
        "-0" | "" => "0".to_string(),
        _ => s.to_string(),
    }
}

/// Columns padded to their widest cell; the first column left-aligned, the rest too (estimates
/// read left to right).
pub fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::from(" ");
        for (i, cell) in cells.enumerate() {
            let _ = write!(s, " {cell:<width$}", width = widths.get(i).copied().unwrap_or(0));
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(out, &mut header.iter().copied());
    for row in rows {
        line(out, &mut row.iter().map(String::as_str));
    }
}

/// One table of the summary: what the text output and the HTML page both show.
pub struct Table {
    pub title: &'static str,
    pub header: &'static [&'static str],
    pub rows: Vec<Vec<String>>,
}

/// The failed runs, by code (no rows when none failed).
pub(crate) fn failures_table(s: &Summary) -> Table {
    Table {
        title: "Failed runs (replay one with `tempo run RULES SCENARIO --seed SEED`)",
        header: &["code", "runs", "first seed", "first message"],
        rows: s
            .failures
            .iter()
            .map(|f| vec![f.code.clone(), f.count.to_string(), f.first_seed.to_string(), f.message.clone()])
            .collect(),
    }
}

/// A row per side that took a first turn and outcome that happened at all: of the encounters
/// that side began, how many ended so.
pub(crate) fn first_side_rows(s: &Summary) -> Vec<Vec<String>> {
    let happened: Vec<&str> = s.outcomes.iter().filter(|o| o.count > 0).map(|o| o.outcome.as_str()).collect();
    s.outcomes_by_first_side
        .iter()
        .flat_map(|f| {
            f.outcomes.iter().filter(|o| happened.contains(&o.outcome.as_str())).map(|o| {
                vec![f.side.clone(), o.outcome.clone(), format!("{} of {}", o.count, f.completed), show_share(&o.share)]
            })
        })
        .collect()
}

/// The summary's tables, in order; sections with nothing counted are left out.
pub fn tables(s: &Summary) -> Vec<Table> {
    let r = &s.rounds;
    let re = &s.reactions;
    let lengths: Vec<String> = re.chain_lengths.iter().map(|b| format!("{}: {}", b.value, b.count)).collect();
    let all = vec![
        Table {
            title: "Outcome",
            header: &["outcome", "encounters", "share"],
            rows: s
                .outcomes
                .iter()
                .map(|o| vec![o.outcome.clone(), o.count.to_string(), show_share(&o.share)])
                .collect(),
        },
        Table {
            title: "Outcome by the side that took the first turn",
            header: &["first turn", "outcome", "encounters", "share"],
            rows: first_side_rows(s),
        },
        Table {
            title: "Length in rounds",
            header: &["mean", "median", "p10", "p90", "min", "max"],
            rows: vec![vec![
                show(&r.mean),
                r.median.to_string(),
                r.p10.to_string(),
                r.p90.to_string(),
                r.min.to_string(),
                r.max.to_string(),
            ]],
        },
        Table {
            title: "Turns (played: could act and afford something; stuck: began with nothing affordable)",
            header: &["who", "turns played", "stuck turns", "stuck share"],
            rows: s
                .turns
                .iter()
                .map(|t| vec![t.who.clone(), show(&t.turns), show(&t.stuck), show_share(&t.stuck_share)])
                .collect(),
        },
        Table {
            title: "Pools (per encounter unless said; lost: left unspent and thrown away)",
            header: &[
                "who",
                "pool",
                "spent",
                "spent per round",
                "spent per turn",
                "lost",
                "lost per round",
                "overspends",
            ],
            rows: s
                .pools
                .iter()
                .map(|p| {
                    vec![
                        p.who.clone(),
                        p.pool.clone(),
                        show(&p.spent),
                        show(&p.spent_per_round),
                        show(&p.spent_per_turn),
                        show(&p.lost),
                        show(&p.lost_per_round),
                        show(&p.overspends),
                    ]
                })
                .collect(),
        },
        Table {
            title: "Actions (uses per encounter)",
            header: &["who", "action", "kind", "uses"],
            rows: s
                .actions
                .iter()
                .map(|a| vec![a.who.clone(), a.action.clone(), a.kind.clone(), show(&a.uses)])
                .collect(),
        },
        Table {
            title: "Refused declarations (per encounter)",
            header: &["action", "code", "refused"],
            rows: s.refusals.iter().map(|r| vec![r.action.clone(), r.code.clone(), show(&r.refused)]).collect(),
        },
        Table {
            title: "Reactions",
            header: &["per encounter", "per round", "chains per encounter", "chains by length"],
            rows: vec![vec![
                show(&re.per_encounter),
                show(&re.per_round),
                show(&re.chains_per_encounter),
                lengths.join(", "),
            ]],
        },
        Table {
            title: "Conditions",
            header: &["who", "condition", "applied", "in encounters"],
            rows: s
                .conditions
                .iter()
                .map(|c| vec![c.who.clone(), c.condition.clone(), show(&c.applied), show_share(&c.encounters)])
                .collect(),
        },
    ];
    all.into_iter().filter(|t| !t.rows.is_empty()).collect()
}

/// The summary as tables for a person, the length histogram drawn in text.
pub fn to_text(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} encounters (seed {}), {} ran to the end. 95% intervals in brackets.",
        names(&[&s.ruleset, &s.scenario]),
        s.runs,
        s.seed,
        s.completed
    );
    changes_line(&mut out, &s.sets, &s.controls);
    let failures = failures_table(s);
    let mut all = tables(s);
    if !failures.rows.is_empty() {
        all.insert(0, failures);
    }
    for t in &all {
        let _ = writeln!(out, "\n{}:", t.title);
        table(&mut out, t.header, &t.rows);
        if t.title == "Length in rounds" {
            let most = s.rounds.histogram.iter().map(|b| b.count).max().unwrap_or(0).max(1);
            for b in &s.rounds.histogram {
                let width = (b.count * 40).div_ceil(most) as usize;
                let _ = writeln!(out, "  {:>4} {:<40} {}", b.value, "#".repeat(width), b.count);
            }
        }
    }
    out
}

/// The files' names joined by `, `, an empty one (not known) left out.
pub(crate) fn names(names: &[&str]) -> String {
    names.iter().filter(|n| !n.is_empty()).copied().collect::<Vec<_>>().join(", ")
}

/// `set: Brute.hp_max=30, hp_max=12; control: heroes=Greedy`: what the batch was played under
/// beyond its files, or nothing when it was played as written.
pub(crate) fn changes(sets: &[String], controls: &[String]) -> String {
    let mut parts = Vec::new();
    if !sets.is_empty() {
        parts.push(format!("set: {}", sets.join(", ")));
    }
    if !controls.is_empty() {
        parts.push(format!("control: {}", controls.join(", ")));
    }
    parts.join("; ")
}

/// The `changes` line, when anything was set or controlled.
pub(super) fn changes_line(out: &mut String, sets: &[String], controls: &[String]) {
    let line = changes(sets, controls);
    if !line.is_empty() {
        let _ = writeln!(out, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_shown_outward_and_not_0_or_1_unless_exact() {
        let e = |value, low, high| Estimate { value, low, high };
        assert_eq!(show(&e(1.2346, 1.1006, 1.3681)), "1.235 [1.1, 1.369]");
        assert_eq!(show(&e(0.0, -0.00004, 0.00004)), "0 [-0.001, 0.001]");
        assert_eq!(show(&e(0.0001, 0.00004, 0.0002)), "0.0001 [0.00004, 0.001]");
        assert_eq!(show_share(&e(0.573, 0.5421, 0.6049)), "57.3% [54.2, 60.5]");
        // 0 of 100,000: the upper bound is a positive number, the lower 0.
        assert_eq!(show_share(&e(0.0, 0.0, 0.00004)), "0.0% [0.0, 0.1]");
        assert_eq!(show_share(&e(0.00004, 0.00001, 0.0002)), "0.004% [0.001, 0.1]");
        assert_eq!(show_share(&e(1.0, 0.99996, 1.0)), "100.0% [99.9, 100.0]");
        assert_eq!(show_share(&e(0.99999, 0.9999, 0.999995)), "99.999% [99.9, 99.9995]");
        assert_eq!(show_share(&e(0.5, 0.0, 1.0)), "50.0% [0.0, 100.0]");
    }

    #[test]
    fn numbers_keep_what_matters() {
        assert_eq!(num(4.0), "4");
        assert_eq!(num(1.06), "1.06");
        assert_eq!(num(0.0049), "0.005");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(-0.12), "-0.12");
        assert_eq!(num(10.5), "10.5");
    }
}
