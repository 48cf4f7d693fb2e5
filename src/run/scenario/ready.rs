//! What a scenario's `Ready` step names: what it waits for (`on`) and whose doing (`by`).

use crate::ir::{self, Ruleset};

/// `by: "enemy"` or `"ally"`: only what such a participant does sets the ready off.
pub(super) fn ready_by(word: &str) -> Result<ir::Relation, ()> {
    match word {
        "enemy" => Ok(ir::Relation::Enemy),
        "ally" => Ok(ir::Relation::Ally),
        _ => Err(()),
    }
}

/// What a `Ready` step's `on` names: an action, else a category, else an action kind, else an
/// event of the ruleset, in that order.
pub(super) fn ready_on(r: &Ruleset, on: &str) -> Option<ir::EventRef> {
    if let Some(a) = r.actions.iter().position(|a| a.name == on) {
        Some(ir::EventRef::Action(ir::ActionId(a as u32)))
    } else if let Some(c) = r.categories.iter().position(|c| c.name == on) {
        Some(ir::EventRef::Category(ir::CategoryId(c as u32)))
    } else if let Some(k) = ir::ActionKind::from_word(on) {
        Some(ir::EventRef::Kind(k))
    } else {
        let e = r.events.iter().position(|e| e.name == on)?;
        Some(ir::EventRef::Custom(ir::EventId(e as u32)))
    }
}

/// Every name a `Ready` step's `on` may take, for "did you mean".
pub(super) fn ready_candidates(r: &Ruleset) -> Vec<String> {
    let actions = r.actions.iter().map(|a| a.name.clone());
    let categories = r.categories.iter().map(|c| c.name.clone());
    let kinds = ir::ActionKind::ALL.into_iter().map(|k| k.word().to_string());
    let events = r.events.iter().map(|e| e.name.clone());
    actions.chain(categories).chain(kinds).chain(events).collect()
}
