//! The named rolls the lowerer has open, and the dice with custom faces it knows (`rolls`
//! lowers them).

use crate::ir;
use crate::source::Span;

/// A named roll whose block is being lowered.
#[derive(Debug)]
pub(crate) struct OpenRoll {
    pub(super) name: String,
    pub(super) span: Span,
    pub(super) id: ir::RollId,
    /// Where its effect is in its block's effects, to give it its counts when the block ends.
    pub(super) at: usize,
    /// Whether it throws numbered dice, and dice with custom faces: what it can be counted by.
    pub(super) numbered: bool,
    pub(super) symbols: Vec<ir::SymbolId>,
    pub(super) counts: Vec<ir::RollCounting>,
    /// Its dice were reported: its counts are not reported again.
    pub(super) broken: bool,
}

/// The named rolls of the block being lowered and of those around it, innermost last; and those
/// whose block has ended, to tell a read outside its block from a name never rolled.
#[derive(Debug, Default)]
pub(crate) struct Rolls {
    pub(super) open: Vec<OpenRoll>,
    pub(super) closed: Vec<(String, Span)>,
    /// How many rolls were lowered: the next one's index.
    pub(crate) made: u32,
    /// The dice with custom faces (name, and the symbols of each face), for `dice(N, DIE)`.
    pub(crate) dice: Vec<(String, Vec<Vec<ir::SymbolId>>)>,
    /// Every symbol a face shows.
    pub(crate) symbols: Vec<String>,
}
