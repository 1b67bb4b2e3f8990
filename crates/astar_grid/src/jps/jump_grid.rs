//! [`JumpGrid`]: the walkable cells of a uniform-cost grid packed into bit rows and bit columns
//! for jump point search.

use super::bits::BitMatrix;
use crate::links::Links;
use crate::{Cell, Grid, GridError, SearchError};

/// A grid prepared for jump point search: its walkable cells packed 64 to a word, stored twice
/// (by rows and by columns) so that horizontal and vertical scans both read 64 cells at a time,
/// with the cells where such a scan must stop kept beside them.
///
/// Build it once from a [`Grid`] of uniform cost (O(cells)) and keep it in step with the grid
/// through [`JumpGrid::set_blocked`] (O(1) per cell). It takes six bits per cell, border
/// included (see [`JumpGrid::memory_bytes`]).
///
/// ```
/// use astar_grid::{Cell, Grid, JumpGrid};
///
/// let mut grid = Grid::new(8, 8);
/// let mut jump_grid = JumpGrid::new(&grid)?;
/// // Keep both in step when the map changes.
/// grid.set_blocked(Cell::new(3, 3), true)?;
/// jump_grid.set_blocked(Cell::new(3, 3), true)?;
/// assert!(!jump_grid.is_walkable(Cell::new(3, 3)));
/// assert_eq!(jump_grid, JumpGrid::new(&grid)?);
///
/// // Terrain costs would make jump point search return wrong paths, so they are refused.
/// grid.set_cost(Cell::new(5, 5), 3)?;
/// assert!(JumpGrid::new(&grid).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JumpGrid {
    width: u32,
    height: u32,
    /// Line `y + 1`, bit `x + 1` is cell `(x, y)`; the border lines and bits stay 0 (blocked).
    rows: BitMatrix,
    /// The transpose: line `x + 1`, bit `y + 1` is cell `(x, y)`.
    columns: BitMatrix,
    /// The grid's links: the cells they leave from are marked as stops in both matrices.
    links: Links,
}

impl JumpGrid {
    /// The walkable cells of `grid`, packed.
    ///
    /// # Errors
    /// [`SearchError::Unsupported`] when the grid has terrain costs (a walkable cell with a
    /// multiplier above 1): jump point search assumes every step onto a cell costs the same.
    ///
    /// The grid's links ([`Grid::add_link`]) come with it: jumps stop at the cells links leave
    /// from, and a cell reached by a link is searched in every direction, as the start is. After
    /// changing the grid's links, give them to the jump grid with [`JumpGrid::update_links`].
    pub fn new(grid: &Grid) -> Result<Self, SearchError> {
        if grid.has_terrain_costs() {
            return Err(SearchError::Unsupported(
                "jump point search needs uniform costs, but the grid has terrain costs",
            ));
        }
        let (width, height) = (grid.width(), grid.height());
        let (padded_width, padded_height) = (grid.stride(), grid.padded_rows());
        // The grid's padded buffer has the same layout: row `y + 1`, column `x + 1`.
        let cells = grid.raw();
        let walkable = |x: usize, y: usize| cells[y * padded_width + x] != 0;
        let rows = BitMatrix::from_fn(padded_height, padded_width, |y, x| walkable(x, y));
        let columns = BitMatrix::from_fn(padded_width, padded_height, walkable);
        let mut jump_grid = Self {
            width,
            height,
            rows,
            columns,
            links: Links::default(),
        };
        jump_grid.take_links(grid.links());
        Ok(jump_grid)
    }

    /// Takes the links of `grid`, the grid this jump grid was built from, after they changed.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, JpsOptions, JumpGrid, Link, Searcher};
    ///
    /// let mut grid = Grid::from_ascii("..#..\n..#..")?;
    /// let mut jump_grid = JumpGrid::new(&grid)?;
    /// let (start, goal) = (Cell::new(0, 0), Cell::new(4, 0));
    /// let options = JpsOptions::default();
    /// assert!(Searcher::new().find_path_jps(&jump_grid, start, goal, &options)?.found().is_none());
    /// grid.add_link(Link::new(Cell::new(1, 1), Cell::new(3, 1), 1.0))?;
    /// jump_grid.update_links(&grid)?;
    /// let result = Searcher::new().find_path_jps(&jump_grid, start, goal, &options)?;
    /// assert_eq!(result.found().map(|path| path.cost), Some(2.0f64.sqrt() + 1.0 + 2.0f64.sqrt()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`SearchError::Unsupported`] when `grid` is not this jump grid's size.
    pub fn update_links(&mut self, grid: &Grid) -> Result<(), SearchError> {
        if (grid.width(), grid.height()) != (self.width, self.height) {
            return Err(SearchError::Unsupported(
                "the grid whose links a jump grid takes must be the size it was built from",
            ));
        }
        self.take_links(grid.links());
        Ok(())
    }

