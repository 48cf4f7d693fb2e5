//! The documents the editor has open, and a loader that serves them from memory and everything
//! else from the disk, so a base file with unsaved edits is compiled as the editor shows it.

use super::analysis::Chain;
use crate::check::load::normalize;
use crate::check::{FsLoader, Loader};
use crate::diagnostics::Diagnostic;
use crate::source::FileId;
use crate::syntax::{self, ast, Previous};
use lsp_types::Url;
use std::cell::RefCell;
use std::io;
use std::path::{Path, PathBuf};

/// One open document: its text as the editor has it, and the last chain of files that parsed.
pub struct Document {
    pub uri: Url,
    pub path: PathBuf,
    canonical: Option<PathBuf>,
    pub text: String,
    pub version: i32,
    /// The last time this document and its bases all parsed, for names while it does not.
    pub(crate) last_good: Option<Chain>,
}

/// Open documents in the order they were opened (a handful; a list is the simplest index).
#[derive(Default)]
pub struct Documents {
    open: Vec<Document>,
}

/// The file-system path a URI names; a URI that is not a file (an unsaved buffer) gets a path
/// made of the URI itself, which no disk file has.
pub(crate) fn uri_path(uri: &Url) -> PathBuf {
    match uri.to_file_path() {
        Ok(path) => normalize(&path),
        Err(()) => PathBuf::from(uri.as_str()),
    }
}

/// The same file, however the two paths are spelled.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    normalize(a) == normalize(b)
        || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

impl Documents {
    pub fn open(&mut self, uri: Url, text: String, version: i32) {
        self.close(&uri);
        let path = uri_path(&uri);
        let canonical = std::fs::canonicalize(&path).ok();
        self.open.push(Document { uri, path, canonical, text, version, last_good: None });
    }

    pub fn change(&mut self, uri: &Url, text: String, version: i32) {
        if let Some(doc) = self.open.iter_mut().find(|d| &d.uri == uri) {
            doc.text = text;
            doc.version = version;
        }
    }

    pub fn close(&mut self, uri: &Url) {
        self.open.retain(|d| &d.uri != uri);
    }

    pub fn get(&self, uri: &Url) -> Option<&Document> {
        self.open.iter().find(|d| &d.uri == uri)
    }

    pub(crate) fn get_mut(&mut self, uri: &Url) -> Option<&mut Document> {
        self.open.iter_mut().find(|d| &d.uri == uri)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Document> {
        self.open.iter()
    }

    pub(crate) fn uris(&self) -> Vec<Url> {
        self.open.iter().map(|d| d.uri.clone()).collect()
    }

    /// The open document at a path, reached however the path was spelled.
    pub(crate) fn at_path(&self, path: &Path) -> Option<&Document> {
        let wanted = normalize(path);
        if let Some(doc) = self.open.iter().find(|d| d.path == wanted) {
            return Some(doc);
        }
        let canonical = std::fs::canonicalize(path).ok()?;
        self.open.iter().find(|d| d.canonical.as_ref() == Some(&canonical))
    }

    /// The URI to show for a path: the editor's own for an open document, else a file URI.
    pub(crate) fn uri_for(&self, path: &Path) -> Option<Url> {
        match self.at_path(path) {
            Some(doc) => Some(doc.uri.clone()),
            None => Url::from_file_path(path).ok(),
        }
    }

    /// The text of a path: the open document's, else the disk's, read through the file loader
    /// so its limits hold here too (regular files only: a pipe or a device could block forever).
    pub(crate) fn text_of(&self, path: &Path) -> Option<String> {
        match self.at_path(path) {
            Some(doc) => Some(doc.text.clone()),
            None => FsLoader::default().read(path).ok().and_then(|bytes| String::from_utf8(bytes).ok()),
        }
    }

    pub fn loader(&self) -> Overlay<'_> {
        Overlay { documents: self, previous: RefCell::new(None) }
    }

    /// [`Documents::loader`], remembering the last parse of the file at `path`: compiling
    /// through it parses again only what changed there. [`Overlay::leftover`] gives the parse
    /// back when it was not used.
    pub(crate) fn loader_remembering(&self, path: PathBuf, previous: Option<Previous>) -> Overlay<'_> {
        Overlay { documents: self, previous: RefCell::new(previous.map(|p| (path, p))) }
    }
}

impl Document {
    /// The last parse of this document, taken out of its last good chain: its text and tree.
    /// The chain is left without its root file until [`Document::give_back`] or a new chain.
    pub fn take_previous(&mut self) -> Option<Previous> {
        let chain = self.last_good.as_mut()?;
        let root = chain.files.last()?;
        if chain.path(root.file) != self.path {
            return None;
        }
        let tree = chain.files.pop()?;
        Some(Previous { text: chain.sources.text(tree.file).to_string(), tree })
    }

    /// Puts back what [`Document::take_previous`] took, when the parse did not use it; when
    /// it was used and no new chain came of the check, the old chain has lost its root file
    /// and is dropped.
    pub fn give_back(&mut self, previous: Option<Previous>) {
        match (previous, self.last_good.as_mut()) {
            (Some(previous), Some(chain)) => chain.files.push(previous.tree),
            _ => self.last_good = None,
        }
    }
}

/// Open documents first, then the disk.
pub struct Overlay<'a> {
    documents: &'a Documents,
    /// An earlier parse of one file, for [`Loader::parse`] to start from.
    previous: RefCell<Option<(PathBuf, Previous)>>,
}

impl Overlay<'_> {
    /// The remembered parse, when no parse used it.
    pub fn leftover(self) -> Option<Previous> {
        self.previous.into_inner().map(|(_, p)| p)
    }
}

impl Loader for Overlay<'_> {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.documents.at_path(path) {
            Some(doc) => Ok(doc.text.clone().into_bytes()),
            None => FsLoader::default().read(path),
        }
    }

    fn identity(&self, path: &Path) -> PathBuf {
        match self.documents.at_path(path) {
            Some(doc) => doc.canonical.clone().unwrap_or_else(|| doc.path.clone()),
            None => FsLoader::default().identity(path),
        }
    }

    fn parse(&self, path: &Path, file: FileId, text: &str) -> (Option<ast::File>, Vec<Diagnostic>) {
        let mut remembered = self.previous.borrow_mut();
        let Some((at, previous)) = remembered.take() else { return syntax::parse(file, text) };
        if at != path {
            *remembered = Some((at, previous));
            return syntax::parse(file, text);
        }
        let mut previous = Some(previous);
        let parsed = syntax::parse_after_edit(file, text, &mut previous);
        *remembered = previous.map(|p| (at, p));
        parsed
    }
}
