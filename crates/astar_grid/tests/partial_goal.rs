//! The closest reachable cell to a goal that cannot be reached or is blocked
//! (`SearchOptions::closest_reachable` and its counterparts), for every algorithm, against an
//! independent Dijkstra: the path ends at the cell the documented rule picks and costs its
//! optimum; reachable goals are answered as without the option; limits keep partial paths at
//! the closest expanded cell.

pub mod common;

use astar_grid::{
    Algorithm, Cell, CostModel, Engine, FlowField, Grid, Heuristic, JpsOptions, JumpGrid, Limit,
    Movement, Path, ReachedPath, SearchError, SearchOptions, SearchResult, SearchStatus,
    SearchWindow, Searcher, Step, Weighting,
};
use common::closest_cell::{ClosestExpectation, closest_by_rule};
use common::path_check::{check_inside_window, check_path, costs_match};
use common::random_grid::{
    GridQuery, any_cost_model, cost_model, grid_query, movement, window_around,
};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;

/// A query whose goal is often unreachable: a random grid, sometimes cut by a wall column, and
/// a goal that is sometimes blocked (never the start).
#[derive(Clone, Debug)]
struct ClosestCase {
    grid: Grid,
    start: Cell,
    goal: Cell,
}

fn closest_case() -> impl Strategy<Value = ClosestCase> {
    (grid_query(10), any::<u32>(), any::<bool>(), any::<bool>()).prop_map(
        |(query, column, cut, block_goal)| {
            let GridQuery {
                mut grid,
                start,
                goal,
            } = query;
            if cut {
                let x = column % grid.width();
                for y in 0..grid.height() {
                    let cell = Cell::new(x, y);
                    if cell != start && cell != goal {
                        grid.set_blocked(cell, true).expect("inside the grid");
                    }
                }
            }
            if block_goal && goal != start {
                grid.set_blocked(goal, true).expect("inside the grid");
            }
            ClosestCase { grid, start, goal }
        },
    )
}

/// Movement, cost model, heuristic and weighting of an A* search, often optimal.
fn astar_options() -> impl Strategy<Value = SearchOptions> {
    let weighting = prop_oneof![
        4 => Just(Weighting::Static(1.0)),
        1 => Just(Weighting::Static(1.5)),
        1 => Just(Weighting::Dynamic { epsilon: 0.5 }),
    ];
    (
        movement(),
        prop_oneof![cost_model(), any_cost_model()],
        prop::option::of(prop::sample::select(Heuristic::ALL.to_vec())),
        weighting,
    )
        .prop_map(|(movement, cost, heuristic, weighting)| {
            let mut options = SearchOptions::default()
                .with_movement(movement)
                .with_cost(cost)
                .with_closest_reachable(true);
            options.heuristic = heuristic;
            options.weighting = weighting;
            options
        })
}

/// What an algorithm answered: whether its path reaches the goal, and the path.
struct Answer<'a> {
    name: &'a str,
    reaches_goal: bool,
    path: Option<&'a Path>,
}

impl<'a> Answer<'a> {
    fn of_result(name: &'a str, result: &'a SearchResult) -> Self {
        Self {
            name,
            reaches_goal: result.found().is_some(),
            path: result.path.as_ref(),
        }
    }

    fn of_reached(name: &'a str, reached: &'a ReachedPath) -> Self {
        Self {
            name,
            reaches_goal: reached.reaches_goal(),
            path: Some(reached.path()),
        }
    }
}

/// Checks `answer` against the reference on `grid`: the goal reached at its optimal cost when
/// it can be, else a legal path to the closest reachable cell. Costs and ties are checked
/// exactly when `optimal`; otherwise the path must still end at the closest distance.
fn check_answer(
    grid: &Grid,
    movement: Movement,
    cost: CostModel,
    (start, goal): (Cell, Cell),
    answer: &Answer<'_>,
    optimal: bool,
) -> Result<(), TestCaseError> {
    let name = answer.name;
    let path = answer
        .path
        .ok_or_else(|| TestCaseError::fail(format!("{name}: no path")))?;
    let end = path
        .end()
        .ok_or_else(|| TestCaseError::fail(format!("{name}: empty path")))?;
    check_path(grid, path, start, end, movement, cost)
        .map_err(|problem| TestCaseError::fail(format!("{name}: {problem}")))?;
    let reference = ReferenceGraph::new(grid, movement, cost);
    let to_goal = grid
        .is_walkable(goal)
        .then(|| reference.cost(start, goal))
        .flatten();
    match to_goal {
        Some(optimum) => {
            prop_assert!(answer.reaches_goal, "{}: the goal is reachable", name);
            prop_assert_eq!(end, goal, "{}", name);
            if optimal {
                prop_assert!(
                    costs_match(path.cost, optimum),
                    "{}: cost {} vs {}",
                    name,
                    path.cost,
                    optimum
                );
            }
        }
        None => {
            prop_assert!(
                !answer.reaches_goal,
                "{}: marked as reaching an unreachable goal",
                name
            );
            let expected = ClosestExpectation::new(grid, movement, cost, start, goal);
            if optimal {
                expected
                    .accepts(end, path.cost)
                    .map_err(|problem| TestCaseError::fail(format!("{name}: {problem}")))?;
            } else {
                let distance =
                    common::closest_cell::cell_distance(movement.neighborhood, end, goal);
                prop_assert_eq!(distance, expected.distance, "{}: ends at {}", name, end);
            }
        }
    }
    Ok(())
}

