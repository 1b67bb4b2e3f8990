//! Arbitrary requests to the search API: no panics, and the typed search error that the request
//! deserves. The parsers' share is in `fuzz.rs`.

pub mod common;

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Heuristic, Movement, SearchError, SearchOptions,
    SearchStatus, SearchWindow, Searcher, Step, Weighting,
};
use common::path_check::{check_inside_window, check_path, same_error};
use common::random_grid::options_from;
use proptest::prelude::*;

/// A search request with anything in it: possibly empty grids, cells outside the grid, weights
/// that are NaN, below 1 or huge, zero step costs, windows that miss the start or are inverted.
#[derive(Clone, Debug)]
struct WildRequest {
    grid: Grid,
    start: Cell,
    goal: Cell,
    options: SearchOptions,
}

fn wild_weight() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![
        f64::NAN,
        f64::NEG_INFINITY,
        -1.0,
        0.0,
        0.5,
        1.0,
        1.5,
        4.0,
        1e300,
        f64::MAX,
        f64::INFINITY,
    ])
}

fn wild_request() -> impl Strategy<Value = WildRequest> {
    let grid = (0u32..6, 0u32..6).prop_flat_map(|(width, height)| {
        prop::collection::vec(
            prop_oneof![Just(0u8), Just(1u8), any::<u8>()],
            (width * height) as usize,
        )
        .prop_map(move |values| {
            Grid::from_fn(width, height, |cell| {
                values[(cell.y * width + cell.x) as usize]
            })
        })
    });
    let cell = || {
        prop_oneof![
            (0u32..8, 0u32..8).prop_map(|(x, y)| Cell::new(x, y)),
            Just(Cell::new(u32::MAX, 0)),
            Just(Cell::new(0, u32::MAX)),
        ]
    };
    let cost = prop_oneof![
        Just(CostModel::Octile),
        (0u32..4, 0u32..4)
            .prop_map(|(straight, diagonal)| CostModel::Integer { straight, diagonal }),
        Just(CostModel::Integer {
            straight: u32::MAX,
            diagonal: u32::MAX
        }),
    ];
    let movement = prop_oneof![
        Just(Movement::FOUR),
        prop::sample::select(vec![CornerRule::Both, CornerRule::One, CornerRule::Any])
            .prop_map(Movement::eight),
    ];
    let weighting = prop_oneof![
        wild_weight().prop_map(Weighting::Static),
        wild_weight().prop_map(|epsilon| Weighting::Dynamic { epsilon }),
    ];
    let window =
        prop::option::of((cell(), cell()).prop_map(|(min, max)| SearchWindow::new(min, max)));
    let limits = (
        prop::option::of(prop_oneof![0u32..20, Just(u32::MAX)]),
        any::<bool>(),
        any::<bool>(),
    );
    (
        grid,
        cell(),
        cell(),
        movement,
        cost,
        prop::option::of(prop::sample::select(Heuristic::ALL.to_vec())),
        weighting,
        window,
        limits,
    )
        .prop_map(
            |(
                grid,
                start,
                goal,
                movement,
                cost,
                heuristic,
                weighting,
                window,
                (max_expansions, partial, trace),
            )| {
                let options = options_from((
                    movement,
                    cost,
                    heuristic,
                    weighting,
                    max_expansions,
                    window,
                    partial,
                    trace,
                ));
                WildRequest {
                    grid,
                    start,
                    goal,
                    options,
                }
            },
        )
}

/// Every error that fits the request, in no particular order: which one a search reports first
/// is its choice, but it must report one of these, and must run when there are none.
fn fitting_errors(request: &WildRequest) -> Vec<SearchError> {
    let WildRequest {
        grid,
        start,
        goal,
        options,
    } = request;
    let mut errors = Vec::new();
    if grid.width() == 0 || grid.height() == 0 {
        errors.push(SearchError::EmptyGrid);
    }
    let inside = |cell: Cell| cell.x < grid.width() && cell.y < grid.height();
    if !inside(*start) {
        errors.push(SearchError::StartOutOfBounds(*start));
    } else if grid.value(*start) == 0 {
        errors.push(SearchError::StartBlocked(*start));
    }
    if !inside(*goal) {
        errors.push(SearchError::GoalOutOfBounds(*goal));
    } else if grid.value(*goal) == 0 {
        errors.push(SearchError::GoalBlocked(*goal));
    }
    match options.weighting {
        Weighting::Static(weight) if !(weight.is_finite() && weight >= 1.0) => {
            errors.push(SearchError::InvalidWeight(weight));
        }
        Weighting::Dynamic { epsilon } if !(epsilon.is_finite() && epsilon >= 0.0) => {
            errors.push(SearchError::InvalidWeight(epsilon));
        }
        _ => {}
    }
    if let CostModel::Integer { straight, diagonal } = options.cost
        && (straight == 0 || diagonal == 0)
    {
        errors.push(SearchError::InvalidCostModel);
    }
    if let Some(window) = options.window {
        let contains = window.min.x <= start.x
            && start.x <= window.max.x
            && window.min.y <= start.y
            && start.y <= window.max.y;
        if !contains {
            errors.push(SearchError::StartOutsideWindow(*start));
        }
    }
    errors
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any request either runs or is refused with an error that fits it; what runs returns a
    /// legal path (if any) and agrees with the same search advanced one expansion at a time.
    #[test]
    fn wild_requests_get_a_fitting_error_or_a_sound_result(request in wild_request()) {
        let WildRequest { grid, start, goal, options } = &request;
        let expected = fitting_errors(&request);
        let mut searcher = Searcher::new();
        match searcher.find_path(grid, *start, *goal, options) {
            Err(error) => {
                prop_assert!(
                    expected.iter().any(|fitting| same_error(fitting, &error)),
                    "{:?} does not fit; expected one of {:?}", error, expected
                );
                prop_assert!(searcher.begin(grid, *start, *goal, options).is_err());
            }
            Ok(result) => {
                prop_assert!(expected.is_empty(), "ran although {:?}", expected);
                prop_assert_eq!(result.trace.is_some(), options.trace);
                if let Some(path) = &result.path {
                    let end = if result.status == SearchStatus::Found {
                        *goal
                    } else {
                        path.end().ok_or_else(|| TestCaseError::fail("empty path"))?
                    };
                    check_path(grid, path, *start, end, options.movement, options.cost)
                        .map_err(TestCaseError::fail)?;
                    if let Some(window) = options.window {
                        check_inside_window(path, window).map_err(TestCaseError::fail)?;
                    }
                }
                let mut search = searcher.begin(grid, *start, *goal, options).expect("accepted before");
                let stepped = loop {
                    match search.advance(1) {
                        Step::Pending(more) => search = more,
                        Step::Done(done) => break done,
                    }
                };
                prop_assert_eq!(stepped, result);
            }
        }
    }
}
