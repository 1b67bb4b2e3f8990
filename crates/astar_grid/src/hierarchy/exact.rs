//! Exact search over a hierarchy ([`HierarchySearcher::find_exact_path`]): A* over the cells of
//! the sectors that an optimal path may cross, guided by the sides' lower bounds.

use super::bounds::SideSearch;
use super::local::{Rect, StepRules};
use super::{Hierarchy, HierarchySearcher};
use crate::movement::DIRECTIONS;
use crate::search::{OpenEntry, OpenList};
use crate::{Cell, Grid, Path, SearchError, SearchResult, SearchStats, SearchStatus};

/// A sector the search leaves out.
const LEFT_OUT: u32 = u32::MAX;
/// The start's parent.
const NO_PARENT: u32 = u32::MAX;
/// Relative slack on the hierarchical path's cost when leaving sectors out: sums of equal
/// paths taken in different orders differ in their last bits.
const BOUND_SLACK: f64 = 1e-9;

/// Scratch memory of exact searches: the side bounds, and per cell of each sector searched its
/// cost, parent and mark.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExactSearch {
    sides: SideSearch,
    /// Per sector, its slot among those searched, or [`LEFT_OUT`].
    slot_of: Vec<u32>,
    /// Per slot, its sector.
    sectors: Vec<u32>,
    cost: Vec<f64>,
    /// The estimate at the cell, computed when it is first reached.
    estimate: Vec<f64>,
    parent: Vec<u32>,
    /// `generation` when reached in this search, `generation + 1` once expanded.
    mark: Vec<u32>,
    generation: u32,
    open: OpenList,
}

/// What one exact query reads.
struct Query<'a> {
    grid: &'a Grid,
    hierarchy: &'a Hierarchy,
    goal: Cell,
    goal_sector: usize,
    /// The hierarchy's movement, costs and estimate.
    rules: StepRules,
    /// The cells of a full sector.
    area: usize,
    /// The least cost of one step.
    step: f64,
    /// Whether the grid has links, which the straight-line estimate does not bound.
    links: bool,
    /// Paths dearer than this are not wanted: a path this cheap exists.
    limit: f64,
}

