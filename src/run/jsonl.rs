//! The trace as JSON lines, written by hand. The bytes are exactly what `serde_json` makes of a
//! `Record` with its rule's location formatted last as `"rule"` (the derive is kept, and the
//! tests below hold this encoder to it for every kind of event, with and without a rule, and
//! every character that needs escaping), but without serde's machinery per field:
//! writing was a third of `tempo run --format jsonl`'s time when it went through
//! `serde_json::to_writer`.

use super::trace::{Cause, Event, FinalState, Name, OrderEntry, Record, Timing};
use crate::ir;
use std::collections::BTreeMap;
use std::rc::Rc;

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
pub struct RulePrefixes(Vec<Vec<u8>>);

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

/// Sets of the names cache, two slots each: a run names few participants, actions, pools and
/// conditions.
const NAME_SETS: usize = 64;
/// The longest escaped name the cache keeps.
const NAME_WIDTH: usize = 32;

/// The names of a run as they are written, escaped, found by the identity of their shared text
/// (a run's names are clones of one `Rc` per name, so the same name is the same pointer; the
/// runner's own words are `&'static str`). A hit appends a fixed 32 bytes and cuts back to the
/// name's length: a copy of known size instead of a scan for characters to escape and a call to
/// `memcpy` for every name of every event. Each slot holds a clone of its name, so a pointer it
/// remembers is never freed and reused for other text (a static one never is).
///
/// A name's set is found from its address, and each set holds two names (the last one missed
/// first): with one slot per set, two hot names landing on the same slot (as often as not, with
/// twenty names in 64 slots) threw each other out on every line, and where they landed changed
/// from run to run with the addresses, so did the instruction count.
#[derive(Debug, Clone)]
struct Quoted {
    slots: Vec<Option<(Kept, [u8; NAME_WIDTH], u8)>>,
}

/// What a slot of `Quoted` was filled for.
#[derive(Debug, Clone)]
enum Kept {
    Name(Name),
    Static(&'static str),
}

impl Default for Quoted {
    fn default() -> Quoted {
        Quoted { slots: vec![None; 2 * NAME_SETS] }
    }
}

impl Quoted {
    /// Appends the name's characters as `escaped` writes them.
    #[inline]
    fn escaped(&mut self, out: &mut Vec<u8>, name: &Name) {
        let slot = Self::slot(Rc::as_ptr(name).cast::<u8>());
        for way in [slot, slot + 1] {
            if let Some(Some((Kept::Name(held), text, len))) = self.slots.get(way) {
                if Rc::ptr_eq(held, name) {
                    return Self::put(out, text, *len);
                }
            }
        }
        self.miss(out, slot, name, Kept::Name(name.clone()));
    }

    /// `escaped` for the runner's own words (an action's kind, a check's outcome, a code).
    #[inline]
    fn fixed(&mut self, out: &mut Vec<u8>, word: &'static str) {
        let slot = Self::slot(word.as_ptr());
        for way in [slot, slot + 1] {
            if let Some(Some((Kept::Static(held), text, len))) = self.slots.get(way) {
                if std::ptr::eq(*held, word) {
                    return Self::put(out, text, *len);
                }
            }
        }
        self.miss(out, slot, word, Kept::Static(word));
    }

    /// The first slot of the address's set; the second follows it.
    fn slot(address: *const u8) -> usize {
        let a = address as usize;
        ((a >> 4) ^ (a >> 12)) % NAME_SETS * 2
    }

    #[inline]
    fn put(out: &mut Vec<u8>, text: &[u8; NAME_WIDTH], len: u8) {
        let start = out.len();
        out.extend_from_slice(text);
        out.truncate(start + usize::from(len));
    }

