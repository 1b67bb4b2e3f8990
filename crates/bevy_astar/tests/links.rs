//! Headless tests of links in the plugin: doors opened and closed at run time cut exactly the
//! paths through them and let waiting agents through, every engine takes links, followers stop
//! at a link and cross it (by themselves, or when the game releases them), and a link too
//! narrow for a kind keeps it out.

pub mod common;

use astar_grid::{SearchOptions, find_path};
use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::path_check::costs_match;
use common::{MAX_FRAMES, app_with_grid, current_grid, path, settle, spawn};

/// A 20 x 10 grid split by a wall down column 10, with no way through.
fn walled_grid() -> Grid {
    let mut grid = Grid::new(20, 10);
    grid.fill_rect(Cell::new(10, 0), Cell::new(10, 9), 0);
    grid
}

/// A 20 x 10 grid split by a wall down column 10, with a door through it at row 2 (the
/// returned link) and, unless `one_door`, a second door at row 8.
fn split_grid(one_door: bool) -> (Grid, LinkId, Option<LinkId>) {
    let mut grid = walled_grid();
    let door = grid
        .add_link(Link::new(Cell::new(9, 2), Cell::new(11, 2), 2.0))
        .expect("a valid link");
    let far_door = (!one_door).then(|| {
        grid.add_link(Link::new(Cell::new(9, 8), Cell::new(11, 8), 2.0))
            .expect("a valid link")
    });
    (grid, door, far_door)
}

/// The core's optimal cost of `request` on `grid` (links included), which the core's oracle
/// tests check against an independent Dijkstra.
fn core_cost(grid: &Grid, request: &PathRequest) -> Option<f64> {
    let options = SearchOptions {
        closest_reachable: false,
        ..request.options
    };
    find_path(grid, request.start, request.goal, &options)
        .expect("a valid request")
        .found()
        .map(|found| found.cost)
}

fn set_door(app: &mut App, door: LinkId, open: bool) {
    app.world_mut()
        .resource_mut::<NavGrid>()
        .set_link_open(door, open)
        .expect("a link of the grid");
}

#[test]
fn closing_a_door_cuts_exactly_the_paths_through_it() {
    let (grid, door, far_door) = split_grid(false);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let across = PathRequest::new(Cell::new(2, 1), Cell::new(17, 1));
    let left = PathRequest::new(Cell::new(0, 0), Cell::new(8, 9));
    let right = PathRequest::new(Cell::new(12, 0), Cell::new(19, 9));
    let far = PathRequest::new(Cell::new(2, 9), Cell::new(17, 9));
    let agents: Vec<Entity> = [across, left, right, far]
        .into_iter()
        .map(|request| spawn(&mut app, request))
        .collect();
    settle(&mut app, &agents);
    {
        let nav = app.world().resource::<NavGrid>();
        let steps = path(&app, agents[0]).link_steps(nav, &across);
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].1, door);
        assert_eq!(
            path(&app, agents[3]).link_steps(nav, &far)[0].1,
            far_door.expect("two doors")
        );
    }
    let revisions: Vec<u64> = agents
        .iter()
        .map(|&agent| path(&app, agent).revision)
        .collect();
    set_door(&mut app, door, false);
    app.update();
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    let across_path = path(&app, agents[0]);
    assert!(
        across_path.revision > revisions[0],
        "the path through the door searches again"
    );
    let optimal = core_cost(&grid, &across).expect("reachable");
    assert!(costs_match(across_path.cost(), optimal));
    let nav = app.world().resource::<NavGrid>();
    assert_eq!(
        across_path.link_steps(nav, &across)[0].1,
        far_door.expect("two doors")
    );
    for (index, &agent) in agents.iter().enumerate().skip(1) {
        assert_eq!(
            path(&app, agent).revision,
            revisions[index],
            "agent {index} took no step through the door: its path stays"
        );
    }
}

