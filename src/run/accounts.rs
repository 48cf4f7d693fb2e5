//! What `Search` decided, with what each option was worth (`tempo run --decisions`): its turns
//! and reactions, and its choices (a `choose`, an optional upkeep (`maintain ... optional`),
//! the taker of a side's slot, an initiative adjustment).

use super::controller::Decision;
use super::engine::Engine;
use super::lookahead::Logged;
use super::search::Tried;
use super::sink::Sink;
use super::trace::{Considered, Event};

impl<S: Sink> Engine<'_, S> {
    /// The `decision` event of a `Search` choice: each option searched with its mean value (or
    /// exact chance) and playouts, and the one taken; written only where the `choose` being
    /// asked left its names in `scratch.choice` (a `choose`, or `slot`: who of a side takes its
    /// slot, slots.rs).
    #[cold]
    #[inline(never)]
    pub(super) fn account_choice(&mut self, who: usize, options: &[Logged], tried: &[Tried], chosen: usize) {
        let Some((question, names)) = self.scratch.choice.clone() else { return };
        let considered = |o: Logged, t: Option<&Tried>| match o {
            Logged::Choice(i) => names.get(i).map(|name| Considered {
                action: name.clone(),
                target: None,
                score: t.map(|t| (t.value * 1000.0).round() / 1000.0 + 0.0),
                playouts: t.map(|t| t.playouts),
            }),
            _ => None,
        };
        let considered_all = options.iter().zip(tried).filter_map(|(o, t)| considered(*o, Some(t))).collect();
        let chosen = considered(Logged::Choice(chosen), None);
        let who = self.names.who[who].clone();
        self.emit(Event::Decision {
            who,
            policy: "search",
            considered: considered_all,
            chosen,
            reaction: false,
            pass: None,
            question: Some(question),
        });
    }

    /// The `decision` event of a `Search` initiative adjustment: `for initiative: -2 (...), +0
    /// (...), +2 (...); takes +2.`
    #[cold]
    #[inline(never)]
    pub(super) fn account_adjust(&mut self, who: usize, options: &[Logged], tried: &[Tried], chosen: i64) {
        let considered = |by: i64, t: Option<&Tried>| Considered {
            action: format!("{by:+}").into(),
            target: None,
            score: t.map(|t| (t.value * 1000.0).round() / 1000.0 + 0.0),
            playouts: t.map(|t| t.playouts),
        };
        let considered_all = options
            .iter()
            .zip(tried)
            .filter_map(|(o, t)| match o {
                Logged::Adjust(by) => Some(considered(*by, Some(t))),
                _ => None,
            })
            .collect();
        let who = self.names.who[who].clone();
        self.emit(Event::Decision {
            who,
            policy: "search",
            considered: considered_all,
            chosen: Some(considered(chosen, None)),
            reaction: false,
            pass: None,
            question: Some("initiative".into()),
        });
    }

    /// The `decision` event of a `Search` turn: each candidate with its mean value and playouts.
    #[cold]
    #[inline(never)]
    pub(super) fn account_search(&mut self, who: usize, options: &[Logged], tried: &[Tried], chosen: Logged) {
        let considered = |o: Logged, t: Option<&Tried>| {
            let (action, target) = match o {
                Logged::Turn(Decision::Act { action, target, .. }) => (action, target),
                Logged::React(Some((action, target))) => (action, target),
                _ => return None,
            };
            Some(super::trace::Considered {
                action: self.names.action[action.index()].clone(),
                target: target.map(|t| self.names.who[t].clone()),
                score: t.map(|t| (t.value * 1000.0).round() / 1000.0 + 0.0),
                playouts: t.map(|t| t.playouts),
            })
        };
        let listed = options.iter().zip(tried).filter_map(|(o, t)| considered(*o, Some(t))).collect();
        // Ending the turn, or declining: no action, so listed apart.
        let pass = options.iter().zip(tried).find_map(|(o, t)| {
            matches!(o, Logged::Turn(Decision::EndTurn) | Logged::React(None))
                .then(|| super::trace::Pass { score: (t.value * 1000.0).round() / 1000.0 + 0.0, playouts: t.playouts })
        });
        let reaction = matches!(chosen, Logged::React(_));
        let chosen = considered(chosen, None);
        let who_name = self.names.who[who].clone();
        let event = super::trace::Event::Decision {
            who: who_name,
            policy: "search",
            considered: listed,
            chosen,
            reaction,
            pass,
            question: None,
        };
        self.emit(event);
    }
}
