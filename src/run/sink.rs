//! Sinks: where the events of a run go, as they happen. A writer (JSON lines or text) for the
//! command line, a vector for tests, a count where only how many matters. The runner keeps no
//! trace of its own, so a run's memory does not grow with its length, and a run that fails has
//! already written everything that happened before the failure.

use super::jsonl;
// Offered beside `Writer`, which writes the same bytes. JSON lines are `jsonl`'s; `trace`, the
// vocabulary they encode, is below `jsonl` and cannot offer them without an import circle.
pub use super::jsonl::to_jsonl;
use super::trace::{self, Name, Record};
use std::io::{self, Write};

/// Receives every event of a run, in order.
pub trait Sink {
    /// Takes one event as it happens.
    fn record(&mut self, record: Record);

    /// True once the sink takes nothing more (its output failed): the run is abandoned at the
    /// start of the next round with `RunError::Output`.
    fn stopped(&self) -> bool {
        false
    }

    /// True if the sink takes `Fact`s. Some facts cost the engine work to find (whether a
    /// participant could afford anything), so they are only found for a sink that wants them.
    fn wants_facts(&self) -> bool {
        false
    }

    /// Takes one fact, told right after the event it belongs to.
    fn fact(&mut self, _fact: Fact<'_>) {}

    /// False for a sink that looks at no record (a `Search` playout's): the engine may leave
    /// out of its events what would cost an allocation to write (a payment in several pools).
    fn keeps_records(&self) -> bool {
        true
    }

    /// True if the sink also takes `Fact::Offered` (it wants facts too). Finding what was
    /// affordable at a decision costs the engine a search of every action, so only a sink that
    /// counts options (the skill report) asks for it.
    fn wants_options(&self) -> bool {
        false
    }
}

/// What a run knows beyond its trace, for sinks that count (the simulation), by index (the
/// scenario's participant order) rather than by name. Facts never change what happens: finding
/// one rolls no dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact<'a> {
    /// `who`'s turn began, it could act, and some action it could use was affordable: a turn
    /// it played.
    Played { who: usize },
    /// `who`'s turn began (it can act) and no action it could use was affordable.
    Stuck { who: usize },
    /// A reaction was declared `depth` answers deep: 1 answers an action, 2 answers that
    /// reaction, and so on.
    Answer { depth: u32 },
    /// A pool step threw away `amount` that was left unspent: a refresh overwrote it, or a
    /// `lose` or `decay` took it. Not told for a refresh at `encounter_start`, nor for the first
    /// refresh of a pool nothing has changed since the encounter began (nothing could have been
    /// spent from it yet).
    Lost { who: usize, pool: usize, amount: i64 },
    /// A declaration paid `pool` below its floor (one overspend, however far below).
    Overspent { who: usize, pool: usize },
    /// The encounter's end was decided (before outros, `encounter_end` hooks and downtime): who
    /// was still standing, per participant. The events that follow still belong to it.
    Ended { standing: &'a [bool] },
    /// A policy decided (a turn's next action, or whether to answer an event) and `action` was
    /// affordable there; `chosen`: it was the one taken. Told once per affordable action per
    /// decision, right before what was taken happens; only to a sink that `wants_options`.
    /// Scripted decisions are not told.
    Offered { who: usize, action: usize, chosen: bool },
}

/// Takes nothing: what a `Search` playout plays into.
impl Sink for () {
    fn record(&mut self, _: Record) {}

    fn keeps_records(&self) -> bool {
        false
    }
}

impl Sink for Vec<Record> {
    fn record(&mut self, record: Record) {
        self.push(record);
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn record(&mut self, record: Record) {
        (**self).record(record);
    }

    fn stopped(&self) -> bool {
        (**self).stopped()
    }

    fn wants_facts(&self) -> bool {
        (**self).wants_facts()
    }

    fn fact(&mut self, fact: Fact<'_>) {
        (**self).fact(fact);
    }

    fn keeps_records(&self) -> bool {
        (**self).keeps_records()
    }

    fn wants_options(&self) -> bool {
        (**self).wants_options()
    }
}

/// Counts events and keeps none of them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub events: u64,
}

impl Sink for Count {
    fn record(&mut self, _: Record) {
        self.events += 1;
    }
}

/// Which text a writer writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line (contracts.md, "Traces").
    Jsonl,
    /// The play-by-play for a person.
    Text,
}

/// Writes each event as it comes, as JSON lines (collected in batches of `BATCH` bytes) or text.
/// Give it a buffered writer, and call `finish` at the end. After the first failed write it
/// writes nothing more and reports `stopped`; `finish` returns the error.
pub struct Writer<W: Write> {
    out: W,
    format: Format,
    /// The ruleset's file table, which rule locations index.
    files: Vec<String>,
    /// JSON lines: what is kept between records (rule prefixes, escaped names).
    json: jsonl::Encoder,
    /// Text only: each line ends with its `seq` and the location of the rule that caused it
    /// (`--why`).
    why: bool,
    /// Text only: routine pool bookkeeping (refresh, lose, keep, decay, convert and gain at a
    /// timing) is left out (`--quiet`).
    quiet: bool,
    /// Text only: the ruleset's labels, where it declares them, in place of names.
    labels: Option<super::labels::Labels>,
    /// Text only: the conditions that take their holder out of play (they block actions), and
    /// how many of them each participant holds; a downed participant's routine pool steps are
    /// left out of the text.
    downed: Option<Downed>,
    error: Option<io::Error>,
    /// JSON lines not yet handed to `out`: written in batches of `BATCH` bytes rather than one
    /// call per event, and the rest by `finish`.
    line: Vec<u8>,
}

