//! A sector hierarchy for huge maps ([`Hierarchy`]): the grid cut into square sectors, the
//! entrances between them and the exact costs between the entrances of each sector, kept
//! current under edits and built a slice at a time; [`HierarchySearcher`] searches it.

mod blocks;
mod bounds;
mod entrances;
mod exact;
mod field;
mod first_cells;
mod landmarks;
mod local;
mod reach;
mod rebuild;
mod search;
mod view;
mod walks;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use blocks::{Block, BlockFlood};
use bounds::SideBounds;
use landmarks::Landmarks;
use local::{LocalSearch, Rect, StepRules};

pub use field::SectorFlowField;
pub use first_cells::QuickFirstCells;
pub use search::{HierarchyRoute, HierarchySearcher};
pub use view::SectorFieldView;

use crate::{Cell, CostModel, Grid, Movement, Neighborhood};

/// The most nodes a sector ever keeps. A sector keeps at most
/// `4 * (sector_size / 2 + sector_size / entrance_spacing + 2) + 8` nodes (room for a gap at
/// every other cell of each side), and never more than this: one with more (a sector that many
/// links leave) is searched cell by cell instead, like a sector not built yet.
pub const MAX_SECTOR_NODES: usize = 255;

/// The largest sector side.
pub const MAX_SECTOR_SIZE: u32 = 128;

/// How a [`Hierarchy`] cuts its grid, and the movement and costs its searches follow.
///
/// ```
/// use astar_grid::{CostModel, HierarchyOptions, Movement};
///
/// let options = HierarchyOptions::default().with_sector_size(16).with_entrance_spacing(4);
/// assert_eq!((options.sector_size, options.entrance_spacing), (16, 4));
/// assert_eq!((options.movement, options.cost), (Movement::EIGHT, CostModel::Octile));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HierarchyOptions {
    /// The side of a square sector, in cells: 2 to [`MAX_SECTOR_SIZE`]. Default 64.
    pub sector_size: u32,
    /// Along each stretch of border that a path may cross, an entrance at both ends and at
    /// every this many cells from the first: at least 1. Smaller spacing gives paths closer
    /// to optimal and more nodes to search. Default 16.
    pub entrance_spacing: u32,
    /// Neighbourhood and corner rule. Default the Moving AI rule ([`Movement::EIGHT`]).
    pub movement: Movement,
    /// Step costs. Default [`CostModel::Octile`].
    pub cost: CostModel,
    /// Landmarks whose distances to every node guide the searches once every sector is built
    /// ([`Hierarchy::prepare_landmarks`]); 0 for none. Each costs 4 bytes a node. Default 12.
    pub landmarks: u8,
    /// Whether each sector also keeps the least costs between its sides, which
    /// [`HierarchySearcher::find_exact_path`] needs: four more floods per sector built and
    /// about 100 bytes a sector. Default `false`.
    pub exact_bounds: bool,
    /// The side of a block, in sectors: a square of sectors that route searches cross in one
    /// edge, between the nodes on its border ([`Hierarchy::built_blocks`]); below 2 for none.
    /// On a 4096 x 4096 city, blocks of 4 x 4 sectors search routes over a third of the nodes
    /// (at the same costs), and cost half a byte a cell and about 20 ms more to rebuild after
    /// an edit (a search over the block's sectors' nodes from each of its border nodes).
    /// Default 0: none.
    pub block_sectors: u32,
}

impl Default for HierarchyOptions {
    fn default() -> Self {
        Self {
            sector_size: 64,
            entrance_spacing: 16,
            movement: Movement::EIGHT,
            cost: CostModel::Octile,
            landmarks: 12,
            exact_bounds: false,
            block_sectors: 0,
        }
    }
}

impl HierarchyOptions {
    /// These options with sectors `size` cells wide.
    #[must_use]
    pub const fn with_sector_size(mut self, size: u32) -> Self {
        self.sector_size = size;
        self
    }

    /// These options with entrances every `spacing` cells.
    #[must_use]
    pub const fn with_entrance_spacing(mut self, spacing: u32) -> Self {
        self.entrance_spacing = spacing;
        self
    }

    /// These options with `movement`.
    #[must_use]
    pub const fn with_movement(mut self, movement: Movement) -> Self {
        self.movement = movement;
        self
    }

    /// These options with `cost`.
    #[must_use]
    pub const fn with_cost(mut self, cost: CostModel) -> Self {
        self.cost = cost;
        self
    }

    /// These options with `count` landmarks.
    #[must_use]
    pub const fn with_landmarks(mut self, count: u8) -> Self {
        self.landmarks = count;
        self
    }

    /// These options keeping the sides' least costs for exact searches, or not
    /// ([`HierarchyOptions::exact_bounds`]).
    #[must_use]
    pub const fn with_exact_bounds(mut self, keep: bool) -> Self {
        self.exact_bounds = keep;
        self
    }

    /// These options with blocks `sectors` sectors wide, or none below 2
    /// ([`HierarchyOptions::block_sectors`]).
    #[must_use]
    pub const fn with_block_sectors(mut self, sectors: u32) -> Self {
        self.block_sectors = sectors;
        self
    }

