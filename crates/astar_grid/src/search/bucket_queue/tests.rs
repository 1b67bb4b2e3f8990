//! Tests of [`BucketQueue`] with both bucket storages, against a plain heap.

use super::segments::keep_for;
use super::*;

/// Cells of a grid that takes [`Segments`] with the most room per ring bucket.
const LARGE: usize = 1 << 18;
/// Cells of a grid that takes [`SlotLists`].
const SMALL: usize = 2500;

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

/// Pushes and pops like a search whose priorities never decrease (each push at most `spread`
/// above the last pop), checking every pop and peek against the reference, with both storages.
fn matches_the_reference(min_step: f64, spread: f64, seed: u64) {
    matches_the_reference_with::<SlotLists>(SMALL, min_step, spread, seed);
    matches_the_reference_with::<Segments>(LARGE, min_step, spread, seed);
}

/// [`matches_the_reference`] with the buckets in `B`, for a grid of `cells` cells.
fn matches_the_reference_with<B: Buckets>(cells: usize, min_step: f64, spread: f64, seed: u64) {
    let mut queue = BucketQueue::<B>::default();
    let mut random = Lcg(seed);
    for round in 0..3 {
        queue.reset(Some(min_step), cells);
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
            // Now and then many at once, so that buckets outgrow the vectors the ring keeps.
            let count = match random.next() % 50 {
                0 => 200,
                _ => random.next() % 5,
            };
            for _ in 0..count {
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
    let mut queue = BucketQueue::<Segments>::default();
    let mut heap = OpenList::default();
    let mut random = Lcg(4);
    queue.reset(None, LARGE);
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

/// Entries added below and into the lowest bucket after it became the lowest, in order.
fn entries_below_the_lowest_bucket_come_out_first_with<B: Buckets>(cells: usize) {
    let mut queue = BucketQueue::<B>::default();
    queue.reset(Some(1.0), cells);
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

#[test]
fn entries_below_the_lowest_bucket_come_out_first() {
    entries_below_the_lowest_bucket_come_out_first_with::<SlotLists>(SMALL);
    entries_below_the_lowest_bucket_come_out_first_with::<Segments>(LARGE);
}

/// Runs `rounds` times round the ring a search-like stream that takes out the lowest `width`
/// entries and adds `width` one bucket above, so that `width` entries at a time travel round
/// the ring, the same number in every bucket; returns the bytes held at the end.
fn memory_after_walking<B: Buckets>(cells: usize, width: u32, rounds: usize) -> usize {
    let mut queue = BucketQueue::<B>::default();
    queue.reset(Some(1.0), cells);
    let bucket = 1.0 / BUCKETS_PER_STEP;
    let mut id = 0;
    for _ in 0..width {
        queue.push(0.0, 0.0, id);
        id += 1;
    }
    for _ in 0..rounds * RING {
        let mut lowest = 0.0;
        for _ in 0..width {
            lowest = queue.pop().map_or(0.0, OpenEntry::f);
        }
        for _ in 0..width {
            queue.push(lowest + bucket, 0.0, id);
            id += 1;
        }
    }
    queue.memory_bytes()
}

#[test]
fn memory_follows_the_entries_queued_at_once_not_the_buckets_visited() {
    let entry = size_of::<OpenEntry>();
    for width in [3, 1000] {
        // Whether buckets of `width` went round the ring once or a hundred times, the memory
        // held stays. Slot lists: 20 bytes per entry queued (two buckets at most), with the
        // room the store grew by, and the ring's first slots.
        let once = memory_after_walking::<SlotLists>(SMALL, width, 1);
        let often = memory_after_walking::<SlotLists>(SMALL, width, 100);
        assert_eq!(often, once, "slot lists, buckets of {width}");
        let queued = (2 * width as usize).max(64) * (entry + 4);
        let bound = queued * 2 + RING * 4;
        assert!(often <= bound, "slot lists: {often} > {bound} for {width}");
        // Segments: the ring's vectors, the segments of two buckets and the lowest bucket's
        // vector with up to twice its room.
        let once = memory_after_walking::<Segments>(LARGE, width, 1);
        let often = memory_after_walking::<Segments>(LARGE, width, 100);
        assert_eq!(often, once, "segments, buckets of {width}");
        let ring = RING * (size_of::<Vec<OpenEntry>>() + 8 + keep_for(LARGE) * entry);
        let bound = ring + 2 * 2 * width as usize * (entry + 2) + 2 * width as usize * entry;
        assert!(often <= bound, "segments: {often} > {bound} for {width}");
    }
}

#[test]
fn slot_lists_hold_far_less_than_a_vector_per_bucket() {
    // The old layout kept a vector per ring bucket, each as large as the largest bucket it
    // held: 256 buckets of 4 entries at least.
    let vector_per_bucket = RING * (size_of::<Vec<OpenEntry>>() + 4 * size_of::<OpenEntry>());
    let held = memory_after_walking::<SlotLists>(SMALL, 3, 100);
    assert!(held * 4 < vector_per_bucket, "{held} bytes");
}

/// [`a_search_run_again_needs_no_more_memory`] for one storage.
fn run_again_with<B: Buckets>(cells: usize) {
    let mut queue = BucketQueue::<B>::default();
    let mut memory = Vec::new();
    for seed in [12, 13, 11, 11, 11] {
        queue.reset(Some(1.0), cells);
        let mut random = Lcg(seed);
        let mut id = 0;
        queue.push(0.0, 0.0, id);
        while let Some(lowest) = queue.pop() {
            if id > 20_000 {
                continue;
            }
            let many = u64::from(random.next().is_multiple_of(64)) * 300;
            for _ in 0..random.next() % 4 + many {
                id += 1;
                let step = (random.next() % 12) as f64 / 4.0;
                queue.push(lowest.f() + step, 0.0, id);
            }
        }
        memory.push(queue.memory_bytes());
    }
    assert!(
        memory[2] > memory[1],
        "the stream is the busiest: {memory:?}"
    );
    assert_eq!(memory[3], memory[2]);
    assert_eq!(memory[4], memory[2]);
}

#[test]
fn a_search_run_again_needs_no_more_memory() {
    // Buckets of every size, the same stream three times after others: the later runs find
    // the room they need (so they would not allocate either).
    run_again_with::<SlotLists>(SMALL);
    run_again_with::<Segments>(LARGE);
}
