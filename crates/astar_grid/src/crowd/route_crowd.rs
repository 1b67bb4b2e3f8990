//! [`RouteCrowd`]: a crowd of agents that follow routes, kept dense from step to step; each
//! step steers, plans, moves and judges every agent, and reports the agents that arrived, are
//! stuck, or were put back on legal ground.

use super::orca::{PlanningContext, VelocityPlanner};
use super::progress::{GIVE_WAY_SHARE, HeldUp};
use super::route::{RouteTarget, RouteWalker, Walls};
use super::route_progress::{ProgressVerdict, RouteProgress};
use super::{
    AvoidanceSettings, CrowdAgent, Neighbour, NeighbourGrid, Vector, disc_fits, move_agents,
    nearest_legal_position,
};
use crate::{Cell, Grid};

/// Runs the independent jobs of a crowd step (chunks of agents to steer or to plan), one
/// after another or over threads. [`InOrder`] runs them on the calling thread; a game engine
/// hands them to its task pool.
///
/// ```
/// use astar_grid::crowd::{ChunkRunner, InOrder};
///
/// let mut counts = [0_u32; 3];
/// let jobs: Vec<Box<dyn FnOnce() + Send + '_>> = counts
///     .iter_mut()
///     .map(|count| Box::new(move || *count += 1) as Box<dyn FnOnce() + Send + '_>)
///     .collect();
/// InOrder.run_all(jobs);
/// assert_eq!(counts, [1, 1, 1]);
/// ```
pub trait ChunkRunner {
    /// Runs every job, and returns once all are done.
    fn run_all<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>);
}

/// Runs a step's jobs one after another, on the calling thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrder;

impl ChunkRunner for InOrder {
    fn run_all<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>) {
        for job in jobs {
            job();
        }
    }
}

/// What a step of a [`RouteCrowd`] reports of an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteEvent {
    /// Its ground was blocked under it: it was put back on the nearest legal ground.
    PushedOut,
    /// Held up beside its goal, which others stand on: its walk is finished there.
    Arrived,
    /// Held up with nobody ahead going its way (a dead end, a knot, agents coming the other
    /// way that do not give way): search it a new route from where it stands.
    Stuck,
}

/// How far, in cells, an agent whose ground was blocked under it is looked for a place to
/// stand.
pub const PUSH_OUT_DISTANCE: f32 = 16.0;

/// The velocity an agent was last planned, and how many steps ago.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Plan {
    velocity: Vector,
    /// Steps since it was planned; `None` before its first plan.
    age: Option<u32>,
}

/// A crowd of agents following routes, kept dense (position, velocity and radius of every
/// agent in one array) from step to step: the whole of the crowd rules, which a game engine
/// only feeds and reads.
///
/// Each [`RouteCrowd::step`]:
/// 1. **steers** every agent ([`RouteWalker::steer`]): puts back on legal ground one whose
///    ground was blocked under it, passes the waypoints it is done with and sets its preferred
///    velocity, or the way aside while it steps out of a knot ([`RouteProgress::knot`]);
/// 2. **plans** with ORCA the agents due: one in [`RouteCrowd::planning_interval`] each step,
///    the others keeping their last plan, which was made for that many steps;
/// 3. **moves** every agent within the walls ([`move_agents`]);
/// 4. **judges** each agent's progress along its route ([`RouteProgress::judge`]): held up
///    beside its goal it has arrived; otherwise the knot rules say whether it queues or is
///    stuck ([`super::AgentProgress::judge_held_up`]), and the step reports it
///    ([`RouteCrowd::events`]). The agents that have arrived near a held-up one step away from
///    it for [`GIVE_WAY_SHARE`] of the patience ([`super::AgentProgress::step_aside`]): arrived,
///    an agent leaves the way.
///
/// Steering and planning run in chunks of [`RouteCrowd::agents_per_chunk`] agents, by the
/// [`ChunkRunner`] given to [`RouteCrowd::step_with`].
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{AvoidanceSettings, CrowdAgent, Route, RouteCrowd, RouteWalker, Vector};
///
/// // Two agents swap ends of a corridor three cells wide.
/// let grid = Grid::new(12, 3);
/// let (west, east) = (Vector::new(1.5, 1.5), Vector::new(10.5, 1.5));
/// let mut crowd = RouteCrowd::new(AvoidanceSettings::default());
/// for (from, to) in [(west, east), (east, west)] {
///     let walker = RouteWalker::new(Route::new(vec![from, to], true), true);
///     crowd.push(CrowdAgent::new(from, 0.35, 3.0), walker);
/// }
/// for _ in 0..300 {
///     crowd.step(&grid, 1.0 / 60.0);
/// }
/// assert!(crowd.walkers().iter().all(RouteWalker::is_finished));
/// assert!((crowd.agents()[0].position - east).length() < 0.1);
/// ```
#[derive(Clone, Debug)]
pub struct RouteCrowd {
    /// How agents avoid each other and the walls, and when they count as held up.
    pub settings: AvoidanceSettings,
    /// Steps from one plan of an agent's velocity to the next (1 plans every agent every
    /// step). Default 2.
    pub planning_interval: u32,
    /// Agents steered or planned per job of the [`ChunkRunner`]. Default 512.
    pub agents_per_chunk: usize,
    agents: Vec<CrowdAgent>,
    walkers: Vec<RouteWalker>,
    progress: Vec<RouteProgress>,
    plans: Vec<Plan>,
    /// Per step: the waypoint each agent heads for, whether it is planned, the velocity it
    /// moves at, and whether it was put back on legal ground.
    targets: Vec<Option<RouteTarget>>,
    due: Vec<bool>,
    velocities: Vec<Vector>,
    pushed_out: Vec<bool>,
    events: Vec<(usize, RouteEvent)>,
    neighbours: NeighbourGrid,
    planners: Vec<VelocityPlanner>,
    found: Vec<Neighbour>,
    /// Numbers the walls: lines of sight drawn by other walls are drawn again.
    walls_epoch: u64,
    steps: u64,
}

