//! The names a ruleset declares, per namespace, in declaration order (base first).
//! Lookups happen at compile time only; the IR holds the resulting indices.

use super::merge::Entry;
use crate::source::Span;
use crate::syntax::ast::Decl;
use std::collections::HashMap;

/// One namespace: names in declaration order with where each was declared. The map is only
/// an index for lookups; anything shown to people iterates `list`, so output order is stable.
#[derive(Debug, Default)]
pub struct Names {
    list: Vec<(String, Span)>,
    index: HashMap<String, u32>,
}

impl Names {
    fn push(&mut self, name: &str, span: Span) {
        let id = self.list.len() as u32;
        self.index.entry(name.to_string()).or_insert(id);
        self.list.push((name.to_string(), span));
    }

    pub fn find(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> + Clone {
        self.list.iter().map(|(n, _)| n.as_str())
    }

    pub fn span(&self, index: u32) -> Option<Span> {
        self.list.get(index as usize).map(|(_, s)| *s)
    }
}

#[derive(Debug, Default)]
pub(crate) struct Scope {
    pub stats: Names,
    pub derived: Names,
    pub pools: Names,
    pub categories: Names,
    pub events: Names,
    pub conditions: Names,
    pub actions: Names,
    pub triggers: Names,
    pub phases: Names,
    pub degrees: Names,
    pub(crate) terrains: Names,
    pub objects: Names,
}

impl Scope {
    pub fn new(entries: &[Entry]) -> Scope {
        let mut scope = Scope::default();
        for entry in entries {
            match &entry.item.decl {
                Decl::Stat { name, .. } => scope.stats.push(&name.name, name.span),
                Decl::Derive { name, .. } => scope.derived.push(&name.name, name.span),
                Decl::Pool(p) => scope.pools.push(&p.name.name, p.name.span),
                Decl::Category { name, .. } => scope.categories.push(&name.name, name.span),
                Decl::Event { name, .. } => scope.events.push(&name.name, name.span),
                Decl::Condition(c) => scope.conditions.push(&c.name.name, c.name.span),
                Decl::Action(a) => scope.actions.push(&a.name.name, a.name.span),
                Decl::Trigger(t) => scope.triggers.push(&t.name.name, t.name.span),
                Decl::Degrees(d) => scope.degrees.push(&d.name.name, d.name.span),
                Decl::Terrain(t) => scope.terrains.push(&t.name.name, t.name.span),
                Decl::Object { name, .. } => scope.objects.push(&name.name, name.span),
                Decl::Round(phases) => {
                    for ph in phases {
                        scope.phases.push(&ph.name.name, ph.name.span);
                    }
                }
                _ => {}
            }
        }
        // `reach` declares the events of movement through it, unless declared (with a label).
        let reach = entries.iter().find_map(|e| match &e.item.decl {
            Decl::Reach(x) => Some(x.span),
            _ => None,
        });
        if let Some(span) = reach {
            for name in crate::ir::REACH_EVENTS {
                if scope.events.find(name).is_none() {
                    scope.events.push(name, span);
                }
            }
        }
        scope
    }
}
