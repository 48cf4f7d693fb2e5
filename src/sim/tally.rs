//! The simulation's sink: it folds one encounter's events and facts into counts as they happen
//! and keeps no event. Names are matched to indices by the address of the shared name the event
//! carries (the runner makes each name once), so counting compares pointers, not strings.

use super::layout::Layout;
use crate::run::names::Names;
use crate::run::sink::{Fact, Sink};
use crate::run::trace::{Cause, Event, Name, Record};

/// Names to indices, by address first and by text for a name the runner made on the spot.
#[derive(Debug, Default)]
pub struct Index {
    who: Vec<Name>,
    pool: Vec<Name>,
    action: Vec<Name>,
    condition: Vec<Name>,
}

impl Index {
    pub fn new(names: &Names) -> Index {
        Index {
            who: names.who.clone(),
            pool: names.pool.clone(),
            action: names.action.clone(),
            condition: names.condition.clone(),
        }
    }
}

fn find(list: &[Name], name: &Name) -> Option<usize> {
    list.iter().position(|n| Name::ptr_eq(n, name)).or_else(|| list.iter().position(|n| n == name))
}

/// One encounter's counts.
pub struct Tally<'l> {
    pub layout: &'l Layout,
    index: Index,
    pub values: Vec<i64>,
    /// Refused declarations: action, code, how many.
    pub refusals: Vec<(Name, &'static str, i64)>,
    /// Length of each chain of reactions, in answers (the deepest answer in it).
    pub chains: Vec<u32>,
    /// The encounter's end was decided (outcome and length counted).
    decided: bool,
    /// The encounter has ended: what follows (downtime, rests) is not counted.
    done: bool,
    /// The highest round seen.
    round: u32,
    /// The side of whoever took the encounter's first turn (none: nobody had a turn).
    pub first_side: Option<usize>,
    /// Per participant and action (`who * actions + action`), twice: decisions at which it was
    /// affordable, then decisions at which it was taken (`Fact::Offered`). Empty unless
    /// `count_options` asked for them.
    pub options: Vec<i64>,
}

