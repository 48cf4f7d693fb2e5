//! Names in double quotes on the command line: a participant or side whose name holds what a
//! flag splits at (`.` in `--set WHO.STAT=VALUE`, `=` in both `--set` and `--control`) is
//! written `"Sgt. Rock".hp_max=3`, `"A=B"=Greedy`. A leaf: `set` and `control` use it.

/// A name in double quotes at the start of `text` (`"Sgt. Rock".hp_max`, `"A=B"=Greedy`): the
/// name, `\"` and `\\` read as `"` and `\`, and what follows the closing quote. `None` when
/// `text` does not start with a quote; an error when the quote is never closed.
pub(crate) fn quoted(text: &str) -> Option<Result<(String, &str), String>> {
    let body = text.strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some(Ok((name, &body[i + 1..]))),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => name.push(e),
                _ => return Some(Err(format!("`{text}`: in a quoted name, `\\` stands before `\"` or `\\` only"))),
            },
            c => name.push(c),
        }
    }
    Some(Err(format!("`{text}`: the quoted name is not closed (a second `\"`)")))
}

/// `name` as a flag writes it: in double quotes when it holds what would split it (`.`, `=`) or
/// a quote, else as it is.
pub(crate) fn quote_if_needed(name: &str) -> String {
    if name.contains(['.', '=', '"', '\\']) || name.trim() != name {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        name.to_string()
    }
}

/// `NAME=VALUE` split at its first `=` after a quoted name, if it starts with one.
pub fn split_assignment(text: &str) -> Option<(&str, &str)> {
    let trimmed = text.trim_start();
    let skip = match quoted(trimmed) {
        Some(Ok((_, rest))) => trimmed.len() - rest.len(),
        _ => 0,
    };
    let from = text.len() - trimmed.len() + skip;
    let at = from + text[from..].find('=')?;
    Some((&text[..at], &text[at + 1..]))
}
