//! Apply, the third stage ([`AStarSystems::Apply`](crate::AStarSystems::Apply)): finished
//! searches are collected oldest first; a result the map changed under is dropped and its agents
//! queued again, a result for a request changed meanwhile is dropped, and the rest are cached and
//! written into the agents' [`Path`](crate::Path)s, within the frame's budget, each announced by
//! a message and an entity event (the types below). Results the agents and the cache let go of
//! are freed away from the main thread.

mod notify;
mod retired;
mod systems;

pub(crate) use notify::PathNotifier;
pub(crate) use retired::RetiredOutcomes;
pub(crate) use systems::{free_retired_outcomes, poll_searches};

use crate::PathFailure;
use bevy::prelude::*;

/// An agent's [`Path`](crate::Path) got a path to its goal: both a message, for systems that
/// react to many agents at once, and an entity event triggered on the agent, for observers.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// fn on_found(found: On<PathFound>, paths: Query<&Path>) {
///     if let Ok(path) = paths.get(found.entity) {
///         info!("{} steps", path.cells.len());
///     }
/// }
///
/// fn count_found(mut found: MessageReader<PathFound>) {
///     info!("{} agents got a path", found.read().count());
/// }
/// App::new().add_observer(on_found).add_systems(Update, count_found);
/// ```
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct PathFound {
    /// The agent.
    pub entity: Entity,
}

/// An agent's request ended without a path to its goal: both a message and an entity event
/// triggered on the agent, as [`PathFound`] is.
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct PathNotFound {
    /// The agent.
    pub entity: Entity,
    /// Why.
    pub reason: PathFailure,
}
