//! The runner as the exact solver sees it (src/solve/): an encounter played a round at a time
//! from a kept state, with every die and every decision of the solved participants read from a
//! tape (tape.rs), stopping at the first branch point past it; the states between rounds kept
//! and named by their canonical bytes (canon.rs).

use super::canon::Canon;
use super::controller::{Chosen, Decision};
use super::engine::Engine;
use super::error::RunError;
use super::lookahead::Logged;
use super::scenario::{self, Resolved, Scenario};
use super::tables::Tables;
use super::tape::{Need, Tape};
use crate::ir::Ruleset;
use std::rc::Rc;

/// Where a play from a kept state (or the start) stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Reached {
    /// A draw past the tape, with this many outcomes, each as likely: a die's faces (`die`),
    /// else a pick (an item, a random policy's choice, a seat, a turn from a bag); or as
    /// likely as `weights` say, when there are any (a pool's count of successes).
    Chance { outcomes: u32, die: bool, weights: Vec<u64> },
    /// A decision of a solved participant past the tape, among this many options; with the
    /// canonical bytes of the position when it is the same wherever reached from (a turn's
    /// decision in a phase of turns), so the solver merges it.
    Decide { who: usize, options: usize, key: Option<Box<[u8]>> },
    /// A turn's decision of someone not solved for, where the position may have been met
    /// before: its canonical bytes. Played on by a tape entry (any) of its own.
    Checkpoint { key: Box<[u8]> },
    /// The round is over and the encounter goes on: the state is between two rounds.
    Between,
    /// The encounter is over: its outcome (a side's index, or after the sides, as `tempo sim`
    /// numbers them: nobody standing, the round limit, stopped by a rule) and its last round.
    Ended { outcome: usize, round: u32 },
}

/// Why the solver cannot play this encounter.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The scenario does not fit the ruleset, or the encounter's setup failed.
    Run(RunError),
    /// A participant not solved for is played by `Search`, whose playouts draw dice of their
    /// own that no tape holds.
    Searcher(String),
    /// A hidden phase where a solved participant decides: the solver would see the others'
    /// secret picks.
    Hidden(String),
}

/// A real round followed to a decision (`Explorer::record`).
pub(crate) struct Followed {
    pub(crate) taken: Vec<u32>,
    pub(crate) who: usize,
    pub(crate) options: usize,
    pub(crate) state: Box<[u8]>,
}

pub struct Explorer<'a> {
    ruleset: &'a Ruleset,
    scenario: &'a Scenario,
    setup: Resolved,
    play: Engine<'a, ()>,
    /// The states kept between rounds, by the solver's depth.
    kept: Vec<Engine<'a, ()>>,
    tables: Rc<Tables>,
    canon: Canon,
    /// The options of the last decision met past the tape, and the names of a choice's.
    options: Vec<Logged>,
    labels: Vec<String>,
}

