//! Joining a variant with the files it extends into one list of declarations.
//!
//! Rules: a declaration whose name the base already has must say `override`; an `override`
//! replaces every clause *kind* it states and keeps the base's other clauses; `remove` drops a
//! declaration; overriding or removing something the base lacks is an error with a did-you-mean.

use super::words::article;
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Span;
use crate::syntax::ast::*;
use std::collections::HashMap;

/// What makes two declarations "the same thing" for duplicates and overrides.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Named(DeclKind, String),
    /// Blocks a ruleset has at most one of: `round`, `initiative`, ...
    Single(&'static str),
    /// Declarations that may repeat: hooks, limits, downtime.
    None,
}

fn key(decl: &Decl) -> Key {
    let named = |k: DeclKind, i: &Ident| Key::Named(k, i.name.to_string());
    match decl {
        Decl::Stat { name, .. } => named(DeclKind::Stat, name),
        Decl::Derive { name, .. } => named(DeclKind::Derive, name),
        Decl::Category { name, .. } => named(DeclKind::Category, name),
        Decl::Event { name, .. } => named(DeclKind::Event, name),
        Decl::Pool(p) => named(DeclKind::Pool, &p.name),
        Decl::Condition(c) => named(DeclKind::Condition, &c.name),
        Decl::Action(a) => named(DeclKind::Action, &a.name),
        Decl::Trigger(t) => named(DeclKind::Trigger, &t.name),
        Decl::Rest { name, .. } => named(DeclKind::Rest, name),
        Decl::Outro { name, .. } => named(DeclKind::Outro, name),
        Decl::Effect { name, .. } => named(DeclKind::Effect, name),
        Decl::Degrees(d) => named(DeclKind::Degrees, &d.name),
        Decl::Terrain(t) => named(DeclKind::Terrain, &t.name),
        Decl::Object { name, .. } => named(DeclKind::Object, name),
        Decl::Items(set) => named(DeclKind::Items, &set.name),
        Decl::Pile(pile) => named(DeclKind::Pile, &pile.name),
        Decl::Die { name, .. } => named(DeclKind::Die, name),
        Decl::DefaultDegrees(_) => Key::Single("default degrees"),
        Decl::Reach(_) => Key::Single("reach"),
        Decl::Title(_) => Key::Single("title"),
        Decl::Initiative(_) => Key::Single("initiative"),
        Decl::Round(_) => Key::Single("round"),
        Decl::Priority(_) => Key::Single("priority"),
        Decl::Chains { .. } => Key::Single("chains"),
        Decl::DefaultCost(_) => Key::Single("default cost"),
        Decl::Space { .. } => Key::Single("space"),
        Decl::Surprise(_) => Key::Single("surprise"),
        Decl::StateOrder(_) => Key::Single("state_order"),
        Decl::Sequence { timing, .. } => match timing.name.as_str() {
            "turn_end" => Key::Single("sequence turn_end"),
            _ => Key::Single("sequence turn_start"),
        },
        Decl::Hook(h) if h.name.is_some() => h.name.as_ref().map_or(Key::None, |name| named(DeclKind::Hook, name)),
        Decl::Downtime { name: Some(name), .. } => named(DeclKind::Downtime, name),
        Decl::Limit(_) | Decl::Hook(_) | Decl::Downtime { .. } | Decl::Remove { .. } | Decl::CostAdjust { .. } => {
            Key::None
        }
    }
}

fn describe(key: &Key) -> String {
    match key {
        Key::Named(kind, name) => format!("{} `{name}`", kind.word()),
        Key::Single(word) => format!("`{word}`"),
        Key::None => "declaration".to_string(),
    }
}

/// Where a declaration's name is written, for labels.
fn name_span(item: &Item) -> Span {
    match &item.decl {
        Decl::Stat { name, .. }
        | Decl::Derive { name, .. }
        | Decl::Category { name, .. }
        | Decl::Event { name, .. }
        | Decl::Rest { name, .. }
        | Decl::Outro { name, .. }
        | Decl::Effect { name, .. }
        | Decl::Object { name, .. }
        | Decl::Die { name, .. } => name.span,
        Decl::Terrain(t) => t.name.span,
        Decl::Items(set) => set.name.span,
        Decl::Pile(pile) => pile.name.span,
        Decl::Pool(p) => p.name.span,
        Decl::Degrees(d) => d.name.span,
        Decl::Hook(h) if h.name.is_some() => h.name.as_ref().map_or(item.span, |name| name.span),
        Decl::Downtime { name: Some(name), .. } => name.span,
        Decl::Condition(c) => c.name.span,
        Decl::Action(a) | Decl::Trigger(a) => a.name.span,
        _ => Span { end: item.span.start + 1, ..item.span },
    }
}

