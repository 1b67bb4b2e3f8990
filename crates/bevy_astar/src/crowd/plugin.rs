//! [`CrowdPlugin`] and the crowd systems of [`PathfindingSystems::Follow`]: gather the avoiding agents
//! into one crowd per terrain profile, plan their velocities with the core's ORCA in parallel,
//! move them within the walls and watch their progress (see [`crate::crowd`]).

use super::density::{DensityCount, count_crowd_density, reread_crowded_routes};
use super::progress::{Progress, judge_progress, search_again_from};
use super::space::GridSpace;
use super::steering::{
    CrowdSight, Target, Walls, holding_velocity, look_ahead, next_target, preferred_velocity,
};
use super::{CrowdAvoidance, CrowdProgress, CrowdSettings, CrowdVelocity};
use crate::kinds::KindKey;
use crate::map::AgentLayers;
use crate::schedule::pathfinding_schedule;
use crate::{
    NavGrid, Path, PathFollower, PathRequest, PathfindingStats, PathfindingSystems, ProfileId,
    TerrainProfiles,
};
use astar_grid::Grid;
use astar_grid::crowd::{
    AgentProgress, CrowdAgent, HeldUp, Neighbour, NeighbourGrid, PlanningContext, ProgressSettings,
    Vector, VelocityPlanner, disc_fits, move_agents, nearest_legal_position,
};
use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use std::sync::Arc;

/// Steers agents with [`CrowdAvoidance`] round each other and along the walls, in
/// [`PathfindingSystems::Follow`] of the schedule the [`AStarPlugin`](crate::AStarPlugin) runs in (add
/// it after that plugin, as [`PathfindingPlugins`](crate::PathfindingPlugins) does). It
/// registers the crowd's components and its [`CrowdSettings`], and attaches the steering's own
/// companions to every [`CrowdAvoidance`]. Without it, avoiding agents follow their paths as the
/// others do (with [`PathFollowPlugin`](crate::PathFollowPlugin)), through each other.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// App::new().add_plugins((MinimalPlugins, AStarPlugin::default(), PathFollowPlugin, CrowdPlugin));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct CrowdPlugin;

impl Plugin for CrowdPlugin {
    fn build(&self, app: &mut App) {
        let schedule = pathfinding_schedule(app, "CrowdPlugin");
        app.register_type::<CrowdAvoidance>()
            .register_type::<CrowdVelocity>()
            .register_type::<CrowdSettings>()
            .init_resource::<CrowdSettings>()
            .init_resource::<CrowdScratch>()
            .register_required_components::<CrowdAvoidance, CrowdSight>()
            .register_required_components::<CrowdAvoidance, CrowdPlan>()
            .init_resource::<DensityCount>()
            .add_systems(
                schedule,
                (
                    gather_crowds,
                    plan_crowds,
                    move_crowds,
                    count_crowd_density,
                    reread_crowded_routes,
                )
                    .chain()
                    .in_set(PathfindingSystems::Follow),
            );
    }
}

/// How far, in cells, an agent whose ground was blocked under it is looked for a place to
/// stand.
const PUSH_OUT_DISTANCE: f32 = 16.0;

/// The avoiding agents of this frame, one crowd per terrain profile, and the planners' memory.
#[derive(Resource, Default)]
pub(crate) struct CrowdScratch {
    crowds: Vec<Crowd>,
    planners: Vec<VelocityPlanner>,
    space: GridSpace,
    /// Frames gathered so far: which agents are planned in a frame follows from it.
    frame: u64,
    /// Walls taken so far, to number each crowd's walls afresh (see [`CrowdSight`]).
    walls_taken: u64,
    /// The time step this frame's plans are made for: the frame's, times the planning interval
    /// (a plan holds for that many frames).
    plan_step: f32,
}

