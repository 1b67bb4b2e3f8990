//! The crowd systems of [`AStarSystems::Follow`](crate::AStarSystems::Follow): gather the
//! avoiding agents into one crowd per terrain profile, plan their velocities with the core's
//! ORCA in parallel, move them within the walls and watch their progress (see
//! [`crate::crowd`]).

use super::{Avoidance, CrowdProgress, CrowdSettings, CrowdVelocity};
use crate::kinds::{AgentLayers, KindKey};
use crate::{
    NavGrid, Path, PathFollower, PathRequest, PathfindingStats, ProfileId, TerrainProfiles,
};
use astar_grid::crowd::{
    CrowdAgent, Neighbour, NeighbourGrid, PlanningContext, Vector, VelocityPlanner, disc_fits,
    move_agents, nearest_legal_position,
};
use astar_grid::{Cell, Grid, Movement, line_of_sight};
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use std::sync::Arc;

/// How far, in cells, an agent whose ground was blocked under it is looked for a place to
/// stand.
const PUSH_OUT_DISTANCE: f32 = 16.0;

/// The avoiding agents of this frame, one crowd per terrain profile, and the planners' memory.
#[derive(Resource, Default)]
pub(crate) struct CrowdScratch {
    crowds: Vec<Crowd>,
    planners: Vec<VelocityPlanner>,
    space: GridSpace,
}

/// The avoiding agents of one terrain profile.
struct Crowd {
    profile: ProfileId,
    /// Cells the profile cannot enter are 0.
    walls: Arc<Grid>,
    entities: Vec<Entity>,
    agents: Vec<CrowdAgent>,
    /// Each agent's next waypoint in grid space, whether it is the path's last, and which one
    /// it is; `None` for an agent with nowhere to go.
    targets: Vec<Option<Target>>,
    velocities: Vec<Vector>,
    neighbours: NeighbourGrid,
}

/// An agent's next waypoint, in grid space.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Target {
    point: Vector,
    last: bool,
    /// The path revision and the waypoint's index.
    key: (u64, usize),
    /// Whether the agent's cell sees the point (a straight line crosses no wall); a one-cell
    /// agent the crowd pushed out of sight of its path searches again sooner.
    seen: bool,
}

/// World space to the grid space of the core's crowd (cells, `y` along the rows).
#[derive(Clone, Copy, Debug, PartialEq)]
struct GridSpace {
    origin: Vec2,
    cell: Vec2,
}

impl Default for GridSpace {
    fn default() -> Self {
        Self {
            origin: Vec2::ZERO,
            cell: Vec2::ONE,
        }
    }
}

impl GridSpace {
    fn of(nav: &NavGrid) -> Self {
        let cell = nav.cell_size();
        let usable = |side: f32| if side.abs() > f32::EPSILON { side } else { 1.0 };
        Self {
            origin: nav.origin(),
            cell: Vec2::new(usable(cell.x), usable(cell.y)),
        }
    }

    fn point(self, world: Vec2) -> Vector {
        let local = (world - self.origin) / self.cell;
        Vector::new(local.x, local.y)
    }

    fn world(self, point: Vector) -> Vec2 {
        self.origin + Vec2::new(point.x, point.y) * self.cell
    }

    fn velocity(self, world: Vec2) -> Vector {
        let local = world / self.cell;
        Vector::new(local.x, local.y)
    }

    fn world_velocity(self, velocity: Vector) -> Vec2 {
        Vec2::new(velocity.x, velocity.y) * self.cell
    }

    /// The shorter cell side, in world units.
    fn shorter_side(self) -> f32 {
        self.cell.x.abs().min(self.cell.y.abs())
    }

    /// A world speed in cells per second, by the longer cell side: on cells that are not
    /// square an agent is never faster than its follower's speed, along either axis.
    fn speed_in_cells(self, speed: f32) -> f32 {
        speed / self.cell.x.abs().max(self.cell.y.abs())
    }
}

impl Crowd {
    fn new(profile: ProfileId, walls: Arc<Grid>) -> Self {
        Self {
            profile,
            walls,
            entities: Vec::new(),
            agents: Vec::new(),
            targets: Vec::new(),
            velocities: Vec::new(),
            neighbours: NeighbourGrid::new(),
        }
    }
}

