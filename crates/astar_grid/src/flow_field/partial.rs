//! What a field's growth has settled so far, as a field of its own: the final routes of the
//! cells nearest the goals, readable while the rest of the field grows.

use super::{CostField, CostFieldGrowth, FieldCost, NONE};

impl<C: FieldCost> CostFieldGrowth<'_, C> {
    /// The cells settled so far, each with its final cost and next step, as a field of its
    /// own in which the cells not settled yet read as unreached: every route it gives is final
    /// (a settled cell's next steps lead through settled cells to a goal), so agents near the
    /// goals can follow it while the rest grows. The Dijkstra settles cells cheapest first, so
    /// these are the cells nearest the goals.
    ///
    /// It copies the field and reads every cell once: call it every few slices, not after each.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, GoalTree, Grid, Movement, TreeGrowth};
    ///
    /// let grid = Grid::new(64, 64);
    /// let goal = Cell::new(2, 2);
    /// let mut growth = TreeGrowth::new(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
    /// growth.advance(200);
    /// let near = growth.settled_so_far();
    /// let whole = GoalTree::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
    /// // A cell beside the goal is settled, at its final cost; the far corner is not yet.
    /// assert_eq!(near.cost_at(Cell::new(4, 3)), whole.cost_at(Cell::new(4, 3)));
    /// assert_eq!(near.cost_at(Cell::new(63, 63)), None);
    /// # Ok::<(), astar_grid::FlowFieldError>(())
    /// ```
    ///
    /// Every route the settled part gives is the whole field's route:
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, Grid, Movement, TreeGrowth};
    ///
    /// let grid = Grid::from_ascii(
    ///     "........
    ///      .######.
    ///      ........",
    /// )?;
    /// let goal = Cell::new(0, 1);
    /// let mut growth = TreeGrowth::new(&grid, &[goal], Movement::EIGHT, CostModel::Octile)?;
    /// growth.advance(6);
    /// let settled = growth.settled_so_far();
    /// let reached: Vec<Cell> = grid.cells().map(|(cell, _)| cell).filter(|&cell| settled.cost_at(cell).is_some()).collect();
    /// assert!(!reached.is_empty() && reached.len() < 17);
    /// for cell in reached {
    ///     let path = settled.path_from(&grid, cell)?.expect("a settled cell's route is whole");
    ///     assert_eq!(path.end(), Some(goal));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn settled_so_far(&self) -> CostField<C> {
        // Every cell cheaper than the queue's cheapest entry has been settled; a cell that
        // costs as much may not have been, and is left out. Compared as stored: rounding keeps
        // order, so a stored cost below the stored frontier is an exact cost below it.
        let frontier = self
            .field
            .open
            .peek()
            .map_or(C::UNREACHED, |entry| C::store(entry.cost));
        let mut field = self.field.clone();
        field.open.clear();
        for (cost, next) in field.costs.iter_mut().zip(field.next.iter_mut()) {
            if *cost >= frontier {
                *cost = C::UNREACHED;
                *next = NONE;
            }
        }
        field
    }
}
