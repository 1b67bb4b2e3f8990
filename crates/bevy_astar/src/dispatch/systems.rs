//! The Dispatch stage's systems: queue the agents whose request changed, then serve the queue
//! oldest first: the cache lookup, sharing of identical searches, batching of requests for one
//! goal, the per-frame and in-flight caps, and starting background searches.

use super::goal_batch::GoalBatches;
use super::launcher::{AgentQuery, Launcher, search_engine};
use crate::apply::PathNotifier;
use crate::cache::RequestKey;
use crate::debug::PathDebugSettings;
use crate::flow_fields::{FieldKey, FieldLookup, FlowFields};
use crate::in_flight::{SearchMember, Subscriber};
use crate::queue::{RequestQueue, SearchBookkeeping, set_status};
use crate::request::PathRequestState;
use crate::search_task::{Engine, SearchJob, SearchOutcome};
use crate::{
    MapVersion, NavGrid, Path, PathAlgorithm, PathRequest, PathStatus, PathfindingSettings,
};
use astar_grid::Cell;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use std::sync::Arc;

/// Once the per-frame or in-flight cap is reached, how many more queued requests one frame
/// looks at for a cached result or a running search to join: the dispatcher's cost per frame
/// stays bounded however long the queue grows, and later requests get their turn as the queue
/// moves.
const LOOKUPS_AFTER_CAPS: usize = 512;

/// Moves every agent whose [`PathRequest`] changed (or was added) into the queue.
pub(crate) fn queue_changed_requests(
    mut queue: ResMut<RequestQueue>,
    mut agents: Query<(Entity, &mut PathRequestState, &mut Path), Changed<PathRequest>>,
) {
    for (entity, mut state, mut path) in &mut agents {
        queue.enqueue(entity, &mut state);
        set_status(&mut path, PathStatus::Queued);
    }
}

/// The resources the dispatcher reads.
#[derive(SystemParam)]
pub(crate) struct DispatchContext<'w> {
    settings: Res<'w, PathfindingSettings>,
    time: Res<'w, Time>,
    nav: Option<ResMut<'w, NavGrid>>,
    version: Res<'w, MapVersion>,
    debug: Option<Res<'w, PathDebugSettings>>,
    fields: ResMut<'w, FlowFields>,
}

