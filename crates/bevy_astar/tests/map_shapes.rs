//! Headless tests of isometric and hexagonal tilemaps: the grid of every `bevy_ecs_tilemap` map
//! type puts tiles where the tilemap draws them and finds the tile under any world point as the
//! tilemap does, and on a hexagonal map an agent walks a legal optimal path and goes round a
//! tower placed on it. Runs with `cargo test -p bevy_astar --features tilemap`.
#![cfg(feature = "tilemap")]

pub mod common;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use bevy_astar::tilemap::{
    NavTileCost, NavTilemap, NavTilemapPlugin, cell_to_tile, tile_to_cell, world_to_tile_pos,
};
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize,
    TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};
use common::{assert_legal_and_optimal, illegal_walk};
use proptest::prelude::*;
use std::time::Duration;

/// Every map type `bevy_ecs_tilemap` draws.
const MAP_TYPES: [TilemapType; 9] = [
    TilemapType::Square,
    TilemapType::Isometric(IsoCoordSystem::Diamond),
    TilemapType::Isometric(IsoCoordSystem::Staggered),
    TilemapType::Hexagon(HexCoordSystem::Row),
    TilemapType::Hexagon(HexCoordSystem::RowOdd),
    TilemapType::Hexagon(HexCoordSystem::RowEven),
    TilemapType::Hexagon(HexCoordSystem::Column),
    TilemapType::Hexagon(HexCoordSystem::ColumnOdd),
    TilemapType::Hexagon(HexCoordSystem::ColumnEven),
];

/// A tilemap's placement: its size, grid and tile sizes, anchor and transform.
#[derive(Clone, Copy, Debug)]
struct Placement {
    size: TilemapSize,
    grid_size: TilemapGridSize,
    map_type: TilemapType,
    anchor: TilemapAnchor,
    transform: Transform,
}

impl Placement {
    fn tile_size(&self) -> TilemapTileSize {
        TilemapTileSize {
            x: self.grid_size.x,
            y: self.grid_size.y,
        }
    }

    /// Where the tilemap draws `tile`'s centre.
    fn center(&self, tile: TilePos) -> Vec2 {
        tile.center_in_world(
            &self.size,
            &self.grid_size,
            &self.tile_size(),
            &self.map_type,
            &self.anchor,
        ) + self.transform.translation.truncate()
    }

    /// The tile the tilemap finds under `point`.
    fn tile_under(&self, point: Vec2) -> Option<TilePos> {
        let local = point - self.transform.translation.truncate();
        TilePos::from_world_pos(
            &local,
            &self.size,
            &self.grid_size,
            &self.tile_size(),
            &self.map_type,
            &self.anchor,
        )
    }
}

/// A headless app with the tilemap sync and manual time.
fn tilemap_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AStarPlugin::default(),
        PathFollowPlugin,
        NavTilemapPlugin::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
    app
}

/// Spawns a navigation tilemap at `placement` whose tiles cost `cost(tile)`; returns it.
fn spawn_tilemap(app: &mut App, placement: Placement, cost: impl Fn(TilePos) -> u8) -> Entity {
    let tilemap = app.world_mut().spawn_empty().id();
    let mut storage = TileStorage::empty(placement.size);
    for y in 0..placement.size.y {
        for x in 0..placement.size.x {
            let position = TilePos { x, y };
            let tile = app
                .world_mut()
                .spawn((position, TilemapId(tilemap), NavTileCost(cost(position))))
                .id();
            storage.set(&position, tile);
        }
    }
    app.world_mut().entity_mut(tilemap).insert((
        NavTilemap,
        placement.size,
        placement.grid_size,
        placement.tile_size(),
        placement.map_type,
        placement.anchor,
        placement.transform,
        storage,
    ));
    app.update();
    tilemap
}

/// The navigation grid of a tilemap at `placement`, every tile walkable.
fn nav_of(placement: Placement) -> NavGrid {
    let mut app = tilemap_app();
    spawn_tilemap(&mut app, placement, |_| 1);
    app.world().resource::<NavGrid>().clone()
}