/// The search advanced `budget` expansions at a time.
fn time_sliced(
    grid: &Grid,
    (start, goal): (Cell, Cell),
    options: &SearchOptions,
    budget: u32,
) -> SearchResult {
    let mut searcher = Searcher::new();
    let mut search = searcher
        .begin(grid, start, goal, options)
        .expect("a valid request");
    loop {
        match search.advance(budget) {
            Step::Pending(more) => search = more,
            Step::Done(result) => return result,
        }
    }
}

/// `grid` with every walkable cell at terrain 1, for jump point search.
fn uniform(grid: &Grid) -> Grid {
    Grid::from_fn(grid.width(), grid.height(), |cell| {
        u8::from(grid.is_walkable(cell))
    })
}

/// Whether jump point search accepts `cost`: a diagonal between one and two straight steps.
fn jps_accepts(cost: CostModel) -> bool {
    cost.diagonal() >= cost.straight() && cost.diagonal() <= 2.0 * cost.straight()
}

/// Checks that consecutive waypoints lie on one straight or diagonal line, and that the
/// waypoints are the full path's turning points: same ends and cost as the full path.
fn check_waypoints(waypoints: &Path, full: &Path) -> Result<(), TestCaseError> {
    prop_assert_eq!(waypoints.start(), full.start());
    prop_assert_eq!(waypoints.end(), full.end());
    prop_assert!(costs_match(waypoints.cost, full.cost));
    for pair in waypoints.cells.windows(2) {
        let (dx, dy) = (pair[0].x.abs_diff(pair[1].x), pair[0].y.abs_diff(pair[1].y));
        prop_assert!(dx == 0 || dy == 0 || dx == dy, "{:?} is not one line", pair);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// A*, Dijkstra and the time-sliced search, with any movement rule, cost model, heuristic
    /// and weight, end at the closest reachable cell (at its optimal cost when the options are
    /// optimal) and reach reachable goals.
    #[test]
    fn astar_and_dijkstra_end_at_the_closest_reachable_cell(
        case in closest_case(),
        options in astar_options(),
        budget in 0u32..20,
    ) {
        let ClosestCase { grid, start, goal } = &case;
        let ends = (*start, *goal);
        let mut searcher = Searcher::new();
        let astar = searcher.find_path(grid, *start, *goal, &options).expect("valid");
        let dijkstra = searcher.find_path(grid, *start, *goal, &options.dijkstra()).expect("valid");
        let sliced = time_sliced(grid, ends, &options, budget);
        prop_assert_eq!(&sliced, &astar);
        for (answer, optimal) in [
            (Answer::of_result("A*", &astar), options.is_optimal()),
            (Answer::of_result("Dijkstra", &dijkstra), options.dijkstra().is_optimal()),
        ] {
            check_answer(grid, options.movement, options.cost, ends, &answer, optimal)?;
        }
        for result in [&astar, &dijkstra] {
            prop_assert_eq!(result.partial().is_some(), result.found().is_none());
            prop_assert_ne!(result.status, SearchStatus::LimitReached(Limit::Expansions));
        }
    }

    /// Jump point search, directly and through the engine, on the grid's uniform-cost copy:
    /// its flood ends at the closest reachable cell at the optimal cost, and its waypoints
    /// follow the same path.
    #[test]
    fn jump_point_search_ends_at_the_closest_reachable_cell(
        case in closest_case(),
        cost in prop_oneof![cost_model(), any_cost_model()],
    ) {
        let grid = uniform(&case.grid);
        let ends = (case.start, case.goal);
        let jump_grid = JumpGrid::new(&grid).expect("uniform costs");
        let options = JpsOptions::default().with_cost(cost).with_closest_reachable(true);
        let mut searcher = Searcher::new();
        let outcome = searcher.find_path_jps(&jump_grid, case.start, case.goal, &options);
        if !jps_accepts(cost) {
            prop_assert!(matches!(outcome, Err(SearchError::Unsupported(_))), "{:?}", outcome);
            return Ok(());
        }
        let full = outcome.expect("a valid request");
        check_answer(&grid, Movement::EIGHT, cost, ends, &Answer::of_result("JPS", &full), true)?;
        let waypoints = searcher
            .find_path_jps(&jump_grid, case.start, case.goal, &options.with_full_path(false))
            .expect("valid");
        prop_assert_eq!(waypoints.status, full.status);
        if let (Some(waypoints), Some(full)) = (&waypoints.path, &full.path) {
            check_waypoints(waypoints, full)?;
        }
        let search = SearchOptions::default().with_cost(cost).with_closest_reachable(true);
        let mut engine = Engine::new(&grid, Algorithm::JumpPoint, &search).expect("accepted");
        let engine_result = engine.find_path(case.start, case.goal).expect("valid");
        prop_assert_eq!(&engine_result, &full);
    }

    /// Flow fields: the goal batch, a field's own query (for a walkable goal) and the engine
    /// end at the closest reachable cell at the optimal cost.
    #[test]
    fn flow_fields_end_at_the_closest_reachable_cell(
        case in closest_case(),
        movement in movement(),
        cost in prop_oneof![cost_model(), any_cost_model()],
        others in prop::collection::vec((0u32..10, 0u32..10), 0..4),
    ) {
        let ClosestCase { grid, start, goal } = &case;
        let ends = (*start, *goal);
        let mut starts = vec![*start];
        starts.extend(others.iter().map(|&(x, y)| Cell::new(x, y)));
        let batch = FlowField::closest_paths_to_goal(grid, &starts, *goal, movement, cost)
            .expect("a valid request");
        prop_assert_eq!(batch.len(), starts.len());
        for (&from, reached) in starts.iter().zip(&batch) {
            match reached {
                None => prop_assert!(!grid.is_walkable(from), "no path from walkable {}", from),
                Some(reached) => check_answer(
                    grid, movement, cost, (from, *goal), &Answer::of_reached("batch", reached), true,
                )?,
            }
        }
        if grid.is_walkable(*goal) {
            let field = FlowField::build(grid, &[*goal], movement, cost).expect("valid");
            let own = field.path_or_closest_from(grid, *start).expect("same grid");
            let own = own.ok_or_else(|| TestCaseError::fail("no path from the walkable start"))?;
            check_answer(grid, movement, cost, ends, &Answer::of_reached("field", &own), true)?;
        }
        let options = SearchOptions::default()
            .with_movement(movement)
            .with_cost(cost)
            .with_closest_reachable(true);
        if Algorithm::FlowField.check_options(&options).is_ok() {
            let mut engine = Engine::new(grid, Algorithm::FlowField, &options).expect("accepted");
            let result = engine.find_path(*start, *goal).expect("valid");
            check_answer(grid, movement, cost, ends, &Answer::of_result("engine", &result), true)?;
        }
    }

    /// With a reachable goal the option changes nothing: the same result from A*, Dijkstra,
    /// jump point search and the engine, the same path from the goal batch.
    #[test]
    fn reachable_goals_are_answered_as_without_the_option(
        case in closest_case(),
        options in astar_options(),
    ) {
        let ClosestCase { grid, start, goal } = &case;
        let without = SearchOptions { closest_reachable: false, ..options };
        let reachable = grid.is_walkable(*goal)
            && ReferenceGraph::new(grid, options.movement, options.cost).reachable(*start, *goal);
        prop_assume!(reachable);
        let mut searcher = Searcher::new();
        for (with, plain) in [(options, without), (options.dijkstra(), without.dijkstra())] {
            let answered = searcher.find_path(grid, *start, *goal, &with).expect("valid");
            prop_assert_eq!(answered, searcher.find_path(grid, *start, *goal, &plain).expect("valid"));
        }
        let flat = uniform(grid);
        let jump_grid = JumpGrid::new(&flat).expect("uniform costs");
        // Jump point search's own movement rule, under which the goal is reachable too.
        if options.movement == Movement::EIGHT && jps_accepts(options.cost) {
            let jps = JpsOptions::default().with_cost(options.cost);
            let answered = searcher
                .find_path_jps(&jump_grid, *start, *goal, &jps.with_closest_reachable(true))
                .expect("valid");
            prop_assert_eq!(answered, searcher.find_path_jps(&jump_grid, *start, *goal, &jps).expect("valid"));
        }
        for algorithm in Algorithm::ALL {
            let target = if algorithm == Algorithm::JumpPoint { &flat } else { grid };
            let (Ok(mut with), Ok(mut plain)) = (
                Engine::new(target, algorithm, &options),
                Engine::new(target, algorithm, &without),
            ) else {
                continue;
            };
            prop_assert_eq!(with.find_path(*start, *goal), plain.find_path(*start, *goal), "{}", algorithm);
        }
        let batch = FlowField::closest_paths_to_goal(grid, &[*start], *goal, options.movement, options.cost)
            .expect("valid");
        let plain = FlowField::paths_to_goal(grid, &[*start], *goal, options.movement, options.cost)
            .expect("valid");
        prop_assert_eq!(batch[0].clone(), plain[0].clone().map(ReachedPath::Goal));
    }

    /// Under an expansion limit a partial path ends at the expanded cell the documented rule
    /// picks (by the search's own costs); a search that ends before the limit answers as
    /// without it. Dijkstra's expanded cells carry their optimal costs.
    #[test]
    fn expansion_limits_keep_partial_paths_at_the_closest_expanded_cell(
        case in closest_case(),
        options in astar_options(),
        limit in 0u32..60,
        dijkstra in any::<bool>(),
    ) {
        let ClosestCase { grid, start, goal } = &case;
        let options = if dijkstra { options.dijkstra() } else { options };
        let limited = options.with_max_expansions(limit).with_partial_path(true).with_trace(true);
        let result = Searcher::new().find_path(grid, *start, *goal, &limited).expect("valid");
        let unlimited = Searcher::new().find_path(grid, *start, *goal, &options).expect("valid");
        if result.status != SearchStatus::LimitReached(Limit::Expansions) {
            prop_assert_eq!(&result.status, &unlimited.status);
            prop_assert_eq!(&result.path, &unlimited.path);
            return Ok(());
        }
        let path = result.partial().ok_or_else(|| TestCaseError::fail("no partial path"))?;
        let end = path.end().ok_or_else(|| TestCaseError::fail("empty path"))?;
        check_path(grid, path, *start, end, options.movement, options.cost).map_err(TestCaseError::fail)?;
        let trace = result.trace.as_ref().ok_or_else(|| TestCaseError::fail("no trace"))?;
        let expanded = trace.expansions.iter().filter_map(|&cell| trace.get(cell).map(|traced| (cell, traced.g)));
        let closest = closest_by_rule(options.movement.neighborhood, *goal, expanded).map_or(*start, |(cell, _)| cell);
        prop_assert_eq!(end, closest);
        if options.is_optimal() {
            let optimum = ReferenceGraph::new(grid, options.movement, options.cost).cost(*start, end);
            prop_assert!(optimum.is_some_and(|optimum| costs_match(optimum, path.cost)), "{} vs {:?}", path.cost, optimum);
        }
    }

    /// Inside a window the closest cell is the closest one the window lets the search reach,
    /// with or without partial paths.
    #[test]
    fn windows_bound_the_closest_reachable_cell(
        (case, window) in closest_case().prop_flat_map(|case| {
            let start = case.start;
            (Just(case), window_around(start, 4))
        }),
        options in astar_options(),
        partial in any::<bool>(),
    ) {
        let ClosestCase { grid, start, goal } = &case;
        let windowed = options.with_window(window).with_partial_path(partial);
        let result = Searcher::new().find_path(grid, *start, *goal, &windowed).expect("valid");
        let inside = Grid::from_fn(grid.width(), grid.height(), |cell| {
            if window.contains(cell) { grid.value(cell) } else { 0 }
        });
        if let Some(path) = &result.path {
            check_inside_window(path, window).map_err(TestCaseError::fail)?;
        }
        let unit = SearchOptions { window: None, ..options }.is_optimal();
        check_answer(&inside, options.movement, options.cost, (*start, *goal), &Answer::of_result("windowed", &result), unit)?;
    }
}

/// A blocked goal is refused by every algorithm without the option and searched with it.
#[test]
fn blocked_goals_are_refused_without_the_option_and_searched_with_it() {
    let grid = Grid::from_ascii(
        "......
         ......
         ...#..",
    )
    .expect("valid ascii");
    let (start, goal) = (Cell::new(0, 2), Cell::new(3, 2));
    let plain = SearchOptions::default();
    for algorithm in Algorithm::OPTIMAL {
        let mut engine = Engine::new(&grid, algorithm, &plain).expect("accepted");
        assert_eq!(
            engine.find_path(start, goal),
            Err(SearchError::GoalBlocked(goal)),
            "{algorithm}"
        );
        let mut engine =
            Engine::new(&grid, algorithm, &plain.with_closest_reachable(true)).expect("accepted");
        let result = engine.find_path(start, goal).expect("searched");
        assert_eq!(result.status, SearchStatus::NoPath, "{algorithm}");
        // (2, 2), (4, 2) and (3, 1) are one cell away; (2, 2) is the cheapest to reach.
        let path = result.partial().expect("the closest reachable cell");
        assert_eq!(
            path.cells,
            [start, Cell::new(1, 2), Cell::new(2, 2)],
            "{algorithm}"
        );
        assert_eq!(path.cost, 2.0, "{algorithm}");
    }
    assert_eq!(
        FlowField::paths_to_goal(&grid, &[start], goal, Movement::EIGHT, CostModel::Octile),
        Err(astar_grid::FlowFieldError::GoalBlocked(goal))
    );
}

/// Equally close cells: the cheaper one wins, and among equally cheap ones the smaller
/// `(y, x)`.
#[test]
fn ties_break_by_cost_then_by_row_and_column() {
    // The goal (2, 1) and the cell beside it are blocked. (2, 0) and (2, 2) are one cell from
    // the goal, and both cost 3 from the start (0, 1): no diagonal past the wall's corner.
    let grid = Grid::from_ascii(
        "...
         .##
         ...",
    )
    .expect("valid ascii");
    let (start, goal) = (Cell::new(0, 1), Cell::new(2, 1));
    let options = SearchOptions::default().with_closest_reachable(true);
    let mut searcher = Searcher::new();
    let even = searcher
        .find_path(&grid, start, goal, &options)
        .expect("valid");
    // As close and as cheap: the smaller row wins.
    assert_eq!(even.partial().and_then(Path::end), Some(Cell::new(2, 0)));
    let mut dearer_top = grid.clone();
    dearer_top
        .set_cost(Cell::new(2, 0), 3)
        .expect("inside the grid");
    // Dearer terrain on top: the cheaper cell wins.
    let uneven = searcher
        .find_path(&dearer_top, start, goal, &options)
        .expect("valid");
    assert_eq!(uneven.partial().and_then(Path::end), Some(Cell::new(2, 2)));
}

/// An expansion limit still stops a closest-reachable search, with a path only when partial
/// paths are asked for.
#[test]
fn an_expansion_limit_gives_a_path_only_with_partial_paths() {
    let grid = Grid::from_ascii(
        ".....#..
         .....#..
         .....#..",
    )
    .expect("valid ascii");
    let (start, goal) = (Cell::new(0, 1), Cell::new(7, 1));
    let options = SearchOptions::default()
        .with_closest_reachable(true)
        .with_max_expansions(3);
    let mut searcher = Searcher::new();
    let stopped = searcher
        .find_path(&grid, start, goal, &options)
        .expect("valid");
    assert_eq!(
        stopped.status,
        SearchStatus::LimitReached(Limit::Expansions)
    );
    assert_eq!(stopped.path, None);
    let partial = searcher
        .find_path(&grid, start, goal, &options.with_partial_path(true))
        .expect("valid");
    assert_eq!(
        partial.status,
        SearchStatus::LimitReached(Limit::Expansions)
    );
    assert!(partial.partial().is_some());
    let unlimited = searcher
        .find_path(
            &grid,
            start,
            goal,
            &SearchOptions::default().with_closest_reachable(true),
        )
        .expect("valid");
    assert_eq!(
        unlimited.partial().and_then(Path::end),
        Some(Cell::new(4, 1))
    );
}

/// A window keeps its status; the closest cell is the one inside it.
#[test]
fn a_window_keeps_its_status_and_bounds_the_closest_cell() {
    let grid = Grid::new(12, 3);
    let (start, goal) = (Cell::new(1, 1), Cell::new(11, 1));
    let window = SearchWindow::new(Cell::new(0, 0), Cell::new(5, 2));
    let options = SearchOptions::default()
        .with_window(window)
        .with_closest_reachable(true);
    let result = Searcher::new()
        .find_path(&grid, start, goal, &options)
        .expect("valid");
    assert_eq!(result.status, SearchStatus::LimitReached(Limit::Window));
    assert_eq!(result.partial().and_then(Path::end), Some(Cell::new(5, 1)));
}
