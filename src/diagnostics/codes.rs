//! Every diagnostic code, its stable name and its long explanation for `tempo explain`.
//! A code is never renamed once released: scripts and editors match on it.

macro_rules! codes {
    ($($variant:ident => $slug:literal, $explain:literal;)*) => {
        /// A stable diagnostic code. `tempo explain CODE` prints the long form.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant),* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The name without the `tempo::` prefix, e.g. `unknown-pool`.
            pub fn slug(self) -> &'static str {
                match self { $(Code::$variant => $slug),* }
            }

            /// The long explanation, with an example that shows the problem and the fix.
            pub fn explanation(self) -> std::borrow::Cow<'static, str> {
                let text: &'static str = match self { $(Code::$variant => $explain),* };
                // Lists the checker keeps in a table are filled in from it, so they cannot drift.
                if text.contains(FUNCTIONS_MARK) {
                    return text.replace(FUNCTIONS_MARK, &crate::check::function_forms()).into();
                }
                text.into()
            }
        }
    };
}

/// Stands in an explanation for the list of the functions the checker knows.
const FUNCTIONS_MARK: &str = "{functions}";

impl Code {
    /// The full code as shown to people and in JSON: `tempo::unknown-pool`.
    pub fn name(self) -> String {
        format!("tempo::{}", self.slug())
    }

    /// Codes found by `tempo run`, not by checking a `.rules` file.
    pub fn is_runtime(self) -> bool {
        matches!(self, Code::BadScenario | Code::BadIr | Code::TriggerCycle | Code::RuleFailed)
    }

    /// Accepts `tempo::unknown-pool` or `unknown-pool`.
    pub fn parse(text: &str) -> Option<Code> {
        let slug = text.strip_prefix("tempo::").unwrap_or(text);
        Code::ALL.iter().copied().find(|c| c.slug() == slug)
    }
}

codes! {
    Syntax => "syntax", "The file does not follow the grammar of the rules language at this point. The message \
says what could come here instead.

Example:

    pool ap {
      max 3 +
    }

`max 3 +` needs a value after `+`. Fix: `max 3 + finesse_mod`.";

    TooDeep => "too-deep", "Brackets, parentheses or braces are nested deeper than the language allows (20 \
levels), `else if` is chained more often than it allows, or a chain of `extends` is longer than 32 files. \
Real rulesets never come close; this protects the tool from files that would exhaust its stack.

Example:

    stat x = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))...

Fix: write the expression without the extra brackets, or split it into `derive` values.";

    NotText => "not-text", "The file is not UTF-8 text (it may be a binary file, or saved in another encoding). \
Rules files are plain UTF-8 text.

Example: running `tempo check picture.png`.

Fix: check the file name, or re-save the file as UTF-8.";

    EmptyFile => "empty-file", "The file is empty or holds only comments. Every rules file starts with a header \
naming the ruleset.

Example: an empty `duel.rules`.

Fix:

    ruleset duel
    pool ap { max 3; refresh at turn_start }";

    NumberTooLarge => "number-too-large", "A number does not fit in the integers the tool computes with (64-bit, \
up to 9223372036854775807), or a dice expression has an absurd count or size.

Example:

    stat hp = 99999999999999999999

Fix: use a smaller number. Dice are limited to 1000 dice of at most 1000000 sides.";

    UnreadableFile => "unreadable-file", "A file named on the command line could not be read (missing, a folder, \
or no permission). The tool exits with code 2.

Example: `tempo check rulesets/frontier.rules` when the file is `frontiers.rules`.

Fix: check the path.";

    FileTooLarge => "file-too-large", "A rules file is larger than tempo reads (16 MiB). Compiling takes \
memory in proportion to the source, so the limit keeps a compile well under a gigabyte; real rulesets \
are a few dozen kilobytes, and a file this size is usually not the file meant.

Example: `tempo check huge.rules` on a 50 MB generated file.

Fix: split the ruleset into files that `extends` each other, or check the path.";

    OutsideFolder => "outside-folder", "`extends` names a file outside the folder of the file given on the \
command line (and its subfolders); or a test file (`tempo test`) names a ruleset or scenario file \
outside the folder given to `tempo test` (for a test file given directly, its folder), or a golden \
trace outside its own folder. Links are followed before the check. A ruleset is checked and run from its own folder, so a path that \
climbs out of it (`../`, an absolute path) is refused by default: a shared or downloaded ruleset must \
not read other files on the machine (and show their lines in its errors).

