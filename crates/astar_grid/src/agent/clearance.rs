//! Clearance: for each cell, the side of the largest square footprint anchored there that stands
//! on passable terrain, built in one sweep and kept up to date cell by cell.

use super::{AgentError, Footprint, MAX_AGENT_SIZE, TerrainProfile};
use crate::{Cell, Grid};
use core::fmt;
use std::collections::VecDeque;

/// For every cell of a terrain grid, the side of the largest square footprint anchored at that
/// cell whose cells are all passable under a [`TerrainProfile`], capped at [`MAX_AGENT_SIZE`].
///
/// **The anchor is the footprint's minimum-x, minimum-y cell** (its top-left cell, `(0, 0)`
/// being the map's top-left): an agent of size `n` anchored at `(x, y)` covers the cells
/// `x..x + n` by `y..y + n`, and its footprint's centre is the point
/// `(x + n / 2, y + n / 2)` in [`Waypoint`](crate::Waypoint) coordinates, `(n - 1) / 2` cells
/// right of and below the anchor cell's centre. A cell's clearance is 0 when it is impassable
/// itself; cells outside the map count as impassable, so the clearance near the right and
/// bottom edges stops at the edge.
///
/// # Costs
/// - [`Clearance::new`]: one sweep from the bottom-right corner, O(cells), with the usual
///   recurrence `c(x, y) = min(cap, 1 + min(c(x + 1, y), c(x, y + 1), c(x + 1, y + 1)))` on a
///   passable cell.
/// - Memory: exactly one byte per cell ([`Clearance::memory_bytes`]).
/// - [`Clearance::update`]: a cell's clearance depends only on the `MAX_AGENT_SIZE` x
///   `MAX_AGENT_SIZE` cells from it to the right and down, so changing one cell can only change
///   the clearance of the anchors within `MAX_AGENT_SIZE - 1` cells up and left of it: each
///   changed cell costs O(`MAX_AGENT_SIZE`²), 64 anchors recomputed, however large the map.
///   The anchors whose clearance changed are returned.
///
/// ```
/// use astar_grid::{Cell, Clearance, Grid, TerrainProfile};
///
/// let mut terrain = Grid::from_ascii(
///     "....
///      ....
///      ...#",
/// )?;
/// let mut clearance = Clearance::new(&terrain, &TerrainProfile::identity());
/// assert_eq!(clearance.get(Cell::new(0, 0)), 3);
/// assert_eq!(clearance.get(Cell::new(2, 1)), 1); // (3, 2) is a wall
/// assert_eq!(clearance.get(Cell::new(3, 2)), 0);
///
/// terrain.set_blocked(Cell::new(1, 1), true)?;
/// let changed = clearance.update(&terrain, &[Cell::new(1, 1)])?;
/// assert_eq!(changed, [Cell::new(0, 0), Cell::new(1, 0), Cell::new(0, 1), Cell::new(1, 1)]);
/// assert_eq!(clearance.get(Cell::new(0, 0)), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// On a hexagonal grid ([`Clearance::with_footprint`] and [`Footprint::Hex`]) the footprint of
/// size `n` is the disc of hexes within `n - 1` steps of its centre, and a hex's clearance is its
/// distance in steps to the nearest impassable hex or the map's edge (capped likewise): one
/// breadth-first sweep builds it, and an edit recomputes the hexes within `MAX_AGENT_SIZE`
/// steps of it.
#[derive(Clone, PartialEq, Eq)]
pub struct Clearance {
    profile: TerrainProfile,
    footprint: Footprint,
    width: u32,
    height: u32,
    /// Row-major, one byte per cell: 0 impassable, else the clearance (at most the cap).
    values: Vec<u8>,
}

impl Clearance {
    /// The clearance of every cell of `terrain` under `profile`; O(cells).
    ///
    /// ```
    /// use astar_grid::{Cell, Clearance, Grid, TerrainProfile};
    /// use astar_grid::agent::MAX_AGENT_SIZE;
    ///
    /// let clearance = Clearance::new(&Grid::new(20, 3), &TerrainProfile::identity());
    /// assert_eq!(clearance.get(Cell::new(0, 0)), 3); // three rows
    /// let open = Clearance::new(&Grid::new(20, 20), &TerrainProfile::identity());
    /// assert_eq!(open.get(Cell::new(0, 0)), MAX_AGENT_SIZE); // capped
    /// assert_eq!(open.get(Cell::new(19, 19)), 1);
    /// ```
    #[must_use]
    pub fn new(terrain: &Grid, profile: &TerrainProfile) -> Self {
        Self::with_footprint(terrain, profile, Footprint::Square)
    }

