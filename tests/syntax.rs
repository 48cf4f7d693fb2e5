//! Syntax errors as a designer sees them: one file per common mistake under `tests/syntax/`,
//! snapshotted. Each message must name what was expected in words, not grammar rule names.

use tempo::check::compile_path;
use tempo::diagnostics::{render, Code};

#[test]
fn common_mistakes_read_well() {
    let mut files: Vec<_> = std::fs::read_dir("tests/syntax").unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 10);
    for path in files {
        let c = compile_path(&path);
        assert_eq!(c.diagnostics.len(), 1, "{}", path.display());
        let d = &c.diagnostics[0];
        assert_eq!(d.code, Code::Syntax, "{}", path.display());
        for leak in ["kw_", "_clause", "_item", "_stmt", "EOI", "WHITESPACE", "something else"] {
            assert!(!d.message.contains(leak), "{}: `{}` leaks {leak}", path.display(), d.message);
        }
        let text = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 100 });
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        insta::assert_snapshot!(name, text);
    }
}

/// After a syntax error, parsing starts again at the next declaration: every broken declaration
/// of a file is reported in one run, each once, at its own place.
#[test]
fn every_broken_declaration_is_reported_in_one_run() {
    let text = "ruleset two
pool ap { max 3; refresh at turn_start }
action a { cost 1 ap; resolv { } }
stat s = 1
action b { cost ap 2 }
pool mp { max 2 }
condition c { blocks actions,, reactions }
";
    let c = tempo::check::compile_str("two.rules", text);
    let lines: Vec<usize> = c
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.code, Code::Syntax, "{}", d.message);
            text[..d.primary.span.start as usize].matches('\n').count() + 1
        })
        .collect();
    assert_eq!(lines, [3, 5, 7], "{:?}", c.diagnostics);
    let rendered = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 100 });
    insta::assert_snapshot!("several-broken-declarations", rendered);
    // A file whose declarations after the error are sound gets that one error only.
    let one = text.replace("resolv", "resolve").replace("cost ap 2", "cost 2 ap");
    let c = tempo::check::compile_str("one.rules", &one);
    assert_eq!(c.diagnostics.len(), 1, "{:?}", c.diagnostics);
}

/// Comments are blanks to the grammar, not a rule pest tries after every blank, so pest alone
/// would place these errors where the last rule was tried (the start of the declaration). They
/// stay where parsing got furthest, the word after a missing `{`, `=`, `:` or `)`, and name it.
#[test]
fn an_error_where_only_a_mark_was_wanted_is_placed_where_parsing_stopped_and_names_the_mark() {
    for (text, at, wanted) in [
        ("ruleset r\ninitiative  value 1d10 }\n", "value", "`{`"),
        ("ruleset r\nstat a 1\n", "1", "`=`"),
        ("ruleset r\nstat a = 1 # a note\nderive b{ = a\n", "{", "`=`"),
        ("ruleset r\ndegrees d {\n  hit: success whe margin >= 10\n  miss: failure\n}\n", "margin", "`:`"),
        // Only a `)` or an operator could come: the operators are never named.
        ("ruleset r\nstat a = (1 x)\n", "x", "`)`"),
    ] {
        let c = tempo::check::compile_str("r.rules", text);
        assert_eq!(c.diagnostics.len(), 1, "{text}: {:?}", c.diagnostics);
        let d = &c.diagnostics[0];
        let start = d.primary.span.start as usize;
        assert!(text[start..].starts_with(at), "{text}: placed at `{}`", &text[start..]);
        assert!(d.message.starts_with(&format!("expected {wanted}, found")), "{text}: {}", d.message);
    }
}
