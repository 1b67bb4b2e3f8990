//! The Dispatch stage's systems: queue the agents whose request changed, then serve the queue
//! oldest first: the cache lookup, sharing of identical searches, batching of requests for one
//! goal, the per-frame and in-flight caps, and starting background searches.

use super::launcher::{AgentQuery, Launcher};
use super::route::{QueuedRequest, Route, RouteContext, route};
use crate::background::MainThreadWork;
use crate::budget::StageClock;
use crate::cache::{PathCache, RequestKey};
use crate::engine::first_cells::FirstCells;
use crate::engine::flow_field::field_result;
use crate::engine::flow_field::{
    FieldContext, FieldKey, FieldLookup, FlowFields, TreeLookup, options_of_a_field,
};
use crate::engine::goal_batch::{
    BatchGroup, BatchMember, GoalBatches, KeptGoalSearches, MOST_FRAMES_HELD, hierarchical_job,
};
use crate::engine::hierarchical::Hierarchies;
use crate::engine::jump_point::JumpPoints;
use crate::engine::sector_field::KeptSectorFields;
use crate::engine::{SearchEngine, outcome_of};
use crate::goal_tree::{PublishedTree, SharedRoute, SharedTree};
use crate::in_flight::{InFlightSearches, SearchMember, Subscriber};
use crate::kinds::{KindError, KindKey};
use crate::map::AgentLayers;
use crate::outcome::{PathNotifier, RetiredOutcomes};
use crate::outcome::{ReadyOutcome, SearchJob, SearchOutcome};
use crate::queue::{RequestQueue, SearchBookkeeping, set_status};
use crate::request::PathRequestState;
use crate::trace::PathDebugSettings;
use crate::{
    NavGrid, NavVersion, Path, PathAlgorithm, PathRequest, PathStatus, PathfindingSettings,
    PathfindingStats, TerrainProfiles,
};
use astar_grid::{AgentGrid, Cell, Grid, Hierarchy};
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use core::time::Duration;
use std::sync::Arc;

/// Once the per-frame or in-flight cap is reached, how many more queued requests one frame
/// looks at for a cached result or a running search to join: the dispatcher's cost per frame
/// stays bounded however long the queue grows, and later requests get their turn as the queue
/// moves.
const LOOKUPS_AFTER_CAPS: usize = 512;

/// What dispatch learns of its own pace, across frames: the time its work after reading the
/// queue (starting the gathered goal batches, removing the served entries) takes per entry
/// served or request started, set aside from the budget for each entry read, so that the whole
/// stage keeps within [`PathfindingSettings::stage_budget`].
#[derive(Default)]
pub(crate) struct DispatchPace {
    /// A running average over recent frames.
    after_reading_per_entry: Duration,
}

