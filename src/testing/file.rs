//! The test file: a ruleset, a scenario, seeds and what must happen (docs/testing.md). Files
//! are named `*.test.ron`; a folder is searched for them.
// Without `fs` nothing reaches the running of a test file (its entry points read files), but
// the expectations stay in the core: what is only run from those entry points is unused there.
#![cfg_attr(not(feature = "fs"), allow(dead_code))]

use crate::run::scenario::Scenario;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// What names a test file.
pub(crate) const SUFFIX: &str = ".test.ron";

/// One golden encounter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestFile {
    /// The ruleset, relative to the test file's folder: `.rules` source or a compiled `.ron` IR.
    pub ruleset: String,
    /// What the test shows, in words (optional).
    #[serde(default)]
    pub rule: Option<String>,
    /// Where the rule is written (a document and section; optional).
    #[serde(default)]
    pub source: Option<String>,
    /// The scenario, written here (exactly as a scenario file, docs/scenario.md) ...
    #[serde(default)]
    pub scenario: Option<Scenario>,
    /// ... or a scenario file, relative to the test file's folder.
    #[serde(default)]
    pub scenario_file: Option<String>,
    /// Numbers changed as `--set NAME=VALUE` changes them (`"hp_max=12"`, `"Brute.hp_max=20"`,
    /// `"heroes.damage=3"`), in order, before anything is played.
    #[serde(default)]
    pub set: Vec<String>,
    /// Seeds to run; every expectation must hold for each. Default: the scenario's seed.
    #[serde(default)]
    pub seeds: Vec<u64>,
    /// Fragments of the text trace that must appear, in this order.
    #[serde(default)]
    pub expect: Vec<String>,
    /// Fragments of the text trace that must not appear.
    #[serde(default)]
    pub absent: Vec<String>,
    /// Events that must appear in this order, each matched by the fields it names.
    #[serde(default)]
    pub events: Vec<Pattern>,
    /// Events that must each appear somewhere.
    #[serde(default)]
    pub anywhere: Vec<Pattern>,
    /// Events that must not appear.
    #[serde(default)]
    pub never: Vec<Pattern>,
    /// Participants' pools (and, if given, exactly their conditions) when the encounter ends.
    #[serde(default, rename = "final")]
    pub(crate) final_state: BTreeMap<String, FinalState>,
    /// The run (or the ruleset, or the scenario) must fail with this diagnostic code.
    #[serde(default)]
    pub error: Option<String>,
    /// A golden trace, relative to the test file: the text trace of each seed.
    #[serde(default)]
    pub golden: Option<String>,
}

/// An event pattern: field name to the value it must have, as `tempo run --format jsonl`
/// writes the event (`{"event": "pool", "who": "Bree", "to": 0}`).
pub(crate) type Pattern = BTreeMap<String, serde_json::Value>;

/// A participant's state at the end.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinalState {
    /// The named pools' values (the others are not looked at).
    #[serde(default)]
    pub pools: BTreeMap<String, i64>,
    /// When given, exactly the conditions held, in any order.
    #[serde(default)]
    pub conditions: Option<Vec<String>>,
}

impl TestFile {
    /// Whether it expects anything at all (a test that expects nothing cannot fail).
    pub(crate) fn expects_something(&self) -> bool {
        !(self.expect.is_empty()
            && self.absent.is_empty()
            && self.events.is_empty()
            && self.anywhere.is_empty()
            && self.never.is_empty()
            && self.final_state.is_empty()
            && self.error.is_none()
            && self.golden.is_none())
    }
}

/// The test's scenario: written in it, or read from `scenario_file` (relative to `path`, the
/// test file). With `root`, a scenario file is read only when it lies inside that folder, links
/// followed (`within::check`): a test names no file outside both the folder given to `tempo test`
/// and the current folder.
pub(crate) fn scenario_of(test: &TestFile, path: &Path, root: Option<&Path>) -> Result<Scenario, String> {
    match (&test.scenario, &test.scenario_file) {
        (Some(s), None) => Ok(s.clone()),
        (None, Some(relative)) => {
            let at = beside(path, relative);
            if let Some(root) = root {
                super::within::check(&at, root, &format!("the scenario file `{relative}`"))?;
            }
            let text = read_to_string(&at).map_err(|e| format!("cannot read the scenario `{}`: {e}", at.display()))?;
            crate::run::scenario::parse(text.strip_prefix('\u{feff}').unwrap_or(&text))
                .map_err(|e| format!("`{}`: {e}", at.display()))
        }
        (Some(_), Some(_)) => Err("give `scenario` or `scenario_file`, not both".into()),
        (None, None) => Err("the test has no scenario: give `scenario: (...)` or `scenario_file: \"FILE\"`".into()),
    }
}

