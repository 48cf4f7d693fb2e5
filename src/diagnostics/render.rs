//! The one place diagnostics become text: miette for people, JSON for scripts.

use super::{Diagnostic, Label, Severity};
use crate::source::{FileId, SourceMap};
use codespan_reporting::files::Files;
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, SourceSpan, SpanContents,
};
use serde::Serialize;
use std::fmt;

/// A diagnostic in the shape miette wants. Labels in other files than the primary one become
/// related reports, because one miette report shows one source.
#[derive(Debug)]
struct Report {
    message: String,
    code: String,
    severity: miette::Severity,
    help: Option<String>,
    source: Excerpt,
    labels: Vec<LabeledSpan>,
    related: Vec<Report>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        if self.code.is_empty() {
            None
        } else {
            Some(Box::new(&self.code))
        }
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|r| r as &dyn miette::Diagnostic)))
        }
    }
}

fn labeled(label: &Label, span: (usize, usize), primary: bool) -> LabeledSpan {
    let text = (!label.message.is_empty()).then(|| label.message.clone());
    if primary {
        LabeledSpan::new_primary_with_span(text, span)
    } else {
        LabeledSpan::new_with_span(text, span)
    }
}

/// Lines of context kept around the labelled lines (miette shows one).
const CONTEXT_LINES: usize = 2;
/// Longest excerpt shown whole; past it (a very long line), only the primary label's line is
/// shown, cut to [`SIDE`] bytes either side of the label.
const MAX_EXCERPT: usize = 2048;
const SIDE: usize = 60;
const ELLIPSIS: &str = "…";

/// The part of a file a report shows: the labelled lines with a little context, never the whole
/// file. Handing miette the whole text made each report scan (and copy) the file from its start,
/// so thousands of diagnostics took quadratic time; and a line of tens of thousands of characters
/// is cut around its label. Offsets stay the file's own: `base` maps them into `text`.
#[derive(Debug)]
struct Excerpt {
    name: String,
    text: String,
    /// The file offset that `text`'s offset 0 stands for.
    base: usize,
    /// The file's line index of `text`'s first line.
    first_line: usize,
    /// Bytes of the first line left out before `text` (counting the ellipsis in their place).
    first_column: usize,
}

impl miette::SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let start = span.offset().checked_sub(self.base).ok_or(MietteError::OutOfBounds)?;
        let len = span.len().min(self.text.len().saturating_sub(start));
        let inner = self.text.as_str().read_span(&SourceSpan::new(start.into(), len), before, after)?;
        let line = inner.line();
        let column = if line == 0 { inner.column() + self.first_column } else { inner.column() };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + self.base).into(), inner.span().len()),
            line + self.first_line,
            column,
            inner.line_count(),
        )))
    }
}

/// The excerpt of `file` for labels at `spans` (byte offset and length, the primary first, all
/// inside the file), and which of the labels it shows.
fn excerpt(sources: &SourceMap, file: FileId, spans: &[(usize, usize)]) -> (Excerpt, Vec<bool>) {
    let text = sources.text(file);
    let name = sources.name(file).to_string();
    let line_of = |offset: usize| sources.line_index(file, offset.min(text.len())).unwrap_or(0);
    let line_range = |line: usize| sources.line_range(file, line).unwrap_or(0..text.len());
    let last_line = line_of(text.len());
    let first = spans.iter().map(|s| line_of(s.0)).min().unwrap_or(0).saturating_sub(CONTEXT_LINES);
    let last = (spans.iter().map(|s| line_of(s.0 + s.1)).max().unwrap_or(0) + CONTEXT_LINES).min(last_line);
    let (start, end) = (line_range(first).start, line_range(last).end);
    if end - start <= MAX_EXCERPT {
        let excerpt =
            Excerpt { name, text: text[start..end].to_string(), base: start, first_line: first, first_column: 0 };
        return (excerpt, vec![true; spans.len()]);
    }
    // Too long to show whole: the primary label's line only, cut around the label.
    let (at, len) = spans.first().copied().unwrap_or((0, 0));
    let line = line_of(at);
    let whole = line_range(line);
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let from = floor(at.saturating_sub(SIDE).max(whole.start));
    let label_end = floor((at + len).min(whole.end).min(at + MAX_EXCERPT));
    let to = floor(label_end.saturating_add(SIDE).min(whole.end));
    let cut_left = from > whole.start;
    let mut shown = String::new();
    if cut_left {
        shown.push_str(ELLIPSIS);
    }
    shown.push_str(text[from..to].trim_end_matches(['\n', '\r']));
    if !text[to..whole.end].trim_end().is_empty() {
        shown.push_str(ELLIPSIS);
    }
    // The ellipsis stands in the place of the bytes just before `from` (there are at least
    // `SIDE` of them when the line is cut on the left).
    let base = if cut_left { from - ELLIPSIS.len() } else { from };
    let first_column = if cut_left { from - whole.start - ELLIPSIS.len() } else { 0 };
    let mut fits: Vec<bool> = spans.iter().map(|&(s, l)| s >= from && s + l <= to).collect();
    if let Some(primary) = fits.first_mut() {
        // The primary label is always shown, cut to what is shown of it.
        *primary = true;
    }
    (Excerpt { name, text: shown, base, first_line: line, first_column }, fits)
}

