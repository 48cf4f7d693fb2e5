//! Checking an IR that did not come straight from the compiler (a `.ron` file, hand-edited or
//! damaged) before it is run: every index in range, the dispatch table the right shape, no value
//! that is defined by itself, dice within the compiler's limits. The runner indexes without
//! checking, so this is what stands between a corrupt file and a panic or a stack overflow.

use super::*;

/// Dice limits, the same as the compiler's: a roll of more is refused, never attempted.
pub const MAX_DICE: u32 = 1000;
pub const MAX_SIDES: u32 = 1_000_000;

/// A value computed from an expression each time it is read. One that reads itself, directly
/// or through others, would recurse forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ValueNode {
    Derived(u32),
    PoolMax(u32),
    PoolMin(u32),
}

fn value_refs(e: &Expr, out: &mut Vec<ValueNode>) {
    e.walk(&mut |x| match x {
        Expr::Derived(_, id) => out.push(ValueNode::Derived(id.0)),
        Expr::PoolMax(_, id) => out.push(ValueNode::PoolMax(id.0)),
        Expr::PoolMin(_, id) => out.push(ValueNode::PoolMin(id.0)),
        _ => {}
    });
}

/// Every value (derived value, pool maximum or minimum) that reads itself, directly or through
/// others, in order. Whose value is read does not matter: a pool's max read from another
/// participant is still that pool's max expression, evaluated again.
pub(crate) fn value_cycles(r: &Ruleset) -> Vec<ValueNode> {
    let nodes: Vec<ValueNode> = (0..r.derived.len() as u32)
        .map(ValueNode::Derived)
        .chain((0..r.pools.len() as u32).map(ValueNode::PoolMax))
        .chain((0..r.pools.len() as u32).map(ValueNode::PoolMin))
        .collect();
    let index = |n: ValueNode| -> Option<usize> {
        let (d, p) = (r.derived.len(), r.pools.len());
        match n {
            ValueNode::Derived(i) if (i as usize) < d => Some(i as usize),
            ValueNode::PoolMax(i) if (i as usize) < p => Some(d + i as usize),
            ValueNode::PoolMin(i) if (i as usize) < p => Some(d + p + i as usize),
            _ => None,
        }
    };
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            let mut refs = Vec::new();
            match *n {
                ValueNode::Derived(i) => value_refs(&r.derived[i as usize].value, &mut refs),
                ValueNode::PoolMax(i) => {
                    if let Some(max) = &r.pools[i as usize].max {
                        value_refs(max, &mut refs)
                    }
                }
                ValueNode::PoolMin(i) => value_refs(&r.pools[i as usize].min, &mut refs),
            }
            refs.into_iter().filter_map(index).collect()
        })
        .collect();
    let mut out = Vec::new();
    for (start, node) in nodes.iter().enumerate() {
        // Depth-first search with an explicit stack: does `start` reach itself?
        let mut seen = vec![false; nodes.len()];
        let mut stack: Vec<usize> = edges[start].clone();
        while let Some(x) = stack.pop() {
            if x == start {
                out.push(*node);
                break;
            }
            if !seen[x] {
                seen[x] = true;
                stack.extend(&edges[x]);
            }
        }
    }
    out
}

/// Why `r` cannot be run safely, or `Ok`. Checks what the compiler guarantees by construction.
pub fn validate(r: &Ruleset) -> Result<(), String> {
    let mut v = Validator { r, problem: None, gm_questions: Vec::new(), choices: Vec::new() };
    v.ruleset();
    if let Some(problem) = v.problem {
        return Err(problem);
    }
    if let Some(node) = value_cycles(r).first() {
        let what = match *node {
            ValueNode::Derived(i) => format!("derived value `{}`", r.derived[i as usize].name),
            ValueNode::PoolMax(i) => format!("the max of pool `{}`", r.pools[i as usize].name),
            ValueNode::PoolMin(i) => format!("the min of pool `{}`", r.pools[i as usize].name),
        };
        return Err(format!("{what} depends on itself"));
    }
    Ok(())
}

