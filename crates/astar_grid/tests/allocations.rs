//! Heap allocations counted per thread: after a warm-up query a search allocates only the path
//! it returns, parsing does not allocate what a file merely claims, and the anchors covered by a
//! list of cells take memory bounded by the map.

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Legend, Movement, ParseError, Scenario, SearchOptions,
    SearchResult, SearchStatus, SearchWindow, Searcher, Step, parse_map, parse_map_with,
    parse_scenario,
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

/// A 400x400 map (large enough for the open list that keeps its buckets in vectors) of open
/// ground, walls and terrain, where many buckets outgrow the vectors the ring keeps.
fn large_map() -> Grid {
    Grid::from_fn(400, 400, |cell| {
        // Walls across the map with a door every 40 rows, and patches of costlier ground.
        let wall = cell.x % 50 == 25 && cell.y % 40 != 20;
        match (wall, (cell.x / 100 + cell.y / 100) % 3) {
            (true, _) => 0,
            (false, 0) => 2,
            (false, _) => 1,
        }
    })
}

#[test]
fn after_warm_up_a_search_on_a_large_grid_allocates_only_its_path() {
    let grid = large_map();
    let mut searcher = Searcher::new();
    let queries = [
        (Cell::new(0, 0), Cell::new(399, 399)),
        (Cell::new(399, 0), Cell::new(3, 398)),
        (Cell::new(200, 1), Cell::new(201, 399)),
        (Cell::new(10, 200), Cell::new(390, 210)),
    ];
    for options in [
        SearchOptions::default(),
        SearchOptions::default().with_cost(CostModel::INTEGER_10_14),
        SearchOptions::default().with_movement(Movement::FOUR),
    ] {
        for query in queries {
            let query = (
                nearest_walkable(&grid, query.0),
                nearest_walkable(&grid, query.1),
            );
            let _ = search(&mut searcher, &grid, query, &options);
            let (result, allocations) =
                counting_allocations(|| search(&mut searcher, &grid, query, &options));
            assert_eq!(result.status, SearchStatus::Found, "{query:?} {options:?}");
            assert_eq!(allocations, 1, "{query:?} {options:?}");
        }
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

/// Two headers with a zero dimension: one claims 99,999,999 rows of no cells, the other a row
/// of 99,999,999 cells but no rows. Neither grid has a cell, so neither parse may allocate
/// more than a few bytes, whether it fails (no rows follow) or succeeds (no rows are due).
#[test]
fn a_map_header_with_a_zero_dimension_allocates_nothing() {
    for text in [
        "type octile\nheight 99999999\nwidth 0\nmap\n",
        "type octile\nheight 0\nwidth 99999999\nmap\n",
    ] {
        let mut outcome = None;
        let info = allocation_counter::measure(|| outcome = Some(parse_map(text)));
        assert!(outcome.is_some(), "the parse ran");
        assert!(
            info.bytes_max < 1 << 10,
            "{} bytes allocated for {text:?}",
            info.bytes_max
        );
    }
}

/// Bytes a parser may allocate per byte of input, beyond what it returns.
const BYTES_PER_INPUT_BYTE: u64 = 8;

/// Bytes any parse may allocate whatever its input (error messages, a few small buffers).
const FIXED_ALLOWANCE: u64 = 1 << 10;

/// Runs `parse` on `text` and checks that its peak of live heap bytes stays within a small
/// multiple of the input's size plus `returned(output)`, the heap bytes of what it returns.
fn check_parse_allocations<T>(
    name: &str,
    text: &str,
    parse: impl FnOnce(&str) -> Result<T, ParseError>,
    returned: impl FnOnce(&T) -> usize,
) {
    let mut outcome = None;
    let info = allocation_counter::measure(|| outcome = Some(parse(text)));
    let outcome = outcome.expect("the parse ran");
    let kept = outcome.as_ref().map_or(0, returned) as u64;
    let allowed = BYTES_PER_INPUT_BYTE * text.len() as u64 + kept + FIXED_ALLOWANCE;
    let shown: String = text.chars().take(60).collect();
    assert!(
        info.bytes_max <= allowed,
        "{name} allocated {} bytes at its peak for {} input bytes ({shown:?}...), returning {kept}",
        info.bytes_max,
        text.len()
    );
}

/// Heap bytes a scenario holds: its query table and each query's map name.
fn scenario_bytes(scenario: &Scenario) -> usize {
    scenario.queries.capacity() * size_of::<astar_grid::ScenarioQuery>()
        + scenario
            .queries
            .iter()
            .map(|query| query.map.capacity())
            .sum::<usize>()
}

/// Map texts, valid and hostile: zero and huge dimensions, headers claiming rows the file
/// lacks, long rows and many short ones.
fn map_texts() -> Vec<String> {
    let header =
        |height: u64, width: u64| format!("type octile\nheight {height}\nwidth {width}\nmap\n");
    let mut texts = Vec::new();
    for (height, width) in [
        (0, 0),
        (0, 99_999_999),
        (99_999_999, 0),
        (2_147_483_000, 0),
        (0, 4_294_967_295),
        (4_294_967_295, 0),
        (4_294_967_295, 4_294_967_295),
        (4_000, 4_000),
        (65_536, 65_536),
        (1, 1 << 31),
    ] {
        texts.push(header(height, width));
        texts.push(format!("{}.\n", header(height, width)));
    }
    texts.push(format!("{}{}", header(20_000, 0), "\n".repeat(20_000)));
    texts.push(format!("{}{}", header(20_000, 1), ".\n".repeat(20_000)));
    texts.push(format!("{}{}\n", header(1, 20_000), ".".repeat(20_000)));
    texts.push(format!("{}{}", header(40_000, 1), ".\n".repeat(20_000)));
    texts.push(format!(
        "{}{}",
        header(100, 100),
        format!("{}\n", "@".repeat(100)).repeat(100)
    ));
    texts
}

/// ASCII grids: blank lines only, one long row, many one-cell rows, ragged rows.
fn ascii_texts() -> Vec<String> {
    vec![
        String::new(),
        "\n".repeat(50_000),
        " \n".repeat(25_000),
        ".".repeat(50_000),
        ".\n".repeat(25_000),
        format!("{}{}", ".".repeat(25_000), "\n..".repeat(10)),
        format!("{}x", ".\n".repeat(25_000)),
    ]
}

/// Scenario texts: many short rows, rows stating huge maps, many fields on one row.
fn scenario_texts() -> Vec<String> {
    vec![
        "version 1\n".to_owned(),
        format!("version 1\n{}", "0 m 1 1 0 0 0 0 0\n".repeat(5_000)),
        format!("version 1\n{}", "0\tm\t1\t1\t0\t0\t0\t0\t0\n".repeat(5_000)),
        format!(
            "version 1\n{}",
            "4294967295\tm\t4294967295\t4294967295\t4294967294\t4294967294\t0\t0\t1e300\n"
                .repeat(1_000)
        ),
        format!("version 1\n{}", "0 ".repeat(20_000)),
        format!(
            "version 1\n0\t{}\t1\t1\t0\t0\t0\t0\t0\n",
            "m".repeat(20_000)
        ),
        format!("version 1\n{}", "\n".repeat(50_000)),
    ]
}

/// No parse allocates more than a small multiple of its input's size plus what it returns,
/// whatever the input claims: zero or huge dimensions, rows that are missing, many rows.
#[test]
fn no_parse_allocates_more_than_a_multiple_of_its_input_and_its_result() {
    let terrain = Legend::terrain();
    for text in map_texts() {
        check_parse_allocations("parse_map", &text, parse_map, Grid::memory_bytes);
        check_parse_allocations(
            "parse_map_with",
            &text,
            |text| parse_map_with(text, &terrain),
            Grid::memory_bytes,
        );
        check_parse_allocations(
            "Grid::from_ascii",
            &text,
            Grid::from_ascii,
            Grid::memory_bytes,
        );
    }
    for text in ascii_texts() {
        check_parse_allocations(
            "Grid::from_ascii",
            &text,
            Grid::from_ascii,
            Grid::memory_bytes,
        );
        check_parse_allocations("parse_map", &text, parse_map, Grid::memory_bytes);
    }
    for text in scenario_texts() {
        check_parse_allocations("parse_scenario", &text, parse_scenario, scenario_bytes);
    }
}

/// Asking which anchors a long list of cells covers takes memory bounded by the map, however
/// long the list: a flag a cell and the answer, not 64 indices for every cell listed.
#[test]
fn covering_anchors_of_many_cells_stays_within_the_map() {
    use astar_grid::{AgentGrid, TerrainProfile};
    let terrain = Grid::new(64, 64);
    let agent = AgentGrid::new(&terrain, &TerrainProfile::identity(), 8).expect("fits");
    let cells = vec![Cell::new(10, 10); 100_000];
    let mut covering = Vec::new();
    let info = allocation_counter::measure(|| covering = agent.anchors_covering(&cells));
    assert_eq!(covering.len(), 64);
    let bound = terrain.len() as u64 * 16;
    assert!(
        info.bytes_max <= bound,
        "{} bytes at most, {bound} allowed",
        info.bytes_max
    );
}
