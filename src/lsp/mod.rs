//! The language server: `tempo lsp` speaks the Language Server Protocol over stdio
//! ([`serve_stdio`]). Framing is its own ([`FrameReader`], bounded, resynchronising after bad
//! input); messages, ids and error codes are lsp-server's types. Messages are handled one at a
//! time, in the order they came, on one thread. Notifications already waiting when one is handled
//! are applied together and checked once (edits coalesce: only the latest text is compiled and
//! published), and at most [`MAX_DIAGNOSTICS`] are sent per file.
//!
//! Invariants: the server re-checks every open document with the compiler itself
//! (`check::compile_with` over [`documents::Overlay`]), so the editor shows exactly what
//! `tempo check` prints; a panic in a handler becomes an error reply, not a dead server; nothing
//! the client sends is trusted (bad framing, bad JSON and bad parameters are an error reply,
//! positions are clamped); only `exit`, or the input ending, ends the server.

mod analysis;
mod complete;
mod documents;
mod format;
mod navigate;
mod position;
mod symbols;
mod test_file;
mod transport;

use crate::names::words;

pub use transport::{parse_message, Frame, FrameReader, MAX_BODY, MAX_HEADER_LINE, MAX_HEADER_LINES};

use documents::Documents;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, LogMessage,
    Notification as NotificationTrait, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, PrepareRenameRequest, References,
    Rename, Request as RequestTrait,
};
use lsp_types::{
    CompletionOptions, HoverProviderCapability, OneOf, PublishDiagnosticsParams, RenameOptions, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

/// Why a request got an error reply.
#[derive(Debug)]
pub(crate) struct RequestError {
    code: ErrorCode,
    message: String,
}

impl RequestError {
    fn invalid(message: String) -> RequestError {
        RequestError { code: ErrorCode::InvalidParams, message }
    }

    fn failed(message: String) -> RequestError {
        RequestError { code: ErrorCode::RequestFailed, message }
    }
}

/// What the server advertises.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".to_string(), "(".to_string()]),
            ..CompletionOptions::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// Why serving ended badly (the binary exits with 1).
#[derive(Debug)]
pub struct ServeError(String);

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// Most diagnostics published for one file. Past that, the first `MAX_DIAGNOSTICS` (errors
/// before warnings, in file order) are sent, then one information note at the top of the file
/// that says how many more were cut: a ruleset with thousands of problems would otherwise send
/// the editor megabytes on every keystroke. `tempo check` prints them all.
pub const MAX_DIAGNOSTICS: usize = 200;

/// One thing read from the client.
enum Incoming {
    Message(Message),
    /// Not a message the server can take: the error reply owed (a JSON-RPC response).
    Invalid(Value),
    /// The input ended or failed; why, should the server not have been shut down.
    End(String),
}

/// What the server sends.
enum Outgoing {
    Message(Message),
    /// An error reply built as JSON (its id may be null, which a `Message` cannot hold).
    Raw(Value),
}

/// Where messages come from and go to: stdio, an in-memory `Connection`, or bytes.
trait Transport {
    /// The next thing from the client, waiting for it.
    fn recv(&mut self) -> Incoming;
    /// The next thing from the client if it is already there.
    fn try_recv(&mut self) -> Option<Incoming>;
    fn send(&mut self, out: Outgoing) -> Result<(), ServeError>;
}

const CLOSED: &str = "the client closed the connection without `shutdown`";

/// The next thing from framed input: bodies parsed, refusals turned into error replies,
/// responses from the client dropped.
fn read_incoming(reader: &mut FrameReader<impl BufRead>) -> Incoming {
    loop {
        match reader.next_frame() {
            Frame::Body(body) => match transport::parse_message(&body) {
                Ok(Some(message)) => return Incoming::Message(message),
                Ok(None) => continue,
                Err(reply) => return Incoming::Invalid(reply),
            },
            Frame::Refused(why) => return Incoming::Invalid(transport::error_reply(None, ErrorCode::ParseError, why)),
            Frame::End(None) => return Incoming::End(CLOSED.to_string()),
            Frame::End(Some(e)) => return Incoming::End(format!("reading from the client failed: {e}")),
        }
    }
}

/// Serves one client over stdin and stdout until it asks to shut down and exit (`Ok`); an `exit`
/// without `shutdown`, or stdin closing first, is an error (the binary exits with 1, as the
/// protocol says).
///
/// A thread reads and parses messages into an unbounded queue while the server is busy, so edits
/// that arrive during a check are waiting in the queue when it ends and coalesce. Replies are
/// written from the serving thread; the reader keeps draining stdin meanwhile, so a client that
/// writes without reading cannot deadlock with it.
pub fn serve_stdio() -> Result<(), ServeError> {
    let (queue, from_client) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = FrameReader::new(std::io::stdin().lock());
        loop {
            let incoming = read_incoming(&mut reader);
            let end = matches!(incoming, Incoming::End(_));
            if queue.send(incoming).is_err() || end {
                break;
            }
        }
    });
    let mut transport = Stdio { from_client, out: std::io::BufWriter::new(std::io::stdout()) };
    serve_with(&mut transport, cfg!(debug_assertions))
}

