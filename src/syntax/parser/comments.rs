//! The comments of a text that parses. The grammar skips comments as blanks (`WHITESPACE`), so
//! pest makes no pairs for them; they are found here by the same lexical rule instead, the one
//! the bracket-depth check reads the text by ([`crate::syntax::code_chars`]): outside quoted
//! text, `#` starts a comment that runs to the end of its line (`\n` or `\r`).

use crate::source::{FileId, Span};
use crate::syntax::ast::Comment;

/// Appends the comments of `text[start..end]` to `out`, in file order. `start` must be outside
/// quoted text and comments (the start of the file, or where a `file_step` starts).
pub(super) fn scan(file: FileId, text: &str, start: usize, end: usize, out: &mut Vec<Comment>) {
    let Some(part) = text.get(start..end.min(text.len())) else { return };
    for (at, _) in crate::syntax::code_chars(part).filter(|&(_, ch)| ch == '#') {
        let rest = part.get(at..).unwrap_or("");
        let body = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
        let from = start + at;
        out.push(Comment {
            doc: body.starts_with("##"),
            text: body.into(),
            span: Span::new(file, from, from + body.len()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        scan(FileId(0), text, 0, text.len(), &mut out);
        out.into_iter().map(|c| (c.text.to_string(), c.span.start as usize, c.span.end as usize)).collect()
    }

    #[test]
    fn a_comment_runs_to_the_end_of_its_line_and_quoted_text_hides_a_hash() {
        let text = "## doc\r\nstat a = 1 # after \"quoted # not\"\ntitle \"a # b \\\" # c\" # real\n#";
        assert_eq!(
            texts(text),
            vec![
                ("## doc".to_string(), 0, 6),
                ("# after \"quoted # not\"".to_string(), 19, 41),
                ("# real".to_string(), 63, 69),
                ("#".to_string(), 70, 71),
            ]
        );
    }

    #[test]
    fn text_past_the_range_is_not_read() {
        let text = "stat a = 1 # one\nstat b = 2 # two\n";
        let mut out = Vec::new();
        scan(FileId(0), text, 17, text.len(), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].text, "# two");
        let mut out = Vec::new();
        scan(FileId(0), text, 0, 12, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].text, "#");
    }
}
