//! Optimal reciprocal collision avoidance (ORCA): the half-planes of permitted velocities that
//! neighbours and walls impose on an agent, and the linear programs that pick the permitted
//! velocity nearest to the preferred one.
//!
//! This follows van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision avoidance"
//! (2011), and the structure of the RVO2 library: one half-plane per neighbour, each agent
//! taking half of the responsibility for avoiding the other (or, when two meet head-on with
//! different priorities, the lower nearly all of it); a two-dimensional linear program
//! in the disc of the agent's maximum speed; and, when the half-planes leave no velocity, a
//! three-dimensional program that minimises the largest violation of the neighbours'
//! half-planes while keeping every wall half-plane.

use super::walls::{WallScratch, wall_half_planes};
use super::{AvoidanceSettings, CrowdAgent, MIN_TIME_HORIZON, Neighbour, NeighbourGrid, Vector};
use crate::Grid;
use core::ops::Range;

/// Below this, two directions count as parallel in the linear programs.
const PARALLEL_EPSILON: f32 = 1e-5;

/// A half-plane of velocities: those on the left of the line through `point` along
/// `direction` (a unit vector), that is every `v` with `direction.det(point - v) <= 0`, or
/// equivalently `direction.perpendicular().dot(v - point) >= 0`.
///
/// ```
/// use astar_grid::crowd::{HalfPlane, Vector};
///
/// // The velocities whose x component is at least -1.
/// let plane = HalfPlane::from_normal(Vector::new(1.0, 0.0), -1.0);
/// assert!(plane.contains(Vector::new(-0.5, 7.0), 0.0));
/// assert_eq!(plane.violation(Vector::new(-3.0, 0.0)), 2.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HalfPlane {
    /// A point on the boundary line.
    pub point: Vector,
    /// The unit direction of the boundary line; permitted velocities lie on its left (its
    /// [`Vector::perpendicular`] side).
    pub direction: Vector,
}

impl HalfPlane {
    /// The velocities `v` with `normal.dot(v) >= offset`, for a unit `normal`.
    #[must_use]
    pub fn from_normal(normal: Vector, offset: f32) -> Self {
        Self {
            point: normal * offset,
            direction: Vector::new(normal.y, -normal.x),
        }
    }

    /// How far `velocity` lies outside the half-plane: positive outside, zero on the line,
    /// negative inside.
    #[must_use]
    pub fn violation(&self, velocity: Vector) -> f32 {
        self.direction.det(self.point - velocity)
    }

    /// Whether `velocity` lies inside the half-plane or at most `tolerance` outside it.
    #[must_use]
    pub fn contains(&self, velocity: Vector, tolerance: f32) -> bool {
        self.violation(velocity) <= tolerance
    }
}

