//! Goals' shared trees: a crowd heading for one goal reads its routes from one tree of shortest
//! paths, a map change updates the tree and touches no agent, and `Path` still gives each
//! agent's cells and waypoints.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    MAX_FRAMES, Seen, app_with_grid, assert_legal_and_optimal, block, current_grid, path, settle,
    spawn_all, stats,
};

/// A 40 x 40 open grid, with a wall across x = 20 from y = 0 to y = 30: routes from the west
/// to the goal in the east pass the gap above it.
fn wall_grid() -> Grid {
    let mut grid = Grid::new(40, 40);
    for y in 0..=30 {
        grid.set_blocked(Cell::new(20, y), true).expect("inside");
    }
    grid
}

const GOAL: Cell = Cell::new(35, 5);

/// Frames in which a tree catches up with a map change on the main thread: the change is
/// published and the update runs in one frame, and the next frame publishes the tree.
const FRAMES_TO_UPDATE: usize = 3;

/// The plugin with `settings`, running its searches and tree updates on the main thread with a
/// budget no frame reaches, so that each ends in the frame it starts.
fn on_main_thread(settings: PathfindingSettings) -> AStarPlugin {
    AStarPlugin::default().with_settings(PathfindingSettings {
        search_thread: SearchThread::MainThread,
        stage_budget: core::time::Duration::from_secs(10),
        ..settings
    })
}

/// `count` requests for [`GOAL`] from distinct cells west of the wall.
fn crowd(count: u32) -> Vec<PathRequest> {
    (0..count)
        .map(|index| PathRequest::new(Cell::new(index % 18, index / 18 % 40), GOAL))
        .collect()
}

/// Every agent's path is on its goal's shared tree, legal and optimal on the app's grid now.
fn assert_shared_and_optimal(app: &App, agents: &[Entity], requests: &[PathRequest]) {
    let grid = current_grid(app);
    for (&agent, request) in agents.iter().zip(requests) {
        let found = path(app, agent);
        assert!(found.is_shared(), "{request:?}: {found:?}");
        assert_legal_and_optimal(&grid, &found, request);
    }
}

#[test]
fn a_thousand_agents_share_one_tree_and_a_tower_touches_none_of_them() {
    let mut app = app_with_grid(on_main_thread(PathfindingSettings::default()), wall_grid());
    let requests = crowd(1_000);
    let agents = spawn_all(&mut app, &requests);
    settle(&mut app, &agents);
    assert_shared_and_optimal(&app, &agents, &requests);
    let before = stats(&app);
    assert_eq!(before.goal_trees, 1, "{before:?}");
    assert_eq!(before.shared_routes, 1_000, "{before:?}");
    let revisions: Vec<u64> = agents
        .iter()
        .map(|&agent| path(&app, agent).revision)
        .collect();
    let found_before = app.world().resource::<Seen>().ready.len();

    // A tower in the gap above the wall: every route passes it.
    for x in 19..=21 {
        block(&mut app, Cell::new(x, 31));
    }
    for _ in 0..FRAMES_TO_UPDATE {
        app.update();
    }
    let after = stats(&app);
    assert_eq!(
        after.agents_checked_for_changes, before.agents_checked_for_changes,
        "no agent is read for the change"
    );
    assert_eq!(after.paths_invalidated, before.paths_invalidated);
    assert_eq!(after.searches_started, before.searches_started);
    assert!(
        after.flow_fields_updated > before.flow_fields_updated,
        "{after:?}"
    );
    // No agent was written: the same revisions, no new messages; yet every path is the
    // shortest on the new map.
    let revisions_now: Vec<u64> = agents
        .iter()
        .map(|&agent| path(&app, agent).revision)
        .collect();
    assert_eq!(revisions, revisions_now);
    assert_eq!(app.world().resource::<Seen>().ready.len(), found_before);
    assert_shared_and_optimal(&app, &agents, &requests);
}

#[test]
fn a_goal_with_few_agents_keeps_paths_of_their_own() {
    let mut app = app_with_grid(on_main_thread(PathfindingSettings::default()), wall_grid());
    let requests = crowd(10);
    let agents = spawn_all(&mut app, &requests);
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(&requests) {
        let found = path(&app, agent);
        assert!(!found.is_shared());
        assert_legal_and_optimal(&grid, &found, request);
    }
    assert_eq!(stats(&app).goal_trees, 0);
}

