//! Grid pathfinding without an engine: A* with reusable, O(1)-reset search state, movement and
//! cost rules that match the Moving AI benchmarks, jump point search, flow fields,
//! connectivity, path repair and smoothing, and readers and writers for the benchmark files.
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
//!
//! # What it does
//!
//! - **A\***: [`Searcher::find_path`] (or [`find_path`] for a one-off search) on a [`Grid`], with
//!   the movement, cost, heuristic, weighting and limits of [`SearchOptions`]; the result is a
//!   [`SearchResult`] holding the [`Path`] and [`SearchStats`], and on request
//!   ([`SearchOptions::with_trace`]) a [`SearchTrace`] of every expansion.
//! - **Jump point search** ([`jps`]): [`Searcher::find_path_jps`] on a [`JumpGrid`] (built once
//!   per grid with [`JumpGrid::new`], options in [`JpsOptions`]); on cost-1 cells with eight
//!   neighbours and no corner cutting, the same optimal lengths as A* with far fewer expansions.
//! - **Flow fields and goal batches**: a [`FlowField`] is a Dijkstra field towards one or more
//!   goals, read with [`FlowField::next_step`] and [`FlowField::path_from`] and kept up to date
//!   with [`FlowField::update`]; [`FlowField::paths_to_goal`] answers many starts sharing a goal
//!   with one search that stops once all of them are reached. [`FieldGrowth`] and
//!   [`GoalPaths`] grow the same two Dijkstras a budget of cells at a time, to spread one over
//!   several frames.
//! - **A sector hierarchy for huge maps**: a [`Hierarchy`] cuts the grid into sectors with
//!   entrances, exact costs inside each sector and landmark distances, built a slice at a time
//!   and marked for rebuilding by edits ([`Hierarchy::cells_changed`]); a
//!   [`HierarchySearcher`] finds legal, near-optimal paths over it (within
//!   [`HierarchyOptions::detour_per_crossing`] per sector border crossed), whole or a leg at a
//!   time ([`HierarchySearcher::route`], [`HierarchySearcher::refine_next`]); a
//!   [`SectorFlowField`] gives one goal's field over it, measured a sector at a time where
//!   agents ask and shared by all of them.
//! - **One switch between them**: an [`Algorithm`] (A\*, Dijkstra, jump points, a flow field or
//!   the hierarchy) chosen at run time, named `astar`, `dijkstra`, `jps`, `flow` or `hier` on a
//!   command line, runs
//!   queries through an [`Engine`], which checks that the algorithm can honour the options and
//!   the grid ([`Algorithm::check_options`], [`Engine::new`]) and keeps the jump grid or flow
//!   field it needs between queries.
//! - **Links and floors**: a [`Link`] joins two cells beyond the neighbour steps (a door, a
//!   ladder, a teleporter, a one-way drop), with a cost, a direction, a state and the agents
//!   that may take it; [`Grid::add_link`], [`Grid::remove_link`] and [`Grid::set_link_open`]
//!   change them at run time. A [`FloorPlan`] stacks floors in one grid, whose cells it
//!   addresses by [`FloorCell`]. A*, jump point search, smoothing, flow fields, goal trees,
//!   connectivity and local repair follow links, and the searches' heuristic stays consistent
//!   when one is a shortcut (see [`Links`]).
//! - **The closest reachable cell**: with [`SearchOptions::closest_reachable`] (and
//!   [`JpsOptions::closest_reachable`], [`FlowField::path_or_closest_from`],
//!   [`FlowField::closest_paths_to_goal`]) a goal that cannot be reached, or is blocked, gets
//!   the cheapest path to the reachable cell closest to it, marked as ending short
//!   ([`SearchResult::partial`], [`ReachedPath::Closest`]); every algorithm of the [`Engine`]
//!   honours it.
//! - **Connectivity and the tower check**: [`Components`] labels the connected regions and keeps
//!   them up to date under edits ([`Components::update`]); [`Components::check_blocking`] tells,
//!   from the labels alone, whether blocking some cells would cut points off a goal (a
//!   [`BlockingCheck`]), and [`Components::would_disconnect`] answers yes or no.
//! - **Local repair**: [`Searcher::repair_path`] splices a detour around the cells of a path
//!   that became blocked, with a full search as the fallback ([`RepairOptions`],
//!   [`RepairedPath`]).
//! - **Smoothing**: [`smooth_path`] pulls a path's string tight where [`line_of_sight`] holds
//!   (walls, corner rules and terrain costs respected) and returns [`Waypoint`]s;
//!   [`smooth_path_cells`] returns the path cells it keeps.
//! - **Time slicing**: [`Searcher::begin`] starts an [`ActiveSearch`] and
//!   [`ActiveSearch::advance`] runs it a budget of expansions at a time, returning a [`Step`],
//!   so a long search can be spread over frames.
//! - **Agent kinds** ([`agent`]): agents of several square sizes and terrain profiles (walkers,
//!   flyers, heavy units, boats, or any [`TerrainProfile`]) each search an [`AgentGrid`], a
//!   grid derived from the terrain in which a cell is walkable where the agent's whole
//!   footprint fits, with the profile's costs; every tool above honours size and profile by
//!   running on it, and [`AgentGrid::update`] keeps it up to date under edits.
//! - **Crowds** ([`crowd`]): local avoidance for agents following their paths. ORCA plans each
//!   agent's velocity off its nearest neighbours (found with a [`crowd::NeighbourGrid`]) and
//!   off the blocked cells, [`crowd::move_within_walls`] moves it without ever entering a
//!   wall, and [`crowd::nearest_legal_position`] pushes it out of a cell blocked under it;
//!   [`crowd::Crowd::step`] runs a whole step.
//! - **Hexagonal grids** ([`hex`]): [`Movement::HEX`] searches a grid whose cells are hexes in
//!   axial coordinates, with the hex distance as heuristic; A\*, smoothing (with a hex line of
//!   sight), flow fields and goal trees, connectivity and the tower check, local repair,
//!   closest reachable cells, time slicing and links all work on it. [`hex::HexMap`] converts
//!   the offset layouts maps are drawn in (odd and even rows or columns) to axial cells and hex
//!   centres and back. Jump point search and the sector hierarchy refuse it with a typed error.
//! - **Formats**: Moving AI maps with [`parse_map`] / [`parse_map_with`] and [`write_map`]
//!   (characters mapped by a [`Legend`]), hexagonal maps in the same format with
//!   [`parse_map_file`] and [`write_map_file`] (`type hex-row-odd` and the other layouts),
//!   scenarios with [`parse_scenario`] and
//!   [`write_scenario`], and ASCII grids for tests with [`Grid::from_ascii`] and
//!   [`Grid::to_ascii`]; errors name the line and column ([`ParseError`]).

