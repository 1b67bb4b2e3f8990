//! Flow fields over a built [`Hierarchy`] ([`SectorFlowField`]): a goal's costs measured a
//! sector at a time, only in the sectors asked about, and shared by every agent walking to it.

mod patch;
mod repair;

use super::local::{Flow, LocalSearch, Rect, StepRules};
use super::walks::{KeptWalks, Passed};
use super::{Hierarchy, HierarchyError, NodeNumbers, SectorFieldView, SectorState};
use crate::movement::DIRECTIONS;
use crate::search::{OpenEntry, OpenList};
use crate::{Cell, Grid, Path, SearchOptions, Searcher};
use std::collections::HashMap;
use std::sync::Arc;

/// One goal's flow field over a built [`Hierarchy`], measured lazily a sector at a time.
///
/// - **What it measures.** The cost from each cell to the goal along the hierarchy: inside the
///   cell's sector to one of its nodes, then over the nodes. A Dijkstra's algorithm backwards
///   from the goal runs over the nodes only as far as the sectors asked about need, and each
///   sector asked about is flooded once from its nodes. Memory grows with the sectors where
///   agents stand, not with the map.
/// - **Following it.** [`SectorFlowField::next_step`] follows the sector's flood to the node
///   where the way leaves it, then steps (or links) on into the next sector: every walk ends
///   at the goal. It costs at most what [`cost_at`] said at its first cell (but for the
///   rounding of the `f32` costs the hierarchy keeps, about one part in ten million), and at
///   most [`HierarchyOptions::detour_per_crossing`] more than optimal for each step of an
///   optimal path from one sector into another, as hierarchical paths do. With links that
///   cost nothing, ties may make a walk by `next_step` alone come round again;
///   [`SectorFlowField::path_from`] notices and finishes by A*.
/// - **Shared.** Any number of agents walking to the goal read the same field. The walks
///   [`path_from`](SectorFlowField::path_from) gives are kept by the nodes they leave sectors
///   from, so that a later walk reaching one of them takes the rest of the earlier walk: a
///   crowd's paths cost the cells up to where they join, not their whole length.
/// - **Edits.** The field belongs to the hierarchy as it was when made: once an edit is marked
///   ([`Hierarchy::cells_changed`]), its methods return [`HierarchyError::Changed`], and a new
///   field is made when the hierarchy is built again. Every step it gives is legal on the grid
///   the hierarchy was told of; a walk taken from a kept one is not stepped again, so a grid
///   changed without telling the hierarchy may be walked as it was.
///
/// [`cost_at`]: SectorFlowField::cost_at
/// [`HierarchyOptions::detour_per_crossing`]: super::HierarchyOptions::detour_per_crossing
///
/// ```
/// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
///
/// let mut grid = Grid::new(64, 64);
/// grid.fill_rect(Cell::new(30, 0), Cell::new(33, 60), 0); // a wall with a gap at the bottom
/// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
/// let goal = Cell::new(60, 2);
/// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
///
/// // An agent at (2, 2) follows the field round the wall.
/// let path = field.path_from(&hierarchy, &grid, Cell::new(2, 2))?.expect("reachable");
/// assert_eq!(path.cells.last(), Some(&goal));
/// assert!(path.cells.iter().any(|cell| cell.y > 60)); // through the gap
/// // Only the sectors it crossed were flooded, not all sixteen.
/// assert!(field.sectors_measured() < hierarchy.sector_count());
/// # Ok::<(), astar_grid::HierarchyError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SectorFlowField {
    goal: Cell,
    /// The hierarchy's revision when the field was made.
    revision: u64,
    numbers: NodeNumbers,
    /// Each node's cost to the goal found so far; final once `settled`.
    to_goal: Vec<f64>,
    /// The node each node's way to the goal goes on to, or [`NO_NODE`] for the goal's sector's
    /// nodes whose way is inside it.
    via: Vec<u32>,
    settled: Vec<bool>,
    open: OpenList,
    /// Per sector, its cells' costs to the goal once measured (shared with the views taken).
    sectors: Vec<Option<Arc<SectorCosts>>>,
    measured: usize,
    /// The sectors the field this one renews had measured ([`SectorFlowField::renewed`]),
    /// each taken when this one measures the sector; empty for a field made new.
    earlier: Vec<Option<Arc<SectorCosts>>>,
    /// The sectors measured by keeping an earlier field's costs instead of flooding.
    reused: usize,
    /// The walks given, for later walks that join them.
    walks: KeptWalks,
    scratch: LocalSearch,
    /// The build of each sector of the hierarchy the field was made over
    /// ([`Hierarchy::build_of`]), for a renewal to tell which were rebuilt since.
    builds: Vec<u64>,
    /// Whether the grid it was made on had links.
    linked: bool,
    /// The nodes whose cost and way a renewal kept from the field it renewed.
    nodes_kept: usize,
    /// Per sector, whether a renewal found every node of it as the field it renewed, which
    /// measured the sector on the same build: its costs are then taken whole. Empty for a field
    /// made new, and for a renewal that searched every node again.
    unchanged: Vec<bool>,
}

/// No node: the goal's own sector.
const NO_NODE: u32 = u32::MAX;

