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
