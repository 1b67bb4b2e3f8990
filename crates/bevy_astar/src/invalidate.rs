//! Invalidation: when the map version changes, queue exactly the agents (and drop exactly the
//! cached results) that the change affects.

use crate::cache::PathCache;
use crate::dispatch::{InFlightSearches, RequestQueue, set_status};
use crate::request::PathRequestState;
use crate::{CellChange, MapChanged, Path, PathStatus, PathfindingSettings, PathfindingStats};
use bevy::prelude::*;
use std::sync::Arc;

/// Applies this frame's [`MapChanged`] messages to the cache, the running searches and the
/// agents' current paths.
pub(crate) fn invalidate_paths(
    mut changes: MessageReader<MapChanged>,
    settings: Res<PathfindingSettings>,
    mut cache: ResMut<PathCache>,
    mut in_flight: ResMut<InFlightSearches>,
    mut queue: ResMut<RequestQueue>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<(Entity, &mut Path, &mut PathRequestState)>,
) {
    let policy = settings.invalidation;
    for message in changes.read() {
        let change = &message.change;
        cache.invalidate(change, policy);
        for search in in_flight.searches.values_mut() {
            search.changes.push(Arc::clone(change));
        }
        for (entity, mut path, mut state) in &mut agents {
            if state.queued.is_some() {
                continue;
            }
            let affected = state
                .applied
                .as_ref()
                .is_some_and(|applied| applied.affected_by(change, policy));
            if affected {
                if settings.repair_cut_paths && !change.is_whole_map() {
                    // Only a path that lost cells is repaired; one that could get cheaper
                    // (cells opened) is searched again.
                    state.cut_path = state
                        .applied
                        .as_ref()
                        .filter(|applied| {
                            applied.status == PathStatus::Found
                                && applied.cells.iter().any(|&cell| {
                                    change.get(cell).is_some_and(CellChange::became_blocked)
                                })
                        })
                        .cloned();
                }
                queue.enqueue(entity, &mut state);
                set_status(&mut path, PathStatus::Queued);
                stats.paths_invalidated += 1;
            }
        }
    }
}
