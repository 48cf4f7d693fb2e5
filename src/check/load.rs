//! Reading a file and the chain of files it extends, base first.
//!
//! Invariants: every file read is in the `SourceMap`; a cycle or a missing base is a diagnostic
//! on the `extends` that caused it, never a loop or a panic.

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::{self, ast};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Deepest chain of `extends` followed.
pub const MAX_CHAIN: usize = 32;

/// Largest rules file read, in bytes. Compiling takes about forty times a file's size in memory,
/// so this bounds a compile to well under a gigabyte; shipped rulesets are a few dozen kilobytes.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// What a loader may read: how large a file, and whether `extends` may leave the folder of the
/// file asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_file_bytes: u64,
    /// `extends` may name files outside the folder of the file asked for (and its subfolders).
    pub allow_outside: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_file_bytes: MAX_FILE_BYTES, allow_outside: false }
    }
}

/// Where files come from: the disk for the command line, memory for tests and the editor.
pub trait Loader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// A name that is the same for the same file reached two ways, for cycle detection, and for
    /// telling whether a base lies inside the folder of the file asked for.
    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
    fn limits(&self) -> Limits {
        Limits::default()
    }
    /// Parses the text read from `path`. A loader that remembers an earlier parse of the file
    /// (the language server's, between edits) parses again only what changed; the tree and the
    /// diagnostics are the same either way.
    fn parse(&self, _path: &Path, file: FileId, text: &str) -> (Option<ast::File>, Vec<Diagnostic>) {
        syntax::parse(file, text)
    }
}

/// Why a file cannot be read in a build without the `fs` feature (the browser's, say).
#[cfg(not(feature = "fs"))]
pub(crate) const NO_FILES: &str = "this build of tempo reads no files (it lacks the `fs` feature)";

/// Reads from the file system: regular files only (a device or a pipe could hang or never end),
/// at most `limits.max_file_bytes`.
#[cfg(feature = "fs")]
#[derive(Debug, Clone, Copy, Default)]
pub struct FsLoader {
    pub limits: Limits,
}

#[cfg(feature = "fs")]
impl FsLoader {
    pub fn new(limits: Limits) -> FsLoader {
        FsLoader { limits }
    }
}

/// An `io::Error` for a file over the size limit (told apart from other failures by its kind).
fn too_large(len: u64, max: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, format!("it is {len} bytes, more than the limit of {max}"))
}

#[cfg(feature = "fs")]
impl Loader for FsLoader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let meta = std::fs::metadata(path)?;
        if meta.is_dir() {
            return Err(io::Error::other("it is a folder, not a file"));
        }
        if !meta.is_file() {
            return Err(io::Error::other("it is not a regular file (a device, a pipe or a socket)"));
        }
        let max = self.limits.max_file_bytes;
        if meta.len() > max {
            return Err(too_large(meta.len(), max));
        }
        // The file may grow between the look and the read: never read past the limit.
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::fs::File::open(path)?.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            return Err(too_large(bytes.len() as u64, max));
        }
        Ok(bytes)
    }

    /// The canonical path; for a file that does not exist, the absolute path written.
    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| match std::env::current_dir() {
            Ok(dir) if path.is_relative() => normalize(&dir.join(path)),
            _ => normalize(path),
        })
    }

    fn limits(&self) -> Limits {
        self.limits
    }
}

pub struct Loaded {
    /// Base first, the file asked for last. Empty when the file asked for could not be parsed.
    pub files: Vec<ast::File>,
    /// The file asked for could not be read at all (exit code 2, not 1).
    pub unreadable: bool,
}