/// The ORCA half-plane that agent `other` imposes on agent `index` of `agents`: the velocities
/// that, if `other` does its share, keep the two discs apart for `time_horizon` seconds.
///
/// As in RVO2: when the discs are apart the velocity obstacle is the cone of the relative
/// positions they would touch at within the horizon, truncated by the disc of those reached
/// exactly at the horizon; the relative velocity is projected onto its nearest boundary (the
/// truncating circle, or the left or right leg) and the agent takes its share of the
/// correction ([`avoidance_share`]: half, unless the two meet head-on with different
/// priorities, when the one of the lower priority takes nearly all of it).
/// When the discs already overlap, the obstacle is the disc of relative velocities that would
/// separate them within one `time_step`, so they separate as fast as allowed.
///
/// Ties are settled by fixed rules, so exact symmetry never stalls a pair: when the relative
/// velocity points exactly at the other agent's centre (a perfect head-on meeting) the right
/// leg is taken, so each agent passes the other on its own right (its right when facing along
/// its velocity in a frame whose `y` points up; on the map, whose `y` points down, that side is
/// the left); two agents at exactly the same position with the same velocity are pushed apart
/// along `x`, the one of the lower index towards `-x`.
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, Vector, agent_half_plane};
///
/// // Two agents heading straight at each other, 3 cells apart.
/// let mut agents = vec![
///     CrowdAgent::new(Vector::new(0.0, 0.0), 0.4, 2.0),
///     CrowdAgent::new(Vector::new(3.0, 0.0), 0.4, 2.0),
/// ];
/// agents[0].velocity = Vector::new(2.0, 0.0);
/// agents[1].velocity = Vector::new(-2.0, 0.0);
/// let plane = agent_half_plane(&agents, 0, 1, 2.0, 1.0 / 60.0);
/// // Going on straight is forbidden; stopping is allowed.
/// assert!(!plane.contains(agents[0].velocity, 0.0));
/// assert!(plane.contains(Vector::ZERO, 0.0));
/// ```
///
/// # Panics
/// When `index` or `other` is not an index of `agents`.
#[must_use]
pub fn agent_half_plane(
    agents: &[CrowdAgent],
    index: usize,
    other: usize,
    time_horizon: f32,
    time_step: f32,
) -> HalfPlane {
    let (agent, neighbour) = (&agents[index], &agents[other]);
    let relative_position = neighbour.position - agent.position;
    let relative_velocity = agent.velocity - neighbour.velocity;
    let distance_squared = relative_position.length_squared();
    let combined_radius = agent.radius.max(0.0) + neighbour.radius.max(0.0);
    let combined_squared = combined_radius * combined_radius;
    let (direction, correction) = if distance_squared > combined_squared {
        apart_correction(
            relative_position,
            relative_velocity,
            combined_radius,
            1.0 / time_horizon.max(MIN_TIME_HORIZON),
        )
    } else {
        let inverse_step = 1.0 / time_step.max(MIN_TIME_HORIZON);
        let w = relative_velocity - relative_position * inverse_step;
        let length = w.length();
        let unit = if length > 1e-6 {
            w / length
        } else if relative_position.length_squared() > 0.0 {
            -relative_position.normalize_or_zero()
        } else if index < other {
            Vector::new(-1.0, 0.0)
        } else {
            Vector::new(1.0, 0.0)
        };
        (
            Vector::new(unit.y, -unit.x),
            unit * (combined_radius * inverse_step - length),
        )
    };
    HalfPlane {
        point: agent.velocity + correction * avoidance_share(agent, neighbour),
        direction,
    }
}

/// The share of the avoiding that the agent of lower priority takes in a head-on meeting
/// ([`avoidance_share`]); the other takes the rest.
///
/// Not all of it: with the whole of it the agent of higher priority ignores the other
/// entirely, and when the yielding agent cannot get out of the way (pinned by its own flow in
/// a corridor) nobody gives way. Five agents each way through a corridor one agent wide
/// deadlocked with the whole share in one of the two priority orders, and took 2,500 to 4,300
/// steps with shares from 0.6 to 0.99, the overlap staying near 1% of the radius throughout;
/// three quarters gave the shortest worst case (2,855 steps).
pub const YIELDING_SHARE: f32 = 0.75;

/// The share of the avoidance between `agent` and `neighbour` that `agent` takes in
/// [`agent_half_plane`]: one half, unless the two meet head-on and their priorities differ.
///
/// They meet head-on when their preferred velocities point in opposed directions (their dot
/// product is negative; an agent that prefers to stand still opposes nobody). Then the one of
/// the lower [`CrowdAgent::priority`] takes [`YIELDING_SHARE`] and the other the rest. The two
/// shares of a pair always add up to one, so the pair still avoids the whole velocity obstacle.
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, Vector, YIELDING_SHARE, avoidance_share};
///
/// let mut east = CrowdAgent::new(Vector::new(0.0, 0.0), 0.4, 2.0);
/// let mut west = CrowdAgent::new(Vector::new(3.0, 0.0), 0.4, 2.0);
/// east.preferred_velocity = Vector::new(2.0, 0.0);
/// west.preferred_velocity = Vector::new(-2.0, 0.0);
/// assert_eq!(avoidance_share(&east, &west), 0.5);
/// east.priority = 1;
/// assert_eq!(avoidance_share(&west, &east), YIELDING_SHARE);
/// assert_eq!(avoidance_share(&east, &west), 1.0 - YIELDING_SHARE);
/// // Heading the same way, they share the avoiding equally whatever their priorities.
/// west.preferred_velocity = Vector::new(2.0, 0.5);
/// assert_eq!(avoidance_share(&east, &west), 0.5);
/// ```
#[must_use]
pub fn avoidance_share(agent: &CrowdAgent, neighbour: &CrowdAgent) -> f32 {
    let head_on = agent.preferred_velocity.dot(neighbour.preferred_velocity) < 0.0;
    if !head_on || agent.priority == neighbour.priority {
        0.5
    } else if agent.priority < neighbour.priority {
        YIELDING_SHARE
    } else {
        1.0 - YIELDING_SHARE
    }
}

