//! Issue 11's hostile inputs, one test per input, named after it: each crashed, hung, misled or
//! ran away before its fix. (The language server's are in `tests/lsp.rs`; fuzzing's finds under
//! `tests/fuzz_regressions/`.)

use std::path::{Path, PathBuf};
use std::process::Command;
use tempo::check::{compile_str, compile_with, Limits, MemoryLoader};
use tempo::diagnostics::{render, Code};

const BASE: &str = "ruleset base
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
pool hp { max 10; when <= 0 { apply down } }
condition down { blocks actions, free_actions, reactions, movement }
action strike { cost 1 ap; target enemy; resolve { target.hp -= 2 } }
action step { cost 1 ap; resolve { move 1 } }
";

const DUEL: &str = r#"(rounds: 2, participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Aggressive)),
  (name: "B", side: "b", position: 5, controller: Policy(Aggressive)),
])"#;

fn with_base(text: &str) -> MemoryLoader {
    MemoryLoader::new()
        .with("base.rules", BASE)
        .with("input.rules", format!("ruleset input\nextends \"base.rules\"\n{text}"))
}

fn codes(loader: &MemoryLoader) -> Vec<Code> {
    compile_with(loader, Path::new("input.rules")).diagnostics.iter().map(|d| d.code).collect()
}

fn tempo(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tempo"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("tempo runs");
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hardening").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

fn ruleset(text: &str) -> tempo::ir::Ruleset {
    let c = compile_with(&with_base(text), Path::new("input.rules"));
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.ruleset.expect("compiles")
}

// 1. Pool bounds that read themselves.

#[test]
fn pool_max_max_and_its_relatives_are_cycles_not_stack_overflows() {
    for text in [
        "pool p { max max }",
        "pool p { max p.max }",
        "pool p { max 3; min min }",
        "pool p { max q.max }\npool q { max p.max }",
        "derive d = p.max\npool p { max d }",
    ] {
        let found = codes(&with_base(text));
        assert!(found.contains(&Code::CyclicDerive), "{text}: {found:?}");
    }
}

#[test]
fn an_ir_whose_pool_max_reads_itself_is_refused_before_it_runs() {
    let mut r = ruleset("pool p { max 3 }");
    let p = r.pools.iter().position(|p| p.name == "p").expect("pool p");
    r.pools[p].max = Some(tempo::ir::Expr::PoolMax(tempo::ir::Who::Owner, tempo::ir::PoolId(p as u32)));
    let err = tempo::ir::Ruleset::from_ron(&r.to_ron().expect("writes")).expect_err("refused");
    assert!(err.contains("the max of pool `p` depends on itself"), "{err}");
}

// 2. `extends "../base.rules"` from a file named by a relative path.

#[test]
fn extends_dot_dot_base_from_a_relative_path_finds_the_right_base() {
    let dir = folder("dotdot");
    std::fs::create_dir_all(dir.join("sub/inner")).unwrap();
    std::fs::write(dir.join("sub/base.rules"), BASE).unwrap();
    std::fs::write(dir.join("sub/inner/v.rules"), "ruleset v\nextends \"../base.rules\"\n").unwrap();
    // A decoy where the old path handling looked (the leading `..` dropped).
    std::fs::write(dir.join("sub/inner/base.rules"), "ruleset decoy\n").unwrap();
    let inner = dir.join("sub/inner");
    let (code, _, err) = tempo(&inner, &["check", "--allow-outside", "../inner/v.rules"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = tempo(&dir.join("sub"), &["check", "--allow-outside", "inner/v.rules"]);
    assert_eq!(code, 0, "{err}");
    // Without the flag the base is outside the file's folder.
    let (code, _, err) = tempo(&inner, &["check", "../inner/v.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("tempo::outside-folder"), "{err}");
}

// 3. Thousands of `else if`.

#[test]
fn four_thousand_else_if_are_too_deep_in_check_and_fmt() {
    let chain =
        format!("ruleset x\nat turn_start {{ if true {{ }}{} else {{ }} }}\n", " else if true { }".repeat(4000));
    let c = compile_str("x.rules", &chain);
    assert_eq!(c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::TooDeep]);
    let refused = tempo::fmt::format_source(&chain).expect_err("fmt refuses it too");
    assert_eq!(refused.diagnostics[0].code, Code::TooDeep);
}

#[test]
fn four_thousand_else_if_opened_in_the_language_server_are_a_diagnostic_not_a_crash() {
    let chain =
        format!("ruleset x\nat turn_start {{ if true {{ }}{} else {{ }} }}\n", " else if true { }".repeat(4000));
    let frame = |body: serde_json::Value| {
        let body = body.to_string();
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    };
    let input = [
        frame(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})),
        frame(serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}})),
        frame(serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": "file:///nowhere/x.rules", "languageId": "tempo", "version": 1, "text": chain}}})),
        frame(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})),
        frame(serde_json::json!({"jsonrpc": "2.0", "method": "exit"})),
    ]
    .concat();
    // On the test's own thread (2 MiB in a debug build), as the server's loop runs.
    let served = tempo::lsp::serve_bytes(input.as_bytes());
    assert!(served.result.is_ok(), "{:?}", served.result);
    let output = String::from_utf8_lossy(&served.output);
    assert!(output.contains("tempo::too-deep"), "{output}");
}

#[test]
fn the_longest_accepted_else_if_chain_inside_the_deepest_brackets_fits_a_small_stack() {
    // MAX_DEPTH - 1 nested ifs, the innermost with MAX_ELSE_IF `else if`.
    let depth = tempo::syntax::MAX_DEPTH - 2;
    let chain = format!("if true {{ }}{} else {{ }}", " else if true { }".repeat(tempo::syntax::MAX_ELSE_IF));
    let text = format!("{BASE}at turn_start {{ {}{chain}{} }}\n", "if true { ".repeat(depth), " }".repeat(depth));
    let worker = std::thread::Builder::new().stack_size(2 << 20).spawn(move || {
        let c = compile_str("x.rules", &text);
        let formatted = tempo::fmt::format_source(&text).is_ok();
        (c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), formatted)
    });
    let (codes, formatted) = worker.expect("thread starts").join().expect("no stack overflow");
    assert!(!codes.contains(&Code::TooDeep), "{codes:?}");
    assert!(formatted);
}

#[test]
fn brackets_after_a_lone_carriage_return_in_a_comment_are_counted() {
    // The grammar ends a comment at `\r`; the depth check read on to `\n` and let these through
    // to pest, whose recursion overflowed the stack.
    let deep = format!("ruleset x\nstat a = 1 # note\rstat b = {}1{}\n", "(".repeat(100_000), ")".repeat(100_000));
    let c = compile_str("x.rules", &deep);
    assert_eq!(c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::TooDeep]);
}

#[test]
fn separate_else_if_chains_in_one_block_do_not_add_up() {
    let one = "if true { } else if true { } else { }\n".repeat(tempo::syntax::MAX_ELSE_IF);
    let text = format!("{BASE}at turn_start {{\n{one}}}\n");
    assert!(!compile_str("x.rules", &text).diagnostics.iter().any(|d| d.code == Code::TooDeep));
}

// 4. Distances and positions near the limits of i64.

#[test]
fn move_away_nine_quintillion_stops_at_the_edge_instead_of_wrapping() {
    let r = ruleset("action flee { cost 1 ap; target enemy; resolve { move away 9223372036854775807 } }");
    let s = tempo::run::scenario::parse(
        r#"(rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Script(steps: [Act(round: 1, action: "flee", target: "B")], fallback: Passive)),
  (name: "B", side: "b", position: 3, controller: Policy(Passive)),
])"#,
    )
    .expect("parses");
    let text = tempo::run::trace::to_text(&tempo::run::run(&r, &s, Some(1)).expect("plays"));
    let edge = tempo::run::MAX_POSITION;
    assert!(text.contains(&format!("A moves from 0 to -{edge}")), "{text}");
}

