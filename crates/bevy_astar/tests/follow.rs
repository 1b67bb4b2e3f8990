//! Headless tests of the Follow stage: a follower walks its agent along the path to the goal.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{MAX_FRAMES, app_with_grid, path, walled_grid};

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
