//! A sheet as one self-contained HTML page: no scripts, no external assets, every text escaped,
//! styled for the screen and for print (two columns on paper, no entry split across a page).

use super::{markdown::change_line, Bullet, Entry, Group, Line, Piece, Sheet};
use crate::sim::html::escape;
use std::fmt::Write as _;

const STYLE: &str = "\
body { font: 14px/1.4 system-ui, sans-serif; color: #111; margin: 1.5rem auto; max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 0.2rem; }
h2 { font-size: 1.15rem; border-bottom: 1px solid #999; margin: 1.2rem 0 0.4rem; }
h3 { font-size: 1rem; margin: 0.8rem 0 0.3rem; }
p.meta { color: #555; margin: 0 0 0.8rem; }
ul { margin: 0.2rem 0; padding-left: 1.2rem; }
li { margin: 0.15rem 0; break-inside: avoid; }
code { font: 0.92em ui-monospace, monospace; background: #f2f2f2; padding: 0 0.15em; border-radius: 2px; }
.doc { color: #333; }
section.changes { background: #fff8e0; border: 1px solid #e0c870; padding: 0 0.8rem 0.5rem; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  section.entries { columns: 2; column-gap: 1.5rem; }
  h2 { break-after: avoid; }
  code { background: none; padding: 0; }
}
";

/// The whole page.
pub fn sheet(sheet: &Sheet) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>",
        escape(&sheet.title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&sheet.title));
    let _ = writeln!(
        out,
        "<p class=\"meta\">Cheat sheet of the ruleset <code>{}</code>, made by <code>tempo doc</code>.</p>",
        escape(&sheet.ruleset)
    );
    if let Some(changes) = &sheet.changes {
        let _ = writeln!(
            out,
            "<section class=\"changes\">\n<h2>Changes from the base (<code>{}</code>)</h2>",
            escape(&changes.base)
        );
        if changes.changes.is_empty() {
            out.push_str("<p>Nothing on this sheet differs from the base's.</p>\n");
        } else {
            out.push_str("<ul>\n");
            for change in &changes.changes {
                let _ = writeln!(out, "<li>{}</li>", line(&change_line(change)));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }
    for section in &sheet.sections {
        let _ = writeln!(out, "<section class=\"entries\">\n<h2>{}</h2>", escape(&section.title));
        bullets(&mut out, &section.intro);
        for group in &section.groups {
            write_group(&mut out, group);
        }
        out.push_str("</section>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// A nested list from bullets with depths.
fn bullets(out: &mut String, bullets: &[Bullet]) {
    if bullets.is_empty() {
        return;
    }
    let mut depth = 0;
    out.push_str("<ul>\n<li>");
    for (i, b) in bullets.iter().enumerate() {
        if i > 0 {
            if b.depth > depth {
                out.push_str("\n<ul>\n<li>");
                depth += 1;
            } else {
                while depth > b.depth {
                    out.push_str("</li>\n</ul>");
                    depth -= 1;
                }
                out.push_str("</li>\n<li>");
            }
        }
        // A bullet more than one level deeper than the last is set one level deeper only.
        out.push_str(&line(&b.line));
    }
    while depth > 0 {
        out.push_str("</li>\n</ul>");
        depth -= 1;
    }
    out.push_str("</li>\n</ul>\n");
}

fn write_group(out: &mut String, group: &Group) {
    if group.inline {
        let items: Vec<String> =
            group.entries.iter().map(|e| format!("<code>{}</code> = {}", escape(&e.name), line(&e.summary))).collect();
        let title = group.title.as_deref().unwrap_or("");
        let _ = writeln!(out, "<p><strong>{}</strong>: {}.</p>", escape(title), items.join(", "));
        return;
    }
    if let Some(title) = &group.title {
        let _ = writeln!(out, "<h3>{}</h3>", escape(title));
    }
    out.push_str("<ul>\n");
    for e in &group.entries {
        entry(out, e);
    }
    out.push_str("</ul>\n");
}

fn entry(out: &mut String, e: &Entry) {
    out.push_str("<li>");
    if e.kind != "rule" {
        match &e.label {
            Some(label) => {
                let _ = write!(out, "<strong>{}</strong> (<code>{}</code>): ", escape(label), escape(&e.name));
            }
            None => {
                let _ = write!(out, "<strong>{}</strong>: ", escape(&e.name));
            }
        }
    }
    out.push_str(&line(&e.summary));
    if let Some(doc) = &e.doc {
        let _ = write!(out, ". <span class=\"doc\">{}</span>", doc_text(doc));
    }
    if !e.details.is_empty() {
        out.push_str("\n<ul>\n");
        for d in &e.details {
            let _ = writeln!(out, "<li>{}</li>", line(d));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</li>\n");
}

fn line(line: &Line) -> String {
    let mut out = String::new();
    for piece in line {
        match piece {
            Piece::Text(t) => out.push_str(&escape(t)),
            Piece::Code(c) => {
                let _ = write!(out, "<code>{}</code>", escape(c));
            }
            Piece::Strong(s) => {
                let _ = write!(out, "<strong>{}</strong>", escape(s));
            }
        }
    }
    out
}

/// A doc comment: its `code` spans set as code, everything escaped.
fn doc_text(doc: &str) -> String {
    let parts: Vec<&str> = doc.split('`').collect();
    if parts.len() % 2 == 0 {
        // An unmatched backtick: plain text.
        return escape(doc);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| if i % 2 == 1 { format!("<code>{}</code>", escape(p)) } else { escape(p) })
        .collect()
}
