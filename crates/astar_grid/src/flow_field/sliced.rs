//! Flow fields grown a slice at a time: a field's build ([`FieldGrowth`]) and the optimal
//! paths of a batch of starts to one goal ([`GoalPaths`]), each advanced by a budget of settled
//! cells per call, so that a program that must not stall spreads one Dijkstra over several
//! frames. Both end exactly as the one-go functions do.

use super::{FlowField, FlowFieldError};
use crate::{Cell, CostModel, Grid, Movement, Path};

/// A [`FlowField::build`] in progress: the Dijkstra from the goals, settled a budget of cells
/// per [`FieldGrowth::advance`].
///
/// ```
/// use astar_grid::{Cell, CostModel, FieldGrowth, FlowField, Grid, Movement};
///
/// let grid = Grid::new(64, 64);
/// let goal = Cell::new(5, 60);
/// let mut growth = FieldGrowth::new(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// let mut slices = 1;
/// while !growth.advance(500) {
///     slices += 1;
/// }
/// assert_eq!(slices, 9); // 4,096 cells, 500 a slice
/// let field = growth.finish();
/// let whole = FlowField::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// assert_eq!(field.cost_at(Cell::new(0, 0)), whole.cost_at(Cell::new(0, 0)));
/// # Ok::<(), astar_grid::FlowFieldError>(())
/// ```
#[derive(Debug)]
pub struct FieldGrowth<'g> {
    grid: &'g Grid,
    field: FlowField,
}

impl<'g> FieldGrowth<'g> {
    /// Starts the field of `goals` on `grid`; no cell is settled yet.
    ///
    /// - `grid`: the cells, borrowed until the field is finished;
    /// - `goals`: the cells the field leads to (each walkable, at least one);
    /// - `movement`: the legal steps, corner rule included;
    /// - `cost`: the prices of straight and diagonal steps, multiplied by the terrain cost of
    ///   the cell stepped onto.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, FieldGrowth, FlowFieldError, Grid, Movement};
    ///
    /// let grid = Grid::from_ascii(".#.")?;
    /// let blocked = FieldGrowth::new(&grid, &[Cell::new(1, 0)], Movement::EIGHT, CostModel::Octile);
    /// assert!(matches!(blocked, Err(FlowFieldError::GoalBlocked(_))));
    /// let mut growth = FieldGrowth::new(&grid, &[Cell::new(0, 0)], Movement::EIGHT, CostModel::Octile)?;
    /// assert!(growth.advance(0)); // one cell reaches the goal: done at once
    /// assert_eq!(growth.finish().cost_at(Cell::new(2, 0)), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::build`].
    pub fn new(
        grid: &'g Grid,
        goals: &[Cell],
        movement: Movement,
        cost: CostModel,
    ) -> Result<Self, FlowFieldError> {
        let mut field = FlowField::empty(grid, movement, cost)?;
        field.seed(grid, goals)?;
        Ok(Self { grid, field })
    }

    /// Settles up to `cells` more cells (0 counting as 1); true once every cell that reaches a
    /// goal is settled.
    pub fn advance(&mut self, cells: usize) -> bool {
        let budget = cells.max(1);
        let mut settled = 0;
        self.field.settle_until(self.grid.raw(), |_| {
            settled += 1;
            settled == budget
        });
        self.field.drop_stale_top();
        self.field.open.is_empty()
    }

    /// The field, with the cells not settled yet settled now: the field [`FlowField::build`]
    /// builds.
    #[must_use]
    pub fn finish(mut self) -> FlowField {
        self.field.settle(self.grid.raw());
        self.field
    }
}

/// A [`FlowField::paths_to_goal`] in progress: the Dijkstra from the goal, settled a budget of
/// cells per [`GoalPaths::advance`], until every start is settled.
///
/// ```
/// use astar_grid::{Cell, CostModel, FlowField, GoalPaths, Grid, Movement};
///
/// let grid = Grid::new(100, 100);
/// let goal = Cell::new(50, 50);
/// let starts = [Cell::new(52, 50), Cell::new(0, 0)];
/// let mut paths = GoalPaths::new(&grid, &starts, goal, Movement::EIGHT, CostModel::Octile)?;
/// assert!(!paths.advance(100)); // the far start is not settled yet
/// assert_eq!(paths.settled(0).map(|path| path.cost), Some(2.0)); // the near one is
/// assert!(paths.settled(1).is_none());
/// while !paths.advance(1000) {}
/// let all = paths.finish();
/// assert_eq!(all, FlowField::paths_to_goal(&grid, &starts, goal, Movement::EIGHT, CostModel::Octile)?);
/// # Ok::<(), astar_grid::FlowFieldError>(())
/// ```
#[derive(Debug)]
pub struct GoalPaths<'g> {
    grid: &'g Grid,
    field: FlowField,
    starts: Vec<Cell>,
    /// Padded like the grid: whether the cell is a walkable start not settled yet.
    wanted: Vec<bool>,
    /// Walkable starts (counted once each) not settled yet.
    remaining: usize,
}