    /// The clearance of every cell of `terrain` under `profile` for footprints of the shape
    /// `footprint`; O(cells).
    ///
    /// ```
    /// use astar_grid::agent::Footprint;
    /// use astar_grid::{Cell, Clearance, Grid, TerrainProfile};
    ///
    /// let mut terrain = Grid::new(9, 9);
    /// terrain.set_blocked(Cell::new(4, 4), true)?;
    /// let clearance = Clearance::with_footprint(&terrain, &TerrainProfile::identity(), Footprint::Hex);
    /// assert_eq!(clearance.get(Cell::new(4, 4)), 0);
    /// assert_eq!(clearance.get(Cell::new(5, 3)), 1); // a neighbour of the wall
    /// assert_eq!(clearance.get(Cell::new(2, 2)), 3); // the map's edge is 3 steps away
    /// # Ok::<(), astar_grid::GridError>(())
    /// ```
    #[must_use]
    pub fn with_footprint(terrain: &Grid, profile: &TerrainProfile, footprint: Footprint) -> Self {
        let mut clearance = Self {
            profile: *profile,
            footprint,
            width: terrain.width(),
            height: terrain.height(),
            values: vec![0; terrain.len()],
        };
        clearance.recompute_all(terrain, |_| {});
        clearance
    }

    /// The shape of the footprints the clearance measures.
    #[must_use]
    pub const fn footprint(&self) -> Footprint {
        self.footprint
    }

    /// The profile the clearance was built under.
    #[must_use]
    pub const fn profile(&self) -> &TerrainProfile {
        &self.profile
    }

    /// Map width.
    #[must_use]
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// Map height.
    #[must_use]
    pub const fn height(&self) -> u32 {
        self.height
    }

    /// The side of the largest square footprint anchored at `anchor` (its top-left cell) that
    /// stands on passable cells, at most [`MAX_AGENT_SIZE`]; 0 when `anchor` is impassable or
    /// outside the map.
    ///
    /// ```
    /// use astar_grid::{Cell, Clearance, Grid, TerrainProfile};
    ///
    /// let clearance = Clearance::new(&Grid::from_ascii("..\n.#")?, &TerrainProfile::identity());
    /// assert_eq!(clearance.get(Cell::new(0, 0)), 1);
    /// assert_eq!(clearance.get(Cell::new(1, 1)), 0);
    /// assert_eq!(clearance.get(Cell::new(5, 0)), 0);
    /// # Ok::<(), astar_grid::ParseError>(())
    /// ```
    #[must_use]
    pub fn get(&self, anchor: Cell) -> u8 {
        self.index(anchor).map_or(0, |index| self.values[index])
    }

    /// Whether a square agent of side `size` anchored at `anchor` stands on passable cells only;
    /// false for a size of 0 or above [`MAX_AGENT_SIZE`], which the clearance does not record.
    ///
    /// ```
    /// use astar_grid::{Cell, Clearance, Grid, TerrainProfile};
    ///
    /// let clearance = Clearance::new(&Grid::from_ascii("...\n...\n..#")?, &TerrainProfile::identity());
    /// assert!(clearance.fits(Cell::new(0, 0), 2));
    /// assert!(!clearance.fits(Cell::new(1, 1), 2));
    /// assert!(!clearance.fits(Cell::new(0, 0), 0));
    /// # Ok::<(), astar_grid::ParseError>(())
    /// ```
    #[must_use]
    pub fn fits(&self, anchor: Cell, size: u8) -> bool {
        (1..=MAX_AGENT_SIZE).contains(&size) && self.get(anchor) >= size
    }

