//! [`CrowdPlugin`] and the crowd systems of [`PathfindingSystems::Follow`]: gather the avoiding agents
//! into one crowd per terrain profile, step them (steering, the core's ORCA in parallel, moves
//! within the walls) beside the frame or in it, then write the step back and act on each agent's
//! progress (see [`crate::crowd`]).

use super::density::{DensityCount, count_crowd_density, reread_crowded_routes};
use super::progress::{Progress, judge_progress, search_again_from};
use super::space::GridSpace;
use super::steering::{
    CrowdSight, Route, Target, Walls, holding_velocity, look_ahead, next_target, preferred_velocity,
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
    AvoidanceSettings, CrowdAgent, HeldUp, Neighbour, NeighbourGrid, PlanningContext,
    ProgressSettings, Vector, VelocityPlanner, disc_fits, move_agents, nearest_legal_position,
};
use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use std::sync::{Arc, Mutex, PoisonError, mpsc};

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
                    finish_crowd_step,
                    gather_crowds,
                    start_crowd_step,
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

/// The crowd's memory from frame to frame, and the step running beside the frame.
#[derive(Resource, Default)]
pub(crate) struct CrowdScratch {
    /// The step being gathered, or the last one written back; while a step runs beside the
    /// frame, an empty one (the crowd's thread holds the crowd's memory and gives it back).
    step: CrowdStep,
    /// The thread the step runs on beside the frame, started with the first such step.
    thread: Option<CrowdThread>,
    /// Whether a step is running on it.
    running: bool,
    /// Frames gathered so far: which agents are planned in a frame follows from it.
    frame: u64,
    /// Walls taken so far, to number each crowd's walls afresh (see [`CrowdSight`]).
    walls_taken: u64,
}

/// The thread a crowd step runs on beside the frame. It is the crowd's own, not a pool's: a
/// system waiting for the step may itself run on a pool's thread, and would then wait for work
/// queued behind itself (on two cores the compute pool has one thread). The step still plans
/// large crowds in chunks over the compute pool, and runs its chunks itself when the pool is
/// busy. The thread ends when the crowd's memory is dropped.
struct CrowdThread {
    steps: mpsc::Sender<CrowdStep>,
    done: Mutex<mpsc::Receiver<CrowdStep>>,
}

