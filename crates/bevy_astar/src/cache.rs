//! The result cache: finished searches keyed by (start, goal, options), kept while no map change
//! affects them, so identical requests share one search.

use crate::kinds::KindKey;
use crate::map::PathFootprint;
use crate::outcome::{SearchJob, SearchOutcome};
use crate::{InvalidationPolicy, NavChanged, PathAlgorithm, PathRequest};
use astar_grid::{Cell, CostModel, Heuristic, Movement, SearchOptions, SearchWindow, Weighting};
use bevy::platform::collections::HashMap;
use bevy::platform::hash::FixedHasher;
use bevy::prelude::*;
use core::hash::BuildHasher;
use std::collections::VecDeque;
use std::sync::Arc;

/// The search options in a hashable form (floats by their bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct OptionsKey {
    movement: Movement,
    cost: (bool, u32, u32),
    heuristic: Option<Heuristic>,
    weighting: (bool, u64),
    max_expansions: Option<u32>,
    window: Option<SearchWindow>,
    partial_path: bool,
    closest_reachable: bool,
    trace: bool,
}

impl From<&SearchOptions> for OptionsKey {
    fn from(options: &SearchOptions) -> Self {
        // Listed field by field, so that a new option cannot be forgotten in the key.
        let SearchOptions {
            movement,
            cost,
            heuristic,
            weighting,
            max_expansions,
            window,
            partial_path,
            closest_reachable,
            trace,
        } = *options;
        Self {
            movement,
            cost: match cost {
                CostModel::Octile => (false, 0, 0),
                CostModel::Integer { straight, diagonal } => (true, straight, diagonal),
            },
            heuristic,
            weighting: match weighting {
                Weighting::Static(weight) => (false, weight.to_bits()),
                Weighting::Dynamic { epsilon } => (true, epsilon.to_bits()),
            },
            max_expansions,
            window,
            partial_path,
            closest_reachable,
            trace,
        }
    }
}

/// Everything that decides a search's outcome on a given map, with its hash worked out once:
/// a request's key is looked up and stored several times on its way through the stages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RequestKey {
    hash: u64,
    fields: RequestFields,
}

/// The fields of a [`RequestKey`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct RequestFields {
    start: Cell,
    goal: Cell,
    algorithm: PathAlgorithm,
    smoothing: bool,
    options: OptionsKey,
    kind: KindKey,
}

impl RequestFields {
    fn of(job: &SearchJob) -> Self {
        Self {
            start: job.start,
            goal: job.goal,
            algorithm: job.algorithm,
            smoothing: job.smoothing,
            options: (&job.options).into(),
            kind: job.kind,
        }
    }
}

impl PartialEq for RequestKey {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.fields == other.fields
    }
}

impl Eq for RequestKey {}

impl core::hash::Hash for RequestKey {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl RequestKey {
    /// The key of what `job` asks.
    pub(crate) fn of(job: &SearchJob) -> Self {
        let fields = RequestFields::of(job);
        Self {
            hash: FixedHasher.hash_one(fields),
            fields,
        }
    }

    /// The key of `request` searched with `options` (the request's, possibly with tracing on).
    #[cfg(test)]
    pub(crate) fn new(request: &PathRequest, options: &SearchOptions) -> Self {
        Self::of(&SearchJob::of(request, *options))
    }

    /// Whether `request` (as it is now) still asks for what this key describes; the trace flag,
    /// which the debug overlay may force on, is not compared.
    pub(crate) fn matches(&self, request: &PathRequest) -> bool {
        let options = request.options.with_trace(self.fields.options.trace);
        self.fields == RequestFields::of(&SearchJob::of(request, options))
    }
}

struct CacheEntry {
    outcome: Arc<SearchOutcome>,
    /// The outcome's footprint when it found a path, kept beside the entry so that a map
    /// change rules most entries out without reading their outcomes.
    found_footprint: Option<PathFootprint>,
    /// Matches the newest entry for this key in the eviction order.
    stamp: u64,
}

/// Finished searches, evicted least recently used first and dropped when a map change affects
/// them.
#[derive(Resource, Default)]
pub(crate) struct PathCache {
    entries: HashMap<RequestKey, CacheEntry>,
    /// Keys from least to most recently used; an item whose stamp is not its entry's is stale.
    order: VecDeque<(RequestKey, u64)>,
    next_stamp: u64,
    /// Outcomes evicted or invalidated since [`PathCache::take_retired`], to be freed away
    /// from the main thread.
    retired: Vec<Arc<SearchOutcome>>,
    /// How often each key was asked for and missed, for [`PathCache::offer_recurring`].
    misses: MissCounts,
}

/// Slots of [`MissCounts`]' table.
const MISS_SLOTS: usize = 1 << 16;

/// Misses counted between two halvings of every count.
const MISS_SAMPLE: u32 = 1 << 17;

/// Roughly how often each request key was asked for and not found in the cache: a saturating
/// count per slot of a fixed table, indexed by the key's hash (keys that share a slot share a
/// count, which only ever admits more), every count halved after [`MISS_SAMPLE`] misses so that
/// it follows what is asked for now. The admission filter of TinyLFU (Einziger, Friedman and
/// Manes, 2017), with a plain table for its sketch.
#[derive(Default)]
struct MissCounts {
    /// Empty until the first miss.
    counts: Vec<u8>,
    /// Misses counted since the last halving.
    counted: u32,
}

impl MissCounts {
    /// The slot of `key`'s count.
    fn slot(key: &RequestKey) -> usize {
        // The low bits index hash maps' buckets; the high ones are as good and independent.
        (key.hash >> 48) as usize % MISS_SLOTS
    }

