//! A block of effects on one line, for an entry of the sheet and for a step of the round.

use super::{code, text, Line, Texts};
use crate::source::Span;
use crate::syntax::ast::*;

/// Longest block shown whole; a longer one is shown statement by statement, each shortened.
const BLOCK_CHARS: usize = 110;
/// Longest statement shown whole inside a shortened block.
const STATEMENT_CHARS: usize = 70;

/// What a block does, on one line: whole when short; else statement by statement, a long
/// statement shortened to its head (`choose owner "Which?"`) and the names of its branches.
pub(super) fn summary(texts: &Texts, block: &Block) -> Line {
    if block.stmts.is_empty() {
        return vec![text("nothing")];
    }
    let whole = texts.text(block.span);
    let inner = whole.trim().trim_start_matches('{').trim_end_matches('}').trim().to_string();
    if inner.is_empty() {
        return vec![text("nothing")];
    }
    if inner.chars().count() <= BLOCK_CHARS {
        return vec![code(inner)];
    }
    let mut line = Line::new();
    for (i, stmt) in block.stmts.iter().enumerate() {
        if i > 0 {
            line.push(text("; "));
        }
        let span = stmt_span(stmt);
        // These statements' spans hold only what follows their keyword.
        let shown = match stmt {
            Stmt::Emit(_) => format!("emit {}", texts.text(span)),
            Stmt::EmitWith(..) => format!("emit {}", texts.text(span)),
            Stmt::Do(_) => format!("do {}", texts.text(span)),
            Stmt::Follow(_) => format!("follow {}", texts.text(span)),
            Stmt::Swap(_) => format!("swap {}", texts.text(span)),
            Stmt::Pay(_) => format!("pay {}", texts.text(span)),
            _ => texts.text(span),
        };
        if shown.chars().count() <= STATEMENT_CHARS {
            line.push(code(shown));
            continue;
        }
        let names = |options: &[(Ident, Block)]| {
            options.iter().map(|(n, _)| format!("`{}`", n.name)).collect::<Vec<_>>().join(", ")
        };
        match stmt {
            Stmt::Choose { options, .. } => {
                line.extend([code(texts.head(span)), text(format!(": {} (each with its effects)", names(options)))])
            }
            Stmt::Check { outcomes, .. } => {
                line.extend([code(texts.head(span)), text(format!(": {}", names(outcomes)))])
            }
            _ => line.push(code(format!("{} {{ … }}", texts.head(span)))),
        }
    }
    line
}

fn stmt_span(stmt: &Stmt) -> Span {
    match stmt {
        Stmt::If { span, .. }
        | Stmt::Repeat { span, .. }
        | Stmt::Each { span, .. }
        | Stmt::Apply { span, .. }
        | Stmt::Remove { span, .. }
        | Stmt::Choose { span, .. }
        | Stmt::Check { span, .. }
        | Stmt::Move(_, span)
        | Stmt::MoveAway(_, span)
        | Stmt::MoveThrough(_, span)
        | Stmt::MoveLeaping { span, .. }
        | Stmt::Take { span, .. }
        | Stmt::Draw { span, .. }
        | Stmt::MoveItems { span, .. }
        | Stmt::Handle { span, .. }
        | Stmt::Drop { span, .. }
        | Stmt::Push { span, .. }
        | Stmt::EndTurn(span)
        | Stmt::EndEncounter(span)
        | Stmt::Cancel(span)
        | Stmt::Redirect(span)
        | Stmt::RollInitiative(span)
        | Stmt::ClearConditions(span)
        | Stmt::Roll { span, .. }
        | Stmt::Assign { span, .. } => *span,
        Stmt::Emit(name) | Stmt::Follow(name) | Stmt::Swap(name) | Stmt::Do(name) => name.span,
        Stmt::EmitWith(name, amount) => name.span.to(amount.span),
        Stmt::Pay(terms) => terms.span,
    }
}
