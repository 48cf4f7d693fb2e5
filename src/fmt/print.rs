//! Tokens → text in the canonical layout (described in `docs/formatting.md`).
//!
//! The layout is a function of the tokens and of three facts about the original text: whether a
//! pair of braces spanned several lines, whether a comment followed code on its line, and where
//! blank lines were. Each of these facts reads the same in the output as in the input, which is
//! what makes formatting idempotent.

use crate::syntax::tokens::{Token, TokenKind};

const INDENT: &str = "  ";

/// How the contents of a pair of braces are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `{ }`.
    Empty,
    /// `{ a; b }`: the author wrote it on one line.
    OneLine,
    /// One line each, indented: the author broke it over lines.
    Lines,
}

struct Open {
    shape: Shape,
    separator: char,
    /// Nothing that takes a line has been written inside yet.
    first: bool,
}

struct Printer<'s> {
    source: &'s str,
    out: String,
    /// Braces laid out over lines that are open here: the indentation.
    depth: usize,
    open: Vec<Open>,
    /// End of the last token (separators aside), to measure the gap to the next one.
    prev: Option<(TokenKind, usize)>,
    /// A comment ended the line, so what follows must start a new one.
    after_comment: bool,
    /// A brace was just opened over lines: no blank line may follow it.
    fresh_block: bool,
    /// A `;` followed a comment. It kept the comment from being the doc of the item below, and
    /// it is dropped, so a blank line has to do that instead.
    cut_after_comment: bool,
    /// Everything on one line: what would start a line is separated by a space instead.
    one_line: bool,
    /// The last `}` closed braces laid out on one line (`{ a }`, `{ }`).
    closed_inline: bool,
}

impl<'s> Printer<'s> {
    fn new(source: &'s str, out: String, one_line: bool) -> Printer<'s> {
        Printer {
            source,
            out,
            depth: 0,
            open: Vec::new(),
            prev: None,
            after_comment: false,
            fresh_block: false,
            cut_after_comment: false,
            one_line,
            closed_inline: false,
        }
    }
}

pub(super) fn print(source: &str, tokens: &[Token]) -> String {
    let shapes = shapes(source, tokens);
    let mut p = Printer::new(source, String::with_capacity(source.len() + source.len() / 8), false);
    for (token, shape) in tokens.iter().zip(shapes) {
        p.token(token, shape);
    }
    while p.out.ends_with('\n') {
        p.out.pop();
    }
    p.out.push('\n');
    p.out
}

/// A piece of a file (an expression, a cost, a clause, a block) on one line in the canonical
/// spacing, without its comments: every pair of braces is laid out as `{ a; b }` or `{ }`.
/// `tokens` are the piece's tokens, in order.
pub(super) fn one_line(source: &str, tokens: &[Token]) -> String {
    let tokens: Vec<&Token> = tokens.iter().filter(|t| t.kind != TokenKind::Comment).collect();
    let mut p = Printer::new(source, String::new(), true);
    for (i, token) in tokens.iter().enumerate() {
        let shape = match token.kind {
            TokenKind::OpenBrace { .. } if tokens.get(i + 1).is_some_and(|t| t.kind == TokenKind::CloseBrace) => {
                Some(Shape::Empty)
            }
            TokenKind::OpenBrace { .. } => Some(Shape::OneLine),
            _ => None,
        };
        p.token(token, shape);
    }
    p.out
}

/// Line breaks in a gap between tokens: `\n`, `\r\n`, and a lone `\r` (which ends a comment in
/// the grammar, so it must end a line here too, or a comment would swallow what follows it).
fn line_breaks(gap: &str) -> usize {
    let bytes = gap.as_bytes();
    (0..bytes.len()).filter(|&i| bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'))).count()
}

/// The shape of every opening brace (`None` for other tokens).
fn shapes(source: &str, tokens: &[Token]) -> Vec<Option<Shape>> {
    let mut shapes = vec![None; tokens.len()];
    let mut stack = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            TokenKind::OpenBrace { .. } => stack.push(i),
            TokenKind::CloseBrace => {
                let Some(open) = stack.pop() else { continue };
                let inside = source.get(tokens[open].span.end as usize..t.span.start as usize).unwrap_or("");
                shapes[open] = Some(if open + 1 == i {
                    Shape::Empty
                } else if line_breaks(inside) > 0 {
                    Shape::Lines
                } else {
                    Shape::OneLine
                });
            }
            _ => {}
        }
    }
    shapes
}