/// The boundary direction and the smallest change `u` of the relative velocity that leaves the
/// truncated velocity obstacle, for discs that are apart.
fn apart_correction(
    relative_position: Vector,
    relative_velocity: Vector,
    combined_radius: f32,
    inverse_horizon: f32,
) -> (Vector, Vector) {
    let distance_squared = relative_position.length_squared();
    let combined_squared = combined_radius * combined_radius;
    // From the centre of the truncating circle to the relative velocity.
    let w = relative_velocity - relative_position * inverse_horizon;
    let w_squared = w.length_squared();
    let along = w.dot(relative_position);
    if along < 0.0 && along * along > combined_squared * w_squared {
        // Nearest to the truncating circle.
        let length = w_squared.sqrt();
        let unit = w / length;
        let direction = Vector::new(unit.y, -unit.x);
        return (
            direction,
            unit * (combined_radius * inverse_horizon - length),
        );
    }
    // Nearest to one of the legs.
    let leg = (distance_squared - combined_squared).sqrt();
    let (p, r) = (relative_position, combined_radius);
    let direction = if p.det(w) > 0.0 {
        Vector::new(p.x * leg - p.y * r, p.x * r + p.y * leg) / distance_squared
    } else {
        -Vector::new(p.x * leg + p.y * r, -p.x * r + p.y * leg) / distance_squared
    };
    let projected = direction * relative_velocity.dot(direction);
    (direction, projected - relative_velocity)
}

/// The velocity nearest to `preferred` within the disc of radius `max_speed` that satisfies
/// every half-plane of `half_planes`, whose first `wall_count` are walls.
///
/// When the half-planes leave no such velocity, the velocity that minimises the largest
/// violation of the other half-planes while satisfying every wall half-plane (RVO2's third
/// linear program); wall half-planes are never relaxed. Wall half-planes that themselves leave
/// nothing (which those of [`VelocityPlanner`] never do: they all admit zero) give zero.
/// When `preferred` satisfies every half-plane and is no faster than `max_speed`, it is
/// returned unchanged. `scratch` holds the projected half-planes of the third program; its
/// memory is reused.
///
/// ```
/// use astar_grid::crowd::{HalfPlane, Vector, solve_velocity};
///
/// let planes = [HalfPlane::from_normal(Vector::new(-1.0, 0.0), -1.0)]; // x <= 1
/// let mut scratch = Vec::new();
/// let velocity = solve_velocity(&planes, 0, Vector::new(3.0, 0.0), 2.0, &mut scratch);
/// assert!((velocity.x - 1.0).abs() < 1e-6 && velocity.y.abs() < 1e-6);
/// let slow = Vector::new(0.5, 0.5);
/// assert_eq!(solve_velocity(&planes, 0, slow, 2.0, &mut scratch), slow);
/// ```
#[must_use]
pub fn solve_velocity(
    half_planes: &[HalfPlane],
    wall_count: usize,
    preferred: Vector,
    max_speed: f32,
    scratch: &mut Vec<HalfPlane>,
) -> Vector {
    let max_speed = if max_speed > 0.0 { max_speed } else { 0.0 };
    let preferred = if preferred.is_finite() {
        preferred
    } else {
        Vector::ZERO
    };
    let wall_count = wall_count.min(half_planes.len());
    let mut result = Vector::ZERO;
    let failed = disc_program(half_planes, max_speed, preferred, false, &mut result);
    if failed == half_planes.len() {
        return result;
    }
    if failed < wall_count {
        return Vector::ZERO;
    }
    least_violation_program(
        half_planes,
        wall_count,
        failed,
        max_speed,
        &mut result,
        scratch,
    );
    result
}

