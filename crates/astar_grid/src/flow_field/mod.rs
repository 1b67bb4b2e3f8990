//! Flow fields: from one multi-source Dijkstra, the cost to the nearest of several goals and
//! the best next step from every cell, kept up to date as cells change.

mod error;
mod field_cost;
mod goal_tree;
mod partial;
mod sliced;
mod update;

pub use error::FlowFieldError;
pub use field_cost::FieldCost;
pub use goal_tree::{GoalTree, TreeGrowth};
pub use sliced::{CostFieldGrowth, FieldGrowth, GoalPaths};
pub use update::FlowFieldUpdate;

use crate::closest::{FloodScratch, flood_to_closest};
use crate::connectivity::step_rule::StepRule;
use crate::movement::DIRECTIONS;
use crate::{Cell, CostModel, Grid, Movement, Path, ReachedPath};
use core::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// `next` value of a goal cell.
const GOAL: u8 = 8;
/// `next` value of a cell whose next step is a link ([`CostField::link_next`]).
const LINK: u8 = 9;
/// `next` value of a cell that cannot reach a goal.
const NONE: u8 = u8::MAX;

/// For every cell of a [`Grid`], the cost to the nearest of a set of goal cells and the best
/// next step towards it, so that any number of agents heading for the same goals read their
/// next move in O(1) instead of each running a search.
///
/// Costs follow the same rules as [`Searcher`](crate::Searcher): the [`Movement`] decides which
/// steps are legal (corner rule included), the [`CostModel`] prices straight and diagonal
/// steps, and stepping onto a cell multiplies the price by its terrain cost. The cost of a cell
/// is exactly the cost of an optimal path from it to its nearest goal.
///
/// # Costs
/// - [`FlowField::build`] / [`FlowField::rebuild`]: one Dijkstra over the cells that reach a
///   goal, O(n log n) for n cells, plus an O(cells) reset. Memory: 9 bytes per cell (cost,
///   next step), reused by `rebuild`; the [`GoalTree`] stores its costs in 5.
/// - Reading [`FlowField::cost_at`], [`FlowField::next_step`]: O(1);
///   [`FlowField::path_from`]: O(path length).
/// - [`FlowField::update`] after cells change: see its documentation; it redoes only the cells
///   whose cost or next step the change can affect.
///
/// ```
/// use astar_grid::{Cell, CostModel, FlowField, Grid, Movement};
///
/// let grid = Grid::from_ascii(
///     "....
///      .##.
///      ....",
/// )?;
/// let goal = Cell::new(3, 1);
/// let field = FlowField::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// assert!(field.is_goal(goal));
/// assert_eq!(field.cost_at(goal), Some(0.0));
/// assert_eq!(field.cost_at(Cell::new(1, 1)), None); // a wall
///
/// // Around the wall without cutting its corners: five steps.
/// let agent = Cell::new(0, 1);
/// assert_eq!(field.cost_at(agent), Some(5.0));
/// let next = field.next_step(agent).expect("the agent can reach the goal");
/// assert_eq!(field.cost_at(next), Some(4.0));
/// let path = field.path_from(agent).expect("reachable");
/// assert_eq!((path.cells.len(), path.cost), (6, 5.0));
/// assert_eq!(path.end(), Some(goal));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type FlowField = CostField<f64>;

/// A shortest-path tree towards a set of goals over every cell of a [`Grid`]: each cell's cost
/// to its nearest goal, stored as `C`, and its next step. Used as [`FlowField`] (`f64` costs,
/// exact) or [`GoalTree`] (`f32` costs, 5 bytes a cell); both run the same Dijkstra, adding
/// step costs in `f64`, and the same incremental [`CostField::update`].
#[derive(Clone, Debug)]
pub struct CostField<C: FieldCost> {
    movement: Movement,
    cost_model: CostModel,
    width: u32,
    height: u32,
    rule: StepRule,
    /// Base price of a step in each direction.
    step_cost: [f64; 8],
    goals: Vec<Cell>,
    /// Padded indices of the goals, sorted and without repeats: a goal blocked by an update is
    /// known again when it is opened.
    goal_indices: Vec<u32>,
    /// Padded: cost to the nearest goal, [`FieldCost::UNREACHED`] when none is reachable.
    costs: Vec<C>,
    /// Padded: direction of the next step, [`GOAL`], [`LINK`] or [`NONE`].
    next: Vec<u8>,
    /// For the cells whose next step is a link: the padded index of its end, and its cost.
    link_next: HashMap<u32, (u32, f64)>,
    /// Scratch: the Dijkstra queue.
    open: BinaryHeap<FlowEntry>,
    /// Scratch for updates: cells whose cost was dropped.
    invalidated: Vec<u32>,
    /// Scratch for updates.
    stack: Vec<u32>,
}

