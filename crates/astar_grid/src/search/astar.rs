//! The A* loop: an [`ActiveSearch`] that expands cells in budgets until it finishes.
//!
//! Per expansion the loop reads the eight neighbours' cells once into a bit mask of the moves
//! the movement rule allows (a table indexed by the four straight neighbours' walkability gives
//! the corner rule's verdict on the diagonals), then relaxes the allowed moves whose cells are
//! not closed. Cells are padded indices; their coordinates come from a multiplication by a
//! precomputed reciprocal of the row length instead of a division. The default options (octile
//! heuristic, no weight) compute priorities without choosing the heuristic per cell.
//!
//! The open list is a [`BucketQueue`](super::bucket_queue::BucketQueue): lowest `f` first and,
//! for unweighted searches with a consistent heuristic, the latest added first among equal `f`.
//! The moves are offered in an order that makes this tie rule useful: straight moves north,
//! west, south, east, then the diagonals, so that among equally good successors the diagonals
//! come out first (following the search deeper) and, among straight ones, east, south, west,
//! north, as the directions are listed (which keeps paths along corridors straight). A closed
//! cell is never opened again.

use super::bucket_queue::{BucketQueue, Buckets, LARGE_GRID, OpenLists, Segments, SlotLists};
use super::searcher::{LINK_VIA, START_VIA, VIA_BITS, VIA_MASK};
use super::{
    Limit, Path, SearchOptions, SearchResult, SearchStats, SearchStatus, SearchTrace, Searcher,
    TracedCell,
};
use crate::closest::{CellDistance, Closest};
use crate::endpoints::{SearchError, validate_bounds_and_start, validate_endpoints};
use crate::heuristic::{HeuristicFn, OctileTerms};
use crate::links::{LinkBound, LinkStep};
use crate::movement::DIRECTIONS;
use crate::{Cell, CostModel, Grid, Heuristic, Movement, Neighborhood, SearchWindow, Weighting};
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
    /// The expanded cell closest to the goal so far (see [`SearchOptions::closest_reachable`]),
    /// kept only when a path may end short of the goal.
    closest: Closest,
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

/// The four straight-move bits of a move mask in reverse order: bit `d` moves to `3 - d`.
const REVERSED_STRAIGHT: [u8; 16] = {
    let mut table = [0; 16];
    let mut bits = 0;
    while bits < 16 {
        let mut reversed = 0;
        let mut bit = 0;
        while bit < 4 {
            if bits >> bit & 1 != 0 {
                reversed |= 1 << (3 - bit);
            }
            bit += 1;
        }
        table[bits] = reversed;
        bits += 1;
    }
    table
};

/// The direction each bit of a reordered move mask (see `REVERSED_STRAIGHT`) stands for.
const DIRECTION_OF_BIT: [u8; 8] = [3, 2, 1, 0, 4, 5, 6, 7];

/// Move masks: bit `d` stands for the step in direction `DIRECTIONS[d]`.
mod moves {
    /// Steps with `dx == 1`: east, south-east, north-east.
    pub const EAST: u32 = 1 << 0 | 1 << 4 | 1 << 7;
    /// Steps with `dy == 1`: south, south-east, south-west.
    pub const SOUTH: u32 = 1 << 1 | 1 << 4 | 1 << 5;
    /// Steps with `dx == -1`: west, south-west, north-west.
    pub const WEST: u32 = 1 << 2 | 1 << 5 | 1 << 6;
    /// Steps with `dy == -1`: north, north-west, north-east.
    pub const NORTH: u32 = 1 << 3 | 1 << 6 | 1 << 7;
}

