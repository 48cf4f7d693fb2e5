//! `tempo check`: every diagnostic of each file, as text on stderr or one JSON document on
//! stdout.

use super::{Format, LoadArgs, Outcome};
use clap::Args;
use std::path::PathBuf;
use tempo::check::{self, Compilation};
use tempo::diagnostics::render;

/// Parse and check rules files; print every error and warning.
///
/// A folder stands for every `.rules` file under it (sorted). Exit code 0: no errors (warnings
/// allowed); 1: errors found; 2: a file could not be read.
#[derive(Args)]
pub struct CheckArgs {
    /// The `.rules` files to check, or folders to check every `.rules` file under.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// `text` for people, `json` for scripts and editors (one document on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    load: LoadArgs,
}

pub fn check(args: CheckArgs) -> Outcome {
    // A folder stands for every `.rules` file under it, sorted, as `fmt` reads one.
    let (files, unreadable) = tempo::fmt::files::rules_files(&args.files);
    for (path, e) in &unreadable {
        eprintln!("error: cannot read the folder `{}`: {e}", path.display());
    }
    let empty: Vec<&PathBuf> =
        args.files.iter().filter(|f| f.is_dir() && !files.iter().any(|r| r.starts_with(f))).collect();
    for folder in &empty {
        eprintln!("error: no `.rules` file under the folder `{}`", folder.display());
    }
    let compilations: Vec<Compilation> =
        files.iter().map(|f| check::compile_path_limited(f, args.load.limits())).collect();
    match args.format {
        Format::Text => {
            for c in &compilations {
                super::print_diagnostics(c);
            }
            eprintln!("{}", summary(&compilations));
        }
        Format::Json => {
            // One document for all files: each diagnostic names its own file.
            let mut all: Vec<render::JsonDiagnostic> = Vec::new();
            for c in &compilations {
                all.extend(c.diagnostics.iter().map(|d| render::to_json_value(d, &c.sources)));
            }
            let doc = render::JsonDocument { diagnostics: all };
            match serde_json::to_string_pretty(&doc) {
                Ok(text) => super::write_stdout("the diagnostics", &(text + "\n"))?,
                Err(e) => return Err(super::cannot(format!("could not write JSON: {e}"))),
            }
        }
    }
    if !unreadable.is_empty() || !empty.is_empty() {
        return Err(super::Failure::CannotRun);
    }
    super::compiled(&compilations)
}

fn summary(compilations: &[Compilation]) -> String {
    let count = |errors: bool| -> usize {
        compilations.iter().flat_map(|c| &c.diagnostics).filter(|d| d.is_error() == errors).count()
    };
    let (errors, warnings) = (count(true), count(false));
    let files = compilations.len();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!("checked {}: {}, {}", plural(files, "file"), plural(errors, "error"), plural(warnings, "warning"))
}
