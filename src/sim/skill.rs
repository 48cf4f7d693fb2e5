//! Skill sensitivity: one scenario played with each side under each of a list of policies, every
//! combination on the same seeds, as a matrix of outcome shares; and, where every side asked
//! plays the last (strongest) policy it lists, which actions and reactions were affordable at a
//! decision but never taken (dead) or taken every time they were affordable (dominant)
//! (docs/simulation.md, "Skill sensitivity").

use super::layout::Layout;
use super::stats;
use super::summary;
pub use super::summary::{Cell, OptionRow, Skill};
use super::totals::Totals;
use super::Batch;
use crate::ir::Ruleset;
use crate::run::scenario::{self, ControlFlag, Scenario};
use crate::run::RunError;
use std::fmt::Write as _;

/// One side of the matrix: its name and the policies it is played under, weakest first (the
/// last is taken as the strongest); each flag names the side.
#[derive(Debug, Clone, PartialEq)]
pub struct Seat {
    pub side: String,
    pub policies: Vec<ControlFlag>,
}

/// One `--skill`: a side (`None`: every side) and its policies.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillFlag {
    pub side: Option<String>,
    pub policies: Vec<ControlFlag>,
}

/// Reads `SIDE=POLICY,POLICY,...` or `POLICY,POLICY,...` (every side), each policy written as
/// in a scenario; commas inside a policy's parentheses or quotes do not split it.
pub fn parse_skill(text: &str) -> Result<SkillFlag, String> {
    let (side, list) = match (text.find('='), text.find(['(', '"'])) {
        (Some(eq), open) if open.is_none_or(|o| eq < o) => (Some(text[..eq].trim()), &text[eq + 1..]),
        _ => (None, text),
    };
    if side == Some("") {
        return Err(format!("`{text}` names no side before the `=`"));
    }
    let mut policies = Vec::new();
    for written in split_top(list) {
        let written = written.trim();
        if written.is_empty() {
            return Err(format!("`{text}` has an empty policy in its list (`Aggressive,Greedy,Search`)"));
        }
        let mut flag = scenario::parse_control(&format!("{}={written}", side.unwrap_or("every side")))?;
        flag.who = side.unwrap_or_default().to_string();
        policies.push(flag);
    }
    Ok(SkillFlag { side: side.map(str::to_string), policies })
}

