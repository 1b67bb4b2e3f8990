//! The dispatcher's decision for one queued request, as a pure function of the request and
//! what the plugin knows this frame: served from the cache, joins a running search, waits,
//! joins a goal batch, fails now, or starts a search with a chosen engine.

use crate::engine::SearchEngine;
use crate::engine::goal_batch::GoalBatches;
use crate::kinds::KindError;
use crate::outcome::{SearchJob, SearchOutcome};
use crate::{PathAlgorithm, PathStatus, PathfindingSettings};
use astar_grid::{Grid, SearchError};
use core::time::Duration;

/// Where one queued request goes this frame.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Route {
    /// The result cache holds its answer: apply it now.
    FromCache,
    /// An identical search is running: wait for its answer.
    JoinRunning,
    /// Not this frame (its minimum interval has not passed, or the caps are reached): it keeps
    /// its place in the queue.
    Wait,
    /// It joins this frame's gathering of requests for its goal, started once the queue is read
    /// ([`PathfindingSettings::goal_batch_min`]); should too few gather, it is searched alone
    /// with this engine.
    JoinBatch(SearchJob, SearchEngine),
    /// It cannot be searched: it fails now with this status (an invalid request or agent
    /// kind), as its search would.
    FailNow(SearchJob, PathStatus),
    /// Start a background search of `job` with this engine.
    Start(SearchJob, SearchEngine),
}

/// What the plugin knows this frame, beside the request.
pub(crate) struct RouteContext<'a> {
    /// The settings in force.
    pub settings: &'a PathfindingSettings,
    /// The grid as it is now.
    pub grid: &'a Grid,
    /// [`Time::elapsed`](bevy::time::Time::elapsed) this frame.
    pub now: Duration,
    /// Whether the per-frame and in-flight caps allow another search.
    pub may_start: bool,
}

/// One queued request, with what is known of it.
pub(crate) struct QueuedRequest<'a> {
    /// What the request asks (its start already moved to the agent where it asks for that),
    /// with tracing forced on where the debug overlay asks for it.
    pub job: SearchJob,
    /// When the agent's last search started.
    pub last_search: Option<Duration>,
    /// The agent's path that a map change cut, if any, for local repair.
    pub cut_path: Option<&'a SearchOutcome>,
    /// Whether the result cache holds the answer.
    pub cached: bool,
    /// Whether an identical search is running.
    pub running: bool,
    /// Whether the request's agent kind can be searched and its footprint fits at the
    /// endpoints.
    pub kind_fit: Result<(), KindError>,
    /// Whether the request is shown its first cells at once when it starts a search
    /// ([`PathRequest::first_cells_fast`](crate::PathRequest::first_cells_fast), on a hierarchy
    /// built whole): it is searched on its own, never in its goal's batch.
    pub first_cells: bool,
}

/// Whether `job` may join its goal's batch: a request whose own search would be optimal and
/// unlimited ([`GoalBatches::accepts`]), or a hierarchical request with such options. The
/// launcher answers a batch of hierarchical requests off the goal's sector field once their
/// hierarchy is built, and by one optimal search from the goal while it is not (never worse
/// than a hierarchical answer).
fn joins_batch(job: &SearchJob) -> bool {
    GoalBatches::accepts(job)
        || (job.algorithm == PathAlgorithm::Hierarchical
            && GoalBatches::accepts_options(PathAlgorithm::AStar, &job.options))
}