    fn miss(&mut self, out: &mut Vec<u8>, slot: usize, s: &str, kept: Kept) {
        let start = out.len();
        escaped(out, s);
        let written = &out[start..];
        if written.len() <= NAME_WIDTH {
            let mut text = [0; NAME_WIDTH];
            text[..written.len()].copy_from_slice(written);
            // The set's first name moves to its second slot, whose name is dropped.
            if slot + 1 < self.slots.len() {
                self.slots.swap(slot, slot + 1);
                self.slots[slot] = Some((kept, text, written.len() as u8));
            }
        }
    }
}

fn event(out: &mut Vec<u8>, q: &mut Quoted, e: &Event) {
    match e {
        Event::EncounterStart { participants } => {
            tag(out, "encounter_start");
            key(out, "participants");
            list(out, participants);
        }
        Event::Initiative { order, values } => {
            tag(out, "initiative");
            key(out, "order");
            out.push(b'[');
            for (i, entry) in order.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                match entry {
                    OrderEntry::One(name) => string(out, name),
                    OrderEntry::Together(names) => list(out, names),
                }
            }
            out.push(b']');
            key(out, "values");
            int_map(out, values);
        }
        // The events of every turn are written with the text between two values as one
        // literal (the tag, the next key and the quotes around a name): a third of the copies
        // and capacity checks of writing each piece alone, on most of a run's lines.
        Event::RoundStart {} => lit(out, b"\"round_start\""),
        Event::RoundEnd {} => lit(out, b"\"round_end\""),
        Event::PhaseStart { phase } => {
            lit(out, b"\"phase_start\",\"phase\":\"");
            q.escaped(out, phase);
            out.push(b'"');
        }
        Event::PhaseEnd { phase } => {
            lit(out, b"\"phase_end\",\"phase\":\"");
            q.escaped(out, phase);
            out.push(b'"');
        }
        Event::TurnStart { actor } => {
            lit(out, b"\"turn_start\",\"actor\":\"");
            q.escaped(out, actor);
            out.push(b'"');
        }
        Event::TurnEnd { actor } => {
            lit(out, b"\"turn_end\",\"actor\":\"");
            q.escaped(out, actor);
            out.push(b'"');
        }
        Event::Pool { who, pool, from, to, cause: c } => {
            lit(out, b"\"pool\",\"who\":\"");
            q.escaped(out, who);
            lit(out, b"\",\"pool\":\"");
            q.escaped(out, pool);
            lit(out, b"\",\"from\":");
            int(out, *from);
            lit(out, b",\"to\":");
            int(out, *to);
            lit(out, b",\"cause\":\"");
            cause(out, q, c);
            out.push(b'"');
        }
        Event::Roll { who, dice, result } => {
            lit(out, b"\"roll\",\"who\":\"");
            q.escaped(out, who);
            lit(out, b"\",\"dice\":\"");
            int(out, dice.count);
            out.push(b'd');
            int(out, dice.sides);
            lit(out, b"\",\"result\":");
            int(out, *result);
        }
        Event::Action { actor, action, kind, targets, paid } => {
            lit(out, b"\"action\",\"actor\":\"");
            q.escaped(out, actor);
            lit(out, b"\",\"action\":\"");
            q.escaped(out, action);
            lit(out, b"\",\"kind\":\"");
            q.fixed(out, kind);
            lit(out, b"\",\"targets\":[");
            if let Some(t) = &targets.0 {
                quoted(out, q, t);
            }
            lit(out, b"],\"paid\":{");
            for (i, (pool, n)) in paid.sorted().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                quoted(out, q, pool);
                out.push(b':');
                int(out, *n);
            }
            out.push(b'}');
        }
        Event::Rejected { actor, action, code, reason } => {
            tag(out, "rejected");
            name_field(out, q, "actor", actor);
            name_field(out, q, "action", action);
            static_field(out, q, "code", code);
            field(out, "reason", reason);
        }
        Event::Trigger { source, reactor, reaction } => {
            lit(out, b"\"trigger\",\"source\":\"");
            q.escaped(out, source);
            lit(out, b"\",\"reactor\":\"");
            q.escaped(out, reactor);
            lit(out, b"\",\"reaction\":\"");
            q.escaped(out, reaction);
            out.push(b'"');
        }
        Event::Resolve { actor, action } => {
            lit(out, b"\"resolve\",\"actor\":\"");
            q.escaped(out, actor);
            lit(out, b"\",\"action\":\"");
            q.escaped(out, action);
            out.push(b'"');
        }
        Event::Condition { who, condition, on } => {
            tag(out, "condition");
            name_field(out, q, "who", who);
            name_field(out, q, "condition", condition);
            key(out, "on");
            out.extend_from_slice(if *on { b"true" } else { b"false" });
        }
        Event::Choice { who, question, answer } => {
            tag(out, "choice");
            name_field(out, q, "who", who);
            name_field(out, q, "question", question);
            name_field(out, q, "answer", answer);
        }
        Event::Check { who, roll, against, outcome, opposed } => {
            lit(out, b"\"check\",\"who\":\"");
            q.escaped(out, who);
            lit(out, b"\",\"roll\":");
            int(out, *roll);
            lit(out, b",\"against\":");
            int(out, *against);
            lit(out, b",\"outcome\":\"");
            q.escaped(out, outcome);
            out.push(b'"');
            if let Some(theirs) = opposed {
                name_field(out, q, "opposed", theirs);
            }
        }
        Event::Downtime { hour } => {
            tag(out, "downtime");
            int_field(out, "hour", *hour);
        }
        Event::Move { who, from, to, forced } => {
            tag(out, "move");
            name_field(out, q, "who", who);
            int_field(out, "from", *from);
            int_field(out, "to", *to);
            key(out, "forced");
            out.extend_from_slice(if *forced { b"true" } else { b"false" });
        }
        Event::Object { object, who, holds, at } => {
            tag(out, "object");
            name_field(out, q, "object", object);
            name_field(out, q, "who", who);
            key(out, "holds");
            out.extend_from_slice(if *holds { b"true" } else { b"false" });
            match at {
                Some(at) => int_field(out, "at", *at),
                None => {
                    key(out, "at");
                    out.extend_from_slice(b"null");
                }
            }
        }
        Event::Leave { who } => {
            tag(out, "leave");
            name_field(out, q, "who", who);
        }
        Event::Ongoing { actor, action, outcome } => {
            tag(out, "ongoing");
            name_field(out, q, "actor", actor);
            name_field(out, q, "action", action);
            static_field(out, q, "outcome", outcome);
        }
        Event::Decision { who, policy, considered, chosen } => {
            tag(out, "decision");
            name_field(out, q, "who", who);
            static_field(out, q, "policy", policy);
            // Rare (`--decisions` only) and holding numbers: written by serde_json itself.
            key(out, "considered");
            let _ = serde_json::to_writer(&mut *out, considered);
            key(out, "chosen");
            let _ = serde_json::to_writer(&mut *out, chosen);
        }
        Event::Rest { rest, outcome } => {
            tag(out, "rest");
            name_field(out, q, "rest", rest);
            field(out, "outcome", outcome);
        }
        Event::EncounterEnd { reason, state, objects } => {
            tag(out, "encounter_end");
            field(out, "reason", reason);
            key(out, "state");
            out.push(b'{');
            for (i, (name, FinalState { pools, conditions })) in state.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(out, name);
                out.extend_from_slice(b":{\"pools\":");
                int_map(out, pools);
                out.extend_from_slice(b",\"conditions\":");
                list(out, conditions);
                out.push(b'}');
            }
            out.push(b'}');
            if !objects.is_empty() {
                out.extend_from_slice(b",\"objects\":[");
                for (i, o) in objects.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(b"{\"object\":");
                    string(out, &o.object);
                    match o.at {
                        Some(at) => int_field(out, "at", at),
                        None => out.extend_from_slice(b",\"at\":null"),
                    }
                    out.extend_from_slice(b",\"held_by\":");
                    list(out, &o.held_by);
                    out.push(b'}');
                }
                out.push(b']');
            }
        }
    }
}

