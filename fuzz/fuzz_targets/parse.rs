//! Arbitrary bytes (read as UTF-8, invalid sequences replaced) through the parser and the
//! tokenizer: neither may panic or overflow the stack; a file both accept gets a tree and tokens
//! whose spans lie inside the text, in order.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tempo::source::FileId;
use tempo::syntax;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = FileId::default();
    let (tree, diagnostics) = syntax::parse(file, &text);
    for d in &diagnostics {
        assert!(d.primary.span.end as usize <= text.len(), "diagnostic past the end: {d:?}");
    }
    assert_eq!(tree.is_some(), diagnostics.is_empty(), "a tree comes with no diagnostics, and only then");
    match syntax::tokenize(file, &text) {
        Ok(tokens) => {
            assert!(tree.is_some(), "tokenize accepted what parse refused");
            let mut at = 0;
            for t in &tokens {
                assert!(t.span.start as usize >= at && t.span.end as usize <= text.len(), "token out of order: {t:?}");
                at = t.span.end as usize;
            }
        }
        Err(_) => assert!(tree.is_none(), "parse accepted what tokenize refused"),
    }
});
