//! Incremental repair of a flow field after cells of its grid changed.

use super::{CostField, FieldCost, FlowEntry, FlowFieldError, GOAL, LINK, NONE};
use crate::connectivity::step_rule::StepRule;
use crate::links::Links;
use crate::{Cell, Grid};

/// The work a [`FlowField::update`](crate::FlowField::update) or
/// [`FlowField::rebuild`](crate::FlowField::rebuild) did, in cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowFieldUpdate {
    /// Cells whose cost was dropped because their route to a goal ran through a changed cell.
    pub invalidated: usize,
    /// Cells the Dijkstra settled (each reachable cell once in a full build).
    pub settled: usize,
}

impl<C: FieldCost> CostField<C> {
    /// Brings the field up to date after the cells in `changed` were edited in `grid`
    /// (blocked, opened, or given another terrain cost), without a full rebuild.
    ///
    /// List every cell that changed since the field last matched the grid, and both ends of
    /// every link added, removed, opened or closed since ([`Grid::add_link`]). A goal that
    /// becomes blocked stops counting until it is opened again.
    ///
    /// How: a cell keeps its cost unless its next step is now illegal or dearer, or leads into
    /// such a cell; those cells (the subtrees of the next-step tree below the changed steps)
    /// are dropped and given the best cost their kept neighbours offer. Then a Dijkstra from
    /// them and from the cells around each change (where an opened cell or a cheaper terrain
    /// cost may offer lower costs) propagates the new costs as far as they reach.
    ///
    /// Cost: O(k log k), where k counts the dropped cells plus the cells whose cost changes.
    /// Opening a cell or making it cheaper costs only the cells that get cheaper; blocking a
    /// cell that few routes pass through costs a handful of cells; blocking a cell next to a
    /// goal that most routes pass through costs about as much as
    /// [`FlowField::rebuild`](crate::FlowField::rebuild). The result equals a fresh build's
    /// costs exactly (a [`GoalTree`](crate::GoalTree)'s within its precision).
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, FlowField, Grid, Movement};
    ///
    /// let mut grid = Grid::new(8, 8);
    /// let goal = Cell::new(7, 7);
    /// let mut field = FlowField::build(&grid, &[goal], Movement::FOUR, CostModel::Octile)?;
    /// assert_eq!(field.cost_at(Cell::new(0, 7)), Some(7.0));
    ///
    /// // A wall next to the agent, and a swamp (cost 5) on the cell above that wall.
    /// grid.set_blocked(Cell::new(1, 7), true).expect("inside the grid");
    /// grid.set_cost(Cell::new(1, 6), 5).expect("inside the grid");
    /// let work = field.update(&grid, &[Cell::new(1, 7), Cell::new(1, 6)])?;
    /// assert!(work.invalidated > 0);
    /// // Two steps up, then round the swamp: 4 more than before.
    /// assert_eq!(field.cost_at(Cell::new(0, 7)), Some(11.0));
    /// let fresh = FlowField::build(&grid, &[goal], Movement::FOUR, CostModel::Octile)?;
    /// assert_eq!(field.cost_at(Cell::new(0, 7)), fresh.cost_at(Cell::new(0, 7)));
    /// # Ok::<(), astar_grid::FlowFieldError>(())
    /// ```
    ///
    /// # Errors
    /// [`FlowFieldError::GridMismatch`] when `grid` is not the size of the field,
    /// [`FlowFieldError::CellOutOfBounds`] for a changed cell outside it; the field is
    /// unchanged then.
    pub fn update(
        &mut self,
        grid: &Grid,
        changed: &[Cell],
    ) -> Result<FlowFieldUpdate, FlowFieldError> {
        self.check_size(grid)?;
        if let Some(&cell) = changed.iter().find(|&&cell| !grid.contains(cell)) {
            return Err(FlowFieldError::CellOutOfBounds(cell));
        }
        let (raw, links) = (grid.raw(), grid.links());
        self.invalidated.clear();
        self.open.clear();
        // Every step whose legality or price changed starts in the 3x3 block of a changed cell
        // (a link's, at one of its ends).
        for &cell in changed {
            for index in self.rule.block(grid.index(cell)) {
                if self.costs[index].is_reached() && !self.keeps_cost(index, grid) {
                    self.invalidate_subtree(index, links);
                }
            }
        }
        // Seeds are offered by the costs kept, and written only once all are queued: a seed
        // built on another seed would build on its rounding too.
        for position in 0..self.invalidated.len() {
            let index = self.invalidated[position] as usize;
            if raw[index] != 0 {
                self.queue_seed(index, grid);
            }
        }
        for &cell in changed {
            for index in self.rule.block(grid.index(cell)) {
                if raw[index] == 0 {
                    continue;
                }
                if self.costs[index].is_reached() {
                    // A kept cost offers itself on, through cells opened or made cheaper.
                    self.open.push(FlowEntry {
                        cost: self.costs[index].widen(),
                        index: index as u32,
                    });
                } else {
                    self.queue_seed(index, grid);
                }
            }
        }
        self.write_seeds();
        let settled = self.settle(grid);
        Ok(FlowFieldUpdate {
            invalidated: self.invalidated.len(),
            settled,
        })
    }

    /// Whether the cell at `index` (with a finite cost) still reaches a goal at that cost by
    /// its next step: it is walkable, and it is a goal or its step is legal and no dearer (a
    /// link's, open with its end walkable).
    fn keeps_cost(&self, index: usize, grid: &Grid) -> bool {
        let raw = grid.raw();
        if raw[index] == 0 {
            return false;
        }
        let direction = usize::from(self.next[index]);
        if direction == usize::from(GOAL) {
            return true;
        }
        if direction == usize::from(LINK) {
            let Some(&(onto, cost)) = self.link_next.get(&(index as u32)) else {
                return false;
            };
            let open = grid
                .links()
                .steps_from(index)
                .iter()
                .any(|step| step.to == onto && step.cost == cost);
            let onto = onto as usize;
            return open
                && raw[onto] != 0
                && C::covers(self.costs[index], self.costs[onto].widen() + cost);
        }
        if direction >= 8 {
            return false;
        }
        match self.rule.step(index, direction, |at| raw[at] != 0) {
            Some(next) => C::covers(
                self.costs[index],
                self.costs[next].widen() + self.step_cost[direction] * f64::from(raw[next]),
            ),
            None => false,
        }
    }

    /// Drops the cost of `root` and of every cell whose next steps (neighbours, or the open
    /// links of `links`) lead through it.
    fn invalidate_subtree(&mut self, root: usize, links: &Links) {
        let mut stack = core::mem::take(&mut self.stack);
        stack.clear();
        self.drop_cost(root);
        stack.push(root as u32);
        while let Some(index) = stack.pop() {
            let index = index as usize;
            for direction in 0..self.rule.directions {
                let child = index.wrapping_add_signed(self.rule.delta[direction]);
                if self.costs[child].is_reached()
                    && usize::from(self.next[child]) == StepRule::opposite(direction)
                {
                    self.drop_cost(child);
                    stack.push(child as u32);
                }
            }
            for step in links.steps_to(index) {
                let child = step.from as usize;
                let by_this_link = self.next[child] == LINK
                    && self.link_next.get(&step.from).map(|&(onto, _)| onto) == Some(step.to);
                if self.costs[child].is_reached() && by_this_link {
                    self.drop_cost(child);
                    stack.push(step.from);
                }
            }
        }
        self.stack = stack;
    }

    fn drop_cost(&mut self, index: usize) {
        self.costs[index] = C::UNREACHED;
        self.next[index] = NONE;
        self.invalidated.push(index as u32);
    }

    /// Queues the walkable cell at `index`, which has no cost, at the best cost its neighbours'
    /// stored costs offer (0 for a goal), noting the step; the cost is written by
    /// [`CostField::write_seeds`]. A cell no neighbour offers a cost is left to the Dijkstra.
    fn queue_seed(&mut self, index: usize, grid: &Grid) {
        let raw = grid.raw();
        let (mut exact, mut via) = (f64::INFINITY, NONE);
        let mut by_link = None;
        if self.is_goal_index(index) {
            (exact, via) = (0.0, GOAL);
        } else {
            for step in grid.links().steps_from(index) {
                let cost = self.costs[step.to as usize].widen() + step.cost;
                if raw[step.to as usize] != 0 && cost < exact {
                    (exact, via) = (cost, LINK);
                    by_link = Some((step.to, step.cost));
                }
            }
            for direction in 0..self.rule.directions {
                let Some(next) = self.rule.step(index, direction, |at| raw[at] != 0) else {
                    continue;
                };
                let cost =
                    self.costs[next].widen() + self.step_cost[direction] * f64::from(raw[next]);
                if cost < exact {
                    (exact, via) = (cost, direction as u8);
                }
            }
        }
        if exact.is_finite() {
            self.next[index] = via;
            if let (LINK, Some(link)) = (via, by_link) {
                self.link_next.insert(index as u32, link);
            }
            self.open.push(FlowEntry {
                cost: exact,
                index: index as u32,
            });
        }
    }

    /// Gives every queued cell the cost it was queued with, stored, where that is lower.
    fn write_seeds(&mut self) {
        for entry in &self.open {
            let index = entry.index as usize;
            let stored = C::store(entry.cost);
            if stored < self.costs[index] {
                self.costs[index] = stored;
            }
        }
    }
}
