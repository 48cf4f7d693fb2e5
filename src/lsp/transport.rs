//! The language server's framing: `Content-Length` framed JSON-RPC read from any [`BufRead`] and
//! written to any [`Write`]. Written here rather than taken from lsp-server, whose reader ends the
//! connection on the first malformed message and allocates whatever `Content-Length` claims.
//!
//! Invariants: nothing read is trusted. A header line, a header block and a body each have a
//! limit ([`MAX_HEADER_LINE`], [`MAX_HEADER_LINES`], [`MAX_BODY`]), and no buffer grows past its
//! limit before the bytes to fill it have arrived. A bad message costs one error reply, never the
//! connection: only the end of the input (or a failed read) ends it.
//!
//! Resynchronisation: a body over the limit is drained (read and dropped, `Content-Length` bytes
//! of it), so an honest client that sent too much loses one message. Bytes that are not a header
//! (a block without `Content-Length`, whose body length is unknown, or any junk) are skipped up to
//! the next `Content-Length:` (in any case), where the next message is taken to begin; this is a
//! best effort, as a body may itself hold those words.

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;
use std::io::{self, BufRead, Read, Write};

/// Largest message body taken, in bytes. A whole-document sync of the largest file the compiler
/// reads (16 MiB, `check::load::MAX_FILE_BYTES`) is far below it even with every character escaped.
/// A larger body is drained without being kept, and answered with a `ParseError`.
pub const MAX_BODY: u64 = 64 * 1024 * 1024;

/// Longest header line taken, in bytes with its line end. Headers are short (`Content-Length:
/// 12345`, `Content-Type: ...`); a longer line is junk and skipped.
pub const MAX_HEADER_LINE: usize = 1024;

/// Most header lines in one message. The protocol has two; past these the block is junk.
pub const MAX_HEADER_LINES: usize = 16;

/// Where a message begins when resynchronising, lower case (matched in any case).
const MARKER: &[u8] = b"content-length:";

/// What one read of the input gave.
#[derive(Debug)]
pub enum Frame {
    /// A message body within [`MAX_BODY`], not yet parsed.
    Body(Vec<u8>),
    /// Bytes that do not make a message were refused (and skipped, or to be drained before the
    /// next read); why, for the error reply.
    Refused(String),
    /// The input ended, or could not be read (the error).
    End(Option<io::Error>),
}

/// Reads frames from an input, resynchronising after bad ones. Plain and synchronous: the
/// language server runs it on a thread of its own over stdin, tests and fuzzing over bytes.
pub struct FrameReader<R> {
    input: R,
    /// A `Content-Length` header line found while skipping junk: the first line of the next block.
    pending: Option<Vec<u8>>,
    /// A block without a usable `Content-Length` was just refused: the bytes after it are its
    /// body, to be skipped without a second reply.
    quiet: bool,
    /// Bytes of a refused body still to drain before the next block.
    drain: u64,
    /// Junk just refused, to skip past before the next block (after the reply, not before it).
    junk: Option<Vec<u8>>,
}

impl<R: BufRead> FrameReader<R> {
    pub fn new(input: R) -> FrameReader<R> {
        FrameReader { input, pending: None, quiet: false, drain: 0, junk: None }
    }

    /// The next frame. After [`Frame::End`] every call gives `End` again.
    pub fn next_frame(&mut self) -> Frame {
        match self.read() {
            Ok(frame) => frame,
            Err(e) => Frame::End(Some(e)),
        }
    }

