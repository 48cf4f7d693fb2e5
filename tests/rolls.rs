//! Named rolls (`roll NAME = DICE`, issue 32): one throw read by several counts, each count
//! made on the faces the trace shows.

use tempo::check::compile_str;
use tempo::run::trace::{Event, Record};
use tempo::run::{run, scenario};

/// S10 of docs/economies.md: hits on 5 and 6, a glitch when half the dice or more show 1.
const GLITCH: &str = "ruleset glitch
stat attack_pool = 12
pool hp { max 1000 }
pool hits { max none }
pool ones { max none }
condition glitched
initiative { value 0 }
round { phase act: turns }
action shoot {
  target enemy
  resolve {
    remove glitched
    roll attack = dice(attack_pool, 6)
    hits = count(attack >= 5)
    ones = count(attack == 1)
    if count(attack == 1) * 2 >= attack_pool { apply glitched }
    target.hp -= count(attack >= 5)
  }
}
";

fn scenario(seed: u64, pool: u32) -> scenario::Scenario {
    scenario::parse(&format!(
        r#"(seed: {seed}, rounds: 3, participants: [
  (name: "Wren", side: "a", stats: {{"attack_pool": {pool}}}, controller: Policy(Aggressive)),
  (name: "Guard", side: "b", stats: {{"attack_pool": {pool}}}, controller: Policy(Aggressive)),
])"#
    ))
    .unwrap()
}

fn records(rules: &str, seed: u64, pool: u32) -> Vec<Record> {
    let c = compile_str("t.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    run(&c.ruleset.unwrap(), &scenario(seed, pool), None).unwrap()
}

#[test]
fn every_count_of_a_roll_is_made_on_the_faces_its_one_line_shows() {
    let mut rolls = 0;
    let mut glitches = 0;
    for seed in 0..40 {
        let records = records(GLITCH, seed, 4);
        for (i, r) in records.iter().enumerate() {
            let Event::Roll { pool: Some(pool), result, .. } = &r.event else { continue };
            rolls += 1;
            assert_eq!(pool.name.as_deref(), Some("attack"));
            assert_eq!(pool.faces.len(), 4);
            let hits = pool.faces.iter().filter(|f| **f >= 5).count() as i64;
            let ones = pool.faces.iter().filter(|f| **f == 1).count() as i64;
            // Two counts, the same `>= 5` read twice made once.
            let counts: Vec<(&str, i64)> = pool.counts.iter().map(|c| (c.counting.as_str(), c.count)).collect();
            assert_eq!(counts, vec![(">= 5", hits), ("== 1", ones)]);
            assert_eq!(*result, hits);
            // What the block did with them follows the same faces.
            let after: Vec<&Record> = records[i + 1..]
                .iter()
                .take_while(|r| !matches!(r.event, Event::Roll { .. } | Event::Action { .. }))
                .collect();
            let hp = after.iter().find_map(|r| match &r.event {
                Event::Pool { pool, from, to, .. } if &**pool == "hp" => Some(from - to),
                _ => None,
            });
            assert_eq!(hp.unwrap_or(0), hits, "seed {seed}: damage is the hits shown");
            let glitched = after
                .iter()
                .any(|r| matches!(&r.event, Event::Condition { condition, .. } if &**condition == "glitched"));
            if ones * 2 >= 4 {
                glitches += 1;
            }
            assert_eq!(glitched, ones * 2 >= 4, "seed {seed}: glitched with {ones} ones");
        }
    }
    assert!(rolls > 100 && glitches > 0, "{rolls} rolls, {glitches} glitches");
}

#[test]
fn a_roll_is_one_trace_line_with_its_faces_and_counts() {
    let text = tempo::run::trace::to_text(&records(GLITCH, 3, 12));
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" rolls ")).collect();
    assert!(!lines.is_empty());
    for line in &lines {
        let (who, rest) = line.trim_start().split_once(" rolls 12d6 for attack [").expect(line);
        assert!(who == "Wren" || who == "Guard", "{line}");
        let (faces, counts) = rest.split_once("]: ").expect(line);
        let faces: Vec<i64> = faces.split(' ').map(|f| f.parse().unwrap()).collect();
        let hits = faces.iter().filter(|f| **f >= 5).count();
        let ones = faces.iter().filter(|f| **f == 1).count();
        assert_eq!(faces.len(), 12);
        assert_eq!(counts, format!("{hits} at >= 5, {ones} at == 1"));
    }
}

