//! Completion: keywords, and the names in scope (inherited ones too) of the kind the place
//! wants, found by looking at the words just before the cursor.

use super::analysis::{Chain, Declaration, Kind};
use super::documents::{Document, Documents};
use super::navigate::{chain, Text};
use super::words::{self, Token};
use super::RequestError;
use crate::check::load::normalize;
use crate::source::Span;
use crate::syntax::ast::ActionKind;
use lsp_types::{CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind, Position, Url};
use std::path::Path;

/// What the place before the cursor wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A new name is being declared: nothing to offer.
    Nothing,
    /// The start of a top-level declaration.
    TopLevel,
    /// Names of these kinds.
    Names(&'static [KindSet]),
    Timings,
    /// What an `on` answers: actions, categories, events, and the timings (`on turn_end`).
    Answered,
    Relations,
    Participants,
    /// One of these words (`order WORD`).
    Words(&'static [&'static str]),
    /// `remove ...` at the top level: the kind of declaration.
    DeclKinds,
    /// The first value of `count(`: a roll of the open blocks, a pile, a relation, or dice.
    Count,
    /// Anything an expression or a clause may start with.
    Anything,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KindSet {
    Pool,
    Condition,
    Event,
    Category,
    Actions,
    Phase,
    Values,
    Die,
    Of(&'static str),
}

impl KindSet {
    fn holds(self, kind: Kind) -> bool {
        match self {
            KindSet::Pool => kind == Kind::Pool,
            KindSet::Condition => kind == Kind::Condition,
            KindSet::Event => kind == Kind::Event,
            KindSet::Category => kind == Kind::Category,
            KindSet::Actions => matches!(kind, Kind::Action(_) | Kind::Trigger),
            KindSet::Phase => kind == Kind::Phase,
            KindSet::Values => matches!(kind, Kind::Stat | Kind::Derive | Kind::Pool | Kind::Condition),
            KindSet::Die => kind == Kind::Die,
            KindSet::Of(word) => decl_kind_word(kind) == Some(word),
        }
    }
}

/// The word `remove` uses for a kind.
fn decl_kind_word(kind: Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Stat => "stat",
        Kind::Derive => "derive",
        Kind::Pool => "pool",
        Kind::Category => "category",
        Kind::Event => "event",
        Kind::Condition => "condition",
        Kind::Action(_) => "action",
        Kind::Trigger => "trigger",
        Kind::Rest => "rest",
        Kind::Outro => "outro",
        Kind::Hook => "hook",
        Kind::Downtime => "downtime",
        Kind::Effect => "effect",
        Kind::Degrees => "degrees",
        Kind::Object => "object",
        Kind::Terrain => "terrain",
        Kind::Items => "items",
        Kind::Item => "item",
        Kind::Pile => "pile",
        Kind::Phase | Kind::Zone | Kind::Die => return None,
    })
}

const DECL_KINDS: [&str; 19] = [
    "pool",
    "stat",
    "derive",
    "action",
    "trigger",
    "condition",
    "limit",
    "category",
    "event",
    "hook",
    "downtime",
    "rest",
    "outro",
    "effect",
    "degrees",
    "terrain",
    "object",
    "items",
    "pile",
];

/// Words after which a new name is written.
const DECLARING: [&str; 17] = [
    "ruleset",
    "pool",
    "stat",
    "derive",
    "event",
    "condition",
    "reaction",
    "preparation",
    "activity",
    "rest",
    "outro",
    "hook",
    "effect",
    "terrain",
    "object",
    "items",
    "pile",
];

