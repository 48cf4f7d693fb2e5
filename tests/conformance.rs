//! Conformance: every rule statement of the five seed documents, shown by a small encounter
//! under the shipped ruleset. One case file per rule, `tests/conformance/<system>/<rule>.test.ron`,
//! a `tempo test` file (docs/testing.md) run by the same code as `tempo test`; each becomes one
//! named test (`<system>/<rule>`), so `cargo test --test conformance -- frontiers/` runs one
//! system. What a case adds to a test file is described in `tests/conformance/README.md`.
//!
//! A last test keeps `docs/conformance.md` honest: every case is listed there as tested, every
//! row it marks as tested has a case, and its counts are the counts of its rows.

mod test_files;

use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use tempo::testing;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A case is a `tempo test` file; what a conformance case adds is its citation: `rule` says the
/// rule, `source` starts with the document's file name, and so does the first comment line,
/// which goes on to name the section.
fn check_citation(path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let case = testing::file::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let source = case.source.unwrap_or_default();
    let document = source.split_whitespace().next().unwrap_or_default();
    let first = text.lines().next().unwrap_or_default();
    if case.rule.is_none() || !document.ends_with(".txt") || !first.starts_with("//") || !first.contains(document) {
        return Err(format!(
            "{}: a case says its `rule`, its first line is a comment citing the document and section, and \
             `source` starts with the document's file name (`000_....txt › Section`)",
            path.display()
        ));
    }
    Ok(())
}

fn check_case(name: &str, path: &Path) -> Result<(), Failed> {
    check_citation(path)?;
    test_files::play(name, path, "CONFORMANCE_TRACE")
}

/// Every case file, as (`system/rule`, path), sorted.
fn cases() -> Vec<(String, PathBuf)> {
    match testing::file::discover(&[root().join("tests/conformance")]) {
        Ok(found) => found.into_iter().map(|f| (f.name, f.path)).collect(),
        Err(_) => Vec::new(),
    }
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
        cases.into_iter().map(|(name, path)| Trial::test(name.clone(), move || check_case(&name, &path))).collect();
    trials.push(Trial::test("docs/conformance.md lists every case with honest counts", move || check_doc(&names)));
    libtest_mimic::run(&args, trials).exit();
}
