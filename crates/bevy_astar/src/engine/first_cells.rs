//! First cells, then the rest: for a hierarchical request with
//! [`PathRequest::first_cells_fast`](crate::PathRequest::first_cells_fast), Dispatch finds the
//! first cells of its path on the main thread ([`FirstCells::find`], the core's
//! `HierarchySearcher::quick_first_cells`) and shows them at once; the background search then
//! runs over the hierarchy from the last of them ([`run`]), and its outcome is the whole path,
//! from the request's start, beginning with the cells shown.

use super::hierarchical::{self, SEARCHER};
use super::{EngineAnswer, SearchJob, smoothed_waypoints};
use crate::PathStatus;
use crate::map::PathFootprint;
use crate::outcome::SearchOutcome;
use astar_grid::{Cell, Grid, Hierarchy, QuickFirstCells, Searcher};
use bevy::platform::time::Instant;
use core::sync::atomic::AtomicBool;
use core::time::Duration;
use std::sync::Arc;

/// The first cells of a request's path, as an agent was shown them.
#[derive(Debug, PartialEq)]
pub(crate) struct FirstCells {
    /// From the request's start to the border of its sector, or one step beyond.
    pub cells: Arc<[Cell]>,
    /// The cells whose centres are the waypoints shown (all of `cells` unless smoothed).
    pub waypoint_cells: Vec<Cell>,
    /// The cost of `cells`.
    pub cost: f64,
    /// How long they took to find.
    pub found_in: Duration,
}

impl FirstCells {
    /// The first cells of `job`'s path over `hierarchy` (a hierarchy of `grid` for the job's
    /// movement rule and cost model), where they can be had at once; `None` where only the
    /// whole search can answer (see `QuickFirstCells::NeedsRoute`), where the goal cannot be
    /// reached (the whole search says so), or where the request is bad.
    pub(crate) fn find(grid: &Grid, hierarchy: &Hierarchy, job: &SearchJob) -> Option<Self> {
        let began = Instant::now();
        let quick = SEARCHER.with_borrow_mut(|searcher| {
            searcher.quick_first_cells(grid, hierarchy, job.start, job.goal)
        });
        let Ok(QuickFirstCells::Cells(path)) = quick else {
            return None;
        };
        let waypoint_cells = if job.smoothing {
            smoothed_waypoints(grid, &path.cells, &job.options)
        } else {
            path.cells.clone()
        };
        Some(Self {
            cells: path.cells.into(),
            waypoint_cells,
            cost: path.cost,
            found_in: began.elapsed(),
        })
    }

    /// The job that searches the rest: `job` from the last first cell.
    fn rest_of(&self, job: &SearchJob) -> SearchJob {
        SearchJob {
            start: self.cells.last().copied().unwrap_or(job.start),
            ..*job
        }
    }

    /// Makes `rest`, the outcome of [`FirstCells::rest_of`] `job`, the outcome of `job`: the
    /// first cells, then the rest's (its first cell is their last), on `grid`.
    pub(super) fn lead_into(&self, rest: &mut SearchOutcome, job: &SearchJob, grid: &Grid) {
        if rest.status != PathStatus::Found {
            rest.start = job.start;
            return;
        }
        if rest.cells.first() != self.cells.last() {
            // Not the rest of these cells (a found path starts at its start, so this does not
            // happen): the outcome stays the rest's own, from where it starts, and is not
            // offered to requests from elsewhere.
            rest.cacheable = false;
            return;
        }
        rest.start = job.start;
        let cells: Vec<Cell> = self
            .cells
            .iter()
            .chain(rest.cells.iter().skip(1))
            .copied()
            .collect();
        let after = rest.waypoint_cells.iter().skip(1).copied();
        rest.waypoint_cells = self.waypoint_cells.iter().copied().chain(after).collect();
        rest.footprint =
            PathFootprint::of(&cells, job.options.movement, grid.width(), grid.height());
        rest.cells = cells.into();
        rest.cost += self.cost;
    }
}

/// Searches the rest of `job`'s path over `hierarchy` from the last of `first`; returns the
/// answer and the job it searched, whose outcome [`FirstCells::lead_into`] makes `job`'s.
/// `None` when a fallback A* was cancelled.
pub(super) async fn run(
    searcher: &mut Searcher,
    grid: &Grid,
    (hierarchy, first): (&Arc<Hierarchy>, &FirstCells),
    job: &SearchJob,
    cancelled: &AtomicBool,
) -> Option<(EngineAnswer, SearchJob)> {
    let rest = first.rest_of(job);
    let answer = hierarchical::run(searcher, grid, hierarchy, &rest, cancelled).await?;
    Some((answer, rest))
}