impl<'a> Explorer<'a> {
    /// An explorer of this encounter; `deciders` per participant (empty: none): whose decisions
    /// are branch points.
    pub fn new(r: &'a Ruleset, s: &'a Scenario, deciders: &[bool]) -> Result<Explorer<'a>, Refusal> {
        let setup = scenario::resolve(s, r).map_err(|p| Refusal::Run(RunError::Scenario(p)))?;
        let n = setup.names.len();
        let mut deciders = deciders.to_vec();
        deciders.resize(n, false);
        for (who, c) in setup.controllers.iter().enumerate() {
            if matches!(c.policy, Chosen::Search(_)) && !deciders[who] {
                return Err(Refusal::Searcher(setup.names[who].clone()));
            }
        }
        if deciders.iter().any(|d| *d) {
            if let Some(p) = r.phases.iter().find(|p| p.hidden) {
                return Err(Refusal::Hidden(p.name.clone()));
            }
        }
        let tables = Rc::new(Tables::new(r, &setup, s.gm.clone()));
        let mut play = Engine::new(r, Rc::clone(&tables), &setup, ());
        let canon = Canon::for_ruleset(r);
        let tape = play.tape.get_or_insert_with(Default::default);
        tape.canon = canon.clone();
        // Whose decisions are branch points: the same for every play.
        tape.deciders.clone_from(&deciders);
        Ok(Explorer {
            ruleset: r,
            scenario: s,
            setup,
            play,
            kept: Vec::new(),
            tables,
            canon,
            options: Vec::new(),
            labels: Vec::new(),
        })
    }

    /// Plays from the kept state at `from` (`None`: the encounter's start, set up and begun)
    /// through one round, the branch points' outcomes read from `taken`.
    pub fn play(&mut self, from: Option<usize>, taken: &[u32]) -> Result<Reached, RunError> {
        let rounds = self.scenario.rounds;
        let e = &mut self.play;
        if let Some(k) = from {
            match self.kept.get(k) {
                Some(kept) => e.copy_from(kept),
                None => return Err(RunError::rule("the solver asked for a state it did not keep")),
            }
        }
        let tape = e.tape.get_or_insert_with(Default::default);
        let Tape { taken: t, next, need, labels, frames, key, .. } = &mut **tape;
        labels.clear();
        frames.clear();
        *key = None;
        t.clear();
        t.extend_from_slice(taken);
        *next = 0;
        *need = None;
        let played = match from {
            None => e.reset(&self.setup, self.scenario.seed).and_then(|()| e.begin()).map(|()| true),
            Some(_) => e.next_round(rounds),
        };
        if let Some(need) = e.tape.as_deref_mut().and_then(|t| t.need.take()) {
            return Ok(match need {
                Need::Chance { outcomes, die, weights } => Reached::Chance { outcomes, die, weights },
                Need::Checkpoint => {
                    let key = e.tape.as_deref_mut().and_then(|t| t.key.take()).unwrap_or_default();
                    Reached::Checkpoint { key: key.into_boxed_slice() }
                }
                Need::Decide { who, options } => {
                    let n = options.len();
                    self.options = options;
                    self.labels = e.tape.as_deref_mut().map(|t| std::mem::take(&mut t.labels)).unwrap_or_default();
                    let key = e.tape.as_deref_mut().and_then(|t| t.key.take()).map(Vec::into_boxed_slice);
                    Reached::Decide { who, options: n, key }
                }
            });
        }
        played?;
        let (round, over) = (e.clock.round, e.clock.ended.is_some() || e.clock.round >= rounds);
        if !over {
            return Ok(Reached::Between);
        }
        Ok(Reached::Ended { outcome: self.outcome(), round })
    }

    /// Follows the round a real encounter is playing, from `start` (its state when the round
    /// began, kept here at depth 0) with its own dice and the solved participants' `log`ged
    /// decisions, to the decision after the last of them (tape::Record). Returns the tape that
    /// reaches it, who decides there, among how many options (`options`), and the state there
    /// in canonical bytes; `None` when the round could not be followed there.
    pub(crate) fn record(&mut self, start: &Engine<'a, ()>, log: &[Logged]) -> Result<Option<Followed>, RunError> {
        if self.kept.is_empty() {
            self.kept.push(Engine::new(self.ruleset, Rc::clone(&self.tables), &self.setup, ()));
        }
        self.kept[0].copy_from(start);
        if let Some(t) = self.play.tape.as_deref_mut() {
            t.record = Some(super::tape::Record { log: log.to_vec(), next: 0, lost: false });
        }
        let reached = self.play(Some(0), &[]);
        let Some(t) = self.play.tape.as_deref_mut() else { return Ok(None) };
        let record = t.record.take();
        let taken = std::mem::take(&mut t.taken);
        let followed = record.is_some_and(|r| !r.lost && r.next == log.len());
        Ok(match reached? {
            Reached::Decide { who, options, key: Some(state) } if followed => {
                Some(Followed { taken, who, options, state })
            }
            _ => None,
        })
    }

    /// The options of the last decision met past the tape.
    pub(crate) fn options(&self) -> &[Logged] {
        &self.options
    }

    /// The outcome of the encounter the last play ended, numbered as `tempo sim` numbers it.
    fn outcome(&self) -> usize {
        let w = &self.play.world;
        let sides = self.setup.side_names.len();
        let mut standing = (0..w.n).filter(|who| w.standing(*who)).map(|who| w.sides[who] as usize);
        let first = standing.next();
        match first {
            None => sides,
            Some(side) if standing.all(|s| s == side) => side,
            Some(_) if self.play.clock.round >= self.scenario.rounds => sides + 1,
            Some(_) => sides + 2,
        }
    }

    /// The canonical bytes of the state the last play reached between two rounds (told apart
    /// from a position's inside a round, `Reached::Decide`, by their first byte).
    pub fn key(&mut self) -> &[u8] {
        self.play.canonical(&mut self.canon);
        self.canon.bytes.insert(0, super::tape::BETWEEN_ROUNDS);
        &self.canon.bytes
    }

    /// Keeps the state the last play reached at `depth`, to play on from.
    pub fn keep(&mut self, depth: usize) {
        while self.kept.len() <= depth {
            self.kept.push(Engine::new(self.ruleset, Rc::clone(&self.tables), &self.setup, ()));
        }
        self.kept[depth].copy_from(&self.play);
    }

    /// The round the state kept at `depth` is after.
    pub fn round_of(&self, depth: usize) -> u32 {
        self.kept.get(depth).map_or(0, |e| e.clock.round)
    }

    /// The participants' names, in the scenario's order.
    pub fn names(&self) -> &[String] {
        &self.setup.names
    }

    /// How many outcomes an encounter has: a side left standing, else one of the three
    /// `outcome` numbers after the sides.
    pub fn outcomes(&self) -> usize {
        self.setup.side_names.len() + 3
    }

    /// The side (its index among `sides`) participant `who` is on.
    pub fn side_of(&self, who: usize) -> usize {
        self.setup.sides.get(who).map_or(0, |s| *s as usize)
    }

    /// The sides' names, in the order outcomes number them.
    pub fn sides(&self) -> &[String] {
        &self.setup.side_names
    }

    /// Option `i` of the last decision met, in words (`Attack at Brute`, `end the turn`).
    pub fn option_label(&self, i: usize) -> String {
        let names = &self.play.names;
        match self.options.get(i) {
            Some(Logged::Turn(Decision::Act { action, target, units })) => {
                let mut s = names.action[action.index()].to_string();
                if let Some(t) = target {
                    s.push_str(&format!(" at {}", names.who[*t]));
                }
                if let Some(u) = units {
                    s.push_str(&format!(" ({u})"));
                }
                s
            }
            Some(Logged::Turn(Decision::EndTurn)) => "end the turn".into(),
            Some(Logged::React(Some((a, _)))) => format!("react with {}", names.action[a.index()]),
            Some(Logged::React(None)) => "decline to react".into(),
            Some(Logged::Choice(k)) => match self.labels.get(*k) {
                Some(label) => format!("answer {label}"),
                None => format!("answer {}", k + 1),
            },
            Some(Logged::Adjust(by)) => format!("adjust initiative by {by:+}"),
            None => "?".into(),
        }
    }
}