impl Default for RouteCrowd {
    fn default() -> Self {
        Self::new(AvoidanceSettings::default())
    }
}

impl RouteCrowd {
    /// An empty crowd with these settings.
    #[must_use]
    pub fn new(settings: AvoidanceSettings) -> Self {
        Self {
            settings,
            planning_interval: 2,
            agents_per_chunk: 512,
            agents: Vec::new(),
            walkers: Vec::new(),
            progress: Vec::new(),
            plans: Vec::new(),
            targets: Vec::new(),
            due: Vec::new(),
            velocities: Vec::new(),
            pushed_out: Vec::new(),
            events: Vec::new(),
            neighbours: NeighbourGrid::new(),
            planners: Vec::new(),
            found: Vec::new(),
            walls_epoch: 0,
            steps: 0,
        }
    }

    /// Adds `agent`, walking with `walker`; returns its index.
    pub fn push(&mut self, agent: CrowdAgent, walker: RouteWalker) -> usize {
        self.agents.push(agent);
        self.walkers.push(walker);
        self.progress.push(RouteProgress::default());
        self.plans.push(Plan::default());
        self.agents.len() - 1
    }

    /// Removes agent `index`, moving the last agent into its place, as [`Vec::swap_remove`]
    /// does; an index beyond the agents changes nothing. Events of the last step keep naming
    /// the same agents.
    pub fn swap_remove(&mut self, index: usize) {
        if index >= self.agents.len() {
            return;
        }
        let last = self.agents.len() - 1;
        self.agents.swap_remove(index);
        self.walkers.swap_remove(index);
        self.progress.swap_remove(index);
        self.plans.swap_remove(index);
        self.events.retain(|&(agent, _)| agent != index);
        for (agent, _) in &mut self.events {
            if *agent == last {
                *agent = index;
            }
        }
    }

    /// Removes every agent.
    pub fn clear(&mut self) {
        self.agents.clear();
        self.walkers.clear();
        self.progress.clear();
        self.plans.clear();
        self.events.clear();
    }

    /// The number of agents.
    #[must_use]
    pub fn len(&self) -> usize {
        self.agents.len()
    }

    /// Whether the crowd has no agents.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The agents, by index.
    #[must_use]
    pub fn agents(&self) -> &[CrowdAgent] {
        &self.agents
    }

    /// The agents, to move one the game put elsewhere or change its speed, radius or priority.
    pub fn agents_mut(&mut self) -> &mut [CrowdAgent] {
        &mut self.agents
    }

    /// Each agent's walk along its route.
    #[must_use]
    pub fn walkers(&self) -> &[RouteWalker] {
        &self.walkers
    }

    /// Each agent's walk, to give it a new route ([`RouteWalker::set_route`]).
    pub fn walkers_mut(&mut self) -> &mut [RouteWalker] {
        &mut self.walkers
    }

    /// Each agent's progress along its route.
    #[must_use]
    pub fn progress(&self) -> &[RouteProgress] {
        &self.progress
    }

    /// What the last step reported, by agent index, in order of index.
    #[must_use]
    pub fn events(&self) -> &[(usize, RouteEvent)] {
        &self.events
    }

