//! `Search`: a policy that decides by playing the encounter forward with the runner itself.
//!
//! A decision is taken deep inside a round (a turn inside a phase inside the round), where the
//! engine's state is partly the call stack, so a playout cannot start from the decision itself.
//! It starts from the round instead: at each round's start the engine copies itself into
//! `Searcher::start` (allocation-free once warm, `Engine::copy_from`), and every `Search`
//! decision of the round is logged. A playout copies `start` into `Searcher::play`, replays the
//! round with the same dice and the logged decisions up to the one being made (everyone else's
//! decisions follow from the same state and dice, so they come out the same), takes the
//! candidate under test there, draws fresh dice from then on, and plays on (the searchers' own
//! later decisions by their rollout policy, everyone else's by their own controllers) to the
//! end or the horizon. Nothing of a playout reaches the trace.
//!
//! The candidates share the budget as a bandit (UCB1 over the root, flat Monte Carlo below it),
//! and the candidate with the best mean value is taken. Playout `j` of every candidate draws
//! from the same stream (common random numbers), derived from the encounter's seed, the
//! decision's number in the encounter and `j`: `tempo run` replays a `Search` game exactly, and
//! a simulation is the same for every `--jobs` and shard split.

use super::controller::{Chosen, Decision, SearchParams};
use super::engine::{Engine, Searcher};
use super::error::RunError;
use super::lookahead::Logged;
use super::sink::Sink;
use crate::ir;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

impl<'r> Searcher<'r> {
    pub(crate) fn new(start: Engine<'r, ()>, play: Engine<'r, ()>) -> Searcher<'r> {
        let side_value = start.ruleset().derived.iter().position(|d| d.name == SIDE_VALUE);
        let canon = super::canon::Canon::for_ruleset(start.ruleset());
        Searcher {
            start,
            play,
            ready: false,
            at_begin: false,
            max_rounds: 0,
            log: Vec::new(),
            seed: 0,
            made: 0,
            side_value,
            values: Vec::new(),
            exact: None,
            canon,
        }
    }

    /// A new encounter, played with dice seeded `seed`.
    pub(crate) fn reset(&mut self, seed: u64) {
        self.ready = false;
        self.log.clear();
        self.seed = seed;
        self.made = 0;
    }

    /// Where `other` stands between two rounds: its seed and count of decisions (the same
    /// playouts follow), no round under way.
    pub(crate) fn copy_from(&mut self, other: &Searcher<'r>) {
        self.reset(other.seed);
        self.made = other.made;
    }
}

/// A candidate's index and mean value, as candidates are ranked.
type Ranked = (usize, f64);

