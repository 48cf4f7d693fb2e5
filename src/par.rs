//! Work over many items: on rayon's threads with the `parallel` feature, one item after another
//! on this thread without it (a browser has no threads to give). The sequential half mirrors the
//! few rayon methods the library calls, keeping rayon's order of results, so each caller is
//! written once and gives the same answer either way.

#[cfg(feature = "parallel")]
pub(crate) use rayon::prelude::*;

#[cfg(not(feature = "parallel"))]
pub(crate) use sequential::*;

#[cfg(not(feature = "parallel"))]
mod sequential {
    /// Stands in for a rayon parallel iterator. It is not an `Iterator`, so its `reduce` (rayon's,
    /// with an identity) is never taken for `Iterator::reduce`.
    pub(crate) struct Seq<I>(I);

    // Test files are the only caller of `par_iter`: without `fs`, it is left out.
    #[cfg(feature = "fs")]
    pub(crate) trait IntoParallelRefIterator<'a> {
        type Iter;
        fn par_iter(&'a self) -> Seq<Self::Iter>;
    }

    #[cfg(feature = "fs")]
    impl<'a, T: 'a> IntoParallelRefIterator<'a> for [T] {
        type Iter = std::slice::Iter<'a, T>;
        fn par_iter(&'a self) -> Seq<Self::Iter> {
            Seq(self.iter())
        }
    }

    pub(crate) trait IntoParallelIterator {
        type Iter;
        fn into_par_iter(self) -> Seq<Self::Iter>;
    }

    // Test files are the only caller of this one: without `fs`, it is left out.
    #[cfg(feature = "fs")]
    impl<T> IntoParallelIterator for Vec<T> {
        type Iter = std::vec::IntoIter<T>;
        fn into_par_iter(self) -> Seq<Self::Iter> {
            Seq(self.into_iter())
        }
    }

    /// A batch's blocks are a range of numbers, made one at a time.
    impl IntoParallelIterator for std::ops::Range<u64> {
        type Iter = std::ops::Range<u64>;
        fn into_par_iter(self) -> Seq<Self::Iter> {
            Seq(self)
        }
    }

    impl<I: Iterator> Seq<I> {
        pub(crate) fn map<B, F: FnMut(I::Item) -> B>(self, f: F) -> Seq<std::iter::Map<I, F>> {
            Seq(self.0.map(f))
        }
    }

    #[cfg(feature = "fs")]
    impl<I: Iterator> Seq<I> {
        pub(crate) fn zip<J: Iterator>(self, other: Seq<J>) -> Seq<std::iter::Zip<I, J>> {
            Seq(self.0.zip(other.0))
        }

        pub(crate) fn collect<C: FromIterator<I::Item>>(self) -> C {
            self.0.collect()
        }
    }

    impl<I: Iterator> Seq<I> {
        /// One state for the whole run, as rayon makes one per thread.
        pub(crate) fn map_init<S, B>(
            self,
            init: impl FnOnce() -> S,
            mut f: impl FnMut(&mut S, I::Item) -> B,
        ) -> Seq<impl Iterator<Item = B>> {
            let mut state = init();
            Seq(self.0.map(move |item| f(&mut state, item)))
        }

        /// Folds in order from `identity()`: rayon's reduce of an associative `op` gives the same.
        pub(crate) fn reduce(
            self,
            identity: impl FnOnce() -> I::Item,
            op: impl FnMut(I::Item, I::Item) -> I::Item,
        ) -> I::Item {
            self.0.fold(identity(), op)
        }

        /// Folds in order from the first item (`None` without items), as rayon's `reduce_with`.
        pub(crate) fn reduce_with(self, op: impl FnMut(I::Item, I::Item) -> I::Item) -> Option<I::Item> {
            self.0.reduce(op)
        }
    }
}