impl HierarchySearcher {
    /// An optimal path from `start` to `goal` over `grid`, using `hierarchy` to leave out what
    /// no optimal path can cross.
    ///
    /// - `grid`: the map, with its terrain costs and links.
    /// - `hierarchy`: a hierarchy of `grid` built with
    ///   [`HierarchyOptions::exact_bounds`](crate::HierarchyOptions::exact_bounds), told of every
    ///   edit since ([`Hierarchy::cells_changed`]). Sectors still waiting to be built are
    ///   searched, with weaker bounds.
    /// - `start`, `goal`: the two ends; both must be walkable.
    ///
    /// How: the hierarchical path ([`HierarchySearcher::find_path`]) costs `U`, at least the
    /// optimum. Dijkstra's algorithm over every sector's sides (each sector keeps the least
    /// cost inside it between its sides) bounds from below the cost of any path through each
    /// sector; sectors whose bound exceeds `U` are left out, and the others are searched by A*
    /// with the larger of the straight-line estimate and the sides' bound to the goal (an
    /// admissible estimate; cells reached again more cheaply are expanded again). When the
    /// bound at the start already equals `U`, the hierarchical path is returned as it is.
    /// [`SearchStats::expanded`] counts the hierarchical route's expansions and the A*'s.
    ///
    /// **Speed.** On the maps measured (`BENCHMARKS.md`) the bounds leave out few of the cells
    /// that A* expands anyway, and this search is 3 to 4 times slower than
    /// [`Searcher`](crate::Searcher)'s A* and slower still than jump point search: for optimal
    /// paths, prefer those. Its memory grows with the sectors searched, 24 bytes a cell.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, Searcher, SearchOptions};
    ///
    /// let mut grid = Grid::new(128, 128);
    /// grid.fill_rect(Cell::new(60, 10), Cell::new(63, 127), 0); // a wall, open at the top
    /// let options = HierarchyOptions::default().with_sector_size(16).with_exact_bounds(true);
    /// let hierarchy = Hierarchy::build(&grid, options)?;
    /// let (start, goal) = (Cell::new(5, 120), Cell::new(120, 120));
    /// let exact = HierarchySearcher::new().find_exact_path(&grid, &hierarchy, start, goal)?;
    /// let optimal = Searcher::new().find_path(&grid, start, goal, &SearchOptions::default())?;
    /// let (exact, optimal) = (exact.found().expect("round the wall"), optimal.found().expect("round the wall"));
    /// assert!((exact.cost - optimal.cost).abs() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A goal that cannot be reached gives [`SearchStatus::NoPath`]:
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, SearchStatus};
    ///
    /// let mut grid = Grid::new(64, 64);
    /// grid.fill_rect(Cell::new(30, 0), Cell::new(31, 63), 0); // a whole wall
    /// let options = HierarchyOptions::default().with_sector_size(16).with_exact_bounds(true);
    /// let hierarchy = Hierarchy::build(&grid, options)?;
    /// let result = HierarchySearcher::new().find_exact_path(&grid, &hierarchy, Cell::new(0, 0), Cell::new(63, 0))?;
    /// assert_eq!(result.status, SearchStatus::NoPath);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HierarchySearcher::find_path`]; [`SearchError::Unsupported`] for a hierarchy built
    /// without [`HierarchyOptions::exact_bounds`](crate::HierarchyOptions::exact_bounds).
    pub fn find_exact_path(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        start: Cell,
        goal: Cell,
    ) -> Result<SearchResult, SearchError> {
        self.exact.sectors.clear();
        if !hierarchy.options.exact_bounds {
            return Err(SearchError::Unsupported(
                "exact searches need a hierarchy built with HierarchyOptions::exact_bounds",
            ));
        }
        let upper = self.find_path(grid, hierarchy, start, goal)?;
        let Some(found) = upper.path.as_ref() else {
            return Ok(upper);
        };
        let exact = &mut self.exact;
        exact.sides.measure(grid, hierarchy, (start, goal));
        let size = hierarchy.options.sector_size as usize;
        let rules = hierarchy.rules();
        let query = Query {
            grid,
            hierarchy,
            goal,
            goal_sector: hierarchy.sector_of(goal).unwrap_or(0),
            rules,
            area: size * size,
            step: rules.cost.least_step(rules.movement.neighborhood),
            links: grid.links.has_steps(),
            limit: found.cost * (1.0 + BOUND_SLACK) + BOUND_SLACK,
        };
        let at_start = exact.estimate(&query, start);
        // A path exists, so a lower bound on its cost is finite.
        debug_assert!(at_start.is_finite(), "the bound at the start is infinite");
        if found.cost <= at_start {
            return Ok(upper);
        }
        exact.choose_sectors(&query, start);
        let (path, stats) = exact.search(&query, start);
        let stats = SearchStats {
            expanded: upper.stats.expanded + stats.expanded,
            pushed: upper.stats.pushed + stats.pushed,
        };
        Ok(SearchResult {
            status: SearchStatus::Found,
            // The search cannot miss a path the hierarchy found; keep that one if it did.
            path: Some(path.unwrap_or_else(|| {
                debug_assert!(false, "the bounds left out every path the hierarchy found");
                found.clone()
            })),
            stats,
            trace: None,
        })
    }

    /// How many sectors the last exact search looked into (0 when the hierarchical path was
    /// optimal on its face, or there was none).
    #[must_use]
    pub fn exact_sectors_searched(&self) -> usize {
        self.exact.sectors.len()
    }

    /// Bytes held by exact searches.
    pub(crate) fn exact_memory_bytes(&self) -> usize {
        let exact = &self.exact;
        exact.sides.memory_bytes()
            + (exact.slot_of.capacity() + exact.sectors.capacity()) * size_of::<u32>()
            + (exact.cost.capacity() + exact.estimate.capacity()) * size_of::<f64>()
            + (exact.parent.capacity() + exact.mark.capacity()) * size_of::<u32>()
            + exact.open.memory_bytes()
    }
}

impl ExactSearch {
    /// The admissible estimate of the cost from `cell` to the goal.
    fn estimate(&self, query: &Query<'_>, cell: Cell) -> f64 {
        // With links the straight line may overestimate: only the sides' bound holds.
        let direct = if query.links {
            0.0
        } else {
            query.rules.estimate(cell, query.goal)
        };
        let sector = query.hierarchy.sector_of(cell).unwrap_or(0);
        if sector == query.goal_sector {
            return direct;
        }
        let rect = query.hierarchy.sector_rect_of(sector);
        direct.max(self.sides.to_goal_from((sector, rect), cell, query.step))
    }

