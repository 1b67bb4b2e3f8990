//! Crowds: local avoidance for path followers, so that agents walk around each other instead of
//! through each other, never leave walkable ground, and search again when they stop making
//! progress.
//!
//! CrowdAvoidance is opt-in, per agent: a [`PathFollower`](crate::PathFollower) with an
//! [`CrowdAvoidance`] component is steered by the crowd systems of
//! [`PathfindingSystems::Follow`](crate::PathfindingSystems::Follow) instead of walking straight along its
//! waypoints. Agents without it move exactly as before, and the avoiding agents do not see them.
//!
//! The rules are the core's: each terrain profile's avoiding agents are one
//! [`astar_grid::crowd::RouteCrowd`] (flyers do not bump into walkers), kept from frame to frame,
//! and the crowd systems only convert between it and the agents' components. Each frame:
//!
//! 1. **Gather**: the crowd takes in new agents and lets go of those gone; of each agent, its
//!    radius (from its footprint, [`astar_grid::crowd::footprint_radius`], or a smaller
//!    [`CrowdAvoidance::radius`]), its top speed (the follower's) and priority, its position when
//!    the game moved it, and its path's waypoints in grid space when the path is new. A path
//!    that is a route on a goal's shared tree is only noted: the step reads its waypoints off the
//!    tree beside the frame, and reads them again, from where the agent stands, when the tree's
//!    new version changed cells the rest of its route crosses, so a map change gives no avoiding
//!    agent a new path.
//! 2. **Steer** ([`astar_grid::crowd::RouteWalker::steer`]): each agent's *preferred velocity*
//!    heads at full speed for its next waypoint (for a one-cell agent, the furthest of the next
//!    few that its cell sees and that its disc, moving straight from the cell's centre, passes to
//!    without touching a wall: [`astar_grid::crowd::disc_passes`]; a waypoint past a corner the
//!    disc would clip pins an agent off its cell's centre on the corner). A waypoint counts as
//!    passed within the agent's radius of it, or once the agent is past it along the next leg;
//!    the last one on it. Lines of sight run from cell centre to cell centre, so an agent draws
//!    them again only when it enters another cell, heads for another waypoint or the walls
//!    change near them (a [`NavChanged`](crate::NavChanged) says where). An agent whose cell was just blocked under it (a tower landed on it) is first put
//!    back on the nearest legal ground.
//! 3. **Plan**: ORCA, the optimal reciprocal collision avoidance of van den Berg et al.
//!    ([`astar_grid::crowd`]), picks for each agent the velocity nearest its preferred one that
//!    keeps it off its nearest neighbours for [`CrowdSettings::time_horizon`] seconds and off the
//!    walls (the cells its profile cannot enter) for [`CrowdSettings::wall_time_horizon`]. The
//!    agents are planned in parallel, in chunks, on threads of the step's own. Each frame plans one
//!    agent in [`CrowdSettings::planning_interval`] (every other one by default, alternating);
//!    the others keep the velocity of their last plan, which was made for that many frames.
//! 4. **Move**: each agent moves by its velocity, swept against the walls (it slides along
//!    them and never ends inside one), and its [`CrowdVelocity`] records what it wanted and what
//!    it did.
//! 5. **Progress**: an agent that has not come [`CrowdSettings::stuck_distance`] cells closer
//!    to its next waypoint for [`CrowdSettings::stuck_after`] seconds searches again from where
//!    it stands (its request's start moves there), unless it is already within reach of its
//!    goal, where it stops: a crowd round one goal cannot all stand on it.
//!
//! Isometric and hexagonal maps: the core's walls are square cells, which these cells are not.
//! There the crowd steps in an open box around the map, agents keep to their waypoints (no
//! line of sight ahead), and writing a step back refuses any move whose centre would enter a
//! cell the profile cannot enter: the agent steps towards its own cell's centre instead. Agents
//! avoid each other as anywhere, and stay on walkable cells, but walls give them no half-planes
//! to steer by.
//!
//! Opposing flows: agents heading for different places have different priorities (from the
//! 8 x 8-cell square of the map their goal lies in, unless [`CrowdAvoidance::priority`] says), and
//! where two agents walk against each other the one of lower priority takes the larger share of
//! the avoiding ([`astar_grid::crowd::YIELDING_SHARE`]), so flows meeting in a corridor one
//! agent wide do not stand face to face for ever: the lower flow is pushed back out.
//!
//! Stuck agents: one that has made no progress for [`CrowdSettings::stuck_after`] waits its
//! turn when the agents just ahead of it want to go its way (a queue, moving or not); it stops
//! when it is within reach of its goal (others stand on it); otherwise (a dead end, or agents
//! coming the other way that do not give way) it searches again from where it stands.
//!
//! Knots: agents pressing on each other at a door, each pinned on a corner, stand still for
//! ever under ORCA, which keeps agents off each other's velocities and lets nobody press into a
//! neighbour that does not move. So an agent that waits or is stuck, and yields to every agent
//! within a body length that wants to move (each has a higher priority, or the same one and is
//! ahead of it), steps slowly out of their way for a third of [`CrowdSettings::stuck_after`]
//! before it goes on. The order is strict, so the last of a knot yields
//! ([`astar_grid::crowd::AgentProgress`]).
//!
//! Beside the frame: the readings off the trees and steps 2 to 5 read and write nothing but
//! the crowds, so by default ([`CrowdSettings::step_beside_frame`]) they run on a thread of the
//! crowd's own while the rest of the frame runs, and the next frame's `Follow` writes them back
//! (waiting for them if they are not done) before it gathers again: the main thread only
//! brings the crowds up to date and writes the agents back, and agents are shown one frame
//! late. A step that outlasts the next frame runs on beside it rather than stall it
//! ([`CrowdSettings::step_may_run_on`]).
//!
//! Density-aware routes (off by default): with [`CrowdSettings::route_density_weight`], the
//! avoiding agents are counted on each cell every [`CrowdSettings::route_density_interval`], and
//! the goals' shared trees weigh the count as a cost added to the terrain's, updated in the
//! background. An avoiding agent whose tree then offers a way cheaper than its own by more than
//! two steps reads its route again, so that a crowd spreads over ways of nearly equal length
//! instead of queueing at the shortest.
//!
//! Progress is measured towards the waypoint aimed at; aiming at a waypoint further along the
//! path counts as progress, aiming back and forth between waypoints aimed at before does not
//! (an agent on the line between two cells may aim at one from each). Of two agents going the
//! same way, exactly one is ahead of the other, so two side by side at a door one agent wide
//! do not each wait for the other in a queue.

