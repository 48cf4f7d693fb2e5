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

/// Compares `wanted` with the golden file at `path`; with `bless`, writes it instead (when it
/// differs or is missing) and says so. A difference is an error holding a unified diff.
#[cfg(feature = "fs")]
pub fn compare(path: &Path, wanted: &str, bless: bool) -> Result<Option<String>, String> {
    let kept = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read the golden trace `{}`: {e}", path.display())),
    };
    if kept.as_deref() == Some(wanted) {
        return Ok(None);
    }
    if bless {
        crate::fmt::files::write_new_atomically(path, wanted)
            .map_err(|e| format!("cannot write the golden trace `{}`: {e}", path.display()))?;
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

/// A golden trace is a file, and this build reads none: a test that names one fails saying so.
#[cfg(not(feature = "fs"))]
pub fn compare(path: &Path, _wanted: &str, _bless: bool) -> Result<Option<String>, String> {
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
        assert!(compare(&path, first, false).unwrap_err().contains("--bless"));
        assert!(compare(&path, first, true).unwrap().unwrap_or_default().contains("written"));
        assert_eq!(compare(&path, first, false), Ok(None));
        let second = first.replace("hp 3 -> 2", "hp 3 -> 1");
        let diff = compare(&path, &second, false).unwrap_err();
        assert!(diff.contains("-  A: hp 3 -> 2") && diff.contains("+  A: hp 3 -> 1"), "{diff}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
