//! `tempo fmt`: the shipped rulesets are in the canonical layout; formatting is idempotent, keeps
//! every comment and never changes the compiled IR, on shipped, test and generated files; the
//! command writes atomically, `--check` writes nothing, and a file that does not parse is left alone.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempo::check::{compile_with, MemoryLoader};
use tempo::fmt::format_source;

/// Every `*.rules` file under `dir`, sorted.
fn rules_under(dir: &str) -> Vec<PathBuf> {
    let (files, errors) = tempo::fmt::files::rules_files(&[PathBuf::from(dir)]);
    assert!(errors.is_empty(), "{errors:?}");
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The RON of an IR without the rules' source locations (the `file`, `line` and `column` of each
/// `loc`, the only fields of those names): formatting moves rules to other lines and columns,
/// and changes nothing else.
fn without_locations(ron: String) -> String {
    let mut out = String::new();
    for line in ron.lines() {
        let field = line.trim_start();
        if !(field.starts_with("file: ") || field.starts_with("line: ") || field.starts_with("column: ")) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The RON of the IR of `path` compiled with `text` in its place, the other files of `rulesets/`
/// and `tests/` around it (so a file that `extends` finds its base); `None` when it has errors.
/// Source locations are left out (see `without_locations`).
fn ir_with(path: &Path, text: &str) -> Option<String> {
    // The loader reads the first file given under a path, so the replacement goes first.
    let mut loader = MemoryLoader::new().with(path, text);
    for other in rules_under("rulesets").into_iter().chain(rules_under("tests")) {
        let bytes = std::fs::read(&other).unwrap();
        loader = loader.with(other, bytes);
    }
    compile_with(&loader, path).ruleset.map(|r| without_locations(r.to_ron().unwrap()))
}

fn fmt(text: &str) -> String {
    match format_source(text) {
        Ok(out) => out,
        Err(e) => panic!("does not format: {:?}", e.diagnostics),
    }
}

/// The comments of a text, in order, without trailing blanks.
fn comments(text: &str) -> Vec<String> {
    let (tree, _) = tempo::syntax::parse(Default::default(), text);
    tree.unwrap().comments.iter().map(|c| c.text.trim_end().to_string()).collect()
}

fn tempo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(args).env("NO_COLOR", "1").output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh, empty folder for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tempo-fmt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn every_shipped_ruleset_is_formatted() {
    let files = rules_under("rulesets");
    assert!(files.len() >= 19);
    for path in files {
        let text = read(&path);
        assert!(fmt(&text) == text, "{} is not formatted: run `tempo fmt rulesets/`", path.display());
    }
}

#[test]
fn fmt_check_passes_on_the_shipped_rulesets() {
    let (code, stdout, stderr) = tempo(&["fmt", "--check", "rulesets/"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
}

#[test]
fn formatting_is_idempotent_and_keeps_the_ir_of_every_file_that_parses() {
    let mut files = rules_under("rulesets");
    files.extend(rules_under("tests"));
    let mut formatted = 0;
    for path in &files {
        let Ok(text) = String::from_utf8(std::fs::read(path).unwrap()) else { continue };
        let Ok(once) = format_source(&text) else { continue };
        formatted += 1;
        assert_eq!(fmt(&once), once, "{} is not idempotent", path.display());
        assert_eq!(comments(&once), comments(&text), "{} lost a comment", path.display());
        assert_eq!(ir_with(path, &once), ir_with(path, &text), "{} changed meaning", path.display());
    }
    assert!(formatted >= 40, "only {formatted} files formatted");
}

/// Comments at the end of lines, between clauses, inside and at the end of blocks, in the middle
/// of a clause, around blank lines and at the end of the file.
const AWKWARD: &str = r#"# Header comment.

# A second group, after a blank line.
ruleset awkward # after the header
## Docs for the title.
title   "Awkward"   ;


stat a=1;stat b = 2 # two items on one line
derive c = a+b*-(a-  b)  # trailing
## The action points.
pool ap "AP" { max 3 # three
  # between clauses

  refresh at turn_start ; lose at turn_end
  # before the closing brace
}
pool mp { max a + # inside an expression
  b
  }
initiative { value 1d20 ; order highest_first }
condition prone { blocks spend mp }
round { phase act : turns }
action strike { target enemy within 1 ; resolve { if a>1 { ap -= 1 ; emit hit } else { mp += 1 }
  check 1d20 + a vs target.b {
    success { target.hp -= 1 } # after an outcome
    failure {
      # an empty block with a comment
    }
  }
  choose self "Which?" { one: { hp = 1 }, two: { hp -= 2 } }
  }
}
event hit
pool hp { max 10 }
at turn_start {}
# The end.
"#;

#[test]
fn comments_in_awkward_places_are_all_kept() {
    let once = fmt(AWKWARD);
    assert_eq!(comments(&once), comments(AWKWARD));
    assert_eq!(fmt(&once), once);
    let c = tempo::check::compile_str("awkward.rules", AWKWARD);
    assert!(c.ruleset.is_some(), "{:?}", c.diagnostics);
    assert_eq!(ir_of_single(&once), ir_of_single(AWKWARD), "the IR is the same before and after formatting");
    insta::assert_snapshot!("awkward", once);
}

fn ir_of_single(text: &str) -> Option<String> {
    tempo::check::compile_str("x.rules", text).ruleset.map(|r| without_locations(r.to_ron().unwrap()))
}

/// The before and after blocks of the example in `docs/formatting.md`.
#[test]
fn the_documented_example_is_what_fmt_does() {
    let doc = read(Path::new("docs/formatting.md"));
    let blocks: Vec<&str> = doc.split("```rules fragment\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert_eq!(blocks.len(), 2, "docs/formatting.md has one before and one after block");
    assert_eq!(fmt(blocks[0]), blocks[1]);
}

/// Issue 32: a chain written a branch a line was joined into one line of 200 characters.
#[test]
fn an_else_chain_written_a_branch_a_line_stays_so() {
    let chain = "ruleset c\npool hp { max 10 }\naction a {\n  resolve {\n    if hp > 8 { hp -= 1 }\n    else if hp > 6 { hp -= 2 }\n    else if hp > 4 { hp -= 3 }\n    else { hp -= 5 }\n  }\n}\n";
    assert_eq!(fmt(chain), chain);
    let messy = chain.replace("    else if hp > 6", "else   if hp>6");
    assert_eq!(fmt(&messy), chain);
    // Written on one line, or `} else {` after braces over lines: one line, as before.
    let joined = "ruleset c\npool hp { max 10 }\naction a { resolve { if hp > 8 { hp -= 1 } else { hp -= 5 } } }\n";
    assert_eq!(fmt(joined), joined);
    let lines = "ruleset c\npool hp { max 10 }\naction a {\n  resolve {\n    if hp > 8 {\n      hp -= 1\n    }\n    else {\n      hp -= 5\n    }\n  }\n}\n";
    assert!(fmt(lines).contains("    } else {\n"), "{}", fmt(lines));
}

#[test]
fn docs_stay_attached_to_their_declarations() {
    let text = "ruleset d\n## Points.\n\n## Action points.\n# not a doc\npool ap { max 1 }\n";
    let (before, _) = tempo::syntax::parse(Default::default(), text);
    let (after, _) = tempo::syntax::parse(Default::default(), &fmt(text));
    let doc = |f: Option<tempo::syntax::ast::File>| f.unwrap().items[0].doc.clone();
    assert_eq!(doc(after), doc(before));
}

#[test]
fn text_that_does_not_parse_is_not_formatted() {
    for text in ["", "# only a comment\n", "ruleset x\npool ap { max 3 +\n}", "ruleset x\n\0", "pool"] {
        let e = format_source(text).unwrap_err();
        assert!(!e.diagnostics.is_empty(), "{text:?}");
    }
    let deep = format!("ruleset x\nstat a = {}1{}\n", "(".repeat(100), ")".repeat(100));
    assert!(format_source(&deep).is_err());
}

/// On the stack of a main thread (8 MiB). A test thread's 2 MiB is not enough for the parser
/// itself at this depth in a debug build, which is the parser's limit, not the formatter's.
#[test]
fn the_deepest_nesting_the_parser_accepts_formats() {
    let depth = tempo::syntax::MAX_DEPTH - 1;
    let text = format!("ruleset x\nstat a = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    let formatted = std::thread::Builder::new().stack_size(8 << 20).spawn(move || fmt(&text) == text).unwrap();
    assert!(formatted.join().unwrap());
}

#[test]
fn fmt_writes_in_place_atomically_and_check_writes_nothing() {
    let dir = temp_dir("write");
    let file = dir.join("messy.rules");
    let messy = "ruleset messy;stat a=1\npool ap{max 3;refresh at turn_start}\n";
    std::fs::write(&file, messy).unwrap();
    let name = file.to_str().unwrap();

    let (code, stdout, _) = tempo(&["fmt", "--check", name]);
    assert_eq!((code, stdout.trim()), (1, name), "--check lists the file and exits 1");
    assert_eq!(read(&file), messy, "--check writes nothing");

    let (code, _, stderr) = tempo(&["fmt", name]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read(&file), "ruleset messy\nstat a = 1\npool ap { max 3; refresh at turn_start }\n");
    assert_eq!(names_in(&dir), ["messy.rules"], "no temporary file is left behind");

    let (code, stdout, _) = tempo(&["fmt", "--check", name]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_link_stays_a_link_and_permissions_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("link");
    let real = dir.join("real.rules");
    std::fs::write(&real, "ruleset   linked").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.join("link.rules");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(tempo(&["fmt", link.to_str().unwrap()]).0, 0);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(read(&real), "ruleset linked\n");
    assert_eq!(std::fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(names_in(&dir), ["link.rules", "real.rules"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_means_every_rules_file_under_it() {
    let dir = temp_dir("folder");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.rules"), "ruleset a ;").unwrap();
    std::fs::write(dir.join("sub/b.rules"), "ruleset  b").unwrap();
    std::fs::write(dir.join("notes.txt"), "ruleset  c").unwrap();
    let (code, stdout, _) = tempo(&["fmt", "--check", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert_eq!(tempo(&["fmt", dir.to_str().unwrap()]).0, 0);
    assert_eq!(read(&dir.join("a.rules")), "ruleset a\n");
    assert_eq!(read(&dir.join("sub/b.rules")), "ruleset b\n");
    assert_eq!(read(&dir.join("notes.txt")), "ruleset  c", "only `.rules` files are taken from a folder");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_that_does_not_parse_is_left_alone_with_exit_code_1() {
    let dir = temp_dir("broken");
    let file = dir.join("broken.rules");
    let broken = "ruleset broken\npool ap {   max 3 +\n}\n";
    std::fs::write(&file, broken).unwrap();
    for args in [vec!["fmt"], vec!["fmt", "--check"]] {
        let mut args = args.clone();
        args.push(file.to_str().unwrap());
        let (code, _, stderr) = tempo(&args);
        assert_eq!(code, 1, "{args:?}");
        assert!(stderr.contains("tempo::syntax"), "the diagnostic is printed as `check` prints it: {stderr}");
        assert!(stderr.contains("broken.rules"), "{stderr}");
        assert_eq!(read(&file), broken);
    }
    assert_eq!(names_in(&dir), ["broken.rules"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fmt_exit_codes() {
    assert_eq!(tempo(&["fmt"]).0, 2, "no file is a usage error");
    assert_eq!(tempo(&["fmt", "--bogus", "rulesets/"]).0, 2);
    assert_eq!(tempo(&["fmt", "--check", "tests/no-such-file.rules"]).0, 2);
    assert_eq!(tempo(&["fmt", "--check", "rulesets/frontiers.rules", "tests/no-such-file.rules"]).0, 2);
    assert_eq!(tempo(&["fmt", "--check", "tests/diagnostics/not-text.rules"]).0, 1);
    let (code, stdout, _) = tempo(&["fmt", "--help"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("--check"));
}

// ---------------------------------------------------------------------------------------------
// Generated inputs: shipped rulesets with their layout thrown about.

/// One token of a rules text, as far as layout is concerned: what may not be split.
fn lex(text: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        let Some(c) = rest.chars().next() else { break };
        let len = if c == '#' {
            rest.find('\n').unwrap_or(rest.len())
        } else if c == '"' {
            let mut escaped = false;
            let mut end = rest.len();
            for (i, ch) in rest.char_indices().skip(1) {
                match (escaped, ch) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => {
                        end = i + 1;
                        break;
                    }
                    _ => {}
                }
            }
            end
        } else if c.is_alphanumeric() || c == '_' {
            rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_')).unwrap_or(rest.len())
        } else if ["+=", "-=", "==", "!=", "<=", ">="].iter().any(|op| rest.starts_with(op)) {
            2
        } else {
            c.len_utf8()
        };
        tokens.push(&rest[..len]);
        rest = &rest[len..];
    }
    tokens
}

/// Reads choices from a tape of random bytes, over and over.
struct Tape<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Tape<'_> {
    fn next(&mut self) -> u8 {
        let b = self.bytes.get(self.at % self.bytes.len().max(1)).copied().unwrap_or(0);
        self.at += 1;
        b.wrapping_add((self.at / self.bytes.len().max(1)) as u8)
    }
}

/// Adds optional `;` (or `,` between choices) at the end of some lines of a formatted text.
fn add_separators(text: &str, tape: &mut Tape) -> String {
    let mut out = String::new();
    let mut in_choose = vec![false];
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('}') && in_choose.len() > 1 {
            in_choose.pop();
        }
        out.push_str(line);
        let ends_clause = !trimmed.is_empty()
            && !trimmed.contains('#')
            && !trimmed.ends_with(['{', ',', ':', '+', '='])
            && !trimmed.starts_with("else");
        if trimmed.ends_with('{') {
            in_choose.push(trimmed.starts_with("choose "));
        } else if ends_clause && tape.next() % 3 == 0 {
            out.push_str(if in_choose.last() == Some(&true) { "," } else { ";" });
        }
        out.push('\n');
    }
    out
}

/// The tokens of `text` with new whitespace, comments and doc comments between them.
fn respace(text: &str, tape: &mut Tape) -> String {
    const GAPS: [&str; 8] = [" ", "  ", "\n", "\n\n", "\t", " \n   ", "\n\n\n", "\r\n"];
    let mut out = String::new();
    let mut prev: Option<&str> = None;
    for token in lex(text) {
        if let Some(p) = prev {
            let choice = tape.next();
            if p.starts_with('#') {
                out.push('\n');
            } else if choice % 7 == 0 {
                out.push_str(if choice % 2 == 0 { " # note\n" } else { "\n## doc\n" });
            } else {
                out.push_str(GAPS[(choice % 8) as usize]);
            }
        }
        out.push_str(token);
        prev = Some(token);
    }
    out.push('\n');
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A shipped ruleset with random layout, comments and separators: formatting it once is
    /// formatting it for good, keeps every comment, and compiles to the same IR.
    #[test]
    fn generated_layouts_format_idempotently_to_the_same_ir(which in any::<usize>(), bytes in prop::collection::vec(any::<u8>(), 1..64)) {
        let files = rules_under("rulesets");
        let path = &files[which % files.len()];
        let mut tape = Tape { bytes: &bytes, at: 0 };
        let text = respace(&add_separators(&read(path), &mut tape), &mut tape);
        let once = match format_source(&text) {
            Ok(once) => once,
            Err(e) => panic!("generated text does not format: {:?}\n{text}", e.diagnostics),
        };
        prop_assert_eq!(fmt(&once), once.clone());
        prop_assert_eq!(comments(&once), comments(&text));
        let original = ir_with(path, &text);
        prop_assert!(original.is_some(), "generated text does not compile:\n{}", text);
        prop_assert_eq!(ir_with(path, &once), original);
    }

    /// A shipped ruleset with a few bytes cut out or repeated: formatting returns, and what it
    /// formats it formats for good, with every comment kept.
    #[test]
    fn mutated_rulesets_format_or_are_refused(which in any::<usize>(), cuts in prop::collection::vec((any::<usize>(), 0usize..24, any::<bool>()), 1..4)) {
        let files = rules_under("rulesets");
        let mut text = read(&files[which % files.len()]).into_bytes();
        for (at, len, repeat) in cuts {
            let at = at % text.len().max(1);
            let end = (at + len).min(text.len());
            let piece = text[at..end].to_vec();
            if repeat { text.splice(end..end, piece); } else { text.drain(at..end); }
        }
        let Ok(text) = String::from_utf8(text) else { return Ok(()) };
        let parses = tempo::syntax::parse(Default::default(), &text).0.is_some();
        prop_assert_eq!(format_source(&text).is_ok(), parses, "formats exactly what parses");
        if let Ok(once) = format_source(&text) {
            prop_assert_eq!(fmt(&once), once.clone());
            prop_assert_eq!(comments(&once), comments(&text));
        }
    }

    /// Whatever the text, formatting returns (no panic) and formats exactly what parses.
    #[test]
    fn any_text_formats_or_is_refused(text in "(ruleset [a-z]{1,5}[ \n;]*)?[ -~\n]{0,200}") {
        let parses = tempo::syntax::parse(Default::default(), &text).0.is_some();
        prop_assert_eq!(format_source(&text).is_ok(), parses, "formats exactly what parses");
        if let Ok(once) = format_source(&text) {
            prop_assert_eq!(fmt(&once), once);
        }
    }
}

/// Issue 32: a die's faces stay one clause, and a named roll one statement; formatting twice
/// changes nothing more.
#[test]
fn dice_with_custom_faces_and_named_rolls_format_idempotently() {
    let text = "ruleset r\ninitiative { value 0 }\nround { phase act: turns }\n\
                die boost \"Boost\" {faces:-,success,  success advantage}\n\
                die d {\n  faces: -, a b,\n    c\n}\n\
                action a { resolve { roll   x=dice(2,boost)+2d6\n hits = count(x, success) } }\n";
    let once = format_source(text).unwrap();
    assert!(once.contains("die boost \"Boost\" { faces: -, success, success advantage }"), "{once}");
    assert!(once.contains("die d {\n  faces: -, a b, c\n}"), "{once}");
    assert!(once.contains("    roll x = dice(2, boost) + 2d6\n"), "{once}");
    assert_eq!(format_source(&once).unwrap(), once);
}
