//! End-to-end tests of `tempo lsp`: the real binary as a child process, driven over stdio with
//! Content-Length framed JSON-RPC as an editor does. Every wait has a timeout, so a broken server
//! fails a test instead of hanging it. Replies are insta snapshots with the temp folder's URI
//! redacted to `file:///TMP`.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(30);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<Value>,
    next_id: i64,
    /// Notifications received and not yet looked at, in order.
    notifications: Vec<Value>,
    /// The temp folder's URI, redacted in snapshots.
    root_uri: String,
    /// What the server writes on stderr, read to its end: kept, not passed through, so the tests
    /// that make it complain on purpose do not print to `cargo test`'s output, and checked.
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Server {
    fn start(root: &Path) -> Server {
        Server::start_with(root, json!({}))
    }

    /// Starts a server for a client with these capabilities.
    fn start_with(root: &Path, capabilities: Value) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tempo"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tempo lsp");
        let mut err = child.stderr.take().expect("stderr");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            text
        });
        let stdout = child.stdout.take().expect("stdout");
        let (send, replies) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let root_uri = uri(root).trim_end_matches('/').to_string();
        let mut server =
            Server { child, stdin, replies, next_id: 0, notifications: Vec::new(), root_uri, stderr: Some(stderr) };
        let init =
            server.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": capabilities}));
        assert!(init["result"]["capabilities"].is_object(), "{init}");
        server.notify("initialized", json!({}));
        server
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to the server");
        stdin.flush().expect("flush");
    }

    fn recv(&mut self) -> Value {
        self.replies.recv_timeout(TIMEOUT).expect("the server answered in time")
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.recv();
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// Writes bytes as they are, framed or not.
    fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// The next response with this id (`null` for the replies to what had no readable id).
    fn reply_to(&mut self, id: Value) -> Value {
        let is_it = |m: &Value| m.get("id") == Some(&id) && m.get("method").is_none();
        if let Some(at) = self.notifications.iter().position(is_it) {
            return self.notifications.remove(at);
        }
        loop {
            let message = self.recv();
            if is_it(&message) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn open(&mut self, path: &Path, text: &str) {
        let params = json!({"textDocument": {"uri": uri(path), "languageId": "tempo", "version": 1, "text": text}});
        self.notify("textDocument/didOpen", params);
    }

    fn change(&mut self, path: &Path, version: i32, text: &str) {
        let params =
            json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [{"text": text}]});
        self.notify("textDocument/didChange", params);
    }

    /// The next diagnostics published for a file.
    fn diagnostics(&mut self, path: &Path) -> Value {
        let wanted = uri(path);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(at) = self.notifications.iter().position(|n| is_publish_for(n, &wanted)) {
                return self.notifications.remove(at)["params"].clone();
            }
            assert!(Instant::now() < deadline, "no diagnostics for {wanted}");
            let message = self.recv();
            self.notifications.push(message);
        }
    }

    /// Every notification received once everything sent so far is handled (a request is
    /// answered only after every notification sent before it).
    fn settle(&mut self) -> Vec<Value> {
        self.request("tempo/settle", json!(null));
        std::mem::take(&mut self.notifications)
    }

    fn at(&mut self, method: &str, path: &Path, line: u32, character: u32, extra: Value) -> Value {
        let mut params =
            json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}});
        if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
            params.extend(extra.clone());
        }
        self.request(method, params)
    }

    fn redact(&self, value: &Value) -> Value {
        let text = value.to_string().replace(&self.root_uri, "file:///TMP");
        serde_json::from_str(&text).expect("still JSON")
    }

    /// `shutdown`, `exit`, and the exit status; the server said nothing on stderr.
    fn finish(mut self) -> ExitStatus {
        let reply = self.request("shutdown", json!(null));
        assert_eq!(reply["result"], Value::Null, "{reply}");
        self.notify("exit", json!(null));
        let status = self.wait();
        let said = self.stderr_text();
        assert_eq!(said, "", "the server wrote on stderr");
        status
    }

    /// Everything the server wrote on stderr, once it has ended.
    fn stderr_text(&mut self) -> String {
        self.stderr.take().map(|reader| reader.join().unwrap_or_default()).unwrap_or_default()
    }

    /// Closes the server's stdin and waits for it to end.
    fn wait(&mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the server") {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The last diagnostics published for a file among these notifications.
fn last_for(notifications: &[Value], path: &Path) -> Value {
    let wanted = uri(path);
    let last = notifications.iter().rev().find(|n| is_publish_for(n, &wanted));
    last.unwrap_or_else(|| panic!("no diagnostics for {wanted} in {notifications:?}"))["params"].clone()
}

fn codes(published: &Value) -> Vec<String> {
    let list = published["diagnostics"].as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect()
}

fn is_publish_for(message: &Value, uri: &str) -> bool {
    message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A fresh folder under the system's temp folder with these files in it.
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tempo-lsp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make a temp folder");
    let dir = std::fs::canonicalize(&dir).expect("canonical temp folder");
    for (file, text) in files {
        std::fs::write(dir.join(file), text).expect("write a file");
    }
    dir
}

const BASE: &str = r#"ruleset base

## Action Points: full at the start of your turn.
pool ap "Action Points" {
  max 3
  refresh at turn_start
}

## Knocked down: stand up before you move.
condition prone "Prone"

## An attack hit.
event hit

initiative { value 0 }
round { phase act: turns }

## Stand up.
action stand { cost 1 ap; requires self has prone; resolve { remove prone from self } }
"#;

/// The error (`apx`) comes after a comment and a label holding `é` and an emoji, so its column
/// differs in bytes (UTF-8), characters and UTF-16 code units.
const VARIANT_BAD: &str = r#"ruleset variant extends "base.rules"

# Frappé 🎲: a strike.
action strike "Frappé 🎲" { cost 1 apx; target enemy; resolve { apply prone to target; emit hit } }
"#;

fn variant_good() -> String {
    VARIANT_BAD.replace("apx", "ap")
}

#[test]
fn diagnostics_are_published_with_utf16_ranges_and_cleared_when_fixed() {
    let dir = folder("diagnostics", &[("base.rules", BASE)]);
    let variant = dir.join("variant.rules");
    let mut server = Server::start(&dir);
    server.open(&variant, VARIANT_BAD);
    let published = server.diagnostics(&variant);
    let line = VARIANT_BAD.lines().nth(3).expect("line 4");
    let column = line[..line.find("apx").expect("apx")].encode_utf16().count();
    assert_eq!(published["diagnostics"][0]["range"]["start"], json!({"line": 3, "character": column}));
    assert_eq!(published["diagnostics"][0]["range"]["end"], json!({"line": 3, "character": column + 3}));
    insta::assert_json_snapshot!("unknown_pool", server.redact(&published));

    server.change(&variant, 2, &variant_good());
    let cleared = server.diagnostics(&variant);
    assert_eq!(cleared["diagnostics"], json!([]), "{cleared}");
    assert_eq!(cleared["version"], 2);

    // Broken again, then closed: the editor is told the file has nothing to show any more.
    server.change(&variant, 3, VARIANT_BAD);
    assert_eq!(codes(&server.diagnostics(&variant)), ["tempo::unknown-pool"]);
    server.notify("textDocument/didClose", json!({"textDocument": {"uri": uri(&variant)}}));
    let closed = server.diagnostics(&variant);
    assert_eq!(closed["diagnostics"], json!([]), "{closed}");
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn rapid_changes_end_with_the_diagnostics_of_the_last_text() {
    let dir = folder("rapid", &[("base.rules", BASE)]);
    let variant = dir.join("variant.rules");
    let mut server = Server::start(&dir);
    server.open(&variant, VARIANT_BAD);
    for version in 2..12 {
        let text = VARIANT_BAD.replace("apx", &format!("ap{version}"));
        server.change(&variant, version, &text);
    }
    server.change(&variant, 12, &VARIANT_BAD.replace("apply prone", "apply prone_x"));
    let published = server.settle();
    let last = last_for(&published, &variant);
    assert_eq!(last["version"], 12, "{last}");
    assert_eq!(codes(&last), ["tempo::unknown-pool", "tempo::unknown-condition"], "{last}");
    assert!(last["diagnostics"][0]["message"].as_str().unwrap_or("").contains("apx"), "{last}");
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn an_unsaved_base_is_what_its_variants_are_checked_against() {
    let dir = folder("unsaved-base", &[("base.rules", BASE)]);
    let (base, variant) = (dir.join("base.rules"), dir.join("variant.rules"));
    let mut server = Server::start(&dir);
    server.open(&variant, &variant_good());
    assert_eq!(server.diagnostics(&variant)["diagnostics"], json!([]));
    // The base, edited and not saved: `hit` is gone and a timing is misspelled. The base's
    // error is published to the base (once, though both open files' checks find it); the
    // variant's to the variant.
    let edited = BASE.replace("event hit", "").replace("turn_start", "turn_strat");
    server.open(&base, &edited);
    let published = server.settle();
    assert_eq!(codes(&last_for(&published, &base)), ["tempo::unknown-timing"]);
    assert_eq!(codes(&last_for(&published, &variant)), ["tempo::unknown-event"]);
    insta::assert_json_snapshot!(
        "unsaved_base",
        server.redact(&json!([last_for(&published, &base), last_for(&published, &variant)]))
    );
    // Back as it is on disk: both clear.
    server.change(&base, 2, BASE);
    let published = server.settle();
    assert_eq!(last_for(&published, &base)["diagnostics"], json!([]));
    assert_eq!(last_for(&published, &variant)["diagnostics"], json!([]));
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn an_error_in_a_closed_base_is_published_to_the_base() {
    let bad_base = BASE.replace("turn_start", "turn_strat");
    let dir = folder("closed-base", &[("base.rules", &bad_base)]);
    let (base, variant) = (dir.join("base.rules"), dir.join("variant.rules"));
    let mut server = Server::start(&dir);
    server.open(&variant, &variant_good());
    let published = server.settle();
    assert_eq!(codes(&last_for(&published, &base)), ["tempo::unknown-timing"]);
    assert_eq!(last_for(&published, &variant)["diagnostics"], json!([]));
    assert_eq!(server.finish().code(), Some(0));
}

/// The position (line, UTF-16 character) of the `nth` (0-based) occurrence of `needle`, plus one
/// character, so the cursor is inside the word.
fn pos(text: &str, needle: &str, nth: usize) -> (u32, u32) {
    let at = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("`{needle}` #{nth} in the text")).0;
    let line = text[..at].matches('\n').count();
    let line_start = text[..at].rfind('\n').map(|n| n + 1).unwrap_or(0);
    (line as u32, text[line_start..at].encode_utf16().count() as u32 + 1)
}

/// A base and a variant that uses the base's names, both open.
fn navigation(name: &str) -> (PathBuf, Server, PathBuf, PathBuf) {
    let dir = folder(name, &[("base.rules", BASE), ("variant.rules", &variant_good())]);
    let (base, variant) = (dir.join("base.rules"), dir.join("variant.rules"));
    let mut server = Server::start(&dir);
    server.open(&variant, &variant_good());
    server.open(&base, BASE);
    server.settle();
    (dir, server, base, variant)
}

#[test]
fn hover_shows_the_declaration_and_its_doc_comment_through_extends() {
    let (_dir, mut server, base, variant) = navigation("hover");
    let text = variant_good();
    let (line, character) = pos(&text, "ap;", 0);
    let on_pool = server.at("textDocument/hover", &variant, line, character, json!({}));
    insta::assert_json_snapshot!("hover_pool", server.redact(&on_pool));
    let (line, character) = pos(&text, "prone", 0);
    let on_condition = server.at("textDocument/hover", &variant, line, character, json!({}));
    insta::assert_json_snapshot!("hover_condition", server.redact(&on_condition));
    let (line, character) = pos(&text, "target;", 0);
    let on_builtin = server.at("textDocument/hover", &variant, line, character, json!({}));
    insta::assert_json_snapshot!("hover_builtin", server.redact(&on_builtin));
    let (line, character) = pos(BASE, "refresh", 0);
    let on_keyword = server.at("textDocument/hover", &base, line, character, json!({}));
    insta::assert_json_snapshot!("hover_keyword", server.redact(&on_keyword));
    let (line, character) = pos(BASE, "Action Points", 0);
    let on_a_string = server.at("textDocument/hover", &base, line, character, json!({}));
    assert_eq!(on_a_string["result"], Value::Null, "{on_a_string}");
    // An action: the cheat sheet's entry for it (`tempo doc`): cost, target, what it does.
    let (line, character) = pos(&text, "strike \"", 0);
    let on_action = server.at("textDocument/hover", &variant, line, character, json!({}));
    let shown = on_action["result"]["contents"]["value"].as_str().unwrap_or("");
    assert!(
        shown.contains(
            "action **Frappé 🎲** (`strike`): cost `1 ap`; `target enemy`; does `apply prone to target; emit hit`"
        ),
        "{on_action}"
    );
    insta::assert_json_snapshot!("hover_action", server.redact(&on_action));
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn definition_goes_into_the_base_file() {
    let (_dir, mut server, _base, variant) = navigation("definition");
    let text = variant_good();
    let (line, character) = pos(&text, "ap;", 0);
    let pool = server.at("textDocument/definition", &variant, line, character, json!({}));
    let (line, character) = pos(&text, "hit", 0);
    let event = server.at("textDocument/definition", &variant, line, character, json!({}));
    let (line, character) = pos(&text, "base.rules", 0);
    let file = server.at("textDocument/definition", &variant, line, character, json!({}));
    let (line, character) = pos(&text, "strike \"", 0);
    let local = server.at("textDocument/definition", &variant, line, character, json!({}));
    insta::assert_json_snapshot!(
        "definitions",
        server.redact(&json!({"pool": pool, "event": event, "extends": file, "local": local}))
    );
    assert_eq!(server.finish().code(), Some(0));
}

/// Where `textDocument/definition` of the word at `needle` in `text` leads: its start line.
fn definition_line(server: &mut Server, path: &Path, text: &str, needle: &str) -> Value {
    let (line, character) = pos(text, needle, 0);
    let reply = server.at("textDocument/definition", path, line, character, json!({}));
    reply["result"]["range"]["start"]["line"].clone()
}

#[test]
fn edits_in_the_middle_move_what_follows_and_a_broken_text_keeps_the_last_names() {
    let dir = folder("reparse", &[("base.rules", BASE)]);
    let base = dir.join("base.rules");
    let mut server = Server::start(&dir);
    server.open(&base, BASE);
    assert_eq!(server.diagnostics(&base)["diagnostics"], json!([]));
    // `stand` uses `prone`, declared before it; two lines go in between the two (the server
    // parses again only around the edit and moves the declarations after it).
    let grown = BASE.replace("## An attack hit.", "stat reach = 1\nderive far = reach + 1\n\n## An attack hit.");
    server.change(&base, 2, &grown);
    // Diagnostics are published when they change: none here, the text stays clean.
    assert_eq!(server.settle(), Vec::<Value>::new());
    let prone_line = pos(&grown, "condition prone", 0).0;
    assert_eq!(definition_line(&mut server, &base, &grown, "prone from"), json!(prone_line));
    let hit_line = pos(&grown, "event hit", 0).0;
    let uses_hit = format!("{grown}action swing {{ cost 1 ap; resolve {{ emit hit }} }}\n");
    server.change(&base, 3, &uses_hit);
    assert_eq!(server.settle(), Vec::<Value>::new());
    assert_eq!(definition_line(&mut server, &base, &uses_hit, "hit }"), json!(hit_line));
    // Broken in the middle: the error is reported, and names still lead where they did.
    let broken = uses_hit.replace("derive far = reach + 1", "derive far = reach +");
    server.change(&base, 4, &broken);
    assert_eq!(codes(&server.diagnostics(&base)), ["tempo::syntax"]);
    assert_eq!(definition_line(&mut server, &base, &broken, "hit }"), json!(hit_line));
    // Mended with a line fewer above `hit`: the tree kept through the error is edited again.
    let mended = broken.replace("derive far = reach +\n", "");
    server.change(&base, 5, &mended);
    assert_eq!(server.diagnostics(&base)["diagnostics"], json!([]));
    let hit_line = pos(&mended, "event hit", 0).0;
    assert_eq!(definition_line(&mut server, &base, &mended, "hit }"), json!(hit_line));
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn references_and_rename_cover_the_base_and_its_variant() {
    let (_dir, mut server, base, variant) = navigation("rename");
    let (line, character) = pos(BASE, "prone", 0);
    let with_declaration = json!({"context": {"includeDeclaration": true}});
    let references = server.at("textDocument/references", &base, line, character, with_declaration);
    insta::assert_json_snapshot!("references", server.redact(&references));
    let without = json!({"context": {"includeDeclaration": false}});
    let uses = server.at("textDocument/references", &base, line, character, without);
    assert_eq!(uses["result"].as_array().map(Vec::len), Some(3), "{uses}");

    let prepare = server.at("textDocument/prepareRename", &base, line, character, json!({}));
    assert_eq!(prepare["result"]["start"], json!({"line": line, "character": character - 1}), "{prepare}");
    let rename = server.at("textDocument/rename", &base, line, character, json!({"newName": "knocked_down"}));
    // A client without `documentChanges` gets the `changes` map, in no particular order.
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("rename", server.redact(&rename));
    });

    // Keywords, built-in names, bad and taken names are refused with an error reply.
    let (line, character) = pos(BASE, "refresh", 0);
    let keyword = server.at("textDocument/rename", &base, line, character, json!({"newName": "renew"}));
    let text = variant_good();
    let (line, character) = pos(&text, "target;", 0);
    let builtin = server.at("textDocument/prepareRename", &variant, line, character, json!({}));
    let (line, character) = pos(BASE, "prone", 0);
    let bad = server.at("textDocument/rename", &base, line, character, json!({"newName": "2fast"}));
    let reserved = server.at("textDocument/rename", &base, line, character, json!({"newName": "pool"}));
    let taken = server.at("textDocument/rename", &base, line, character, json!({"newName": "ap"}));
    let refused: Vec<&Value> = [&keyword, &builtin, &bad, &reserved, &taken].into_iter().map(|r| &r["error"]).collect();
    insta::assert_json_snapshot!("rename_refused", refused);
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn rename_gives_ordered_document_changes_to_clients_that_take_them() {
    let dir = folder("document-changes", &[("base.rules", BASE), ("variant.rules", &variant_good())]);
    let (base, variant) = (dir.join("base.rules"), dir.join("variant.rules"));
    let capabilities = json!({"workspace": {"workspaceEdit": {"documentChanges": true}}});
    let mut server = Server::start_with(&dir, capabilities);
    server.open(&variant, &variant_good());
    server.settle();
    let (line, character) = pos(&variant_good(), "ap;", 0);
    let rename = server.at("textDocument/rename", &variant, line, character, json!({"newName": "action_points"}));
    let files: Vec<&Value> = rename["result"]["documentChanges"]
        .as_array()
        .map(|list| list.iter().map(|c| &c["textDocument"]).collect())
        .unwrap_or_default();
    // The base (on disk, not open: no version) first, then the open variant at its version.
    assert_eq!(files, [&json!({"uri": uri(&base), "version": null}), &json!({"uri": uri(&variant), "version": 1})]);
    insta::assert_json_snapshot!("rename_document_changes", server.redact(&rename));
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn completion_offers_names_in_scope_where_they_fit() {
    let dir = folder("completion", &[("base.rules", BASE)]);
    let variant = dir.join("variant.rules");
    let mut server = Server::start(&dir);
    let text =
        "ruleset variant extends \"base.rules\"\n\npool mana\n\naction cast {\n  cost 2 \n  resolve { apply  }\n}\n";
    server.open(&variant, text);
    server.settle();
    let labels = |reply: &Value| -> Vec<String> {
        let items = reply["result"].as_array().map(Vec::as_slice).unwrap_or_default();
        items.iter().map(|i| i["label"].as_str().unwrap_or("").to_string()).collect()
    };
    let after_cost = server.at("textDocument/completion", &variant, 5, 9, json!({}));
    assert_eq!(labels(&after_cost), ["ap", "mana"], "{after_cost}");
    insta::assert_json_snapshot!("completion_after_cost", server.redact(&after_cost));
    let after_apply = server.at("textDocument/completion", &variant, 6, 18, json!({}));
    assert_eq!(labels(&after_apply), ["prone"], "{after_apply}");
    let top_level = server.at("textDocument/completion", &variant, 3, 0, json!({}));
    assert!(labels(&top_level).contains(&"pool".to_string()), "{top_level}");
    assert!(!labels(&top_level).contains(&"ap".to_string()), "{top_level}");
    let new_name = server.at("textDocument/completion", &variant, 2, 5, json!({}));
    assert_eq!(labels(&new_name), Vec::<String>::new(), "{new_name}");
    assert_eq!(server.finish().code(), Some(0));
}

/// Inside `count(`: the rolls of the open blocks, the piles and the relations; as a `dice(`'s
/// sides, the dice with custom faces.
#[test]
fn completion_in_count_and_dice_offers_rolls_piles_and_dice() {
    let dir = folder("completion-count", &[]);
    let file = dir.join("deck.rules");
    let mut server = Server::start(&dir);
    let text = "ruleset deck\nitems cards { strike, dash }\npile hand of cards { starts full }\n\
                die boost { faces: -, success }\npool hits { max none }\ninitiative { value 0 }\n\
                round { phase act: turns }\naction a {\n  resolve {\n    roll check = dice(2, boost)\n    \
                hits = count(check, success) + count(hand)\n    roll more = dice(1, )\n  }\n}\n";
    server.open(&file, text);
    server.settle();
    let labels = |reply: &Value| -> Vec<String> {
        let items = reply["result"].as_array().map(Vec::as_slice).unwrap_or_default();
        items.iter().map(|i| i["label"].as_str().unwrap_or("").to_string()).collect()
    };
    let (line, character) = pos(text, "check, success", 0);
    let in_count = labels(&server.at("textDocument/completion", &file, line, character, json!({})));
    assert!(
        ["check", "hand", "ally", "enemy", "dice"].iter().all(|w| in_count.contains(&w.to_string())),
        "{in_count:?}"
    );
    assert!(!in_count.contains(&"hits".to_string()), "{in_count:?}");
    let (line, character) = pos(text, ", )\n", 0);
    let sides = labels(&server.at("textDocument/completion", &file, line, character, json!({})));
    assert!(sides.contains(&"boost".to_string()) && sides.contains(&"hits".to_string()), "{sides:?}");
    assert!(!sides.contains(&"hand".to_string()), "{sides:?}");
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn document_symbols_outline_the_top_level_declarations() {
    let (_dir, mut server, base, _variant) = navigation("symbols");
    let reply = server.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri(&base)}}));
    insta::assert_json_snapshot!("document_symbols", server.redact(&reply));
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn a_half_typed_file_and_bad_requests_do_not_stop_the_server() {
    let dir = folder("half-typed", &[("base.rules", BASE)]);
    let file = dir.join("half.rules");
    let mut server = Server::start(&dir);
    let good = "ruleset half extends \"base.rules\"\npool mana { max 3 }\naction a { cost 1 mana }\n";
    server.open(&file, good);
    server.settle();
    let half = "ruleset half extends \"base.rules\"\npool mana { max 3 }\naction a { cost 1 mana }\npool ap { max";
    server.change(&file, 2, half);
    let published = server.settle();
    assert_eq!(codes(&last_for(&published, &file)), ["tempo::syntax"], "{published:?}");
    // Every request on the broken file gets a reply; names come from the last text that parsed.
    let everywhere = [(0, 0), (1, 6), (2, 19), (3, 6), (3, 13), (99, 99)];
    for (line, character) in everywhere {
        for method in
            ["textDocument/hover", "textDocument/definition", "textDocument/completion", "textDocument/prepareRename"]
        {
            let reply = server.at(method, &file, line, character, json!({}));
            assert!(reply.get("result").is_some() || reply["error"]["code"] == -32803, "{method}: {reply}");
        }
        let reply = server.at("textDocument/rename", &file, line, character, json!({"newName": "x"}));
        assert!(reply.get("result").is_some() || reply["error"].is_object(), "{reply}");
        let reply = server.at(
            "textDocument/references",
            &file,
            line,
            character,
            json!({"context": {"includeDeclaration": true}}),
        );
        assert!(reply.get("result").is_some(), "{reply}");
    }
    let (line, character) = (2, 19); // `mana` in `cost 1 mana`, declared in the last good parse.
    let hover = server.at("textDocument/hover", &file, line, character, json!({}));
    assert!(hover["result"]["contents"]["value"].as_str().unwrap_or("").contains("pool mana"), "{hover}");
    let symbols = server.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri(&file)}}));
    assert_eq!(symbols["result"].as_array().map(Vec::len), Some(2), "{symbols}");

    // Bad parameters, an unknown method and a document that is not open: error replies.
    let bad = server.request("textDocument/hover", json!({"textDocument": 3}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let unknown = server.request("tempo/nothing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let closed = server.at("textDocument/hover", &dir.join("closed.rules"), 0, 0, json!({}));
    assert_eq!(closed["error"]["code"], -32602, "{closed}");
    // A handler that panics (a debug-only request) costs one error reply, not the server.
    let panicked = server.request("tempo/debugPanic", json!({}));
    assert_eq!(panicked["error"]["code"], -32603, "{panicked}");
    assert!(panicked["error"]["message"].as_str().unwrap_or("").contains("internal error"), "{panicked}");
    // So does a notification whose handling panics: the client is told in a log message
    // (the library never writes to stderr).
    server.notify("tempo/debugPanic", json!({}));
    let logged = server.settle();
    let log = logged.iter().find(|n| n["method"] == "window/logMessage").expect("a log message");
    assert_eq!(log["params"]["type"], 1, "{log}");
    assert!(
        log["params"]["message"].as_str().unwrap_or("").contains("internal error while handling `tempo/debugPanic`"),
        "{log}"
    );
    let after = server.at("textDocument/hover", &file, 2, 19, json!({}));
    assert!(after["result"]["contents"]["value"].as_str().unwrap_or("").contains("pool mana"), "{after}");
    // Malformed notifications are ignored.
    server.notify("textDocument/didChange", json!({"textDocument": {"uri": 5}}));
    server.notify("textDocument/didOpen", json!({}));
    let symbols = server.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri(&file)}}));
    assert!(symbols["result"].is_array(), "{symbols}");
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn leaving_without_shutdown_exits_with_1() {
    let dir = folder("no-shutdown", &[]);
    let mut server = Server::start(&dir);
    server.notify("exit", json!(null));
    assert_eq!(server.wait().code(), Some(1));
    assert_eq!(server.stderr_text(), "tempo lsp: the client sent `exit` before `shutdown`\n");
    let mut server = Server::start(&dir);
    drop(server.stdin.take());
    assert_eq!(server.wait().code(), Some(1));
    assert_eq!(server.stderr_text(), "tempo lsp: the client closed the connection without `shutdown`\n");
}