impl<'g> GoalPaths<'g> {
    /// Starts the search of optimal paths from each of `starts` to `goal`; no cell is settled
    /// yet.
    ///
    /// - `grid`: the cells, borrowed until the paths are read;
    /// - `starts`: where the paths begin, in any number, repeated or not; a start that is
    ///   blocked or outside the grid gets no path;
    /// - `goal`: where every path ends (walkable);
    /// - `movement` and `cost`: as [`FieldGrowth::new`].
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, GoalPaths, Grid, Movement};
    ///
    /// let grid = Grid::from_ascii("..#..")?;
    /// let starts = [Cell::new(0, 0), Cell::new(4, 0), Cell::new(9, 9)];
    /// let mut paths = GoalPaths::new(&grid, &starts, Cell::new(1, 0), Movement::FOUR, CostModel::Octile)?;
    /// while !paths.advance(1) {}
    /// let paths = paths.finish();
    /// assert_eq!(paths[0].as_ref().map(|path| path.cost), Some(1.0));
    /// assert!(paths[1].is_none()); // behind the wall
    /// assert!(paths[2].is_none()); // outside the grid
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::build`] with the one goal.
    pub fn new(
        grid: &'g Grid,
        starts: &[Cell],
        goal: Cell,
        movement: Movement,
        cost: CostModel,
    ) -> Result<Self, FlowFieldError> {
        let mut field = FlowField::empty(grid, movement, cost)?;
        field.seed(grid, &[goal])?;
        let mut wanted = vec![false; grid.raw().len()];
        let mut remaining = 0_usize;
        for &start in starts {
            if grid.is_walkable(start) {
                let index = grid.index(start);
                remaining += usize::from(!wanted[index]);
                wanted[index] = true;
            }
        }
        Ok(Self {
            grid,
            field,
            starts: starts.to_vec(),
            wanted,
            remaining,
        })
    }

    /// Settles up to `cells` more cells (0 counting as 1); true once every start is settled,
    /// or every cell that reaches the goal is (the starts left then cannot reach it).
    pub fn advance(&mut self, cells: usize) -> bool {
        if self.remaining == 0 {
            return true;
        }
        let budget = cells.max(1);
        let mut settled = 0;
        let (wanted, remaining) = (&mut self.wanted, &mut self.remaining);
        self.field.settle_until(self.grid.raw(), |index| {
            if wanted[index] {
                wanted[index] = false;
                *remaining -= 1;
            }
            settled += 1;
            *remaining == 0 || settled == budget
        });
        self.field.drop_stale_top();
        if self.field.open.is_empty() {
            self.remaining = 0;
        }
        self.remaining == 0
    }

    /// The optimal path of start number `start` (an index into the starts given to
    /// [`GoalPaths::new`]), once that start is settled; `None` before, and for a start that
    /// gets no path.
    #[must_use]
    pub fn settled(&self, start: usize) -> Option<Path> {
        let cell = *self.starts.get(start)?;
        let index = self.field.index(cell)?;
        if self.wanted[index] {
            return None;
        }
        self.field.path_from(cell)
    }

    /// Each start's optimal path, in the order of the starts (`None` for a start that cannot
    /// reach the goal, is blocked or lies outside the grid), settling first whatever is left.
    #[must_use]
    pub fn finish(mut self) -> Vec<Option<Path>> {
        while !self.advance(usize::MAX) {}
        self.starts
            .iter()
            .map(|&start| self.field.path_from(start))
            .collect()
    }
}

impl FlowField {
    /// Drops the queue's stale entries from its top, so that the queue is empty exactly when
    /// no cell is left to settle.
    fn drop_stale_top(&mut self) {
        while let Some(entry) = self.open.peek() {
            if entry.cost.to_bits() == self.costs[entry.index as usize].to_bits() {
                return;
            }
            self.open.pop();
        }
    }
}
