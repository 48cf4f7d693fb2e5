//! Positions at the edge: byte offsets inside, LSP positions (line, UTF-16 code unit) outside.
//!
//! Lines come from codespan's `Files` line mapping over a [`SourceMap`]; within a line the
//! characters are counted in UTF-16 code units, as the protocol requires by default.

use crate::source::{FileId, SourceMap, Span};
use codespan_reporting::files::Files;
use lsp_types::{Position, Range};

/// The LSP position of a byte offset (clamped into the file, and back to a character boundary).
pub fn position(sources: &SourceMap, file: FileId, offset: usize) -> Position {
    let text = sources.text(file);
    let offset = char_boundary(text, offset);
    let line = sources.line_index(file, offset).unwrap_or(0);
    let start = sources.line_range(file, line).map(|r| r.start).unwrap_or(0).min(offset);
    let character = sources.utf16_between(file, start, offset);
    Position::new(to_u32(line), to_u32(character))
}

/// The LSP range of a span.
pub fn range(sources: &SourceMap, span: Span) -> Range {
    Range::new(position(sources, span.file, span.start as usize), position(sources, span.file, span.end as usize))
}

/// The byte offset of an LSP position. A position past the end of its line is the line's end
/// (before the newline); a line past the end of the file is the end of the file.
pub fn offset(sources: &SourceMap, file: FileId, at: Position) -> usize {
    let text = sources.text(file);
    let Ok(line) = sources.line_range(file, at.line as usize) else {
        return text.len();
    };
    let wanted = at.character as usize;
    let mut units = 0;
    for (i, ch) in text[line.clone()].char_indices() {
        if units >= wanted || ch == '\n' || ch == '\r' {
            return line.start + i;
        }
        units += ch.len_utf16();
    }
    line.end
}

/// The largest character boundary at or before `offset`, within the text.
fn char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_are_utf16_code_units() {
        let mut map = SourceMap::new();
        // `é` is 2 bytes and 1 unit; the emoji is 4 bytes and 2 units.
        let text = "# é 🎲\nab é🎲x\n";
        let id = map.add("x.rules", text);
        let x = text.find('x').unwrap_or(0);
        assert_eq!(position(&map, id, x), Position::new(1, 6));
        assert_eq!(offset(&map, id, Position::new(1, 6)), x);
        assert_eq!(position(&map, id, 0), Position::new(0, 0));
        // Past the end of a line: the line's end; past the last line: the end of the text.
        assert_eq!(offset(&map, id, Position::new(0, 99)), text.find('\n').unwrap_or(0));
        assert_eq!(offset(&map, id, Position::new(9, 0)), text.len());
        // Inside a multi-byte character: back to its start.
        assert_eq!(position(&map, id, 3), Position::new(0, 2));
    }
}
