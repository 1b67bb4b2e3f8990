//! The local repair engine: when a map change cut an agent's path and the request still asks
//! for the same goal under the same options from a cell of that path, the kept part is repaired
//! by splicing detours around the cut ([`Searcher::repair_path`]) instead of searching the whole
//! path again. It records no trace (traced requests are searched in full), and falls back to A*
//! when the old path no longer fits the grid, and when the goal is out of reach (or a limit
//! stopped the repair) for a request that asks for the closest reachable cell or a partial path,
//! so that it gets the answer a fresh request would. A spliced path may be dearer than the
//! cheapest, so its outcome is cached only when the repair says it is optimal.

use super::{EngineAnswer, SearchJob, SearchOutcome, astar};
use crate::{PathAlgorithm, PathStatus};
use astar_grid::{Cell, Grid, Repair, RepairOptions, SearchResult, SearchStatus, Searcher};
use core::sync::atomic::AtomicBool;

impl SearchOutcome {
    /// The part of this found path that `job` can keep and repair: from the job's start (a
    /// cell of the path; agents that moved along it start further on) to the same goal, under
    /// the same options, for the same agent kind. `None` when the job asks for something else,
    /// or limits its search's expansions: a splice needs fewer than a fresh search, and would
    /// find a path where the request's own search stops at its limit.
    pub(crate) fn repairable_for(&self, job: &SearchJob) -> Option<Vec<Cell>> {
        if self.status != PathStatus::Found
            || self.goal != job.goal
            || self.options != job.options
            || self.kind != job.kind
            || job.options.max_expansions.is_some()
        {
            return None;
        }
        let from = self.cells.iter().position(|&cell| cell == job.start)?;
        Some(self.cells[from..].to_vec())
    }
}

/// Whether the repair ended without a path where `job` asks for one that ends short of the
/// goal: the goal cannot be reached and the request asks for the closest reachable cell
/// ([`SearchOptions::closest_reachable`](astar_grid::SearchOptions::closest_reachable)), or a
/// limit stopped it and the request asks for a partial path
/// ([`SearchOptions::partial_path`](astar_grid::SearchOptions::partial_path)).
/// [`Searcher::repair_path`] returns neither.
fn wants_a_partial_answer(job: &SearchJob, repair: Repair) -> bool {
    match repair {
        Repair::NoPath => job.options.closest_reachable,
        Repair::LimitReached(_) => job.options.partial_path,
        Repair::Untouched | Repair::Spliced { .. } | Repair::FullSearch => false,
    }
}

/// Repairs `cells` on `grid` (see [`SearchEngine::Repair`](super::SearchEngine::Repair)); the answer is
/// cacheable only when it is the one a full search gives. `None` when it was cancelled during a
/// full-search fallback.
pub(super) async fn run(
    searcher: &mut Searcher,
    grid: &Grid,
    cells: &[Cell],
    job: &SearchJob,
    cancelled: &AtomicBool,
) -> Option<EngineAnswer> {
    let options = RepairOptions::new(job.options.with_trace(false));
    match searcher.repair_path(grid, cells, &options) {
        // The goal is out of reach (or a limit stopped the repair's full search), and the
        // request asks for the path to the closest cell, or for a partial path: the repair
        // keeps its endpoints and returns neither, so a full search gives the answer a fresh
        // request would get.
        Ok(repaired) if wants_a_partial_answer(job, repaired.repair) => {
            astar::run(searcher, grid, job, cancelled)
                .await
                .map(EngineAnswer::astar)
        }
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
            Some(EngineAnswer {
                result: Ok(result),
                algorithm: PathAlgorithm::AStar,
                // A full search's answer is a fresh request's; a kept or spliced path is
                // only when it is provably a cheapest one (for options that are not optimal,
                // a splice has no bound at all).
                cacheable: repaired.optimal
                    || !matches!(repaired.repair, Repair::Untouched | Repair::Spliced { .. }),
            })
        }
        // The old path does not fit the grid any more (its start or goal became blocked,
        // say): a full search gives the request's answer, or its error.
        Err(_) => astar::run(searcher, grid, job, cancelled)
            .await
            .map(EngineAnswer::astar),
    }
}
