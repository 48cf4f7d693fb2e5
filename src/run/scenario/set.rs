//! `--set NAME=VALUE`: a number of the ruleset or the scenario changed without editing a file,
//! exactly as editing it would (docs/simulation.md, "Changing a number").

use super::problem::{Problem, What};
use super::quoted::quoted;
pub use super::quoted::split_assignment;
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
/// with the ruleset and the scenario (`apply`). A participant or side whose name holds a `.` or
/// an `=` is written in double quotes: `"Sgt. Rock".hp_max=3` (`\"` and `\\` inside).
pub fn parse_set(text: &str) -> Result<SetFlag, String> {
    let Some((name, value)) = split_assignment(text) else {
        return Err(format!("`{text}` is not NAME=VALUE (`hp_max=20`, `Brute.hp_max=20`, `heroes.ap_max=4`)"));
    };
    let (name, value) = (name.trim(), value.trim());
    target_of(name)?;
    let value = value.parse::<i64>().map_err(|_| format!("`{value}` is not a whole number"))?;
    Ok(SetFlag { name: name.to_string(), value })
}

/// What a `--set` name reaches: `(None, STAT)` (a stat's default), or `(Some(WHO), STAT)` for
/// `WHO.STAT` and `"WHO".STAT` (a participant or a side, quoted when its name holds `.` or `=`).
pub fn target_of(name: &str) -> Result<(Option<String>, String), String> {
    let shape = || {
        format!(
            "`{name}` is not a stat (`STAT`, `PARTICIPANT.STAT` or `SIDE.STAT`; a name holding `.` or `=` goes in \
             double quotes: `\"Sgt. Rock\".hp_max`)"
        )
    };
    let stat_only = |stat: &str| !stat.is_empty() && !stat.contains(['.', '=', '"']);
    match quoted(name) {
        Some(Ok((who, rest))) => match rest.strip_prefix('.') {
            Some(stat) if !who.is_empty() && stat_only(stat) => Ok((Some(who), stat.to_string())),
            _ => Err(shape()),
        },
        Some(Err(e)) => Err(e),
        None => match name.split_once('.') {
            Some((who, stat)) if !who.is_empty() && stat_only(stat) && !who.contains(['=', '"']) => {
                Ok((Some(who.to_string()), stat.to_string()))
            }
            None if stat_only(name) => Ok((None, name.to_string())),
            _ => Err(shape()),
        },
    }
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
    let Ok((who, stat)) = target_of(&f.name) else {
        return Err(unknown("stat", &f.name, stat_names()));
    };
    let Some(who) = who else {
        let Some(i) = r.stats.iter().position(|x| x.name == stat) else {
            return Err(unknown("stat", &stat, stat_names()));
        };
        r.stats[i].default = Expr::Int(f.value);
        return Ok(1);
    };
    if !r.stats.iter().any(|x| x.name == stat) {
        return Err(unknown("stat", &stat, stat_names()));
    }
    super::control::each_named(s, &who, |p| {
        p.stats.insert(stat.clone(), f.value);
    })
}

/// What a `PARTICIPANT.STAT` or `SIDE.STAT` name reaches in `s`: the stat, and the names of the
/// participants whose own value of it `apply` would set; `None` for a stat's default (`STAT`) or a
/// name that reaches nobody. A sweep's two ranges must not reach one participant's stat
/// (`Brute.hp_max` and `monsters.hp_max`, Brute on side `monsters`): the later would win at
/// every point, and the rows would be labelled with values they do not play.
pub fn reached(s: &Scenario, name: &str) -> Option<(String, Vec<String>)> {
    let (Some(who), stat) = target_of(name).ok()? else {
        return None;
    };
    let mut names = Vec::new();
    super::control::each_named(&mut s.clone(), &who, |p| names.push(p.name.clone())).ok()?;
    Some((stat, names))
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

    #[test]
    fn a_name_holding_a_dot_or_an_equals_sign_is_quoted() {
        let f = parse_set(r#""Sgt. Rock".hp_max=3"#).unwrap();
        assert_eq!(f.name, r#""Sgt. Rock".hp_max"#);
        assert_eq!(target_of(&f.name), Ok((Some("Sgt. Rock".into()), "hp_max".into())));
        let f = parse_set(r#" "A=B".hp_max = -2"#).unwrap();
        assert_eq!((target_of(&f.name), f.value), (Ok((Some("A=B".into()), "hp_max".into())), -2));
        let f = parse_set(r#""say \"hi\" \\o/".hp=1"#).unwrap();
        assert_eq!(target_of(&f.name), Ok((Some(r#"say "hi" \o/"#.into()), "hp".into())));
        assert_eq!(target_of("Brute.hp_max"), Ok((Some("Brute".into()), "hp_max".into())));
        assert_eq!(target_of("hp_max"), Ok((None, "hp_max".into())));
        assert!(parse_set("Sgt. Rock.hp_max=3").unwrap_err().contains("double quotes"));
        assert!(parse_set(r#""Sgt. Rock.hp_max=3"#).unwrap_err().contains("not closed"));
        assert!(parse_set(r#""".hp=3"#).is_err());
        assert!(parse_set(r#""Rock"=3"#).is_err());
        assert_eq!(super::super::quoted::quote_if_needed("Sgt. Rock"), r#""Sgt. Rock""#);
        assert_eq!(super::super::quoted::quote_if_needed("Brute"), "Brute");
    }
}