/// SplitMix64's finaliser: spreads a decision's place into an unrelated seed.
pub(super) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<'r, S: Sink> Engine<'r, S> {
    /// A round starts: the state the round's playouts start from is kept.
    pub(crate) fn search_round_starts(&mut self, max_rounds: u32) {
        let Some(mut s) = self.search.take() else { return };
        s.start.copy_from(self);
        s.max_rounds = max_rounds;
        s.at_begin = false;
        s.log.clear();
        s.ready = true;
        self.search = Some(s);
    }

    /// The encounter begins (initiative, with its adjustments, may be made now): its start is
    /// kept. Its round limit is not known yet: the playouts of its decisions look one round
    /// ahead.
    pub(crate) fn search_begins(&mut self) {
        let Some(mut s) = self.search.take() else { return };
        s.start.copy_from(self);
        s.max_rounds = 1;
        s.at_begin = true;
        s.log.clear();
        s.ready = true;
        self.search = Some(s);
    }

    /// The round is over: until the next starts, `Search` decides by its rollout policy.
    pub(crate) fn search_round_ends(&mut self) {
        if let Some(s) = self.search.as_deref_mut() {
            s.ready = false;
        }
    }

    /// In a playout's engine: the next decision of a `Search` controller, if it is replayed
    /// (a logged one, then the candidate under test); `None` once the playout has diverged.
    fn replayed(&mut self) -> Option<Logged> {
        let replay = self.replay.as_deref_mut()?;
        if replay.diverged {
            return None;
        }
        if let Some(logged) = replay.log.get(replay.next) {
            replay.next += 1;
            return Some(*logged);
        }
        replay.diverged = true;
        let (candidate, seed) = (replay.candidate, replay.seed);
        // From here on the future is one of many: its dice are its own.
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        candidate
    }

    /// In a playout's engine, after the candidate: the searcher's own decision among
    /// `options`, from the tree while the playout is in it; `None` outside it (the rollout
    /// policy decides), and for anyone else.
    fn walk_tree(&mut self, who: usize, options: &[Logged]) -> Option<usize> {
        let r = self.replay.as_deref_mut()?;
        if !r.diverged || r.who != who || options.is_empty() {
            return None;
        }
        let node = r.at?;
        let (option, edge) = r.tree.select(node, options, r.exploration);
        r.path.push((node, edge));
        let child = r.tree.nodes[node as usize][edge as usize].child;
        r.at = if child != 0 {
            Some(child)
        } else if !r.expanded {
            r.expanded = true;
            let c = r.tree.add_node();
            r.tree.nodes[node as usize][edge as usize].child = c;
            Some(c)
        } else {
            None
        };
        Some(option)
    }

    /// Whether `who`'s next decision in this playout is made from the tree (so its options
    /// are worth finding).
    fn in_tree(&self, who: usize) -> bool {
        self.replay.as_deref().is_some_and(|r| r.diverged && r.who == who && r.at.is_some())
    }

    /// In a playout's engine, the searcher's decision from the tree among the options `fill`
    /// finds, in a buffer kept between decisions; `None` when it is not made from the tree.
    fn tree_pick(
        &mut self,
        who: usize,
        fill: impl FnOnce(&mut Self, &mut Vec<Logged>) -> Result<(), RunError>,
    ) -> Result<Option<Logged>, RunError> {
        if !self.in_tree(who) {
            return Ok(None);
        }
        let mut options = self.replay.as_deref_mut().map(|r| std::mem::take(&mut r.options)).unwrap_or_default();
        options.clear();
        let filled = fill(self, &mut options);
        let pick = match filled {
            Ok(()) => self.walk_tree(who, &options).map(|i| options[i]),
            Err(_) => None,
        };
        if let Some(r) = self.replay.as_deref_mut() {
            r.options = options;
        }
        filled.map(|()| pick)
    }

    /// Whether this engine searches (it plays the real encounter, with a round under way).
    pub(crate) fn searching(&self) -> bool {
        self.search.as_deref().is_some_and(|s| s.ready)
    }

    /// Chooses among `options` for `who` by playouts, logs the choice and returns its index,
    /// with what each option was worth (`tried`, in the options' order); `default`, the index
    /// of what the rollout policy would take, keeps its place unless beaten clearly. Call only
    /// when `searching()`.
    fn search_among(
        &mut self,
        who: usize,
        params: SearchParams,
        options: &[Logged],
        default: Option<usize>,
        tried: &mut Vec<Tried>,
    ) -> Result<usize, RunError> {
        let Some(mut s) = self.search.take() else { return Ok(0) };
        let side = self.world.sides[who];
        s.play.replay.get_or_insert_with(Default::default).hidden = self.clock.hiding.then_some(self.clock.phase_seq);
        // In a hidden phase the others' picks are unknown: a mixed pick (secret.rs).
        if let Some(best) = self.exactly(&mut s, who, options, default, tried) {
            s.log.push(options[best]);
            s.made += 1;
            self.search = Some(s);
            return Ok(best);
        }
        let result = if self.clock.hiding && matches!(options.first(), Some(Logged::Turn(_))) {
            let must = self.ruleset().phases[self.clock.phase_at].must;
            s.choose_secret(who, side, params, options, must, tried)
        } else {
            s.choose(who, side, params, options, default, tried)
        };
        if let Ok(best) = result {
            if let Some(chosen) = options.get(best) {
                s.log.push(*chosen);
            }
        }
        s.made += 1;
        self.search = Some(s);
        result
    }
}

impl<'r, S: Sink> Engine<'r, S> {
    /// The decision answered from the solved encounter, where there is one (exact.rs): its
    /// index, with each option's exact chance in `tried`.
    fn exactly(
        &self,
        s: &mut Searcher<'r>,
        who: usize,
        options: &[Logged],
        default: Option<usize>,
        tried: &mut Vec<Tried>,
    ) -> Option<usize> {
        if options.len() <= 1 || self.clock.hiding || s.at_begin || !s.ready {
            return None;
        }
        let exact = s.exact.as_deref_mut()?;
        self.canonical(&mut s.canon);
        let (best, values) = exact.best(&s.start, &s.log, &s.canon.bytes, who, options, default)?;
        tried.clear();
        tried.extend(values.into_iter().map(|value| Tried { playouts: 0, value }));
        Some(best)
    }
}

