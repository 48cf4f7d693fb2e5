//! The templates of the corpus's `choose`, dice-pool and two-a-side cases (generate.rs holds the
//! others and what they share).

use super::{claw, hero, scenario, Made, Who};

// ---------------------------------------------------------------------------------------------
// `choose` answers.

#[derive(Clone, Copy)]
enum Question {
    /// "How many blows?": one blow on `1d6 >= need`, or two or three on `1d6 >= need + 1`, after
    /// which A is exposed until its next turn: the claw adds `bonus` to its roll and `extra` to
    /// its damage.
    Blows { need: u32, bonus: u32, extra: u32 },
    /// "How much fury?": `fury` points each turn, refreshed at its start; each point spent on
    /// the strike (`1d6 >= need`) adds 1 to its damage, and a point left over pays for `brace`, a
    /// reaction that cancels the claw on `1d6 >= brace`.
    Fury { fury: u32, need: u32, brace: u32 },
}

pub(super) struct Choose {
    a_hp: i64,
    question: Question,
    foe_hp: i64,
    claw: (u32, u32, u32),
    rounds: u32,
}

pub(super) const CHOOSE: [Choose; 6] = [
    Choose {
        a_hp: 5,
        question: Question::Blows { need: 2, bonus: 4, extra: 2 },
        foe_hp: 6,
        claw: (6, 5, 1),
        rounds: 5,
    },
    Choose {
        a_hp: 4,
        question: Question::Blows { need: 2, bonus: 4, extra: 1 },
        foe_hp: 5,
        claw: (6, 5, 1),
        rounds: 5,
    },
    Choose {
        a_hp: 5,
        question: Question::Blows { need: 2, bonus: 2, extra: 2 },
        foe_hp: 6,
        claw: (6, 4, 1),
        rounds: 6,
    },
    Choose { a_hp: 3, question: Question::Fury { fury: 2, need: 2, brace: 2 }, foe_hp: 7, claw: (6, 2, 2), rounds: 5 },
    Choose { a_hp: 2, question: Question::Fury { fury: 3, need: 3, brace: 2 }, foe_hp: 6, claw: (6, 2, 2), rounds: 6 },
    Choose { a_hp: 4, question: Question::Fury { fury: 2, need: 3, brace: 2 }, foe_hp: 7, claw: (6, 2, 2), rounds: 6 },
];

pub(super) fn choose(p: &Choose) -> Made {
    let (cd, cn, cdmg) = p.claw;
    let (extra, action, claw_line, what, decision) = match p.question {
        Question::Blows { need, bonus, extra } => {
            let n2 = need + 1;
            let blow = format!("if 1d6 >= {n2} {{ target.hp -= 1 }}");
            (
                "condition exposed { lasts until turn_start }\n".to_string(),
                format!(
                    "action flurry {{ cost 1 ap; target enemy; resolve {{ choose owner \"How many blows?\" {{ one: {{ if 1d6 >= {need} {{ target.hp -= 1 }} }}, two: {{ {blow}; {blow}; apply exposed }}, three: {{ {blow}; {blow}; {blow}; apply exposed }} }} }} }}\n"
                ),
                format!(
                    "action claw {{ cost 0; limit 1 per turn; target enemy; resolve {{ if 1d{cd} + {bonus} * number(target has exposed) >= {cn} {{ target.hp -= {cdmg} + {extra} * number(target has exposed) }} }} }}\n"
                ),
                format!(
                    "once a turn A's flurry asks how many blows: one on 1d6 >= {need}, or two or three on 1d6 >= {n2} that leave A \
                     exposed until its next turn (the claw gets +{bonus} to hit and +{extra} damage)"
                ),
                format!("one blow, or two or three that expose A to a claw at +{bonus} for +{extra}; all in when the foe is nearly down"),
            )
        }
        Question::Fury { fury, need, brace } => {
            let words = ["none", "one", "two", "three", "four"];
            let options: Vec<String> = (0..=fury)
                .map(|k| match k {
                    0 => format!("none: {{ if 1d6 >= {need} {{ target.hp -= 1 }} }}"),
                    k => format!(
                        "{}: {{ if 1d6 >= {need} {{ target.hp -= 1 + min({k}, fury) }}; fury -= {k} }}",
                        words[k as usize]
                    ),
                })
                .collect();
            (
                format!(
                    "pool fury {{ max {fury}; refresh at turn_start }}\nreaction brace {{ cost 1 fury; on claw by enemy against self; interrupts; resolve {{ if 1d6 >= {brace} {{ cancel }} }} }}\n"
                ),
                format!(
                    "action strike {{ cost 1 ap; target enemy; resolve {{ choose owner \"How much fury?\" {{ {} }} }} }}\n",
                    options.join(", ")
                ),
                claw(cd, &cn.to_string(), &cdmg.to_string(), false),
                format!(
                    "A has {fury} fury a turn; once a turn its strike (1d6 >= {need} for 1) asks how much fury to pour in, \
                     each point 1 more damage on a hit, and a point left over braces against the claw (cancelled on 1d6 >= \
                     {brace})"
                ),
                format!("how much of {fury} fury to pour into the strike, and whether to keep a point to brace ({brace}+ on 1d6)"),
            )
        }
    };
    let what = format!(
        "A has {a_hp} hp against a foe of {foe_hp} hp that claws once a turn (1d{cd} >= {cn} for {cdmg}); {what}. The \
         policies answer by the score of the options now; good play weighs what comes after.",
        a_hp = p.a_hp,
        foe_hp = p.foe_hp,
    );
    let body = format!("pool ap {{ max 1; refresh at turn_start }}\n{extra}{action}{claw_line}");
    let actions: &[&str] = match p.question {
        Question::Blows { .. } => &["flurry"],
        Question::Fury { .. } => &["strike", "brace"],
    };
    let scenario = scenario(
        p.rounds,
        &[
            hero(&[("speed", 2), ("hp_max", p.a_hp)], actions),
            Who {
                name: "Foe",
                side: "foes",
                stats: &[("speed", 1), ("hp_max", p.foe_hp)],
                actions: &["claw"],
                controller: "Aggressive",
            },
        ],
    );
    (what, decision, body, scenario)
}

