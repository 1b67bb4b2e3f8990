//! The A* loop: an [`ActiveSearch`] that expands cells in budgets until it finishes.

use super::{
    Limit, Node, OpenEntry, Path, SearchError, SearchOptions, SearchResult, SearchStats,
    SearchStatus, SearchTrace, Searcher, TracedCell,
};
use crate::heuristic::HeuristicFn;
use crate::movement::DIRECTIONS;
use crate::{Cell, CornerRule, Grid, Neighborhood, Weighting};
use std::collections::HashMap;

/// A search in progress. Advance it with [`ActiveSearch::advance`] (a few expansions at a time,
/// for example one budget per frame) or finish it with [`ActiveSearch::run`]; either way the
/// result is the same as an uninterrupted search.
///
/// ```
/// use astar_grid::{Cell, Grid, SearchOptions, Searcher, Step};
///
/// let grid = Grid::new(64, 64);
/// let mut searcher = Searcher::new();
/// let mut search = searcher.begin(&grid, Cell::new(0, 0), Cell::new(63, 40), &SearchOptions::default())?;
/// let result = loop {
///     match search.advance(16) {
///         Step::Pending(more) => search = more,
///         Step::Done(result) => break result,
///     }
/// };
/// assert_eq!(result.path.expect("open grid").cells.len(), 64);
/// # Ok::<(), astar_grid::SearchError>(())
/// ```
#[derive(Debug)]
pub struct ActiveSearch<'a> {
    searcher: &'a mut Searcher,
    grid: &'a Grid,
    plan: Plan,
    stats: SearchStats,
    /// Expanded cell with the lowest heuristic so far, for partial paths: (index, h).
    closest: (usize, f64),
}

/// What [`ActiveSearch::advance`] returns.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "returned once per budget of expansions; boxing would allocate on every step"
)]
pub enum Step<'a> {
    /// The budget ran out before the search finished; advance it again.
    Pending(ActiveSearch<'a>),
    /// The search finished.
    Done(SearchResult),
}

/// Everything about a search that is fixed once it starts, resolved for the inner loop.
#[derive(Clone, Copy, Debug)]
struct Plan {
    goal: usize,
    goal_x: u32,
    goal_y: u32,
    directions: usize,
    delta: [isize; 8],
    step: [f64; 8],
    corner_a: [isize; 8],
    corner_b: [isize; 8],
    corners: CornerRule,
    heuristic: HeuristicFn,
    weight: WeightPlan,
    max_expansions: u32,
    /// Padded inclusive bounds (min x, min y, max x, max y), when a window is set.
    window: Option<[u32; 4]>,
    /// Whether the window leaves out part of the grid (so exhausting it proves nothing).
    window_clips: bool,
    partial: bool,
    trace: bool,
}

#[derive(Clone, Copy, Debug)]
enum WeightPlan {
    Static(f64),
    Dynamic { epsilon: f64, h_start: f64 },
}

impl WeightPlan {
    #[inline]
    fn weigh(self, h: f64) -> f64 {
        match self {
            Self::Static(weight) => weight * h,
            // The weight never exceeds 1 + epsilon, even at cells farther from the goal than
            // the start, so that the cost bound holds.
            Self::Dynamic { epsilon, h_start } => (1.0 + epsilon * (h / h_start).min(1.0)) * h,
        }
    }
}

impl<'a> ActiveSearch<'a> {
    pub(crate) fn new(
        searcher: &'a mut Searcher,
        grid: &'a Grid,
        start: Cell,
        goal: Cell,
        options: &SearchOptions,
    ) -> Result<Self, SearchError> {
        let plan = Plan::new(grid, start, goal, options)?;
        let open_stamp = searcher.next_generation(grid.raw().len());
        let start_index = grid.index(start);
        searcher.nodes[start_index] = Node {
            g: 0.0,
            parent: start_index as u32,
            stamp: open_stamp,
        };
        let h = plan.heuristic_at(grid, start_index);
        searcher.open.push(OpenEntry::new(
            plan.weight.weigh(h),
            0.0,
            start_index as u32,
        ));
        if plan.trace {
            searcher.touched.push((start_index as u32, 0));
        }
        Ok(Self {
            searcher,
            grid,
            plan,
            stats: SearchStats {
                expanded: 0,
                pushed: 1,
            },
            closest: (start_index, h),
        })
    }

