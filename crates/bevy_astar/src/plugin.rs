//! `AStarPlugin`: registers the resources, messages and systems, and orders the system sets.

use crate::apply::{free_retired_outcomes, poll_searches};
use crate::background::{
    MainThreadWork, StageGateHold, advance_main_thread_work, close_stage_gate, open_stage_gate,
};
use crate::cache::PathCache;
use crate::connectivity::sync_connectivity;
use crate::crowd::{CrowdScratch, gather_crowds, move_crowds, plan_crowds};
use crate::dispatch::{dispatch_searches, queue_changed_requests};
use crate::engine::flow_field::{
    FlowFields, invalidate_flow_fields, poll_flow_fields, release_flow_fields,
};
use crate::engine::goal_batch::{GoalBatches, KeptGoalSearches};
use crate::engine::jump_point::{JumpPoints, record_jump_point_changes};
use crate::follow::follow_paths;
use crate::in_flight::InFlightSearches;
use crate::invalidate::{
    PendingInvalidations, invalidate_paths, invalidate_results, publish_map_changes,
};
use crate::map::AgentLayers;
use crate::outcome::RetiredOutcomes;
use crate::queue::{RequestQueue, forget_removed_request};
use crate::trace::{DebugPath, PathDebugSettings, PathTrace, drop_unwanted_traces};
use crate::{
    Avoidance, BackgroundPause, CrowdSettings, CrowdVelocity, InvalidationPolicy, MapChanged,
    MapVersion, NavConnectivity, NavGrid, Path, PathAlgorithm, PathFailure, PathFollower,
    PathFound, PathNotFound, PathRequest, PathStatus, PathfindingSettings, PathfindingStats,
    ProfileId, SearchThread, TerrainProfiles,
};
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use core::time::Duration;

/// The pathfinding systems, run in this order (chained) every frame in [`Update`] (or the
/// schedule given to [`AStarPlugin::in_schedule`]):
///
/// 1. [`Invalidate`](Self::Invalidate): publishes the frame's [`NavGrid`](crate::NavGrid) edits
///    as a new [`MapVersion`] with a [`MapChanged`] message, drops cached results they affect, and
///    queues exactly the agents whose current path they affect (see [`InvalidationPolicy`]).
/// 2. [`Dispatch`](Self::Dispatch): queues agents whose [`PathRequest`](crate::PathRequest)
///    changed, collects finished flow fields, then serves the queue oldest first: from the
///    result cache, by joining an identical running search, or by starting a background search
///    (A*, jump point search, or a read of a shared flow field, which is built or updated in the
///    background first), within the per-frame and in-flight caps and each agent's minimum
///    interval; lets go of the flow fields no request needs any more.
/// 3. [`Apply`](Self::Apply): polls running searches; drops results the map changed under
///    (queuing their agents again) and results for requests changed meanwhile; caches and
///    applies the rest to [`Path`](crate::Path), each announced by [`PathFound`] or
///    [`PathNotFound`], both a message and an entity event triggered on the agent.
/// 4. [`Follow`](Self::Follow): moves [`PathFollower`](crate::PathFollower)s along their paths;
///    those with [`Avoidance`](crate::Avoidance) are steered as a crowd ([`crate::crowd`]).
///
/// Edit the grid and change requests before [`AStarSystems::Invalidate`] to have them handled in
/// the same frame; edits made later are handled the next frame (and a result is never applied
/// over an edit it did not see).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AStarSystems {
    /// Publish map changes and invalidate affected paths and cached results.
    Invalidate,
    /// Queue changed requests and start searches.
    Dispatch,
    /// Collect finished searches and apply them.
    Apply,
    /// Move path followers.
    Follow,
}

