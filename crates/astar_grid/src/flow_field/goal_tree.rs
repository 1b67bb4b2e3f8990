//! The compact shortest-path tree to a goal: a flow field that stores its costs as `f32`.

use super::{CostField, CostFieldGrowth, FlowFieldError};
use crate::{Cell, Grid, Path};

/// The shortest-path tree of every cell of a [`Grid`] to a goal (or to the nearest of several):
/// each cell's next step towards it and its cost, in 5 bytes a cell (a direction byte and an
/// `f32`), so that every agent heading for the goal reads its route off one shared tree.
///
/// It is a [`FlowField`](crate::FlowField) whose costs are stored as `f32` instead of `f64`
/// (9 bytes a cell): the same build ([`GoalTree::build`], or a slice at a time with
/// [`TreeGrowth`]), the same readers ([`GoalTree::next_step`], [`GoalTree::cost_at`]) and the
/// same incremental [`GoalTree::update`] after cells change. [`GoalTree::path_from`] reads a
/// path and prices it exactly on the grid.
///
/// # Precision
/// The Dijkstra adds step costs in `f64` and keeps each exact sum in its queue; a cell stores
/// that sum rounded to the nearest `f32`, so rounding does not pile up along a chain of cells:
/// a build stores every cost within half a unit in the last place of the optimum (2^-24, about
/// 6e-8, relative). An update seeds the cells it redoes from the stored costs of the cells it
/// keeps, which adds at most half a unit more each time. A next step can differ from an
/// optimal one only where two routes into a cell cost the same once rounded but not exactly;
/// such a tie costs less than one unit of the cell's cost, so the true cost of a path (as
/// [`GoalTree::path_from`] prices it) exceeds the optimum by less than `(steps + 1) * 2^-22`
/// relative. Integer cost models are exact while costs stay below 2^24. All of this holds
/// while costs stay below 2^22 times the cheapest step, where an `f32` still tells a step from
/// the next.
///
/// Measured against an independent Dijkstra (`tests/goal_tree.rs`), on random 48x48 maps with
/// terrain costs from 1 to 255 under every movement rule and cost model (and in a run of 400
/// random 128x128 maps) and on the Moving AI maps of `assets/maps/` (three goals each,
/// octile), every path's true cost was the optimum within the order of `f64` sums (1.4e-15
/// relative at most): no tie occurred. Stored costs were within 0.5 units in the last place
/// of the optimum after builds, within 1.2 after updates that cut paths with walls.
///
/// ```
/// use astar_grid::{Cell, CostModel, GoalTree, Grid, Movement};
///
/// let grid = Grid::from_ascii(
///     "....
///      .##.
///      ....",
/// )?;
/// let goal = Cell::new(3, 1);
/// let tree = GoalTree::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// assert_eq!(tree.goal(), goal);
/// let agent = Cell::new(0, 1);
/// assert_eq!(tree.cost_at(agent), Some(5.0));
/// assert_eq!(tree.next_step(agent), Some(Cell::new(0, 0)));
/// let path = tree.path_from(&grid, agent)?.expect("reachable");
/// assert_eq!((path.cells.len(), path.cost), (6, 5.0));
/// assert_eq!(path.end(), Some(goal));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// After an edit, [`GoalTree::update`] redoes only the cells the edit can affect, and ends as
/// a fresh build would, within the precision above (it starts from the stored costs of the
/// cells it keeps):
///
/// ```
/// use astar_grid::{Cell, CostModel, GoalTree, Grid, Movement};
///
/// let mut grid = Grid::new(16, 16);
/// let goal = Cell::new(15, 15);
/// let mut tree = GoalTree::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// let wall: Vec<Cell> = (0..15).map(|y| Cell::new(8, y)).collect();
/// for &cell in &wall {
///     grid.set_blocked(cell, true)?;
/// }
/// tree.update(&grid, &wall)?;
/// let fresh = GoalTree::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// for y in 0..16 {
///     for x in 0..16 {
///         let cell = Cell::new(x, y);
///         match (tree.cost_at(cell), fresh.cost_at(cell)) {
///             (Some(updated), Some(built)) => assert!((updated - built).abs() <= built * 1e-6),
///             (updated, built) => assert_eq!(updated, built), // both on the wall
///         }
///     }
/// }
/// let around = tree.path_from(&grid, Cell::new(0, 0))?.expect("round the wall");
/// assert!(around.cells.contains(&Cell::new(8, 15)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type GoalTree = CostField<f32>;

/// A [`GoalTree::build`] in progress, settled a budget of cells per
/// [`CostFieldGrowth::advance`], as [`FieldGrowth`](crate::FieldGrowth) grows a flow field.
///
/// ```
/// use astar_grid::{Cell, CostModel, GoalTree, Grid, Movement, TreeGrowth};
///
/// let grid = Grid::new(32, 32);
/// let goal = Cell::new(3, 30);
/// let mut growth = TreeGrowth::new(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// while !growth.advance(100) {}
/// let tree = growth.finish();
/// let whole = GoalTree::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
/// assert_eq!(tree.cost_at(Cell::new(31, 0)), whole.cost_at(Cell::new(31, 0)));
/// # Ok::<(), astar_grid::FlowFieldError>(())
/// ```
pub type TreeGrowth<'g> = CostFieldGrowth<'g, f32>;

impl GoalTree {
    /// The path from `cell` along the tree's next steps to its nearest goal, `None` where no
    /// goal can be reached. Its cost is summed exactly (in `f64`) over its steps on `grid`, not
    /// read from the tree's rounded costs: it is the true cost of the cells given, within the
    /// documented precision of the optimum.
    ///
    /// `grid` is the grid the tree is up to date with (built on, or brought up to date with
    /// [`GoalTree::update`]): the tree keeps no terrain costs, which would take a sixth byte
    /// a cell.
    ///
    /// # Errors
    /// [`FlowFieldError::GridMismatch`] when `grid` is not the size of the tree.
    pub fn path_from(&self, grid: &Grid, cell: Cell) -> Result<Option<Path>, FlowFieldError> {
        self.check_size(grid)?;
        let raw = grid.raw();
        let mut cost = 0.0;
        let cells = self.cells_from(cell, |price, onto| cost += price.onto(raw[onto]));
        Ok(cells.map(|cells| Path { cells, cost }))
    }
}
