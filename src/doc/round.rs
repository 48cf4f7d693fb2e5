//! The round on the sheet: its phases and timing points in the order they come, each with the
//! names of what happens there (pools, conditions, hooks), so a table can follow a round.

use super::{block, code, text, Bullet, Line, Piece, Texts};
use crate::syntax::ast::*;

/// The steps of a turn's start and end without a `sequence` (docs/language.md, sequence).
const TURN_START: [&str; 6] = ["pools", "negative", "maintain", "expire", "positive", "hooks"];
const TURN_END: [&str; 6] = ["negative", "positive", "hooks", "maintain", "pools", "expire"];

/// Where a timing comes in an encounter; phases keep the order they are written in.
fn rank(timing: &str) -> u8 {
    match timing.split('(').next().unwrap_or("") {
        "encounter_start" => 0,
        "round_start" => 1,
        "phase_start" => 2,
        "turn_start" => 3,
        "turn_end" => 4,
        "phase_end" => 5,
        "round_end" => 6,
        "encounter_end" => 7,
        _ => 8,
    }
}

/// Steps grouped under their timing, timings in the order they come, steps in the order given.
pub(super) fn by_timing<T>(steps: Vec<(String, T)>) -> Vec<(String, Vec<T>)> {
    let mut groups: Vec<(String, Vec<T>)> = Vec::new();
    for (timing, step) in steps {
        match groups.iter_mut().find(|(t, _)| *t == timing) {
            Some((_, list)) => list.push(step),
            None => groups.push((timing, vec![step])),
        }
    }
    groups.sort_by_key(|(t, _)| rank(t));
    groups
}

/// What happens at one timing: (turn sequence step, name), in declaration order.
struct Happening {
    timing: String,
    step: &'static str,
    name: String,
    /// A condition's effects (the `hooks` step holds those of conditions without a polarity).
    condition: bool,
}

fn happenings(texts: &Texts, items: &[&Item]) -> Vec<Happening> {
    let mut out = Vec::new();
    let mut answers = Vec::new();
    let mut add = |timing: &Timing, step: &'static str, name: &str, condition: bool| {
        let timing = texts.text(timing.span);
        if !out.iter().any(|h: &Happening| h.timing == timing && h.step == step && h.name == name) {
            out.push(Happening { timing, step, name: name.to_string(), condition });
        }
    };
    for item in items {
        match &item.decl {
            Decl::Pool(pool) => {
                for clause in &pool.clauses {
                    match clause {
                        PoolClause::Refresh { at, .. }
                        | PoolClause::Keep { at, .. }
                        | PoolClause::Lose { at, .. }
                        | PoolClause::Decay { at, .. }
                        | PoolClause::Convert { at, .. }
                        | PoolClause::Gain { when: GainWhen::At(at), .. } => add(at, "pools", &pool.name.name, false),
                        _ => {}
                    }
                }
            }
            Decl::Condition(condition) => {
                let polarity = condition.clauses.iter().find_map(|c| match c {
                    ConditionClause::Polarity { positive, .. } => Some(*positive),
                    _ => None,
                });
                let effects = match polarity {
                    Some(true) => "positive",
                    Some(false) => "negative",
                    None => "hooks",
                };
                for clause in &condition.clauses {
                    match clause {
                        ConditionClause::Hook { at, .. } => add(at, effects, &condition.name.name, true),
                        ConditionClause::Maintain { at, .. } => add(at, "maintain", &condition.name.name, true),
                        ConditionClause::Lasts(Duration::Until(at), _) => add(at, "expire", &condition.name.name, true),
                        _ => {}
                    }
                }
            }
            Decl::Hook(hook) => {
                let name = hook.name.as_ref().map_or("an unnamed hook", |n| n.name.as_str());
                add(&hook.at, "hooks", name, false);
            }
            Decl::Action(Action { name, clauses, .. }) | Decl::Trigger(Action { name, clauses, .. }) => {
                // `on turn_end by enemy`: answered after the timing's own work.
                for clause in clauses {
                    let ActionClause::On(on) = clause else { continue };
                    if !crate::check::TIMINGS.contains(&on.event.name.as_str()) || declared(items, &on.event.name) {
                        continue;
                    }
                    let timing = match &on.phase {
                        Some(phase) => format!("{}({})", on.event.name, phase.name),
                        None => on.event.name.to_string(),
                    };
                    answers.push(Happening { timing, step: "answers", name: name.name.to_string(), condition: false });
                }
            }
            _ => {}
        }
    }
    out.extend(answers);
    out
}

