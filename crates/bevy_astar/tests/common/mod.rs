//! Building blocks shared by the plugin's headless tests: an app with manual time, helpers that
//! run it until requests settle, and checks of paths against the core's independent reference
//! Dijkstra, path checker and closest-cell rule (shared with the core's own tests, as are its
//! proptest strategies).

#[path = "../../../astar_grid/tests/common/closest_cell.rs"]
pub mod closest_cell;
#[path = "../../../astar_grid/tests/common/footprint.rs"]
pub mod footprint;
#[path = "../../../astar_grid/tests/common/path_check.rs"]
pub mod path_check;
#[path = "../../../astar_grid/tests/common/random_grid.rs"]
pub mod random_grid;
#[path = "../../../astar_grid/tests/common/reference_search.rs"]
pub mod reference_search;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use reference_search::ReferenceGraph;
use std::time::Duration;

/// The fixed time step of every test app.
pub const FRAME: Duration = Duration::from_millis(16);
/// Frames after which a test gives up waiting for requests to settle.
pub const MAX_FRAMES: usize = 2_000;

/// Every message and event the plugin sent, in order.
#[derive(Resource, Default)]
pub struct Seen {
    /// [`PathFound`] messages.
    pub ready: Vec<Entity>,
    /// [`PathNotFound`] messages.
    pub failed: Vec<(Entity, PathFailure)>,
    /// [`PathFound`] events.
    pub found_events: Vec<Entity>,
    /// [`PathNotFound`] events.
    pub not_found_events: Vec<(Entity, PathFailure)>,
}

fn collect_messages(
    mut ready: MessageReader<PathFound>,
    mut failed: MessageReader<PathNotFound>,
    mut seen: ResMut<Seen>,
) {
    seen.ready
        .extend(ready.read().map(|message| message.entity));
    seen.failed.extend(
        failed
            .read()
            .map(|message| (message.entity, message.reason)),
    );
}

/// A headless app with `plugin`, path following and crowds, manual time and a [`Seen`] record of messages and events.
pub fn app_with(plugin: AStarPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, plugin, PathFollowPlugin, CrowdPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
        // Every frame writes back the crowd step of the frame before, however fast the machine
        // runs it: each run is the same.
        .insert_resource(CrowdSettings {
            step_may_run_on: false,
            ..CrowdSettings::default()
        })
        .init_resource::<Seen>()
        .add_systems(Last, collect_messages)
        .add_observer(|found: On<PathFound>, mut seen: ResMut<Seen>| {
            seen.found_events.push(found.entity);
        })
        .add_observer(|missed: On<PathNotFound>, mut seen: ResMut<Seen>| {
            seen.not_found_events.push((missed.entity, missed.reason));
        });
    app
}

/// The whole plugin family but the parts that need a renderer or a window (the gizmo overlay,
/// the egui panel) and the tilemap sync, for headless apps.
pub fn headless_plugins() -> bevy::app::PluginGroupBuilder {
    let plugins = PathfindingPlugins.build();
    #[cfg(feature = "debug")]
    let plugins = plugins.disable::<PathfindingDebugPlugin>();
    #[cfg(feature = "tilemap")]
    let plugins = plugins.disable::<bevy_astar::tilemap::NavTilemapPlugin>();
    #[cfg(feature = "egui")]
    let plugins = plugins.disable::<bevy_astar::egui_panel::PathfindingPanelPlugin>();
    plugins
}

/// [`app_with`] and a [`NavGrid`] of `grid` with 10-unit cells.
pub fn app_with_grid(plugin: AStarPlugin, grid: Grid) -> App {
    let mut app = app_with(plugin);
    app.insert_resource(NavGrid::new(grid).with_cell_size(Vec2::splat(10.0)));
    app
}

/// The agent's current path.
pub fn path(app: &App, agent: Entity) -> Path {
    app.world()
        .get::<Path>(agent)
        .expect("agent has a path")
        .clone()
}

/// The plugin's statistics now.
pub fn stats(app: &App) -> PathfindingStats {
    app.world().resource::<PathfindingStats>().clone()
}

/// Updates until every agent has a final status and nothing is queued or running; returns the
/// number of frames.
pub fn settle(app: &mut App, agents: &[Entity]) -> usize {
    for frame in 1..=MAX_FRAMES {
        app.update();
        if is_settled(app, agents) {
            return frame;
        }
    }
    panic!("requests still pending after {MAX_FRAMES} frames");
}

/// Whether every agent of `agents` has a final status, and nothing is queued or running.
pub fn is_settled(app: &App, agents: &[Entity]) -> bool {
    let stats = stats(app);
    let done = agents
        .iter()
        .all(|&agent| !path(app, agent).status.is_pending());
    done && stats.in_flight == 0 && stats.queue_length == 0
}

