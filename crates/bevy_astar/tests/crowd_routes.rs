//! Headless tests of density-aware routes: with `CrowdSettings::route_density_weight`, a goal's
//! shared tree weighs the crowd on its cells, and a crowd spreads over two gaps of nearly equal
//! route length instead of queueing at the shorter one.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{FRAME, app_with_grid, stats};
use core::time::Duration;

/// World units per cell in the test apps.
const CELL: f32 = 10.0;
/// Three cells a second.
const SPEED: f32 = 30.0;

/// The column of the wall between the crowd and its goal.
const WALL: u32 = 48;
/// The rows of the gap in line with the crowd and its goal, the shorter way.
const STRAIGHT_GAP: [u32; 2] = [14, 15];
/// The rows of the gap 11 rows above it: for every agent, 7 to 11 cells longer.
const SIDE_GAP: [u32; 2] = [3, 4];
/// Where every agent goes.
const GOAL: Cell = Cell::new(70, 14);

/// An 80 x 30 map cut by a wall at [`WALL`] with two gaps two cells wide.
fn two_gaps() -> Grid {
    Grid::from_fn(80, 30, |cell| {
        let gap = STRAIGHT_GAP.contains(&cell.y) || SIDE_GAP.contains(&cell.y);
        u8::from(cell.x != WALL || gap)
    })
}

/// The plugin, searching on the main thread so that every run is the same.
fn plugin() -> AStarPlugin {
    AStarPlugin::default().with_settings(PathfindingSettings {
        stage_budget: Duration::from_secs(30),
        search_thread: SearchThread::MainThread,
        ..PathfindingSettings::default()
    })
}

/// How many agents of a run crossed the wall through each gap: the straight one, the side one.
#[derive(Debug, Default, PartialEq)]
struct Crossings {
    straight: usize,
    side: usize,
    /// Simulated seconds until the run stopped.
    seconds: f32,
}

/// Runs 400 avoiding agents (40 x 10, one a cell, west of the wall, rows 10 to 19) to
/// [`GOAL`] with `weight` as the route density weight, until `wanted` of them crossed the wall
/// or `seconds` went by; counts the crossings through each gap (the row an agent crossed at)
/// and how many routes were read again.
fn run(weight: f32, wanted: usize, seconds: f32) -> (Crossings, u64) {
    let mut app = app_with_grid(plugin(), two_gaps());
    app.world_mut()
        .resource_mut::<CrowdSettings>()
        .route_density_weight = weight;
    let mut agents = Vec::new();
    for row in 0..10 {
        for column in 0..40 {
            let start = Cell::new(1 + column, 10 + row);
            let position = app.world().resource::<NavGrid>().cell_center(start);
            let agent = app.world_mut().spawn((
                PathRequest::new(start, GOAL),
                PathFollower::new(SPEED),
                CrowdAvoidance::default(),
                Transform::from_translation(position.extend(0.0)),
            ));
            agents.push(agent.id());
        }
    }
    let mut crossed = vec![false; agents.len()];
    let mut crossings = Crossings::default();
    let frames = (seconds / FRAME.as_secs_f32()) as usize;
    for frame in 1..=frames {
        app.update();
        crossings.seconds = frame as f32 * FRAME.as_secs_f32();
        for (agent, crossed) in agents.iter().zip(&mut crossed) {
            let at = app.world().get::<Transform>(*agent).expect("an agent");
            let (x, y) = (at.translation.x / CELL, at.translation.y / CELL);
            if !*crossed && x > (WALL + 1) as f32 {
                *crossed = true;
                if y < (SIDE_GAP[1] + 3) as f32 {
                    crossings.side += 1;
                } else {
                    crossings.straight += 1;
                }
            }
        }
        if crossings.straight + crossings.side >= wanted {
            break;
        }
    }
    (crossings, stats(&app).crowd_routes_reread)
}

/// The bound of both runs: 240 simulated seconds, time for the crowd to cross through the
/// straight gap alone at the rate a two-cell gap lets agents through (about 1.5 a second).
const SECONDS: f32 = 240.0;

/// Of the first 300 agents through the wall, without the crowd's costs, the side gap (7 to 11
/// cells longer for everyone) carries less than a third: every route runs through the straight
/// gap, and the crowd queues there (those the crush pushes nearer the side gap, or that search
/// again when stuck, take it).
#[test]
fn without_density_the_crowd_queues_at_the_shorter_gap() {
    let (crossings, reread) = run(0.0, 300, SECONDS);
    eprintln!("without density: {crossings:?}");
    assert_eq!(crossings.straight + crossings.side, 300, "{crossings:?}");
    assert!(crossings.side * 3 < 300, "{crossings:?}");
    assert_eq!(reread, 0);
}

/// With the crowd's costs weighed (one more per agent on a cell), the first 300 agents through
/// the wall spread over both gaps, each carrying at least a third of them; the agents read their
/// routes again as the counts change.
#[test]
fn with_density_the_crowd_spreads_over_both_gaps() {
    let (crossings, reread) = run(1.0, 300, SECONDS);
    eprintln!("with density: {crossings:?}, {reread} routes read again");
    assert_eq!(crossings.straight + crossings.side, 300, "{crossings:?}");
    assert!(crossings.side * 3 >= 300, "{crossings:?}");
    assert!(crossings.straight * 3 >= 300, "{crossings:?}");
    assert!(reread > 0);
}
