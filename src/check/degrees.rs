//! Degrees of success: `degrees` declarations checked and lowered, and the checks read by them.
//!
//! A declaration lists levels best first; a roll reaches the first level whose `when` holds, so
//! the shape is checked here once and the runner only walks the list.

use super::lower::{Ctx, Lowerer};
use crate::diagnostics::{Code, Diagnostic};
use crate::ir;
use crate::syntax::ast;

/// What a level's `when` may read about the roll being graded.
pub(crate) const ROLL_FACTS: &[(&str, ir::RollFact)] = &[
    ("total", ir::RollFact::Total),
    ("natural", ir::RollFact::Natural),
    ("modifier", ir::RollFact::Modifier),
    ("margin", ir::RollFact::Margin),
];

impl Lowerer<'_> {
    pub(super) fn degrees(&mut self, d: &ast::Degrees) -> ir::Degrees {
        let ctx = Ctx { roll: true, ..Ctx::default() };
        let mut levels: Vec<ir::Level> = Vec::with_capacity(d.levels.len());
        let mut first_failure: Option<&ast::DegreeLevel> = None;
        let mut open_ended: Option<&ast::DegreeLevel> = None;
        let mut unreachable = false;
        for (i, l) in d.levels.iter().enumerate() {
            if let Some(first) = d.levels[..i].iter().find(|f| f.name.name == l.name.name) {
                let message = format!("level `{}` is given twice", l.name.name);
                self.twice(message, l.name.span, first.name.span, Some("give each level its own name"));
            }
            let success = match self.option_word(&l.side) {
                "success" => true,
                "failure" => false,
                _ => {
                    self.unknown_option(&l.side, "side of a level", &["success", "failure"]);
                    true
                }
            };
            if let (true, Some(failure)) = (success, first_failure) {
                self.error(
                    Diagnostic::error(
                        Code::BadDegrees,
                        l.name.span,
                        format!("success level `{}` comes after a failure level", l.name.name),
                    )
                    .label("a success, below a failure")
                    .with_secondary(failure.name.span, "the first failure level")
                    .help("levels are listed best first: every success level before every failure level"),
                );
            }
            if !success && first_failure.is_none() {
                first_failure = Some(l);
            }
            // Reported once, at the first level past it.
            if let Some(before) = open_ended.take() {
                unreachable = true;
                self.error(
                    Diagnostic::error(
                        Code::BadDegrees,
                        l.name.span,
                        format!("no roll can reach level `{}` or any level below it", l.name.name),
                    )
                    .label("unreachable")
                    .with_secondary(before.name.span, "this level has no `when`, so it takes every roll left")
                    .help(format!("give `{}` a `when`, or move it last", before.name.name)),
                );
            }
            let last = i + 1 == d.levels.len();
            match (&l.when, last) {
                (Some(w), true) => self.error(
                    Diagnostic::error(Code::BadDegrees, w.span, "the last level needs no `when`")
                        .label("a roll that fails this reaches no level")
                        .help(format!(
                            "the last level takes every roll the others leave: write `{}: {}`, or add a level below it",
                            l.name.name, l.side.name
                        )),
                ),
                (None, false) if !unreachable => open_ended = Some(l),
                _ => {}
            }
            let when = l.when.as_ref().map(|w| self.cond(w, ctx));
            levels.push(ir::Level { name: l.name.name.to_string(), success, when });
        }
        let sides = (levels.iter().any(|l| l.success), levels.iter().any(|l| !l.success));
        if sides != (true, true) {
            let missing = if sides.0 { "failure" } else { "success" };
            self.error(
                Diagnostic::error(Code::BadDegrees, d.name.span, format!("degrees `{}` have no {missing} level", d.name.name))
                    .label(format!("no `{missing}` level"))
                    .help("a check can succeed or fail: declare at least one level of each side, e.g. `success: success` and `failure: failure`"),
            );
        }
        let shifts = d.shifts.iter().map(|s| ir::LevelShift { up: s.up, when: self.cond(&s.when, ctx) }).collect();
        ir::Degrees { name: d.name.name.to_string(), levels, shifts }
    }

    /// Declared degrees by name, or an error with a suggestion.
    pub(super) fn degrees_ref(&mut self, name: &ast::Ident) -> Option<ir::DegreesId> {
        if let Some(i) = self.scope.degrees.find(&name.name) {
            self.read(name.span, super::NameKind::Degrees);
            return Some(ir::DegreesId(i));
        }
        self.error(
            Diagnostic::error(Code::UnknownDegrees, name.span, format!("there are no degrees `{}`", name.name))
                .label("not declared degrees")
                .suggest(&name.name, self.scope.degrees.names())
                .or_help(format!("declare them: `degrees {} {{ ... }}`", name.name)),
        );
        None
    }

    /// A check read by degrees: its outcomes name levels, and a level without a block runs the
    /// nearest level's toward the other side (a missing `major` runs `hard`'s).
    pub(super) fn graded_check(
        &mut self,
        id: ir::DegreesId,
        degrees: Option<&ast::CheckDegrees>,
        against: &ir::Expr,
        outcomes: &[(ast::Ident, ast::Block)],
        ctx: Ctx,
    ) -> ir::Graded {
        let levels = self.levels.get(id.index()).cloned().unwrap_or_default();
        let mut blocks = Vec::new();
        let mut written: Vec<Option<u32>> = vec![None; levels.len()];
        let mut seen: Vec<&ast::Ident> = Vec::new();
        for (name, block) in outcomes {
            let effects = self.block(block, ctx);
            let word = self.option_word(name);
            match levels.iter().position(|(n, _)| n == word) {
                Some(i) => {
                    if let Some(first) = seen.iter().find(|s| s.name == name.name) {
                        self.twice(format!("outcome `{word}` is given twice"), name.span, first.span, None);
                    } else {
                        written[i] = Some(blocks.len() as u32);
                    }
                    blocks.push(effects);
                }
                None => {
                    let names: Vec<&str> = levels.iter().map(|(n, _)| n.as_str()).collect();
                    self.unknown_option(name, "level of these degrees", &names);
                }
            }
            seen.push(name);
        }
        let runs = (0..levels.len())
            .map(|i| {
                let success = levels[i].1;
                let same_side = |j: &usize| levels[*j].1 == success;
                match success {
                    true => (i..levels.len()).take_while(same_side).find_map(|j| written[j]),
                    false => (0..=i).rev().take_while(same_side).find_map(|j| written[j]),
                }
            })
            .collect();
        let contest = match against {
            ir::Expr::LastCheck(w) => ir::Contest::LastCheck(*w),
            e if rolls(e) => ir::Contest::Roll,
            _ => ir::Contest::Value,
        };
        let (mut shifts, mut opponent) = (Vec::new(), Vec::new());
        for s in degrees.map(|d| &d.shifts[..]).unwrap_or(&[]) {
            if s.opponent && contest == ir::Contest::Value {
                self.misplaced(
                    s.span,
                    "`opponent` shifts the roll a check is against; this check is against a value, not a roll or a `last_check`",
                );
            }
            let shift = ir::LevelShift { up: s.up, when: self.cond(&s.when, ctx) };
            match s.opponent {
                true => opponent.push(shift),
                false => shifts.push(shift),
            }
        }
        ir::Graded { degrees: id, contest, shifts, opponent, blocks, runs }
    }
}

/// Whether an expression throws dice where it is written.
fn rolls(e: &ir::Expr) -> bool {
    let mut dice = false;
    e.walk(&mut |x| dice |= matches!(x, ir::Expr::Dice { .. } | ir::Expr::DiceOf(..) | ir::Expr::CountDice(..)));
    dice
}
