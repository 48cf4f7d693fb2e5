//! What an expression or effect is evaluated for: whose values `self`, `target`, `actor` and
//! `victim` mean, and the event a reaction or trigger answers.

use super::error::RunError;
use crate::ir::{self, Who};

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ctx {
    pub owner: usize,
    pub target: Option<usize>,
    pub actor: Option<usize>,
    pub victim: Option<usize>,
    pub event: Option<EventInfo>,
    /// Units of movement the action being resolved paid for.
    pub units: i64,
    /// Inside a condition's own rules: who applied it.
    pub source: Option<usize>,
    /// The action whose effects these are (its checks are that action's, for `modify checks
    /// ... on NAME`).
    pub acting: Option<crate::ir::ActionId>,
}

/// The event being answered: an action (with its kind) or an emitted event.
#[derive(Debug, Clone, Copy)]
pub struct EventInfo {
    pub action: Option<ir::ActionId>,
    pub custom: Option<ir::EventId>,
    /// For an emitted event: the action (or reaction) whose effects emitted it. Read only by
    /// `trigger is`; what answers the event is found from `custom` alone.
    pub emitter: Option<ir::ActionId>,
    /// For an event emitted with an amount: its slot in `Engine::amounts`.
    pub amount: Option<u32>,
    /// A timing answered as an event (`on turn_end`).
    pub timing: Option<ir::Timing>,
}

impl Ctx {
    /// Evaluating for `owner` alone: no target, no event.
    pub fn of(owner: usize) -> Ctx {
        Ctx { owner, ..Ctx::default() }
    }

    /// The participant a `Who` names here.
    #[inline]
    pub fn who(&self, w: Who) -> Result<usize, RunError> {
        match w {
            Who::Owner => Ok(self.owner),
            Who::Target => self.target.ok_or_else(|| RunError::rule("`target` was used, but the action has no target")),
            Who::EventActor => self.actor.ok_or_else(|| RunError::rule("`actor` was used outside an event")),
            Who::EventTarget => {
                self.victim.ok_or_else(|| RunError::rule("`victim` was used, but the event has no target"))
            }
            Who::Source => Ok(self.source.unwrap_or(self.owner)),
            // Read from the world (`Engine::party`): a side's pools only.
            Who::EnemySide => Err(RunError::rule("`enemy_side` names only the pools a side keeps `per side`")),
        }
    }
}

impl Ctx {
    /// Writes this context canonically (canon.rs).
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        let Ctx { owner, target, actor, victim, event, units, source, acting } = self;
        c.put(&(owner, target, actor, victim, units, source, acting));
        c.put(&event.map(|e| (e.action, e.custom, e.emitter, e.amount)));
        // Written only when there is one, so a state without timings answered reads as before.
        if let Some(t) = event.and_then(|e| e.timing) {
            c.put(&t);
        }
    }
}

impl EventInfo {
    /// Does this event match `pattern` (an action, its category or kind, or a custom event)?
    pub fn is(self, r: &ir::Ruleset, pattern: ir::EventRef) -> bool {
        match (pattern, self.action, self.custom) {
            (ir::EventRef::Timing(t), _, _) => self.timing == Some(t),
            (ir::EventRef::Custom(e), _, Some(got)) => e == got,
            (ir::EventRef::Action(a), Some(got), _) => a == got,
            (ir::EventRef::Category(cat), Some(got), _) => r.actions[got.index()].categories.contains(&cat),
            (ir::EventRef::Kind(k), Some(got), _) => r.actions[got.index()].kind == k,
            _ => false,
        }
    }

    /// `trigger is NAME`: the event matches `pattern`, or was emitted by the effects of an
    /// action that does (its name, one of its categories, its kind), so a hit emitted by a
    /// counterattack is of `counterattack`.
    pub(crate) fn is_of(self, r: &ir::Ruleset, pattern: ir::EventRef) -> bool {
        self.is(r, pattern) || self.emitter.is_some_and(|a| EventInfo::action(a).is(r, pattern))
    }

    /// The use of action `a`.
    pub fn action(a: ir::ActionId) -> EventInfo {
        EventInfo { action: Some(a), custom: None, emitter: None, amount: None, timing: None }
    }

    /// A timing answered as an event.
    pub fn timing(t: ir::Timing) -> EventInfo {
        EventInfo { action: None, custom: None, emitter: None, amount: None, timing: Some(t) }
    }
}
