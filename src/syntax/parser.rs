//! pest pairs → syntax tree, one function per grammar rule. `Pair` and `Rule` stay in here and
//! in its children: `layout`, which turns the same pairs into tokens for the formatter, and
//! `expected`, which puts the rules a syntax error expected into words.

mod comments;
mod expected;
mod layout;
mod piles;
pub(crate) use layout::tokens;

use super::ast::*;
use super::shift::Shift;
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span};
use pest::iterators::Pair;
use pest::Parser as _;
use std::iter::Peekable;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/tempo.pest"]
pub(crate) struct RulesParser;

type P<'i> = Pair<'i, Rule>;
type R<T> = Result<T, Box<Diagnostic>>;
/// The byte range of the pairs an expression was built from.
type Extent = (usize, usize);

/// Deepest expression tree accepted: an operator chain counts one level per operator.
pub(crate) const MAX_EXPR_DEPTH: u32 = 256;

struct Builder {
    file: FileId,
    /// Where the text pest was given starts in the file: pair offsets are relative to it.
    base: usize,
}

/// Children of a pair (comments make none: the grammar skips them as blanks).
fn kids<'i>(pair: &P<'i>) -> impl Iterator<Item = P<'i>> {
    pair.clone().into_inner()
}

pub(crate) fn parse_file(file: FileId, text: &str) -> Result<File, Vec<Diagnostic>> {
    // Any problem, a syntax error or one the builder finds, is found again by the whole-file
    // parse, so a file that does not parse gets exactly the diagnostic it always got.
    parse_by_items(file, text).or_else(|_| parse_whole(file, text))
}

/// Most syntax errors reported for one file.
const MAX_SYNTAX_ERRORS: usize = 20;

/// The first syntax error (`first`, from the whole-file parse), then one for each later part of
/// the file that does not parse either: after each error, parsing starts again at the next line
/// that begins, in its first column, with a declaration's first word, and goes to the end.
fn syntax_errors(file: FileId, text: &str, first: Failure) -> Vec<Diagnostic> {
    let mut at = error_at(&first.e);
    let mut out = vec![syntax_error(file, text, first)];
    let starts = expected::declaration_keywords();
    while out.len() < MAX_SYNTAX_ERRORS {
        let Some(resume) = next_declaration(text, at, &starts) else { break };
        let Err(mut failure) = parse_worded(Rule::file_tail, text.get(resume..).unwrap_or("")) else { break };
        failure.e.location = match failure.e.location {
            pest::error::InputLocation::Pos(p) => pest::error::InputLocation::Pos(p + resume),
            pest::error::InputLocation::Span((s, t)) => pest::error::InputLocation::Span((s + resume, t + resume)),
        };
        at = error_at(&failure.e).max(resume + 1);
        let d = syntax_error(file, text, *failure);
        if !out.iter().any(|o| o.primary.span == d.primary.span && o.message == d.message) {
            out.push(d);
        }
    }
    out
}

/// A syntax error, and what the text around it says about its words (all worked out on the text
/// that was parsed, so the error may then be moved to where that text starts in the file).
pub(super) struct Failure {
    pub(super) e: pest::error::Error<Rule>,
    /// The error is where a blank ended ([`blank_end`]): the operators that could continue an
    /// expression are not named as expected there.
    at_blank_end: bool,
    /// The marks (`{`, `=`, ...) wanted there ([`wanted_marks`]), for when no rule was.
    marks: Option<String>,
}

/// Parses `text` as `rule`; on a syntax error, parses it again with pest's detail on and places
/// the error where parsing got furthest ([`placed`]).
pub(super) fn parse_worded(rule: Rule, text: &str) -> Result<pest::iterators::Pairs<'_, Rule>, Box<Failure>> {
    RulesParser::parse(rule, text).map_err(|_| Box::new(placed(detailed(rule, text), text)))
}

/// The error of parsing `text` as `rule` with pest's detail on: it then records every literal
/// tried, not only rules (three times the work, so only to word an error). The switch is global;
/// a count keeps it on while any such parse runs, and parses elsewhere meanwhile only go slower.
fn detailed(rule: Rule, text: &str) -> pest::error::Error<Rule> {
    static RUNNING: std::sync::Mutex<usize> = std::sync::Mutex::new(0);
    let switch = |by: isize| {
        let mut running = RUNNING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *running = running.saturating_add_signed(by);
        pest::set_error_detail(*running > 0);
    };
    switch(1);
    let result = RulesParser::parse(rule, text);
    switch(-1);
    match result {
        Err(e) => e,
        Ok(_) => pest::error::Error::new_from_pos(
            pest::error::ErrorVariant::CustomError { message: "the text parsed the second time".to_string() },
            pest::Position::from_start(text),
        ),
    }
}

/// pest places an error where the last rule was tried. Before comments were blanks, the comment
/// rule was tried after every blank, so an error was placed where parsing got furthest even when
/// only a mark (`{`, `=`, `:`) was wanted there, under the word after a missing `{`; and since
/// that rule was among the ones expected there, the operators that could continue an expression
/// were never the only thing named. Both are kept: where a mark was tried further than any rule
/// ([`blank_end`]), the error is placed there with no rule expected, and the marks are named.
fn placed(mut e: pest::error::Error<Rule>, text: &str) -> Failure {
    let Some(furthest) = blank_end(&e, text) else { return Failure { e, at_blank_end: false, marks: None } };
    let at = error_at(&e);
    if furthest > at && matches!(e.variant, pest::error::ErrorVariant::ParsingError { .. }) {
        e.variant = pest::error::ErrorVariant::ParsingError { positives: Vec::new(), negatives: Vec::new() };
        e.location = pest::error::InputLocation::Pos(furthest);
        if let Some(place) = pest::Position::new(text, furthest) {
            e.line_col = pest::error::LineColLocation::Pos(place.line_col());
        }
    } else if furthest != at {
        return Failure { e, at_blank_end: false, marks: None };
    }
    let marks = wanted_marks(&e);
    Failure { e, at_blank_end: true, marks }
}

/// Where parsing got furthest, when the comment rule would have been tried there: outside a
/// word, before no blank and outside quoted text (elsewhere only a token's own characters were
/// tried). Known only for an error parsed with pest's detail on ([`detailed`]).
fn blank_end(e: &pest::error::Error<Rule>, text: &str) -> Option<usize> {
    let furthest = e.parse_attempts()?.max_position;
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let before = text.get(..furthest).and_then(|t| t.chars().next_back());
    let after = text.get(furthest..).and_then(|t| t.chars().next());
    let blank = after.is_some_and(char::is_whitespace);
    let mid_word = word(before) && word(after);
    (!(blank || mid_word || in_quotes(text, furthest))).then_some(furthest)
}

/// The marks (`{`, `=`, `:`, ...) pest tried where parsing got furthest, when the error was
/// parsed with detail on: where no rule was wanted, the mark is what is missing ("expected `{`,
/// found `value`"). Letters, digits, `_` and ranges are left out: there they are a name's own
/// characters, tried to see whether the name went on, or the blanks.
fn wanted_marks(e: &pest::error::Error<Rule>) -> Option<String> {
    let marks: Vec<String> = e
        .parse_attempts()?
        .expected_tokens()
        .into_iter()
        .map(|t| t.to_string())
        // pest shows a literal as itself and a range as `a..b` (the grammar has no `..`): only
        // literals are kept, and of those only marks.
        .filter(|t| {
            !t.is_empty()
                && !t.contains("..")
                && !t.chars().any(|c| c.is_alphanumeric() || c == '_' || c.is_whitespace())
        })
        .filter(|t| !expected::OPERATOR_MARKS.contains(&t.as_str()))
        .map(|t| format!("`{t}`"))
        .collect();
    match marks.split_last()? {
        (last, []) => Some(last.clone()),
        (last, rest) => Some(format!("{} or {last}", rest.join(", "))),
    }
}

/// Whether byte `at` is inside quoted text opened earlier on its line.
fn in_quotes(text: &str, at: usize) -> bool {
    let Some(before) = text.get(..at) else { return false };
    let line = &before[before.rfind(['\n', '\r']).map_or(0, |n| n + 1)..];
    let mut quoted = false;
    let mut bytes = line.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' if quoted => {
                bytes.next();
            }
            b'"' => quoted = !quoted,
            b'#' if !quoted => return false,
            _ => {}
        }
    }
    quoted
}

fn error_at(e: &pest::error::Error<Rule>) -> usize {
    match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    }
}

/// The first line at or after byte `at` that starts with one of `words` (a declaration's first
/// word) followed by something that cannot continue a name.
fn next_declaration(text: &str, at: usize, words: &[&str]) -> Option<usize> {
    let mut line = match text.get(..at)?.rfind('\n') {
        Some(n) if n + 1 == at => at,
        _ if at == 0 => 0,
        _ => at + text.get(at..)?.find('\n')? + 1,
    };
    while line < text.len() {
        let rest = &text[line..];
        let starts = words.iter().any(|w| {
            rest.strip_prefix(w).is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        });
        if starts {
            return Some(line);
        }
        line += rest.find('\n')? + 1;
    }
    None
}

/// Parses the header (`file_head`), then one item at a time (`file_step`) until the end,
/// building each item's tree before pest reads the next. Says the same as `file` (`SOI ~ header
/// ~ ";"? ~ (item ~ ";"?)* ~ EOI`), but pest's queue of tokens (40 bytes each, two per pair)
/// holds one item instead of the whole file: peak memory follows the largest item, not the file.
fn parse_by_items(file: FileId, text: &str) -> R<File> {
    let mut comments: Vec<Comment> = Vec::new();
    comments::scan(file, text, 0, text.len(), &mut comments);
    comments.shrink_to_fit();
    let mut items = Vec::new();
    let b = Builder { file, base: 0 };
    let pairs = RulesParser::parse(Rule::file_head, text).map_err(|_| b.internal(0, "not a file head"))?;
    let Some(head) = pairs.clone().next() else {
        return Err(b.internal(0, "the parser returned nothing"));
    };
    let mut at = b.span(&head).end as usize;
    let (name, extends) = b.header(&head)?;
    loop {
        let rest = text.get(at..).unwrap_or("");
        let b = Builder { file, base: at };
        let pairs = RulesParser::parse(Rule::file_step, rest).map_err(|_| b.internal(0, "not an item"))?;
        let Some(step) = pairs.clone().next() else {
            return Err(b.internal(0, "the parser returned nothing"));
        };
        let mut done = true;
        for pair in kids(&step) {
            match pair.as_rule() {
                Rule::item => {
                    let mut item = b.item(pair)?;
                    item.doc = doc_above(text, &comments, item.span.start as usize).map(Into::into);
                    items.push(item);
                    done = false;
                }
                Rule::EOI => done = true,
                _ => {}
            }
        }
        if done {
            break;
        }
        let end = b.span(&step).end as usize;
        if end <= at {
            return Err(b.internal(at, "an item that took no text"));
        }
        at = end;
    }
    Ok(File { file, name, extends, items, comments })
}

