//! Named rolls: `roll attack = dice(attack_pool, 6)` throws dice once, and every
//! `count(attack >= 5)` or `count(attack, success)` after it in its block reads those faces.
//! Each count is gathered into the roll while its block is lowered, and made by the runner right
//! after the throw, so the trace shows one line with the faces and every count read from them.

use super::expr::Ty;
use super::lower::{Ctx, Lowerer};
use super::rolled::OpenRoll;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, Expr};
use crate::syntax::ast::{self, BinOp, ExprKind};

impl Lowerer<'_> {
    /// The dice with custom faces, and the symbols their faces show, before any roll throws them.
    pub(super) fn lower_dice(&mut self, entries: &[super::merge::Entry], r: &mut ir::Ruleset) {
        for entry in entries {
            let ast::Decl::Die { name, label, faces } = &entry.item.decl else { continue };
            let mut lowered = Vec::with_capacity(faces.len());
            for face in faces {
                let mut shows = Vec::with_capacity(face.len());
                for symbol in face {
                    let known = self.rolls.symbols.iter().position(|s| *s == symbol.name);
                    let id = known.unwrap_or_else(|| {
                        self.rolls.symbols.push(symbol.name.to_string());
                        self.rolls.symbols.len() - 1
                    });
                    shows.push(ir::SymbolId(id as u32));
                }
                lowered.push(shows);
            }
            self.rolls.dice.push((name.name.to_string(), lowered.clone()));
            r.dice.push(ir::Die { name: name.name.to_string(), label: label.clone(), faces: lowered });
        }
        r.symbols = self.rolls.symbols.clone();
    }
}

const ROLL_FORMS: &str = "a roll throws dice joined by `+`: `roll attack = dice(attack_pool, 6)`, \
`roll hits = 12d6`, `roll check = dice(2, ability) + dice(1, difficulty)`";