#[test]
fn every_engine_takes_links_and_drops_a_closed_one() {
    let (grid, door, _) = split_grid(false);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let requests: Vec<PathRequest> = [
        PathAlgorithm::AStar,
        PathAlgorithm::JumpPoint,
        PathAlgorithm::FlowField,
    ]
    .into_iter()
    .map(|algorithm| PathRequest::new(Cell::new(3, 3), Cell::new(16, 1)).with_algorithm(algorithm))
    .collect();
    let agents: Vec<Entity> = requests
        .iter()
        .map(|&request| spawn(&mut app, request))
        .collect();
    for closed in [false, true] {
        if closed {
            set_door(&mut app, door, false);
            app.update();
        }
        settle(&mut app, &agents);
        let grid = current_grid(&app);
        for (request, &agent) in requests.iter().zip(&agents) {
            let found = path(&app, agent);
            assert_eq!(found.status, PathStatus::Found, "{request:?}");
            let optimal = core_cost(&grid, request).expect("reachable");
            assert!(costs_match(found.cost(), optimal), "{request:?}");
            let nav = app.world().resource::<NavGrid>();
            let through_door = found
                .link_steps(nav, request)
                .iter()
                .any(|&(_, link)| link == door);
            assert_eq!(through_door, !closed, "{request:?} after closing: {closed}");
        }
    }
}

#[test]
fn opening_a_door_lets_a_waiting_agent_through() {
    let (grid, door, _) = split_grid(true);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    set_door(&mut app, door, false);
    let request = PathRequest::new(Cell::new(2, 2), Cell::new(17, 2));
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).status, PathStatus::NoPath);
    set_door(&mut app, door, true);
    app.update();
    settle(&mut app, &[agent]);
    let found = path(&app, agent);
    assert_eq!(found.status, PathStatus::Found);
    let optimal = core_cost(&current_grid(&app), &request).expect("reachable");
    assert!(costs_match(found.cost(), optimal));
}

#[test]
fn a_door_too_narrow_keeps_a_large_agent_out() {
    let mut grid = walled_grid();
    let narrow = Link::new(Cell::new(8, 4), Cell::new(11, 4), 2.0).with_max_size(1);
    grid.add_link(narrow).expect("a valid link");
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let small = spawn(
        &mut app,
        PathRequest::new(Cell::new(1, 1), Cell::new(15, 1)),
    );
    let boss = spawn(
        &mut app,
        PathRequest::new(Cell::new(1, 1), Cell::new(15, 1)).with_size(2),
    );
    settle(&mut app, &[small, boss]);
    assert_eq!(path(&app, small).status, PathStatus::Found);
    assert_eq!(path(&app, boss).status, PathStatus::NoPath);
}

/// The link messages and events the app saw, in order.
#[derive(Resource, Default)]
struct LinkLog {
    reached: Vec<LinkReached>,
    crossed: Vec<LinkCrossed>,
    reached_events: usize,
    crossed_events: usize,
}

fn log_links(
    mut reached: MessageReader<LinkReached>,
    mut crossed: MessageReader<LinkCrossed>,
    mut log: ResMut<LinkLog>,
) {
    log.reached.extend(reached.read().copied());
    log.crossed.extend(crossed.read().copied());
}

/// An app on the one-door grid with a follower walking from the left to the right side, and
/// the link log.
fn walking_app(hold: bool) -> (App, Entity, LinkId) {
    let (grid, door, _) = split_grid(true);
    let mut app = logged_app(grid);
    if hold {
        app.add_observer(
            |reached: On<LinkReached>, mut followers: Query<&mut PathFollower>| {
                if let Ok(mut follower) = followers.get_mut(reached.entity) {
                    assert!(follower.hold_crossing());
                }
            },
        );
    }
    let agent = spawn_walker(
        &mut app,
        PathRequest::new(Cell::new(7, 2), Cell::new(14, 2)),
    );
    (app, agent, door)
}

/// An app on `grid` that logs the link messages and events in a [`LinkLog`].
fn logged_app(grid: Grid) -> App {
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    app.init_resource::<LinkLog>()
        .add_systems(Last, log_links)
        .add_observer(|_: On<LinkReached>, mut log: ResMut<LinkLog>| log.reached_events += 1)
        .add_observer(|_: On<LinkCrossed>, mut log: ResMut<LinkLog>| log.crossed_events += 1);
    app
}

/// Spawns a follower with `request` on its start's footprint, at 5 cells a second (50 units
/// on 10-unit cells).
fn spawn_walker(app: &mut App, request: PathRequest) -> Entity {
    let position = app
        .world()
        .resource::<NavGrid>()
        .footprint_center(request.start, request.size);
    app.world_mut()
        .spawn((
            request,
            PathFollower::new(50.0),
            Transform::from_translation(position.extend(0.0)),
        ))
        .id()
}

