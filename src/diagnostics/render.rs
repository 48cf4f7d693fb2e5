//! The one place diagnostics become text: miette for people, JSON for scripts.

use super::{Diagnostic, Label, Severity};
use crate::source::{FileId, SourceMap};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
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
    source: NamedSource<String>,
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

fn labeled(label: &Label, primary: bool) -> LabeledSpan {
    let text = (!label.message.is_empty()).then(|| label.message.clone());
    let span = (label.span.start as usize, label.span.len());
    if primary {
        LabeledSpan::new_primary_with_span(text, span)
    } else {
        LabeledSpan::new_with_span(text, span)
    }
}

fn source_of(sources: &SourceMap, file: FileId) -> NamedSource<String> {
    NamedSource::new(sources.name(file), sources.text(file).to_string())
}

fn to_report(d: &Diagnostic, sources: &SourceMap) -> Report {
    let file = d.primary.span.file;
    let mut labels = vec![labeled(&d.primary, true)];
    let mut related = Vec::new();
    for label in &d.secondary {
        if label.span.file == file {
            labels.push(labeled(label, false));
        } else {
            related.push(Report {
                message: label.message.clone(),
                code: String::new(),
                severity: miette::Severity::Advice,
                help: None,
                source: source_of(sources, label.span.file),
                labels: vec![labeled(&Label { span: label.span, message: String::new() }, true)],
                related: Vec::new(),
            });
        }
    }
    Report {
        message: d.message.clone(),
        code: d.code.name(),
        severity: match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        },
        help: d.help.clone(),
        source: source_of(sources, file),
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