Example:

    ruleset mine
    extends \"../../etc/base.rules\"

Fix: keep the base beside the file, or in a subfolder; or, when you mean it, pass `--allow-outside` \
(to `check`, `compile`, `run`, `sim`, `compare` and `fmt`).";

    BlessRefused => "bless-refused", "`tempo test --bless` would have written a golden trace over a file \
it must not change: a test file, a ruleset or any file of its `extends` chain, a scenario file, a file \
named like one (`.rules`, `.ron`), a file with other hard links, a folder or a device; or two tests \
name one golden file and this run's traces for them differ. Every golden trace is looked at before \
any is written, so when one is refused nothing is written, and the run fails.

Example: a test of `frontiers-two-ap.rules` (which extends `frontiers.rules`) with
`golden: \"frontiers.rules\"`.

Fix: give each test its own golden file, named `NAME.trace`, beside the test.";

    MissingBase => "missing-base", "The file `extends` a base file that cannot be found. The path is relative to \
the file that names it.

Example:

    ruleset two_ap extends \"frontier.rules\"

Fix: `ruleset two_ap extends \"frontiers.rules\"`.";

    ExtendsCycle => "extends-cycle", "Files extend each other in a circle (or a file extends itself), so there is \
no base to start from.

Example: `a.rules` says `extends \"b.rules\"` and `b.rules` says `extends \"a.rules\"`.

Fix: one of them must be the base and extend nothing.";

    Duplicate => "duplicate-definition", "Two declarations in the same ruleset have the same name, or one \
declaration has the same clause twice. The second is reported; the first is shown beside it.

Example:

    pool ap { max 3 }
    pool ap { max 4 }

Fix: rename one, or delete one. In a variant, change the base's pool with `override pool ap { max 4 }`.";

    UnknownPool => "unknown-pool", "A name is used as a pool, but no pool has that name (in this file or the \
files it extends).

Example:

    action strike { cost 2 apx }

Fix: `cost 2 ap`, or declare the pool: `pool apx { max 3 }`.";

    UnknownCondition => "unknown-condition", "A name is used as a condition (`apply`, `has`, `implies`, \
`unless self has ...`), but no condition has that name.

Example:

    reaction dodge { requires not self has unconsious }

Fix: `requires not self has unconscious`, or declare `condition unconscious { blocks actions }`.";

    UnknownName => "unknown-name", "A name in an expression is not a stat, derived value, pool or built-in value.

Example:

    derive defense = 10 + agilty

Fix: `derive defense = 10 + agility`, or declare `stat agility = 0`. Built-in values: `round`, \
`own_turn`, `final_turn`, `self`, `target`, `actor`, `trigger`.";

    UnknownEvent => "unknown-event", "An `on` clause or `emit` names something that is not an action, a \
category, an action kind or a declared event.

Example:

    reaction dodge { on atack against self }

Fix: `on attack against self`, or declare `event atack` if it is a new event.";

    UnknownTiming => "unknown-timing", "A timing point is not one the runner knows. Timings: encounter_start, \
encounter_end, round_start, round_end, turn_start, turn_end, phase_start(PHASE), phase_end(PHASE).

Example:

    pool ap { refresh at turnstart }

Fix: `refresh at turn_start`.";

    TimingAnswer => "timing-answer", "A reaction, trigger or gain answers a timing (`on turn_end`, \
`on round_start`, `on phase_start(act)`) in a way a timing cannot be answered. A timing is answered after \
its own work (pool steps, conditions, hooks) and is never cancelled, so it takes no `interrupts`, `cancel`, \
`redirect` or `trigger.amount`; it has no target, so no `against` and no `victim`; only `turn_start` and \
`turn_end` have an actor (whose turn it is), so only they take `by`, `actor`, or a reaction aimed at \
someone other than `self`; and nothing answers `encounter_end`, for the encounter is over.

Example:

    reaction counteract { on round_start by enemy; resolve { } }

Fix: a round begins for nobody in particular: `on round_start`, or answer whose turn it is with \
`on turn_start by enemy`. For work at the end of the encounter, write a hook: `at encounter_end { ... }`.";

    UnknownPhase => "unknown-phase", "A timing names a phase that the round does not have.

Example:

    round { phase act: turns }
    at phase_end(upkeep) { hp += 1 }

Fix: add the phase to the round, or name an existing one: `at phase_end(act)`.";

    UnknownAction => "unknown-action", "A limit or `remove` names an action, category or kind that does not \
exist.