/// How many playouts each candidate needs, all of them alike, for the search to call a
/// decision indifferent (`Searcher::indifferent`) before its budget is spent.
const SAME_ENOUGH: usize = 16;

/// A candidate's playouts and mean value (for `--decisions`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tried {
    pub playouts: u32,
    pub value: f64,
}

/// How many standard errors (of the playout-by-playout difference) a candidate's mean must
/// clear the rollout policy's own choice by to displace it, and the top two candidates be apart
/// for the search to stop before its extra playouts run out.
const APART: f64 = 1.0;

impl Searcher<'_> {
    /// The index among `options` of the decision to take, searched by playouts; `default` is
    /// what the rollout policy would take (not known for every decision), which keeps its place
    /// unless another candidate is better by more than noise (`APART`).
    fn choose(
        &mut self,
        who: usize,
        side: u32,
        params: SearchParams,
        options: &[Logged],
        default: Option<usize>,
        tried: &mut Vec<Tried>,
    ) -> Result<usize, RunError> {
        tried.clear();
        if options.len() <= 1 {
            tried.extend(options.iter().map(|_| Tried { playouts: 0, value: 0.0 }));
            return Ok(0);
        }
        let replay = self.play.replay.get_or_insert_with(Default::default);
        replay.tree.clear();
        replay.tree.add_node();
        // Winning is worth 0 to 1; a `side_value` difference has no bound, and is read against
        // the least and most its playouts have seen.
        (replay.tree.lo, replay.tree.hi) =
            if self.side_value.is_some() { (f64::INFINITY, f64::NEG_INFINITY) } else { (0.0, 1.0) };
        replay.who = who;
        replay.exploration = params.exploration;
        if self.values.len() < options.len() {
            self.values.resize_with(options.len(), Vec::new);
        }
        for v in &mut self.values {
            v.clear();
        }
        let place = mix(self.seed ^ mix(self.made));
        let budget = params.playouts.max(options.len() as u32);
        for done in 1..=budget {
            let replay = self.play.replay.get_or_insert_with(Default::default);
            let (i, edge) = replay.tree.select(0, options, params.exploration);
            self.play_one(options, i, edge, place, side, params.rounds)?;
            if done % options.len() as u32 == 0 && self.indifferent(options.len()) {
                break;
            }
        }
        // Where the best and its rival (the rollout policy's choice, else the second best) are
        // not yet apart, up to half the budget again goes to the two of them, a playout each.
        let mut extra = params.playouts / 2;
        let best = loop {
            let (best, rival) = self.contenders(options.len(), default);
            let Some(rival) = rival else { break best };
            if extra < 2 || self.settled(best, rival) {
                break match default {
                    Some(d) if d != best && !self.apart(best, d) => d,
                    _ => best,
                };
            }
            for i in [best, rival] {
                // The root's edges were made in the options' order.
                self.play_one(options, i, i as u32, place, side, params.rounds)?;
            }
            extra -= 2;
        };
        let replay = self.play.replay.get_or_insert_with(Default::default);
        let root = &replay.tree.nodes[0];
        for o in options {
            let e = root.iter().find(|e| e.option == *o);
            tried.push(e.map_or(Tried { playouts: 0, value: 0.0 }, |e| Tried {
                playouts: e.playouts,
                value: e.sum / f64::from(e.playouts.max(1)),
            }));
        }
        Ok(best)
    }

    /// One playout of option `i` (the root's edge `edge`), its value taken into the tree and
    /// into `values`.
    fn play_one(
        &mut self,
        options: &[Logged],
        i: usize,
        edge: u32,
        place: u64,
        side: u32,
        rounds: Option<u32>,
    ) -> Result<(), RunError> {
        let j = self.values[i].len() as u64;
        // Playout j of every option draws the same dice (common random numbers).
        let seed = mix(place ^ j);
        let value = self.playout(options[i], Some(edge), seed, side, rounds)?;
        self.values[i].push(value);
        let replay = self.play.replay.get_or_insert_with(Default::default);
        if self.side_value.is_some() {
            replay.tree.widen(value);
        }
        for &(node, edge) in &replay.path {
            let e = &mut replay.tree.nodes[node as usize][edge as usize];
            e.playouts += 1;
            e.sum += value;
        }
        Ok(())
    }

    /// The candidate with the best mean (the first of equals) and its rival: `default` when
    /// that is another, else the second best (`None` with one candidate tried).
    fn contenders(&self, n: usize, default: Option<usize>) -> (usize, Option<usize>) {
        let mean = |i: usize| {
            let v = &self.values[i];
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        let (mut best, mut second): (Option<Ranked>, Option<Ranked>) = (None, None);
        for i in 0..n {
            let Some(m) = mean(i) else { continue };
            if best.is_none_or(|(_, b)| m > b) {
                second = best;
                best = Some((i, m));
            } else if second.is_none_or(|(_, b)| m > b) {
                second = Some((i, m));
            }
        }
        let best = best.map_or(0, |(i, _)| i);
        let rival = match default {
            Some(d) if d != best && d < n && !self.values[d].is_empty() => Some(d),
            _ => second.map(|(i, _)| i),
        };
        (best, rival)
    }

    /// The mean difference between candidates `a` and `b`, playout by playout over the
    /// playouts both have, and its standard error (`None` under two such playouts).
    fn difference(&self, a: usize, b: usize) -> Option<(f64, f64)> {
        let (va, vb) = (&self.values[a], &self.values[b]);
        let m = va.len().min(vb.len());
        if m < 2 {
            return None;
        }
        let diffs = || va.iter().zip(vb).take(m).map(|(x, y)| x - y);
        let mean = diffs().sum::<f64>() / m as f64;
        let var = diffs().map(|d| (d - mean) * (d - mean)).sum::<f64>() / (m - 1) as f64;
        Some((mean, (var / m as f64).sqrt()))
    }

    /// Whether candidate `a` is better than `b` by more than `APART` standard errors.
    fn apart(&self, a: usize, b: usize) -> bool {
        self.difference(a, b).is_some_and(|(mean, se)| mean > APART * se)
    }

    /// Whether the decision has not mattered on any future tried: every one of the `n`
    /// candidates has had at least `SAME_ENOUGH` playouts, and every playout of every
    /// candidate came out the same (a fight already won, or already lost, whatever is done).
    /// Playout `j` of each candidate shares its dice with the others', so more of them would
    /// show a difference only where the futures tried so far all missed it. The search then
    /// stops, and the rollout policy's choice is kept, as between two `settled` candidates.
    fn indifferent(&self, n: usize) -> bool {
        let Some(first) = self.values.first().and_then(|v| v.first()) else { return false };
        self.values[..n].iter().all(|v| v.len() >= SAME_ENOUGH && v.iter().all(|x| x == first))
    }

    /// Whether more playouts would not tell `a` and `b` apart: they are, or every playout of
    /// both so far (at least 8) came out the same.
    fn settled(&self, a: usize, b: usize) -> bool {
        let same = self.values[a].len().min(self.values[b].len()) >= 8
            && self.difference(a, b).is_some_and(|(mean, se)| mean == 0.0 && se == 0.0);
        same || self.apart(a, b)
    }

    /// One playout of `candidate` (the root's edge `edge`; `None`: no tree, the searcher's later
    /// decisions by its rollout) from the round's start; its value for `side`.
    pub(super) fn playout(
        &mut self,
        candidate: Logged,
        edge: Option<u32>,
        seed: u64,
        side: u32,
        rounds: Option<u32>,
    ) -> Result<f64, RunError> {
        let play = &mut self.play;
        play.copy_from(&self.start);
        play.decisions = false;
        let replay = play.replay.get_or_insert_with(Default::default);
        replay.log.clone_from(&self.log);
        replay.next = 0;
        replay.candidate = Some(candidate);
        replay.seed = seed;
        replay.diverged = false;
        replay.path.clear();
        (replay.at, replay.expanded) = match edge {
            None => (None, true),
            Some(edge) => {
                replay.path.push((0, edge));
                match replay.tree.nodes[0][edge as usize].child {
                    0 => {
                        let c = replay.tree.add_node();
                        replay.tree.nodes[0][edge as usize].child = c;
                        (Some(c), true)
                    }
                    child => (Some(child), false),
                }
            }
        };
        let wanted = match rounds {
            Some(h) => self.max_rounds.min(self.start.clock.round.saturating_add(h.max(1))),
            None => self.max_rounds,
        };
        // However far the round limit: a decision costs at most `playouts` x this many rounds.
        let horizon = wanted.min(self.start.clock.round.saturating_add(MAX_PLAYOUT_ROUNDS));
        if self.at_begin {
            play.begin()?;
        }
        while play.next_round(horizon)? {}
        // Played to the encounter's own end (not a horizon short of it, nor the one round an
        // initiative adjustment looks ahead), or cut by the depth bound: valued as an
        // encounter ended undecided by its round limit is.
        let ended = !self.at_begin && (horizon >= self.max_rounds || horizon < wanted);
        match self.side_value {
            Some(d) => valued(play, side, d),
            None => Ok(value(play, side, ended)),
        }
    }
}

