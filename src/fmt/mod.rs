//! The canonical layout of `.rules` files (`tempo fmt`).
//!
//! Invariants: [`format_source`] is pure (no I/O) and never panics; it formats only a file that
//! parses, keeps every token and every comment in order, and refuses to return a text whose syntax
//! tree (docs included) differs from the original's, so formatting can never change meaning. The
//! layout itself is in `print.rs` and documented in `docs/formatting.md`; reading and writing files
//! is in `files.rs`.

#[cfg(feature = "fs")]
pub mod files;
mod print;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span};
use crate::syntax::{self, ast};

/// Why a text was not formatted. The text itself is never changed in that case.
#[derive(Debug, Clone)]
pub struct FormatError {
    /// The parse diagnostics, with spans into the text given, as file [`FileId::default()`].
    pub diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.diagnostics.first() {
            Some(d) => write!(f, "not formatted: {}", d.message),
            None => write!(f, "not formatted"),
        }
    }
}

impl std::error::Error for FormatError {}

/// The canonical layout of one `.rules` text, or why it cannot be formatted (it does not parse).
pub fn format_source(source: &str) -> Result<String, FormatError> {
    let file = FileId::default();
    let (tree, diagnostics) = syntax::parse(file, source);
    let Some(tree) = tree else {
        return Err(FormatError { diagnostics });
    };
    let tokens = syntax::tokenize(file, source).map_err(|diagnostics| FormatError { diagnostics })?;
    let formatted = print::print(source, &tokens);
    // A bug in the layout must cost a designer a formatting run, never a rule or a comment.
    let (again, _) = syntax::parse(file, &formatted);
    if again.as_ref().map(meaning) != Some(meaning(&tree)) {
        return Err(FormatError {
            diagnostics: vec![Diagnostic::error(
                Code::Syntax,
                Span::new(file, 0, 0),
                "internal formatter error: the formatted text would not say the same; please report this with the file",
            )
            .label("the file was left as it is")],
        });
    }
    Ok(formatted)
}

/// A parsed file's tokens, for printing pieces of it: an expression, a cost, a clause or a block
/// on one line, in the formatter's spacing and without comments. `tempo doc` and the language
/// server's hover show rules this way.
pub struct Pieces<'s> {
    source: &'s str,
    tokens: Vec<syntax::tokens::Token>,
}

impl<'s> Pieces<'s> {
    /// The pieces of `source` (file `file`), or `None` when it does not parse.
    pub fn new(file: FileId, source: &'s str) -> Option<Pieces<'s>> {
        syntax::tokenize(file, source).ok().map(|tokens| Pieces { source, tokens })
    }

    /// The text of the tokens inside `span`, on one line: `max 3 + finesse_mod`,
    /// `when <= 0 { wounds += 1; apply unconscious while hp <= 0 }`.
    pub fn text(&self, span: Span) -> String {
        let from = self.tokens.partition_point(|t| t.span.start < span.start);
        let to = self.tokens.partition_point(|t| t.span.end <= span.end).max(from);
        print::one_line(self.source, &self.tokens[from..to])
    }

    /// [`Pieces::text`] up to the first `{` inside `span`: the head of a block statement or a
    /// declaration, `choose owner "Which?"`, `downtime hourly every 1 hour`.
    pub fn head(&self, span: Span) -> String {
        let from = self.tokens.partition_point(|t| t.span.start < span.start);
        let to = self.tokens.partition_point(|t| t.span.end <= span.end).max(from);
        let tokens = &self.tokens[from..to];
        let end = tokens
            .iter()
            .position(|t| matches!(t.kind, syntax::tokens::TokenKind::OpenBrace { .. }))
            .unwrap_or(tokens.len());
        print::one_line(self.source, &tokens[..end])
    }
}

/// Everything a file says, without where it says it: the tree, docs and comments (trailing
/// blanks of comments are the one thing the layout drops).
fn meaning(tree: &ast::File) -> String {
    let comments: Vec<(&str, bool)> = tree.comments.iter().map(|c| (c.text.trim_end(), c.doc)).collect();
    syntax::spanless_debug(&(&tree.name, &tree.extends, &tree.items, comments))
}