Example:

    limit reactoin: 1 per round

Fix: `limit reaction: 1 per round`.";

    UnknownOption => "unknown-option", "A word is not one of the choices this place accepts, such as an \
initiative order, a tie-break, a priority step, a target, or a chooser.

Example:

    initiative { order highest }

Fix: `order highest_first`. The help lists the accepted words.";

    UnknownFunction => "unknown-function", "A call names a function the language does not have. Functions: \
{functions}.

Example:

    derive half = half(energy_max)

Fix: `derive half = energy_max / 2` (division rounds down).";

    OverrideUnknown => "override-unknown", "An `override` or `remove` names something the base ruleset does not \
have, so there is nothing to change.

Example:

    ruleset two_ap extends \"frontiers.rules\"
    override pool apx { max 2 }

Fix: `override pool ap { max 2 }`. To add something new, leave out `override`.";

    NeedsOverride => "needs-override", "A variant declares something its base already has, without `override`. \
Saying `override` makes the change deliberate.

Example:

    ruleset two_ap extends \"frontiers.rules\"
    pool ap { max 2 }

Fix: `override pool ap { max 2 }`.";

    OverrideWithoutBase => "override-without-base", "`override` or `remove` is used in a ruleset that extends \
nothing.

Example:

    ruleset duel
    override pool ap { max 2 }

Fix: add `extends \"base.rules\"` to the header, or drop `override`.";

    TypeMismatch => "type-mismatch", "A yes/no condition is used where a number is needed, or a number where a \
condition is needed.

Example:

    action strike { requires ap }

Fix: `requires ap >= 1`.";

    WrongArity => "wrong-arity", "A function is called with the wrong number of values.

Example:

    derive x = min(a)

Fix: `derive x = min(a, b)`.";

    BadDice => "bad-dice", "Dice must have at least one side and be rolled at least once.

Example:

    initiative { value 1d0 }

Fix: `value 1d10`.";

    BadCountCall => "bad-count-call", "`count(...)` counts one of two things: the dice of a pool that meet a \
test (`count(12d6 >= 5)`, `count(dice(skill, 10) >= 8)`: the left side of the test must be dice), or the \
participants of a relation for whom a condition holds (`count(ally, hp > 0)`, `count(enemy)`: the first value \
must be a relation: self, ally, enemy, other, any, player, non_player).

Example:

    derive hits = count(skill >= 5)

`skill` is not a pool of dice. Fix: `count(dice(skill, 6) >= 5)`.";

    DivisionByZero => "division-by-zero", "An expression divides by a value that is always zero.

Example:

    derive half = energy_max / 0

Fix: divide by a non-zero number.";

    MissingDeclaration => "missing-declaration", "A ruleset that others can run needs a `round` (what phases a \
round has) and an `initiative` block, in the file or in the base it extends.

Example:

    ruleset duel
    pool ap { max 3; refresh at turn_start }

Fix: add `round { phase act: turns }` and `initiative { value 0; order highest_first }`.";

    MisplacedClause => "misplaced-clause", "A clause or value is used where it has no meaning: `interrupts` on \
something that answers no event, `on` on an ordinary action, `target` where the action has no target, `pay` \
outside `maintain`, a reaction without an `on` clause, movement paid `per zone` without `space zones`.

Example:

    reaction dodge { cost 1 ap }

Fix: say what it answers: `reaction dodge { cost 1 ap; on attack against self }`.";

    UnknownEffect => "unknown-effect", "`do` names an effect that no `effect` declares (in this file or \
the files it extends).

Example:

    action strike { resolve { do strike_rol } }

Fix: name a declared effect (`do strike_roll`), or declare it: `effect strike_roll { ... }`.";

    EffectCycle => "effect-cycle", "Effects use each other in a circle (`do a` inside `a`, or `a` uses `b` \
and `b` uses `a`), so they would never finish.

Example:

    effect a { do b }
    effect b { do a }

Fix: write the repeated part once, as a `repeat while` loop.";

    UnknownPile => "unknown-pile", "A name is used as a pile (`draw`, `move ... from PILE to PILE`, \
`PILE has KIND`, `count(PILE)`) or as the set a pile holds (`pile NAME of SET`), but no `pile` or \
`items` declares it; or items are moved between piles of two different sets.

Example:

    items cards { strike x2, dash }
    pile deck of cards { starts full }
    hook deal at encounter_start { draw 3 from deck to hnad }

