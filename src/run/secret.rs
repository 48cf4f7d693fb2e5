//! `Search` picking in a `hidden` phase: a mixed pick, by regret matching over its playouts.
//!
//! There the others' picks are not known when the searcher picks, so playing the candidate
//! with the best mean against the others' exact policies is not sound: a policy that reads the
//! state (another searcher's rollout) is read as certain and countered every time, and two
//! searchers countering each other's rollout lock into one pick. A simultaneous move is a
//! matrix game, and a sound method mixes: the searcher's pick is drawn from the average
//! strategy of regret matching (RM+, linearly averaged) over its playouts, so no pick of its
//! own is certain enough to be countered.
//!
//! Each iteration (as many as fit whole in `playouts`, one at least) draws the others' picks
//! once and plays every candidate of the searcher's against them (the same playout seed for
//! every candidate, so they are compared on the same luck): a participant under another policy
//! picks by it, with the playout's own dice (the hidden phase's dice in a playout are drawn
//! afresh, hidden.rs); another searcher picks from the strategy its own regrets give, and those
//! regrets are learnt in the same iterations (each of its picks played against the searcher's
//! pick drawn from the searcher's current strategy, valued for its side), so two searchers in
//! the phase are modelled as each other's regret matchers, not as their rollouts. The
//! decision's own dice, seeded like its playouts, draw the pick: everything follows from the
//! run's seed.

use super::controller::{Chosen, Decision, SearchParams};
use super::engine::{Engine, Searcher};
use super::error::RunError;
use super::lookahead::{Logged, Rival};
use super::search::{mix, Tried};
use super::sink::Sink;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Apart from the playouts' seeds: the stream of the decision's own draws.
const OWN_DRAWS: u64 = 0x6869_6464_656e;

impl Searcher<'_> {
    /// `who`'s pick among `options` in a hidden phase (`must`: the end of its picks is not
    /// among them while another is offered); what each was worth against the others' drawn
    /// picks in `tried`.
    pub(super) fn choose_secret(
        &mut self,
        who: usize,
        side: u32,
        params: SearchParams,
        options: &[Logged],
        must: bool,
        tried: &mut Vec<Tried>,
    ) -> Result<usize, RunError> {
        tried.clear();
        tried.extend(options.iter().map(|_| Tried { playouts: 0, value: 0.0 }));
        let live: Vec<bool> = options.iter().map(|o| !(must && options.len() > 1 && ends(o))).collect();
        if live.iter().filter(|l| **l).count() <= 1 {
            return Ok(live.iter().position(|l| *l).unwrap_or(0));
        }
        let replay = self.play.replay.get_or_insert_with(Default::default);
        replay.who = who;
        replay.rivals.clear();
        let start = &self.start;
        for o in (0..start.world.n).filter(|&o| o != who) {
            if matches!(start.controls[o].policy, Chosen::Search(_)) {
                let side = start.world.sides[o];
                let r = Rival { who: o, side, options: Vec::new(), regret: Vec::new(), force: None, draw: 0.0 };
                replay.rivals.push(r);
            }
        }
        let place = mix(self.seed ^ mix(self.made));
        let mut draws = ChaCha8Rng::seed_from_u64(mix(place ^ OWN_DRAWS));
        let n = options.len();
        let (mut regret, mut total, mut values) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let (mut spent, mut t, mut informed) = (0u32, 0u64, false);
        // Whole rounds while the next fits in the budget (one at least): what a round costs is
        // known once the first has found the other searchers' picks.
        let mut round = 0;
        while t == 0 || spent + round <= params.playouts {
            let before = spent;
            let seed = mix(place ^ t);
            let strategy = strategy_of(&regret, &live);
            let rivals = self.play.replay.as_deref_mut().map_or(0, |r| r.rivals.len());
            if let Some(r) = self.play.replay.as_deref_mut() {
                for rival in &mut r.rivals {
                    (rival.force, rival.draw) = (None, unit(&mut draws));
                }
            }
            let mine = drawn(&strategy, unit(&mut draws));
            // Every candidate against the same picks of the others.
            for i in (0..n).filter(|&i| live[i]) {
                values[i] = self.playout(options[i], None, seed, side, params.rounds)?;
                tried[i].playouts += 1;
                tried[i].value += values[i];
                spent += 1;
            }
            // Each other searcher's picks against this one's drawn pick.
            for k in 0..rivals {
                let Some((rival_side, count)) = self.rival_at(k).map(|r| (r.side, r.options.len())) else { continue };
                let mut theirs = vec![0.0; count];
                for (j, value) in theirs.iter_mut().enumerate() {
                    if let Some(r) = self.rival_at(k) {
                        r.force = Some(j);
                    }
                    *value = self.playout(options[mine], None, seed, rival_side, params.rounds)?;
                    spent += 1;
                }
                if let Some(r) = self.rival_at(k) {
                    r.force = None;
                    let all = vec![true; count];
                    let theirs_now = strategy_of(&r.regret, &all);
                    learn(&mut r.regret, &theirs_now, &theirs, &all);
                }
            }
            learn(&mut regret, &strategy, &values, &live);
            informed |= regret.iter().any(|r| *r > 0.0);
            round = spent - before;
            t += 1;
            // Later strategies weigh more (linear averaging): the first are uninformed.
            for (sum, p) in total.iter_mut().zip(&strategy) {
                *sum += t as f64 * p;
            }
        }
        for t in tried.iter_mut().filter(|t| t.playouts > 0) {
            t.value /= f64::from(t.playouts);
        }
        // Every pick did as well as every other in every playout: none is worth mixing in
        // over another, and the first is taken, as `choose` takes the first of equals.
        if !informed {
            return Ok(live.iter().position(|l| *l).unwrap_or(0));
        }
        let average = strategy_of(&total, &live);
        Ok(drawn(&average, unit(&mut draws)))
    }

    /// The `k`th other searcher of the pick's playouts, once its picks are known.
    fn rival_at(&mut self, k: usize) -> Option<&mut Rival> {
        self.play.replay.as_deref_mut()?.rivals.get_mut(k).filter(|r| !r.options.is_empty())
    }
}

