//! The clock: where the encounter is in time. The round, the phase being played, whose turn it
//! is and what may be declared now, and whether the encounter has ended.
//!
//! `encounter.rs` moves the clock (rounds, phases, turns, the end). `act.rs` numbers answered
//! events and lends a readied action the turn's `allowed` and `active`, then restores them; an
//! effect or an action may end the turn, and an effect the encounter.

use crate::ir;

/// What may be declared during a turn.
pub(crate) const TURN_KINDS: &[ir::ActionKind] = &[ir::ActionKind::Action, ir::ActionKind::Free];

#[derive(Debug, Default)]
pub(crate) struct Clock<'r> {
    pub round: u32,
    /// Inside a round; events outside rounds carry a null round.
    pub(crate) in_round: bool,
    pub surprise_round: bool,
    /// Rounds without initiative (an outro that continues): the order stays as it is.
    pub(crate) table_rounds: bool,
    /// The index of the phase being played (meaningful while `allowed` is set).
    pub(crate) phase_at: usize,
    /// Kinds that may be declared now: `None` outside turns and declaration phases.
    pub allowed: Option<&'r [ir::ActionKind]>,
    /// In a phase of turns: only the active participant declares.
    pub(crate) turn_phase: bool,
    /// Initiative was ordered again during this phase of turns: those still to act take their
    /// places from the new order before the next turn.
    pub(crate) reordered: bool,
    pub active: Option<usize>,
    /// The last group of the round's turns is acting.
    pub final_turn: bool,
    /// The active turn is over (an `end_turn`, an action that `ends_turn`).
    pub(crate) turn_over: bool,
    /// Per participant: its turn was ended by its own turn-start work (an `end_turn` there).
    pub(crate) ended_at_start: Vec<bool>,
    /// Counters that tell turns, phases and answered events apart, for limits per period.
    pub(crate) turn_seq: u64,
    pub(crate) phase_seq: u64,
    pub(crate) trigger_seq: u64,
    /// Choosing in a `hidden` phase: nothing chosen is applied yet.
    pub(crate) hiding: bool,
    /// Why the encounter ended, once it has (borrowed for the usual reasons: a `Search`
    /// playout ends an encounter every time, and would allocate each reason).
    pub ended: Option<std::borrow::Cow<'static, str>>,
}

impl<'r> Clock<'r> {
    /// Back to before the first round, for `n` participants, keeping allocations.
    pub fn reset(&mut self, n: usize) {
        let mut ended_at_start = std::mem::take(&mut self.ended_at_start);
        super::buffers::refill(&mut ended_at_start, n, false);
        *self = Clock { ended_at_start, ..Clock::default() };
    }

    /// Becomes a copy of `other`, in the allocations it has.
    pub fn copy_from(&mut self, other: &Clock<'r>) {
        // Destructured whole, so that a field added later cannot be forgotten here.
        let Clock {
            round,
            in_round,
            surprise_round,
            table_rounds,
            phase_at,
            allowed,
            turn_phase,
            reordered,
            active,
            final_turn,
            turn_over,
            ended_at_start,
            turn_seq,
            phase_seq,
            trigger_seq,
            hiding,
            ended,
        } = other;
        self.round = *round;
        self.in_round = *in_round;
        self.surprise_round = *surprise_round;
        self.table_rounds = *table_rounds;
        self.phase_at = *phase_at;
        self.allowed = *allowed;
        self.turn_phase = *turn_phase;
        self.reordered = *reordered;
        self.active = *active;
        self.final_turn = *final_turn;
        self.turn_over = *turn_over;
        self.ended_at_start.clone_from(ended_at_start);
        self.turn_seq = *turn_seq;
        self.phase_seq = *phase_seq;
        self.trigger_seq = *trigger_seq;
        self.hiding = *hiding;
        self.ended.clone_from(ended);
    }

    /// Writes the clock canonically (canon.rs): not its counters of turns, phases and answered
    /// events, which the ledger and pending write relative to (`Now`).
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        let Clock {
            round,
            in_round,
            surprise_round,
            table_rounds,
            phase_at,
            allowed,
            turn_phase,
            reordered,
            active,
            final_turn,
            turn_over,
            ended_at_start,
            turn_seq: _,
            phase_seq: _,
            trigger_seq: _,
            hiding,
            ended,
        } = self;
        c.put(round);
        c.flag(*in_round);
        c.flag(*surprise_round);
        c.flag(*table_rounds);
        c.n(*phase_at);
        c.put(allowed);
        c.flag(*turn_phase);
        c.flag(*reordered);
        c.put(active);
        c.flag(*final_turn);
        c.flag(*turn_over);
        c.put(ended_at_start);
        c.flag(*hiding);
        c.put(&ended.as_deref());
    }

    /// The round an event happens in: none outside rounds.
    pub(crate) fn event_round(&self) -> Option<u32> {
        self.in_round.then_some(self.round)
    }
}
