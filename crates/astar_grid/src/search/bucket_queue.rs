//! A*'s open list: entries grouped into narrow buckets of `f` on a ring, over the shared
//! four-ary [`OpenList`] for entries beyond the ring's reach.
//!
//! With a consistent heuristic and no weight, the priorities A* takes out never decrease and
//! the ones it puts in lie at most two step costs above the last one taken out. Such entries
//! are appended to the ring's bucket for their priority at constant cost; a bucket is put in
//! order once, when it becomes the lowest (usually it already is: most buckets hold a single
//! priority, in the order the entries came), and then taken from the end. Among equal
//! priorities the entry added last comes out first, which follows the search deeper, as the
//! highest-`g` rule of the heap does, without sorting by `g`: on the Moving AI maps both
//! expand the same number of cells to within a fraction of a percent.
//!
//! The heap holds the entries beyond the ring (terrain costs can stretch the spread of
//! priorities past it) and, for searches whose priorities may decrease (weights, inadmissible
//! heuristics), every entry, in its lowest-`f`-then-highest-`g` order.

use super::open_list::{OpenEntry, OpenList, priority_units};

/// Buckets on the ring.
const RING: usize = 256;
/// Words of the ring's occupancy bit set.
const WORDS: usize = RING / 64;
/// Buckets per smallest step cost, at least (bucket widths are powers of two): narrow enough
/// that a bucket seldom holds more than one distinct priority on an octile grid, wide enough
/// that the ring spans every priority an unweighted search on a grid without terrain costs
/// holds at once (at most two diagonal steps, about 2.83 straight steps, above the lowest).
const BUCKETS_PER_STEP: f64 = 64.0;

/// The open list A* uses: see the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub(crate) struct BucketQueue {
    /// Whether the ring is in use; when not, every entry goes to `overflow`.
    bucketed: bool,
    /// An entry's bucket is its [`OpenEntry::priority`] shifted right by this.
    bucket_shift: u32,
    /// Entries added since the reset; inverted, the tie breaker that puts the latest first.
    added: u32,
    /// Number of the lowest bucket: its entries, and any entry of a lower bucket, are in
    /// `sorted`; the ring holds the entries of the next `RING - 1` buckets.
    current: u64,
    /// The entries of buckets up to `current`, from highest to lowest (the next one to come out
    /// is the last).
    sorted: Vec<OpenEntry>,
    /// Bucket `b`, for `current < b < current + RING`, is `ring[b % RING]`, in the order its
    /// entries came.
    ring: Vec<Vec<OpenEntry>>,
    /// Bit `b % RING` is set when bucket `b` on the ring holds entries.
    occupied: [u64; WORDS],
    /// Entries of buckets from `current + RING` on, each above every entry on the ring (or all
    /// entries, when the ring is not in use).
    overflow: OpenList,
}

impl BucketQueue {
    /// Removes every entry, keeping the memory, and prepares for the next search.
    ///
    /// `min_step` is `Some` smallest step cost for a search whose priorities never decrease
    /// (beyond rounding): it uses the ring. `None` leaves the ring out and the queue is the heap
    /// alone.
    pub fn reset(&mut self, min_step: Option<f64>) {
        self.sorted.clear();
        for word in 0..WORDS {
            let mut bits = self.occupied[word];
            while bits != 0 {
                self.ring[word * 64 + bits.trailing_zeros() as usize].clear();
                bits &= bits - 1;
            }
        }
        self.occupied = [0; WORDS];
        self.overflow.clear();
        self.current = 0;
        self.added = 0;
        self.bucketed = false;
        if let Some(min_step) = min_step {
            if self.ring.is_empty() {
                self.ring = vec![Vec::new(); RING];
            }
            // The widest power of two that fits BUCKETS_PER_STEP times into the smallest step;
            // priorities of 2^52 and more (costs of 2^32 and more) fall into ever wider
            // buckets, which stay in order.
            let width = (priority_units(min_step) / BUCKETS_PER_STEP).max(1.0);
            self.bucket_shift = (width.log2().floor() as u32).min(52);
            self.bucketed = true;
        }
    }

