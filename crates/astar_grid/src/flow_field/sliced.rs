//! Flow fields grown a slice at a time: a field's build ([`FieldGrowth`]) and the optimal
//! paths of a batch of starts to one goal ([`GoalPaths`]), each advanced by a budget of settled
//! cells per call, so that a program that must not stall spreads one Dijkstra over several
//! frames. Both end exactly as the one-go functions do.

use super::{CostField, FieldCost, FlowField, FlowFieldError};
use crate::{Cell, CostModel, Grid, Movement, Path};
use core::borrow::Borrow;
use core::ops::Range;

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
pub type FieldGrowth<'g> = CostFieldGrowth<'g, f64>;

/// A [`CostField`] build in progress, its costs stored as `C`: used as [`FieldGrowth`] (for a
/// [`FlowField`]) or [`TreeGrowth`](crate::TreeGrowth) (for a [`GoalTree`](crate::GoalTree)).
#[derive(Debug)]
pub struct CostFieldGrowth<'g, C: FieldCost> {
    grid: &'g Grid,
    /// The field grown so far (read by `partial.rs`).
    pub(super) field: CostField<C>,
}

impl<'g, C: FieldCost> CostFieldGrowth<'g, C> {
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
        let mut field = CostField::empty(grid, movement, cost)?;
        field.seed(grid, goals)?;
        Ok(Self { grid, field })
    }

    /// Settles up to `cells` more cells (0 counting as 1); true once every cell that reaches a
    /// goal is settled.
    pub fn advance(&mut self, cells: usize) -> bool {
        let budget = cells.max(1);
        let mut settled = 0;
        self.field.settle_until(self.grid, |_| {
            settled += 1;
            settled == budget
        });
        self.field.drop_stale_top();
        self.field.open.is_empty()
    }

    /// The field, with the cells not settled yet settled now: the field [`FlowField::build`]
    /// builds.
    #[must_use]
    pub fn finish(mut self) -> CostField<C> {
        self.field.settle(self.grid);
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
///
/// The grid is held as `G`: borrowed (`&Grid`), or shared (`Arc<Grid>`) so that the search can
/// be kept and resumed for more starts later ([`GoalPaths::add_starts`]).
#[derive(Debug)]
pub struct GoalPaths<G: Borrow<Grid>> {
    grid: G,
    field: FlowField,
    starts: Vec<Cell>,
    /// Padded like the grid: whether the cell is a walkable start not settled yet.
    wanted: Vec<bool>,
    /// Padded like the grid: whether the cell is settled.
    settled: Vec<bool>,
    /// Walkable starts (counted once each) not settled yet.
    remaining: usize,
}

impl<G: Borrow<Grid>> GoalPaths<G> {
    /// Starts the search of optimal paths from each of `starts` to `goal`; no cell is settled
    /// yet.
    ///
    /// - `grid`: the cells, held (borrowed or shared) while the search lives;
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
        grid: G,
        starts: &[Cell],
        goal: Cell,
        movement: Movement,
        cost: CostModel,
    ) -> Result<Self, FlowFieldError> {
        let mut field = FlowField::empty(grid.borrow(), movement, cost)?;
        field.seed(grid.borrow(), &[goal])?;
        let cells = grid.borrow().raw().len();
        let mut paths = Self {
            grid,
            field,
            starts: Vec::new(),
            wanted: vec![false; cells],
            settled: vec![false; cells],
            remaining: 0,
        };
        paths.add_starts(starts);
        Ok(paths)
    }

    /// Adds `starts` after those given so far, for a search kept to answer more starts to the
    /// same goal on the same grid: a start already settled has its path at once, the others
    /// once [`GoalPaths::advance`] settles them. Returns the numbers the new starts have for
    /// [`GoalPaths::settled`].
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, FlowField, GoalPaths, Grid, Movement};
    /// use std::sync::Arc;
    ///
    /// let grid = Arc::new(Grid::new(40, 40));
    /// let goal = Cell::new(20, 20);
    /// let mut paths = GoalPaths::new(Arc::clone(&grid), &[Cell::new(25, 20)], goal, Movement::EIGHT, CostModel::Octile)?;
    /// while !paths.advance(64) {}
    /// let later = paths.add_starts(&[Cell::new(20, 21), Cell::new(0, 0)]);
    /// assert_eq!(later, 1..3);
    /// assert!(paths.settled(1).is_some()); // settled on the way to the first start
    /// assert!(paths.settled(2).is_none());
    /// while !paths.advance(64) {}
    /// let whole = FlowField::paths_to_goal(&grid, &[Cell::new(0, 0)], goal, Movement::EIGHT, CostModel::Octile)?;
    /// assert_eq!(paths.settled(2), whole[0]);
    /// # Ok::<(), astar_grid::FlowFieldError>(())
    /// ```
    pub fn add_starts(&mut self, starts: &[Cell]) -> Range<usize> {
        let first = self.starts.len();
        let grid = self.grid.borrow();
        for &start in starts {
            if grid.is_walkable(start) {
                let index = grid.index(start);
                let waiting = !self.wanted[index] && !self.settled[index];
                self.remaining += usize::from(waiting);
                self.wanted[index] |= waiting;
            }
        }
        self.starts.extend_from_slice(starts);
        first..self.starts.len()
    }

    /// The grid searched.
    pub fn grid(&self) -> &Grid {
        self.grid.borrow()
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
        let done = &mut self.settled;
        self.field.settle_until(self.grid.borrow(), |index| {
            done[index] = true;
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
    /// [`GoalPaths::new`], then to [`GoalPaths::add_starts`]), once that start is settled;
    /// `None` before, and for a start that gets no path.
    #[must_use]
    pub fn settled(&self, start: usize) -> Option<Path> {
        let cell = *self.starts.get(start)?;
        let index = self.field.index(cell)?;
        if !self.settled[index] {
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

impl<C: FieldCost> CostField<C> {
    /// Drops the queue's stale entries from its top, so that the queue is empty exactly when
    /// no cell is left to settle.
    fn drop_stale_top(&mut self) {
        while let Some(entry) = self.open.peek() {
            if C::store(entry.cost) == self.costs[entry.index as usize] {
                return;
            }
            self.open.pop();
        }
    }
}
