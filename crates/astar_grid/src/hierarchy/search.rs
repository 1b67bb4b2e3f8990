//! Hierarchical search ([`HierarchySearcher`]): A* over a [`Hierarchy`]'s nodes (and the cells
//! of sectors not built), then each leg of the route refined into cells inside its sector.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::blocks::{self, Block, BlockFlood};
use super::exact::ExactSearch;
use super::first_cells::CoarseSearch;
use super::local::{Flow, LocalSearch, Rect, StepRules, links_leaving};
use super::{Hierarchy, SectorState};
use crate::endpoints::validate_endpoints;
use crate::links::LinkBound;
use crate::search::{OpenEntry, OpenList};
use crate::{Cell, Grid, Path, SearchError, SearchResult, SearchStats, SearchStatus};

/// A node of the search: a sector's node, a cell of a sector searched cell by cell, or the
/// query's start or goal standing in a built sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Node { sector: u32, local: u8 },
    Cell(u32),
    Start,
    Goal,
}

/// One leg of a route: cells inside a sector, a single step (a walk or a link) between two
/// cells, or a way across a block of sectors between two of its border nodes, refined into
/// legs of the other two kinds when the route gets there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leg {
    Inside { to: Cell, sector: u32 },
    Step { to: Cell },
    Across { to: Cell, block: u32 },
}

impl Leg {
    const fn to(self) -> Cell {
        match self {
            Self::Inside { to, .. } | Self::Step { to } | Self::Across { to, .. } => to,
        }
    }
}

/// A route found over a hierarchy, refined into cells a leg at a time
/// ([`HierarchySearcher::refine_next`]): the first cells of a long path come back as soon as
/// the route is known, and the rest as they are needed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HierarchyRoute {
    start: Cell,
    legs: Vec<Leg>,
    next: usize,
    /// Where the refined cells have reached.
    at: Cell,
    /// The route's cost as searched.
    cost: f64,
    /// The cost of the cells refined so far, summed exactly.
    refined: f64,
}

impl HierarchyRoute {
    /// The route's cost as searched. The refined path costs the same but for rounding: the
    /// hierarchy keeps the costs inside sectors as `f32`.
    #[must_use]
    pub const fn cost(&self) -> f64 {
        self.cost
    }

    /// The cost of the cells refined so far, each step priced exactly.
    #[must_use]
    pub const fn refined_cost(&self) -> f64 {
        self.refined
    }

    /// Whether every leg is refined.
    #[must_use]
    pub fn is_refined(&self) -> bool {
        self.next == self.legs.len()
    }

    /// The cells where the route changes sector or takes a link, start and goal included: the
    /// route before refinement.
    pub fn corners(&self) -> impl Iterator<Item = Cell> + '_ {
        core::iter::once(self.start).chain(self.legs.iter().map(|leg| leg.to()))
    }
}

/// What a state of the search keeps: its cost from the start, its parent (a handle), whether
/// it is closed.
#[derive(Clone, Copy, Debug)]
struct Sparse {
    key: Key,
    cost: f64,
    parent: u32,
    closed: bool,
}

/// The state of a sector node's slot: its cost from the start, its parent (a handle), its
/// estimate of the way on (measured once a search), and `mark`, the search's generation when
/// it is open in it and one more once it is closed.
#[derive(Clone, Copy, Debug)]
struct Slot {
    cost: f64,
    estimate: f64,
    parent: u32,
    mark: u32,
}

impl Default for Slot {
    fn default() -> Self {
        Self {
            cost: 0.0,
            estimate: 0.0,
            parent: NO_PARENT,
            mark: 0,
        }
    }
}

/// Handles at or above this are indices into the sparse states (cells, start and goal) plus
/// this; below, slots of sector nodes.
const SPARSE: u32 = 1 << 31;
const NO_PARENT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }
}