#[test]
fn a_roll_in_a_repeat_is_thrown_again_each_pass_and_runs_are_deterministic() {
    let rules = "ruleset again
stat attack_pool = 1
pool hp { max 100 }
pool tries { max none; start 0 }
initiative { value 0 }
round { phase act: turns }
action keep_rolling {
  target enemy
  resolve {
    tries = 0
    repeat while tries < 3 {
      roll d = 2d6 + 1d8
      target.hp -= count(d >= 6)
      tries += 1
    }
  }
}
";
    let a = tempo::run::trace::to_text(&records(rules, 9, 1));
    let b = tempo::run::trace::to_text(&records(rules, 9, 1));
    assert_eq!(a, b);
    let first_turn = a.split("'s turn.").nth(1).unwrap();
    let throws: Vec<&str> = first_turn.lines().filter(|l| l.contains(" rolls 2d6 + 1d8 for d [")).collect();
    assert!(throws.len() >= 3, "{first_turn}");
}

#[test]
fn the_mistakes_of_a_roll_are_named() {
    use tempo::diagnostics::Code;
    let base = "ruleset r\nstat n = 4\npool hits { max none }\ninitiative { value 0 }\nround { phase act: turns }\n";
    let cases = [
        ("action a { resolve { roll x = n + 1 } }", Code::BadRoll),
        ("action a { resolve { roll x = 2d6; roll x = 3d6 } }", Code::Duplicate),
        ("action a { resolve { if n > 0 { roll x = 2d6 }; hits = count(x >= 5) } }", Code::UnknownRoll),
        ("action a { resolve { roll attack = 2d6; hits = count(atack >= 5) } }", Code::UnknownRoll),
        ("action a { resolve { roll x = 2d6; hits = count(x, hit) } }", Code::UnknownSymbol),
    ];
    // Read before it is rolled, `x` is no roll yet: a name that is nothing.
    let early =
        compile_str("t.rules", &format!("{base}action a {{ resolve {{ hits = count(x >= 5); roll x = 2d6 }} }}\n"));
    assert!(early.diagnostics.iter().any(|d| d.code == Code::UnknownName), "{:?}", early.diagnostics);
    for (text, code) in cases {
        let c = compile_str("t.rules", &format!("{base}{text}\n"));
        let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![code], "{text}");
    }
    // `roll` is still a name a pool may have.
    let c = compile_str("t.rules", &format!("{base}pool roll {{ max 6 }}\naction a {{ resolve {{ roll = 3 }} }}\n"));
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
}

const NARRATIVE: &str = "ruleset narrative
stat attack_pool = 1
pool wounds { max none; start 0 }
initiative { value 0 }
round { phase act: turns }
die ability \"Ability\" { faces: -, success, success, success success, advantage, advantage, success advantage, advantage advantage }
die difficulty \"Difficulty\" { faces: -, failure, failure failure, threat, threat, threat, threat threat, failure threat }
action strike {
  target enemy
  resolve {
    roll check = dice(2, ability) + dice(1, difficulty)
    if count(check, success) > count(check, failure) {
      target.wounds += count(check, success) - count(check, failure)
    }
    target.wounds += count(check, threat) * 0
  }
}
";

#[test]
fn custom_faces_come_up_as_often_as_the_die_shows_them_and_are_counted_as_shown() {
    let (mut dice, mut success, mut failure, mut blank) = (0u32, 0i64, 0i64, 0u32);
    for seed in 0..60 {
        for r in records(NARRATIVE, seed, 1) {
            let Event::Roll { pool: Some(pool), .. } = &r.event else { continue };
            assert_eq!(pool.thrown.as_deref(), Some("2 ability + 1 difficulty"));
            assert_eq!(pool.shown.len(), 3);
            // Two ability dice, then one difficulty die: each face's place on its die, from 1.
            assert!(pool.faces.iter().all(|f| (1..=8).contains(f)), "{:?}", pool.faces);
            let shown = |symbol: &str| -> i64 {
                pool.shown.iter().map(|f| f.split(' ').filter(|s| *s == symbol).count() as i64).sum()
            };
            let counts: Vec<(&str, i64)> = pool.counts.iter().map(|c| (c.counting.as_str(), c.count)).collect();
            assert_eq!(
                counts,
                vec![("success", shown("success")), ("failure", shown("failure")), ("threat", shown("threat"))]
            );
            dice += 2;
            success += shown("success");
            failure += shown("failure");
            blank += pool.shown[..2].iter().filter(|f| *f == "-").count() as u32;
        }
    }
    // An ability die shows 5 successes over 8 faces, a blank on 1; a difficulty die 4 failures.
    let (n, rolls) = (f64::from(dice), f64::from(dice) / 2.0);
    assert!(n > 400.0, "{n} ability dice");
    let per_die = success as f64 / n;
    assert!((per_die - 5.0 / 8.0).abs() < 0.1, "{per_die} successes per ability die");
    let per_roll = failure as f64 / rolls;
    assert!((per_roll - 4.0 / 8.0).abs() < 0.12, "{per_roll} failures per difficulty die");
    let blanks = f64::from(blank) / n;
    assert!((blanks - 1.0 / 8.0).abs() < 0.05, "{blanks} blank ability faces");
}

