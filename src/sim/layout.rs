//! Where each count of one encounter lives: a flat vector of integers, the same for every run of
//! a ruleset and scenario, so that runs add up position by position and nothing is looked up by
//! name while they are played.

use crate::ir::Ruleset;
use crate::run::scenario::{Resolved, Scenario};
use serde::{Deserialize, Serialize};

/// What a simulation counts, by name, in the order the counts are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    pub participants: Vec<String>,
    pub sides: Vec<String>,
    /// Each participant's side (an index into `sides`).
    pub(crate) side_of: Vec<usize>,
    pub pools: Vec<String>,
    pub actions: Vec<String>,
    /// Each action's kind word (`action`, `reaction`, ...).
    pub kinds: Vec<String>,
    pub conditions: Vec<String>,
    /// The scenario's round limit.
    pub round_limit: u32,
    /// Per pool: some cost names it (an action's or reaction's, a combo partner's, a cost
    /// adjustment's). A pool none names is a counter: nothing is ever paid from it, so nothing
    /// it loses is counted as lost.
    #[serde(default)]
    pub(crate) payable: Vec<bool>,
}

/// Per pool of the ruleset: whether some cost names it (decided from the IR alone).
fn payable(r: &Ruleset) -> Vec<bool> {
    let mut out = vec![false; r.pools.len()];
    let mut name = |c: &crate::ir::Cost| {
        if let Some(p) = out.get_mut(c.pool.index()) {
            *p = true;
        }
    };
    for a in &r.actions {
        a.costs.iter().flat_map(|rule| &rule.terms).for_each(&mut name);
        a.partner_cost.iter().for_each(&mut name);
    }
    for adjust in &r.cost_adjustments {
        if let crate::ir::CostAdjustOp::Add(costs) = &adjust.op {
            costs.iter().for_each(&mut name);
        }
    }
    out
}

/// The encounter's outcomes after the sides: nobody standing, the round limit reached with more
/// than one side standing, stopped by a rule with more than one side standing.
pub(crate) const OTHER_OUTCOMES: [&str; 3] = ["nobody left standing", "round limit", "stopped by a rule"];

/// What kind of number a count is, and so how it is summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 0 or 1 per encounter: a proportion (Wilson interval).
    Indicator,
    /// A count per encounter: a mean (normal interval).
    Count,
}

impl Layout {
    pub fn new(r: &Ruleset, s: &Scenario, setup: &Resolved) -> Layout {
        Layout {
            participants: setup.names.clone(),
            sides: setup.side_names.clone(),
            side_of: setup.sides.iter().map(|s| *s as usize).collect(),
            pools: r.pools.iter().map(|p| p.name.clone()).collect(),
            actions: r.actions.iter().map(|a| a.name.clone()).collect(),
            kinds: r.actions.iter().map(|a| a.kind.word().to_string()).collect(),
            conditions: r.conditions.iter().map(|c| c.name.clone()).collect(),
            round_limit: s.rounds,
            payable: payable(r),
        }
    }

    fn n(&self) -> usize {
        self.participants.len()
    }

    pub const ROUNDS: usize = 0;
    /// Reactions declared.
    pub const ANSWERS: usize = 1;
    /// Chains of reactions (a reaction to an action starts one).
    pub(crate) const CHAINS: usize = 2;
    const OUTCOME: usize = 3;

    pub fn outcomes(&self) -> usize {
        self.sides.len() + OTHER_OUTCOMES.len()
    }

    pub fn outcome(&self, k: usize) -> usize {
        Self::OUTCOME + k
    }

    pub(crate) fn outcome_name(&self, k: usize) -> String {
        match self.sides.get(k) {
            Some(side) => format!("{side} left standing"),
            None => OTHER_OUTCOMES.get(k - self.sides.len()).copied().unwrap_or("other").to_string(),
        }
    }

    fn per_who(&self) -> usize {
        self.outcome(self.outcomes())
    }

    /// The participant's turns (in which it could act).
    pub fn turns(&self, who: usize) -> usize {
        self.per_who() + 2 * who
    }

    /// Turns that began with nothing affordable.
    pub fn stuck(&self, who: usize) -> usize {
        self.per_who() + 2 * who + 1
    }

    fn per_pool(&self) -> usize {
        self.per_who() + 2 * self.n()
    }

    fn pool_at(&self, who: usize, pool: usize, what: usize) -> usize {
        self.per_pool() + 3 * (who * self.pools.len() + pool) + what
    }

    pub fn spent(&self, who: usize, pool: usize) -> usize {
        self.pool_at(who, pool, 0)
    }

    pub fn lost(&self, who: usize, pool: usize) -> usize {
        self.pool_at(who, pool, 1)
    }

