//! Hover, go to definition, find references and rename: the word under the cursor, matched
//! against the names declared in the file's chain (its bases included).

use super::analysis::{Chain, Declaration};
use super::documents::{Document, Documents};
use super::{position, words, RequestError};
use crate::check::NameKind;
use crate::source::{FileId, SourceMap};
use lsp_types::{
    DocumentChanges, GotoDefinitionResponse, Hover, HoverContents, Location, MarkupContent, MarkupKind, OneOf,
    OptionalVersionedTextDocumentIdentifier, Position, PrepareRenameResponse, Range, TextDocumentEdit, TextEdit, Url,
    WorkspaceEdit,
};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// An open document's text in a source map of its own, for converting positions.
pub struct Text {
    pub sources: SourceMap,
    pub file: FileId,
}

impl Text {
    pub fn new(text: &str) -> Text {
        let mut sources = SourceMap::new();
        let file = sources.add("", text);
        Text { sources, file }
    }

    pub fn text(&self) -> &str {
        self.sources.text(self.file)
    }

    pub fn offset(&self, at: Position) -> usize {
        position::offset(&self.sources, self.file, at)
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(
            position::position(&self.sources, self.file, start),
            position::position(&self.sources, self.file, end),
        )
    }
}

/// The chain of an open document: the last one that parsed, which the server keeps current (it is
/// loaded again whenever a file in it changes); loaded now if there is none.
pub fn chain<'a>(documents: &Documents, doc: &'a Document) -> Option<Cow<'a, Chain>> {
    match &doc.last_good {
        Some(chain) => Some(Cow::Borrowed(chain)),
        None => Chain::load(&documents.loader(), &doc.path).map(Cow::Owned),
    }
}

/// What the cursor is on: the word, and the declarations of that name in scope.
struct Target<'a> {
    word: String,
    range: Range,
    chain: Option<Cow<'a, Chain>>,
    declarations: Vec<Declaration>,
}

fn target<'a>(documents: &'a Documents, uri: &Url, at: Position) -> Result<Option<Target<'a>>, RequestError> {
    let doc = documents.get(uri).ok_or_else(|| RequestError::invalid(format!("`{uri}` is not open")))?;
    let text = Text::new(&doc.text);
    let Some(word) = words::word_at(text.text(), text.offset(at)) else { return Ok(None) };
    let chain = chain(documents, doc);
    let declarations = match &chain {
        Some(chain) => crate::names::declarations_at(chain, &doc.path, &doc.text, word.start, word.text),
        None => Vec::new(),
    };
    Ok(Some(Target { word: word.text.to_string(), range: text.range(word.start, word.end), chain, declarations }))
}

fn location(documents: &Documents, chain: &Chain, span: crate::source::Span) -> Option<Location> {
    let uri = documents.uri_for(&chain.path(span.file))?;
    Some(Location::new(uri, position::range(&chain.sources, span)))
}

pub fn hover(documents: &Documents, uri: &Url, at: Position) -> Result<Option<Hover>, RequestError> {
    let doc = documents.get(uri).ok_or_else(|| RequestError::invalid(format!("`{uri}` is not open")))?;
    let text = Text::new(&doc.text);
    let chain = chain(documents, doc);
    let Some((value, word)) = crate::names::hover(chain.as_deref(), &doc.path, &doc.text, text.offset(at)) else {
        return Ok(None);
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }),
        range: Some(text.range(word.start, word.end)),
    }))
}

pub fn definition(
    documents: &Documents,
    uri: &Url,
    at: Position,
) -> Result<Option<GotoDefinitionResponse>, RequestError> {
    let doc = documents.get(uri).ok_or_else(|| RequestError::invalid(format!("`{uri}` is not open")))?;
    // On the path of `extends "base.rules"`: the base file.
    if let Some(chain) = chain(documents, doc) {
        let offset = position::offset(&chain.sources, chain.root().map(|r| r.file).unwrap_or_default(), at);
        if let (Some(root), [.., base, _]) = (chain.root(), chain.files.as_slice()) {
            if root.extends.as_ref().is_some_and(|(_, span)| span.range().contains(&offset)) {
                let Some(uri) = documents.uri_for(&chain.path(base.file)) else { return Ok(None) };
                let start = Position::new(0, 0);
                return Ok(Some(GotoDefinitionResponse::Scalar(Location::new(uri, Range::new(start, start)))));
            }
        }
    }
    let Some(target) = target(documents, uri, at)? else { return Ok(None) };
    let Some(chain) = &target.chain else { return Ok(None) };
    let found: Vec<Location> =
        target.declarations.iter().filter_map(|d| location(documents, chain, d.name_span)).collect();
    Ok(match found.len() {
        0 => None,
        1 => found.into_iter().next().map(GotoDefinitionResponse::Scalar),
        _ => Some(GotoDefinitionResponse::Array(found)),
    })
}

pub fn references(
    documents: &Documents,
    uri: &Url,
    at: Position,
    include_declaration: bool,
) -> Result<Option<Vec<Location>>, RequestError> {
    let Some(target) = target(documents, uri, at)? else { return Ok(None) };
    let Some(chain) = &target.chain else { return Ok(None) };
    if target.declarations.is_empty() {
        return Ok(None);
    }
    let declared_at: Vec<Location> =
        target.declarations.iter().filter_map(|d| location(documents, chain, d.name_span)).collect();
    let mut found = occurrences(documents, chain, &target);
    if !include_declaration {
        found.retain(|l| !declared_at.contains(l));
    }
    Ok(Some(found))
}