impl<'l> Tally<'l> {
    pub fn new(layout: &'l Layout) -> Tally<'l> {
        Tally {
            layout,
            index: Index::default(),
            values: vec![0; layout.len()],
            refusals: Vec::new(),
            chains: Vec::new(),
            decided: false,
            done: false,
            round: 0,
            first_side: None,
            options: Vec::new(),
        }
    }

    /// Counts what was affordable at each decision and what was taken, too (it costs the
    /// engine a search of every action per decision).
    pub fn count_options(&mut self) {
        self.options = vec![0; 2 * self.layout.participants.len() * self.layout.actions.len()];
    }

    /// Matches names by the runner's shared names from now on.
    pub(crate) fn set_index(&mut self, index: Index) {
        self.index = index;
    }

    /// Ready for the next encounter (allocations kept).
    pub fn clear(&mut self) {
        self.values.iter_mut().for_each(|v| *v = 0);
        self.refusals.clear();
        self.chains.clear();
        self.decided = false;
        self.done = false;
        self.round = 0;
        self.first_side = None;
        self.options.iter_mut().for_each(|v| *v = 0);
    }

    /// Whether the encounter ran to its end (a failed run never gets there).
    pub fn ended(&self) -> bool {
        self.decided && self.done
    }

    fn add(&mut self, at: usize, n: i64) {
        if let Some(v) = self.values.get_mut(at) {
            *v = v.saturating_add(n);
        }
    }

    fn spent(&mut self, who: &Name, pool: &Name, amount: i64) {
        if let (Some(w), Some(p)) = (find(&self.index.who, who), find(&self.index.pool, pool)) {
            self.add(self.layout.spent(w, p), amount);
        }
    }

    fn end(&mut self, standing: &[bool]) {
        let layout = self.layout;
        self.values[Layout::ROUNDS] = i64::from(self.round);
        let mut sides = standing.iter().zip(&layout.side_of).filter(|(s, _)| **s).map(|(_, side)| *side);
        let first = sides.next();
        let outcome = match first {
            None => layout.sides.len(),
            Some(side) if sides.all(|s| s == side) => side,
            Some(_) if self.round >= layout.round_limit => layout.sides.len() + 1,
            Some(_) => layout.sides.len() + 2,
        };
        self.add(layout.outcome(outcome), 1);
        self.decided = true;
    }
}

impl Sink for Tally<'_> {
    fn record(&mut self, record: Record) {
        if self.done {
            return;
        }
        if let (Some(r), false) = (record.round, self.decided) {
            self.round = self.round.max(r);
        }
        match &record.event {
            Event::TurnStart { actor } => {
                if let Some(w) = find(&self.index.who, actor) {
                    // Turns are counted by `Fact::Played`: only those in which it could act.
                    if self.first_side.is_none() {
                        self.first_side = self.layout.side_of.get(w).copied();
                    }
                }
            }
            Event::Action { actor, action, paid, .. } => {
                if let (Some(w), Some(a)) = (find(&self.index.who, actor), find(&self.index.action, action)) {
                    self.add(self.layout.uses(w, a), 1);
                }
                for (pool, amount) in paid.sorted() {
                    self.spent(actor, pool, *amount);
                }
            }
            // A side's pool (`side`) is no participant's: its payments are not counted as one's.
            Event::Pool { who, pool, from, to, cause, side: false } if to < from => {
                // What an action pays is in its `paid`; these pay outside a declaration.
                if matches!(cause, Cause::Partner { .. } | Cause::Continued(_) | Cause::Maintain(_)) {
                    self.spent(who, pool, from - to);
                }
            }
            Event::Rejected { action, code, .. } => {
                match self.refusals.iter_mut().find(|(a, c, _)| (Name::ptr_eq(a, action) || a == action) && c == code) {
                    Some(entry) => entry.2 += 1,
                    None => self.refusals.push((action.clone(), code, 1)),
                }
            }
            Event::Trigger { .. } => self.add(Layout::ANSWERS, 1),
            Event::EncounterEnd { .. } => {
                self.values[Layout::CHAINS] = self.chains.len() as i64;
                self.done = true;
            }
            Event::Condition { who, condition, on: true } => {
                if let (Some(w), Some(c)) = (find(&self.index.who, who), find(&self.index.condition, condition)) {
                    self.add(self.layout.applied(w, c), 1);
                    let ever = self.layout.ever(w, c);
                    self.values[ever] = 1;
                }
            }
            _ => {}
        }
    }

    fn wants_facts(&self) -> bool {
        true
    }

    fn wants_options(&self) -> bool {
        !self.options.is_empty()
    }

    fn fact(&mut self, fact: Fact<'_>) {
        if self.done {
            return;
        }
        match fact {
            Fact::Played { who } => self.add(self.layout.turns(who), 1),
            Fact::Stuck { who } => self.add(self.layout.stuck(who), 1),
            Fact::Answer { depth } => match self.chains.last_mut() {
                Some(longest) if depth > 1 => *longest = (*longest).max(depth),
                _ => self.chains.push(depth),
            },
            // A counter (no cost names it) is never spent, so it loses nothing; nor does a pool
            // once the end is decided (outros, `encounter_end` steps): nothing is left to spend
            // it on.
            Fact::Lost { who, pool, amount }
                if !self.decided && self.layout.payable.get(pool).copied().unwrap_or(true) =>
            {
                self.add(self.layout.lost(who, pool), amount)
            }
            Fact::Lost { .. } => {}
            Fact::Overspent { who, pool } => self.add(self.layout.overspent(who, pool), 1),
            Fact::Ended { standing } if !self.decided => self.end(standing),
            Fact::Ended { .. } => {}
            Fact::Offered { who, action, chosen } => {
                let at = who * self.layout.actions.len() + action;
                let half = self.options.len() / 2;
                if let Some(v) = self.options.get_mut(at) {
                    *v += 1;
                }
                if chosen {
                    if let Some(v) = self.options.get_mut(half + at) {
                        *v += 1;
                    }
                }
            }
        }
    }
}
