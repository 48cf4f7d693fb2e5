//! Behaviour of variants and the newer language forms, asserted on the IR.

use std::path::Path;
use tempo::check::{compile_with, MemoryLoader};
use tempo::diagnostics::Code;
use tempo::ir::{self, Expr, PoolOp, Timing, Who};

const BASE: &str = r#"ruleset base
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start; keep at turn_end }
pool hp { max 10 }
hook full_hp at encounter_start { hp = hp.max }
downtime hp_rest every 3 hours { hp += hp.max / 2 }
limit each free: 1 per round
free action draw { resolve { } }
reaction parry { cost 1 ap; on attack against self }
action attack { target enemy; resolve { target.hp -= 2 } }
"#;

fn variant(text: &str) -> tempo::check::Compilation {
    let loader = MemoryLoader::new().with("base.rules", BASE).with("v.rules", text);
    compile_with(&loader, Path::new("v.rules"))
}

fn codes(c: &tempo::check::Compilation) -> Vec<Code> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn an_override_replaces_only_the_clause_kinds_it_states_in_place() {
    let c = variant("ruleset v extends \"base.rules\"\noverride pool ap { max 2 }\n");
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    let ap = &ir.pools[0];
    assert_eq!(ap.max, Some(Expr::Int(2)));
    assert_eq!(ap.at.len(), 2, "refresh and keep are kept");
    assert_eq!((ap.at[0].timing, &ap.at[0].op), (Timing::TurnStart, &PoolOp::Refresh));
}

#[test]
fn named_hooks_and_downtime_can_be_overridden_and_removed() {
    let c = variant(
        "ruleset v extends \"base.rules\"\nremove hook full_hp\noverride downtime hp_rest every 1 hour { hp += 1 }\n",
    );
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    assert!(ir.hooks.is_empty());
    assert_eq!(ir.downtime.len(), 1);
    assert_eq!(ir.downtime[0].every_hours, Expr::Int(1));
}

#[test]
fn remove_limit_removes_every_limit_on_its_subject() {
    let c = variant("ruleset v extends \"base.rules\"\nremove limit free\nlimit reaction: 1 per round\n");
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    assert_eq!(ir.limits.len(), 1);
    assert_eq!(ir.limits[0].subject, ir::LimitSubject::Kind(ir::ActionKind::Reaction));
}

#[test]
fn removing_a_pool_that_is_still_named_is_an_error_where_it_is_named() {
    let c = variant("ruleset v extends \"base.rules\"\nremove pool ap\n");
    assert_eq!(codes(&c), vec![Code::UnknownPool]);
    assert_eq!(c.sources.name(c.diagnostics[0].primary.span.file), "base.rules");
}

#[test]
fn an_override_cannot_change_an_action_kind() {
    let c = variant("ruleset v extends \"base.rules\"\noverride action parry { cost 2 ap }\n");
    assert_eq!(codes(&c), vec![Code::OverrideUnknown]);
    assert!(c.diagnostics[0].help.as_deref().unwrap().contains("override reaction parry"));
    let fixed = variant("ruleset v extends \"base.rules\"\noverride reaction parry { cost 2 ap }\n");
    assert_eq!(codes(&fixed), vec![]);
}

#[test]
fn guarded_phases_surprise_and_victim_lower() {
    let text = "ruleset s
initiative { value 0 }
round { phase init if round == 1: simultaneous preparation, free; phase act: turns }
condition surprised
surprise round applies surprised
pool hp { max 5 }
event hit
trigger shield_ally { on hit by enemy against ally; requires distance(victim) <= 1; resolve { victim.hp += 1 } }
at encounter_start if surprise_round { hp -= 1 }
";
    let c = tempo::check::compile_str("s.rules", text);
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    assert!(ir.phases[0].guard.is_some() && ir.phases[1].guard.is_none());
    assert_eq!(ir.phases[0].kind, ir::PhaseKind::Simultaneous(vec![ir::ActionKind::Preparation, ir::ActionKind::Free]));
    assert_eq!(ir.surprise, Some(ir::Surprise { applies: Some(ir::ConditionId(0)) }));
    assert_eq!(
        ir.triggers[0].requires,
        vec![Expr::Compare(ir::CmpOp::Le, Box::new(Expr::Distance(Who::EventTarget)), Box::new(Expr::Int(1)))]
    );
}

