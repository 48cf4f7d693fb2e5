//! What `Search`'s playouts keep beside the engines they play in (search.rs): the decisions a
//! playout replays, and the tree of the searcher's own decisions. Apart from search.rs so the
//! engine, which holds them, need not import the module that drives it.

use super::controller::Decision;
use crate::ir;

/// One decision a `Search` controller made, as it is replayed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Logged {
    Turn(Decision),
    React(Option<(ir::ActionId, Option<usize>)>),
    /// The index of a `choose` option.
    Choice(usize),
    /// An initiative adjustment.
    Adjust(i64),
}

/// What a playout's engine replays (the logged decisions, then the candidate under test), and
/// the tree its searcher's later decisions walk.
#[derive(Default)]
pub(crate) struct Replay {
    pub(crate) log: Vec<Logged>,
    pub(crate) next: usize,
    pub(crate) candidate: Option<Logged>,
    pub(crate) seed: u64,
    /// The candidate has been taken: from here on everything is played, not replayed.
    pub(crate) diverged: bool,
    /// The participant whose decision is searched, and its policy's exploration constant.
    pub(crate) who: usize,
    pub(crate) exploration: f64,
    pub(crate) tree: Tree,
    /// The node the searcher's next decision in this playout is made at (`None`: the playout
    /// has left the tree, and the rollout policy decides).
    pub(crate) at: Option<u32>,
    /// The `phase_seq` of the `hidden` phase the searched decision is made in: there, the
    /// others' choices are not replayed (src/run/hidden.rs).
    pub(crate) hidden: Option<u64>,
    /// In the playouts of a pick in a `hidden` phase: the other searchers picking in it, whose
    /// first picks there are drawn from their regrets or forced (secret.rs).
    pub(crate) rivals: Vec<Rival>,
    /// This playout has added its one node to the tree.
    pub(crate) expanded: bool,
    /// The edges this playout took, (node, edge), for the value to be added to.
    pub(crate) path: Vec<(u32, u32)>,
    /// The options of a decision in the tree, kept between decisions.
    pub(crate) options: Vec<Logged>,
}

/// The searcher's own decisions as a tree (open loop: a node is a sequence of its decisions,
/// whatever the dice did in between). Node 0 is the decision being made. Nodes are kept
/// between decisions and cleared, so a warm tree allocates nothing.
#[derive(Default)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Vec<Edge>>,
    pub(crate) used: u32,
    /// The range values are read against in UCB1 (a mean at `lo` counts 0, at `hi` 1): 0..1 for
    /// winning; for a ruleset's `side_value`, whose values have no bound, the least and most
    /// seen so far in this decision's playouts (`widen`).
    pub(crate) lo: f64,
    pub(crate) hi: f64,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub(crate) option: Logged,
    pub(crate) playouts: u32,
    pub(crate) sum: f64,
    /// The node below (0: none yet; the root is nobody's child).
    pub(crate) child: u32,
}

impl Tree {
    pub(crate) fn clear(&mut self) {
        self.used = 0;
    }

    /// Takes `value` into the range of values seen.
    pub(crate) fn widen(&mut self, value: f64) {
        self.lo = self.lo.min(value);
        self.hi = self.hi.max(value);
    }

    pub(crate) fn add_node(&mut self) -> u32 {
        let at = self.used as usize;
        match self.nodes.get_mut(at) {
            Some(edges) => edges.clear(),
            None => self.nodes.push(Vec::new()),
        }
        self.used += 1;
        at as u32
    }

    /// UCB1 at `node` among `options` (the decisions possible now: in open loop they may differ
    /// from one playout to the next): an option never tried first, in order, else the best mean
    /// plus exploration bonus, the first of equals. Returns (option, edge).
    pub(crate) fn select(&mut self, node: u32, options: &[Logged], exploration: f64) -> (usize, u32) {
        let (lo, hi) = (self.lo, self.hi);
        let scaled = |value: f64| if hi > lo { (value - lo) / (hi - lo) } else { 0.5 };
        let edges = &mut self.nodes[node as usize];
        let mut best: Option<(usize, u32, f64)> = None;
        let mut total = 0u32;
        for o in options {
            match edges.iter().find(|e| e.option == *o) {
                Some(e) => total += e.playouts,
                None => edges.push(Edge { option: *o, playouts: 0, sum: 0.0, child: 0 }),
            }
        }
        let ln_total = f64::from(total.max(1)).ln();
        for (i, o) in options.iter().enumerate() {
            let Some(e) = edges.iter().position(|e| e.option == *o) else { continue };
            let edge = edges[e];
            if edge.playouts == 0 {
                return (i, e as u32);
            }
            let n = f64::from(edge.playouts);
            let score = scaled(edge.sum / n) + exploration * (ln_total / n).sqrt();
            if best.is_none_or(|(_, _, b)| score > b) {
                best = Some((i, e as u32, score));
            }
        }
        best.map_or((0, 0), |(i, e, _)| (i, e))
    }
}

/// Another searcher picking in the `hidden` phase a searcher's pick is made in, as that pick's
/// playouts play it: its picks there and what not having taken each instead has cost it so far.
#[derive(Debug, Clone)]
pub(crate) struct Rival {
    pub(crate) who: usize,
    pub(crate) side: u32,
    /// Its picks, found the first time it picks in a playout (empty before).
    pub(crate) options: Vec<Logged>,
    pub(crate) regret: Vec<f64>,
    /// This round of playouts: the pick it is made to take (`None`: drawn by `draw`, a number
    /// in 0..1, from the strategy its regrets give).
    pub(crate) force: Option<usize>,
    pub(crate) draw: f64,
}