mod density;
mod links;
pub(crate) mod plugin;
mod progress;
mod space;
mod tree_routes;

use bevy::prelude::*;
use core::time::Duration;

/// Turns local avoidance on for a [`PathFollower`](crate::PathFollower) with a
/// [`PathRequest`](crate::PathRequest) (whose size and profile it avoids as; a follower without
/// a request walks as without avoidance): the agent is steered round the other avoiding agents
/// of its terrain profile and along the walls, and searches again when it stops making progress
/// (see [`crate::crowd`]). The [`CrowdPlugin`](crate::CrowdPlugin) steers it; without that
/// plugin, the agent follows its path as if it had no avoidance.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// let creep = (
///     PathRequest::new(Cell::new(0, 0), Cell::new(30, 12)),
///     PathFollower::new(60.0),
///     CrowdAvoidance::default(),
///     Transform::default(),
/// );
/// # let _ = creep;
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq)]
#[require(CrowdVelocity)]
pub struct CrowdAvoidance {
    /// The agent's radius in world units; `None` for its footprint's
    /// ([`astar_grid::crowd::footprint_radius`] of its request's size, times the cell size).
    /// It may be smaller than the footprint's, not larger (its paths are searched for the
    /// footprint); a radius that is not a positive number counts as the footprint's. Cells that
    /// are not square measure it by their shorter side, and the top speed by the longer.
    pub radius: Option<f32>,
    /// Its priority where it meets an agent walking against it: the lower gives way. `None`
    /// for a priority derived from where its request's goal lies, the same for every agent
    /// heading there.
    pub priority: Option<u32>,
}

impl CrowdAvoidance {
    /// CrowdAvoidance with a radius of `radius` world units.
    #[must_use]
    pub const fn with_radius(mut self, radius: f32) -> Self {
        self.radius = Some(radius);
        self
    }

    /// CrowdAvoidance with priority `priority`.
    #[must_use]
    pub const fn with_priority(mut self, priority: u32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// The radius of the agent's disc in cells, for an agent of `size` cells on cells whose
    /// shorter side is `shorter_side` world units: its footprint's, or the smaller one
    /// [`CrowdAvoidance::radius`] asks for (a larger disc would not fit the ways its footprint was
    /// searched for; a radius that is not a positive number counts as the footprint's).
    pub(crate) fn radius_in_cells(&self, size: u8, shorter_side: f32) -> f32 {
        let footprint = astar_grid::crowd::footprint_radius(size);
        self.radius
            .map(|radius| radius / shorter_side)
            .filter(|radius| *radius > 0.0)
            .map_or(footprint, |radius| {
                radius.clamp(astar_grid::crowd::MIN_RADIUS, footprint)
            })
    }
}

/// What an avoiding agent wanted to do and did in the last frame, in world units per second:
/// `desired` heads for its next waypoint at full speed, `actual` is how it moved.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct CrowdVelocity {
    /// The preferred velocity: towards the next waypoint at the follower's speed.
    pub desired: Vec2,
    /// The velocity the agent moved at.
    pub actual: Vec2,
}

