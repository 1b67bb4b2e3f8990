//! Flow fields against per-cell Dijkstra searches, before and after incremental updates, built
//! in one go and a slice at a time.

use astar_grid::{
    Cell, CornerRule, CostModel, FieldGrowth, FlowField, FlowFieldError, GoalPaths, Grid, Movement,
    SearchOptions, Searcher,
};
use proptest::prelude::*;

const MOVEMENTS: [Movement; 4] = [
    Movement::FOUR,
    Movement::EIGHT,
    Movement::eight(CornerRule::One),
    Movement::eight(CornerRule::Any),
];

/// Exact octile costs, the classic 10/14, a diagonal cheaper than a straight step (10/5), and
/// the extremes of integer costs from 1 to 1000 (diagonals that never pay, and nearly free).
const COST_MODELS: [CostModel; 5] = [
    CostModel::Octile,
    CostModel::INTEGER_10_14,
    CostModel::Integer {
        straight: 10,
        diagonal: 5,
    },
    CostModel::Integer {
        straight: 3,
        diagonal: 1000,
    },
    CostModel::Integer {
        straight: 1000,
        diagonal: 1,
    },
];

fn grid_strategy(max_side: u32) -> impl Strategy<Value = Grid> {
    (1..=max_side, 1..=max_side).prop_flat_map(|(width, height)| {
        prop::collection::vec(
            prop_oneof![3 => Just(0u8), 5 => Just(1u8), 2 => 2..=9u8],
            (width * height) as usize,
        )
        .prop_map(move |values| {
            Grid::from_fn(width, height, |cell| {
                values[(cell.y * width + cell.x) as usize]
            })
        })
    })
}

/// A cell of `grid` from two arbitrary numbers.
fn pick(grid: &Grid, (x, y): (u32, u32)) -> Cell {
    Cell::new(x % grid.width(), y % grid.height())
}

