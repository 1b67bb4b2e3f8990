//! The work done in the background: one search on a grid snapshot, with a searcher reused per
//! thread, turned into an outcome that the main thread applies, caches and checks against map
//! changes.

use crate::invalidate::PathFootprint;
use crate::{PathAlgorithm, PathStatus};
use astar_grid::{
    Cell, FlowField, Grid, JpsOptions, JumpGrid, Repair, RepairOptions, SearchError, SearchOptions,
    SearchResult, SearchStats, SearchStatus, SearchTrace, Searcher, SmoothingOptions, Step,
    smooth_path_cells,
};
use bevy::platform::time::Instant;
use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, Ordering};
use core::time::Duration;
use std::sync::Arc;

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
    /// Where `cells` and the corners of their diagonal steps lie, so that most map changes are
    /// ruled out without reading the path.
    pub footprint: PathFootprint,
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
    /// The algorithm that ran.
    pub algorithm: PathAlgorithm,
    /// The options it ran with.
    pub options: SearchOptions,
    /// Whether identical requests may reuse it: false for a repaired path, which may not be
    /// the cheapest.
    pub cacheable: bool,
}

impl SearchOutcome {
    /// The part of this found path that `job` can keep and repair: from the job's start (a
    /// cell of the path; agents that moved along it start further on) to the same goal, under
    /// the same options. `None` when the job asks for something else.
    pub(crate) fn repairable_for(&self, job: &SearchJob) -> Option<Vec<Cell>> {
        if self.status != PathStatus::Found || self.goal != job.goal || self.options != job.options
        {
            return None;
        }
        let from = self.cells.iter().position(|&cell| cell == job.start)?;
        Some(self.cells[from..].to_vec())
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
            cells: Vec::new(),
            footprint: PathFootprint::default(),
            waypoint_cells: Vec::new(),
            cost: 0.0,
            trace: None,
            duration: Duration::ZERO,
            map_version: 0,
            algorithm,
            options: job.options,
            cacheable: true,
        }
    }
}

/// Expansions between two checks of whether anyone still wants an A* search.
pub(crate) const SEARCH_SLICE: u32 = 2048;

/// How a request is answered in the background, with the data it needs beyond the grid.
pub(crate) enum Engine {
    /// A* over the grid.
    AStar,
    /// Jump point search over the grid packed for it (a snapshot taken with the grid's).
    JumpPoint(Arc<JumpGrid>),
    /// Reading the path from a flow field built on the same grid snapshot.
    FlowField(Arc<FlowField>),
    /// Splicing local detours into these path cells, from the job's start to its goal, where
    /// they became blocked.
    Repair(Vec<Cell>),
}

/// What a background search is asked: the endpoints, the options and the smoothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SearchJob {
    pub start: Cell,
    pub goal: Cell,
    pub options: SearchOptions,
    pub smoothing: bool,
}

/// Runs one search on this thread's searcher; with `smoothing`, the waypoints are the path
/// cells that [`smooth_path_cells`] keeps under the search's movement rule (straight segments
/// that never enter terrain costlier than the stretch of path they replace).
///
/// A* runs in slices of [`SEARCH_SLICE`] expansions and gives up, returning `None`, when
/// `cancelled` is set between two slices: a search nobody waits for stops holding a thread.
pub(crate) fn run_search(
    grid: &Grid,
    job: &SearchJob,
    engine: &Engine,
    cancelled: &AtomicBool,
) -> Option<SearchOutcome> {
    let began = Instant::now();
    let SearchJob {
        start,
        goal,
        options,
        ..
    } = *job;
    let astar =
        || SEARCHER.with_borrow_mut(|searcher| sliced_astar(searcher, grid, job, cancelled));
    let (result, algorithm, cacheable) = match engine {
        Engine::AStar => (astar()?, PathAlgorithm::AStar, true),
        Engine::JumpPoint(jump_grid) => match JpsOptions::try_from(&options.with_trace(false)) {
            Ok(jps) => (
                SEARCHER.with_borrow_mut(|searcher| {
                    searcher.find_path_jps(jump_grid, start, goal, &jps)
                }),
                PathAlgorithm::JumpPoint,
                true,
            ),
            Err(_) => (astar()?, PathAlgorithm::AStar, true),
        },
        Engine::Repair(cells) => {
            let (result, cacheable) = SEARCHER
                .with_borrow_mut(|searcher| repaired_path(searcher, grid, cells, job, cancelled))?;
            (result, PathAlgorithm::AStar, cacheable)
        }
        Engine::FlowField(field) => (
            flow_field_path(grid, field, start, goal),
            PathAlgorithm::FlowField,
            true,
        ),
    };
    let mut outcome = outcome_of(job, grid, result, algorithm);
    outcome.cacheable = cacheable;
    outcome.duration = began.elapsed();
    Some(outcome)
}