#[test]
fn scenario_positions_near_the_limits_of_i64_are_refused() {
    let r = ruleset("");
    let s =
        tempo::run::scenario::parse(&DUEL.replace("position: 5", "position: -9223372036854775800")).expect("parses");
    let err = tempo::run::run(&r, &s, Some(1)).expect_err("refused");
    assert_eq!(err.code(), Code::BadScenario);
    assert!(err.to_string().contains("farther from 0 than tempo places anyone"), "{err}");
}

#[test]
fn an_enemy_a_trillion_places_away_is_walked_toward_without_stepping_each_place() {
    // Before, a policy tried every count of units from the distance down (and the walk looked
    // at each place on the way): this ran for hours.
    let r = ruleset(
        "pool mp { max 6; refresh at turn_start }\naction run { cost 1 mp per 1 unit; resolve { move units } }",
    );
    let far = tempo::run::MAX_POSITION;
    let s = tempo::run::scenario::parse(&DUEL.replace("position: 5", &format!("position: {far}"))).expect("parses");
    let text = tempo::run::trace::to_text(&tempo::run::run(&r, &s, Some(1)).expect("plays"));
    assert!(text.contains("A moves from 0 to 6"), "{text}");
}

// 5. A diagnostic past column 65,535.

#[test]
fn a_diagnostic_past_column_65535_renders_cut_around_its_label() {
    let text = format!("{BASE}{}pool q {{ max zzz }}\n", " ".repeat(70_000));
    let c = compile_str("x.rules", &text);
    let shown = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 80 });
    assert!(shown.contains("[x.rules:9:70014]"), "{shown}");
    assert!(shown.contains("…") && shown.contains("max zzz"), "{shown}");
    assert!(shown.len() < 2_000, "the line is cut: {} bytes", shown.len());
}

// 6. A corrupt or old `.ron` IR.

#[test]
fn a_ron_ir_with_an_index_out_of_range_is_bad_ir_not_a_panic() {
    let ron = ruleset("").to_ron().expect("writes");
    let edited = ron.replacen("pool: (0)", "pool: (400)", 1);
    assert_ne!(edited, ron, "the edit applies");
    let err = tempo::ir::Ruleset::from_ron(&edited).expect_err("refused");
    assert!(err.contains("pool index 400 is out of range"), "{err}");
    let dir = folder("bad-ir");
    std::fs::write(dir.join("bad.ron"), &edited).unwrap();
    std::fs::write(dir.join("duel.ron"), DUEL).unwrap();
    let (code, _, err) = tempo(&dir, &["run", "bad.ron", "duel.ron"]);
    assert_eq!(code, 1);
    assert!(err.contains("error[tempo::bad-ir]"), "{err}");
}

#[test]
fn a_ron_ir_of_another_format_version_is_bad_ir_not_a_scenario_error() {
    let ron = ruleset("").to_ron().expect("writes");
    let dir = folder("old-ir");
    std::fs::write(dir.join("old.ron"), ron.replacen("format_version: ", "format_version: 9", 1)).unwrap();
    std::fs::write(dir.join("duel.ron"), DUEL).unwrap();
    let (code, _, err) = tempo(&dir, &["run", "old.ron", "duel.ron"]);
    assert_eq!(code, 1);
    assert!(err.contains("error[tempo::bad-ir]") && err.contains("format version"), "{err}");
}

#[test]
fn a_ron_ir_whose_rule_names_a_file_it_does_not_list_is_bad_ir() {
    let ron = ruleset("").to_ron().expect("writes");
    let edited = ron.replacen("file: 1,", "file: 7,", 1);
    assert_ne!(edited, ron, "the edit applies");
    let err = tempo::ir::Ruleset::from_ron(&edited).expect_err("refused");
    assert!(err.contains("source file index 7 is out of range"), "{err}");
}

#[test]
fn a_ron_ir_of_an_older_format_version_is_refused_as_old() {
    let ron = ruleset("").to_ron().expect("writes");
    let now = format!("format_version: {},", tempo::ir::FORMAT_VERSION);
    let old = ron.replacen(&now, "format_version: 3,", 1);
    assert_ne!(old, ron, "the edit applies");
    let err = tempo::ir::Ruleset::from_ron(&old).expect_err("refused");
    assert!(err.contains("format version 3"), "{err}");
}

