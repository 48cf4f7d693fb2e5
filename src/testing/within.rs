//! The folder rule for what a test reads. Every file a test run reads (the test files found, their
//! rulesets and scenario files) lies, links followed, inside the folder given to `tempo test`
//! (for a test file given directly, its folder) or inside the current folder; `--allow-outside`
//! lifts this, as it lifts the rule for `extends`. A golden trace lies inside its own test's
//! folder, always.
//!
//! Both folders and the file are made canonical (links and `..` resolved) and the check comes
//! before the file is opened, so a test file cannot make tempo read a file outside both
//! (`ruleset: "/proc/self/environ"`, `"../../.aws/credentials"`, a link to either) and print its
//! lines in a diagnostic: a `tempo test` run on a pull request in CI would leak them. From a
//! project's root, its test folders may name the project's rulesets (`../rulesets/x.rules`).
// Without `fs` no file is read, and nothing here is called.
#![cfg_attr(not(feature = "fs"), allow(dead_code))]

use crate::check::load::inside;
use crate::diagnostics::Code;
use std::path::{Path, PathBuf};

/// Refuses `path` (what the test names, `what`: "the ruleset `../x.rules`") unless its real
/// place, links and `..` resolved, is `root` or below it, or the current folder or below it. The
/// refusal names the code, the file and the folder given, never anything the file holds (nor the
/// current folder's path, so a report reads the same on every machine).
pub(crate) fn check(path: &Path, root: &Path, what: &str) -> Result<(), String> {
    let place = real(path);
    if inside(&real(root), &place) || current_folder().is_some_and(|here| inside(&here, &place)) {
        return Ok(());
    }
    Err(format!(
        "[{}] {what} (`{}`) leads outside the folder `{}` and the current folder (through `..`, an absolute path or \
         a link), so it was not read: a test reads only files inside the folder given to `tempo test` or the \
         folder it is run from (and below); move it there, or pass `--allow-outside` if you trust every test file \
         of the run",
        Code::OutsideFolder.name(),
        path.display(),
        root.display()
    ))
}

/// Refuses a golden trace at `path` unless its real place is its test's own `folder` or below it
/// (the current folder does not count, and `--allow-outside` does not lift it): a golden trace is
/// read and, with `--bless`, written.
pub(crate) fn check_golden(path: &Path, folder: &Path) -> Result<(), String> {
    if inside(&real(folder), &real(path)) {
        return Ok(());
    }
    Err(format!(
        "[{}] the golden trace (`{}`) leads outside its test's folder `{}` (through `..`, an absolute path or a \
         link), so it was neither read nor written: a golden trace lies in its test's folder or below",
        Code::OutsideFolder.name(),
        path.display(),
        folder.display()
    ))
}

/// The current folder, made canonical; `None` when it cannot be known (removed, unreadable).
#[cfg(feature = "fs")]
fn current_folder() -> Option<PathBuf> {
    std::fs::canonicalize(std::env::current_dir().ok()?).ok()
}

/// Without files there is no current folder.
#[cfg(not(feature = "fs"))]
fn current_folder() -> Option<PathBuf> {
    None
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
