//! [`SlotLists`]: buckets kept as lists through one store of slots that every bucket shares.

use super::{Buckets, RING, WORDS};
use crate::search::open_list::OpenEntry;

/// The slot number that stands for none: the end of a list.
const NO_SLOT: u32 = u32::MAX;
/// Slots the store grows by at least (beyond, by half the slots it has), and unused slots
/// made free at a time.
const BATCH: usize = 64;

/// Buckets as lists through a store of slots, each an entry and the number of the next slot of
/// its list, newest entry first: the memory held is 20 bytes per entry queued at once (with up
/// to half as many again of room the store grew by) and a kilobyte for the first slot of each
/// ring bucket. A slot taken out goes back to the free ones, which new entries take before the
/// store grows.
///
/// For grids of fewer than [`LARGE_GRID`](super::LARGE_GRID) cells: a search on such a grid
/// queues at most eight entries per cell (a cell is expanded once and has eight neighbours),
/// so slot numbers stay far below [`NO_SLOT`].
#[derive(Clone, Debug)]
pub(crate) struct SlotLists {
    /// First slot of the lowest bucket's list, in the order its entries come out, or
    /// [`NO_SLOT`] when it is empty.
    lowest: u32,
    /// The bucket in ring slot `s` is the list from `heads[s]`, newest entry first, while it
    /// holds entries (`RING` of them once the ring has been used, none before).
    heads: Vec<u32>,
    /// Bit `s % 64` of word `s / 64` is set when an entry came to the bucket in ring slot `s`
    /// that does not come out before the one added before it: the bucket needs sorting when it
    /// becomes the lowest.
    unsorted: [u64; WORDS],
    /// Per slot of the store, the entry it holds.
    entries: Vec<OpenEntry>,
    /// Per slot of the store, the next slot of its list (a bucket or the free slots), or
    /// [`NO_SLOT`] at the end.
    links: Vec<u32>,
    /// First slot of the list of free slots, or [`NO_SLOT`].
    free: u32,
    /// Slots handed out since the reset: those from here to the end of the store are unused.
    fresh: u32,
    /// Room for sorting the entries of a bucket that is not in order.
    sort_buffer: Vec<OpenEntry>,
}

impl Default for SlotLists {
    fn default() -> Self {
        Self {
            lowest: NO_SLOT,
            heads: Vec::new(),
            unsorted: [0; WORDS],
            entries: Vec::new(),
            links: Vec::new(),
            free: NO_SLOT,
            fresh: 0,
            sort_buffer: Vec::new(),
        }
    }
}

impl SlotLists {
    /// Puts `entry` in a free slot whose link is `next` and returns the slot.
    #[inline(always)]
    fn store(&mut self, entry: OpenEntry, next: u32) -> u32 {
        if self.free == NO_SLOT {
            self.refill();
        }
        let slot = self.free as usize;
        self.free = core::mem::replace(&mut self.links[slot], next);
        self.entries[slot] = entry;
        slot as u32
    }

    /// Makes up to [`BATCH`] unused slots free (the list of free ones is empty), growing the
    /// store when it has none: by half the slots it has, at least [`BATCH`], rather than
    /// doubling, to keep the room left unused after the busiest search small. Handing out
    /// unused slots a batch at a time keeps the test for an empty free list, made on every
    /// entry, predictable.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let slots = self.links.len();
        let start = self.fresh as usize;
        if start == slots {
            let room = (slots / 2).max(BATCH);
            self.entries.reserve_exact(room);
            self.links.reserve_exact(room);
            self.entries
                .resize(slots + room, OpenEntry::with_tie(0.0, 0, 0));
            self.links.resize(slots + room, NO_SLOT);
        }
        let end = self.links.len().min(start + BATCH);
        debug_assert!(end < NO_SLOT as usize, "slot numbers reach NO_SLOT");
        for slot in start..end - 1 {
            self.links[slot] = slot as u32 + 1;
        }
        self.links[end - 1] = NO_SLOT;
        self.free = start as u32;
        self.fresh = end as u32;
    }

    /// Puts the entries of the lowest list in order: sorted in the buffer and written back
    /// along the list, whose links stay as they are.
    #[inline(never)]
    fn sort_lowest(&mut self) {
        self.sort_buffer.clear();
        let mut slot = self.lowest;
        while let Some(&entry) = self.entries.get(slot as usize) {
            self.sort_buffer.push(entry);
            slot = self.links[slot as usize];
        }
        self.sort_buffer.sort_unstable();
        let mut slot = self.lowest as usize;
        for &entry in &self.sort_buffer {
            self.entries[slot] = entry;
            slot = self.links[slot] as usize;
        }
    }
}

impl Buckets for SlotLists {
    fn reset(&mut self, _occupied: &[u64; WORDS], _cells: usize) {
        if self.heads.is_empty() {
            self.heads = vec![NO_SLOT; RING];
        }
        // Every slot is free or unused again; the store keeps its size.
        self.free = NO_SLOT;
        self.fresh = 0;
        self.lowest = NO_SLOT;
        self.unsorted = [0; WORDS];
    }

    #[inline(always)]
    fn push(&mut self, slot: usize, occupied: bool, entry: OpenEntry) {
        let (word, shift) = (slot / 64, slot % 64);
        // Without branches on whether the bucket holds entries, which is hard to predict: the
        // head of an empty bucket is left from an earlier list (or none) and ignored.
        let head = self.heads[slot];
        let next = if occupied { head } else { NO_SLOT };
        let stored = self.store(entry, next);
        let after_head = self
            .entries
            .get(head as usize)
            .is_some_and(|&listed| listed < entry);
        self.unsorted[word] |= u64::from(occupied & after_head) << shift;
        self.heads[slot] = stored;
    }

    #[inline(always)]
    fn push_lowest(&mut self, entry: OpenEntry) -> bool {
        let first = self.entries.get(self.lowest as usize);
        if first.is_some_and(|&first| first < entry) {
            return false;
        }
        self.lowest = self.store(entry, self.lowest);
        true
    }

    fn insert_lowest(&mut self, entry: OpenEntry) {
        // After the entries of the lowest list that come out before it.
        let (mut before, mut after) = (NO_SLOT, self.lowest);
        while let Some(&listed) = self.entries.get(after as usize) {
            if entry < listed {
                break;
            }
            before = after;
            after = self.links[after as usize];
        }
        let slot = self.store(entry, after);
        match self.links.get_mut(before as usize) {
            Some(link) => *link = slot,
            None => self.lowest = slot,
        }
    }

    #[inline]
    fn lowest(&self) -> Option<OpenEntry> {
        self.entries.get(self.lowest as usize).copied()
    }

    #[inline]
    fn pop_lowest(&mut self) -> Option<OpenEntry> {
        let slot = self.lowest as usize;
        let entry = *self.entries.get(slot)?;
        self.lowest = core::mem::replace(&mut self.links[slot], self.free);
        self.free = slot as u32;
        Some(entry)
    }

    fn take_lowest(&mut self, slot: usize) {
        self.lowest = self.heads[slot];
        let (word, bit) = (slot / 64, 1 << (slot % 64));
        if self.unsorted[word] & bit != 0 {
            self.unsorted[word] &= !bit;
            self.sort_lowest();
        }
    }

    fn memory_bytes(&self) -> usize {
        (self.entries.capacity() + self.sort_buffer.capacity()) * size_of::<OpenEntry>()
            + (self.links.capacity() + self.heads.capacity()) * size_of::<u32>()
    }
}
