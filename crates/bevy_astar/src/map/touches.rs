//! Whether a map change touches a path: its cells, and the corner cells of its diagonal steps
//! that the movement rule may not cut. The invalidation rule, the cache and repair all ask it.

use super::{NavCellChange, NavChange, PathFootprint, step_corner_cells};

/// Changed cells [`NavChange::may_touch_rect`] checks one by one in a change with links; with
/// more, a rectangle that meets the bounding box counts as touched.
const MOST_CELLS_IN_RECT_CHECK: usize = 64;

/// The largest bounding box of changed cells, in cells, that a path of unit steps is read by
/// its distance from ([`Reading::ByDistance`]): a tower of a few cells on a side, a stretch of
/// wall. A larger change is read cell by cell.
const MOST_CELLS_IN_A_BOX_READ: u64 = 256;

use astar_grid::{Cell, Movement};

impl NavChange {
    /// Whether any of `cells` changed. Cheap when the cells lie away from the change: the
    /// change's bounding box is checked first.
    #[must_use]
    pub fn touches_any(&self, cells: &[Cell]) -> bool {
        self.touches_any_read(cells, Reading::Whole)
    }

    /// [`NavChange::touches_any`], the path read as `reading` says when the change is a tower
    /// or a few cells.
    fn touches_any_read(&self, cells: &[Cell], reading: Reading) -> bool {
        if self.whole_map {
            return true;
        }
        if let (Reading::ByDistance, Some(bounds)) = (reading, self.box_read_by_distance()) {
            // A tower: one scan of the path by its distance from the tower's box.
            return holds_cell_in_box(cells, bounds, |cell| self.cells.contains_key(&cell));
        }
        if self.cells.len() <= 4 {
            // A few cells apart: a scan of the path for each changed cell.
            return self
                .cells
                .keys()
                .any(|&changed| reading.holds(cells, changed));
        }
        cells
            .iter()
            .any(|&cell| self.changed_inside(cell).is_some())
    }

    /// The bounding box of the changed cells, when it holds at most
    /// [`MOST_CELLS_IN_A_BOX_READ`] cells.
    fn box_read_by_distance(&self) -> Option<(Cell, Cell)> {
        let (min, max) = self.bounds?;
        let area = (u64::from(max.x - min.x) + 1) * (u64::from(max.y - min.y) + 1);
        (area <= MOST_CELLS_IN_A_BOX_READ).then_some((min, max))
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
        self.touches_path_read(cells, movement, Reading::Whole)
    }

    /// [`NavChange::touches_path`] for a path whose footprint is known: a path that moves at
    /// most a cell along each axis a step ([`PathFootprint::has_unit_steps`]) is read by its
    /// distance from the changed cells' bounding box when that box is small (a tower of a few
    /// cells a side), or from each changed cell when the change is a few cells far apart.
    pub(crate) fn touches_path_of(
        &self,
        cells: &[Cell],
        movement: Movement,
        footprint: &PathFootprint,
    ) -> bool {
        let reading = if footprint.has_unit_steps() {
            Reading::ByDistance
        } else {
            Reading::Whole
        };
        self.touches_path_read(cells, movement, reading)
    }

