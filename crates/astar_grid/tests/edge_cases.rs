//! One test per documented edge case of the search API: trivial and refused requests, limits,
//! windows, default heuristics, cost models, neighbour order, traces and searcher reuse.

pub mod common;

use astar_grid::{
    Cell, CostModel, Grid, Heuristic, Limit, Movement, Neighborhood, SearchError, SearchOptions,
    SearchResult, SearchStatus, SearchWindow, Searcher, Weighting, find_path,
};
use common::path_check::{
    check_inside_window, check_path, costs_match, diagonal_steps, direction_changes, step_cost,
};
use common::random_grid::{MOVEMENTS, grid_query, search_options};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;

/// A 7x5 map whose right part is walled off: `(6, 2)` cannot be reached from the left.
fn walled_off_map() -> Grid {
    Grid::from_ascii(
        "....#..
         ....#..
         ....#..
         ....#..
         ....#..",
    )
    .expect("valid ascii")
}

fn search(
    grid: &Grid,
    start: Cell,
    goal: Cell,
    options: &SearchOptions,
) -> Result<SearchResult, SearchError> {
    Searcher::new().find_path(grid, start, goal, options)
}

#[test]
fn start_equal_to_goal_gives_a_one_cell_path_of_cost_zero() {
    let grid = Grid::from_ascii(
        "..3
         .#.",
    )
    .expect("valid ascii");
    for movement in MOVEMENTS {
        for options in [
            SearchOptions::default().with_movement(movement),
            SearchOptions::default().with_movement(movement).dijkstra(),
        ] {
            for cell in [Cell::new(0, 0), Cell::new(2, 0)] {
                let result = search(&grid, cell, cell, &options).expect("valid request");
                assert_eq!(result.status, SearchStatus::Found);
                let path = result.path.expect("a path");
                assert_eq!(path.cells, [cell]);
                assert_eq!(path.cost, 0.0);
            }
        }
    }
}

#[test]
fn out_of_bounds_start_or_goal_is_refused() {
    let grid = Grid::new(4, 3);
    let inside = Cell::new(1, 1);
    let options = SearchOptions::default();
    for outside in [
        Cell::new(4, 0),
        Cell::new(0, 3),
        Cell::new(u32::MAX, u32::MAX),
    ] {
        assert_eq!(
            search(&grid, outside, inside, &options),
            Err(SearchError::StartOutOfBounds(outside))
        );
        assert_eq!(
            search(&grid, inside, outside, &options),
            Err(SearchError::GoalOutOfBounds(outside))
        );
    }
}

#[test]
fn blocked_start_or_goal_is_refused() {
    let grid = Grid::from_ascii(
        ".#.
         ...",
    )
    .expect("valid ascii");
    let (open, blocked) = (Cell::new(0, 0), Cell::new(1, 0));
    let options = SearchOptions::default();
    assert_eq!(
        search(&grid, blocked, open, &options),
        Err(SearchError::StartBlocked(blocked))
    );
    assert_eq!(
        search(&grid, open, blocked, &options),
        Err(SearchError::GoalBlocked(blocked))
    );
}

#[test]
fn empty_grids_are_refused() {
    for (width, height) in [(0, 0), (5, 0), (0, 5)] {
        let grid = Grid::new(width, height);
        assert!(grid.is_empty());
        assert_eq!(
            search(
                &grid,
                Cell::new(0, 0),
                Cell::new(0, 0),
                &SearchOptions::default()
            ),
            Err(SearchError::EmptyGrid),
            "{width}x{height}"
        );
    }
}

