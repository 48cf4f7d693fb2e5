//! The command line's larger commands, one module each; `main.rs` holds the rest.

pub mod sim;

use clap::Args;
use tempo::check::Limits;

/// How rules files may be read: shared by every command that compiles one.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct LoadArgs {
    /// Let `extends` name files outside the folder of the file given (and its subfolders).
    /// Refused by default, so a ruleset from elsewhere cannot read other files on the machine.
    #[arg(long)]
    pub allow_outside: bool,
}

impl LoadArgs {
    pub fn limits(self) -> Limits {
        Limits { allow_outside: self.allow_outside, ..Limits::default() }
    }
}

/// Largest scenario or compiled `.ron` IR read, in bytes (an IR is larger than its source).
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a scenario or an IR named on the command line: a regular file only (a pipe or a device
/// could hang or never end), at most [`MAX_INPUT_BYTES`], with a UTF-8 byte-order mark skipped.
pub fn read_input(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.is_dir() {
        return Err("it is a folder, not a file".to_string());
    }
    if !meta.is_file() {
        return Err("it is not a regular file (a device, a pipe or a socket)".to_string());
    }
    let too_large = |len: u64| format!("it is {len} bytes, more than the limit of {MAX_INPUT_BYTES}");
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let body = bytes.strip_prefix(tempo::check::load::BOM).unwrap_or(&bytes);
    String::from_utf8(body.to_vec()).map_err(|_| "it is not UTF-8 text".to_string())
}