impl CrowdThread {
    /// Starts the thread; `None` when the system cannot start one.
    fn start() -> Option<Self> {
        let (steps, to_run) = mpsc::channel::<CrowdStep>();
        let (finished, done) = mpsc::channel();
        std::thread::Builder::new()
            .name("crowd step".to_owned())
            .spawn(move || {
                while let Ok(step) = to_run.recv() {
                    if finished.send(step.run()).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Self {
            steps,
            done: Mutex::new(done),
        })
    }
}

/// One frame's step of every crowd, with the memory it reuses from step to step: what
/// gathering copied of the agents, and what steering, planning and moving make of it.
#[derive(Default)]
struct CrowdStep {
    crowds: Vec<Crowd>,
    planners: Vec<VelocityPlanner>,
    space: GridSpace,
    /// The frame it was gathered on.
    frame: u64,
    /// The frame's time step: the agents move by it.
    time_step: f32,
    /// The time step this frame's plans are made for: the frame's, times the planning interval
    /// (a plan holds for that many frames).
    plan_step: f32,
    avoidance: AvoidanceSettings,
    /// Agents planned (and steered) per task of the compute task pool.
    per_task: usize,
}

/// The avoiding agents of one terrain profile.
struct Crowd {
    profile: ProfileId,
    /// Cells the profile cannot enter are 0.
    walls: Arc<Grid>,
    /// The number of these walls among all walls taken.
    walls_epoch: u64,
    /// What gathering copied of each agent, and what steering made of it.
    members: Vec<Member>,
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

/// An avoiding agent as the step sees it: copies of what steering reads and writes, written
/// back to its components once the step is done.
struct Member {
    entity: Entity,
    /// Its translation when gathered: one the game has moved since is left where the game put
    /// it.
    translation: Vec3,
    follower: PathFollower,
    sight: CrowdSight,
    route: Route,
    /// Whether it steers by its cell's lines of sight: a one-cell agent does; larger ones keep
    /// to their waypoints.
    sighted: bool,
    /// The velocity it prefers while it steps aside from a knot of agents
    /// ([`astar_grid::crowd::AgentProgress::aside_velocity`]).
    aside: Option<Vector>,
    /// Whether the step put it back on legal ground.
    pushed_out: bool,
}

impl Crowd {
    fn new(profile: ProfileId, walls: Arc<Grid>, walls_epoch: u64) -> Self {
        Self {
            profile,
            walls,
            walls_epoch,
            members: Vec::new(),
            agents: Vec::new(),
            targets: Vec::new(),
            due: Vec::new(),
            velocities: Vec::new(),
            neighbours: NeighbourGrid::new(),
        }
    }

    fn clear(&mut self) {
        self.members.clear();
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

    /// Steers every agent (see [`steer`]), in chunks of `per_task` agents over the compute
    /// task pool for a large crowd.
    fn steer_all(&mut self, space: GridSpace, plan_step: f32, per_task: usize) {
        let walls = Walls {
            grid: &self.walls,
            epoch: self.walls_epoch,
        };
        self.targets.clear();
        self.targets.resize(self.agents.len(), None);
        let one_task = self.agents.len() <= per_task;
        let chunks = self
            .members
            .chunks_mut(per_task)
            .zip(self.agents.chunks_mut(per_task))
            .zip(self.targets.chunks_mut(per_task));
        if one_task {
            for ((members, agents), targets) in chunks {
                steer((members, agents, targets), (space, walls), plan_step);
            }
            return;
        }
        ComputeTaskPool::get_or_init(TaskPool::default).scope(|scope| {
            for chunk in chunks {
                scope.spawn(async move {
                    let ((members, agents), targets) = chunk;
                    steer((members, agents, targets), (space, walls), plan_step);
                });
            }
        });
    }

    /// Plans the velocities of the agents due this frame, in chunks of `per_task` agents over
    /// the compute task pool for a large crowd.
    fn plan(
        &mut self,
        planners: &mut Vec<VelocityPlanner>,
        (avoidance, plan_step): (&AvoidanceSettings, f32),
        per_task: usize,
    ) {
        self.neighbours
            .rebuild(&self.agents, avoidance.bucket_size());
        let tasks = self.agents.len().div_ceil(per_task).max(1);
        if planners.len() < tasks {
            planners.resize_with(tasks, VelocityPlanner::new);
        }
        let context = PlanningContext {
            agents: &self.agents,
            neighbours: &self.neighbours,
            grid: &self.walls,
            settings: avoidance,
            time_step: plan_step,
        };
        let due = &self.due[..];
        if tasks == 1 {
            let all = (0..self.agents.len(), due);
            plan_due(&mut planners[0], &context, all, &mut self.velocities);
            return;
        }
        let context = &context;
        ComputeTaskPool::get_or_init(TaskPool::default).scope(|scope| {
            for (chunk, (out, planner)) in self
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

impl CrowdStep {
    /// Steers, plans and moves every crowd: the whole step, which reads and writes nothing
    /// but itself, so that it may run beside the frame.
    fn run(mut self) -> Self {
        let per_task = self.per_task.max(1);
        for crowd in &mut self.crowds {
            crowd.steer_all(self.space, self.plan_step, per_task);
            let planning = (&self.avoidance, self.plan_step);
            crowd.plan(&mut self.planners, planning, per_task);
            move_agents(
                &mut crowd.agents,
                &crowd.velocities,
                &crowd.walls,
                self.time_step,
            );
        }
        self
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
            if crowds[index].members.is_empty() {
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

/// Steers each agent of a chunk: puts one whose ground was blocked under it back on the
/// nearest legal ground, passes the waypoints it is done with, aims it at its next one (or,
/// for a one-cell agent, the furthest ahead it sees: [`look_ahead`]) and gives it the velocity
/// it would take with nobody in the way. An agent stepping aside from a knot prefers to step
/// slowly out of the way.
fn steer(
    (members, agents, targets): (&mut [Member], &mut [CrowdAgent], &mut [Option<Target>]),
    (space, walls): (GridSpace, Walls<'_>),
    step: f32,
) {
    for ((member, agent), target) in members.iter_mut().zip(agents).zip(targets) {
        if let Some(legal) = pushed_out(walls.grid, agent.position, agent.radius) {
            agent.position = legal;
            member.pushed_out = true;
        }
        let (position, radius) = (agent.position, agent.radius);
        let sight_walls = member.sighted.then_some(walls);
        let next = next_target(
            &mut member.follower,
            &member.route,
            (space, sight_walls),
            (position, radius),
            &mut member.sight,
        );
        *target = next.map(|next| match sight_walls {
            Some(walls) => {
                let held_up = agent.velocity.length() < 0.5 * agent.max_speed;
                let agent = (position, radius, held_up);
                look_ahead(
                    next,
                    &member.route,
                    (space, walls),
                    agent,
                    &mut member.sight,
                )
            }
            None => next,
        });
        agent.preferred_velocity = match (member.aside, *target) {
            (Some(aside), _) => aside,
            (None, Some(target)) => preferred_velocity(agent, target, step),
            (None, None) => holding_velocity(agent, &member.route, space, step),
        };
    }
}

/// What gathering reads of an avoiding agent (and the follower it sets on a new path).
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
    sight: &'static CrowdSight,
    transform: &'static Transform,
}

/// What writing a step back reads and writes of an avoiding agent.
#[derive(QueryData)]
#[query_data(mutable)]
pub(crate) struct MovedAgent {
    transform: &'static mut Transform,
    velocity: &'static mut CrowdVelocity,
    plan: &'static mut CrowdPlan,
    progress: &'static mut CrowdProgress,
    follower: &'static mut PathFollower,
    sight: &'static mut CrowdSight,
    request: &'static mut PathRequest,
    path: &'static Path,
}

/// What writing a step back needs besides the agents: the map (to anchor a new search where a
/// stuck agent stands), the knot rules' settings, and the stats.
type WriteBack<'a> = (
    Option<&'a NavGrid>,
    &'a ProgressSettings,
    &'a mut PathfindingStats,
);

/// Gathers the avoiding agents into one crowd per profile, copying what the step reads:
/// positions, radii, speeds and priorities in grid space, paths, followers and lines of sight,
/// and whether each is planned this frame.
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
    scratch.step.crowds.iter_mut().for_each(Crowd::clear);
    let Some(nav) = nav else {
        return;
    };
    scratch.frame += 1;
    let interval = settings.planning_interval.max(1);
    let step = &mut scratch.step;
    (step.frame, step.space) = (scratch.frame, GridSpace::of(&nav));
    step.time_step = time.delta_secs();
    // A plan holds for `interval` frames, and is made for them.
    step.plan_step = step.time_step * interval as f32;
    (step.avoidance, step.per_task) = (settings.avoidance(), settings.agents_per_task.max(1));
    for mut item in &mut agents {
        // A new path restarts the walk at once, so that the follower never reads as finished
        // on it.
        if !item.follower.walks(item.path) {
            item.follower.sync_with(item.path);
        }
        let request = item.request;
        let crowds = (&mut step.crowds, &mut scratch.walls_taken);
        let index = crowd_of(crowds, request.profile, &nav, &profiles, &mut layers);
        let crowd = &mut step.crowds[index];
        let space = step.space;
        let radius = item
            .avoidance
            .radius_in_cells(request.size, space.shorter_side());
        let translation = item.transform.translation;
        let speed = space.speed_in_cells(item.follower.speed.max(0.0));
        let mut agent = CrowdAgent::new(space.point(translation.truncate()), radius, speed);
        agent.velocity = space.velocity(item.velocity.actual);
        agent.priority = priority_of(item.avoidance, request);
        crowd.members.push(Member {
            entity: item.entity,
            translation,
            follower: item.follower.clone(),
            sight: *item.sight,
            route: Route::of(item.path),
            sighted: request.size <= 1,
            aside: item.progress.knot.aside_velocity(speed),
            pushed_out: false,
        });
        crowd.agents.push(agent);
        crowd
            .due
            .push(is_due(item.plan, item.entity, step.frame, interval));
        crowd.velocities.push(item.plan.velocity);
    }
    step.crowds.retain(|crowd| !crowd.members.is_empty());
    stats.crowd_agents = step.crowds.iter().map(|crowd| crowd.agents.len()).sum();
}

/// Runs the step just gathered: beside the frame on the crowd's thread
/// ([`CrowdSettings::step_beside_frame`]), to be written back by the next frame's
/// [`finish_crowd_step`], or here and now, written back at once.
pub(crate) fn start_crowd_step(
    settings: Res<CrowdSettings>,
    nav: Option<Res<NavGrid>>,
    mut scratch: ResMut<CrowdScratch>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<MovedAgent>,
) {
    if scratch.step.crowds.is_empty() {
        return;
    }
    let mut step = core::mem::take(&mut scratch.step);
    if cfg!(feature = "multi_threaded") && settings.step_beside_frame {
        if scratch.thread.is_none() {
            scratch.thread = CrowdThread::start();
        }
        // Without a thread (it could not start, or is gone), the step runs here.
        if let Some(thread) = &scratch.thread {
            match thread.steps.send(step) {
                Ok(()) => {
                    scratch.running = true;
                    return;
                }
                Err(mpsc::SendError(unsent)) => {
                    scratch.thread = None;
                    step = unsent;
                }
            }
        }
    }
    let step = step.run();
    let progress = settings.progress();
    write_back(&step, &mut agents, (nav.as_deref(), &progress, &mut stats));
    scratch.step = step;
}

/// Writes back the step that ran beside the last frame, waiting for it if it is not done.
pub(crate) fn finish_crowd_step(
    settings: Res<CrowdSettings>,
    nav: Option<Res<NavGrid>>,
    mut scratch: ResMut<CrowdScratch>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<MovedAgent>,
) {
    if !core::mem::take(&mut scratch.running) {
        return;
    }
    let finished = scratch.thread.as_ref().and_then(|thread| {
        let done = thread.done.lock().unwrap_or_else(PoisonError::into_inner);
        done.recv().ok()
    });
    let Some(step) = finished else {
        // The thread is gone with the step (it panicked): the crowd starts afresh.
        scratch.thread = None;
        return;
    };
    let progress = settings.progress();
    write_back(&step, &mut agents, (nav.as_deref(), &progress, &mut stats));
    scratch.step = step;
}

/// Writes a finished step back to the agents: positions (unless the game moved an agent since
/// it was gathered), velocities, the plans made, what each follower passed and what its sight
/// drew; then acts on each agent's progress.
fn write_back(
    step: &CrowdStep,
    agents: &mut Query<MovedAgent>,
    (nav, settings, stats): WriteBack<'_>,
) {
    let mut found = Vec::new();
    for crowd in &step.crowds {
        for (index, member) in crowd.members.iter().enumerate() {
            let Ok(mut item) = agents.get_mut(member.entity) else {
                continue;
            };
            let agent = &crowd.agents[index];
            if item.transform.translation == member.translation {
                let z = member.translation.z;
                item.transform.translation = step.space.world(agent.position).extend(z);
            }
            stats.crowd_agents_pushed_out += u64::from(member.pushed_out);
            item.velocity.set_if_neq(CrowdVelocity {
                desired: step.space.world_velocity(agent.preferred_velocity),
                actual: step.space.world_velocity(agent.velocity),
            });
            if crowd.due[index] {
                *item.plan = CrowdPlan {
                    velocity: crowd.velocities[index],
                    planned_on: Some(step.frame),
                };
            }
            // The follower's walk, as the step moved it on; its speed, as it is now.
            let mut walked = member.follower.clone();
            walked.speed = item.follower.speed;
            item.follower.set_if_neq(walked);
            item.sight.set_if_neq(member.sight);
            // Stepping aside, it is not judged until it is done (and done it is, whether it has
            // a waypoint or not); nor is an agent given a new path since it was gathered.
            if item.progress.knot.count_down(step.time_step) {
                continue;
            }
            let Some(target) =
                crowd.targets[index].filter(|target| target.key.0 == item.path.revision)
            else {
                continue;
            };
            act_on_progress(
                &mut item,
                target,
                (&crowd.agents, &crowd.neighbours, index, &mut found),
                (nav, step.space),
                (step.time_step, settings),
                stats,
            );
        }
    }
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