#[test]
fn weights_below_one_or_not_finite_are_refused() {
    let grid = Grid::new(3, 3);
    let (start, goal) = (Cell::new(0, 0), Cell::new(2, 2));
    for weight in [0.99, 0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let result = search(
            &grid,
            start,
            goal,
            &SearchOptions::default().with_weight(weight),
        );
        assert!(
            matches!(result, Err(SearchError::InvalidWeight(reported))
                if reported.to_bits() == weight.to_bits()),
            "weight {weight}: {result:?}"
        );
    }
    for epsilon in [-0.01, f64::NAN, f64::INFINITY] {
        let result = search(
            &grid,
            start,
            goal,
            &SearchOptions::default().with_dynamic_weight(epsilon),
        );
        assert!(
            matches!(result, Err(SearchError::InvalidWeight(_))),
            "epsilon {epsilon}: {result:?}"
        );
    }
    for options in [
        SearchOptions::default().with_weight(1.0),
        SearchOptions::default().with_dynamic_weight(0.0),
    ] {
        assert!(search(&grid, start, goal, &options).is_ok());
    }
}

#[test]
fn zero_integer_costs_are_refused() {
    let grid = Grid::new(3, 3);
    for cost in [
        CostModel::Integer {
            straight: 0,
            diagonal: 14,
        },
        CostModel::Integer {
            straight: 10,
            diagonal: 0,
        },
    ] {
        assert_eq!(
            search(
                &grid,
                Cell::new(0, 0),
                Cell::new(2, 2),
                &SearchOptions::default().with_cost(cost)
            ),
            Err(SearchError::InvalidCostModel)
        );
    }
}

#[test]
fn unreachable_goal_is_a_no_path_result() {
    let grid = walled_off_map();
    for movement in MOVEMENTS {
        let options = SearchOptions::default().with_movement(movement);
        let result = search(&grid, Cell::new(0, 2), Cell::new(6, 2), &options).expect("valid");
        assert_eq!(result.status, SearchStatus::NoPath);
        assert_eq!(result.path, None);
        assert_eq!(result.found(), None);
        assert_eq!(result.cost(), None);
        // Every reachable cell was expanded before giving up: the 4x5 left part.
        assert_eq!(result.stats.expanded, 20);
    }
}

#[test]
fn expansion_limit_stops_the_search_with_an_optional_partial_path() {
    let grid = Grid::from_ascii(
        "..........
         ..######..
         ..#....#..
         ..#....#..
         ..........",
    )
    .expect("valid ascii");
    let (start, goal) = (Cell::new(4, 2), Cell::new(9, 0));
    for limit in [0, 1, 5, 12] {
        let limited = SearchOptions::default()
            .with_max_expansions(limit)
            .with_trace(true);
        let without = search(&grid, start, goal, &limited).expect("valid");
        assert_eq!(
            without.status,
            SearchStatus::LimitReached(Limit::Expansions)
        );
        assert_eq!(without.stats.expanded, limit);
        assert_eq!(without.path, None);

        let with = search(&grid, start, goal, &limited.with_partial_path(true)).expect("valid");
        assert_eq!(with.status, SearchStatus::LimitReached(Limit::Expansions));
        let path = with.path.expect("a partial path");
        let end = path.end().expect("non-empty");
        check_path(&grid, &path, start, end, Movement::EIGHT, CostModel::Octile)
            .unwrap_or_else(|problem| panic!("{problem}"));
        // The end is the expanded cell closest to the goal by the (octile) heuristic.
        let octile = |cell: Cell| {
            Heuristic::Octile.estimate(cell, goal, Neighborhood::Eight, CostModel::Octile)
        };
        let trace = with.trace.expect("traced");
        assert_eq!(trace.expansions.len(), limit as usize);
        let closest = trace
            .expansions
            .iter()
            .map(|&cell| octile(cell))
            .reduce(f64::min);
        match closest {
            None => assert_eq!(end, start),
            Some(closest) => {
                assert!(trace.expansions.contains(&end));
                assert_eq!(octile(end), closest);
            }
        }
    }
    // A limit the search does not reach changes nothing.
    let unlimited = search(&grid, start, goal, &SearchOptions::default()).expect("valid");
    let generous = search(
        &grid,
        start,
        goal,
        &SearchOptions::default().with_max_expansions(1000),
    )
    .expect("valid");
    assert_eq!(generous, unlimited);
}