/// The grid whose blocked cells are walls to agents of `profile`: the navigation grid for the
/// default profile, else the profile's one-cell derived grid (the navigation grid when the
/// profile is unknown).
fn walls_for(
    profile: ProfileId,
    nav: &NavGrid,
    profiles: &TerrainProfiles,
    layers: &mut AgentLayers,
) -> Arc<Grid> {
    let kind = KindKey { profile, size: 1 };
    layers
        .grid_for(kind, nav, profiles)
        .map_or_else(|_| nav.snapshot(), |grid| grid.snapshot)
}

/// The side, in cells, of the squares of the map whose goals share a priority.
const PRIORITY_REGION: u32 = 8;

/// The agent's priority: its own, or one shared by every agent heading for the same
/// [`PRIORITY_REGION`]-cell square of the map, so that a flow towards one place yields as one
/// (agents with neighbouring goals are one flow, not one priority each).
fn priority_of(avoidance: &Avoidance, request: &PathRequest) -> u32 {
    avoidance.priority.unwrap_or_else(|| {
        let (x, y) = (
            request.goal.x / PRIORITY_REGION,
            request.goal.y / PRIORITY_REGION,
        );
        x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77).rotate_left(16)
    })
}

/// Passes the waypoints the agent at `position` is done with, and returns the next one. A
/// waypoint is done with within `reach` cells of it, or once the agent is past it along the
/// leg that follows and sees the waypoint after it (pushed aside by the crowd, it need not come
/// back to the point itself, but a wall between it and the next leg keeps it on this one);
/// the last is done with within [`LAST_REACH`].
fn next_target(
    follower: &mut PathFollower,
    path: &Path,
    (space, walls): (GridSpace, Option<&Grid>),
    position: Vector,
    reach: f32,
) -> Option<Target> {
    follower.sync_with(path);
    loop {
        let point = space.point(follower.target()?);
        let index = follower.next_waypoint();
        let last = index + 1 >= path.waypoints.len();
        // The last waypoint is reached on it, not near it.
        let reach = if last { reach.min(LAST_REACH) } else { reach };
        let within = (point - position).length_squared() <= reach * reach;
        let past = path.waypoints.get(index + 1).is_some_and(|&next| {
            let next = space.point(next);
            (position - point).dot(next - point) > 0.0
                && walls.is_some_and(|walls| sees(walls, position, next))
        });
        if within || past {
            follower.pass_waypoint(&path.waypoints);
            if last {
                return None;
            }
            continue;
        }
        return Some(Target {
            point,
            last,
            key: (path.revision, index),
            seen: true,
        });
    }
}

/// How near the last waypoint, in cells, an agent has reached it.
const LAST_REACH: f32 = 0.05;

/// How many waypoints past the next one an agent may steer for.
const LOOKAHEAD: usize = 4;

/// Aims `target` at the furthest of the next [`LOOKAHEAD`] waypoints that the agent's cell sees
/// (a straight line between them crosses no wall), so that an agent the crowd pushed aside
/// heads on along its path rather than back to the waypoint it missed.
fn look_ahead(
    target: Target,
    path: &Path,
    space: GridSpace,
    position: Vector,
    walls: &Grid,
) -> Target {
    let (revision, index) = target.key;
    let end = (index + LOOKAHEAD).min(path.waypoints.len().saturating_sub(1));
    for ahead in (index + 1..=end).rev() {
        let point = space.point(path.waypoints[ahead]);
        if sees(walls, position, point) {
            // Progress is measured towards the waypoint aimed at.
            return Target {
                point,
                last: ahead + 1 == path.waypoints.len(),
                key: (revision, ahead),
                seen: true,
            };
        }
    }
    Target {
        seen: sees(walls, position, target.point),
        ..target
    }
}

/// Whether the cell at `from` sees the cell at `to` (grid space): a straight line between their
/// centres crosses no wall.
fn sees(walls: &Grid, from: Vector, to: Vector) -> bool {
    let cell_of = |point: Vector| {
        (point.x >= 0.0 && point.y >= 0.0).then(|| Cell::new(point.x as u32, point.y as u32))
    };
    cell_of(from)
        .zip(cell_of(to))
        .is_some_and(|(from, to)| line_of_sight(walls, from, to, Movement::EIGHT))
}

/// The velocity an agent would take with nobody in the way: full speed towards an
/// intermediate waypoint, slowing to stop on the last.
fn preferred_velocity(agent: &CrowdAgent, target: Target, time_step: f32) -> Vector {
    if target.last {
        agent.velocity_towards(target.point, time_step)
    } else {
        (target.point - agent.position).normalize_or_zero() * agent.max_speed
    }
}

