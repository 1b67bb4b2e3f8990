//! The navigation grid: walkable and blocked cells with per-cell terrain cost multipliers.

use crate::Cell;
use crate::endpoints::{EndpointMap, SearchError, validate_endpoints};
use crate::links::Links;

/// The most cells a [`Grid`] may hold, so that every cell (and the border the grid keeps around
/// itself) has a 32-bit index.
pub const MAX_CELLS: u64 = 1 << 31;

/// A rectangular map of cells, each blocked or walkable with a terrain cost multiplier
/// from 1 (plain ground) to 255.
///
/// Stepping onto a cell costs the movement's base cost (straight or diagonal, see
/// [`CostModel`](crate::CostModel)) times the cell's multiplier.
///
/// The grid keeps one byte per cell plus a one-cell blocked border, which lets searches look at
/// neighbours without bounds checks. Cloning it is a single copy of that buffer.
///
/// ```
/// use astar_grid::{Cell, Grid};
///
/// let mut grid = Grid::new(4, 3);
/// grid.set_blocked(Cell::new(1, 1), true)?;
/// grid.set_cost(Cell::new(2, 1), 3)?; // swamp
/// assert!(!grid.is_walkable(Cell::new(1, 1)));
/// assert_eq!(grid.cost(Cell::new(2, 1)), Some(3));
/// assert_eq!(grid.cost(Cell::new(9, 9)), None); // out of bounds
/// # Ok::<(), astar_grid::GridError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    width: u32,
    height: u32,
    /// Row length of `cells`, including the border: `width + 2`; 0 when the grid has no cells.
    stride: usize,
    /// `(width + 2) * (height + 2)` bytes, none when the grid has no cells; 0 is blocked,
    /// anything else is the cost multiplier.
    cells: Vec<u8>,
    /// Links between cells beyond the neighbour steps (see [`crate::Link`]).
    pub(crate) links: Links,
}

/// The row length and the length of the bordered buffer of a `width` x `height` grid, both 0
/// for a grid without cells, or `None` when it would have more than [`MAX_CELLS`] cells or a
/// buffer without 32-bit indices.
fn layout(width: u32, height: u32) -> Option<(usize, usize)> {
    if width == 0 || height == 0 {
        return Some((0, 0));
    }
    if u64::from(width).checked_mul(u64::from(height))? > MAX_CELLS {
        return None;
    }
    let stride = u64::from(width).checked_add(2)?;
    let padded = stride.checked_mul(u64::from(height).checked_add(2)?)?;
    if padded > u64::from(u32::MAX) {
        return None;
    }
    Some((usize::try_from(stride).ok()?, usize::try_from(padded).ok()?))
}

