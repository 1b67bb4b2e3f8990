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
        found.waypoints().len() < found.cells().len(),
        "smoothing drops cells"
    );
    let translation = app.world().get::<Transform>(agent).unwrap().translation;
    assert!(translation.truncate().distance(goal_position) < 1e-3);
    assert_eq!(translation.z, 3.0);
}

/// Where `agent` stands, in the XY plane.
fn position_of(app: &App, agent: Entity) -> Option<Vec2> {
    app.world()
        .get::<Transform>(agent)
        .map(|transform| transform.translation.truncate())
}

/// The point at `distance` along the polyline `waypoints` (its end beyond its length).
fn along(waypoints: &[Vec2], mut distance: f32) -> Vec2 {
    for pair in waypoints.windows(2) {
        let length = pair[0].distance(pair[1]);
        if distance <= length {
            return pair[0].lerp(pair[1], distance / length);
        }
        distance -= length;
    }
    waypoints.last().copied().unwrap_or_default()
}

#[test]
fn a_follower_keeps_its_speed_along_the_waypoints_through_straight_runs_and_turns() {
    let mut app = app_with_grid(AStarPlugin::default(), walled_grid());
    let (start, goal) = (Cell::new(0, 4), Cell::new(9, 0));
    let start_position = app.world().resource::<NavGrid>().cell_center(start);
    let speed = 37.0;
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal),
            PathFollower::new(speed),
            Transform::from_translation(start_position.extend(0.0)),
        ))
        .id();
    let mut walked: Option<(Vec<Vec2>, f32)> = None;
    for _ in 0..MAX_FRAMES {
        app.update();
        let found = path(&app, agent);
        if !found.is_found() {
            continue;
        }
        let delta = app.world().resource::<Time>().delta_secs();
        let (waypoints, time) = walked.get_or_insert_with(|| (found.waypoints().to_vec(), 0.0));
        assert_eq!(found.waypoints().as_ref(), waypoints.as_slice(), "one path");
        *time += delta;
        let expected = along(waypoints, speed * *time);
        let position = app.world().get::<Transform>(agent).unwrap().translation;
        assert!(
            position.truncate().distance(expected) < 1e-3,
            "at {time} s: {position} instead of {expected}"
        );
        if app
            .world()
            .get::<PathFollower>(agent)
            .unwrap()
            .is_finished()
        {
            break;
        }
    }
    let Some((waypoints, _)) = walked else {
        panic!("no path found");
    };
    let straight_run = waypoints
        .windows(3)
        .any(|three| three[2] - three[1] == three[1] - three[0]);
    let turn = waypoints
        .windows(3)
        .any(|three| three[2] - three[1] != three[1] - three[0]);
    assert!(straight_run && turn, "the path has both: {waypoints:?}");
    let position = app.world().get::<Transform>(agent).unwrap().translation;
    let goal_position = app.world().resource::<NavGrid>().cell_center(goal);
    assert!(position.truncate().distance(goal_position) < 1e-3);
    assert!(
        app.world()
            .get::<PathFollower>(agent)
            .unwrap()
            .is_finished()
    );
}

