//! Sets of items and their piles (issue 32, mechanism 3): draws without replacement, moves of a
//! kind, at random and of everything, `has` and `count`, a scenario's starting piles, and the
//! one `items` event each draw or move writes.

use tempo::check::compile_str;
use tempo::diagnostics::Code;
use tempo::run::trace::{Event, Record};
use tempo::run::{run, scenario};

/// A five-card deck dealt whole at the start; the pools report what the piles hold.
const DEAL: &str = r#"ruleset deal
initiative { value 0 }
round { phase act: turns }
items cards { strike x2, dash, guard x2 }
pile deck of cards { starts full }
pile hand of cards
pile lost of cards
pool in_hand { max none; start 0 }
pool strikes { max none; start 0 }
pool has_dash { max none; start 0 }
pool left { max none; start 0 }
hook deal at encounter_start {
  draw DRAW from deck to hand
  in_hand = count(hand)
  strikes = count(hand, strike)
  has_dash = number(hand has dash)
  left = count(deck)
}
"#;

fn compiled(rules: &str) -> tempo::ir::Ruleset {
    let c = compile_str("t.rules", rules);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.ruleset.expect("compiles")
}

fn play(rules: &str, seed: u64, extra: &str) -> Vec<Record> {
    let s = scenario::parse(&format!(
        r#"(seed: {seed}, rounds: 3, participants: [
  (name: "A", side: "a", {extra} controller: Policy(Aggressive)),
  (name: "B", side: "b", actions: [], controller: Policy(Aggressive)),
])"#
    ))
    .expect("scenario parses");
    run(&compiled(rules), &s, None).expect("runs")
}

/// A's items events: (how, items, from, to).
fn items(records: &[Record]) -> Vec<(String, Vec<String>, String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Items { who, how, items, from, to, .. } if &**who == "A" => {
                Some((how.to_string(), items.iter().map(|n| n.to_string()).collect(), from.to_string(), to.to_string()))
            }
            _ => None,
        })
        .collect()
}

