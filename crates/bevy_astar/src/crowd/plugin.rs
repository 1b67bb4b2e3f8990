//! [`CrowdPlugin`] and the crowd systems of [`PathfindingSystems::Follow`]: keep one core
//! [`RouteCrowd`] per terrain profile in step with the avoiding agents, step them beside the
//! frame or in it, then write the step back and act on what it reports (see [`crate::crowd`]).

use super::density::{CrowdRouteCheck, DensityCount, count_crowd_density, reread_crowded_routes};
use super::links::cross_crowd_links;
use super::progress::act_on_event;
use super::space::GridSpace;
use super::tree_routes::{MemberRoute, TreeRoute, read_tree_routes};
use super::{CrowdAvoidance, CrowdSettings, CrowdVelocity};
use crate::kinds::KindKey;
use crate::map::{AgentLayers, CrowdCosts};
use crate::schedule::pathfinding_schedule;
use crate::{
    LinkCrossed, LinkReached, NavChange, NavChanged, NavGrid, Path, PathFollower, PathRequest,
    PathfindingStats, PathfindingSystems, ProfileId, TerrainProfiles,
};
use astar_grid::crowd::{ChunkRunner, CrowdAgent, InOrder, RouteCrowd, RouteWalker};
use astar_grid::{Cell, Grid};
use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use std::sync::{Arc, Mutex, PoisonError, mpsc};

/// Steers agents with [`CrowdAvoidance`] round each other and along the walls, in
/// [`PathfindingSystems::Follow`] of the schedule the [`AStarPlugin`](crate::AStarPlugin) runs in (add
/// it after that plugin, as [`PathfindingPlugins`](crate::PathfindingPlugins) does). It
/// registers the crowd's components and its [`CrowdSettings`], and attaches the density check's
/// companion to every [`CrowdAvoidance`]. Without it, avoiding agents follow their paths as the
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
            .register_required_components::<CrowdAvoidance, CrowdRouteCheck>()
            .init_resource::<DensityCount>()
            .add_message::<LinkReached>()
            .add_message::<LinkCrossed>()
            .add_systems(
                schedule,
                (
                    finish_crowd_step,
                    cross_crowd_links,
                    gather_crowds,
                    start_crowd_step,
                    count_crowd_density,
                    reread_crowded_routes,
                )
                    .chain()
                    .in_set(PathfindingSystems::Follow)
                    .run_if(crowds_at_work),
            );
    }
}

/// Whether the crowd systems have anything to do (their run condition): an agent avoids, a
/// crowd keeps members (who leave through the gathering), a step runs beside the frame, or the
/// crowd's cost layer is still to be cleared. A game with no avoiding agent pays no frame for
/// them. A crowd left out of frames misses their map changes, so it draws every line of sight
/// again when the next member comes ([`Crowd::take_walls`], with no bounds kept).
pub(crate) fn crowds_at_work(
    scratch: Res<CrowdScratch>,
    costs: Res<CrowdCosts>,
    avoiders: Query<(), With<CrowdAvoidance>>,
) -> bool {
    scratch.running
        || costs.layer.is_some()
        || !avoiders.is_empty()
        || scratch
            .step
            .crowds
            .iter()
            .any(|crowd| !crowd.members.is_empty())
}

/// The crowd's memory from frame to frame, and the step running beside the frame.
#[derive(Resource, Default)]
pub(crate) struct CrowdScratch {
    /// The crowds, kept from frame to frame; while a step runs beside the frame, an empty one
    /// (the crowd's thread holds the crowds and gives them back).
    step: CrowdStep,
    /// Where each avoiding agent is kept: its crowd's index in the step, and its own there.
    places: EntityHashMap<(usize, usize)>,
    /// The thread the step runs on beside the frame, started with the first such step.
    thread: Option<CrowdThread>,
    /// Whether a step is running on it.
    running: bool,
    /// Frames gathered so far.
    frame: u64,
    /// Whether the last frame let the step run on rather than wait for it (see
    /// [`finish_crowd_step`]).
    lagged: bool,
    /// Seconds of frames that let the step run on: the next step moves the agents by them too.
    unstepped: f32,
    /// Whether the walls changed in a frame that let the step run on (its crowds were away):
    /// every agent then draws its lines of sight again.
    missed_wall_changes: bool,
}

