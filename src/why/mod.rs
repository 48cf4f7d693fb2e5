//! Why: the chain of causes of one event of a run, back to the turn, phase or round that began
//! it, each step with the rule that caused it (`tempo why`).
//!
//! The runner names, for every event, the event whose consequence it is (`Record::because`:
//! the action a payment paid for, the trigger a reaction answered, the check an outcome
//! followed, the pool change whose threshold fired, the turn an action was taken in). This
//! module keeps what a run wrote up to the event asked about, follows those links back and
//! renders each step with its source excerpt, the way diagnostics are rendered.

use crate::diagnostics::render::{self, Note, TextStyle};
use crate::diagnostics::Label;
use crate::ir::{Loc, Ruleset};
use crate::run::sink::Sink;
use crate::run::trace::{self, Event, Record};
use crate::source::{FileId, SourceMap, Span};
use codespan_reporting::files::Files;

/// What `why` keeps of one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub seq: u64,
    pub round: Option<u32>,
    /// The play-by-play line (`trace::text_line`), trimmed.
    pub text: String,
    pub rule: Option<Loc>,
    pub because: Option<u64>,
    /// A turn, phase, round, downtime hour or the encounter's start: where a chain stops.
    pub frame: bool,
}

/// How many of the latest events [`Keep`] holds up to the one asked about. A cause is nearly
/// always a few events before its consequence; one farther back is found by playing the run again
/// ([`Keep::only`]), so memory stays flat however far into a long run the event is.
pub const WINDOW: usize = 65_536;

/// A sink that keeps the events up to `upto` (the event asked about), the latest [`WINDOW`] of
/// them, and stops the run soon after it: nothing later can be a cause.
#[derive(Debug)]
pub struct Keep {
    upto: u64,
    /// Keep only these events (a cause outside the window, looked for again), not a window.
    only: Option<u64>,
    /// In the order written (so by `seq`).
    pub steps: std::collections::VecDeque<Step>,
    /// How many events the run wrote up to `upto` (all of them when the run ended before it).
    pub written: u64,
    past: bool,
}

impl Keep {
    pub fn new(upto: u64) -> Keep {
        Keep { upto, only: None, steps: std::collections::VecDeque::new(), written: 0, past: false }
    }

    /// Keeps event `seq` alone (a cause the window had let go, on a replay of the same run).
    pub fn only(seq: u64) -> Keep {
        Keep { only: Some(seq), ..Keep::new(seq) }
    }
}

impl Sink for Keep {
    fn record(&mut self, record: Record) {
        if record.seq > self.upto {
            self.past = true;
            return;
        }
        self.written = record.seq.saturating_add(1);
        if self.only.is_some_and(|only| only != record.seq) {
            return;
        }
        let frame = matches!(
            record.event,
            Event::EncounterStart { .. }
                | Event::RoundStart {}
                | Event::PhaseStart { .. }
                | Event::TurnStart { .. }
                | Event::Downtime { .. }
                | Event::Rest { .. }
        );
        let text = trace::text_line(&record).trim().to_string();
        if self.steps.len() >= WINDOW {
            self.steps.pop_front();
        }
        self.steps.push_back(Step {
            seq: record.seq,
            round: record.round,
            text,
            rule: record.rule,
            because: record.because,
            frame,
        });
    }

    /// Past the event asked about the run is abandoned (at the next round's start).
    fn stopped(&self) -> bool {
        self.past
    }
}

/// Event `seq` among `steps` (in `seq` order), if they hold it.
pub fn find<'a>(steps: impl IntoIterator<Item = &'a Step>, seq: u64) -> Option<&'a Step> {
    steps.into_iter().find(|s| s.seq == seq)
}

/// The chain from event `seq` back to the frame (turn, phase, round, encounter start) that
/// began it: the event first, each cause after it. `None` if the run never wrote event `seq`.
pub fn chain(steps: &[Step], seq: u64) -> Option<Vec<&Step>> {
    let mut out = vec![find(steps, seq)?];
    while let Some(cause) = next_cause(&out, seq) {
        match find(steps, cause) {
            Some(step) => out.push(step),
            None => break,
        }
    }
    Some(out)
}

/// The cause the chain (asked about `asked`, the event first) goes back to next, if it goes on.
pub fn next_cause(chain: &[&Step], asked: u64) -> Option<u64> {
    let last = chain.last()?;
    if last.frame && last.seq != asked {
        return None;
    }
    // A cause is always written before its consequence; anything else would loop.
    last.because.filter(|b| *b < last.seq)
}

