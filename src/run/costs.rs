//! Costs as the runner holds them: amounts of pools, inline, because a cost names few pools and
//! planning one (which policies do many times a decision) must not touch the heap.

use super::error::RunError;
use crate::ir;

/// Most pools one cost may name (after adjustments).
pub(crate) const MAX_COST_POOLS: usize = 8;

/// Amounts of pools, held inline: a cost names few pools, so planning and paying one never
/// touches the heap. Pools and amounts are kept apart (no padding between a pool's 4 bytes and
/// an amount's 8), so a cost is 104 bytes and a plan, which policies make and move by the
/// thousand, is copied with a few moves rather than a call to `memcpy`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    pools: [ir::PoolId; MAX_COST_POOLS],
    amounts: [i64; MAX_COST_POOLS],
    len: u8,
}

impl Costs {
    /// Writes these costs canonically (canon.rs): each pool with its amount, in order.
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        c.n(usize::from(self.len));
        for (p, amount) in self {
            c.put(&p);
            c.int(amount);
        }
    }
}

impl Default for Costs {
    fn default() -> Costs {
        Costs { pools: [ir::PoolId(0); MAX_COST_POOLS], amounts: [0; MAX_COST_POOLS], len: 0 }
    }
}

/// Each pool of a cost with its amount, in the order they were named.
pub(crate) type Iter<'a> =
    std::iter::Zip<std::iter::Copied<std::slice::Iter<'a, ir::PoolId>>, std::iter::Copied<std::slice::Iter<'a, i64>>>;

impl Costs {
    /// Adds to a pool's amount, or names a new pool.
    pub fn add(&mut self, pool: ir::PoolId, amount: i64) -> Result<(), RunError> {
        let len = usize::from(self.len);
        if let Some(i) = self.pools[..len].iter().position(|p| *p == pool) {
            self.amounts[i] = self.amounts[i].saturating_add(amount);
            return Ok(());
        }
        if len == MAX_COST_POOLS {
            return Err(RunError::rule(format!("a cost names more than {MAX_COST_POOLS} pools")));
        }
        self.pools[len] = pool;
        self.amounts[len] = amount;
        self.len += 1;
        Ok(())
    }

    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        let len = usize::from(self.len);
        self.pools[..len].iter().copied().zip(self.amounts[..len].iter().copied())
    }

    /// The amount of one pool (0 if the cost does not name it).
    #[inline]
    pub fn of(&self, pool: ir::PoolId) -> i64 {
        self.iter().filter(|(p, _)| *p == pool).map(|(_, n)| n).sum()
    }

    pub(crate) fn scale(&mut self, k: i64) {
        for x in &mut self.amounts[..usize::from(self.len)] {
            *x = x.saturating_mul(k);
        }
    }
}

impl<'a> IntoIterator for &'a Costs {
    type Item = (ir::PoolId, i64);
    type IntoIter = Iter<'a>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
