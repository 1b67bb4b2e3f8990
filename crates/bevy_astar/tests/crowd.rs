//! Headless tests of the crowd systems of the Follow stage: avoiding agents pass each other
//! without overlapping, never stand in a wall, get off ground blocked under them and search again
//! when stuck; agents without avoidance walk exactly as before.

pub mod common;

use bevy::prelude::*;
use bevy_astar::astar_grid::crowd::{
    CrowdAgent, Route, RouteCrowd, RouteWalker, Vector, disc_fits, footprint_radius,
};
use bevy_astar::prelude::*;
use common::{FRAME, MAX_FRAMES, app_with_grid, current_grid, path, stats};
use core::time::Duration;

/// World units per cell in the test apps.
const CELL: f32 = 10.0;
/// Three cells a second.
const SPEED: f32 = 30.0;

/// Spawns a follower from `start` to `goal`, avoiding when `avoiding`.
fn spawn_walker(app: &mut App, start: Cell, goal: Cell, avoiding: bool) -> Entity {
    let position = app.world().resource::<NavGrid>().cell_center(start);
    let mut agent = app.world_mut().spawn((
        PathRequest::new(start, goal),
        PathFollower::new(SPEED),
        Transform::from_translation(position.extend(0.0)),
    ));
    if avoiding {
        agent.insert(CrowdAvoidance::default());
    }
    agent.id()
}

/// The agent's position in cells (grid space).
fn cells_at(app: &App, agent: Entity) -> Vector {
    let world = app
        .world()
        .get::<Transform>(agent)
        .expect("an agent")
        .translation
        .truncate()
        / CELL;
    Vector::new(world.x, world.y)
}

/// What a test's failure says of `agent`: where it stands, its request, path and velocities.
fn describe(app: &App, agent: Entity) -> String {
    let world = app.world();
    let request = world.get::<PathRequest>(agent).expect("a request");
    let found = path(app, agent);
    let follower = world.get::<PathFollower>(agent).expect("a follower");
    format!(
        "{agent} at {:?}: {:?} -> {:?}, {:?} (revision {}, {} waypoints), next {} finished {}, {:?}",
        cells_at(app, agent),
        request.start,
        request.goal,
        found.status,
        found.revision,
        found.waypoints().len(),
        follower.next_waypoint(),
        follower.is_finished(),
        world.get::<CrowdVelocity>(agent),
    )
}

fn finished(app: &App, agent: Entity) -> bool {
    app.world()
        .get::<PathFollower>(agent)
        .is_some_and(PathFollower::is_finished)
        && path(app, agent).is_found()
}

/// The agent's distance from the centre of `cell`, in cells.
fn distance_to(app: &App, agent: Entity, cell: Cell) -> f32 {
    let centre = Vector::new(cell.x as f32 + 0.5, cell.y as f32 + 0.5);
    (cells_at(app, agent) - centre).length()
}

#[test]
fn two_agents_crossing_head_on_pass_without_overlapping() {
    let mut app = app_with_grid(crowd_plugin(), Grid::new(24, 9));
    let (west, east) = (Cell::new(2, 4), Cell::new(21, 4));
    let agents = [
        spawn_walker(&mut app, west, east, true),
        spawn_walker(&mut app, east, west, true),
    ];
    let radius = footprint_radius(1);
    // Tolerance: 10% of the radius.
    let tolerance = 0.1 * radius;
    let mut closest = f32::INFINITY;
    // The straight walk takes 19 cells / 3 cells a second = 6.3 s; the bound is 10 s.
    let bound = (10.0 / FRAME.as_secs_f32()) as usize;
    let mut frames = 0;
    while frames < bound && !agents.iter().all(|&agent| finished(&app, agent)) {
        app.update();
        frames += 1;
        let gap = (cells_at(&app, agents[0]) - cells_at(&app, agents[1])).length();
        closest = closest.min(gap);
        assert!(
            gap >= 2.0 * radius - tolerance,
            "overlap at frame {frames}: {gap}"
        );
    }
    assert!(frames < bound, "not both arrived within {bound} frames");
    assert!(distance_to(&app, agents[0], east) <= radius);
    assert!(distance_to(&app, agents[1], west) <= radius);
    // They did meet: one stepped aside rather than the two never coming close.
    assert!(closest < 3.0, "closest approach {closest}");
}

