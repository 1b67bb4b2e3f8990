//! Headless tests of the plugin's searches on the main thread (`SearchThread::MainThread`, and
//! always on Bevy without `multi_threaded`, as on the web): within
//! `PathfindingSettings::stage_budget` they are sliced across frames (one slice a frame with no
//! budget at all), each frame reporting the work it left in `CarriedOver::searches`, and they
//! end with the paths a whole search gives; with an ample budget a search ends in the frame it
//! starts, whatever the machine.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{app_on_tall_wall, assert_legal_and_optimal, current_grid, path, stats};
use core::time::Duration;

/// Frames a test may take.
const MAX_FRAMES: usize = 500;

/// A budget no slice of these tests reaches: every search runs whole in its first frame.
const AMPLE: Duration = Duration::from_secs(30);

/// An app on [`tall_wall_grid`](common::tall_wall_grid) whose searches run on the main thread
/// with `budget` for each stage, and an agent for each request.
fn app_with_agents(budget: Duration, requests: &[PathRequest]) -> (App, Vec<Entity>) {
    let settings = PathfindingSettings {
        stage_budget: budget,
        cache_capacity: 0,
        search_thread: SearchThread::MainThread,
        ..PathfindingSettings::default()
    };
    app_on_tall_wall(settings, requests)
}

/// Runs frames until every agent has a final path and no work is left; returns the frames it
/// took and how many of them ended with searches left on the main thread.
fn run_until_done(app: &mut App, agents: &[Entity]) -> (usize, usize) {
    let mut carried = 0;
    for frame in 1..=MAX_FRAMES {
        app.update();
        let stats = stats(app);
        carried += usize::from(stats.carried_over.searches > 0);
        let done = agents
            .iter()
            .all(|&agent| !path(app, agent).status.is_pending());
        if done && stats.in_flight == 0 && stats.queue_length == 0 {
            assert_eq!(stats.carried_over.searches, 0, "work left once all is done");
            return (frame, carried);
        }
    }
    panic!("requests still pending after {MAX_FRAMES} frames");
}

/// Runs `requests` with no budget and with an ample one: the first takes more frames, nearly
/// every one of them carrying work over, and both end with optimal paths.
fn sliced_and_whole(requests: &[PathRequest]) {
    let (mut app, agents) = app_with_agents(Duration::ZERO, requests);
    let (sliced, carried) = run_until_done(&mut app, &agents);
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(requests) {
        assert_legal_and_optimal(&grid, &path(&app, agent), request);
    }
    let (mut app, agents) = app_with_agents(AMPLE, requests);
    let (whole, carried_whole) = run_until_done(&mut app, &agents);
    for (&agent, request) in agents.iter().zip(requests) {
        assert_legal_and_optimal(&grid, &path(&app, agent), request);
    }
    assert_eq!(
        carried_whole, 0,
        "an ample budget leaves no search for later"
    );
    assert!(whole <= 2, "ample budget: {whole} frames");
    assert!(
        sliced >= whole + 4,
        "no budget: {sliced} frames, ample: {whole}"
    );
    // All but the frame that finishes the work (and one that applies a field's paths).
    assert!(
        carried + 2 >= sliced,
        "{carried} of {sliced} frames carried searches over"
    );
}

#[test]
fn an_a_star_search_is_sliced_across_frames_and_finds_the_optimal_path() {
    let request = PathRequest::new(Cell::new(0, 0), Cell::new(159, 0));
    sliced_and_whole(&[request]);
}

#[test]
fn with_an_ample_budget_a_search_ends_in_the_frame_it_starts() {
    let requests = [
        PathRequest::new(Cell::new(0, 0), Cell::new(159, 0)),
        PathRequest::new(Cell::new(3, 150), Cell::new(120, 7)),
    ];
    let (mut app, agents) = app_with_agents(AMPLE, &requests);
    app.update();
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(&requests) {
        let found = path(&app, agent);
        assert!(found.is_found(), "{:?}", found.status);
        assert_legal_and_optimal(&grid, &found, request);
    }
    // A new goal is answered in the frame that asks for it too.
    let moved = PathRequest::new(Cell::new(0, 0), Cell::new(150, 150));
    app.world_mut().entity_mut(agents[0]).insert(moved);
    app.update();
    let found = path(&app, agents[0]);
    assert!(found.is_found(), "{:?}", found.status);
    assert_legal_and_optimal(&grid, &found, &moved);
}

#[test]
fn a_goal_batch_is_sliced_across_frames_and_every_path_is_optimal() {
    let requests: Vec<PathRequest> = (0..12)
        .map(|row| PathRequest::new(Cell::new(2, row * 13), Cell::new(150, 80)))
        .collect();
    let (mut app, agents) = app_with_agents(Duration::ZERO, &requests);
    run_until_done(&mut app, &agents);
    assert_eq!(stats(&app).goal_batches, 1, "{:?}", stats(&app));
    sliced_and_whole(&requests);
}

#[test]
fn a_flow_field_is_built_across_frames_and_every_path_is_optimal() {
    let requests: Vec<PathRequest> = (0..3)
        .map(|row| {
            PathRequest::new(Cell::new(1, row * 50), Cell::new(159, 5))
                .with_algorithm(PathAlgorithm::FlowField)
        })
        .collect();
    sliced_and_whole(&requests);
}

#[test]
fn a_sliced_search_nobody_waits_for_is_dropped() {
    let request = PathRequest::new(Cell::new(0, 0), Cell::new(159, 0));
    let (mut app, agents) = app_with_agents(Duration::ZERO, &[request]);
    app.update();
    app.update();
    assert_eq!(stats(&app).carried_over.searches, 1);
    app.world_mut().despawn(agents[0]);
    app.update();
    app.update();
    let stats = stats(&app);
    assert_eq!(stats.carried_over.searches, 0, "{stats:?}");
    assert_eq!(stats.in_flight, 0, "{stats:?}");
    assert_eq!(stats.searches_cancelled, 1, "{stats:?}");
}

#[test]
fn a_thread_that_ends_with_a_search_part_way_through_exits_cleanly() {
    let finished = std::thread::spawn(|| {
        let request = PathRequest::new(Cell::new(0, 0), Cell::new(159, 0));
        let (mut app, _) = app_with_agents(Duration::ZERO, &[request]);
        app.update();
        app.update();
        let left = stats(&app).carried_over.searches;
        drop(app);
        // The search stays queued on this thread, and is dropped as the thread ends.
        left
    })
    .join();
    assert_eq!(finished.ok(), Some(1));
}
