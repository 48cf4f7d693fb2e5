//! The words of the trace's text lines that take more than a line to say: a pool's or named
//! roll's faces, a policy's decision, the final state, the items, causes and reveals.

use super::{
    Cause, Considered, Dice, FinalObject, FinalState, Labels, Name, PoolRoll, Revealed, SidePools, TablePiles,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// `Wren rolls 12d6 [6 5 1 ...], counting >= 5: 5`, or a named roll with every count made on it.
pub(super) fn pool_roll_text(who: &Name, dice: &Dice, result: i64, pool: &PoolRoll, l: &Labels) -> String {
    match &pool.name {
        None => format!("  {who} rolls {dice} [{}], counting {}: {result}", pool.faces_text(), pool.counting),
        Some(name) => {
            let thrown = match &pool.thrown {
                Some(thrown) => thrown_text(thrown, l),
                None => dice.to_string(),
            };
            let counts: Vec<String> = pool
                .counts
                .iter()
                .map(|c| match c.counting.starts_with(['<', '>', '=', '!']) {
                    true => format!("{} at {}", c.count, c.counting),
                    false => format!("{} {}", c.count, c.counting),
                })
                .collect();
            let counts = if counts.is_empty() { String::new() } else { format!(": {}", counts.join(", ")) };
            format!("  {who} rolls {thrown} for {name} [{}]{counts}", pool.faces_text())
        }
    }
}

/// What a named roll threw, its dice with custom faces by their labels: `2 Ability + 1d6` for
/// `2 ability + 1d6` (each part is `N NAME` or `NdM`, as the runner writes it).
fn thrown_text(thrown: &str, l: &Labels) -> String {
    let parts: Vec<String> = thrown
        .split(" + ")
        .map(|part| match part.split_once(' ') {
            Some((n, die)) => format!("{n} {}", l.die(die)),
            None => part.to_string(),
        })
        .collect();
    parts.join(" + ")
}

/// `A (Greedy) considers ...; takes ...`.
pub(super) fn decision_text(
    who: &Name,
    policy: &str,
    considered: &[Considered],
    chosen: &Option<Considered>,
    (reaction, pass, question): (bool, Option<super::Pass>, Option<&Name>),
    l: &Labels,
) -> String {
    // A choice's options are named as written, not as the actions a label might rename.
    let plain = Labels::default();
    let l = if question.is_some() { &plain } else { l };
    // A lone option is taken unvalued (its score and playouts 0): nothing was weighed.
    let lone = considered.len() + usize::from(pass.is_some()) == 1;
    let mut options: Vec<String> = considered
        .iter()
        .map(|c| match (lone, c.playouts) {
            (true, Some(0)) => format!("{} (its only option)", Considered { score: None, ..c.clone() }.text(l)),
            _ => c.text(l),
        })
        .collect();
    if let Some(p) = pass {
        let what = if reaction { "no reaction" } else { "the end of its turn" };
        match (p.playouts, lone) {
            (0, true) => options.push(format!("{what} (its only option)")),
            (0, false) => options.push(format!("{what} ({} exactly)", p.score)),
            (n, _) => options.push(format!("{what} ({} over {n} playouts)", p.score)),
        }
    }
    let options = if options.is_empty() { "nothing it can do".to_string() } else { options.join(", ") };
    let chosen = match (chosen, reaction) {
        (Some(c), _) => Considered { score: None, playouts: None, ..c.clone() }.text(l),
        (None, false) => "the end of its turn".to_string(),
        (None, true) => "no reaction".to_string(),
    };
    let what = match question {
        Some(q) => format!(" for {q}:"),
        None if reaction => " as a reaction".to_string(),
        None => String::new(),
    };
    format!("  {who} ({policy}) considers{what} {options}; takes {chosen}.")
}

/// The piles that hold something, `deck: ace, king; hand: queen`, by label as the pools are;
/// an empty pile is left out (JSON lists it, as `[]`).
fn piles_text(piles: &BTreeMap<Name, Vec<Name>>, l: &Labels) -> String {
    let mut piles: Vec<(&str, &[Name])> = piles
        .iter()
        .filter(|(_, items)| !items.is_empty())
        .map(|(pile, items)| (l.pile(pile), items.as_slice()))
        .collect();
    piles.sort_by(|a, b| a.0.cmp(b.0));
    let piles: Vec<String> = piles
        .iter()
        .map(|(pile, items)| {
            let items: Vec<&str> = items.iter().map(|i| &**i).collect();
            format!("{pile}: {}", items.join(", "))
        })
        .collect();
    piles.join("; ")
}

/// `Encounter ends: ...` (after downtime: `Downtime ends.`), then each participant's pools and conditions (and under them what
/// their piles hold), and the objects.
pub(super) fn encounter_end_text(
    reason: &str,
    state: &BTreeMap<Name, FinalState>,
    (sides, table): (&SidePools, &TablePiles),
    objects: &[FinalObject],
    l: &Labels,
) -> String {
    let mut s = if reason == super::AFTER_DOWNTIME {
        "\nDowntime ends.".to_string()
    } else {
        format!("\nEncounter ends: {reason}.")
    };
    let none = BTreeMap::new();
    // Each side with pools or piles kept `per side`: its pools, and its piles under them.
    let named: std::collections::BTreeSet<&Name> = sides.keys().chain(table.sides.keys()).collect();
    for side in named {
        let mut pools: Vec<(&str, i64)> =
            sides.get(side).unwrap_or(&none).iter().map(|(p, v)| (l.pool(p), *v)).collect();
        pools.sort_by(|a, b| a.0.cmp(b.0));
        let pools: Vec<String> = pools.iter().map(|(p, v)| format!("{p} {v}")).collect();
        let piles = table.sides.get(side).map(|p| piles_text(p, l)).unwrap_or_default();
        match (pools.is_empty(), piles.is_empty()) {
            (true, true) => {}
            (true, false) => _ = write!(s, "\n  side {side}: {piles}"),
            (false, true) => _ = write!(s, "\n  side {side}: {}", pools.join(", ")),
            (false, false) => _ = write!(s, "\n  side {side}: {}\n    {piles}", pools.join(", ")),
        }
    }
    // The piles kept `shared`, once, as the table's.
    let shared = piles_text(&table.shared, l);
    if !shared.is_empty() {
        let _ = write!(s, "\n  table: {shared}");
    }
    for (name, st) in state {
        // In the order of what is printed, as JSON lists them by name: a ruleset's labels
        // need not sort as its names do.
        let mut pools: Vec<(&str, i64)> = st.pools.iter().map(|(p, v)| (l.pool(p), *v)).collect();
        pools.sort_by(|a, b| a.0.cmp(b.0));
        let pools: Vec<String> = pools.iter().map(|(p, v)| format!("{p} {v}")).collect();
        let _ = write!(s, "\n  {name}: {}", pools.join(", "));
        if !st.conditions.is_empty() {
            let conditions: Vec<String> = st
                .conditions
                .iter()
                .map(|c| match st.magnitudes.get(c) {
                    Some(m) => format!("{} {m}", l.condition(c)),
                    None => l.condition(c).to_string(),
                })
                .collect();
            let _ = write!(s, "; {}", conditions.join(", "));
        }
        // The piles that hold something, on a line of their own under their holder's.
        let piles = piles_text(&st.piles, l);
        if !piles.is_empty() {
            let _ = write!(s, "\n    {piles}");
        }
    }
    if !objects.is_empty() {
        let each: Vec<String> = objects
            .iter()
            .map(|o| match o.at {
                Some(at) => format!("{} lies at {at}", o.object),
                None => format!("{} held by {}", o.object, o.held_by.join(" and ")),
            })
            .collect();
        let _ = write!(s, "\n  Objects: {}.", each.join("; "));
    }
    s
}

/// `dash, strike and strike`, or `nothing`.
pub(super) fn item_list(items: &[Name]) -> String {
    match items {
        [] => "nothing".to_string(),
        [one] => one.to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(|n| &**n).collect();
            format!("{} and {last}", rest.join(", "))
        }
    }
}

