//! Dispatch, the second stage ([`PathfindingSystems::Dispatch`](crate::PathfindingSystems::Dispatch)):
//! agents whose request changed join the queue, and the queue is served oldest first, from the
//! result cache, by joining an identical running search, by a batch of requests for one goal, or
//! by a new background search, within the frame's caps.

mod launcher;
mod route;
mod spare_grid;
mod systems;

pub(crate) use spare_grid::prepare_spare_grid;
pub(crate) use systems::{dispatch_searches, queue_changed_requests};
