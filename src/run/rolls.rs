//! Named rolls (`roll attack = dice(pool, 6)`): the dice are thrown once, then every count its
//! block reads from them is made on those faces, so two counts of one roll always agree with each
//! other and with the one trace line that shows the faces and the counts.

use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::sink::Sink;
use super::trace::{Counted, Dice, Event, PoolRoll};
use crate::ir::{self, Faces, RollCounting};

impl<S: Sink> Engine<'_, S> {
    /// `roll NAME = DICE`: throws every part in order, then makes each count (reading each
    /// `X` now), then writes one roll event. A dry run takes each die's last face.
    pub(super) fn roll_named(&mut self, roll: &ir::Roll, c: &Ctx) -> Result<(), RunError> {
        let mut faces = std::mem::take(&mut self.rolled.faces);
        faces.clear();
        self.rolled.parts.clear();
        for part in &roll.parts {
            let (n, kind, sides) = match &part.faces {
                Faces::Sides(sides) => match self.dice_read(&part.count, sides, c, ("roll ", ""))? {
                    Some((n, s)) => (n, 0, s),
                    None => continue,
                },
                Faces::Die(die) => {
                    let n = self.eval(&part.count, c)?;
                    let Some(def) = self.ruleset().dice.get(die.index()) else { continue };
                    if n <= 0 {
                        continue;
                    }
                    let max = ir::validate::MAX_DICE;
                    let Some(n) = u32::try_from(n).ok().filter(|n| *n <= max) else {
                        return Err(
                            RunError::rule(format!("roll {n} `{}` dice: at most {max}", def.name)).at(self.rule)
                        );
                    };
                    (n, die.0 + 1, def.faces.len() as u32)
                }
            };
            self.rolled.parts.push((kind, n, sides));
            for _ in 0..n {
                let face = if self.dry { sides } else { self.die(sides) as u32 };
                // Numbered faces are their number; custom faces their place on the die, from 0.
                faces.push((kind, if kind == 0 { face } else { face - 1 }));
            }
        }
        let mut counts = std::mem::take(&mut self.rolled.counts);
        if counts.len() <= roll.id.index() {
            counts.resize_with(roll.id.index() + 1, Vec::new);
        }
        let mut made = std::mem::take(&mut counts[roll.id.index()]);
        self.rolled.counts = counts;
        made.clear();
        let mut against = Vec::new();
        for counting in &roll.counts {
            let n = match counting {
                RollCounting::Compare(op, x) => {
                    let x = self.eval(x, c)?;
                    if self.trace_wanted() {
                        against.push(x);
                    }
                    faces.iter().filter(|(kind, face)| *kind == 0 && op.holds(i64::from(*face), x)).count() as i64
                }
                RollCounting::Symbol(symbol) => self.symbols_shown(&faces, *symbol),
            };
            made.push(n);
        }
        if !self.dry {
            // The generator moved on: a `repeat while` pass that rolled is not the same pass again.
            self.changes_made += 1;
            if self.trace_wanted() {
                let event = self.roll_event(roll, &faces, &made, &against, c);
                self.emit(event);
            }
        }
        self.rolled.counts[roll.id.index()] = made;
        self.rolled.faces = faces;
        Ok(())
    }

    /// True when a roll event would be kept: building one allocates.
    fn trace_wanted(&self) -> bool {
        !self.dry && !self.out.muted && self.out.sink.keeps_records()
    }

    /// How often a symbol shows on the custom faces of a roll.
    fn symbols_shown(&self, faces: &[(u32, u32)], symbol: ir::SymbolId) -> i64 {
        let dice = &self.ruleset().dice;
        let mut n = 0;
        for &(kind, face) in faces {
            let Some(die) = kind.checked_sub(1).and_then(|d| dice.get(d as usize)) else { continue };
            if let Some(shows) = die.faces.get(face as usize) {
                n += shows.iter().filter(|s| **s == symbol).count() as i64;
            }
        }
        n
    }

    /// The one trace line of a named roll: who, what was thrown, every face, every count.
    fn roll_event(&self, roll: &ir::Roll, faces: &[(u32, u32)], made: &[i64], against: &[i64], c: &Ctx) -> Event {
        let r = self.ruleset();
        let custom = faces.iter().any(|(kind, _)| *kind != 0);
        let shown = match custom {
            false => Vec::new(),
            true => faces
                .iter()
                .map(|&(kind, face)| match kind.checked_sub(1).and_then(|d| r.dice.get(d as usize)) {
                    None => face.to_string(),
                    Some(die) => match die.faces.get(face as usize) {
                        Some(shows) if !shows.is_empty() => {
                            let names: Vec<&str> = shows.iter().map(|s| r.symbols[s.index()].as_str()).collect();
                            names.join(" ")
                        }
                        _ => "-".to_string(),
                    },
                })
                .collect(),
        };
        let parts = &self.rolled.parts;
        // Numbered dice of one size are shown as `NdM`; anything else part by part.
        let sides = parts.first().map(|p| p.2).filter(|s| parts.iter().all(|p| p.0 == 0 && p.2 == *s));
        let thrown = match (sides, parts.len()) {
            (Some(_), 0 | 1) => None,
            _ => Some(self.thrown()),
        };
        let mut against = against.iter();
        let counts: Vec<Counted> = roll
            .counts
            .iter()
            .zip(made)
            .map(|(counting, count)| Counted {
                counting: match counting {
                    RollCounting::Compare(op, _) => {
                        format!("{} {}", op.symbol(), against.next().copied().unwrap_or_default())
                    }
                    RollCounting::Symbol(s) => r.symbols.get(s.index()).cloned().unwrap_or_default(),
                },
                count: *count,
            })
            .collect();
        let (counting, result) =
            counts.first().map_or((String::new(), 0), |first| (first.counting.clone(), first.count));
        let pool = PoolRoll {
            faces: faces.iter().map(|&(kind, face)| if kind == 0 { face } else { face + 1 }).collect(),
            counting,
            name: Some(roll.name.as_str().into()),
            thrown,
            shown,
            counts,
        };
        let dice = Dice { count: faces.len() as u32, sides: sides.unwrap_or(0) };
        Event::Roll { who: self.names.who[c.owner].clone(), dice, result, pool: Some(Box::new(pool)) }
    }

    /// `2 ability + 1d6`: what a roll threw, part by part.
    fn thrown(&self) -> String {
        let dice = &self.ruleset().dice;
        let parts: Vec<String> = self
            .rolled
            .parts
            .iter()
            .map(|&(kind, n, sides)| match kind.checked_sub(1).and_then(|d| dice.get(d as usize)) {
                Some(die) => format!("{n} {}", die.name),
                None => format!("{n}d{sides}"),
            })
            .collect();
        parts.join(" + ")
    }
}
