//! The search engines and the work they do in the background: one search (or one batch) on a
//! grid snapshot, with a searcher reused per thread, turned into an outcome that the main thread
//! applies, caches and checks against map changes.
//!
//! One module per engine, each saying when it can honour a request and what it falls back to,
//! how it runs in the background, and what trace it records:
//! - [`astar`]: every request; sliced, cancellable; records the trace asked for;
//! - [`jump_point`]: uniform grids and optimal octile options, else A*;
//! - [`flow_field`]: shared fields per goal, kept up to date under map edits;
//! - [`goal_batch`]: many optimal requests for one goal, one Dijkstra from the goal;
//! - [`hierarchical`]: a search over the grid's sector hierarchy, for huge maps, else A*;
//! - [`first_cells`]: the rest of a hierarchical path whose first cells an agent was shown;
//! - [`sector_field`]: many hierarchical requests for one goal, one sector flow field over
//!   the hierarchy, kept for the goal's later requests;
//! - [`repair`]: a cut path spliced around the cut, else A*.
//!
//! Adding an engine means a module here, a variant of [`SearchEngine`] (what dispatch's `route`
//! picks for a request, with the data it runs on once prepared) and its arm in [`run_search`],
//! and, for an engine a user asks for by name, a variant of the public
//! [`PathAlgorithm`](crate::PathAlgorithm).

pub(crate) mod astar;
pub(crate) mod first_cells;
pub(crate) mod flow_field;
pub(crate) mod goal_batch;
pub(crate) mod hierarchical;
pub(crate) mod jump_point;
pub(crate) mod repair;
pub(crate) mod sector_field;

use crate::kinds::KindKey;
use crate::map::PathFootprint;
use crate::outcome::{SearchJob, SearchOutcome};
use crate::{PathAlgorithm, PathStatus};
use astar_grid::{
    Cell, GoalTree, Grid, Hierarchy, JumpGrid, SearchError, SearchOptions, SearchResult,
    SearchStatus, Searcher, SmoothingOptions, smooth_path_cells,
};
use bevy::platform::time::Instant;
use core::cell::RefCell;
use core::sync::atomic::AtomicBool;
use first_cells::FirstCells;
use std::sync::Arc;

std::thread_local! {
    /// The searchers of this thread not in use: after its first search on a grid, a searcher
    /// allocates nothing but the paths. A thread of the task pool runs one search at a time and
    /// keeps one; the main thread, which runs searches a slice at a time without Bevy's
    /// `multi_threaded`, holds one only while a search is part way through.
    static SEARCHERS: RefCell<Vec<Searcher>> = const { RefCell::new(Vec::new()) };
}

/// A searcher taken from this thread's [`SEARCHERS`] for one search, and given back to the
/// pool of the thread it is dropped on.
struct SearcherLease(Option<Searcher>);

impl SearcherLease {
    /// Takes a searcher of this thread, or a new one.
    fn take() -> Self {
        Self(Some(
            SEARCHERS.with_borrow_mut(Vec::pop).unwrap_or_default(),
        ))
    }

    /// The searcher.
    fn searcher(&mut self) -> &mut Searcher {
        self.0.get_or_insert_default()
    }
}

impl Drop for SearcherLease {
    fn drop(&mut self) {
        if let Some(searcher) = self.0.take() {
            // A search part way through when its thread ends (the main thread's queue of work
            // is dropped with the thread's other locals) frees its searcher instead.
            let _ = SEARCHERS.try_with(|searchers| {
                if let Ok(mut searchers) = searchers.try_borrow_mut() {
                    searchers.push(searcher);
                }
            });
        }
    }
}

/// The engine that answers a request that starts a search: what dispatch's route picks for it
/// (an engine with data picked before the data is at hand holds `None`), and, once dispatch
/// prepared it at the start of the search, the data it runs on beyond the grid.
#[derive(Clone)]
pub(crate) enum SearchEngine {
    /// A* (also when jump point search was asked for but the grid cannot take it).
    AStar,
    /// Jump point search over the grid packed for it (a snapshot taken with the grid's), where
    /// the grid and the options allow it, else A*.
    JumpPoint(Option<Arc<JumpGrid>>),
    /// A path read off the goal's shared flow field, built on the same grid snapshot, once the
    /// field is ready.
    FlowField(Option<Arc<GoalTree>>),
    /// Local repair: detours spliced into these cells of the agent's cut path, from the job's
    /// start to its goal, where they became blocked.
    Repair(Vec<Cell>),
    /// A search over the grid's sector hierarchy (a snapshot taken with the grid's), where the
    /// options allow it, else A*.
    Hierarchical(Option<Arc<Hierarchy>>),
    /// The rest of a search over the grid's sector hierarchy after the first cells the agent
    /// was shown, and then the whole path from the job's start.
    HierarchicalRest(Arc<Hierarchy>, Arc<FirstCells>),
}

