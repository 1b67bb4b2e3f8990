//! A path's footprint: its bounding box and the coarse chunks of the grid it crosses, so that
//! most map changes are ruled out for a path without reading its cells.

use super::NavChange;
use astar_grid::{Cell, Movement};

/// Chunks per side: the grid is split into at most 16 x 16 chunks, one bit each.
const CHUNKS_PER_SIDE: u32 = 16;

/// Changes with more cells than this are checked against the bounding box only.
const MOST_CELLS_CHECKED: usize = 32;

/// Where a path lies, coarsely: a cell the footprint does not cover is surely neither on the
/// path nor a corner cell of one of its diagonal steps (which a step may not cut, so a wall
/// placed there makes the path illegal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PathFootprint {
    min: Cell,
    max: Cell,
    /// Side of a chunk in cells; 0 for a footprint of no cells.
    chunk: u32,
    /// One bit per chunk crossed, row by row.
    bits: [u64; 4],
    /// Whether every step of the path moves at most one cell along each axis (no link jumps
    /// from one cell to a far one), so that its cells can be scanned by their distance from a
    /// changed cell ([`NavChange::touches_path_of`]).
    unit_steps: bool,
}

impl PathFootprint {
    /// The footprint of the path `cells`, walked under `movement`, on a grid of `width` x
    /// `height` cells: its cells and the corner cells of its diagonal steps.
    pub(crate) fn of(cells: &[Cell], movement: Movement, width: u32, height: u32) -> Self {
        let Some(&first) = cells.first() else {
            return Self::default();
        };
        let mut footprint = Self {
            min: first,
            max: first,
            chunk: width.max(height).div_ceil(CHUNKS_PER_SIDE).max(1),
            bits: [0; 4],
            unit_steps: cells.windows(2).all(|step| step[0].is_adjacent_8(step[1])),
        };
        for cell in cells
            .iter()
            .copied()
            .chain(step_corner_cells(cells, movement))
        {
            footprint.min = Cell::new(footprint.min.x.min(cell.x), footprint.min.y.min(cell.y));
            footprint.max = Cell::new(footprint.max.x.max(cell.x), footprint.max.y.max(cell.y));
            let bit = footprint.bit(cell);
            footprint.bits[bit / 64] |= 1 << (bit % 64);
        }
        footprint
    }

    /// Whether `change` may touch a cell of the path or a corner of its diagonal steps: false
    /// only when it surely does not.
    pub(crate) fn may_be_touched_by(&self, change: &NavChange) -> bool {
        if change.is_whole_map() {
            return true;
        }
        if self.chunk == 0 || !change.may_touch_rect(self.min, self.max) {
            return false;
        }
        change.len() > MOST_CELLS_CHECKED
            || change.cells().any(|changed| self.covers(changed.cell))
            || change.link_ends().any(|end| self.covers(end))
    }

    /// Whether every step of the path moves at most one cell along each axis.
    pub(crate) const fn has_unit_steps(&self) -> bool {
        self.unit_steps
    }

    /// Whether `cell` lies in a chunk the path crosses, inside its bounding box.
    fn covers(&self, cell: Cell) -> bool {
        let inside = (self.min.x..=self.max.x).contains(&cell.x)
            && (self.min.y..=self.max.y).contains(&cell.y);
        let bit = self.bit(cell);
        inside && self.bits[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// The chunk bit of `cell`; cells beyond the grid share the last row or column's chunks.
    fn bit(&self, cell: Cell) -> usize {
        let last = CHUNKS_PER_SIDE - 1;
        let column = (cell.x / self.chunk).min(last);
        let row = (cell.y / self.chunk).min(last);
        (row * CHUNKS_PER_SIDE + column) as usize
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::NavCellChange;
    use astar_grid::CornerRule;

    fn blocking(cells: &[(u32, u32)]) -> NavChange {
        NavChange::from_cells(cells.iter().map(|&(x, y)| NavCellChange {
            cell: Cell::new(x, y),
            before: 1,
            after: 0,
        }))
    }

    #[test]
    fn changes_away_from_the_path_are_ruled_out_and_changes_on_it_are_not() {
        // An L-shaped path on a 256 x 256 grid (chunks of 16 cells): along the bottom row,
        // then up the right edge.
        let cells: Vec<Cell> = (0..256)
            .map(|x| Cell::new(x, 0))
            .chain((1..256).map(|y| Cell::new(255, y)))
            .collect();
        let footprint = PathFootprint::of(&cells, Movement::EIGHT, 256, 256);
        // Inside the bounding box but far from the path: ruled out by the chunks.
        assert!(!footprint.may_be_touched_by(&blocking(&[(100, 100)])));
        // On the path, or in a chunk it crosses: kept.
        assert!(footprint.may_be_touched_by(&blocking(&[(100, 0)])));
        assert!(footprint.may_be_touched_by(&blocking(&[(250, 10)])));
        assert!(footprint.may_be_touched_by(&blocking(&[(100, 100), (255, 40)])));
        assert!(footprint.may_be_touched_by(&NavChange::whole_map()));
        assert!(
            !PathFootprint::of(&[], Movement::EIGHT, 256, 256)
                .may_be_touched_by(&blocking(&[(0, 0)]))
        );
    }

    #[test]
    fn small_grids_have_one_cell_chunks() {
        let cells = [Cell::new(0, 0), Cell::new(1, 1), Cell::new(2, 2)];
        let footprint = PathFootprint::of(&cells, Movement::eight(CornerRule::Any), 5, 5);
        assert!(footprint.may_be_touched_by(&blocking(&[(1, 1)])));
        assert!(!footprint.may_be_touched_by(&blocking(&[(1, 0)])));
        assert!(!footprint.may_be_touched_by(&blocking(&[(2, 1)])));
    }

    #[test]
    fn corners_of_diagonal_steps_are_covered_where_the_corner_rule_needs_them() {
        // The diagonal (0, 0), (1, 1), ..., (5, 5) on a 6 x 6 grid: every cell beside it is a
        // corner of one of its steps, and a wall there makes the step illegal.
        let cells: Vec<Cell> = (0..6).map(|i| Cell::new(i, i)).collect();
        for corners in [CornerRule::Both, CornerRule::One] {
            let footprint = PathFootprint::of(&cells, Movement::eight(corners), 6, 6);
            for i in 0..5 {
                assert!(footprint.may_be_touched_by(&blocking(&[(i + 1, i)])));
                assert!(footprint.may_be_touched_by(&blocking(&[(i, i + 1)])));
            }
            // Two cells off the diagonal is no corner of any step.
            assert!(!footprint.may_be_touched_by(&blocking(&[(2, 0)])));
        }
        // A path along the top row has no diagonal steps: the row below stays out.
        let row: Vec<Cell> = (0..6).map(|x| Cell::new(x, 0)).collect();
        let footprint = PathFootprint::of(&row, Movement::EIGHT, 6, 6);
        assert!(!footprint.may_be_touched_by(&blocking(&[(3, 1)])));
        // On a large grid the corner may fall into the next chunk, which then is covered too.
        let step = [Cell::new(15, 15), Cell::new(16, 16)];
        let footprint = PathFootprint::of(&step, Movement::EIGHT, 256, 256);
        assert!(footprint.may_be_touched_by(&blocking(&[(16, 15)])));
        assert!(footprint.may_be_touched_by(&blocking(&[(15, 16)])));
    }
}