    fn read(&mut self) -> io::Result<Frame> {
        if self.drain > 0 {
            let want = std::mem::take(&mut self.drain);
            // Through a fixed buffer: a refused body is never held.
            let drained = io::copy(&mut (&mut self.input).take(want), &mut io::sink())?;
            if drained < want {
                return Ok(Frame::End(None));
            }
        }
        if let Some(junk) = self.junk.take() {
            self.resync(junk)?;
        }
        let mut quiet = std::mem::take(&mut self.quiet);
        let mut length: Option<Vec<u8>> = None;
        let mut headers = 0;
        loop {
            let (line, complete) = match self.pending.take() {
                Some(line) => (line, true),
                None => {
                    let mut line = Vec::new();
                    let complete = read_line(&mut self.input, &mut line, MAX_HEADER_LINE)?;
                    if line.is_empty() {
                        return Ok(Frame::End(None));
                    }
                    (line, complete)
                }
            };
            let text = line_text(&line);
            if complete && text.is_empty() {
                if headers == 0 {
                    // Blank lines between messages carry nothing; skipping them costs nothing.
                    continue;
                }
                break;
            }
            let header = if complete && headers < MAX_HEADER_LINES { split_header(text) } else { None };
            if let Some((name, value)) = header {
                headers += 1;
                if name.eq_ignore_ascii_case(b"content-length") {
                    length = Some(value.to_vec());
                }
                continue;
            }
            let why = if complete && headers >= MAX_HEADER_LINES {
                format!("a message header of more than {MAX_HEADER_LINES} lines was skipped")
            } else if complete {
                "bytes that are not a message header were skipped".to_string()
            } else {
                format!("a header line longer than {MAX_HEADER_LINE} bytes was skipped")
            };
            if quiet && headers == 0 {
                // The body of the block just refused: already answered.
                quiet = false;
                self.resync(line)?;
                continue;
            }
            // Skipped on the next read: finding the next message may wait for the client.
            self.junk = Some(line);
            return Ok(Frame::Refused(why));
        }
        let Some(value) = length else {
            self.quiet = true;
            return Ok(Frame::Refused("a message header without `Content-Length` was skipped".to_string()));
        };
        let Some(n) = parse_length(&value) else {
            self.quiet = true;
            let value = String::from_utf8_lossy(&value);
            return Ok(Frame::Refused(format!("`Content-Length: {value}` is not a length; the message was skipped")));
        };
        if n > MAX_BODY {
            // Answered now, drained on the next read: the reply does not wait for the drain.
            self.drain = n;
            return Ok(Frame::Refused(format!(
                "a message of {n} bytes is more than the limit of {MAX_BODY}; it was skipped"
            )));
        }
        let mut body = Vec::new();
        // Grows as bytes arrive: a `Content-Length` larger than what follows costs nothing.
        (&mut self.input).take(n).read_to_end(&mut body)?;
        if (body.len() as u64) < n {
            return Ok(Frame::End(None));
        }
        Ok(Frame::Body(body))
    }

    /// Skips input up to the next `Content-Length:` (searched first in `junk`, already read), and
    /// keeps that header line as the first of the next block. At the end of the input, keeps
    /// nothing: the next read finds the end.
    fn resync(&mut self, mut junk: Vec<u8>) -> io::Result<()> {
        let mut matched = 0;
        loop {
            let mut rest = match find_marker(matched, &junk) {
                Ok(end) => junk.split_off(end),
                Err(state) => {
                    matched = state;
                    if !self.skip_to_marker(&mut matched)? {
                        return Ok(());
                    }
                    Vec::new()
                }
            };
            let complete = rest.ends_with(b"\n") || read_line(&mut self.input, &mut rest, MAX_HEADER_LINE)?;
            if complete {
                let mut line = b"Content-Length:".to_vec();
                line.extend_from_slice(&rest);
                self.pending = Some(line);
                return Ok(());
            }
            if rest.len() < MAX_HEADER_LINE {
                return Ok(());
            }
            // The value runs on past a header line's length: junk too, searched again.
            junk = rest;
            matched = 0;
        }
    }

    /// Consumes input up to and including the end of the marker, `matched` bytes of which were
    /// already seen; false at the end of the input. Works on the reader's own buffer, so junk of
    /// any length costs no memory.
    fn skip_to_marker(&mut self, matched: &mut usize) -> io::Result<bool> {
        loop {
            let buffer = self.input.fill_buf()?;
            if buffer.is_empty() {
                return Ok(false);
            }
            let (used, found) = match find_marker(*matched, buffer) {
                Ok(end) => (end, true),
                Err(state) => {
                    *matched = state;
                    (buffer.len(), false)
                }
            };
            self.input.consume(used);
            if found {
                return Ok(true);
            }
        }
    }
}