#[test]
fn help_describes_the_command() {
    let output = Command::new(env!("CARGO_BIN_EXE_tempo")).args(["lsp", "--help"]).output().expect("run tempo");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Language Server Protocol") && text.contains("Usage: tempo lsp"), "{text}");
}

#[test]
fn formatting_is_one_whole_document_edit() {
    let dir = folder("formatting", &[("base.rules", BASE)]);
    let file = dir.join("messy.rules");
    let mut server = Server::start(&dir);
    let messy =
        "ruleset   messy extends \"base.rules\"\n# Frappé 🎲\naction   strike{cost 1 ap;target enemy\nresolve{}}";
    server.open(&file, messy);
    server.settle();
    let options = json!({"tabSize": 2, "insertSpaces": true});
    let params = json!({"textDocument": {"uri": uri(&file)}, "options": options});
    let edits = server.request("textDocument/formatting", params.clone());
    insta::assert_json_snapshot!("formatting", server.redact(&edits));
    // The edit ends at the end of the text, counted in UTF-16 units.
    assert_eq!(edits["result"][0]["range"]["end"], json!({"line": 3, "character": 10}), "{edits}");

    // Formatted already: no edit. Not parsing: no edit and no error.
    let formatted = edits["result"][0]["newText"].as_str().expect("new text").to_string();
    server.change(&file, 2, &formatted);
    let none = server.request("textDocument/formatting", params.clone());
    assert_eq!(none["result"], json!([]), "{none}");
    server.change(&file, 3, "ruleset messy\npool ap { max");
    let broken = server.request("textDocument/formatting", params);
    assert_eq!(broken["result"], Value::Null, "{broken}");
    assert_eq!(server.finish().code(), Some(0));
}