    /// The waypoint each agent headed for in the last step; `None` for one that had finished.
    #[must_use]
    pub fn targets(&self) -> &[Option<RouteTarget>] {
        &self.targets
    }

    /// Whether each agent was planned in the last step.
    #[must_use]
    pub fn planned(&self) -> &[bool] {
        &self.due
    }

    /// The neighbour grid of the last step.
    #[must_use]
    pub fn neighbours(&self) -> &NeighbourGrid {
        &self.neighbours
    }

    /// Says that the walls changed since the last step: the lines of sight the agents drew are
    /// drawn again. Call it after editing the grid passed to [`RouteCrowd::step`], or
    /// [`RouteCrowd::walls_changed_within`] when the edit's bounds are known.
    pub fn walls_changed(&mut self) {
        self.walls_epoch += 1;
    }

    /// Says that the walls changed since the last step, but only from cell `min` to cell `max`
    /// (inclusive): only the agents whose lines of sight may cross the change draw them again
    /// ([`RouteWalker::forget_sight_within`]); a tower dropped on a crowd of thousands makes the
    /// few near it look again, not all. Returns how many forgot theirs.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid};
    /// use astar_grid::crowd::{CrowdAgent, Route, RouteCrowd, RouteWalker, Vector};
    ///
    /// let mut grid = Grid::new(40, 4);
    /// let mut crowd = RouteCrowd::default();
    /// for x in [1.5, 30.5] {
    ///     let route = Route::new(vec![Vector::new(x, 1.5), Vector::new(x + 6.0, 1.5)], true);
    ///     crowd.push(CrowdAgent::new(Vector::new(x, 1.5), 0.35, 2.0), RouteWalker::new(route, true));
    /// }
    /// crowd.step(&grid, 0.1);
    /// grid.set_blocked(Cell::new(5, 2), true)?;
    /// // Only the agent walking past the new wall looks again.
    /// assert_eq!(crowd.walls_changed_within(Cell::new(5, 2), Cell::new(5, 2)), 1);
    /// # Ok::<(), astar_grid::GridError>(())
    /// ```
    pub fn walls_changed_within(&mut self, min: Cell, max: Cell) -> usize {
        let agents = self.agents.iter();
        self.walkers
            .iter_mut()
            .zip(agents)
            .map(|(walker, agent)| {
                walker.forget_sight_within((min, max), (agent.position, agent.radius))
            })
            .filter(|forgot| *forgot)
            .count()
    }

    /// Advances the crowd by `time_step` seconds within the walls of `grid` (blocked cells and
    /// everything outside), on the calling thread. A time step that is not positive and
    /// finite changes nothing.
    pub fn step(&mut self, grid: &Grid, time_step: f32) {
        self.step_with(grid, time_step, &InOrder);
    }

    /// [`RouteCrowd::step`], with the chunks of steering and planning run by `runner`.
    pub fn step_with(&mut self, grid: &Grid, time_step: f32, runner: &impl ChunkRunner) {
        self.events.clear();
        if !(time_step > 0.0 && time_step.is_finite()) {
            return;
        }
        self.steps += 1;
        let interval = self.planning_interval.max(1);
        let count = self.agents.len();
        self.targets.clear();
        self.targets.resize(count, None);
        self.pushed_out.clear();
        self.pushed_out.resize(count, false);
        self.mark_due(interval);
        let walls = Walls {
            grid,
            epoch: self.walls_epoch,
        };
        self.steer_all(walls, time_step * interval as f32, runner);
        self.plan_due(grid, time_step * interval as f32, runner);
        move_agents(&mut self.agents, &self.velocities, grid, time_step);
        self.judge_all(time_step);
    }

    /// Marks the agents planned this step: one in `interval` (by index), and any whose last
    /// plan is `interval` steps old or that has none; the others' velocities are their last
    /// plans'.
    fn mark_due(&mut self, interval: u32) {
        let steps = self.steps;
        self.due.clear();
        self.velocities.clear();
        for (index, plan) in self.plans.iter_mut().enumerate() {
            let turn = (index as u64 + steps).is_multiple_of(u64::from(interval));
            let due = plan.age.is_none_or(|age| age + 1 >= interval) || turn;
            plan.age = if due {
                Some(0)
            } else {
                plan.age.map(|age| age + 1)
            };
            self.due.push(due);
            self.velocities.push(plan.velocity);
        }
    }