#[test]
fn default_cost_applies_to_actions_and_reactions_only() {
    let text = "ruleset d
initiative { value 0 }
round { phase act: turns }
pool ap { max 3; refresh at turn_start }
default cost 1 ap
action a { }
event e
reaction r { on e }
free action f { }
preparation p { }
";
    let ir = tempo::check::compile_str("d.rules", text).ruleset.unwrap();
    let n_costs: Vec<usize> = ir.actions.iter().map(|a| a.costs.len()).collect();
    assert_eq!(n_costs, vec![1, 1, 0, 0]);
}

#[test]
fn dispatch_lists_who_answers_each_event() {
    let ir = variant("ruleset v extends \"base.rules\"\n").ruleset.unwrap();
    let attack = ir::EventRef::Action(ir::ActionId(2));
    assert_eq!(ir.dispatch.responders(attack), &[ir::Responder::Reaction(ir::ActionId(1))]);
    assert!(ir.dispatch.responders(ir::EventRef::Kind(ir::ActionKind::Free)).is_empty());
}

#[test]
fn doc_comments_attach_to_the_declaration_below() {
    let text = "ruleset d\n## Action Points.\n## Three per turn.\npool ap { max 3 }\n# plain\npool mp { max 3 }\n";
    let (file, diags) = tempo::syntax::parse(tempo::source::FileId(0), text);
    assert!(diags.is_empty());
    let file = file.unwrap();
    assert_eq!(file.items[0].doc.as_deref(), Some("Action Points.\nThree per turn."));
    assert_eq!(file.items[1].doc, None);
    assert_eq!(file.comments.len(), 3, "every comment is kept for the formatter");
}

#[test]
fn condition_magnitudes_check_modifiers_and_cost_adjustments_lower() {
    let text = "ruleset m
initiative { value 0 }
round { phase act: turns; phase upkeep: step }
pool hp { max 10 }
pool slots { max 5; refresh at turn_start }
pool energy { max 6; refresh at round_start }
downtime every 1 hour { hp += 1 }
condition poisoned { negative; at phase_start(upkeep) { hp -= self.poisoned } }
condition downed { modify checks by -4; modify checks with disadvantage }
action stab { cost 1 slots; target enemy; resolve { apply poisoned(2) to target for 3 rounds } }
reaction duck { cost 1 slots; on stab against self }
adjust cost reaction: + 1 energy
adjust cost all: * 4 when final_turn
";
    let c = tempo::check::compile_str("m.rules", text);
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    let poisoned = ir::ConditionId(0);
    assert_eq!(
        ir.conditions[0].hooks[0].1,
        vec![ir::Effect::Pool {
            who: Who::Owner,
            pool: ir::PoolId(0),
            op: ir::AssignOp::Sub,
            value: Expr::Condition(Who::Owner, poisoned),
        }]
    );
    assert_eq!(ir.conditions[1].check_modifier, Some(Expr::Neg(Box::new(Expr::Int(4)))));
    assert_eq!(ir.conditions[1].check_edge, Some(ir::Edge::Disadvantage));
    assert!(matches!(
        &ir.actions[0].effects[0],
        ir::Effect::Apply { magnitude: Some(Expr::Int(2)), who: Who::Target, .. }
    ));
    assert_eq!(ir.cost_adjustments.len(), 2);
    assert_eq!(ir.cost_adjustments[0].subject, Some(ir::LimitSubject::Kind(ir::ActionKind::Reaction)));
    assert_eq!(ir.cost_adjustments[1].subject, None);
    assert_eq!(ir.cost_adjustments[1].op, ir::CostAdjustOp::Scale(Expr::Int(4)));
}

#[test]
fn ranges_units_and_separators_are_checked() {
    let c = tempo::check::compile_str(
        "r.rules",
        "ruleset r; initiative { value 0; range 10 to 1 }; round { phase a: turns };\n\
         pool mp { max 3; refresh at turn_start }\naction move { cost 1 mp per zone; resolve { move mp } }\n",
    );
    assert_eq!(codes(&c), vec![Code::EmptyRange, Code::MisplacedClause]);
    let zones = tempo::check::compile_str(
        "z.rules",
        "ruleset z\ninitiative { value 0 }\nround { phase a: turns }\nspace zones: near, far\n\
         pool mp { max 3; refresh at turn_start }\naction move { cost 1 mp per zone; resolve { move mp } }\n",
    );
    assert_eq!(codes(&zones), vec![]);
}

#[test]
fn owner_is_a_chooser_not_a_participant() {
    let c = tempo::check::compile_str(
        "o.rules",
        "ruleset o\ninitiative { value 0 }\nround { phase a: turns }\npool hp { max 3 }\nat turn_start { owner.hp -= 1 }\n",
    );
    assert_eq!(codes(&c), vec![Code::UnknownOption]);
}