impl SearchEngine {
    /// The engine that answers a request for `algorithm` searched on its own, from its start,
    /// for agents of `kind`: jump points run on the navigation grid's own jump grid, so other
    /// kinds run A* instead.
    pub(crate) const fn alone(algorithm: PathAlgorithm, kind: KindKey) -> Self {
        match algorithm {
            PathAlgorithm::AStar => Self::AStar,
            PathAlgorithm::JumpPoint if kind.is_default() => Self::JumpPoint(None),
            PathAlgorithm::JumpPoint => Self::AStar,
            PathAlgorithm::FlowField => Self::FlowField(None),
            PathAlgorithm::Hierarchical if kind.is_default() => Self::Hierarchical(None),
            PathAlgorithm::Hierarchical => Self::AStar,
        }
    }
}

impl core::fmt::Debug for SearchEngine {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::AStar => f.write_str("AStar"),
            Self::JumpPoint(grid) => write!(f, "JumpPoint(prepared: {})", grid.is_some()),
            Self::FlowField(field) => write!(f, "FlowField(prepared: {})", field.is_some()),
            Self::Repair(cells) => f.debug_tuple("Repair").field(cells).finish(),
            Self::Hierarchical(hierarchy) => {
                write!(f, "Hierarchical(prepared: {})", hierarchy.is_some())
            }
            Self::HierarchicalRest(_, first) => {
                write!(f, "HierarchicalRest(first cells: {})", first.cells.len())
            }
        }
    }
}

/// Engines are equal when they are the same engine on the same data (the same jump grid or
/// flow field, not an equal one).
impl PartialEq for SearchEngine {
    fn eq(&self, other: &Self) -> bool {
        fn same<T>(a: Option<&Arc<T>>, b: Option<&Arc<T>>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
        }
        match (self, other) {
            (Self::AStar, Self::AStar) => true,
            (Self::JumpPoint(a), Self::JumpPoint(b)) => same(a.as_ref(), b.as_ref()),
            (Self::FlowField(a), Self::FlowField(b)) => same(a.as_ref(), b.as_ref()),
            (Self::Repair(a), Self::Repair(b)) => a == b,
            (Self::Hierarchical(a), Self::Hierarchical(b)) => same(a.as_ref(), b.as_ref()),
            (Self::HierarchicalRest(a, first_a), Self::HierarchicalRest(b, first_b)) => {
                Arc::ptr_eq(a, b) && Arc::ptr_eq(first_a, first_b)
            }
            _ => false,
        }
    }
}

/// Runs one search on a searcher of this thread; with `smoothing`, the waypoints are the path
/// cells that [`smooth_path_cells`] keeps under the search's movement rule (straight segments
/// that never enter terrain costlier than the stretch of path they replace).
///
/// A* runs in slices of [`astar::SEARCH_SLICE`] expansions and gives up, returning `None`,
/// when `cancelled` is set between two slices: a search nobody waits for stops holding a thread.
/// Between two slices it may also yield ([`slice_point`](crate::background::slice_point)),
/// when it runs on the main thread and the frame's time is spent.
pub(crate) async fn run_search(
    grid: &Grid,
    job: &SearchJob,
    engine: &SearchEngine,
    cancelled: &AtomicBool,
) -> Option<SearchOutcome> {
    let began = Instant::now();
    let mut lease = SearcherLease::take();
    let searcher = lease.searcher();
    let mut searched = *job;
    let answer = match engine {
        SearchEngine::HierarchicalRest(hierarchy, first) => {
            let (answer, rest) =
                first_cells::run(searcher, grid, (hierarchy, first), job, cancelled).await?;
            searched = rest;
            Some(answer)
        }
        SearchEngine::JumpPoint(Some(jump_grid)) => {
            jump_point::run(searcher, grid, jump_grid, job, cancelled).await
        }
        SearchEngine::Repair(cells) => repair::run(searcher, grid, cells, job, cancelled).await,
        SearchEngine::Hierarchical(Some(hierarchy)) => {
            hierarchical::run(searcher, grid, hierarchy, job, cancelled).await
        }
        // Unless the request asks for the closest reachable cell and the field does not reach
        // its start (or the goal was walled since the field was chosen): A* finds that cell
        // (the last arm).
        SearchEngine::FlowField(Some(field)) if flow_field::answers(grid, field, job) => {
            Some(flow_field::run(grid, field, job))
        }
        // A* itself, and engines without their data (dispatch prepares every engine it starts).
        SearchEngine::AStar
        | SearchEngine::JumpPoint(None)
        | SearchEngine::FlowField(_)
        | SearchEngine::Hierarchical(None) => astar::run(searcher, grid, job, cancelled)
            .await
            .map(EngineAnswer::astar),
    }?;
    drop(lease);
    let mut outcome = outcome_of(&searched, grid, answer.result, answer.algorithm);
    outcome.cacheable = answer.cacheable;
    if let SearchEngine::HierarchicalRest(_, first) = engine {
        first.lead_into(&mut outcome, job, grid);
    }
    outcome.duration = began.elapsed();
    Some(outcome)
}

/// What an engine's run produced, before smoothing and bookkeeping.
pub(crate) struct EngineAnswer {
    /// The search's result, or why it could not search.
    pub result: Result<SearchResult, SearchError>,
    /// The engine that actually ran (an engine that fell back names the fallback).
    pub algorithm: PathAlgorithm,
    /// Whether identical requests may reuse the outcome.
    pub cacheable: bool,
}