/// Scratch memory of hierarchical searches, kept between queries like a
/// [`Searcher`](crate::Searcher).
///
/// A query runs in two phases:
/// 1. **The route**: A* over the nodes of built sectors (costs between a sector's nodes are
///    exact inside it), the steps and links between sectors, and cell by cell through sectors
///    not built. The start and goal join their sectors' nodes by a search inside the sector.
///    A built block of sectors ([`HierarchyOptions::block_sectors`](crate::HierarchyOptions::block_sectors))
///    that holds neither is crossed in one edge between the nodes on its border, at the same
///    cost as over its sectors' nodes.
/// 2. **Refinement**: each leg across a block becomes legs between its sectors' nodes, and
///    each leg inside a sector becomes cells by A* held inside that sector, each at the cost
///    the hierarchy holds for it.
///
/// [`HierarchySearcher::find_path`] runs both and returns a whole, legal path (see
/// [`HierarchyOptions::detour_per_crossing`](crate::HierarchyOptions::detour_per_crossing) for
/// how far from optimal it may be). [`HierarchySearcher::route`] runs the first, and
/// [`HierarchySearcher::refine_next`] refines one leg at a time: the first sector's cells at
/// once, the rest as they are needed.
///
/// ```
/// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher};
///
/// let mut grid = Grid::new(96, 96);
/// grid.fill_rect(Cell::new(40, 0), Cell::new(43, 90), 0); // a wall, open at the bottom
/// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default())?;
/// let mut searcher = HierarchySearcher::new();
/// let (start, goal) = (Cell::new(5, 5), Cell::new(90, 5));
/// let result = searcher.find_path(&grid, &hierarchy, start, goal)?;
/// let path = result.found().expect("round the wall");
/// assert_eq!((path.start(), path.end()), (Some(start), Some(goal)));
/// // Every step is a legal move.
/// assert!(path.cells.windows(2).all(|step| step[0].is_adjacent_8(step[1])));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct HierarchySearcher {
    /// Per slot of a sector node: its state in the current search, if `mark` says so.
    slots: Vec<Slot>,
    generation: u32,
    sparse: Vec<Sparse>,
    sparse_index: HashMap<Key, u32, BuildHasherDefault<KeyHasher>>,
    open: OpenList,
    local: LocalSearch,
    bound: LinkBound,
    /// Per node of the start's sector, the cost from the start inside it; and to the goal.
    from_start: Vec<(Key, f64)>,
    /// Per node of the goal's sector, the cost inside it to the goal.
    to_goal: Vec<f64>,
    keys: Vec<Key>,
    /// Per landmark, the distance from it to the goal (`None` when the hierarchy has no
    /// landmarks, or the goal's sector is not built).
    goal_bounds: Option<Vec<f64>>,
    /// Scratch memory of [`HierarchySearcher::find_exact_path`].
    pub(super) exact: ExactSearch,
    /// Scratch memory of the searches that refine a way across a block.
    block_flood: BlockFlood,
    /// Scratch memory of [`HierarchySearcher::first_cells`].
    pub(super) coarse: CoarseSearch,
}

/// What one query knows while it searches.
struct Query<'a> {
    grid: &'a Grid,
    hierarchy: &'a Hierarchy,
    rules: StepRules,
    start: Cell,
    goal: Cell,
    goal_sector: u32,
    /// The blocks of the start and the goal, which the search enters by their sectors' nodes.
    ends_blocks: [Option<usize>; 2],
    links: bool,
    capacity: u32,
}