    /// Counts a miss of `key`.
    fn note(&mut self, key: &RequestKey) {
        if self.counts.is_empty() {
            self.counts = vec![0; MISS_SLOTS];
        }
        if let Some(count) = self.counts.get_mut(Self::slot(key)) {
            *count = count.saturating_add(1);
        }
        self.counted += 1;
        if self.counted >= MISS_SAMPLE {
            self.counted = 0;
            for count in &mut self.counts {
                *count /= 2;
            }
        }
    }

    /// Whether `key` was missed more than once lately.
    fn recurs(&self, key: &RequestKey) -> bool {
        self.counts
            .get(Self::slot(key))
            .is_some_and(|&count| count >= 2)
    }
}

impl PathCache {
    /// Whether an outcome for `key` is cached (without marking it as used).
    pub(crate) fn contains(&self, key: &RequestKey) -> bool {
        self.entries.contains_key(key)
    }

    /// Counts a miss of `key` (a search started for it, alone or in a goal batch), for
    /// [`PathCache::offer_recurring`], when the cache is on (`capacity` above 0). A request
    /// that waits in the queue is not counted until its search starts.
    pub(crate) fn note_miss(&mut self, key: &RequestKey, capacity: usize) {
        if capacity > 0 {
            self.misses.note(key);
        }
    }

    /// The cached outcome for `key`, marking it as recently used.
    pub(crate) fn get(&mut self, key: &RequestKey) -> Option<Arc<SearchOutcome>> {
        let entry = self.entries.get_mut(key)?;
        self.next_stamp += 1;
        entry.stamp = self.next_stamp;
        self.order.push_back((*key, self.next_stamp));
        let outcome = Arc::clone(&entry.outcome);
        self.compact();
        Some(outcome)
    }

    /// Stores `outcome` for `key` when the cache is on (`capacity` above 0) and the outcome may
    /// be reused by identical requests ([`SearchOutcome::cacheable`]).
    pub(crate) fn offer(&mut self, key: RequestKey, outcome: &Arc<SearchOutcome>, capacity: usize) {
        if capacity > 0 && outcome.cacheable {
            self.insert(key, Arc::clone(outcome), capacity);
        }
    }

    /// Offers `outcome` as [`PathCache::offer`] does, but only when `key` was missed more than
    /// once lately ([`PathCache::note_miss`]): a request likely to come again, such as
    /// one from a spawn point. Used for the outcomes of goal batches, most of whose starts are
    /// where agents of a crowd happened to stand, asked for once: caching them would only
    /// evict the entries that are asked for again.
    pub(crate) fn offer_recurring(
        &mut self,
        key: RequestKey,
        outcome: &Arc<SearchOutcome>,
        capacity: usize,
    ) {
        if self.misses.recurs(&key) {
            self.offer(key, outcome, capacity);
        }
    }

    /// Stores `outcome` for `key`, evicting the least recently used entries beyond `capacity`.
    pub(crate) fn insert(&mut self, key: RequestKey, outcome: Arc<SearchOutcome>, capacity: usize) {
        if capacity == 0 {
            self.clear();
            return;
        }
        self.next_stamp += 1;
        self.entries.insert(
            key,
            CacheEntry {
                found_footprint: outcome.found_footprint(),
                outcome,
                stamp: self.next_stamp,
            },
        );
        self.order.push_back((key, self.next_stamp));
        while self.entries.len() > capacity {
            let Some((old_key, stamp)) = self.order.pop_front() else {
                break;
            };
            if self
                .entries
                .get(&old_key)
                .is_some_and(|entry| entry.stamp == stamp)
            {
                self.retired
                    .extend(self.entries.remove(&old_key).map(|entry| entry.outcome));
            }
        }
        self.compact();
    }

