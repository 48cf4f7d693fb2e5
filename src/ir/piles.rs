//! Sets of items and the piles that hold them (`items`, `pile`): each participant has each pile
//! (or the encounter has one, `shared`, or each side, `per side`), and a pile's contents are a
//! count per kind of its set.

use super::{Expr, Who};
use serde::{Deserialize, Serialize};

/// The most of one kind a set may hold: draws walk the kinds, and a set this large is a typo.
pub const MAX_OF_A_KIND: u32 = 10_000;

/// The most items a participant's piles may start with, over every pile `starts full`
/// (docs/reliability.md): the end of a run lists each item held, so 10,000 kinds x 10,000 each
/// took 4.6 GB and aborted. Checked when the ruleset is checked (and in an IR).
pub const MAX_START_ITEMS: u64 = 100_000;

/// How many items a participant's piles start with: every pile `starts full` holds its set.
pub fn start_items(piles: &[Pile], sets: &[ItemSet]) -> u64 {
    piles
        .iter()
        .filter(|p| p.full)
        .filter_map(|p| sets.get(p.set.index()))
        .map(|s| s.kinds.iter().map(|k| u64::from(k.count)).sum::<u64>())
        .sum()
}

/// `items NAME { KIND xN, ... }`: the kinds of a set, each with how many a full set holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemSet {
    pub name: String,
    pub label: Option<String>,
    pub kinds: Vec<ItemKind>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemKind {
    pub name: String,
    pub count: u32,
    /// `joker = 100`: the kind's number, read by `value`, `highest` and `lowest`. A set gives
    /// every kind a number or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
}

/// The most a kind's number may be, either way: a pile's `value` sums at most
/// `MAX_START_ITEMS`-ish items of it without overflow worries.
pub const MAX_ITEM_VALUE: i64 = 1_000_000_000;

/// What `value`, `highest` and `lowest` read of a pile's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PileRead {
    /// `value(PILE)`: the sum of the numbers of every item it holds (0 when empty).
    Sum,
    /// `highest(PILE)`: the number of its item of the highest number (0 when empty).
    Highest,
    /// `lowest(PILE)`: the number of its item of the lowest number (0 when empty).
    Lowest,
}

/// `pile NAME of SET`: one per participant (one for the encounter when `shared`, one for each
/// side when `per_side`); `full` piles start with the whole set, once per pile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pile {
    pub name: String,
    pub label: Option<String>,
    pub set: ItemSetId,
    pub full: bool,
    /// `shared`: one pile for the whole encounter, whoever draws from it or moves items to it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
    /// `per side`: one pile for each side, which every member of the side draws from and moves
    /// items to. Never with `shared`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_side: bool,
}

/// A set of items, by its place in `Ruleset::item_sets`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ItemSetId(pub u32);

/// A pile, by its place in `Ruleset::piles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PileId(pub u32);

impl ItemSetId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl PileId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Whose pile: `hand` is the owner's, `target.hand` the target's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PileAt {
    pub who: Who,
    pub pile: PileId,
}

/// Which items a move takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Pick {
    /// One of this kind (its index in the pile's set); nothing when the pile has none.
    Kind(u32),
    /// So many at random, without replacement (fewer when the pile holds fewer).
    Random(Expr),
    All,
    /// The item of the highest number (`true`) or the lowest; of kinds tied for it, the one
    /// its set lists first. Nothing when the pile is empty.
    Extreme(bool),
}

/// Pile effects, in one variant of `Effect` so the effect walkers name them once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PileEffect {
    /// `draw N from A to B`: N at random, without replacement.
    Draw { count: Expr, from: PileAt, to: PileAt },
    /// `move PICK from A to B`.
    Move { pick: Pick, from: PileAt, to: PileAt },
}

impl PileEffect {
    /// The expression inside, if any.
    pub fn expr(&self) -> Option<&Expr> {
        match self {
            PileEffect::Draw { count, .. } => Some(count),
            PileEffect::Move { pick: Pick::Random(n), .. } => Some(n),
            PileEffect::Move { .. } => None,
        }
    }
}