impl<S: Sink> Engine<'_, S> {
    /// In a playout of a searcher's pick in a hidden phase: another searcher's first pick
    /// there, forced or drawn from its regrets (secret.rs); `None`: it picks by its rollout.
    pub(super) fn rival_pick(&mut self, who: usize, must: bool) -> Result<Option<Decision>, RunError> {
        let Chosen::Search(params) = self.controls[who].policy else { return Ok(None) };
        let Some(k) = self.replay.as_deref().and_then(|r| r.rivals.iter().position(|r| r.who == who)) else {
            return Ok(None);
        };
        // Its picks, as its own search would weigh them (search.rs, `turn_options`).
        let mut decisions = std::mem::take(&mut self.scratch.decisions);
        let found = self.candidates(who, Chosen::Search(params), &mut decisions);
        let mut options: Vec<Logged> = decisions.iter().map(|d| Logged::Turn(*d)).collect();
        self.scratch.decisions = decisions;
        found?;
        if !must || options.is_empty() {
            options.push(Logged::Turn(Decision::EndTurn));
        }
        let Some(rival) = self.replay.as_deref_mut().map(|r| &mut r.rivals[k]) else { return Ok(None) };
        if rival.options.is_empty() {
            rival.regret = vec![0.0; options.len()];
            rival.options = options.clone();
        }
        let all = vec![true; rival.options.len()];
        let j = rival.force.unwrap_or_else(|| drawn(&strategy_of(&rival.regret, &all), rival.draw));
        // A pick not offered in this playout (the options of another): by its rollout.
        Ok(match rival.options.get(j) {
            Some(Logged::Turn(d)) if options.contains(&Logged::Turn(*d)) => Some(*d),
            _ => None,
        })
    }
}

fn ends(o: &Logged) -> bool {
    *o == Logged::Turn(Decision::EndTurn)
}

/// Regret matching: each live pick in proportion to its positive regret; uniform over the live
/// picks when none has any.
fn strategy_of(regret: &[f64], live: &[bool]) -> Vec<f64> {
    let positive = |i: usize| if live[i] { regret[i].max(0.0) } else { 0.0 };
    let sum: f64 = (0..regret.len()).map(positive).sum();
    if sum > 0.0 {
        return (0..regret.len()).map(|i| positive(i) / sum).collect();
    }
    let count = live.iter().filter(|l| **l).count().max(1) as f64;
    live.iter().map(|l| if *l { 1.0 / count } else { 0.0 }).collect()
}

/// RM+: each live pick's regret grows by what it would have got over what `strategy` got in
/// expectation, and is never below 0.
fn learn(regret: &mut [f64], strategy: &[f64], values: &[f64], live: &[bool]) {
    let expected: f64 = strategy.iter().zip(values).map(|(p, v)| p * v).sum();
    for i in (0..regret.len()).filter(|&i| live[i]) {
        regret[i] = (regret[i] + values[i] - expected).max(0.0);
    }
}

/// The pick `u` (in 0..1) falls on in `strategy`.
fn drawn(strategy: &[f64], u: f64) -> usize {
    let mut acc = 0.0;
    let mut last = 0;
    for (i, p) in strategy.iter().enumerate() {
        if *p <= 0.0 {
            continue;
        }
        acc += p;
        last = i;
        if u < acc {
            return i;
        }
    }
    last
}

/// A number in 0..1 from 53 random bits.
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}
