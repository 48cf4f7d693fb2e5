//! Conformance: every rule statement of the five seed documents, shown by a small encounter
//! under the shipped ruleset. One case file per rule, `tests/conformance/<system>/<rule>.ron`;
//! each becomes one named test (`<system>/<rule>`), so `cargo test --test conformance -- frontiers/`
//! runs one system. The case format is described in `tests/conformance/README.md`.
//!
//! A last test keeps `docs/conformance.md` honest: every case is listed there as tested, every
//! row it marks as tested has a case, and its counts are the counts of its rows.

use libtest_mimic::{Arguments, Failed, Trial};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use tempo::check::compile_path;
use tempo::run::{run, scenario::Scenario, trace, RunError};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// The rule, in our words.
    rule: String,
    /// Where the document states it: file name and section heading.
    source: String,
    /// The shipped ruleset the rule belongs to (a file name under `rulesets/`).
    ruleset: String,
    scenario: Scenario,
    /// Seeds to run; the expectations must hold for each. Default: the scenario's own seed.
    #[serde(default)]
    seeds: Vec<u64>,
    /// Text-trace fragments that must appear, in this order (other lines may come between).
    #[serde(default)]
    expect: Vec<String>,
    /// Text-trace fragments that must not appear anywhere.
    #[serde(default)]
    absent: Vec<String>,
    /// The run must stop with this runtime diagnostic code instead of finishing.
    #[serde(default)]
    error: Option<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_case(path: &Path) -> Result<Case, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let case: Case = options.from_str(&text).map_err(|e| format!("{}: not a valid case: {e}", path.display()))?;
    // The citation: `source` starts with the document's file name, and so does the first
    // comment line, which goes on to name the section.
    let document = case.source.split_whitespace().next().unwrap_or_default();
    let first = text.lines().next().unwrap_or_default();
    if !document.ends_with(".txt") || !first.starts_with("//") || !first.contains(document) {
        return Err(format!(
            "{}: the first line must be a comment citing the document and section, and `source` must start \
             with the document's file name (`000_....txt › Section`)",
            path.display()
        ));
    }
    Ok(case)
}

fn check_case(path: &Path) -> Result<(), Failed> {
    let case = read_case(path)?;
    if case.expect.is_empty() && case.absent.is_empty() && case.error.is_none() {
        return Err("a case must expect something".into());
    }
    let rules = root().join("rulesets").join(&case.ruleset);
    let compiled = compile_path(&rules);
    if compiled.has_errors() {
        return Err(format!("{} does not compile: {:?}", case.ruleset, compiled.diagnostics).into());
    }
    let ruleset = compiled.ruleset.ok_or("no ruleset")?;
    let seeds: Vec<Option<u64>> =
        if case.seeds.is_empty() { vec![None] } else { case.seeds.iter().copied().map(Some).collect() };
    for seed in seeds {
        let at_seed = seed.map(|s| format!(" (seed {s})")).unwrap_or_default();
        let text = match (run(&ruleset, &case.scenario, seed), &case.error) {
            (Ok(records), None) => trace::to_text(&records),
            (Ok(records), Some(code)) => {
                return Err(format!(
                    "rule: {}\nexpected the run to stop with {code}{at_seed}, it finished:\n{}",
                    case.rule,
                    trace::to_text(&records)
                )
                .into())
            }
            (Err(e), Some(code)) => {
                let got = error_code(&e);
                if got != *code {
                    return Err(format!("rule: {}\nexpected {code}{at_seed}, got {got}: {e:?}", case.rule).into());
                }
                continue;
            }
            (Err(e), None) => {
                return Err(format!("rule: {} ({})\nthe run failed{at_seed}: {e:?}", case.rule, case.source).into())
            }
        };
        if std::env::var_os("CONFORMANCE_TRACE").is_some() {
            println!("--- {} ({}){at_seed}\n{text}", case.rule, case.source);
        }
        let mut from = 0;
        for want in &case.expect {
            match text[from..].find(want.as_str()) {
                Some(at) => from += at + want.len(),
                None => {
                    return Err(format!(
                        "rule: {}\n`{want}` not found (in order){at_seed} in the trace:\n{text}",
                        case.rule
                    )
                    .into())
                }
            }
        }
        for never in &case.absent {
            if text.contains(never.as_str()) {
                return Err(format!("rule: {}\n`{never}` must not appear{at_seed}, trace:\n{text}", case.rule).into());
            }
        }
    }
    Ok(())
}