/// The avoiding agents of one terrain profile.
struct Crowd {
    profile: ProfileId,
    /// Cells the profile cannot enter are 0.
    walls: Arc<Grid>,
    /// The number of these walls among all walls taken.
    walls_epoch: u64,
    entities: Vec<Entity>,
    agents: Vec<CrowdAgent>,
    /// Each agent's next waypoint in grid space, whether it is the path's last, and which one
    /// it is; `None` for an agent with nowhere to go.
    targets: Vec<Option<Target>>,
    /// Whether each agent is planned this frame; the others keep their last plan's velocity,
    /// which `velocities` holds for them from the gathering on.
    due: Vec<bool>,
    velocities: Vec<Vector>,
    neighbours: NeighbourGrid,
}

impl Crowd {
    fn new(profile: ProfileId, walls: Arc<Grid>, walls_epoch: u64) -> Self {
        Self {
            profile,
            walls,
            walls_epoch,
            entities: Vec::new(),
            agents: Vec::new(),
            targets: Vec::new(),
            due: Vec::new(),
            velocities: Vec::new(),
            neighbours: NeighbourGrid::new(),
        }
    }

    fn clear(&mut self) {
        self.entities.clear();
        self.agents.clear();
        self.targets.clear();
        self.due.clear();
        self.velocities.clear();
    }

    /// Takes the walls of this frame, numbering them afresh when they are not the last ones.
    fn take_walls(&mut self, walls: Arc<Grid>, walls_taken: &mut u64) {
        if !Arc::ptr_eq(&self.walls, &walls) {
            *walls_taken += 1;
            self.walls = walls;
            self.walls_epoch = *walls_taken;
        }
    }
}

/// The velocity an avoiding agent was last planned, kept for the frames in which it is not
/// planned (see [`CrowdSettings::planning_interval`]).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CrowdPlan {
    /// The planned velocity, in cells per second.
    velocity: Vector,
    /// The frame it was planned on; `None` before the first plan.
    planned_on: Option<u64>,
}

/// Whether the agent `entity` is planned on `frame`: one agent in `interval` each frame (by its
/// entity's index), and any agent whose last plan is `interval` frames old or that has none.
fn is_due(plan: &CrowdPlan, entity: Entity, frame: u64, interval: u32) -> bool {
    let interval = u64::from(interval.max(1));
    plan.planned_on.is_none_or(|on| {
        frame.saturating_sub(on) >= interval
            || (u64::from(entity.index_u32()) + frame).is_multiple_of(interval)
    })
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
fn priority_of(avoidance: &CrowdAvoidance, request: &PathRequest) -> u32 {
    avoidance.priority.unwrap_or_else(|| {
        let (x, y) = (
            request.goal.x / PRIORITY_REGION,
            request.goal.y / PRIORITY_REGION,
        );
        x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77).rotate_left(16)
    })
}