/// As every input is read (`check::read_text`): a regular file, at most `MAX_INPUT_BYTES`, so a
/// pipe or a device named as the scenario neither hangs nor fills the memory (here and in the
/// language server).
#[cfg(feature = "fs")]
fn read_to_string(path: &Path) -> Result<String, String> {
    crate::check::read_text(path, crate::check::MAX_INPUT_BYTES)
}

/// A file a test names cannot be read in a build without files: the test fails saying so.
#[cfg(not(feature = "fs"))]
fn read_to_string(_path: &Path) -> Result<String, String> {
    Err(crate::check::load::NO_FILES.to_string())
}

/// Parses a test file; the error says where (line and column) and what.
pub fn parse(text: &str) -> Result<TestFile, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    options.from_str(text).map_err(|e| format!("not a valid test file: {e}"))
}

/// `base`'s folder joined with `relative`, `..` and `.` taken out where they can be (so traces
/// name `rulesets/x.rules`, not `tests/a/../../rulesets/x.rules`).
pub fn beside(base: &Path, relative: &str) -> PathBuf {
    let joined = base.parent().unwrap_or(Path::new("")).join(relative);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A test found: its name (the path under the folder searched, without `.test.ron`), its file,
/// and the folder given that found it (for a test file given directly, its folder): the files
/// the test reads must lie inside it (`within`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    pub name: String,
    pub path: PathBuf,
    pub root: PathBuf,
}

/// The folder a file given on the command line stands in (`.` for a bare name).
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The test files named or under the folders named, sorted by name within each argument. A
/// path that does not exist is an error; so is finding no test at all.
#[cfg(feature = "fs")]
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Found>, String> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if meta.is_dir() {
            let mut here = Vec::new();
            walk(path, &mut here)?;
            here.sort();
            out.extend(here);
        } else {
            let shown = path.to_string_lossy();
            let name = shown.strip_suffix(SUFFIX).unwrap_or(&shown).to_string();
            out.push(Found { name, path: path.clone(), root: folder_of(path) });
        }
    }
    if out.is_empty() {
        let searched: Vec<String> = paths.iter().map(|p| format!("`{}`", p.display())).collect();
        return Err(format!("no test files (`*{SUFFIX}`) in {}", searched.join(", ")));
    }
    Ok(out)
}

/// Every test file under `root`, however deep: the folders are walked with a list rather than
/// by recursion, so depth costs no stack, and links are not followed (`file_type` does not
/// follow them), so a link to a folder above cannot make a loop.
#[cfg(feature = "fs")]
fn walk(root: &Path, out: &mut Vec<Found>) -> Result<(), String> {
    let mut folders = vec![root.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read the folder `{}`: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                // Build output and hidden folders hold no tests of the project's.
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if !(name.starts_with('.') || name == "target") {
                    folders.push(path);
                }
            } else if path.to_string_lossy().ends_with(SUFFIX) {
                let under = path.strip_prefix(root).unwrap_or(&path);
                let shown = under.to_string_lossy().replace('\\', "/");
                let name = shown.strip_suffix(SUFFIX).unwrap_or(&shown).to_string();
                out.push(Found { name, path, root: root.to_path_buf() });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_beside_a_test_file_lose_their_dots() {
        let p = beside(Path::new("tests/conformance/frontiers/x.test.ron"), "../../../rulesets/f.rules");
        assert_eq!(p, PathBuf::from("rulesets/f.rules"));
        assert_eq!(beside(Path::new("x.test.ron"), "./a.rules"), PathBuf::from("a.rules"));
        assert_eq!(beside(Path::new("x.test.ron"), "../a.rules"), PathBuf::from("../a.rules"));
    }

    #[test]
    fn a_test_that_expects_nothing_is_known() {
        let t = parse(r#"(ruleset: "a.rules", scenario: (rounds: 1, participants: []))"#).unwrap();
        assert!(scenario_of(&t, Path::new("a.test.ron"), None).is_ok());
        assert!(!t.expects_something());
        let t = parse(r#"(ruleset: "a.rules", scenario: (rounds: 1, participants: []), golden: "a.trace")"#).unwrap();
        assert!(t.expects_something());
    }
}
