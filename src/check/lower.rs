//! Lowering merged declarations to the IR, one function per declaration kind.

use super::merge::Entry;
use super::scope::Scope;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, Expr, Who};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{self, ActionClause, ActionKind, ConditionClause, Decl, InitiativeClause, PoolClause};

pub(crate) struct Lowerer<'a> {
    pub scope: &'a Scope,
    /// The named `effect` blocks, for `do NAME`: name, body, where the name is written.
    pub effects: Vec<(String, ast::Block, crate::source::Span)>,
    /// The effects being expanded, innermost last: one that names itself again is a cycle.
    pub(crate) expanding: Vec<usize>,
    /// Which effects some `do` named.
    pub(crate) used_effects: Vec<bool>,
    /// The declared degrees' levels (name, success), for the outcomes of checks graded by them.
    pub levels: Vec<Vec<(String, bool)>>,
    /// `default degrees NAME`.
    pub(crate) default_degrees: Option<ir::DegreesId>,
    /// Where spans become the IR's locations (`ir::Loc`).
    pub sources: &'a SourceMap,
    pub diagnostics: Vec<Diagnostic>,
    /// Where a word was read as one of the language's own (`blocks actions`, `order
    /// highest_first`, `is enemy`, `self`), never as a name: editors do not rename or list these.
    pub option_words: Vec<crate::source::Span>,
    /// Where a declared name was read, and as what (`Compilation::names_read`).
    pub names_read: Vec<(crate::source::Span, super::NameKind)>,
    /// The sets of items and piles declared, for what names them.
    pub(crate) piles: super::piles::known::KnownPiles,
    /// Named rolls and dice with custom faces.
    pub(crate) rolls: super::rolled::Rolls,
    /// The events the rule being lowered surely emitted with an amount before the statement
    /// being lowered (emits in a block that may not run are dropped at its end), for the
    /// `amount(EVENT)` reads it makes (`tempo::amount-not-emitted`).
    pub(crate) emitted: Vec<ir::EventId>,
    /// How many blocks are open: a rule's own body is the outermost.
    pub(crate) block_depth: u32,
    /// Per pool (in the scope's order): kept `per side`, for `enemy_side.NAME` (sides.rs).
    pub(crate) per_side_pools: Vec<bool>,
    /// Per pool (by index): declared `shared`.
    pub(crate) shared_pools: Vec<bool>,
}

/// What an expression or effect may refer to where it is written.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ctx {
    /// Inside a pool: bare `max` and `min` mean this pool's.
    pub pool: Option<ir::PoolId>,
    /// `target` means an action's target.
    pub target: bool,
    /// `actor` and `trigger` mean the event being answered.
    pub event: bool,
    /// The event answered is a timing (`on turn_end`): no victim, no amount, never cancelled.
    pub timing: bool,
    /// ... and one that nobody does (`on round_start`): no `actor` either.
    pub no_actor: bool,
    /// `pay` is allowed (inside `maintain`).
    pub maintain: bool,
    /// `source` means who applied the condition (inside a condition, and `while` durations).
    pub source: bool,
    /// `total`, `natural`, `modifier` and `margin` mean the roll being graded (inside `degrees`).
    pub roll: bool,
    /// Inside a `for each` loop (the span of its relation word): another loop here is refused.
    pub each: Option<crate::source::Span>,
}

/// The default order of work at the start and end of a turn (see `sequence`).
/// The words of `initiative { order WORD }`, as completion offers them.
pub const ORDER_WORDS: &[&str] = &["highest_first", "lowest_first", "by_side", "table", "alternating", "drawn"];

const TURN_START: [ir::TurnStep; 6] = [
    ir::TurnStep::Pools,
    ir::TurnStep::Negative,
    ir::TurnStep::Maintain,
    ir::TurnStep::Expire,
    ir::TurnStep::Positive,
    ir::TurnStep::Hooks,
];
const TURN_END: [ir::TurnStep; 6] = [
    ir::TurnStep::Negative,
    ir::TurnStep::Positive,
    ir::TurnStep::Hooks,
    ir::TurnStep::Maintain,
    ir::TurnStep::Pools,
    ir::TurnStep::Expire,
];

/// The clauses an action may have once each.
const ACTION_SINGLES: &[&str] =
    &["partner", "partners", "target", "on", "interrupts", "ends_turn", "rounds", "interrupted", "resolve", "grants"];

