//! Words of the language as an editor sees them: tokens of a text (without parsing it, so a
//! half-typed file still has them), the keywords (read from the grammar, so they cannot drift
//! from it) and the built-in names.

use std::sync::OnceLock;

/// One word or number of a text, outside comments and strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

impl Token<'_> {
    /// A name (or keyword), not a number or dice.
    pub(crate) fn is_word(&self) -> bool {
        self.text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    }
}

/// The tokens of a text in order: names, numbers and single punctuation characters. Comments
/// and strings are skipped; nothing here fails on any input.
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b.is_ascii_alphanumeric() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token { text: &text[start..i], start, end: i });
        } else if b.is_ascii_punctuation() {
            out.push(Token { text: &text[i..i + 1], start: i, end: i + 1 });
            i += 1;
        } else {
            // Whitespace, or any byte of a non-ASCII character: never part of a token.
            i += 1;
        }
    }
    out
}

/// The word under (or just before) a byte offset, as the cursor of an editor sees it.
pub(crate) fn word_at(text: &str, offset: usize) -> Option<Token<'_>> {
    tokens(text).into_iter().find(|t| t.is_word() && t.start <= offset && offset <= t.end)
}

/// The path in `extends "PATH"`, read from the text without parsing it.
pub(crate) fn extends_path(text: &str) -> Option<&str> {
    let word = tokens(text).into_iter().find(|t| t.text == "extends")?;
    let rest = text[word.end..].trim_start().strip_prefix('"')?;
    rest.split(['"', '\n']).next()
}

/// Is this a valid name: letters, digits and `_`, not starting with a digit?
pub(crate) fn is_name(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Words that can never be names.
pub(crate) const RESERVED: [&str; 10] = ["and", "or", "not", "has", "is", "if", "else", "true", "false", "vs"];

/// Every keyword of the grammar (`kw_*` rules), sorted.
pub fn keywords() -> &'static [String] {
    static KEYWORDS: OnceLock<Vec<String>> = OnceLock::new();
    KEYWORDS.get_or_init(|| {
        let grammar = include_str!("../../grammar/tempo.pest");
        let mut words: Vec<String> = grammar
            .lines()
            .filter(|line| line.starts_with("kw_"))
            .filter_map(|line| line.split('"').nth(1))
            .map(str::to_string)
            .collect();
        words.sort();
        words.dedup();
        words
    })
}

/// What the grammar says about the rules a keyword starts: the `///` comment of every rule whose
/// body begins with that keyword (`refresh` → "`refresh at turn_start`: set to max ...").
pub(crate) fn keyword_docs(word: &str) -> Vec<String> {
    static DOCS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    let docs = DOCS.get_or_init(|| {
        let grammar = include_str!("../../grammar/tempo.pest");
        // `kw_free` → `free`.
        let words: Vec<(&str, &str)> = grammar
            .lines()
            .filter(|line| line.starts_with("kw_"))
            .filter_map(|line| Some((line.split_whitespace().next()?, line.split('"').nth(1)?)))
            .collect();
        let mut out = Vec::new();
        let mut doc: Vec<&str> = Vec::new();
        for line in grammar.lines() {
            if let Some(text) = line.strip_prefix("///") {
                doc.push(text.trim());
                continue;
            }
            let body = line.split_once("= {").or_else(|| line.split_once("= _{")).map(|(_, b)| b.trim_start());
            let first = body.and_then(|b| b.trim_start_matches('(').split_whitespace().next());
            if let Some(first) = first.filter(|f| f.starts_with("kw_") && !doc.is_empty()) {
                if let Some((_, word)) = words.iter().find(|(rule, _)| *rule == first.trim_end_matches(')')) {
                    out.push((word.to_string(), doc.join(" ")));
                }
            }
            doc.clear();
        }
        out
    });
    docs.iter().filter(|(w, _)| w == word).map(|(_, d)| d.clone()).collect()
}

pub(crate) fn is_keyword(word: &str) -> bool {
    RESERVED.contains(&word) || keywords().iter().any(|k| k == word)
}

