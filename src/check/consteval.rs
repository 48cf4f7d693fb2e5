//! Evaluating expressions with the stats' default values, for checks that need numbers
//! (a cost above a pool's max, a minimum above a maximum), and finding cyclic derived values.

use super::scope::Scope;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::validate::ValueNode;
use crate::ir::{self, Expr, Func};

/// Deepest chain of derived values followed before giving up.
const MAX_DEPTH: u32 = 64;

/// The value of `e` for a participant with default stats and full pools, when it has one
/// fixed value (no dice, no other participants, no run-time state).
pub fn eval(r: &ir::Ruleset, e: &Expr) -> Option<i64> {
    eval_at(r, e, 0)
}

fn eval_at(r: &ir::Ruleset, e: &Expr, depth: u32) -> Option<i64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ev = |x: &Expr| eval_at(r, x, depth + 1);
    match e {
        Expr::Int(n) => Some(*n),
        Expr::Stat(ir::Who::Owner, id) => r.stats.get(id.index()).and_then(|s| ev(&s.default)),
        Expr::Derived(ir::Who::Owner, id) => r.derived.get(id.index()).and_then(|d| ev(&d.value)),
        Expr::PoolMax(ir::Who::Owner, id) => r.pools.get(id.index()).and_then(|p| p.max.as_ref()).and_then(ev),
        Expr::PoolMin(ir::Who::Owner, id) => r.pools.get(id.index()).and_then(|p| ev(&p.min)),
        Expr::Neg(x) => ev(x)?.checked_neg(),
        Expr::Binary(op, a, b) => ir::checked(*op, ev(a)?, ev(b)?),
        Expr::Call(Func::Min, args) => args.iter().map(ev).collect::<Option<Vec<_>>>()?.into_iter().min(),
        Expr::Call(Func::Max, args) => args.iter().map(ev).collect::<Option<Vec<_>>>()?.into_iter().max(),
        Expr::Call(Func::Abs, args) => args.first().and_then(ev).and_then(i64::checked_abs),
        _ => None,
    }
}

/// One diagnostic per value (a derived value, a pool's max or min) that depends on itself,
/// directly or through others: the runner would recurse forever reading it.
pub(crate) fn cyclic_values(r: &ir::Ruleset, scope: &Scope) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for node in ir::validate::value_cycles(r) {
        let (span, what, fix, label) = match node {
            ValueNode::Derived(i) => (
                scope.derived.span(i),
                format!("`{}` depends on itself", r.derived[i as usize].name),
                "make one value in the cycle depend only on stats and pools",
                "part of a cycle of derived values",
            ),
            ValueNode::PoolMax(i) => (
                scope.pools.span(i),
                format!("the max of pool `{}` depends on itself", r.pools[i as usize].name),
                "give the max a number, or a stat or derived value that does not read this pool's max",
                "its max is read while computing it",
            ),
            ValueNode::PoolMin(i) => (
                scope.pools.span(i),
                format!("the min of pool `{}` depends on itself", r.pools[i as usize].name),
                "give the min a number, or a stat or derived value that does not read this pool's min",
                "its min is read while computing it",
            ),
        };
        if let Some(span) = span {
            out.push(Diagnostic::error(Code::CyclicDerive, span, what).label(label).help(fix));
        }
    }
    out
}
