//! A search advanced in budgets of any size (0 counting as 1) ends exactly as the same search
//! run in one go.

pub mod common;

use astar_grid::{SearchOptions, SearchResult, Searcher, Step};
use common::random_grid::{GridQuery, grid_query, search_options};
use proptest::prelude::*;

/// Runs the search with `budgets` in turn (cycling; zero budgets allowed, each expanding one
/// cell), checking the progress reported between slices.
fn sliced(
    searcher: &mut Searcher,
    query: &GridQuery,
    options: &SearchOptions,
    budgets: &[u32],
) -> Result<SearchResult, TestCaseError> {
    let mut search = searcher
        .begin(&query.grid, query.start, query.goal, options)
        .expect("a valid request");
    let mut expanded = search.stats().expanded;
    prop_assert_eq!(expanded, 0);
    for &budget in budgets.iter().cycle() {
        match search.advance(budget) {
            Step::Pending(more) => {
                let now = more.stats().expanded;
                // A budget of 0 counts as 1.
                prop_assert!(
                    now > expanded && now - expanded <= budget.max(1),
                    "{} -> {} with budget {}",
                    expanded,
                    now,
                    budget
                );
                expanded = now;
                search = more;
            }
            Step::Done(result) => {
                prop_assert!(result.stats.expanded - expanded <= budget.max(1));
                return Ok(result);
            }
        }
    }
    unreachable!("cycling over a budget list with a non-zero entry ends the search")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Status, path, counters and trace all match an uninterrupted search.
    #[test]
    fn sliced_search_equals_find_path(
        (query, options) in grid_query(24).prop_flat_map(|query| {
            let start = query.start;
            (Just(query), search_options(start))
        }),
        budgets in prop::collection::vec(prop_oneof![1 => Just(0u32), 8 => 1u32..40], 1..12)
            .prop_filter("some budget must be positive", |budgets| budgets.iter().any(|&budget| budget > 0)),
    ) {
        let mut searcher = Searcher::new();
        let whole = searcher
            .find_path(&query.grid, query.start, query.goal, &options)
            .expect("a valid request");
        let in_slices = sliced(&mut searcher, &query, &options, &budgets)?;
        prop_assert_eq!(&in_slices, &whole);
        // `run` after a first slice also finishes the same search.
        let search = searcher
            .begin(&query.grid, query.start, query.goal, &options)
            .expect("a valid request");
        let finished = match search.advance(budgets[0]) {
            Step::Pending(more) => more.run(),
            Step::Done(result) => result,
        };
        prop_assert_eq!(&finished, &whole);
        // A search abandoned half-way (here the reverse query, traced and without a window)
        // leaves nothing behind for the next one.
        let reverse = SearchOptions { window: None, ..options }.with_trace(true);
        let abandoned = searcher
            .begin(&query.grid, query.goal, query.start, &reverse)
            .expect("start and goal are both walkable");
        drop(abandoned.advance(budgets[0]));
        let after_abandoning = searcher
            .find_path(&query.grid, query.start, query.goal, &options)
            .expect("a valid request");
        prop_assert_eq!(after_abandoning, whole);
    }
}

/// A budget of 0 counts as 1: every call makes progress, so a loop that advances by a budget
/// computed at run time ends even when the budget comes out as 0.
#[test]
fn a_zero_budget_still_expands_one_cell() {
    let grid = astar_grid::Grid::new(8, 8);
    let (start, goal) = (astar_grid::Cell::new(0, 0), astar_grid::Cell::new(7, 5));
    let mut searcher = Searcher::new();
    let whole = searcher
        .find_path(&grid, start, goal, &SearchOptions::default())
        .expect("a valid request");
    let mut search = searcher
        .begin(&grid, start, goal, &SearchOptions::default())
        .expect("a valid request");
    let mut calls = 0;
    let result = loop {
        calls += 1;
        assert!(
            calls <= whole.stats.expanded,
            "no progress after {calls} calls"
        );
        match search.advance(0) {
            Step::Pending(more) => {
                assert_eq!(more.stats().expanded, calls);
                search = more;
            }
            Step::Done(result) => break result,
        }
    };
    assert_eq!(calls, whole.stats.expanded);
    assert_eq!(result, whole);
}
