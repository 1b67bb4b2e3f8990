//! Headless tests of the plugin's rules: requests, invalidation, sharing, coalescing, throttling,
//! stale results, despawns, waiting for the map, failures, messages, observers and following.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    FRAME, MAX_FRAMES, Seen, app_with, app_with_grid, assert_found_by, assert_valid_path, block,
    current_grid, illegal_walk, path, path_depends_on, reference_cost, settle, spawn, stats,
};
use std::time::Duration;

fn walled_grid() -> Grid {
    Grid::from_ascii(
        "..........
         .######...
         ......#...
         .####.#.##
         ..........",
    )
    .expect("valid map")
}

#[test]
fn a_request_gets_a_path_with_messages_and_events() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let (start, goal) = (Cell::new(0, 4), Cell::new(9, 0));
    let agent = spawn(&mut app, PathRequest::new(start, goal));
    settle(&mut app, &[agent]);

    let found = path(&app, agent);
    assert_valid_path(&grid, &found, start, goal);
    let nav = app.world().resource::<NavGrid>();
    let centers: Vec<Vec2> = found
        .cells
        .iter()
        .map(|&cell| nav.cell_center(cell))
        .collect();
    assert_eq!(found.waypoints, centers);
    assert_eq!(found.map_version, *app.world().resource::<MapVersion>());
    assert_eq!(stats(&app).searches_started, 1);

    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.ready, vec![agent]);
    assert_eq!(seen.found_events, vec![agent]);
    assert!(seen.failed.is_empty() && seen.not_found_events.is_empty());
}

#[test]
fn editing_the_map_repaths_only_agents_whose_paths_crossed_the_change() {
    let grid = Grid::new(30, 12);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let top = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 1), Cell::new(29, 1)),
    );
    let bottom = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 10), Cell::new(29, 10)),
    );
    settle(&mut app, &[top, bottom]);
    let before = stats(&app).searches_started;
    let (top_path, bottom_path) = (path(&app, top), path(&app, bottom));

    // A change touching neither path: a new map version, no search.
    let version = app.world().resource::<MapVersion>().get();
    let away = Cell::new(15, 6);
    assert!(
        !path_depends_on(&top_path.cells, away, Movement::EIGHT)
            && !path_depends_on(&bottom_path.cells, away, Movement::EIGHT)
    );
    app.world_mut()
        .resource_mut::<NavGrid>()
        .block(away)
        .unwrap();
    settle(&mut app, &[top, bottom]);
    assert_eq!(app.world().resource::<MapVersion>().get(), version + 1);
    assert_eq!(stats(&app).searches_started, before);

    // Block a cell of the top path only: exactly one more search.
    let blocked = top_path.cells[top_path.cells.len() / 2];
    assert!(!path_depends_on(
        &bottom_path.cells,
        blocked,
        Movement::EIGHT
    ));
    app.world_mut()
        .resource_mut::<NavGrid>()
        .block(blocked)
        .unwrap();
    settle(&mut app, &[top, bottom]);
    assert_eq!(stats(&app).searches_started, before + 1);
    assert_eq!(stats(&app).paths_invalidated, 1);
    let grid = app.world().resource::<NavGrid>().grid().clone();
    let new_top = path(&app, top);
    assert_valid_path(&grid, &new_top, Cell::new(0, 1), Cell::new(29, 1));
    assert!(!new_top.cells.contains(&blocked));
    assert_eq!(path(&app, bottom).revision, bottom_path.revision);
}

#[test]
fn opened_cells_repath_only_under_the_opening_policy() {
    let mut grid = Grid::new(10, 4);
    grid.fill_rect(Cell::new(0, 2), Cell::new(8, 2), 0);
    for policy in [
        InvalidationPolicy::TouchedCells,
        InvalidationPolicy::TouchedOrOpened,
    ] {
        let mut app = app_with_grid(
            AStarPlugin::default().with_invalidation(policy),
            grid.clone(),
        );
        let agent = spawn(&mut app, PathRequest::new(Cell::new(0, 0), Cell::new(0, 3)));
        settle(&mut app, &[agent]);
        let detour = path(&app, agent);
        let before = stats(&app).searches_started;
        app.world_mut()
            .resource_mut::<NavGrid>()
            .unblock(Cell::new(0, 2))
            .unwrap();
        settle(&mut app, &[agent]);
        let after = path(&app, agent);
        match policy {
            InvalidationPolicy::TouchedCells => {
                assert_eq!(stats(&app).searches_started, before);
                assert_eq!(after, detour);
            }
            InvalidationPolicy::TouchedOrOpened => {
                assert_eq!(stats(&app).searches_started, before + 1);
                let grid = app.world().resource::<NavGrid>().grid().clone();
                assert_valid_path(&grid, &after, Cell::new(0, 0), Cell::new(0, 3));
                assert!(after.cost < detour.cost);
            }
        }
    }
}