    /// Work done so far.
    #[must_use]
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Runs the search to the end.
    #[must_use]
    pub fn run(self) -> SearchResult {
        match self.advance(u32::MAX) {
            Step::Done(result) => result,
            Step::Pending(search) => search.run(),
        }
    }

    /// Expands at most `budget` more cells, then reports whether the search finished.
    #[must_use]
    pub fn advance(mut self, budget: u32) -> Step<'a> {
        match self.expand(budget) {
            Some(status) => Step::Done(self.finish(status)),
            None => Step::Pending(self),
        }
    }

    /// The inner loop. Returns the final status, or `None` when the budget ran out first.
    fn expand(&mut self, budget: u32) -> Option<SearchStatus> {
        let plan = self.plan;
        let cells = self.grid.raw();
        let stride = self.grid.stride();
        let searcher = &mut *self.searcher;
        let nodes = &mut searcher.nodes[..cells.len()];
        let open = &mut searcher.open;
        let open_stamp = searcher.generation;
        let closed_stamp = open_stamp + 1;
        let stop_at = self.stats.expanded.saturating_add(budget);
        loop {
            if self.stats.expanded >= plan.max_expansions || self.stats.expanded >= stop_at {
                // Drop stale entries, as the next pop would, so that a list holding nothing
                // else ends as "no path" rather than at the limit.
                while open
                    .peek()
                    .is_some_and(|top| nodes[top.index as usize].stamp == closed_stamp)
                {
                    open.pop();
                }
                if !open.is_empty() {
                    return (self.stats.expanded >= plan.max_expansions)
                        .then_some(SearchStatus::LimitReached(Limit::Expansions));
                }
            }
            let Some(entry) = open.pop() else {
                return Some(if plan.window_clips {
                    SearchStatus::LimitReached(Limit::Window)
                } else {
                    SearchStatus::NoPath
                });
            };
            let index = entry.index as usize;
            let node = &mut nodes[index];
            if node.stamp == closed_stamp {
                continue; // a stale entry: the cell was expanded through a better one
            }
            node.stamp = closed_stamp;
            let g = node.g;
            self.stats.expanded += 1;
            if plan.trace {
                searcher.expansions.push(entry.index);
            }
            if index == plan.goal {
                return Some(SearchStatus::Found);
            }
            let x = (index % stride) as u32;
            let y = (index / stride) as u32;
            if plan.partial {
                let h = plan
                    .heuristic
                    .estimate(x.abs_diff(plan.goal_x), y.abs_diff(plan.goal_y));
                if h < self.closest.1 {
                    self.closest = (index, h);
                }
            }
            for direction in 0..plan.directions {
                let next = index.wrapping_add_signed(plan.delta[direction]);
                let terrain = cells[next];
                if terrain == 0 {
                    continue;
                }
                if direction >= 4 {
                    let a = cells[index.wrapping_add_signed(plan.corner_a[direction])] != 0;
                    let b = cells[index.wrapping_add_signed(plan.corner_b[direction])] != 0;
                    let allowed = match plan.corners {
                        CornerRule::Both => a && b,
                        CornerRule::One => a || b,
                        CornerRule::Any => true,
                    };
                    if !allowed {
                        continue;
                    }
                }
                let (dx, dy) = DIRECTIONS[direction];
                let next_x = x.wrapping_add_signed(dx);
                let next_y = y.wrapping_add_signed(dy);
                if let Some([min_x, min_y, max_x, max_y]) = plan.window
                    && (next_x < min_x || next_x > max_x || next_y < min_y || next_y > max_y)
                {
                    continue;
                }
                let next_g = g + plan.step[direction] * f64::from(terrain);
                let neighbour = &mut nodes[next];
                if neighbour.stamp == open_stamp {
                    if next_g >= neighbour.g {
                        continue;
                    }
                } else if neighbour.stamp == closed_stamp {
                    continue;
                } else if plan.trace {
                    searcher.touched.push((next as u32, self.stats.expanded));
                }
                *neighbour = Node {
                    g: next_g,
                    parent: index as u32,
                    stamp: open_stamp,
                };
                let h = plan
                    .heuristic
                    .estimate(next_x.abs_diff(plan.goal_x), next_y.abs_diff(plan.goal_y));
                open.push(OpenEntry::new(
                    next_g + plan.weight.weigh(h),
                    next_g,
                    next as u32,
                ));
                self.stats.pushed += 1;
            }
        }
    }

    fn finish(self, status: SearchStatus) -> SearchResult {
        let path = match status {
            SearchStatus::Found => Some(self.path_to(self.plan.goal)),
            SearchStatus::LimitReached(_) if self.plan.partial => {
                Some(self.path_to(self.closest.0))
            }
            SearchStatus::LimitReached(_) | SearchStatus::NoPath => None,
        };
        let trace = self.plan.trace.then(|| self.trace());
        SearchResult {
            status,
            path,
            stats: self.stats,
            trace,
        }
    }

    /// Follows parents back from `end`; allocates exactly once.
    fn path_to(&self, end: usize) -> Path {
        let nodes = &self.searcher.nodes;
        let mut length = 1;
        let mut index = end;
        while nodes[index].parent as usize != index {
            index = nodes[index].parent as usize;
            length += 1;
        }
        let mut cells = vec![Cell::default(); length];
        let mut index = end;
        for slot in cells.iter_mut().rev() {
            *slot = self.grid.cell_at(index);
            index = nodes[index].parent as usize;
        }
        Path {
            cells,
            cost: nodes[end].g,
        }
    }

    fn trace(&self) -> SearchTrace {
        let searcher = &*self.searcher;
        let closed_order: HashMap<u32, u32> = searcher
            .expansions
            .iter()
            .enumerate()
            .map(|(order, &index)| (index, order as u32))
            .collect();
        let cells = searcher
            .touched
            .iter()
            .map(|&(index, opened_at)| {
                let node = searcher.nodes[index as usize];
                let h = self.plan.heuristic_at(self.grid, index as usize);
                TracedCell {
                    cell: self.grid.cell_at(index as usize),
                    g: node.g,
                    h,
                    f: node.g + self.plan.weight.weigh(h),
                    parent: self.grid.cell_at(node.parent as usize),
                    opened_at,
                    closed_at: closed_order.get(&index).copied(),
                }
            })
            .collect();
        let expansions = searcher
            .expansions
            .iter()
            .map(|&index| self.grid.cell_at(index as usize))
            .collect();
        SearchTrace { cells, expansions }
    }
}