#[test]
fn the_text_line_shows_each_face_by_its_symbols() {
    let text = tempo::run::trace::to_text(&records(NARRATIVE, 4, 1));
    let line = text.lines().find(|l| l.contains(" rolls ")).unwrap();
    assert!(line.starts_with("  Wren rolls 2 ability + 1 difficulty for check ["), "{line}");
    assert!(line.contains(" success, ") && line.contains(" failure, ") && line.ends_with(" threat"), "{line}");
}

/// The text names dice with custom faces by their labels, as it does pools and piles;
/// `--names` and the JSON trace by their names.
#[test]
fn the_text_line_names_dice_by_their_labels() {
    let ruleset = compile_str("t.rules", NARRATIVE).ruleset.expect("compiles");
    let s = scenario(4, 1);
    let line = |options: tempo::api::TraceOptions| {
        let text = tempo::api::run(&ruleset, &s, None, options).expect("runs").text;
        let roll = |l: &&str| l.contains(" rolls ") || l.contains(r#""event":"roll""#);
        text.lines().find(roll).map(str::to_string).unwrap_or_default()
    };
    let labelled = line(tempo::api::TraceOptions::default());
    assert!(labelled.starts_with("  Wren rolls 2 Ability + 1 Difficulty for check ["), "{labelled}");
    let named = line(tempo::api::TraceOptions { names: true, ..Default::default() });
    assert!(named.starts_with("  Wren rolls 2 ability + 1 difficulty for check ["), "{named}");
    let json = line(tempo::api::TraceOptions { jsonl: true, ..Default::default() });
    assert!(json.contains(r#""thrown":"2 ability + 1 difficulty""#), "{json}");
}

/// `count(PILE op X)` tests a pile as if it were a roll: the diagnostic says it is a pile and
/// how a pile is counted.
#[test]
fn a_pile_tested_as_a_roll_is_told_how_piles_are_counted() {
    let text = "ruleset r\nitems cards { strike, dash }\npile hand of cards { starts full }\n\
                initiative { value 0 }\nround { phase act: turns }\n\
                action a {\n  requires count(hand >= 2)\n  resolve { }\n}\n";
    let c = compile_str("t.rules", text);
    let codes: Vec<tempo::diagnostics::Code> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![tempo::diagnostics::Code::BadCountCall], "{:?}", c.diagnostics);
    use tempo::diagnostics::render;
    let rendered = render::to_text(&c.diagnostics, &c.sources, render::TextStyle { color: false, width: 80 });
    insta::assert_snapshot!("pile_tested_as_a_roll", rendered);
}

#[test]
fn the_mistakes_of_dice_with_custom_faces_are_named() {
    use tempo::diagnostics::Code;
    let base = "ruleset r\nstat n = 4\npool hits { max none }\ninitiative { value 0 }\nround { phase act: turns }\n\
                die boost { faces: -, success, success advantage }\n";
    let cases = [
        ("action a { resolve { roll x = dice(2, bost); hits = count(x, success) } }", Code::UnknownDie),
        ("action a { resolve { roll x = dice(2, boost); hits = count(x, sucess) } }", Code::UnknownSymbol),
        ("action a { resolve { roll x = dice(2, boost); hits = count(x >= 5) } }", Code::BadCountCall),
        ("die boost { faces: success }\naction a { resolve { roll x = dice(2, boost) } }", Code::Duplicate),
    ];
    for (text, code) in cases {
        let c = compile_str("t.rules", &format!("{base}{text}\n"));
        let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![code], "{text}");
    }
    // A value named as sides is numbered dice; a mix counts each kind its own way.
    let c = compile_str(
        "t.rules",
        &format!("{base}action a {{ resolve {{ roll x = dice(2, n) + dice(1, boost); hits = count(x >= 3) + count(x, advantage) }} }}\n"),
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
}

#[test]
fn hover_names_a_die_where_a_roll_throws_it_and_tells_what_roll_does() {
    let sources = tempo::api::Sources::new().with("n.rules", NARRATIVE);
    let at = NARRATIVE.find("dice(2, ability)").unwrap() + "dice(2, ".len() + 1;
    let shown = tempo::api::hover(&sources, "n.rules", at).expect("hover on a die");
    assert!(shown.contains("die") && shown.contains("ability"), "{shown}");
    let at = NARRATIVE.find("roll check").unwrap() + 1;
    let keyword = tempo::api::hover(&sources, "n.rules", at).expect("hover on `roll`");
    assert!(keyword.contains("count(attack"), "{keyword}");
}
