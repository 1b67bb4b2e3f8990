//! The navigation grid resource: the core grid shared copy-on-write with background searches,
//! its placement in the world, and edits that record what changed.

use super::{NavCellChange, NavChange, NavLinkChange, NavShape};
use astar_grid::{Cell, CostModel, Grid, GridError, Link, LinkError, LinkId, Movement};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// Source of grid identities, so that a replaced or cloned grid is recognised as a new map.
static NEXT_GRID_ID: AtomicU64 = AtomicU64::new(1);

fn next_grid_id() -> u64 {
    NEXT_GRID_ID.fetch_add(1, Ordering::Relaxed)
}

/// The grid the agents search, as a resource.
///
/// Searches run in the background on a snapshot of the grid (an [`Arc`]); editing the grid while
/// they run copies it once, so the game never waits for a search. On grids of a million cells
/// or more, the plugin makes that copy on a background thread ahead of the edit, while searches
/// hold the grid, so that the edit does not copy the grid on the frame. Every edit goes through a
/// method that records the changed cell, so the [`NavVersion`](crate::NavVersion) and the
/// [`NavChanged`](crate::NavChanged) change set cannot be forgotten: they are published once per
/// frame in [`PathfindingSystems::Invalidate`](crate::PathfindingSystems::Invalidate).
///
/// Cell `(x, y)` covers the world rectangle from `origin + (x, y) * cell_size` to
/// `origin + (x + 1, y + 1) * cell_size` in the XY plane: rows grow along +Y, as in
/// `bevy_ecs_tilemap`.
///
/// Inserting a new `NavGrid` (or a clone of one) counts as a new map: every agent searches again.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// let mut nav = NavGrid::new(Grid::new(8, 8)).with_cell_size(Vec2::splat(32.0));
/// nav.block(Cell::new(3, 3))?;
/// nav.fill_rect(Cell::new(5, 0), Cell::new(5, 6), 0); // a wall
/// assert_eq!(nav.world_to_cell(Vec2::new(100.0, 40.0)), Some(Cell::new(3, 1)));
/// assert_eq!(nav.cell_center(Cell::new(0, 0)), Vec2::new(16.0, 16.0));
/// # Ok::<(), astar_grid::GridError>(())
/// ```
#[derive(Resource, Debug, Reflect)]
#[reflect(opaque)]
#[reflect(Resource, Clone, Debug)]
pub struct NavGrid {
    grid: Arc<Grid>,
    cell_size: Vec2,
    origin: Vec2,
    shape: NavShape,
    /// The value each cell edited since the last published version had before its first edit.
    pending: HashMap<Cell, u8>,
    /// Each link edited since the last published version as it was before its first edit
    /// (`None`: it did not exist), in the order of first edits.
    pending_links: Vec<(LinkId, Option<Link>)>,
    id: u64,
    /// A copy of the grid made off the main thread, for the next edit while searches hold it.
    spare: SpareGrid,
}

/// A copy of the grid made off the main thread for the next edit to take while searches still
/// hold the grid ([`NavGrid::spare_to_make`]): the grid it copies, weakly (its address names it
/// while the weak reference keeps the allocation), and the copy once made.
#[derive(Debug, Default)]
struct SpareGrid {
    of: Weak<Grid>,
    copy: SpareSlot,
}

/// Where a spare copy of the grid lands once made.
pub(crate) type SpareSlot = Arc<Mutex<Option<Grid>>>;

/// Cells from which a grid that searches hold is copied off the main thread ahead of its next
/// edit ([`NavGrid::spare_to_make`]); a smaller one is copied by the edit, in less time than
/// handing the copy over would save.
pub(crate) const SPARE_MIN_CELLS: u64 = 1 << 20;

impl Clone for NavGrid {
    /// A copy with its own identity: inserted as the resource, it counts as a new map.
    fn clone(&self) -> Self {
        Self {
            grid: Arc::clone(&self.grid),
            cell_size: self.cell_size,
            origin: self.origin,
            shape: self.shape,
            pending: HashMap::default(),
            pending_links: Vec::new(),
            id: next_grid_id(),
            spare: SpareGrid::default(),
        }
    }
}

