//! Jump point search checked against plain A*: benchmark scenarios, random grids, edits and
//! refused requests.

pub mod common;

use astar_grid::{
    Cell, CostModel, Grid, GridError, JpsOptions, JumpGrid, Path, SearchError, SearchOptions,
    SearchResult, SearchStatus, Searcher,
};
use common::random_grid::any_cost_model;
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;

const TOLERANCE: f64 = 1e-9;

/// Checks that `path` is a legal full path on `grid` from `start` to `goal` under the Moving AI
/// rule and that its cost is the sum of its steps.
fn assert_valid_full_path(grid: &Grid, path: &Path, start: Cell, goal: Cell, cost: CostModel) {
    assert_eq!(path.start(), Some(start));
    assert_eq!(path.end(), Some(goal));
    let mut total = 0.0;
    for pair in path.cells.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        assert!(
            grid.is_walkable(from) && grid.is_walkable(to),
            "{from} -> {to} blocked"
        );
        assert!(
            from != to && from.is_adjacent_8(to),
            "{from} -> {to} not a step"
        );
        if from.x != to.x && from.y != to.y {
            let corner_a = Cell::new(to.x, from.y);
            let corner_b = Cell::new(from.x, to.y);
            assert!(
                grid.is_walkable(corner_a) && grid.is_walkable(corner_b),
                "{from} -> {to} cuts a corner"
            );
            total += cost.diagonal();
        } else {
            total += cost.straight();
        }
    }
    assert!(
        (total - path.cost).abs() < TOLERANCE * total.max(1.0),
        "{total} != {}",
        path.cost
    );
}

/// Runs JPS (jump points and full path) and A* on one query and compares them.
fn compare(grid: &Grid, jump_grid: &JumpGrid, start: Cell, goal: Cell, cost: CostModel) {
    let mut searcher = Searcher::new();
    let astar = searcher
        .find_path(grid, start, goal, &SearchOptions::default().with_cost(cost))
        .expect("a valid A* request");
    let options = JpsOptions::default().with_cost(cost);
    let jumps = searcher
        .find_path_jps(jump_grid, start, goal, &options.with_full_path(false))
        .expect("a valid JPS request");
    let full = searcher
        .find_path_jps(jump_grid, start, goal, &options)
        .expect("a valid JPS request");
    assert_eq!(jumps.status, astar.status, "{start} -> {goal}\n{grid:?}");
    assert_eq!(full.status, astar.status);
    let (Some(expected), Some(found)) = (astar.cost(), full.cost()) else {
        assert!(jumps.path.is_none() && full.path.is_none());
        return;
    };
    assert!(
        (expected - found).abs() < TOLERANCE * expected.max(1.0),
        "{start} -> {goal}: A* {expected}, JPS {found}\n{grid:?}"
    );
    assert_eq!(jumps.cost(), full.cost());
    let full_path = full.found().expect("A* found a path, so JPS must");
    assert_valid_full_path(grid, full_path, start, goal, cost);
    // The waypoints, joined by straight and diagonal lines, are the full path.
    let waypoints = &jumps.found().expect("A* found a path, so JPS must").cells;
    assert_eq!(&join_waypoints(waypoints), &full_path.cells);
}

/// The cells on the straight or diagonal lines between consecutive waypoints.
fn join_waypoints(waypoints: &[Cell]) -> Vec<Cell> {
    let mut cells = waypoints.first().copied().into_iter().collect::<Vec<_>>();
    for pair in waypoints.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let (run_x, run_y) = (from.x.abs_diff(to.x), from.y.abs_diff(to.y));
        assert!(
            run_x == 0 || run_y == 0 || run_x == run_y,
            "waypoints {from} and {to} are not on a straight or diagonal line"
        );
        let step = |from: u32, to: u32| i32::from(to > from) - i32::from(to < from);
        let (dx, dy) = (step(from.x, to.x), step(from.y, to.y));
        let mut cell = from;
        while cell != to {
            cell = cell.offset(dx, dy).expect("inside the line");
            cells.push(cell);
        }
    }
    cells
}

fn load(name: &str) -> (Grid, astar_grid::Scenario) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/maps/dao/");
    let map =
        std::fs::read_to_string(format!("{root}{name}.map")).expect("the map file is readable");
    let scen = std::fs::read_to_string(format!("{root}{name}.map.scen"))
        .expect("the scenario file is readable");
    (
        astar_grid::parse_map(&map).expect("a valid map file"),
        astar_grid::parse_scenario(&scen).expect("a valid scenario file"),
    )
}

