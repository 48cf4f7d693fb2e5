//! A shard: the exact totals of a slice of a batch's runs, written as JSON so that shards played
//! on other machines merge into the summary one machine would have printed.

use super::layout::Layout;
use super::totals::Totals;
use serde::{Deserialize, Serialize};

/// The version of the shard file; merging refuses any other. 2 since issue 30: the counts of
/// `lost` and `turns` changed meaning, so a shard of the same tempo version but older build must
/// not merge with newer ones.
pub const FORMAT: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    pub format: u32,
    /// The tempo that played it: shards of different versions may count differently.
    pub tempo: String,
    pub ruleset: String,
    /// The scenario's file name, for the merged summary (empty in a shard of an older tempo).
    #[serde(default)]
    pub scenario: String,
    /// FNV-1a of the compiled ruleset and the scenario: shards of different inputs never merge.
    pub fingerprint: String,
    pub seed: u64,
    /// Runs in the whole batch, and the slice this shard played.
    pub runs: u64,
    pub from: u64,
    pub to: u64,
    pub layout: Layout,
    pub totals: Totals,
    /// Each `--set` the batch was played under, as given (none: the files as written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
    /// Each `--control` the batch was played under, as given (none: the scenario's own).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<String>,
}

/// FNV-1a (64 bits) of the texts, as 16 hex digits: a fingerprint, not a security measure.
pub fn fingerprint(texts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for text in texts {
        for b in text.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// Merges shards of one batch into its totals. `names` names each shard (its file) in the
/// problems. Every problem is listed: shards of different batches, counts no batch could give,
/// overlapping slices, runs no shard played; a shard is named by its file and its slice.
pub fn merge(shards: &[Shard], names: &[String]) -> Result<(Shard, Totals), Vec<String>> {
    let Some(first) = shards.first() else {
        return Err(vec!["no shards to merge".into()]);
    };
    let label = |i: usize| {
        let s = &shards[i];
        let name = names.get(i).cloned().unwrap_or_else(|| format!("shard {}", i + 1));
        format!("`{name}` (runs {}..{} of {})", s.from, s.to, s.runs)
    };
    let mut problems = Vec::new();
    for (i, s) in shards.iter().enumerate() {
        let n = label(i);
        if s.format != FORMAT {
            problems.push(format!("{n} is format {}, this tempo reads format {FORMAT}", s.format));
        }
        if s.tempo != first.tempo {
            problems.push(format!("{n} was played by tempo {}, {} by {}", s.tempo, label(0), first.tempo));
        }
        if s.fingerprint != first.fingerprint || s.layout != first.layout {
            problems.push(format!("{n} is of another ruleset or scenario than {}", label(0)));
        }
        if s.seed != first.seed || s.runs != first.runs {
            problems.push(format!(
                "{n} is of a batch of {} runs seeded {}, {} of {} runs seeded {}",
                s.runs,
                s.seed,
                label(0),
                first.runs,
                first.seed
            ));
        }
        if s.from > s.to || s.to > s.runs {
            problems.push(format!("{n} is a slice that is not in its batch"));
        } else if s.totals.played != s.to - s.from {
            problems.push(format!("{n} holds {} runs", s.totals.played));
        }
        problems
            .extend(s.totals.problems(&s.layout, s.to.saturating_sub(s.from)).into_iter().map(|p| format!("{n}: {p}")));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut slices: Vec<(u64, u64, usize)> = shards.iter().enumerate().map(|(i, s)| (s.from, s.to, i)).collect();
    slices.sort();
    let mut at = 0;
    for (from, _, i) in &slices {
        if *from < at {
            problems.push(format!("{} overlaps another shard", label(*i)));
        } else if *from > at {
            problems.push(format!("no shard played runs {at}..{from}"));
        }
        at = at.max(shards[*i].to);
    }
    if at < first.runs {
        problems.push(format!("no shard played runs {at}..{}", first.runs));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut totals = Totals::new(&first.layout);
    for (i, s) in shards.iter().enumerate() {
        totals.try_merge(&s.totals).map_err(|e| vec![format!("{}: {e}", label(i))])?;
    }
    Ok((first.clone(), totals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_fnv1a() {
        // FNV-1a 64 of "a" then the 0 separator.
        assert_eq!(fingerprint(&[]), "cbf29ce484222325");
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