/// Checks that the cursor is on a name this ruleset declares, and gives the range to rename.
pub(crate) fn prepare_rename(
    documents: &Documents,
    uri: &Url,
    at: Position,
) -> Result<Option<PrepareRenameResponse>, RequestError> {
    let target = renamable(documents, uri, at)?;
    Ok(Some(PrepareRenameResponse::Range(target.range)))
}

/// The edits of a rename, file by file in the order found. As `documentChanges` (ordered, with the
/// open documents' versions) when the client supports them, else as the `changes` map.
pub fn rename(
    documents: &Documents,
    uri: &Url,
    at: Position,
    new_name: &str,
    document_changes: bool,
) -> Result<WorkspaceEdit, RequestError> {
    let target = renamable(documents, uri, at)?;
    if !words::is_name(new_name) {
        return Err(RequestError::failed(format!(
            "`{new_name}` is not a name: use letters, digits and `_`, not starting with a digit"
        )));
    }
    if words::is_keyword(new_name) || words::builtin(new_name).is_some() {
        return Err(RequestError::failed(format!("`{new_name}` is a keyword or a built-in name; choose another")));
    }
    let Some(chain) = &target.chain else { return Err(RequestError::failed("the ruleset could not be read".into())) };
    if let Some(clash) = chain.declarations().iter().find(|d| d.name == new_name) {
        return Err(RequestError::failed(format!("`{new_name}` already names a {}", clash.kind.word())));
    }
    let mut by_file: Vec<(Url, Vec<TextEdit>)> = Vec::new();
    for location in occurrences(documents, chain, &target) {
        let edit = TextEdit::new(location.range, new_name.to_string());
        match by_file.iter_mut().find(|(uri, _)| *uri == location.uri) {
            Some((_, edits)) => edits.push(edit),
            None => by_file.push((location.uri, vec![edit])),
        }
    }
    if !document_changes {
        let changes: HashMap<Url, Vec<TextEdit>> = by_file.into_iter().collect();
        return Ok(WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() });
    }
    let edits = by_file
        .into_iter()
        .map(|(uri, edits)| {
            let version = documents.get(&uri).map(|d| d.version);
            TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            }
        })
        .collect();
    Ok(WorkspaceEdit { document_changes: Some(DocumentChanges::Edits(edits)), ..WorkspaceEdit::default() })
}

fn renamable<'a>(documents: &'a Documents, uri: &Url, at: Position) -> Result<Target<'a>, RequestError> {
    let Some(target) = target(documents, uri, at)? else {
        return Err(RequestError::failed("there is no name here to rename".into()));
    };
    if target.declarations.is_empty() {
        let what = if words::is_keyword(&target.word) {
            "a keyword"
        } else if words::builtin(&target.word).is_some() {
            "a built-in name"
        } else {
            "not a name this ruleset declares"
        };
        return Err(RequestError::failed(format!("`{}` cannot be renamed: it is {what}", target.word)));
    }
    Ok(target)
}

/// Every place the target's name is written: in the files of this chain from the first one
/// that declares it, and in every other ruleset (open, or a `.rules` file beside a declaring
/// file) whose chain includes a declaring file. Texts are read as the editor has them.
fn occurrences(documents: &Documents, chain: &Chain, target: &Target<'_>) -> Vec<Location> {
    let declaring: Vec<PathBuf> = target.declarations.iter().map(|d| chain.path(d.span.file)).collect();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut add_chain = |chain: &Chain| {
        let paths = chain.paths();
        if let Some(first) = paths.iter().position(|p| declaring.contains(p)) {
            for path in &paths[first..] {
                if !files.contains(path) {
                    files.push(path.clone());
                }
            }
        }
    };
    add_chain(chain);
    let mut candidates: Vec<PathBuf> = documents.iter().map(|d| d.path.clone()).collect();
    for folder in declaring.iter().filter_map(|p| p.parent()) {
        candidates.extend(rules_files_in(folder));
    }
    // The chains seen, compiled: they know which words are the language's own.
    let mut seen: Vec<Cow<'_, Chain>> = vec![Cow::Borrowed(chain)];
    for candidate in candidates {
        let candidate_chain = match documents.at_path(&candidate) {
            Some(doc) => self::chain(documents, doc),
            None => Chain::compiled(&documents.loader(), &candidate).map(Cow::Owned),
        };
        if let Some(c) = candidate_chain {
            add_chain(&c);
            seen.push(Cow::Owned(c.into_owned()));
        }
    }
    // The kinds of thing the target is; a place the compiler read (or a declaration) as another
    // kind is another name that happens to be written the same.
    let kinds: Vec<NameKind> = target.declarations.iter().filter_map(|d| d.kind.name_kind()).collect();
    let mut out = Vec::new();
    for path in files {
        let (Some(text), Some(uri)) = (documents.text_of(&path), documents.uri_for(&path)) else { continue };
        let view = Text::new(&text);
        let known: Vec<(usize, NameKind)> = seen.iter().flat_map(|c| c.kinds_in(&path, &text)).collect();
        for token in words::tokens(&text).into_iter().filter(|t| t.text == target.word) {
            if seen.iter().any(|c| c.is_option_word(&path, &text, token.start)) {
                continue;
            }
            let other = known.iter().any(|(at, k)| *at == token.start && !kinds.contains(k));
            let mine = known.iter().any(|(at, k)| *at == token.start && kinds.contains(k));
            if other && !mine {
                continue;
            }
            out.push(Location::new(uri.clone(), view.range(token.start, token.end)));
        }
    }
    out
}

/// The `.rules` files directly in a folder, sorted (at most 200, to bound the work).
fn rules_files_in(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rules") && p.is_file())
        .take(200)
        .collect();
    out.sort();
    out
}