/// `text` split at the commas outside parentheses, brackets and quotes.
fn split_top(text: &str) -> Vec<&str> {
    let (mut depth, mut quoted, mut from) = (0i32, false, 0);
    let mut out = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' | '{' if !quoted => depth += 1,
            ')' | ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(&text[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[from..]);
    out
}

/// The seats `--skill` flags ask for in a scenario whose sides are `sides` (in scenario order):
/// one flag without a side gives every side its list (at most two sides); otherwise one or two
/// flags naming distinct sides, rows first.
pub fn seats(flags: &[SkillFlag], sides: &[String]) -> Result<Vec<Seat>, String> {
    if let [SkillFlag { side: None, policies }] = flags {
        if sides.len() > 2 {
            return Err(format!(
                "the scenario has {} sides: name the one or two to vary, `--skill {}=...`",
                sides.len(),
                sides[0]
            ));
        }
        return Ok(sides
            .iter()
            .map(|side| Seat {
                side: side.clone(),
                policies: policies.iter().map(|p| ControlFlag { who: side.clone(), ..p.clone() }).collect(),
            })
            .collect());
    }
    if flags.len() > 2 {
        return Err("--skill varies at most two sides (the matrix's rows and columns)".into());
    }
    let mut out: Vec<Seat> = Vec::new();
    for f in flags {
        let Some(side) = &f.side else {
            return Err("a --skill without a side gives every side its list: give it alone".into());
        };
        if !sides.contains(side) {
            return Err(format!(
                "--skill {side}=...: the scenario has no side `{side}` (its sides: {})",
                sides.join(", ")
            ));
        }
        if out.iter().any(|s| &s.side == side) {
            return Err(format!("--skill names the side `{side}` twice"));
        }
        out.push(Seat { side: side.clone(), policies: f.policies.clone() });
    }
    Ok(out)
}

/// The scenario with the cell's policies given (after any `--control`).
fn cell_scenario(s: &Scenario, seats: &[Seat], picks: &[usize]) -> Result<Scenario, RunError> {
    let mut cell = s.clone();
    for (seat, &k) in seats.iter().zip(picks) {
        if let Some(flag) = seat.policies.get(k) {
            scenario::apply_control(&mut cell, flag)
                .map_err(|p| RunError::rule(format!("--skill {}: {}", flag.text(), p.message())))?;
        }
    }
    Ok(cell)
}

/// Plays every cell (row-major) on `batch`, `progress` told of every finished block of runs.
pub fn play(
    r: &Ruleset,
    s: &Scenario,
    seats: &[Seat],
    batch: &Batch,
    jobs: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Skill, RunError> {
    let rows = seats.first().map_or(1, |s| s.policies.len());
    let columns = seats.get(1).map_or(1, |s| s.policies.len());
    let mut cells = Vec::new();
    let mut options = Vec::new();
    for i in 0..rows {
        for j in 0..columns {
            let picks = [i, j];
            let cell = cell_scenario(s, seats, &picks)?;
            let layout = super::layout(r, &cell)?;
            let strongest = i + 1 == rows && j + 1 == columns;
            let totals = super::simulate_counting(r, &cell, &layout, batch, jobs, progress, strongest)?;
            if strongest {
                options = option_rows(&layout, &totals, seats);
            }
            let policies =
                seats.iter().zip(picks).filter_map(|(seat, k)| seat.policies.get(k)).map(|f| f.written.clone());
            cells.push(Cell {
                policies: policies.collect(),
                completed: totals.completed,
                outcomes: summary::summarise("", batch.seed, &layout, &totals).outcomes,
            });
        }
    }
    Ok(Skill {
        sides: seats.iter().map(|s| s.side.clone()).collect(),
        policies: seats.iter().map(|s| s.policies.iter().map(|p| p.written.clone()).collect()).collect(),
        runs: batch.runs.end - batch.runs.start,
        cells,
        options,
    })
}

/// The options of each varied side, summed over its participants.
fn option_rows(layout: &Layout, t: &Totals, seats: &[Seat]) -> Vec<OptionRow> {
    let actions = layout.actions.len();
    let half = layout.participants.len() * actions;
    let mut out = Vec::new();
    for seat in seats {
        let Some(side) = layout.sides.iter().position(|s| *s == seat.side) else { continue };
        for (a, action) in layout.actions.iter().enumerate() {
            let (mut affordable, mut chosen) = (0i128, 0i128);
            for w in (0..layout.participants.len()).filter(|w| layout.side_of.get(*w) == Some(&side)) {
                affordable += t.options.get(w * actions + a).copied().unwrap_or(0);
                chosen += t.options.get(half + w * actions + a).copied().unwrap_or(0);
            }
            if affordable <= 0 {
                continue;
            }
            let (affordable, chosen) = (u64::try_from(affordable).unwrap_or(0), u64::try_from(chosen).unwrap_or(0));
            let verdict = match chosen {
                0 => "dead",
                c if c >= affordable => "dominant",
                _ => "mixed",
            };
            out.push(OptionRow {
                side: seat.side.clone(),
                action: action.clone(),
                kind: layout.kinds.get(a).cloned().unwrap_or_default(),
                affordable,
                chosen,
                share: stats::wilson(chosen, affordable),
                verdict: verdict.to_string(),
            });
        }
    }
    out
}

/// A table of the report, for the text and the HTML page.
pub struct SkillTable {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One matrix per outcome that happened in any cell, then the options under the strongest
/// policies.
pub fn tables(k: &Skill) -> Vec<SkillTable> {
    let columns = k.policies.get(1).cloned().unwrap_or_else(|| vec!["as written".to_string()]);
    let corner = match (k.sides.first(), k.sides.get(1)) {
        (Some(a), Some(b)) => format!("{a} \\ {b}"),
        (Some(a), None) => format!("{a} \\ the others"),
        _ => String::new(),
    };
    let mut out = Vec::new();
    let outcomes = k.cells.first().map_or(0, |c| c.outcomes.len());
    for o in 0..outcomes {
        if k.cells.iter().all(|c| c.outcomes.get(o).is_none_or(|r| r.count == 0)) {
            continue;
        }
        let name = k.cells[0].outcomes[o].outcome.clone();
        let mut header = vec![corner.clone()];
        header.extend(columns.iter().cloned());
        let rows = k
            .cells
            .chunks(columns.len().max(1))
            .map(|row| {
                let mut cells = vec![row.first().and_then(|c| c.policies.first()).cloned().unwrap_or_default()];
                cells.extend(
                    row.iter().map(|c| c.outcomes.get(o).map(|r| summary::show_share(&r.share)).unwrap_or_default()),
                );
                cells
            })
            .collect();
        out.push(SkillTable { title: name, header, rows });
    }
    let strongest: Vec<String> = k
        .sides
        .iter()
        .zip(&k.policies)
        .map(|(side, p)| format!("{side}: {}", p.last().map_or("", String::as_str)))
        .collect();
    out.push(SkillTable {
        title: format!(
            "Options under the strongest policies asked for ({}): decisions at which each was affordable, and taken",
            strongest.join(", ")
        ),
        header: ["side", "action", "kind", "affordable", "chosen", "chosen share", "verdict"]
            .map(String::from)
            .to_vec(),
        rows: k
            .options
            .iter()
            .map(|o| {
                vec![
                    o.side.clone(),
                    o.action.clone(),
                    o.kind.clone(),
                    o.affordable.to_string(),
                    o.chosen.to_string(),
                    summary::show_share(&o.share),
                    o.verdict.clone(),
                ]
            })
            .collect(),
    });
    out
}

/// The sentence that opens the report.
pub fn intro(k: &Skill) -> String {
    let against = match (k.sides.first(), k.sides.get(1)) {
        (Some(a), Some(b)) => format!("{a} (rows) against {b} (columns)"),
        (Some(a), None) => format!("{a} (rows) against the others as written"),
        _ => String::new(),
    };
    format!(
        "Skill sensitivity: {against}, {} encounters per cell on the same seeds; share of encounters \
         ending so, 95% interval in brackets. The last policy listed for a side is its strongest.",
        k.runs
    )
}

/// The report as text, after the summary's.
pub fn to_text(k: &Skill) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\n{}", intro(k));
    for t in tables(k) {
        let _ = writeln!(out, "\n{}:", t.title);
        let header: Vec<&str> = t.header.iter().map(String::as_str).collect();
        summary::table(&mut out, &header, &t.rows);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lists_with_commas_inside_policies() {
        let f = parse_skill("heroes=Aggressive, HoldBack(pool: \"ap\", keep: 1),Search(playouts: 20)").unwrap();
        assert_eq!(f.side.as_deref(), Some("heroes"));
        let written: Vec<&str> = f.policies.iter().map(|p| p.written.as_str()).collect();
        assert_eq!(written, ["Aggressive", "HoldBack(pool: \"ap\", keep: 1)", "Search(playouts: 20)"]);
        let bare = parse_skill("Greedy,Random").unwrap();
        assert_eq!(bare.side, None);
        assert_eq!(bare.policies.len(), 2);
        assert!(parse_skill("heroes=Greedy,,Random").is_err());
        assert!(parse_skill("=Greedy").is_err());
        assert!(parse_skill("heroes=Greedier").unwrap_err().contains("not a policy"));
    }

    #[test]
    fn seats_follow_the_flags() {
        let sides = vec!["heroes".to_string(), "monsters".to_string()];
        let bare = parse_skill("Greedy,Random").unwrap();
        let seats = seats(std::slice::from_ref(&bare), &sides).unwrap();
        assert_eq!(seats.len(), 2);
        assert_eq!(seats[1].policies[0].who, "monsters");
        let m = parse_skill("monsters=Greedy").unwrap();
        let h = parse_skill("heroes=Random,Greedy").unwrap();
        let two = super::seats(&[m.clone(), h], &sides).unwrap();
        assert_eq!(two[0].side, "monsters");
        assert!(super::seats(&[m.clone(), m], &sides).unwrap_err().contains("twice"));
        assert!(super::seats(&[parse_skill("villains=Greedy").unwrap()], &sides).unwrap_err().contains("no side"));
        let three = ["a", "b", "c"].map(String::from);
        assert!(super::seats(&[bare], &three).unwrap_err().contains("has 3 sides"));
    }
}
