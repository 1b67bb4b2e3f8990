//! The reusable search context: per-cell scratch memory reset in O(1) by a generation stamp.

use super::bucket_queue::OpenLists;
use super::{ActiveSearch, SearchOptions, SearchResult};
use crate::SearchError;
use crate::{Cell, Grid};

/// Bits of a cell's mark (see [`Searcher::marks`]) that hold the direction of the step that
/// reached the cell.
pub(crate) const VIA_BITS: u32 = 4;
/// The direction field of a mark.
pub(crate) const VIA_MASK: u32 = (1 << VIA_BITS) - 1;
/// The direction field of the start, which no step reached.
pub(crate) const START_VIA: u32 = 8;
/// The direction field of a cell reached by a link: its parent is in
/// [`Searcher::link_parents`].
pub(crate) const LINK_VIA: u32 = 9;
/// Stamps stay below this, so that they fit above the direction.
const STAMP_LIMIT: u32 = 1 << (32 - VIA_BITS);

/// Scratch memory for searches, kept between queries.
///
/// A `Searcher` grows to the largest grid it has seen and is then reused: starting a new search
/// costs O(1) (a generation counter moves on; no per-cell array is cleared), and after the first
/// query on a grid a search allocates nothing but the path it returns. Keep one per thread.
///
/// ```
/// use astar_grid::{Cell, Grid, SearchOptions, SearchStatus, Searcher};
///
/// let grid = Grid::from_ascii(
///     "....
///      .##.
///      ....",
/// )?;
/// let mut searcher = Searcher::new();
/// let result = searcher.find_path(&grid, Cell::new(0, 1), Cell::new(3, 1), &SearchOptions::default())?;
/// assert_eq!(result.status, SearchStatus::Found);
/// let path = result.path.expect("a path");
/// assert_eq!(path.cells.first(), Some(&Cell::new(0, 1)));
/// assert_eq!(path.cells.last(), Some(&Cell::new(3, 1)));
/// assert_eq!(path.cost, 5.0); // up, three steps right, down: no cutting the wall's corners
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Searcher {
    /// Per padded cell: the best known cost from the start (valid when the cell's mark has
    /// this search's open or closed stamp).
    pub(crate) costs: Vec<f64>,
    /// Per padded cell: `stamp << VIA_BITS | via`, the stamp saying which search touched the
    /// cell and whether it is open or closed in it, and the direction (an index into
    /// [`DIRECTIONS`](crate::movement::DIRECTIONS)) of the step that reached it, or
    /// [`START_VIA`] for the start. Stamps only grow from search to search (until they wrap,
    /// when every mark is cleared), so a cell is closed in the current search exactly when its
    /// mark is at least the closed mark, and open when it lies between the open and the closed
    /// mark. 12 bytes per cell with `costs`.
    pub(crate) marks: Vec<u32>,
    /// The open lists of A*, one per grid size.
    pub(crate) open: OpenLists,
    /// Stamp of open cells in the current search; `generation + 1` marks closed ones.
    pub(crate) generation: u32,
    /// Trace only: padded index and expansion count when each cell was first reached.
    pub(crate) touched: Vec<(u32, u32)>,
    /// Trace only: padded indices in expansion order.
    pub(crate) expansions: Vec<u32>,
    /// Jump point search's own memory (see [`Searcher::find_path_jps`]).
    pub(crate) jump: crate::jps::JumpScratch,
    /// Memory of the floods that find the closest reachable cell for jump point search and
    /// flow fields (see [`SearchOptions::closest_reachable`]).
    pub(crate) flood: crate::closest::FloodScratch,
    /// The cell each cell last reached by a link in the current search was reached from (by
    /// padded index), for A* on grids with links.
    pub(crate) link_parents: std::collections::HashMap<u32, u32>,
    /// A*'s heuristic over links, prepared for the current search.
    pub(crate) link_bound: crate::links::LinkBound,
}

impl Searcher {
    /// An empty searcher; it allocates on its first search.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A searcher with memory for grids up to `grid`'s size already allocated.
    #[must_use]
    pub fn for_grid(grid: &Grid) -> Self {
        let mut searcher = Self::new();
        searcher.reserve(grid.raw().len());
        searcher
    }

    /// Finds a path from `start` to `goal`, running the search to the end.
    ///
    /// # Errors
    /// When the request cannot be searched: an empty grid, a start or goal outside the grid or
    /// blocked, an invalid weight or cost model. An unreachable goal is not an error but a
    /// result with [`SearchStatus::NoPath`](crate::SearchStatus::NoPath).
    pub fn find_path(
        &mut self,
        grid: &Grid,
        start: Cell,
        goal: Cell,
        options: &SearchOptions,
    ) -> Result<SearchResult, SearchError> {
        Ok(self.begin(grid, start, goal, options)?.run())
    }