    /// The most a hierarchical path may cost beyond an optimal one, for each step of that
    /// optimal path from one sector into another, on a grid whose dearest terrain multiplier is
    /// `max_terrain`: `(4h + 2)` straight steps on that terrain, where `h` is half the entrance
    /// spacing, rounded down.
    ///
    /// Why: where an optimal path crosses a border, the nearest entrance of the same stretch
    /// lies at most `h` cells along it. Walking there along one side, crossing, and walking
    /// back along the other adds at most `2h + 1` straight steps. A diagonal crossing becomes
    /// a straight one and one step more, and a crossing at a sector's corner two straight
    /// crossings, hence `4h + 2`. Between crossings the path stays in one sector, where the
    /// hierarchy's costs are exact. Link steps and diagonals squeezed between walls are nodes
    /// of their own and cost nothing extra.
    ///
    /// ```
    /// use astar_grid::HierarchyOptions;
    ///
    /// let options = HierarchyOptions::default().with_entrance_spacing(4);
    /// assert_eq!(options.detour_per_crossing(1), 10.0); // h = 2: (4 * 2 + 2) steps of cost 1
    /// ```
    #[must_use]
    pub fn detour_per_crossing(&self, max_terrain: u8) -> f64 {
        let half = f64::from(self.entrance_spacing / 2);
        (4.0 * half + 2.0) * self.cost.straight() * f64::from(max_terrain)
    }

    /// The most nodes one sector keeps (see [`MAX_SECTOR_NODES`]).
    fn node_capacity(&self) -> usize {
        let per_side =
            (self.sector_size / 2 + self.sector_size / self.entrance_spacing + 2) as usize;
        (4 * per_side + 8).min(MAX_SECTOR_NODES)
    }

    fn check(&self) -> Result<(), HierarchyError> {
        if !(2..=MAX_SECTOR_SIZE).contains(&self.sector_size) {
            return Err(HierarchyError::SectorSize(self.sector_size));
        }
        if self.entrance_spacing == 0 {
            return Err(HierarchyError::EntranceSpacing);
        }
        if !self.cost.is_valid() {
            return Err(HierarchyError::InvalidCostModel);
        }
        if self.movement.neighborhood == Neighborhood::Hex {
            return Err(HierarchyError::HexGrid);
        }
        Ok(())
    }
}

/// Why a hierarchy could not be made, or used with a grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    /// The sector side is outside 2 to [`MAX_SECTOR_SIZE`].
    #[error("sector size {0} is outside 2 to {MAX_SECTOR_SIZE}")]
    SectorSize(u32),
    /// The entrance spacing is 0.
    #[error("the entrance spacing must be at least 1")]
    EntranceSpacing,
    /// An integer cost model has a zero cost.
    #[error("invalid cost model: step costs must be positive")]
    InvalidCostModel,
    /// The movement is [`Neighborhood::Hex`]: sectors and their entrances are laid out for
    /// square grids. Search a hexagonal grid with [`crate::Searcher`].
    #[error("the sector hierarchy serves square grids, not hexagonal ones")]
    HexGrid,
    /// A sector flow field needs every sector built and kept by its nodes; this many are not
    /// (waiting to be built, or with more nodes than a sector keeps).
    #[error("{0} sectors are not built")]
    NotBuilt(usize),
    /// A cell given is off the grid.
    #[error("cell {0} is off the grid")]
    OffGrid(Cell),
    /// The hierarchy changed (an edit was marked, or it is another hierarchy) since the sector
    /// flow field was made from it: make a new field.
    #[error("the hierarchy changed since the flow field was made")]
    Changed,
    /// The grid is not the size the hierarchy was made for.
    #[error("the grid is {found:?}, the hierarchy was made for {expected:?}")]
    GridSize {
        /// The hierarchy's grid size.
        expected: (u32, u32),
        /// The size of the grid given.
        found: (u32, u32),
    },
}

/// Where a sector stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SectorState {
    /// Not built since it was made or last edited: searched cell by cell.
    Pending,
    /// Its nodes and costs are those of the grid as it is.
    Built,
    /// More nodes than a sector keeps (see [`MAX_SECTOR_NODES`]): searched cell by cell.
    Exact,
}

#[derive(Clone, Debug, PartialEq)]
struct Sector {
    state: SectorState,
    /// Whether a link, open or closed, had an end inside it when it was built.
    linked: bool,
    /// Its node cells, sorted by row, then column.
    nodes: Vec<Cell>,
    /// Row `i` holds the cheapest cost inside the sector from node `i` to each node: infinite
    /// when there is no way inside it, and negated when a way through a third node costs as
    /// much (see [`pruned_costs`]; [`is_edge`] tells the edges searches relax).
    costs: Vec<f32>,
    /// The steps from its nodes into other sectors: entry `k` of node `i`'s is the terrain
    /// value of the cell node `i` steps onto by [`DIRECTIONS`]`[k]` out of the sector, or 0
    /// where the movement allows no such step. Links are read from the grid. Kept current by
    /// the marking of edits, which marks the sectors on both sides of a border.
    exits: Vec<[u8; 8]>,
    /// Its least costs between sides, for exact searches; `None` while it waits, and when the
    /// options do not keep them.
    sides: Option<Box<SideBounds>>,
}

impl Sector {
    /// A sector that keeps no nodes, in `state`.
    const fn empty(state: SectorState) -> Self {
        Self {
            state,
            linked: false,
            nodes: Vec::new(),
            costs: Vec::new(),
            exits: Vec::new(),
            sides: None,
        }
    }

