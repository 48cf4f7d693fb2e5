//! Costs as the runner holds them: amounts of pools, inline, because a cost names few pools and
//! planning one (which policies do many times a decision) must not touch the heap.

use super::error::RunError;
use crate::ir;

/// Most pools one cost may name (after adjustments).
pub const MAX_COST_POOLS: usize = 8;

/// Amounts of pools, held inline: a cost names few pools, so planning and paying one never
/// touches the heap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    items: [(ir::PoolId, i64); MAX_COST_POOLS],
    len: usize,
}

impl Default for Costs {
    fn default() -> Costs {
        Costs { items: [(ir::PoolId(0), 0); MAX_COST_POOLS], len: 0 }
    }
}

impl Costs {
    /// Adds to a pool's amount, or names a new pool.
    pub fn add(&mut self, pool: ir::PoolId, amount: i64) -> Result<(), RunError> {
        if let Some(x) = self.items[..self.len].iter_mut().find(|x| x.0 == pool) {
            x.1 = x.1.saturating_add(amount);
            return Ok(());
        }
        if self.len == MAX_COST_POOLS {
            return Err(RunError::Rule(format!("a cost names more than {MAX_COST_POOLS} pools")));
        }
        self.items[self.len] = (pool, amount);
        self.len += 1;
        Ok(())
    }

    pub fn as_slice(&self) -> &[(ir::PoolId, i64)] {
        &self.items[..self.len]
    }

    pub fn iter(&self) -> std::slice::Iter<'_, (ir::PoolId, i64)> {
        self.as_slice().iter()
    }

    pub fn scale(&mut self, k: i64) {
        for x in &mut self.items[..self.len] {
            x.1 = x.1.saturating_mul(k);
        }
    }
}

impl<'a> IntoIterator for &'a Costs {
    type Item = &'a (ir::PoolId, i64);
    type IntoIter = std::slice::Iter<'a, (ir::PoolId, i64)>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for Costs {
    type Item = (ir::PoolId, i64);
    type IntoIter = std::iter::Take<std::array::IntoIter<(ir::PoolId, i64), MAX_COST_POOLS>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().take(self.len)
    }
}
