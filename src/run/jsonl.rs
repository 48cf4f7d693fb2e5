//! The trace as JSON lines, written by hand. The bytes are exactly what `serde_json` makes of a
//! `Record` with its rule's location formatted last as `"rule"` (the derive is kept, and the
//! tests below hold this encoder to it for every kind of event, with and without a rule, and
//! every character that needs escaping), but without serde's machinery per field:
//! writing was a third of `tempo run --format jsonl`'s time when it went through
//! `serde_json::to_writer`.

mod event;
mod write;

use super::trace::Record;
use crate::ir;
use event::event;
use write::{escaped, int, Quoted};

/// The whole trace as JSON lines (what `sink::Writer` writes with `Format::Jsonl`); `files`
/// is the ruleset's file table, which rule locations index.
pub fn to_jsonl(records: &[Record], files: &[String]) -> String {
    let mut out = Vec::new();
    let mut json = Encoder::new(files);
    for r in records {
        json.write(&mut out, r);
    }
    // Every piece written is a `str` or ASCII: the bytes are UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// What each rule location of a run begins with: `,"rule":"FILE:` per file of the ruleset's file
/// table, escaped once per run rather than on every event.
#[derive(Debug, Clone, Default)]
pub(crate) struct RulePrefixes(Vec<Vec<u8>>);

impl RulePrefixes {
    pub fn new(files: &[String]) -> RulePrefixes {
        RulePrefixes(
            files
                .iter()
                .map(|f| {
                    let mut p = b",\"rule\":\"".to_vec();
                    escaped(&mut p, f);
                    p.push(b':');
                    p
                })
                .collect(),
        )
    }
}

/// Writes records as JSON lines: the rule prefixes and the names already written, kept between
/// records. One per run (or per writer); its output does not depend on what it wrote before.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    rules: RulePrefixes,
    names: Quoted,
    /// `{"seq":N,"round":R,"event":` of the last record: the next one usually differs only by a
    /// sequence number one higher, counted up in the text itself.
    head: Option<Head>,
    /// `,"rule":"FILE:LINE:COLUMN"}` and the newline, per rule location (a run's events come
    /// from few rules), in `RULE_SLOTS` slots.
    ends: Vec<Option<(ir::Loc, Piece)>>,
    /// Where a new head or rule ending is made, kept so that making one (every round, and on
    /// every miss of the rule cache) does not allocate.
    scratch: Vec<u8>,
}

/// Slots of the rule locations cache.
const RULE_SLOTS: usize = 64;

/// Up to 64 bytes of text, appended with one copy of known size and then cut to length: no call
/// to `memcpy` for a copy of unknown size.
#[derive(Debug, Clone, Copy)]
struct Piece {
    text: [u8; 64],
    len: u8,
}

impl Piece {
    /// The bytes, if they fit.
    fn of(bytes: &[u8]) -> Option<Piece> {
        let mut text = [0; 64];
        text.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(Piece { text, len: u8::try_from(bytes.len()).ok()? })
    }

    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.text);
        out.truncate(start + usize::from(self.len));
    }
}

/// The start of the last record's line, with where its sequence number's digits are.
#[derive(Debug, Clone, Copy)]
struct Head {
    seq: u64,
    round: Option<u32>,
    piece: Piece,
    /// The sequence number's digits are `piece.text[digits.0..digits.1]`.
    digits: (usize, usize),
}

impl Head {
    /// Counts the sequence number up by one in the text; false when it would gain a digit (the
    /// text is then left wrong, to be made anew).
    fn bump(&mut self) -> bool {
        let Some(digits) = self.piece.text.get_mut(self.digits.0..self.digits.1) else { return false };
        for d in digits.iter_mut().rev() {
            if *d == b'9' {
                *d = b'0';
            } else {
                *d += 1;
                self.seq += 1;
                return true;
            }
        }
        false
    }
}

impl Encoder {
    /// An encoder for the records of a ruleset whose file table is `files`.
    pub fn new(files: &[String]) -> Encoder {
        Encoder {
            rules: RulePrefixes::new(files),
            names: Quoted::default(),
            head: None,
            ends: vec![None; RULE_SLOTS],
            scratch: Vec::with_capacity(128),
        }
    }

    /// Appends `record` to `out` as one JSON object and a newline.
    pub fn write(&mut self, out: &mut Vec<u8>, record: &Record) {
        self.head(out, record.seq, record.round);
        event(out, &mut self.names, &record.event);
        self.end(out, record.rule);
    }

