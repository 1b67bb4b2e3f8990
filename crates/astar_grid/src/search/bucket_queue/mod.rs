//! A*'s open list: entries grouped into narrow buckets of `f` on a ring, over the shared
//! four-ary [`OpenList`] for entries beyond the ring's reach.
//!
//! With a consistent heuristic and no weight, the priorities A* takes out never decrease and
//! the ones it puts in lie at most two step costs above the last one taken out. Such entries
//! are added to the ring's bucket for their priority at constant cost; a bucket is put in order
//! once, when it becomes the lowest (usually it already is: most buckets hold a single
//! priority, and entries of one priority come out in the reverse of the order they came), and
//! then taken out in order. Among equal priorities the entry added last comes out first, which
//! follows the search deeper, as the highest-`g` rule of the heap does, without sorting by
//! `g`: on the Moving AI maps both expand the same number of cells to within a fraction of a
//! percent.
//!
//! The heap holds the entries beyond the ring (terrain costs can stretch the spread of
//! priorities past it) and, for searches whose priorities may decrease (weights, inadmissible
//! heuristics), every entry, in its lowest-`f`-then-highest-`g` order.
//!
//! The buckets' memory follows the entries queued at once, not the most each of the ring's
//! buckets ever held (which over a long search, or many, adds up for every one of them), in
//! one of two ways ([`Buckets`]), by the grid's size:
//!
//! - [`SlotLists`], for grids of fewer than [`LARGE_GRID`] cells: every bucket is a list
//!   through one store of slots that all share, 20 bytes per entry queued, and the ring takes
//!   a kilobyte.
//! - [`Segments`], for larger grids: every ring slot keeps a vector of a size chosen from the
//!   grid's size (about a byte per cell for the whole ring), to which entries are added as to
//!   any vector; a bucket that fills it chains the full vector and goes on in a larger one
//!   from a shared stock. On large open maps many buckets are large (every cell of a region
//!   whose paths tie shares one priority), and such vectors keep them as fast as vectors that
//!   keep the largest size each bucket ever reached, at a fixed cost that small grids cannot
//!   afford.
//!
//! A search run again takes no more memory and allocates nothing: the slots, vectors and
//! segments a search needs are there after it ran once.

mod lists;
mod segments;

pub(crate) use lists::SlotLists;
pub(crate) use segments::Segments;

use super::open_list::{OpenEntry, OpenList, priority_units};

/// Buckets on the ring.
pub(crate) const RING: usize = 256;
/// Words of the ring's occupancy bit set.
pub(crate) const WORDS: usize = RING / 64;
/// Buckets per smallest step cost, at least (bucket widths are powers of two): narrow enough
/// that a bucket seldom holds more than one distinct priority on an octile grid, wide enough
/// that the ring spans every priority an unweighted search on a grid without terrain costs
/// holds at once (at most two diagonal steps, about 2.83 straight steps, above the lowest).
const BUCKETS_PER_STEP: f64 = 64.0;
/// Grids of this many cells (border included) and more take [`Segments`], smaller ones
/// [`SlotLists`].
pub(crate) const LARGE_GRID: usize = 1 << 17;

/// Where a [`BucketQueue`] keeps the entries of its buckets: the lowest bucket (which also
/// holds the entries of lower priority that rounding can bring) and those on the ring, by
/// slot. The queue decides which bucket an entry goes to and keeps the ring's occupancy.
pub(crate) trait Buckets: Default {
    /// Empties the buckets (`occupied`: the ring slots holding entries) and prepares them for a
    /// search on a grid of `cells` cells.
    fn reset(&mut self, occupied: &[u64; WORDS], cells: usize);

    /// Appends `entry` to the bucket in ring slot `slot`, which holds entries when `occupied`.
    fn push(&mut self, slot: usize, occupied: bool, entry: OpenEntry);

    /// Adds `entry` to the lowest bucket when it comes out before every entry there (the usual
    /// case for a successor of the cell just taken out); `false`, changing nothing, when not.
    fn push_lowest(&mut self, entry: OpenEntry) -> bool;

    /// Adds `entry` to the lowest bucket, in order.
    fn insert_lowest(&mut self, entry: OpenEntry);

    /// The entry of the lowest bucket that comes out next.
    fn lowest(&self) -> Option<OpenEntry>;

