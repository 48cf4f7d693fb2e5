//! Diagnostics are plain data: a code, a severity, a message, labelled spans and help.
//! They become text in exactly one place (`render`) for the terminal, JSON and the editor.

mod codes;
pub mod render;

pub use codes::Code;

use crate::source::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A span with what to say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    /// Where the problem is. Always present: a file that could not be read gets an empty span.
    pub primary: Label,
    /// Other places involved, such as the first definition of a duplicate.
    pub secondary: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, span, message)
    }

    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, span, message)
    }

    fn new(severity: Severity, code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            primary: Label { span, message: String::new() },
            secondary: Vec::new(),
            help: None,
        }
    }

    /// The text under the primary span.
    pub fn label(mut self, text: impl Into<String>) -> Diagnostic {
        self.primary.message = text.into();
        self
    }

    pub(crate) fn with_secondary(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label { span, message: text.into() });
        self
    }

    pub fn help(mut self, text: impl Into<String>) -> Diagnostic {
        self.help = Some(text.into());
        self
    }

    /// Sets the help unless a did-you-mean already filled it.
    pub(crate) fn or_help(self, text: impl Into<String>) -> Diagnostic {
        if self.help.is_some() {
            self
        } else {
            self.help(text)
        }
    }

    /// Adds "did you mean `x`?" when a candidate is close enough.
    pub(crate) fn suggest<'a>(self, name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Diagnostic {
        match did_you_mean(name, candidates) {
            Some(best) => self.help(format!("did you mean `{best}`?")),
            None => self,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The candidate the name most likely meant, if one is close enough to be a likely slip.
/// Ranked first by the words (split at `_`) it shares with the name, a word and its synonym
/// counting as shared, then by Jaro-Winkler similarity (which weighs a shared prefix): edit
/// distance alone ranks `turn_end` above `turn_start` for `turn_begin`, though the designer
/// plainly meant the start.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut best: Option<((usize, f64), &str)> = None;
    for candidate in candidates {
        if candidate == name {
            continue;
        }
        if !SUGGESTION_BUDGET.with(|b| b.get().checked_sub(1).map(|left| b.set(left)).is_some()) {
            return None;
        }
        let score = strsim::jaro_winkler(name, candidate);
        let shared = shared_words(name, candidate);
        let same_words = shared > 0 && shared == words(name).count() && shared == words(candidate).count();
        let close = same_words || score >= 0.8 || strsim::levenshtein(name, candidate) <= 1 + name.len() / 4;
        let key = (shared, score);
        if close && best.is_none_or(|(b, c)| key > b || (key == b && candidate < c)) {
            best = Some((key, candidate));
        }
    }
    best.map(|(_, c)| c.to_string())
}

/// Words a designer writes for one the language spells otherwise: each with the language's word.
const SYNONYMS: &[(&str, &str)] = &[
    ("begin", "start"),
    ("beginning", "start"),
    ("begins", "start"),
    ("starts", "start"),
    ("finish", "end"),
    ("finished", "end"),
    ("ends", "end"),
    ("ending", "end"),
];

/// The `_`-separated words of a name, each as the language spells it.
fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| SYNONYMS.iter().find(|(said, _)| *said == w).map_or(w, |(_, meant)| *meant))
}

/// How many words two multi-word names share; 0 for a single word, which shares nothing but
/// itself, so a plain typo is ranked by similarity alone.
fn shared_words(a: &str, b: &str) -> usize {
    if !a.contains('_') && !b.contains('_') {
        return 0;
    }
    let theirs: Vec<&str> = words(b).collect();
    words(a).filter(|w| theirs.contains(w)).count()
}

/// Name comparisons `did_you_mean` may still make on this thread before the next
/// [`reset_suggestions`]. Each suggestion compares the name with every known one, so a file with
/// thousands of unknown names among thousands of declarations would take quadratic time; past
/// the budget (a second or so of comparisons) the remaining diagnostics come without a
/// suggestion, in the same order every time.
pub(crate) const SUGGESTION_COMPARISONS: u64 = 2_000_000;

thread_local! {
    static SUGGESTION_BUDGET: std::cell::Cell<u64> = const { std::cell::Cell::new(SUGGESTION_COMPARISONS) };
}

/// Gives this thread a full budget of suggestions: called once per compilation.
pub fn reset_suggestions() {
    SUGGESTION_BUDGET.with(|b| b.set(SUGGESTION_COMPARISONS));
}

/// Errors first, then by file and position, so output is stable whatever order checks ran in.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| (d.primary.span.file, d.primary.span.start, d.severity, d.code));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(did_you_mean("apx", ["ap", "mp", "energy"]).as_deref(), Some("ap"));
        assert_eq!(did_you_mean("fatige", ["fatigue", "wounds"]).as_deref(), Some("fatigue"));
        assert_eq!(did_you_mean("zzzzzz", ["ap", "mp"]), None);
    }

    #[test]
    fn ranks_shared_words_and_synonyms_above_edit_distance() {
        let timings = ["encounter_start", "encounter_end", "round_start", "round_end", "turn_start", "turn_end"];
        assert_eq!(did_you_mean("turn_begin", timings).as_deref(), Some("turn_start"));
        assert_eq!(did_you_mean("round_finish", timings).as_deref(), Some("round_end"));
        assert_eq!(did_you_mean("turn_strat", timings).as_deref(), Some("turn_start"));
        assert_eq!(did_you_mean("begin_turn", timings).as_deref(), Some("turn_start"));
    }
}