/// The pools at the end, by name.
fn pools(records: &[Record]) -> std::collections::BTreeMap<String, i64> {
    let Some(Event::EncounterEnd { state, .. }) = records.last().map(|r| &r.event) else { panic!("no end") };
    state["A"].pools.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn drawing_a_whole_deck_sees_each_kind_exactly_its_count_in_some_order() {
    let rules = DEAL.replace("DRAW", "5");
    let mut orders = std::collections::BTreeSet::new();
    for seed in 0..30 {
        let records = play(&rules, seed, "");
        let drawn = items(&records);
        assert_eq!(drawn.len(), 1, "one event for the draw");
        let (how, cards, from, to) = &drawn[0];
        assert_eq!((how.as_str(), from.as_str(), to.as_str()), ("draws", "deck", "hand"));
        let mut sorted = cards.clone();
        sorted.sort();
        assert_eq!(sorted, ["dash", "guard", "guard", "strike", "strike"], "seed {seed}");
        orders.insert(cards.clone());
        let p = pools(&records);
        assert_eq!((p["in_hand"], p["strikes"], p["has_dash"], p["left"]), (5, 2, 1, 0));
    }
    assert!(orders.len() > 5, "draws are at random: only {} orders in 30 seeds", orders.len());
}

#[test]
fn a_draw_of_more_than_the_pile_holds_takes_what_is_there() {
    let records = play(&DEAL.replace("DRAW", "9"), 1, "");
    assert_eq!(items(&records)[0].1.len(), 5);
    assert_eq!(pools(&records)["in_hand"], 5);
}

#[test]
fn a_draw_of_two_leaves_three_and_counts_agree() {
    for seed in 0..20 {
        let records = play(&DEAL.replace("DRAW", "2"), seed, "");
        let drawn = &items(&records)[0].1;
        assert_eq!(drawn.len(), 2);
        let p = pools(&records);
        assert_eq!((p["in_hand"], p["left"]), (2, 3));
        assert_eq!(p["strikes"], drawn.iter().filter(|c| *c == "strike").count() as i64);
        assert_eq!(p["has_dash"], i64::from(drawn.iter().any(|c| c == "dash")));
    }
}

/// The final state says what each pile holds: JSON every pile (an empty one as `[]`), the text
/// the piles that hold something, by label, on a line under their holder's.
#[test]
fn the_final_state_says_what_each_pile_holds() {
    let rules = DEAL.replace("DRAW", "2").replace("pile hand of cards", r#"pile hand "Hand" of cards"#);
    let records = play(&rules, 3, "");
    let Some(Event::EncounterEnd { state, .. }) = records.last().map(|r| &r.event) else { panic!("no end") };
    let held =
        |who: &str, pile: &str| -> Vec<String> { state[who].piles[pile].iter().map(|n| n.to_string()).collect() };
    let (hand, deck) = (held("A", "hand"), held("A", "deck"));
    assert_eq!((hand.len(), deck.len(), held("A", "lost").len()), (2, 3, 0));
    let mut all: Vec<String> = hand.iter().chain(&deck).cloned().collect();
    all.sort();
    assert_eq!(all, ["dash", "guard", "guard", "strike", "strike"]);
    // In the order of the set: strikes, then the dash, then guards.
    let order = |items: &[String]| {
        items.iter().map(|i| ["strike", "dash", "guard"].iter().position(|k| k == i)).collect::<Vec<_>>()
    };
    assert!(order(&deck).is_sorted(), "{deck:?}");
    // B drew its own two; its empty pile is listed all the same.
    assert_eq!((held("B", "deck").len(), held("B", "hand").len(), held("B", "lost").len()), (3, 2, 0));

    let ruleset = compiled(&rules);
    let s = scenario::parse(
        r#"(seed: 3, rounds: 3, participants: [
  (name: "A", side: "a", controller: Policy(Aggressive)),
  (name: "B", side: "b", actions: [], controller: Policy(Aggressive)),
])"#,
    )
    .expect("scenario parses");
    let trace = |options: tempo::api::TraceOptions| tempo::api::run(&ruleset, &s, None, options).expect("runs").text;
    let under_a = |text: &str| -> String {
        let end = text.split("Encounter ends").nth(1).unwrap_or_default();
        let after = end.split("\n  A: ").nth(1).unwrap_or_default();
        after.lines().nth(1).unwrap_or_default().to_string()
    };
    let labelled = trace(tempo::api::TraceOptions::default());
    assert_eq!(under_a(&labelled), format!("    Hand: {}; deck: {}", hand.join(", "), deck.join(", ")), "{labelled}");
    let named = trace(tempo::api::TraceOptions { names: true, ..Default::default() });
    assert_eq!(under_a(&named), format!("    deck: {}; hand: {}", deck.join(", "), hand.join(", ")), "{named}");
    // An empty pile is left out of the text.
    assert!(!labelled.contains("lost:") && named.matches("\n    deck: ").count() == 2, "{named}");
    let json = trace(tempo::api::TraceOptions { jsonl: true, ..Default::default() });
    let last = json.lines().last().unwrap_or_default();
    assert!(last.contains(r#""lost":[]"#) && last.contains(r#""piles":{"deck":["#), "{last}");
}

const PLAY: &str = r#"ruleset play
initiative { value 0 }
round { phase act: turns }
items cards { strike x2, dash, guard }
pile hand of cards { starts full }
pile discard of cards
pile lost of cards
pool plays { max 2; refresh at turn_start }
pool left { max none; start 0 }
action strike { cost 1 plays; requires hand has strike; resolve { move strike from hand to discard; left = count(hand) } }
action rest {
  cost 1 plays
  requires not hand has strike and count(discard) > 0
  resolve { move all from discard to hand; move random from hand to lost }
}
"#;

#[test]
fn moves_of_a_kind_of_all_and_at_random_keep_every_card() {
    let mut lost = std::collections::BTreeSet::new();
    for seed in 0..30 {
        let records = play(PLAY, seed, "");
        let moved = items(&records);
        let words: Vec<(&str, usize, &str, &str)> =
            moved.iter().take(4).map(|(h, i, f, t)| (h.as_str(), i.len(), f.as_str(), t.as_str())).collect();
        // Two strikes played, then a rest: the discard back, then one card lost (then on).
        assert_eq!(
            words,
            [
                ("moves", 1, "hand", "discard"),
                ("moves", 1, "hand", "discard"),
                ("moves", 2, "discard", "hand"),
                ("moves", 1, "hand", "lost")
            ],
            "seed {seed}"
        );
        assert_eq!(moved[0].1, ["strike"]);
        assert_eq!(moved[2].1, ["strike", "strike"]);
        lost.insert(moved[3].1[0].clone());
        // Every card is in one pile: what the moves left in each adds up to the four.
        let mut piles = std::collections::BTreeMap::from([("hand", 4i64), ("discard", 0), ("lost", 0)]);
        for (_, cards, from, to) in &moved {
            *piles.get_mut(from.as_str()).unwrap() -= cards.len() as i64;
            *piles.get_mut(to.as_str()).unwrap() += cards.len() as i64;
        }
        assert!(piles.values().all(|n| *n >= 0) && piles.values().sum::<i64>() == 4, "{piles:?}");
    }
    assert_eq!(lost.len(), 3, "the card lost is any of the hand's kinds: {lost:?}");
}

#[test]
fn a_move_of_a_kind_the_pile_does_not_hold_moves_nothing_and_says_so() {
    let rules = PLAY
        .replace("move strike from hand to discard;", "move strike from hand to discard; move dash from lost to hand;");
    let text = tempo::run::trace::to_text(&play(&rules, 1, ""));
    assert!(text.contains("  A moves nothing from lost to hand."), "{text}");
}

#[test]
fn a_scenario_gives_starting_piles_by_name_and_checks_them() {
    let records = play(PLAY, 1, r#"piles: {"hand": ["dash", "strike"]},"#);
    let moved = items(&records);
    assert_eq!(moved[0].1, ["strike"]);
    // The hand was the scenario's, dash and strike: its one strike played, the rest takes it back.
    assert_eq!((moved[1].1.as_slice(), moved[1].2.as_str()), (["strike".to_string()].as_slice(), "discard"));
    let s = scenario::parse(
        r#"(seed: 1, rounds: 1, participants: [(name: "A", side: "a", piles: {"hnad": [], "hand": ["strik"]}, controller: Policy(Aggressive))])"#,
    )
    .unwrap();
    let problems = match tempo::run::Runner::new(&compiled(PLAY), &s, Vec::new()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a scenario naming no pile of the ruleset runs"),
    };
    assert!(problems.contains("no pile `hnad`") && problems.contains("no kind of item `strik`"), "{problems}");
}

#[test]
fn other_participants_piles_are_reached_through_a_path() {
    let rules = PLAY.replace(
        "action strike { cost 1 plays;",
        "action steal { cost 2 plays; target enemy; requires target.hand has dash; resolve { move dash from target.hand to hand } }\naction strike { cost 1 plays;",
    );
    let s = scenario::parse(
        r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Aggressive)),
  (name: "B", side: "b", controller: Policy(Aggressive)),
])"#,
    )
    .unwrap();
    let text = tempo::run::trace::to_text(&run(&compiled(&rules), &s, None).unwrap());
    assert!(text.contains("  B moves dash from hand to A's hand."), "{text}");
}

