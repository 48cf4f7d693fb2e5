//! Turns pest's "expected one of these rules" into words a designer knows.

use super::Rule;

/// Groups of keywords that together mean "a clause of this block"; named as the group.
const GROUPS: &[(&[Rule], &str)] = &[
    (&[Rule::kw_pool, Rule::kw_action, Rule::kw_stat], "a declaration (`pool`, `stat`, `action`, `reaction`, `condition`, `round`, `initiative`, `limit`, `at`, ...)"),
    (&[Rule::kw_max, Rule::kw_refresh, Rule::kw_overspend], "a pool clause (`max`, `min`, `start`, `refresh`, `keep`, `lose`, `decay`, `convert`, `gain`, `overspend`, `when`, `rising`, `emit`, `shared`, `per side`)"),
    (&[Rule::kw_cost, Rule::kw_resolve, Rule::kw_requires], "an action clause (`cost`, `category`, `limit`, `target`, `requires`, `on`, `interrupts`, `ends_turn`, `rounds`, `interrupted`, `partner`, `partners`, `grants`, `resolve`)"),
    (&[Rule::kw_blocks, Rule::kw_lasts], "a condition clause (`blocks`, `implies`, `lasts`, `negative`, `positive`, `maintain`, `at`)"),
    (&[Rule::kw_value, Rule::kw_ties], "an initiative clause (`value`, `made`, `adjust`, `range`, `order`, `ties`, `allow`, `reorder`, `slots`)"),
    (&[Rule::kw_apply, Rule::kw_emit], "an effect (`pool -= n`, `apply`, `remove`, `emit`, `if`, `choose`, `check`, `move`, `push`, `pay`, `do`, `take`, `drop`, `end_turn`, ...)"),
    (&[Rule::dice, Rule::int, Rule::path], "a value (a number, dice like `1d20`, or a name)"),
    (&[Rule::turns_phase, Rule::simultaneous_phase], "a phase kind (`turns`, `simultaneous`, `step`)"),
    (&[Rule::kw_slows, Rule::kw_blocks], "a terrain clause (`slows`, `blocks`)"),
];

/// What [`describe`] says when none of the rules it is given has a name.
pub(crate) const NOTHING_NAMED: &str = "something else";

/// The operators that could continue an expression, as pest tries them: never named as what a
/// syntax error expected (see [`describe`]).
pub(crate) const OPERATOR_MARKS: &[&str] = &["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!="];

/// An operator that could continue an expression.
pub(crate) fn continuation(r: &Rule) -> bool {
    matches!(
        r,
        Rule::cmp_op
            | Rule::add_op
            | Rule::mul_op
            | Rule::kw_or
            | Rule::kw_and
            | Rule::kw_has
            | Rule::kw_is
            | Rule::kw_holds
    )
}

/// A description of what the parser expected, e.g. "`{` or a pool clause (...)".
/// `operators`: whether the operators that could continue an expression are named when nothing
/// else was expected.
pub fn describe(positives: &[Rule], operators: bool) -> String {
    // An expression could always go on (`+`, `and`, ...); when something else could come too,
    // that something else is what the designer meant, and the operators are noise.
    let filtered: Vec<Rule> = positives.iter().copied().filter(|r| !continuation(r)).collect();
    let positives: &[Rule] = if filtered.is_empty() && operators { positives } else { &filtered };
    let mut words: Vec<String> = Vec::new();
    let mut covered: Vec<Rule> = Vec::new();
    for (members, name) in GROUPS {
        if members.iter().all(|m| positives.contains(m)) {
            words.push((*name).to_string());
            covered.extend(group_extent(members));
        }
    }
    for rule in positives {
        if covered.contains(rule) {
            continue;
        }
        if let Some(word) = word(*rule) {
            if !words.iter().any(|w| w == word) {
                words.push(word.to_string());
            }
        }
    }
    match words.len() {
        0 => NOTHING_NAMED.to_string(),
        1 => words.remove(0),
        _ => {
            let last = words.pop().unwrap_or_default();
            format!("{} or {}", words.join(", "), last)
        }
    }
}

