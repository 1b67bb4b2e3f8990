//! Whether a map change touches a path: its cells, and the corner cells of its diagonal steps
//! that the movement rule may not cut. The invalidation rule, the cache and repair all ask it.

use super::{NavCellChange, NavChange, step_corner_cells};

/// Changed cells [`NavChange::may_touch_rect`] checks one by one in a change with links; with
/// more, a rectangle that meets the bounding box counts as touched.
const MOST_CELLS_IN_RECT_CHECK: usize = 64;
use astar_grid::{Cell, Movement};

impl NavChange {
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
    /// dearer: it changed a cell of the path, blocked a corner cell of one of its diagonal
    /// steps ([`Movement::step_corners`]), which the step may not cut, or worsened a link one
    /// of its steps took ([`NavLinkChange::worsens`](crate::NavLinkChange::worsens)).
    ///
    /// A corner cell that opened or changed its terrain cost leaves every step legal and every
    /// step cost as it was, so it does not count.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    /// use bevy_astar::{NavCellChange, NavChange};
    ///
    /// let diagonal = [Cell::new(0, 0), Cell::new(1, 1), Cell::new(2, 2)];
    /// let wall = NavCellChange { cell: Cell::new(1, 0), before: 1, after: 0 };
    /// let corner_wall = NavChange::from_cells([wall]);
    /// assert!(corner_wall.touches_path(&diagonal, Movement::EIGHT));
    /// assert!(!corner_wall.touches_any(&diagonal));
    /// // Corner cutting allowed: the same wall leaves the path legal.
    /// assert!(!corner_wall.touches_path(&diagonal, Movement::eight(CornerRule::Any)));
    /// ```
    #[must_use]
    pub fn touches_path(&self, cells: &[Cell], movement: Movement) -> bool {
        if self.touches_any(cells) || self.worsens_a_step_of(cells) {
            return true;
        }
        if !movement.corners_decide() {
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
                .is_some_and(NavCellChange::became_blocked)
        })
    }

    /// Whether the change blocked a cell of the path `cells` or a corner cell of one of its
    /// diagonal steps under `movement`, or closed (or removed) a link one of its steps took
    /// ([`NavLinkChange::cuts_step`](crate::NavLinkChange::cuts_step)): the path is cut, and can no longer be walked as it is.
    #[must_use]
    pub fn cuts_path(&self, cells: &[Cell], movement: Movement) -> bool {
        let blocked = |cell: Cell| {
            self.changed_inside(cell)
                .is_some_and(NavCellChange::became_blocked)
        };
        cells.iter().copied().any(blocked)
            || step_corner_cells(cells, movement).any(blocked)
            || self.cuts_a_step_of(cells)
    }

    /// Whether a changed link that got worse led along a step of `cells`.
    fn worsens_a_step_of(&self, cells: &[Cell]) -> bool {
        self.links
            .iter()
            .any(|link| link.worsens() && cells.windows(2).any(|step| link.led(step[0], step[1])))
    }

    /// Whether a changed link no longer leads along a step of `cells` that it led along.
    fn cuts_a_step_of(&self, cells: &[Cell]) -> bool {
        self.links.iter().any(|link| {
            cells
                .windows(2)
                .any(|step| link.cuts_step(step[0], step[1]))
        })
    }

    /// The change of `cell`, looked up only when it lies inside the changed cells' bounding box.
    fn changed_inside(&self, cell: Cell) -> Option<&NavCellChange> {
        let (min, max) = self.bounds?;
        let inside = cell.x >= min.x && cell.x <= max.x && cell.y >= min.y && cell.y <= max.y;
        if inside { self.cells.get(&cell) } else { None }
    }

    /// Whether the change may touch a cell of the rectangle from `min` to `max` (inclusive):
    /// false when the rectangle lies outside the bounding box of the changed cells and holds
    /// no end of a changed link (a long link's box, end to end, is not asked about).
    #[must_use]
    pub fn may_touch_rect(&self, min: Cell, max: Cell) -> bool {
        if self.whole_map {
            return true;
        }
        let meets = |(low, high): (Cell, Cell)| {
            min.x <= high.x && max.x >= low.x && min.y <= high.y && max.y >= low.y
        };
        if self.links.is_empty() {
            return self.bounds.is_some_and(meets);
        }
        let cells = self.cells.keys().map(|&cell| (cell, cell));
        let ends = self.link_ends();
        self.bounds.is_some_and(meets)
            && (cells.take(MOST_CELLS_IN_RECT_CHECK).any(meets)
                || self.cells.len() > MOST_CELLS_IN_RECT_CHECK
                || ends.map(|end| (end, end)).any(meets))
    }
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