fn placement(map_type: TilemapType) -> Placement {
    Placement {
        size: TilemapSize { x: 7, y: 6 },
        grid_size: TilemapGridSize { x: 30.0, y: 26.0 },
        map_type,
        anchor: TilemapAnchor::Center,
        transform: Transform::from_xyz(-40.0, 25.0, 0.0),
    }
}

#[test]
fn every_tile_lies_where_the_tilemap_draws_it() {
    for map_type in MAP_TYPES {
        let placement = placement(map_type);
        let nav = nav_of(placement);
        let mut tiles = 0;
        for (cell, value) in nav.grid().cells() {
            let Some(tile) = cell_to_tile(&nav, cell) else {
                assert_eq!(
                    value, 0,
                    "{map_type:?}: {cell} holds no tile and must be blocked"
                );
                continue;
            };
            tiles += 1;
            assert_eq!(value, 1, "{map_type:?} {tile:?}");
            assert_eq!(tile_to_cell(&nav, tile), Some(cell));
            let drawn = placement.center(tile);
            assert!(
                nav.cell_center(cell).distance(drawn) < 1e-3,
                "{map_type:?} {tile:?}: {} against {drawn}",
                nav.cell_center(cell)
            );
            assert_eq!(world_to_tile_pos(&nav, drawn), Some(tile), "{map_type:?}");
        }
        assert_eq!(tiles, 42, "{map_type:?}");
        let hex = matches!(map_type, TilemapType::Hexagon(_));
        assert_eq!(nav.shape().is_hex(), hex, "{map_type:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any world point over the map is found on the tile the tilemap finds under it.
    #[test]
    fn the_tile_under_a_point_is_the_tilemaps(
        kind in 0..MAP_TYPES.len(),
        points in prop::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 40),
    ) {
        let placement = placement(MAP_TYPES[kind]);
        let nav = nav_of(placement);
        let corners = [TilePos { x: 0, y: 0 }, TilePos { x: 6, y: 5 }, TilePos { x: 0, y: 5 }, TilePos { x: 6, y: 0 }]
            .map(|tile| placement.center(tile));
        let low = corners.iter().fold(Vec2::MAX, |a, &b| a.min(b));
        let high = corners.iter().fold(Vec2::MIN, |a, &b| a.max(b));
        let middle = (low + high) / 2.0;
        let reach = (high - low) / 2.0 + Vec2::new(30.0, 26.0);
        for (x, y) in points {
            let point = middle + Vec2::new(x, y) * reach;
            prop_assert_eq!(
                world_to_tile_pos(&nav, point),
                placement.tile_under(point),
                "{:?} at {}", MAP_TYPES[kind], point
            );
        }
    }
}

/// The world position of `agent`.
fn position_of(app: &App, agent: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(agent)
        .expect("agent")
        .translation
        .truncate()
}

#[test]
fn an_agent_walks_a_hex_map_and_goes_round_a_tower() {
    let placement = Placement {
        size: TilemapSize { x: 11, y: 9 },
        grid_size: TilemapGridSize { x: 28.0, y: 32.0 },
        map_type: TilemapType::Hexagon(HexCoordSystem::RowOdd),
        anchor: TilemapAnchor::BottomLeft,
        transform: Transform::from_xyz(10.0, -20.0, 0.0),
    };
    // A wall across column 5, open at the top row; hills (cost 3) on column 2.
    let wall = |tile: TilePos| tile.x == 5 && tile.y < 8;
    let mut app = tilemap_app();
    let tilemap = spawn_tilemap(&mut app, placement, |tile| {
        if wall(tile) {
            0
        } else if tile.x == 2 {
            3
        } else {
            1
        }
    });
    let nav = app.world().resource::<NavGrid>().clone();
    let (start_tile, goal_tile) = (TilePos { x: 0, y: 1 }, TilePos { x: 10, y: 1 });
    let (start, goal) = (
        tile_to_cell(&nav, start_tile).expect("on the map"),
        tile_to_cell(&nav, goal_tile).expect("on the map"),
    );
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal),
            PathFollower::new(400.0),
            Transform::from_translation(nav.cell_center(start).extend(0.0)),
        ))
        .id();
    common::settle(&mut app, &[agent]);
    let request = *app.world().get::<PathRequest>(agent).expect("request");
    assert_eq!(request.options.movement, Movement::HEX, "the map's rule");
    let first = app.world().get::<Path>(agent).expect("path").clone();
    assert_legal_and_optimal(nav.grid(), &first, &request);

    // A tower on a cell of the path ahead of the agent, by its tile.
    let ahead = first.cells()[first.cells().len() - 4];
    let tower_tile = cell_to_tile(&nav, ahead).expect("a tile");
    let storage = app
        .world()
        .get::<TileStorage>(tilemap)
        .expect("storage")
        .clone();
    let tower = storage.get(&tower_tile).expect("tile");
    app.world_mut()
        .entity_mut(tower)
        .insert(NavTileCost::BLOCKED);

    let goal_position = nav.cell_center(goal);
    let mut replanned = None;
    for _ in 0..600 {
        app.update();
        let grid = app.world().resource::<NavGrid>().grid().clone();
        let here = position_of(&app, agent);
        let cell = app.world().resource::<NavGrid>().world_to_cell(here);
        assert!(
            cell.is_some_and(|cell| grid.is_walkable(cell)),
            "the agent stands off the walkable hexes at {here}"
        );
        let path = app.world().get::<Path>(agent).expect("path");
        if path.is_found() && !path.cells().contains(&ahead) && replanned.is_none() {
            replanned = Some(path.clone());
        }
        let done = app
            .world()
            .get::<PathFollower>(agent)
            .is_some_and(PathFollower::is_finished);
        if done && replanned.is_some() && here.distance(goal_position) < 1e-2 {
            break;
        }
    }
    let replanned = replanned.expect("the agent searched again round the tower");
    let grid = app.world().resource::<NavGrid>().grid().clone();
    assert!(!grid.is_walkable(ahead));
    assert_eq!(illegal_walk(&grid, &replanned.cells(), Movement::HEX), None);
    assert!(position_of(&app, agent).distance(goal_position) < 1e-2);
}