    /// Steers every agent (see [`RouteCrowd`]), in chunks; `plan_step` is the time its plan is
    /// made for.
    fn steer_all(&mut self, walls: Walls<'_>, plan_step: f32, runner: &impl ChunkRunner) {
        let per_chunk = self.agents_per_chunk.max(1);
        let one_chunk = self.agents.len() <= per_chunk;
        let chunks = self
            .agents
            .chunks_mut(per_chunk)
            .zip(self.walkers.chunks_mut(per_chunk))
            .zip(self.targets.chunks_mut(per_chunk))
            .zip(self.pushed_out.chunks_mut(per_chunk))
            .zip(self.progress.chunks(per_chunk));
        if one_chunk {
            for chunk in chunks {
                steer_chunk(chunk, walls, plan_step);
            }
            return;
        }
        let jobs = chunks
            .map(|chunk| {
                Box::new(move || steer_chunk(chunk, walls, plan_step))
                    as Box<dyn FnOnce() + Send + '_>
            })
            .collect();
        runner.run_all(jobs);
    }

    /// Plans the velocities of the agents due, in chunks, for `plan_step` seconds.
    fn plan_due(&mut self, grid: &Grid, plan_step: f32, runner: &impl ChunkRunner) {
        self.neighbours
            .rebuild(&self.agents, self.settings.bucket_size());
        let per_chunk = self.agents_per_chunk.max(1);
        let chunks = self.agents.len().div_ceil(per_chunk).max(1);
        if self.planners.len() < chunks {
            self.planners.resize_with(chunks, VelocityPlanner::new);
        }
        let context = PlanningContext {
            agents: &self.agents,
            neighbours: &self.neighbours,
            grid,
            settings: &self.settings,
            time_step: plan_step,
        };
        let (due, context) = (&self.due[..], &context);
        let jobs = self
            .velocities
            .chunks_mut(per_chunk)
            .zip(self.planners.iter_mut())
            .zip(self.plans.chunks_mut(per_chunk))
            .enumerate()
            .map(|(chunk, ((out, planner), plans))| {
                let start = chunk * per_chunk;
                let due = &due[start..start + out.len()];
                move || plan_chunk(planner, context, (start, due), (out, plans))
            });
        if chunks == 1 {
            jobs.for_each(|mut job| job());
        } else {
            let jobs = jobs
                .map(|job| Box::new(job) as Box<dyn FnOnce() + Send + '_>)
                .collect();
            runner.run_all(jobs);
        }
    }

    /// Judges each agent's progress after a step of `time_step` seconds, and lists what the
    /// step reports (see [`RouteCrowd`]).
    fn judge_all(&mut self, time_step: f32) {
        let settings = self.settings.progress;
        for index in 0..self.agents.len() {
            if self.pushed_out[index] {
                self.events.push((index, RouteEvent::PushedOut));
            }
            let progress = &mut self.progress[index];
            // Stepping aside, it is not judged until it is done.
            if progress.knot.count_down(time_step) {
                continue;
            }
            let Some(target) = self.targets[index] else {
                continue;
            };
            let agent = &self.agents[index];
            let distance = (target.point - agent.position).length();
            match progress.judge(target, (distance, agent.radius), time_step, &settings) {
                ProgressVerdict::Moving => {}
                ProgressVerdict::Arrived => {
                    self.walkers[index].finish();
                    self.events.push((index, RouteEvent::Arrived));
                }
                ProgressVerdict::HeldUp { seen } => {
                    let knot = (&self.agents[..], &self.neighbours);
                    let held =
                        progress
                            .knot
                            .judge_held_up(knot, index, seen, &settings, &mut self.found);
                    if held == HeldUp::Stuck {
                        self.events.push((index, RouteEvent::Stuck));
                    }
                    self.clear_the_way_for(index, settings.stuck_after * GIVE_WAY_SHARE);
                }
            }
        }
    }

    /// Makes the agents that have arrived near agent `index`, which is held up (those the knot
    /// rules just found near it), step away from it for `seconds`: standing on beside their
    /// goals, they would keep it from a door or a corridor for ever, since ORCA gives an agent
    /// that stands still no reason to move for one that stands still too.
    fn clear_the_way_for(&mut self, index: usize, seconds: f32) {
        let held = self.agents[index];
        for &Neighbour { index: other, .. } in &self.found {
            let progress = &mut self.progress[other].knot;
            if !self.walkers[other].is_finished() || progress.is_giving_way() {
                continue;
            }
            let away = (self.agents[other].position - held.position).normalize_or_zero();
            let way = if away == Vector::ZERO {
                let heading = held.preferred_velocity.normalize_or_zero();
                Vector::new(-heading.y, heading.x)
            } else {
                away
            };
            progress.step_aside(way, seconds);
        }
    }
}

/// One chunk of the agents, as steering reads and writes it.
type SteeredChunk<'a> = (
    (
        (
            (&'a mut [CrowdAgent], &'a mut [RouteWalker]),
            &'a mut [Option<RouteTarget>],
        ),
        &'a mut [bool],
    ),
    &'a [RouteProgress],
);

