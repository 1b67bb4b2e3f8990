//! [`PathFollowPlugin`]: registers [`PathFollower`] and moves followers along their paths in
//! [`PathfindingSystems::Follow`].

use super::PathFollower;
use crate::crowd::{CrowdAvoidance, CrowdSettings};
use crate::schedule::pathfinding_schedule;
use crate::{Path, PathRequest, PathfindingSystems};
use bevy::prelude::*;

/// Moves [`PathFollower`]s along their [`Path`]s, in [`PathfindingSystems::Follow`] of the schedule
/// the [`AStarPlugin`](crate::AStarPlugin) runs in (add it after that plugin, as
/// [`PathfindingPlugins`](crate::PathfindingPlugins) does). Without it, paths are still found
/// and kept up to date, and the game moves its agents itself.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// App::new().add_plugins((MinimalPlugins, AStarPlugin::default(), PathFollowPlugin));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PathFollowPlugin;

impl Plugin for PathFollowPlugin {
    fn build(&self, app: &mut App) {
        let schedule = pathfinding_schedule(app, "PathFollowPlugin");
        app.register_type::<PathFollower>()
            .add_systems(schedule, follow_paths.in_set(PathfindingSystems::Follow));
    }
}

/// What the follow system reads and writes of an agent.
type FollowerParts = (
    Ref<'static, Path>,
    &'static mut PathFollower,
    &'static mut Transform,
    Has<CrowdAvoidance>,
    Has<PathRequest>,
);

/// Advances every follower along its path but those the crowd systems steer: with
/// [`CrowdAvoidance`] and a [`PathRequest`] (which says its kind), while the
/// [`CrowdPlugin`](crate::crowd::CrowdPlugin) is added (its [`CrowdSettings`] exist). Without
/// that plugin, avoiding agents are followed as the others are.
///
/// Most frames move an agent part of the way to its next waypoint; the waypoint is kept in the
/// follower, so those frames touch only the follower and the transform. The path itself is read
/// when it changed (its change tick, which lies apart from the paths, says so), when the
/// follower is new or was replaced, and when a waypoint is reached (the system's own writes to
/// the follower do not count as changes on its next run).
pub(crate) fn follow_paths(
    time: Res<Time>,
    crowds: Option<Res<CrowdSettings>>,
    mut followers: Query<FollowerParts>,
) {
    let delta = time.delta_secs();
    let crowds_steer = crowds.is_some();
    for (path, mut follower, mut transform, avoids, requests) in &mut followers {
        if crowds_steer && avoids && requests {
            continue;
        }
        if path.is_changed() || follower.is_changed() {
            follower.sync_with(&path);
        }
        if follower.finished {
            continue;
        }
        let follower = follower.into_inner();
        let mut budget = follower.speed.max(0.0) * delta;
        let mut position = transform.translation.truncate();
        loop {
            let distance = position.distance(follower.target);
            if distance > budget {
                position += (follower.target - position) / distance * budget;
                break;
            }
            position = follower.target;
            budget -= distance;
            follower.next_waypoint += 1;
            if !follower.aim_straight_on(&path.waypoints) {
                follower.finished = true;
                break;
            }
        }
        transform.translation = position.extend(transform.translation.z);
    }
}
