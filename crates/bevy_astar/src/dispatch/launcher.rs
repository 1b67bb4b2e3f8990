//! Starting background searches within the frame's caps: one search for one request, one
//! Dijkstra from the goal for a batch of requests, or one sector field for a batch of
//! hierarchical requests, and the bookkeeping of who waits for them.

use crate::NavVersion;
use crate::background::{
    BackgroundTask, MainThreadWork, OUTCOMES_PER_SLICE, Placement, slice_point,
};
use crate::engine::flow_field::FieldKey;
use crate::engine::goal_batch::{BatchMember, hierarchical_job};
use crate::engine::goal_batch::{KeptGoalSearches, run_goal_batch};
use crate::engine::hierarchical::Hierarchies;
use crate::engine::jump_point::JumpPoints;
use crate::engine::sector_field::{
    KeptSectorFields, RoutePublishing, SharedField, run_sector_field_batch,
};
use crate::engine::{SearchEngine, run_search};
use crate::in_flight::{InFlightSearch, InFlightSearches, SearchMember};
use crate::kinds::KindKey;
use crate::map::CellGeometry;
use crate::outcome::RetiredOutcomes;
use crate::outcome::{ReadyOutcome, SearchJob, SearchOutcome};
use crate::queue::set_status;
use crate::request::PathRequestState;
use crate::trace::PathDebug;
use crate::{
    NavGrid, Path, PathRequest, PathStatus, PathfindingSettings, PathfindingStats, TerrainProfiles,
};
use astar_grid::{Grid, Hierarchy};
use bevy::prelude::*;
use core::future::Future;
use core::sync::atomic::AtomicBool;
use core::time::Duration;
use std::sync::Arc;

/// The agents' components the dispatcher changes.
pub(super) type AgentQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut PathRequest,
        &'static mut Path,
        &'static mut PathRequestState,
        Has<PathDebug>,
        Option<&'static Transform>,
    ),
>;

/// Starts background searches within the frame's caps and records which queue entries were
/// served.
pub(super) struct Launcher<'a> {
    pub(super) settings: &'a PathfindingSettings,
    /// Where the searches run.
    pub(super) placement: Placement<'a>,
    /// Where the outcomes agents let go of are kept, to be freed off the main thread.
    pub(super) retired: &'a mut RetiredOutcomes,
    pub(super) now: Duration,
    pub(super) map_version: NavVersion,
    /// The navigation grid's id and the profiles' revision the searches start on.
    pub(super) origin: (u64, u64),
    /// Where the grid's cells lie in the world, for the waypoints the searches work out.
    pub(super) geometry: CellGeometry,
    /// Searches started this frame.
    pub(super) started: u32,
    /// Queue entries to remove once the queue has been read.
    pub(super) served: Vec<(u64, Entity)>,
}

impl<'a> Launcher<'a> {
    /// A launcher that has started nothing yet, for searches on `nav` as it is now (map
    /// `version`, agent kinds under `profiles`).
    pub(super) fn new(
        (settings, work): (&'a PathfindingSettings, &'a MainThreadWork),
        retired: &'a mut RetiredOutcomes,
        now: Duration,
        (nav, version, profiles): (&NavGrid, NavVersion, &TerrainProfiles),
    ) -> Self {
        Self {
            settings,
            placement: Placement {
                thread: settings.search_thread,
                queue: work,
            },
            retired,
            now,
            map_version: version,
            origin: (nav.id(), profiles.revision()),
            geometry: nav.geometry(),
            started: 0,
            served: Vec::new(),
        }
    }

    /// Whether the per-frame and in-flight caps allow another search.
    pub(super) fn may_start(&self, in_flight: &InFlightSearches) -> bool {
        self.started < self.settings.max_searches_per_frame
            && in_flight.len() < self.settings.max_in_flight as usize
    }