impl Plan {
    fn new(
        grid: &Grid,
        start: Cell,
        goal: Cell,
        options: &SearchOptions,
    ) -> Result<Self, SearchError> {
        validate(grid, start, goal, options)?;
        let stride = grid.stride() as isize;
        let mut delta = [0; 8];
        let mut step = [0.0; 8];
        let mut corner_a = [0; 8];
        let mut corner_b = [0; 8];
        for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            let (dx, dy) = (dx as isize, dy as isize);
            delta[direction] = dy * stride + dx;
            corner_a[direction] = dx;
            corner_b[direction] = dy * stride;
            step[direction] = if dx != 0 && dy != 0 {
                options.cost.diagonal()
            } else {
                options.cost.straight()
            };
        }
        let neighborhood = options.movement.neighborhood;
        let heuristic = HeuristicFn::new(options.resolved_heuristic(), neighborhood, options.cost);
        let weight = match options.weighting {
            Weighting::Static(weight) => WeightPlan::Static(weight),
            Weighting::Dynamic { epsilon } => {
                let h_start =
                    heuristic.estimate(start.x.abs_diff(goal.x), start.y.abs_diff(goal.y));
                if h_start > 0.0 {
                    WeightPlan::Dynamic { epsilon, h_start }
                } else {
                    WeightPlan::Static(1.0)
                }
            }
        };
        let window = options.window.map(|window| {
            [
                window.min.x.saturating_add(1),
                window.min.y.saturating_add(1),
                window.max.x.saturating_add(1),
                window.max.y.saturating_add(1),
            ]
        });
        let window_clips = options.window.is_some_and(|window| {
            window.min.x > 0
                || window.min.y > 0
                || window.max.x < grid.width() - 1
                || window.max.y < grid.height() - 1
        });
        Ok(Self {
            goal: grid.index(goal),
            goal_x: goal.x + 1,
            goal_y: goal.y + 1,
            directions: match neighborhood {
                Neighborhood::Four => 4,
                Neighborhood::Eight => 8,
            },
            delta,
            step,
            corner_a,
            corner_b,
            corners: options.movement.corners,
            heuristic,
            weight,
            max_expansions: options.max_expansions.unwrap_or(u32::MAX),
            window,
            window_clips,
            partial: options.partial_path,
            trace: options.trace,
        })
    }

    fn heuristic_at(&self, grid: &Grid, index: usize) -> f64 {
        let stride = grid.stride();
        let x = (index % stride) as u32;
        let y = (index / stride) as u32;
        self.heuristic
            .estimate(x.abs_diff(self.goal_x), y.abs_diff(self.goal_y))
    }
}