struct Stdio {
    from_client: std::sync::mpsc::Receiver<Incoming>,
    out: std::io::BufWriter<std::io::Stdout>,
}

impl Transport for Stdio {
    fn recv(&mut self) -> Incoming {
        self.from_client.recv().unwrap_or_else(|_| Incoming::End(CLOSED.to_string()))
    }

    fn try_recv(&mut self) -> Option<Incoming> {
        self.from_client.try_recv().ok()
    }

    fn send(&mut self, out: Outgoing) -> Result<(), ServeError> {
        write_outgoing(&mut self.out, &out)
    }
}

fn write_outgoing(to: &mut impl Write, out: &Outgoing) -> Result<(), ServeError> {
    match out {
        Outgoing::Message(message) => transport::write_message(to, message),
        Outgoing::Raw(value) => transport::write_value(to, value),
    }
    .map_err(|e| ServeError(format!("writing to the client failed: {e}")))
}

/// Serves one client over an in-memory [`Connection`] (benchmarks and tests), as
/// [`serve_stdio`] does over stdio. Messages arrive parsed, so there is no framing to refuse.
pub fn serve(connection: &Connection) -> Result<(), ServeError> {
    serve_with(&mut Memory(connection), cfg!(debug_assertions))
}

struct Memory<'a>(&'a Connection);

impl Transport for Memory<'_> {
    fn recv(&mut self) -> Incoming {
        self.0.receiver.recv().map_or_else(|_| Incoming::End(CLOSED.to_string()), Incoming::Message)
    }

    fn try_recv(&mut self) -> Option<Incoming> {
        self.0.receiver.try_recv().ok().map(Incoming::Message)
    }

    fn send(&mut self, out: Outgoing) -> Result<(), ServeError> {
        match out {
            Outgoing::Message(message) => {
                self.0.sender.send(message).map_err(|_| ServeError("the connection to the client closed".to_string()))
            }
            // Only framed input yields replies with such ids; a connection delivers messages.
            Outgoing::Raw(_) => Ok(()),
        }
    }
}

/// What [`serve_bytes`] gives back.
#[derive(Debug)]
pub struct Served {
    /// Everything the server wrote, framed as on stdout.
    pub output: Vec<u8>,
    /// How serving ended, as [`serve_stdio`] would have (`Err` makes the binary exit with 1).
    pub result: Result<(), ServeError>,
}

/// Runs the whole language server (framing, lifecycle, handlers) over `input`, bytes as a client
/// would write them to `tempo lsp`'s stdin, and returns what it wrote. For tests and fuzzing: it
/// is the loop `tempo lsp` runs, on one thread, without processes.
///
/// For a fuzz target: any input is fine and nothing panics out of it (handler panics are caught
/// and answered, though a fuzzer's panic hook still sees them, which is what a fuzzer wants).
/// Every message is taken as already waiting, so notifications coalesce as far as they can. The
/// debug-only `tempo/debugPanic` request is off here. Handlers do read the disk: a `didOpen` of
/// a `file:` URI compiles it and its bases through the file loader (regular files only, at most
/// 16 MiB), and references list `.rules` files beside it.
pub fn serve_bytes(input: &[u8]) -> Served {
    let mut transport = Bytes { reader: FrameReader::new(input), output: Vec::new() };
    let result = serve_with(&mut transport, false);
    Served { output: transport.output, result }
}

struct Bytes<'a> {
    reader: FrameReader<&'a [u8]>,
    output: Vec<u8>,
}

