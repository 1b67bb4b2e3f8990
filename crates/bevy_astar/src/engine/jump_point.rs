//! The jump point engine: jump point search over the grid packed for it, much faster than A* on
//! open maps, where it can honour the request: a grid without terrain costs, eight neighbours
//! without corner cutting, the octile heuristic unweighted, no window or partial path
//! ([`JpsOptions::try_from`]). Other requests run A*, at the same optimal cost, and
//! [`Path::algorithm`](crate::Path::algorithm) says which ran. It records no trace.

use super::{Engine, EngineAnswer, SearchJob, astar};
use crate::{NavGrid, PathAlgorithm};
use astar_grid::{Grid, JpsOptions, JumpGrid, Searcher};
use core::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The engine for a jump point request on `nav` now: jump point search over the grid's jump
/// grid (built on first use), or A* when the grid has terrain costs.
pub(crate) fn engine_for(nav: &mut NavGrid) -> Engine {
    nav.jump_grid().map_or(Engine::AStar, Engine::JumpPoint)
}

/// Runs `job` by jump point search on `jump_grid` (packed from `grid`), or by A* on `grid` when
/// its options are beyond jump point search; `None` when a fallback A* was cancelled.
pub(super) fn run(
    searcher: &mut Searcher,
    grid: &Grid,
    jump_grid: &Arc<JumpGrid>,
    job: &SearchJob,
    cancelled: &AtomicBool,
) -> Option<EngineAnswer> {
    match JpsOptions::try_from(&job.options.with_trace(false)) {
        Ok(jps) => Some(EngineAnswer {
            result: searcher.find_path_jps(jump_grid, job.start, job.goal, &jps),
            algorithm: PathAlgorithm::JumpPoint,
            cacheable: true,
        }),
        Err(_) => astar::run(searcher, grid, job, cancelled).map(EngineAnswer::astar),
    }
}
