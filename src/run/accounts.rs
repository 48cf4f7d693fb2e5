//! The account of a `Search` choice (`tempo run --decisions`): a `choose`, an optional upkeep
//! (`maintain ... optional`) or an initiative adjustment, with what each option was worth, as
//! its turns and reactions are accounted for in search.rs.

use super::engine::Engine;
use super::lookahead::Logged;
use super::search::Tried;
use super::sink::Sink;
use super::trace::{Considered, Event};

impl<S: Sink> Engine<'_, S> {
    /// The `decision` event of a `Search` choice: each option searched with its mean value (or
    /// exact chance) and playouts, and the one taken; written only where the `choose` being
    /// asked left its names in `scratch.choice` (a side's slot is not accounted for).
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
}