/// The most rounds one playout plays, the current one counted (docs/reliability.md): past it the
/// playout stops and is valued as one the round limit ended undecided. Far above a normal
/// encounter's length, so it changes nothing there; with `rounds: 1000000` and nothing ending,
/// a decision cost the square of the rounds (1,000 rounds: 10 s).
pub(crate) const MAX_PLAYOUT_ROUNDS: u32 = 50;

/// One in this many of a searcher's own turn decisions below the tree is taken at random
/// (`strays`).
const STRAY: u64 = 5;

/// The name of the derived value a ruleset declares for what a side values in place of
/// winning (`derive side_value = EXPR`; docs/scenario.md, "Search").
pub(crate) const SIDE_VALUE: &str = "side_value";

/// What the state is worth to `side` when the ruleset derives `side_value` (index `d`): the
/// sum of it over the side's participants (standing or not) less its sum over everyone else.
/// Unbounded: a decision reads it against the least and most its playouts saw (`Tree::widen`).
fn valued<S: Sink>(e: &mut Engine<'_, S>, side: u32, d: usize) -> Result<f64, RunError> {
    let Some(derived) = e.ruleset().derived.get(d) else { return Ok(0.5) };
    let (mut own, mut others) = (0i64, 0i64);
    for who in 0..e.world.n {
        let v = e.eval(&derived.value, &super::ctx::Ctx::of(who))?;
        if e.world.sides[who] == side {
            own = own.saturating_add(v);
        } else {
            others = others.saturating_add(v);
        }
    }
    Ok(own as f64 - others as f64)
}