struct Validator<'a> {
    r: &'a Ruleset,
    /// The first problem found; the rest of the walk is skipped.
    problem: Option<String>,
    /// Every `choose gm` question met, once, with its options, in the order met.
    gm_questions: Vec<(String, Vec<String>)>,
    /// Every `choose` met, in the order met (`choices`).
    choices: Vec<ChoiceSite>,
}

/// A `choose` effect of the ruleset: where it is written (which tells it apart from every other
/// at run time), who chooses, its question and its options' names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceSite {
    pub loc: Loc,
    pub chooser: crate::ir::Chooser,
    pub question: String,
    pub options: Vec<String>,
}

/// Every `choose` effect of the ruleset: a scenario's answers, given by question and option
/// name, are turned into (site, option index) once, before a run.
pub fn choices(r: &Ruleset) -> Vec<ChoiceSite> {
    let mut v = Validator { r, problem: None, gm_questions: Vec::new(), choices: Vec::new() };
    v.ruleset();
    v.choices
}

/// Every question the ruleset asks the GM (`choose gm`), with its options: a scenario may tell
/// the GM how to answer one (`gm_answers`).
pub(crate) fn gm_questions(r: &Ruleset) -> Vec<(String, Vec<String>)> {
    let mut v = Validator { r, problem: None, gm_questions: Vec::new(), choices: Vec::new() };
    v.ruleset();
    v.gm_questions
}

