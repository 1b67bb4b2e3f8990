//! The `Path` component: the result of an agent's request and its status.

use crate::NavVersion;
use crate::PathAlgorithm;
use crate::kinds::KindError;
use astar_grid::{Cell, Limit, SearchError};
use bevy::prelude::*;
use core::time::Duration;
use std::sync::Arc;

/// Where an agent's request stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Clone, Debug, Default, PartialEq)]
pub enum PathStatus {
    /// Waiting to be dispatched (throttling, or a map change made it search again).
    #[default]
    Queued,
    /// A search for it is running.
    Searching,
    /// A path to the goal was found.
    Found,
    /// The goal cannot be reached from the start.
    NoPath,
    /// A limit of the request's options stopped the search; [`Path::cells`] holds the best
    /// partial path when the options asked for one.
    LimitReached(Limit),
    /// The request cannot be searched (out of bounds, blocked start or goal, bad options).
    Invalid(SearchError),
    /// The request's agent kind cannot be searched: an unknown profile, a bad size, or a start
    /// or goal where the footprint does not fit (the error names the cell and why).
    InvalidKind(KindError),
    /// No [`NavGrid`](crate::NavGrid) exists yet; the request runs once one is inserted.
    WaitingForMap,
    /// The agent's [`PathRequest`](crate::PathRequest) was removed: no search answers it now.
    /// The path is cleared (a [`PathFollower`](crate::PathFollower) stops where it stands);
    /// inserting a request again searches it anew.
    Cancelled,
}

impl PathStatus {
    /// Whether a result is still to come (queued, searching or waiting for the map).
    #[must_use]
    pub const fn is_pending(&self) -> bool {
        matches!(self, Self::Queued | Self::Searching | Self::WaitingForMap)
    }

    /// Why the request failed, if it did.
    #[must_use]
    pub const fn failure(&self) -> Option<PathFailure> {
        match *self {
            Self::NoPath => Some(PathFailure::NoPath),
            Self::LimitReached(limit) => Some(PathFailure::LimitReached(limit)),
            Self::Invalid(error) => Some(PathFailure::Invalid(error)),
            Self::InvalidKind(error) => Some(PathFailure::InvalidKind(error)),
            Self::Queued
            | Self::Searching
            | Self::Found
            | Self::WaitingForMap
            | Self::Cancelled => None,
        }
    }
}

/// Why a request ended without a path to its goal.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error, Reflect)]
#[reflect(opaque)]
#[reflect(Clone, Debug, PartialEq)]
pub enum PathFailure {
    /// The goal cannot be reached from the start.
    #[error("the goal cannot be reached")]
    NoPath,
    /// A limit of the request's options stopped the search.
    #[error("the search stopped at its limit ({0:?})")]
    LimitReached(Limit),
    /// The request cannot be searched.
    #[error("invalid request: {0}")]
    Invalid(SearchError),
    /// The request's agent kind cannot be searched.
    #[error("invalid agent kind: {0}")]
    InvalidKind(KindError),
}

/// The path of an agent with a [`PathRequest`](crate::PathRequest), kept up to date by the
/// plugin.
///
/// While a new result is on its way (status queued or searching) the previous path stays, so a
/// [`PathFollower`](crate::PathFollower) keeps moving; a failed request clears it, and so does
/// removing the request ([`PathStatus::Cancelled`]). The component stays on the agent, so that
/// its [`Path::revision`] keeps counting up if a request is inserted again.
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// Where the request stands.
    pub status: PathStatus,
    /// The cells from start to goal inclusive, each adjacent to the next under the request's
    /// movement rule; or, when the goal was not reached, the partial path a limit left (with
    /// [`SearchOptions::partial_path`](astar_grid::SearchOptions::partial_path)) or the path to
    /// the reachable cell closest to the goal (with
    /// [`SearchOptions::closest_reachable`](astar_grid::SearchOptions::closest_reachable), status
    /// [`PathStatus::NoPath`]); see [`Path::is_partial`]. Shared with the search's result (and
    /// every agent given the same result), so writing a path copies nothing.
    pub cells: Arc<[Cell]>,
    /// World positions of the points to move through, from the start cell's centre to the goal
    /// cell's centre: every cell centre, or fewer when the request asked for smoothing. Worked
    /// out by the background search and shared as [`Path::cells`] are.
    pub waypoints: Arc<[Vec2]>,
    /// The cost of [`Path::cells`] (terrain included).
    pub cost: f64,
    /// The [`NavVersion`](crate::NavVersion) of the grid the path was computed on. The path also
    /// holds for later versions until a change affects it, when the agent is queued again.
    pub map_version: NavVersion,
    /// Incremented every time a new result is written, so readers can tell a new path from an
    /// old one.
    pub revision: u64,
    /// How long the search that produced this result took (also for a result served from the
    /// cache, which did not search again).
    pub search_time: Duration,
    /// The algorithm that produced this result: the request's; A* where
    /// [`PathAlgorithm::JumpPoint`](crate::PathAlgorithm::JumpPoint) could not honour the
    /// request, or where a [`PathAlgorithm::FlowField`](crate::PathAlgorithm::FlowField) request
    /// found [`PathfindingSettings::max_flow_fields`](crate::PathfindingSettings::max_flow_fields)
    /// fields held; or [`PathAlgorithm::FlowField`](crate::PathAlgorithm::FlowField) when the
    /// request was answered with others for the same goal (see
    /// [`PathfindingSettings::goal_batch_min`](crate::PathfindingSettings::goal_batch_min)).
    pub algorithm: PathAlgorithm,
}

impl Path {
    /// Whether the path reaches the goal.
    #[must_use]
    pub fn is_found(&self) -> bool {
        self.status == PathStatus::Found
    }

    /// Whether the path ends short of the goal: the search could not reach it, and
    /// [`Path::cells`] lead to the cell closest to it that the options let it find (a
    /// [`PathFollower`](crate::PathFollower) walks them as it walks a found path).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AStarPlugin::default()));
    /// // The goal (4, 0) is walled off by the column at x = 2.
    /// let grid = Grid::from_ascii("..#..\n..#..").expect("a valid map");
    /// app.insert_resource(NavGrid::new(grid));
    /// let request = PathRequest::new(Cell::new(0, 0), Cell::new(4, 0));
    /// let request = request.with_options(request.options.with_closest_reachable(true));
    /// let agent = app.world_mut().spawn(request).id();
    /// let path = |app: &App| app.world().get::<Path>(agent).expect("required by PathRequest").clone();
    /// while path(&app).status.is_pending() {
    ///     app.update(); // the search runs in the background
    /// }
    /// let path = path(&app);
    /// assert_eq!(path.status, PathStatus::NoPath);
    /// assert!(path.is_partial());
    /// assert_eq!(path.cells.last(), Some(&Cell::new(1, 0))); // beside the wall, level with the goal
    /// ```
    #[must_use]
    pub fn is_partial(&self) -> bool {
        !self.is_found() && !self.status.is_pending() && !self.cells.is_empty()
    }
}
