//! The tables: what the runner works out once per ruleset and scenario, before the first event,
//! and only reads from then on. Every engine playing the scenario shares one (`Engine::tables`),
//! so a playout copied from an engine copies none of it.

use super::controller::Step;
use super::costs::Costs;
use super::scenario::{Policy, Resolved, Seating};
use super::shape::Shape;
use crate::ir::validate::ChoiceSite;
use crate::ir::{self, Ruleset};

#[derive(Debug)]
pub struct Tables {
    /// Per action: what planning asks of it again and again, found once.
    pub shapes: Vec<Shape>,
    /// Per action, its cost if it can never change (`shape::fixed_costs`).
    pub fixed_costs: Vec<Option<(Costs, Option<ir::Loc>)>>,
    /// Per event slot of the dispatch table, who can answer it (`shape::answerable`).
    pub answerable: Vec<u8>,
    /// Per action, the same for the event of its use: its own slot, its categories' and its
    /// kind's together (`shape::answerable_action`).
    pub answerable_action: Vec<u8>,
    /// Per trigger: a condition it needs its owner to hold (`shape::trigger_needs`).
    pub trigger_needs: Vec<Option<ir::ConditionId>>,
    /// Some pool's payments are an event (`emit EVENT on spend`).
    pub(crate) spend_events: bool,
    /// Some script holds a `React` step: only then can anyone add a second answer to an event.
    pub(crate) scripted_reactions: bool,
    /// How the GM decides what the scenario does not answer.
    pub gm: Policy,
    /// The scenario's standing answers to GM questions, per `choose gm` that asks one: (where
    /// the `choose` is written, option index). Found by place, not by question, at run time.
    pub gm_answers: Vec<(ir::Loc, usize)>,
    /// Per scripted answer (`Resolved::answers`): each `choose` of the ruleset that has an
    /// option of that name, with the option's index.
    pub script_answers: Vec<Vec<(ir::Loc, usize)>>,
    /// Where each optional upkeep's `choose` is written (`maintain ... optional`): the built-in
    /// policies other than `Random` and `Search` pay it, unless it harms (decide/upkeep.rs).
    pub upkeeps: Vec<ir::Loc>,
    /// Per pool: its points last a turn or a round at most (an unguarded `refresh` or `lose`
    /// at a turn, round or phase timing), so what it does not pay for now it never will:
    /// `Greedy` counts what else its points could buy this round against a candidate.
    pub per_round: Vec<bool>,
    /// Per participant and action (`who * actions + action`), whether its loadout has the
    /// action; `None` when nobody's is limited. Read at every plan, so resolved here, once.
    loadouts: Option<Box<[bool]>>,
    actions: usize,
    /// How the participants are seated (a random seating is drawn and written at each run).
    pub seating: Seating,
}

impl Tables {
    pub fn new(r: &Ruleset, setup: &Resolved, gm: Policy) -> Tables {
        let sites = ir::validate::choices(r);
        Tables {
            shapes: Shape::of_all(r),
            fixed_costs: super::shape::fixed_costs(r),
            answerable: super::shape::answerable(r),
            answerable_action: super::shape::answerable_action(r),
            trigger_needs: super::shape::trigger_needs(r),
            spend_events: r.pools.iter().any(|p| p.on_spend.is_some()),
            scripted_reactions: setup
                .controllers
                .iter()
                .any(|c| c.steps.iter().any(|s| matches!(s, Step::React { .. }))),
            gm,
            gm_answers: gm_answers(&sites, setup),
            script_answers: script_answers(&sites, setup),
            upkeeps: r
                .conditions
                .iter()
                .flat_map(|c| c.optional_maintain.iter().filter_map(|&i| c.maintain.get(i as usize).map(|m| m.2)))
                .collect(),
            per_round: r.pools.iter().map(per_round).collect(),
            loadouts: loadouts(r, setup),
            actions: r.actions.len(),
            seating: setup.seating,
        }
    }

    /// Whether `who`'s loadout leaves out action `a`: its controller is never offered it.
    #[inline]
    pub fn lacks(&self, who: usize, a: ir::ActionId) -> bool {
        match &self.loadouts {
            None => false,
            Some(has) => has.get(who * self.actions + a.index()).is_some_and(|h| !h),
        }
    }
}

/// The scenario's loadouts, flat (`Tables::loadouts`); `None` when nobody names one.
fn loadouts(r: &Ruleset, setup: &Resolved) -> Option<Box<[bool]>> {
    if setup.loadouts.iter().all(Option::is_none) {
        return None;
    }
    let every = vec![true; r.actions.len()];
    Some(setup.loadouts.iter().flat_map(|l| l.as_deref().unwrap_or(&every).iter().copied()).collect())
}

/// Whether a pool's points last a turn or a round at most: some unguarded step refreshes
/// (overwrites) or empties it at a timing that comes every turn or round.
fn per_round(pool: &ir::Pool) -> bool {
    use ir::Timing as T;
    pool.at.iter().any(|step| {
        step.guard.is_none()
            && matches!(step.op, ir::PoolOp::Refresh | ir::PoolOp::Lose)
            && matches!(
                step.timing,
                T::RoundStart | T::RoundEnd | T::TurnStart | T::TurnEnd | T::PhaseStart(_) | T::PhaseEnd(_)
            )
    })
}

/// Each `choose gm` whose question the scenario answers, with the answer's index. A question
/// asked in several places is answered the same in each (by the index found for the first).
fn gm_answers(sites: &[ChoiceSite], setup: &Resolved) -> Vec<(ir::Loc, usize)> {
    sites
        .iter()
        .filter(|site| site.chooser == ir::Chooser::Gm)
        .filter_map(|site| {
            let (_, i) = setup.gm_answers.iter().find(|(q, _)| *q == site.question)?;
            Some((site.loc, *i))
        })
        .collect()
}

/// For each scripted answer, every `choose` with an option of that name, and its index.
fn script_answers(sites: &[ChoiceSite], setup: &Resolved) -> Vec<Vec<(ir::Loc, usize)>> {
    setup
        .answers
        .iter()
        .map(|answer| {
            sites.iter().filter_map(|site| Some((site.loc, site.options.iter().position(|o| o == answer)?))).collect()
        })
        .collect()
}