/// The cell a partial path ends at is chosen by its distance in cells from the goal, whatever
/// heuristic the search ranks cells by: Dijkstra's zero heuristic rates every cell alike, yet
/// its partial path must still end at the expanded cell nearest the goal.
#[test]
fn dijkstra_partial_path_ends_at_the_expanded_cell_nearest_the_goal() {
    let grid = Grid::new(10, 1);
    let (start, goal) = (Cell::new(0, 0), Cell::new(9, 0));
    let options = SearchOptions::default()
        .dijkstra()
        .with_max_expansions(3)
        .with_partial_path(true);
    let result = search(&grid, start, goal, &options).expect("valid");
    assert_eq!(result.status, SearchStatus::LimitReached(Limit::Expansions));
    let path = result.path.expect("a partial path");
    // Expanded: (0, 0), (1, 0), (2, 0).
    assert_eq!(path.cells, [start, Cell::new(1, 0), Cell::new(2, 0)]);
    assert_eq!(path.cost, 2.0);
}

#[test]
fn window_that_excludes_the_goal_reports_the_window_limit() {
    let grid = Grid::new(20, 20);
    let (start, goal) = (Cell::new(5, 5), Cell::new(15, 15));
    let window = SearchWindow::centered(start, 7, 7);
    assert!(!window.contains(goal));
    let options = SearchOptions::default().with_window(window);
    let result = search(&grid, start, goal, &options).expect("valid");
    assert_eq!(result.status, SearchStatus::LimitReached(Limit::Window));
    assert_eq!(result.path, None);
    // Exactly the window's 49 cells were expanded.
    assert_eq!(result.stats.expanded, 49);

    let partial = search(&grid, start, goal, &options.with_partial_path(true)).expect("valid");
    assert_eq!(partial.status, SearchStatus::LimitReached(Limit::Window));
    let path = partial.path.expect("a partial path");
    check_inside_window(&path, window).unwrap_or_else(|problem| panic!("{problem}"));
    // The window corner nearest the goal.
    assert_eq!(path.end(), Some(window.max));
}

#[test]
fn window_refuses_a_start_outside_it() {
    let grid = Grid::new(10, 10);
    let window = SearchWindow::new(Cell::new(5, 5), Cell::new(8, 8));
    let start = Cell::new(1, 1);
    assert_eq!(
        search(
            &grid,
            start,
            Cell::new(6, 6),
            &SearchOptions::default().with_window(window)
        ),
        Err(SearchError::StartOutsideWindow(start))
    );
}

#[test]
fn window_covering_the_whole_grid_gives_no_path_for_an_unreachable_goal() {
    let grid = walled_off_map();
    let (start, goal) = (Cell::new(0, 2), Cell::new(6, 2));
    for window in [
        SearchWindow::new(Cell::new(0, 0), Cell::new(6, 4)),
        SearchWindow::new(Cell::new(0, 0), Cell::new(u32::MAX, u32::MAX)),
        SearchWindow::centered(start, 49, 33),
    ] {
        let options = SearchOptions::default().with_window(window);
        let result = search(&grid, start, goal, &options).expect("valid");
        assert_eq!(result.status, SearchStatus::NoPath, "{window:?}");
        // And a reachable goal is found as without the window.
        let reachable = Cell::new(3, 4);
        assert_eq!(
            search(&grid, start, reachable, &options)
                .expect("valid")
                .cost(),
            search(&grid, start, reachable, &SearchOptions::default())
                .expect("valid")
                .cost()
        );
    }
}

