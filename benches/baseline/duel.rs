//! The Frontiers duel, written by hand: the program `tempo run` is measured against.
//!
//! It plays exactly one encounter, the one `scenario` describes, under `rulesets/frontiers.rules`:
//! two participants with a million Hit Points and 1 damage, side by side, each deciding as the
//! `HoldBack(pool: "ap", keep: 1, spend_on_reactions: true)` policy does. Every rule is a line of code here, not data: it
//! knows which pools exist, which change, and when. It rolls the same ChaCha8 dice in the same
//! order and writes the same JSON lines, byte for byte (`tests/baseline.rs` checks that), so the
//! two programs do the same work and differ only in how they are built.
//!
//! What the ruleset says, and what this duel therefore does each turn:
//! - `ap` (3) and `mp` (3) refresh at the start of the turn; `mp` is lost at its end; both are lost
//!   when the encounter ends. `energy`, `fatigue` and `wounds` never change here.
//! - The policy attacks while that leaves it at least 1 AP, takes its one free `draw` a round,
//!   and ends the turn.
//! - An attack rolls 1d20 against the target's Physical Defense (10, no Wounds here) and deals
//!   `damage` on a success. Hit or miss, the target answers with `riposte` (1 AP, 1 damage back)
//!   while it has an AP.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::io::{self, Write};

/// Both participants' Hit Points: nobody drops in any encounter this program plays.
const HP: i64 = 1_000_000;
const AP_MAX: i64 = 3;
const MP_MAX: i64 = 3;
const ENERGY: i64 = 6;
const DEFENSE: i64 = 10;
const KEEP: i64 = 1;

/// Where the rules that act here are written in `rulesets/frontiers.rules`: the `rule` field of
/// the events they cause (contracts.md, "Traces").
const INITIATIVE: &str = "rulesets/frontiers.rules:174:1";
const AP_REFRESH: &str = "rulesets/frontiers.rules:50:3";
const AP_LOSE_AT_END: &str = "rulesets/frontiers.rules:60:3";
const MP_REFRESH: &str = "rulesets/frontiers.rules:67:3";
const MP_LOSE_AT_TURN_END: &str = "rulesets/frontiers.rules:71:3";
const MP_LOSE_AT_END: &str = "rulesets/frontiers.rules:72:3";
/// `default cost 1 ap`, which `attack` pays.
const DEFAULT_COST: &str = "rulesets/frontiers.rules:206:1";
const ATTACK: &str = "rulesets/frontiers.rules:218:1";
const DRAW: &str = "rulesets/frontiers.rules:252:1";
const RIPOSTE: &str = "rulesets/frontiers.rules:255:1";
const RIPOSTE_COST: &str = "rulesets/frontiers.rules:256:3";

/// The scenario this program plays, for `tempo run rulesets/frontiers.rules`.
pub fn scenario(seed: u64, rounds: u32) -> String {
    let one = |name: &str, side: &str, position: i64| {
        format!(
            "(name: \"{name}\", side: \"{side}\", stats: {{\"hp_max\": {HP}, \"damage\": 1}}, \
             position: {position}, controller: Policy(HoldBack(pool: \"ap\", keep: {KEEP}, spend_on_reactions: true))),"
        )
    };
    format!("(seed: {seed}, rounds: {rounds}, participants: [\n  {}\n  {}\n])\n", one("A", "a", 0), one("B", "b", 1))
}

struct Fighter {
    name: &'static str,
    ap: i64,
    mp: i64,
    hp: i64,
}