/// RVO2's first program: the best velocity on the boundary of half-plane `line` that satisfies
/// the half-planes before it, within the disc. With `direction_only`, `target` is a direction
/// and the point farthest along it is taken. False when there is none.
fn line_program(
    half_planes: &[HalfPlane],
    line: usize,
    radius: f32,
    target: Vector,
    direction_only: bool,
    result: &mut Vector,
) -> bool {
    let plane = half_planes[line];
    let along = plane.point.dot(plane.direction);
    // The line's distance from the origin squared, without the cancellation of
    // |point|^2 - along^2 when the point lies far along the line.
    let offset = plane.direction.det(plane.point);
    let discriminant = radius * radius - offset * offset;
    if discriminant < 0.0 {
        // The disc lies entirely outside the half-plane.
        return false;
    }
    let root = discriminant.sqrt();
    let (mut low, mut high) = (-along - root, -along + root);
    for earlier in &half_planes[..line] {
        let denominator = plane.direction.det(earlier.direction);
        let numerator = earlier.direction.det(plane.point - earlier.point);
        if denominator.abs() <= PARALLEL_EPSILON {
            if numerator < 0.0 {
                // Parallel, and this line lies outside the earlier half-plane.
                return false;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            high = high.min(t);
        } else {
            low = low.max(t);
        }
        if low > high {
            return false;
        }
    }
    let t = if direction_only {
        if target.dot(plane.direction) > 0.0 {
            high
        } else {
            low
        }
    } else {
        plane.direction.dot(target - plane.point).clamp(low, high)
    };
    *result = plane.point + plane.direction * t;
    true
}

/// RVO2's second program: the velocity nearest to `target` (or, with `direction_only`,
/// farthest along the unit `target`) in the disc that satisfies every half-plane, built up
/// one half-plane at a time. Returns the number of half-planes satisfied before the first that
/// could not be (all of them on success); `result` then holds the best velocity for those.
fn disc_program(
    half_planes: &[HalfPlane],
    radius: f32,
    target: Vector,
    direction_only: bool,
    result: &mut Vector,
) -> usize {
    *result = if direction_only {
        target * radius
    } else if target.length_squared() > radius * radius {
        target.normalize_or_zero() * radius
    } else {
        target
    };
    for line in 0..half_planes.len() {
        if half_planes[line].violation(*result) > 0.0 {
            let previous = *result;
            if !line_program(half_planes, line, radius, target, direction_only, result) {
                *result = previous;
                return line;
            }
        }
    }
    half_planes.len()
}

/// RVO2's third program: from half-plane `first_failed` on, minimises the largest violation of
/// the non-wall half-planes, keeping the first `wall_count` satisfied.
fn least_violation_program(
    half_planes: &[HalfPlane],
    wall_count: usize,
    first_failed: usize,
    radius: f32,
    result: &mut Vector,
    projected: &mut Vec<HalfPlane>,
) {
    let mut distance = 0.0;
    for line in first_failed..half_planes.len() {
        let plane = half_planes[line];
        if plane.violation(*result) <= distance {
            continue;
        }
        projected.clear();
        projected.extend_from_slice(&half_planes[..wall_count]);
        for earlier in &half_planes[wall_count..line] {
            if let Some(bisector) = bisector(&plane, earlier) {
                projected.push(bisector);
            }
        }
        let previous = *result;
        let target = plane.direction.perpendicular();
        if disc_program(projected, radius, target, true, result) < projected.len() {
            // In exact arithmetic this cannot happen: the previous result is feasible. Keep it.
            *result = previous;
        }
        distance = plane.violation(*result);
    }
}

/// The half-plane of velocities that violate `plane` no more than `earlier`, or `None` when
/// the two point the same way (then `earlier` never binds first).
///
/// The two violations are equal where `(d2 - d1).det(v) = d2.det(p2) - d1.det(p1)` (each
/// plane's direction `d` and point `p`): a line along `d2 - d1`, anchored at its point nearest
/// the origin. Written so, nearly opposite planes (whose lines meet far away) give it without
/// the far meeting point, whose size would swamp the anchor's digits in `f32`.
fn bisector(plane: &HalfPlane, earlier: &HalfPlane) -> Option<HalfPlane> {
    let parallel = plane.direction.det(earlier.direction).abs() <= PARALLEL_EPSILON;
    if parallel && plane.direction.dot(earlier.direction) > 0.0 {
        return None;
    }
    let along = earlier.direction - plane.direction;
    let length = along.length();
    if length <= PARALLEL_EPSILON {
        return None;
    }
    let direction = along / length;
    let offset = (earlier.direction.det(earlier.point) - plane.direction.det(plane.point)) / length;
    Some(HalfPlane {
        point: direction.perpendicular() * offset,
        direction,
    })
}

/// Plans agents' velocities with ORCA, one agent at a time, reading a shared agent slice and
/// writing nothing but its result and its own scratch memory (the neighbour list and the
/// half-planes), which it reuses from agent to agent: keep one per thread and split the agents
/// over threads with [`VelocityPlanner::plan_velocities`] on disjoint ranges.
///
/// An agent's half-planes are the walls' first ([`VelocityPlanner::wall_count`]: blocked cells
/// within reach, see [`HalfPlane`] and the module's walls), then one per neighbour among the
/// `max_neighbours` nearest within `neighbour_distance` ([`agent_half_plane`]); then
/// [`solve_velocity`] picks the velocity.
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{
///     AvoidanceSettings, CrowdAgent, NeighbourGrid, PlanningContext, Vector, VelocityPlanner,
/// };
///
/// let grid = Grid::new(20, 10);
/// let mut agents = vec![
///     CrowdAgent::new(Vector::new(5.0, 5.0), 0.4, 2.0),
///     CrowdAgent::new(Vector::new(7.0, 5.0), 0.4, 2.0),
/// ];
/// agents[0].preferred_velocity = Vector::new(2.0, 0.0);
/// agents[0].velocity = Vector::new(2.0, 0.0);
/// let settings = AvoidanceSettings::default();
/// let mut neighbours = NeighbourGrid::new();
/// neighbours.rebuild(&agents, settings.neighbour_distance / 2.0);
/// let context = PlanningContext {
///     agents: &agents,
///     neighbours: &neighbours,
///     grid: &grid,
///     settings: &settings,
///     time_step: 1.0 / 60.0,
/// };
/// let mut planner = VelocityPlanner::new();
/// let velocity = planner.plan_velocity(&context, 0);
/// // Agent 1 stands in the way: agent 0 may not keep its preferred velocity...
/// assert_ne!(velocity, agents[0].preferred_velocity);
/// // ...but what it gets satisfies its half-planes, and it is no faster than allowed.
/// assert!(planner.half_planes().iter().all(|plane| plane.contains(velocity, 1e-4)));
/// assert!(velocity.length() <= 2.0 + 1e-5);
/// ```
#[derive(Clone, Debug, Default)]
pub struct VelocityPlanner {
    /// The neighbours of the agent being planned.
    neighbours: Vec<Neighbour>,
    /// Its half-planes: walls first.
    half_planes: Vec<HalfPlane>,
    /// How many of `half_planes` are walls.
    wall_count: usize,
    /// The third program's projected half-planes.
    projected: Vec<HalfPlane>,
    /// Memory of the wall half-planes.
    walls: WallScratch,
}

impl VelocityPlanner {
    /// A planner with no memory yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The half-planes of the last planned agent, the walls' first.
    #[must_use]
    pub fn half_planes(&self) -> &[HalfPlane] {
        &self.half_planes
    }

    /// How many of [`VelocityPlanner::half_planes`] come from walls.
    #[must_use]
    pub fn wall_count(&self) -> usize {
        self.wall_count
    }

    /// The neighbours of the last planned agent, nearest first.
    #[must_use]
    pub fn neighbours(&self) -> &[Neighbour] {
        &self.neighbours
    }

    /// The new velocity of agent `index` of `context.agents`: the one nearest to its preferred
    /// velocity (or, with [`AvoidanceSettings::make_way`], to the way it makes for a neighbour
    /// of a higher priority coming at it), no faster than its `max_speed`, that keeps it off
    /// the blocked cells of the grid and, doing its share, off its neighbours. Neighbours the neighbour grid names beyond
    /// the slice are ignored. A time step that is not positive and finite plans zero.
    ///
    /// # Panics
    /// When `index` is not an index of the agents.
    pub fn plan_velocity(&mut self, context: &PlanningContext<'_>, index: usize) -> Vector {
        let agents = context.agents;
        let agent = &agents[index];
        self.half_planes.clear();
        self.neighbours.clear();
        self.wall_count = 0;
        let time_step = context.time_step;
        if !(time_step > 0.0 && time_step.is_finite()) {
            return Vector::ZERO;
        }
        let settings = context.settings;
        wall_half_planes(
            context.grid,
            (agent.position, agent.radius, agent.max_speed),
            settings.wall_time_horizon,
            &mut self.walls,
            &mut self.half_planes,
        );
        self.wall_count = self.half_planes.len();
        context.neighbours.nearest(
            agent.position,
            Some(index),
            settings.neighbour_distance,
            settings.max_neighbours,
            &mut self.neighbours,
        );
        for neighbour in self.neighbours.iter().filter(|n| n.index < agents.len()) {
            self.half_planes.push(agent_half_plane(
                agents,
                index,
                neighbour.index,
                settings.time_horizon,
                time_step,
            ));
        }
        let preferred = settings
            .make_way
            .then(|| way_to_make(agents, index, &self.neighbours))
            .flatten()
            .unwrap_or(agent.preferred_velocity);
        solve_velocity(
            &self.half_planes,
            self.wall_count,
            preferred,
            agent.max_speed,
            &mut self.projected,
        )
    }

    /// Plans the agents of `range` (clipped to the slice) into `out`, whose slot `k` receives
    /// agent `range.start + k` (slots beyond the range are left alone), as
    /// [`VelocityPlanner::plan_velocity`] does one agent.
    pub fn plan_velocities(
        &mut self,
        context: &PlanningContext<'_>,
        range: Range<usize>,
        out: &mut [Vector],
    ) {
        let count = context.agents.len();
        let range = range.start.min(count)..range.end.min(count);
        for (slot, index) in out.iter_mut().zip(range) {
            *slot = self.plan_velocity(context, index);
        }
    }
}

/// What planning a step reads, shared by every agent (and every thread) of the step: the
/// agents, the neighbour grid rebuilt from them, the walls, the settings and the time step.
#[derive(Clone, Copy, Debug)]
pub struct PlanningContext<'a> {
    /// The agents as they were at the start of the step.
    pub agents: &'a [CrowdAgent],
    /// The neighbour grid, rebuilt from `agents`.
    pub neighbours: &'a NeighbourGrid,
    /// The walls: blocked cells (byte 0) and everything outside the grid.
    pub grid: &'a Grid,
    /// How far ahead and how many neighbours the agents look.
    pub settings: &'a AvoidanceSettings,
    /// The step's duration in seconds.
    pub time_step: f32,
}

/// How far ahead, in combined radii, an agent makes way for one of a higher priority coming
/// at it ([`way_to_make`]).
pub(crate) const MAKE_WAY_REACH: f32 = 5.0;

/// How far off its line, in combined radii, an agent makes way for one of a higher priority
/// coming at it ([`way_to_make`]).
pub(crate) const MAKE_WAY_WIDTH: f32 = 2.0;

/// The share of its top speed at which an agent of a higher priority must come on for others
/// to make way for it ([`way_to_make`]): one standing at its goal, or held up, is not coming.
pub(crate) const MAKE_WAY_APPROACH: f32 = 0.1;

/// The share of its top speed at which an agent steps out of the way of one of a higher
/// priority coming at it ([`way_to_make`]).
pub(crate) const MAKE_WAY_SPEED: f32 = 0.5;

/// The velocity at which agent `index` of `agents` makes way for a neighbour (of
/// `neighbours`, nearest first) of a higher [`CrowdAgent::priority`] coming at it head-on
/// (their preferred velocities opposed) within [`MAKE_WAY_REACH`] combined radii ahead and
/// [`MAKE_WAY_WIDTH`] off its line: back and away from the other's line, at
/// [`MAKE_WAY_SPEED`] of its top speed, rather than pressing on into it; `None` when nobody
/// comes at it so.
///
/// ORCA's shares alone keep the exit of a door or a corridor blocked: the agents of a lower
/// priority waiting to go in stand in front of it, each held there by the others of its flow
/// pressing on behind it, and those coming out squeeze past one at a time. Making way, they
/// clear the exit while agents of a higher priority come through.
fn way_to_make(agents: &[CrowdAgent], index: usize, neighbours: &[Neighbour]) -> Option<Vector> {
    let agent = &agents[index];
    let heading = agent.preferred_velocity.normalize_or_zero();
    if heading == Vector::ZERO {
        return None;
    }
    neighbours.iter().find_map(|neighbour| {
        let other = agents.get(neighbour.index)?;
        let combined = agent.radius + other.radius;
        let offset = other.position - agent.position;
        let ahead = offset.dot(heading);
        let side = offset.dot(heading.perpendicular());
        let coming = other.priority > agent.priority
            && other.preferred_velocity.dot(heading) < 0.0
            && -other.velocity.dot(heading) > MAKE_WAY_APPROACH * other.max_speed
            && ahead > 0.0
            && ahead < MAKE_WAY_REACH * combined
            && side.abs() < MAKE_WAY_WIDTH * combined;
        coming.then(|| {
            // Away from the other's side of its line (the right-hand side on its line).
            let away = if side > 0.0 { -1.0 } else { 1.0 };
            let way = heading.perpendicular() * away - heading;
            way.normalize_or_zero() * (agent.max_speed * MAKE_WAY_SPEED)
        })
    })
}
