//! Headless tests of the stages' time budget (`PathfindingSettings::stage_budget`): a wall that
//! cuts many paths is checked and worked off over several frames, oldest first, each stage
//! reporting what it carried over, and every agent still ends with a legal, optimal path.
//! (Apply's share is tested beside it, in `apply/systems.rs`, where finished searches can be
//! awaited.)

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{app_with_grid, assert_legal_and_optimal, current_grid, path, spawn, stats};
use core::time::Duration;

/// An open 48 x 48 grid and `count` agents from as many cells of its left columns heading for
/// one goal on the right; goal batches off, so that each agent is served and applied on its
/// own.
fn crowd_app(stage_budget: Duration, count: u32) -> (App, Vec<Entity>) {
    let settings = PathfindingSettings {
        stage_budget,
        goal_batch_min: 0,
        max_searches_per_frame: 1024,
        max_in_flight: 1024,
        cache_capacity: 0,
        ..PathfindingSettings::default()
    };
    let mut app = app_with_grid(
        AStarPlugin::default().with_settings(settings),
        Grid::new(48, 48),
    );
    let agents = (0..count)
        .map(|index| {
            spawn(
                &mut app,
                PathRequest::new(Cell::new(index / 48, index % 48), Cell::new(45, 24)),
            )
        })
        .collect();
    (app, agents)
}

/// Blocks column 20 but for a gap at its foot: every path is cut.
fn wall_off(app: &mut App) {
    let mut nav = app.world_mut().resource_mut::<NavGrid>();
    for y in 0..46 {
        nav.block(Cell::new(20, y)).expect("inside the grid");
    }
}

/// Whether every agent has a final path on walkable cells of the grid as it is now and nothing
/// is left to do.
fn all_done(app: &App, agents: &[Entity]) -> bool {
    let stats = stats(app);
    let grid = current_grid(app);
    let walkable = |agent: Entity| {
        let path = path(app, agent);
        !path.status.is_pending() && path.cells().iter().all(|&cell| grid.is_walkable(cell))
    };
    agents.iter().all(|&agent| walkable(agent))
        && stats.queue_length == 0
        && stats.in_flight == 0
        && stats.carried_over == CarriedOver::default()
}

/// The largest carry-over of each stage in `a` and `b`.
fn most(a: CarriedOver, b: CarriedOver) -> CarriedOver {
    CarriedOver {
        scans: a.scans.max(b.scans),
        invalidations: a.invalidations.max(b.invalidations),
        dispatches: a.dispatches.max(b.dispatches),
        batched: a.batched.max(b.batched),
        results: a.results.max(b.results),
        searches: a.searches.max(b.searches),
    }
}

/// Runs frames until [`all_done`], recording the largest carry-over of
/// each stage; returns it and the frames it took.
fn work_off(app: &mut App, agents: &[Entity]) -> (CarriedOver, usize) {
    let mut carried = CarriedOver::default();
    for frame in 1..=2000 {
        app.update();
        carried = most(carried, stats(app).carried_over);
        if all_done(app, agents) {
            return (carried, frame);
        }
    }
    panic!("the agents were not served in 2000 frames");
}

fn assert_all_optimal(app: &App, agents: &[Entity]) {
    let grid = current_grid(app);
    for &agent in agents {
        let request = *app.world().get::<PathRequest>(agent).expect("a request");
        assert_legal_and_optimal(&grid, &path(app, agent), &request);
    }
}

#[test]
fn a_spent_budget_spreads_requests_and_a_cut_crowd_over_frames_oldest_first() {
    // More agents than Invalidate checks at a time (512).
    let count = 600;
    let (mut app, agents) = crowd_app(Duration::ZERO, count);
    // 600 new requests: Dispatch looks at 32 a frame.
    let (first, frames) = work_off(&mut app, &agents);
    assert!(first.dispatches > 0, "{first:?}");
    assert!(frames >= count as usize / 32, "{frames}");
    assert_all_optimal(&app, &agents);
    // A wall cuts all 600 paths: Invalidate checks 512 agents a frame and queues 32.
    wall_off(&mut app);
    let (cut, _) = work_off(&mut app, &agents);
    assert!(cut.scans > 0, "{cut:?}");
    assert!(cut.invalidations > 0, "{cut:?}");
    assert_all_optimal(&app, &agents);
    assert_eq!(stats(&app).paths_invalidated, u64::from(count));
}

#[test]
fn an_ample_budget_carries_nothing_over() {
    let (mut app, agents) = crowd_app(Duration::from_secs(60), 600);
    let (first, _) = work_off(&mut app, &agents);
    wall_off(&mut app);
    let (cut, _) = work_off(&mut app, &agents);
    assert_eq!(most(first, cut), CarriedOver::default());
    assert_all_optimal(&app, &agents);
}

/// 40 agents for one goal, read 32 a frame by a spent budget: the goal's batch waits for the
/// rest of the crowd, and one Dijkstra answers all 40.
#[test]
fn a_crowd_read_over_two_frames_is_answered_by_one_goal_batch() {
    // Without goal trees, which would answer the crowd with one tree instead.
    let settings = PathfindingSettings {
        stage_budget: Duration::ZERO,
        cache_capacity: 0,
        shared_goal_min_agents: 0,
        ..PathfindingSettings::default()
    };
    let mut app = app_with_grid(
        AStarPlugin::default().with_settings(settings),
        Grid::new(48, 48),
    );
    let agents: Vec<Entity> = (0..40u32)
        .map(|index| {
            spawn(
                &mut app,
                PathRequest::new(Cell::new(index / 8, index % 8), Cell::new(45, 40)),
            )
        })
        .collect();
    app.update();
    // The first 32 are gathered and held, searching, while 8 wait in the queue.
    let held = stats(&app);
    assert_eq!(held.carried_over.batched, 32, "{held:?}");
    assert_eq!(held.carried_over.dispatches, 8, "{held:?}");
    assert_eq!(held.goal_batches, 0, "{held:?}");
    let searching = agents
        .iter()
        .filter(|&&agent| path(&app, agent).status == PathStatus::Searching)
        .count();
    assert_eq!(searching, 32);
    work_off(&mut app, &agents);
    let done = stats(&app);
    assert_eq!(
        (done.goal_batches, done.batched_requests),
        (1, 40),
        "{done:?}"
    );
    assert_all_optimal(&app, &agents);
}