/// Writes the encounter's JSON lines to `out`; returns how many events it wrote.
pub fn play<W: Write>(seed: u64, rounds: u32, out: &mut W) -> io::Result<u64> {
    let mut duel = Duel { out, seq: 0, rng: ChaCha8Rng::seed_from_u64(seed) };
    let mut f =
        [Fighter { name: "A", ap: AP_MAX, mp: MP_MAX, hp: HP }, Fighter { name: "B", ap: AP_MAX, mp: MP_MAX, hp: HP }];
    duel.line(None, format_args!(r#""event":"encounter_start","participants":["A","B"]"#), None)?;
    // Equal initiative and equal finesse: the GM breaks the tie in the scenario's order.
    duel.line(
        None,
        format_args!(r#""event":"choice","who":"GM","question":"tie in initiative","answer":"A, B""#),
        Some(INITIATIVE),
    )?;
    duel.line(None, format_args!(r#""event":"initiative","order":["A","B"],"values":{{"A":5,"B":5}}"#), None)?;
    for round in 1..=rounds {
        let r = Some(round);
        duel.line(r, format_args!(r#""event":"round_start""#), None)?;
        duel.line(r, format_args!(r#""event":"phase_start","phase":"encounter""#), None)?;
        for actor in 0..2 {
            duel.turn(r, &mut f, actor)?;
        }
        duel.line(r, format_args!(r#""event":"phase_end","phase":"encounter""#), None)?;
        duel.line(r, format_args!(r#""event":"round_end""#), None)?;
    }
    for x in &mut f {
        duel.pool(None, x.name, "ap", &mut x.ap, 0, "lose at encounter_end", AP_LOSE_AT_END)?;
        duel.pool(None, x.name, "mp", &mut x.mp, 0, "lose at encounter_end", MP_LOSE_AT_END)?;
    }
    let state = |x: &Fighter| {
        format!(
            r#""{}":{{"pools":{{"ap":{},"energy":{ENERGY},"fatigue":0,"hp":{},"mp":{},"wounds":0}},"conditions":[]}}"#,
            x.name, x.ap, x.hp, x.mp
        )
    };
    duel.line(
        None,
        format_args!(
            r#""event":"encounter_end","reason":"the round limit ({rounds}) was reached","state":{{{},{}}}"#,
            state(&f[0]),
            state(&f[1])
        ),
        None,
    )?;
    Ok(duel.seq)
}

struct Duel<'w, W> {
    out: &'w mut W,
    seq: u64,
    rng: ChaCha8Rng,
}

impl<W: Write> Duel<'_, W> {
    /// Writes one event; `rule` is where the rule that caused it is written.
    fn line(&mut self, round: Option<u32>, rest: std::fmt::Arguments<'_>, rule: Option<&str>) -> io::Result<()> {
        match round {
            Some(r) => write!(self.out, r#"{{"seq":{},"round":{r},{rest}"#, self.seq)?,
            None => write!(self.out, r#"{{"seq":{},"round":null,{rest}"#, self.seq)?,
        }
        match rule {
            Some(rule) => writeln!(self.out, r#","rule":"{rule}"}}"#)?,
            None => writeln!(self.out, "}}")?,
        }
        self.seq += 1;
        Ok(())
    }

    /// Sets a pool, writing the change if there is one.
    #[allow(clippy::too_many_arguments)]
    fn pool(
        &mut self,
        r: Option<u32>,
        who: &str,
        pool: &str,
        value: &mut i64,
        to: i64,
        cause: &str,
        rule: &str,
    ) -> io::Result<()> {
        if *value == to {
            return Ok(());
        }
        let from = std::mem::replace(value, to);
        self.line(
            r,
            format_args!(r#""event":"pool","who":"{who}","pool":"{pool}","from":{from},"to":{to},"cause":"{cause}""#),
            Some(rule),
        )
    }

    fn turn(&mut self, r: Option<u32>, f: &mut [Fighter; 2], actor: usize) -> io::Result<()> {
        let target = 1 - actor;
        let (me, them) = (f[actor].name, f[target].name);
        self.line(r, format_args!(r#""event":"turn_start","actor":"{me}""#), None)?;
        self.pool(r, me, "ap", &mut f[actor].ap, AP_MAX, "refresh at turn_start", AP_REFRESH)?;
        self.pool(r, me, "mp", &mut f[actor].mp, MP_MAX, "refresh at turn_start", MP_REFRESH)?;
        while f[actor].ap > KEEP {
            // An attack costs 1 AP and must leave `KEEP` for a riposte.
            let cause = if actor == 0 { "attack by A" } else { "attack by B" };
            self.line(
                r,
                format_args!(
                    r#""event":"action","actor":"{me}","action":"attack","kind":"action","targets":["{them}"],"paid":{{"ap":1}}"#
                ),
                Some(ATTACK),
            )?;
            let ap = f[actor].ap - 1;
            self.pool(r, me, "ap", &mut f[actor].ap, ap, cause, DEFAULT_COST)?;
            let roll = d20(&mut self.rng);
            self.line(r, format_args!(r#""event":"roll","who":"{me}","dice":"1d20","result":{roll}"#), Some(ATTACK))?;
            let outcome = if roll >= DEFENSE { "success" } else { "failure" };
            self.line(
                r,
                format_args!(r#""event":"check","who":"{me}","roll":{roll},"against":{DEFENSE},"outcome":"{outcome}""#),
                Some(ATTACK),
            )?;
            if roll >= DEFENSE {
                let hp = f[target].hp - 1;
                self.pool(r, them, "hp", &mut f[target].hp, hp, cause, ATTACK)?;
            }
            if f[target].ap >= 1 {
                let cause = if target == 0 { "riposte by A" } else { "riposte by B" };
                self.line(
                    r,
                    format_args!(r#""event":"trigger","source":"attack","reactor":"{them}","reaction":"riposte""#),
                    Some(RIPOSTE),
                )?;
                self.line(
                    r,
                    format_args!(
                        r#""event":"action","actor":"{them}","action":"riposte","kind":"reaction","targets":[],"paid":{{"ap":1}}"#
                    ),
                    Some(RIPOSTE),
                )?;
                let ap = f[target].ap - 1;
                self.pool(r, them, "ap", &mut f[target].ap, ap, cause, RIPOSTE_COST)?;
                self.line(r, format_args!(r#""event":"resolve","actor":"{them}","action":"riposte""#), Some(RIPOSTE))?;
                let hp = f[actor].hp - 1;
                self.pool(r, me, "hp", &mut f[actor].hp, hp, cause, RIPOSTE)?;
            }
        }
        self.line(
            r,
            format_args!(r#""event":"action","actor":"{me}","action":"draw","kind":"free","targets":[],"paid":{{}}"#),
            Some(DRAW),
        )?;
        self.pool(r, me, "mp", &mut f[actor].mp, 0, "lose at turn_end", MP_LOSE_AT_TURN_END)?;
        self.line(r, format_args!(r#""event":"turn_end","actor":"{me}""#), None)
    }
}

/// 1d20 as tempo rolls it: one 64-bit draw, redrawn in the biased top zone.
fn d20(rng: &mut ChaCha8Rng) -> i64 {
    const SIDES: u64 = 20;
    let zone = u64::MAX - (u64::MAX % SIDES);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return (x % SIDES) as i64 + 1;
        }
    }
}