impl DispatchPace {
    /// Takes in a frame whose work after reading took `time` for `entries` served or started.
    fn record(&mut self, time: Duration, entries: usize) {
        let Ok(entries) = u32::try_from(entries) else {
            return;
        };
        if entries > 0 {
            self.after_reading_per_entry = (self.after_reading_per_entry * 3 + time / entries) / 4;
        }
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

/// The resources the dispatcher reads, besides the [`NavGrid`].
#[derive(SystemParam)]
pub(crate) struct DispatchContext<'w> {
    settings: Res<'w, PathfindingSettings>,
    time: Res<'w, Time>,
    version: Res<'w, NavVersion>,
    debug: Option<Res<'w, PathDebugSettings>>,
    fields: ResMut<'w, FlowFields>,
    jump_points: ResMut<'w, JumpPoints>,
    hierarchies: ResMut<'w, Hierarchies>,
    profiles: Res<'w, TerrainProfiles>,
    layers: ResMut<'w, AgentLayers>,
    batches: ResMut<'w, GoalBatches>,
    kept: ResMut<'w, KeptGoalSearches>,
    sector_fields: ResMut<'w, KeptSectorFields>,
    work: Res<'w, MainThreadWork>,
}

/// Serves queued requests oldest first, each where [`route`] sends it: from the cache, by
/// joining an identical running search, by a batch of requests for one goal (started once the
/// whole queue is read, counted as one search against the caps), or by a new search while the
/// per-frame and in-flight caps allow; within [`PathfindingSettings::stage_budget`], setting
/// aside for each entry read the time the work after reading takes ([`DispatchPace`]).
pub(crate) fn dispatch_searches(
    nav: Option<Res<NavGrid>>,
    mut context: DispatchContext,
    mut bookkeeping: SearchBookkeeping,
    mut agents: AgentQuery,
    notifier: PathNotifier,
    mut pace: Local<DispatchPace>,
) {
    let SearchBookkeeping {
        queue,
        cache,
        in_flight,
        stats,
        retired,
    } = &mut bookkeeping;
    let Some(nav) = nav.as_deref() else {
        wait_for_map(queue, &mut agents);
        stats.started_last_frame = 0;
        stats.queue_length = queue.len();
        return;
    };
    let mut dispatcher = Dispatcher::new(
        nav,
        &mut context,
        (cache, in_flight, stats, retired),
        notifier,
    );
    let mut clock = StageClock::start(dispatcher.launcher.settings.stage_budget);
    let looked_at = dispatcher.read_queue(queue, &mut agents, &mut clock, &pace);
    let upstream_busy = dispatcher.upstream_busy(&clock);
    let after_reading = Instant::now();
    let started = dispatcher.start_batches(upstream_busy, &mut agents);
    let unread = if clock.was_spent() {
        queue.len().saturating_sub(looked_at)
    } else {
        0
    };
    let served = dispatcher.close_frame(queue, &mut agents, unread);
    pace.record(after_reading.elapsed(), served + started);
}

/// Whether `group`, hierarchical, waits for its goal's sector routes to be patched for the
/// grid it is searched on ([`KeptSectorFields::awaits_patch`]), to be served on them.
///
/// The goal's lookup comes first: a goal awaiting a patch is rare, while the scan of the
/// group's members for one that is not hierarchical would cost every group every frame.
fn awaits_sector_patch(sector_fields: &KeptSectorFields, group: &BatchGroup) -> bool {
    let (Some(key), Some(first)) = (group.key(), group.members.first()) else {
        return false;
    };
    sector_fields.awaits_patch(&key, &first.grid) && hierarchical_job(&group.members).is_some()
}

/// Puts the agents of gathered requests that the caps did not let start back in the queue, in
/// their old places, unless they were queued again meanwhile.
fn requeue_denied(denied: Vec<BatchMember>, queue: &mut RequestQueue, agents: &mut AgentQuery) {
    for subscriber in denied
        .into_iter()
        .flat_map(|member| member.waiting.subscribers)
    {
        if let Ok((_, mut path, mut state, ..)) = agents.get_mut(subscriber.entity)
            && state.queued.is_none()
        {
            queue.requeue(subscriber.entity, subscriber.sequence, &mut state);
            set_status(&mut path, PathStatus::Queued);
        }
    }
}

/// Marks every queued agent as waiting for a [`NavGrid`].
fn wait_for_map(queue: &RequestQueue, agents: &mut AgentQuery) {
    for (_, entity) in queue.iter() {
        if let Ok((_, mut path, ..)) = agents.get_mut(entity) {
            set_status(&mut path, PathStatus::WaitingForMap);
        }
    }
}

/// One frame's dispatch: everything serving a queued request changes.
struct Dispatcher<'a, 'w, 's> {
    launcher: Launcher<'a>,
    nav: &'a NavGrid,
    cache: &'a mut PathCache,
    in_flight: &'a mut InFlightSearches,
    stats: &'a mut PathfindingStats,
    fields: &'a mut FlowFields,
    jump_points: &'a mut JumpPoints,
    hierarchies: &'a mut Hierarchies,
    profiles: &'a TerrainProfiles,
    layers: &'a mut AgentLayers,
    notifier: PathNotifier<'w, 's>,
    batches: &'a mut GoalBatches,
    kept: &'a mut KeptGoalSearches,
    sector_fields: &'a mut KeptSectorFields,
    /// Gathered requests the caps did not let start this frame.
    denied: Vec<BatchMember>,
    /// Paths that may still be written this frame from goals' shared trees
    /// ([`PathfindingSettings::max_paths_applied_per_frame`]).
    paths_left: u32,
    /// Whether the debug overlay traces every agent.
    trace_all: bool,
    /// Requests whose first cells were looked for this frame, on the main thread.
    first_cells_sought: u32,
}

/// The bookkeeping the dispatcher changes besides the queue: the result cache, the searches
/// in flight, the statistics, and the outcomes to be freed off the main thread.
type DispatchLedger<'a> = (
    &'a mut PathCache,
    &'a mut InFlightSearches,
    &'a mut PathfindingStats,
    &'a mut RetiredOutcomes,
);