/// The velocity of an agent that has arrived: none, unless the crowd has pushed it more than
/// its arrival reach from the end of its path, where it then walks back.
fn holding_velocity(agent: &CrowdAgent, path: &Path, space: GridSpace, time_step: f32) -> Vector {
    let Some(&end) = path.waypoints.last().filter(|_| path.is_found()) else {
        return Vector::ZERO;
    };
    let end = space.point(end);
    if (end - agent.position).length() <= arrival_reach(agent.radius) {
        Vector::ZERO
    } else {
        agent.velocity_towards(end, time_step)
    }
}

/// How near the end of its path an agent counts as arrived when others keep it from the end
/// itself, in cells.
fn arrival_reach(radius: f32) -> f32 {
    4.0 * radius + 1.0
}

/// The index in `crowds` of the crowd of `profile`, added when missing; the walls of a crowd
/// are taken afresh when its first agent of the frame joins it.
fn crowd_of(
    crowds: &mut Vec<Crowd>,
    profile: ProfileId,
    nav: &NavGrid,
    profiles: &TerrainProfiles,
    layers: &mut AgentLayers,
) -> usize {
    match crowds.iter().position(|crowd| crowd.profile == profile) {
        Some(index) => {
            if crowds[index].entities.is_empty() {
                crowds[index].walls = walls_for(profile, nav, profiles, layers);
            }
            index
        }
        None => {
            crowds.push(Crowd::new(
                profile,
                walls_for(profile, nav, profiles, layers),
            ));
            crowds.len() - 1
        }
    }
}

/// Where an agent at `position` whose disc no longer fits (its ground was blocked under it)
/// goes: the nearest legal position within [`PUSH_OUT_DISTANCE`]; `None` when it fits, or
/// nothing fits near.
fn pushed_out(walls: &Grid, position: Vector, radius: f32) -> Option<Vector> {
    if disc_fits(walls, position, radius) {
        return None;
    }
    nearest_legal_position(walls, position, radius, PUSH_OUT_DISTANCE)
}

/// Gathers the avoiding agents into one crowd per profile: positions, radii and speeds in
/// grid space, the next waypoint and the preferred velocity; puts an agent whose ground was
/// blocked under it back on the nearest legal ground.
pub(crate) fn gather_crowds(
    time: Res<Time>,
    nav: Option<Res<NavGrid>>,
    profiles: Res<TerrainProfiles>,
    mut layers: ResMut<AgentLayers>,
    mut scratch: ResMut<CrowdScratch>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<(
        Entity,
        &Avoidance,
        &PathRequest,
        &Path,
        &CrowdVelocity,
        &mut PathFollower,
        &mut Transform,
    )>,
) {
    let scratch = &mut *scratch;
    for crowd in &mut scratch.crowds {
        crowd.entities.clear();
        crowd.agents.clear();
        crowd.targets.clear();
    }
    let Some(nav) = nav else {
        return;
    };
    let space = GridSpace::of(&nav);
    scratch.space = space;
    let time_step = time.delta_secs();
    for (entity, avoidance, request, path, velocity, mut follower, mut transform) in &mut agents {
        let index = crowd_of(
            &mut scratch.crowds,
            request.profile,
            &nav,
            &profiles,
            &mut layers,
        );
        let crowd = &mut scratch.crowds[index];
        let radius = avoidance.radius_in_cells(request.size, space.shorter_side());
        let mut position = space.point(transform.translation.truncate());
        if let Some(legal) = pushed_out(&crowd.walls, position, radius) {
            position = legal;
            transform.translation = space.world(legal).extend(transform.translation.z);
            stats.crowd_agents_pushed_out += 1;
        }
        let speed = space.speed_in_cells(follower.speed.max(0.0));
        let mut agent = CrowdAgent::new(position, radius, speed);
        agent.velocity = space.velocity(velocity.actual);
        // Lines of sight are a one-cell agent's: larger ones keep to their waypoints.
        let sight = (request.size <= 1).then_some(&*crowd.walls);
        let target =
            next_target(&mut follower, path, (space, sight), position, radius).map(|target| {
                match sight {
                    Some(walls) => look_ahead(target, path, space, position, walls),
                    None => target,
                }
            });
        agent.preferred_velocity = match target {
            Some(target) => preferred_velocity(&agent, target, time_step),
            None => holding_velocity(&agent, path, space, time_step),
        };
        agent.priority = priority_of(avoidance, request);
        crowd.entities.push(entity);
        crowd.agents.push(agent);
        crowd.targets.push(target);
    }
    scratch.crowds.retain(|crowd| !crowd.entities.is_empty());
    stats.crowd_agents = scratch.crowds.iter().map(|crowd| crowd.agents.len()).sum();
}