#[test]
fn four_connected_search_defaults_to_manhattan_and_eight_to_octile() {
    let grid = Grid::from_ascii(
        "......
         .##...
         ....#.",
    )
    .expect("valid ascii");
    let (start, goal) = (Cell::new(0, 2), Cell::new(5, 0));
    for (neighborhood, expected) in [
        (Neighborhood::Four, Heuristic::Manhattan),
        (Neighborhood::Eight, Heuristic::Octile),
    ] {
        let options = SearchOptions::default()
            .with_neighborhood(neighborhood)
            .with_trace(true);
        assert_eq!(options.resolved_heuristic(), expected);
        let trace = search(&grid, start, goal, &options)
            .expect("valid")
            .trace
            .expect("traced");
        for traced in &trace.cells {
            let (dx, dy) = (
                traced.cell.x.abs_diff(goal.x),
                traced.cell.y.abs_diff(goal.y),
            );
            let expected_h = match expected {
                Heuristic::Manhattan => f64::from(dx + dy),
                _ => f64::from(dx.max(dy) - dx.min(dy)) + 2f64.sqrt() * f64::from(dx.min(dy)),
            };
            assert!(
                (traced.h - expected_h).abs() < 1e-9,
                "{neighborhood:?} at {}: h {} instead of {expected_h}",
                traced.cell,
                traced.h
            );
        }
    }
}

#[test]
fn diagonals_costing_more_than_two_straight_steps_give_stair_step_paths() {
    let grid = Grid::new(12, 9);
    let (start, goal) = (Cell::new(0, 0), Cell::new(7, 5));
    for diagonal in [21, 25] {
        let cost = CostModel::Integer {
            straight: 10,
            diagonal,
        };
        let options = SearchOptions::default().with_cost(cost);
        let path = search(&grid, start, goal, &options)
            .expect("valid")
            .path
            .expect("open grid");
        check_path(&grid, &path, start, goal, Movement::EIGHT, cost)
            .unwrap_or_else(|problem| panic!("{problem}"));
        assert_eq!(diagonal_steps(&path), 0, "10/{diagonal}: {:?}", path.cells);
        assert_eq!(path.cost, 120.0);
    }
}

/// 17 is still less than two straight steps of 10, so on open ground an optimal path takes as
/// many diagonals as with 10/14: `min(dx, dy)` of them.
#[test]
fn integer_10_17_still_takes_every_useful_diagonal_on_open_ground() {
    let grid = Grid::new(12, 9);
    let (start, goal) = (Cell::new(0, 0), Cell::new(7, 5));
    let cost = CostModel::Integer {
        straight: 10,
        diagonal: 17,
    };
    let path = search(
        &grid,
        start,
        goal,
        &SearchOptions::default().with_cost(cost),
    )
    .expect("valid")
    .path
    .expect("open grid");
    assert_eq!(diagonal_steps(&path), 5);
    assert_eq!(path.cost, 5.0 * 17.0 + 2.0 * 10.0);
}

#[test]
fn straight_neighbours_are_reached_before_diagonal_ones() {
    let grid = Grid::new(5, 5);
    let center = Cell::new(2, 2);
    let options = SearchOptions::default().with_trace(true).dijkstra();
    let trace = search(&grid, center, Cell::new(4, 4), &options)
        .expect("valid")
        .trace
        .expect("traced");
    // The start, then the neighbours it opened, in the order it opened them.
    assert_eq!(trace.cells[0].cell, center);
    let first_opened: Vec<Cell> = trace.cells[1..9].iter().map(|traced| traced.cell).collect();
    assert!(first_opened.iter().all(|&cell| cell.is_adjacent_8(center)));
    let is_straight = |cell: &Cell| cell.x == center.x || cell.y == center.y;
    assert!(
        first_opened[..4].iter().all(is_straight),
        "{first_opened:?}"
    );
    assert!(
        !first_opened[4..].iter().any(is_straight),
        "{first_opened:?}"
    );
}

#[test]
fn paths_along_a_corridor_stay_straight() {
    // A two-cell-wide corridor: every optimal path has one sideways move; the straight-looking
    // ones make it at an end and turn once.
    let grid = Grid::from_ascii(
        "############
         ............
         ............
         ############",
    )
    .expect("valid ascii");
    for movement in MOVEMENTS {
        for heuristic in [None, Some(Heuristic::Zero)] {
            let mut options = SearchOptions::default().with_movement(movement);
            options.heuristic = heuristic;
            for (start, goal) in [
                (Cell::new(0, 1), Cell::new(11, 2)),
                (Cell::new(11, 2), Cell::new(0, 1)),
                (Cell::new(0, 1), Cell::new(11, 1)),
            ] {
                let path = search(&grid, start, goal, &options)
                    .expect("valid")
                    .path
                    .expect("open corridor");
                let turns_needed = usize::from(start.y != goal.y);
                assert_eq!(
                    direction_changes(&path),
                    turns_needed,
                    "{movement:?} {heuristic:?}: {:?}",
                    path.cells
                );
            }
        }
    }
}

