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
use super::hierarchical::{build_waiting, search_hierarchy};
use super::{SearchJob, SearchOutcome, outcome_of};
use crate::PathAlgorithm;
use crate::background::slice_point;
use crate::outcome::RetiredOutcomes;
use astar_grid::{Cell, Grid, Hierarchy, SearchError, SearchResult, SectorFlowField};
use bevy::platform::collections::HashMap;
use bevy::platform::time::Instant;
use bevy::prelude::Resource;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

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
    /// The [`Hierarchy::revision`] of the hierarchy the batches were given when the field held
    /// was made, or [`NO_FIELD`]; read without the lock.
    revision: AtomicU64,
    kept: Mutex<Option<KeptField>>,
}

/// A goal's field, for one revision of the hierarchy (and, where sectors of it waited, one grid).
struct KeptField {
    /// The [`Hierarchy::revision`] of the hierarchy the batches were given.
    revision: u64,
    /// Where that hierarchy had sectors waiting: a copy with them built on the grid given, and
    /// that grid, weakly (its address names it while the weak reference keeps the allocation;
    /// a strong one would make the next edit copy the whole grid). The field answers for that
    /// grid only.
    copy: Option<(Arc<Hierarchy>, Weak<Grid>)>,
    /// The field; `None` where none could be made (the batches then search the hierarchy).
    field: Option<SectorFlowField>,
}

impl KeptField {
    /// Whether it answers for `hierarchy` on `grid`.
    fn fits(&self, hierarchy: &Hierarchy, grid: &Arc<Grid>) -> bool {
        self.revision == hierarchy.revision()
            && self
                .copy
                .as_ref()
                .is_none_or(|(_, built_on)| core::ptr::eq(built_on.as_ptr(), Arc::as_ptr(grid)))
    }
}

impl Default for SharedField {
    fn default() -> Self {
        Self {
            revision: AtomicU64::new(NO_FIELD),
            kept: Mutex::new(None),
        }
    }
}

impl SharedField {
    /// Whether it holds a field made for `hierarchy` as it is.
    fn answers_for(&self, hierarchy: &Hierarchy) -> bool {
        self.revision.load(Ordering::Acquire) == hierarchy.revision()
    }

