//! [`NavTilemapPlugin`]: builds the [`NavGrid`] from the navigation tilemaps (one per floor)
//! and keeps it in sync with their tiles.

use super::floors::floor_order;
use super::{
    NavFloor, NavTileCost, NavTilemap, NavTilemapFloors, NavTilemapRules, TilemapNavError,
    nav_grid_for_tilemap,
};
use crate::{NavGrid, PathfindingSystems};
use astar_grid::{Cell, FloorCell, FloorPlan};
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex};
use std::sync::Arc;

/// Builds the [`NavGrid`] from the tilemap marked [`NavTilemap`] (or the tilemaps, one per
/// floor: [`NavFloor`]) and keeps it in sync: changed tiles become grid edits (and a new map
/// version) before [`PathfindingSystems::Invalidate`]; a resized, moved or re-gridded tilemap
/// becomes a new grid (without the links of the one it replaces). Its systems run in the schedule of
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
            .register_type::<NavFloor>()
            .register_type::<NavTilemapFloors>()
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
        Changed<TilemapTileSize>,
        Changed<TilemapType>,
        Changed<TilemapAnchor>,
        Changed<Transform>,
        Changed<NavFloor>,
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

/// A navigation tilemap: its shape, its tiles and its floor.
type FloorTilemap<'a> = (TilemapShape<'a>, &'a TileStorage, Option<&'a NavFloor>);

/// Builds the grid anew from every navigation tilemap when one of them is new or reshaped: the
/// floors stacked by their [`NavFloor`], placed in the world as floor 0's tilemap is. A grid of
/// the same size and placement is edited in place (only the cells that differ, so only the
/// agents they affect search again, and the grid's links stay).
fn rebuild_from_tilemap(
    mut commands: Commands,
    rules: Res<NavTilemapRules>,
    nav: Option<ResMut<NavGrid>>,
    reshaped: Query<(), ReshapedNavTilemap>,
    tilemaps: Query<FloorTilemap, With<NavTilemap>>,
    tiles: Query<(Option<&NavTileCost>, Option<&TileTextureIndex>)>,
) {
    if reshaped.is_empty() {
        return;
    }
    let tilemaps: Vec<FloorTilemap> = tilemaps.iter().collect();
    let floor_of = |(_, _, floor): &FloorTilemap| floor.copied();
    let built = floor_order(&tilemaps.iter().map(floor_of).collect::<Vec<_>>()).and_then(|order| {
        let floors: Vec<FloorTilemap> = order.into_iter().map(|index| tilemaps[index]).collect();
        let (fresh, plan) = stacked_grid(&floors)?;
        Ok((fresh, plan, floors))
    });
    let (fresh, plan, floors) = match built {
        Ok(built) => built,
        Err(error) => {
            warn_once!("tilemap navigation skipped: {error}");
            return;
        }
    };
    let shape = fresh.shape();
    let cost_at = |at: FloorCell| {
        let storage = floors.get(at.floor as usize).map(|floor| floor.1)?;
        // A cell of a hexagonal grid that holds no tile stays blocked.
        let (x, y) = shape.tile_of_cell(at.cell)?;
        let tile = TilePos { x, y };
        Some(match storage.checked_get(&tile) {
            Some(entity) => match tiles.get(entity) {
                Ok((cost, texture)) => rules.cost(tile, cost, texture),
                Err(_) => rules.missing_tile_cost,
            },
            None => rules.missing_tile_cost,
        })
    };
    let same_shape = nav.as_ref().is_some_and(|nav| {
        nav.width() == fresh.width()
            && nav.height() == fresh.height()
            && nav.cell_size() == fresh.cell_size()
            && nav.origin() == fresh.origin()
            && nav.shape() == fresh.shape()
    });
    let target = match nav {
        Some(nav) if same_shape => nav.into_inner(),
        _ => {
            commands.insert_resource(fill_floors(fresh, plan, &cost_at));
            commands.insert_resource(NavTilemapFloors::new(plan).with_shape(shape));
            return;
        }
    };
    for (cell, cost) in floor_costs(plan, &cost_at) {
        if target.grid().value(cell) != cost {
            // In bounds by construction.
            let _ = target.set_cost(cell, cost);
        }
    }
}