#[test]
fn the_setting_decides_when_a_goal_shares() {
    for (threshold, shared) in [(0, false), (10, true), (11, false)] {
        let settings = PathfindingSettings {
            shared_goal_min_agents: threshold,
            ..PathfindingSettings::default()
        };
        let mut app = app_with_grid(on_main_thread(settings), wall_grid());
        let agents = spawn_all(&mut app, &crowd(10));
        settle(&mut app, &agents);
        for &agent in &agents {
            assert_eq!(
                path(&app, agent).is_shared(),
                shared,
                "threshold {threshold}"
            );
        }
    }
}

#[test]
fn a_later_request_for_a_shared_goal_joins_its_tree() {
    let mut app = app_with_grid(on_main_thread(PathfindingSettings::default()), wall_grid());
    let agents = spawn_all(&mut app, &crowd(40));
    settle(&mut app, &agents);
    let late = PathRequest::new(Cell::new(2, 38), GOAL);
    let one = spawn_all(&mut app, &[late]);
    settle(&mut app, &one);
    let found = path(&app, one[0]);
    assert!(found.is_shared());
    assert_legal_and_optimal(&current_grid(&app), &found, &late);
    assert_eq!(stats(&app).goal_trees, 1);
}

#[test]
fn each_agent_kind_gets_its_own_tree() {
    let mut app = app_with_grid(on_main_thread(PathfindingSettings::default()), wall_grid());
    let small = crowd(40);
    let large: Vec<PathRequest> = small.iter().map(|request| request.with_size(2)).collect();
    let mut agents = spawn_all(&mut app, &small);
    agents.extend(spawn_all(&mut app, &large));
    settle(&mut app, &agents);
    assert_eq!(stats(&app).goal_trees, 2);
    // A gap of one cell: the two-cell agents cannot pass where the small ones do.
    for x in 19..=21 {
        block(&mut app, Cell::new(x, 32));
    }
    for _ in 0..FRAMES_TO_UPDATE {
        app.update();
    }
    let nav = app.world().resource::<NavGrid>();
    let (small_agents, large_agents) = agents.split_at(small.len());
    let grid = current_grid(&app);
    for (&agent, request) in small_agents.iter().zip(&small) {
        assert_legal_and_optimal(&grid, &path(&app, agent), request);
    }
    for &agent in large_agents {
        let cells = path(&app, agent).cells();
        assert!(!cells.is_empty());
        for &cell in cells.iter() {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let covered = Cell::new(cell.x + dx, cell.y + dy);
                assert!(
                    nav.grid().is_walkable(covered),
                    "{cell:?} covers {covered:?}"
                );
            }
        }
    }
}

#[test]
fn beyond_the_cap_goals_fall_back_to_paths_of_their_own() {
    let settings = PathfindingSettings {
        max_flow_fields: 1,
        ..PathfindingSettings::default()
    };
    let mut app = app_with_grid(on_main_thread(settings), wall_grid());
    let first = crowd(40);
    let second: Vec<PathRequest> = first
        .iter()
        .map(|request| PathRequest::new(request.start, Cell::new(36, 36)))
        .collect();
    let mut agents = spawn_all(&mut app, &first);
    agents.extend(spawn_all(&mut app, &second));
    for _ in 0..MAX_FRAMES {
        app.update();
        let now = stats(&app);
        assert!(now.flow_fields <= 1 && now.goal_trees <= 1, "{now:?}");
        if common::is_settled(&app, &agents) {
            break;
        }
    }
    let shared = agents
        .iter()
        .filter(|&&agent| path(&app, agent).is_shared())
        .count();
    assert_eq!(
        shared, 40,
        "one goal shares, the other has paths of its own"
    );
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(first.iter().chain(&second)) {
        assert_legal_and_optimal(&grid, &path(&app, agent), request);
    }
}

/// Ten cells a second, on the test grid's cells of 10 world units.
const SPEED: f32 = 100.0;

