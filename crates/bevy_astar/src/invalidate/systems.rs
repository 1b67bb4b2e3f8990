//! The Invalidate stage's systems: publish the frame's edits as a map change, then drop the
//! cached results and queue the agents that the change affects ([`super::rule`]).

use super::rule::affected_agent;
use super::{MapChange, MapChanged, MapVersion};
use crate::apply::RetiredOutcomes;
use crate::budget::StageClock;
use crate::cache::PathCache;
use crate::engine::SearchOutcome;
use crate::in_flight::InFlightSearches;
use crate::kinds::{AgentLayers, KindChanges, KindKey, SWEEP_FRAMES};
use crate::queue::{RequestQueue, set_status};
use crate::request::PathRequestState;
use crate::{
    NavGrid, Path, PathRequest, PathStatus, PathfindingSettings, PathfindingStats, TerrainProfiles,
};
use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy::utils::Parallel;
use std::collections::VecDeque;
use std::sync::{Arc, Weak};

/// Applies this frame's [`MapChanged`] messages to the result cache and the running searches.
pub(crate) fn invalidate_results(
    mut changes: MessageReader<MapChanged>,
    settings: Res<PathfindingSettings>,
    mut cache: ResMut<PathCache>,
    mut in_flight: ResMut<InFlightSearches>,
) {
    for message in changes.read() {
        cache.invalidate(message, settings.invalidation);
        for (_, search) in in_flight.iter_mut() {
            if let Some(change) = message.change_for_kind(search.kind) {
                search.changes.push(Arc::clone(change));
            }
        }
    }
}

/// Agents a map change affected that the stage budget left to be queued in a later frame,
/// oldest first.
#[derive(Resource, Default)]
pub(crate) struct PendingInvalidations {
    agents: VecDeque<PendingInvalidation>,
}

/// An affected agent waiting to be queued again.
struct PendingInvalidation {
    entity: Entity,
    /// Whether the change cut its path (a candidate for repair).
    cut: bool,
    /// The result the change affected: once the agent shows another one (searched since, so
    /// knowing the change), there is nothing left to do.
    affected: Weak<SearchOutcome>,
}

/// Applies this frame's [`MapChanged`] messages to the agents' current paths: queues exactly
/// the agents whose path a change affects, oldest change first, within
/// [`PathfindingSettings::stage_budget`]; the rest wait in [`PendingInvalidations`].
pub(crate) fn invalidate_paths(
    mut changes: MessageReader<MapChanged>,
    settings: Res<PathfindingSettings>,
    mut bookkeeping: (
        ResMut<RequestQueue>,
        ResMut<PathfindingStats>,
        ResMut<RetiredOutcomes>,
        ResMut<PendingInvalidations>,
    ),
    mut agents: Query<(Entity, &mut Path, &mut PathRequestState)>,
    mut affected: Local<Parallel<Vec<(Entity, bool)>>>,
) {
    let (queue, stats, retired, pending) = &mut bookkeeping;
    let policy = settings.invalidation;
    for message in changes.read() {
        // Reading every agent's path is the expensive part: done in parallel, then the
        // affected agents wait to be queued in entity order. Each agent is held to the change
        // of its own kind's grid.
        agents.par_iter().for_each(|(entity, _, state)| {
            let Some(change) = state
                .applied
                .as_ref()
                .and_then(|applied| message.change_for_kind(applied.kind))
            else {
                return;
            };
            let repair = settings.repair_cut_paths && !change.is_whole_map();
            if let Some(cut) = affected_agent(state, change, policy, repair) {
                affected.borrow_local_mut().push((entity, cut));
            }
        });
        let mut affected_agents: Vec<(Entity, bool)> = affected.drain().collect();
        affected_agents.sort_unstable_by_key(|&(entity, _)| entity);
        pending
            .agents
            .extend(affected_agents.into_iter().filter_map(|(entity, cut)| {
                let (_, _, state) = agents.get(entity).ok()?;
                let affected = state.applied.as_ref().map(Arc::downgrade)?;
                Some(PendingInvalidation {
                    entity,
                    cut,
                    affected,
                })
            }));
    }
    let mut clock = StageClock::start(settings.stage_budget);
    while !pending.agents.is_empty() && !clock.is_spent() {
        let Some(waiting) = pending.agents.pop_front() else {
            break;
        };
        let Ok((_, mut path, mut state)) = agents.get_mut(waiting.entity) else {
            continue;
        };
        let still_shown = state
            .applied
            .as_ref()
            .is_some_and(|applied| core::ptr::eq(Arc::as_ptr(applied), waiting.affected.as_ptr()));
        if !still_shown {
            continue;
        }
        let cut_path = if waiting.cut {
            state.applied.clone()
        } else {
            None
        };
        retired.retire(core::mem::replace(&mut state.cut_path, cut_path));
        queue.enqueue(waiting.entity, &mut state);
        set_status(&mut path, PathStatus::Queued);
        stats.paths_invalidated += 1;
    }
    stats.carried_over.invalidations = pending.agents.len();
}

/// What [`publish_map_changes`] remembers between frames.
#[derive(Default)]
pub(crate) struct Publisher {
    /// The navigation grid last published.
    grid: Option<u64>,
    /// Frames run, for the sweeps of unused derived grids.
    frames: u32,
}

/// Publishes the edits made to the [`NavGrid`] since the last frame as one new [`MapVersion`],
/// with the change each agent kind's derived grid saw ([`AgentLayers::apply`]). Every
/// [`SWEEP_FRAMES`] frames it also drops the derived grids of kinds nothing uses any more
/// ([`AgentLayers::evict_unused`]), published as a whole-map change of those kinds.
pub(crate) fn publish_map_changes(
    mut nav_grid: Option<ResMut<NavGrid>>,
    profiles: Res<TerrainProfiles>,
    requests: Query<&PathRequest>,
    mut layers: ResMut<AgentLayers>,
    mut version: ResMut<MapVersion>,
    mut publisher: Local<Publisher>,
    mut changed: MessageWriter<MapChanged>,
) {
    let grid_id = nav_grid.as_ref().map(|grid| grid.id());
    let change = if grid_id != publisher.grid {
        publisher.grid = grid_id;
        if let Some(grid) = nav_grid.as_mut() {
            grid.bypass_change_detection().take_changes();
        }
        MapChange::whole_map()
    } else if let Some(grid) = nav_grid.as_mut().filter(|grid| grid.has_pending_changes()) {
        grid.bypass_change_detection().take_changes()
    } else {
        MapChange::default()
    };
    publisher.frames = publisher.frames.wrapping_add(1);
    let evicted = if publisher.frames.is_multiple_of(SWEEP_FRAMES) && !layers.is_empty() {
        let named: HashSet<KindKey> = requests.iter().map(KindKey::of).collect();
        layers.evict_unused(|kind| named.contains(&kind))
    } else {
        Vec::new()
    };
    let mut kinds = match nav_grid.as_deref() {
        Some(nav) => layers.apply(nav, &profiles, &change),
        // The grid is gone: so is every kind's.
        None if change.is_whole_map() => layers.grid_removed(),
        None => KindChanges::default(),
    };
    let whole_map = Arc::new(MapChange::whole_map());
    kinds.kinds.extend(
        evicted
            .into_iter()
            .map(|kind| (kind, Arc::clone(&whole_map))),
    );
    if change.is_empty() && kinds.is_empty() {
        return;
    }
    version.0 += 1;
    changed.write(MapChanged {
        version: *version,
        change: Arc::new(change),
        kinds: kinds.kinds,
        kinds_reset: kinds.reset.then_some(whole_map),
    });
}
