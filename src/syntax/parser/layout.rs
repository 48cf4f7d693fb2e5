//! Parse tree → [`Token`]s for the formatter. Lives under the parser because it reads pest pairs.
//!
//! pest makes pairs for rules, not for the literal text a rule spells out (`{`, `:`, `;`, ...), so
//! the text between the children of a pair is cut into one token per character here; the rule it
//! belongs to says what each one is. Comments make no pairs (the grammar skips them as blanks):
//! they are found in that same text between children, where every `#` starts one.

use super::{parse_worded, syntax_error, Rule, P};
use crate::diagnostics::Diagnostic;
use crate::source::{FileId, Span};
use crate::syntax::tokens::{Token, TokenKind};

pub(crate) fn tokens(file: FileId, text: &str) -> Result<Vec<Token>, Box<Diagnostic>> {
    let pairs = parse_worded(Rule::file, text).map_err(|f| Box::new(syntax_error(file, text, *f)))?;
    let mut out = Tokens { file, text, tokens: Vec::new() };
    for pair in pairs {
        out.pair(pair, false);
    }
    Ok(out.tokens)
}

struct Tokens<'t> {
    file: FileId,
    text: &'t str,
    tokens: Vec<Token>,
}

impl Tokens<'_> {
    fn push(&mut self, kind: TokenKind, start: usize, end: usize) {
        self.tokens.push(Token { kind, span: Span::new(self.file, start, end), starts_line: false });
    }

    /// Adds the tokens of `pair`; `starts_line` marks its first one as the start of a line.
    fn pair(&mut self, pair: P, starts_line: bool) {
        let first = self.tokens.len();
        let rule = pair.as_rule();
        let span = pair.as_span();
        let children: Vec<P> = pair.clone().into_inner().collect();
        // Quoted text is one word, whatever pest finds inside it; empty braces are two tokens.
        let braced =
            matches!(rule, Rule::block | Rule::pool_body | Rule::condition_body | Rule::action_body | Rule::pile_body);
        if (children.is_empty() && !braced) || rule == Rule::string {
            if let Some(kind) = leaf_kind(rule) {
                self.push(kind, span.start(), span.end());
            }
        } else {
            // Children between this pair's own `{` and `}` each take a line of their own; so do
            // the header and the items of the file.
            let mut in_braces = rule == Rule::file;
            let mut at = span.start();
            for child in children {
                in_braces = self.literals(rule, at, child.as_span().start(), in_braces);
                at = child.as_span().end();
                // A die's faces are one clause: `faces:` starts its line, the faces follow it.
                let own_line = in_braces && (rule != Rule::die_item || child.as_rule() == Rule::kw_faces);
                self.pair(child, own_line);
            }
            self.literals(rule, at, span.end(), in_braces);
        }
        if starts_line {
            if let Some(t) = self.tokens[first..].iter_mut().find(|t| t.kind != TokenKind::Comment) {
                t.starts_line = true;
            }
        }
    }

    /// Adds the literal characters and the comments of `rule` between two of its children;
    /// returns whether the text after them is inside the rule's braces.
    fn literals(&mut self, rule: Rule, start: usize, end: usize, mut in_braces: bool) -> bool {
        let gap = self.text.get(start..end).unwrap_or("");
        let mut offset = 0;
        while let Some(ch) = gap.get(offset..).and_then(|rest| rest.chars().next()) {
            let at = start + offset;
            if ch.is_whitespace() {
                offset += ch.len_utf8();
                continue;
            }
            if ch == '#' {
                // Quoted text is a pair of its own, so a `#` between pairs starts a comment.
                let rest = gap.get(offset..).unwrap_or("");
                let len = rest.find(['\n', '\r']).unwrap_or(rest.len());
                self.push(TokenKind::Comment, at, at + len);
                offset += len;
                continue;
            }
            offset += ch.len_utf8();
            let kind = match ch {
                '{' => {
                    in_braces = true;
                    TokenKind::OpenBrace { separator: if comma_list(rule) { ',' } else { ';' } }
                }
                '}' => {
                    in_braces = false;
                    TokenKind::CloseBrace
                }
                '(' if rule == Rule::paren => TokenKind::GroupParen,
                '(' => TokenKind::CallParen,
                ')' => TokenKind::CloseParen,
                ';' => TokenKind::Separator,
                ',' if comma_list(rule) => TokenKind::Separator,
                ',' | ':' => TokenKind::Mark,
                '.' => TokenKind::Dot,
                '=' | '+' | '*' => TokenKind::Operator,
                _ => TokenKind::Word,
            };
            self.push(kind, at, at + ch.len_utf8());
        }
        in_braces
    }
}

/// Whether the rule's braces hold a list separated by commas (a choice's options, a set's items).
fn comma_list(rule: Rule) -> bool {
    matches!(rule, Rule::choose_stmt | Rule::items_item)
}

/// What a pair without children is, or `None` for the end of input.
fn leaf_kind(rule: Rule) -> Option<TokenKind> {
    Some(match rule {
        Rule::EOI => return None,
        Rule::neg => TokenKind::Minus,
        Rule::add_op | Rule::mul_op | Rule::cmp_op | Rule::assign_op => TokenKind::Operator,
        _ => TokenKind::Word,
    })
}