/// A hexagonal navigation grid (no tilemap) of `map`'s tiles, with a wall down tile column 6
/// open on tile row 1, and hills (cost 3) on tile column 3.
fn walled_hex_nav(map: astar_grid::hex::HexMap) -> NavGrid {
    let grid = map
        .grid_from_tiles(|(x, y)| match (x, y) {
            (6, row) if row != 1 => 0,
            (3, _) => 3,
            _ => 1,
        })
        .expect("small");
    NavGrid::new(grid)
        .with_cell_size(Vec2::new(20.0, 23.0))
        .with_shape(NavShape::Hex(map))
}

/// Every algorithm a request may ask for serves a hexagonal map with legal optimal paths: those
/// that refuse hexes (jump point search, the sector hierarchy) run A* instead, and `Path`
/// says so.
#[test]
fn every_algorithm_serves_a_hex_map_and_says_which_ran() {
    use astar_grid::hex::{HexLayout, HexMap};
    let map = HexMap::new(HexLayout::ColumnEven, 12, 8).expect("small");
    let nav = walled_hex_nav(map);
    let grid = nav.grid().clone();
    let mut app = common::app_with(AStarPlugin::default());
    app.insert_resource(nav);
    let tile = |x: u32, y: u32| map.cell_of((x, y)).expect("on the map");
    let algorithms = [
        (PathAlgorithm::AStar, PathAlgorithm::AStar),
        (PathAlgorithm::JumpPoint, PathAlgorithm::AStar),
        (PathAlgorithm::FlowField, PathAlgorithm::FlowField),
        (PathAlgorithm::Hierarchical, PathAlgorithm::AStar),
    ];
    let agents: Vec<(Entity, PathAlgorithm)> = algorithms
        .iter()
        .map(|&(asked, ran)| {
            let request = PathRequest::new(tile(0, 5), tile(11, 6)).with_algorithm(asked);
            (app.world_mut().spawn(request).id(), ran)
        })
        .collect();
    common::settle(
        &mut app,
        &agents.iter().map(|&(agent, _)| agent).collect::<Vec<_>>(),
    );
    for (agent, ran) in agents {
        let request = *app.world().get::<PathRequest>(agent).expect("request");
        let found = common::path(&app, agent);
        assert_eq!(found.algorithm, ran, "{:?}", request.algorithm);
        assert_legal_and_optimal(&grid, &found, &request);
    }
}