fn to_report(d: &Diagnostic, sources: &SourceMap) -> Report {
    let file = d.primary.span.file;
    let clamp = |span: crate::source::Span| {
        let len = sources.text(span.file).len();
        let start = (span.start as usize).min(len);
        (start, span.len().min(len - start))
    };
    let mut here = vec![(&d.primary, true)];
    let mut related = Vec::new();
    for label in &d.secondary {
        if label.span.file == file {
            here.push((label, false));
        } else {
            let span = clamp(label.span);
            let (source, _) = excerpt(sources, label.span.file, &[span]);
            let end = (span.0 + span.1).min(source.base + source.text.len()).max(span.0);
            related.push(Report {
                message: label.message.clone(),
                code: String::new(),
                severity: miette::Severity::Advice,
                help: None,
                source,
                labels: vec![labeled(
                    &Label { span: label.span, message: String::new() },
                    (span.0, end - span.0),
                    true,
                )],
                related: Vec::new(),
            });
        }
    }
    let spans: Vec<(usize, usize)> = here.iter().map(|(l, _)| clamp(l.span)).collect();
    let (source, fits) = excerpt(sources, file, &spans);
    let shown_end = source.base + source.text.len();
    let labels = here
        .iter()
        .zip(&spans)
        .zip(&fits)
        .filter(|(_, fits)| **fits)
        .map(|(((label, primary), span), _)| {
            // A label longer than what is shown of its line is cut to the shown part.
            let end = (span.0 + span.1).min(shown_end).max(span.0);
            labeled(label, (span.0, end - span.0), *primary)
        })
        .collect();
    Report {
        message: d.message.clone(),
        code: d.code.name(),
        severity: match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        },
        help: d.help.clone(),
        source,
        labels,
        related,
    }
}

/// How to draw diagnostics for a person.
#[derive(Debug, Clone, Copy)]
pub struct TextStyle {
    pub color: bool,
    pub width: usize,
}

/// Renders diagnostics for the terminal, each followed by a blank line.
pub fn to_text(diagnostics: &[Diagnostic], sources: &SourceMap, style: TextStyle) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    let mut out = String::new();
    for d in diagnostics {
        let report = to_report(d, sources);
        if handler.render_report(&mut out, &report).is_err() {
            // Rendering into a String only fails if a Display impl fails; fall back to one line.
            out.push_str(&format!("{}: {} [{}]\n", d.severity.word(), d.message, d.code.name()));
        }
        out.push('\n');
    }
    out
}

/// Where a diagnostic or one of its related places is, as JSON shows it.
#[derive(Debug, Serialize)]
pub struct JsonPlace {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub offset: usize,
    pub length: usize,
}