impl Validator<'_> {
    fn fail(&mut self, what: &str, index: u32, len: usize) {
        if self.problem.is_none() {
            self.problem = Some(format!("{what} index {index} is out of range (there are {len})"));
        }
    }

    fn index(&mut self, what: &str, index: u32, len: usize) {
        if index as usize >= len {
            self.fail(what, index, len);
        }
    }
    fn stat(&mut self, id: StatId) {
        self.index("stat", id.0, self.r.stats.len());
    }
    fn derived(&mut self, id: DerivedId) {
        self.index("derived value", id.0, self.r.derived.len());
    }
    fn pool(&mut self, id: PoolId) {
        self.index("pool", id.0, self.r.pools.len());
    }
    fn category(&mut self, id: CategoryId) {
        self.index("category", id.0, self.r.categories.len());
    }
    fn event(&mut self, id: EventId) {
        self.index("event", id.0, self.r.events.len());
    }
    fn condition(&mut self, id: ConditionId) {
        self.index("condition", id.0, self.r.conditions.len());
    }
    fn action(&mut self, id: ActionId) {
        self.index("action", id.0, self.r.actions.len());
    }
    fn trigger(&mut self, id: TriggerId) {
        self.index("trigger", id.0, self.r.triggers.len());
    }
    fn phase(&mut self, id: PhaseId) {
        self.index("phase", id.0, self.r.phases.len());
    }
    /// A rule's location names a file of the ruleset's table (traces print its name).
    fn loc(&mut self, loc: Loc) {
        self.index("source file", u32::from(loc.file), self.r.files.len());
    }

    fn timing(&mut self, t: Timing) {
        if let Timing::PhaseStart(p) | Timing::PhaseEnd(p) = t {
            self.phase(p);
        }
    }

    fn event_ref(&mut self, e: EventRef) {
        match e {
            EventRef::Kind(_) => {}
            EventRef::Category(c) => self.category(c),
            EventRef::Action(a) => self.action(a),
            EventRef::Custom(e) => self.event(e),
            EventRef::Timing(t) => self.timing(t),
        }
    }

    fn subject(&mut self, s: LimitSubject) {
        match s {
            LimitSubject::Kind(_) => {}
            LimitSubject::Category(c) => self.category(c),
            LimitSubject::Action(a) => self.action(a),
        }
    }

    fn expr(&mut self, e: &Expr) {
        let mut refs = Vec::new();
        e.walk(&mut |x| refs.push(x));
        for x in refs {
            match x {
                Expr::Dice { count, sides }
                    if (*count == 0 || *sides == 0 || *count > MAX_DICE || *sides > MAX_SIDES)
                        && self.problem.is_none() =>
                {
                    self.problem = Some(format!(
                        "dice {count}d{sides} are outside 1 to {MAX_DICE} dice of 1 to {MAX_SIDES} sides"
                    ));
                }
                Expr::Stat(_, id) => self.stat(*id),
                Expr::Derived(_, id) => self.derived(*id),
                Expr::Pool(_, id) | Expr::PoolMax(_, id) | Expr::PoolMin(_, id) => self.pool(*id),
                Expr::Has(_, id) | Expr::HasFrom(_, id, _) | Expr::Condition(_, id) => self.condition(*id),
                Expr::TriggerIs(e) => self.event_ref(*e),
                Expr::Amount(e) => self.event(*e),
                Expr::Holds(_, o) | Expr::Handlers(o) => self.object(*o),
                Expr::PileHas(at, k) => self.pile_kind(at.pile, Some(*k)),
                Expr::PileCount(at, k) => self.pile_kind(at.pile, *k),
                Expr::PileValue(at, _) => self.pile_kind(at.pile, None),
                Expr::RollCount(id, _) => self.index("roll", id.0, self.r.rolls as usize),
                // Nothing else holds an index; children come through `walk` on their own.
                _ => {}
            }
        }
    }

    fn opt(&mut self, e: &Option<Expr>) {
        if let Some(e) = e {
            self.expr(e);
        }
    }

    fn costs(&mut self, costs: &[Cost]) {
        for c in costs {
            self.expr(&c.amount);
            self.pool(c.pool);
        }
    }

    fn limits(&mut self, limits: &[UseLimit]) {
        for l in limits {
            self.loc(l.loc);
            self.expr(&l.amount);
            if let Some(p) = l.pool {
                self.pool(p);
            }
        }
    }

    fn duration(&mut self, d: &Duration) {
        match d {
            Duration::Until(t) => self.timing(*t),
            Duration::Rounds(e) | Duration::While(e) => self.expr(e),
            Duration::Maintained | Duration::UntilSource { .. } => {}
        }
    }

    /// Effects nest (`if`, checks, choices); walked with an explicit stack.
    fn effects(&mut self, effects: &[Effect]) {
        let mut stack: Vec<&[Effect]> = vec![effects];
        while let Some(list) = stack.pop() {
            for e in list {
                match e {
                    Effect::Pool { pool, value, .. } => {
                        self.pool(*pool);
                        self.expr(value);
                    }
                    Effect::Initiative { value, .. } => self.expr(value),
                    Effect::Apply { condition, magnitude, duration, .. } => {
                        self.condition(*condition);
                        self.opt(magnitude);
                        if let Some(d) = duration {
                            self.duration(d);
                        }
                    }
                    Effect::Remove { condition, .. } => self.condition(*condition),
                    Effect::Emit(id) => self.event(*id),
                    Effect::EmitWith(id, amount) => {
                        self.event(*id);
                        self.expr(amount);
                    }
                    Effect::Amount { value, .. } => self.expr(value),
                    Effect::Choose { chooser, question, options, loc } => {
                        self.loc(*loc);
                        let names = || options.iter().map(|o| o.name.clone()).collect();
                        if *chooser == crate::ir::Chooser::Gm && !self.gm_questions.iter().any(|(q, _)| q == question) {
                            self.gm_questions.push((question.clone(), names()));
                        }
                        self.choices.push(ChoiceSite {
                            loc: *loc,
                            chooser: *chooser,
                            question: question.clone(),
                            options: names(),
                        });
                        for o in options {
                            stack.push(&o.effects);
                        }
                    }
                    Effect::Check { roll, against, outcomes } => {
                        self.expr(roll);
                        self.expr(against);
                        if let Some(g) = &outcomes.graded {
                            self.graded(g);
                        }
                        stack.extend(outcomes.blocks());
                    }
                    Effect::If { cond, then, otherwise } => {
                        self.expr(cond);
                        stack.push(then);
                        stack.push(otherwise);
                    }
                    Effect::Repeat { cond, body } => {
                        self.expr(cond);
                        stack.push(body);
                    }
                    Effect::Each { within, filter, body, .. } => {
                        self.opt(within);
                        self.opt(filter);
                        if Effect::any_loop(body) && self.problem.is_none() {
                            self.problem = Some("a `for each` loop is inside another".to_string());
                        }
                        stack.push(body);
                    }
                    Effect::Move(x) | Effect::MoveAway(x) | Effect::MoveThrough(x) => self.expr(x),
                    Effect::Push { distance, .. } => self.expr(distance),
                    Effect::MoveLeaping { amount, leap, .. } => {
                        self.expr(amount);
                        self.expr(leap);
                    }
                    Effect::Take { kind, within, .. } | Effect::Handle { kind, within } => {
                        self.object(*kind);
                        self.opt(within);
                    }
                    Effect::Drop { kind, distance, .. } => {
                        self.object(*kind);
                        self.opt(distance);
                    }
                    Effect::Pay(costs) => self.costs(costs),
                    Effect::Pile(p) => self.pile_effect(p),
                    Effect::Roll(roll) => self.roll(roll),
                    Effect::Follow(_)
                    | Effect::Swap(_)
                    | Effect::Redirect
                    | Effect::EndTurn
                    | Effect::EndEncounter
                    | Effect::Cancel
                    | Effect::RollInitiative
                    | Effect::ClearConditions => {}
                }
            }
        }
    }

    fn pattern(&mut self, p: &EventPattern) {
        self.event_ref(p.event);
    }

    /// A graded check names declared degrees, a block for each level, and blocks that exist.
    fn graded(&mut self, g: &crate::ir::Graded) {
        self.index("degrees", g.degrees.0, self.r.degrees.len());
        let levels = self.r.degrees.get(g.degrees.index()).map_or(0, |d| d.levels.len());
        if g.runs.len() != levels && self.problem.is_none() {
            self.problem = Some(format!("a check graded by {levels} levels says what {} of them run", g.runs.len()));
        }
        for b in g.runs.iter().flatten() {
            self.index("outcome block", *b, g.blocks.len());
        }
        for s in g.shifts.iter().chain(&g.opponent) {
            self.expr(&s.when);
        }
    }

    /// A pile that exists, and a kind its set has.
    fn pile_kind(&mut self, pile: crate::ir::PileId, kind: Option<u32>) {
        self.index("pile", pile.0, self.r.piles.len());
        let kinds = self
            .r
            .piles
            .get(pile.index())
            .and_then(|p| self.r.item_sets.get(p.set.index()))
            .map_or(0, |s| s.kinds.len());
        if let Some(k) = kind {
            self.index("kind of item", k, kinds);
        }
    }

    fn pile_effect(&mut self, p: &crate::ir::PileEffect) {
        use crate::ir::{Pick, PileEffect};
        let (from, to, kind) = match p {
            PileEffect::Draw { from, to, .. } => (from, to, None),
            PileEffect::Move { pick: Pick::Kind(k), from, to } => (from, to, Some(*k)),
            PileEffect::Move { from, to, .. } => (from, to, None),
        };
        self.pile_kind(from.pile, kind);
        self.pile_kind(to.pile, None);
        let set = |p: crate::ir::PileId| self.r.piles.get(p.index()).map(|x| x.set);
        if set(from.pile) != set(to.pile) && self.problem.is_none() {
            self.problem = Some("items move between piles of two different sets".to_string());
        }
        if let Some(e) = p.expr() {
            self.expr(e);
        }
    }

    /// A set of items the runner can hold: at most `MAX_OF_A_KIND` of a kind, and numbers on
    /// every kind or none, each within `MAX_ITEM_VALUE`.
    fn item_set(&mut self, set: &crate::ir::ItemSet) {
        if set.kinds.iter().any(|k| k.count > crate::ir::MAX_OF_A_KIND) && self.problem.is_none() {
            self.problem =
                Some(format!("set of items `{}` holds more than {} of a kind", set.name, crate::ir::MAX_OF_A_KIND));
        }
        let numbered = set.kinds.iter().filter(|k| k.value.is_some()).count();
        if numbered != 0 && numbered != set.kinds.len() && self.problem.is_none() {
            self.problem = Some(format!("set of items `{}` gives some kinds a number and not others", set.name));
        }
        if set.kinds.iter().filter_map(|k| k.value).any(|v| v.abs() > crate::ir::MAX_ITEM_VALUE)
            && self.problem.is_none()
        {
            self.problem = Some(format!(
                "set of items `{}` has a number outside -{max} to {max}",
                set.name,
                max = crate::ir::MAX_ITEM_VALUE
            ));
        }
    }

    fn object(&mut self, id: ObjectId) {
        self.index("object", id.0, self.r.objects.len());
    }

    fn roll(&mut self, roll: &crate::ir::Roll) {
        self.index("roll", roll.id.0, self.r.rolls as usize);
        for part in &roll.parts {
            self.expr(&part.count);
            match &part.faces {
                crate::ir::Faces::Sides(sides) => self.expr(sides),
                crate::ir::Faces::Die(die) => self.index("die", die.0, self.r.dice.len()),
            }
        }
        for counting in &roll.counts {
            match counting {
                crate::ir::RollCounting::Compare(_, against) => self.expr(against),
                crate::ir::RollCounting::Symbol(s) => self.index("symbol", s.0, self.r.symbols.len()),
            }
        }
    }

    /// A die the runner can throw: some faces, each showing known symbols.
    fn die_def(&mut self, die: &crate::ir::Die) {
        if (die.faces.is_empty() || die.faces.len() > MAX_SIDES as usize) && self.problem.is_none() {
            self.problem = Some(format!("die `{}` has {} faces, not 1 to {MAX_SIDES}", die.name, die.faces.len()));
        }
        for face in &die.faces {
            for s in face {
                self.index("symbol", s.0, self.r.symbols.len());
            }
        }
    }

    fn ruleset(&mut self) {
        for p in &self.r.piles {
            self.index("set of items", p.set.0, self.r.item_sets.len());
            if p.shared && p.per_side && self.problem.is_none() {
                self.problem = Some(format!("pile `{}` is both shared and per side", p.name));
            }
        }
        let held = crate::ir::start_items(&self.r.piles, &self.r.item_sets);
        if held > crate::ir::MAX_START_ITEMS && self.problem.is_none() {
            self.problem = Some(format!("the piles start with {held} items, more than {}", crate::ir::MAX_START_ITEMS));
        }
        for set in &self.r.item_sets {
            self.item_set(set);
        }
        for t in &self.r.terrains {
            if let Some((amount, spared)) = &t.slows {
                self.expr(amount);
                self.opt(spared);
            }
            if let Some(spared) = &t.blocks {
                self.opt(spared);
            }
        }
        let r = self.r;
        for d in &r.dice {
            self.die_def(d);
        }
        for d in &r.degrees {
            if d.levels.is_empty() && self.problem.is_none() {
                self.problem = Some(format!("degrees `{}` have no levels", d.name));
            }
            for l in &d.levels {
                self.opt(&l.when);
            }
            for s in &d.shifts {
                self.expr(&s.when);
            }
        }
        for s in &r.stats {
            self.expr(&s.default);
        }
        for d in &r.derived {
            self.expr(&d.value);
        }
        for p in &r.pools {
            self.pool_def(p);
        }
        for c in &r.conditions {
            self.condition_def(c);
        }
        for a in &r.actions {
            self.action_def(a);
        }
        for t in &r.triggers {
            self.loc(t.loc);
            self.pattern(&t.on);
            for e in &t.requires {
                self.expr(e);
            }
            self.limits(&t.limits);
            self.effects(&t.effects);
        }
        for h in &r.hooks {
            self.loc(h.loc);
            self.timing(h.timing);
            self.opt(&h.guard);
            self.effects(&h.effects);
        }
        for l in &r.limits {
            self.loc(l.loc);
            self.subject(l.subject);
            for &e in &l.except {
                self.subject(e);
            }
            self.expr(&l.amount);
            if let Some(p) = l.pool {
                self.pool(p);
            }
            self.opt(&l.guard);
        }
        for adj in &r.cost_adjustments {
            self.loc(adj.loc);
            if let Some(s) = adj.subject {
                self.subject(s);
            }
            for &e in &adj.except {
                self.subject(e);
            }
            match &adj.op {
                CostAdjustOp::Scale(e) => self.expr(e),
                CostAdjustOp::Add(costs) => self.costs(costs),
            }
            self.opt(&adj.when);
        }
        let i = &r.initiative;
        self.loc(i.loc);
        self.expr(&i.value);
        self.timing(i.made_at);
        self.opt(&i.adjust);
        if let Some((lo, hi)) = &i.range {
            self.expr(lo);
            self.expr(hi);
        }
        for t in &i.ties {
            if let TieBreak::Higher(e) | TieBreak::Lower(e) | TieBreak::Roll(e) | TieBreak::RollUntilDifferent(e) = t {
                self.expr(e);
            }
        }
        for p in &r.phases {
            self.loc(p.loc);
            self.opt(&p.guard);
            self.opt(&p.takes);
            self.opt(&p.again);
            if let PhaseKind::Step(effects) = &p.kind {
                self.effects(effects);
            }
        }
        if let Some(Surprise { applies: Some(c) }) = &r.surprise {
            self.condition(*c);
        }
        for d in &r.downtime {
            self.loc(d.loc);
            self.expr(&d.every_hours);
            self.effects(&d.effects);
        }
        for rest in &r.rests {
            self.loc(rest.loc);
            self.opt(&rest.hours);
            self.opt(&rest.minutes);
            self.effects(&rest.effects);
        }
        for o in &r.outros {
            self.loc(o.loc);
            self.effects(&o.effects);
        }
        for p in &r.state_order {
            self.pool(*p);
        }
        self.dispatch();
    }

    /// A pool's expressions, steps, gains, overspending and thresholds.
    fn pool_def(&mut self, p: &Pool) {
        if let Some(e) = p.on_spend {
            self.event(e);
        }
        self.opt(&p.max);
        self.expr(&p.min);
        self.expr(&p.start);
        for step in &p.at {
            self.loc(step.loc);
            self.timing(step.timing);
            self.opt(&step.guard);
            match &step.op {
                PoolOp::Refresh | PoolOp::Keep | PoolOp::Lose => {}
                PoolOp::Decay(e) => self.expr(e),
                PoolOp::Convert(to) => self.pool(*to),
                PoolOp::Gain { amount, cap } => {
                    self.expr(amount);
                    if let Some((c, _)) = cap {
                        self.expr(c);
                    }
                }
            }
        }
        for g in &p.gains {
            self.loc(g.loc);
            self.pattern(&g.on);
            self.expr(&g.amount);
            self.opt(&g.guard);
            if let Some((c, _)) = &g.cap {
                self.expr(c);
            }
        }
        if let Some(o) = &p.overspend {
            self.loc(o.loc);
            self.expr(&o.floor);
            self.effects(&o.price);
        }
        for t in &p.thresholds {
            self.loc(t.loc);
            self.expr(&t.value);
            self.effects(&t.effects);
        }
    }

    /// A condition's blocks, implied conditions, duration, rules and modifiers.
    fn condition_def(&mut self, c: &Condition) {
        self.loc(c.loc);
        if let Some(loc) = c.blocks.loc {
            self.loc(loc);
        }
        for p in &c.blocks.spend {
            self.pool(*p);
        }
        for i in &c.implies {
            self.condition(*i);
        }
        if let Some(d) = &c.lasts {
            self.duration(d);
        }
        for &i in &c.optional_maintain {
            self.index("upkeep", i, c.maintain.len());
        }
        for (t, effects, loc) in c.maintain.iter().chain(&c.hooks) {
            self.loc(*loc);
            self.timing(*t);
            self.effects(effects);
        }
        self.opt(&c.check_modifier);
        self.opt(&c.against_modifier);
        let scopes = [c.check_modifier_on, c.check_edge_on, c.against_modifier_on, c.against_edge_on];
        for on in scopes.into_iter().flatten() {
            self.event_ref(on);
        }
    }

    /// An action's costs, partners, categories, limits, target, requirements and effects.
    fn action_def(&mut self, a: &Action) {
        self.loc(a.loc);
        for rule in &a.costs {
            self.loc(rule.loc);
            self.opt(&rule.when);
            self.costs(&rule.terms);
        }
        self.costs(&a.partner_cost);
        if let Some(p) = &a.partners {
            self.expr(&p.count);
            self.opt(&p.within);
        }
        if let Some(loc) = a.partner_loc {
            self.loc(loc);
        }
        for c in &a.categories {
            self.category(*c);
        }
        self.limits(&a.limits);
        self.opt(&a.target.within);
        for req in &a.requires {
            self.loc(req.loc);
            self.expr(&req.cond);
        }
        if let Some(on) = &a.on {
            self.pattern(on);
        }
        self.opt(&a.rounds);
        if let Some(i) = &a.interrupted {
            self.loc(i.loc);
            self.expr(&i.when);
            self.effects(&i.effects);
        }
        self.effects(&a.effects);
        if let Some(g) = &a.grants {
            self.loc(g.loc);
            for (p, e) in &g.budget {
                self.pool(*p);
                self.expr(e);
            }
            self.opt(&g.moves);
            self.opt(&g.actions);
        }
    }

    fn dispatch(&mut self) {
        let r = self.r;
        let d = &r.dispatch;
        if d.n_categories as usize != r.categories.len() || d.n_actions as usize != r.actions.len() {
            if self.problem.is_none() {
                self.problem = Some("the dispatch table does not match the categories and actions".to_string());
            }
            return;
        }
        let slots = ActionKind::ALL.len() + r.categories.len() + r.actions.len() + r.events.len();
        if d.by_event.len() != slots && self.problem.is_none() {
            self.problem =
                Some(format!("the dispatch table has {} slots, the ruleset needs {slots}", d.by_event.len()));
        }
        let timings = 6 + 2 * r.phases.len();
        if !d.by_timing.is_empty() && d.by_timing.len() != timings && self.problem.is_none() {
            self.problem =
                Some(format!("the dispatch table has {} timing slots, the ruleset needs {timings}", d.by_timing.len()));
        }
        for responders in d.by_event.iter().chain(&d.by_timing) {
            for responder in responders {
                match *responder {
                    Responder::Reaction(a) => {
                        self.action(a);
                        if r.actions.get(a.index()).is_some_and(|x| x.on.is_none()) && self.problem.is_none() {
                            self.problem = Some(format!("action `{}` answers no event", r.actions[a.index()].name));
                        }
                    }
                    Responder::Trigger(t) => self.trigger(t),
                    Responder::Gain(p, i) => {
                        self.pool(p);
                        let gains = r.pools.get(p.index()).map_or(0, |x| x.gains.len());
                        if i as usize >= gains {
                            self.fail("gain", i, gains);
                        }
                    }
                }
            }
        }
    }
}
