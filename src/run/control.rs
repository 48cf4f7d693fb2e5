//! Controllers: who decides what. A script's decisions come first; a policy decides the rest.

use super::scenario::{Controller, Policy, Step};
use super::state::Engine;
use super::RunError;
use crate::ir::{self, ActionKind};
use rand_core::RngCore;

/// A participant's controller and how far its script has been used.
#[derive(Debug, Clone)]
pub struct ControlState {
    pub spec: Controller,
    pub used: Vec<bool>,
    /// Actions taken in the current turn, to stop a policy that never ends its turn.
    pub taken: u32,
}

/// Most actions one controller may take in one turn.
const MAX_ACTIONS_PER_TURN: u32 = 50;

/// What to do next on one's turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Act { action: ir::ActionId, target: Option<usize>, units: Option<i64> },
    EndTurn,
}

impl ControlState {
    pub fn new(spec: Controller) -> ControlState {
        let n = match &spec {
            Controller::Script { steps, .. } => steps.len(),
            Controller::Policy(_) => 0,
        };
        ControlState { spec, used: vec![false; n], taken: 0 }
    }

    fn policy(&self) -> &Policy {
        match &self.spec {
            Controller::Policy(p) => p,
            Controller::Script { fallback, .. } => fallback,
        }
    }

    fn steps(&self) -> &[Step] {
        match &self.spec {
            Controller::Script { steps, .. } => steps,
            Controller::Policy(_) => &[],
        }
    }
}

