//! Layered tilemaps as the floors of a building: which tilemap is which floor, the floor plan
//! the navigation grid is stacked by, and the conversions between a floor's tiles and cells.

use super::TilemapNavError;
use crate::NavShape;
use astar_grid::{Cell, FloorCell, FloorPlan};
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

/// The floor a tilemap marked [`NavTilemap`](super::NavTilemap) is, from 0 (a tilemap without
/// it is floor 0).
///
/// Several navigation tilemaps, one per floor, of one size, are stacked into one grid by a
/// [`FloorPlan`] (a blocked row between each two floors): links
/// ([`NavGrid::add_link`](crate::NavGrid::add_link)) join the floors, as stairs, ladders or
/// lifts. [`NavTilemapFloors`] converts between a floor's tiles and the grid's cells. The
/// grid's world placement is floor 0's tilemap's; floor `f` lies where the stacked grid puts
/// it, `(height + 1) * f` tiles above floor 0, and a floor's tilemap placed elsewhere is
/// reported once with a warning (world positions on it would not match its tiles).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Hash)]
pub struct NavFloor(pub u32);

/// How the navigation grid built from the tilemaps stacks their floors ([`NavFloor`]): a
/// resource the tilemap sync inserts with the grid (one floor for a single tilemap).
///
/// ```
/// use bevy_astar::prelude::*;
/// use bevy_astar::tilemap::NavTilemapFloors;
/// use bevy_ecs_tilemap::tiles::TilePos;
///
/// let floors = NavTilemapFloors::new(FloorPlan::new(8, 4, 2)?);
/// let stairs_top = floors.tile_to_cell(1, TilePos { x: 2, y: 3 });
/// assert_eq!(stairs_top, Some(Cell::new(2, 8))); // floor 1 starts at row 5
/// assert_eq!(floors.cell_to_tile(Cell::new(2, 8)), Some((1, TilePos { x: 2, y: 3 })));
/// assert_eq!(floors.cell_to_tile(Cell::new(2, 4)), None); // the row between the floors
/// assert_eq!(floors.tile_to_cell(2, TilePos { x: 0, y: 0 }), None); // no floor 2
/// # Ok::<(), astar_grid::FloorPlanError>(())
/// ```
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(opaque)]
#[reflect(Resource, Clone, Debug, PartialEq)]
pub struct NavTilemapFloors {
    plan: FloorPlan,
    shape: NavShape,
}

impl NavTilemapFloors {
    /// The floors of `plan`, of square tilemaps.
    #[must_use]
    pub const fn new(plan: FloorPlan) -> Self {
        Self {
            plan,
            shape: NavShape::Square,
        }
    }

    /// The floors of `plan`, of tilemaps whose cells have `shape` (on a hexagonal map a floor's
    /// cells are its tiles in axial coordinates).
    #[must_use]
    pub const fn with_shape(mut self, shape: NavShape) -> Self {
        self.shape = shape;
        self
    }

    /// The floor plan.
    #[must_use]
    pub const fn plan(&self) -> FloorPlan {
        self.plan
    }

    /// The grid cell of tile `tile` of floor `floor`; `None` for a floor or tile that does
    /// not exist.
    #[must_use]
    pub fn tile_to_cell(&self, floor: u32, tile: TilePos) -> Option<Cell> {
        let local = self.shape.cell_of_tile((tile.x, tile.y))?;
        self.plan.cell(FloorCell::new(floor, local.x, local.y)).ok()
    }

    /// The floor and tile of grid cell `cell`; `None` for a cell of the rows between floors
    /// or outside the grid.
    #[must_use]
    pub fn cell_to_tile(&self, cell: Cell) -> Option<(u32, TilePos)> {
        let at = self.plan.floor_cell(cell)?;
        let (x, y) = self.shape.tile_of_cell(at.cell)?;
        Some((at.floor, TilePos { x, y }))
    }
}

/// The order of the navigation tilemaps by floor: for each floor from 0, the index in
/// `floors` (each tilemap's [`NavFloor`], `None` for floor 0) of its tilemap.
///
/// # Errors
/// [`TilemapNavError::FloorTwice`] when two tilemaps are the same floor,
/// [`TilemapNavError::FloorMissing`] when a floor below the highest has no tilemap.
pub(crate) fn floor_order(floors: &[Option<NavFloor>]) -> Result<Vec<usize>, TilemapNavError> {
    let mut order: Vec<Option<usize>> = Vec::new();
    for (index, floor) in floors.iter().enumerate() {
        let floor = floor.map_or(0, |floor| floor.0);
        let slot = usize::try_from(floor).map_err(|_| TilemapNavError::FloorMissing(0))?;
        if slot >= floors.len() {
            // More floors than tilemaps: one below it must be missing.
            let missing = (0..floor)
                .find(|&below| !floors.iter().any(|f| f.map_or(0, |f| f.0) == below))
                .unwrap_or(0);
            return Err(TilemapNavError::FloorMissing(missing));
        }
        if order.len() <= slot {
            order.resize(slot + 1, None);
        }
        if order[slot].replace(index).is_some() {
            return Err(TilemapNavError::FloorTwice(floor));
        }
    }
    order
        .into_iter()
        .enumerate()
        .map(|(floor, index)| index.ok_or(TilemapNavError::FloorMissing(floor as u32)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_are_ordered_and_gaps_and_repeats_refused() {
        let floor = |n| Some(NavFloor(n));
        assert_eq!(floor_order(&[None]), Ok(vec![0]));
        assert_eq!(floor_order(&[floor(1), None]), Ok(vec![1, 0]));
        assert_eq!(
            floor_order(&[floor(2), floor(0), floor(1)]),
            Ok(vec![1, 2, 0])
        );
        assert_eq!(
            floor_order(&[floor(0), None]),
            Err(TilemapNavError::FloorTwice(0))
        );
        assert_eq!(
            floor_order(&[floor(0), floor(2)]),
            Err(TilemapNavError::FloorMissing(1))
        );
        assert_eq!(
            floor_order(&[floor(1), floor(2)]),
            Err(TilemapNavError::FloorMissing(0))
        );
        assert_eq!(floor_order(&[]), Ok(vec![]));
    }
}