    /// The links, their search table in this grid's padded layout.
    pub(crate) const fn links(&self) -> &Links {
        &self.links
    }

    fn take_links(&mut self, links: &Links) {
        self.links = links.clone();
        let stride = self.stride();
        let leaving: Vec<(usize, usize)> = self
            .links
            .steps()
            .iter()
            .map(|step| (step.from as usize % stride, step.from as usize / stride))
            .collect();
        self.rows.set_marks(leaving.iter().map(|&(x, y)| (y, x)));
        self.columns.set_marks(leaving);
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
        self.contains(cell) && self.rows.get(cell.y as usize + 1, cell.x as usize + 1)
    }

    /// Blocks `cell`, or makes it walkable. Returns whether it was blocked before. O(1): it
    /// updates the cell and the stop marks of the cells around it.
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`] when `cell` lies outside the grid.
    pub fn set_blocked(&mut self, cell: Cell, blocked: bool) -> Result<bool, GridError> {
        if !self.contains(cell) {
            return Err(GridError::OutOfBounds {
                cell,
                width: self.width,
                height: self.height,
            });
        }
        let (x, y) = (cell.x as usize + 1, cell.y as usize + 1);
        let was_blocked = !self.rows.get(y, x);
        self.rows.set(y, x, !blocked);
        self.columns.set(x, y, !blocked);
        Ok(was_blocked)
    }

    /// Bytes of storage (rows and columns, and links).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.rows.memory_bytes() + self.columns.memory_bytes() + self.links.memory_bytes()
    }

    /// Row length of the padded layout shared with [`Grid`] and the searcher's node array.
    #[inline]
    pub(crate) const fn stride(&self) -> usize {
        self.width as usize + 2
    }

    /// Number of cells of the padded layout.
    #[inline]
    pub(crate) const fn padded_len(&self) -> usize {
        self.stride() * (self.height as usize + 2)
    }

    /// The bits by rows: line `y + 1`, bit `x + 1`.
    #[inline]
    pub(crate) const fn rows(&self) -> &BitMatrix {
        &self.rows
    }

    /// The bits by columns: line `x + 1`, bit `y + 1`.
    #[inline]
    pub(crate) const fn columns(&self) -> &BitMatrix {
        &self.columns
    }
}

impl TryFrom<&Grid> for JumpGrid {
    type Error = SearchError;

    fn try_from(grid: &Grid) -> Result<Self, Self::Error> {
        Self::new(grid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_match_the_grid_in_both_layouts() {
        let grid = Grid::from_fn(70, 5, |cell| u8::from((cell.x * 7 + cell.y * 3) % 4 != 0));
        let jump_grid = JumpGrid::new(&grid).unwrap();
        for (cell, value) in grid.cells() {
            let (x, y) = (cell.x as usize + 1, cell.y as usize + 1);
            assert_eq!(jump_grid.rows().get(y, x), value != 0);
            assert_eq!(jump_grid.columns().get(x, y), value != 0);
        }
        for x in 0..72 {
            assert!(!jump_grid.rows().get(0, x) && !jump_grid.rows().get(6, x));
        }
        assert!(!jump_grid.is_walkable(Cell::new(70, 0)));
    }

    #[test]
    fn edits_are_checked_and_report_the_previous_state() {
        let mut jump_grid = JumpGrid::new(&Grid::new(3, 3)).unwrap();
        assert_eq!(jump_grid.set_blocked(Cell::new(1, 1), true), Ok(false));
        assert_eq!(jump_grid.set_blocked(Cell::new(1, 1), false), Ok(true));
        assert!(matches!(
            jump_grid.set_blocked(Cell::new(3, 0), true),
            Err(GridError::OutOfBounds { .. })
        ));
    }

    #[test]
    fn terrain_costs_are_refused() {
        let mut grid = Grid::new(3, 3);
        grid.set_cost(Cell::new(2, 2), 2).unwrap();
        assert!(matches!(
            JumpGrid::new(&grid),
            Err(SearchError::Unsupported(_))
        ));
    }
}
