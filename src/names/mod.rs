//! The names a ruleset declares, as an editor sees them: the chain of files a file extends
//! (parsed), the declarations in it, and the words of a text. The language server (hover,
//! completion, navigation, renames) and the embedding API's [`hover`] read them; nothing here
//! needs the language server's protocol, so it builds without the `lsp` feature (the browser
//! playground's hover).
//!
//! Names are found by word: a declaration's name is matched against the words of a text
//! (`words::tokens`), so references and renames work on a file that does not parse. Where a
//! chain compiled, what the compiler read each word as decides: the words it read as the
//! language's own (`blocks actions`, `order highest_first`) are left out, so renaming a pool
//! `actions` does not rewrite the keyword, and a word it read as another kind of thing (the
//! condition `guard` beside the pool `guard`) is another name. Words it read as nothing in
//! particular are matched by their text.

// Without the language server, the parts only it reads (renames, completion) are allowed as
// dead rather than gated one by one.
#![cfg_attr(not(feature = "lsp"), allow(dead_code))]

mod hover;
pub mod words;

#[cfg(feature = "lsp")]
pub(crate) use hover::declarations_at;
pub use hover::hover;

use crate::check::{load, Compilation, Loader, NameKind};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast::{self, Decl};
use std::path::{Path, PathBuf};

/// A file and every file it extends, parsed, base first.
#[derive(Clone)]
pub struct Chain {
    pub sources: SourceMap,
    pub files: Vec<ast::File>,
    /// Where the compiler read a word as one of the language's own (`blocks actions`), when
    /// the chain was compiled: references and renames leave these words alone.
    pub option_words: Vec<Span>,
    /// Where the compiler read a declared name, and as what (`Compilation::names_read`).
    pub names_read: Vec<(Span, NameKind)>,
}

impl Chain {
    /// The chain of `path`, or `None` when one of its files does not parse or cannot be read.
    pub fn load(loader: &dyn Loader, path: &Path) -> Option<Chain> {
        let mut sources = SourceMap::new();
        let mut ignored = Vec::new();
        let loaded = load::load(loader, path, &mut sources, &mut ignored);
        if loaded.files.is_empty() {
            None
        } else {
            Some(Chain { sources, files: loaded.files, option_words: Vec::new(), names_read: Vec::new() })
        }
    }

    /// The chain of `path`, compiled, so that it knows its option words; `None` as for `load`.
    pub fn compiled(loader: &dyn Loader, path: &Path) -> Option<Chain> {
        let (compilation, files) = crate::check::compile_keeping_trees(loader, path);
        if files.is_empty() {
            return None;
        }
        let Compilation { sources, option_words, names_read, .. } = compilation;
        Some(Chain { sources, files, option_words, names_read })
    }

    /// Whether the word at byte `start` of `path`, whose text is `text`, was read as one of the
    /// language's own words (known only where the compiled text is that text).
    pub(crate) fn is_option_word(&self, path: &Path, text: &str, start: usize) -> bool {
        self.option_words
            .iter()
            .any(|s| s.start as usize == start && self.path(s.file) == path && self.sources.text(s.file) == text)
    }

    /// What the name written at byte `start` of `path` (whose text is `text`) is, where the
    /// compiler read it (a use) or it is declared: `None` where neither says.
    pub fn kind_at(&self, path: &Path, text: &str, start: usize) -> Option<NameKind> {
        let here =
            |s: &Span| s.start as usize == start && self.path(s.file) == path && self.sources.text(s.file) == text;
        if let Some((_, kind)) = self.names_read.iter().find(|(s, _)| here(s)) {
            return Some(*kind);
        }
        self.declarations().into_iter().find(|d| here(&d.name_span)).and_then(|d| d.kind.name_kind())
    }

