//! Counters of the pathfinding systems, for examples, benchmarks and debug overlays.

use bevy::prelude::*;
use core::time::Duration;

/// What the pathfinding systems have done since the app started.
///
/// Counters only grow; `in_flight`, `queue_length` and `started_last_frame` describe the current
/// frame.
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Resource, Debug, Default, PartialEq)]
pub struct PathfindingStats {
    /// Searches handed to the task pool.
    pub searches_started: u64,
    /// Searches whose result came back (applied or not).
    pub searches_finished: u64,
    /// Searches dropped before they finished because no agent still wanted their result.
    pub searches_cancelled: u64,
    /// Requests served from the result cache without searching.
    pub cache_hits: u64,
    /// Requests that had to be searched because the cache had no valid result.
    pub cache_misses: u64,
    /// Requests that joined an identical search already running instead of starting their own.
    pub shared_searches: u64,
    /// Searches that answered a batch of requests for one goal at once (see
    /// [`PathfindingSettings::goal_batch_min`](crate::PathfindingSettings::goal_batch_min));
    /// each also counts in `searches_started`.
    pub goal_batches: u64,
    /// Of those, batches that resumed the Dijkstra an earlier batch for the same goal left on
    /// the same map, instead of growing their own.
    pub goal_batches_resumed: u64,
    /// Batches of hierarchical requests for one goal answered off the goal's sector field
    /// (one [`SectorFlowField`](astar_grid::SectorFlowField) over the hierarchy, measured only
    /// in the sectors the agents cross); each also counts in `searches_started`.
    pub sector_field_batches: u64,
    /// Goals' sector fields renewed after map changes for the agents holding routes on them
    /// (a route off a goal's field follows its newest view), counted as each renewal lands:
    /// one per goal and change, however many agents the change cut.
    pub sector_routes_renewed: u64,
    /// Of those renewals, the ones that first published the view before patched for the map
    /// as changed (the sectors around the changed cells flooded again), so that the agents on
    /// it walked legally at once, before the renewed field was measured.
    pub sector_routes_patched: u64,
    /// Agents queued again, once their hierarchy was built whole, to move from the A* paths
    /// they got while it was being built onto their goal's sector routes (each once).
    pub paths_moved_onto_routes: u64,
    /// Requests answered by those batches and by the goal batches.
    pub batched_requests: u64,
    /// Hierarchical requests shown the first cells of their path at once, found on the main
    /// thread while the rest is searched
    /// ([`PathRequest::first_cells_fast`](crate::PathRequest::first_cells_fast)).
    pub first_cells_shown: u64,
    /// Results thrown away because the map changed under them while they were computed; their
    /// agents were queued again.
    pub stale_results_dropped: u64,
    /// Results not applied to an agent because its request changed while they were computed.
    pub superseded_results_dropped: u64,
    /// Agents queued again because a map change affected their path.
    pub paths_invalidated: u64,
    /// Agents whose path the main thread checked against map changes: the per-agent work a
    /// change costs. Agents on a goal's shared tree are never checked (the tree is updated
    /// instead), so a change that only cuts shared routes adds nothing here.
    pub agents_checked_for_changes: u64,
    /// Requests given a route on their goal's shared tree (see
    /// [`PathfindingSettings::shared_goal_min_agents`](crate::PathfindingSettings::shared_goal_min_agents)).
    pub shared_routes: u64,
    /// Goals' shared trees held now, counted among
    /// [`PathfindingStats::flow_fields`].
    pub goal_trees: usize,
    /// Sectors of the sector hierarchies held now: one hierarchy per movement rule and cost
    /// model that [`PathAlgorithm::Hierarchical`](crate::PathAlgorithm::Hierarchical) requests
    /// asked for.
    pub hierarchy_sectors: usize,
    /// Of those, sectors not built yet, counting down as the background build goes. While more
    /// than one in ten waits, hierarchical requests run A*.
    pub hierarchy_sectors_waiting: usize,
    /// Bytes held now by the finished flow fields and goal trees (5 a cell each, and their
    /// scratch memory).
    pub flow_field_bytes: usize,
    /// Cut paths repaired with a local detour rather than searched again (see
    /// [`PathfindingSettings::repair_cut_paths`](crate::PathfindingSettings::repair_cut_paths)).
    pub paths_repaired: u64,
    /// Flow fields built from scratch for [`PathAlgorithm::FlowField`](crate::PathAlgorithm)
    /// requests.
    pub flow_fields_built: u64,
    /// Flow fields brought up to date incrementally after map changes.
    pub flow_fields_updated: u64,
    /// Flow fields let go of because no request needed them any more, or to stay within
    /// [`PathfindingSettings::max_flow_fields`](crate::PathfindingSettings::max_flow_fields).
    pub flow_fields_dropped: u64,
    /// Flow fields kept now, finished or being built (one per goal, movement rule, cost model
    /// and agent kind in use); never more than
    /// [`PathfindingSettings::max_flow_fields`](crate::PathfindingSettings::max_flow_fields).
    pub flow_fields: usize,
    /// Flow-field requests searched alone (A*) because
    /// [`PathfindingSettings::max_flow_fields`](crate::PathfindingSettings::max_flow_fields)
    /// fields were held, every one of them asked for in the same frame.
    pub flow_field_fallbacks: u64,
    /// Agents with [`CrowdAvoidance`](crate::CrowdAvoidance) steered in the most recent frame.
    pub crowd_agents: usize,
    /// Searches asked for by avoiding agents that stopped making progress (see
    /// [`CrowdSettings::stuck_after`](crate::CrowdSettings::stuck_after)).
    pub crowd_searches_when_stuck: u64,
    /// Routes avoiding agents read again off their goal's shared tree after it weighed a newer
    /// count of the crowd (see
    /// [`CrowdSettings::route_density_weight`](crate::CrowdSettings::route_density_weight)).
    pub crowd_routes_reread: u64,
    /// Avoiding agents put back on legal ground after the ground under them was blocked.
    pub crowd_agents_pushed_out: u64,
    /// Routes the crowd read off goals' shared trees for avoiding agents: each new route, and
    /// each read again where a new version of the tree changed cells the rest of it passes.
    pub crowd_routes_read_off_trees: u64,
    /// Searches running now.
    pub in_flight: usize,
    /// Requests waiting to be dispatched.
    pub queue_length: usize,
    /// Searches started in the most recent frame.
    pub started_last_frame: u32,
    /// What the stages' time budget
    /// ([`PathfindingSettings::stage_budget`](crate::PathfindingSettings::stage_budget)) left
    /// for a later frame in the most recent frame.
    pub carried_over: CarriedOver,
    /// Total time spent searching, summed over finished searches.
    pub total_search_time: Duration,
    /// Longest single search.
    pub max_search_time: Duration,
}