Fix: name a declared pile (`pile hand of cards`), or declare it.";

    UnknownItem => "unknown-item", "A kind of item is named (`move KIND from ...`, `PILE has KIND`, \
`count(PILE, KIND)`) that the pile's set of items does not list.

Example:

    items cards { strike x2, dash }
    pile hand of cards
    action strike { requires hand has strke; resolve { } }

Fix: name a kind the set lists, or add it to the set: `items cards { strike x2, dash, strke }`.";

    NestedLoop => "nested-loop", "A `for each` loop is written inside another one (directly, or through a `do` of \
an effect that holds one). Loops over participants do not nest: each pass of the outer loop would run the whole \
inner loop, and the work would grow with the square of the table.

Example:

    action rally {
      resolve {
        for each ally {
          for each enemy within 2 { target.hp -= 1 }
        }
      }
    }

Fix: write the inner work once, for the outer loop's `target` (`for each ally { target.morale += 1 }`); to \
read others from inside, count them (`count(enemy, distance(target) <= 2)`), or `emit` an event that a trigger \
answers.";

    SharedPileOwner => "shared-pile-owner", "A pile declared `shared` is one pile for the whole encounter: \
every participant draws from it and moves items to it. Naming it as someone's (`target.deck`, `actor.deck`) \
still names that one pile, which reads as if each participant had its own. A warning: write the pile's name \
alone, or drop `shared` to give each participant a pile of its own. (A pile is `shared` or `per side`, not \
both: the second word is `tempo::misplaced-clause`.)

Example:

    items cards { ace, king, queen }
    pile deck of cards { shared; starts full }
    pile hand of cards
    action deal {
      target ally
      resolve { draw 1 from target.deck to target.hand }
    }

Fix: `draw 1 from deck to target.hand`: the target draws from the one table deck.";

    UnnumberedItem => "unnumbered-item", "The numbers of a pile's items are read (`value(PILE)`, \
`highest(PILE)`, `lowest(PILE)`, `move highest from ...`, `move lowest from ...`), but the pile's set of \
items gives its kinds no numbers; or a set gives some of its kinds a number and not others. A set gives \
every kind a number (`KIND = N`, after its `xN`), or none.

Example:

    items cards { two, three, king }
    pile hand of cards
    initiative { value highest(hand) }

Fix: give each kind its number: `items cards { two = 2, three = 3, king = 13 }`.";

    UnknownObject => "unknown-object", "A name is used as a kind of object (`holds`, `take`, `handle`, \
`drop`, `handlers(...)`), but no `object` declares it.

Example:

    action pick_up { resolve { take sword within 1 } }

Fix: name a declared object, or declare it: `object sword \"Sword\"`.";

    BadRoll => "bad-roll", "A named roll throws something that is not dice. `roll NAME = DICE` throws \
dice joined by `+`: `NdM`, `dice(COUNT, SIDES)`, or `dice(COUNT, DIE)` for a declared `die` with custom \
faces.

Example:

    resolve { roll attack = attack_pool * 2 }

Fix: `roll attack = dice(attack_pool * 2, 6)`.";

    UnknownRoll => "unknown-roll", "`count(NAME ...)` names a roll that is not rolled at this place. A \
roll (`roll attack = 12d6`) is read by the counts after it in its own block, and in the blocks inside \
that one; once its block has ended, its dice are gone.

Example:

    resolve {
      if attack_pool > 0 { roll attack = dice(attack_pool, 6) }
      hits = count(attack >= 5)
    }

Fix: count it in its block: `if attack_pool > 0 { roll attack = dice(attack_pool, 6); hits = count(attack >= 5) }`.";

    UnknownSymbol => "unknown-symbol", "`count(ROLL, SYMBOL)` counts how often a symbol shows on the faces of \
a roll's dice, but none of its dice shows that symbol (or the roll has no dice with custom faces).

Example:

    die boost \"Boost\" { faces: -, -, success, success advantage, advantage advantage, advantage }
    resolve { roll check = dice(2, boost); hits = count(check, succes) }

Fix: name a symbol one of its dice shows: `count(check, success)`.";

    UnknownDie => "unknown-die", "`dice(COUNT, NAME)` in a roll names neither a value (the sides of \
numbered dice) nor a declared `die`, and is close to the name of a die.

Example:

    die boost \"Boost\" { faces: -, -, success, success advantage, advantage advantage, advantage }
    resolve { roll check = dice(2, bost) }