impl Lowerer<'_> {
    /// The effects of a block: its statements, each named roll given the counts read from it.
    pub(crate) fn block_with_rolls(&mut self, b: &ast::Block, ctx: Ctx) -> Vec<ir::Effect> {
        let mark = self.rolls.open.len();
        let mut out = Vec::with_capacity(b.stmts.len());
        for s in &b.stmts {
            match s {
                ast::Stmt::Do(name) => out.extend(self.expand(name, ctx)),
                ast::Stmt::Roll { name, dice, .. } => {
                    let effect = self.roll_stmt(name, dice, ctx, out.len());
                    out.push(effect);
                }
                _ => out.push(self.stmt(s, ctx)),
            }
        }
        while self.rolls.open.len() > mark {
            let Some(roll) = self.rolls.open.pop() else { break };
            if let Some(ir::Effect::Roll(r)) = out.get_mut(roll.at) {
                r.counts = roll.counts;
            }
            self.rolls.closed.push((roll.name, roll.span));
        }
        out
    }

    /// `roll NAME = DICE`: opens the roll for the rest of the block.
    fn roll_stmt(&mut self, name: &ast::Ident, dice: &ast::Expr, ctx: Ctx, at: usize) -> ir::Effect {
        if super::dice_names::reads_as_dice(&name.name) {
            self.diagnostics.push(super::dice_names::refuse(name, "roll"));
        }
        if let Some(first) = self.rolls.open.iter().find(|r| r.name == name.name).map(|r| r.span) {
            self.twice(
                format!("the roll `{}` is already rolled here", name.name),
                name.span,
                first,
                Some("name each roll of a block differently"),
            );
        }
        let mut parts = Vec::new();
        let errors = self.diagnostics.len();
        self.roll_parts(dice, ctx, &mut parts);
        let broken = self.diagnostics.len() > errors;
        let id = ir::RollId(self.rolls.made);
        self.rolls.made += 1;
        let numbered = parts.iter().any(|p: &ir::RollPart| matches!(p.faces, ir::Faces::Sides(_)));
        let mut symbols = Vec::new();
        for p in &parts {
            if let ir::Faces::Die(d) = p.faces {
                for face in self.rolls.dice.get(d.index()).map(|(_, f)| f.as_slice()).unwrap_or_default() {
                    for s in face {
                        if !symbols.contains(s) {
                            symbols.push(*s);
                        }
                    }
                }
            }
        }
        self.rolls.open.push(OpenRoll {
            name: name.name.to_string(),
            span: name.span,
            id,
            at,
            numbered,
            symbols,
            counts: Vec::new(),
            broken,
        });
        ir::Effect::Roll(Box::new(ir::Roll { id, name: name.name.to_string(), parts, counts: Vec::new() }))
    }

    /// The dice of a roll, `+` by `+`: `NdM`, `dice(COUNT, SIDES)`, `dice(COUNT, DIE)`.
    fn roll_parts(&mut self, e: &ast::Expr, ctx: Ctx, parts: &mut Vec<ir::RollPart>) {
        let mut terms = Vec::new();
        if !dice_terms(e, &mut terms) {
            self.expr(e, ctx);
            self.error(
                Diagnostic::error(Code::BadRoll, e.span, "expected dice here").label("not dice").help(ROLL_FORMS),
            );
            return;
        }
        for term in terms {
            match &term.kind {
                ExprKind::Call { args, .. } => {
                    let count = self.int(&args[0], ctx);
                    let faces = match self.die_named(&args[1]) {
                        Some(die) => ir::Faces::Die(die),
                        None => ir::Faces::Sides(self.int(&args[1], ctx)),
                    };
                    parts.push(ir::RollPart { count, faces });
                }
                _ => {
                    if let Expr::Dice { count, sides } = self.expr(term, ctx).0 {
                        let faces = ir::Faces::Sides(Expr::Int(sides.into()));
                        parts.push(ir::RollPart { count: Expr::Int(count.into()), faces });
                    }
                }
            }
        }
    }

    /// The die a `dice(N, NAME)` names, if its second value is a declared die's name. A name
    /// that is no value and is close to a die's name is reported here.
    fn die_named(&mut self, e: &ast::Expr) -> Option<ir::DieId> {
        let name = e.kind.single_name()?;
        if let Some(i) = self.rolls.dice.iter().position(|(n, _)| *n == name.name) {
            self.read(name.span, super::NameKind::Die);
            return Some(ir::DieId(i as u32));
        }
        let s = self.scope;
        let a_value = [&s.stats, &s.derived, &s.pools, &s.conditions].iter().any(|n| n.find(&name.name).is_some());
        let dice: Vec<String> = self.rolls.dice.iter().map(|(n, _)| n.clone()).collect();
        let close = crate::diagnostics::did_you_mean(&name.name, dice.iter().map(String::as_str));
        if a_value || close.is_none() {
            return None;
        }
        self.error(
            Diagnostic::error(Code::UnknownDie, name.span, format!("there is no die `{}`", name.name))
                .label("not a declared die")
                .suggest(&name.name, dice.iter().map(String::as_str)),
        );
        Some(ir::DieId(0))
    }

    /// `count(ROLL OP X)` or `count(ROLL, SYMBOL)`, when the first value names a roll (or looks
    /// like a misspelt one); `None` leaves the call to the other forms of `count`.
    pub(super) fn roll_count(&mut self, args: &[ast::Expr], ctx: Ctx) -> Option<(Expr, Ty)> {
        let (name, test) = match args {
            [ast::Expr { kind: ExprKind::Compare { op, lhs, rhs }, .. }] => (lhs.kind.single_name()?, Ok((*op, rhs))),
            [first, symbol] => (first.kind.single_name()?, Err(symbol)),
            _ => return None,
        };
        let Some(at) = self.rolls.open.iter().rposition(|r| r.name == name.name) else {
            return self.not_a_roll(name, args, ctx);
        };
        if self.rolls.open[at].broken {
            return Some(self.skip(args, ctx));
        }
        let counting = match test {
            Ok((op, x)) => {
                if !self.rolls.open[at].numbered {
                    let help = format!("count a symbol its dice show: `count({}, SYMBOL)`", name.name);
                    return Some(self.roll_miscounted(name, "has no numbered dice to compare", help, args, ctx));
                }
                ir::RollCounting::Compare(op, self.int(x, ctx))
            }
            Err(symbol) => match self.symbol_of(at, symbol) {
                Some(s) => ir::RollCounting::Symbol(s),
                None => return Some((Expr::Int(0), Ty::Unknown)),
            },
        };
        let roll = &mut self.rolls.open[at];
        let place = match roll.counts.iter().position(|c| *c == counting) {
            Some(place) => place,
            None => {
                roll.counts.push(counting);
                roll.counts.len() - 1
            }
        };
        Some((Expr::RollCount(roll.id, place as u32), Ty::Int))
    }

    /// The symbol `count(ROLL, SYMBOL)` names, if some die of the roll shows it (else reported).
    fn symbol_of(&mut self, at: usize, e: &ast::Expr) -> Option<ir::SymbolId> {
        let roll = &self.rolls.open[at];
        let Some(name) = e.kind.single_name() else {
            let d = Diagnostic::error(Code::UnknownSymbol, e.span, "expected a symbol here")
                .label("not a symbol")
                .help(format!("`count({}, SYMBOL)` counts how often a symbol shows on its dice", roll.name));
            self.error(d);
            return None;
        };
        let found = self.rolls.symbols.iter().position(|s| *s == name.name).map(|i| ir::SymbolId(i as u32));
        if let Some(s) = found.filter(|s| roll.symbols.contains(s)) {
            return Some(s);
        }
        let shown: Vec<&str> = roll.symbols.iter().map(|s| self.rolls.symbols[s.index()].as_str()).collect();
        let message = match (found, shown.is_empty()) {
            (_, true) => format!("the roll `{}` has no dice with symbols", roll.name),
            (Some(_), false) => format!("no die of the roll `{}` shows `{}`", roll.name, name.name),
            (None, false) => format!("no die shows a symbol `{}`", name.name),
        };
        let help = match shown.is_empty() {
            true => format!("compare its numbered faces: `count({} >= 5)`", roll.name),
            false => format!("its dice show {}", shown.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")),
        };
        let d = Diagnostic::error(Code::UnknownSymbol, name.span, message)
            .label("not on its dice")
            .suggest(&name.name, shown.iter().copied())
            .or_help(help);
        self.error(d);
        None
    }

    /// A first value that names no open roll: read outside its block, a misspelt roll, a pile
    /// tested as if it were a roll, or not a roll at all (`None`: another form of `count`).
    fn not_a_roll(&mut self, name: &ast::Ident, args: &[ast::Expr], ctx: Ctx) -> Option<(Expr, Ty)> {
        if let Some((_, rolled)) = self.rolls.closed.iter().rev().find(|(n, _)| *n == name.name) {
            let rolled = *rolled;
            self.error(
                Diagnostic::error(
                    Code::UnknownRoll,
                    name.span,
                    format!("the roll `{}` is read outside the block it is rolled in", name.name),
                )
                .label("its block has ended")
                .with_secondary(rolled, "rolled here")
                .help("a roll is read by the counts after it in its own block; count it there"),
            );
            return Some(self.skip(args, ctx));
        }
        if let (Some(_), [ast::Expr { kind: ExprKind::Compare { op, .. }, .. }]) = (self.piles.pile(&name.name), args) {
            let n = &name.name;
            self.error(
                Diagnostic::error(Code::BadCountCall, name.span, format!("`{n}` is a pile, not a roll"))
                    .label("a pile of items, not dice")
                    .help(format!(
                        "count its items with `count({n})`, or those of one kind with `count({n}, KIND)`, \
                         then test the count: `count({n}) {} ...`",
                        op.symbol()
                    )),
            );
            return Some(self.skip(args, ctx));
        }
        let open: Vec<&str> = self.rolls.open.iter().map(|r| r.name.as_str()).collect();
        let s = self.scope;
        let a_value = [&s.stats, &s.derived, &s.pools, &s.conditions].iter().any(|n| n.find(&name.name).is_some());
        let known = a_value || super::expr::RELATIONS.contains(&name.name.as_str());
        crate::diagnostics::did_you_mean(&name.name, open.iter().copied()).filter(|_| !known)?;
        let d = Diagnostic::error(Code::UnknownRoll, name.span, format!("there is no roll `{}` here", name.name))
            .label("not a roll of this block")
            .suggest(&name.name, open.iter().copied());
        self.error(d);
        Some(self.skip(args, ctx))
    }

    fn roll_miscounted(
        &mut self,
        name: &ast::Ident,
        problem: &str,
        help: String,
        args: &[ast::Expr],
        ctx: Ctx,
    ) -> (Expr, Ty) {
        self.error(
            Diagnostic::error(Code::BadCountCall, name.span, format!("the roll `{}` {problem}", name.name))
                .label("cannot be counted this way")
                .help(help),
        );
        self.skip(args, ctx)
    }

    /// The values after a reported problem, still checked; the count is a placeholder.
    fn skip(&mut self, args: &[ast::Expr], ctx: Ctx) -> (Expr, Ty) {
        if let [ast::Expr { kind: ExprKind::Compare { rhs, .. }, .. }] = args {
            self.expr(rhs, ctx);
        }
        (Expr::Int(0), Ty::Unknown)
    }
}

/// The dice joined by `+` in a roll's right side, left to right; false if anything else is there.
fn dice_terms<'e>(e: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>) -> bool {
    match &e.kind {
        ExprKind::Binary { op: BinOp::Add, lhs, rhs } => dice_terms(lhs, out) && dice_terms(rhs, out),
        ExprKind::Dice { .. } => {
            out.push(e);
            true
        }
        ExprKind::Call { func, args } if func.name == "dice" && args.len() == 2 => {
            out.push(e);
            true
        }
        _ => false,
    }
}
