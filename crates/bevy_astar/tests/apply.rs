//! Headless tests of the Apply stage: results written with their messages and events, stale
//! results and results for changed requests never applied, despawns mid-search, and the
//! per-frame apply budget.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    MAX_FRAMES, Seen, app_with_grid, assert_valid_path, path, settle, spawn, stats, walled_grid,
};

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
        .cells()
        .iter()
        .map(|&cell| nav.cell_center(cell))
        .collect();
    assert_eq!(*found.waypoints(), *centers);
    assert_eq!(found.map_version, *app.world().resource::<NavVersion>());
    assert_eq!(stats(&app).searches_started, 1);

    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.ready, vec![agent]);
    assert_eq!(seen.found_events, vec![agent]);
    assert!(seen.failed.is_empty() && seen.not_found_events.is_empty());
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
                .after(PathfindingSystems::Dispatch)
                .before(PathfindingSystems::Apply),
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
        assert!(!current.cells().contains(&blocked), "stale path applied");
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
                .after(PathfindingSystems::Dispatch)
                .before(PathfindingSystems::Apply),
        );
    for _ in 0..MAX_FRAMES {
        app.update();
        let current = path(&app, agent);
        assert!(
            !current.cells().contains(&old_goal),
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
                .after(PathfindingSystems::Dispatch)
                .before(PathfindingSystems::Apply),
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
fn a_large_batch_is_applied_over_several_frames_within_the_budget() {
    const BUDGET: u32 = 10;
    let grid = Grid::new(30, 30);
    let goal = Cell::new(29, 29);
    // Without goal trees, which would answer the 45 agents with one tree instead.
    let plugin = AStarPlugin::default().with_settings(PathfindingSettings {
        max_paths_applied_per_frame: BUDGET,
        shared_goal_min_agents: 0,
        ..PathfindingSettings::default()
    });
    let mut app = app_with_grid(plugin, grid.clone());
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
fn a_request_that_asks_for_a_trace_keeps_it() {
    let mut app = app_with_grid(AStarPlugin::default(), walled_grid());
    let request = PathRequest::new(Cell::new(0, 4), Cell::new(9, 0));
    let traced = spawn(
        &mut app,
        request.with_options(request.options.with_trace(true)),
    );
    let plain = spawn(&mut app, request);
    settle(&mut app, &[traced, plain]);
    for _ in 0..3 {
        app.update();
    }
    let trace = app.world().get::<PathTrace>(traced).expect("trace kept");
    assert!(!trace.trace.expansions.is_empty());
    assert!(app.world().get::<PathTrace>(plain).is_none());
}
