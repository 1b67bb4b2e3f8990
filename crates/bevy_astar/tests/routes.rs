//! Every request option through every route a request can take (a fresh search, a cache hit, a
//! goal batch, the repair of a cut path, a search again after a cut): whichever route serves a
//! request, it gets the answer a fresh request on the same grid gets.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::*;

/// The options every route is tried with: the defaults, each cost model (diagonals cheaper than
/// straight steps included), four neighbours, each corner rule, the closest reachable cell, and
/// a partial path under an expansion limit.
fn option_sets() -> Vec<(&'static str, SearchOptions)> {
    let base = SearchOptions::default();
    vec![
        ("default", base),
        ("integer 10/14", base.with_cost(CostModel::INTEGER_10_14)),
        (
            "diagonal cheaper than straight",
            base.with_cost(CostModel::Integer {
                straight: 10,
                diagonal: 7,
            }),
        ),
        (
            "four neighbours",
            base.with_neighborhood(Neighborhood::Four),
        ),
        (
            "corner rule any",
            base.with_movement(Movement::eight(CornerRule::Any)),
        ),
        (
            "corner rule one",
            base.with_movement(Movement::eight(CornerRule::One)),
        ),
        ("closest reachable", base.with_closest_reachable(true)),
        (
            "closest reachable, four neighbours",
            base.with_closest_reachable(true)
                .with_neighborhood(Neighborhood::Four),
        ),
        (
            "partial path at a limit",
            base.with_max_expansions(6).with_partial_path(true),
        ),
        (
            "partial path at a limit a detour reaches",
            base.with_max_expansions(12).with_partial_path(true),
        ),
        ("weighted", base.with_weight(2.0)),
    ]
}

const START: Cell = Cell::new(0, 2);
const GOAL: Cell = Cell::new(6, 2);

/// A 7 x 5 open grid.
fn open_grid() -> Grid {
    Grid::new(7, 5)
}

/// What two answers must share: the status, and for a path that ends short of the goal (which a
/// full search always gives) the cells and cost; a found path must reach the goal legally at the
/// fresh request's cost (the optimal one for optimal options), unless `spliced` (a repair may
/// keep a dearer detour), when it must be legal.
fn assert_same_answer(
    label: &str,
    route: &str,
    grid: &Grid,
    request: &PathRequest,
    (got, fresh): (&Path, &Path),
    spliced: bool,
) {
    let context = format!("{label}, {route}: {got:?} against a fresh request's {fresh:?}");
    assert_eq!(got.status, fresh.status, "{context}");
    match got.status {
        PathStatus::Found if spliced => {
            assert_eq!(got.cells().first(), Some(&request.start), "{context}");
            assert_eq!(got.cells().last(), Some(&request.goal), "{context}");
            assert!(
                illegal_walk(grid, &got.cells(), request.options.movement).is_none(),
                "{context}"
            );
        }
        PathStatus::Found => {
            assert!(
                path_check::costs_match(got.cost(), fresh.cost()),
                "{context}"
            );
            if request.options.is_optimal() {
                assert_legal_and_optimal(grid, got, request);
            } else {
                let walk = illegal_walk(grid, &got.cells(), request.options.movement);
                assert!(walk.is_none(), "{context}: {walk:?}");
            }
        }
        _ => {
            assert_eq!(got.cells(), fresh.cells(), "{context}");
            assert!(
                path_check::costs_match(got.cost(), fresh.cost()),
                "{context}"
            );
        }
    }
}

/// The answer a fresh request gets on `grid`, in an app of its own.
fn fresh_answer(grid: &Grid, request: PathRequest) -> Path {
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    path(&app, agent)
}

/// A column of walls at x = 3, with a gap at row 0 while `gap` is true.
fn wall_column(app: &mut App, gap: bool) {
    for y in 0..5 {
        if !(gap && y == 0) {
            block(app, Cell::new(3, y));
        }
    }
}

/// A path cut by a wall with a gap, then cut off from the goal, searched again by `route`
/// (repair on or off): each answer is a fresh request's.
fn cut_routes(repair: bool) {
    let route = if repair { "repair" } else { "search again" };
    for (label, options) in option_sets() {
        let request = PathRequest::new(START, GOAL).with_options(options);
        let mut app = app_with_grid(AStarPlugin::default().with_path_repair(repair), open_grid());
        let agent = spawn(&mut app, request);
        settle(&mut app, &[agent]);
        let first = path(&app, agent);
        assert_same_answer(
            label,
            "fresh search",
            &open_grid(),
            &request,
            (&first, &fresh_answer(&open_grid(), request)),
            false,
        );
        for gap in [true, false] {
            wall_column(&mut app, gap);
            settle(&mut app, &[agent]);
            let grid = current_grid(&app);
            let got = path(&app, agent);
            let fresh = fresh_answer(&grid, request);
            let phase = if gap { "cut" } else { "cut off" };
            assert_same_answer(
                label,
                &format!("{route} after the path was {phase}"),
                &grid,
                &request,
                (&got, &fresh),
                repair,
            );
        }
        // A found path the first wall cut was repaired, unless the request limits its search.
        let repaired = stats(&app).paths_repaired > 0;
        let expected = repair && first.is_found() && options.max_expansions.is_none();
        assert_eq!(repaired, expected, "{label}: {:?}", stats(&app));
    }
}