/// Appends one line (up to and including `\n`) to `line` while it is shorter than `max`; true
/// if the line is whole, false if it was cut at `max` or the input ended.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<bool> {
    while line.len() < max {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(false);
        }
        let room = (max - line.len()).min(buffer.len());
        let (used, whole) = match buffer[..room].iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (room, false),
        };
        line.extend_from_slice(&buffer[..used]);
        input.consume(used);
        if whole {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A line without its line end (`\r\n`, or a bare `\n`, which some clients write).
fn line_text(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `Name: value`, the name an HTTP token, the value trimmed.
fn split_header(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = text.iter().position(|&b| b == b':')?;
    let (name, value) = (&text[..colon], &text[colon + 1..]);
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    if name.is_empty() || !name.iter().all(token) {
        return None;
    }
    Some((name, value.trim_ascii()))
}

/// Decimal digits only (no sign, no spaces inside), within `u64`.
fn parse_length(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// Where the marker ends in `bytes` (`matched` bytes of it already seen), or how much of it the
/// end of `bytes` holds. No proper suffix of a partial match starts another (the marker has no
/// second `c`), so a mismatch restarts at the byte itself.
fn find_marker(matched: usize, bytes: &[u8]) -> Result<usize, usize> {
    let mut k = matched;
    for (i, b) in bytes.iter().enumerate() {
        let b = b.to_ascii_lowercase();
        k = if MARKER.get(k) == Some(&b) {
            k + 1
        } else if b == MARKER[0] {
            1
        } else {
            0
        };
        if k == MARKER.len() {
            return Ok(i + 1);
        }
    }
    Err(k)
}

/// A body, taken as a message: `Ok(None)` for a response (the server sends no requests, so there
/// is none to match), `Err` with the error reply owed for anything else that is not a message.
///
/// Not JSON at all is a `ParseError` (-32700) with a null id. JSON that is not a message the
/// server can take is an `InvalidRequest` (-32600), with the message's id when it has a readable
/// one (a number or a string), so the client's pending request is answered: that includes JSON
/// whose strings are not Unicode (a lone surrogate escape such as `"\ud800"`, which serde_json
/// refuses in a `String`) and requests whose id is not an `integer` or a `string`.
pub fn parse_message(body: &[u8]) -> Result<Option<Message>, Value> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => {
            // `IgnoredAny` checks the syntax only (escapes are not decoded), so it tells JSON
            // serde_json cannot hold apart from what is not JSON.
            if serde_json::from_slice::<IgnoredAny>(body).is_err() {
                return Err(error_reply(None, ErrorCode::ParseError, format!("the message is not JSON: {e}")));
            }
            #[derive(Deserialize)]
            struct Probe {
                #[serde(default)]
                id: Option<Value>,
            }
            let id = serde_json::from_slice::<Probe>(body).ok().and_then(|p| p.id);
            return Err(error_reply(
                readable(id.as_ref()),
                ErrorCode::InvalidRequest,
                format!("the message cannot be read: {e}"),
            ));
        }
    };
    let Value::Object(mut object) = value else {
        return Err(error_reply(None, ErrorCode::InvalidRequest, "a message is a JSON object".to_string()));
    };
    let id = object.remove("id");
    let method = object.remove("method");
    let reply_id = readable(id.as_ref());
    match method {
        Some(Value::String(method)) => {
            let params = object.remove("params").unwrap_or(Value::Null);
            let Some(id) = id else { return Ok(Some(Message::Notification(Notification { method, params }))) };
            match request_id(&id) {
                Some(id) => Ok(Some(Message::Request(Request { id, method, params }))),
                None => Err(error_reply(
                    reply_id,
                    ErrorCode::InvalidRequest,
                    format!("the id of a request is an integer or a string, not `{id}`"),
                )),
            }
        }
        Some(_) => Err(error_reply(reply_id, ErrorCode::InvalidRequest, "`method` is not a string".to_string())),
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => Ok(None),
        None => Err(error_reply(
            reply_id,
            ErrorCode::InvalidRequest,
            "the message is neither a request, a notification nor a response".to_string(),
        )),
    }
}

/// An id worth echoing in an error reply (JSON-RPC: a number or a string, else null).
fn readable(id: Option<&Value>) -> Option<Value> {
    id.filter(|id| id.is_number() || id.is_string()).cloned()
}

/// The protocol's ids: `integer` (32 bits) or `string`.
fn request_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::Number(n) => n.as_i64().and_then(|n| i32::try_from(n).ok()).map(RequestId::from),
        Value::String(s) => Some(RequestId::from(s.clone())),
        _ => None,
    }
}

/// A JSON-RPC error response. Built as JSON, not as an lsp-server `Response`, whose id cannot be
/// null or a number outside 32 bits.
pub(crate) fn error_reply(id: Option<Value>, code: ErrorCode, message: String) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code as i32, "message": message },
    })
}

/// Writes one framed message and flushes.
pub(crate) fn write_message(out: &mut impl Write, message: &Message) -> io::Result<()> {
    message.write(out)
}