/// Everything about a search that is fixed once it starts, resolved for the inner loop.
#[derive(Clone, Copy, Debug)]
struct Plan {
    goal: usize,
    /// Whether the search starts at its goal, and is found without expanding a cell.
    start_is_goal: bool,
    goal_x: u32,
    goal_y: u32,
    stride: usize,
    rows: RowDivider,
    delta: [isize; 8],
    step: [f64; 8],
    /// For each combination of the four straight neighbours' walkability (bit `d` for
    /// direction `d < 4`), the diagonal moves (bits 4 to 7) the movement rule allows.
    diagonals: [u8; 16],
    heuristic: HeuristicFn,
    weight: WeightPlan,
    /// The heuristic and weight again when they are the unweighted octile distance.
    octile: Option<OctileTerms>,
    max_expansions: u32,
    /// Padded inclusive bounds (min x, min y, max x, max y), when a window is set.
    window: Option<[u32; 4]>,
    /// Whether the window leaves out part of the grid (so exhausting it proves nothing).
    window_clips: bool,
    /// Whether a limit's result carries a partial path ([`SearchOptions::partial_path`]).
    partial: bool,
    /// Whether a search that runs out of cells returns the path to the closest one
    /// ([`SearchOptions::closest_reachable`]).
    closest_reachable: bool,
    /// Whether the expansions keep track of the closest cell: either of the two above.
    track_closest: bool,
    /// How "closest" is measured.
    distance: CellDistance,
    trace: bool,
    /// For searches whose priorities never decrease (a consistent heuristic, no weight): the
    /// smallest step cost, for the open list's buckets.
    monotone: Option<f64>,
    /// Whether the grid has open links, which the search follows.
    links: bool,
}

#[derive(Clone, Copy, Debug)]
enum WeightPlan {
    Static(f64),
    Dynamic { epsilon: f64, h_start: f64 },
}

impl WeightPlan {
    /// The plan for `weighting` on a search from `start` to `goal` under `heuristic`: a dynamic
    /// weight needs the start's estimate, and is no weight at all when that estimate is zero.
    fn new(weighting: Weighting, heuristic: &HeuristicFn, start: Cell, goal: Cell) -> Self {
        match weighting {
            Weighting::Static(weight) => Self::Static(weight),
            Weighting::Dynamic { epsilon } => {
                let h_start = heuristic.between((start.x, start.y), (goal.x, goal.y));
                if h_start > 0.0 {
                    Self::Dynamic { epsilon, h_start }
                } else {
                    Self::Static(1.0)
                }
            }
        }
    }

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

/// How the inner loop turns a cell's cost from the start and its padded column and row into
/// its priority `f`.
trait Priority: Copy {
    /// Whether the search follows the grid's links ([`LinkedPriority`]).
    const LINKS: bool = false;

    fn f(self, g: f64, x: u32, y: u32) -> f64;
}

/// Any heuristic and weight, chosen at run time.
#[derive(Clone, Copy, Debug)]
struct AnyPriority {
    heuristic: HeuristicFn,
    weight: WeightPlan,
    /// The goal's padded column and row.
    goal: (u32, u32),
}

impl Priority for AnyPriority {
    #[inline(always)]
    fn f(self, g: f64, x: u32, y: u32) -> f64 {
        g + self.weight.weigh(self.heuristic.between((x, y), self.goal))
    }
}

/// The unweighted octile heuristic (the default options), with nothing left to choose per cell;
/// the same numbers as [`AnyPriority`] with that heuristic and no weight.
#[derive(Clone, Copy, Debug)]
struct OctilePriority(OctileTerms, (u32, u32));

impl Priority for OctilePriority {
    #[inline(always)]
    fn f(self, g: f64, x: u32, y: u32) -> f64 {
        g + self.0.estimate(x.abs_diff(self.1.0), y.abs_diff(self.1.1))
    }
}

/// Any heuristic and weight on a grid with links: the heuristic becomes the bound of
/// [`LinkBound`], which stays admissible and consistent when links are shortcuts.
#[derive(Clone, Copy, Debug)]
struct LinkedPriority<'b> {
    any: AnyPriority,
    bound: &'b LinkBound,
}

impl Priority for LinkedPriority<'_> {
    const LINKS: bool = true;

    #[inline(always)]
    fn f(self, g: f64, x: u32, y: u32) -> f64 {
        let heuristic = self.any.heuristic;
        let goal = self.any.goal;
        let direct = heuristic.between((x, y), goal);
        let h = self
            .bound
            .estimate(direct, (x, y), |a, b| heuristic.between(a, b));
        g + self.any.weight.weigh(h)
    }
}

