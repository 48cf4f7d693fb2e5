//! The files `tempo fmt` works on: which files a list of paths names, and replacing one with its
//! formatted text so that a crash at any moment leaves either the old file or the new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

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

/// Replaces the file at `path` with `text`: written to a new file in the same folder, flushed to
/// the disk, then renamed over the original (a rename within one folder is atomic). The original's
/// permissions and owner are kept; a link is followed so the link stays a link. A read-only file
/// is refused. A file with other hard links (or whose owner cannot be kept) is rewritten in place
/// instead, so every name keeps seeing the same file: the new text is first written and flushed
/// beside it, and that copy is left there if the rewrite fails.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let target = fs::canonicalize(path)?;
    let meta = fs::metadata(&target)?;
    if meta.permissions().readonly() {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, "the file is read-only; it was left alone"));
    }
    let dir = target.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (temp, mut file) = create_temp(&dir, &name)?;
    // Set once the original starts being rewritten in place: from then on `temp` is the only
    // whole copy of the new text, so it is kept if anything fails.
    let mut in_place = false;
    let result = (|| {
        file.write_all(text.as_bytes())?;
        file.set_permissions(meta.permissions())?;
        file.sync_all()?;
        drop(file);
        if !keeps_identity(&temp, &meta) {
            in_place = true;
            let mut original = OpenOptions::new().write(true).truncate(true).open(&target)?;
            original.write_all(text.as_bytes())?;
            original.sync_all()?;
            return fs::remove_file(&temp);
        }
        fs::rename(&temp, &target)?;
        // The rename is on the disk only once the folder is; not every system can sync a folder.
        if let Ok(folder) = File::open(&dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    })();
    match result {
        Err(e) if in_place => Err(io::Error::new(
            e.kind(),
            format!("{e} (while rewriting it in place; the formatted text is in `{}`)", temp.display()),
        )),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e)
        }
        Ok(()) => Ok(()),
    }
}

/// Writes `text` to `path`, which need not exist yet: an existing file is replaced as
/// [`write_atomically`] replaces it; a new one is written beside under a temporary name, flushed
/// to the disk, then renamed into place, so nobody ever sees half of it (`tempo doc -o`).
pub fn write_new_atomically(path: &Path, text: &str) -> io::Result<()> {
    if fs::symlink_metadata(path).is_ok() {
        return write_atomically(path, text);
    }
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (temp, mut file) = create_temp(&dir, &name)?;
    let result = (|| {
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        if let Ok(folder) = File::open(&dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Whether renaming `temp` over the original keeps it the same file for everyone: no other hard
/// link to the original, and `temp` given the original's owner.
#[cfg(unix)]
fn keeps_identity(temp: &Path, original: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    if original.nlink() > 1 {
        return false;
    }
    match fs::metadata(temp) {
        Ok(t) if t.uid() == original.uid() && t.gid() == original.gid() => true,
        _ => std::os::unix::fs::chown(temp, Some(original.uid()), Some(original.gid())).is_ok(),
    }
}

#[cfg(not(unix))]
fn keeps_identity(_temp: &Path, _original: &fs::Metadata) -> bool {
    true
}

/// A new file next to the one being replaced, named so it cannot be mistaken for a ruleset.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let mut attempts = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{}-{n}.tempo-fmt", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            // Left over from a crashed run that had the same process id: try the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}