    /// Every place whose kind is known ([`Chain::kind_at`]) in the file at `path`, if its text is
    /// `text` (as the compiler read it): byte offset and kind.
    pub(crate) fn kinds_in(&self, path: &Path, text: &str) -> Vec<(usize, NameKind)> {
        let mine = |s: &Span| self.path(s.file) == path && self.sources.text(s.file) == text;
        let mut out: Vec<(usize, NameKind)> =
            self.names_read.iter().filter(|(s, _)| mine(s)).map(|(s, k)| (s.start as usize, *k)).collect();
        for d in self.declarations() {
            if let (true, Some(k)) = (mine(&d.name_span), d.kind.name_kind()) {
                out.push((d.name_span.start as usize, k));
            }
        }
        out
    }

    pub fn path(&self, file: FileId) -> PathBuf {
        PathBuf::from(self.sources.name(file))
    }

    /// The paths of the files in the chain, base first.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.iter().map(|f| self.path(f.file)).collect()
    }

    /// The file asked for (the last of the chain).
    pub fn root(&self) -> Option<&ast::File> {
        self.files.last()
    }

    /// Every name declared in the chain, base first, in the order written.
    pub fn declarations(&self) -> Vec<Declaration> {
        let mut out = Vec::new();
        for file in &self.files {
            for item in &file.items {
                self.declare(item, &mut out);
            }
        }
        out
    }

    fn declare(&self, item: &ast::Item, out: &mut Vec<Declaration>) {
        let mut push = |kind: Kind, name: &ast::Ident, span: Span| {
            let span = trimmed(self.sources.text(span.file), span);
            out.push(Declaration {
                name: name.name.to_string(),
                kind,
                name_span: name.span,
                span,
                doc: item.doc.as_ref().map(|d| d.to_string()),
                header: header(self.sources.text(span.file), span),
            });
        };
        match &item.decl {
            Decl::Stat { name, .. } => push(Kind::Stat, name, item.span),
            Decl::Derive { name, .. } => push(Kind::Derive, name, item.span),
            Decl::Category { name, .. } => push(Kind::Category, name, item.span),
            Decl::Event { name, .. } => push(Kind::Event, name, item.span),
            Decl::Pool(p) => push(Kind::Pool, &p.name, item.span),
            Decl::Condition(c) => push(Kind::Condition, &c.name, item.span),
            Decl::Action(a) => push(Kind::Action(a.kind), &a.name, item.span),
            Decl::Trigger(t) => push(Kind::Trigger, &t.name, item.span),
            Decl::Rest { name, .. } => push(Kind::Rest, name, item.span),
            Decl::Outro { name, .. } => push(Kind::Outro, name, item.span),
            Decl::Effect { name, .. } => push(Kind::Effect, name, item.span),
            Decl::Degrees(d) => push(Kind::Degrees, &d.name, item.span),
            Decl::Object { name, .. } => push(Kind::Object, name, item.span),
            Decl::Die { name, .. } => push(Kind::Die, name, item.span),
            Decl::Terrain(t) => push(Kind::Terrain, &t.name, item.span),
            Decl::Items(set) => {
                push(Kind::Items, &set.name, item.span);
                for kind in &set.kinds {
                    push(Kind::Item, &kind.name, item.span);
                }
            }
            Decl::Pile(pile) => push(Kind::Pile, &pile.name, item.span),
            Decl::Hook(h) if h.name.is_some() => {
                if let Some(name) = &h.name {
                    push(Kind::Hook, name, item.span)
                }
            }
            Decl::Downtime { name: Some(name), .. } => push(Kind::Downtime, name, item.span),
            Decl::Round(phases) => {
                for phase in phases {
                    push(Kind::Phase, &phase.name, phase.span);
                }
            }
            Decl::Space { zones, .. } => {
                for zone in zones {
                    push(Kind::Zone, zone, zone.span);
                }
            }
            _ => {}
        }
    }
}

