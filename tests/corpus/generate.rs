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

/// What a template makes: what the case tests (its comment), the decision that matters, the
/// body of the ruleset after the common part, and the scenario.
type Made = (String, String, String, String);

mod kinds;
use kinds::{choose, pool, team, CHOOSE, POOL, TEAM};

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
