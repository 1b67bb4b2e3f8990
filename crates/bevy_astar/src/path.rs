//! The `Path` component: the result of an agent's request and its status.

use crate::NavVersion;
use crate::PathAlgorithm;
use crate::goal_tree::SharedRoute;
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
/// [`PathFollower`](crate::PathFollower) keeps moving (or, for a request with
/// [`PathRequest::first_cells_fast`](crate::PathRequest::first_cells_fast), the first cells of
/// the new one show, [`Path::shows_first_cells`]); a failed request clears it, and so does
/// removing the request ([`PathStatus::Cancelled`]). The component stays on the agent, so that
/// its [`Path::revision`] keeps counting up if a request is inserted again.
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// Where the request stands.
    pub status: PathStatus,
    /// The cells and waypoints: the path's own, or a route on a goal's shared tree.
    route: PathRoute,
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
    /// Whether the path shows only the first cells of the request's path
    /// ([`PathRequest::first_cells_fast`](crate::PathRequest::first_cells_fast)).
    first_cells: bool,
    /// The revision whose waypoints this one's begin with, when it is the whole path whose
    /// first cells that revision showed: a follower walking that revision walks on.
    extends: Option<u64>,
}

/// Where a [`Path`]'s cells come from.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum PathRoute {
    /// No cells.
    #[default]
    Empty,
    /// Cells of the path's own, shared with the search's result (and every agent given the
    /// same result), so that writing a path copies nothing.
    Own {
        cells: Arc<[Cell]>,
        waypoints: Arc<[Vec2]>,
        cost: f64,
    },
    /// A route on the shared tree of the goal: read from the tree's newest version on demand,
    /// so that a map change reaches the agent without touching it.
    Shared(SharedRoute),
}

impl Path {
    /// A found path of its own along `cells`, through `waypoints` (world positions), at `cost`:
    /// for a game that writes an agent's path itself, and for tests.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let cells = [Cell::new(0, 0), Cell::new(1, 0)];
    /// let path = Path::with_cells(cells, [Vec2::new(0.5, 0.5), Vec2::new(1.5, 0.5)], 1.0);
    /// assert!(path.is_found());
    /// assert_eq!(&path.cells()[..], &cells);
    /// assert_eq!(path.cost(), 1.0);
    /// ```
    #[must_use]
    pub fn with_cells(
        cells: impl Into<Arc<[Cell]>>,
        waypoints: impl Into<Arc<[Vec2]>>,
        cost: f64,
    ) -> Self {
        Self {
            status: PathStatus::Found,
            route: PathRoute::Own {
                cells: cells.into(),
                waypoints: waypoints.into(),
                cost,
            },
            ..Self::default()
        }
    }

    /// The cells from start to goal inclusive, each adjacent to the next under the request's
    /// movement rule or joined to it by a link of the grid ([`Path::link_steps`]); or, when the goal was not reached, the partial path a limit left (with
    /// [`SearchOptions::partial_path`](astar_grid::SearchOptions::partial_path)) or the path to
    /// the reachable cell closest to the goal (with
    /// [`SearchOptions::closest_reachable`](astar_grid::SearchOptions::closest_reachable), status
    /// [`PathStatus::NoPath`]); see [`Path::is_partial`].
    ///
    /// A path of its own shares its cells with the search's result, and this copies nothing. A
    /// route on a goal's shared tree ([`Path::is_shared`]) is read from the tree's newest
    /// version, following its next steps from the start: a new list each call, in time linear
    /// in its length.
    #[must_use]
    pub fn cells(&self) -> Arc<[Cell]> {
        match &self.route {
            PathRoute::Empty => Arc::default(),
            PathRoute::Own { cells, .. } => Arc::clone(cells),
            PathRoute::Shared(route) => route.cells(),
        }
    }

    /// World positions of the points to move through, from the start cell's centre to the goal
    /// cell's centre: every cell centre (every footprint centre, for a larger agent), or fewer
    /// when the request asked for smoothing. Read as [`Path::cells`] are.
    #[must_use]
    pub fn waypoints(&self) -> Arc<[Vec2]> {
        match &self.route {
            PathRoute::Empty => Arc::default(),
            PathRoute::Own { waypoints, .. } => Arc::clone(waypoints),
            PathRoute::Shared(route) => route.waypoints(),
        }
    }