#[test]
fn every_benchmark_query_matches_astar_and_the_optimal_length() {
    for name in ["arena", "den312d"] {
        let (grid, scenario) = load(name);
        let jump_grid = JumpGrid::new(&grid).unwrap();
        let mut searcher = Searcher::new();
        for query in &scenario.queries {
            compare(
                &grid,
                &jump_grid,
                query.start,
                query.goal,
                CostModel::Octile,
            );
            let found = searcher
                .find_path_jps(&jump_grid, query.start, query.goal, &JpsOptions::default())
                .unwrap();
            // The files round lengths, and older ones use a shortened sqrt(2): compare relatively.
            let expected = query.optimal_length;
            assert!((found.cost().unwrap() - expected).abs() < 1e-4 * expected.max(1.0));
        }
    }
}

#[test]
fn jump_point_search_expands_far_fewer_nodes_than_astar_on_a_benchmark_map() {
    let (grid, scenario) = load("den312d");
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let mut searcher = Searcher::new();
    let (mut jps, mut astar) = (0u64, 0u64);
    for query in &scenario.queries {
        let options = JpsOptions::default();
        jps += u64::from(
            searcher
                .find_path_jps(&jump_grid, query.start, query.goal, &options)
                .unwrap()
                .stats
                .expanded,
        );
        astar += u64::from(
            searcher
                .find_path(&grid, query.start, query.goal, &SearchOptions::default())
                .unwrap()
                .stats
                .expanded,
        );
    }
    assert!(jps * 3 < astar, "JPS {jps}, A* {astar}");
}

#[test]
fn after_a_warm_up_a_search_allocates_only_its_path() {
    let (grid, scenario) = load("den312d");
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let mut searcher = Searcher::new();
    for full_path in [false, true] {
        let options = JpsOptions::default().with_full_path(full_path);
        for query in &scenario.queries {
            searcher
                .find_path_jps(&jump_grid, query.start, query.goal, &options)
                .unwrap();
        }
        for query in &scenario.queries {
            let mut result = None;
            let counted = allocation_counter::measure(|| {
                result =
                    Some(searcher.find_path_jps(&jump_grid, query.start, query.goal, &options));
            });
            let result = result.unwrap().unwrap();
            assert!(result.path.is_some());
            assert_eq!(counted.count_total, 1, "{} -> {}", query.start, query.goal);
        }
    }
}

#[test]
fn start_equal_to_goal_gives_a_one_cell_path() {
    let jump_grid = JumpGrid::new(&Grid::new(4, 4)).unwrap();
    let result = Searcher::new()
        .find_path_jps(
            &jump_grid,
            Cell::new(2, 1),
            Cell::new(2, 1),
            &JpsOptions::default(),
        )
        .unwrap();
    let path = result.found().unwrap();
    assert_eq!(path.cells, [Cell::new(2, 1)]);
    assert_eq!(path.cost, 0.0);
}

#[test]
fn unreachable_goals_give_no_path() {
    let grid = Grid::from_ascii(
        "..#..
         ..#..
         ..#..",
    )
    .unwrap();
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let result = Searcher::new()
        .find_path_jps(
            &jump_grid,
            Cell::new(0, 0),
            Cell::new(4, 2),
            &JpsOptions::default(),
        )
        .unwrap();
    assert_eq!(result.status, SearchStatus::NoPath);
    assert!(result.path.is_none());
    // A diagonal gap is closed too: no corner cutting.
    let grid = Grid::from_ascii(
        "..#
         .#.
         #..",
    )
    .unwrap();
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let result = Searcher::new()
        .find_path_jps(
            &jump_grid,
            Cell::new(0, 0),
            Cell::new(2, 2),
            &JpsOptions::default(),
        )
        .unwrap();
    assert_eq!(result.status, SearchStatus::NoPath);
}