/// The thread a crowd step runs on beside the frame. It is the crowd's own, not a pool's: a
/// system waiting for the step may itself run on a pool's thread, and would then wait for work
/// queued behind itself (on two cores the compute pool has one thread). The step plans large
/// crowds in chunks on threads of its own ([`StepThreads`]), never on a pool's. The thread ends
/// when the crowd's memory is dropped.
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

/// Every crowd, with the frame's time step: what a step reads and writes.
#[derive(Default)]
struct CrowdStep {
    crowds: Vec<Crowd>,
    space: GridSpace,
    /// On isometric and hexagonal cells, the open box every crowd steps in
    /// ([`GridSpace::open`]).
    open_walls: Option<Arc<Grid>>,
    /// The frame's time step: the agents move by it.
    time_step: f32,
    /// Routes read off goals' shared trees by the step, until written back to the stats.
    routes_read: u64,
}

/// The avoiding agents of one terrain profile: the core's crowd, and the entity each of its
/// agents is.
struct Crowd {
    profile: ProfileId,
    /// Cells the profile cannot enter are 0.
    walls: Arc<Grid>,
    /// The changes of the profile's walls read since the crowd last took new walls.
    changes: WallChanges,
    core: RouteCrowd,
    /// By the index of the core's agents.
    members: Vec<Member>,
    /// Where each member's route comes from, by the same index.
    routes: Vec<MemberRoute>,
}

/// The map changes of a crowd's walls, read from [`NavChanged`] until the crowd takes the walls
/// they made: the bounds of each, or the whole map.
#[derive(Default)]
struct WallChanges {
    bounds: Vec<(Cell, Cell)>,
    whole_map: bool,
}

/// The most bounds a crowd keeps of changes to its walls; more count as a change of the whole
/// map (each agent then looks again, as it does for one).
const MOST_CHANGES_KEPT: usize = 64;

impl WallChanges {
    /// Notes `change`, a change of the walls' grid.
    fn note(&mut self, change: &NavChange) {
        match change.bounds() {
            Some(bounds) if self.bounds.len() < MOST_CHANGES_KEPT => self.bounds.push(bounds),
            Some(_) => self.whole_map = true,
            None => self.whole_map |= change.is_whole_map(),
        }
    }
}

/// The entity an agent of a crowd is, and what tells what of it changed since the crowd last
/// read or wrote it.
struct Member {
    entity: Entity,
    /// Its translation as the crowd last read or wrote it: one the game has moved since is
    /// read again (and not written over).
    translation: Vec3,
    /// The revision of the path its route was read from.
    revision: u64,
    /// The frame it was last gathered on: one missing from a frame's gathering has left.
    gathered: u64,
}

/// Runs a crowd step's chunks on threads of the step's own, as many as the machine has cores
/// (the calling thread counts as one), for the length of the step's stage, each taking the next
/// job until none is left; one after another on the calling thread when threads cannot be had
/// (no `multi_threaded`, or none could start).
///
/// Not Bevy's compute pool: a thread waiting in a pool's scope runs whatever task the pool
/// hands it, a system of the schedule included. The crowd's thread, waiting there for its
/// chunks, once ran [`finish_crowd_step`], which waits for the crowd's thread: every thread
/// stood still.
struct StepThreads;

impl ChunkRunner for StepThreads {
    fn run_all<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>) {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let helpers = threads.min(jobs.len()).saturating_sub(1);
        if !cfg!(feature = "multi_threaded") || helpers == 0 {
            return InOrder.run_all(jobs);
        }
        let queue = Mutex::new(jobs.into_iter());
        let take_jobs = || {
            loop {
                // The lock is let go of before the job runs.
                let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                let Some(job) = next else { break };
                job();
            }
        };
        std::thread::scope(|scope| {
            for _ in 0..helpers {
                let started = std::thread::Builder::new()
                    .name("crowd chunk".to_owned())
                    .spawn_scoped(scope, take_jobs);
                if started.is_err() {
                    break;
                }
            }
            take_jobs();
        });
    }
}