    /// Brings the clearance up to date after the cells in `changed` were edited in `terrain`
    /// (the same grid, edited in place), and returns the anchors whose clearance changed, in
    /// row-major order.
    ///
    /// Each changed cell costs O([`MAX_AGENT_SIZE`]²): only the anchors up to
    /// `MAX_AGENT_SIZE - 1` cells up and left of it are recomputed, bottom-right first, so each
    /// reads neighbours that are already up to date. When the changed cells would touch more
    /// anchors than the map has, the whole map is recomputed instead, O(cells). Listing a cell
    /// twice, or one that did not change, is harmless.
    ///
    /// ```
    /// use astar_grid::{Cell, Clearance, Grid, TerrainProfile};
    ///
    /// let mut terrain = Grid::new(3, 3);
    /// let mut clearance = Clearance::new(&terrain, &TerrainProfile::identity());
    /// terrain.set_blocked(Cell::new(2, 2), true)?;
    /// clearance.update(&terrain, &[Cell::new(2, 2)])?;
    /// assert_eq!(clearance, Clearance::new(&terrain, &TerrainProfile::identity()));
    /// assert!(clearance.update(&Grid::new(4, 4), &[]).is_err()); // another map
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`AgentError::GridMismatch`] when `terrain` is not the size the clearance was built for,
    /// [`AgentError::OutOfBounds`] for a changed cell outside it; nothing is changed then.
    pub fn update(&mut self, terrain: &Grid, changed: &[Cell]) -> Result<Vec<Cell>, AgentError> {
        self.check_terrain(terrain, changed)?;
        let mut updated = Vec::new();
        let reach = usize::from(MAX_AGENT_SIZE);
        if changed.len().saturating_mul(reach * reach) >= self.values.len() {
            self.recompute_all(terrain, |cell| updated.push(cell));
        } else {
            // The cells whose clearance reads a changed cell: anchors up and left of it, or on a
            // hexagonal grid the hexes within `MAX_AGENT_SIZE - 1` steps; bottom-right first.
            let bounds = (self.width, self.height);
            let near = self
                .footprint
                .anchor_indices(changed, MAX_AGENT_SIZE, bounds);
            for &index in near.iter().rev() {
                let cell = self.cell_at(index);
                let value = match self.footprint {
                    Footprint::Square => self.recompute(terrain, cell),
                    Footprint::Hex => self.hex_value(terrain, cell),
                };
                if value != self.values[index] {
                    self.values[index] = value;
                    updated.push(cell);
                }
            }
        }
        updated.reverse();
        Ok(updated)
    }

    /// Bytes of clearance storage: one per cell.
    ///
    /// ```
    /// use astar_grid::{Clearance, Grid, TerrainProfile};
    ///
    /// let clearance = Clearance::new(&Grid::new(30, 20), &TerrainProfile::identity());
    /// assert_eq!(clearance.memory_bytes(), 600);
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.values.capacity()
    }

    /// Checks that `terrain` is the map the clearance was built for and that every changed cell
    /// lies on it.
    pub(crate) fn check_terrain(&self, terrain: &Grid, changed: &[Cell]) -> Result<(), AgentError> {
        if terrain.width() != self.width || terrain.height() != self.height {
            return Err(AgentError::GridMismatch {
                width: self.width,
                height: self.height,
                found_width: terrain.width(),
                found_height: terrain.height(),
            });
        }
        match changed.iter().find(|&&cell| !terrain.contains(cell)) {
            Some(&cell) => Err(AgentError::OutOfBounds {
                cell,
                width: self.width,
                height: self.height,
            }),
            None => Ok(()),
        }
    }

    /// Recomputes every cell from the bottom-right corner, calling `changed` for each cell whose
    /// value changes (bottom-right first).
    fn recompute_all(&mut self, terrain: &Grid, mut changed: impl FnMut(Cell)) {
        if self.footprint == Footprint::Hex {
            let fresh = self.hex_sweep(terrain);
            for index in (0..self.values.len()).rev() {
                if fresh[index] != self.values[index] {
                    self.values[index] = fresh[index];
                    changed(self.cell_at(index));
                }
            }
            return;
        }
        for index in (0..self.values.len()).rev() {
            let cell = self.cell_at(index);
            let value = self.recompute(terrain, cell);
            if value != self.values[index] {
                self.values[index] = value;
                changed(cell);
            }
        }
    }

    /// The clearance of `cell` from its terrain and the stored clearance of its right, lower
    /// and lower-right neighbours.
    fn recompute(&self, terrain: &Grid, cell: Cell) -> u8 {
        if !self.profile.is_passable(terrain.value(cell)) {
            return 0;
        }
        let right = self.get(Cell::new(cell.x + 1, cell.y));
        let below = self.get(Cell::new(cell.x, cell.y + 1));
        let diagonal = self.get(Cell::new(cell.x + 1, cell.y + 1));
        MAX_AGENT_SIZE.min(1 + right.min(below).min(diagonal))
    }

    /// Every hex's clearance at once: a breadth-first sweep over the six neighbours from the
    /// impassable hexes, each hex's value the smaller of its distance from them and from the
    /// map's edge (cells past the edge count as impassable), capped.
    fn hex_sweep(&self, terrain: &Grid) -> Vec<u8> {
        let mut values: Vec<u8> = (0..self.values.len())
            .map(|index| self.edge_distance(self.cell_at(index)))
            .collect();
        let mut queue = VecDeque::new();
        for (index, value) in values.iter_mut().enumerate() {
            let cell = self.cell_at(index);
            if !self.profile.is_passable(terrain.value(cell)) {
                *value = 0;
                queue.push_back(cell);
            }
        }
        while let Some(cell) = queue.pop_front() {
            let next_value = self.get_in(&values, cell).saturating_add(1);
            for next in Footprint::Hex.cells(cell, 2) {
                if let Some(index) = self.index(next)
                    && values[index] > next_value
                {
                    values[index] = next_value;
                    queue.push_back(next);
                }
            }
        }
        values
    }

    /// One hex's clearance from the hexes around it.
    fn hex_value(&self, terrain: &Grid, cell: Cell) -> u8 {
        let mut value = self.edge_distance(cell);
        for near in Footprint::Hex.cells(cell, MAX_AGENT_SIZE) {
            if self.index(near).is_some() && !self.profile.is_passable(terrain.value(near)) {
                let steps = crate::hex::hex_distance(cell, near);
                value = value.min(u8::try_from(steps).unwrap_or(u8::MAX));
            }
        }
        value
    }

    /// How many steps from `cell` the nearest hex past the map's edge lies (capped): on an
    /// axial grid, the distance to a column or row just outside it.
    fn edge_distance(&self, cell: Cell) -> u8 {
        let steps = (cell.x + 1)
            .min(self.width - cell.x)
            .min(cell.y + 1)
            .min(self.height - cell.y);
        u8::try_from(steps).map_or(MAX_AGENT_SIZE, |steps| steps.min(MAX_AGENT_SIZE))
    }

    /// The value at `cell` in `values`, laid out as this clearance's.
    fn get_in(&self, values: &[u8], cell: Cell) -> u8 {
        self.index(cell).map_or(0, |index| values[index])
    }

    /// Row-major index of `cell`, or `None` outside the map.
    fn index(&self, cell: Cell) -> Option<usize> {
        (cell.x < self.width && cell.y < self.height)
            .then(|| cell.y as usize * self.width as usize + cell.x as usize)
    }

    /// The cell at a row-major index.
    const fn cell_at(&self, index: usize) -> Cell {
        let width = self.width as usize;
        Cell::new((index % width) as u32, (index / width) as u32)
    }
}