#[test]
fn trace_is_absent_unless_asked_for() {
    let grid = walled_off_map();
    let result = search(
        &grid,
        Cell::new(0, 0),
        Cell::new(3, 4),
        &SearchOptions::default(),
    )
    .expect("valid");
    assert_eq!(result.trace, None);
}

/// Checks a trace's internal consistency and its values against the reference search.
fn check_trace(grid: &Grid, start: Cell, goal: Cell, options: &SearchOptions) {
    let result = search(grid, start, goal, options).expect("valid");
    let trace = result.trace.as_ref().expect("traced");
    let weight = match options.weighting {
        Weighting::Static(weight) => weight,
        Weighting::Dynamic { .. } => unreachable!("static weights only"),
    };
    assert_eq!(trace.expansions.first(), Some(&start));
    if result.status == SearchStatus::Found {
        assert_eq!(trace.expansions.last(), Some(&goal));
    }
    assert_eq!(trace.expansions.len(), result.stats.expanded as usize);
    let mut closed = trace.expansions.clone();
    closed.sort_unstable();
    closed.dedup();
    assert_eq!(
        closed.len(),
        trace.expansions.len(),
        "a cell expanded twice"
    );

    let reference = ReferenceGraph::new(grid, options.movement, options.cost);
    let optimal_g = reference.costs_from(start);
    for traced in &trace.cells {
        let cell = traced.cell;
        // Expansion order and replay counters.
        match traced.closed_at {
            Some(order) => {
                assert_eq!(trace.expansions[order as usize], cell);
                assert!(
                    traced.opened_at <= order,
                    "{cell} closed before it was opened"
                );
            }
            None => assert!(
                !trace.expansions.contains(&cell),
                "{cell} expanded, no closed_at"
            ),
        }
        // Values: h is the heuristic, f = g + w * h, g follows the parent.
        let expected_h = options.resolved_heuristic().estimate(
            cell,
            goal,
            options.movement.neighborhood,
            options.cost,
        );
        assert_eq!(traced.h, expected_h, "{cell}");
        assert!(
            costs_match(traced.f, traced.g + weight * traced.h),
            "{cell}"
        );
        if cell == start {
            assert_eq!((traced.parent, traced.g, traced.opened_at), (start, 0.0, 0));
        } else {
            let parent = trace.get(traced.parent).expect("parent traced");
            // Only expanded cells open others; a cell is expanded after its final parent.
            let parent_order = parent.closed_at.expect("parent expanded");
            assert!(parent_order < traced.opened_at.max(traced.closed_at.unwrap_or(u32::MAX)));
            assert!(traced.parent.is_adjacent_8(cell) && traced.parent != cell);
            let expected_g =
                parent.g + step_cost(grid, traced.parent, cell, options.movement, options.cost);
            assert!(costs_match(traced.g, expected_g), "{cell}");
        }
        let optimal = optimal_g[(cell.y * grid.width() + cell.x) as usize].expect("reachable");
        assert!(traced.g >= optimal - 1e-9, "{cell}: g below the optimum");
        if traced.closed_at.is_some() && weight == 1.0 {
            assert!(
                costs_match(traced.g, optimal),
                "{cell} closed with a suboptimal g"
            );
        }
    }
    assert_eq!(
        trace
            .cells
            .iter()
            .filter(|traced| traced.closed_at.is_some())
            .count(),
        trace.expansions.len()
    );
    let open: Vec<Cell> = trace.open_set().collect();
    assert!(open.iter().all(|cell| !trace.expansions.contains(cell)));
    assert_eq!(open.len() + trace.expansions.len(), trace.cells.len());
    // Replays: after k expansions the closed and open sets are disjoint.
    for step in 0..=trace.expansions.len() as u32 {
        let closed_now = trace.closed_at(step);
        assert_eq!(closed_now, &trace.expansions[..step as usize]);
        assert!(trace.open_at(step).all(|cell| !closed_now.contains(&cell)));
    }
    if options.resolved_heuristic() == Heuristic::Zero {
        // Dijkstra expands in order of cost.
        let costs: Vec<f64> = trace
            .expansions
            .iter()
            .map(|&cell| trace.get(cell).expect("traced").g)
            .collect();
        assert!(
            costs.windows(2).all(|pair| pair[0] <= pair[1] + 1e-9),
            "{costs:?}"
        );
    }
}