/// Why a grid could not be built or edited.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GridError {
    /// The requested size has more than [`MAX_CELLS`] cells, or its cells and border would
    /// not all have 32-bit indices.
    #[error(
        "a {width}x{height} grid is too large (at most {MAX_CELLS} cells, with 32-bit indices for them and their border)"
    )]
    TooLarge {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// The cell lies outside the grid.
    #[error("cell {cell} is outside the {width}x{height} grid")]
    OutOfBounds {
        /// The offending cell.
        cell: Cell,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
}

impl Grid {
    /// A `width` x `height` grid of walkable cells of cost 1.
    ///
    /// # Panics
    /// When [`Grid::try_new`] refuses the size (more than [`MAX_CELLS`] cells); use
    /// [`Grid::try_new`] for sizes that come from outside the program.
    #[must_use]
    pub fn new(width: u32, height: u32) -> Self {
        match Self::try_new(width, height) {
            Ok(grid) => grid,
            Err(error) => panic!("{error}"),
        }
    }

    /// A `width` x `height` grid of walkable cells of cost 1, or an error when it would hold more
    /// than [`MAX_CELLS`] cells or its bordered buffer would not have 32-bit indices.
    ///
    /// A grid with a zero width or height has no cells and holds no memory, whatever its other
    /// dimension.
    ///
    /// ```
    /// use astar_grid::{Grid, GridError};
    ///
    /// assert_eq!(Grid::try_new(0, u32::MAX)?.memory_bytes(), 0);
    /// assert_eq!(
    ///     Grid::try_new(u32::MAX, u32::MAX),
    ///     Err(GridError::TooLarge { width: u32::MAX, height: u32::MAX })
    /// );
    /// # Ok::<(), GridError>(())
    /// ```
    pub fn try_new(width: u32, height: u32) -> Result<Self, GridError> {
        let (stride, padded) =
            layout(width, height).ok_or(GridError::TooLarge { width, height })?;
        if padded == 0 {
            return Ok(Self {
                width,
                height,
                stride,
                cells: Vec::new(),
                links: Links::default(),
            });
        }
        let mut cells = vec![1u8; padded];
        // Blocked border: first and last rows, first and last columns.
        cells[..stride].fill(0);
        cells[padded - stride..].fill(0);
        for row in cells.chunks_exact_mut(stride) {
            row[0] = 0;
            row[stride - 1] = 0;
        }
        Ok(Self {
            width,
            height,
            stride,
            cells,
            links: Links::default(),
        })
    }

    /// Length of the bordered buffer of a `width` x `height` grid (0 without cells), or `None`
    /// when [`Grid::try_new`] refuses the size.
    pub(crate) fn buffer_len(width: u32, height: u32) -> Option<usize> {
        layout(width, height).map(|(_, padded)| padded)
    }

    /// A grid whose cell costs come from `cost(cell)`: 0 for blocked, 1..=255 for walkable.
    ///
    /// # Panics
    /// As [`Grid::new`].
    #[must_use]
    pub fn from_fn(width: u32, height: u32, mut cost: impl FnMut(Cell) -> u8) -> Self {
        let mut grid = Self::new(width, height);
        if grid.is_empty() {
            return grid;
        }
        for y in 0..height {
            for x in 0..width {
                let index = grid.index(Cell::new(x, y));
                grid.cells[index] = cost(Cell::new(x, y));
            }
        }
        grid
    }

    /// Number of columns.
    #[must_use]
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// Number of rows.
    #[must_use]
    pub const fn height(&self) -> u32 {
        self.height
    }

    /// Number of cells (`width * height`).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Whether the grid has no cells at all.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// Whether `cell` lies inside the grid.
    #[must_use]
    pub const fn contains(&self, cell: Cell) -> bool {
        cell.x < self.width && cell.y < self.height
    }

    /// Whether `cell` is inside the grid and walkable.
    #[must_use]
    pub fn is_walkable(&self, cell: Cell) -> bool {
        self.contains(cell) && self.cells[self.index(cell)] != 0
    }

    /// The cost multiplier of `cell`, or `None` when it is blocked or out of bounds.
    #[must_use]
    pub fn cost(&self, cell: Cell) -> Option<u8> {
        if !self.contains(cell) {
            return None;
        }
        match self.cells[self.index(cell)] {
            0 => None,
            cost => Some(cost),
        }
    }

    /// The raw value of `cell`: 0 when blocked, else its cost multiplier; 0 out of bounds.
    #[must_use]
    pub fn value(&self, cell: Cell) -> u8 {
        if self.contains(cell) {
            self.cells[self.index(cell)]
        } else {
            0
        }
    }

    /// Sets `cell`'s cost multiplier; 0 blocks it. Returns the previous value.
    pub fn set_cost(&mut self, cell: Cell, cost: u8) -> Result<u8, GridError> {
        if !self.contains(cell) {
            return Err(self.out_of_bounds(cell));
        }
        let index = self.index(cell);
        Ok(core::mem::replace(&mut self.cells[index], cost))
    }

    /// Blocks `cell`, or unblocks it with cost 1. Returns the previous value.
    pub fn set_blocked(&mut self, cell: Cell, blocked: bool) -> Result<u8, GridError> {
        self.set_cost(cell, u8::from(!blocked))
    }

    /// Sets every cell of the rectangle from `min` to `max` (inclusive, clipped to the grid) to
    /// `cost`; 0 blocks them. Returns how many cells changed value.
    pub fn fill_rect(&mut self, min: Cell, max: Cell, cost: u8) -> usize {
        if self.is_empty() {
            return 0;
        }
        let max = Cell::new(max.x.min(self.width - 1), max.y.min(self.height - 1));
        let mut changed = 0;
        for y in min.y..=max.y {
            for x in min.x..=max.x {
                let index = self.index(Cell::new(x, y));
                changed += usize::from(self.cells[index] != cost);
                self.cells[index] = cost;
            }
        }
        changed
    }

    /// Every cell of the grid in row-major order with its raw value (0 blocked, else cost).
    pub fn cells(&self) -> impl Iterator<Item = (Cell, u8)> + '_ {
        // Without cells, no rows either: a 0 x 4,294,967,295 grid has nothing to visit.
        let rows = if self.is_empty() { 0 } else { self.height };
        (0..rows).flat_map(move |y| {
            (0..self.width).map(move |x| {
                let cell = Cell::new(x, y);
                (cell, self.cells[self.index(cell)])
            })
        })
    }

    /// Number of walkable cells.
    #[must_use]
    pub fn walkable_count(&self) -> usize {
        self.cells.iter().filter(|&&value| value != 0).count()
    }

    /// Checks `start` and `goal` as every search does before it begins: the same
    /// [`SearchError`](crate::SearchError) for an empty grid and for an endpoint outside the grid
    /// or blocked, so that code answering a request without a search (a flow field, say) fails
    /// it the same way.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, SearchError};
    ///
    /// let grid = Grid::from_ascii("..#")?;
    /// assert_eq!(grid.check_endpoints(Cell::new(0, 0), Cell::new(1, 0)), Ok(()));
    /// assert_eq!(
    ///     grid.check_endpoints(Cell::new(0, 0), Cell::new(2, 0)),
    ///     Err(SearchError::GoalBlocked(Cell::new(2, 0)))
    /// );
    /// # Ok::<(), astar_grid::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// [`SearchError::EmptyGrid`](crate::SearchError::EmptyGrid), then the start's and the goal's
    /// out-of-bounds errors, then their blocked errors.
    pub fn check_endpoints(&self, start: Cell, goal: Cell) -> Result<(), SearchError> {
        validate_endpoints(self, start, goal)
    }

    /// Whether any walkable cell costs more than 1.
    #[must_use]
    pub fn has_terrain_costs(&self) -> bool {
        self.cells.iter().any(|&value| value > 1)
    }

    /// Bytes of cell storage, border included (0 for a grid without cells), and of its links.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.cells.len() + self.links.memory_bytes()
    }

    // --- crate-internal access to the padded layout used by the searches ---

    /// Index of `cell` in the padded buffer. `cell` must be inside the grid.
    #[inline]
    pub(crate) const fn index(&self, cell: Cell) -> usize {
        (cell.y as usize + 1) * self.stride + cell.x as usize + 1
    }

    /// The cell at a padded index (which must not be on the border).
    #[inline]
    pub(crate) const fn cell_at(&self, index: usize) -> Cell {
        Cell::new(
            (index % self.stride) as u32 - 1,
            (index / self.stride) as u32 - 1,
        )
    }

    /// Row length of the padded buffer (0 for a grid without cells).
    #[inline]
    pub(crate) const fn stride(&self) -> usize {
        self.stride
    }

    /// Rows of the padded buffer, border included (0 for a grid without cells).
    #[inline]
    pub(crate) fn padded_rows(&self) -> usize {
        self.cells.len().checked_div(self.stride).unwrap_or(0)
    }

    /// The padded buffer: 0 blocked (the border always is), else the cost multiplier.
    #[inline]
    pub(crate) fn raw(&self) -> &[u8] {
        &self.cells
    }

    fn out_of_bounds(&self, cell: Cell) -> GridError {
        GridError::OutOfBounds {
            cell,
            width: self.width,
            height: self.height,
        }
    }
}