/// Grid pathfinding for agents: add it, insert a [`NavGrid`](crate::NavGrid), and put a
/// [`PathRequest`](crate::PathRequest) on an agent; its [`Path`](crate::Path) fills in a few
/// frames later without the frame ever waiting for a search.
///
/// Searches run on the [`AsyncComputeTaskPool`](bevy::tasks::AsyncComputeTaskPool) on a
/// snapshot of the grid; the systems are the [`AStarSystems`] sets, chained in this order:
/// `Invalidate` (map changes) → `Dispatch` (queue, cache, throttle, start) → `Apply` (poll,
/// drop stale results, write paths) → `Follow` (move followers). The builder methods set the
/// initial [`PathfindingSettings`], a resource that can also be changed at run time.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
/// use std::time::Duration;
///
/// App::new().add_plugins((
///     MinimalPlugins,
///     AStarPlugin::default()
///         .with_max_searches_per_frame(16)
///         .with_max_in_flight(32)
///         .with_min_search_interval(Duration::from_millis(200))
///         .with_cache_capacity(4096)
///         .with_invalidation(InvalidationPolicy::TouchedOrOpened),
/// ));
/// ```
#[derive(Debug)]
pub struct AStarPlugin {
    settings: PathfindingSettings,
    schedule: Interned<dyn ScheduleLabel>,
}

impl Default for AStarPlugin {
    fn default() -> Self {
        Self {
            settings: PathfindingSettings::default(),
            schedule: Update.intern(),
        }
    }
}

impl AStarPlugin {
    /// Starts from `settings` (the `with_*` builders below change one field each).
    ///
    /// ```
    /// use bevy_astar::prelude::*;
    /// use std::time::Duration;
    ///
    /// let settings = PathfindingSettings {
    ///     min_search_interval: Duration::from_millis(250),
    ///     ..PathfindingSettings::default()
    /// };
    /// let plugin = AStarPlugin::default().with_settings(settings).with_goal_batch_min(16);
    /// # let _ = plugin;
    /// ```
    #[must_use]
    pub fn with_settings(mut self, settings: PathfindingSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Sets [`PathfindingSettings::max_searches_per_frame`].
    #[must_use]
    pub const fn with_max_searches_per_frame(mut self, max: u32) -> Self {
        self.settings.max_searches_per_frame = max;
        self
    }

    /// Sets [`PathfindingSettings::max_in_flight`].
    #[must_use]
    pub const fn with_max_in_flight(mut self, max: u32) -> Self {
        self.settings.max_in_flight = max;
        self
    }

    /// Sets [`PathfindingSettings::min_search_interval`].
    #[must_use]
    pub const fn with_min_search_interval(mut self, interval: Duration) -> Self {
        self.settings.min_search_interval = interval;
        self
    }

    /// Sets [`PathfindingSettings::cache_capacity`]; 0 turns the cache off.
    #[must_use]
    pub const fn with_cache_capacity(mut self, capacity: usize) -> Self {
        self.settings.cache_capacity = capacity;
        self
    }

    /// Sets [`PathfindingSettings::invalidation`].
    #[must_use]
    pub const fn with_invalidation(mut self, policy: InvalidationPolicy) -> Self {
        self.settings.invalidation = policy;
        self
    }

    /// Sets [`PathfindingSettings::repair_cut_paths`].
    #[must_use]
    pub const fn with_path_repair(mut self, repair: bool) -> Self {
        self.settings.repair_cut_paths = repair;
        self
    }

    /// Sets [`PathfindingSettings::goal_batch_min`]; 0 turns batching off.
    #[must_use]
    pub const fn with_goal_batch_min(mut self, min: usize) -> Self {
        self.settings.goal_batch_min = min;
        self
    }

    /// Sets [`PathfindingSettings::max_paths_applied_per_frame`].
    #[must_use]
    pub const fn with_max_paths_applied_per_frame(mut self, max: u32) -> Self {
        self.settings.max_paths_applied_per_frame = max;
        self
    }

    /// Sets [`PathfindingSettings::max_flow_fields`].
    #[must_use]
    pub const fn with_max_flow_fields(mut self, max: usize) -> Self {
        self.settings.max_flow_fields = max;
        self
    }

    /// Runs the systems in `schedule` instead of [`Update`].
    #[must_use]
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }
}

