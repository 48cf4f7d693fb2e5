//! The words of a refusal by a limit: "it may be used only twice per turn, and has been used
//! twice".

use crate::ir::Period;

/// "it may be used only twice per turn, and has been used twice": a refusal by a count limit,
/// said as a sentence (the line already names the action; a category or kind names itself).
pub(super) fn uses_refused(subject: &str, max: i64, used: i64, per: Period) -> String {
    let per = period(per);
    if max <= 0 {
        return format!("{subject} may not be used this {per}");
    }
    format!(
        "{subject} may be used only {} per {per}, and {} been used {}",
        times(max),
        if subject.ends_with(" actions") { "have" } else { "has" },
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
