//! Headless tests of the plugin's searches on its own idle-priority threads
//! (`SearchThread::IdleThreads`): every engine answers from them with the paths it gives on
//! Bevy's task pool, and a map edit re-paths the agents it cuts.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    app_on_tall_wall, assert_legal_and_optimal, block, current_grid, illegal_walk, path, stats,
};
use core::time::Duration;

/// Frames a test may take.
const MAX_FRAMES: usize = 5_000;

/// An app on [`tall_wall_grid`](common::tall_wall_grid) whose searches run on the idle
/// threads, and an agent for each request.
fn app_with_agents(requests: &[PathRequest]) -> (App, Vec<Entity>) {
    let settings = PathfindingSettings {
        cache_capacity: 0,
        search_thread: SearchThread::IdleThreads,
        ..PathfindingSettings::default()
    };
    app_on_tall_wall(settings, requests)
}

/// Runs frames until every agent has a final path and no work is in flight. Each frame leaves
/// the cores a millisecond, as a game's frame pacing does: idle threads run only then.
fn run_until_done(app: &mut App, agents: &[Entity]) {
    for _ in 0..MAX_FRAMES {
        app.update();
        let stats = stats(app);
        let done = agents
            .iter()
            .all(|&agent| !path(app, agent).status.is_pending());
        if done && stats.in_flight == 0 && stats.queue_length == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("requests still pending after {MAX_FRAMES} frames");
}

#[test]
fn every_engine_answers_from_the_idle_threads_with_optimal_paths() {
    let mut requests = vec![
        PathRequest::new(Cell::new(0, 0), Cell::new(159, 0)),
        PathRequest::new(Cell::new(3, 150), Cell::new(120, 7))
            .with_algorithm(PathAlgorithm::JumpPoint),
    ];
    // A goal batch, and a flow field.
    requests
        .extend((0..12).map(|row| PathRequest::new(Cell::new(2, row * 13), Cell::new(150, 80))));
    requests.extend((0..3).map(|row| {
        PathRequest::new(Cell::new(1, row * 50), Cell::new(159, 5))
            .with_algorithm(PathAlgorithm::FlowField)
    }));
    let (mut app, agents) = app_with_agents(&requests);
    run_until_done(&mut app, &agents);
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(&requests) {
        let found = path(&app, agent);
        assert!(found.is_found(), "{request:?}: {:?}", found.status);
        assert_legal_and_optimal(&grid, &found, request);
    }
    assert!(stats(&app).goal_batches >= 1, "{:?}", stats(&app));
}

#[test]
fn hierarchical_paths_come_from_the_idle_threads_and_a_cut_one_is_replaced() {
    let requests: Vec<PathRequest> = (0..4)
        .map(|row| {
            PathRequest::new(Cell::new(2, 20 + row * 30), Cell::new(150, 100))
                .with_algorithm(PathAlgorithm::Hierarchical)
        })
        .collect();
    let (mut app, agents) = app_with_agents(&requests);
    run_until_done(&mut app, &agents);
    let cut = path(&app, agents[0]).cells().get(40).copied();
    let cut = cut.expect("a path across the wall is longer than 40 cells");
    block(&mut app, cut);
    run_until_done(&mut app, &agents);
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(&requests) {
        let found = path(&app, agent);
        assert!(found.is_found(), "{request:?}: {:?}", found.status);
        let cells = found.cells();
        let movement = request.options.movement;
        if let Some(illegal) = illegal_walk(&grid, &cells, movement) {
            panic!("{request:?}: {illegal}");
        }
        assert_eq!(cells.first(), Some(&request.start));
        assert_eq!(cells.last(), Some(&request.goal));
        assert!(
            !cells.contains(&cut),
            "{request:?} walks through the new wall"
        );
    }
}