/// A cause with labels: `Attack by Aria`, `Hit Points <= 0`.
pub(super) fn cause_text(c: &Cause, l: &Labels) -> String {
    match c {
        Cause::Action { action, by } => format!("{} by {by}", l.action(action)),
        Cause::Partner { action, with } => format!("{} with {with}", l.action(action)),
        Cause::Continued(action) => format!("{} (continued)", l.action(action)),
        Cause::Threshold { pool, op, value } => format!("{} {op} {value}", l.pool(pool)),
        Cause::Gain(source) => format!("gain on {}", l.source(source)),
        Cause::Maintain(name) => format!("maintain {}", l.condition(name)),
        other => other.to_string(),
    }
}

/// "Revealed: Ash plays dash at Kell, then guard; Kell plays guard; Mo plays nothing."
pub(super) fn revealed_text(choices: &[Revealed], l: &Labels) -> String {
    let mut s = String::from("Revealed:");
    for (i, c) in choices.iter().enumerate() {
        // A participant's later picks (`picks N`) follow its first: "A plays x, then y".
        let again = i > 0 && choices[i - 1].who == c.who && c.choice.is_some();
        if again {
            s.push_str(", then ");
        } else {
            s.push_str(if i == 0 { " " } else { "; " });
            let _ = write!(s, "{} plays ", c.who);
        }
        let _ = match (&c.choice, &c.target) {
            (None, _) => write!(s, "nothing"),
            (Some(a), None) => write!(s, "{}", l.action(a)),
            (Some(a), Some(t)) => write!(s, "{} at {t}", l.action(a)),
        };
    }
    if choices.is_empty() {
        s.push_str(" nobody chose");
    }
    s.push('.');
    s
}
