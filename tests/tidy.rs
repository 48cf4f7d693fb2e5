//! Tidy checks: the shape of the code that docs/architecture.md promises, kept true by tests
//! instead of by memory. Each reads `src/` as text (comments and strings blanked out first, so a
//! word in a comment or a message never counts) and names every offender it finds.
//!
//! - the library never prints (`print!`, `println!`, `eprint!`, `eprintln!`, `dbg!`): only the
//!   binary (`src/main.rs`, `src/cli/`) does;
//! - no import circle between the files of `src/`, the library's and the binary's (`src/cli/`)
//!   alike (a file naming an item of its own folder's parent module is not counted: the parent
//!   declares the child, that is not an import);
//! - every `Expr` variant is named in the one walk over an expression's children;
//! - sizes a reader can take in: `main.rs` at most 200 lines, no file in `src/run/` over 800
//!   lines, no function in `src/` over 150 lines, no struct in `src/run/` over 25 fields.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("src is readable") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(src()).expect("under src").to_string_lossy().replace('\\', "/")
}

/// The text with comments, string and character literals replaced by spaces (newlines kept, so
/// line numbers and byte offsets stay those of the file).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        j += 2;
                    } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let start = i + 2 + hashes;
                let end = text[start..].find(&close).map_or(b.len(), |n| start + n + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(b.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'\'' => {
                // A character literal ('a', '\n', '\u{..}', '"'), not a lifetime ('a).
                let end = if b.get(i + 1) == Some(&b'\\') {
                    text[i + 2..].find('\'').map(|n| i + 2 + n + 1)
                } else if b.get(i + 2) == Some(&b'\'') {
                    Some(i + 3)
                } else {
                    text[i + 1..].chars().next().filter(|c| c.len_utf8() > 1).and_then(|c| {
                        let after = i + 1 + c.len_utf8();
                        (b.get(after) == Some(&b'\'')).then_some(after + 1)
                    })
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i, end);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The byte just past the `}` matching the `{` at `open`.
fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Each occurrence of the keyword `word` followed by a name: (offset of the keyword, the name).
fn keyword_items<'a>(code: &'a str, word: &str) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find(word) {
        let at = from + n;
        from = at + word.len();
        let before_ok = at == 0 || !code[..at].ends_with(is_ident);
        let rest = &code[at + word.len()..];
        if !before_ok || !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let rest = rest.trim_start();
        let name_len = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if name_len > 0 {
            out.push((at, &rest[..name_len]));
        }
    }
    out
}

/// Every function with a body: (name, first line, lines from `fn` to its closing brace).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (at, name) in keyword_items(code, "fn") {
        // The body's `{` comes before any `;` (a declaration without body ends at `;`).
        let rest = &code[at..];
        let Some(open) = rest.find('{') else { continue };
        if rest.find(';').is_some_and(|semi| semi < open) && !rest[..open].contains("where") {
            // A `;` inside the signature (an array type `[u8; 4]`) is rare; a bodiless
            // declaration is the common case.
            if !rest[..open].contains('[') {
                continue;
            }
        }
        let end = matching_brace(code, at + open);
        let (first, last) = (line_of(code, at), line_of(code, end - 1));
        out.push((name.to_string(), first, last - first + 1));
    }
    out
}

