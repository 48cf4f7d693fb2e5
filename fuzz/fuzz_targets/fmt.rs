//! Arbitrary UTF-8 through the formatter. The formatter formats exactly the texts that parse;
//! its output parses to the same tree (compared without spans, the way `tempo::fmt` compares:
//! name, extends, items and comments with trailing blanks dropped), and formatting the output
//! again changes nothing (idempotence).

#![no_main]

use libfuzzer_sys::fuzz_target;
use tempo::source::FileId;
use tempo::syntax::ast::{File, SameAs};
use tempo::syntax::parse;

fn same_meaning(a: &File, b: &File) -> bool {
    let comments = |f: &File| f.comments.iter().map(|c| (c.text.trim_end().to_string(), c.doc)).collect::<Vec<_>>();
    (&a.name, &a.extends, &a.items, comments(a)).same_as(&(&b.name, &b.extends, &b.items, comments(b)))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (tree, _) = parse(FileId::default(), text);
    match tempo::fmt::format_source(text) {
        Ok(formatted) => {
            let tree = tree.expect("the formatter formatted a text that does not parse");
            let (again, diagnostics) = parse(FileId::default(), &formatted);
            let again =
                again.unwrap_or_else(|| panic!("the formatted text does not parse: {diagnostics:?}\n{formatted}"));
            assert!(same_meaning(&tree, &again), "the formatted text says something else:\n{formatted}");
            let twice = tempo::fmt::format_source(&formatted).expect("the formatted text does not format");
            assert!(twice == formatted, "formatting is not idempotent:\n--- once\n{formatted}\n--- twice\n{twice}");
        }
        Err(e) => {
            assert!(tree.is_none(), "the formatter refused a text that parses: {e}");
        }
    }
});
