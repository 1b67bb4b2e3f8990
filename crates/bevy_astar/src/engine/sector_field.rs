//! The sector field engine: hierarchical requests for one goal answered together by one
//! [`SectorFlowField`] over the goal's hierarchy, which measures only the sectors the agents
//! cross, each once for all of them. The field is kept for the goal's later requests while the
//! hierarchy stays as it is, and shared by the batches that run at once, so an agent from a
//! sector already measured reads its path off it. Paths are those of the hierarchy: legal and
//! near optimal, with [`PathAlgorithm::Hierarchical`]. Sectors that map changes marked and
//! that still wait to be built in the background are built first, on a copy of the hierarchy
//! that the field keeps, so that a tower's crowd is answered at once. Where no field can be
//! made, each request searches the hierarchy on its own. It records no trace.

use super::flow_field::{FieldKey, field_result};
use super::goal_batch::RecentSlots;
use super::hierarchical::search_hierarchy;
use super::{SearchJob, SearchOutcome, outcome_of};
use crate::PathAlgorithm;
use crate::background::slice_point;
use crate::outcome::RetiredOutcomes;
use astar_grid::{Cell, Grid, Hierarchy, SearchError, SearchResult, SectorFlowField};
use bevy::platform::collections::HashMap;
use bevy::platform::time::Instant;
use bevy::prelude::Resource;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Goals whose sector fields are kept, at most.
const MOST_KEPT_FIELDS: usize = 4;

/// Paths a batch reads off its field between two slice points (and two locks of the field):
/// a walk through sectors not measured yet floods each of them.
const PATHS_PER_SLICE: usize = 4;

/// Goals whose requests are counted, at most: past this many, the counts start again.
const MOST_GOALS_COUNTED: usize = 4_096;

/// [`SharedField::revision`] while it holds no field.
const NO_FIELD: u64 = u64::MAX;

/// A goal's sector field, shared by the batches that read it, those running at once too: each
/// locks it for a few paths at a time, so that a sector one batch measured serves the others.
pub(crate) struct SharedField {
    /// The [`Hierarchy::revision`] of the hierarchy the batches were given when the field was
    /// made, or [`NO_FIELD`].
    revision: AtomicU64,
    field: Mutex<Option<FieldOver>>,
}

/// A sector field and the hierarchy it was made over: the hierarchy given, or a copy with the
/// sectors waiting built.
type FieldOver = (Arc<Hierarchy>, SectorFlowField);

impl Default for SharedField {
    fn default() -> Self {
        Self {
            revision: AtomicU64::new(NO_FIELD),
            field: Mutex::new(None),
        }
    }
}

impl SharedField {
    /// Whether it holds a field that answers for `hierarchy` as it is.
    fn answers_for(&self, hierarchy: &Hierarchy) -> bool {
        self.revision.load(Ordering::Acquire) == hierarchy.revision()
    }
}

/// The sector fields of recent goals, one per goal (with its movement rule, cost model and
/// agent kind), the least recently used dropped beyond [`MOST_KEPT_FIELDS`], and how many
/// hierarchical requests each goal has had.
#[derive(Resource, Default)]
pub(crate) struct KeptSectorFields {
    slots: RecentSlots<Arc<SharedField>>,
    asked: HashMap<FieldKey, usize>,
}

impl KeptSectorFields {
    /// Counts `requests` more hierarchical requests for `key`'s goal; returns how many it has
    /// had so far. A goal that creeps stream to one or two a frame earns its field this way,
    /// as a crowd asking at once does.
    pub(crate) fn count_requests(&mut self, key: FieldKey, requests: usize) -> usize {
        if self.asked.len() >= MOST_GOALS_COUNTED && !self.asked.contains_key(&key) {
            self.asked.clear();
        }
        let asked = self.asked.entry(key).or_default();
        *asked = asked.saturating_add(requests);
        *asked
    }

    /// Whether `key`'s goal has a field kept over `hierarchy` as it is, so that reading a path
    /// off it costs little.
    pub(crate) fn holds(&self, key: &FieldKey, hierarchy: &Hierarchy) -> bool {
        self.slots
            .get(key)
            .is_some_and(|shared| shared.answers_for(hierarchy))
    }

    /// The field of `key`'s goal, shared with the batches that read it. The least recently
    /// used goal's field, dropped to make room, goes to `retired`.
    pub(crate) fn field_for(
        &mut self,
        key: FieldKey,
        retired: &mut RetiredOutcomes,
    ) -> Arc<SharedField> {
        Arc::clone(self.slots.slot(key, MOST_KEPT_FIELDS, retired))
    }
}