#[test]
fn identical_requests_share_one_search() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let request = PathRequest::new(Cell::new(0, 4), Cell::new(9, 0));
    let wave: Vec<Entity> = (0..50).map(|_| spawn(&mut app, request)).collect();
    settle(&mut app, &wave);
    assert_eq!(stats(&app).searches_started, 1);
    let first = path(&app, wave[0]);
    assert_valid_path(&grid, &first, request.start, request.goal);
    for &agent in &wave {
        assert_eq!(path(&app, agent).cells, first.cells);
    }
    let stats_now = stats(&app);
    assert_eq!(stats_now.shared_searches + stats_now.cache_hits, 49);

    // A later wave is served from the cache.
    let later: Vec<Entity> = (0..10).map(|_| spawn(&mut app, request)).collect();
    settle(&mut app, &later);
    assert_eq!(stats(&app).searches_started, 1);
    assert_eq!(stats(&app).cache_hits, stats_now.cache_hits + 10);
    assert_eq!(app.world().resource::<Seen>().ready.len(), 60);
}

#[test]
fn a_request_edited_five_times_is_searched_once_for_its_last_value() {
    let grid = Grid::new(20, 20);
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let agent = spawn(&mut app, PathRequest::new(Cell::new(0, 0), Cell::new(5, 5)));
    settle(&mut app, &[agent]);
    assert_eq!(stats(&app).searches_started, 1);

    // Five edits in one frame.
    for goal in 10..15 {
        app.world_mut().get_mut::<PathRequest>(agent).unwrap().goal = Cell::new(goal, 3);
    }
    settle(&mut app, &[agent]);
    assert_eq!(stats(&app).searches_started, 2);
    assert_valid_path(&grid, &path(&app, agent), Cell::new(0, 0), Cell::new(14, 3));

    // Five edits over five frames while dispatching is paused.
    app.world_mut()
        .resource_mut::<PathfindingSettings>()
        .max_searches_per_frame = 0;
    for goal in 1..6 {
        app.world_mut().get_mut::<PathRequest>(agent).unwrap().goal = Cell::new(goal, 19);
        app.update();
        assert_eq!(path(&app, agent).status, PathStatus::Queued);
    }
    app.world_mut()
        .resource_mut::<PathfindingSettings>()
        .max_searches_per_frame = 64;
    settle(&mut app, &[agent]);
    assert_eq!(stats(&app).searches_started, 3);
    assert_valid_path(&grid, &path(&app, agent), Cell::new(0, 0), Cell::new(5, 19));
}

#[test]
fn the_per_frame_cap_holds_with_a_thousand_agents_oldest_first() {
    const CAP: u32 = 16;
    const IN_FLIGHT: u32 = 24;
    let grid = Grid::new(64, 64);
    let mut app = app_with_grid(
        AStarPlugin::default()
            .with_max_searches_per_frame(CAP)
            .with_max_in_flight(IN_FLIGHT),
        grid,
    );
    let agents: Vec<Entity> = (0..1000u32)
        .map(|i| {
            let start = Cell::new(i % 50, i / 50);
            spawn(
                &mut app,
                PathRequest::new(start, Cell::new(63 - i % 50, 63 - i / 50)),
            )
        })
        .collect();

    app.update();
    let dispatched: Vec<usize> = (0..agents.len())
        .filter(|&i| path(&app, agents[i]).status != PathStatus::Queued)
        .collect();
    assert_eq!(dispatched, (0..CAP as usize).collect::<Vec<_>>());

    let mut previous = stats(&app).searches_started;
    for _ in 0..MAX_FRAMES {
        app.update();
        let now = stats(&app);
        assert!(now.searches_started - previous <= u64::from(CAP));
        assert!(now.started_last_frame <= CAP);
        assert!(now.in_flight <= IN_FLIGHT as usize);
        previous = now.searches_started;
        if now.searches_finished == 1000 && now.in_flight == 0 {
            break;
        }
    }
    assert_eq!(stats(&app).searches_started, 1000);
    assert!(agents.iter().all(|&agent| path(&app, agent).is_found()));
}

