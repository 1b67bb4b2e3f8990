//! Messages and entity events announcing finished requests.

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
