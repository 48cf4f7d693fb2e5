//! The language server: `tempo lsp` speaks the Language Server Protocol over a connection the
//! binary gives it (stdio). Built on `lsp-server` (the scaffold rust-analyzer uses): messages are
//! handled one at a time, in the order they came, on one thread.
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
use std::collections::BTreeMap;
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
    for message in &connection.receiver {
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
                for publish in server.notification(notification) {
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

    /// Applies a notification; returns the diagnostics to publish.
    fn notification(&mut self, notification: Notification) -> Vec<PublishDiagnosticsParams> {
        let method = notification.method.clone();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| self.apply(notification)));
        match outcome {
            Ok(Recheck::Nothing) => Vec::new(),
            Ok(scope) => panic::catch_unwind(AssertUnwindSafe(|| self.recheck(&scope))).unwrap_or_default(),
            Err(_) => {
                eprintln!("tempo lsp: internal error while handling `{method}`; the server goes on");
                Vec::new()
            }
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
                Recheck::Reaching(path)
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidChangeTextDocumentParams>(params) else { return Recheck::Nothing };
                // Full sync: the last change holds the whole text.
                let Some(change) = p.content_changes.into_iter().rev().find(|c| c.range.is_none()) else {
                    return Recheck::Nothing;
                };
                let uri = p.text_document.uri;
                self.documents.change(&uri, change.text, p.text_document.version);
                Recheck::Reaching(documents::uri_path(&uri))
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = parse::<lsp_types::DidCloseTextDocumentParams>(params) else { return Recheck::Nothing };
                let uri = p.text_document.uri;
                self.documents.close(&uri);
                // The file is read from the disk again by the documents that extend it.
                Recheck::Reaching(documents::uri_path(&uri))
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
                        || documents::same_file(&doc.path, changed)
                        || doc
                            .last_good
                            .as_ref()
                            .is_none_or(|c| c.paths().iter().any(|p| documents::same_file(p, changed)))
                }
            };
            if !stale {
                continue;
            }
            let path = doc.path.clone();
            for by_root in found.values_mut() {
                by_root.remove(&uri);
            }
            let compilation = crate::check::compile_with(&self.documents.loader(), &path);
            found.entry(uri.clone()).or_default().entry(uri.clone()).or_default();
            for (file, diagnostic) in analysis::diagnostics(&compilation, |p| self.documents.uri_for(p)) {
                found.entry(file).or_default().entry(uri.clone()).or_default().push(diagnostic);
            }
            if let Some(chain) = analysis::Chain::load(&self.documents.loader(), &path) {
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
            let mut merged: Vec<lsp_types::Diagnostic> = Vec::new();
            for diagnostic in found.get(&file).into_iter().flat_map(|by_root| by_root.values().flatten()) {
                if !merged.contains(diagnostic) {
                    merged.push(diagnostic.clone());
                }
            }
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

/// Which open documents must be compiled again after a notification.
enum Recheck {
    Nothing,
    /// Those whose chain of files includes this one (and any not compiled yet).
    Reaching(PathBuf),
    All,
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
