//! Everything README.md shows is checked here, so it cannot go stale:
//! - every `sh` block of one `tempo` command (optionally `| head -N`) followed at once by a `text`
//!   block is run with this build, and its output must be that block, byte for byte;
//! - every `rules` block is made of excerpts (parts between blank lines) of the file the line
//!   before it names, word for word;
//! - every flag in the command table is one that command's `--help` lists;
//! - the test command it gives is the one `.ci/run` runs.

use std::process::Command;

/// (command, the output the README shows) for every such pair of blocks.
fn examples(readme: &str) -> Vec<(String, String)> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let mut body = String::new();
            for l in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            blocks.push((info.trim().to_string(), body));
        } else if !line.trim().is_empty() {
            blocks.push((String::new(), String::new()));
        }
    }
    blocks
        .windows(2)
        .filter_map(|w| match (&w[0], &w[1]) {
            ((sh, cmd), (text, out)) if sh == "sh" && text == "text" && cmd.lines().count() == 1 => {
                cmd.trim().strip_prefix("tempo ").map(|c| (c.to_string(), out.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Splits a command line as a shell would for the README's commands: words, and "..." kept whole.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

#[test]
fn the_worked_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let examples = examples(&readme);
    assert!(
        examples.iter().any(|(c, _)| c.starts_with("sweep ") && c.contains("--target")),
        "the README's worked example is a `tempo sweep --target`: {examples:?}"
    );
    assert!(examples.len() >= 3, "the README shows a run, a sim and a sweep: {examples:?}");
    for (command, shown) in examples {
        // `| head -N`: the README shows the first N lines of what is printed.
        let (args, head) = match command.split_once(" | head -") {
            Some((args, n)) => (args, Some(n.trim().parse::<usize>().expect("head -N"))),
            None => (command.as_str(), None),
        };
        let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(words(args)).env("NO_COLOR", "1").output().unwrap();
        assert!(out.status.success(), "tempo {command}: {}", String::from_utf8_lossy(&out.stderr));
        let printed = String::from_utf8_lossy(&out.stdout);
        let printed: String = match head {
            Some(n) => printed.split_inclusive('\n').take(n).collect(),
            None => printed.into_owned(),
        };
        assert_eq!(printed, shown, "README.md shows other output for `tempo {command}`");
    }
}

#[test]
fn commands_are_split_as_a_shell_would() {
    assert_eq!(words(r#"sweep a  --target "x y=0.5" --runs 3"#), ["sweep", "a", "--target", "x y=0.5", "--runs", "3"]);
}

/// The README's `rules` blocks with the file the line before each names (its first `path` in
/// backticks).
fn rules_blocks(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut last_line = "";
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "```rules" {
            let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
            let file = last_line.split('`').nth(1).unwrap_or_default().to_string();
            out.push((file, body.join("\n")));
        } else if !line.trim().is_empty() {
            last_line = line;
        }
    }
    out
}

#[test]
fn rules_shown_are_excerpts_of_the_file_named() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let blocks = rules_blocks(&readme);
    assert!(!blocks.is_empty(), "the README shows some rules");
    for (file, body) in blocks {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("README names `{file}`: {e}"));
        for excerpt in body.split("\n\n") {
            assert!(text.contains(excerpt), "README.md shows rules that are not in {file}:\n{excerpt}");
        }
    }
}

/// Every `--flag` of each row of the command table, with the command (`sim`, `sim merge` ...).
fn table_flags(readme: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for line in readme.lines().filter(|l| l.starts_with("| `tempo ")) {
        let usage = line.split('`').nth(1).unwrap_or_default();
        let command: Vec<String> = usage
            .split_whitespace()
            .skip(1)
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase()))
            .map(str::to_string)
            .collect();
        for word in line.split(|c: char| c.is_whitespace() || "`[]|(),".contains(c)) {
            if let Some(flag) = word.strip_prefix("--").filter(|f| !f.is_empty()) {
                let flag = flag.split('=').next().unwrap_or_default();
                out.push((command.clone(), format!("--{flag}")));
            }
        }
    }
    out
}

#[test]
fn every_flag_in_the_command_table_exists() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let flags = table_flags(&readme);
    assert!(flags.len() > 20, "the table's flags are found: {flags:?}");
    for (command, flag) in flags {
        let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(&command).arg("--help").output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            help.contains(&flag),
            "README.md's command table gives `tempo {} {flag}`, which --help does not list",
            command.join(" ")
        );
    }
}

#[test]
fn the_test_command_is_the_one_ci_runs() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    assert!(readme.lines().any(|l| l.trim() == "cargo test"), "README.md gives `cargo test`");
    assert!(ci.lines().any(|l| l.trim() == "cargo test"), ".ci/run runs README.md's `cargo test`");
}