impl<'a> Lowerer<'a> {
    pub fn new(scope: &'a Scope, sources: &'a SourceMap) -> Lowerer<'a> {
        Lowerer {
            scope,
            sources,
            diagnostics: Vec::new(),
            option_words: Vec::new(),
            names_read: Vec::new(),
            effects: Vec::new(),
            expanding: Vec::new(),
            used_effects: Vec::new(),
            levels: Vec::new(),
            default_degrees: None,
            piles: Default::default(),
            rolls: Default::default(),
            emitted: Vec::new(),
            block_depth: 0,
            per_side_pools: Vec::new(),
            shared_pools: Vec::new(),
        }
    }

    /// Where a span starts, as the IR keeps it: file index, 1-based line and character column.
    pub(crate) fn loc(&self, span: Span) -> ir::Loc {
        let at = self.sources.line_col(span.file, span.start as usize);
        ir::Loc {
            file: u16::try_from(span.file.0).unwrap_or(u16::MAX),
            line: u32::try_from(at.line).unwrap_or(u32::MAX),
            column: u32::try_from(at.column).unwrap_or(u32::MAX),
        }
    }

    /// A word in a place that takes one of the language's words: recorded (`option_words`), and
    /// given back to be matched.
    pub(crate) fn option_word<'w>(&mut self, word: &'w ast::Ident) -> &'w str {
        self.option_words.push(word.span);
        word.name.as_str()
    }

    /// A declared name read at `span` as a `kind` of thing.
    pub(crate) fn read(&mut self, span: Span, kind: super::NameKind) {
        self.names_read.push((span, kind));
    }

    /// Reports a name given a second time where each must differ (`message`: "level `hard` is
    /// given twice"), pointing back at the first.
    pub(crate) fn twice(&mut self, message: String, again: Span, first: Span, help: Option<&str>) {
        let mut d =
            Diagnostic::error(Code::Duplicate, again, message).label("again here").with_secondary(first, "first here");
        if let Some(help) = help {
            d = d.help(help.to_string());
        }
        self.error(d);
    }

    /// Reports a problem; lowering goes on with a placeholder.
    pub(crate) fn error(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// Reports the second of two clauses that may appear once.
    fn once<C>(
        &mut self,
        clauses: &[C],
        kind: impl Fn(&C) -> &'static str,
        span: impl Fn(&C) -> Span,
        singles: &[&str],
    ) {
        for (i, c) in clauses.iter().enumerate() {
            let k = kind(c);
            if !singles.contains(&k) {
                continue;
            }
            if let Some(first) = clauses[..i].iter().find(|f| kind(f) == k) {
                self.error(
                    Diagnostic::error(Code::Duplicate, span(c), format!("`{k}` is given twice"))
                        .label("again here")
                        .with_secondary(span(first), "first here")
                        .help("keep one of them"),
                );
            }
        }
    }

    /// Lowers the merged declarations; with `release`, each action's and trigger's body is freed
    /// once lowered (see `Entry::release_body`).
    pub fn lower(&mut self, name: &ast::Ident, entries: &mut [Entry], release: bool) -> ir::Ruleset {
        let plain = Ctx::default();
        let mut r = self.empty_ruleset(name);
        self.lower_degrees(entries, &mut r);
        self.lower_dice(entries, &mut r);
        let default_cost = entries.iter().find_map(|e| match &e.item.decl {
            Decl::DefaultCost(terms) => Some((terms.clone(), e.item.span)),
            _ => None,
        });
        let default_cost = default_cost.map(|(t, span)| (self.costs(&t, plain), self.loc(span)));
        self.collect_effects(entries);
        self.per_side_pools = (entries.iter())
            .filter_map(|e| match &e.item.decl {
                Decl::Pool(p) => Some(
                    p.clauses.iter().any(|c| matches!(c, PoolClause::PerSide(_)))
                        && !p.clauses.iter().any(|c| matches!(c, PoolClause::Shared(_))),
                ),
                _ => None,
            })
            .collect();
        self.shared_pools = (entries.iter())
            .filter_map(|e| match &e.item.decl {
                Decl::Pool(p) => Some(p.clauses.iter().any(|c| matches!(c, PoolClause::Shared(_)))),
                _ => None,
            })
            .collect();
        self.lower_piles(entries, &mut r);
        let mut has_round = false;
        let mut has_initiative = false;
        // Actions are the bulk of a large ruleset: one allocation of the right size.
        r.actions.reserve_exact(entries.iter().filter(|e| matches!(e.item.decl, Decl::Action(_))).count());
        for entry in entries.iter_mut() {
            has_round |= matches!(entry.item.decl, Decl::Round(_));
            has_initiative |= matches!(entry.item.decl, Decl::Initiative(_));
            self.decl(&entry.item, default_cost.as_ref(), &mut r);
            if release {
                entry.release_body();
            }
        }
        self.check_unused_effects();
        self.require_round_and_initiative(name, has_round, has_initiative);
        self.lower_reach(entries, &mut r);
        r.rolls = self.rolls.made;
        r.dispatch = dispatch(&r);
        r
    }

    /// A ruleset with nothing declared yet: the defaults of everything a ruleset may leave out.
    fn empty_ruleset(&self, name: &ast::Ident) -> ir::Ruleset {
        ir::Ruleset {
            format_version: ir::FORMAT_VERSION,
            name: name.name.to_string(),
            title: None,
            files: self.sources.names().map(str::to_string).collect(),
            stats: Vec::new(),
            derived: Vec::new(),
            pools: Vec::new(),
            categories: Vec::new(),
            events: Vec::new(),
            conditions: Vec::new(),
            actions: Vec::new(),
            triggers: Vec::new(),
            hooks: Vec::new(),
            limits: Vec::new(),
            cost_adjustments: Vec::new(),
            initiative: ir::Initiative {
                value: Expr::Int(0),
                made_at: ir::Timing::EncounterStart,
                adjust: None,
                range: None,
                order: ir::Order::HighestFirst,
                ties: Vec::new(),
                value_per_side: false,
                allow: ir::Allow::default(),
                reorder_now: false,
                side_slots: false,
                loc: ir::Loc::default(),
            },
            phases: Vec::new(),
            priority: vec![ir::PriorityStep::Active, ir::PriorityStep::Initiative, ir::PriorityStep::Gm],
            chains: ir::Chains { lifo: true, depth: 16 },
            space: ir::Space::None,
            surprise: None,
            downtime: Vec::new(),
            rests: Vec::new(),
            outros: Vec::new(),
            state_order: Vec::new(),
            turn_start: TURN_START.to_vec(),
            turn_end: TURN_END.to_vec(),
            degrees: Vec::new(),
            reach: None,
            terrains: Vec::new(),
            objects: Vec::new(),
            item_sets: Vec::new(),
            piles: Vec::new(),
            rolls: 0,
            dice: Vec::new(),
            symbols: Vec::new(),
            dispatch: ir::Dispatch::default(),
        }
    }

    /// The degrees and `default degrees`, lowered before any check: checks name their levels.
    fn lower_degrees(&mut self, entries: &[Entry], r: &mut ir::Ruleset) {
        for entry in entries.iter() {
            if let Decl::Degrees(d) = &entry.item.decl {
                let degrees = self.degrees(d);
                r.degrees.push(degrees);
            }
        }
        self.levels =
            r.degrees.iter().map(|d| d.levels.iter().map(|l| (l.name.clone(), l.success)).collect()).collect();
        for entry in entries.iter() {
            if let Decl::DefaultDegrees(name) = &entry.item.decl {
                self.default_degrees = self.degrees_ref(name);
            }
        }
    }

    /// The named `effect` blocks, for `do NAME` to find wherever it is written.
    fn collect_effects(&mut self, entries: &[Entry]) {
        self.effects = entries
            .iter()
            .filter_map(|e| match &e.item.decl {
                Decl::Effect { name, body } => Some((name.name.to_string(), body.clone(), name.span)),
                _ => None,
            })
            .collect();
        self.used_effects = vec![false; self.effects.len()];
    }

    /// Lowers one declaration into `r`.
    fn decl(&mut self, item: &ast::Item, default_cost: Option<&(Vec<ir::Cost>, ir::Loc)>, r: &mut ir::Ruleset) {
        let plain = Ctx::default();
        let loc = self.loc(item.span);
        match &item.decl {
            Decl::Title(t) => r.title = Some(t.clone()),
            // Lowered where `do` names it, in that place's context (an unused one below).
            Decl::Effect { .. } => {}
            // Lowered above, before the checks that use them.
            Decl::Degrees(_) | Decl::DefaultDegrees(_) => {}
            // Lowered above, before the rolls that throw them.
            Decl::Die { .. } => {}
            // Lowered below, once every declared event has its place.
            Decl::Reach(_) => {}
            // Lowered above, before the rules that name them.
            Decl::Items(_) | Decl::Pile(_) => {}
            Decl::Stat { name, default } => {
                r.stats.push(ir::Stat { name: name.name.to_string(), default: self.int(default, plain) })
            }
            Decl::Derive { name, value } => {
                r.derived.push(ir::Derived { name: name.name.to_string(), value: self.int(value, plain) })
            }
            Decl::Category { name, label } => {
                r.categories.push(ir::Named { name: name.name.to_string(), label: label.clone() })
            }
            Decl::Event { name, label } => {
                r.events.push(ir::Named { name: name.name.to_string(), label: label.clone() })
            }
            Decl::Object { name, label } => {
                r.objects.push(ir::Named { name: name.name.to_string(), label: label.clone() })
            }
            Decl::Terrain(t) => {
                let terrain = self.terrain(t);
                r.terrains.push(terrain);
            }
            Decl::Pool(p) => {
                let id = ir::PoolId(r.pools.len() as u32);
                let pool = self.pool(p, id);
                r.pools.push(pool);
            }
            Decl::Condition(c) => {
                let cond = self.condition(c, loc);
                r.conditions.push(cond);
            }
            Decl::Action(a) => {
                let action = self.action(a, default_cost, loc);
                r.actions.push(action);
            }
            Decl::Trigger(t) => {
                let trigger = self.trigger(t, loc);
                r.triggers.push(trigger);
            }
            Decl::Hook(h) => {
                let hook = ir::Hook {
                    timing: self.timing(&h.at),
                    guard: self.guard(&h.guard, plain),
                    effects: self.block(&h.body, plain),
                    loc,
                };
                r.hooks.push(hook);
            }
            Decl::Limit(l) => {
                let limit = self.limit(l, loc);
                r.limits.push(limit);
            }
            Decl::Initiative(clauses) => {
                r.initiative = self.initiative(clauses, loc);
            }
            Decl::Round(phases) => {
                r.phases = self.round(phases);
                if phases.is_empty() {
                    self.error(
                        Diagnostic::error(Code::MissingDeclaration, item.span, "a round needs at least one phase")
                            .label("no phases")
                            .help("e.g. `round { phase act: turns }`"),
                    );
                }
            }
            Decl::Priority(steps) => r.priority = self.priority(steps),
            Decl::Chains { order, depth } => r.chains = self.chains(order, depth.as_ref()),
            Decl::DefaultCost(_) => {}
            Decl::Space { kind, zones } => r.space = self.space(kind, zones),
            Decl::Surprise(applies) => {
                r.surprise = Some(ir::Surprise { applies: applies.as_ref().map(|c| self.condition_ref(c)) })
            }
            Decl::Downtime { every, body, .. } => {
                let d = ir::Downtime {
                    every_hours: self.count(every, plain, 1, "the hours between downtime"),
                    effects: self.block(body, plain),
                    loc,
                };
                r.downtime.push(d);
            }
            Decl::Rest { name, label, hours, minutes, body } => {
                let rest = ir::Rest {
                    name: name.name.to_string(),
                    label: label.clone(),
                    hours: hours.as_ref().map(|h| self.count(h, plain, 1, "a rest's hours")),
                    minutes: minutes.as_ref().map(|m| self.count(m, plain, 1, "a rest's minutes")),
                    effects: self.block(body, plain),
                    loc,
                };
                r.rests.push(rest);
            }
            Decl::Outro { name, label, continues, body } => {
                let outro = ir::Outro {
                    name: name.name.to_string(),
                    label: label.clone(),
                    continues: *continues,
                    effects: self.block(body, plain),
                    loc,
                };
                r.outros.push(outro);
            }
            Decl::StateOrder(pools) => r.state_order = pools.iter().map(|p| self.pool_ref(p)).collect(),
            Decl::Sequence { timing, steps } => {
                let lowered = steps.iter().map(|s| self.turn_step(s)).collect();
                match self.option_word(timing) {
                    "turn_start" => r.turn_start = lowered,
                    "turn_end" => r.turn_end = lowered,
                    _ => self.unknown_option(timing, "sequence timing", &["turn_start", "turn_end"]),
                }
            }
            Decl::Remove { .. } => {}
            Decl::CostAdjust { subject, except, op, when } => {
                let subject = if subject.name == "all" { None } else { Some(self.subject(subject)) };
                let except = except.iter().map(|e| self.subject(e)).collect();
                let op = match op {
                    ast::CostAdjustOp::Scale(e) => ir::CostAdjustOp::Scale(self.int(e, plain)),
                    ast::CostAdjustOp::Add(terms) => ir::CostAdjustOp::Add(self.costs(terms, plain)),
                };
                let when = when.as_ref().map(|w| self.cond(w, plain));
                r.cost_adjustments.push(ir::CostAdjust { subject, except, op, when, loc });
            }
        }
    }

    fn terrain(&mut self, t: &ast::Terrain) -> ir::Terrain {
        let plain = Ctx::default();
        // Kept as "spared when", the guard's negation: `unless C` spares when C holds.
        let spared = |this: &mut Self, g: &Option<ast::Guard>| {
            this.guard(g, plain).map(|c| match c {
                ir::Expr::Not(c) => *c,
                c => ir::Expr::Not(Box::new(c)),
            })
        };
        let blocks = t.blocks.as_ref().map(|(_, guard)| spared(self, guard));
        let slows = t.slows.as_ref().map(|(amount, guard)| (self.int(amount, plain), spared(self, guard)));
        ir::Terrain { name: t.name.name.to_string(), label: t.label.clone(), slows, blocks }
    }

    fn priority(&mut self, steps: &[ast::Ident]) -> Vec<ir::PriorityStep> {
        steps
            .iter()
            .map(|s| match self.option_word(s) {
                "active" => ir::PriorityStep::Active,
                "initiative" => ir::PriorityStep::Initiative,
                "gm" => ir::PriorityStep::Gm,
                _ => {
                    self.unknown_option(s, "priority step", &["active", "initiative", "gm"]);
                    ir::PriorityStep::Gm
                }
            })
            .collect()
    }

    fn chains(&mut self, order: &ast::Ident, depth: Option<&ast::Expr>) -> ir::Chains {
        let plain = Ctx::default();
        let lifo = match self.option_word(order) {
            "lifo" => true,
            "fifo" => false,
            _ => {
                self.unknown_option(order, "chain order", &["lifo", "fifo"]);
                true
            }
        };
        let depth = match depth {
            Some(d) => match self.int(d, plain) {
                Expr::Int(n) if (1..=1000).contains(&n) => n as u32,
                _ => {
                    self.error(
                        Diagnostic::error(Code::UnknownOption, d.span, "a chain depth is a number from 1 to 1000")
                            .label("not a number from 1 to 1000"),
                    );
                    16
                }
            },
            None => 16,
        };
        ir::Chains { lifo, depth }
    }

    fn space(&mut self, kind: &ast::Ident, zones: &[ast::Ident]) -> ir::Space {
        let space = match self.option_word(kind) {
            "none" => ir::Space::None,
            "grid" => {
                let (mut enemies_block, mut no_sharing) = (false, false);
                for rule in zones.iter() {
                    match self.option_word(rule) {
                        "enemies_block" => enemies_block = true,
                        "no_sharing" => no_sharing = true,
                        _ => self.unknown_option(rule, "grid rule", &["enemies_block", "no_sharing"]),
                    }
                }
                ir::Space::Grid { enemies_block, no_sharing }
            }
            "zones" => {
                if zones.is_empty() {
                    self.error(
                        Diagnostic::error(Code::MissingDeclaration, kind.span, "zones need names")
                            .label("which zones?")
                            .help("e.g. `space zones: engaged, near, far`"),
                    );
                }
                ir::Space::Zones(zones.iter().map(|z| z.name.to_string()).collect())
            }
            _ => {
                self.unknown_option(kind, "space", &["none", "grid", "zones"]);
                ir::Space::None
            }
        };
        if !zones.is_empty() && kind.name == "none" {
            self.misplaced(zones[0].span, "`space none` takes no list");
        }
        space
    }

    /// An effect no `do` names is still checked, read where anything may be named.
    fn check_unused_effects(&mut self) {
        for i in 0..self.effects.len() {
            if !self.used_effects.get(i).copied().unwrap_or(false) {
                let body = self.effects[i].1.clone();
                self.expanding.push(i);
                let _ = self.block(&body, Ctx { target: true, event: true, source: true, ..Ctx::default() });
                self.expanding.pop();
            }
        }
    }

    fn require_round_and_initiative(&mut self, name: &ast::Ident, has_round: bool, has_initiative: bool) {
        if !has_round {
            self.error(
                Diagnostic::error(
                    Code::MissingDeclaration,
                    name.span,
                    format!("ruleset `{}` has no `round`", name.name),
                )
                .label("no round declared here or in a base")
                .help("say what a round is made of, e.g. `round { phase act: turns }`"),
            );
        }
        if !has_initiative {
            self.error(
                Diagnostic::error(
                    Code::MissingDeclaration,
                    name.span,
                    format!("ruleset `{}` has no `initiative`", name.name),
                )
                .label("no initiative declared here or in a base")
                .help("say how turn order is made, e.g. `initiative { value 1d20; order highest_first }`"),
            );
        }
    }

    /// The events `reach` declares come after every declared event, as in the scope.
    fn lower_reach(&mut self, entries: &[Entry], r: &mut ir::Ruleset) {
        let plain = Ctx::default();
        let reach = entries.iter().find_map(|e| match &e.item.decl {
            Decl::Reach(x) => Some((x, e.item.span)),
            _ => None,
        });
        if let Some((range, span)) = reach {
            let mut ids = [ir::EventId(0); 3];
            for (id, name) in ids.iter_mut().zip(ir::REACH_EVENTS) {
                let index = match r.events.iter().position(|e| e.name == name) {
                    Some(i) => i,
                    None => {
                        r.events.push(ir::Named { name: name.to_string(), label: None });
                        r.events.len() - 1
                    }
                };
                *id = ir::EventId(index as u32);
            }
            let [enter, leave, move_in] = ids;
            let range = self.int(range, plain);
            r.reach = Some(ir::Reach { range, enter, leave, move_in, loc: self.loc(span) });
        }
    }

    fn turn_step(&mut self, s: &ast::Ident) -> ir::TurnStep {
        use ir::TurnStep::*;
        match self.option_word(s) {
            "pools" => Pools,
            "negative" => Negative,
            "maintain" => Maintain,
            "expire" => Expire,
            "positive" => Positive,
            "hooks" => Hooks,
            _ => {
                self.unknown_option(s, "turn step", &["pools", "negative", "maintain", "expire", "positive", "hooks"]);
                Hooks
            }
        }
    }

    fn pool(&mut self, p: &ast::Pool, id: ir::PoolId) -> ir::Pool {
        let ctx = Ctx { pool: Some(id), ..Ctx::default() };
        self.once(
            &p.clauses,
            PoolClause::kind_word,
            PoolClause::span,
            &["max", "min", "start", "overspend", "rising", "emit", "shared", "per side"],
        );
        let mut pool = ir::Pool {
            name: p.name.name.to_string(),
            label: p.label.clone(),
            max: None,
            min: Expr::Int(0),
            start: Expr::Int(0),
            at: Vec::new(),
            gains: Vec::new(),
            overspend: None,
            thresholds: Vec::new(),
            rising: p.clauses.iter().any(|c| matches!(c, PoolClause::Rising(_))),
            on_spend: None,
            shared: p.clauses.iter().any(|c| matches!(c, PoolClause::Shared(_))),
            per_side: p.clauses.iter().any(|c| matches!(c, PoolClause::PerSide(_))),
        };
        let mut start = None;
        for clause in &p.clauses {
            let loc = self.loc(clause.span());
            match clause {
                PoolClause::Max(e, _) => pool.max = e.as_ref().map(|e| self.int(e, ctx)),
                PoolClause::Min(e, _) => pool.min = self.int(e, ctx),
                PoolClause::Start(e, _) => start = Some(self.int(e, ctx)),
                PoolClause::Rising(_) | PoolClause::Shared(_) | PoolClause::PerSide(_) => {}
                PoolClause::SpendEvent(name, _) => pool.on_spend = self.event_named(name),
                PoolClause::Refresh { at, guard, .. } => self.step(&mut pool, at, ir::PoolOp::Refresh, guard, ctx, loc),
                PoolClause::Keep { at, .. } => self.step(&mut pool, at, ir::PoolOp::Keep, &None, ctx, loc),
                PoolClause::Lose { at, guard, .. } => self.step(&mut pool, at, ir::PoolOp::Lose, guard, ctx, loc),
                PoolClause::Decay { amount, at, guard, .. } => {
                    let amount = self.int(amount, ctx);
                    self.step(&mut pool, at, ir::PoolOp::Decay(amount), guard, ctx, loc)
                }
                PoolClause::Convert { into, at, guard, .. } => {
                    let into = self.pool_ref(into);
                    self.step(&mut pool, at, ir::PoolOp::Convert(into), guard, ctx, loc)
                }
                PoolClause::Gain { amount, when, guard, cap, .. } => {
                    let amount_ir;
                    let cap_ir;
                    match when {
                        ast::GainWhen::At(at) => {
                            amount_ir = self.int(amount, ctx);
                            cap_ir = cap.as_ref().map(|c| (self.int(&c.amount, ctx), c.per));
                            let op = ir::PoolOp::Gain { amount: amount_ir, cap: cap_ir };
                            self.step(&mut pool, at, op, guard, ctx, loc);
                        }
                        ast::GainWhen::On(pattern) => {
                            let timing = self.answers_timing(pattern);
                            let no_actor = timing && !timing_has_actor(&pattern.event.name);
                            let ectx = Ctx { event: true, timing, no_actor, ..ctx };
                            let on = self.event_pattern(pattern);
                            let gain = ir::Gain {
                                on,
                                amount: self.int(amount, ectx),
                                guard: self.guard(guard, ectx),
                                cap: cap.as_ref().map(|c| (self.int(&c.amount, ectx), c.per)),
                                loc,
                            };
                            pool.gains.push(gain);
                        }
                    }
                }
                PoolClause::Overspend { floor, price, .. } => {
                    pool.overspend =
                        Some(ir::Overspend { floor: self.int(floor, ctx), price: self.block(price, ctx), loc })
                }
                PoolClause::Threshold { op, value, immediately, body, .. } => {
                    let (value, effects) = (self.int(value, ctx), self.block(body, ctx));
                    let t = ir::Threshold { op: *op, value, effects, loc, immediately: *immediately };
                    pool.thresholds.push(t);
                }
            }
        }
        if pool.max.is_none() {
            for clause in &p.clauses {
                match clause {
                    PoolClause::Refresh { span, .. } if !pool.rising => {
                        self.misplaced(*span, "`refresh` sets a pool to its max, and this pool has no max")
                    }
                    // A meter without a max could take any cost: nothing would ever stop it.
                    PoolClause::Rising(span) => self.misplaced(
                        *span,
                        "a `rising` pool fills toward its max, and this pool has no max: give it one (`max 10`)",
                    ),
                    _ => {}
                }
            }
        }
        // One value for everyone, or one for each side: not both.
        if let (true, Some(span)) =
            (pool.shared, p.clauses.iter().find_map(|c| matches!(c, PoolClause::PerSide(_)).then(|| c.span())))
        {
            self.misplaced(
                span,
                "a pool is either `shared` (one value for the whole encounter) or `per side` (one value for each side), not both",
            );
            pool.per_side = false;
        }
        // Steps and gains run for each participant: on one shared value they would count once
        // per participant.
        if pool.shared {
            for clause in &p.clauses {
                let what = match clause {
                    PoolClause::Refresh { .. }
                    | PoolClause::Keep { .. }
                    | PoolClause::Lose { .. }
                    | PoolClause::Decay { .. }
                    | PoolClause::Convert { .. } => "a step at a timing",
                    PoolClause::Gain { .. } => "a gain",
                    _ => continue,
                };
                self.misplaced(
                    clause.span(),
                    &format!(
                        "a `shared` pool has one value for everyone, and {what} runs once for each participant; \
                         change it from effects (`effort += 1`) instead"
                    ),
                );
            }
        }
        // A meter starts empty, at its floor; a resource full.
        pool.start = start.unwrap_or(match (pool.max.is_some(), pool.rising) {
            (true, false) => Expr::PoolMax(Who::Owner, id),
            (_, true) => Expr::PoolMin(Who::Owner, id),
            (false, false) => Expr::Int(0),
        });
        pool
    }

    fn step(
        &mut self,
        pool: &mut ir::Pool,
        at: &ast::Timing,
        op: ir::PoolOp,
        guard: &Option<ast::Guard>,
        ctx: Ctx,
        loc: ir::Loc,
    ) {
        let timing = self.timing(at);
        let guard = self.guard(guard, ctx);
        pool.at.push(ir::PoolStep { timing, op, guard, loc });
    }

    fn condition(&mut self, c: &ast::Condition, loc: ir::Loc) -> ir::Condition {
        let ctx = Ctx { source: true, ..Ctx::default() };
        let span = |cl: &ConditionClause| match cl {
            ConditionClause::Blocks(_, s)
            | ConditionClause::Implies(_, s)
            | ConditionClause::Lasts(_, s)
            | ConditionClause::Polarity { span: s, .. }
            | ConditionClause::Maintain { span: s, .. }
            | ConditionClause::Hook { span: s, .. }
            | ConditionClause::Modify { span: s, .. } => *s,
        };
        self.once(&c.clauses, ConditionClause::kind_word, span, &["lasts", "polarity"]);
        let mut out = ir::Condition {
            name: c.name.name.to_string(),
            label: c.label.clone(),
            blocks: ir::Blocks::default(),
            implies: Vec::new(),
            lasts: None,
            positive: None,
            maintain: Vec::new(),
            hooks: Vec::new(),
            optional_maintain: Vec::new(),
            check_modifier: None,
            check_edge: None,
            check_modifier_on: None,
            check_edge_on: None,
            against_modifier: None,
            against_edge: None,
            against_modifier_on: None,
            against_edge_on: None,
            loc,
        };
        for clause in &c.clauses {
            match clause {
                ConditionClause::Blocks(things, span) => self.blocks(&mut out.blocks, things, *span),
                ConditionClause::Implies(names, _) => {
                    for n in names {
                        let id = self.condition_ref(n);
                        out.implies.push(id);
                    }
                }
                ConditionClause::Lasts(d, _) => out.lasts = Some(self.duration(d, ctx)),
                ConditionClause::Polarity { positive, .. } => out.positive = Some(*positive),
                ConditionClause::Maintain { at, optional, body, span } => {
                    let t = self.timing(at);
                    let mut effects = self.block(body, Ctx { maintain: true, ..ctx });
                    let loc = self.loc(*span);
                    if optional.is_some() {
                        // The holder's choice, asked as any `choose` is (run/decide/upkeep.rs).
                        out.optional_maintain.push(out.maintain.len() as u32);
                        let options = vec![
                            ir::ChoiceOption { name: "pay".to_string(), effects },
                            ir::ChoiceOption { name: "lapse".to_string(), effects: vec![ir::Effect::Cancel] },
                        ];
                        let question = format!("upkeep of {}", c.name.name);
                        effects = vec![ir::Effect::Choose { chooser: ir::Chooser::Owner, question, options, loc }];
                    }
                    out.maintain.push((t, effects, loc));
                }
                ConditionClause::Modify { against, by, with, on, .. } => {
                    self.modify(&mut out, against.as_ref(), by.as_ref(), with.as_ref(), on.as_ref(), ctx)
                }
                ConditionClause::Hook { at, body, span } => {
                    let t = self.timing(at);
                    let effects = self.block(body, ctx);
                    out.hooks.push((t, effects, self.loc(*span)));
                }
            }
        }
        out
    }

    /// `blocks ...`: what a condition keeps its holder from doing.
    fn blocks(&mut self, out: &mut ir::Blocks, things: &[ast::Blocked], span: Span) {
        out.loc = Some(self.loc(span));
        for thing in things {
            match thing {
                ast::Blocked::Spend(pool) => {
                    let p = self.pool_ref(pool);
                    out.spend.push(p);
                }
                ast::Blocked::Thing(word) => {
                    let kind = match self.option_word(word) {
                        "actions" => Some(ActionKind::Action),
                        "free_actions" | "free" => Some(ActionKind::Free),
                        "reactions" => Some(ActionKind::Reaction),
                        "preparations" => Some(ActionKind::Preparation),
                        "activities" => Some(ActionKind::Activity),
                        "movement" => {
                            out.movement = true;
                            None
                        }
                        _ => {
                            self.unknown_option(
                                word,
                                "thing a condition blocks",
                                &[
                                    "actions",
                                    "free_actions",
                                    "reactions",
                                    "preparations",
                                    "activities",
                                    "movement",
                                    "spend POOL",
                                ],
                            );
                            None
                        }
                    };
                    if let Some(k) = kind {
                        out.kinds.push(k);
                    }
                }
            }
        }
    }

    /// `modify checks ...`: a modifier or edge on the holder's checks, or on checks against it.
    fn modify(
        &mut self,
        out: &mut ir::Condition,
        against: Option<&ast::Ident>,
        by: Option<&ast::Expr>,
        with: Option<&ast::Ident>,
        on: Option<&ast::Ident>,
        ctx: Ctx,
    ) {
        let scope = on.map(|name| self.event_ref(name));
        if let (Some(ir::EventRef::Custom(_)), Some(name)) = (scope, on) {
            self.error(
                Diagnostic::error(
                    Code::UnknownOption,
                    name.span,
                    format!("`{}` is an event, and checks are made by actions", name.name),
                )
                .label("not an action, category or kind")
                .help("name an action, a category or a kind: `on reaction`, `on attacks`"),
            );
        }
        // `against self`: the checks others make against the holder.
        let against = match against {
            Some(word) => {
                if self.option_word(word) != "self" {
                    self.unknown_option(word, "whose checks (`against self`)", &["self"]);
                }
                true
            }
            None => false,
        };
        let edge = with.and_then(|word| match self.option_word(word) {
            "advantage" => Some(ir::Edge::Advantage),
            "disadvantage" => Some(ir::Edge::Disadvantage),
            _ => {
                self.unknown_option(word, "check edge", &["advantage", "disadvantage"]);
                None
            }
        });
        let modifier = by.map(|by| self.int(by, ctx));
        let (sum, sum_on, edge_slot, edge_on) = if against {
            (&mut out.against_modifier, &mut out.against_modifier_on, &mut out.against_edge, &mut out.against_edge_on)
        } else {
            (&mut out.check_modifier, &mut out.check_modifier_on, &mut out.check_edge, &mut out.check_edge_on)
        };
        if let Some(m) = modifier {
            *sum_on = scope;
            *sum = Some(match sum.take() {
                Some(prev) => Expr::Binary(ast::BinOp::Add, Box::new(prev), Box::new(m)),
                None => m,
            });
        }
        if with.is_some() {
            *edge_on = scope;
            *edge_slot = edge;
        }
    }

    fn use_limit(&mut self, l: &ast::LimitAmount, ctx: Ctx) -> ir::UseLimit {
        ir::UseLimit {
            amount: self.count(&l.amount, ctx, 0, "a limit"),
            pool: l.pool.as_ref().map(|p| self.pool_ref(p)),
            per: l.per,
            per_side: l.per_side,
            loc: self.loc(l.span),
        }
    }

    fn action(&mut self, a: &ast::Action, default_cost: Option<&(Vec<ir::Cost>, ir::Loc)>, loc: ir::Loc) -> ir::Action {
        self.once(&a.clauses, ActionClause::kind_word, ActionClause::span, ACTION_SINGLES);
        let has_target = a.clauses.iter().any(|c| matches!(c, ActionClause::Target { who, .. } if who.name != "none"));
        let has_on = a.clauses.iter().any(|c| matches!(c, ActionClause::On(_)));
        let (timing, no_actor) = self.timing_answered(&a.clauses);
        let ctx = Ctx { target: has_target, event: has_on, timing, no_actor, ..Ctx::default() };
        let mut out = ir::Action {
            name: a.name.name.to_string(),
            label: a.label.as_ref().map(|l| l.to_string()),
            kind: a.kind,
            costs: Vec::new(),
            partner_cost: Vec::new(),
            partner_loc: None,
            categories: Vec::new(),
            limits: Vec::new(),
            target: ir::Target { kind: ir::TargetKind::None, within: None },
            requires: Vec::new(),
            on: None,
            interrupts: false,
            ends_turn: false,
            rounds: None,
            interrupted: None,
            partners: None,
            effects: Vec::new(),
            grants: None,
            loc,
        };
        let mut unguarded: Option<(ir::CostRule, Span)> = None;
        for clause in &a.clauses {
            match clause {
                ActionClause::Cost { terms, when, span } => {
                    let (terms, initiative) = self.action_costs(terms, ctx);
                    let rule = ir::CostRule {
                        when: when.as_ref().map(|w| self.cond(w, ctx)),
                        terms,
                        initiative,
                        loc: self.loc(*span),
                    };
                    if rule.when.is_some() {
                        out.costs.push(rule);
                    } else if let Some((_, first)) = &unguarded {
                        self.error(
                            Diagnostic::error(Code::Duplicate, *span, "this action has two costs without `when`")
                                .label("second cost")
                                .with_secondary(*first, "first cost")
                                .help("join them with `+` (`cost 1 ap + 2 energy`), or guard one with `when`"),
                        );
                    } else {
                        unguarded = Some((rule, *span));
                    }
                }
                ActionClause::Partner(terms, span) => {
                    out.partner_cost = self.costs(terms, ctx);
                    out.partner_loc = Some(self.loc(*span));
                }
                ActionClause::Category(names, _) => self.categories(names, &mut out.categories),
                ActionClause::Limit(l) => {
                    let limit = self.use_limit(l, ctx);
                    out.limits.push(limit);
                }
                ActionClause::Target { who, within, .. } => out.target = self.target(who, within.as_deref(), ctx),
                ActionClause::Requires(e, span) => {
                    let cond = self.cond(e, ctx);
                    out.requires.push(ir::Require { cond, loc: self.loc(*span) });
                }
                ActionClause::On(p) => {
                    if a.kind != ActionKind::Reaction {
                        self.misplaced(p.span, "only reactions and triggers answer events; make this a `reaction`");
                    }
                    out.on = Some(self.event_pattern(p));
                }
                ActionClause::Interrupts(span) => {
                    if !has_on {
                        self.misplaced(*span, "`interrupts` needs an `on` clause saying what it interrupts");
                    } else if timing {
                        self.timing_misuse(
                            *span,
                            "a timing cannot be interrupted",
                            "leave `interrupts` out: it is answered after the timing's own work",
                        );
                    }
                    out.interrupts = true;
                }
                ActionClause::EndsTurn(_) => out.ends_turn = true,
                ActionClause::Rounds(e, _) => out.rounds = Some(self.count(e, ctx, 1, "an action's rounds")),
                ActionClause::Partners { count, within, span } => {
                    if !a.clauses.iter().any(|c| matches!(c, ActionClause::Partner(..))) {
                        self.misplaced(*span, "only a combo has partners; say what each pays with `partner cost`");
                    }
                    out.partners = Some(Box::new(ir::Partners {
                        count: self.count(count, ctx, 1, "a combo's partners"),
                        within: within.as_ref().map(|w| self.int(w, ctx)),
                    }));
                }
                ActionClause::Interrupted { when, then, span } => {
                    if !a.clauses.iter().any(|c| matches!(c, ActionClause::Rounds(..))) {
                        self.misplaced(
                            *span,
                            "only a multi-round action is under way long enough to be interrupted; add `rounds N`",
                        );
                    }
                    out.interrupted = Some(Box::new(ir::Interruption {
                        when: self.cond(when, ctx),
                        effects: then.as_ref().map(|b| self.block(b, ctx)).unwrap_or_default(),
                        loc: self.loc(*span),
                    }));
                }
                ActionClause::Resolve(b) => out.effects = self.block(b, ctx),
                ActionClause::Grants(g) => out.grants = Some(Box::new(self.granted_turn(g, a.kind, ctx))),
            }
        }
        if no_actor && !matches!(out.target.kind, ir::TargetKind::None | ir::TargetKind::Self_) {
            if let Some(span) = a.clauses.iter().find_map(|c| match c {
                ActionClause::Target { who, .. } => Some(who.span),
                _ => None,
            }) {
                self.timing_misuse(
                    span,
                    "a reaction aims at whoever did what it answers, and this timing happens to nobody",
                    "answer whose turn it is (`on turn_start by enemy`), or aim at `self`",
                );
            }
        }
        if a.kind == ActionKind::Reaction && !has_on {
            self.error(
                Diagnostic::error(
                    Code::MisplacedClause,
                    a.name.span,
                    format!("reaction `{}` does not say what it answers", a.name.name),
                )
                .label("no `on` clause")
                .help("add e.g. `on attack against self`"),
            );
        }
        match unguarded {
            Some((rule, _)) => out.costs.push(rule),
            // Actions and reactions cost the default when they name no cost; free actions,
            // preparations and activities cost nothing unless they say so.
            None if matches!(a.kind, ActionKind::Action | ActionKind::Reaction) => {
                if let Some((terms, loc)) = default_cost.filter(|(terms, _)| !terms.is_empty()) {
                    out.costs.push(ir::CostRule { when: None, terms: terms.clone(), initiative: None, loc: *loc })
                }
            }
            None => {}
        }
        // Most actions have one or two costs and requirements; pushes leave room for four.
        out.costs.shrink_to_fit();
        out.requires.shrink_to_fit();
        out
    }

    /// `category A, B`: the categories an action belongs to, each a declared one.
    fn categories(&mut self, names: &[ast::Ident], out: &mut Vec<ir::CategoryId>) {
        for n in names {
            match self.scope.categories.find(&n.name) {
                Some(i) => {
                    self.read(n.span, super::NameKind::Category);
                    out.push(ir::CategoryId(i))
                }
                None => {
                    let d = Diagnostic::error(Code::UnknownAction, n.span, format!("no category named `{}`", n.name))
                        .label("unknown category")
                        .suggest(&n.name, self.scope.categories.names())
                        .or_help(format!("declare it: `category {}`", n.name));
                    self.error(d);
                }
            }
        }
    }

    /// Whether an action's or trigger's `on` answers a timing, and whether that timing has no
    /// actor (`on round_start`), for the context its rules are read in.
    fn timing_answered(&self, clauses: &[ActionClause]) -> (bool, bool) {
        let on = clauses.iter().find_map(|c| match c {
            ActionClause::On(p) => Some(p),
            _ => None,
        });
        match on {
            Some(p) if self.answers_timing(p) => (true, !timing_has_actor(&p.event.name)),
            _ => (false, false),
        }
    }

    /// `target WHO [within N]`: whom an action may be aimed at.
    fn target(&mut self, who: &ast::Ident, within: Option<&ast::Expr>, ctx: Ctx) -> ir::Target {
        use ir::TargetKind::*;
        let kind = match self.option_word(who) {
            "none" => None,
            "self" => Self_,
            "ally" => Ally,
            "enemy" => Enemy,
            "any" => Any,
            "other" => Other,
            _ => {
                self.unknown_option(who, "target", &["none", "self", "ally", "enemy", "any", "other"]);
                Any
            }
        };
        ir::Target { kind, within: within.map(|w| self.int(w, ctx)) }
    }

    fn trigger(&mut self, t: &ast::Action, loc: ir::Loc) -> ir::Trigger {
        self.once(&t.clauses, ActionClause::kind_word, ActionClause::span, &["on", "interrupts", "resolve"]);
        let (timing, no_actor) = self.timing_answered(&t.clauses);
        let ctx = Ctx { event: true, timing, no_actor, ..Ctx::default() };
        let mut out = ir::Trigger {
            name: t.name.name.to_string(),
            on: ir::EventPattern { event: ir::EventRef::Kind(ActionKind::Action), by: None, against: None },
            requires: Vec::new(),
            interrupts: false,
            limits: Vec::new(),
            effects: Vec::new(),
            loc,
        };
        let mut has_on = false;
        for clause in &t.clauses {
            match clause {
                ActionClause::On(p) => {
                    has_on = true;
                    out.on = self.event_pattern(p);
                }
                ActionClause::Requires(e, _) => {
                    let c = self.cond(e, ctx);
                    out.requires.push(c);
                }
                ActionClause::Interrupts(span) => {
                    if timing {
                        self.timing_misuse(
                            *span,
                            "a timing cannot be interrupted",
                            "leave `interrupts` out: it is answered after the timing's own work",
                        );
                    }
                    out.interrupts = true;
                }
                ActionClause::Limit(l) => {
                    let limit = self.use_limit(l, ctx);
                    out.limits.push(limit);
                }
                ActionClause::Resolve(b) => out.effects = self.block(b, ctx),
                other => {
                    let word = other.kind_word();
                    self.misplaced(
                        other.span(),
                        &format!("a trigger happens by itself, so `{word}` has no meaning on it"),
                    );
                }
            }
        }
        if !has_on {
            self.error(
                Diagnostic::error(
                    Code::MisplacedClause,
                    t.name.span,
                    format!("trigger `{}` does not say what it answers", t.name.name),
                )
                .label("no `on` clause")
                .help("add e.g. `on hit by self`"),
            );
        }
        out
    }

    fn limit(&mut self, l: &ast::Limit, loc: ir::Loc) -> ir::Limit {
        let ctx = Ctx::default();
        let subject = self.subject(&l.subject);
        let except = l.except.iter().map(|e| self.subject(e)).collect();
        let u = self.use_limit(&l.amount, ctx);
        ir::Limit {
            subject,
            except,
            each: l.each,
            amount: u.amount,
            pool: u.pool,
            per: u.per,
            per_side: u.per_side,
            guard: self.guard(&l.guard, ctx),
            loc,
        }
    }

    /// An action kind, category or action named by a limit or a cost adjustment.
    fn subject(&mut self, name: &ast::Ident) -> ir::LimitSubject {
        let n = name.name.as_str();
        let chosen = if ActionKind::from_word(n).is_some() {
            "action kind"
        } else if self.scope.categories.find(n).is_some() {
            "category"
        } else {
            "action"
        };
        self.warn_ambiguous(name, chosen);
        if let Some(k) = ActionKind::from_word(n) {
            ir::LimitSubject::Kind(k)
        } else if let Some(i) = self.scope.categories.find(n) {
            self.read(name.span, super::NameKind::Category);
            ir::LimitSubject::Category(ir::CategoryId(i))
        } else if let Some(i) = self.scope.actions.find(n) {
            self.read(name.span, super::NameKind::Action);
            ir::LimitSubject::Action(ir::ActionId(i))
        } else {
            let mut candidates: Vec<&str> = ActionKind::ALL.iter().map(|k| k.word()).collect();
            candidates.extend(self.scope.categories.names());
            candidates.extend(self.scope.actions.names());
            let d = Diagnostic::error(
                Code::UnknownAction,
                name.span,
                format!("no action kind, category or action named `{n}`"),
            )
            .label("no such actions")
            .suggest(n, candidates);
            self.error(d);
            ir::LimitSubject::Kind(ActionKind::Action)
        }
    }

    fn initiative(&mut self, clauses: &[InitiativeClause], loc: ir::Loc) -> ir::Initiative {
        let ctx = Ctx::default();
        self.once(
            clauses,
            InitiativeClause::kind_word,
            InitiativeClause::span,
            &["value", "made", "adjust", "range", "order", "ties", "reorder", "slots"],
        );
        let mut out = ir::Initiative {
            value: Expr::Int(0),
            made_at: ir::Timing::EncounterStart,
            adjust: None,
            range: None,
            order: ir::Order::HighestFirst,
            ties: Vec::new(),
            allow: ir::Allow::default(),
            reorder_now: false,
            side_slots: false,
            value_per_side: false,
            loc,
        };
        for clause in clauses {
            match clause {
                InitiativeClause::Value(e, per_side, _) => {
                    out.value = self.int(e, ctx);
                    out.value_per_side = *per_side;
                }
                InitiativeClause::Made(t, _) => {
                    out.made_at = self.timing(t);
                    if !matches!(
                        out.made_at,
                        ir::Timing::EncounterStart | ir::Timing::RoundStart | ir::Timing::PhaseStart(_)
                    ) {
                        self.error(
                            Diagnostic::error(
                                Code::UnknownTiming,
                                t.span,
                                format!("initiative cannot be made at `{}`", t.name.name),
                            )
                            .label("not a time initiative is made")
                            .help("`made at encounter_start` (once), `made at round_start` or `made at phase_start(PHASE)` (every round)"),
                        );
                    }
                }
                InitiativeClause::Adjust(e, _) => out.adjust = Some(self.int(e, ctx)),
                InitiativeClause::Range(lo, hi, _) => out.range = Some((self.int(lo, ctx), self.int(hi, ctx))),
                InitiativeClause::Order(word, _) => {
                    out.order = match self.option_word(word) {
                        "highest_first" => ir::Order::HighestFirst,
                        "lowest_first" => ir::Order::LowestFirst,
                        "by_side" => ir::Order::BySide,
                        "table" => ir::Order::Table,
                        "alternating" => ir::Order::Alternating,
                        "drawn" => ir::Order::Drawn,
                        _ => {
                            self.unknown_option(word, "initiative order", ORDER_WORDS);
                            ir::Order::HighestFirst
                        }
                    }
                }
                InitiativeClause::Ties(ties, _) => {
                    for t in ties {
                        let tb = match t {
                            ast::TieBreak::Higher(name) => {
                                let e = ast::Expr::new(ast::ExprKind::Name(name.clone()), name.span);
                                ir::TieBreak::Higher(self.int(&e, ctx))
                            }
                            ast::TieBreak::Lower(name) => {
                                let e = ast::Expr::new(ast::ExprKind::Name(name.clone()), name.span);
                                ir::TieBreak::Lower(self.int(&e, ctx))
                            }
                            ast::TieBreak::Roll(e) => ir::TieBreak::Roll(self.int(e, ctx)),
                            ast::TieBreak::RollUntilDifferent(e) => ir::TieBreak::RollUntilDifferent(self.int(e, ctx)),
                            ast::TieBreak::Named(word) => match self.option_word(word) {
                                "players_first" => ir::TieBreak::PlayersFirst,
                                "non_players_first" => ir::TieBreak::NonPlayersFirst,
                                "simultaneous" => ir::TieBreak::Simultaneous,
                                "gm" => ir::TieBreak::Gm,
                                "table" => ir::TieBreak::Table,
                                _ => {
                                    self.unknown_option(
                                        word,
                                        "tie-break",
                                        &[
                                            "higher STAT",
                                            "lower STAT",
                                            "roll DICE",
                                            "players_first",
                                            "non_players_first",
                                            "simultaneous",
                                            "gm",
                                            "table",
                                        ],
                                    );
                                    ir::TieBreak::Gm
                                }
                            },
                        };
                        out.ties.push(tb);
                    }
                }
                InitiativeClause::Reorder(word, _) => match self.option_word(word) {
                    "immediately" => out.reorder_now = true,
                    "next_phase" => out.reorder_now = false,
                    _ => self.unknown_option(word, "reordering", &["immediately", "next_phase"]),
                },
                InitiativeClause::Slots(word, _) => match self.option_word(word) {
                    "side" => out.side_slots = true,
                    _ => self.unknown_option(word, "slot owner", &["side"]),
                },
                InitiativeClause::Allow(words, _) => {
                    for w in words {
                        match self.option_word(w) {
                            "delay" => out.allow.delay = true,
                            "ready" => out.allow.ready = true,
                            "stay" => out.allow.stay = true,
                            _ => self.unknown_option(w, "initiative option", &["delay", "ready", "stay"]),
                        }
                    }
                }
            }
        }
        if out.order == ir::Order::Drawn {
            self.not_with_drawn(clauses);
        }
        out
    }

    /// `order drawn` makes no order in advance: a clause that makes, adjusts, ties or changes
    /// one, or moves a participant's place in it, would do nothing, so it is an error rather
    /// than silently ignored.
    fn not_with_drawn(&mut self, clauses: &[InitiativeClause]) {
        for clause in clauses {
            let why = match clause {
                InitiativeClause::Value(..) | InitiativeClause::Made(..) => "no initiative value is made",
                InitiativeClause::Adjust(..) | InitiativeClause::Range(..) => "there is no initiative value",
                InitiativeClause::Ties(..) => "there are no values to tie",
                InitiativeClause::Reorder(..) => "there is no order made in advance to reorder",
                InitiativeClause::Allow(..) => "there is no place to leave (each turn is drawn as it comes up)",
                InitiativeClause::Order(..) | InitiativeClause::Slots(..) => continue,
            };
            let word = match clause.kind_word() {
                "made" => "made at",
                "adjust" => "adjust up to",
                other => other,
            };
            self.error(
                Diagnostic::error(
                    Code::MisplacedClause,
                    clause.span(),
                    format!("`{word}` has no meaning with `order drawn`: {why}"),
                )
                .label("not with a drawn order")
                .help("remove it: with `order drawn` each turn is drawn at random from those still to have one in the phase"),
            );
        }
    }

    fn round(&mut self, phases: &[ast::Phase]) -> Vec<ir::Phase> {
        let mut out = Vec::new();
        for (i, ph) in phases.iter().enumerate() {
            if let Some(first) = phases[..i].iter().find(|f| f.name.name == ph.name.name) {
                let message = format!("phase `{}` is declared twice", ph.name.name);
                self.twice(message, ph.name.span, first.name.span, Some("give each phase its own name"));
            }
            let kind = match &ph.kind {
                ast::PhaseKind::Turns => ir::PhaseKind::Turns,
                ast::PhaseKind::Simultaneous(k) => ir::PhaseKind::Simultaneous(k.clone()),
                ast::PhaseKind::Step(b) => ir::PhaseKind::Step(self.block(b, Ctx::default())),
            };
            let guard = self.guard(&ph.guard, Ctx::default());
            let takes = ph.takes.as_ref().map(|e| self.cond(e, Ctx::default()));
            let again = ph.again.as_ref().map(|e| self.cond(e, Ctx::default()));
            let (name, loc) = (ph.name.name.to_string(), self.loc(ph.span));
            let hidden = self.phase_hidden(ph);
            let picks = self.phase_picks(ph, hidden);
            // `must` is checked with its `picks`: where they mean nothing, both are one error.
            let must = ph.must.is_some() && hidden && ph.picks.is_some();
            out.push(ir::Phase { name, guard, kind, takes, again, hidden, picks, must, loc });
        }
        out
    }
}