#[test]
fn trace_records_a_consistent_replayable_search() {
    let grid = Grid::from_ascii(
        "..........
         ..######..
         ..#2...#..
         ..#..5.#..
         ...3......
         ####.#####
         ..........",
    )
    .expect("valid ascii");
    let (start, goal) = (Cell::new(4, 2), Cell::new(0, 6));
    for movement in MOVEMENTS {
        for cost in [CostModel::Octile, CostModel::INTEGER_10_14] {
            let base = SearchOptions::default()
                .with_movement(movement)
                .with_cost(cost)
                .with_trace(true);
            for options in [base, base.dijkstra(), base.with_weight(2.0)] {
                check_trace(&grid, start, goal, &options);
            }
            // Also when the goal cannot be reached and when a limit stops the search.
            check_trace(&grid, start, Cell::new(9, 6), &base.with_max_expansions(7));
        }
    }
}

#[test]
fn free_function_matches_a_searcher() {
    let grid = walled_off_map();
    let options = SearchOptions::default().with_trace(true);
    assert_eq!(
        find_path(&grid, Cell::new(0, 0), Cell::new(3, 4), &options),
        search(&grid, Cell::new(0, 0), Cell::new(3, 4), &options)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// One searcher reused across queries on grids of different sizes returns exactly what a
    /// fresh searcher returns for each.
    #[test]
    fn reused_searcher_matches_fresh_searchers(
        queries in prop::collection::vec(
            grid_query(24).prop_flat_map(|query| {
                let start = query.start;
                (Just(query), search_options(start))
            }),
            1..10,
        )
    ) {
        let mut reused = Searcher::new();
        for (query, options) in &queries {
            let fresh = Searcher::new().find_path(&query.grid, query.start, query.goal, options);
            let again = reused.find_path(&query.grid, query.start, query.goal, options);
            prop_assert_eq!(again, fresh);
        }
    }
}

/// A search whose start is its goal has nothing to expand: it is found at once, with no
/// expansion, whatever its expansion limit, by A* and by jump point search.
#[test]
fn start_equal_to_goal_is_found_even_with_a_limit_of_zero() {
    let grid = Grid::new(3, 3);
    let jump_grid = astar_grid::JumpGrid::new(&grid).expect("uniform costs");
    let cell = Cell::new(1, 1);
    let mut searcher = Searcher::new();
    for limit in [None, Some(0), Some(1)] {
        let options = SearchOptions {
            max_expansions: limit,
            ..SearchOptions::default()
        };
        let jps = astar_grid::JpsOptions {
            max_expansions: limit,
            ..astar_grid::JpsOptions::default()
        };
        for result in [
            searcher
                .find_path(&grid, cell, cell, &options)
                .expect("valid"),
            searcher
                .find_path_jps(&jump_grid, cell, cell, &jps)
                .expect("valid"),
        ] {
            assert_eq!(result.status, SearchStatus::Found, "limit {limit:?}");
            let path = result.path.expect("a path");
            assert_eq!((path.cells, path.cost), (vec![cell], 0.0));
            assert_eq!(result.stats.expanded, 0);
        }
    }
}
