//! Lowering expressions, effects, timings and costs: names become ids, types are checked.
//! A problem is reported and replaced by a harmless placeholder, so checking goes on and every
//! problem in the file is found in one run.

use super::lower::{Ctx, Lowerer};
use super::words::article;
use super::NameKind;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, Builtin, Expr, Func, Who};
use crate::syntax::ast::{self, AssignOp, BinOp, ExprKind};

/// The type of an expression. `Unknown` follows an error, so one mistake is reported once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    Int,
    Bool,
    Unknown,
}

/// The timing words the checker knows (editors complete them too).
pub const TIMINGS: &[&str] = &[
    "encounter_start",
    "encounter_end",
    "round_start",
    "round_end",
    "turn_start",
    "turn_end",
    "phase_start",
    "phase_end",
];
/// Every function a call may name, each form with how it is written: the one table the checker
/// accepts calls by, and that its help and `tempo explain unknown-function` list.
pub const FUNCTIONS: &[(&str, &str)] = &[
    ("min", "min(a, b, ...)"),
    ("max", "max(a, b, ...)"),
    ("abs", "abs(a)"),
    ("distance", "distance(who)"),
    ("distance", "distance(a, b)"),
    ("handlers", "handlers(object)"),
    ("count_near", "count_near(relation, who, reach)"),
    ("dice", "dice(count, sides)"),
    ("dice", "dice(count, die)"),
    ("amount", "amount(event)"),
    ("count", "count(12d6 >= 5)"),
    ("count", "count(roll >= 5)"),
    ("count", "count(roll, symbol)"),
    ("count", "count(pile[, kind])"),
    ("count", "count(relation, condition)"),
    ("value", "value(pile)"),
    ("highest", "highest(pile)"),
    ("lowest", "lowest(pile)"),
    ("number", "number(condition)"),
];

/// The forms of [`FUNCTIONS`], joined for a message: "min(a, b, ...), max(a, b, ...), ...".
pub fn function_forms() -> String {
    FUNCTIONS.iter().map(|(_, form)| *form).collect::<Vec<_>>().join(", ")
}

const BUILTINS: &[&str] =
    &["round", "own_turn", "final_turn", "surprise_round", "units", "initiative", "last_check", "last_critical"];
pub const WHO_WORDS: &[&str] = &["self", "target", "actor", "victim", "source"];
/// The word that names the opposing side, as a holder of pools kept `per side` (check/sides.rs).
pub(crate) const ENEMY_SIDE: &str = "enemy_side";
pub const RELATIONS: &[&str] = &["self", "ally", "enemy", "other", "any", "player", "non_player"];

/// Dice limits: beyond these a roll is surely a typo, and sums could overflow.
const MAX_DICE: u32 = 1000;
const MAX_SIDES: u32 = 1_000_000;

