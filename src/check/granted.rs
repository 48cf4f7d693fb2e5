//! `grants turn { POOL = EXPR; limit move EXPR; limit actions EXPR }` of a reaction: the turn
//! its reactor is given once it resolves (the runner's side is src/run/granted.rs).

use super::lower::Ctx;
use super::lower::Lowerer;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir;
use crate::syntax::ast::{self, ActionKind};

impl Lowerer<'_> {
    /// The granted turn of action `a` (of kind `kind`), checked: only a reaction grants one, its
    /// budget names the reactor's own pools once each, and each kind of limit is written once.
    pub(super) fn granted_turn(&mut self, g: &ast::GrantedTurn, kind: ActionKind, ctx: Ctx) -> ir::GrantedTurn {
        if kind != ActionKind::Reaction {
            self.error(
                Diagnostic::error(Code::GrantMisuse, g.span, "only a reaction grants a turn")
                    .label("not a reaction")
                    .help("make it a `reaction` with an `on` clause saying when the turn is granted"),
            );
        }
        let mut out = ir::GrantedTurn { budget: Vec::new(), moves: None, actions: None, loc: self.loc(g.span) };
        for (name, amount) in &g.budget {
            let pool = self.pool_ref(name);
            let amount = self.count(amount, ctx, 0, "a granted turn's budget");
            let kept = self.pools_kept_by_many(pool);
            if let Some(how) = kept {
                self.error(
                    Diagnostic::error(
                        Code::GrantMisuse,
                        name.span,
                        format!("`{}` is {how}: a granted turn's budget names the reactor's own pools", name.name),
                    )
                    .label(format!("a {how} pool"))
                    .help("name a pool each participant holds (`ap = 1`)"),
                );
            }
            if out.budget.iter().any(|(p, _)| *p == pool) {
                self.error(
                    Diagnostic::error(Code::GrantMisuse, name.span, format!("`{}` is given a budget twice", name.name))
                        .label("second budget")
                        .help("keep one"),
                );
                continue;
            }
            out.budget.push((pool, amount));
        }
        for l in &g.limits {
            let amount = self.count(&l.amount, ctx, 0, "a granted turn's limit");
            let slot = if l.moves { &mut out.moves } else { &mut out.actions };
            if slot.is_some() {
                let what = if l.moves { "move" } else { "actions" };
                self.error(
                    Diagnostic::error(Code::GrantMisuse, l.span, format!("`limit {what}` is written twice"))
                        .label("second limit")
                        .help("keep one"),
                );
                continue;
            }
            *slot = Some(amount);
        }
        out
    }

    /// `Some("shared")` or `Some("per side")` for a pool the reactor does not hold alone.
    fn pools_kept_by_many(&self, pool: ir::PoolId) -> Option<&'static str> {
        if self.per_side_pools.get(pool.index()).copied().unwrap_or(false) {
            return Some("per side");
        }
        self.shared_pools.get(pool.index()).copied().unwrap_or(false).then_some("shared")
    }
}
