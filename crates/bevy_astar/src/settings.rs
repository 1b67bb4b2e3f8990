//! Run-time settings of the pathfinding systems: throttling, caching and re-path policy.

use bevy::prelude::*;
use core::time::Duration;

/// Which map changes make an agent search again.
///
/// Whatever the policy, an agent is re-searched when a change touches a cell of its current path
/// (blocked, or its terrain cost changed) or blocks a corner cell that one of its diagonal steps
/// may not cut under the request's corner rule (a path is only as legal as its worst step), when
/// the whole map is replaced, when an agent without a
/// path ([`PathStatus::NoPath`](crate::PathStatus::NoPath)) sees a cell open, and when an agent
/// whose start or goal was blocked sees that cell change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Debug, Default, PartialEq, Hash)]
pub enum InvalidationPolicy {
    /// Keep a path until a change touches its cells. Paths may stay longer than needed after
    /// cells open elsewhere, but no agent searches again for a change it cannot feel.
    #[default]
    TouchedCells,
    /// Also re-search every agent with a path when any cell opens or gets cheaper, since its path
    /// could now be shorter.
    TouchedOrOpened,
}

/// Whether background searches pause while the plugin's stages run (from
/// [`PathfindingSystems::Invalidate`](crate::PathfindingSystems::Invalidate) to the end of
/// [`PathfindingSystems::Follow`](crate::PathfindingSystems::Follow)) in a burst: frames after one in which
/// a stage carried work over ([`PathfindingStats::carried_over`](crate::PathfindingStats::carried_over)),
/// as after a map change that re-paths a crowd.
///
/// On a machine with two cores, Bevy's executor runs systems on the main thread and one compute
/// thread, and a search on the async compute thread takes one of the two cores from them: a
/// stage then waits for a core for as long as the scheduler's time slice, milliseconds past its
/// budget. A paused search waits at its next slice point (a few thousand cells of work) and goes
/// on once the stages are done, or after four [`PathfindingSettings::stage_budget`]s (20 ms at
/// most); a thread that waited then runs as long as it waited before it looks again, so the
/// searches keep at least half of their time whatever the frame rate. Without Bevy's
/// `multi_threaded` feature the plugin runs its searches itself, and this does nothing.
///
/// Off by default: it trades background time for steady frames. On two cores, with 10,000
/// agents on a 256 x 256 map, it halves the p99 of the plugin's frame time at no cost in
/// re-path latency; on a 1024 x 1024 map, or with 50,000 agents, where the background searches
/// are what the agents wait for, it makes them wait longer (`BENCHMARKS.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Debug, Default, PartialEq, Hash)]
pub enum BackgroundPause {
    /// Never pause: searches run alongside the stages.
    #[default]
    Never,
    /// Pause on machines with at most two cores.
    OnFewCores,
    /// Always pause.
    Always,
}

/// Where the plugin's searches and flow-field builds run
/// ([`PathfindingSettings::search_thread`]).
///
/// On the task pool a search runs beside the frame and its path arrives a frame or more
/// later, depending on how fast the machine is and how busy its cores are. On the main
/// thread the plugin runs the searches itself, oldest first, within
/// [`PathfindingSettings::stage_budget`] (a long one yields at its slice points and goes on
/// next frame): with a budget no frame reaches, every search ends in the frame it starts, so a
/// run with the same inputs and time steps gives the same paths on the same frames on any
/// machine, as lockstep multiplayer, replays and tests need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Debug, Default, PartialEq, Hash)]
pub enum SearchThread {
    /// On Bevy's async compute task pool. Without Bevy's `multi_threaded` feature (as on the
    /// web) there is no pool to run them beside the frame, and this is
    /// [`SearchThread::MainThread`].
    #[default]
    TaskPool,
    /// On the main thread, within the stage budget.
    MainThread,
    /// On the plugin's own threads, which the operating system runs only on a core that the
    /// game's threads leave free (`SCHED_IDLE` on Linux and Android; elsewhere they keep the
    /// normal priority and behave as [`SearchThread::TaskPool`]). As many threads as Bevy's
    /// async compute pool has, and one more for the spare copies of huge grids and for dropping
    /// replaced paths.
    ///
    /// On a machine with two cores, a search or a sector field's renewal on Bevy's pool holds a
    /// core that the frame's systems then wait for, a scheduler's time slice at a time. With
    /// 10,000 agents and a tower every half second, the p99 of the plugin's frame time falls
    /// from 3.1-3.6 to 1.5-2.3 ms on a 256 x 256 map, with the same re-path latency, and from
    /// 5.4-5.9 to 1.3-2.1 ms on a 4096 x 4096 map with hierarchical paths, where agents
    /// re-path in 2 frames at the median instead of 1 (`BENCHMARKS.md`). The cost: a game
    /// that keeps every core busy leaves these threads almost no time, and its paths then
    /// arrive late; so this is not the default. Without Bevy's `multi_threaded` feature this
    /// is [`SearchThread::MainThread`].
    IdleThreads,
}