#[test]
fn a_follower_added_after_the_path_came_walks_it_and_a_new_path_restarts_it() {
    let mut app = app_with_grid(AStarPlugin::default(), walled_grid());
    let (start, goal) = (Cell::new(0, 4), Cell::new(9, 0));
    let start_position = app.world().resource::<NavGrid>().cell_center(start);
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal),
            Transform::from_translation(start_position.extend(0.0)),
        ))
        .id();
    for _ in 0..MAX_FRAMES {
        app.update();
        if path(&app, agent).is_found() {
            break;
        }
    }
    // The path stays as it is for a while, then the agent is given a follower.
    for _ in 0..3 {
        app.update();
    }
    app.world_mut()
        .entity_mut(agent)
        .insert(PathFollower::new(500.0));
    let finished = |app: &App| {
        app.world()
            .get::<PathFollower>(agent)
            .is_some_and(PathFollower::is_finished)
    };
    let position = |app: &App| position_of(app, agent);
    for _ in 0..MAX_FRAMES {
        app.update();
        if finished(&app) {
            break;
        }
    }
    let goal_position = app.world().resource::<NavGrid>().cell_center(goal);
    assert!(position(&app).is_some_and(|at| at.distance(goal_position) < 1e-3));

    // A new goal: the new path, written while the follower had finished, is walked too.
    let back = Cell::new(0, 0);
    if let Some(mut request) = app.world_mut().get_mut::<PathRequest>(agent) {
        request.start = goal;
        request.goal = back;
    }
    for _ in 0..MAX_FRAMES {
        app.update();
        if path(&app, agent).is_found()
            && finished(&app)
            && path(&app, agent).cells().last() == Some(&back)
        {
            break;
        }
    }
    let back_position = app.world().resource::<NavGrid>().cell_center(back);
    assert!(position(&app).is_some_and(|at| at.distance(back_position) < 1e-3));
}

#[test]
fn a_follower_replaced_at_the_goal_walks_the_path_again_from_the_start() {
    let mut app = app_with_grid(AStarPlugin::default(), walled_grid());
    let (start, goal) = (Cell::new(0, 4), Cell::new(9, 0));
    let start_position = app.world().resource::<NavGrid>().cell_center(start);
    let goal_position = app.world().resource::<NavGrid>().cell_center(goal);
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal),
            PathFollower::new(500.0),
            Transform::from_translation(start_position.extend(0.0)),
        ))
        .id();
    let at = |app: &App| position_of(app, agent);
    for _ in 0..MAX_FRAMES {
        app.update();
        if at(&app).is_some_and(|at| at.distance(goal_position) < 1e-3) {
            break;
        }
    }
    assert!(at(&app).is_some_and(|at| at.distance(goal_position) < 1e-3));
    // Back at the start with a new follower, which replaces the finished one; the path stays.
    app.world_mut().entity_mut(agent).insert((
        PathFollower::new(500.0),
        Transform::from_translation(start_position.extend(0.0)),
    ));
    let revision = path(&app, agent).revision;
    for _ in 0..MAX_FRAMES {
        app.update();
    }
    assert_eq!(
        path(&app, agent).revision,
        revision,
        "no new path was needed"
    );
    assert!(
        at(&app).is_some_and(|at| at.distance(goal_position) < 1e-3),
        "stuck at {:?}",
        at(&app)
    );
}

#[test]
fn a_follower_stops_when_its_request_is_removed_and_walks_the_next_one() {
    let grid = Grid::new(12, 3);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let nav = app.world().resource::<NavGrid>().clone();
    let (start, goal) = (Cell::new(0, 1), Cell::new(11, 1));
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal),
            PathFollower::new(30.0),
            Transform::from_translation(nav.cell_center(start).extend(0.0)),
        ))
        .id();
    // Halfway along, the request is withdrawn: the agent stops where it stands.
    for _ in 0..MAX_FRAMES {
        app.update();
        if position_of(&app, agent).is_some_and(|at| at.x > nav.cell_center(Cell::new(4, 1)).x) {
            break;
        }
    }
    app.world_mut().entity_mut(agent).remove::<PathRequest>();
    app.update();
    let stopped = position_of(&app, agent).expect("a transform");
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(position_of(&app, agent), Some(stopped));
    assert_eq!(path(&app, agent).status, PathStatus::Cancelled);
    // A new request from where it stands back to its first start: the follower walks it.
    app.world_mut()
        .entity_mut(agent)
        .insert(PathRequest::new(goal, start).with_start_at_agent(true));
    for _ in 0..MAX_FRAMES {
        app.update();
        let follower = app.world().get::<PathFollower>(agent).expect("follower");
        if follower.is_finished() && path(&app, agent).is_found() {
            break;
        }
    }
    let home = position_of(&app, agent).expect("a transform");
    assert!(home.distance(nav.cell_center(start)) < 1e-3, "{home}");
}