/// Updates until `agent`'s follower finished a found path; false when it never does.
fn walk_to_the_end(app: &mut App, agent: Entity) -> bool {
    walk_while(app, agent, |_| {})
}

#[test]
fn a_follower_walks_past_a_link_its_search_did_not_take() {
    // Between two neighbours: a slow door the walk beats, and a narrow one a 2x2 agent may
    // not take.
    let mut grid = Grid::new(10, 6);
    grid.add_link(Link::new(Cell::new(2, 2), Cell::new(3, 2), 5.0))
        .expect("a valid link");
    grid.add_link(Link::new(Cell::new(2, 4), Cell::new(3, 4), 0.5).with_max_size(1))
        .expect("a valid link");
    let mut app = logged_app(grid);
    let small = spawn_walker(&mut app, PathRequest::new(Cell::new(0, 2), Cell::new(6, 2)));
    let large = spawn_walker(
        &mut app,
        PathRequest::new(Cell::new(0, 4), Cell::new(6, 4)).with_size(2),
    );
    assert!(walk_to_the_end(&mut app, small) && walk_to_the_end(&mut app, large));
    let log = app.world().resource::<LinkLog>();
    assert!(log.reached.is_empty(), "stopped at {:?}", log.reached);
    let nav = app.world().resource::<NavGrid>();
    let request = *app.world().get::<PathRequest>(large).expect("a request");
    assert!(path(&app, large).link_steps(nav, &request).is_empty());
}

/// The world centre of `cell` on the app's grid.
fn cell_center(app: &App, cell: Cell) -> Vec2 {
    app.world().resource::<NavGrid>().cell_center(cell)
}

fn position_of(app: &App, agent: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(agent)
        .expect("a transform")
        .translation
        .truncate()
}

#[test]
fn a_follower_stops_at_a_link_then_crosses_after_its_cost_in_time() {
    let (mut app, agent, door) = walking_app(false);
    let (near, far) = {
        let nav = app.world().resource::<NavGrid>();
        (
            nav.cell_center(Cell::new(9, 2)),
            nav.cell_center(Cell::new(11, 2)),
        )
    };
    let mut frames_at_link = 0;
    let mut arrived = false;
    for _ in 0..MAX_FRAMES {
        app.update();
        let follower = app.world().get::<PathFollower>(agent).expect("a follower");
        let position = position_of(&app, agent);
        if follower.crossing().is_some() {
            frames_at_link += 1;
            assert!(
                position.distance(near) < 1e-3,
                "waits at the near end: {position}"
            );
        }
        // Never anywhere inside the wall's column.
        assert!(
            (position.x - 105.0).abs() > 4.0,
            "walked through the wall: {position}"
        );
        if follower.is_finished() && path(&app, agent).is_found() {
            arrived = true;
            break;
        }
    }
    assert!(arrived);
    let log = app.world().resource::<LinkLog>();
    assert_eq!(log.reached.len(), 1);
    assert_eq!(log.crossed.len(), 1);
    assert_eq!((log.reached_events, log.crossed_events), (1, 1));
    let reached = log.reached[0];
    assert_eq!((reached.entity, reached.link), (agent, door));
    assert_eq!(
        (reached.from, reached.to),
        (Cell::new(9, 2), Cell::new(11, 2))
    );
    assert_eq!(reached.cost, 2.0);
    // Cost 2 at 5 cells a second: 0.4 s, 25 frames of 16 ms, give or take the frame it
    // stopped in and the one it came out in.
    assert!(
        (24..=27).contains(&frames_at_link),
        "{frames_at_link} frames at the link"
    );
    let goal = cell_center(&app, Cell::new(14, 2));
    assert!(position_of(&app, agent).distance(goal) < 1e-3);
    assert!(far.x > near.x);
}