impl EngineAnswer {
    /// A* answered, cacheably.
    pub(crate) const fn astar(result: Result<SearchResult, SearchError>) -> Self {
        Self {
            result,
            algorithm: PathAlgorithm::AStar,
            cacheable: true,
        }
    }
}

/// The outcome of a search's `result`, with the waypoints smoothed when the job asks for it.
pub(crate) fn outcome_of(
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
                outcome.cells = path.cells.into();
                outcome.cost = path.cost;
            }
            outcome
        }
        Err(error) => SearchOutcome::without_path(job, PathStatus::Invalid(error), algorithm),
    }
}

/// The cells of `path` to keep as waypoints. The path comes from a search on `grid` with the
/// same movement rule, so smoothing accepts it; should it refuse anyway, every cell stays a
/// waypoint (still a route the agent can walk) and the reason is logged.
pub(crate) fn smoothed_waypoints(grid: &Grid, path: &[Cell], options: &SearchOptions) -> Vec<Cell> {
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
    use crate::outcome::ReadyOutcome;
    use astar_grid::{CornerRule, Movement};
    use bevy::math::Vec2;
    use bevy::tasks::block_on;

    fn job(start: Cell, goal: Cell, options: SearchOptions, smoothing: bool) -> SearchJob {
        SearchJob {
            start,
            goal,
            options,
            smoothing,
            algorithm: PathAlgorithm::AStar,
            kind: KindKey::DEFAULT,
        }
    }

    fn smoothed(grid: &Grid, start: Cell, goal: Cell, movement: Movement) -> SearchOutcome {
        let options = SearchOptions::default().with_movement(movement);
        let job = job(start, goal, options, true);
        block_on(run_search(
            grid,
            &job,
            &SearchEngine::AStar,
            &AtomicBool::new(false),
        ))
        .unwrap()
    }

    #[test]
    fn a_cancelled_search_stops_after_one_slice() {
        // Corner to corner of an open grid takes many slices of expansions with the zero
        // heuristic; a search cancelled beforehand gives up after its first slice.
        let grid = Grid::new(200, 200);
        let options = SearchOptions::default().with_heuristic(astar_grid::Heuristic::Zero);
        let job = job(Cell::new(0, 0), Cell::new(199, 199), options, false);
        let outcome = block_on(run_search(
            &grid,
            &job,
            &SearchEngine::AStar,
            &AtomicBool::new(false),
        ));
        assert_eq!(
            outcome.map(|outcome| outcome.status),
            Some(PathStatus::Found)
        );
        assert_eq!(
            block_on(run_search(
                &grid,
                &job,
                &SearchEngine::AStar,
                &AtomicBool::new(true)
            )),
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
            let engine = SearchEngine::JumpPoint(Some(Arc::clone(&jump_grid)));
            block_on(run_search(&grid, &job, &engine, &AtomicBool::new(false))).unwrap()
        };
        let jump = run(SearchOptions::default());
        let astar = run(SearchOptions::default().with_movement(Movement::FOUR));
        assert_eq!(jump.algorithm, PathAlgorithm::JumpPoint);
        assert_eq!(astar.algorithm, PathAlgorithm::AStar);
        // Full cell paths (every step to a neighbour), at the optimal cost under each rule.
        assert_eq!(*jump.cells, [(0, 0), (1, 1), (2, 2)].map(Cell::from));
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
            *outcome.cells,
            [(0, 1), (1, 0), (2, 0), (3, 0), (4, 1)].map(Cell::from)
        );
        assert_eq!(
            outcome.waypoint_cells,
            [(0, 1), (1, 0), (3, 0), (4, 1)].map(Cell::from)
        );
    }

    #[test]
    fn waypoints_worked_out_in_the_background_are_shared_unless_the_grid_moved() {
        let grid = Grid::new(6, 3);
        let mut outcome = smoothed(&grid, Cell::new(0, 1), Cell::new(5, 1), Movement::EIGHT);
        let nav = crate::NavGrid::new(grid.clone()).with_cell_size(Vec2::splat(16.0));
        outcome.place(nav.geometry());
        let centres: Vec<Vec2> = outcome
            .waypoint_cells
            .iter()
            .map(|&cell| nav.cell_center(cell))
            .collect();
        let outcome = Arc::new(outcome);
        let (_, (_, shared)) = ReadyOutcome::new(Arc::clone(&outcome)).shown_in(nav.geometry());
        assert!(Arc::ptr_eq(&shared, &outcome.waypoints));
        assert_eq!(*shared, *centres);
        // The grid moved after the search: the waypoints follow it.
        let moved = nav.with_origin(Vec2::new(100.0, -50.0));
        let (_, (_, fresh)) = ReadyOutcome::new(Arc::clone(&outcome)).shown_in(moved.geometry());
        assert!(!Arc::ptr_eq(&fresh, &outcome.waypoints));
        let expected: Vec<Vec2> = outcome
            .waypoint_cells
            .iter()
            .map(|&cell| moved.cell_center(cell))
            .collect();
        assert_eq!(*fresh, *expected);
    }
}