    /// `{"seq":N,"round":R,"event":`.
    #[inline]
    fn head(&mut self, out: &mut Vec<u8>, seq: u64, round: Option<u32>) {
        if let Some(head) = &mut self.head {
            if head.round == round && head.seq.checked_add(1) == Some(seq) && head.bump() {
                return head.piece.put(out);
            }
        }
        self.new_head(out, seq, round);
    }

    fn new_head(&mut self, out: &mut Vec<u8>, seq: u64, round: Option<u32>) {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.extend_from_slice(b"{\"seq\":");
        let start = text.len();
        int(&mut text, seq);
        let digits = (start, text.len());
        match round {
            Some(r) => {
                text.extend_from_slice(b",\"round\":");
                int(&mut text, r);
            }
            None => text.extend_from_slice(b",\"round\":null"),
        }
        text.extend_from_slice(b",\"event\":");
        out.extend_from_slice(&text);
        self.head = Piece::of(&text).map(|piece| Head { seq, round, piece, digits });
        self.scratch = text;
    }

    /// The rule's location, the closing brace and the newline.
    #[inline]
    fn end(&mut self, out: &mut Vec<u8>, rule: Option<ir::Loc>) {
        let Some(loc) = rule else {
            out.extend_from_slice(b"}\n");
            return;
        };
        let slot =
            (loc.line as usize).wrapping_mul(31).wrapping_add(loc.column as usize).wrapping_add(usize::from(loc.file))
                % RULE_SLOTS;
        if let Some(Some((held, piece))) = self.ends.get(slot) {
            if *held == loc {
                return piece.put(out);
            }
        }
        self.new_end(out, slot, loc);
    }

