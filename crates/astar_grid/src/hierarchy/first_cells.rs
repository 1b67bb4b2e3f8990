//! The first cells of a long path, fast ([`HierarchySearcher::first_cells`]): a coarse route
//! over the sectors' regions ([`super::reach`]), then a way from the start towards the route's
//! next region, inside the start's sector.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::local::{Aim, LocalSearch, StepRules};
use super::reach::{
    REACH_CURRENT, REACH_ONE_REGION, around, is_one_region, offset_of, region_name, region_names,
};
use super::search::{KeyHasher, check_query};
use super::{Hierarchy, HierarchySearcher, SectorState};
use crate::movement::DIRECTIONS;
use crate::search::{OpenEntry, OpenList};
use crate::{Cell, Grid, Path, SearchError};

/// A region: its sector and its name (the smallest index of its nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    sector: u32,
    name: u8,
}

/// A region's state in the coarse search.
#[derive(Clone, Copy, Debug)]
struct RegionState {
    region: Region,
    /// Where the search places the region: the middle of its sector, as if every sector were
    /// whole (on the lattice of sectors' middles, a step to a neighbour is a sector's side).
    place: Cell,
    cost: f64,
    parent: u32,
    closed: bool,
}

const NO_PARENT: u32 = u32::MAX;

/// The weight of the coarse route's estimate. The route need only point the first cells the
/// right way; searched greedily, it expands hardly more regions than it takes.
const ROUTE_WEIGHT: f64 = 2.0;

/// The weight of the estimate of the way from the start to its sector's nodes: where streets
/// wind, a weighted search floods far fewer of the sector's cells.
const WAY_WEIGHT: f64 = 2.0;

/// Both bits a summary of reach needs for a coarse route to step on without reading the sector.
const REACH_FAST: u16 = REACH_ONE_REGION | REACH_CURRENT;

/// How the coarse search ended.
enum Coarse {
    /// The route's second region, the one after the start's.
    Route(Region),
    /// The goal's region cannot be reached.
    Unreachable,
    /// It met a sector not built: only the search over the nodes and cells can answer.
    Unbuilt,
}

/// What [`HierarchySearcher::quick_first_cells`] found.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum QuickFirstCells {
    /// The first cells: from the start to a node of its sector, or one step beyond.
    Cells(Path),
    /// The goal cannot be reached from the start.
    Unreachable,
    /// Only the search over the nodes can answer: the start and the goal share a sector, the
    /// start's or the goal's sector or one the coarse route meets is not built (or was marked
    /// by an edit since), or the grid has links.
    NeedsRoute,
}

/// Scratch memory of [`HierarchySearcher::first_cells`], kept between queries.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoarseSearch {
    states: Vec<RegionState>,
    /// Per sector, the search's stamp and the handle of its region 0's state, when the stamp is
    /// the current one.
    first_regions: Vec<(u32, u32)>,
    /// The handles of the states of other regions.
    other_regions: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    stamp: u32,
    open: OpenList,
    local: LocalSearch,
    /// The ends of a search inside a sector, with what each adds.
    ends: Vec<(Cell, f64)>,
    /// Per end that leaves the sector, the node of the next sector it steps onto, and the
    /// step's cost.
    arrivals: Vec<(Cell, f64)>,
    /// The regions one step from the one expanded, each with its place around (see
    /// [`around`]).
    next: Vec<(Region, usize)>,
}

impl CoarseSearch {
    pub(crate) fn memory_bytes(&self) -> usize {
        self.states.capacity() * size_of::<RegionState>()
            + self.first_regions.capacity() * size_of::<(u32, u32)>()
            + self.other_regions.capacity() * (size_of::<u64>() + size_of::<u32>() + 8)
            + self.open.memory_bytes()
            + self.local.memory_bytes()
            + (self.ends.capacity() + self.arrivals.capacity()) * size_of::<(Cell, f64)>()
            + self.next.capacity() * size_of::<(Region, usize)>()
    }