impl Lowerer<'_> {
    /// Whether a phase is `hidden`; on a phase of turns it has no meaning (each turn is played
    /// in the open, one after another), which is an error. A step phase's `choose` answers are
    /// not hidden yet: an error too, rather than a `hidden` that hides nothing.
    fn phase_hidden(&mut self, ph: &ast::Phase) -> bool {
        let Some(span) = ph.hidden else { return false };
        let (what, label, help) = match ph.kind {
            ast::PhaseKind::Step(_) => (
                "a step: `hidden` is not supported on a step phase yet",
                "only a simultaneous phase hides its choices",
                "let each choose an action in a `simultaneous hidden` phase",
            ),
            ast::PhaseKind::Turns => (
                "a phase of turns: `hidden` has no meaning there",
                "each turn is played in the open, after the ones before it",
                "hide choices in a `simultaneous hidden` phase",
            ),
            _ => return true,
        };
        self.error(
            Diagnostic::error(Code::MisplacedClause, span, format!("phase `{}` is {what}", ph.name.name))
                .label(label)
                .help(help),
        );
        false
    }
}

impl Lowerer<'_> {
    /// `picks N`: how many declarations each chooses in a hidden phase (1 where not written).
    /// Only a `simultaneous hidden` phase takes it: an open simultaneous phase already takes any
    /// number of declarations, each in the open; a phase of turns or a step makes no picks.
    fn phase_picks(&mut self, ph: &ast::Phase, hidden: bool) -> u32 {
        let Some((n, span)) = &ph.picks else { return 1 };
        let misplaced = match ph.kind {
            ast::PhaseKind::Simultaneous(_) if hidden => None,
            // `hidden` there is already an error of its own.
            _ if ph.hidden.is_some() => return 1,
            ast::PhaseKind::Simultaneous(_) => Some((
                "an open simultaneous phase already takes any number of declarations, each seen by those after",
                "write `simultaneous hidden picks N` to choose several in secret",
            )),
            ast::PhaseKind::Turns => Some((
                "each turn is played in the open and takes as many actions as its costs and limits allow",
                "choose several in secret in a `simultaneous hidden picks N` phase",
            )),
            ast::PhaseKind::Step(_) => Some((
                "a step applies its effects; nobody picks",
                "let each pick in a `simultaneous hidden picks N` phase",
            )),
        };
        if let Some((label, help)) = misplaced {
            let message =
                format!("phase `{}`: `picks` means something only in a `simultaneous hidden` phase", ph.name.name);
            self.error(Diagnostic::error(Code::MisplacedClause, *span, message).label(label).help(help));
            return 1;
        }
        match n.parse::<u32>() {
            Ok(k) if (1..=MAX_PICKS).contains(&k) => k,
            _ => {
                let message =
                    format!("phase `{}` picks {n}: a hidden phase's picks are 1 to {MAX_PICKS}", ph.name.name);
                self.error(
                    Diagnostic::error(Code::BadCount, *span, message)
                        .label("how many declarations each chooses in secret")
                        .help("write `picks 2` for two picks each; leave it out for one"),
                );
                1
            }
        }
    }
}

