//! The core's route-following crowd ([`RouteCrowd`]) driven as a game without an engine drives
//! it: every agent follows a route from the core's A* search, smoothed, and an agent reported
//! [`RouteEvent::Stuck`] gets a new route from the cell it stands on. Random crossings and rooms
//! joined by a corridor keep every disc off the walls and off the others and finish every walk
//! within a bound derived from the scene; removing agents keeps the others' walks, progress,
//! positions and events; a cell blocked under an agent pushes it out, and it still finishes;
//! every planning interval finishes a crossing.

use std::fmt;

pub mod common;

use astar_grid::crowd::{
    CrowdAgent, PUSH_OUT_DISTANCE, Route, RouteCrowd, RouteEvent, RouteProgress, RouteWalker,
    Vector, arrival_reach, disc_fits, footprint_radius,
};
use astar_grid::{
    Cell, Grid, Movement, SearchOptions, Searcher, SmoothingOptions, smooth_path_cells,
};
use common::crowd_scenes::{
    CrowdScene as Scene, RawAgent, SceneAgent as Member, corridor_from, distinct_cells, raw_agent,
    walkable_cells,
};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// The time step of every run: 60 steps a second.
const STEP: f32 = 1.0 / 60.0;

/// The deepest two discs may sink into each other at any one moment, as a share of the smaller
/// radius: `(r1 + r2 - distance) / r`. The tolerance of `tests/crowd_flow.rs`: ORCA keeps discs
/// apart only while its linear program is feasible, and in a press it takes the velocity of
/// the least violation, so two discs may sink into each other a little for a moment; a quarter
/// of the radius (0.09 cells for a one-cell footprint) is such a passing overlap, anything
/// deeper is agents walking through each other.
const OVERLAP_TOLERANCE: f32 = 0.25;

/// How much smaller than its own a disc is checked against the walls, in cells: the mover
/// keeps discs a [`astar_grid::crowd::WALL_SKIN`] off the walls and a disc put back on legal
/// ground may touch them, so this only absorbs the rounding of a position.
const WALL_SLACK: f32 = 1e-4;

/// Seconds a scene's bound allows for knots, as in `tests/crowd_flow.rs`: a held-up agent waits
/// the patience of 3 s (half a second when out of sight of its waypoint) before it is stuck,
/// and the last of a knot then steps aside for a third of the patience, twice as long each time
/// it is stuck again, up to eight times; a stuck agent's new route costs it that wait too. A
/// few knots in a row cost up to a minute.
const KNOT_ALLOWANCE: f32 = 60.0;

/// How far, at most, the step after cells are blocked moves an agent that stood on one or
/// overlapped one, less its own move. Every point of a blocked cell whose 4-neighbours on two
/// opposite sides are free lies within `sqrt(1 + 0.5^2)` of the nearer one's centre (a cell
/// across at most, and half a cell along their shared side), and a one-cell disc fits at the
/// centre of any free cell; an agent only overlapping a blocked cell stands in a free cell,
/// whose centre is within `sqrt(0.5)` of it. The nearest legal position is no farther.
const PUSH_REACH: f32 = 1.118_034;

/// The centre of `cell` in grid space.
fn centre(cell: Cell) -> Vector {
    Vector::new(cell.x as f32 + 0.5, cell.y as f32 + 0.5)
}

/// The cell under `position`, a point of the grid (a disc that fits stands on one).
fn cell_under(position: Vector) -> Cell {
    Cell::new(position.x.floor() as u32, position.y.floor() as u32)
}

/// The route a game gives an agent from `from` to `to`: the core's A* path (eight directions,
/// no corner cutting), smoothed, its kept cells' centres as waypoints. Panics when the goal is
/// unreachable: the scenes keep every goal reachable.
fn route_between(searcher: &mut Searcher, grid: &Grid, from: Cell, to: Cell) -> Route {
    let options = SearchOptions::default().with_movement(Movement::EIGHT);
    let result = searcher
        .find_path(grid, from, to, &options)
        .unwrap_or_else(|error| panic!("no search from {from} to {to}: {error}"));
    let path = result
        .found()
        .unwrap_or_else(|| panic!("no path from {from} to {to}\n{}", grid.to_ascii()));
    let kept = smooth_path_cells(
        grid,
        &path.cells,
        Movement::EIGHT,
        SmoothingOptions::default(),
    )
    .expect("the search's path smooths");
    Route::new(kept.into_iter().map(centre).collect::<Vec<_>>(), true)
}

/// The length of `route`, in cells: the sum of its legs.
fn route_length(route: &Route) -> f32 {
    route
        .waypoints()
        .windows(2)
        .map(|leg| (leg[1] - leg[0]).length())
        .sum()
}

/// A game without an engine: the crowd, each agent's member id and goal by index (kept beside
/// the crowd's own arrays, and removed with them), a searcher, and what it took.
struct Game {
    /// The crowd under test.
    crowd: RouteCrowd,
    /// By index: the member the agent is.
    ids: Vec<usize>,
    /// By index: the cell its routes end at.
    goals: Vec<Cell>,
    /// Searches every route.
    searcher: Searcher,
    /// By member id: seconds its first route takes at its speed, nobody in the way.
    walk_times: Vec<f32>,
    /// By member id: how many new routes it got on being stuck.
    reroutes: Vec<u32>,
    /// Seconds run so far.
    time: f32,
}