#[test]
fn a_compiled_ir_runs_without_its_sources_and_still_names_its_rules() {
    let dir = folder("ir-without-sources");
    std::fs::write(dir.join("game.rules"), BASE).unwrap();
    std::fs::write(dir.join("duel.ron"), DUEL).unwrap();
    let (code, _, err) = tempo(&dir, &["compile", "game.rules", "-o", "game.ron"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(dir.join("game.rules")).unwrap();
    let (code, out, err) = tempo(&dir, &["run", "game.ron", "duel.ron", "--format", "jsonl"]);
    assert_eq!(code, 0, "{err}");
    // `refresh at turn_start` is on line 4, column 18 of the file that is gone.
    assert!(out.contains(r#""cause":"refresh at turn_start","rule":"game.rules:4:18"}"#), "{out}");
}

// 8. Many diagnostics: suggestions are budgeted (rendering is cut to an excerpt; see
// `diagnostics::render`'s unit test).

#[test]
fn thirty_two_thousand_unknown_names_stop_getting_suggestions_past_the_budget() {
    let body: String = (0..32_000).map(|i| format!("pool p{i} {{ max zz{i} }}\n")).collect();
    let c = compile_str("many.rules", &format!("{BASE}{body}"));
    let unknown: Vec<_> = c.diagnostics.iter().filter(|d| d.code == Code::UnknownName).collect();
    assert_eq!(unknown.len(), 32_000);
    let suggested = unknown.iter().filter(|d| d.help.as_deref().is_some_and(|h| h.contains("did you mean"))).count();
    assert!(suggested > 0, "the first ones still get one");
    assert!(suggested < 1_000, "{suggested} suggestions: the budget did not hold");
    // The next compilation has a full budget again.
    let again = compile_str("x.rules", &format!("{BASE}action a {{ cost 1 apx }}\n"));
    assert!(
        again.diagnostics.iter().any(|d| d.help.as_deref() == Some("did you mean `ap`?")),
        "{:?}",
        again.diagnostics
    );
}

// 9. Constant overflow and division by zero.

#[test]
fn nine_quintillion_plus_one_and_ten_over_one_minus_one_are_check_errors() {
    let found = codes(&with_base("stat big = 9223372036854775807 + 1\npool p { max 10 / (1 - 1) }"));
    assert_eq!(found, vec![Code::NumberTooLarge, Code::DivisionByZero]);
}

#[test]
fn an_overflow_at_run_time_names_the_participant_the_round_and_the_rules() {
    let r = ruleset("stat big = 9223372036854775807\nderive huge = big + hp\naction smash { cost 1 ap; target enemy; resolve { target.hp -= huge } }");
    let s = tempo::run::scenario::parse(
        r#"(rounds: 1, participants: [
  (name: "A", side: "a", controller: Script(steps: [Act(round: 1, action: "smash", target: "B")], fallback: Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#,
    )
    .expect("parses");
    let err = tempo::run::run(&r, &s, Some(1)).expect_err("overflows");
    assert_eq!(err.code(), Code::RuleFailed);
    let message = err.to_string();
    assert!(message.contains("for A in round 1"), "{message}");
    assert!(message.contains("in derived value `huge`, in smash by A"), "{message}");
}

// 10. Size limit.

#[test]
fn a_file_over_sixteen_mebibytes_is_file_too_large() {
    let big = vec![b'#'; tempo::check::load::MAX_FILE_BYTES as usize + 1];
    let loader = MemoryLoader::new().with("big.rules", big.clone());
    let c = compile_with(&loader, Path::new("big.rules"));
    assert_eq!(c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::FileTooLarge]);
    // From the disk too, as a base, without reading it whole.
    let dir = folder("too-large");
    std::fs::write(dir.join("big.rules"), &big).unwrap();
    std::fs::write(dir.join("v.rules"), "ruleset v\nextends \"big.rules\"\n").unwrap();
    let (code, _, err) = tempo(&dir, &["check", "v.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("tempo::file-too-large") && err.contains("more than the limit of 16777216"), "{err}");
}

// 11. What `extends` may read.

#[test]
fn extends_etc_passwd_is_outside_the_folder_and_shows_none_of_it() {
    let dir = folder("passwd");
    std::fs::write(dir.join("v.rules"), "ruleset v\nextends \"/etc/passwd\"\n").unwrap();
    let (code, _, err) = tempo(&dir, &["check", "v.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("tempo::outside-folder"), "{err}");
    assert!(!err.contains("root:"), "{err}");
}

#[test]
fn extends_dev_zero_is_not_a_regular_file_even_when_outside_is_allowed() {
    let dir = folder("zero");
    std::fs::write(dir.join("v.rules"), "ruleset v\nextends \"/dev/zero\"\n").unwrap();
    let (code, _, err) = tempo(&dir, &["check", "--allow-outside", "v.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("not a regular file"), "{err}");
}

#[cfg(unix)]
#[test]
fn extends_a_named_pipe_is_refused_instead_of_hanging() {
    let dir = folder("fifo");
    let made = Command::new("mkfifo").arg(dir.join("pipe.rules")).status().expect("mkfifo runs");
    assert!(made.success());
    std::fs::write(dir.join("v.rules"), "ruleset v\nextends \"pipe.rules\"\n").unwrap();
    let (code, _, err) = tempo(&dir, &["check", "v.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("not a regular file"), "{err}");
    // And as a scenario.
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    let (code, _, err) = tempo(&dir, &["run", "r.rules", "pipe.rules"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn a_memory_loader_may_allow_outside_and_then_reads_the_base() {
    struct Outside(MemoryLoader);
    impl tempo::check::Loader for Outside {
        fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
            self.0.read(path)
        }
        fn identity(&self, path: &Path) -> PathBuf {
            self.0.identity(path)
        }
        fn limits(&self) -> Limits {
            Limits { allow_outside: true, ..Limits::default() }
        }
    }
    let files =
        MemoryLoader::new().with("base.rules", BASE).with("dir/v.rules", "ruleset v\nextends \"../base.rules\"\n");
    assert_eq!(
        compile_with(&files, Path::new("dir/v.rules")).diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec![Code::OutsideFolder]
    );
    assert!(!compile_with(&Outside(files), Path::new("dir/v.rules")).has_errors());
}

// 12. Smaller ones.

#[cfg(unix)]
#[test]
fn fmt_refuses_a_read_only_file_and_keeps_a_hard_link() {
    use std::os::unix::fs::MetadataExt;
    let dir = folder("fmt-files");
    let messy = "ruleset   x\ninitiative { value 0 }\nround { phase act: turns }\n";
    let file = dir.join("x.rules");
    std::fs::write(&file, messy).unwrap();
    let mut readonly = std::fs::metadata(&file).unwrap().permissions();
    readonly.set_readonly(true);
    std::fs::set_permissions(&file, readonly.clone()).unwrap();
    let (code, _, err) = tempo(&dir, &["fmt", "x.rules"]);
    assert_eq!(code, 2);
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), messy, "left alone");
    #[allow(clippy::permissions_set_readonly_false)]
    readonly.set_readonly(false);
    std::fs::set_permissions(&file, readonly).unwrap();
    std::fs::hard_link(&file, dir.join("link.rules")).unwrap();
    let (code, _, err) = tempo(&dir, &["fmt", "x.rules"]);
    assert_eq!(code, 0, "{err}");
    let (a, b) = (std::fs::metadata(&file).unwrap(), std::fs::metadata(dir.join("link.rules")).unwrap());
    assert_eq!(a.ino(), b.ino(), "still one file under two names");
    assert!(std::fs::read_to_string(dir.join("link.rules")).unwrap().starts_with("ruleset x\n"));
}

#[test]
fn a_byte_order_mark_is_skipped_in_rules_and_scenarios_and_kept_by_fmt() {
    let dir = folder("bom");
    std::fs::write(dir.join("r.rules"), format!("\u{feff}{BASE}")).unwrap();
    std::fs::write(dir.join("duel.ron"), format!("\u{feff}{DUEL}")).unwrap();
    let (code, out, err) = tempo(&dir, &["run", "r.rules", "duel.ron"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("A uses"), "{out}");
    std::fs::write(dir.join("messy.rules"), format!("\u{feff}{}", BASE.replace("ruleset base", "ruleset    base")))
        .unwrap();
    let (code, _, err) = tempo(&dir, &["fmt", "messy.rules"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(dir.join("messy.rules")).unwrap().starts_with("\u{feff}ruleset base\n"));
}

#[test]
fn a_thirty_three_file_chain_is_too_deep_not_a_cycle() {
    let max = tempo::check::load::MAX_CHAIN;
    let mut loader = MemoryLoader::new().with("f0.rules", BASE.replace("ruleset base", "ruleset f0"));
    for i in 1..=max {
        loader = loader.with(format!("f{i}.rules"), format!("ruleset f{i}\nextends \"f{}.rules\"\n", i - 1));
    }
    // f32 extends 32 files: f0 to f31, 33 in all.
    let c = compile_with(&loader, Path::new(&format!("f{max}.rules")));
    assert_eq!(c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::TooDeep]);
    assert!(c.diagnostics[0].message.contains("deeper than 32 files"), "{}", c.diagnostics[0].message);
    // 32 files in all are fine.
    assert!(!compile_with(&loader, Path::new(&format!("f{}.rules", max - 1))).has_errors());
}

#[test]
fn extends_dot_names_a_folder_not_an_empty_file() {
    let dir = folder("dot");
    std::fs::write(dir.join("v.rules"), "ruleset v\nextends \".\"\n").unwrap();
    let (code, _, err) = tempo(&dir, &["check", "v.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read the base file `.`: it is a folder, not a file"), "{err}");
}

#[test]
fn every_0_hours_for_minus_3_rounds_and_negative_limits_are_bad_counts() {
    let found = codes(&with_base(
        "downtime nap every 0 hours { }\ncondition dazed { lasts for -3 rounds }\nlimit action: -1 per turn\nrest short hours 0 { }",
    ));
    assert_eq!(found, vec![Code::BadCount; 4]);
    // A limit of 0 forbids, and is allowed.
    assert!(!codes(&with_base("limit action: 0 per turn")).contains(&Code::BadCount));
}

#[test]
fn ten_thousand_participants_are_refused_at_once() {
    let r = ruleset("");
    let people: Vec<String> = (0..10_000)
        .map(|i| format!("(name: \"P{i}\", side: \"s{}\", controller: Policy(Aggressive))", i % 2))
        .collect();
    let s = tempo::run::scenario::parse(&format!("(rounds: 2, participants: [{}])", people.join(","))).expect("parses");
    let err = tempo::run::run(&r, &s, Some(1)).expect_err("refused");
    assert!(err.to_string().contains("at most 1000"), "{err}");
}

// Fuzzing's finds: every input kept under `tests/fuzz_regressions/` replays here, through the
// same path its target took, with the target's checks.

#[test]
fn fuzz_regressions_replay_without_panicking() {
    let frontiers = std::fs::read("rulesets/frontiers.rules").expect("the base");
    let mut replayed = 0;
    for entry in std::fs::read_dir("tests/fuzz_regressions").expect("the folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            // `test_file/`: the next test replays them.
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        match path.extension().and_then(|e| e.to_str()) {
            Some("rules") => {
                // The fmt target's property: what parses, the formatter formats.
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let parses = tempo::syntax::parse(tempo::source::FileId::default(), &text).0.is_some();
                let formats = tempo::fmt::format_source(&text);
                assert_eq!(parses, formats.is_ok(), "{}: parses but does not format: {formats:?}", path.display());
                let loader = MemoryLoader::new().with("input.rules", bytes).with("frontiers.rules", frontiers.clone());
                let c = compile_with(&loader, Path::new("input.rules"));
                for d in &c.diagnostics {
                    let text = c.sources.text(d.primary.span.file);
                    let (start, end) = (d.primary.span.start as usize, d.primary.span.end as usize);
                    assert!(end <= text.len(), "{}: span past the end: {d:?}", path.display());
                    assert!(
                        text.is_char_boundary(start) && text.is_char_boundary(end),
                        "{}: span cuts a character: {d:?}",
                        path.display()
                    );
                }
                let _ = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 80 });
                if let Some(r) = c.ruleset {
                    let s = tempo::run::scenario::parse(DUEL).expect("parses");
                    let _ = tempo::run::run(&r, &s, Some(7));
                }
            }
            Some("ron") => {
                if let Ok(r) = tempo::ir::Ruleset::from_ron(&String::from_utf8_lossy(&bytes)) {
                    let s = tempo::run::scenario::parse(DUEL).expect("parses");
                    let _ = tempo::run::run(&r, &s, Some(7));
                }
            }
            _ => continue,
        }
        replayed += 1;
    }
    assert!(replayed >= 2, "the kept inputs were found ({replayed})");
}

/// The `test_file` fuzz target's folder (fuzz/fuzz_targets/test_file.rs), made under `base`: the
/// files outside (holding `SECRET`), `here/near.rules`, and `here/tests/` with the rulesets, the
/// duel, a second test whose golden is `shared.trace`, and links leading out. Every file with
/// what it holds.
fn test_file_fixture(base: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let _ = std::fs::remove_dir_all(base);
    let tests = base.join("here/tests");
    std::fs::create_dir_all(&tests).unwrap();
    let secret = b"SECRET-7f3a9c = 1\nSECRET-7f3a9c\n".to_vec();
    let other =
        "(ruleset: \"frontiers-two-ap.rules\", scenario_file: \"duel.ron\", seeds: [7], golden: \"shared.trace\")\n";
    let files = vec![
        (base.join("secret.rules"), secret.clone()),
        (base.join("secret.ron"), secret),
        (base.join("here/near.rules"), std::fs::read("rulesets/frontiers.rules").unwrap()),
        (tests.join("frontiers.rules"), std::fs::read("rulesets/frontiers.rules").unwrap()),
        (tests.join("frontiers-two-ap.rules"), std::fs::read("rulesets/frontiers-two-ap.rules").unwrap()),
        (tests.join("duel.ron"), std::fs::read("examples/frontiers-duel.ron").unwrap()),
        (tests.join("other.test.ron"), other.as_bytes().to_vec()),
        (tests.join("shared.trace"), b"--- seed 7\nnot this run's trace\n".to_vec()),
    ];
    for (path, bytes) in &files {
        std::fs::write(path, bytes).unwrap();
    }
    std::os::unix::fs::symlink("../../secret.rules", tests.join("out.rules")).unwrap();
    std::os::unix::fs::symlink("../..", tests.join("out")).unwrap();
    files
}

// The `test_file` target's finds (`tests/fuzz_regressions/test_file/`), replayed as it ran them:
// the input written into its folder beside a second test, run by `testing::run_all` (`--bless`
// for an input of odd length), and its checks: nothing of the files outside printed, nothing but
// golden traces written, and nothing written when any golden trace is refused.
#[test]
fn fuzz_regressions_of_test_files_replay_with_the_targets_checks() {
    let mut replayed = 0;
    for entry in std::fs::read_dir("tests/fuzz_regressions/test_file").expect("the folder") {
        let input = entry.expect("an entry").path();
        let bytes = std::fs::read(&input).expect("readable");
        let base = std::env::temp_dir().join(format!("tempo-fuzz-replay-{}-{replayed}", std::process::id()));
        let files = test_file_fixture(&base);
        let tests = base.join("here/tests");
        let fuzzed = tests.join("fuzzed.test.ron");
        std::fs::write(&fuzzed, &bytes).unwrap();
        let found = [
            tempo::testing::Found { name: "fuzzed".into(), path: fuzzed.clone(), root: tests.clone() },
            tempo::testing::Found { name: "other".into(), path: tests.join("other.test.ron"), root: tests.clone() },
        ];
        let bless = bytes.len() % 2 == 1;
        let options = tempo::testing::Options { bless, keep_traces: true, limits: Limits::default() };
        let outcomes = tempo::testing::run_all(&found, options);
        let shown = tempo::testing::report::to_text(&outcomes) + &tempo::testing::report::to_json(&outcomes);
        assert!(!shown.contains("SECRET-7f3a9c"), "{}: a file outside was printed", input.display());
        for (path, kept) in &files {
            let now = std::fs::read(path).unwrap();
            assert!(now == *kept, "{}: {} was written", input.display(), path.display());
        }
        let names: Vec<String> = std::fs::read_dir(&tests)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".rules") && !n.ends_with(".ron") && n != "out" && n != "shared.trace")
            .collect();
        let refused = outcomes.iter().any(|o| o.message.contains("tempo::bless-refused"));
        assert!(refused, "{}: the input no longer meets a refusal: {outcomes:?}", input.display());
        assert!(names.is_empty(), "{}: `--bless` refused and wrote {names:?}", input.display());
        let _ = std::fs::remove_dir_all(&base);
        replayed += 1;
    }
    assert!(replayed >= 1, "the kept inputs were found ({replayed})");
}

// Issue 33, item 15: `abs()` of i64::MIN wraps to itself, which is below the limit.
#[test]
fn a_position_of_i64_min_is_refused_for_participants_objects_and_terrain() {
    let r = ruleset("");
    let s =
        tempo::run::scenario::parse(&DUEL.replace("position: 0", "position: -9223372036854775808")).expect("parses");
    let err = tempo::run::run(&r, &s, Some(1)).expect_err("refused");
    assert_eq!(err.code(), Code::BadScenario, "{err}");
    assert!(err.to_string().contains("farther from 0 than tempo places anyone"), "{err}");

    let rules = compile_str("g.rules", include_str!("runner/rules/ground.rules")).ruleset.expect("compiles");
    let terrain = tempo::run::scenario::parse(
        r#"(seed: 1, rounds: 1, terrain: [(kind: "mud", from: -9223372036854775808, to: 0)], participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Passive)),
  (name: "B", side: "b", position: 4, controller: Policy(Passive)),
])"#,
    )
    .expect("parses");
    let problems = tempo::run::scenario::resolve(&terrain, &rules).expect_err("terrain refused");
    assert!(problems.iter().any(|p| p.to_string().contains("terrain")), "{problems:?}");

    let objects = compile_str("t.rules", include_str!("runner/rules/things.rules")).ruleset.expect("compiles");
    let placed = tempo::run::scenario::parse(
        r#"(seed: 1, rounds: 1, objects: [(kind: "crate", at: -9223372036854775808)], participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Passive)),
  (name: "B", side: "b", position: 4, controller: Policy(Passive)),
])"#,
    )
    .expect("parses");
    let problems = tempo::run::scenario::resolve(&placed, &objects).expect_err("object refused");
    assert!(problems.iter().any(|p| p.to_string().contains("crate")), "{problems:?}");
}

// Issue 33: what `tempo test`, `compile`, `doc` and `fmt` write and read.

/// `tempo` with a deadline: a command that hangs fails the test instead of hanging it.
fn tempo_within(dir: &Path, args: &[&str], seconds: u64) -> (i32, String, String) {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tempo"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tempo runs");
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            let (mut out, mut err) = (String::new(), String::new());
            child.stdout.take().expect("stdout").read_to_string(&mut out).ok();
            child.stderr.take().expect("stderr").read_to_string(&mut err).ok();
            return (status.code().unwrap_or(-1), out, err);
        }
        if started.elapsed().as_secs() >= seconds {
            child.kill().ok();
            child.wait().ok();
            panic!("`tempo {}` still running after {seconds} s", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A folder with `r.rules`, a scenario file `s.ron` and test files: each `(name, golden)` a test
/// of the duel whose `golden` is written as given.
fn tests_folder(name: &str, tests: &[(&str, &str)]) -> PathBuf {
    let dir = folder(name);
    let t = dir.join("t");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::write(t.join("r.rules"), BASE).unwrap();
    std::fs::write(t.join("s.ron"), DUEL).unwrap();
    for (test, golden) in tests {
        let text = format!("(ruleset: \"r.rules\", scenario_file: \"s.ron\", golden: {golden:?})");
        std::fs::write(t.join(format!("{test}.test.ron")), text).unwrap();
    }
    dir
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success());
}

#[cfg(unix)]
#[test]
fn bless_with_golden_dot_dot_an_absolute_path_or_a_link_leading_out_writes_nothing_outside() {
    let outside = folder("bless-outside-target");
    let victim = outside.join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    let absolute = victim.display().to_string();
    let dir = tests_folder("bless-outside", &[("up", "../../x.trace"), ("abs", &absolute)]);
    std::os::unix::fs::symlink(&victim, dir.join("t/soft.trace")).unwrap();
    std::fs::hard_link(&victim, dir.join("t/hard.trace")).unwrap();
    for (test, golden) in [("soft", "soft.trace"), ("hard", "hard.trace")] {
        let text = format!("(ruleset: \"r.rules\", scenario_file: \"s.ron\", golden: {golden:?})");
        std::fs::write(dir.join(format!("t/{test}.test.ron")), text).unwrap();
    }
    let (code, out, _) = tempo_within(&dir, &["test", "--bless", "t"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("0 passed, 4 failed"), "{out}");
    assert!(out.contains("is not in the test's folder"), "{out}");
    assert!(out.contains("leads outside its test's folder"), "{out}");
    assert!(out.contains("other hard links"), "{out}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    assert!(!folder_has(&dir, "x.trace") && !dir.parent().unwrap().join("x.trace").exists());
}

fn folder_has(dir: &Path, name: &str) -> bool {
    dir.join(name).exists()
}

#[test]
fn bless_with_golden_naming_the_ruleset_the_scenario_or_the_test_file_leaves_them_alone() {
    let dir =
        tests_folder("bless-inputs", &[("rules", "r.rules"), ("scenario", "s.ron"), ("itself", "itself.test.ron")]);
    let before: Vec<String> = ["r.rules", "s.ron", "itself.test.ron"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join("t").join(f)).unwrap())
        .collect();
    let (code, out, _) = tempo_within(&dir, &["test", "--bless", "t"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("0 passed, 3 failed"), "{out}");
    // Refused by their names (`.rules`, `.ron`); a base named otherwise is refused as an input
    // (`bless_never_writes_a_base_of_the_extends_chain_or_another_test_file`).
    assert_eq!(out.matches("[tempo::bless-refused]").count(), 3, "{out}");
    let after: Vec<String> = ["r.rules", "s.ron", "itself.test.ron"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join("t").join(f)).unwrap())
        .collect();
    assert_eq!(before, after);
}

// Issue 45, item 2: two tests sharing a golden failed with and without `--bless`, forever.
#[test]
fn two_tests_sharing_one_golden_agree_or_bless_writes_nothing() {
    let dir = tests_folder("bless-shared", &[("a", "shared.trace"), ("b", "./shared.trace"), ("c", "own.trace")]);
    let (code, out, _) = tempo_within(&dir, &["test", "--bless", "t"], 60);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 passed, 0 failed"), "{out}");
    let (code, out, _) = tempo_within(&dir, &["test", "t"], 60);
    assert_eq!((code, out.contains("3 passed, 0 failed")), (0, true), "{out}");
    // Other seeds for `b`: its trace for the shared file differs from `a`'s.
    std::fs::write(
        dir.join("t/b.test.ron"),
        "(ruleset: \"r.rules\", scenario_file: \"s.ron\", seeds: [1, 2], golden: \"shared.trace\")",
    )
    .unwrap();
    std::fs::remove_file(dir.join("t/own.trace")).unwrap();
    let shared = std::fs::read_to_string(dir.join("t/shared.trace")).unwrap();
    let (code, out, _) = tempo_within(&dir, &["test", "--bless", "t"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("0 passed, 3 failed"), "{out}");
    assert!(out.contains("tempo::bless-refused") && out.contains("traces for them differ"), "{out}");
    assert!(out.contains("was not written"), "{out}");
    assert_eq!(std::fs::read_to_string(dir.join("t/shared.trace")).unwrap(), shared);
    assert!(!dir.join("t/own.trace").exists(), "nothing is written when one golden is refused");
}

// Issue 45, item 2: a golden naming a base two levels up the ruleset's `extends` chain, or
// another test file, was written over with exit 0.
#[test]
fn bless_never_writes_a_base_of_the_extends_chain_or_another_test_file() {
    let dir = tests_folder("bless-chain", &[("own", "own.trace")]);
    let t = dir.join("t");
    // A base not named `.rules`: only the `extends` chain tells it is an input.
    std::fs::write(t.join("base.txt"), BASE).unwrap();
    std::fs::write(t.join("v1.rules"), "ruleset v1\nextends \"base.txt\"\n").unwrap();
    std::fs::write(t.join("v2.rules"), "ruleset v2\nextends \"v1.rules\"\n").unwrap();
    std::fs::write(t.join("chain.test.ron"), "(ruleset: \"v2.rules\", scenario_file: \"s.ron\", golden: \"base.txt\")")
        .unwrap();
    let (code, out, _) = tempo_within(&dir, &["test", "--bless", "t"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("tempo::bless-refused") && out.contains("which this command reads"), "{out}");
    assert_eq!(std::fs::read_to_string(t.join("base.txt")).unwrap(), BASE);
    assert!(!t.join("own.trace").exists(), "nothing is written when one golden is refused");
    // A golden named as a ruleset or a test file (in the run or not) is refused by its name.
    std::fs::remove_file(t.join("chain.test.ron")).unwrap();
    std::fs::write(t.join("other.test.ron"), "(ruleset: \"r.rules\", scenario_file: \"s.ron\", expect: [\"A\"])")
        .unwrap();
    let other = std::fs::read_to_string(t.join("other.test.ron")).unwrap();
    for golden in ["other.test.ron", "v1.rules", "elsewhere.test.ron"] {
        let text = format!("(ruleset: \"v2.rules\", scenario_file: \"s.ron\", golden: {golden:?})");
        std::fs::write(t.join("named.test.ron"), text).unwrap();
        let (code, out, _) = tempo_within(&dir, &["test", "--bless", "t"], 60);
        assert_eq!(code, 1, "{golden}: {out}");
        assert!(out.contains("tempo::bless-refused") && out.contains("is named as a ruleset"), "{out}");
        assert!(!t.join("elsewhere.test.ron").exists());
    }
    assert_eq!(std::fs::read_to_string(t.join("other.test.ron")).unwrap(), other);
    assert_eq!(std::fs::read_to_string(t.join("v1.rules")).unwrap(), "ruleset v1\nextends \"base.txt\"\n");
}

#[test]
fn golden_empty_says_the_golden_is_empty() {
    let dir = tests_folder("golden-empty", &[("a", "")]);
    let (code, out, _) = tempo_within(&dir, &["test", "--bless", "t"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the golden trace is empty"), "{out}");
}

#[cfg(unix)]
#[test]
fn doc_and_compile_onto_dev_null_are_refused_not_replaced() {
    let dir = folder("dev-null-output");
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    for args in [["doc", "r.rules", "-o", "/dev/null"], ["compile", "r.rules", "-o", "/dev/null"]] {
        let (code, _, err) = tempo_within(&dir, &args, 60);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("`/dev/null`") && err.contains("not a regular file"), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn compile_x_o_x_and_doc_x_o_x_leave_the_ruleset_and_its_base_alone() {
    let dir = folder("output-onto-input");
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    std::fs::write(dir.join("v.rules"), "ruleset v\nextends \"r.rules\"\n").unwrap();
    std::os::unix::fs::symlink("r.rules", dir.join("soft.rules")).unwrap();
    std::fs::hard_link(dir.join("r.rules"), dir.join("hard.rules")).unwrap();
    for command in ["compile", "doc"] {
        for (input, output) in
            [("r.rules", "r.rules"), ("r.rules", "soft.rules"), ("r.rules", "hard.rules"), ("v.rules", "r.rules")]
        {
            let (code, _, err) = tempo_within(&dir, &[command, input, "-o", output], 60);
            assert_eq!(code, 2, "{command} {input} -o {output}: {err}");
            assert!(err.contains("which this command reads"), "{err}");
            assert_eq!(std::fs::read_to_string(dir.join("r.rules")).unwrap(), BASE);
        }
    }
}

#[test]
fn doc_o_folder_leaves_no_temporary_file_and_speaks_of_the_sheet() {
    let dir = folder("doc-into-folder");
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let (code, _, err) = tempo_within(&dir, &["doc", "r.rules", "-o", "out"], 60);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write the sheet to `out`: it is a folder"), "{err}");
    assert!(!err.contains("formatted"), "{err}");
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[cfg(unix)]
#[test]
fn a_fifo_as_golden_scenario_file_ron_ruleset_or_found_test_file_is_refused_not_waited_on() {
    let dir = tests_folder("test-fifos", &[("golden", "pipe.trace")]);
    let t = dir.join("t");
    for pipe in ["pipe.trace", "pipe.ron", "pipe-s.ron", "pipe.test.ron"] {
        mkfifo(&t.join(pipe));
    }
    std::fs::write(
        t.join("scenario.test.ron"),
        "(ruleset: \"r.rules\", scenario_file: \"pipe-s.ron\", expect: [\"A\"])",
    )
    .unwrap();
    std::fs::write(t.join("ir.test.ron"), "(ruleset: \"pipe.ron\", scenario_file: \"s.ron\", expect: [\"A\"])")
        .unwrap();
    let (code, out, _) = tempo_within(&dir, &["test", "t"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("0 passed, 4 failed"), "{out}");
    assert_eq!(out.matches("not a regular file").count(), 4, "{out}");
}

#[cfg(unix)]
#[test]
fn fmt_of_a_fifo_and_of_dev_zero_is_refused_not_read() {
    let dir = folder("fmt-fifo");
    mkfifo(&dir.join("fifo.rules"));
    for file in ["fifo.rules", "/dev/zero"] {
        let (code, _, err) = tempo_within(&dir, &["fmt", file], 60);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
}

#[test]
fn a_test_of_a_billion_rounds_is_refused_at_the_event_cap_not_buffered_whole() {
    let dir = folder("billion-rounds");
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    let long = DUEL.replace("rounds: 2", "rounds: 1000000000").replace("Aggressive", "Passive");
    std::fs::write(dir.join("long.test.ron"), format!("(ruleset: \"r.rules\", scenario: {long}, expect: [\"A\"])"))
        .unwrap();
    let (code, out, _) = tempo_within(&dir, &["test", "long.test.ron"], 120);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the trace is longer than 1000000 events"), "{out}");
}

#[test]
fn tempo_test_dot_finds_a_test_forty_folders_deep() {
    let dir = folder("deep-tests");
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    let test = |ruleset: &str| format!("(ruleset: {ruleset:?}, scenario: {DUEL}, expect: [\"A\"])");
    std::fs::write(dir.join("top.test.ron"), test("r.rules")).unwrap();
    let mut deep = dir.clone();
    for _ in 0..40 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("bottom.test.ron"), test(&format!("{}r.rules", "../".repeat(40)))).unwrap();
    let (code, out, err) = tempo_within(&dir, &["test", "."], 60);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 passed, 0 failed"), "{out}");
}

// Issue 33, item 13: 16,000 threads took over two minutes to start and stop for 10 runs.
#[test]
fn sweep_jobs_sixteen_thousand_is_lowered_to_four_per_core_and_says_so() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args =
        ["sweep", "rulesets/frontiers.rules", "tests/sweep/duel.ron", "--set", "Brute.hp_max=14..15", "--runs", "4"];
    let (code, _, err) = tempo_within(root, &[&args[..], &["--jobs", "16000"]].concat(), 120);
    assert_eq!(code, 0, "{err}");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(err.contains(&format!("--jobs 16000 lowered to {}", 4 * cores)), "{err}");
    let (_, _, err) = tempo_within(root, &[&args[..], &["--jobs", "1"]].concat(), 120);
    assert!(!err.contains("lowered"), "{err}");
}

// Issue 33, item 14: every column was counted from its line's start, so 20,000 diagnostics on
// one 620 KB line took 10.5 s (release) and grew with the square of their number.
#[test]
fn forty_thousand_override_title_on_one_line_render_in_linear_time() {
    let line = vec!["override title \"abcdefghijklmnop\""; 40_000].join(" ");
    let c = compile_str("long.rules", &format!("ruleset x\n{line}\n"));
    assert!(c.diagnostics.len() >= 40_000, "{}", c.diagnostics.len());
    // Quadratic, this took minutes in a debug build; linear, about a second. How fast it is
    // belongs in a benchmark: the deadline is only a guard, so a regression to quadratic fails
    // instead of hanging the run, and is generous enough that no slow machine trips it.
    let (done, wait) = std::sync::mpsc::channel();
    let diagnostics = c.diagnostics.clone();
    let sources = c.sources.clone();
    std::thread::spawn(move || {
        let json = render::to_json(&diagnostics, &sources);
        let text = render::to_text(&diagnostics, &sources, render::TextStyle { color: false, width: 100 });
        done.send((json, text)).ok();
    });
    let (json, text) = wait
        .recv_timeout(std::time::Duration::from_secs(600))
        .expect("40,000 diagnostics on one line rendered within 600 s (quadratic again?)");
    let last = c.diagnostics.last().expect("one").primary.span.start as usize;
    let column = line[..last - "ruleset x\n".len()].chars().count() + 1;
    assert!(
        json.contains(&format!("\"column\": {column}")) || json.contains(&format!("\"column\":{column}")),
        "{column}"
    );
    assert!(text.contains(&format!("long.rules:2:{column}")), "{column}");
}

// Issue 33, item 9: `why` kept every event up to the one asked about: 2 GB for event 20,000,000.
#[test]
fn why_event_far_into_a_billion_rounds_keeps_a_window_and_one_past_the_end_says_so() {
    let dir = folder("why-far");
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    let long = DUEL.replace("rounds: 2", "rounds: 1000000000").replace("Aggressive", "Passive");
    std::fs::write(dir.join("long.ron"), long).unwrap();
    std::fs::write(dir.join("short.ron"), DUEL).unwrap();
    // Far past the window: still explained, back to the turn that began it.
    let far = (tempo::why::WINDOW * 3).to_string();
    let (code, out, err) = tempo_within(&dir, &["why", "r.rules", "long.ron", "--event", &far], 120);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("#{far}")), "{out}");
    let (code, _, err) = tempo_within(&dir, &["why", "r.rules", "short.ron", "--event", "20000000"], 60);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("there is no event #20000000: this run wrote"), "{err}");
}

#[test]
fn why_follows_a_cause_outside_the_window_by_playing_again() {
    let steps: Vec<tempo::why::Step> = (0..3u64)
        .map(|seq| tempo::why::Step {
            seq,
            round: Some(1),
            text: format!("e{seq}"),
            rule: None,
            because: seq.checked_sub(1),
            frame: seq == 0,
        })
        .collect();
    // The window holds only the last event; the cause before it is what `Keep::only` finds.
    let chain = tempo::why::chain(&steps[2..], 2).expect("the event");
    assert_eq!(tempo::why::next_cause(&chain, 2), Some(1));
    let seqs: Vec<u64> = tempo::why::chain(&steps, 2).expect("the event").iter().map(|s| s.seq).collect();
    assert_eq!(seqs, [2, 1, 0]);
}

/// A reader that stops reading (`| head -c 1`) is no reason to panic: every command that prints
/// to stdout writes through one function that takes a closed pipe as done.
#[cfg(unix)]
#[test]
fn a_closed_stdout_is_no_panic() {
    use std::io::Read;
    let rules = vec!["override title \"abcdefghijklmnop\""; 5000].join(" ");
    let dir = std::env::temp_dir().join(format!("tempo-closed-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("long.rules");
    std::fs::write(&file, format!("ruleset x\n{rules}\n")).unwrap();
    let f = file.to_str().unwrap();
    for args in [&["check", "--format", "json", f][..], &["explain", "--list"][..], &["explain", "unknown-pool"][..]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tempo"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut one = [0u8; 1];
        child.stdout.take().unwrap().read_exact(&mut one).unwrap();
        // The pipe is closed here, before the command has written everything.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

// Issue 45, item 1: a test file's `ruleset` (and `scenario_file`) could name any file, and its
// compile error printed the file's lines: `/proc/self/environ` printed the environment. Run from
// the test's folder, `dir` (holding the secret) is outside both the folder given and the current
// folder.
#[cfg(unix)]
#[test]
fn a_test_file_naming_a_file_outside_its_folder_is_refused_and_prints_nothing_of_it() {
    const CANARY: &str = "CANARY_c4f3_SECRET";
    let dir = tests_folder("test-outside", &[]);
    let t = dir.join("t");
    std::fs::write(dir.join("secret.rules"), format!("{CANARY}=1\n")).unwrap();
    std::fs::write(dir.join("secret.ron"), format!("({CANARY}: 1)\n")).unwrap();
    std::os::unix::fs::symlink(dir.join("secret.rules"), t.join("link.rules")).unwrap();
    std::os::unix::fs::symlink(dir.join("secret.rules"), t.join("link.trace")).unwrap();
    std::os::unix::fs::symlink(&dir, t.join("up")).unwrap();
    let absolute = format!("(ruleset: {:?}, scenario_file: \"s.ron\", expect: [\"x\"])", dir.join("secret.rules"));
    let tests = [
        ("environ", "(ruleset: \"/proc/self/environ\", scenario_file: \"s.ron\", expect: [\"x\"])"),
        ("absolute", absolute.as_str()),
        ("dots", "(ruleset: \"../secret.rules\", scenario_file: \"s.ron\", expect: [\"x\"])"),
        ("link", "(ruleset: \"link.rules\", scenario_file: \"s.ron\", expect: [\"x\"])"),
        ("folder-link", "(ruleset: \"up/secret.rules\", scenario_file: \"s.ron\", expect: [\"x\"])"),
        ("scenario", "(ruleset: \"r.rules\", scenario_file: \"../secret.ron\", expect: [\"x\"])"),
        ("scenario-link", "(ruleset: \"r.rules\", scenario_file: \"up/secret.ron\", expect: [\"x\"])"),
        ("golden-link", "(ruleset: \"r.rules\", scenario_file: \"s.ron\", golden: \"link.trace\")"),
    ];
    for (name, text) in tests {
        std::fs::write(t.join(format!("{name}.test.ron")), text).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tempo"))
        .current_dir(&t)
        .args(["test", "."])
        .env("NO_COLOR", "1")
        .env("TEMPO_AUDIT_CANARY", CANARY)
        .output()
        .expect("tempo runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("0 passed, 8 failed"), "{stdout}");
    assert_eq!(stdout.matches("[tempo::outside-folder]").count(), 8, "{stdout}");
    assert!(!stdout.contains(CANARY) && !stderr.contains(CANARY), "{stdout}{stderr}");
    // A test file given directly keeps to its own folder and the current one.
    let (code, out, _) = tempo_within(&t, &["test", "dots.test.ron"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("tempo::outside-folder") && !out.contains(CANARY), "{out}");
    // With `--allow-outside`, `../secret.rules` is read (and shown) as the user asked.
    let (code, out, _) = tempo_within(&t, &["test", "--allow-outside", "dots.test.ron"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("does not compile") && out.contains(CANARY), "{out}");
    // Run from `dir`, everything but `/proc/self/environ` lies in the current folder, and the
    // golden trace linked out of its test's folder stays refused: its rule ignores the current
    // folder.
    let (code, out, _) = tempo_within(&dir, &["test", "t"], 60);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches("[tempo::outside-folder]").count(), 2, "{out}");
    assert!(out.contains("the golden trace (`t/link.trace`) leads outside its test's folder `t`"), "{out}");
}

// Issue 45, item 1 (the rule made less strict): a test may read what lies inside the folder given
// or inside the current folder, so `tempo test tests` from a project's root reaches the project's
// `rulesets/`, a sibling of `tests/`. A link inside the current folder to a file outside it, and
// `..` leading out of both, stay refused.
#[cfg(unix)]
#[test]
fn a_test_reads_a_sibling_folder_inside_the_current_folder_and_nothing_outside_both() {
    let dir = folder("test-inside");
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("tests/deep")).unwrap();
    std::fs::create_dir_all(project.join("rulesets")).unwrap();
    std::fs::write(project.join("rulesets/r.rules"), BASE).unwrap();
    std::fs::write(dir.join("outside.rules"), "SECRET_OUTSIDE=1\n").unwrap();
    std::os::unix::fs::symlink(dir.join("outside.rules"), project.join("rulesets/link.rules")).unwrap();
    let test = |ruleset: &str| format!("(ruleset: {ruleset:?}, scenario: {DUEL}, expect: [\"A\"])");
    std::fs::write(project.join("tests/deep/a.test.ron"), test("../../rulesets/r.rules")).unwrap();
    // From the project's root: the folder given or the test file given, no flag needed.
    for given in ["tests", "tests/deep", "tests/deep/a.test.ron", "."] {
        let (code, out, _) = tempo_within(&project, &["test", given], 60);
        assert_eq!(code, 0, "{given}: {out}");
    }
    // From `tests/`, `rulesets/` is outside both.
    let (code, out, _) = tempo_within(&project.join("tests"), &["test", "deep"], 60);
    assert_eq!(code, 1, "{out}");
    let refused = "[tempo::outside-folder] the ruleset `../../rulesets/r.rules` (`../rulesets/r.rules`) \
                   leads outside the folder `deep` and the current folder";
    assert!(out.contains(refused), "{out}");
    let (code, out, _) = tempo_within(&project.join("tests"), &["test", "--allow-outside", "deep"], 60);
    assert_eq!(code, 0, "{out}");
    // `..` out of both, and a link inside the current folder leading out of it.
    for ruleset in ["../../../outside.rules", "../../rulesets/link.rules"] {
        std::fs::write(project.join("tests/deep/a.test.ron"), test(ruleset)).unwrap();
        let (code, out, _) = tempo_within(&project, &["test", "tests"], 60);
        assert_eq!(code, 1, "{ruleset}: {out}");
        assert!(out.contains("[tempo::outside-folder]") && !out.contains("SECRET_OUTSIDE"), "{ruleset}: {out}");
    }
}

// Issue 45, item 3: work with no ceiling.

/// A participant `A` scripted to take `action` in round 1, against a passive `B`.
fn scripted(action: &str, rounds: u64) -> tempo::run::scenario::Scenario {
    let text = format!(
        r#"(rounds: {rounds}, participants: [
  (name: "A", side: "a", position: 0, controller: Script(steps: [Act(round: 1, action: "{action}")], fallback: Passive)),
  (name: "B", side: "b", position: 5, controller: Policy(Passive)),
])"#
    );
    tempo::run::scenario::parse(&text).expect("parses")
}

#[test]
fn search_with_more_playouts_than_the_limit_is_refused_wherever_a_policy_is_read() {
    let dir = folder("search-playouts");
    std::fs::write(dir.join("r.rules"), BASE).unwrap();
    std::fs::write(dir.join("s.ron"), DUEL).unwrap();
    let (code, _, err) =
        tempo_within(&dir, &["run", "r.rules", "s.ron", "--control", "A=Search(playouts: 1000000000)"], 60);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 100000 playouts"), "{err}");
    let (code, _, err) = tempo_within(&dir, &["sim", "r.rules", "s.ron", "--skill", "Search(playouts: 100001)"], 60);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 100000 playouts"), "{err}");
    std::fs::write(dir.join("big.ron"), DUEL.replacen("Policy(Aggressive)", "Policy(Search(playouts: 4000000000))", 1))
        .unwrap();
    let (code, _, err) = tempo_within(&dir, &["run", "r.rules", "big.ron"], 60);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("tempo::scenario") && err.contains("at most 100000 playouts"), "{err}");
    std::fs::write(dir.join("big.test.ron"), "(ruleset: \"r.rules\", scenario_file: \"big.ron\", expect: [\"A\"])")
        .unwrap();
    let (code, out, _) = tempo_within(&dir, &["test", "big.test.ron"], 60);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("at most 100000 playouts"), "{out}");
    // A scenario built in code, not read: refused when it is resolved.
    let r = ruleset("");
    let mut s = tempo::run::scenario::parse(DUEL).expect("parses");
    let spec = tempo::run::scenario::SearchSpec { playouts: 100_001, ..Default::default() };
    s.participants[0].controller = tempo::run::scenario::Controller::Policy(tempo::run::scenario::Policy::Search(spec));
    let err = tempo::run::run(&r, &s, Some(1)).expect_err("refused");
    assert!(err.to_string().contains("at most 100000 playouts"), "{err}");
}

/// Stops the run at the start of round 2 (its first round played whole).
struct FirstRound(bool);

impl tempo::run::sink::Sink for FirstRound {
    fn record(&mut self, record: tempo::run::trace::Record) {
        self.0 |= matches!(record.event, tempo::run::trace::Event::RoundEnd {});
    }

    fn stopped(&self) -> bool {
        self.0
    }
}

#[test]
fn a_search_playout_is_bounded_in_rounds_whatever_the_round_limit() {
    // Nobody can reach anybody: without a bound, every playout of round 1 played a million rounds.
    let r = ruleset("");
    let text = DUEL
        .replace("rounds: 2", "rounds: 1000000")
        .replace("position: 5", "position: 1000000")
        .replacen("Policy(Aggressive)", "Policy(Search(playouts: 16))", 1)
        .replace("Policy(Aggressive)", "Policy(Passive)");
    let s = tempo::run::scenario::parse(&text).expect("parses");
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let ended = tempo::run::run_into(&r, &s, Some(1), FirstRound(false));
        done.send(matches!(ended, Err(tempo::run::RunError::Output))).ok();
    });
    let stopped = wait.recv_timeout(std::time::Duration::from_secs(120));
    assert_eq!(stopped, Ok(true), "round 1's decisions did not finish within 120 s");
}

#[test]
fn dice_thrown_in_a_loop_stop_at_the_dice_budget_naming_the_rule() {
    let throws = vec!["dice(1000, 6)"; 250].join(" + ");
    let r = ruleset(&format!("action hurl {{ cost 1 ap; resolve {{ repeat while true {{ roll r = {throws} }} }} }}"));
    // The bound is the dice budget the message names, not the clock.
    let err = tempo::run::run(&r, &scripted("hurl", 2), Some(1)).expect_err("stopped");
    assert_eq!(err.code(), Code::TriggerCycle);
    assert!(err.to_string().contains("more than 1000000 dice were thrown in one cascade, in hurl by A"), "{err}");
}

#[test]
fn a_nested_repeat_while_at_the_step_budget_names_its_rule() {
    let r = ruleset(
        "pool x { max 1000000000 }\naction spin { cost 1 ap; resolve { repeat while true { repeat while true { self.x -= 1 } } } }",
    );
    let err = tempo::run::run(&r, &scripted("spin", 2), Some(1)).expect_err("stopped");
    assert_eq!(err.code(), Code::TriggerCycle);
    let message = err.to_string();
    assert!(message.contains("200000 steps") && message.ends_with("in spin by A"), "{message}");
}

#[test]
fn piles_starting_with_more_than_the_item_limit_are_refused_when_checked() {
    let kinds: Vec<String> = (0..11).map(|i| format!("k{i} x10000")).collect();
    let text = format!("items cards {{ {} }}\npile deck of cards {{ starts full }}", kinds.join(", "));
    assert_eq!(codes(&with_base(&text)), [Code::NumberTooLarge]);
    let c = compile_with(&with_base(&text), Path::new("input.rules"));
    assert!(c.diagnostics[0].message.contains("110000 items, more than 100000"), "{:?}", c.diagnostics);
    // At the limit, and the same items in a pile that starts empty, are fine.
    assert!(codes(&with_base(&text.replace("k10 x10000", "k10 x1").replace("k9 x10000", "k9 x9999"))).is_empty());
    assert!(codes(&with_base(&text.replace(" { starts full }", ""))).is_empty());
}
