//! The corpus generator: every case of tests/corpus/cases/, a `.rules` and a `.ron` each, made
//! from one template per skill kind and a table of parameters per kind. Nothing here is random:
//! the same source writes the same files (tests/corpus.rs checks the files are what it writes,
//! and rewrites them with `TEMPO_BLESS_CORPUS=1`). Plain `std` only, so that it can be read (or
//! compiled) on its own.
//!
//! Every case is "A" (side `heroes`, `Policy(Greedy)` in the scenario) against foes under a
//! deterministic policy, at most 6 rounds, small hit points and dice, no positions, no hidden
//! phases: small enough for `tempo solve` to play exactly, and each one where playing well
//! matters (tests/corpus/README.md gives the decision of each case and how naive policies fare).

/// The skills the corpus exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Keeping points for a reaction rather than spending them all on attacks.
    Hold,
    /// Spending an action now for a bonus on a later attack.
    Setup,
    /// Drawing a foe's one reaction a round with a cheap attack before the heavy one.
    Bait,
    /// Choosing whom to attack among two foes.
    Target,
    /// Answering a `choose`: how many blows under a penalty, how much of a pool to spend.
    Choose,
    /// Dice pools: how many dice to commit at once.
    Pool,
    /// Two a side: A decides beside an ally who plays a fixed policy.
    Team,
}

impl Kind {
    pub const ALL: [Kind; 7] =
        [Kind::Hold, Kind::Setup, Kind::Bait, Kind::Target, Kind::Choose, Kind::Pool, Kind::Team];

    /// The prefix of the names of its cases.
    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Hold => "hold",
            Kind::Setup => "setup",
            Kind::Bait => "bait",
            Kind::Target => "target",
            Kind::Choose => "choose",
            Kind::Pool => "pool",
            Kind::Team => "team",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Kind::Hold => "holding points for a reaction",
            Kind::Setup => "set-up actions",
            Kind::Bait => "baiting a limited reaction",
            Kind::Target => "choosing among targets",
            Kind::Choose => "`choose` answers",
            Kind::Pool => "dice pools",
            Kind::Team => "two per side",
        }
    }
}

/// One economy of the corpus.
pub struct Case {
    /// `hold-01`: the files are `NAME.rules` and `NAME.ron`.
    pub name: String,
    pub kind: Kind,
    /// The decision that matters, in a line (the README's table).
    pub decision: String,
    pub rules: String,
    pub scenario: String,
}

/// Every case, in order: kind by kind, numbered from 01 within each kind.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for kind in Kind::ALL {
        let made = match kind {
            Kind::Hold => HOLD.iter().map(hold).collect::<Vec<_>>(),
            Kind::Setup => SETUP.iter().map(setup).collect(),
            Kind::Bait => BAIT.iter().map(bait).collect(),
            Kind::Target => TARGET.iter().map(target).collect(),
            Kind::Choose => CHOOSE.iter().map(choose).collect(),
            Kind::Pool => POOL.iter().map(pool).collect(),
            Kind::Team => TEAM.iter().map(team).collect(),
        };
        for (i, (what, decision, body, scenario)) in made.into_iter().enumerate() {
            let name = format!("{}-{:02}", kind.prefix(), i + 1);
            let ident = name.replace('-', "_");
            let mut rules = String::new();
            for line in wrap(&format!("{name} ({}): {what}", kind.label())) {
                rules.push_str(&format!("# {line}\n"));
            }
            rules.push_str(&format!("ruleset {ident}\n{COMMON}{body}"));
            let scenario = format!("// {name}: the economy of {name}.rules; A decides.\n{scenario}");
            out.push(Case { name, kind, decision, rules, scenario });
        }
    }
    out
}

/// The README's table of cases (between its markers).
pub fn table(cases: &[Case]) -> String {
    let mut out = String::from("| case | kind | the decision that matters |\n|---|---|---|\n");
    for c in cases {
        out.push_str(&format!("| `{}` | {} | {} |\n", c.name, c.kind.label(), c.decision));
    }
    out
}

/// What every case has: initiative by `speed` (A's is higher, so A acts first), one phase of
/// turns, hit points and going down at 0.
const COMMON: &str = "initiative { value speed }
round { phase act: turns }
stat speed = 0
stat hp_max = 4
pool hp { max hp_max; when <= 0 { apply down } }
condition down { blocks actions, free_actions, reactions }
";

