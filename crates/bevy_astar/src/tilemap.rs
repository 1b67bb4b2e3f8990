//! `bevy_ecs_tilemap` integration: builds the [`NavGrid`] from a tilemap, keeps it in sync with
//! its tiles, and converts between [`TilePos`], grid cells and world positions.
//!
//! Mark the tilemap entity with [`NavTilemap`] and give tiles a [`NavTileCost`] (or set a rule on
//! [`NavTilemapPlugin`]); tile `(x, y)` is cell `(x, y)`. Square tilemaps whose `Transform` has
//! no rotation are supported (translation and scale are honoured); other map types are reported
//! with a [`TilemapNavError`] and skipped.

use crate::{NavGrid, PathfindingSystems};
use astar_grid::{Cell, Grid, GridError};
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex};
use std::sync::Arc;

/// The cell of a tile.
#[must_use]
pub const fn tile_pos_to_cell(tile: TilePos) -> Cell {
    Cell::new(tile.x, tile.y)
}

/// The tile of a cell.
#[must_use]
pub const fn cell_to_tile_pos(cell: Cell) -> TilePos {
    TilePos {
        x: cell.x,
        y: cell.y,
    }
}

/// The tile under a world position, through a [`NavGrid`] built from the tilemap.
#[must_use]
pub fn world_to_tile_pos(nav: &NavGrid, position: Vec2) -> Option<TilePos> {
    nav.world_to_cell(position).map(cell_to_tile_pos)
}

/// The world position of a tile's centre, through a [`NavGrid`] built from the tilemap.
#[must_use]
pub fn tile_pos_to_world(nav: &NavGrid, tile: TilePos) -> Vec2 {
    nav.cell_center(tile_pos_to_cell(tile))
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
    /// Only square tilemaps map onto grid cells.
    #[error("only square tilemaps can be navigated, not {0:?}")]
    UnsupportedMapType(TilemapType),
    /// The tilemap is too large for a grid.
    #[error(transparent)]
    Grid(#[from] GridError),
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

/// Builds the [`NavGrid`] from the tilemap marked [`NavTilemap`] and keeps it in sync: changed
/// tiles become grid edits (and a new map version) before [`PathfindingSystems::Invalidate`]; a
/// resized, moved or re-gridded tilemap becomes a new grid. Its systems run in the schedule of
/// [`AStarPlugin`](crate::AStarPlugin) (see its `in_schedule`), so add it after that plugin.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
/// use bevy_astar::tilemap::NavTilemapPlugin;
///
/// // Texture 3 is a wall, texture 5 a swamp; everything else is plain ground.
/// let plugin = NavTilemapPlugin::default().with_rule(|_tile, texture| match texture.map(|t| t.0) {
///     Some(3) => 0,
///     Some(5) => 4,
///     _ => 1,
/// });
/// App::new().add_plugins((MinimalPlugins, AStarPlugin::default(), plugin));
/// ```
#[derive(Clone)]
pub struct NavTilemapPlugin {
    rules: NavTilemapRules,
}

impl Default for NavTilemapPlugin {
    fn default() -> Self {
        Self {
            rules: NavTilemapRules {
                rule: None,
                missing_tile_cost: 0,
            },
        }
    }
}

impl NavTilemapPlugin {
    /// Sets the rule for tiles without a [`NavTileCost`].
    #[must_use]
    pub fn with_rule(
        mut self,
        rule: impl Fn(TilePos, Option<TileTextureIndex>) -> u8 + Send + Sync + 'static,
    ) -> Self {
        self.rules.rule = Some(Arc::new(rule));
        self
    }

    /// Sets the value of positions without a tile entity (0, blocked, by default).
    #[must_use]
    pub const fn with_missing_tile_cost(mut self, cost: u8) -> Self {
        self.rules.missing_tile_cost = cost;
        self
    }
}

impl Plugin for NavTilemapPlugin {
    fn build(&self, app: &mut App) {
        // The pathfinding systems' schedule (`AStarPlugin::in_schedule`), before they read the
        // grid.
        let schedule = crate::schedule::pathfinding_schedule(app, "NavTilemapPlugin");
        app.insert_resource(self.rules.clone())
            .register_type::<NavTilemap>()
            .register_type::<NavTileCost>()
            .register_type::<NavTilemapRules>()
            .add_systems(
                schedule,
                (rebuild_from_tilemap, sync_changed_tiles)
                    .chain()
                    .before(PathfindingSystems::Invalidate),
            );
    }
}

/// The tilemap components the grid geometry comes from.
type TilemapShape<'a> = (
    &'a TilemapSize,
    &'a TilemapGridSize,
    &'a TilemapTileSize,
    &'a TilemapType,
    Option<&'a TilemapAnchor>,
    &'a Transform,
);

/// The navigation tilemap, when it is new or its shape, tiles or placement changed.
type ReshapedNavTilemap = (
    With<NavTilemap>,
    Or<(
        Added<NavTilemap>,
        Changed<TileStorage>,
        Changed<TilemapSize>,
        Changed<TilemapGridSize>,
        Changed<TilemapType>,
        Changed<Transform>,
    )>,
);

/// A tile's position, map and navigation inputs.
type ChangedTile<'a> = (
    &'a TilePos,
    &'a TilemapId,
    Option<&'a NavTileCost>,
    Option<&'a TileTextureIndex>,
);