/// The words that start a top-level declaration.
pub(crate) const TOP_LEVEL: [&str; 33] = [
    "title",
    "stat",
    "derive",
    "pool",
    "category",
    "event",
    "condition",
    "initiative",
    "round",
    "priority",
    "chains",
    "limit",
    "default",
    "action",
    "free",
    "reaction",
    "preparation",
    "activity",
    "trigger",
    "hook",
    "at",
    "space",
    "surprise",
    "downtime",
    "rest",
    "outro",
    "override",
    "remove",
    "effect",
    "degrees",
    "reach",
    "items",
    "pile",
];

/// Built-in names and what they mean, for hover and completion.
pub(crate) const BUILTINS: [(&str, &str); 46] = [
    ("last_check", "the total of a participant's most recent check (0 before any)"),
    ("last_critical", "whether a participant's most recent check was a critical (or reached the best level of its degrees)"),
    ("amount", "amount(EVENT): what the last `emit EVENT(AMOUNT)` of this cascade ended with, after its answers (0 when it emitted none); in an answer, `trigger.amount` reads and changes it"),
    ("enter_reach", "with `reach` declared: a voluntary step into someone's reach (actor: the mover; victim: whose reach)"),
    ("leave_reach", "with `reach` declared: a voluntary step out of someone's reach, answered before it is taken"),
    ("move_in_reach", "with `reach` declared: the first step of a move taken from a place within someone's reach"),
    ("natural", "inside `degrees`: the face of the die that counts in the roll being graded (0 when none was thrown)"),
    ("total", "inside `degrees`: the roll being graded, everything added up"),
    ("modifier", "inside `degrees`: what was added to the die that counts (`total - natural`)"),
    ("margin", "inside `degrees`: the roll's total minus what it is against (in a contest, the other roll's total)"),
    ("count_near", "count_near(relation, who, reach): how many standing participants of that relation are within their own reach of who"),
    ("count", "count(12d6 >= 5): rolls a pool of dice (`NdM` or `dice(count, sides)`) and counts the dice that meet the test, one trace line with every face; count(roll >= 5), count(roll, symbol): reads a named roll (`roll attack = 12d6`) of this block; count(pile[, kind]): how many items a pile holds, or of one kind (`count(hand)`, `count(hand, strike)`); count(relation, condition): how many participants of that relation meet the condition, each `self` inside it (`count(ally, hp > 0)`)"),
    ("value", "value(pile): the sum of the numbers of the items a pile holds (`items cards { two = 2, joker = 100 }`), 0 when empty; in `initiative`, `value EXPR` is each participant's initiative value"),
    ("highest", "highest(pile): the number of the pile's item of the highest number, 0 when empty; `move highest from PILE to PILE` moves that item"),
    ("lowest", "lowest(pile): the number of the pile's item of the lowest number, 0 when empty; `move lowest from PILE to PILE` moves that item"),
    ("number", "number(condition): 1 while the condition holds, else 0 (`number(self has prone)`)"),
    ("handlers", "handlers(object): how many hold the object of that kind that self holds (0 when self holds none)"),
    ("dice", "dice(count, sides): count dice of that many sides, both read as they are rolled (`dice(level, 6)`, `dice(1, weapon_die)`); 0 dice roll nothing; dice(count, die): that many dice with custom faces, of a declared `die`, in a named roll (`roll check = dice(2, ability)`)"),
    ("self", "the participant the rule runs for: the actor, the reactor, the pool's or condition's holder"),
    ("source", "whoever applied the condition (inside a condition and in a `while` duration)"),
    ("target", "the target of the action being resolved"),
    ("actor", "whoever did the event a reaction or trigger answers"),
    ("victim", "the target of the event a reaction or trigger answers"),
    ("enemy_side", "the opposing side, as the holder of pools and piles kept `per side`: `enemy_side.cp -= 1` changes the other side's command points, `draw 1 from enemy_side.deck to hand` draws from its deck (with more than two sides, the side of the first participant in the scenario who is not on self's)"),
    ("round", "the current round number, 1-based (0 before the first round)"),
    ("own_turn", "true during the owner's own turn"),
    ("final_turn", "true during the last turn of the current phase"),
    ("surprise_round", "true during a surprise round"),
    ("units", "the units (or zones) of movement the action being resolved paid for"),
    ("initiative", "a participant's current initiative value"),
    ("min", "`min(a, b, ...)`: the smallest of two or more numbers; in a pool's clauses, its minimum"),
    ("max", "`max(a, b, ...)`: the largest of two or more numbers; in a pool's clauses, its maximum"),
    ("abs", "`abs(a)`: `a` without its sign"),
    ("distance", "`distance(WHO)`: how far the participant `WHO` is from `self`; `distance(A, B)`: how far `A` and `B` are from each other"),
    ("encounter_start", "timing: an encounter begins; `on encounter_start` answers it after its hooks"),
    ("encounter_end", "timing: an encounter ends (nothing answers it with `on`: write `at encounter_end`)"),
    ("round_start", "timing: a round begins; `on round_start` answers it after its hooks, for everyone (no actor)"),
    ("round_end", "timing: a round ends; `on round_end` answers it after its hooks, for everyone (no actor)"),
    ("turn_start", "timing: a turn begins; `on turn_start by enemy` answers it after its own work, with whoever's turn it is as `actor`"),
    ("turn_end", "timing: a turn ends; `on turn_end by enemy` answers it after its own work, with whoever's turn it is as `actor`"),
    ("phase_start", "timing: `phase_start(PHASE)`, a named phase of the round begins; `on phase_start(PHASE)` answers it after its hooks"),
    ("phase_end", "timing: `phase_end(PHASE)`, a named phase of the round ends; `on phase_end(PHASE)` answers it after its hooks"),
    ("optional", "`maintain at TIMING optional { ... }`: the holder chooses each time whether to pay the upkeep (`pay` or `lapse`); letting it lapse ends the condition as an upkeep it could not pay"),
    ("ally", "relation: on the same side as the rule's owner"),
    ("enemy", "relation: on another side than the rule's owner"),
    ("other", "relation: anyone but the rule's owner"),
];