/// What the state is worth to `side`: 1 when only its side is standing, 0 when only others
/// are. Otherwise, at a horizon short of the encounter's end, 0.5 plus a quarter of the
/// difference between its standing strength and the others' (each the mean, over a side's
/// participants, of the share of their vital pools left, 0 for one down), so a draw never
/// outweighs a win; at the encounter's end (`ended`: the round limit came first, or nobody
/// stands) a tenth of that: an encounter ended undecided is nearly as lost as one lost (it is
/// not won: the programme counts it with the losses), and of two such ends the one that leaves
/// the side healthier is still worth more.
fn value<S: Sink>(e: &Engine<'_, S>, side: u32, ended: bool) -> f64 {
    let w = &e.world;
    let (mut own_up, mut others_up) = (false, false);
    for who in 0..w.n {
        if w.standing(who) {
            if w.sides[who] == side {
                own_up = true;
            } else {
                others_up = true;
            }
        }
    }
    match (own_up, others_up) {
        (true, false) => 1.0,
        (false, true) => 0.0,
        _ => {
            let even = 0.5 + 0.25 * (strength(e, |s| s == side) - strength(e, |s| s != side));
            if ended {
                0.1 * even
            } else {
                even
            }
        }
    }
}

/// The mean, over the participants of the sides `of` picks, of the share of their vital pools
/// (pools with thresholds and a maximum) left: 1 for one standing without such pools, 0 for one
/// down.
fn strength<S: Sink>(e: &Engine<'_, S>, of: impl Fn(u32) -> bool) -> f64 {
    let (w, r) = (&e.world, e.ruleset());
    let (mut sum, mut count) = (0.0, 0u32);
    for who in (0..w.n).filter(|&who| of(w.sides[who])) {
        count += 1;
        if !w.standing(who) {
            continue;
        }
        let (mut share, mut vital) = (0.0, 0u32);
        for (p, pool) in r.pools.iter().enumerate() {
            if pool.thresholds.is_empty() {
                continue;
            }
            let Some(Some(max)) = e.fixed_max.get(who * r.pools.len() + p) else { continue };
            if *max > 0 {
                let now = w.pool(who, ir::PoolId(p as u32));
                share += (now as f64 / *max as f64).clamp(0.0, 1.0);
                vital += 1;
            }
        }
        sum += if vital == 0 { 1.0 } else { share / f64::from(vital) };
    }
    if count == 0 {
        0.0
    } else {
        sum / f64::from(count)
    }
}