    /// The region of `sector` whose nodes `cell` reaches inside it, `None` when it reaches
    /// none: a search from the cell to its nearest node.
    fn region_reached(
        &mut self,
        (grid, hierarchy, rules): (&Grid, &Hierarchy, StepRules),
        sector: u32,
        cell: Cell,
    ) -> Option<Region> {
        let entry = &hierarchy.sectors[sector as usize];
        let local = match hierarchy.node_index(sector as usize, cell) {
            Some(local) => local,
            None => {
                // Any node tells the region: the search heads for the nearest in a straight
                // line, and stops at the first it settles.
                self.ends.clear();
                self.ends
                    .extend(entry.nodes.iter().map(|&node| (node, 0.0)));
                let nearest = self.ends.iter().copied().min_by(|a, b| {
                    rules
                        .estimate(cell, a.0)
                        .total_cmp(&rules.estimate(cell, b.0))
                });
                let rect = hierarchy.sector_rect_of(sector as usize);
                let (end, _) = self.local.path_to_any(
                    grid,
                    rules,
                    (rect, cell),
                    Aim {
                        ends: &self.ends,
                        guides: nearest.as_slice(),
                        weight: WAY_WEIGHT,
                    },
                    None,
                )?;
                end
            }
        };
        Some(Region {
            sector,
            name: region_names(entry)(local),
        })
    }

    /// The region after `from` on a route over the regions from `from` to `to`, by weighted
    /// A*: each step between neighbouring sectors costs the straight line between their
    /// middles, and the estimate is the straight line on to the goal's sector's middle.
    fn route(
        &mut self,
        (hierarchy, rules): (&Hierarchy, StepRules),
        from: Region,
        to: Region,
    ) -> Coarse {
        self.begin(hierarchy);
        let side = i64::from(hierarchy.options.sector_size);
        let middle = |sector: u32| {
            let rect = hierarchy.sector_rect_of(sector as usize);
            let half = hierarchy.options.sector_size / 2;
            Cell::new(rect.min.x + half, rect.min.y + half)
        };
        let (origin, target) = (middle(from.sector), middle(to.sector));
        let first = self.state_of(from, origin);
        self.states[first as usize].cost = 0.0;
        let h = rules.estimate(origin, target) * ROUTE_WEIGHT;
        self.open.push(OpenEntry::new(h, 0.0, first));
        while let Some(entry) = self.open.pop() {
            let handle = entry.id();
            let state = self.states[handle as usize];
            if state.closed {
                continue;
            }
            self.states[handle as usize].closed = true;
            if state.region == to {
                return Coarse::Route(self.second_of(handle));
            }
            if self.neighbours(hierarchy, state.region).is_err() {
                return Coarse::Unbuilt;
            }
            let here = state.place;
            for k in 0..self.next.len() {
                let (region, place) = self.next[k];
                let (dx, dy) = offset_of(place);
                let there = Cell::new(
                    (i64::from(here.x) + dx * side) as u32,
                    (i64::from(here.y) + dy * side) as u32,
                );
                let cost = state.cost + rules.estimate(here, there);
                let next_handle = self.state_of(region, there);
                let reached = &mut self.states[next_handle as usize];
                if !reached.closed && cost < reached.cost {
                    reached.cost = cost;
                    reached.parent = handle;
                    let h = rules.estimate(there, target) * ROUTE_WEIGHT;
                    self.open.push(OpenEntry::new(cost + h, cost, next_handle));
                }
            }
        }
        Coarse::Unreachable
    }

    /// Starts a coarse search over `hierarchy`.
    fn begin(&mut self, hierarchy: &Hierarchy) {
        self.states.clear();
        self.other_regions.clear();
        self.open.clear();
        let sectors = hierarchy.sectors.len();
        if self.first_regions.len() < sectors {
            self.first_regions.resize(sectors, (0, 0));
        }
        self.stamp = match self.stamp.checked_add(1) {
            Some(stamp) => stamp,
            None => {
                self.first_regions.fill((0, 0));
                1
            }
        };
    }