impl NavGrid {
    /// A navigation grid over `grid`, with cells of size 1 and cell `(0, 0)` starting at the
    /// world origin.
    ///
    /// The grid's links ([`Grid::add_link`], or [`NavGrid::add_link`] later) are searched
    /// over, and [`PathFollower`](crate::PathFollower)s cross them.
    #[must_use]
    pub fn new(grid: Grid) -> Self {
        Self {
            grid: Arc::new(grid),
            cell_size: Vec2::ONE,
            origin: Vec2::ZERO,
            shape: NavShape::Square,
            pending: HashMap::default(),
            pending_links: Vec::new(),
            id: next_grid_id(),
            spare: SpareGrid::default(),
        }
    }

    /// Sets the world size of one cell. A zero or non-finite size makes every world position
    /// fall outside the grid.
    #[must_use]
    pub fn with_cell_size(mut self, cell_size: Vec2) -> Self {
        self.cell_size = cell_size;
        self
    }

    /// Sets the world position of the outer corner of cell `(0, 0)`: for cells that are not
    /// square, the centre of cell `(0, 0)` (of tile `(0, 0)` on a hexagonal map) lies half a
    /// cell size beyond it.
    #[must_use]
    pub fn with_origin(mut self, origin: Vec2) -> Self {
        self.origin = origin;
        self
    }

