//! Headless tests of the debug overlay: only marked agents record a trace, the trace is the
//! core's, and the drawing systems run without a renderer.
#![cfg(feature = "debug")]

use bevy::asset::AssetPlugin;
use bevy::gizmos::GizmoPlugin;
use bevy::gizmos::config::GizmoConfigStore;
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use std::time::Duration;

fn debug_app(debug: PathfindingDebugPlugin, grid: Grid) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        MeshPlugin, // the gizmo plugin's skinned-mesh overlay needs the mesh assets
        GizmoPlugin,
        AStarPlugin::default(),
        debug,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )))
    .insert_resource(NavGrid::new(grid).with_cell_size(Vec2::splat(8.0)));
    app
}

fn run_until_found(app: &mut App, agents: &[Entity]) {
    for _ in 0..1_000 {
        app.update();
        if agents
            .iter()
            .all(|&agent| app.world().get::<Path>(agent).is_some_and(Path::is_found))
        {
            return;
        }
    }
    panic!("no path after 1000 frames");
}

fn maze() -> Grid {
    Grid::from_ascii(
        "............
         .#########..
         .#.......#..
         .#.#####.#..
         ...#...#....",
    )
    .expect("valid map")
}

#[test]
fn only_marked_agents_record_the_cores_trace() {
    let grid = maze();
    let mut app = debug_app(PathfindingDebugPlugin::default(), grid.clone());
    {
        let mut store = app.world_mut().resource_mut::<GizmoConfigStore>();
        let (_, colors) = store.config_mut::<PathfindingGizmos>();
        colors.draw_grid = true;
        colors.draw_blocked = true;
    }
    let request = PathRequest::new(Cell::new(0, 4), Cell::new(11, 4));
    let marked = app.world_mut().spawn((request, PathDebug)).id();
    let plain = app.world_mut().spawn(request).id();
    run_until_found(&mut app, &[marked, plain]);
    for _ in 0..3 {
        app.update(); // draw a few frames
    }

    let expected = astar_grid::find_path(
        &grid,
        request.start,
        request.goal,
        &request.options.with_trace(true),
    )
    .unwrap()
    .trace
    .expect("trace requested");
    let trace = app
        .world()
        .get::<PathTrace>(marked)
        .expect("marked agent has a trace");
    assert_eq!(trace.trace, expected);
    assert!(app.world().get::<PathTrace>(plain).is_none());
    // The traced and the untraced request are different searches.
    assert_eq!(
        app.world().resource::<PathfindingStats>().searches_started,
        2
    );
}

#[test]
fn tracing_every_agent_is_a_setting() {
    let mut app = debug_app(
        PathfindingDebugPlugin::default().with_trace_all_agents(true),
        maze(),
    );
    let agents: Vec<Entity> = (0..3)
        .map(|y| {
            app.world_mut()
                .spawn(PathRequest::new(Cell::new(0, y), Cell::new(11, 4)))
                .id()
        })
        .collect();
    run_until_found(&mut app, &agents);
    for agent in agents {
        let trace = app
            .world()
            .get::<PathTrace>(agent)
            .expect("every agent traced");
        assert!(!trace.trace.expansions.is_empty());
    }
}

/// An app with the overlay and an agent marked [`PathDebug`] whose path across the maze was
/// found, and traced.
fn traced_agent_with_its_path() -> (App, Entity) {
    let mut app = debug_app(PathfindingDebugPlugin::default(), maze());
    let request = PathRequest::new(Cell::new(0, 4), Cell::new(11, 4));
    let agent = app.world_mut().spawn((request, PathDebug)).id();
    run_until_found(&mut app, &[agent]);
    assert!(app.world().get::<PathTrace>(agent).is_some());
    (app, agent)
}

#[test]
fn removing_a_traced_agents_request_drops_its_trace() {
    let (mut app, agent) = traced_agent_with_its_path();

    app.world_mut().entity_mut(agent).remove::<PathRequest>();
    app.update();
    assert!(app.world().get::<PathTrace>(agent).is_none());
    let cancelled = app.world().get::<Path>(agent).map(|path| path.status);
    assert_eq!(cancelled, Some(PathStatus::Cancelled));
}

#[test]
fn unmarking_an_agent_drops_its_trace() {
    let (mut app, agent) = traced_agent_with_its_path();

    app.world_mut().entity_mut(agent).remove::<PathDebug>();
    app.update();
    assert!(app.world().get::<PathTrace>(agent).is_none());
    assert!(app.world().get::<Path>(agent).is_some_and(Path::is_found));
}
