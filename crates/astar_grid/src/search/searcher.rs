//! The reusable search context: per-cell scratch memory reset in O(1) by a generation stamp.

use super::{ActiveSearch, OpenEntry, SearchError, SearchOptions, SearchResult};
use crate::{Cell, Grid};
use std::collections::BinaryHeap;

/// Per-cell search state: 16 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Node {
    /// Best known cost from the start (valid when `stamp` is this search's open or closed mark).
    pub g: f64,
    /// Padded index of the cell this one was reached from.
    pub parent: u32,
    /// `generation` while open, `generation + 1` once closed; older values mean untouched.
    pub stamp: u32,
}

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
    pub(crate) nodes: Vec<Node>,
    pub(crate) open: BinaryHeap<OpenEntry>,
    /// Stamp of open cells in the current search; `generation + 1` marks closed ones.
    pub(crate) generation: u32,
    /// Trace only: padded index and expansion count when each cell was first reached.
    pub(crate) touched: Vec<(u32, u32)>,
    /// Trace only: padded indices in expansion order.
    pub(crate) expansions: Vec<u32>,
    /// Jump point search's own memory (see [`Searcher::find_path_jps`]).
    pub(crate) jump: crate::jps::JumpScratch,
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

    /// Bytes of per-cell scratch memory currently held (the open list not included).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>() + self.jump.memory_bytes()
    }

    fn reserve(&mut self, cells: usize) {
        if self.nodes.len() < cells {
            self.nodes.resize(cells, Node::default());
        }
    }

    /// Prepares the scratch memory for a new search on a padded buffer of `cells` cells and
    /// returns the open stamp; the closed stamp is one more.
    pub(crate) fn next_generation(&mut self, cells: usize) -> u32 {
        self.reserve(cells);
        self.open.clear();
        self.touched.clear();
        self.expansions.clear();
        // Stamps 0 and 1 are never used, so fresh nodes (stamp 0) read as untouched.
        match self.generation.checked_add(2) {
            Some(next) if (2..u32::MAX - 1).contains(&next) => self.generation = next,
            _ => {
                for node in &mut self.nodes {
                    node.stamp = 0;
                }
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
    fn node_is_sixteen_bytes() {
        assert_eq!(size_of::<Node>(), 16);
    }

    #[test]
    fn generation_wraps_by_clearing_stamps() {
        let mut searcher = Searcher::new();
        assert_eq!(searcher.next_generation(4), 2);
        searcher.nodes[1].stamp = u32::MAX - 1;
        searcher.generation = u32::MAX - 2;
        assert_eq!(searcher.next_generation(4), 2);
        assert!(searcher.nodes.iter().all(|node| node.stamp == 0));
    }
}
