//! Grid pathfinding without an engine: A* with reusable, O(1)-reset search state, movement and
//! cost rules that match the Moving AI benchmarks, and readers and writers for their files.
//!
//! ```
//! use astar_grid::{Cell, Grid, SearchOptions, Searcher};
//!
//! let grid = Grid::from_ascii(
//!     "......
//!      .####.
//!      ......",
//! )?;
//! let mut searcher = Searcher::new(); // keep it: later searches reuse its memory
//! let result = searcher.find_path(&grid, Cell::new(0, 1), Cell::new(5, 1), &SearchOptions::default())?;
//! let path = result.found().expect("reachable");
//! // Around the wall: diagonals may not cut its corners, so the path is 7 straight steps.
//! assert_eq!(path.cells.len(), 8);
//! assert_eq!(path.cost, 7.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The defaults are the Moving AI rules: eight neighbours, no corner cutting
//! ([`CornerRule::Both`]), straight steps cost 1 and diagonals `sqrt(2)` ([`CostModel::Octile`]),
//! the octile heuristic. Every cell also has a terrain cost multiplier (1 to 255) that scales the
//! cost of stepping onto it.

mod cell;
mod connectivity;
mod cost;
mod flow_field;
pub mod formats;
mod grid;
mod heuristic;
pub mod jps;
mod movement;
mod repair;
mod search;
mod smoothing;

pub use cell::Cell;
pub use connectivity::{
    BlockingCheck, ComponentId, Components, ConnectivityError, ConnectivityUpdate,
};
pub use cost::CostModel;
pub use flow_field::{FlowField, FlowFieldError, FlowFieldUpdate};
pub use formats::{
    Legend, ParseError, ParseErrorKind, Scenario, ScenarioQuery, ScenarioWriteError,
    ScenarioWriteErrorKind, Terrain, parse_map, parse_map_with, parse_scenario, write_map,
    write_scenario,
};
pub use grid::{Grid, GridError, MAX_CELLS};
pub use heuristic::{Heuristic, Weighting};
pub use jps::{JpsOptions, JumpGrid};
pub use movement::{CornerRule, Movement, Neighborhood};
pub use repair::{Repair, RepairError, RepairOptions, RepairedPath};
pub use search::{
    ActiveSearch, Limit, Path, SearchError, SearchOptions, SearchResult, SearchStats, SearchStatus,
    SearchTrace, SearchWindow, Searcher, Step, TracedCell,
};
pub use smoothing::{
    SmoothingError, SmoothingOptions, Waypoint, line_of_sight, line_of_sight_within, smooth_path,
    smooth_path_cells,
};

/// Finds a path with a fresh [`Searcher`]; keep a `Searcher` instead when searching repeatedly.
///
/// # Errors
/// As [`Searcher::find_path`].
pub fn find_path(
    grid: &Grid,
    start: Cell,
    goal: Cell,
    options: &SearchOptions,
) -> Result<SearchResult, SearchError> {
    Searcher::new().find_path(grid, start, goal, options)
}