/// The whole file in one parse: what [`parse_by_items`] falls back to when anything is wrong,
/// so that errors are found and worded as the grammar's `file` rule finds them.
fn parse_whole(file: FileId, text: &str) -> Result<File, Vec<Diagnostic>> {
    let pairs = parse_worded(Rule::file, text).map_err(|e| syntax_errors(file, text, *e))?;
    build_whole(file, text, pairs).map_err(|d| vec![*d])
}

fn build_whole(file: FileId, text: &str, pairs: pest::iterators::Pairs<Rule>) -> R<File> {
    let b = Builder { file, base: 0 };
    let Some(root) = pairs.clone().next() else {
        return Err(b.internal(0, "the parser returned nothing"));
    };
    let mut comments: Vec<Comment> = Vec::new();
    comments::scan(file, text, 0, text.len(), &mut comments);
    let mut it = kids(&root);
    let header = b.next(&mut it, &root)?;
    let (name, extends) = b.header(&header)?;
    let mut items = Vec::new();
    for pair in it {
        if pair.as_rule() == Rule::item {
            let mut item = b.item(pair)?;
            item.doc = doc_above(text, &comments, item.span.start as usize).map(Into::into);
            items.push(item);
        }
    }
    Ok(File { file, name, extends, items, comments })
}

/// What a file's last parse left: its text and the tree made from it.
pub struct Previous {
    pub text: String,
    pub tree: File,
}

/// Parses `text`, an edit of `previous.text`, reading again only the items around the change:
/// the items before it keep their trees, the items after it keep theirs with their spans moved.
/// The result is the tree [`parse_file`] makes of `text` (`tests/reparse.rs` compares the two
/// on many edits). Takes `previous` when it helped; leaves it when it cannot help (the edit
/// reaches the header or the first item, the file was parsed under another id, or the changed
/// part does not parse: a full parse then finds and words the error) and returns `None`.
pub(crate) fn parse_after_edit(file: FileId, text: &str, previous: &mut Option<Previous>) -> Option<File> {
    let old = previous.as_ref()?;
    if old.tree.file != file {
        return None;
    }
    if old.text == text {
        return previous.take().map(|p| p.tree);
    }
    let middle = reparse_middle(file, text, &old.text, &old.tree)?;
    let previous = previous.take()?;
    let delta = text.len() as i64 - previous.text.len() as i64;
    let File { name, extends, items: mut old_items, comments: mut old_comments, .. } = previous.tree;
    let mut after = match middle.rest {
        Some((index, _)) => old_items.split_off(index),
        None => Vec::new(),
    };
    old_items.truncate(middle.keep);
    for item in &mut after {
        item.shift(delta);
    }
    // Comments are in file order: those before `resume` stay, those from the old text's rest on
    // move; the ones between were collected again by the parse.
    let mut comments_after = match middle.rest {
        Some((_, old_rest)) => {
            old_comments.split_off(old_comments.partition_point(|c| (c.span.start as usize) < old_rest))
        }
        None => Vec::new(),
    };
    for c in &mut comments_after {
        c.span.shift(delta);
    }
    old_comments.truncate(old_comments.partition_point(|c| c.span.end as usize <= middle.resume));
    let mut comments = old_comments;
    comments.extend(middle.comments);
    comments.extend(comments_after);
    let mut items = old_items;
    let first_new = items.len();
    let new_items = middle.items.len();
    items.extend(middle.items);
    items.extend(after);
    // The new items' docs, and the first kept one's: an item's span runs on over the comments
    // after it, so the doc of the item after the last one parsed may be what was edited.
    for item in items.iter_mut().skip(first_new).take(new_items + 1) {
        item.doc = doc_above(text, &comments, item.span.start as usize).map(Into::into);
    }
    Some(File { file, name, extends, items, comments })
}

/// The items an edit touched, parsed again from the new text.
struct Middle {
    /// How many of the old items come first, unchanged.
    keep: usize,
    /// Where parsing started again (the end of the last kept item's step, in both texts).
    resume: usize,
    items: Vec<Item>,
    comments: Vec<Comment>,
    /// The first old item after the change that is kept, and where its step starts in the old
    /// text; `None` when the parse went on to the end of the file.
    rest: Option<(usize, usize)>,
}

fn reparse_middle(file: FileId, text: &str, old_text: &str, old: &File) -> Option<Middle> {
    let (old_bytes, new_bytes) = (old_text.as_bytes(), text.as_bytes());
    // Equal bytes before `prefix` and after the last `suffix` bytes of both texts. A byte is a
    // character boundary or not by itself, so both ends fall on boundaries in both texts.
    let mut prefix = old_bytes.iter().zip(new_bytes).take_while(|(a, b)| a == b).count();
    while !text.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = old_bytes.len().min(new_bytes.len()) - prefix;
    let mut suffix = old_bytes.iter().rev().zip(new_bytes.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
    while !text.is_char_boundary(text.len() - suffix) {
        suffix -= 1;
    }
    let delta = text.len() as i64 - old_text.len() as i64;
    let changed_end = text.len() - suffix;
    // The last item that ends before the change is parsed again too: pest may have looked a
    // token past an item's end to see that nothing continues it, and that token may be the
    // change. No item continues past a whole declaration, so the item before it is safe.
    let before = old.items.partition_point(|item| (item.span.end as usize) < prefix);
    let keep = before.checked_sub(1)?;
    let last_kept = old.items.get(keep.checked_sub(1)?)?;
    let resume = step_end(old_text, last_kept.span.end as usize);
    if resume >= prefix {
        return None;
    }
    let mut items = Vec::new();
    let mut at = resume;
    // The comments of the steps parsed again: from `resume` to the end of the last one.
    let comments_to = |end: usize| {
        let mut comments = Vec::new();
        comments::scan(file, text, resume, end, &mut comments);
        comments
    };
    loop {
        let b = Builder { file, base: at };
        let pairs = RulesParser::parse(Rule::file_step, text.get(at..)?).ok()?;
        let step = pairs.clone().next()?;
        let mut item_end = None;
        for pair in kids(&step) {
            if pair.as_rule() == Rule::item {
                let item = b.item(pair).ok()?;
                item_end = Some(item.span.end as usize);
                items.push(item);
            }
        }
        let end = b.span(&step).end as usize;
        let Some(item_end) = item_end else {
            return Some(Middle { keep, resume, items, comments: comments_to(end), rest: None });
        };
        if end <= at {
            return None;
        }
        if item_end >= changed_end {
            // The same item end in the old text, past the change: the old items after it were
            // parsed from text that is still there, unchanged.
            let old_end = usize::try_from(item_end as i64 - delta).ok()?;
            let j = old.items.partition_point(|item| (item.span.end as usize) < old_end);
            if old.items.get(j).is_some_and(|item| item.span.end as usize == old_end) {
                let old_rest = usize::try_from(end as i64 - delta).ok()?;
                return Some(Middle { keep, resume, items, comments: comments_to(end), rest: Some((j + 1, old_rest)) });
            }
        }
        at = end;
    }
}

/// Where the step of an item ending at `end` ends: `file_step` is `item ~ ";"?`, and pest skips
/// blanks and comments before the optional `;` whether or not one follows.
fn step_end(text: &str, end: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = end;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b' ' | b'\t' | b'\r' | b'\n' => at += 1,
            b'#' => {
                while bytes.get(at).is_some_and(|&b| b != b'\n' && b != b'\r') {
                    at += 1;
                }
            }
            b';' => return at + 1,
            _ => break,
        }
    }
    at
}