#[test]
fn bad_requests_get_the_same_errors_as_astar() {
    let grid = Grid::from_ascii(
        "...
         .#.",
    )
    .unwrap();
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let mut searcher = Searcher::new();
    let (open, blocked, outside) = (Cell::new(0, 0), Cell::new(1, 1), Cell::new(3, 0));
    for (start, goal) in [
        (outside, open),
        (open, outside),
        (blocked, open),
        (open, blocked),
    ] {
        let expected = searcher
            .find_path(&grid, start, goal, &SearchOptions::default())
            .unwrap_err();
        let found = searcher
            .find_path_jps(&jump_grid, start, goal, &JpsOptions::default())
            .unwrap_err();
        assert_eq!(found, expected);
    }
    let empty = JumpGrid::new(&Grid::new(0, 3)).unwrap();
    assert_eq!(
        searcher.find_path_jps(&empty, open, open, &JpsOptions::default()),
        Err(SearchError::EmptyGrid)
    );
    let invalid = JpsOptions::default().with_cost(CostModel::Integer {
        straight: 0,
        diagonal: 14,
    });
    assert_eq!(
        searcher.find_path_jps(&jump_grid, open, open, &invalid),
        Err(SearchError::InvalidCostModel)
    );
    let unsupported = JpsOptions::default().with_cost(CostModel::Integer {
        straight: 10,
        diagonal: 21,
    });
    assert!(matches!(
        searcher.find_path_jps(&jump_grid, open, open, &unsupported),
        Err(SearchError::Unsupported(_))
    ));
    let mut costly = grid.clone();
    costly.set_cost(open, 2).unwrap();
    assert!(matches!(
        JumpGrid::new(&costly),
        Err(SearchError::Unsupported(_))
    ));
}

#[test]
fn the_expansion_limit_stops_the_search() {
    let grid = Grid::from_ascii(
        "..........
         .########.
         .#......#.
         .#.####.#.
         .#......#.
         .########.
         ..........",
    )
    .unwrap();
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let mut searcher = Searcher::new();
    let (start, goal) = (Cell::new(2, 2), Cell::new(9, 6));
    let options = JpsOptions::default();
    let full = searcher
        .find_path_jps(&jump_grid, start, goal, &options)
        .unwrap();
    assert_eq!(full.status, SearchStatus::NoPath);
    let limited = searcher
        .find_path_jps(&jump_grid, start, goal, &options.with_max_expansions(1))
        .unwrap();
    assert_eq!(
        limited.status,
        SearchStatus::LimitReached(astar_grid::Limit::Expansions)
    );
    assert_eq!(limited.stats.expanded, 1);
    assert!(full.stats.expanded > 1);
}

#[test]
fn edits_out_of_bounds_are_refused() {
    let mut jump_grid = JumpGrid::new(&Grid::new(2, 2)).unwrap();
    assert!(matches!(
        jump_grid.set_blocked(Cell::new(0, 2), true),
        Err(GridError::OutOfBounds { .. })
    ));
}

/// A random grid of up to 24x24 cells with roughly `density` percent blocked, and two cells.
fn grid_and_query() -> impl Strategy<Value = (Grid, Cell, Cell)> {
    grid_and_query_up_to(24, 24)
}

/// A random grid smaller than `max_width` x `max_height` with roughly `density` percent
/// blocked, and two cells.
fn grid_and_query_up_to(
    max_width: u32,
    max_height: u32,
) -> impl Strategy<Value = (Grid, Cell, Cell)> {
    (1..max_width, 1..max_height, 0u32..55).prop_flat_map(|(width, height, density)| {
        (
            proptest::collection::vec(0u32..100, (width * height) as usize),
            0..width,
            0..height,
            0..width,
            0..height,
        )
            .prop_map(move |(noise, start_x, start_y, goal_x, goal_y)| {
                let (start, goal) = (Cell::new(start_x, start_y), Cell::new(goal_x, goal_y));
                let grid = Grid::from_fn(width, height, |cell| {
                    let blocked = noise[(cell.y * width + cell.x) as usize] < density;
                    u8::from(!blocked || cell == start || cell == goal)
                });
                (grid, start, goal)
            })
    })
}

