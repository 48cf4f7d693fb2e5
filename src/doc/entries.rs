//! The merged declarations → the sheet's sections and entries, in declaration order.
//!
//! Rules text is always the formatter's printing of a span ([`Texts`]); this file only chooses
//! which spans to show and the plain words around them.

use super::{block, code, paragraph, round, text, Entry, Group, Line, Section, Texts};
use crate::check::Entry as Merged;
use crate::source::Span;
use crate::syntax::ast::*;

/// Every section of the sheet, the empty ones left out.
pub(super) fn sections(texts: &Texts, merged: &[Merged]) -> Vec<Section> {
    let items: Vec<&Item> = merged.iter().map(|e| &*e.item).collect();
    let rules = Rules { texts, items: &items };
    let mut sections = vec![
        Section {
            title: "Round and initiative".into(),
            intro: round::timeline(texts, &items),
            groups: one(rules.round()),
        },
        Section { title: "Pools".into(), intro: Vec::new(), groups: one(rules.of(|d| matches!(d, Decl::Pool(_)))) },
        Section { title: "Actions".into(), intro: Vec::new(), groups: rules.actions() },
        Section {
            title: "Reactions".into(),
            intro: Vec::new(),
            groups: one(rules.of(|d| matches!(d, Decl::Action(a) if a.kind == ActionKind::Reaction))),
        },
        Section {
            title: "Triggers and hooks".into(),
            intro: Vec::new(),
            groups: one(rules.of(|d| matches!(d, Decl::Trigger(_) | Decl::Hook(_)))),
        },
        Section {
            title: "Named effects".into(),
            intro: Vec::new(),
            groups: one(rules.of(|d| matches!(d, Decl::Effect { .. }))),
        },
        Section {
            title: "Degrees of success".into(),
            intro: Vec::new(),
            groups: one(rules.of(|d| matches!(d, Decl::Degrees(_)))),
        },
        Section {
            title: "Conditions".into(),
            intro: Vec::new(),
            groups: one(rules.of(|d| matches!(d, Decl::Condition(_)))),
        },
        Section {
            title: "Between encounters".into(),
            intro: Vec::new(),
            groups: one(rules.of(|d| matches!(d, Decl::Downtime { .. } | Decl::Rest { .. } | Decl::Outro { .. }))),
        },
        Section { title: "Other rules".into(), intro: Vec::new(), groups: one(rules.of(is_other_rule)) },
        Section { title: "Stats".into(), intro: Vec::new(), groups: rules.stats() },
    ];
    sections.retain(|s| !s.intro.is_empty() || s.groups.iter().any(|g| !g.entries.is_empty()));
    sections
}

/// The kind word of an action entry.
pub(super) fn is_action_kind(kind: &str) -> bool {
    matches!(kind, "action" | "free action" | "reaction" | "preparation" | "activity")
}

fn one(entries: Vec<Entry>) -> Vec<Group> {
    if entries.is_empty() {
        Vec::new()
    } else {
        vec![Group { title: None, entries, inline: false }]
    }
}

fn is_other_rule(decl: &Decl) -> bool {
    matches!(
        decl,
        Decl::Space { .. }
            | Decl::DefaultCost(_)
            | Decl::DefaultDegrees(_)
            | Decl::Reach(_)
            | Decl::Limit(_)
            | Decl::CostAdjust { .. }
            | Decl::Priority(_)
            | Decl::Chains { .. }
            | Decl::Surprise(_)
            | Decl::StateOrder(_)
            | Decl::Sequence { .. }
            | Decl::Terrain(_)
            | Decl::Object { .. }
            | Decl::Items(_)
            | Decl::Pile(_)
            | Decl::Die { .. }
    )
}

/// `parts` joined by `; `.
fn joined(parts: Vec<Line>) -> Line {
    let mut line = Line::new();
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        if !line.is_empty() {
            line.push(text("; "));
        }
        line.extend(part);
    }
    line
}

fn kind_word(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Free => "free action",
        other => other.word(),
    }
}

fn period_word(period: Period) -> &'static str {
    match period {
        Period::Turn => "turn",
        Period::Round => "round",
        Period::Encounter => "encounter",
        Period::Trigger => "trigger",
        Period::Phase => "phase",
    }
}

struct Rules<'a> {
    texts: &'a Texts<'a>,
    items: &'a [&'a Item],
}

