//! Headless test of the `tilemap` feature: the grid follows a `bevy_ecs_tilemap` map's tiles and
//! placement. Runs with `cargo test -p bevy_astar --features tilemap`.
#![cfg(feature = "tilemap")]

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use bevy_astar::tilemap::{NavTileCost, NavTilemap, NavTilemapPlugin, cell_to_tile_pos};
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};
use std::time::Duration;

#[test]
fn the_grid_follows_the_tilemap() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AStarPlugin::default(),
        NavTilemapPlugin::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
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
    ] {
        assert!(registry.get(id).is_some(), "{name} is not registered");
    }
}
