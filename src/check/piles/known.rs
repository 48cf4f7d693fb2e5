//! The names of the sets of items and piles a ruleset declares, kept while lowering. A leaf:
//! the lowerer holds one, and `piles.rs` fills and reads it.

/// The sets and piles declared, by name, for lowering what names them.
#[derive(Debug, Default)]
pub(crate) struct KnownPiles {
    /// Each set's name and its kinds' names.
    pub(super) sets: Vec<(String, Vec<String>)>,
    /// Each pile's name and its set.
    pub(super) piles: Vec<(String, usize)>,
    /// Per set, whether its kinds have numbers (`joker = 100`).
    pub(super) numbered: Vec<bool>,
    /// Per pile, whether it is `shared`: one pile, whoever's it is named as.
    pub(super) shared: Vec<bool>,
    /// Per pile, whether it is kept `per side`: `enemy_side.NAME` reaches the other side's.
    pub(super) per_side: Vec<bool>,
}

impl KnownPiles {
    pub(crate) fn pile(&self, name: &str) -> Option<usize> {
        self.piles.iter().position(|(n, _)| n == name)
    }
}
