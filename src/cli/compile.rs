//! `tempo compile`: a rules file's IR as RON, on stdout or into a file.

use super::{LoadArgs, Outcome};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use tempo::check;

/// Compile a rules file to the interpreter IR (RON), on stdout or into a file.
///
/// Diagnostics go to stderr. Exit codes as for `check`; nothing is written when there are errors.
#[derive(Args)]
pub struct CompileArgs {
    /// The `.rules` file to compile.
    file: PathBuf,
    /// Write the IR here instead of stdout.
    #[arg(short, long, value_name = "OUT.ron")]
    output: Option<PathBuf>,
    #[command(flatten)]
    load: LoadArgs,
}

pub fn compile(args: CompileArgs) -> Outcome {
    let compilation = check::compile_path_limited(&args.file, args.load.limits());
    super::print_diagnostics(&compilation);
    let Some(ruleset) = &compilation.ruleset else {
        return super::compiled(std::slice::from_ref(&compilation));
    };
    // Streamed into the output: the text is several times the source, and holding it whole
    // (twice, with the final newline added) was most of the command's peak memory.
    match args.output.as_deref() {
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            write_ir(ruleset, &mut out).map_err(|e| super::cannot(format!("cannot write the IR to stdout: {e}")))
        }
        Some(path) => {
            let inputs = super::read_files(&compilation.sources);
            super::write_output(path, &inputs, "the IR to", |w| write_ir(ruleset, w).map_err(std::io::Error::other))
        }
    }
}

/// The IR as `tempo compile` writes it: the RON, then a newline.
fn write_ir(ruleset: &tempo::ir::Ruleset, mut w: impl Write) -> Result<(), String> {
    ruleset.write_ron(&mut w).map_err(|e| e.to_string())?;
    w.write_all(b"\n").and_then(|()| w.flush()).map_err(|e| e.to_string())
}
