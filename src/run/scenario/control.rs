//! `--control WHO=POLICY`: a controller given on the command line in place of the scenario's,
//! so a scenario can be asked under several policies without editing it (docs/simulation.md,
//! "Asking under other policies").

use super::{Controller, ParticipantSpec, Policy, Problem, Scenario, Seg, What};
use crate::ir::Ruleset;

/// One `--control`: whom it names (a participant's or a side's name) and the policy they get.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlFlag {
    pub who: String,
    pub policy: Policy,
    /// The policy as written, for the summaries' headers.
    pub written: String,
}

impl ControlFlag {
    /// `WHO=POLICY` as it was given (spaces around the `=` dropped; `WHO` in double quotes when
    /// it holds a `.` or an `=`).
    pub fn text(&self) -> String {
        format!("{}={}", super::quoted::quote_if_needed(&self.who), self.written)
    }
}

/// Reads `WHO=POLICY`: `WHO` a name (in double quotes when it holds an `=`: `"A=B"=Greedy`),
/// `POLICY` written as in a scenario (`Greedy`, `HoldBack(pool: "ap", keep: 1)`). Whether `WHO`
/// names anyone is known only with the scenario (`apply`); whether a `HoldBack` pool exists, only
/// with the ruleset.
pub fn parse_control(text: &str) -> Result<ControlFlag, String> {
    let Some((who, policy)) = super::quoted::split_assignment(text) else {
        return Err(format!("`{text}` is not WHO=POLICY (a participant or side, then a policy: `Brute=Greedy`)"));
    };
    let (who, written) = (who.trim(), policy.trim());
    let who = match super::quoted::quoted(who) {
        Some(Ok((name, ""))) => name,
        Some(Ok(_)) => return Err(format!("`{text}`: after a quoted name comes `=` and the policy")),
        Some(Err(e)) => return Err(e),
        None => who.to_string(),
    };
    let who = who.as_str();
    if who.is_empty() {
        return Err(format!("`{text}` names nobody before the `=` (a participant or side)"));
    }
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let policy: Policy = options.from_str(written).map_err(|e| {
        format!(
            "`{written}` is not a policy ({e}); write it as in a scenario: `Greedy`, `HoldBack(pool: \"ap\", keep: 1)`"
        )
    })?;
    Ok(ControlFlag { who: who.to_string(), policy, written: written.to_string() })
}

/// Gives everyone `c` names the policy alone, in place of their controller (a script is dropped
/// with it): the participant of that name, else every participant of the side of that name.
/// Returns how many it gave it to; a name that is neither is a problem, with the closest name
/// as a suggestion.
pub fn apply(s: &mut Scenario, c: &ControlFlag) -> Result<usize, Problem> {
    each_named(s, &c.who, |p| p.controller = Controller::Policy(c.policy.clone()))
}

/// Calls `give` for the participant named `who`, else for every participant of the side named
/// `who` (as `--control` and `--set` name them); returns how many. A name that is neither is a
/// problem, with the closest participant or side as a suggestion.
pub(super) fn each_named(
    s: &mut Scenario,
    who: &str,
    mut give: impl FnMut(&mut ParticipantSpec),
) -> Result<usize, Problem> {
    let by_name = s.participants.iter().any(|p| p.name == who);
    let mut given = 0;
    for p in &mut s.participants {
        if (by_name && p.name == who) || (!by_name && p.side == who) {
            give(p);
            given += 1;
        }
    }
    if given > 0 {
        return Ok(given);
    }
    let mut candidates: Vec<String> = s.participants.iter().map(|p| p.name.clone()).collect();
    for p in &s.participants {
        if !candidates.contains(&p.side) {
            candidates.push(p.side.clone());
        }
    }
    Err(Problem::new(Vec::new(), What::Unknown { kind: "side or participant", name: who.to_string(), candidates }))
}

/// What is wrong with the policies `controls` give, against a ruleset (a `HoldBack` pool it does
/// not have), each problem said of its `--control`: checked as a scenario's controllers are,
/// so a policy's parameters are checked wherever a scenario's are.
pub fn check(controls: &[ControlFlag], r: &Ruleset) -> Vec<Problem> {
    let participants = controls
        .iter()
        .enumerate()
        .map(|(i, c)| ParticipantSpec {
            // Distinct names, whoever the controls name: only the policies are looked at.
            name: format!("#{i}"),
            side: "s".to_string(),
            player: false,
            stats: Default::default(),
            pools: Default::default(),
            piles: Default::default(),
            conditions: Vec::new(),
            position: 0,
            controller: Controller::Policy(c.policy.clone()),
            actions: None,
        })
        .collect();
    let s = Scenario {
        seed: 0,
        rounds: 1,
        participants,
        surprise: None,
        gm: Policy::Aggressive,
        gm_answers: Default::default(),
        outro: None,
        after: None,
        terrain: Vec::new(),
        objects: Vec::new(),
        seating: Default::default(),
    };
    let Err(problems) = super::resolve(&s, r) else { return Vec::new() };
    problems
        .into_iter()
        .filter_map(|p| {
            let [Seg::Field("participants"), Seg::Index(i), Seg::Field("controller"), ..] = p.at[..] else {
                return None;
            };
            let c = controls.get(i)?;
            Some(Problem { at: Vec::new(), ..p }.of(&format!("--control {}", c.text())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_policy_as_a_scenario_writes_it() {
        let c = parse_control(" Aria = HoldBack(pool: \"ap\", keep: 1)").unwrap();
        assert_eq!(c.who, "Aria");
        assert_eq!(c.policy, Policy::HoldBack { pool: "ap".into(), keep: 1, spend_on_reactions: false });
        assert_eq!(c.text(), "Aria=HoldBack(pool: \"ap\", keep: 1)");
        assert_eq!(parse_control("monsters=Greedy").unwrap().policy, Policy::Greedy);
        let c = parse_control(r#""A=B"=Greedy"#).unwrap();
        assert_eq!((c.who.as_str(), c.text()), ("A=B", r#""A=B"=Greedy"#.to_string()));
        assert_eq!(parse_control(r#" "Sgt. Rock" = Passive"#).unwrap().who, "Sgt. Rock");
        assert_eq!(parse_control("Sgt. Rock=Passive").unwrap().who, "Sgt. Rock");
        assert!(parse_control(r#""A=B"x=Greedy"#).is_err());
    }

    #[test]
    fn says_what_is_wrong() {
        assert!(parse_control("Greedy").unwrap_err().contains("WHO=POLICY"));
        assert!(parse_control("=Greedy").unwrap_err().contains("names nobody"));
        assert!(parse_control("Aria=Greedier").unwrap_err().contains("`Greedier` is not a policy"));
    }
}