/// Whether an event, category or action of the ruleset is named `name` (and so read first by
/// an `on`, before a timing of that name).
fn declared(items: &[&Item], name: &str) -> bool {
    items.iter().any(|i| match &i.decl {
        Decl::Event { name: n, .. } | Decl::Category { name: n, .. } => n.name == name,
        Decl::Action(a) => a.name.name == name,
        _ => false,
    })
}

fn step_words(step: &str) -> &'static str {
    match step {
        "pools" => "pools",
        "negative" => "negative conditions",
        "maintain" => "upkeep",
        "expire" => "conditions end",
        "positive" => "positive conditions",
        "answers" => "then answered by",
        _ => "hooks",
    }
}

/// `` `timing`: pools `ap`, `mp`; hooks `wake` `` for the happenings at `timing`, steps in the
/// order given; `None` when nothing happens then and `always` is false.
fn at(timing: &str, order: &[&str], happenings: &[Happening], lead: Line, always: bool) -> Option<Line> {
    let mut line = vec![code(timing)];
    line.extend(lead);
    let mut any = false;
    for step in order {
        let here: Vec<&Happening> = happenings.iter().filter(|h| h.timing == timing && h.step == *step).collect();
        let names: Vec<&str> = here.iter().map(|h| h.name.as_str()).collect();
        if names.is_empty() {
            continue;
        }
        line.push(text(if any { "; " } else { ": " }));
        any = true;
        let words = match *step {
            "hooks" if here.iter().any(|h| h.condition) => "hooks and conditions",
            step => step_words(step),
        };
        line.push(text(format!("{words} ")));
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                line.push(text(", "));
            }
            line.push(code(*name));
        }
    }
    (any || always).then_some(line)
}

/// `initiative { order drawn }`: no order is made; each turn is drawn as it comes up.
fn is_drawn(items: &[&Item]) -> bool {
    items.iter().any(|i| match &i.decl {
        Decl::Initiative(clauses) => {
            clauses.iter().any(|c| matches!(c, InitiativeClause::Order(word, _) if word.name == "drawn"))
        }
        _ => false,
    })
}