#[test]
fn a_repaired_path_is_the_answer_a_fresh_request_gets_under_every_option() {
    cut_routes(true);
}

#[test]
fn a_path_searched_again_after_a_cut_is_the_answer_a_fresh_request_gets_under_every_option() {
    cut_routes(false);
}

#[test]
fn a_cut_closest_reachable_path_ends_at_the_closest_reachable_cell() {
    let request = PathRequest::new(Cell::new(0, 1), Cell::new(4, 1));
    let request = request.with_options(request.options.with_closest_reachable(true));
    let plugin = AStarPlugin::default().with_path_repair(true);
    let mut app = app_with_grid(plugin, Grid::new(5, 3));
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).status, PathStatus::Found);
    for y in 0..3 {
        block(&mut app, Cell::new(2, y));
    }
    settle(&mut app, &[agent]);
    let cut = path(&app, agent);
    assert_eq!(cut.status, PathStatus::NoPath);
    assert_eq!(&cut.cells()[..], [Cell::new(0, 1), Cell::new(1, 1)]);
}

#[test]
fn a_cache_hit_is_the_answer_a_fresh_request_gets_under_every_option() {
    for (label, options) in option_sets() {
        let request = PathRequest::new(START, GOAL).with_options(options);
        let mut grid = open_grid();
        for y in 1..5 {
            grid.set_blocked(Cell::new(3, y), true).expect("inside");
        }
        let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
        let first = spawn(&mut app, request);
        settle(&mut app, &[first]);
        let hits = stats(&app).cache_hits;
        let second = spawn(&mut app, request);
        settle(&mut app, &[second]);
        assert_eq!(
            stats(&app).cache_hits,
            hits + 1,
            "{label}: served from the cache"
        );
        let got = path(&app, second);
        let fresh = fresh_answer(&grid, request);
        assert_same_answer(label, "cache hit", &grid, &request, (&got, &fresh), false);
    }
}

#[test]
fn a_goal_batch_answers_as_fresh_requests_under_every_option() {
    let starts = [
        Cell::new(0, 0),
        Cell::new(0, 2),
        Cell::new(0, 4),
        Cell::new(1, 4),
    ];
    let mut grid = open_grid();
    for y in 1..4 {
        grid.set_blocked(Cell::new(3, y), true).expect("inside");
    }
    for (label, options) in option_sets() {
        let plugin = AStarPlugin::default().with_goal_batch_min(2);
        let mut app = app_with_grid(plugin, grid.clone());
        let requests: Vec<PathRequest> = starts
            .iter()
            .map(|&start| PathRequest::new(start, GOAL).with_options(options))
            .collect();
        let agents: Vec<Entity> = spawn_all(&mut app, &requests);
        settle(&mut app, &agents);
        // Goal batches answer requests whose own search would give an optimal path or none.
        let batchable = options.is_optimal()
            && options.max_expansions.is_none()
            && !options.closest_reachable
            && !options.partial_path;
        assert_eq!(stats(&app).goal_batches > 0, batchable, "{label}");
        for (&agent, request) in agents.iter().zip(&requests) {
            let got = path(&app, agent);
            let fresh = fresh_answer(&grid, *request);
            assert_same_answer(label, "goal batch", &grid, request, (&got, &fresh), false);
        }
    }
}

#[test]
fn a_request_identical_to_one_being_repaired_gets_a_fresh_answer_not_the_splice() {
    let request = PathRequest::new(Cell::new(0, 3), Cell::new(19, 3));
    let plugin = AStarPlugin::default().with_path_repair(true);
    let mut app = app_with_grid(plugin, Grid::new(20, 7));
    let cut = spawn(&mut app, request);
    settle(&mut app, &[cut]);
    // A wall across the straight path, open only at its top: the splice climbs round it from
    // the row the path keeps, dearer than the cheapest path, which heads for the gap at once.
    for y in 1..7 {
        block(&mut app, Cell::new(10, y));
    }
    let fresh = spawn(&mut app, request);
    settle(&mut app, &[cut, fresh]);
    assert_eq!(stats(&app).paths_repaired, 1);
    let grid = current_grid(&app);
    let spliced = path(&app, cut);
    let optimal = reference_cost(&grid, &request).expect("reachable");
    assert!(
        spliced.cost() > optimal + 1.0,
        "the splice is dearer: {spliced:?}"
    );
    assert_legal_and_optimal(&grid, &path(&app, fresh), &request);
}