/// Tiles whose navigation inputs changed.
type ChangedTileFilter = Or<(
    Changed<NavTileCost>,
    Changed<TileTextureIndex>,
    Changed<TilePos>,
)>;

/// An empty navigation grid laid over a square tilemap: one cell per tile, cell centres on tile
/// centres (translation and scale of the tilemap's `Transform` honoured, rotation ignored).
///
/// # Errors
/// [`TilemapNavError`] for non-square tilemaps and oversized maps.
pub fn nav_grid_for_tilemap(
    size: &TilemapSize,
    grid_size: &TilemapGridSize,
    tile_size: &TilemapTileSize,
    map_type: &TilemapType,
    anchor: &TilemapAnchor,
    transform: &Transform,
) -> Result<NavGrid, TilemapNavError> {
    if *map_type != TilemapType::Square {
        return Err(TilemapNavError::UnsupportedMapType(*map_type));
    }
    let grid = Grid::try_new(size.x, size.y)?;
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
        .with_origin(origin))
}

fn rebuild_from_tilemap(
    mut commands: Commands,
    rules: Res<NavTilemapRules>,
    nav: Option<ResMut<NavGrid>>,
    tilemaps: Query<(TilemapShape, &TileStorage), ReshapedNavTilemap>,
    tiles: Query<(Option<&NavTileCost>, Option<&TileTextureIndex>)>,
) {
    let Some(((size, grid_size, tile_size, map_type, anchor, transform), storage)) =
        tilemaps.iter().next()
    else {
        return;
    };
    let anchor = anchor.copied().unwrap_or_default();
    let mut fresh =
        match nav_grid_for_tilemap(size, grid_size, tile_size, map_type, &anchor, transform) {
            Ok(fresh) => fresh,
            Err(error) => {
                warn_once!("tilemap navigation skipped: {error}");
                return;
            }
        };
    let cost_of = |tile: TilePos| match storage.checked_get(&tile) {
        Some(entity) => match tiles.get(entity) {
            Ok((cost, texture)) => rules.cost(tile, cost, texture),
            Err(_) => rules.missing_tile_cost,
        },
        None => rules.missing_tile_cost,
    };
    match nav {
        // Same geometry: edit only the cells that differ, so only affected agents re-path.
        Some(mut nav)
            if nav.width() == fresh.width()
                && nav.height() == fresh.height()
                && nav.cell_size() == fresh.cell_size()
                && nav.origin() == fresh.origin() =>
        {
            for y in 0..size.y {
                for x in 0..size.x {
                    let cell = Cell::new(x, y);
                    let cost = cost_of(cell_to_tile_pos(cell));
                    if nav.grid().value(cell) != cost {
                        // In bounds by construction.
                        let _ = nav.set_cost(cell, cost);
                    }
                }
            }
        }
        _ => {
            for y in 0..size.y {
                for x in 0..size.x {
                    let cell = Cell::new(x, y);
                    let _ = fresh.set_cost(cell, cost_of(cell_to_tile_pos(cell)));
                }
            }
            commands.insert_resource(fresh);
        }
    }
}

fn sync_changed_tiles(
    rules: Res<NavTilemapRules>,
    nav: Option<ResMut<NavGrid>>,
    tilemaps: Query<(), With<NavTilemap>>,
    changed: Query<ChangedTile, ChangedTileFilter>,
    mut removed: RemovedComponents<NavTileCost>,
    tiles: Query<(&TilePos, &TilemapId, Option<&TileTextureIndex>)>,
) {
    let Some(mut nav) = nav else {
        removed.clear();
        return;
    };
    for (tile, tilemap, cost, texture) in &changed {
        if tilemaps.contains(tilemap.0) {
            let _ = nav.set_cost(tile_pos_to_cell(*tile), rules.cost(*tile, cost, texture));
        }
    }
    for entity in removed.read() {
        if let Ok((tile, tilemap, texture)) = tiles.get(entity)
            && tilemaps.contains(tilemap.0)
        {
            let _ = nav.set_cost(tile_pos_to_cell(*tile), rules.cost(*tile, None, texture));
        }
    }
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