    /// The cost of [`Path::cells`] (terrain included).
    #[must_use]
    pub fn cost(&self) -> f64 {
        match &self.route {
            PathRoute::Empty => 0.0,
            PathRoute::Own { cost, .. } => *cost,
            PathRoute::Shared(route) => route.cost(),
        }
    }

    /// The steps of the path that take a link of `nav`'s grid (a door, a ladder, a
    /// teleporter: [`NavGrid::add_link`](crate::NavGrid::add_link)), for the agent of
    /// `request` (its size and movement rule): for each, the index in [`Path::cells`] of the
    /// cell it leaves and the link ([`NavGrid::link_taken`](crate::NavGrid::link_taken)).
    /// Empty on a map without links.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let mut nav = NavGrid::new(Grid::new(8, 8));
    /// let teleporter = nav.add_link(Link::new(Cell::new(1, 0), Cell::new(6, 6), 0.0))?;
    /// let cells = [Cell::new(0, 0), Cell::new(1, 0), Cell::new(6, 6), Cell::new(7, 7)];
    /// let path = Path::with_cells(cells, [], 1.0 + 2f64.sqrt());
    /// let request = PathRequest::new(cells[0], cells[3]);
    /// assert_eq!(path.link_steps(&nav, &request), [(1, teleporter)]);
    /// # Ok::<(), LinkError>(())
    /// ```
    #[must_use]
    pub fn link_steps(
        &self,
        nav: &crate::NavGrid,
        request: &crate::PathRequest,
    ) -> Vec<(usize, astar_grid::LinkId)> {
        if nav.grid().links().is_empty() {
            return Vec::new();
        }
        let rules = (request.options.movement, request.options.cost);
        self.cells()
            .windows(2)
            .enumerate()
            .filter_map(|(index, step)| {
                Some((
                    index,
                    nav.link_taken(step[0], step[1], request.size, rules)?.0,
                ))
            })
            .collect()
    }

    /// The cells still ahead of an agent standing on `cell`, from `cell` to the end: on a
    /// goal's shared tree, the route from `cell` on its newest version (empty where it does
    /// not reach the goal); on a path of its own, the cells from `cell`'s first place on it
    /// (empty when `cell` is not on it).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let cells = [Cell::new(0, 0), Cell::new(1, 0), Cell::new(2, 0)];
    /// let path = Path::with_cells(cells, [], 2.0);
    /// assert_eq!(&path.cells_from(Cell::new(1, 0))[..], &cells[1..]);
    /// assert!(path.cells_from(Cell::new(5, 5)).is_empty());
    /// ```
    #[must_use]
    pub fn cells_from(&self, cell: Cell) -> Arc<[Cell]> {
        match &self.route {
            PathRoute::Empty => Arc::default(),
            PathRoute::Own { cells, .. } => cells
                .iter()
                .position(|&at| at == cell)
                .map(|place| cells[place..].into())
                .unwrap_or_default(),
            PathRoute::Shared(route) => route.cells_from(cell),
        }
    }

    /// The cell after `cell` on the path: on a route on its goal's shared tree
    /// ([`Path::is_shared`]), the tree's next step from `cell` on its newest version, from any
    /// cell the tree answers for (a walk a cell at a time, which a caller reading many routes
    /// of one goal can stop where an earlier walk passed); on a path of its own, the cell after
    /// the first place `cell` holds in it. `None` at the end, and where the path does not pass
    /// `cell`.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let cells = [Cell::new(0, 0), Cell::new(1, 0), Cell::new(2, 0)];
    /// let path = Path::with_cells(cells, [], 2.0);
    /// assert_eq!(path.next_cell(Cell::new(1, 0)), Some(Cell::new(2, 0)));
    /// assert_eq!(path.next_cell(Cell::new(2, 0)), None);
    /// ```
    #[must_use]
    pub fn next_cell(&self, cell: Cell) -> Option<Cell> {
        match &self.route {
            PathRoute::Empty => None,
            PathRoute::Own { cells, .. } => {
                let place = cells.iter().position(|&at| at == cell)?;
                cells.get(place + 1).copied()
            }
            PathRoute::Shared(route) => route.next_cell(cell),
        }
    }

