//! The language reference keeps its examples honest: every ```rules block in `docs/language.md`
//! is a complete ruleset that compiles without errors (warnings are allowed). Blocks that are
//! only a piece of a ruleset say so with the info string `rules fragment` and are not compiled.
//! The reserved-words table is checked against the grammar's `reserved` rule.

use std::path::Path;
use tempo::check::compile_str;
use tempo::diagnostics::render;

const DOC: &str = "docs/language.md";

/// A fenced block: its info string, its text, and the line of its opening fence (1-based).
struct Block {
    info: String,
    text: String,
    line: usize,
}

/// Every fenced block (``` or longer fences) in a markdown text.
fn fenced_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    // The open block: (fence length, info string, line of the opening fence, lines so far).
    let mut open: Option<(usize, String, usize, Vec<&str>)> = None;
    for (i, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|c| *c == '`').count();
        match &mut open {
            None if ticks >= 3 => open = Some((ticks, trimmed[ticks..].trim().to_string(), i + 1, Vec::new())),
            None => {}
            Some((fence, _, _, _)) if ticks >= *fence && trimmed[ticks..].trim().is_empty() => {
                let (_, info, line, lines) = open.take().unwrap();
                blocks.push(Block { info, text: lines.join("\n") + "\n", line });
            }
            Some((_, _, _, lines)) => lines.push(line),
        }
    }
    if let Some((_, info, line, _)) = open {
        panic!("{DOC}:{line}: the ```{info} block is never closed");
    }
    blocks
}

fn read_doc() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn every_rules_example_compiles() {
    let doc = read_doc();
    let blocks = fenced_blocks(&doc);
    let mut compiled = 0;
    let mut failures = Vec::new();
    for block in &blocks {
        // A typo in the info string (`rule`, `rules-fragment`) would silently skip a block.
        if block.info.starts_with("rules") && block.info != "rules" && block.info != "rules fragment" {
            failures.push(format!(
                "{DOC}:{}: unknown info string `{}`; use `rules` (compiled) or `rules fragment`",
                block.line, block.info
            ));
            continue;
        }
        if block.info != "rules" {
            continue;
        }
        compiled += 1;
        let c = compile_str("example.rules", &block.text);
        if c.has_errors() {
            let shown = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 100 });
            failures.push(format!("{DOC}:{}: this ```rules block does not compile:\n{shown}", block.line));
        }
    }
    assert!(failures.is_empty(), "{} problem(s):\n\n{}", failures.len(), failures.join("\n"));
    assert!(compiled >= 20, "only {compiled} ```rules blocks were compiled; expected at least 20");
}

#[test]
fn reserved_words_table_matches_the_grammar() {
    let grammar_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar/tempo.pest");
    let grammar = std::fs::read_to_string(grammar_path).unwrap();
    let rule = grammar.lines().find(|l| l.trim_start().starts_with("reserved ")).expect("no `reserved` rule");
    let words: Vec<&str> = rule.split('"').skip(1).step_by(2).collect();
    assert!(!words.is_empty(), "no words in: {rule}");
    let doc = read_doc();
    let section = doc.split("## Reserved words").nth(1).expect("no `## Reserved words` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let listed: Vec<&str> =
        section.lines().filter_map(|l| l.strip_prefix("| `")).filter_map(|l| l.split('`').next()).collect();
    let mut missing: Vec<&str> = words.iter().copied().filter(|w| !listed.contains(w)).collect();
    let mut extra: Vec<&str> = listed.iter().copied().filter(|w| !words.contains(w)).collect();
    missing.sort_unstable();
    extra.sort_unstable();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the reserved-words table in {DOC} differs from the grammar: missing {missing:?}, not reserved {extra:?}"
    );
}

#[test]
fn fences_are_found() {
    let blocks = fenced_blocks("text\n```rules\nruleset a\n```\n\n````rules fragment\nx\n```\n````\n");
    assert_eq!(blocks.len(), 2);
    assert_eq!((blocks[0].info.as_str(), blocks[0].line, blocks[0].text.as_str()), ("rules", 2, "ruleset a\n"));
    assert_eq!((blocks[1].info.as_str(), blocks[1].line, blocks[1].text.as_str()), ("rules fragment", 6, "x\n```\n"));
}