#[test]
fn a_held_follower_waits_at_the_link_until_released() {
    let (mut app, agent, _) = walking_app(true);
    let near = cell_center(&app, Cell::new(9, 2));
    let mut held_frames = 0;
    for _ in 0..MAX_FRAMES {
        app.update();
        let crossing = app
            .world()
            .get::<PathFollower>(agent)
            .and_then(|follower| follower.crossing().copied());
        if crossing.is_some_and(|crossing| crossing.held) {
            held_frames += 1;
            assert!(position_of(&app, agent).distance(near) < 1e-3);
            if held_frames == 100 {
                break;
            }
        }
    }
    assert_eq!(held_frames, 100, "held far longer than the link's cost");
    assert!(app.world().resource::<LinkLog>().crossed.is_empty());
    let mut follower = app
        .world_mut()
        .get_mut::<PathFollower>(agent)
        .expect("a follower");
    assert!(follower.release_crossing());
    app.update();
    let far = cell_center(&app, Cell::new(11, 2));
    let position = position_of(&app, agent);
    assert!(
        position.x >= far.x - 1e-3,
        "came out at the far end: {position}"
    );
    assert_eq!(app.world().resource::<LinkLog>().crossed.len(), 1);
}

#[test]
fn a_large_agent_follows_a_door_as_it_closes_and_opens() {
    let mut grid = walled_grid();
    let door = grid
        .add_link(Link::new(Cell::new(8, 4), Cell::new(11, 4), 2.0))
        .expect("a valid link");
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let boss = spawn(
        &mut app,
        PathRequest::new(Cell::new(1, 1), Cell::new(15, 1)).with_size(2),
    );
    for (open, status) in [
        (true, PathStatus::Found),
        (false, PathStatus::NoPath),
        (true, PathStatus::Found),
    ] {
        set_door(&mut app, door, open);
        app.update();
        settle(&mut app, &[boss]);
        assert_eq!(path(&app, boss).status, status, "door open: {open}");
    }
}

#[test]
fn a_crowd_agent_waits_at_a_link_out_of_the_crowd_and_never_stands_in_the_wall() {
    let (mut app, agent, door) = walking_app(false);
    app.world_mut()
        .entity_mut(agent)
        .insert(CrowdAvoidance::default());
    let goal = cell_center(&app, Cell::new(14, 2));
    let mut arrived = false;
    let mut frames_at_link = 0;
    for _ in 0..MAX_FRAMES {
        app.update();
        let position = position_of(&app, agent);
        // The wall's column spans x from 100 to 110: a disc of 3.5 units never reaches into it.
        assert!(
            position.x < 100.0 - 3.0 || position.x > 110.0 + 3.0,
            "in the wall: {position}"
        );
        let crossing = app
            .world()
            .get::<PathFollower>(agent)
            .and_then(PathFollower::crossing)
            .is_some();
        frames_at_link += usize::from(crossing);
        if crossing {
            // Out of the crowd while it crosses.
            assert_eq!(app.world().resource::<PathfindingStats>().crowd_agents, 0);
        }
        if position.distance(goal) < 1.0 {
            arrived = true;
            break;
        }
    }
    assert!(arrived, "stopped at {}", position_of(&app, agent));
    // Cost 2 at 5 cells a second: 0.4 s, 25 frames of 16 ms.
    assert!(
        (24..=27).contains(&frames_at_link),
        "{frames_at_link} frames at the link"
    );
    let log = app.world().resource::<LinkLog>();
    assert_eq!((log.reached.len(), log.crossed.len()), (1, 1));
    assert_eq!(log.crossed[0].link, door);
    assert_eq!((log.reached_events, log.crossed_events), (1, 1));
}

#[test]
fn a_new_path_through_the_same_link_lets_the_crossing_go_on() {
    let (mut app, agent, door) = walking_app(false);
    let mut frames_at_link = 0;
    let mut goal_changed = false;
    assert!(walk_while(&mut app, agent, |app| {
        let crossing = app
            .world()
            .get::<PathFollower>(agent)
            .and_then(|follower| follower.crossing().copied());
        if crossing.is_some() {
            frames_at_link += 1;
        }
        if frames_at_link == 5 && !goal_changed {
            // A new goal beyond the door: the new path starts with the same link.
            goal_changed = true;
            let mut request = app
                .world_mut()
                .get_mut::<PathRequest>(agent)
                .expect("a request");
            request.goal = Cell::new(15, 4);
            request.start = Cell::new(9, 2);
        }
    }));
    let log = app.world().resource::<LinkLog>();
    assert!(goal_changed);
    assert_eq!(log.reached.len(), 1, "announced once: {:?}", log.reached);
    assert_eq!((log.crossed.len(), log.crossed[0].link), (1, door));
    assert!(
        (24..=30).contains(&frames_at_link),
        "{frames_at_link} frames at the link"
    );
    let goal = cell_center(&app, Cell::new(15, 4));
    assert!(position_of(&app, agent).distance(goal) < 1e-3);
}