/// The round as a nested list: the encounter's start, each round's timing points and phases (with
/// their turns), the encounter's end.
pub(super) fn timeline(texts: &Texts, items: &[&Item]) -> Vec<Bullet> {
    let Some(phases) = items.iter().find_map(|i| match &i.decl {
        Decl::Round(phases) => Some(phases),
        _ => None,
    }) else {
        return Vec::new();
    };
    let happenings = happenings(texts, items);
    let any_step = ["pools", "negative", "maintain", "expire", "positive", "hooks", "answers"];
    let made = items
        .iter()
        .find_map(|i| match &i.decl {
            Decl::Initiative(clauses) => clauses.iter().find_map(|c| match c {
                InitiativeClause::Made(t, _) => Some(texts.text(t.span)),
                _ => None,
            }),
            _ => None,
        })
        .unwrap_or_else(|| "encounter_start".to_string());
    let drawn = is_drawn(items);
    let made_here = |timing: &str| -> Line {
        if made == timing && !drawn {
            vec![text(" (initiative is made)")]
        } else {
            Vec::new()
        }
    };
    let sequence = |timing: &str, default: [&'static str; 6]| -> Vec<&'static str> {
        items
            .iter()
            .find_map(|i| match &i.decl {
                Decl::Sequence { timing: t, steps } if t.name == timing => {
                    Some(steps.iter().filter_map(|s| any_step.iter().find(|a| **a == s.name).copied()).collect())
                }
                _ => None,
            })
            .unwrap_or_else(|| default.to_vec())
            .into_iter()
            .chain(["answers"])
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    let mut push = |depth: usize, line: Option<Line>| {
        if let Some(line) = line {
            out.push(Bullet { depth, line });
        }
    };
    push(0, at("encounter_start", &any_step, &happenings, made_here("encounter_start"), true));
    push(0, Some(vec![text("each round:")]));
    push(1, at("round_start", &any_step, &happenings, made_here("round_start"), true));
    for phase in phases {
        let mut line = vec![text("phase "), Piece::Strong(phase.name.name.to_string())];
        if let Some(guard) = &phase.guard {
            line.extend([text(if guard.negated { " unless " } else { " if " }), code(texts.text(guard.cond.span))]);
        }
        match &phase.kind {
            PhaseKind::Turns => {
                line.push(text(if drawn {
                    ": each participant takes a turn, each turn drawn at random from those still to have one"
                } else {
                    ": each participant takes a turn, in initiative order"
                }));
                if let Some(takes) = &phase.takes {
                    line.extend([text(", if "), code(texts.text(takes.span))]);
                }
            }
            PhaseKind::Simultaneous(kinds) if phase.hidden.is_some() => {
                match phase.picks.as_ref().map(|(n, _)| n.as_str()).filter(|n| *n != "1") {
                    Some(n) => {
                        let (most, must) = if phase.must.is_some() { ("", " (each must pick while a pick is offered)") } else { ("up to ", "") };
                        line.push(text(format!(": everyone chooses {most}{n} in secret, each knowing their own earlier picks{must}; all are revealed together, then all resolve in initiative order")));
                    }
                    None => line.push(text(": everyone chooses in secret, the choices are revealed together, then all resolve in initiative order")),
                }
                if !kinds.is_empty() {
                    let words: Vec<&str> = kinds.iter().map(|k| k.word()).collect();
                    line.push(text(format!(" ({} only)", words.join(", "))));
                }
            }
            PhaseKind::Simultaneous(kinds) => {
                line.push(text(": everyone declares, then all resolve in initiative order"));
                if !kinds.is_empty() {
                    let words: Vec<&str> = kinds.iter().map(|k| k.word()).collect();
                    line.push(text(format!(" ({} only)", words.join(", "))));
                }
            }
            PhaseKind::Step(block) if block.stmts.is_empty() => line.push(text(": a step with no effects of its own")),
            PhaseKind::Step(block) => {
                line.push(text(": for each participant in initiative order: "));
                line.extend(block::summary(texts, block));
            }
        }
        if let Some(again) = &phase.again {
            line.extend([text("; played again while "), code(texts.text(again.span)), text(" holds for anyone")]);
        }
        push(1, Some(line));
        let name = &phase.name.name;
        let start = format!("phase_start({name})");
        let lead = made_here(&start);
        let shown = !lead.is_empty();
        push(2, at(&start, &any_step, &happenings, lead, shown));
        if phase.kind == PhaseKind::Turns {
            for (timing, default) in [("turn_start", TURN_START), ("turn_end", TURN_END)] {
                let order = sequence(timing, default);
                let mut line = at(timing, &order, &happenings, Vec::new(), true).unwrap_or_default();
                if line.contains(&text("; ")) {
                    line.insert(1, text(", in this order"));
                }
                push(2, Some(line));
            }
        }
        push(2, at(&format!("phase_end({name})"), &any_step, &happenings, Vec::new(), false));
    }
    push(1, at("round_end", &any_step, &happenings, made_here("round_end"), true));
    push(0, at("encounter_end", &any_step, &happenings, Vec::new(), true));
    out
}
