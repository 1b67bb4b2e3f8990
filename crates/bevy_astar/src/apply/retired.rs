//! Results no longer in use, freed on a background thread: a map change can replace thousands
//! of paths in one frame, and freeing their memory (allocated by the search threads) on the
//! main thread would stall it.

use crate::engine::SearchOutcome;
use bevy::prelude::*;
use std::sync::Arc;

/// Outcomes the agents and the cache let go of this frame.
#[derive(Resource, Default)]
pub(crate) struct RetiredOutcomes {
    outcomes: Vec<Arc<SearchOutcome>>,
}

impl RetiredOutcomes {
    /// Keeps `outcome`, if any, until it can be dropped away from the main thread.
    pub(crate) fn retire(&mut self, outcome: Option<Arc<SearchOutcome>>) {
        self.outcomes.extend(outcome);
    }

    /// Keeps every outcome of `outcomes` (the cache's evictions, say).
    pub(crate) fn retire_all(&mut self, outcomes: impl IntoIterator<Item = Arc<SearchOutcome>>) {
        self.outcomes.extend(outcomes);
    }

    /// Takes everything kept so far, to be dropped elsewhere.
    pub(crate) fn take(&mut self) -> Vec<Arc<SearchOutcome>> {
        core::mem::take(&mut self.outcomes)
    }
}
