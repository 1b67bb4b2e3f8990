//! Local avoidance for crowds of agents: ORCA velocities that keep agents off each other and
//! off the walls, and a mover that never lets an agent into a blocked cell.
//!
//! Everything is in cell units of grid space: cell (x, y) of a [`Grid`] covers
//! `[x, x + 1) x [y, y + 1)`, and `y` grows with the row index, so it points down the map. An
//! agent is a disc ([`CrowdAgent`]); blocked cells (byte 0) and everything outside the grid are
//! walls.
//!
//! A step has three stages, each public so that a game engine can run them itself (the second
//! over several threads):
//!
//! 1. [`NeighbourGrid::rebuild`] sorts the agents into buckets, in O(n).
//! 2. [`VelocityPlanner::plan_velocities`] plans each agent's new velocity with ORCA
//!    (van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision avoidance", 2011):
//!    half-planes of permitted velocities from the walls ([`AvoidanceSettings::wall_time_horizon`])
//!    and from the nearest neighbours ([`agent_half_plane`]), and linear programs in the disc
//!    of the maximum speed that keep the one nearest to the preferred velocity
//!    ([`solve_velocity`]), or to the way it makes for an agent of a higher priority coming at
//!    it ([`AvoidanceSettings::make_way`]). It reads a shared [`PlanningContext`] and writes
//!    only its output.
//! 3. [`move_agents`] moves each agent by its velocity with [`move_within_walls`], which
//!    sweeps the disc and slides it along walls, so no agent ever ends inside a wall.
//!
//! [`RouteCrowd`] is the whole crowd of a game: agents that follow routes ([`RouteWalker`]:
//! passing waypoints, aiming ahead by lines of sight), kept dense from step to step, whose
//! progress is measured along their routes ([`RouteProgress`]) and whose steps report the
//! agents that arrived or are stuck ([`RouteEvent`]). The Bevy plugin runs this very crowd.
//!
//! [`Crowd::step`] runs the three stages for agents whose preferred velocities the caller sets,
//! then breaks knots ([`AgentProgress`]): ORCA alone lets
//! agents pressing on each other (at a door, or four crossing at one point slowly) stand still
//! for ever, so an agent that makes no progress for a while waits its turn when it is in a
//! queue, and steps aside when it is the last of a knot. [`nearest_legal_position`] puts back
//! on legal ground an agent whose cell was just blocked under it.
//!
//! ```
//! use astar_grid::Grid;
//! use astar_grid::crowd::{AvoidanceSettings, Crowd, CrowdAgent, Vector, footprint_radius};
//!
//! // Two agents swap places along a corridor three cells wide (outside the grid is wall).
//! let grid = Grid::new(12, 3);
//! let radius = footprint_radius(1);
//! let goals = [Vector::new(10.5, 1.5), Vector::new(1.5, 1.5)];
//! let mut agents = [
//!     CrowdAgent::new(Vector::new(1.5, 1.5), radius, 3.0),
//!     CrowdAgent::new(Vector::new(10.5, 1.5), radius, 3.0),
//! ];
//! let mut crowd = Crowd::new(AvoidanceSettings::default());
//! for _ in 0..600 {
//!     for (agent, goal) in agents.iter_mut().zip(goals) {
//!         agent.preferred_velocity = agent.velocity_towards(goal, 1.0 / 60.0);
//!     }
//!     crowd.step(&mut agents, &grid, 1.0 / 60.0);
//!     let gap = (agents[0].position - agents[1].position).length();
//!     assert!(gap >= 2.0 * radius - 0.05, "the agents overlap");
//! }
//! for (agent, goal) in agents.iter().zip(goals) {
//!     assert!((agent.position - goal).length() < 0.01);
//! }
//! ```

mod neighbours;
mod orca;
mod progress;
mod route;
mod route_crowd;
mod route_progress;
mod vector;
mod walls;

pub use neighbours::{Neighbour, NeighbourGrid};
pub use orca::{
    HalfPlane, PlanningContext, VelocityPlanner, YIELDING_SHARE, agent_half_plane, avoidance_share,
    solve_velocity,
};
pub use progress::{
    ASIDE_SPEED, AgentProgress, GIVE_WAY_SHARE, HeldUp, MAX_GIVE_WAY_DOUBLINGS, ProgressSettings,
    STANDING_SPEED, is_ahead, moves_in_a_queue, way_aside,
};
pub use route::{
    LAST_REACH, LOOKAHEAD, Route, RouteSight, RouteTarget, RouteWalker, Walls, arrival_reach,
    holding_velocity, look_ahead, preferred_velocity, sees,
};
pub use route_crowd::{ChunkRunner, InOrder, PUSH_OUT_DISTANCE, RouteCrowd, RouteEvent};
pub use route_progress::{BLIND_PATIENCE, ProgressVerdict, RouteProgress};
pub use vector::Vector;
pub use walls::{
    MIN_RADIUS, WALL_SKIN, disc_fits, disc_passes, move_within_walls, nearest_legal_position,
};