impl Query<'_> {
    fn sector_of(&self, cell: Cell) -> u32 {
        self.hierarchy.sector_of(cell).unwrap_or(0) as u32
    }

    fn built(&self, sector: u32) -> bool {
        self.hierarchy.sectors[sector as usize].state == SectorState::Built
    }

    /// The block of `sector` and what it keeps, when the search crosses it by the nodes on its
    /// border: it is built, and holds neither the start nor the goal.
    fn crossed_block(&self, sector: u32) -> Option<(usize, &Block)> {
        let block = self.hierarchy.block_of(sector as usize)?;
        if self.ends_blocks.contains(&Some(block)) {
            return None;
        }
        Some((block, self.hierarchy.blocks[block].as_deref()?))
    }

    fn cell_of(&self, key: Key) -> Cell {
        match key {
            Key::Node { sector, local } => {
                self.hierarchy.sectors[sector as usize].nodes[usize::from(local)]
            }
            Key::Cell(index) => self.grid.cell_at(index as usize),
            Key::Start => self.start,
            Key::Goal => self.goal,
        }
    }

    /// The key a path stepping onto `cell` from another sector (or inside a sector searched
    /// cell by cell) arrives at: the cell itself in a sector not built, its node in a built
    /// one, and `None` when it is not a node there.
    fn arrival(&self, cell: Cell) -> Option<Key> {
        let sector = self.sector_of(cell);
        if self.built(sector) {
            let local = self.hierarchy.node_index(sector as usize, cell)?;
            Some(Key::Node {
                sector,
                local: local as u8,
            })
        } else {
            Some(Key::Cell(self.grid.index(cell) as u32))
        }
    }

    fn estimate(&self, cell: Cell, bound: &LinkBound) -> f64 {
        let rules = self.rules;
        let direct = rules.estimate(cell, self.goal);
        if self.links {
            bound.estimate(direct, (cell.x + 1, cell.y + 1), |a, b| {
                rules.heuristic.between(a, b)
            })
        } else {
            direct
        }
    }
}