#[test]
fn unknown_piles_sets_and_kinds_are_named_with_a_suggestion() {
    let cases = [
        ("pile extra of crads", Code::UnknownPile, "did you mean `cards`?"),
        ("at turn_start { draw 1 from deck to hnad }", Code::UnknownPile, "did you mean `hand`?"),
        ("at turn_start { move strke from deck to hand }", Code::UnknownItem, "did you mean `strike`?"),
        ("action a { requires hand has dahs; resolve { } }", Code::UnknownItem, "did you mean `dash`?"),
        ("derive n = count(hand, gaurd)", Code::UnknownItem, "did you mean `guard`?"),
        ("at turn_start { move all from hand to tokens }", Code::UnknownPile, "one set"),
    ];
    for (line, code, help) in cases {
        let rules = format!(
            "ruleset t\ninitiative {{ value 0 }}\nround {{ phase act: turns }}\nitems cards {{ strike x2, dash, guard }}\nitems chips {{ red }}\npile deck of cards\npile hand of cards\npile tokens of chips\n{line}\n"
        );
        let c = compile_str("t.rules", &rules);
        let d: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert_eq!(d.len(), 1, "{line}: {:?}", c.diagnostics);
        assert_eq!(d[0].code, code, "{line}");
        let said = format!("{} {}", d[0].help.clone().unwrap_or_default(), d[0].message);
        assert!(said.contains(help), "{line}: {said}");
    }
}