/// Bytes of JSON lines collected before they are written.
const BATCH: usize = 1 << 15;

impl<W: Write> Writer<W> {
    /// A writer for the events of a run of a ruleset whose file table is `files`
    /// (`ir::Ruleset::files`).
    pub fn new(out: W, format: Format, files: &[String]) -> Writer<W> {
        Writer {
            out,
            format,
            files: files.to_vec(),
            json: jsonl::Encoder::new(files),
            why: false,
            quiet: false,
            labels: None,
            downed: None,
            error: None,
            line: Vec::new(),
        }
    }

    /// The text format with each line's `seq` and rule location after it: `[#SEQ FILE:LINE:COLUMN]`.
    pub fn why(mut self, why: bool) -> Writer<W> {
        self.why = why;
        self
    }

    /// The text format without routine pool bookkeeping: the pool steps of timings (`refresh at
    /// turn_start`, `lose at turn_end`, ...). Everything an action, a rule's effect, a threshold
    /// or a choice changes is still written.
    pub fn quiet(mut self, quiet: bool) -> Writer<W> {
        self.quiet = quiet;
        self
    }

    /// The text format without the routine pool steps of participants held by a condition that
    /// blocks actions (down, unconscious): nothing of theirs is in play.
    /// The scenario's own conditions are held from the start (they are given before the trace
    /// begins).
    pub fn hide_downed(mut self, r: &crate::ir::Ruleset, s: &super::scenario::Scenario) -> Writer<W> {
        let mut out: Vec<Name> = r
            .conditions
            .iter()
            .filter(|c| c.blocks.kinds.contains(&crate::ir::ActionKind::Action))
            .map(|c| Name::from(c.name.as_str()))
            .collect();
        out.sort();
        let mut held = Vec::new();
        for p in &s.participants {
            let n = p
                .conditions
                .iter()
                .filter(|c| {
                    let (super::scenario::HeldSpec::Name(name) | super::scenario::HeldSpec::From { name, .. }) = c;
                    out.iter().any(|o| **o == **name)
                })
                .count();
            if n > 0 {
                held.push((Name::from(p.name.as_str()), n as u32));
            }
        }
        self.downed = Some(Downed { out, held });
        self
    }

    /// The text format with the ruleset's labels ("Action Points") where it declares them.
    pub fn labels(mut self, labels: Option<super::labels::Labels>) -> Writer<W> {
        self.labels = labels;
        self
    }

    /// Writes what is collected, flushes, and gives back the writer, or the first error. A
    /// writer dropped without `finish` may not have written its last events.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(&self.line)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn write(&mut self, record: &Record) -> io::Result<()> {
        match self.format {
            Format::Jsonl => {
                self.json.write(&mut self.line, record);
                if self.line.len() >= BATCH {
                    self.out.write_all(&self.line)?;
                    self.line.clear();
                }
                Ok(())
            }
            Format::Text => self.write_text(record),
        }
    }

    /// A line for a person: kept out of line, so the JSON path (the one runs at volume take)
    /// stays small.
    #[inline(never)]
    fn write_text(&mut self, record: &Record) -> io::Result<()> {
        if let Some(downed) = &mut self.downed {
            if downed.hides(record) {
                return Ok(());
            }
        }
        if self.quiet && trace::is_bookkeeping(record) {
            return Ok(());
        }
        let line = match &self.labels {
            Some(labels) => trace::text_line_labelled(record, labels),
            None => trace::text_line(record),
        };
        self.out.write_all(line.as_bytes())?;
        if self.why {
            trace::write_why(&mut self.out, record, &self.files)?;
        }
        self.out.write_all(b"\n")
    }
}

impl<W: Write> Sink for Writer<W> {
    fn record(&mut self, record: Record) {
        if self.error.is_none() {
            if let Err(e) = self.write(&record) {
                self.error = Some(e);
            }
        }
    }

    fn stopped(&self) -> bool {
        self.error.is_some()
    }
}

/// Who is out of play, followed from the trace's own condition events.
#[derive(Debug)]
struct Downed {
    /// The names of the conditions that block actions, sorted.
    out: Vec<Name>,
    /// Participants holding any of them, with how many.
    held: Vec<(Name, u32)>,
}

impl Downed {
    /// Notes a condition change; whether `record` is a downed participant's routine pool step.
    fn hides(&mut self, record: &Record) -> bool {
        match &record.event {
            trace::Event::Condition { who, condition, on } if self.out.binary_search(condition).is_ok() => {
                match (self.held.iter_mut().find(|(w, _)| w == who), on) {
                    (Some((_, n)), true) => *n += 1,
                    (Some((_, n)), false) => *n = n.saturating_sub(1),
                    (None, true) => self.held.push((who.clone(), 1)),
                    (None, false) => {}
                }
                false
            }
            trace::Event::Pool { who, .. } if trace::is_bookkeeping(record) => {
                self.held.iter().any(|(w, n)| w == who && *n > 0)
            }
            _ => false,
        }
    }
}