    /// Gives a slot to each sector an optimal path may cross: the start's and the goal's, and
    /// every other whose bound is within the query's limit.
    fn choose_sectors(&mut self, query: &Query<'_>, start: Cell) {
        let hierarchy = query.hierarchy;
        let start_sector = hierarchy.sector_of(start).unwrap_or(0);
        self.slot_of.clear();
        self.slot_of.resize(hierarchy.sectors.len(), LEFT_OUT);
        self.sectors.clear();
        for sector in 0..hierarchy.sectors.len() {
            let ends = sector == start_sector || sector == query.goal_sector;
            if ends || self.sides.through(sector) <= query.limit {
                self.slot_of[sector] = self.sectors.len() as u32;
                self.sectors.push(sector as u32);
            }
        }
        let cells = self.sectors.len() * query.area;
        if self.mark.len() < cells {
            self.cost.resize(cells, 0.0);
            self.estimate.resize(cells, 0.0);
            self.parent.resize(cells, NO_PARENT);
            self.mark.resize(cells, 0);
        }
        match self.generation.checked_add(2) {
            Some(next) if next < u32::MAX - 1 => self.generation = next,
            _ => {
                self.mark.fill(0);
                self.generation = 2;
            }
        }
    }

    /// The slot index of `cell`, when its sector is searched.
    fn local(&self, query: &Query<'_>, cell: Cell) -> Option<usize> {
        let sector = query.hierarchy.sector_of(cell)?;
        let slot = self.slot_of[sector];
        if slot == LEFT_OUT {
            return None;
        }
        let rect: Rect = query.hierarchy.sector_rect_of(sector);
        let size = query.hierarchy.options.sector_size as usize;
        Some(
            slot as usize * query.area
                + (cell.y - rect.min.y) as usize * size
                + (cell.x - rect.min.x) as usize,
        )
    }

    /// A* from `start` over the slotted sectors; reopens a cell reached again more cheaply,
    /// since the estimate is admissible but not always consistent.
    fn search(&mut self, query: &Query<'_>, start: Cell) -> (Option<Path>, SearchStats) {
        let mut stats = SearchStats::default();
        self.open.clear();
        let Some(first) = self.local(query, start) else {
            return (None, stats);
        };
        let h = self.estimate(query, start);
        self.estimate[first] = h;
        self.reach(first, 0.0, NO_PARENT);
        self.open.push(OpenEntry::new(h, 0.0, first as u32));
        let (grid, rules) = (query.grid, query.rules);
        let directions = rules.directions();
        while let Some(entry) = self.open.pop() {
            let local = entry.id() as usize;
            let cost = self.cost[local];
            let current = OpenEntry::new(cost + self.estimate[local], cost, entry.id());
            if entry != current {
                continue; // stale: reached again more cheaply since
            }
            let cell = self.cell_of(query, local);
            stats.expanded += 1;
            self.mark[local] = self.generation + 1;
            if cell == query.goal {
                return (Some(self.path_to(query, local)), stats);
            }
            let index = grid.index(cell);
            for &(dx, dy) in &DIRECTIONS[..directions] {
                if let Some(next) = rules.walk(grid, index, (dx, dy)) {
                    let step = rules.base((dx, dy)) * f64::from(grid.raw()[next]);
                    stats.pushed +=
                        u32::from(self.relax(query, (local, cost + step), grid.cell_at(next)));
                }
            }
            if query.links {
                for step in grid.links.steps_from(index) {
                    let next = grid.cell_at(step.to as usize);
                    if grid.is_walkable(next) {
                        stats.pushed +=
                            u32::from(self.relax(query, (local, cost + step.cost), next));
                    }
                }
            }
        }
        (None, stats)
    }

    /// Reaches `next` from slot `from` at cost `cost` when its sector is searched, the cost is
    /// lower than it had, and a path through it may be within the limit; returns whether it
    /// did.
    fn relax(&mut self, query: &Query<'_>, (from, cost): (usize, f64), next: Cell) -> bool {
        let Some(local) = self.local(query, next) else {
            return false;
        };
        let h = if self.mark[local] >= self.generation {
            if cost >= self.cost[local] {
                return false;
            }
            self.estimate[local]
        } else {
            let h = self.estimate(query, next);
            self.estimate[local] = h;
            h
        };
        let f = cost + h;
        if !f.is_finite() || f > query.limit {
            return false;
        }
        self.reach(local, cost, from as u32);
        self.open.push(OpenEntry::new(f, cost, local as u32));
        true
    }

