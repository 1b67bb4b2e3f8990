//! What a search is asked and what it gives back, shared by every stage: the job, the outcome
//! and its ready form, the messages that announce it on an agent, its writing into the agent's
//! `Path`, and the freeing of outcomes off the main thread.

mod notify;
mod retired;

pub(crate) use notify::PathNotifier;
pub(crate) use retired::RetiredOutcomes;

use crate::goal_tree::SharedRoute;
use crate::kinds::KindKey;
use crate::map::{CellGeometry, PathFootprint};
use crate::{NavVersion, PathAlgorithm, PathFailure, PathRequest, PathStatus};
use astar_grid::{Cell, SearchOptions, SearchTrace};
use bevy::prelude::*;
use core::time::Duration;
use std::sync::Arc;

/// What a request asks, as one `Copy` value that travels whole from dispatch to the engine,
/// the cache key ([`RequestKey::of`](crate::cache::RequestKey::of)), the batch and field keys
/// and the outcome: the endpoints, the search options, the smoothing, the algorithm and the
/// agent kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SearchJob {
    pub start: Cell,
    pub goal: Cell,
    pub options: SearchOptions,
    pub smoothing: bool,
    /// The algorithm asked for (the engine that answers may fall back to another).
    pub algorithm: PathAlgorithm,
    /// The agent kind, whose grid the search runs on.
    pub kind: KindKey,
}

impl SearchJob {
    /// What `request` asks, searched with `options`: the request's own, with tracing forced on
    /// where the debug overlay asks for it.
    pub(crate) fn of(request: &PathRequest, options: SearchOptions) -> Self {
        Self {
            start: request.start,
            goal: request.goal,
            options,
            smoothing: request.smoothing,
            algorithm: request.algorithm,
            kind: KindKey::of(request),
        }
    }
}

/// What one search produced.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SearchOutcome {
    /// Found, no path, limit reached or invalid; never a pending status.
    pub status: PathStatus,
    /// The searched start.
    pub start: Cell,
    /// The searched goal.
    pub goal: Cell,
    /// The path (or partial path), empty when there is none; shared by every `Path` it is
    /// written to.
    pub cells: Arc<[Cell]>,
    /// Where `cells` and the corners of their diagonal steps lie, so that most map changes are
    /// ruled out without reading the path.
    pub footprint: PathFootprint,
    /// The cells whose centres are the waypoints (all of `cells` unless smoothed).
    pub waypoint_cells: Vec<Cell>,
    /// The waypoints in world space, worked out by the search's task for the grid's
    /// geometry then ([`SearchOutcome::place`]), and shared as `cells` are.
    pub waypoints: Arc<[Vec2]>,
    /// The geometry `waypoints` were worked out for; `None` before they were.
    pub placed_in: Option<CellGeometry>,
    /// Cost of `cells`.
    pub cost: f64,
    /// The recorded search, when the options asked for it.
    pub trace: Option<SearchTrace>,
    /// How long the search took.
    pub duration: Duration,
    /// The map version of the grid snapshot it ran on (set when the result comes back).
    pub map_version: NavVersion,
    /// The algorithm that ran.
    pub algorithm: PathAlgorithm,
    /// The options it ran with.
    pub options: SearchOptions,
    /// Whether identical requests may reuse it: false for a repaired path, which may not be
    /// the cheapest.
    pub cacheable: bool,
    /// The agent kind it was searched for, whose grid's changes can make it wrong.
    pub kind: KindKey,
    /// The route on a goal's shared tree that answers it instead of `cells` (a hierarchical
    /// request answered off its goal's sector field): the agent is given the route, and map
    /// changes reach it through the tree.
    pub route: Option<SharedRoute>,
}

/// The cells and world waypoints an agent's [`Path`](crate::Path) shows.
pub(crate) type ShownPath = (Arc<[Cell]>, Arc<[Vec2]>);

/// A finished outcome as a search's task hands it over: shared already, stamped with the map
/// version it was searched on, and with the cells and waypoints an agent's path will show
/// referenced already, so that applying it on the main thread moves pointers and changes no
/// reference count (the counts were written by the task's thread, and touching them there costs
/// a cache miss each).
pub(crate) struct ReadyOutcome {
    /// The outcome.
    pub outcome: Arc<SearchOutcome>,
    /// Its cells and waypoints, for one agent's path.
    pub shown: ShownPath,
}