/// Decides where `queued` goes, in this order: the cache, a running search, the agent's
/// minimum interval, local repair of its cut path, a goal batch, the caps, and then the engine
/// its algorithm asks for (a flow-field request with a bad start or goal fails now, since no
/// field can answer it, unless it asks for the closest reachable cell to a blocked goal, which
/// A* finds).
pub(crate) fn route(context: &RouteContext, queued: &QueuedRequest) -> Route {
    let settings = context.settings;
    if queued.cached && settings.cache_capacity > 0 {
        return Route::FromCache;
    }
    if queued.running {
        return Route::JoinRunning;
    }
    let too_soon = queued
        .last_search
        .is_some_and(|last| context.now.saturating_sub(last) < settings.min_search_interval);
    if too_soon {
        return Route::Wait;
    }
    let job = queued.job;
    if let Err(error) = queued.kind_fit {
        return Route::FailNow(job, PathStatus::InvalidKind(error));
    }
    let repair = queued
        .cut_path
        .filter(|_| job.algorithm != PathAlgorithm::FlowField && !job.options.trace)
        .and_then(|old| old.repairable_for(&job));
    if settings.goal_batch_min > 0 && repair.is_none() && !queued.first_cells && joins_batch(&job) {
        return Route::JoinBatch(job, SearchEngine::alone(job.algorithm, job.kind));
    }
    if !context.may_start {
        return Route::Wait;
    }
    let engine = match (repair, job.algorithm) {
        (Some(cells), _) => SearchEngine::Repair(cells),
        (None, PathAlgorithm::FlowField) => match context.grid.check_endpoints(job.start, job.goal)
        {
            Ok(()) => SearchEngine::FlowField(None),
            // No field can be built towards a blocked goal; A* finds the closest cell.
            Err(SearchError::GoalBlocked(_)) if job.options.closest_reachable => {
                SearchEngine::AStar
            }
            Err(error) => return Route::FailNow(job, PathStatus::Invalid(error)),
        },
        (None, algorithm) => SearchEngine::alone(algorithm, job.kind),
    };
    Route::Start(job, engine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PathRequest;
    use crate::outcome::SearchOutcome;
    use astar_grid::Cell;

    const GOAL: Cell = Cell::new(7, 3);

    fn context<'a>(settings: &'a PathfindingSettings, grid: &'a Grid) -> RouteContext<'a> {
        RouteContext {
            settings,
            grid,
            now: Duration::from_secs(10),
            may_start: true,
        }
    }

    fn queued(request: &PathRequest) -> QueuedRequest<'_> {
        QueuedRequest {
            job: job(request),
            last_search: None,
            cut_path: None,
            cached: false,
            running: false,
            kind_fit: Ok(()),
            first_cells: false,
        }
    }

    fn job(request: &PathRequest) -> SearchJob {
        SearchJob::of(request, request.options)
    }

    /// A found path along row 3 from (0, 3) to the goal.
    fn cut_path(request: &PathRequest) -> SearchOutcome {
        let mut outcome =
            SearchOutcome::without_path(&job(request), PathStatus::Found, PathAlgorithm::AStar);
        outcome.cells = (0..=7).map(|x| Cell::new(x, 3)).collect();
        outcome
    }

    #[test]
    fn the_cache_comes_first_then_a_running_search_then_the_interval() {
        let grid = Grid::new(8, 8);
        let settings = PathfindingSettings {
            min_search_interval: Duration::from_secs(1),
            ..PathfindingSettings::default()
        };
        let request = PathRequest::new(Cell::new(0, 3), GOAL);
        let context = context(&settings, &grid);
        let mut waiting = queued(&request);
        waiting.cached = true;
        waiting.running = true;
        waiting.last_search = Some(Duration::from_millis(9_500));
        assert_eq!(route(&context, &waiting), Route::FromCache);
        waiting.cached = false;
        assert_eq!(route(&context, &waiting), Route::JoinRunning);
        waiting.running = false;
        assert_eq!(route(&context, &waiting), Route::Wait);
        waiting.last_search = Some(Duration::from_secs(9));
        assert!(matches!(route(&context, &waiting), Route::JoinBatch(..)));
        // With the cache off, a cached entry does not count.
        let uncached = PathfindingSettings {
            cache_capacity: 0,
            ..settings.clone()
        };
        waiting.cached = true;
        let context = RouteContext {
            settings: &uncached,
            ..context
        };
        assert!(matches!(route(&context, &waiting), Route::JoinBatch(..)));
    }

    #[test]
    fn hierarchical_requests_with_options_a_batch_honours_join_a_batch() {
        let grid = Grid::new(8, 8);
        let settings = PathfindingSettings::default();
        let context = context(&settings, &grid);
        let request =
            PathRequest::new(Cell::new(0, 3), GOAL).with_algorithm(PathAlgorithm::Hierarchical);
        assert_eq!(
            route(&context, &queued(&request)),
            Route::JoinBatch(job(&request), SearchEngine::Hierarchical(None))
        );
        // Options a batch could not honour start alone.
        let limited = request.with_options(request.options.with_max_expansions(100));
        assert_eq!(
            route(&context, &queued(&limited)),
            Route::Start(job(&limited), SearchEngine::Hierarchical(None))
        );
        // With batches off, every request starts alone.
        let unbatched = PathfindingSettings {
            goal_batch_min: 0,
            ..settings.clone()
        };
        let alone = RouteContext {
            settings: &unbatched,
            ..context
        };
        assert_eq!(
            route(&alone, &queued(&request)),
            Route::Start(job(&request), SearchEngine::Hierarchical(None))
        );
        // A request shown its first cells at once is searched on its own.
        let first = request.with_first_cells_fast(true);
        let mut shown = queued(&first);
        shown.first_cells = true;
        assert_eq!(
            route(&context, &shown),
            Route::Start(job(&first), SearchEngine::Hierarchical(None))
        );
    }

    #[test]
    fn optimal_searches_join_a_batch_and_the_rest_start_within_the_caps() {
        let grid = Grid::new(8, 8);
        let settings = PathfindingSettings::default();
        let plain = PathRequest::new(Cell::new(0, 3), GOAL);
        let weighted = plain.with_options(plain.options.with_weight(2.0));
        let jump = plain.with_algorithm(PathAlgorithm::JumpPoint);
        let context = context(&settings, &grid);
        assert_eq!(
            route(&context, &queued(&plain)),
            Route::JoinBatch(job(&plain), SearchEngine::AStar)
        );
        assert_eq!(
            route(&context, &queued(&jump)),
            Route::JoinBatch(job(&jump), SearchEngine::JumpPoint(None))
        );
        assert_eq!(
            route(&context, &queued(&weighted)),
            Route::Start(job(&weighted), SearchEngine::AStar)
        );
        let capped = RouteContext {
            may_start: false,
            ..context
        };
        assert_eq!(route(&capped, &queued(&weighted)), Route::Wait);
        // A batch is decided once the queue is read, so the caps do not hold it back here.
        assert!(matches!(
            route(&capped, &queued(&plain)),
            Route::JoinBatch(..)
        ));
        let no_batches = PathfindingSettings {
            goal_batch_min: 0,
            ..settings.clone()
        };
        let unbatched = RouteContext {
            settings: &no_batches,
            ..context
        };
        assert_eq!(
            route(&unbatched, &queued(&jump)),
            Route::Start(job(&jump), SearchEngine::JumpPoint(None))
        );
    }

    #[test]
    fn a_cut_path_is_repaired_unless_traced_or_read_off_a_flow_field() {
        let grid = Grid::new(8, 8);
        let settings = PathfindingSettings::default();
        let context = context(&settings, &grid);
        let request = PathRequest::new(Cell::new(2, 3), GOAL);
        let old = cut_path(&request);
        let mut waiting = queued(&request);
        waiting.cut_path = Some(&old);
        let kept: Vec<Cell> = (2..=7).map(|x| Cell::new(x, 3)).collect();
        assert_eq!(
            route(&context, &waiting),
            Route::Start(job(&request), SearchEngine::Repair(kept))
        );
        waiting.job.options = request.options.with_trace(true);
        assert!(matches!(
            route(&context, &waiting),
            Route::Start(_, SearchEngine::AStar)
        ));
        let field = request.with_algorithm(PathAlgorithm::FlowField);
        let mut waiting = queued(&field);
        waiting.cut_path = Some(&old);
        assert_eq!(
            route(&context, &waiting),
            Route::Start(job(&field), SearchEngine::FlowField(None))
        );
        // A start that is not on the old path cannot keep any of it.
        let elsewhere = PathRequest::new(Cell::new(2, 4), GOAL);
        let mut waiting = queued(&elsewhere);
        waiting.cut_path = Some(&old);
        assert!(matches!(route(&context, &waiting), Route::JoinBatch(..)));
    }

    #[test]
    fn a_flow_field_request_with_a_bad_endpoint_fails_at_once() {
        let mut grid = Grid::new(8, 8);
        grid.set_cost(GOAL, 0).expect("inside the grid");
        let settings = PathfindingSettings::default();
        let context = context(&settings, &grid);
        let blocked =
            PathRequest::new(Cell::new(0, 3), GOAL).with_algorithm(PathAlgorithm::FlowField);
        assert_eq!(
            route(&context, &queued(&blocked)),
            Route::FailNow(
                job(&blocked),
                PathStatus::Invalid(SearchError::GoalBlocked(GOAL))
            )
        );
        let outside = PathRequest::new(Cell::new(0, 3), Cell::new(8, 0))
            .with_algorithm(PathAlgorithm::FlowField);
        assert!(matches!(
            route(&context, &queued(&outside)),
            Route::FailNow(_, PathStatus::Invalid(SearchError::GoalOutOfBounds(_)))
        ));
        // Asked for the closest reachable cell, a blocked goal is A*'s to search.
        let closest = blocked.with_options(blocked.options.with_closest_reachable(true));
        assert_eq!(
            route(&context, &queued(&closest)),
            Route::Start(job(&closest), SearchEngine::AStar)
        );
        let closest_outside = outside.with_options(outside.options.with_closest_reachable(true));
        assert!(matches!(
            route(&context, &queued(&closest_outside)),
            Route::FailNow(_, PathStatus::Invalid(SearchError::GoalOutOfBounds(_)))
        ));
    }
}
