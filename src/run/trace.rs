//! The trace: what happened, in order (contracts.md, "Traces"). One event per line as JSON, or a
//! play-by-play for people. Names, not ids: the trace is for people and scripts.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub seq: u64,
    pub round: Option<u32>,
    #[serde(flatten)]
    pub event: Event,
}

/// Every participant's pools and conditions, for `encounter_end`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalState {
    pub pools: BTreeMap<String, i64>,
    pub conditions: Vec<String>,
}

/// An entry of `initiative.order`: one name, or a group acting together.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OrderEntry {
    One(String),
    Together(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    EncounterStart {
        participants: Vec<String>,
    },
    Initiative {
        order: Vec<OrderEntry>,
        values: BTreeMap<String, i64>,
    },
    RoundStart {},
    RoundEnd {},
    PhaseStart {
        phase: String,
    },
    PhaseEnd {
        phase: String,
    },
    TurnStart {
        actor: String,
    },
    TurnEnd {
        actor: String,
    },
    Pool {
        who: String,
        pool: String,
        from: i64,
        to: i64,
        cause: String,
    },
    Roll {
        who: String,
        dice: String,
        result: i64,
    },
    Action {
        actor: String,
        action: String,
        kind: String,
        targets: Vec<String>,
        paid: BTreeMap<String, i64>,
    },
    Rejected {
        actor: String,
        action: String,
        code: String,
        reason: String,
    },
    Trigger {
        source: String,
        reactor: String,
        reaction: String,
    },
    Condition {
        who: String,
        condition: String,
        on: bool,
    },
    Choice {
        who: String,
        question: String,
        answer: String,
    },
    Check {
        who: String,
        roll: i64,
        against: i64,
        outcome: String,
    },
    Downtime {
        hour: u32,
    },
    /// A participant leaves the encounter.
    Leave {
        who: String,
    },
    /// A multi-round action ends: resolved, or lost because a payment could not be made.
    Ongoing {
        actor: String,
        action: String,
        outcome: String,
    },
    EncounterEnd {
        reason: String,
        state: BTreeMap<String, FinalState>,
    },
}

/// The whole trace as JSON lines.
pub fn to_jsonl(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        // Plain data of strings and integers: serializing cannot fail.
        if let Ok(line) = serde_json::to_string(r) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The trace as a play-by-play for a person.
pub fn to_text(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        let line = match &r.event {
            Event::EncounterStart { participants } => format!("Encounter starts: {}.", participants.join(", ")),
            Event::Initiative { order, values } => {
                let names: Vec<String> = order
                    .iter()
                    .map(|e| match e {
                        OrderEntry::One(n) => format!("{n} ({})", values.get(n).copied().unwrap_or(0)),
                        OrderEntry::Together(g) => format!(
                            "[{}] together",
                            g.iter()
                                .map(|n| format!("{n} ({})", values.get(n).copied().unwrap_or(0)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    })
                    .collect();
                format!("Initiative: {}.", names.join(", then "))
            }
            Event::RoundStart {} => format!("\n== Round {} ==", r.round.unwrap_or(0)),
            Event::RoundEnd {} => format!("-- end of round {}", r.round.unwrap_or(0)),
            Event::PhaseStart { phase } => format!("- {phase} phase"),
            Event::PhaseEnd { phase } => format!("- end of {phase} phase"),
            Event::TurnStart { actor } => format!("{actor}'s turn."),
            Event::TurnEnd { actor } => format!("{actor}'s turn ends."),
            Event::Pool { who, pool, from, to, cause } => format!("  {who}: {pool} {from} -> {to} ({cause})"),
            Event::Roll { who, dice, result } => format!("  {who} rolls {dice}: {result}"),
            Event::Action { actor, action, kind, targets, paid } => {
                let at = if targets.is_empty() { String::new() } else { format!(" at {}", targets.join(", ")) };
                let cost: Vec<String> = paid.iter().map(|(p, n)| format!("{n} {p}")).collect();
                let cost = if cost.is_empty() { "free".to_string() } else { cost.join(" + ") };
                format!("  {actor} uses {action} ({kind}){at}, paying {cost}.")
            }
            Event::Rejected { actor, action, reason, code } => {
                format!("  {actor} cannot use {action}: {reason} [{code}]")
            }
            Event::Trigger { source, reactor, reaction } => format!("  {reactor} answers {source} with {reaction}."),
            Event::Condition { who, condition, on } => {
                if *on {
                    format!("  {who} is now {condition}.")
                } else {
                    format!("  {who} is no longer {condition}.")
                }
            }
            Event::Choice { who, question, answer } => format!("  {who} chooses {answer} ({question})."),
            Event::Check { who, roll, against, outcome } => format!("  {who}'s check: {roll} vs {against}, {outcome}."),
            Event::Downtime { hour } => format!("Downtime, hour {hour}."),
            Event::Leave { who } => format!("  {who} leaves the encounter."),
            Event::Ongoing { actor, action, outcome } => format!("  {actor}'s {action} is {outcome}."),
            Event::EncounterEnd { reason, state } => {
                let mut s = format!("\nEncounter ends: {reason}.");
                for (name, st) in state {
                    let pools: Vec<String> = st.pools.iter().map(|(p, v)| format!("{p} {v}")).collect();
                    let _ = write!(s, "\n  {name}: {}", pools.join(", "));
                    if !st.conditions.is_empty() {
                        let _ = write!(s, "; {}", st.conditions.join(", "));
                    }
                }
                s
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}