/// Every struct with named fields: (name, first line, number of fields).
fn structs(code: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (at, name) in keyword_items(code, "struct") {
        let rest = &code[at..];
        let Some(open) = rest.find(['{', ';', '(']) else { continue };
        if !rest[open..].starts_with('{') {
            continue; // a tuple or unit struct
        }
        let body_end = matching_brace(code, at + open);
        let body = &code[at + open + 1..body_end - 1];
        // Fields are separated by commas outside any bracket; attributes are skipped.
        let (mut depth, mut fields, mut current) = (0i32, 0, String::new());
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '-' if chars.peek() == Some(&'>') => {
                    chars.next();
                    current.push_str("->");
                    continue;
                }
                '(' | '[' | '{' | '<' => depth += 1,
                ')' | ']' | '}' | '>' => depth -= 1,
                ',' if depth == 0 => {
                    fields += usize::from(is_field(&current));
                    current.clear();
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        fields += usize::from(is_field(&current));
        out.push((name.to_string(), line_of(code, at), fields));
    }
    out
}

fn is_field(text: &str) -> bool {
    // Drop attributes (`#[...]`) and look for `name: Type`.
    let mut t = text.trim();
    while let Some(rest) = t.strip_prefix("#[") {
        let mut depth = 1;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        t = rest[end..].trim_start();
    }
    t.contains(':')
}

#[test]
fn the_library_never_prints() {
    let mut found = Vec::new();
    for path in rust_files(&src()) {
        let name = rel(&path);
        if name == "main.rs" || name.starts_with("cli/") {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for mac in ["print!", "println!", "eprint!", "eprintln!", "dbg!"] {
            for (at, _) in code.match_indices(mac) {
                if at == 0 || !code[..at].ends_with(is_ident) {
                    found.push(format!("src/{name}:{}: {mac}", line_of(&code, at)));
                }
            }
        }
    }
    assert!(found.is_empty(), "the library prints (only src/main.rs and src/cli/ may):\n{}", found.join("\n"));
}

/// The module path of a file: `run/effects.rs` → `run::effects`, `run/mod.rs` → `run`.
fn module_of(name: &str) -> String {
    let trimmed = name.trim_end_matches(".rs");
    let trimmed = trimmed.strip_suffix("/mod").unwrap_or(trimmed);
    if trimmed == "lib" || trimmed == "main" {
        return String::new();
    }
    trimmed.replace('/', "::")
}

/// The binary crate's files (`src/main.rs` and `src/cli/`); every other file is the library's.
fn in_binary(name: &str) -> bool {
    name == "main.rs" || name.starts_with("cli/")
}

/// Which files each file names items of: module paths written in it (`crate::a::b`,
/// `super::x`, `self::x`, and `x::` for a child `mod x`), mapped to the deepest file module.
/// One crate at a time (`binary`: `src/main.rs` and `src/cli/`, else the library), since
/// `crate::` means that crate's root; the binary reaches the library only as `tempo::`, which
/// cannot close a circle (the library never names the binary).
fn import_graph(binary: bool) -> BTreeMap<String, Vec<String>> {
    let files: Vec<(String, String)> = rust_files(&src())
        .into_iter()
        .map(|p| (rel(&p), code_only(&std::fs::read_to_string(&p).unwrap())))
        .filter(|(name, _)| in_binary(name) == binary)
        .collect();
    let modules: BTreeMap<String, String> = files.iter().map(|(name, _)| (module_of(name), name.clone())).collect();
    let mut graph = BTreeMap::new();
    for (name, code) in &files {
        let me = module_of(name);
        let parent = me.rsplit_once("::").map_or(String::new(), |(p, _)| p.to_string());
        // `super` of a file module is its parent; paths inside `mod tests { .. }` blocks are
        // rare and read the same way.
        let mut edges = Vec::new();
        let bytes = code.as_bytes();
        let mut i = 0;
        while i < code.len() {
            if !code[i..].starts_with(is_ident)
                || (i > 0 && (is_ident(bytes[i - 1] as char) || code[..i].ends_with("::")))
            {
                i += 1;
                continue;
            }
            // A path: idents joined by `::` (whitespace allowed in `use` braces is ignored:
            // `use super::{a, b}` names the parent, and each of `a`, `b` is looked at below).
            let mut end = i;
            let mut parts = Vec::new();
            loop {
                let len = code[end..].find(|c: char| !is_ident(c)).unwrap_or(code.len() - end);
                parts.push(&code[end..end + len]);
                end += len;
                if code[end..].starts_with("::") && code[end + 2..].starts_with(is_ident) {
                    end += 2;
                } else {
                    break;
                }
            }
            let brace_group = code[end..].starts_with("::{");
            i = end.max(i + 1);
            let base: Option<Vec<String>> = match parts[0] {
                "crate" => Some(Vec::new()),
                "super" => Some(parent.split("::").filter(|s| !s.is_empty()).map(String::from).collect()),
                "self" => Some(me.split("::").filter(|s| !s.is_empty()).map(String::from).collect()),
                _ => None,
            };
            let Some(mut path) = base else { continue };
            let mut rest = &parts[1..];
            // `super::super::x`
            while rest.first() == Some(&"super") {
                path.pop();
                rest = &rest[1..];
            }
            path.extend(rest.iter().map(|s| s.to_string()));
            let mut targets = vec![path.clone()];
            if brace_group {
                // `use super::{a, b::c}`: each first name of the group.
                let open = end + 2;
                let close = matching_brace(code, open);
                for item in code[open + 1..close - 1].split(',') {
                    let first = item.trim().split("::").next().unwrap_or("").trim();
                    if !first.is_empty() && first.chars().all(is_ident) && first != "self" {
                        let mut p = path.clone();
                        p.push(first.to_string());
                        targets.push(p);
                    }
                }
            }
            for mut t in targets {
                // The deepest file module the path reaches.
                while !t.is_empty() && !modules.contains_key(&t.join("::")) {
                    t.pop();
                }
                let target = t.join("::");
                // Naming its own module, an ancestor (which declares it) or the crate root is
                // not an import between files.
                if target.is_empty() || target == me || me.starts_with(&format!("{target}::")) {
                    continue;
                }
                edges.push(target);
            }
        }
        edges.sort();
        edges.dedup();
        graph.insert(me, edges);
    }
    graph
}

#[test]
fn no_import_circle_between_files() {
    // The library's files, then the binary's (`src/cli/` too: `cli/sim.rs` and `cli/sweep.rs`
    // once imported each other).
    let circles: Vec<String> = [false, true].into_iter().flat_map(|binary| circles(&import_graph(binary))).collect();
    assert!(
        circles.is_empty(),
        "modules that import each other (move the shared item to its owner):\n{}",
        circles.join("\n")
    );
}

/// The import circles of a graph, each as its files joined by ` <-> `.
fn circles(graph: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    // Tarjan's strongly connected components; any component of two or more files is a circle.
    struct State<'g> {
        graph: &'g BTreeMap<String, Vec<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: std::collections::BTreeSet<&'g str>,
        next: usize,
        circles: Vec<Vec<&'g str>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.graph.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.circles.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: Default::default(),
        next: 0,
        circles: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.circles.iter().map(|c| c.join(" <-> ")).collect()
}

#[test]
fn the_import_graph_sees_imports() {
    // The circle test is only as good as the graph: a few edges that must be there.
    let graph = import_graph(false);
    let has = |from: &str, to: &str| graph.get(from).is_some_and(|e| e.iter().any(|t| t == to));
    assert!(has("run::engine", "run::world"), "{:?}", graph.get("run::engine"));
    assert!(has("check::lower", "ir"), "{:?}", graph.get("check::lower"));
    assert!(has("run", "ir"), "{:?}", graph.get("run"));
    // The binary's graph: a `use super::x::{..}` and a `super::x::f(..)` written in an expression.
    let bin = import_graph(true);
    let has = |from: &str, to: &str| bin.get(from).is_some_and(|e| e.iter().any(|t| t == to));
    assert!(has("cli::sweep", "cli::batch"), "{:?}", bin.get("cli::sweep"));
    assert!(has("cli::sim", "cli::sweep"), "{:?}", bin.get("cli::sim"));
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let graph: BTreeMap<String, Vec<String>> =
        [("cli::sim", vec!["cli::sweep", "cli"]), ("cli::sweep", vec!["cli::sim"]), ("cli", vec![])]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .collect();
    assert_eq!(circles(&graph), ["cli::sim <-> cli::sweep"]);
}

#[test]
fn every_expression_variant_is_walked() {
    let ir = code_only(&std::fs::read_to_string(src().join("ir/mod.rs")).unwrap())
        + &code_only(&std::fs::read_to_string(src().join("ir/expr.rs")).unwrap());
    let (at, _) = keyword_items(&ir, "enum").into_iter().find(|(_, n)| *n == "Expr").expect("enum Expr");
    let open = at + ir[at..].find('{').unwrap();
    let body = &ir[open + 1..matching_brace(&ir, open) - 1];
    // Variant names: capitalised words at the enum's top level.
    let mut variants = Vec::new();
    let mut depth = 0;
    let mut word_start = None;
    for (i, c) in body.char_indices() {
        match c {
            '(' | '{' | '[' | '<' => depth += 1,
            ')' | '}' | ']' | '>' => depth -= 1,
            _ => {}
        }
        if depth == 0 && is_ident(c) {
            word_start.get_or_insert(i);
        } else if let Some(s) = word_start.take() {
            let w = &body[s..i];
            if w.starts_with(|c: char| c.is_ascii_uppercase()) && !body[..s].trim_end().ends_with("#[") {
                variants.push(w.to_string());
            }
        }
    }
    variants.dedup();
    assert!(variants.len() > 10, "found only {variants:?}");
    let expr = code_only(&std::fs::read_to_string(src().join("ir/expr.rs")).unwrap());
    let walk = functions(&expr)
        .into_iter()
        .find(|(name, _, _)| name == "for_each_child" || name == "children")
        .expect("ir/expr.rs has the one walk over an expression's children (`for_each_child`)");
    let start = expr.lines().take(walk.1 - 1).map(|l| l.len() + 1).sum::<usize>();
    let end = expr.lines().take(walk.1 - 1 + walk.2).map(|l| l.len() + 1).sum::<usize>();
    let body = &expr[start..end.min(expr.len())];
    let missing: Vec<&String> = variants.iter().filter(|v| !body.contains(&format!("Expr::{v}"))).collect();
    assert!(missing.is_empty(), "the walk does not name these variants: {missing:?}");
    assert!(!body.contains("_ =>"), "the walk must name every variant, with no `_ =>` catch-all");
}

#[test]
fn main_is_a_dispatcher() {
    let lines = std::fs::read_to_string(src().join("main.rs")).unwrap().lines().count();
    assert!(lines <= 200, "src/main.rs has {lines} lines; a command's code belongs in src/cli/");
}

#[test]
fn no_file_in_run_is_over_800_lines() {
    let long: Vec<String> = rust_files(&src().join("run"))
        .into_iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(&p).unwrap().lines().count();
            (n > 800).then(|| format!("src/{}: {n} lines", rel(&p)))
        })
        .collect();
    assert!(long.is_empty(), "files in src/run/ over 800 lines:\n{}", long.join("\n"));
}

