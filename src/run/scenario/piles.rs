//! A participant's starting piles (`piles: {"hand": ["strike", ...]}`), each pile and kind
//! checked against the ruleset by name.

use super::{at, find, ParticipantSpec, Resolver, Seg};
use crate::ir;

impl Resolver<'_> {
    /// The piles `p` starts with, each named item a kind of the pile's set.
    pub(super) fn piles(&mut self, here: &[Seg], p: &ParticipantSpec) -> Vec<(ir::PileId, Vec<u32>)> {
        let r = self.r;
        let mut out = Vec::new();
        for (name, items) in &p.piles {
            let found = find(r.piles.iter().map(|x| x.name.as_str()), name, "pile");
            let Some(i) = self.found(&p.name, at(here, [Seg::Field("piles"), Seg::Key(name.clone())]), found) else {
                continue;
            };
            let Some(set) = r.item_sets.get(r.piles[i].set.index()) else { continue };
            let mut counts = vec![0u32; set.kinds.len()];
            for (j, item) in items.iter().enumerate() {
                let found = find(set.kinds.iter().map(|k| k.name.as_str()), item, "kind of item");
                let at = at(here, [Seg::Field("piles"), Seg::Key(name.clone()), Seg::Index(j)]);
                if let Some(k) = self.found(&p.name, at, found) {
                    counts[k] = counts[k].saturating_add(1);
                }
            }
            out.push((ir::PileId(i as u32), counts));
        }
        out
    }
}
