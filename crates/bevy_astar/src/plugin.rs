//! `AStarPlugin`, the core of the plugin family: registers the requests, paths, map and
//! settings, orders the system sets, and adds the systems of Invalidate, Dispatch and Apply.

use crate::PathfindingSystems;
use crate::apply::{free_retired_outcomes, poll_searches};
use crate::background::{
    MainThreadWork, StageGateHold, advance_main_thread_work, close_stage_gate, open_stage_gate,
};
use crate::cache::PathCache;
use crate::connectivity::sync_connectivity;
use crate::dispatch::{dispatch_searches, prepare_spare_grid, queue_changed_requests};
use crate::engine::flow_field::{
    FlowFields, announce_route_changes, invalidate_flow_fields, poll_flow_fields,
    release_flow_fields, trees_updated,
};
use crate::engine::goal_batch::{GoalBatches, KeptGoalSearches};
use crate::engine::hierarchical::{
    Hierarchies, build_hierarchies, hierarchies_kept, record_hierarchy_changes,
};
use crate::engine::jump_point::{JumpPoints, record_jump_point_changes};
use crate::engine::sector_field::{
    KeptSectorFields, note_sector_route_changes, renew_sector_routes,
};
use crate::in_flight::InFlightSearches;
use crate::invalidate::{
    AwaitingRoutes, PendingInvalidations, invalidate_paths, invalidate_results,
    invalidations_pending, map_may_rewrite_rules, match_requests_to_map, publish_map_changes,
    queue_agents_onto_routes,
};
use crate::map::{AgentLayers, CrowdCosts, NavLinkIds, sync_nav_links};
use crate::outcome::RetiredOutcomes;
use crate::queue::{RequestQueue, forget_removed_request};
use crate::schedule::PathfindingSchedule;
use crate::trace::{PathDebug, PathDebugSettings, PathTrace, drop_unwanted_traces};
use crate::{
    BackgroundPause, CarriedOver, InvalidationPolicy, NavChanged, NavConnectivity, NavGrid,
    NavLink, NavLinkState, NavVersion, Path, PathAlgorithm, PathFailure, PathFound, PathNotFound,
    PathRequest, PathStatus, PathfindingSettings, PathfindingStats, ProfileId, SearchThread,
    TerrainProfiles,
};
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use core::time::Duration;

/// Grid pathfinding for agents: add it, insert a [`NavGrid`](crate::NavGrid), and put a
/// [`PathRequest`](crate::PathRequest) on an agent; its [`Path`](crate::Path) fills in a few
/// frames later without the frame ever waiting for a search.
///
/// Searches run on the [`AsyncComputeTaskPool`](bevy::tasks::AsyncComputeTaskPool) on a
/// snapshot of the grid; the systems are the [`PathfindingSystems`] sets, chained in this order:
/// `Invalidate` (map changes) → `Dispatch` (queue, cache, throttle, start) → `Apply` (poll,
/// drop stale results, write paths) → `Follow` (move followers). It adds the first three;
/// following and crowds are plugins of their own, which
/// [`PathfindingPlugins`](crate::PathfindingPlugins) adds with it. The builder methods set the
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

impl Plugin for AStarPlugin {
    fn build(&self, app: &mut App) {
        let schedule = self.schedule;
        app.insert_resource(PathfindingSchedule(schedule))
            .insert_resource(self.settings.clone());
        register_types(app);
        init_resources(app);
        app.add_observer(forget_removed_request)
            .add_message::<NavChanged>()
            .add_message::<PathFound>()
            .add_message::<PathNotFound>()
            .configure_sets(
                schedule,
                (
                    PathfindingSystems::Invalidate,
                    PathfindingSystems::Dispatch,
                    PathfindingSystems::Apply,
                    PathfindingSystems::Follow,
                )
                    .chain(),
            );
        add_stage_systems(app, schedule);
    }
}

/// Registers the reflected types of requests, paths, the map and the settings.
fn register_types(app: &mut App) {
    app.register_type::<PathRequest>()
        .register_type::<Path>()
        .register_type::<PathStatus>()
        .register_type::<PathFailure>()
        .register_type::<PathAlgorithm>()
        .register_type::<PathfindingSettings>()
        .register_type::<PathfindingStats>()
        .register_type::<CarriedOver>()
        .register_type::<InvalidationPolicy>()
        .register_type::<BackgroundPause>()
        .register_type::<SearchThread>()
        .register_type::<NavVersion>()
        .register_type::<NavGrid>()
        .register_type::<NavLink>()
        .register_type::<NavLinkState>()
        .register_type::<PathDebug>()
        .register_type::<PathTrace>()
        .register_type::<PathDebugSettings>()
        .register_type::<ProfileId>()
        .register_type::<TerrainProfiles>()
        .register_type::<NavConnectivity>()
        .register_type::<PathFound>()
        .register_type::<PathNotFound>();
}

/// Adds the resources the stages share, each empty.
fn init_resources(app: &mut App) {
    app.init_resource::<PathDebugSettings>()
        .init_resource::<TerrainProfiles>()
        .init_resource::<AgentLayers>()
        .init_resource::<NavConnectivity>()
        .init_resource::<NavVersion>()
        .init_resource::<PathfindingStats>()
        .init_resource::<PendingInvalidations>()
        .init_resource::<AwaitingRoutes>()
        .init_resource::<GoalBatches>()
        .init_resource::<RequestQueue>()
        .init_resource::<InFlightSearches>()
        .init_resource::<PathCache>()
        .init_resource::<FlowFields>()
        .init_resource::<CrowdCosts>()
        .init_resource::<JumpPoints>()
        .init_resource::<Hierarchies>()
        .init_resource::<KeptGoalSearches>()
        .init_resource::<KeptSectorFields>()
        .init_resource::<RetiredOutcomes>()
        .init_resource::<StageGateHold>()
        .init_resource::<MainThreadWork>()
        .init_resource::<NavLinkIds>();
}

/// Adds the systems of Invalidate, Dispatch and Apply, and the stage gate around the stages.
fn add_stage_systems(app: &mut App, schedule: Interned<dyn ScheduleLabel>) {
    app.add_systems(
        schedule,
        (
            (
                close_stage_gate,
                match_requests_to_map.run_if(map_may_rewrite_rules),
                sync_nav_links,
                publish_map_changes,
                (
                    (
                        invalidate_results,
                        invalidate_flow_fields,
                        record_jump_point_changes,
                        record_hierarchy_changes,
                        note_sector_route_changes,
                    )
                        .run_if(on_message::<NavChanged>),
                    invalidate_paths
                        .run_if(on_message::<NavChanged>.or_else(invalidations_pending)),
                    sync_connectivity,
                ),
                queue_agents_onto_routes,
            )
                .chain()
                .in_set(PathfindingSystems::Invalidate),
            (
                match_requests_to_map.run_if(map_may_rewrite_rules),
                queue_changed_requests,
                poll_flow_fields,
                renew_sector_routes,
                dispatch_searches,
                build_hierarchies.run_if(hierarchies_kept),
                advance_main_thread_work,
                release_flow_fields,
                prepare_spare_grid,
            )
                .chain()
                .in_set(PathfindingSystems::Dispatch),
            (
                poll_searches,
                announce_route_changes.run_if(trees_updated),
                free_retired_outcomes,
                drop_unwanted_traces.run_if(any_with_component::<PathTrace>),
            )
                .chain()
                .in_set(PathfindingSystems::Apply),
            // Outside the sets, so that a run condition on one cannot keep it closed.
            open_stage_gate.after(PathfindingSystems::Follow),
        ),
    );
}
