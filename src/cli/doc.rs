//! `tempo doc`: the cheat sheet of a ruleset, as Markdown or one HTML page.

use super::{Failure, LoadArgs, Outcome};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use tempo::check;

/// Write the cheat sheet for the table: the round, initiative, pools, actions by category,
/// reactions, triggers, hooks and conditions, with their `##` docs (see docs/doc.md).
///
/// Made from the compiled ruleset: for a variant, what it changes from its base comes first.
/// Diagnostics go to stderr. Exit code 0: written; 1: the ruleset has errors (nothing is
/// written); 2: a file could not be read or written.
#[derive(Args)]
pub struct DocArgs {
    /// The `.rules` file.
    rules: PathBuf,
    /// `md` (Markdown) or `html` (one self-contained page, printable).
    #[arg(long, value_enum, default_value_t = DocFormat::Md)]
    format: DocFormat,
    /// Write the sheet here (replaced atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    load: LoadArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DocFormat {
    Md,
    Html,
}

pub fn doc(args: DocArgs) -> Outcome {
    let (compilation, sheet) = tempo::doc::generate(&check::FsLoader::new(args.load.limits()), &args.rules);
    super::print_diagnostics(&compilation);
    let Some(sheet) = sheet else {
        // A ruleset without errors always gives a sheet; this is only a guard.
        return super::compiled(std::slice::from_ref(&compilation)).and(Err(Failure::Problems));
    };
    let text = match args.format {
        DocFormat::Md => tempo::doc::markdown::sheet(&sheet),
        DocFormat::Html => tempo::doc::html::sheet(&sheet),
    };
    match &args.output {
        None => super::write_stdout("the sheet", &text),
        Some(path) => {
            let inputs = super::read_files(&compilation.sources);
            super::write_output(path, &inputs, "the sheet to", |w| w.write_all(text.as_bytes()))
        }
    }
}