impl<S: Sink> Engine<'_, S> {
    /// `Search`'s next decision on `who`'s turn: replayed in a playout, searched in the real
    /// encounter, by the rollout policy otherwise.
    pub(super) fn search_turn(&mut self, who: usize, params: SearchParams) -> Result<Decision, RunError> {
        let rollout = params.rollout.chosen();
        if self.replay.is_some() {
            let picked = match self.replayed() {
                Some(logged) => Some(logged),
                None => self.tree_pick(who, |e, options| e.turn_options(who, params, options))?,
            };
            return match picked {
                Some(Logged::Turn(d)) => Ok(d),
                None if self.strays(who) => self.stray_turn(who, params, rollout),
                // A replay that does not line up would be a bug; the rollout plays on.
                _ => self.policy_turn(who, rollout),
            };
        }
        if !self.searching() {
            return self.policy_turn(who, rollout);
        }
        let mut options = Vec::new();
        self.turn_options(who, params, &mut options)?;
        let default = match rollout {
            // Its pick would draw from the encounter's dice.
            Chosen::Random => None,
            _ => {
                let was = std::mem::replace(&mut self.decisions, false);
                let d = self.policy_turn(who, rollout);
                self.decisions = was;
                let d = Logged::Turn(d?);
                options.iter().position(|o| *o == d)
            }
        };
        let mut tried = Vec::new();
        let best = self.search_among(who, params, &options, default, &mut tried)?;
        let Some(Logged::Turn(chosen)) = options.get(best).copied() else { return Ok(Decision::EndTurn) };
        if self.decisions {
            self.account_search(who, &options, &tried, Logged::Turn(chosen));
        }
        Ok(chosen)
    }

    /// Whether the searcher's next decision in this playout, below the tree, is one of the
    /// rollout's random few (`STRAY` of them): a rollout that only ever takes the rollout
    /// policy's choice never keeps a point for later or sets up a blow, so a candidate that
    /// pays off only then would look no better than the others. Draws from the playout's dice.
    fn strays(&mut self, who: usize) -> bool {
        let below = self.replay.as_deref().is_some_and(|r| r.diverged && r.who == who && r.at.is_none());
        below && self.below(STRAY) == 0
    }

    /// A turn decision taken at random among the searcher's options (the rollout policy's
    /// when there are none).
    fn stray_turn(&mut self, who: usize, params: SearchParams, rollout: Chosen) -> Result<Decision, RunError> {
        let mut options = self.replay.as_deref_mut().map(|r| std::mem::take(&mut r.options)).unwrap_or_default();
        options.clear();
        let filled = self.turn_options(who, params, &mut options);
        let pick = match filled {
            Ok(()) if !options.is_empty() => {
                let i = self.below(options.len() as u64) as usize;
                match options[i] {
                    Logged::Turn(d) => Some(d),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(r) = self.replay.as_deref_mut() {
            r.options = options;
        }
        filled?;
        match pick {
            Some(d) => Ok(d),
            None => self.policy_turn(who, rollout),
        }
    }

    /// What a searcher may do next on its turn: what `Greedy` would weigh, and the end of the
    /// turn.
    fn turn_options(&mut self, who: usize, params: SearchParams, options: &mut Vec<Logged>) -> Result<(), RunError> {
        let mut decisions = std::mem::take(&mut self.scratch.decisions);
        let found = self.candidates(who, super::controller::Chosen::Search(params), &mut decisions);
        options.extend(decisions.iter().map(|d| Logged::Turn(*d)));
        self.scratch.decisions = decisions;
        found?;
        options.push(Logged::Turn(Decision::EndTurn));
        Ok(())
    }

    /// Which affordable reaction (if any) a `Search` controller declares, as `search_turn`.
    pub(super) fn search_reaction(
        &mut self,
        who: usize,
        params: SearchParams,
        offers: &[(ir::ActionId, Option<usize>)],
        event: &super::ctx::Ctx,
    ) -> Result<Option<(ir::ActionId, Option<usize>)>, RunError> {
        let rollout = params.rollout.chosen();
        let fill = |_: &mut Self, options: &mut Vec<Logged>| {
            options.extend(offers.iter().map(|o| Logged::React(Some(*o))));
            options.push(Logged::React(None));
            Ok(())
        };
        let default = |e: &mut Self| match rollout {
            Chosen::Random => None,
            _ => Some(Logged::React(e.policy_reaction(who, rollout, offers, event))),
        };
        Ok(match self.ask_searched(who, params, fill, default)? {
            Some(Logged::React(answer)) => answer,
            _ => self.policy_reaction(who, rollout, offers, event),
        })
    }

    /// Which of the `live` options (of `count`) a `Search` controller chooses; `None`: as its
    /// rollout policy would.
    pub(super) fn search_choice(
        &mut self,
        who: usize,
        params: SearchParams,
        count: usize,
        live: impl Fn(usize) -> bool,
    ) -> Result<Option<usize>, RunError> {
        let fill = |_: &mut Self, options: &mut Vec<Logged>| {
            options.extend((0..count).filter(|i| live(*i)).map(Logged::Choice));
            Ok(())
        };
        Ok(match self.ask_searched(who, params, fill, |_| None)? {
            Some(Logged::Choice(i)) => Some(i),
            _ => None,
        })
    }

    /// How far a `Search` controller moves its initiative, within ±`max`: searched when the
    /// encounter's start can be played from, else not at all.
    pub(super) fn search_adjust(&mut self, who: usize, params: SearchParams, max: i64) -> Result<i64, RunError> {
        // Past a few steps either way the choice is between orders, not values: the candidates
        // are the extremes and the middle.
        let fill = |_: &mut Self, options: &mut Vec<Logged>| {
            // In order, so that a `max` of 0 leaves one option.
            options.extend([-max, 0, max].map(Logged::Adjust));
            options.dedup();
            Ok(())
        };
        Ok(match self.ask_searched(who, params, fill, |_| Some(Logged::Adjust(0)))? {
            Some(Logged::Adjust(by)) => by.clamp(-max, max),
            _ => 0,
        })
    }

    /// A decision other than a turn's, for a searcher: replayed in a playout (or from the
    /// tree), searched in the real encounter; `None` where the rollout policy decides.
    /// `default`: what the rollout policy would answer, when known (asked only in the real
    /// encounter).
    fn ask_searched(
        &mut self,
        who: usize,
        params: SearchParams,
        fill: impl Fn(&mut Self, &mut Vec<Logged>) -> Result<(), RunError>,
        default: impl FnOnce(&mut Self) -> Option<Logged>,
    ) -> Result<Option<Logged>, RunError> {
        if self.replay.is_some() {
            return match self.replayed() {
                Some(logged) => Ok(Some(logged)),
                None => self.tree_pick(who, fill),
            };
        }
        if !self.searching() {
            return Ok(None);
        }
        let mut options = Vec::new();
        fill(self, &mut options)?;
        // Every call site offers at least one option (declining, the end of the turn, a live
        // option, no adjustment): a decision is always logged, so replays stay in step.
        debug_assert!(!options.is_empty());
        let default = default(self).and_then(|d| options.iter().position(|o| *o == d));
        let mut tried = Vec::new();
        let best = self.search_among(who, params, &options, default, &mut tried)?;
        let chosen = options.get(best).copied();
        match (self.decisions, chosen) {
            (true, Some(answer @ Logged::React(_))) => self.account_search(who, &options, &tried, answer),
            (true, Some(Logged::Choice(i))) => self.account_choice(who, &options, &tried, i),
            (true, Some(Logged::Adjust(by))) => self.account_adjust(who, &options, &tried, by),
            _ => {}
        }
        Ok(chosen)
    }
}
