//! Jump point search: optimal paths on uniform-cost, eight-connected grids without corner
//! cutting, expanding only the cells where a shortest path may turn.
//!
//! Build a [`JumpGrid`] from a [`Grid`](crate::Grid) of cost-1 cells once, keep it in step with
//! the grid's edits, and search it with [`Searcher::find_path_jps`](crate::Searcher::find_path_jps).
//! The paths cost exactly what [`Searcher::find_path`](crate::Searcher::find_path) finds with the
//! default movement (eight neighbours, no corner cutting), and the search expands only jump
//! points: the start, the goal and the cells where an obstacle forces a turn.
//!
//! The search follows Harabor and Grastien's online JPS2: straight jumps test 64 cells at a time
//! in bit-packed rows (and in a transposed copy for columns), and the jump points a diagonal run
//! finds are added directly, without stopping at the diagonal cells in between. The
//! [`Searcher`](crate::Searcher) keeps its memory between searches: once it has grown to what
//! the searches on a grid need, a search allocates only the path it returns.
//!
//! ```
//! use astar_grid::{Cell, Grid, JpsOptions, JumpGrid, SearchOptions, Searcher};
//!
//! let grid = Grid::from_ascii(
//!     "..........
//!      ....#.....
//!      ....#.....
//!      ....#.....
//!      ..........",
//! )?;
//! let jump_grid = JumpGrid::new(&grid)?;
//! let mut searcher = Searcher::new();
//! let (start, goal) = (Cell::new(0, 2), Cell::new(9, 2));
//! let jps = searcher.find_path_jps(&jump_grid, start, goal, &JpsOptions::default())?;
//! let astar = searcher.find_path(&grid, start, goal, &SearchOptions::default())?;
//! // The same length, summed in another order: equal up to rounding.
//! let (jps_cost, astar_cost) = (jps.cost().expect("found"), astar.cost().expect("found"));
//! assert!((jps_cost - astar_cost).abs() < 1e-9);
//! assert!(jps.stats.expanded < astar.stats.expanded);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Jump point search does not apply to grids with terrain costs ([`JumpGrid::new`] refuses
//! them) nor to other movement rules ([`JpsOptions`] converts only from search options it can
//! honour); both are refused with [`SearchError::Unsupported`](crate::SearchError::Unsupported),
//! never answered with a wrong path. Falling back to A* is then the caller's explicit choice:
//!
//! ```
//! use astar_grid::{Cell, Grid, JpsOptions, JumpGrid, Movement, SearchOptions, Searcher};
//!
//! let grid = Grid::new(16, 16);
//! let jump_grid = JumpGrid::new(&grid)?;
//! let mut searcher = Searcher::new();
//! let options = SearchOptions::default().with_movement(Movement::FOUR);
//! let result = match JpsOptions::try_from(&options) {
//!     Ok(jps) => searcher.find_path_jps(&jump_grid, Cell::new(0, 0), Cell::new(15, 15), &jps)?,
//!     // Four-connected movement: jump point search does not apply, use plain A*.
//!     Err(_) => searcher.find_path(&grid, Cell::new(0, 0), Cell::new(15, 15), &options)?,
//! };
//! assert_eq!(result.cost(), Some(30.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bits;
mod jump_grid;
mod options;
mod scratch;
mod search;

pub use jump_grid::JumpGrid;
pub use options::JpsOptions;
pub(crate) use scratch::JumpScratch;