/// The text of a cause, as `Cause`'s `Display` writes it, escaped.
fn cause(out: &mut Vec<u8>, q: &mut Quoted, c: &Cause) {
    // The words between two names are literals here, not a closure's argument: a copy of
    // known size, not a call to `memcpy`, on most pool lines.
    match c {
        Cause::Action { action, by } => {
            q.escaped(out, action);
            lit(out, b" by ");
            q.escaped(out, by);
        }
        Cause::Partner { action, with } => {
            q.escaped(out, action);
            lit(out, b" with ");
            q.escaped(out, with);
        }
        Cause::Continued(action) => {
            q.escaped(out, action);
            out.extend_from_slice(b" (continued)");
        }
        Cause::Step { op, timing: t } => {
            q.fixed(out, op);
            out.extend_from_slice(b" at ");
            timing(out, q, t);
        }
        Cause::Hook(t) => {
            out.extend_from_slice(b"at ");
            timing(out, q, t);
        }
        Cause::Threshold { pool, op, value } => {
            q.escaped(out, pool);
            out.push(b' ');
            q.fixed(out, op);
            out.push(b' ');
            int(out, *value);
        }
        Cause::Gain(source) => {
            out.extend_from_slice(b"gain on ");
            q.escaped(out, source);
        }
        Cause::Maintain(name) => {
            out.extend_from_slice(b"maintain ");
            q.escaped(out, name);
        }
        Cause::Named(name) => q.escaped(out, name),
        Cause::Static(text) => escaped(out, text),
    }
}

