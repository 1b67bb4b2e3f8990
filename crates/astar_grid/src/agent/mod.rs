//! Agent kinds: agents of several square sizes and terrain profiles, served by derived grids.
//!
//! A [`Grid`](crate::Grid) byte is what every search reads: 0 blocked, 1 to 255 the cost
//! multiplier. An agent kind (an [`AgentKind`]: a [`TerrainProfile`] and a size) gets its own
//! [`AgentGrid`]: a grid of the same size in which a cell is walkable exactly when the agent's
//! whole footprint fits there, with the profile's costs written in. Every tool of the crate
//! (A\*, Dijkstra, jump points, flow fields and goal batches, connectivity and the tower check,
//! local repair, smoothing) then honours size and profile by running unchanged on that grid.
//! The default kind, [`TerrainProfile::identity`] at size 1, needs no derived grid: the terrain
//! grid is its grid ([`AgentKind::needs_derived_grid`]).
//!
//! - [`TerrainProfile`]: terrain value to cost or impassable, with presets for the Moving AI
//!   legend ([`Legend::moving_ai_kinds`](crate::Legend::moving_ai_kinds), values in
//!   [`moving_ai`]).
//! - [`Clearance`]: one byte per cell, the largest square footprint anchored there, kept up
//!   to date in O([`MAX_AGENT_SIZE`]²) a changed cell. Anchors are footprints' top-left cells.
//! - [`AgentGrid`]: the derived grid of one kind, with [`AgentGrid::update`] for edits and
//!   [`AgentGrid::check_endpoints`] to name why a start or goal does not fit.
//! - [`Footprint`]: squares anchored at their top-left cell, or on a hexagonal grid discs of
//!   hexes around their centre ([`AgentGrid::with_footprint`]).
//!
//! ```
//! use astar_grid::{AgentGrid, Cell, Legend, SearchOptions, TerrainProfile, find_path, parse_map_with};
//!
//! // A river (W) with trees (T) on its bank: walkers go round by the ford, flyers straight over.
//! let text = "type octile\nheight 4\nwidth 5\nmap\n..W..\n.TW..\n..W..\n.....\n";
//! let terrain = parse_map_with(text, &Legend::moving_ai_kinds())?;
//! let (start, goal) = (Cell::new(0, 0), Cell::new(4, 0));
//! let options = SearchOptions::default();
//! let walker = AgentGrid::new(&terrain, &TerrainProfile::walker(), 1)?;
//! let flyer = AgentGrid::new(&terrain, &TerrainProfile::flyer(), 1)?;
//! let walked = find_path(walker.grid(), start, goal, &options)?;
//! let flown = find_path(flyer.grid(), start, goal, &options)?;
//! assert!(walked.cost().expect("by the ford") > flown.cost().expect("over the river"));
//! assert_eq!(flown.cost(), Some(4.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::Cell;

mod agent_grid;
mod clearance;
mod error;
mod footprint;
pub mod moving_ai;
mod profile;

pub use agent_grid::AgentGrid;
pub use clearance::Clearance;
pub use error::{AgentError, Endpoint, FootprintProblem};
pub use footprint::Footprint;
pub use profile::{HEAVY_SWAMP_COST, TerrainProfile};

/// The anchors of a `width` x `height` map whose `size` x `size` footprint covers one of `cells`
/// (the cells up to `size - 1` up and left of each, itself included), in row-major order and
/// each once; anchors outside the map are left out. Memory stays within the smaller of
/// `size`² anchors a cell and one flag a cell of the map. [`AgentGrid::anchors_covering`] is
/// this for the grid's own size and map.
///
/// ```
/// use astar_grid::Cell;
/// use astar_grid::agent::anchors_covering;
///
/// let anchors = anchors_covering(&[Cell::new(1, 1), Cell::new(0, 1)], 2, 4, 4);
/// assert_eq!(anchors, [Cell::new(0, 0), Cell::new(1, 0), Cell::new(0, 1), Cell::new(1, 1)]);
/// assert!(anchors_covering(&[Cell::new(1, 1)], 2, 0, 4).is_empty());
/// ```
#[must_use]
pub fn anchors_covering(cells: &[Cell], size: u8, width: u32, height: u32) -> Vec<Cell> {
    Footprint::Square.anchors_covering(cells, size, width, height)
}