/// Answers `jobs`, which share their goal, movement rule and cost model, with one Dijkstra from
/// the goal ([`FlowField::paths_to_goal_while`]); one outcome per job, in order. A job whose
/// start or goal is invalid gets the error its own search would give. `None` when `cancelled`
/// was set before it began or while it ran (checked every few thousand cells).
pub(crate) fn run_goal_batch(
    grid: &Grid,
    jobs: &[SearchJob],
    cancelled: &AtomicBool,
) -> Option<Vec<SearchOutcome>> {
    if cancelled.load(Ordering::Relaxed) {
        return None;
    }
    let began = Instant::now();
    let first = jobs.first()?;
    let checked: Vec<Result<(), SearchError>> = jobs
        .iter()
        .map(|job| grid.check_endpoints(job.start, job.goal))
        .collect();
    let starts: Vec<Cell> = jobs
        .iter()
        .zip(&checked)
        .filter(|(_, check)| check.is_ok())
        .map(|(job, _)| job.start)
        .collect();
    let options = first.options;
    let mut paths = if starts.is_empty() {
        Ok(Vec::new())
    } else {
        let proceed = || !cancelled.load(Ordering::Relaxed);
        match FlowField::paths_to_goal_while(
            grid,
            &starts,
            first.goal,
            options.movement,
            options.cost,
            proceed,
        ) {
            Ok(Some(paths)) => Ok(paths),
            // Nobody wants the answers any more.
            Ok(None) => return None,
            // The goal passed `check_endpoints`, so the only error left is an invalid cost
            // model, which every job's own search would refuse in the same way.
            Err(_) => Err(SearchError::InvalidCostModel),
        }
    }
    .map(Vec::into_iter);
    let mut outcomes: Vec<SearchOutcome> = jobs
        .iter()
        .zip(checked)
        .map(|(job, check)| {
            let result = match &mut paths {
                Ok(paths) => check.map(|()| field_result(paths.next().flatten())),
                Err(error) => Err(*error),
            };
            outcome_of(job, grid, result, PathAlgorithm::FlowField)
        })
        .collect();
    let duration = began.elapsed();
    for outcome in &mut outcomes {
        outcome.duration = duration;
    }
    Some(outcomes)
}

/// The outcome of a search's `result`, with the waypoints smoothed when the job asks for it.
fn outcome_of(
    job: &SearchJob,
    grid: &Grid,
    result: Result<SearchResult, SearchError>,
    algorithm: PathAlgorithm,
) -> SearchOutcome {
    match result {
        Ok(result) => {
            let status = match result.status {
                SearchStatus::Found => PathStatus::Found,
                SearchStatus::NoPath => PathStatus::NoPath,
                SearchStatus::LimitReached(limit) => PathStatus::LimitReached(limit),
            };
            let mut outcome = SearchOutcome::without_path(job, status, algorithm);
            outcome.trace = result.trace;
            if let Some(path) = result.path {
                outcome.waypoint_cells = if job.smoothing {
                    smoothed_waypoints(grid, &path.cells, &job.options)
                } else {
                    path.cells.clone()
                };
                outcome.footprint = PathFootprint::of(
                    &path.cells,
                    job.options.movement,
                    grid.width(),
                    grid.height(),
                );
                outcome.cells = path.cells;
                outcome.cost = path.cost;
            }
            outcome
        }
        Err(error) => SearchOutcome::without_path(job, PathStatus::Invalid(error), algorithm),
    }
}

/// Repairs `cells` on `grid` (see [`Engine::Repair`]); the flag says whether the result is as
/// cheap as a full search's. `None` when it was cancelled during a full-search fallback.
fn repaired_path(
    searcher: &mut Searcher,
    grid: &Grid,
    cells: &[Cell],
    job: &SearchJob,
    cancelled: &AtomicBool,
) -> Option<(Result<SearchResult, SearchError>, bool)> {
    let options = RepairOptions::new(job.options.with_trace(false));
    match searcher.repair_path(grid, cells, &options) {
        Ok(repaired) => {
            let status = match repaired.repair {
                Repair::NoPath => SearchStatus::NoPath,
                Repair::LimitReached(limit) => SearchStatus::LimitReached(limit),
                Repair::Untouched | Repair::Spliced { .. } | Repair::FullSearch => {
                    SearchStatus::Found
                }
            };
            let result = SearchResult {
                status,
                path: repaired.path,
                stats: repaired.stats,
                trace: None,
            };
            Some((Ok(result), repaired.optimal || !job.options.is_optimal()))
        }
        // The old path does not fit the grid any more (its start or goal became blocked,
        // say): a full search gives the request's answer, or its error.
        Err(_) => sliced_astar(searcher, grid, job, cancelled).map(|result| (result, true)),
    }
}

