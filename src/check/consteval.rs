//! Evaluating expressions with the stats' default values, for checks that need numbers
//! (a cost above a pool's max, a minimum above a maximum), and finding cyclic derived values.

use super::scope::Scope;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, floor_div, floor_rem, BinOp, Expr, Func};

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
        Expr::Binary(op, a, b) => {
            let (a, b) = (ev(a)?, ev(b)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div => floor_div(a, b),
                BinOp::Rem => floor_rem(a, b),
                BinOp::And | BinOp::Or => None,
            }
        }
        Expr::Call(Func::Min, args) => args.iter().map(ev).collect::<Option<Vec<_>>>()?.into_iter().min(),
        Expr::Call(Func::Max, args) => args.iter().map(ev).collect::<Option<Vec<_>>>()?.into_iter().max(),
        Expr::Call(Func::Abs, args) => args.first().and_then(ev).and_then(i64::checked_abs),
        _ => None,
    }
}

fn derived_refs(e: &Expr, out: &mut Vec<u32>) {
    match e {
        Expr::Derived(_, id) => out.push(id.0),
        Expr::Neg(x) | Expr::Not(x) | Expr::CountNear(_, _, x) => derived_refs(x, out),
        Expr::Binary(_, a, b) | Expr::Compare(_, a, b) => {
            derived_refs(a, out);
            derived_refs(b, out);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| derived_refs(a, out)),
        _ => {}
    }
}

/// One diagnostic per derived value that depends on itself.
pub fn cyclic_derives(r: &ir::Ruleset, scope: &Scope) -> Vec<Diagnostic> {
    let n = r.derived.len();
    let edges: Vec<Vec<u32>> = r
        .derived
        .iter()
        .map(|d| {
            let mut v = Vec::new();
            derived_refs(&d.value, &mut v);
            v
        })
        .collect();
    let mut out = Vec::new();
    for start in 0..n {
        // Depth-first search with an explicit stack: does `start` reach itself?
        let mut seen = vec![false; n];
        let mut stack: Vec<u32> = edges[start].clone();
        let mut cyclic = false;
        while let Some(x) = stack.pop() {
            if x as usize == start {
                cyclic = true;
                break;
            }
            if let Some(s) = seen.get_mut(x as usize) {
                if !*s {
                    *s = true;
                    stack.extend(edges.get(x as usize).into_iter().flatten());
                }
            }
        }
        if cyclic {
            if let Some(span) = scope.derived.span(start as u32) {
                out.push(
                    Diagnostic::error(
                        Code::CyclicDerive,
                        span,
                        format!("`{}` depends on itself", r.derived[start].name),
                    )
                    .label("part of a cycle of derived values")
                    .help("make one value in the cycle depend only on stats and pools"),
                );
            }
        }
    }
    out
}