    /// Drops every entry that `changed` may have made wrong: the change of the entry's kind of
    /// agent.
    ///
    /// A found path is dropped as soon as its footprint may be touched, without reading its
    /// cells: a tower on a crowd's route would otherwise have the cells of most entries read in
    /// one frame, outside any budget, to keep the few that pass beside it. Dropping an entry
    /// that was still right costs a search later, never a wrong path.
    pub(crate) fn invalidate(&mut self, changed: &NavChanged, policy: InvalidationPolicy) {
        let retired = &mut self.retired;
        self.entries.retain(|key, entry| {
            let affected =
                changed
                    .change_for_kind(key.fields.kind)
                    .is_some_and(|change| match entry.found_footprint {
                        Some(footprint) if policy == InvalidationPolicy::TouchedCells => {
                            footprint.may_be_touched_by(change)
                        }
                        _ => entry.outcome.affected_by(change, policy),
                    });
            if affected {
                retired.push(Arc::clone(&entry.outcome));
            }
            !affected
        });
    }

    /// Drops everything.
    pub(crate) fn clear(&mut self) {
        self.retired
            .extend(self.entries.drain().map(|(_, entry)| entry.outcome));
        self.order.clear();
    }

    /// The outcomes evicted or invalidated since the last call.
    pub(crate) fn take_retired(&mut self) -> Vec<Arc<SearchOutcome>> {
        core::mem::take(&mut self.retired)
    }

