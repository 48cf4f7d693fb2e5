//! Syntax: text → syntax tree (+ diagnostics). The only module that knows about pest.
//!
//! Invariants: parsing never panics and never recurses deeper than [`MAX_DEPTH`] brackets
//! (checked before pest runs, because a stack overflow aborts the process); every node carries
//! the byte span it came from; every comment survives into [`ast::File::comments`] and into the
//! formatter's [`tokens`].

pub mod ast;
pub(crate) use ast::spanless_debug;
mod parser;
mod shift;
pub use parser::Previous;
pub mod tokens;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span};

/// Deepest bracket nesting accepted. Real rulesets stay under 12. The parser recurses per level,
/// and in a debug build a level costs tens of KiB of stack: 20 fits a 2 MiB thread with room
/// (tested in `tests/bad_input.rs`), so no thread a library user parses on can overflow.
pub const MAX_DEPTH: usize = 20;

/// Most `else if` open at once: the grammar recurses once per `else if` of a chain (and the
/// passes after it follow), with no bracket to count. Real rulesets chain a handful. Together with
/// [`MAX_DEPTH`] brackets this still fits a 2 MiB thread (tested in `tests/bad_input.rs`).
pub const MAX_ELSE_IF: usize = 40;

/// Parses one file. Returns the tree when the file is well-formed, and every problem found.
pub fn parse(file: FileId, text: &str) -> (Option<ast::File>, Vec<Diagnostic>) {
    parse_after_edit(file, text, &mut None)
}

/// [`parse`] for a file whose last parse is known: when `previous` is of the same file, only
/// the items around what changed are parsed again, and the tree is the same as [`parse`]'s.
/// `previous` is taken when its tree was reused and left as it was otherwise.
pub fn parse_after_edit(
    file: FileId,
    text: &str,
    previous: &mut Option<Previous>,
) -> (Option<ast::File>, Vec<Diagnostic>) {
    if let Some(d) = precheck(file, text) {
        return (None, vec![d]);
    }
    if let Some(tree) = parser::parse_after_edit(file, text, previous) {
        return (Some(tree), Vec::new());
    }
    match parser::parse_file(file, text) {
        Ok(tree) => (Some(tree), Vec::new()),
        Err(found) => (None, found),
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
    // `else if` chains: how many are open at each bracket level, and in all. A chain at a level
    // goes on while each `}` at that level is followed by `else`, and ends at anything else.
    let mut chains: Vec<usize> = vec![0];
    let mut open_else_ifs = 0usize;
    let mut after_close = false;
    let mut after_else = false;
    let mut word_end = 0usize;
    let end_chain = |chains: &mut Vec<usize>, open: &mut usize| {
        if let Some(c) = chains.last_mut() {
            *open -= *c;
            *c = 0;
        }
    };
    for (at, ch) in code_chars(text) {
        if at < word_end || ch.is_whitespace() {
            continue;
        }
        if ch.is_alphanumeric() || ch == '_' {
            let len = text[at..].find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len() - at);
            word_end = at + len;
            let word = &text[at..word_end];
            if after_close && word != "else" {
                end_chain(&mut chains, &mut open_else_ifs);
            }
            if after_else && word == "if" {
                if let Some(c) = chains.last_mut() {
                    *c += 1;
                }
                open_else_ifs += 1;
                if open_else_ifs > MAX_ELSE_IF {
                    return Some(
                        Diagnostic::error(
                            Code::TooDeep,
                            Span::new(file, at, word_end),
                            format!("more than {MAX_ELSE_IF} `else if` are open at once"),
                        )
                        .label("this `else if` is one too many")
                        .help("split the choice into separate `if` statements, or into several rules"),
                    );
                }
            }
            after_close = false;
            after_else = word == "else";
            continue;
        }
        if after_close {
            end_chain(&mut chains, &mut open_else_ifs);
        }
        after_close = false;
        after_else = false;
        match ch {
            '(' | '{' | '[' => {
                depth += 1;
                chains.push(0);
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
            ')' | '}' | ']' => {
                depth = depth.saturating_sub(1);
                if chains.len() > 1 {
                    if let Some(c) = chains.pop() {
                        open_else_ifs -= c;
                    }
                }
                after_close = ch == '}';
            }
            _ => {}
        }
    }
    None
}

/// The characters of `text` outside comments and strings, with their byte offsets. The `#` that
/// opens a comment and the `"` that opens a string are given (they end what came before); what
/// they open is not, up to the end of the line or the closing `"`. A comment ends at `\r` too,
/// as in the grammar: brackets after a lone `\r` are code, and the depth check must count them.
pub(crate) fn code_chars(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut in_comment, mut in_string, mut escaped) = (false, false, false);
    text.char_indices().filter(move |&(_, ch)| {
        if in_comment {
            in_comment = ch != '\n' && ch != '\r';
            return false;
        }
        if in_string {
            match (escaped, ch) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') | (false, '\n') => in_string = false,
                _ => {}
            }
            return false;
        }
        in_comment = ch == '#';
        in_string = ch == '"';
        true
    })
}

/// True when the text holds nothing but whitespace and comments.
fn is_blank(text: &str) -> bool {
    text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#')
    })
}
