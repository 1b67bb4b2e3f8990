//! The work done in the background: one search on a grid snapshot, with a searcher reused per
//! thread, turned into an outcome that the main thread applies, caches and checks against map
//! changes.

use crate::{InvalidationPolicy, MapChange, PathAlgorithm, PathStatus};
use astar_grid::{
    Cell, Grid, SearchError, SearchOptions, SearchStatus, SearchTrace, Searcher, SmoothingOptions,
    smooth_path_cells,
};
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

/// Runs one search to the end on this thread's searcher; with `smoothing`, the waypoints are the
/// path cells that [`smooth_path_cells`] keeps under the search's movement rule (straight
/// segments that never enter terrain costlier than the stretch of path they replace).
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
                    smoothed_waypoints(grid, &path.cells, options)
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

/// The cells of `path` to keep as waypoints. The path comes from a search on `grid` with the
/// same movement rule, so smoothing accepts it; should it refuse anyway, every cell stays a
/// waypoint (still a route the agent can walk) and the reason is logged.
fn smoothed_waypoints(grid: &Grid, path: &[Cell], options: &SearchOptions) -> Vec<Cell> {
    smooth_path_cells(grid, path, options.movement, SmoothingOptions::default()).unwrap_or_else(
        |error| {
            bevy::log::warn!("path not smoothed: {error}");
            path.to_vec()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::{CornerRule, Movement};

    fn smoothed(grid: &Grid, start: Cell, goal: Cell, movement: Movement) -> SearchOutcome {
        let options = SearchOptions::default().with_movement(movement);
        run_search(grid, start, goal, &options, PathAlgorithm::AStar, true)
    }

    #[test]
    fn smoothing_follows_the_requested_movement_rule() {
        // Only corner cutting gets from (0, 0) to (2, 2), and then in one straight line.
        let grid = Grid::from_ascii(
            ".#.
             #..
             ...",
        )
        .unwrap();
        let (start, goal) = (Cell::new(0, 0), Cell::new(2, 2));
        let outcome = smoothed(&grid, start, goal, Movement::eight(CornerRule::Any));
        assert_eq!(outcome.status, PathStatus::Found);
        assert_eq!(outcome.cells.len(), 3);
        assert_eq!(outcome.waypoint_cells, [start, goal]);
        let outcome = smoothed(&grid, start, goal, Movement::EIGHT);
        assert_eq!(outcome.status, PathStatus::NoPath);
        assert!(outcome.waypoint_cells.is_empty());
    }

    #[test]
    fn smoothing_does_not_cut_through_costly_terrain() {
        // The only cheap way from (0, 1) to (4, 1) goes over the swamp (cost 9): (1, 0) and
        // (3, 0) stay waypoints, since the straight lines past them would enter the swamp.
        let grid = Grid::from_ascii(
            ".....
             .999.
             #####",
        )
        .unwrap();
        let (start, goal) = (Cell::new(0, 1), Cell::new(4, 1));
        let outcome = smoothed(&grid, start, goal, Movement::EIGHT);
        assert_eq!(outcome.status, PathStatus::Found);
        assert_eq!(
            outcome.cells,
            [(0, 1), (1, 0), (2, 0), (3, 0), (4, 1)].map(Cell::from)
        );
        assert_eq!(
            outcome.waypoint_cells,
            [(0, 1), (1, 0), (3, 0), (4, 1)].map(Cell::from)
        );
    }
}