impl Engine<'_> {
    fn action_id(&self, name: &str) -> Option<ir::ActionId> {
        self.r.actions.iter().position(|a| a.name == name).map(|i| ir::ActionId(i as u32))
    }

    fn participant(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The next decision of `who` on its turn (or in a declaration phase).
    pub fn ask_turn(&mut self, who: usize) -> Result<Decision, RunError> {
        let round = self.round;
        let control = &self.controls[who];
        if control.taken >= MAX_ACTIONS_PER_TURN {
            return Ok(Decision::EndTurn);
        }
        let steps = control.steps().to_vec();
        let mut scripted_round = false;
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Act { round: r, .. } | Step::EndTurn { round: r } if *r == round => {
                    scripted_round = true;
                    if self.controls[who].used[i] {
                        continue;
                    }
                    // An action waits for a phase that admits its kind.
                    if let Step::Act { action, .. } = step {
                        let kind = self.action_id(action).map(|a| self.r.actions[a.index()].kind);
                        let admitted = kind.is_some_and(|k| self.allowed.as_ref().is_some_and(|ks| ks.contains(&k)));
                        if kind.is_some() && !admitted {
                            continue;
                        }
                    }
                    self.controls[who].used[i] = true;
                    return Ok(match step {
                        Step::Act { action, target, units, .. } => match self.action_id(action) {
                            Some(a) => Decision::Act {
                                action: a,
                                target: target.as_deref().and_then(|t| self.participant(t)),
                                units: *units,
                            },
                            None => Decision::EndTurn,
                        },
                        _ => Decision::EndTurn,
                    });
                }
                _ => {}
            }
        }
        if scripted_round {
            return Ok(Decision::EndTurn);
        }
        let policy = self.controls[who].policy().clone();
        self.policy_turn(who, &policy)
    }

    fn candidates(&mut self, who: usize, policy: &Policy) -> Result<Vec<Decision>, RunError> {
        let r = self.r;
        let mut out = Vec::new();
        let targets_by_kind = |e: &Engine, kind: ir::TargetKind| -> Vec<Option<usize>> {
            let mut ts: Vec<usize> = (0..e.n).filter(|t| e.present[*t]).collect();
            ts.sort_by_key(|t| (e.positions[*t] - e.positions[who]).abs());
            match kind {
                ir::TargetKind::None => vec![None],
                ir::TargetKind::Self_ => vec![Some(who)],
                ir::TargetKind::Enemy => ts
                    .into_iter()
                    .filter(|t| e.relates(who, *t, ir::Relation::Enemy) && e.standing(*t))
                    .map(Some)
                    .collect(),
                ir::TargetKind::Ally => {
                    ts.into_iter().filter(|t| e.relates(who, *t, ir::Relation::Ally)).map(Some).collect()
                }
                ir::TargetKind::Any | ir::TargetKind::Other => {
                    ts.into_iter().filter(|t| *t != who && e.standing(*t)).map(Some).collect()
                }
            }
        };
        for (i, action) in r.actions.iter().enumerate() {
            if !matches!(action.kind, ActionKind::Action | ActionKind::Free | ActionKind::Preparation) {
                continue;
            }
            // Policies do not wander: movement (costs per unit) is taken only to close in.
            let per_unit = action.costs.iter().flat_map(|c| &c.terms).any(|t| t.per.is_some());
            let a = ir::ActionId(i as u32);
            // An untargeted action is taken at most once a turn, or a policy would repeat a free
            // action that does nothing until its safety cap.
            let turn = self.turn_seq;
            if action.target.kind == ir::TargetKind::None
                && self.round_log[who].iter().any(|d| d.action == a && d.turn == turn)
            {
                continue;
            }
            for target in targets_by_kind(self, action.target.kind) {
                let mut tries: Vec<Option<i64>> = vec![None];
                if per_unit {
                    // Melee reach is adjacency on a grid, the same zone with zones.
                    let reach = if matches!(r.space, ir::Space::Zones(_)) { 0 } else { 1 };
                    let nearest = (0..self.n)
                        .filter(|o| self.present[*o] && self.standing(*o) && self.relates(who, *o, ir::Relation::Enemy))
                        .map(|o| (self.positions[o] - self.positions[who]).abs())
                        .min();
                    match nearest {
                        // As far as it can pay for, up to the distance it needs.
                        Some(d) if d > reach => tries = (1..=d - reach).rev().map(Some).collect(),
                        _ => continue,
                    }
                }
                let mut found = None;
                for units in tries {
                    let was = self.dry;
                    self.dry = true;
                    let plan = self.plan(who, a, target, units, None);
                    self.dry = was;
                    if let Ok(plan) = plan? {
                        found = Some((plan, units));
                        break;
                    }
                }
                let Some((plan, units)) = found else { continue };
                if let Policy::HoldBack { pool, keep } = policy {
                    let p = r.pools.iter().position(|x| &x.name == pool).map(|x| ir::PoolId(x as u32));
                    if let Some(p) = p {
                        let pay: i64 = plan.paid.iter().filter(|x| x.0 == p).map(|x| x.1).sum();
                        if pay > 0 && self.pool(who, p) - pay < *keep {
                            continue;
                        }
                    }
                }
                out.push(Decision::Act { action: a, target, units });
                if target.is_some() {
                    break;
                }
            }
        }
        Ok(out)
    }

    fn policy_turn(&mut self, who: usize, policy: &Policy) -> Result<Decision, RunError> {
        if *policy == Policy::Passive {
            return Ok(Decision::EndTurn);
        }
        let mut options = self.candidates(who, policy)?;
        if options.is_empty() {
            return Ok(Decision::EndTurn);
        }
        Ok(match policy {
            Policy::Random => {
                options.push(Decision::EndTurn);
                let i = (self.rng.next_u64() % options.len() as u64) as usize;
                options.swap_remove(i)
            }
            // Offence first: an action with a target before one without, in declaration order.
            _ => {
                let first_targeted =
                    options.iter().position(|d| matches!(d, Decision::Act { target: Some(_), units: None, .. }));
                options.swap_remove(first_targeted.unwrap_or(0))
            }
        })
    }

    /// Whether `who` agrees to finish an ally's combo: a passive controller, or a script that
    /// declines this round, does not.
    pub fn partner_consents(&self, who: usize) -> bool {
        let round = self.round;
        if self.controls[who].steps().iter().any(|s| matches!(s, Step::Decline { round: r } if *r == round)) {
            return false;
        }
        *self.controls[who].policy() != Policy::Passive
    }

    /// Which affordable reaction (if any) `who` declares.
    pub fn ask_reaction(
        &mut self,
        who: usize,
        offers: &[(ir::ActionId, Option<usize>)],
    ) -> Option<(ir::ActionId, Option<usize>)> {
        let round = self.round;
        let steps = self.controls[who].steps().to_vec();
        let mut declined = false;
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::React { round: r, reaction, target } if *r == round && !self.controls[who].used[i] => {
                    let Some(a) = self.action_id(reaction) else { continue };
                    if let Some((_, default_target)) = offers.iter().find(|(x, _)| *x == a) {
                        self.controls[who].used[i] = true;
                        let t = target.as_deref().and_then(|t| self.participant(t)).or(*default_target);
                        return Some((a, t));
                    }
                }
                Step::Decline { round: r } if *r == round => declined = true,
                _ => {}
            }
        }
        if declined {
            return None;
        }
        match self.controls[who].policy() {
            Policy::Passive => None,
            Policy::Random => {
                let i = (self.rng.next_u64() % (offers.len() as u64 + 1)) as usize;
                offers.get(i).copied()
            }
            _ => offers.first().copied(),
        }
    }

    /// The index of the answer to a choice; `who` is `None` for the GM.
    pub fn ask_choice(&mut self, who: Option<usize>, _question: &str, options: &[String]) -> usize {
        if options.is_empty() {
            return 0;
        }
        if let Some(w) = who {
            let steps = self.controls[w].steps().to_vec();
            for (i, step) in steps.iter().enumerate() {
                if let Step::Choose { answer } = step {
                    if self.controls[w].used[i] {
                        continue;
                    }
                    if let Some(pick) = options.iter().position(|o| o == answer) {
                        self.controls[w].used[i] = true;
                        return pick;
                    }
                }
            }
        }
        let policy = match who {
            Some(w) => self.controls[w].policy().clone(),
            None => self.gm.clone(),
        };
        match policy {
            Policy::Random => (self.rng.next_u64() % options.len() as u64) as usize,
            _ => 0,
        }
    }

    /// A scripted `Ready` for this round, if any: the turn is spent waiting.
    pub fn ask_ready(&mut self, who: usize) -> Option<super::state::Readied> {
        let round = self.round;
        let r = self.r;
        let (action, on, target, keep) = self.take_step(who, |s| match s {
            Step::Ready { round: rd, action, on, target, keep } if *rd == round => {
                Some((action.clone(), on.clone(), target.clone(), *keep))
            }
            _ => None,
        })?;
        let action = self.action_id(&action)?;
        let on = if let Some(a) = self.action_id(&on) {
            ir::EventRef::Action(a)
        } else if let Some(c) = r.categories.iter().position(|c| c.name == on) {
            ir::EventRef::Category(ir::CategoryId(c as u32))
        } else if let Some(k) = ir::ActionKind::from_word(&on) {
            ir::EventRef::Kind(k)
        } else {
            ir::EventRef::Custom(ir::EventId(r.events.iter().position(|e| e.name == on)? as u32))
        };
        let target = target.as_deref().and_then(|t| self.participant(t));
        Some(super::state::Readied { who, action, target, on, keep })
    }

    /// A scripted step for `who` matching `pick`, marked used.
    pub fn take_step<T>(&mut self, who: usize, pick: impl Fn(&Step) -> Option<T>) -> Option<T> {
        let steps = self.controls[who].steps().to_vec();
        for (i, step) in steps.iter().enumerate() {
            if self.controls[who].used[i] {
                continue;
            }
            if let Some(found) = pick(step) {
                self.controls[who].used[i] = true;
                return Some(found);
            }
        }
        None
    }

    /// How far `who` moves its initiative, within ±`max`.
    pub fn ask_adjust(&mut self, who: usize, max: i64) -> i64 {
        let steps = self.controls[who].steps().to_vec();
        for (i, step) in steps.iter().enumerate() {
            if let Step::Adjust { by } = step {
                if !self.controls[who].used[i] {
                    self.controls[who].used[i] = true;
                    return (*by).clamp(-max.abs(), max.abs());
                }
            }
        }
        0
    }
}
