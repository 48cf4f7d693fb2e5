//! The outline of a file: its top-level declarations, with the phases of its round inside.

use super::analysis::trimmed;
use super::documents::Documents;
use super::navigate::chain;
use super::{position, RequestError};
use crate::source::{SourceMap, Span};
use crate::syntax::{self, ast, ast::Decl};
use lsp_types::{DocumentSymbol, SymbolKind, Url};

pub fn document_symbols(documents: &Documents, uri: &Url) -> Result<Vec<DocumentSymbol>, RequestError> {
    let doc = documents.get(uri).ok_or_else(|| RequestError::invalid(format!("`{uri}` is not open")))?;
    // The file alone parsed now; else the last chain that parsed, whose last file is this one.
    let mut sources = SourceMap::new();
    let id = sources.add("", doc.text.clone());
    let (tree, _) = syntax::parse(id, &doc.text);
    let (sources, tree) = match tree {
        Some(tree) => (sources, tree),
        None => match chain(documents, doc) {
            Some(chain) => match chain.root() {
                Some(root) => (chain.sources.clone(), root.clone()),
                None => return Ok(Vec::new()),
            },
            None => return Ok(Vec::new()),
        },
    };
    Ok(tree.items.iter().map(|item| symbol(&sources, item)).collect())
}

fn symbol(sources: &SourceMap, item: &ast::Item) -> DocumentSymbol {
    let text = sources.text(item.span.file);
    let named = |name: &ast::Ident, kind: SymbolKind, detail: &str| {
        (name.name.to_string(), Some(name.span), kind, Some(detail.to_string()))
    };
    let (name, selection, kind, detail) = match &item.decl {
        Decl::Stat { name, .. } => named(name, SymbolKind::CONSTANT, "stat"),
        Decl::Derive { name, .. } => named(name, SymbolKind::PROPERTY, "derive"),
        Decl::Category { name, .. } => named(name, SymbolKind::ENUM, "category"),
        Decl::Event { name, .. } => named(name, SymbolKind::EVENT, "event"),
        Decl::Pool(p) => named(&p.name, SymbolKind::VARIABLE, "pool"),
        Decl::Condition(c) => named(&c.name, SymbolKind::ENUM_MEMBER, "condition"),
        Decl::Action(a) => named(&a.name, SymbolKind::FUNCTION, a.kind.word()),
        Decl::Trigger(t) => named(&t.name, SymbolKind::FUNCTION, "trigger"),
        Decl::Rest { name, .. } => named(name, SymbolKind::FUNCTION, "rest"),
        Decl::Outro { name, .. } => named(name, SymbolKind::FUNCTION, "outro"),
        Decl::Effect { name, .. } => named(name, SymbolKind::FUNCTION, "effect"),
        Decl::Degrees(d) => named(&d.name, SymbolKind::ENUM, "degrees"),
        Decl::Object { name, .. } => named(name, SymbolKind::STRUCT, "object"),
        Decl::Die { name, .. } => named(name, SymbolKind::ENUM, "die"),
        Decl::Terrain(t) => named(&t.name, SymbolKind::ENUM, "terrain"),
        Decl::Hook(h) if h.name.is_some() => match &h.name {
            Some(name) => named(name, SymbolKind::FUNCTION, "hook"),
            None => (first_word(text, item.span), None, SymbolKind::FUNCTION, None),
        },
        Decl::Downtime { name: Some(name), .. } => named(name, SymbolKind::FUNCTION, "downtime"),
        Decl::Initiative(_) | Decl::Round(_) => (first_word(text, item.span), None, SymbolKind::NAMESPACE, None),
        _ => (first_line(text, item.span), None, SymbolKind::KEY, None),
    };
    let children = match &item.decl {
        Decl::Round(phases) => Some(
            phases
                .iter()
                .map(|phase| {
                    make(
                        sources,
                        phase.name.name.to_string(),
                        Some("phase".into()),
                        SymbolKind::MODULE,
                        phase.span,
                        phase.name.span,
                        None,
                    )
                })
                .collect(),
        ),
        _ => None,
    };
    let detail = match (detail, item.is_override) {
        (Some(d), true) => Some(format!("override {d}")),
        (d, _) => d,
    };
    make(sources, name, detail, kind, item.span, selection.unwrap_or(item.span), children)
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written, though it is deprecated.
fn make(
    sources: &SourceMap,
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    span: Span,
    selection: Span,
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    DocumentSymbol {
        name: if name.is_empty() { "?".to_string() } else { name },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: position::range(sources, trimmed(sources.text(span.file), span)),
        selection_range: position::range(sources, selection),
        children,
    }
}

fn first_word(text: &str, span: Span) -> String {
    text.get(span.range()).unwrap_or("").split_whitespace().next().unwrap_or("").trim_end_matches('{').to_string()
}

fn first_line(text: &str, span: Span) -> String {
    let line = text.get(span.range()).unwrap_or("").lines().next().unwrap_or("").trim();
    line.strip_suffix('{').unwrap_or(line).trim_end().chars().take(80).collect()
}