use crate::Grid;

/// The shortest time horizon (and time step) the planner works with, in seconds; shorter ones
/// count as this one, so that nothing divides by zero.
pub const MIN_TIME_HORIZON: f32 = 1e-3;

/// How much less than half its footprint an agent's radius is ([`footprint_radius`]), in
/// cells. The disc then passes a gap as wide as its footprint with play on both sides: the
/// mover keeps a [`WALL_SKIN`] from each wall, and a disc must line up with a door before it
/// can enter, which it does while neighbours press on it only with play to spare. With a
/// margin of 0.05 (a one-cell agent of radius 0.45 in a door one cell wide has 0.05 of play
/// each side) the fifty agents of the door test (`tests/crowd_flow.rs`) took 270 s through
/// such a door; with 0.15 (radius 0.35), together with the shorter default
/// [`AvoidanceSettings::wall_time_horizon`] and the knot rule for agents standing behind
/// ([`STANDING_SPEED`]), 79 s. A footprint still fits only one agent across: two radii
/// exceed it.
pub const FOOTPRINT_MARGIN: f32 = 0.15;

/// The radius of the disc of an agent whose footprint is `size` x `size` cells (size 0 counts
/// as 1): `size / 2` less [`FOOTPRINT_MARGIN`], so that it fits a corridor `size` cells wide.
///
/// ```
/// use astar_grid::crowd::footprint_radius;
///
/// assert_eq!(footprint_radius(1), 0.35);
/// assert_eq!(footprint_radius(2), 0.85);
/// ```
#[must_use]
pub fn footprint_radius(size: u8) -> f32 {
    f32::from(size.max(1)) * 0.5 - FOOTPRINT_MARGIN
}

/// A moving agent of a crowd: a disc with a velocity, in cell units (positions in cells,
/// velocities in cells per second).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrowdAgent {
    /// Centre of the disc.
    pub position: Vector,
    /// The velocity it moved at in the last step; neighbours read it to share the avoidance.
    pub velocity: Vector,
    /// The velocity it would take with nobody in the way, usually towards its next waypoint
    /// ([`CrowdAgent::velocity_towards`]).
    pub preferred_velocity: Vector,
    /// Radius of the disc ([`footprint_radius`] for a square footprint).
    pub radius: f32,
    /// Its top speed.
    pub max_speed: f32,
    /// Who gives way in a head-on meeting ([`agent_half_plane`]): of two agents whose
    /// preferred velocities point in opposed directions, the one of the lower priority takes
    /// nearly all of the avoiding ([`YIELDING_SHARE`]), so that a flow of higher priority
    /// passes one of lower priority even in a corridor one agent wide. Give every agent of a
    /// flow (say, all those heading for the same goal) the same priority. 0 by default.
    pub priority: u32,
}

impl CrowdAgent {
    /// An agent at rest at `position`.
    #[must_use]
    pub const fn new(position: Vector, radius: f32, max_speed: f32) -> Self {
        Self {
            position,
            velocity: Vector::ZERO,
            preferred_velocity: Vector::ZERO,
            radius,
            max_speed,
            priority: 0,
        }
    }

    /// The velocity that heads for `target` at top speed, or slower on the last stretch, so
    /// that a step of `time_step` seconds ends on the target rather than past it (zero at the
    /// target; a time step that is not positive counts as one second).
    ///
    /// ```
    /// use astar_grid::crowd::{CrowdAgent, Vector};
    ///
    /// let agent = CrowdAgent::new(Vector::new(0.0, 0.0), 0.4, 2.0);
    /// assert_eq!(agent.velocity_towards(Vector::new(10.0, 0.0), 0.1), Vector::new(2.0, 0.0));
    /// // 0.1 cells away: one step of 0.1 s at 1 cell/s ends there.
    /// assert_eq!(agent.velocity_towards(Vector::new(0.0, 0.1), 0.1), Vector::new(0.0, 1.0));
    /// ```
    #[must_use]
    pub fn velocity_towards(&self, target: Vector, time_step: f32) -> Vector {
        let offset = target - self.position;
        let time_step = if time_step > 0.0 { time_step } else { 1.0 };
        let speed = self.max_speed.max(0.0) * time_step;
        if offset.length_squared() > speed * speed {
            offset.normalize_or_zero() * self.max_speed.max(0.0)
        } else {
            offset / time_step
        }
    }
}

