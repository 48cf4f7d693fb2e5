//! The VS Code extension keeps up with the language: every keyword of the grammar is
//! highlighted, and its snippets are valid rules text.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The keywords of `grammar/tempo.pest`: each `kw_NAME = @{ "word" ~ !ident_char }`.
fn grammar_keywords() -> Vec<String> {
    let pest = std::fs::read_to_string(root().join("grammar/tempo.pest")).unwrap();
    let mut out: Vec<String> =
        pest.lines().filter(|l| l.starts_with("kw_")).filter_map(|l| l.split('"').nth(1).map(str::to_string)).collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_grammar_keyword_is_highlighted() {
    let grammar: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("editors/vscode/syntaxes/tempo.tmLanguage.json")).unwrap(),
    )
    .unwrap();
    // The words listed in the keyword, builtin and declaration patterns' alternations.
    let mut listed: Vec<String> = Vec::new();
    let mut stack = vec![&grammar];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(m)) = map.get("match") {
                    listed.extend(m.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map(str::to_string));
                }
                stack.extend(map.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    let keywords = grammar_keywords();
    assert!(keywords.len() > 100, "{keywords:?}");
    let missing: Vec<&String> = keywords.iter().filter(|k| !listed.contains(k)).collect();
    assert!(missing.is_empty(), "keywords the VS Code grammar does not highlight: {missing:?}");
}

#[test]
fn every_snippet_is_valid_rules_text() {
    let snippets: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("editors/vscode/snippets/tempo.json")).unwrap())
            .unwrap();
    let snippets = snippets.as_object().expect("a map of snippets");
    assert!(snippets.len() >= 6);
    // A ruleset that holds every snippet with its placeholders at their defaults.
    let mut text = String::from("ruleset snippets\n");
    for (name, snippet) in snippets {
        let body: Vec<&str> =
            snippet["body"].as_array().expect(name).iter().map(|l| l.as_str().unwrap_or("")).collect();
        let body = body.join("\n");
        // `${1:ap}` → `ap`, `$0` → nothing.
        let mut plain = String::new();
        let mut rest = body.as_str();
        while let Some(at) = rest.find('$') {
            plain.push_str(&rest[..at]);
            rest = &rest[at + 1..];
            if let Some(inner) = rest.strip_prefix('{') {
                let end = inner.find('}').expect("a closed placeholder");
                plain.push_str(inner[..end].split_once(':').map_or("", |(_, d)| d));
                rest = &inner[end + 1..];
            } else {
                rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            }
        }
        plain.push_str(rest);
        if name != "ruleset" {
            text.push_str(&plain);
            text.push('\n');
        }
    }
    let compiled = tempo::check::compile_str("snippets.rules", &text);
    let errors: Vec<String> = compiled.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
}
