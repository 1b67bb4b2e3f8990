//! Heap allocations counted per thread: after a warm-up query a search allocates only the path
//! it returns, and parsing does not allocate what a file merely claims.

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Movement, SearchOptions, SearchResult, SearchStatus,
    SearchWindow, Searcher, Step, parse_map,
};

/// Runs `work` and returns its output with the number of heap allocations (reallocations
/// included) it made on this thread. Dropping the output is not counted.
fn counting_allocations<T>(work: impl FnOnce() -> T) -> (T, u64) {
    let mut output = None;
    let info = allocation_counter::measure(|| output = Some(work()));
    (output.expect("the work ran"), info.count_total)
}

/// The counter is live: a zero count below means no allocation, not a silent counter.
#[test]
fn the_counter_sees_allocations() {
    let (boxed, count) = counting_allocations(|| std::hint::black_box(vec![1u8, 2, 3]));
    assert_eq!((boxed.len(), count), (3, 1));
}

/// A 64x48 map with walls, a walled-off room and swamp.
fn test_map() -> Grid {
    let mut grid = Grid::from_fn(64, 48, |cell| {
        let wall = (cell.x % 8 == 4 && cell.y % 12 != 6) || (cell.y % 10 == 3 && cell.x % 16 < 11);
        let swamp = (cell.x + 2 * cell.y) % 7 == 0;
        match (wall, swamp) {
            (true, _) => 0,
            (false, true) => 3,
            (false, false) => 1,
        }
    });
    // A sealed room at the bottom right.
    grid.fill_rect(Cell::new(54, 38), Cell::new(63, 38), 0);
    grid.fill_rect(Cell::new(54, 38), Cell::new(54, 47), 0);
    grid.fill_rect(Cell::new(56, 40), Cell::new(62, 46), 1);
    grid
}

fn search(
    searcher: &mut Searcher,
    grid: &Grid,
    query: (Cell, Cell),
    options: &SearchOptions,
) -> SearchResult {
    searcher
        .find_path(grid, query.0, query.1, options)
        .expect("a valid request")
}

/// Queries on [`test_map`]: found paths, and goals in the sealed room.
fn queries(grid: &Grid) -> Vec<(Cell, Cell)> {
    let candidates = [
        (Cell::new(0, 0), Cell::new(63, 0)),
        (Cell::new(1, 1), Cell::new(50, 45)),
        (Cell::new(30, 20), Cell::new(2, 46)),
        (Cell::new(0, 47), Cell::new(60, 2)),
        (Cell::new(10, 10), Cell::new(58, 43)),
        (Cell::new(5, 5), Cell::new(5, 5)),
    ];
    candidates
        .into_iter()
        .map(|(start, goal)| (nearest_walkable(grid, start), nearest_walkable(grid, goal)))
        .collect()
}

fn nearest_walkable(grid: &Grid, cell: Cell) -> Cell {
    (0..grid.width())
        .map(|dx| Cell::new(cell.x.saturating_sub(dx), cell.y))
        .chain((0..grid.width()).map(|dx| Cell::new(cell.x + dx, cell.y)))
        .find(|&candidate| grid.is_walkable(candidate))
        .expect("a walkable cell in the row")
}

fn option_sets() -> Vec<SearchOptions> {
    let base = SearchOptions::default();
    vec![
        base,
        base.dijkstra(),
        base.with_movement(Movement::FOUR),
        base.with_movement(Movement::eight(CornerRule::Any))
            .with_cost(CostModel::INTEGER_10_14),
        base.with_weight(2.5),
        base.with_dynamic_weight(0.5),
    ]
}

#[test]
fn after_warm_up_a_search_allocates_only_the_path_it_returns() {
    let grid = test_map();
    let mut searcher = Searcher::new();
    let mut found = 0;
    let mut unreachable = 0;
    for options in option_sets() {
        for query in queries(&grid) {
            let _ = search(&mut searcher, &grid, query, &options);
            let (result, allocations) =
                counting_allocations(|| search(&mut searcher, &grid, query, &options));
            match result.status {
                SearchStatus::Found => {
                    found += 1;
                    assert_eq!(allocations, 1, "{query:?} {options:?}");
                }
                SearchStatus::NoPath => {
                    unreachable += 1;
                    assert_eq!(allocations, 0, "{query:?} {options:?}");
                }
                SearchStatus::LimitReached(_) => unreachable!("no limits set"),
            }
        }
    }
    assert!(found > 0 && unreachable > 0, "both outcomes exercised");
}

#[test]
fn after_warm_up_windows_and_expansion_limits_allocate_only_a_partial_path() {
    let grid = test_map();
    let mut searcher = Searcher::new();
    let mut limited = 0;
    for query in queries(&grid) {
        let window = SearchWindow::centered(query.0, 49, 33);
        for options in [
            SearchOptions::default().with_window(window),
            SearchOptions::default().with_max_expansions(40),
            SearchOptions::default()
                .with_window(window)
                .with_max_expansions(200),
        ] {
            for partial in [false, true] {
                let options = options.with_partial_path(partial);
                let _ = search(&mut searcher, &grid, query, &options);
                let (result, allocations) =
                    counting_allocations(|| search(&mut searcher, &grid, query, &options));
                let expected = u64::from(result.path.is_some());
                assert_eq!(
                    allocations, expected,
                    "{query:?} {options:?}: {:?}",
                    result.status
                );
                if let SearchStatus::LimitReached(_) = result.status {
                    assert_eq!(result.path.is_some(), partial, "{query:?} {options:?}");
                    limited += 1;
                }
            }
        }
    }
    assert!(limited > 0, "limits exercised");
}

#[test]
fn after_warm_up_a_time_sliced_search_allocates_only_its_path() {
    let grid = test_map();
    let mut searcher = Searcher::new();
    let options = SearchOptions::default();
    for query in queries(&grid) {
        let _ = search(&mut searcher, &grid, query, &options);
        let (result, allocations) = counting_allocations(|| {
            let mut search = searcher
                .begin(&grid, query.0, query.1, &options)
                .expect("a valid request");
            loop {
                match search.advance(7) {
                    Step::Pending(more) => search = more,
                    Step::Done(result) => break result,
                }
            }
        });
        assert_eq!(allocations, u64::from(result.path.is_some()), "{query:?}");
    }
}

/// A few header lines that announce a 4000x4000 map, with no rows: the parser should find the
/// rows missing without first allocating the 16 MB grid the header claims (a 40-byte file could
/// otherwise claim 2^31 cells).
#[test]
fn a_map_header_alone_does_not_allocate_the_announced_grid() {
    let text = "type octile\nheight 4000\nwidth 4000\nmap\n";
    let mut outcome = None;
    let info = allocation_counter::measure(|| outcome = Some(parse_map(text)));
    assert!(outcome.is_some_and(|parsed| parsed.is_err()));
    assert!(
        info.bytes_max < 1 << 20,
        "{} bytes allocated for a {}-byte file",
        info.bytes_max,
        text.len()
    );
}