/// UTF-8's byte-order mark.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads `path` as text into `sources`, or explains why it cannot.
fn read_text(
    loader: &dyn Loader,
    path: &Path,
    sources: &mut SourceMap,
    blame: Option<Span>,
) -> Result<crate::source::FileId, Diagnostic> {
    let name = path.display().to_string();
    let max = loader.limits().max_file_bytes;
    let read = loader.read(path).and_then(|bytes| match bytes.len() as u64 {
        len if len > max => Err(too_large(len, max)),
        _ => Ok(bytes),
    });
    let mut bytes = match read {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::FileTooLarge => {
            let message = format!("`{name}` is too large to compile: {e}");
            return Err(match blame {
                Some(span) => Diagnostic::error(Code::FileTooLarge, span, message)
                    .label("extended here")
                    .help("split the ruleset into smaller files, or check that this is the file you meant"),
                None => {
                    let id = sources.add(name.clone(), "");
                    Diagnostic::error(Code::FileTooLarge, Span::new(id, 0, 0), message)
                        .help("split the ruleset into smaller files, or check that this is the file you meant")
                }
            });
        }
        Err(e) => {
            let reason = match e.kind() {
                io::ErrorKind::NotFound => "no such file".to_string(),
                io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                _ => e.to_string(),
            };
            return Err(match blame {
                Some(span) => {
                    Diagnostic::error(Code::MissingBase, span, format!("cannot read the base file `{name}`: {reason}"))
                        .label("extended here")
                        .help("the path is relative to the file that names it")
                }
                None => {
                    let id = sources.add(name.clone(), "");
                    Diagnostic::error(
                        Code::UnreadableFile,
                        Span::new(id, 0, 0),
                        format!("cannot read `{name}`: {reason}"),
                    )
                }
            });
        }
    };
    // A byte-order mark some editors write: skipped, the text starts after it.
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(sources.add(name, text)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let id = sources.add(name, lossy);
            Err(Diagnostic::error(
                Code::NotText,
                Span::new(id, at, at + '\u{FFFD}'.len_utf8()),
                "this file is not UTF-8 text",
            )
            .label("this byte is not valid UTF-8")
            .help("rules files are UTF-8 text; re-save it as UTF-8, or check that this is the file you meant"))
        }
    }
}

/// Loads `path` and every file it extends. Diagnostics for all of them go to `diagnostics`.
pub fn load(loader: &dyn Loader, path: &Path, sources: &mut SourceMap, diagnostics: &mut Vec<Diagnostic>) -> Loaded {
    let mut chain: Vec<ast::File> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut current = path.to_path_buf();
    let mut blame: Option<Span> = None;
    // Bases must lie in this folder or below it, unless the loader allows otherwise.
    let folder = loader.identity(path).parent().map(Path::to_path_buf).unwrap_or_default();
    loop {
        let id = match read_text(loader, &current, sources, blame) {
            Ok(id) => id,
            Err(d) => {
                let unreadable = d.code == Code::UnreadableFile;
                diagnostics.push(d);
                return Loaded { files: Vec::new(), unreadable };
            }
        };
        seen.push(loader.identity(&current));
        let (tree, mut found) = loader.parse(&current, id, sources.text(id));
        diagnostics.append(&mut found);
        let Some(tree) = tree else {
            return Loaded { files: Vec::new(), unreadable: false };
        };
        let next = tree.extends.clone();
        chain.push(tree);
        let Some((base, span)) = next else { break };
        let base_path = normalize(&current.parent().unwrap_or(Path::new("")).join(&base));
        let identity = loader.identity(&base_path);
        if !loader.limits().allow_outside && !inside(&folder, &identity) {
            diagnostics.push(
                Diagnostic::error(
                    Code::OutsideFolder,
                    span,
                    format!("`{base}` is outside the folder of `{}`", path.display()),
                )
                .label("extended here")
                .help("move the base into that folder (or a subfolder), or allow it with `--allow-outside`"),
            );
            return Loaded { files: Vec::new(), unreadable: false };
        }
        if chain.len() >= MAX_CHAIN && !seen.contains(&identity) {
            diagnostics.push(
                Diagnostic::error(
                    Code::TooDeep,
                    span,
                    format!("the chain of extended files is deeper than {MAX_CHAIN} files"),
                )
                .label("one file too many")
                .help("extend a file nearer the root of the chain, or merge some of the files"),
            );
            return Loaded { files: Vec::new(), unreadable: false };
        }
        if seen.contains(&identity) {
            let what = if seen.first() == Some(&identity) && chain.len() == 1 {
                "this file extends itself".to_string()
            } else {
                format!("`{base}` is already in the chain of extended files")
            };
            diagnostics.push(
                Diagnostic::error(Code::ExtendsCycle, span, format!("{what}, so there is no base to start from"))
                    .label("this makes a cycle")
                    .help("one file in the chain must extend nothing"),
            );
            return Loaded { files: Vec::new(), unreadable: false };
        }
        blame = Some(span);
        current = base_path;
    }
    chain.reverse();
    Loaded { files: chain, unreadable: false }
}

/// Whether `path` is `folder` or below it (both as the loader names files).
pub(crate) fn inside(folder: &Path, path: &Path) -> bool {
    path.strip_prefix(folder).is_ok_and(|rest| rest.components().all(|c| matches!(c, Component::Normal(_))))
}

/// `a/./b/../c` → `a/c`, without touching the disk. A `..` that climbs above the start of a
/// relative path is kept (`../x` stays `../x`); above the root it stays at the root. An empty
/// result is `.`, the current folder.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}
