//! The file named by a tool's first argument, read whole; shared by `#[path]` with the tools
//! under `benches/tools/` that read one.

use std::process::ExitCode;

/// The file named first on the command line and its text, or the exit code after saying why not.
pub fn first_file(usage: &str) -> Result<(String, String), ExitCode> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: {usage}");
        return Err(ExitCode::from(2));
    };
    std::fs::read_to_string(&path).map(|text| (path.clone(), text)).map_err(|e| {
        eprintln!("cannot read `{path}`: {e}");
        ExitCode::from(2)
    })
}