    /// Whether the queue holds no entry.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty() && self.occupied == [0; WORDS] && self.overflow.is_empty()
    }

    /// Adds `id` with priority `f` and cost so far `g` (both finite and non-negative).
    #[inline(always)]
    pub fn push(&mut self, f: f64, g: f64, id: u32) {
        if !self.bucketed {
            return self.overflow.push(OpenEntry::new(f, g, id));
        }
        let entry = OpenEntry::with_tie(f, !self.added, id);
        self.added = self.added.wrapping_add(1);
        let bucket = self.bucket_of(entry);
        let ahead = bucket.wrapping_sub(self.current);
        if ahead.wrapping_sub(1) < RING as u64 - 1 {
            // On the ring: `current < bucket < current + RING`.
            self.ring_push(bucket, entry);
        } else if ahead == 0 && self.sorted.last().is_none_or(|&last| entry < last) {
            // In the lowest bucket and the new lowest entry (a successor as good as the cell
            // just taken out, the usual case): it goes on the end.
            self.sorted.push(entry);
        } else {
            self.push_rare(bucket, entry);
        }
    }

    /// [`BucketQueue::push`] into the middle of the lowest bucket, below it, or beyond the ring.
    #[cold]
    #[inline(never)]
    fn push_rare(&mut self, bucket: u64, entry: OpenEntry) {
        if bucket <= self.current {
            let position = self.sorted.partition_point(|&sorted| sorted > entry);
            self.sorted.insert(position, entry);
        } else {
            self.overflow.push(entry);
        }
    }

    /// The entry [`BucketQueue::pop`] would return, without removing it.
    #[inline]
    pub fn peek(&mut self) -> Option<OpenEntry> {
        if !self.bucketed {
            return self.overflow.peek();
        }
        loop {
            if let Some(&entry) = self.sorted.last() {
                return Some(entry);
            }
            if !self.advance() {
                return None;
            }
        }
    }

    /// Removes and returns the entry with the lowest `f` (see the
    /// [module documentation](self) for ties).
    #[inline]
    pub fn pop(&mut self) -> Option<OpenEntry> {
        if !self.bucketed {
            return self.overflow.pop();
        }
        loop {
            if let Some(entry) = self.sorted.pop() {
                return Some(entry);
            }
            if !self.advance() {
                return None;
            }
        }
    }

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> usize {
        let ring: usize = self.ring.iter().map(Vec::capacity).sum();
        (self.sorted.capacity() + ring) * size_of::<OpenEntry>()
            + self.ring.capacity() * size_of::<Vec<OpenEntry>>()
            + self.overflow.memory_bytes()
    }

    /// The bucket of `entry`: monotone in the priority, so bucket order never contradicts
    /// entry order, and far enough below `u64::MAX` that the ring's reach beyond it fits.
    #[inline]
    fn bucket_of(&self, entry: OpenEntry) -> u64 {
        entry.priority() >> self.bucket_shift
    }

    #[inline]
    fn ring_push(&mut self, bucket: u64, entry: OpenEntry) {
        let slot = (bucket % RING as u64) as usize;
        self.ring[slot].push(entry);
        self.occupied[slot / 64] |= 1 << (slot % 64);
    }

    /// Makes the next non-empty bucket the lowest one and moves its entries, in order, into
    /// `sorted` (which is empty); `false` when no entry is left.
    fn advance(&mut self) -> bool {
        let next = match (self.next_occupied(), self.overflow.peek()) {
            (Some(bucket), _) => bucket,
            (None, Some(top)) => self.bucket_of(top),
            (None, None) => return false,
        };
        self.current = next;
        // The ring now reaches further: overflow entries within its reach join it, so that
        // every entry left in the heap stays above every entry on the ring.
        let reach = next + RING as u64;
        while let Some(top) = self.overflow.peek() {
            let bucket = self.bucket_of(top);
            if bucket >= reach {
                break;
            }
            self.overflow.pop();
            self.ring_push(bucket, top);
        }
        let slot = (next % RING as u64) as usize;
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        self.sorted.extend_from_slice(&self.ring[slot]);
        self.ring[slot].clear();
        // Entries of one priority, added in order, are in order already.
        if !self.sorted.is_sorted_by(|a, b| a > b) {
            self.sorted.sort_unstable_by(|a, b| b.cmp(a));
        }
        true
    }

    /// The lowest occupied bucket on the ring above `current`.
    fn next_occupied(&self) -> Option<u64> {
        let start = (self.current + 1) as usize % RING;
        for step in 0..=WORDS {
            let word = (start / 64 + step) % WORDS;
            let mut bits = self.occupied[word];
            if step == 0 {
                bits &= !0 << (start % 64);
            } else if step == WORDS {
                bits &= !(!0 << (start % 64));
            }
            if bits != 0 {
                let slot = word * 64 + bits.trailing_zeros() as usize;
                let distance = (slot + RING - start) % RING;
                return Some(self.current + 1 + distance as u64);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the tests.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }
    }

    /// The reference order: a plain four-ary heap fed entries whose tie breaker is the inverted
    /// count of entries added before, so that among equal priorities the latest comes first.
    struct Reference {
        heap: OpenList,
        added: u32,
    }

    impl Reference {
        fn push(&mut self, f: f64, id: u32) {
            self.heap.push(OpenEntry::with_tie(f, !self.added, id));
            self.added += 1;
        }
    }

    /// Pushes and pops like a search whose priorities never decrease (each push at most
    /// `spread` above the last pop), checking every pop and peek against the reference.
    fn matches_the_reference(min_step: f64, spread: f64, seed: u64) {
        let mut queue = BucketQueue::default();
        let mut random = Lcg(seed);
        for round in 0..3 {
            queue.reset(Some(min_step));
            let mut reference = Reference {
                heap: OpenList::default(),
                added: 0,
            };
            let mut last = 0.0;
            let mut id = 0;
            queue.push(0.0, 0.0, id);
            reference.push(0.0, id);
            for _ in 0..4000 {
                let expected = reference.heap.pop();
                assert_eq!(queue.peek(), expected, "round {round}");
                assert_eq!(queue.pop(), expected, "round {round}");
                let Some(popped) = expected else { break };
                last = popped.f().max(last);
                for _ in 0..random.next() % 5 {
                    id += 1;
                    // Mostly exact ties (like octile grids), sometimes anywhere in the spread.
                    let step = match random.next() % 4 {
                        0 => 0.0,
                        1 => core::f64::consts::SQRT_2 - 1.0,
                        _ => (random.next() % 10_000) as f64 / 10_000.0 * spread,
                    };
                    let g = (random.next() % 1000) as f64 / 7.0;
                    queue.push(last + step, g, id);
                    reference.push(last + step, id);
                }
            }
            while let Some(expected) = reference.heap.pop() {
                assert_eq!(queue.pop(), Some(expected));
            }
            assert!(queue.is_empty());
            assert_eq!(queue.pop(), None);
        }
    }

    #[test]
    fn comes_out_lowest_first_and_latest_first_within_the_ring() {
        matches_the_reference(1.0, 2.9, 1);
    }

    #[test]
    fn comes_out_lowest_first_and_latest_first_with_overflow() {
        // Spreads far beyond the ring's four steps, as terrain costs make them.
        matches_the_reference(1.0, 300.0, 2);
        matches_the_reference(0.01, 3.0, 3);
    }

    #[test]
    fn comes_out_lowest_first_and_latest_first_at_every_magnitude() {
        // Priorities beyond 2^32, whose buckets widen, and steps finer than the priorities.
        matches_the_reference(1.0e9, 3.0e9, 5);
        matches_the_reference(1.0e-9, 3.0, 6);
    }

    #[test]
    fn without_the_ring_it_is_the_heap() {
        let mut queue = BucketQueue::default();
        let mut heap = OpenList::default();
        let mut random = Lcg(4);
        queue.reset(None);
        for id in 0..2000 {
            let (f, g) = (
                (random.next() % 50) as f64 * 0.5,
                (random.next() % 7) as f64,
            );
            queue.push(f, g, id);
            heap.push(OpenEntry::new(f, g, id));
            if id % 3 == 0 {
                assert_eq!(queue.pop(), heap.pop());
            }
        }
        while let Some(expected) = heap.pop() {
            assert_eq!(queue.pop(), Some(expected));
        }
        assert!(queue.is_empty());
    }

    #[test]
    fn entries_below_the_lowest_bucket_come_out_first() {
        let mut queue = BucketQueue::default();
        queue.reset(Some(1.0));
        for (f, id) in [(10.0, 0), (10.5, 1), (12.0, 2)] {
            queue.push(f, 0.0, id);
        }
        assert_eq!(queue.pop().map(OpenEntry::id), Some(0));
        // Lower than anything taken out so far, as rounding can make it.
        queue.push(9.0, 0.0, 3);
        queue.push(10.0, 5.0, 4);
        queue.push(10.5, 0.0, 5);
        let order: Vec<u32> = core::iter::from_fn(|| queue.pop().map(OpenEntry::id)).collect();
        assert_eq!(order, [3, 4, 5, 1, 2]);
    }
}