#[test]
fn a_note_between_a_doc_and_its_declaration_does_not_cut_the_doc() {
    let text = "ruleset d\n## Action Points.\n# 000, \"Action Points\"\npool ap { max 3 }\n\n## Separated.\n\npool mp { max 3 }\n";
    let (file, _) = tempo::syntax::parse(tempo::source::FileId(0), text);
    let file = file.unwrap();
    assert_eq!(file.items[0].doc.as_deref(), Some("Action Points."));
    assert_eq!(file.items[1].doc, None, "a blank line breaks the link");
}

#[test]
fn division_rounds_down_for_negative_values_too() {
    // -(7 / 2) is -3 but -7 / 2 rounds down to -4: the overspend floor below decides affordability.
    let text = "ruleset f\ninitiative { value 0 }\nround { phase a: turns }\n\
                pool e { max 0; refresh at turn_start; overspend to -7 / 2 { } }\naction a { cost 4 e }\n";
    let c = tempo::check::compile_str("f.rules", text);
    assert_eq!(codes(&c), vec![], "a floor of -4 makes a cost of 4 affordable");
    let text = text.replace("-7 / 2", "7 / -2");
    assert_eq!(codes(&tempo::check::compile_str("f.rules", &text)), vec![]);
    let text = text.replace("7 / -2", "-(7 / 2)");
    assert_eq!(codes(&tempo::check::compile_str("f.rules", &text)), vec![Code::Unaffordable]);
}

/// Issue 32: `count(...)` counts the dice of a pool or the participants of a relation; a yes/no
/// is a number only through `number(...)`, and the type error says so.
#[test]
fn count_and_number_lower_and_their_mistakes_are_named() {
    let c = variant(
        "ruleset v extends \"base.rules\"\nstat pool_size = 6\n\
         derive hits = count(12d6 >= 5) - count(dice(pool_size, 6) <= 1)\n\
         derive up = count(ally, hp > 0) + count(enemy)\n\
         derive prone_bonus = 2 * number(self has up_high)\ncondition up_high\n",
    );
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    let hits = &ir.derived.iter().find(|d| d.name == "hits").unwrap().value;
    let Expr::Binary(_, a, b) = hits else { panic!("{hits:?}") };
    assert_eq!(**a, Expr::CountDice(ir::CmpOp::Ge, Box::new([Expr::Int(12), Expr::Int(6), Expr::Int(5)])),);
    assert!(matches!(**b, Expr::CountDice(ir::CmpOp::Le, _)));
    let up = &ir.derived.iter().find(|d| d.name == "up").unwrap().value;
    let Expr::Binary(_, a, b) = up else { panic!("{up:?}") };
    assert!(matches!(&**a, Expr::CountWho(ir::Relation::Ally, c) if matches!(**c, Expr::Compare(..))));
    assert_eq!(**b, Expr::CountWho(ir::Relation::Enemy, Box::new(Expr::Bool(true))));
    let bonus = &ir.derived.iter().find(|d| d.name == "prone_bonus").unwrap().value;
    assert!(matches!(bonus, Expr::Binary(_, _, h) if matches!(**h, Expr::Has(..))));

    for (text, code) in [
        ("derive x = count(hp >= 5)", Code::BadCountCall),
        ("derive x = count(12d6)", Code::BadCountCall),
        ("derive x = count(ally, hp)", Code::TypeMismatch),
        ("derive x = count()", Code::BadCountCall),
        ("derive x = number(hp)", Code::TypeMismatch),
        ("derive x = number(hp > 0, hp > 1)", Code::WrongArity),
        ("action combo { partner cost 5 initiative }", Code::MisplacedClause),
    ] {
        let c = variant(&format!("ruleset v extends \"base.rules\"\n{text}\n"));
        assert_eq!(codes(&c), vec![code], "{text}");
    }
    let c = variant("ruleset v extends \"base.rules\"\nderive x = 2 * (hp > 0)\n");
    assert_eq!(codes(&c), vec![Code::TypeMismatch]);
    assert!(c.diagnostics[0].help.as_deref().unwrap_or("").contains("number(COND)"), "{:?}", c.diagnostics[0]);
}

/// Issue 32: `cost N initiative` in an action's own cost is paid from the initiative value,
/// beside the pools of the same clause.
#[test]
fn initiative_is_a_cost_of_an_action_only() {
    let c = variant("ruleset v extends \"base.rules\"\naction brace { cost 1 ap + 10 initiative }\n");
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    let brace = ir.actions.iter().find(|a| a.name == "brace").unwrap();
    assert_eq!(brace.costs[0].initiative, Some(Expr::Int(10)));
}

