//! The labels a ruleset declares (`pool ap "Action Points"`), for the play-by-play a person
//! reads. Traces carry names; the text is written with labels where the ruleset has them. Only
//! the text writer looks labels up, once per line, never the runner.

use crate::ir::Ruleset;

/// Name-to-label tables per kind, sorted by name for lookup. Empty tables give names back.
#[derive(Debug, Default, Clone)]
pub struct Labels {
    pools: Vec<(String, String)>,
    actions: Vec<(String, String)>,
    conditions: Vec<(String, String)>,
    events: Vec<(String, String)>,
    rests: Vec<(String, String)>,
    piles: Vec<(String, String)>,
    categories: Vec<(String, String)>,
    dice: Vec<(String, String)>,
}

fn table<'a>(items: impl Iterator<Item = (&'a String, &'a Option<String>)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = items.filter_map(|(n, l)| Some((n.clone(), l.clone()?))).collect();
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

fn find<'a>(table: &'a [(String, String)], name: &'a str) -> &'a str {
    match table.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
        Ok(i) => &table[i].1,
        Err(_) => name,
    }
}

impl Labels {
    /// No labels: every name is shown as it is (`tempo run --names`, `tempo why`).
    pub fn none() -> Labels {
        Labels::default()
    }

    pub fn new(r: &Ruleset) -> Labels {
        Labels {
            pools: table(r.pools.iter().map(|p| (&p.name, &p.label))),
            actions: table(r.actions.iter().map(|a| (&a.name, &a.label))),
            conditions: table(r.conditions.iter().map(|c| (&c.name, &c.label))),
            events: table(r.events.iter().map(|e| (&e.name, &e.label))),
            rests: table(r.rests.iter().map(|x| (&x.name, &x.label))),
            piles: table(r.piles.iter().map(|x| (&x.name, &x.label))),
            categories: table(r.categories.iter().map(|x| (&x.name, &x.label))),
            dice: table(r.dice.iter().map(|x| (&x.name, &x.label))),
        }
    }

    /// Whether any name has a label: without one the text is the names' text.
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
            && self.actions.is_empty()
            && self.conditions.is_empty()
            && self.events.is_empty()
            && self.rests.is_empty()
            && self.piles.is_empty()
            && self.categories.is_empty()
            && self.dice.is_empty()
    }

    pub fn pool<'a>(&'a self, name: &'a str) -> &'a str {
        find(&self.pools, name)
    }

    pub fn action<'a>(&'a self, name: &'a str) -> &'a str {
        find(&self.actions, name)
    }

    pub fn condition<'a>(&'a self, name: &'a str) -> &'a str {
        find(&self.conditions, name)
    }

    /// What set off a reaction: an event, else an action.
    pub fn source<'a>(&'a self, name: &'a str) -> &'a str {
        match self.events.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
            Ok(i) => &self.events[i].1,
            Err(_) => find(&self.actions, name),
        }
    }

    pub fn rest<'a>(&'a self, name: &'a str) -> &'a str {
        find(&self.rests, name)
    }

    pub fn pile<'a>(&'a self, name: &'a str) -> &'a str {
        find(&self.piles, name)
    }

    pub fn category<'a>(&'a self, name: &'a str) -> &'a str {
        find(&self.categories, name)
    }

    /// A die with custom faces (`die ability "Ability" { ... }`).
    pub fn die<'a>(&'a self, name: &'a str) -> &'a str {
        find(&self.dice, name)
    }
}