impl<'a, 'w, 's> Dispatcher<'a, 'w, 's> {
    /// This frame's dispatch on `nav`, with the resources of `context` and the bookkeeping of
    /// `ledger`, announcing answers through `notifier`.
    fn new(
        nav: &'a NavGrid,
        context: &'a mut DispatchContext<'_>,
        (cache, in_flight, stats, retired): DispatchLedger<'a>,
        notifier: PathNotifier<'w, 's>,
    ) -> Self {
        let DispatchContext {
            settings,
            time,
            version,
            debug,
            fields,
            jump_points,
            hierarchies,
            profiles,
            layers,
            batches,
            kept,
            sector_fields,
            work,
        } = context;
        Self {
            launcher: Launcher::new(
                (settings, work),
                retired,
                time.elapsed(),
                (nav, **version, profiles),
            ),
            nav,
            cache,
            in_flight,
            stats,
            fields,
            jump_points,
            hierarchies,
            profiles,
            layers,
            notifier,
            batches,
            kept,
            sector_fields,
            denied: Vec::new(),
            paths_left: settings.max_paths_applied_per_frame.max(1),
            trace_all: debug.as_deref().is_some_and(|debug| debug.trace_all_agents),
            first_cells_sought: 0,
        }
    }
}

impl Dispatcher<'_, '_, '_> {
    /// Whether agents are still on their way to Dispatch: the reading of the queue spent the
    /// frame's `clock`, or Invalidate carried scans or invalidations over.
    fn upstream_busy(&self, clock: &StageClock) -> bool {
        clock.was_spent()
            || self.stats.carried_over.scans > 0
            || self.stats.carried_over.invalidations > 0
    }

    /// Serves the queue oldest first until the clock is spent, or the caps are reached and
    /// [`LOOKUPS_AFTER_CAPS`] more entries were looked at; returns how many entries it read.
    fn read_queue(
        &mut self,
        queue: &RequestQueue,
        agents: &mut AgentQuery,
        clock: &mut StageClock,
        pace: &DispatchPace,
    ) -> usize {
        let mut lookups_after_caps = 0;
        let mut looked_at = 0;
        for (sequence, entity) in queue.iter() {
            let capped = !self.launcher.may_start(self.in_flight);
            if (capped && lookups_after_caps == LOOKUPS_AFTER_CAPS) || clock.is_spent() {
                break;
            }
            looked_at += 1;
            clock.reserve(pace.after_reading_per_entry);
            let sought = self.first_cells_sought;
            // Stale entries are dropped without counting as a lookup.
            if self.serve(Subscriber { entity, sequence }, agents) && capped {
                lookups_after_caps += 1;
            }
            if self.first_cells_sought != sought {
                // First cells take tens of microseconds: the clock is read after each.
                let _ = clock.is_over();
            }
        }
        looked_at
    }

    /// Ends the frame's dispatch: the served entries leave the queue, the denied ones go back,
    /// and the statistics say what is left (`unread`: the entries the clock, not the caps,
    /// left unread). Returns how many entries were served.
    fn close_frame(
        self,
        queue: &mut RequestQueue,
        agents: &mut AgentQuery,
        unread: usize,
    ) -> usize {
        let Self {
            launcher,
            in_flight,
            stats,
            batches,
            denied,
            ..
        } = self;
        stats.carried_over.batched = batches.len();
        stats.started_last_frame = launcher.started;
        stats.carried_over.dispatches = unread;
        let served = launcher.served.len();
        for entry in launcher.served {
            queue.remove(entry);
        }
        requeue_denied(denied, queue, agents);
        stats.queue_length = queue.len();
        stats.in_flight = in_flight.len();
        served
    }

    /// Serves the queue entry `waiting`: drops it when stale (the agent was despawned or queued
    /// again), else routes the request and carries the route out; returns whether the entry
    /// was a live request.
    fn serve(&mut self, waiting: Subscriber, agents: &mut AgentQuery) -> bool {
        let Subscriber { entity, sequence } = waiting;
        let Ok((mut request, mut path, mut agent, debug_path, transform)) = agents.get_mut(entity)
        else {
            self.launcher.served.push((sequence, entity)); // despawned, or its request removed
            return false;
        };
        if agent.queued != Some(sequence) {
            self.launcher.served.push((sequence, entity));
            return false;
        }
        let (grid, kind_fit) = self.kind_grid(&mut request, transform);
        let mut options = request.options;
        options.trace |= debug_path || self.trace_all;
        let job = SearchJob::of(&request, options);
        let key = RequestKey::of(&job);
        let hierarchy = self.first_cells_hierarchy(&request, &job);
        let mut queued = QueuedRequest {
            job,
            last_search: agent.last_search,
            cut_path: agent.cut_path.as_deref(),
            cached: self.cache.contains(&key),
            running: self.in_flight.is_running(&key),
            kind_fit,
            first_cells: hierarchy.is_some(),
        };
        let context = RouteContext {
            settings: self.launcher.settings,
            grid: &grid,
            now: self.launcher.now,
            may_start: self.launcher.may_start(self.in_flight),
        };
        let mut chosen = route(&context, &queued);
        let mut first = None;
        if let (Some(hierarchy), Route::Start(job, SearchEngine::Hierarchical(None))) =
            (hierarchy, &chosen)
        {
            self.first_cells_sought += 1;
            first = FirstCells::find(&grid, &hierarchy, job).map(|cells| (hierarchy, cells));
            if first.is_none() {
                // Searched as without first cells: in its goal's batch, where it may join one.
                queued.first_cells = false;
                chosen = route(&context, &queued);
            }
        }
        let mut target = Target {
            waiting,
            key,
            grid,
            algorithm: request.algorithm,
            first,
            path: &mut path,
            agent: &mut agent,
        };
        self.carry_out(chosen, &mut target);
        true
    }

    /// The hierarchy over which `request`, asking `job`, may be shown its first cells when it
    /// starts a search: it asks for them ([`PathRequest::first_cells_fast`]), hierarchically,
    /// for the default kind, and its hierarchy has been built whole and is not mostly marked
    /// by map changes.
    fn first_cells_hierarchy(
        &mut self,
        request: &PathRequest,
        job: &SearchJob,
    ) -> Option<Arc<Hierarchy>> {
        let asks = request.first_cells_fast
            && request.algorithm == PathAlgorithm::Hierarchical
            && job.kind.is_default();
        if !asks {
            return None;
        }
        self.hierarchies.for_first_cells(self.nav, &job.options)
    }

    /// The grid `request`'s agent kind searches now (the navigation grid when the kind cannot
    /// be searched), with the request's start moved to the agent where it asks for that, and
    /// whether the kind can be searched and its footprint fits at the endpoints.
    fn kind_grid(
        &mut self,
        request: &mut Mut<PathRequest>,
        transform: Option<&Transform>,
    ) -> (Arc<Grid>, Result<(), KindError>) {
        let kind = KindKey::of(request);
        let nav = self.nav;
        match self.layers.grid_for(kind, nav, self.profiles) {
            Ok(grid) => {
                start_at_agent(request, nav, &grid.snapshot, transform);
                let fit = grid
                    .agent
                    .map_or(Ok(()), |agent| footprint_fit(agent, request));
                (grid.snapshot, fit)
            }
            Err(error) => {
                let snapshot = nav.snapshot();
                start_at_agent(request, nav, &snapshot, transform);
                (snapshot, Err(error))
            }
        }
    }

    /// Carries out `route` for the agent of `target`.
    fn carry_out(&mut self, route: Route, target: &mut Target) {
        let Subscriber { entity, sequence } = target.waiting;
        match route {
            Route::FromCache => {
                if let Some(outcome) = self.cache.get(&target.key) {
                    self.stats.cache_hits += 1;
                    self.answer_now(target, outcome);
                }
            }
            Route::JoinRunning if self.in_flight.join(&target.key, target.waiting) => {
                self.stats.shared_searches += 1;
                let (path, agent) = (&mut *target.path, &mut *target.agent);
                self.launcher
                    .mark_searching(entity, sequence, path, agent, false);
            }
            Route::JoinRunning | Route::Wait => set_status(target.path, PathStatus::Queued),
            Route::JoinBatch(job, alone) => {
                let capacity = self.launcher.settings.cache_capacity;
                self.cache.note_miss(&target.key, capacity);
                let grid = Arc::clone(&target.grid);
                if !self
                    .batches
                    .add(target.key, job, alone, grid, target.waiting)
                {
                    self.stats.shared_searches += 1;
                }
                let (path, agent) = (&mut *target.path, &mut *target.agent);
                self.launcher
                    .mark_searching(entity, sequence, path, agent, true);
            }
            Route::FailNow(job, status) => {
                let mut outcome = SearchOutcome::without_path(&job, status, target.algorithm);
                // A bad kind depends on the profiles and the map size, not on the cells: it is
                // checked again rather than served from the cache.
                outcome.cacheable = !matches!(status, PathStatus::InvalidKind(_));
                outcome.map_version = self.launcher.map_version;
                let outcome = Arc::new(outcome);
                let capacity = self.launcher.settings.cache_capacity;
                self.cache.offer(target.key, &outcome, capacity);
                self.answer_now(target, outcome);
            }
            Route::Start(job, choice) => self.start(target, job, choice),
        }
    }

    /// Starts the gathered goal batches, or holds a group of two requests or more back for up
    /// to [`MOST_FRAMES_HELD`] frames while the stages before still send agents
    /// (`upstream_busy`), so that one Dijkstra answers them all. A group held back is started
    /// on its kind's grid as it is then, for the members still wanted; the members the caps do
    /// not let start go to `denied`, to be queued again. Returns how many members it started or
    /// denied.
    fn start_batches(&mut self, upstream_busy: bool, agents: &mut AgentQuery) -> usize {
        let mut handled = 0;
        let trees = self.request_trees();
        handled += self.serve_settled(&trees, agents);
        // A crowd for one goal (two requests or more) waits for the rest of it, while the caps
        // would let it start; a goal whose shared tree is being built waits for the tree, and
        // one whose sector routes are being patched for the group's grid waits for the patch.
        let may_start = self.launcher.may_start(self.in_flight);
        let sector_fields = &*self.sector_fields;
        let groups = self.batches.take_groups(|group| {
            let tree = (!trees.is_empty())
                .then(|| group.key().and_then(|key| trees.get(&key)))
                .flatten();
            matches!(tree, Some(TreeLookup::Pending(_)))
                || awaits_sector_patch(sector_fields, group)
                || (tree.is_none()
                    && may_start
                    && upstream_busy
                    && group.frames_held < MOST_FRAMES_HELD
                    && group.members.len() > 1)
        });
        for group in groups {
            let tree = (!trees.is_empty())
                .then(|| group.key().and_then(|key| trees.get(&key)))
                .flatten();
            if let Some(TreeLookup::Ready(tree)) = tree {
                handled += self.serve_on_tree(group.members, tree, agents);
                continue;
            }
            let BatchGroup {
                mut members,
                frames_held,
                ..
            } = group;
            handled += members.len();
            self.serve_on_sector_routes(&mut members, agents);
            if members.is_empty() {
                self.batches.recycle(members);
                continue;
            }
            if !self.launcher.may_start(self.in_flight) {
                self.denied.append(&mut members);
                self.batches.recycle(members);
                continue;
            }
            if frames_held > 0 {
                self.refresh_held(&mut members, agents);
            }
            let left = self.launcher.start_group(
                &mut members,
                (self.in_flight, self.kept, self.sector_fields),
                self.nav,
                (&mut *self.jump_points, &mut *self.hierarchies),
                self.stats,
            );
            self.denied.extend(left);
            self.batches.recycle(members);
        }
        handled
    }

    /// The shared trees of the gathered goals that share one: those with
    /// [`PathfindingSettings::shared_goal_min_agents`] agents or more waiting, and those whose
    /// tree agents already hold routes on; each is asked for (a build or update starts where
    /// needed). Goals of a kind that cannot be searched are left to the batches.
    fn request_trees(&mut self) -> HashMap<FieldKey, TreeLookup> {
        let mut trees = HashMap::new();
        let settings = self.launcher.settings;
        if settings.shared_goal_min_agents == 0 {
            return trees;
        }
        let context = FieldContext {
            nav: self.nav,
            version: self.launcher.map_version,
            placement: self.launcher.placement,
            capacity: settings.max_flow_fields,
        };
        let min = settings.shared_goal_min_agents;
        // Goals are looked up only where a tree or a count could make them share: with many
        // goals of a few agents each, a frame's thousands of groups cost a comparison each.
        let (serving, counted) = (self.fields.serves_any(), self.fields.counted_any(min));
        let mut too_few = false;
        let sharing: Vec<FieldKey> = self
            .batches
            .groups()
            .filter_map(|group| {
                // A hierarchical crowd whose hierarchy has been built whole shares its goal's
                // sector field instead, which measures only the sectors it crosses.
                let on_sector_field = hierarchical_job(&group.members).is_some_and(|job| {
                    self.hierarchies
                        .for_fields(self.nav, &job.options)
                        .is_some()
                });
                if on_sector_field {
                    return None;
                }
                let key = group.key()?;
                let shares = group.agents() >= min
                    || (serving && self.fields.serves_routes(&key))
                    || (counted && self.fields.agents_for(&key) >= min);
                too_few |= !shares;
                shares.then_some(key)
            })
            .collect();
        if too_few {
            self.fields.want_count();
        }
        for key in sharing {
            let Ok(grid) = self.layers.grid_for(key.kind(), self.nav, self.profiles) else {
                continue;
            };
            let grid = Arc::clone(&grid.snapshot);
            let lookup = self.fields.request_tree(key, &grid, context, self.stats);
            trees.insert(key, lookup);
        }
        trees
    }

    /// Gives the agents of the groups whose tree is still being built, and whose start the part
    /// it has settled reaches (the cells nearest the goal), their routes on it now, oldest
    /// first within the frame's paths; the rest of each group waits for the whole tree.
    /// Returns how many it served.
    fn serve_settled(
        &mut self,
        trees: &HashMap<FieldKey, TreeLookup>,
        agents: &mut AgentQuery,
    ) -> usize {
        if !trees
            .values()
            .any(|tree| matches!(tree, TreeLookup::Pending(_)))
        {
            return 0;
        }
        let mut settled = Vec::new();
        let mut room = self.paths_left as usize;
        for group in self.batches.groups_mut() {
            let Some(TreeLookup::Pending(tree)) = group.key().and_then(|key| trees.get(&key))
            else {
                continue;
            };
            let Some(published) = tree.current() else {
                continue;
            };
            for member in &mut group.members {
                if room == 0 {
                    break;
                }
                let reached = published.tree.cost_at(member.job.start).is_some();
                if reached && !member.waiting.subscribers.is_empty() {
                    room = room.saturating_sub(member.waiting.subscribers.len());
                    let subscribers = core::mem::take(&mut member.waiting.subscribers);
                    let waiting = SearchMember {
                        key: member.waiting.key,
                        subscribers,
                    };
                    settled.push((waiting, member.job, Arc::clone(tree)));
                }
            }
        }
        let mut served = 0;
        for (waiting, job, tree) in settled {
            served += self.serve_member(&waiting, &job, &tree, agents);
        }
        served
    }

    /// Gives every agent of `members` that still waits for its answer a route on the goal's
    /// shared `tree` (a path of its own, read off the tree, to one the tree does not reach),
    /// within [`PathfindingSettings::max_paths_applied_per_frame`]
    /// paths a frame (the members past it are queued again); returns how many it served.
    fn serve_on_tree(
        &mut self,
        members: Vec<BatchMember>,
        tree: &Arc<SharedTree>,
        agents: &mut AgentQuery,
    ) -> usize {
        if tree.current().is_none() {
            self.denied.extend(members);
            return 0;
        }
        let mut served = 0;
        let mut members = members.into_iter();
        for member in members.by_ref() {
            if self.paths_left == 0 {
                self.denied.push(member);
                break;
            }
            served += self.serve_member(&member.waiting, &member.job, tree, agents);
        }
        self.denied.extend(members);
        served
    }

    /// Gives the members of a hierarchical group whose start the goal's sector routes answer,
    /// on the grid they are to be searched on, a route on them now, without a batch, within
    /// the frame's paths; leaves the others in `members`.
    fn serve_on_sector_routes(&mut self, members: &mut Vec<BatchMember>, agents: &mut AgentQuery) {
        let Some(job) = hierarchical_job(members) else {
            return;
        };
        let Some(tree) = self.sector_fields.routes_for(&FieldKey::of_job(&job)) else {
            return;
        };
        let Some(published) = tree.current() else {
            return;
        };
        members.retain(|member| {
            let answered = self.paths_left > 0
                && Arc::ptr_eq(&published.grid, &member.grid)
                && published.tree.cost_at(member.job.start).is_some();
            if answered {
                self.serve_member(&member.waiting, &member.job, &tree, agents);
            }
            !answered
        });
    }

    /// Gives each agent of `waiting` that still waits for its answer a route on `tree` (or a
    /// path of its own read off it); returns how many it served.
    fn serve_member(
        &mut self,
        waiting: &SearchMember,
        job: &SearchJob,
        tree: &Arc<SharedTree>,
        agents: &mut AgentQuery,
    ) -> usize {
        let Some(published) = tree.current() else {
            return 0;
        };
        let mut served = 0;
        for subscriber in &waiting.subscribers {
            let entity = subscriber.entity;
            let Ok((request, mut path, mut state, ..)) = agents.get_mut(entity) else {
                continue;
            };
            if !waiting.key.matches(&request) || !state.awaits(subscriber.sequence) {
                self.stats.superseded_results_dropped += 1;
                continue;
            }
            if let Some(queued) = state.queued.take() {
                self.launcher.served.push((queued, entity));
            }
            let agent = (entity, &mut *path, &mut *state);
            self.show_on_tree(agent, job, (tree, &published));
            self.paths_left = self.paths_left.saturating_sub(1);
            served += 1;
        }
        served
    }

    /// Shows `job`'s answer on a goal's shared tree in the agent's path: a route on the tree
    /// (an avoiding agent's too: the crowd reads its waypoints off the tree beside the frame),
    /// or, for a start the tree does not reach, the path (or none) read off it as a result of
    /// its own.
    fn show_on_tree(
        &mut self,
        agent: (Entity, &mut Path, &mut PathRequestState),
        job: &SearchJob,
        (tree, published): (&Arc<SharedTree>, &PublishedTree),
    ) {
        let retired = &mut *self.launcher.retired;
        if published.tree.cost_at(job.start).is_some() {
            self.stats.shared_routes += 1;
            let route = SharedRoute {
                tree: Arc::clone(tree),
                start: job.start,
                smoothing: job.smoothing,
                movement: job.options.movement,
            };
            let made = (published.map_version, published.tree.algorithm());
            self.notifier.show_route(agent, route, made, retired);
            return;
        }
        let path = published.tree.path_from(&published.grid, job.start);
        let result = field_result(path);
        let algorithm = published.tree.algorithm();
        let mut outcome = outcome_of(job, &published.grid, Ok(result), algorithm);
        outcome.map_version = published.map_version;
        let ready = ReadyOutcome::new(Arc::new(outcome));
        let (entity, path, state) = agent;
        self.notifier
            .apply((entity, &mut *path, state), ready, self.nav, retired);
    }

    /// Readies a group held back from earlier frames: keeps the members still wanted, on their
    /// kind's grid as it is now.
    fn refresh_held(&mut self, members: &mut Vec<BatchMember>, agents: &AgentQuery) {
        members.retain(|member| {
            member
                .waiting
                .is_wanted(|entity| agents.get(entity).ok().map(|(request, ..)| *request))
        });
        let kind = members.first().map(|member| member.job.kind);
        if let Some(Ok(grid)) = kind.map(|kind| self.layers.grid_for(kind, self.nav, self.profiles))
        {
            for member in members {
                member.grid = Arc::clone(&grid.snapshot);
            }
        }
    }

    /// Applies `outcome` to the agent now and takes it out of the queue.
    fn answer_now(&mut self, target: &mut Target, outcome: Arc<SearchOutcome>) {
        let Subscriber { entity, sequence } = target.waiting;
        target.agent.queued = None;
        self.launcher.served.push((sequence, entity));
        self.notifier.apply(
            (entity, target.path, target.agent),
            ReadyOutcome::new(outcome),
            self.nav,
            self.launcher.retired,
        );
    }

    /// Starts a search of `job` with the engine `choice`, prepared with the data it runs on; a
    /// flow-field request whose field is still being built stays queued.
    fn start(&mut self, target: &mut Target, mut job: SearchJob, choice: SearchEngine) {
        let engine = match choice {
            SearchEngine::Repair(cells) => {
                self.stats.paths_repaired += 1;
                SearchEngine::Repair(cells)
            }
            SearchEngine::JumpPoint(None) => self.jump_points.engine_for(self.nav),
            SearchEngine::Hierarchical(None) => match target.first.take() {
                Some((hierarchy, first)) => {
                    self.show_first_cells(target, &first, job.kind.size);
                    SearchEngine::HierarchicalRest(hierarchy, Arc::new(first))
                }
                None => self.hierarchies.engine_for(self.nav, &job.options),
            },
            SearchEngine::FlowField(None) => {
                let field_key = FieldKey::of_job(&job);
                let capacity = self.launcher.settings.max_flow_fields;
                let context = FieldContext {
                    nav: self.nav,
                    version: self.launcher.map_version,
                    placement: self.launcher.placement,
                    capacity,
                };
                match self
                    .fields
                    .request(field_key, &target.grid, context, self.stats)
                {
                    FieldLookup::Ready(field) => SearchEngine::FlowField(Some(field)),
                    FieldLookup::Pending => {
                        set_status(target.path, PathStatus::Searching);
                        return;
                    }
                    FieldLookup::Full => {
                        job.options = options_of_a_field(job.options);
                        SearchEngine::AStar
                    }
                }
            }
            prepared => prepared,
        };
        let capacity = self.launcher.settings.cache_capacity;
        self.cache.note_miss(&target.key, capacity);
        let Subscriber { entity, sequence } = target.waiting;
        let member = SearchMember {
            key: target.key,
            subscribers: vec![target.waiting],
        };
        self.launcher.start_search(
            self.in_flight,
            Arc::clone(&target.grid),
            self.stats,
            member,
            job,
            engine,
        );
        self.launcher
            .mark_searching(entity, sequence, target.path, target.agent, true);
    }

    /// Shows the agent of `target`, of footprint side `size`, the `first` cells of its path,
    /// unless its path shows them already (its search was dropped and has started again): the
    /// whole path then extends the revision the agent walks.
    fn show_first_cells(&mut self, target: &mut Target, first: &FirstCells, size: u8) {
        let path = &mut **target.path;
        let geometry = self.nav.geometry();
        let waypoints: Arc<[Vec2]> = first
            .waypoint_cells
            .iter()
            .map(|&cell| geometry.footprint_center(cell, size))
            .collect();
        let shown_already = path.shows_first_cells()
            && *path.own_cells() == *first.cells
            && *path.own_waypoints() == *waypoints;
        if !shown_already {
            let shown = path.show_first_cells(Arc::clone(&first.cells), waypoints, first.cost);
            self.launcher.retired.retire_route(shown);
        }
        path.map_version = self.launcher.map_version;
        path.algorithm = PathAlgorithm::Hierarchical;
        path.search_time = first.found_in;
        self.stats.first_cells_shown += 1;
    }
}

