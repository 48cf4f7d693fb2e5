//! A ruleset named by a path, read the one way every command that plays one reads it (`tempo
//! run`, `why`, `sim`, `compare`, `test`): `.rules` source compiled with its bases under the
//! [`Limits`], or a `.ron` IR from `tempo compile` read and parsed. The callers differ only in
//! how they show a failure, so the reading itself is here once.

use super::{compile_path_limited, load::BOM, Compilation, FsLoader, Limits, Loader};
use crate::ir::Ruleset;
use crate::source::SourceMap;
use std::path::Path;

/// Largest scenario or compiled `.ron` IR read, in bytes (an IR is larger than its source).
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// A ruleset read from a path.
#[derive(Debug)]
pub struct LoadedRuleset {
    pub ruleset: Ruleset,
    /// The source files compiled, for excerpts; `None` for an IR, whose `files` only name them.
    pub sources: Option<SourceMap>,
}

/// Why a path gives no ruleset.
#[derive(Debug)]
pub enum RulesetError {
    /// An IR that cannot be read: "cannot read `PATH`: WHY".
    Unreadable(String),
    /// A file read that is not an IR: "`PATH` is not a tempo IR: WHY" (`tempo::bad-ir`).
    NotIr(String),
    /// Source with errors, or that cannot be read (`Compilation::unreadable`): every diagnostic.
    Compile(Box<Compilation>),
}

/// Reads the ruleset at `path`: a `.ron` file as IR (at most [`MAX_INPUT_BYTES`]), anything else
/// as `.rules` source compiled under `limits`.
pub fn load_ruleset(path: &Path, limits: Limits) -> Result<LoadedRuleset, RulesetError> {
    if path.extension().is_some_and(|e| e == "ron") {
        let text = read_text(path, MAX_INPUT_BYTES)
            .map_err(|e| RulesetError::Unreadable(format!("cannot read `{}`: {e}", path.display())))?;
        let ruleset = Ruleset::from_ron(&text)
            .map_err(|e| RulesetError::NotIr(format!("`{}` is not a tempo IR: {e}", path.display())))?;
        return Ok(LoadedRuleset { ruleset, sources: None });
    }
    let mut compilation = compile_path_limited(path, limits);
    if !compilation.has_errors() && !compilation.unreadable {
        if let Some(ruleset) = compilation.ruleset.take() {
            return Ok(LoadedRuleset { ruleset, sources: Some(compilation.sources) });
        }
    }
    Err(RulesetError::Compile(Box::new(compilation)))
}

/// Reads a scenario, an IR or a shard named on the command line as the file loader reads rules
/// files (a regular file only, since a pipe or a device could hang or never end), at most
/// `max_bytes`, with a UTF-8 byte-order mark skipped.
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, String> {
    let loader = FsLoader::new(Limits { max_file_bytes: max_bytes, ..Limits::default() });
    let bytes = loader.read(path).map_err(|e| e.to_string())?;
    let body = bytes.strip_prefix(BOM).unwrap_or(&bytes);
    String::from_utf8(body.to_vec()).map_err(|_| "it is not UTF-8 text".to_string())
}