/// Serves queued requests oldest first: from the cache, by joining an identical running search,
/// or by starting a search while the per-frame and in-flight caps allow. Requests for one goal
/// that could each be answered by an optimal search are gathered while the queue is read and,
/// when there are at least [`PathfindingSettings::goal_batch_min`] of them, answered by one
/// search grown from the goal (counted as one search against the caps).
pub(crate) fn dispatch_searches(
    context: DispatchContext,
    mut bookkeeping: SearchBookkeeping,
    mut agents: AgentQuery,
    mut notifier: PathNotifier,
) {
    let DispatchContext {
        settings,
        time,
        mut nav,
        version,
        debug,
        mut fields,
    } = context;
    let SearchBookkeeping {
        queue,
        cache,
        in_flight,
        stats,
        retired,
    } = &mut bookkeeping;
    let Some(nav) = nav.as_mut().map(DetectChangesMut::bypass_change_detection) else {
        // Only derived data (the jump point grid) is built through this borrow.
        for (_, entity) in queue.iter() {
            if let Ok((_, mut path, ..)) = agents.get_mut(entity) {
                set_status(&mut path, PathStatus::WaitingForMap);
            }
        }
        stats.started_last_frame = 0;
        stats.queue_length = queue.len();
        return;
    };
    let now = time.elapsed();
    let trace_all = debug.is_some_and(|debug| debug.trace_all_agents);
    let mut launcher = Launcher {
        settings: &settings,
        retired,
        now,
        map_version: version.get(),
        started: 0,
        served: Vec::new(),
    };
    let batching = settings.goal_batch_min > 0;
    let mut batches = GoalBatches::default();
    let mut lookups_after_caps = 0;
    for (sequence, entity) in queue.iter() {
        let Ok((mut request, mut path, mut agent, debug_path, transform)) = agents.get_mut(entity)
        else {
            launcher.served.push((sequence, entity)); // despawned, or its request removed
            continue;
        };
        if agent.queued != Some(sequence) {
            launcher.served.push((sequence, entity));
            continue;
        }
        if request.start_at_agent
            && let Some(cell) = transform.and_then(|transform| agent_cell(nav, transform))
            && cell != request.start
        {
            // Not a change of the request: its answer is still wanted.
            request.bypass_change_detection().start = cell;
        }
        let request: &PathRequest = &request;
        if !launcher.may_start(in_flight) {
            if lookups_after_caps == LOOKUPS_AFTER_CAPS {
                break;
            }
            lookups_after_caps += 1;
        }
        let mut options = request.options;
        options.trace |= debug_path || trace_all;
        let key = RequestKey::new(request, &options);
        if settings.cache_capacity > 0
            && let Some(outcome) = cache.get(&key)
        {
            stats.cache_hits += 1;
            agent.queued = None;
            launcher.served.push((sequence, entity));
            let replaced = notifier.apply(entity, &mut path, &mut agent, outcome, nav);
            launcher.retired.retire(replaced);
            continue;
        }
        if in_flight.join(&key, Subscriber { entity, sequence }) {
            stats.shared_searches += 1;
            launcher.mark_searching(entity, sequence, &mut path, &mut agent, false);
            continue;
        }
        let too_soon = agent
            .last_search
            .is_some_and(|last| now.saturating_sub(last) < settings.min_search_interval);
        if too_soon {
            set_status(&mut path, PathStatus::Queued);
            continue;
        }
        let job = SearchJob {
            start: request.start,
            goal: request.goal,
            options,
            smoothing: request.smoothing,
        };
        let repair = agent
            .cut_path
            .as_deref()
            .filter(|_| request.algorithm != PathAlgorithm::FlowField && !options.trace)
            .and_then(|old| old.repairable_for(&job));
        if batching && repair.is_none() && GoalBatches::accepts(request, &options) {
            // Started (or left queued) once the whole queue has been read.
            if !batches.add(key, job, request.algorithm, Subscriber { entity, sequence }) {
                stats.shared_searches += 1;
            }
            continue;
        }
        if !launcher.may_start(in_flight) {
            set_status(&mut path, PathStatus::Queued);
            continue;
        }
        let engine = match request.algorithm {
            _ if let Some(cells) = repair => {
                stats.paths_repaired += 1;
                Engine::Repair(cells)
            }
            PathAlgorithm::AStar | PathAlgorithm::JumpPoint => {
                search_engine(request.algorithm, nav)
            }
            PathAlgorithm::FlowField => {
                if let Err(error) = nav.grid().check_endpoints(job.start, job.goal) {
                    // No field can answer it: it fails now, as a search would.
                    let mut outcome = SearchOutcome::without_path(
                        &job,
                        PathStatus::Invalid(error),
                        PathAlgorithm::FlowField,
                    );
                    outcome.map_version = version.get();
                    let outcome = Arc::new(outcome);
                    cache.offer(key, &outcome, settings.cache_capacity);
                    agent.queued = None;
                    launcher.served.push((sequence, entity));
                    let replaced = notifier.apply(entity, &mut path, &mut agent, outcome, nav);
                    launcher.retired.retire(replaced);
                    continue;
                }
                let field_key = FieldKey::new(job.goal, options.movement, options.cost);
                match fields.request(field_key, nav, stats) {
                    FieldLookup::Ready(field) => Engine::FlowField(field),
                    FieldLookup::Pending => {
                        set_status(&mut path, PathStatus::Searching);
                        continue;
                    }
                }
            }
        };
        let member = SearchMember {
            key,
            subscribers: vec![Subscriber { entity, sequence }],
        };
        launcher.start_search(in_flight, nav, stats, member, job, engine);
        launcher.mark_searching(entity, sequence, &mut path, &mut agent, true);
    }
    for group in batches.into_groups() {
        launcher.start_group(group, in_flight, nav, stats, &mut agents);
    }
    for entry in launcher.served {
        queue.remove(entry);
    }
    stats.started_last_frame = launcher.started;
    stats.queue_length = queue.len();
    stats.in_flight = in_flight.len();
}

/// The walkable cell an agent's [`Transform`] stands on, if any.
fn agent_cell(nav: &NavGrid, transform: &Transform) -> Option<Cell> {
    nav.world_to_cell(transform.translation.truncate())
        .filter(|&cell| nav.is_walkable(cell))
}