impl Lowerer<'_> {
    /// A number that counts something (hours, rounds, uses): refused when it is a plain number
    /// below `least`, which the runner could only treat as nonsense (every 0 hours, -3 rounds).
    pub fn count(&mut self, e: &ast::Expr, ctx: Ctx, least: i64, what: &str) -> Expr {
        let value = self.int(e, ctx);
        if let Some(n) = literal(&value).filter(|n| *n < least) {
            self.error(
                Diagnostic::error(Code::BadCount, e.span, format!("{what} must be at least {least}, not {n}"))
                    .label("out of range")
                    .help(format!("write a number of {least} or more")),
            );
        }
        value
    }

    pub(crate) fn int(&mut self, e: &ast::Expr, ctx: Ctx) -> Expr {
        self.typed(e, Ty::Int, ctx)
    }

    pub fn cond(&mut self, e: &ast::Expr, ctx: Ctx) -> Expr {
        self.typed(e, Ty::Bool, ctx)
    }

    fn typed(&mut self, e: &ast::Expr, want: Ty, ctx: Ctx) -> Expr {
        let (x, ty) = self.expr(e, ctx);
        if ty != want && ty != Ty::Unknown {
            let (what, fix) = match want {
                Ty::Int => (
                    "a number",
                    "use a number here, e.g. a pool or stat instead of a comparison; `number(COND)` reads a yes/no as 1 or 0",
                ),
                _ => ("a yes/no condition", "compare it, e.g. `ap >= 1`, or test a condition with `has`"),
            };
            self.error(
                Diagnostic::error(Code::TypeMismatch, e.span, format!("expected {what} here"))
                    .label(match ty {
                        Ty::Int => "this is a number",
                        _ => "this is a yes/no condition",
                    })
                    .help(fix),
            );
        }
        x
    }

    fn expect_ty(&mut self, e: &ast::Expr, want: Ty, ctx: Ctx) -> Expr {
        self.typed(e, want, ctx)
    }

    pub fn expr(&mut self, e: &ast::Expr, ctx: Ctx) -> (Expr, Ty) {
        match &e.kind {
            ExprKind::Int(digits) => match digits.parse::<i64>() {
                Ok(n) => (Expr::Int(n), Ty::Int),
                Err(_) => {
                    self.error(
                        Diagnostic::error(Code::NumberTooLarge, e.span, "this number is too large")
                            .label("does not fit in a 64-bit integer")
                            .help("numbers go up to 9223372036854775807"),
                    );
                    (Expr::Int(0), Ty::Unknown)
                }
            },
            ExprKind::Bool(b) => (Expr::Bool(*b), Ty::Bool),
            ExprKind::Dice { count, sides } => self.dice(e, count, sides),
            ExprKind::Path(path) => self.value_path(&path.parts, path.span, ctx),
            ExprKind::Name(name) => self.value_path(std::slice::from_ref(name), name.span, ctx),
            ExprKind::Call { func, args } => self.call(e, func, args, ctx),
            ExprKind::Neg(inner) => (Expr::Neg(Box::new(self.int(inner, ctx))), Ty::Int),
            ExprKind::Not(inner) => (Expr::Not(Box::new(self.cond(inner, ctx))), Ty::Bool),
            ExprKind::Binary { op, lhs, rhs } => {
                let want = if matches!(op, BinOp::And | BinOp::Or) { Ty::Bool } else { Ty::Int };
                let l = self.expect_ty(lhs, want, ctx);
                let r = self.expect_ty(rhs, want, ctx);
                if matches!(op, BinOp::Div | BinOp::Rem) && literal(&r) == Some(0) {
                    self.error(
                        Diagnostic::error(Code::DivisionByZero, rhs.span, "division by zero")
                            .label("this is always 0")
                            .help("divide by a number other than 0"),
                    );
                } else if let (Some(a), Some(b)) = (literal(&l), literal(&r)) {
                    if !matches!(op, BinOp::And | BinOp::Or) && crate::ir::checked(*op, a, b).is_none() {
                        self.error(
                            Diagnostic::error(Code::NumberTooLarge, e.span, "this arithmetic overflows")
                                .label(format!("past the integers tempo computes with (±{})", i64::MAX))
                                .help("use smaller numbers"),
                        );
                    }
                }
                (Expr::Binary(*op, Box::new(l), Box::new(r)), want)
            }
            ExprKind::Compare { op, lhs, rhs } => {
                let (l, lt) = self.expr(lhs, ctx);
                let want =
                    if lt == Ty::Bool && matches!(op, ast::CmpOp::Eq | ast::CmpOp::Ne) { Ty::Bool } else { Ty::Int };
                if lt != want && lt != Ty::Unknown {
                    self.error(
                        Diagnostic::error(Code::TypeMismatch, lhs.span, "expected a number here")
                            .label("this is a yes/no condition")
                            .help("only numbers can be compared with `<`, `<=`, `>`, `>=`"),
                    );
                }
                let r = self.expect_ty(rhs, want, ctx);
                (Expr::Compare(*op, Box::new(l), Box::new(r)), Ty::Bool)
            }
            ExprKind::Has { who, condition, by } => {
                if by.is_none() {
                    if let Some(read) = self.pile_has(who, condition, ctx) {
                        return read;
                    }
                }
                let w = self.who_expr(who, ctx);
                let c = self.condition_ref(condition);
                match by {
                    Some(by) => (Expr::HasFrom(w, c, self.who_word(by, ctx)), Ty::Bool),
                    None => (Expr::Has(w, c), Ty::Bool),
                }
            }
            ExprKind::Is { who, relation } => self.is(who, relation, ctx),
            ExprKind::Holds { who, kind } => {
                let w = self.who_expr(who, ctx);
                (Expr::Holds(w, self.object_ref(kind)), Ty::Bool)
            }
        }
    }

    fn dice(&mut self, e: &ast::Expr, count: &str, sides: &str) -> (Expr, Ty) {
        let count_n = if count.is_empty() { Ok(1) } else { count.parse::<u32>() };
        let sides_n = sides.parse::<u32>();
        match (count_n, sides_n) {
            (Ok(c), Ok(s)) if c == 0 || s == 0 => {
                self.error(
                    Diagnostic::error(Code::BadDice, e.span, "dice need at least one die with at least one side")
                        .label("this rolls nothing")
                        .help("e.g. `1d6`"),
                );
                (Expr::Int(0), Ty::Unknown)
            }
            (Ok(c), Ok(s)) if c <= MAX_DICE && s <= MAX_SIDES => (Expr::Dice { count: c, sides: s }, Ty::Int),
            _ => {
                self.error(
                    Diagnostic::error(Code::NumberTooLarge, e.span, "these dice are too large")
                        .label(format!("at most {MAX_DICE} dice of at most {MAX_SIDES} sides"))
                        .help("check the numbers: `1d20` is one twenty-sided die"),
                );
                (Expr::Int(0), Ty::Unknown)
            }
        }
    }

    fn call(&mut self, e: &ast::Expr, func: &ast::Ident, args: &[ast::Expr], ctx: Ctx) -> (Expr, Ty) {
        let arity = |n: usize, this: &mut Self| {
            if args.len() != n {
                this.error(
                    Diagnostic::error(
                        Code::WrongArity,
                        e.span,
                        format!("`{}` takes {n} value(s), not {}", func.name, args.len()),
                    )
                    .label("wrong number of values"),
                );
            }
        };
        let name = self.option_word(func);
        if !FUNCTIONS.iter().any(|(known, _)| *known == name) {
            return self.unknown_function(func, args, ctx);
        }
        match name {
            "min" | "max" => {
                if args.len() < 2 {
                    self.error(
                        Diagnostic::error(
                            Code::WrongArity,
                            e.span,
                            format!("`{}` needs at least two values", func.name),
                        )
                        .label(format!("{} given", args.len()))
                        .help(format!("e.g. `{}(a, b)`", func.name)),
                    );
                }
                let f = if func.name == "min" { Func::Min } else { Func::Max };
                (Expr::Call(f, args.iter().map(|a| self.int(a, ctx)).collect()), Ty::Int)
            }
            "amount" => {
                arity(1, self);
                let event = match args.first().and_then(|a| a.kind.single_name()) {
                    Some(name) => self.event_named(name),
                    _ => {
                        if let Some(a) = args.first() {
                            self.error(
                                Diagnostic::error(Code::UnknownEvent, a.span, "expected an event here")
                                    .label("not an event")
                                    .help("`amount(EVENT)` reads what `emit EVENT(...)` ended with"),
                            );
                        }
                        None
                    }
                };
                if let (Some(e), Some(a)) = (event, args.first()) {
                    self.amount_read(e, a.span);
                }
                match event {
                    Some(e) => (Expr::Amount(e), Ty::Int),
                    None => (Expr::Int(0), Ty::Unknown),
                }
            }
            "abs" => {
                arity(1, self);
                (Expr::Call(Func::Abs, args.iter().map(|a| self.int(a, ctx)).collect()), Ty::Int)
            }
            "distance" if args.len() == 2 => {
                let (a, b) = (self.who_expr(&args[0], ctx), self.who_expr(&args[1], ctx));
                (Expr::DistanceBetween(a, b), Ty::Int)
            }
            "distance" => {
                if args.len() != 1 {
                    self.error(
                        Diagnostic::error(
                            Code::WrongArity,
                            e.span,
                            format!("`distance` takes 1 or 2 values, not {}", args.len()),
                        )
                        .label("wrong number of values")
                        .help("`distance(WHO)` from `self`, or `distance(A, B)` between two"),
                    );
                }
                let who = args.first().map(|a| self.who_expr(a, ctx)).unwrap_or(Who::Target);
                (Expr::Distance(who), Ty::Int)
            }
            "dice" => {
                arity(2, self);
                let value = |i: usize, this: &mut Self| match args.get(i) {
                    Some(a) => this.int(a, ctx),
                    None => Expr::Int(1),
                };
                let (count, sides) = (value(0, self), value(1, self));
                (Expr::DiceOf(Box::new(count), Box::new(sides)), Ty::Int)
            }
            "handlers" => {
                arity(1, self);
                match args.first().and_then(|a| a.kind.single_name()) {
                    Some(name) => (Expr::Handlers(self.object_ref(name)), Ty::Int),
                    _ => {
                        if let Some(a) = args.first() {
                            self.error(
                                Diagnostic::error(Code::UnknownObject, a.span, "expected a kind of object here")
                                    .label("not an object's name")
                                    .help("`handlers(KIND)` counts who holds the object of KIND you hold"),
                            );
                        }
                        (Expr::Int(0), Ty::Unknown)
                    }
                }
            }
            "count" => match self.pile_count(args, ctx) {
                Some(read) => read,
                None => self.count_call(e, args, ctx),
            },
            "number" => self.number_call(e, args, ctx),
            "value" | "highest" | "lowest" => self.pile_value(e, name, args, ctx),
            "count_near" => {
                arity(3, self);
                let relation = match args.first().and_then(|a| a.kind.single_name()) {
                    Some(name) => self.relation(name),
                    _ => {
                        if let Some(a) = args.first() {
                            self.error(
                                Diagnostic::error(Code::UnknownOption, a.span, "expected a relation here")
                                    .label("not a relation")
                                    .help(format!("relations: {}", RELATIONS.join(", "))),
                            );
                        }
                        ir::Relation::Any
                    }
                };
                let who = args.get(1).map(|a| self.who_expr(a, ctx)).unwrap_or(Who::Target);
                // The reach is each counted participant's own: `self` inside it is them.
                let reach = args.get(2).map(|a| self.int(a, ctx)).unwrap_or(Expr::Int(0));
                (Expr::CountNear(relation, who, Box::new(reach)), Ty::Int)
            }
            // A name in FUNCTIONS with no arm here: reported as unknown, so a test that calls
            // every entry of the table finds it.
            _ => self.unknown_function(func, args, ctx),
        }
    }

    fn unknown_function(&mut self, func: &ast::Ident, args: &[ast::Expr], ctx: Ctx) -> (Expr, Ty) {
        let mut names: Vec<&str> = FUNCTIONS.iter().map(|(name, _)| *name).collect();
        names.dedup();
        self.error(
            Diagnostic::error(Code::UnknownFunction, func.span, format!("there is no function `{}`", func.name))
                .label("unknown function")
                .suggest(&func.name, names)
                .or_help(format!("functions: {}", function_forms())),
        );
        for a in args {
            self.expr(a, ctx);
        }
        (Expr::Int(0), Ty::Unknown)
    }

    fn is(&mut self, who: &ast::Expr, relation: &ast::Ident, ctx: Ctx) -> (Expr, Ty) {
        if let Some(word) = who.kind.single_name() {
            if word.name == "trigger" {
                if !ctx.event {
                    self.misplaced(
                        who.span,
                        "`trigger` means the event a reaction or trigger answers; there is none here",
                    );
                }
                let event = self.event_ref(relation);
                return (Expr::TriggerIs(event), Ty::Bool);
            }
        }
        let w = self.who_expr(who, ctx);
        let r = self.relation(relation);
        (Expr::Is(w, r), Ty::Bool)
    }

    pub fn relation(&mut self, word: &ast::Ident) -> ir::Relation {
        use ir::Relation::*;
        match self.option_word(word) {
            "self" => Self_,
            "ally" => Ally,
            "enemy" => Enemy,
            "other" => Other,
            "any" => Any,
            "player" => Player,
            "non_player" => NonPlayer,
            _ => {
                self.unknown_option(word, "relation", RELATIONS);
                Any
            }
        }
    }

    pub(crate) fn unknown_option(&mut self, word: &ast::Ident, what: &str, options: &[&str]) {
        self.error(
            Diagnostic::error(
                Code::UnknownOption,
                word.span,
                format!("`{}` is not {} {what}", word.name, article(what)),
            )
            .label(format!("unknown {what}"))
            .suggest(&word.name, options.iter().copied())
            .or_help(format!("accepted: {}", options.join(", "))),
        );
    }

    pub fn misplaced(&mut self, span: crate::source::Span, message: &str) {
        self.error(Diagnostic::error(Code::MisplacedClause, span, message.to_string()).label("not meaningful here"));
    }

    /// `self`, `target` or `actor` as written in an expression.
    fn who_expr(&mut self, e: &ast::Expr, ctx: Ctx) -> Who {
        if let Some(word) = e.kind.single_name() {
            return self.who_word(word, ctx);
        }
        self.error(
            Diagnostic::error(Code::UnknownOption, e.span, "expected a participant here")
                .label("not a participant")
                .help("participants are `self`, `target`, `actor`, `victim` and `source`"),
        );
        Who::Owner
    }

    pub(crate) fn who_word(&mut self, word: &ast::Ident, ctx: Ctx) -> Who {
        match self.option_word(word) {
            "self" => Who::Owner,
            "target" => {
                if !ctx.target {
                    self.misplaced(word.span, "`target` is the target of an action, and there is none here");
                }
                Who::Target
            }
            "victim" => {
                if ctx.timing {
                    self.timing_misuse(word.span, "`victim`: a timing has no target", "read `self` or `actor` instead");
                } else if !ctx.event {
                    self.misplaced(
                        word.span,
                        "`victim` is the target of the event a reaction or trigger answers; there is none here",
                    );
                }
                Who::EventTarget
            }
            "source" => {
                if !ctx.source {
                    self.misplaced(
                        word.span,
                        "`source` is whoever applied a condition; it has a meaning only inside a condition and in a `while` duration",
                    );
                }
                Who::Source
            }
            "actor" => {
                if ctx.no_actor {
                    self.timing_misuse(
                        word.span,
                        "`actor`: this timing happens to nobody in particular",
                        "only `turn_start` and `turn_end` have an actor, whose turn it is: `on turn_end by enemy`",
                    );
                } else if !ctx.event {
                    self.misplaced(
                        word.span,
                        "`actor` is whoever did the event a reaction or trigger answers; there is none here",
                    );
                }
                Who::EventActor
            }
            ENEMY_SIDE => {
                self.not_a_participant(word.span);
                Who::Owner
            }
            _ => {
                self.unknown_option(word, "participant", WHO_WORDS);
                Who::Owner
            }
        }
    }

    /// A name used as a value: a stat, derived value, pool, built-in, or `pool.max`.
    fn value_path(&mut self, parts: &[ast::Ident], span: crate::source::Span, ctx: Ctx) -> (Expr, Ty) {
        if let [trigger, amount] = parts {
            if trigger.name == "trigger" && amount.name == "amount" {
                self.option_word(trigger);
                self.option_word(amount);
                if ctx.timing {
                    self.timing_misuse(span, "`trigger.amount`: a timing has no amount", "leave it out");
                } else if !ctx.event {
                    self.misplaced(
                        span,
                        "`trigger.amount` is the amount of the event a reaction or trigger answers; there is none here",
                    );
                }
                return (Expr::TriggerAmount, Ty::Int);
            }
        }
        if let [side, rest @ ..] = parts {
            if side.name == ENEMY_SIDE {
                return self.enemy_side_value(side, rest, span);
            }
        }
        let (who, rest) = match parts.first().map(|p| p.name.as_str()) {
            Some(w) if WHO_WORDS.contains(&w) && parts.len() > 1 => (self.who_word(&parts[0], ctx), &parts[1..]),
            Some(w) if WHO_WORDS.contains(&w) || w == "trigger" => {
                self.error(
                    Diagnostic::error(Code::TypeMismatch, span, format!("`{w}` is a participant, not a value"))
                        .label("a participant")
                        .help(format!("read one of its values, e.g. `{w}.hp`, or test it with `has` / `is`")),
                );
                return (Expr::Int(0), Ty::Unknown);
            }
            _ => (Who::Owner, parts),
        };
        let Some(first) = rest.first() else {
            return (Expr::Int(0), Ty::Unknown);
        };
        if rest.len() == 1 {
            let name = first.name.as_str();
            // Inside `degrees` the roll's facts come before any stat of the same name.
            let fact = super::degrees::ROLL_FACTS.iter().find(|(n, _)| *n == name);
            if let (Some((_, fact)), true, 1) = (fact, ctx.roll, parts.len()) {
                return (Expr::Roll(*fact), Ty::Int);
            }
            if let Some(i) = self.scope.stats.find(name) {
                self.read(first.span, NameKind::Stat);
                return (Expr::Stat(who, ir::StatId(i)), Ty::Int);
            }
            if let Some(i) = self.scope.derived.find(name) {
                self.read(first.span, NameKind::Derive);
                return (Expr::Derived(who, ir::DerivedId(i)), Ty::Int);
            }
            if let Some(i) = self.scope.pools.find(name) {
                self.read(first.span, NameKind::Pool);
                return (Expr::Pool(who, ir::PoolId(i)), Ty::Int);
            }
            if let Some(i) = self.scope.conditions.find(name) {
                self.read(first.span, NameKind::Condition);
                return (Expr::Condition(who, ir::ConditionId(i)), Ty::Int);
            }
            if name == "initiative" {
                return (Expr::Initiative(who), Ty::Int);
            }
            if name == "last_check" {
                return (Expr::LastCheck(who), Ty::Int);
            }
            if name == "last_critical" {
                return (Expr::LastCritical(who), Ty::Bool);
            }
            if parts.len() == 1 {
                match (name, ctx.pool) {
                    ("round", _) => return (Expr::Builtin(Builtin::Round), Ty::Int),
                    ("own_turn", _) => return (Expr::Builtin(Builtin::OwnTurn), Ty::Bool),
                    ("final_turn", _) => return (Expr::Builtin(Builtin::FinalTurn), Ty::Bool),
                    ("surprise_round", _) => return (Expr::Builtin(Builtin::SurpriseRound), Ty::Bool),
                    ("units", _) => return (Expr::Builtin(Builtin::Units), Ty::Int),
                    ("max", Some(p)) => return (Expr::PoolMax(Who::Owner, p), Ty::Int),
                    ("min", Some(p)) => return (Expr::PoolMin(Who::Owner, p), Ty::Int),
                    _ => {}
                }
            }
            // Chained, not collected: past the suggestion budget nothing is walked.
            let candidates = (self.scope.stats.names())
                .chain(self.scope.derived.names())
                .chain(self.scope.pools.names())
                .chain(BUILTINS.iter().copied())
                .chain(super::degrees::ROLL_FACTS.iter().filter(|_| ctx.roll).map(|(n, _)| *n));
            let mut d = Diagnostic::error(
                Code::UnknownName,
                first.span,
                format!("no stat, derived value or pool named `{name}`"),
            )
            .label("unknown name")
            .suggest(name, candidates);
            if fact.is_some() && parts.len() == 1 {
                d = d.help(format!("`{name}` is a fact of the roll being graded, read only in a level's or a shift's `when` inside `degrees`"));
            } else if (name == "max" || name == "min") && ctx.pool.is_none() {
                d = d.help(format!("bare `{name}` means a pool's own {name} and works only inside a pool; elsewhere write `POOL.{name}`"));
            }
            self.error(d);
            return (Expr::Int(0), Ty::Unknown);
        }
        if rest.len() == 2 {
            let pool = self.pool_ref(first);
            return match self.option_word(&rest[1]) {
                "max" => (Expr::PoolMax(who, pool), Ty::Int),
                "min" => (Expr::PoolMin(who, pool), Ty::Int),
                other => {
                    self.error(
                        Diagnostic::error(Code::UnknownName, rest[1].span, format!("a pool has no `{other}`"))
                            .label("unknown property")
                            .suggest(other, ["max", "min"])
                            .or_help("a pool has `.max` and `.min`"),
                    );
                    (Expr::Int(0), Ty::Unknown)
                }
            };
        }
        self.error(
            Diagnostic::error(Code::UnknownName, span, "this name has too many parts")
                .label("not a value")
                .help("values are written `name`, `who.name`, `pool.max` or `who.pool.max`"),
        );
        (Expr::Int(0), Ty::Unknown)
    }

    /// A declared event (`emit`, `amount(...)`, `emit ... on spend`), or an error.
    pub(crate) fn event_named(&mut self, name: &ast::Ident) -> Option<ir::EventId> {
        if let Some(i) = self.scope.events.find(&name.name) {
            self.read(name.span, NameKind::Event);
            return Some(ir::EventId(i));
        }
        let d = Diagnostic::error(Code::UnknownEvent, name.span, format!("no event named `{}`", name.name))
            .label("unknown event")
            .suggest(&name.name, self.scope.events.names())
            .or_help(format!("declare it: `event {}`", name.name));
        self.error(d);
        None
    }

    pub(crate) fn pool_ref(&mut self, name: &ast::Ident) -> ir::PoolId {
        match self.scope.pools.find(&name.name) {
            Some(i) => {
                self.read(name.span, NameKind::Pool);
                ir::PoolId(i)
            }
            None => {
                let d = Diagnostic::error(Code::UnknownPool, name.span, format!("no pool named `{}`", name.name))
                    .label("unknown pool")
                    .suggest(&name.name, self.scope.pools.names());
                self.error(d);
                ir::PoolId(0)
            }
        }
    }

    pub(crate) fn object_ref(&mut self, name: &ast::Ident) -> ir::ObjectId {
        match self.scope.objects.find(&name.name) {
            Some(i) => {
                self.read(name.span, NameKind::Object);
                ir::ObjectId(i)
            }
            None => {
                let d = Diagnostic::error(Code::UnknownObject, name.span, format!("no object named `{}`", name.name))
                    .label("unknown object")
                    .suggest(&name.name, self.scope.objects.names())
                    .or_help(format!("declare it: `object {}`", name.name));
                self.error(d);
                ir::ObjectId(0)
            }
        }
    }

    pub(crate) fn condition_ref(&mut self, name: &ast::Ident) -> ir::ConditionId {
        match self.scope.conditions.find(&name.name) {
            Some(i) => {
                self.read(name.span, NameKind::Condition);
                ir::ConditionId(i)
            }
            None => {
                let d =
                    Diagnostic::error(Code::UnknownCondition, name.span, format!("no condition named `{}`", name.name))
                        .label("unknown condition")
                        .suggest(&name.name, self.scope.conditions.names())
                        .or_help(format!("declare it: `condition {} {{ ... }}`", name.name));
                self.error(d);
                ir::ConditionId(0)
            }
        }
    }

    /// An action, category, action kind or declared event, in that order.
    /// Warns when a name used for actions (`on NAME`, `limit NAME`, `adjust cost NAME`) names
    /// more than one kind of thing; `chosen` is what it was read as.
    pub(crate) fn warn_ambiguous(&mut self, name: &ast::Ident, chosen: &str) {
        let n = name.name.as_str();
        let mut meanings: Vec<&str> = Vec::new();
        if self.scope.actions.find(n).is_some() {
            meanings.push("an action");
        }
        if self.scope.categories.find(n).is_some() {
            meanings.push("a category");
        }
        if ast::ActionKind::from_word(n).is_some() {
            meanings.push("an action kind");
        }
        if self.scope.events.find(n).is_some() {
            meanings.push("an event");
        }
        if meanings.len() > 1 {
            let d = Diagnostic::warning(
                Code::AmbiguousName,
                name.span,
                format!("`{n}` is both {}; it is read as the {chosen} here", meanings.join(" and ")),
            )
            .label(format!("read as the {chosen}"))
            .help("give them different names, e.g. `category physical_attack`");
            self.error(d);
        }
    }

    pub(crate) fn event_ref(&mut self, name: &ast::Ident) -> ir::EventRef {
        let n = name.name.as_str();
        let chosen = if self.scope.actions.find(n).is_some() {
            "action"
        } else if self.scope.categories.find(n).is_some() {
            "category"
        } else {
            "action kind"
        };
        self.warn_ambiguous(name, chosen);
        if let Some(i) = self.scope.actions.find(n) {
            self.read(name.span, NameKind::Action);
            return ir::EventRef::Action(ir::ActionId(i));
        }
        if let Some(i) = self.scope.categories.find(n) {
            self.read(name.span, NameKind::Category);
            return ir::EventRef::Category(ir::CategoryId(i));
        }
        if let Some(k) = ast::ActionKind::from_word(n) {
            return ir::EventRef::Kind(k);
        }
        if let Some(i) = self.scope.events.find(n) {
            self.read(name.span, NameKind::Event);
            return ir::EventRef::Custom(ir::EventId(i));
        }
        let candidates = (self.scope.actions.names())
            .chain(self.scope.categories.names())
            .chain(self.scope.events.names())
            .chain(ast::ActionKind::ALL.iter().map(|k| k.word()));
        let mut d =
            Diagnostic::error(Code::UnknownEvent, name.span, format!("no action, category, kind or event named `{n}`"))
                .label("unknown event");
        d = match ir::REACH_EVENTS.contains(&n) {
            true => {
                d.help(format!("`{n}` is movement through reach: declare how far everyone threatens, e.g. `reach 1`"))
            }
            false => d.suggest(n, candidates).or_help(format!("declare it if it is new: `event {n}`")),
        };
        self.error(d);
        ir::EventRef::Kind(ast::ActionKind::Action)
    }

    pub(crate) fn event_pattern(&mut self, p: &ast::EventPattern) -> ir::EventPattern {
        if self.answers_timing(p) {
            return self.timing_pattern(p);
        }
        if let Some(arg) = &p.phase {
            self.misplaced(arg.span, "only `phase_start` and `phase_end` name a phase");
        }
        ir::EventPattern {
            event: self.event_ref(&p.event),
            by: p.by.as_ref().map(|w| self.relation(w)),
            against: p.against.as_ref().map(|w| self.relation(w)),
        }
    }

    /// Whether `on NAME` answers a timing: NAME is a timing word that no action, category,
    /// kind or event of the ruleset is named (a declared name is read first, as before timings
    /// could be answered).
    pub(crate) fn answers_timing(&self, p: &ast::EventPattern) -> bool {
        let n = p.event.name.as_str();
        TIMINGS.contains(&n)
            && self.scope.actions.find(n).is_none()
            && self.scope.categories.find(n).is_none()
            && ast::ActionKind::from_word(n).is_none()
            && self.scope.events.find(n).is_none()
    }

    /// `on TIMING [by R]`: the timing as an event, with the misuses a timing cannot carry.
    fn timing_pattern(&mut self, p: &ast::EventPattern) -> ir::EventPattern {
        self.option_word(&p.event);
        let at = ast::Timing { name: p.event.clone(), arg: p.phase.clone(), span: p.event.span };
        let timing = self.timing(&at);
        let name = p.event.name.as_str();
        if timing == ir::Timing::EncounterEnd {
            self.timing_misuse(
                p.event.span,
                "nothing answers `encounter_end`: the encounter is over",
                "write a hook for work at the end: `at encounter_end { ... }`",
            );
        }
        let by = p.by.as_ref().map(|w| self.relation(w));
        if let (Some(w), false) = (&p.by, timing.has_actor()) {
            self.timing_misuse(
                w.span,
                &format!("`{name}` happens to nobody in particular, so it has no `by`"),
                &format!("write `on {name}`; to answer whose turn it is, `on turn_start by {}`", w.name),
            );
        }
        if let Some(w) = &p.against {
            self.relation(w);
            self.timing_misuse(w.span, &format!("`{name}` has no target, so it has no `against`"), "leave it out");
        }
        ir::EventPattern { event: ir::EventRef::Timing(timing), by, against: None }
    }

    /// What only an answer to an event may say (`cancel`, `redirect`, `trigger.amount`): misplaced
    /// outside one, and a misuse in an answer to a timing.
    fn answer_only(&mut self, span: crate::source::Span, ctx: Ctx, timing: &str, misplaced: &str) {
        if ctx.timing {
            self.timing_misuse(span, timing, "leave it out");
        } else if !ctx.event {
            self.misplaced(span, misplaced);
        }
    }

    /// A timing answered in a way a timing cannot be (`tempo::timing-answer`).
    pub(crate) fn timing_misuse(&mut self, span: crate::source::Span, message: &str, help: &str) {
        self.error(
            Diagnostic::error(Code::TimingAnswer, span, message.to_string())
                .label("not meaningful for a timing")
                .help(help.to_string()),
        );
    }

    pub fn timing(&mut self, t: &ast::Timing) -> ir::Timing {
        use ir::Timing::*;
        let name = t.name.name.as_str();
        let phase = |this: &mut Self| -> ir::PhaseId {
            match &t.arg {
                Some(arg) => match this.scope.phases.find(&arg.name) {
                    Some(i) => {
                        this.read(arg.span, NameKind::Phase);
                        ir::PhaseId(i)
                    }
                    None => {
                        let d = Diagnostic::error(
                            Code::UnknownPhase,
                            arg.span,
                            format!("the round has no phase `{}`", arg.name),
                        )
                        .label("unknown phase")
                        .suggest(&arg.name, this.scope.phases.names());
                        this.error(d);
                        ir::PhaseId(0)
                    }
                },
                None => {
                    this.error(
                        Diagnostic::error(Code::UnknownPhase, t.span, format!("`{name}` needs a phase"))
                            .label("which phase?")
                            .help(format!("e.g. `{name}(act)`")),
                    );
                    ir::PhaseId(0)
                }
            }
        };
        let timing = match name {
            "encounter_start" => EncounterStart,
            "encounter_end" => EncounterEnd,
            "round_start" => RoundStart,
            "round_end" => RoundEnd,
            "turn_start" => TurnStart,
            "turn_end" => TurnEnd,
            "phase_start" => return PhaseStart(phase(self)),
            "phase_end" => return PhaseEnd(phase(self)),
            _ => {
                let d = Diagnostic::error(Code::UnknownTiming, t.name.span, format!("`{name}` is not a timing"))
                    .label("unknown timing")
                    .suggest(name, TIMINGS.iter().copied())
                    .or_help(format!("timings: {}", TIMINGS.join(", ")));
                self.error(d);
                return TurnStart;
            }
        };
        if let Some(arg) = &t.arg {
            self.misplaced(arg.span, "only `phase_start` and `phase_end` name a phase");
        }
        timing
    }

    pub fn guard(&mut self, g: &Option<ast::Guard>, ctx: Ctx) -> Option<Expr> {
        g.as_ref().map(|g| {
            let c = self.cond(&g.cond, ctx);
            if g.negated {
                Expr::Not(Box::new(c))
            } else {
                c
            }
        })
    }

    pub fn duration(&mut self, d: &ast::Duration, ctx: Ctx) -> ir::Duration {
        match d {
            ast::Duration::Until(t) if t.arg.is_some() && matches!(t.name.name.as_str(), "turn_start" | "turn_end") => {
                if let Some(arg) = t.arg.as_ref().filter(|a| a.name != "source") {
                    self.error(
                        Diagnostic::error(
                            Code::UnknownTiming,
                            arg.span,
                            format!("`{}({})` is not a duration", t.name.name, arg.name),
                        )
                        .label("only `source` goes here")
                        .help(format!(
                            "`until {}(source)` counts the turns of whoever applied the condition; `until {}` counts the holder's",
                            t.name.name, t.name.name
                        )),
                    );
                }
                ir::Duration::UntilSource { end: t.name.name == "turn_end" }
            }
            ast::Duration::Until(t) => ir::Duration::Until(self.timing(t)),
            ast::Duration::Rounds(e) => ir::Duration::Rounds(self.count(e, ctx, 1, "a duration in rounds")),
            ast::Duration::While(e) => ir::Duration::While(self.cond(e, Ctx { source: true, ..ctx })),
            ast::Duration::Maintained(_) => ir::Duration::Maintained,
        }
    }

    /// An action's own `cost` clause: its pool terms, and what it pays in initiative
    /// (`cost 1 ap + 10 initiative`), the terms of that added up.
    pub fn action_costs(&mut self, terms: &ast::CostTerms, ctx: Ctx) -> (Vec<ir::Cost>, Option<Expr>) {
        let mut initiative: Option<Expr> = None;
        for t in terms.terms.iter() {
            if !self.pays_initiative(t) {
                continue;
            }
            let amount = self.int(&t.amount, ctx);
            initiative = Some(match initiative {
                None => amount,
                Some(before) => Expr::Binary(ir::BinOp::Add, Box::new(before), Box::new(amount)),
            });
        }
        let pools = ast::CostTerms {
            terms: terms.terms.iter().filter(|t| !self.pays_initiative(t)).cloned().collect(),
            ..terms.clone()
        };
        (self.costs(&pools, ctx), initiative)
    }

    /// A cost term naming `initiative` where no pool has that name.
    fn pays_initiative(&self, t: &ast::CostTerm) -> bool {
        t.pool.name == "initiative" && self.scope.pools.find("initiative").is_none()
    }

    pub fn costs(&mut self, terms: &ast::CostTerms, ctx: Ctx) -> Vec<ir::Cost> {
        for t in terms.terms.iter() {
            if !self.pays_initiative(t) {
                continue;
            }
            self.misplaced(
                t.pool.span,
                "initiative is paid only in an action's or reaction's own `cost` clause (`cost 1 ap + 10 initiative`)",
            );
        }
        let pools: Vec<&ast::CostTerm> = terms.terms.iter().filter(|t| !self.pays_initiative(t)).collect();
        pools
            .into_iter()
            .map(|t| ir::Cost {
                amount: self.int(&t.amount, ctx),
                pool: self.pool_ref(&t.pool),
                per: t.per.as_ref().map(|(n, unit)| {
                    let u = match self.option_word(unit) {
                        "unit" | "units" => ir::Unit::Unit,
                        "zone" | "zones" => ir::Unit::Zone,
                        _ => {
                            self.unknown_option(unit, "unit of movement", &["unit", "units", "zone", "zones"]);
                            ir::Unit::Unit
                        }
                    };
                    (*n, u)
                }),
            })
            .collect()
    }

    /// A block: a rule's body, or a block inside one (an `if`'s, a `check` outcome's, a
    /// `choose` option's, a loop's body). What a block inside emits may not have run after it;
    /// what a rule's body emits is nothing to the next rule.
    pub fn block(&mut self, b: &ast::Block, ctx: Ctx) -> Vec<ir::Effect> {
        let mark = if self.block_depth == 0 { 0 } else { self.emitted.len() };
        self.block_depth += 1;
        let out = self.block_with_rolls(b, ctx);
        self.block_depth -= 1;
        self.emitted.truncate(mark);
        out
    }

    /// `do NAME`: the named effect's statements, lowered here as if written here (so `target`,
    /// `actor` and the rest mean what they mean at this place).
    pub(super) fn expand(&mut self, name: &ast::Ident, ctx: Ctx) -> Vec<ir::Effect> {
        let Some(i) = self.effects.iter().position(|(n, _, _)| *n == name.name) else {
            let names: Vec<String> = self.effects.iter().map(|(n, _, _)| n.clone()).collect();
            self.error(
                Diagnostic::error(Code::UnknownEffect, name.span, format!("there is no effect `{}`", name.name))
                    .label("not a declared effect")
                    .suggest(&name.name, names.iter().map(String::as_str))
                    .or_help(format!("declare it: `effect {} {{ ... }}`", name.name)),
            );
            return Vec::new();
        };
        self.read(name.span, NameKind::Effect);
        if let Some(at) = self.expanding.iter().position(|e| *e == i) {
            let chain: Vec<&str> =
                self.expanding[at..].iter().chain([&i]).map(|e| self.effects[*e].0.as_str()).collect();
            let message = format!("effects use each other in a circle: {}", chain.join(" → "));
            let declared = self.effects[i].2;
            self.error(
                Diagnostic::error(Code::EffectCycle, name.span, message)
                    .label("used again inside itself")
                    .with_secondary(declared, "declared here")
                    .help("an effect cannot run itself; write the repeated part as a `repeat while` loop"),
            );
            return Vec::new();
        }
        if let Some(used) = self.used_effects.get_mut(i) {
            *used = true;
        }
        let body = self.effects[i].1.clone();
        self.expanding.push(i);
        // Spliced in where it is named: what it surely emits, the rule surely emitted.
        self.block_depth += 1;
        let out = self.block_with_rolls(&body, ctx);
        self.block_depth -= 1;
        self.expanding.pop();
        out
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt, ctx: Ctx) -> ir::Effect {
        use ir::Effect as E;
        match s {
            // Lowered by `block`, which gives it the counts read after it: never reached.
            ast::Stmt::Roll { .. } => E::If { cond: Expr::Bool(false), then: Vec::new(), otherwise: Vec::new() },
            // `block` splices a `do` in; anywhere else its effects go in an `if true`.
            ast::Stmt::Do(name) => {
                E::If { cond: Expr::Bool(true), then: self.expand(name, ctx), otherwise: Vec::new() }
            }
            ast::Stmt::Assign { target, op, value, .. } => self.assign(target, *op, value, ctx),
            ast::Stmt::If { cond, then, otherwise, .. } => E::If {
                cond: self.cond(cond, ctx),
                then: self.block(then, ctx),
                otherwise: otherwise.as_ref().map(|b| self.block(b, ctx)).unwrap_or_default(),
            },
            ast::Stmt::Repeat { cond, body, .. } => {
                E::Repeat { cond: self.cond(cond, ctx), body: self.block(body, ctx) }
            }
            ast::Stmt::Each { relation, within, filter, body, .. } => {
                self.each(relation, within.as_ref(), filter.as_ref(), body, ctx)
            }
            ast::Stmt::Apply { condition, magnitude, to, duration, .. } => E::Apply {
                who: to.as_ref().map(|w| self.who_word(w, ctx)).unwrap_or(Who::Owner),
                condition: self.condition_ref(condition),
                magnitude: magnitude.as_ref().map(|m| self.int(m, ctx)),
                duration: duration.as_deref().map(|d| self.duration(d, ctx)),
            },
            ast::Stmt::Remove { condition, from, .. } => E::Remove {
                who: from.as_ref().map(|w| self.who_word(w, ctx)).unwrap_or(Who::Owner),
                condition: self.condition_ref(condition),
            },
            ast::Stmt::EmitWith(name, amount) => self.emit_with(name, amount, ctx),
            ast::Stmt::Emit(name) => self.event_named(name).map_or(E::Cancel, E::Emit),
            ast::Stmt::Choose { chooser, question, options, span } => {
                let chooser = match self.option_word(chooser) {
                    "owner" | "self" => ir::Chooser::Owner,
                    "target" => {
                        self.who_word(chooser, ctx);
                        ir::Chooser::Target
                    }
                    "gm" => ir::Chooser::Gm,
                    _ => {
                        self.unknown_option(chooser, "chooser", &["owner", "target", "gm"]);
                        ir::Chooser::Owner
                    }
                };
                let mut seen: Vec<&ast::Ident> = Vec::new();
                let mut out = Vec::new();
                for (name, block) in options {
                    if let Some(first) = seen.iter().find(|n| n.name == name.name) {
                        self.twice(format!("option `{}` is given twice", name.name), name.span, first.span, None);
                    }
                    seen.push(name);
                    out.push(ir::ChoiceOption { name: name.name.to_string(), effects: self.block(block, ctx) });
                }
                E::Choose {
                    chooser,
                    question: question.clone().unwrap_or_else(|| "choose".to_string()),
                    options: out,
                    loc: self.loc(*span),
                }
            }
            ast::Stmt::Check { roll, against, degrees, outcomes, .. } => {
                let by = match degrees {
                    Some(d) => Some(self.degrees_ref(&d.name)),
                    None => self.default_degrees.map(Some),
                };
                if let Some(by) = by {
                    let (roll, against) = (self.int(roll, ctx), self.int(against, ctx));
                    let Some(id) = by else {
                        // Unknown degrees, reported: the blocks are still checked.
                        for (_, block) in outcomes {
                            self.block(block, ctx);
                        }
                        return E::Check { roll, against, outcomes: ir::Outcomes::default() };
                    };
                    let graded = self.graded_check(id, degrees.as_deref(), &against, outcomes, ctx);
                    let outcomes = ir::Outcomes { graded: Some(Box::new(graded)), ..ir::Outcomes::default() };
                    return E::Check { roll, against, outcomes };
                }
                let mut o = ir::Outcomes::default();
                for (name, block) in outcomes {
                    let effects = self.block(block, ctx);
                    match self.option_word(name) {
                        "success" => o.success = effects,
                        "failure" => o.failure = effects,
                        "critical" => o.critical = Some(effects),
                        "fumble" => o.fumble = Some(effects),
                        _ => self.unknown_option(name, "check outcome", &["success", "failure", "critical", "fumble"]),
                    }
                }
                E::Check { roll: self.int(roll, ctx), against: self.int(against, ctx), outcomes: o }
            }
            ast::Stmt::Move(e, _) => E::Move(self.int(e, ctx)),
            ast::Stmt::MoveAway(e, _) => E::MoveAway(self.int(e, ctx)),
            ast::Stmt::MoveThrough(e, _) => E::MoveThrough(self.int(e, ctx)),
            ast::Stmt::Push { who, distance, .. } => {
                E::Push { who: self.who_word(who, ctx), distance: self.int(distance, ctx) }
            }
            ast::Stmt::Pay(terms) => {
                if !ctx.maintain {
                    self.misplaced(
                        terms.span,
                        "`pay` belongs in a condition's `maintain` block, where failing to pay ends it",
                    );
                }
                E::Pay(self.costs(terms, ctx))
            }
            ast::Stmt::Follow(who) => E::Follow(self.who_word(who, ctx)),
            ast::Stmt::Swap(who) => E::Swap(self.who_word(who, ctx)),
            ast::Stmt::Draw { count, from, to, span } => self.draw(count, from, to, *span, ctx),
            ast::Stmt::MoveItems { pick, from, to, span } => self.move_items(pick, from, to, *span, ctx),
            ast::Stmt::MoveLeaping { way, amount, leap, .. } => {
                E::MoveLeaping { way: *way, amount: self.int(amount, ctx), leap: self.int(leap, ctx) }
            }
            ast::Stmt::Take { kind, from, within, .. } => E::Take {
                kind: self.object_ref(kind),
                from: from.as_ref().map(|w| self.who_word(w, ctx)),
                within: within.as_ref().map(|x| self.int(x, ctx)),
            },
            ast::Stmt::Handle { kind, within, .. } => {
                E::Handle { kind: self.object_ref(kind), within: within.as_ref().map(|x| self.int(x, ctx)) }
            }
            ast::Stmt::Drop { kind, from, toward, distance, .. } => E::Drop {
                kind: self.object_ref(kind),
                from: from.as_ref().map(|w| self.who_word(w, ctx)).unwrap_or(Who::Owner),
                toward: *toward,
                distance: distance.as_ref().map(|x| self.int(x, ctx)),
            },
            ast::Stmt::Redirect(span) => {
                let misplaced = "`redirect` turns the event a reaction or trigger answers onto the one answering; there is none here";
                self.answer_only(*span, ctx, "`redirect`: a timing has no target to turn", misplaced);
                E::Redirect
            }
            ast::Stmt::EndTurn(_) => E::EndTurn,
            ast::Stmt::EndEncounter(_) => E::EndEncounter,
            ast::Stmt::Cancel(span) => {
                let misplaced = "`cancel` stops the event a reaction or trigger answers; there is none here";
                self.answer_only(*span, ctx, "`cancel`: a timing cannot be cancelled", misplaced);
                E::Cancel
            }
            ast::Stmt::RollInitiative(_) => E::RollInitiative,
            ast::Stmt::ClearConditions(_) => E::ClearConditions,
        }
    }

    /// `emit EVENT(AMOUNT)`: from here on the rule surely emitted it (`amount_read`).
    fn emit_with(&mut self, name: &ast::Ident, amount: &ast::Expr, ctx: Ctx) -> ir::Effect {
        let amount = self.int(amount, ctx);
        let event = self.event_named(name);
        if let Some(e) = event {
            self.emitted.push(e);
        }
        event.map_or(ir::Effect::Cancel, |e| ir::Effect::EmitWith(e, amount))
    }

    /// `amount(EVENT)` read where this rule may not have emitted `EVENT`: a warning, for it
    /// then reads 0, or what another rule of the same cascade emitted.
    fn amount_read(&mut self, e: ir::EventId, span: crate::source::Span) {
        if self.emitted.contains(&e) {
            return;
        }
        let name = self.scope.events.names().nth(e.index()).unwrap_or_default().to_string();
        self.diagnostics.push(
            Diagnostic::warning(
                Code::AmountNotEmitted,
                span,
                format!("`amount({name})` is read where this rule may not have emitted `{name}`"),
            )
            .label(format!("0 when this cascade did not emit `{name}`"))
            .help(format!(
                "read it after an `emit {name}(...)` that always runs before it, in the same block; an answer to `{name}` reads `trigger.amount`"
            )),
        );
    }

    fn assign(&mut self, target: &ast::Path, op: AssignOp, value: &ast::Expr, ctx: Ctx) -> ir::Effect {
        let value = self.int(value, ctx);
        let parts = &target.parts;
        if let [who, amount] = parts.as_slice() {
            if who.name == "trigger" && amount.name == "amount" {
                self.option_word(who);
                self.option_word(amount);
                if ctx.timing {
                    self.timing_misuse(target.span, "`trigger.amount`: a timing has no amount", "leave it out");
                } else if !ctx.event {
                    self.misplaced(
                        target.span,
                        "`trigger.amount` is the amount of the event a reaction or trigger answers; there is none here",
                    );
                }
                return ir::Effect::Amount { op, value };
            }
        }
        if let [side, name] = parts.as_slice() {
            if side.name == ENEMY_SIDE {
                self.option_word(side);
                return match self.enemy_side_pool(name) {
                    Some(pool) => ir::Effect::Pool { who: Who::EnemySide, pool, op, value },
                    None => ir::Effect::Cancel,
                };
            }
        }
        let (who, name) = match parts.as_slice() {
            [name] => (Who::Owner, name),
            [who, name] => (self.who_word(who, ctx), name),
            _ => {
                self.error(
                    Diagnostic::error(Code::UnknownPool, target.span, "only a pool or initiative can be changed")
                        .label("not a pool")
                        .help("write `pool -= n` or `who.pool -= n`"),
                );
                return ir::Effect::Cancel;
            }
        };
        if name.name == "initiative" {
            return ir::Effect::Initiative { who, op, value };
        }
        if self.scope.stats.find(&name.name).is_some() || self.scope.derived.find(&name.name).is_some() {
            self.error(
                Diagnostic::error(
                    Code::UnknownPool,
                    name.span,
                    format!("`{}` is a stat, and stats do not change during play", name.name),
                )
                .label("not a pool")
                .help("make it a pool if it changes, or a derived value that reads a pool"),
            );
            return ir::Effect::Cancel;
        }
        let pool = self.pool_ref(name);
        ir::Effect::Pool { who, pool, op, value }
    }
}

/// The value of an expression made only of numbers (no stats, dice or state), or `None` when it
/// is not one or its arithmetic fails (overflow, division by zero): the checker reports those
/// instead of letting the run fail on them.
pub(super) fn literal(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int(n) => Some(*n),
        Expr::Neg(x) => literal(x)?.checked_neg(),
        Expr::Binary(op, a, b) => crate::ir::checked(*op, literal(a)?, literal(b)?),
        _ => None,
    }
}
