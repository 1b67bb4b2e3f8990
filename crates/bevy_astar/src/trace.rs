//! Search traces: which agents record their searches ([`PathDebug`], or every agent by
//! [`PathDebugSettings`]), the recorded [`PathTrace`], and dropping the traces nobody asks for.
//! The pathfinding systems record them; the debug overlay draws them.

use crate::PathRequest;
use astar_grid::SearchTrace;
use bevy::prelude::*;

/// Which agents record their search; changeable at run time. [`AStarPlugin`](crate::AStarPlugin)
/// adds it, and the debug overlay's `with_trace_all_agents` sets it.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Resource, Debug, Default, PartialEq)]
pub struct PathDebugSettings {
    /// Record every agent's search, not only those marked with [`PathDebug`].
    pub trace_all_agents: bool,
}

/// Marks an agent whose searches are recorded into a [`PathTrace`] and drawn.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct PathDebug;

/// The recorded search behind an agent's current path, for drawing and replays.
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Clone, Debug, PartialEq)]
pub struct PathTrace {
    /// The search, as recorded by the core.
    pub trace: SearchTrace,
    /// Draw the search as it stood after this many expansions instead of at its end (for
    /// step-by-step replays).
    pub replay_step: Option<u32>,
}

impl PathTrace {
    /// A trace shown at its end.
    #[must_use]
    pub const fn new(trace: SearchTrace) -> Self {
        Self {
            trace,
            replay_step: None,
        }
    }
}

/// Agents holding a trace without being marked with [`PathDebug`], with their request.
type UnmarkedTraces<'w, 's> =
    Query<'w, 's, (Entity, Option<&'static PathRequest>), (With<PathTrace>, Without<PathDebug>)>;

/// Removes the traces of agents no longer traced (unmarked, with tracing of all agents off, and
/// whose request does not ask for a trace itself), so that their memory goes and an old search
/// is never drawn again.
pub(crate) fn drop_unwanted_traces(
    mut commands: Commands,
    settings: Option<Res<PathDebugSettings>>,
    traced: UnmarkedTraces,
) {
    if settings.is_some_and(|settings| settings.trace_all_agents) {
        return;
    }
    for (entity, request) in &traced {
        if !request.is_some_and(|request| request.options.trace) {
            commands.entity(entity).remove::<PathTrace>();
        }
    }
}