impl Crowd {
    /// Takes the walls of this frame, telling the core's crowd when they are new: where they
    /// changed, when every change since the last walls was read with its bounds, else
    /// everywhere.
    fn take_walls(&mut self, walls: Arc<Grid>) {
        if Arc::ptr_eq(&self.walls, &walls) {
            return;
        }
        self.walls = walls;
        let changes = core::mem::take(&mut self.changes);
        if changes.whole_map || changes.bounds.is_empty() {
            self.core.walls_changed();
        } else {
            for (min, max) in changes.bounds {
                self.core.walls_changed_within(min, max);
            }
        }
    }

    /// Takes this frame's walls (after noting the changes of `changes` to them) and settings.
    fn refresh(
        &mut self,
        changes: &[&NavChanged],
        settings: &CrowdSettings,
        (nav, profiles, layers): (&NavGrid, &TerrainProfiles, &mut AgentLayers),
    ) {
        let kind = KindKey {
            profile: self.profile,
            size: 1,
        };
        let read = changes
            .iter()
            .filter_map(|changed| changed.change_for_kind(kind));
        read.for_each(|change| self.changes.note(change));
        self.take_walls(walls_for(self.profile, nav, profiles, layers));
        self.core.settings = settings.avoidance();
        self.core.planning_interval = settings.planning_interval;
        self.core.agents_per_chunk = settings.agents_per_task;
    }

    /// Removes member `index`, keeping `places` (for this crowd, number `crowd`) in step.
    fn remove(
        &mut self,
        (crowd, index): (usize, usize),
        places: &mut EntityHashMap<(usize, usize)>,
    ) {
        self.core.swap_remove(index);
        self.routes.swap_remove(index);
        let gone = self.members.swap_remove(index);
        places.remove(&gone.entity);
        if let Some(moved) = self.members.get(index) {
            places.insert(moved.entity, (crowd, index));
        }
    }
}