// ---------------------------------------------------------------------------------------------
// Dice pools.

pub(super) struct Pool {
    a_hp: i64,
    /// The dice: at most, at the start, gained at each of A's turns.
    dice: (u32, u32, u32),
    /// Dice of the small and the big volley.
    volleys: (u32, u32),
    /// A die (`1dSIDES`) is a success on `>= need`.
    sides: u32,
    need: u32,
    /// Successes the foe's armour takes off each volley.
    armour: u32,
    foe_hp: i64,
    claw: (u32, u32, u32),
    rounds: u32,
}

pub(super) const POOL: [Pool; 6] = [
    Pool {
        a_hp: 4,
        dice: (6, 2, 2),
        volleys: (2, 4),
        sides: 6,
        need: 4,
        armour: 1,
        foe_hp: 4,
        claw: (6, 4, 1),
        rounds: 6,
    },
    Pool {
        a_hp: 3,
        dice: (6, 3, 2),
        volleys: (2, 5),
        sides: 6,
        need: 5,
        armour: 1,
        foe_hp: 3,
        claw: (6, 5, 1),
        rounds: 6,
    },
    Pool {
        a_hp: 4,
        dice: (8, 3, 3),
        volleys: (3, 6),
        sides: 8,
        need: 5,
        armour: 2,
        foe_hp: 4,
        claw: (6, 4, 1),
        rounds: 5,
    },
    Pool {
        a_hp: 5,
        dice: (6, 2, 2),
        volleys: (2, 6),
        sides: 6,
        need: 4,
        armour: 2,
        foe_hp: 3,
        claw: (6, 4, 1),
        rounds: 6,
    },
    Pool {
        a_hp: 3,
        dice: (5, 1, 2),
        volleys: (1, 4),
        sides: 4,
        need: 3,
        armour: 1,
        foe_hp: 3,
        claw: (6, 4, 1),
        rounds: 6,
    },
    Pool {
        a_hp: 4,
        dice: (6, 4, 2),
        volleys: (2, 4),
        sides: 10,
        need: 6,
        armour: 1,
        foe_hp: 4,
        claw: (6, 3, 1),
        rounds: 5,
    },
];

pub(super) fn pool(p: &Pool) -> Made {
    let (max, start, gain) = p.dice;
    let (small, big) = p.volleys;
    let (cd, cn, cdmg) = p.claw;
    let (s, n, a) = (p.sides, p.need, p.armour);
    let what = format!(
        "A's dice: {start} at the start, {gain} more at each of its turns, at most {max}, kept between turns. A volley \
         rolls the dice it pays for ({small} or {big}), each a success on 1d{s} >= {n}, and the foe's armour takes {a} \
         successes off each volley. A has {a_hp} hp against a foe of {foe_hp} hp that claws once a turn (1d{cd} >= {cn} \
         for {cdmg}). Good play saves dice for the big volley; Greedy and Aggressive fire small volleys as soon as they can.",
        a_hp = p.a_hp,
        foe_hp = p.foe_hp,
    );
    let volley = |name: &str, k: u32| {
        format!("action {name} {{ cost {k} dice; target enemy; resolve {{ target.hp -= max(0, count({k}d{s} >= {n}) - {a}) }} }}\n")
    };
    let body = format!(
        "pool dice {{ max {max}; start {start}; gain {gain} at turn_start }}\n{}{}{}",
        volley("volley", small),
        volley("barrage", big),
        claw(cd, &cn.to_string(), &cdmg.to_string(), false),
    );
    let scenario = scenario(
        p.rounds,
        &[
            hero(&[("speed", 2), ("hp_max", p.a_hp)], &["volley", "barrage"]),
            Who {
                name: "Foe",
                side: "foes",
                stats: &[("speed", 1), ("hp_max", p.foe_hp)],
                actions: &["claw"],
                controller: "Aggressive",
            },
        ],
    );
    let decision = format!("commit {small} dice now, or wait for {big} at once against armour {a}");
    (what, decision, body, scenario)
}

