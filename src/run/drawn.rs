//! `order drawn`: a phase of turns with no order made in advance. Each turn is drawn at random
//! as it comes up, like a die from a bag, from those still to have one in the phase; with `slots
//! by side` the die is a side's, so a side comes up by how many of its members are left, and the
//! side chooses who takes the turn as it does a slot. The draw uses the dice's own stream: the
//! same seed draws the same order, and a `Search` playout replays it as it replays the dice.

use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Event, Name};

impl<'r, S: Sink> Engine<'r, S> {
    /// A phase of turns under `order drawn`: draws and plays one turn at a time until the bag
    /// is empty or the encounter ends.
    pub(super) fn drawn_turns(&mut self) -> Result<(), RunError> {
        let slots = self.ruleset().initiative.side_slots;
        let mut drawn = std::mem::take(&mut self.scratch.slot_taken);
        super::buffers::refill(&mut drawn, self.world.n, false);
        let mut bag = Vec::new();
        let done = loop {
            if self.clock.ended.is_some() {
                break Ok(());
            }
            if let Err(e) = self.fill_bag(&drawn, slots, &mut bag) {
                break Err(e);
            }
            if bag.is_empty() {
                break Ok(());
            }
            self.clock.final_turn = bag.len() == 1;
            let k = self.draw_index(bag.len());
            let who = if slots {
                match self.side_taker(bag[k], &bag) {
                    Ok(who) => who,
                    Err(e) => break Err(e),
                }
            } else {
                let who = Some(self.names.who[bag[k]].clone());
                self.emit_by(Event::Drawn { side: None, who }, Some(self.ruleset().initiative.loc));
                bag[k]
            };
            drawn[who] = true;
            if let Err(e) = self.turns(&[who]) {
                break Err(e);
            }
        };
        self.scratch.slot_taken = drawn;
        done
    }

    /// Who is in the bag now, in the order (the seating): here, without a turn in this phase
    /// (`drawn`), not surprised, not holding a readied action, and for whom the phase's `turns
    /// requires` holds; with `slots by side` standing too, as a slot's taker must be. Looked at
    /// before every draw: who fell or left since the last one is out.
    fn fill_bag(&mut self, drawn: &[bool], slots: bool, bag: &mut Vec<usize>) -> Result<(), RunError> {
        bag.clear();
        let order = self.in_order();
        let mut out = Ok(());
        for &w in &order {
            let surprised = self.clock.surprise_round && self.world.surprised[w];
            let out_of_it = !self.world.present[w]
                || drawn.get(w).copied().unwrap_or(true)
                || surprised
                || self.pending.holding[w]
                || (slots && !self.world.standing(w));
            if out_of_it {
                continue;
            }
            match self.takes_turn(w) {
                Ok(true) => bag.push(w),
                Ok(false) => {}
                Err(e) => {
                    out = Err(e);
                    break;
                }
            }
        }
        self.scratch.in_order = order;
        out
    }

    /// A die drawn from `n`: its index, on the dice's stream (the last die needs no draw).
    fn draw_index(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let sides = u32::try_from(n).unwrap_or(u32::MAX);
        (self.die(sides) - 1) as usize
    }

    /// With `slots by side`: the die drawn was `die`'s side's; of that side's members in the
    /// bag, those who could afford some action once their turn started are the options, and
    /// with two or more the first of them chooses (a `choice`), as for a slot; one takes it;
    /// none: the first of them does. Returns the taker, after a `drawn` event.
    fn side_taker(&mut self, die: usize, bag: &[usize]) -> Result<usize, RunError> {
        let side = self.world.sides[die];
        let members: Vec<usize> = bag.iter().copied().filter(|w| self.world.sides[*w] == side).collect();
        let mut able = Vec::with_capacity(members.len());
        for &w in &members {
            if self.as_if_its_turn(w, |e| e.affords_anything(w))? {
                able.push(w);
            }
        }
        let rule = Some(self.ruleset().initiative.loc);
        let side = self.names.side.get(side as usize).cloned().unwrap_or_else(|| Name::from("its side"));
        if let [decider, _, ..] = able[..] {
            self.emit_by(Event::Drawn { side: Some(side.clone()), who: None }, rule);
            let pick = self.choose_taker(decider, &able)?;
            let question = Name::from(format!("who takes a die of the {side}"));
            let (who, answer) = (self.names.who[decider].clone(), self.names.who[pick].clone());
            self.emit_by(Event::Choice { who, question, answer }, rule);
            return Ok(pick);
        }
        let taker = able.first().or(members.first()).copied().unwrap_or(die);
        let who = Some(self.names.who[taker].clone());
        self.emit_by(Event::Drawn { side: Some(side), who }, rule);
        Ok(taker)
    }
}