    /// Starts the work `work` makes of a snapshot of the grid and the cancellation flag, in the
    /// background ([`BackgroundTask`]), answering `members`.
    fn start<W>(
        &mut self,
        in_flight: &mut InFlightSearches,
        (snapshot, kind): (Arc<Grid>, KindKey),
        (members, repair): (Vec<SearchMember>, bool),
        work: impl FnOnce(Arc<Grid>, Arc<AtomicBool>) -> W,
    ) where
        W: Future<Output = Option<Vec<SearchOutcome>>> + Send + 'static,
    {
        let cancelled = Arc::new(AtomicBool::new(false));
        let work = work(Arc::clone(&snapshot), Arc::clone(&cancelled));
        let (geometry, map_version) = (self.geometry, self.map_version);
        let placement = self.placement;
        let task = BackgroundTask::spawn(
            async move {
                // The world waypoints are worked out here too, and the outcomes made ready for the
                // agents, off the main thread.
                let outcomes = work.await?;
                let mut ready = Vec::with_capacity(outcomes.len());
                for (number, mut outcome) in outcomes.into_iter().enumerate() {
                    outcome.place(geometry);
                    outcome.map_version = map_version;
                    ready.push(ReadyOutcome::new(Arc::new(outcome)));
                    if (number + 1).is_multiple_of(OUTCOMES_PER_SLICE) {
                        slice_point().await;
                    }
                }
                Some(ready)
            },
            placement,
        );
        in_flight.insert(InFlightSearch::new(
            task,
            cancelled,
            (snapshot, kind),
            self.origin,
            (members, repair),
        ));
        self.started += 1;
    }

    /// Starts one search answering `member` alone, on `grid`, the grid of the job's agent kind.
    pub(super) fn start_search(
        &mut self,
        in_flight: &mut InFlightSearches,
        grid: Arc<Grid>,
        stats: &mut PathfindingStats,
        member: SearchMember,
        job: SearchJob,
        engine: SearchEngine,
    ) {
        stats.searches_started += 1;
        stats.cache_misses += 1;
        let searched = (grid, job.kind);
        let repair = matches!(engine, SearchEngine::Repair(_));
        self.start(
            in_flight,
            searched,
            (vec![member], repair),
            move |grid, cancelled| async move {
                let outcome = run_search(&grid, &job, &engine, &cancelled).await;
                outcome.map(|outcome| vec![outcome])
            },
        );
    }

    /// Marks an agent as waiting for a running search; `searched` when the search was started
    /// for it (which counts for its minimum interval between searches).
    pub(super) fn mark_searching(
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
        agent.searching_for = Some(sequence);
        self.retired.retire(agent.set_applied(None));
        self.served.push((sequence, entity));
        set_status(path, PathStatus::Searching);
    }

    /// Starts `group` as one batch that reads the goal's sector field, `shared`, built over
    /// `hierarchy`, on the grid and agent kind `searched`. Empties `group`.
    fn start_sector_field_batch(
        &mut self,
        in_flight: &mut InFlightSearches,
        group: &mut Vec<BatchMember>,
        searched: (Arc<Grid>, KindKey),
        (hierarchy, shared): (Arc<Hierarchy>, Arc<SharedField>),
        stats: &mut PathfindingStats,
    ) {
        stats.sector_field_batches += 1;
        let (jobs, members) = take_batch(group, stats);
        let publishing = RoutePublishing {
            geometry: self.geometry,
            size: searched.1.size,
            map_version: self.map_version,
        };
        self.start(
            in_flight,
            searched,
            (members, false),
            move |grid, cancelled| async move {
                let routes = (shared, publishing);
                run_sector_field_batch(&grid, &hierarchy, &jobs, &cancelled, routes).await
            },
        );
    }

