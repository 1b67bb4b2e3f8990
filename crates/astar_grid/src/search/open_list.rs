//! The open list of A* and jump point search: a four-ary min-heap of 16-byte entries ordered by
//! lowest `f`, then highest `g`, with a bypass slot for the entry that comes out next.

use core::hint::select_unpredictable;

/// An open-list entry, packed into one number that orders entries: the one that comes out first
/// is the smallest.
///
/// From the most significant end: the priority (see [`OpenEntry::priority`]), a 32-bit tie
/// breaker, and a 32-bit id (the padded cell index for A*, the node's slot for jump point
/// search) that makes the order total. The tie breaker is usually the inverted bits of `g`
/// rounded to `f32`, so that among equal `f` the highest `g`, the deepest node, comes first
/// ([`OpenEntry::new`]). Entries are never updated in place: a cheaper route to a node pushes a
/// new entry and the old one is skipped when it surfaces (lazy deletion).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct OpenEntry(u128);

/// Priorities are counted in units of 2^-20.
const PRIORITY_SCALE: f64 = 1_048_576.0;

/// 2^52: adding it to a non-negative float below it rounds the float to a whole number, which
/// then stands in the low bits of the sum's bit pattern.
const ROUNDING_OFFSET: f64 = 4_503_599_627_370_496.0;

impl OpenEntry {
    /// The entry for `id` with priority `f` and cost so far `g` (both finite and non-negative),
    /// the highest `g` first among equal priorities.
    #[inline]
    pub fn new(f: f64, g: f64, id: u32) -> Self {
        Self::with_tie(f, !(g as f32).to_bits(), id)
    }

    /// The entry for `id` with priority `f` (finite and non-negative); among equal priorities
    /// the lowest `tie` comes first.
    #[inline]
    pub fn with_tie(f: f64, tie: u32, id: u32) -> Self {
        let scaled = f * PRIORITY_SCALE;
        let priority = if scaled < ROUNDING_OFFSET {
            // The nearest whole number, from two float operations (no call to a rounding
            // function): below 2^52.
            (scaled + ROUNDING_OFFSET).to_bits() - ROUNDING_OFFSET.to_bits()
        } else {
            // Whole already; non-negative floats order like their bit patterns, and these
            // patterns all lie above 2^52.
            scaled.to_bits()
        };
        Self(u128::from(priority) << 64 | u128::from(tie) << 32 | u128::from(id))
    }

    /// The id the entry was made with.
    #[inline]
    pub fn id(self) -> u32 {
        self.0 as u32
    }

    /// The number that orders entries first, increasing with `f`: below 2^52, `f * 2^20`
    /// rounded to the nearest whole number, so that routes of equal length compare equal even
    /// when their floating-point sums were rounded differently (a found path can exceed the
    /// optimum by at most 2^-20); above, for priorities of 2^32 and more, the bits of `f * 2^20`.
    #[inline]
    pub fn priority(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// The priority as a cost: `f` rounded to a multiple of 2^-20.
    #[cfg(test)]
    pub fn f(self) -> f64 {
        let priority = self.priority();
        let scaled = if priority < ROUNDING_OFFSET.to_bits() {
            priority as f64
        } else {
            f64::from_bits(priority)
        };
        scaled / PRIORITY_SCALE
    }
}

/// The number of priority units (see [`OpenEntry::priority`]) in a cost of `cost`, when below
/// 2^52.
pub(crate) fn priority_units(cost: f64) -> f64 {
    cost * PRIORITY_SCALE
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

    /// Whether the list holds no entry.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bypass.is_none() && self.heap.is_empty()
    }

    /// The entry [`OpenList::pop`] would return, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<OpenEntry> {
        self.bypass.or_else(|| self.heap.first().copied())
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

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> usize {
        self.heap.capacity() * size_of::<OpenEntry>()
    }

    fn push_heap(&mut self, entry: OpenEntry) {
        let hole = self.heap.len();
        self.heap.push(entry);
        self.sift_up(hole, entry);
    }

    /// Puts `entry` in the hole at `hole` or, moving larger parents down, above it.
    #[inline]
    fn sift_up(&mut self, mut hole: usize, entry: OpenEntry) {
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
        self.sift_up(hole, last);
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
        assert_eq!(order[0].id(), 7);
    }

    #[test]
    fn priorities_that_differ_by_rounding_error_tie_and_prefer_higher_g() {
        let sum = 0.1 + 0.2; // 0.30000000000000004, above 0.3
        let shallow = OpenEntry::new(0.3, 0.1, 0);
        let deep = OpenEntry::new(sum, 0.2, 1);
        assert_eq!(shallow.f(), deep.f());
        assert!(deep < shallow);
        assert!(OpenEntry::new(10.3, 10.0, 1) < OpenEntry::new(10.3 + 1e-5, 10.0, 0));
    }

    #[test]
    fn priorities_round_to_the_nearest_unit_at_every_magnitude() {
        let unit = 1.0 / PRIORITY_SCALE;
        for f in [
            0.0,
            unit * 0.4,
            1.0 + unit * 0.6,
            12_345.678_9,
            3.0e9,
            1.0e13,
            1.0e20,
        ] {
            let rounded = OpenEntry::new(f, 0.0, 0).f();
            assert!(
                (rounded - f).abs() <= unit / 2.0 + f * f64::EPSILON,
                "{f}: {rounded}"
            );
            assert_eq!(
                rounded,
                (f * PRIORITY_SCALE).round() / PRIORITY_SCALE,
                "{f}"
            );
        }
        // Huge priorities still order by value rather than saturating.
        assert!(OpenEntry::new(1.0e20, 0.0, 0) < OpenEntry::new(2.0e20, 0.0, 0));
    }

    #[test]
    fn pops_come_out_sorted_with_pushes_interleaved() {
        let mut open = OpenList::default();
        let mut expected = Vec::new();
        let mut state = 12_345u64;
        for id in 0..3000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let f = f64::from((state >> 40) as u32 % 50) * 0.5;
            let g = ((state >> 20) % 7) as f64;
            let entry = OpenEntry::new(f, g, id);
            open.push(entry);
            expected.push(entry);
            if id % 3 == 0 {
                let smallest = *expected.iter().min().unwrap();
                assert_eq!(open.peek(), Some(smallest));
                let popped = open.pop().unwrap();
                assert_eq!(popped, smallest);
                expected.retain(|&entry| entry != popped);
            }
        }
        expected.sort();
        let drained: Vec<OpenEntry> = core::iter::from_fn(|| open.pop()).collect();
        assert_eq!(drained, expected);
        assert!(open.is_empty());
        assert!(open.pop().is_none() && open.peek().is_none());
    }
}
