//! What hovering over a word shows: the declaration of the name (its first line, its doc comment
//! or its cheat-sheet entry, and the files that declare it) or, for a word of the language, its
//! meaning. Markdown, as the language server's hover and the browser playground show it.

use super::{words, Chain, Declaration, Kind};
use std::ops::Range;
use std::path::Path;

/// The declarations in `chain` of the name `word` written at byte `start` of the file at `path`
/// (whose text is `text`), base first: where the compiler read the word as one kind of thing (a
/// pool, not the condition of the same name), only the declarations of that kind.
pub(crate) fn declarations_at(chain: &Chain, path: &Path, text: &str, start: usize, word: &str) -> Vec<Declaration> {
    let all: Vec<Declaration> = chain.declarations().into_iter().filter(|d| d.name == word).collect();
    match chain.kind_at(path, text, start) {
        Some(k) if all.iter().any(|d| d.kind.name_kind() == Some(k)) => {
            all.into_iter().filter(|d| d.kind.name_kind() == Some(k)).collect()
        }
        _ => all,
    }
}

/// The hover of the word at byte `offset` of the file at `path` whose text is `text`, with the
/// word's byte range; `chain` is that file's chain, when it parsed. `None` where the word is
/// neither declared nor the language's own.
pub fn hover(chain: Option<&Chain>, path: &Path, text: &str, offset: usize) -> Option<(String, Range<usize>)> {
    let word = words::word_at(text, offset)?;
    let declarations = chain.map(|c| declarations_at(c, path, text, word.start, word.text)).unwrap_or_default();
    let value = match (chain, declarations.last()) {
        (Some(chain), Some(last)) => declared(chain, &declarations, last),
        _ => language_word(word.text)?,
    };
    Some((value, word.start..word.end))
}

fn declared(chain: &Chain, declarations: &[Declaration], last: &Declaration) -> String {
    let mut value = format!("```tempo\n{}\n```\n\n", last.header);
    // A pool or an action: the cheat sheet's entry (`tempo doc`), which holds its doc.
    let sheet_kind = match last.kind {
        Kind::Pool => Some("pool"),
        Kind::Action(_) => Some("action"),
        _ => None,
    };
    let entry = sheet_kind.and_then(|kind| crate::doc::entry(&chain.sources, &chain.files, kind, &last.name));
    if let Some(entry) = &entry {
        value.push_str(&crate::doc::markdown::entry(entry));
        value.push('\n');
    }
    value.push_str(last.kind.word());
    let file_name = |d: &Declaration| {
        chain.path(d.span.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    };
    value.push_str(&format!(" declared in `{}`", file_name(&declarations[0])));
    if declarations.len() > 1 {
        value.push_str(&format!(", overridden in `{}`", file_name(last)));
    }
    if entry.is_none() {
        if let Some(doc) = declarations.iter().rev().find_map(|d| d.doc.as_ref()) {
            value.push_str("\n\n");
            value.push_str(doc);
        }
    }
    value
}

/// A built-in name's or a keyword's meaning.
fn language_word(word: &str) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    if let Some(meaning) = words::builtin(word) {
        lines.push(format!("`{word}` (built in): {meaning}"));
    }
    let docs = words::keyword_docs(word);
    if !docs.is_empty() {
        lines.push(format!("`{word}` (keyword):"));
        lines.push(docs.iter().map(|d| format!("- {d}")).collect::<Vec<_>>().join("\n"));
    }
    (!lines.is_empty()).then(|| lines.join("\n\n"))
}
