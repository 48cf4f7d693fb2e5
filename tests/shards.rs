//! `tempo sim merge` trusts no shard (issue 33, items 8 and 17): a forged or damaged shard is
//! refused, named by its file and its slice, before anything is allocated for it or added up.

use serde_json::Value;
use std::process::Command;

fn tempo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(args).env("NO_COLOR", "1").output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Two honest shards of a 400-run batch, as JSON values.
fn shards() -> Vec<Value> {
    (1..=2)
        .map(|k| {
            let shard = format!("{k}/2");
            let (code, out, err) = tempo(&[
                "sim",
                "rulesets/frontiers.rules",
                "examples/frontiers-duel.ron",
                "--runs",
                "400",
                "--shard",
                &shard,
            ]);
            assert_eq!(code, 0, "{err}");
            serde_json::from_str(&out).unwrap()
        })
        .collect()
}

/// Merges the shards written to files named `shard-K.json`; the exit code and stderr.
fn merge(name: &str, shards: &[Value]) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("tempo-shards-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<String> = shards
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let f = dir.join(format!("shard-{}.json", i + 1));
            std::fs::write(&f, s.to_string()).unwrap();
            f.to_str().unwrap().to_string()
        })
        .collect();
    let mut args = vec!["sim", "merge"];
    args.extend(files.iter().map(String::as_str));
    let (code, _, err) = tempo(&args);
    (code, err)
}

#[test]
fn honest_shards_merge() {
    assert_eq!(merge("honest", &shards()).0, 0);
}

/// What a forger changes in a shard.
type Forgery = Box<dyn Fn(&mut Value)>;

#[test]
fn forged_counts_are_refused_with_the_file_and_slice() {
    let forgeries: Vec<(&str, Forgery, &str)> = vec![
        ("negative-rounds", Box::new(|s| s["totals"]["sum"][0] = (-999_999).into()), "lengths do not add up"),
        ("completed-above-played", Box::new(|s| s["totals"]["completed"] = 1_000_300.into()), "ran to the end of"),
        ("slice-past-the-end", Box::new(|s| s["to"] = 800.into()), "not in its batch"),
        (
            "failures-that-wrap",
            Box::new(|s| {
                s["totals"]["failures"] = serde_json::json!({
                    "tempo::rule": {"count": u64::MAX, "first_run": 0, "first_seed": 1, "message": "x"}
                });
            }),
            "failures do not add up",
        ),
        (
            "histogram-of-2-to-the-63",
            Box::new(|s| s["totals"]["rounds"] = serde_json::json!({"1": 1u64 << 63, "2": 1u64 << 63})),
            "lengths do not add up",
        ),
        ("a-share-above-its-runs", Box::new(|s| s["totals"]["sum"][3] = 5000.into()), "is not a sum over"),
    ];
    for (name, forge, says) in forgeries {
        let mut all = shards();
        forge(&mut all[1]);
        let (code, err) = merge(name, &all);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(
            err.contains("shard-2.json` (runs 200..") || err.contains("shard-2.json` (runs 200..800"),
            "{name}: {err}"
        );
        assert!(err.contains(says), "{name}: {err}");
    }
}

/// Item 8: a layout of 200,000 participants and 20,000 pools asks for 192 GB of counts; it is
/// refused by its size before any of it is made.
#[test]
fn a_forged_layout_is_refused_before_it_is_allocated() {
    let mut all = shards();
    for s in &mut all {
        let names: Vec<Value> = (0..200_000).map(|i| Value::from(format!("p{i}"))).collect();
        let pools: Vec<Value> = (0..20_000).map(|i| Value::from(format!("q{i}"))).collect();
        s["layout"]["participants"] = names.into();
        s["layout"]["pools"] = pools.into();
    }
    let (code, err) = merge("huge-layout", &all);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("counts where its layout has"), "{err}");
}