/// Updates until `agent`'s follower finished a found path, calling `each` after every frame;
/// false when it never does.
fn walk_while(app: &mut App, agent: Entity, mut each: impl FnMut(&mut App)) -> bool {
    for _ in 0..MAX_FRAMES {
        app.update();
        each(app);
        let finished = app
            .world()
            .get::<PathFollower>(agent)
            .is_some_and(PathFollower::is_finished);
        if finished && path(app, agent).is_found() {
            return true;
        }
    }
    false
}

#[test]
fn a_link_entity_adds_edits_and_removes_its_link() {
    let mut app = app_with_grid(AStarPlugin::default(), walled_grid());
    let request = PathRequest::new(Cell::new(2, 2), Cell::new(17, 2));
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).status, PathStatus::NoPath);
    // A door as an entity: the agent, which could not reach its goal, goes through it.
    let door = app
        .world_mut()
        .spawn(NavLink(Link::new(Cell::new(9, 5), Cell::new(11, 5), 2.0)))
        .id();
    app.update();
    settle(&mut app, &[agent]);
    let state = app
        .world()
        .get::<NavLinkState>(door)
        .expect("a state")
        .clone();
    let id = state.id().expect("added");
    let found = path(&app, agent);
    assert!(found.is_found());
    let nav = app.world().resource::<NavGrid>();
    assert_eq!(found.link_steps(nav, &request)[0].1, id);
    // Closed through the component: the path is cut and no other way is left.
    app.world_mut()
        .get_mut::<NavLink>(door)
        .expect("a link")
        .0
        .open = false;
    app.update();
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).status, PathStatus::NoPath);
    let nav = app.world().resource::<NavGrid>();
    assert_eq!(
        nav.grid().links().get(id).map(|link| link.open),
        Some(false)
    );
    // A cost changed: the link is replaced, open again, under a new id.
    {
        let mut link = app.world_mut().get_mut::<NavLink>(door).expect("a link");
        link.0.open = true;
        link.0.cost = 3.0;
    }
    app.update();
    settle(&mut app, &[agent]);
    let new_id = app
        .world()
        .get::<NavLinkState>(door)
        .and_then(NavLinkState::id);
    assert!(new_id.is_some_and(|new_id| new_id != id));
    assert!(path(&app, agent).is_found());
    // Despawned: the link is gone, and with it the way.
    app.world_mut().despawn(door);
    app.update();
    settle(&mut app, &[agent]);
    assert!(app.world().resource::<NavGrid>().grid().links().is_empty());
    assert_eq!(path(&app, agent).status, PathStatus::NoPath);
    // A link to a blocked cell is refused, and says why.
    let bad = app
        .world_mut()
        .spawn(NavLink(Link::new(Cell::new(9, 5), Cell::new(10, 5), 1.0)))
        .id();
    app.update();
    let state = app
        .world()
        .get::<NavLinkState>(bad)
        .expect("a state")
        .clone();
    assert_eq!(state.id(), None);
    assert!(
        matches!(state.error(), Some(LinkError::Blocked { .. })),
        "{state:?}"
    );
}

#[test]
fn a_new_shortcut_re_paths_agents_under_the_touched_or_opened_policy() {
    let grid = Grid::new(30, 6);
    let plugin = AStarPlugin::default().with_invalidation(InvalidationPolicy::TouchedOrOpened);
    let mut app = app_with_grid(plugin, grid.clone());
    let request = PathRequest::new(Cell::new(1, 1), Cell::new(28, 1));
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    assert!(costs_match(path(&app, agent).cost(), 27.0));
    app.world_mut()
        .resource_mut::<NavGrid>()
        .add_link(Link::new(Cell::new(2, 1), Cell::new(27, 1), 1.0))
        .expect("a valid link");
    app.update();
    settle(&mut app, &[agent]);
    assert!(costs_match(path(&app, agent).cost(), 3.0));
    // Under the default policy a shortcut leaves found paths alone.
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    app.world_mut()
        .resource_mut::<NavGrid>()
        .add_link(Link::new(Cell::new(2, 1), Cell::new(27, 1), 1.0))
        .expect("a valid link");
    app.update();
    settle(&mut app, &[agent]);
    assert!(costs_match(path(&app, agent).cost(), 27.0));
}