    /// Bytes held: the shared allocation's two counts, the sector and what it points to.
    fn memory_bytes(&self) -> usize {
        2 * size_of::<usize>()
            + size_of::<Self>()
            + self.sides.as_ref().map_or(0, |_| size_of::<SideBounds>())
            + self.nodes.capacity() * size_of::<Cell>()
            + self.costs.capacity() * size_of::<f32>()
            + self.exits.capacity() * size_of::<[u8; 8]>()
    }

    /// The steps from node `local` into other sectors under `rules`: the cell each reaches
    /// and what it costs.
    fn exits_of(&self, local: usize, rules: StepRules) -> impl Iterator<Item = (Cell, f64)> {
        rules.steps_of(self.nodes[local], self.exits[local])
    }

    /// The edges searches relax from node `local` to the other nodes of the sector: each
    /// node's index and the edge's cost (see [`is_edge`]).
    fn edges_from(&self, local: usize) -> impl Iterator<Item = (usize, f64)> {
        costs_from(&self.costs, self.nodes.len(), local)
    }
}

/// The edges searches relax from node `from` of a `count` x `count` matrix of costs kept as
/// [`pruned_costs`] keeps them: each other node's index and the edge's cost.
fn costs_from(costs: &[f32], count: usize, from: usize) -> impl Iterator<Item = (usize, f64)> {
    costs[from * count..][..count]
        .iter()
        .enumerate()
        .filter(move |&(other, &cost)| other != from && is_edge(cost))
        .map(|(other, &cost)| (other, f64::from(cost)))
}

/// Relative slack when comparing a kept cost with a sum of two: each is the exact cost rounded
/// to `f32` (a relative error of at most 2^-24), so ways of equal cost differ by a few parts
/// in a hundred million.
const SUM_SLACK: f64 = 1e-6;

/// Whether `cost`, as a sector keeps it, is an edge that searches relax: finite, and not left
/// out (negated) because a way through a third node matches it (see [`pruned_costs`]).
#[inline]
fn is_edge(cost: f32) -> bool {
    (0.0..f32::INFINITY).contains(&cost)
}

/// The `count` x `count` matrix of exact costs `exact` as kept, without the edges that a way
/// through a third node matches: such an edge is kept negated, so that its cost stays known
/// (a rebuild after an edit reuses it) and searches skip it ([`is_edge`]).
///
/// The edge from `i` to `j` is left out when some node `k` has
/// `cost(i, k) + cost(k, j) <= cost(i, j)` (within [`SUM_SLACK`]), with both parts strictly
/// cheaper than the edge. Every edge left out is then matched by a way through edges strictly
/// cheaper than itself, so by induction on cost each is matched by edges kept, and distances
/// over the kept edges are those over all of them (within the slack). On open ground most of
/// a sector's edges go: far fewer for a search to relax.
fn pruned_costs(exact: &[f32], count: usize) -> Vec<f32> {
    let mut kept = Vec::with_capacity(exact.len());
    for i in 0..count {
        for j in 0..count {
            let edge = exact[i * count + j];
            let matched = i != j
                && edge.is_finite()
                && (0..count).any(|k| {
                    let (first, second) = (exact[i * count + k], exact[k * count + j]);
                    k != i
                        && k != j
                        && first < edge
                        && second < edge
                        && f64::from(first) + f64::from(second)
                            <= f64::from(edge) * (1.0 + SUM_SLACK)
                });
            kept.push(if matched { -edge } else { edge });
        }
    }
    kept
}