    /// The regions one step from `region`, each once, into `self.next`; `Err` when a step
    /// enters a sector not built. A neighbouring sector that is one region is looked up once.
    fn neighbours(&mut self, hierarchy: &Hierarchy, region: Region) -> Result<(), SectorState> {
        self.next.clear();
        if self.neighbours_summed(hierarchy, region.sector) {
            return Ok(());
        }
        self.next.clear();
        let rect = hierarchy.sector_rect_of(region.sector as usize);
        // Per sector of the 3 x 3 around, whether it is one region already among the next.
        let mut whole = [false; 9];
        let sector = &hierarchy.sectors[region.sector as usize];
        let name_of = region_names(sector);
        for (local, (&node, exits)) in sector.nodes.iter().zip(&sector.exits).enumerate() {
            if name_of(local) != region.name {
                continue;
            }
            for (&(dx, dy), &value) in DIRECTIONS.iter().zip(exits) {
                let Some(to_cell) = node.offset(dx, dy).filter(|_| value != 0) else {
                    continue;
                };
                let place = around(rect, to_cell);
                if whole[place] {
                    continue;
                }
                let Some(next) = hierarchy.sector_of(to_cell) else {
                    continue;
                };
                let beyond = &hierarchy.sectors[next];
                if beyond.state != SectorState::Built {
                    return Err(beyond.state);
                }
                let Some(arrival) = hierarchy.node_index(next, to_cell) else {
                    continue;
                };
                whole[place] = is_one_region(beyond);
                let found = Region {
                    sector: next as u32,
                    name: if whole[place] {
                        0
                    } else {
                        region_name(beyond, arrival)
                    },
                };
                if !self.next.iter().any(|&(known, _)| known == found) {
                    self.next.push((found, place));
                }
            }
        }
        Ok(())
    }

    /// The regions one step from `sector`, into `self.next`, read from the summaries of reach
    /// alone: `false` when the sector or one it steps into is not one region, or its summary
    /// is not current.
    fn neighbours_summed(&mut self, hierarchy: &Hierarchy, sector: u32) -> bool {
        let reach = hierarchy.reach(sector as usize);
        if reach & REACH_FAST != REACH_FAST {
            return false;
        }
        let columns = i64::from(hierarchy.columns);
        for place in (0..9).filter(|&place| reach & (1 << place) != 0) {
            let (dx, dy) = offset_of(place);
            let next = i64::from(sector) + dy * columns + dx;
            if hierarchy.reach(next as usize) & REACH_FAST != REACH_FAST {
                return false;
            }
            let region = Region {
                sector: next as u32,
                name: 0,
            };
            self.next.push((region, place));
        }
        true
    }

    /// The handle of `region`'s state, made (unreached, at `place`) when the search has none
    /// yet.
    fn state_of(&mut self, region: Region, place: Cell) -> u32 {
        let made = RegionState {
            region,
            place,
            cost: f64::INFINITY,
            parent: NO_PARENT,
            closed: false,
        };
        let states = &mut self.states;
        if region.name == 0 {
            let slot = &mut self.first_regions[region.sector as usize];
            if slot.0 != self.stamp {
                states.push(made);
                *slot = (self.stamp, (states.len() - 1) as u32);
            }
            return slot.1;
        }
        let key = u64::from(region.sector) << 8 | u64::from(region.name);
        *self.other_regions.entry(key).or_insert_with(|| {
            states.push(made);
            (states.len() - 1) as u32
        })
    }

    /// The region after the search's first on the way to the one at `handle` (that one when
    /// it follows the first).
    fn second_of(&self, handle: u32) -> Region {
        let mut at = self.states[handle as usize];
        while let Some(&parent) = self.states.get(at.parent as usize) {
            if parent.parent == NO_PARENT {
                break;
            }
            at = parent;
        }
        at.region
    }