/// The plugin with its searches on the main thread and a stage budget no frame of these tests
/// reaches: every search ends in the frame it starts, so what the crowds do does not depend on
/// how fast the machine serves their searches, and each run is the same.
fn crowd_plugin() -> AStarPlugin {
    AStarPlugin::default().with_settings(PathfindingSettings {
        stage_budget: Duration::from_secs(30),
        search_thread: SearchThread::MainThread,
        ..PathfindingSettings::default()
    })
}

/// An app of [`crowd_plugin`] on `grid` whose crowd steps beside the frame, or in it
/// ([`CrowdSettings::step_beside_frame`]).
fn crowd_app_stepping(grid: Grid, beside: bool) -> App {
    let mut app = app_with_grid(crowd_plugin(), grid);
    app.world_mut()
        .resource_mut::<CrowdSettings>()
        .step_beside_frame = beside;
    app
}

/// A 40 x 30 room split by a wall at x = 20 with a gap two cells wide at y = 14 and 15.
fn gap_room() -> Grid {
    Grid::from_fn(40, 30, |cell| {
        u8::from(cell.x != 20 || (14..=15).contains(&cell.y))
    })
}

#[test]
fn two_hundred_agents_pass_a_two_cell_gap_and_never_stand_in_a_wall() {
    let mut app = app_with_grid(crowd_plugin(), gap_room());
    let grid = current_grid(&app);
    let radius = footprint_radius(1);
    let mut agents = Vec::new();
    // 200 agents on a 10 x 20 block west of the wall, each with its own goal in a 10 x 20
    // block east of it.
    for row in 0..20 {
        for column in 0..10 {
            let start = Cell::new(3 + column, 5 + row);
            let goal = Cell::new(27 + column, 5 + row);
            agents.push(spawn_walker(&mut app, start, goal, true));
        }
    }
    let through = |app: &App| {
        agents
            .iter()
            .filter(|&&agent| cells_at(app, agent).x > 21.0)
            .count()
    };
    // The bound: 300 simulated seconds. ORCA crowds clog at a doorway: the whole crowd takes
    // 134 s (1.5 agents a second through a gap two agents wide), the same on every machine as
    // the searches end in the frame they start.
    let bound = (300.0 / FRAME.as_secs_f32()) as usize;
    let mut frames = 0;
    while frames < bound && through(&app) < agents.len() {
        app.update();
        frames += 1;
        for &agent in &agents {
            let at = cells_at(&app, agent);
            assert!(
                disc_fits(&grid, at, radius - 1e-3),
                "agent {agent} in a wall at frame {frames}: {at:?}"
            );
        }
    }
    let late: Vec<String> = agents
        .iter()
        .filter(|&&agent| cells_at(&app, agent).x <= 21.0)
        .map(|&agent| describe(&app, agent))
        .collect();
    assert!(
        late.is_empty(),
        "not through the gap after {frames} frames: {late:#?}"
    );
}

#[test]
fn a_crowd_emptied_lets_its_last_agent_go_and_takes_the_walls_built_meanwhile() {
    // The crowd systems do not run while no agent avoids. The last agent to leave must still
    // leave the crowd, whether the step runs beside the frame or in it, and a crowd left empty
    // while the map changed must take the walls of those frames when agents come back.
    for beside in [true, false] {
        let mut app = crowd_app_stepping(Grid::new(40, 30), beside);
        let first = spawn_walker(&mut app, Cell::new(5, 5), Cell::new(8, 5), true);
        for _ in 0..20 {
            app.update();
        }
        assert_eq!(stats(&app).crowd_agents, 1, "beside the frame: {beside}");
        app.world_mut().entity_mut(first).despawn();
        for _ in 0..5 {
            app.update();
        }
        assert_eq!(stats(&app).crowd_agents, 0, "beside the frame: {beside}");
        // The wall of `gap_room`, built a cell a frame while the crowd is empty.
        let walled = gap_room();
        for y in 0..30 {
            let cell = Cell::new(20, y);
            if !walled.is_walkable(cell) {
                app.world_mut()
                    .resource_mut::<NavGrid>()
                    .block(cell)
                    .expect("on the map");
                app.update();
            }
        }
        let grid = current_grid(&app);
        assert_eq!(grid, walled);
        let agents = crowd_through_the_gap(&mut app);
        let bound = (120.0 / FRAME.as_secs_f32()) as usize;
        let through = (1..=bound).find(|&frame| {
            app.update();
            for &agent in &agents {
                let at = cells_at(&app, agent);
                assert!(
                    disc_fits(&grid, at, footprint_radius(1) - 1e-3),
                    "agent {agent} in a wall at frame {frame} (beside the frame: {beside}): {at:?}"
                );
            }
            agents.iter().all(|&agent| cells_at(&app, agent).x > 21.0)
        });
        assert!(
            through.is_some(),
            "not all through the gap after {bound} frames"
        );
    }
}