fn timing(out: &mut Vec<u8>, q: &mut Quoted, t: &Timing) {
    let (open, phase) = match t {
        Timing::Plain(t) => return q.fixed(out, t),
        Timing::PhaseStart(p) => ("phase_start(", p),
        Timing::PhaseEnd(p) => ("phase_end(", p),
    };
    out.extend_from_slice(open.as_bytes());
    q.escaped(out, phase);
    out.push(b')');
}

#[inline]
fn lit(out: &mut Vec<u8>, text: &[u8]) {
    out.extend_from_slice(text);
}

#[inline]
fn tag(out: &mut Vec<u8>, name: &str) {
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.push(b'"');
}

#[inline]
fn key(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

#[inline]
fn name_field(out: &mut Vec<u8>, q: &mut Quoted, key_name: &str, value: &Name) {
    key(out, key_name);
    quoted(out, q, value);
}

#[inline]
fn static_field(out: &mut Vec<u8>, q: &mut Quoted, key_name: &str, value: &'static str) {
    key(out, key_name);
    out.push(b'"');
    q.fixed(out, value);
    out.push(b'"');
}

#[inline]
fn quoted(out: &mut Vec<u8>, q: &mut Quoted, value: &Name) {
    out.push(b'"');
    q.escaped(out, value);
    out.push(b'"');
}

#[inline]
fn field(out: &mut Vec<u8>, name: &str, value: &str) {
    key(out, name);
    string(out, value);
}

#[inline]
fn int_field<T: itoa::Integer + TryInto<u8> + Copy>(out: &mut Vec<u8>, name: &str, value: T) {
    key(out, name);
    int(out, value);
}

#[inline]
fn int<T: itoa::Integer + TryInto<u8> + Copy>(out: &mut Vec<u8>, value: T) {
    // Most numbers of a trace are one digit (pool amounts, rolls' pieces): no buffer, no copy.
    if let Ok(digit @ 0..=9) = value.try_into() {
        out.push(b'0' + digit);
        return;
    }
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

fn list<S: AsRef<str>>(out: &mut Vec<u8>, items: &[S]) {
    out.push(b'[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, s.as_ref());
    }
    out.push(b']');
}

fn int_map<K: AsRef<str>>(out: &mut Vec<u8>, map: &BTreeMap<K, i64>) {
    out.push(b'{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k.as_ref());
        out.push(b':');
        int(out, *v);
    }
    out.push(b'}');
}

#[inline]
fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    escaped(out, s);
    out.push(b'"');
}

/// Whether any byte is `"`, `\\` or a control character, looked at eight bytes at a time (the
/// classic "has a byte less than n" and "has a zero byte" word tests, both exact for "any").
#[inline]
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGH != 0;
        if control || has_zero(x ^ (ONES * u64::from(b'"'))) || has_zero(x ^ (ONES * u64::from(b'\\'))) {
            return true;
        }
    }
    words.remainder().iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// The string's characters as serde_json escapes them: `"`, `\` and the control characters