Fix: `roll check = dice(2, boost)`.";

    UnknownDegrees => "unknown-degrees", "A check or `default degrees` names degrees of success that are not \
declared.

Example:

    check 1d20 + skill vs 15 degrees pf3 { critical_success { ... } }

Fix: name declared degrees (`degrees pf2`), or declare them: `degrees pf3 { ... }`.";

    BadDegrees => "bad-degrees", "A `degrees` declaration cannot grade every roll. Its levels are tried \
best first and a roll reaches the first whose `when` holds, so: it needs at least one `success` and \
one `failure` level, every success level comes before every failure level, the last level has no \
`when` (it takes every roll the others left), and no other level may leave out its `when` (the \
levels after it could never be reached).

Example:

    degrees pf2 {
      success: success
      critical_success: success when margin >= 10
      failure: failure
    }

`critical_success` comes after a level without `when`, so no roll reaches it. Fix: best first,
every level but the last with its `when`:

    degrees pf2 {
      critical_success: success when margin >= 10
      success: success when margin >= 0
      failure: failure
    }";

    CyclicDerive => "cyclic-derive", "Derived values depend on each other in a circle, so none can be computed. \
The same holds for a pool's `max` or `min` that reads itself (`max max`, `max p.max`), or two pools \
whose maxima name each other.

Example:

    derive a = b + 1
    derive b = a + 1

Fix: make one of them depend only on stats and pools.";

    BadCount => "bad-count", "A number that counts something is out of its range: the hours between \
downtime, a rest's hours, a duration in rounds and an action's rounds must be at least 1; a limit's \
amount must be at least 0 (0 forbids the action); a hidden phase's `picks` are 1 to 50.

Example:

    condition dazed { lasts for -3 rounds }

Fix: write the count you meant, e.g. `lasts for 3 rounds`.";

    EmptyRange => "empty-range", "A pool's minimum is above its maximum, or a range's low end is above its high \
end, so no value fits.

Example:

    pool rage { max 3; min 5 }

Fix: `min 0` (or leave it out: the floor is 0).";

    Unaffordable => "unaffordable", "Warning: an action costs more of a pool than the pool can ever hold, so no \
participant can ever declare it (with the stats' default values).

Example:

    pool ap { max 3; refresh at turn_start }
    action meteor { cost 4 ap }

Fix: lower the cost, raise the pool's max, or give the pool overspend.";

    NeverRefilled => "never-refilled", "Warning: a pool is paid as a cost but nothing ever gives it back (no \
refresh, gain, downtime or effect that adds to it), so once spent it stays empty for the rest of the run. \
Only costs count as spending: a pool that effects lower (Hit Points taking damage) is not warned about.

Example:

    pool ap { max 3 }
    action strike { cost 1 ap }

Fix: `pool ap { max 3; refresh at turn_start }`.";

    AmbiguousName => "ambiguous-name", "Warning: a name in an `on` clause, a `limit` or an `adjust cost` \
is both an action and a category (or an action kind, or an event), so it could mean either. An `on` \
clause reads it as the action, a `limit` or `adjust cost` as the kind or category; a reaction meant \
for every attack would then answer only the action named `attack`.

Example:

    category attack
    action attack { category attack }
    action shoot { category attack }
    reaction dodge { on attack against self }

Fix: give the category and the action different names (`category physical_attack`).";

    UnusedPool => "unused-pool", "Warning: a pool is declared but nothing reads it or spends it: no cost, effect, \
condition, limit or other pool names it. Its own clauses may still change it (`gain 1 on hit`, `refresh at \
turn_start`); the warning then says so, for what they change is read by nothing.

Example:

    pool focus { max 2 }

Fix: use it in a cost or an effect, or delete it.";

    BadScenario => "scenario", "Running: the scenario does not fit the ruleset: it names a stat, pool, condition, \
action, participant or rest the ruleset does not have, or it is not valid RON. Every problem is listed.

Example: a scenario participant with `stats: {\"finese_mod\": 2}` for a ruleset with `stat finesse_mod`.

Fix: use the ruleset's names (`tempo compile` shows them), e.g. `stats: {\"finesse_mod\": 2}`.";

    BadIr => "bad-ir", "Running: a compiled `.ron` IR cannot be run: it was written by another version of \
tempo (its `format_version` differs), it is not RON of the IR's shape, or it was edited or damaged (an \
index that points past its list, a pool maximum or derived value that depends on itself, dice beyond \
the compiler's limits). The runner checks the whole IR before running it.

