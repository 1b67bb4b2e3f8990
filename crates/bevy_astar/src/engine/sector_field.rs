//! The sector field engine: hierarchical requests for one goal answered together by one
//! [`SectorFlowField`] over the goal's hierarchy, which measures only the sectors the agents
//! cross, each once for all of them. The field is kept for the goal's later requests while the
//! hierarchy stays as it is, so an agent from a sector already measured reads its path off it.
//! Paths are those of the hierarchy: legal and near optimal, with
//! [`PathAlgorithm::Hierarchical`]. Where no field can be made (a sector waits to be built),
//! each request searches the hierarchy on its own. It records no trace.

use super::flow_field::{FieldKey, field_result};
use super::hierarchical::search_hierarchy;
use super::{SearchJob, SearchOutcome, outcome_of};
use crate::PathAlgorithm;
use crate::background::slice_point;
use crate::outcome::RetiredOutcomes;
use astar_grid::{Grid, Hierarchy, SectorFlowField};
use bevy::platform::collections::HashMap;
use bevy::platform::time::Instant;
use bevy::prelude::Resource;
use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A field kept for its goal, with the hierarchy it was made over.
pub(crate) type KeptField = (Arc<Hierarchy>, SectorFlowField);

/// Where a sector field batch leaves its field when it is done.
pub(crate) type FieldSlot = Arc<Mutex<Option<KeptField>>>;

/// Goals whose sector fields are kept, at most.
const MOST_KEPT_FIELDS: usize = 4;

/// Paths a batch reads off its field between two slice points: a walk through sectors not
/// measured yet floods each of them.
const PATHS_PER_SLICE: usize = 4;

/// The sector fields of recent goals, one per goal (with its movement rule, cost model and
/// agent kind), the least recently used dropped beyond [`MOST_KEPT_FIELDS`].
#[derive(Resource, Default)]
pub(crate) struct KeptSectorFields {
    slots: HashMap<FieldKey, (FieldSlot, u64)>,
    uses: u64,
}

impl KeptSectorFields {
    /// Whether `key`'s goal has a field kept over `hierarchy` as it is (so that reading a path
    /// off it costs little), and no batch is using it now.
    pub(crate) fn holds(&self, key: &FieldKey, hierarchy: &Arc<Hierarchy>) -> bool {
        self.slots.get(key).is_some_and(|(slot, _)| {
            slot.try_lock().is_ok_and(|kept| {
                kept.as_ref()
                    .is_some_and(|(over, _)| Arc::ptr_eq(over, hierarchy))
            })
        })
    }

    /// The slot where the batch for `key` leaves its field, with the field kept there if it
    /// was made over `hierarchy` (taken out for the batch to go on with; `None` for another
    /// hierarchy, or while the goal's last batch still runs). The least recently used goal's
    /// slot, dropped to make room, goes to `retired`.
    pub(crate) fn take_for(
        &mut self,
        key: FieldKey,
        hierarchy: &Arc<Hierarchy>,
        retired: &mut RetiredOutcomes,
    ) -> (FieldSlot, Option<SectorFlowField>) {
        self.uses += 1;
        if !self.slots.contains_key(&key) && self.slots.len() >= MOST_KEPT_FIELDS {
            let oldest = self
                .slots
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(&key, _)| key);
            if let Some((slot, _)) = oldest.and_then(|oldest| self.slots.remove(&oldest)) {
                retired.retire_search(slot);
            }
        }
        let (slot, used) = self.slots.entry(key).or_default();
        *used = self.uses;
        let kept = slot.try_lock().ok().and_then(|mut kept| {
            let current = kept
                .as_ref()
                .is_some_and(|(over, _)| Arc::ptr_eq(over, hierarchy));
            if current {
                kept.take().map(|(_, field)| field)
            } else {
                // A field over an older hierarchy answers nothing any more.
                retired.retire_search(kept.take());
                None
            }
        });
        (Arc::clone(slot), kept)
    }
}

/// Answers `jobs`, which share their goal, movement rule and cost model, off one sector field
/// over `hierarchy` (a hierarchy of `grid`): `kept`, the goal's field from an earlier batch
/// over the same hierarchy, or a new one. One outcome per job, in order; a job whose start or
/// goal is invalid gets the error its own search would give, and where no field can be made,
/// each job searches the hierarchy. The field is left in `slot` at the end. `None` when
/// `cancelled` was set before it began or while it ran (checked between paths, where it may
/// also yield, on the main thread once the frame's time is spent).
pub(crate) async fn run_sector_field_batch(
    grid: &Arc<Grid>,
    hierarchy: &Arc<Hierarchy>,
    jobs: &[SearchJob],
    cancelled: &AtomicBool,
    (slot, kept): (FieldSlot, Option<SectorFlowField>),
) -> Option<Vec<SearchOutcome>> {
    let began = Instant::now();
    let first = jobs.first()?;
    let mut field = kept.or_else(|| SectorFlowField::new(hierarchy, grid, first.goal).ok());
    let mut outcomes = Vec::with_capacity(jobs.len());
    for (number, job) in jobs.iter().enumerate() {
        if cancelled.load(Ordering::Relaxed) {
            return None; // nobody wants the answers any more
        }
        let result = match grid.check_endpoints(job.start, job.goal) {
            Err(error) => Err(error),
            Ok(()) => match field
                .as_mut()
                .map(|field| field.path_from(hierarchy, grid, job.start))
            {
                Some(Ok(path)) => Ok(field_result(path)),
                // No field, or it does not answer for this hierarchy: the job searches it.
                None | Some(Err(_)) => search_hierarchy(grid, hierarchy, job),
            },
        };
        outcomes.push(outcome_of(job, grid, result, PathAlgorithm::Hierarchical));
        if (number + 1).is_multiple_of(PATHS_PER_SLICE) {
            slice_point().await;
        }
    }
    let duration = began.elapsed();
    for outcome in &mut outcomes {
        outcome.duration = duration;
    }
    if let (Some(field), Ok(mut kept)) = (field, slot.lock()) {
        *kept = Some((Arc::clone(hierarchy), field));
    }
    Some(outcomes)
}