    /// The way from `start` in its region `from` towards the neighbouring region `to` and the
    /// goal beyond: the cells from `start` to a node of `from` (the start left out of those),
    /// and, when that node steps onto a node of `to`, that node too; with the way's cost.
    ///
    /// The nodes of `from` that step onto one of `to` count the step and the straight line on
    /// to `goal`; the others, the cost inside the sector on to the best of those, which the
    /// sector keeps. A weighted search heads for the first, and ends at a node whose count
    /// the search's estimates cannot beat: where the streets wind, at a node on the way
    /// before the sector's edge towards `to`.
    fn way_out(
        &mut self,
        (grid, hierarchy, rules): (&Grid, &Hierarchy, StepRules),
        (start, goal): (Cell, Cell),
        (from, to): (Region, Region),
    ) -> Option<Path> {
        self.exits_onto(hierarchy, rules, goal, (from, to));
        let exits = self.ends.len();
        self.nodes_before_exits(hierarchy, start, from);
        let rect = hierarchy.sector_rect_of(from.sector as usize);
        let mut cells = Vec::new();
        let aim = Aim {
            ends: &self.ends,
            guides: &self.ends[..exits],
            weight: WAY_WEIGHT,
        };
        let (end, cost) =
            self.local
                .path_to_any(grid, rules, (rect, start), aim, Some(&mut cells))?;
        let Some(&(arrival, step)) = self.arrivals.get(end) else {
            return Some(Path { cells, cost });
        };
        cells.push(arrival);
        Some(Path {
            cells,
            cost: cost + step,
        })
    }

    /// Into `self.ends` and `self.arrivals`, the nodes of `from` that step onto a node of `to`,
    /// each once, counting its cheapest such step and the straight line on to `goal`.
    fn exits_onto(
        &mut self,
        hierarchy: &Hierarchy,
        rules: StepRules,
        goal: Cell,
        (from, to): (Region, Region),
    ) {
        let sector = &hierarchy.sectors[from.sector as usize];
        let beyond = &hierarchy.sectors[to.sector as usize];
        self.ends.clear();
        self.arrivals.clear();
        let (name_of, beyond_name_of) = (region_names(sector), region_names(beyond));
        for (local, &node) in sector.nodes.iter().enumerate() {
            if name_of(local) != from.name {
                continue;
            }
            for (to_cell, step) in sector.exits_of(local, rules) {
                let joins = hierarchy.sector_of(to_cell) == Some(to.sector as usize)
                    && hierarchy
                        .node_index(to.sector as usize, to_cell)
                        .is_some_and(|arrival| beyond_name_of(arrival) == to.name);
                if !joins {
                    continue;
                }
                let addition = step + rules.estimate(to_cell, goal);
                match (self.ends.last_mut(), self.arrivals.last_mut()) {
                    (Some(end), Some(arrival)) if end.0 == node => {
                        if addition < end.1 {
                            *end = (node, addition);
                            *arrival = (to_cell, step);
                        }
                    }
                    _ => {
                        self.ends.push((node, addition));
                        self.arrivals.push((to_cell, step));
                    }
                }
            }
        }
    }

    /// Adds to `self.ends` the other nodes of `from` but the start, each counting the cheapest
    /// over the ends already there of the cost inside the sector to that end plus its count.
    fn nodes_before_exits(&mut self, hierarchy: &Hierarchy, start: Cell, from: Region) {
        let sector = &hierarchy.sectors[from.sector as usize];
        let count = sector.nodes.len();
        let exits: Vec<(usize, f64)> = self
            .ends
            .iter()
            .filter_map(|&(node, addition)| {
                let local = hierarchy.node_index(from.sector as usize, node)?;
                Some((local, addition))
            })
            .collect();
        let name_of = region_names(sector);
        for (local, &node) in sector.nodes.iter().enumerate() {
            let is_exit = exits.iter().any(|&(exit, _)| exit == local);
            if node == start || is_exit || name_of(local) != from.name {
                continue;
            }
            let row = &sector.costs[local * count..][..count];
            let on = exits
                .iter()
                .map(|&(exit, addition)| f64::from(row[exit].abs()) + addition)
                .fold(f64::INFINITY, f64::min);
            if on.is_finite() {
                self.ends.push((node, on));
            }
        }
    }
}

