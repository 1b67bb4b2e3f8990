//! A goal tree's growth read part way: every cell it has settled keeps its final cost and
//! route, and the cells it has not read as unreached.

use astar_grid::{Cell, CornerRule, CostModel, GoalTree, Grid, Movement, TreeGrowth};
use proptest::prelude::*;

/// A random grid of up to 20 x 20 cells, with walls and terrain costs, and a walkable goal.
fn grid_and_goal() -> impl Strategy<Value = (Grid, Cell)> {
    (1u32..=20, 1u32..=20).prop_flat_map(|(width, height)| {
        let cells = (width * height) as usize;
        (
            proptest::collection::vec(
                prop_oneof![3 => Just(1u8), 1 => Just(0u8), 1 => 1u8..=9],
                cells,
            ),
            0..width,
            0..height,
        )
            .prop_map(move |(values, x, y)| {
                let mut grid = Grid::new(width, height);
                for (index, value) in values.into_iter().enumerate() {
                    let cell = Cell::new(index as u32 % width, index as u32 / width);
                    grid.set_cost(cell, value).expect("inside");
                }
                let goal = Cell::new(x, y);
                grid.set_cost(goal, 1).expect("inside");
                (grid, goal)
            })
    })
}

fn movement() -> impl Strategy<Value = Movement> {
    prop_oneof![
        Just(Movement::FOUR),
        Just(Movement::EIGHT),
        Just(Movement::eight(CornerRule::One)),
        Just(Movement::eight(CornerRule::Any)),
    ]
}

proptest! {
    #[test]
    fn what_a_growth_has_settled_is_final((grid, goal) in grid_and_goal(), movement in movement(), budget in 1usize..200) {
        let cost = CostModel::Octile;
        let whole = GoalTree::build(&grid, &[goal], movement, cost).expect("a walkable goal");
        let mut growth = TreeGrowth::new(&grid, &[goal], movement, cost).expect("a walkable goal");
        let done = growth.advance(budget);
        let settled = growth.settled_so_far();
        let mut reached = 0;
        for (cell, _) in grid.cells() {
            let Some(found) = settled.cost_at(cell) else {
                continue;
            };
            reached += 1;
            prop_assert_eq!(Some(found), whole.cost_at(cell), "{:?}", cell);
            let path = settled.path_from(&grid, cell).expect("same grid").expect("a whole route");
            prop_assert_eq!(path.end(), Some(goal));
            let full = whole.path_from(&grid, cell).expect("same grid").expect("reachable");
            prop_assert!((path.cost - full.cost).abs() <= 1e-9 * full.cost.max(1.0));
        }
        // The goal is settled first; a finished growth has settled every reachable cell.
        prop_assert!(reached >= 1);
        if done {
            let all = grid.cells().filter(|&(cell, _)| whole.cost_at(cell).is_some()).count();
            prop_assert_eq!(reached, all);
        } else {
            prop_assert!(reached <= budget);
        }
    }
}