Example: `tempo run old.ron duel.ron` with `old.ron` compiled by an earlier tempo.

Fix: compile the `.rules` file again (`tempo compile RULES -o OUT.ron`); do not edit the IR by hand.";

    TriggerCycle => "trigger-cycle", "Running: rules kept triggering each other, so the run was stopped by its step \
budget (200,000 steps a cascade) instead of hanging. The message names the rules in the cycle; for a \
`repeat while` (or loops inside loops) that keeps going inside one rule, that rule. The same code \
stops a cascade that throws more than 1,000,000 dice (a loop that rolls), naming the rule.

Example:

    event ping
    event pong
    trigger a { on ping; resolve { emit pong } }
    trigger b { on pong; resolve { emit ping } }

Fix: make one of them stop: a limit (`limit 1 per round`), a requirement, or a cost.";

    RuleFailed => "rule-failed", "Running: a rule could not be applied, for example a value overflowed, a division \
by zero happened, or `target` was read where the action had none.

Example: `derive huge = hp_max * 9223372036854775807`, read during the run.

Fix: the message names the problem; change the rule so the value stays in range.";

    OverrideNoChange => "override-no-change", "Warning: an `override` in a variant states exactly what the base \
already says, so it changes nothing.

Example:

    ruleset same extends \"frontiers.rules\"
    override pool ap { max 3 }

Fix: delete the override, or change the value you meant to change.";

    DiceName => "dice-name", "A declared name is spelled as a die: `d` and digits (`d6`, `d20`, `d2`). In an \
expression such a word is always read as dice (`d6` rolls 1d6), so a stat, pool, item kind or anything \
else named so could never be read by its name: `value d6` would roll a die, `count(hand, d2)` would count \
dice, not the item.

Example:

    stat d6 = 3
    items dice { d2, d4 }

Fix: rename it so it does not read as a die: `stat die_six = 3`, `items dice { two_sided, four_sided }`.";

    AmountNotEmitted => "amount-not-emitted", "Warning: a rule reads `amount(EVENT)` where it may not have \
emitted `EVENT` itself: the read is not after an `emit EVENT(...)` that always runs before it in the same \
rule (the emit is inside an `if`, a `check` outcome, a `choose` or a loop, or after the read, or in \
another rule). `amount(EVENT)` reads what `EVENT` ended with in this rule's own cascade (the declaration, \
timing or hour it is part of), and 0 when the cascade did not emit it: on a miss, the damage a hit would \
have emitted is 0, not what an earlier attack emitted.

Example:

    action swing {
      target enemy
      resolve {
        check 1d20 vs 11 { success { emit incoming(5) } }
        target.hp -= amount(incoming)
      }
    }

Fix: read the amount where the emit surely ran, in the same block after it: `check 1d20 vs 11 { success { \
emit incoming(5); target.hp -= amount(incoming) } }`. A reaction or trigger that answers the event reads \
its amount as `trigger.amount`.";

    NotSidePool => "not-side-pool", "`enemy_side` names the opposing side, and a side holds only the pools \
kept `per side` (one value for each side, such as command points): `enemy_side.NAME` reads or changes the \
other side's value of such a pool. It is refused on a pool each participant holds (or a `shared` one), on \
anything that is not a pool, and where a participant is wanted (`distance(enemy_side)`, `enemy_side has \
prone`).

Example:

    pool cp { start 2 }
    action deny { cost 1 ap; resolve { enemy_side.cp -= 1 } }

Fix: keep the pool per side, `pool cp { per side; start 2 }`; or, to change one participant's pool, name \
the participant: `target.cp -= 1`.";

    GrantMisuse => "grant-misuse", "`grants turn { ... }` gives a reaction's reactor a turn of its own once \
the reaction resolves: only a reaction grants a turn, and the turn's budget names pools the reactor holds \
(not a `shared` or `per side` pool, whose value is not the reactor's), each once; each kind of `limit` \
(`move`, `actions`) is written once.

Example:

    action rally { cost 1 ap; grants turn { ap = 1 } }

Fix: make it a reaction that says what it answers: `reaction counteract { on turn_end by enemy; grants \
turn { ap = 1; limit move 2 } }`.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_and_has_an_example() {
        for &code in Code::ALL {
            assert_eq!(Code::parse(&code.name()), Some(code));
            assert!(code.explanation().contains("Example"), "{} lacks an example", code.slug());
        }
    }
}
