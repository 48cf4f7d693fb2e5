//! The files `tempo fmt` works on: which files a list of paths names, and replacing one with its
//! formatted text so that a crash at any moment leaves either the old file or the new one.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The files named by `paths`: a file as given (whatever its name), a folder as every `*.rules`
/// file under it, sorted so the output is the same on every machine. Folders that cannot be read
/// are returned with their error. Hidden folders (`.git`, ...) are not entered.
pub fn rules_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, io::Error)>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found, &mut errors);
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    (files, errors)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>, errors: &mut Vec<(PathBuf, io::Error)>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return errors.push((dir.to_path_buf(), e)),
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                errors.push((dir.to_path_buf(), e));
                continue;
            }
        };
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        // `file_type` does not follow links, so a link to a folder above cannot make a loop.
        match entry.file_type() {
            Ok(t) if t.is_dir() && !hidden => walk(&path, found, errors),
            Ok(_) if path.extension().is_some_and(|e| e == "rules") && path.is_file() => found.push(path),
            Ok(_) => {}
            Err(e) => errors.push((path, e)),
        }
    }
}

/// Replaces the file at `path` with `text` through the one writer ([`crate::output`]): atomic, the
/// original's permissions and owner kept, a link followed so the link stays a link, a read-only
/// file refused, a file with other hard links rewritten in place so every name sees the new text.
/// The error says which file and why.
#[cfg(feature = "fs")]
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    crate::output::write(path, crate::output::Guard::default(), "", text.as_bytes())
}