    /// Whether it holds a field (or found none could be made) for `hierarchy` on `grid`; false
    /// while another batch holds it.
    fn fits(&self, hierarchy: &Hierarchy, grid: &Arc<Grid>) -> bool {
        self.kept
            .try_lock()
            .is_ok_and(|kept| kept.as_ref().is_some_and(|kept| kept.fits(hierarchy, grid)))
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
/// field over `hierarchy` (a hierarchy of `grid`): the one `shared` holds when it was made for
/// this hierarchy (and, where sectors of it wait, this grid), else a new one left there for
/// later batches (unless `shared` holds a field of a newer hierarchy, which this batch leaves
/// alone). Where sectors wait, the batch first builds them on a copy of the hierarchy, a few
/// per slice. One outcome per job, in order; a job whose start or goal is invalid gets the
/// error its own search would give, and a job the field does not answer (no field could be
/// made, or it finds no way) searches the hierarchy. `None` when `cancelled` was set before it
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
    let mut copy = None;
    if hierarchy.pending() > 0 && !shared.fits(hierarchy, grid) {
        copy = built_copy(grid, hierarchy, cancelled).await?;
    }
    let mut own = None;
    let mut outcomes = Vec::with_capacity(jobs.len());
    for chunk in jobs.chunks(PATHS_PER_SLICE) {
        if cancelled.load(Ordering::Relaxed) {
            return None; // nobody wants the answers any more
        }
        let fields = (&*shared, &mut own);
        read_chunk((grid, hierarchy, &copy), fields, chunk, &mut outcomes);
        slice_point().await;
    }
    let duration = began.elapsed();
    for outcome in &mut outcomes {
        outcome.duration = duration;
    }
    Some(outcomes)
}

/// A copy of `hierarchy` with its sectors waiting built on `grid`, a few per slice (`None`
/// inside when they cannot be built); `None` when `cancelled` was set meanwhile.
async fn built_copy(
    grid: &Grid,
    hierarchy: &Hierarchy,
    cancelled: &AtomicBool,
) -> Option<Option<Arc<Hierarchy>>> {
    let mut copy = Hierarchy::clone(hierarchy);
    let built = build_waiting(&mut copy, grid, |_| !cancelled.load(Ordering::Relaxed)).await;
    if cancelled.load(Ordering::Relaxed) {
        return None;
    }
    Some(built.then(|| Arc::new(copy)))
}

/// Reads `chunk`'s outcomes into `outcomes`, off the field `shared` holds (made there first when
/// it holds none, or one for an older hierarchy or another grid), or off a field of the batch's
/// own (`own`) when `shared` holds one for a newer hierarchy. `copy` is the hierarchy with its
/// sectors waiting built, where some wait.
fn read_chunk(
    (grid, hierarchy, copy): (&Arc<Grid>, &Hierarchy, &Option<Arc<Hierarchy>>),
    (shared, own): (&SharedField, &mut Option<KeptField>),
    chunk: &[SearchJob],
    outcomes: &mut Vec<SearchOutcome>,
) {
    let Some(goal) = chunk.first().map(|job| job.goal) else {
        return;
    };
    let mut held = shared.kept.lock().unwrap_or_else(PoisonError::into_inner);
    let fits = held.as_ref().is_some_and(|kept| kept.fits(hierarchy, grid));
    let newer = held
        .as_ref()
        .is_some_and(|kept| kept.revision > hierarchy.revision());
    let mut kept = if fits {
        held.as_mut()
    } else if newer {
        Some(own.get_or_insert_with(|| made_field((grid, hierarchy, copy), goal, None)))
    } else {
        let earlier = held.take().and_then(|kept| kept.field);
        let made = made_field((grid, hierarchy, copy), goal, earlier);
        let revision = made.field.as_ref().map_or(NO_FIELD, |_| made.revision);
        shared.revision.store(revision, Ordering::Release);
        Some(held.insert(made))
    };
    for job in chunk {
        let result = answer(grid, hierarchy, kept.as_deref_mut(), job);
        outcomes.push(outcome_of(job, grid, result, PathAlgorithm::Hierarchical));
    }
}

/// The field towards `goal` for `hierarchy` on `grid`: over the hierarchy itself when no sector
/// of it waits, else over `copy`, the hierarchy with those sectors built on `grid`. It renews
/// `earlier`, the goal's field for an older hierarchy, where there is one
/// ([`SectorFlowField::renewed`]): the sectors a change left alike are not flooded again.
fn made_field(
    (grid, hierarchy, copy): (&Arc<Grid>, &Hierarchy, &Option<Arc<Hierarchy>>),
    goal: Cell,
    earlier: Option<SectorFlowField>,
) -> KeptField {
    let copy = (hierarchy.pending() > 0)
        .then(|| {
            copy.as_ref()
                .map(|copy| (Arc::clone(copy), Arc::downgrade(grid)))
        })
        .flatten();
    let over = copy.as_ref().map_or(hierarchy, |(copy, _)| copy.as_ref());
    let field = if hierarchy.pending() > 0 && copy.is_none() {
        None
    } else {
        match earlier.filter(|earlier| earlier.goal() == goal) {
            Some(earlier) => earlier.renewed(over, grid).ok(),
            None => SectorFlowField::new(over, grid, goal).ok(),
        }
    };
    KeptField {
        revision: hierarchy.revision(),
        copy,
        field,
    }
}

/// `job`'s path read off `kept`'s field, or searched over `hierarchy` where the field does not
/// answer (there is none, or it finds no way, which a search then confirms); the error of the
/// job's endpoints when they are invalid.
fn answer(
    grid: &Grid,
    hierarchy: &Hierarchy,
    kept: Option<&mut KeptField>,
    job: &SearchJob,
) -> Result<SearchResult, SearchError> {
    grid.check_endpoints(job.start, job.goal)?;
    let read = kept.and_then(|kept| {
        let over = kept
            .copy
            .as_ref()
            .map_or(hierarchy, |(copy, _)| copy.as_ref());
        kept.field.as_mut()?.path_from(over, grid, job.start).ok()?
    });
    match read {
        Some(path) => Ok(field_result(Some(path))),
        None => search_hierarchy(grid, hierarchy, job),
    }
}