/// One diagnostic as `check --format json` prints it (see contracts.md); the place's fields sit
/// between `message` and `help`, as the contract orders them.
#[derive(Debug, Serialize)]
pub struct JsonDiagnostic {
    pub severity: &'static str,
    pub code: String,
    pub message: String,
    #[serde(flatten)]
    pub place: JsonPlace,
    pub help: Option<String>,
    pub related: Vec<JsonRelated>,
}

/// Another place a diagnostic involves.
#[derive(Debug, Serialize)]
pub struct JsonRelated {
    pub message: String,
    #[serde(flatten)]
    pub place: JsonPlace,
}

#[derive(Debug, Serialize)]
pub struct JsonDocument {
    pub diagnostics: Vec<JsonDiagnostic>,
}

fn place(label: &Label, sources: &SourceMap) -> JsonPlace {
    let span = label.span;
    let start = sources.line_col(span.file, span.start as usize);
    let end = sources.line_col(span.file, span.end as usize);
    JsonPlace {
        file: sources.name(span.file).to_string(),
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        offset: span.start as usize,
        length: span.len(),
    }
}

pub fn to_json_value(d: &Diagnostic, sources: &SourceMap) -> JsonDiagnostic {
    JsonDiagnostic {
        severity: d.severity.word(),
        code: d.code.name(),
        message: d.message.clone(),
        place: place(&d.primary, sources),
        help: d.help.clone(),
        related: d
            .secondary
            .iter()
            .map(|l| JsonRelated { message: l.message.clone(), place: place(l, sources) })
            .collect(),
    }
}

/// The whole JSON document, pretty-printed.
pub fn to_json(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    let doc = JsonDocument { diagnostics: diagnostics.iter().map(|d| to_json_value(d, sources)).collect() };
    // Serializing plain strings and integers cannot fail.
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| String::from("{\"diagnostics\": []}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;
    use crate::source::Span;

    /// A report carries a few lines of its file, not the whole file: with the whole text, each of
    /// thousands of diagnostics copied and scanned it (quadratic time).
    #[test]
    fn a_report_holds_an_excerpt_not_the_file() {
        let mut sources = SourceMap::new();
        let text: String = (0..100_000).map(|i| format!("stat s{i} = {i}\n")).collect();
        let at = text.find("stat s50000 ").expect("line");
        let id = sources.add("big.rules", text);
        let d = Diagnostic::error(Code::UnknownName, Span::new(id, at + 5, at + 11), "here").label("this");
        let report = to_report(&d, &sources);
        assert!(report.source.text.len() < 200, "{} bytes", report.source.text.len());
        let shown = to_text(&[d], &sources, TextStyle { color: false, width: 80 });
        assert!(shown.contains("[big.rules:50001:6]") && shown.contains("50001 │ stat s50000 = 50000"), "{shown}");
    }
}

/// A note for people: a message and, where it is known, the place in a source it points at
/// (`tempo why` shows each cause of an event so).
#[derive(Debug, Clone)]
pub(crate) struct Note {
    pub message: String,
    pub place: Option<Label>,
}

/// Renders notes as miette advice, each with its excerpt (a note without a place is its
/// message alone), each followed by a blank line.
pub(crate) fn notes_to_text(notes: &[Note], sources: &SourceMap, style: TextStyle) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    let mut out = String::new();
    for note in notes {
        let (source, labels) = match &note.place {
            Some(label) => {
                let len = sources.text(label.span.file).len();
                let start = (label.span.start as usize).min(len);
                let span = (start, label.span.len().min(len - start));
                let (source, _) = excerpt(sources, label.span.file, &[span]);
                let end = (span.0 + span.1).min(source.base + source.text.len()).max(span.0);
                (source, vec![labeled(label, (span.0, end - span.0), true)])
            }
            None => {
                let source =
                    Excerpt { name: String::new(), text: String::new(), base: 0, first_line: 0, first_column: 0 };
                (source, Vec::new())
            }
        };
        let report = Report {
            message: note.message.clone(),
            code: String::new(),
            severity: miette::Severity::Advice,
            help: None,
            source,
            labels,
            related: Vec::new(),
        };
        if handler.render_report(&mut out, &report).is_err() {
            out.push_str(&note.message);
            out.push('\n');
        }
        out.push('\n');
    }
    out
}