    /// Number of cached outcomes.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Rebuilds the eviction order when stale items outnumber live ones.
    fn compact(&mut self) {
        if self.order.len() > 2 * self.entries.len() + 64 {
            let entries = &self.entries;
            self.order
                .retain(|(key, stamp)| entries.get(key).is_some_and(|entry| entry.stamp == *stamp));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NavChange;

    fn outcome(cells: Vec<Cell>) -> Arc<SearchOutcome> {
        Arc::new(SearchOutcome::found_along(cells))
    }

    fn key(x: u32) -> RequestKey {
        let request = PathRequest::new(Cell::new(x, 0), Cell::new(x, 1));
        RequestKey::new(&request, &request.options)
    }

    #[test]
    fn least_recently_used_is_evicted_first() {
        let mut cache = PathCache::default();
        for x in 0..3 {
            cache.insert(key(x), outcome(vec![Cell::new(x, 0), Cell::new(x, 1)]), 3);
        }
        assert!(cache.get(&key(0)).is_some());
        cache.insert(key(3), outcome(vec![Cell::new(3, 0), Cell::new(3, 1)]), 3);
        assert_eq!(cache.len(), 3);
        assert!(cache.get(&key(1)).is_none());
        assert!(cache.get(&key(0)).is_some());
    }

    #[test]
    fn options_are_part_of_the_key() {
        let request = PathRequest::new(Cell::new(0, 0), Cell::new(1, 1));
        let weighted = request.options.with_weight(2.0);
        assert_ne!(
            RequestKey::new(&request, &request.options),
            RequestKey::new(&request, &weighted)
        );
    }

    #[test]
    fn changes_on_the_path_invalidate_it() {
        let mut cache = PathCache::default();
        cache.insert(key(0), outcome(vec![Cell::new(0, 0), Cell::new(0, 1)]), 8);
        cache.insert(key(5), outcome(vec![Cell::new(5, 0), Cell::new(5, 1)]), 8);
        let change = NavChange::from_cells([crate::NavCellChange {
            cell: Cell::new(5, 1),
            before: 1,
            after: 0,
        }]);
        cache.invalidate(
            &NavChanged::navigation_only(change),
            InvalidationPolicy::TouchedCells,
        );
        assert!(cache.get(&key(0)).is_some());
        assert!(cache.get(&key(5)).is_none());
    }

    #[test]
    fn a_wall_at_a_corner_of_a_diagonal_step_invalidates_the_path() {
        let blocking = |x, y| {
            NavChange::from_cells([crate::NavCellChange {
                cell: Cell::new(x, y),
                before: 1,
                after: 0,
            }])
        };
        let diagonal = || outcome(vec![Cell::new(2, 0), Cell::new(3, 1), Cell::new(4, 2)]);
        for corner in [(3, 0), (2, 1), (4, 1), (3, 2)] {
            let mut cache = PathCache::default();
            cache.insert(key(2), diagonal(), 8);
            cache.invalidate(
                &NavChanged::navigation_only(blocking(corner.0, corner.1)),
                InvalidationPolicy::TouchedCells,
            );
            assert!(
                cache.get(&key(2)).is_none(),
                "corner {corner:?} kept the path"
            );
        }
        // Two cells away is no corner; and where corners may be cut, a corner wall is harmless.
        let mut cache = PathCache::default();
        cache.insert(key(2), diagonal(), 8);
        let mut cutting = Arc::unwrap_or_clone(diagonal());
        let any_corner = Movement::eight(astar_grid::CornerRule::Any);
        cutting.options = cutting.options.with_movement(any_corner);
        // As a search under that rule would have it: corners are no part of the footprint.
        cutting.footprint = PathFootprint::of(&cutting.cells, any_corner, 8, 8);
        cache.insert(key(3), Arc::new(cutting), 8);
        cache.invalidate(
            &NavChanged::navigation_only(blocking(4, 0)),
            InvalidationPolicy::TouchedCells,
        );
        assert!(cache.get(&key(2)).is_some());
        cache.invalidate(
            &NavChanged::navigation_only(blocking(3, 0)),
            InvalidationPolicy::TouchedCells,
        );
        assert!(cache.get(&key(2)).is_none());
        assert!(cache.get(&key(3)).is_some());
    }

    #[test]
    fn batch_outcomes_are_admitted_only_for_keys_missed_more_than_once_lately() {
        let mut cache = PathCache::default();
        let path = || outcome(vec![Cell::new(0, 0), Cell::new(0, 1)]);
        cache.note_miss(&key(0), 8);
        cache.offer_recurring(key(0), &path(), 8);
        assert!(
            !cache.contains(&key(0)),
            "a key missed once is not admitted"
        );
        cache.note_miss(&key(0), 8);
        cache.offer_recurring(key(0), &path(), 8);
        assert!(cache.contains(&key(0)), "a key missed twice is");
        // Single searches go in at once.
        cache.offer(key(1), &path(), 8);
        assert!(cache.contains(&key(1)));

        // Counts fade: a key missed twice long ago is asked for once again.
        let mut cache = PathCache::default();
        cache.note_miss(&key(2), 8);
        cache.note_miss(&key(2), 8);
        let mut others = (3..)
            .map(key)
            .filter(|other| MissCounts::slot(other) != MissCounts::slot(&key(2)));
        for other in others.by_ref().take(MISS_SAMPLE as usize) {
            cache.misses.note(&other);
        }
        cache.offer_recurring(key(2), &path(), 8);
        assert!(!cache.contains(&key(2)));

        // With the cache off, no miss is counted, and no table is made for the counts.
        let mut cache = PathCache::default();
        cache.note_miss(&key(4), 0);
        assert!(cache.misses.counts.is_empty());
    }

    #[test]
    fn a_change_in_a_chunk_a_cached_path_crosses_drops_it_without_reading_its_cells() {
        // 64 x 64 cells make chunks of 4 x 4: (1, 2) shares the first chunk with the path.
        let along = |cells: Vec<Cell>| {
            let mut found = SearchOutcome::found_along(cells);
            found.footprint = PathFootprint::of(&found.cells, Movement::EIGHT, 64, 64);
            Arc::new(found)
        };
        let blocked = |x, y| {
            NavChanged::navigation_only(NavChange::from_cells([crate::NavCellChange {
                cell: Cell::new(x, y),
                before: 1,
                after: 0,
            }]))
        };
        let mut cache = PathCache::default();
        // Along the top, then down: (1, 2) lies inside its bounding box, beside it.
        let corner_path: Vec<Cell> = (0..8)
            .map(|x| Cell::new(x, 0))
            .chain((1..8).map(|y| Cell::new(7, y)))
            .collect();
        cache.insert(key(0), along(corner_path.clone()), 8);
        cache.insert(key(1), along((0..8).map(|x| Cell::new(x, 40)).collect()), 8);
        let policy = InvalidationPolicy::TouchedCells;
        cache.invalidate(&blocked(20, 20), policy);
        assert_eq!(cache.len(), 2, "changes away from both paths keep them");
        cache.invalidate(&blocked(1, 2), policy);
        assert!(
            cache.get(&key(0)).is_none(),
            "beside the path, in a chunk it crosses"
        );
        assert!(cache.get(&key(1)).is_some());
        assert!(
            !blocked(1, 2)
                .change
                .touches_path(&corner_path, Movement::EIGHT)
        );
    }
}