/// How agents avoid each other and the walls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvoidanceSettings {
    /// Seconds ahead for which a velocity must keep an agent off its neighbours (RVO2's
    /// `timeHorizon`). Longer horizons avoid earlier and more smoothly but are more cautious in
    /// a dense crowd. Default 2.
    pub time_horizon: f32,
    /// Seconds ahead for which a velocity must keep an agent off the walls (RVO2's
    /// `timeHorizonObst`): an agent approaches a wall no faster than the gap over this horizon.
    /// It also sets how far planning looks for walls (this times the top speed, plus the
    /// radius), so the cost of the wall half-planes grows with its square. Default 0.25: an
    /// agent lines up with a door close to its jambs at up to four times the gap a second
    /// (with 0.5, the fifty agents of the door test in `tests/crowd_flow.rs`, of the radius
    /// [`footprint_radius`] gives, took 139 s through a door one cell wide; with 0.25, 60 s
    /// before the knot rule of [`STANDING_SPEED`] and 79 s with it); it never enters a wall
    /// whatever the horizon, since the mover sweeps it ([`move_within_walls`]).
    pub wall_time_horizon: f32,
    /// How far, in cells, an agent looks for neighbours (RVO2's `neighborDist`). Default 5.
    pub neighbour_distance: f32,
    /// How many of the nearest neighbours it avoids (RVO2's `maxNeighbors`). Default 10.
    pub max_neighbours: usize,
    /// When [`Crowd::step`] counts an agent as held up, to break knots (see [`AgentProgress`]).
    pub progress: ProgressSettings,
    /// Whether an agent makes way for one of a higher [`CrowdAgent::priority`] coming at it
    /// (their preferred velocities opposed, the other moving on and near ahead on its line):
    /// it heads back and off the other's line at half its top speed instead of its preferred
    /// velocity, so that a flow waiting at a door's exit clears it for the flow coming
    /// through. Agents of one priority never make way. Default true; false plans ORCA's
    /// velocity nearest the preferred one, whatever the priorities.
    pub make_way: bool,
}

impl Default for AvoidanceSettings {
    fn default() -> Self {
        Self {
            time_horizon: 2.0,
            wall_time_horizon: 0.25,
            neighbour_distance: 5.0,
            max_neighbours: 10,
            progress: ProgressSettings::default(),
            make_way: true,
        }
    }
}

impl AvoidanceSettings {
    /// The bucket side [`Crowd::step`] gives the neighbour grid: half the neighbour distance
    /// (at least a quarter of a cell), so that a query scans about five buckets across.
    #[must_use]
    pub fn bucket_size(&self) -> f32 {
        (self.neighbour_distance * 0.5).max(0.25)
    }
}

/// Moves every agent by its planned velocity over `time_step` seconds with
/// [`move_within_walls`], and stores the velocity it actually moved at (the planned one, unless
/// a wall shortened the move). Agents beyond `velocities` stay put; a time step that is not
/// positive and finite moves nobody.
pub fn move_agents(agents: &mut [CrowdAgent], velocities: &[Vector], grid: &Grid, time_step: f32) {
    if !(time_step > 0.0 && time_step.is_finite()) {
        return;
    }
    for (agent, &velocity) in agents.iter_mut().zip(velocities) {
        let displacement = velocity * time_step;
        let moved = move_within_walls(grid, agent.position, agent.radius, displacement);
        agent.velocity = if moved == agent.position + displacement {
            velocity
        } else {
            (moved - agent.position) / time_step
        };
        agent.position = moved;
    }
}

