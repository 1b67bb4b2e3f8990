//! Results no longer in use, freed on a background thread: a map change can replace thousands
//! of paths in one frame, and freeing their memory (allocated by the search threads) on the
//! main thread would stall it.

use crate::cache::PathCache;
use crate::search_task::SearchOutcome;
use bevy::prelude::*;
use bevy::tasks::AsyncComputeTaskPool;
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
}

/// Hands the frame's retired outcomes (the agents' and the cache's) to the async compute pool,
/// which drops them.
pub(crate) fn free_retired_outcomes(
    mut retired: ResMut<RetiredOutcomes>,
    mut cache: ResMut<PathCache>,
) {
    let retired = retired.bypass_change_detection();
    retired
        .outcomes
        .extend(cache.bypass_change_detection().take_retired());
    if retired.outcomes.is_empty() {
        return;
    }
    let outcomes = core::mem::take(&mut retired.outcomes);
    AsyncComputeTaskPool::get()
        .spawn(async move { drop(outcomes) })
        .detach();
}
