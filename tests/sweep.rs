//! `tempo sweep`: every point is what `tempo sim --set` prints for it, on the same seeds; a
//! target's bracket is confirmed by simulating its ends; shards merge to the whole, byte for
//! byte; names that are not there are errors with suggestions.

use serde_json::Value;
use std::process::Command;

const RULES: &str = "rulesets/frontiers.rules";
const DUEL: &str = "tests/sweep/duel.ron";
const HEROES: &str = "heroes left standing";

fn tempo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(args).env("NO_COLOR", "1").output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> Value {
    let (code, stdout, stderr) = tempo(args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{stdout}"))
}

fn share(summary: &Value, outcome: &str) -> f64 {
    let rows = summary["outcomes"].as_array().unwrap();
    rows.iter().find(|o| o["outcome"] == outcome).unwrap()["share"]["value"].as_f64().unwrap()
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tempo-sweep-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_point_is_what_sim_prints_with_that_set() {
    let sweep = json(&["sweep", RULES, DUEL, "--set", "Brute.hp_max=14..16", "--runs", "150", "--format", "json"]);
    assert_eq!(sweep["scenario"], "duel.ron");
    assert_eq!(sweep["parameters"], serde_json::json!(["Brute.hp_max"]));
    let points = sweep["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for (k, p) in points.iter().enumerate() {
        let v = p["set"]["Brute.hp_max"].as_i64().unwrap();
        assert_eq!(v, 14 + k as i64);
        let set = format!("Brute.hp_max={v}");
        let sim = json(&["sim", RULES, DUEL, "--set", &set, "--runs", "150", "--format", "json"]);
        assert_eq!(p["summary"], sim, "point {set} differs from `tempo sim --set {set}`");
        assert_eq!(p.get("change").is_some(), k > 0, "every point but the first is paired with the one before");
    }
}

/// The fair duel (core actions only, seated at random, both `Greedy`): Aria deals 4 a hit.
const FAIR: &str = "examples/frontiers-fair-duel.ron";

#[test]
fn a_sweep_of_hp_on_a_fair_duel_is_monotone_and_its_target_bracket_holds_when_simulated() {
    let runs = "400";
    let sweep = json(&["sweep", RULES, FAIR, "--set", "Brute.hp_max=12..21", "--runs", runs, "--format", "json"]);
    let shares: Vec<f64> = sweep["points"].as_array().unwrap().iter().map(|p| share(&p["summary"], HEROES)).collect();
    assert_eq!(shares.len(), 10);
    assert!(shares.windows(2).all(|w| w[1] <= w[0]), "a sturdier Brute never helps the heroes: {shares:?}");
    assert!(shares[0] > 0.55 && shares[9] < 0.45, "the range spans an even fight: {shares:?}");
    // Where heroes win a lower share, the change from the point before is negative (B − A).
    for p in &sweep["points"].as_array().unwrap()[1..] {
        let d = p["change"]["differences"].as_array().unwrap();
        if let Some(h) = d.iter().find(|d| d["metric"] == format!("outcome/{HEROES}")) {
            assert!(h["difference"]["value"].as_f64().unwrap() <= 0.0, "B − A: {h}");
        }
    }

    let target = format!("{HEROES}=0.5");
    let found = json(&[
        "sweep",
        RULES,
        FAIR,
        "--set",
        "Brute.hp_max=10..40",
        "--runs",
        runs,
        "--target",
        &target,
        "--format",
        "json",
    ]);
    let t = &found["target"];
    assert_eq!(t["verdict"], "crossed");
    assert_eq!(t["monotone"], true);
    let between: Vec<i64> = t["between"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    assert_eq!(between, [16, 17], "four of Aria's hits fell 16 HP, 17 takes five");
    let played = found["points"].as_array().unwrap().len();
    assert!(played < 10, "a bisection plays a few of the 31 values: {played}");
    for (v, above) in [(between[0], true), (between[1], false)] {
        let set = format!("Brute.hp_max={v}");
        let sim = json(&["sim", RULES, FAIR, "--set", &set, "--runs", runs, "--format", "json"]);
        assert_eq!(share(&sim, HEROES) >= 0.5, above, "{set}: {}", share(&sim, HEROES));
    }

    let (code, text, _) =
        tempo(&["sweep", RULES, FAIR, "--set", "Brute.hp_max=40..50", "--runs", "50", "--target", &target]);
    assert_eq!(code, 0);
    assert!(text.contains("not reached in the range: the share is below it at both ends"), "{text}");
}

#[test]
fn shards_of_a_sweep_merge_to_the_whole_byte_for_byte() {
    let dir = temp_dir("shards");
    for grid in
        [&["--set", "Brute.hp_max=14..18:2"][..], &["--set", "Brute.hp_max=14..16", "--set", "Aria.damage=3..4"][..]]
    {
        let mut args = vec!["sweep", RULES, DUEL, "--runs", "90"];
        args.extend_from_slice(grid);
        let mut whole = args.clone();
        whole.extend(["--format", "json"]);
        let (_, whole, _) = tempo(&whole);
        let mut files = Vec::new();
        for k in 1..=3 {
            let shard = format!("{k}/3");
            let mut a = args.clone();
            a.extend(["--shard", &shard]);
            let (code, out, err) = tempo(&a);
            assert_eq!(code, 0, "{err}");
            let f = dir.join(format!("s{k}.json"));
            std::fs::write(&f, out).unwrap();
            files.push(f.to_str().unwrap().to_string());
        }
        let mut merge = vec!["sim", "merge", "--format", "json", &files[2], &files[0], &files[1]];
        let (code, merged, err) = tempo(&merge);
        assert_eq!(code, 0, "{err}");
        assert_eq!(merged, whole, "merged shards differ from one machine's sweep");
        merge.truncate(5);
        let (code, _, err) = tempo(&merge);
        assert_eq!(code, 1);
        assert!(err.contains("no shard played runs"), "{err}");
    }
    let jobs = |j: &str| tempo(&["sweep", RULES, DUEL, "--set", "Brute.hp_max=14..16", "--runs", "130", "--jobs", j]).1;
    assert_eq!(jobs("1"), jobs("2"), "--jobs never changes a byte");
}

/// Issue 45: each thread plays every point with one runner, only the swept numbers set anew at
/// each point (a stat's default and a participant's own value here). A number left from the
/// point before, or a runner's state carried from one point to the next, would change a point:
/// then one thread and three would differ (they split the 150 runs into other blocks), the
/// shards would not merge to the whole, or a point would not be what `sim --set` prints.
#[test]
fn one_runner_a_thread_changes_no_byte_of_a_sweep() {
    let dir = temp_dir("one-runner");
    let set = ["--set", "physical_defense_base=8..12:2", "--set", "Brute.damage=3..5"];
    let sweep = |extra: &[&str]| {
        let mut args = vec!["sweep", RULES, DUEL, "--runs", "150", "--format", "json"];
        args.extend_from_slice(&set);
        args.extend_from_slice(extra);
        let (code, out, err) = tempo(&args);
        assert_eq!(code, 0, "{extra:?}: {err}");
        out
    };
    let one = sweep(&["--jobs", "1"]);
    assert_eq!(one, sweep(&["--jobs", "3"]), "one thread and three differ");
    let mut files = Vec::new();
    for k in ["1/2", "2/2"] {
        let f = dir.join(format!("s{}.json", &k[..1]));
        std::fs::write(&f, sweep(&["--shard", k, "--jobs", "2"])).unwrap();
        files.push(f.to_str().unwrap().to_string());
    }
    let (code, merged, err) = tempo(&["sim", "merge", "--format", "json", &files[0], &files[1]]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, one, "the merged shards differ from the whole sweep");
    let report: Value = serde_json::from_str(&one).unwrap();
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), 9);
    // The first point, the last, and one in the middle of a row, against `sim`.
    for k in [0, 4, 8] {
        let p = &points[k];
        let defense = format!("physical_defense_base={}", p["set"]["physical_defense_base"]);
        let damage = format!("Brute.damage={}", p["set"]["Brute.damage"]);
        let sim = json(&["sim", RULES, DUEL, "--set", &defense, "--set", &damage, "--runs", "150", "--format", "json"]);
        assert_eq!(p["summary"], sim, "point {k} ({defense}, {damage}) differs from `tempo sim`");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_that_are_not_there_are_errors_with_suggestions() {
    let (code, _, err) = tempo(&["sweep", RULES, DUEL, "--set", "Brute.hp_mx=10..12", "--runs", "5"]);
    assert_eq!(code, 1);
    assert!(err.contains("did you mean `hp_max`?"), "{err}");
    let (code, _, err) = tempo(&["sweep", RULES, DUEL, "--set", "Brut.hp_max=10..12", "--runs", "5"]);
    assert_eq!(code, 1);
    assert!(err.contains("did you mean `Brute`?"), "{err}");
    let (code, _, err) =
        tempo(&["sweep", RULES, DUEL, "--set", "Brute.hp_max=10..12", "--target", "heroes left standin=0.5"]);
    assert_eq!(code, 1);
    assert!(err.contains("did you mean `heroes left standing`?"), "{err}");
    for (args, says) in [
        (&["--set", "hp_max=1..3", "--set", "Brute.hp_max=4..5", "--set", "damage=1..2"][..], "a sweep takes one"),
        (&["--set", "hp_max=5"][..], "give a range to sweep"),
        (&["--set", "hp_max=1..3", "--set", "hp_max=5"][..], "give it once"),
        (&["--set", "hp_max=1..20000"][..], "at most 10000"),
        (&["--set", "hp_max=1..3", "--set", "damage=1..3", "--target", "x=0.5"][..], "one range"),
        (&["--set", "hp_max=3..1"][..], "low end first"),
    ] {
        let mut a = vec!["sweep", RULES, DUEL, "--runs", "5"];
        a.extend_from_slice(args);
        let (code, _, err) = tempo(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

// Issue 45, item 4: a grid whose two ranges reach one stat (Brute is on side `monsters`) was
// played at the second's value everywhere, its rows labelled with the first's; and the full `i64`
// range was said to hold 18446744073709551615 points (it holds 2^64).
#[test]
fn one_stat_reached_twice_is_refused_and_the_point_count_is_exact() {
    let all = "-9223372036854775808..9223372036854775807";
    for (sets, says) in [
        (
            ["Brute.hp_max=10..40:30".to_string(), "monsters.hp_max=10..40:30".to_string()],
            "`Brute.hp_max` and `monsters.hp_max` both reach Brute's hp_max",
        ),
        (["monsters.hp_max=1..2".to_string(), "Brute.hp_max=1..2".to_string()], "both reach Brute's hp_max"),
        ([format!("Brute.hp_max={all}"), "Aria.damage=1..1".to_string()], "error: 18446744073709551616 points"),
        (
            [format!("Brute.hp_max={all}"), format!("Aria.damage={all}")],
            "error: 340282366920938463463374607431768211456 points",
        ),
    ] {
        let (code, _, err) = tempo(&["sweep", RULES, DUEL, "--runs", "2", "--set", &sets[0], "--set", &sets[1]]);
        assert_eq!(code, 2, "{sets:?}: {err}");
        assert!(err.contains(says), "{sets:?}: {err}");
    }
    // Two stats of one participant, or one stat of two, are a grid.
    for sets in [["Brute.hp_max=14..15", "Brute.damage=3..4"], ["Brute.hp_max=14..15", "heroes.hp_max=9..10"]] {
        let (code, _, err) = tempo(&["sweep", RULES, DUEL, "--runs", "2", "--set", sets[0], "--set", sets[1]]);
        assert_eq!(code, 0, "{sets:?}: {err}");
    }
}

// Issue 45, item 4: `--set Brute.hp_max=0..3999 --runs 4 --shard 1/2` wrote 79 MB of indented
// JSON, and `sim merge` reads at most 64 MiB. A shard is written compact now (a 10,000-point
// sweep of the duel: about 35 MB), and a sweep whose shard would be past the limit is refused
// before anything is played.
#[test]
fn every_sweep_shard_written_can_be_merged() {
    let dir = temp_dir("compact");
    let mut files = Vec::new();
    for k in ["1/2", "2/2"] {
        let (code, out, err) =
            tempo(&["sweep", RULES, DUEL, "--set", "Brute.hp_max=0..499", "--runs", "2", "--shard", k]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.lines().count(), 1, "a shard is one line of JSON");
        // 20 times the points (10,000) still fit what `sim merge` reads.
        assert!(out.len() * 20 < 64 << 20, "{} bytes for 500 points", out.len());
        let f = dir.join(format!("compact-{}.json", files.len() + 1));
        std::fs::write(&f, out).unwrap();
        files.push(f.to_str().unwrap().to_string());
    }
    let (code, merged, err) = tempo(&["sim", "merge", "--format", "json", &files[0], &files[1]]);
    assert_eq!(code, 0, "{err}");
    let (_, whole, _) =
        tempo(&["sweep", RULES, DUEL, "--set", "Brute.hp_max=0..499", "--runs", "2", "--format", "json"]);
    assert_eq!(merged, whole, "merged shards differ from one machine's sweep");
    // 61 participants make each point's layout large: 10,000 points could not be merged.
    let mut crowd: Vec<String> = (0..60)
        .map(|i| format!("(name: \"H{i}\", side: \"heroes\", position: 0, controller: Policy(Passive))"))
        .collect();
    crowd.push("(name: \"Brute\", side: \"monsters\", position: 5, controller: Policy(Passive))".into());
    let scenario = dir.join("crowd.ron");
    std::fs::write(&scenario, format!("(seed: 7, rounds: 1, participants: [{}])", crowd.join(",\n"))).unwrap();
    let crowd = scenario.to_str().unwrap();
    let started = std::time::Instant::now();
    let (code, out, err) =
        tempo(&["sweep", RULES, crowd, "--set", "Brute.hp_max=1..10000", "--runs", "9", "--shard", "1/2"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("10000 points takes") && err.contains("past the 67108864 a shard file may hold"), "{err}");
    assert!(started.elapsed().as_secs() < 20, "refused before anything is played");
}

#[test]
fn the_html_page_draws_the_shares_or_the_grid() {
    let dir = temp_dir("html");
    for (sets, id) in [
        (&["--set", "Brute.hp_max=14..16"][..], "chart-sweep"),
        (&["--set", "Brute.hp_max=14..15", "--set", "Aria.damage=3..4"][..], "chart-grid"),
    ] {
        let page = dir.join(format!("{id}.html"));
        let mut a = vec!["sweep", RULES, DUEL, "--runs", "20", "--html", page.to_str().unwrap()];
        a.extend_from_slice(sets);
        assert_eq!(tempo(&a).0, 0);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.contains(&format!("<figure id=\"{id}\">")) && html.contains("<svg"), "{id}");
        assert!(html.contains("<title>frontiers.rules, duel.ron: sweep of"), "the title names the scenario");
    }
}

/// Issue 33, item 6: every batch is made as it is played, so `--runs 10^12` runs (for ever) in
/// flat memory instead of aborting on an allocation of every block up front.
#[cfg(target_os = "linux")]
#[test]
fn a_trillion_runs_start_in_flat_memory() {
    let trillion = "1000000000000";
    for args in [
        &["sim", RULES, DUEL, "--runs", trillion, "--jobs", "1"][..],
        &["compare", RULES, RULES, DUEL, "--runs", trillion, "--jobs", "1"][..],
        &["sweep", RULES, DUEL, "--set", "Brute.hp_max=14..15", "--runs", trillion, "--jobs", "1"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tempo"))
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_secs(2));
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let still = child.try_wait().unwrap().is_none();
        let _ = child.kill();
        let _ = child.wait();
        let rss_kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(u64::MAX);
        assert!(still, "{args:?} ended (aborted?) within 2 s");
        assert!(rss_kb < 300_000, "{args:?} holds {rss_kb} kB after 2 s");
    }
}