    /// Sets the shape of the cells: isometric or hexagonal cells change where cells lie in the
    /// world, and a hexagonal grid is searched with [`Movement::HEX`]
    /// ([`NavShape::movement_for`]). For [`NavShape::Hex`], the grid holds the map in axial
    /// coordinates, as [`HexMap::grid_from_tiles`](astar_grid::hex::HexMap::grid_from_tiles)
    /// makes it.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    /// use bevy_astar::NavShape;
    /// use astar_grid::hex::{HexLayout, HexMap};
    ///
    /// let map = HexMap::new(HexLayout::RowOdd, 4, 3)?;
    /// let nav = NavGrid::new(map.grid_from_tiles(|_| 1)?)
    ///     .with_cell_size(Vec2::new(20.0, 20.0))
    ///     .with_shape(NavShape::Hex(map));
    /// let tile = map.cell_of((1, 1)).expect("on the map");
    /// // Row 1 is shifted half a hex along, and rows lie 3/4 of a hex apart.
    /// assert_eq!(nav.cell_center(tile), Vec2::new(10.0 + 30.0, 10.0 + 15.0));
    /// assert_eq!(nav.world_to_cell(Vec2::new(42.0, 27.0)), Some(tile));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_shape(mut self, shape: NavShape) -> Self {
        self.shape = shape;
        self
    }

    /// The shape of the cells.
    #[must_use]
    pub const fn shape(&self) -> NavShape {
        self.shape
    }

    /// The grid as it is now.
    #[must_use]
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// A snapshot of the grid that later edits do not affect (a reference count, not a copy).
    #[must_use]
    pub fn snapshot(&self) -> Arc<Grid> {
        Arc::clone(&self.grid)
    }

    /// Number of columns.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.grid.width()
    }

    /// Number of rows.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.grid.height()
    }

    /// The world size of one cell.
    #[must_use]
    pub const fn cell_size(&self) -> Vec2 {
        self.cell_size
    }

    /// The world position of the outer corner of cell `(0, 0)`.
    #[must_use]
    pub const fn origin(&self) -> Vec2 {
        self.origin
    }

    /// Whether `cell` is inside the grid and walkable.
    #[must_use]
    pub fn is_walkable(&self, cell: Cell) -> bool {
        self.grid.is_walkable(cell)
    }

    /// The world position of the centre of `cell` (also for cells outside the grid).
    #[must_use]
    pub fn cell_center(&self, cell: Cell) -> Vec2 {
        self.geometry().cell_center(cell)
    }

    /// Where the grid's cells lie in the world.
    pub(crate) const fn geometry(&self) -> CellGeometry {
        CellGeometry {
            origin: self.origin,
            cell_size: self.cell_size,
            shape: self.shape,
        }
    }

    /// The world position of the centre of the footprint of an agent of `size` cells anchored
    /// at `anchor` (its top-left cell): `anchor`'s centre moved `(size - 1) / 2` cells along
    /// both axes of the grid. The centre of the cell itself for one-cell agents, and on a
    /// hexagonal grid, whose agents stand on one hex.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let nav = NavGrid::new(Grid::new(8, 8)).with_cell_size(Vec2::splat(10.0));
    /// assert_eq!(nav.footprint_center(Cell::new(2, 3), 1), Vec2::new(25.0, 35.0));
    /// assert_eq!(nav.footprint_center(Cell::new(2, 3), 2), Vec2::new(30.0, 40.0));
    /// assert_eq!(nav.footprint_anchor(Vec2::new(30.0, 40.0), 2), Some(Cell::new(2, 3)));
    /// ```
    #[must_use]
    pub fn footprint_center(&self, anchor: Cell, size: u8) -> Vec2 {
        self.geometry().footprint_center(anchor, size)
    }

    /// The anchor of the footprint of an agent of `size` cells centred at `center`, or `None`
    /// when the anchor lies outside the grid.
    #[must_use]
    pub fn footprint_anchor(&self, center: Vec2, size: u8) -> Option<Cell> {
        let bounds = (self.grid.width(), self.grid.height());
        self.geometry().footprint_anchor(center, size, bounds)
    }

    /// The cell containing a world position, or `None` when it lies outside the grid.
    #[must_use]
    pub fn world_to_cell(&self, position: Vec2) -> Option<Cell> {
        self.footprint_anchor(position, 1)
    }

    /// Sets the terrain cost of `cell`; 0 blocks it. Returns whether its value changed.
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`] when the cell is outside the grid.
    pub fn set_cost(&mut self, cell: Cell, cost: u8) -> Result<bool, GridError> {
        if !self.grid.contains(cell) {
            return Err(GridError::OutOfBounds {
                cell,
                width: self.grid.width(),
                height: self.grid.height(),
            });
        }
        let before = self.grid.value(cell);
        if before == cost {
            return Ok(false);
        }
        self.grid_mut().set_cost(cell, cost)?;
        self.pending.entry(cell).or_insert(before);
        Ok(true)
    }

    /// Blocks `cell`. Returns whether it was walkable.
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`] when the cell is outside the grid.
    pub fn block(&mut self, cell: Cell) -> Result<bool, GridError> {
        self.set_cost(cell, 0)
    }

    /// Makes a blocked `cell` walkable with cost 1; a walkable cell keeps its cost. Returns
    /// whether it was blocked.
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`] when the cell is outside the grid.
    pub fn unblock(&mut self, cell: Cell) -> Result<bool, GridError> {
        if self.grid.contains(cell) && self.grid.value(cell) != 0 {
            return Ok(false);
        }
        self.set_cost(cell, 1)
    }

    /// Sets every cell of the rectangle from `min` to `max` (inclusive, clipped to the grid) to
    /// `cost`; 0 blocks them. Returns how many cells changed value.
    pub fn fill_rect(&mut self, min: Cell, max: Cell, cost: u8) -> usize {
        if self.grid.is_empty() {
            return 0;
        }
        let max_x = max.x.min(self.grid.width() - 1);
        let max_y = max.y.min(self.grid.height() - 1);
        let mut changed = 0;
        for y in min.y..=max_y {
            for x in min.x..=max_x {
                if let Ok(true) = self.set_cost(Cell::new(x, y), cost) {
                    changed += 1;
                }
            }
        }
        changed
    }

    /// Replaces the whole grid, keeping the placement in the world and the cells' shape (a
    /// hexagonal grid of another size needs its own [`NavShape::Hex`], set with
    /// [`NavGrid::with_shape`] on a new `NavGrid`); every agent searches again.
    pub fn replace_grid(&mut self, grid: Grid) {
        self.grid = Arc::new(grid);
        self.pending.clear();
        self.pending_links.clear();
        self.id = next_grid_id();
    }

    /// The grid to edit: the grid itself when nothing else holds it (nor a spare's weak
    /// reference: a spare left is of an older grid, and its memory is let go); else the spare
    /// copy made of it off the main thread, when it is ready; else a copy made now.
    fn grid_mut(&mut self) -> &mut Grid {
        if Arc::get_mut(&mut self.grid).is_some() {
            self.spare = SpareGrid::default();
        } else if core::ptr::eq(self.spare.of.as_ptr(), Arc::as_ptr(&self.grid)) {
            let ready = self
                .spare
                .copy
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(copy) = ready {
                self.grid = Arc::new(copy);
            }
        }
        Arc::make_mut(&mut self.grid)
    }

    /// When something besides this resource holds the grid (a search), the grid has
    /// [`SPARE_MIN_CELLS`] or more, and no spare copy of it is made or being made: the grid to
    /// copy, and the slot to put the copy in, which the next edit takes.
    pub(crate) fn spare_to_make(&mut self) -> Option<(Arc<Grid>, SpareSlot)> {
        let cells = u64::from(self.grid.width()) * u64::from(self.grid.height());
        let made = core::ptr::eq(self.spare.of.as_ptr(), Arc::as_ptr(&self.grid));
        if cells < SPARE_MIN_CELLS || Arc::strong_count(&self.grid) < 2 || made {
            return None;
        }
        let copy = Arc::new(Mutex::new(None));
        self.spare = SpareGrid {
            of: Arc::downgrade(&self.grid),
            copy: Arc::clone(&copy),
        };
        Some((Arc::clone(&self.grid), copy))
    }

    /// Whether cells or links were edited since the last published map version.
    #[must_use]
    pub fn has_pending_changes(&self) -> bool {
        !self.pending.is_empty() || !self.pending_links.is_empty()
    }

    /// The edits not yet published, as a change set.
    #[must_use]
    pub fn pending_changes(&self) -> NavChange {
        let cells = self.pending.iter().map(|(&cell, &before)| NavCellChange {
            cell,
            before,
            after: self.grid.value(cell),
        });
        let links = self
            .pending_links
            .iter()
            .map(|&(id, before)| NavLinkChange {
                id,
                before,
                after: self.grid.links().get(id).copied(),
            });
        NavChange::from_cells(cells).with_links(links)
    }

    /// Takes the edits not yet published.
    pub(crate) fn take_changes(&mut self) -> NavChange {
        let change = self.pending_changes();
        self.pending.clear();
        self.pending_links.clear();
        change
    }

    /// Adds `link` to the grid: a door, a ladder, stairs between floors, a one-way drop or a
    /// teleporter ([`Link`]). Like a cell edit, it is published as the next map version;
    /// with [`InvalidationPolicy::TouchedOrOpened`](crate::InvalidationPolicy::TouchedOrOpened),
    /// paths it may shorten search again. Followers stop at it ([`LinkReached`](crate::LinkReached)).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let mut nav = NavGrid::new(Grid::new(8, 8));
    /// let ladder = nav.add_link(Link::new(Cell::new(1, 1), Cell::new(6, 6), 4.0))?;
    /// nav.set_link_open(ladder, false)?; // closed: no path takes it
    /// assert_eq!(nav.grid().links().get(ladder).map(|link| link.open), Some(false));
    /// assert!(nav.has_pending_changes());
    /// # Ok::<(), LinkError>(())
    /// ```
    ///
    /// # Errors
    /// The [`LinkError`]s of [`Grid::add_link`]: an end off the grid or blocked, a cost that is
    /// negative or not finite, a terrain of 0, a largest footprint of 0, too many links. The
    /// grid is unchanged then.
    pub fn add_link(&mut self, link: Link) -> Result<LinkId, LinkError> {
        let id = self.grid_mut().add_link(link)?;
        self.note_link_edit(id, None);
        Ok(id)
    }

    /// Removes link `id`; the paths that took it are cut (and repaired or searched again).
    ///
    /// # Errors
    /// [`LinkError::Unknown`] when the grid has no such link.
    pub fn remove_link(&mut self, id: LinkId) -> Result<Link, LinkError> {
        let before = self.grid.links().get(id).copied();
        let link = self.grid_mut().remove_link(id)?;
        self.note_link_edit(id, before);
        Ok(link)
    }

    /// Opens or closes link `id` (a door); returns whether it was open. Closing it cuts the
    /// paths that took it; opening it lets agents whose goal could not be reached search again.
    ///
    /// # Errors
    /// [`LinkError::Unknown`] when the grid has no such link.
    pub fn set_link_open(&mut self, id: LinkId, open: bool) -> Result<bool, LinkError> {
        let before = *self.grid.links().get(id).ok_or(LinkError::Unknown(id))?;
        if before.open == open {
            return Ok(open);
        }
        let was_open = self.grid_mut().set_link_open(id, open)?;
        self.note_link_edit(id, Some(before));
        Ok(was_open)
    }

    /// The link a path's move from `from` to `to` takes, for an agent of `size` cells moving
    /// under `movement` and priced by `cost` (the cost model its request searched with), as
    /// the link's id and cost: the cheapest open link between the two cells whose largest
    /// footprint takes the agent. `None` when none does, or when a walk may have joined the
    /// two cells at no more cost, since the search keeps the cheaper way and ties to the walk:
    /// a step to a neighbour (priced by `cost` and the terrain entered), or, between cells
    /// further apart (the move of a smoothed path or of a straight run), a line of sight
    /// ([`astar_grid::line_of_sight`]) no longer than the link's cost. The walk is judged on the
    /// terrain grid at the agent's anchors.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_astar::prelude::*;
    ///
    /// let mut nav = NavGrid::new(Grid::new(8, 8));
    /// let ladder = nav.add_link(Link::new(Cell::new(1, 1), Cell::new(6, 6), 4.0))?;
    /// let slow_door = nav.add_link(Link::new(Cell::new(3, 1), Cell::new(4, 1), 5.0))?;
    /// let narrow = nav.add_link(Link::new(Cell::new(1, 4), Cell::new(1, 7), 1.0).with_max_size(1))?;
    /// let (eight, octile) = (Movement::EIGHT, CostModel::Octile);
    /// let taken = |from, to, size| nav.link_taken(from, to, size, (eight, octile));
    /// assert_eq!(taken(Cell::new(1, 1), Cell::new(6, 6), 1), Some((ladder, 4.0)));
    /// assert_eq!(taken(Cell::new(3, 1), Cell::new(4, 1), 1), None); // walked
    /// assert_eq!(taken(Cell::new(1, 4), Cell::new(1, 7), 1), Some((narrow, 1.0)));
    /// assert_eq!(taken(Cell::new(1, 4), Cell::new(1, 7), 2), None); // too big for it
    /// # let _ = slow_door;
    /// # Ok::<(), LinkError>(())
    /// ```
    #[must_use]
    pub fn link_taken(
        &self,
        from: Cell,
        to: Cell,
        size: u8,
        (movement, cost): (Movement, CostModel),
    ) -> Option<(LinkId, f64)> {
        let grid = &*self.grid;
        let (cheapest, cheapest_cost) = grid.link_step(from, to)?;
        let fits = |link: &Link| link.max_size >= size.max(1);
        let (id, link_cost) = if grid.links().get(cheapest).is_some_and(fits) {
            (cheapest, cheapest_cost)
        } else {
            // The cheapest is too narrow: the cheapest of those that take the agent.
            grid.links()
                .iter()
                .filter(|(_, link)| link.open && link.leads(from, to) && fits(link))
                .map(|(id, link)| (id, link.cost))
                .reduce(|best, next| if next.1 < best.1 { next } else { best })?
        };
        let (dx, dy) = (from.x.abs_diff(to.x), from.y.abs_diff(to.y));
        let walk = if dx.max(dy) <= 1 {
            grid.walk_cost(from, to, movement, cost)
        } else {
            // The least a walk along the line can cost: its octile length on plain ground.
            let (long, short) = (f64::from(dx.max(dy)), f64::from(dx.min(dy)));
            let length = (long - short) * cost.straight() + short * cost.diagonal();
            astar_grid::line_of_sight(grid, from, to, movement).then_some(length)
        };
        match walk {
            Some(walk) if walk <= link_cost => None,
            _ => Some((id, link_cost)),
        }
    }

    /// Records that link `id`, which was `before`, changed, unless it already changed since
    /// the last published version (the first state is the one a change compares with).
    fn note_link_edit(&mut self, id: LinkId, before: Option<Link>) {
        if self.pending_links.iter().all(|&(edited, _)| edited != id) {
            self.pending_links.push((id, before));
        }
    }

    /// This grid's identity; a new or cloned grid has a new one.
    pub(crate) const fn id(&self) -> u64 {
        self.id
    }

    /// Whether `snapshot` is still the current grid (no edit since it was taken).
    pub(crate) fn is_current(&self, snapshot: &Arc<Grid>) -> bool {
        Arc::ptr_eq(&self.grid, snapshot)
    }

    /// A handle to the grid as it is now that does not keep it alive, so that holding it costs
    /// no copy when the grid is edited; [`NavGrid::is_still`] tells whether it is still current.
    pub(crate) fn handle(&self) -> Weak<Grid> {
        Arc::downgrade(&self.grid)
    }

    /// Whether the grid is still the one `handle` was taken of (no edit since).
    pub(crate) fn is_still(&self, handle: &Weak<Grid>) -> bool {
        core::ptr::eq(Arc::as_ptr(&self.grid), handle.as_ptr())
    }
}

