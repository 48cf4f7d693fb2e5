//! What `tempo sim`, `tempo compare` and `tempo sweep` share: the output flags (`--format`,
//! `--html`), `--shard K/N`, the progress bar, and writing a report or its HTML page through the
//! one writer.

use super::Outcome;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub(super) struct OutputArgs {
    /// `text`: tables for a person; `json`: the document docs/simulation.md describes.
    #[arg(long, value_enum, default_value_t = SimFormat::Text)]
    pub(super) format: SimFormat,
    /// Also write a self-contained HTML page with the charts here.
    #[arg(long, value_name = "FILE")]
    pub(super) html: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum SimFormat {
    Text,
    Json,
}

pub(super) fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let (k, n) = text.split_once('/').ok_or("write the shard as K/N, e.g. 2/4")?;
    let k: u64 = k.trim().parse().map_err(|_| format!("`{k}` is not a shard number"))?;
    let n: u64 = n.trim().parse().map_err(|_| format!("`{n}` is not a number of shards"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k} of {n}: K goes from 1 to N"));
    }
    Ok((k, n))
}

/// A progress bar on stderr when it is a terminal and not `--quiet`; otherwise one that draws
/// nothing.
pub(super) fn progress_bar(runs: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} encounters, {per_sec}, {eta} left") {
        bar.set_style(style);
    }
    bar
}

/// Writes the HTML page through the one writer: never over one of the command's `inputs`.
pub(super) fn write_html(path: &Path, inputs: &[PathBuf], page: Result<String, String>) -> Outcome {
    let page = page.map_err(|e| super::cannot(format!("cannot draw the charts: {e}")))?;
    super::write_output(path, inputs, "the page to", |w| w.write_all(page.as_bytes()))
}

/// The files a batch read: the ruleset's (its bases too) and the scenarios.
pub(super) fn inputs(loaded: &tempo::check::LoadedRuleset, rules: &Path, scenarios: &[&Path]) -> Vec<PathBuf> {
    let mut out = match &loaded.sources {
        Some(sources) => super::read_files(sources),
        None => vec![rules.to_path_buf()],
    };
    out.extend(scenarios.iter().map(|s| s.to_path_buf()));
    out
}

/// Writes a report on stdout, or with `to` into that file through the one writer.
pub(super) fn emit(text: &str, to: Option<&Path>, inputs: &[PathBuf]) -> Outcome {
    match to {
        Some(path) => super::write_output(path, inputs, "the summary to", |w| w.write_all(text.as_bytes())),
        None => super::write_stdout("the summary", text),
    }
}

pub(super) fn json<T: serde::Serialize>(value: &T) -> String {
    // Plain data of strings, integers and finite floats: serializing cannot fail.
    serde_json::to_string_pretty(value).map(|s| s + "\n").unwrap_or_default()
}

pub(super) fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}
