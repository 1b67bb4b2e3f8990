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

/// Sent when an agent's [`Path`](crate::Path) gets a path to its goal, for systems that react to
/// many agents at once.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathReady {
    /// The agent.
    pub entity: Entity,
}

/// Sent when an agent's request ends without a path to its goal.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct PathFailed {
    /// The agent.
    pub entity: Entity,
    /// Why.
    pub reason: PathFailure,
}

/// Triggered on an agent when its [`Path`](crate::Path) gets a path to its goal, for observers.
///
/// ```
/// use bevy_astar::prelude::*;
///
/// fn on_found(found: On<PathFound>, paths: Query<&Path>) {
///     if let Ok(path) = paths.get(found.entity) {
///         info!("{} steps", path.cells.len());
///     }
/// }
/// App::new().add_observer(on_found);
/// ```
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathFound {
    /// The agent.
    pub entity: Entity,
}

/// Triggered on an agent when its request ends without a path to its goal.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq)]
pub struct PathNotFound {
    /// The agent.
    pub entity: Entity,
    /// Why.
    pub reason: PathFailure,
}
