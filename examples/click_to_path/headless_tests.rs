//! Headless runs of the visualiser's agent with the plugin: the request its settings make, the
//! trace it keeps, and where its markers stand beside the path the plugin finds.

use crate::endpoints::{Endpoints, marker_placement};
use crate::map::nav_grid_for;
use crate::search::SearchAgent;
use crate::settings::SearchSettings;
use crate::terrain::KindChoice;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::KindError;
use bevy_astar::astar_grid::agent::moving_ai::WATER;
use bevy_astar::prelude::*;
use core::time::Duration;

/// Frames after which a run gives up waiting for a result.
const MOST_FRAMES: usize = 500;

/// An app with the plugin (no cache, as the visualiser), the agent and its request systems, on
/// `grid`, with the start and goal placed.
fn app(grid: Grid, start: Cell, goal: Cell) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AStarPlugin::default().with_cache_capacity(0),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )))
    .insert_resource(nav_grid_for(grid))
    .insert_resource(Endpoints {
        start: Some(start),
        goal: Some(goal),
        ..Endpoints::default()
    })
    .add_plugins((
        crate::order_systems,
        crate::terrain::register_kinds,
        crate::search::plugin,
    ));
    app
}

/// Runs frames until the agent's path holds a result; returns it.
fn settle(app: &mut App) -> Path {
    for _ in 0..MOST_FRAMES {
        app.update();
        let world = app.world_mut();
        let path = world
            .query_filtered::<&Path, With<SearchAgent>>()
            .single(world)
            .ok()
            .filter(|path| !path.status.is_pending())
            .cloned();
        if let Some(path) = path {
            // One more frame: the visualiser's display systems run after the plugin's Apply.
            app.update();
            return path;
        }
    }
    panic!("no result after {MOST_FRAMES} frames");
}

fn has_trace(app: &mut App) -> bool {
    let world = app.world_mut();
    world
        .query_filtered::<Has<PathTrace>, With<SearchAgent>>()
        .single(world)
        .expect("one agent")
}

fn settings(app: &mut App) -> Mut<'_, SearchSettings> {
    app.world_mut().resource_mut::<SearchSettings>()
}

#[test]
fn a_refused_search_leaves_no_open_or_closed_set_of_the_last_one_drawn() {
    // Ground, with a lake in the middle: a walker's search runs; a boat cannot stand on the
    // ground, so its request is refused before any search.
    let mut grid = Grid::new(12, 8);
    grid.fill_rect(Cell::new(4, 2), Cell::new(7, 5), WATER);
    let mut app = app(grid, Cell::new(0, 0), Cell::new(11, 7));
    let found = settle(&mut app);
    assert_eq!(found.status, PathStatus::Found);
    assert!(has_trace(&mut app), "the walker's search is drawn");

    settings(&mut app).kind = KindChoice::Boat;
    let refused = settle(&mut app);
    assert!(
        matches!(refused.status, PathStatus::InvalidKind(KindError::Agent(_))),
        "{:?}",
        refused.status
    );
    assert!(refused.cells().is_empty() && refused.waypoints().is_empty());
    assert!(
        !has_trace(&mut app),
        "the walker's open and closed sets are still drawn"
    );

    // Back to a kind that may stand there: its new search is drawn.
    settings(&mut app).kind = KindChoice::Flyer;
    assert_eq!(settle(&mut app).status, PathStatus::Found);
    assert!(has_trace(&mut app));
}

#[test]
fn the_markers_of_a_large_agent_sit_where_its_path_starts_and_ends() {
    let (start, goal) = (Cell::new(1, 1), Cell::new(9, 5));
    for size in [1, 2, 3] {
        let mut app = app(Grid::new(12, 8), start, goal);
        settings(&mut app).agent_size = size;
        let path = settle(&mut app);
        assert_eq!(path.status, PathStatus::Found, "size {size}");
        let nav = app.world().resource::<NavGrid>();
        let waypoints = path.waypoints();
        let (first, last) = (waypoints.first(), waypoints.last());
        let (at_start, scale) = marker_placement(nav, start, size);
        let (at_goal, _) = marker_placement(nav, goal, size);
        assert_eq!(Some(&at_start), first, "size {size}");
        assert_eq!(Some(&at_goal), last, "size {size}");
        assert_eq!(scale, f32::from(size), "the marker covers the footprint");
    }
}