#[test]
fn no_function_is_over_150_lines() {
    let mut long = Vec::new();
    for path in rust_files(&src()) {
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for (name, line, len) in functions(&code) {
            if len > 150 {
                long.push(format!("src/{}:{line}: fn {name}, {len} lines", rel(&path)));
            }
        }
    }
    assert!(long.is_empty(), "functions over 150 lines:\n{}", long.join("\n"));
}

#[test]
fn no_struct_in_run_has_over_25_fields() {
    let mut big = Vec::new();
    for path in rust_files(&src().join("run")) {
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for (name, line, fields) in structs(&code) {
            if fields > 25 {
                big.push(format!("src/{}:{line}: struct {name}, {fields} fields", rel(&path)));
            }
        }
    }
    assert!(big.is_empty(), "structs in src/run/ over 25 fields:\n{}", big.join("\n"));
}

#[test]
fn the_scanners_read_what_they_should() {
    // The size checks are only as good as their scanner: a function, a struct, a string
    // holding braces and a comment holding a print.
    let code = code_only(
        "fn a() {\n  let s = \"}{\";\n  // println!(\"x\")\n  if x { y }\n}\nstruct S {\n  #[doc = \"a, b\"]\n  a: Vec<(u8, u8)>,\n  f: Box<dyn Fn(i64) -> i64>,\n  c: [u8; 4],\n}\nfn b(x: [u8; 2]) -> u8 { 0 }\ntrait T { fn c(&self); }\n",
    );
    assert_eq!(functions(&code), vec![("a".into(), 1, 5), ("b".into(), 12, 1)]);
    assert_eq!(structs(&code), vec![("S".into(), 6, 3)]);
    assert!(!code.contains("println!"));
}