    /// Starts a search that can be advanced a few expansions at a time
    /// ([`ActiveSearch::advance`]) and gives the same result as [`Searcher::find_path`].
    ///
    /// # Errors
    /// As [`Searcher::find_path`].
    pub fn begin<'a>(
        &'a mut self,
        grid: &'a Grid,
        start: Cell,
        goal: Cell,
        options: &SearchOptions,
    ) -> Result<ActiveSearch<'a>, SearchError> {
        ActiveSearch::new(self, grid, start, goal, options)
    }

    /// Bytes of memory currently held for searches of both kinds: the sum of
    /// [`Searcher::astar_memory_bytes`] and [`Searcher::jps_memory_bytes`].
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.astar_memory_bytes() + self.jps_memory_bytes()
    }

    /// Bytes held for A* ([`Searcher::find_path`], [`Searcher::begin`]): 12 bytes per cell of
    /// the largest grid searched (border included) plus the open list (trace records not
    /// included). The open list's memory follows the most entries a search has queued at once,
    /// however many searches ran: on grids of fewer than 2^17 cells (border included), 20 bytes
    /// per entry and a kilobyte; on larger ones, about a byte per cell for the vectors its ring
    /// of buckets keeps and 16 bytes per entry beyond them, in vectors of fixed sizes. Entries
    /// beyond the ring's reach (terrain costs) and those of weighted searches take 16 bytes each
    /// in a heap. On grids with links, a few bytes per link and per cell reached by one.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, SearchOptions, Searcher};
    ///
    /// let grid = Grid::new(100, 100);
    /// let mut searcher = Searcher::new();
    /// searcher.find_path(&grid, Cell::new(0, 0), Cell::new(99, 99), &SearchOptions::default())?;
    /// let per_cell = searcher.astar_memory_bytes() as f64 / grid.len() as f64;
    /// assert!(per_cell < 16.0, "{per_cell}");
    /// # Ok::<(), astar_grid::SearchError>(())
    /// ```
    #[must_use]
    pub fn astar_memory_bytes(&self) -> usize {
        self.costs.capacity() * size_of::<f64>()
            + self.marks.capacity() * size_of::<u32>()
            + self.open.memory_bytes()
            + self.link_parents.capacity() * 2 * size_of::<u32>()
            + self.link_bound.memory_bytes()
    }

    /// Bytes held for jump point search ([`Searcher::find_path_jps`]): a bit and a 4-byte slot
    /// per cell, the touched jump points and the open list, and once a search has looked for
    /// the closest reachable cell ([`JpsOptions::closest_reachable`](crate::JpsOptions::closest_reachable)),
    /// the flood's 9 bytes per cell and its queue.
    #[must_use]
    pub fn jps_memory_bytes(&self) -> usize {
        self.jump.memory_bytes() + self.jump.open.memory_bytes() + self.flood.memory_bytes()
    }

    fn reserve(&mut self, cells: usize) {
        if self.marks.len() < cells {
            self.costs.resize(cells, 0.0);
            self.marks.resize(cells, 0);
        }
    }

    /// Prepares the per-cell scratch memory for a new search on a padded buffer of `cells`
    /// cells and returns the open stamp; the closed stamp is one more. The caller resets the
    /// open list, which needs to know the search's costs.
    pub(crate) fn next_generation(&mut self, cells: usize) -> u32 {
        self.reserve(cells);
        self.touched.clear();
        self.expansions.clear();
        // Stamps 0 and 1 are never used, so fresh nodes (stamp 0) read as untouched.
        match self.generation.checked_add(2) {
            Some(next) if (2..STAMP_LIMIT - 1).contains(&next) => self.generation = next,
            _ => {
                self.marks.fill(0);
                self.generation = 2;
            }
        }
        self.generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_wraps_by_clearing_stamps() {
        let mut searcher = Searcher::new();
        assert_eq!(searcher.next_generation(4), 2);
        searcher.marks[1] = (STAMP_LIMIT - 1) << VIA_BITS | START_VIA;
        searcher.generation = STAMP_LIMIT - 4;
        assert_eq!(searcher.next_generation(4), STAMP_LIMIT - 2);
        assert_eq!(searcher.marks[1] & VIA_MASK, START_VIA);
        assert_eq!(searcher.next_generation(4), 2);
        assert!(searcher.marks.iter().all(|&mark| mark == 0));
    }
}
