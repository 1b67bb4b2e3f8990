//! A* checked against Dijkstra: the crate's own zero-heuristic search and an independent
//! reference Dijkstra, on random grids, for every movement rule, cost model (integer straight
//! and diagonal costs from 1 to 1000, a diagonal cheaper than a straight step included) and
//! heuristic, with weighted and dynamically weighted A* held to their suboptimality bounds.

pub mod common;

use astar_grid::{
    Cell, CostModel, Grid, Heuristic, Movement, Neighborhood, SearchOptions, SearchResult,
    SearchStatus, Searcher, Weighting,
};
use common::path_check::{COST_TOLERANCE, check_path, costs_match};
use common::random_grid::{
    COST_MODELS, GridQuery, MOVEMENTS, any_cost_model, any_weighting, grid_query, movement,
};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;

/// Checks a result against the reference optimum: same found / no-path status, a valid path
/// from start to goal, and a cost between the optimum and `bound` times it.
fn check_against_optimum(
    query: &GridQuery,
    options: &SearchOptions,
    result: &SearchResult,
    optimum: Option<f64>,
    bound: f64,
) -> Result<(), String> {
    let context = format!("{options:?}");
    match (optimum, result.status) {
        (None, SearchStatus::NoPath) => {
            if result.path.is_some() {
                return Err(format!("{context}: a no-path result carries a path"));
            }
            Ok(())
        }
        (Some(optimum), SearchStatus::Found) => {
            let path = result
                .path
                .as_ref()
                .ok_or_else(|| format!("{context}: found without a path"))?;
            check_path(
                &query.grid,
                path,
                query.start,
                query.goal,
                options.movement,
                options.cost,
            )
            .map_err(|problem| format!("{context}: {problem}"))?;
            let slack = COST_TOLERANCE * optimum.max(1.0);
            if path.cost < optimum - slack || path.cost > bound * optimum + slack {
                return Err(format!(
                    "{context}: cost {} outside [{optimum}, {bound} * {optimum}]",
                    path.cost
                ));
            }
            Ok(())
        }
        (optimum, status) => Err(format!(
            "{context}: status {status:?} but the reference optimum is {optimum:?}"
        )),
    }
}

/// The heuristics [`Heuristic::is_admissible`] vouches for under `movement` and `cost`.
fn admissible_heuristics(movement: Movement, cost: CostModel) -> Vec<Heuristic> {
    Heuristic::ALL
        .into_iter()
        .filter(|heuristic| heuristic.is_admissible(movement.neighborhood, cost))
        .collect()
}

/// The factor by which the documentation lets a search with `options` exceed the optimum: 1
/// when [`SearchOptions::is_optimal`], the weight (or `1 + epsilon`) with an admissible
/// heuristic, and nothing for an inadmissible heuristic. `options` has no window.
fn promised_bound(options: &SearchOptions) -> Option<f64> {
    let heuristic = options.resolved_heuristic();
    if !heuristic.is_admissible(options.movement.neighborhood, options.cost) {
        return None;
    }
    Some(match options.weighting {
        Weighting::Static(weight) => weight,
        Weighting::Dynamic { epsilon } => 1.0 + epsilon,
    })
}