/// The shipped rulesets, as `tempo check` sees them: the server agrees, and answers every request
/// at every word of a variant and its base.
#[test]
fn shipped_rulesets_check_clean_and_every_word_gets_an_answer() {
    let rulesets = Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets");
    let rulesets = std::fs::canonicalize(rulesets).expect("rulesets/");
    let mut server = Server::start(&rulesets);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&rulesets)
        .expect("read rulesets/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    files.sort();
    for file in &files {
        server.open(file, &std::fs::read_to_string(file).expect("read a ruleset"));
    }
    let published = server.settle();
    for file in &files {
        assert_eq!(last_for(&published, file)["diagnostics"], json!([]), "{}", file.display());
    }
    let variant = rulesets.join("frontiers-action-movement.rules");
    let text = std::fs::read_to_string(&variant).expect("read the variant");
    let mut hovered = 0;
    for (n, line) in text.lines().enumerate() {
        for character in (0..line.encode_utf16().count() as u32).step_by(3) {
            for method in ["textDocument/hover", "textDocument/definition", "textDocument/completion"] {
                let reply = server.at(method, &variant, n as u32, character, json!({}));
                assert!(reply.get("result").is_some(), "{method} at {n}:{character}: {reply}");
                hovered += usize::from(method == "textDocument/hover" && !reply["result"].is_null());
            }
        }
    }
    assert!(hovered > 10, "only {hovered} hovers had something to say");
    // `mp` is removed by the variant: its references still reach the base and its variants.
    let (line, character) = pos(&text, "mp", 0);
    let references = server.at(
        "textDocument/references",
        &variant,
        line,
        character,
        json!({"context": {"includeDeclaration": true}}),
    );
    let in_files: std::collections::BTreeSet<&str> = references["result"]
        .as_array()
        .map(|list| list.iter().filter_map(|l| l["uri"].as_str()).collect())
        .unwrap_or_default();
    assert!(in_files.contains(uri(&rulesets.join("frontiers.rules")).as_str()), "{references}");
    assert!(in_files.len() > 3, "{in_files:?}");
    assert_eq!(server.finish().code(), Some(0));
}

