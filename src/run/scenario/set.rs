//! `--set NAME=VALUE`: a number of the ruleset or the scenario changed without editing a file,
//! exactly as editing it would (docs/simulation.md, "Changing a number").

use super::problem::{Problem, What};
use super::Scenario;
use crate::ir::{Expr, Ruleset};

/// One `--set NAME=VALUE`, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFlag {
    /// `STAT` (the ruleset's default), `PARTICIPANT.STAT` or `SIDE.STAT`.
    pub name: String,
    pub value: i64,
}

impl SetFlag {
    /// As given: `NAME=VALUE`.
    pub fn text(&self) -> String {
        format!("{}={}", self.name, self.value)
    }
}

/// Reads `NAME=VALUE` (what clap's value parser calls); whether the name exists is known only
/// with the ruleset and the scenario (`apply`).
pub fn parse_set(text: &str) -> Result<SetFlag, String> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(format!("`{text}` is not NAME=VALUE (`hp_max=20`, `Brute.hp_max=20`, `heroes.ap_max=4`)"));
    };
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || name.split('.').any(str::is_empty) || name.matches('.').count() > 1 {
        return Err(format!("`{name}` is not a stat (`STAT`, `PARTICIPANT.STAT` or `SIDE.STAT`)"));
    }
    let value = value.parse::<i64>().map_err(|_| format!("`{value}` is not a whole number"))?;
    Ok(SetFlag { name: name.to_string(), value })
}

/// Sets what `f` names: a stat's default in the ruleset (`STAT`), or a stat of one participant
/// (`PARTICIPANT.STAT`) or of every participant of a side (`SIDE.STAT`) in the scenario, as a
/// hand edit of the file would. Returns how many values it set; a name that is none of these is
/// a problem, with the closest name as a suggestion.
pub fn apply(s: &mut Scenario, r: &mut Ruleset, f: &SetFlag) -> Result<usize, Problem> {
    let unknown = |kind: &'static str, name: &str, candidates: Vec<String>| {
        Problem::new(Vec::new(), What::Unknown { kind, name: name.to_string(), candidates })
    };
    let stat_names = || r.stats.iter().map(|x| x.name.clone()).collect::<Vec<_>>();
    let Some((who, stat)) = f.name.split_once('.') else {
        let Some(i) = r.stats.iter().position(|x| x.name == f.name) else {
            return Err(unknown("stat", &f.name, stat_names()));
        };
        r.stats[i].default = Expr::Int(f.value);
        return Ok(1);
    };
    if !r.stats.iter().any(|x| x.name == stat) {
        return Err(unknown("stat", stat, stat_names()));
    }
    super::control::each_named(s, who, |p| {
        p.stats.insert(stat.to_string(), f.value);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_is_read_as_name_and_whole_number() {
        assert_eq!(parse_set("Brute.hp_max=20"), Ok(SetFlag { name: "Brute.hp_max".into(), value: 20 }));
        assert_eq!(parse_set("ap_max = -1"), Ok(SetFlag { name: "ap_max".into(), value: -1 }));
        assert!(parse_set("hp_max").is_err());
        assert!(parse_set("hp_max=2.5").unwrap_err().contains("whole number"));
        assert!(parse_set("a.b.c=1").is_err());
        assert!(parse_set(".hp=1").is_err());
    }
}
