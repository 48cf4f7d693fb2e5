//! A variant's changes: its base's entries and its own, matched by kind and name.

use super::{Change, Changes, Entry, Line, Piece, Section};

/// What `now` (the variant's sections) adds, removes and changes compared with `before` (its
/// base's), in the order of the variant's sheet, removals last. An entry is changed when any of
/// its lines reads differently; only those lines are kept.
pub(super) fn compare(base: String, before: &[Section], now: &[Section]) -> Changes {
    let entries = |sections: &[Section]| -> Vec<Entry> {
        sections.iter().flat_map(|s| &s.groups).flat_map(|g| &g.entries).cloned().collect()
    };
    let (before, now) = (entries(before), entries(now));
    let same = |a: &Entry, b: &Entry| a.kind == b.kind && a.name == b.name;
    let mut changes = Vec::new();
    for entry in &now {
        match before.iter().find(|b| same(b, entry)) {
            None => changes.push(Change::Added {
                kind: entry.kind.clone(),
                name: entry.name.clone(),
                label: entry.label.clone(),
            }),
            Some(old) => {
                let (was, now) = (lines(old), lines(entry));
                if was != now || old.doc != entry.doc {
                    changes.push(Change::Changed {
                        kind: entry.kind.clone(),
                        name: entry.name.clone(),
                        label: entry.label.clone(),
                        was: was.iter().filter(|l| !now.contains(l)).cloned().collect(),
                        now: now.iter().filter(|l| !was.contains(l)).cloned().collect(),
                        doc: if old.doc != entry.doc { entry.doc.clone() } else { None },
                    });
                }
            }
        }
    }
    for entry in before.iter().filter(|b| !now.iter().any(|n| same(b, n))) {
        changes.push(Change::Removed {
            kind: entry.kind.clone(),
            name: entry.name.clone(),
            label: entry.label.clone(),
        });
    }
    Changes { base, changes }
}

/// An entry's lines as the sheet shows them, its summary cut at each `; ` so that one changed
/// fact is one changed line: its label, the summary's parts, the details. Not its doc.
fn lines(entry: &Entry) -> Vec<Line> {
    let mut out = Vec::new();
    if let Some(label) = &entry.label {
        out.push(vec![Piece::Text(format!("labelled \"{label}\""))]);
    }
    let mut part = Line::new();
    for piece in &entry.summary {
        if *piece == Piece::Text("; ".into()) {
            out.push(std::mem::take(&mut part));
        } else {
            part.push(piece.clone());
        }
    }
    out.push(part);
    out.extend(entry.details.iter().cloned());
    out
}
