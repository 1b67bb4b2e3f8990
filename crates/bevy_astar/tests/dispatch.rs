//! Headless tests of the Dispatch stage: sharing and coalescing of requests, the per-frame cap
//! and queue order, waiting for the map, failed requests, the minimum interval, and searches
//! from where the agent stands; removing a request.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    FRAME, MAX_FRAMES, Seen, app_with, app_with_grid, assert_valid_path, block, current_grid, path,
    reference_cost, settle, spawn, stats, walled_grid,
};
use std::time::Duration;

#[test]
fn identical_requests_share_one_search() {
    let grid = walled_grid();
    // Without goal trees, which would give the 50 agents routes on one tree instead.
    let plugin = AStarPlugin::default().with_settings(PathfindingSettings {
        shared_goal_min_agents: 0,
        ..PathfindingSettings::default()
    });
    let mut app = app_with_grid(plugin, grid.clone());
    let request = PathRequest::new(Cell::new(0, 4), Cell::new(9, 0));
    let wave: Vec<Entity> = (0..50).map(|_| spawn(&mut app, request)).collect();
    settle(&mut app, &wave);
    assert_eq!(stats(&app).searches_started, 1);
    let first = path(&app, wave[0]);
    assert_valid_path(&grid, &first, request.start, request.goal);
    for &agent in &wave {
        assert_eq!(path(&app, agent).cells(), first.cells());
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

#[test]
fn a_request_made_before_the_grid_exists_is_served_after_it_arrives() {
    let mut app = app_with(AStarPlugin::default());
    let agent = spawn(&mut app, PathRequest::new(Cell::new(0, 0), Cell::new(4, 4)));
    for _ in 0..5 {
        app.update();
        assert_eq!(path(&app, agent).status, PathStatus::WaitingForMap);
    }
    assert_eq!(stats(&app).searches_started, 0);
    assert_eq!(app.world().resource::<NavVersion>().get(), 0);
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
        assert!(failed.cells().is_empty() && failed.waypoints().is_empty());
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
    let crossed = path(&app, walker).cells()[2];
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
fn a_request_written_again_while_its_goal_batch_runs_is_answered_once() {
    let settings = PathfindingSettings {
        goal_batch_min: 4,
        // Without `multi_threaded`, a slice of the batch a frame.
        stage_budget: Duration::ZERO,
        ..PathfindingSettings::default()
    };
    let mut app = app_with_grid(
        AStarPlugin::default().with_settings(settings),
        Grid::new(300, 300),
    );
    let goal = Cell::new(299, 299);
    let crowd: Vec<Entity> = (0..16)
        .map(|x| spawn(&mut app, PathRequest::new(Cell::new(x, 0), goal)))
        .collect();
    let first = crowd[0];
    app.update();
    // The Dijkstra over 90,000 cells is still running when the request is marked changed with
    // its value the same (as a game that writes it every frame does).
    assert_eq!(path(&app, first).status, PathStatus::Searching);
    if let Some(mut request) = app.world_mut().get_mut::<PathRequest>(first) {
        request.set_changed();
    }
    settle(&mut app, &crowd);
    let seen = app.world().resource::<Seen>();
    let answers = seen.ready.iter().filter(|&&agent| agent == first).count();
    assert_eq!(answers, 1, "one PathFound for one request");
    assert_eq!(path(&app, first).revision, 1);
    assert_valid_path(
        &current_grid(&app),
        &path(&app, first),
        Cell::new(0, 0),
        goal,
    );
    for &agent in &crowd {
        assert!(path(&app, agent).is_found());
    }
}

/// An app whose searches run on the main thread one slice a frame, on a 160 x 160 grid with a
/// wall that long paths go round: a search across it stays `Searching` for many frames.
fn app_with_slow_searches() -> App {
    let settings = PathfindingSettings {
        stage_budget: Duration::ZERO,
        search_thread: SearchThread::MainThread,
        ..PathfindingSettings::default()
    };
    let grid = Grid::from_fn(160, 160, |cell| u8::from(cell.x != 80 || cell.y >= 158));
    app_with_grid(AStarPlugin::default().with_settings(settings), grid)
}

#[test]
fn removing_a_request_cancels_its_path_and_its_search() {
    let mut app = app_with_slow_searches();
    let found = spawn(&mut app, PathRequest::new(Cell::new(0, 5), Cell::new(3, 5)));
    let searching = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 0), Cell::new(159, 0)),
    );
    let large = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 2), Cell::new(150, 2)).with_size(2),
    );
    for _ in 0..10 {
        if path(&app, found).status == PathStatus::Found {
            break;
        }
        app.update();
    }
    assert_eq!(path(&app, found).status, PathStatus::Found);
    assert_eq!(path(&app, searching).status, PathStatus::Searching);
    assert!(path(&app, large).status.is_pending());
    assert!(stats(&app).in_flight >= 1, "the searches run, sliced");
    let agents = [searching, found, large];
    let revisions = agents.map(|agent| path(&app, agent).revision);
    for agent in agents {
        app.world_mut().entity_mut(agent).remove::<PathRequest>();
    }
    app.update();
    for (agent, revision) in agents.into_iter().zip(revisions) {
        let cancelled = path(&app, agent);
        assert_eq!(cancelled.status, PathStatus::Cancelled);
        assert!(cancelled.cells().is_empty() && cancelled.waypoints().is_empty());
        assert_eq!(cancelled.revision, revision + 1);
    }
    assert_eq!(stats(&app).queue_length, 0);
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(
        stats(&app).in_flight,
        0,
        "nobody wants the searches any more"
    );
    assert!(stats(&app).searches_cancelled >= 1);
    for agent in agents {
        assert_eq!(path(&app, agent).status, PathStatus::Cancelled);
    }
    // A request inserted again is searched again; its path's revisions go on counting.
    app.world_mut()
        .entity_mut(found)
        .insert(PathRequest::new(Cell::new(0, 5), Cell::new(3, 5)));
    settle(&mut app, &[found]);
    let again = path(&app, found);
    assert_eq!(again.status, PathStatus::Found);
    assert_eq!(again.revision, revisions[1] + 2);
}

#[test]
fn a_request_removed_and_inserted_again_in_one_batch_is_searched_anew() {
    let mut app = app_with_slow_searches();
    let request = PathRequest::new(Cell::new(0, 5), Cell::new(3, 5));
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    let before = path(&app, agent).revision;
    let goal = Cell::new(4, 6);
    app.world_mut()
        .commands()
        .entity(agent)
        .remove::<PathRequest>()
        .insert(PathRequest::new(Cell::new(0, 5), goal));
    app.update();
    settle(&mut app, &[agent]);
    let found = path(&app, agent);
    assert_eq!(found.status, PathStatus::Found);
    assert_eq!(found.cells().last(), Some(&goal));
    assert!(found.revision > before + 1, "cancelled, then answered");
}

#[test]
fn despawning_an_agent_while_its_search_runs_leaves_nothing_queued_or_running() {
    let mut app = app_with_slow_searches();
    let agent = spawn(
        &mut app,
        PathRequest::new(Cell::new(0, 0), Cell::new(159, 0)),
    );
    app.update();
    app.update();
    assert_eq!(path(&app, agent).status, PathStatus::Searching);
    app.world_mut().despawn(agent);
    for _ in 0..5 {
        app.update();
    }
    assert_eq!((stats(&app).in_flight, stats(&app).queue_length), (0, 0));
}