fn error_code(e: &RunError) -> String {
    e.code().name()
}

/// Every case file, as (`system/rule`, path), sorted.
fn cases() -> Vec<(String, PathBuf)> {
    let dir = root().join("tests/conformance");
    let mut out = Vec::new();
    let Ok(systems) = fs::read_dir(&dir) else { return out };
    for system in systems.flatten() {
        if !system.path().is_dir() {
            continue;
        }
        let sys = system.file_name().to_string_lossy().into_owned();
        for file in fs::read_dir(system.path()).into_iter().flatten().flatten() {
            let p = file.path();
            if p.extension().is_some_and(|e| e == "ron") {
                let stem = p.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                out.push((format!("{sys}/{stem}"), p));
            }
        }
    }
    out.sort();
    out
}

/// The rows of `docs/conformance.md`'s tables: (test name or "", status).
fn doc_rows(doc: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        // | F12 | rule | test | status | note |: a row is known by its id (letters, then digits).
        let id = cells[0];
        let is_id = id.starts_with(|c: char| c.is_ascii_uppercase())
            && id.ends_with(|c: char| c.is_ascii_digit())
            && id.chars().all(|c| c.is_ascii_alphanumeric());
        if cells.len() < 4 || !line.trim_start().starts_with('|') || !is_id {
            continue;
        }
        let test = cells[2].trim_matches('`').to_string();
        rows.push((test, cells[3].to_string()));
    }
    rows
}

fn check_doc(names: &[String]) -> Result<(), Failed> {
    let doc =
        fs::read_to_string(root().join("docs/conformance.md")).map_err(|e| format!("docs/conformance.md: {e}"))?;
    let rows = doc_rows(&doc);
    let mut problems = Vec::new();
    let listed: BTreeSet<&str> =
        rows.iter().filter(|(t, _)| !t.is_empty() && t != "—").map(|(t, _)| t.as_str()).collect();
    for name in names {
        if !listed.contains(name.as_str()) {
            problems.push(format!("case {name} is not in docs/conformance.md"));
        }
    }
    let known: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    for (test, status) in &rows {
        let tested = status == "tested" || status == "reading" || status == "GM";
        if tested && !known.contains(test.as_str()) {
            problems.push(format!("docs/conformance.md marks `{test}` as {status}, but there is no such case"));
        }
        if !tested && status != "not encoded" {
            problems.push(format!("docs/conformance.md: unknown status `{status}` (for `{test}`)"));
        }
    }
    // "Counts: 12 rules, 10 tested, 1 reading, 0 GM, 1 not encoded." after each table, and
    // "Total: ..." in the same words for every row of the page.
    let counts = |rows: &[(String, String)]| {
        let count = |s: &str| rows.iter().filter(|(_, st)| st == s).count();
        format!(
            "{} rules, {} tested, {} reading, {} GM, {} not encoded.",
            rows.len(),
            count("tested"),
            count("reading"),
            count("GM"),
            count("not encoded")
        )
    };
    let total = counts(&rows);
    if !doc.lines().any(|l| l.trim() == format!("Total: {total}")) {
        problems.push(format!("docs/conformance.md needs the line `Total: {total}`"));
    }
    let mut section: Vec<(String, String)> = Vec::new();
    for line in doc.lines() {
        if line.trim_start().starts_with('|') {
            section.extend(doc_rows(line));
        } else if let Some(rest) = line.strip_prefix("Counts: ") {
            let want = counts(&section);
            if rest.trim() != want {
                problems.push(format!("docs/conformance.md says `Counts: {}`, its rows say `{want}`", rest.trim()));
            }
            section.clear();
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let cases = cases();
    let names: Vec<String> = cases.iter().map(|(n, _)| n.clone()).collect();
    let mut trials: Vec<Trial> =
        cases.into_iter().map(|(name, path)| Trial::test(name, move || check_case(&path))).collect();
    trials.push(Trial::test("docs/conformance.md lists every case with honest counts", move || check_doc(&names)));
    libtest_mimic::run(&args, trials).exit();
}