/// One declaration after merging, with the file index it was (first) declared in.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub item: Merged<'a>,
    pub(crate) file_index: usize,
}

/// A declaration as written (borrowed from its file), or owned: an override's result, or an
/// item moved out of its file for a compile that frees it once lowered. A pointer either way, so
/// the list of a large ruleset stays small.
#[derive(Debug, Clone)]
pub enum Merged<'a> {
    Written(&'a Item),
    Owned(Box<Item>),
}

impl Entry<'_> {
    /// Frees what lowering has read of this declaration's body (an action's or trigger's
    /// clauses), when the entry owns its item; a borrowed item is left as it is. Lowering a large
    /// ruleset then holds the syntax tree and the IR together for one declaration at a time, not
    /// for all of them (issue 10, item 6).
    pub fn release_body(&mut self) {
        if let Merged::Owned(item) = &mut self.item {
            if let Decl::Action(a) | Decl::Trigger(a) = &mut item.decl {
                a.clauses = Vec::new();
            }
        }
    }
}

/// Where an entry's item is: in a file (file, index), or owned already (an override's result).
pub struct Place {
    at: Result<(usize, usize), Box<Item>>,
    file_index: usize,
}

/// Where each entry's item sits in `files` (by its address), so the entries can be let go of and
/// then made again, owning their items ([`owned`]).
pub fn places(entries: Vec<Entry<'_>>, files: &[File]) -> Vec<Place> {
    let mut at: HashMap<*const Item, (usize, usize)> = HashMap::new();
    for (f, file) in files.iter().enumerate() {
        for (i, item) in file.items.iter().enumerate() {
            at.insert(item as *const Item, (f, i));
        }
    }
    entries
        .into_iter()
        .map(|e| Place {
            at: match e.item {
                Merged::Written(item) => at.get(&(item as *const Item)).copied().ok_or_else(|| Box::new(item.clone())),
                Merged::Owned(item) => Err(item),
            },
            file_index: e.file_index,
        })
        .collect()
}

/// The entries again, each owning its item, taken out of `files` (which are left without
/// items): a compile that does not keep its trees can then free each declaration once it is
/// lowered (`Entry::release_body`).
pub fn owned(places: Vec<Place>, files: &mut [File]) -> Vec<Entry<'static>> {
    let mut items: Vec<Vec<Option<Item>>> =
        files.iter_mut().map(|f| std::mem::take(&mut f.items).into_iter().map(Some).collect()).collect();
    places
        .into_iter()
        .filter_map(|p| {
            let item = match p.at {
                Ok((f, i)) => Box::new(items.get_mut(f)?.get_mut(i)?.take()?),
                Err(item) => item,
            };
            Some(Entry { item: Merged::Owned(item), file_index: p.file_index })
        })
        .collect()
}

impl std::ops::Deref for Merged<'_> {
    type Target = Item;

    fn deref(&self) -> &Item {
        match self {
            Merged::Written(item) => item,
            Merged::Owned(item) => item,
        }
    }
}