/// Where a cell steps to: inside the sector (local index), or [`LEAVE`] from a node that steps
/// or links on to its next node, or [`ARRIVED`] at the goal and where it cannot be reached.
const LEAVE: u16 = u16::MAX - 1;
const ARRIVED: u16 = u16::MAX;

/// A measured sector: each cell's cost to the goal, `base` plus its offset, kept as `f32`
/// (infinite where the goal cannot be reached; offsets from the sector's cheapest way out keep
/// the rounding far below the price of a step), and the cell it steps to; with what the flood
/// started from, so that a renewed field can tell whether it would flood it alike.
#[derive(Clone, Debug)]
pub(super) struct SectorCosts {
    base: f64,
    offsets: Arc<[f32]>,
    next: Arc<[u16]>,
    /// The build of the sector measured ([`Hierarchy::build_of`]).
    build: u64,
    /// The flood's seeds: the nodes whose way leaves the sector at once (and the goal in its
    /// own sector), each with its cost to the goal.
    seeds: Box<[(Cell, f64)]>,
}

/// How far apart two seeds' changes of cost may be and still count as one shift: far below
/// the rounding of the `f32` offsets a sector keeps.
const SHIFT_TOLERANCE: f64 = 1e-9;

impl SectorCosts {
    /// Whether a flood from `seeds` over the sector as built by `build` would give these
    /// costs shifted by one amount, and the same steps: the same build, the same seed cells,
    /// and every seed's cost changed by the same amount.
    fn floods_alike(&self, build: u64, seeds: &[(Cell, f64)]) -> bool {
        let shift = self
            .seeds
            .first()
            .zip(seeds.first())
            .map_or(0.0, |(before, now)| now.1 - before.1);
        let tolerance = |cost: f64| SHIFT_TOLERANCE * cost.abs().max(1.0);
        self.build == build
            && self.seeds.len() == seeds.len()
            && self.seeds.iter().zip(seeds).all(|(before, now)| {
                before.0 == now.0 && (now.1 - before.1 - shift).abs() <= tolerance(now.1)
            })
    }
}

impl SectorFlowField {
    /// A field towards `goal` over `hierarchy`, every sector of which is built, as of `grid`.
    /// Measures nothing beyond the goal's sector yet.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyError, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(32, 32);
    /// let options = HierarchyOptions::default().with_sector_size(8);
    /// let mut hierarchy = Hierarchy::new(&grid, options)?;
    /// let goal = Cell::new(3, 3);
    /// // Sectors still waiting to be built:
    /// let waiting = SectorFlowField::new(&hierarchy, &grid, goal).err();
    /// assert_eq!(waiting, Some(HierarchyError::NotBuilt(16)));
    /// hierarchy.build_sectors(&grid, usize::MAX)?;
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// assert_eq!(field.cost_at(&hierarchy, &grid, goal)?, Some(0.0));
    /// assert_eq!(field.cost_at(&hierarchy, &grid, Cell::new(7, 3))?, Some(4.0));
    /// assert_eq!(field.sectors_measured(), 1);
    /// # Ok::<(), HierarchyError>(())
    /// ```
    ///
    /// # Errors
    /// - [`HierarchyError::GridSize`] when `grid` is not the size of the hierarchy's grid;
    /// - [`HierarchyError::OffGrid`] for a goal off the grid;
    /// - [`HierarchyError::NotBuilt`] while a sector waits to be built or keeps too many
    ///   nodes (see [`MAX_SECTOR_NODES`](super::MAX_SECTOR_NODES)).
    pub fn new(hierarchy: &Hierarchy, grid: &Grid, goal: Cell) -> Result<Self, HierarchyError> {
        hierarchy.check_grid(grid)?;
        let goal_sector = hierarchy
            .sector_of(goal)
            .ok_or(HierarchyError::OffGrid(goal))?;
        let not_built = hierarchy
            .sectors
            .iter()
            .filter(|sector| sector.state != SectorState::Built)
            .count();
        if not_built > 0 {
            return Err(HierarchyError::NotBuilt(not_built));
        }
        let numbers = NodeNumbers::new(hierarchy);
        let total = numbers.total();
        let mut field = Self {
            goal,
            revision: hierarchy.revision,
            to_goal: vec![f64::INFINITY; total],
            via: vec![NO_NODE; total],
            settled: vec![false; total],
            numbers,
            open: OpenList::default(),
            sectors: vec![None; hierarchy.sectors.len()],
            measured: 0,
            earlier: Vec::new(),
            reused: 0,
            walks: KeptWalks::default(),
            scratch: LocalSearch::default(),
            builds: hierarchy.builds.clone(),
            linked: grid.links.has_steps(),
            nodes_kept: 0,
            unchanged: Vec::new(),
        };
        if grid.is_walkable(goal) {
            field.join_goal(hierarchy, grid, goal_sector);
        }
        Ok(field)
    }