/// The index in `crowds` of the crowd of `profile`, added when missing; the walls of a crowd
/// are taken afresh when its first agent of the frame joins it.
fn crowd_of(
    (crowds, walls_taken): (&mut Vec<Crowd>, &mut u64),
    profile: ProfileId,
    nav: &NavGrid,
    profiles: &TerrainProfiles,
    layers: &mut AgentLayers,
) -> usize {
    match crowds.iter().position(|crowd| crowd.profile == profile) {
        Some(index) => {
            if crowds[index].entities.is_empty() {
                let walls = walls_for(profile, nav, profiles, layers);
                crowds[index].take_walls(walls, walls_taken);
            }
            index
        }
        None => {
            *walls_taken += 1;
            let walls = walls_for(profile, nav, profiles, layers);
            crowds.push(Crowd::new(profile, walls, *walls_taken));
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

/// An avoiding agent as its crowd sees it this frame: its disc of `radius` at `position`, its
/// velocities and priority, and its next waypoint; what it last saw of its path is in `sight`.
/// An agent standing aside (`knot`, [`AgentProgress::aside_velocity`]) prefers to step slowly
/// out of the way.
fn crowd_agent(
    (avoidance, request, path, knot): (&CrowdAvoidance, &PathRequest, &Path, &AgentProgress),
    (follower, sight): (&mut PathFollower, &mut CrowdSight),
    (space, walls): (GridSpace, Walls<'_>),
    (position, radius, actual): (Vector, f32, Vec2),
    step: f32,
) -> (CrowdAgent, Option<Target>) {
    let speed = space.speed_in_cells(follower.speed.max(0.0));
    let mut agent = CrowdAgent::new(position, radius, speed);
    agent.velocity = space.velocity(actual);
    agent.priority = priority_of(avoidance, request);
    // Lines of sight are a one-cell agent's: larger ones keep to their waypoints.
    let sight_walls = (request.size <= 1).then_some(walls);
    let target = next_target(
        follower,
        path,
        (space, sight_walls),
        (position, radius),
        sight,
    )
    .map(|target| match sight_walls {
        Some(walls) => {
            let held_up = agent.velocity.length() < 0.5 * speed;
            look_ahead(
                target,
                path,
                (space, walls),
                (position, radius, held_up),
                sight,
            )
        }
        None => target,
    });
    agent.preferred_velocity = match (knot.aside_velocity(speed), target) {
        (Some(aside), _) => aside,
        (None, Some(target)) => preferred_velocity(&agent, target, step),
        (None, None) => holding_velocity(&agent, path, space, step),
    };
    (agent, target)
}

/// What gathering reads and writes of an avoiding agent.
#[derive(QueryData)]
#[query_data(mutable)]
pub(crate) struct GatheredAgent {
    entity: Entity,
    avoidance: &'static CrowdAvoidance,
    request: &'static PathRequest,
    path: &'static Path,
    velocity: &'static CrowdVelocity,
    plan: &'static CrowdPlan,
    progress: &'static CrowdProgress,
    follower: &'static mut PathFollower,
    sight: &'static mut CrowdSight,
    transform: &'static mut Transform,
}

/// What moving writes of an avoiding agent.
#[derive(QueryData)]
#[query_data(mutable)]
pub(crate) struct MovedAgent {
    transform: &'static mut Transform,
    velocity: &'static mut CrowdVelocity,
    plan: &'static mut CrowdPlan,
    progress: &'static mut CrowdProgress,
    follower: &'static mut PathFollower,
    request: &'static mut PathRequest,
}

/// Gathers the avoiding agents into one crowd per profile: positions, radii and speeds in
/// grid space, the next waypoint and the preferred velocity, and whether each is planned this
/// frame; puts an agent whose ground was blocked under it back on the nearest legal ground.
pub(crate) fn gather_crowds(
    (time, settings): (Res<Time>, Res<CrowdSettings>),
    nav: Option<Res<NavGrid>>,
    profiles: Res<TerrainProfiles>,
    mut layers: ResMut<AgentLayers>,
    mut scratch: ResMut<CrowdScratch>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<GatheredAgent>,
) {
    let scratch = &mut *scratch;
    scratch.crowds.iter_mut().for_each(Crowd::clear);
    let Some(nav) = nav else {
        return;
    };
    scratch.frame += 1;
    let (frame, interval) = (scratch.frame, settings.planning_interval.max(1));
    let space = GridSpace::of(&nav);
    scratch.space = space;
    // A plan holds for `interval` frames, and is made for them.
    let step = time.delta_secs() * interval as f32;
    scratch.plan_step = step;
    for mut item in &mut agents {
        let request = item.request;
        let crowds = (&mut scratch.crowds, &mut scratch.walls_taken);
        let index = crowd_of(crowds, request.profile, &nav, &profiles, &mut layers);
        let crowd = &mut scratch.crowds[index];
        let radius = item
            .avoidance
            .radius_in_cells(request.size, space.shorter_side());
        let mut position = space.point(item.transform.translation.truncate());
        if let Some(legal) = pushed_out(&crowd.walls, position, radius) {
            position = legal;
            let z = item.transform.translation.z;
            item.transform.translation = space.world(legal).extend(z);
            stats.crowd_agents_pushed_out += 1;
        }
        let walls = Walls {
            grid: &crowd.walls,
            epoch: crowd.walls_epoch,
        };
        let (agent, target) = crowd_agent(
            (item.avoidance, request, item.path, &item.progress.knot),
            (&mut item.follower, &mut item.sight),
            (space, walls),
            (position, radius, item.velocity.actual),
            step,
        );
        crowd.entities.push(item.entity);
        crowd.agents.push(agent);
        crowd.targets.push(target);
        crowd
            .due
            .push(is_due(item.plan, item.entity, frame, interval));
        crowd.velocities.push(item.plan.velocity);
    }
    scratch.crowds.retain(|crowd| !crowd.entities.is_empty());
    stats.crowd_agents = scratch.crowds.iter().map(|crowd| crowd.agents.len()).sum();
}

/// Plans into `out` the velocities of the due agents of `range` (slot `k` is agent
/// `range.start + k`), leaving the others' held velocities alone.
fn plan_due(
    planner: &mut VelocityPlanner,
    context: &PlanningContext<'_>,
    (range, due): (core::ops::Range<usize>, &[bool]),
    out: &mut [Vector],
) {
    for ((slot, index), _) in out
        .iter_mut()
        .zip(range.clone())
        .zip(&due[range])
        .filter(|(_, due)| **due)
    {
        *slot = planner.plan_velocity(context, index);
    }
}

/// Plans the velocities of the avoiding agents due this frame, in parallel over the compute
/// task pool for large crowds.
pub(crate) fn plan_crowds(settings: Res<CrowdSettings>, mut scratch: ResMut<CrowdScratch>) {
    let avoidance = settings.avoidance();
    let per_task = settings.agents_per_task.max(1);
    let CrowdScratch {
        crowds,
        planners,
        plan_step: step,
        ..
    } = &mut *scratch;
    let step = *step;
    for crowd in crowds.iter_mut() {
        crowd
            .neighbours
            .rebuild(&crowd.agents, avoidance.bucket_size());
        let tasks = crowd.agents.len().div_ceil(per_task).max(1);
        if planners.len() < tasks {
            planners.resize_with(tasks, VelocityPlanner::new);
        }
        let context = PlanningContext {
            agents: &crowd.agents,
            neighbours: &crowd.neighbours,
            grid: &crowd.walls,
            settings: &avoidance,
            time_step: step,
        };
        let due = &crowd.due[..];
        if tasks == 1 {
            let all = (0..crowd.agents.len(), due);
            plan_due(&mut planners[0], &context, all, &mut crowd.velocities);
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
                    plan_due(planner, context, (start..start + out.len(), due), out);
                });
            }
        });
    }
}