/// Splits a padded index into column and row with a multiplication: for 32-bit indices and row
/// lengths, `index / stride == (index * ceil(2^64 / stride)) >> 64` exactly (Lemire, Kaser and
/// Kurz, "Faster remainder by direct computation", 2019).
#[derive(Clone, Copy, Debug)]
struct RowDivider {
    stride: u32,
    reciprocal: u64,
}

impl RowDivider {
    /// The divider for rows of `stride` cells (at least 2, as every padded grid's rows are).
    fn new(stride: usize) -> Self {
        let stride = u32::try_from(stride.max(2)).unwrap_or(u32::MAX);
        Self {
            stride,
            reciprocal: u64::MAX / u64::from(stride) + 1,
        }
    }

    /// `(index % stride, index / stride)`.
    #[inline]
    fn split(self, index: usize) -> (u32, u32) {
        let index = index as u32;
        let row = ((u128::from(self.reciprocal) * u128::from(index)) >> 64) as u32;
        (index - row * self.stride, row)
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
        if plan.links {
            searcher.link_parents.clear();
            let heuristic = plan.heuristic;
            searcher.link_bound.prepare(
                grid.links().steps(),
                (grid.stride(), |index: usize| grid.raw()[index] != 0),
                (plan.goal_x, plan.goal_y),
                |a, b| heuristic.between(a, b),
            );
        }
        let cells = grid.raw().len();
        let open_stamp = searcher.next_generation(cells);
        let start_index = grid.index(start);
        searcher.costs[start_index] = 0.0;
        searcher.marks[start_index] = open_stamp << VIA_BITS | START_VIA;
        let h = plan.heuristic_at(start_index, &searcher.link_bound);
        let closest = plan.closest_at(start_index, 0.0);
        let (f, id) = (plan.weight.weigh(h), start_index as u32);
        if cells < LARGE_GRID {
            searcher.open.small.reset(plan.monotone, cells);
            searcher.open.small.push(f, 0.0, id);
        } else {
            searcher.open.large.reset(plan.monotone, cells);
            searcher.open.large.push(f, 0.0, id);
        }
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
            closest,
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
    ///
    /// A budget of 0 counts as 1, so that every call makes progress: a loop that advances by a
    /// budget computed at run time always ends.
    #[must_use]
    pub fn advance(mut self, budget: u32) -> Step<'a> {
        match self.expand(budget.max(1)) {
            Some(status) => Step::Done(self.finish(status)),
            None => Step::Pending(self),
        }
    }

    /// The inner loop. Returns the final status, or `None` when the budget ran out first.
    fn expand(&mut self, budget: u32) -> Option<SearchStatus> {
        if self.plan.start_is_goal {
            // Nothing to expand, whatever the limits: the path is the start alone.
            return Some(SearchStatus::Found);
        }
        let goal = (self.plan.goal_x, self.plan.goal_y);
        let any = AnyPriority {
            heuristic: self.plan.heuristic,
            weight: self.plan.weight,
            goal,
        };
        // The open list for the grid's size, as `ActiveSearch::new` chose.
        let small: fn(&mut OpenLists) -> &mut BucketQueue<SlotLists> = |open| &mut open.small;
        let large: fn(&mut OpenLists) -> &mut BucketQueue<Segments> = |open| &mut open.large;
        if self.plan.links {
            // The bound is read while the searcher's other memory is written.
            let bound = core::mem::take(&mut self.searcher.link_bound);
            let linked = LinkedPriority { any, bound: &bound };
            let status = if self.grid.raw().len() < LARGE_GRID {
                self.expand_with(budget, linked, small)
            } else {
                self.expand_with(budget, linked, large)
            };
            self.searcher.link_bound = bound;
            return status;
        }
        match (
            self.plan.octile.map(|octile| OctilePriority(octile, goal)),
            self.grid.raw().len() < LARGE_GRID,
        ) {
            (Some(octile), true) => self.expand_with(budget, octile, small),
            (Some(octile), false) => self.expand_with(budget, octile, large),
            (None, true) => self.expand_with(budget, any, small),
            (None, false) => self.expand_with(budget, any, large),
        }
    }

