//! The one writer: every file tempo writes (`compile -o`, `doc -o`, `sim --html`, golden traces
//! with `test --bless`, `fmt` in place) goes through [`write`] or [`write_with`].
//!
//! Before anything is written the target is looked at: it must be a regular file or not exist
//! yet in an existing folder; it must not be a file the command reads (compared as files, so a
//! hard link or a symlink to an input counts); for a golden trace it must stay inside the test's
//! folder. Then the new content goes to a temporary file beside the target, is flushed to the
//! disk and renamed over it, so a crash leaves the old file or the new one, never half of one;
//! the temporary file is removed when anything fails. Every refusal names the file and says why.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// What an output must not touch.
#[derive(Debug, Clone, Copy, Default)]
pub struct Guard<'a> {
    /// The files the command reads: never written over, however the output's name reaches them.
    pub inputs: &'a [PathBuf],
    /// The folder the output must stay in (a golden trace: its test's folder), links followed.
    pub within: Option<&'a Path>,
    /// A file with other hard links is refused rather than changed under its other names (a
    /// golden trace linked from elsewhere); otherwise it is rewritten in place, keeping the links.
    pub no_hard_links: bool,
}

/// Writes `bytes` to `path` under `guard`. The error reads "cannot write WHAT `PATH`: WHY".
pub fn write(path: &Path, guard: Guard, what: &str, bytes: &[u8]) -> Result<(), String> {
    write_with(path, guard, what, |w| w.write_all(bytes))
}

/// As [`write`], the content streamed by `fill` (the IR is several times its source: it is not
/// held whole).
pub fn write_with(
    path: &Path,
    guard: Guard,
    what: &str,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), String> {
    let fail = |why: String| {
        let what = if what.is_empty() { String::new() } else { format!("{what} ") };
        format!("cannot write {what}`{}`: {why}", path.display())
    };
    let target = target(path, guard).map_err(fail)?;
    replace(&target, fill).map_err(fail)
}

/// Whether `path` may be written under `guard`, without writing it: the reason when it may not.
pub fn refusal(path: &Path, guard: Guard) -> Option<String> {
    target(path, guard).err()
}

/// Where the bytes go, as looked at before writing.
enum Target {
    /// A regular file there already (links followed): its real path and what it was.
    Existing { path: PathBuf, meta: fs::Metadata },
    /// A new file: its path in its (real) folder.
    New { path: PathBuf },
}

fn target(path: &Path, guard: Guard) -> Result<Target, String> {
    if path.as_os_str().is_empty() {
        return Err("the file name is empty".into());
    }
    let within = match guard.within {
        Some(folder) => Some(fs::canonicalize(folder).map_err(|e| format!("its folder cannot be read: {e}"))?),
        None => None,
    };
    let outside = |real: &Path| match &within {
        Some(folder) if !inside(folder, real) => {
            Err(format!("it leads outside the folder `{}` (through a link or `..`)", folder.display()))
        }
        _ => Ok(()),
    };
    match fs::symlink_metadata(path) {
        Ok(_) => {
            let real = fs::canonicalize(path).map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => "it is a link to a file that does not exist".to_string(),
                _ => e.to_string(),
            })?;
            let meta = fs::metadata(&real).map_err(|e| e.to_string())?;
            if meta.is_dir() {
                return Err("it is a folder, not a file".into());
            }
            if !meta.is_file() {
                return Err("it is not a regular file (a device, a pipe or a socket); tempo writes only regular \
                            files"
                    .into());
            }
            outside(&real)?;
            if let Some(input) = guard.inputs.iter().find(|i| same_file(&meta, &real, i)) {
                return Err(format!("it is `{}`, which this command reads; the input was left alone", input.display()));
            }
            if meta.permissions().readonly() {
                return Err("the file is read-only; it was left alone".into());
            }
            if guard.no_hard_links && links(&meta) > 1 {
                return Err("it has other hard links, which would change with it; it was left alone".into());
            }
            Ok(Target::Existing { path: real, meta })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let Some(name) = path.file_name().filter(|_| !ends_in_dots(path)) else {
                return Err("it names a folder, not a file".into());
            };
            let dir = match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
            let real_dir = fs::canonicalize(dir).map_err(|e| format!("its folder `{}`: {e}", dir.display()))?;
            if !real_dir.is_dir() {
                return Err(format!("`{}` is not a folder", dir.display()));
            }
            let real = real_dir.join(name);
            outside(&real)?;
            Ok(Target::New { path: real })
        }
        Err(e) => Err(e.to_string()),
    }
}