    /// This field's goal again, over `hierarchy` changed since this field was made (edits
    /// marked and the sectors rebuilt): a field as [`SectorFlowField::new`] makes it, which
    /// keeps what this one measured in a sector (or kept from the field it renewed, in the
    /// sectors it did not measure), instead of flooding it again, where the
    /// sector was not rebuilt since and every way out of it changed its cost by the same
    /// amount (as upstream of a tower that every route passed). Its search over the nodes keeps
    /// each node's cost and way where that way crossed no sector rebuilt since, and searches
    /// only the others again, at once ([`SectorFlowField::nodes_kept`]); it runs in full, lazily
    /// as in a new field, where either grid has links, where the goal's sector or one beside it
    /// was rebuilt, and where this field had settled fewer than half its nodes. Costs and steps
    /// are then those of a new field, but for the rounding of the `f32` costs (and ties between
    /// equal ways).
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyError, HierarchyOptions, SectorFlowField};
    ///
    /// let mut grid = Grid::new(64, 16);
    /// let options = HierarchyOptions::default().with_sector_size(8);
    /// let mut hierarchy = Hierarchy::build(&grid, options)?;
    /// let (start, goal) = (Cell::new(1, 8), Cell::new(62, 8));
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// let before = field.path_from(&hierarchy, &grid, start)?.expect("open map");
    /// // A wall on the way, with a gap at the bottom.
    /// grid.fill_rect(Cell::new(30, 0), Cell::new(30, 12), 0);
    /// hierarchy.cells_changed((0..=12).map(|y| Cell::new(30, y)));
    /// hierarchy.build_sectors(&grid, usize::MAX)?;
    /// let mut renewed = field.renewed(&hierarchy, &grid)?;
    /// let after = renewed.path_from(&hierarchy, &grid, start)?.expect("through the gap");
    /// assert!(after.cost > before.cost);
    /// // The sectors past the wall, the goal's among them, were not flooded again.
    /// assert!(renewed.sectors_reused() > 0);
    /// let mut fresh = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// let fresh = fresh.path_from(&hierarchy, &grid, start)?.expect("through the gap");
    /// assert!((fresh.cost - after.cost).abs() < 1e-4);
    /// # Ok::<(), HierarchyError>(())
    /// ```
    ///
    /// # Errors
    /// As [`SectorFlowField::new`].
    pub fn renewed(self, hierarchy: &Hierarchy, grid: &Grid) -> Result<Self, HierarchyError> {
        let mut field = Self::new(hierarchy, grid, self.goal)?;
        field.repair_nodes_from(&self, hierarchy, grid);
        if self.sectors.len() == field.sectors.len() {
            let mut earlier = self.sectors;
            // Sectors this field did not measure again keep what the one before had.
            for (slot, older) in earlier.iter_mut().zip(self.earlier) {
                if slot.is_none() {
                    *slot = older;
                }
            }
            field.earlier = earlier;
        }
        Ok(field)
    }

    /// Drops the walks kept for later walks to join ([`SectorFlowField::path_from`]), and the
    /// memory they held; later walks step their whole way until they are kept again.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(64, 64);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, Cell::new(60, 60))?;
    /// let first = field.path_from(&hierarchy, &grid, Cell::new(1, 1))?;
    /// let held = field.memory_bytes();
    /// field.forget_walks();
    /// assert!(field.memory_bytes() < held);
    /// assert_eq!(field.path_from(&hierarchy, &grid, Cell::new(1, 1))?, first);
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    pub fn forget_walks(&mut self) {
        self.walks = KeptWalks::default();
    }

    /// How many nodes kept the cost and way to the goal that the field this one renews had
    /// found ([`SectorFlowField::renewed`]): those whose way crossed no sector rebuilt since.
    /// The others were searched again from them. 0 for a field
    /// made new, and for a renewal that searched every node again (where either grid has
    /// links, where the goal's sector or one beside it was rebuilt, or where the field renewed
    /// had settled fewer than half its nodes).
    #[must_use]
    pub const fn nodes_kept(&self) -> usize {
        self.nodes_kept
    }

    /// How many of the sectors measured kept the costs of the field this one renews
    /// ([`SectorFlowField::renewed`]) instead of being flooded again.
    #[must_use]
    pub const fn sectors_reused(&self) -> usize {
        self.reused
    }

    /// A copy of what the field has measured, to read from other threads while the field
    /// measures on: [`SectorFieldView`] answers for the cells of the sectors measured so far,
    /// on the grid the field was measured on. Its sectors' costs are shared with the field,
    /// not copied; the nodes' ways are (4 bytes a node).
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(64, 64);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, Cell::new(60, 60))?;
    /// let walked = field.path_from(&hierarchy, &grid, Cell::new(2, 2))?.expect("open map");
    /// let view = field.view(&hierarchy)?;
    /// assert_eq!(view.path_from(&grid, Cell::new(2, 2)), Some(walked));
    /// // A sector no walk crossed is not measured: the view does not answer there.
    /// assert_eq!(view.cost_at(Cell::new(60, 2)), None);
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    ///
    /// # Errors
    /// [`HierarchyError::Changed`] when `hierarchy` is not the one the field was made from, as
    /// it was.
    pub fn view(&self, hierarchy: &Hierarchy) -> Result<SectorFieldView, HierarchyError> {
        if hierarchy.revision != self.revision {
            return Err(HierarchyError::Changed);
        }
        Ok(SectorFieldView::new(
            (self.goal, hierarchy.clone()),
            self.numbers.clone(),
            self.via.as_slice().into(),
            (self.sectors.clone().into_boxed_slice(), self.measured),
        ))
    }

    /// Measures the sectors a walk from a measured cell goes on into, and theirs in turn, so
    /// that every walk from a measured cell crosses measured sectors only and a
    /// [`view`](SectorFlowField::view) answers it whole; on a field that
    /// [renews](SectorFlowField::renewed) another, the sectors that one had measured first,
    /// so that the cells where agents stood before an edit are answered after it. Measures at
    /// most `most` sectors (a flood each), so that a caller can spread the work; returns how
    /// many it measured: fewer than `most` once nothing is left ahead.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(64, 64);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let goal = Cell::new(60, 60);
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// field.cost_at(&hierarchy, &grid, Cell::new(2, 2))?; // measures one far sector only
    /// assert!(field.view(&hierarchy)?.path_from(&grid, Cell::new(2, 2)).is_none());
    /// // Two sectors at a time, until nothing is left ahead.
    /// while field.measure_ahead(&hierarchy, &grid, 2)? == 2 {}
    /// let view = field.view(&hierarchy)?;
    /// let walk = view.path_from(&grid, Cell::new(2, 2)).expect("every sector on the way");
    /// assert_eq!(walk.cells.last(), Some(&goal));
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    ///
    /// # Errors
    /// As [`SectorFlowField::cost_at`].
    pub fn measure_ahead(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &Grid,
        most: usize,
    ) -> Result<usize, HierarchyError> {
        self.check(hierarchy, grid)?;
        let before = self.measured;
        let earlier: Vec<usize> = (0..self.earlier.len())
            .filter(|&sector| self.earlier[sector].is_some() && self.sectors[sector].is_none())
            .take(most)
            .collect();
        for sector in earlier {
            self.measure(hierarchy, grid, sector);
        }
        let mut ahead: Vec<usize> = (0..self.sectors.len())
            .filter(|&sector| self.sectors[sector].is_some())
            .collect();
        while let Some(sector) = ahead.pop() {
            let next: Vec<usize> = self.reading().sectors_after(hierarchy, sector).collect();
            for next in next {
                if self.measured - before == most {
                    return Ok(most);
                }
                if self.sectors[next].is_none() {
                    self.measure(hierarchy, grid, next);
                    ahead.push(next);
                }
            }
        }
        Ok(self.measured - before)
    }

    /// Starts the search over the nodes: the goal's sector's nodes, each at its cost to the
    /// goal inside the sector.
    fn join_goal(&mut self, hierarchy: &Hierarchy, grid: &Grid, sector: usize) {
        let rect = hierarchy.sector_rect_of(sector);
        let nodes = &hierarchy.sectors[sector].nodes;
        let rules = hierarchy.rules();
        self.scratch
            .flood(grid, rules, (rect, self.goal), Flow::Backward, nodes);
        for (local, &node) in nodes.iter().enumerate() {
            if let Some(cost) = self.scratch.settled_cost(node) {
                self.reach(self.numbers.number(sector, local), cost, NO_NODE);
            }
        }
    }

    /// Lowers `node`'s cost to the goal to `cost`, through `via`, unless it is settled: a
    /// node's way is final once settled, so that every walk reads the same one.
    fn reach(&mut self, node: u32, cost: f64, via: u32) {
        if self.settled[node as usize] {
            return;
        }
        let slot = &mut self.to_goal[node as usize];
        if cost < *slot {
            *slot = cost;
            self.via[node as usize] = via;
            self.open.push(OpenEntry::new(cost, cost, node));
        }
    }

    /// The goal.
    #[must_use]
    pub const fn goal(&self) -> Cell {
        self.goal
    }

    /// How many sectors have been measured.
    #[must_use]
    pub const fn sectors_measured(&self) -> usize {
        self.measured
    }

    /// Bytes held: the nodes' costs, the measured sectors (and those of the field it renews
    /// not measured again yet), the walks kept and the scratch memory.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        let sectors: usize = self
            .sectors
            .iter()
            .chain(&self.earlier)
            .flatten()
            .map(|costs| {
                costs.offsets.len() * (size_of::<f32>() + size_of::<u16>())
                    + costs.seeds.len() * size_of::<(Cell, f64)>()
            })
            .sum();
        self.numbers.memory_bytes()
            + self.to_goal.capacity() * size_of::<f64>()
            + self.via.capacity() * size_of::<u32>()
            + self.settled.capacity()
            + (self.sectors.capacity() + self.earlier.capacity())
                * size_of::<Option<Arc<SectorCosts>>>()
            + sectors
            + self.open.memory_bytes()
            + self.walks.memory_bytes()
            + self.scratch.memory_bytes()
            + self.builds.capacity() * size_of::<u64>()
            + self.unchanged.capacity()
    }

    /// The cost from `cell` to the goal along the field, measuring `cell`'s sector first if
    /// it is not yet; `None` when the goal cannot be reached from it (or it is blocked, or off
    /// the grid).
    ///
    /// # Errors
    /// [`HierarchyError::Changed`] when `hierarchy` is not the one the field was made from, as
    /// it was; [`HierarchyError::GridSize`] for a grid of another size.
    pub fn cost_at(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &Grid,
        cell: Cell,
    ) -> Result<Option<f64>, HierarchyError> {
        self.check(hierarchy, grid)?;
        Ok(self.measured_cost(hierarchy, grid, cell))
    }

    /// The cell to step onto from `cell` towards the goal: a neighbour, or the far end of an
    /// open link. `None` at the goal, where it cannot be reached, and where the grid no longer
    /// allows the step (it changed without the hierarchy being told). Measures `cell`'s sector
    /// if it is not yet.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(32, 32);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let goal = Cell::new(20, 20);
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// assert_eq!(field.next_step(&hierarchy, &grid, Cell::new(19, 19))?, Some(goal));
    /// assert_eq!(field.next_step(&hierarchy, &grid, goal)?, None);
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    ///
    /// # Errors
    /// As [`SectorFlowField::cost_at`].
    pub fn next_step(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &Grid,
        cell: Cell,
    ) -> Result<Option<Cell>, HierarchyError> {
        self.check(hierarchy, grid)?;
        Ok(self.step_from(hierarchy, grid, cell).map(|(next, ..)| next))
    }

    /// The cells from `cell` to the goal along [`SectorFlowField::next_step`], and what their
    /// steps cost; `None` when the goal cannot be reached from `cell`. A walk that reaches a
    /// node an earlier walk left its sector from takes the rest of that walk, the cells its
    /// steps would give, without stepping them.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(64, 64);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let goal = Cell::new(60, 60);
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// let first = field.path_from(&hierarchy, &grid, Cell::new(2, 2))?.expect("open map");
    /// let second = field.path_from(&hierarchy, &grid, Cell::new(2, 3))?.expect("open map");
    /// assert_eq!(second.cells.last(), Some(&goal));
    /// // A field that gave no walk before gives the same one.
    /// let mut new = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// let alone = new.path_from(&hierarchy, &grid, Cell::new(2, 3))?.expect("open map");
    /// assert_eq!(second.cells, alone.cells);
    /// assert!((second.cost - alone.cost).abs() < 1e-9);
    /// assert!(first.cost > 0.0);
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    ///
    /// # Errors
    /// As [`SectorFlowField::cost_at`].
    pub fn path_from(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &Grid,
        cell: Cell,
    ) -> Result<Option<Path>, HierarchyError> {
        self.check(hierarchy, grid)?;
        if self.measured_cost(hierarchy, grid, cell).is_none() {
            return Ok(None);
        }
        let mut path = Path {
            cells: vec![cell],
            cost: 0.0,
        };
        let mut rounds = ComingRound::new(cell);
        let most = grid.width() as usize * grid.height() as usize;
        let mut passed: Vec<Passed> = Vec::new();
        let mut joined = None;
        let mut at = cell;
        while at != self.goal {
            if path.cells.len() > most {
                // Steps that cost something lower the cost left, so this cannot happen.
                let last = path.cells.len() - 1;
                return Ok(finish_by_search((hierarchy, grid), self.goal, path, last));
            }
            let Some((next, step, leaving)) = self.step_from(hierarchy, grid, at) else {
                // The grid changed without the hierarchy being told: no way on from here.
                return Ok(None);
            };
            if let Some(node) = leaving {
                if let Some(mark) = self.walks.mark(node) {
                    joined = Some((path.cells.len() - 1, mark));
                    self.walks.append_rest(mark, &mut path.cells);
                    path.cost += mark.cost_left();
                    break;
                }
                passed.push((node, path.cells.len() - 1, path.cost));
            }
            if let Some(first) = rounds.came_round(next, step, path.cells.len()) {
                return Ok(finish_by_search((hierarchy, grid), self.goal, path, first));
            }
            path.cells.push(next);
            path.cost += step;
            at = next;
        }
        // The walks kept hold at most as many cells as the sectors measured.
        let side = hierarchy.options().sector_size as usize;
        let room = self.measured.saturating_mul(side.saturating_mul(side));
        self.walks
            .keep(&path.cells, (&passed, path.cost), joined, room);
        Ok(Some(path))
    }

    fn check(&self, hierarchy: &Hierarchy, grid: &Grid) -> Result<(), HierarchyError> {
        hierarchy.check_grid(grid)?;
        if hierarchy.revision == self.revision {
            Ok(())
        } else {
            Err(HierarchyError::Changed)
        }
    }

    /// The next step from `cell` and its cost: along the sector's flood towards the way out
    /// of it, then along the search over the nodes; with the number of `cell`'s node when the
    /// step leaves the sector from it. `None` at the goal, where it cannot be reached, and
    /// where the step is not legal on `grid`.
    fn step_from(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &Grid,
        cell: Cell,
    ) -> Option<(Cell, f64, Option<u32>)> {
        let sector = self.measured_sector(hierarchy, grid, cell)?;
        self.reading().step_in(hierarchy, grid, sector, cell)
    }

    /// What reading the measured sectors needs.
    fn reading(&self) -> Measured<'_> {
        Measured {
            numbers: &self.numbers,
            via: &self.via,
            sectors: &self.sectors,
        }
    }

    /// The cost of `cell`, measuring its sector first if need be.
    fn measured_cost(&mut self, hierarchy: &Hierarchy, grid: &Grid, cell: Cell) -> Option<f64> {
        self.measured_sector(hierarchy, grid, cell)?;
        self.reading().cost(hierarchy, cell)
    }

    /// The number of `cell`'s sector, measured first if it is not yet; `None` off the grid.
    fn measured_sector(&mut self, hierarchy: &Hierarchy, grid: &Grid, cell: Cell) -> Option<usize> {
        let sector = hierarchy.sector_of(cell)?;
        if self.sectors[sector].is_none() {
            self.measure(hierarchy, grid, sector);
        }
        Some(sector)
    }

    /// Settles `sector`'s nodes, then floods the sector backwards from the ways out of it:
    /// each node whose way to the goal leaves the sector at once, at its cost to the goal,
    /// and the goal in its own sector. The other nodes' ways run inside the sector, and the
    /// flood finds them.
    fn measure(&mut self, hierarchy: &Hierarchy, grid: &Grid, sector: usize) {
        self.settle_nodes_of(hierarchy, grid, sector);
        if self.unchanged.get(sector) == Some(&true)
            && let Some(earlier) = self.earlier.get_mut(sector).and_then(Option::take)
        {
            self.reused += 1;
            self.sectors[sector] = Some(earlier);
            self.measured += 1;
            return;
        }
        let rect: Rect = hierarchy.sector_rect_of(sector);
        let nodes = &hierarchy.sectors[sector].nodes;
        let leaves = |node: u32| {
            let via = self.via[node as usize];
            via != NO_NODE && self.numbers.locate(via).0 != sector
        };
        let mut seeds: Vec<(Cell, f64)> = self
            .numbers
            .of_sector(sector)
            .zip(nodes)
            .filter(|&(node, _)| self.to_goal[node as usize].is_finite() && leaves(node))
            .map(|(node, &cell)| (cell, self.to_goal[node as usize]))
            .collect();
        if hierarchy.sector_of(self.goal) == Some(sector) && grid.is_walkable(self.goal) {
            seeds.push((self.goal, 0.0));
        }
        let base = flood_base(&seeds);
        let build = hierarchy.build_of(sector);
        let earlier = self.earlier.get_mut(sector).and_then(Option::take);
        let (offsets, next) = match earlier.filter(|e| e.floods_alike(build, &seeds)) {
            Some(earlier) => {
                self.reused += 1;
                (Arc::clone(&earlier.offsets), Arc::clone(&earlier.next))
            }
            None => flood_sector(
                &mut self.scratch,
                (grid, hierarchy.rules(), self.goal),
                (rect, &seeds),
                base,
            ),
        };
        self.sectors[sector] = Some(Arc::new(SectorCosts {
            base,
            offsets,
            next,
            build,
            seeds: seeds.into_boxed_slice(),
        }));
        self.measured += 1;
    }

    /// Runs the search over the nodes, backwards from the goal, until every node of `sector`
    /// is settled or no node is left to settle.
    fn settle_nodes_of(&mut self, hierarchy: &Hierarchy, grid: &Grid, sector: usize) {
        let mut left = self
            .numbers
            .of_sector(sector)
            .filter(|&node| !self.settled[node as usize])
            .count();
        while left > 0 {
            let Some(entry) = self.open.pop() else {
                return;
            };
            let node = entry.id();
            if core::mem::replace(&mut self.settled[node as usize], true) {
                continue;
            }
            let (at_sector, local) = self.numbers.locate(node);
            if at_sector == sector {
                left -= 1;
            }
            let cost = self.to_goal[node as usize];
            self.relax_into(hierarchy, grid, (at_sector, local), cost);
        }
    }

    /// Lowers the cost of each node one edge before node `local` of `sector` (whose cost to the
    /// goal is `cost`): the sector's other nodes, and the nodes of other sectors that step or
    /// link into it.
    fn relax_into(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &Grid,
        (sector, local): (usize, usize),
        cost: f64,
    ) {
        let entry = &hierarchy.sectors[sector];
        let count = entry.nodes.len();
        let node = self.numbers.number(sector, local);
        for other in 0..count {
            let edge = entry.costs[other * count + local];
            if other != local && super::is_edge(edge) {
                self.reach(
                    self.numbers.number(sector, other),
                    cost + f64::from(edge),
                    node,
                );
            }
        }
        let cell = entry.nodes[local];
        let rect = hierarchy.sector_rect_of(sector);
        let rules = hierarchy.rules();
        let index = grid.index(cell);
        for &(dx, dy) in &DIRECTIONS[..rules.directions()] {
            let Some(before) = cell.offset(dx, dy) else {
                continue;
            };
            if rect.contains(before) || !grid.is_walkable(before) {
                continue;
            }
            // Steps are symmetric in legality: the step back from `cell` tells.
            if rules.walk(grid, index, (dx, dy)).is_some()
                && let Some(before_node) = self.numbers.node_at(hierarchy, before)
            {
                let step = rules.base((dx, dy)) * f64::from(grid.value(cell));
                self.reach(before_node, cost + step, node);
            }
        }
        if grid.links.has_steps() {
            for step in grid.links.steps_to(index) {
                let before = grid.cell_at(step.from as usize);
                if !rect.contains(before)
                    && grid.is_walkable(before)
                    && let Some(before_node) = self.numbers.node_at(hierarchy, before)
                {
                    self.reach(before_node, cost + step.cost, node);
                }
            }
        }
    }
}