#[test]
fn a_kind_listed_twice_is_an_error() {
    let c = compile_str(
        "t.rules",
        "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\nitems cards { strike, dash, strike x2 }\n",
    );
    assert!(c.diagnostics.iter().any(|d| d.code == Code::Duplicate), "{:?}", c.diagnostics);
}

#[test]
fn hover_says_what_a_pile_a_set_and_a_kind_are() {
    let text = std::fs::read_to_string("rulesets/card-hand.rules").unwrap();
    let sources = tempo::api::Sources::new().with("card-hand.rules", &text);
    let at = |needle: &str, skip: usize| text.find(needle).unwrap() + skip;
    let pile = tempo::api::hover(&sources, "card-hand.rules", at("move strike from hand", 18)).unwrap();
    assert!(pile.contains("pile hand") && pile.contains("pile declared in"), "{pile}");
    let set = tempo::api::hover(&sources, "card-hand.rules", at("\"Hand\" of cards", 10)).unwrap();
    assert!(set.contains("set of items declared in"), "{set}");
    let kind = tempo::api::hover(&sources, "card-hand.rules", at("requires hand has lunge", 19)).unwrap();
    assert!(kind.contains("kind of item declared in") && !kind.contains("action"), "{kind}");
}

#[test]
fn a_draw_into_the_pile_it_comes_from_stops_at_what_the_pile_holds() {
    let rules = DEAL.replace("draw DRAW from deck to hand", "draw 9223372036854775807 from deck to deck");
    let records = play(&rules, 1, "");
    assert_eq!(items(&records)[0].1.len(), 5, "as many draws as the pile held, then the draw ends");
}

/// Items with numbers (issue 44, mechanism 6): an empty pile reads 0, negative numbers count,
/// ties go to the kind listed first, and a set without numbers cannot be read by them.
const NUMBERED: &str = r#"ruleset numbered
initiative { value 0 }
round { phase act: turns }
items chips { low = -3, mid_a = 4, mid_b = 4, high x2 = 7 }
pile bag of chips { starts full }
pile out of chips
pool sum { max none; start 99 }
pool top { max none; start 99 }
pool bottom { max none; min -10; start 99 }
pool empty_sum { max none; start 99 }
pool empty_top { max none; start 99 }
hook look at encounter_start {
  sum = value(bag)
  top = highest(bag)
  bottom = lowest(bag)
  empty_sum = value(out)
  empty_top = highest(out) + lowest(out)
  move lowest from bag to out
  move lowest from bag to out
  move highest from bag to out
}
"#;

#[test]
fn numbers_on_items_are_summed_ranked_and_moved_with_ties_to_the_first_listed() {
    let records = play(NUMBERED, 1, "");
    let p = pools(&records);
    assert_eq!((p["sum"], p["top"], p["bottom"]), (-3 + 4 + 4 + 7 + 7, 7, -3));
    assert_eq!((p["empty_sum"], p["empty_top"]), (0, 0), "an empty pile reads 0");
    let moved: Vec<Vec<String>> = items(&records).into_iter().map(|(_, items, _, _)| items).collect();
    assert_eq!(moved, [vec!["low".to_string()], vec!["mid_a".to_string()], vec!["high".to_string()]]);
}

