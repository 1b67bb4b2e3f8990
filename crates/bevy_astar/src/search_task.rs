//! The work done in the background: one search on a grid snapshot, with a searcher reused per
//! thread, turned into an outcome that the main thread applies, caches and checks against map
//! changes.

use crate::smoothing::smooth_path;
use crate::{InvalidationPolicy, MapChange, PathAlgorithm, PathStatus};
use astar_grid::{Cell, Grid, SearchError, SearchOptions, SearchStatus, SearchTrace, Searcher};
use bevy::platform::time::Instant;
use core::cell::RefCell;
use core::time::Duration;

std::thread_local! {
    /// One searcher per task-pool thread: after its first search on a grid, later searches
    /// allocate nothing but their path.
    static SEARCHER: RefCell<Searcher> = RefCell::new(Searcher::new());
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
    /// The path (or partial path), empty when there is none.
    pub cells: Vec<Cell>,
    /// The cells whose centres are the waypoints (all of `cells` unless smoothed).
    pub waypoint_cells: Vec<Cell>,
    /// Cost of `cells`.
    pub cost: f64,
    /// The recorded search, when the options asked for it.
    pub trace: Option<SearchTrace>,
    /// How long the search took.
    pub duration: Duration,
    /// The map version of the grid snapshot it ran on (set when the result comes back).
    pub map_version: u64,
}

impl SearchOutcome {
    /// Whether `change` may have made this outcome wrong, so that it must be searched again.
    pub(crate) fn affected_by(&self, change: &MapChange, policy: InvalidationPolicy) -> bool {
        if change.is_whole_map() {
            return true;
        }
        match self.status {
            PathStatus::Found => {
                change.touches_any(&self.cells)
                    || (policy == InvalidationPolicy::TouchedOrOpened && change.improves_any())
            }
            PathStatus::NoPath => change.opens_any(),
            PathStatus::Invalid(
                SearchError::StartBlocked(cell) | SearchError::GoalBlocked(cell),
            ) => change.touches(cell),
            // Bounds and option errors change only with a new grid (a whole-map change).
            PathStatus::Invalid(_) => false,
            // Where a limit stops depends on every cell it looked at.
            PathStatus::LimitReached(_)
            | PathStatus::Queued
            | PathStatus::Searching
            | PathStatus::WaitingForMap => !change.is_empty(),
        }
    }
}

/// Runs one search to the end on this thread's searcher.
pub(crate) fn run_search(
    grid: &Grid,
    start: Cell,
    goal: Cell,
    options: &SearchOptions,
    algorithm: PathAlgorithm,
    smoothing: bool,
) -> SearchOutcome {
    let began = Instant::now();
    let result = SEARCHER.with_borrow_mut(|searcher| match algorithm {
        PathAlgorithm::AStar => searcher.find_path(grid, start, goal, options),
    });
    let mut outcome = SearchOutcome {
        status: PathStatus::NoPath,
        start,
        goal,
        cells: Vec::new(),
        waypoint_cells: Vec::new(),
        cost: 0.0,
        trace: None,
        duration: Duration::ZERO,
        map_version: 0,
    };
    match result {
        Ok(result) => {
            outcome.status = match result.status {
                SearchStatus::Found => PathStatus::Found,
                SearchStatus::NoPath => PathStatus::NoPath,
                SearchStatus::LimitReached(limit) => PathStatus::LimitReached(limit),
            };
            outcome.trace = result.trace;
            if let Some(path) = result.path {
                outcome.waypoint_cells = if smoothing {
                    smooth_path(grid, &path.cells)
                } else {
                    path.cells.clone()
                };
                outcome.cells = path.cells;
                outcome.cost = path.cost;
            }
        }
        Err(error) => outcome.status = PathStatus::Invalid(error),
    }
    outcome.duration = began.elapsed();
    outcome
}
