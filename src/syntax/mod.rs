//! Syntax: text → syntax tree (+ diagnostics). The only module that knows about pest.
//!
//! Invariants: parsing never panics and never recurses deeper than [`MAX_DEPTH`] brackets
//! (checked before pest runs, because a stack overflow aborts the process); every node carries
//! the byte span it came from; every comment survives into [`ast::File::comments`] and into the
//! formatter's [`tokens`].

pub mod ast;
pub(crate) use ast::spanless_debug;
mod parser;
pub mod tokens;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span};

/// Deepest bracket nesting accepted. Real rulesets stay under 12. The parser recurses per level,
/// and in a debug build a level costs tens of KiB of stack: 20 fits a 2 MiB thread with room
/// (tested in `tests/bad_input.rs`), so no thread a library user parses on can overflow.
pub const MAX_DEPTH: usize = 20;

/// Parses one file. Returns the tree when the file is well-formed, and every problem found.
pub fn parse(file: FileId, text: &str) -> (Option<ast::File>, Vec<Diagnostic>) {
    if let Some(d) = precheck(file, text) {
        return (None, vec![d]);
    }
    match parser::parse_file(file, text) {
        Ok(tree) => (Some(tree), Vec::new()),
        Err(d) => (None, vec![*d]),
    }
}

/// Cuts a well-formed file into its tokens, comments included, marking where the grammar starts
/// an item, clause or statement. Refuses what [`parse`] refuses, with the same diagnostic.
pub fn tokenize(file: FileId, text: &str) -> Result<Vec<tokens::Token>, Vec<Diagnostic>> {
    if let Some(d) = precheck(file, text) {
        return Err(vec![d]);
    }
    parser::tokens(file, text).map_err(|d| vec![*d])
}

/// Problems pest should not be asked about: nothing to parse, or nesting that would overflow.
fn precheck(file: FileId, text: &str) -> Option<Diagnostic> {
    if text.contains('\0') {
        let at = text.find('\0').unwrap_or(0);
        return Some(
            Diagnostic::error(Code::NotText, Span::new(file, at, at), "this file looks binary, not a rules text")
                .label("a NUL byte, which text files do not contain")
                .help("rules files are UTF-8 text; check that this is the file you meant"),
        );
    }
    if is_blank(text) {
        return Some(
            Diagnostic::error(Code::EmptyFile, Span::new(file, 0, 0), "this file has no ruleset in it")
                .label("expected `ruleset NAME` here")
                .help("start the file with a header, e.g. `ruleset duel`"),
        );
    }
    let mut depth = 0usize;
    let mut in_comment = false;
    let mut in_string = false;
    let mut escaped = false;
    for (at, ch) in text.char_indices() {
        if in_comment {
            in_comment = ch != '\n';
            continue;
        }
        if in_string {
            match (escaped, ch) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') | (false, '\n') => in_string = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '#' => in_comment = true,
            '"' => in_string = true,
            '(' | '{' | '[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(
                        Diagnostic::error(
                            Code::TooDeep,
                            Span::new(file, at, at + 1),
                            format!("brackets are nested more than {MAX_DEPTH} deep"),
                        )
                        .label("this bracket is too deep")
                        .help("flatten the expression, or split it into `derive` values"),
                    );
                }
            }
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// True when the text holds nothing but whitespace and comments.
fn is_blank(text: &str) -> bool {
    text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#')
    })
}
