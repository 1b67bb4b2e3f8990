//! The derived grid of one agent kind: a [`Grid`] of anchors on which every search, field and
//! check of the crate honours the agent's size and terrain profile unchanged.

use super::{AgentError, AgentKind, Clearance, Endpoint, Footprint, FootprintProblem};
use super::{TerrainProfile, check_kind};
use crate::{Cell, Grid, Link, Links, Waypoint};

/// The grid one kind of agent (a [`TerrainProfile`] and a square size) searches on, derived
/// from a terrain grid and kept up to date under edits.
///
/// Each cell of the derived [`grid`](AgentGrid::grid) is an **anchor**: the footprint's top-left
/// cell (see [`Clearance`] for the convention and the footprint's centre). A derived cell is
/// walkable exactly when the agent's whole `size` x `size` footprint anchored there lies on the
/// map and on terrain its profile may enter, and its cost multiplier is then the **highest**
/// profile cost over the footprint: a boss half in a swamp pays swamp. Searches, flow fields,
/// goal batches, jump points, [`Components`](crate::Components) and the tower check, local
/// repair and smoothing all run on the derived grid as they are, at full speed; their paths are
/// paths of anchors.
///
/// # Diagonal steps
/// A diagonal step from anchor `(x, y)` to `(x + 1, y + 1)` sweeps the `(size + 1)` x
/// `(size + 1)` block of cells from `(x, y)`. The footprints at the two ends cover all of it
/// but its two off-diagonal corner cells, `(x + size, y)` and `(x, y + size)`; each of those
/// is covered by the footprint at one of the step's two corner anchors, `(x + 1, y)` and
/// `(x, y + 1)`. So the movement's corner rule applied to the derived grid means, for the fat
/// agent:
/// - [`CornerRule::Both`](crate::CornerRule::Both) (the default): both corner anchors fit, so
///   every cell of the swept block is free (and so is the footprint at each corner anchor);
/// - [`CornerRule::One`](crate::CornerRule::One): one corner anchor fits, so at most one of the
///   block's two corner cells is blocked: the fat agent may clip one corner, as a one-cell
///   agent does;
/// - [`CornerRule::Any`](crate::CornerRule::Any): both corner cells may be blocked.
///
/// Step costs are the movement's base cost times the derived cost of the anchor stepped onto,
/// the dearest cell of the footprint there.
///
/// # Line of sight and smoothing
/// [`line_of_sight`](crate::line_of_sight) on the derived grid walks the anchors whose interior
/// the segment between two anchor centres enters (its supercover) and asks each to fit; where
/// the segment passes exactly through a grid corner, the corner rule decides what the two
/// anchors beside that corner need. So it holds exactly when every cell of every footprint
/// anchored along the anchor's one-cell line of sight is passable (the footprint dragged cell by
/// cell along that line, which is the line between the footprint centres moved `(size - 1) / 2`
/// cells up and left), and the footprints beside each corner crossing satisfy the corner rule.
/// That is the one-cell rule applied to the whole footprint: a one-cell agent's line of sight
/// checks the cells its centre passes through, not every cell a solid unit square would graze
/// on the way, and likewise a solid `size` x `size` square sliding along a shallow segment may
/// graze cells up to half a cell beyond the footprints checked. [`smooth_path`](crate::smooth_path)
/// on the derived grid keeps only such segments (and, the derived costs being footprint maxima,
/// a shortcut never puts the footprint on terrain dearer than the stretch of path it
/// replaces); it returns anchor centres, which
/// [`AgentGrid::footprint_center_of`] turns into footprint centres.
///
/// # Costs
/// - [`AgentGrid::new`]: the clearance (O(cells)) and the derived grid (O(cells x size)).
/// - Memory: the derived grid (as any [`Grid`]) plus the clearance, one byte per cell.
/// - [`AgentGrid::update`]: the clearance update (O(`MAX_AGENT_SIZE`²) a changed cell), then
///   the `size`² anchors whose footprint covers a changed cell, each O(`size`²): O(`size`⁴) a
///   changed cell, 256 cells read for a 2x2 agent, 4096 for the largest.
///
/// ```
/// use astar_grid::{AgentGrid, Cell, Grid, SearchOptions, TerrainProfile, find_path};
///
/// // A 1-cell gap at (3, 2): a 2x2 boss must go round by the bottom rows.
/// let terrain = Grid::from_ascii(
///     "...#....
///      ...#....
///      ........
///      ...#....
///      ........
///      ........",
/// )?;
/// let boss = AgentGrid::new(&terrain, &TerrainProfile::identity(), 2)?;
/// assert!(!boss.fits(Cell::new(2, 2)));
/// let (start, goal) = (Cell::new(0, 0), Cell::new(6, 0));
/// boss.check_endpoints(start, goal)?;
/// let path = find_path(boss.grid(), start, goal, &SearchOptions::default())?;
/// let path = path.found().expect("round the wall");
/// assert!(path.cells.iter().all(|&anchor| boss.fits(anchor)));
/// assert!(path.cells.iter().any(|anchor| anchor.y == 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentGrid {
    size: u8,
    clearance: Clearance,
    grid: Grid,
}

