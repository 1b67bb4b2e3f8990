//! Map versions and change sets: what changed on the navigation grid, published once per frame.

use crate::NavGrid;
use astar_grid::{Cell, Movement};
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
        if self.cells.len() <= 4 {
            // A tower or two: a straight scan of the path for each changed cell.
            return self
                .cells
                .keys()
                .any(|&changed| contains_cell(cells, changed));
        }
        cells
            .iter()
            .any(|&cell| self.changed_inside(cell).is_some())
    }

    /// Whether the change may have made the path `cells` (walked under `movement`) illegal or
    /// dearer: it changed a cell of the path, or blocked a corner cell of one of its diagonal
    /// steps ([`Movement::step_corners`]), which the step may not cut.
    ///
    /// A corner cell that opened or changed its terrain cost leaves every step legal and every
    /// step cost as it was, so it does not count.
    ///
    /// ```
    /// use bevy_astar::prelude::*;
    ///
    /// let diagonal = [Cell::new(0, 0), Cell::new(1, 1), Cell::new(2, 2)];
    /// let wall = CellChange { cell: Cell::new(1, 0), before: 1, after: 0 };
    /// let corner_wall = MapChange::from_cells([wall]);
    /// assert!(corner_wall.touches_path(&diagonal, Movement::EIGHT));
    /// assert!(!corner_wall.touches_any(&diagonal));
    /// // Corner cutting allowed: the same wall leaves the path legal.
    /// assert!(!corner_wall.touches_path(&diagonal, Movement::eight(CornerRule::Any)));
    /// ```
    #[must_use]
    pub fn touches_path(&self, cells: &[Cell], movement: Movement) -> bool {
        if self.touches_any(cells) {
            return true;
        }
        let corners_matter = movement
            .step_corners(Cell::new(0, 0), Cell::new(1, 1))
            .is_some();
        if !corners_matter {
            return false;
        }
        if self.cells.len() <= 4 {
            return self
                .cells
                .values()
                .any(|changed| changed.became_blocked() && is_step_corner(cells, changed.cell));
        }
        step_corner_cells(cells, movement).any(|corner| {
            self.changed_inside(corner)
                .is_some_and(CellChange::became_blocked)
        })
    }

    /// Whether the change blocked a cell of the path `cells` or a corner cell of one of its
    /// diagonal steps under `movement`: the path is cut, and can no longer be walked as it is.
    #[must_use]
    pub fn cuts_path(&self, cells: &[Cell], movement: Movement) -> bool {
        let blocked = |cell: Cell| {
            self.changed_inside(cell)
                .is_some_and(CellChange::became_blocked)
        };
        cells.iter().copied().any(blocked) || step_corner_cells(cells, movement).any(blocked)
    }

    /// The change of `cell`, looked up only when it lies inside the changed cells' bounding box.
    fn changed_inside(&self, cell: Cell) -> Option<&CellChange> {
        let (min, max) = self.bounds?;
        let inside = cell.x >= min.x && cell.x <= max.x && cell.y >= min.y && cell.y <= max.y;
        if inside { self.cells.get(&cell) } else { None }
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

/// The corner cells of the diagonal steps of the path `cells` under `movement`
/// ([`Movement::step_corners`]), step by step; a cell may come more than once.
pub(crate) fn step_corner_cells(
    cells: &[Cell],
    movement: Movement,
) -> impl Iterator<Item = Cell> + '_ {
    cells
        .windows(2)
        .filter_map(move |pair| movement.step_corners(pair[0], pair[1]))
        .flatten()
}

/// Whether `target` is a corner cell of a diagonal step of the path `cells`: compared without
/// branches, like [`contains_cell`].
fn is_step_corner(cells: &[Cell], target: Cell) -> bool {
    cells.windows(2).fold(false, |found, pair| {
        let (from, to) = (pair[0], pair[1]);
        let diagonal = (from.x != to.x) & (from.y != to.y);
        let first = (to.x ^ target.x) | (from.y ^ target.y) == 0;
        let second = (from.x ^ target.x) | (to.y ^ target.y) == 0;
        found | (diagonal & (first | second))
    })
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
    use astar_grid::CornerRule;

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

    #[test]
    fn paths_are_touched_at_their_cells_and_at_the_corners_of_their_diagonals() {
        let path = [(0, 0), (1, 1), (2, 1), (3, 2)].map(Cell::from);
        let corners = [(1, 0), (0, 1), (3, 1), (2, 2)];
        let far = [(5, 5), (6, 6), (7, 7), (8, 8), (9, 9)];
        let opened = |x, y| CellChange {
            cell: Cell::new(x, y),
            before: 0,
            after: 1,
        };
        // Small changes take the scan, larger ones (more than four cells) the lookup.
        for padding in [&far[..0], &far[..]] {
            let with = |extra: CellChange| {
                MapChange::from_cells(padding.iter().map(|&(x, y)| blocked(x, y)).chain([extra]))
            };
            for (x, y) in corners {
                let change = with(blocked(x, y));
                assert!(change.touches_path(&path, Movement::EIGHT), "{x}, {y}");
                assert!(change.touches_path(&path, Movement::eight(CornerRule::One)));
                assert!(!change.touches_path(&path, Movement::eight(CornerRule::Any)));
                assert!(change.cuts_path(&path, Movement::EIGHT));
                assert!(!change.touches_any(&path));
                // A corner that opens leaves every step legal.
                assert!(!with(opened(x, y)).touches_path(&path, Movement::EIGHT));
            }
            // (3, 0) is beside the path but no corner of a step.
            assert!(!with(blocked(3, 0)).touches_path(&path, Movement::EIGHT));
            assert!(!with(blocked(3, 0)).cuts_path(&path, Movement::EIGHT));
            let on_path = with(blocked(2, 1));
            assert!(on_path.touches_path(&path, Movement::eight(CornerRule::Any)));
            assert!(on_path.cuts_path(&path, Movement::eight(CornerRule::Any)));
            // A cost change on the path touches it but does not cut it.
            let dearer = with(CellChange {
                cell: Cell::new(1, 1),
                before: 1,
                after: 5,
            });
            assert!(dearer.touches_path(&path, Movement::EIGHT));
            assert!(!dearer.cuts_path(&path, Movement::EIGHT));
        }
    }
}
