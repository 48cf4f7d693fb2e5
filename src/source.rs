//! Source files and spans. Spans are byte offsets everywhere inside the tool; lines and columns
//! are computed only at the edges (terminal, JSON, language server) through codespan's `Files`.

use codespan_reporting::files::{self, Files};
use std::ops::Range;

/// Index of a file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span { file, start: clamp_u32(start), end: clamp_u32(end.max(start)) }
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.end == self.start
    }

    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One loaded file: its name as given on the command line (or in `extends`) and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// Characters and UTF-16 units before a point every [`CHECKPOINT`] bytes, so a column is
    /// counted from the nearest point rather than from its line's start: 20,000 diagnostics on
    /// one 620 KB line took time quadratic in their number.
    checkpoints: Vec<Checkpoint>,
}

/// Bytes between two [`Checkpoint`]s (at least; each is at a character boundary).
const CHECKPOINT: usize = 1024;

/// How many characters and UTF-16 code units come before byte `byte` of a file.
#[derive(Debug, Clone, Copy, Default)]
struct Checkpoint {
    byte: usize,
    chars: usize,
    utf16: usize,
}

impl SourceFile {
    fn checkpoints(text: &str) -> Vec<Checkpoint> {
        let mut points = vec![Checkpoint::default()];
        let (mut chars, mut utf16, mut next) = (0, 0, CHECKPOINT);
        for (byte, ch) in text.char_indices() {
            if byte >= next {
                points.push(Checkpoint { byte, chars, utf16 });
                next = byte + CHECKPOINT;
            }
            chars += 1;
            utf16 += ch.len_utf16();
        }
        points
    }

    /// Characters and UTF-16 units before `offset` (moved back to a character boundary).
    fn counts_before(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let at = self.checkpoints.partition_point(|c| c.byte <= offset).saturating_sub(1);
        let from = self.checkpoints.get(at).copied().unwrap_or_default();
        let (mut chars, mut utf16) = (from.chars, from.utf16);
        for ch in self.text[from.byte..offset].chars() {
            chars += 1;
            utf16 += ch.len_utf16();
        }
        (chars, utf16)
    }
}

/// Every file a compilation read, so diagnostics can point into any of them.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

/// A position for people: 1-based line, 1-based column counted in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let text = text.into();
        let line_starts = files::line_starts(&text).collect();
        let checkpoints = SourceFile::checkpoints(&text);
        self.files.push(SourceFile { name: name.into(), text, line_starts, checkpoints });
        FileId(clamp_u32(self.files.len() - 1))
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn name(&self, id: FileId) -> &str {
        self.get(id).map(|f| f.name.as_str()).unwrap_or("<unknown>")
    }

    /// Every file's name, in the order the files were added (a `FileId`'s index).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|f| f.name.as_str())
    }

    pub fn text(&self, id: FileId) -> &str {
        self.get(id).map(|f| f.text.as_str()).unwrap_or("")
    }

    /// Characters between two byte offsets of a file (`from` ≤ `to`), in time independent of the
    /// length of the line they are on.
    pub(crate) fn chars_between(&self, id: FileId, from: usize, to: usize) -> usize {
        self.get(id).map_or(0, |f| f.counts_before(to).0.saturating_sub(f.counts_before(from).0))
    }

    /// UTF-16 code units between two byte offsets of a file (`from` ≤ `to`), as the language
    /// server counts columns.
    // The language server is its only caller: without `lsp`, nothing asks for UTF-16.
    #[cfg_attr(not(feature = "lsp"), allow(dead_code))]
    pub(crate) fn utf16_between(&self, id: FileId, from: usize, to: usize) -> usize {
        self.get(id).map_or(0, |f| f.counts_before(to).1.saturating_sub(f.counts_before(from).1))
    }

    /// Line and column of a byte offset, clamped into the file.
    pub(crate) fn line_col(&self, id: FileId, offset: usize) -> LineCol {
        let offset = offset.min(self.text(id).len());
        let line = self.line_index(id, offset).unwrap_or(0);
        let column = self.column_number(id, line, offset).unwrap_or(1);
        LineCol { line: line + 1, column }
    }
}

impl<'a> Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        self.get(id).map(|f| f.name.as_str()).ok_or(files::Error::FileMissing)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        self.get(id).map(|f| f.text.as_str()).ok_or(files::Error::FileMissing)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, files::Error> {
        let file = self.get(id).ok_or(files::Error::FileMissing)?;
        Ok(file.line_starts.binary_search(&byte_index).unwrap_or_else(|next| next - 1))
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, files::Error> {
        let file = self.get(id).ok_or(files::Error::FileMissing)?;
        let start = *file
            .line_starts
            .get(line_index)
            .ok_or(files::Error::LineTooLarge { given: line_index, max: file.line_starts.len() - 1 })?;
        let end = file.line_starts.get(line_index + 1).copied().unwrap_or(file.text.len());
        Ok(start..end)
    }

    /// Counted from the nearest checkpoint, not the line's start (codespan's default counts the
    /// line from its start for every call).
    fn column_number(&'a self, id: FileId, line_index: usize, byte_index: usize) -> Result<usize, files::Error> {
        let range = self.line_range(id, line_index)?;
        let end = byte_index.clamp(range.start, range.end);
        Ok(self.chars_between(id, range.start, end) + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let mut map = SourceMap::new();
        let id = map.add("x.rules", "ab\n✦✦x\n");
        // `x` is byte 9 (two 3-byte characters after the newline at 2), column 3.
        assert_eq!(map.line_col(id, 9), LineCol { line: 2, column: 3 });
        assert_eq!(map.line_col(id, 0), LineCol { line: 1, column: 1 });
        assert_eq!(map.line_col(id, 1000), LineCol { line: 3, column: 1 });
    }

    #[test]
    fn columns_far_along_a_long_line_are_counted_across_checkpoints() {
        let mut map = SourceMap::new();
        let line = "é✦x".repeat(2000);
        let id = map.add("x.rules", format!("a\n{line}\n"));
        for k in [0, 1, 500, 1999] {
            let at = 2 + k * "é✦x".len();
            assert_eq!(map.line_col(id, at), LineCol { line: 2, column: 3 * k + 1 });
            assert_eq!(map.line_col(id, at + 1), LineCol { line: 2, column: 3 * k + 1 }, "inside `é`");
            assert_eq!(map.utf16_between(id, 2, at + 2), 3 * k + 1);
        }
    }
}