    fn reach(&mut self, local: usize, cost: f64, parent: u32) {
        self.mark[local] = self.generation;
        self.cost[local] = cost;
        self.parent[local] = parent;
    }

    fn cell_of(&self, query: &Query<'_>, local: usize) -> Cell {
        let sector = self.sectors[local / query.area] as usize;
        let rect = query.hierarchy.sector_rect_of(sector);
        let size = query.hierarchy.options.sector_size as usize;
        let within = local % query.area;
        Cell::new(
            rect.min.x + (within % size) as u32,
            rect.min.y + (within / size) as u32,
        )
    }

    fn path_to(&self, query: &Query<'_>, goal: usize) -> Path {
        let mut cells = Vec::new();
        let mut at = goal as u32;
        while at != NO_PARENT {
            cells.push(self.cell_of(query, at as usize));
            at = self.parent[at as usize];
        }
        cells.reverse();
        Path {
            cells,
            cost: self.cost[goal],
        }
    }
}

#[cfg(test)]
mod tests {
    //! The exact search's bounds against Dijkstra's algorithm over the same steps: the estimate
    //! never exceeds the cost to the goal, and a sector's bound never exceeds the cost of any
    //! path through it. The search itself is checked against an independent oracle in
    //! `tests/hierarchy.rs`.

