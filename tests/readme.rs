//! The README's worked example runs as printed: every `sh` block of one `tempo` command that is
//! followed at once by a `text` block is run with this build, and its output must be that block,
//! byte for byte. An example whose output changed fails here until the README shows what is
//! printed today.

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
    for (command, shown) in examples {
        let out = Command::new(env!("CARGO_BIN_EXE_tempo")).args(words(&command)).env("NO_COLOR", "1").output().unwrap();
        assert!(out.status.success(), "tempo {command}: {}", String::from_utf8_lossy(&out.stderr));
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(printed, shown, "README.md shows other output for `tempo {command}`");
    }
}

#[test]
fn commands_are_split_as_a_shell_would() {
    assert_eq!(words(r#"sweep a  --target "x y=0.5" --runs 3"#), ["sweep", "a", "--target", "x y=0.5", "--runs", "3"]);
}