/// Spawns an agent with `request`.
pub fn spawn(app: &mut App, request: PathRequest) -> Entity {
    app.world_mut().spawn(request).id()
}

/// Spawns an agent for each of `requests`, in order.
pub fn spawn_all(app: &mut App, requests: &[PathRequest]) -> Vec<Entity> {
    requests
        .iter()
        .map(|&request| spawn(app, request))
        .collect()
}

/// Blocks `cell` of the app's grid.
pub fn block(app: &mut App, cell: Cell) {
    app.world_mut()
        .resource_mut::<NavGrid>()
        .block(cell)
        .expect("inside the grid");
}

/// A copy of the app's grid as it is now.
pub fn current_grid(app: &App) -> Grid {
    app.world().resource::<NavGrid>().grid().clone()
}

/// The optimal cost of `request` on `grid` by the independent reference Dijkstra, under the
/// request's movement rule and cost model.
pub fn reference_cost(grid: &Grid, request: &PathRequest) -> Option<f64> {
    ReferenceGraph::new(grid, request.options.movement, request.options.cost)
        .cost(request.start, request.goal)
}

/// What is wrong with `cells` as a walk on `grid` under `movement` from its first cell to its
/// last: blocked cells, steps that are not to a neighbour or cut a corner the rule forbids.
pub fn illegal_walk(grid: &Grid, cells: &[Cell], movement: Movement) -> Option<String> {
    let (&first, &last) = (cells.first()?, cells.last()?);
    let path = astar_grid::Path {
        cells: cells.to_vec(),
        cost: 0.0,
    };
    // The cost is checked elsewhere: only the walk's legality is asked here.
    path_check::check_path(grid, &path, first, last, movement, CostModel::Octile)
        .err()
        .filter(|error| !error.starts_with("path cost"))
}

/// `found` is a legal path for `request` on `grid` (every step allowed under the request's
/// movement rule, its cost the sum of its steps) and as cheap as the reference Dijkstra's.
pub fn assert_legal_and_optimal(grid: &Grid, found: &Path, request: &PathRequest) {
    assert_eq!(found.status, PathStatus::Found, "{request:?}");
    let path = astar_grid::Path {
        cells: found.cells().to_vec(),
        cost: found.cost(),
    };
    let PathRequest {
        start,
        goal,
        options,
        ..
    } = *request;
    if let Err(error) =
        path_check::check_path(grid, &path, start, goal, options.movement, options.cost)
    {
        panic!("illegal path for {request:?}: {error}");
    }
    let optimal = reference_cost(grid, request).expect("reachable");
    assert!(
        path_check::costs_match(found.cost(), optimal),
        "{} vs {optimal} for {request:?}",
        found.cost()
    );
}

/// `found` is a legal optimal path from `start` to `goal` under the default options.
pub fn assert_valid_path(grid: &Grid, found: &Path, start: Cell, goal: Cell) {
    assert_legal_and_optimal(grid, found, &PathRequest::new(start, goal));
}

/// Every agent (paired with its start) has a valid optimal path to `goal`, found by `algorithm`.
pub fn assert_found_by(
    app: &App,
    grid: &Grid,
    agents: &[Entity],
    starts: &[Cell],
    goal: Cell,
    algorithm: PathAlgorithm,
) {
    for (&agent, &start) in agents.iter().zip(starts) {
        let found = path(app, agent);
        assert_valid_path(grid, &found, start, goal);
        assert_eq!(found.algorithm, algorithm);
    }
}

/// Whether the path `cells` depends on `cell` under `movement`: the cell is on it, or is a
/// corner cell of one of its diagonal steps that the movement rule may not cut.
pub fn path_depends_on(cells: &[Cell], cell: Cell, movement: Movement) -> bool {
    cells.contains(&cell)
        || cells.windows(2).any(|pair| {
            movement
                .step_corners(pair[0], pair[1])
                .is_some_and(|corners| corners.contains(&cell))
        })
}

/// A small map with walls and one long detour, shared by several tests.
pub fn walled_grid() -> Grid {
    Grid::from_ascii(
        "..........
         .######...
         ......#...
         .####.#.##
         ..........",
    )
    .expect("valid map")
}

/// A 160 x 160 grid with a wall down column 80, open only at its foot: paths from the left
/// half to the right half go round it.
pub fn tall_wall_grid() -> Grid {
    Grid::from_fn(160, 160, |cell| u8::from(cell.x != 80 || cell.y >= 158))
}

/// An app with the plugin's `settings` on [`tall_wall_grid`], and an agent for each request.
pub fn app_on_tall_wall(
    settings: PathfindingSettings,
    requests: &[PathRequest],
) -> (App, Vec<Entity>) {
    let mut app = app_with_grid(
        AStarPlugin::default().with_settings(settings),
        tall_wall_grid(),
    );
    let agents = spawn_all(&mut app, requests);
    (app, agents)
}
