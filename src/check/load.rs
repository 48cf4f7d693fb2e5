//! Reading a file and the chain of files it extends, base first.
//!
//! Invariants: every file read is in the `SourceMap`; a cycle or a missing base is a diagnostic
//! on the `extends` that caused it, never a loop or a panic.

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{SourceMap, Span};
use crate::syntax::{self, ast};
use std::io;
use std::path::{Path, PathBuf};

/// Deepest chain of `extends` followed.
const MAX_CHAIN: usize = 32;

/// Where files come from: the disk for the command line, memory for tests and the editor.
pub trait Loader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// A name that is the same for the same file reached two ways, for cycle detection.
    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// Reads from the file system.
pub struct FsLoader;

impl Loader for FsLoader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        if path.is_dir() {
            return Err(io::Error::other("it is a folder, not a file"));
        }
        std::fs::read(path)
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

pub struct Loaded {
    /// Base first, the file asked for last. Empty when the file asked for could not be parsed.
    pub files: Vec<ast::File>,
    /// The file asked for could not be read at all (exit code 2, not 1).
    pub unreadable: bool,
}

/// Reads `path` as text into `sources`, or explains why it cannot.
fn read_text(
    loader: &dyn Loader,
    path: &Path,
    sources: &mut SourceMap,
    blame: Option<Span>,
) -> Result<crate::source::FileId, Diagnostic> {
    let name = path.display().to_string();
    let bytes = match loader.read(path) {
        Ok(bytes) => bytes,
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
    match String::from_utf8(bytes) {
        Ok(text) => Ok(sources.add(name, text)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let id = sources.add(name, lossy);
            Err(Diagnostic::error(Code::NotText, Span::new(id, at, at + 1), "this file is not UTF-8 text")
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
        let (tree, mut found) = syntax::parse(id, sources.text(id));
        diagnostics.append(&mut found);
        let Some(tree) = tree else {
            return Loaded { files: Vec::new(), unreadable: false };
        };
        let next = tree.extends.clone();
        chain.push(tree);
        let Some((base, span)) = next else { break };
        let base_path = normalize(&current.parent().unwrap_or(Path::new("")).join(&base));
        let identity = loader.identity(&base_path);
        if seen.contains(&identity) || chain.len() > MAX_CHAIN {
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

/// `a/./b/../c` → `a/c`, without touching the disk.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
