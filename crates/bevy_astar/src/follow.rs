//! Path following: moves an agent's `Transform` along its path's waypoints.

use crate::Path;
use bevy::prelude::*;

/// Moves the agent's [`Transform`] along its [`Path`]'s waypoints at `speed` world units per
/// second, in the XY plane (the Z coordinate is kept).
///
/// A new path (a new [`Path::revision`]) restarts the walk at its second waypoint: the first one
/// is the centre of the start cell, where the agent already is.
///
/// ```
/// use bevy_astar::prelude::*;
///
/// let agent = (
///     PathRequest::new(Cell::new(0, 0), Cell::new(7, 3)),
///     PathFollower::new(120.0),
///     Transform::default(),
/// );
/// # let _ = agent;
/// ```
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct PathFollower {
    /// World units per second.
    pub speed: f32,
    next_waypoint: usize,
    revision: u64,
    finished: bool,
}

impl PathFollower {
    /// A follower moving at `speed` world units per second.
    #[must_use]
    pub const fn new(speed: f32) -> Self {
        Self {
            speed,
            next_waypoint: 0,
            revision: 0,
            finished: true,
        }
    }

    /// The index in [`Path::waypoints`] the agent is heading for.
    #[must_use]
    pub const fn next_waypoint(&self) -> usize {
        self.next_waypoint
    }

    /// Whether the agent has reached the last waypoint of its current path (or has none).
    #[must_use]
    pub const fn is_finished(&self) -> bool {
        self.finished
    }
}

/// Advances every follower along its path.
pub(crate) fn follow_paths(
    time: Res<Time>,
    mut followers: Query<(&Path, &mut PathFollower, &mut Transform)>,
) {
    let delta = time.delta_secs();
    for (path, mut follower, mut transform) in &mut followers {
        if follower.revision != path.revision {
            follower.revision = path.revision;
            follower.next_waypoint = usize::from(path.waypoints.len() > 1);
            follower.finished = path.waypoints.is_empty();
        }
        if follower.finished {
            continue;
        }
        let mut budget = follower.speed.max(0.0) * delta;
        let mut position = transform.translation.truncate();
        while let Some(&target) = path.waypoints.get(follower.next_waypoint) {
            let distance = position.distance(target);
            if distance > budget {
                position += (target - position) / distance * budget;
                break;
            }
            position = target;
            budget -= distance;
            follower.next_waypoint += 1;
        }
        follower.finished = follower.next_waypoint >= path.waypoints.len();
        transform.translation = position.extend(transform.translation.z);
    }
}