/// The estimate of `heuristic` from `cell` to `goal`.
fn estimate(
    heuristic: Heuristic,
    cell: Cell,
    goal: Cell,
    movement: Movement,
    cost: CostModel,
) -> f64 {
    heuristic.estimate(cell, goal, movement.neighborhood, cost)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Across the whole space of options (any cost model, every heuristic, any weighting, every
    /// movement rule): a search finds a path exactly when the reference does; when the options
    /// say they are optimal, it costs the reference optimum; otherwise, with an admissible
    /// heuristic, at most the weight (or `1 + epsilon`) times it. An inadmissible heuristic
    /// promises no bound, but the path is still legal and its cost adds up.
    #[test]
    fn every_option_keeps_its_promise(
        query in grid_query(16),
        movement in movement(),
        cost in any_cost_model(),
        weighting in any_weighting(),
    ) {
        let mut searcher = Searcher::new();
        let optimum = ReferenceGraph::new(&query.grid, movement, cost).cost(query.start, query.goal);
        for heuristic in Heuristic::ALL {
            let mut options = SearchOptions::default()
                .with_movement(movement)
                .with_cost(cost)
                .with_heuristic(heuristic);
            options.weighting = weighting;
            let bound = promised_bound(&options);
            prop_assert_eq!(options.is_optimal(), bound == Some(1.0), "{:?}", options);
            let result = searcher
                .find_path(&query.grid, query.start, query.goal, &options)
                .expect("a valid request");
            check_against_optimum(&query, &options, &result, optimum, bound.unwrap_or(f64::MAX))
                .map_err(TestCaseError::fail)?;
        }
    }

    /// Every heuristic `is_admissible` vouches for stays at or below the true remaining cost
    /// from every cell, for any cost model.
    #[test]
    fn admissible_heuristics_never_overestimate_under_any_cost_model(
        query in grid_query(12),
        movement in movement(),
        cost in any_cost_model(),
    ) {
        let remaining = ReferenceGraph::new(&query.grid, movement, cost).costs_to(query.goal);
        for heuristic in admissible_heuristics(movement, cost) {
            for (cell, _) in query.grid.cells() {
                let Some(truth) = remaining[(cell.y * query.grid.width() + cell.x) as usize] else {
                    continue;
                };
                let estimate = estimate(heuristic, cell, query.goal, movement, cost);
                prop_assert!(
                    estimate <= truth + COST_TOLERANCE * truth.max(1.0),
                    "{:?} under {:?}/{:?} estimates {} from {} but the goal is {} away",
                    heuristic, movement, cost, estimate, cell, truth
                );
            }
        }
    }

    /// Every heuristic `is_consistent` vouches for (the admissible ones) drops by at most the
    /// cost of any legal step, terrain included, as the open list's ordering and A*'s rule of
    /// never reopening a closed cell need.
    #[test]
    fn consistent_heuristics_drop_by_at_most_a_step(
        query in grid_query(12),
        movement in movement(),
        cost in any_cost_model(),
    ) {
        let reference = ReferenceGraph::new(&query.grid, movement, cost);
        for heuristic in Heuristic::ALL {
            let consistent = heuristic.is_consistent(movement.neighborhood, cost);
            prop_assert_eq!(consistent, heuristic.is_admissible(movement.neighborhood, cost));
            if !consistent {
                continue;
            }
            for (cell, value) in query.grid.cells() {
                if value == 0 {
                    continue;
                }
                let here = estimate(heuristic, cell, query.goal, movement, cost);
                for (next, step) in reference.steps(cell) {
                    let there = estimate(heuristic, next, query.goal, movement, cost);
                    prop_assert!(
                        here <= step + there + COST_TOLERANCE * here.max(1.0),
                        "{:?} under {:?}/{:?}: h({}) = {} > {} + h({}) = {}",
                        heuristic, movement, cost, cell, here, step, next, there
                    );
                }
            }
        }
    }

    /// On open ground the octile estimate is the exact cost for every cost model and movement
    /// rule, diagonals cheaper than straight steps (zig-zagging) included.
    #[test]
    fn octile_is_exact_on_open_ground_under_any_cost_model(
        movement in movement(),
        cost in any_cost_model(),
        (width, height) in (2u32..12, 2u32..12),
        goal in (0u32..12, 0u32..12),
    ) {
        let grid = Grid::new(width, height);
        let goal = Cell::new(goal.0 % width, goal.1 % height);
        let remaining = ReferenceGraph::new(&grid, movement, cost).costs_to(goal);
        for (cell, _) in grid.cells() {
            let truth = remaining[(cell.y * width + cell.x) as usize].expect("open ground");
            let octile = estimate(Heuristic::Octile, cell, goal, movement, cost);
            prop_assert!(
                costs_match(octile, truth),
                "{:?}/{:?}: octile {} from {} to {}, true cost {}",
                movement, cost, octile, cell, goal, truth
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Dijkstra (the zero heuristic) and A* with every admissible heuristic return the reference
    /// optimum, or no path exactly when the reference finds none.
    #[test]
    fn admissible_searches_return_the_reference_optimum(query in grid_query(24)) {
        let mut searcher = Searcher::new();
        for movement in MOVEMENTS {
            for cost in COST_MODELS {
                let reference = ReferenceGraph::new(&query.grid, movement, cost);
                let optimum = reference.cost(query.start, query.goal);
                let base = SearchOptions::default().with_movement(movement).with_cost(cost);
                let dijkstra = base.dijkstra();
                let result = searcher
                    .find_path(&query.grid, query.start, query.goal, &dijkstra)
                    .expect("a valid request");
                check_against_optimum(&query, &dijkstra, &result, optimum, 1.0)
                    .map_err(TestCaseError::fail)?;
                let dijkstra_cost = result.cost();
                for heuristic in admissible_heuristics(movement, cost) {
                    let options = base.with_heuristic(heuristic);
                    prop_assert!(options.is_optimal());
                    let result = searcher
                        .find_path(&query.grid, query.start, query.goal, &options)
                        .expect("a valid request");
                    check_against_optimum(&query, &options, &result, optimum, 1.0)
                        .map_err(TestCaseError::fail)?;
                    prop_assert_eq!(result.cost().is_some(), dijkstra_cost.is_some());
                    if let (Some(astar), Some(dijkstra)) = (result.cost(), dijkstra_cost) {
                        prop_assert!(costs_match(astar, dijkstra), "{:?}: {} vs {}", heuristic, astar, dijkstra);
                    }
                }
            }
        }
    }

    /// Every heuristic that `is_admissible` vouches for stays at or below the true remaining cost
    /// from every cell that can reach the goal.
    #[test]
    fn admissible_heuristics_never_overestimate(query in grid_query(16)) {
        for movement in MOVEMENTS {
            for cost in COST_MODELS {
                let remaining = ReferenceGraph::new(&query.grid, movement, cost).costs_to(query.goal);
                for heuristic in admissible_heuristics(movement, cost) {
                    for (cell, _) in query.grid.cells() {
                        let Some(truth) = remaining[(cell.y * query.grid.width() + cell.x) as usize] else {
                            continue;
                        };
                        let estimate = heuristic.estimate(
            cell,
            query.goal,
                            movement.neighborhood,
                            cost,
                        );
                        prop_assert!(
                            estimate <= truth + COST_TOLERANCE * truth.max(1.0),
                            "{:?} under {:?}/{:?} estimates {} from {} but the goal is {} away",
                            heuristic, movement, cost, estimate, cell, truth
                        );
                    }
                }
            }
        }
    }

    /// Weighted A* (w = 1.5 and 3) finds a path exactly when one exists, costing at most w times
    /// the optimum; dynamic weighting with epsilon 0.5 at most 1.5 times.
    #[test]
    fn weighted_searches_stay_within_their_bounds(query in grid_query(24)) {
        let mut searcher = Searcher::new();
        for movement in MOVEMENTS {
            for cost in COST_MODELS {
                let optimum = ReferenceGraph::new(&query.grid, movement, cost).cost(query.start, query.goal);
                let base = SearchOptions::default().with_movement(movement).with_cost(cost);
                for heuristic in admissible_heuristics(movement, cost) {
                    let base = base.with_heuristic(heuristic);
                    for (options, bound) in [
                        (base.with_weight(1.5), 1.5),
                        (base.with_weight(3.0), 3.0),
                        (base.with_dynamic_weight(0.5), 1.5),
                    ] {
                        let result = searcher
                            .find_path(&query.grid, query.start, query.goal, &options)
                            .expect("a valid request");
                        check_against_optimum(&query, &options, &result, optimum, bound)
                            .map_err(TestCaseError::fail)?;
                    }
                }
            }
        }
    }
}

/// `is_admissible` is not merely cautious: where it refuses Manhattan (eight neighbours, a
/// diagonal cheaper than two straight steps), Manhattan does overestimate a single diagonal step.
#[test]
fn manhattan_is_refused_exactly_where_it_overestimates_a_diagonal() {
    for cost in COST_MODELS {
        let estimate = Heuristic::Manhattan.estimate(
            Cell::new(0, 0),
            Cell::new(1, 1),
            Neighborhood::Eight,
            cost,
        );
        let reference = ReferenceGraph::new(&Grid::new(2, 2), Movement::EIGHT, cost);
        let diagonal = reference
            .cost(Cell::new(0, 0), Cell::new(1, 1))
            .expect("open grid");
        assert_eq!(
            Heuristic::Manhattan.is_admissible(Neighborhood::Eight, cost),
            estimate <= diagonal,
            "{cost:?}: estimate {estimate}, true cost {diagonal}"
        );
        assert!(Heuristic::Manhattan.is_admissible(Neighborhood::Four, cost));
    }
}

/// A map where the optimal path first leads away from the goal: the start `S` and goal `G` share
/// a row; going right from `S` enters a long snake that winds up and down between them before
/// reaching `G`, while the optimum goes `reach` cells left, drops two rows and runs back right
/// under everything.
fn detour_behind_the_start(reach: u32, snake_height: u32) -> (Grid, Cell, Cell) {
    let start_x = reach + 1;
    let goal_x = start_x + 10;
    let row = snake_height;
    let mut grid = Grid::from_fn(goal_x + 3, snake_height + 4, |_| 0);
    let mut open = |x: u32, y: u32| {
        grid.set_cost(Cell::new(x, y), 1).expect("inside the grid");
    };
    // The optimal route: left along the row, down two, right under the snake, up to the goal.
    (1..=start_x).for_each(|x| open(x, row));
    (row..=row + 2).for_each(|y| open(1, y));
    (1..=goal_x).for_each(|x| open(x, row + 2));
    (row..=row + 2).for_each(|y| open(goal_x, y));
    // The snake: vertical passages in every other column between S and G, joined alternately at
    // the top and at the bottom; only the first and the last touch the start/goal row.
    let passages: Vec<u32> = (start_x + 1..goal_x).step_by(2).collect();
    for (number, &x) in passages.iter().enumerate() {
        let touches_row = number == 0 || number == passages.len() - 1;
        (0..row).for_each(|y| open(x, y));
        if touches_row {
            open(x, row);
        }
        if number + 1 < passages.len() {
            open(x + 1, if number % 2 == 0 { 0 } else { row - 1 });
        }
    }
    ((passages[passages.len() - 1])..=goal_x).for_each(|x| open(x, row));
    (grid, Cell::new(start_x, row), Cell::new(goal_x, row))
}

/// Dynamic weighting promises paths within `1 + epsilon` of the optimum. With the weight
/// `1 + epsilon * h(n) / h(start)`, cells farther from the goal than the start get a weight above
/// `1 + epsilon`, so an optimal route that first leads away from the goal can lose to a far
/// longer one.
#[test]
fn dynamic_weighting_keeps_its_bound_when_the_optimum_leads_away_from_the_goal() {
    let (grid, start, goal) = detour_behind_the_start(22, 20);
    let epsilon = 0.5;
    let optimum = ReferenceGraph::new(&grid, Movement::EIGHT, CostModel::Octile)
        .cost(start, goal)
        .expect("connected map");
    let options = SearchOptions::default().with_dynamic_weight(epsilon);
    let result = Searcher::new()
        .find_path(&grid, start, goal, &options)
        .expect("a valid request");
    let path = result.found().expect("connected map");
    check_path(&grid, path, start, goal, Movement::EIGHT, CostModel::Octile)
        .unwrap_or_else(|problem| panic!("{problem}"));
    assert!(
        path.cost <= (1.0 + epsilon) * optimum + COST_TOLERANCE,
        "cost {} exceeds (1 + {epsilon}) * {optimum}\n{grid:?}",
        path.cost
    );
}

/// A diagonal cheaper than a straight step: around the one blocked corner the cheapest path
/// from (1, 0) to (0, 1) is three diagonals (cost 15), not a straight step and a diagonal or two
/// straight steps (cost 20). A* with the default heuristic, which its options call optimal,
/// finds the same cost as Dijkstra's algorithm and the reference.
#[test]
fn a_diagonal_cheaper_than_a_straight_step_keeps_the_default_search_optimal() {
    let grid = Grid::from_ascii(
        "#..
         ...
         ...",
    )
    .expect("valid ascii");
    let (start, goal) = (Cell::new(1, 0), Cell::new(0, 1));
    let cost = CostModel::Integer {
        straight: 10,
        diagonal: 5,
    };
    let options = SearchOptions::default().with_cost(cost);
    assert!(options.is_optimal());
    let mut searcher = Searcher::new();
    let astar = searcher
        .find_path(&grid, start, goal, &options)
        .expect("a valid request");
    let dijkstra = searcher
        .find_path(&grid, start, goal, &options.dijkstra())
        .expect("a valid request");
    let optimum = ReferenceGraph::new(&grid, Movement::EIGHT, cost).cost(start, goal);
    assert_eq!(optimum, Some(15.0));
    assert_eq!(dijkstra.cost(), Some(15.0));
    assert_eq!(astar.cost(), Some(15.0));
}
