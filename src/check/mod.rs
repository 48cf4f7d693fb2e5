//! Check: files joined through `extends` → names resolved → rules checked → IR.
//!
//! Invariants: checking never stops at the first problem (every diagnostic in every file is
//! returned); the IR is returned only when there are no errors; nothing here prints or exits.

mod consteval;
mod counting;
mod degrees;
mod dice_names;
mod expr;
mod granted;
pub use expr::{function_forms, FUNCTIONS, RELATIONS, TIMINGS, WHO_WORDS};
mod lints;
pub mod load;
mod lower;
mod merge;
#[cfg(feature = "fs")]
mod open;
mod piles;
mod rolled;
mod rolls;
mod scope;
mod sides;
mod words;

#[cfg(feature = "fs")]
pub use load::FsLoader;
pub use load::{Limits, Loader};
pub use lower::ORDER_WORDS;
pub use merge::Entry;
#[cfg(feature = "fs")]
pub use open::{load_ruleset, read_text, LoadedRuleset, RulesetError, MAX_INPUT_BYTES};

use crate::diagnostics::{self, Diagnostic};
use crate::ir;
use crate::source::SourceMap;
use load::normalize;
use std::path::{Path, PathBuf};

/// Everything a compilation produced.
#[derive(Debug)]
pub struct Compilation {
    pub sources: SourceMap,
    /// Sorted: by file, then position.
    pub diagnostics: Vec<Diagnostic>,
    /// Present only when there are no errors.
    pub ruleset: Option<ir::Ruleset>,
    /// The file asked for could not be read (the command line exits 2).
    pub unreadable: bool,
    /// Where a word was read as one of the language's own, not as a name (`blocks actions`,
    /// `order highest_first`, `self`): editors leave these out of references and renames.
    pub option_words: Vec<crate::source::Span>,
    /// Where a declared name was read, and as what kind of thing (a pool, a condition, ...):
    /// editors rename and list references by these, so a pool and a condition that share a
    /// name are two names.
    pub names_read: Vec<(crate::source::Span, NameKind)>,
}

/// What kind of declared thing a name was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NameKind {
    Stat,
    Derive,
    Pool,
    Condition,
    Category,
    Event,
    Action,
    Phase,
    Effect,
    Degrees,
    Object,
    /// A set of items (`items`).
    Items,
    /// A pile of items (`pile`).
    Pile,
    /// A kind of item of a set.
    Item,
    /// A die with custom faces (`die`).
    Die,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compiles the file at `path`, reading it and its bases from the file system.
#[cfg(feature = "fs")]
pub fn compile_path(path: &Path) -> Compilation {
    compile_with(&FsLoader::default(), path)
}

/// [`compile_path`] with other limits (`--allow-outside`).
#[cfg(feature = "fs")]
pub fn compile_path_limited(path: &Path, limits: Limits) -> Compilation {
    compile_with(&FsLoader::new(limits), path)
}

/// Compiles `path` with files from `loader`.
pub fn compile_with(loader: &dyn Loader, path: &Path) -> Compilation {
    compile_inner(loader, path, false).0
}

/// [`compile_with`], also giving back the syntax trees it parsed: `path` and every file it
/// extends, base first (empty when one of them could not be read or parsed). The language server
/// keeps them for names, so each edit is parsed once.
pub fn compile_keeping_trees(loader: &dyn Loader, path: &Path) -> (Compilation, Vec<crate::syntax::ast::File>) {
    compile_inner(loader, path, true)
}

/// The trees are kept alive through the whole compile (merging borrows their items), and
/// handed back when asked for.
fn compile_inner(loader: &dyn Loader, path: &Path, keep: bool) -> (Compilation, Vec<crate::syntax::ast::File>) {
    diagnostics::reset_suggestions();
    let mut sources = SourceMap::new();
    let mut diagnostics = Vec::new();
    let mut loaded = load::load(loader, path, &mut sources, &mut diagnostics);
    let mut ruleset = None;
    let mut option_words = Vec::new();
    let mut names_read = Vec::new();
    let mut files = std::mem::take(&mut loaded.files);
    if let Some(root_name) = files.last().map(|root| root.name.clone()) {
        let mut entries = merge::merge(&files, &mut diagnostics);
        // Without trees to hand back, the entries own their declarations, and lowering frees
        // each one's body once it is read: the tree and the IR are not both whole at the end.
        let release = !keep;
        if release {
            let places = merge::places(entries, &files);
            entries = merge::owned(places, &mut files);
        }
        diagnostics.extend(dice_names::dice_names(&entries));
        let scope = scope::Scope::new(&entries);
        let mut lowerer = lower::Lowerer::new(&scope, &sources);
        let r = lowerer.lower(&root_name, &mut entries, release);
        diagnostics.append(&mut lowerer.diagnostics);
        option_words = std::mem::take(&mut lowerer.option_words);
        names_read = std::mem::take(&mut lowerer.names_read);
        diagnostics.extend(consteval::cyclic_values(&r, &scope));
        diagnostics.extend(lints::empty_ranges(&r, &scope, &entries));
        diagnostics.extend(lints::movement_units(&r, &scope));
        if !diagnostics.iter().any(Diagnostic::is_error) {
            diagnostics.extend(lints::lints(&r, &scope));
            ruleset = Some(r);
        }
    }
    diagnostics::sort(&mut diagnostics);
    diagnostics.dedup();
    option_words.sort_unstable_by_key(|s| (s.file.0, s.start));
    option_words.dedup();
    names_read.sort_unstable_by_key(|(s, k)| (s.file.0, s.start, *k));
    names_read.dedup();
    let kept = if keep { files } else { Vec::new() };
    let unreadable = loaded.unreadable;
    (Compilation { sources, diagnostics, ruleset, unreadable, option_words, names_read }, kept)
}

/// The declarations of `files` (base first) joined as a compilation joins them: overrides
/// applied, removed declarations gone, in declaration order. Problems are not reported here
/// (compiling reports them); for a chain that compiles, this is what was compiled.
pub fn merged(files: &[crate::syntax::ast::File]) -> Vec<Entry<'_>> {
    merge::merge(files, &mut Vec::new())
}

/// Files held in memory, for tests, fuzzing and the editor's unsaved buffers.
#[derive(Debug, Default, Clone)]
pub struct MemoryLoader {
    pub files: Vec<(PathBuf, Vec<u8>)>,
}

impl MemoryLoader {
    pub fn new() -> MemoryLoader {
        MemoryLoader::default()
    }

    pub fn with(mut self, path: impl Into<PathBuf>, text: impl Into<Vec<u8>>) -> MemoryLoader {
        self.files.push((path.into(), text.into()));
        self
    }
}

impl Loader for MemoryLoader {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let wanted = normalize(path);
        self.files
            .iter()
            .find(|(p, _)| normalize(p) == wanted)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    fn identity(&self, path: &Path) -> PathBuf {
        normalize(path)
    }
}

/// Compiles one in-memory text named `name` (which may extend nothing but files in `loader`).
pub fn compile_str(name: &str, text: &str) -> Compilation {
    compile_with(&MemoryLoader::new().with(name, text), Path::new(name))
}