impl CrowdStep {
    /// Steps every crowd, after reading the routes due off goals' shared trees
    /// ([`read_tree_routes`]): the whole step, which reads and writes nothing but itself (and
    /// the trees' published versions), so that it may run beside the frame.
    fn run(mut self) -> Self {
        for crowd in &mut self.crowds {
            let read =
                read_tree_routes(&mut crowd.core, &mut crowd.routes, self.space, &StepThreads);
            self.routes_read += read as u64;
            let walls = self.open_walls.as_ref().unwrap_or(&crowd.walls);
            crowd.core.step_with(walls, self.time_step, &StepThreads);
        }
        self
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
fn priority_of(avoidance: &CrowdAvoidance, request: &PathRequest) -> u32 {
    avoidance.priority.unwrap_or_else(|| {
        let (x, y) = (
            request.goal.x / PRIORITY_REGION,
            request.goal.y / PRIORITY_REGION,
        );
        x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77).rotate_left(16)
    })
}

/// The index in `crowds` of the crowd of `profile`, added when missing.
fn crowd_of(
    crowds: &mut Vec<Crowd>,
    profile: ProfileId,
    nav: &NavGrid,
    profiles: &TerrainProfiles,
    layers: &mut AgentLayers,
) -> usize {
    crowds
        .iter()
        .position(|crowd| crowd.profile == profile)
        .unwrap_or_else(|| {
            crowds.push(Crowd {
                profile,
                walls: walls_for(profile, nav, profiles, layers),
                changes: WallChanges::default(),
                core: RouteCrowd::default(),
                members: Vec::new(),
                routes: Vec::new(),
            });
            crowds.len() - 1
        })
}

/// What gathering reads of an avoiding agent (and the follower it sets on a new path).
#[derive(QueryData)]
#[query_data(mutable)]
pub(crate) struct GatheredAgent {
    entity: Entity,
    avoidance: &'static CrowdAvoidance,
    request: &'static PathRequest,
    path: &'static Path,
    follower: &'static mut PathFollower,
    transform: &'static Transform,
}

/// What writing a step back reads and writes of an avoiding agent.
#[derive(QueryData)]
#[query_data(mutable)]
pub(crate) struct MovedAgent {
    transform: &'static mut Transform,
    velocity: &'static mut CrowdVelocity,
    follower: &'static mut PathFollower,
    request: &'static mut PathRequest,
    path: &'static Path,
}

/// Brings the crowds up to date with the avoiding agents: adds the new ones, moves one whose
/// profile changed to its profile's crowd, and removes those gone; for each, takes its radius,
/// speed and priority, its position when the game moved it, and its route when its path is
/// new. Each crowd takes its profile's walls of this frame.
pub(crate) fn gather_crowds(
    (time, settings): (Res<Time>, Res<CrowdSettings>),
    nav: Option<Res<NavGrid>>,
    profiles: Res<TerrainProfiles>,
    mut layers: ResMut<AgentLayers>,
    mut scratch: ResMut<CrowdScratch>,
    (mut stats, mut changes): (ResMut<PathfindingStats>, MessageReader<NavChanged>),
    mut agents: Query<GatheredAgent>,
) {
    let scratch = &mut *scratch;
    let changes: Vec<&NavChanged> = changes.read().collect();
    if scratch.running {
        // The step runs on beside this frame too: the crowds are away.
        scratch.unstepped += time.delta_secs();
        scratch.missed_wall_changes |= !changes.is_empty();
        return;
    }
    let Some(nav) = nav else {
        scratch.step.crowds.clear();
        scratch.places.clear();
        return;
    };
    scratch.frame += 1;
    let time_step = time.delta_secs() + core::mem::take(&mut scratch.unstepped);
    let missed = core::mem::take(&mut scratch.missed_wall_changes);
    let (frame, step) = (scratch.frame, &mut scratch.step);
    (step.space, step.time_step) = (GridSpace::of(&nav), time_step);
    step.open_walls = match (step.space.open(), step.open_walls.take()) {
        (Some(size), Some(kept)) if (kept.width(), kept.height()) == size => Some(kept),
        (Some((width, height)), _) => Grid::try_new(width, height).ok().map(Arc::new),
        (None, _) => None,
    };
    for crowd in &mut step.crowds {
        crowd.changes.whole_map |= missed;
        crowd.refresh(&changes, &settings, (&nav, &profiles, &mut layers));
    }
    for mut item in &mut agents {
        // A new path restarts the walk at once, so that the follower never reads as finished
        // on it.
        if !item.follower.walks(item.path) {
            item.follower.sync_with(item.path);
        }
        if item.follower.crossing().is_some() {
            // Away from the crowd while it crosses a link (`cross_crowd_links`).
            continue;
        }
        let crowd = crowd_of(
            &mut step.crowds,
            item.request.profile,
            &nav,
            &profiles,
            &mut layers,
        );
        let place = place_of(step, &mut scratch.places, item.entity, crowd, &settings);
        let read = (item.avoidance, item.request, item.path);
        let moving = (
            item.follower.speed,
            item.transform.translation,
            item.follower.next_waypoint(),
        );
        let crowd = &mut step.crowds[crowd];
        update_member((crowd, place), read, moving, (step.space, frame));
    }
    for (number, crowd) in step.crowds.iter_mut().enumerate() {
        for index in (0..crowd.members.len()).rev() {
            if crowd.members[index].gathered != frame {
                crowd.remove((number, index), &mut scratch.places);
            }
        }
    }
    stats.crowd_agents = step.crowds.iter().map(|crowd| crowd.core.len()).sum();
}

/// The index of agent `entity` in crowd `crowd`: where it is kept, or, new to the crowd (it
/// is new, or its profile changed), added at the end.
fn place_of(
    step: &mut CrowdStep,
    places: &mut EntityHashMap<(usize, usize)>,
    entity: Entity,
    crowd: usize,
    settings: &CrowdSettings,
) -> usize {
    match places.get(&entity).copied() {
        Some((kept, index)) if kept == crowd => return index,
        Some(place) => step.crowds[place.0].remove(place, places),
        None => {}
    }
    let joined = &mut step.crowds[crowd];
    joined.core.settings = settings.avoidance();
    let index = joined
        .core
        .push(CrowdAgent::default(), RouteWalker::default());
    joined.members.push(Member {
        entity,
        translation: Vec3::NAN,
        revision: u64::MAX,
        gathered: 0,
    });
    joined.routes.push(MemberRoute::default());
    places.insert(entity, (crowd, index));
    index
}

/// Takes into agent `index` of `crowd`, on `frame`, what changed of an agent whose follower
/// has `speed`, heads for waypoint `next` and whose transform `translation`: its radius, speed
/// and priority (every frame), its position when the game moved it, and its route when its
/// path is new to the crowd (walked from waypoint `next`, where an agent back from a link
/// goes on).
fn update_member(
    (crowd, index): (&mut Crowd, usize),
    (avoidance, request, path): (&CrowdAvoidance, &PathRequest, &Path),
    (speed, translation, next): (f32, Vec3, usize),
    (space, frame): (GridSpace, u64),
) {
    let member = &mut crowd.members[index];
    member.gathered = frame;
    let agent = &mut crowd.core.agents_mut()[index];
    agent.radius = avoidance.radius_in_cells(request.size, space.shorter_side());
    agent.max_speed = space.speed_in_cells(speed.max(0.0));
    agent.priority = priority_of(avoidance, request);
    if translation != member.translation {
        agent.position = space.point(translation.truncate());
        member.translation = translation;
    }
    let walker = &mut crowd.core.walkers_mut()[index];
    // In the open box of a map that is not square, lines of sight cross walls: the walker
    // keeps to its waypoints.
    walker.set_sighted(request.size <= 1 && space.open().is_none());
    if member.revision != path.revision {
        member.revision = path.revision;
        let route = &mut crowd.routes[index];
        if let Some(shared) = path.shared_route() {
            // Read off the tree by the step, beside the frame: from where the agent stands
            // once it walked part of the way.
            let tree_route = if next > 1 {
                TreeRoute::resumed(shared.clone())
            } else {
                TreeRoute::new(shared.clone())
            };
            route.tree = Some(tree_route);
        } else {
            route.tree = None;
            route.waypoints = path.waypoints();
            walker.set_route_from(space.route(&route.waypoints, path.is_found()), next);
        }
    }
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
    let idle = scratch
        .step
        .crowds
        .iter()
        .all(|crowd| crowd.members.is_empty());
    if scratch.running || idle {
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
    let mut step = step.run();
    write_back(&mut step, &mut agents, (nav.as_deref(), &mut stats));
    scratch.step = step;
}

/// Writes back the step that ran beside the last frame, waiting for it if it is not done; or,
/// with [`CrowdSettings::step_may_run_on`], lets a step not done run on beside this frame too,
/// once (this frame's gathering and start then wait for it, and the next step adds this
/// frame's time).
pub(crate) fn finish_crowd_step(
    settings: Res<CrowdSettings>,
    nav: Option<Res<NavGrid>>,
    mut scratch: ResMut<CrowdScratch>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<MovedAgent>,
) {
    if !scratch.running {
        return;
    }
    // A step not done yet runs on beside this frame too, once: the frame after waits for it.
    let may_run_on = !core::mem::take(&mut scratch.lagged) && settings.step_may_run_on;
    let received = scratch.thread.as_ref().map(|thread| {
        let done = thread.done.lock().unwrap_or_else(PoisonError::into_inner);
        match done.try_recv() {
            Err(mpsc::TryRecvError::Empty) if may_run_on => None,
            Err(mpsc::TryRecvError::Empty) => Some(done.recv().ok()),
            received => Some(received.ok()),
        }
    });
    let finished = match received {
        Some(None) => {
            scratch.lagged = true;
            return;
        }
        Some(Some(finished)) => finished,
        None => None,
    };
    scratch.running = false;
    let Some(mut step) = finished else {
        // The thread is gone with the step (it panicked): the crowd starts afresh.
        scratch.thread = None;
        scratch.places.clear();
        return;
    };
    write_back(&mut step, &mut agents, (nav.as_deref(), &mut stats));
    scratch.step = step;
}

/// Whether an agent moved to `moved` would stand in a cell that `walls` blocks, where the
/// crowd stepped in an open box (`open`: isometric and hexagonal cells, [`GridSpace::open`]).
fn enters_a_wall(open: bool, (nav, walls): (Option<&NavGrid>, &Grid), moved: Vec3) -> bool {
    let cell = nav.and_then(|nav| nav.world_to_cell(moved.truncate()));
    open && !cell.is_some_and(|cell| walls.is_walkable(cell))
}

/// How far around its cell an agent standing on a cell `walls` blocks looks for open ground.
const OPEN_GROUND_REACH: u32 = 3;

/// `from` moved up to `reach` towards the centre of the cell it stands in when `walls` lets it
/// stand there (a cell is convex: the way stays in it), else towards the nearest centre of a
/// cell `walls` lets it enter, within [`OPEN_GROUND_REACH`] cells (a wall raised under it).
fn toward_open_ground((nav, walls): (&NavGrid, &Grid), from: Vec3, reach: f32) -> Vec3 {
    let at = from.truncate();
    let Some(cell) = nav.world_to_cell(at) else {
        return from;
    };
    let target = if walls.is_walkable(cell) {
        Some(nav.cell_center(cell))
    } else {
        let span = |value: u32| value.saturating_sub(OPEN_GROUND_REACH)..=value + OPEN_GROUND_REACH;
        span(cell.y)
            .flat_map(|y| span(cell.x).map(move |x| Cell::new(x, y)))
            .filter(|&near| walls.is_walkable(near))
            .map(|near| nav.cell_center(near))
            .min_by(|a, b| a.distance_squared(at).total_cmp(&b.distance_squared(at)))
    };
    target.map_or(from, |target| {
        from + (target - at).clamp_length_max(reach).extend(0.0)
    })
}

/// Writes a finished step back to the agents still on the paths they were gathered on:
/// positions (unless the game moved an agent since it was gathered), velocities, and each
/// follower's walk; then acts on what the step reported of each ([`act_on_event`]).
fn write_back(
    step: &mut CrowdStep,
    agents: &mut Query<MovedAgent>,
    (nav, stats): (Option<&NavGrid>, &mut PathfindingStats),
) {
    let space = step.space;
    stats.crowd_routes_read_off_trees += core::mem::take(&mut step.routes_read);
    for crowd in &mut step.crowds {
        let core = &crowd.core;
        let members = crowd.members.iter_mut().zip(&crowd.routes);
        for (index, (member, route)) in members.enumerate() {
            let Ok(mut item) = agents.get_mut(member.entity) else {
                continue;
            };
            let agent = &core.agents()[index];
            if item.transform.translation == member.translation {
                let moved = space.world(agent.position).extend(member.translation.z);
                if enters_a_wall(step.open_walls.is_some(), (nav, &crowd.walls), moved) {
                    // Towards open ground instead, as far as it would have gone; the next
                    // gathering reads the position again.
                    let from = item.transform.translation;
                    item.transform.translation = nav.map_or(from, |nav| {
                        toward_open_ground((nav, &crowd.walls), from, moved.distance(from))
                    });
                    member.translation = Vec3::NAN;
                } else {
                    item.transform.translation = moved;
                    member.translation = moved;
                }
            }
            item.velocity.set_if_neq(CrowdVelocity {
                desired: space.world_velocity(agent.preferred_velocity),
                actual: space.world_velocity(agent.velocity),
            });
            // A path given since the gathering is walked from the next one.
            if item.path.revision != member.revision {
                continue;
            }
            let walker = &core.walkers()[index];
            let (next, finished) = (walker.next_waypoint(), walker.is_finished());
            if item.follower.next_waypoint() != next
                || item.follower.is_finished() != finished
                || route.reread
            {
                item.follower.walk_as(next, finished, &route.waypoints);
            }
        }
        for &(index, event) in core.events() {
            let member = &crowd.members[index];
            if let Ok(mut item) = agents.get_mut(member.entity)
                && item.path.revision == member.revision
            {
                // Where the agent stands: the crowd's own position, or in the open box of a
                // map that is not square, where writing it back may have been refused, the
                // agent's.
                let at = if step.open_walls.is_some() {
                    item.transform.translation.truncate()
                } else {
                    space.world(core.agents()[index].position)
                };
                act_on_event(event, (&mut item.request, at), nav, stats);
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
    fn a_crowd_keeps_the_bounds_of_its_walls_changes_and_too_many_count_as_the_whole_map() {
        let blocked = |x: u32| {
            NavChange::from_cells([crate::NavCellChange {
                cell: Cell::new(x, 3),
                before: 1,
                after: 0,
            }])
        };
        let mut changes = WallChanges::default();
        changes.note(&blocked(2));
        changes.note(&blocked(7));
        assert_eq!(
            changes.bounds,
            [
                (Cell::new(2, 3), Cell::new(2, 3)),
                (Cell::new(7, 3), Cell::new(7, 3))
            ]
        );
        assert!(!changes.whole_map);
        changes.note(&NavChange::whole_map());
        assert!(changes.whole_map);
        let mut many = WallChanges::default();
        (0..=MOST_CHANGES_KEPT as u32).for_each(|x| many.note(&blocked(x)));
        assert!(many.whole_map && many.bounds.len() == MOST_CHANGES_KEPT);
    }

    /// An app with one avoider walking east across an open map, its crowd stepped beside the
    /// frame on a "thread" the test plays: the steps sent to it, and the way to send them back.
    fn app_with_a_played_thread() -> (
        App,
        Entity,
        mpsc::Receiver<CrowdStep>,
        mpsc::Sender<CrowdStep>,
    ) {
        use bevy::time::TimeUpdateStrategy;
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            crate::AStarPlugin::default(),
            crate::PathFollowPlugin,
            CrowdPlugin,
        ))
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            core::time::Duration::from_millis(16),
        ))
        .insert_resource(NavGrid::new(Grid::new(40, 5)));
        let start = Cell::new(1, 2);
        let at = app
            .world()
            .resource::<NavGrid>()
            .cell_center(start)
            .extend(0.0);
        let agent = app
            .world_mut()
            .spawn((
                PathRequest::new(start, Cell::new(38, 2)),
                PathFollower::new(4.0),
                CrowdAvoidance::default(),
                Transform::from_translation(at),
            ))
            .id();
        let (steps, to_run) = mpsc::channel();
        let (finished, done) = mpsc::channel();
        app.world_mut().resource_mut::<CrowdScratch>().thread = Some(CrowdThread {
            steps,
            done: Mutex::new(done),
        });
        (app, agent, to_run, finished)
    }

    #[test]
    fn a_step_not_done_runs_on_beside_one_frame_and_the_next_step_moves_by_both_frames() {
        if !cfg!(feature = "multi_threaded") {
            return;
        }
        let (mut app, agent, to_run, finished) = app_with_a_played_thread();
        let x = |app: &App| app.world().get::<Transform>(agent).map(|t| t.translation.x);
        // Until the path comes, and one frame more, each step is played back at once.
        let mut frames = 0;
        while app
            .world()
            .get::<PathFollower>(agent)
            .is_some_and(PathFollower::is_finished)
            || frames < 3
        {
            app.update();
            let step = to_run.recv().expect("a step sent");
            finished.send(step.run()).expect("the app listens");
            frames += 1;
            assert!(frames < 100, "no path");
        }
        app.update();
        let sent = to_run.recv().expect("a step sent");
        assert!((sent.time_step - 0.016).abs() < 1e-6);
        // Not played back: the next frame does not wait for it; nobody moves, and no step
        // is sent.
        let before = x(&app);
        app.update();
        assert_eq!(x(&app), before);
        assert!(to_run.try_recv().is_err());
        // Played back now: the next frame writes it back, and the step it sends moves the
        // agents by the frame that let it run on too.
        finished.send(sent.run()).expect("the app listens");
        app.update();
        assert!(x(&app) > before);
        let next = to_run.recv().expect("a step sent");
        assert!((next.time_step - 0.032).abs() < 1e-6, "{}", next.time_step);
        // Not played back for two frames: the second one waits for it (played back from
        // another thread meanwhile).
        app.update();
        let player = std::thread::spawn(move || {
            std::thread::sleep(core::time::Duration::from_millis(50));
            finished.send(next.run()).is_ok()
        });
        let before = x(&app);
        app.update();
        assert!(
            x(&app) > before,
            "the frame after a run-on waits for the step"
        );
        assert!(player.join().unwrap_or(false));
    }

    #[test]
    fn the_step_threads_run_every_job_once() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let runs: Vec<AtomicU32> = (0..37).map(|_| AtomicU32::new(0)).collect();
        let jobs = runs
            .iter()
            .map(|count| {
                Box::new(move || {
                    count.fetch_add(1, Ordering::Relaxed);
                }) as Box<dyn FnOnce() + Send + '_>
            })
            .collect();
        StepThreads.run_all(jobs);
        assert!(runs.iter().all(|count| count.load(Ordering::Relaxed) == 1));
    }
}