    /// Starts one gathered group of requests for a goal, whose agents are marked as searching
    /// already: as one batch when it is large enough, otherwise one search per request. When
    /// every request is hierarchical and the hierarchy is built, the batch reads the goal's
    /// sector field, as soon as the goal has had `goal_batch_min` hierarchical requests in all
    /// (groups of any size, over any number of frames); while it builds, such a goal's groups
    /// of any size share one search from the goal instead, waiting while the goal's last
    /// batch runs. Empties `group`
    /// (whose list can then be reused) and returns the members the caps leave for a later
    /// frame.
    pub(super) fn start_group(
        &mut self,
        group: &mut Vec<BatchMember>,
        (in_flight, kept, fields): (
            &mut InFlightSearches,
            &mut KeptGoalSearches,
            &mut KeptSectorFields,
        ),
        nav: &NavGrid,
        (jump_points, hierarchies): (&mut JumpPoints, &mut Hierarchies),
        stats: &mut PathfindingStats,
    ) -> Vec<BatchMember> {
        let Some(first) = group.first() else {
            return Vec::new();
        };
        let key = FieldKey::of_job(&first.job);
        // The group shares its goal and its agent kind, and so its grid.
        let searched = (Arc::clone(&first.grid), first.job.kind);
        let least = self.settings.goal_batch_min.max(2);
        let hierarchical = hierarchical_job(group);
        let hierarchy = hierarchical.and_then(|job| hierarchies.for_fields(nav, &job.options));
        if let Some(hierarchy) = hierarchy.as_ref() {
            if !self.may_start(in_flight) {
                return core::mem::take(group);
            }
            let asked = fields.count_requests(key, group.len());
            if asked >= least || fields.holds(&key, hierarchy) {
                let shared = fields.field_for(key, self.retired);
                let field = (Arc::clone(hierarchy), shared);
                self.start_sector_field_batch(in_flight, group, searched, field, stats);
                return Vec::new();
            }
        }
        // While their hierarchy builds, hierarchical requests run A* over the whole map each:
        // once their goal has had `least` of them in all, however few come a frame (creeps
        // streaming in), they share the goal's search, resumed batch after batch; a group
        // waits while the goal's last batch runs, to resume its search rather than grow a
        // second one over the whole map. A hierarchy built whole is never batched by a search
        // over the whole map, which would cost more than a few hierarchical searches.
        let streamed = hierarchical.is_some() && hierarchy.is_none();
        let asked = if streamed {
            fields.count_requests(key, group.len())
        } else {
            group.len()
        };
        if asked >= least && hierarchy.is_none() {
            let goal_running = streamed && kept.is_running(&key);
            if goal_running || !self.may_start(in_flight) {
                return core::mem::take(group);
            }
            stats.goal_batches += 1;
            let (jobs, members) = take_batch(group, stats);
            let resumed = kept.take_for(key, &searched.0, self.retired);
            stats.goal_batches_resumed += u64::from(resumed.1.is_some());
            self.start(
                in_flight,
                searched,
                (members, false),
                move |grid, cancelled| async move {
                    run_goal_batch(&grid, &jobs, &cancelled, resumed).await
                },
            );
            return Vec::new();
        }
        let mut left = Vec::new();
        for member in group.drain(..) {
            if !self.may_start(in_flight) {
                left.push(member);
                continue;
            }
            // Batches take A*, jump point and (while their hierarchy is built) hierarchical
            // requests.
            let engine = match member.alone {
                SearchEngine::JumpPoint(_) => jump_points.engine_for(nav),
                SearchEngine::Hierarchical(_) => hierarchies.engine_for(nav, &member.job.options),
                _ => SearchEngine::AStar,
            };
            let grid = Arc::clone(&member.grid);
            self.start_search(in_flight, grid, stats, member.waiting, member.job, engine);
        }
        left
    }
}

/// The jobs and the waiting agents of `group`, taken out of it for one batch, counted in
/// `stats` as one search answering them all.
fn take_batch(
    group: &mut Vec<BatchMember>,
    stats: &mut PathfindingStats,
) -> (Vec<SearchJob>, Vec<SearchMember>) {
    stats.searches_started += 1;
    stats.batched_requests += group.len() as u64;
    stats.cache_misses += group.len() as u64;
    let jobs = group.iter().map(|member| member.job).collect();
    let members = group.drain(..).map(|member| member.waiting).collect();
    (jobs, members)
}