#[test]
fn followers_on_a_shared_tree_walk_round_a_new_wall() {
    let mut app = app_with_grid(on_main_thread(PathfindingSettings::default()), wall_grid());
    let requests = crowd(40);
    let agents: Vec<Entity> = requests
        .iter()
        .map(|&request| {
            let nav = app.world().resource::<NavGrid>();
            let at = nav.cell_center(request.start).extend(0.0);
            app.world_mut()
                .spawn((
                    request,
                    PathFollower::new(SPEED),
                    Transform::from_translation(at),
                ))
                .id()
        })
        .collect();
    settle(&mut app, &agents);
    // The routes run north up the column x = 19, beside the wall, to the gap. Once the first
    // agent walks that run, a wall across the column cuts it ahead of the agent.
    let on_the_run = |app: &App| {
        let nav = app.world().resource::<NavGrid>();
        let at = app.world().get::<Transform>(agents[0]).expect("an agent");
        nav.world_to_cell(at.translation.truncate())
            .is_some_and(|cell| cell.x == 19 && (20..=23).contains(&cell.y))
    };
    for _ in 0..MAX_FRAMES {
        if on_the_run(&app) {
            break;
        }
        app.update();
    }
    assert!(on_the_run(&app), "the first agent walks up the column");
    let cell_of = |app: &App, agent: Entity| {
        let nav = app.world().resource::<NavGrid>();
        let at = app.world().get::<Transform>(agent).expect("an agent");
        nav.world_to_cell(at.translation.truncate())
            .expect("on the map")
    };
    // Agents whose run crosses the new wall stand still until the tree catches up (a frame or
    // two): none steps onto it, but those it lands on.
    let near_the_wall = |cell: Cell| (18..=19).contains(&cell.x) && cell.y == 25;
    let checked: Vec<Entity> = agents
        .iter()
        .copied()
        .filter(|&agent| !near_the_wall(cell_of(&app, agent)))
        .collect();
    assert!(checked.contains(&agents[0]));
    block(&mut app, Cell::new(18, 25));
    block(&mut app, Cell::new(19, 25));
    let mut arrived = 0;
    for _ in 0..MAX_FRAMES {
        app.update();
        arrived = 0;
        for &agent in &agents {
            let cell = cell_of(&app, agent);
            let walkable = app.world().resource::<NavGrid>().grid().is_walkable(cell);
            assert!(
                walkable || !checked.contains(&agent),
                "{agent} stands on {cell:?}"
            );
            let follower = app.world().get::<PathFollower>(agent).expect("a follower");
            arrived += usize::from(follower.is_finished() && cell == GOAL);
        }
        if arrived == agents.len() {
            break;
        }
    }
    assert_eq!(arrived, agents.len());
}

#[test]
fn avoiding_agents_take_routes_on_the_tree_as_the_others_do() {
    let mut app = app_with_grid(on_main_thread(PathfindingSettings::default()), wall_grid());
    let requests = crowd(40);
    let agents: Vec<Entity> = requests
        .iter()
        .enumerate()
        .map(|(index, &request)| {
            let mut agent = app.world_mut().spawn(request);
            if index % 2 == 0 {
                agent.insert(CrowdAvoidance::default());
            }
            agent.id()
        })
        .collect();
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    for (index, (&agent, request)) in agents.iter().zip(&requests).enumerate() {
        let found = path(&app, agent);
        // The crowd reads an avoiding agent's waypoints off the tree itself; only a tree that
        // weighs the crowd gives it a copy of its own (tests/crowd_routes.rs).
        assert!(found.is_shared(), "{index}: {request:?}");
        assert_legal_and_optimal(&grid, &found, request);
    }
}