/// The editor shows what `tempo check` prints: for every diagnostic test input (one per code),
/// the published diagnostics are the command line's, file by file, at the same places.
#[test]
fn diagnostics_are_those_of_tempo_check() {
    let inputs =
        std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics")).expect("inputs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&inputs)
        .expect("read tests/diagnostics")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    files.sort();
    let mut compared = 0;
    for file in files {
        // An editor cannot hold a file that is not UTF-8 as text; `tempo check` reports it alone.
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let mut server = Server::start(&inputs);
        server.open(&file, &text);
        let published = server.settle();
        assert_eq!(server.finish().code(), Some(0));
        let mut from_server: Vec<(String, String, u64, u64, String)> = Vec::new();
        for note in published.iter().filter(|n| n["method"] == "textDocument/publishDiagnostics") {
            let path = note["params"]["uri"].as_str().unwrap_or("").trim_start_matches("file://").to_string();
            for d in note["params"]["diagnostics"].as_array().map(Vec::as_slice).unwrap_or_default() {
                let start = &d["range"]["start"];
                let message = d["message"].as_str().unwrap_or("").split("\nhelp: ").next().unwrap_or("").to_string();
                let (line, column) =
                    (start["line"].as_u64().unwrap_or(0) + 1, start["character"].as_u64().unwrap_or(0) + 1);
                from_server.push((path.clone(), d["code"].as_str().unwrap_or("").to_string(), line, column, message));
            }
        }
        let output = Command::new(env!("CARGO_BIN_EXE_tempo"))
            .args(["check", "--format", "json"])
            .arg(&file)
            .output()
            .expect("run tempo check");
        let json: Value = serde_json::from_slice(&output.stdout).expect("JSON from tempo check");
        let mut from_check: Vec<(String, String, u64, u64, String)> = json["diagnostics"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|d| {
                let path = crate_path(d["file"].as_str().unwrap_or(""));
                let (line, column) = (d["line"].as_u64().unwrap_or(0), d["column"].as_u64().unwrap_or(0));
                (
                    path,
                    d["code"].as_str().unwrap_or("").to_string(),
                    line,
                    column,
                    d["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        from_server.sort();
        from_check.sort();
        assert!(!from_check.is_empty(), "{}: tempo check found nothing", file.display());
        assert_eq!(from_server, from_check, "{}", file.display());
        compared += 1;
    }
    assert!(compared >= 25, "only {compared} inputs compared");
}

/// A path as `tempo check` printed it, made absolute and canonical like the server's URIs.
fn crate_path(printed: &str) -> String {
    let path = Path::new(printed);
    let path = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().expect("cwd").join(path) };
    std::fs::canonicalize(&path).unwrap_or(path).display().to_string()
}

/// Edits waiting in the queue coalesce: the server applies them all and checks once, so only the
/// latest version is compiled and published. Driven in-process over a memory connection with
/// every message queued before the server starts, so the batch is the same on every run.
#[test]
fn queued_edits_are_checked_and_published_once_for_the_latest_version() {
    use lsp_server::{Connection, Message, Notification, Request, RequestId};
    let dir = folder("coalesce", &[("base.rules", BASE)]);
    let variant = dir.join("variant.rules");
    let (client, server) = Connection::memory();
    let request = |id: i32, method: &str, params: Value| {
        Message::Request(Request::new(RequestId::from(id), method.to_string(), params))
    };
    let notify = |method: &str, params: Value| Message::Notification(Notification::new(method.to_string(), params));
    let mut queued = vec![
        request(1, "initialize", json!({"capabilities": {}})),
        notify("initialized", json!({})),
        notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(&variant), "languageId": "tempo", "version": 1, "text": VARIANT_BAD}}),
        ),
    ];
    // Each version names a different unknown pool, so each would publish something different.
    for version in 2..=20 {
        let text = VARIANT_BAD.replace("apx", &format!("ap{version}"));
        queued.push(notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&variant), "version": version}, "contentChanges": [{"text": text}]}),
        ));
    }
    queued.push(request(2, "tempo/settle", json!(null)));
    queued.push(request(3, "shutdown", json!(null)));
    queued.push(notify("exit", json!(null)));
    for message in queued {
        client.sender.send(message).expect("queue a message");
    }
    let served = std::thread::spawn(move || tempo::lsp::serve(&server).map_err(|e| e.to_string()));
    let mut published = Vec::new();
    let mut settled = false;
    while let Ok(message) = client.receiver.recv_timeout(TIMEOUT) {
        match message {
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                assert!(!settled, "diagnostics after the settle reply");
                published.push(n.params);
            }
            Message::Response(r) if r.id == RequestId::from(2) => settled = true,
            Message::Response(r) if r.id == RequestId::from(3) => break,
            _ => {}
        }
    }
    assert_eq!(served.join().expect("the server thread"), Ok(()));
    assert!(settled, "the settle request was answered");
    let versions: Vec<&Value> = published.iter().map(|p| &p["version"]).collect();
    assert_eq!(published.len(), 1, "published for versions {versions:?}");
    assert_eq!(published[0]["version"], 20, "{}", published[0]);
    assert_eq!(codes(&published[0]), ["tempo::unknown-pool"]);
    let message = published[0]["diagnostics"][0]["message"].as_str().unwrap_or("");
    assert!(message.contains("`ap20`"), "{message}");
}

