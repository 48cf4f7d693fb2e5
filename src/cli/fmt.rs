//! `tempo fmt`: rules files in the canonical layout, written in place, or listed with `--check`.

use super::{Failure, Outcome};
use clap::Args;
use std::path::{Path, PathBuf};

/// Format rules files in the canonical layout, in place (see docs/formatting.md).
///
/// Comments are kept and meaning never changes; a file that does not parse is left alone and its
/// errors printed. Exit code 0: done (or, with --check, nothing would change); 1: a file does not
/// parse, or with --check a file would change (each is listed); 2: a file could not be read or written.
#[derive(Args)]
pub struct FmtArgs {
    /// `.rules` files, or folders: every `*.rules` file under a folder is formatted.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Change nothing; list the files that are not formatted.
    #[arg(long)]
    check: bool,
}

/// What `tempo fmt` found for one file.
enum Formatted {
    Unchanged,
    Changed,
    /// Does not parse (diagnostics printed); left alone.
    Refused,
    /// Could not be read or written (message printed).
    Failed,
}

pub fn fmt(args: FmtArgs) -> Outcome {
    let check = args.check;
    let (files, errors) = tempo::fmt::files::rules_files(&args.files);
    for (path, e) in &errors {
        eprintln!("error: cannot read the folder `{}`: {e}", path.display());
    }
    let results: Vec<Formatted> = files.iter().map(|f| format_file(f, check)).collect();
    let count = |want: fn(&Formatted) -> bool| results.iter().filter(|r| want(r)).count();
    let changed = count(|r| matches!(r, Formatted::Changed));
    let verb = if check { "would reformat" } else { "reformatted" };
    eprintln!("{verb} {changed} of {} files", files.len());
    if !errors.is_empty() || count(|r| matches!(r, Formatted::Failed)) > 0 {
        Err(Failure::CannotRun)
    } else if count(|r| matches!(r, Formatted::Refused)) > 0 || (check && changed > 0) {
        Err(Failure::Problems)
    } else {
        Ok(())
    }
}

fn format_file(path: &Path, check: bool) -> Formatted {
    // Read as `check` reads it: a regular file of at most 16 MiB (a pipe would hang, /dev/zero
    // would never end).
    let bytes = match tempo::check::Loader::read(&tempo::check::FsLoader::default(), path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", path.display());
            return Formatted::Failed;
        }
    };
    // Text that is not UTF-8 gets the diagnostic `tempo check` gives it.
    let Ok(text) = String::from_utf8(bytes) else {
        super::print_diagnostics(&tempo::check::compile_path(path));
        return Formatted::Refused;
    };
    // A byte-order mark is kept where it was, and the text after it formatted.
    let bom = if text.starts_with('\u{feff}') { "\u{feff}" } else { "" };
    let formatted = match tempo::fmt::format_source(&text[bom.len()..]) {
        Ok(formatted) => format!("{bom}{formatted}"),
        Err(e) => {
            let mut sources = tempo::source::SourceMap::new();
            sources.add(path.display().to_string(), text[bom.len()..].to_string());
            let rendered = tempo::diagnostics::render::to_text(&e.diagnostics, &sources, super::text_style());
            let _ = std::io::Write::write_all(&mut std::io::stderr(), rendered.as_bytes());
            return Formatted::Refused;
        }
    };
    if formatted == text {
        return Formatted::Unchanged;
    }
    if check {
        // A reader that stopped reading (`| head`) is no failure of the check.
        let _ = super::write_stdout("the list", &format!("{}\n", path.display()));
    } else if let Err(e) = tempo::fmt::files::write_atomically(path, &formatted) {
        eprintln!("error: {e}");
        return Formatted::Failed;
    }
    Formatted::Changed
}