/// A grid of up to 150x150 cells with a few random blocked rectangles (long open runs, walls and
/// corridors, unlike scattered noise), and two cells.
fn walled_grid_and_query() -> impl Strategy<Value = (Grid, Cell, Cell)> {
    (1u32..150, 1u32..150).prop_flat_map(|(width, height)| {
        (
            proptest::collection::vec((0..width, 0..height, 1u32..40, 1u32..40), 0..14),
            (0..width, 0..height),
            (0..width, 0..height),
        )
            .prop_map(move |(walls, (start_x, start_y), (goal_x, goal_y))| {
                let (start, goal) = (Cell::new(start_x, start_y), Cell::new(goal_x, goal_y));
                let mut grid = Grid::new(width, height);
                for (x, y, w, h) in walls {
                    // Thin walls (one cell thick) most of the time, blocks otherwise.
                    let (w, h) = if w % 3 == 0 {
                        (w, h)
                    } else if h % 2 == 0 {
                        (w, 1)
                    } else {
                        (1, h)
                    };
                    grid.fill_rect(Cell::new(x, y), Cell::new(x + w - 1, y + h - 1), 0);
                }
                grid.set_blocked(start, false)
                    .expect("the start lies inside the grid");
                grid.set_blocked(goal, false)
                    .expect("the goal lies inside the grid");
                (grid, start, goal)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn jps_costs_equal_astar_costs_on_random_grids((grid, start, goal) in grid_and_query()) {
        let jump_grid = JumpGrid::new(&grid).unwrap();
        compare(&grid, &jump_grid, start, goal, CostModel::Octile);
    }

    #[test]
    fn jps_costs_equal_astar_costs_on_grids_wider_and_taller_than_a_word(
        (grid, start, goal) in grid_and_query_up_to(200, 140),
    ) {
        // Rows and columns longer than 64 cells make the scans cross word boundaries.
        let jump_grid = JumpGrid::new(&grid).unwrap();
        compare(&grid, &jump_grid, start, goal, CostModel::Octile);
    }

    #[test]
    fn jps_costs_equal_astar_costs_on_grids_with_walls((grid, start, goal) in walled_grid_and_query()) {
        let jump_grid = JumpGrid::new(&grid).unwrap();
        compare(&grid, &jump_grid, start, goal, CostModel::Octile);
    }

    #[test]
    fn jps_is_optimal_under_integer_costs(
        (grid, start, goal) in grid_and_query(),
        (straight, diagonal) in prop_oneof![Just((10, 14)), Just((10, 10)), Just((10, 20)), Just((10, 17))],
    ) {
        let jump_grid = JumpGrid::new(&grid).unwrap();
        compare(&grid, &jump_grid, start, goal, CostModel::Integer { straight, diagonal });
    }

    #[test]
    fn edits_keep_the_jump_grid_in_step(
        (mut grid, start, goal) in grid_and_query(),
        edits in proptest::collection::vec((0u32..24, 0u32..24, any::<bool>()), 0..40),
    ) {
        let mut jump_grid = JumpGrid::new(&grid).unwrap();
        for (x, y, blocked) in edits {
            let cell = Cell::new(x % grid.width(), y % grid.height());
            if cell == start || cell == goal {
                continue;
            }
            let was_blocked = !grid.is_walkable(cell);
            grid.set_blocked(cell, blocked).unwrap();
            prop_assert_eq!(jump_grid.set_blocked(cell, blocked), Ok(was_blocked));
        }
        prop_assert_eq!(&jump_grid, &JumpGrid::new(&grid).unwrap());
        compare(&grid, &jump_grid, start, goal, CostModel::Octile);
    }
}

/// At the expansion limit, a search with nothing left to expand has proved that there is no
/// path: A* and jump point search both say so rather than blaming the limit.
#[test]
fn the_expansion_limit_is_not_reported_when_nothing_is_left_to_expand() {
    let grid = Grid::from_ascii(
        ".#.
         ##.",
    )
    .unwrap();
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let mut searcher = Searcher::new();
    let (start, goal) = (Cell::new(0, 0), Cell::new(2, 0));
    let astar = searcher
        .find_path(
            &grid,
            start,
            goal,
            &SearchOptions::default().with_max_expansions(1),
        )
        .unwrap();
    let jps = searcher
        .find_path_jps(
            &jump_grid,
            start,
            goal,
            &JpsOptions::default().with_max_expansions(1),
        )
        .unwrap();
    assert_eq!(astar.status, SearchStatus::NoPath);
    assert_eq!(jps.status, SearchStatus::NoPath);
    assert_eq!((astar.stats.expanded, jps.stats.expanded), (1, 1));
}

/// However jump point options are made, they ask for the same kind of path: every cell, as A*
/// returns it, unless waypoints are asked for.
#[test]
fn default_and_converted_options_both_ask_for_full_paths() {
    let converted = JpsOptions::try_from(&SearchOptions::default()).unwrap();
    assert_eq!(JpsOptions::default(), converted);
    assert!(JpsOptions::default().full_path);
    let grid = Grid::new(6, 3);
    let jump_grid = JumpGrid::new(&grid).unwrap();
    let (start, goal) = (Cell::new(0, 0), Cell::new(5, 2));
    let result = Searcher::new()
        .find_path_jps(&jump_grid, start, goal, &JpsOptions::default())
        .unwrap();
    let path = result.found().unwrap();
    assert_valid_full_path(&grid, path, start, goal, CostModel::Octile);
}

/// Checks the expansion limit's rule on one search: with a limit at or above the expansions the
/// unlimited search needs, the result is the unlimited one; below, the search stops at the
/// limit and reports it.
fn check_limit_rule(
    unlimited: &SearchResult,
    limited: &SearchResult,
    limit: u32,
) -> Result<(), TestCaseError> {
    if unlimited.stats.expanded <= limit {
        prop_assert_eq!(limited, unlimited, "limit {}", limit);
    } else {
        prop_assert_eq!(
            limited.status,
            SearchStatus::LimitReached(astar_grid::Limit::Expansions)
        );
        prop_assert_eq!(limited.stats.expanded, limit);
        prop_assert!(limited.path.is_none());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Jump point search converts every search option it can honour across the cost-model space
    /// (integer costs from 1 to 1000, a diagonal below a straight step included) and refuses
    /// the others with a typed error; what it accepts, it answers with the reference optimum.
    #[test]
    fn jps_is_optimal_for_every_cost_model_it_accepts(
        (grid, start, goal) in grid_and_query(),
        cost in any_cost_model(),
    ) {
        let options = SearchOptions::default().with_cost(cost);
        let (straight, diagonal) = (cost.straight(), cost.diagonal());
        let jps = match JpsOptions::try_from(&options) {
            Ok(jps) => jps,
            Err(error) => {
                prop_assert!(matches!(error, SearchError::Unsupported(_)), "{:?}", error);
                prop_assert!(diagonal < straight || diagonal > 2.0 * straight, "{:?}", cost);
                return Ok(());
            }
        };
        prop_assert!((straight..=2.0 * straight).contains(&diagonal), "{:?}", cost);
        let jump_grid = JumpGrid::new(&grid).unwrap();
        let result = Searcher::new().find_path_jps(&jump_grid, start, goal, &jps).unwrap();
        let optimum = ReferenceGraph::new(&grid, options.movement, cost).cost(start, goal);
        match (optimum, result.found()) {
            (None, None) => prop_assert_eq!(result.status, SearchStatus::NoPath),
            (Some(optimum), Some(path)) => {
                prop_assert!(
                    (path.cost - optimum).abs() <= TOLERANCE * optimum.max(1.0),
                    "{:?}: JPS {}, reference {}", cost, path.cost, optimum
                );
                assert_valid_full_path(&grid, path, start, goal, cost);
            }
            (optimum, _) => prop_assert!(false, "{:?}: reference {:?}, JPS {:?}", cost, optimum, result.status),
        }
    }

    /// A* and jump point search follow one rule at the expansion limit: the limit is reported
    /// only when something is left to expand, so a limit the search does not need changes
    /// nothing and a smaller one stops it exactly there.
    #[test]
    fn astar_and_jps_follow_the_same_limit_rule(
        (grid, start, goal) in grid_and_query_up_to(12, 12),
        extra in 0u32..3,
    ) {
        let jump_grid = JumpGrid::new(&grid).unwrap();
        let mut searcher = Searcher::new();
        let astar = SearchOptions::default();
        let jps = JpsOptions::default();
        let unlimited_astar = searcher.find_path(&grid, start, goal, &astar).unwrap();
        let unlimited_jps = searcher.find_path_jps(&jump_grid, start, goal, &jps).unwrap();
        for limit in 0..=unlimited_astar.stats.expanded + extra {
            let limited = searcher
                .find_path(&grid, start, goal, &astar.with_max_expansions(limit))
                .unwrap();
            check_limit_rule(&unlimited_astar, &limited, limit)?;
        }
        for limit in 0..=unlimited_jps.stats.expanded + extra {
            let limited = searcher
                .find_path_jps(&jump_grid, start, goal, &jps.with_max_expansions(limit))
                .unwrap();
            check_limit_rule(&unlimited_jps, &limited, limit)?;
        }
    }
}
