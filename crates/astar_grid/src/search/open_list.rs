//! The open list's entry: ordered by lowest `f`, then highest `g`.

use core::cmp::Ordering;

/// An open-list entry. Entries are never updated in place: a better route to a cell pushes a
/// new entry and the old one is skipped when it surfaces (lazy deletion).
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpenEntry {
    /// Priority, rounded by [`OpenEntry::new`]; finite and non-negative, so its bit pattern
    /// orders like its value.
    pub f: f64,
    /// Cost from the start, for tie-breaking towards cells nearer the goal.
    pub g: f64,
    /// Padded index of the cell.
    pub index: u32,
}

/// Priorities are rounded to multiples of 2^-20 so that paths of equal cost compare equal even
/// when their floating-point sums were rounded differently; ties then go to the higher `g`.
/// A found path can therefore exceed the optimum by at most 2^-20 (about 1e-6).
const PRIORITY_SCALE: f64 = 1_048_576.0;

impl OpenEntry {
    /// An entry with priority `f` (rounded, see [`PRIORITY_SCALE`]), cost `g` and cell `index`.
    #[inline]
    pub fn new(f: f64, g: f64, index: u32) -> Self {
        Self {
            f: (f * PRIORITY_SCALE).round() / PRIORITY_SCALE,
            g,
            index,
        }
    }
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
            heap.push(OpenEntry::new(f, g, index));
        }
        let order: Vec<u32> = core::iter::from_fn(|| heap.pop().map(|entry| entry.index)).collect();
        assert_eq!(order, [2, 1, 3, 0]);
    }

    #[test]
    fn priorities_that_differ_by_rounding_error_tie_and_prefer_higher_g() {
        let sum = 0.1 + 0.2; // 0.30000000000000004
        let shallow = OpenEntry::new(0.3 + 10.0, 0.3, 0);
        let deep = OpenEntry::new(sum + 10.0, 5.0, 1);
        assert_eq!(shallow.f, deep.f);
        assert!(deep > shallow);
    }
}