/// Checks a request before any search runs.
pub(crate) fn validate(
    grid: &Grid,
    start: Cell,
    goal: Cell,
    options: &SearchOptions,
) -> Result<(), SearchError> {
    validate_endpoints(grid, start, goal)?;
    if !options.weighting.is_valid() {
        return Err(SearchError::InvalidWeight(match options.weighting {
            Weighting::Static(weight) => weight,
            Weighting::Dynamic { epsilon } => epsilon,
        }));
    }
    if !options.cost.is_valid() {
        return Err(SearchError::InvalidCostModel);
    }
    if let Some(window) = options.window
        && !window.contains(start)
    {
        return Err(SearchError::StartOutsideWindow(start));
    }
    Ok(())
}

/// What checking a request's start and goal needs to know about the map it searches.
pub(crate) trait EndpointMap {
    /// Whether the map has no cells.
    fn has_no_cells(&self) -> bool;
    /// Whether `cell` lies inside the map.
    fn holds(&self, cell: Cell) -> bool;
    /// Whether `cell` is inside the map and walkable.
    fn is_open(&self, cell: Cell) -> bool;
}

impl EndpointMap for Grid {
    fn has_no_cells(&self) -> bool {
        self.is_empty()
    }

    fn holds(&self, cell: Cell) -> bool {
        self.contains(cell)
    }

    fn is_open(&self, cell: Cell) -> bool {
        self.is_walkable(cell)
    }
}

/// Refuses an empty map, and a start or goal outside the map or blocked.
pub(crate) fn validate_endpoints(
    map: &impl EndpointMap,
    start: Cell,
    goal: Cell,
) -> Result<(), SearchError> {
    if map.has_no_cells() {
        return Err(SearchError::EmptyGrid);
    }
    if !map.holds(start) {
        return Err(SearchError::StartOutOfBounds(start));
    }
    if !map.holds(goal) {
        return Err(SearchError::GoalOutOfBounds(goal));
    }
    if !map.is_open(start) {
        return Err(SearchError::StartBlocked(start));
    }
    if !map.is_open(goal) {
        return Err(SearchError::GoalBlocked(goal));
    }
    Ok(())
}