impl Transport for Bytes<'_> {
    fn recv(&mut self) -> Incoming {
        read_incoming(&mut self.reader)
    }

    fn try_recv(&mut self) -> Option<Incoming> {
        Some(read_incoming(&mut self.reader))
    }

    fn send(&mut self, out: Outgoing) -> Result<(), ServeError> {
        write_outgoing(&mut self.output, &out)
    }
}

/// Where the client is in the protocol's lifecycle.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lifecycle {
    /// Before `initialize`: other requests get `ServerNotInitialized`, notifications are dropped.
    Starting,
    Running,
    /// After `shutdown`: requests get `InvalidRequest`, notifications other than `exit` are
    /// dropped.
    ShutDown,
}

/// The message loop over any transport. Ends `Ok` on `exit` after `shutdown` (or the input
/// ending after `shutdown`); `Err` on `exit` before it, or the input ending before it.
fn serve_with(transport: &mut impl Transport, debug_panic: bool) -> Result<(), ServeError> {
    let mut server = Server { debug_panic, ..Server::default() };
    let mut lifecycle = Lifecycle::Starting;
    // A message taken from the queue while gathering notifications, to handle next.
    let mut next: Option<Incoming> = None;
    loop {
        let message = match next.take().unwrap_or_else(|| transport.recv()) {
            Incoming::Message(message) => message,
            Incoming::Invalid(reply) => {
                transport.send(Outgoing::Raw(reply))?;
                continue;
            }
            Incoming::End(why) => {
                return match lifecycle {
                    Lifecycle::ShutDown => Ok(()),
                    _ => Err(ServeError(why)),
                }
            }
        };
        match message {
            Message::Request(request) => {
                let response = match (lifecycle, request.method.as_str()) {
                    (Lifecycle::Starting, "initialize") => {
                        lifecycle = Lifecycle::Running;
                        server.initialize(request)
                    }
                    (Lifecycle::Starting, _) => Response::new_err(
                        request.id,
                        ErrorCode::ServerNotInitialized as i32,
                        "the server takes `initialize` first".to_string(),
                    ),
                    (Lifecycle::ShutDown, method) => Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        format!("the server is shut down: `{method}` is refused, only `exit` is taken"),
                    ),
                    (Lifecycle::Running, "shutdown") => {
                        lifecycle = Lifecycle::ShutDown;
                        Response::new_ok(request.id, Value::Null)
                    }
                    (Lifecycle::Running, "initialize") => Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is already initialized".to_string(),
                    ),
                    (Lifecycle::Running, _) => server.request(request),
                };
                transport.send(Outgoing::Message(Message::Response(response)))?;
            }
            Message::Notification(notification) if notification.method == "exit" => {
                return match lifecycle {
                    Lifecycle::ShutDown => Ok(()),
                    _ => Err(ServeError("the client sent `exit` before `shutdown`".to_string())),
                };
            }
            Message::Notification(_) if lifecycle != Lifecycle::Running => {}
            Message::Notification(notification) => {
                // Every notification already waiting is applied before one check, so a burst of
                // edits is compiled and published once, for the latest text. Anything else ends
                // the gathering and is handled after it, so a request is still answered only
                // after every notification sent before it has been applied.
                let mut batch = vec![notification];
                while let Some(waiting) = transport.try_recv() {
                    match waiting {
                        Incoming::Message(Message::Notification(n)) if n.method != "exit" => batch.push(n),
                        other => {
                            next = Some(other);
                            break;
                        }
                    }
                }
                for publish in server.notifications(batch) {
                    let message = Notification::new(PublishDiagnostics::METHOD.to_string(), publish);
                    transport.send(Outgoing::Message(Message::Notification(message)))?;
                }
                for text in server.log.drain(..) {
                    let params = lsp_types::LogMessageParams { typ: lsp_types::MessageType::ERROR, message: text };
                    let message = Notification::new(LogMessage::METHOD.to_string(), params);
                    transport.send(Outgoing::Message(Message::Notification(message)))?;
                }
            }
            Message::Response(_) => {}
        }
    }
}

/// The server's state: the open documents and what was last published for each file.
#[derive(Default)]
struct Server {
    documents: Documents,
    /// The client takes a rename's edits as ordered `documentChanges`.
    document_changes: bool,
    /// Per file URI: the diagnostics each open document's compilation found in it.
    found: BTreeMap<Url, BTreeMap<Url, Vec<lsp_types::Diagnostic>>>,
    /// Per file URI: what the client was last sent.
    published: BTreeMap<Url, Vec<lsp_types::Diagnostic>>,
    /// Debug builds, over stdio or a connection: `tempo/debugPanic` panics (for the tests).
    debug_panic: bool,
    /// Internal errors met while handling notifications, sent to the client as
    /// `window/logMessage` (the library never prints, and stderr may be nobody's).
    log: Vec<String>,
}

