//! Map versions and change sets: what changed on the navigation grid, published once per frame.

use crate::NavGrid;
use astar_grid::Cell;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use std::sync::Arc;

/// The version of the navigation map: 0 before any [`NavGrid`] exists, then one more for every
/// frame in which cells changed (and for every new or removed grid).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MapVersion(u64);

impl MapVersion {
    /// The version number.
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }
}

/// One cell's change between two map versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellChange {
    /// The cell.
    pub cell: Cell,
    /// Its value before: 0 blocked, else the terrain cost.
    pub before: u8,
    /// Its value after: 0 blocked, else the terrain cost.
    pub after: u8,
}

impl CellChange {
    /// Whether the cell was walkable and is now blocked.
    #[must_use]
    pub const fn became_blocked(&self) -> bool {
        self.before != 0 && self.after == 0
    }

    /// Whether the cell was blocked and is now walkable.
    #[must_use]
    pub const fn became_walkable(&self) -> bool {
        self.before == 0 && self.after != 0
    }

    /// Whether the cell opened or got cheaper to enter: a change that can shorten paths.
    #[must_use]
    pub const fn improves(&self) -> bool {
        self.after != 0 && (self.before == 0 || self.after < self.before)
    }
}

/// The cells that changed between two map versions, or a whole-map replacement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapChange {
    cells: HashMap<Cell, CellChange>,
    bounds: Option<(Cell, Cell)>,
    whole_map: bool,
}

impl MapChange {
    /// A change of every cell: the grid was inserted, replaced or removed.
    #[must_use]
    pub fn whole_map() -> Self {
        Self {
            whole_map: true,
            ..Self::default()
        }
    }

    /// A change of the given cells; entries whose value did not actually change are left out.
    pub fn from_cells(changes: impl IntoIterator<Item = CellChange>) -> Self {
        let mut change = Self::default();
        for cell_change in changes {
            if cell_change.before == cell_change.after {
                continue;
            }
            let cell = cell_change.cell;
            change.bounds = Some(match change.bounds {
                None => (cell, cell),
                Some((min, max)) => (
                    Cell::new(min.x.min(cell.x), min.y.min(cell.y)),
                    Cell::new(max.x.max(cell.x), max.y.max(cell.y)),
                ),
            });
            change.cells.insert(cell, cell_change);
        }
        change
    }

    /// Whether the whole map was replaced (every cell counts as changed).
    #[must_use]
    pub const fn is_whole_map(&self) -> bool {
        self.whole_map
    }

    /// Whether nothing changed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !self.whole_map && self.cells.is_empty()
    }

    /// Number of changed cells (0 for a whole-map change, which lists none).
    #[must_use]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// The changed cells, in no particular order.
    pub fn cells(&self) -> impl Iterator<Item = &CellChange> {
        self.cells.values()
    }

    /// The change of `cell`, if it changed.
    #[must_use]
    pub fn get(&self, cell: Cell) -> Option<&CellChange> {
        self.cells.get(&cell)
    }

    /// Whether `cell` changed (always true for a whole-map change).
    #[must_use]
    pub fn touches(&self, cell: Cell) -> bool {
        self.whole_map || self.cells.contains_key(&cell)
    }

    /// Whether any of `cells` changed. Cheap when the cells lie away from the change: the
    /// change's bounding box is checked first.
    #[must_use]
    pub fn touches_any(&self, cells: &[Cell]) -> bool {
        if self.whole_map {
            return true;
        }
        let Some((min, max)) = self.bounds else {
            return false;
        };
        if self.cells.len() <= 4 {
            // A tower or two: a straight scan of the path for each changed cell.
            return self
                .cells
                .keys()
                .any(|&changed| contains_cell(cells, changed));
        }
        cells.iter().any(|&cell| {
            cell.x >= min.x
                && cell.x <= max.x
                && cell.y >= min.y
                && cell.y <= max.y
                && self.cells.contains_key(&cell)
        })
    }

    /// Whether the change may touch a cell of the rectangle from `min` to `max` (inclusive):
    /// false when the rectangle lies outside the bounding box of the changed cells.
    #[must_use]
    pub fn may_touch_rect(&self, min: Cell, max: Cell) -> bool {
        if self.whole_map {
            return true;
        }
        self.bounds.is_some_and(|(low, high)| {
            min.x <= high.x && max.x >= low.x && min.y <= high.y && max.y >= low.y
        })
    }

    /// Whether any cell opened.
    #[must_use]
    pub fn opens_any(&self) -> bool {
        self.whole_map || self.cells.values().any(CellChange::became_walkable)
    }

    /// Whether any cell opened or got cheaper.
    #[must_use]
    pub fn improves_any(&self) -> bool {
        self.whole_map || self.cells.values().any(CellChange::improves)
    }
}

/// Sent once per frame in which the map changed, with the new version and every cell changed
/// since the previous version.
#[derive(Message, Clone, Debug)]
pub struct MapChanged {
    /// The new map version.
    pub version: u64,
    /// What changed since the previous version.
    pub change: Arc<MapChange>,
}

/// Publishes the edits made to the [`NavGrid`] since the last frame as one new [`MapVersion`].
pub(crate) fn publish_map_changes(
    nav_grid: Option<ResMut<NavGrid>>,
    mut version: ResMut<MapVersion>,
    mut published_grid: Local<Option<u64>>,
    mut changed: MessageWriter<MapChanged>,
) {
    let grid_id = nav_grid.as_ref().map(|grid| grid.id());
    let change = if grid_id != *published_grid {
        *published_grid = grid_id;
        if let Some(mut grid) = nav_grid {
            grid.bypass_change_detection().take_changes();
        }
        MapChange::whole_map()
    } else if let Some(mut grid) = nav_grid.filter(|grid| grid.has_pending_changes()) {
        grid.bypass_change_detection().take_changes()
    } else {
        return;
    };
    if change.is_empty() {
        return;
    }
    version.0 += 1;
    changed.write(MapChanged {
        version: version.0,
        change: Arc::new(change),
    });
}

/// Whether `cells` holds `target`: compared without branches within runs of 16 cells, which
/// the compiler turns into vector instructions, since most paths scanned do not hold it.
fn contains_cell(cells: &[Cell], target: Cell) -> bool {
    cells.chunks(16).any(|run| {
        run.iter().fold(false, |found, cell| {
            found | ((cell.x ^ target.x) | (cell.y ^ target.y) == 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(x: u32, y: u32) -> CellChange {
        CellChange {
            cell: Cell::new(x, y),
            before: 1,
            after: 0,
        }
    }

    #[test]
    fn rectangles_are_ruled_out_only_outside_the_changed_cells_bounds() {
        let change = MapChange::from_cells([blocked(4, 4), blocked(6, 5)]);
        let may_touch = |min: (u32, u32), max: (u32, u32)| {
            change.may_touch_rect(Cell::from(min), Cell::from(max))
        };
        assert!(may_touch((0, 0), (4, 4))); // shares the corner cell
        assert!(may_touch((6, 5), (9, 9)));
        assert!(may_touch((5, 0), (5, 9))); // crosses between the two cells
        assert!(!may_touch((0, 0), (3, 9)));
        assert!(!may_touch((7, 0), (9, 9)));
        assert!(!may_touch((0, 6), (9, 9)));
        assert!(!MapChange::default().may_touch_rect(Cell::new(0, 0), Cell::new(9, 9)));
        assert!(MapChange::whole_map().may_touch_rect(Cell::new(0, 0), Cell::new(0, 0)));
    }
}
