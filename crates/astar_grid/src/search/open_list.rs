//! The open list's entry: ordered by lowest `f`, then highest `g`.

use core::cmp::Ordering;

/// An open-list entry. Entries are never updated in place: a better route to a cell pushes a
/// new entry and the old one is skipped when it surfaces (lazy deletion).
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpenEntry {
    /// Priority; finite and non-negative, so its bit pattern orders like its value.
    pub f: f64,
    /// Cost from the start, for tie-breaking towards cells nearer the goal.
    pub g: f64,
    /// Padded index of the cell.
    pub index: u32,
}

impl PartialEq for OpenEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for OpenEntry {}

impl PartialOrd for OpenEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OpenEntry {
    /// `BinaryHeap` pops the greatest entry: the one with the lowest `f`, and among equal `f` the
    /// one with the highest `g` (deepest first, which expands fewer cells on open ground).
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .f
            .to_bits()
            .cmp(&self.f.to_bits())
            .then_with(|| self.g.to_bits().cmp(&other.g.to_bits()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

    #[test]
    fn pops_lowest_f_then_highest_g() {
        let mut heap = BinaryHeap::new();
        for (f, g, index) in [(5.0, 1.0, 0), (3.0, 1.0, 1), (3.0, 2.5, 2), (4.0, 0.0, 3)] {
            heap.push(OpenEntry { f, g, index });
        }
        let order: Vec<u32> = core::iter::from_fn(|| heap.pop().map(|entry| entry.index)).collect();
        assert_eq!(order, [2, 1, 3, 0]);
    }
}
