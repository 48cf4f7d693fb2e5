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

/// Writes `text` to stdout: exit 0, also when the reader stopped reading (`| head`); 2 when
/// it cannot be written (`what` names it in the message).
pub fn write_stdout(what: &str, text: &str) -> std::process::ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write {what}: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// Largest scenario or compiled `.ron` IR read, in bytes (an IR is larger than its source).
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a scenario or an IR named on the command line as the file loader reads rules files
/// (a regular file only, since a pipe or a device could hang or never end), at most
/// [`MAX_INPUT_BYTES`], with a UTF-8 byte-order mark skipped.
pub fn read_input(path: &std::path::Path) -> Result<String, String> {
    use tempo::check::{FsLoader, Loader};
    let loader = FsLoader::new(Limits { max_file_bytes: MAX_INPUT_BYTES, ..Limits::default() });
    let bytes = loader.read(path).map_err(|e| e.to_string())?;
    let body = bytes.strip_prefix(tempo::check::load::BOM).unwrap_or(&bytes);
    String::from_utf8(body.to_vec()).map_err(|_| "it is not UTF-8 text".to_string())
}