impl SearchThread {
    /// Whether work runs beside the frame, on a pool's threads.
    pub(crate) fn is_pool(self) -> bool {
        cfg!(feature = "multi_threaded") && self != Self::MainThread
    }
}

/// Settings of [`AStarPlugin`](crate::AStarPlugin), readable and writable at run time as a
/// resource.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
/// use std::time::Duration;
///
/// fn slow_down(mut settings: ResMut<PathfindingSettings>) {
///     settings.max_searches_per_frame = 4;
///     settings.min_search_interval = Duration::from_millis(250);
/// }
/// # bevy::ecs::system::assert_is_system(slow_down);
/// ```
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Debug, Default, PartialEq)]
pub struct PathfindingSettings {
    /// Most searches started in one frame; 0 pauses dispatching. Cache hits and requests that
    /// join a search already running do not count.
    pub max_searches_per_frame: u32,
    /// Most searches running in the background at once.
    pub max_in_flight: u32,
    /// Least time between two searches for the same agent; a request changed sooner waits in the
    /// queue (keeping its place) and is then searched once for its latest value.
    pub min_search_interval: Duration,
    /// Results kept for reuse by identical requests; 0 turns the cache off.
    pub cache_capacity: usize,
    /// Which map changes make agents search again.
    pub invalidation: InvalidationPolicy,
    /// When a map change blocks cells of an agent's path, splice a local detour around them
    /// (the core's [`Searcher::repair_path`](astar_grid::Searcher::repair_path)) instead of
    /// searching the whole path again: far cheaper when a new wall cuts many paths at once.
    /// A spliced path is valid but may be a little dearer than the cheapest one, so it is not
    /// cached; where no local detour exists, the whole path is searched. Agents whose request
    /// changed its goal or options, or whose new start is not on the old path, and traced
    /// agents, are always searched in full. Off by default, so that every path is optimal;
    /// turn it on for crowds.
    pub repair_cut_paths: bool,
    /// Fewest different requests for one goal (with the same movement rule and cost model)
    /// that a frame's dispatch answers together, with one Dijkstra grown from the goal that
    /// stops once every start is reached
    /// ([`FlowField::paths_to_goal`](astar_grid::FlowField::paths_to_goal)), instead of one
    /// search each. Only requests whose own search would be optimal and unlimited take part:
    /// [`PathAlgorithm::AStar`](crate::PathAlgorithm::AStar) and
    /// [`PathAlgorithm::JumpPoint`](crate::PathAlgorithm::JumpPoint) with an admissible,
    /// unweighted heuristic, no window, no expansion limit or partial path, and no trace; and
    /// [`PathAlgorithm::Hierarchical`](crate::PathAlgorithm::Hierarchical) requests with such
    /// options while their hierarchy is mostly unbuilt (they would run that A* search); those
    /// are counted over frames, so that a goal they stream to one a frame has them share its
    /// search as soon as it has had this many in all.
    /// Their paths are as cheap as their own searches' (ties may be broken differently), and
    /// [`Path::algorithm`](crate::Path::algorithm) reports
    /// [`PathAlgorithm::FlowField`](crate::PathAlgorithm::FlowField). Once the hierarchy is
    /// built, hierarchical requests for one goal are answered instead off the goal's sector
    /// flow field, with the hierarchy's near-optimal paths; the field is kept, and answers
    /// the goal's later requests however few. A batch counts as one search against the caps.
    /// This is what lets a tower that cuts the paths of a thousand creeps re-path them all in
    /// a frame or two. 0 turns batching off.
    pub goal_batch_min: usize,
    /// Fewest agents with optimal requests for one goal (the requests
    /// [`PathfindingSettings::goal_batch_min`] takes), gathered in one frame's dispatch or
    /// counted among all A* and jump point requests (once a second), that make the goal share
    /// one tree of shortest paths (for each agent kind, movement rule and cost model) instead
    /// of giving each agent a path of its own. Every agent on the tree reads its route from it
    /// ([`Path::is_shared`](crate::Path::is_shared)); a map change updates the tree
    /// incrementally in the background, and no agent is touched on the main thread for it.
    /// Later requests for the goal join the tree while it is held. Trees are held within
    /// [`PathfindingSettings::max_flow_fields`], beside the flow fields; beyond it, goals fall
    /// back to goal batches. 0 turns sharing off.
    pub shared_goal_min_agents: usize,
    /// Whether an agent on a goal's shared tree hears of a new route when a map change
    /// updates the tree: every agent on the tree then gets a
    /// [`PathFound`](crate::PathFound) message and entity event, all sent together in the
    /// frame the update lands (the agent's [`Path`](crate::Path) is not written: it reads the
    /// new route already). Off by default, and then no agent is read for it: a change costs
    /// per tree, not per agent.
    pub announce_shared_route_changes: bool,
    /// Most agents whose [`Path`](crate::Path) is written in one frame (at least 1). Finished
    /// results beyond it wait for the next frames, oldest search first, so that a map change
    /// that re-paths thousands of agents at once spreads their updates over a few frames
    /// instead of stalling one; they walk their old paths meanwhile.
    pub max_paths_applied_per_frame: u32,
    /// Most main-thread time each stage (Invalidate, Dispatch, Apply) spends on agents in one
    /// frame, as the Unity A* Project's `maxFrameTime`: once it is spent, the stage leaves the
    /// rest for the next frames, oldest first (agents to queue after a map change, queued
    /// requests to serve, results to write), and [`PathfindingStats::carried_over`](crate::PathfindingStats::carried_over)
    /// counts them. Each stage handles at least one agent a frame. A larger budget re-paths a
    /// crowd that a tower cut in fewer frames; a smaller one keeps the frame rate steady.
    pub stage_budget: Duration,
    /// Most flow fields kept for [`PathAlgorithm::FlowField`](crate::PathAlgorithm::FlowField)
    /// requests. A field (one per goal, movement rule and cost model) lives while an agent's
    /// request reads from it, so that after a map change it is updated rather than built
    /// anew; it is dropped once no request needs it. Fields being built count. No more than
    /// this many are held at any time: a request for a field not held lets go of the least
    /// recently asked for (not one asked for in the same frame), and a later request for that
    /// one builds it again; when every field held was asked for in the same frame, the request
    /// is searched alone with A* instead
    /// ([`PathfindingStats::flow_field_fallbacks`](crate::PathfindingStats::flow_field_fallbacks)
    /// counts them). 0 answers every flow-field request with A*, and turns goal trees off. A
    /// field or tree costs 5 bytes per grid cell: 5 MB on a 1024 x 1024 map.
    pub max_flow_fields: usize,
    /// Whether background searches pause while the plugin's stages run.
    pub background_pause: BackgroundPause,
    /// Where searches and flow-field builds run; a change applies to those started after it.
    pub search_thread: SearchThread,
}

impl Default for PathfindingSettings {
    fn default() -> Self {
        Self {
            max_searches_per_frame: 64,
            max_in_flight: 256,
            min_search_interval: Duration::ZERO,
            cache_capacity: 1024,
            invalidation: InvalidationPolicy::default(),
            repair_cut_paths: false,
            goal_batch_min: 8,
            shared_goal_min_agents: 32,
            announce_shared_route_changes: false,
            max_paths_applied_per_frame: 1024,
            stage_budget: Duration::from_micros(1000),
            max_flow_fields: 32,
            background_pause: BackgroundPause::default(),
            search_thread: SearchThread::default(),
        }
    }
}
