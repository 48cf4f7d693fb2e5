//! `tempo explain`: the long explanation of a diagnostic code, or the list of them all.

use super::Outcome;
use clap::Args;
use tempo::diagnostics::Code;

/// Explain a diagnostic code, with an example of the problem and its fix.
///
/// `tempo explain unknown-pool` or `tempo explain tempo::unknown-pool`; `--list` lists all codes.
#[derive(Args)]
pub struct ExplainArgs {
    /// The code, e.g. `tempo::unknown-pool`.
    #[arg(required_unless_present = "list")]
    code: Option<String>,
    /// List every code with the first line of its explanation.
    #[arg(long)]
    list: bool,
}

pub fn explain(args: ExplainArgs) -> Outcome {
    if args.list {
        let mut list = String::new();
        for c in Code::ALL {
            let explanation = c.explanation();
            let first = explanation.lines().next().unwrap_or("");
            list.push_str(&format!("{:<32} {first}\n", c.name()));
        }
        return super::write_stdout("the list", &list);
    }
    let text = args.code.as_deref().unwrap_or("");
    match Code::parse(text) {
        Some(c) => super::write_stdout("the explanation", &format!("{}\n\n{}\n", c.name(), c.explanation())),
        None => {
            let names: Vec<String> = Code::ALL.iter().map(|c| c.slug().to_string()).collect();
            let slug = text.strip_prefix("tempo::").unwrap_or(text);
            let hint = tempo::diagnostics::did_you_mean(slug, names.iter().map(String::as_str))
                .map(|s| format!(" did you mean `tempo::{s}`?"))
                .unwrap_or_default();
            Err(super::cannot(format!(
                "`{text}` is not a tempo diagnostic code.{hint} `tempo explain --list` lists them all."
            )))
        }
    }
}