/// A grid cut into square sectors, with the nodes where paths enter and leave each sector and
/// the exact cost, inside the sector, between each two of its nodes.
///
/// - **Nodes** are entrances on the borders between sectors (see
///   [`HierarchyOptions::entrance_spacing`]), the gaps that diagonals may squeeze through, and
///   the ends of links that leave the sector.
/// - **Built in slices.** [`Hierarchy::new`] builds nothing; [`Hierarchy::build_sectors`]
///   builds a number of sectors at a time, and [`Hierarchy::build`] all of them. A sector not
///   built yet is searched cell by cell, so the hierarchy answers correctly from the start and
///   faster as it fills.
/// - **Kept current.** [`Hierarchy::cells_changed`] takes the cells an edit changed (and both
///   ends of each link added, removed, opened or closed) and marks for rebuilding each sector
///   whose nodes or costs could depend on them: the sectors of the cells and of their eight
///   neighbours. A marked sector remembers the cells, and its rebuild floods again only the
///   costs a way past them could change. Rebuilt, it is equal to one built fresh
///   ([`PartialEq`]).
/// - **Landmarks.** Once every sector is built, the distances from a few landmarks to every
///   node ([`Hierarchy::prepare_landmarks`]) give searches a far better estimate than the
///   straight line on maps whose walls force detours. Where every step costs the same both
///   ways (no terrain costs, no open link), each landmark bounds the way from both sides
///   (towards it and away from it). An edit drops them until the hierarchy is rebuilt.
/// - **Blocks** (opt in, [`HierarchyOptions::block_sectors`]). A square of sectors keeps the
///   nodes on its border and the cheapest costs between them inside it, so that a route
///   search crosses it in one edge, at the same costs, and refines that edge into its
///   sectors' nodes when the route gets there. A block is built with its last sector, and an
///   edit drops the blocks of the sectors it marks until they are rebuilt.
/// - **Memory.** Per sector, its node cells, a matrix of `f32` costs and its nodes' steps into
///   the sectors around (8 bytes a node); with the landmarks, about 0.96 bytes a cell on
///   4096 x 4096 city-like maps with the defaults, and 1.5 with blocks of 4 x 4 sectors
///   ([`Hierarchy::memory_bytes`]).
/// - **Copies share.** A clone shares every sector (and the landmarks) with the hierarchy it
///   was copied from until either rebuilds it: copying a 4096 x 4096 hierarchy costs a
///   reference per sector, so a copy can be marked or built on while the other is read.
///
/// One hierarchy serves one grid and one [`Movement`] and [`CostModel`]; agents of another size
/// or profile search a hierarchy of their own [`AgentGrid`](crate::AgentGrid).
///
/// ```
/// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions};
///
/// let mut grid = Grid::new(64, 64);
/// grid.fill_rect(Cell::new(30, 0), Cell::new(33, 60), 0); // a wall with a gap at the bottom
/// let options = HierarchyOptions::default().with_sector_size(16);
/// let mut hierarchy = Hierarchy::new(&grid, options)?;
/// assert_eq!((hierarchy.sector_count(), hierarchy.pending()), (16, 16));
/// hierarchy.build_sectors(&grid, 10)?; // a slice...
/// assert_eq!(hierarchy.pending(), 6);
/// hierarchy.build_sectors(&grid, usize::MAX)?; // ...and the rest
///
/// // An edit marks the sectors around it; rebuilt, they are as if built fresh.
/// grid.set_blocked(Cell::new(31, 62), true)?;
/// hierarchy.cells_changed([Cell::new(31, 62)]);
/// assert!(hierarchy.pending() > 0);
/// hierarchy.build_sectors(&grid, usize::MAX)?;
/// assert_eq!(hierarchy, Hierarchy::build(&grid, options)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Hierarchy {
    options: HierarchyOptions,
    width: u32,
    height: u32,
    columns: u32,
    /// Each sector shared with the copies of the hierarchy until either rebuilds it, so that a
    /// copy costs a reference per sector, not the sectors' memory.
    sectors: Vec<Arc<Sector>>,
    /// Sectors waiting to be built, each once (those whose state is `Pending`).
    queue: VecDeque<u32>,
    /// The sectors waiting because of an edit, as they were built, with the cells changed
    /// since: their rebuild reuses what those cells cannot have changed.
    stale: HashMap<u32, rebuild::Stale>,
    scratch: LocalSearch,
    /// The landmarks' distances, while every sector is built as when they were measured.
    landmarks: Option<Arc<Landmarks>>,
    /// Per block of sectors (row by row, [`HierarchyOptions::block_sectors`] on a side), its
    /// border nodes and their costs while its sectors are built as when it was built; empty
    /// without blocks. Shared with copies as the sectors are.
    blocks: Vec<Option<Arc<Block>>>,
    /// The number of blocks in a row.
    block_columns: u32,
    /// Unique among all hierarchies and all their states since: changed by every mark and
    /// build, so that a sector flow field can tell the hierarchy it was made from (a copy
    /// shares it until either changes).
    revision: u64,
    /// Per sector, a number unique to the build that made it (0 before its first), drawn
    /// like the revision: a sector with the same number in two hierarchies was built once,
    /// from the same cells, so that a flow field renewed for a changed hierarchy can keep what
    /// it measured there ([`SectorFlowField::renewed`](super::SectorFlowField::renewed)).
    builds: Vec<u64>,
    /// Per sector, a summary of where its regions lead that coarse routes read without
    /// touching the sectors ([`reach::REACH_CURRENT`] and the bits beside it).
    reach: Vec<u16>,
}

/// The next [`Hierarchy::revision`].
fn next_revision() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The nodes of a hierarchy numbered sector by sector, for searches over all of them.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeNumbers {
    /// Per sector, the number of its first node; one more entry, the node count.
    first: Vec<u32>,
}

impl NodeNumbers {
    pub(crate) fn new(hierarchy: &Hierarchy) -> Self {
        let mut first = Vec::with_capacity(hierarchy.sectors.len() + 1);
        let mut total = 0u32;
        for sector in &hierarchy.sectors {
            first.push(total);
            total += sector.nodes.len() as u32;
        }
        first.push(total);
        Self { first }
    }

    /// The number of nodes.
    pub(crate) fn total(&self) -> usize {
        self.first.last().map_or(0, |&total| total as usize)
    }

    /// The number of node `local` of `sector`.
    pub(crate) fn number(&self, sector: usize, local: usize) -> u32 {
        self.first[sector] + local as u32
    }

    /// The numbers of `sector`'s nodes.
    pub(crate) fn of_sector(&self, sector: usize) -> core::ops::Range<u32> {
        self.first[sector]..self.first[sector + 1]
    }

    /// The sector and local index of node `node`.
    pub(crate) fn locate(&self, node: u32) -> (usize, usize) {
        let sector = self.first.partition_point(|&first| first <= node) - 1;
        (sector, (node - self.first[sector]) as usize)
    }