/// Spawns 40 avoiding agents west of `gap_room`'s wall, each with a goal east of it.
fn crowd_through_the_gap(app: &mut App) -> Vec<Entity> {
    let mut agents = Vec::new();
    for row in 0..8 {
        for column in 0..5 {
            let start = Cell::new(8 + column, 11 + row);
            let goal = Cell::new(27 + column, 11 + row);
            agents.push(spawn_walker(app, start, goal, true));
        }
    }
    agents
}

/// Walks `from` along `waypoints` by `distance`, as a plain follower does.
fn walk_along(from: Vec2, waypoints: &[Vec2], mut distance: f32) -> Vec2 {
    let mut position = from;
    for &waypoint in waypoints {
        let gap = position.distance(waypoint);
        if gap > distance {
            return position + (waypoint - position) / gap * distance;
        }
        position = waypoint;
        distance -= gap;
    }
    position
}

#[test]
fn without_avoidance_an_agent_walks_its_path_exactly_as_before() {
    let mut app = app_with_grid(crowd_plugin(), Grid::new(24, 9));
    let (west, east) = (Cell::new(2, 4), Cell::new(21, 4));
    let plain = spawn_walker(&mut app, west, east, false);
    // Avoiding agents cross its way; it does not see them, nor they it.
    for y in [1, 7] {
        spawn_walker(&mut app, Cell::new(12, y), Cell::new(12, 8 - y), true);
    }
    let mut started = None;
    let mut walked = 0.0;
    // The walk takes 400 frames once the path is there; when it comes depends on the machine.
    for _ in 0..MAX_FRAMES {
        if finished(&app, plain) {
            break;
        }
        app.update();
        let found = path(&app, plain);
        if !found.is_found() {
            continue;
        }
        let transform = app.world().get::<Transform>(plain).expect("an agent");
        let Some((from, waypoints)) = &started else {
            // The path arrived this frame; the agent may have taken this frame's step along
            // its first leg already.
            walked = transform
                .translation
                .truncate()
                .distance(found.waypoints()[0]);
            started = Some((found.waypoints()[0], found.waypoints()[1..].to_vec()));
            continue;
        };
        walked += SPEED * FRAME.as_secs_f32();
        let expected = walk_along(*from, waypoints, walked);
        assert!(
            transform.translation.truncate().distance(expected) < 1e-3,
            "{} against {expected}",
            transform.translation
        );
    }
    assert!(finished(&app, plain));
}

/// With the step beside the frame ([`CrowdSettings::step_beside_frame`], and Bevy's
/// `multi_threaded`), the frame after the map change writes back the step that pushed the agent
/// out; in the frame, the same frame.
#[test]
fn an_agent_whose_ground_is_blocked_under_it_steps_off() {
    for beside in [true, false] {
        let mut app = crowd_app_stepping(Grid::new(12, 12), beside);
        let cell = Cell::new(5, 5);
        let agent = spawn_walker(&mut app, cell, cell, true);
        for _ in 0..5 {
            app.update();
        }
        app.world_mut()
            .resource_mut::<NavGrid>()
            .block(cell)
            .expect("on the map");
        app.update();
        // Without Bevy's `multi_threaded`, the step always runs in the frame.
        if beside && cfg!(feature = "multi_threaded") {
            // Still where it stood: the step that pushes it out runs beside this frame.
            assert_eq!(stats(&app).crowd_agents_pushed_out, 0);
            app.update();
        }
        let grid = current_grid(&app);
        let at = cells_at(&app, agent);
        assert!(disc_fits(&grid, at, footprint_radius(1) - 1e-3), "{at:?}");
        // The nearest place it fits: beside the blocked cell, not far away.
        assert!(distance_to(&app, agent, cell) < 1.2, "{at:?}");
        assert_eq!(stats(&app).crowd_agents_pushed_out, 1);
    }
}