impl HierarchySearcher {
    /// The first cells of a path from `start` to `goal`: what an agent walks while the rest of
    /// its path is searched ([`HierarchySearcher::find_path`] from the last of them), in a small
    /// part of the time the whole path takes on a huge map. They run from the start to a node
    /// of its sector (a cell on its border) or one step beyond, or to the goal when the path
    /// stays inside. `None` when the goal cannot be reached.
    ///
    /// - `grid`: the map; `hierarchy`: a hierarchy of it, told of every edit since
    ///   ([`Hierarchy::cells_changed`]).
    /// - `start`, `goal`: the two ends; both must be walkable.
    ///
    /// How: a route over the sectors' regions (each a set of a sector's nodes joined inside
    /// it), by A* with a weighted estimate, a step between neighbouring sectors counting the
    /// straight line between their middles; then a weighted search inside the start's sector
    /// towards the nodes that step onto the route's next region, each counting its step and
    /// the straight line on to the goal. It ends at such a node and steps across, or, where
    /// walls make the way wind, at a node on the way whose cost inside the sector on to those
    /// nodes (which the sector keeps) makes it as good. Neither search reads a sector's costs
    /// beyond the start's nor any cell outside it.
    ///
    /// The cells are legal, and the goal can be reached from the last one. The path they
    /// begin is not always near optimal, since the route over regions knows nothing of the
    /// detours inside sectors: on a 4096 x 4096 city-like map, first cells and the rest
    /// together cost 0.8% more than optimal on average (`BENCHMARKS.md`). Where the start and
    /// goal share a sector, a sector the route meets is not built yet, or the grid has links,
    /// the first cells are those of [`HierarchySearcher::route`]'s path, refined until they
    /// leave the start's sector.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher};
    ///
    /// let mut grid = Grid::new(64, 64);
    /// grid.fill_rect(Cell::new(30, 0), Cell::new(33, 59), 0); // a wall, open at the top
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
    /// let mut searcher = HierarchySearcher::new();
    /// let (start, goal) = (Cell::new(5, 5), Cell::new(60, 5));
    /// let first = searcher.first_cells(&grid, &hierarchy, start, goal)?.expect("round the wall");
    /// // From the start to its sector's border or one step beyond, each step a legal move...
    /// assert_eq!(first.start(), Some(start));
    /// let last = *first.cells.last().unwrap();
    /// assert!(first.cells[..first.cells.len() - 1].iter().all(|c| c.x < 16 && c.y < 16));
    /// assert!(last.x >= 15 || last.y >= 15);
    /// assert!(first.cells.windows(2).all(|step| step[0].is_adjacent_8(step[1])));
    /// // ...and the rest of the way from there.
    /// let rest = searcher.find_path(&grid, &hierarchy, last, goal)?;
    /// assert_eq!(rest.found().and_then(|path| path.end()), Some(goal));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// No first cells where the goal is walled off:
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher};
    ///
    /// let mut grid = Grid::new(64, 64);
    /// grid.fill_rect(Cell::new(30, 0), Cell::new(33, 63), 0); // a whole wall
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
    /// let first = HierarchySearcher::new().first_cells(&grid, &hierarchy, Cell::new(5, 5), Cell::new(60, 5))?;
    /// assert!(first.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HierarchySearcher::find_path`].
    pub fn first_cells(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        start: Cell,
        goal: Cell,
    ) -> Result<Option<Path>, SearchError> {
        match self.quick_first_cells(grid, hierarchy, start, goal)? {
            QuickFirstCells::Cells(path) => Ok(Some(path)),
            QuickFirstCells::Unreachable => Ok(None),
            QuickFirstCells::NeedsRoute => self.first_cells_of_route(grid, hierarchy, start, goal),
        }
    }

    /// [`HierarchySearcher::first_cells`] without its fall back to the route's first leg: where
    /// only the search over the nodes can answer, it says so
    /// ([`QuickFirstCells::NeedsRoute`]) instead of searching. For a caller with a deadline,
    /// such as a frame's main thread, which can then leave the whole path to a search in the
    /// background. Its work is bounded by the sectors' regions (the coarse route, which visits
    /// every region the start reaches when the goal is out of reach) and two sectors' cells
    /// (the start's and the goal's).
    ///
    /// - `grid`: the map; `hierarchy`: a hierarchy of it, told of every edit since
    ///   ([`Hierarchy::cells_changed`]).
    /// - `start`, `goal`: the two ends; both must be walkable.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, QuickFirstCells};
    ///
    /// let mut grid = Grid::new(64, 64);
    /// grid.fill_rect(Cell::new(30, 0), Cell::new(33, 59), 0); // a wall, open at the top
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
    /// let mut searcher = HierarchySearcher::new();
    /// let (start, goal) = (Cell::new(5, 5), Cell::new(60, 5));
    /// let QuickFirstCells::Cells(first) = searcher.quick_first_cells(&grid, &hierarchy, start, goal)? else {
    ///     panic!("every sector is built: the first cells come at once");
    /// };
    /// assert_eq!(first.start(), Some(start));
    /// // Start and goal in one sector: the search over the nodes answers.
    /// let near = searcher.quick_first_cells(&grid, &hierarchy, start, Cell::new(9, 9))?;
    /// assert_eq!(near, QuickFirstCells::NeedsRoute);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A sector an edit marked is not read until it is built again:
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, QuickFirstCells};
    ///
    /// let mut grid = Grid::new(64, 64);
    /// let mut hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
    /// grid.set_blocked(Cell::new(3, 3), true)?;
    /// hierarchy.cells_changed([Cell::new(3, 3)]);
    /// let mut searcher = HierarchySearcher::new();
    /// let (start, goal) = (Cell::new(5, 5), Cell::new(60, 60));
    /// assert_eq!(searcher.quick_first_cells(&grid, &hierarchy, start, goal)?, QuickFirstCells::NeedsRoute);
    /// hierarchy.build_sectors(&grid, usize::MAX)?;
    /// assert!(matches!(searcher.quick_first_cells(&grid, &hierarchy, start, goal)?, QuickFirstCells::Cells(_)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HierarchySearcher::find_path`].
    pub fn quick_first_cells(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        start: Cell,
        goal: Cell,
    ) -> Result<QuickFirstCells, SearchError> {
        check_query(grid, hierarchy, (start, goal))?;
        let (Some(start_sector), Some(goal_sector)) =
            (hierarchy.sector_of(start), hierarchy.sector_of(goal))
        else {
            return Err(SearchError::Unsupported("an end lies off the hierarchy"));
        };
        let built = |sector: usize| hierarchy.sectors[sector].state == SectorState::Built;
        if start_sector == goal_sector
            || !built(start_sector)
            || !built(goal_sector)
            || grid.links.has_steps()
        {
            return Ok(QuickFirstCells::NeedsRoute);
        }
        let rules = StepRules::new(hierarchy.options.movement, hierarchy.options.cost);
        let on = (grid, hierarchy, rules);
        let coarse = &mut self.coarse;
        // A start in a sector that is one region is in its region 0 if it reaches any node; one
        // that reaches none finds no way out below, and has no path.
        let one_region = is_one_region(&hierarchy.sectors[start_sector]);
        let from = if one_region {
            Some(Region {
                sector: start_sector as u32,
                name: 0,
            })
        } else {
            coarse.region_reached(on, start_sector as u32, start)
        };
        let (Some(from), Some(to)) = (from, coarse.region_reached(on, goal_sector as u32, goal))
        else {
            // The start or the goal reaches no node of its sector: neither can leave it.
            return Ok(QuickFirstCells::Unreachable);
        };
        let next = match coarse.route((hierarchy, rules), from, to) {
            Coarse::Route(next) => next,
            Coarse::Unreachable => return Ok(QuickFirstCells::Unreachable),
            Coarse::Unbuilt => return Ok(QuickFirstCells::NeedsRoute),
        };
        Ok(match coarse.way_out(on, (start, goal), (from, next)) {
            Some(path) => QuickFirstCells::Cells(path),
            None if one_region => QuickFirstCells::Unreachable,
            None => QuickFirstCells::NeedsRoute,
        })
    }

    /// The first cells of [`HierarchySearcher::route`]'s path: its legs refined until the
    /// cells leave the start's sector or reach the goal.
    fn first_cells_of_route(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        start: Cell,
        goal: Cell,
    ) -> Result<Option<Path>, SearchError> {
        let Some(mut route) = self.route(grid, hierarchy, start, goal)? else {
            return Ok(None);
        };
        let sector = hierarchy.sector_of(start);
        let mut cells = vec![start];
        while !route.is_refined() && cells.last().and_then(|&c| hierarchy.sector_of(c)) == sector {
            self.refine_next(grid, hierarchy, &mut route, &mut cells)?;
        }
        Ok(Some(Path {
            cells,
            cost: route.refined_cost(),
        }))
    }
}
