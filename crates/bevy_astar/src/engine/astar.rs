//! The A* engine: answers every request, as its options configure it (heuristic, weight,
//! window, limits, partial paths), and records the search's trace when the options ask for one.
//! It runs in slices of [`SEARCH_SLICE`] expansions, stops between two slices once nobody
//! waits for its answer any more, and yields between two on the main thread once the frame's
//! time is spent ([`slice_point`]).

use super::SearchJob;
use crate::background::slice_point;
use astar_grid::{Grid, SearchError, SearchResult, Searcher, Step};
use core::sync::atomic::{AtomicBool, Ordering};

/// Expansions between two checks of whether anyone still wants an A* search.
pub(crate) const SEARCH_SLICE: u32 = 2048;

/// A* in slices, checking `cancelled` between them; `None` when it was cancelled.
pub(super) async fn run(
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
            Step::Pending(active) => {
                search = active;
                slice_point().await;
            }
        }
    }
}