    /// Whether the path is a route on its goal's shared tree
    /// ([`PathfindingSettings::shared_goal_min_agents`](crate::PathfindingSettings::shared_goal_min_agents)):
    /// a map change updates the tree, and the path's cells and waypoints follow without the
    /// agent being touched (its [`Path::revision`] stays; [`Path::cells`] reads the new route).
    #[must_use]
    pub fn is_shared(&self) -> bool {
        matches!(self.route, PathRoute::Shared(_))
    }

    /// The cells of a path of its own; empty for a shared route or no path.
    pub(crate) fn own_cells(&self) -> &[Cell] {
        match &self.route {
            PathRoute::Own { cells, .. } => cells,
            PathRoute::Empty | PathRoute::Shared(_) => &[],
        }
    }

    /// The waypoints of a path of its own; empty for a shared route or no path.
    pub(crate) fn own_waypoints(&self) -> &[Vec2] {
        match &self.route {
            PathRoute::Own { waypoints, .. } => waypoints,
            PathRoute::Empty | PathRoute::Shared(_) => &[],
        }
    }

    /// The route on a goal's shared tree, if the path is one.
    pub(crate) const fn shared_route(&self) -> Option<&SharedRoute> {
        match &self.route {
            PathRoute::Shared(route) => Some(route),
            PathRoute::Empty | PathRoute::Own { .. } => None,
        }
    }

    /// Replaces the route, returning the one it held. The path then shows neither first cells
    /// nor the rest of them ([`Path::shows_first_cells`], [`Path::extends`]).
    pub(crate) fn replace_route(&mut self, route: PathRoute) -> PathRoute {
        self.first_cells = false;
        self.extends = None;
        core::mem::replace(&mut self.route, route)
    }

    /// Shows `cells` through `waypoints`, at `cost`, as the first cells of the request's path,
    /// while the rest is searched; returns the route it held.
    pub(crate) fn show_first_cells(
        &mut self,
        cells: Arc<[Cell]>,
        waypoints: Arc<[Vec2]>,
        cost: f64,
    ) -> PathRoute {
        let shown = self.replace_route(PathRoute::Own {
            cells,
            waypoints,
            cost,
        });
        self.first_cells = true;
        self.revision += 1;
        shown
    }

    /// Whether the path shows only the first cells of a request with
    /// [`PathRequest::first_cells_fast`](crate::PathRequest::first_cells_fast): from its start
    /// to the border of the start's sector, with the status
    /// [`PathStatus::Searching`] while the rest is searched ([`PathStatus::Queued`] if the
    /// search was dropped because the map changed under it, until it starts again). A
    /// [`PathFollower`](crate::PathFollower) walks them, and walks on when the whole path
    /// comes.
    #[must_use]
    pub const fn shows_first_cells(&self) -> bool {
        self.first_cells
    }

    /// The revision whose waypoints this one's begin with, when it is the whole path whose
    /// first cells that revision showed ([`Path::shows_first_cells`]).
    #[must_use]
    pub const fn extends(&self) -> Option<u64> {
        self.extends
    }

    /// Records that this path, just written, begins with the first cells that revision
    /// `shown` showed.
    pub(crate) const fn set_extends(&mut self, shown: u64) {
        self.extends = Some(shown);
    }

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
    /// assert_eq!(path.cells().last(), Some(&Cell::new(1, 0))); // beside the wall, level with the goal
    /// ```
    #[must_use]
    pub fn is_partial(&self) -> bool {
        !self.is_found() && !self.status.is_pending() && !self.route_is_empty()
    }

    /// Whether the route has no cells.
    fn route_is_empty(&self) -> bool {
        match &self.route {
            PathRoute::Empty => true,
            PathRoute::Own { cells, .. } => cells.is_empty(),
            PathRoute::Shared(route) => !route.reaches_goal(),
        }
    }
}
