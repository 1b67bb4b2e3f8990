//! [`Segments`]: buckets kept in vectors of fixed sizes, chained when a bucket outgrows one.

use super::{Buckets, RING, WORDS};
use crate::search::open_list::OpenEntry;

/// The segment number that stands for none: the end of a chain or of a list.
const NONE: u32 = u32::MAX;
/// A bucket that fills the vector its ring slot keeps goes on in vectors this many times as
/// large.
const LONG: usize = 8;

/// Buckets in vectors that never grow: each ring slot keeps a vector with room for `keep`
/// entries, to which its bucket adds entries as to any vector. A bucket that fills it hands the
/// full vector to a chain of its own (its segments) and goes on in an empty vector [`LONG`]
/// times as large, and so on; when the bucket becomes the lowest, its segments and its vector
/// are copied into the lowest bucket's vector, oldest first, and go back to the free ones, the
/// slot keeping (or taking back) a vector of `keep` entries.
///
/// Free vectors wait in two stocks, one per room, and a vector only serves buckets of its own
/// room. The memory held is the ring's vectors, about a byte per grid cell ([`keep_for`]),
/// plus the entries queued beyond them in vectors of [`LONG`] times that room (the most a search
/// has needed at once) and the largest lowest bucket.
#[derive(Clone, Debug)]
pub(crate) struct Segments {
    /// The entries of the lowest bucket, from highest to lowest (the next one to come out is
    /// the last).
    sorted: Vec<OpenEntry>,
    /// The vector the bucket in each ring slot adds entries to: room for `keep` entries once
    /// the slot has been used, or for [`LONG`] times as many while its bucket has segments
    /// (`RING` of them once the ring has been used, none before).
    ring: Vec<Vec<OpenEntry>>,
    /// Per ring slot, the oldest and the newest segment of its bucket, or [`NONE`].
    chains: Vec<(u32, u32)>,
    /// The segments: full vectors of buckets, free vectors, and empty places.
    segments: Vec<Vec<OpenEntry>>,
    /// Per segment, the next newer one of its chain, or the next in its list of free vectors or
    /// of empty places, or [`NONE`].
    next: Vec<u32>,
    /// The first free vector of each room, `keep` entries and [`LONG`] times as many, or
    /// [`NONE`].
    free: [u32; 2],
    /// The first segment without a vector, or [`NONE`].
    empty: u32,
    /// The room of the vectors the ring slots keep.
    keep: usize,
}

impl Default for Segments {
    fn default() -> Self {
        Self {
            sorted: Vec::new(),
            ring: Vec::new(),
            chains: Vec::new(),
            segments: Vec::new(),
            next: Vec::new(),
            free: [NONE; 2],
            empty: NONE,
            keep: 0,
        }
    }
}

/// The room of the vector each ring slot keeps for grids of `cells` cells: the largest power
/// of two up to 64 for which the ring's vectors take at most 1.1 bytes per cell (32 entries
/// from [`LARGE_GRID`](super::LARGE_GRID) cells on, 64 from about 2^18).
pub(super) fn keep_for(cells: usize) -> usize {
    let vector = size_of::<Vec<OpenEntry>>() + size_of::<(u32, u32)>();
    let fits = |keep: usize| 10 * RING * (vector + keep * size_of::<OpenEntry>()) <= 11 * cells;
    let mut keep = 4;
    while keep < 64 && fits(2 * keep) {
        keep *= 2;
    }
    keep
}

impl Segments {
    /// [`Buckets::push`] into a full vector (or none, on the slot's first use).
    #[cold]
    #[inline(never)]
    fn push_into_full(&mut self, slot: usize, entry: OpenEntry) {
        if self.ring[slot].capacity() == 0 {
            // The slot's own vector, made for it: taking a free one would leave another bucket
            // of this search, or of the same search run again, without.
            self.ring[slot] = Vec::with_capacity(self.keep);
        } else {
            let long = self.take(1);
            let full = core::mem::replace(&mut self.ring[slot], long);
            let segment = self.place(full);
            self.next[segment as usize] = NONE;
            self.chains[slot] = match self.chains[slot] {
                (NONE, _) => (segment, segment),
                (oldest, newest) => {
                    self.next[newest as usize] = segment;
                    (oldest, segment)
                }
            };
        }
        self.ring[slot].push(entry);
    }

    /// The stock (0 or 1, see [`Segments::free`]) of a vector with room for `room` entries.
    fn stock_of(&self, room: usize) -> usize {
        usize::from(room > self.keep)
    }

    /// An empty vector of stock `stock`: a free one, else a new one.
    fn take(&mut self, stock: usize) -> Vec<OpenEntry> {
        match self.free[stock] {
            NONE => Vec::with_capacity(if stock == 0 {
                self.keep
            } else {
                self.keep * LONG
            }),
            segment => {
                let index = segment as usize;
                self.free[stock] = self.next[index];
                let mut taken = core::mem::take(&mut self.segments[index]);
                taken.clear();
                self.next[index] = self.empty;
                self.empty = segment;
                taken
            }
        }
    }