fn want(before: &[Token<'_>]) -> Want {
    let depth = before.iter().fold(0i64, |d, t| match t.text {
        "{" => d + 1,
        "}" => d - 1,
        _ => d,
    });
    let n = before.len();
    let prev = if n >= 1 { before[n - 1].text } else { "" };
    let prev2 = if n >= 2 { before[n - 2].text } else { "" };
    let is_amount = |t: &str| t.starts_with(|c: char| c.is_ascii_digit()) || t == ")";
    const POOLS: &[KindSet] = &[KindSet::Pool];
    const CONDITIONS: &[KindSet] = &[KindSet::Condition];
    const PILES: &[KindSet] = &[KindSet::Of("pile")];
    let prev3 = if n >= 3 { before[n - 3].text } else { "" };
    // The arguments of `count(` and `dice(`, by their place.
    match call_argument(before) {
        Some(("count", 0)) => return Want::Count,
        // `count(hand, strike)`, `count(ally, prone)` (a roll's symbols are no declarations).
        Some(("count", 1)) => return Want::Names(&[KindSet::Condition, KindSet::Of("item")]),
        // `value(hand)`, `highest(target.hand)`.
        Some(("value" | "highest" | "lowest", 0)) => return Want::Names(PILES),
        // `dice(2, ability)`, `dice(1, weapon_die)`.
        Some(("dice", 1)) => return Want::Names(&[KindSet::Die, KindSet::Values]),
        _ => {}
    }
    match prev {
        "." => return Want::Names(&[KindSet::Values]),
        "emit" => return Want::Names(&[KindSet::Event]),
        "do" => return Want::Names(&[KindSet::Of("effect")]),
        // In a check or after `default`: declared degrees (at the top level a new name follows).
        "degrees" if depth > 0 || prev2 == "default" => return Want::Names(&[KindSet::Of("degrees")]),
        "degrees" => return Want::Nothing,
        // `modify checks ... on NAME` names actions only; any other `on`, timings too.
        "on" if !before.iter().rev().take(8).any(|t| t.text == "modify") => return Want::Answered,
        "on" => return Want::Names(&[KindSet::Actions, KindSet::Category, KindSet::Event]),
        "is" if prev2 == "trigger" => return Want::Names(&[KindSet::Actions, KindSet::Category, KindSet::Event]),
        // `self has prone`, `hand has strike`.
        "has" => return Want::Names(&[KindSet::Condition, KindSet::Of("item")]),
        "apply" | "implies" | "applies" => return Want::Names(CONDITIONS),
        "of" if depth == 0 => return Want::Names(&[KindSet::Of("items")]),
        "move" if depth > 0 => return Want::Names(&[KindSet::Of("item")]),
        "from" if prev2 != "remove" => return Want::Names(PILES),
        "to" if matches!(prev3, "from") => return Want::Names(PILES),
        "holds" | "take" | "handle" | "drop" | "handlers" => return Want::Names(&[KindSet::Of("object")]),
        "(" if prev2 == "handlers" => return Want::Names(&[KindSet::Of("object")]),
        "remove" if depth > 0 => return Want::Names(CONDITIONS),
        "remove" => return Want::DeclKinds,
        "into" | "spend" | "state_order" => return Want::Names(POOLS),
        "at" | "until" => return Want::Timings,
        _ if prev2 == "at" && prev3 == "maintain" && words::TIMINGS.contains(&prev) => {
            return Want::Words(&["optional"])
        }
        "(" if prev2 == "phase_start" || prev2 == "phase_end" => return Want::Names(&[KindSet::Phase]),
        "target" | "by" | "against" | "is" => return Want::Relations,
        // `for each ally`.
        "each" if prev2 == "for" => return Want::Relations,
        "to" if prev2 != "overspend" && prev2 != "up" => return Want::Participants,
        "category" if depth > 0 => return Want::Names(&[KindSet::Category]),
        "category" | "action" | "trigger" => return Want::Nothing,
        "order" if depth > 0 => return Want::Words(crate::check::ORDER_WORDS),
        _ => {}
    }
    if prev2 == "remove" && depth == 0 {
        if let Some(word) = DECL_KINDS.iter().find(|w| **w == prev) {
            return Want::Names(match *word {
                "pool" => POOLS,
                "stat" => &[KindSet::Of("stat")],
                "derive" => &[KindSet::Of("derive")],
                "action" => &[KindSet::Of("action")],
                "trigger" => &[KindSet::Of("trigger")],
                "condition" => CONDITIONS,
                "category" => &[KindSet::Of("category")],
                "event" => &[KindSet::Of("event")],
                "hook" => &[KindSet::Of("hook")],
                "downtime" => &[KindSet::Of("downtime")],
                "rest" => &[KindSet::Of("rest")],
                "outro" => &[KindSet::Of("outro")],
                "effect" => &[KindSet::Of("effect")],
                "degrees" => &[KindSet::Of("degrees")],
                "terrain" => &[KindSet::Of("terrain")],
                "object" => &[KindSet::Of("object")],
                "items" => &[KindSet::Of("items")],
                "pile" => &[KindSet::Of("pile")],
                _ => &[],
            });
        }
    }
    if DECLARING.contains(&prev) {
        return Want::Nothing;
    }
    // `cost 2 ap`, `+ 1 energy`, `pay 2 ap`, `limit movement: 2 ap per turn`.
    if is_amount(prev) && matches!(prev2, "cost" | "+" | "pay" | ":") {
        return Want::Names(POOLS);
    }
    if depth <= 0 {
        Want::TopLevel
    } else {
        Want::Anything
    }
}

/// The function whose argument starts at the cursor (right after its `(` or a `,`), and the
/// argument's place from 0; `None` anywhere else.
fn call_argument<'t>(before: &[Token<'t>]) -> Option<(&'t str, usize)> {
    if !matches!(before.last()?.text, "(" | ",") {
        return None;
    }
    let (mut depth, mut commas) = (0usize, 0usize);
    for (i, t) in before.iter().enumerate().rev() {
        match t.text {
            ")" => depth += 1,
            "(" if depth == 0 => {
                let function = i.checked_sub(1).and_then(|j| before.get(j)).filter(|w| w.is_word());
                return function.map(|w| (w.text, commas));
            }
            "(" => depth -= 1,
            "," if depth == 0 => commas += 1,
            "{" | "}" | ";" => return None,
            _ => {}
        }
    }
    None
}