#[test]
fn agents_held_up_for_stuck_after_search_again_from_where_they_stand() {
    // Two agents of one priority meet in a corridor one cell wide: neither is meant to give way.
    let grid = Grid::from_fn(20, 3, |cell| u8::from(cell.y == 1));
    let mut app = app_with_grid(crowd_plugin(), grid);
    let (west, east) = (Cell::new(2, 1), Cell::new(17, 1));
    let agents = [
        spawn_walker(&mut app, west, east, true),
        spawn_walker(&mut app, east, west, true),
    ];
    for &agent in &agents {
        app.world_mut()
            .entity_mut(agent)
            .insert(CrowdAvoidance::default().with_priority(0));
    }
    app.world_mut().resource_mut::<CrowdSettings>().stuck_after = Duration::from_secs(1);
    // They meet after about 2.5 s, then close the last gap ever more slowly.
    let frames = (12.0 / FRAME.as_secs_f32()) as usize;
    let start_of = |app: &App, agent: Entity| {
        app.world()
            .get::<PathRequest>(agent)
            .expect("a request")
            .start
    };
    let mut starts = agents.map(|agent| start_of(&app, agent));
    let mut moved_starts = 0;
    let mut just_stuck = [false; 2];
    for _ in 0..frames {
        app.update();
        for ((agent, start), stuck) in agents.iter().zip(&mut starts).zip(&mut just_stuck) {
            if core::mem::take(stuck) {
                // Giving up face to face with the other, it does not stand aside (that is for
                // agents stuck among their own flow): it presses on along its new path.
                let velocity = app.world().get::<CrowdVelocity>(*agent).expect("avoiding");
                assert_ne!(velocity.desired, Vec2::ZERO);
            }
            let now = start_of(&app, *agent);
            if now != *start {
                *stuck = true;
                // Searched again from the cell it stands on as it gives up.
                let position = cells_at(&app, *agent);
                let standing = Cell::new(position.x as u32, position.y as u32);
                assert_eq!(now, standing, "{position:?}");
                *start = now;
                moved_starts += 1;
            }
        }
    }
    assert!(stats(&app).crowd_searches_when_stuck >= 2);
    assert!(moved_starts >= 2, "{moved_starts}");
    assert_ne!(starts, [west, east]);
}

/// Two 6 x 6 rooms joined by a corridor one cell wide and 10 long, at y = 3.
fn rooms_and_corridor() -> Grid {
    Grid::from_fn(22, 7, |cell| {
        let in_room = (cell.x < 6 || cell.x >= 16) && cell.y < 6;
        u8::from(in_room || cell.y == 3)
    })
}