/// A whole crowd step with memory reused from step to step: the neighbour grid, one
/// [`VelocityPlanner`], the planned velocities, and each agent's progress under the knot rules
/// ([`AgentProgress`]).
///
/// The agents are matched from step to step by their index in the slice: pass the same agents
/// in the same order (agents added at the end start afresh; call [`Crowd::reset_progress`]
/// after reordering them).
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{AvoidanceSettings, Crowd, CrowdAgent, Vector, disc_fits};
///
/// // Agents walk into a wall: they stop in front of it, never inside.
/// let grid = Grid::from_ascii("....#\n....#\n....#")?;
/// let mut agents: Vec<CrowdAgent> = (0..3)
///     .map(|row| {
///         let mut agent = CrowdAgent::new(Vector::new(0.5, row as f32 + 0.5), 0.4, 4.0);
///         agent.preferred_velocity = Vector::new(4.0, 0.0);
///         agent
///     })
///     .collect();
/// let mut crowd = Crowd::new(AvoidanceSettings::default());
/// for _ in 0..120 {
///     crowd.step(&mut agents, &grid, 1.0 / 60.0);
///     assert!(agents.iter().all(|agent| disc_fits(&grid, agent.position, agent.radius)));
/// }
/// assert!(agents.iter().all(|agent| agent.position.x > 3.4));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Crowd {
    /// How the agents avoid each other and the walls, and when they count as held up.
    pub settings: AvoidanceSettings,
    /// The neighbour grid of the last step.
    neighbours: NeighbourGrid,
    /// The planner's memory.
    planner: VelocityPlanner,
    /// The velocities planned in the last step.
    velocities: Vec<Vector>,
    /// Each agent's progress under the knot rules, by index.
    progress: Vec<AgentProgress>,
    /// Where each agent stood when its progress was last measured afresh: progress is the
    /// distance from there along its preferred velocity.
    marks: Vec<Vector>,
    /// The agents stepping aside this step, with the preferred velocity the caller gave them.
    set_aside: Vec<(usize, Vector)>,
    /// The agents found stuck in the last step.
    stuck: Vec<usize>,
    /// Scratch memory of the knot rules' neighbour queries.
    found: Vec<Neighbour>,
}

impl Crowd {
    /// A crowd stepper with these settings.
    #[must_use]
    pub fn new(settings: AvoidanceSettings) -> Self {
        Self {
            settings,
            ..Self::default()
        }
    }

    /// Advances `agents` by `time_step` seconds: rebuilds the neighbour grid, plans every
    /// velocity from the agents as they were, moves every agent within the walls of `grid`,
    /// then judges each agent's progress. A time step that is not positive and finite changes
    /// nothing.
    ///
    /// Progress is the distance an agent got, since it last made progress, along its
    /// preferred velocity; an agent that prefers to stand still is not judged. One that has
    /// made less than [`ProgressSettings::stuck_distance`] for
    /// [`ProgressSettings::stuck_after`] seconds is held up
    /// ([`AgentProgress::judge_held_up`]): when it is the last of a knot of agents it steps
    /// aside for a while (during those steps it plans with [`AgentProgress::aside_velocity`]
    /// in place of its preferred velocity, which it gets back after each step), and when
    /// nobody ahead of it goes its way it is listed in [`Crowd::stuck`], so that the caller may
    /// search it a new path.
    ///
    /// After warm-up (the first step with this many agents) a step allocates nothing.
    pub fn step(&mut self, agents: &mut [CrowdAgent], grid: &Grid, time_step: f32) {
        if !(time_step > 0.0 && time_step.is_finite()) {
            return;
        }
        self.track(agents);
        self.set_aside.clear();
        for (index, (agent, progress)) in agents.iter_mut().zip(&self.progress).enumerate() {
            if let Some(aside) = progress.aside_velocity(agent.max_speed) {
                self.set_aside.push((index, agent.preferred_velocity));
                agent.preferred_velocity = aside;
            }
        }
        self.neighbours.rebuild(agents, self.settings.bucket_size());
        self.velocities.clear();
        self.velocities.resize(agents.len(), Vector::ZERO);
        let context = PlanningContext {
            agents,
            neighbours: &self.neighbours,
            grid,
            settings: &self.settings,
            time_step,
        };
        self.planner
            .plan_velocities(&context, 0..agents.len(), &mut self.velocities);
        move_agents(agents, &self.velocities, grid, time_step);
        self.judge_progress(agents, time_step);
        for &(index, preferred) in &self.set_aside {
            agents[index].preferred_velocity = preferred;
        }
    }

    /// Fits the progress kept to `agents`: agents beyond those of the last step start afresh
    /// where they stand, and those no longer there are forgotten.
    fn track(&mut self, agents: &[CrowdAgent]) {
        let known = self.progress.len().min(agents.len());
        self.progress.truncate(known);
        self.marks.truncate(known);
        self.progress.resize(agents.len(), AgentProgress::default());
        self.marks
            .extend(agents[known..].iter().map(|agent| agent.position));
        // The lists of a step hold at most every agent: grown here, they do not grow in a step.
        self.set_aside.reserve(agents.len());
        self.stuck.reserve(agents.len());
        self.found.reserve(progress::KNOT_NEIGHBOURS);
    }