impl Printer<'_> {
    fn token(&mut self, t: &Token, shape: Option<Shape>) {
        if t.kind == TokenKind::Separator {
            self.cut_after_comment |= matches!(self.prev, Some((TokenKind::Comment, _)));
            return;
        }
        let start = t.span.start as usize;
        let text = self.source.get(start..t.span.end as usize).unwrap_or("");
        let gap = match self.prev {
            Some((_, end)) => self.source.get(end..start).unwrap_or(""),
            None => "",
        };
        let newlines = line_breaks(gap);
        let blank = (newlines >= 2 || self.cut_after_comment) && !self.fresh_block;
        match t.kind {
            TokenKind::Comment if self.prev.is_some() && newlines == 0 => {
                self.out.push(' ');
                self.out.push_str(text.trim_end());
                self.after_comment = true;
            }
            TokenKind::Comment => {
                self.new_line(blank, self.depth);
                self.out.push_str(text.trim_end());
                self.fresh_block = false;
                self.after_comment = true;
            }
            TokenKind::OpenBrace { separator } => {
                self.inline(t.kind);
                self.out.push('{');
                let shape = shape.unwrap_or(Shape::Lines);
                if shape == Shape::Lines {
                    self.depth += 1;
                    self.fresh_block = true;
                }
                self.open.push(Open { shape, separator, first: true });
            }
            TokenKind::CloseBrace => {
                let shape = self.open.pop().map_or(Shape::Lines, |o| o.shape);
                if shape == Shape::Lines {
                    self.depth = self.depth.saturating_sub(1);
                    self.new_line(false, self.depth);
                    self.fresh_block = false;
                } else {
                    self.out.push(' ');
                }
                self.out.push('}');
                self.closed_inline = shape != Shape::Lines;
            }
            // `if a { x }` / `else if b { y }` / `else { z }`, a branch a line: each `else` the
            // author started a line with stays there, or a long chain would become one long line.
            TokenKind::Word
                if text == "else"
                    && newlines > 0
                    && self.closed_inline
                    && matches!(self.prev, Some((TokenKind::CloseBrace, _)))
                    && self.open.last().is_none_or(|o| o.shape == Shape::Lines) =>
            {
                self.new_line(false, self.depth);
                self.out.push_str(text);
            }
            _ if t.starts_line => {
                match self.open.last_mut() {
                    Some(o) if o.shape != Shape::Lines => {
                        if !o.first {
                            self.out.push(o.separator);
                        }
                        o.first = false;
                        self.out.push(' ');
                    }
                    _ => {
                        self.new_line(blank, self.depth);
                        self.fresh_block = false;
                    }
                }
                self.out.push_str(text);
            }
            kind => {
                self.inline(kind);
                self.out.push_str(text);
            }
        }
        self.prev = Some((t.kind, t.span.end as usize));
    }

    /// Puts what comes before a token that continues a line: a space or nothing, or, after a
    /// comment, a new line indented one step deeper than the line it continues.
    fn inline(&mut self, kind: TokenKind) {
        if self.after_comment {
            self.new_line(false, self.depth + 1);
        } else if needs_space(self.prev.map(|(k, _)| k), kind) {
            self.out.push(' ');
        }
    }

    /// Ends the current line (and leaves one blank line if asked) and indents the next.
    fn new_line(&mut self, blank: bool, depth: usize) {
        self.cut_after_comment = false;
        if self.one_line {
            if !self.out.is_empty() {
                self.out.push(' ');
            }
            return;
        }
        if !self.out.is_empty() {
            self.out.push('\n');
            if blank {
                self.out.push('\n');
            }
        }
        for _ in 0..depth {
            self.out.push_str(INDENT);
        }
        self.after_comment = false;
    }
}

/// Whether a space separates two tokens on one line.
fn needs_space(prev: Option<TokenKind>, next: TokenKind) -> bool {
    use TokenKind::*;
    let Some(prev) = prev else { return false };
    match (prev, next) {
        (_, CloseParen | Mark | Dot | CallParen) => false,
        (Minus, Minus) => true,
        (CallParen | GroupParen | Dot | Minus, _) => false,
        _ => true,
    }
}