/// The keywords the parser would have taken (`resolve`, `cost`, ...), groups spelt out, for a
/// "did you mean" on a misspelt one.
pub fn keywords(positives: &[Rule]) -> Vec<&'static str> {
    let mut rules: Vec<Rule> = positives.to_vec();
    // Where a declaration may start, pest names the rule (`item`, ...), not its keywords; a
    // misspelt keyword there (`reacton`) is still meant as one of them.
    if positives.iter().any(|r| matches!(r, Rule::item | Rule::decl | Rule::file_step | Rule::file_tail)) {
        rules.extend([Rule::kw_pool, Rule::kw_action, Rule::kw_stat]);
    }
    let named = rules.clone();
    for (members, _) in GROUPS {
        if members.iter().all(|m| named.contains(m)) {
            rules.extend(group_extent(members));
        }
    }
    let mut out: Vec<&'static str> = rules
        .into_iter()
        .filter(|r| format!("{r:?}").starts_with("kw_"))
        .filter_map(word)
        .map(|w| w.trim_matches('`'))
        .filter(|w| !w.contains(' '))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The keywords that begin a declaration (`pool`, `action`, ...).
pub(crate) fn declaration_keywords() -> Vec<&'static str> {
    keywords(&[Rule::kw_pool, Rule::kw_action, Rule::kw_stat])
}

/// Every rule a group's name stands for, so they are not listed again one by one.
fn group_extent(members: &[Rule]) -> Vec<Rule> {
    use Rule::*;
    match members.first() {
        Some(kw_pool) => vec![
            kw_override,
            kw_remove,
            kw_title,
            kw_stat,
            kw_derive,
            kw_category,
            kw_event,
            kw_pool,
            kw_condition,
            kw_initiative,
            kw_round,
            kw_priority,
            kw_chains,
            kw_limit,
            kw_default,
            kw_action,
            kw_free,
            kw_reaction,
            kw_preparation,
            kw_activity,
            kw_trigger,
            kw_at,
            kw_space,
            kw_surprise,
            kw_downtime,
            kw_rest,
            kw_outro,
            kw_state_order,
            kw_sequence,
            kw_hook,
            kw_effect,
            kw_degrees,
            kw_reach,
            kw_terrain,
            kw_object,
            kw_items,
            kw_pile,
            kw_die,
            decl,
            item,
            remove_item,
        ],
        Some(kw_max) => vec![
            kw_max,
            kw_min,
            kw_start,
            kw_refresh,
            kw_keep,
            kw_lose,
            kw_decay,
            kw_convert,
            kw_gain,
            kw_overspend,
            kw_when,
            kw_rising,
            kw_emit,
            kw_shared,
            kw_per,
        ],
        Some(kw_cost) => vec![
            kw_cost,
            kw_partner,
            kw_category,
            kw_limit,
            kw_target,
            kw_requires,
            kw_on,
            kw_interrupts,
            kw_ends_turn,
            kw_rounds,
            kw_interrupted,
            kw_partners,
            kw_grants,
            kw_resolve,
        ],
        Some(kw_blocks) => vec![kw_blocks, kw_implies, kw_lasts, kw_negative, kw_positive, kw_maintain, kw_at],
        Some(kw_value) => {
            vec![kw_value, kw_made, kw_adjust, kw_range, kw_order, kw_ties, kw_allow, kw_reorder, kw_slots]
        }
        Some(kw_apply) => vec![
            kw_if,
            kw_apply,
            kw_remove,
            kw_emit,
            kw_choose,
            kw_check,
            kw_move,
            kw_push,
            kw_pay,
            kw_follow,
            kw_repeat,
            kw_for,
            kw_end_turn,
            kw_end_encounter,
            kw_cancel,
            kw_roll_initiative,
            kw_clear_conditions,
            kw_do,
            kw_take,
            kw_handle,
            kw_drop,
            kw_roll,
            path,
            ident,
            simple_stmt,
            assign_stmt,
        ],
        Some(dice) => vec![dice, int, path, ident, call, paren, boolean, kw_true, kw_false, neg, unary, zero],
        Some(turns_phase) => vec![turns_phase, simultaneous_phase, step_phase, kw_turns, kw_simultaneous, kw_step],
        Some(kw_slows) => vec![kw_slows, kw_blocks],
        _ => members.to_vec(),
    }
}

