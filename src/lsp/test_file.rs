//! Test files (`*.test.ron`, docs/testing.md) in the editor: what `tempo test` would find wrong
//! before playing anything. A file that is not valid RON (at the error's place), a ruleset or
//! scenario file that cannot be read or does not compile (at its path), and a scenario that does
//! not fit the ruleset (at the name that does not fit).

use super::navigate::Text;
use crate::check::{compile_with, Loader};
use crate::diagnostics::Code;
use crate::testing::file::{self, TestFile};
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Url};
use std::path::Path;

/// Whether the editor's document is a test file.
pub(crate) fn is_test_file(uri: &Url) -> bool {
    uri.path().ends_with(file::SUFFIX)
}

/// The problems of the test file `text` at `path`, its ruleset read through `loader` (open
/// documents as the editor has them).
pub fn diagnostics(text: &str, path: &Path, loader: &dyn Loader) -> Vec<Diagnostic> {
    let view = Text::new(text);
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let test: TestFile = match options.from_str(body) {
        Ok(test) => test,
        Err(e) => {
            let start = bom + offset_of(body, e.span.start.line, e.span.start.col);
            let end = (bom + offset_of(body, e.span.end.line, e.span.end.col)).max(start);
            let end = if end == start { next_char(text, start) } else { end };
            let message = format!("not a valid test file: {}", e.code);
            return vec![diagnostic(&view, (start, end), message, Code::BadScenario)];
        }
    };
    let mut out = Vec::new();
    let rules_path = file::beside(path, &test.ruleset);
    let at_ruleset = string_at(text, &test.ruleset).unwrap_or((0, 0));
    let compilation = compile_with(loader, &rules_path);
    if compilation.unreadable {
        let message = format!("cannot read the ruleset `{}`", rules_path.display());
        out.push(diagnostic(&view, at_ruleset, message, Code::UnreadableFile));
        return out;
    }
    let has_errors = compilation.has_errors();
    let Some(ruleset) = compilation.ruleset.filter(|_| !has_errors) else {
        let first = compilation.diagnostics.iter().find(|d| d.is_error());
        let (message, code) = match first {
            Some(d) => (format!("the ruleset `{}` does not compile: {}", rules_path.display(), d.message), d.code),
            None => (format!("the ruleset `{}` does not compile", rules_path.display()), Code::BadScenario),
        };
        out.push(diagnostic(&view, at_ruleset, message, code));
        return out;
    };
    let scenario = match file::scenario_of(&test, path, None) {
        Ok(s) => s,
        Err(message) => {
            let at = test.scenario_file.as_deref().and_then(|f| string_at(text, f)).unwrap_or((0, 0));
            out.push(diagnostic(&view, at, message, Code::BadScenario));
            return out;
        }
    };
    if let Err(problems) = crate::run::scenario::resolve(&scenario, &ruleset) {
        // Inline, each problem at the value at fault; from a file, at the file's name.
        use crate::run::scenario::Seg;
        let fallback = match &test.scenario_file {
            Some(f) => string_at(text, f),
            None => key_at(text, "scenario"),
        }
        .unwrap_or((0, 0));
        for problem in problems {
            let at = match &test.scenario_file {
                None => {
                    let path: Vec<Seg> =
                        std::iter::once(Seg::Field("scenario")).chain(problem.at.iter().cloned()).collect();
                    crate::run::scenario::span_of(text, &path).unwrap_or(fallback)
                }
                Some(_) => fallback,
            };
            out.push(diagnostic(
                &view,
                at,
                format!("the scenario does not fit the ruleset: {problem}"),
                Code::BadScenario,
            ));
        }
    }
    out
}

fn diagnostic(view: &Text, (start, end): (usize, usize), message: String, code: Code) -> Diagnostic {
    Diagnostic {
        range: view.range(start, end),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(code.name())),
        source: Some("tempo".into()),
        message,
        ..Diagnostic::default()
    }
}

/// The byte offset of a 1-based line and character column, clamped into the text.
fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_text = &text[start..text[start..].find('\n').map_or(text.len(), |i| start + i)];
    start + line_text.char_indices().nth(col.saturating_sub(1)).map_or(line_text.len(), |(i, _)| i)
}

fn next_char(text: &str, at: usize) -> usize {
    text[at.min(text.len())..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// Where the string literal `"value"` is first written (its quotes included).
fn string_at(text: &str, value: &str) -> Option<(usize, usize)> {
    let needle = format!("\"{value}\"");
    text.find(&needle).map(|i| (i, i + needle.len()))
}

/// Where the field `key:` is written.
fn key_at(text: &str, key: &str) -> Option<(usize, usize)> {
    let needle = format!("{key}:");
    text.find(&needle).map(|i| (i, i + key.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_become_offsets() {
        let text = "ab\ncdé\nf";
        assert_eq!(offset_of(text, 1, 1), 0);
        assert_eq!(offset_of(text, 2, 3), 5);
        assert_eq!(offset_of(text, 3, 1), 8);
        assert_eq!(offset_of(text, 9, 9), text.len());
    }
}