/// A file with more problems than the cap gets the cap's worth, errors first, and a last note
/// saying how many were cut.
#[test]
fn diagnostics_past_the_cap_are_cut_with_a_note() {
    const CAP: usize = tempo::lsp::MAX_DIAGNOSTICS;
    let dir = folder("cap", &[("base.rules", BASE)]);
    let variant = dir.join("variant.rules");
    let text = |pool: &dyn Fn(usize) -> String| {
        let mut text = String::from("ruleset variant extends \"base.rules\"\n");
        for i in 0..CAP + 50 {
            text.push_str(&format!("action a{i} {{ cost 1 {} }}\n", pool(i)));
        }
        text
    };
    let mut server = Server::start(&dir);
    server.open(&variant, &text(&|i| format!("apx{i}")));
    let published = server.diagnostics(&variant);
    let list = published["diagnostics"].as_array().expect("a list");
    assert_eq!(list.len(), CAP + 1, "{published}");
    assert!(list[..CAP].iter().all(|d| d["code"] == "tempo::unknown-pool" && d["severity"] == 1), "{published}");
    // The first `CAP` in file order: the first action's error first, the last kept is action CAP - 1.
    assert_eq!(list[0]["range"]["start"]["line"], 1);
    assert_eq!(list[CAP - 1]["range"]["start"]["line"], CAP);
    let note = &list[CAP];
    assert_eq!(note["severity"], 3, "information: {note}");
    assert_eq!(note["range"]["start"], json!({"line": 0, "character": 0}));
    let message = note["message"].as_str().unwrap_or("");
    assert!(message.starts_with("50 more diagnostics"), "{message}");
    // Fixed: the note goes with the rest.
    server.change(&variant, 2, &text(&|_| "ap".to_string()));
    let cleared = server.diagnostics(&variant);
    assert_eq!(cleared["diagnostics"], json!([]), "{cleared}");
    assert_eq!(server.finish().code(), Some(0));
}