/// `x/..` or `x/.`: a folder, though `file_name` would say otherwise.
fn ends_in_dots(path: &Path) -> bool {
    matches!(path.components().next_back(), Some(Component::ParentDir | Component::CurDir))
}

/// Whether `path` is `folder` or below it, both real paths.
fn inside(folder: &Path, path: &Path) -> bool {
    path.strip_prefix(folder).is_ok_and(|rest| rest.components().all(|c| matches!(c, Component::Normal(_))))
}

/// Whether the file at `real` (with `meta`) is the file `input` names, however it is reached.
fn same_file(meta: &fs::Metadata, real: &Path, input: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(other) = fs::metadata(input) {
            return other.dev() == meta.dev() && other.ino() == meta.ino();
        }
    }
    fs::canonicalize(input).is_ok_and(|i| i == real)
}

#[cfg(unix)]
fn links(meta: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink()
}

#[cfg(not(unix))]
fn links(_meta: &fs::Metadata) -> u64 {
    1
}

fn replace(target: &Target, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), String> {
    let path = match target {
        Target::Existing { path, .. } | Target::New { path } => path,
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (temp, file) = create_temp(&dir, &name).map_err(|e| format!("cannot make a file beside it: {e}"))?;
    // Set once the original starts being rewritten in place: from then on `temp` is the only
    // whole copy of the new content, so it is kept if anything fails.
    let mut in_place = false;
    let result = (|| {
        let mut out = BufWriter::new(file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        if let Target::Existing { meta, .. } = target {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        if let Target::Existing { meta, .. } = target {
            if !keeps_identity(&temp, meta) {
                in_place = true;
                let mut original = OpenOptions::new().write(true).truncate(true).open(path)?;
                io::copy(&mut File::open(&temp)?, &mut original)?;
                original.sync_all()?;
                return fs::remove_file(&temp);
            }
        }
        fs::rename(&temp, path)?;
        // The rename is on the disk only once the folder is; not every system can sync a folder.
        if let Ok(folder) = File::open(&dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    })();
    match result {
        Ok(()) => Ok(()),
        Err(e) if in_place => {
            Err(format!("{e} (while rewriting it in place; the new content is in `{}`)", temp.display()))
        }
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e.to_string())
        }
    }
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

/// A new file (mode 0644 before the umask) next to the one being replaced, named so it cannot be
/// mistaken for a ruleset.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let mut attempts = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{}-{n}.tempo-tmp", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
        match options.open(&temp) {
            Ok(file) => return Ok((temp, file)),
            // Left over from a crashed run that had the same process id: try the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tempo-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn leftovers(d: &Path) -> Vec<String> {
        fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tempo-tmp"))
            .collect()
    }

    #[test]
    fn a_folder_a_device_and_an_input_are_refused_and_leave_no_temporary_file() {
        let d = dir("refused");
        let err = write(&d, Guard::default(), "the sheet", b"x").unwrap_err();
        assert!(err.contains("it is a folder") && err.contains("the sheet"), "{err}");
        let err = write(Path::new("/dev/null"), Guard::default(), "", b"x").unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
        let input = d.join("in.rules");
        fs::write(&input, "ruleset x\n").unwrap();
        let link = d.join("link.rules");
        fs::hard_link(&input, &link).unwrap();
        let inputs = [input.clone()];
        let err = write(&link, Guard { inputs: &inputs, ..Guard::default() }, "", b"x").unwrap_err();
        assert!(err.contains("which this command reads"), "{err}");
        assert_eq!(fs::read_to_string(&input).unwrap(), "ruleset x\n");
        assert!(leftovers(&d).is_empty());
        assert!(leftovers(d.parent().unwrap()).is_empty());
        fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_new_file_is_written_whole_and_stays_within_its_folder() {
        let d = dir("within");
        let sub = d.join("t");
        fs::create_dir_all(&sub).unwrap();
        let guard = Guard { within: Some(&sub), ..Guard::default() };
        write(&sub.join("a.trace"), guard, "", b"hello").unwrap();
        assert_eq!(fs::read_to_string(sub.join("a.trace")).unwrap(), "hello");
        let err = write(&sub.join("../b.trace"), guard, "", b"x").unwrap_err();
        assert!(err.contains("outside"), "{err}");
        assert!(!d.join("b.trace").exists());
        fs::remove_dir_all(&d).ok();
    }
}