    use super::*;
    use crate::hierarchy::HierarchyOptions;
    use crate::{CornerRule, CostModel, Link, Movement};
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Costs from `source` to every cell (forwards) or from every cell to it (backwards), over
    /// the steps and open links the searches take.
    fn dijkstra(grid: &Grid, rules: StepRules, source: Cell, forwards: bool) -> Vec<f64> {
        let cells: Vec<Cell> = (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
            .collect();
        // Every step as (from, to, cost), reversed when searching backwards.
        let mut edges = vec![Vec::new(); cells.len()];
        let at = |cell: Cell| (cell.y * grid.width() + cell.x) as usize;
        for &cell in cells.iter().filter(|&&cell| grid.is_walkable(cell)) {
            let index = grid.index(cell);
            for &(dx, dy) in &DIRECTIONS[..rules.directions()] {
                if let Some(next) = rules.walk(grid, index, (dx, dy)) {
                    let step = rules.base((dx, dy)) * f64::from(grid.raw()[next]);
                    let next = grid.cell_at(next);
                    let (a, b) = if forwards { (cell, next) } else { (next, cell) };
                    edges[at(a)].push((b, step));
                }
            }
            for step in grid.links.steps_from(index) {
                let next = grid.cell_at(step.to as usize);
                if grid.is_walkable(next) {
                    let (a, b) = if forwards { (cell, next) } else { (next, cell) };
                    edges[at(a)].push((b, step.cost));
                }
            }
        }
        let mut best = vec![f64::INFINITY; cells.len()];
        let mut heap = BinaryHeap::new();
        best[at(source)] = 0.0;
        heap.push(Reverse((0f64.to_bits(), source.x, source.y)));
        while let Some(Reverse((bits, x, y))) = heap.pop() {
            let cell = Cell::new(x, y);
            if f64::from_bits(bits) > best[at(cell)] {
                continue;
            }
            for &(next, step) in &edges[at(cell)] {
                let cost = f64::from_bits(bits) + step;
                if cost < best[at(next)] {
                    best[at(next)] = cost;
                    heap.push(Reverse((cost.to_bits(), next.x, next.y)));
                }
            }
        }
        best
    }

    fn grid_of(width: u32, height: u32, values: &[u8], walls: &[(bool, u32, u32)]) -> Grid {
        let mut grid = Grid::from_fn(width, height, |cell| {
            values[(cell.y * width + cell.x) as usize % values.len()]
        });
        for &(across, line, gap) in walls {
            let (length, span) = if across {
                (width, height)
            } else {
                (height, width)
            };
            for along in (0..length).filter(|&along| along != gap % length) {
                let cell = if across {
                    Cell::new(along, line % span)
                } else {
                    Cell::new(line % span, along)
                };
                grid.set_cost(cell, 0).expect("inside");
            }
        }
        grid
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn bounds_never_exceed_the_costs_they_bound(
            (width, height) in (1u32..=30, 1u32..=30),
            values in prop::collection::vec(prop_oneof![2 => Just(1u8), 1 => 0u8..=6], 1..=40),
            walls in prop::collection::vec((any::<bool>(), 0u32..30, 0u32..30), 0..=4),
            links in prop::collection::vec((0u32..900, 0u32..900, 0.0..20.0f64), 0..=2),
            size in 2u32..=8,
            movement in prop::sample::select(vec![
                Movement::FOUR,
                Movement::eight(CornerRule::Both),
                Movement::eight(CornerRule::One),
                Movement::eight(CornerRule::Any),
            ]),
            (straight, diagonal) in (1u32..=20, 1u32..=40),
            built in prop_oneof![3 => Just(usize::MAX), 1 => 0usize..20],
            ends in (0u32..900, 0u32..900),
            walled in prop::option::of((0u32..100, 0u32..900, 0u32..900, 0.0..20.0f64)),
        ) {
            let mut grid = grid_of(width, height, &values, &walls);
            // A sector walled in on all four sides, its inside reached and left by links only.
            let mut room = None;
            if let Some((sector, ..)) = walled {
                let (columns, rows) = (width.div_ceil(size), height.div_ceil(size));
                let (column, row) = (sector % columns, sector / columns % rows);
                let (min, max) = (
                    Cell::new(column * size, row * size),
                    Cell::new(((column + 1) * size - 1).min(width - 1), ((row + 1) * size - 1).min(height - 1)),
                );
                for y in min.y..=max.y {
                    for x in min.x..=max.x {
                        let ring = x == min.x || x == max.x || y == min.y || y == max.y;
                        grid.set_cost(Cell::new(x, y), if ring { 0 } else { 1 }).expect("inside");
                    }
                }
                room = (max.x > min.x + 1 && max.y > min.y + 1).then(|| Cell::new(min.x + 1, min.y + 1));
            }
            let open: Vec<Cell> = (0..height)
                .flat_map(|y| (0..width).map(move |x| Cell::new(x, y)))
                .filter(|&cell| grid.is_walkable(cell))
                .collect();
            prop_assume!(!open.is_empty());
            let pick = |n: u32| open[n as usize % open.len()];
            for &(from, to, cost) in &links {
                grid.add_link(Link::new(pick(from), pick(to), cost).one_way()).expect("walkable ends");
            }
            if let (Some(inside), Some((_, into, out_of, cost))) = (room, walled) {
                grid.add_link(Link::new(pick(into), inside, cost).one_way()).expect("walkable ends");
                grid.add_link(Link::new(inside, pick(out_of), cost).one_way()).expect("walkable ends");
            }
            let options = HierarchyOptions::default()
                .with_sector_size(size)
                .with_movement(movement)
                .with_cost(CostModel::Integer { straight, diagonal })
                .with_exact_bounds(true);
            let mut hierarchy = Hierarchy::new(&grid, options).expect("valid options");
            hierarchy.build_sectors(&grid, built).expect("same grid");
            let (start, goal) = (pick(ends.0), pick(ends.1));
            let rules = hierarchy.rules();
            let from_start = dijkstra(&grid, rules, start, true);
            let to_goal = dijkstra(&grid, rules, goal, false);
            let mut exact = ExactSearch::default();
            exact.sides.measure(&grid, &hierarchy, (start, goal));
            let query = Query {
                grid: &grid,
                hierarchy: &hierarchy,
                goal,
                goal_sector: hierarchy.sector_of(goal).unwrap_or(0),
                rules,
                area: (size * size) as usize,
                step: rules.cost.least_step(rules.movement.neighborhood),
                links: grid.links.has_steps(),
                limit: f64::INFINITY,
            };
            let slack = |cost: f64| cost * 1e-6 + 1e-6;
            let ends = [hierarchy.sector_of(start), hierarchy.sector_of(goal)];
            for (index, &cell) in open.iter().enumerate() {
                let at = (cell.y * width + cell.x) as usize;
                let estimate = exact.estimate(&query, cell);
                prop_assert!(
                    estimate <= to_goal[at] + slack(to_goal[at]),
                    "estimate {} at {} beyond the cost {} to {}", estimate, cell, to_goal[at], goal
                );
                let sector = hierarchy.sector_of(cell);
                if !ends.contains(&sector) {
                    let through = exact.sides.through(sector.unwrap_or(0));
                    let cost = from_start[at] + to_goal[at];
                    prop_assert!(
                        through <= cost + slack(cost),
                        "sector bound {} beyond the cost {} through {} (cell {})", through, cost, cell, index
                    );
                }
            }
        }
    }
}
