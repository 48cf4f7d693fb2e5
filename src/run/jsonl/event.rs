//! What each event, cause and timing writes as JSON: the fields in serde_json's order.

use super::super::trace::{
    Cause, Dice, Event, FinalObject, FinalState, Name, OrderEntry, Paid, PoolRoll, Revealed, TablePiles, Targets,
    Timing,
};
use super::write::{
    escaped, field, int, int_field, int_map, key, list, lit, name_field, object, quoted, static_field, string, tag,
    Quoted,
};
use std::collections::BTreeMap;

pub(super) fn event(out: &mut Vec<u8>, q: &mut Quoted, e: &Event) {
    match e {
        Event::EncounterStart { participants } => {
            tag(out, "encounter_start");
            key(out, "participants");
            list(out, participants);
        }
        Event::Seating { order } => {
            tag(out, "seating");
            key(out, "order");
            list(out, order);
        }
        Event::Initiative { order, values } => initiative_event(out, order, values),
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
        Event::Granted { who, action, end } => granted(out, q, who, action, *end),
        Event::Pool { who, pool, from, to, cause: c, side } => {
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
            if *side {
                lit(out, b",\"side\":true");
            }
        }
        Event::Roll { who, dice, result, pool } => roll_event(out, q, who, *dice, *result, pool.as_deref()),
        Event::Action { actor, action, kind, targets, paid } => {
            action_event(out, q, actor, action, kind, targets, paid)
        }
        Event::Rejected { actor, action, code, reason, .. } => {
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
        Event::Revealed { phase, choices } => revealed_event(out, q, phase, choices),
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
            check_event(out, q, who, *roll, *against, outcome, opposed)
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
        Event::Object { object, who, holds, at } => object_event(out, q, object, who, *holds, at),
        Event::Magnitude { who, condition, from, to } => magnitude_event(out, q, who, condition, *from, *to),
        Event::Slot { holder, side, taker } => slot_event(out, q, holder, side, taker),
        Event::Drawn { side, who } => {
            tag(out, "drawn");
            maybe_name(out, q, "side", side);
            maybe_name(out, q, "who", who);
        }
        Event::Items { who, how, items, from, to, to_who } => items_event(out, q, who, how, items, (from, to), to_who),
        Event::Each { who, relation, target } => {
            tag(out, "each");
            name_field(out, q, "who", who);
            static_field(out, q, "relation", relation);
            name_field(out, q, "target", target);
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
        Event::Decision { who, policy, considered, chosen, reaction, pass, question } => {
            decision(out, q, (who, policy, question.as_ref()), (considered, chosen), *reaction, pass.as_ref());
        }
        Event::Rest { rest, outcome } => {
            tag(out, "rest");
            name_field(out, q, "rest", rest);
            field(out, "outcome", outcome);
        }
        Event::EncounterEnd { reason, state, sides, piles, objects } => {
            encounter_end_event(out, reason, state, (sides, piles), objects)
        }
    }
}

/// `initiative`: the order (ties written together as a list) and each value.
#[inline]
fn initiative_event(out: &mut Vec<u8>, order: &[OrderEntry], values: &BTreeMap<Name, i64>) {
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

/// `action`: who declared what, of which kind, at whom, paying what (pools in name order).
#[inline]
fn action_event(
    out: &mut Vec<u8>,
    q: &mut Quoted,
    actor: &Name,
    action: &Name,
    kind: &'static str,
    targets: &Targets,
    paid: &Paid,
) {
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

/// `check`: the roll against its target number, the outcome, and the opposing roller if any.
#[inline]
fn check_event(
    out: &mut Vec<u8>,
    q: &mut Quoted,
    who: &Name,
    roll: i64,
    against: i64,
    outcome: &Name,
    opposed: &Option<Name>,
) {
    lit(out, b"\"check\",\"who\":\"");
    q.escaped(out, who);
    lit(out, b"\",\"roll\":");
    int(out, roll);
    lit(out, b",\"against\":");
    int(out, against);
    lit(out, b",\"outcome\":\"");
    q.escaped(out, outcome);
    out.push(b'"');
    if let Some(theirs) = opposed {
        name_field(out, q, "opposed", theirs);
    }
}

/// `object`: who holds it or lets go of it, and where it lies (`null` while held).
#[inline]
fn object_event(out: &mut Vec<u8>, q: &mut Quoted, object: &Name, who: &Name, holds: bool, at: &Option<i64>) {
    tag(out, "object");
    name_field(out, q, "object", object);
    name_field(out, q, "who", who);
    key(out, "holds");
    out.extend_from_slice(if holds { b"true" } else { b"false" });
    match at {
        Some(at) => int_field(out, "at", *at),
        None => {
            key(out, "at");
            out.extend_from_slice(b"null");
        }
    }
}

/// `magnitude`: a held condition applied again with another magnitude.
fn magnitude_event(out: &mut Vec<u8>, q: &mut Quoted, who: &Name, condition: &Name, from: i64, to: i64) {
    tag(out, "magnitude");
    name_field(out, q, "who", who);
    name_field(out, q, "condition", condition);
    int_field(out, "from", from);
    int_field(out, "to", to);
}

/// `slot`: a side's slot taken by the one member who could, or passing (`taker` null).
fn slot_event(out: &mut Vec<u8>, q: &mut Quoted, holder: &Name, side: &Name, taker: &Option<Name>) {
    tag(out, "slot");
    name_field(out, q, "holder", holder);
    name_field(out, q, "side", side);
    maybe_name(out, q, "taker", taker);
}

/// A name, or `null`.
fn maybe_name(out: &mut Vec<u8>, q: &mut Quoted, k: &str, name: &Option<Name>) {
    match name {
        Some(name) => name_field(out, q, k, name),
        None => {
            key(out, k);
            out.extend_from_slice(b"null");
        }
    }
}

/// `items`: one draw or move between piles, every item taken.
fn items_event(
    out: &mut Vec<u8>,
    q: &mut Quoted,
    who: &Name,
    how: &'static str,
    items: &[Name],
    (from, to): (&Name, &Name),
    to_who: &Option<Name>,
) {
    tag(out, "items");
    name_field(out, q, "who", who);
    static_field(out, q, "how", how);
    key(out, "items");
    list(out, items);
    name_field(out, q, "from", from);
    name_field(out, q, "to", to);
    if let Some(other) = to_who {
        name_field(out, q, "to_who", other);
    }
}

/// `encounter_end`: the reason, each participant's pools, conditions and piles, and the objects.
#[inline]
fn encounter_end_event(
    out: &mut Vec<u8>,
    reason: &str,
    state: &BTreeMap<Name, FinalState>,
    (sides, table): (&BTreeMap<Name, BTreeMap<Name, i64>>, &TablePiles),
    objects: &[FinalObject],
) {
    tag(out, "encounter_end");
    field(out, "reason", reason);
    key(out, "state");
    object(out, state, |out, FinalState { pools, conditions, magnitudes, piles }| {
        out.extend_from_slice(b"{\"pools\":");
        int_map(out, pools);
        out.extend_from_slice(b",\"conditions\":");
        list(out, conditions);
        if !magnitudes.is_empty() {
            out.extend_from_slice(b",\"magnitudes\":");
            int_map(out, magnitudes);
        }
        if !piles.is_empty() {
            out.extend_from_slice(b",\"piles\":");
            object(out, piles, |out, items| list(out, items));
        }
        out.push(b'}');
    });
    if !sides.is_empty() {
        key(out, "sides");
        object(out, sides, int_map);
    }
    if !table.shared.is_empty() {
        key(out, "shared_piles");
        object(out, &table.shared, |out, items| list(out, items));
    }
    if !table.sides.is_empty() {
        key(out, "side_piles");
        object(out, &table.sides, |out, piles| object(out, piles, |out, items| list(out, items)));
    }
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

/// A roll: its dice and result, and for a dice pool its `faces` and `counting`.
fn roll_event(out: &mut Vec<u8>, q: &mut Quoted, who: &Name, dice: Dice, result: i64, pool: Option<&PoolRoll>) {
    lit(out, b"\"roll\",\"who\":\"");
    q.escaped(out, who);
    lit(out, b"\",\"dice\":\"");
    int(out, dice.count);
    out.push(b'd');
    int(out, dice.sides);
    lit(out, b"\",\"result\":");
    int(out, result);
    let Some(pool) = pool else { return };
    key(out, "faces");
    out.push(b'[');
    for (i, f) in pool.faces.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        int(out, *f);
    }
    out.push(b']');
    field(out, "counting", &pool.counting);
    if let Some(name) = &pool.name {
        name_field(out, q, "name", name);
    }
    if let Some(thrown) = &pool.thrown {
        field(out, "thrown", thrown);
    }
    if !pool.shown.is_empty() {
        key(out, "shown");
        list(out, &pool.shown);
    }
    if !pool.counts.is_empty() {
        key(out, "counts");
        out.push(b'[');
        for (i, c) in pool.counts.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            lit(out, b"{\"counting\":");
            string(out, &c.counting);
            lit(out, b",\"count\":");
            int(out, c.count);
            out.push(b'}');
        }
        out.push(b']');
    }
}

/// `{"event":"revealed","phase":...,"choices":[{"who":...,"choice":...|null,"target":...|null}]}`.
fn revealed_event(out: &mut Vec<u8>, q: &mut Quoted, phase: &Name, choices: &[Revealed]) {
    tag(out, "revealed");
    name_field(out, q, "phase", phase);
    key(out, "choices");
    out.push(b'[');
    for (i, c) in choices.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        lit(out, b"{\"who\":");
        quoted(out, q, &c.who);
        for (name, value) in [("choice", &c.choice), ("target", &c.target)] {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            match value {
                Some(v) => quoted(out, q, v),
                None => lit(out, b"null"),
            }
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// A `decision` event's fields: rare (`--decisions` only) and holding numbers, so written by
/// serde_json itself.
fn decision<C: serde::Serialize, P: serde::Serialize>(
    out: &mut Vec<u8>,
    q: &mut Quoted,
    (who, policy, question): (&Name, &'static str, Option<&Name>),
    (considered, chosen): (&[C], &Option<C>),
    reaction: bool,
    pass: Option<&P>,
) {
    tag(out, "decision");
    name_field(out, q, "who", who);
    static_field(out, q, "policy", policy);
    key(out, "considered");
    let _ = serde_json::to_writer(&mut *out, considered);
    key(out, "chosen");
    let _ = serde_json::to_writer(&mut *out, chosen);
    if reaction {
        key(out, "reaction");
        out.extend_from_slice(b"true");
    }
    if let Some(pass) = pass {
        key(out, "pass");
        let _ = serde_json::to_writer(&mut *out, pass);
    }
    if let Some(question) = question {
        name_field(out, q, "question", question);
    }
}

/// `"granted","who":"B","action":"counteract","end":false`.
fn granted(out: &mut Vec<u8>, q: &mut Quoted, who: &Name, action: &Name, end: bool) {
    lit(out, b"\"granted\",\"who\":\"");
    q.escaped(out, who);
    lit(out, b"\",\"action\":\"");
    q.escaped(out, action);
    lit(out, if end { b"\",\"end\":true" } else { b"\",\"end\":false" });
}
