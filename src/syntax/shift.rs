//! Moving a tree's spans by a number of bytes: the items after an edit keep their trees, and
//! only their places in the text change (see `parser::parse_after_edit`).
//!
//! Every span of every node must move. A node type added to `ast` without a `Shift` here does not
//! compile where it is used; a span field forgotten inside an impl is caught by the test that
//! compares an edited parse with a whole one (`tests/reparse.rs`).

use super::ast::*;
use crate::source::Span;

pub(crate) trait Shift {
    fn shift(&mut self, by: i64);
}

impl Shift for Span {
    fn shift(&mut self, by: i64) {
        let moved = |at: u32| u32::try_from(i64::from(at) + by).unwrap_or(at);
        self.start = moved(self.start);
        self.end = moved(self.end);
    }
}

impl<T: Shift> Shift for Option<T> {
    fn shift(&mut self, by: i64) {
        if let Some(x) = self {
            x.shift(by);
        }
    }
}

impl<T: Shift> Shift for Vec<T> {
    fn shift(&mut self, by: i64) {
        for x in self {
            x.shift(by);
        }
    }
}

impl<T: Shift> Shift for Box<T> {
    fn shift(&mut self, by: i64) {
        (**self).shift(by);
    }
}

impl<A: Shift, B: Shift> Shift for (A, B) {
    fn shift(&mut self, by: i64) {
        self.0.shift(by);
        self.1.shift(by);
    }
}

/// Words and numbers have no span of their own.
macro_rules! spanless {
    ($($t:ty),*) => { $(impl Shift for $t { fn shift(&mut self, _: i64) {} })* };
}
spanless!(String, bool, u32, ActionKind, Period, DeclKind, AssignOp, BinOp, CmpOp, Way);

/// Calls `shift` on each listed field of a struct.
macro_rules! fields {
    ($t:ty { $($f:ident),* }) => {
        impl Shift for $t {
            fn shift(&mut self, by: i64) {
                $(self.$f.shift(by);)*
            }
        }
    };
}
fields!(Ident { span });
fields!(Comment { span });
fields!(Item { decl, span });
fields!(Pool { name, clauses });
fields!(Cap { amount });
fields!(Guard { cond });
fields!(Timing { name, arg, span });
fields!(Condition { name, clauses });
fields!(Phase { name, guard, kind, takes, again, hidden, picks, must, span });
fields!(Limit { subject, except, amount, guard });
fields!(LimitAmount { amount, pool, span });
fields!(Action { name, clauses });
fields!(CostTerms { terms, span });
fields!(CostTerm { amount, pool, per });
fields!(EventPattern { event, phase, by, against, span });
fields!(Hook { name, at, guard, body });
fields!(Block { stmts, span });
fields!(Path { parts, span });
fields!(Expr { kind, span });
fields!(Degrees { name, levels, shifts });
fields!(DegreeLevel { name, side, when });
fields!(DegreeShift { when, span });
fields!(CheckDegrees { name, shifts });
fields!(Terrain { name, slows, blocks });
fields!(ItemSet { name, kinds });
fields!(ItemKindDecl { name, times, value });
fields!(PileDecl { name, of, shared, per_side });
fields!(PileRef { who, pile });

impl Shift for PilePick {
    fn shift(&mut self, by: i64) {
        match self {
            PilePick::Kind(kind) => kind.shift(by),
            PilePick::Random(n) => n.shift(by),
            PilePick::All | PilePick::Extreme(_) => {}
        }
    }
}