    /// Removes and returns the entry of the lowest bucket that comes out next.
    fn pop_lowest(&mut self) -> Option<OpenEntry>;

    /// Makes the bucket in ring slot `slot` the lowest one (which is empty), in order.
    fn take_lowest(&mut self, slot: usize);

    /// Bytes of memory held.
    fn memory_bytes(&self) -> usize;
}

/// The open list A* uses, its buckets kept by `B`: see the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub(crate) struct BucketQueue<B> {
    /// Whether the ring is in use; when not, every entry goes to `overflow`.
    bucketed: bool,
    /// An entry's bucket is its [`OpenEntry::priority`] shifted right by this.
    bucket_shift: u32,
    /// Entries added since the reset; inverted, the tie breaker that puts the latest first.
    added: u32,
    /// Number of the lowest bucket: its entries, and any entry of a lower bucket, are in the
    /// lowest bucket of `buckets`; the ring holds the entries of the next `RING - 1` buckets.
    current: u64,
    /// Bit `b % RING` is set when bucket `b` on the ring holds entries.
    occupied: [u64; WORDS],
    /// The buckets: bucket `b`, for `current < b < current + RING`, in ring slot `b % RING`.
    buckets: B,
    /// Entries of buckets from `current + RING` on, each above every entry on the ring (or all
    /// entries, when the ring is not in use).
    overflow: OpenList,
}

impl<B: Buckets> BucketQueue<B> {
    /// Removes every entry, keeping the memory, and prepares for the next search, on a grid of
    /// `cells` cells.
    ///
    /// `min_step` is `Some` smallest step cost for a search whose priorities never decrease
    /// (beyond rounding): it uses the ring. `None` leaves the ring out and the queue is the heap
    /// alone.
    pub fn reset(&mut self, min_step: Option<f64>, cells: usize) {
        self.buckets.reset(&self.occupied, cells);
        self.occupied = [0; WORDS];
        self.overflow.clear();
        self.current = 0;
        self.added = 0;
        self.bucketed = false;
        if let Some(min_step) = min_step {
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
        self.buckets.lowest().is_none() && self.occupied == [0; WORDS] && self.overflow.is_empty()
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
        } else if ahead == 0 && self.buckets.push_lowest(entry) {
            // In the lowest bucket and the new lowest entry.
        } else {
            self.push_rare(bucket, entry);
        }
    }

    /// [`BucketQueue::push`] into the middle of the lowest bucket, below it, or beyond the ring.
    #[cold]
    #[inline(never)]
    fn push_rare(&mut self, bucket: u64, entry: OpenEntry) {
        if bucket <= self.current {
            self.buckets.insert_lowest(entry);
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
            if let Some(entry) = self.buckets.lowest() {
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
            if let Some(entry) = self.buckets.pop_lowest() {
                return Some(entry);
            }
            if !self.advance() {
                return None;
            }
        }
    }

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> usize {
        self.buckets.memory_bytes() + self.overflow.memory_bytes()
    }

    /// The bucket of `entry`: monotone in the priority, so bucket order never contradicts
    /// entry order, and far enough below `u64::MAX` that the ring's reach beyond it fits.
    #[inline]
    fn bucket_of(&self, entry: OpenEntry) -> u64 {
        entry.priority() >> self.bucket_shift
    }

    /// Adds `entry` to ring bucket `bucket`.
    #[inline(always)]
    fn ring_push(&mut self, bucket: u64, entry: OpenEntry) {
        let slot = (bucket % RING as u64) as usize;
        let (word, bit) = (slot / 64, 1 << (slot % 64));
        self.buckets
            .push(slot, self.occupied[word] & bit != 0, entry);
        self.occupied[word] |= bit;
    }

    /// Makes the next non-empty bucket the lowest one, in order; `false` when no entry is left.
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
        self.buckets.take_lowest(slot);
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

/// A*'s open lists: the search takes the one for its grid's size ([`LARGE_GRID`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct OpenLists {
    /// For grids of fewer than [`LARGE_GRID`] cells.
    pub small: BucketQueue<SlotLists>,
    /// For grids of [`LARGE_GRID`] cells and more.
    pub large: BucketQueue<Segments>,
}

impl OpenLists {
    /// Bytes of memory held by both.
    pub fn memory_bytes(&self) -> usize {
        self.small.memory_bytes() + self.large.memory_bytes()
    }
}

#[cfg(test)]
mod tests;
