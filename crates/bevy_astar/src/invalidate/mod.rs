//! Invalidation, the first stage ([`PathfindingSystems::Invalidate`](crate::PathfindingSystems::Invalidate)):
//! the frame's edits of the [`NavGrid`](crate::NavGrid) become one new [`NavVersion`](crate::NavVersion) and a
//! [`NavChanged`](crate::NavChanged) message, and exactly the results and agents the change affects are dropped or
//! queued again.
//!
//! The rule ([`rule`]): a found path is affected by a change that touches one of its cells or
//! blocks a corner cell that one of its diagonal steps may not cut under the request's corner
//! rule (a path is only as legal as its worst step); a path that could get cheaper because cells
//! opened is affected only under [`InvalidationPolicy::TouchedOrOpened`](crate::InvalidationPolicy);
//! a failed request is affected when the cells it failed on change. The same rule serves the
//! agents' paths, the result cache, the results of searches that ran while the map changed, and
//! the choice of paths to repair.
//!
//! Three filters, cheapest first, keep the rule from reading most paths:
//! 1. the bounding box of the changed cells against the path's ([`NavChange::may_touch_rect`](crate::NavChange::may_touch_rect));
//! 2. the path's footprint ([`PathFootprint`](crate::map::PathFootprint)): a bit per coarse chunk of the grid the path or the
//!    corners of its diagonals cross;
//! 3. the cell scan ([`NavChange::touches_path`](crate::NavChange::touches_path)): the path's cells and its diagonals' corners
//!    against the changed cells.
//!
//! Beside the changes, the stage queues again the agents that walk A* paths given while their
//! hierarchy was being built, once it is built whole ([`onto_routes`]): they move onto their
//! goal's shared sector routes, which map changes reach per goal, not per agent.

mod onto_routes;
pub(crate) mod rule;
mod systems;

pub(crate) use onto_routes::{AwaitingRoutes, queue_agents_onto_routes};
pub(crate) use systems::{
    PendingInvalidations, invalidate_paths, invalidate_results, invalidations_pending,
    map_may_rewrite_rules, match_requests_to_map, publish_map_changes,
};