impl ReadyOutcome {
    /// `outcome` with its cells and waypoints referenced for one agent.
    pub(crate) fn new(outcome: Arc<SearchOutcome>) -> Self {
        let shown = (Arc::clone(&outcome.cells), Arc::clone(&outcome.waypoints));
        Self { outcome, shown }
    }

    /// Another reference to the same outcome, for another agent.
    pub(crate) fn share(&self) -> Self {
        Self::new(Arc::clone(&self.outcome))
    }

    /// The outcome, and what a path shows of it on a grid laid out as `geometry`: the
    /// waypoints referenced already when they were worked out for it, else new ones (the grid
    /// moved or was rescaled since; the outcome keeps the old ones, so dropping them frees
    /// nothing).
    pub(crate) fn shown_in(self, geometry: CellGeometry) -> (Arc<SearchOutcome>, ShownPath) {
        let Self {
            outcome,
            shown: (cells, waypoints),
        } = self;
        let waypoints = if outcome.placed_in == Some(geometry) {
            waypoints
        } else {
            outcome.world_waypoints(geometry)
        };
        (outcome, (cells, waypoints))
    }
}

impl SearchOutcome {
    /// A found path along `cells` (at least one), for tests of what handles outcomes.
    #[cfg(test)]
    pub(crate) fn found_along(cells: Vec<Cell>) -> Self {
        Self {
            status: PathStatus::Found,
            start: cells[0],
            goal: cells[cells.len() - 1],
            waypoint_cells: cells.clone(),
            footprint: PathFootprint::of(&cells, astar_grid::Movement::EIGHT, 8, 8),
            cells: cells.into(),
            waypoints: Arc::default(),
            placed_in: None,
            cost: 1.0,
            trace: None,
            duration: Duration::ZERO,
            map_version: NavVersion::default(),
            algorithm: PathAlgorithm::AStar,
            options: SearchOptions::default(),
            cacheable: true,
            kind: KindKey::DEFAULT,
            route: None,
        }
    }

    /// The footprint of the path when one was found, which is what the footprint rules out
    /// map changes for ([`ruled_out_by_footprint`](crate::invalidate::rule::ruled_out_by_footprint)).
    pub(crate) fn found_footprint(&self) -> Option<PathFootprint> {
        (self.status == PathStatus::Found).then_some(self.footprint)
    }

    /// Works out the world waypoints for a grid laid out as `geometry`.
    pub(crate) fn place(&mut self, geometry: CellGeometry) {
        self.waypoints = self.world_waypoints(geometry);
        self.placed_in = Some(geometry);
    }

    /// The footprint centres of `waypoint_cells` on a grid laid out as `geometry`.
    fn world_waypoints(&self, geometry: CellGeometry) -> Arc<[Vec2]> {
        let size = self.kind.size;
        self.waypoint_cells
            .iter()
            .map(|&cell| geometry.footprint_center(cell, size))
            .collect()
    }

    /// An outcome with `status` and no path yet.
    pub(crate) fn without_path(
        job: &SearchJob,
        status: PathStatus,
        algorithm: PathAlgorithm,
    ) -> Self {
        Self {
            status,
            start: job.start,
            goal: job.goal,
            cells: Arc::default(),
            footprint: PathFootprint::default(),
            waypoint_cells: Vec::new(),
            waypoints: Arc::default(),
            placed_in: None,
            cost: 0.0,
            trace: None,
            duration: Duration::ZERO,
            map_version: NavVersion::default(),
            algorithm,
            options: job.options,
            cacheable: true,
            kind: job.kind,
            route: None,
        }
    }
}

/// An agent's [`Path`](crate::Path) got a path to its goal: both a message, for systems that
/// react to many agents at once, and an entity event triggered on the agent, for observers.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// fn on_found(found: On<PathFound>, paths: Query<&Path>) {
///     if let Ok(path) = paths.get(found.entity) {
///         info!("{} steps", path.cells().len());
///     }
/// }
///
/// fn count_found(mut found: MessageReader<PathFound>) {
///     info!("{} agents got a path", found.read().count());
/// }
/// App::new().add_observer(on_found).add_systems(Update, count_found);
/// ```
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct PathFound {
    /// The agent.
    pub entity: Entity,
}

/// An agent's request ended without a path to its goal: both a message and an entity event
/// triggered on the agent, as [`PathFound`] is.
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct PathNotFound {
    /// The agent.
    pub entity: Entity,
    /// Why.
    pub reason: PathFailure,
}