/// Plans every avoiding agent's velocity, in parallel over the compute task pool for large
/// crowds.
pub(crate) fn plan_crowds(
    time: Res<Time>,
    settings: Res<CrowdSettings>,
    mut scratch: ResMut<CrowdScratch>,
) {
    let avoidance = settings.avoidance();
    let time_step = time.delta_secs();
    let per_task = settings.agents_per_task.max(1);
    let CrowdScratch {
        crowds, planners, ..
    } = &mut *scratch;
    for crowd in crowds.iter_mut() {
        crowd
            .neighbours
            .rebuild(&crowd.agents, avoidance.bucket_size());
        crowd.velocities.clear();
        crowd.velocities.resize(crowd.agents.len(), Vector::ZERO);
        let tasks = crowd.agents.len().div_ceil(per_task).max(1);
        if planners.len() < tasks {
            planners.resize_with(tasks, VelocityPlanner::new);
        }
        let context = PlanningContext {
            agents: &crowd.agents,
            neighbours: &crowd.neighbours,
            grid: &crowd.walls,
            settings: &avoidance,
            time_step,
        };
        if tasks == 1 {
            planners[0].plan_velocities(&context, 0..crowd.agents.len(), &mut crowd.velocities);
            continue;
        }
        let context = &context;
        ComputeTaskPool::get_or_init(TaskPool::default).scope(|scope| {
            for (chunk, (out, planner)) in crowd
                .velocities
                .chunks_mut(per_task)
                .zip(planners.iter_mut())
                .enumerate()
            {
                let start = chunk * per_task;
                scope.spawn(async move {
                    planner.plan_velocities(context, start..start + out.len(), out);
                });
            }
        });
    }
}

/// The share of [`CrowdSettings::stuck_after`] an agent out of sight of its waypoint waits
/// without progress before it searches again.
const BLIND_PATIENCE: f32 = 1.0 / 6.0;

/// What an agent's progress says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    /// Closer to its waypoint, or not yet waiting long.
    Moving,
    /// Stuck near its goal, which others stand on: it stops there.
    Arrived,
    /// Held up by agents ahead that move its way: it waits its turn.
    Queueing,
    /// Stuck: it searches again from where it stands.
    Stuck,
}

/// Updates `progress` with the agent `distance` cells from `target` after `time_step` more
/// seconds, and says what to do; `queue_ahead` tells whether agents ahead of it move its way.
fn judge_progress(
    progress: &mut CrowdProgress,
    target: Target,
    (distance, radius): (f32, f32),
    queue_ahead: impl FnOnce() -> bool,
    time_step: f32,
    settings: &CrowdSettings,
) -> Progress {
    if progress.target != target.key || distance < progress.best - settings.stuck_distance {
        *progress = CrowdProgress {
            target: target.key,
            best: distance,
            waited: 0.0,
        };
        return Progress::Moving;
    }
    progress.waited += time_step;
    // Out of sight of its waypoint (pushed behind a corner), it waits less, and not for a queue.
    let patience = if target.seen { 1.0 } else { BLIND_PATIENCE };
    if progress.waited < settings.stuck_after.as_secs_f32() * patience {
        return Progress::Moving;
    }
    progress.waited = 0.0;
    progress.best = distance;
    if !target.seen {
        Progress::Stuck
    } else if target.last && distance <= arrival_reach(radius) {
        Progress::Arrived
    } else if queue_ahead() {
        Progress::Queueing
    } else {
        Progress::Stuck
    }
}

/// Whether an agent of `crowd` ahead of agent `index` (towards its preferred velocity, within
/// a body length) wants to go the same way: the agent is in a queue, moving or not, rather than
/// at a dead end or face to face with agents coming the other way.
fn moves_in_a_queue(crowd: &Crowd, index: usize, found: &mut Vec<Neighbour>) -> bool {
    let agent = &crowd.agents[index];
    let heading = agent.preferred_velocity.normalize_or_zero();
    let reach = 3.0 * agent.radius + 0.5;
    crowd
        .neighbours
        .nearest(agent.position, Some(index), reach, 6, found);
    found.iter().any(|neighbour| {
        let other = &crowd.agents[neighbour.index];
        let ahead = (other.position - agent.position).dot(heading) > 0.0;
        ahead && other.preferred_velocity.dot(heading) > 0.0
    })
}

