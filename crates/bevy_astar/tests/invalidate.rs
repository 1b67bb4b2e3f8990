//! Headless tests of the Invalidate stage: a map edit re-paths exactly the agents whose paths it
//! affects, at their cells and at the corners of their diagonal steps, under either policy;
//! results and cached paths that relied on a changed cell are dropped; a new grid re-paths
//! everyone.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    MAX_FRAMES, app_with_grid, assert_legal_and_optimal, assert_valid_path, block, current_grid,
    illegal_walk, path, path_depends_on, settle, spawn, stats,
};

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
    let version = app.world().resource::<NavVersion>().get();
    let away = Cell::new(15, 6);
    assert!(
        !path_depends_on(&top_path.cells(), away, Movement::EIGHT)
            && !path_depends_on(&bottom_path.cells(), away, Movement::EIGHT)
    );
    app.world_mut()
        .resource_mut::<NavGrid>()
        .block(away)
        .unwrap();
    settle(&mut app, &[top, bottom]);
    assert_eq!(app.world().resource::<NavVersion>().get(), version + 1);
    assert_eq!(stats(&app).searches_started, before);

    // Block a cell of the top path only: exactly one more search.
    let blocked = top_path.cells()[top_path.cells().len() / 2];
    assert!(!path_depends_on(
        &bottom_path.cells(),
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
    assert!(!new_top.cells().contains(&blocked));
    assert_eq!(path(&app, bottom).revision, bottom_path.revision);
}

#[test]
fn agents_given_paths_since_the_last_change_are_checked_against_the_next() {
    // Only agents showing results of their own are read for a change, and that set is kept
    // from change to change: an agent given its first path, or a new one, in between is held
    // to the next change as the others are, every time.
    let grid = Grid::new(30, 12);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let (early_ends, late_ends) = (
        (Cell::new(0, 1), Cell::new(29, 1)),
        (Cell::new(0, 10), Cell::new(29, 10)),
    );
    let early = spawn(&mut app, PathRequest::new(early_ends.0, early_ends.1));
    settle(&mut app, &[early]);
    // A first change, away from the path, before the second agent exists.
    block(&mut app, Cell::new(15, 6));
    settle(&mut app, &[early]);
    let late = spawn(&mut app, PathRequest::new(late_ends.0, late_ends.1));
    settle(&mut app, &[early, late]);
    for round in 1..=3 {
        for (agent, (start, goal)) in [(late, late_ends), (early, early_ends)] {
            let shown = path(&app, agent);
            let blocked = shown.cells()[shown.cells().len() / 2];
            let invalidated = stats(&app).paths_invalidated;
            block(&mut app, blocked);
            settle(&mut app, &[early, late]);
            assert_eq!(
                stats(&app).paths_invalidated,
                invalidated + 1,
                "round {round}: the change cut one path"
            );
            let found = path(&app, agent);
            assert_ne!(found.revision, shown.revision, "round {round}");
            assert!(!found.cells().contains(&blocked), "round {round}");
            assert_valid_path(&current_grid(&app), &found, start, goal);
        }
    }
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
                assert!(after.cost() < detour.cost());
            }
        }
    }
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

/// The diagonal of an open 6 x 6 grid, and its first step's corner.
const START: Cell = Cell::new(0, 0);
const GOAL: Cell = Cell::new(5, 5);
const FIRST_CORNER: Cell = Cell::new(1, 0);

fn diagonal() -> Vec<Cell> {
    (0..6).map(|i| Cell::new(i, i)).collect()
}

/// An app on an open 6 x 6 grid whose agent has settled on the diagonal path.
fn agent_on_the_diagonal(plugin: AStarPlugin, algorithm: PathAlgorithm) -> (App, Entity) {
    let mut app = app_with_grid(plugin, Grid::new(6, 6));
    let agent = spawn(
        &mut app,
        PathRequest::new(START, GOAL).with_algorithm(algorithm),
    );
    settle(&mut app, &[agent]);
    assert_eq!(*path(&app, agent).cells(), *diagonal());
    (app, agent)
}