/// What a step of a field's path costs: its base price times the terrain cost of the cell it
/// steps onto, or a link's cost as it is.
#[derive(Clone, Copy, Debug)]
enum StepPrice {
    Terrain(f64),
    Link(f64),
}

impl StepPrice {
    /// The step's cost onto a cell of terrain cost `terrain`.
    fn onto(self, terrain: u8) -> f64 {
        match self {
            Self::Terrain(base) => base * f64::from(terrain),
            Self::Link(cost) => cost,
        }
    }
}

/// A queue entry: a cell and the exact cost it was queued with (the cell stores it as its
/// [`FieldCost`], rounded for `f32`). Never updated in place; entries whose stored form no
/// longer matches the cell's cost are skipped.
#[derive(Clone, Copy, Debug)]
struct FlowEntry {
    /// Finite and non-negative, so its bit pattern orders like its value.
    cost: f64,
    index: u32,
}

impl PartialEq for FlowEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for FlowEntry {}

impl PartialOrd for FlowEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FlowEntry {
    /// `BinaryHeap` pops the greatest entry: the cheapest one here.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .cost
            .to_bits()
            .cmp(&self.cost.to_bits())
            .then_with(|| other.index.cmp(&self.index))
    }
}

impl<C: FieldCost> CostField<C> {
    /// Builds the field of `goals` on `grid`: every cell's cost to its nearest goal under
    /// `movement` and `cost`, and its best next step.
    ///
    /// # Errors
    /// When the grid is empty, `goals` is empty, a goal is outside the grid or blocked, or the
    /// cost model has a zero cost. An unreachable cell is not an error: its
    /// [`FlowField::cost_at`] is `None`.
    pub fn build(
        grid: &Grid,
        goals: &[Cell],
        movement: Movement,
        cost: CostModel,
    ) -> Result<Self, FlowFieldError> {
        let mut field = Self::empty(grid, movement, cost)?;
        field.rebuild(grid, goals)?;
        Ok(field)
    }
}