/// The `##` lines in the block of comment lines directly above `start` (no blank line or code
/// between). Plain `#` lines in that block are skipped, so a note between a doc and its
/// declaration does not cut the doc off.
fn doc_above(text: &str, comments: &[Comment], start: usize) -> Option<String> {
    let mut lines = Vec::new();
    let mut end = start;
    // Comments are in file order: the ones that end before `start` are a prefix, found by
    // binary search. Scanning from the last comment of the file made each declaration cost
    // the comments after it, quadratic in the file.
    let before = comments.partition_point(|c| (c.span.end as usize) <= start);
    for c in comments[..before].iter().rev() {
        let gap = text.get(c.span.end as usize..end).unwrap_or("x");
        if !gap.trim().is_empty() || gap.matches('\n').count() > 1 {
            break;
        }
        if c.doc {
            lines.push(c.text.trim_start_matches('#').trim().to_string());
        }
        end = c.span.start as usize;
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    Some(lines.join("\n"))
}

fn syntax_error(file: FileId, text: &str, failure: Failure) -> Diagnostic {
    let Failure { e, at_blank_end, marks } = failure;
    let at = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let found = token_at(text, at);
    let span = Span::new(file, at, at + found.len());
    let (message, label) = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            let mut wanted = expected::describe(positives, !at_blank_end);
            if wanted == expected::NOTHING_NAMED {
                wanted = marks.unwrap_or(wanted);
            }
            let got = if found.is_empty() { "the end of the file".to_string() } else { format!("`{found}`") };
            (format!("expected {wanted}, found {got}"), format!("expected {}", short(&wanted)))
        }
        pest::error::ErrorVariant::CustomError { message } => (message.clone(), String::new()),
    };
    let wants_assignment = message.contains("`+=`");
    let positives: &[Rule] = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => positives,
        pest::error::ErrorVariant::CustomError { .. } => &[],
    };
    // A declaration keyword where a block's clause was expected: a `{` before it was never
    // closed. The real place is that `{`, not the declaration that follows it.
    let top_level = positives.contains(&Rule::kw_pool);
    if !top_level && expected::declaration_keywords().contains(&found) {
        if let Some(open) = unclosed_brace(text, at) {
            return unclosed_error(file, text, open, Some((span, found)), at);
        }
    }
    // The file ended inside a block: when a `}` shows which inner block lost its `}`, say so.
    if found.is_empty() {
        if let Some(open) = unclosed_brace(text, at).filter(|&open| misplaced_close(text, open, at).is_some()) {
            return unclosed_error(file, text, open, None, at);
        }
    }
    // `cost 1` then `category move`: the unfinished clause took the next line's first word as
    // its name, and the parser stumbles only after it. The real place is the unfinished clause.
    if let Some((taken, line_span)) = taken_from_next_line(text, at) {
        let word = &text[taken.0..taken.1];
        // Only where a new clause could begin (the parser took the clause before as whole), so
        // the word that starts the line was meant to begin one.
        if expected::keywords(positives).contains(&word) {
            let clause = text[line_span.0..line_span.1].trim();
            let line = text[..line_span.0].matches('\n').count() + 1;
            return Diagnostic::error(
                Code::Syntax,
                Span::new(file, line_span.0, line_span.1),
                format!("the clause on line {line} (`{clause}`) is not finished"),
            )
            .label("unfinished")
            .with_secondary(Span::new(file, taken.0, taken.1), format!("so `{word}` was read as part of it"))
            .help(format!("finish `{clause}` (a cost names its pool: `cost 1 ap`), or end it with `;`"));
        }
    }
    let mut d = Diagnostic::error(Code::Syntax, span, message).label(label);
    let is_word = found.starts_with(|c: char| c.is_alphabetic() || c == '_');
    let suggestion = if is_word {
        crate::diagnostics::did_you_mean(found, expected::keywords(positives).iter().copied())
    } else {
        None
    };
    if let Some(word) = suggestion {
        d = d.help(format!("did you mean `{word}`?"));
    } else if at == 0 {
        d = d.help("a rules file starts with `ruleset NAME` (or `ruleset NAME extends \"base.rules\"`)");
    } else if found == "=" || found == "==" {
        d = d.help("pools change with `=`, `+=` or `-=` inside a block; comparisons use `==`");
    } else if found == "\"" {
        d = d.help("text in double quotes must end with `\"` on the same line");
    } else if found.is_empty() {
        d = d.help("the file ended early: a `{` or `(` may be missing its `}` or `)`");
    } else if matches!(found, "*" | "/" | "%" | "+" | "-") && positives.contains(&Rule::pool_name) {
        // The words of docs/language.md, "Costs".
        d = d.help("an amount with an operator goes in brackets: write `cost (2 * n) ap`, not `cost 2 * n ap`");
    } else if (found == "-" || found == "+") && wants_assignment {
        d = d.help(format!("to change a pool write `{found}=`, e.g. `hp {found}= 1`"));
    }
    d
}

/// When the word just before `at` begins its line, and the line before it holds a clause: the
/// word's byte range and the trimmed byte range of that earlier line.
fn taken_from_next_line(text: &str, at: usize) -> Option<((usize, usize), (usize, usize))> {
    let before = text.get(..at)?;
    let end = before.trim_end().len();
    // Just past the last character that cannot be in a word, which may take several bytes.
    let start = before[..end]
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    if start == end || !before[..end].contains('\n') {
        return None;
    }
    let line_start = before[..start].rfind('\n').map_or(0, |i| i + 1);
    if !before[line_start..start].trim().is_empty() || line_start == 0 {
        return None;
    }
    // The line before, skipping blank and comment lines.
    let mut cut = line_start - 1;
    loop {
        let from = before[..cut].rfind('\n').map_or(0, |i| i + 1);
        let line = &before[from..cut];
        let trimmed = line.trim();
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            let lead = line.len() - line.trim_start().len();
            if trimmed.ends_with(['{', ';', '}', ',']) {
                return None;
            }
            return Some(((start, end), (from + lead, from + lead + trimmed.len())));
        }
        if from == 0 {
            return None;
        }
        cut = from - 1;
    }
}

/// "This `{` is never closed", for the block opened at `open` and still open at `at`, where
/// the parser met `next` (a declaration keyword and its span) or the end of the file (`None`).
fn unclosed_error(file: FileId, text: &str, open: usize, next: Option<(Span, &str)>, at: usize) -> Diagnostic {
    let line_of = |i: usize| text[..i].matches('\n').count() + 1;
    let with_next = |d: Diagnostic| match next {
        Some((span, found)) => d.with_secondary(span, format!("`{found}` starts the next declaration")),
        None => d,
    };
    // The parser matched each `}` with the nearest `{`, so a missing inner `}` leaves the
    // declaration's own `{` open and the blame would fall on it. A `}` that lines up with an
    // outer line rather than with its own `{`'s line shows where the `}` really went missing.
    match misplaced_close(text, open, at) {
        Some((inner, close)) => with_next(
            Diagnostic::error(Code::Syntax, Span::new(file, inner, inner + 1), "this `{` is not closed")
                .label("opened here, not closed")
                .with_secondary(
                    Span::new(file, close, close + 1),
                    format!("this `}}` lines up with line {}: it was meant to close that block", line_of(open)),
                ),
        )
        .help(format!("add the `}}` that ends the block opened on line {}", line_of(inner))),
        None => with_next(
            Diagnostic::error(Code::Syntax, Span::new(file, open, open + 1), "this `{` is never closed")
                .label("opened here, not closed"),
        )
        .help(format!("add the `}}` that ends this block before line {}", line_of(at))),
    }
}