/// Blocks a cell right after the first search was dispatched, before results are collected.
#[derive(Resource)]
struct BlockAfterDispatch(Option<Cell>);

fn block_after_dispatch(
    mut block: ResMut<BlockAfterDispatch>,
    stats: Res<PathfindingStats>,
    mut nav: ResMut<NavGrid>,
) {
    if stats.searches_started >= 1
        && let Some(cell) = block.0.take()
    {
        nav.block(cell).expect("cell inside the grid");
    }
}

#[test]
fn a_stale_result_is_never_applied() {
    let grid = Grid::new(30, 3);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let blocked = Cell::new(15, 1);
    app.insert_resource(BlockAfterDispatch(Some(blocked)))
        .add_systems(
            Update,
            block_after_dispatch
                .after(AStarSystems::Dispatch)
                .before(AStarSystems::Apply),
        );
    let agent = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 1), Cell::new(29, 1)),
    );
    // The straight line is the only optimal path before the edit.
    assert!(
        astar_grid::find_path(
            &Grid::new(30, 3),
            Cell::new(0, 1),
            Cell::new(29, 1),
            &SearchOptions::default()
        )
        .unwrap()
        .found()
        .unwrap()
        .cells
        .contains(&blocked)
    );
    for _ in 0..MAX_FRAMES {
        app.update();
        let current = path(&app, agent);
        assert!(!current.cells.contains(&blocked), "stale path applied");
        if current.is_found() && stats(&app).in_flight == 0 {
            break;
        }
    }
    let grid = app.world().resource::<NavGrid>().grid().clone();
    assert_valid_path(&grid, &path(&app, agent), Cell::new(0, 1), Cell::new(29, 1));
    assert_eq!(stats(&app).stale_results_dropped, 1);
    assert_eq!(stats(&app).searches_started, 2);
    assert_eq!(app.world().resource::<Seen>().ready, vec![agent]);
}

/// Moves an agent's goal right after its first search was dispatched, before results are
/// collected.
#[derive(Resource)]
struct RetargetAfterDispatch(Option<(Entity, Cell)>);

fn retarget_after_dispatch(
    mut retarget: ResMut<RetargetAfterDispatch>,
    stats: Res<PathfindingStats>,
    mut requests: Query<&mut PathRequest>,
) {
    if stats.searches_started >= 1
        && let Some((agent, goal)) = retarget.0.take()
    {
        requests.get_mut(agent).expect("agent exists").goal = goal;
    }
}

#[test]
fn a_result_for_a_request_changed_meanwhile_is_never_applied() {
    let grid = Grid::new(30, 30);
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let (start, old_goal, new_goal) = (Cell::new(0, 0), Cell::new(29, 0), Cell::new(0, 29));
    let agent = spawn(&mut app, PathRequest::new(start, old_goal));
    app.insert_resource(RetargetAfterDispatch(Some((agent, new_goal))))
        .add_systems(
            Update,
            retarget_after_dispatch
                .after(AStarSystems::Dispatch)
                .before(AStarSystems::Apply),
        );
    for _ in 0..MAX_FRAMES {
        app.update();
        let current = path(&app, agent);
        assert!(
            !current.cells.contains(&old_goal),
            "result for the old goal applied"
        );
        if current.is_found() && stats(&app).in_flight == 0 {
            break;
        }
    }
    assert_valid_path(&grid, &path(&app, agent), start, new_goal);
    let stats = stats(&app);
    assert_eq!(stats.searches_started, 2);
    assert_eq!(
        stats.superseded_results_dropped + stats.searches_cancelled,
        1
    );
    assert_eq!(app.world().resource::<Seen>().ready, vec![agent]);
}

