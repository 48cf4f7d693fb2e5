//! `hidden` phases: everyone chooses against the state the phase started with, nobody seeing
//! another's choice; the choices are revealed together (one `revealed` event), then declared,
//! paid and resolved in initiative order. With `picks N` each makes up to N picks, each knowing
//! its own earlier ones as far as they are certain: they count for limits and their costs are
//! taken (`pencil_in`); what they do on resolving is not known before the reveal.
//!
//! Nothing a choice does is applied before everyone has chosen, so each chooser's policy reads
//! the phase's start. A `Search` chooser plays forward with the runner itself, from the round's
//! start: in those playouts the others' choices in this same phase are made by their policies
//! (a script's fallback; another searcher's first pick from its regrets, secret.rs), never by
//! their scripts or logged decisions, and with dice drawn afresh for the phase (a `Random`
//! pick is not replayed on the real dice), so the look-ahead cannot see what they actually
//! chose. Its own pick is mixed (secret.rs).

use super::controller::{Chosen, Decision};
use super::engine::Engine;
use super::error::RunError;
use super::ledger::Declared;
use super::lookahead::Logged;
use super::sink::Sink;
use super::trace::{Event, Revealed};
use crate::ir::{self, ActionKind};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// The stream of a hidden phase's dice in a playout (the playout's own dice after its
/// candidate are stream 0 of the same seed).
const HIDDEN_STREAM: u64 = 0x4849_4444_454e;

impl<'r, S: Sink> Engine<'r, S> {
    /// A `simultaneous hidden` phase (`p`): up to `picks` declarations each, or none.
    pub(super) fn hidden_simultaneous(&mut self, p: usize, kinds: &'r [ActionKind]) -> Result<(), RunError> {
        let kinds: &'r [ActionKind] = if kinds.is_empty() { &ActionKind::ALL } else { kinds };
        self.clock.allowed = Some(kinds);
        let picks = self.ruleset().phases[p].picks.max(1);
        let order = self.in_order();
        let mut chosen: Vec<(usize, Vec<Decision>)> = Vec::with_capacity(order.len());
        self.clock.hiding = true;
        self.fresh_hidden_dice();
        for &who in &order {
            if self.clock.ended.is_some() {
                break;
            }
            if !self.starts_declaring(who) {
                continue;
            }
            let mine = self.pick_in_secret(who, picks)?;
            chosen.push((who, mine));
        }
        self.clock.hiding = false;
        let choices = self.revealed(&chosen);
        let phase = self.names.phase[p].clone();
        let seq = self.emit_by(Event::Revealed { phase, choices }, Some(self.ruleset().phases[p].loc));
        let outer = self.caused_by(seq);
        // Declared and paid in initiative order, a participant's picks in the order picked: a
        // choice no longer valid now (its cost spent by an earlier declaration, its target
        // gone) is refused with the usual `rejected` event.
        for (who, mine) in chosen {
            if mine.is_empty() {
                continue;
            }
            self.clock.turn_seq += 1;
            self.controls[who].taken = 0;
            for d in mine {
                let Decision::Act { action, target, units } = d else { continue };
                if self.clock.ended.is_some() {
                    break;
                }
                self.controls[who].taken += 1;
                self.new_cascade();
                self.declare_or_defer(who, action, target, units, None, true)?;
            }
        }
        self.because = outer;
        self.scratch.in_order = order;
        self.resolve_the_phase_declarations()
    }

    /// What the `revealed` event shows: each pick in initiative order, a participant's in the
    /// order picked; one who picked nothing "plays nothing".
    fn revealed(&self, chosen: &[(usize, Vec<Decision>)]) -> Vec<Revealed> {
        let mut out = Vec::with_capacity(chosen.len());
        for (who, mine) in chosen {
            let who_name = &self.names.who[*who];
            if mine.is_empty() {
                out.push(Revealed { who: who_name.clone(), choice: None, target: None });
            }
            for d in mine {
                if let Decision::Act { action, target, .. } = d {
                    let (choice, target) =
                        (Some(self.names.action[action.index()].clone()), target.map(|t| self.names.who[t].clone()));
                    out.push(Revealed { who: who_name.clone(), choice, target });
                }
            }
        }
        out
    }