    /// Puts `vector` in a segment and returns its number: an empty place, else a new one.
    fn place(&mut self, vector: Vec<OpenEntry>) -> u32 {
        match self.empty {
            NONE => {
                self.segments.push(vector);
                self.next.push(NONE);
                (self.segments.len() - 1) as u32
            }
            segment => {
                self.empty = self.next[segment as usize];
                self.segments[segment as usize] = vector;
                segment
            }
        }
    }

    /// Makes segment `segment` a free vector of its stock.
    fn free_segment(&mut self, segment: u32) {
        let stock = self.stock_of(self.segments[segment as usize].capacity());
        self.next[segment as usize] = self.free[stock];
        self.free[stock] = segment;
    }

    /// Empties the bucket in ring slot `slot`: its segments become free vectors, and the slot
    /// keeps a vector of `keep` entries.
    fn empty_slot(&mut self, slot: usize) {
        self.free_chain(slot);
        self.ring[slot].clear();
        if self.ring[slot].capacity() > self.keep {
            self.shorten(slot);
        }
    }

    /// Makes the segments of the bucket in ring slot `slot` free vectors.
    fn free_chain(&mut self, slot: usize) {
        let (mut segment, _) = self.chains[slot];
        while segment != NONE {
            let next = self.next[segment as usize];
            self.free_segment(segment);
            segment = next;
        }
        self.chains[slot] = (NONE, NONE);
    }

    /// Gives back the long vector of ring slot `slot`, empty, for one of `keep` entries.
    #[cold]
    #[inline(never)]
    fn shorten(&mut self, slot: usize) {
        let kept = self.take(0);
        let long = core::mem::replace(&mut self.ring[slot], kept);
        let segment = self.place(long);
        self.free_segment(segment);
    }

    /// Copies the segments of the bucket in ring slot `slot`, oldest first, into the lowest
    /// bucket's vector and makes them free vectors.
    #[cold]
    #[inline(never)]
    fn take_chain(&mut self, slot: usize) {
        let mut segment = self.chains[slot].0;
        while let Some(entries) = self.segments.get(segment as usize) {
            self.sorted.extend_from_slice(entries);
            segment = self.next[segment as usize];
        }
        self.free_chain(slot);
    }
}

impl Buckets for Segments {
    fn reset(&mut self, occupied: &[u64; WORDS], cells: usize) {
        if self.ring.is_empty() {
            self.ring = vec![Vec::new(); RING];
            self.chains = vec![(NONE, NONE); RING];
        }
        for (word, &bits) in occupied.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                self.empty_slot(word * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        self.sorted.clear();
        // Only growing (with the largest grid searched): vectors of a smaller room, kept from
        // smaller grids, still serve, filling sooner.
        self.keep = self.keep.max(keep_for(cells));
    }

    #[inline(always)]
    fn push(&mut self, slot: usize, _occupied: bool, entry: OpenEntry) {
        let entries = &mut self.ring[slot];
        if entries.len() != entries.capacity() {
            entries.push(entry);
        } else {
            // Out of line, so that the usual case keeps its registers.
            self.push_into_full(slot, entry);
        }
    }

    #[inline(always)]
    fn push_lowest(&mut self, entry: OpenEntry) -> bool {
        if self.sorted.last().is_some_and(|&last| last < entry) {
            return false;
        }
        self.sorted.push(entry);
        true
    }

    fn insert_lowest(&mut self, entry: OpenEntry) {
        let position = self.sorted.partition_point(|&sorted| sorted > entry);
        self.sorted.insert(position, entry);
    }

    #[inline]
    fn lowest(&self) -> Option<OpenEntry> {
        self.sorted.last().copied()
    }

    #[inline]
    fn pop_lowest(&mut self) -> Option<OpenEntry> {
        self.sorted.pop()
    }

    fn take_lowest(&mut self, slot: usize) {
        if self.chains[slot].0 != NONE {
            self.take_chain(slot);
        }
        self.sorted.extend_from_slice(&self.ring[slot]);
        self.ring[slot].clear();
        if self.ring[slot].capacity() > self.keep {
            self.shorten(slot);
        }
        // Entries of one priority, added in order, are in order already.
        if !self.sorted.is_sorted_by(|a, b| a > b) {
            self.sorted.sort_unstable_by(|a, b| b.cmp(a));
        }
    }

    fn memory_bytes(&self) -> usize {
        let room: usize = self
            .ring
            .iter()
            .chain(&self.segments)
            .map(Vec::capacity)
            .sum();
        (self.sorted.capacity() + room) * size_of::<OpenEntry>()
            + (self.ring.capacity() + self.segments.capacity()) * size_of::<Vec<OpenEntry>>()
            + self.chains.capacity() * size_of::<(u32, u32)>()
            + self.next.capacity() * size_of::<u32>()
    }
}
