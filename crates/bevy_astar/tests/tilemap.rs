//! Headless test of the `tilemap` feature: the grid follows a `bevy_ecs_tilemap` map's tiles and
//! placement. Runs with `cargo test -p bevy_astar --features tilemap`.
#![cfg(feature = "tilemap")]

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use bevy_astar::tilemap::{
    NavFloor, NavTileCost, NavTilemap, NavTilemapFloors, NavTilemapPlugin, cell_to_tile_pos,
};
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};
use std::time::Duration;

/// A headless app with the tilemap sync and manual time.
fn tilemap_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AStarPlugin::default(),
        NavTilemapPlugin::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
    app
}

#[test]
fn the_grid_follows_the_tilemap() {
    let mut app = tilemap_app();
    let size = TilemapSize { x: 8, y: 4 };
    let grid_size = TilemapGridSize { x: 16.0, y: 12.0 };
    let tile_size = TilemapTileSize { x: 16.0, y: 12.0 };
    let anchor = TilemapAnchor::Center;
    let transform = Transform::from_xyz(100.0, 50.0, 0.0);
    let tilemap = app.world_mut().spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..size.y {
        for x in 0..size.x {
            let position = TilePos { x, y };
            // A wall down column 4 with one gap at the top.
            let cost = if x == 4 && y < 3 {
                NavTileCost::BLOCKED
            } else {
                NavTileCost::WALKABLE
            };
            let tile = app
                .world_mut()
                .spawn((position, TilemapId(tilemap), cost))
                .id();
            storage.set(&position, tile);
        }
    }
    app.world_mut().entity_mut(tilemap).insert((
        NavTilemap,
        size,
        grid_size,
        tile_size,
        TilemapType::Square,
        anchor,
        transform,
        storage,
    ));
    let agent = app
        .world_mut()
        .spawn(PathRequest::new(Cell::new(0, 0), Cell::new(7, 0)))
        .id();
    for _ in 0..200 {
        app.update();
        if app.world().get::<Path>(agent).is_some_and(Path::is_found) {
            break;
        }
    }

    let nav = app.world().resource::<NavGrid>();
    for (cell, value) in nav.grid().cells() {
        let tile = cell_to_tile_pos(cell);
        let expected =
            tile.center_in_world(&size, &grid_size, &tile_size, &TilemapType::Square, &anchor)
                + transform.translation.truncate();
        assert!(nav.cell_center(cell).distance(expected) < 1e-4);
        assert_eq!(nav.world_to_cell(expected), Some(cell));
        assert_eq!(value == 0, cell.x == 4 && cell.y < 3);
    }
    let path = app.world().get::<Path>(agent).expect("agent has a path");
    assert!(path.is_found() && path.cells().contains(&Cell::new(4, 3)));

    // Opening the wall at the bottom edits one cell: a new version, and the agent's path is not
    // touched by it (it opened a cell), so it keeps its path.
    let version = app.world().resource::<NavVersion>().get();
    let storage = app
        .world()
        .get::<TileStorage>(tilemap)
        .expect("storage")
        .clone();
    let bottom = storage.get(&TilePos { x: 4, y: 0 }).expect("tile");
    app.world_mut()
        .entity_mut(bottom)
        .insert(NavTileCost::WALKABLE);
    app.update();
    assert_eq!(app.world().resource::<NavVersion>().get(), version + 1);
    assert!(
        app.world()
            .resource::<NavGrid>()
            .is_walkable(Cell::new(4, 0))
    );

    // A new anchor, then a new tile size (the anchor's box grows with it), move the map: the
    // grid follows both.
    let moves: [(TilemapAnchor, TilemapTileSize); 2] = [
        (TilemapAnchor::BottomLeft, tile_size),
        (
            TilemapAnchor::BottomLeft,
            TilemapTileSize { x: 40.0, y: 30.0 },
        ),
    ];
    for (anchor, tile_size) in moves {
        app.world_mut()
            .entity_mut(tilemap)
            .insert((anchor, tile_size));
        app.update();
        let nav = app.world().resource::<NavGrid>();
        for cell in [Cell::new(0, 0), Cell::new(7, 3)] {
            let tile = cell_to_tile_pos(cell);
            let expected =
                tile.center_in_world(&size, &grid_size, &tile_size, &TilemapType::Square, &anchor)
                    + transform.translation.truncate();
            assert!(
                nav.cell_center(cell).distance(expected) < 1e-4,
                "{anchor:?}, {tile_size:?}: {} against {expected}",
                nav.cell_center(cell)
            );
        }
    }
}

#[test]
fn the_tilemap_types_are_registered_for_reflection() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AStarPlugin::default(),
        NavTilemapPlugin::default(),
    ));
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for (name, id) in [
        ("NavTilemap", core::any::TypeId::of::<NavTilemap>()),
        ("NavTileCost", core::any::TypeId::of::<NavTileCost>()),
        (
            "NavTilemapRules",
            core::any::TypeId::of::<bevy_astar::tilemap::NavTilemapRules>(),
        ),
        ("NavFloor", core::any::TypeId::of::<NavFloor>()),
        (
            "NavTilemapFloors",
            core::any::TypeId::of::<NavTilemapFloors>(),
        ),
    ] {
        assert!(registry.get(id).is_some(), "{name} is not registered");
    }
}