// ---------------------------------------------------------------------------------------------
// Two per side.

#[derive(Clone, Copy)]
enum Help {
    /// A's reaction (1 AP): the claw at Bo comes at A instead.
    Guard,
    /// A's action (2 AP): Bo gets back this many hp.
    Mend { hp: u32 },
}

pub(super) struct Team {
    ap: u32,
    /// A's hp and Bo's.
    hp: (i64, i64),
    /// Both heroes' strike: `1d6 >= need` for 1.
    need: u32,
    help: Help,
    /// The Brute's hp and the Witch's.
    foes: (i64, i64),
    /// The Brute's claw (1d6 >= need, damage), the Witch's.
    claws: ((u32, u32), (u32, u32)),
    rounds: u32,
}

pub(super) const TEAM: [Team; 6] = [
    Team { ap: 2, hp: (6, 2), need: 3, help: Help::Guard, foes: (6, 4), claws: ((4, 1), (3, 2)), rounds: 5 },
    Team { ap: 3, hp: (5, 2), need: 4, help: Help::Guard, foes: (5, 4), claws: ((3, 1), (4, 2)), rounds: 5 },
    Team { ap: 2, hp: (7, 3), need: 3, help: Help::Guard, foes: (6, 4), claws: ((4, 2), (3, 2)), rounds: 6 },
    Team { ap: 3, hp: (4, 2), need: 4, help: Help::Guard, foes: (5, 4), claws: ((3, 1), (4, 2)), rounds: 5 },
    Team { ap: 3, hp: (4, 4), need: 4, help: Help::Mend { hp: 3 }, foes: (5, 4), claws: ((3, 1), (3, 2)), rounds: 5 },
    Team { ap: 3, hp: (6, 2), need: 3, help: Help::Guard, foes: (6, 5), claws: ((4, 1), (3, 2)), rounds: 6 },
];

pub(super) fn team(p: &Team) -> Made {
    let ((bn, bd), (wn, wd)) = p.claws;
    let (help, name, what, decision) = match p.help {
        Help::Guard => (
            "reaction guard { cost 1 ap; on claw by enemy against ally; interrupts; resolve { redirect } }\n".to_string(),
            "guard",
            "A may guard Bo (a reaction, 1 AP left over from its turn: the claw comes at A instead)".to_string(),
            format!("keep 1 of {} AP to guard Bo ({} hp), and which foe to strike", p.ap, p.hp.1),
        ),
        Help::Mend { hp } => (
            format!("action mend {{ cost 2 ap; target ally; requires not target has down; resolve {{ target.hp += {hp} }} }}\n"),
            "mend",
            format!("A may mend Bo (2 AP, {hp} hp back)"),
            format!("mend Bo (+{hp}) or strike, and which foe to strike"),
        ),
    };
    let what = format!(
        "A ({ah} hp) and Bo ({bh} hp, Aggressive: strikes the Brute) have {ap} AP a turn; a strike (1 AP) hits on 1d6 >= \
         {need} for 1. The foes claw Bo, the first hero they find, once a turn each: the Brute ({th} hp) on 1d6 >= {bn} \
         for {bd}, the Witch ({wh} hp) on 1d6 >= {wn} for {wd}. {what}. Good play keeps Bo up and takes the Witch down \
         first; Greedy spends every AP on strikes at the Brute.",
        ah = p.hp.0,
        bh = p.hp.1,
        ap = p.ap,
        need = p.need,
        th = p.foes.0,
        wh = p.foes.1,
    );
    let body = format!(
        "stat ap_max = {ap}\nstat claw_need = 4\nstat claw_damage = 1\npool ap {{ max ap_max; refresh at turn_start }}\n\
         action strike {{ cost 1 ap; target enemy; resolve {{ if 1d6 >= {need} {{ target.hp -= 1 }} }} }}\n{help}{claw}",
        ap = p.ap,
        need = p.need,
        claw = claw(6, "claw_need", "claw_damage", false),
    );
    let brute =
        [("speed", 1), ("hp_max", p.foes.0), ("claw_need", bn as i64), ("claw_damage", bd as i64), ("ap_max", 0)];
    let witch =
        [("speed", 1), ("hp_max", p.foes.1), ("claw_need", wn as i64), ("claw_damage", wd as i64), ("ap_max", 0)];
    let scenario = scenario(
        p.rounds,
        &[
            Who {
                name: "Bo",
                side: "heroes",
                stats: &[("speed", 2), ("hp_max", p.hp.1)],
                actions: &["strike"],
                controller: "Aggressive",
            },
            Who {
                name: "A",
                side: "heroes",
                stats: &[("speed", 3), ("hp_max", p.hp.0)],
                actions: &["strike", name],
                controller: "Greedy",
            },
            Who { name: "Brute", side: "foes", stats: &brute, actions: &["claw"], controller: "Aggressive" },
            Who { name: "Witch", side: "foes", stats: &witch, actions: &["claw"], controller: "Aggressive" },
        ],
    );
    (what, decision, body, scenario)
}