/// `autotests = false` (Cargo.toml): a tests/*.rs file that is neither a `[[test]]` of its own
/// nor a module of one (tests/it.rs, tests/counted.rs) would never be compiled, and its tests
/// would pass by not running.
#[test]
fn every_test_file_is_compiled_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml is readable");
    // The `[[test]]` roots: `path = "tests/X.rs"`, or `tests/NAME.rs` for a target without one.
    let mut roots = Vec::new();
    for target in manifest.split("\n[[test]]\n").skip(1) {
        let field = |key: &str| {
            target
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim_matches(|c| c == ' ' || c == '=' || c == '"'))
        };
        let stem = match (field("path"), field("name")) {
            (Some(path), _) => path.trim_start_matches("tests/").trim_end_matches(".rs").to_string(),
            (None, Some(name)) => name.to_string(),
            _ => continue,
        };
        roots.push(stem);
    }
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("tests")).expect("tests is readable") {
        let path = entry.expect("entry").path();
        if let (Some(stem), Some("rs")) =
            (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|e| e.to_str()))
        {
            count.insert(stem.to_string(), 0);
        }
    }
    for r in &roots {
        *count.entry(r.clone()).or_default() += 1;
        let text = std::fs::read_to_string(root.join(format!("tests/{r}.rs"))).expect("a test root is readable");
        for line in text.lines() {
            if let Some(m) = line.trim().strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
                if let Some(n) = count.get_mut(m) {
                    *n += 1;
                }
            }
        }
    }
    let wrong: Vec<String> =
        count.iter().filter(|(_, n)| **n != 1).map(|(f, n)| format!("{f}.rs ({n} times)")).collect();
    assert!(roots.contains(&"it".to_string()), "tests/it.rs is a [[test]]: {roots:?}");
    assert!(wrong.is_empty(), "tests/ files compiled other than exactly once: {wrong:?}");
}