/// Spawns a navigation tilemap of `size` tiles of 10 units, bottom-left corner at `corner`, as
/// floor `floor`, with the tiles `wall` says blocked; returns it.
fn spawn_floor(
    app: &mut App,
    (size, corner, floor): (TilemapSize, Vec2, u32),
    wall: impl Fn(TilePos) -> bool,
) -> Entity {
    let tilemap = app.world_mut().spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..size.y {
        for x in 0..size.x {
            let position = TilePos { x, y };
            let cost = if wall(position) {
                NavTileCost::BLOCKED
            } else {
                NavTileCost::WALKABLE
            };
            let tile = app
                .world_mut()
                .spawn((position, TilemapId(tilemap), cost))
                .id();
            storage.set(&position, tile);
        }
    }
    let grid_size = TilemapGridSize { x: 10.0, y: 10.0 };
    app.world_mut().entity_mut(tilemap).insert((
        NavTilemap,
        NavFloor(floor),
        size,
        grid_size,
        TilemapTileSize { x: 10.0, y: 10.0 },
        TilemapType::Square,
        // Tile centres from half a tile in: the map's corner lies at the translation.
        Transform::from_translation((corner + Vec2::splat(5.0)).extend(0.0)),
        storage,
    ));
    tilemap
}

#[test]
fn layered_tilemaps_are_the_floors_of_one_grid_joined_by_links() {
    let mut app = tilemap_app();
    let size = TilemapSize { x: 6, y: 4 };
    // Floor 1 first, five rows (its four and the row between) above floor 0.
    let upper = spawn_floor(&mut app, (size, Vec2::new(0.0, 50.0), 1), |tile| {
        tile.x == 3 && tile.y > 0
    });
    spawn_floor(&mut app, (size, Vec2::ZERO, 0), |tile| tile.x == 1);
    app.update();
    let floors = *app.world().resource::<NavTilemapFloors>();
    assert_eq!(floors.plan().floors(), 2);
    let nav = app.world().resource::<NavGrid>();
    assert_eq!((nav.width(), nav.height()), (6, 9));
    for (cell, value) in nav.grid().cells() {
        let blocked = match floors.cell_to_tile(cell) {
            None => true,
            Some((0, tile)) => tile.x == 1,
            Some((_, tile)) => tile.x == 3 && tile.y > 0,
        };
        assert_eq!(value == 0, blocked, "{cell}");
        if let Some((floor, tile)) = floors.cell_to_tile(cell) {
            // A floor's tile centre in the world is its cell's centre.
            let corner = Vec2::new(0.0, 50.0 * floor as f32);
            let centre = corner + Vec2::new(tile.x as f32 + 0.5, tile.y as f32 + 0.5) * 10.0;
            assert!(nav.cell_center(cell).distance(centre) < 1e-4, "{cell}");
        }
    }
    // Stairs from floor 0's right side to floor 1's left side.
    let stairs_foot = floors
        .tile_to_cell(0, TilePos { x: 5, y: 0 })
        .expect("a tile");
    let stairs_top = floors
        .tile_to_cell(1, TilePos { x: 0, y: 0 })
        .expect("a tile");
    app.world_mut()
        .resource_mut::<NavGrid>()
        .add_link(Link::new(stairs_foot, stairs_top, 3.0))
        .expect("both ends walkable");
    let goal = floors
        .tile_to_cell(1, TilePos { x: 5, y: 3 })
        .expect("a tile");
    let request = PathRequest::new(Cell::new(2, 3), goal);
    let agent = app.world_mut().spawn(request).id();
    let found = |app: &App| app.world().get::<Path>(agent).is_some_and(Path::is_found);
    for _ in 0..200 {
        app.update();
        if found(&app) {
            break;
        }
    }
    let path = app.world().get::<Path>(agent).expect("a path").clone();
    let nav = app.world().resource::<NavGrid>();
    assert!(path.is_found());
    assert_eq!(path.link_steps(nav, &request).len(), 1);
    // A tile edit on floor 1 edits its cell of the stacked grid: the wall's gap closes, and
    // the agent, whose path went through it, has no way left.
    let storage = app
        .world()
        .get::<TileStorage>(upper)
        .expect("storage")
        .clone();
    let gap = storage.get(&TilePos { x: 3, y: 0 }).expect("tile");
    app.world_mut().entity_mut(gap).insert(NavTileCost::BLOCKED);
    for _ in 0..200 {
        app.update();
        let status = app.world().get::<Path>(agent).map(|path| path.status);
        if status == Some(PathStatus::NoPath) {
            break;
        }
    }
    let gap_cell = floors
        .tile_to_cell(1, TilePos { x: 3, y: 0 })
        .expect("a tile");
    assert!(!app.world().resource::<NavGrid>().is_walkable(gap_cell));
    assert_eq!(
        app.world().get::<Path>(agent).map(|path| path.status),
        Some(PathStatus::NoPath)
    );
}