/// Steers each agent of a chunk: puts one whose ground was blocked under it back on the
/// nearest legal ground, then steers it along its route ([`RouteWalker::steer`]); one
/// stepping aside from a knot prefers to step slowly out of the way.
fn steer_chunk(
    ((((agents, walkers), targets), pushed_out), progress): SteeredChunk<'_>,
    walls: Walls<'_>,
    plan_step: f32,
) {
    let agents = agents.iter_mut().zip(walkers).zip(targets);
    for (((agent, walker), target), (pushed_out, progress)) in
        agents.zip(pushed_out.iter_mut().zip(progress))
    {
        if !disc_fits(walls.grid, agent.position, agent.radius) {
            let legal =
                nearest_legal_position(walls.grid, agent.position, agent.radius, PUSH_OUT_DISTANCE);
            if let Some(legal) = legal {
                agent.position = legal;
                *pushed_out = true;
            }
        }
        *target = walker.steer(agent, walls, plan_step);
        if let Some(aside) = progress.knot.aside_velocity(agent.max_speed) {
            agent.preferred_velocity = aside;
        }
    }
}

/// Plans into `out` the velocities of the due agents of a chunk starting at agent `start`,
/// recording each plan; the others keep their held velocities.
fn plan_chunk(
    planner: &mut VelocityPlanner,
    context: &PlanningContext<'_>,
    (start, due): (usize, &[bool]),
    (out, plans): (&mut [Vector], &mut [Plan]),
) {
    for (offset, ((slot, plan), _)) in out
        .iter_mut()
        .zip(plans)
        .zip(due)
        .enumerate()
        .filter(|(_, (_, due))| **due)
    {
        *slot = planner.plan_velocity(context, start + offset);
        plan.velocity = *slot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::Route;

    #[test]
    fn one_agent_in_each_interval_is_planned_each_step_and_none_waits_longer() {
        for interval in 1..=4 {
            let mut crowd = RouteCrowd::new(AvoidanceSettings::default());
            crowd.planning_interval = interval;
            for _ in 0..12 {
                crowd.push(CrowdAgent::default(), RouteWalker::default());
            }
            let mut waited = [0_u32; 12];
            for step in 1..=40 {
                crowd.steps += 1;
                crowd.mark_due(interval);
                for (waited, &due) in waited.iter_mut().zip(&crowd.due) {
                    *waited = if due { 0 } else { *waited + 1 };
                    assert!(*waited < interval, "{interval}: {step}");
                }
                let planned = crowd.due.iter().filter(|due| **due).count();
                // The first step plans everyone; later ones one agent in `interval`.
                if step > 1 {
                    assert_eq!(planned, 12 / interval as usize, "{interval}: {step}");
                }
            }
        }
    }

    #[test]
    fn an_agent_whose_ground_is_blocked_is_pushed_out_and_reported() {
        let mut grid = Grid::new(6, 3);
        let mut crowd = RouteCrowd::default();
        let at = Vector::new(2.5, 1.5);
        let route = Route::new(vec![at, Vector::new(5.5, 1.5)], true);
        crowd.push(
            CrowdAgent::new(at, 0.35, 2.0),
            RouteWalker::new(route, true),
        );
        crowd.step(&grid, 0.1);
        assert!(crowd.events().is_empty());
        grid.set_blocked(Cell::new(2, 1), true)
            .expect("a cell of the grid");
        crowd.walls_changed();
        crowd.step(&grid, 0.1);
        assert_eq!(crowd.events(), [(0, RouteEvent::PushedOut)]);
        assert!(disc_fits(&grid, crowd.agents()[0].position, 0.35));
    }

    #[test]
    fn removing_an_agent_keeps_the_events_naming_the_same_agents() {
        let mut crowd = RouteCrowd::default();
        for _ in 0..4 {
            crowd.push(CrowdAgent::default(), RouteWalker::default());
        }
        crowd.events = vec![(1, RouteEvent::Stuck), (3, RouteEvent::Arrived)];
        crowd.swap_remove(1);
        assert_eq!(crowd.events(), [(1, RouteEvent::Arrived)]);
        assert_eq!(crowd.len(), 3);
    }
}