pub mod agent;
mod algorithm;
mod cell;
mod closest;
mod connectivity;
mod cost;
pub mod crowd;
mod endpoints;
mod engine;
mod flow_field;
pub mod formats;
mod grid;
mod heuristic;
pub mod hex;
mod hierarchy;
pub mod jps;
mod links;
mod movement;
mod repair;
mod search;
mod smoothing;

pub use agent::{AgentGrid, AgentKind, Clearance, TerrainProfile};
pub use algorithm::{Algorithm, ParseAlgorithmError};
pub use cell::{Cell, Waypoint};
pub use connectivity::{
    BlockingCheck, ComponentId, Components, ConnectivityError, ConnectivityUpdate,
};
pub use cost::CostModel;
pub use endpoints::SearchError;
pub use engine::Engine;
pub use flow_field::{
    CostField, CostFieldGrowth, FieldCost, FieldGrowth, FlowField, FlowFieldError, FlowFieldUpdate,
    GoalPaths, GoalTree, TreeGrowth,
};
pub use formats::{
    Legend, MapFile, MapShape, ParseError, ParseErrorKind, Scenario, ScenarioQuery,
    ScenarioWriteError, ScenarioWriteErrorKind, Terrain, parse_map, parse_map_file, parse_map_with,
    parse_scenario, write_map, write_map_file, write_scenario,
};
pub use grid::{Grid, GridError, MAX_CELLS};
pub use heuristic::{Heuristic, Weighting};
pub use hierarchy::{
    Hierarchy, HierarchyError, HierarchyOptions, HierarchyRoute, HierarchySearcher,
    MAX_SECTOR_NODES, MAX_SECTOR_SIZE, QuickFirstCells, SectorFieldView, SectorFlowField,
};
pub use jps::{JpsOptions, JumpGrid};
pub use links::{
    FloorCell, FloorPlan, FloorPlanError, Link, LinkEnd, LinkError, LinkId, Links, MAX_LINKS,
};
pub use movement::{CornerRule, Movement, Neighborhood};
pub use repair::{Repair, RepairError, RepairOptions, RepairedPath};
pub use search::{
    ActiveSearch, Limit, Path, ReachedPath, SearchOptions, SearchResult, SearchStats, SearchStatus,
    SearchTrace, SearchWindow, Searcher, Step, TracedCell,
};
pub use smoothing::{
    SmoothingError, SmoothingOptions, line_of_sight, line_of_sight_within, smooth_path,
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