/// Answers `jobs`, which share their goal, movement rule and cost model, off the goal's sector
/// field over `hierarchy` (a hierarchy of `grid`): the one `shared` holds when it was made from
/// this hierarchy, else a new one left there for later batches (unless `shared` holds a field
/// of a newer hierarchy, which this batch leaves alone). One outcome per job, in order; a job
/// whose start or goal is invalid gets the error its own search would give, and where no field
/// can be made, each job searches the hierarchy. `None` when `cancelled` was set before it
/// began or while it ran (checked between paths, where it may also yield, on the main thread
/// once the frame's time is spent).
pub(crate) async fn run_sector_field_batch(
    grid: &Arc<Grid>,
    hierarchy: &Arc<Hierarchy>,
    jobs: &[SearchJob],
    cancelled: &AtomicBool,
    shared: Arc<SharedField>,
) -> Option<Vec<SearchOutcome>> {
    let began = Instant::now();
    let mut own = None;
    let mut outcomes = Vec::with_capacity(jobs.len());
    for chunk in jobs.chunks(PATHS_PER_SLICE) {
        if cancelled.load(Ordering::Relaxed) {
            return None; // nobody wants the answers any more
        }
        read_chunk(grid, hierarchy, (&shared, &mut own), chunk, &mut outcomes);
        slice_point().await;
    }
    let duration = began.elapsed();
    for outcome in &mut outcomes {
        outcome.duration = duration;
    }
    Some(outcomes)
}

/// Reads `chunk`'s outcomes into `outcomes`, off the field `shared` holds (made there first when
/// it holds none, or one for an older hierarchy), or off a field of the batch's own (`own`)
/// when `shared` holds one for a newer hierarchy.
fn read_chunk(
    grid: &Grid,
    hierarchy: &Arc<Hierarchy>,
    (shared, own): (&SharedField, &mut Option<Option<FieldOver>>),
    chunk: &[SearchJob],
    outcomes: &mut Vec<SearchOutcome>,
) {
    let Some(goal) = chunk.first().map(|job| job.goal) else {
        return;
    };
    let mut kept = shared.field.lock().unwrap_or_else(PoisonError::into_inner);
    let stored = shared.revision.load(Ordering::Acquire);
    let field = if stored == hierarchy.revision() {
        &mut *kept
    } else if stored == NO_FIELD || stored < hierarchy.revision() {
        *kept = field_over(grid, hierarchy, goal);
        let revision = kept.as_ref().map_or(NO_FIELD, |_| hierarchy.revision());
        shared.revision.store(revision, Ordering::Release);
        &mut *kept
    } else {
        own.get_or_insert_with(|| field_over(grid, hierarchy, goal))
    };
    for job in chunk {
        let result = match field.as_mut() {
            Some((over, field)) => answer(grid, (over, field), job),
            None => grid
                .check_endpoints(job.start, job.goal)
                .and_then(|()| search_hierarchy(grid, hierarchy, job)),
        };
        outcomes.push(outcome_of(job, grid, result, PathAlgorithm::Hierarchical));
    }
}

/// A field towards `goal` over `hierarchy`, with the sectors waiting built first on a copy of
/// it; `None` when none can be made.
fn field_over(grid: &Grid, hierarchy: &Arc<Hierarchy>, goal: Cell) -> Option<FieldOver> {
    let built = if hierarchy.pending() == 0 {
        Arc::clone(hierarchy)
    } else {
        let mut copy = Hierarchy::clone(hierarchy);
        copy.build_sectors(grid, usize::MAX).ok()?;
        Arc::new(copy)
    };
    let field = SectorFlowField::new(&built, grid, goal).ok()?;
    Some((built, field))
}

/// `job`'s path read off `field` (over the hierarchy `over`), or searched over that hierarchy
/// when the field does not answer; the error of the job's endpoints when they are invalid.
fn answer(
    grid: &Grid,
    (over, field): (&Hierarchy, &mut SectorFlowField),
    job: &SearchJob,
) -> Result<SearchResult, SearchError> {
    grid.check_endpoints(job.start, job.goal)?;
    match field.path_from(over, grid, job.start) {
        Ok(path) => Ok(field_result(path)),
        Err(_) => search_hierarchy(grid, over, job),
    }
}
