//! The words of a refusal by a limit: "it may be used only twice per turn, and has been used
//! twice".

use super::trace::{NameKind, Named};
use crate::ir::Period;

/// What a ruleset's limit counts, as its refusal says it.
pub(super) enum Subject<'a> {
    /// The action itself (the line names it).
    It,
    /// An action kind's word: `bonus`.
    Kind(&'a str),
    /// A category's name, which the text writes as its label.
    Category(&'a str),
}

/// The reason a ruleset's limit refuses, and where it names a pool or a category: "actions of
/// maneuver may be used only twice per turn, ...", or with `pool` (its name, and what this use
/// would spend) "at most 3 ap may be spent on bonus actions per turn, ...". A category is said
/// after "actions of", so its label reads in place of its name ("actions of Maneuvers").
pub(super) fn limit_refused(
    subject: Subject<'_>,
    max: i64,
    used: i64,
    per: Period,
    pool: Option<(&str, i64)>,
) -> (String, Named) {
    let mut reason = String::new();
    let mut named = Named::default();
    let plural = !matches!(subject, Subject::It);
    let say_subject = |reason: &mut String, named: &mut Named| match subject {
        Subject::It => reason.push_str("it"),
        Subject::Kind(word) => {
            reason.push_str(word);
            reason.push_str(" actions");
        }
        Subject::Category(name) => {
            reason.push_str("actions of ");
            reason.push_str(name);
            named.push(reason, name, NameKind::Category);
        }
    };
    match pool {
        Some((pool, this)) => {
            reason.push_str(&format!("at most {max} {pool}"));
            named.push(&reason, pool, NameKind::Pool);
            reason.push_str(" may be spent on ");
            say_subject(&mut reason, &mut named);
            let per = period(per);
            reason.push_str(&format!(" per {per}, and {used} already were; this needs {this} more"));
        }
        None => {
            say_subject(&mut reason, &mut named);
            let subject = std::mem::take(&mut reason);
            reason = uses_said(&subject, plural, max, used, per);
        }
    }
    (reason, named)
}

/// "it may be used only twice per turn, and has been used twice": a refusal by a count limit,
/// said as a sentence (the line already names the action; a category or kind names itself).
pub(super) fn uses_refused(subject: &str, max: i64, used: i64, per: Period) -> String {
    uses_said(subject, false, max, used, per)
}

/// The words of a count limit's refusal, `subject` first (its names, if any, stay at the
/// places the subject gave them); `plural` says "have" for "has".
fn uses_said(subject: &str, plural: bool, max: i64, used: i64, per: Period) -> String {
    let per = period(per);
    if max <= 0 {
        return format!("{subject} may not be used this {per}");
    }
    format!(
        "{subject} may be used only {} per {per}, and {} been used {}",
        times(max),
        if plural { "have" } else { "has" },
        times(used)
    )
}

fn times(n: i64) -> String {
    match n {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

pub(super) fn period(p: Period) -> &'static str {
    match p {
        Period::Turn => "turn",
        Period::Round => "round",
        Period::Encounter => "encounter",
        Period::Trigger => "event",
        Period::Phase => "phase",
    }
}