/// A* in slices, checking `cancelled` between them; `None` when it was cancelled.
fn sliced_astar(
    searcher: &mut Searcher,
    grid: &Grid,
    job: &SearchJob,
    cancelled: &AtomicBool,
) -> Option<Result<SearchResult, SearchError>> {
    let mut search = match searcher.begin(grid, job.start, job.goal, &job.options) {
        Ok(search) => search,
        Err(error) => return Some(Err(error)),
    };
    loop {
        match search.advance(SEARCH_SLICE) {
            Step::Done(result) => return Some(Ok(result)),
            Step::Pending(_) if cancelled.load(Ordering::Relaxed) => return None,
            Step::Pending(active) => search = active,
        }
    }
}

/// The path from `start` read off `field` (whose goal is `goal`), as a search result.
fn flow_field_path(
    grid: &Grid,
    field: &FlowField,
    start: Cell,
    goal: Cell,
) -> Result<SearchResult, SearchError> {
    grid.check_endpoints(start, goal)?;
    Ok(field_result(field.path_from(start)))
}

/// A path read off a flow field (or none), as a search result.
fn field_result(path: Option<astar_grid::Path>) -> SearchResult {
    let status = if path.is_some() {
        SearchStatus::Found
    } else {
        SearchStatus::NoPath
    };
    SearchResult {
        status,
        path,
        stats: SearchStats::default(),
        trace: None,
    }
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

    fn job(start: Cell, goal: Cell, options: SearchOptions, smoothing: bool) -> SearchJob {
        SearchJob {
            start,
            goal,
            options,
            smoothing,
        }
    }

    fn smoothed(grid: &Grid, start: Cell, goal: Cell, movement: Movement) -> SearchOutcome {
        let options = SearchOptions::default().with_movement(movement);
        let job = job(start, goal, options, true);
        run_search(grid, &job, &Engine::AStar, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn a_cancelled_search_stops_after_one_slice() {
        // Corner to corner of an open grid takes many slices of expansions with the zero
        // heuristic; a search cancelled beforehand gives up after its first slice.
        let grid = Grid::new(200, 200);
        let options = SearchOptions::default().with_heuristic(astar_grid::Heuristic::Zero);
        let job = job(Cell::new(0, 0), Cell::new(199, 199), options, false);
        let outcome = run_search(&grid, &job, &Engine::AStar, &AtomicBool::new(false));
        assert_eq!(
            outcome.map(|outcome| outcome.status),
            Some(PathStatus::Found)
        );
        assert_eq!(
            run_search(&grid, &job, &Engine::AStar, &AtomicBool::new(true)),
            None
        );
    }

    #[test]
    fn jump_point_search_runs_where_it_can_and_a_star_elsewhere() {
        let grid = Grid::new(3, 3);
        let jump_grid = Arc::new(JumpGrid::new(&grid).unwrap());
        let (start, goal) = (Cell::new(0, 0), Cell::new(2, 2));
        let run = |options: SearchOptions| {
            let job = job(start, goal, options, false);
            let engine = Engine::JumpPoint(Arc::clone(&jump_grid));
            run_search(&grid, &job, &engine, &AtomicBool::new(false)).unwrap()
        };
        let jump = run(SearchOptions::default());
        let astar = run(SearchOptions::default().with_movement(Movement::FOUR));
        assert_eq!(jump.algorithm, PathAlgorithm::JumpPoint);
        assert_eq!(astar.algorithm, PathAlgorithm::AStar);
        // Full cell paths (every step to a neighbour), at the optimal cost under each rule.
        assert_eq!(jump.cells, [(0, 0), (1, 1), (2, 2)].map(Cell::from));
        assert!((jump.cost - 2.0 * core::f64::consts::SQRT_2).abs() < 1e-9);
        assert_eq!((astar.cells.len(), astar.cost), (5, 4.0));
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