/// The row-major indices, sorted and without repeats, of the anchors of a `width` x `height`
/// map that lie up to `reach - 1` cells up and left of some cell of `cells` (that cell
/// included): the anchors whose `reach` x `reach` footprint covers it. Anchors outside the map
/// are left out. Memory stays within the smaller of `reach`² indices a cell and one flag a cell
/// of the map.
pub(crate) fn anchors_within(cells: &[Cell], reach: u8, width: u32, height: u32) -> Vec<usize> {
    if width == 0 || height == 0 {
        return Vec::new();
    }
    let back = u32::from(reach).saturating_sub(1);
    let covered = |&cell: &Cell| {
        let rows = cell.y.saturating_sub(back)..=cell.y.min(height - 1);
        rows.flat_map(move |y| {
            let row = y as usize * width as usize;
            (cell.x.saturating_sub(back)..=cell.x.min(width - 1)).map(move |x| row + x as usize)
        })
    };
    let map_cells = width as usize * height as usize;
    let per_cell = usize::from(reach) * usize::from(reach);
    if cells.len().saturating_mul(per_cell) >= map_cells {
        let mut marked = vec![false; map_cells];
        for index in cells.iter().flat_map(covered) {
            marked[index] = true;
        }
        return (0..map_cells).filter(|&index| marked[index]).collect();
    }
    let mut anchors: Vec<usize> = cells.iter().flat_map(covered).collect();
    anchors.sort_unstable();
    anchors.dedup();
    anchors
}

impl fmt::Debug for Clearance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clearance")
            .field("footprint", &self.footprint)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("profile", &self.profile)
            .finish_non_exhaustive()
    }
}