/// Issue 44, B2: `for 1 round` (as the docs' durations table writes it) parses as `for 1 rounds`
/// does, in `lasts` and in `apply`; only the plural parsed, and the error claimed an unclosed `{`.
#[test]
fn a_duration_of_one_round_is_written_in_the_singular() {
    let text = "ruleset singular
initiative { value 0 }
round { phase act: turns }
pool ap { max 1; refresh at turn_start }
condition dazed { lasts for 1 round }
condition slowed { lasts for 2 rounds }
action daze { cost 1 ap; target enemy; resolve { apply slowed to target for 1 round } }
";
    let c = tempo::check::compile_str("singular.rules", text);
    assert_eq!(codes(&c), vec![]);
    let ir = c.ruleset.unwrap();
    assert_eq!(ir.conditions[0].lasts, Some(ir::Duration::Rounds(Expr::Int(1))));
    assert_eq!(ir.conditions[1].lasts, Some(ir::Duration::Rounds(Expr::Int(2))));
    let ir::Effect::Apply { duration, .. } = &ir.actions[0].effects[0] else { panic!("{:?}", ir.actions[0].effects) };
    assert_eq!(duration.as_ref(), Some(&ir::Duration::Rounds(Expr::Int(1))));
}

/// The errors' codes (warnings, such as a pool these small rulesets never spend, left out).
fn errors(c: &tempo::check::Compilation) -> Vec<Code> {
    c.diagnostics.iter().filter(|d| d.severity == tempo::diagnostics::Severity::Error).map(|d| d.code).collect()
}

/// A ruleset of one phase `act`, with `rest` after it.
fn timing_rules(rest: &str) -> tempo::check::Compilation {
    let text =
        format!("ruleset t\ninitiative {{ value 0 }}\nround {{ phase act: turns }}\npool hp {{ max 10 }}\n{rest}\n");
    tempo::check::compile_str("t.rules", &text)
}

#[test]
fn a_timing_is_answered_with_on_and_misused_only_with_a_code() {
    // Answers that mean something: a turn's timing by a relation, with `actor`; a round's and a
    // phase's with neither; a gain; and a declared event named like a timing is that event.
    let c = timing_rules(
        "reaction counteract { cost 0; on turn_end by enemy; target enemy; resolve { actor.hp -= 1 } }
trigger muster { on round_start; resolve { hp += 1 } }
trigger rally { on phase_start(act); resolve { hp += 1 } }
pool cp { max none; start 0; gain 1 on turn_start by ally }",
    );
    assert_eq!(errors(&c), vec![]);
    let ir = c.ruleset.unwrap();
    assert_eq!(
        ir.actions[0].on.map(|on| (on.event, on.by)),
        Some((ir::EventRef::Timing(Timing::TurnEnd), Some(ir::Relation::Enemy)))
    );
    assert_eq!(ir.triggers[0].on.event, ir::EventRef::Timing(Timing::RoundStart));
    assert_eq!(ir.triggers[1].on.event, ir::EventRef::Timing(Timing::PhaseStart(ir::PhaseId(0))));
    assert_eq!(ir.pools[1].gains[0].on.event, ir::EventRef::Timing(Timing::TurnStart));
    let shadowed = timing_rules("event turn_end\ntrigger t { on turn_end; resolve { hp += 1 } }");
    assert_eq!(shadowed.ruleset.unwrap().triggers[0].on.event, ir::EventRef::Custom(ir::EventId(0)));
    // Each misuse is one `tempo::timing-answer`.
    for misuse in [
        "trigger t { on round_start by enemy; resolve { } }",
        "trigger t { on turn_end against self; resolve { } }",
        "trigger t { on turn_end; interrupts; resolve { } }",
        "trigger t { on turn_end; resolve { victim.hp -= 1 } }",
        "trigger t { on turn_end; resolve { cancel } }",
        "trigger t { on turn_end; resolve { redirect } }",
        "trigger t { on turn_end; resolve { trigger.amount -= 1 } }",
        "trigger t { on round_end; resolve { actor.hp -= 1 } }",
        "trigger t { on encounter_end; resolve { } }",
        "reaction r { cost 0; on phase_end(act); target enemy; resolve { } }",
    ] {
        assert_eq!(errors(&timing_rules(misuse)), vec![Code::TimingAnswer], "{misuse}");
    }
}