/// The sources of a ruleset's rules, for excerpts: the compilation's own, or (for a compiled
/// IR) the files its table names, read from disk; a file that cannot be read shows no excerpt.
pub fn sources_of(ruleset: &Ruleset, read: impl Fn(&str) -> Option<String>) -> (SourceMap, Vec<bool>) {
    let mut map = SourceMap::new();
    let mut found = Vec::new();
    for name in &ruleset.files {
        let text = read(name);
        found.push(text.is_some());
        map.add(name.clone(), text.unwrap_or_default());
    }
    (map, found)
}

/// Where a rule's location is in `sources`: from its line and column (in characters) to the end
/// of that line. `None` when the file is missing or the place is outside it.
fn span_of(sources: &SourceMap, found: &[bool], loc: Loc) -> Option<Span> {
    let file = FileId(u32::from(loc.file));
    if !found.get(usize::from(loc.file)).copied().unwrap_or(false) {
        return None;
    }
    let line = usize::try_from(loc.line).ok()?.checked_sub(1)?;
    let range = sources.line_range(file, line).ok()?;
    let text = sources.text(file).get(range.clone())?;
    let column = usize::try_from(loc.column).ok()?.checked_sub(1)?;
    let start = text.char_indices().nth(column).map(|(i, _)| i)?;
    let end = text.trim_end().len().max(start + 1).min(text.len());
    Some(Span::new(file, range.start + start, range.start + end))
}

/// The chain rendered for a person: the event, then "because" each cause, each with its rule's
/// excerpt (or its location alone when the source is not at hand).
pub fn to_text(chain: &[&Step], files: &[String], sources: &SourceMap, found: &[bool], style: TextStyle) -> String {
    let mut notes = Vec::new();
    let mut shown: Option<Loc> = None;
    for (i, step) in chain.iter().enumerate() {
        let round = step.round.map(|r| format!(", round {r}")).unwrap_or_default();
        let lead = if i == 0 { "" } else { "because " };
        let mut message = format!("{lead}#{}{round}: {}", step.seq, step.text);
        // A rule shown for the step just before is not shown again.
        let again = step.rule.is_some() && step.rule == shown;
        let place = step.rule.filter(|_| !again).and_then(|loc| span_of(sources, found, loc));
        match (step.rule, &place) {
            (Some(_), None) if again => message.push_str(" (the same rule)"),
            (Some(loc), None) => {
                message.push_str(&format!("\n(rule at {}; its source is not at hand)", trace::RuleAt { files, loc }));
            }
            (None, _) if !step.frame => message.push_str("\n(no rule causes it: it is the encounter's frame)"),
            _ => {}
        }
        shown = step.rule;
        let label = place.map(|span| Label { span, message: label_for(step).to_string() });
        notes.push(Note { message, place: label });
    }
    render::notes_to_text(&notes, sources, style)
}

/// What a step's rule is to it, for the excerpt's label.
fn label_for(step: &Step) -> &'static str {
    if step.text.contains(" cannot use ") {
        "this rule refused it"
    } else {
        "this rule"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(seq: u64, because: Option<u64>, frame: bool) -> Step {
        Step { seq, round: Some(1), text: format!("e{seq}"), rule: None, because, frame }
    }

    #[test]
    fn a_chain_stops_at_the_frame_that_began_it() {
        let steps = vec![step(0, None, true), step(1, Some(0), true), step(2, Some(1), false), step(3, Some(2), false)];
        let chain = chain(&steps, 3).unwrap_or_default();
        let seqs: Vec<u64> = chain.iter().map(|s| s.seq).collect();
        assert_eq!(seqs, vec![3, 2, 1]);
    }

    #[test]
    fn a_frame_asked_about_goes_back_to_its_own_cause() {
        let steps = vec![step(0, None, true), step(1, Some(0), true)];
        let seqs: Vec<u64> = chain(&steps, 1).unwrap_or_default().iter().map(|s| s.seq).collect();
        assert_eq!(seqs, vec![1, 0]);
    }

    #[test]
    fn a_cause_written_later_is_not_followed() {
        let steps = vec![step(0, Some(1), false), step(1, Some(0), false)];
        let seqs: Vec<u64> = chain(&steps, 0).unwrap_or_default().iter().map(|s| s.seq).collect();
        assert_eq!(seqs, vec![0]);
        assert!(chain(&steps, 5).is_none());
    }
}