impl Game {
    /// Every member of `scene` in a crowd planning one agent in `planning_interval` each step,
    /// each a one-cell agent ([`footprint_radius`]`(1)`) walking its route from the search.
    fn new(scene: &Scene, planning_interval: u32) -> Self {
        let mut game = Self {
            crowd: RouteCrowd::default(),
            ids: Vec::new(),
            goals: Vec::new(),
            searcher: Searcher::new(),
            walk_times: Vec::new(),
            reroutes: vec![0; scene.agents.len()],
            time: 0.0,
        };
        game.crowd.planning_interval = planning_interval;
        for (id, member) in scene.agents.iter().enumerate() {
            let route = route_between(&mut game.searcher, &scene.grid, member.start, member.goal);
            game.walk_times.push(route_length(&route) / member.speed);
            let mut agent =
                CrowdAgent::new(centre(member.start), footprint_radius(1), member.speed);
            agent.priority = member.priority;
            game.crowd.push(agent, RouteWalker::new(route, true));
            game.ids.push(id);
            game.goals.push(member.goal);
        }
        game
    }

    /// The bound on the seconds a scene with a passage of length `passage` takes: twice the
    /// slowest walk (room to go round those in the way), plus, with a passage of length `L`,
    /// `n (L + 1) / v` for the `n` agents at the slowest speed `v` (in the worst order they
    /// take the passage one at a time, each entering it and clearing it by a body length, under
    /// a cell), plus [`KNOT_ALLOWANCE`]. This is the bound of `tests/crowd_flow.rs`, with walks
    /// measured along the routes the agents are given.
    fn bound(&self, passage: Option<u32>) -> f32 {
        let slowest_walk = self.walk_times.iter().copied().fold(0.0, f32::max);
        let agents = self.crowd.agents();
        let slowest_speed = agents.iter().map(|a| a.max_speed).fold(f32::MAX, f32::min);
        let queue = passage.map_or(0.0, |length| {
            agents.len() as f32 * (length as f32 + 1.0) / slowest_speed
        });
        2.0 * slowest_walk + queue + KNOT_ALLOWANCE
    }

    /// Gives every agent the last step reported stuck a new route from the cell it stands on
    /// to its goal, as a game does.
    fn reroute_stuck(&mut self, grid: &Grid) {
        let stuck: Vec<usize> = (self.crowd.events().iter())
            .filter(|(_, event)| *event == RouteEvent::Stuck)
            .map(|&(index, _)| index)
            .collect();
        for index in stuck {
            let from = cell_under(self.crowd.agents()[index].position);
            let route = route_between(&mut self.searcher, grid, from, self.goals[index]);
            self.crowd.walkers_mut()[index].set_route(route);
            self.reroutes[self.ids[index]] += 1;
        }
    }

    /// Removes agent `index` from the crowd and from the game's arrays alike.
    fn swap_remove(&mut self, index: usize) {
        self.crowd.swap_remove(index);
        self.ids.swap_remove(index);
        self.goals.swap_remove(index);
    }

    /// Whether every walk is finished.
    fn all_finished(&self) -> bool {
        self.crowd.walkers().iter().all(RouteWalker::is_finished)
    }

    /// The agents not yet finished: member id, position, next waypoint of how many, and new
    /// routes taken.
    fn unfinished(&self) -> Vec<(usize, Vector, (usize, usize), u32)> {
        let crowd = &self.crowd;
        (crowd.agents().iter().zip(crowd.walkers()).zip(&self.ids))
            .filter(|((_, walker), _)| !walker.is_finished())
            .map(|((agent, walker), &id)| {
                let route = (walker.next_waypoint(), walker.route().waypoints().len());
                (id, agent.position, route, self.reroutes[id])
            })
            .collect()
    }

    /// The agents whose walks are finished: member id and where each stands.
    fn standing(&self) -> Vec<(usize, Vector)> {
        let crowd = &self.crowd;
        (crowd.agents().iter().zip(crowd.walkers()).zip(&self.ids))
            .filter(|((_, walker), _)| walker.is_finished())
            .map(|((agent, _), &id)| (id, agent.position))
            .collect()
    }
}

/// What every step is checked against, and what the checks keep from step to step.
struct Watch {
    /// By member id: the second at which its walk first finished.
    finished_at: Vec<Option<f32>>,
    /// The agents (indices) the next step is to put back on legal ground: exactly these must
    /// be reported [`RouteEvent::PushedOut`] (none while the walls stay as they are).
    may_push: Vec<usize>,
    /// The deepest overlap of two discs seen, as a share of the smaller radius.
    worst_overlap: f32,
}

impl Watch {
    /// Nobody finished yet, of `members`.
    fn new(members: usize) -> Self {
        Self {
            finished_at: vec![None; members],
            may_push: Vec::new(),
            worst_overlap: 0.0,
        }
    }

