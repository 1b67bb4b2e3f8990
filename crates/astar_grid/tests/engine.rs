//! The algorithm switch: every [`Algorithm`] run through an [`Engine`] checked against an
//! independent reference Dijkstra on random grids, for every movement rule and cost model, with
//! the refusals of algorithms that cannot honour the options or the grid, and the names the
//! algorithms go by.

pub mod common;

use astar_grid::{
    Algorithm, Cell, CornerRule, CostModel, Engine, Grid, Heuristic, Movement, ParseAlgorithmError,
    SearchError, SearchOptions, SearchStatus, SearchWindow,
};
use common::path_check::{check_path, costs_match};
use common::random_grid::{COST_MODELS, GridQuery, MOVEMENTS, grid_query};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;
use std::error::Error;

/// Whether jump point search can run with `movement` and `cost` on `grid`, from its documented
/// limits: eight neighbours without corner cutting, a diagonal between one and two straight
/// steps, no terrain costs.
fn jump_points_apply(grid: &Grid, movement: Movement, cost: CostModel) -> bool {
    let (straight, diagonal) = match cost {
        CostModel::Octile => (1.0, 2f64.sqrt()),
        CostModel::Integer { straight, diagonal } => (f64::from(straight), f64::from(diagonal)),
    };
    let uniform = grid.cells().all(|(_, value)| value <= 1);
    movement == Movement::EIGHT && diagonal >= straight && diagonal <= 2.0 * straight && uniform
}