    /// [`NavChange::touches_path`], the path read as `reading` says when the change is a tower
    /// or a few cells.
    fn touches_path_read(&self, cells: &[Cell], movement: Movement, reading: Reading) -> bool {
        if self.touches_any_read(cells, reading) || self.worsens_a_step_of(cells) {
            return true;
        }
        if !movement.corners_decide() {
            return false;
        }
        if let (Reading::ByDistance, Some(bounds)) = (reading, self.box_read_by_distance()) {
            return has_step_corner_in_box(cells, bounds, |corner| {
                self.changed_inside(corner)
                    .is_some_and(NavCellChange::became_blocked)
            });
        }
        if self.cells.len() <= 4 {
            return self.cells.values().any(|changed| {
                changed.became_blocked() && reading.has_step_corner(cells, changed.cell)
            });
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

/// How a path is scanned for a changed cell.
#[derive(Clone, Copy)]
enum Reading {
    /// Every cell, compared without branches.
    Whole,
    /// By distance from the change: a cell `d` steps from the changed cells' bounding box (a
    /// tower's square, or each changed cell of a change of a few cells far apart) is followed by
    /// at least `d - 1` that cannot be in it, so a long path far from the change is read a few
    /// cells a stretch. Only for paths whose steps move at most a cell along each axis.
    ByDistance,
}

impl Reading {
    /// Whether the path `cells` holds `target`.
    fn holds(self, cells: &[Cell], target: Cell) -> bool {
        match self {
            Self::Whole => contains_cell(cells, target),
            Self::ByDistance => holds_cell_in_box(cells, (target, target), |cell| cell == target),
        }
    }

    /// Whether `target` is a corner cell of a diagonal step of the path `cells`.
    fn has_step_corner(self, cells: &[Cell], target: Cell) -> bool {
        match self {
            Self::Whole => is_step_corner(cells, target),
            Self::ByDistance => {
                has_step_corner_in_box(cells, (target, target), |corner| corner == target)
            }
        }
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

/// The distance in steps of at most one cell along each axis from `cell` to the box from
/// `min` to `max` (both corners included): 0 inside it.
fn distance_to_box(cell: Cell, (min, max): (Cell, Cell)) -> usize {
    let along = |value: u32, low: u32, high: u32| {
        if value < low {
            low - value
        } else {
            value.saturating_sub(high)
        }
    };
    along(cell.x, min.x, max.x).max(along(cell.y, min.y, max.y)) as usize
}

/// Whether the path `cells`, whose steps move at most a cell along each axis, holds a cell of
/// the box `bounds` that `hit` accepts: a cell `d` steps from the box is followed by `d - 1`
/// cells outside it, which are skipped.
fn holds_cell_in_box(cells: &[Cell], bounds: (Cell, Cell), hit: impl Fn(Cell) -> bool) -> bool {
    let mut index = 0;
    while let Some(&cell) = cells.get(index) {
        let distance = distance_to_box(cell, bounds);
        if distance == 0 && hit(cell) {
            return true;
        }
        index += distance.max(1);
    }
    false
}

/// Whether a corner cell of a diagonal step of the path `cells` (whose steps move at most a
/// cell along each axis) lies in the box `bounds` and `hit` accepts it: such a step starts
/// within a step of the box, and a cell `d` steps from it is followed by `d - 2` cells at
/// least two steps from it, which are skipped.
fn has_step_corner_in_box(
    cells: &[Cell],
    bounds: (Cell, Cell),
    hit: impl Fn(Cell) -> bool,
) -> bool {
    let mut index = 0;
    while let Some(&from) = cells.get(index) {
        let distance = distance_to_box(from, bounds);
        if distance <= 1
            && let Some(&to) = cells.get(index + 1)
            && from.x != to.x
            && from.y != to.y
            && (hit(Cell::new(to.x, from.y)) || hit(Cell::new(from.x, to.y)))
        {
            return true;
        }
        index += distance.saturating_sub(1).max(1);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::CornerRule;
    use proptest::prelude::*;

    /// A walk of unit steps from `start` on a 24 x 24 board (steps that would leave it stay put
    /// on that axis), each step one of the eight directions or none.
    fn walk(start: (u32, u32), steps: &[(i8, i8)]) -> Vec<Cell> {
        let mut at = Cell::new(start.0, start.1);
        let mut cells = vec![at];
        for &(dx, dy) in steps {
            let moved = |value: u32, delta: i8| {
                value
                    .checked_add_signed(i32::from(delta))
                    .filter(|&value| value < 24)
                    .unwrap_or(value)
            };
            at = Cell::new(moved(at.x, dx), moved(at.y, dy));
            cells.push(at);
        }
        cells
    }

    fn any_movement() -> impl Strategy<Value = Movement> {
        prop_oneof![
            Just(Movement::FOUR),
            Just(Movement::EIGHT),
            Just(Movement::eight(CornerRule::One)),
            Just(Movement::eight(CornerRule::Any)),
            Just(Movement::HEX),
        ]
    }

    proptest! {
        // Many cases: a skip off by one shows only where a diagonal step passes a tower's
        // corner and no changed cell lies on the path.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Reading a path by distance from the change decides as reading every cell does, for
        /// changes of one to sixteen cells that block, open or change the cost of cells on the
        /// path, beside it (its diagonals' corners) or anywhere else, with or without a square
        /// tower on it, under every movement rule.
        /// The walks go in straight runs, as paths do, so that they come at changed cells from
        /// afar.
        #[test]
        fn reading_by_distance_agrees_with_reading_every_cell(
            start in (0u32..24, 0u32..24),
            runs in prop::collection::vec(((-1i8..=1, -1i8..=1), 1usize..9), 0..24),
            changed in prop::collection::vec(
                (any::<prop::sample::Index>(), (-1i32..=1, -1i32..=1), 0u8..2, 0u8..3),
                1..17,
            ),
            elsewhere in prop::option::of((0u32..24, 0u32..24)),
            tower in prop::option::of((any::<prop::sample::Index>(), 1u32..6)),
            movement in any_movement(),
        ) {
            let steps: Vec<(i8, i8)> = runs
                .iter()
                .flat_map(|&(step, length)| core::iter::repeat_n(step, length))
                .collect();
            let cells = walk(start, &steps);
            let footprint = PathFootprint::of(&cells, movement, 24, 24);
            prop_assert!(footprint.has_unit_steps());
            // Cells on or beside the path (a corner of a diagonal step lies beside both its
            // ends), and maybe one anywhere.
            let near = changed.iter().filter_map(|&(index, (dx, dy), before, after)| {
                let on = cells[index.index(cells.len())];
                let cell = Cell::new(on.x.checked_add_signed(dx)?, on.y.checked_add_signed(dy)?);
                Some(NavCellChange { cell, before, after })
            });
            let anywhere = elsewhere.map(|(x, y)| NavCellChange {
                cell: Cell::new(x, y),
                before: 1,
                after: 0,
            });
            // A square tower of up to 5 cells a side whose corner is a cell of the path.
            let square = tower.into_iter().flat_map(|(index, side)| {
                let corner = cells[index.index(cells.len())];
                (0..side).flat_map(move |dy| {
                    (0..side).map(move |dx| NavCellChange {
                        cell: Cell::new(corner.x + dx, corner.y + dy),
                        before: 1,
                        after: 0,
                    })
                })
            });
            let change = NavChange::from_cells(near.chain(anywhere).chain(square));
            prop_assert_eq!(
                change.touches_path_of(&cells, movement, &footprint),
                change.touches_path(&cells, movement)
            );
        }
    }

    #[test]
    fn a_path_that_jumps_is_read_whole() {
        // A link's jump from (0, 0) to (20, 0): the cell (10, 0) between its ends is not on the
        // path, and (21, 0) is, though the first cell lies 21 steps from it.
        let cells = [Cell::new(0, 0), Cell::new(20, 0), Cell::new(21, 0)];
        let footprint = PathFootprint::of(&cells, Movement::EIGHT, 24, 24);
        assert!(!footprint.has_unit_steps());
        let blocking = |x| {
            NavChange::from_cells([NavCellChange {
                cell: Cell::new(x, 0),
                before: 1,
                after: 0,
            }])
        };
        assert!(blocking(21).touches_path_of(&cells, Movement::EIGHT, &footprint));
        assert!(!blocking(10).touches_path_of(&cells, Movement::EIGHT, &footprint));
    }
}
