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

/// Most bytes of a shard file `tempo sim merge` reads (as every input: `check::MAX_INPUT_BYTES`).
/// A sweep's shard is written compact (one line: a 10,000-point sweep of the Frontiers duel is
/// about 50 MB, where indented JSON made 197 MB), and `tempo sweep --shard` refuses to write one
/// past this, so every shard a sweep writes can be merged.
pub const MAX_SHARD_BYTES: u64 = 64 * 1024 * 1024;

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

    /// The shard as `tempo sweep --shard` writes it: compact JSON, one line.
    pub fn to_json(&self) -> String {
        // Plain data of strings and integers: serializing cannot fail.
        serde_json::to_string(self).map(|s| s + "\n").unwrap_or_default()
    }

    /// Fewest bytes a shard of `points` points like `first` can take (its counts all 0, the
    /// narrowest they print): past [`MAX_SHARD_BYTES`], the sweep is refused before it is played.
    pub fn least_bytes(first: &PointShard, points: u64) -> u64 {
        let one = serde_json::to_string(first).map_or(0, |s| s.len() as u64);
        one.saturating_mul(points)
    }

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

impl SweepShard {
    /// What makes this shard one no sweep could write, as `sim` shards are checked: its
    /// parameters (one, or two for a grid, each a range of `ranges`), its points (at least one, at
    /// most `MOST_POINTS`, exactly the ranges' grid in order, so none twice and none naming
    /// another parameter), which of them are paired (all but the first of each row), and each
    /// paired sum (n within both points' finished runs, Σd² ≥ 0, |Σd| ≤ Σd² and (Σd)² ≤ n·Σd² for
    /// whole differences d, all 0 when n is).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let n_params = self.parameters.len();
        if !(1..=2).contains(&n_params) || self.ranges.len() != n_params {
            out.push(format!(
                "it sweeps {n_params} parameters over {} ranges: a sweep has one, or two for a grid, each with its range",
                self.ranges.len()
            ));
            return out;
        }
        let mut ranges = Vec::with_capacity(n_params);
        for (name, text) in self.parameters.iter().zip(&self.ranges) {
            match super::flag::parse_sweep_set(text) {
                Ok(super::SweepSet::Range(r)) if &r.name == name => ranges.push(r),
                _ => out.push(format!("its range `{text}` is not a range of `{name}`")),
            }
        }
        if self.points.is_empty() {
            out.push("it holds no points".into());
        }
        if self.points.len() as u64 > super::MOST_POINTS {
            out.push(format!("it holds {} points: a sweep plays at most {}", self.points.len(), super::MOST_POINTS));
        }
        if !out.is_empty() {
            return out;
        }
        let count = ranges.iter().map(super::Swept::count).try_fold(1u128, u128::checked_mul);
        if count != Some(self.points.len() as u128) {
            out.push(format!("it holds {} points where its ranges make {}", self.points.len(), count.unwrap_or(0)));
        }
        let row = usize::try_from(ranges.last().map(super::Swept::len).unwrap_or(1)).unwrap_or(usize::MAX);
        let pairs = super::pairs_in_rows(self.points.len(), row);
        for (k, p) in self.points.iter().enumerate() {
            let names: Vec<&String> = p.set.iter().map(|(name, _)| name).collect();
            if names != self.parameters.iter().collect::<Vec<_>>() {
                out.push(format!("point {} names {names:?}, not the sweep's parameters {:?}", k + 1, self.parameters));
                continue;
            }
            let values: Vec<i64> = p.set.iter().map(|(_, v)| *v).collect();
            if let Some(j) = self.points[..k].iter().position(|q| q.set == p.set) {
                out.push(format!("point {} repeats point {} ({values:?})", k + 1, j + 1));
            } else if values != super::flag::grid_values(&ranges, k as u64) {
                out.push(format!("point {} ({values:?}) is not the ranges' point {}", k + 1, k + 1));
            }
            if p.paired.is_some() != pairs[k] {
                out.push(format!("point {} is paired where the sweep does not pair it, or not where it does", k + 1));
            }
            let before = k.checked_sub(1).and_then(|j| self.points.get(j));
            if let (Some(paired), Some(before)) = (&p.paired, before) {
                let finished = before.totals.completed.min(p.totals.completed);
                if !paired_sums_hold(paired, finished) {
                    out.push(format!("the paired sums of point {} are not a real batch's", k + 1));
                }
            }
            if out.len() > 20 {
                out.push("(and more)".into());
                break;
            }
        }
        out
    }
}

/// Whether paired sums could come from `n ≤ finished` pairs of whole differences d: Σd² ≥ 0,
/// |Σd| ≤ Σd² (|d| ≤ d² for a whole d), (Σd)² ≤ n·Σd², and every sum 0 when n is.
fn paired_sums_hold(p: &Paired, finished: u64) -> bool {
    let n = i128::from(p.n);
    p.n <= finished
        && p.sum.len() == p.sum_sq.len()
        && p.sum.iter().zip(&p.sum_sq).all(|(&s, &ss)| {
            ss >= 0
                && s.checked_abs().is_some_and(|a| a <= ss)
                && s.checked_mul(s).zip(n.checked_mul(ss)).is_none_or(|(a, b)| a <= b)
                && (n > 0 || (s == 0 && ss == 0))
        })
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
        problems.extend(s.problems().into_iter().map(|p| format!("shard {n}: {p}")));
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