/// The named rolls of the blocks open at the end of `before` (`roll attack = ...`), first
/// rolled first: a roll is read in its own block, after it.
fn open_rolls<'t>(before: &[Token<'t>]) -> Vec<&'t str> {
    let mut open: Vec<(&str, usize)> = Vec::new();
    let mut depth = 0usize;
    for (i, t) in before.iter().enumerate() {
        match t.text {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                open.retain(|(_, d)| *d <= depth);
            }
            "roll" => {
                // Any word: a roll may be named as a keyword is (`roll check = ...`).
                let name = before.get(i + 1).filter(|n| n.is_word());
                if let (Some(name), Some("=")) = (name, before.get(i + 2).map(|t| t.text)) {
                    open.push((name.text, depth));
                }
            }
            _ => {}
        }
    }
    open.into_iter().map(|(name, _)| name).collect()
}

pub fn completion(documents: &Documents, uri: &Url, at: Position) -> Result<Vec<CompletionItem>, RequestError> {
    let doc = documents.get(uri).ok_or_else(|| RequestError::invalid(format!("`{uri}` is not open")))?;
    let text = Text::new(&doc.text);
    let offset = text.offset(at);
    let mut before = words::tokens(&text.text()[..offset]);
    // The word being typed is the prefix the editor filters by, not context.
    if before.last().is_some_and(|t| t.end == offset && t.is_word()) {
        before.pop();
    }
    let declarations = in_scope(documents, doc);
    let mut items = Vec::new();
    match want(&before) {
        Want::Nothing => {}
        Want::TopLevel => items.extend(words::TOP_LEVEL.iter().map(|w| keyword(w))),
        Want::DeclKinds => items.extend(DECL_KINDS.iter().map(|w| keyword(w))),
        Want::Timings => items.extend(words::TIMINGS.iter().map(|w| builtin(w))),
        Want::Answered => {
            let answered = |k| [KindSet::Actions, KindSet::Category, KindSet::Event].iter().any(|s| s.holds(k));
            items.extend(names(&declarations, answered));
            // Every timing but the encounter's end, which nothing answers.
            items.extend(words::TIMINGS.iter().filter(|w| **w != "encounter_end").map(|w| builtin(w)));
        }
        Want::Relations => items.extend(words::RELATIONS.iter().map(|w| builtin(w))),
        Want::Participants => items.extend(crate::check::WHO_WORDS.iter().map(|w| builtin(w))),
        Want::Words(words) => items.extend(words.iter().map(|w| builtin(w))),
        Want::Names(kinds) => items.extend(names(&declarations, |k| kinds.iter().any(|s| s.holds(k)))),
        Want::Count => {
            items.extend(open_rolls(&before).into_iter().rev().map(|name| CompletionItem {
                label: name.to_string(),
                kind: Some(CompletionItemKind::VARIABLE),
                detail: Some(format!("roll {name}: count({name} >= X), count({name}, SYMBOL)")),
                ..CompletionItem::default()
            }));
            items.extend(names(&declarations, |k| k == Kind::Pile));
            items.extend(words::RELATIONS.iter().chain(&["dice"]).map(|w| builtin(w)));
        }
        Want::Anything => {
            items.extend(names(&declarations, |k| KindSet::Values.holds(k)));
            items.extend(words::BUILTINS.iter().map(|(w, _)| builtin(w)));
            items.extend(words::keywords().iter().map(|w| keyword(w)));
        }
    }
    let mut seen = std::collections::HashSet::new();
    items.retain(|item| seen.insert(item.label.clone()));
    Ok(items)
}

