//! [`SmallList`]: a list that keeps a single item inline. Most of the block layer's requests
//! carry one bio (a 4 KiB write is one bio, one request, one device command), so their lists
//! allocate only when writes were merged.

use std::ops::Deref;

/// A non-empty list of `Copy` items, read as a slice; one item needs no allocation.
#[derive(Clone)]
pub(crate) enum SmallList<T: Copy> {
    /// One item, inline.
    One(T),
    /// Two or more.
    Many(Vec<T>),
}

impl<T: Copy> SmallList<T> {
    /// Append `item`.
    pub(crate) fn push(&mut self, item: T) {
        match self {
            SmallList::One(first) => *self = SmallList::Many(vec![*first, item]),
            SmallList::Many(v) => v.push(item),
        }
    }
}

impl<T: Copy> Deref for SmallList<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            SmallList::One(item) => std::slice::from_ref(item),
            SmallList::Many(v) => v,
        }
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for SmallList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy + PartialEq> PartialEq for SmallList<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Eq> Eq for SmallList<T> {}

#[cfg(test)]
mod tests {
    use super::SmallList;

    #[test]
    fn reads_as_the_slice_of_what_was_pushed_inline_or_not() {
        let mut l = SmallList::One(1);
        assert_eq!(&*l, &[1]);
        assert!(matches!(l, SmallList::One(_)), "one item stays inline");
        l.push(2);
        l.push(3);
        assert_eq!(&*l, &[1, 2, 3]);
        assert_eq!(l, SmallList::Many(vec![1, 2, 3]));
        assert_ne!(l, SmallList::One(1));
        assert_eq!(SmallList::One(7), SmallList::Many(vec![7]), "equal by contents");
        assert_eq!(format!("{l:?}"), "[1, 2, 3]");
    }
}
