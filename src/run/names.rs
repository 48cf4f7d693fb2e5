//! The names events carry, made once per run so that every event shares them: copying a name
//! is a reference count, never an allocation. Indices in, names out; nothing is looked up by
//! name here.

use super::trace::{self, Name};
use crate::ir::{Ruleset, Timing};

#[derive(Debug, Default)]
pub struct Names {
    /// Participants, in the scenario's order.
    pub who: Vec<Name>,
    /// Sides, by index (`Resolved::sides`); set by the engine, empty for a bare `Names::new`.
    pub side: Vec<Name>,
    pub pool: Vec<Name>,
    pub action: Vec<Name>,
    pub condition: Vec<Name>,
    pub event: Vec<Name>,
    pub trigger: Vec<Name>,
    pub phase: Vec<Name>,
    /// The built-in outcomes of a check: success, failure, critical, fumble.
    pub outcome: [Name; 4],
    /// Per declared degrees, its levels.
    pub levels: Vec<Vec<Name>>,
    /// Per pile, its name; per set of items, its kinds' names.
    pub pile: Vec<Name>,
    pub item: Vec<Vec<Name>>,
    /// Other strings of the ruleset (questions, options), keyed by their address.
    interned: Vec<((usize, usize), Name)>,
    /// Timings answered as events, as their answers' `source` names them.
    answered: Vec<(Timing, Name)>,
}

impl Names {
    pub fn new(r: &Ruleset, participants: &[String]) -> Names {
        fn all<T>(list: &[T], name: impl Fn(&T) -> &str) -> Vec<Name> {
            list.iter().map(|x| Name::from(name(x))).collect()
        }
        Names {
            who: all(participants, |x| x),
            side: Vec::new(),
            pool: all(&r.pools, |x| &x.name),
            action: all(&r.actions, |x| &x.name),
            condition: all(&r.conditions, |x| &x.name),
            event: all(&r.events, |x| &x.name),
            trigger: all(&r.triggers, |x| &x.name),
            phase: all(&r.phases, |x| &x.name),
            outcome: ["success", "failure", "critical", "fumble"].map(Name::from),
            levels: r.degrees.iter().map(|d| all(&d.levels, |l| &l.name)).collect(),
            pile: all(&r.piles, |x| &x.name),
            item: r.item_sets.iter().map(|s| all(&s.kinds, |k| &k.name)).collect(),
            interned: Vec::new(),
            answered: Vec::new(),
        }
    }

    /// The names of the sides, by index.
    pub fn with_sides(mut self, sides: &[String]) -> Names {
        self.side = sides.iter().map(|s| Name::from(s.as_str())).collect();
        self
    }

    /// A shared name for a string of the ruleset (a choice's question or option), made once:
    /// the cache is keyed by the string's address, which does not move while the ruleset is
    /// borrowed.
    pub(crate) fn intern(&mut self, text: &str) -> Name {
        let key = (text.as_ptr() as usize, text.len());
        if let Some((_, name)) = self.interned.iter().find(|(k, _)| *k == key) {
            return name.clone();
        }
        let name = Name::from(text);
        self.interned.push((key, name.clone()));
        name
    }

    /// A timing answered as an event (`on turn_end`), as the `source` of its answers: made once.
    pub(crate) fn answered(&mut self, t: Timing) -> Name {
        if let Some((_, name)) = self.answered.iter().find(|(k, _)| *k == t) {
            return name.clone();
        }
        let name = Name::from(self.timing(t).to_string().as_str());
        self.answered.push((t, name.clone()));
        name
    }

    /// A timing as the trace names it; no allocation.
    pub fn timing(&self, t: Timing) -> trace::Timing {
        use trace::Timing as T;
        match t {
            Timing::EncounterStart => T::Plain("encounter_start"),
            Timing::EncounterEnd => T::Plain("encounter_end"),
            Timing::RoundStart => T::Plain("round_start"),
            Timing::RoundEnd => T::Plain("round_end"),
            Timing::TurnStart => T::Plain("turn_start"),
            Timing::TurnEnd => T::Plain("turn_end"),
            Timing::PhaseStart(p) => T::PhaseStart(self.phase[p.index()].clone()),
            Timing::PhaseEnd(p) => T::PhaseEnd(self.phase[p.index()].clone()),
        }
    }
}
