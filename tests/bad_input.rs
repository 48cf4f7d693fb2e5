//! Hostile input: nothing panics, hangs or overflows the stack, and each case gets its code.

use std::path::Path;
use tempo::check::{compile_str, compile_with, MemoryLoader};
use tempo::diagnostics::Code;

fn codes_of(text: &str) -> Vec<Code> {
    compile_str("input.rules", text).diagnostics.iter().map(|d| d.code).collect()
}

fn codes_of_bytes(bytes: &[u8]) -> Vec<Code> {
    let loader = MemoryLoader::new().with("input.rules", bytes.to_vec());
    compile_with(&loader, Path::new("input.rules")).diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn empty_file() {
    assert_eq!(codes_of(""), vec![Code::EmptyFile]);
    assert_eq!(codes_of("  \n\t\n# only a comment\n"), vec![Code::EmptyFile]);
}

#[test]
fn binary_file() {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    assert_eq!(codes_of_bytes(&bytes), vec![Code::NotText]);
    assert_eq!(codes_of_bytes(b"ruleset x\n\0\0\0"), vec![Code::NotText]);
}

#[test]
fn invalid_utf8() {
    assert_eq!(codes_of_bytes(b"ruleset x\nstat a = 1 \xc3\x28\n"), vec![Code::NotText]);
}

#[test]
fn ten_megabyte_files() {
    // Junk: one syntax error, found quickly.
    let junk = "@".repeat(10 * 1024 * 1024);
    assert_eq!(codes_of(&junk), vec![Code::Syntax]);
    // A valid header followed by 10 MB of stats compiles. A debug build takes minutes over it,
    // most of a fresh `cargo test`, so there it is 1 MB (the same code, one tenth of the lines);
    // `cargo test --release` reads the full 10 MB.
    let size = if cfg!(debug_assertions) { 1024 * 1024 } else { 10 * 1024 * 1024 };
    let mut big = String::from("ruleset big\ninitiative { value 0 }\nround { phase act: turns }\n");
    let mut i = 0;
    while big.len() < size {
        big.push_str(&format!("stat s{i} = {i} + 1\n"));
        i += 1;
    }
    assert_eq!(codes_of(&big), Vec::<Code>::new());
}

#[test]
fn deep_nesting_is_refused_before_the_parser_recurses() {
    let parens = format!("ruleset x\nstat a = {}1{}\n", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(codes_of(&parens), vec![Code::TooDeep]);
    let braces = format!("ruleset x\nat turn_start {}\n", "{".repeat(100_000));
    assert_eq!(codes_of(&braces), vec![Code::TooDeep]);
    let ifs = format!("ruleset x\nat turn_start {{ {} }}\n", "if true { ".repeat(50_000));
    assert_eq!(codes_of(&ifs), vec![Code::TooDeep]);
    // Long chains of unary operators do not recurse in the grammar.
    let negs =
        format!("ruleset x\ninitiative {{ value 0 }}\nround {{ phase a: turns }}\nstat a = {}1\n", "-".repeat(100_000));
    assert_eq!(codes_of(&negs), Vec::<Code>::new());
    let nots = format!(
        "ruleset x\ninitiative {{ value 0 }}\nround {{ phase a: turns }}\npool p {{ max 1 }}\nat turn_start if {}true {{ p += 1 }}\n",
        "not ".repeat(50_000)
    );
    assert_eq!(codes_of(&nots), Vec::<Code>::new());
}

#[test]
fn numbers_too_large() {
    let text = "ruleset x\ninitiative { value 0 }\nround { phase a: turns }\nstat a = 99999999999999999999999\nstat b = 99999999999d6\nstat c = 1d99999999999\n";
    assert_eq!(codes_of(text), vec![Code::NumberTooLarge, Code::NumberTooLarge, Code::NumberTooLarge]);
    // Arithmetic on large constants is checked, not wrapped, when it is evaluated at compile time.
    let fine =
        "ruleset x\ninitiative { value 0 }\nround { phase a: turns }\nstat a = 9223372036854775807\nstat b = a * a\n";
    assert_eq!(codes_of(fine), Vec::<Code>::new());
}

#[test]
fn a_file_that_extends_itself() {
    let loader = MemoryLoader::new().with("a.rules", "ruleset a extends \"a.rules\"\n");
    let c = compile_with(&loader, Path::new("a.rules"));
    assert_eq!(c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::ExtendsCycle]);
}

#[test]
fn a_cycle_of_files() {
    let loader = MemoryLoader::new()
        .with("dir/a.rules", "ruleset a extends \"b.rules\"\n")
        .with("dir/b.rules", "ruleset b extends \"./c.rules\"\n")
        .with("dir/c.rules", "ruleset c extends \"../dir/a.rules\"\n");
    let c = compile_with(&loader, Path::new("dir/a.rules"));
    assert_eq!(c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::ExtendsCycle]);
    assert_eq!(c.sources.name(c.diagnostics[0].primary.span.file), "dir/c.rules");
}