    /// [`ActiveSearch::expand`] with the priorities computed by `priority` and the open list
    /// `open_list` picks. Each of its four forms is a function of its own, laid out on its own;
    /// the functions it calls are inlined into it.
    #[inline(never)]
    fn expand_with<B: Buckets, P: Priority>(
        &mut self,
        budget: u32,
        priority: P,
        open_list: fn(&mut OpenLists) -> &mut BucketQueue<B>,
    ) -> Option<SearchStatus> {
        let plan = &self.plan;
        let grid = self.grid;
        let cells = grid.raw();
        let mut frontier = Frontier::new(plan, cells, &mut *self.searcher, open_list);
        let stop_at = self
            .stats
            .expanded
            .saturating_add(budget)
            .min(plan.max_expansions);
        let mut expanded = self.stats.expanded;
        let status = loop {
            // A list holding nothing but stale entries ends as "no path" rather than at the
            // limit.
            if expanded >= stop_at && frontier.has_open_cells() {
                break (expanded >= plan.max_expansions)
                    .then_some(SearchStatus::LimitReached(Limit::Expansions));
            }
            let Some((index, mark)) = frontier.close_best() else {
                break Some(plan.exhausted_status());
            };
            expanded += 1;
            if index == plan.goal {
                break Some(SearchStatus::Found);
            }
            let g = frontier.costs[index];
            let (x, y) = plan.rows.split(index);
            if plan.track_closest {
                self.closest.offer(plan.closest_at(index, g));
            }
            let moves = plan.successor_moves(cells, index, mark, x, y);
            frontier.relax_successors(priority, index, g, (x, y), moves, expanded);
            if P::LINKS {
                for step in grid.links().steps_from(index) {
                    frontier.relax_link(priority, index, g, step, expanded);
                }
            }
        };
        self.stats = SearchStats {
            expanded,
            pushed: self.stats.pushed + frontier.pushed,
        };
        status
    }

    fn finish(self, status: SearchStatus) -> SearchResult {
        let closest_wanted = match status {
            SearchStatus::Found => false,
            SearchStatus::LimitReached(Limit::Expansions) => self.plan.partial,
            SearchStatus::LimitReached(Limit::Window) => {
                self.plan.partial || self.plan.closest_reachable
            }
            SearchStatus::NoPath => self.plan.closest_reachable,
        };
        let path = if status == SearchStatus::Found {
            Some(self.path_to(self.plan.goal))
        } else {
            closest_wanted.then(|| self.path_to(self.closest.index))
        };
        let trace = self.plan.trace.then(|| self.trace());
        SearchResult {
            status,
            path,
            stats: self.stats,
            trace,
        }
    }

    /// Follows the steps back from `end`; allocates exactly once.
    fn path_to(&self, end: usize) -> Path {
        let mut length = 1;
        let mut index = end;
        while let Some(parent) = self.parent_of(index) {
            index = parent;
            length += 1;
        }
        let mut cells = vec![Cell::default(); length];
        let mut index = end;
        for slot in cells.iter_mut().rev() {
            *slot = self.grid.cell_at(index);
            index = self.parent_of(index).unwrap_or(index);
        }
        Path {
            cells,
            cost: self.searcher.costs[end],
        }
    }