/// `cargo tree` for this package, offline (every crate is already here when tests run).
fn cargo_tree(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = std::process::Command::new(cargo)
        .args(["tree", "--offline", "--locked", "--prefix", "none"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo tree {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A fresh `cargo run` compiles every dependency (README.md gives the time). Cargo.lock holds
/// versions that keep that small (docs/architecture.md, "Dependencies"): one `syn` (serde,
/// clap and pest at versions whose macros share syn 2), textwrap without its ICU line breaker,
/// pest without the stack guard that builds a C toolchain's worth of crates (tempo bounds its own
/// nesting, `syntax::MAX_DEPTH`). A `cargo update` that undoes one fails here.
#[test]
fn a_fresh_build_compiles_no_second_syn_icu_or_c_compiler() {
    // What `cargo run` builds, then what `cargo test` adds (the dev-dependencies): criterion is
    // the benchmarks' own package's (benches/Cargo.toml), and with it a C compiler for `alloca`.
    for (command, edges) in [("cargo run", "normal,build"), ("cargo test", "normal,build,dev")] {
        let tree = cargo_tree(&["-e", edges]);
        let crates: std::collections::BTreeSet<&str> = tree.lines().map(|l| l.trim_end_matches(" (*)")).collect();
        let unwanted: Vec<&&str> = crates
            .iter()
            .filter(|c| {
                ["syn v3", "icu_", "cc v", "stacker", "criterion", "tempo-benches"].iter().any(|u| c.starts_with(u))
            })
            .collect();
        assert!(
            unwanted.is_empty(),
            "`{command}` compiles {unwanted:?}: see docs/architecture.md, \"What a fresh build compiles\""
        );
        assert!(crates.len() > 50, "cargo tree lists the dependencies: {crates:?}");
    }
}

/// `cargo test` after `cargo run` builds only what tests add: every crate `cargo run` built is
/// built with the same features, or Cargo builds it again, and tempo with it. A test-only crate
/// that turns a feature on needs that feature in Cargo.toml's `[dependencies]` (the
/// "feature unification" list).
#[test]
fn test_only_crates_change_no_feature_of_a_crate_the_binary_uses() {
    let features = |args: &[&str]| -> std::collections::BTreeMap<String, String> {
        cargo_tree(&[args, &["-f", "{p}|{f}"]].concat())
            .lines()
            .filter_map(|l| l.trim_end_matches(" (*)").split_once('|'))
            .map(|(p, f)| (p.to_string(), f.to_string()))
            .collect()
    };
    let run = features(&["-e", "no-dev"]);
    let test = features(&[]);
    let changed: Vec<String> = run
        .iter()
        .filter(|(p, f)| test.get(*p).is_some_and(|t| t != *f))
        .map(|(p, f)| format!("{p}: [{f}] for `cargo run`, [{}] for `cargo test`", test[p]))
        .collect();
    assert!(run.len() > 50, "cargo tree lists the dependencies: {run:?}");
    assert!(changed.is_empty(), "test-only crates change features: {changed:#?}");
}
