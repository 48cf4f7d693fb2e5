//! Formatting: the whole document through `tempo::fmt::format_source`, as one edit.

use super::documents::Documents;
use super::navigate::Text;
use super::RequestError;
use lsp_types::{TextEdit, Url};

/// One edit replacing the whole text; none when it is already formatted; `None` (no edits, and
/// no error the editor would pop up on every save) when the text does not parse.
pub fn formatting(documents: &Documents, uri: &Url) -> Result<Option<Vec<TextEdit>>, RequestError> {
    let doc = documents.get(uri).ok_or_else(|| RequestError::invalid(format!("`{uri}` is not open")))?;
    let Ok(formatted) = crate::fmt::format_source(&doc.text) else { return Ok(None) };
    if formatted == doc.text {
        return Ok(Some(Vec::new()));
    }
    let text = Text::new(&doc.text);
    Ok(Some(vec![TextEdit::new(text.range(0, doc.text.len()), formatted)]))
}