impl FlowField {
    /// Optimal paths from each of `starts` to `goal` (`None` for a start that cannot reach
    /// it, is blocked or lies outside the grid), from one Dijkstra grown from the goal that
    /// stops as soon as every start is settled: a crowd heading for one goal costs one search
    /// instead of one per agent, and a crowd near the goal costs only the cells around it.
    ///
    /// Each path's cost is the optimal cost under `movement` and `cost`, as
    /// [`Searcher::find_path`](crate::Searcher::find_path) finds it with an admissible
    /// heuristic; among paths of equal cost the two may pick different ones.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, FlowField, Grid, Movement};
    ///
    /// let grid = Grid::from_ascii(
    ///     "....
    ///      .##.
    ///      ....",
    /// )?;
    /// let goal = Cell::new(3, 1);
    /// let starts = [Cell::new(0, 1), Cell::new(3, 0), Cell::new(1, 1)];
    /// let paths = FlowField::paths_to_goal(&grid, &starts, goal, Movement::EIGHT, CostModel::Octile)?;
    /// assert_eq!(paths[0].as_ref().map(|path| path.cost), Some(5.0));
    /// assert_eq!(paths[1].as_ref().map(|path| path.cells.len()), Some(2));
    /// assert!(paths[2].is_none()); // a wall
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::build`] with the one goal.
    pub fn paths_to_goal(
        grid: &Grid,
        starts: &[Cell],
        goal: Cell,
        movement: Movement,
        cost: CostModel,
    ) -> Result<Vec<Option<Path>>, FlowFieldError> {
        Self::paths_to_goal_while(grid, starts, goal, movement, cost, || true)
            .map(Option::unwrap_or_default)
    }

    /// [`FlowField::paths_to_goal`], asking `proceed` after every
    /// [`FlowField::PROCEED_INTERVAL`] settled cells and giving up, with `Ok(None)`, as soon as
    /// it answers false: a large search nobody waits for any more stops early.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, FlowField, Grid, Movement};
    ///
    /// let grid = Grid::new(300, 300);
    /// let (start, goal) = (Cell::new(0, 0), Cell::new(299, 299));
    /// let given_up =
    ///     FlowField::paths_to_goal_while(&grid, &[start], goal, Movement::EIGHT, CostModel::Octile, || false)?;
    /// assert!(given_up.is_none());
    /// # Ok::<(), astar_grid::FlowFieldError>(())
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::build`] with the one goal.
    pub fn paths_to_goal_while(
        grid: &Grid,
        starts: &[Cell],
        goal: Cell,
        movement: Movement,
        cost: CostModel,
        mut proceed: impl FnMut() -> bool,
    ) -> Result<Option<Vec<Option<Path>>>, FlowFieldError> {
        let mut paths = GoalPaths::new(grid, starts, goal, movement, cost)?;
        while !paths.advance(Self::PROCEED_INTERVAL) {
            if !proceed() {
                return Ok(None);
            }
        }
        Ok(Some(paths.finish()))
    }

    /// [`FlowField::paths_to_goal`], falling back to the closest reachable cell: each start that
    /// reaches `goal` gets its optimal path ([`ReachedPath::Goal`]), each walkable start that
    /// cannot (or every walkable start, when `goal` is blocked) the cheapest path to the
    /// reachable cell closest to the goal ([`ReachedPath::Closest`], "closest" as
    /// [`SearchOptions::closest_reachable`](crate::SearchOptions::closest_reachable) defines
    /// it). A start that is blocked or outside the grid gets `None`.
    ///
    /// The starts that reach the goal cost what they cost [`FlowField::paths_to_goal`]; each
    /// start that does not costs a flood of its region (Dijkstra's algorithm from the start,
    /// the field having never reached it), with memory for 9 bytes per cell shared by the
    /// floods.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, FlowField, Grid, Movement, ReachedPath};
    ///
    /// let grid = Grid::from_ascii(
    ///     "..#..
    ///      ..#..",
    /// )?;
    /// let goal = Cell::new(4, 0);
    /// let starts = [Cell::new(3, 1), Cell::new(0, 1), Cell::new(2, 0)];
    /// let paths = FlowField::closest_paths_to_goal(&grid, &starts, goal, Movement::EIGHT, CostModel::Octile)?;
    /// assert!(paths[0].as_ref().is_some_and(ReachedPath::reaches_goal));
    /// let short = paths[1].as_ref().expect("a walkable start");
    /// assert!(!short.reaches_goal());
    /// assert_eq!(short.path().end(), Some(Cell::new(1, 0))); // beside the wall, level with the goal
    /// assert!(paths[2].is_none()); // a wall
    ///
    /// // A blocked goal: every walkable start gets the path to its closest cell.
    /// let blocked = FlowField::closest_paths_to_goal(&grid, &starts[..1], Cell::new(2, 1), Movement::EIGHT, CostModel::Octile)?;
    /// assert_eq!(blocked[0], Some(ReachedPath::Closest(astar_grid::Path { cells: vec![Cell::new(3, 1)], cost: 0.0 })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::build`] with the one goal, except that a blocked goal is searched.
    pub fn closest_paths_to_goal(
        grid: &Grid,
        starts: &[Cell],
        goal: Cell,
        movement: Movement,
        cost: CostModel,
    ) -> Result<Vec<Option<ReachedPath>>, FlowFieldError> {
        if !cost.is_valid() {
            return Err(FlowFieldError::InvalidCostModel);
        }
        if grid.is_empty() {
            return Err(FlowFieldError::EmptyGrid);
        }
        if !grid.contains(goal) {
            return Err(FlowFieldError::GoalOutOfBounds(goal));
        }
        let reached = if grid.is_walkable(goal) {
            Self::paths_to_goal(grid, starts, goal, movement, cost)?
        } else {
            vec![None; starts.len()]
        };
        let mut scratch = FloodScratch::default();
        Ok(starts
            .iter()
            .zip(reached)
            .map(|(&start, path)| match path {
                Some(path) => Some(ReachedPath::Goal(path)),
                None if grid.is_walkable(start) => {
                    let flood =
                        flood_to_closest(&mut scratch, grid, movement, cost, start, &[goal]);
                    Some(ReachedPath::Closest(flood.path))
                }
                None => None,
            })
            .collect())
    }

    /// Cells [`FlowField::paths_to_goal_while`] settles between two questions to `proceed`.
    pub const PROCEED_INTERVAL: usize = 4096;

    /// The optimal path from `cell` to its nearest goal, read by following next steps; its
    /// cost is [`FlowField::cost_at`] of `cell`. `None` where no goal can be reached.
    #[must_use]
    pub fn path_from(&self, cell: Cell) -> Option<Path> {
        let cost = self.cost_at(cell)?;
        let cells = self.cells_from(cell, |_, _| {})?;
        Some(Path { cells, cost })
    }

    /// [`FlowField::path_from`], falling back to the closest reachable cell: the optimal path
    /// to the nearest goal when `cell` reaches one ([`ReachedPath::Goal`]), else the cheapest
    /// path from `cell` to the reachable cell closest to the nearest goal
    /// ([`ReachedPath::Closest`], "closest" as
    /// [`SearchOptions::closest_reachable`](crate::SearchOptions::closest_reachable) defines it,
    /// measuring each cell's distance to the goal nearest to it). `None` when `cell` is blocked
    /// or outside the grid.
    ///
    /// `grid` is the grid the field is up to date with. A cell that reaches a goal costs what
    /// [`FlowField::path_from`] costs; one that does not costs a flood of its region
    /// (Dijkstra's algorithm from `cell`, measuring every reached cell's distance to each
    /// goal), and allocates 9 bytes per cell for it.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, FlowField, Grid, Movement, ReachedPath};
    ///
    /// let grid = Grid::from_ascii(
    ///     "..#...
    ///      ..#...",
    /// )?;
    /// let field = FlowField::build(&grid, &[Cell::new(5, 1)], Movement::EIGHT, CostModel::Octile)?;
    /// let walled_off = field.path_or_closest_from(&grid, Cell::new(0, 0))?.expect("walkable");
    /// assert!(!walled_off.reaches_goal());
    /// assert_eq!(walled_off.path().end(), Some(Cell::new(1, 1)));
    /// let across = field.path_or_closest_from(&grid, Cell::new(3, 0))?.expect("walkable");
    /// assert!(across.reaches_goal());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`FlowFieldError::GridMismatch`] when `grid` is not the size of the field.
    pub fn path_or_closest_from(
        &self,
        grid: &Grid,
        cell: Cell,
    ) -> Result<Option<ReachedPath>, FlowFieldError> {
        self.check_size(grid)?;
        if !grid.is_walkable(cell) {
            return Ok(None);
        }
        if let Some(path) = self.path_from(cell) {
            return Ok(Some(ReachedPath::Goal(path)));
        }
        let flood = flood_to_closest(
            &mut FloodScratch::default(),
            grid,
            self.movement,
            self.cost_model,
            cell,
            &self.goals,
        );
        Ok(Some(ReachedPath::Closest(flood.path)))
    }
}