/// The cost a sector's offsets count from: its cheapest seed's (0 without a seed that reaches
/// the goal).
fn flood_base(seeds: &[(Cell, f64)]) -> f64 {
    let base = seeds
        .iter()
        .map(|&(_, cost)| cost)
        .fold(f64::INFINITY, f64::min);
    if base.is_finite() { base } else { 0.0 }
}

/// Floods the sector `rect` of `grid` backwards from `seeds` with `rules`, by `scratch`: each
/// cell's cost to the goal (`goal`, when it lies in the sector, is where walks arrive) as an
/// offset from `base`, and the cell it steps to: inside the sector, [`LEAVE`] at a seed, or
/// [`ARRIVED`] at the goal and where no seed is reached.
fn flood_sector(
    scratch: &mut LocalSearch,
    (grid, rules, goal): (&Grid, StepRules, Cell),
    (rect, seeds): (Rect, &[(Cell, f64)]),
    base: f64,
) -> (Arc<[f32]>, Arc<[u16]>) {
    scratch.flood_seeded(grid, rules, (rect, seeds), Flow::Backward, &[]);
    let mut offsets = Vec::with_capacity(rect.len());
    let mut next = Vec::with_capacity(rect.len());
    for local in 0..rect.len() {
        let cell = rect.cell(local);
        let Some(cost) = scratch.settled_cost(cell) else {
            offsets.push(f32::INFINITY);
            next.push(ARRIVED);
            continue;
        };
        offsets.push((cost - base) as f32);
        next.push(match scratch.settled_parent(cell) {
            Some(parent) => rect.local(parent) as u16,
            None if cell == goal => ARRIVED,
            None => LEAVE,
        });
    }
    (offsets.into(), next.into())
}

