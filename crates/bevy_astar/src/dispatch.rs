//! Throttling and dispatch: the request queue (oldest first), the cache lookup, sharing of
//! identical searches, batching of requests for one goal, the per-frame and in-flight caps,
//! and starting background searches.

use crate::apply::PathNotifier;
use crate::cache::{PathCache, RequestKey};
use crate::debug::{DebugPath, PathDebugSettings};
use crate::flow_fields::{FieldKey, FieldLookup, FlowFields};
use crate::goal_batch::{BatchMember, GoalBatches};
use crate::in_flight::{InFlightSearch, InFlightSearches, SearchMember, Subscriber};
use crate::request::PathRequestState;
use crate::retired::RetiredOutcomes;
use crate::search_task::{Engine, SearchJob, SearchOutcome, run_goal_batch, run_search};
use crate::{
    MapVersion, NavGrid, Path, PathAlgorithm, PathRequest, PathStatus, PathfindingSettings,
    PathfindingStats,
};
use astar_grid::{Cell, Grid};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::tasks::AsyncComputeTaskPool;
use core::sync::atomic::AtomicBool;
use core::time::Duration;
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
    pub retired: ResMut<'w, RetiredOutcomes>,
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
        for &(_, entity) in &queue.entries {
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
    for &(sequence, entity) in &queue.entries {
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
        queue.entries.remove(&entry);
    }
    stats.started_last_frame = launcher.started;
    stats.queue_length = queue.len();
    stats.in_flight = in_flight.len();
}

/// The agents' components the dispatcher changes.
type AgentQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut PathRequest,
        &'static mut Path,
        &'static mut PathRequestState,
        Has<DebugPath>,
        Option<&'static Transform>,
    ),
>;

/// How an A* or jump point request is searched: jump point search where the grid allows it.
fn search_engine(algorithm: PathAlgorithm, nav: &mut NavGrid) -> Engine {
    match algorithm {
        PathAlgorithm::JumpPoint => nav.jump_grid().map_or(Engine::AStar, Engine::JumpPoint),
        _ => Engine::AStar,
    }
}

/// The walkable cell an agent's [`Transform`] stands on, if any.
fn agent_cell(nav: &NavGrid, transform: &Transform) -> Option<Cell> {
    nav.world_to_cell(transform.translation.truncate())
        .filter(|&cell| nav.is_walkable(cell))
}

/// Starts background searches within the frame's caps and records which queue entries were
/// served.
struct Launcher<'a> {
    settings: &'a PathfindingSettings,
    /// Where the outcomes agents let go of are kept, to be freed off the main thread.
    retired: &'a mut RetiredOutcomes,
    now: Duration,
    map_version: u64,
    /// Searches started this frame.
    started: u32,
    /// Queue entries to remove once the queue has been read.
    served: Vec<(u64, Entity)>,
}

impl Launcher<'_> {
    /// Whether the per-frame and in-flight caps allow another search.
    fn may_start(&self, in_flight: &InFlightSearches) -> bool {
        self.started < self.settings.max_searches_per_frame
            && in_flight.len() < self.settings.max_in_flight as usize
    }

    /// Spawns `work` on a snapshot of the grid, answering `members`.
    fn start(
        &mut self,
        in_flight: &mut InFlightSearches,
        nav: &NavGrid,
        members: Vec<SearchMember>,
        work: impl FnOnce(&Grid, &AtomicBool) -> Option<Vec<SearchOutcome>> + Send + 'static,
    ) {
        let snapshot = nav.snapshot();
        let grid = Arc::clone(&snapshot);
        let cancelled = Arc::new(AtomicBool::new(false));
        let cancel_flag = Arc::clone(&cancelled);
        let task = AsyncComputeTaskPool::get().spawn(async move {
            // The woken worker may have taken the core of the system that spawned it (a
            // thread that slept is favoured on waking): on a machine with few cores, giving
            // it back once lets the frame's systems finish before the search gets going.
            std::thread::yield_now();
            work(&grid, &cancel_flag)
        });
        in_flight.insert(InFlightSearch::new(
            task,
            cancelled,
            snapshot,
            self.map_version,
            members,
        ));
        self.started += 1;
    }

    /// Starts one search answering `member` alone.
    fn start_search(
        &mut self,
        in_flight: &mut InFlightSearches,
        nav: &NavGrid,
        stats: &mut PathfindingStats,
        member: SearchMember,
        job: SearchJob,
        engine: Engine,
    ) {
        stats.searches_started += 1;
        stats.cache_misses += 1;
        self.start(in_flight, nav, vec![member], move |grid, cancelled| {
            run_search(grid, &job, &engine, cancelled).map(|outcome| vec![outcome])
        });
    }

    /// Marks an agent as waiting for a running search; `searched` when the search was started
    /// for it (which counts for its minimum interval between searches).
    fn mark_searching(
        &mut self,
        entity: Entity,
        sequence: u64,
        path: &mut Mut<Path>,
        agent: &mut PathRequestState,
        searched: bool,
    ) {
        if searched {
            agent.last_search = Some(self.now);
            self.retired.retire(agent.cut_path.take());
        }
        agent.queued = None;
        self.retired.retire(agent.set_applied(None));
        self.served.push((sequence, entity));
        set_status(path, PathStatus::Searching);
    }

    /// Starts one gathered group of requests for a goal: as one batch when it is large enough,
    /// otherwise one search per request; whatever the caps do not allow stays queued.
    fn start_group(
        &mut self,
        group: Vec<BatchMember>,
        in_flight: &mut InFlightSearches,
        nav: &mut NavGrid,
        stats: &mut PathfindingStats,
        agents: &mut AgentQuery,
    ) {
        if group.len() >= self.settings.goal_batch_min.max(2) && self.may_start(in_flight) {
            stats.searches_started += 1;
            stats.goal_batches += 1;
            stats.batched_requests += group.len() as u64;
            stats.cache_misses += group.len() as u64;
            let jobs: Vec<SearchJob> = group.iter().map(|member| member.job).collect();
            let members = group
                .into_iter()
                .map(|member| self.searching(member.waiting, agents))
                .collect();
            self.start(in_flight, nav, members, move |grid, cancelled| {
                run_goal_batch(grid, &jobs, cancelled)
            });
            return;
        }
        for member in group {
            if !self.may_start(in_flight) {
                for subscriber in &member.waiting.subscribers {
                    if let Ok((_, mut path, ..)) = agents.get_mut(subscriber.entity) {
                        set_status(&mut path, PathStatus::Queued);
                    }
                }
                continue;
            }
            let engine = search_engine(member.algorithm, nav);
            let waiting = self.searching(member.waiting, agents);
            self.start_search(in_flight, nav, stats, waiting, member.job, engine);
        }
    }

    /// Marks every agent of `member` as searching; returns it.
    fn searching(&mut self, member: SearchMember, agents: &mut AgentQuery) -> SearchMember {
        for subscriber in &member.subscribers {
            if let Ok((_, mut path, mut agent, ..)) = agents.get_mut(subscriber.entity) {
                self.mark_searching(
                    subscriber.entity,
                    subscriber.sequence,
                    &mut path,
                    &mut agent,
                    true,
                );
            }
        }
        member
    }
}

/// Sets the status without marking the path changed when it already has it.
pub(crate) fn set_status(path: &mut Mut<Path>, status: PathStatus) {
    if path.status != status {
        path.status = status;
    }
}