/// The names in scope: the chain's (or the last that parsed); in a file that has never parsed,
/// its base's and the names the file itself appears to declare.
fn in_scope(documents: &Documents, doc: &Document) -> Vec<Declaration> {
    if let Some(chain) = chain(documents, doc) {
        return chain.declarations();
    }
    let mut out = Vec::new();
    if let Some(base) = words::extends_path(&doc.text) {
        let path = normalize(&doc.path.parent().unwrap_or(Path::new("")).join(base));
        if let Some(chain) = Chain::load(&documents.loader(), &path) {
            out = chain.declarations();
        }
    }
    let tokens = words::tokens(&doc.text);
    let mut depth = 0i64;
    for (i, token) in tokens.iter().enumerate() {
        match token.text {
            "{" => depth += 1,
            "}" => depth -= 1,
            _ => {}
        }
        let next = |n: usize| tokens.get(i + n).filter(|t| t.is_word() && !words::is_keyword(t.text));
        let found = match token.text {
            _ if depth != 0 => None,
            "stat" => next(1).map(|t| (Kind::Stat, t)),
            "derive" => next(1).map(|t| (Kind::Derive, t)),
            "pool" => next(1).map(|t| (Kind::Pool, t)),
            "category" => next(1).map(|t| (Kind::Category, t)),
            "event" => next(1).map(|t| (Kind::Event, t)),
            "condition" => next(1).map(|t| (Kind::Condition, t)),
            "trigger" => next(1).map(|t| (Kind::Trigger, t)),
            "object" => next(1).map(|t| (Kind::Object, t)),
            "terrain" => next(1).map(|t| (Kind::Terrain, t)),
            "items" => next(1).map(|t| (Kind::Items, t)),
            "pile" => next(1).map(|t| (Kind::Pile, t)),
            "die" => next(1).map(|t| (Kind::Die, t)),
            word => ActionKind::from_word(word).and_then(|kind| {
                let n = if word == "free" && tokens.get(i + 1).is_some_and(|t| t.text == "action") { 2 } else { 1 };
                next(n).map(|t| (Kind::Action(kind), t))
            }),
        };
        if let Some((kind, name)) = found {
            let header = format!("{} {}", token.text, name.text);
            let span = Span::default();
            out.push(Declaration { name: name.text.to_string(), kind, name_span: span, span, doc: None, header });
        }
    }
    out
}

/// The declared names whose kind is wanted; an overridden name once, as its last declaration.
fn names(declarations: &[Declaration], wanted: impl Fn(Kind) -> bool) -> Vec<CompletionItem> {
    let mut out: Vec<CompletionItem> = Vec::new();
    for d in declarations.iter().filter(|d| wanted(d.kind)) {
        let item = CompletionItem {
            label: d.name.clone(),
            kind: Some(item_kind(d.kind)),
            detail: Some(d.header.clone()),
            documentation: d.doc.as_ref().map(|doc| {
                Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: doc.clone() })
            }),
            ..CompletionItem::default()
        };
        match out.iter_mut().find(|i| i.label == d.name) {
            Some(old) => *old = item,
            None => out.push(item),
        }
    }
    out
}

fn item_kind(kind: Kind) -> CompletionItemKind {
    match kind {
        Kind::Stat => CompletionItemKind::CONSTANT,
        Kind::Derive => CompletionItemKind::VALUE,
        Kind::Pool => CompletionItemKind::VARIABLE,
        Kind::Condition => CompletionItemKind::ENUM_MEMBER,
        Kind::Event => CompletionItemKind::EVENT,
        Kind::Category => CompletionItemKind::ENUM,
        Kind::Action(_) | Kind::Trigger => CompletionItemKind::FUNCTION,
        Kind::Phase | Kind::Zone => CompletionItemKind::MODULE,
        Kind::Rest | Kind::Outro | Kind::Hook | Kind::Downtime | Kind::Effect => CompletionItemKind::FUNCTION,
        Kind::Degrees | Kind::Terrain | Kind::Die => CompletionItemKind::ENUM,
        Kind::Object => CompletionItemKind::STRUCT,
        Kind::Items | Kind::Pile => CompletionItemKind::STRUCT,
        Kind::Item => CompletionItemKind::ENUM_MEMBER,
    }
}

fn keyword(word: &str) -> CompletionItem {
    CompletionItem { label: word.to_string(), kind: Some(CompletionItemKind::KEYWORD), ..CompletionItem::default() }
}

