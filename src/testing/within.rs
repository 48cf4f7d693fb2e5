//! The folder rule for what a test reads. Every file a test run reads lies, links followed,
//! inside the folder given to `tempo test` (for a test file given directly, its folder): the
//! test files found there, their rulesets and scenario files; `--allow-outside` lifts this, as
//! it lifts the rule for `extends`. A golden trace lies inside its own test's folder, always.
//!
//! It is checked before the file is opened, so a test file cannot make tempo read a file
//! outside (`ruleset: "/proc/self/environ"`, `"../../.aws/credentials"`, a link to either) and
//! print its lines in a diagnostic: a `tempo test` run on a pull request in CI would leak them.
// Without `fs` no file is read, and nothing here is called.
#![cfg_attr(not(feature = "fs"), allow(dead_code))]

use crate::diagnostics::Code;
use std::path::{Path, PathBuf};

/// Refuses `path` (what the test names, `what`: "the ruleset `../x.rules`") unless its real
/// place, links and `..` resolved, is `root` or below it. The refusal names the code, the file
/// and the folder, never anything the file holds.
pub(crate) fn check(path: &Path, root: &Path, what: &str) -> Result<(), String> {
    if crate::check::load::inside(&real(root), &real(path)) {
        return Ok(());
    }
    Err(format!(
        "[{}] {what} (`{}`) leads outside the folder `{}` (through `..`, an absolute path or a link), so it was \
         not read: a test reads only files inside the folder given to `tempo test` (and below); move it there, or \
         pass `--allow-outside` if you trust every test file of the run",
        Code::OutsideFolder.name(),
        path.display(),
        root.display()
    ))
}

/// Where `path` really is: its canonical path (every link and `..` resolved); for a file that
/// does not exist yet, its deepest folder that does, made canonical, with the rest of the path.
#[cfg(feature = "fs")]
pub(crate) fn real(path: &Path) -> PathBuf {
    let absolute = match std::env::current_dir() {
        Ok(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    };
    let absolute = crate::check::load::normalize(&absolute);
    let mut rest = Vec::new();
    let mut head = absolute.as_path();
    loop {
        if let Ok(mut found) = std::fs::canonicalize(head) {
            found.extend(rest.iter().rev());
            return found;
        }
        match (head.parent(), head.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                head = parent;
            }
            _ => return absolute,
        }
    }
}

/// Without files, a path is where it is written.
#[cfg(not(feature = "fs"))]
pub(crate) fn real(path: &Path) -> PathBuf {
    crate::check::load::normalize(path)
}