    /// Checks the crowd of `game` after a step on `grid`, before the game acts on its events:
    /// the events name agents of the crowd in order of index, are pushes exactly of the agents
    /// expected ([`Watch::may_push`]), arrivals of agents whose walk is finished and stuck
    /// agents still walking; no disc overlaps a wall, no two discs sink into each other beyond
    /// [`OVERLAP_TOLERANCE`]; a walk finishes within [`arrival_reach`] of its goal and stays
    /// finished.
    fn check(&mut self, grid: &Grid, game: &Game) -> Result<(), String> {
        let time = game.time;
        let crowd = &game.crowd;
        let (agents, walkers, events) = (crowd.agents(), crowd.walkers(), crowd.events());
        if !events.windows(2).all(|pair| pair[0].0 <= pair[1].0) {
            return Err(format!("{time} s: events out of order: {events:?}"));
        }
        let mut pushed = Vec::new();
        for &(index, event) in events {
            let Some(walker) = walkers.get(index) else {
                return Err(format!("{time} s: an event of no agent: {events:?}"));
            };
            let wrong = match event {
                RouteEvent::PushedOut => {
                    pushed.push(index);
                    false
                }
                RouteEvent::Arrived => !walker.is_finished(),
                RouteEvent::Stuck => walker.is_finished(),
            };
            if wrong {
                let id = game.ids[index];
                return Err(format!(
                    "{time} s: {event:?} of agent {index} (member {id}), whose walk is finished: \
                     {}",
                    walker.is_finished()
                ));
            }
        }
        let expected = std::mem::take(&mut self.may_push);
        if pushed != expected {
            return Err(format!(
                "{time} s: pushed out {pushed:?}, expected {expected:?}"
            ));
        }
        for (index, agent) in agents.iter().enumerate() {
            let id = game.ids[index];
            if !disc_fits(grid, agent.position, agent.radius - WALL_SLACK) {
                return Err(format!(
                    "{time} s: member {id} at {:?} overlaps a wall",
                    agent.position
                ));
            }
            for (other_index, other) in agents.iter().enumerate().skip(index + 1) {
                let distance = (agent.position - other.position).length();
                let overlap =
                    (agent.radius + other.radius - distance) / agent.radius.min(other.radius);
                self.worst_overlap = self.worst_overlap.max(overlap);
                if overlap > OVERLAP_TOLERANCE {
                    let other_id = game.ids[other_index];
                    return Err(format!(
                        "{time} s: members {id} at {:?} and {other_id} at {:?} overlap by {overlap} \
                         of the radius",
                        agent.position, other.position
                    ));
                }
            }
            let finished = walkers[index].is_finished();
            match self.finished_at[id] {
                None if finished => {
                    let off = (agent.position - centre(game.goals[index])).length();
                    if off > arrival_reach(agent.radius) + 1e-3 {
                        return Err(format!(
                            "{time} s: member {id} finished its walk {off} cells from its goal"
                        ));
                    }
                    self.finished_at[id] = Some(time);
                }
                Some(at) if !finished => {
                    return Err(format!(
                        "{time} s: member {id}, finished at {at} s, walks again"
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// One step of a game at 60 Hz on `grid`: the crowd steps, `watch` checks it, and the stuck
/// agents get new routes.
fn step(game: &mut Game, grid: &Grid, watch: &mut Watch) -> Result<(), String> {
    game.crowd.step(grid, STEP);
    game.time += STEP;
    watch.check(grid, game)?;
    game.reroute_stuck(grid);
    Ok(())
}

/// Steps `game` on `grid` until every walk is finished, checking every step with `watch` and
/// then `extra`; fails when a check does, or when walks are left once `bound` seconds have run
/// in all. Returns the seconds it took.
fn run(
    game: &mut Game,
    grid: &Grid,
    (watch, bound): (&mut Watch, f32),
    mut extra: impl FnMut(&Game) -> Result<(), String>,
) -> Result<f32, String> {
    while !game.all_finished() {
        if game.time > bound {
            return Err(format!(
                "walks left after {} s, bound {bound} s (member, position, (next waypoint, \
                 waypoints), new routes): {:?}; finished (member, position): {:?}",
                game.time,
                game.unfinished(),
                game.standing()
            ));
        }
        step(game, grid, watch)?;
        extra(game)?;
    }
    Ok(game.time)
}

/// The value of `outcome`, or a panic naming `context` and the failure.
fn passed<T>(outcome: Result<T, String>, context: &impl fmt::Display) -> T {
    outcome.unwrap_or_else(|failure| panic!("{failure}\n{context}"))
}

/// The raw draw of a crossing: width and height, the blocks (fractions of the interior), the
/// headings of its groups (0 east, 1 west, 2 south, 3 north), the groups' agents, and whether
/// each group has its own priority.
type RawCrossing = (
    (u32, u32),
    Vec<(f32, f32)>,
    Vec<usize>,
    Vec<Vec<RawAgent>>,
    bool,
);

/// A crossing from `raw`: an open room with single blocks in its interior (two cells or more
/// from the edge, so the ring along the edge stays open and every edge cell reachable), and
/// groups crossing it from one side to the opposite one, starting on distinct cells of the
/// one edge (corners left out) and heading for distinct cells of the other.
fn crossing_from((shape, blocks, headings, groups, ranked): RawCrossing) -> Scene {
    let (width, height) = shape;
    let blocked: Vec<Cell> = (blocks.iter())
        .map(|&(x, y)| {
            let x = 2 + ((width - 4) as f32 * x) as u32;
            let y = 2 + ((height - 4) as f32 * y) as u32;
            Cell::new(x.min(width - 3), y.min(height - 3))
        })
        .collect();
    let grid = Grid::from_fn(width, height, |cell| u8::from(!blocked.contains(&cell)));
    let (east, south) = (width - 1, height - 1);
    let west_edge = walkable_cells(&grid, |c| c.x == 0 && c.y > 0 && c.y < south);
    let east_edge = walkable_cells(&grid, |c| c.x == east && c.y > 0 && c.y < south);
    let north_edge = walkable_cells(&grid, |c| c.y == 0 && c.x > 0 && c.x < east);
    let south_edge = walkable_cells(&grid, |c| c.y == south && c.x > 0 && c.x < east);
    let mut members = Vec::new();
    for (group, (&heading, raw)) in headings.iter().zip(&groups).enumerate() {
        let (from, to) = match heading {
            0 => (&west_edge, &east_edge),
            1 => (&east_edge, &west_edge),
            2 => (&north_edge, &south_edge),
            _ => (&south_edge, &north_edge),
        };
        let starts = distinct_cells(from, raw.iter().map(|r| r.0));
        let goals = distinct_cells(to, raw.iter().map(|r| r.1));
        let priority = if ranked { group as u32 } else { 0 };
        members.extend(
            (starts.into_iter().zip(goals).zip(raw)).map(|((start, goal), r)| Member {
                start,
                goal,
                speed: r.2,
                priority,
            }),
        );
    }
    Scene {
        grid,
        agents: members,
        passage: None,
    }
}

/// Crossings: a room of 10 to 16 by 8 to 12 cells with up to six blocks, two or three groups
/// of one to four agents crossing it from different sides.
fn crossing_scene() -> impl Strategy<Value = Scene> {
    let shape = (10u32..=16, 8u32..=12);
    let blocks = prop::collection::vec((0.0..1.0f32, 0.0..1.0f32), 0..=6);
    let headings = prop::sample::subsequence(vec![0_usize, 1, 2, 3], 2..=3);
    let groups = prop::collection::vec(prop::collection::vec(raw_agent(1.0), 1..=4), 3);
    (shape, blocks, headings, groups, any::<bool>()).prop_map(crossing_from)
}

/// Corridor scenes: rooms 4 to 6 cells wide and 4 to 8 high, a corridor 1 to 6 cells long and
/// 1 or 2 wide, 2 to 8 agents in one flow or both, the flows' priorities equal or not.
fn corridor_scene() -> impl Strategy<Value = Scene> {
    let shape = (4u32..=6, 4u32..=8, 1u32..=6, 1u32..=2, 0.0..1.0f32);
    let agents = prop::collection::vec(raw_agent(1.0), 2..=8);
    let priorities = prop_oneof![Just((0, 0)), Just((1, 0)), Just((0, 1))];
    (shape, agents, any::<bool>(), priorities)
        .prop_map(|(shape, raw, one, priorities)| corridor_from(shape, &raw, one, priorities))
}

proptest! {
    // A fixed seed: each run checks the same scenes, so a failure is not a matter of luck.
    #![proptest_config(ProptestConfig {
        cases: 48,
        rng_seed: RngSeed::Fixed(0x0072_6f75_7465),
        failure_persistence: None,
        // A failing scene runs to its bound, thousands of steps: a few shrinks show it.
        max_shrink_iters: 16,
        ..ProptestConfig::default()
    })]

    /// Random crossings and corridor scenes, every agent on a route from the search and given
    /// a new one whenever it is stuck: at every step no disc overlaps a wall, no two overlap
    /// beyond [`OVERLAP_TOLERANCE`], nobody is pushed out (the walls never change), and every
    /// walk finishes near its goal within [`Game::bound`].
    #[test]
    fn random_scenes_keep_apart_and_finish_every_walk(
        scene in prop_oneof![crossing_scene(), corridor_scene()],
    ) {
        let mut game = Game::new(&scene, 2);
        let bound = game.bound(scene.passage);
        let mut watch = Watch::new(scene.agents.len());
        let outcome = run(&mut game, &scene.grid, (&mut watch, bound), |_| Ok(()));
        prop_assert!(outcome.is_ok(), "{}\n{scene}", outcome.err().unwrap_or_default());
    }
}

/// The member at the centre of `start`, heading for `goal` at `speed`, of priority 0.
fn member(start: (u32, u32), goal: (u32, u32), speed: f32) -> Member {
    Member {
        start: start.into(),
        goal: goal.into(),
        speed,
        priority: 0,
    }
}

/// Everything a crowd keeps of its agents: their discs, walks and progress, by index.
type Snapshot = (Vec<CrowdAgent>, Vec<RouteWalker>, Vec<RouteProgress>);

/// What `crowd` keeps of its agents now.
fn snapshot(crowd: &RouteCrowd) -> Snapshot {
    (
        crowd.agents().to_vec(),
        crowd.walkers().to_vec(),
        crowd.progress().to_vec(),
    )
}

/// Removes agent `index` of `game` and checks that every other agent kept its disc, walk and
/// progress, moved index by index as [`Vec::swap_remove`] moves them, and that the events of
/// the last step name the same agents (the removed one's dropped).
fn remove_and_check(game: &mut Game, index: usize) -> Result<(), String> {
    let (mut agents, mut walkers, mut progress) = snapshot(&game.crowd);
    let events = game.crowd.events().to_vec();
    let mut ids = game.ids.clone();
    let last = agents.len() - 1;
    game.swap_remove(index);
    agents.swap_remove(index);
    walkers.swap_remove(index);
    progress.swap_remove(index);
    ids.swap_remove(index);
    let renamed: Vec<(usize, RouteEvent)> = (events.iter())
        .filter(|(agent, _)| *agent != index)
        .map(|&(agent, event)| (if agent == last { index } else { agent }, event))
        .collect();
    let after = snapshot(&game.crowd);
    let kept = [
        after.0 == agents,
        after.1 == walkers,
        after.2 == progress,
        game.ids == ids,
        game.crowd.events() == renamed,
    ];
    if kept.contains(&false) {
        return Err(format!(
            "removing agent {index}: agents, walks, progress, ids, events kept: {kept:?}; \
             events before {events:?}, after {:?}",
            game.crowd.events()
        ));
    }
    Ok(())
}

/// Compares the agents of `with` that `to_other` maps to an index of `other` with those
/// agents: discs, walks and progress must be equal to the bit, and the events of the last step
/// the same once renamed.
fn same_crowds(
    with: &Game,
    other: &Game,
    to_other: impl Fn(usize) -> Option<usize>,
) -> Result<(), String> {
    let (crowd, other_crowd) = (&with.crowd, &other.crowd);
    for index in 0..crowd.len() {
        let Some(mapped) = to_other(index) else {
            continue;
        };
        let same = [
            crowd.agents()[index] == other_crowd.agents()[mapped],
            crowd.walkers()[index] == other_crowd.walkers()[mapped],
            crowd.progress()[index] == other_crowd.progress()[mapped],
        ];
        if same.contains(&false) {
            return Err(format!(
                "{} s: agent {index} and its twin {mapped} (agents, walks, progress the same: \
                 {same:?}): {:?} and {:?}",
                with.time,
                crowd.agents()[index],
                other_crowd.agents()[mapped]
            ));
        }
    }
    let mut renamed: Vec<(usize, RouteEvent)> = (crowd.events().iter())
        .filter_map(|&(index, event)| to_other(index).map(|mapped| (mapped, event)))
        .collect();
    renamed.sort_by_key(|&(index, _)| index);
    if renamed != other_crowd.events() {
        return Err(format!(
            "{} s: events {renamed:?} (renamed) against {:?}",
            with.time,
            other_crowd.events()
        ));
    }
    Ok(())
}

/// Blocks `cells` of `grid` under the crowds of `games` and tells them, and makes each game's
/// watch expect exactly the agents whose discs no longer fit to be pushed out next step.
fn block(grid: &mut Grid, cells: &[Cell], games: &mut [(&mut Game, &mut Watch)]) {
    for &cell in cells {
        grid.set_blocked(cell, true).expect("a cell of the grid");
    }
    for (game, watch) in games {
        game.crowd.walls_changed();
        watch.may_push = (game.crowd.agents().iter().enumerate())
            .filter(|(_, agent)| !disc_fits(grid, agent.position, agent.radius))
            .map(|(index, _)| index)
            .collect();
    }
}

/// The step at which [`removing_an_agent_changes_nobody_elses_walk`] blocks the cells under
/// the agents it is about to remove and to move, and then removes.
const REMOVAL_STEP: usize = 60;

/// A crowd of six crossing a room and a lone agent walking its own room, walled off eight
/// cells away (beyond the neighbour distance of 5, so that nobody's plan or knot ever sees it),
/// against a twin crowd that never had the lone agent, its six in the order the first crowd
/// has after removing the lone agent, at index 0, with [`RouteCrowd::swap_remove`]. At step
/// [`REMOVAL_STEP`] the cells under the lone agent and under the last agent (the one that
/// moves into index 0) are blocked, so that both are pushed out, and the lone agent is then
/// removed: the events of that step keep naming the moved agent, every agent keeps its disc,
/// walk and progress index by index, and from the first step to the last both crowds see the
/// same six discs, walks, progress and events, to the bit. (With a planning interval of 2 the
/// moved agent's index 6 and 0 share their parity, so it is planned on the same steps.)
#[test]
fn removing_an_agent_changes_nobody_elses_walk() {
    let mut grid = Grid::from_fn(30, 9, |cell| {
        u8::from(!(14..22).contains(&cell.x) && cell != Cell::new(6, 3))
    });
    let group = [
        member((0, 1), (13, 6), 2.0),
        member((0, 4), (13, 2), 1.7),
        member((0, 7), (13, 4), 2.3),
        member((4, 0), (9, 8), 1.9),
        member((8, 0), (3, 8), 2.6),
        member((11, 8), (2, 0), 2.2),
    ];
    let loner = member((22, 0), (29, 8), 1.3);
    let with: Vec<Member> = std::iter::once(loner).chain(group).collect();
    let without: Vec<Member> = std::iter::once(group[5])
        .chain(group[..5].iter().copied())
        .collect();
    let scene = |members: Vec<Member>| Scene {
        grid: grid.clone(),
        agents: members,
        passage: None,
    };
    let (with, without) = (scene(with), scene(without));
    let (mut game, mut twin) = (Game::new(&with, 2), Game::new(&without, 2));
    let (mut watch, mut twin_watch) = (Watch::new(7), Watch::new(6));
    // Before the removal the last agent, 6, is the twin's agent 0; the lone agent has none.
    let twin_index = |index: usize| match index {
        0 => None,
        6 => Some(0),
        index => Some(index),
    };
    for _ in 1..REMOVAL_STEP {
        passed(step(&mut game, &grid, &mut watch), &"the removal");
        passed(step(&mut twin, &grid, &mut twin_watch), &"the removal");
        passed(same_crowds(&game, &twin, twin_index), &"the removal");
    }
    let under = [0, 6].map(|index| cell_under(game.crowd.agents()[index].position));
    assert!(
        under.iter().all(|cell| !game.goals.contains(cell)),
        "the cells {under:?} hold a goal"
    );
    block(
        &mut grid,
        &under,
        &mut [(&mut game, &mut watch), (&mut twin, &mut twin_watch)],
    );
    assert!(watch.may_push.starts_with(&[0]) && watch.may_push.ends_with(&[6]));
    passed(step(&mut game, &grid, &mut watch), &"the removal");
    passed(step(&mut twin, &grid, &mut twin_watch), &"the removal");
    passed(same_crowds(&game, &twin, twin_index), &"the removal");
    passed(remove_and_check(&mut game, 0), &"the removal");
    assert!(game.crowd.events().contains(&(0, RouteEvent::PushedOut)));
    passed(same_crowds(&game, &twin, Some), &"the removal");
    let bound = twin.bound(None);
    let outcome = run(&mut game, &grid, (&mut watch, bound), |game| {
        step(&mut twin, &grid, &mut twin_watch)?;
        same_crowds(game, &twin, Some)
    });
    passed(outcome, &"the removal");
    assert!(twin.all_finished());
}

/// A crossing of ten in a room of 12 x 10 cells, five heading east on the odd rows and five
/// west on the even ones, at speeds 1.6 to 2.5 cells a second.
fn two_way_crossing() -> Scene {
    let members = (0..10_u32)
        .map(|k| {
            let speed = 1.6 + 0.1 * k as f32;
            if k % 2 == 1 {
                member((0, k), (11, 9 - k), speed)
            } else {
                member((11, k), (0, 9 - k), speed)
            }
        })
        .collect();
    Scene {
        grid: Grid::new(12, 10),
        agents: members,
        passage: None,
    }
}

/// Agents removed from a crossing in the thick of it (one from the middle after 1.5 s, the
/// first after 3 s, then the last, then an index beyond the crowd, which changes nothing):
/// each removal keeps every other agent's disc, walk and progress and the events' agents,
/// moved index by index as [`Vec::swap_remove`] moves them, and the agents left all finish
/// their walks within [`Game::bound`], the checks of every step holding.
#[test]
fn agents_removed_mid_crossing_leave_the_others_walking() {
    let scene = two_way_crossing();
    let mut game = Game::new(&scene, 2);
    let bound = game.bound(None);
    let mut watch = Watch::new(scene.agents.len());
    let removals = [(90, 3), (180, 0), (181, 7), (182, 7)];
    let mut steps = 0;
    for (at, index) in removals {
        while steps < at {
            passed(
                step(&mut game, &scene.grid, &mut watch),
                &"removals mid-crossing",
            );
            steps += 1;
        }
        let count = game.crowd.len();
        if index < count {
            passed(remove_and_check(&mut game, index), &"removals mid-crossing");
            assert_eq!(game.crowd.len(), count - 1);
        } else {
            let (kept, events) = (snapshot(&game.crowd), game.crowd.events().to_vec());
            game.crowd.swap_remove(index);
            assert!(snapshot(&game.crowd) == kept && game.crowd.events() == events);
        }
    }
    assert_eq!(game.crowd.len(), 7);
    let outcome = run(&mut game, &scene.grid, (&mut watch, bound), |_| Ok(()));
    passed(outcome, &scene);
}

/// A crossing of six in an open room of 14 x 10 cells: three heading east, three south, each
/// to a cell not straight across.
fn walls_scene() -> Scene {
    Scene {
        grid: Grid::new(14, 10),
        agents: vec![
            member((0, 2), (13, 7), 2.0),
            member((0, 5), (13, 3), 1.6),
            member((0, 7), (13, 5), 2.4),
            member((3, 0), (10, 9), 1.8),
            member((7, 0), (5, 9), 2.2),
            member((11, 0), (2, 9), 2.0),
        ],
        passage: None,
    }
}

/// For each agent of [`walls_scene`], once it walks two cells or more inside the room after
/// half a second or after a second and a half, the cell under it is blocked (alone, or with
/// the two cells beside it across its way, so that its way is walled): the next step reports
/// exactly the agents whose discs no longer fit as [`RouteEvent::PushedOut`], this one among
/// them, puts each where its disc fits no farther than [`PUSH_REACH`] (and
/// [`PUSH_OUT_DISTANCE`]) plus its own move, and every walk still finishes within
/// [`Game::bound`], a stuck agent getting a new route from where it stands.
#[test]
fn an_agent_whose_cell_is_blocked_is_pushed_out_and_still_finishes() {
    let scene = walls_scene();
    let (width, height) = (scene.grid.width(), scene.grid.height());
    let inside = |cell: Cell| (2..width - 2).contains(&cell.x) && (2..height - 2).contains(&cell.y);
    let (mut blocked, mut reroutes) = (0, 0);
    for pushed in 0..scene.agents.len() {
        for delay in [0.5, 1.5] {
            for across in [false, true] {
                let mut grid = scene.grid.clone();
                let mut game = Game::new(&scene, 2);
                let bound = game.bound(None);
                let mut watch = Watch::new(scene.agents.len());
                let context = format!("agent {pushed}, after {delay} s, walled across {across}");
                let cell = loop {
                    let agent = game.crowd.agents()[pushed];
                    let cell = cell_under(agent.position);
                    if game.crowd.walkers()[pushed].is_finished() || game.time > bound {
                        break None;
                    }
                    if game.time >= delay && inside(cell) && !game.goals.contains(&cell) {
                        break Some((cell, agent.velocity));
                    }
                    passed(step(&mut game, &grid, &mut watch), &context);
                };
                let Some((cell, velocity)) = cell else {
                    continue;
                };
                let mut cells = vec![cell];
                if across {
                    let (dx, dy) = if velocity.x.abs() >= velocity.y.abs() {
                        (0, 1)
                    } else {
                        (1, 0)
                    };
                    cells.extend(
                        [(dx, dy), (-dx, -dy)]
                            .map(|(dx, dy)| cell.offset(dx, dy).expect("a cell inside the room")),
                    );
                }
                block(&mut grid, &cells, &mut [(&mut game, &mut watch)]);
                assert!(watch.may_push.contains(&pushed), "{context}");
                let moved = watch.may_push.clone();
                let before: Vec<Vector> = game.crowd.agents().iter().map(|a| a.position).collect();
                passed(step(&mut game, &grid, &mut watch), &context);
                for index in moved {
                    let agent = game.crowd.agents()[index];
                    let shift = (agent.position - before[index]).length();
                    let reach = PUSH_REACH.min(PUSH_OUT_DISTANCE) + agent.max_speed * STEP;
                    assert!(
                        shift <= reach + 1e-4,
                        "{context}: agent {index} moved {shift} cells, more than {reach}"
                    );
                }
                let outcome = run(&mut game, &grid, (&mut watch, bound), |_| Ok(()));
                passed(outcome, &format!("{context}\n{scene}"));
                blocked += 1;
                reroutes += game.reroutes.iter().sum::<u32>();
            }
        }
    }
    println!("blocked under {blocked} agents; {reroutes} new routes for stuck agents");
    assert!(
        blocked >= 12,
        "only {blocked} agents walked inside the room"
    );
}

/// Four groups of three cross a room of 12 x 12 cells from its four sides to the opposite
/// ones, each agent on a line of its own (the eastward on rows 3, 5, 7, the westward on 4, 6,
/// 8, the southward on columns 3, 5, 7, the northward on 4, 6, 8), meeting in the middle, at
/// speeds 1.8 to 2.35 cells a second.
fn four_way_crossing() -> Scene {
    let mut members = Vec::new();
    for (k, line) in [3_u32, 5, 7].into_iter().enumerate() {
        let speed = 1.8 + 0.05 * k as f32;
        members.push(member((0, line), (11, line), speed));
        members.push(member((11, line + 1), (0, line + 1), speed + 0.15));
        members.push(member((line, 0), (line, 11), speed + 0.3));
        members.push(member((line + 1, 11), (line + 1, 0), speed + 0.45));
    }
    Scene {
        grid: Grid::new(12, 12),
        agents: members,
        passage: None,
    }
}

/// The four-way crossing finishes every walk within [`Game::bound`], the checks of every step
/// holding, whether the crowd plans every agent every step or one in 2 or 4: the interval
/// changes nothing of correctness. Each step plans no more than one agent in the interval
/// (after the first, which plans all) and no agent goes longer than the interval unplanned.
#[test]
fn every_planning_interval_finishes_a_crossing() {
    let scene = four_way_crossing();
    for interval in [1, 2, 4] {
        let mut game = Game::new(&scene, interval);
        let bound = game.bound(None);
        let mut watch = Watch::new(scene.agents.len());
        let count = scene.agents.len();
        let mut unplanned = vec![0_u32; count];
        let mut steps = 0;
        let check_plans = |game: &Game| {
            steps += 1;
            let planned = game.crowd.planned();
            let most = if steps == 1 {
                count
            } else {
                count.div_ceil(interval as usize)
            };
            let planned_count = planned.iter().filter(|&&due| due).count();
            if planned.len() != count || planned_count > most {
                return Err(format!(
                    "step {steps}: {planned_count} of {} planned, at most {most}",
                    planned.len()
                ));
            }
            for (index, (waited, &due)) in unplanned.iter_mut().zip(planned).enumerate() {
                *waited = if due { 0 } else { *waited + 1 };
                if *waited >= interval {
                    return Err(format!(
                        "step {steps}: agent {index} unplanned for {waited} steps"
                    ));
                }
            }
            Ok(())
        };
        let outcome = run(&mut game, &scene.grid, (&mut watch, bound), check_plans);
        let time = outcome.unwrap_or_else(|failure| panic!("interval {interval}: {failure}"));
        println!(
            "interval {interval}: all finished in {time} s (bound {bound} s), worst overlap {}",
            watch.worst_overlap
        );
    }
}

/// A lone agent in the pocket of two blocks touching at a corner, (5, 7) to its east and
/// (4, 8) to its south, starts at the centre of cell (4, 7) and heads for (11, 8), in an
/// otherwise open room of 12 x 12 cells: it finishes its walk within [`Game::bound`] (twice
/// its 8.3-cell route at 2 cells a second plus [`KNOT_ALLOWANCE`], 68 s), getting a new route
/// whenever it is stuck.
///
/// Its route leaves the pocket northwards: (4.5, 7.5), (4.5, 6.5), then straight to
/// (11.5, 8.5). Random crossings of [`random_scenes_keep_apart_and_finish_every_walk`] met this
/// pocket (an agent the crowd had pushed into it), and the agent never came out.
#[test]
fn a_lone_agent_walks_out_of_a_pocket_between_two_blocks() {
    let blocks = [Cell::new(5, 7), Cell::new(4, 8)];
    let scene = Scene {
        grid: Grid::from_fn(12, 12, |cell| u8::from(!blocks.contains(&cell))),
        agents: vec![member((4, 7), (11, 8), 2.0)],
        passage: None,
    };
    let mut game = Game::new(&scene, 2);
    let bound = game.bound(None);
    let mut watch = Watch::new(1);
    let outcome = run(&mut game, &scene.grid, (&mut watch, bound), |_| Ok(()));
    passed(outcome, &scene);
}

/// A corridor two cells wide and five long (rows 0 and 1) joins two rooms four cells wide; two
/// agents of priority 1 come west through it, the second heading for (3, 0), the west room's
/// cell beside the corridor's mouth, while three of priority 0 head east: every walk finishes
/// within [`Game::bound`] (about 93 s), a stuck agent getting a new route.
///
/// A scene of [`random_scenes_keep_apart_and_finish_every_walk`]'s kind, as drawn by another
/// seed. The agent finished beside the mouth is pushed into it by the traffic, to about
/// (4.05, 1.05), within [`arrival_reach`] of its goal, where it stands on: it leaves neither
/// lane of the corridor wide enough for a disc.
#[test]
fn an_agent_finished_beside_a_corridor_leaves_it_open() {
    let grid = Grid::from_fn(13, 4, |cell| {
        u8::from(cell.y < 2 || !(4..9).contains(&cell.x))
    });
    let mut members = vec![
        member((0, 2), (9, 2), 1.704_712_5),
        member((0, 1), (12, 0), 2.512_376),
        member((3, 2), (11, 3), 2.475_158),
        member((12, 0), (3, 0), 2.693_062),
        member((10, 0), (1, 3), 1.487_427_8),
    ];
    for westward in &mut members[3..] {
        westward.priority = 1;
    }
    let scene = Scene {
        grid,
        agents: members,
        passage: Some(5),
    };
    let mut game = Game::new(&scene, 2);
    let bound = game.bound(scene.passage);
    let mut watch = Watch::new(scene.agents.len());
    let outcome = run(&mut game, &scene.grid, (&mut watch, bound), |_| Ok(()));
    passed(outcome, &scene);
}

/// Steps `game`'s crowd `steps` times on `grid`, without new routes, and returns every agent's
/// position and next waypoint after each step.
fn trace(game: &mut Game, grid: &Grid, steps: usize) -> Vec<Vec<(Vector, usize)>> {
    (0..steps)
        .map(|_| {
            game.crowd.step(grid, STEP);
            let agents = game.crowd.agents().iter();
            (agents.zip(game.crowd.walkers()))
                .map(|(agent, walker)| (agent.position, walker.next_waypoint()))
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        rng_seed: RngSeed::Fixed(0x0077_616c_6c73),
        failure_persistence: None,
        max_shrink_iters: 16,
        ..ProptestConfig::default()
    })]

    /// Cells blocked in the middle of a crossing, said of the crowd by their bounds
    /// ([`RouteCrowd::walls_changed_within`]), move every agent exactly as when every agent
    /// draws its lines of sight again ([`RouteCrowd::walls_changed`]): the lines of sight an
    /// agent keeps never cross the change.
    #[test]
    fn walls_changed_within_their_bounds_steer_as_walls_changed_everywhere(
        scene in crossing_scene(),
        (corner, size) in ((0.0..1.0f32, 0.0..1.0f32), (1u32..=3, 1u32..=2)),
        before in 10usize..120,
    ) {
        let mut grid = scene.grid.clone();
        let (mut everywhere, mut within) = (Game::new(&scene, 2), Game::new(&scene, 2));
        prop_assert_eq!(trace(&mut everywhere, &grid, before), trace(&mut within, &grid, before));
        let min = Cell::new(
            (corner.0 * (grid.width() - size.0) as f32) as u32,
            (corner.1 * (grid.height() - size.1) as f32) as u32,
        );
        let max = Cell::new(min.x + size.0 - 1, min.y + size.1 - 1);
        grid.fill_rect(min, max, 0);
        everywhere.crowd.walls_changed();
        within.crowd.walls_changed_within(min, max);
        let after = trace(&mut everywhere, &grid, 240);
        let apart = after
            .iter()
            .zip(trace(&mut within, &grid, 240))
            .position(|(everywhere, within)| *everywhere != within);
        prop_assert!(apart.is_none(), "apart at step {:?} after blocking {} to {}\n{}", apart, min, max, scene);
    }
}