/// Item 17: `sim merge -o FILE` writes FILE only when the shards make one batch, so a failed
/// merge leaves no empty summary behind (as a shell redirect would).
#[test]
fn merge_writes_its_output_only_when_it_succeeds() {
    let dir = std::env::temp_dir().join(format!("tempo-shards-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let all = shards();
    let files: Vec<String> = all
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let f = dir.join(format!("s{i}.json"));
            std::fs::write(&f, s.to_string()).unwrap();
            f.to_str().unwrap().to_string()
        })
        .collect();
    let out = dir.join("summary.json");
    let out_s = out.to_str().unwrap();
    let (code, stdout, _) = tempo(&["sim", "merge", &files[0], "-o", out_s, "--format", "json"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(!out.exists(), "a failed merge wrote its output");
    let (code, stdout, err) = tempo(&["sim", "merge", &files[0], &files[1], "-o", out_s, "--format", "json"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{err}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written["runs"], 400);
    let (code, _, err) = tempo(&["sim", "merge", &files[0], &files[1], "-o", &files[0]]);
    assert_eq!(code, 2, "a merge never writes over one of its shards: {err}");
}

/// Issue 33, item 4: `sim --html` (and `sweep --html`, `compare --html`) never writes over an
/// input of the command.
#[test]
fn an_html_page_never_replaces_an_input() {
    let dir = std::env::temp_dir().join(format!("tempo-shards-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("duel.ron");
    std::fs::copy("examples/frontiers-duel.ron", &scenario).unwrap();
    let before = std::fs::read_to_string(&scenario).unwrap();
    let s = scenario.to_str().unwrap();
    for args in [
        &["sim", "rulesets/frontiers.rules", s, "--runs", "5", "--html", s][..],
        &["compare", "rulesets/frontiers.rules", "rulesets/frontiers.rules", s, "--runs", "5", "--html", s][..],
        &["sweep", "rulesets/frontiers.rules", s, "--set", "Brute.hp_max=3..4", "--runs", "5", "--html", s][..],
    ] {
        let (code, _, err) = tempo(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&scenario).unwrap(), before, "{args:?} replaced its scenario");
    }
}

/// The two shards of a sweep of `--set Brute.hp_max=14..16 --runs 40`, as JSON values.
fn sweep_shards() -> Vec<Value> {
    (1..=2)
        .map(|k| {
            let shard = format!("{k}/2");
            let (code, out, err) = tempo(&[
                "sweep",
                "rulesets/frontiers.rules",
                "tests/sweep/duel.ron",
                "--set",
                "Brute.hp_max=14..16",
                "--runs",
                "40",
                "--shard",
                &shard,
                "--quiet",
            ]);
            assert_eq!(code, 0, "{err}");
            serde_json::from_str(&out).unwrap()
        })
        .collect()
}

// Issue 45, item 4: forged sweep shards were merged with no points, no parameters, three
// parameters, points twice or naming another parameter, 10,001 points, and paired sums no batch
// gives (a negative Σd², |Σd| > Σd²), which printed "difference -0.375 *".
#[test]
fn forged_sweep_shards_are_refused_as_sim_shards_are() {
    assert_eq!(merge("sweep-honest", &sweep_shards()).0, 0);
    let point = |s: &Value, k: usize| s["points"][k].clone();
    let forgeries: Vec<(&str, Forgery, &str)> = vec![
        ("no-points", Box::new(|s| s["points"] = serde_json::json!([])), "it holds no points"),
        (
            "no-parameters",
            Box::new(|s| {
                s["parameters"] = serde_json::json!([]);
                s["ranges"] = serde_json::json!([]);
            }),
            "it sweeps 0 parameters",
        ),
        (
            "three-parameters",
            Box::new(|s| {
                s["parameters"] = serde_json::json!(["a", "b", "c"]);
                s["ranges"] = serde_json::json!(["a=1..1", "b=1..1", "c=1..1"]);
            }),
            "it sweeps 3 parameters",
        ),
        (
            "a-point-twice",
            Box::new(move |s| {
                let first = point(s, 0);
                s["points"][1]["set"] = first["set"].clone();
            }),
            "point 2 repeats point 1",
        ),
        (
            "a-point-naming-another-parameter",
            Box::new(|s| s["points"][2]["set"][0][0] = "Aria.hp_max".into()),
            "point 3 names",
        ),
        (
            "10001-points",
            Box::new(move |s| {
                let last = point(s, 2);
                let mut points = vec![point(s, 0)];
                points.extend(std::iter::repeat_n(last, 10_000));
                s["points"] = points.into();
            }),
            "it holds 10001 points: a sweep plays at most 10000",
        ),
        (
            "a-negative-sum-of-squares",
            Box::new(|s| s["points"][1]["paired"]["sum_sq"][0] = (-1).into()),
            "the paired sums of point 2 are not a real batch's",
        ),
        (
            "a-sum-above-its-squares",
            Box::new(|s| {
                s["points"][1]["paired"]["sum"][0] = 5.into();
                s["points"][1]["paired"]["sum_sq"][0] = 3.into();
            }),
            "the paired sums of point 2 are not a real batch's",
        ),
        (
            "more-pairs-than-finished-runs",
            Box::new(|s| s["points"][1]["paired"]["n"] = 21.into()),
            "the paired sums of point 2 are not a real batch's",
        ),
        (
            "the-first-point-paired",
            Box::new(move |s| {
                let second = point(s, 1);
                s["points"][0]["paired"] = second["paired"].clone();
            }),
            "point 1 is paired where the sweep does not pair it",
        ),
    ];
    for (name, forge, says) in forgeries {
        let mut all = sweep_shards();
        forge(&mut all[1]);
        let (code, err) = merge(name, &all);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(err.contains(&format!("shard 2: {says}")), "{name}: {err}");
    }
}