/// Despawns an agent right after its search was dispatched, before results are collected.
#[derive(Resource)]
struct DespawnAfterDispatch(Option<Entity>);

fn despawn_after_dispatch(world: &mut World) {
    let started = world.resource::<PathfindingStats>().searches_started;
    if started >= 1
        && let Some(agent) = world.resource_mut::<DespawnAfterDispatch>().0.take()
    {
        world.despawn(agent);
    }
}

#[test]
fn despawning_mid_search_is_harmless() {
    let mut grid = Grid::new(200, 200);
    grid.fill_rect(Cell::new(100, 0), Cell::new(100, 198), 0);
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let agent = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 0), Cell::new(199, 0)),
    );
    let bystander = spawn(&mut app, PathRequest::new(Cell::new(0, 5), Cell::new(3, 5)));
    app.insert_resource(DespawnAfterDispatch(Some(agent)))
        .add_systems(
            Update,
            despawn_after_dispatch
                .after(AStarSystems::Dispatch)
                .before(AStarSystems::Apply),
        );
    app.update();
    assert_eq!(stats(&app).searches_started, 2);
    assert!(app.world().get_entity(agent).is_err());
    settle(&mut app, &[bystander]);
    let stats = stats(&app);
    assert_eq!(stats.searches_started, 2);
    assert_eq!(stats.searches_finished + stats.searches_cancelled, 2);
    assert_eq!(stats.in_flight, 0);
    let seen = app.world().resource::<Seen>();
    assert!(!seen.ready.contains(&agent) && !seen.found_events.contains(&agent));
    assert_valid_path(
        &grid,
        &path(&app, bystander),
        Cell::new(0, 5),
        Cell::new(3, 5),
    );
}

#[test]
fn a_request_made_before_the_grid_exists_is_served_after_it_arrives() {
    let mut app = app_with(AStarPlugin::default());
    let agent = spawn(&mut app, PathRequest::new(Cell::new(0, 0), Cell::new(4, 4)));
    for _ in 0..5 {
        app.update();
        assert_eq!(path(&app, agent).status, PathStatus::WaitingForMap);
    }
    assert_eq!(stats(&app).searches_started, 0);
    assert_eq!(app.world().resource::<MapVersion>().get(), 0);
    let grid = walled_grid();
    app.insert_resource(NavGrid::new(grid.clone()));
    settle(&mut app, &[agent]);
    assert_eq!(stats(&app).searches_started, 1);
    assert_valid_path(&grid, &path(&app, agent), Cell::new(0, 0), Cell::new(4, 4));
}

#[test]
fn bad_requests_end_in_a_failed_status_with_the_reason() {
    let mut grid = walled_grid();
    // Wall in the top-right corner cell.
    for cell in [Cell::new(8, 0), Cell::new(8, 1), Cell::new(9, 1)] {
        grid.set_blocked(cell, true).unwrap();
    }
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let outside = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 0), Cell::new(10, 0)),
    );
    let blocked_goal = spawn(&mut app, PathRequest::new(Cell::new(0, 0), Cell::new(1, 1)));
    let bad_weight = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 0), Cell::new(4, 4))
            .with_options(SearchOptions::default().with_weight(0.5)),
    );
    let unreachable_goal = Cell::new(9, 0);
    assert_eq!(
        reference_cost(&grid, &PathRequest::new(Cell::new(0, 4), unreachable_goal)),
        None
    );
    let unreachable = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 4), unreachable_goal),
    );
    let agents = [outside, blocked_goal, bad_weight, unreachable];
    settle(&mut app, &agents);

    let expected = [
        (
            outside,
            PathFailure::Invalid(SearchError::GoalOutOfBounds(Cell::new(10, 0))),
        ),
        (
            blocked_goal,
            PathFailure::Invalid(SearchError::GoalBlocked(Cell::new(1, 1))),
        ),
        (
            bad_weight,
            PathFailure::Invalid(SearchError::InvalidWeight(0.5)),
        ),
        (unreachable, PathFailure::NoPath),
    ];
    let seen = app.world().resource::<Seen>();
    for (agent, reason) in expected {
        let failed = path(&app, agent);
        assert_eq!(failed.status.failure(), Some(reason));
        assert!(failed.cells.is_empty() && failed.waypoints.is_empty());
        assert!(seen.failed.contains(&(agent, reason)));
        assert!(seen.not_found_events.contains(&(agent, reason)));
    }
    assert!(seen.ready.is_empty() && seen.found_events.is_empty());

    // Unblocking the goal serves the request that waited on it.
    app.world_mut()
        .resource_mut::<NavGrid>()
        .unblock(Cell::new(1, 1))
        .unwrap();
    settle(&mut app, &agents);
    let grid = app.world().resource::<NavGrid>().grid().clone();
    assert_valid_path(
        &grid,
        &path(&app, blocked_goal),
        Cell::new(0, 0),
        Cell::new(1, 1),
    );
}