/// The agent a route is carried out for.
struct Target<'a, 'p> {
    waiting: Subscriber,
    key: RequestKey,
    /// The grid of the agent's kind, as it is now.
    grid: Arc<Grid>,
    algorithm: PathAlgorithm,
    /// The first cells the agent is shown when it starts a search, found over this hierarchy.
    first: Option<(Arc<Hierarchy>, FirstCells)>,
    path: &'a mut Mut<'p, Path>,
    agent: &'a mut Mut<'p, PathRequestState>,
}

/// With [`PathRequest::start_at_agent`], moves the request's start to the anchor the agent
/// stands on ([`agent_cell`]) on `grid`, its kind's grid.
fn start_at_agent(
    request: &mut Mut<PathRequest>,
    nav: &NavGrid,
    grid: &Grid,
    transform: Option<&Transform>,
) {
    let kind = KindKey::of(request);
    if request.start_at_agent
        && let Some(cell) = transform.and_then(|transform| agent_cell(nav, grid, kind, transform))
        && cell != request.start
    {
        // Not a change of the request: its answer is still wanted.
        request.bypass_change_detection().start = cell;
    }
}

/// Whether the footprint of `request`'s agent fits on `agent`, its kind's grid, at the start
/// and at the goal (a goal asked for with `closest_reachable` need not fit).
fn footprint_fit(agent: &AgentGrid, request: &PathRequest) -> Result<(), KindError> {
    let goal = if request.options.closest_reachable {
        request.start
    } else {
        request.goal
    };
    Ok(agent.check_endpoints(request.start, goal)?)
}

/// The anchor of an agent's footprint where its [`Transform`] (the footprint's centre) stands,
/// if the footprint fits there on `grid`, its kind's grid.
fn agent_cell(nav: &NavGrid, grid: &Grid, kind: KindKey, transform: &Transform) -> Option<Cell> {
    nav.footprint_anchor(transform.translation.truncate(), kind.size)
        .filter(|&cell| grid.is_walkable(cell))
}