/// Where a [`NavGrid`]'s cells lie in the world: its origin, cell size and cell shape, which is
/// all that turning path cells into world waypoints needs (so that a background task can do
/// it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CellGeometry {
    origin: Vec2,
    cell_size: Vec2,
    shape: NavShape,
}

impl CellGeometry {
    /// The world position of `cell`'s centre ([`NavGrid::cell_center`]).
    pub(crate) fn cell_center(self, cell: Cell) -> Vec2 {
        self.world(self.shape.point(cell.x as f32, cell.y as f32))
    }

    /// The world position of `local`, in cell sizes from the centre of cell `(0, 0)`.
    fn world(self, local: Vec2) -> Vec2 {
        self.origin + (local + 0.5) * self.cell_size
    }

    /// The centre of the footprint of `size` cells anchored at `anchor`
    /// ([`NavGrid::footprint_center`]).
    pub(crate) fn footprint_center(self, anchor: Cell, size: u8) -> Vec2 {
        self.cell_center(anchor) + self.footprint_offset(size)
    }

    /// From the centre of a footprint's anchor cell to the footprint's centre (none on a
    /// hexagonal grid, whose agents stand on one hex).
    fn footprint_offset(self, size: u8) -> Vec2 {
        if self.shape.is_hex() {
            return Vec2::ZERO;
        }
        let half = (f32::from(size.max(1)) - 1.0) / 2.0;
        self.shape.point(half, half) * self.cell_size
    }

