//! After the encounter: hours of downtime, a rest and what it restores.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Cause, Event, Name};

impl<'r, S: Sink> Engine<'r, S> {
    /// Hours of downtime after the encounter; an interrupted hour recovers nothing.
    /// Plays the hours of downtime; returns how many hours at its end went uninterrupted.
    pub fn downtime(&mut self, hours: u32, interrupted: Option<u32>) -> Result<u32, RunError> {
        let r = self.ruleset();
        self.clock.round = 0;
        let mut since_start = 0u32;
        let outer = self.because;
        for hour in 1..=hours {
            self.new_cascade();
            self.because = outer;
            let this_hour = self.emit(Event::Downtime { hour });
            self.caused_by(this_hour);
            if Some(hour) == interrupted {
                // Time must restart for recovery to resume.
                since_start = 0;
                continue;
            }
            since_start += 1;
            for d in &r.downtime {
                let every = self.eval(&d.every_hours, &Ctx::default())?;
                if every > 0 && i64::from(since_start) % every == 0 {
                    for who in 0..self.world.n {
                        self.run_effects(
                            &d.effects,
                            &Ctx { owner: who, ..Ctx::default() },
                            &Cause::Static("downtime"),
                            d.loc,
                        )?;
                    }
                }
            }
            self.settle()?;
        }
        self.because = outer;
        Ok(since_start)
    }

    /// Takes a rest for everyone. `slept` is the uninterrupted hours the downtime ended with
    /// (`None` without downtime: the rest is simply taken); a rest of `hours N` needs N.
    pub fn rest(&mut self, rest: usize, slept: Option<u32>) -> Result<(), RunError> {
        let r = self.ruleset();
        if let Some(rest) = r.rests.get(rest) {
            // Downtime is played in whole hours; a length in minutes is met by the minutes of
            // those hours.
            let (needed, per_hour, unit) = match (&rest.hours, &rest.minutes) {
                (Some(h), _) => (self.eval(h, &Ctx::default())?, 1, "hours"),
                (None, Some(m)) => (self.eval(m, &Ctx::default())?, 60, "minutes"),
                (None, None) => (0, 1, "hours"),
            };
            let label = Name::from(rest.name.as_str());
            if let Some(slept) = slept.map(|s| i64::from(s).saturating_mul(per_hour)).filter(|s| *s < needed) {
                let outcome = format!("cut short: {slept} of {needed} uninterrupted {unit}");
                self.emit_by(Event::Rest { rest: label, outcome }, Some(rest.loc));
                return Ok(());
            }
            let taken = self.emit_by(Event::Rest { rest: label, outcome: "taken".into() }, Some(rest.loc));
            let outer = self.caused_by(taken);
            for who in 0..self.world.n {
                let cause = Cause::Named(Name::from(rest.name.as_str()));
                self.run_effects(&rest.effects, &Ctx { owner: who, ..Ctx::default() }, &cause, rest.loc)?;
            }
            self.settle()?;
            self.because = outer;
        }
        Ok(())
    }
}
