//! A solution as a person reads it, and as JSON (../shared/design/contracts.md: `tempo solve
//! --format json`).

use super::{Decision, Solution};
use num_rational::BigRational;
use num_traits::ToPrimitive;
use serde_json::{json, Value};

/// Digits a fraction is shown with in text before only its decimal is: a longer one says
/// nothing a reader can use.
const FRACTION_SHOWN_UP_TO: usize = 24;

/// How many decisions of the plan text shows.
const PLAN_SHOWN: usize = 12;

/// `P/Q`, in lowest terms (`1/1` for a certainty).
fn fraction(p: &BigRational) -> String {
    format!("{}/{}", p.numer(), p.denom())
}

fn decimal(p: &BigRational) -> f64 {
    p.to_f64().unwrap_or(f64::NAN)
}

/// A probability in text: six decimals, and the fraction when it is short.
fn shown(p: &BigRational) -> String {
    let f = fraction(p);
    if f.len() <= FRACTION_SHOWN_UP_TO {
        format!("{:.6} ({f})", decimal(p))
    } else {
        format!("{:.6}", decimal(p))
    }
}

/// What is solved for, in words: `None` is the scenario's controllers.
pub struct Heading<'a> {
    pub rules: &'a str,
    pub scenario: &'a str,
    pub for_who: Option<&'a str>,
    /// The outcome the solved side maximises.
    pub maximised: Option<&'a str>,
}

/// The solution as text.
pub fn text(h: &Heading<'_>, s: &Solution) -> String {
    let mut out = format!("{}, {}: exact, ", h.rules, h.scenario);
    match (h.for_who, h.maximised) {
        (Some(who), Some(goal)) => {
            out.push_str(&format!("{who} playing to maximise `{goal}`, everyone else by their controllers"));
        }
        _ => out.push_str("everyone playing by their controllers"),
    }
    out.push_str(&format!(
        " ({} positions explored, {} distinct states between rounds).\n\nOutcome:\n",
        s.states, s.merged
    ));
    let width = s.outcomes.iter().map(|(n, _)| n.len()).max().unwrap_or(7).max(7);
    out.push_str(&format!("  {:width$} probability\n", "outcome"));
    for (name, p) in &s.outcomes {
        out.push_str(&format!("  {name:width$} {}\n", shown(p)));
    }
    out.push_str(&format!("\nRounds: {:.6} expected.\n", decimal(&s.rounds)));
    if let (Some(v), Some(goal)) = (&s.value, h.maximised) {
        out.push_str(&format!("Optimal play: `{goal}` {}.\n", shown(v)));
    }
    if !s.plan.is_empty() {
        out.push_str("\nPlan: the first decisions optimal play meets, each option with its chance of the outcome\nmaximised (* the one taken):\n");
        for d in s.plan.iter().take(PLAN_SHOWN) {
            plan_text(&mut out, d);
        }
        if s.plan.len() > PLAN_SHOWN {
            out.push_str(&format!("  ... {} more (`--format json` lists every one)\n", s.plan.len() - PLAN_SHOWN));
        }
    }
    out
}

fn plan_text(out: &mut String, d: &Decision) {
    let when = if d.round == 0 { "Before round 1".to_string() } else { format!("Round {}", d.round) };
    let after = if d.after.is_empty() { String::new() } else { format!(", after {}", d.after.join("; ")) };
    out.push_str(&format!("  {when}, {}{after}:\n", d.who));
    let width = d.options.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (i, (name, v)) in d.options.iter().enumerate() {
        let mark = if i == d.best { '*' } else { ' ' };
        out.push_str(&format!("    {mark} {name:width$} {}\n", shown(v)));
    }
}

fn probability(p: &BigRational) -> Value {
    json!({"fraction": fraction(p), "value": decimal(p)})
}

/// The solution as one JSON document.
pub fn json(h: &Heading<'_>, s: &Solution, with_plan: bool) -> Value {
    let outcomes: Vec<Value> =
        s.outcomes.iter().map(|(name, p)| json!({"outcome": name, "probability": probability(p)})).collect();
    let mut doc = json!({
        "scenario": h.scenario,
        "for": h.for_who,
        "outcomes": outcomes,
        "rounds": {"expected": decimal(&s.rounds), "fraction": fraction(&s.rounds)},
        "states": s.states,
        "merged": s.merged,
    });
    if let (Some(v), Some(goal), Some(map)) = (&s.value, h.maximised, doc.as_object_mut()) {
        map.insert("maximised".into(), json!({"outcome": goal, "probability": probability(v)}));
    }
    if let (true, Some(map)) = (with_plan, doc.as_object_mut()) {
        let plan: Vec<Value> = s
            .plan
            .iter()
            .map(|d| {
                let options: Vec<Value> =
                    d.options.iter().map(|(name, v)| json!({"option": name, "value": probability(v)})).collect();
                json!({"who": d.who, "round": d.round, "after": d.after, "options": options, "best": d.best})
            })
            .collect();
        map.insert("plan".into(), Value::Array(plan));
    }
    doc
}
