//! Results no longer in use, freed on a background thread: a map change can replace thousands
//! of paths in one frame, and freeing their memory (allocated by the search threads) on the
//! main thread would stall it.

use super::{ReadyOutcome, SearchOutcome, ShownPath};
use crate::path::PathRoute;
use bevy::prelude::*;
use std::sync::Arc;

/// Outcomes the agents and the cache let go of this frame, the cells and waypoints that
/// agents' [`Path`](crate::Path)s showed before a new result replaced them, and other search
/// memory an engine let go of (the goal Dijkstras no longer kept).
#[derive(Resource, Default)]
pub(crate) struct RetiredOutcomes {
    outcomes: Vec<Arc<SearchOutcome>>,
    shown: Vec<ShownPath>,
    searches: Vec<RetiredSearch>,
}

/// Search memory an engine let go of (a goal's Dijkstra, say), to be dropped off the main
/// thread: whatever it is, dropping it is all that is left to do.
pub(crate) type RetiredSearch = Box<dyn Send + Sync>;

/// Everything let go of in a frame, to be dropped away from the main thread.
pub(crate) type Retired = (Vec<Arc<SearchOutcome>>, Vec<ShownPath>, Vec<RetiredSearch>);

impl RetiredOutcomes {
    /// Keeps `outcome`, if any, until it can be dropped away from the main thread.
    pub(crate) fn retire(&mut self, outcome: Option<Arc<SearchOutcome>>) {
        self.outcomes.extend(outcome);
    }

    /// Keeps every outcome of `outcomes` (the cache's evictions, say).
    pub(crate) fn retire_all(&mut self, outcomes: impl IntoIterator<Item = Arc<SearchOutcome>>) {
        self.outcomes.extend(outcomes);
    }

    /// Keeps what an agent's path showed until it can be dropped away from the main thread (a
    /// route on a shared tree holds nothing of its own).
    pub(crate) fn retire_route(&mut self, route: PathRoute) {
        if let PathRoute::Own {
            cells, waypoints, ..
        } = route
        {
            self.shown.push((cells, waypoints));
        }
    }

    /// Keeps an outcome made ready for an agent that did not take it (its request changed, or
    /// the map changed under it).
    pub(crate) fn retire_ready(&mut self, ready: Option<ReadyOutcome>) {
        if let Some(ReadyOutcome { outcome, shown }) = ready {
            self.outcomes.push(outcome);
            self.shown.push(shown);
        }
    }

    /// Keeps a goal's Dijkstra, no longer kept for its goal, until it can be dropped away from
    /// the main thread (a whole-map search holds megabytes).
    pub(crate) fn retire_search(&mut self, search: impl Send + Sync + 'static) {
        self.searches.push(Box::new(search));
    }

    /// Whether nothing is kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.outcomes.is_empty() && self.shown.is_empty() && self.searches.is_empty()
    }

    /// Takes everything kept so far, to be dropped elsewhere.
    pub(crate) fn take(&mut self) -> Retired {
        (
            core::mem::take(&mut self.outcomes),
            core::mem::take(&mut self.shown),
            core::mem::take(&mut self.searches),
        )
    }
}