/// A field's measured sectors and its nodes' ways, as reading them needs: the field's own, or
/// a view's copy ([`SectorFieldView`](super::SectorFieldView)).
pub(super) struct Measured<'a> {
    pub(super) numbers: &'a NodeNumbers,
    pub(super) via: &'a [u32],
    pub(super) sectors: &'a [Option<Arc<SectorCosts>>],
}

impl Measured<'_> {
    /// `cell`'s sector if it is measured: its number, its costs, and `cell`'s index among its
    /// cells.
    pub(super) fn sector(
        &self,
        hierarchy: &Hierarchy,
        cell: Cell,
    ) -> Option<(usize, &SectorCosts, usize)> {
        let sector = hierarchy.sector_of(cell)?;
        let costs = self.sectors.get(sector)?.as_deref()?;
        Some((sector, costs, hierarchy.sector_rect_of(sector).local(cell)))
    }

    /// The cost from `cell` to the goal where its sector is measured; `None` where it is not,
    /// and where the goal cannot be reached.
    pub(super) fn cost(&self, hierarchy: &Hierarchy, cell: Cell) -> Option<f64> {
        let (_, costs, local) = self.sector(hierarchy, cell)?;
        let offset = *costs.offsets.get(local)?;
        offset.is_finite().then(|| costs.base + f64::from(offset))
    }

    /// The next step from `cell` of the measured `sector` and its cost: along the sector's
    /// flood towards the way out of it, then along the search over the nodes; with the number
    /// of `cell`'s node when the step leaves the sector from it. `None` at the goal, where it
    /// cannot be reached, where the sector is not measured, and where the step is not legal
    /// on `grid`.
    pub(super) fn step_in(
        &self,
        hierarchy: &Hierarchy,
        grid: &Grid,
        sector: usize,
        cell: Cell,
    ) -> Option<(Cell, f64, Option<u32>)> {
        let (next, leaving) = self.next_in(hierarchy, sector, cell)?;
        let rules = hierarchy.rules();
        step_cost(grid, rules, cell, next).map(|cost| (next, cost, leaving))
    }

    /// The next step from `cell` of the measured `sector` as measured, not checked against a
    /// grid: with the number of `cell`'s node when the step leaves the sector from it. `None`
    /// at the goal, where it cannot be reached, and where the sector is not measured.
    pub(super) fn next_in(
        &self,
        hierarchy: &Hierarchy,
        sector: usize,
        cell: Cell,
    ) -> Option<(Cell, Option<u32>)> {
        let costs = self.sectors.get(sector)?.as_deref()?;
        let rect = hierarchy.sector_rect_of(sector);
        match *costs.next.get(rect.local(cell))? {
            ARRIVED => None,
            LEAVE => {
                let (node, (to_sector, to_local)) = self.way_out(hierarchy, sector, cell)?;
                let next = *hierarchy.sectors.get(to_sector)?.nodes.get(to_local)?;
                Some((next, Some(node)))
            }
            inside => Some((rect.cell(usize::from(inside)), None)),
        }
    }

    /// Where the way to the goal from `cell`, a node of `sector`, goes on to over the nodes:
    /// the node's number, and the sector and index of the node its way goes on to; `None` for
    /// a cell that is no node, and for a node whose way stays in the goal's sector.
    fn way_out(
        &self,
        hierarchy: &Hierarchy,
        sector: usize,
        cell: Cell,
    ) -> Option<(u32, (usize, usize))> {
        let node = self
            .numbers
            .number(sector, hierarchy.node_index(sector, cell)?);
        let via = *self.via.get(node as usize)?;
        (via != NO_NODE).then(|| (node, self.numbers.locate(via)))
    }

    /// The sectors a walk from a cell of the measured `sector` leaves it for: where each of its
    /// ways out goes on to (none from the goal's own sector's goal).
    pub(super) fn sectors_after<'h>(
        &'h self,
        hierarchy: &'h Hierarchy,
        sector: usize,
    ) -> impl Iterator<Item = usize> + 'h {
        let seeds = self
            .sectors
            .get(sector)
            .and_then(Option::as_deref)
            .map_or(&[][..], |costs| &costs.seeds[..]);
        seeds.iter().filter_map(move |&(cell, _)| {
            let (_, (to_sector, _)) = self.way_out(hierarchy, sector, cell)?;
            Some(to_sector)
        })
    }
}