    /// The padded index of the cell the cell at `index` was reached from; `None` for the
    /// start.
    fn parent_of(&self, index: usize) -> Option<usize> {
        let mark = self.searcher.marks[index];
        if mark & VIA_MASK == LINK_VIA {
            let parent = self.searcher.link_parents.get(&(index as u32));
            return parent.map(|&parent| parent as usize);
        }
        self.plan.parent(mark, index)
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
                let index = index as usize;
                let h = self.plan.heuristic_at(index, &searcher.link_bound);
                let g = searcher.costs[index];
                TracedCell {
                    cell: self.grid.cell_at(index),
                    g,
                    h,
                    f: g + self.plan.weight.weigh(h),
                    parent: self.grid.cell_at(self.parent_of(index).unwrap_or(index)),
                    opened_at,
                    closed_at: closed_order.get(&(index as u32)).copied(),
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

/// What [`ActiveSearch::expand_with`] works on, borrowed from the [`Searcher`] for one call:
/// the per-cell costs and marks, the open list, the trace records, and the stamps that tell
/// this search's open and closed cells apart. Its methods are inlined into the loop.
struct Frontier<'s, B> {
    plan: &'s Plan,
    cells: &'s [u8],
    costs: &'s mut [f64],
    marks: &'s mut [u32],
    open: &'s mut BucketQueue<B>,
    /// Trace only: cells as they are first reached (see [`Searcher::touched`]).
    touched: &'s mut Vec<(u32, u32)>,
    /// Trace only: cells in expansion order.
    expansions: &'s mut Vec<u32>,
    /// The cell each cell reached by a link was reached from.
    link_parents: &'s mut HashMap<u32, u32>,
    /// Entries added to the open list so far in this call.
    pushed: u32,
    /// Marks below this belong to earlier searches.
    open_mark: u32,
    /// Marks from this up are closed in this search.
    closed_mark: u32,
}

impl<'s, B: Buckets> Frontier<'s, B> {
    #[inline(always)]
    fn new(
        plan: &'s Plan,
        cells: &'s [u8],
        searcher: &'s mut Searcher,
        open_list: fn(&mut OpenLists) -> &mut BucketQueue<B>,
    ) -> Self {
        let Searcher {
            costs,
            marks,
            open,
            generation,
            touched,
            expansions,
            link_parents,
            ..
        } = searcher;
        Self {
            plan,
            cells,
            costs: &mut costs[..cells.len()],
            marks: &mut marks[..cells.len()],
            open: open_list(open),
            touched,
            expansions,
            link_parents,
            pushed: 0,
            open_mark: *generation << VIA_BITS,
            closed_mark: (*generation + 1) << VIA_BITS,
        }
    }

    /// Drops the stale entries on top of the open list, as the next pop would, and says whether
    /// an open cell is left.
    #[inline(always)]
    fn has_open_cells(&mut self) -> bool {
        while self
            .open
            .peek()
            .is_some_and(|top| self.marks[top.id() as usize] >= self.closed_mark)
        {
            self.open.pop();
        }
        !self.open.is_empty()
    }

    /// Takes the best open cell off the open list (skipping stale entries: cells already
    /// expanded through a better one) and closes it. Returns its padded index and the mark it
    /// had while open, or `None` when the list ran out.
    #[inline(always)]
    fn close_best(&mut self) -> Option<(usize, u32)> {
        loop {
            let index = self.open.pop()?.id() as usize;
            let mark = self.marks[index];
            if mark < self.closed_mark {
                // Closed, keeping the direction it was reached by.
                self.marks[index] = mark + (self.closed_mark - self.open_mark);
                if self.plan.trace {
                    self.expansions.push(index as u32);
                }
                return Some((index, mark));
            }
        }
    }

    /// Relaxes the moves of `order` (a mask from [`Plan::successor_moves`]) from the cell at
    /// padded `index` and `(x, y)`, reached at cost `g`, during expansion number `expanded`.
    #[inline(always)]
    fn relax_successors(
        &mut self,
        priority: impl Priority,
        index: usize,
        g: f64,
        (x, y): (u32, u32),
        mut order: u32,
        expanded: u32,
    ) {
        while order != 0 {
            let bit = order.trailing_zeros() as usize;
            order &= order - 1;
            let direction = usize::from(DIRECTION_OF_BIT[bit]);
            self.relax(priority, index, g, (x, y), direction, expanded);
        }
    }

    /// Opens the neighbour of the cell at padded `index` in `direction`, or lowers its cost,
    /// when the step finds it at a lower cost than it had and it is not closed.
    #[inline(always)]
    fn relax(
        &mut self,
        priority: impl Priority,
        index: usize,
        g: f64,
        (x, y): (u32, u32),
        direction: usize,
        expanded: u32,
    ) {
        let plan = self.plan;
        let next = index.wrapping_add_signed(plan.delta[direction]);
        let neighbour_mark = self.marks[next];
        if neighbour_mark >= self.closed_mark {
            return;
        }
        let next_g = g + plan.step[direction] * f64::from(self.cells[next]);
        if !self.lower_cost((next, neighbour_mark), next_g, direction as u32, expanded) {
            return;
        }
        let (dx, dy) = DIRECTIONS[direction];
        let f = priority.f(next_g, x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
        self.open.push(f, next_g, next as u32);
        self.pushed += 1;
    }

    /// Gives the cell at padded `next`, not closed and marked `mark`, the cost `next_g` and the
    /// way `via` it was reached, when it is not open yet or that cost is lower than its own;
    /// returns whether it did (noting the cell's first reaching for a trace).
    #[inline(always)]
    fn lower_cost(
        &mut self,
        (next, mark): (usize, u32),
        next_g: f64,
        via: u32,
        expanded: u32,
    ) -> bool {
        if mark >= self.open_mark {
            if next_g >= self.costs[next] {
                return false;
            }
        } else if self.plan.trace {
            self.touched.push((next as u32, expanded));
        }
        self.costs[next] = next_g;
        self.marks[next] = self.open_mark | via;
        true
    }

    /// Opens the end of link direction `step` from the cell at padded `index`, reached at cost
    /// `g`, or lowers its cost, as [`Frontier::relax`] does a neighbour: when its end is
    /// walkable, inside the window and not closed.
    fn relax_link(
        &mut self,
        priority: impl Priority,
        index: usize,
        g: f64,
        step: &LinkStep,
        expanded: u32,
    ) {
        let plan = self.plan;
        let next = step.to as usize;
        let (x, y) = plan.rows.split(next);
        let outside = plan.window.is_some_and(|[min_x, min_y, max_x, max_y]| {
            x < min_x || x > max_x || y < min_y || y > max_y
        });
        let neighbour_mark = self.marks[next];
        if self.cells[next] == 0 || outside || neighbour_mark >= self.closed_mark {
            return;
        }
        let next_g = g + step.cost;
        if !self.lower_cost((next, neighbour_mark), next_g, LINK_VIA, expanded) {
            return;
        }
        self.link_parents.insert(next as u32, index as u32);
        self.open
            .push(priority.f(next_g, x, y), next_g, next as u32);
        self.pushed += 1;
    }
}

/// The moves that stay inside the padded `window` from the cell `(x, y)` inside it.
#[inline]
fn window_moves([min_x, min_y, max_x, max_y]: [u32; 4], x: u32, y: u32) -> u32 {
    let mut leaving = 0;
    if x <= min_x {
        leaving |= moves::WEST;
    }
    if x >= max_x {
        leaving |= moves::EAST;
    }
    if y <= min_y {
        leaving |= moves::NORTH;
    }
    if y >= max_y {
        leaving |= moves::SOUTH;
    }
    !leaving
}

impl Plan {
    fn new(
        grid: &Grid,
        start: Cell,
        goal: Cell,
        options: &SearchOptions,
    ) -> Result<Self, SearchError> {
        validate(grid, start, goal, options)?;
        let neighborhood = options.movement.neighborhood;
        let (delta, step) = step_tables(grid.stride(), neighborhood, options.cost);
        let resolved = options.resolved_heuristic();
        let heuristic = HeuristicFn::new(resolved, neighborhood, options.cost);
        let monotone = monotone_step(options, resolved);
        let weight = WeightPlan::new(options.weighting, &heuristic, start, goal);
        let window = options.window.map(padded_window);
        let window_clips = options
            .window
            .is_some_and(|window| window_clips(window, grid));
        Ok(Self {
            goal: grid.index(goal),
            start_is_goal: start == goal,
            goal_x: goal.x + 1,
            goal_y: goal.y + 1,
            stride: grid.stride(),
            rows: RowDivider::new(grid.stride()),
            delta,
            step,
            diagonals: diagonal_table(options.movement),
            heuristic,
            weight,
            octile: (resolved == Heuristic::Octile
                && options.weighting.is_unit()
                && neighborhood != Neighborhood::Hex)
                .then(|| heuristic.octile()),
            max_expansions: options.max_expansions.unwrap_or(u32::MAX),
            window,
            window_clips,
            partial: options.partial_path,
            closest_reachable: options.closest_reachable,
            track_closest: options.partial_path || options.closest_reachable,
            distance: CellDistance::new(neighborhood),
            trace: options.trace,
            monotone,
            links: grid.links().has_steps(),
        })
    }

    /// The moves from the cell at padded `index` that `cells` and the movement rule allow
    /// (terrain only; closed cells and the window are checked by the caller).
    #[inline(always)]
    fn moves(&self, cells: &[u8], index: usize) -> u32 {
        let stride = self.stride;
        let above = &cells[index - stride - 1..index - stride + 2];
        let beside = &cells[index - 1..index + 2];
        let below = &cells[index + stride - 1..index + stride + 2];
        let open = |value: u8| u32::from(value != 0);
        let straight =
            open(beside[2]) | open(below[1]) << 1 | open(beside[0]) << 2 | open(above[1]) << 3;
        let diagonal =
            open(below[2]) | open(below[0]) << 1 | open(above[0]) << 2 | open(above[2]) << 3;
        straight | ((diagonal << 4) & u32::from(self.diagonals[straight as usize]))
    }

    /// The moves to relax from the cell at padded `index` and `(x, y)`, which had `mark` while
    /// open, in the order to take them (lowest bit first; see [`DIRECTION_OF_BIT`]): those the
    /// terrain, the movement rule and the window allow, except back to the cell it was reached
    /// from.
    #[inline(always)]
    fn successor_moves(&self, cells: &[u8], index: usize, mark: u32, x: u32, y: u32) -> u32 {
        // The cell it was reached from is closed: its direction is the reverse of the step
        // that reached this one (`via ^ 2` swaps east and west, south and north, and the
        // opposite diagonals; the start's `via` falls outside the mask).
        let mut moves = self.moves(cells, index) & !(1 << ((mark & VIA_MASK) ^ 2));
        if let Some(window) = self.window {
            moves &= window_moves(window, x, y);
        }
        // Straight moves are taken in reverse order (north, west, south, east), then the
        // diagonals: among successors of equal priority the open list hands out the latest
        // first, so diagonals come out first (following the search deeper along them) and
        // among straight moves east, south, west, north (keeping corridor paths straight).
        u32::from(REVERSED_STRAIGHT[(moves & 0xF) as usize]) | (moves & 0xF0)
    }

    /// How a search ends when its open list runs out: with no path, or at the window's edge
    /// when the window leaves out part of the grid.
    fn exhausted_status(&self) -> SearchStatus {
        if self.window_clips {
            SearchStatus::LimitReached(Limit::Window)
        } else {
            SearchStatus::NoPath
        }
    }

    /// The padded index of the cell at `index`, marked `mark`, was reached from; `None` for the
    /// start.
    #[inline]
    fn parent(&self, mark: u32, index: usize) -> Option<usize> {
        let via = (mark & VIA_MASK) as usize;
        // The start's and a link's `via` name no step.
        (via < START_VIA as usize).then(|| index.wrapping_add_signed(-self.delta[via]))
    }

    /// The cell at padded `index`, reached at cost `g`, as a candidate for the closest cell.
    ///
    /// Kept out of line: searches that track the closest cell are the rare ones, and inlined
    /// here it costs every other search's expansion loop a few percent.
    #[inline(never)]
    fn closest_at(&self, index: usize, g: f64) -> Closest {
        let (x, y) = self.rows.split(index);
        let distance = self.distance.between((x, y), (self.goal_x, self.goal_y));
        Closest::new(index, x, y, distance, g)
    }

    /// The heuristic at the cell at padded `index`, through `bound` on a grid with links.
    fn heuristic_at(&self, index: usize, bound: &LinkBound) -> f64 {
        let (x, y) = self.rows.split(index);
        let heuristic = self.heuristic;
        let direct = heuristic.between((x, y), (self.goal_x, self.goal_y));
        if self.links {
            bound.estimate(direct, (x, y), |a, b| heuristic.between(a, b))
        } else {
            direct
        }
    }
}

/// [`Plan::delta`] and [`Plan::step`]: for each direction, the padded index offset of the step
/// in rows of `stride` cells, and its cost under `neighborhood` and `cost`.
fn step_tables(
    stride: usize,
    neighborhood: Neighborhood,
    cost: CostModel,
) -> ([isize; 8], [f64; 8]) {
    let stride = stride as isize;
    let mut delta = [0; 8];
    let mut step = [0.0; 8];
    for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
        delta[direction] = dy as isize * stride + dx as isize;
        step[direction] = cost.step(neighborhood, dx, dy);
    }
    (delta, step)
}

/// [`Plan::monotone`]: with a consistent heuristic (`resolved`) and no weight, priorities never
/// decrease (beyond rounding) along the search, and the smallest step cost is returned.
fn monotone_step(options: &SearchOptions, resolved: Heuristic) -> Option<f64> {
    let neighborhood = options.movement.neighborhood;
    (options.weighting.is_unit() && resolved.is_consistent(neighborhood, options.cost))
        .then(|| options.cost.least_step(neighborhood))
}

/// [`Plan::window`]: `window`'s inclusive bounds in padded coordinates.
fn padded_window(window: SearchWindow) -> [u32; 4] {
    [
        window.min.x.saturating_add(1),
        window.min.y.saturating_add(1),
        window.max.x.saturating_add(1),
        window.max.y.saturating_add(1),
    ]
}

/// [`Plan::window_clips`]: whether `window` leaves out part of `grid`.
fn window_clips(window: SearchWindow, grid: &Grid) -> bool {
    window.min.x > 0
        || window.min.y > 0
        || window.max.x < grid.width() - 1
        || window.max.y < grid.height() - 1
}

/// [`Plan::diagonals`] for `movement`: which diagonal moves it allows for each combination of
/// walkable straight neighbours (the diagonal's own cell being walkable), as
/// [`Movement::allows_step`] decides them.
fn diagonal_table(movement: Movement) -> [u8; 16] {
    let straight_index = |dx: i32, dy: i32| {
        DIRECTIONS
            .iter()
            .position(|&direction| direction == (dx, dy))
            .unwrap_or(0)
    };
    let mut table = [0; 16];
    for (straight, allowed) in table.iter_mut().enumerate() {
        for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate().skip(4) {
            let corner_a = straight >> straight_index(dx, 0) & 1 != 0;
            let corner_b = straight >> straight_index(0, dy) & 1 != 0;
            if movement.allows_step(dx, dy, corner_a, corner_b) {
                *allowed |= 1 << direction;
            }
        }
    }
    table
}

/// Checks a request before any search runs.
pub(crate) fn validate(
    grid: &Grid,
    start: Cell,
    goal: Cell,
    options: &SearchOptions,
) -> Result<(), SearchError> {
    if options.closest_reachable {
        validate_bounds_and_start(grid, start, goal)?;
    } else {
        validate_endpoints(grid, start, goal)?;
    }
    validate_options(options)?;
    if let Some(window) = options.window
        && !window.contains(start)
    {
        return Err(SearchError::StartOutsideWindow(start));
    }
    Ok(())
}

/// Refuses an invalid weight or cost model, whatever the query.
pub(crate) fn validate_options(options: &SearchOptions) -> Result<(), SearchError> {
    if !options.weighting.is_valid() {
        return Err(SearchError::InvalidWeight(match options.weighting {
            Weighting::Static(weight) => weight,
            Weighting::Dynamic { epsilon } => epsilon,
        }));
    }
    if !options.cost.is_valid() {
        return Err(SearchError::InvalidCostModel);
    }
    Ok(())
}