#[test]
fn world_positions_outside_the_grid_are_refused() {
    let nav = NavGrid::new(Grid::new(4, 4)).with_cell_size(Vec2::splat(10.0));
    assert_eq!(
        PathRequest::from_world(&nav, Vec2::new(5.0, 5.0), Vec2::new(-1.0, 5.0)),
        Err(bevy_astar::WorldPositionError::GoalOutsideGrid(Vec2::new(
            -1.0, 5.0
        )))
    );
    let request =
        PathRequest::from_world(&nav, Vec2::new(5.0, 5.0), Vec2::new(39.0, 21.0)).unwrap();
    assert_eq!(
        (request.start, request.goal),
        (Cell::new(0, 0), Cell::new(3, 2))
    );
}

#[test]
fn the_minimum_interval_spaces_an_agents_searches() {
    let interval = Duration::from_millis(100);
    let grid = Grid::new(40, 40);
    let mut app = app_with_grid(
        AStarPlugin::default()
            .with_min_search_interval(interval)
            .with_cache_capacity(0),
        grid,
    );
    let agent = spawn(&mut app, PathRequest::new(Cell::new(0, 0), Cell::new(1, 1)));
    let frames = 60u32;
    for frame in 0..frames {
        app.world_mut().get_mut::<PathRequest>(agent).unwrap().goal = Cell::new(frame % 40, 39);
        app.update();
    }
    // With the clock at 16 ms a frame, searches are at least 7 frames apart.
    let elapsed = FRAME * frames;
    let most = u64::from(elapsed.as_millis() as u32 / interval.as_millis() as u32) + 1;
    let started = stats(&app).searches_started;
    assert!(
        started >= 2 && started <= most,
        "{started} searches, at most {most}"
    );
}

#[test]
fn replacing_the_grid_repaths_everyone() {
    let grid = Grid::new(10, 10);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let agents: Vec<Entity> = (0..3)
        .map(|i| spawn(&mut app, PathRequest::new(Cell::new(0, i), Cell::new(9, i))))
        .collect();
    settle(&mut app, &agents);
    assert_eq!(stats(&app).searches_started, 3);
    let mut walled = Grid::new(10, 10);
    walled.fill_rect(Cell::new(5, 0), Cell::new(5, 8), 0);
    app.insert_resource(NavGrid::new(walled.clone()));
    settle(&mut app, &agents);
    assert_eq!(stats(&app).searches_started, 6);
    for (i, &agent) in agents.iter().enumerate() {
        let row = i as u32;
        assert_valid_path(
            &walled,
            &path(&app, agent),
            Cell::new(0, row),
            Cell::new(9, row),
        );
    }
}

#[test]
fn a_follower_walks_its_agent_to_the_goal() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let (start, goal) = (Cell::new(0, 4), Cell::new(9, 0));
    let start_position = app.world().resource::<NavGrid>().cell_center(start);
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal).with_smoothing(true),
            PathFollower::new(200.0),
            Transform::from_translation(start_position.extend(3.0)),
        ))
        .id();
    let goal_position = app.world().resource::<NavGrid>().cell_center(goal);
    for _ in 0..MAX_FRAMES {
        app.update();
        if app
            .world()
            .get::<PathFollower>(agent)
            .unwrap()
            .is_finished()
            && path(&app, agent).is_found()
        {
            break;
        }
    }
    let found = path(&app, agent);
    assert!(
        found.waypoints.len() < found.cells.len(),
        "smoothing drops cells"
    );
    let translation = app.world().get::<Transform>(agent).unwrap().translation;
    assert!(translation.truncate().distance(goal_position) < 1e-3);
    assert_eq!(translation.z, 3.0);
}