/// Tells when a walk along steps that cost nothing (links, which can tie in ways that circle)
/// comes round again: the cells walked since the last step that cost something, by their
/// index in the walk, kept only along runs of such steps.
pub(super) struct ComingRound {
    since_cost: HashMap<Cell, usize>,
    /// Where the run of steps that cost nothing would begin, and its index.
    run_start: (Cell, usize),
}

impl ComingRound {
    /// For a walk from `cell`.
    pub(super) fn new(cell: Cell) -> Self {
        Self {
            since_cost: HashMap::new(),
            run_start: (cell, 0),
        }
    }

    /// Notes the walk's step onto `next`, its cell at `index`, costing `step`: the index of
    /// the walk's cell `next` when the walk came round to it.
    pub(super) fn came_round(&mut self, next: Cell, step: f64, index: usize) -> Option<usize> {
        if step > 0.0 {
            if !self.since_cost.is_empty() {
                self.since_cost.clear();
            }
            self.run_start = (next, index);
            return None;
        }
        if self.since_cost.is_empty() {
            self.since_cost.insert(self.run_start.0, self.run_start.1);
        }
        if let Some(&first) = self.since_cost.get(&next) {
            return Some(first);
        }
        self.since_cost.insert(next, index);
        None
    }
}

/// `path` cut back to its cell at `keep` (where a walk along zero-cost steps came round
/// again), then finished by A* on `grid` to `goal`; `None` when it finds no way.
pub(super) fn finish_by_search(
    (hierarchy, grid): (&Hierarchy, &Grid),
    goal: Cell,
    mut path: Path,
    keep: usize,
) -> Option<Path> {
    let rules = hierarchy.rules();
    path.cells.truncate(keep + 1);
    path.cost = path
        .cells
        .windows(2)
        .map(|pair| step_cost(grid, rules, pair[0], pair[1]).unwrap_or(f64::INFINITY))
        .sum();
    let options = SearchOptions {
        movement: rules.movement,
        cost: rules.cost,
        ..SearchOptions::default()
    };
    let from = *path.cells.last()?;
    let rest = Searcher::new().find_path(grid, from, goal, &options).ok()?;
    let rest = rest.found()?;
    path.cells.extend(rest.cells.iter().skip(1));
    path.cost += rest.cost;
    Some(path)
}

