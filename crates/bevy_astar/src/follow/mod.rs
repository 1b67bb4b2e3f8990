//! Path following: the `PathFollower` component, which walks an agent's `Transform` along its
//! path's waypoints; [`PathFollowPlugin`](crate::PathFollowPlugin) moves it in
//! [`PathfindingSystems::Follow`](crate::PathfindingSystems::Follow).

pub(crate) mod plugin;

use crate::Path;
use crate::goal_tree::{PublishedTree, SharedRoute};
use astar_grid::Cell;
use bevy::prelude::*;

/// Moves the agent's [`Transform`] along its [`Path`]'s waypoints at `speed` world units per
/// second, in the XY plane (the Z coordinate is kept).
///
/// A new path (a new [`Path::revision`]) restarts the walk at its second waypoint: the first one
/// is the centre of the start cell, where the agent already is.
///
/// The agent walks straight through other agents; with [`CrowdAvoidance`](crate::CrowdAvoidance) it is steered round the
/// other avoiding agents and along the walls instead (see [`crate::crowd`]).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// let agent = (
///     PathRequest::new(Cell::new(0, 0), Cell::new(7, 3)),
///     PathFollower::new(120.0),
///     Transform::default(),
/// );
/// # let _ = agent;
/// ```
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq)]
#[require(Transform)]
pub struct PathFollower {
    /// World units per second.
    pub speed: f32,
    next_waypoint: usize,
    /// A copy of the waypoint at `next_waypoint`, so that a frame that does not reach it reads
    /// nothing from the path's heap memory.
    target: Vec2,
    revision: u64,
    finished: bool,
    /// On a route of a goal's shared tree: the cell whose centre `target` is.
    #[reflect(ignore)]
    cell: Cell,
    /// On a route of a goal's shared tree: the tree's version `target` was read from.
    generation: u64,
}

impl PathFollower {
    /// A follower moving at `speed` world units per second.
    #[must_use]
    pub const fn new(speed: f32) -> Self {
        Self {
            speed,
            next_waypoint: 0,
            target: Vec2::ZERO,
            revision: 0,
            finished: true,
            cell: Cell::new(0, 0),
            generation: 0,
        }
    }

    /// The index in [`Path::waypoints`] the agent is heading for. Without
    /// [`CrowdAvoidance`](crate::CrowdAvoidance), that may be the last waypoint of a straight run rather than the next one:
    /// the agent walks through a run's waypoints in a straight line.
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

/// Waypoints in line a follower may look past at once ([`PathFollower::aim_straight_on`]).
const MOST_WAYPOINTS_AHEAD: usize = 32;

impl PathFollower {
    /// Restarts the walk at the second waypoint when `path` is new (a new revision); on a
    /// route of a goal's shared tree, at the end of the tree's first straight run from the
    /// route's start.
    pub(crate) fn sync_with(&mut self, path: &Path) {
        if self.revision != path.revision {
            self.revision = path.revision;
            self.next_waypoint = 0;
            if let Some(route) = path.shared_route() {
                self.finished = !self.aim_on_tree(route, |_| Some(route.start));
            } else {
                let waypoints = path.own_waypoints();
                self.next_waypoint = usize::from(waypoints.len() > 1);
                self.finished = !self.aim(waypoints);
            }
        }
    }

    /// Whether the follower walks `route` by a version of its tree older than the newest.
    pub(crate) fn aims_by_an_older_tree(&self, route: &SharedRoute) -> bool {
        !self.finished && route.tree.generation() != self.generation
    }

    /// Points the follower at the end of the straight run of the tree's next steps from the
    /// cell `from` picks (given the tree's newest version; the route's start, the cell just
    /// reached, or the cell the agent stands on), or, from a cell cut off, at the neighbour it
    /// steps out onto ([`PublishedTree::way_on_from`]); false at the goal, where the goal
    /// cannot be reached, and before the tree has a version.
    pub(crate) fn aim_on_tree(
        &mut self,
        route: &SharedRoute,
        from: impl FnOnce(&PublishedTree) -> Option<Cell>,
    ) -> bool {
        self.generation = route.tree.generation();
        let Some(published) = route.tree.current() else {
            return false;
        };
        let Some((cell, target)) = from(&published).and_then(|from| published.way_on_from(from))
        else {
            return false;
        };
        self.cell = cell;
        self.target = target;
        self.next_waypoint += 1;
        true
    }

    /// The cell the follower is heading for on a route of a goal's shared tree.
    pub(crate) const fn tree_cell(&self) -> Cell {
        self.cell
    }

    /// The waypoint the agent is heading for, unless it has finished.
    pub(crate) const fn target(&self) -> Option<Vec2> {
        if self.finished {
            None
        } else {
            Some(self.target)
        }
    }

    /// Moves on to the waypoint after the current one (finished after the last).
    pub(crate) fn pass_waypoint(&mut self, waypoints: &[Vec2]) {
        self.next_waypoint += 1;
        if !self.aim(waypoints) {
            self.finished = true;
        }
    }

    /// Ends the walk where the agent stands.
    pub(crate) const fn finish(&mut self) {
        self.finished = true;
    }

    /// Points the follower, which has just reached its target, at waypoint `next_waypoint`, or
    /// further on along the same line: the waypoints after it that repeat the same step (a
    /// straight run of cells) are walked through in a straight line, so the follower aims at
    /// the last of them, at most [`MOST_WAYPOINTS_AHEAD`] on, and reads the path's memory once
    /// per run instead of once per cell. False when the path has no more waypoints.
    fn aim_straight_on(&mut self, waypoints: &[Vec2]) -> bool {
        let reached = self.target;
        if !self.aim(waypoints) {
            return false;
        }
        let step = self.target - reached;
        let ahead = waypoints
            .get(self.next_waypoint..)
            .unwrap_or_default()
            .windows(2)
            .take(MOST_WAYPOINTS_AHEAD)
            .take_while(|pair| pair[1] - pair[0] == step)
            .count();
        self.next_waypoint += ahead;
        self.aim(waypoints)
    }

    /// Points the follower at waypoint `next_waypoint`; false when the path has no more.
    fn aim(&mut self, waypoints: &[Vec2]) -> bool {
        match waypoints.get(self.next_waypoint) {
            Some(&target) => {
                self.target = target;
                true
            }
            None => false,
        }
    }
}
