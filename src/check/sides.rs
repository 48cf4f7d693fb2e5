//! What a side owns: `enemy_side.NAME`, the opposing side's value of a pool kept `per side`
//! (a pool's own `per side` clause is lowered with the pool, in lower.rs).

use super::expr::{Ty, ENEMY_SIDE};
use super::lower::Lowerer;
use super::NameKind;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, Expr, Who};
use crate::source::Span;
use crate::syntax::ast;

impl Lowerer<'_> {
    /// Whether pool `name` is declared `per side` (and not `shared`).
    fn side_pool(&self, name: &str) -> Option<ir::PoolId> {
        let i = self.scope.pools.find(name)?;
        self.per_side_pools.get(i as usize).copied().unwrap_or(false).then_some(ir::PoolId(i))
    }

    /// `enemy_side.NAME` read as a value: the opposing side's value of a pool kept `per side`.
    pub(super) fn enemy_side_value(&mut self, side: &ast::Ident, rest: &[ast::Ident], span: Span) -> (Expr, Ty) {
        self.option_word(side);
        match rest {
            [name] => match self.enemy_side_pool(name) {
                Some(p) => (Expr::Pool(Who::EnemySide, p), Ty::Int),
                None => (Expr::Int(0), Ty::Unknown),
            },
            _ => {
                self.not_a_participant(span);
                (Expr::Int(0), Ty::Unknown)
            }
        }
    }

    /// The pool `NAME` of `enemy_side.NAME`, when it is one kept `per side`; said when not.
    pub(super) fn enemy_side_pool(&mut self, name: &ast::Ident) -> Option<ir::PoolId> {
        if let Some(p) = self.side_pool(&name.name) {
            self.read(name.span, NameKind::Pool);
            return Some(p);
        }
        let is_pool = self.scope.pools.find(&name.name).is_some();
        let message = match is_pool {
            true => format!("`{}` is each participant's own (or `shared`), not a pool a side keeps", name.name),
            false => format!("`{ENEMY_SIDE}` holds only pools kept `per side`, and `{}` is none", name.name),
        };
        let sides: Vec<&str> = (self.scope.pools.names()).filter(|n| self.side_pool(n).is_some()).collect();
        let d = Diagnostic::error(Code::NotSidePool, name.span, message)
            .label("not a pool kept per side")
            .suggest(&name.name, sides.iter().copied())
            .or_help(match is_pool {
                true => format!("declare it `pool {} {{ per side }}` to keep one value for each side", name.name),
                false => "declare the pool with `per side`: `pool cp { per side; start 2 }`".to_string(),
            });
        self.error(d);
        None
    }

    /// `enemy_side` where a participant is wanted.
    pub(super) fn not_a_participant(&mut self, span: Span) {
        self.error(
            Diagnostic::error(Code::NotSidePool, span, "`enemy_side` is a side, not a participant")
                .label("a side")
                .help("it names only the opposing side's pools kept `per side`: `enemy_side.cp`"),
        );
    }
}