fn builtin(word: &str) -> CompletionItem {
    CompletionItem {
        label: word.to_string(),
        kind: Some(CompletionItemKind::CONSTANT),
        detail: words::builtin(word).map(str::to_string),
        ..CompletionItem::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want_at_end(text: &str) -> Want {
        want(&words::tokens(text))
    }

    #[test]
    fn places_want_the_right_names() {
        assert_eq!(want_at_end("action a { cost 2 "), Want::Names(&[KindSet::Pool]));
        assert_eq!(want_at_end("action a { cost 1 ap + 2 "), Want::Names(&[KindSet::Pool]));
        assert_eq!(want_at_end("action a { resolve { apply "), Want::Names(&[KindSet::Condition]));
        assert_eq!(want_at_end("pool ap { refresh at "), Want::Timings);
        assert_eq!(want_at_end("pool "), Want::Nothing);
        assert_eq!(want_at_end("pool ap { max 3 }\n"), Want::TopLevel);
        assert_eq!(want_at_end("remove "), Want::DeclKinds);
        assert_eq!(want_at_end("reaction r { on "), Want::Answered);
        assert_eq!(want_at_end("condition c { maintain at turn_start "), Want::Words(&["optional"]));
        let objects = Want::Names(&[KindSet::Of("object")]);
        assert_eq!(want_at_end("action a { requires target holds "), objects);
        assert_eq!(want_at_end("action a { resolve { drop "), objects);
        assert_eq!(want_at_end("action a { cost 1 ap when handlers("), objects);
        assert_eq!(want_at_end("object "), Want::Nothing);
        assert_eq!(want_at_end("terrain "), Want::Nothing);
        let piles = Want::Names(&[KindSet::Of("pile")]);
        assert_eq!(want_at_end("at turn_start { draw 3 from "), piles);
        assert_eq!(want_at_end("at turn_start { move strike from hand to "), piles);
        assert_eq!(want_at_end("at turn_start { move "), Want::Names(&[KindSet::Of("item")]));
        assert_eq!(want_at_end("pile hand of "), Want::Names(&[KindSet::Of("items")]));
        assert_eq!(want_at_end("pile "), Want::Nothing);
        assert_eq!(want_at_end("action a { requires count("), Want::Count);
        assert_eq!(
            want_at_end("action a { requires count(hand, "),
            Want::Names(&[KindSet::Condition, KindSet::Of("item")])
        );
        let dice = Want::Names(&[KindSet::Die, KindSet::Values]);
        assert_eq!(want_at_end("action a { resolve { roll x = dice(2, "), dice);
        assert_eq!(want_at_end("action a { resolve { roll x = dice(max(1, n), "), dice);
        assert_eq!(want_at_end("action a { resolve { roll x = dice("), Want::Anything);
        assert_eq!(want_at_end("action a { resolve { hp = min(1, "), Want::Anything);
        let orders = want_at_end("initiative { order ");
        assert!(matches!(orders, Want::Words(w) if w.contains(&"drawn") && w.contains(&"highest_first")));
    }

    #[test]
    fn the_rolls_of_open_blocks_are_offered_in_count() {
        fn rolls(text: &str) -> Vec<&str> {
            open_rolls(&words::tokens(text))
        }
        let text = "action a { resolve { roll x = 2d6; roll y = 3d6 } }\naction b { resolve { roll z = 1d6; if n > 0 { roll w = 1d4 }; hits = count(";
        assert_eq!(rolls(text), ["z"]);
        assert_eq!(rolls("action b { resolve { roll z = 1d6; if n > 0 { roll w = 1d4; hits = count("), ["z", "w"]);
        // A pool named `roll` is no roll.
        assert_eq!(rolls("action a { resolve { roll = 3; hits = count("), Vec::<&str>::new());
    }

    #[test]
    fn a_phase_kind_is_followed_by_its_keywords() {
        // `hidden` is offered, with the other keywords, after `simultaneous` in a round.
        assert_eq!(want_at_end("round { phase show: simultaneous "), Want::Anything);
        assert!(words::keywords().iter().any(|w| w == "hidden"));
        assert!(words::keyword_docs("hidden").iter().any(|d| d.contains("revealed together")));
    }

    #[test]
    fn picks_and_must_are_offered_after_hidden() {
        // `picks N` and `must` are offered, with their docs, after `simultaneous hidden`.
        assert_eq!(want_at_end("round { phase pick: simultaneous hidden "), Want::Anything);
        assert_eq!(want_at_end("round { phase pick: simultaneous hidden picks 2 "), Want::Anything);
        for word in ["picks", "must"] {
            assert!(words::keywords().iter().any(|w| w == word), "{word}");
        }
        assert!(words::keyword_docs("picks").iter().any(|d| d.contains("own earlier picks")));
        assert!(words::keyword_docs("must").iter().any(|d| d.contains("first one offered")));
    }
}