    /// The number of the node at `cell`, when it is one.
    pub(crate) fn node_at(&self, hierarchy: &Hierarchy, cell: Cell) -> Option<u32> {
        let sector = hierarchy.sector_of(cell)?;
        let local = hierarchy.node_index(sector, cell)?;
        Some(self.number(sector, local))
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.first.capacity() * size_of::<u32>()
    }
}

impl PartialEq for Hierarchy {
    fn eq(&self, other: &Self) -> bool {
        (self.options, self.width, self.height) == (other.options, other.width, other.height)
            && self.sectors == other.sectors
            && self.blocks == other.blocks
            && self.reach == other.reach
    }
}

impl Hierarchy {
    /// A hierarchy of `grid` with no sector built yet: it answers searches at once, cell by
    /// cell, and faster as [`Hierarchy::build_sectors`] builds it.
    ///
    /// # Errors
    /// [`HierarchyError`] for a sector size, entrance spacing or cost model out of range.
    pub fn new(grid: &Grid, options: HierarchyOptions) -> Result<Self, HierarchyError> {
        options.check()?;
        let size = options.sector_size;
        let (columns, rows) = (grid.width().div_ceil(size), grid.height().div_ceil(size));
        let count = columns as usize * rows as usize;
        let pending = Arc::new(Sector::empty(SectorState::Pending));
        let (block_columns, block_count) = if options.block_sectors < 2 {
            (0, 0)
        } else {
            let side = options.block_sectors;
            let block_columns = columns.div_ceil(side);
            (
                block_columns,
                (block_columns * rows.div_ceil(side)) as usize,
            )
        };
        Ok(Self {
            options,
            width: grid.width(),
            height: grid.height(),
            columns,
            sectors: vec![pending; count],
            queue: (0..count as u32).collect(),
            stale: HashMap::new(),
            scratch: LocalSearch::default(),
            landmarks: None,
            blocks: vec![None; block_count],
            block_columns,
            revision: next_revision(),
            builds: vec![0; count],
            reach: vec![0; count],
        })
    }

    /// A hierarchy of `grid` with every sector built, and its landmarks.
    ///
    /// # Errors
    /// As [`Hierarchy::new`].
    pub fn build(grid: &Grid, options: HierarchyOptions) -> Result<Self, HierarchyError> {
        let mut hierarchy = Self::new(grid, options)?;
        hierarchy.build_sectors(grid, usize::MAX)?;
        hierarchy.prepare_landmarks(grid)?;
        Ok(hierarchy)
    }

    /// Measures the distances from [`HierarchyOptions::landmarks`] landmarks to every node,
    /// which guide searches to far fewer nodes on maps whose streets force detours. They hold
    /// while no sector changes: the next edit drops them, and they are measured again once
    /// every sector is rebuilt. Returns whether the hierarchy has them now: not while a
    /// sector waits, or keeps too many nodes.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions};
    ///
    /// let mut grid = Grid::new(64, 64);
    /// let mut hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
    /// assert!(hierarchy.has_landmarks());
    /// grid.set_blocked(Cell::new(5, 5), true)?;
    /// hierarchy.cells_changed([Cell::new(5, 5)]);
    /// assert!(!hierarchy.has_landmarks());
    /// assert!(!hierarchy.prepare_landmarks(&grid)?); // a sector waits
    /// hierarchy.build_sectors(&grid, usize::MAX)?;
    /// assert!(hierarchy.prepare_landmarks(&grid)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`HierarchyError::GridSize`] when `grid` is not the size of the hierarchy's grid.
    pub fn prepare_landmarks(&mut self, grid: &Grid) -> Result<bool, HierarchyError> {
        self.check_grid(grid)?;
        if self.landmarks.is_none() {
            let count = usize::from(self.options.landmarks);
            self.landmarks = Landmarks::pick(self, grid, count).map(Arc::new);
        }
        Ok(self.landmarks.is_some())
    }

    /// Whether the landmarks' distances are measured and current.
    #[must_use]
    pub const fn has_landmarks(&self) -> bool {
        self.landmarks.is_some()
    }

    /// Builds up to `limit` of the sectors waiting, oldest first, from `grid` as it is now, and
    /// the blocks whose last sectors waiting they were ([`Hierarchy::built_blocks`]); returns
    /// how many sectors it built.
    ///
    /// # Errors
    /// [`HierarchyError::GridSize`] when `grid` is not the size of the hierarchy's grid.
    pub fn build_sectors(&mut self, grid: &Grid, limit: usize) -> Result<usize, HierarchyError> {
        self.check_grid(grid)?;
        let mut built = Vec::new();
        let mut nodes = Vec::new();
        let mut blocks = Vec::new();
        while built.len() < limit {
            let Some(sector) = self.queue.pop_front() else {
                break;
            };
            self.build_sector(grid, sector as usize, &mut nodes);
            blocks.extend(self.block_of(sector as usize));
            built.push(sector);
        }
        blocks.sort_unstable();
        blocks.dedup();
        self.build_blocks(&blocks);
        self.measure_reach(&built);
        let built = built.len();
        if built > 0 {
            self.revision = next_revision();
        }
        Ok(built)
    }