/// The largest agent side, in cells, that [`Clearance`] records and [`AgentGrid`] accepts.
///
/// A changed cell costs the clearance `MAX_AGENT_SIZE`² anchors, so the cap is kept small.
pub const MAX_AGENT_SIZE: u8 = 8;

/// A kind of agent: a terrain profile and a square size, the key under which a program keeps
/// one [`AgentGrid`] per kind it uses.
///
/// ```
/// use astar_grid::{AgentKind, TerrainProfile};
///
/// assert!(!AgentKind::default().needs_derived_grid());
/// assert!(AgentKind::new(TerrainProfile::identity(), 2).needs_derived_grid());
/// assert!(AgentKind::new(TerrainProfile::boat(), 1).needs_derived_grid());
/// assert!(AgentKind::new(TerrainProfile::boat(), 0).check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AgentKind {
    /// What each terrain value costs the agent, or whether it may enter it.
    pub profile: TerrainProfile,
    /// The side of the agent's square footprint, 1 to [`MAX_AGENT_SIZE`].
    pub size: u8,
}

impl AgentKind {
    /// The kind of agents of side `size` under `profile`.
    #[must_use]
    pub const fn new(profile: TerrainProfile, size: u8) -> Self {
        Self { profile, size }
    }

    /// Whether agents of this kind need an [`AgentGrid`]: false only for one-cell agents under
    /// the identity profile, which search the terrain grid itself, as before agent kinds.
    ///
    /// ```
    /// use astar_grid::{AgentKind, TerrainProfile};
    ///
    /// assert!(!AgentKind::new(TerrainProfile::identity(), 1).needs_derived_grid());
    /// assert!(AgentKind::new(TerrainProfile::walker(), 1).needs_derived_grid());
    /// ```
    #[must_use]
    pub fn needs_derived_grid(&self) -> bool {
        self.size != 1 || !self.profile.is_identity()
    }

    /// Checks the size and the profile, as [`AgentGrid::new`] does before it looks at the map.
    ///
    /// ```
    /// use astar_grid::{AgentKind, TerrainProfile};
    /// use astar_grid::agent::AgentError;
    ///
    /// assert_eq!(AgentKind::new(TerrainProfile::flyer(), 8).check(), Ok(()));
    /// assert_eq!(AgentKind::new(TerrainProfile::flyer(), 9).check(), Err(AgentError::InvalidSize { size: 9 }));
    /// assert_eq!(
    ///     AgentKind::new(TerrainProfile::impassable(), 1).check(),
    ///     Err(AgentError::NoPassableTerrain)
    /// );
    /// ```
    ///
    /// # Errors
    /// [`AgentError::InvalidSize`] for a size of 0 or above [`MAX_AGENT_SIZE`], then
    /// [`AgentError::NoPassableTerrain`].
    pub fn check(&self) -> Result<(), AgentError> {
        check_kind(&self.profile, self.size)
    }
}

impl Default for AgentKind {
    /// One-cell agents under the identity profile.
    fn default() -> Self {
        Self::new(TerrainProfile::identity(), 1)
    }
}

/// Refuses a size outside `1..=MAX_AGENT_SIZE`, then a profile without passable terrain.
fn check_kind(profile: &TerrainProfile, size: u8) -> Result<(), AgentError> {
    if !(1..=MAX_AGENT_SIZE).contains(&size) {
        return Err(AgentError::InvalidSize { size });
    }
    if !profile.has_passable_terrain() {
        return Err(AgentError::NoPassableTerrain);
    }
    Ok(())
}