#[test]
fn reading_numbers_a_set_does_not_give_is_an_error() {
    let c = compile_str(
        "t.rules",
        "ruleset t\ninitiative { value highest(hand) }\nround { phase act: turns }\nitems cards { a, b = 2 }\n\
         items plain { x, y }\npile hand of plain\npile other of cards\n",
    );
    let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::UnnumberedItem, Code::UnnumberedItem], "{:?}", c.diagnostics);
}

#[test]
fn numbered_items_format_from_any_layout_to_the_same_ir() {
    let messy = "ruleset t\ninitiative { value value(hand) }\nround { phase act: turns }\n\
                 items cards {two=2,three x2=-\n 3,king = 13 x3 , joker=0}\npile hand of cards\npile discard of cards\n\
                 hook h at round_start { move highest from hand to discard; move lowest from hand to discard }\n";
    let once = tempo::fmt::format_source(messy).expect("formats");
    for written in ["two = 2", "three x2 = -3", "king = 13 x3", "joker = 0"] {
        assert!(once.contains(written), "{written} in {once}");
    }
    assert_eq!(tempo::fmt::format_source(&once).expect("formats again"), once);
    assert_eq!(compiled(&once).item_sets, compiled(messy).item_sets);
    let kinds = &compiled(&once).item_sets[0].kinds;
    let values: Vec<Option<i64>> = kinds.iter().map(|k| k.value).collect();
    assert_eq!(values, [Some(2), Some(-3), Some(13), Some(0)]);
    assert_eq!(kinds.iter().map(|k| k.count).collect::<Vec<_>>(), [1, 2, 3, 1]);
}

/// A set without numbers that lists a kind named `highest` (written before the word meant the
/// item of the highest number) still moves that kind.
#[test]
fn a_kind_named_highest_in_a_set_without_numbers_is_still_moved_by_name() {
    let rules = "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\nitems cards { low, highest, lowest }\n\
                 pile deck of cards { starts full }\npile out of cards\n\
                 hook h at encounter_start { move highest from deck to out; move lowest from deck to out }\n";
    let moved: Vec<Vec<String>> = items(&play(rules, 1, "")).into_iter().map(|(_, items, _, _)| items).collect();
    assert_eq!(moved, [vec!["highest".to_string()], vec!["lowest".to_string()]]);
}