    /// How many blocks of sectors ([`HierarchyOptions::block_sectors`]) are built. A block is
    /// built with its last sector ([`Hierarchy::build_sectors`]), unless one of its sectors
    /// holds a link's end or is searched cell by cell; a route search crosses it in one edge,
    /// between the nodes on its border, and searches the others by their sectors' nodes, at
    /// the same costs. An edit drops the blocks of the sectors it marks until they are rebuilt.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions};
    ///
    /// let mut grid = Grid::new(64, 64);
    /// let options = HierarchyOptions::default().with_sector_size(8).with_block_sectors(4);
    /// let mut hierarchy = Hierarchy::build(&grid, options)?;
    /// assert_eq!(hierarchy.built_blocks(), 4);
    /// grid.set_blocked(Cell::new(5, 5), true)?;
    /// hierarchy.cells_changed([Cell::new(5, 5)]);
    /// assert_eq!(hierarchy.built_blocks(), 3);
    /// hierarchy.build_sectors(&grid, usize::MAX)?;
    /// assert_eq!(hierarchy.built_blocks(), 4);
    /// assert_eq!(hierarchy, Hierarchy::build(&grid, options)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn built_blocks(&self) -> usize {
        self.blocks.iter().flatten().count()
    }

    /// The number of nodes on the borders of the blocks built, which route searches cross
    /// blocks between.
    #[must_use]
    pub fn block_node_count(&self) -> usize {
        self.blocks
            .iter()
            .flatten()
            .map(|block| block.node_count())
            .sum()
    }

    /// The number of edges the blocks built keep between their border nodes.
    #[must_use]
    pub fn block_edge_count(&self) -> usize {
        self.blocks
            .iter()
            .flatten()
            .map(|block| block.edge_count())
            .sum()
    }

    /// Builds each of `blocks` that has none and whose sectors are all built.
    fn build_blocks(&mut self, blocks: &[usize]) {
        let mut flood = BlockFlood::default();
        for &block in blocks {
            if self.blocks[block].is_none()
                && let Some(new) = Block::build(self, block, &mut flood)
            {
                self.blocks[block] = Some(Arc::new(new));
            }
        }
    }

    /// The block holding `sector`, when the hierarchy has blocks.
    fn block_of(&self, sector: usize) -> Option<usize> {
        let side = self.options.block_sectors;
        if self.blocks.is_empty() {
            return None;
        }
        let (column, row) = (sector as u32 % self.columns, sector as u32 / self.columns);
        Some(((row / side) * self.block_columns + column / side) as usize)
    }

    /// The block holding `cell`, when the hierarchy has blocks and `cell` is on the grid.
    fn block_of_cell(&self, cell: Cell) -> Option<usize> {
        self.block_of(self.sector_of(cell)?)
    }

    /// Block `block`'s first sector's column and row, its width in sectors, and its sectors
    /// row by row; `None` when there is no such block.
    fn block_sectors(&self, block: usize) -> Option<((u32, u32), u32, Vec<u32>)> {
        if block >= self.blocks.len() {
            return None;
        }
        let side = self.options.block_sectors;
        let rows = self.sectors.len() as u32 / self.columns;
        let corner = (
            (block as u32 % self.block_columns) * side,
            (block as u32 / self.block_columns) * side,
        );
        let width = side.min(self.columns - corner.0);
        let height = side.min(rows - corner.1);
        let sectors = (corner.1..corner.1 + height)
            .flat_map(|row| (corner.0..corner.0 + width).map(move |column| (row, column)))
            .map(|(row, column)| row * self.columns + column)
            .collect();
        Some((corner, width, sectors))
    }

    /// Marks for rebuilding every sector whose nodes or costs may depend on `cells`: the
    /// sectors of each cell and of its eight neighbours. Give it each cell whose terrain
    /// changed (blocked, opened or re-costed) and both ends of each link added, removed,
    /// opened or closed. Cells off the grid are ignored.
    ///
    /// A marked sector remembers what it was and the cells given since, so that its rebuild
    /// floods again only the costs between its nodes that a way through those cells could
    /// change, while its nodes stay where they were.
    pub fn cells_changed(&mut self, cells: impl IntoIterator<Item = Cell>) {
        for cell in cells {
            for sector in self.sectors_near(cell).into_iter().flatten() {
                self.mark(sector, cell);
            }
        }
    }

    /// The sectors of `cell` and of the eight cells around it, which an edit of `cell` may
    /// change (`None` off the grid; a sector may come more than once).
    fn sectors_near(&self, cell: Cell) -> [Option<usize>; 9] {
        core::array::from_fn(|index| {
            let (dx, dy) = (index as i32 % 3 - 1, index as i32 / 3 - 1);
            cell.offset(dx, dy).and_then(|near| self.sector_of(near))
        })
    }

    /// Whether [`Hierarchy::cells_changed`] would leave the hierarchy as it is: every sector
    /// it would mark for `cells` is waiting already, and already remembers each of the cells
    /// (or keeps no record of them, to be flooded whole). Lets a caller that shares the
    /// hierarchy skip copying it for nothing.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions};
    ///
    /// let grid = Grid::new(32, 32);
    /// let mut hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// assert!(!hierarchy.already_marked([Cell::new(8, 8)]));
    /// hierarchy.cells_changed([Cell::new(8, 8)]);
    /// assert!(hierarchy.already_marked([Cell::new(8, 8)]));
    /// // Another cell of the same sectors is remembered too.
    /// assert!(!hierarchy.already_marked([Cell::new(9, 9)]));
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    #[must_use]
    pub fn already_marked(&self, cells: impl IntoIterator<Item = Cell>) -> bool {
        cells.into_iter().all(|cell| {
            self.sectors_near(cell).into_iter().flatten().all(|sector| {
                self.sectors[sector].state == SectorState::Pending
                    && self
                        .stale
                        .get(&(sector as u32))
                        .is_none_or(|stale| stale.cells.contains(&cell))
            })
        })
    }

    /// Marks `sector` for rebuilding because `cell` changed: a built sector is kept aside
    /// with the cell, and one already waiting adds the cell to what it keeps.
    fn mark(&mut self, sector: usize, cell: Cell) {
        let key = sector as u32;
        let entry = &mut self.sectors[sector];
        if entry.state == SectorState::Pending {
            if let Some(stale) = self.stale.get_mut(&key)
                && !stale.record(cell)
            {
                self.stale.remove(&key);
            }
            return;
        }
        self.landmarks = None;
        self.revision = next_revision();
        let built = core::mem::replace(entry, Arc::new(Sector::empty(SectorState::Pending)));
        self.reach[sector] = 0;
        if let Some(block) = self.block_of(sector) {
            self.blocks[block] = None;
        }
        if built.state == SectorState::Built {
            let build = self.build_of(sector);
            self.stale
                .insert(key, rebuild::Stale::new(built, build, cell));
        }
        self.queue.push_back(key);
    }

    /// The number of the build that made `sector` as it is (see `builds`).
    pub(crate) fn build_of(&self, sector: usize) -> u64 {
        self.builds.get(sector).copied().unwrap_or(0)
    }

    fn build_sector(&mut self, grid: &Grid, sector: usize, nodes: &mut Vec<Cell>) {
        let rect = self.sector_rect_of(sector);
        let rules = self.rules();
        entrances::sector_nodes(
            grid,
            self.options.movement,
            rect,
            self.options.entrance_spacing,
            nodes,
        );
        let stale = self.stale.remove(&(sector as u32));
        let sides = self
            .options
            .exact_bounds
            .then(|| Box::new(SideBounds::measure(grid, rules, rect, &mut self.scratch)));
        if nodes.len() > self.options.node_capacity() {
            self.builds[sector] = next_revision();
            self.sectors[sector] = Arc::new(Sector {
                sides,
                ..Sector::empty(SectorState::Exact)
            });
            return;
        }
        // An edited sector whose nodes stayed keeps the costs no way through the edited
        // cells can change; any other is flooded from every node, and so is one with a link
        // inside it, before or now: a way along a link need not step beside the cells it
        // passes.
        let linked = grid
            .links()
            .iter()
            .any(|(_, link)| rect.contains(link.from) || rect.contains(link.to));
        let same_nodes = stale.as_ref().filter(|stale| {
            stale.built.state == SectorState::Built
                && stale.built.nodes == *nodes
                && !stale.built.linked
                && !linked
        });
        let exact = same_nodes
            .and_then(|stale| {
                rebuild::updated_costs(&mut self.scratch, grid, (rules, rect), stale, nodes)
            })
            .unwrap_or_else(|| {
                rebuild::flooded_costs(&mut self.scratch, grid, (rules, rect), nodes)
            });
        let exits = nodes
            .iter()
            .map(|&node| rules.steps_out_of(grid, node, Some(rect)))
            .collect();
        let built = Sector {
            state: SectorState::Built,
            linked,
            nodes: nodes.clone(),
            costs: pruned_costs(&exact, nodes.len()),
            exits,
            sides,
        };
        // Rebuilt as it was, with none of its own cells edited (an edit beside it): the
        // sector is the one built before, so a field renewed over it keeps what it measured.
        if let Some(stale) = same_nodes.filter(|stale| {
            !stale.cells.iter().any(|&cell| rect.contains(cell)) && *stale.built == built
        }) {
            self.builds[sector] = stale.build;
            self.sectors[sector] = Arc::clone(&stale.built);
            return;
        }
        self.builds[sector] = next_revision();
        self.sectors[sector] = Arc::new(built);
    }

    fn rules(&self) -> StepRules {
        StepRules::new(self.options.movement, self.options.cost)
    }

    fn check_grid(&self, grid: &Grid) -> Result<(), HierarchyError> {
        let found = (grid.width(), grid.height());
        if found == (self.width, self.height) {
            Ok(())
        } else {
            Err(HierarchyError::GridSize {
                expected: (self.width, self.height),
                found,
            })
        }
    }

    /// The options it was made with.
    #[must_use]
    pub const fn options(&self) -> &HierarchyOptions {
        &self.options
    }

    /// The number of sectors.
    #[must_use]
    pub fn sector_count(&self) -> usize {
        self.sectors.len()
    }

    /// How many sectors wait to be built.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// A number that names the hierarchy as it is: unique among all hierarchies made in the
    /// process, changed by every edit marked and every sector built (not by the landmarks),
    /// and shared by a copy until either changes. A [`SectorFlowField`] answers only for the
    /// revision it was made from.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions};
    ///
    /// let grid = Grid::new(32, 32);
    /// let mut hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let copy = hierarchy.clone();
    /// assert_eq!(copy.revision(), hierarchy.revision());
    /// hierarchy.cells_changed([Cell::new(3, 3)]);
    /// assert_ne!(copy.revision(), hierarchy.revision());
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    #[must_use]
    pub const fn revision(&self) -> u64 {
        self.revision
    }

    /// The sector holding `cell`, or `None` off the grid. Sectors are numbered row by row.
    #[must_use]
    pub fn sector_of(&self, cell: Cell) -> Option<usize> {
        if cell.x >= self.width || cell.y >= self.height {
            return None;
        }
        let size = self.options.sector_size;
        let (column, row) = if size.is_power_of_two() {
            let shift = size.trailing_zeros();
            (cell.x >> shift, cell.y >> shift)
        } else {
            (cell.x / size, cell.y / size)
        };
        Some(row as usize * self.columns as usize + column as usize)
    }

    /// The first and last cell (inclusive) of `sector`, or `None` when there is no such sector.
    #[must_use]
    pub fn sector_bounds(&self, sector: usize) -> Option<(Cell, Cell)> {
        (sector < self.sectors.len()).then(|| {
            let rect = self.sector_rect_of(sector);
            (rect.min, rect.max)
        })
    }

    /// The node cells of `sector` when it is built and kept by nodes; empty otherwise.
    #[must_use]
    pub fn sector_nodes(&self, sector: usize) -> &[Cell] {
        self.sectors
            .get(sector)
            .map_or(&[], |entry| entry.nodes.as_slice())
    }

    /// Whether `sector` is built and searched by its nodes (not waiting, and not one of the
    /// sectors with too many nodes to keep, which are searched cell by cell; see
    /// [`MAX_SECTOR_NODES`]).
    #[must_use]
    pub fn is_built(&self, sector: usize) -> bool {
        self.sectors
            .get(sector)
            .is_some_and(|entry| entry.state == SectorState::Built)
    }

    /// The number of nodes in all built sectors.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.sectors.iter().map(|sector| sector.nodes.len()).sum()
    }

    /// Bytes held: the sectors' nodes and costs, the queue, the sectors' build numbers and the
    /// build's scratch memory. A sector shared with copies ([`Clone`]) counts in each of them,
    /// as do the sectors waiting, which share one empty sector.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        let sectors: usize = self
            .sectors
            .iter()
            .map(|sector| size_of::<Arc<Sector>>() + sector.memory_bytes())
            .sum();
        // Sectors waiting after an edit keep what they were until rebuilt.
        let stale: usize = self
            .stale
            .values()
            .map(|stale| {
                size_of::<(u32, rebuild::Stale)>()
                    + stale.built.memory_bytes()
                    + stale.cells.capacity() * size_of::<Cell>()
            })
            .sum();
        sectors
            + stale
            + self.queue.capacity() * size_of::<u32>()
            + self.builds.capacity() * size_of::<u64>()
            + self.reach.capacity() * size_of::<u16>()
            + self.scratch.memory_bytes()
            + self
                .landmarks
                .as_ref()
                .map_or(0, |landmarks| landmarks.memory_bytes())
            + self
                .blocks
                .iter()
                .map(|block| {
                    size_of::<Option<Arc<Block>>>() + block.as_ref().map_or(0, |b| b.memory_bytes())
                })
                .sum::<usize>()
    }

    fn sector_rect_of(&self, sector: usize) -> Rect {
        let size = self.options.sector_size;
        let column = sector as u32 % self.columns;
        let row = sector as u32 / self.columns;
        let min = Cell::new(column * size, row * size);
        let max = Cell::new(
            (min.x + size - 1).min(self.width - 1),
            (min.y + size - 1).min(self.height - 1),
        );
        Rect { min, max }
    }

    /// The local index of `cell` among the nodes of built `sector`.
    fn node_index(&self, sector: usize, cell: Cell) -> Option<usize> {
        self.sectors[sector]
            .nodes
            .binary_search_by_key(&(cell.y, cell.x), |node| (node.y, node.x))
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_shares_every_sector_until_one_of_the_two_marks_or_builds_it() {
        let mut grid = Grid::new(32, 32);
        let options = HierarchyOptions::default().with_sector_size(8);
        let built = Hierarchy::build(&grid, options).expect("valid options");
        let mut copy = built.clone();
        let shared = |a: &Hierarchy, b: &Hierarchy| {
            a.sectors
                .iter()
                .zip(&b.sectors)
                .filter(|(a, b)| Arc::ptr_eq(a, b))
                .count()
        };
        assert_eq!(shared(&built, &copy), 16);
        assert!(Arc::ptr_eq(
            built.landmarks.as_ref().expect("measured"),
            copy.landmarks.as_ref().expect("copied")
        ));
        // A wall across the corner sector's middle: the copy marks the sectors around it.
        grid.fill_rect(Cell::new(0, 4), Cell::new(6, 4), 0);
        copy.cells_changed((0..=6).map(|x| Cell::new(x, 4)));
        let marked = copy.pending();
        assert!(marked > 0 && built.pending() == 0);
        assert_eq!(shared(&built, &copy), 16 - marked);
        // Rebuilt, the copy is the changed grid's hierarchy; the original is still the old one.
        copy.build_sectors(&grid, usize::MAX).expect("same grid");
        assert_eq!(
            copy,
            Hierarchy::build(&grid, options).expect("valid options")
        );
        assert_eq!(
            built,
            Hierarchy::build(&Grid::new(32, 32), options).expect("valid")
        );
        assert_ne!(built, copy);
    }
}