impl Shift for Decl {
    fn shift(&mut self, by: i64) {
        match self {
            Decl::Title(_) => {}
            Decl::Stat { name, default: value } | Decl::Derive { name, value } => {
                name.shift(by);
                value.shift(by);
            }
            Decl::Category { name, .. } | Decl::Event { name, .. } | Decl::Object { name, .. } => name.shift(by),
            Decl::Die { name, faces, .. } => {
                name.shift(by);
                for symbol in faces.iter_mut().flatten() {
                    symbol.shift(by);
                }
            }
            Decl::Terrain(t) => t.shift(by),
            Decl::Items(set) => set.shift(by),
            Decl::Pile(pile) => pile.shift(by),
            Decl::Pool(p) => p.shift(by),
            Decl::Condition(c) => c.shift(by),
            Decl::Initiative(clauses) => clauses.shift(by),
            Decl::Round(phases) => phases.shift(by),
            Decl::Priority(names) | Decl::StateOrder(names) => names.shift(by),
            Decl::Chains { order, depth } => {
                order.shift(by);
                depth.shift(by);
            }
            Decl::Limit(l) => l.shift(by),
            Decl::DefaultCost(c) => c.shift(by),
            Decl::Degrees(d) => d.shift(by),
            Decl::DefaultDegrees(name) => name.shift(by),
            Decl::Reach(e) => e.shift(by),
            Decl::Action(a) | Decl::Trigger(a) => a.shift(by),
            Decl::Hook(h) => h.shift(by),
            Decl::Space { kind, zones } => {
                kind.shift(by);
                zones.shift(by);
            }
            Decl::Surprise(name) => name.shift(by),
            Decl::Downtime { name, every, body } => {
                name.shift(by);
                every.shift(by);
                body.shift(by);
            }
            Decl::Rest { name, hours, minutes, body, .. } => {
                name.shift(by);
                hours.shift(by);
                minutes.shift(by);
                body.shift(by);
            }
            Decl::Outro { name, body, .. } => {
                name.shift(by);
                body.shift(by);
            }
            Decl::Sequence { timing, steps } => {
                timing.shift(by);
                steps.shift(by);
            }
            Decl::Remove { name, .. } => name.shift(by),
            Decl::Effect { name, body } => {
                name.shift(by);
                body.shift(by);
            }
            Decl::CostAdjust { subject, except, op, when } => {
                subject.shift(by);
                except.shift(by);
                op.shift(by);
                when.shift(by);
            }
        }
    }
}

impl Shift for CostAdjustOp {
    fn shift(&mut self, by: i64) {
        match self {
            CostAdjustOp::Scale(e) => e.shift(by),
            CostAdjustOp::Add(c) => c.shift(by),
        }
    }
}

impl Shift for PoolClause {
    fn shift(&mut self, by: i64) {
        match self {
            PoolClause::Max(e, span) => {
                e.shift(by);
                span.shift(by);
            }
            PoolClause::Rising(span) | PoolClause::Shared(span) | PoolClause::PerSide(span) => span.shift(by),
            PoolClause::SpendEvent(name, span) => {
                name.shift(by);
                span.shift(by);
            }
            PoolClause::Min(e, span) | PoolClause::Start(e, span) => {
                e.shift(by);
                span.shift(by);
            }
            PoolClause::Refresh { at, guard, span } | PoolClause::Lose { at, guard, span } => {
                at.shift(by);
                guard.shift(by);
                span.shift(by);
            }
            PoolClause::Keep { at, span } => {
                at.shift(by);
                span.shift(by);
            }
            PoolClause::Decay { amount, at, guard, span } => {
                amount.shift(by);
                at.shift(by);
                guard.shift(by);
                span.shift(by);
            }
            PoolClause::Convert { into, at, guard, span } => {
                into.shift(by);
                at.shift(by);
                guard.shift(by);
                span.shift(by);
            }
            PoolClause::Gain { amount, when, guard, cap, span } => {
                amount.shift(by);
                when.shift(by);
                guard.shift(by);
                cap.shift(by);
                span.shift(by);
            }
            PoolClause::Overspend { floor, price, span } => {
                floor.shift(by);
                price.shift(by);
                span.shift(by);
            }
            PoolClause::Threshold { value, body, span, .. } => {
                value.shift(by);
                body.shift(by);
                span.shift(by);
            }
        }
    }
}

impl Shift for GainWhen {
    fn shift(&mut self, by: i64) {
        match self {
            GainWhen::At(t) => t.shift(by),
            GainWhen::On(e) => e.shift(by),
        }
    }
}