/// Merges `files` (base first) into one list, reporting what cannot be merged. The list borrows
/// the files' items (a compile holds one copy of its declarations); only an override's result
/// is a new item.
pub fn merge<'a>(files: &'a [File], diagnostics: &mut Vec<Diagnostic>) -> Vec<Entry<'a>> {
    let mut entries: Vec<Entry> = Vec::new();
    // Where each keyed declaration sits in `entries`; rebuilt after a `remove` shifts them.
    let mut index: HashMap<Key, usize> = HashMap::new();
    for (file_index, file) in files.iter().enumerate() {
        let has_base = file_index > 0;
        for item in &file.items {
            if let Decl::Remove { kind, name } = &item.decl {
                if !has_base {
                    diagnostics.push(without_base(item, "remove"));
                    continue;
                }
                remove(&mut entries, *kind, name, diagnostics);
                index = entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (key(&e.item.decl), i))
                    .filter(|(k, _)| *k != Key::None)
                    .collect();
                continue;
            }
            let k = key(&item.decl);
            let existing = match &k {
                Key::None => None,
                _ => index.get(&k).copied(),
            };
            if item.is_override {
                if !has_base {
                    diagnostics.push(without_base(item, "override"));
                    continue;
                }
                match existing {
                    Some(i) if entries[i].file_index < file_index && kind_changes(&entries[i].item, item) => {
                        diagnostics.push(kind_change(&entries[i].item, item));
                    }
                    Some(i) if entries[i].file_index < file_index => {
                        let merged = override_item(&entries[i].item, item);
                        if merged.decl.same_as(&entries[i].item.decl) {
                            diagnostics.push(
                                Diagnostic::warning(
                                    Code::OverrideNoChange,
                                    name_span(item),
                                    format!("this override of {} changes nothing", describe(&k)),
                                )
                                .label("states what the base already says")
                                .with_secondary(name_span(&entries[i].item), "the base says the same here")
                                .help("delete the override, or change the value you meant to change"),
                            );
                        }
                        entries[i].item = Merged::Owned(Box::new(merged));
                    }
                    Some(i) => diagnostics.push(duplicate(item, &entries[i].item, &k)),
                    None => {
                        let candidates: Vec<String> = entries
                            .iter()
                            .filter_map(|e| match (key(&e.item.decl), &k) {
                                (Key::Named(a, n), Key::Named(b, _)) if a == *b => Some(n),
                                _ => None,
                            })
                            .collect();
                        let wanted = match &k {
                            Key::Named(_, n) => n.clone(),
                            _ => String::new(),
                        };
                        if k == Key::None {
                            diagnostics.push(
                                Diagnostic::error(
                                    Code::OverrideUnknown,
                                    Span { end: item.span.start + "override".len() as u32, ..item.span },
                                    "this declaration has no name, so there is nothing to override",
                                )
                                .label("cannot be matched with the base")
                                .help("limits, unnamed hooks and cost adjustments are matched by nothing: `remove limit SUBJECT` and declare the new one, or name the hook (`hook NAME at ...`) in the base"),
                            );
                            continue;
                        }
                        diagnostics.push(
                            Diagnostic::error(
                                Code::OverrideUnknown,
                                name_span(item),
                                format!("the base has no {} to override", describe(&k)),
                            )
                            .label("not in any extended file")
                            .suggest(&wanted, candidates.iter().map(String::as_str))
                            .or_help("to add something new, leave out `override`"),
                        );
                    }
                }
                continue;
            }
            match existing {
                Some(i) if entries[i].file_index < file_index => diagnostics.push(
                    Diagnostic::error(
                        Code::NeedsOverride,
                        name_span(item),
                        format!("the base already has {}", describe(&k)),
                    )
                    .label("declared again here")
                    .with_secondary(name_span(&entries[i].item), "the base declares it here")
                    .help(format!("write `override` in front to change it: `override {}`", first_words(item))),
                ),
                Some(i) => diagnostics.push(duplicate(item, &entries[i].item, &k)),
                None => {
                    if k != Key::None {
                        index.insert(k, entries.len());
                    }
                    entries.push(Entry { item: Merged::Written(item), file_index })
                }
            }
        }
    }
    entries
}

fn first_words(item: &Item) -> String {
    match key(&item.decl) {
        Key::Named(kind, name) => {
            let word = match (kind, &item.decl) {
                (DeclKind::Action, Decl::Action(a)) => a.kind.word(),
                (DeclKind::Derive, _) => "derive",
                _ => kind.word(),
            };
            format!("{word} {name} ...")
        }
        Key::Single(word) => format!("{word} ..."),
        Key::None => String::new(),
    }
}

/// An override of an action must keep its kind: `override action x` on a reaction is a mistake.
fn kind_changes(base: &Item, new: &Item) -> bool {
    matches!((&base.decl, &new.decl), (Decl::Action(b), Decl::Action(n)) if b.kind != n.kind)
}

fn kind_change(base: &Item, new: &Item) -> Diagnostic {
    let (Decl::Action(b), Decl::Action(n)) = (&base.decl, &new.decl) else {
        return duplicate(new, base, &key(&new.decl));
    };
    Diagnostic::error(
        Code::OverrideUnknown,
        name_span(new),
        format!(
            "the base's `{}` is {} {}, not {} {}",
            b.name.name,
            article(b.kind.word()),
            b.kind.word(),
            article(n.kind.word()),
            n.kind.word()
        ),
    )
    .label("the kind differs from the base")
    .with_secondary(name_span(base), "declared here")
    .help(format!(
        "write `override {} {} {{ ... }}`; an override cannot change an action's kind",
        kind_keyword(b.kind),
        b.name.name
    ))
}