impl AgentGrid {
    /// The derived grid of an agent of side `size` under `profile` on `terrain`, whose bytes
    /// are terrain values (0 to 255) read through the profile.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile};
    ///
    /// // A swamp (cost 4) in the bottom-right corner: the 2x2 footprint at (1, 1) pays it.
    /// let terrain = Grid::from_fn(3, 3, |cell| if cell == Cell::new(2, 2) { 4 } else { 1 });
    /// let agent = AgentGrid::new(&terrain, &TerrainProfile::identity(), 2)?;
    /// assert_eq!((agent.grid().width(), agent.grid().height()), (3, 3));
    /// assert_eq!(agent.grid().cost(Cell::new(0, 0)), Some(1));
    /// assert_eq!(agent.grid().cost(Cell::new(1, 1)), Some(4));
    /// assert_eq!(agent.grid().cost(Cell::new(2, 0)), None); // leaves the map
    /// # Ok::<(), astar_grid::agent::AgentError>(())
    /// ```
    ///
    /// # Errors
    /// In this order: [`AgentError::InvalidSize`] for a size of 0 or above [`MAX_AGENT_SIZE`](super::MAX_AGENT_SIZE),
    /// [`AgentError::NoPassableTerrain`] for a profile under which nothing is passable, and
    /// [`AgentError::LargerThanMap`] when `size` exceeds the map's width or height (so an empty
    /// map is refused too).
    pub fn new(terrain: &Grid, profile: &TerrainProfile, size: u8) -> Result<Self, AgentError> {
        Self::with_footprint(terrain, profile, size, Footprint::Square)
    }