/// Blocks `cell` through the plugin's grid resource.
#[test]
fn jump_point_requests_get_optimal_paths_and_follow_map_edits() {
    let grid = Grid::new(40, 30);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let goal = Cell::new(39, 15);
    let starts = [Cell::new(0, 0), Cell::new(0, 15), Cell::new(0, 29)];
    let request = |start| PathRequest::new(start, goal).with_algorithm(PathAlgorithm::JumpPoint);
    let agents: Vec<Entity> = starts.map(|start| spawn(&mut app, request(start))).into();
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::JumpPoint);
    }

    // A wall across the middle with one gap: the jump point grid follows the edit.
    for y in 0..30 {
        if y != 3 {
            block(&mut app, Cell::new(20, y));
        }
    }
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert!(found.cells.contains(&Cell::new(20, 3)));
        assert_eq!(found.algorithm, PathAlgorithm::JumpPoint);
    }

    // Terrain costs: jump point search cannot honour them, so A* answers, optimally.
    app.world_mut()
        .resource_mut::<NavGrid>()
        .set_cost(Cell::new(20, 3), 5)
        .expect("inside the grid");
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::AStar);
    }

    // The terrain cost taken back: jump point search answers again.
    app.world_mut()
        .resource_mut::<NavGrid>()
        .set_cost(Cell::new(20, 3), 1)
        .expect("inside the grid");
    for &agent in &agents {
        app.world_mut()
            .get_mut::<PathRequest>(agent)
            .expect("agent alive")
            .set_changed();
    }
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::JumpPoint);
    }
}

#[test]
fn flow_field_requests_to_one_goal_share_one_field() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let goal = Cell::new(9, 0);
    let starts: Vec<Cell> = grid
        .cells()
        .filter(|&(cell, value)| value != 0 && cell != goal && cell.x < 5)
        .map(|(cell, _)| cell)
        .collect();
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| {
            let request = PathRequest::new(start, goal).with_algorithm(PathAlgorithm::FlowField);
            spawn(&mut app, request)
        })
        .collect();
    settle(&mut app, &agents);
    assert_found_by(
        &app,
        &grid,
        &agents,
        &starts,
        goal,
        PathAlgorithm::FlowField,
    );
    assert_eq!(stats(&app).flow_fields_built, 1);
    assert_eq!(stats(&app).flow_fields, 1);

    // Blocking a cell some paths use: the field is updated, not rebuilt, and only the agents
    // whose paths crossed the cell get new ones, still optimal.
    let crossed = Cell::new(5, 3);
    let cut: Vec<Entity> = agents
        .iter()
        .copied()
        .filter(|&agent| path_depends_on(&path(&app, agent).cells, crossed, Movement::EIGHT))
        .collect();
    assert!(!cut.is_empty() && cut.len() < agents.len());
    let revisions: Vec<u64> = agents
        .iter()
        .map(|&agent| path(&app, agent).revision)
        .collect();
    block(&mut app, crossed);
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    for ((&agent, &start), revision) in agents.iter().zip(&starts).zip(revisions) {
        let found = path(&app, agent);
        assert_valid_path(&grid, &found, start, goal);
        assert_eq!(found.revision > revision, cut.contains(&agent));
    }
    assert_eq!(stats(&app).flow_fields_built, 1);
    assert_eq!(stats(&app).flow_fields_updated, 1);
}

