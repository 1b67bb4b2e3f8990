//! Apply, the third stage ([`PathfindingSystems::Apply`](crate::PathfindingSystems::Apply)): finished
//! searches are collected oldest first; a result the map changed under is dropped and its agents
//! queued again, a result for a request changed meanwhile is dropped, and the rest are cached and
//! written into the agents' [`Path`](crate::Path)s, within the frame's budget, each announced by
//! a message and an entity event ([`PathFound`](crate::PathFound), [`PathNotFound`](crate::PathNotFound)). Results the agents and the cache let go of
//! are freed away from the main thread.

mod systems;

pub(crate) use systems::{free_retired_outcomes, poll_searches};
