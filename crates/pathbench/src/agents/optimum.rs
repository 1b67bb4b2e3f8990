//! Whether an agent's cells ahead lie on a shortest path of the map as it is now: the measure
//! of "re-pathed" after a tower, the same for a path of the agent's own and for a route on a
//! goal's shared tree (whose revision never changes). The optimum comes from the core
//! (`FlowField::build` from the goal on the current grid, once per goal and map), outside the
//! plugin's timed systems.

use astar_grid::{Cell, CostModel, FlowField, Grid, Movement};
use bevy::ecs::resource::Resource;
use std::sync::Arc;

/// Largest relative difference between the cost of cells ahead and the optimum that still
/// counts as optimal: float summation noise only (two different path costs of octile steps
/// differ by far more on the maps the benchmark runs).
const COST_TOLERANCE: f64 = 1e-9;

/// The optimal cost of every cell to each goal asked about, on one version of the grid, built
/// when first asked and kept until the grid changes.
#[derive(Resource, Default)]
pub struct OptimalCosts {
    /// The grid the fields were built on (held, so that its address names it).
    grid: Option<Arc<Grid>>,
    /// The field of each goal asked about on that grid.
    fields: Vec<(Cell, FlowField)>,
}

impl OptimalCosts {
    /// The field of `goal` on `grid` under `movement` and `cost`, built now unless it was built
    /// on the same grid before (every caller asks with the same movement and cost model).
    ///
    /// # Errors
    /// When the goal is blocked or outside the grid.
    pub fn field(
        &mut self,
        grid: &Arc<Grid>,
        goal: Cell,
        (movement, cost): (Movement, CostModel),
    ) -> Result<&FlowField, String> {
        if !self
            .grid
            .as_ref()
            .is_some_and(|held| Arc::ptr_eq(held, grid))
        {
            self.grid = Some(Arc::clone(grid));
            self.fields.clear();
        }
        let place = match self.fields.iter().position(|(held, _)| *held == goal) {
            Some(place) => place,
            None => {
                let field = FlowField::build(grid, &[goal], movement, cost)
                    .map_err(|error| format!("optimal costs to {goal}: {error}"))?;
                self.fields.push((goal, field));
                self.fields.len() - 1
            }
        };
        self.fields
            .get(place)
            .map(|(_, field)| field)
            .ok_or_else(|| format!("optimal costs to {goal}: no field"))
    }
}

/// The cost of walking `cells` in order on `grid` (each step priced by `cost`, times the
/// terrain of the cell stepped onto, or the cost of an open link of the grid between the two
/// cells when cheaper); `None` when a step is neither a legal move under `movement` (a blocked
/// cell, a cut corner, or cells not adjacent) nor along an open link.
pub fn cost_along(grid: &Grid, cells: &[Cell], movement: Movement, cost: CostModel) -> Option<f64> {
    cells.windows(2).try_fold(0.0, |total, step| {
        Some(total + grid.step_cost(step[0], step[1], movement, cost)?)
    })
}

/// The cost of walking `ahead` (the cells still ahead of an agent, the one it stands on first)
/// on `grid` with its first cell, when every step is legal on `grid` under `movement` (so it
/// avoids every blocked cell) and it ends at a cell `is_goal` accepts; `None` otherwise, and
/// for no cells.
fn walk_to_goal(
    grid: &Grid,
    is_goal: impl Fn(Cell) -> bool,
    ahead: &[Cell],
    movement: Movement,
    cost: CostModel,
) -> Option<(Cell, f64)> {
    let (&first, &last) = (ahead.first()?, ahead.last()?);
    if !is_goal(last) || !grid.is_walkable(first) {
        return None;
    }
    Some((first, cost_along(grid, ahead, movement, cost)?))
}

/// Whether `ahead` (the cells still ahead of an agent, the one it stands on first) is a
/// shortest path of `grid` to the goal of `field`: a legal walk to the goal
/// ([`walk_to_goal`]) at the optimal cost from its first cell. Empty cells ahead are not.
pub fn on_shortest_path(
    grid: &Grid,
    field: &FlowField,
    ahead: &[Cell],
    movement: Movement,
    cost: CostModel,
) -> bool {
    let is_goal = |cell| field.is_goal(cell);
    walk_to_goal(grid, is_goal, ahead, movement, cost).is_some_and(|(first, walked)| {
        field
            .cost_at(first)
            .is_some_and(|optimum| (walked - optimum).abs() <= COST_TOLERANCE * optimum.max(1.0))
    })
}

