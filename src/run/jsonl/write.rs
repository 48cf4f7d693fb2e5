//! JSON pieces: literals, keys, numbers, lists and maps, strings escaped as serde_json escapes
//! them, and the names of a run through a cache of their escaped text.

use super::super::trace::Name;
use std::collections::BTreeMap;
use std::rc::Rc;

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
pub(super) struct Quoted {
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
    pub(super) fn escaped(&mut self, out: &mut Vec<u8>, name: &Name) {
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
    pub(super) fn fixed(&mut self, out: &mut Vec<u8>, word: &'static str) {
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

#[inline]
pub(super) fn lit(out: &mut Vec<u8>, text: &[u8]) {
    out.extend_from_slice(text);
}

#[inline]
pub(super) fn tag(out: &mut Vec<u8>, name: &str) {
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.push(b'"');
}

#[inline]
pub(super) fn key(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

#[inline]
pub(super) fn name_field(out: &mut Vec<u8>, q: &mut Quoted, key_name: &str, value: &Name) {
    key(out, key_name);
    quoted(out, q, value);
}

#[inline]
pub(super) fn static_field(out: &mut Vec<u8>, q: &mut Quoted, key_name: &str, value: &'static str) {
    key(out, key_name);
    out.push(b'"');
    q.fixed(out, value);
    out.push(b'"');
}

#[inline]
pub(super) fn quoted(out: &mut Vec<u8>, q: &mut Quoted, value: &Name) {
    out.push(b'"');
    q.escaped(out, value);
    out.push(b'"');
}

#[inline]
pub(super) fn field(out: &mut Vec<u8>, name: &str, value: &str) {
    key(out, name);
    string(out, value);
}

#[inline]
pub(super) fn int_field<T: itoa::Integer + TryInto<u8> + Copy>(out: &mut Vec<u8>, name: &str, value: T) {
    key(out, name);
    int(out, value);
}

#[inline]
pub(super) fn int<T: itoa::Integer + TryInto<u8> + Copy>(out: &mut Vec<u8>, value: T) {
    // Most numbers of a trace are one digit (pool amounts, rolls' pieces): no buffer, no copy.
    if let Ok(digit @ 0..=9) = value.try_into() {
        out.push(b'0' + digit);
        return;
    }
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

pub(super) fn list<S: AsRef<str>>(out: &mut Vec<u8>, items: &[S]) {
    out.push(b'[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, s.as_ref());
    }
    out.push(b']');
}

pub(super) fn int_map<K: AsRef<str>>(out: &mut Vec<u8>, map: &BTreeMap<K, i64>) {
    object(out, map, |out, v| int(out, *v));
}

/// A JSON object of `map`, in its (sorted) order, each value written by `value`.
pub(super) fn object<K: AsRef<str>, V>(out: &mut Vec<u8>, map: &BTreeMap<K, V>, value: impl Fn(&mut Vec<u8>, &V)) {
    out.push(b'{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k.as_ref());
        out.push(b':');
        value(out, v);
    }
    out.push(b'}');
}

#[inline]
pub(super) fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    escaped(out, s);
    out.push(b'"');
}

/// Whether any byte is `"`, `\\` or a control character, looked at eight bytes at a time (the
/// classic "has a byte less than n" and "has a zero byte" word tests, both exact for "any").
#[inline]
pub(super) fn needs_escape(bytes: &[u8]) -> bool {
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
pub(super) fn escaped(out: &mut Vec<u8>, s: &str) {
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
