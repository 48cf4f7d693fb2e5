//! Arbitrary bytes as a shard file, read as `tempo sim merge` reads it (`sweep::shard::read`).
//! A `sim` shard that reads is merged alone, with itself and with an honest shard (runs 8..16 of
//! the duel's 16, played here; the seed shard 1/2 completes it), and every merge accepted is
//! summarised and written as text and JSON. A sweep's shard is merged alone and with itself, and
//! every merge accepted becomes the sweep report, as text and JSON. Merging may refuse anything;
//! it may not panic, and nothing it accepts may make the summary or the report panic.
//!
//! A sweep's shard merge accepts is one a sweep could have written (`SweepShard::problems`,
//! issue 45): one or two parameters, 1 to `MOST_POINTS` points, none twice; and it is written
//! again as `tempo sweep --shard` writes it (`to_json`, compact, with the up-front size estimate
//! `least_bytes` never above what one point takes), read back equal and merged to the same totals.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tempo::sim::shard::{self, Shard};
use tempo::sim::summary;
use tempo::sim::sweep::report;
use tempo::sim::sweep::shard::{self as sweep_shard, AnyShard, SweepShard};

fn summarise(shards: &[Shard], names: &[String]) {
    let Ok((first, totals)) = shard::merge(shards, names) else { return };
    let s = summary::summarise(&first.ruleset, first.seed, &first.layout, &totals).measured(
        &first.scenario,
        &first.sets,
        &first.controls,
    );
    let _ = summary::to_text(&s);
    let json = serde_json::to_string(&s).expect("a summary serializes");
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "the summary's JSON is not JSON");
}

fn report(shards: &[SweepShard], names: &[String]) {
    let Ok(merged) = sweep_shard::merge(shards, names) else { return };
    let f = &merged.first;
    let head = report::Head {
        ruleset: &f.ruleset,
        scenario: &f.scenario,
        seed: f.seed,
        runs: f.runs,
        ranges: &f.ranges,
        parameters: &f.parameters,
        sets: &f.sets,
        controls: &f.controls,
    };
    let at: Vec<report::At<'_>> = f.points.iter().map(|p| (p.set.as_slice(), &p.layout)).collect();
    let r = report::sweep(&head, report::rows(&at, &merged.played, &head), None);
    let _ = report::to_text(&r);
    let json = serde_json::to_string(&r).expect("a report serializes");
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "the report's JSON is not JSON");
}

/// What merge accepted is a shard a sweep writes, and it survives being written again.
fn accepted(s: &SweepShard, played: &tempo::sim::sweep::Played, names: &[String]) {
    assert!((1..=2).contains(&s.parameters.len()), "merged a shard of {} parameters", s.parameters.len());
    let n = s.points.len() as u64;
    assert!((1..=tempo::sim::sweep::MOST_POINTS).contains(&n), "merged a shard of {n} points");
    for (k, p) in s.points.iter().enumerate() {
        assert!(!s.points[..k].iter().any(|q| q.set == p.set), "merged a shard with a point twice");
    }
    let json = s.to_json();
    assert!(!json.trim_end().contains('\n'), "a sweep shard is written on one line");
    let Ok(AnyShard::Sweep(back)) = sweep_shard::read(&json) else { panic!("a shard written does not read back") };
    assert!(*back == *s, "a shard written reads back different");
    let Ok(again) = sweep_shard::merge(std::slice::from_ref(&*back), names) else {
        panic!("a shard written again is refused")
    };
    assert!(again.played.totals == played.totals, "a shard written again merges to other totals");
    let first = &s.points[0];
    let empty = sweep_shard::PointShard {
        set: first.set.clone(),
        layout: first.layout.clone(),
        totals: tempo::sim::totals::Totals::new(&first.layout),
        paired: None,
    };
    let one = serde_json::to_string(first).expect("a point serializes").len() as u64;
    assert!(SweepShard::least_bytes(&empty, 1) <= one, "the size estimate is above what the point takes");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let names = vec!["fuzzed.json".to_string(), "other.json".to_string()];
    match sweep_shard::read(text) {
        Ok(AnyShard::Sim(s)) => {
            let s = *s;
            summarise(std::slice::from_ref(&s), &names);
            summarise(&[s.clone(), s.clone()], &names);
            summarise(&[s, tempo_fuzz::honest_shard().clone()], &names);
        }
        Ok(AnyShard::Sweep(s)) => {
            let s = *s;
            if let Ok(merged) = sweep_shard::merge(std::slice::from_ref(&s), &names) {
                accepted(&s, &merged.played, &names);
            }
            report(std::slice::from_ref(&s), &names);
            report(&[s.clone(), s], &names);
        }
        Err(_) => {}
    }
});