impl EndpointMap for Grid {
    fn has_no_cells(&self) -> bool {
        self.is_empty()
    }

    fn holds(&self, cell: Cell) -> bool {
        self.contains(cell)
    }

    fn is_open(&self, cell: Cell) -> bool {
        self.is_walkable(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_grid_is_walkable_inside_and_blocked_outside() {
        let grid = Grid::new(3, 2);
        assert_eq!(grid.len(), 6);
        assert!(grid.cells().all(|(_, value)| value == 1));
        assert!(!grid.is_walkable(Cell::new(3, 0)));
        assert!(!grid.is_walkable(Cell::new(0, 2)));
        assert_eq!(grid.walkable_count(), 6);
    }

    #[test]
    fn edits_report_bounds_and_previous_values() {
        let mut grid = Grid::new(2, 2);
        assert_eq!(grid.set_cost(Cell::new(1, 1), 3), Ok(1));
        assert_eq!(grid.set_blocked(Cell::new(1, 1), true), Ok(3));
        assert!(matches!(
            grid.set_blocked(Cell::new(2, 0), true),
            Err(GridError::OutOfBounds { .. })
        ));
        assert!(!grid.has_terrain_costs());
    }

    #[test]
    fn fill_rect_clips_and_counts() {
        let mut grid = Grid::new(4, 4);
        assert_eq!(grid.fill_rect(Cell::new(2, 2), Cell::new(10, 10), 0), 4);
        assert_eq!(grid.fill_rect(Cell::new(2, 2), Cell::new(3, 3), 0), 0);
        assert_eq!(grid.walkable_count(), 12);
    }

    #[test]
    fn oversized_grids_are_refused() {
        assert!(matches!(
            Grid::try_new(u32::MAX, 2),
            Err(GridError::TooLarge { .. })
        ));
        assert!(Grid::try_new(0, 0).is_ok_and(|grid| grid.is_empty()));
        assert_eq!(layout(u32::MAX, u32::MAX), None);
        assert_eq!(layout(0, u32::MAX), Some((0, 0)));
        assert_eq!(layout(3, 1), Some((5, 15)));
    }

    #[test]
    fn padded_index_round_trips() {
        let grid = Grid::new(5, 7);
        for (cell, _) in grid.cells() {
            assert_eq!(grid.cell_at(grid.index(cell)), cell);
        }
    }
}