/// A comment's text in lines of at most 96 characters.
fn wrap(text: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let last = lines.last_mut().expect("a line");
        if !last.is_empty() && last.len() + 1 + word.len() > 96 {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

/// A participant of a scenario.
struct Who<'a> {
    name: &'a str,
    side: &'a str,
    stats: &'a [(&'a str, i64)],
    actions: &'a [&'a str],
    controller: &'a str,
}

fn scenario(rounds: u32, who: &[Who]) -> String {
    let mut out = format!("(\n  rounds: {rounds},\n  participants: [\n");
    for w in who {
        let stats: Vec<String> = w.stats.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
        let actions: Vec<String> = w.actions.iter().map(|a| format!("\"{a}\"")).collect();
        out.push_str(&format!(
            "    (name: \"{}\", side: \"{}\", stats: {{{}}}, actions: [{}], controller: Policy({})),\n",
            w.name,
            w.side,
            stats.join(", "),
            actions.join(", "),
            w.controller
        ));
    }
    out.push_str("  ],\n)\n");
    out
}

/// A: Greedy, first in initiative.
fn hero<'a>(stats: &'a [(&'a str, i64)], actions: &'a [&'a str]) -> Who<'a> {
    Who { name: "A", side: "heroes", stats, actions, controller: "Greedy" }
}

/// The foe's attack, once a turn: a hit on `1dDIE >= need` takes `damage`; a miss is the event
/// `missed` when `miss` says so.
fn claw(die: u32, need: &str, damage: &str, miss: bool) -> String {
    let miss = if miss { " else { emit missed }" } else { "" };
    format!("action claw {{ cost 0; limit 1 per turn; target enemy; resolve {{ if 1d{die} >= {need} {{ target.hp -= {damage} }}{miss} }} }}\n")
}

type Made = (String, String, String, String);

// ---------------------------------------------------------------------------------------------
// Holding points for a reaction.

/// A's answer to the foe's claw, paid with 1 AP left over from A's turn.
#[derive(Clone, Copy)]
enum Answer {
    /// Interrupts the claw and cancels it on `1d6 >= need`.
    Parry { need: u32 },
    /// After a miss, strikes back for this much.
    Riposte { damage: u32 },
}

struct Hold {
    ap: u32,
    a_hp: i64,
    /// A's strike: `1dDIE >= need` for `damage`.
    strike: (u32, u32, u32),
    foe_hp: i64,
    /// The foe's claw: `1dDIE >= need` for `damage`.
    claw: (u32, u32, u32),
    answer: Answer,
    rounds: u32,
}

const HOLD: [Hold; 6] = [
    Hold {
        ap: 3,
        a_hp: 4,
        strike: (6, 4, 1),
        foe_hp: 4,
        claw: (6, 3, 2),
        answer: Answer::Parry { need: 1 },
        rounds: 5,
    },
    Hold {
        ap: 2,
        a_hp: 4,
        strike: (6, 3, 1),
        foe_hp: 4,
        claw: (6, 2, 2),
        answer: Answer::Parry { need: 2 },
        rounds: 6,
    },
    Hold {
        ap: 3,
        a_hp: 5,
        strike: (8, 5, 1),
        foe_hp: 5,
        claw: (4, 2, 2),
        answer: Answer::Parry { need: 2 },
        rounds: 6,
    },
    Hold {
        ap: 3,
        a_hp: 4,
        strike: (6, 4, 1),
        foe_hp: 6,
        claw: (6, 4, 1),
        answer: Answer::Riposte { damage: 3 },
        rounds: 5,
    },
    Hold {
        ap: 2,
        a_hp: 3,
        strike: (6, 4, 1),
        foe_hp: 6,
        claw: (6, 4, 1),
        answer: Answer::Riposte { damage: 3 },
        rounds: 5,
    },
    Hold {
        ap: 4,
        a_hp: 6,
        strike: (10, 6, 1),
        foe_hp: 6,
        claw: (6, 3, 3),
        answer: Answer::Parry { need: 2 },
        rounds: 6,
    },
];

fn hold(p: &Hold) -> Made {
    let (sd, sn, sdmg) = p.strike;
    let (cd, cn, cdmg) = p.claw;
    let (answer, name, what, decision) = match p.answer {
        Answer::Parry { need } => (
            format!("reaction parry {{ cost 1 ap; on claw by enemy against self; interrupts; resolve {{ if 1d6 >= {need} {{ cancel }} }} }}\n"),
            "parry",
            format!("a parry (1 AP, cancels the claw on 1d6 >= {need})"),
            format!("keep the last of {} AP to parry the claw ({}), or strike with it", p.ap, claw_words(p.claw)),
        ),
        Answer::Riposte { damage } => (
            format!("reaction riposte {{ cost 1 ap; on missed by enemy against self; resolve {{ actor.hp -= {damage} }} }}\n"),
            "riposte",
            format!("a riposte after the claw misses (1 AP, a sure {damage})"),
            format!("keep the last of {} AP for a riposte of {damage} after a miss, or strike with it", p.ap),
        ),
    };
    let what = format!(
        "A has {ap} AP a turn (left over until its next turn) and {a_hp} hp; a strike (1 AP) hits on 1d{sd} >= {sn} for \
         {sdmg}; the foe ({foe_hp} hp) claws once a turn, hitting on 1d{cd} >= {cn} for {cdmg}. A's answer: {what}. Good \
         play keeps the last AP for it, except when the strikes can finish the foe; Greedy and Aggressive spend every AP \
         on strikes.",
        ap = p.ap,
        a_hp = p.a_hp,
        foe_hp = p.foe_hp,
    );
    let miss = matches!(p.answer, Answer::Riposte { .. });
    let body = format!(
        "stat ap_max = {ap}\npool ap {{ max ap_max; refresh at turn_start }}\n{events}\
         action strike {{ cost 1 ap; target enemy; resolve {{ if 1d{sd} >= {sn} {{ target.hp -= {sdmg} }} }} }}\n{claw}{answer}",
        ap = p.ap,
        events = if miss { "event missed\n" } else { "" },
        claw = claw(cd, &cn.to_string(), &cdmg.to_string(), miss),
    );
    let scenario = scenario(
        p.rounds,
        &[
            hero(&[("speed", 2), ("hp_max", p.a_hp)], &["strike", name]),
            Who {
                name: "Foe",
                side: "foes",
                stats: &[("speed", 1), ("hp_max", p.foe_hp), ("ap_max", 0)],
                actions: &["claw"],
                controller: "Aggressive",
            },
        ],
    );
    (what, decision, body, scenario)
}

/// A claw in words: "hits on 1d6 >= 3 for 2".
fn claw_words((die, need, damage): (u32, u32, u32)) -> String {
    format!("hits on 1d{die} >= {need} for {damage}")
}

// ---------------------------------------------------------------------------------------------
// Set-up actions.

#[derive(Clone, Copy)]
enum Prep {
    /// `aim` (1 AP): the next shot this turn adds `bonus` to its roll.
    Aim { bonus: u32 },
    /// `charge` (1 AP): the next hit, this turn or later, does `extra` more damage.
    Charge { extra: u32 },
}

struct Setup {
    ap: u32,
    a_hp: i64,
    /// A's attack: `1dDIE >= need` for `damage`.
    attack: (u32, u32, u32),
    prep: Prep,
    foe_hp: i64,
    claw: (u32, u32, u32),
    rounds: u32,
}

const SETUP: [Setup; 6] = [
    Setup { ap: 2, a_hp: 4, attack: (6, 6, 1), prep: Prep::Aim { bonus: 3 }, foe_hp: 3, claw: (6, 4, 1), rounds: 6 },
    Setup { ap: 3, a_hp: 3, attack: (8, 7, 1), prep: Prep::Aim { bonus: 4 }, foe_hp: 4, claw: (6, 4, 1), rounds: 5 },
    Setup { ap: 2, a_hp: 5, attack: (10, 9, 2), prep: Prep::Aim { bonus: 6 }, foe_hp: 4, claw: (6, 3, 1), rounds: 6 },
    Setup { ap: 1, a_hp: 3, attack: (6, 2, 1), prep: Prep::Charge { extra: 3 }, foe_hp: 5, claw: (6, 3, 1), rounds: 6 },
    Setup { ap: 1, a_hp: 4, attack: (4, 2, 1), prep: Prep::Charge { extra: 4 }, foe_hp: 6, claw: (6, 4, 1), rounds: 6 },
    Setup { ap: 2, a_hp: 3, attack: (6, 3, 1), prep: Prep::Charge { extra: 3 }, foe_hp: 7, claw: (6, 3, 1), rounds: 4 },
];

fn setup(p: &Setup) -> Made {
    let (d, n, dmg) = p.attack;
    let (cd, cn, cdmg) = p.claw;
    let (prep, attack, name, what, decision) = match p.prep {
        Prep::Aim { bonus } => (
            "condition aimed { lasts until turn_end }\naction aim { cost 1 ap; requires not self has aimed; resolve { apply aimed } }\n".to_string(),
            format!(
                "action shoot {{ cost 1 ap; target enemy; resolve {{ if 1d{d} + {bonus} * number(self has aimed) >= {n} {{ target.hp -= {dmg} }}; remove aimed }} }}\n"
            ),
            "shoot",
            format!("`aim` (1 AP) adds {bonus} to the next shot's roll this turn (a shot: 1d{d} >= {n} for {dmg})"),
            format!("aim (+{bonus}) before a shot needing 1d{d} >= {n}, or shoot with every one of {} AP", p.ap),
        ),
        Prep::Charge { extra } => (
            "condition charged\naction charge { cost 1 ap; requires not self has charged; resolve { apply charged } }\n".to_string(),
            format!(
                "action hit {{ cost 1 ap; target enemy; resolve {{ if 1d{d} >= {n} {{ target.hp -= {dmg} + {extra} * number(self has charged) }}; remove charged }} }}\n"
            ),
            "hit",
            format!("`charge` (1 AP) makes the next hit, now or in a later turn, do {extra} more (a hit: 1d{d} >= {n} for {dmg})"),
            format!("charge (+{extra} damage) before a hit of {dmg}, across turns with {} AP a turn, or hit every time", p.ap),
        ),
    };
    let what = format!(
        "A has {ap} AP a turn and {a_hp} hp against a foe of {foe_hp} hp that claws once a turn (1d{cd} >= {cn} for \
         {cdmg}); {what}. Good play sets up before attacking; Greedy and Aggressive never do.",
        ap = p.ap,
        a_hp = p.a_hp,
        foe_hp = p.foe_hp,
    );
    let body = format!(
        "stat ap_max = {ap}\npool ap {{ max ap_max; refresh at turn_start }}\n{prep}{attack}{claw}",
        ap = p.ap,
        claw = claw(cd, &cn.to_string(), &cdmg.to_string(), false),
    );
    let prep_name = match p.prep {
        Prep::Aim { .. } => "aim",
        Prep::Charge { .. } => "charge",
    };
    let scenario = scenario(
        p.rounds,
        &[
            hero(&[("speed", 2), ("hp_max", p.a_hp)], &[prep_name, name]),
            Who {
                name: "Foe",
                side: "foes",
                stats: &[("speed", 1), ("hp_max", p.foe_hp), ("ap_max", 0)],
                actions: &["claw"],
                controller: "Aggressive",
            },
        ],
    );
    (what, decision, body, scenario)
}

// ---------------------------------------------------------------------------------------------
// Baiting a foe's limited reaction.

struct Bait {
    ap: u32,
    a_hp: i64,
    /// The heavy blow: AP, damage (sure).
    heavy: (u32, u32),
    /// The jab: 1 AP, `1d6 >= need` for 1.
    jab_need: u32,
    /// The foe's parry: once a round, cancels an attack on `1d6 >= need`.
    parry_need: u32,
    foe_hp: i64,
    claw: (u32, u32, u32),
    rounds: u32,
}

const BAIT: [Bait; 6] = [
    Bait { ap: 3, a_hp: 4, heavy: (2, 3), jab_need: 3, parry_need: 1, foe_hp: 9, claw: (6, 3, 2), rounds: 5 },
    Bait { ap: 3, a_hp: 3, heavy: (2, 4), jab_need: 4, parry_need: 2, foe_hp: 10, claw: (6, 3, 2), rounds: 5 },
    Bait { ap: 4, a_hp: 4, heavy: (3, 5), jab_need: 2, parry_need: 1, foe_hp: 13, claw: (6, 3, 2), rounds: 4 },
    Bait { ap: 4, a_hp: 4, heavy: (3, 4), jab_need: 4, parry_need: 1, foe_hp: 11, claw: (6, 4, 2), rounds: 5 },
    Bait { ap: 3, a_hp: 4, heavy: (2, 4), jab_need: 5, parry_need: 3, foe_hp: 11, claw: (6, 3, 2), rounds: 5 },
    Bait { ap: 4, a_hp: 4, heavy: (3, 4), jab_need: 3, parry_need: 1, foe_hp: 9, claw: (6, 4, 2), rounds: 4 },
];

fn bait(p: &Bait) -> Made {
    let (cd, cn, cdmg) = p.claw;
    let (hc, hd) = p.heavy;
    let parry = if p.parry_need == 1 { "always".to_string() } else { format!("on 1d6 >= {}", p.parry_need) };
    let what = format!(
        "A has {ap} AP a turn and {a_hp} hp; `heavy` ({hc} AP) does a sure {hd}, `jab` (1 AP) 1 on 1d6 >= {jn}. The foe \
         ({foe_hp} hp) parries the first attack against it each round ({parry}) and claws once a turn (1d{cd} >= {cn} for \
         {cdmg}). Good play jabs first to draw the parry, then lands the heavy blow; Greedy and Aggressive open with the \
         heavy blow.",
        ap = p.ap,
        a_hp = p.a_hp,
        jn = p.jab_need,
        foe_hp = p.foe_hp,
    );
    let cancel =
        if p.parry_need == 1 { "cancel".to_string() } else { format!("if 1d6 >= {} {{ cancel }}", p.parry_need) };
    let body = format!(
        "stat ap_max = {ap}\npool ap {{ max ap_max; refresh at turn_start }}\ncategory attack\n\
         action heavy {{ category attack; cost {hc} ap; target enemy; resolve {{ target.hp -= {hd} }} }}\n\
         action jab {{ category attack; cost 1 ap; target enemy; resolve {{ if 1d6 >= {jn} {{ target.hp -= 1 }} }} }}\n{claw}\
         reaction parry {{ cost 0; on attack by enemy against self; interrupts; limit 1 per round; resolve {{ {cancel} }} }}\n",
        ap = p.ap,
        jn = p.jab_need,
        claw = claw(cd, &cn.to_string(), &cdmg.to_string(), false),
    );
    let scenario = scenario(
        p.rounds,
        &[
            hero(&[("speed", 2), ("hp_max", p.a_hp)], &["heavy", "jab"]),
            Who {
                name: "Foe",
                side: "foes",
                stats: &[("speed", 1), ("hp_max", p.foe_hp), ("ap_max", 0)],
                actions: &["claw", "parry"],
                controller: "Aggressive",
            },
        ],
    );
    let decision = format!("jab to draw the once-a-round parry, then the heavy blow ({hc} AP, {hd})");
    (what, decision, body, scenario)
}

// ---------------------------------------------------------------------------------------------
// Choosing among targets.

struct Target {
    ap: u32,
    a_hp: i64,
    /// A's strike: `1dDIE >= need` for `damage`.
    strike: (u32, u32, u32),
    /// The first foe, seated first (the one naive policies attack): hp, claw need on a d6, damage.
    tank: (i64, u32, u32),
    /// The second: hp, claw need on a d6, damage.
    danger: (i64, u32, u32),
    rounds: u32,
}

const TARGET: [Target; 6] = [
    Target { ap: 1, a_hp: 5, strike: (6, 2, 1), tank: (3, 4, 1), danger: (2, 3, 2), rounds: 6 },
    Target { ap: 2, a_hp: 4, strike: (6, 3, 1), tank: (4, 5, 1), danger: (2, 3, 2), rounds: 5 },
    Target { ap: 2, a_hp: 6, strike: (8, 4, 2), tank: (6, 4, 1), danger: (3, 2, 2), rounds: 5 },
    Target { ap: 1, a_hp: 4, strike: (4, 2, 1), tank: (2, 5, 1), danger: (2, 2, 1), rounds: 6 },
    Target { ap: 3, a_hp: 5, strike: (6, 4, 1), tank: (5, 4, 1), danger: (3, 3, 3), rounds: 5 },
    Target { ap: 2, a_hp: 5, strike: (6, 3, 2), tank: (8, 3, 1), danger: (4, 4, 3), rounds: 6 },
];

fn target(p: &Target) -> Made {
    let (d, n, dmg) = p.strike;
    let what = format!(
        "A has {ap} AP a turn and {a_hp} hp; a strike (1 AP) hits on 1d{d} >= {n} for {dmg}. The Brute ({th} hp) claws on \
         1d6 >= {tn} for {td}; the Sniper ({dh} hp) on 1d6 >= {dn} for {dd}. Good play takes the Sniper down first; naive \
         policies strike the Brute, the first enemy they find.",
        ap = p.ap,
        a_hp = p.a_hp,
        th = p.tank.0,
        tn = p.tank.1,
        td = p.tank.2,
        dh = p.danger.0,
        dn = p.danger.1,
        dd = p.danger.2,
    );
    let body = format!(
        "stat ap_max = {ap}\nstat claw_need = 4\nstat claw_damage = 1\npool ap {{ max ap_max; refresh at turn_start }}\n\
         action strike {{ cost 1 ap; target enemy; resolve {{ if 1d{d} >= {n} {{ target.hp -= {dmg} }} }} }}\n{claw}",
        ap = p.ap,
        claw = claw(6, "claw_need", "claw_damage", false),
    );
    let tank = [
        ("speed", 1),
        ("hp_max", p.tank.0),
        ("claw_need", p.tank.1 as i64),
        ("claw_damage", p.tank.2 as i64),
        ("ap_max", 0),
    ];
    let danger = [
        ("speed", 1),
        ("hp_max", p.danger.0),
        ("claw_need", p.danger.1 as i64),
        ("claw_damage", p.danger.2 as i64),
        ("ap_max", 0),
    ];
    let scenario = scenario(
        p.rounds,
        &[
            hero(&[("speed", 2), ("hp_max", p.a_hp)], &["strike"]),
            Who { name: "Brute", side: "foes", stats: &tank, actions: &["claw"], controller: "Aggressive" },
            Who { name: "Sniper", side: "foes", stats: &danger, actions: &["claw"], controller: "Aggressive" },
        ],
    );
    let decision = format!(
        "strike the Sniper ({} hp, {} a hit) before the Brute ({} hp, {} a hit)",
        p.danger.0, p.danger.2, p.tank.0, p.tank.2
    );
    (what, decision, body, scenario)
}

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

struct Choose {
    a_hp: i64,
    question: Question,
    foe_hp: i64,
    claw: (u32, u32, u32),
    rounds: u32,
}

const CHOOSE: [Choose; 6] = [
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

fn choose(p: &Choose) -> Made {
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

struct Pool {
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

const POOL: [Pool; 6] = [
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

fn pool(p: &Pool) -> Made {
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

struct Team {
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

const TEAM: [Team; 6] = [
    Team { ap: 2, hp: (6, 2), need: 3, help: Help::Guard, foes: (6, 4), claws: ((4, 1), (3, 2)), rounds: 5 },
    Team { ap: 3, hp: (5, 2), need: 4, help: Help::Guard, foes: (5, 4), claws: ((3, 1), (4, 2)), rounds: 5 },
    Team { ap: 2, hp: (7, 3), need: 3, help: Help::Guard, foes: (6, 4), claws: ((4, 2), (3, 2)), rounds: 6 },
    Team { ap: 3, hp: (4, 2), need: 4, help: Help::Guard, foes: (5, 4), claws: ((3, 1), (4, 2)), rounds: 5 },
    Team { ap: 3, hp: (4, 4), need: 4, help: Help::Mend { hp: 3 }, foes: (5, 4), claws: ((3, 1), (3, 2)), rounds: 5 },
    Team { ap: 3, hp: (6, 2), need: 3, help: Help::Guard, foes: (6, 5), claws: ((4, 1), (3, 2)), rounds: 6 },
];

fn team(p: &Team) -> Made {
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
