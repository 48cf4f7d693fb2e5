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

/// Merges shards of one batch into its totals. Every problem is listed: shards of different
/// batches, overlapping slices, runs no shard played.
pub fn merge(shards: &[Shard]) -> Result<(Shard, Totals), Vec<String>> {
    let Some(first) = shards.first() else {
        return Err(vec!["no shards to merge".into()]);
    };
    let mut problems = Vec::new();
    for (i, s) in shards.iter().enumerate() {
        let n = i + 1;
        if s.format != FORMAT {
            problems.push(format!("shard {n} is format {}, this tempo reads format {FORMAT}", s.format));
        }
        if s.tempo != first.tempo {
            problems.push(format!("shard {n} was played by tempo {}, shard 1 by {}", s.tempo, first.tempo));
        }
        if s.fingerprint != first.fingerprint || s.layout != first.layout {
            problems.push(format!("shard {n} is of another ruleset or scenario than shard 1"));
        }
        if s.seed != first.seed || s.runs != first.runs {
            problems.push(format!(
                "shard {n} is of a batch of {} runs seeded {}, shard 1 of {} runs seeded {}",
                s.runs, s.seed, first.runs, first.seed
            ));
        }
        if s.totals.played != s.to.saturating_sub(s.from) {
            problems.push(format!("shard {n} says it played runs {}..{} but holds {}", s.from, s.to, s.totals.played));
        }
    }
    let mut slices: Vec<(u64, u64, usize)> = shards.iter().enumerate().map(|(i, s)| (s.from, s.to, i + 1)).collect();
    slices.sort();
    let mut at = 0;
    for (from, to, n) in &slices {
        if *from < at {
            problems.push(format!("shard {n} (runs {from}..{to}) overlaps another shard"));
        } else if *from > at {
            problems.push(format!("no shard played runs {at}..{from}"));
        }
        at = at.max(*to);
    }
    if at < first.runs {
        problems.push(format!("no shard played runs {at}..{}", first.runs));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut totals = Totals::new(&first.layout);
    for s in shards {
        totals.merge(&s.totals);
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