/// A body framed as a client frames it.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// A server with one file open, to show it still answers: a request on the file, answered.
fn open_one(name: &str) -> (Server, PathBuf) {
    let dir = folder(name, &[("base.rules", BASE)]);
    let mut server = Server::start(&dir);
    let file = dir.join("base.rules");
    server.open(&file, BASE);
    server.settle();
    (server, file)
}

fn still_answers(server: &mut Server, file: &Path) {
    let symbols = server.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri(file)}}));
    assert!(symbols["result"].as_array().is_some_and(|s| !s.is_empty()), "{symbols}");
}

/// The error of a reply: its code and message.
fn error_of(reply: &Value) -> (i64, String) {
    let code = reply["error"]["code"].as_i64().unwrap_or_else(|| panic!("an error reply: {reply}"));
    (code, reply["error"]["message"].as_str().unwrap_or("").to_string())
}

#[test]
fn invalid_json_body_gets_a_parse_error_and_the_server_goes_on() {
    let (mut server, file) = open_one("invalid-json");
    server.raw(&frame(b"{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": "));
    let (code, message) = error_of(&server.reply_to(Value::Null));
    assert_eq!(code, -32700, "{message}");
    assert!(message.contains("not JSON"), "{message}");
    still_answers(&mut server, &file);
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn missing_content_length_gets_a_parse_error_and_the_next_message_is_read() {
    let (mut server, file) = open_one("no-content-length");
    // The body has no newline, so it runs into the next message's header.
    server.raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"shutdown\"}");
    let (code, message) = error_of(&server.reply_to(Value::Null));
    assert_eq!(code, -32700, "{message}");
    assert!(message.contains("Content-Length"), "{message}");
    // The skipped body was a `shutdown`: had it been taken, this would be refused.
    still_answers(&mut server, &file);
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn lone_surrogate_in_a_string_gets_invalid_request_with_its_id() {
    let (mut server, file) = open_one("lone-surrogate");
    let hover = format!(
        r#"{{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":{{"textDocument":{{"uri":"{}"}},"position":{{"line":0,"character":0}},"x":"\ud800"}}}}"#,
        uri(&file)
    );
    server.raw(&frame(hover.as_bytes()));
    let (code, message) = error_of(&server.reply_to(json!(77)));
    assert_eq!(code, -32600, "{message}");
    // A notification (no id to answer) with one: an error reply with a null id, and the text is
    // left as it was.
    let change = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{}","version":2}},"contentChanges":[{{"text":"\udc00"}}]}}}}"#,
        uri(&file)
    );
    server.raw(&frame(change.as_bytes()));
    assert_eq!(error_of(&server.reply_to(Value::Null)).0, -32600);
    still_answers(&mut server, &file);
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn huge_content_length_gets_a_parse_error_without_allocating_it() {
    let (mut server, file) = open_one("huge-length");
    server.raw(b"Content-Length: 99999999999\r\n\r\n{}");
    let (code, message) = error_of(&server.reply_to(Value::Null));
    assert_eq!(code, -32700, "{message}");
    assert!(message.contains("limit"), "{message}");
    // Its body is drained to the end of the input: the server exits as one left without
    // `shutdown` (1), not aborted by a signal.
    assert_eq!(server.wait().code(), Some(1));
    assert!(server.stderr_text().contains("without `shutdown`"));
    drop(file);
}

#[test]
fn a_body_over_the_limit_is_skipped_and_the_next_message_answered() {
    let (mut server, file) = open_one("over-the-limit");
    let size = tempo::lsp::MAX_BODY + 1;
    server.raw(format!("Content-Length: {size}\r\n\r\n").as_bytes());
    // The reply comes before the body is read: the client learns at once.
    let (code, message) = error_of(&server.reply_to(Value::Null));
    assert_eq!(code, -32700, "{message}");
    let chunk = vec![b' '; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        server.raw(&chunk[..n]);
        left -= n as u64;
    }
    still_answers(&mut server, &file);
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn request_after_shutdown_gets_invalid_request() {
    let (mut server, file) = open_one("after-shutdown");
    let reply = server.request("shutdown", json!(null));
    assert_eq!(reply["result"], Value::Null, "{reply}");
    let hover = server.at("textDocument/hover", &file, 0, 0, json!({}));
    let (code, message) = error_of(&hover);
    assert_eq!(code, -32600, "{message}");
    // Notifications other than `exit` are dropped; a second `shutdown` is refused too.
    server.change(&file, 2, "ruleset broken {");
    assert_eq!(error_of(&server.request("shutdown", json!(null))).0, -32600);
    server.notify("exit", json!(null));
    assert_eq!(server.wait().code(), Some(0));
    assert!(
        !server.notifications.iter().any(|n| n["method"] == "textDocument/publishDiagnostics"),
        "{:?}",
        server.notifications
    );
}

#[test]
fn a_valid_request_after_each_bad_message_is_still_answered() {
    let (mut server, file) = open_one("each-bad");
    // Each with the id its error reply carries: null unless the message has a readable one.
    let bad: Vec<(Vec<u8>, Value)> = vec![
        (frame(b"{not json"), Value::Null),
        (b"Content-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}\r\n".to_vec(), Value::Null),
        (frame(br#"{"x":"\ud800\u0041"}"#), Value::Null),
        (b"Content-Length: twelve\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}".to_vec(), Value::Null),
        (b"\x00\xffjunk that is not a header at all\r\n".to_vec(), Value::Null),
        (frame(b"[1,2]"), Value::Null),
        (frame(br#"{"id":{},"method":"shutdown"}"#), Value::Null),
        (frame(br#"{"jsonrpc":"2.0","id":"neither"}"#), json!("neither")),
        (frame(br#"{"jsonrpc":"2.0","id":2147483648,"method":"shutdown"}"#), json!(2147483648u64)),
        (frame(b"\xff\xfe\xfd\xfc"), Value::Null),
        (frame(b"\"text\""), Value::Null),
    ];
    for (bytes, id) in bad {
        server.raw(&bytes);
        let reply = server.reply_to(id);
        let (code, message) = error_of(&reply);
        assert!(code == -32700 || code == -32600, "{}: {reply}", String::from_utf8_lossy(&bytes));
        assert!(!message.is_empty());
        still_answers(&mut server, &file);
    }
    // An overlong header line, then a message right after it on the same line.
    let mut long = vec![b'x'; 5000];
    long.extend(frame(br#"{"jsonrpc":"2.0","id":900,"method":"tempo/nothing"}"#));
    server.raw(&long);
    assert_eq!(error_of(&server.reply_to(Value::Null)).0, -32700);
    assert_eq!(error_of(&server.reply_to(json!(900))).0, -32601);
    still_answers(&mut server, &file);
    assert_eq!(server.finish().code(), Some(0));
}

#[cfg(unix)]
#[test]
fn a_named_pipe_as_a_base_is_a_diagnostic_not_a_hang() {
    let dir = folder("named-pipe", &[]);
    let made = Command::new("mkfifo").arg(dir.join("pipe.rules")).status().expect("run mkfifo");
    assert!(made.success());
    let mut server = Server::start(&dir);
    let file = dir.join("variant.rules");
    server.open(&file, "ruleset variant extends \"pipe.rules\"\n");
    let published = server.diagnostics(&file);
    assert_eq!(codes(&published), ["tempo::missing-base"], "{published}");
    assert!(published.to_string().contains("not a regular file"), "{published}");
    // References look at the `.rules` files beside the document; the pipe is not read.
    let reply = server.at("textDocument/references", &file, 0, 10, json!({"context": {"includeDeclaration": true}}));
    assert!(reply.get("result").is_some(), "{reply}");
    assert_eq!(server.finish().code(), Some(0));
}

/// Issue 33, item 10: a test file whose `scenario_file` is a named pipe, `/dev/zero` or
/// `/dev/urandom` is a diagnostic at once; the server neither waits on the pipe nor reads forever.
#[test]
fn a_test_files_scenario_file_at_a_fifo_or_dev_zero_is_a_diagnostic_not_a_hang() {
    let dir = folder("scenario-fifo", &[("base.rules", BASE)]);
    let made = Command::new("mkfifo").arg(dir.join("pipe.ron")).status().expect("run mkfifo");
    assert!(made.success());
    let mut server = Server::start(&dir);
    for (n, scenario) in ["pipe.ron", "/dev/zero", "/dev/urandom"].into_iter().enumerate() {
        let test = dir.join(format!("t{n}.test.ron"));
        let text = format!("(ruleset: \"base.rules\", scenario_file: {scenario:?}, expect: [\"A\"])\n");
        server.open(&test, &text);
        let published = server.diagnostics(&test);
        assert_eq!(codes(&published), ["tempo::scenario"], "{published}");
        assert!(published.to_string().contains("not a regular file"), "{published}");
    }
    assert_eq!(server.finish().code(), Some(0));
}

/// A test file (`*.test.ron`, docs/testing.md) open in the editor: a scenario that does not fit
/// the ruleset is shown at the name that does not fit, an invalid file at its error, a missing
/// ruleset at its path; and the rules features answer nothing there.
#[test]
fn a_test_file_shows_what_does_not_fit_its_ruleset() {
    let dir = folder("test-file", &[("base.rules", BASE)]);
    let test = dir.join("stand.test.ron");
    let text = r#"(
  ruleset: "base.rules",
  scenario: (rounds: 1, participants: [
    (name: "A", side: "a", pools: {"apx": 1}, controller: Script(steps: [Act(round: 1, action: "stnd")], fallback: Passive)),
    (name: "B", side: "b", controller: Policy(Passive)),
  ]),
  expect: ["A uses stand"],
)
"#;
    let mut server = Server::start(&dir);
    server.open(&test, text);
    let published = server.diagnostics(&test);
    let diagnostics = published["diagnostics"].as_array().expect("a list").clone();
    assert_eq!(diagnostics.len(), 2, "{published}");
    let at = |needle: &str| {
        let (line, character) = pos(text, needle, 0);
        json!({"line": line, "character": character - 1})
    };
    let messages: Vec<&str> = diagnostics.iter().map(|d| d["message"].as_str().unwrap_or("")).collect();
    assert!(messages.iter().any(|m| m.contains("`apx`")), "{published}");
    assert!(messages.iter().any(|m| m.contains("`stnd`") && m.contains("did you mean `stand`")), "{published}");
    for d in &diagnostics {
        assert_eq!(d["code"], "tempo::scenario");
        let name = if d["message"].as_str().unwrap_or("").contains("apx") { "\"apx\"" } else { "\"stnd\"" };
        assert_eq!(d["range"]["start"], at(name), "{d}");
    }
    // Fixed: cleared.
    server.change(&test, 2, &text.replace("apx", "ap").replace("stnd", "stand"));
    assert_eq!(server.diagnostics(&test)["diagnostics"], json!([]));
    // Not RON: the error where the parser stopped.
    let broken = text.replace("  expect:", "  expect");
    server.change(&test, 3, &broken);
    let published = server.diagnostics(&test);
    assert_eq!(codes(&published), ["tempo::scenario"]);
    assert_eq!(published["diagnostics"][0]["range"]["start"]["line"], 6, "{published}");
    // A ruleset that is not there: at its path.
    server.change(&test, 4, &text.replace("base.rules", "nowhere.rules"));
    let published = server.diagnostics(&test);
    assert_eq!(codes(&published), ["tempo::unreadable-file"]);
    assert_eq!(published["diagnostics"][0]["range"]["start"], at("\"base.rules\""), "{published}");
    // No rules features in a test file.
    assert_eq!(server.at("textDocument/hover", &test, 1, 14, json!({}))["result"], json!(null));
    assert_eq!(server.finish().code(), Some(0));
}

/// Issue 14: renaming a pool named like one of the language's words (`actions`) renames the
/// pool, not the word where the language reads it as its own (`blocks actions`,
/// `limit actions: ...` is a kind too); find-references lists the pool's uses alone.
#[test]
fn rename_leaves_the_languages_own_words_alone() {
    let text = "ruleset words
initiative { value 0; order highest_first }
round { phase act: turns }
pool actions { max 2; refresh at turn_start }
## Stunned: no actions.
condition stunned { blocks actions, movement }
action strike { cost 1 actions; target enemy; resolve { apply stunned to target } }
";
    let dir = folder("option-words", &[("words.rules", text)]);
    let path = dir.join("words.rules");
    let mut server = Server::start(&dir);
    server.open(&path, text);
    server.settle();
    let (line, character) = pos(text, "actions {", 0);
    let rename = server.at("textDocument/rename", &path, line, character, json!({"newName": "ap"}));
    let edits = rename["result"]["changes"][uri(&path)].as_array().cloned().unwrap_or_default();
    let lines: Vec<u64> = edits.iter().map(|e| e["range"]["start"]["line"].as_u64().unwrap_or(99)).collect();
    // The declaration (line 4) and the cost (line 7); not `blocks actions` (line 6).
    assert_eq!(lines, [3, 6], "{rename}");
    let with_declaration = json!({"context": {"includeDeclaration": true}});
    let references = server.at("textDocument/references", &path, line, character, with_declaration);
    assert_eq!(references["result"].as_array().map(Vec::len), Some(2), "{references}");
    assert_eq!(server.finish().code(), Some(0));
}

/// Issue 14: rename and references follow what the compiler read each name as, so a pool and a
/// condition that share a name are two names to the editor.
#[test]
fn a_pool_and_a_condition_of_the_same_name_are_renamed_apart() {
    let text = "ruleset guarded
initiative { value 0 }
round { phase act: turns }
pool guard { max 2; refresh at turn_start }
condition guard { }
action brace { cost 1 guard; resolve { apply guard; guard += 1 } }
action check_it { requires self has guard and guard > 0 }
";
    let dir = folder("same-name", &[("guarded.rules", text)]);
    let path = dir.join("guarded.rules");
    let mut server = Server::start(&dir);
    server.open(&path, text);
    server.settle();
    let lines_of = |result: &serde_json::Value| -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = result
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|e| {
                let start = &e["range"]["start"];
                (start["line"].as_u64().unwrap_or(99), start["character"].as_u64().unwrap_or(99))
            })
            .collect();
        v.sort_unstable();
        v
    };
    // From the pool's declaration: the pool, its cost, `guard += 1` and `guard > 0`.
    let (line, character) = pos(text, "guard {", 0);
    let rename = server.at("textDocument/rename", &path, line, character, json!({"newName": "stamina"}));
    let pool = lines_of(&rename["result"]["changes"][uri(&path)]);
    assert_eq!(pool, [(3, 5), (5, 22), (5, 52), (6, 46)], "{rename}");
    // From the condition's use in `apply guard`: the condition and `has guard`.
    let (line, character) = pos(text, "guard; guard", 0);
    let with_declaration = json!({"context": {"includeDeclaration": true}});
    let references = server.at("textDocument/references", &path, line, character, with_declaration);
    assert_eq!(lines_of(&references["result"]), [(4, 10), (5, 45), (6, 36)], "{references}");
    assert_eq!(server.finish().code(), Some(0));
}

/// Issue 44: inside `value(`, `highest(` and `lowest(` the piles are offered, after `for each`
/// the relations; hover says what `highest` reads.
#[test]
fn completion_offers_piles_to_item_numbers_and_relations_to_loops() {
    let dir = folder("completion-numbers", &[]);
    let file = dir.join("deck.rules");
    let mut server = Server::start(&dir);
    let text = "ruleset deck\nitems cards { two = 2, joker = 100 }\npile hand of cards { starts full }\n\
                pool hits { max none }\ninitiative { value highest(hand) }\nround { phase act: turns }\n\
                action a {\n  resolve {\n    hits = value(hand)\n    for each ally { target.hits += 1 }\n  }\n}\n";
    server.open(&file, text);
    server.settle();
    let labels = |reply: &Value| -> Vec<String> {
        let items = reply["result"].as_array().map(Vec::as_slice).unwrap_or_default();
        items.iter().map(|i| i["label"].as_str().unwrap_or("").to_string()).collect()
    };
    let (line, character) = pos(text, "hand)\n    for", 0);
    let in_value = labels(&server.at("textDocument/completion", &file, line, character, json!({})));
    assert!(in_value.contains(&"hand".to_string()), "{in_value:?}");
    assert!(!in_value.contains(&"hits".to_string()), "{in_value:?}");
    let (line, character) = pos(text, "ally { target", 0);
    let after_each = labels(&server.at("textDocument/completion", &file, line, character, json!({})));
    assert!(["ally", "enemy", "any"].iter().all(|w| after_each.contains(&w.to_string())), "{after_each:?}");
    assert!(!after_each.contains(&"hits".to_string()), "{after_each:?}");
    let (line, character) = pos(text, "highest(hand)", 0);
    let hover = server.at("textDocument/hover", &file, line, character, json!({}));
    let shown = hover["result"]["contents"]["value"].as_str().unwrap_or("").to_string();
    assert!(shown.contains("highest(pile)"), "{hover}");
    assert_eq!(server.finish().code(), Some(0));
}
