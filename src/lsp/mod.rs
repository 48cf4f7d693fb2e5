//! The language server: `tempo lsp` speaks the Language Server Protocol over a connection the
//! binary gives it ([`stdio`]). Built on `lsp-server` (the scaffold rust-analyzer uses): messages
//! are handled one at a time, in the order they came, on one thread. Notifications already
//! waiting when one is handled are applied together and checked once (edits coalesce: only the
//! latest text is compiled and published), and at most [`MAX_DIAGNOSTICS`] are sent per file.
//!
//! Invariants: the server re-checks every open document with the compiler itself
//! (`check::compile_with` over [`documents::Overlay`]), so the editor shows exactly what
//! `tempo check` prints; a panic in a handler becomes an error reply, not a dead server; nothing
//! the client sends is trusted (bad parameters are an error reply, positions are clamped).

mod analysis;
mod complete;
mod documents;
mod format;
mod navigate;
mod position;
mod symbols;
mod words;

use documents::Documents;
use lsp_server::{Connection, ErrorCode, Message, Notification, ProtocolError, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
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
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

/// Why a request got an error reply.
#[derive(Debug)]
pub struct RequestError {
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

impl From<ProtocolError> for ServeError {
    fn from(e: ProtocolError) -> ServeError {
        ServeError(e.to_string())
    }
}

/// Most diagnostics published for one file. Past that, the first `MAX_DIAGNOSTICS` (errors
/// before warnings, in file order) are sent, then one information note at the top of the file
/// that says how many more were cut: a ruleset with thousands of problems would otherwise send
/// the editor megabytes on every keystroke. `tempo check` prints them all.
pub const MAX_DIAGNOSTICS: usize = 200;

/// The stdio connection for `tempo lsp`, with an unbounded queue in front of the server: the
/// reader thread reads and parses messages while the server is busy, so edits that arrive during
/// a check are waiting in the queue when it ends and coalesce (`Connection::stdio` alone hands
/// messages over one at a time and keeps the rest in the pipe).
pub fn stdio() -> (Connection, lsp_server::IoThreads) {
    let (stdio, io_threads) = Connection::stdio();
    // A memory pair is an unbounded channel each way; only one direction is used.
    let (queue_in, queue_out) = Connection::memory();
    let Connection { sender: to_client, receiver: from_client } = stdio;
    std::thread::spawn(move || {
        for message in from_client {
            if queue_in.sender.send(message).is_err() {
                break;
            }
        }
    });
    (Connection { sender: to_client, receiver: queue_out.receiver }, io_threads)
}

/// Serves one client until it asks to shut down and exit (`Ok`); an `exit` without `shutdown`, or
/// the connection closing, is an error (the binary exits with 1, as the protocol says).
pub fn serve(connection: &Connection) -> Result<(), ServeError> {
    let initialize = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo { name: "tempo".to_string(), version: Some(env!("CARGO_PKG_VERSION").to_string()) },
    });
    let (id, params) = connection.initialize_start()?;
    connection.initialize_finish(id, initialize)?;
    let mut server = Server::default();
    // What the client can take; anything unreadable counts as "no".
    let client = serde_json::from_value::<lsp_types::InitializeParams>(params).ok();
    let workspace_edit = client.and_then(|c| c.capabilities.workspace).and_then(|w| w.workspace_edit);
    server.document_changes = workspace_edit.and_then(|w| w.document_changes).unwrap_or(false);
    // A message taken from the queue while gathering notifications, to handle next.
    let mut next: Option<Message> = None;
    loop {
        let message = match next.take() {
            Some(message) => message,
            None => match connection.receiver.recv() {
                Ok(message) => message,
                Err(_) => break,
            },
        };
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                let response = server.request(request);
                send(connection, Message::Response(response))?;
            }
            Message::Notification(notification) => {
                if notification.method == "exit" {
                    return Err(ServeError("the client sent `exit` before `shutdown`".to_string()));
                }
                // Every notification already waiting is applied before one check, so a burst of
                // edits is compiled and published once, for the latest text. A request (or
                // `exit`) ends the gathering and is handled after it, so a request is still
                // answered only after every notification sent before it has been applied.
                let mut batch = vec![notification];
                while let Ok(waiting) = connection.receiver.try_recv() {
                    match waiting {
                        Message::Notification(n) if n.method != "exit" => batch.push(n),
                        other => {
                            next = Some(other);
                            break;
                        }
                    }
                }
                for publish in server.notifications(batch) {
                    let message = Notification::new(PublishDiagnostics::METHOD.to_string(), publish);
                    send(connection, Message::Notification(message))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Err(ServeError("the client closed the connection without `shutdown`".to_string()))
}

fn send(connection: &Connection, message: Message) -> Result<(), ServeError> {
    connection.sender.send(message).map_err(|_| ServeError("the connection to the client closed".to_string()))
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
}

impl Server {
    fn request(&self, request: Request) -> Response {
        let Request { id, method, params } = request;
        let documents = &self.documents;
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
            #[cfg(debug_assertions)]
            "tempo/debugPanic" => panic!("a deliberate panic for the tests"),
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
                Err(_) => eprintln!("tempo lsp: internal error while handling `{method}`; the server goes on"),
            }
        }
        match scope {
            Recheck::Nothing => Vec::new(),
            scope => panic::catch_unwind(AssertUnwindSafe(|| self.recheck(&scope))).unwrap_or_else(|_| {
                eprintln!("tempo lsp: internal error while checking the open documents; the server goes on");
                Vec::new()
            }),
        }
    }

    /// Changes the open documents, and says which must be compiled again.
    fn apply(&mut self, notification: Notification) -> Recheck {
        let Notification { method, params } = notification;
        match method.as_str() {
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
            // One compilation gives the diagnostics and the chain of names (one parse per file).
            let checked = analysis::check(&self.documents.loader(), &path, |p| self.documents.uri_for(p));
            found.entry(uri.clone()).or_default().entry(uri.clone()).or_default();
            for (file, diagnostic) in checked.diagnostics {
                found.entry(file).or_default().entry(uri.clone()).or_default().push(diagnostic);
            }
            if let Some(chain) = checked.chain {
                if let Some(doc) = self.documents.get_mut(&uri) {
                    doc.last_good = Some(chain);
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