/// Whether a timing word names a timing with an actor (`turn_start`, `turn_end`).
fn timing_has_actor(word: &str) -> bool {
    matches!(word, "turn_start" | "turn_end")
}

/// Most picks a hidden phase takes: as many as a turn's declarations (the runner's bound).
const MAX_PICKS: u32 = 50;

/// Who answers which event: reactions, triggers and pool gains, by event slot.
fn dispatch(r: &ir::Ruleset) -> ir::Dispatch {
    let mut d = ir::Dispatch {
        by_event: Vec::new(),
        n_categories: r.categories.len() as u32,
        n_actions: r.actions.len() as u32,
        by_timing: Vec::new(),
    };
    let slots = ActionKind::ALL.len() + r.categories.len() + r.actions.len() + r.events.len();
    d.by_event = vec![Vec::new(); slots];
    let answers_timing = |on: &ir::EventPattern| matches!(on.event, ir::EventRef::Timing(_));
    if r.actions.iter().filter_map(|a| a.on.as_ref()).chain(r.triggers.iter().map(|t| &t.on)).any(answers_timing)
        || r.pools.iter().flat_map(|p| &p.gains).any(|g| answers_timing(&g.on))
    {
        d.by_timing = vec![Vec::new(); 6 + 2 * r.phases.len()];
    }
    let add = |d: &mut ir::Dispatch, event: ir::EventRef, who: ir::Responder| {
        let list = match event {
            ir::EventRef::Timing(t) => d.by_timing.get_mut(t.index()),
            _ => {
                let slot = d.slot(event);
                d.by_event.get_mut(slot)
            }
        };
        if let Some(list) = list {
            list.push(who);
        }
    };
    for (i, a) in r.actions.iter().enumerate() {
        if let Some(on) = &a.on {
            add(&mut d, on.event, ir::Responder::Reaction(ir::ActionId(i as u32)));
        }
    }
    for (i, t) in r.triggers.iter().enumerate() {
        add(&mut d, t.on.event, ir::Responder::Trigger(ir::TriggerId(i as u32)));
    }
    for (p, pool) in r.pools.iter().enumerate() {
        for (g, gain) in pool.gains.iter().enumerate() {
            add(&mut d, gain.on.event, ir::Responder::Gain(ir::PoolId(p as u32), g as u32));
        }
    }
    d
}