impl HierarchySearcher {
    /// An empty searcher; it grows to the hierarchies it searches.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A whole path from `start` to `goal` over `hierarchy`, a hierarchy of `grid` kept
    /// current with its edits ([`Hierarchy::cells_changed`]). The path is legal on `grid` under
    /// the hierarchy's movement and links and joins `start` to `goal`; its cost is at most
    /// optimal plus [`HierarchyOptions::detour_per_crossing`](crate::HierarchyOptions::detour_per_crossing)
    /// for each step of an optimal path between sectors. [`SearchStats::expanded`] counts the
    /// route's expansions.
    ///
    /// A path that crosses at most four sector borders is then searched again inside the
    /// sectors it crosses, and the cheaper of the two kept: short paths lose the detours that
    /// entrances cause, at the price of a search over a few sectors.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, SearchStatus};
    ///
    /// let grid = Grid::from_ascii(
    ///     "......#.....
    ///      ......#.....
    ///      ......#.....",
    /// )?;
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(4))?;
    /// let result = HierarchySearcher::new().find_path(&grid, &hierarchy, Cell::new(0, 0), Cell::new(11, 0))?;
    /// assert_eq!(result.status, SearchStatus::NoPath); // the wall is whole
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Searcher::find_path`](crate::Searcher::find_path) for the start and goal;
    /// [`SearchError::Unsupported`] when `hierarchy` is not of `grid`'s size, or was not told
    /// of an edit so that a leg cannot be refined.
    pub fn find_path(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        start: Cell,
        goal: Cell,
    ) -> Result<SearchResult, SearchError> {
        let (route, stats) = self.route_with_stats(grid, hierarchy, start, goal)?;
        let Some(mut route) = route else {
            return Ok(SearchResult {
                status: SearchStatus::NoPath,
                path: None,
                stats,
                trace: None,
            });
        };
        let mut cells = vec![start];
        while !route.is_refined() {
            self.refine_next(grid, hierarchy, &mut route, &mut cells)?;
        }
        let path = self.straightened(grid, hierarchy, cells, route.refined);
        Ok(SearchResult {
            status: SearchStatus::Found,
            path: Some(path),
            stats,
            trace: None,
        })
    }

    /// `cells`, costing `cost`, or the cheapest path between its ends inside the sectors it
    /// crosses when it crosses at most [`SHORT_ROUTE_CROSSINGS`] borders and that is cheaper.
    fn straightened(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        cells: Vec<Cell>,
        cost: f64,
    ) -> Path {
        let sectors = || cells.iter().filter_map(|&cell| hierarchy.sector_of(cell));
        let crossings = cells
            .windows(2)
            .filter(|step| hierarchy.sector_of(step[0]) != hierarchy.sector_of(step[1]))
            .count();
        let (Some(&start), Some(&goal)) = (cells.first(), cells.last()) else {
            return Path { cells, cost };
        };
        if crossings == 0 || crossings > SHORT_ROUTE_CROSSINGS {
            return Path { cells, cost };
        }
        let bounds = sectors().map(|sector| hierarchy.sector_rect_of(sector));
        let rect = bounds
            .reduce(|a, b| Rect {
                min: Cell::new(a.min.x.min(b.min.x), a.min.y.min(b.min.y)),
                max: Cell::new(a.max.x.max(b.max.x), a.max.y.max(b.max.y)),
            })
            .unwrap_or(Rect {
                min: start,
                max: start,
            });
        let rules = StepRules::new(hierarchy.options.movement, hierarchy.options.cost);
        let mut straight = Vec::new();
        match self
            .local
            .path(grid, rules, rect, (start, goal), (&mut straight, false))
        {
            Some(found) if found < cost * (1.0 - 1e-12) => Path {
                cells: straight,
                cost: found,
            },
            _ => Path { cells, cost },
        }
    }

    /// The route from `start` to `goal` over `hierarchy`, not yet refined into cells, or
    /// `None` when the goal cannot be reached.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher};
    ///
    /// let grid = Grid::new(64, 64);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
    /// let mut searcher = HierarchySearcher::new();
    /// let mut route = searcher.route(&grid, &hierarchy, Cell::new(1, 1), Cell::new(62, 62))?.expect("open");
    /// // The first leg's cells, at once: they stay in the start's sector.
    /// let mut cells = vec![Cell::new(1, 1)];
    /// searcher.refine_next(&grid, &hierarchy, &mut route, &mut cells)?;
    /// assert!(cells.iter().all(|cell| cell.x < 16 && cell.y < 16));
    /// while !route.is_refined() {
    ///     searcher.refine_next(&grid, &hierarchy, &mut route, &mut cells)?;
    /// }
    /// assert_eq!(cells.last(), Some(&Cell::new(62, 62)));
    /// assert!((route.refined_cost() - 61.0 * 2f64.sqrt()).abs() < 1e-9); // the diagonal
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HierarchySearcher::find_path`].
    pub fn route(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        start: Cell,
        goal: Cell,
    ) -> Result<Option<HierarchyRoute>, SearchError> {
        self.route_with_stats(grid, hierarchy, start, goal)
            .map(|(route, _)| route)
    }

    /// Refines the next leg of `route` into cells, appended to `cells` (the leg's first cell,
    /// where the previous leg ended, left out). Does nothing once the route is refined.
    ///
    /// # Errors
    /// [`SearchError::Unsupported`] when the leg cannot be refined: `grid` changed without
    /// [`Hierarchy::cells_changed`] being told.
    pub fn refine_next(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        route: &mut HierarchyRoute,
        cells: &mut Vec<Cell>,
    ) -> Result<(), SearchError> {
        let Some(&leg) = route.legs.get(route.next) else {
            return Ok(());
        };
        let options = hierarchy.options;
        route.refined += match leg {
            Leg::Step { to } => {
                cells.push(to);
                grid.step_cost(route.at, to, options.movement, options.cost)
                    .ok_or(SearchError::Unsupported(STALE))?
            }
            Leg::Inside { to, sector } => {
                let rules = StepRules::new(options.movement, options.cost);
                let rect = hierarchy.sector_rect_of(sector as usize);
                self.local
                    .path(grid, rules, rect, (route.at, to), (cells, true))
                    .ok_or(SearchError::Unsupported(STALE))?
            }
            Leg::Across { to, block } => {
                let legs = self
                    .legs_across(hierarchy, block as usize, (route.at, to))
                    .ok_or(SearchError::Unsupported(STALE))?;
                route.legs.splice(route.next..=route.next, legs);
                return self.refine_next(grid, hierarchy, route, cells);
            }
        };
        route.at = leg.to();
        route.next += 1;
        Ok(())
    }

    /// The legs of the cheapest way inside `block` between two of its nodes, by its sectors'
    /// nodes.
    fn legs_across(
        &mut self,
        hierarchy: &Hierarchy,
        block: usize,
        ends: (Cell, Cell),
    ) -> Option<Vec<Leg>> {
        let way = blocks::way_inside(hierarchy, block, ends, &mut self.block_flood)?;
        Some(
            way.windows(2)
                .map(|pair| match (pair[0], pair[1]) {
                    ((sector, _), (other, to)) if sector == other => Leg::Inside { to, sector },
                    (_, (_, to)) => Leg::Step { to },
                })
                .collect(),
        )
    }

    fn route_with_stats(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        start: Cell,
        goal: Cell,
    ) -> Result<(Option<HierarchyRoute>, SearchStats), SearchError> {
        check_query(grid, hierarchy, (start, goal))?;
        let query = Query {
            grid,
            hierarchy,
            rules: StepRules::new(hierarchy.options.movement, hierarchy.options.cost),
            start,
            goal,
            goal_sector: hierarchy.sector_of(goal).unwrap_or(0) as u32,
            ends_blocks: [
                hierarchy.block_of_cell(start),
                hierarchy.block_of_cell(goal),
            ],
            links: grid.links.has_steps(),
            capacity: hierarchy.options.node_capacity() as u32,
        };
        let goal_key = self.join(&query);
        let mut stats = SearchStats::default();
        while let Some(entry) = self.open.pop() {
            let handle = entry.id();
            if self.is_closed(handle) {
                continue;
            }
            self.close(handle);
            stats.expanded += 1;
            let key = self.key_of(&query, handle);
            if key == goal_key {
                return Ok((Some(self.trace_route(&query, handle)), stats));
            }
            let cost = self.cost_of(handle);
            self.successors(&query, key, |searcher, next, step| {
                let next_handle = searcher.handle(&query, next);
                let total = cost + step;
                if searcher.improves(next_handle, total) {
                    let h = searcher.estimate_once(&query, next, next_handle);
                    searcher.set(next_handle, total, handle);
                    searcher
                        .open
                        .push(OpenEntry::new(total + h, total, next_handle));
                    stats.pushed += 1;
                }
            });
        }
        Ok((None, stats))
    }

    /// Starts `query`: joins its start and goal to the nodes of their sectors where those are
    /// built, puts the start on the open list, and returns the key that ends the search.
    fn join(&mut self, query: &Query<'_>) -> Key {
        self.begin(query);
        let first = if query.built(query.sector_of(query.start)) {
            self.join_start(query);
            Key::Start
        } else {
            Key::Cell(query.grid.index(query.start) as u32)
        };
        self.goal_bounds = None;
        let goal_key = if query.built(query.goal_sector) {
            self.join_goal(query);
            self.measure_goal_bounds(query);
            Key::Goal
        } else {
            Key::Cell(query.grid.index(query.goal) as u32)
        };
        let handle = self.handle(query, first);
        self.set(handle, 0.0, NO_PARENT);
        let h = query.estimate(query.start, &self.bound);
        self.open.push(OpenEntry::new(h, 0.0, handle));
        goal_key
    }

    fn begin(&mut self, query: &Query<'_>) {
        let slots = query.hierarchy.sectors.len() * query.capacity as usize;
        if self.slots.len() < slots {
            self.slots.resize(slots, Slot::default());
        }
        match self.generation.checked_add(2) {
            Some(next) if next < u32::MAX - 1 => self.generation = next,
            _ => {
                self.slots.fill(Slot::default());
                self.generation = 2;
            }
        }
        self.sparse.clear();
        self.sparse_index.clear();
        self.open.clear();
        if query.links {
            let heuristic = query.rules.heuristic;
            let grid = query.grid;
            self.bound.prepare(
                grid.links.steps(),
                (grid.stride(), |index: usize| grid.raw()[index] != 0),
                (query.goal.x + 1, query.goal.y + 1),
                |a, b| heuristic.between(a, b),
            );
        }
    }

    /// The start's ways to its sector's nodes (and to the goal in the same sector), by a
    /// search inside the sector.
    fn join_start(&mut self, query: &Query<'_>) {
        let sector = query.sector_of(query.start);
        let nodes = &query.hierarchy.sectors[sector as usize].nodes;
        let rect = query.hierarchy.sector_rect_of(sector as usize);
        let mut targets = nodes.clone();
        if query.goal_sector == sector {
            targets.push(query.goal);
        }
        self.local.flood(
            query.grid,
            query.rules,
            (rect, query.start),
            Flow::Forward,
            &targets,
        );
        self.from_start.clear();
        for (local, &node) in nodes.iter().enumerate() {
            if let Some(cost) = self.local.settled_cost(node) {
                let key = Key::Node {
                    sector,
                    local: local as u8,
                };
                self.from_start.push((key, cost));
            }
        }
        if query.goal_sector == sector
            && let Some(cost) = self.local.settled_cost(query.goal)
        {
            self.from_start.push((Key::Goal, cost));
        }
    }

    /// Each node's way to the goal inside the goal's sector, by a search backwards from it.
    fn join_goal(&mut self, query: &Query<'_>) {
        let sector = query.goal_sector as usize;
        let nodes = &query.hierarchy.sectors[sector].nodes;
        let rect = query.hierarchy.sector_rect_of(sector);
        self.local.flood(
            query.grid,
            query.rules,
            (rect, query.goal),
            Flow::Backward,
            nodes,
        );
        self.to_goal.clear();
        let local = &self.local;
        self.to_goal.extend(
            nodes
                .iter()
                .map(|&node| local.settled_cost(node).unwrap_or(f64::INFINITY)),
        );
    }

    /// The distance from each landmark to the goal: through the goal's sector's nodes, whose
    /// distances the landmarks hold, and their ways to the goal inside it.
    fn measure_goal_bounds(&mut self, query: &Query<'_>) {
        let Some(landmarks) = query.hierarchy.landmarks.as_ref() else {
            return;
        };
        let mut bounds = vec![f64::INFINITY; landmarks.count()];
        for (local, &inside) in self.to_goal.iter().enumerate() {
            let from = landmarks.of(query.goal_sector, local as u8);
            for (bound, &distance) in bounds.iter_mut().zip(from) {
                *bound = bound.min(f64::from(distance) + inside);
            }
        }
        self.goal_bounds = Some(bounds);
    }

    /// The estimate of the way from `key` to the goal: the plain estimate (through links'
    /// shortcuts), and at a sector's node the landmarks' bound when larger.
    fn estimate(&self, query: &Query<'_>, key: Key) -> f64 {
        let plain = match key {
            Key::Goal => return 0.0,
            _ => query.estimate(query.cell_of(key), &self.bound),
        };
        let (Key::Node { sector, local }, Some(bounds), Some(landmarks)) = (
            key,
            self.goal_bounds.as_ref(),
            query.hierarchy.landmarks.as_ref(),
        ) else {
            return plain;
        };
        let mut best = plain;
        let symmetric = landmarks.symmetric();
        for (&to_goal, &from) in bounds.iter().zip(landmarks.of(sector, local)) {
            // d(v, t) >= d(L, t) - d(L, v), and where steps cost the same both ways
            // d(v, t) >= d(v, L) - d(t, L) = d(L, v) - d(L, t); shaved for the rounding of the
            // stored distances.
            let difference = to_goal - f64::from(from);
            let difference = if symmetric {
                difference.abs()
            } else {
                difference
            };
            let bound = difference - LANDMARK_SLACK * to_goal.max(f64::from(from));
            if bound > best {
                best = bound;
            }
        }
        best
    }

    /// The estimate of the way from `key` (whose handle is `handle`) to the goal, measured once
    /// a search for a sector's node: a node reached again reuses it.
    fn estimate_once(&mut self, query: &Query<'_>, key: Key, handle: u32) -> f64 {
        if handle >= SPARSE {
            return self.estimate(query, key);
        }
        let slot = self.slots[handle as usize];
        if slot.mark >= self.generation {
            return slot.estimate;
        }
        let estimate = self.estimate(query, key);
        self.slots[handle as usize].estimate = estimate;
        estimate
    }

    /// Calls `visit` with each key one edge from `key` and the edge's cost.
    fn successors(
        &mut self,
        query: &Query<'_>,
        key: Key,
        mut visit: impl FnMut(&mut Self, Key, f64),
    ) {
        match key {
            Key::Start => {
                for k in 0..self.from_start.len() {
                    let (next, cost) = self.from_start[k];
                    visit(self, next, cost);
                }
            }
            Key::Goal => {}
            Key::Node { sector, local } => {
                let entry = &query.hierarchy.sectors[sector as usize];
                if let Some((block, crossed)) = query.crossed_block(sector)
                    && let Some(index) = crossed.index_of(sector, local)
                {
                    for (other, cost) in crossed.edges_from(index) {
                        let (sector, local) = crossed.node(other);
                        visit(self, Key::Node { sector, local }, cost);
                    }
                    for (to, cost) in entry.exits_of(usize::from(local), query.rules) {
                        if query.hierarchy.block_of_cell(to) != Some(block)
                            && let Some(next) = query.arrival(to)
                        {
                            visit(self, next, cost);
                        }
                    }
                    return;
                }
                for (other, cost) in entry.edges_from(usize::from(local)) {
                    let next = Key::Node {
                        sector,
                        local: other as u8,
                    };
                    visit(self, next, cost);
                }
                if sector == query.goal_sector
                    && let Some(&cost) = self.to_goal.get(usize::from(local))
                    && cost.is_finite()
                {
                    visit(self, Key::Goal, cost);
                }
                for (to, cost) in entry.exits_of(usize::from(local), query.rules) {
                    if let Some(next) = query.arrival(to) {
                        visit(self, next, cost);
                    }
                }
                if query.links {
                    self.links_out(query, query.cell_of(key), sector, &mut visit);
                }
            }
            Key::Cell(_) => {
                let cell = query.cell_of(key);
                query
                    .rules
                    .steps_leaving(query.grid, (cell, None), true, |next, cost| {
                        if let Some(key) = query.arrival(next) {
                            visit(self, key, cost);
                        }
                    });
            }
        }
    }

    /// The open links from `cell`, a node of `sector`, into other sectors (links are read
    /// from the grid, not kept with the node's steps).
    fn links_out(
        &mut self,
        query: &Query<'_>,
        cell: Cell,
        sector: u32,
        visit: &mut impl FnMut(&mut Self, Key, f64),
    ) {
        let rect = query.hierarchy.sector_rect_of(sector as usize);
        links_leaving(query.grid, (cell, Some(rect)), |next, cost| {
            if let Some(key) = query.arrival(next) {
                visit(self, key, cost);
            }
        });
    }

    fn trace_route(&mut self, query: &Query<'_>, goal: u32) -> HierarchyRoute {
        self.keys.clear();
        let mut at = goal;
        while at != NO_PARENT {
            self.keys.push(self.key_of(query, at));
            at = self.parent_of(at);
        }
        self.keys.reverse();
        let mut legs = Vec::with_capacity(self.keys.len());
        for pair in self.keys.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            let cell = query.cell_of(to);
            if let (Key::Node { sector, .. }, Key::Node { sector: other, .. }) = (from, to)
                && let Some((block, _)) = query.crossed_block(sector)
                && query.hierarchy.block_of(other as usize) == Some(block)
            {
                legs.push(Leg::Across {
                    to: cell,
                    block: block as u32,
                });
                continue;
            }
            let inside = match (from, to) {
                (Key::Start, _) => Some(query.sector_of(query.start)),
                (Key::Node { sector, .. }, Key::Node { sector: other, .. }) if sector == other => {
                    Some(sector)
                }
                (Key::Node { sector, .. }, Key::Goal) => Some(sector),
                _ => None,
            };
            legs.push(match inside {
                Some(sector) => Leg::Inside { to: cell, sector },
                None => Leg::Step { to: cell },
            });
        }
        HierarchyRoute {
            start: query.start,
            legs,
            next: 0,
            at: query.start,
            cost: self.cost_of(goal),
            refined: 0.0,
        }
    }

    fn handle(&mut self, query: &Query<'_>, key: Key) -> u32 {
        if let Key::Node { sector, local } = key {
            return sector * query.capacity + u32::from(local);
        }
        if let Some(&index) = self.sparse_index.get(&key) {
            return SPARSE + index;
        }
        let index = self.sparse.len() as u32;
        self.sparse.push(Sparse {
            key,
            cost: f64::INFINITY,
            parent: NO_PARENT,
            closed: false,
        });
        self.sparse_index.insert(key, index);
        SPARSE + index
    }

    fn key_of(&self, query: &Query<'_>, handle: u32) -> Key {
        if handle >= SPARSE {
            self.sparse[(handle - SPARSE) as usize].key
        } else {
            Key::Node {
                sector: handle / query.capacity,
                local: (handle % query.capacity) as u8,
            }
        }
    }

    fn improves(&self, handle: u32, cost: f64) -> bool {
        if handle >= SPARSE {
            let state = &self.sparse[(handle - SPARSE) as usize];
            !state.closed && cost < state.cost
        } else {
            let slot = handle as usize;
            let state = self.slots[slot];
            state.mark < self.generation || (state.mark == self.generation && cost < state.cost)
        }
    }

    fn set(&mut self, handle: u32, cost: f64, parent: u32) {
        if handle >= SPARSE {
            let state = &mut self.sparse[(handle - SPARSE) as usize];
            state.cost = cost;
            state.parent = parent;
        } else {
            let slot = &mut self.slots[handle as usize];
            slot.cost = cost;
            slot.parent = parent;
            slot.mark = self.generation;
        }
    }

    fn is_closed(&self, handle: u32) -> bool {
        if handle >= SPARSE {
            self.sparse[(handle - SPARSE) as usize].closed
        } else {
            self.slots[handle as usize].mark == self.generation + 1
        }
    }

    fn close(&mut self, handle: u32) {
        if handle >= SPARSE {
            self.sparse[(handle - SPARSE) as usize].closed = true;
        } else {
            self.slots[handle as usize].mark = self.generation + 1;
        }
    }

    fn cost_of(&self, handle: u32) -> f64 {
        if handle >= SPARSE {
            self.sparse[(handle - SPARSE) as usize].cost
        } else {
            self.slots[handle as usize].cost
        }
    }

    fn parent_of(&self, handle: u32) -> u32 {
        if handle >= SPARSE {
            self.sparse[(handle - SPARSE) as usize].parent
        } else {
            self.slots[handle as usize].parent
        }
    }

    /// Bytes held.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<Slot>()
            + self.sparse.capacity() * size_of::<Sparse>()
            + self.sparse_index.capacity() * (size_of::<Key>() + size_of::<u32>() + 8)
            + self.open.memory_bytes()
            + self.local.memory_bytes()
            + self.bound.memory_bytes()
            + self.exact_memory_bytes()
            + self.block_flood.memory_bytes()
            + self.coarse.memory_bytes()
    }
}

/// Checks a query from `start` to `goal` over `hierarchy` before any search: the hierarchy is
/// of `grid`'s size, and both ends are on the grid and walkable.
pub(super) fn check_query(
    grid: &Grid,
    hierarchy: &Hierarchy,
    (start, goal): (Cell, Cell),
) -> Result<(), SearchError> {
    if hierarchy.check_grid(grid).is_err() {
        return Err(SearchError::Unsupported(
            "the hierarchy was made for a grid of another size",
        ));
    }
    validate_endpoints(grid, start, goal)
}

/// The most sector borders a path may cross for [`HierarchySearcher::find_path`] to search it
/// again inside the sectors it crosses.
const SHORT_ROUTE_CROSSINGS: usize = 4;

/// The share of a landmark's distance to the goal taken off its bound: the distances are kept
/// as `f32`.
const LANDMARK_SLACK: f64 = 1e-6;

const STALE: &str =
    "a leg of the route cannot be refined: the grid changed without Hierarchy::cells_changed";