/// How the crowd systems steer avoiding agents (see [`crate::crowd`]); a resource, changeable
/// at run time. Distances are in cells.
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Debug, Default, PartialEq)]
pub struct CrowdSettings {
    /// Seconds ahead for which a velocity must keep an agent off its neighbours. Longer
    /// horizons avoid earlier and more smoothly, shorter ones let a dense crowd press closer.
    pub time_horizon: f32,
    /// Seconds ahead for which a velocity must keep an agent off the walls.
    pub wall_time_horizon: f32,
    /// How far an agent looks for neighbours, in cells.
    pub neighbour_distance: f32,
    /// How many of the nearest neighbours it avoids.
    pub max_neighbours: usize,
    /// How long an agent may go without coming [`CrowdSettings::stuck_distance`] closer to its
    /// next waypoint before it searches again from where it stands (stepping aside for a third
    /// of this first when it is the last of a knot of agents, see [`crate::crowd`]).
    pub stuck_after: Duration,
    /// The progress, in cells, that counts.
    pub stuck_distance: f32,
    /// Agents steered or planned per job of the step's threads (as many as the machine has
    /// cores, started for the step, not Bevy's task pools); crowds no larger are planned on the
    /// calling thread.
    pub agents_per_task: usize,
    /// Frames from one plan of an agent's velocity to the next: each frame plans one agent in
    /// this many (by its place in the crowd), and the others keep the velocity of their last plan, which was
    /// made for that many frames. 1 plans every agent every frame; 2 halves the planning's
    /// cost, and a plan then holds for a thirtieth of a second at 60 frames a second. Agents
    /// still move against the walls every frame.
    pub planning_interval: u32,
    /// Whether a frame's crowd step (steering, planning, moving) runs beside the frame, on a
    /// thread of the crowd's own (which plans large crowds over threads of its own), to be
    /// written back at the start of the next frame's
    /// [`PathfindingSystems::Follow`](crate::PathfindingSystems::Follow): the main thread then
    /// only gathers the agents and writes their step back, and the agents are shown where the
    /// step of the frame before put them (one frame late). False runs the step inside
    /// `Follow`, and writes it back there. Without Bevy's `multi_threaded` the step always
    /// runs inside `Follow`. Default true.
    pub step_beside_frame: bool,
    /// Whether a step beside the frame that is not done when the next frame's `Follow` begins
    /// runs on beside that frame too (once; the frame after waits for it), rather than stall
    /// the frame: the avoiding agents then stand still for that frame, and the next step moves
    /// them by the time of both. A step outlasts a frame when many agents draw their lines of
    /// sight again at once (after a map change, or when many get new paths). False always
    /// waits, so that every frame writes back the step of the frame before: a run is then the
    /// same on every machine. Default true.
    pub step_may_run_on: bool,
    /// How much a goal's shared tree weighs the crowd on its routes: each avoiding agent standing
    /// on a cell adds this to the cost of stepping onto it, in the units of a terrain cost (a
    /// plain cell costs 1; the sum is rounded, and a cell's cost stops at 255). 0, the default,
    /// turns density-aware routes off.
    ///
    /// With a weight, a queue of agents makes its cells dearer, so the routes of the agents
    /// arriving behind it spread over other ways nearly as short: at 1, a way through a queue
    /// ten agents long costs as much as one ten cells longer. When a tree weighed a newer count,
    /// each avoiding agent on it checks whether the tree now offers it a way cheaper than its
    /// own by more than two steps, and reads its route again if so. It applies to the goals
    /// that share a
    /// tree (see
    /// [`PathfindingSettings::shared_goal_min_agents`](crate::PathfindingSettings::shared_goal_min_agents)).
    pub route_density_weight: f32,
    /// How often the crowd is counted for [`CrowdSettings::route_density_weight`]; each count
    /// that differs from the last updates the shared trees in the background. Default half a
    /// second.
    pub route_density_interval: Duration,
}

impl Default for CrowdSettings {
    fn default() -> Self {
        let core = astar_grid::crowd::AvoidanceSettings::default();
        Self {
            time_horizon: core.time_horizon,
            wall_time_horizon: core.wall_time_horizon,
            neighbour_distance: 3.0,
            max_neighbours: 8,
            stuck_after: Duration::from_secs(3),
            stuck_distance: 0.25,
            agents_per_task: 512,
            planning_interval: 2,
            step_beside_frame: true,
            step_may_run_on: true,
            route_density_weight: 0.0,
            route_density_interval: Duration::from_millis(500),
        }
    }
}

impl CrowdSettings {
    /// The core's avoidance settings.
    #[must_use]
    pub fn avoidance(&self) -> astar_grid::crowd::AvoidanceSettings {
        astar_grid::crowd::AvoidanceSettings {
            time_horizon: self.time_horizon,
            wall_time_horizon: self.wall_time_horizon,
            neighbour_distance: self.neighbour_distance,
            max_neighbours: self.max_neighbours,
            progress: self.progress(),
            ..astar_grid::crowd::AvoidanceSettings::default()
        }
    }

    /// The core's settings of the knot rules: [`CrowdSettings::stuck_after`] and
    /// [`CrowdSettings::stuck_distance`].
    #[must_use]
    pub fn progress(&self) -> astar_grid::crowd::ProgressSettings {
        astar_grid::crowd::ProgressSettings {
            stuck_after: self.stuck_after.as_secs_f32(),
            stuck_distance: self.stuck_distance,
        }
    }
}