impl Shift for ConditionClause {
    fn shift(&mut self, by: i64) {
        match self {
            ConditionClause::Blocks(blocked, span) => {
                blocked.shift(by);
                span.shift(by);
            }
            ConditionClause::Implies(names, span) => {
                names.shift(by);
                span.shift(by);
            }
            ConditionClause::Lasts(d, span) => {
                d.shift(by);
                span.shift(by);
            }
            ConditionClause::Polarity { span, .. } => span.shift(by),
            ConditionClause::Maintain { at, optional, body, span } => {
                at.shift(by);
                optional.shift(by);
                body.shift(by);
                span.shift(by);
            }
            ConditionClause::Hook { at, body, span } => {
                at.shift(by);
                body.shift(by);
                span.shift(by);
            }
            ConditionClause::Modify { against, by: amount, with, on, span } => {
                against.shift(by);
                amount.shift(by);
                with.shift(by);
                on.shift(by);
                span.shift(by);
            }
        }
    }
}

impl Shift for Blocked {
    fn shift(&mut self, by: i64) {
        match self {
            Blocked::Thing(name) | Blocked::Spend(name) => name.shift(by),
        }
    }
}

impl Shift for Duration {
    fn shift(&mut self, by: i64) {
        match self {
            Duration::Until(t) => t.shift(by),
            Duration::Rounds(e) | Duration::While(e) => e.shift(by),
            Duration::Maintained(span) => span.shift(by),
        }
    }
}

impl Shift for InitiativeClause {
    fn shift(&mut self, by: i64) {
        match self {
            InitiativeClause::Value(e, _, span) | InitiativeClause::Adjust(e, span) => {
                e.shift(by);
                span.shift(by);
            }
            InitiativeClause::Made(t, span) => {
                t.shift(by);
                span.shift(by);
            }
            InitiativeClause::Range(low, high, span) => {
                low.shift(by);
                high.shift(by);
                span.shift(by);
            }
            InitiativeClause::Order(name, span)
            | InitiativeClause::Reorder(name, span)
            | InitiativeClause::Slots(name, span) => {
                name.shift(by);
                span.shift(by);
            }
            InitiativeClause::Ties(ties, span) => {
                ties.shift(by);
                span.shift(by);
            }
            InitiativeClause::Allow(names, span) => {
                names.shift(by);
                span.shift(by);
            }
        }
    }
}

impl Shift for TieBreak {
    fn shift(&mut self, by: i64) {
        match self {
            TieBreak::Higher(name) | TieBreak::Lower(name) | TieBreak::Named(name) => name.shift(by),
            TieBreak::Roll(e) | TieBreak::RollUntilDifferent(e) => e.shift(by),
        }
    }
}

impl Shift for PhaseKind {
    fn shift(&mut self, by: i64) {
        match self {
            PhaseKind::Turns | PhaseKind::Simultaneous(_) => {}
            PhaseKind::Step(body) => body.shift(by),
        }
    }
}

impl Shift for ActionClause {
    fn shift(&mut self, by: i64) {
        match self {
            ActionClause::Cost { terms, when, span } => {
                terms.shift(by);
                when.shift(by);
                span.shift(by);
            }
            ActionClause::Partner(terms, span) => {
                terms.shift(by);
                span.shift(by);
            }
            ActionClause::Category(names, span) => {
                names.shift(by);
                span.shift(by);
            }
            ActionClause::Limit(l) => l.shift(by),
            ActionClause::Target { who, within, span } => {
                who.shift(by);
                within.shift(by);
                span.shift(by);
            }
            ActionClause::Requires(e, span) | ActionClause::Rounds(e, span) => {
                e.shift(by);
                span.shift(by);
            }
            ActionClause::On(e) => e.shift(by),
            ActionClause::Partners { count, within, span } => {
                count.shift(by);
                within.shift(by);
                span.shift(by);
            }
            ActionClause::Interrupted { when, then, span } => {
                when.shift(by);
                then.shift(by);
                span.shift(by);
            }
            ActionClause::Interrupts(span) | ActionClause::EndsTurn(span) => span.shift(by),
            ActionClause::Grants(g) => {
                for (pool, e) in &mut g.budget {
                    pool.shift(by);
                    e.shift(by);
                }
                for l in &mut g.limits {
                    l.amount.shift(by);
                    l.span.shift(by);
                }
                g.span.shift(by);
            }
            ActionClause::Resolve(body) => body.shift(by),
        }
    }
}

