//! `tempo lsp`: the language server on stdin and stdout (`tempo::lsp`).

use super::{Failure, Outcome};
use clap::Args;

/// Start the language server, speaking the Language Server Protocol on stdin and stdout.
///
/// Editors start it (see editors/README.md): it checks each open file as `tempo check` would
/// and offers hover, go to definition, references, rename, completion and an outline.
/// Exit code 0 after the client's `shutdown` and `exit`, 1 otherwise.
#[derive(Args)]
pub struct LspArgs {}

pub fn lsp(_: LspArgs) -> Outcome {
    // Replies are written and flushed as they go, so nothing is left to wait for; the thread
    // reading stdin may still be blocked in a read, and ends with the process.
    tempo::lsp::serve_stdio().map_err(|e| {
        eprintln!("tempo lsp: {e}");
        Failure::Problems
    })
}