/// below U+0020; everything else as it is (UTF-8).
fn escaped(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    if !needs_escape(bytes) {
        out.extend_from_slice(bytes);
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
        } else {
            out.extend_from_slice(short);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Loc;
    use crate::run::trace::{Considered, Dice, Name, Paid, RuleAt, Targets};
    use std::borrow::Cow;

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
            .map(|cause| Event::Pool { who: n.clone(), pool: name("hp"), from: i64::MAX, to: -1, cause })
            .collect();
        let mut values = BTreeMap::new();
        values.insert(n.clone(), -7);
        values.insert(name("Zed"), 12);
        let mut pools = BTreeMap::new();
        pools.insert(name("ap"), 0);
        pools.insert(n.clone(), 5);
        let mut state = BTreeMap::new();
        state.insert(n.clone(), FinalState { pools: pools.clone(), conditions: vec![n.clone(), name("prone")] });
        state.insert(name("B"), FinalState { pools: BTreeMap::new(), conditions: vec![] });
        events.extend([
            Event::EncounterStart { participants: vec![n.clone(), name("B")] },
            Event::EncounterStart { participants: vec![] },
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
            Event::Roll { who: n.clone(), dice: Dice { count: 3, sides: u32::MAX }, result: 0 },
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
            },
            Event::Rejected { actor: n.clone(), action: n.clone(), code: "x", reason: Cow::Owned(n.to_string()) },
            Event::Trigger { source: n.clone(), reactor: n.clone(), reaction: n.clone() },
            Event::Resolve { actor: n.clone(), action: n.clone() },
            Event::Condition { who: n.clone(), condition: n.clone(), on: true },
            Event::Condition { who: n.clone(), condition: n.clone(), on: false },
            Event::Choice { who: name("GM"), question: n.clone(), answer: n.clone() },
            Event::Check { who: n.clone(), roll: -4, against: 10, outcome: name("critical"), opposed: None },
            Event::Check { who: n.clone(), roll: 3, against: 10, outcome: n.clone(), opposed: Some(name("hard")) },
            Event::Downtime { hour: u32::MAX },
            Event::Move { who: n.clone(), from: i64::MIN, to: 3, forced: true },
            Event::Move { who: n.clone(), from: 0, to: 3, forced: false },
            Event::Leave { who: n.clone() },
            Event::Object { object: n.clone(), who: n.clone(), holds: true, at: None },
            Event::Object { object: name("shield"), who: n.clone(), holds: false, at: Some(-3) },
            Event::Ongoing { actor: n.clone(), action: n.clone(), outcome: "lost" },
            Event::Rest { rest: n.clone(), outcome: n.to_string() },
            Event::Decision {
                who: n.clone(),
                policy: "greedy",
                considered: vec![
                    Considered { action: n.clone(), target: Some(n.clone()), score: Some(1.25) },
                    Considered { action: name("dash"), target: None, score: Some(-0.5) },
                ],
                chosen: Some(Considered { action: n.clone(), target: Some(n.clone()), score: None }),
            },
            Event::Decision { who: n.clone(), policy: "aggressive", considered: vec![], chosen: None },
            Event::EncounterEnd {
                reason: n.to_string(),
                state,
                objects: vec![
                    super::super::trace::FinalObject { object: n.clone(), at: Some(-2), held_by: vec![] },
                    super::super::trace::FinalObject {
                        object: name("chest"),
                        at: None,
                        held_by: vec![n.clone(), name("B")],
                    },
                ],
            },
            Event::EncounterEnd { reason: String::new(), state: BTreeMap::new(), objects: vec![] },
        ]);
        events
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
        assert_eq!(seen, (0..25).collect::<Vec<_>>(), "every kind of event is checked");
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
        }
    }
}
