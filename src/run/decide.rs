//! Decisions: who decides what. A script's decisions come first; a policy decides the rest.

mod ahead;
mod score;
mod upkeep;

use super::controller::{Chosen, Decision, Step, MAX_ACTIONS_PER_TURN};
use super::ctx::Ctx;
use super::engine::Engine;
use super::error::RunError;
use super::lookahead::Logged;
use super::pending::Readied;
use super::scenario::Policy;
use super::sink::Sink;
use super::trace::{Considered, Event};
use crate::ir::{self, ActionKind};

/// Most participants for which each one's nearest-first list is kept between decisions.
const NEAREST_KEPT_UP_TO: usize = 512;

/// Most targets `Search` weighs for one action (the nearest it can take): each is a candidate
/// its playouts share.
const SEARCH_TARGETS: usize = 4;

/// Counts of units a policy tries one by one (from the most it needs down) before it halves
/// instead: every real move on a grid is shorter.
const LINEAR_UNITS: i64 = 64;

impl<S: Sink> Engine<'_, S> {
    /// `plan`, without writing anything or changing the world.
    pub(super) fn dry_plan(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
    ) -> Result<Result<super::act::Plan, super::act::Reject>, RunError> {
        let was = self.dry;
        self.dry = true;
        let plan = self.plan(who, a, target, units, None);
        self.dry = was;
        plan
    }

    /// The next decision of `who` on its turn (or in a declaration phase).
    pub(crate) fn ask_turn(&mut self, who: usize) -> Result<Decision, RunError> {
        let round = self.clock.round;
        if self.controls[who].taken >= MAX_ACTIONS_PER_TURN {
            return Ok(Decision::EndTurn);
        }
        let mut scripted_round = false;
        let mut chosen: Option<(usize, Decision)> = None;
        for (i, step) in self.controls[who].steps().iter().enumerate() {
            let (Step::Act { round: r, .. } | Step::EndTurn { round: r }) = step else { continue };
            if *r != round {
                continue;
            }
            scripted_round = true;
            if self.controls[who].used[i] {
                continue;
            }
            let decision = match *step {
                Step::Act { action, target, units, .. } => {
                    // An action waits for a phase that admits its kind.
                    let kind = self.ruleset().actions[action.index()].kind;
                    let admitted = self.clock.allowed.is_some_and(|ks| ks.contains(&kind));
                    // It waits only when a later phase of the round may admit it; otherwise it
                    // is declared now, so the planner says why not (`not-now`) instead of the
                    // step silently never being used.
                    if !admitted && self.admitted_later(kind) {
                        continue;
                    }
                    Decision::Act { action, target, units }
                }
                _ => Decision::EndTurn,
            };
            chosen = Some((i, decision));
            break;
        }
        if let Some((i, decision)) = chosen {
            self.controls[who].used[i] = true;
            return Ok(decision);
        }
        if scripted_round {
            return Ok(Decision::EndTurn);
        }
        if self.taped(who) {
            return self.taped_turn(who);
        }
        let policy = self.controls[who].policy;
        let decision = self.policy_turn(who, policy)?;
        if self.telling_options() {
            self.tell_turn_options(who, decision)?;
        }
        Ok(decision)
    }

    /// Whether a phase after the current one in this round admits actions of this kind. Phase
    /// guards are not evaluated: a guarded phase might still run, so the step keeps waiting.
    fn admitted_later(&self, kind: ir::ActionKind) -> bool {
        self.ruleset().phases.iter().skip(self.clock.phase_at + 1).any(|p| match &p.kind {
            ir::PhaseKind::Turns => super::clock::TURN_KINDS.contains(&kind),
            ir::PhaseKind::Simultaneous(kinds) => kinds.is_empty() || kinds.contains(&kind),
            ir::PhaseKind::Step(_) => false,
        })
    }

    /// Fills `out` with what the policy could do now: per action (in declaration order), the
    /// nearest valid target it can afford (for `Search`, the nearest `SEARCH_TARGETS`), or the
    /// movement that closes in as far as it can pay.
    pub(super) fn candidates(&mut self, who: usize, policy: Chosen, out: &mut Vec<Decision>) -> Result<(), RunError> {
        out.clear();
        let nearest = self.nearest_first(who);
        let result = self.candidates_in(who, policy, &nearest, out);
        self.scratch.nearest[who] = nearest;
        result
    }

    /// Everyone present, nearest to `who` first (ties: scenario order). Kept per participant
    /// and sorted again only after someone moved, arrived or left, so a decision in a crowd
    /// does not sort the crowd. Give it back in `scratch.nearest[who]`.
    fn nearest_first(&mut self, who: usize) -> Vec<usize> {
        let n = self.world.n;
        let version = self.world.layout_version();
        let scratch = &mut self.scratch;
        if scratch.nearest.len() != n {
            scratch.nearest.resize_with(n, Vec::new);
            scratch.nearest_version.resize(n, u64::MAX);
        }
        let mut nearest = std::mem::take(&mut scratch.nearest[who]);
        // Above this many participants the lists would take n² memory: sort every time.
        if scratch.nearest_version[who] != version || n > NEAREST_KEPT_UP_TO {
            nearest.clear();
            nearest.extend((0..n).filter(|t| self.world.present[*t]));
            nearest.sort_by_key(|t| (self.world.distance(*t, who), *t));
            scratch.nearest_version[who] = version;
        }
        nearest
    }

    /// What `candidates` finds, in order. `Aggressive` and `HoldBack` take the first targeted
    /// candidate that is not movement, else the first: for them the search stops there.
    fn candidates_in(
        &mut self,
        who: usize,
        policy: Chosen,
        nearest: &[usize],
        out: &mut Vec<Decision>,
    ) -> Result<(), RunError> {
        let r = self.ruleset();
        let first_suffices = matches!(policy, Chosen::Aggressive | Chosen::HoldBack(..));
        let plays_to_win = first_suffices || matches!(policy, Chosen::Greedy);
        for (i, action) in r.actions.iter().enumerate() {
            if !matches!(action.kind, ActionKind::Action | ActionKind::Free | ActionKind::Preparation) {
                continue;
            }
            let a = ir::ActionId(i as u32);
            if self.passed_over(who, policy, a, first_suffices) {
                continue;
            }
            let shape = self.tables.shapes[i];
            let per_unit = shape.per_unit;
            // Untargeted and self-targeted actions have one candidate target; others, everyone.
            let kind = action.target.kind;
            let single = [who];
            let list: &[usize] = match kind {
                ir::TargetKind::None | ir::TargetKind::Self_ => &single,
                _ => nearest,
            };
            let mut taken = 0;
            for &t in list {
                let target = match kind {
                    ir::TargetKind::None => None,
                    ir::TargetKind::Self_ => Some(who),
                    _ if self.may_target(who, t, kind) => Some(t),
                    _ => continue,
                };
                // A move of a fixed distance toward someone already next to (in the zone of)
                // the actor moves nothing: the policies that play to win do not spend on it.
                if shape.moves && !per_unit && plays_to_win && self.moves_nothing(who, target, nearest) {
                    continue;
                }
                // Movement: as far as it can pay for, up to the distance it needs; anything
                // else: once.
                let (most, fewest) = if per_unit {
                    match self.closing_in(who, nearest) {
                        Some(range) => range,
                        None => continue,
                    }
                } else {
                    (0, 0)
                };
                let (found, refused) = self.most_units(who, a, target, per_unit, (most, fewest))?;
                let Some((plan, units)) = found else {
                    // Refused for a reason no other target changes: the rest are not tried.
                    if target.is_some() && !per_unit && refused.is_some_and(|code| shape.refuses_the_rest(code)) {
                        break;
                    }
                    continue;
                };
                if let Chosen::HoldBack(p, keep, _) = policy {
                    let pay = plan.paid.of(p);
                    if pay > 0 && self.world.pool(who, p) - pay < keep {
                        // What it pays cannot change with the target: no target is affordable.
                        if !shape.costs_see_target {
                            break;
                        }
                        continue;
                    }
                }
                out.push(Decision::Act { action: a, target, units });
                if target.is_some() {
                    // Movement is no attack: the search goes on for one.
                    if first_suffices && units.is_none() && !shape.moves {
                        return Ok(());
                    }
                    // The solver weighs every target, `Search` the nearest few, another policy
                    // the nearest it can take.
                    if !self.taped(who) {
                        taken += 1;
                        if !matches!(policy, Chosen::Search(_)) || taken >= SEARCH_TARGETS {
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether the policy passes an action over before trying any target.
    #[inline]
    fn passed_over(&mut self, who: usize, policy: Chosen, a: ir::ActionId, first_suffices: bool) -> bool {
        // Outside its loadout: never offered.
        if self.tables.lacks(who, a) {
            return true;
        }
        let r = self.ruleset();
        let i = a.index();
        // Policies do not wander: movement (costs per unit) is taken only to close in, and
        // the offensive ones never retreat (a `move away` of its own is not an attack, and
        // after a Dash it would walk them off from whoever they were closing on).
        if first_suffices && self.tables.shapes[i].retreats {
            return true;
        }
        // An untargeted action is taken at most once a turn, or a policy would repeat a free
        // action that does nothing until its safety cap.
        let turn = self.clock.turn_seq;
        if r.actions[i].target.kind == ir::TargetKind::None && self.ledger.used_in_turn(who, a, turn) {
            return true;
        }
        // A preparation it declared that has not resolved yet (a simultaneous phase resolves
        // its declarations together at the end) is not declared again, at any target: a
        // targeted one would otherwise be declared until the safety cap.
        if r.actions[i].kind == ActionKind::Preparation && self.preparing(who, a) {
            return true;
        }
        // A cost that cannot change decides some answers before any plan: `HoldBack` would
        // turn down every plan of it, or a pool without an overspend cannot pay it. Either
        // way no target would give a candidate, so none is tried.
        let Some((fixed, _)) = self.tables.fixed_costs[i] else { return false };
        if let Chosen::HoldBack(p, keep, _) = policy {
            let pay = fixed.of(p);
            if pay > 0 && self.world.pool(who, p) - pay < keep {
                return true;
            }
        }
        fixed.iter().any(|(p, amount)| {
            amount > 0
                && r.pools[p.index()].overspend.is_none()
                && self.past_bounds(who, p, amount).is_ok_and(|x| x > 0)
        })
    }

    /// Whether `who` has declared `a` and it is still waiting to resolve or under way.
    fn preparing(&self, who: usize, a: ir::ActionId) -> bool {
        self.pending.deferred.iter().any(|d| d.who == who && d.action == a)
            || self.pending.ongoing.iter().any(|o| o.who == who && o.action == a)
    }

    /// Whether `who` may aim an action of this target kind (one that names others) at `t`.
    #[inline]
    fn may_target(&self, who: usize, t: usize, kind: ir::TargetKind) -> bool {
        match kind {
            ir::TargetKind::Enemy => self.world.relates(who, t, ir::Relation::Enemy) && self.world.standing(t),
            ir::TargetKind::Ally => self.world.relates(who, t, ir::Relation::Ally),
            _ => t != who && self.world.standing(t),
        }
    }

    /// The plan of the action with the most units from `most` down to `fewest` it can pay
    /// for (`units` only for costs per unit), and the code of the last refusal met.
    #[allow(clippy::type_complexity)]
    #[inline]
    fn most_units(
        &mut self,
        who: usize,
        a: ir::ActionId,
        target: Option<usize>,
        per_unit: bool,
        (most, fewest): (i64, i64),
    ) -> Result<(Option<(super::act::Plan, Option<i64>)>, Option<&'static str>), RunError> {
        let mut refused = None;
        if most - fewest <= LINEAR_UNITS {
            let mut u = most;
            while u >= fewest {
                let units = per_unit.then_some(u);
                match self.dry_plan(who, a, target, units)? {
                    Ok(plan) => return Ok((Some((plan, units)), refused)),
                    Err(rejected) => refused = Some(rejected.code),
                }
                if u == 0 {
                    break;
                }
                u -= 1;
            }
            return Ok((None, refused));
        }
        // A long way to go (a far enemy): trying every count of units from the farthest down
        // would take as long as the distance. The most it can pay for is found by halving
        // instead, on the premise that a cost never falls as the units rise.
        if let Err(rejected) = self.dry_plan(who, a, target, Some(fewest))? {
            return Ok((None, Some(rejected.code)));
        }
        let (mut lo, mut hi) = (fewest, most);
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            match self.dry_plan(who, a, target, Some(mid))? {
                Ok(_) => lo = mid,
                Err(_) => hi = mid - 1,
            }
        }
        let found = self.dry_plan(who, a, target, Some(lo))?.ok().map(|plan| (plan, Some(lo)));
        Ok((found, None))
    }

    pub(super) fn policy_turn(&mut self, who: usize, policy: Chosen) -> Result<Decision, RunError> {
        if let Chosen::Search(params) = policy {
            return self.search_turn(who, params);
        }
        if policy == Chosen::Passive {
            return Ok(Decision::EndTurn);
        }
        let mut options = std::mem::take(&mut self.scratch.decisions);
        let found = self.candidates(who, policy, &mut options);
        // Only with `--decisions`: what was considered, and Greedy's scores, for the account.
        let considered = if self.decisions { options.clone() } else { Vec::new() };
        let mut scores = Vec::new();
        let decision = found.and_then(|()| self.pick(who, policy, &mut options, &mut scores));
        self.scratch.decisions = options;
        if let (true, Ok(chosen)) = (self.decisions, &decision) {
            self.account(who, policy, &considered, &scores, *chosen);
        }
        decision
    }

    /// The policy's pick among the candidates (the end of the turn when there are none).
    fn pick(
        &mut self,
        who: usize,
        policy: Chosen,
        options: &mut Vec<Decision>,
        scores: &mut Vec<(Decision, f64)>,
    ) -> Result<Decision, RunError> {
        if options.is_empty() {
            return Ok(Decision::EndTurn);
        }
        match policy {
            Chosen::Random => {
                options.push(Decision::EndTurn);
                let i = self.below(options.len() as u64) as usize;
                Ok(options[i])
            }
            Chosen::Greedy => self.greedy(who, options, scores),
            _ => Ok(aggressive(options, &self.tables.shapes)),
        }
    }

    /// The `decision` event: what a policy considered (Greedy's scores with them), and took.
    #[cold]
    #[inline(never)]
    fn account(
        &mut self,
        who: usize,
        policy: Chosen,
        considered: &[Decision],
        scores: &[(Decision, f64)],
        chosen: Decision,
    ) {
        let option = |d: &Decision, score: Option<f64>| match *d {
            Decision::Act { action, target, .. } => Some(Considered {
                action: self.names.action[action.index()].clone(),
                target: target.map(|t| self.names.who[t].clone()),
                // Rounded to thousandths; `+ 0.0` turns a rounded -0 into 0.
                score: score.map(|s| (s * 1000.0).round() / 1000.0 + 0.0),
                playouts: None,
            }),
            Decision::EndTurn => None,
        };
        let listed: Vec<Considered> =
            considered.iter().filter_map(|d| option(d, scores.iter().find(|(x, _)| x == d).map(|(_, s)| *s))).collect();
        let policy = match policy {
            Chosen::Aggressive => "aggressive",
            Chosen::HoldBack(..) => "hold_back",
            Chosen::Greedy => "greedy",
            Chosen::Random => "random",
            Chosen::Passive => "passive",
            Chosen::Search(_) => "search",
        };
        let who_name = self.names.who[who].clone();
        let chosen = option(&chosen, None);
        self.emit(Event::decision(who_name, policy, listed, chosen));
    }

    /// `Greedy`: among the candidates whose effects score above 0, the one whose score less
    /// what its points could buy otherwise (`forgone`) is the highest, the first of equals
    /// (docs/scenario.md, "How outcomes are scored"); when none scores above 0, what
    /// `Aggressive` would do among the candidates that score 0 or more (closing in, a free
    /// action), else the end.
    fn greedy(
        &mut self,
        who: usize,
        options: &mut Vec<Decision>,
        scores: &mut Vec<(Decision, f64)>,
    ) -> Result<Decision, RunError> {
        let mut weighed = std::mem::take(&mut self.scratch.weighed);
        weighed.clear();
        for d in options.iter() {
            let Decision::Act { action, target, units } = *d else { continue };
            // Planned again for what it pays: the price of an overspend counts against it, and
            // what it pays from a pool that lasts a round is what it costs.
            let paid = match self.dry_plan(who, action, target, units)? {
                Ok(plan) => plan.paid,
                Err(_) => Default::default(),
            };
            let s = self.score_action(who, action, target, units, &paid);
            weighed.push((*d, s, paid));
        }
        let mut best: Option<(Decision, f64)> = None;
        for (i, &(d, s, _)) in weighed.iter().enumerate() {
            let value = s - self.forgone(who, i, &weighed);
            if self.decisions {
                scores.push((d, value));
            }
            if s > 0.0 && best.is_none_or(|(_, b)| value > b) {
                best = Some((d, value));
            }
        }
        options.retain(|d| weighed.iter().find(|w| w.0 == *d).is_none_or(|(_, s, paid)| self.worth_trying(*s, paid)));
        self.scratch.weighed = weighed;
        Ok(match best {
            Some((d, _)) => d,
            None if options.is_empty() => Decision::EndTurn,
            None => aggressive(options, &self.tables.shapes),
        })
    }

    /// What the points candidate `i` pays from pools that last a round at most
    /// (`Tables::per_round`) could buy instead: per such pool, the most that another
    /// candidate whose effects score above 0 gives when taken as many times as those points
    /// pay for it (and its other pools allow, without overspending), summed over the pools.
    /// Points of a pool that lasts (Energy) are not counted: not spent now, they are there later.
    fn forgone(&mut self, who: usize, i: usize, weighed: &[(Decision, f64, super::costs::Costs)]) -> f64 {
        let Some((_, _, paid)) = weighed.get(i) else { return 0.0 };
        let mut total = 0.0;
        for (p, pay) in paid {
            if pay <= 0 || !self.tables.per_round.get(p.index()).copied().unwrap_or(false) {
                continue;
            }
            let mut most = 0.0f64;
            for (j, (_, s, other)) in weighed.iter().enumerate() {
                let each = other.of(p);
                if j == i || *s <= 0.0 || each <= 0 {
                    continue;
                }
                let mut times = pay / each;
                for (q, amount) in other {
                    if q != p && amount > 0 {
                        times = times.min(self.times_payable(who, q, amount));
                    }
                }
                most = most.max(times as f64 * s);
            }
            total += most;
        }
        total
    }

    /// How many times `who` can pay `amount` from `p` now without overspending; at least 1, as
    /// the candidate asking was affordable.
    fn times_payable(&mut self, who: usize, p: ir::PoolId, amount: i64) -> i64 {
        let now = self.world.pool(who, p);
        let room = if self.ruleset().pools[p.index()].rising {
            match self.pool_max(who, p) {
                Ok(Some(max)) => max.saturating_sub(now),
                _ => i64::MAX,
            }
        } else {
            self.pool_min(who, p).map_or(i64::MAX, |min| now.saturating_sub(min))
        };
        (room / amount.max(1)).max(1)
    }

    /// Whether `who` agrees to finish an ally's combo: a passive controller, or a script that
    /// declines this round, does not.
    pub(crate) fn partner_consents(&self, who: usize) -> bool {
        let round = self.clock.round;
        if self.controls[who].steps().iter().any(|s| matches!(s, Step::Decline { round: r } if *r == round)) {
            return false;
        }
        self.controls[who].policy.plain() != Chosen::Passive
    }

    /// Which affordable reaction (if any) `who` declares.
    pub(crate) fn ask_reaction(
        &mut self,
        who: usize,
        offers: &[(ir::ActionId, Option<usize>)],
        again: bool,
        event: &Ctx,
    ) -> Result<Option<(ir::ActionId, Option<usize>)>, RunError> {
        let round = self.clock.round;
        let mut declined = false;
        let mut chosen: Option<(usize, (ir::ActionId, Option<usize>))> = None;
        for (i, step) in self.controls[who].steps().iter().enumerate() {
            match *step {
                Step::React { round: r, reaction, target } if r == round && !self.controls[who].used[i] => {
                    if let Some((_, default_target)) = offers.iter().find(|(x, _)| *x == reaction) {
                        chosen = Some((i, (reaction, target.or(*default_target))));
                        break;
                    }
                }
                Step::Decline { round: r } if r == round => declined = true,
                _ => {}
            }
        }
        if let Some((i, answer)) = chosen {
            self.controls[who].used[i] = true;
            return Ok(Some(answer));
        }
        // A policy answers an event once; only a script adds a second reaction to it.
        if declined || again {
            return Ok(None);
        }
        if self.taped(who) {
            let mut options: Vec<Logged> = offers.iter().map(|o| Logged::React(Some(*o))).collect();
            options.push(Logged::React(None));
            return Ok(match self.taped_pick(who, &options) {
                Some(Logged::React(answer)) => answer,
                _ => None,
            });
        }
        let policy = self.controls[who].policy;
        let answer = match policy {
            Chosen::Search(params) => self.search_reaction(who, params, offers, event)?,
            _ => self.policy_reaction(who, policy, offers, event),
        };
        if self.telling_options() {
            self.tell_reaction_options(who, offers, answer);
        }
        Ok(answer)
    }

    /// Refuses a `React` step of this round naming `ra`, a reaction outside `who`'s loadout,
    /// when its event comes (the step is used), as the planner refuses an `Act` step naming an
    /// action outside it. Without such a step, nothing: it is not offered.
    pub(crate) fn refuse_scripted_reaction(&mut self, who: usize, ra: ir::ActionId) {
        let round = self.clock.round;
        let scripted = self.take_step(who, |s| {
            matches!(*s, Step::React { round: r, reaction, .. } if r == round && reaction == ra).then_some(())
        });
        if scripted.is_some() {
            self.refuse_outside_loadout(who, ra);
        }
    }

    /// A `rejected` event: `a` is outside `who`'s loadout.
    pub(crate) fn refuse_outside_loadout(&mut self, who: usize, a: ir::ActionId) {
        let (actor, action) = (self.names.who[who].clone(), self.names.action[a.index()].clone());
        let reason = format!("{actor} has no `{action}` in its loadout");
        let rule = self.ruleset().actions[a.index()].loc;
        self.emit_by(
            Event::Rejected { actor, action, code: "loadout", reason: reason.into(), named: Default::default() },
            Some(rule),
        );
    }

    /// Which affordable reaction (if any) a policy other than `Search` declares.
    pub(super) fn policy_reaction(
        &mut self,
        who: usize,
        policy: Chosen,
        offers: &[(ir::ActionId, Option<usize>)],
        event: &Ctx,
    ) -> Option<(ir::ActionId, Option<usize>)> {
        match policy {
            Chosen::Passive => None,
            Chosen::Random => {
                let i = self.below(offers.len() as u64 + 1) as usize;
                offers.get(i).copied()
            }
            Chosen::HoldBack(p, keep, false) => self.held_back(who, offers, (p, keep), event),
            _ => offers.first().copied(),
        }
    }

    /// `HoldBack`'s reaction: the first offered that leaves `pool` at `keep` or more (or pays
    /// nothing from it); one that takes it below `keep` only when it saves someone (`saves`).
    fn held_back(
        &mut self,
        who: usize,
        offers: &[(ir::ActionId, Option<usize>)],
        (p, keep): (ir::PoolId, i64),
        event: &Ctx,
    ) -> Option<(ir::ActionId, Option<usize>)> {
        let mut saves = None;
        for &(ra, target) in offers {
            let was = self.dry;
            self.dry = true;
            let plan = self.plan(who, ra, target, None, Some(event));
            self.dry = was;
            // The runner planned it just now to offer it: a plan that fails here is not taken.
            let Ok(Ok(plan)) = plan else { continue };
            let pay = plan.paid.of(p);
            if pay <= 0 || self.world.pool(who, p).saturating_sub(pay) >= keep {
                return Some((ra, target));
            }
            let saving = *saves.get_or_insert_with(|| self.saves(who, event));
            if saving {
                return Some((ra, target));
            }
        }
        None
    }

    /// Whether answering this event saves someone from going down: its victim is `who` or an
    /// ally, standing, and the action it answers (for an event an action emitted, that action)
    /// could take the victim down from where it stands now (`could_down`). Before the action
    /// resolves (an `interrupts` reaction) that is the blow itself; after, it is a victim one
    /// such blow from going down.
    fn saves(&mut self, who: usize, event: &Ctx) -> bool {
        let (Some(victim), Some(actor), Some(info)) = (event.victim, event.actor, event.event) else { return false };
        let Some(threat) = info.action.or(info.emitter) else { return false };
        if !(victim == who || self.world.relates(who, victim, ir::Relation::Ally)) || !self.world.standing(victim) {
            return false;
        }
        let r = self.ruleset();
        let Some(action) = r.actions.get(threat.index()) else { return false };
        let c = Ctx { owner: actor, target: Some(victim), ..Ctx::default() };
        self.could_down(&action.effects, &c, victim, 0)
    }

    /// The index of the answer to a choice asked while running effects for `c`; `who` is `None`
    /// for the GM. The scenario's `gm_answers` for a GM question, or a script's `Choose` step, first; then `Random` picks uniformly, the GM's other
    /// policies the first option, and every other policy the option that scores best for the
    /// chooser in the state as it is (docs/scenario.md, "How outcomes are scored"). Whoever
    /// chooses, an option that would change nothing is not taken while another would.
    pub(crate) fn ask_choice(
        &mut self,
        who: Option<usize>,
        loc: ir::Loc,
        options: &[ir::ChoiceOption],
        c: &Ctx,
    ) -> Result<usize, RunError> {
        // An optional upkeep that cannot be paid lapses: nobody is asked (decide/upkeep.rs).
        let upkeep = who.is_some() && options.len() == 2 && self.is_upkeep(loc);
        if options.is_empty() || (upkeep && self.upkeep_unpayable(&options[upkeep::PAY].effects, c)?) {
            return Ok(if upkeep { upkeep::LAPSE } else { 0 });
        }
        // The scenario told the GM how to answer this question: a standing order, taken as
        // given (docs/scenario.md, `gm_answers`).
        if who.is_none() {
            if let Some((_, i)) = self.tables.gm_answers.iter().find(|(at, _)| *at == loc) {
                return Ok(*i);
            }
        }
        // An option written with effects that would change nothing now (removing a Wound from
        // none) is dead; one written empty (`no: { }`) is a deliberate answer and never is.
        // Options past the 64th are always live; a question that long is not written by hand.
        let mut dead = 0u64;
        for (i, o) in options.iter().enumerate().take(64) {
            if !o.effects.is_empty() && !self.would_change(&o.effects, c, 0) {
                dead |= 1 << i;
            }
        }
        let all = if options.len() >= 64 { u64::MAX } else { (1u64 << options.len()) - 1 };
        if dead & all == all {
            dead = 0;
        }
        let live = move |i: usize| i >= 64 || dead & (1 << i) == 0;
        if let Some(w) = who {
            // The tables are shared and only read: held apart from the engine the step is taken from.
            let tables = std::rc::Rc::clone(&self.tables);
            let found = self.take_step(w, |s| match s {
                Step::Choose { answer } => {
                    let sites = tables.script_answers.get(*answer).map_or(&[][..], Vec::as_slice);
                    sites.iter().find(|(at, _)| *at == loc).map(|(_, i)| *i).filter(|i| live(*i))
                }
                _ => None,
            });
            if let Some(pick) = found {
                return Ok(pick);
            }
        }
        if let Some(w) = who.filter(|w| self.taped(*w)) {
            let names: Vec<String> = options.iter().map(|o| o.name.clone()).collect();
            let options: Vec<Logged> = (0..options.len()).filter(|i| live(*i)).map(Logged::Choice).collect();
            let pick = self.taped_pick(w, &options);
            if let Some(t) = self.tape.as_deref_mut().filter(|t| t.need.is_some()) {
                t.labels = names;
            }
            if let Some(Logged::Choice(i)) = pick {
                return Ok(i);
            }
        }
        if let Some(w) = who {
            if let Chosen::Search(params) = self.controls[w].policy {
                if let Some(pick) = self.search_choice(w, params, options.len(), live)? {
                    return Ok(pick);
                }
            }
        }
        let random = match who {
            Some(w) => self.controls[w].policy.plain() == Chosen::Random,
            None => self.tables.gm == Policy::Random,
        };
        let first_live = (0..options.len()).find(|i| live(*i)).unwrap_or(0);
        Ok(match who {
            _ if random => {
                let n = (0..options.len()).filter(|i| live(*i)).count().max(1);
                let k = self.below(n as u64) as usize;
                (0..options.len()).filter(|i| live(*i)).nth(k).unwrap_or(first_live)
            }
            // Kept, unless paying would take its holder into harm (decide/upkeep.rs).
            Some(_) if upkeep => self.upkeep_answer(&options[upkeep::PAY].effects, c)?,
            Some(w) => self.best_option(w, options, c, live),
            None => first_live,
        })
    }

    /// A scripted `Ready` for this round, if any: the turn is spent waiting.
    pub(crate) fn ask_ready(&mut self, who: usize) -> Option<Readied> {
        let round = self.clock.round;
        self.take_step(who, |s| match *s {
            Step::Ready { round: rd, action, on, by, target, keep } if rd == round => {
                Some(Readied { who, action, target, on, by, keep })
            }
            _ => None,
        })
    }

    /// A scripted step for `who` matching `pick`, marked used.
    pub(crate) fn take_step<T>(&mut self, who: usize, pick: impl Fn(&Step) -> Option<T>) -> Option<T> {
        let control = &mut self.controls[who];
        for (step, used) in control.steps.iter().zip(control.used.iter_mut()) {
            if *used {
                continue;
            }
            if let Some(found) = pick(step) {
                *used = true;
                return Some(found);
            }
        }
        None
    }

    /// How far `who` moves its initiative, within ±`max`.
    pub(crate) fn ask_adjust(&mut self, who: usize, max: i64) -> Result<i64, RunError> {
        let control = &mut self.controls[who];
        for (step, used) in control.steps.iter().zip(control.used.iter_mut()) {
            if let (Step::Adjust { by }, false) = (step, *used) {
                *used = true;
                return Ok((*by).clamp(-max.abs(), max.abs()));
            }
        }
        if self.taped(who) {
            let m = max.abs();
            let options: Vec<Logged> = (-m..=m).map(Logged::Adjust).collect();
            if let Some(Logged::Adjust(by)) = self.taped_pick(who, &options) {
                return Ok(by);
            }
        }
        // Only a searcher weighs where to stand; the other policies keep their value.
        if let super::controller::Chosen::Search(params) = self.controls[who].policy {
            return self.search_adjust(who, params, max.abs());
        }
        Ok(0)
    }
}

/// `Aggressive`'s pick: offence first, the first candidate with a target that is not movement
/// (bought per unit, or an action whose own effects move its actor: a targeted `move 6` is
/// no attack), else the first candidate. `options` is not empty.
fn aggressive(options: &[Decision], shapes: &[super::shape::Shape]) -> Decision {
    let first_targeted = options.iter().position(|d| {
        matches!(d, Decision::Act { action, target: Some(_), units: None }
            if !shapes.get(action.index()).is_some_and(|s| s.moves))
    });
    options.get(first_targeted.unwrap_or(0)).copied().unwrap_or(Decision::EndTurn)
}