/// Work on agents that a stage's time budget left for a later frame, in the most recent frame
/// (see [`PathfindingSettings::stage_budget`](crate::PathfindingSettings::stage_budget)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Debug, Default, PartialEq)]
pub struct CarriedOver {
    /// Map changes not every agent's path has been checked against yet (Invalidate).
    pub scans: usize,
    /// Agents whose path a map change affected, still to be queued again (Invalidate).
    pub invalidations: usize,
    /// Queued requests not looked at (Dispatch); requests the search caps hold back are not
    /// counted.
    pub dispatches: usize,
    /// Requests gathered in goal batches held back for more of their crowd (Dispatch), or
    /// that the search caps did not let start.
    pub batched: usize,
    /// Finished results still to be written into agents' paths (Apply), whether the time or
    /// [`PathfindingSettings::max_paths_applied_per_frame`](crate::PathfindingSettings::max_paths_applied_per_frame)
    /// held them back.
    pub results: usize,
    /// Searches and flow-field builds left unfinished, or not begun, on the main thread
    /// (Dispatch), where they run a slice at a time without Bevy's `multi_threaded` feature;
    /// always 0 with it, the task pool's threads running them.
    pub searches: usize,
}

impl PathfindingStats {
    /// Mean time of a finished search, zero before the first one.
    #[must_use]
    pub fn mean_search_time(&self) -> Duration {
        match u32::try_from(self.searches_finished) {
            Ok(0) => Duration::ZERO,
            Ok(count) => self.total_search_time / count,
            Err(_) => Duration::from_secs_f64(
                self.total_search_time.as_secs_f64() / self.searches_finished as f64,
            ),
        }
    }

    pub(crate) fn record_search_time(&mut self, time: Duration) {
        self.total_search_time += time;
        self.max_search_time = self.max_search_time.max(time);
    }
}