#[test]
fn a_missing_base_file() {
    let loader = MemoryLoader::new().with("v.rules", "ruleset v extends \"nowhere.rules\"\n");
    let c = compile_with(&loader, Path::new("v.rules"));
    assert_eq!(c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::MissingBase]);
    assert!(!c.unreadable, "the file asked for was read; exit code 1, not 2");
}

#[test]
fn an_unreadable_file() {
    let c = tempo::check::compile_path(Path::new("tests/no-such-file.rules"));
    assert!(c.unreadable);
    assert_eq!(c.diagnostics[0].code, Code::UnreadableFile);
    let c = tempo::check::compile_path(Path::new("tests"));
    assert!(c.unreadable, "a folder is not a file");
}

/// The deepest nesting the parser accepts fits a test thread's stack (2 MiB) in a debug build,
/// so a library user on an ordinary thread cannot be crashed by a file the parser accepts.
#[test]
fn the_deepest_accepted_nesting_fits_a_small_stack() {
    let depth = tempo::syntax::MAX_DEPTH;
    let text = format!(
        "ruleset x\ninitiative {{ value 0 }}\nround {{ phase a: turns }}\nstat a = {}1{}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let worker = std::thread::Builder::new().stack_size(2 << 20).spawn(move || codes_of(&text));
    let codes = worker.expect("thread starts").join().expect("no stack overflow");
    assert!(!codes.contains(&Code::TooDeep), "{codes:?}");
}

#[test]
fn greedy_weighs_a_die_of_four_billion_sides_without_asking_for_gigabytes() {
    // The checker refuses dice over 1,000,000 sides, but a compiled IR edited by hand reaches the
    // runner unchecked. The Greedy policy's score works out a roll's distribution; a huge die
    // must fall back to its average instead of allocating one entry per side (32 GB here).
    let rules = r#"ruleset huge
initiative { value 1 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
pool hp { max 100; when <= 0 { apply down } }
condition down { blocks actions, free_actions, reactions }
action strike { cost 1 ap; target enemy; resolve { target.hp -= 1d20 } }
"#;
    let c = compile_str("huge.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let ron = c.ruleset.expect("compiles").to_ron().expect("writes");
    let edited = ron.replace("sides: 20,", "sides: 4000000000,");
    assert_ne!(edited, ron, "the die is in the IR");
    // `tempo run` refuses it (`from_ron` validates); a library caller can still build one.
    let refused = tempo::ir::Ruleset::from_ron(&edited).expect_err("dice past the limits are refused");
    assert!(refused.contains("dice 1d4000000000"), "{refused}");
    let r: tempo::ir::Ruleset = ron::from_str(&edited).expect("the edited IR reads");
    let s = tempo::run::scenario::parse(
        r#"(rounds: 2, participants: [
  (name: "A", side: "a", controller: Policy(Greedy)),
  (name: "B", side: "b", controller: Policy(Greedy)),
])"#,
    )
    .expect("parses");
    let text = tempo::run::trace::to_text(&tempo::run::run(&r, &s, Some(1)).expect("plays"));
    assert!(text.contains("A uses strike"), "{text}");
}