/// The words for one rule, or `None` for rules that never appear alone in a message.
fn word(rule: Rule) -> Option<&'static str> {
    use Rule::*;
    Some(match rule {
        EOI => "the end of the file",
        file | file_head | header | kw_ruleset => "`ruleset NAME`",
        ident => "a name",
        pool_name => "a pool name",
        condition_name => "a condition name",
        item | decl | file_step | file_tail => {
            "a declaration (`pool`, `stat`, `action`, `reaction`, `condition`, `round`, `initiative`, ...)"
        }
        string | string_inner => "text in double quotes",
        int | zero => "a number",
        dice => "dice like `1d20`",
        expr | or_expr | and_expr | not_expr | cmp_expr | sum | product | unary | primary | path | call | paren
        | boolean | neg => "a value",
        cmp_op => "a comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`)",
        add_op => "`+` or `-`",
        mul_op => "`*`, `/` or `%`",
        assign_op => "`=`, `+=` or `-=`",
        block => "`{`",
        timing | at_timing => "a timing like `turn_start`",
        period => "`turn`, `round`, `encounter`, `trigger` or `phase`",
        duration | until_duration | for_duration | while_duration => {
            "a duration (`until ...`, `for N rounds`, `while ...`)"
        }
        action_kind => "an action kind (`action`, `free`, `reaction`, `preparation`, `activity`)",
        decl_kind => "a declaration kind (`pool`, `stat`, `action`, `condition`, ...)",
        cost_terms | cost_term => "a cost like `2 ap`",
        tiebreak => {
            "a tie-break (`higher STAT`, `roll d6`, `players_first`, `non_players_first`, `simultaneous`, `gm`)"
        }
        guard => "`if` or `unless`",
        cap => "`at most N per PERIOD`",
        on_event => "`on EVENT`",
        outcome => "an outcome (`success`, `failure`, `critical`, `fumble`)",
        choice_option => "an option like `wound: { ... }`",
        die_face => "a face: its symbols, or `-`",
        kw_die | die_item => "`die`",
        kw_faces => "`faces`",
        phase => "`phase NAME: KIND`",
        blocked => "what it blocks (`actions`, `reactions`, `movement`, `spend POOL`, ...)",
        _ => return keyword(rule),
    })
}