#[test]
fn opposing_flows_in_a_corridor_one_agent_wide_all_arrive() {
    let mut app = app_with_grid(crowd_plugin(), rooms_and_corridor());
    let grid = current_grid(&app);
    let radius = footprint_radius(1);
    let mut walkers = Vec::new();
    // Five agents a room, each heading for its own cell of the other room: two flows, each of
    // one priority (the goals of a flow lie in one region of the map).
    for row in 0..5 {
        let west = Cell::new(1 + row % 2, row);
        let east = Cell::new(19 + row % 2, row);
        walkers.push((spawn_walker(&mut app, west, east, true), east));
        walkers.push((spawn_walker(&mut app, east, west, true), west));
    }
    let arrived = |app: &App| {
        walkers
            .iter()
            .all(|&(agent, goal)| finished(app, agent) && distance_to(app, agent, goal) < 3.0)
    };
    // The bound: 90 simulated seconds (the flows take 29).
    let bound = (90.0 / FRAME.as_secs_f32()) as usize;
    let mut frames = 0;
    let mut deepest = 0.0_f32;
    while frames < bound && !arrived(&app) {
        app.update();
        frames += 1;
        for (index, &(agent, _)) in walkers.iter().enumerate() {
            let at = cells_at(&app, agent);
            assert!(disc_fits(&grid, at, radius - 1e-3), "in a wall: {at:?}");
            for &(other, _) in &walkers[index + 1..] {
                let gap = (at - cells_at(&app, other)).length();
                deepest = deepest.max(2.0 * radius - gap);
            }
        }
    }
    let late: Vec<String> = walkers
        .iter()
        .filter(|&&(agent, goal)| !(finished(&app, agent) && distance_to(&app, agent, goal) < 3.0))
        .map(|&(agent, _)| describe(&app, agent))
        .collect();
    assert!(
        frames < bound,
        "not all arrived within {bound} frames: {late:#?}"
    );
    // Pushed back out of the corridor, the lower flow still never sinks into the higher one
    // by more than a quarter of a radius.
    assert!(deepest < 0.25 * radius, "overlap {deepest}");
}

#[test]
fn a_two_by_two_agent_passes_a_gap_two_cells_wide() {
    // A wall at x = 10 with a gap at y = 6 and 7, and a pillar on the way in.
    let grid = Grid::from_fn(20, 14, |cell| {
        let wall = cell.x == 10 && !(6..=7).contains(&cell.y);
        let pillar = cell.x == 7 && cell.y == 4;
        u8::from(!(wall || pillar))
    });
    let mut app = app_with_grid(crowd_plugin(), grid);
    let (start, goal) = (Cell::new(2, 2), Cell::new(16, 10));
    let nav = app.world().resource::<NavGrid>();
    let position = nav.footprint_center(start, 2);
    let goal_position = nav.footprint_center(goal, 2);
    let boss = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal).with_size(2),
            PathFollower::new(SPEED),
            CrowdAvoidance::default(),
            Transform::from_translation(position.extend(0.0)),
        ))
        .id();
    // About 17 cells at 3 cells a second; the bound is 12 s.
    let bound = (12.0 / FRAME.as_secs_f32()) as usize;
    let mut frames = 0;
    while frames < bound && !finished(&app, boss) {
        app.update();
        frames += 1;
    }
    let at = app
        .world()
        .get::<Transform>(boss)
        .expect("a boss")
        .translation
        .truncate();
    assert!(
        frames < bound,
        "the 2x2 agent stands at {at} after {frames} frames"
    );
    assert!(
        at.distance(goal_position) < 0.5 * CELL,
        "{at} against {goal_position}"
    );
}

#[test]
fn a_follower_with_avoidance_but_no_request_walks_its_path_as_before() {
    let mut app = app_with_grid(crowd_plugin(), Grid::new(12, 4));
    let waypoints = vec![Vec2::new(15.0, 15.0), Vec2::new(95.0, 15.0)];
    let mut path = Path::with_cells([], waypoints.clone(), 0.0);
    path.revision = 1;
    let agent = app
        .world_mut()
        .spawn((
            path,
            PathFollower::new(SPEED),
            CrowdAvoidance::default(),
            Transform::from_translation(waypoints[0].extend(0.0)),
        ))
        .id();
    // The first update's clock advances by nothing.
    for frame in 1..=10 {
        app.update();
        let at = app
            .world()
            .get::<Transform>(agent)
            .expect("an agent")
            .translation;
        let expected = walk_along(
            waypoints[0],
            &waypoints[1..],
            SPEED * FRAME.as_secs_f32() * (frame - 1) as f32,
        );
        assert!(
            at.truncate().distance(expected) < 1e-3,
            "frame {frame}: {at} against {expected}"
        );
    }
}

/// A 30 x 21 room split by a wall at x = 15 with a door two cells wide at y = 10 and 11.
fn door_room() -> Grid {
    Grid::from_fn(30, 21, |cell| {
        u8::from(cell.x != 15 || (10..=11).contains(&cell.y))
    })
}