/// The largest distance `agent` moved in one frame while `app` updates until every one of
/// `agents` finished its found path (or gives up), calling `each` after every frame.
fn largest_move(
    app: &mut App,
    agent: Entity,
    agents: &[Entity],
    mut each: impl FnMut(&mut App),
) -> f32 {
    let mut last = position_of(app, agent);
    let mut largest = 0.0f32;
    for _ in 0..MAX_FRAMES {
        app.update();
        each(app);
        let now = position_of(app, agent);
        largest = largest.max(now.distance(last));
        last = now;
        let finished = |agent: Entity| {
            app.world()
                .get::<PathFollower>(agent)
                .is_some_and(PathFollower::is_finished)
                && path(app, agent).is_found()
        };
        if agents.iter().copied().all(finished) {
            break;
        }
    }
    largest
}

#[test]
fn a_walk_between_the_ends_of_a_dearer_link_is_walked() {
    // A slow lift along an open corridor: the walk (17) beats it (40). A smoothed path's one
    // move, and a shared tree's straight run, join the lift's ends without taking it.
    for shared in [false, true] {
        let mut grid = Grid::new(20, 3);
        grid.add_link(Link::new(Cell::new(1, 1), Cell::new(18, 1), 40.0))
            .expect("a valid link");
        let mut app = logged_app(grid);
        let shared_goal_min_agents = if shared { 2 } else { 0 };
        app.insert_resource(PathfindingSettings {
            shared_goal_min_agents,
            ..default()
        });
        let agents: Vec<Entity> = [1, 0, 2]
            .map(|y| {
                let request = PathRequest::new(Cell::new(1, y), Cell::new(18, 1));
                spawn_walker(&mut app, request.with_smoothing(!shared))
            })
            .into_iter()
            .collect();
        let largest = largest_move(&mut app, agents[0], &agents, |_| {});
        assert!(
            largest < 5.0,
            "moved {largest} in a frame (shared: {shared})"
        );
        let log = app.world().resource::<LinkLog>();
        assert!(log.reached.is_empty(), "stopped: {:?}", log.reached);
    }
}

#[test]
fn a_door_closed_while_an_agent_crosses_it_is_not_crossed() {
    // Four agents on one goal's shared tree, through door A; A closes while the first stands
    // at it, crossing: it waits, then goes round by door B.
    let mut grid = walled_grid();
    let door = grid
        .add_link(Link::new(Cell::new(9, 2), Cell::new(11, 2), 6.0))
        .expect("a valid link");
    grid.add_link(Link::new(Cell::new(9, 8), Cell::new(11, 8), 2.0))
        .expect("a valid link");
    for shared_goal_min_agents in [2, 0] {
        let mut app = logged_app(grid.clone());
        app.insert_resource(PathfindingSettings {
            shared_goal_min_agents,
            ..default()
        });
        let agents: Vec<Entity> = (0..4)
            .map(|y| {
                spawn_walker(
                    &mut app,
                    PathRequest::new(Cell::new(7, 1 + y), Cell::new(15, 2)),
                )
            })
            .collect();
        let first = agents[0];
        let mut closed = false;
        let largest = largest_move(&mut app, first, &agents, |app| {
            let crossing = app
                .world()
                .get::<PathFollower>(first)
                .and_then(|follower| follower.crossing().copied());
            if !closed && crossing.is_some_and(|crossing| crossing.link == door) {
                closed = true;
                set_door(app, door, false);
            }
        });
        assert!(closed, "the first agent reached the door");
        // No move longer than a door's two cells (20 units): nothing else jumps.
        assert!(largest < 21.0, "moved {largest} in a frame");
        let log = app.world().resource::<LinkLog>();
        let through = |crossed: &&LinkCrossed| crossed.link == door && crossed.entity == first;
        assert!(
            !log.crossed.iter().any(|c| through(&c)),
            "{:?}",
            log.crossed
        );
    }
}