#[test]
fn a_shared_deck_is_dealt_from_once_and_listed_once() {
    // Each participant's hook draws two from the one deck of five: four are drawn in all, and
    // the deck, filled once, keeps the fifth.
    let rules = DEAL
        .replace("DRAW", "2")
        .replace("pile deck of cards { starts full }", "pile deck of cards { shared; starts full }");
    let records = play(&rules, 3, "");
    let Some(Event::EncounterEnd { state, piles, .. }) = records.last().map(|r| &r.event) else { panic!("no end") };
    let names = |items: &[tempo::run::trace::Name]| -> Vec<String> { items.iter().map(|n| n.to_string()).collect() };
    let (a, b) = (names(&state["A"].piles["hand"]), names(&state["B"].piles["hand"]));
    let deck = names(&piles.shared["deck"]);
    assert_eq!((a.len(), b.len(), deck.len()), (2, 2, 1), "{a:?} {b:?} {deck:?}");
    let mut all: Vec<String> = a.iter().chain(&b).chain(&deck).cloned().collect();
    all.sort();
    assert_eq!(all, ["dash", "guard", "guard", "strike", "strike"], "no card is held twice");
    // Listed once, as the table's: not under each participant.
    assert!(!state["A"].piles.contains_key("deck") && piles.sides.is_empty());
    let left = |who: &str| state[who].pools.iter().find(|(k, _)| &***k == "left").map(|(_, v)| *v);
    assert_eq!((left("A"), left("B")), (Some(3), Some(1)), "A drew first and left three; B's draw left one");

    let ruleset = compiled(&rules);
    let s = scenario::parse(
        r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Aggressive)),
  (name: "B", side: "b", actions: [], controller: Policy(Aggressive)),
])"#,
    )
    .expect("scenario parses");
    let trace = |options: tempo::api::TraceOptions| tempo::api::run(&ruleset, &s, None, options).expect("runs").text;
    let text = trace(tempo::api::TraceOptions::default());
    assert!(text.contains(&format!("\n  table: deck: {}", deck.join(", "))), "{text}");
    let json = trace(tempo::api::TraceOptions { jsonl: true, ..Default::default() });
    let last = json.lines().last().unwrap_or_default();
    assert!(last.contains(&format!(r#""shared_piles":{{"deck":["{}"]}}"#, deck[0])), "{last}");

    // A scenario fills the one deck by naming it under a participant: both draw from that.
    let records = play(&rules, 3, r#"piles: {"deck": ["dash", "guard", "strike"]},"#);
    let Some(Event::EncounterEnd { state, piles, .. }) = records.last().map(|r| &r.event) else { panic!("no end") };
    assert_eq!((state["A"].piles["hand"].len(), state["B"].piles["hand"].len(), piles.shared["deck"].len()), (2, 1, 0));
}

#[test]
fn a_deck_kept_per_side_is_one_for_each_side() {
    let rules = DEAL
        .replace("DRAW", "2")
        .replace("pile deck of cards { starts full }", "pile deck of cards { per side; starts full }");
    let s = scenario::parse(
        r#"(seed: 3, rounds: 1, participants: [
  (name: "A", side: "a", controller: Policy(Passive)),
  (name: "C", side: "a", controller: Policy(Passive)),
  (name: "B", side: "b", controller: Policy(Passive)),
])"#,
    )
    .expect("scenario parses");
    let records = run(&compiled(&rules), &s, None).expect("runs");
    let Some(Event::EncounterEnd { state, piles, .. }) = records.last().map(|r| &r.event) else { panic!("no end") };
    let left = |side: &str| piles.sides[side]["deck"].len();
    // A and C drew four of side a's five; B two of side b's.
    assert_eq!((left("a"), left("b")), (1, 3));
    assert!(piles.shared.is_empty() && !state["C"].piles.contains_key("deck"));
    let pool = |who: &str| state[who].pools.iter().find(|(k, _)| &***k == "left").map(|(_, v)| *v);
    assert_eq!((pool("A"), pool("C"), pool("B")), (Some(3), Some(1), Some(3)));
}

#[test]
fn hover_on_shared_in_a_pile_says_it_is_one_pile_for_the_encounter() {
    let text = "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\nitems cards { ace }\n\
                pile deck of cards { shared; starts full }\npile camp of cards { per side }\n";
    let sources = tempo::api::Sources::new().with("t.rules", text);
    let shared = tempo::api::hover(&sources, "t.rules", text.find("shared;").unwrap() + 2).unwrap();
    assert!(shared.contains("one pile for the whole encounter"), "{shared}");
    let side = tempo::api::hover(&sources, "t.rules", text.find("side }").unwrap() + 1).unwrap();
    assert!(side.contains("a pool or pile kept") && side.contains("pile deck of cards { per side }"), "{side}");
}

#[test]
fn enemy_side_reaches_the_other_sides_deck_kept_per_side() {
    let rules =
        "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\npool ap { max 1; refresh at turn_start }\n\
                 pool theirs { start 0 }\nitems cards { ace, king }\npile deck of cards { per side; starts full }\n\
                 pile hand of cards\naction steal { cost 1 ap; resolve { draw 1 from enemy_side.deck to hand; \
                 theirs = count(enemy_side.deck) } }\n";
    let records = play(rules, 1, "");
    let Some(Event::EncounterEnd { state, piles, .. }) = records.last().map(|r| &r.event) else { panic!("no end") };
    // A (B does nothing) takes side b's two cards over three rounds, and side a keeps its own.
    assert_eq!((piles.sides["a"]["deck"].len(), piles.sides["b"]["deck"].len()), (2, 0));
    assert_eq!((state["A"].piles["hand"].len(), pools(&records)["theirs"]), (2, 0));
}