/// Runs 50 agents through the door of [`door_room`]: 25 on a 5 x 5 block each side of the wall,
/// each heading for the mirror image of its start on the other side (smoothed paths, as in the
/// `crowd` example), and leaving the map once it has walked its path to the end, as there.
/// Checks every frame that nobody stands in a wall. The seconds until every agent has left, or
/// the descriptions of those still there after `bound` seconds.
fn run_door(bound: f32) -> Result<f32, Vec<String>> {
    let mut app = app_with_grid(crowd_plugin(), door_room());
    let grid = current_grid(&app);
    let radius = footprint_radius(1);
    let mut agents = Vec::new();
    for row in 0..5 {
        for column in 0..5 {
            let west = Cell::new(4 + column, 8 + row);
            let east = Cell::new(grid.width() - 1 - west.x, west.y);
            for (start, goal) in [(west, east), (east, west)] {
                let position = app.world().resource::<NavGrid>().cell_center(start);
                let agent = app.world_mut().spawn((
                    PathRequest::new(start, goal).with_smoothing(true),
                    PathFollower::new(SPEED),
                    CrowdAvoidance::default(),
                    Transform::from_translation(position.extend(0.0)),
                ));
                agents.push(agent.id());
            }
        }
    }
    let frames = (bound / FRAME.as_secs_f32()) as usize;
    for frame in 1..=frames {
        app.update();
        for &agent in &agents {
            let at = cells_at(&app, agent);
            assert!(
                disc_fits(&grid, at, radius - 1e-3),
                "agent {agent} in a wall at frame {frame}: {at:?}"
            );
        }
        let (done, walking): (Vec<Entity>, Vec<Entity>) =
            agents.iter().partition(|&&agent| finished(&app, agent));
        for agent in done {
            app.world_mut().despawn(agent);
        }
        agents = walking;
        if agents.is_empty() {
            return Ok(frame as f32 * FRAME.as_secs_f32());
        }
    }
    Err(agents.iter().map(|&agent| describe(&app, agent)).collect())
}

/// Fifty agents, two opposing flows of 25, pass a door two cells wide within 120 simulated
/// seconds. The flows meet in the door; the one of the lower priority waits, and its agents in
/// front of the door make way for those coming out (`astar_grid::crowd::VelocityPlanner`): all
/// are through in 68 s. Pressing on in front of the door, as they did before, they kept the
/// exit blocked for minutes (230 s), those coming out squeezing past one at a time.
#[test]
fn fifty_agents_pass_a_door_two_cells_wide_both_ways() {
    let bound = 120.0;
    if let Err(late) = run_door(bound) {
        panic!("not all through the door after {bound} s: {late:#?}");
    }
}

/// The core's crowd, fed by hand what the plugin's agents are: a user of the core without Bevy.
struct CoreMirror {
    crowd: RouteCrowd,
    /// Each agent's entity, and the revision of the path its route was read from.
    agents: Vec<(Entity, u64)>,
}

impl CoreMirror {
    /// The crowd of `agents`, in the order the plugin takes them (spawn order, one archetype),
    /// as they stand before the first frame, with the plugin's default settings.
    fn of(app: &App, agents: &[Entity]) -> Self {
        let settings = CrowdSettings::default();
        let mut crowd = RouteCrowd::new(settings.avoidance());
        crowd.planning_interval = settings.planning_interval;
        crowd.agents_per_chunk = settings.agents_per_task;
        for &agent in agents {
            let priority = app
                .world()
                .get::<CrowdAvoidance>(agent)
                .and_then(|a| a.priority);
            let mut core_agent =
                CrowdAgent::new(cells_at(app, agent), footprint_radius(1), SPEED / CELL);
            core_agent.priority = priority.expect("a priority given");
            crowd.push(core_agent, RouteWalker::new(Route::default(), true));
        }
        let agents = agents.iter().map(|&agent| (agent, u64::MAX)).collect();
        Self { crowd, agents }
    }

