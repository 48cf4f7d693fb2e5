//! Golden traces: the text trace of each seed of a test, kept in a file beside it, compared on
//! every run and written again with `--bless`.
// Without `fs` nothing reaches the running of a test file (its entry points read files), but
// the expectations stay in the core: what is only run from those entry points is unused there.
#![cfg_attr(not(feature = "fs"), allow(dead_code))]

#[cfg(feature = "fs")]
use similar::TextDiff;
use std::path::Path;

/// Adds one seed's trace to the golden text, under a `--- seed N` header.
pub(crate) fn append(golden: &mut String, seed: u64, trace: &str) {
    golden.push_str(&format!("--- seed {seed}\n"));
    golden.push_str(trace);
}

/// What blessing must leave alone: the files the tests read (test files, rulesets, scenario
/// files), and everything outside the test's folder.
#[derive(Debug, Clone, Copy)]
pub struct Keep<'a> {
    pub inputs: &'a [std::path::PathBuf],
    pub folder: &'a Path,
}

/// Where a test's `golden` names its trace, or why it may not name it: not empty, not an
/// absolute path, no `..` (a golden trace lives in its test's folder or below it; where links
/// lead is looked at when it is written).
pub(crate) fn locate(test: &Path, written: &str) -> Result<std::path::PathBuf, String> {
    use std::path::Component;
    if written.trim().is_empty() {
        return Err("the golden trace is empty: `golden: \"\"` names no file; give a file name beside the test".into());
    }
    let relative = Path::new(written);
    if relative.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(format!(
            "the golden trace `{written}` is not in the test's folder: `golden` is a path below the test's folder, \
             without `..` or a leading `/`"
        ));
    }
    Ok(super::file::beside(test, written))
}

/// Compares `wanted` with the golden file at `path`; with `bless`, writes it instead (when it
/// differs or is missing) and says so, through the one writer under `guard` (never over the
/// test's inputs, never outside `guard.within`). A difference is an error holding a unified diff.
#[cfg(feature = "fs")]
pub fn compare(path: &Path, wanted: &str, bless: bool, keep: Keep) -> Result<Option<String>, String> {
    let kept = match read(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && std::fs::symlink_metadata(path).is_err() => None,
        Err(e) => return Err(format!("cannot read the golden trace `{}`: {e}", path.display())),
    };
    if kept.as_deref() == Some(wanted) {
        return Ok(None);
    }
    if bless {
        let guard = crate::output::Guard { inputs: keep.inputs, within: Some(keep.folder), no_hard_links: true };
        crate::output::write(path, guard, "the golden trace", wanted.as_bytes())?;
        let what = if kept.is_some() { "rewritten" } else { "written" };
        return Ok(Some(format!("golden trace `{}` {what}", path.display())));
    }
    let Some(kept) = kept else {
        return Err(format!(
            "the golden trace `{}` does not exist yet: run `tempo test --bless` to write it",
            path.display()
        ));
    };
    let diff = TextDiff::from_lines(kept.as_str(), wanted);
    let shown = diff.unified_diff().context_radius(3).header("golden", "this run").to_string();
    Err(format!(
        "the trace differs from the golden trace `{}` (- golden, + this run; `tempo test --bless` accepts it):\n{shown}",
        path.display()
    ))
}

/// A golden trace read as every input is (`check::FsLoader`): a regular file, at most
/// `check::MAX_INPUT_BYTES`, so a pipe or a device named as one neither hangs nor fills memory.
#[cfg(feature = "fs")]
fn read(path: &Path) -> std::io::Result<String> {
    use crate::check::Loader;
    let limits = crate::check::Limits { max_file_bytes: crate::check::MAX_INPUT_BYTES, ..Default::default() };
    let bytes = crate::check::FsLoader::new(limits).read(path)?;
    String::from_utf8(bytes).map_err(|_| std::io::Error::other("it is not UTF-8 text"))
}

/// A golden trace is a file, and this build reads none: a test that names one fails saying so.
#[cfg(not(feature = "fs"))]
pub fn compare(path: &Path, _wanted: &str, _bless: bool, _keep: Keep) -> Result<Option<String>, String> {
    Err(format!("cannot read the golden trace `{}`: {}", path.display(), crate::check::load::NO_FILES))
}

#[cfg(all(test, feature = "fs"))]
mod tests {
    use super::*;

    #[test]
    fn a_changed_trace_is_shown_as_a_diff_and_blessing_writes_it() {
        let dir = std::env::temp_dir().join(format!("tempo-golden-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.trace");
        let first = "--- seed 1\nA's turn.\n  A: hp 3 -> 2\n";
        assert!(compare(&path, first, false, Keep { inputs: &[], folder: &dir }).unwrap_err().contains("--bless"));
        assert!(compare(&path, first, true, Keep { inputs: &[], folder: &dir })
            .unwrap()
            .unwrap_or_default()
            .contains("written"));
        assert_eq!(compare(&path, first, false, Keep { inputs: &[], folder: &dir }), Ok(None));
        let second = first.replace("hp 3 -> 2", "hp 3 -> 1");
        let diff = compare(&path, &second, false, Keep { inputs: &[], folder: &dir }).unwrap_err();
        assert!(diff.contains("-  A: hp 3 -> 2") && diff.contains("+  A: hp 3 -> 1"), "{diff}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