/// Cost of an optimal path from `cell` to its nearest goal by Dijkstra searches, one per goal.
fn dijkstra_cost(
    searcher: &mut Searcher,
    grid: &Grid,
    cell: Cell,
    goals: &[Cell],
    options: &SearchOptions,
) -> Option<f64> {
    goals
        .iter()
        .filter_map(|&goal| {
            searcher
                .find_path(grid, cell, goal, options)
                .ok()
                .and_then(|result| result.cost())
        })
        .min_by(f64::total_cmp)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// The price of stepping from `from` onto the adjacent `to`, or `None` when the step is illegal.
fn step_price(
    grid: &Grid,
    movement: Movement,
    model: CostModel,
    from: Cell,
    to: Cell,
) -> Option<f64> {
    if from == to || !from.is_adjacent_8(to) || !grid.is_walkable(from) {
        return None;
    }
    let dx = to.x as i32 - from.x as i32;
    let dy = to.y as i32 - from.y as i32;
    let corner_a = grid.is_walkable(Cell::new(to.x, from.y));
    let corner_b = grid.is_walkable(Cell::new(from.x, to.y));
    let terrain = grid.cost(to)?;
    movement
        .allows_step(dx, dy, corner_a, corner_b)
        .then(|| if dx != 0 && dy != 0 { model.diagonal() } else { model.straight() } * f64::from(terrain))
}

/// Every cell's cost matches Dijkstra, and every next-step chain is legal, priced exactly as the
/// field says, and ends at a goal.
fn assert_field_is_exact(grid: &Grid, field: &FlowField, goals: &[Cell]) {
    let movement = field.movement();
    let model = field.cost_model();
    let options = SearchOptions::default()
        .with_movement(movement)
        .with_cost(model)
        .dijkstra();
    let live_goals: Vec<Cell> = goals
        .iter()
        .copied()
        .filter(|&goal| grid.is_walkable(goal))
        .collect();
    let mut searcher = Searcher::new();
    for (cell, value) in grid.cells() {
        let expected = if value == 0 {
            None
        } else {
            dijkstra_cost(&mut searcher, grid, cell, &live_goals, &options)
        };
        let found = field.cost_at(cell);
        match (found, expected) {
            (None, None) => {}
            (Some(found), Some(expected)) => {
                assert!(
                    close(found, expected),
                    "{cell}: field {found}, Dijkstra {expected}"
                );
            }
            _ => panic!("{cell}: field {found:?}, Dijkstra {expected:?}"),
        }
        assert_eq!(field.is_goal(cell), live_goals.contains(&cell), "{cell}");
        let Some(cost) = found else {
            assert_eq!(field.next_step(cell), None);
            assert_eq!(field.path_from(cell), None);
            continue;
        };
        // Follow the next steps.
        let mut current = cell;
        let mut walked = vec![cell];
        let mut total = 0.0;
        while !field.is_goal(current) {
            let next = field
                .next_step(current)
                .unwrap_or_else(|| panic!("{current} has no next step"));
            let price = step_price(grid, movement, model, current, next)
                .unwrap_or_else(|| panic!("illegal step {current} -> {next}"));
            let here = field.cost_at(current).expect("on a reachable chain");
            let there = field.cost_at(next).expect("a next step is reachable");
            assert_eq!(
                here.to_bits(),
                (there + price).to_bits(),
                "{current} -> {next}"
            );
            total += price;
            walked.push(next);
            current = next;
        }
        assert_eq!(field.next_step(current), None);
        assert!(close(total, cost), "{cell}: walked {total}, field {cost}");
        let path = field.path_from(cell).expect("a reachable cell has a path");
        assert_eq!(path.cells, walked);
        assert_eq!(path.cost, cost);
    }
}

fn goals_in(grid: &mut Grid, positions: Vec<(u32, u32)>) -> Vec<Cell> {
    let goals: Vec<Cell> = positions
        .into_iter()
        .map(|position| pick(grid, position))
        .collect();
    for &goal in &goals {
        if !grid.is_walkable(goal) {
            grid.set_cost(goal, 1).expect("picked inside the grid");
        }
    }
    goals
}

proptest! {
    #[test]
    fn costs_equal_dijkstra_and_steps_are_legal(
        mut grid in grid_strategy(9),
        movement in prop::sample::select(MOVEMENTS.to_vec()),
        model in prop::sample::select(COST_MODELS.to_vec()),
        goals in prop::collection::vec((0u32..64, 0u32..64), 1..4),
    ) {
        let goals = goals_in(&mut grid, goals);
        let field = FlowField::build(&grid, &goals, movement, model).unwrap();
        assert_field_is_exact(&grid, &field, &goals);
    }

    #[test]
    fn updates_match_a_fresh_build(
        mut grid in grid_strategy(9),
        movement in prop::sample::select(MOVEMENTS.to_vec()),
        model in prop::sample::select(COST_MODELS.to_vec()),
        goals in prop::collection::vec((0u32..64, 0u32..64), 1..3),
        edits in prop::collection::vec(
            prop::collection::vec(((0u32..64, 0u32..64), prop_oneof![2 => Just(0u8), 2 => Just(1u8), 1 => 2..=9u8]), 1..4),
            1..12,
        ),
    ) {
        let goals = goals_in(&mut grid, goals);
        let mut field = FlowField::build(&grid, &goals, movement, model).unwrap();
        for batch in edits {
            let mut changed = Vec::new();
            for (position, value) in batch {
                let cell = pick(&grid, position);
                grid.set_cost(cell, value).unwrap();
                changed.push(cell);
            }
            field.update(&grid, &changed).unwrap();
            let live: Vec<Cell> = goals.iter().copied().filter(|&goal| grid.is_walkable(goal)).collect();
            if live.is_empty() {
                prop_assert!(grid.cells().all(|(cell, _)| field.cost_at(cell).is_none()));
            } else {
                let fresh = FlowField::build(&grid, &live, movement, model).unwrap();
                for (cell, _) in grid.cells() {
                    prop_assert_eq!(
                        field.cost_at(cell).map(f64::to_bits),
                        fresh.cost_at(cell).map(f64::to_bits),
                        "{}", cell
                    );
                }
            }
            assert_field_is_exact(&grid, &field, &goals);
        }
    }
}

#[test]
fn blocking_a_cell_no_route_uses_drops_only_that_cell() {
    let mut grid = Grid::new(50, 50);
    let goal = Cell::new(0, 0);
    let mut field = FlowField::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile).unwrap();
    // Routes from the far corner need not pass through it.
    let corner = Cell::new(49, 49);
    grid.set_blocked(corner, true).unwrap();
    let work = field.update(&grid, &[corner]).unwrap();
    assert_eq!(work.invalidated, 1);
    assert_eq!(field.cost_at(corner), None);
    assert!(work.settled < 20, "settled {}", work.settled);
}