/// Whether the cells `ahead` are a legal walk to `goal` ([`walk_to_goal`]): what a cut agent's
/// new path must be where paths are not the shortest on the map (routes that weigh the crowd,
/// and hierarchical paths).
pub fn legal_to_goal(
    grid: &Grid,
    goal: Cell,
    ahead: &[Cell],
    movement: Movement,
    cost: CostModel,
) -> bool {
    walk_to_goal(grid, |cell| cell == goal, ahead, movement, cost).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: (Movement, CostModel) = (Movement::EIGHT, CostModel::Octile);

    fn cells(list: &[(u32, u32)]) -> Vec<Cell> {
        list.iter().map(|&(x, y)| Cell::new(x, y)).collect()
    }

    #[test]
    fn a_step_along_an_open_link_costs_the_link() {
        let mut grid = Grid::new(8, 2);
        let door = grid
            .add_link(astar_grid::Link::new(Cell::new(0, 0), Cell::new(6, 0), 2.0))
            .unwrap();
        let (movement, cost) = RULES;
        let through = cells(&[(0, 0), (6, 0), (7, 0)]);
        assert_eq!(cost_along(&grid, &through, movement, cost), Some(3.0));
        grid.set_link_open(door, false).unwrap();
        assert_eq!(cost_along(&grid, &through, movement, cost), None);
    }

    #[test]
    fn only_legal_optimal_cells_to_the_goal_count_as_re_pathed() {
        let grid = Arc::new(
            Grid::from_ascii(
                "....
                 .#..
                 ....",
            )
            .unwrap(),
        );
        let goal = Cell::new(3, 2);
        let mut optimal = OptimalCosts::default();
        let field = optimal.field(&grid, goal, RULES).unwrap();
        let check =
            |list: &[(u32, u32)]| on_shortest_path(&grid, field, &cells(list), RULES.0, RULES.1);
        // Along the bottom row, below the wall: 3.
        assert!(check(&[(0, 2), (1, 2), (2, 2), (3, 2)]));
        assert!(check(&[(3, 2)]));
        // One diagonal through the wall's corner is not a legal step.
        assert!(!check(&[(0, 0), (1, 1), (2, 2), (3, 2)]));
        assert!(!check(&[(0, 1), (1, 2), (2, 2), (3, 2)]));
        // Legal but longer than the optimum (2 + sqrt(2) + 1).
        assert!(!check(&[(0, 2), (1, 2), (2, 2), (3, 1), (3, 2)]));
        // Where routes weigh the crowd, a legal walk to the goal is enough.
        let legal =
            |list: &[(u32, u32)]| legal_to_goal(&grid, goal, &cells(list), RULES.0, RULES.1);
        assert!(legal(&[(0, 2), (1, 2), (2, 2), (3, 1), (3, 2)]));
        assert!(!legal(&[(0, 0), (1, 1), (2, 2), (3, 2)]));
        assert!(!legal(&[(0, 2), (1, 2)]));
        // Short of the goal, and nothing at all.
        assert!(!check(&[(0, 2), (1, 2)]));
        assert!(!check(&[]));
        // Cells that are not neighbours.
        assert!(!check(&[(0, 2), (3, 2)]));
    }

    #[test]
    fn fields_are_kept_per_goal_until_the_grid_changes() {
        let grid = Arc::new(Grid::new(6, 3));
        let mut optimal = OptimalCosts::default();
        let cost = |optimal: &mut OptimalCosts, grid: &Arc<Grid>| {
            optimal
                .field(grid, Cell::new(5, 1), RULES)
                .unwrap()
                .cost_at(Cell::new(0, 1))
        };
        assert_eq!(cost(&mut optimal, &grid), Some(5.0));
        optimal.field(&grid, Cell::new(0, 0), RULES).unwrap();
        assert_eq!(optimal.fields.len(), 2);
        let mut walled = (*grid).clone();
        walled.fill_rect(Cell::new(2, 0), Cell::new(2, 1), 0);
        let walled = Arc::new(walled);
        let around = cost(&mut optimal, &walled).unwrap();
        assert!(around > 5.0, "{around}");
        assert_eq!(optimal.fields.len(), 1);
        assert!(optimal.field(&walled, Cell::new(2, 0), RULES).is_err());
    }
}