impl Server {
    /// Answers `initialize`, and notes what the client can take (anything unreadable is "no").
    fn initialize(&mut self, request: Request) -> Response {
        let client = serde_json::from_value::<lsp_types::InitializeParams>(request.params).ok();
        let workspace_edit = client.and_then(|c| c.capabilities.workspace).and_then(|w| w.workspace_edit);
        self.document_changes = workspace_edit.and_then(|w| w.document_changes).unwrap_or(false);
        let result = serde_json::json!({
            "capabilities": capabilities(),
            "serverInfo": ServerInfo { name: "tempo".to_string(), version: Some(env!("CARGO_PKG_VERSION").to_string()) },
        });
        Response::new_ok(request.id, result)
    }

    fn request(&self, request: Request) -> Response {
        let Request { id, method, params } = request;
        let documents = &self.documents;
        // A test file is RON, not rules: it has diagnostics, and none of the rules features.
        let on_test_file = params
            .pointer("/textDocument/uri")
            .and_then(Value::as_str)
            .and_then(|u| Url::parse(u).ok())
            .is_some_and(|u| test_file::is_test_file(&u));
        if on_test_file && method != "tempo/debugPanic" {
            return Response::new_ok(id, Value::Null);
        }
        guarded(id, &method, || match method.as_str() {
            HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = parse(params)?;
                let at = p.text_document_position_params;
                reply(navigate::hover(documents, &at.text_document.uri, at.position)?)
            }
            GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = parse(params)?;
                let at = p.text_document_position_params;
                reply(navigate::definition(documents, &at.text_document.uri, at.position)?)
            }
            References::METHOD => {
                let p: lsp_types::ReferenceParams = parse(params)?;
                let at = p.text_document_position;
                let include = p.context.include_declaration;
                reply(navigate::references(documents, &at.text_document.uri, at.position, include)?)
            }
            PrepareRenameRequest::METHOD => {
                let p: lsp_types::TextDocumentPositionParams = parse(params)?;
                reply(navigate::prepare_rename(documents, &p.text_document.uri, p.position)?)
            }
            Rename::METHOD => {
                let p: lsp_types::RenameParams = parse(params)?;
                let at = p.text_document_position;
                let ordered = self.document_changes;
                reply(navigate::rename(documents, &at.text_document.uri, at.position, &p.new_name, ordered)?)
            }
            Completion::METHOD => {
                let p: lsp_types::CompletionParams = parse(params)?;
                let at = p.text_document_position;
                reply(complete::completion(documents, &at.text_document.uri, at.position)?)
            }
            DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = parse(params)?;
                reply(symbols::document_symbols(documents, &p.text_document.uri)?)
            }
            Formatting::METHOD => {
                let p: lsp_types::DocumentFormattingParams = parse(params)?;
                reply(format::formatting(documents, &p.text_document.uri)?)
            }
            // Debug builds only: a request that panics, so the end-to-end tests can show a
            // panicking handler costs one error reply, not the server.
            "tempo/debugPanic" if self.debug_panic => deliberate_panic(),
            _ => Err(RequestError { code: ErrorCode::MethodNotFound, message: format!("`{method}` is not supported") }),
        })
    }

    /// Applies notifications in order, then checks what they changed once; returns the
    /// diagnostics to publish.
    fn notifications(&mut self, batch: Vec<Notification>) -> Vec<PublishDiagnosticsParams> {
        let mut scope = Recheck::Nothing;
        for notification in batch {
            let method = notification.method.clone();
            match panic::catch_unwind(AssertUnwindSafe(|| self.apply(notification))) {
                Ok(more) => scope = scope.and(more),
                Err(_) => {
                    self.log.push(format!("tempo lsp: internal error while handling `{method}`; the server goes on"))
                }
            }
        }
        match scope {
            Recheck::Nothing => Vec::new(),
            scope => panic::catch_unwind(AssertUnwindSafe(|| self.recheck(&scope))).unwrap_or_else(|_| {
                self.log.push(
                    "tempo lsp: internal error while checking the open documents; the server goes on".to_string(),
                );
                Vec::new()
            }),
        }
    }

    /// Changes the open documents, and says which must be compiled again.
    fn apply(&mut self, notification: Notification) -> Recheck {
        let Notification { method, params } = notification;
        match method.as_str() {
            "tempo/debugPanic" if self.debug_panic => deliberate_panic(),
            DidOpenTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidOpenTextDocumentParams>(params) else { return Recheck::Nothing };
                let doc = p.text_document;
                let path = documents::uri_path(&doc.uri);
                self.documents.open(doc.uri, doc.text, doc.version);
                Recheck::Reaching(vec![path])
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidChangeTextDocumentParams>(params) else { return Recheck::Nothing };
                // Full sync: the last change holds the whole text.
                let Some(change) = p.content_changes.into_iter().rev().find(|c| c.range.is_none()) else {
                    return Recheck::Nothing;
                };
                let uri = p.text_document.uri;
                self.documents.change(&uri, change.text, p.text_document.version);
                Recheck::Reaching(vec![documents::uri_path(&uri)])
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidCloseTextDocumentParams>(params) else { return Recheck::Nothing };
                let uri = p.text_document.uri;
                self.documents.close(&uri);
                // The file is read from the disk again by the documents that extend it.
                Recheck::Reaching(vec![documents::uri_path(&uri)])
            }
            // A saved file may be the base of another open document.
            DidSaveTextDocument::METHOD => Recheck::All,
            _ => Recheck::Nothing,
        }
    }

    /// Compiles the open documents that `scope` asks for and returns the files whose
    /// diagnostics changed. A file's diagnostics are those of every open document whose chain
    /// reaches it, without repeats.
    fn recheck(&mut self, scope: &Recheck) -> Vec<PublishDiagnosticsParams> {
        let mut found = std::mem::take(&mut self.found);
        // Closed documents found nothing any more.
        for by_root in found.values_mut() {
            by_root.retain(|root, _| self.documents.get(root).is_some());
        }
        for uri in self.documents.uris() {
            let Some(doc) = self.documents.get(&uri) else { continue };
            let compiled_before = found.get(&uri).is_some_and(|by_root| by_root.contains_key(&uri));
            let stale = match scope {
                Recheck::Nothing => false,
                Recheck::All => true,
                Recheck::Reaching(changed) => {
                    !compiled_before
                        || changed.iter().any(|changed| documents::same_file(&doc.path, changed))
                        || doc.last_good.as_ref().is_none_or(|c| {
                            c.paths().iter().any(|p| changed.iter().any(|changed| documents::same_file(p, changed)))
                        })
                }
            };
            if !stale {
                continue;
            }
            let path = doc.path.clone();
            for by_root in found.values_mut() {
                by_root.remove(&uri);
            }
            if test_file::is_test_file(&uri) {
                let diagnostics = test_file::diagnostics(&doc.text, &path, &self.documents.loader());
                found.entry(uri.clone()).or_default().insert(uri.clone(), diagnostics);
                continue;
            }
            // One compilation gives the diagnostics and the chain of names (one parse per file,
            // and of the document itself only what changed since its last good parse).
            let previous = self.documents.get_mut(&uri).and_then(documents::Document::take_previous);
            let took = previous.is_some();
            let loader = self.documents.loader_remembering(path.clone(), previous);
            let checked = analysis::check(&loader, &path, |p| self.documents.uri_for(p));
            let leftover = loader.leftover();
            found.entry(uri.clone()).or_default().entry(uri.clone()).or_default();
            for (file, diagnostic) in checked.diagnostics {
                found.entry(file).or_default().entry(uri.clone()).or_default().push(diagnostic);
            }
            if let Some(doc) = self.documents.get_mut(&uri) {
                match checked.chain {
                    Some(chain) => doc.last_good = Some(chain),
                    None if took => doc.give_back(leftover),
                    None => {}
                }
            }
        }
        found.retain(|_, by_root| !by_root.is_empty());
        let mut files: Vec<Url> = self.published.keys().cloned().collect();
        files.extend(found.keys().cloned());
        files.sort();
        files.dedup();
        let mut out = Vec::new();
        for file in files {
            let merged = capped(merge_found(found.get(&file)));
            if self.published.get(&file) == Some(&merged) {
                continue;
            }
            let version = self.documents.get(&file).map(|d| d.version);
            if merged.is_empty() && !found.contains_key(&file) {
                self.published.remove(&file);
            } else {
                self.published.insert(file.clone(), merged.clone());
            }
            out.push(PublishDiagnosticsParams { uri: file, diagnostics: merged, version });
        }
        self.found = found;
        out
    }
}

