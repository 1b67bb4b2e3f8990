//! The system sets of the pathfinding and the schedule they run in: what every stage and every
//! plugin of the family orders its systems by.

use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;

/// The pathfinding systems, run in this order (chained) every frame in [`Update`] (or the
/// schedule given to [`AStarPlugin::in_schedule`](crate::AStarPlugin::in_schedule)):
///
/// 1. [`Invalidate`](Self::Invalidate): turns the [`NavLink`](crate::NavLink) entities added,
///    changed or removed into link edits, publishes the frame's [`NavGrid`](crate::NavGrid) edits
///    as a new [`NavVersion`](crate::NavVersion) with a [`NavChanged`](crate::NavChanged) message, drops cached results they affect, and
///    queues exactly the agents whose current path they affect (see [`InvalidationPolicy`](crate::InvalidationPolicy)).
/// 2. [`Dispatch`](Self::Dispatch): queues agents whose [`PathRequest`](crate::PathRequest)
///    changed, collects finished flow fields, then serves the queue oldest first: from the
///    result cache, by joining an identical running search, or by starting a background search
///    (A*, jump point search, or a read of a shared flow field, which is built or updated in the
///    background first), within the per-frame and in-flight caps and each agent's minimum
///    interval; lets go of the flow fields no request needs any more.
/// 3. [`Apply`](Self::Apply): polls running searches; drops results the map changed under
///    (queuing their agents again) and results for requests changed meanwhile; caches and
///    applies the rest to [`Path`](crate::Path), each announced by [`PathFound`](crate::PathFound) or
///    [`PathNotFound`](crate::PathNotFound), both a message and an entity event triggered on the agent.
/// 4. [`Follow`](Self::Follow): moves [`PathFollower`](crate::PathFollower)s along their paths
///    ([`PathFollowPlugin`](crate::PathFollowPlugin)); those with
///    [`CrowdAvoidance`](crate::CrowdAvoidance) are steered as a crowd ([`CrowdPlugin`](crate::CrowdPlugin),
///    [`crate::crowd`]). Empty without those plugins.
///
/// Edit the grid and change requests before [`PathfindingSystems::Invalidate`] to have them handled in
/// the same frame; edits made later are handled the next frame (and a result is never applied
/// over an edit it did not see).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathfindingSystems {
    /// Publish map changes and invalidate affected paths and cached results.
    Invalidate,
    /// Queue changed requests and start searches.
    Dispatch,
    /// Collect finished searches and apply them.
    Apply,
    /// Move path followers.
    Follow,
}

/// The schedule the pathfinding systems run in, for the other plugins of the family.
#[derive(Resource)]
pub(crate) struct PathfindingSchedule(pub Interned<dyn ScheduleLabel>);

/// The schedule [`AStarPlugin`](crate::AStarPlugin) runs its systems in, for `plugin`, one of
/// the plugins of the family that add systems beside them. Without the core plugin added first,
/// it warns that `plugin` was added before it (or without it), and gives [`Update`]: the
/// plugin's systems then run there, whatever schedule the core plugin is given later.
pub(crate) fn pathfinding_schedule(app: &App, plugin: &str) -> Interned<dyn ScheduleLabel> {
    match app.world().get_resource::<PathfindingSchedule>() {
        Some(schedule) => schedule.0,
        None => {
            warn!("add {plugin} after AStarPlugin, so that it runs in the same schedule");
            Update.intern()
        }
    }
}