/// Timings (completion after `at`) and relations (after `target`, `by`, `against`, `is`): the
/// checker's own lists, so editors offer exactly what it accepts.
#[cfg_attr(not(feature = "lsp"), allow(unused_imports))]
pub use crate::check::{RELATIONS, TIMINGS};

pub fn builtin(word: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(w, _)| *w == word).map(|(_, meaning)| *meaning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_comments_and_strings() {
        let text = "pool ap \"Action \\\" ap\" { max 3 } # ap\ncost 2d6 ap";
        let words: Vec<&str> = tokens(text).iter().map(|t| t.text).collect();
        assert_eq!(words, ["pool", "ap", "{", "max", "3", "}", "cost", "2d6", "ap"]);
        assert_eq!(word_at(text, 6).map(|t| t.text), Some("ap"));
        assert_eq!(word_at(text, 7).map(|t| t.text), Some("ap"));
        assert_eq!(extends_path("ruleset x extends \"base.rules\"\npool"), Some("base.rules"));
        assert_eq!(extends_path("ruleset x extends"), None);
    }

    /// Hover describes every form of every function the checker accepts.
    #[test]
    fn hover_describes_every_function_form() {
        for (name, form) in crate::check::FUNCTIONS {
            let meaning = builtin(name).unwrap_or_default().to_lowercase();
            assert!(meaning.contains(form), "the hover of `{name}` does not describe `{form}`: {meaning}");
        }
    }

    #[test]
    fn keywords_come_from_the_grammar() {
        assert!(is_keyword("pool") && is_keyword("refresh") && is_keyword("vs"));
        assert!(!is_keyword("ap"));
        assert!(keywords().len() > 100);
        let refresh = keyword_docs("refresh");
        assert_eq!(refresh.len(), 1);
        assert!(refresh[0].starts_with("`refresh at turn_start`: set to max"), "{refresh:?}");
        assert_eq!(keyword_docs("remove").len(), 2);
        // `per side`: both words explained, and the word for the other side's pools.
        assert!(keyword_docs("side").iter().any(|d| d.contains("once for each side")), "{:?}", keyword_docs("side"));
        assert!(keyword_docs("per").iter().any(|d| d.starts_with("`per side`")));
        assert!(builtin("enemy_side").is_some_and(|m| m.contains("per side")));
        // `grants turn { ... }`: the clause and what its limits count.
        assert!(
            keyword_docs("grants").iter().any(|d| d.contains("gives its reactor a")),
            "{:?}",
            keyword_docs("grants")
        );
        assert!(keyword_docs("actions").iter().any(|d| d.contains("granted turn")), "{:?}", keyword_docs("actions"));
        assert!(keyword_docs("ap").is_empty());
    }
}