impl<C: FieldCost> CostField<C> {
    /// A field with no goals yet, sized for `grid`.
    pub(crate) fn empty(
        grid: &Grid,
        movement: Movement,
        cost: CostModel,
    ) -> Result<Self, FlowFieldError> {
        if !cost.is_valid() {
            return Err(FlowFieldError::InvalidCostModel);
        }
        let mut step_cost = [0.0; 8];
        for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            step_cost[direction] = cost.step(movement.neighborhood, dx, dy);
        }
        Ok(Self {
            movement,
            cost_model: cost,
            width: grid.width(),
            height: grid.height(),
            rule: StepRule::new(movement, grid.stride()),
            step_cost,
            goals: Vec::new(),
            goal_indices: Vec::new(),
            costs: Vec::new(),
            next: Vec::new(),
            link_next: HashMap::new(),
            open: BinaryHeap::new(),
            invalidated: Vec::new(),
            stack: Vec::new(),
        })
    }

    /// Builds the field again, for new goals or a changed grid (of any size), with the same
    /// movement and cost model, reusing the memory of the previous build.
    ///
    /// # Errors
    /// As [`FlowField::build`]; the field is unchanged then.
    pub fn rebuild(
        &mut self,
        grid: &Grid,
        goals: &[Cell],
    ) -> Result<FlowFieldUpdate, FlowFieldError> {
        self.seed(grid, goals)?;
        let settled = self.settle(grid);
        Ok(FlowFieldUpdate {
            invalidated: 0,
            settled,
        })
    }

    /// Resets the field for `grid` and queues `goals` at cost 0.
    fn seed(&mut self, grid: &Grid, goals: &[Cell]) -> Result<(), FlowFieldError> {
        if grid.is_empty() {
            return Err(FlowFieldError::EmptyGrid);
        }
        if goals.is_empty() {
            return Err(FlowFieldError::NoGoals);
        }
        for &goal in goals {
            if !grid.contains(goal) {
                return Err(FlowFieldError::GoalOutOfBounds(goal));
            }
            if !grid.is_walkable(goal) {
                return Err(FlowFieldError::GoalBlocked(goal));
            }
        }
        let cells = grid.raw().len();
        self.width = grid.width();
        self.height = grid.height();
        self.rule = StepRule::new(self.movement, grid.stride());
        self.goals.clear();
        self.goals.extend_from_slice(goals);
        self.goal_indices.clear();
        self.goal_indices
            .extend(goals.iter().map(|&goal| grid.index(goal) as u32));
        self.goal_indices.sort_unstable();
        self.goal_indices.dedup();
        self.costs.clear();
        self.costs.resize(cells, C::UNREACHED);
        self.next.clear();
        self.next.resize(cells, NONE);
        self.link_next.clear();
        self.open.clear();
        for &index in &self.goal_indices {
            self.costs[index as usize] = C::ZERO;
            self.next[index as usize] = GOAL;
            self.open.push(FlowEntry { cost: 0.0, index });
        }
        Ok(())
    }

    /// Whether the padded `index` is one of the goals (walkable or not).
    fn is_goal_index(&self, index: usize) -> bool {
        self.goal_indices.binary_search(&(index as u32)).is_ok()
    }

    /// The first goal cell given to the last build: the goal, for a field of one goal.
    #[must_use]
    pub fn goal(&self) -> Cell {
        // A field exists only once seeded with at least one goal.
        self.goals[0]
    }

    /// The goal cells, as given to the last build.
    #[must_use]
    pub fn goals(&self) -> &[Cell] {
        &self.goals
    }

    /// The movement rule of the field.
    #[must_use]
    pub const fn movement(&self) -> Movement {
        self.movement
    }

    /// The cost model of the field.
    #[must_use]
    pub const fn cost_model(&self) -> CostModel {
        self.cost_model
    }

    /// The cost of an optimal path from `cell` to its nearest goal; `None` when no goal can be
    /// reached (or `cell` is blocked or outside the grid).
    #[must_use]
    pub fn cost_at(&self, cell: Cell) -> Option<f64> {
        let cost = self.costs[self.index(cell)?];
        cost.is_reached().then(|| cost.widen())
    }

    /// Whether `cell` is a walkable goal (its cost is 0 and it has no next step).
    #[must_use]
    pub fn is_goal(&self, cell: Cell) -> bool {
        self.index(cell)
            .is_some_and(|index| self.next[index] == GOAL)
    }

    /// The cell to step onto from `cell` to follow an optimal path to the nearest goal (a
    /// neighbour, or the far end of a link of the grid, [`Grid::add_link`]); `None` at a goal
    /// and where no goal can be reached. Ties between equally good steps are broken
    /// consistently but arbitrarily.
    #[must_use]
    pub fn next_step(&self, cell: Cell) -> Option<Cell> {
        let index = self.index(cell)?;
        let (onto, _) = self.step_from(index)?;
        Some(self.cell_at(onto))
    }

    /// The padded index of the cell the next step from padded `index` goes onto, and its
    /// price: [`StepPrice::Terrain`] of a neighbour, [`StepPrice::Link`] of a link; `None` at a
    /// goal and where no goal is reached.
    fn step_from(&self, index: usize) -> Option<(usize, StepPrice)> {
        let direction = *self.next.get(index)?;
        if direction == LINK {
            let &(onto, cost) = self.link_next.get(&(index as u32))?;
            return Some((onto as usize, StepPrice::Link(cost)));
        }
        let delta = self.rule.delta.get(usize::from(direction))?;
        let price = StepPrice::Terrain(self.step_cost[usize::from(direction)]);
        Some((index.wrapping_add_signed(*delta), price))
    }

    /// The cell at padded `index`.
    fn cell_at(&self, index: usize) -> Cell {
        let stride = self.width as usize + 2;
        Cell::new((index % stride) as u32 - 1, (index / stride) as u32 - 1)
    }

    /// The cells of the path from `cell` along next steps to a goal, `cell` first; `None`
    /// where no goal can be reached. `on_step` is given each step's price and the padded
    /// index of the cell it steps onto.
    fn cells_from(
        &self,
        cell: Cell,
        mut on_step: impl FnMut(StepPrice, usize),
    ) -> Option<Vec<Cell>> {
        let mut index = self.index(cell)?;
        if !self.costs[index].is_reached() {
            return None;
        }
        let mut cells = vec![cell];
        loop {
            if self.next[index] == GOAL {
                return Some(cells);
            }
            let (onto, price) = self.step_from(index)?;
            index = onto;
            on_step(price, index);
            cells.push(self.cell_at(index));
            if cells.len() > self.costs.len() {
                return None; // costs fall strictly along next steps, so this cannot happen
            }
        }
    }

    /// [`FlowFieldError::GridMismatch`] unless `grid` has the size of the field.
    fn check_size(&self, grid: &Grid) -> Result<(), FlowFieldError> {
        if grid.width() != self.width || grid.height() != self.height {
            return Err(FlowFieldError::GridMismatch {
                width: self.width,
                height: self.height,
                found_width: grid.width(),
                found_height: grid.height(),
            });
        }
        Ok(())
    }

    /// Bytes held by the field and its scratch memory.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.costs.capacity() * size_of::<C>()
            + self.next.capacity()
            + self.goal_indices.capacity() * size_of::<u32>()
            + self.open.capacity() * size_of::<FlowEntry>()
            + (self.invalidated.capacity() + self.stack.capacity()) * size_of::<u32>()
            + self.goals.capacity() * size_of::<Cell>()
            + self.link_next.capacity() * (size_of::<u32>() * 2 + size_of::<f64>())
    }

    /// Padded index of `cell`, or `None` outside the grid.
    fn index(&self, cell: Cell) -> Option<usize> {
        (cell.x < self.width && cell.y < self.height)
            .then(|| (cell.y as usize + 1) * (self.width as usize + 2) + cell.x as usize + 1)
    }

    /// Dijkstra from the queued cells: pops each in cost order and offers every neighbour that
    /// can step onto it, and every cell an open link of `grid` leads from to it, a cheaper
    /// cost. Returns how many cells it settled.
    fn settle(&mut self, grid: &Grid) -> usize {
        self.settle_until(grid, |_| false)
    }

    /// [`FlowField::settle`], stopping right after settling (and expanding) a cell for which
    /// `stop` (given its padded index) returns true: settling again later carries on where it
    /// stopped.
    fn settle_until(&mut self, grid: &Grid, mut stop: impl FnMut(usize) -> bool) -> usize {
        let (raw, links) = (grid.raw(), grid.links());
        let rule = self.rule;
        let step_cost = self.step_cost;
        let costs = &mut self.costs[..raw.len()];
        let next = &mut self.next[..raw.len()];
        let mut settled = 0;
        while let Some(entry) = self.open.pop() {
            let index = entry.index as usize;
            if C::store(entry.cost) != costs[index] {
                continue; // a stale entry: the cell was queued again at a lower cost
            }
            settled += 1;
            let terrain = f64::from(raw[index]);
            for (direction, price) in step_cost.iter().enumerate().take(rule.directions) {
                let Some(neighbour) = rule.step(index, direction, |at| raw[at] != 0) else {
                    continue;
                };
                let cost = entry.cost + price * terrain;
                let stored = C::store(cost);
                if stored < costs[neighbour] {
                    costs[neighbour] = stored;
                    next[neighbour] = StepRule::opposite(direction) as u8;
                    self.open.push(FlowEntry {
                        cost,
                        index: neighbour as u32,
                    });
                }
            }
            for step in links.steps_to(index) {
                let from = step.from as usize;
                let cost = entry.cost + step.cost;
                let stored = C::store(cost);
                if raw[from] != 0 && stored < costs[from] {
                    costs[from] = stored;
                    next[from] = LINK;
                    self.link_next.insert(step.from, (step.to, step.cost));
                    self.open.push(FlowEntry {
                        cost,
                        index: step.from,
                    });
                }
            }
            if stop(index) {
                break;
            }
        }
        settled
    }
}