    fn new_end(&mut self, out: &mut Vec<u8>, slot: usize, loc: ir::Loc) {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        match self.rules.0.get(usize::from(loc.file)) {
            Some(prefix) => text.extend_from_slice(prefix),
            None => text.extend_from_slice(b",\"rule\":\"?:"),
        }
        int(&mut text, loc.line);
        text.push(b':');
        int(&mut text, loc.column);
        text.extend_from_slice(b"\"}\n");
        out.extend_from_slice(&text);
        if let (Some(piece), Some(s)) = (Piece::of(&text), self.ends.get_mut(slot)) {
            *s = Some((loc, piece));
        }
        self.scratch = text;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Loc;
    use crate::run::trace::{
        Cause, Considered, Dice, Event, FinalState, Name, OrderEntry, Paid, Pass, Revealed, RuleAt, Targets, Timing,
    };
    use std::borrow::Cow;
    use std::collections::BTreeMap;

    /// A record with its rule as `tempo run` writes it, for serde_json to write.
    #[derive(serde::Serialize)]
    struct WithRule<'a> {
        #[serde(flatten)]
        record: &'a Record,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    }

    fn name(s: &str) -> Name {
        Name::from(s)
    }

    /// Names that need every kind of escaping, and some that need none.
    fn awkward() -> Vec<Name> {
        let mut all: String = (0u8..0x20).map(char::from).collect();
        all.push_str("\"\\/\u{7f}é☃😀");
        vec![name("Aria"), name(""), name("a \"quoted\" \\ name"), name(&all), name("tab\there\nline")]
    }

    fn every_event(n: &Name) -> Vec<Event> {
        let mut paid = Paid::default();
        paid.push(n.clone(), -3);
        paid.push(name("ap"), 1);
        let causes = vec![
            Cause::Action { action: n.clone(), by: n.clone() },
            Cause::Partner { action: n.clone(), with: name("B") },
            Cause::Continued(n.clone()),
            Cause::Step { op: "refresh", timing: Timing::Plain("turn_start") },
            Cause::Step { op: "lose", timing: Timing::PhaseStart(n.clone()) },
            Cause::Hook(Timing::PhaseEnd(n.clone())),
            Cause::Threshold { pool: n.clone(), op: "<=", value: i64::MIN },
            Cause::Gain(n.clone()),
            Cause::Maintain(n.clone()),
            Cause::Named(n.clone()),
            Cause::Static("overspend"),
        ];
        let mut events: Vec<Event> = causes
            .into_iter()
            .map(|cause| Event::Pool { who: n.clone(), pool: name("hp"), from: i64::MAX, to: -1, cause, side: false })
            .collect();
        let mut values = BTreeMap::new();
        values.insert(n.clone(), -7);
        values.insert(name("Zed"), 12);
        let mut pools = BTreeMap::new();
        pools.insert(name("ap"), 0);
        pools.insert(n.clone(), 5);
        let mut state = BTreeMap::new();
        state.insert(
            n.clone(),
            FinalState {
                pools: pools.clone(),
                conditions: vec![n.clone(), name("prone")],
                magnitudes: BTreeMap::from([(name("prone"), -3)]),
                piles: BTreeMap::from([
                    (name("hand"), vec![name("strike"), n.clone(), name("strike")]),
                    (name("lost"), vec![]),
                ]),
            },
        );
        state.insert(name("B"), FinalState::default());
        events.extend([
            Event::EncounterStart { participants: vec![n.clone(), name("B")] },
            Event::EncounterStart { participants: vec![] },
            Event::Seating { order: vec![name("B"), n.clone()] },
            Event::Seating { order: vec![] },
            Event::Initiative {
                order: vec![OrderEntry::One(n.clone()), OrderEntry::Together(vec![name("B"), n.clone()])],
                values,
            },
            Event::Initiative { order: vec![], values: BTreeMap::new() },
            Event::RoundStart {},
            Event::RoundEnd {},
            Event::PhaseStart { phase: n.clone() },
            Event::PhaseEnd { phase: n.clone() },
            Event::TurnStart { actor: n.clone() },
            Event::TurnEnd { actor: n.clone() },
            Event::Roll { who: n.clone(), dice: Dice { count: 3, sides: u32::MAX }, result: 0, pool: None },
            Event::Roll {
                who: n.clone(),
                dice: Dice { count: 3, sides: 6 },
                result: 2,
                pool: Some(Box::new(crate::run::trace::PoolRoll::counted(vec![6, 1, 5], ">= 5".into()))),
            },
            Event::Roll {
                who: n.clone(),
                dice: Dice { count: 3, sides: 6 },
                result: 2,
                pool: Some(Box::new(crate::run::trace::PoolRoll {
                    faces: vec![1, 3, 2],
                    counting: ">= 5".into(),
                    name: Some(n.clone()),
                    thrown: Some("2 ability + 1d6".into()),
                    shown: vec!["-".into(), "success \"x\"".into(), "2".into()],
                    counts: vec![
                        crate::run::trace::Counted { counting: ">= 5".into(), count: 2 },
                        crate::run::trace::Counted { counting: "success".into(), count: 1 },
                    ],
                })),
            },
            Event::Action {
                actor: n.clone(),
                action: n.clone(),
                kind: "reaction",
                targets: Targets(Some(n.clone())),
                paid: paid.clone(),
            },
            Event::Action {
                actor: n.clone(),
                action: name("draw"),
                kind: "free",
                targets: Targets(None),
                paid: Paid::default(),
            },
            Event::Rejected {
                actor: n.clone(),
                action: n.clone(),
                code: "tempo::limit",
                reason: Cow::Borrowed("a \"reason\""),
                named: Default::default(),
            },
            Event::Rejected {
                actor: n.clone(),
                action: n.clone(),
                code: "x",
                reason: Cow::Owned(n.to_string()),
                named: Default::default(),
            },
            Event::Trigger { source: n.clone(), reactor: n.clone(), reaction: n.clone() },
            Event::Resolve { actor: n.clone(), action: n.clone() },
            Event::Revealed {
                phase: n.clone(),
                choices: vec![
                    Revealed { who: n.clone(), choice: Some(n.clone()), target: Some(name("B")) },
                    Revealed { who: name("C"), choice: None, target: None },
                ],
            },
            Event::Revealed { phase: n.clone(), choices: vec![] },
            Event::Condition { who: n.clone(), condition: n.clone(), on: true },
            Event::Condition { who: n.clone(), condition: n.clone(), on: false },
            Event::Choice { who: name("GM"), question: n.clone(), answer: n.clone() },
            Event::Slot { holder: n.clone(), side: name("foes"), taker: Some(name("B")) },
            Event::Slot { holder: n.clone(), side: n.clone(), taker: None },
            Event::Magnitude { who: n.clone(), condition: n.clone(), from: i64::MIN, to: 2 },
            Event::Check { who: n.clone(), roll: -4, against: 10, outcome: name("critical"), opposed: None },
            Event::Check { who: n.clone(), roll: 3, against: 10, outcome: n.clone(), opposed: Some(name("hard")) },
            Event::Downtime { hour: u32::MAX },
            Event::Move { who: n.clone(), from: i64::MIN, to: 3, forced: true },
            Event::Move { who: n.clone(), from: 0, to: 3, forced: false },
            Event::Leave { who: n.clone() },
            Event::Object { object: n.clone(), who: n.clone(), holds: true, at: None },
            Event::Object { object: name("shield"), who: n.clone(), holds: false, at: Some(-3) },
            Event::EncounterEnd {
                reason: n.to_string(),
                state,
                sides: BTreeMap::new(),
                piles: Default::default(),
                objects: vec![
                    super::super::trace::FinalObject { object: n.clone(), at: Some(-2), held_by: vec![] },
                    super::super::trace::FinalObject {
                        object: name("chest"),
                        at: None,
                        held_by: vec![n.clone(), name("B")],
                    },
                ],
            },
        ]);
        events.extend(more_events(n));
        events
    }

    /// The rest of `every_event`: draws, items, ongoing actions, rests and decisions.
    fn more_events(n: &Name) -> Vec<Event> {
        let side = BTreeMap::from([(n.clone(), BTreeMap::from([(name("cp"), 3)]))]);
        let deck = BTreeMap::from([(name("deck"), vec![name("ace"), n.clone()])]);
        let piles =
            super::super::trace::TablePiles { shared: deck.clone(), sides: BTreeMap::from([(name("foes"), deck)]) };
        vec![
            Event::Granted { who: n.clone(), action: name("B"), end: true },
            Event::Pool {
                who: n.clone(),
                pool: name("cp"),
                from: 2,
                to: 1,
                cause: Cause::Named(n.clone()),
                side: true,
            },
            Event::EncounterEnd { reason: String::new(), state: BTreeMap::new(), sides: side, piles, objects: vec![] },
            Event::Drawn { side: None, who: Some(n.clone()) },
            Event::Drawn { side: Some(name("foes")), who: None },
            Event::Items {
                who: n.clone(),
                how: "draws",
                items: vec![name("strike"), n.clone()],
                from: name("deck"),
                to: n.clone(),
                to_who: None,
            },
            Event::Items {
                who: n.clone(),
                how: "moves",
                items: vec![],
                from: n.clone(),
                to: n.clone(),
                to_who: Some(n.clone()),
            },
            Event::Ongoing { actor: n.clone(), action: n.clone(), outcome: "lost" },
            Event::Each { who: n.clone(), relation: "ally", target: name("Jack 1") },
            Event::Rest { rest: n.clone(), outcome: n.to_string() },
            Event::Decision {
                who: n.clone(),
                policy: "greedy",
                considered: vec![
                    Considered { action: n.clone(), target: Some(n.clone()), score: Some(1.25), playouts: None },
                    Considered { action: name("dash"), target: None, score: Some(-0.5), playouts: None },
                ],
                chosen: Some(Considered { action: n.clone(), target: Some(n.clone()), score: None, playouts: None }),
                reaction: false,
                pass: None,
                question: None,
            },
            Event::Decision {
                who: n.clone(),
                policy: "aggressive",
                considered: vec![],
                chosen: None,
                reaction: false,
                pass: None,
                question: None,
            },
            Event::Decision {
                who: n.clone(),
                policy: "search",
                considered: vec![Considered { action: n.clone(), target: None, score: Some(0.5), playouts: Some(40) }],
                chosen: None,
                reaction: true,
                pass: Some(Pass { score: 0.25, playouts: 10 }),
                question: None,
            },
            Event::Decision {
                who: n.clone(),
                policy: "search",
                considered: vec![Considered {
                    action: name("lapse"),
                    target: None,
                    score: Some(0.5),
                    playouts: Some(4),
                }],
                chosen: Some(Considered { action: name("lapse"), target: None, score: None, playouts: None }),
                reaction: false,
                pass: None,
                question: Some(name("upkeep of warded")),
            },
        ]
    }

    #[test]
    fn every_event_is_written_as_serde_json_writes_it() {
        let mut checked = 0;
        for n in awkward() {
            // The file table: an awkward name too, and a second file.
            let files = vec![n.to_string(), "rulesets/base.rules".to_string()];
            let rules =
                [None, Some(Loc { file: 0, line: 1, column: 1 }), Some(Loc { file: 1, line: u32::MAX, column: 187 })];
            // One encoder for all of them, as a run has: names it has seen come from its cache.
            let mut encoder = Encoder::new(&files);
            for (i, event) in every_event(&n).into_iter().enumerate() {
                for round in [None, Some(0), Some(u32::MAX)] {
                    let rule = rules[(i + round.map_or(0, |_| 1)) % 3];
                    let record =
                        Record { seq: [0, 7, u64::MAX][i % 3], round, event: event.clone(), rule, because: None };
                    let mut ours = Vec::new();
                    encoder.write(&mut ours, &record);
                    let with_rule = WithRule {
                        record: &record,
                        rule: record.rule.map(|loc| RuleAt { files: &files, loc }.to_string()),
                    };
                    let mut theirs = serde_json::to_vec(&with_rule).unwrap();
                    theirs.push(b'\n');
                    assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs));
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, awkward().len() * every_event(&name("x")).len() * 3);
        let mut seen: Vec<usize> = every_event(&name("x")).iter().map(variant).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, (0..33).collect::<Vec<_>>(), "every kind of event is checked");
    }