/// What kind of thing a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Stat,
    Derive,
    Pool,
    Category,
    Event,
    Condition,
    Action(ast::ActionKind),
    Trigger,
    Phase,
    Rest,
    Outro,
    Hook,
    Downtime,
    Zone,
    Effect,
    Degrees,
    Object,
    Terrain,
    /// A set of items (`items`).
    Items,
    /// A kind of item of a set.
    Item,
    /// A pile of items (`pile`).
    Pile,
    Die,
}

impl Kind {
    /// The kind the compiler reads uses of this declaration as (`None`: it reads none).
    pub(crate) fn name_kind(self) -> Option<NameKind> {
        Some(match self {
            Kind::Stat => NameKind::Stat,
            Kind::Derive => NameKind::Derive,
            Kind::Pool => NameKind::Pool,
            Kind::Category => NameKind::Category,
            Kind::Event => NameKind::Event,
            Kind::Condition => NameKind::Condition,
            Kind::Action(_) => NameKind::Action,
            Kind::Phase => NameKind::Phase,
            Kind::Effect => NameKind::Effect,
            Kind::Degrees => NameKind::Degrees,
            Kind::Object => NameKind::Object,
            Kind::Items => NameKind::Items,
            Kind::Item => NameKind::Item,
            Kind::Pile => NameKind::Pile,
            Kind::Die => NameKind::Die,
            Kind::Trigger | Kind::Terrain | Kind::Rest | Kind::Outro | Kind::Hook | Kind::Downtime | Kind::Zone => {
                return None
            }
        })
    }

    pub fn word(self) -> &'static str {
        match self {
            Kind::Stat => "stat",
            Kind::Derive => "derived value",
            Kind::Pool => "pool",
            Kind::Category => "category",
            Kind::Event => "event",
            Kind::Condition => "condition",
            Kind::Action(kind) => match kind {
                ast::ActionKind::Action => "action",
                ast::ActionKind::Free => "free action",
                ast::ActionKind::Reaction => "reaction",
                ast::ActionKind::Preparation => "preparation",
                ast::ActionKind::Activity => "activity",
            },
            Kind::Trigger => "trigger",
            Kind::Phase => "phase",
            Kind::Rest => "rest",
            Kind::Outro => "outro",
            Kind::Hook => "hook",
            Kind::Downtime => "downtime",
            Kind::Zone => "zone",
            Kind::Effect => "effect",
            Kind::Degrees => "degrees",
            Kind::Object => "object",
            Kind::Items => "set of items",
            Kind::Item => "kind of item",
            Kind::Pile => "pile",
            Kind::Terrain => "terrain",
            Kind::Die => "die",
        }
    }
}

/// A declared name: where, what, and what its doc comment says.
#[derive(Debug, Clone)]
pub(crate) struct Declaration {
    pub name: String,
    pub kind: Kind,
    pub(crate) name_span: Span,
    /// The whole declaration.
    pub span: Span,
    pub doc: Option<String>,
    /// The declaration's first line, without its opening brace: `pool ap "Action Points"`.
    pub header: String,
}

/// A declaration's span without the blank lines and comments after it (the parser's spans run
/// on to the next declaration).
pub fn trimmed(text: &str, span: Span) -> Span {
    let mut body = text.get(span.range()).unwrap_or("");
    loop {
        body = body.trim_end();
        match body.rfind('\n') {
            Some(at) if body[at + 1..].trim_start().starts_with('#') => body = &body[..at],
            _ => break,
        }
    }
    Span { end: span.start + body.len() as u32, ..span }
}

/// The first line of a declaration, without a trailing `{`, at most 160 characters.
fn header(text: &str, span: Span) -> String {
    let body = text.get(span.range()).unwrap_or("");
    let line = body.lines().next().unwrap_or("").trim_end();
    let line = line.strip_suffix('{').unwrap_or(line).trim_end();
    let mut out: String = line.chars().take(160).collect();
    if line.chars().count() > 160 {
        out.push_str(" ...");
    }
    out
}
