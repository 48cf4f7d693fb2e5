//! A sheet as Markdown: `tempo doc`'s default output, and the language server's hover.

use super::{Bullet, Change, Changes, Entry, Group, Line, Piece, Sheet};
use std::fmt::Write as _;

/// The whole sheet.
pub fn sheet(sheet: &Sheet) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", sheet.title);
    let _ = writeln!(out, "Cheat sheet of the ruleset `{}`, made by `tempo doc`.", sheet.ruleset);
    if let Some(changes) = &sheet.changes {
        changes_section(&mut out, changes);
    }
    for section in &sheet.sections {
        let _ = writeln!(out, "\n## {}\n", section.title);
        if !section.intro.is_empty() {
            bullets(&mut out, &section.intro);
            if !section.groups.is_empty() {
                out.push('\n');
            }
        }
        for (i, group) in section.groups.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            write_group(&mut out, group);
        }
    }
    out
}

fn changes_section(out: &mut String, changes: &Changes) {
    let _ = writeln!(out, "\n## Changes from the base (`{}`)\n", changes.base);
    if changes.changes.is_empty() {
        let _ = writeln!(out, "Nothing on this sheet differs from the base's.");
    }
    for change in &changes.changes {
        let _ = writeln!(out, "- {}", line(&change_line(change)));
    }
}

/// One change as a line: what it is, and for a changed entry the lines that differ.
pub(super) fn change_line(change: &Change) -> Line {
    let (verb, kind, name, label) = match change {
        Change::Added { kind, name, label } => ("Added", kind, name, label),
        Change::Removed { kind, name, label } => ("Removed", kind, name, label),
        Change::Changed { kind, name, label, .. } => ("Changed", kind, name, label),
    };
    let mut out = vec![Piece::Text(format!("{verb} "))];
    if kind == "rule" {
        out.push(Piece::Code(name.clone()));
    } else if kind == name {
        out.push(Piece::Strong(name.clone()));
    } else {
        out.push(Piece::Text(format!("{kind} ")));
        out.extend(title(label, name));
    }
    if let Change::Changed { was, now, .. } = change {
        let join = |lines: &[Line]| -> Line {
            let mut joined = Line::new();
            for (i, l) in lines.iter().enumerate() {
                if i > 0 {
                    joined.push(Piece::Text("; ".into()));
                }
                joined.extend(l.iter().cloned());
            }
            joined
        };
        match (was.is_empty(), now.is_empty()) {
            (_, false) => {
                out.push(Piece::Text(": now ".into()));
                out.extend(join(now));
                if !was.is_empty() {
                    out.push(Piece::Text(" (was ".into()));
                    out.extend(join(was));
                    out.push(Piece::Text(")".into()));
                }
            }
            (false, true) => {
                out.push(Piece::Text(": no longer ".into()));
                out.extend(join(was));
            }
            (true, true) => {}
        }
        if let Change::Changed { doc: Some(doc), .. } = change {
            out.push(Piece::Text(format!(". {doc}")));
        }
    }
    out
}

fn bullets(out: &mut String, bullets: &[Bullet]) {
    for b in bullets {
        let _ = writeln!(out, "{}- {}", "  ".repeat(b.depth), line(&b.line));
    }
}

fn write_group(out: &mut String, group: &Group) {
    if group.inline {
        let items: Vec<String> =
            group.entries.iter().map(|e| format!("{} = {}", code(&e.name), line(&e.summary))).collect();
        let title = group.title.as_deref().unwrap_or("");
        let _ = writeln!(out, "**{title}**: {}.", items.join(", "));
        return;
    }
    if let Some(title) = &group.title {
        let _ = writeln!(out, "### {title}\n");
    }
    for e in &group.entries {
        out.push_str(&entry_item(e));
    }
}

/// One entry as a list item (with its details as a nested list).
fn entry_item(e: &Entry) -> String {
    let mut out = format!("- {}\n", entry_line(e));
    for d in &e.details {
        let _ = writeln!(out, "  - {}", line(d));
    }
    out
}

/// The first line of an entry: its name and label, its summary, its doc.
fn entry_line(e: &Entry) -> String {
    let mut out = String::new();
    if e.kind != "rule" {
        out.push_str(&line(&title(&e.label, &e.name)));
        out.push_str(": ");
    }
    out.push_str(&line(&e.summary));
    if let Some(doc) = &e.doc {
        out.push_str(". ");
        out.push_str(doc);
    }
    out
}

/// One entry as the language server shows it on hover: its kind, then the sheet's lines.
pub fn entry(e: &Entry) -> String {
    let mut out = format!("{} {}\n", e.kind, entry_line(e));
    for d in &e.details {
        let _ = writeln!(out, "- {}", line(d));
    }
    out
}

fn title(label: &Option<String>, name: &str) -> Line {
    match label {
        Some(label) => vec![
            Piece::Strong(label.clone()),
            Piece::Text(" (".into()),
            Piece::Code(name.to_string()),
            Piece::Text(")".into()),
        ],
        None => vec![Piece::Strong(name.to_string())],
    }
}

/// A line in Markdown. Text (docs among it) is written as it is: a doc comment is Markdown.
pub(super) fn line(line: &Line) -> String {
    let mut out = String::new();
    for piece in line {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Code(c) => out.push_str(&code(c)),
            Piece::Strong(s) => {
                let _ = write!(out, "**{}**", s.replace('*', "\\*"));
            }
        }
    }
    out
}

/// Inline code that may itself hold backticks.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}