/// The diagnostics each open document's compilation found in one file, without repeats, in the
/// order found. Repeats are looked for only among diagnostics that start at the same place, so
/// thousands of them cost no quadratic search.
fn merge_found(by_root: Option<&BTreeMap<Url, Vec<lsp_types::Diagnostic>>>) -> Vec<lsp_types::Diagnostic> {
    let mut merged: Vec<lsp_types::Diagnostic> = Vec::new();
    let mut at: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for diagnostic in by_root.into_iter().flat_map(|by_root| by_root.values().flatten()) {
        let start = (diagnostic.range.start.line, diagnostic.range.start.character);
        let same_start = at.entry(start).or_default();
        if !same_start.iter().any(|&i| merged[i] == *diagnostic) {
            same_start.push(merged.len());
            merged.push(diagnostic.clone());
        }
    }
    merged
}

/// At most [`MAX_DIAGNOSTICS`] of a file's diagnostics, errors first, kept in their order; when
/// some are cut, a last information note at the top of the file says how many.
fn capped(diagnostics: Vec<lsp_types::Diagnostic>) -> Vec<lsp_types::Diagnostic> {
    if diagnostics.len() <= MAX_DIAGNOSTICS {
        return diagnostics;
    }
    let cut = diagnostics.len() - MAX_DIAGNOSTICS;
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    order.sort_by_key(|&i| (diagnostics[i].severity != Some(lsp_types::DiagnosticSeverity::ERROR), i));
    order.truncate(MAX_DIAGNOSTICS);
    order.sort_unstable();
    let mut kept: Vec<lsp_types::Diagnostic> = Vec::with_capacity(MAX_DIAGNOSTICS + 1);
    let mut order = order.into_iter().peekable();
    for (i, diagnostic) in diagnostics.into_iter().enumerate() {
        if order.peek() == Some(&i) {
            order.next();
            kept.push(diagnostic);
        }
    }
    kept.push(lsp_types::Diagnostic {
        range: lsp_types::Range::default(),
        severity: Some(lsp_types::DiagnosticSeverity::INFORMATION),
        source: Some("tempo".to_string()),
        message: format!(
            "{cut} more diagnostics in this file are not shown: the editor gets at most {MAX_DIAGNOSTICS} per file \
             (errors first); `tempo check` prints them all"
        ),
        ..lsp_types::Diagnostic::default()
    });
    kept
}