/// The navigation grid of `floors`, in floor order (walkable everywhere but the rows between
/// floors, which are blocked), placed as floor 0's tilemap is, and the plan that stacks them;
/// a floor's tilemap placed elsewhere than the stacked grid puts it is reported with a warning.
fn stacked_grid(floors: &[FloorTilemap]) -> Result<(NavGrid, FloorPlan), TilemapNavError> {
    let placed: Vec<NavGrid> = floors
        .iter()
        .map(
            |&((size, grid_size, tile_size, map_type, anchor, transform), _, _)| {
                let anchor = anchor.copied().unwrap_or_default();
                nav_grid_for_tilemap(size, grid_size, tile_size, map_type, &anchor, transform)
            },
        )
        .collect::<Result<_, _>>()?;
    let Some(ground) = placed.first() else {
        return Err(TilemapNavError::FloorMissing(0));
    };
    let grids: Vec<astar_grid::Grid> = placed.iter().map(|nav| nav.grid().clone()).collect();
    let (plan, grid) = FloorPlan::stack(&grids)?;
    for (floor, nav) in (0..).zip(&placed).skip(1) {
        let first_row = Cell::new(0, floor * (plan.height() + 1));
        let shift = ground.cell_center(first_row) - ground.cell_center(Cell::new(0, 0));
        let expected = ground.origin() + shift;
        if nav.origin().distance(expected) > 1e-3 * ground.cell_size().length() {
            warn_once!(
                "navigation floor {floor}'s tilemap lies at {}, the stacked grid puts it at {expected}: world positions on it will not match its tiles",
                nav.origin()
            );
        }
    }
    let fresh = NavGrid::new(grid)
        .with_cell_size(ground.cell_size())
        .with_origin(ground.origin())
        .with_shape(ground.shape());
    Ok((fresh, plan))
}

/// Every cell of every floor of `plan`, with its grid cell and its value by `cost_at` (cells
/// whose floor has no value are left out).
fn floor_costs(plan: FloorPlan, cost_at: &impl Fn(FloorCell) -> Option<u8>) -> Vec<(Cell, u8)> {
    let cells = (0..plan.floors()).flat_map(|floor| {
        (0..plan.height())
            .flat_map(move |y| (0..plan.width()).map(move |x| FloorCell::new(floor, x, y)))
    });
    cells
        .filter_map(|at| Some((plan.cell(at).ok()?, cost_at(at)?)))
        .collect()
}

/// `fresh` with every floor cell set by `cost_at`.
fn fill_floors(
    mut fresh: NavGrid,
    plan: FloorPlan,
    cost_at: &impl Fn(FloorCell) -> Option<u8>,
) -> NavGrid {
    for (cell, cost) in floor_costs(plan, cost_at) {
        let _ = fresh.set_cost(cell, cost);
    }
    fresh
}

/// Turns tiles whose navigation inputs changed (or whose [`NavTileCost`] was removed) into
/// edits of their cells, on their tilemap's floor.
fn sync_changed_tiles(
    rules: Res<NavTilemapRules>,
    (nav, floors): (Option<ResMut<NavGrid>>, Option<Res<NavTilemapFloors>>),
    tilemaps: Query<Option<&NavFloor>, With<NavTilemap>>,
    changed: Query<ChangedTile, ChangedTileFilter>,
    mut removed: RemovedComponents<NavTileCost>,
    tiles: Query<(&TilePos, &TilemapId, Option<&TileTextureIndex>)>,
) {
    let Some(mut nav) = nav else {
        removed.clear();
        return;
    };
    let shape = nav.shape();
    let cell_of = |tile: TilePos, tilemap: Entity| {
        let floor = tilemaps.get(tilemap).ok()?.map_or(0, |floor| floor.0);
        match floors.as_deref() {
            Some(floors) => floors.tile_to_cell(floor, tile),
            None if floor == 0 => shape.cell_of_tile((tile.x, tile.y)),
            None => None,
        }
    };
    for (tile, tilemap, cost, texture) in &changed {
        if let Some(cell) = cell_of(*tile, tilemap.0) {
            let _ = nav.set_cost(cell, rules.cost(*tile, cost, texture));
        }
    }
    for entity in removed.read() {
        if let Ok((tile, tilemap, texture)) = tiles.get(entity)
            && let Some(cell) = cell_of(*tile, tilemap.0)
        {
            let _ = nav.set_cost(cell, rules.cost(*tile, None, texture));
        }
    }
}
