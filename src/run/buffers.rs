//! Vectors that every part of the engine empties and refills in place at each reset, so a replay
//! keeps their allocations. A leaf: it imports no other part.

/// `v` becomes `n` copies of `x`, in the allocation it has.
pub(crate) fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}
