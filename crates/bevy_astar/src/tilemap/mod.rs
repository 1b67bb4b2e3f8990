//! `bevy_ecs_tilemap` integration: builds the [`NavGrid`] from a tilemap, keeps it in sync with
//! its tiles, and converts between [`TilePos`], grid cells and world positions.
//!
//! Mark the tilemap entity with [`NavTilemap`] and give tiles a [`NavTileCost`] (or set a rule on
//! [`NavTilemapPlugin`]). Every map type of `bevy_ecs_tilemap` is navigated, with no code of
//! yours: square and isometric (diamond and staggered) maps as square grids whose tile `(x, y)` is
//! cell `(x, y)`, hexagonal maps of each coordinate system as hexagonal grids whose cells are
//! the tiles in axial coordinates ([`NavShape::Hex`], [`tile_to_cell`]). The `Transform`'s
//! translation and scale are honoured, not its rotation. Layered tilemaps, one per floor of a
//! building, each marked with its [`NavFloor`], are stacked into one grid
//! ([`NavTilemapFloors`]).

mod floors;
mod plugin;

pub use floors::{NavFloor, NavTilemapFloors};
pub use plugin::NavTilemapPlugin;

use crate::{NavGrid, NavShape};
use astar_grid::hex::{HexLayout, HexMap, HexMapError};
use astar_grid::{Cell, FloorPlanError, Grid, GridError};
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileTextureIndex};
use std::sync::Arc;

/// The cell of a tile of a square or isometric map, whose tile `(x, y)` is cell `(x, y)`
/// ([`tile_to_cell`] serves every map type).
#[must_use]
pub const fn tile_pos_to_cell(tile: TilePos) -> Cell {
    Cell::new(tile.x, tile.y)
}

/// The tile of a cell of a square or isometric map ([`cell_to_tile`] serves every map type).
#[must_use]
pub const fn cell_to_tile_pos(cell: Cell) -> TilePos {
    TilePos {
        x: cell.x,
        y: cell.y,
    }
}

/// The cell of a tile on a [`NavGrid`] built from its tilemap, whatever the map type: on a
/// hexagonal map, the tile's axial cell ([`NavShape::cell_of_tile`]); `None` for a tile off it.
#[must_use]
pub fn tile_to_cell(nav: &NavGrid, tile: TilePos) -> Option<Cell> {
    nav.shape().cell_of_tile((tile.x, tile.y))
}

/// The tile of a cell of a [`NavGrid`] built from its tilemap, whatever the map type; `None`
/// for a cell of a hexagonal grid that holds no tile.
#[must_use]
pub fn cell_to_tile(nav: &NavGrid, cell: Cell) -> Option<TilePos> {
    nav.shape()
        .tile_of_cell(cell)
        .map(|(x, y)| TilePos { x, y })
}

/// The tile under a world position, through a [`NavGrid`] built from the tilemap.
#[must_use]
pub fn world_to_tile_pos(nav: &NavGrid, position: Vec2) -> Option<TilePos> {
    nav.world_to_cell(position)
        .and_then(|cell| cell_to_tile(nav, cell))
}

/// The world position of a tile's centre, through a [`NavGrid`] built from the tilemap; `None`
/// for a tile off a hexagonal map.
#[must_use]
pub fn tile_pos_to_world(nav: &NavGrid, tile: TilePos) -> Option<Vec2> {
    tile_to_cell(nav, tile).map(|cell| nav.cell_center(cell))
}

/// Marks the tilemap the [`NavGrid`] is built from (one per app).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct NavTilemap;

/// The navigation value of a tile: 0 blocked, else its terrain cost multiplier.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component, Debug, PartialEq, Hash)]
pub struct NavTileCost(pub u8);

impl NavTileCost {
    /// A tile nothing can enter.
    pub const BLOCKED: Self = Self(0);
    /// Plain ground.
    pub const WALKABLE: Self = Self(1);
}

