//! Parsing after an edit (`syntax::parse_after_edit`, what the language server does on every
//! change) gives the same tree as parsing the whole new text: the same items, spans, docs and
//! comments, or the same diagnostics when the new text does not parse.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tempo::source::FileId;
use tempo::syntax::{self, Previous};

/// Pieces an edit inserts: blanks, comments and docs, separators, words, whole declarations,
/// and text that breaks the parse.
const PIECES: &[&str] = &[
    " ",
    "\n",
    "\n\n",
    ";",
    "# a note\n",
    "## A doc line.\n",
    "x",
    "1",
    " + 1",
    "}",
    "{",
    "\"",
    "derive probe = 2\n",
    "\nstat probe_stat = 3\n",
    "\n## Documented.\nevent probe_event\n",
    "é",
];

fn rulesets() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["rulesets", "rulesets/variants", "rulesets/alternatives"] {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.extension().is_some_and(|e| e == "rules") {
                out.push((path.display().to_string(), std::fs::read_to_string(&path).expect("read a ruleset")));
            }
        }
    }
    assert!(out.len() >= 5, "the shipped rulesets are found");
    out
}

/// One random edit: a range replaced by a piece, a range deleted, or a line copied elsewhere.
fn edit(rng: &mut ChaCha8Rng, text: &str) -> String {
    let boundary = |rng: &mut ChaCha8Rng| {
        let mut at = (rng.next_u32() as usize) % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let a = boundary(rng);
    match rng.next_u32() % 4 {
        0 | 1 => {
            let piece = PIECES[(rng.next_u32() as usize) % PIECES.len()];
            let len = if rng.next_u32() % 2 == 0 { 0 } else { (rng.next_u32() % 12) as usize };
            let mut b = (a + len).min(text.len());
            while !text.is_char_boundary(b) {
                b += 1;
            }
            format!("{}{piece}{}", &text[..a], &text[b..])
        }
        2 => {
            let mut b = (a + (rng.next_u32() % 40) as usize).min(text.len());
            while !text.is_char_boundary(b) {
                b += 1;
            }
            format!("{}{}", &text[..a], &text[b..])
        }
        _ => {
            let line_start = text[..a].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[a..].find('\n').map_or(text.len(), |i| a + i + 1);
            let line = &text[line_start..line_end];
            let to = boundary(rng);
            format!("{}{line}{}", &text[..to], &text[to..])
        }
    }
}

fn whole(text: &str) -> String {
    format!("{:?}", syntax::parse(FileId(0), text))
}

#[test]
fn an_edited_file_parses_to_the_tree_a_whole_parse_gives() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    // Edits of large files whose text parses, and how many of them reused the old tree.
    let (mut reused, mut parsed) = (0, 0);
    for (name, text) in rulesets() {
        let (tree, diagnostics) = syntax::parse(FileId(0), &text);
        let tree = tree.unwrap_or_else(|| panic!("{name} parses: {diagnostics:?}"));
        let mut last = Previous { text: text.clone(), tree };
        // Each edit parses the whole new text too, and that parse is most of the time this test
        // takes in a debug build: 100 edits of each large ruleset (500 or more in all) and 30 of
        // each small one.
        let rounds = if text.len() > 10_000 { 100 } else { 30 };
        for round in 0..rounds {
            let new = edit(&mut rng, &last.text);
            let mut previous = Some(last);
            let (tree, diagnostics) = syntax::parse_after_edit(FileId(0), &new, &mut previous);
            // Small files (the variants) are mostly header and first item, which are always
            // parsed again; the reuse is counted on the five large ones.
            if tree.is_some() && new.len() > 10_000 {
                parsed += 1;
                reused += usize::from(previous.is_none());
            }
            let (got, want) = (format!("{:?}", (&tree, &diagnostics)), whole(&new));
            if got != want {
                let at = got.bytes().zip(want.bytes()).take_while(|(a, b)| a == b).count();
                let from = at.saturating_sub(300);
                panic!(
                    "{name}, edit {round}: the edited parse differs from a whole parse\n edited: ...{}\n  whole: ...{}",
                    &got[from..(at + 200).min(got.len())],
                    &want[from..(at + 200).min(want.len())],
                );
            }
            // Go on from the new text when it parsed, else from the last one that did.
            last = match tree {
                Some(tree) => Previous { text: new, tree },
                None => previous.unwrap_or_else(|| panic!("{name}, edit {round}: a failed parse gives the tree back")),
            };
        }
    }
    // The comparison means something only if the trees were reused in most edits.
    eprintln!("{reused} of {parsed} parsed edits of large files reused the old tree");
    assert!(parsed > 100, "only {parsed} edits parsed");
    assert!(reused * 10 > parsed * 7, "the old tree was reused in {reused} of {parsed} edits that parsed");
}

#[test]
fn an_edit_of_the_header_or_another_file_parses_the_whole_text() {
    let text = "ruleset a\nstat s = 1\nstat t = 2\nstat u = 3\n";
    let (tree, _) = syntax::parse(FileId(0), text);
    let mut previous = Some(Previous { text: text.to_string(), tree: tree.expect("parses") });
    let renamed = text.replace("ruleset a", "ruleset b");
    let (tree, _) = syntax::parse_after_edit(FileId(0), &renamed, &mut previous);
    assert!(previous.is_some(), "a header edit does not reuse the tree");
    assert_eq!(tree.expect("parses").name.name, "b");
    let (tree, _) = syntax::parse_after_edit(FileId(1), text, &mut previous);
    assert!(previous.is_some(), "a tree of another file is not reused");
    assert_eq!(tree.expect("parses").file, FileId(1));
}
