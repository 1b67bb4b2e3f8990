//! Invalidation: when the map version changes, queue exactly the agents (and drop exactly the
//! cached results) that the change affects.

use crate::cache::PathCache;
use crate::dispatch::{RequestQueue, set_status};
use crate::in_flight::InFlightSearches;
use crate::request::PathRequestState;
use crate::retired::RetiredOutcomes;
use crate::{
    InvalidationPolicy, MapChange, MapChanged, Path, PathStatus, PathfindingSettings,
    PathfindingStats,
};
use bevy::prelude::*;
use bevy::utils::Parallel;
use std::sync::Arc;

/// Applies this frame's [`MapChanged`] messages to the result cache and the running searches.
pub(crate) fn invalidate_results(
    mut changes: MessageReader<MapChanged>,
    settings: Res<PathfindingSettings>,
    mut cache: ResMut<PathCache>,
    mut in_flight: ResMut<InFlightSearches>,
) {
    for message in changes.read() {
        cache.invalidate(&message.change, settings.invalidation);
        for (_, search) in in_flight.iter_mut() {
            search.changes.push(Arc::clone(&message.change));
        }
    }
}

/// Applies this frame's [`MapChanged`] messages to the agents' current paths: queues exactly
/// the agents whose path a change affects.
pub(crate) fn invalidate_paths(
    mut changes: MessageReader<MapChanged>,
    settings: Res<PathfindingSettings>,
    mut queue: ResMut<RequestQueue>,
    mut stats: ResMut<PathfindingStats>,
    mut retired: ResMut<RetiredOutcomes>,
    mut agents: Query<(Entity, &mut Path, &mut PathRequestState)>,
    mut affected: Local<Parallel<Vec<(Entity, bool)>>>,
) {
    let policy = settings.invalidation;
    for message in changes.read() {
        let change = &message.change;
        // Reading every agent's path is the expensive part: done in parallel, then the
        // affected agents are queued in entity order.
        let repair = settings.repair_cut_paths && !change.is_whole_map();
        agents.par_iter().for_each(|(entity, _, state)| {
            if let Some(cut) = affected_agent(state, change, policy, repair) {
                affected.borrow_local_mut().push((entity, cut));
            }
        });
        let mut affected_agents: Vec<(Entity, bool)> = affected.drain().collect();
        affected_agents.sort_unstable_by_key(|&(entity, _)| entity);
        for (entity, cut) in affected_agents {
            let Ok((_, mut path, mut state)) = agents.get_mut(entity) else {
                continue;
            };
            let cut_path = if cut { state.applied.clone() } else { None };
            retired.retire(core::mem::replace(&mut state.cut_path, cut_path));
            queue.enqueue(entity, &mut state);
            set_status(&mut path, PathStatus::Queued);
            stats.paths_invalidated += 1;
        }
    }
}

/// Whether `change` affects the agent's current path (`None`: it does not), and if so whether
/// the path is to be repaired: `repair` is on and the change cut a found path, blocking one of
/// its cells or a corner its diagonal steps may not cut (a path that could get cheaper because
/// cells opened is searched again).
fn affected_agent(
    state: &PathRequestState,
    change: &MapChange,
    policy: InvalidationPolicy,
    repair: bool,
) -> Option<bool> {
    if state.queued.is_some() {
        return None;
    }
    if policy == InvalidationPolicy::TouchedCells
        && state
            .found_footprint
            .is_some_and(|footprint| !footprint.may_be_touched_by(change))
    {
        return None;
    }
    let applied = state.applied.as_ref()?;
    if !applied.affected_by(change, policy) {
        return None;
    }
    Some(
        repair
            && applied.status == PathStatus::Found
            && change.cuts_path(&applied.cells, applied.options.movement),
    )
}