/// The cheapest legal way from `from` to `to` in one move ([`Grid::step_cost`]: a step of the
/// movement, or an open link) onto a walkable cell; `None` when there is none.
fn step_cost(grid: &Grid, rules: StepRules, from: Cell, to: Cell) -> Option<f64> {
    grid.step_cost(from, to, rules.movement, rules.cost)
        .filter(|_| grid.is_walkable(to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::HierarchyOptions;

    #[test]
    fn a_walk_is_kept_from_its_first_node_and_one_that_joins_at_once_keeps_nothing() {
        let grid = Grid::new(64, 64);
        let options = HierarchyOptions::default().with_sector_size(8);
        let hierarchy = Hierarchy::build(&grid, options).expect("valid options");
        let mut field = SectorFlowField::new(&hierarchy, &grid, Cell::new(60, 60)).expect("built");
        let walk = |field: &mut SectorFlowField, from: Cell| {
            let path = field.path_from(&hierarchy, &grid, from).expect("current");
            path.expect("open map").cells
        };
        let first = walk(&mut field, Cell::new(1, 1));
        let (walks, cells) = field.walks.counts();
        assert_eq!(walks, 1);
        assert!(
            cells > 0 && cells < first.len(),
            "{cells} of {} kept",
            first.len()
        );
        // The same walk again joins at its first node: nothing of its own to keep.
        assert_eq!(walk(&mut field, Cell::new(1, 1)), first);
        assert_eq!(field.walks.counts(), (1, cells));
        // A walk from another sector keeps its own part.
        walk(&mut field, Cell::new(1, 40));
        assert_eq!(field.walks.counts().0, 2);
    }
}