/// Why a tilemap could not become a navigation grid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TilemapNavError {
    /// A hexagonal tilemap too large for its axial grid.
    #[error(transparent)]
    Hex(#[from] HexMapError),
    /// The tilemap is too large for a grid.
    #[error(transparent)]
    Grid(#[from] GridError),
    /// Two navigation tilemaps are the same floor ([`NavFloor`]).
    #[error("two navigation tilemaps are floor {0}")]
    FloorTwice(u32),
    /// A floor below the highest has no navigation tilemap.
    #[error("no navigation tilemap is floor {0}")]
    FloorMissing(u32),
    /// The floors could not be stacked: they differ in size, or are too large together.
    #[error(transparent)]
    Floors(#[from] FloorPlanError),
}

/// Decides the cost of tiles without a [`NavTileCost`] from their position and texture.
pub type TileCostRule = Arc<dyn Fn(TilePos, Option<TileTextureIndex>) -> u8 + Send + Sync>;

/// How tiles without a [`NavTileCost`] count; a resource set by [`NavTilemapPlugin`].
#[derive(Resource, Clone, Reflect)]
#[reflect(opaque)]
#[reflect(Resource, Clone)]
pub struct NavTilemapRules {
    /// The rule for tiles without a [`NavTileCost`], or `None` to make them walkable with cost 1.
    pub rule: Option<TileCostRule>,
    /// The value of positions with no tile entity at all (0: blocked).
    pub missing_tile_cost: u8,
}

impl NavTilemapRules {
    fn cost(
        &self,
        tile: TilePos,
        cost: Option<&NavTileCost>,
        texture: Option<&TileTextureIndex>,
    ) -> u8 {
        match (cost, &self.rule) {
            (Some(cost), _) => cost.0,
            (None, Some(rule)) => rule(tile, texture.copied()),
            (None, None) => 1,
        }
    }
}

/// An empty navigation grid laid over a tilemap of any map type: one cell per tile, cell centres
/// on tile centres (translation and scale of the tilemap's `Transform` honoured, rotation
/// ignored), of the [`NavShape`] the map type draws. On a hexagonal map the grid holds the
/// tiles in axial coordinates, and its cells that hold no tile are blocked.
///
/// # Errors
/// [`TilemapNavError`] for oversized maps.
pub fn nav_grid_for_tilemap(
    size: &TilemapSize,
    grid_size: &TilemapGridSize,
    tile_size: &TilemapTileSize,
    map_type: &TilemapType,
    anchor: &TilemapAnchor,
    transform: &Transform,
) -> Result<NavGrid, TilemapNavError> {
    let shape = nav_shape(*map_type, size)?;
    let grid = match shape {
        NavShape::Hex(map) => map.grid_from_tiles(|_| 1)?,
        NavShape::Square | NavShape::Diamond | NavShape::Staggered => {
            Grid::try_new(size.x, size.y)?
        }
    };
    let scale = transform.scale.truncate();
    let cell = Vec2::new(grid_size.x, grid_size.y);
    let offset = if size.x == 0 || size.y == 0 {
        Vec2::ZERO
    } else {
        anchor.as_offset(size, grid_size, tile_size, map_type)
    };
    let origin = transform.translation.truncate() + scale * (offset - cell / 2.0);
    Ok(NavGrid::new(grid)
        .with_cell_size(scale * cell)
        .with_origin(origin)
        .with_shape(shape))
}

/// The shape of the cells of a tilemap of `map_type` and `size`.
fn nav_shape(map_type: TilemapType, size: &TilemapSize) -> Result<NavShape, HexMapError> {
    Ok(match map_type {
        TilemapType::Square => NavShape::Square,
        TilemapType::Isometric(IsoCoordSystem::Diamond) => NavShape::Diamond,
        TilemapType::Isometric(IsoCoordSystem::Staggered) => NavShape::Staggered,
        TilemapType::Hexagon(system) => {
            let layout = match system {
                HexCoordSystem::Row => HexLayout::Row,
                HexCoordSystem::RowOdd => HexLayout::RowOdd,
                HexCoordSystem::RowEven => HexLayout::RowEven,
                HexCoordSystem::Column => HexLayout::Column,
                HexCoordSystem::ColumnOdd => HexLayout::ColumnOdd,
                HexCoordSystem::ColumnEven => HexLayout::ColumnEven,
            };
            NavShape::Hex(HexMap::new(layout, size.x, size.y)?)
        }
    })
}

// The names before the naming rule, kept for one release.
/// The former name of [`NavTilemapPlugin`].
#[deprecated(note = "renamed to `NavTilemapPlugin` (the naming rule in ARCHITECTURE.md)")]
pub type TilemapNavPlugin = NavTilemapPlugin;

/// The former name of [`NavTilemapRules`].
#[deprecated(note = "renamed to `NavTilemapRules` (the naming rule in ARCHITECTURE.md)")]
pub type TilemapNavRules = NavTilemapRules;

/// The former name of [`NavTileCost`].
#[deprecated(note = "renamed to `NavTileCost` (the naming rule in ARCHITECTURE.md)")]
pub type TileCost = NavTileCost;