/// Twelve agents of one goal on a hexagonal map share one search, and agents two hexes wide
/// (a disc of seven) keep their whole disc on open ground.
#[test]
fn hex_agents_share_goal_batches_and_wide_ones_keep_to_room_for_their_disc() {
    use astar_grid::agent::Footprint;
    use astar_grid::hex::{HexLayout, HexMap};
    use astar_grid::{AgentGrid, TerrainProfile};
    let map = HexMap::new(HexLayout::RowEven, 14, 10).expect("small");
    let nav = walled_hex_nav(map);
    let grid = nav.grid().clone();
    let mut app = common::app_with(AStarPlugin::default());
    app.insert_resource(nav);
    let tile = |x: u32, y: u32| map.cell_of((x, y)).expect("on the map");
    let goal = tile(12, 7);
    let starts: Vec<Cell> = (0..12)
        .map(|index| tile(index % 3, 2 + index / 3))
        .collect();
    let requests: Vec<PathRequest> = starts
        .iter()
        .map(|&start| PathRequest::new(start, goal))
        .collect();
    let agents = common::spawn_all(&mut app, &requests);
    common::settle(&mut app, &agents);
    for &agent in &agents {
        let request = *app.world().get::<PathRequest>(agent).expect("request");
        assert_legal_and_optimal(&grid, &common::path(&app, agent), &request);
    }
    assert!(
        common::stats(&app).goal_batches >= 1,
        "one batch served them"
    );

    let wide = PathRequest::new(tile(1, 3), tile(4, 7)).with_size(2);
    let agent = common::spawn(&mut app, wide);
    common::settle(&mut app, &[agent]);
    let found = common::path(&app, agent);
    assert!(found.is_found(), "{:?}", found.status);
    let agent_grid =
        AgentGrid::with_footprint(&grid, &TerrainProfile::identity(), 2, Footprint::Hex)
            .expect("fits");
    for &cell in found.cells().iter() {
        assert!(agent_grid.fits(cell), "{cell}: its disc leaves open ground");
        for covered in Footprint::Hex.cells(cell, 2) {
            assert!(grid.is_walkable(covered), "{cell} covers {covered}");
        }
    }
    assert_eq!(
        illegal_walk(agent_grid.grid(), &found.cells(), Movement::HEX),
        None
    );
}

/// An open hexagonal navigation grid of `map` with 10-unit cells.
fn open_hex(map: astar_grid::hex::HexMap) -> NavGrid {
    NavGrid::new(map.grid_from_tiles(|_| 1).expect("small"))
        .with_cell_size(Vec2::splat(10.0))
        .with_shape(NavShape::Hex(map))
}

/// A request made for square cells searches hexes while the map is hexagonal, and its own rule
/// again once a square map replaces it.
#[test]
fn a_request_gets_its_own_movement_back_on_a_square_map() {
    use astar_grid::hex::{HexLayout, HexMap};
    let map = HexMap::new(HexLayout::Row, 8, 8).expect("small");
    let mut app = common::app_with(AStarPlugin::default());
    app.insert_resource(open_hex(map));
    let request = PathRequest::new(Cell::new(1, 1), Cell::new(6, 6));
    let agent = common::spawn(&mut app, request);
    common::settle(&mut app, &[agent]);
    let movement = |app: &App| {
        app.world()
            .get::<PathRequest>(agent)
            .expect("request")
            .options
            .movement
    };
    assert_eq!(movement(&app), Movement::HEX);
    let hex_path = common::path(&app, agent);
    assert_eq!(
        illegal_walk(
            &app.world().resource::<NavGrid>().grid().clone(),
            &hex_path.cells(),
            Movement::HEX
        ),
        None
    );

    app.insert_resource(NavGrid::new(Grid::new(8, 8)).with_cell_size(Vec2::splat(10.0)));
    common::settle(&mut app, &[agent]);
    assert_eq!(movement(&app), Movement::EIGHT);
    let square = app.world().resource::<NavGrid>().grid().clone();
    assert_legal_and_optimal(&square, &common::path(&app, agent), &request);
}