impl Rules<'_> {
    fn text(&self, span: Span) -> String {
        self.texts.text(span)
    }

    /// The entries of every declaration `wanted` picks, in order.
    fn of(&self, wanted: impl Fn(&Decl) -> bool) -> Vec<Entry> {
        self.items.iter().filter(|i| wanted(&i.decl)).filter_map(|i| self.entry(i)).collect()
    }

    fn entry(&self, item: &Item) -> Option<Entry> {
        let doc = paragraph(&item.doc);
        let plain = |kind: &str, name: String, summary: Line| Entry {
            kind: kind.into(),
            name,
            label: None,
            summary,
            details: Vec::new(),
            doc: doc.clone(),
        };
        Some(match &item.decl {
            Decl::Pool(p) => self.pool(p, doc),
            Decl::Action(a) => self.action(a, doc),
            Decl::Trigger(t) => self.trigger(t, doc),
            Decl::Condition(c) => self.condition(c, doc),
            // An unnamed hook is shown (and matched with a base's) by what it says: `at TIMING`.
            Decl::Hook(h) if h.name.is_none() => {
                let head = self.texts.head(item.span);
                let mut summary = vec![code(head.clone())];
                if doc.is_none() {
                    summary.push(text(": "));
                    summary.extend(self.block(&h.body));
                }
                plain("rule", head, summary)
            }
            Decl::Hook(h) => {
                let mut summary = vec![text("at "), code(self.text(h.at.span))];
                summary.extend(self.guard(&h.guard));
                if doc.is_none() {
                    summary.push(text(": "));
                    summary.extend(self.block(&h.body));
                }
                let name = h.name.as_ref().map(|n| n.name.to_string()).unwrap_or_default();
                plain("hook", name, summary)
            }
            Decl::Downtime { name, every, body } => {
                let every_text = self.text(every.span);
                let hours = if every_text == "1" { " hour" } else { " hours" };
                let mut summary = vec![text("every "), code(every_text), text(format!("{hours} of downtime: "))];
                summary.extend(self.block(body));
                match name {
                    Some(name) => plain("downtime", name.name.to_string(), summary),
                    None => {
                        let head = self.texts.head(item.span);
                        let mut summary = summary;
                        summary.insert(0, code(head.clone()));
                        summary.insert(1, text(": "));
                        plain("rule", head, summary)
                    }
                }
            }
            Decl::Rest { name, label, hours, minutes, body } => {
                let mut summary = match (hours, minutes) {
                    (Some(hours), _) => vec![text("after "), code(self.text(hours.span)), text(" hours of downtime: ")],
                    (None, Some(m)) => vec![text("after "), code(self.text(m.span)), text(" minutes of downtime: ")],
                    (None, None) => vec![text("when taken: ")],
                };
                summary.extend(self.block(body));
                Entry { label: label.clone(), ..plain("rest", name.name.to_string(), summary) }
            }
            Decl::Effect { name, body } => {
                let mut summary = vec![text("what "), code(format!("do {}", name.name)), text(" does: ")];
                summary.extend(self.block(body));
                plain("effect", name.name.to_string(), summary)
            }
            Decl::Degrees(d) => {
                let mut parts: Vec<Line> = d
                    .levels
                    .iter()
                    .map(|l| {
                        let end = l.when.as_ref().map_or(l.side.span, |w| w.span);
                        vec![code(self.text(l.name.span.to(end)))]
                    })
                    .collect();
                parts.extend(d.shifts.iter().map(|s| vec![code(self.text(s.span))]));
                let mut summary = vec![text("levels, best first: ")];
                summary.extend(joined(parts));
                plain("degrees", d.name.name.to_string(), summary)
            }
            Decl::Outro { name, label, continues, body } => {
                let how = if *continues { "rounds go on without initiative: " } else { "the encounter ends: " };
                let mut summary = vec![text(how)];
                summary.extend(self.block(body));
                Entry { label: label.clone(), ..plain("outro", name.name.to_string(), summary) }
            }
            Decl::Stat { name, default: value } | Decl::Derive { name, value } => {
                let kind = if matches!(item.decl, Decl::Stat { .. }) { "stat" } else { "derived value" };
                plain(kind, name.name.to_string(), vec![code(self.text(value.span))])
            }
            Decl::Initiative(clauses) => {
                let parts = clauses.iter().map(|c| vec![code(self.text(InitiativeClause::span(c)))]).collect();
                plain("initiative", "initiative".into(), joined(parts))
            }
            Decl::Round(phases) => {
                let parts = phases.iter().map(|p| vec![code(self.texts.head(p.span))]).collect();
                plain("round", "round".into(), joined(parts))
            }
            decl if is_other_rule(decl) => {
                let shown = self.rule_text(item);
                let name = match decl {
                    Decl::Limit(l) => format!("limit {}", l.subject.name),
                    Decl::Sequence { timing, .. } => format!("sequence {}", timing.name),
                    Decl::CostAdjust { .. } => shown.clone(),
                    Decl::Space { .. } => "space".into(),
                    Decl::DefaultCost(_) => "default cost".into(),
                    Decl::DefaultDegrees(_) => "default degrees".into(),
                    Decl::Reach(_) => "reach".into(),
                    Decl::Priority(_) => "priority".into(),
                    Decl::Chains { .. } => "chains".into(),
                    Decl::Surprise(_) => "surprise round".into(),
                    Decl::Terrain(t) => format!("terrain {}", t.name.name),
                    Decl::Object { name, .. } => format!("object {}", name.name),
                    Decl::Items(set) => format!("items {}", set.name.name),
                    Decl::Pile(pile) => format!("pile {}", pile.name.name),
                    Decl::Die { name, .. } => format!("die {}", name.name),
                    _ => "state_order".into(),
                };
                plain("rule", name, vec![code(shown)])
            }
            _ => return None,
        })
    }

    /// A rule of the "other rules" section as written. An override keeps the base's item span,
    /// so singletons (which an override replaces whole) are printed from their parts.
    fn rule_text(&self, item: &Item) -> String {
        let names = |idents: &[Ident]| match (idents.first(), idents.last()) {
            (Some(first), Some(last)) => self.text(first.span.to(last.span)),
            _ => String::new(),
        };
        match &item.decl {
            Decl::Space { kind, zones } => {
                let zones = names(zones);
                let kind = &kind.name;
                if zones.is_empty() {
                    format!("space {kind}")
                } else {
                    format!("space {kind}: {zones}")
                }
            }
            Decl::DefaultCost(terms) if terms.terms.is_empty() => "default cost 0".into(),
            Decl::DefaultCost(terms) => format!("default cost {}", self.text(terms.span)),
            Decl::DefaultDegrees(name) => format!("default degrees {}", name.name),
            Decl::Reach(range) => format!("reach {}", self.text(range.span)),
            Decl::Priority(steps) => format!("priority {}", names(steps)),
            Decl::Chains { order, depth } => match depth {
                Some(depth) => format!("chains {} depth {}", order.name, self.text(depth.span)),
                None => format!("chains {}", order.name),
            },
            Decl::Surprise(Some(condition)) => format!("surprise round applies {}", condition.name),
            Decl::Surprise(None) => "surprise round".into(),
            Decl::StateOrder(pools) => format!("state_order {}", names(pools)),
            Decl::Sequence { timing, steps } => format!("sequence {}: {}", timing.name, names(steps)),
            // Limits and cost adjustments are never overridden: their item span is their own.
            _ => self.text(item.span),
        }
    }

    fn round(&self) -> Vec<Entry> {
        self.of(|d| matches!(d, Decl::Round(_) | Decl::Initiative(_)))
    }

    /// Actions other than reactions, grouped by their first category in the order categories
    /// are declared; those without one last.
    fn actions(&self) -> Vec<Group> {
        let is_listed = |a: &Action| a.kind != ActionKind::Reaction;
        let first_category = |a: &Action| {
            a.clauses.iter().find_map(|c| match c {
                ActionClause::Category(names, _) => names.first().map(|n| n.name.clone()),
                _ => None,
            })
        };
        let mut groups = Vec::new();
        for item in self.items {
            let Decl::Category { name, label } = &item.decl else { continue };
            let entries = self.of(
                |d| matches!(d, Decl::Action(a) if is_listed(a) && first_category(a).as_deref() == Some(&name.name)),
            );
            if !entries.is_empty() {
                let title = label.clone().unwrap_or_else(|| name.name.to_string());
                groups.push(Group { title: Some(title), entries, inline: false });
            }
        }
        let rest = self.of(|d| matches!(d, Decl::Action(a) if is_listed(a) && first_category(a).is_none()));
        if !rest.is_empty() {
            let title = (!groups.is_empty()).then(|| "Other actions".to_string());
            groups.push(Group { title, entries: rest, inline: false });
        }
        groups
    }

    fn stats(&self) -> Vec<Group> {
        let mut groups = Vec::new();
        for (title, stat) in [("Stats and their defaults", true), ("Derived values", false)] {
            let entries =
                self.of(|d| if stat { matches!(d, Decl::Stat { .. }) } else { matches!(d, Decl::Derive { .. }) });
            if !entries.is_empty() {
                groups.push(Group { title: Some(title.into()), entries, inline: true });
            }
        }
        groups
    }

    fn pool(&self, pool: &Pool, doc: Option<String>) -> Entry {
        let mut max = vec![text("no maximum")];
        let mut min = Vec::new();
        let mut start = None;
        // Steps at timings, in the order written, each under its timing.
        let mut steps: Vec<(String, Line)> = Vec::new();
        let mut events = Vec::new();
        let mut other = Vec::new();
        let rising = pool.clauses.iter().any(|c| matches!(c, PoolClause::Rising(_)));
        for clause in &pool.clauses {
            let mut at = |timing: &Timing, mut step: Line, guard: &Option<Guard>| {
                step.extend(self.guard(guard));
                steps.push((self.text(timing.span), step));
            };
            match clause {
                PoolClause::Max(Some(e), _) => max = vec![text("max "), code(self.text(e.span))],
                PoolClause::Max(None, _) => {}
                PoolClause::Min(e, _) => min = vec![text("min "), code(self.text(e.span))],
                PoolClause::Start(e, _) => start = Some(vec![text("starts at "), code(self.text(e.span))]),
                PoolClause::Rising(_) => {}
                PoolClause::Shared(_) => other.push(vec![text("one value shared by everyone in the encounter")]),
                PoolClause::PerSide(_) => other.push(vec![text(
                    "one value for each side, which its members read, pay from and add to; its steps and gains happen once for the side",
                )]),
                PoolClause::SpendEvent(name, _) => other.push(vec![text("each payment is "), code(name.name.clone())]),
                PoolClause::Refresh { at: t, guard, .. } => at(t, vec![text("refresh")], guard),
                PoolClause::Keep { at: t, .. } => at(t, vec![text("keep")], &None),
                PoolClause::Lose { at: t, guard, .. } => at(t, vec![text("lose")], guard),
                PoolClause::Decay { amount, at: t, guard, .. } => {
                    at(t, vec![text("decay "), code(self.text(amount.span))], guard)
                }
                PoolClause::Convert { into, at: t, guard, .. } => {
                    at(t, vec![text("convert into "), code(into.name.clone())], guard)
                }
                PoolClause::Gain { amount, when, guard, cap, .. } => {
                    let mut gain = vec![text("gain "), code(self.text(amount.span))];
                    gain.extend(self.guard(guard));
                    if let Some(cap) = cap {
                        gain.extend([
                            text(", at most "),
                            code(self.text(cap.amount.span)),
                            text(format!(" per {}", period_word(cap.per))),
                        ]);
                    }
                    match when {
                        GainWhen::At(t) => steps.push((self.text(t.span), gain)),
                        GainWhen::On(pattern) => {
                            let mut line = vec![code(self.text(pattern.span)), text(": ")];
                            line.extend(gain);
                            events.push(line);
                        }
                    }
                }
                PoolClause::Overspend { floor, price, .. } => {
                    let how = if rising { "overspend up to " } else { "overspend down to " };
                    let mut line = vec![text(how), code(self.text(floor.span))];
                    line.push(text("; each overspend: "));
                    line.extend(self.block(price));
                    other.push(line);
                }
                PoolClause::Threshold { op, value, body, .. } => {
                    let mut line = vec![text("when "), code(format!("{} {}", op.symbol(), self.text(value.span)))];
                    line.push(text(": "));
                    line.extend(self.block(body));
                    other.push(line);
                }
            }
        }
        let has_max = max.len() > 1;
        let start = start.unwrap_or_else(|| {
            vec![text(match (has_max, rising) {
                (_, true) => "starts empty",
                (true, false) => "starts full",
                (false, false) => "starts at 0",
            })]
        });
        let mut parts = vec![max, min, start];
        if rising {
            parts.insert(0, vec![text("a rising meter: costs fill it")]);
        }
        let summary = joined(parts);
        let mut details: Vec<Line> = round::by_timing(steps)
            .into_iter()
            .map(|(timing, steps)| {
                let mut line = vec![code(timing), text(": ")];
                for (i, step) in steps.into_iter().enumerate() {
                    if i > 0 {
                        line.push(text(", then "));
                    }
                    line.extend(step);
                }
                line
            })
            .collect();
        details.extend(events);
        details.extend(other);
        Entry {
            kind: "pool".into(),
            name: pool.name.name.to_string(),
            label: pool.label.clone(),
            summary,
            details,
            doc,
        }
    }

    fn action(&self, action: &Action, doc: Option<String>) -> Entry {
        let mut parts: Vec<Line> = Vec::new();
        if let Some(on) = action.clauses.iter().find(|c| matches!(c, ActionClause::On(_))) {
            parts.push(vec![code(self.text(on.span()))]);
        }
        parts.push(self.cost(action));
        let mut categories: Vec<&str> = Vec::new();
        for clause in &action.clauses {
            match clause {
                ActionClause::Category(names, _) => categories.extend(names.iter().map(|n| n.name.as_str())),
                // The span of a limit clause starts after its keyword.
                ActionClause::Limit(l) => parts.push(vec![code(format!("limit {}", self.text(l.span)))]),
                ActionClause::Partner(..)
                | ActionClause::Partners { .. }
                | ActionClause::Target { .. }
                | ActionClause::Requires(..)
                | ActionClause::Interrupts(_)
                | ActionClause::EndsTurn(_)
                | ActionClause::Rounds(..)
                | ActionClause::Grants(_) => parts.push(vec![code(self.text(clause.span()))]),
                ActionClause::Interrupted { when, .. } => {
                    parts.push(vec![text("interrupted when "), code(self.text(when.span))])
                }
                ActionClause::Cost { .. } | ActionClause::On(_) | ActionClause::Resolve(_) => {}
            }
        }
        // Top-level limits on its kind, a category of it, or it.
        for item in self.items {
            let Decl::Limit(limit) = &item.decl else { continue };
            let names = |s: &str| s == action.kind.word() || s == action.name.name || categories.contains(&s);
            if names(&limit.subject.name) && !limit.except.iter().any(|e| names(&e.name)) {
                parts.push(vec![code(self.text(item.span))]);
            }
        }
        // The first category names the group the action is listed under; the others are said.
        if categories.len() > 1 || (action.kind == ActionKind::Reaction && !categories.is_empty()) {
            let shown = if action.kind == ActionKind::Reaction { &categories[..] } else { &categories[1..] };
            let mut line = vec![text("also ")];
            if action.kind == ActionKind::Reaction {
                line = vec![text("category ")];
            }
            for (i, c) in shown.iter().enumerate() {
                if i > 0 {
                    line.push(text(", "));
                }
                line.push(code(*c));
            }
            parts.push(line);
        }
        if doc.is_none() {
            if let Some(ActionClause::Resolve(body)) =
                action.clauses.iter().find(|c| matches!(c, ActionClause::Resolve(_)))
            {
                let mut line = vec![text("does ")];
                line.extend(self.block(body));
                parts.push(line);
            }
        }
        let mut summary = Line::new();
        if !matches!(action.kind, ActionKind::Action | ActionKind::Reaction) {
            summary.push(text(kind_word(action.kind)));
            summary.push(text("; "));
        }
        summary.extend(joined(parts));
        Entry {
            kind: kind_word(action.kind).into(),
            name: action.name.name.to_string(),
            label: action.label.as_ref().map(|l| l.to_string()),
            summary,
            details: Vec::new(),
            doc,
        }
    }

    /// Which cost applies: the guarded ones in order, the unguarded one or the default, then the
    /// `adjust cost` declarations that reach the action.
    fn cost(&self, action: &Action) -> Line {
        let mut line = Line::new();
        let mut unguarded = None;
        for clause in &action.clauses {
            if let ActionClause::Cost { terms, when, .. } = clause {
                match when {
                    Some(when) => {
                        line.extend([
                            text(if line.is_empty() { "cost " } else { ", " }),
                            code(self.text(terms.span)),
                            text(" when "),
                            code(self.text(when.span)),
                        ]);
                    }
                    None => unguarded = Some(terms),
                }
            }
        }
        let fallback = match unguarded {
            Some(terms) if terms.terms.is_empty() => vec![text("nothing")],
            Some(terms) => vec![code(self.text(terms.span))],
            None if matches!(action.kind, ActionKind::Action | ActionKind::Reaction) => {
                match self.items.iter().find_map(|i| match &i.decl {
                    Decl::DefaultCost(terms) => Some(terms),
                    _ => None,
                }) {
                    Some(terms) if !terms.terms.is_empty() => {
                        vec![code(self.text(terms.span)), text(" (the default)")]
                    }
                    _ => vec![text("nothing")],
                }
            }
            None => vec![text("nothing")],
        };
        // Multiplying an action that costs nothing changes nothing: such lines are left out.
        let costs_nothing = line.is_empty() && fallback.len() == 1 && fallback[0] == text("nothing");
        line.push(text(if line.is_empty() { "cost " } else { ", else " }));
        line.extend(fallback);
        let categories: Vec<&str> = action
            .clauses
            .iter()
            .flat_map(|c| match c {
                ActionClause::Category(names, _) => names.iter().map(|n| n.name.as_str()).collect(),
                _ => Vec::new(),
            })
            .collect();
        let mut adjusted = false;
        for item in self.items {
            let Decl::CostAdjust { subject, except, op, when } = &item.decl else { continue };
            let names = |s: &str| s == action.kind.word() || s == action.name.name || categories.contains(&s);
            if !(subject.name == "all" || names(&subject.name)) || except.iter().any(|e| names(&e.name)) {
                continue;
            }
            if costs_nothing && matches!(op, CostAdjustOp::Scale(_)) {
                continue;
            }
            line.push(text(if adjusted { ", " } else { ", adjusted " }));
            adjusted = true;
            line.push(code(match op {
                CostAdjustOp::Scale(e) => format!("* {}", self.text(e.span)),
                CostAdjustOp::Add(terms) => format!("+ {}", self.text(terms.span)),
            }));
            if let Some(when) = when {
                line.extend([text(" when "), code(self.text(when.span))]);
            }
        }
        line
    }

    fn trigger(&self, trigger: &Action, doc: Option<String>) -> Entry {
        let mut parts = Vec::new();
        for clause in &trigger.clauses {
            match clause {
                ActionClause::Resolve(body) if doc.is_none() => {
                    let mut line = vec![text("does ")];
                    line.extend(self.block(body));
                    parts.push(line);
                }
                ActionClause::Resolve(_) => {}
                ActionClause::Limit(l) => parts.push(vec![code(format!("limit {}", self.text(l.span)))]),
                clause => parts.push(vec![code(self.text(clause.span()))]),
            }
        }
        Entry {
            kind: "trigger".into(),
            name: trigger.name.name.to_string(),
            label: trigger.label.as_ref().map(|l| l.to_string()),
            summary: joined(parts),
            details: Vec::new(),
            doc,
        }
    }

    fn condition(&self, condition: &Condition, doc: Option<String>) -> Entry {
        let mut parts = Vec::new();
        let mut details = Vec::new();
        for clause in &condition.clauses {
            match clause {
                ConditionClause::Maintain { at, optional, body, .. } => {
                    let mut line = vec![text("maintain at "), code(self.text(at.span))];
                    if optional.is_some() {
                        line.push(text(", optional (the holder may decline to pay, and it lapses)"));
                    }
                    line.push(text(": "));
                    line.extend(self.block(body));
                    details.push(line);
                }
                ConditionClause::Hook { at, body, .. } => {
                    let mut line = vec![text("at "), code(self.text(at.span)), text(": ")];
                    line.extend(self.block(body));
                    details.push(line);
                }
                ConditionClause::Blocks(_, span)
                | ConditionClause::Implies(_, span)
                | ConditionClause::Lasts(_, span)
                | ConditionClause::Polarity { span, .. }
                | ConditionClause::Modify { span, .. } => parts.push(vec![code(self.text(*span))]),
            }
        }
        if parts.is_empty() && details.is_empty() {
            parts.push(vec![text("no rules of its own: other rules test for it")]);
        }
        Entry {
            kind: "condition".into(),
            name: condition.name.name.to_string(),
            label: condition.label.clone(),
            summary: joined(parts),
            details,
            doc,
        }
    }

    fn guard(&self, guard: &Option<Guard>) -> Line {
        match guard {
            Some(g) => vec![text(if g.negated { " unless " } else { " if " }), code(self.text(g.cond.span))],
            None => Vec::new(),
        }
    }

    /// What a block does, on one line: whole when short; else statement by statement, a long
    /// statement shortened to its head (`choose owner "Which?"`) and the names of its branches.
    fn block(&self, block: &Block) -> Line {
        block::summary(self.texts, block)
    }
}