/// Which open documents must be compiled again after notifications.
enum Recheck {
    Nothing,
    /// Those whose chain of files includes one of these (and any not compiled yet).
    Reaching(Vec<PathBuf>),
    All,
}

impl Recheck {
    /// What both ask for.
    fn and(self, other: Recheck) -> Recheck {
        match (self, other) {
            (Recheck::All, _) | (_, Recheck::All) => Recheck::All,
            (Recheck::Nothing, other) | (other, Recheck::Nothing) => other,
            (Recheck::Reaching(mut paths), Recheck::Reaching(more)) => {
                for path in more {
                    if !paths.contains(&path) {
                        paths.push(path);
                    }
                }
                Recheck::Reaching(paths)
            }
        }
    }
}

/// The debug builds' `tempo/debugPanic`: unwinds as a panic does, through the same
/// `catch_unwind`, but without the panic hook, whose message and backtrace on stderr would make
/// `cargo test`'s output look like a failure when the tests make this panic on purpose.
fn deliberate_panic() -> ! {
    panic::resume_unwind(Box::new("a deliberate panic for the tests"))
}

/// Runs a request handler; a panic in it becomes an `InternalError` reply.
fn guarded(id: RequestId, method: &str, handler: impl FnOnce() -> Result<Value, RequestError>) -> Response {
    match panic::catch_unwind(AssertUnwindSafe(handler)) {
        Ok(Ok(value)) => Response::new_ok(id, value),
        Ok(Err(e)) => Response::new_err(id, e.code as i32, e.message),
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("tempo lsp: internal error in `{method}`: {why}"),
            )
        }
    }
}

fn parse<P: DeserializeOwned>(params: Value) -> Result<P, RequestError> {
    serde_json::from_value(params).map_err(|e| RequestError::invalid(format!("bad parameters: {e}")))
}