#[test]
fn a_wall_at_the_corner_of_a_diagonal_step_repaths_the_agent() {
    for algorithm in [
        PathAlgorithm::AStar,
        PathAlgorithm::JumpPoint,
        PathAlgorithm::FlowField,
    ] {
        let (mut app, agent) = agent_on_the_diagonal(AStarPlugin::default(), algorithm);
        let revision = path(&app, agent).revision;
        block(&mut app, FIRST_CORNER);
        settle(&mut app, &[agent]);
        let repathed = path(&app, agent);
        assert!(repathed.revision > revision, "{algorithm:?} kept its path");
        assert_legal_and_optimal(
            &current_grid(&app),
            &repathed,
            &PathRequest::new(START, GOAL),
        );
        assert_eq!(stats(&app).paths_invalidated, 1);
    }
}

#[test]
fn a_wall_at_a_corner_the_rule_lets_steps_cut_leaves_the_path() {
    let request = PathRequest::new(START, GOAL)
        .with_options(SearchOptions::default().with_movement(Movement::eight(CornerRule::Any)));
    let mut app = app_with_grid(AStarPlugin::default(), Grid::new(6, 6));
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    let before = path(&app, agent);
    assert_eq!(*before.cells(), *diagonal());
    block(&mut app, FIRST_CORNER);
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).revision, before.revision);
    assert_eq!(stats(&app).paths_invalidated, 0);
}

/// Blocks the first step's corner once the first search was dispatched, before it is applied.
fn wall_the_corner_mid_search(stats: Res<PathfindingStats>, mut nav: ResMut<NavGrid>) {
    if stats.searches_started == 1 && nav.is_walkable(FIRST_CORNER) {
        nav.block(FIRST_CORNER).expect("inside the grid");
    }
}

#[test]
fn a_result_whose_diagonal_a_wall_cut_meanwhile_is_never_applied() {
    let mut app = app_with_grid(AStarPlugin::default(), Grid::new(6, 6));
    app.add_systems(
        Update,
        wall_the_corner_mid_search
            .after(PathfindingSystems::Dispatch)
            .before(PathfindingSystems::Apply),
    );
    let agent = spawn(&mut app, PathRequest::new(START, GOAL));
    for _ in 0..MAX_FRAMES {
        app.update();
        let current = path(&app, agent);
        if current.is_found() {
            let grid = current_grid(&app);
            assert_eq!(illegal_walk(&grid, &current.cells(), Movement::EIGHT), None);
            if stats(&app).in_flight == 0 {
                break;
            }
        }
    }
    assert_legal_and_optimal(
        &current_grid(&app),
        &path(&app, agent),
        &PathRequest::new(START, GOAL),
    );
    assert_eq!(stats(&app).stale_results_dropped, 1);
}

#[test]
fn a_cached_path_whose_corner_was_walled_is_not_served_again() {
    let (mut app, agent) = agent_on_the_diagonal(AStarPlugin::default(), PathAlgorithm::AStar);
    app.world_mut().despawn(agent);
    app.update();
    block(&mut app, FIRST_CORNER);
    app.update();
    let hits = stats(&app).cache_hits;
    let newcomer = spawn(&mut app, PathRequest::new(START, GOAL));
    settle(&mut app, &[newcomer]);
    assert_legal_and_optimal(
        &current_grid(&app),
        &path(&app, newcomer),
        &PathRequest::new(START, GOAL),
    );
    assert_eq!(stats(&app).cache_hits, hits);
}

#[test]
fn a_wall_at_the_corner_of_a_diagonal_step_is_repaired_around() {
    let plugin = AStarPlugin::default().with_path_repair(true);
    let (mut app, agent) = agent_on_the_diagonal(plugin, PathAlgorithm::AStar);
    block(&mut app, FIRST_CORNER);
    settle(&mut app, &[agent]);
    let repaired = path(&app, agent);
    let grid = current_grid(&app);
    assert_eq!(
        illegal_walk(&grid, &repaired.cells(), Movement::EIGHT),
        None
    );
    assert_eq!(
        (repaired.cells().first(), repaired.cells().last()),
        (Some(&START), Some(&GOAL))
    );
    assert_eq!(stats(&app).paths_repaired, 1);
}