#[test]
fn a_crowd_heading_for_one_goal_is_answered_by_one_search() {
    let grid = walled_grid();
    let goal = Cell::new(9, 0);
    let starts: Vec<Cell> = grid
        .cells()
        .filter(|&(cell, value)| value != 0 && cell != goal && cell.x < 5)
        .map(|(cell, _)| cell)
        .collect();
    let (blocked, outside) = (Cell::new(1, 1), Cell::new(40, 0));
    let run = |plugin: AStarPlugin| {
        let mut app = app_with_grid(plugin, grid.clone());
        let agents: Vec<Entity> = starts
            .iter()
            .chain([&blocked, &outside, &starts[0]])
            .map(|&start| spawn(&mut app, PathRequest::new(start, goal)))
            .collect();
        settle(&mut app, &agents);
        (app, agents)
    };

    let (app, agents) = run(AStarPlugin::default());
    let distinct = starts.len() + 2;
    assert!(distinct >= PathfindingSettings::default().goal_batch_min);
    let batched = stats(&app);
    assert_eq!(batched.searches_started, 1);
    assert_eq!(batched.goal_batches, 1);
    assert_eq!(batched.batched_requests, distinct as u64);
    // The last agent repeats the first one's request and shares its answer.
    assert_eq!(batched.shared_searches, 1);
    assert_found_by(
        &app,
        &grid,
        &agents,
        &starts,
        goal,
        PathAlgorithm::FlowField,
    );
    assert_eq!(
        path(&app, agents[distinct]).cells,
        path(&app, agents[0]).cells
    );
    // Bad requests in the batch fail as their own searches would.
    assert_eq!(
        path(&app, agents[starts.len()]).status,
        PathStatus::Invalid(SearchError::StartBlocked(blocked))
    );
    assert_eq!(
        path(&app, agents[starts.len() + 1]).status,
        PathStatus::Invalid(SearchError::StartOutOfBounds(outside))
    );

    // Without batching, each different request is its own A* search, at the same costs.
    let (app, agents) = run(AStarPlugin::default().with_goal_batch_min(0));
    let searched = stats(&app);
    assert_eq!(searched.searches_started, distinct as u64);
    assert_eq!(searched.goal_batches, 0);
    assert_found_by(&app, &grid, &agents, &starts, goal, PathAlgorithm::AStar);
}

#[test]
fn a_large_batch_is_applied_over_several_frames_within_the_budget() {
    const BUDGET: u32 = 10;
    let grid = Grid::new(30, 30);
    let goal = Cell::new(29, 29);
    let mut app = app_with_grid(
        AStarPlugin::default().with_max_paths_applied_per_frame(BUDGET),
        grid.clone(),
    );
    let starts: Vec<Cell> = (0..45).map(|i| Cell::new(i % 15, i / 15)).collect();
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| spawn(&mut app, PathRequest::new(start, goal)))
        .collect();
    let mut frames_applying = 0;
    let mut applied = 0;
    for _ in 0..MAX_FRAMES {
        let before = app.world().resource::<Seen>().ready.len();
        app.update();
        let now = app.world().resource::<Seen>().ready.len();
        assert!(
            now - before <= BUDGET as usize,
            "{} paths in a frame",
            now - before
        );
        frames_applying += usize::from(now > before);
        applied = now;
        if applied == agents.len() {
            break;
        }
    }
    assert_eq!(applied, agents.len());
    assert!(frames_applying >= agents.len() / BUDGET as usize);
    assert_eq!(stats(&app).goal_batches, 1);
    for (&agent, &start) in agents.iter().zip(&starts) {
        assert_valid_path(&grid, &path(&app, agent), start, goal);
    }
}

#[test]
fn requests_that_start_at_the_agent_search_from_where_it_stands() {
    // Cells are 10 units wide (see `app_with_grid`): an agent at (55, 25) stands on (5, 2).
    let grid = Grid::new(12, 6);
    let goal = Cell::new(11, 5);
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let at = |cell: Cell| {
        Transform::from_xyz(cell.x as f32 * 10.0 + 5.0, cell.y as f32 * 10.0 + 5.0, 0.0)
    };
    let first_start = Cell::new(0, 0);
    let standing = Cell::new(5, 2);
    let request = PathRequest::new(first_start, goal).with_start_at_agent(true);
    let walker = app.world_mut().spawn((request, at(standing))).id();
    let planner = app
        .world_mut()
        .spawn((PathRequest::new(first_start, goal), at(standing)))
        .id();
    settle(&mut app, &[walker, planner]);
    assert_valid_path(&grid, &path(&app, walker), standing, goal);
    assert_eq!(
        app.world().get::<PathRequest>(walker).map(|r| r.start),
        Some(standing)
    );
    // Without the flag the request's own start is searched.
    assert_valid_path(&grid, &path(&app, planner), first_start, goal);

    // A wall across the agent's path while it waits in the queue (searches paused), and the
    // agent moves on meanwhile: its search starts from where it is when dispatched.
    app.world_mut()
        .resource_mut::<PathfindingSettings>()
        .max_searches_per_frame = 0;
    let crossed = path(&app, walker).cells[2];
    block(&mut app, crossed);
    app.update();
    assert_eq!(path(&app, walker).status, PathStatus::Queued);
    let moved_to = Cell::new(6, 4);
    *app.world_mut()
        .get_mut::<Transform>(walker)
        .expect("spawned with one") = at(moved_to);
    block(&mut app, standing);
    app.update();
    app.world_mut()
        .resource_mut::<PathfindingSettings>()
        .max_searches_per_frame = 64;
    settle(&mut app, &[walker]);
    let grid = current_grid(&app);
    assert_valid_path(&grid, &path(&app, walker), moved_to, goal);
}