/// Writes one framed JSON value and flushes.
pub(crate) fn write_value(out: &mut impl Write, value: &Value) -> io::Result<()> {
    let text = serde_json::to_string(value)?;
    write!(out, "Content-Length: {}\r\n\r\n", text.len())?;
    out.write_all(text.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<String> {
        let mut reader = FrameReader::new(input);
        let mut out = Vec::new();
        loop {
            match reader.next_frame() {
                Frame::Body(body) => out.push(format!("body {}", String::from_utf8_lossy(&body))),
                Frame::Refused(why) => out.push(format!("refused {why}")),
                Frame::End(_) => return out,
            }
        }
    }

    #[test]
    fn framed_bodies_are_read_in_order_whatever_the_header_spelling() {
        let input =
            b"Content-Length: 2\r\n\r\n{}content-length:3\nContent-Type: x\n\n[1]\r\n\r\nCONTENT-LENGTH:  1  \r\n\r\n7";
        assert_eq!(frames(input), ["body {}", "body [1]", "body 7"]);
    }

    #[test]
    fn a_block_without_content_length_is_refused_once_and_its_body_skipped() {
        let input = b"Content-Type: x\r\n\r\n{\"a\":\n1}Content-Length: 2\r\n\r\n{}";
        let got = frames(input);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].contains("without `Content-Length`"), "{got:?}");
        assert_eq!(got[1], "body {}");
    }

    #[test]
    fn junk_is_refused_and_the_next_message_found_even_across_buffer_ends() {
        // A reader buffer of 4 bytes splits the marker across fills.
        let mut input = vec![b'x'; 5000];
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let mut reader = FrameReader::new(io::BufReader::with_capacity(4, input.as_slice()));
        assert!(matches!(reader.next_frame(), Frame::Refused(_)));
        assert!(matches!(reader.next_frame(), Frame::Body(b) if b == b"{}"));
        assert!(matches!(reader.next_frame(), Frame::End(None)));
    }

    #[test]
    fn a_body_over_the_limit_is_refused_then_drained() {
        let mut input = format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1).into_bytes();
        input.resize(input.len() + MAX_BODY as usize + 1, b'x');
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let got = frames(&input);
        assert_eq!(got.len(), 2);
        assert!(got[0].contains("more than the limit"), "{got:?}");
        assert_eq!(got[1], "body {}");
    }

    #[test]
    fn a_huge_length_is_refused_without_allocating_and_ends_at_the_end_of_the_input() {
        assert_eq!(frames(b"Content-Length: 99999999999\r\n\r\n{}").len(), 1);
        assert_eq!(frames(b"Content-Length: 99999999999999999999999\r\n\r\n{}").len(), 1);
    }

    #[test]
    fn the_marker_is_found_after_a_false_start() {
        assert_eq!(find_marker(0, b"ccontent-lengthcontent-LENGTH:x"), Ok(30));
        assert_eq!(find_marker(0, b"xxcont"), Err(4));
        assert_eq!(find_marker(4, b"ent-length:"), Ok(11));
    }

    #[test]
    fn bodies_that_are_not_messages_get_the_right_error() {
        let code =
            |body: &str| parse_message(body.as_bytes()).err().map(|e| (e["id"].clone(), e["error"]["code"].clone()));
        assert_eq!(code("{not json"), Some((Value::Null, (-32700).into())));
        assert_eq!(code(r#"{"id":5,"method":"m","params":{"x":"\ud800"}}"#), Some((5.into(), (-32600).into())));
        assert_eq!(code(r#"{"id":true,"method":"m"}"#), Some((Value::Null, (-32600).into())));
        assert_eq!(code(r#"{"id":4294967296,"method":"m"}"#), Some((4294967296u64.into(), (-32600).into())));
        assert_eq!(code(r#"[1]"#), Some((Value::Null, (-32600).into())));
        assert_eq!(code(r#"{"id":"a","method":3}"#), Some(("a".into(), (-32600).into())));
        assert_eq!(code(r#"{"id":1,"result":null}"#), None);
        assert!(matches!(parse_message(br#"{"method":"m"}"#), Ok(Some(Message::Notification(_)))));
        assert!(matches!(parse_message(br#"{"id":"x","method":"m"}"#), Ok(Some(Message::Request(_)))));
        let deep = "[".repeat(100_000);
        assert_eq!(code(&deep), Some((Value::Null, (-32700).into())));
    }
}
