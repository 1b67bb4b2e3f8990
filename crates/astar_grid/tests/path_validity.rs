//! Every path a search returns, full or partial, is a legal walk whose cost adds up, and every
//! status agrees with an independent search of the same grid (restricted to the window, if any).

pub mod common;

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Limit, Movement, SearchOptions, SearchStatus, Searcher,
    Weighting,
};
use common::closest_cell::closest_by_rule;
use common::path_check::{COST_TOLERANCE, check_inside_window, check_path, costs_match};
use common::random_grid::{GridQuery, grid_query, search_options};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;

/// `grid` with every cell outside the search window blocked: what a windowed search may use.
fn restricted_to_window(grid: &Grid, options: &SearchOptions) -> Grid {
    match options.window {
        None => grid.clone(),
        Some(window) => Grid::from_fn(grid.width(), grid.height(), |cell| {
            if window.contains(cell) {
                grid.value(cell)
            } else {
                0
            }
        }),
    }
}

/// Whether the window leaves out some cell of the grid.
fn window_clips(grid: &Grid, options: &SearchOptions) -> bool {
    options
        .window
        .is_some_and(|window| grid.cells().any(|(cell, _)| !window.contains(cell)))
}

fn query_with_options() -> impl Strategy<Value = (GridQuery, SearchOptions)> {
    grid_query(20).prop_flat_map(|query| {
        let start = query.start;
        (Just(query), search_options(start))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// Under any valid options (weights, windows, expansion limits, partial paths, traces) the
    /// status is explained by the reference search and every returned path is legal.
    #[test]
    fn statuses_and_paths_agree_with_the_reference((query, options) in query_with_options()) {
        let GridQuery { grid, start, goal } = &query;
        let result = Searcher::new()
            .find_path(grid, *start, *goal, &options)
            .expect("a valid request");
        let usable = restricted_to_window(grid, &options);
        let optimum = ReferenceGraph::new(&usable, options.movement, options.cost).cost(*start, *goal);
        let limit = options.max_expansions.unwrap_or(u32::MAX);
        prop_assert!(result.stats.expanded <= limit);
        prop_assert!(result.stats.expanded <= result.stats.pushed);
        prop_assert_eq!(result.trace.is_some(), options.trace);
        match result.status {
            SearchStatus::Found => {
                let optimum = optimum.ok_or_else(|| TestCaseError::fail("found an unreachable goal"))?;
                let path = result.path.as_ref().ok_or_else(|| TestCaseError::fail("found without a path"))?;
                check_path(grid, path, *start, *goal, options.movement, options.cost)
                    .map_err(TestCaseError::fail)?;
                // A window only removes cells: within it the search is as optimal as without.
                if (SearchOptions { window: None, ..options }).is_optimal() {
                    prop_assert!(costs_match(path.cost, optimum), "cost {} vs optimum {}", path.cost, optimum);
                }
                if let Weighting::Static(weight) = options.weighting
                    && options.resolved_heuristic().is_admissible(options.movement.neighborhood, options.cost)
                {
                    prop_assert!(path.cost <= weight * optimum + COST_TOLERANCE * optimum.max(1.0));
                }
            }
            SearchStatus::NoPath => {
                prop_assert!(optimum.is_none(), "no path, but the reference finds one");
                prop_assert!(!window_clips(grid, &options), "no path claimed from a clipped window");
                prop_assert!(result.path.is_none());
            }
            SearchStatus::LimitReached(Limit::Window) => {
                prop_assert!(window_clips(grid, &options));
                prop_assert!(optimum.is_none(), "the window holds a path, yet the search gave up");
            }
            SearchStatus::LimitReached(Limit::Expansions) => {
                prop_assert_eq!(Some(result.stats.expanded), options.max_expansions);
            }
        }
        if let SearchStatus::LimitReached(_) = result.status {
            prop_assert_eq!(result.path.is_some(), options.partial_path);
            if let Some(path) = &result.path {
                let end = path.end().ok_or_else(|| TestCaseError::fail("empty partial path"))?;
                check_path(grid, path, *start, end, options.movement, options.cost)
                    .map_err(TestCaseError::fail)?;
                if let Some(trace) = &result.trace {
                    // The end is the expanded cell closest to the goal by the documented rule
                    // (distance in cells, then cost from the start, then (y, x)); before the
                    // first expansion that can only be the start.
                    let expanded = trace.expansions.iter().filter_map(|&cell| trace.get(cell).map(|traced| (cell, traced.g)));
                    match closest_by_rule(options.movement.neighborhood, *goal, expanded) {
                        None => prop_assert_eq!(end, *start),
                        Some((closest, _)) => prop_assert_eq!(end, closest),
                    }
                }
            }
        }
        if let (Some(path), Some(window)) = (&result.path, options.window) {
            check_inside_window(path, window).map_err(TestCaseError::fail)?;
        }
    }
}

/// Each corner rule on the two classic diagonal situations: a gap between two diagonal walls,
/// and a single wall beside the diagonal. Expected costs follow from the rules' definitions.
#[test]
fn corner_rules_decide_diagonals_past_walls() {
    let squeeze = Grid::from_ascii(
        ".#
         #.",
    )
    .expect("valid ascii");
    let one_wall = Grid::from_ascii(
        "..
         #.",
    )
    .expect("valid ascii");
    let diagonal = 2f64.sqrt();
    let cases = [
        (&squeeze, CornerRule::Both, None),
        (&squeeze, CornerRule::One, None),
        (&squeeze, CornerRule::Any, Some(diagonal)),
        (&one_wall, CornerRule::Both, Some(2.0)),
        (&one_wall, CornerRule::One, Some(diagonal)),
        (&one_wall, CornerRule::Any, Some(diagonal)),
    ];
    let (start, goal) = (Cell::new(0, 0), Cell::new(1, 1));
    for (grid, corners, expected) in cases {
        let movement = Movement::eight(corners);
        let options = SearchOptions::default().with_movement(movement);
        let result = Searcher::new()
            .find_path(grid, start, goal, &options)
            .expect("a valid request");
        assert_eq!(result.cost(), expected, "{corners:?} on\n{grid:?}");
        if let Some(path) = result.found() {
            check_path(grid, path, start, goal, movement, CostModel::Octile)
                .unwrap_or_else(|problem| panic!("{problem}"));
        }
    }
}