    pub fn overspent(&self, who: usize, pool: usize) -> usize {
        self.pool_at(who, pool, 2)
    }

    fn per_action(&self) -> usize {
        self.per_pool() + 3 * self.n() * self.pools.len()
    }

    pub fn uses(&self, who: usize, action: usize) -> usize {
        self.per_action() + who * self.actions.len() + action
    }

    fn per_condition(&self) -> usize {
        self.per_action() + self.n() * self.actions.len()
    }

    /// Times the condition was applied.
    pub fn applied(&self, who: usize, condition: usize) -> usize {
        self.per_condition() + 2 * (who * self.conditions.len() + condition)
    }

    /// 1 if the condition was applied at all in the encounter.
    pub fn ever(&self, who: usize, condition: usize) -> usize {
        self.applied(who, condition) + 1
    }

    pub fn len(&self) -> usize {
        self.per_condition() + 2 * self.n() * self.conditions.len()
    }

    /// `len`, or None when it would not fit a `usize` (a forged layout read from a file).
    pub fn checked_len(&self) -> Option<usize> {
        let n = self.n() as u128;
        let len = 3
            + self.outcomes() as u128
            + 2 * n
            + 3 * n * self.pools.len() as u128
            + n * self.actions.len() as u128
            + 2 * n * self.conditions.len() as u128;
        usize::try_from(len).ok()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How a count is summarised.
    pub fn kind(&self, at: usize) -> Kind {
        let outcome = (self.outcome(0)..self.outcome(self.outcomes())).contains(&at);
        let ever = at >= self.per_condition() && (at - self.per_condition()) % 2 == 1;
        if outcome || ever {
            Kind::Indicator
        } else {
            Kind::Count
        }
    }

    /// A stable name for each count, used to pair the counts of two rulesets in a comparison:
    /// `rounds`, `outcome/heroes wins`, `pool/Aria/ap/spent`, `action/Aria/attack/uses`, ...
    pub fn keys(&self) -> Vec<String> {
        let mut keys = vec![String::new(); self.len()];
        keys[Self::ROUNDS] = "rounds".into();
        keys[Self::ANSWERS] = "reactions".into();
        keys[Self::CHAINS] = "chains".into();
        for k in 0..self.outcomes() {
            keys[self.outcome(k)] = format!("outcome/{}", self.outcome_name(k));
        }
        for (w, who) in self.participants.iter().enumerate() {
            keys[self.turns(w)] = format!("turns/{who}");
            keys[self.stuck(w)] = format!("stuck/{who}");
            for (p, pool) in self.pools.iter().enumerate() {
                keys[self.spent(w, p)] = format!("pool/{who}/{pool}/spent");
                keys[self.lost(w, p)] = format!("pool/{who}/{pool}/lost");
                keys[self.overspent(w, p)] = format!("pool/{who}/{pool}/overspends");
            }
            for (a, action) in self.actions.iter().enumerate() {
                keys[self.uses(w, a)] = format!("action/{who}/{action}/uses");
            }
            for (c, condition) in self.conditions.iter().enumerate() {
                keys[self.applied(w, c)] = format!("condition/{who}/{condition}/applied");
                keys[self.ever(w, c)] = format!("condition/{who}/{condition}/ever");
            }
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout {
            participants: vec!["a".into(), "b".into(), "c".into()],
            sides: vec!["x".into(), "y".into()],
            side_of: vec![0, 1, 1],
            pools: vec!["ap".into(), "hp".into()],
            actions: vec!["hit".into(), "dodge".into(), "run".into()],
            kinds: vec!["action".into(), "reaction".into(), "action".into()],
            conditions: vec!["down".into()],
            round_limit: 10,
            payable: vec![true, false],
        }
    }

    #[test]
    fn the_checked_length_is_the_length() {
        assert_eq!(layout().checked_len(), Some(layout().len()));
    }

    #[test]
    fn every_count_has_its_own_place_and_a_name() {
        let l = layout();
        let keys = l.keys();
        assert_eq!(keys.len(), l.len());
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), keys.len(), "two counts share a place: {keys:?}");
        assert!(keys.iter().all(|k| !k.is_empty()), "a place with no name: {keys:?}");
        assert_eq!(keys[l.ever(2, 0)], "condition/c/down/ever");
        assert_eq!(keys[l.overspent(1, 1)], "pool/b/hp/overspends");
    }

    #[test]
    fn outcomes_and_ever_are_proportions_the_rest_are_counts() {
        let l = layout();
        for (at, key) in l.keys().iter().enumerate() {
            let want =
                if key.starts_with("outcome/") || key.ends_with("/ever") { Kind::Indicator } else { Kind::Count };
            assert_eq!(l.kind(at), want, "{key}");
        }
    }
}