#[test]
fn rebuilds_reuse_memory_and_follow_new_goals() {
    let grid = Grid::new(30, 20);
    let mut field = FlowField::build(
        &grid,
        &[Cell::new(0, 0)],
        Movement::FOUR,
        CostModel::INTEGER_10_14,
    )
    .unwrap();
    let before = field.memory_bytes();
    let work = field
        .rebuild(&grid, &[Cell::new(29, 19), Cell::new(29, 0)])
        .unwrap();
    assert_eq!(work.settled, grid.len());
    assert_eq!(field.memory_bytes(), before);
    assert_eq!(field.cost_at(Cell::new(0, 0)), Some(290.0));
    assert_eq!(field.goals(), [Cell::new(29, 19), Cell::new(29, 0)]);
}

#[test]
fn unreachable_cells_have_no_cost_and_no_step() {
    let grid = Grid::from_ascii(
        ".@.
         .@.",
    )
    .unwrap();
    let field = FlowField::build(
        &grid,
        &[Cell::new(0, 0)],
        Movement::EIGHT,
        CostModel::Octile,
    )
    .unwrap();
    assert_eq!(field.cost_at(Cell::new(2, 1)), None);
    assert_eq!(field.next_step(Cell::new(2, 1)), None);
    assert_eq!(field.path_from(Cell::new(2, 1)), None);
    assert_eq!(field.cost_at(Cell::new(7, 7)), None);
    assert_eq!(
        field.next_step(Cell::new(0, 0)),
        None,
        "a goal has no next step"
    );
}

#[test]
fn bad_requests_get_typed_errors() {
    let grid = Grid::from_ascii("..@").unwrap();
    let build = |goals: &[Cell], model| FlowField::build(&grid, goals, Movement::EIGHT, model);
    assert_eq!(
        build(&[], CostModel::Octile).err(),
        Some(FlowFieldError::NoGoals)
    );
    assert_eq!(
        build(&[Cell::new(2, 0)], CostModel::Octile).err(),
        Some(FlowFieldError::GoalBlocked(Cell::new(2, 0)))
    );
    assert_eq!(
        build(&[Cell::new(3, 0)], CostModel::Octile).err(),
        Some(FlowFieldError::GoalOutOfBounds(Cell::new(3, 0)))
    );
    let zero = CostModel::Integer {
        straight: 0,
        diagonal: 14,
    };
    assert_eq!(
        build(&[Cell::new(0, 0)], zero).err(),
        Some(FlowFieldError::InvalidCostModel)
    );
    assert_eq!(
        FlowField::build(
            &Grid::new(0, 0),
            &[Cell::new(0, 0)],
            Movement::EIGHT,
            CostModel::Octile
        )
        .err(),
        Some(FlowFieldError::EmptyGrid)
    );
    let mut field = build(&[Cell::new(0, 0)], CostModel::Octile).unwrap();
    assert!(matches!(
        field.update(&Grid::new(4, 1), &[]),
        Err(FlowFieldError::GridMismatch { .. })
    ));
    assert_eq!(
        field.update(&grid, &[Cell::new(0, 5)]),
        Err(FlowFieldError::CellOutOfBounds(Cell::new(0, 5)))
    );
    assert_eq!(
        field.rebuild(&grid, &[Cell::new(2, 0)]).err(),
        Some(FlowFieldError::GoalBlocked(Cell::new(2, 0)))
    );
    assert_eq!(
        field.cost_at(Cell::new(1, 0)),
        Some(1.0),
        "a refused rebuild changes nothing"
    );
}