fn reply(result: impl serde::Serialize) -> Result<Value, RequestError> {
    serde_json::to_value(result)
        .map_err(|e| RequestError { code: ErrorCode::InternalError, message: format!("cannot write the reply: {e}") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame(body: &str) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body.as_bytes());
        out
    }

    /// The messages in framed output, parsed back.
    fn replies(output: &[u8]) -> Vec<Value> {
        let mut reader = FrameReader::new(output);
        let mut out = Vec::new();
        while let Frame::Body(body) = reader.next_frame() {
            out.push(serde_json::from_slice(&body).expect("the server writes JSON"));
        }
        out
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#;

    #[test]
    fn serve_bytes_answers_bad_input_and_follows_the_lifecycle() {
        let mut input = frame(r#"{"jsonrpc":"2.0","id":0,"method":"textDocument/hover","params":{}}"#);
        input.extend(frame(INIT));
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#));
        input.extend(frame("{not json"));
        input.extend(frame(r#"{"jsonrpc":"2.0","id":2,"method":"m","params":"\ud800"}"#));
        input.extend(frame(r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}"#));
        input.extend(frame(r#"{"jsonrpc":"2.0","id":4,"method":"shutdown"}"#));
        input.extend(frame(r#"{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{}}"#));
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
        input.extend(frame(r#"{"jsonrpc":"2.0","id":6,"method":"never/read"}"#));
        let served = serve_bytes(&input);
        assert!(served.result.is_ok(), "{:?}", served.result);
        let got: Vec<(Value, Value)> =
            replies(&served.output).iter().map(|r| (r["id"].clone(), r["error"]["code"].clone())).collect();
        let want = [(0, -32002), (1, 0), (-1, -32700), (2, -32600), (3, -32600), (4, 0), (5, -32600)].map(
            |(id, code): (i64, i64)| {
                let id = if id < 0 { Value::Null } else { id.into() };
                let code = if code == 0 { Value::Null } else { code.into() };
                (id, code)
            },
        );
        assert_eq!(got, want);
    }

    #[test]
    fn serve_bytes_ends_badly_without_shutdown() {
        assert!(serve_bytes(b"").result.is_err());
        let mut input = frame(INIT);
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
        assert!(serve_bytes(&input).result.is_err());
        // The input ending after `shutdown` is as good as `exit`.
        let mut input = frame(INIT);
        input.extend(frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#));
        assert!(serve_bytes(&input).result.is_ok());
    }

    /// Pieces a client might send, good and bad, joined in any order.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        let framed = prop::sample::select(vec![
            INIT,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:a","languageId":"tempo","version":1,"text":"ruleset a\npool ap { max 3 }\n"}}}"#,
            r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"untitled:a","version":2},"contentChanges":[{"text":"ruleset a {"}]}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"untitled:a"},"position":{"line":1,"character":5}}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"x","params":{"s":"\udc00"}}"#,
            "{not json",
            "[]",
        ])
        .prop_map(frame);
        prop_oneof![
            4 => framed,
            1 => prop::collection::vec(any::<u8>(), 0..64),
            1 => prop::sample::select(vec![
                b"Content-Length: 99999999999\r\n\r\n".to_vec(),
                b"Content-Type: x\r\n\r\n".to_vec(),
                b"Content-Length: -1\r\n\r\n".to_vec(),
                b"\r\n".to_vec(),
            ]),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_input_is_served_without_panicking_and_every_reply_is_framed_json(
            pieces in prop::collection::vec(piece(), 0..12)
        ) {
            let served = serve_bytes(&pieces.concat());
            let mut reader = FrameReader::new(served.output.as_slice());
            loop {
                match reader.next_frame() {
                    Frame::Body(body) => prop_assert!(serde_json::from_slice::<Value>(&body).is_ok()),
                    Frame::Refused(why) => prop_assert!(false, "the server wrote a bad frame: {}", why),
                    Frame::End(_) => break,
                }
            }
        }
    }

    #[test]
    fn a_panicking_handler_is_an_internal_error_reply() {
        let hook = panic::take_hook();
        panic::set_hook(Box::new(|_| {}));
        let response = guarded(RequestId::from(7), "textDocument/hover", || panic!("boom"));
        panic::set_hook(hook);
        let Err(error) = response.response_result else { panic!("an error reply") };
        assert_eq!(error.code, ErrorCode::InternalError as i32);
        assert!(error.message.contains("boom"), "{}", error.message);
    }
}
