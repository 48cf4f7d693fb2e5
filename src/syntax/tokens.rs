//! The tokens of a file as the grammar groups them, comments included: what the formatter lays
//! out again. Nothing here knows about pest; `parser/layout.rs` builds them from the parse tree.

use crate::source::Span;

/// One token of a file that parsed, in source order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// The first token of something that takes a line of its own in a list: the header, an item,
    /// or a clause, phase, statement, choice or outcome between braces.
    pub starts_line: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A name, keyword, number, dice or quoted text.
    Word,
    /// `#` or `##` to the end of the line.
    Comment,
    /// `{` opening a list of clauses, statements, phases, choices or outcomes. `separator` is what
    /// may stand between two of them written on one line: `;`, or `,` between choices.
    OpenBrace {
        separator: char,
    },
    CloseBrace,
    /// `(` right after a name: a call, a timing's argument, a condition's magnitude.
    CallParen,
    /// `(` around an expression.
    GroupParen,
    CloseParen,
    /// `,` or `:` inside a clause: nothing before, a space after.
    Mark,
    /// `.` between the names of a path.
    Dot,
    /// `;` between items or clauses, `,` between choices: optional, so the formatter places its own.
    Separator,
    /// A binary operator, a comparison, an assignment, or `=`, `+`, `*` in declarations and costs.
    Operator,
    /// A minus sign in front of a value.
    Minus,
}