#[test]
fn agents_on_an_updated_tree_hear_of_it_when_asked_all_at_once() {
    let settings = PathfindingSettings {
        announce_shared_route_changes: true,
        ..PathfindingSettings::default()
    };
    let mut app = app_with_grid(on_main_thread(settings), wall_grid());
    let requests = crowd(100);
    let agents = spawn_all(&mut app, &requests);
    settle(&mut app, &agents);
    let heard = |app: &App| app.world().resource::<Seen>().ready.len();
    let (messages, events) = (
        heard(&app),
        app.world().resource::<Seen>().found_events.len(),
    );
    let checked = stats(&app).agents_checked_for_changes;
    for x in 19..=21 {
        block(&mut app, Cell::new(x, 31));
    }
    let mut frames_announcing = 0;
    for _ in 0..FRAMES_TO_UPDATE {
        let before = heard(&app);
        app.update();
        frames_announcing += usize::from(heard(&app) > before);
    }
    assert_eq!(
        heard(&app) - messages,
        agents.len(),
        "one message per agent on the tree"
    );
    assert_eq!(frames_announcing, 1, "all in the frame the update lands");
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.found_events.len() - events, agents.len());
    assert_eq!(stats(&app).agents_checked_for_changes, checked);
    assert_shared_and_optimal(&app, &agents, &requests);
}

#[test]
fn agents_arriving_a_few_a_frame_share_once_enough_are_about() {
    let mut app = app_with_grid(on_main_thread(PathfindingSettings::default()), wall_grid());
    let requests = crowd(150);
    let mut agents = Vec::new();
    // One agent a frame: no frame gathers 32 of them.
    for &request in &requests {
        agents.extend(spawn_all(&mut app, &[request]));
        app.update();
    }
    settle(&mut app, &agents);
    let shared: Vec<bool> = agents
        .iter()
        .map(|&agent| path(&app, agent).is_shared())
        .collect();
    assert!(!shared[0], "the first agents get paths of their own");
    let first_shared = shared
        .iter()
        .position(|&is| is)
        .expect("later agents share");
    assert!(
        shared[first_shared..].iter().all(|&is| is),
        "every agent after the first shared one shares"
    );
    assert!(
        first_shared <= 32 + 60,
        "counted within a second of 32 agents: {first_shared}"
    );
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(&requests) {
        assert_legal_and_optimal(&grid, &path(&app, agent), request);
    }
}

#[test]
fn on_a_big_map_agents_near_the_goal_walk_before_the_tree_is_whole() {
    // On the main thread a slice at a time (1 ms a frame), the first build of a 512 x 512
    // tree spans many frames.
    let settings = PathfindingSettings {
        search_thread: SearchThread::MainThread,
        stage_budget: core::time::Duration::from_millis(1),
        ..PathfindingSettings::default()
    };
    let plugin = AStarPlugin::default().with_settings(settings);
    let mut app = app_with_grid(plugin, Grid::new(512, 512));
    let goal = Cell::new(0, 0);
    let near: Vec<PathRequest> = (0..20)
        .map(|index| PathRequest::new(Cell::new(10 + index, 12), goal))
        .collect();
    let far: Vec<PathRequest> = (0..20)
        .map(|index| PathRequest::new(Cell::new(490 + index, 500), goal))
        .collect();
    let near_agents = spawn_all(&mut app, &near);
    let far_agents = spawn_all(&mut app, &far);
    let found = |app: &App, agents: &[Entity]| {
        agents
            .iter()
            .filter(|&&agent| path(app, agent).status == PathStatus::Found)
            .count()
    };
    let mut near_done = None;
    let mut far_done = None;
    for frame in 0..MAX_FRAMES {
        app.update();
        if near_done.is_none() && found(&app, &near_agents) == near.len() {
            near_done = Some(frame);
        }
        if far_done.is_none() && found(&app, &far_agents) == far.len() {
            far_done = Some(frame);
            break;
        }
        assert_eq!(
            found(&app, &far_agents),
            0,
            "the far agents wait for the whole tree"
        );
    }
    let (near_done, far_done) = (
        near_done.expect("near served"),
        far_done.expect("far served"),
    );
    assert!(
        near_done < far_done,
        "near at frame {near_done}, far at {far_done}"
    );
    let grid = current_grid(&app);
    for (&agent, request) in near_agents
        .iter()
        .chain(&far_agents)
        .zip(near.iter().chain(&far))
    {
        let route = path(&app, agent);
        assert!(route.is_shared());
        assert_legal_and_optimal(&grid, &route, request);
    }
    assert_eq!(stats(&app).flow_fields_built, 1);
}
