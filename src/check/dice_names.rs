//! Declared names spelled as dice (`d6`, `d20`): an expression reads such a word as dice, never
//! as the name, so a stat `d6` would be rolled where it is read and an item kind `d2` could not
//! be counted. Refused where they are declared (`tempo::dice-name`).

use super::merge::Entry;
use crate::diagnostics::{Code, Diagnostic};
use crate::syntax::ast::{Decl, Ident};

/// Whether an expression reads the word as dice: `d` and one digit or more, nothing else.
pub(crate) fn reads_as_dice(name: &str) -> bool {
    name.strip_prefix('d').is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

/// One error per declared name that reads as dice.
pub(crate) fn dice_names(entries: &[Entry]) -> Vec<Diagnostic> {
    let mut names: Vec<(&Ident, &str)> = Vec::new();
    for entry in entries {
        declared(&entry.item.decl, &mut names);
    }
    names.into_iter().filter(|(n, _)| reads_as_dice(&n.name)).map(|(n, what)| refuse(n, what)).collect()
}

/// The error for one name: what it would read as, and a name to rename it to.
pub(crate) fn refuse(name: &Ident, what: &str) -> Diagnostic {
    let n = &name.name;
    let dice = &n[1..];
    Diagnostic::error(Code::DiceName, name.span, format!("the {what} `{n}` is named like a die"))
        .label(format!("`{n}` in an expression rolls 1{n}, never reads this {what}"))
        .help(format!("rename it so it does not read as a die, e.g. `{n}_{what}` or `die{dice}`", what = slug(what)))
}

fn slug(what: &str) -> String {
    what.replace(' ', "_")
}

/// The names a declaration declares, each with what it is.
fn declared<'a>(decl: &'a Decl, out: &mut Vec<(&'a Ident, &'static str)>) {
    match decl {
        Decl::Stat { name, .. } => out.push((name, "stat")),
        Decl::Derive { name, .. } => out.push((name, "derived value")),
        Decl::Category { name, .. } => out.push((name, "category")),
        Decl::Event { name, .. } => out.push((name, "event")),
        Decl::Pool(p) => out.push((&p.name, "pool")),
        Decl::Condition(c) => out.push((&c.name, "condition")),
        Decl::Action(a) => out.push((&a.name, "action")),
        Decl::Trigger(t) => out.push((&t.name, "trigger")),
        Decl::Effect { name, .. } => out.push((name, "effect")),
        Decl::Object { name, .. } => out.push((name, "object")),
        Decl::Terrain(t) => out.push((&t.name, "terrain")),
        Decl::Rest { name, .. } => out.push((name, "rest")),
        Decl::Outro { name, .. } => out.push((name, "outro")),
        Decl::Pile(p) => out.push((&p.name, "pile")),
        Decl::Round(phases) => out.extend(phases.iter().map(|ph| (&ph.name, "phase"))),
        Decl::Space { zones, .. } => out.extend(zones.iter().map(|z| (z, "zone"))),
        Decl::Degrees(d) => {
            out.push((&d.name, "degrees"));
            out.extend(d.levels.iter().map(|l| (&l.name, "degree")));
        }
        Decl::Items(set) => {
            out.push((&set.name, "set of items"));
            out.extend(set.kinds.iter().map(|k| (&k.name, "item kind")));
        }
        Decl::Die { name, faces, .. } => {
            out.push((name, "die"));
            out.extend(faces.iter().flatten().map(|s| (s, "symbol")));
        }
        _ => {}
    }
}