    /// The anchor of the footprint of `size` cells centred at `center`, on a grid of `width` x
    /// `height` cells ([`NavGrid::footprint_anchor`]); `None` outside it.
    pub(crate) fn footprint_anchor(
        self,
        center: Vec2,
        size: u8,
        (width, height): (u32, u32),
    ) -> Option<Cell> {
        let from_corner = (center - self.footprint_offset(size) - self.origin) / self.cell_size;
        self.shape.cell_at(from_corner, (width, height))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Puts a copy of `grid` in `slot`, as the background task does.
    fn fill(slot: &Mutex<Option<Grid>>, grid: Arc<Grid>) {
        *slot.lock().expect("not poisoned") = Some(Grid::clone(&grid));
    }

    #[test]
    fn an_edit_while_searches_hold_the_grid_takes_the_spare_copy_made_of_it_and_never_an_old_one() {
        let side = 1 << 10;
        let mut nav = NavGrid::new(Grid::new(side, side));
        assert!(nav.spare_to_make().is_none(), "nothing else holds the grid");
        let search = nav.snapshot();
        let (grid, slot) = nav.spare_to_make().expect("held, and a million cells");
        assert!(
            nav.spare_to_make().is_none(),
            "one spare of a grid at a time"
        );
        fill(&slot, grid);
        // The edit takes the spare; the search's snapshot keeps the grid it had.
        assert_eq!(nav.block(Cell::new(1, 1)), Ok(true));
        assert!(
            slot.lock().expect("not poisoned").is_none(),
            "the spare was taken"
        );
        assert!(!nav.is_walkable(Cell::new(1, 1)) && search.is_walkable(Cell::new(1, 1)));
        drop(search);
        // A spare made of the grid, which is then edited in place once nothing holds it, is
        // out of date: the next edit while a search holds the grid copies it anew.
        let search = nav.snapshot();
        let (grid, slot) = nav.spare_to_make().expect("held again");
        fill(&slot, grid);
        drop(search);
        assert_eq!(nav.block(Cell::new(2, 2)), Ok(true));
        let search = nav.snapshot();
        assert_eq!(nav.block(Cell::new(3, 3)), Ok(true));
        let blocked = |grid: &Grid| [1, 2, 3].map(|at| !grid.is_walkable(Cell::new(at, at)));
        assert_eq!(blocked(nav.grid()), [true, true, true]);
        assert_eq!(blocked(&search), [true, true, false]);
        // A spare whose copy lands after an edit copied the grid anew is of the grid before
        // that edit: it is never taken.
        let _held = nav.snapshot();
        let (grid, slot) = nav.spare_to_make().expect("held again");
        assert_eq!(nav.block(Cell::new(4, 4)), Ok(true));
        fill(&slot, grid);
        let _search = nav.snapshot();
        assert_eq!(nav.block(Cell::new(5, 5)), Ok(true));
        assert!(!nav.is_walkable(Cell::new(4, 4)) && !nav.is_walkable(Cell::new(5, 5)));
        assert!(
            slot.lock().expect("not poisoned").is_some(),
            "the old copy was left"
        );
        // Small grids are copied by the edit.
        let mut small = NavGrid::new(Grid::new(64, 64));
        let _held = small.snapshot();
        assert!(small.spare_to_make().is_none());
    }
}