    /// `who`'s picks in a hidden phase, up to `picks` of them, until it picks nothing. Each is
    /// chosen against the phase's start with `who`'s own earlier picks pencilled in
    /// (`pencil_in`): nothing of the others' picks, which are not made or not known.
    fn pick_in_secret(&mut self, who: usize, picks: u32) -> Result<Vec<Decision>, RunError> {
        let must = self.ruleset().phases[self.clock.phase_at].must;
        let unseen = self.unseen_policy(who, picks, must)?;
        let mut mine = Vec::new();
        if picks == 1 && !must {
            let d = match unseen {
                Some(policy) => self.unseen_turn(who, policy, true, must)?,
                None => self.ask_turn(who)?,
            };
            mine.extend(Some(d).filter(|d| *d != Decision::EndTurn));
            return Ok(mine);
        }
        // What pencilling in changes, put back once `who` has picked.
        let pools = self.world.pools.clone();
        let initiative = self.world.initiative[who];
        let used = self.ledger.encounter_log[who].clone();
        let declared = self.ledger.round_log[who].len();
        let mut result = Ok(());
        for k in 0..picks {
            if self.clock.ended.is_some() {
                break;
            }
            let mut d = match unseen {
                Some(policy) => self.unseen_turn(who, policy, k == 0, must),
                None => self.ask_turn(who),
            };
            if must && matches!(d, Ok(Decision::EndTurn)) {
                d = self.first_offered(who);
            }
            let (action, target, units) = match d {
                Ok(Decision::Act { action, target, units }) => (action, target, units),
                Ok(Decision::EndTurn) => break,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            self.controls[who].taken += 1;
            mine.push(Decision::Act { action, target, units });
            if k + 1 < picks {
                if let Err(e) = self.pencil_in(who, action, target, units) {
                    result = Err(e);
                    break;
                }
            }
        }
        self.world.pools = pools;
        self.world.initiative[who] = initiative;
        self.ledger.encounter_log[who] = used;
        self.ledger.round_log[who].truncate(declared);
        result.map(|()| mine)
    }

    /// In a playout of a searcher's pick in this phase: the pick of another, unseen, by
    /// `policy`; another searcher's `first` pick is drawn from its regrets (secret.rs).
    fn unseen_turn(&mut self, who: usize, policy: Chosen, first: bool, must: bool) -> Result<Decision, RunError> {
        if first {
            if let Some(d) = self.rival_pick(who, must)? {
                return Ok(d);
            }
        }
        self.policy_turn(who, policy)
    }

    /// In a playout of a searcher's pick in this phase, the phase's dice are drawn afresh from
    /// the playout's seed (a stream of their own): the others' picks here (a `Random` one's)
    /// come out as they may, not as they did in the real encounter, whose dice the playout
    /// replays up to here.
    fn fresh_hidden_dice(&mut self) {
        let Some(r) = self.replay.as_deref() else { return };
        if r.hidden == Some(self.clock.phase_seq) && !r.diverged {
            let mut rng = ChaCha8Rng::seed_from_u64(r.seed);
            rng.set_stream(HIDDEN_STREAM);
            self.rng = rng;
        }
    }

    /// What `who` knows of its own pick as it makes the next: the pick counts for limits, and
    /// its costs are taken from its pools (and initiative), as declaring it will do. Nothing it
    /// does on resolving is applied: that waits for the reveal, after the others' declarations
    /// before it. A pick refused now pencils nothing in (it will be refused at the reveal).
    fn pencil_in(
        &mut self,
        who: usize,
        action: ir::ActionId,
        target: Option<usize>,
        units: Option<i64>,
    ) -> Result<(), RunError> {
        let Ok(plan) = self.dry_plan(who, action, target, units)? else { return Ok(()) };
        for (p, amount) in &plan.paid {
            let at = self.world.pool_at(who, p);
            self.world.pools[at] = self.after_paying(p, self.world.pools[at], amount);
        }
        self.world.initiative[who] = self.world.initiative[who].saturating_sub(plan.initiative);
        let c = &self.clock;
        let d =
            Declared { action, round: c.round, turn: c.turn_seq, phase: c.phase_seq, trigger: None, paid: plan.paid };
        self.ledger.declared(who, d)
    }

    /// `picks N must`: the pick taken by one who would stop while a pick is offered: the first
    /// action in the order written it may declare now, at its nearest valid target (what
    /// `candidates` lists first); `EndTurn` when none is offered.
    fn first_offered(&mut self, who: usize) -> Result<Decision, RunError> {
        let mut offered = std::mem::take(&mut self.scratch.decisions);
        let found = self.candidates(who, Chosen::Greedy, &mut offered);
        let first = offered.first().copied().unwrap_or(Decision::EndTurn);
        self.scratch.decisions = offered;
        found.map(|()| first)
    }

    /// In a `Search` playout of another's choice in this phase, the policy `who` picks by:
    /// neither its script nor its logged decisions are known. `None`: `who` is asked as usual.
    /// What the real run used up for `who` in this phase (its logged decisions, its script's
    /// steps) is passed over first, so what follows stays in step.
    fn unseen_policy(&mut self, who: usize, picks: u32, must: bool) -> Result<Option<Chosen>, RunError> {
        let phase = self.clock.phase_seq;
        let unseen = self.replay.as_deref().is_some_and(|r| r.hidden == Some(phase) && r.who != who);
        if !unseen {
            return Ok(None);
        }
        let policy = match self.controls[who].policy {
            Chosen::Search(params) => {
                // Its logged picks: each one's decision, and the end of its picks if it made
                // fewer than it could. Under `must` an end is a pick taken for it (the first
                // offered), and it was asked again: only no pick at all offered (not known
                // here) stops early, and a replay out of step plays on by the rollout.
                if let Some(r) = self.replay.as_deref_mut() {
                    for _ in 0..picks {
                        if r.diverged || r.next >= r.log.len() {
                            break;
                        }
                        r.next += 1;
                        if !must && r.log[r.next - 1] == Logged::Turn(Decision::EndTurn) {
                            break;
                        }
                    }
                }
                params.rollout.chosen()
            }
            other => {
                // Its script's steps for this phase are used up unseen, as they would have
                // been, so they are not played in a later phase of the playout instead.
                if !self.controls[who].steps().is_empty() {
                    for _ in 0..picks {
                        let d = self.ask_turn(who)?;
                        if !must && d == Decision::EndTurn {
                            break;
                        }
                    }
                }
                other
            }
        };
        Ok(Some(policy))
    }
}

/// Whether phase `p` is a `hidden` one the runner plays apart.
pub(super) fn is_hidden(r: &ir::Ruleset, p: usize) -> bool {
    r.phases.get(p).is_some_and(|ph| ph.hidden)
}
