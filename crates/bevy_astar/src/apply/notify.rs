//! Writing a finished outcome into an agent's `Path`, with its message and entity event.

use crate::engine::SearchOutcome;
use crate::request::PathRequestState;
use crate::trace::PathTrace;
use crate::{NavGrid, Path, PathFound, PathNotFound};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use std::sync::Arc;

/// What applying a result needs: commands for the trace and the observers, and the message
/// writers.
#[derive(SystemParam)]
pub(crate) struct PathNotifier<'w, 's> {
    commands: Commands<'w, 's>,
    found: MessageWriter<'w, PathFound>,
    not_found: MessageWriter<'w, PathNotFound>,
}

impl PathNotifier<'_, '_> {
    /// Shows `outcome` in the agent's path and announces it; returns the outcome it replaces,
    /// for [`RetiredOutcomes`](crate::apply::RetiredOutcomes).
    #[must_use = "retire the replaced outcome"]
    pub(crate) fn apply(
        &mut self,
        entity: Entity,
        path: &mut Path,
        state: &mut PathRequestState,
        outcome: Arc<SearchOutcome>,
        nav: &NavGrid,
    ) -> Option<Arc<SearchOutcome>> {
        path.status = outcome.status;
        path.cells = Arc::clone(&outcome.cells);
        path.waypoints = outcome.waypoints_in(nav.geometry());
        path.cost = outcome.cost;
        path.map_version = outcome.map_version;
        path.revision += 1;
        path.search_time = outcome.duration;
        path.algorithm = outcome.algorithm;
        if let Some(trace) = &outcome.trace {
            self.commands
                .entity(entity)
                .try_insert(PathTrace::new(trace.clone()));
        }
        match outcome.status.failure() {
            None => {
                let found = PathFound { entity };
                self.found.write(found);
                self.commands.trigger(found);
            }
            Some(reason) => {
                let not_found = PathNotFound { entity, reason };
                self.not_found.write(not_found);
                self.commands.trigger(not_found);
            }
        }
        state.set_applied(Some(outcome))
    }
}