fn kind_keyword(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Free => "free action",
        other => other.word(),
    }
}

fn without_base(item: &Item, word: &str) -> Diagnostic {
    Diagnostic::error(
        Code::OverrideWithoutBase,
        Span { end: item.span.start + word.len() as u32, ..item.span },
        format!("`{word}` needs a base ruleset, but this ruleset extends nothing"),
    )
    .label("nothing to change")
    .help(format!("add `extends \"base.rules\"` to the header, or drop `{word}`"))
}

fn duplicate(item: &Item, first: &Item, k: &Key) -> Diagnostic {
    Diagnostic::error(Code::Duplicate, name_span(item), format!("{} is declared twice", describe(k)))
        .label("declared again here")
        .with_secondary(name_span(first), "first declared here")
        .help("rename or delete one of them")
}

fn remove(entries: &mut Vec<Entry>, kind: DeclKind, name: &Ident, diagnostics: &mut Vec<Diagnostic>) {
    let before = entries.len();
    entries.retain(|e| match (&e.item.decl, kind) {
        (Decl::Limit(l), DeclKind::Limit) => l.subject.name != name.name,
        (d, _) => key(d) != Key::Named(kind, name.name.to_string()),
    });
    if entries.len() == before {
        let candidates: Vec<String> = entries
            .iter()
            .filter_map(|e| match (&e.item.decl, key(&e.item.decl)) {
                (Decl::Limit(l), _) if kind == DeclKind::Limit => Some(l.subject.name.to_string()),
                (_, Key::Named(k, n)) if k == kind => Some(n),
                _ => None,
            })
            .collect();
        diagnostics.push(
            Diagnostic::error(
                Code::OverrideUnknown,
                name.span,
                format!("the base has no {} `{}` to remove", kind.word(), name.name),
            )
            .label("not in any extended file")
            .suggest(&name.name, candidates.iter().map(String::as_str)),
        );
    }
}

/// Replaces each clause kind the override states, where the base had it; keeps the base's other
/// clauses; kinds the base lacked go at the end. Keeping positions makes "changes nothing"
/// comparable clause by clause.
fn replace_kinds<C: Clone>(base: &[C], new: &[C], kind: impl Fn(&C) -> &'static str) -> Vec<C> {
    let stated: Vec<&str> = new.iter().map(&kind).collect();
    let mut out: Vec<C> = Vec::with_capacity(base.len() + new.len());
    let mut placed: Vec<&str> = Vec::new();
    for c in base {
        let k = kind(c);
        if !stated.contains(&k) {
            out.push(c.clone());
        } else if !placed.contains(&k) {
            placed.push(k);
            out.extend(new.iter().filter(|n| kind(n) == k).cloned());
        }
    }
    out.extend(new.iter().filter(|n| !placed.contains(&kind(n))).cloned());
    out
}

fn override_item(base: &Item, new: &Item) -> Item {
    let decl = match (&base.decl, &new.decl) {
        (Decl::Pool(b), Decl::Pool(n)) => Decl::Pool(Pool {
            name: b.name.clone(),
            label: n.label.clone().or(b.label.clone()),
            clauses: replace_kinds(&b.clauses, &n.clauses, PoolClause::kind_word),
        }),
        (Decl::Condition(b), Decl::Condition(n)) => Decl::Condition(Condition {
            name: b.name.clone(),
            label: n.label.clone().or(b.label.clone()),
            clauses: replace_kinds(&b.clauses, &n.clauses, ConditionClause::kind_word),
        }),
        (Decl::Action(b), Decl::Action(n)) => Decl::Action(merge_action(b, n)),
        (Decl::Trigger(b), Decl::Trigger(n)) => Decl::Trigger(merge_action(b, n)),
        (Decl::Initiative(b), Decl::Initiative(n)) => {
            Decl::Initiative(replace_kinds(b, n, InitiativeClause::kind_word))
        }
        _ => new.decl.clone(),
    };
    Item { doc: new.doc.clone().or(base.doc.clone()), is_override: false, decl, span: base.span }
}

fn merge_action(b: &Action, n: &Action) -> Action {
    Action {
        kind: n.kind,
        name: b.name.clone(),
        label: n.label.clone().or(b.label.clone()),
        clauses: replace_kinds(&b.clauses, &n.clauses, ActionClause::kind_word),
    }
}