#[test]
fn a_crossing_lasts_the_link_s_cost_in_straight_steps_of_any_cost_model() {
    // A door of cost 20 under the 10/14 integer model is two straight steps: at 5 cells a
    // second, 0.4 s, 25 frames.
    let mut grid = walled_grid();
    grid.add_link(Link::new(Cell::new(9, 2), Cell::new(11, 2), 20.0))
        .expect("a valid link");
    let mut app = logged_app(grid);
    let mut request = PathRequest::new(Cell::new(7, 2), Cell::new(14, 2));
    request.options.cost = CostModel::INTEGER_10_14;
    let agent = spawn_walker(&mut app, request);
    let mut frames_at_link = 0;
    assert!(walk_while(&mut app, agent, |app| {
        let crossing = app
            .world()
            .get::<PathFollower>(agent)
            .and_then(PathFollower::crossing);
        frames_at_link += usize::from(crossing.is_some());
    }));
    assert!(
        (24..=27).contains(&frames_at_link),
        "{frames_at_link} frames at the link"
    );
}

/// An app on `grid` with one door from `from` to `to` costing 1, goal trees shared from
/// `shared_goal_min_agents` agents, and an avoiding walker from each of `starts` to `goal`, of
/// `size` cells; the agents.
fn crowd_at_a_door(
    (from, to): (Cell, Cell),
    shared_goal_min_agents: usize,
    (starts, goal, size): (&[Cell], Cell, u8),
) -> (App, Vec<Entity>) {
    let mut grid = walled_grid();
    grid.add_link(Link::new(from, to, 1.0))
        .expect("a valid link");
    let mut app = logged_app(grid);
    app.insert_resource(PathfindingSettings {
        shared_goal_min_agents,
        ..default()
    });
    let agents = starts
        .iter()
        .map(|&start| {
            let request = PathRequest::new(start, goal).with_size(size);
            let agent = spawn_walker(&mut app, request);
            app.world_mut()
                .entity_mut(agent)
                .insert(CrowdAvoidance::default());
            agent
        })
        .collect();
    (app, agents)
}

/// Updates until every one of `agents` stands within 2.5 cells of `goal`'s footprint centre
/// for agents of `size` cells, checking `each` position every frame; whether they all did.
fn gather_at(
    app: &mut App,
    agents: &[Entity],
    (goal, size): (Cell, u8),
    each: impl Fn(Vec2),
) -> bool {
    let goal_at = app
        .world()
        .resource::<NavGrid>()
        .footprint_center(goal, size);
    let mut near = vec![false; agents.len()];
    for _ in 0..MAX_FRAMES {
        app.update();
        for (index, &agent) in agents.iter().enumerate() {
            let position = position_of(app, agent);
            each(position);
            near[index] |= position.distance(goal_at) < 25.0;
        }
        if near.iter().all(|&there| there) {
            return true;
        }
    }
    false
}

#[test]
fn a_crowd_takes_turns_through_one_door_on_own_paths_and_on_a_shared_tree() {
    let starts: Vec<Cell> = (0..6)
        .map(|index| Cell::new(2 + index % 3, 2 + index / 3 * 4))
        .collect();
    let goal = Cell::new(17, 4);
    for shared in [0, 2] {
        let door = (Cell::new(9, 4), Cell::new(11, 4));
        let (mut app, agents) = crowd_at_a_door(door, shared, (&starts, goal, 1));
        let outside_the_wall = |position: Vec2| {
            assert!(
                position.x < 97.0 || position.x > 113.0,
                "in the wall: {position}"
            );
        };
        let gathered = gather_at(&mut app, &agents, (goal, 1), outside_the_wall);
        assert!(gathered, "shared from {shared}");
        let log = app.world().resource::<LinkLog>();
        assert_eq!(log.crossed.len(), agents.len(), "each crossed once");
    }
}

#[test]
fn large_crowd_agents_go_on_from_the_far_end_of_a_link() {
    // 2x2 agents keep to their waypoints (no look-ahead): back in the crowd at the far end,
    // their walks must go on from there, not from their paths' start behind the wall, on
    // paths of their own and on a route of their goal's shared tree.
    let starts = [Cell::new(3, 2), Cell::new(3, 6)];
    let goal = Cell::new(16, 2);
    for shared in [0, 2] {
        let door = (Cell::new(8, 2), Cell::new(11, 2));
        let (mut app, agents) = crowd_at_a_door(door, shared, (&starts, goal, 2));
        assert!(
            gather_at(&mut app, &agents, (goal, 2), |_| {}),
            "shared from {shared}"
        );
        let stats = app.world().resource::<PathfindingStats>();
        assert_eq!(stats.crowd_searches_when_stuck, 0, "shared from {shared}");
        assert_eq!(app.world().resource::<LinkLog>().crossed.len(), 2);
    }
}