/// Moves every avoiding agent by its velocity within the walls, records its velocities and
/// the plans made this frame, and acts on its progress.
pub(crate) fn move_crowds(
    (time, settings): (Res<Time>, Res<CrowdSettings>),
    nav: Option<Res<NavGrid>>,
    mut scratch: ResMut<CrowdScratch>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<MovedAgent>,
) {
    let time_step = time.delta_secs();
    let (space, frame) = (scratch.space, scratch.frame);
    let progress_settings = settings.progress();
    let mut found = Vec::new();
    for crowd in &mut scratch.crowds {
        move_agents(
            &mut crowd.agents,
            &crowd.velocities,
            &crowd.walls,
            time_step,
        );
        for (index, &entity) in crowd.entities.iter().enumerate() {
            let Ok(mut item) = agents.get_mut(entity) else {
                continue;
            };
            let agent = &crowd.agents[index];
            let z = item.transform.translation.z;
            item.transform.translation = space.world(agent.position).extend(z);
            item.velocity.set_if_neq(CrowdVelocity {
                desired: space.world_velocity(agent.preferred_velocity),
                actual: space.world_velocity(agent.velocity),
            });
            if crowd.due[index] {
                *item.plan = CrowdPlan {
                    velocity: crowd.velocities[index],
                    planned_on: Some(frame),
                };
            }
            // Stepping aside, it is not judged until it is done (and done it is, whether it has
            // a waypoint or not).
            if item.progress.knot.count_down(time_step) {
                continue;
            }
            let Some(target) = crowd.targets[index] else {
                continue;
            };
            act_on_progress(
                &mut item,
                target,
                (&crowd.agents, &crowd.neighbours, index, &mut found),
                (nav.as_deref(), space),
                (time_step, &progress_settings),
                &mut stats,
            );
        }
    }
}