#[test]
fn flow_field_requests_fail_like_searches() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let flow = |start, goal| PathRequest::new(start, goal).with_algorithm(PathAlgorithm::FlowField);
    let blocked_goal = spawn(&mut app, flow(Cell::new(0, 0), Cell::new(1, 1)));
    let outside = spawn(&mut app, flow(Cell::new(40, 0), Cell::new(0, 0)));
    // The goal (7, 3) is walled in once the five open cells around it are blocked.
    for cell in [(7, 2), (8, 2), (6, 4), (7, 4), (8, 4)] {
        block(&mut app, Cell::from(cell));
    }
    let unreachable = spawn(&mut app, flow(Cell::new(0, 0), Cell::new(7, 3)));
    settle(&mut app, &[blocked_goal, outside, unreachable]);
    assert_eq!(
        path(&app, blocked_goal).status,
        PathStatus::Invalid(SearchError::GoalBlocked(Cell::new(1, 1)))
    );
    assert_eq!(
        path(&app, outside).status,
        PathStatus::Invalid(SearchError::StartOutOfBounds(Cell::new(40, 0)))
    );
    assert_eq!(path(&app, unreachable).status, PathStatus::NoPath);
    assert!(path(&app, unreachable).cells.is_empty());
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.failed.len(), 3);
}

#[test]
fn cut_paths_are_repaired_locally_when_asked_and_never_cached() {
    let grid = Grid::new(40, 20);
    let mut app = app_with_grid(AStarPlugin::default().with_path_repair(true), grid);
    let goal = Cell::new(39, 10);
    let starts: Vec<Cell> = (0..20).map(|y| Cell::new(0, y)).collect();
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| spawn(&mut app, PathRequest::new(start, goal)))
        .collect();
    settle(&mut app, &agents);
    let searched = stats(&app).searches_started;

    // A short wall in front of the goal cuts the paths that pass through it.
    let wall: Vec<Cell> = (8..=12).map(|y| Cell::new(35, y)).collect();
    let cut: Vec<Entity> = agents
        .iter()
        .copied()
        .filter(|&agent| {
            let cells = path(&app, agent).cells;
            wall.iter()
                .any(|&cell| path_depends_on(&cells, cell, Movement::EIGHT))
        })
        .collect();
    assert!(!cut.is_empty());
    for &cell in &wall {
        block(&mut app, cell);
    }
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let repaired = path(&app, agent);
        assert_eq!(repaired.status, PathStatus::Found);
        assert_eq!(repaired.cells.first(), Some(&start));
        assert_eq!(repaired.cells.last(), Some(&goal));
        assert!(repaired.cells.iter().all(|&cell| grid.is_walkable(cell)));
        assert_eq!(illegal_walk(&grid, &repaired.cells, Movement::EIGHT), None);
    }
    assert_eq!(stats(&app).paths_repaired, cut.len() as u64);
    assert_eq!(stats(&app).searches_started, searched + cut.len() as u64);

    // A repaired path may be dearer than the best one, so a new identical request searches.
    let first_cut = path(&app, cut[0]);
    let start = first_cut.cells[0];
    let fresh = spawn(&mut app, PathRequest::new(start, goal));
    settle(&mut app, &[fresh]);
    assert_valid_path(&grid, &path(&app, fresh), start, goal);
    assert_eq!(
        stats(&app).searches_started,
        searched + cut.len() as u64 + 1
    );
}