    /// [`AgentGrid::new`] for footprints of the shape `footprint`: on a hexagonal grid
    /// ([`Footprint::Hex`]) an agent of size `n` stands on the hexes within `n - 1` steps of
    /// its anchor, the hex at its centre, and the derived grid's cells are those centres.
    ///
    /// ```
    /// use astar_grid::agent::Footprint;
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile};
    ///
    /// let mut terrain = Grid::new(7, 7);
    /// terrain.set_cost(Cell::new(4, 2), 5)?; // a marsh hex
    /// let agent = AgentGrid::with_footprint(&terrain, &TerrainProfile::identity(), 2, Footprint::Hex)?;
    /// assert_eq!(agent.grid().cost(Cell::new(3, 3)), Some(5)); // the marsh is a neighbour
    /// assert_eq!(agent.grid().cost(Cell::new(2, 2)), Some(1)); // (3, 1) and (1, 3) are, not (4, 2)
    /// assert_eq!(agent.grid().cost(Cell::new(0, 3)), None); // the disc leaves the map
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`AgentGrid::new`]; [`AgentError::LargerThanMap`] also when the disc of hexes, `2 *
    /// size - 1` cells across, is wider or taller than the map.
    pub fn with_footprint(
        terrain: &Grid,
        profile: &TerrainProfile,
        size: u8,
        footprint: Footprint,
    ) -> Result<Self, AgentError> {
        check_kind(profile, size)?;
        // A disc of hexes spans `2 * size - 1` columns and rows.
        let span = match footprint {
            Footprint::Square => u32::from(size),
            Footprint::Hex => 2 * u32::from(size) - 1,
        };
        if span > terrain.width() || span > terrain.height() {
            return Err(AgentError::LargerThanMap {
                size,
                width: terrain.width(),
                height: terrain.height(),
            });
        }
        let clearance = Clearance::with_footprint(terrain, profile, footprint);
        let mut grid = derive_grid(terrain, &clearance, size);
        grid.set_links(links_for(terrain, &AgentKind::new(*profile, size)));
        Ok(Self {
            size,
            clearance,
            grid,
        })
    }

    /// [`AgentGrid::new`] for an [`AgentKind`].
    ///
    /// ```
    /// use astar_grid::{AgentGrid, AgentKind, Grid, TerrainProfile};
    ///
    /// let kind = AgentKind::new(TerrainProfile::flyer(), 3);
    /// let agent = AgentGrid::for_kind(&Grid::new(5, 5), &kind)?;
    /// assert_eq!(agent.kind(), kind);
    /// # Ok::<(), astar_grid::agent::AgentError>(())
    /// ```
    ///
    /// # Errors
    /// As [`AgentGrid::new`].
    pub fn for_kind(terrain: &Grid, kind: &AgentKind) -> Result<Self, AgentError> {
        Self::new(terrain, &kind.profile, kind.size)
    }

    /// [`AgentGrid::with_footprint`] for an [`AgentKind`].
    ///
    /// # Errors
    /// As [`AgentGrid::new`].
    pub fn for_kind_with(
        terrain: &Grid,
        kind: &AgentKind,
        footprint: Footprint,
    ) -> Result<Self, AgentError> {
        Self::with_footprint(terrain, &kind.profile, kind.size, footprint)
    }

    /// The shape of the agent's footprint.
    #[must_use]
    pub const fn footprint_shape(&self) -> Footprint {
        self.clearance.footprint()
    }

    /// The grid to search on: one cell per anchor, walkable where the footprint fits, with the
    /// highest profile cost over the footprint.
    #[must_use]
    pub const fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The agent's side, in cells.
    #[must_use]
    pub const fn size(&self) -> u8 {
        self.size
    }

    /// The agent's terrain profile.
    #[must_use]
    pub const fn profile(&self) -> &TerrainProfile {
        self.clearance.profile()
    }

    /// The agent's profile and size.
    #[must_use]
    pub const fn kind(&self) -> AgentKind {
        AgentKind::new(*self.clearance.profile(), self.size)
    }

    /// The clearance under the agent's profile, which serves every size.
    #[must_use]
    pub const fn clearance(&self) -> &Clearance {
        &self.clearance
    }

    /// Whether the footprint anchored at `anchor` lies on the map and on passable terrain, that
    /// is whether `anchor` is walkable on [`AgentGrid::grid`].
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile};
    ///
    /// let agent = AgentGrid::new(&Grid::from_ascii("...\n...\n..#")?, &TerrainProfile::identity(), 2)?;
    /// assert!(agent.fits(Cell::new(0, 0)));
    /// assert!(!agent.fits(Cell::new(1, 1))); // covers the wall at (2, 2)
    /// assert!(!agent.fits(Cell::new(2, 0))); // leaves the map
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn fits(&self, anchor: Cell) -> bool {
        self.clearance.get(anchor) >= self.size
    }

    /// The cells the footprint anchored at `anchor` covers, row by row: `anchor.x..anchor.x +
    /// size` by `anchor.y..anchor.y + size` (fewer where a coordinate would pass `u32::MAX`).
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile};
    ///
    /// let agent = AgentGrid::new(&Grid::new(4, 4), &TerrainProfile::identity(), 2)?;
    /// let cells: Vec<Cell> = agent.footprint(Cell::new(1, 2)).collect();
    /// assert_eq!(cells, [Cell::new(1, 2), Cell::new(2, 2), Cell::new(1, 3), Cell::new(2, 3)]);
    /// # Ok::<(), astar_grid::agent::AgentError>(())
    /// ```
    pub fn footprint(&self, anchor: Cell) -> impl Iterator<Item = Cell> + use<> {
        self.footprint_shape().cells(anchor, self.size)
    }

    /// What keeps the footprint anchored at `anchor` from fitting, or `None` when it fits.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile};
    /// use astar_grid::agent::FootprintProblem;
    ///
    /// let agent = AgentGrid::new(&Grid::from_ascii("...\n.#.\n...")?, &TerrainProfile::identity(), 2)?;
    /// assert_eq!(agent.footprint_problem(Cell::new(0, 0)), Some(FootprintProblem::Impassable(Cell::new(1, 1))));
    /// assert_eq!(agent.footprint_problem(Cell::new(2, 2)), Some(FootprintProblem::OutsideMap));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn footprint_problem(&self, anchor: Cell) -> Option<FootprintProblem> {
        let bounds = (self.grid.width(), self.grid.height());
        if !self.footprint_shape().inside(anchor, self.size, bounds) {
            return Some(FootprintProblem::OutsideMap);
        }
        self.footprint(anchor)
            .find(|&cell| self.clearance.get(cell) == 0)
            .map(FootprintProblem::Impassable)
    }

    /// Checks a query's start and goal anchors: `Ok` when the footprint fits at both, else the
    /// first that does not, with the reason. A search on [`AgentGrid::grid`] would refuse them
    /// too, as [`SearchError::StartBlocked`](crate::SearchError::StartBlocked) and the like;
    /// this names the cell that is in the way.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile};
    /// use astar_grid::agent::{AgentError, Endpoint, FootprintProblem};
    ///
    /// let agent = AgentGrid::new(&Grid::from_ascii("....\n..#.\n....")?, &TerrainProfile::identity(), 2)?;
    /// assert_eq!(agent.check_endpoints(Cell::new(0, 0), Cell::new(0, 1)), Ok(()));
    /// assert_eq!(
    ///     agent.check_endpoints(Cell::new(0, 0), Cell::new(2, 0)),
    ///     Err(AgentError::FootprintDoesNotFit {
    ///         endpoint: Endpoint::Goal,
    ///         cell: Cell::new(2, 0),
    ///         size: 2,
    ///         problem: FootprintProblem::Impassable(Cell::new(2, 1)),
    ///     })
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`AgentError::FootprintDoesNotFit`] for the start, then for the goal.
    pub fn check_endpoints(&self, start: Cell, goal: Cell) -> Result<(), AgentError> {
        for (endpoint, cell) in [(Endpoint::Start, start), (Endpoint::Goal, goal)] {
            if let Some(problem) = self.footprint_problem(cell) {
                return Err(AgentError::FootprintDoesNotFit {
                    endpoint,
                    cell,
                    size: self.size,
                    problem,
                });
            }
        }
        Ok(())
    }

    /// The anchors on the map whose footprint covers any of `cells`, in row-major order: the
    /// derived cells that blocking those terrain cells would block. Pass them to
    /// [`Components::check_blocking`](crate::Components::check_blocking) on the derived grid's
    /// labels to ask whether a tower on `cells` would cut this kind of agent off.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Components, Grid, Movement, TerrainProfile};
    ///
    /// // A corridor 3 cells high: a tower in its middle row leaves 1-cell gaps, which a 2x2
    /// // agent cannot pass.
    /// let terrain = Grid::new(7, 3);
    /// let agent = AgentGrid::new(&terrain, &TerrainProfile::identity(), 2)?;
    /// let labels = Components::new(agent.grid(), Movement::EIGHT);
    /// let tower = agent.anchors_covering(&[Cell::new(3, 1)]);
    /// assert_eq!(tower, [Cell::new(2, 0), Cell::new(3, 0), Cell::new(2, 1), Cell::new(3, 1)]);
    /// assert!(labels.would_disconnect(&tower, &[Cell::new(0, 0)], Cell::new(5, 0))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn anchors_covering(&self, cells: &[Cell]) -> Vec<Cell> {
        self.footprint_shape().anchors_covering(
            cells,
            self.size,
            self.grid.width(),
            self.grid.height(),
        )
    }

    /// Brings the derived grid (and the clearance) up to date after the cells in `changed` were
    /// edited in `terrain` (the grid it was built from, edited in place), and returns the
    /// derived cells whose value changed, in row-major order: pass them to the `update` of the
    /// flow fields, [`Components`](crate::Components) and jump grids kept on the derived grid,
    /// and to path invalidation.
    ///
    /// The result is the grid [`AgentGrid::new`] would build from the edited terrain. Each
    /// changed cell recomputes the anchors whose footprint covers it (see the type's costs);
    /// when that would be more anchors than the map has, the whole grid is derived anew.
    /// Listing a cell twice, or one that did not change, is harmless. The terrain's links are
    /// taken again too (those this kind may take, [`Link::usable_by`](crate::Link::usable_by)),
    /// so that links added, removed, opened or closed since are the derived grid's too: call it
    /// with no changed cells after changing only links.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile};
    ///
    /// let mut terrain = Grid::new(4, 4);
    /// let mut agent = AgentGrid::new(&terrain, &TerrainProfile::identity(), 2)?;
    /// terrain.set_cost(Cell::new(0, 0), 3)?; // mud
    /// assert_eq!(agent.update(&terrain, &[Cell::new(0, 0)])?, [Cell::new(0, 0)]);
    /// assert_eq!(agent.grid().cost(Cell::new(0, 0)), Some(3));
    /// terrain.set_blocked(Cell::new(2, 2), true)?;
    /// let changed = agent.update(&terrain, &[Cell::new(2, 2)])?;
    /// assert_eq!(changed, [Cell::new(1, 1), Cell::new(2, 1), Cell::new(1, 2), Cell::new(2, 2)]);
    /// assert_eq!(agent, AgentGrid::new(&terrain, &TerrainProfile::identity(), 2)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`AgentError::GridMismatch`] when `terrain` is not the size the grid was derived from,
    /// [`AgentError::OutOfBounds`] for a changed cell outside it; nothing is changed then.
    pub fn update(&mut self, terrain: &Grid, changed: &[Cell]) -> Result<Vec<Cell>, AgentError> {
        self.clearance.update(terrain, changed)?;
        let links = links_for(terrain, &self.kind());
        let reach = usize::from(self.size);
        if changed.len().saturating_mul(reach * reach) >= self.grid.len() {
            let mut fresh = derive_grid(terrain, &self.clearance, self.size);
            fresh.set_links(links);
            let updated = fresh
                .cells()
                .filter(|&(cell, value)| self.grid.value(cell) != value)
                .map(|(cell, _)| cell)
                .collect();
            self.grid = fresh;
            return Ok(updated);
        }
        if self.grid.links() != &links {
            self.grid.set_links(links);
        }
        let mut updated = Vec::new();
        let bounds = (self.grid.width(), self.grid.height());
        let anchors = self
            .footprint_shape()
            .anchor_indices(changed, self.size, bounds);
        for index in anchors {
            let anchor = self.cell_at(index);
            let value = self.derived_value(terrain, anchor);
            // In bounds: anchor_indices keeps to the map.
            if self.grid.set_cost(anchor, value) != Ok(value) {
                updated.push(anchor);
            }
        }
        Ok(updated)
    }

    /// The footprint centre of an agent anchored at `anchor`, in [`Waypoint`] coordinates:
    /// `(anchor.x + size / 2, anchor.y + size / 2)`, the point a follower steers.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile, Waypoint};
    ///
    /// let agent = AgentGrid::new(&Grid::new(8, 8), &TerrainProfile::identity(), 3)?;
    /// assert_eq!(agent.footprint_center(Cell::new(2, 0)), Waypoint::new(3.5, 1.5));
    /// assert_eq!(agent.anchor_at(Waypoint::new(3.5, 1.5)), Some(Cell::new(2, 0)));
    /// # Ok::<(), astar_grid::agent::AgentError>(())
    /// ```
    #[must_use]
    pub fn footprint_center(&self, anchor: Cell) -> Waypoint {
        self.footprint_center_of(Waypoint::center_of(anchor))
    }

    /// The footprint centre when the anchor cell's centre is at `point`: `point` moved
    /// `(size - 1) / 2` cells right and down (not moved for a hexagonal footprint, whose anchor
    /// is its centre). Smoothing a path on [`AgentGrid::grid`] gives anchor centres; this turns
    /// each into the point the agent's centre passes.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Grid, TerrainProfile, Waypoint};
    ///
    /// let agent = AgentGrid::new(&Grid::new(8, 8), &TerrainProfile::identity(), 2)?;
    /// assert_eq!(agent.footprint_center_of(Waypoint::new(0.5, 2.5)), Waypoint::new(1.0, 3.0));
    /// # Ok::<(), astar_grid::agent::AgentError>(())
    /// ```
    #[must_use]
    pub fn footprint_center_of(&self, point: Waypoint) -> Waypoint {
        let offset = self.center_offset();
        Waypoint::new(point.x + offset, point.y + offset)
    }

    /// How far the footprint's centre lies right and down of its anchor cell's centre.
    fn center_offset(&self) -> f64 {
        match self.footprint_shape() {
            Footprint::Square => (f64::from(self.size) - 1.0) / 2.0,
            Footprint::Hex => 0.0,
        }
    }

    /// The anchor of an agent whose footprint is centred at `center`: the cell holding the
    /// anchor cell's centre, `center` moved `(size - 1) / 2` cells left and up; `None` when
    /// that point is not on the map (or not finite). For a one-cell agent, the cell under
    /// `center`.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Cell, Grid, TerrainProfile, Waypoint};
    ///
    /// let agent = AgentGrid::new(&Grid::new(8, 8), &TerrainProfile::identity(), 2)?;
    /// assert_eq!(agent.anchor_at(Waypoint::new(1.9, 3.2)), Some(Cell::new(1, 2)));
    /// assert_eq!(agent.anchor_at(Waypoint::new(0.2, 1.0)), None);
    /// # Ok::<(), astar_grid::agent::AgentError>(())
    /// ```
    #[must_use]
    pub fn anchor_at(&self, center: Waypoint) -> Option<Cell> {
        let offset = self.center_offset();
        let coordinate = |value: f64, extent: u32| {
            let shifted = (value - offset).floor();
            (shifted >= 0.0 && shifted < f64::from(extent)).then_some(shifted as u32)
        };
        Some(Cell::new(
            coordinate(center.x, self.grid.width())?,
            coordinate(center.y, self.grid.height())?,
        ))
    }

    /// Bytes held: the derived grid's cells and the clearance.
    ///
    /// ```
    /// use astar_grid::{AgentGrid, Grid, TerrainProfile};
    ///
    /// let terrain = Grid::new(10, 10);
    /// let agent = AgentGrid::new(&terrain, &TerrainProfile::identity(), 2)?;
    /// assert_eq!(agent.memory_bytes(), terrain.memory_bytes() + 100);
    /// # Ok::<(), astar_grid::agent::AgentError>(())
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.grid.memory_bytes() + self.clearance.memory_bytes()
    }

    /// The derived value at `anchor`: the highest profile cost over the footprint when it fits,
    /// else 0.
    fn derived_value(&self, terrain: &Grid, anchor: Cell) -> u8 {
        if !self.fits(anchor) {
            return 0;
        }
        let profile = self.clearance.profile();
        self.footprint(anchor)
            .map(|cell| profile.raw_cost(terrain.value(cell)))
            .max()
            .unwrap_or(0)
    }

    /// The cell at a row-major index of the map.
    const fn cell_at(&self, index: usize) -> Cell {
        let width = self.grid.width() as usize;
        Cell::new((index % width) as u32, (index / width) as u32)
    }
}