/// Checks a path to one goal from `start` against A*'s optimal cost `expected` (`None`: no
/// path): same cost, from the start to the goal, and legal steps that add up to its cost.
fn check_goal_path(
    grid: &Grid,
    (movement, model): (Movement, CostModel),
    (start, goal): (Cell, Cell),
    path: Option<&astar_grid::Path>,
    expected: Option<f64>,
) -> Result<(), TestCaseError> {
    match (path, expected) {
        (None, None) => {}
        (Some(path), Some(expected)) => {
            prop_assert!(
                close(path.cost, expected),
                "{}: {} against A* {}",
                start,
                path.cost,
                expected
            );
            prop_assert_eq!(path.cells.first(), Some(&start));
            prop_assert_eq!(path.cells.last(), Some(&goal));
            let walked: f64 = path
                .cells
                .windows(2)
                .map(|step| {
                    step_price(grid, movement, model, step[0], step[1]).expect("a legal step")
                })
                .sum();
            prop_assert!(close(walked, path.cost));
        }
        (found, expected) => {
            prop_assert!(false, "{}: {:?} against A* {:?}", start, found, expected);
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn paths_to_one_goal_are_legal_and_as_cheap_as_a_star(
        mut grid in grid_strategy(12),
        movement in prop::sample::select(MOVEMENTS.to_vec()),
        model in prop::sample::select(COST_MODELS.to_vec()),
        goal in (0u32..64, 0u32..64),
        starts in prop::collection::vec((0u32..64, 0u32..64), 1..6),
    ) {
        let goal = goals_in(&mut grid, vec![goal])[0];
        let starts: Vec<Cell> = starts.into_iter().map(|start| pick(&grid, start)).collect();
        let paths = FlowField::paths_to_goal(&grid, &starts, goal, movement, model).unwrap();
        prop_assert_eq!(paths.len(), starts.len());
        let options = SearchOptions::default().with_movement(movement).with_cost(model);
        let mut searcher = Searcher::new();
        for (&start, path) in starts.iter().zip(&paths) {
            let expected = searcher
                .find_path(&grid, start, goal, &options)
                .ok()
                .and_then(|result| result.cost());
            check_goal_path(&grid, (movement, model), (start, goal), path.as_ref(), expected)?;
        }
    }
}

#[test]
fn paths_to_one_goal_answer_repeated_starts_and_refuse_a_bad_goal() {
    let grid = Grid::new(200, 200);
    let goal = Cell::new(100, 100);
    let near = Cell::new(101, 100);
    let paths = FlowField::paths_to_goal(
        &grid,
        &[near, near],
        goal,
        Movement::EIGHT,
        CostModel::Octile,
    )
    .unwrap();
    assert_eq!(paths[0].as_ref().map(|path| path.cost), Some(1.0));
    assert_eq!(paths[0], paths[1]);
    let invalid = FlowField::paths_to_goal(
        &grid,
        &[Cell::new(500, 0)],
        Cell::new(500, 0),
        Movement::EIGHT,
        CostModel::Octile,
    );
    assert!(matches!(invalid, Err(FlowFieldError::GoalOutOfBounds(_))));
}

#[test]
fn paths_to_one_goal_give_up_when_told_and_only_then() {
    let grid = Grid::new(300, 300);
    let goal = Cell::new(299, 299);
    let run = |start: Cell, answers: &mut dyn FnMut() -> bool| {
        FlowField::paths_to_goal_while(
            &grid,
            &[start],
            goal,
            Movement::EIGHT,
            CostModel::Octile,
            answers,
        )
        .unwrap()
    };
    // Far apart: asked along the way; the answers are those of `paths_to_goal`.
    let mut asked = 0;
    let far = run(Cell::new(0, 0), &mut || {
        asked += 1;
        true
    });
    assert!(asked >= 2);
    let expected = FlowField::paths_to_goal(
        &grid,
        &[Cell::new(0, 0)],
        goal,
        Movement::EIGHT,
        CostModel::Octile,
    )
    .unwrap();
    assert_eq!(far, Some(expected));
    // Told to stop at the second question: nothing.
    let mut asked = 0;
    let stopped = run(Cell::new(0, 0), &mut || {
        asked += 1;
        asked < 2
    });
    assert_eq!((stopped, asked), (None, 2));
    // A start next to the goal is settled before the first question.
    let mut asked = 0;
    let near = run(Cell::new(298, 299), &mut || {
        asked += 1;
        false
    });
    assert_eq!(asked, 0);
    assert_eq!(near.map(|paths| paths.len()), Some(1));
}

proptest! {
    /// A field grown in slices of any size is the exact field, whatever the slices.
    #[test]
    fn a_field_grown_in_slices_is_exact(
        mut grid in grid_strategy(9),
        movement in prop::sample::select(MOVEMENTS.to_vec()),
        model in prop::sample::select(COST_MODELS.to_vec()),
        goals in prop::collection::vec((0u32..64, 0u32..64), 1..4),
        slices in prop::collection::vec(0usize..12, 1..6),
        stop_early in any::<bool>(),
    ) {
        let goals = goals_in(&mut grid, goals);
        let mut growth = FieldGrowth::new(&grid, &goals, movement, model).unwrap();
        let mut calls = 0;
        for &slice in slices.iter().cycle() {
            calls += 1;
            // Finishing early settles the rest; else every cell is settled by the slices.
            if (stop_early && calls > slices.len()) || growth.advance(slice) {
                break;
            }
            prop_assert!(calls <= grid.len() + 1, "never done after {} slices", calls);
        }
        assert_field_is_exact(&grid, &growth.finish(), &goals);
    }

    /// Paths to one goal searched in slices: each start's path, read as soon as the start is
    /// settled, is optimal (against A*) and legal, and stays what the end of the search gives.
    #[test]
    fn paths_to_one_goal_in_slices_are_optimal_as_soon_as_settled(
        mut grid in grid_strategy(12),
        movement in prop::sample::select(MOVEMENTS.to_vec()),
        model in prop::sample::select(COST_MODELS.to_vec()),
        goal in (0u32..64, 0u32..64),
        starts in prop::collection::vec((0u32..64, 0u32..64), 1..6),
        slice in 0usize..20,
    ) {
        let goal = goals_in(&mut grid, vec![goal])[0];
        let starts: Vec<Cell> = starts.into_iter().map(|start| pick(&grid, start)).collect();
        let options = SearchOptions::default().with_movement(movement).with_cost(model);
        let mut searcher = Searcher::new();
        let expected: Vec<Option<f64>> = starts
            .iter()
            .map(|&start| searcher.find_path(&grid, start, goal, &options).ok().and_then(|result| result.cost()))
            .collect();
        let mut paths = GoalPaths::new(&grid, &starts, goal, movement, model).unwrap();
        let mut early: Vec<Option<astar_grid::Path>> = vec![None; starts.len()];
        loop {
            let done = paths.advance(slice);
            for (number, seen) in early.iter_mut().enumerate() {
                if seen.is_none() {
                    *seen = paths.settled(number);
                }
            }
            if done {
                break;
            }
        }
        let last = paths.finish();
        for (number, &start) in starts.iter().enumerate() {
            prop_assert_eq!(&early[number], &last[number], "{}", start);
            check_goal_path(&grid, (movement, model), (start, goal), last[number].as_ref(), expected[number])?;
        }
    }

    /// A kept search resumed for more starts: every start's path, the first batch's and the
    /// later one's (added part way or after the first batch was answered), is optimal (against
    /// A*), legal, and the path of a search of all the starts at once.
    #[test]
    fn paths_to_one_goal_resumed_for_more_starts_are_optimal(
        mut grid in grid_strategy(12),
        movement in prop::sample::select(MOVEMENTS.to_vec()),
        model in prop::sample::select(COST_MODELS.to_vec()),
        goal in (0u32..64, 0u32..64),
        first in prop::collection::vec((0u32..64, 0u32..64), 1..5),
        later in prop::collection::vec((0u32..64, 0u32..64), 1..5),
        slice in 0usize..20,
        slices_before in 0usize..4,
    ) {
        let goal = goals_in(&mut grid, vec![goal])[0];
        let first: Vec<Cell> = first.into_iter().map(|start| pick(&grid, start)).collect();
        let later: Vec<Cell> = later.into_iter().map(|start| pick(&grid, start)).collect();
        let grid = std::sync::Arc::new(grid);
        let mut paths = GoalPaths::new(std::sync::Arc::clone(&grid), &first, goal, movement, model).unwrap();
        for _ in 0..slices_before {
            paths.advance(slice);
        }
        let added = paths.add_starts(&later);
        prop_assert_eq!(added.clone(), first.len()..first.len() + later.len());
        while !paths.advance(slice) {}
        let all: Vec<Cell> = first.iter().chain(&later).copied().collect();
        let at_once = FlowField::paths_to_goal(&grid, &all, goal, movement, model).unwrap();
        let options = SearchOptions::default().with_movement(movement).with_cost(model);
        let mut searcher = Searcher::new();
        for (number, &start) in all.iter().enumerate() {
            let resumed = paths.settled(number);
            let expected = searcher.find_path(&grid, start, goal, &options).ok().and_then(|result| result.cost());
            check_goal_path(&grid, (movement, model), (start, goal), resumed.as_ref(), expected)?;
            prop_assert_eq!(&resumed, &at_once[number], "{}", start);
        }
    }
}