    /// Takes each agent's path when it is new, and steps the crowd as the frame just run did,
    /// on `grid`, the map as it is now (`walls_changed` when it is not the last step's).
    fn step(&mut self, app: &App, grid: &Grid, walls_changed: bool) {
        if walls_changed {
            self.crowd.walls_changed();
        }
        for (index, (agent, revision)) in self.agents.iter_mut().enumerate() {
            let found = path(app, *agent);
            if found.revision != *revision {
                *revision = found.revision;
                let waypoints: Vec<Vector> = found
                    .waypoints()
                    .iter()
                    .map(|point| Vector::new(point.x / CELL, point.y / CELL))
                    .collect();
                let route = Route::new(waypoints, found.is_found());
                self.crowd.walkers_mut()[index].set_route(route);
            }
        }
        let time_step = app.world().resource::<Time>().delta_secs();
        self.crowd.step(grid, time_step);
    }
}

#[test]
fn the_plugins_crowd_walks_exactly_as_the_cores_own() {
    let mut app = app_with_grid(crowd_plugin(), gap_room());
    app.insert_resource(CrowdSettings {
        step_beside_frame: false,
        ..CrowdSettings::default()
    });
    let mut grid = current_grid(&app);
    // Two squads cross through the gap, each agent with its own goal and its squad's priority.
    let mut agents = Vec::new();
    for row in 0..4_u32 {
        for (column, priority) in [(10, 1), (30, 2)] {
            let start = Cell::new(column + row % 2, 12 + row);
            let goal = Cell::new(40 - column - row % 2 - 1, 13 + row);
            let agent = spawn_walker(&mut app, start, goal, true);
            app.world_mut()
                .entity_mut(agent)
                .insert(CrowdAvoidance::default().with_priority(priority));
            agents.push(agent);
        }
    }
    let mut mirror = CoreMirror::of(&app, &agents);
    let mut worst = 0.0_f32;
    for frame in 0..900 {
        if frame == 120 {
            // A tower lands beside the gap's mouth, across lines of sight the agents drew
            // towards it: the plugin tells its crowd where the walls changed, the core's crowd
            // draws every line of sight again, and both walk on alike. (Without the plugin
            // telling its crowd, the two part.)
            app.world_mut()
                .resource_mut::<NavGrid>()
                .block(Cell::new(17, 14))
                .expect("on the map");
        }
        app.update();
        let now = current_grid(&app);
        mirror.step(&app, &now, now != grid);
        grid = now;
        for (index, &agent) in agents.iter().enumerate() {
            let apart = (cells_at(&app, agent) - mirror.crowd.agents()[index].position).length();
            assert!(
                apart < 1e-3,
                "frame {frame}: {} is {apart} cells from the core's agent at {:?}",
                describe(&app, agent),
                mirror.crowd.agents()[index].position
            );
            worst = worst.max(apart);
        }
    }
    // They walked: every agent crossed to its goal's side.
    for &agent in &agents {
        let goal = app
            .world()
            .get::<PathRequest>(agent)
            .expect("a request")
            .goal;
        assert!(
            distance_to(&app, agent, goal) < 3.0,
            "{}",
            describe(&app, agent)
        );
    }
    assert!(worst < 1e-3);
}