    /// The start of a line is counted up from the last one's text and a rule's end is kept per
    /// location: across carries (9 to 10, 1099 to 1100), rounds that change, a gap in the
    /// numbers and two locations that share a slot of the cache, every line is still serde's.
    #[test]
    fn consecutive_records_are_written_as_serde_json_writes_them() {
        let files = vec!["a.rules".to_string(), "b \"c\".rules".to_string()];
        let locs = [
            None,
            Some(Loc { file: 0, line: 1, column: 1 }),
            Some(Loc { file: 1, line: 999, column: 12 }),
            Some(Loc { file: 0, line: 1, column: 65 }),
            Some(Loc { file: 7, line: 3, column: 4 }),
        ];
        let mut encoder = Encoder::new(&files);
        let seqs = (0..=1_205u64).chain([5_000, 5_001, 99_999_999, 100_000_000, u64::MAX - 1, u64::MAX]);
        for (i, seq) in seqs.enumerate() {
            let round = if seq < 500 { None } else { Some((seq / 7) as u32) };
            let record = Record {
                seq,
                round,
                event: Event::TurnStart { actor: name("A") },
                rule: locs[i % locs.len()],
                because: None,
            };
            let mut ours = Vec::new();
            encoder.write(&mut ours, &record);
            let with_rule =
                WithRule { record: &record, rule: record.rule.map(|loc| RuleAt { files: &files, loc }.to_string()) };
            let mut theirs = serde_json::to_vec(&with_rule).unwrap();
            theirs.push(b'\n');
            assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs), "seq {seq}");
        }
    }

    /// The names cache knows a name by its pointer; it holds a clone of each name it keeps, so
    /// a name dropped and a new one made cannot share an address and be taken for each other.
    #[test]
    fn names_made_and_dropped_one_after_another_are_each_written_as_they_are() {
        let mut encoder = Encoder::new(&[]);
        let mut out = Vec::new();
        for i in 0..2_000 {
            let who = name(&format!("p{i}"));
            let record =
                Record { seq: 0, round: None, event: Event::Leave { who: who.clone() }, rule: None, because: None };
            out.clear();
            encoder.write(&mut out, &record);
            let expected = format!("{{\"seq\":0,\"round\":null,\"event\":\"leave\",\"who\":\"p{i}\"}}\n");
            assert_eq!(String::from_utf8_lossy(&out), expected);
            // Written again from the cache.
            out.clear();
            encoder.write(&mut out, &record);
            assert_eq!(String::from_utf8_lossy(&out), expected);
        }
    }

    /// Each kind of event by number: a new kind fails to compile here until it is numbered,
    /// and then fails the test until `every_event` has one.
    fn variant(e: &Event) -> usize {
        match e {
            Event::EncounterStart { .. } => 0,
            Event::Initiative { .. } => 1,
            Event::RoundStart {} => 2,
            Event::RoundEnd {} => 3,
            Event::PhaseStart { .. } => 4,
            Event::PhaseEnd { .. } => 5,
            Event::TurnStart { .. } => 6,
            Event::TurnEnd { .. } => 7,
            Event::Pool { .. } => 8,
            Event::Roll { .. } => 9,
            Event::Action { .. } => 10,
            Event::Rejected { .. } => 11,
            Event::Trigger { .. } => 12,
            Event::Condition { .. } => 13,
            Event::Choice { .. } => 14,
            Event::Check { .. } => 15,
            Event::Downtime { .. } => 16,
            Event::Move { .. } => 17,
            Event::Leave { .. } => 18,
            Event::Ongoing { .. } => 19,
            Event::Rest { .. } => 20,
            Event::EncounterEnd { .. } => 21,
            Event::Resolve { .. } => 22,
            Event::Decision { .. } => 23,
            Event::Object { .. } => 24,
            Event::Seating { .. } => 25,
            Event::Slot { .. } => 26,
            Event::Magnitude { .. } => 27,
            Event::Revealed { .. } => 28,
            Event::Items { .. } => 29,
            Event::Drawn { .. } => 30,
            Event::Each { .. } => 31,
            Event::Granted { .. } => 32,
        }
    }
}