/// The schedule the pathfinding systems run in, for the other plugins of the family.
#[derive(Resource)]
struct PathfindingSchedule(Interned<dyn ScheduleLabel>);

/// The schedule [`AStarPlugin`] runs its systems in ([`Update`] without the plugin), for the
/// plugins of the family that add systems beside them.
pub(crate) fn pathfinding_schedule(app: &App) -> Interned<dyn ScheduleLabel> {
    app.world()
        .get_resource::<PathfindingSchedule>()
        .map_or_else(|| Update.intern(), |schedule| schedule.0)
}

impl Plugin for AStarPlugin {
    fn build(&self, app: &mut App) {
        let schedule = self.schedule;
        app.insert_resource(PathfindingSchedule(schedule))
            .register_type::<PathRequest>()
            .register_type::<Path>()
            .register_type::<PathFollower>()
            .register_type::<PathStatus>()
            .register_type::<PathFailure>()
            .register_type::<PathAlgorithm>()
            .register_type::<PathfindingSettings>()
            .register_type::<PathfindingStats>()
            .register_type::<crate::CarriedOver>()
            .register_type::<InvalidationPolicy>()
            .register_type::<BackgroundPause>()
            .register_type::<SearchThread>()
            .register_type::<MapVersion>()
            .register_type::<NavGrid>()
            .register_type::<DebugPath>()
            .register_type::<PathTrace>()
            .register_type::<PathDebugSettings>()
            .register_type::<ProfileId>()
            .register_type::<TerrainProfiles>()
            .register_type::<NavConnectivity>()
            .register_type::<Avoidance>()
            .register_type::<CrowdVelocity>()
            .register_type::<CrowdSettings>()
            .init_resource::<CrowdSettings>()
            .init_resource::<CrowdScratch>()
            .init_resource::<PathDebugSettings>()
            .init_resource::<TerrainProfiles>()
            .init_resource::<AgentLayers>()
            .init_resource::<NavConnectivity>()
            .insert_resource(self.settings.clone())
            .init_resource::<MapVersion>()
            .init_resource::<PathfindingStats>()
            .init_resource::<PendingInvalidations>()
            .init_resource::<GoalBatches>()
            .init_resource::<RequestQueue>()
            .init_resource::<InFlightSearches>()
            .init_resource::<PathCache>()
            .init_resource::<FlowFields>()
            .init_resource::<JumpPoints>()
            .init_resource::<KeptGoalSearches>()
            .init_resource::<RetiredOutcomes>()
            .init_resource::<StageGateHold>()
            .init_resource::<MainThreadWork>()
            .add_observer(forget_removed_request)
            .add_message::<MapChanged>()
            .add_message::<PathFound>()
            .add_message::<PathNotFound>()
            .register_type::<PathFound>()
            .register_type::<PathNotFound>()
            .configure_sets(
                schedule,
                (
                    AStarSystems::Invalidate,
                    AStarSystems::Dispatch,
                    AStarSystems::Apply,
                    AStarSystems::Follow,
                )
                    .chain(),
            )
            .add_systems(
                schedule,
                (
                    (
                        close_stage_gate,
                        publish_map_changes,
                        (
                            invalidate_results,
                            invalidate_paths,
                            invalidate_flow_fields,
                            record_jump_point_changes,
                            sync_connectivity,
                        ),
                    )
                        .chain()
                        .in_set(AStarSystems::Invalidate),
                    (
                        queue_changed_requests,
                        poll_flow_fields,
                        dispatch_searches,
                        advance_main_thread_work,
                        release_flow_fields,
                    )
                        .chain()
                        .in_set(AStarSystems::Dispatch),
                    (poll_searches, free_retired_outcomes, drop_unwanted_traces)
                        .chain()
                        .in_set(AStarSystems::Apply),
                    (
                        follow_paths,
                        (gather_crowds, plan_crowds, move_crowds).chain(),
                    )
                        .in_set(AStarSystems::Follow),
                    // Outside the sets, so that a run condition on one cannot keep it closed.
                    open_stage_gate.after(AStarSystems::Follow),
                ),
            );
    }
}
