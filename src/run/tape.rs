//! The tape: where an encounter's chances and some participants' decisions come from when the
//! exact solver plays it (`tempo solve`, src/solve/).
//!
//! The solver cannot stop the engine in the middle of a round and go on from there twice: part
//! of where a round stands is the call stack. So it replays a round from its start, as `Search`
//! does, with the outcome of every branch point written on a tape: each die rolled, each random
//! draw or pick, and each decision of the participants it solves for, in the order the engine
//! meets them. The first branch point past the end of the tape stops the run (`need`), and the
//! solver plays the round again once per outcome there, with that outcome added to the tape.
//!
//! Every draw of the engine goes through `Engine::die` and `Engine::below` (draws.rs; the
//! generator is never read elsewhere), so with a tape the dice are the tape's, and without one
//! they are the seeded stream exactly as before. Here only the tape itself: the engine holds
//! it, so it imports nothing of the engine.

use super::lookahead::Logged;

/// The first byte of a key: a state between rounds, or a turn's decision inside one.
pub(crate) const BETWEEN_ROUNDS: u8 = 0;
pub(crate) const IN_ROUND: u8 = 1;

/// What the engine met past the end of its tape, where the run stopped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Need {
    /// A draw with this many outcomes, each as likely (`weights` empty): a die's faces, an
    /// item from a pile, a random pick among options, a turn drawn from a bag; or each as
    /// likely as its weight says (how many of a pool's dice meet a test).
    Chance { outcomes: u32, die: bool, weights: Vec<u64> },
    /// A decision of `who`, one of the solver's, among `options`.
    Decide { who: usize, options: Vec<Logged> },
    /// A turn's decision of someone the solver does not decide for, asked from published
    /// frames: not a branch, but a position the solver may have met before (its key in
    /// `Tape::key`). Passed on the next play by a tape entry of its own.
    Checkpoint,
}

/// The outcomes of the branch points met so far, and what to do past them.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    /// The index taken at each branch point, in the order the engine meets them.
    pub(crate) taken: Vec<u32>,
    pub(crate) next: usize,
    /// The first branch point past `taken`; once set the run is stopped.
    pub(crate) need: Option<Need>,
    /// Per participant: its decisions are the solver's branch points, not its controller's.
    pub(crate) deciders: Vec<bool>,
    /// The names of the options of a choice met past the tape (empty for other decisions).
    pub(crate) labels: Vec<String>,
    /// Where the loops above a turn's decision stand (see `Frames`).
    pub(crate) frames: Frames,
    /// The canonical bytes of the position where the run stopped at a decision, when that
    /// position is the same wherever it is reached from (`Frames::mergeable`).
    pub(crate) key: Option<Vec<u8>>,
    pub(crate) canon: super::canon::Canon,
    /// While a live round is followed (`Explorer::record`): the tape is written, not read.
    pub(crate) record: Option<Record>,
}

/// How a round a real encounter played is written on a tape, for `Search` to solve on from
/// where it stands (exact.rs): each draw comes from the engine's generator as in the real run
/// (the same dice, drawn in the same order) and is written down as its outcome; the solved
/// participants' decisions come from `log`, the real run's, each written down as its index among
/// the options the tape offers; the run stops at the decision after the last logged one.
#[derive(Debug, Default)]
pub(crate) struct Record {
    pub(crate) log: Vec<Logged>,
    pub(crate) next: usize,
    /// A logged decision was not among the options the tape offered: the round was not
    /// followed.
    pub(crate) lost: bool,
}

/// What the loops above a participant's turn decision hold in their locals, published by them
/// while a tape plays: with the state, they are everything the rest of the round depends on, so
/// two runs that reach a turn decision with equal state and equal frames play on alike, and the
/// solver merges them. Published only by a phase of turns played by initiative (not a drawn
/// order, not declarations), one level deep.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    /// The round's loop over phases: the next phase, and the repeats of the last (`again`).
    pub(crate) round: Option<(usize, (usize, u32))>,
    /// The phase's queue of groups, the group acting, and the slots taken (`slots by side`).
    pub(crate) queue: Option<(Vec<Vec<usize>>, usize, Vec<bool>)>,
    /// The turns of a group: its members who play, the one acting, and how deep `turns` is.
    pub(crate) members: Vec<usize>,
    pub(crate) acting: usize,
    pub(crate) depth: u32,
    /// A turn's decision is being asked from the turns' loop.
    pub(crate) asking: bool,
}

impl Frames {
    pub(crate) fn clear(&mut self) {
        self.round = None;
        self.queue = None;
        self.members.clear();
        self.acting = 0;
        self.depth = 0;
        self.asking = false;
    }

    /// Whether a decision asked now is asked from loops whose locals are all published.
    pub(crate) fn mergeable(&self) -> bool {
        self.asking && self.depth == 1 && self.queue.is_some() && self.round.is_some()
    }

    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        c.put(&self.round);
        c.put(&self.queue);
        c.put(&self.members);
        c.n(self.acting);
    }
}

impl Tape {
    /// Whether draws and decisions are being written (`Record`), not read.
    pub(crate) fn recording(&self) -> bool {
        self.record.is_some() && self.need.is_none()
    }

    /// Writes the outcome of a draw among `outcomes` (one that cannot branch is not written,
    /// as a read tape does not read it).
    pub(crate) fn noted(&mut self, outcome: u32, outcomes: u64) {
        if outcomes > 1 {
            self.taken.push(outcome);
            self.next += 1;
        }
    }

    /// A followed round went where the tape cannot: stop the run, and say so.
    pub(crate) fn lose(&mut self) {
        if let Some(r) = self.record.as_mut() {
            r.lost = true;
        }
        self.need = Some(Need::Checkpoint);
    }

    /// The next outcome of a draw with `outcomes` outcomes (0-based), each as likely; past the
    /// tape, the run stops there (the value returned is then never used for anything kept).
    pub(crate) fn chance(&mut self, outcomes: u32, die: bool) -> u32 {
        self.draw(outcomes, die, &[])
    }

    /// The next outcome of a draw whose outcomes are as likely as `weights` say.
    pub(crate) fn weighted(&mut self, weights: &[u64]) -> u32 {
        self.draw(weights.len() as u32, false, weights)
    }

    fn draw(&mut self, outcomes: u32, die: bool, weights: &[u64]) -> u32 {
        if outcomes <= 1 || self.need.is_some() {
            return 0;
        }
        match self.taken.get(self.next) {
            Some(&k) => {
                self.next += 1;
                k.min(outcomes - 1)
            }
            None => {
                self.need = Some(Need::Chance { outcomes, die, weights: weights.to_vec() });
                0
            }
        }
    }
}

/// Per number of successes `h` from 0 to `n`, how many of the `sides^n` throws of `n` dice give
/// `h` dice among the `k` faces of `sides` that succeed: `C(n, h) k^h (sides - k)^(n - h)`.
/// `None` when a count does not fit 64 bits (then the dice are drawn one by one).
pub(crate) fn successes(n: u32, sides: u32, k: u32) -> Option<Vec<u64>> {
    let (k, miss) = (u64::from(k), u64::from(sides.saturating_sub(k)));
    let mut out = Vec::with_capacity(n as usize + 1);
    let mut choose: u64 = 1;
    for h in 0..=n {
        if h > 0 {
            choose = choose.checked_mul(u64::from(n - h + 1))? / u64::from(h);
        }
        let w = choose.checked_mul(k.checked_pow(h)?)?.checked_mul(miss.checked_pow(n - h)?)?;
        out.push(w);
    }
    Some(out)
}