    /// Judges every agent's progress after a step of `time_step` seconds (see
    /// [`Crowd::step`]), listing the stuck ones.
    fn judge_progress(&mut self, agents: &[CrowdAgent], time_step: f32) {
        self.stuck.clear();
        let settings = self.settings.progress;
        for (index, agent) in agents.iter().enumerate() {
            let progress = &mut self.progress[index];
            // Stepping aside, it is not judged until it is done.
            if progress.count_down(time_step) {
                continue;
            }
            let heading = agent.preferred_velocity.normalize_or_zero();
            let advance = (agent.position - self.marks[index]).dot(heading);
            if heading == Vector::ZERO || advance > settings.stuck_distance {
                progress.restart();
                self.marks[index] = agent.position;
                continue;
            }
            if !progress.wait(time_step, settings.stuck_after) {
                continue;
            }
            self.marks[index] = agent.position;
            let judged = (agents, &self.neighbours);
            let held = progress.judge_held_up(judged, index, true, &settings, &mut self.found);
            if held == HeldUp::Stuck {
                self.stuck.push(index);
            }
        }
    }

    /// Forgets the progress of agent `index`, moving that of the last agent into its place, as
    /// [`Vec::swap_remove`] does: call it alongside `agents.swap_remove(index)` when an agent
    /// leaves the crowd, so that the others keep theirs. An index beyond the agents of the last
    /// step changes nothing.
    ///
    /// ```
    /// use astar_grid::Grid;
    /// use astar_grid::crowd::{AvoidanceSettings, Crowd, CrowdAgent, Vector};
    ///
    /// let grid = Grid::new(8, 8);
    /// let mut agents: Vec<CrowdAgent> = (0..3)
    ///     .map(|k| CrowdAgent::new(Vector::new(1.5 + 2.0 * k as f32, 1.5), 0.45, 2.0))
    ///     .collect();
    /// let mut crowd = Crowd::new(AvoidanceSettings::default());
    /// crowd.step(&mut agents, &grid, 0.1);
    /// agents.swap_remove(0);
    /// crowd.swap_remove(0);
    /// assert_eq!(crowd.progress().len(), 2);
    /// ```
    pub fn swap_remove(&mut self, index: usize) {
        if index < self.progress.len() {
            let last = self.progress.len() - 1;
            self.progress.swap_remove(index);
            self.marks.swap_remove(index);
            // The stuck list names agents by index too: the removed one goes, the last one
            // takes its place.
            self.stuck.retain(|&stuck| stuck != index);
            for stuck in &mut self.stuck {
                if *stuck == last {
                    *stuck = index;
                }
            }
        }
    }

    /// Forgets every agent's progress: the next step measures each afresh from where it
    /// stands. Call it after reordering, or replacing, the agents passed to [`Crowd::step`].
    pub fn reset_progress(&mut self) {
        self.progress.clear();
        self.marks.clear();
        self.stuck.clear();
    }

    /// The neighbour grid of the last step.
    #[must_use]
    pub fn neighbours(&self) -> &NeighbourGrid {
        &self.neighbours
    }

    /// The velocities planned in the last step, by agent.
    #[must_use]
    pub fn planned_velocities(&self) -> &[Vector] {
        &self.velocities
    }

    /// Each agent's progress under the knot rules, by agent, as of the last step.
    #[must_use]
    pub fn progress(&self) -> &[AgentProgress] {
        &self.progress
    }

    /// The agents (indices) held up in the last step with nobody ahead going their way
    /// ([`HeldUp::Stuck`]): at a dead end, in a knot, or face to face with agents that do not
    /// give way. A path follower may search these a new path from where they stand.
    #[must_use]
    pub fn stuck(&self) -> &[usize] {
        &self.stuck
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_an_agent_keeps_the_stuck_list_naming_the_same_agents() {
        let mut crowd = Crowd::new(AvoidanceSettings::default());
        crowd.progress = vec![AgentProgress::default(); 4];
        crowd.marks = vec![Vector::ZERO; 4];
        crowd.stuck = vec![1, 3];
        // Agent 1 goes; agent 3, the last, takes its place.
        crowd.swap_remove(1);
        assert_eq!(crowd.stuck(), [1]);
        // Agent 0 goes; agent 2 takes its place, and agent 1 is still the stuck one.
        crowd.swap_remove(0);
        assert_eq!(crowd.stuck(), [1]);
        assert_eq!(crowd.progress().len(), 2);
    }
}