/// Judges the progress of the avoiding agent `item` (agent `index` of `agents`) towards
/// `target` after `time_step` seconds, and acts on it: nothing while it moves or queues; it
/// stops when it arrived; stuck, it searches again from the cell it stands on; waiting or stuck
/// as the last of a knot of agents, it steps aside for a while
/// ([`AgentProgress::judge_held_up`]).
fn act_on_progress(
    item: &mut MovedAgentItem<'_, '_>,
    target: Target,
    (agents, neighbours, index, found): (&[CrowdAgent], &NeighbourGrid, usize, &mut Vec<Neighbour>),
    (nav, space): (Option<&NavGrid>, GridSpace),
    (time_step, settings): (f32, &ProgressSettings),
    stats: &mut PathfindingStats,
) {
    let agent = &agents[index];
    let distance = (target.point - agent.position).length();
    let progress = &mut item.progress;
    match judge_progress(
        progress,
        target,
        (distance, agent.radius),
        time_step,
        settings,
    ) {
        Progress::Moving => {}
        Progress::Arrived => item.follower.finish(),
        Progress::HeldUp { seen } => {
            // The last of a knot of agents steps out of their way a while.
            let knot = (agents, neighbours);
            let held = progress
                .knot
                .judge_held_up(knot, index, seen, settings, found);
            if held == HeldUp::Stuck {
                stats.crowd_searches_when_stuck += 1;
                let anchor = nav.and_then(|nav| {
                    nav.footprint_anchor(space.world(agent.position), item.request.size)
                });
                search_again_from(&mut item.request, anchor);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::Cell;

    #[test]
    fn agents_heading_for_one_place_share_a_priority() {
        let avoidance = CrowdAvoidance::default();
        let a = PathRequest::new(Cell::new(0, 0), Cell::new(9, 3));
        let b = PathRequest::new(Cell::new(5, 5), Cell::new(10, 2));
        let c = PathRequest::new(Cell::new(0, 0), Cell::new(3, 19));
        assert_eq!(priority_of(&avoidance, &a), priority_of(&avoidance, &b));
        assert_ne!(priority_of(&avoidance, &a), priority_of(&avoidance, &c));
        assert_eq!(priority_of(&avoidance.with_priority(7), &c), 7);
    }

    #[test]
    fn one_agent_in_each_interval_is_planned_each_frame_and_none_waits_longer() {
        let entities: Vec<Entity> = (0..12)
            .map(|index| Entity::from_raw_u32(index).unwrap())
            .collect();
        for interval in 1..=4 {
            let mut plans = vec![CrowdPlan::default(); entities.len()];
            let mut waited = vec![0_u64; entities.len()];
            for frame in 1..=40 {
                let mut planned = 0;
                for ((entity, plan), waited) in entities.iter().zip(&mut plans).zip(&mut waited) {
                    if is_due(plan, *entity, frame, interval) {
                        planned += 1;
                        *waited = 0;
                        plan.planned_on = Some(frame);
                    } else {
                        *waited += 1;
                        assert!(*waited < u64::from(interval), "{interval}: {frame}");
                    }
                }
                // The first frame plans everyone; later ones one agent in `interval`.
                if frame > 1 {
                    assert_eq!(
                        planned,
                        entities.len() / interval as usize,
                        "{interval}: {frame}"
                    );
                }
            }
        }
    }
}
