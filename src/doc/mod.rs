//! `tempo doc`: the cheat sheet for the table, made from a ruleset that compiles.
//!
//! ```text
//!  path ──► check::compile_keeping_trees ──► errors? refused (the diagnostics say why)
//!                       │ syntax trees, base first
//!                       ▼
//!           check::merged ──► entries.rs: one Entry per declaration ──► Sheet ──► markdown.rs
//!                       │     round.rs: phases and timing points          │    └► html.rs
//!                       └ the bases alone ──► their entries ──► changes.rs ┘
//! ```
//!
//! `block.rs` puts a block of effects on one line for both entries.rs and round.rs.
//!
//! Invariants: a sheet is made only for a chain that compiles without errors; every piece of
//! rules text on it is the formatter's printing of the syntax tree ([`crate::fmt::Pieces`]), never
//! spelled again here, so the sheet says what the file says; sections and entries follow the
//! declaration order. The model is plain data: the Markdown and HTML writers only lay it out, and
//! the language server's hover shows one [`Entry`] through [`markdown::entry`]. No I/O but the
//! loader's.

mod block;
mod changes;
mod entries;
pub mod html;
pub mod markdown;
mod round;

use crate::check::{self, Compilation, Loader};
use crate::fmt::Pieces;
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast;
use std::path::Path;

/// A cheat sheet: a title, what a variant changes, then sections of entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    pub title: String,
    /// The ruleset's name (`ruleset NAME`).
    pub ruleset: String,
    /// For a variant: what it adds, removes and changes, compared with its base.
    pub changes: Option<Changes>,
    pub sections: Vec<Section>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub title: String,
    /// A list before the groups: the round's timing points.
    pub(crate) intro: Vec<Bullet>,
    pub groups: Vec<Group>,
}

/// An item of a nested list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bullet {
    /// 0 for the outer list, 1 inside it, ...
    pub depth: usize,
    pub line: Line,
}

/// Entries under one heading (a category of actions) or none.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub title: Option<String>,
    pub entries: Vec<Entry>,
    /// Laid out as one paragraph (stats and their defaults), not one line each.
    pub inline: bool,
}

/// What the sheet says about one declaration: a pool, an action, a condition, the initiative.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `pool`, `action`, `free action`, `reaction`, `condition`, `initiative`, `limit`, ...
    pub kind: String,
    /// The declaration's name; for a singleton (`initiative`, `space`) the keyword.
    pub name: String,
    pub label: Option<String>,
    /// One line: the facts a player needs first (cost and target, maximum and start, blocks).
    pub summary: Line,
    /// A line each: what happens at each timing, thresholds, overspend.
    pub details: Vec<Line>,
    /// The `##` doc, its lines joined into one paragraph.
    pub doc: Option<String>,
}

/// A line of text with code marked, so each writer can set it.
pub type Line = Vec<Piece>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    /// Rules text or a name, as written in the file.
    Code(String),
    Strong(String),
}

/// What a variant changes, compared with its base by entry: added, removed, or rendered
/// differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    /// The base file, as the variant names it in `extends`.
    pub base: String,
    pub changes: Vec<Change>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Added {
        kind: String,
        name: String,
        label: Option<String>,
    },
    Removed {
        kind: String,
        name: String,
        label: Option<String>,
    },
    /// The facts of the entry that differ: the base's (`was`) and the variant's (`now`), and
    /// the variant's doc when it differs from the base's (it often says why).
    Changed {
        kind: String,
        name: String,
        label: Option<String>,
        was: Vec<Line>,
        now: Vec<Line>,
        doc: Option<String>,
    },
}

/// Compiles `path` and, when it compiles without errors, makes its sheet. The compilation is
/// returned either way, for its diagnostics (and `unreadable`).
pub fn generate(loader: &dyn Loader, path: &Path) -> (Compilation, Option<Sheet>) {
    let (compilation, files) = check::compile_keeping_trees(loader, path);
    if compilation.has_errors() || compilation.unreadable || compilation.ruleset.is_none() || files.is_empty() {
        return (compilation, None);
    }
    let sheet = sheet(&compilation.sources, &files);
    (compilation, Some(sheet))
}

/// The sheet of a chain of syntax trees (base first) whose texts are in `sources`. Meant for a
/// chain that compiles; for one that does not, it shows what the declarations say.
pub fn sheet(sources: &SourceMap, files: &[ast::File]) -> Sheet {
    let texts = Texts::new(sources, files);
    let merged = check::merged(files);
    let sections = entries::sections(&texts, &merged);
    let changes = match files {
        [.., _, root] => root.extends.as_ref().map(|(base, _)| {
            let base_merged = check::merged(&files[..files.len() - 1]);
            let before = entries::sections(&texts, &base_merged);
            changes::compare(base.clone(), &before, &sections)
        }),
        _ => None,
    };
    let root = files.last();
    let title = merged
        .iter()
        .find_map(|e| match &e.item.decl {
            ast::Decl::Title(t) => Some(t.clone()),
            _ => None,
        })
        .or_else(|| root.map(|r| r.name.name.to_string()))
        .unwrap_or_default();
    Sheet { title, ruleset: root.map(|r| r.name.name.to_string()).unwrap_or_default(), changes, sections }
}

/// The sheet's entry for the declaration of `kind` named `name` (`pool`, `action`; any kind of
/// action for `action`), as the chain joins it: what the language server shows on hover.
pub fn entry(sources: &SourceMap, files: &[ast::File], kind: &str, name: &str) -> Option<Entry> {
    let texts = Texts::new(sources, files);
    let merged = check::merged(files);
    entries::sections(&texts, &merged)
        .into_iter()
        .flat_map(|s| s.groups)
        .flat_map(|g| g.entries)
        .find(|e| e.name == name && (e.kind == kind || (kind == "action" && entries::is_action_kind(&e.kind))))
}

/// The files' tokens, to print any span of the chain on one line.
pub(crate) struct Texts<'s> {
    files: Vec<(FileId, Option<Pieces<'s>>)>,
}

impl<'s> Texts<'s> {
    fn new(sources: &'s SourceMap, files: &[ast::File]) -> Texts<'s> {
        Texts { files: files.iter().map(|f| (f.file, Pieces::new(f.file, sources.text(f.file)))).collect() }
    }

    /// The rules text at `span`, on one line in the canonical spacing.
    pub(crate) fn text(&self, span: Span) -> String {
        self.files
            .iter()
            .find(|(id, _)| *id == span.file)
            .and_then(|(_, p)| p.as_ref())
            .map(|p| p.text(span))
            .unwrap_or_default()
    }

    /// The text at `span` up to its first `{`.
    pub(crate) fn head(&self, span: Span) -> String {
        self.files
            .iter()
            .find(|(id, _)| *id == span.file)
            .and_then(|(_, p)| p.as_ref())
            .map(|p| p.head(span))
            .unwrap_or_default()
    }
}

fn code(text: impl Into<String>) -> Piece {
    Piece::Code(text.into())
}

fn text(text: impl Into<String>) -> Piece {
    Piece::Text(text.into())
}

/// Joins a doc comment's lines into one paragraph.
fn paragraph(doc: &Option<compact_str::CompactString>) -> Option<String> {
    let text = doc.as_ref()?.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}