/// Runs `query` with every algorithm under `movement` and `cost` (the default heuristic, which
/// is admissible for each of them) and checks each answer against the reference optimum.
fn check_every_algorithm(
    query: &GridQuery,
    movement: Movement,
    cost: CostModel,
) -> Result<(), String> {
    let options = SearchOptions::default()
        .with_movement(movement)
        .with_cost(cost);
    let optimum = ReferenceGraph::new(&query.grid, movement, cost).cost(query.start, query.goal);
    for algorithm in Algorithm::OPTIMAL {
        let context = format!("{algorithm} {movement:?} {cost:?}");
        let engine = Engine::new(&query.grid, algorithm, &options);
        let mut engine = match (algorithm, engine) {
            (Algorithm::JumpPoint, Err(SearchError::Unsupported(_)))
                if !jump_points_apply(&query.grid, movement, cost) =>
            {
                continue;
            }
            (_, Err(error)) => return Err(format!("{context}: refused: {error}")),
            (Algorithm::JumpPoint, Ok(_)) if !jump_points_apply(&query.grid, movement, cost) => {
                return Err(format!("{context}: accepted outside its limits"));
            }
            (_, Ok(engine)) => engine,
        };
        let result = engine
            .find_path(query.start, query.goal)
            .map_err(|error| format!("{context}: {error}"))?;
        match (optimum, result.status, &result.path) {
            (None, SearchStatus::NoPath, None) => {}
            (Some(optimum), SearchStatus::Found, Some(path)) => {
                if !costs_match(path.cost, optimum) {
                    return Err(format!(
                        "{context}: cost {} != optimum {optimum}",
                        path.cost
                    ));
                }
                check_path(&query.grid, path, query.start, query.goal, movement, cost)
                    .map_err(|error| format!("{context}: {error}"))?;
            }
            (optimum, status, path) => {
                return Err(format!(
                    "{context}: optimum {optimum:?} but {status:?} with {:?}",
                    path.as_ref().map(|path| path.cost)
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_algorithm_finds_the_reference_optimum(query in grid_query(14)) {
        for movement in MOVEMENTS {
            for cost in COST_MODELS {
                prop_assert_eq!(check_every_algorithm(&query, movement, cost), Ok(()));
            }
        }
    }
}

#[test]
fn a_flow_field_is_reused_for_the_same_goal_and_rebuilt_for_another() -> Result<(), SearchError> {
    let mut grid = Grid::new(20, 10);
    grid.fill_rect(Cell::new(10, 0), Cell::new(10, 8), 0);
    let mut engine = Engine::new(&grid, Algorithm::FlowField, &SearchOptions::default())?;
    let goal = Cell::new(19, 0);
    let first = engine.find_path(Cell::new(0, 0), goal)?;
    let reachable = grid.cells().filter(|&(_, value)| value != 0).count();
    assert_eq!(first.stats.expanded as usize, reachable);
    let second = engine.find_path(Cell::new(0, 9), goal)?;
    assert_eq!(
        second.stats.expanded, 0,
        "the same goal reads the same field"
    );
    let reference = ReferenceGraph::new(&grid, Movement::EIGHT, CostModel::Octile);
    for (result, start) in [(&first, Cell::new(0, 0)), (&second, Cell::new(0, 9))] {
        let cost = result.cost().expect("reachable");
        assert!(costs_match(
            cost,
            reference.cost(start, goal).expect("reachable")
        ));
    }
    let (start, other_goal) = (Cell::new(0, 0), Cell::new(5, 5));
    let elsewhere = engine.find_path(start, other_goal)?;
    assert!(elsewhere.stats.expanded > 0, "a new goal builds its field");
    let cost = elsewhere.cost().expect("reachable");
    assert!(costs_match(
        cost,
        reference.cost(start, other_goal).expect("reachable")
    ));
    Ok(())
}

#[test]
fn a_query_is_checked_before_any_algorithm_runs() -> Result<(), SearchError> {
    let mut grid = Grid::new(6, 6);
    grid.fill_rect(Cell::new(2, 2), Cell::new(2, 2), 0);
    for algorithm in Algorithm::ALL {
        let mut engine = Engine::new(&grid, algorithm, &SearchOptions::default())?;
        let inside = Cell::new(0, 0);
        assert_eq!(
            engine.find_path(inside, Cell::new(6, 0)),
            Err(SearchError::GoalOutOfBounds(Cell::new(6, 0))),
            "{algorithm}"
        );
        assert_eq!(
            engine.find_path(Cell::new(2, 2), inside),
            Err(SearchError::StartBlocked(Cell::new(2, 2))),
            "{algorithm}"
        );
        assert_eq!(
            engine.find_path(inside, Cell::new(2, 2)),
            Err(SearchError::GoalBlocked(Cell::new(2, 2))),
            "{algorithm}"
        );
        let empty = Grid::new(0, 0);
        let mut engine = Engine::new(&empty, algorithm, &SearchOptions::default())?;
        assert_eq!(
            engine.find_path(inside, inside),
            Err(SearchError::EmptyGrid),
            "{algorithm}"
        );
    }
    Ok(())
}

/// Options each algorithm refuses, and which accept them.
#[test]
fn algorithms_refuse_the_options_they_cannot_honour() {
    let default = SearchOptions::default();
    let window = SearchWindow::new(Cell::new(0, 0), Cell::new(3, 3));
    let honoured_by_astar_only = [
        default.with_weight(2.0),
        default.with_dynamic_weight(0.5),
        default.with_window(window),
        default.with_partial_path(true),
        default.with_trace(true),
        // Manhattan overestimates diagonal moves under eight neighbours.
        default.with_heuristic(Heuristic::Manhattan),
    ];
    for options in honoured_by_astar_only {
        assert_eq!(
            Algorithm::AStar.check_options(&options),
            Ok(()),
            "{options:?}"
        );
        assert_eq!(
            Algorithm::Dijkstra.check_options(&options),
            Ok(()),
            "{options:?}"
        );
        for algorithm in [Algorithm::JumpPoint, Algorithm::FlowField] {
            assert!(
                matches!(
                    algorithm.check_options(&options),
                    Err(SearchError::Unsupported(_))
                ),
                "{algorithm} {options:?}"
            );
        }
    }
    // Jump point search counts expansions as A* does; a flow field settles the whole grid.
    let limited = default.with_max_expansions(10);
    assert_eq!(Algorithm::JumpPoint.check_options(&limited), Ok(()));
    assert!(matches!(
        Algorithm::FlowField.check_options(&limited),
        Err(SearchError::Unsupported(_))
    ));
    // Movements and cheap diagonals: flow fields follow every rule, jump points one.
    for movement in MOVEMENTS {
        let options = default.with_movement(movement);
        assert_eq!(Algorithm::FlowField.check_options(&options), Ok(()));
        assert_eq!(
            Algorithm::JumpPoint.check_options(&options).is_ok(),
            movement == Movement::EIGHT
        );
    }
    let cheap_diagonal = default.with_cost(CostModel::Integer {
        straight: 10,
        diagonal: 5,
    });
    assert_eq!(Algorithm::FlowField.check_options(&cheap_diagonal), Ok(()));
    assert!(Algorithm::JumpPoint.check_options(&cheap_diagonal).is_err());
    // Values no search accepts are refused by every algorithm, with the same error.
    let zero_cost = default.with_cost(CostModel::Integer {
        straight: 0,
        diagonal: 14,
    });
    for algorithm in Algorithm::ALL {
        assert_eq!(
            algorithm.check_options(&zero_cost),
            Err(SearchError::InvalidCostModel)
        );
        assert_eq!(
            algorithm.check_options(&default.with_weight(0.5)),
            Err(SearchError::InvalidWeight(0.5))
        );
    }
}

#[test]
fn dijkstra_runs_with_the_zero_heuristic_whatever_the_options_name() -> Result<(), SearchError> {
    let grid = Grid::new(30, 30);
    let options = SearchOptions::default().with_heuristic(Heuristic::Euclidean);
    let engine = Engine::new(&grid, Algorithm::Dijkstra, &options)?;
    assert_eq!(engine.options().resolved_heuristic(), Heuristic::Zero);
    let (start, goal) = (Cell::new(0, 0), Cell::new(29, 0));
    let mut dijkstra = engine;
    let mut astar = Engine::new(&grid, Algorithm::AStar, &options)?;
    let (slow, fast) = (
        dijkstra.find_path(start, goal)?,
        astar.find_path(start, goal)?,
    );
    assert_eq!(slow.cost(), fast.cost());
    assert!(slow.stats.expanded > fast.stats.expanded);
    Ok(())
}

#[test]
fn jump_point_engines_give_full_paths_and_share_their_memory() -> Result<(), Box<dyn Error>> {
    let grid = Grid::from_ascii(
        "........
         .######.
         ........",
    )?;
    let mut engine = Engine::new(&grid, Algorithm::JumpPoint, &SearchOptions::default())?;
    let (start, goal) = (Cell::new(0, 1), Cell::new(7, 1));
    let jump = engine.find_path(start, goal)?;
    let astar = engine
        .searcher_mut()
        .find_path(&grid, start, goal, &SearchOptions::default())?;
    assert_eq!(jump.path.as_ref().map(|path| path.cells.len()), Some(10));
    assert_eq!(jump.cost(), astar.cost());
    assert_eq!(engine.algorithm(), Algorithm::JumpPoint);
    assert!(std::ptr::eq(engine.grid(), &grid));
    assert!(engine.searcher_mut().jps_memory_bytes() > 0);
    Ok(())
}

#[test]
fn names_round_trip_and_unknown_names_are_refused_with_the_name() {
    let names: Vec<String> = Algorithm::ALL.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["astar", "dijkstra", "jps", "flow", "hier"]);
    for algorithm in Algorithm::ALL {
        assert_eq!(algorithm.name().parse(), Ok(algorithm));
    }
    assert_eq!(Algorithm::default(), Algorithm::AStar);
    for unknown in ["", "AStar", "a*", "jps ", "bfs"] {
        let error = unknown.parse::<Algorithm>().expect_err(unknown);
        assert_eq!(error.name, unknown);
        assert!(
            error
                .to_string()
                .contains("astar, dijkstra, jps, flow or hier")
        );
    }
    let long = "x".repeat(10_000);
    let error: ParseAlgorithmError = long.parse::<Algorithm>().expect_err("unknown");
    assert_eq!(error.name.len(), ParseAlgorithmError::SHOWN_CHARS);
}

#[test]
fn corner_cutting_engines_follow_their_rule() -> Result<(), Box<dyn Error>> {
    // Two walls touching diagonally: only CornerRule::Any slips between them.
    let grid = Grid::from_ascii(
        ".#
         #.",
    )?;
    let (start, goal) = (Cell::new(0, 0), Cell::new(1, 1));
    for algorithm in [Algorithm::AStar, Algorithm::Dijkstra, Algorithm::FlowField] {
        for (corners, found) in [
            (CornerRule::Both, false),
            (CornerRule::One, false),
            (CornerRule::Any, true),
        ] {
            let options = SearchOptions::default().with_movement(Movement::eight(corners));
            let result = Engine::new(&grid, algorithm, &options)?.find_path(start, goal)?;
            assert_eq!(result.found().is_some(), found, "{algorithm} {corners:?}");
        }
    }
    Ok(())
}