/// The words for a keyword (or a rule that is only its keyword), or `None`.
fn keyword(rule: Rule) -> Option<&'static str> {
    use Rule::*;
    Some(match rule {
        kw_extends => "`extends`",
        kw_override => "`override`",
        kw_remove => "`remove`",
        kw_title => "`title`",
        kw_stat => "`stat`",
        kw_derive => "`derive`",
        kw_category => "`category`",
        kw_event => "`event`",
        kw_pool => "`pool`",
        kw_max => "`max`",
        kw_min => "`min`",
        kw_none => "`none`",
        kw_start => "`start`",
        kw_refresh => "`refresh`",
        kw_keep => "`keep`",
        kw_lose => "`lose`",
        kw_decay => "`decay`",
        kw_convert => "`convert`",
        kw_into => "`into`",
        kw_gain => "`gain`",
        kw_most => "`most`",
        kw_per => "`per`",
        kw_overspend => "`overspend`",
        kw_to => "`to`",
        kw_when => "`when`",
        kw_at => "`at`",
        kw_if => "`if`",
        kw_unless => "`unless`",
        kw_else => "`else`",
        kw_turn => "`turn`",
        kw_round => "`round`",
        kw_rounds => "`rounds`",
        kw_encounter => "`encounter`",
        kw_trigger => "`trigger`",
        kw_phase => "`phase`",
        kw_condition => "`condition`",
        kw_blocks => "`blocks`",
        kw_spend => "`spend`",
        kw_implies => "`implies`",
        kw_lasts => "`lasts`",
        kw_negative => "`negative`",
        kw_positive => "`positive`",
        kw_maintain => "`maintain`",
        kw_maintained => "`maintained`",
        kw_until => "`until`",
        kw_repeat => "`repeat`",
        kw_different => "`different`",
        kw_for => "`for`",
        kw_while => "`while`",
        kw_initiative => "`initiative`",
        kw_value => "`value`",
        kw_made => "`made`",
        kw_adjust => "`adjust`",
        kw_up => "`up`",
        kw_range => "`range`",
        kw_order => "`order`",
        kw_ties => "`ties`",
        kw_then => "`then`",
        kw_higher => "`higher`",
        kw_roll => "`roll`",
        kw_allow => "`allow`",
        kw_turns | turns_phase => "`turns`",
        kw_simultaneous | simultaneous_phase => "`simultaneous`",
        kw_step | step_phase => "`step`",
        kw_priority => "`priority`",
        kw_chains => "`chains`",
        kw_depth => "`depth`",
        kw_limit => "`limit`",
        kw_each => "`each`",
        kw_default => "`default`",
        kw_cost => "`cost`",
        kw_action => "`action`",
        kw_free => "`free`",
        kw_reaction => "`reaction`",
        kw_preparation => "`preparation`",
        kw_activity => "`activity`",
        kw_partner => "`partner`",
        kw_target => "`target`",
        kw_within => "`within`",
        kw_requires => "`requires`",
        kw_on => "`on`",
        kw_by => "`by`",
        kw_against => "`against`",
        kw_interrupts => "`interrupts`",
        kw_interrupted => "`interrupted`",
        kw_partners => "`partners`",
        kw_ends_turn => "`ends_turn`",
        kw_resolve => "`resolve`",
        kw_space => "`space`",
        kw_surprise => "`surprise`",
        kw_downtime => "`downtime`",
        kw_every => "`every`",
        kw_hours => "`hours`",
        kw_minutes => "`minutes`",
        kw_hour => "`hour`",
        kw_rest => "`rest`",
        kw_outro => "`outro`",
        kw_ends => "`ends`",
        kw_continues => "`continues`",
        kw_state_order => "`state_order`",
        kw_sequence => "`sequence`",
        kw_apply => "`apply`",
        kw_applies => "`applies`",
        kw_hook => "`hook`",
        kw_from => "`from`",
        kw_emit => "`emit`",
        kw_do => "`do`",
        kw_effect => "`effect`",
        kw_degrees => "`degrees`",
        kw_reach => "`reach`",
        kw_immediately => "`immediately`",
        kw_rising => "`rising`",
        kw_shared => "`shared`",
        kw_opponent => "`opponent`",
        kw_down => "`down`",
        kw_choose => "`choose`",
        kw_check => "`check`",
        kw_vs => "`vs`",
        kw_move => "`move`",
        kw_leap => "`leap`",
        kw_take => "`take`",
        kw_handle => "`handle`",
        kw_drop => "`drop`",
        kw_toward => "`toward`",
        kw_holds => "`holds`",
        kw_terrain => "`terrain`",
        kw_object => "`object`",
        kw_slows => "`slows`",
        kw_push => "`push`",
        kw_pay => "`pay`",
        kw_follow => "`follow`",
        kw_end_turn => "`end_turn`",
        kw_end_encounter => "`end_encounter`",
        kw_cancel => "`cancel`",
        kw_roll_initiative => "`roll_initiative`",
        kw_clear_conditions => "`clear_conditions`",
        kw_or => "`or`",
        kw_and => "`and`",
        kw_not => "`not`",
        kw_except => "`except`",
        kw_has => "`has`",
        kw_is => "`is`",
        kw_true => "`true`",
        kw_false => "`false`",
        _ => return turn_order_keyword(rule),
    })
}

/// The initiative clauses that say how turns move and whose they are (and `optional`, of an
/// upkeep; `side`, of `per side`).
fn turn_order_keyword(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::kw_optional => "`optional`",
        Rule::kw_side => "`side`",
        Rule::kw_reorder => "`reorder`",
        Rule::kw_slots => "`slots`",
        Rule::kw_grants => "`grants`",
        Rule::kw_actions => "`actions`",
        _ => return pile_word(r),
    })
}

/// The words of sets of items and their piles.
fn pile_word(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::kw_items => "`items`",
        Rule::kw_pile => "`pile`",
        Rule::kw_of => "`of`",
        Rule::kw_starts => "`starts`",
        Rule::kw_full => "`full`",
        Rule::kw_draw => "`draw`",
        Rule::kw_all => "`all`",
        Rule::kw_random => "`random`",
        Rule::kw_highest => "`highest`",
        Rule::kw_lowest => "`lowest`",
        Rule::item_kind => "a kind of item like `strike x2`",
        Rule::item_times => "how many of a kind, like `x2`",
        Rule::item_value => "the number of a kind of item, like `2` or `-1`",
        Rule::pile_ref => "a pile like `hand` or `target.hand`",
        Rule::pile_pick => "which items (a kind, `random`, `random N`, `all`, `highest` or `lowest`)",
        _ => return loop_word(r),
    })
}

/// The words of a loop over participants (`for each ally within 3 where ...`).
fn loop_word(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::kw_where => "`where`",
        Rule::each_stmt => "a loop like `for each ally { ... }`",
        _ => return None,
    })
}
