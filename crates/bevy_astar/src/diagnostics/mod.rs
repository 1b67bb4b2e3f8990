//! Bevy diagnostics of the pathfinding plugin: the figures `LogDiagnosticsPlugin` and the
//! diagnostics overlays show.
//!
//! [`PathfindingDiagnosticsPlugin`] registers one [`Diagnostic`](bevy::diagnostic::Diagnostic)
//! per path below in Bevy's [`DiagnosticsStore`](bevy::diagnostic::DiagnosticsStore) and
//! measures it once a frame; Bevy's tools (`LogDiagnosticsPlugin`, overlays, inspectors) then
//! show them beside the frame time. [`PathfindingStats`](crate::PathfindingStats) stays the
//! plugin's own record of totals; the diagnostics are the frame's figures taken from it, and the
//! time of each stage, which it does not hold.
//!
//! | path | suffix | what it measures, each frame |
//! |---|---|---|
//! | [`INVALIDATE_MS`] | `ms` | wall time of the [`Invalidate`](crate::PathfindingSystems::Invalidate) stage |
//! | [`DISPATCH_MS`] | `ms` | wall time of the [`Dispatch`](crate::PathfindingSystems::Dispatch) stage |
//! | [`APPLY_MS`] | `ms` | wall time of the [`Apply`](crate::PathfindingSystems::Apply) stage |
//! | [`FOLLOW_MS`] | `ms` | wall time of the [`Follow`](crate::PathfindingSystems::Follow) stage |
//! | [`SEARCHES_PER_SECOND`] | `/s` | searches started |
//! | [`PATHS_CUT_PER_SECOND`] | `/s` | agents queued again because a map change cut their path |
//! | [`CACHE_HIT_PERCENT`] | `%` | cache lookups that hit |
//! | [`QUEUE_LENGTH`] | | requests waiting to be dispatched |
//! | [`IN_FLIGHT`] | | searches running |
//! | [`FLOW_FIELDS`] | | flow fields held |
//! | [`GOAL_TREES`] | | goals' shared trees agents hold routes on |
//! | [`HIERARCHY_SECTORS_WAITING`] | | sectors of the sector hierarchies not built yet |
//!
//! Rates are per second of real time ([`Time<Real>`](bevy::time::Real)): they describe the
//! machine's work, which goes on while virtual time is paused or scaled, and stay per frame when
//! the pathfinding runs in `FixedUpdate`.

mod plugin;

pub use plugin::PathfindingDiagnosticsPlugin;

use bevy::diagnostic::DiagnosticPath;

/// Milliseconds of wall time the [`Invalidate`](crate::PathfindingSystems::Invalidate) stage took in
/// the frame (publishing map edits, invalidating cached results, paths and flow fields), from a
/// mark just before the set to one just after it.
///
/// Summed over the runs of the pathfinding schedule in the frame (0 in a frame where a
/// `FixedUpdate` schedule did not run). Systems the app orders before the set but not after
/// the mark (a tilemap's sync, a game's edits) may run between the mark and the set and then
/// count too; on a multi-threaded executor, systems unordered with the sets may run beside it.
pub const INVALIDATE_MS: DiagnosticPath = DiagnosticPath::const_new("pathfinding/invalidate_ms");

/// Milliseconds of wall time the [`Dispatch`](crate::PathfindingSystems::Dispatch) stage took in the
/// frame (queuing changed requests, serving the queue from the cache, starting searches), from
/// the end of `Invalidate` to the end of `Dispatch`; measured as [`INVALIDATE_MS`] is.
pub const DISPATCH_MS: DiagnosticPath = DiagnosticPath::const_new("pathfinding/dispatch_ms");

/// Milliseconds of wall time the [`Apply`](crate::PathfindingSystems::Apply) stage took in the frame
/// (collecting finished searches and writing paths), from the end of `Dispatch` to the end of
/// `Apply`; measured as [`INVALIDATE_MS`] is.
pub const APPLY_MS: DiagnosticPath = DiagnosticPath::const_new("pathfinding/apply_ms");

