//! The engine's draws and the solved participants' decisions: from the tape when the exact
//! solver plays (tape.rs), else from the seeded generator and the controllers.

use super::controller::Decision;
use super::engine::Engine;
use super::error::RunError;
use super::lookahead::Logged;
use super::sink::Sink;
use super::tape::{successes, Need, IN_ROUND};
use rand_core::RngCore;

impl<S: Sink> Engine<'_, S> {
    /// A die of `sides` faces: 1 to `sides`, from the tape when there is one, else the seeded
    /// generator (without modulo bias).
    pub(crate) fn die(&mut self, sides: u32) -> i64 {
        self.budget.threw();
        match self.tape.as_deref_mut() {
            Some(t) if t.recording() => {
                let v = super::eval::uniform(&mut self.rng, sides);
                t.noted((v - 1).max(0) as u32, u64::from(sides));
                v
            }
            Some(t) => i64::from(t.chance(sides.max(1), true)) + 1,
            None => super::eval::uniform(&mut self.rng, sides),
        }
    }

    /// A pick of one of `n` (0 to `n - 1`), as likely each: from the tape when there is one,
    /// else the generator's next number modulo `n` (a bias below 2^-40 for any `n` a rule
    /// makes, which the solver treats as none).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        match self.tape.as_deref_mut() {
            Some(t) if t.recording() => {
                let v = self.rng.next_u64() % n.max(1);
                t.noted(u32::try_from(v).unwrap_or(u32::MAX), n);
                v
            }
            Some(t) => u64::from(t.chance(u32::try_from(n.max(1)).unwrap_or(u32::MAX), false)),
            None => self.rng.next_u64() % n.max(1),
        }
    }

    /// With a tape, how many of `count` dice of `sides` meet a test that `k` of the faces meet,
    /// as one weighted draw (the faces are never looked at, only how many succeed); `None`
    /// without a tape, or for a pool too large to weigh.
    pub(crate) fn taped_successes(&mut self, count: u32, sides: u32, k: u32) -> Option<i64> {
        debug_assert!(!self.recording());
        let t = self.tape.as_deref_mut()?;
        let weights = successes(count, sides, k)?;
        Some(i64::from(t.weighted(&weights)))
    }

    /// Whether a live round is being followed and written on the tape (tape::Record).
    #[inline]
    pub(crate) fn recording(&self) -> bool {
        self.tape.as_deref().is_some_and(|t| t.recording())
    }

    /// Whether the run was stopped at a branch point past its tape: nothing more it does counts.
    #[inline]
    pub(crate) fn stopped(&self) -> bool {
        self.tape.as_deref().is_some_and(|t| t.need.is_some())
    }

    /// Whether `who`'s decisions come from the tape (outside dry runs: a policy asking "could
    /// I?" decides nothing).
    #[inline]
    pub(crate) fn taped(&self, who: usize) -> bool {
        !self.dry && self.tape.as_deref().is_some_and(|t| t.deciders.get(who).copied().unwrap_or(false))
    }

    /// `who`'s decision among `options` from the tape; past its end the run stops there and the
    /// first option stands in.
    pub(crate) fn taped_pick(&mut self, who: usize, options: &[Logged]) -> Option<Logged> {
        let t = self.tape.as_deref_mut()?;
        if t.recording() {
            if let Some(logged) = t.record.as_mut().and_then(|r| r.log.get(r.next).copied()) {
                // The real run logged every decision of its searchers, one option or many.
                if let Some(r) = t.record.as_mut() {
                    r.next += 1;
                }
                let Some(k) = options.iter().position(|o| *o == logged) else {
                    t.lose();
                    return options.first().copied();
                };
                t.noted(k as u32, options.len() as u64);
                return Some(logged);
            }
            if options.len() <= 1 {
                // The decision being made had a choice in the real run (exact.rs asks only then).
                t.lose();
                return options.first().copied();
            }
        }
        if options.len() <= 1 || t.need.is_some() {
            return options.first().copied();
        }
        match t.taken.get(t.next) {
            Some(&k) => {
                t.next += 1;
                options.get(k as usize).or(options.first()).copied()
            }
            None => {
                t.need = Some(Need::Decide { who, options: options.to_vec() });
                if t.record.is_some() {
                    // The state here, before the stand-in option is played: a followed round
                    // is checked against the real one by it (exact.rs).
                    let mut t = self.tape.take()?;
                    self.canonical(&mut t.canon);
                    t.key = Some(t.canon.bytes.clone());
                    self.tape = Some(t);
                } else if t.frames.mergeable() {
                    self.position_key(who);
                }
                options.first().copied()
            }
        }
    }

    /// Before `who`'s turn decision, asked from the turns' loop: for anyone the solver does not
    /// decide for, a checkpoint where the run stops unless the tape passes it (`Need::Checkpoint`).
    pub(crate) fn checkpoint(&mut self, who: usize) {
        let Some(t) = self.tape.as_deref_mut() else { return };
        if t.need.is_some() || !t.frames.mergeable() || t.deciders.get(who).copied().unwrap_or(false) {
            return;
        }
        if t.recording() {
            t.noted(0, 2);
            return;
        }
        if t.taken.get(t.next).is_some() {
            t.next += 1;
            return;
        }
        t.need = Some(Need::Checkpoint);
        self.position_key(who);
    }

    /// Keeps the canonical bytes of the position now, a decision of `who` asked from published
    /// frames, in the tape (`Tape::key`).
    fn position_key(&mut self, who: usize) {
        let Some(mut t) = self.tape.take() else { return };
        self.canonical(&mut t.canon);
        t.canon.bytes.insert(0, IN_ROUND);
        t.canon.n(who);
        t.frames.canon(&mut t.canon);
        t.key = Some(t.canon.bytes.clone());
        self.tape = Some(t);
    }

    /// `who`'s next decision on its turn, from the tape: any action it could take at any target
    /// it could take it at, or the end of the turn.
    pub(crate) fn taped_turn(&mut self, who: usize) -> Result<Decision, RunError> {
        let mut decisions = std::mem::take(&mut self.scratch.decisions);
        let found = self.candidates(who, super::controller::Chosen::Greedy, &mut decisions);
        let mut options: Vec<Logged> = decisions.iter().map(|d| Logged::Turn(*d)).collect();
        self.scratch.decisions = decisions;
        found?;
        options.push(Logged::Turn(Decision::EndTurn));
        Ok(match self.taped_pick(who, &options) {
            Some(Logged::Turn(d)) => d,
            _ => Decision::EndTurn,
        })
    }

    /// Counts one effect against the step budget; stops a run past its tape.
    #[inline]
    pub(crate) fn step_taped(&self) -> Result<(), RunError> {
        if self.stopped() {
            Err(RunError::Branched)
        } else {
            Ok(())
        }
    }
}