impl Shift for Stmt {
    fn shift(&mut self, by: i64) {
        match self {
            Stmt::If { cond, then, otherwise, span } => {
                cond.shift(by);
                then.shift(by);
                otherwise.shift(by);
                span.shift(by);
            }
            Stmt::Repeat { cond, body, span } => {
                cond.shift(by);
                body.shift(by);
                span.shift(by);
            }
            Stmt::Each { relation, within, filter, body, span } => {
                relation.shift(by);
                within.shift(by);
                filter.shift(by);
                body.shift(by);
                span.shift(by);
            }
            Stmt::Apply { condition, magnitude, to, duration, span } => {
                condition.shift(by);
                magnitude.shift(by);
                to.shift(by);
                duration.shift(by);
                span.shift(by);
            }
            Stmt::Remove { condition, from, span } => {
                condition.shift(by);
                from.shift(by);
                span.shift(by);
            }
            Stmt::Emit(name) | Stmt::Follow(name) | Stmt::Swap(name) | Stmt::Do(name) => name.shift(by),
            Stmt::EmitWith(name, amount) => {
                name.shift(by);
                amount.shift(by);
            }
            Stmt::Choose { chooser, options, span, .. } => {
                chooser.shift(by);
                options.shift(by);
                span.shift(by);
            }
            Stmt::Check { roll, against, degrees, outcomes, span } => {
                roll.shift(by);
                against.shift(by);
                degrees.shift(by);
                outcomes.shift(by);
                span.shift(by);
            }
            Stmt::Move(e, span) | Stmt::MoveAway(e, span) | Stmt::MoveThrough(e, span) => {
                e.shift(by);
                span.shift(by);
            }
            Stmt::Push { who, distance, span } => {
                who.shift(by);
                distance.shift(by);
                span.shift(by);
            }
            Stmt::Pay(terms) => terms.shift(by),
            Stmt::MoveLeaping { amount, leap, span, .. } => {
                amount.shift(by);
                leap.shift(by);
                span.shift(by);
            }
            Stmt::Draw { count, from, to, span } => {
                count.shift(by);
                from.shift(by);
                to.shift(by);
                span.shift(by);
            }
            Stmt::MoveItems { pick, from, to, span } => {
                pick.shift(by);
                from.shift(by);
                to.shift(by);
                span.shift(by);
            }
            Stmt::Take { kind, from, within, span } => {
                kind.shift(by);
                from.shift(by);
                within.shift(by);
                span.shift(by);
            }
            Stmt::Handle { kind, within, span } => {
                kind.shift(by);
                within.shift(by);
                span.shift(by);
            }
            Stmt::Drop { kind, from, distance, span, .. } => {
                kind.shift(by);
                from.shift(by);
                distance.shift(by);
                span.shift(by);
            }
            Stmt::EndTurn(span)
            | Stmt::EndEncounter(span)
            | Stmt::Cancel(span)
            | Stmt::Redirect(span)
            | Stmt::RollInitiative(span)
            | Stmt::ClearConditions(span) => span.shift(by),
            Stmt::Roll { name, dice, span } => {
                name.shift(by);
                dice.shift(by);
                span.shift(by);
            }
            Stmt::Assign { target, value, span, .. } => {
                target.shift(by);
                value.shift(by);
                span.shift(by);
            }
        }
    }
}

impl Shift for ExprKind {
    fn shift(&mut self, by: i64) {
        match self {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Dice { .. } => {}
            ExprKind::Path(p) => p.shift(by),
            ExprKind::Name(n) => n.shift(by),
            ExprKind::Call { func, args } => {
                func.shift(by);
                args.shift(by);
            }
            ExprKind::Neg(x) | ExprKind::Not(x) => x.shift(by),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } => {
                lhs.shift(by);
                rhs.shift(by);
            }
            ExprKind::Has { who, condition, by: holder } => {
                who.shift(by);
                condition.shift(by);
                holder.shift(by);
            }
            ExprKind::Is { who, relation } | ExprKind::Holds { who, kind: relation } => {
                who.shift(by);
                relation.shift(by);
            }
        }
    }
}