/// The outermost `{` still open at `at` (comments and strings skipped), if any.
fn unclosed_brace(text: &str, at: usize) -> Option<usize> {
    let mut open: Vec<usize> = Vec::new();
    for (i, ch) in super::code_chars(text.get(..at)?) {
        match ch {
            '{' => open.push(i),
            '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.first().copied()
}

/// Inside the block opened at `outer` and left open at `at`: the `{` of the first `}` that
/// begins a line indented less than its `{`'s own line, with that `}`. Such a `}` was written
/// to close an enclosing block, so the `{` is the one missing its `}`.
fn misplaced_close(text: &str, outer: usize, at: usize) -> Option<(usize, usize)> {
    let indent = |i: usize| {
        let start = text[..i].rfind('\n').map_or(0, |n| n + 1);
        let line = &text[start..];
        (start, line.len() - line.trim_start_matches([' ', '\t']).len())
    };
    let mut open: Vec<usize> = Vec::new();
    for (i, ch) in super::code_chars(text.get(outer + 1..at)?) {
        let i = outer + 1 + i;
        match ch {
            '{' => open.push(i),
            '}' => {
                let Some(o) = open.pop() else { continue };
                let (close_line, close_indent) = indent(i);
                let (open_line, open_indent) = indent(o);
                let first_on_line = close_line + close_indent == i;
                // The first such `}`: each later one is off by the same missing `}`.
                if first_on_line && close_line != open_line && close_indent < open_indent {
                    return Some((o, i));
                }
            }
            _ => {}
        }
    }
    None
}

fn short(wanted: &str) -> String {
    match wanted.find(" (") {
        Some(cut) if wanted.len() > 60 => wanted[..cut].to_string(),
        _ => wanted.to_string(),
    }
}

/// The word or symbol at a position, for "found `x`".
fn token_at(text: &str, at: usize) -> &str {
    let rest = text.get(at..).unwrap_or("");
    // At most 40 bytes of a word, cut between characters (a word may hold any letter).
    let mut word = 0;
    for c in rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_') {
        if word + c.len_utf8() > 40 {
            break;
        }
        word += c.len_utf8();
    }
    if word > 0 {
        return &rest[..word];
    }
    match rest.chars().next() {
        Some(c) if !c.is_whitespace() => &rest[..c.len_utf8()],
        _ => "",
    }
}

impl Builder {
    fn span(&self, p: &P) -> Span {
        let s = p.as_span();
        Span::new(self.file, self.base + s.start(), self.base + s.end())
    }

    /// The name and the `extends` of a `header` pair, or of the `file_head` around one.
    fn header(&self, p: &P) -> R<(Ident, Option<(String, Span)>)> {
        let header = if p.as_rule() == Rule::header { p.clone() } else { self.next(&mut kids(p), p)? };
        let mut hk = kids(&header);
        hk.next(); // `ruleset`
        let name = self.ident(&self.next(&mut hk, &header)?);
        let extends = match hk.next() {
            Some(_kw) => {
                let s = self.next(&mut hk, &header)?;
                Some((self.string(&s), self.span(&s)))
            }
            None => None,
        };
        Ok((name, extends))
    }

    fn internal(&self, at: usize, what: &str) -> Box<Diagnostic> {
        Box::new(Diagnostic::error(
            Code::Syntax,
            Span::new(self.file, at, at),
            format!("internal parser error: {what}; please report this with the file"),
        ))
    }

    fn next<'i>(&self, it: &mut impl Iterator<Item = P<'i>>, parent: &P<'i>) -> R<P<'i>> {
        it.next().ok_or_else(|| self.internal(self.span(parent).end as usize, "a rule ended early"))
    }

    fn ident(&self, p: &P) -> Ident {
        Ident { name: p.as_str().into(), span: self.span(p) }
    }

    fn string(&self, p: &P) -> String {
        let raw = kids(p).next().map(|i| i.as_str()).unwrap_or("");
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some(other) => out.push(other),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    /// An optional string among children: `Some` if the next child is a string.
    fn opt_string<'i>(&self, it: &mut std::iter::Peekable<impl Iterator<Item = P<'i>>>) -> Option<String> {
        if it.peek().map(|p| p.as_rule()) == Some(Rule::string) {
            it.next().map(|p| self.string(&p))
        } else {
            None
        }
    }

    fn item(&self, pair: P) -> R<Item> {
        let span = self.span(&pair);
        let mut it = kids(&pair).peekable();
        let mut is_override = false;
        if it.peek().map(|p| p.as_rule()) == Some(Rule::kw_override) {
            is_override = true;
            it.next();
        }
        let decl_pair = self.next(&mut it, &pair)?;
        let decl = self.decl(decl_pair)?;
        Ok(Item { doc: None, is_override, decl, span })
    }

    fn decl(&self, p: P) -> R<Decl> {
        let rule = p.as_rule();
        let mut it = kids(&p).peekable();
        // Most declarations start with their keyword; skip it.
        if rule != Rule::action_item && rule != Rule::hook_item {
            it.next();
        }
        Ok(match rule {
            Rule::title_item => Decl::Title(self.string(&self.next(&mut it, &p)?)),
            Rule::stat_item => {
                Decl::Stat { name: self.ident(&self.next(&mut it, &p)?), default: self.expr(self.next(&mut it, &p)?)? }
            }
            Rule::derive_item => {
                Decl::Derive { name: self.ident(&self.next(&mut it, &p)?), value: self.expr(self.next(&mut it, &p)?)? }
            }
            Rule::category_item => {
                Decl::Category { name: self.ident(&self.next(&mut it, &p)?), label: self.opt_string(&mut it) }
            }
            Rule::event_item => {
                Decl::Event { name: self.ident(&self.next(&mut it, &p)?), label: self.opt_string(&mut it) }
            }
            Rule::effect_item => {
                let name = self.ident(&self.next(&mut it, &p)?);
                Decl::Effect { name, body: self.block(self.next(&mut it, &p)?)? }
            }
            Rule::degrees_item => self.degrees_decl(it, &p)?,
            Rule::default_degrees_item => {
                it.next(); // `degrees`
                Decl::DefaultDegrees(self.ident(&self.next(&mut it, &p)?))
            }
            Rule::pool_item => {
                let name = self.ident(&self.next(&mut it, &p)?);
                let label = self.opt_string(&mut it);
                let mut clauses = Vec::new();
                if let Some(body) = it.next() {
                    for c in kids(&body) {
                        clauses.push(self.pool_clause(c)?);
                    }
                }
                Decl::Pool(Pool { name, label, clauses })
            }
            Rule::condition_item => {
                let name = self.ident(&self.next(&mut it, &p)?);
                let label = self.opt_string(&mut it);
                let mut clauses = Vec::new();
                if let Some(body) = it.next() {
                    for c in kids(&body) {
                        clauses.push(self.condition_clause(c)?);
                    }
                }
                Decl::Condition(Condition { name, label, clauses })
            }
            Rule::initiative_item => {
                let mut clauses = Vec::new();
                for c in it {
                    clauses.push(self.initiative_clause(c)?);
                }
                Decl::Initiative(clauses)
            }
            Rule::round_item => {
                let mut phases = Vec::new();
                for ph in it {
                    phases.push(self.phase(ph)?);
                }
                Decl::Round(phases)
            }
            Rule::priority_item => Decl::Priority(it.map(|i| self.ident(&i)).collect()),
            Rule::chains_item => {
                let order = self.ident(&self.next(&mut it, &p)?);
                let depth = match it.next() {
                    Some(_kw) => Some(self.expr(self.next(&mut it, &p)?)?),
                    None => None,
                };
                Decl::Chains { order, depth }
            }
            Rule::limit_item => self.limit_decl(it, &p)?,
            Rule::default_cost_item => {
                it.next(); // `cost`
                Decl::DefaultCost(self.cost_terms(self.next(&mut it, &p)?)?)
            }
            Rule::action_item => {
                let kind = self.action_kind(&self.next(&mut it, &p)?);
                Decl::Action(self.action_rest(kind, it, &p)?)
            }
            Rule::trigger_item => Decl::Trigger(self.action_rest(ActionKind::Action, it, &p)?),
            Rule::hook_item => self.hook_decl(it, &p)?,
            Rule::space_item => {
                let kind = self.ident(&self.next(&mut it, &p)?);
                Decl::Space { kind, zones: it.map(|z| self.ident(&z)).collect() }
            }
            Rule::surprise_item => Decl::Surprise(it.nth(2).map(|c| self.ident(&c))),
            Rule::reach_item => Decl::Reach(self.expr(self.next(&mut it, &p)?)?),
            Rule::die_item => {
                let name = self.ident(&self.next(&mut it, &p)?);
                let label = self.opt_string(&mut it);
                let faces = it
                    .filter(|f| f.as_rule() == Rule::die_face)
                    .map(|f| kids(&f).map(|s| self.ident(&s)).collect())
                    .collect();
                Decl::Die { name, label, faces }
            }
            Rule::object_item => {
                Decl::Object { name: self.ident(&self.next(&mut it, &p)?), label: self.opt_string(&mut it) }
            }
            Rule::terrain_item => self.terrain_decl(it, &p)?,
            Rule::items_item => self.items_decl(it, &p)?,
            Rule::pile_item => self.pile_decl(it, &p)?,
            Rule::downtime_item => {
                let mut name = None;
                if it.peek().map(|x| x.as_rule()) == Some(Rule::ident) {
                    name = it.next().map(|n| self.ident(&n));
                }
                it.next(); // `every`
                let every = self.expr(self.next(&mut it, &p)?)?;
                it.next(); // `hours`
                Decl::Downtime { name, every: Box::new(every), body: self.block(self.next(&mut it, &p)?)? }
            }
            Rule::rest_item => self.rest_decl(it, &p)?,
            Rule::outro_item => {
                let name = self.ident(&self.next(&mut it, &p)?);
                let label = self.opt_string(&mut it);
                let mode = self.next(&mut it, &p)?;
                let continues = mode.as_rule() == Rule::kw_continues;
                Decl::Outro { name, label, continues, body: self.block(self.next(&mut it, &p)?)? }
            }
            Rule::state_order_item => Decl::StateOrder(it.map(|i| self.ident(&i)).collect()),
            Rule::sequence_item => {
                let timing = self.ident(&self.next(&mut it, &p)?);
                Decl::Sequence { timing, steps: it.map(|i| self.ident(&i)).collect() }
            }
            Rule::cost_adjust_item => self.cost_adjust_decl(it, &p)?,
            Rule::remove_item => self.remove_decl(it, &p)?,
            _ => return Err(self.internal(self.span(&p).start as usize, "an unknown declaration")),
        })
    }

    /// `degrees NAME { LEVEL: SIDE [when EXPR]; (up | down) when EXPR; ... }`.
    fn degrees_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let name = self.ident(&self.next(&mut it, p)?);
        let (mut levels, mut shifts) = (Vec::new(), Vec::new());
        for clause in it {
            let mut ci = kids(&clause);
            if clause.as_rule() == Rule::degree_level {
                let level = self.ident(&self.next(&mut ci, &clause)?);
                let side = self.ident(&self.next(&mut ci, &clause)?);
                let when = match ci.nth(1) {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                levels.push(DegreeLevel { name: level, side, when });
            } else {
                shifts.push(self.degree_shift(&clause)?);
            }
        }
        Ok(Decl::Degrees(Degrees { name, levels, shifts }))
    }

    /// `limit [each] SUBJECT [except ...]: AMOUNT per PERIOD [GUARD]`.
    fn limit_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let mut each = false;
        if it.peek().map(|x| x.as_rule()) == Some(Rule::kw_each) {
            each = true;
            it.next();
        }
        let subject = self.ident(&self.next(&mut it, p)?);
        let mut next = self.next(&mut it, p)?;
        let mut except = Vec::new();
        if next.as_rule() == Rule::adjust_except {
            except = kids(&next).skip(1).map(|i| self.ident(&i)).collect();
            next = self.next(&mut it, p)?;
        }
        let amount = self.limit_amount(next)?;
        let guard = match it.next() {
            Some(g) => Some(self.guard(g)?),
            None => None,
        };
        Ok(Decl::Limit(Box::new(Limit { each, subject, except, amount, guard })))
    }

    /// `[hook NAME] at TIMING [GUARD] { ... }`.
    fn hook_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let mut name = None;
        if it.peek().map(|x| x.as_rule()) == Some(Rule::kw_hook) {
            it.next();
            name = Some(self.ident(&self.next(&mut it, p)?));
        }
        let at = self.at_timing(self.next(&mut it, p)?)?;
        let mut guard = None;
        let mut body = None;
        for c in it {
            match c.as_rule() {
                Rule::guard => guard = Some(self.guard(c)?),
                _ => body = Some(self.block(c)?),
            }
        }
        let body = body.ok_or_else(|| self.internal(self.span(p).end as usize, "a hook without a block"))?;
        Ok(Decl::Hook(Box::new(Hook { name, at, guard, body })))
    }

    /// `terrain NAME ["Label"] { slows N [GUARD]; blocks [GUARD] }`.
    fn terrain_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let name = self.ident(&self.next(&mut it, p)?);
        let label = self.opt_string(&mut it);
        let mut t = Terrain { name, label, slows: None, blocks: None };
        for c in it {
            let rule = c.as_rule();
            let mut ci = kids(&c);
            let word = self.next(&mut ci, &c)?;
            if rule == Rule::slows_clause {
                let amount = self.expr(self.next(&mut ci, &c)?)?;
                let guard = ci.next().map(|g| self.guard(g)).transpose()?;
                t.slows = Some((amount, guard));
            } else {
                let guard = ci.next().map(|g| self.guard(g)).transpose()?;
                t.blocks = Some((self.span(&word), guard));
            }
        }
        Ok(Decl::Terrain(Box::new(t)))
    }

    /// `rest NAME ["Label"] [hours N | minutes N] { ... }`.
    fn rest_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let name = self.ident(&self.next(&mut it, p)?);
        let label = self.opt_string(&mut it);
        let (mut hours, mut minutes) = (None, None);
        match it.peek().map(|x| x.as_rule()) {
            Some(Rule::kw_hours) => {
                it.next();
                hours = Some(self.expr(self.next(&mut it, p)?)?);
            }
            Some(Rule::kw_minutes) => {
                it.next();
                minutes = Some(self.expr(self.next(&mut it, p)?)?);
            }
            _ => {}
        }
        Ok(Decl::Rest {
            name,
            label,
            hours: hours.map(Box::new),
            minutes: minutes.map(Box::new),
            body: self.block(self.next(&mut it, p)?)?,
        })
    }

    /// `adjust cost SUBJECT [except ...]: (* N | + COSTS) [when EXPR]`.
    fn cost_adjust_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        it.next(); // `cost`
        let subject = self.ident(&self.next(&mut it, p)?);
        let mut op_pair = self.next(&mut it, p)?;
        let mut except = Vec::new();
        if op_pair.as_rule() == Rule::adjust_except {
            except = kids(&op_pair).skip(1).map(|i| self.ident(&i)).collect();
            op_pair = self.next(&mut it, p)?;
        }
        let inner = kids(&op_pair).next().ok_or_else(|| self.internal(self.span(&op_pair).end as usize, "adjust"))?;
        let op = if op_pair.as_rule() == Rule::scale_adjust {
            CostAdjustOp::Scale(Box::new(self.expr(inner)?))
        } else {
            CostAdjustOp::Add(self.cost_terms(inner)?)
        };
        let when = match it.next() {
            Some(w) => {
                Some(self.expr(kids(&w).nth(1).ok_or_else(|| self.internal(self.span(&w).end as usize, "when"))?)?)
            }
            None => None,
        };
        Ok(Decl::CostAdjust { subject, except, op, when: when.map(Box::new) })
    }

    /// `remove KIND NAME`.
    fn remove_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let kind_pair = self.next(&mut it, p)?;
        let kind = match kids(&kind_pair).next().map(|k| k.as_rule()) {
            Some(Rule::kw_pool) => DeclKind::Pool,
            Some(Rule::kw_stat) => DeclKind::Stat,
            Some(Rule::kw_derive) => DeclKind::Derive,
            Some(Rule::kw_action) => DeclKind::Action,
            Some(Rule::kw_trigger) => DeclKind::Trigger,
            Some(Rule::kw_condition) => DeclKind::Condition,
            Some(Rule::kw_limit) => DeclKind::Limit,
            Some(Rule::kw_category) => DeclKind::Category,
            Some(Rule::kw_hook) => DeclKind::Hook,
            Some(Rule::kw_downtime) => DeclKind::Downtime,
            Some(Rule::kw_rest) => DeclKind::Rest,
            Some(Rule::kw_outro) => DeclKind::Outro,
            Some(Rule::kw_effect) => DeclKind::Effect,
            Some(Rule::kw_degrees) => DeclKind::Degrees,
            Some(Rule::kw_terrain) => DeclKind::Terrain,
            Some(Rule::kw_object) => DeclKind::Object,
            Some(Rule::kw_items) => DeclKind::Items,
            Some(Rule::kw_pile) => DeclKind::Pile,
            _ => DeclKind::Event,
        };
        Ok(Decl::Remove { kind, name: self.ident(&self.next(&mut it, p)?) })
    }

    fn action_kind(&self, p: &P) -> ActionKind {
        match kids(p).next().map(|k| k.as_rule()) {
            Some(Rule::kw_free) => ActionKind::Free,
            Some(Rule::kw_reaction) => ActionKind::Reaction,
            Some(Rule::kw_preparation) => ActionKind::Preparation,
            Some(Rule::kw_activity) => ActionKind::Activity,
            _ => ActionKind::Action,
        }
    }

    fn action_rest<'i>(
        &self,
        kind: ActionKind,
        mut it: std::iter::Peekable<impl Iterator<Item = P<'i>>>,
        parent: &P<'i>,
    ) -> R<Action> {
        let name = self.ident(&self.next(&mut it, parent)?);
        let label = self.opt_string(&mut it);
        let body = self.next(&mut it, parent)?;
        let mut clauses = Vec::new();
        for c in kids(&body) {
            clauses.push(self.action_clause(c)?);
        }
        clauses.shrink_to_fit();
        Ok(Action { kind, name, label: label.map(Into::into), clauses })
    }

    fn action_clause(&self, p: P) -> R<ActionClause> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = kids(&p).peekable();
        if !matches!(rule, Rule::on_clause | Rule::limit_clause) {
            it.next();
        }
        Ok(match rule {
            Rule::cost_clause => {
                let terms = self.cost_terms(self.next(&mut it, &p)?)?;
                let when = match it.next() {
                    Some(w) => {
                        Some(self.expr(kids(&w).nth(1).ok_or_else(|| self.internal(span.end as usize, "when"))?)?)
                    }
                    None => None,
                };
                ActionClause::Cost { terms, when: when.map(Box::new), span }
            }
            Rule::partner_clause => {
                it.next(); // `cost`
                ActionClause::Partner(self.cost_terms(self.next(&mut it, &p)?)?, span)
            }
            Rule::category_clause => ActionClause::Category(it.map(|i| self.ident(&i)).collect(), span),
            Rule::limit_clause => {
                it.next(); // `limit`
                ActionClause::Limit(Box::new(self.limit_amount(self.next(&mut it, &p)?)?))
            }
            Rule::target_clause => {
                let who = self.ident(&self.next(&mut it, &p)?);
                let within = match it.next() {
                    Some(_kw) => Some(self.expr(self.next(&mut it, &p)?)?),
                    None => None,
                };
                ActionClause::Target { who, within: within.map(Box::new), span }
            }
            Rule::requires_clause => ActionClause::Requires(self.expr(self.next(&mut it, &p)?)?, span),
            Rule::on_clause => ActionClause::On(Box::new(self.on_event(self.next(&mut it, &p)?)?)),
            Rule::interrupts_clause => ActionClause::Interrupts(span),
            Rule::ends_turn_clause => ActionClause::EndsTurn(span),
            Rule::rounds_clause => ActionClause::Rounds(self.expr(self.next(&mut it, &p)?)?, span),
            Rule::partners_clause => {
                let count = self.expr(self.next(&mut it, &p)?)?;
                let within = match it.next() {
                    Some(_) => Some(self.expr(self.next(&mut it, &p)?)?),
                    None => None,
                };
                ActionClause::Partners { count: Box::new(count), within: within.map(Box::new), span }
            }
            Rule::interrupted_clause => {
                it.next(); // `when`
                let when = self.expr(self.next(&mut it, &p)?)?;
                let then = match it.next() {
                    Some(b) => Some(self.block(b)?),
                    None => None,
                };
                ActionClause::Interrupted { when: Box::new(when), then, span }
            }
            Rule::resolve_clause => ActionClause::Resolve(self.block(self.next(&mut it, &p)?)?),
            Rule::grants_clause => {
                it.next(); // `turn`
                let mut granted = GrantedTurn { budget: Vec::new(), limits: Vec::new(), span };
                for item in it {
                    let item_span = self.span(&item);
                    let mut parts = kids(&item);
                    match item.as_rule() {
                        Rule::grant_budget => {
                            let pool = self.ident(&self.next(&mut parts, &item)?);
                            granted.budget.push((pool, self.expr(self.next(&mut parts, &item)?)?));
                        }
                        _ => {
                            parts.next(); // `limit`
                            let what = self.next(&mut parts, &item)?;
                            let moves = what.as_rule() == Rule::grant_moves;
                            let amount = self.expr(self.next(&mut parts, &item)?)?;
                            granted.limits.push(GrantLimit { moves, amount, span: item_span });
                        }
                    }
                }
                ActionClause::Grants(Box::new(granted))
            }
            _ => return Err(self.internal(span.start as usize, "an unknown action clause")),
        })
    }

    fn on_event(&self, p: P) -> R<EventPattern> {
        let span = self.span(&p);
        let mut it = kids(&p);
        it.next(); // `on`
        let event = self.ident(&self.next(&mut it, &p)?);
        let mut phase = None;
        let mut by = None;
        let mut against = None;
        while let Some(kw) = it.next() {
            if kw.as_rule() == Rule::ident {
                phase = Some(self.ident(&kw));
                continue;
            }
            let who = Some(self.ident(&self.next(&mut it, &p)?));
            if kw.as_rule() == Rule::kw_by {
                by = who;
            } else {
                against = who;
            }
        }
        Ok(EventPattern { event, phase, by, against, span })
    }

    fn cost_terms(&self, p: P) -> R<CostTerms> {
        let span = self.span(&p);
        let mut terms = Vec::new();
        for t in kids(&p) {
            if t.as_rule() != Rule::cost_term {
                continue; // `0`
            }
            let mut it = kids(&t);
            let amount = self.expr(self.next(&mut it, &t)?)?;
            let pool = self.ident(&self.next(&mut it, &t)?);
            let mut per = None;
            if it.next().is_some() {
                let mut count = 1u32;
                let mut unit = self.next(&mut it, &t)?;
                if unit.as_rule() == Rule::int {
                    count = unit.as_str().parse().unwrap_or(u32::MAX);
                    unit = self.next(&mut it, &t)?;
                }
                per = Some((count, self.ident(&unit)));
            }
            terms.push(CostTerm { amount, pool, per });
        }
        terms.shrink_to_fit();
        Ok(CostTerms { terms, span })
    }

    fn limit_amount(&self, p: P) -> R<LimitAmount> {
        let span = self.span(&p);
        let mut it = kids(&p);
        let amount = self.expr(self.next(&mut it, &p)?)?;
        let mut pool = None;
        let mut next = self.next(&mut it, &p)?;
        if next.as_rule() == Rule::ident {
            pool = Some(self.ident(&next));
            next = self.next(&mut it, &p)?;
        }
        let _ = next; // `per`
        let per = self.period(&self.next(&mut it, &p)?);
        let per_side = it.next().is_some_and(|x| x.as_rule() == Rule::per_side);
        Ok(LimitAmount { amount, pool, per, per_side, span })
    }

    fn period(&self, p: &P) -> Period {
        match kids(p).next().map(|k| k.as_rule()) {
            Some(Rule::kw_turn) => Period::Turn,
            Some(Rule::kw_encounter) => Period::Encounter,
            Some(Rule::kw_trigger) => Period::Trigger,
            Some(Rule::kw_phase) => Period::Phase,
            _ => Period::Round,
        }
    }

    /// `[opponent] up when COND` / `down when COND`.
    fn degree_shift(&self, p: &P) -> R<DegreeShift> {
        let mut it = kids(p).peekable();
        let opponent = it.next_if(|x| x.as_rule() == Rule::kw_opponent).is_some();
        let up = self.next(&mut it, p)?.as_rule() == Rule::kw_up;
        it.next(); // `when`
        let when = self.expr(self.next(&mut it, p)?)?;
        Ok(DegreeShift { opponent, up, when, span: self.span(p) })
    }

    fn guard(&self, p: P) -> R<Guard> {
        let mut it = kids(&p);
        let kw = self.next(&mut it, &p)?;
        Ok(Guard { negated: kw.as_rule() == Rule::kw_unless, cond: self.expr(self.next(&mut it, &p)?)? })
    }

    fn at_timing(&self, p: P) -> R<Timing> {
        let t = kids(&p).nth(1).ok_or_else(|| self.internal(self.span(&p).end as usize, "a timing"))?;
        self.timing(t)
    }

    fn timing(&self, p: P) -> R<Timing> {
        let span = self.span(&p);
        let mut it = kids(&p);
        let name = self.ident(&self.next(&mut it, &p)?);
        let arg = it.next().map(|a| self.ident(&a));
        Ok(Timing { name, arg, span })
    }

    fn optional_guard<'i>(&self, it: &mut impl Iterator<Item = P<'i>>) -> R<Option<Guard>> {
        match it.next() {
            Some(g) => Ok(Some(self.guard(g)?)),
            None => Ok(None),
        }
    }

    fn pool_clause(&self, p: P) -> R<PoolClause> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = kids(&p).peekable();
        it.next(); // the keyword
        Ok(match rule {
            Rule::max_clause => {
                let v = self.next(&mut it, &p)?;
                if v.as_rule() == Rule::kw_none {
                    PoolClause::Max(None, span)
                } else {
                    PoolClause::Max(Some(self.expr(v)?), span)
                }
            }
            Rule::min_clause => PoolClause::Min(self.expr(self.next(&mut it, &p)?)?, span),
            Rule::start_clause => PoolClause::Start(self.expr(self.next(&mut it, &p)?)?, span),
            Rule::refresh_clause => {
                let at = self.at_timing(self.next(&mut it, &p)?)?;
                PoolClause::Refresh { at, guard: self.optional_guard(&mut it)?, span }
            }
            Rule::keep_clause => PoolClause::Keep { at: self.at_timing(self.next(&mut it, &p)?)?, span },
            Rule::lose_clause => {
                let at = self.at_timing(self.next(&mut it, &p)?)?;
                PoolClause::Lose { at, guard: self.optional_guard(&mut it)?, span }
            }
            Rule::decay_clause => {
                let amount = self.expr(self.next(&mut it, &p)?)?;
                let at = self.at_timing(self.next(&mut it, &p)?)?;
                PoolClause::Decay { amount, at, guard: self.optional_guard(&mut it)?, span }
            }
            Rule::convert_clause => {
                it.next(); // `into`
                let into = self.ident(&self.next(&mut it, &p)?);
                let at = self.at_timing(self.next(&mut it, &p)?)?;
                PoolClause::Convert { into, at, guard: self.optional_guard(&mut it)?, span }
            }
            Rule::gain_clause => {
                let amount = self.expr(self.next(&mut it, &p)?)?;
                let w = self.next(&mut it, &p)?;
                let when = if w.as_rule() == Rule::at_timing {
                    GainWhen::At(self.at_timing(w)?)
                } else {
                    GainWhen::On(self.on_event(w)?)
                };
                let mut guard = None;
                let mut cap = None;
                for c in it {
                    if c.as_rule() == Rule::guard {
                        guard = Some(self.guard(c)?);
                    } else {
                        let mut ci = kids(&c).filter(|x| matches!(x.as_rule(), Rule::expr | Rule::period));
                        let amount = self.expr(self.next(&mut ci, &c)?)?;
                        let per = self.period(&self.next(&mut ci, &c)?);
                        cap = Some(Cap { amount, per });
                    }
                }
                PoolClause::Gain { amount, when, guard, cap, span }
            }
            Rule::overspend_clause => {
                it.next(); // `to`
                let floor = self.expr(self.next(&mut it, &p)?)?;
                PoolClause::Overspend { floor, price: self.block(self.next(&mut it, &p)?)?, span }
            }
            Rule::rising_clause => PoolClause::Rising(span),
            Rule::shared_clause => PoolClause::Shared(span),
            Rule::per_side_clause => PoolClause::PerSide(span),
            Rule::spend_event_clause => PoolClause::SpendEvent(self.ident(&self.next(&mut it, &p)?), span),
            Rule::threshold_clause => {
                let op = self.cmp_op(&self.next(&mut it, &p)?);
                let value = self.expr(self.next(&mut it, &p)?)?;
                let mut it = it.peekable();
                let immediately = it.next_if(|x| x.as_rule() == Rule::kw_immediately).is_some();
                PoolClause::Threshold { op, value, immediately, body: self.block(self.next(&mut it, &p)?)?, span }
            }
            _ => return Err(self.internal(span.start as usize, "an unknown pool clause")),
        })
    }

    fn condition_clause(&self, p: P) -> R<ConditionClause> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = kids(&p);
        if rule == Rule::polarity_clause {
            let positive = it.next().map(|k| k.as_rule()) == Some(Rule::kw_positive);
            return Ok(ConditionClause::Polarity { positive, span });
        }
        if rule == Rule::cond_hook_clause {
            let at = self.at_timing(self.next(&mut it, &p)?)?;
            return Ok(ConditionClause::Hook { at, body: self.block(self.next(&mut it, &p)?)?, span });
        }
        it.next(); // keyword
        Ok(match rule {
            Rule::blocks_clause => {
                let mut things = Vec::new();
                for b in it {
                    let mut bi = kids(&b);
                    let first = self.next(&mut bi, &b)?;
                    if first.as_rule() == Rule::kw_spend {
                        things.push(Blocked::Spend(self.ident(&self.next(&mut bi, &b)?)));
                    } else {
                        things.push(Blocked::Thing(self.ident(&first)));
                    }
                }
                ConditionClause::Blocks(things, span)
            }
            Rule::implies_clause => ConditionClause::Implies(it.map(|i| self.ident(&i)).collect(), span),
            Rule::lasts_clause => ConditionClause::Lasts(self.duration(self.next(&mut it, &p)?)?, span),
            Rule::modify_clause => {
                it.next(); // `checks`
                let mut how = self.next(&mut it, &p)?;
                let mut against = None;
                if how.as_rule() == Rule::checks_against {
                    against = kids(&how).nth(1).map(|w| self.ident(&w));
                    how = self.next(&mut it, &p)?;
                }
                let value = self.next(&mut it, &p)?;
                // `on NAME`: the keyword, then the name.
                let on = it.nth(1).map(|n| self.ident(&n));
                if how.as_rule() == Rule::kw_by {
                    ConditionClause::Modify { against, by: Some(self.expr(value)?), with: None, on, span }
                } else {
                    ConditionClause::Modify { against, by: None, with: Some(self.ident(&value)), on, span }
                }
            }
            Rule::maintain_clause => {
                let at = self.at_timing(self.next(&mut it, &p)?)?;
                let mut next = self.next(&mut it, &p)?;
                let mut optional = None;
                if next.as_rule() == Rule::kw_optional {
                    optional = Some(self.span(&next));
                    next = self.next(&mut it, &p)?;
                }
                ConditionClause::Maintain { at, optional, body: self.block(next)?, span }
            }
            _ => return Err(self.internal(span.start as usize, "an unknown condition clause")),
        })
    }

    fn duration(&self, p: P) -> R<Duration> {
        let inner = kids(&p).next().ok_or_else(|| self.internal(self.span(&p).start as usize, "a duration"))?;
        let span = self.span(&inner);
        let rule = inner.as_rule();
        let mut it = kids(&inner);
        it.next(); // keyword
        Ok(match rule {
            Rule::until_duration => Duration::Until(self.timing(self.next(&mut it, &inner)?)?),
            Rule::for_duration => Duration::Rounds(self.expr(self.next(&mut it, &inner)?)?),
            Rule::while_duration => Duration::While(self.expr(self.next(&mut it, &inner)?)?),
            _ => Duration::Maintained(span),
        })
    }

    fn initiative_clause(&self, p: P) -> R<InitiativeClause> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = kids(&p);
        it.next(); // keyword
        Ok(match rule {
            Rule::value_clause => {
                let e = self.expr(self.next(&mut it, &p)?)?;
                InitiativeClause::Value(e, it.next().is_some_and(|x| x.as_rule() == Rule::per_side), span)
            }
            Rule::made_clause => InitiativeClause::Made(self.at_timing(self.next(&mut it, &p)?)?, span),
            Rule::adjust_clause => {
                let e =
                    it.find(|x| x.as_rule() == Rule::expr).ok_or_else(|| self.internal(span.end as usize, "adjust"))?;
                InitiativeClause::Adjust(self.expr(e)?, span)
            }
            Rule::range_clause => {
                let lo = self.expr(self.next(&mut it, &p)?)?;
                it.next(); // `to`
                InitiativeClause::Range(lo, self.expr(self.next(&mut it, &p)?)?, span)
            }
            Rule::order_clause => InitiativeClause::Order(self.ident(&self.next(&mut it, &p)?), span),
            Rule::ties_clause => {
                let mut ties = Vec::new();
                for t in it.filter(|x| x.as_rule() == Rule::tiebreak) {
                    let mut ti = kids(&t);
                    let first = self.next(&mut ti, &t)?;
                    ties.push(match first.as_rule() {
                        Rule::kw_higher => TieBreak::Higher(self.ident(&self.next(&mut ti, &t)?)),
                        Rule::kw_lower => TieBreak::Lower(self.ident(&self.next(&mut ti, &t)?)),
                        Rule::kw_roll => {
                            let roll = self.expr(self.next(&mut ti, &t)?)?;
                            if ti.next().is_some_and(|p| p.as_rule() == Rule::until_different) {
                                TieBreak::RollUntilDifferent(roll)
                            } else {
                                TieBreak::Roll(roll)
                            }
                        }
                        _ => TieBreak::Named(self.ident(&first)),
                    });
                }
                InitiativeClause::Ties(ties, span)
            }
            Rule::allow_clause => InitiativeClause::Allow(it.map(|i| self.ident(&i)).collect(), span),
            Rule::reorder_clause => InitiativeClause::Reorder(self.ident(&self.next(&mut it, &p)?), span),
            Rule::slots_clause => {
                it.next(); // `by`
                InitiativeClause::Slots(self.ident(&self.next(&mut it, &p)?), span)
            }
            _ => return Err(self.internal(span.start as usize, "an unknown initiative clause")),
        })
    }

    fn phase(&self, p: P) -> R<Phase> {
        let span = self.span(&p);
        let mut it = kids(&p);
        it.next(); // `phase`
        let name = self.ident(&self.next(&mut it, &p)?);
        let mut kind_pair = self.next(&mut it, &p)?;
        let mut guard = None;
        if kind_pair.as_rule() == Rule::guard {
            guard = Some(self.guard(kind_pair)?);
            kind_pair = self.next(&mut it, &p)?;
        }
        let inner = kids(&kind_pair).next().ok_or_else(|| self.internal(span.end as usize, "a phase kind"))?;
        let again = match it.next() {
            Some(rep) if rep.as_rule() == Rule::phase_repeat => {
                let cond = kids(&rep).nth(2).ok_or_else(|| self.internal(span.end as usize, "repeat while"))?;
                Some(self.expr(cond)?)
            }
            _ => None,
        };
        let hidden = kids(&inner).find(|k| k.as_rule() == Rule::phase_hidden).map(|k| self.span(&k));
        let picks_pair = kids(&inner).find(|k| k.as_rule() == Rule::phase_picks);
        let picks = picks_pair.as_ref().map(|k| {
            let n = kids(k).find(|n| n.as_rule() == Rule::int).map_or("", |n| n.as_str());
            (n.to_string(), self.span(k))
        });
        let must = picks_pair.and_then(|k| kids(&k).find(|m| m.as_rule() == Rule::picks_must)).map(|m| self.span(&m));
        let mut takes = None;
        if inner.as_rule() == Rule::turns_phase {
            if let Some(req) = kids(&inner).find(|k| k.as_rule() == Rule::turns_requires) {
                takes =
                    Some(self.expr(kids(&req).nth(1).ok_or_else(|| self.internal(span.end as usize, "requires"))?)?);
            }
        }
        let kind = match inner.as_rule() {
            Rule::turns_phase => PhaseKind::Turns,
            Rule::simultaneous_phase => {
                let kinds =
                    kids(&inner).skip(1).filter(|k| !matches!(k.as_rule(), Rule::phase_hidden | Rule::phase_picks));
                PhaseKind::Simultaneous(kinds.map(|k| self.action_kind(&k)).collect())
            }
            _ => {
                let block = match kids(&inner).find(|k| k.as_rule() == Rule::block) {
                    Some(b) => self.block(b)?,
                    None => Block { stmts: Vec::new(), span: self.span(&inner) },
                };
                PhaseKind::Step(block)
            }
        };
        Ok(Phase { name, guard, kind, takes, again, hidden, picks, must, span })
    }

    fn block(&self, p: P) -> R<Block> {
        let span = self.span(&p);
        let mut stmts = Vec::new();
        for s in kids(&p) {
            stmts.push(self.stmt(s)?);
        }
        // A block holds one or two statements most often; a vector grown by pushes keeps room
        // for four, and the tree is most of a compile's peak memory (issue 10, item 6).
        stmts.shrink_to_fit();
        Ok(Block { stmts, span })
    }

    fn stmt(&self, p: P) -> R<Stmt> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = kids(&p).peekable();
        if rule == Rule::assign_stmt {
            let path = self.path(self.next(&mut it, &p)?);
            let op = match self.next(&mut it, &p)?.as_str() {
                "+=" => AssignOp::Add,
                "-=" => AssignOp::Sub,
                _ => AssignOp::Set,
            };
            return Ok(Stmt::Assign { target: path, op, value: self.expr(self.next(&mut it, &p)?)?, span });
        }
        if rule == Rule::simple_stmt {
            return Ok(match it.next().map(|k| k.as_rule()) {
                Some(Rule::kw_end_turn) => Stmt::EndTurn(span),
                Some(Rule::kw_end_encounter) => Stmt::EndEncounter(span),
                Some(Rule::kw_cancel) => Stmt::Cancel(span),
                Some(Rule::kw_redirect) => Stmt::Redirect(span),
                Some(Rule::kw_roll_initiative) => Stmt::RollInitiative(span),
                _ => Stmt::ClearConditions(span),
            });
        }
        it.next(); // keyword
        Ok(match rule {
            Rule::if_stmt => {
                let cond = self.expr(self.next(&mut it, &p)?)?;
                let then = self.block(self.next(&mut it, &p)?)?;
                let otherwise = match it.nth(1) {
                    Some(e) if e.as_rule() == Rule::if_stmt => {
                        let s = self.span(&e);
                        Some(Block { stmts: vec![self.stmt(e)?], span: s })
                    }
                    Some(e) => Some(self.block(e)?),
                    None => None,
                };
                Stmt::If { cond, then, otherwise, span }
            }
            Rule::repeat_stmt => {
                it.next(); // `while`
                let cond = self.expr(self.next(&mut it, &p)?)?;
                let body = self.block(self.next(&mut it, &p)?)?;
                Stmt::Repeat { cond, body, span }
            }
            Rule::each_stmt => {
                it.next(); // `each`
                let relation = self.ident(&self.next(&mut it, &p)?);
                let (mut within, mut filter) = (None, None);
                while let Some(x) = it.next() {
                    match x.as_rule() {
                        Rule::kw_within => within = Some(self.expr(self.next(&mut it, &p)?)?),
                        Rule::kw_where => filter = Some(self.expr(self.next(&mut it, &p)?)?),
                        _ => return Ok(Stmt::Each { relation, within, filter, body: self.block(x)?, span }),
                    }
                }
                return Err(self.internal(span.start as usize, "a loop without a body"));
            }
            Rule::apply_stmt => self.apply_stmt(it, &p, span)?,
            Rule::remove_stmt => {
                let condition = self.ident(&self.next(&mut it, &p)?);
                let from = it.nth(1).map(|f| self.ident(&f));
                Stmt::Remove { condition, from, span }
            }
            Rule::emit_stmt => {
                let name = self.ident(&self.next(&mut it, &p)?);
                match it.next() {
                    Some(amount) => Stmt::EmitWith(name, Box::new(self.expr(amount)?)),
                    None => Stmt::Emit(name),
                }
            }
            Rule::do_stmt => Stmt::Do(self.ident(&self.next(&mut it, &p)?)),
            Rule::choose_stmt => {
                let chooser = self.ident(&self.next(&mut it, &p)?);
                let question = self.opt_string(&mut it);
                let mut options = Vec::new();
                for o in it {
                    let mut oi = kids(&o);
                    let name = self.ident(&self.next(&mut oi, &o)?);
                    options.push((name, self.block(self.next(&mut oi, &o)?)?));
                }
                Stmt::Choose { chooser, question, options, span }
            }
            Rule::check_stmt => self.check_stmt(it, &p, span)?,
            Rule::move_stmt => self.move_stmt(it, &p, span)?,
            Rule::push_stmt => {
                let who = self.ident(&self.next(&mut it, &p)?);
                Stmt::Push { who, distance: self.expr(self.next(&mut it, &p)?)?, span }
            }
            Rule::pay_stmt => Stmt::Pay(self.cost_terms(self.next(&mut it, &p)?)?),
            Rule::follow_stmt => Stmt::Follow(self.ident(&self.next(&mut it, &p)?)),
            Rule::swap_stmt => Stmt::Swap(self.ident(&self.next(&mut it, &p)?)),
            Rule::take_stmt => {
                let kind = self.ident(&self.next(&mut it, &p)?);
                let (mut from, mut within) = (None, None);
                if let Some(word) = it.next() {
                    let value = self.next(&mut it, &p)?;
                    if word.as_rule() == Rule::kw_from {
                        from = Some(self.ident(&value));
                    } else {
                        within = Some(self.expr(value)?);
                    }
                }
                Stmt::Take { kind, from, within, span }
            }
            Rule::handle_stmt => {
                let kind = self.ident(&self.next(&mut it, &p)?);
                let within = match it.nth(1) {
                    Some(value) => Some(self.expr(value)?),
                    None => None,
                };
                Stmt::Handle { kind, within, span }
            }
            Rule::drop_stmt => self.drop_stmt(it, &p, span)?,
            Rule::draw_stmt => self.draw_stmt(it, &p, span)?,
            Rule::pile_move_stmt => self.pile_move_stmt(it, &p, span)?,
            Rule::roll_stmt => {
                let name = self.ident(&self.next(&mut it, &p)?);
                Stmt::Roll { name, dice: self.expr(self.next(&mut it, &p)?)?, span }
            }
            _ => return Err(self.internal(span.start as usize, "an unknown statement")),
        })
    }

    /// `apply CONDITION[(MAGNITUDE)] [to WHO] [DURATION]`.
    fn apply_stmt<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>, span: Span) -> R<Stmt> {
        let condition = self.ident(&self.next(&mut it, p)?);
        let mut to = None;
        let mut duration = None;
        let mut magnitude = None;
        while let Some(x) = it.next() {
            match x.as_rule() {
                Rule::expr => magnitude = Some(self.expr(x)?),
                Rule::kw_to => to = Some(self.ident(&self.next(&mut it, p)?)),
                Rule::duration => duration = Some(Box::new(self.duration(x)?)),
                _ => {}
            }
        }
        Ok(Stmt::Apply { condition, magnitude, to, duration, span })
    }

    /// `check ROLL vs AGAINST [degrees NAME ...] { OUTCOME { ... } ... }`.
    fn check_stmt<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>, span: Span) -> R<Stmt> {
        let roll = self.expr(self.next(&mut it, p)?)?;
        it.next(); // `vs`
        let against = self.expr(self.next(&mut it, p)?)?;
        let mut degrees = None;
        let mut it = it.peekable();
        if let Some(d) = it.next_if(|x| x.as_rule() == Rule::check_degrees) {
            let mut di = kids(&d);
            di.next(); // `degrees`
            let name = self.ident(&self.next(&mut di, &d)?);
            let shifts = di.map(|s| self.degree_shift(&s)).collect::<R<Vec<_>>>()?;
            degrees = Some(Box::new(CheckDegrees { name, shifts }));
        }
        let mut outcomes = Vec::new();
        for o in it {
            let mut oi = kids(&o);
            let name = self.ident(&self.next(&mut oi, &o)?);
            outcomes.push((name, self.block(self.next(&mut oi, &o)?)?));
        }
        Ok(Stmt::Check { roll, against, degrees, outcomes, span })
    }

    /// `move [away | through] DISTANCE [leap L]`.
    fn move_stmt<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>, span: Span) -> R<Stmt> {
        let mut first = self.next(&mut it, p)?;
        let how = first.as_rule();
        if matches!(how, Rule::kw_away | Rule::kw_through) {
            first = self.next(&mut it, p)?;
        }
        let distance = self.expr(first)?;
        if it.next().is_some() {
            // `leap L` follows.
            let leap = self.expr(self.next(&mut it, p)?)?;
            let way = match how {
                Rule::kw_away => Way::Away,
                Rule::kw_through => Way::Through,
                _ => Way::Toward,
            };
            return Ok(Stmt::MoveLeaping { way, amount: distance, leap, span });
        }
        Ok(match how {
            Rule::kw_away => Stmt::MoveAway(distance, span),
            Rule::kw_through => Stmt::MoveThrough(distance, span),
            _ => Stmt::Move(distance, span),
        })
    }

    /// `drop KIND [from WHO] [toward | away N]`.
    fn drop_stmt<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>, span: Span) -> R<Stmt> {
        let kind = self.ident(&self.next(&mut it, p)?);
        let (mut from, mut toward, mut distance) = (None, false, None);
        while let Some(word) = it.next() {
            let value = self.next(&mut it, p)?;
            match word.as_rule() {
                Rule::kw_from => from = Some(self.ident(&value)),
                rule => {
                    toward = rule == Rule::kw_toward;
                    distance = Some(self.expr(value)?);
                }
            }
        }
        Ok(Stmt::Drop { kind, from, toward, distance, span })
    }

    fn path(&self, p: P) -> Path {
        Path { span: self.span(&p), parts: kids(&p).map(|i| self.ident(&i)).collect() }
    }

    fn cmp_op(&self, p: &P) -> CmpOp {
        match p.as_str() {
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            "==" => CmpOp::Eq,
            _ => CmpOp::Ne,
        }
    }

    fn expr(&self, p: P) -> R<Expr> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::expr => {
                // The grammar's levels are silent: the operands and operators come flat.
                let mut it = kids(&p).peekable();
                let (e, _) = self.or_level(&mut it, &p)?;
                match it.next() {
                    None => Ok(e),
                    Some(extra) => Err(self.internal(self.span(&extra).start as usize, "an expression went on")),
                }
            }
            Rule::paren => {
                let inner = kids(&p).next().ok_or_else(|| self.internal(span.start as usize, "an empty expression"))?;
                let mut e = self.expr(inner)?;
                e.span = span;
                Ok(e)
            }
            Rule::unary => {
                // `- -x` is `x`: keep only the parity, so a long run of operators cannot build a
                // deep tree.
                let mut negs = 0usize;
                let mut last = None;
                for k in kids(&p) {
                    if k.as_rule() == Rule::neg {
                        negs += 1;
                    } else {
                        last = Some(k);
                    }
                }
                let last = last.ok_or_else(|| self.internal(span.start as usize, "operand"))?;
                let e = self.expr(last)?;
                if negs % 2 == 0 {
                    return Ok(e);
                }
                self.deep(Expr::new(ExprKind::Neg(Box::new(e)), span))
            }
            Rule::int => Ok(Expr::new(ExprKind::Int(p.as_str().into()), span)),
            Rule::dice => {
                let (count, sides) = p.as_str().split_once('d').unwrap_or(("", "0"));
                Ok(Expr::new(ExprKind::Dice { count: count.into(), sides: sides.into() }, span))
            }
            Rule::boolean => {
                let value = kids(&p).next().map(|k| k.as_rule()) == Some(Rule::kw_true);
                Ok(Expr::new(ExprKind::Bool(value), span))
            }
            Rule::path => {
                let mut parts = kids(&p);
                let kind = match (parts.next(), parts.next()) {
                    (Some(name), None) => ExprKind::Name(self.ident(&name)),
                    _ => ExprKind::Path(self.path(p)),
                };
                Ok(Expr::new(kind, span))
            }
            Rule::call => {
                let mut it = kids(&p);
                let func = self.ident(&self.next(&mut it, &p)?);
                let mut args = Vec::new();
                for a in it {
                    args.push(self.expr(a)?);
                }
                Ok(Expr::new(ExprKind::Call { func: Box::new(func), args }, span))
            }
            _ => Err(self.internal(span.start as usize, "an unknown expression")),
        }
    }

    /// Refuses expression trees deeper than [`MAX_EXPR_DEPTH`], so later passes may recurse.
    fn deep(&self, e: Expr) -> R<Expr> {
        if e.depth > MAX_EXPR_DEPTH {
            return Err(Box::new(
                Diagnostic::error(
                    Code::TooDeep,
                    e.span,
                    format!("this expression is nested more than {MAX_EXPR_DEPTH} deep"),
                )
                .label("too long or too deeply nested")
                .help("split it into several `derive` values"),
            ));
        }
        Ok(e)
    }

    // The levels of an `expr` pair's flat children, loosest first. Each returns the expression
    // and the byte range of the pairs it took: a comparison's or a `not`'s span is that range,
    // as it was when these levels were pairs of their own.

    /// `a or b or c`.
    fn or_level<'i, I: Iterator<Item = P<'i>>>(&self, it: &mut Peekable<I>, parent: &P<'i>) -> R<(Expr, Extent)> {
        let (mut lhs, mut extent) = self.and_level(it, parent)?;
        while it.next_if(|x| x.as_rule() == Rule::kw_or).is_some() {
            let (rhs, right) = self.and_level(it, parent)?;
            lhs = self.binary(BinOp::Or, lhs, rhs)?;
            extent.1 = right.1;
        }
        Ok((lhs, extent))
    }

    /// `a and b and c`.
    fn and_level<'i, I: Iterator<Item = P<'i>>>(&self, it: &mut Peekable<I>, parent: &P<'i>) -> R<(Expr, Extent)> {
        let (mut lhs, mut extent) = self.not_level(it, parent)?;
        while it.next_if(|x| x.as_rule() == Rule::kw_and).is_some() {
            let (rhs, right) = self.not_level(it, parent)?;
            lhs = self.binary(BinOp::And, lhs, rhs)?;
            extent.1 = right.1;
        }
        Ok((lhs, extent))
    }

    /// `not not x` is `x`: keep only the parity, so a long run of `not` cannot build a deep tree.
    fn not_level<'i, I: Iterator<Item = P<'i>>>(&self, it: &mut Peekable<I>, parent: &P<'i>) -> R<(Expr, Extent)> {
        let mut nots = 0usize;
        let mut first = None;
        while let Some(kw) = it.next_if(|x| x.as_rule() == Rule::kw_not) {
            first.get_or_insert(self.span(&kw).start as usize);
            nots += 1;
        }
        let (e, inner) = self.cmp_level(it, parent)?;
        let extent = (first.unwrap_or(inner.0), inner.1);
        if nots % 2 == 0 {
            return Ok((e, extent));
        }
        let span = Span::new(self.file, extent.0, extent.1);
        Ok((self.deep(Expr::new(ExprKind::Not(Box::new(e)), span))?, extent))
    }

    /// `a < b`, `who has c`, `who has c by w`, `who is r`, or just `a`.
    fn cmp_level<'i, I: Iterator<Item = P<'i>>>(&self, it: &mut Peekable<I>, parent: &P<'i>) -> R<(Expr, Extent)> {
        let (lhs, mut extent) = self.sum_level(it, parent)?;
        let Some(op) =
            it.next_if(|x| matches!(x.as_rule(), Rule::cmp_op | Rule::kw_has | Rule::kw_is | Rule::kw_holds))
        else {
            return Ok((lhs, extent));
        };
        let kind = match op.as_rule() {
            Rule::cmp_op => {
                let (rhs, right) = self.sum_level(it, parent)?;
                extent.1 = right.1;
                ExprKind::Compare { op: self.cmp_op(&op), lhs: Box::new(lhs), rhs: Box::new(rhs) }
            }
            rule => {
                let word = self.next(it, parent)?;
                extent.1 = self.span(&word).end as usize;
                if rule == Rule::kw_is {
                    ExprKind::Is { who: Box::new(lhs), relation: Box::new(self.ident(&word)) }
                } else if rule == Rule::kw_holds {
                    ExprKind::Holds { who: Box::new(lhs), kind: Box::new(self.ident(&word)) }
                } else {
                    // `has COND by WHO`: the optional `by` and its word follow.
                    let mut by = None;
                    if it.next_if(|x| x.as_rule() == Rule::kw_by).is_some() {
                        let who = self.next(it, parent)?;
                        extent.1 = self.span(&who).end as usize;
                        by = Some(Box::new(self.ident(&who)));
                    }
                    ExprKind::Has { who: Box::new(lhs), condition: Box::new(self.ident(&word)), by }
                }
            }
        };
        let span = Span::new(self.file, extent.0, extent.1);
        Ok((self.deep(Expr::new(kind, span))?, extent))
    }

    /// `a + b - c`.
    fn sum_level<'i, I: Iterator<Item = P<'i>>>(&self, it: &mut Peekable<I>, parent: &P<'i>) -> R<(Expr, Extent)> {
        let (mut lhs, mut extent) = self.product_level(it, parent)?;
        while let Some(op) = it.next_if(|x| x.as_rule() == Rule::add_op) {
            let (rhs, right) = self.product_level(it, parent)?;
            let op = if op.as_str() == "-" { BinOp::Sub } else { BinOp::Add };
            lhs = self.binary(op, lhs, rhs)?;
            extent.1 = right.1;
        }
        Ok((lhs, extent))
    }

    /// `a * b / c % d`.
    fn product_level<'i, I: Iterator<Item = P<'i>>>(&self, it: &mut Peekable<I>, parent: &P<'i>) -> R<(Expr, Extent)> {
        let first = self.next(it, parent)?;
        let mut extent = (self.span(&first).start as usize, self.span(&first).end as usize);
        let mut lhs = self.expr(first)?;
        while let Some(op) = it.next_if(|x| x.as_rule() == Rule::mul_op) {
            let operand = self.next(it, parent)?;
            extent.1 = self.span(&operand).end as usize;
            let rhs = self.expr(operand)?;
            let op = match op.as_str() {
                "*" => BinOp::Mul,
                "/" => BinOp::Div,
                _ => BinOp::Rem,
            };
            lhs = self.binary(op, lhs, rhs)?;
        }
        Ok((lhs, extent))
    }

    /// `lhs op rhs`, spanning both; refused when too deep.
    fn binary(&self, op: BinOp, lhs: Expr, rhs: Expr) -> R<Expr> {
        let span = lhs.span.to(rhs.span);
        self.deep(Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span))
    }
}
