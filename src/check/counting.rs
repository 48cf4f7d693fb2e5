//! `count(...)` and `number(...)`: numbers made by counting. `count(12d6 >= 5)` rolls a pool of
//! dice and counts the dice that meet the test; `count(ally, hp > 0)` counts participants;
//! `number(COND)` is a yes/no read as 1 or 0, said out loud so a comparison written where a
//! number was meant is still an error.

use super::expr::{Ty, RELATIONS};
use super::lower::{Ctx, Lowerer};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::Expr;
use crate::syntax::ast::{self, ExprKind};

const COUNT_FORMS: &str = "`count(12d6 >= 5)` counts the dice of a pool that meet the test; \
`count(ally, hp > 0)` counts the participants of a relation for whom a condition holds";

impl Lowerer<'_> {
    /// `count(DICE OP X)`, `count(RELATION)`, `count(RELATION, COND)`.
    pub(super) fn count_call(&mut self, e: &ast::Expr, args: &[ast::Expr], ctx: Ctx) -> (Expr, Ty) {
        if let Some(counted) = self.roll_count(args, ctx) {
            return counted;
        }
        let relation = args.first().and_then(|a| a.kind.single_name()).filter(|n| RELATIONS.contains(&n.name.as_str()));
        match (args, relation) {
            ([_], Some(word)) => (Expr::CountWho(self.relation(word), Box::new(Expr::Bool(true))), Ty::Int),
            ([_, cond], Some(word)) => {
                let relation = self.relation(word);
                // The condition is each counted participant's own: `self` inside it is them.
                let cond = self.cond(cond, ctx);
                (Expr::CountWho(relation, Box::new(cond)), Ty::Int)
            }
            ([test], None) => match &test.kind {
                ExprKind::Compare { op, lhs, rhs } => match self.pool_dice(lhs, ctx) {
                    Some((count, sides)) => {
                        let against = self.int(rhs, ctx);
                        (Expr::CountDice(*op, Box::new([count, sides, against])), Ty::Int)
                    }
                    None => self.bad_count(
                        lhs.span,
                        "expected dice here",
                        "the left side of the test is the pool: `NdM` or `dice(COUNT, SIDES)`",
                        args,
                        ctx,
                    ),
                },
                _ => self.bad_count(test.span, "expected a test on a pool of dice here", COUNT_FORMS, args, ctx),
            },
            _ => self.bad_count(
                e.span,
                "`count` takes a test on dice, or a relation and a condition",
                COUNT_FORMS,
                args,
                ctx,
            ),
        }
    }

    /// `number(COND)`: 1 while the condition holds, else 0.
    pub(super) fn number_call(&mut self, e: &ast::Expr, args: &[ast::Expr], ctx: Ctx) -> (Expr, Ty) {
        match args {
            [cond] => (self.cond(cond, ctx), Ty::Int),
            _ => {
                self.error(
                    Diagnostic::error(Code::WrongArity, e.span, format!("`number` takes 1 value, not {}", args.len()))
                        .label("wrong number of values")
                        .help("`number(COND)` is 1 while COND holds, else 0: `number(self has prone)`"),
                );
                for a in args {
                    self.expr(a, ctx);
                }
                (Expr::Int(0), Ty::Unknown)
            }
        }
    }

    /// The count and sides of the dice on the left of a pool's test, or `None` when it is not dice.
    fn pool_dice(&mut self, lhs: &ast::Expr, ctx: Ctx) -> Option<(Expr, Expr)> {
        match &lhs.kind {
            ExprKind::Dice { .. } => match self.expr(lhs, ctx).0 {
                Expr::Dice { count, sides } => Some((Expr::Int(count.into()), Expr::Int(sides.into()))),
                // A bad roll was reported: count nothing.
                _ => Some((Expr::Int(0), Expr::Int(1))),
            },
            ExprKind::Call { func, .. } if func.name == "dice" => match self.expr(lhs, ctx).0 {
                Expr::DiceOf(count, sides) => Some((*count, *sides)),
                _ => Some((Expr::Int(0), Expr::Int(1))),
            },
            _ => None,
        }
    }

    fn bad_count(
        &mut self,
        span: crate::source::Span,
        message: &str,
        help: &str,
        args: &[ast::Expr],
        ctx: Ctx,
    ) -> (Expr, Ty) {
        self.error(Diagnostic::error(Code::BadCountCall, span, message).label("cannot be counted").help(help));
        for a in args {
            self.expr(a, ctx);
        }
        (Expr::Int(0), Ty::Unknown)
    }

    /// `for each RELATION [within EXPR] [where COND] { ... }`: `target` is each participant in
    /// the body and in `within`; `where` is read as `count`'s condition is, each one as `self`.
    /// A loop inside a loop (written there, or through `do`) is refused: passes would multiply.
    pub(super) fn each(
        &mut self,
        relation: &ast::Ident,
        within: Option<&ast::Expr>,
        filter: Option<&ast::Expr>,
        body: &ast::Block,
        ctx: Ctx,
    ) -> crate::ir::Effect {
        if let Some(outer) = ctx.each {
            self.error(
                Diagnostic::error(Code::NestedLoop, relation.span, "a `for each` loop inside another")
                    .label("a loop inside a loop: they do not nest")
                    .with_secondary(outer, "inside this loop")
                    .help(
                        "write the inner work once, for the outer loop's `target`; to reach others from there, \
                         count them (`count(ally, ...)`) or let a trigger answer an `emit`",
                    ),
            );
        }
        let inner = Ctx { target: true, each: Some(ctx.each.unwrap_or(relation.span)), ..ctx };
        let relation = self.relation(relation);
        let within = within.map(|w| self.int(w, inner));
        let filter = filter.map(|f| self.cond(f, ctx));
        let body = self.block(body, inner);
        crate::ir::Effect::Each { relation, within, filter, body }
    }
}
