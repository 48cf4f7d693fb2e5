//! The language server's message loop (`tempo::lsp::serve`) over an in-memory connection. The
//! first 10 bytes steer the session, the rest (UTF-8, invalid sequences replaced) is the text of
//! `file:///fuzz/input.rules`: initialize, open the document (and `frontiers.rules` when the text
//! names it), four requests (hover, definition, references, prepareRename, rename, completion,
//! documentSymbol or formatting) at positions taken from the steering bytes, an edit that cuts
//! the text short, a completion at the cut, then shutdown and exit. Every message is queued
//! before the server starts, so the server runs on this thread and nothing waits.
//!
//! Asserts: the server ends cleanly (`Ok`), and answers every request. A panic in a handler,
//! which the server turns into an error reply, still aborts here (libFuzzer's panic hook): a
//! panic is a bug even when the server survives it.
//!
//! With the first byte's high bit set, the rest goes raw to `tempo::lsp::serve_bytes` instead:
//! the framing, the message parsing and the lifecycle, as `tempo lsp` reads stdin. Asserts there:
//! nothing panics, and what it wrote is a sequence of framed messages, each a JSON object.

#![no_main]

use libfuzzer_sys::fuzz_target;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

const INPUT: &str = "file:///fuzz/input.rules";
const BASE: &str = "file:///fuzz/frontiers.rules";
const METHODS: [&str; 8] = [
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/prepareRename",
    "textDocument/rename",
    "textDocument/completion",
    "textDocument/documentSymbol",
    "textDocument/formatting",
];
const NEW_NAMES: [&str; 4] = ["renamed", "", "two words", "ap"];

/// The LSP position of byte `offset` (rounded down to a character), in UTF-16 units; byte 255
/// asks for a position far past the end, which the server must clamp.
fn position(text: &str, steer: u8) -> Value {
    if steer == 255 {
        return json!({ "line": u32::MAX, "character": u32::MAX });
    }
    let mut offset = steer as usize * (text.len() + 1) / 255;
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |n| n + 1);
    let line = text[..offset].matches('\n').count();
    let character: usize = text[line_start..offset].chars().map(char::len_utf16).sum();
    json!({ "line": line, "character": character })
}

fn request(id: i32, method: &str, params: Value) -> Message {
    Message::Request(Request { id: RequestId::from(id), method: method.to_string(), params })
}

fn notification(method: &str, params: Value) -> Message {
    Message::Notification(Notification { method: method.to_string(), params })
}

fn open(uri: &str, text: &str) -> Message {
    notification(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "tempo", "version": 1, "text": text } }),
    )
}

fn ask(id: i32, method: &str, text: &str, steer: u8, name: &str) -> Message {
    let doc = json!({ "uri": INPUT });
    let params = match method {
        "textDocument/documentSymbol" => json!({ "textDocument": doc }),
        "textDocument/formatting" => json!({ "textDocument": doc, "options": { "tabSize": 4, "insertSpaces": true } }),
        "textDocument/references" => json!({
            "textDocument": doc, "position": position(text, steer), "context": { "includeDeclaration": steer % 2 == 0 }
        }),
        "textDocument/rename" => json!({ "textDocument": doc, "position": position(text, steer), "newName": name }),
        _ => json!({ "textDocument": doc, "position": position(text, steer) }),
    };
    request(id, method, params)
}

/// The message loop over raw bytes: every reply it writes is framed and holds a JSON object.
fn raw(input: &[u8]) {
    let served = tempo::lsp::serve_bytes(input);
    let mut out = served.output.as_slice();
    while !out.is_empty() {
        let header_end = out.windows(4).position(|w| w == b"\r\n\r\n").expect("a framed reply");
        let header = std::str::from_utf8(&out[..header_end]).expect("an ASCII header");
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .and_then(|n| n.trim().parse().ok())
            .expect("a Content-Length header");
        let body = &out[header_end + 4..header_end + 4 + length];
        let value: Value = serde_json::from_slice(body).expect("a JSON reply");
        assert!(value.is_object(), "a reply that is not an object: {value}");
        out = &out[header_end + 4 + length..];
    }
}

fuzz_target!(|data: &[u8]| {
    let mut steer = [0u8; 10];
    let split = data.len().min(steer.len());
    steer[..split].copy_from_slice(&data[..split]);
    let text = String::from_utf8_lossy(&data[split..]).into_owned();

    if steer[0] & 0x80 != 0 {
        raw(&data[1..]);
        return;
    }

    let (server, client) = Connection::memory();
    let send = |m: Message| client.sender.send(m).expect("the server's queue is open");
    let edits_ordered = steer[0] & 1 == 1;
    send(request(
        0,
        "initialize",
        json!({
            "processId": null, "rootUri": null,
            "capabilities": { "workspace": { "workspaceEdit": { "documentChanges": edits_ordered } } }
        }),
    ));
    send(notification("initialized", json!({})));
    if text.contains("frontiers") {
        send(open(BASE, std::str::from_utf8(tempo_fuzz::FRONTIERS).expect("the base is UTF-8")));
    }
    send(open(INPUT, &text));
    let mut asked = 0;
    for (i, pair) in steer[1..9].chunks(2).enumerate() {
        let method = METHODS[pair[0] as usize % METHODS.len()];
        let name = NEW_NAMES[(pair[0] as usize / METHODS.len()) % NEW_NAMES.len()];
        send(ask(i as i32 + 1, method, &text, pair[1], name));
        asked += 1;
    }
    // An edit that cuts the text short, as when typing, then a completion where it ends.
    let mut cut = steer[9] as usize * (text.len() + 1) / 256;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let short = &text[..cut];
    send(notification(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": INPUT, "version": 2 }, "contentChanges": [{ "text": short }] }),
    ));
    send(ask(100, "textDocument/completion", short, 254, ""));
    asked += 1;
    send(request(101, "shutdown", Value::Null));
    send(notification("exit", Value::Null));
    drop(client.sender);

    let served = tempo::lsp::serve(&server);
    assert!(served.is_ok(), "the server did not end cleanly: {served:?}");
    drop(server);
    let answered = client
        .receiver
        .try_iter()
        .filter(|m| matches!(m, Message::Response(r) if r.id != RequestId::from(0) && r.id != RequestId::from(101)))
        .count();
    assert_eq!(answered, asked, "a request went unanswered");
});