impl Link {
    /// Whether agents of `kind` may take it (open or not): their footprint is no wider than
    /// [`Link::max_size`] and their profile enters [`Link::terrain`].
    ///
    /// ```
    /// use astar_grid::{AgentKind, Cell, Link, TerrainProfile};
    ///
    /// let door = Link::new(Cell::new(0, 0), Cell::new(0, 2), 1.0).with_max_size(1);
    /// assert!(door.usable_by(&AgentKind::new(TerrainProfile::identity(), 1)));
    /// assert!(!door.usable_by(&AgentKind::new(TerrainProfile::identity(), 2)));
    /// ```
    #[must_use]
    pub fn usable_by(&self, kind: &AgentKind) -> bool {
        kind.size <= self.max_size && kind.profile.cost(self.terrain).is_some()
    }
}

/// The links of `terrain` that agents of `kind` may take, under their names.
fn links_for(terrain: &Grid, kind: &AgentKind) -> Links {
    terrain.links().filtered(|link| link.usable_by(kind))
}

/// The derived grid of agents of side `size` whose clearance on `terrain` is `clearance`: at
/// each anchor where the footprint fits, the highest profile cost over it (a row pass taking
/// the maximum of `size` cells to the right, then a column pass over `size` of those below),
/// elsewhere 0.
fn derive_grid(terrain: &Grid, clearance: &Clearance, size: u8) -> Grid {
    let profile = clearance.profile();
    if clearance.footprint() == Footprint::Hex {
        // Each fitting centre reads its disc: O(cells x size²).
        return Grid::from_fn(terrain.width(), terrain.height(), |anchor| {
            if clearance.get(anchor) < size {
                return 0;
            }
            Footprint::Hex
                .cells(anchor, size)
                .map(|cell| profile.raw_cost(terrain.value(cell)))
                .max()
                .unwrap_or(0)
        });
    }
    let (width, height) = (terrain.width() as usize, terrain.height() as usize);
    let reach = usize::from(size);
    let mut row_max = vec![0u8; width * height];
    for (cell, value) in terrain.cells() {
        let (x, y) = (cell.x as usize, cell.y as usize);
        let cost = profile.raw_cost(value);
        // Spread the cost to the anchors of this row whose footprint reaches it.
        for anchor in x.saturating_sub(reach - 1)..=x {
            let slot = &mut row_max[y * width + anchor];
            *slot = (*slot).max(cost);
        }
    }
    Grid::from_fn(terrain.width(), terrain.height(), |anchor| {
        if clearance.get(anchor) < size {
            return 0;
        }
        let (x, y) = (anchor.x as usize, anchor.y as usize);
        (y..y + reach)
            .map(|row| row_max[row * width + x])
            .max()
            .unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LinkId;

    #[test]
    fn a_kind_keeps_the_links_it_may_take_under_their_names() {
        let mut grid = Grid::new(4, 4);
        let ladder = Link::new(Cell::new(0, 0), Cell::new(3, 0), 1.0).with_terrain(9);
        let narrow = Link::new(Cell::new(0, 1), Cell::new(3, 1), 1.0).with_max_size(1);
        let ladder = grid.add_link(ladder).expect("link");
        let narrow = grid.add_link(narrow).expect("link");
        let boat = TerrainProfile::from_fn(|value| u8::from(value != 9));
        let kept = |kind: AgentKind| -> Vec<LinkId> {
            links_for(&grid, &kind).iter().map(|(id, _)| id).collect()
        };
        assert_eq!(
            kept(AgentKind::new(TerrainProfile::identity(), 1)),
            [ladder, narrow]
        );
        assert_eq!(kept(AgentKind::new(boat, 1)), [narrow]);
        assert_eq!(
            kept(AgentKind::new(TerrainProfile::identity(), 2)),
            [ladder]
        );
    }
}
