//! The documented choice of the closest reachable cell, written from its definition: the
//! smallest open-ground distance in cells from the goal (octile with eight neighbours, Manhattan
//! with four), then the lowest cost from the start, then the smallest `(y, x)`.

use super::path_check::costs_match;
use super::reference_search::ReferenceGraph;
use astar_grid::{Cell, CostModel, Grid, Movement, Neighborhood};

/// The distance in cells from `cell` to `goal` on open ground under `neighborhood`: with eight
/// neighbours `sqrt(2)` per diagonal step and 1 per straight one, with four `dx + dy`, with six
/// the hex distance `max(|dx|, |dy|, |dx + dy|)` of axial coordinates.
pub fn cell_distance(neighborhood: Neighborhood, cell: Cell, goal: Cell) -> f64 {
    let (dx, dy) = (cell.x.abs_diff(goal.x), cell.y.abs_diff(goal.y));
    match neighborhood {
        Neighborhood::Four => f64::from(dx) + f64::from(dy),
        Neighborhood::Hex => {
            let signed_x = i64::from(goal.x) - i64::from(cell.x);
            let signed_y = i64::from(goal.y) - i64::from(cell.y);
            let sum = (signed_x + signed_y).unsigned_abs();
            f64::from(dx.max(dy)).max(sum as f64)
        }
        Neighborhood::Eight => {
            let diagonal = dx.min(dy);
            f64::from(dx.max(dy) - diagonal) + 2f64.sqrt() * f64::from(diagonal)
        }
    }
}

/// The closest of `candidates` (cells with their cost from the start) to `goal` by the
/// documented rule, costs compared exactly; `None` without candidates.
pub fn closest_by_rule(
    neighborhood: Neighborhood,
    goal: Cell,
    candidates: impl IntoIterator<Item = (Cell, f64)>,
) -> Option<(Cell, f64)> {
    let key = |&(cell, cost): &(Cell, f64)| {
        (
            cell_distance(neighborhood, cell, goal),
            cost,
            cell.y,
            cell.x,
        )
    };
    candidates.into_iter().min_by(|a, b| {
        key(a)
            .partial_cmp(&key(b))
            .unwrap_or(core::cmp::Ordering::Equal)
    })
}

/// What the reference expects of a search for the closest reachable cell to `goal` from
/// `start`: every cell the start reaches, with its optimal cost.
#[derive(Clone, Debug)]
pub struct ClosestExpectation {
    /// The cell the documented rule picks with the reference's costs.
    pub cell: Cell,
    /// Its optimal cost from the start.
    pub cost: f64,
    /// The distance of the closest cells from the goal.
    pub distance: f64,
    /// Every reachable cell at that distance whose optimal cost equals the lowest one up to
    /// rounding, with its cost: the cells a search may pick when costs summed in another order
    /// differ in their last bits. With integer costs sums are exact and this is `cell` alone.
    pub tied: Vec<(Cell, f64)>,
}

impl ClosestExpectation {
    /// The expectation for a search on `grid` under `movement` and `cost`, from its own
    /// independent Dijkstra (cells outside the grid or blocked are not reachable).
    pub fn new(grid: &Grid, movement: Movement, cost: CostModel, start: Cell, goal: Cell) -> Self {
        let reference = ReferenceGraph::new(grid, movement, cost);
        let costs = reference.costs_from(start);
        let reachable: Vec<(Cell, f64)> = grid
            .cells()
            .filter_map(|(cell, _)| costs[reference.index(cell)].map(|cost| (cell, cost)))
            .collect();
        let neighborhood = movement.neighborhood;
        let (cell, best_cost) =
            closest_by_rule(neighborhood, goal, reachable.iter().copied()).unwrap_or((start, 0.0));
        let distance = cell_distance(neighborhood, cell, goal);
        let exact = matches!(cost, CostModel::Integer { .. });
        let tied = reachable
            .into_iter()
            .filter(|&(other, other_cost)| {
                cell_distance(neighborhood, other, goal) == distance
                    && if exact {
                        other == cell
                    } else {
                        costs_match(other_cost, best_cost)
                    }
            })
            .collect();
        Self {
            cell,
            cost: best_cost,
            distance,
            tied,
        }
    }

    /// Whether a path ending at `end` and costing `cost` is what the rule allows: `end` is one
    /// of [`ClosestExpectation::tied`] and `cost` is its optimal cost.
    pub fn accepts(&self, end: Cell, cost: f64) -> Result<(), String> {
        match self.tied.iter().find(|&&(cell, _)| cell == end) {
            Some(&(_, optimum)) if costs_match(cost, optimum) => Ok(()),
            Some(&(_, optimum)) => Err(format!(
                "path to {end} costs {cost}, the optimum is {optimum}"
            )),
            None => Err(format!(
                "path ends at {end}, the closest reachable cell is {} (distance {}, cost {})",
                self.cell, self.distance, self.cost
            )),
        }
    }
}
