//! The request queue, the bookkeeping and the status writes that every stage shares: agents
//! wait in the queue, oldest first, from the moment their request changes or a map change
//! affects their path until dispatch serves them.

use crate::cache::PathCache;
use crate::in_flight::InFlightSearches;
use crate::outcome::RetiredOutcomes;
use crate::path::PathRoute;
use crate::request::PathRequestState;
use crate::{Path, PathRequest, PathStatus, PathTrace, PathfindingStats};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use std::collections::BTreeSet;

/// Agents waiting for dispatch, ordered by when they were queued: oldest first.
#[derive(Resource, Default)]
pub(crate) struct RequestQueue {
    entries: BTreeSet<(u64, Entity)>,
    next_sequence: u64,
}

impl RequestQueue {
    /// Queues `entity` at the back, unless it is already queued (then it keeps its place).
    pub(crate) fn enqueue(&mut self, entity: Entity, state: &mut PathRequestState) {
        if let Some(sequence) = state.queued
            && self.entries.contains(&(sequence, entity))
        {
            return;
        }
        self.next_sequence += 1;
        self.requeue(entity, self.next_sequence, state);
    }

    /// Queues `entity` at the place `sequence` it had before (a search that must be redone).
    pub(crate) fn requeue(&mut self, entity: Entity, sequence: u64, state: &mut PathRequestState) {
        self.dequeue(entity, state);
        state.queued = Some(sequence);
        self.entries.insert((sequence, entity));
    }

    /// Takes `entity` out of the queue, if it is queued (an answer came for its request).
    pub(crate) fn dequeue(&mut self, entity: Entity, state: &mut PathRequestState) {
        if let Some(previous) = state.queued.take() {
            self.entries.remove(&(previous, entity));
        }
    }

    /// Number of queued agents.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The queue entries (`(sequence, entity)`), oldest first. An entry whose sequence is not
    /// the agent's [`PathRequestState::queued`] any more is stale: the agent was queued again
    /// or served.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, Entity)> + '_ {
        self.entries.iter().copied()
    }

    /// Removes one entry (served, stale, or of a despawned agent).
    pub(crate) fn remove(&mut self, entry: (u64, Entity)) {
        self.entries.remove(&entry);
    }
}

/// Sets the status without marking the path changed when it already has it.
pub(crate) fn set_status(path: &mut Mut<Path>, status: PathStatus) {
    if path.status != status {
        path.status = status;
    }
}

/// The bookkeeping that dispatching and applying results change.
#[derive(SystemParam)]
pub(crate) struct SearchBookkeeping<'w> {
    pub queue: ResMut<'w, RequestQueue>,
    pub cache: ResMut<'w, PathCache>,
    pub in_flight: ResMut<'w, InFlightSearches>,
    pub stats: ResMut<'w, PathfindingStats>,
    pub retired: ResMut<'w, RetiredOutcomes>,
}

/// When an agent's [`PathRequest`] is removed, or the agent despawned, takes it out of the
/// queue, lets go of its result, and ends its [`Path`] as [`PathStatus::Cancelled`], cleared:
/// no search answers a request that is gone, so a path left as it was would say `Searching` for
/// ever, or be walked without being kept up to date. A search running for it alone is
/// cancelled at its next slice, since nobody wants its answer, and the last search's
/// [`PathTrace`] goes. The `Path` stays, with a new revision, so that a follower stops and a
/// request inserted again continues its revisions.
pub(crate) fn forget_removed_request(
    removed: On<Remove, PathRequest>,
    mut agents: Query<(&mut Path, &mut PathRequestState)>,
    mut queue: ResMut<RequestQueue>,
    mut retired: ResMut<RetiredOutcomes>,
    mut commands: Commands,
) {
    let entity = removed.entity;
    let Ok((mut path, mut state)) = agents.get_mut(entity) else {
        return;
    };
    // The last search's trace would be drawn with no path, or under the next request's.
    commands.entity(entity).try_remove::<PathTrace>();
    queue.dequeue(entity, &mut state);
    state.searching_for = None;
    retired.retire(state.set_applied(None));
    retired.retire(state.cut_path.take());
    retired.retire_route(path.replace_route(PathRoute::Empty));
    path.status = PathStatus::Cancelled;
    path.revision += 1;
}