#[test]
fn an_optional_upkeep_is_a_choice_of_its_holder() {
    let c = timing_rules(
        "pool focus { max 3 }\ncondition warded { maintain at turn_start optional { pay 1 focus }; lasts maintained }",
    );
    assert_eq!(errors(&c), vec![]);
    let ir = c.ruleset.unwrap();
    let warded = &ir.conditions[0];
    assert_eq!(warded.optional_maintain, vec![0]);
    let [(Timing::TurnStart, effects, _)] = warded.maintain.as_slice() else { panic!("{:?}", warded.maintain) };
    let [ir::Effect::Choose { chooser: ir::Chooser::Owner, question, options, .. }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(question, "upkeep of warded");
    let names: Vec<&str> = options.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["pay", "lapse"]);
    assert!(matches!(options[0].effects.as_slice(), [ir::Effect::Pay(_)]));
    assert_eq!(options[1].effects, vec![ir::Effect::Cancel]);
    // Without `optional`, the upkeep is paid whenever it can be, as before.
    let plain = timing_rules("pool focus { max 3 }\ncondition warded { maintain at turn_start { pay 1 focus } }");
    let plain = plain.ruleset.unwrap();
    assert!(plain.conditions[0].optional_maintain.is_empty());
    assert!(matches!(plain.conditions[0].maintain[0].1.as_slice(), [ir::Effect::Pay(_)]));
}

/// Issue 44, mechanism 4: `for each` lowers to one loop with its relation, `within` and `where`;
/// an IR with a loop inside a loop (which the checker never writes) is refused when read.
#[test]
fn a_loop_over_participants_lowers_whole_and_a_nested_one_is_refused_in_an_ir() {
    let text = "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\npool hp { max 10 }\nstat reach = 2\n\
                action burst { cost 0; resolve { for each enemy within reach where hp > 0 { target.hp -= 1 } } }\n";
    let c = tempo::check::compile_str("t.rules", text);
    assert_eq!(codes(&c), vec![]);
    let mut ir = c.ruleset.unwrap();
    let ir::Effect::Each { relation, within, filter, body } = &ir.actions[0].effects[0] else {
        panic!("not a loop: {:?}", ir.actions[0].effects)
    };
    assert_eq!(*relation, ir::Relation::Enemy);
    assert!(within.is_some() && filter.is_some());
    assert!(matches!(body[..], [ir::Effect::Pool { who: Who::Target, .. }]));
    let inner = ir.actions[0].effects[0].clone();
    if let ir::Effect::Each { body, .. } = &mut ir.actions[0].effects[0] {
        body.push(inner);
    }
    let err = ir::Ruleset::from_ron(&ir.to_ron().unwrap()).expect_err("a nested loop is refused");
    assert!(err.contains("for each"), "{err}");
}

/// Greedy scores a loop as the sum of its passes: a burst that hits the three enemies near is
/// worth more than a jab at one, and a burst that reaches nobody is worth nothing.
#[test]
fn greedy_weighs_a_loop_by_every_participant_it_reaches() {
    let text = "ruleset t\ninitiative { value 0 }\nround { phase act: turns }\npool hp { max 10 }\npool ap { max 1; refresh at turn_start }\n\
                action burst { cost 1 ap; resolve { for each enemy within 2 { target.hp -= 1 } } }\n\
                action jab { cost 1 ap; target enemy; resolve { target.hp -= 2 } }\n";
    let ruleset = tempo::check::compile_str("t.rules", text).ruleset.expect("compiles");
    let first_action = |far: i64| {
        let s = tempo::run::scenario::parse(&format!(
            r#"(seed: 1, rounds: 1, participants: [
  (name: "A", side: "a", position: 0, controller: Policy(Greedy)),
  (name: "B", side: "b", position: 1, actions: [], controller: Policy(Passive)),
  (name: "C", side: "b", position: {far}, actions: [], controller: Policy(Passive)),
  (name: "D", side: "b", position: {far}, actions: [], controller: Policy(Passive)),
])"#
        ))
        .expect("scenario parses");
        let records = tempo::run::run(&ruleset, &s, None).expect("runs");
        records
            .iter()
            .find_map(|r| match &r.event {
                tempo::run::trace::Event::Action { actor, action, .. } if &**actor == "A" => Some(action.to_string()),
                _ => None,
            })
            .expect("A acts")
    };
    assert_eq!(first_action(2), "burst", "three enemies within 2: 3 damage against a jab's 2");
    assert_eq!(first_action(9), "jab", "one enemy within 2: 1 damage against a jab's 2");
}
