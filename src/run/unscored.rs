//! What a policy cannot score: for each policy of the scenario that weighs actions by their
//! effects (`Greedy`, or a `Search` whose playouts are Greedy's), each action its loadout holds
//! whose effects the score reads nothing of (decide/score.rs), though they do something through
//! an `emit` or by moving items between piles: the scorer gives it 0, and the policy never
//! takes it for its effect. Read from the compiled ruleset and the scenario's controllers,
//! before anything is played; `tempo sim` prints each note once.

use super::controller::Chosen;
use super::scenario::{self, Scenario};
use crate::ir::{self, Effect, Ruleset};

/// How deep nested blocks are read.
const MAX_DEPTH: u32 = 16;

/// One note per (policy, action) the scorer cannot read, in the order of the participants and
/// then of the actions: `Greedy cannot score Smash (its effect goes through emit hit(...)): it
/// scores it 0 and never takes it for its effect`. None when the scenario does not fit.
pub fn unscored(r: &Ruleset, s: &Scenario) -> Vec<String> {
    let Ok(setup) = scenario::resolve(s, r) else { return Vec::new() };
    let mut notes = Vec::new();
    let mut seen: Vec<usize> = Vec::new();
    for (who, control) in setup.controllers.iter().enumerate() {
        if control.policy.plain() != Chosen::Greedy {
            continue;
        }
        for (i, action) in r.actions.iter().enumerate() {
            if !matches!(action.kind, ir::ActionKind::Action | ir::ActionKind::Free | ir::ActionKind::Preparation)
                || seen.contains(&i)
                || setup.loadouts.get(who).and_then(Option::as_ref).is_some_and(|l| !l.get(i).copied().unwrap_or(true))
                || reads_any(&action.effects, 0)
            {
                continue;
            }
            let through = match (first_emit(&action.effects, 0), first_pile(r, &action.effects, 0)) {
                (Some(emit), _) => {
                    let event = r.events.get(emit.0.index()).map_or("?", |e| e.name.as_str());
                    let amount = if emit.1 { "(...)" } else { "" };
                    format!("goes through emit {event}{amount}")
                }
                (None, Some(pile)) => format!("only moves items, from {pile}"),
                (None, None) => continue,
            };
            seen.push(i);
            let name = action.label.as_deref().unwrap_or(&action.name);
            notes.push(format!(
                "Greedy cannot score {name} (its effect {through}): it scores it 0 and never takes it for its effect"
            ));
        }
    }
    notes
}

/// Whether any effect (in any branch) is one the scorer reads: a pool change or a condition
/// given or taken.
fn reads_any(effects: &[Effect], depth: u32) -> bool {
    depth <= MAX_DEPTH
        && effects.iter().any(|e| match e {
            Effect::Pool { .. } | Effect::Apply { .. } | Effect::Remove { .. } => true,
            _ => blocks(e).any(|b| reads_any(b, depth + 1)),
        })
}

/// The first event emitted (in any branch), and whether it carries an amount.
fn first_emit(effects: &[Effect], depth: u32) -> Option<(ir::EventId, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    effects.iter().find_map(|e| match e {
        Effect::Emit(event) => Some((*event, false)),
        Effect::EmitWith(event, _) => Some((*event, true)),
        _ => blocks(e).find_map(|b| first_emit(b, depth + 1)),
    })
}

/// The pile the first draw or move of items (in any branch) takes from.
fn first_pile<'r>(r: &'r Ruleset, effects: &[Effect], depth: u32) -> Option<&'r str> {
    if depth > MAX_DEPTH {
        return None;
    }
    effects.iter().find_map(|e| match e {
        Effect::Pile(ir::PileEffect::Draw { from, .. } | ir::PileEffect::Move { from, .. }) => {
            r.piles.get(from.pile.index()).map(|p| p.name.as_str())
        }
        _ => blocks(e).find_map(|b| first_pile(r, b, depth + 1)),
    })
}

/// The blocks nested in an effect.
fn blocks(e: &Effect) -> Box<dyn Iterator<Item = &[Effect]> + '_> {
    e.blocks()
}
