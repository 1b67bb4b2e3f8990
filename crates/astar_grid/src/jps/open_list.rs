//! The open list of jump point search: a four-ary min-heap of 16-byte entries ordered by lowest
//! `f`, then highest `g`, like A*'s.

use core::hint::select_unpredictable;

/// An open-list entry, packed into one number that orders entries: the one that comes out first
/// is the smallest.
///
/// From the most significant end: `f` in units of 2^-20 (rounded, as A* rounds its
/// priorities, so that routes of equal length compare equal even when their floating-point sums
/// were rounded differently; a found path can exceed the optimum by at most 2^-20), the inverted
/// bits of `g` rounded to `f32` (so that among equal `f` the highest `g` comes first; `g` only
/// breaks ties), and the node's slot (so that the order is fully determined). Entries are never
/// updated in place: a cheaper route to a node pushes a new entry and the old one is skipped
/// when it surfaces (lazy deletion).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct OpenEntry(u128);

/// Priorities are counted in units of 2^-20.
const PRIORITY_SCALE: f64 = 1_048_576.0;

impl OpenEntry {
    /// The entry for the node in `slot` with priority `f` and cost so far `g` (both finite and
    /// non-negative).
    #[inline]
    pub fn new(f: f64, g: f64, slot: u32) -> Self {
        // Round to the nearest unit; the cast saturates, and non-negative floats order like
        // their bit patterns.
        let priority = (f * PRIORITY_SCALE + 0.5) as u64;
        let tie = !(g as f32).to_bits();
        Self(u128::from(priority) << 64 | u128::from(tie) << 32 | u128::from(slot))
    }

    /// The node's slot.
    #[inline]
    pub fn slot(self) -> usize {
        (self.0 & u128::from(u32::MAX)) as usize
    }
}

/// A four-ary min-heap (half the depth of a binary heap, the four children of a node adjacent in
/// memory) with a bypass slot.
///
/// The bypass holds an entry that orders before everything in the heap. On open ground most
/// expansions produce a successor with the same `f` and a higher `g` than the node just taken
/// out, which is exactly such an entry: it is parked in the bypass and taken out next without
/// touching the heap. The order in which entries come out is the same as without the bypass.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpenList {
    heap: Vec<OpenEntry>,
    bypass: Option<OpenEntry>,
}

impl OpenList {
    /// Removes every entry, keeping the memory.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.bypass = None;
    }

    /// Adds an entry.
    #[inline]
    pub fn push(&mut self, entry: OpenEntry) {
        match self.bypass {
            Some(parked) if entry < parked => {
                self.bypass = Some(entry);
                self.push_heap(parked);
            }
            Some(_) => self.push_heap(entry),
            None => {
                if self.heap.first().is_none_or(|&top| entry < top) {
                    self.bypass = Some(entry);
                } else {
                    self.push_heap(entry);
                }
            }
        }
    }

    /// Removes and returns the entry with the lowest `f` (among those, the highest `g`).
    #[inline]
    pub fn pop(&mut self) -> Option<OpenEntry> {
        match self.bypass.take() {
            Some(entry) => Some(entry),
            None => self.pop_heap(),
        }
    }

    fn push_heap(&mut self, entry: OpenEntry) {
        let mut hole = self.heap.len();
        self.heap.push(entry);
        while hole > 0 {
            let parent = (hole - 1) / 4;
            if self.heap[parent] <= entry {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = entry;
    }

    /// Takes out the root. The hole it leaves is moved down along the smallest children to a
    /// leaf without comparing it to the entry that fills it (the last one, which almost always
    /// belongs near the bottom), then that entry is moved up from there: fewer comparisons
    /// than a classic sift-down.
    fn pop_heap(&mut self) -> Option<OpenEntry> {
        let last = self.heap.pop()?;
        let Some(&top) = self.heap.first() else {
            return Some(last);
        };
        let length = self.heap.len();
        let mut hole = 0;
        loop {
            let first = 4 * hole + 1;
            let best = if let Some(children) = self.heap.get(first..first + 4) {
                // A tournament between the four children; which wins is a coin toss the branch
                // predictor cannot learn, so the choices are made without branches.
                let left = select_unpredictable(children[1] < children[0], 1, 0);
                let right = select_unpredictable(children[3] < children[2], 3, 2);
                first + select_unpredictable(children[right] < children[left], right, left)
            } else if first < length {
                (first + 1..length).fold(first, |best, child| {
                    if self.heap[child] < self.heap[best] {
                        child
                    } else {
                        best
                    }
                })
            } else {
                break;
            };
            self.heap[hole] = self.heap[best];
            hole = best;
        }
        while hole > 0 {
            let parent = (hole - 1) / 4;
            if self.heap[parent] <= last {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_sixteen_bytes() {
        assert_eq!(size_of::<OpenEntry>(), 16);
    }

    #[test]
    fn entries_order_by_lowest_f_then_highest_g() {
        let order = [
            OpenEntry::new(3.0, 2.5, 7),
            OpenEntry::new(3.0, 1.0, 2),
            OpenEntry::new(3.0, 1.0, 5),
            OpenEntry::new(4.0, 0.0, 1),
            OpenEntry::new(5.0, 3.0, 0),
        ];
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(order[0].slot(), 7);
    }

    #[test]
    fn priorities_that_differ_by_rounding_error_tie_and_prefer_higher_g() {
        let sum = 0.1 + 0.2; // 0.30000000000000004, above 0.3
        let shallow = OpenEntry::new(0.3, 0.1, 0);
        let deep = OpenEntry::new(sum, 0.2, 1);
        assert!(deep < shallow);
        assert!(OpenEntry::new(10.3, 10.0, 1) < OpenEntry::new(10.3 + 1e-5, 10.0, 0));
    }

    #[test]
    fn pops_come_out_sorted_with_pushes_interleaved() {
        let mut open = OpenList::default();
        let mut expected = Vec::new();
        let mut state = 12_345u64;
        for slot in 0..3000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let f = f64::from((state >> 40) as u32 % 50) * 0.5;
            let g = ((state >> 20) % 7) as f64;
            let entry = OpenEntry::new(f, g, slot);
            open.push(entry);
            expected.push(entry);
            if slot % 3 == 0 {
                let popped = open.pop().unwrap();
                let smallest = *expected.iter().min().unwrap();
                assert_eq!(popped, smallest);
                expected.retain(|&entry| entry != popped);
            }
        }
        expected.sort();
        let drained: Vec<OpenEntry> = core::iter::from_fn(|| open.pop()).collect();
        assert_eq!(drained, expected);
        assert!(open.pop().is_none());
    }
}
