//! Throttling and dispatch: the request queue (oldest first), the cache lookup, sharing of
//! identical searches, the per-frame and in-flight caps, and starting background searches.

use crate::apply::PathNotifier;
use crate::cache::{PathCache, RequestKey};
use crate::debug::{DebugPath, PathDebugSettings};
use crate::flow_fields::{FieldKey, FieldLookup, FlowFields};
use crate::request::PathRequestState;
use crate::search_task::{Engine, SearchJob, SearchOutcome, run_search};
use crate::{
    MapChange, MapVersion, NavGrid, Path, PathAlgorithm, PathRequest, PathStatus,
    PathfindingSettings, PathfindingStats,
};
use astar_grid::Grid;
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use core::sync::atomic::AtomicBool;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Once the per-frame or in-flight cap is reached, how many more queued requests one frame
/// looks at for a cached result or a running search to join: the dispatcher's cost per frame
/// stays bounded however long the queue grows, and later requests get their turn as the queue
/// moves.
const LOOKUPS_AFTER_CAPS: usize = 512;

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
        if let Some(previous) = state.queued {
            self.entries.remove(&(previous, entity));
        }
        state.queued = Some(sequence);
        self.entries.insert((sequence, entity));
    }

    /// Number of queued agents.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// An agent waiting for a running search.
pub(crate) struct Subscriber {
    pub entity: Entity,
    /// Its place in the queue, kept if the search must be redone.
    pub sequence: u64,
}

/// A search running in the background.
pub(crate) struct InFlightSearch {
    /// The search; `None` when it gave up because [`InFlightSearch::cancelled`] was set.
    pub task: Task<Option<SearchOutcome>>,
    /// Set when no agent wants the result any more, so that a long search stops early.
    pub cancelled: Arc<AtomicBool>,
    /// The grid it searches; kept so that edits copy the grid instead of changing it.
    pub snapshot: Arc<Grid>,
    /// The map version of the snapshot.
    pub map_version: u64,
    /// Map changes published since it started.
    pub changes: Vec<Arc<MapChange>>,
    /// The agents that want its result.
    pub subscribers: Vec<Subscriber>,
}

/// Running searches, at most one per request key.
#[derive(Resource, Default)]
pub(crate) struct InFlightSearches {
    pub searches: HashMap<RequestKey, InFlightSearch>,
}

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

/// The bookkeeping that dispatching and collecting results change.
#[derive(SystemParam)]
pub(crate) struct SearchBookkeeping<'w> {
    pub queue: ResMut<'w, RequestQueue>,
    pub cache: ResMut<'w, PathCache>,
    pub in_flight: ResMut<'w, InFlightSearches>,
    pub stats: ResMut<'w, PathfindingStats>,
}

/// Serves queued requests oldest first: from the cache, by joining an identical running search,
/// or by starting a search while the per-frame and in-flight caps allow.
pub(crate) fn dispatch_searches(
    context: DispatchContext,
    mut bookkeeping: SearchBookkeeping,
    mut agents: Query<(
        &PathRequest,
        &mut Path,
        &mut PathRequestState,
        Has<DebugPath>,
    )>,
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
    } = &mut bookkeeping;
    let now = time.elapsed();
    let trace_all = debug.is_some_and(|debug| debug.trace_all_agents);
    let max_in_flight = settings.max_in_flight as usize;
    let mut started = 0;
    let mut lookups_after_caps = 0;
    let mut served = Vec::new();
    for &(sequence, entity) in &queue.entries {
        let Ok((request, mut path, mut agent, debug_path)) = agents.get_mut(entity) else {
            served.push((sequence, entity)); // despawned, or its request removed
            continue;
        };
        if agent.queued != Some(sequence) {
            served.push((sequence, entity));
            continue;
        }
        // Only derived data (the jump point grid) is built through this borrow.
        let Some(nav) = nav.as_mut().map(DetectChangesMut::bypass_change_detection) else {
            set_status(&mut path, PathStatus::WaitingForMap);
            continue;
        };
        if started >= settings.max_searches_per_frame || in_flight.searches.len() >= max_in_flight {
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
            served.push((sequence, entity));
            notifier.apply(entity, &mut path, &mut agent, outcome, nav);
            continue;
        }
        if let Some(search) = in_flight.searches.get_mut(&key) {
            if search
                .subscribers
                .iter()
                .all(|other| other.entity != entity)
            {
                search.subscribers.push(Subscriber { entity, sequence });
            }
            stats.shared_searches += 1;
            agent.queued = None;
            agent.applied = None;
            served.push((sequence, entity));
            set_status(&mut path, PathStatus::Searching);
            continue;
        }
        let too_soon = agent
            .last_search
            .is_some_and(|last| now.saturating_sub(last) < settings.min_search_interval);
        if too_soon
            || started >= settings.max_searches_per_frame
            || in_flight.searches.len() >= max_in_flight
        {
            set_status(&mut path, PathStatus::Queued);
            continue;
        }
        let job = SearchJob {
            start: request.start,
            goal: request.goal,
            options,
            smoothing: request.smoothing,
        };
        let cut_path = agent.cut_path.take();
        let repair = cut_path
            .as_deref()
            .filter(|_| request.algorithm != PathAlgorithm::FlowField && !options.trace)
            .and_then(|old| old.repairable_for(&job));
        let engine = match request.algorithm {
            _ if let Some(cells) = repair => {
                stats.paths_repaired += 1;
                Engine::Repair(cells)
            }
            PathAlgorithm::AStar => Engine::AStar,
            PathAlgorithm::JumpPoint => nav.jump_grid().map_or(Engine::AStar, Engine::JumpPoint),
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
                    if settings.cache_capacity > 0 {
                        cache.insert(key, Arc::clone(&outcome), settings.cache_capacity);
                    }
                    agent.queued = None;
                    served.push((sequence, entity));
                    notifier.apply(entity, &mut path, &mut agent, outcome, nav);
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
        let snapshot = nav.snapshot();
        let grid = Arc::clone(&snapshot);
        let cancelled = Arc::new(AtomicBool::new(false));
        let cancel_flag = Arc::clone(&cancelled);
        let task = AsyncComputeTaskPool::get()
            .spawn(async move { run_search(&grid, &job, &engine, &cancel_flag) });
        in_flight.searches.insert(
            key,
            InFlightSearch {
                task,
                cancelled,
                snapshot,
                map_version: version.get(),
                changes: Vec::new(),
                subscribers: vec![Subscriber { entity, sequence }],
            },
        );
        started += 1;
        stats.searches_started += 1;
        stats.cache_misses += 1;
        agent.last_search = Some(now);
        agent.queued = None;
        agent.applied = None;
        served.push((sequence, entity));
        set_status(&mut path, PathStatus::Searching);
    }
    for entry in served {
        queue.entries.remove(&entry);
    }
    stats.started_last_frame = started;
    stats.queue_length = queue.len();
    stats.in_flight = in_flight.searches.len();
}

/// Sets the status without marking the path changed when it already has it.
pub(crate) fn set_status(path: &mut Mut<Path>, status: PathStatus) {
    if path.status != status {
        path.status = status;
    }
}