/// Twelve avoiding agents share one goal's tree; a wall lands across their routes, open only at
/// the top of the room. The tree is updated, and the crowd reads each route again off it from
/// where the agent stands: nobody is given a new path (their revisions stay), nobody walks
/// into the wall and searches again when stuck, and all arrive by the way round.
#[test]
fn a_wall_across_a_crowds_shared_routes_is_walked_round_without_new_paths() {
    let plugin = AStarPlugin::default().with_settings(PathfindingSettings {
        stage_budget: Duration::from_secs(30),
        search_thread: SearchThread::MainThread,
        shared_goal_min_agents: 8,
        ..PathfindingSettings::default()
    });
    let mut app = app_with_grid(plugin, Grid::new(40, 30));
    let goal = Cell::new(36, 15);
    let agents: Vec<Entity> = (0..12_u32)
        .map(|index| {
            spawn_walker(
                &mut app,
                Cell::new(2 + index % 4, 14 + index / 4),
                goal,
                true,
            )
        })
        .collect();
    for _ in 0..30 {
        app.update();
    }
    let revisions: Vec<u64> = agents
        .iter()
        .map(|&agent| path(&app, agent).revision)
        .collect();
    for &agent in &agents {
        assert!(path(&app, agent).is_shared(), "{}", describe(&app, agent));
    }
    // Each new route was read off the tree once.
    let read = stats(&app).crowd_routes_read_off_trees;
    assert_eq!(read, agents.len() as u64);
    for y in 4..30 {
        app.world_mut()
            .resource_mut::<NavGrid>()
            .block(Cell::new(20, y))
            .expect("on the map");
    }
    // The way round: from about (5, 15) up to the opening at (20, 2) and down to the goal, some
    // 41 cells, 14 s at three cells a second; the bound gives the twelve three times that to
    // pass the opening and gather at the goal.
    let bound = (42.0 / FRAME.as_secs_f32()) as usize;
    let radius = footprint_radius(1);
    let mut frames = 0;
    while frames < bound && !agents.iter().all(|&agent| finished(&app, agent)) {
        app.update();
        frames += 1;
        let grid = current_grid(&app);
        for &agent in &agents {
            assert!(
                disc_fits(&grid, cells_at(&app, agent), radius),
                "frame {frames}: {}",
                describe(&app, agent)
            );
        }
    }
    for (&agent, revision) in agents.iter().zip(revisions) {
        assert!(finished(&app, agent), "{}", describe(&app, agent));
        assert!(
            distance_to(&app, agent, goal) < 4.0,
            "{}",
            describe(&app, agent)
        );
        assert_eq!(
            path(&app, agent).revision,
            revision,
            "{}",
            describe(&app, agent)
        );
    }
    assert_eq!(stats(&app).crowd_searches_when_stuck, 0);
    // Every route crossed the wall, so each was read again.
    let reread = stats(&app).crowd_routes_read_off_trees - read;
    assert!(reread >= agents.len() as u64, "{reread} read again");
}

/// On a hexagonal map, two squads of avoiding agents cross a wall of hexes through its one gap
/// from opposite sides: each agent reaches its goal, and none ever stands on a blocked hex.
#[test]
fn avoiding_agents_cross_a_hex_map_without_standing_on_a_wall() {
    use bevy_astar::astar_grid::hex::{HexLayout, HexMap};
    let map = HexMap::new(HexLayout::RowOdd, 14, 9).expect("small");
    // A wall down tile column 7, open on tile rows 4 and 5.
    let grid = map
        .grid_from_tiles(|(x, y)| u8::from(x != 7 || y == 4 || y == 5))
        .expect("small");
    let mut app = common::app_with(crowd_plugin());
    app.insert_resource(
        NavGrid::new(grid)
            .with_cell_size(Vec2::new(CELL, CELL * 1.15))
            .with_shape(NavShape::Hex(map)),
    );
    let tile = |x: u32, y: u32| map.cell_of((x, y)).expect("on the map");
    let mut agents = Vec::new();
    for row in [2, 4, 6] {
        agents.push((
            spawn_walker(&mut app, tile(1, row), tile(12, row), true),
            tile(12, row),
        ));
        agents.push((
            spawn_walker(&mut app, tile(12, row), tile(1, row), true),
            tile(1, row),
        ));
    }
    for _ in 0..MAX_FRAMES {
        app.update();
        let nav = app.world().resource::<NavGrid>();
        for &(agent, _) in &agents {
            let at = app
                .world()
                .get::<Transform>(agent)
                .expect("an agent")
                .translation
                .truncate();
            let cell = nav.world_to_cell(at);
            assert!(
                cell.is_some_and(|cell| nav.is_walkable(cell)),
                "{}",
                describe(&app, agent)
            );
        }
        if agents.iter().all(|&(agent, _)| finished(&app, agent)) {
            break;
        }
    }
    let nav = app.world().resource::<NavGrid>();
    for &(agent, goal) in &agents {
        let request = app.world().get::<PathRequest>(agent).expect("a request");
        assert_eq!(request.options.movement, Movement::HEX);
        let at = app
            .world()
            .get::<Transform>(agent)
            .expect("an agent")
            .translation;
        assert!(
            at.truncate().distance(nav.cell_center(goal)) < CELL * 0.5,
            "{}",
            describe(&app, agent)
        );
    }
}
