//! A sweep's shard: the exact totals of one slice of the runs at every point of the sweep, and
//! the paired sums between neighbours, so that shards played on other machines merge (with
//! `tempo sim merge`, like `sim`'s) into the report one machine would have printed.

use super::super::compare::Paired;
use super::super::layout::Layout;
use super::super::shard::{self as sim_shard, Shard};
use super::super::totals::Totals;
use super::Played;
use serde::{Deserialize, Serialize};

/// The version of the sweep shard file; merging refuses any other.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepShard {
    /// Always `sweep`: what tells a sweep's shard from a `sim` shard.
    pub kind: String,
    pub format: u32,
    pub tempo: String,
    pub ruleset: String,
    pub scenario: String,
    /// FNV-1a of the compiled ruleset, the scenario and the ranges, before any point is set.
    pub fingerprint: String,
    pub seed: u64,
    pub runs: u64,
    pub from: u64,
    pub to: u64,
    pub parameters: Vec<String>,
    pub ranges: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<String>,
    pub points: Vec<PointShard>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointShard {
    /// Each swept name's value at the point, in the order of `parameters`.
    pub set: Vec<(String, i64)>,
    pub layout: Layout,
    pub totals: Totals,
    /// Paired with the point before it, where it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
}

impl SweepShard {
    pub const KIND: &'static str = "sweep";

    /// The point's totals as a `sim` shard, to be checked and merged as one.
    fn point(&self, k: usize) -> Option<Shard> {
        let p = self.points.get(k)?;
        Some(Shard {
            format: sim_shard::FORMAT,
            tempo: self.tempo.clone(),
            ruleset: self.ruleset.clone(),
            scenario: self.scenario.clone(),
            sets: super::report::point_sets(&self.sets, &p.set),
            fingerprint: self.fingerprint.clone(),
            seed: self.seed,
            runs: self.runs,
            from: self.from,
            to: self.to,
            layout: p.layout.clone(),
            totals: p.totals.clone(),
            controls: self.controls.clone(),
        })
    }
}

/// What the merge of a sweep's shards gives: the first shard (for the names) and the totals of
/// the whole batch at every point.
pub struct Merged {
    pub first: SweepShard,
    pub played: Played,
}

/// Merges the shards of one sweep. Every problem is listed: shards of other sweeps, and each
/// point's slices as `sim merge` checks them.
pub fn merge(shards: &[SweepShard], names: &[String]) -> Result<Merged, Vec<String>> {
    let Some(first) = shards.first() else {
        return Err(vec!["no shards to merge".into()]);
    };
    let mut problems = Vec::new();
    for (i, s) in shards.iter().enumerate() {
        let n = i + 1;
        if s.format != FORMAT {
            problems.push(format!("shard {n} is sweep format {}, this tempo reads format {FORMAT}", s.format));
        }
        let same = s.parameters == first.parameters
            && s.ranges == first.ranges
            && s.sets == first.sets
            && s.controls == first.controls
            && s.points.len() == first.points.len()
            && s.points
                .iter()
                .zip(&first.points)
                .all(|(a, b)| a.set == b.set && a.paired.is_some() == b.paired.is_some());
        if !same {
            problems.push(format!("shard {n} is of another sweep than shard 1 (its ranges, sets or points differ)"));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut totals = Vec::with_capacity(first.points.len());
    for k in 0..first.points.len() {
        let slices: Vec<Shard> = shards.iter().filter_map(|s| s.point(k)).collect();
        match sim_shard::merge(&slices, names) {
            Ok((_, t)) => totals.push(t),
            Err(mut p) => {
                // Every point has the same slices: the first point's problems say it all.
                problems.append(&mut p);
                return Err(problems);
            }
        }
    }
    // A forged pair must not point past the counts it pairs.
    for (s, name) in shards.iter().zip(names) {
        for (k, p) in s.points.iter().enumerate() {
            let (Some(paired), Some(before)) = (&p.paired, k.checked_sub(1).and_then(|j| s.points.get(j))) else {
                continue;
            };
            let (la, lb) = (before.layout.checked_len().unwrap_or(0), p.layout.checked_len().unwrap_or(0));
            let fits = paired.pairs.iter().all(|(i, j)| *i < la && *j < lb)
                && paired.sum.len() == paired.pairs.len()
                && paired.sum_sq.len() == paired.pairs.len()
                && paired.n <= s.to.saturating_sub(s.from)
                && *paired
                    == Paired {
                        n: paired.n,
                        sum: paired.sum.clone(),
                        sum_sq: paired.sum_sq.clone(),
                        ..Paired::new(&before.layout, &p.layout)
                    };
            if !fits {
                problems.push(format!("`{name}`: the pairs of point {} are not its layout's", k + 1));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut paired: Vec<Option<Paired>> = first.points.iter().map(|p| p.paired.clone()).collect();
    for s in &shards[1..] {
        for (a, b) in paired.iter_mut().zip(&s.points) {
            match (a, &b.paired) {
                (Some(a), Some(b)) if a.pairs == b.pairs => {
                    if a.try_merge(b).is_err() {
                        problems.push("a paired sum does not fit (the shards' counts are not a real batch's)".into());
                    }
                }
                (None, None) => {}
                _ => problems.push("the shards pair their points differently".into()),
            }
        }
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(problems);
    }
    Ok(Merged { first: first.clone(), played: Played { totals, paired } })
}

/// The file `tempo sim merge` reads: a `sim` shard or a sweep's.
#[derive(Debug)]
pub enum AnyShard {
    Sim(Box<Shard>),
    Sweep(Box<SweepShard>),
}

/// Reads a shard file of either kind (a sweep's says `"kind": "sweep"`).
pub fn read(text: &str) -> Result<AnyShard, String> {
    #[derive(Deserialize)]
    struct Kind {
        #[serde(default)]
        kind: Option<String>,
    }
    let kind: Kind = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match kind.kind.as_deref() {
        Some(SweepShard::KIND) => {
            serde_json::from_str(text).map(|s| AnyShard::Sweep(Box::new(s))).map_err(|e| e.to_string())
        }
        Some(other) => Err(format!("a shard of kind `{other}`, which this tempo does not know")),
        None => serde_json::from_str(text).map(|s| AnyShard::Sim(Box::new(s))).map_err(|e| e.to_string()),
    }
}