/// A request written after Invalidate but before Dispatch on a hexagonal map is searched with
/// the map's rule all the same.
#[test]
fn a_request_written_between_the_stages_searches_hexes() {
    use astar_grid::hex::{HexLayout, HexMap};
    #[derive(Resource)]
    struct Rewrite(Entity);
    let map = HexMap::new(HexLayout::Row, 9, 9).expect("small");
    let mut app = common::app_with(AStarPlugin::default());
    app.insert_resource(open_hex(map));
    let agent = common::spawn(&mut app, PathRequest::new(Cell::new(0, 0), Cell::new(1, 1)));
    common::settle(&mut app, &[agent]);
    app.insert_resource(Rewrite(agent)).add_systems(
        Update,
        (|rewrite: Option<Res<Rewrite>>,
          mut commands: Commands,
          mut requests: Query<&mut PathRequest>| {
            let Some(rewrite) = rewrite else { return };
            if let Ok(mut request) = requests.get_mut(rewrite.0) {
                *request = PathRequest::new(Cell::new(2, 2), Cell::new(7, 7));
            }
            commands.remove_resource::<Rewrite>();
        })
        .after(PathfindingSystems::Invalidate)
        .before(PathfindingSystems::Dispatch),
    );
    common::settle(&mut app, &[agent]);
    for _ in 0..10 {
        app.update();
    }
    let grid = app.world().resource::<NavGrid>().grid().clone();
    let found = common::path(&app, agent);
    assert_eq!(found.cells().first(), Some(&Cell::new(2, 2)));
    assert_eq!(illegal_walk(&grid, &found.cells(), Movement::HEX), None);
    let request = *app.world().get::<PathRequest>(agent).expect("request");
    assert_legal_and_optimal(&grid, &found, &request);
}

/// An avoiding agent on a hexagonal map whose hex is blocked under it steps off onto open
/// ground and reaches its goal.
#[test]
fn an_avoiding_agent_steps_off_a_hex_blocked_under_it() {
    use astar_grid::hex::{HexLayout, HexMap};
    let map = HexMap::new(HexLayout::RowOdd, 14, 9).expect("small");
    let mut app = common::app_with(AStarPlugin::default());
    app.insert_resource(open_hex(map));
    let (start, goal) = (
        map.cell_of((1, 4)).expect("on the map"),
        map.cell_of((12, 4)).expect("on the map"),
    );
    let position = app.world().resource::<NavGrid>().cell_center(start);
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(start, goal),
            PathFollower::new(30.0),
            CrowdAvoidance::default(),
            Transform::from_translation(position.extend(0.0)),
        ))
        .id();
    for _ in 0..70 {
        app.update();
    }
    let under = {
        let nav = app.world().resource::<NavGrid>();
        nav.world_to_cell(position_of(&app, agent))
            .expect("on the map")
    };
    assert_ne!(under, goal);
    app.world_mut()
        .resource_mut::<NavGrid>()
        .block(under)
        .expect("on the map");
    let goal_position = app.world().resource::<NavGrid>().cell_center(goal);
    for _ in 0..common::MAX_FRAMES {
        app.update();
        if position_of(&app, agent).distance(goal_position) < 1.0 {
            break;
        }
    }
    assert!(
        position_of(&app, agent).distance(goal_position) < 1.0,
        "at {} with {:?}",
        position_of(&app, agent),
        common::path(&app, agent).status
    );
}
