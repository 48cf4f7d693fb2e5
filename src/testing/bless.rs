//! `--bless`'s writes, all or none. Every golden trace a run would write is known before any is
//! written (`golden::compare` only plans them); then each target is looked at, and when one is
//! refused nothing is written at all (issue 45: a bless overwrote a base ruleset two levels up
//! an `extends` chain, and two tests sharing a golden wrote it in turn).

use super::golden::Pending;
use super::Outcome;
use crate::diagnostics::Code;
use std::path::PathBuf;

/// Writes the golden traces `planned` (each with the index of its test in `outcomes`), or none.
/// A target is refused when it is a file any test of the run reads (`inputs`: the test files,
/// their rulesets with every file of their `extends` chains, their scenario files, compared as
/// files), leads outside its test's folder, is not a regular file, has other hard links, or is
/// planned by two tests with different traces. When any is refused, or `refused_before` (a test
/// of the run was refused its golden trace where it names it: `golden::refused`), its tests fail with the reason (code `tempo::bless-refused`), the other tests with a
/// trace to write fail saying it was not written, and no file is touched.
#[cfg(feature = "fs")]
pub(crate) fn write_all(
    planned: &[(usize, Pending)],
    outcomes: &mut [Outcome],
    inputs: &[PathBuf],
    refused_before: bool,
) {
    let code = Code::BlessRefused.name();
    let real: Vec<PathBuf> = planned.iter().map(|(_, p)| super::within::real(&p.at)).collect();
    let mut refused: Vec<(usize, String)> = Vec::new();
    for (k, (_, p)) in planned.iter().enumerate() {
        let differing: Vec<String> = planned
            .iter()
            .enumerate()
            .filter(|&(j, (_, q))| j != k && real[j] == real[k] && q.text != p.text)
            .map(|(_, (o, _))| format!("`{}`", outcomes[*o].name))
            .collect();
        if !differing.is_empty() {
            refused.push((
                k,
                format!(
                    "[{code}] the golden trace `{}` is also the golden trace of {}, and this run's traces for them \
                     differ: one file cannot hold both (which it held would depend on which test ran last), so \
                     `--bless` wrote nothing; give each test its own golden file",
                    p.at.display(),
                    differing.join(", ")
                ),
            ));
        } else if p.changed {
            if let Some(why) = crate::output::refusal(
                &p.at,
                crate::output::Guard { inputs, within: Some(&p.folder), no_hard_links: true },
            ) {
                refused.push((
                    k,
                    format!(
                        "[{code}] cannot write the golden trace `{}`: {why}; `--bless` wrote nothing",
                        p.at.display()
                    ),
                ));
            }
        }
    }
    if refused.is_empty() && !refused_before {
        let mut done: Vec<&PathBuf> = Vec::new();
        for (k, (i, p)) in planned.iter().enumerate() {
            if !p.changed {
                continue;
            }
            let what = if p.existed { "rewritten" } else { "written" };
            if !done.contains(&&real[k]) {
                if let Err(e) = crate::output::write(
                    &p.at,
                    crate::output::Guard { inputs, within: Some(&p.folder), no_hard_links: true },
                    "the golden trace",
                    p.text.as_bytes(),
                ) {
                    outcomes[*i].passed = false;
                    outcomes[*i].message = e;
                    continue;
                }
                done.push(&real[k]);
            }
            outcomes[*i].message = format!("golden trace `{}` {what}", p.at.display());
        }
        return;
    }
    for (k, (i, p)) in planned.iter().enumerate() {
        let message = match refused.iter().find(|(r, _)| *r == k) {
            Some((_, why)) => why.clone(),
            None if p.changed => format!(
                "[{code}] the golden trace `{}` was not written: `--bless` writes nothing when it must refuse any \
                 golden trace of the run (see the other failures)",
                p.at.display()
            ),
            None => continue,
        };
        outcomes[*i].passed = false;
        outcomes[*i].message = message;
    }
}
