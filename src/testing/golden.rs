//! Golden traces: the text trace of each seed of a test, kept in a file beside it, compared on
//! every run and written again with `--bless`.
// Without `fs` nothing reaches the running of a test file (its entry points read files), but
// the expectations stay in the core: what is only run from those entry points is unused there.
#![cfg_attr(not(feature = "fs"), allow(dead_code))]

#[cfg(feature = "fs")]
use similar::TextDiff;
use std::path::{Path, PathBuf};

/// Adds one seed's trace to the golden text, under a `--- seed N` header.
pub(crate) fn append(golden: &mut String, seed: u64, trace: &str) {
    golden.push_str(&format!("--- seed {seed}\n"));
    golden.push_str(trace);
}

/// A golden trace `--bless` is to write: where, what, and the folder it must stay in (its
/// test's). Nothing is written until every one of the run's is known to be allowed
/// (`testing::bless`).
#[derive(Debug, Clone)]
pub struct Pending {
    pub at: PathBuf,
    pub text: String,
    /// Whether a golden file was there (it is "rewritten", else "written").
    pub existed: bool,
    /// Whether the file differs from `text` (else it is planned only so that another test's
    /// different trace for the same file is refused).
    pub changed: bool,
    pub folder: PathBuf,
}

/// Where a test's `golden` names its trace, or why it may not name it: not empty, not an
/// absolute path, no `..` (a golden trace lives in its test's folder or below it; where links
/// lead is looked at before it is read or written), and not named as a ruleset, a scenario or a
/// test file is (`.rules`, `.ron`), so `--bless` cannot write over one, in this run or not.
pub(crate) fn locate(test: &Path, written: &str) -> Result<PathBuf, String> {
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
    let lower = written.trim_end().to_lowercase();
    if lower.ends_with(".rules") || lower.ends_with(".ron") {
        return Err(format!(
            "[{}] the golden trace `{written}` is named as a ruleset, scenario or test file is (`.rules`, `.ron`): \
             `--bless` never writes over one; name the trace `NAME.trace`",
            crate::diagnostics::Code::BlessRefused.name()
        ));
    }
    Ok(super::file::beside(test, written))
}

/// Whether the golden trace `written` of the test at `test` is refused where it is named
/// (`locate`, or a link leading out of the test's folder): `--bless` then writes no golden
/// trace of the run.
#[cfg(feature = "fs")]
pub(crate) fn refused(test: &Path, written: &str) -> bool {
    locate(test, written).and_then(|at| super::within::check_golden(&at, &super::file::folder_of(test))).is_err()
}

/// Compares `wanted` with the golden file at `path` (inside `folder`, its test's, links
/// followed: a golden trace leading out is neither read nor written). With `bless`, the write
/// to make (`changed` false when the file already holds it). Without: `None` when they are the
/// same, else an error holding a unified diff (or saying there is no file yet).
#[cfg(feature = "fs")]
pub fn compare(path: &Path, wanted: &str, bless: bool, folder: &Path) -> Result<Option<Pending>, String> {
    super::within::check_golden(path, folder)?;
    let kept = match read(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && std::fs::symlink_metadata(path).is_err() => None,
        Err(e) => return Err(format!("cannot read the golden trace `{}`: {e}", path.display())),
    };
    let changed = kept.as_deref() != Some(wanted);
    if bless {
        return Ok(Some(Pending {
            at: path.to_path_buf(),
            text: wanted.to_string(),
            existed: kept.is_some(),
            changed,
            folder: folder.to_path_buf(),
        }));
    }
    if !changed {
        return Ok(None);
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
pub fn compare(path: &Path, _wanted: &str, _bless: bool, _folder: &Path) -> Result<Option<Pending>, String> {
    Err(format!("cannot read the golden trace `{}`: {}", path.display(), crate::check::load::NO_FILES))
}

#[cfg(all(test, feature = "fs"))]
mod tests {
    use super::*;

    #[test]
    fn a_changed_trace_is_shown_as_a_diff_and_blessing_plans_it() {
        let dir = std::env::temp_dir().join(format!("tempo-golden-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.trace");
        let first = "--- seed 1\nA's turn.\n  A: hp 3 -> 2\n";
        assert!(compare(&path, first, false, &dir).unwrap_err().contains("--bless"));
        let planned = compare(&path, first, true, &dir).unwrap().unwrap();
        assert!(!planned.existed && planned.changed && planned.text == first);
        std::fs::write(&path, first).unwrap();
        assert!(compare(&path, first, false, &dir).unwrap().is_none());
        let second = first.replace("hp 3 -> 2", "hp 3 -> 1");
        let diff = compare(&path, &second, false, &dir).unwrap_err();
        assert!(diff.contains("-  A: hp 3 -> 2") && diff.contains("+  A: hp 3 -> 1"), "{diff}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