/// Makes `request` search again from `anchor`, where the agent stands (from wherever it stands
/// with [`PathRequest::start_at_agent`]).
fn search_again_from(request: &mut Mut<'_, PathRequest>, anchor: Option<Cell>) {
    match anchor {
        Some(anchor) if !request.start_at_agent && anchor != request.start => {
            request.start = anchor;
        }
        _ => request.set_changed(),
    }
}

/// Moves every avoiding agent by its planned velocity within the walls, records its
/// velocities, and sends a stuck agent searching again from where it stands.
pub(crate) fn move_crowds(
    time: Res<Time>,
    settings: Res<CrowdSettings>,
    nav: Option<Res<NavGrid>>,
    mut scratch: ResMut<CrowdScratch>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<(
        &mut Transform,
        &mut CrowdVelocity,
        &mut CrowdProgress,
        &mut PathFollower,
        &mut PathRequest,
    )>,
) {
    let time_step = time.delta_secs();
    let space = scratch.space;
    let mut found = Vec::new();
    for crowd in &mut scratch.crowds {
        move_agents(
            &mut crowd.agents,
            &crowd.velocities,
            &crowd.walls,
            time_step,
        );
        for (index, &entity) in crowd.entities.iter().enumerate() {
            let Ok((mut transform, mut velocity, mut progress, mut follower, mut request)) =
                agents.get_mut(entity)
            else {
                continue;
            };
            let agent = &crowd.agents[index];
            transform.translation = space.world(agent.position).extend(transform.translation.z);
            let actual = space.world_velocity(agent.velocity);
            velocity.set_if_neq(CrowdVelocity {
                desired: space.world_velocity(agent.preferred_velocity),
                actual,
            });
            let Some(target) = crowd.targets[index] else {
                continue;
            };
            let distance = (target.point - agent.position).length();
            let queue_ahead = || moves_in_a_queue(crowd, index, &mut found);
            match judge_progress(
                &mut progress,
                target,
                (distance, agent.radius),
                queue_ahead,
                time_step,
                &settings,
            ) {
                Progress::Moving | Progress::Queueing => {}
                Progress::Arrived => follower.finish(),
                Progress::Stuck => {
                    stats.crowd_searches_when_stuck += 1;
                    let anchor = nav.as_deref().and_then(|nav| {
                        nav.footprint_anchor(space.world(agent.position), request.size)
                    });
                    search_again_from(&mut request, anchor);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::crowd::footprint_radius;

    fn settings() -> CrowdSettings {
        CrowdSettings::default()
    }

    fn target(key: (u64, usize), last: bool) -> Target {
        Target {
            point: Vector::new(5.0, 5.0),
            last,
            key,
            seen: true,
        }
    }

    #[test]
    fn progress_resets_on_a_new_waypoint_and_on_real_progress() {
        let settings = settings();
        let mut progress = CrowdProgress::default();
        let step = 0.5;
        let first = target((1, 1), false);
        assert_eq!(
            judge_progress(
                &mut progress,
                first,
                (10.0, 0.45),
                || false,
                step,
                &settings
            ),
            Progress::Moving
        );
        // Creeping closer by less than stuck_distance does not count; waiting stuck_after
        // seconds then searches again.
        let mut outcome = Progress::Moving;
        let mut waited = 0.0;
        while outcome == Progress::Moving {
            waited += step;
            outcome = judge_progress(&mut progress, first, (9.9, 0.45), || false, step, &settings);
        }
        assert_eq!(outcome, Progress::Stuck);
        assert!((waited - settings.stuck_after.as_secs_f32()).abs() < 1e-3);
        // Real progress resets the clock.
        assert_eq!(
            judge_progress(&mut progress, first, (9.0, 0.45), || false, step, &settings),
            Progress::Moving
        );
        assert_eq!(progress.waited, 0.0);
        // So does a new waypoint.
        progress.waited = 2.9;
        let second = target((1, 2), false);
        judge_progress(
            &mut progress,
            second,
            (9.0, 0.45),
            || false,
            step,
            &settings,
        );
        assert_eq!((progress.target, progress.waited), ((1, 2), 0.0));
    }

    #[test]
    fn an_agent_out_of_sight_of_its_waypoint_searches_again_sooner_even_in_a_queue() {
        let settings = settings();
        let blind = Target {
            seen: false,
            ..target((1, 1), false)
        };
        let mut progress = CrowdProgress::default();
        judge_progress(&mut progress, blind, (9.0, 0.45), || true, 0.1, &settings);
        let mut waited = 0.0;
        let outcome = loop {
            waited += 0.1;
            match judge_progress(&mut progress, blind, (9.0, 0.45), || true, 0.1, &settings) {
                Progress::Moving => {}
                outcome => break outcome,
            }
        };
        assert_eq!(outcome, Progress::Stuck);
        assert!(
            waited < settings.stuck_after.as_secs_f32() * 0.25,
            "{waited}"
        );
    }

    #[test]
    fn an_agent_stuck_beside_its_goal_stops_rather_than_searching_again() {
        let settings = CrowdSettings {
            stuck_after: core::time::Duration::ZERO,
            ..CrowdSettings::default()
        };
        let last = target((1, 4), true);
        let mut progress = CrowdProgress::default();
        judge_progress(&mut progress, last, (1.5, 0.45), || false, 0.1, &settings);
        assert_eq!(
            judge_progress(&mut progress, last, (1.5, 0.45), || false, 0.1, &settings),
            Progress::Arrived
        );
        let mut queued = CrowdProgress::default();
        judge_progress(&mut queued, last, (30.0, 0.45), || true, 0.1, &settings);
        assert_eq!(
            judge_progress(&mut queued, last, (30.0, 0.45), || true, 0.1, &settings),
            Progress::Queueing
        );
        let mut far = CrowdProgress::default();
        judge_progress(&mut far, last, (30.0, 0.45), || false, 0.1, &settings);
        assert_eq!(
            judge_progress(&mut far, last, (30.0, 0.45), || false, 0.1, &settings),
            Progress::Stuck
        );
    }

    #[test]
    fn grid_space_round_trips_with_flipped_cells() {
        let nav = NavGrid::new(Grid::new(10, 10))
            .with_cell_size(Vec2::new(16.0, -16.0))
            .with_origin(Vec2::new(-80.0, 80.0));
        let space = GridSpace::of(&nav);
        let centre = nav.cell_center(Cell::new(3, 7));
        let point = space.point(centre);
        assert_eq!(point, Vector::new(3.5, 7.5));
        assert_eq!(space.world(point), centre);
        assert_eq!(
            space.velocity(Vec2::new(32.0, 32.0)),
            Vector::new(2.0, -2.0)
        );
        assert_eq!(8.0 / space.shorter_side(), 0.5);
    }

    #[test]
    fn a_radius_asked_for_is_at_most_the_footprints_and_speeds_never_exceed_the_followers() {
        let nav = NavGrid::new(Grid::new(4, 4)).with_cell_size(Vec2::new(32.0, 16.0));
        let space = GridSpace::of(&nav);
        let footprint = footprint_radius(1);
        let radius_of = |avoidance: Avoidance| avoidance.radius_in_cells(1, space.shorter_side());
        assert_eq!(radius_of(Avoidance::default()), footprint);
        assert_eq!(radius_of(Avoidance::default().with_radius(4.0)), 0.25);
        for odd in [64.0, -2.0, f32::NAN, 0.0] {
            let radius = radius_of(Avoidance::default().with_radius(odd));
            assert!(radius > 0.0 && radius <= footprint, "{odd}: {radius}");
        }
        // 4 cells a second... of the longer side: 64 world units a second along x, 32 along y.
        let speed = space.speed_in_cells(64.0);
        assert!(space.world_velocity(Vector::new(speed, 0.0)).length() <= 64.0);
        assert!(space.world_velocity(Vector::new(0.0, speed)).length() <= 64.0);
    }

    #[test]
    fn agents_heading_for_one_place_share_a_priority() {
        let avoidance = Avoidance::default();
        let a = PathRequest::new(Cell::new(0, 0), Cell::new(9, 3));
        let b = PathRequest::new(Cell::new(5, 5), Cell::new(10, 2));
        let c = PathRequest::new(Cell::new(0, 0), Cell::new(3, 19));
        assert_eq!(priority_of(&avoidance, &a), priority_of(&avoidance, &b));
        assert_ne!(priority_of(&avoidance, &a), priority_of(&avoidance, &c));
        assert_eq!(priority_of(&avoidance.with_priority(7), &c), 7);
    }
}