/// Milliseconds of wall time the [`Follow`](crate::PathfindingSystems::Follow) stage took in the frame
/// (moving path followers, crowds included), from the end of `Apply` to the end of `Follow`;
/// measured as [`INVALIDATE_MS`] is.
pub const FOLLOW_MS: DiagnosticPath = DiagnosticPath::const_new("pathfinding/follow_ms");

/// Searches started per second in the frame: the frame's growth of
/// [`PathfindingStats::searches_started`](crate::PathfindingStats::searches_started) over its
/// real time. A goal batch counts once; cache hits and requests that joined a running search do
/// not count.
pub const SEARCHES_PER_SECOND: DiagnosticPath =
    DiagnosticPath::const_new("pathfinding/searches_per_second");

/// Paths cut per second in the frame: agents queued again because a map change affected their
/// path, the frame's growth of
/// [`PathfindingStats::paths_invalidated`](crate::PathfindingStats::paths_invalidated) over its
/// real time.
pub const PATHS_CUT_PER_SECOND: DiagnosticPath =
    DiagnosticPath::const_new("pathfinding/paths_cut_per_second");

/// Percentage (0 to 100) of the frame's result-cache lookups that hit
/// ([`PathfindingStats::cache_hits`](crate::PathfindingStats::cache_hits) over hits and
/// [`cache_misses`](crate::PathfindingStats::cache_misses)); measured only in frames with a
/// lookup, so that idle frames do not pull it down.
pub const CACHE_HIT_PERCENT: DiagnosticPath =
    DiagnosticPath::const_new("pathfinding/cache_hit_percent");

/// Requests waiting to be dispatched at the end of the frame
/// ([`PathfindingStats::queue_length`](crate::PathfindingStats::queue_length)).
pub const QUEUE_LENGTH: DiagnosticPath = DiagnosticPath::const_new("pathfinding/queue_length");

/// Searches running at the end of the frame
/// ([`PathfindingStats::in_flight`](crate::PathfindingStats::in_flight)).
pub const IN_FLIGHT: DiagnosticPath = DiagnosticPath::const_new("pathfinding/in_flight");

/// Flow fields held at the end of the frame, finished or being built
/// ([`PathfindingStats::flow_fields`](crate::PathfindingStats::flow_fields)).
pub const FLOW_FIELDS: DiagnosticPath = DiagnosticPath::const_new("pathfinding/flow_fields");

/// Goals' shared trees that agents hold routes on
/// ([`PathfindingStats::goal_trees`](crate::PathfindingStats::goal_trees)).
pub const GOAL_TREES: DiagnosticPath = DiagnosticPath::const_new("pathfinding/goal_trees");

/// Sectors of the sector hierarchies not built yet at the end of the frame
/// ([`PathfindingStats::hierarchy_sectors_waiting`](crate::PathfindingStats::hierarchy_sectors_waiting)):
/// on a huge map, how far the background build has to go.
pub const HIERARCHY_SECTORS_WAITING: DiagnosticPath =
    DiagnosticPath::const_new("pathfinding/hierarchy_sectors_waiting");

/// Every path above, stages first; for
/// [`LogDiagnosticsPlugin::filtered`](bevy::diagnostic::LogDiagnosticsPlugin::filtered) and
/// other lists of what to show.
pub const ALL: [DiagnosticPath; 12] = [
    INVALIDATE_MS,
    DISPATCH_MS,
    APPLY_MS,
    FOLLOW_MS,
    SEARCHES_PER_SECOND,
    PATHS_CUT_PER_SECOND,
    CACHE_HIT_PERCENT,
    QUEUE_LENGTH,
    IN_FLIGHT,
    FLOW_FIELDS,
    GOAL_TREES,
    HIERARCHY_SECTORS_WAITING,
];

/// The four stage times, in the order the stages run.
pub(crate) const STAGE_MS: [DiagnosticPath; 4] = [INVALIDATE_MS, DISPATCH_MS, APPLY_MS, FOLLOW_MS];
