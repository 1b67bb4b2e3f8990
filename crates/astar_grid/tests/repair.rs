//! Tests of local path repair against fresh A* searches on the changed grid.

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Movement, Neighborhood, Path, Repair, RepairError,
    RepairOptions, RepairedPath, SearchOptions, SearchStatus, Searcher,
};
use proptest::prelude::*;
use proptest::sample::Index;

/// Checks a path step by step against the grid and the movement rule, without the crate's
/// code: in bounds, walkable, neighbours, corners as the rule wants. Returns the first problem.
fn path_problem(grid: &Grid, cells: &[Cell], movement: Movement) -> Option<String> {
    if let Some(cell) = cells.iter().find(|&&cell| !grid.is_walkable(cell)) {
        return Some(format!("{cell} is blocked or outside"));
    }
    for step in cells.windows(2) {
        let (from, to) = (step[0], step[1]);
        let (dx, dy) = (from.x.abs_diff(to.x), from.y.abs_diff(to.y));
        if dx > 1 || dy > 1 || dx + dy == 0 {
            return Some(format!("{from} -> {to} is not a step"));
        }
        if dx == 1 && dy == 1 {
            let sides = [
                grid.is_walkable(Cell::new(to.x, from.y)),
                grid.is_walkable(Cell::new(from.x, to.y)),
            ];
            // On a hexagonal grid, only (1, -1) and (-1, 1) of the slanted steps are steps.
            let hex_step = (to.x > from.x) != (to.y > from.y);
            let allowed = match (movement.neighborhood, movement.corners) {
                (Neighborhood::Four, _) => false,
                (Neighborhood::Hex, _) => hex_step,
                (Neighborhood::Eight, CornerRule::Both) => sides[0] && sides[1],
                (Neighborhood::Eight, CornerRule::One) => sides[0] || sides[1],
                (Neighborhood::Eight, CornerRule::Any) => true,
            };
            if !allowed {
                return Some(format!("{from} -> {to} cuts a corner"));
            }
        }
    }
    None
}

/// The cost of walking `cells`: each step's base cost times the terrain of the cell entered.
fn walked_cost(grid: &Grid, cells: &[Cell], cost: CostModel) -> f64 {
    cells
        .windows(2)
        .map(|step| {
            let base = if step[0].x != step[1].x && step[0].y != step[1].y {
                cost.diagonal()
            } else {
                cost.straight()
            };
            base * f64::from(grid.cost(step[1]).unwrap_or(0))
        })
        .sum()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn fresh_search(grid: &Grid, start: Cell, goal: Cell, options: &SearchOptions) -> Option<Path> {
    let result = Searcher::new()
        .find_path(grid, start, goal, options)
        .expect("a valid query");
    assert!(
        !matches!(result.status, SearchStatus::LimitReached(_)),
        "the oracle search has no limits"
    );
    result.path
}

/// Checks every promise of a successful repair; `original` is the path before the change.
fn check_repair(
    grid: &Grid,
    original: &[Cell],
    repaired: &RepairedPath,
    options: &RepairOptions,
) -> Result<(), TestCaseError> {
    let movement = options.search.movement;
    let (start, goal) = (original[0], original[original.len() - 1]);
    let fresh = fresh_search(grid, start, goal, &options.search);
    let intact = path_problem(grid, original, movement).is_none();
    prop_assert_eq!(
        repaired.repair == Repair::Untouched,
        intact,
        "untouched exactly when the old path is still walkable"
    );
    match (&repaired.path, repaired.repair) {
        (None, Repair::NoPath) => prop_assert!(fresh.is_none(), "A* found a path"),
        (None, other) => prop_assert!(false, "no path with {:?}", other),
        (Some(path), repair) => {
            let fresh = fresh.expect("A* finds a path whenever the repair does");
            prop_assert_eq!(path.cells.first(), Some(&start));
            prop_assert_eq!(path.cells.last(), Some(&goal));
            if let Some(problem) = path_problem(grid, &path.cells, movement) {
                prop_assert!(false, "{:?} path is invalid: {}", repair, problem);
            }
            let walked = walked_cost(grid, &path.cells, options.search.cost);
            prop_assert!(
                close(path.cost, walked),
                "cost {} but steps sum to {}",
                path.cost,
                walked
            );
            prop_assert!(path.cost >= fresh.cost - 1e-9 * fresh.cost.max(1.0));
            match repair {
                Repair::Untouched => {
                    prop_assert_eq!(&path.cells, &original.to_vec());
                    prop_assert_eq!(repaired.optimal, options.optimal_input);
                    if repaired.optimal {
                        prop_assert!(
                            close(path.cost, fresh.cost),
                            "untouched {} called optimal, but the optimum is {}",
                            path.cost,
                            fresh.cost
                        );
                    }
                    prop_assert_eq!(repaired.stats.expanded, 0);
                }
                Repair::FullSearch => {
                    prop_assert!(repaired.optimal);
                    prop_assert!(
                        close(path.cost, fresh.cost),
                        "{} vs optimal {}",
                        path.cost,
                        fresh.cost
                    );
                }
                Repair::Spliced { detours } => {
                    prop_assert!(detours > 0);
                    prop_assert!(!repaired.optimal);
                }
                other => prop_assert!(false, "a path with {:?}", other),
            }
        }
    }
    Ok(())
}

fn movements() -> impl Strategy<Value = Movement> {
    prop_oneof![
        Just(Movement::FOUR),
        Just(Movement::EIGHT),
        Just(Movement::eight(CornerRule::One)),
        Just(Movement::eight(CornerRule::Any)),
    ]
}

fn grids() -> impl Strategy<Value = Grid> {
    (2u32..=14, 2u32..=14, 0.0..0.35f64).prop_flat_map(|(width, height, density)| {
        let cells = (width * height) as usize;
        (
            prop::collection::vec(prop::bool::weighted(density), cells),
            prop::collection::vec(prop_oneof![4 => Just(1u8), 1 => 2u8..=4], cells),
        )
            .prop_map(move |(blocked, terrain)| {
                Grid::from_fn(width, height, |cell| {
                    let index = (cell.y * width + cell.x) as usize;
                    if blocked[index] { 0 } else { terrain[index] }
                })
            })
    })
}

fn walkable(grid: &Grid) -> Vec<Cell> {
    grid.cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect()
}

fn pick(grid: &Grid, index: &Index) -> Cell {
    let position = index.index(grid.len());
    let width = grid.width() as usize;
    Cell::new((position % width) as u32, (position / width) as u32)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]

    #[test]
    fn repaired_paths_are_valid_and_never_beat_a_fresh_search(
        mut grid in grids(),
        ends in (any::<Index>(), any::<Index>()),
        movement in movements(),
        cost in prop::sample::select(vec![
            CostModel::Octile,
            CostModel::INTEGER_10_14,
            CostModel::Integer { straight: 10, diagonal: 5 },
        ]),
        // The original is a cheapest path and cells are only blocked after it: the caller may
        // say so.
        optimal_input in any::<bool>(),
        // Blocked cells: some anywhere, some inside the path, sometimes one of its ends.
        anywhere in prop::collection::vec(any::<Index>(), 0..4),
        on_path in prop::collection::vec(any::<Index>(), 0..4),
        blocked_end in prop_oneof![8 => Just(None), 1 => Just(Some(true)), 1 => Just(Some(false))],
        splice_margin in 0u32..5,
        splice_expansions in prop_oneof![Just(0u32), 1u32..40, Just(4096)],
    ) {
        let cells = walkable(&grid);
        prop_assume!(cells.len() >= 2);
        let (start, goal) = (ends.0.get(&cells).to_owned(), ends.1.get(&cells).to_owned());
        let search = SearchOptions::default().with_movement(movement).with_cost(cost);
        let original = fresh_search(&grid, start, goal, &search);
        prop_assume!(original.is_some());
        let original = original.expect("checked").cells;
        for index in &anywhere {
            let cell = pick(&grid, index);
            grid.set_blocked(cell, true).unwrap();
        }
        if original.len() > 2 {
            for index in &on_path {
                grid.set_blocked(*index.get(&original[1..original.len() - 1]), true).unwrap();
            }
        }
        if let Some(at_start) = blocked_end {
            grid.set_blocked(if at_start { start } else { goal }, true).unwrap();
        }
        let options = RepairOptions::new(search)
            .with_splice_margin(splice_margin)
            .with_splice_expansions(splice_expansions)
            .with_optimal_input(optimal_input);
        let result = Searcher::new().repair_path(&grid, &original, &options);
        if !grid.is_walkable(start) {
            prop_assert_eq!(result, Err(RepairError::StartBlocked(start)));
        } else if !grid.is_walkable(goal) {
            prop_assert_eq!(result, Err(RepairError::GoalBlocked(goal)));
        } else {
            let repaired = result.expect("a valid request");
            check_repair(&grid, &original, &repaired, &options)?;
            if splice_expansions == 0 {
                prop_assert!(matches!(
                    repaired.repair,
                    Repair::Untouched | Repair::FullSearch | Repair::NoPath
                ));
            }
        }
    }
}

fn straight_path(y: u32, from_x: u32, to_x: u32) -> Vec<Cell> {
    (from_x..=to_x).map(|x| Cell::new(x, y)).collect()
}

#[test]
fn a_blocked_corridor_cell_is_spliced_locally() {
    let mut grid = Grid::new(20, 5);
    let original = straight_path(2, 0, 19);
    grid.set_blocked(Cell::new(10, 2), true).unwrap();
    let options = RepairOptions::default();
    let repaired = Searcher::new()
        .repair_path(&grid, &original, &options)
        .unwrap();
    assert_eq!(repaired.repair, Repair::Spliced { detours: 1 });
    check_repair(&grid, &original, &repaired, &options).unwrap();
    let path = repaired.path.unwrap();
    // Only the cells around the blocked one changed: the detour runs from (9, 2) to (11, 2).
    assert_eq!(path.cells[..=9], original[..=9]);
    assert_eq!(path.cells[path.cells.len() - 9..], original[11..]);
    // Under the no-corner-cutting rule the shortest detour between those cells is
    // up, two steps across, down: 2 more than the 2 straight steps it replaces.
    assert_eq!(path.cost, 21.0);
    assert!(repaired.stats.expanded > 0);
}

#[test]
fn several_separate_breaks_get_one_detour_each() {
    let mut grid = Grid::new(40, 5);
    let original = straight_path(2, 0, 39);
    for x in [8, 20, 21, 33] {
        grid.set_blocked(Cell::new(x, 2), true).unwrap();
    }
    let options = RepairOptions::default();
    let repaired = Searcher::new()
        .repair_path(&grid, &original, &options)
        .unwrap();
    assert_eq!(repaired.repair, Repair::Spliced { detours: 3 });
    check_repair(&grid, &original, &repaired, &options).unwrap();
}

/// A 31x11 grid with a wall down column 15, open at (15, 5) and at (15, 0).
fn walled_grid() -> Grid {
    let mut grid = Grid::new(31, 11);
    for y in 1..11 {
        if y != 5 {
            grid.set_blocked(Cell::new(15, y), true)
                .expect("inside the grid");
        }
    }
    grid
}

#[test]
fn without_a_local_detour_the_path_is_searched_again() {
    let mut grid = walled_grid();
    let original = straight_path(5, 0, 30);
    assert!(original.iter().all(|&cell| grid.is_walkable(cell)));
    grid.set_blocked(Cell::new(15, 5), true).unwrap();
    let options = RepairOptions::default().with_splice_margin(3);
    let repaired = Searcher::new()
        .repair_path(&grid, &original, &options)
        .unwrap();
    assert_eq!(repaired.repair, Repair::FullSearch);
    assert!(repaired.optimal);
    check_repair(&grid, &original, &repaired, &options).unwrap();
    assert!(repaired.path.unwrap().cells.contains(&Cell::new(15, 0)));

    // A wide enough margin finds the same gap by a splice.
    let wide = RepairOptions::default().with_splice_margin(6);
    let spliced = Searcher::new()
        .repair_path(&grid, &original, &wide)
        .unwrap();
    assert_eq!(spliced.repair, Repair::Spliced { detours: 1 });
    check_repair(&grid, &original, &spliced, &wide).unwrap();
}

#[test]
fn a_spent_budget_falls_back_to_a_full_search() {
    let mut grid = Grid::new(20, 5);
    let original = straight_path(2, 0, 19);
    grid.set_blocked(Cell::new(10, 2), true).unwrap();
    for expansions in [0, 2] {
        let options = RepairOptions::default().with_splice_expansions(expansions);
        let repaired = Searcher::new()
            .repair_path(&grid, &original, &options)
            .unwrap();
        assert_eq!(repaired.repair, Repair::FullSearch, "budget {expansions}");
        check_repair(&grid, &original, &repaired, &options).unwrap();
    }
}

#[test]
fn a_cut_off_goal_gives_no_path() {
    let mut grid = walled_grid();
    let original = straight_path(5, 0, 30);
    grid.set_blocked(Cell::new(15, 5), true).unwrap();
    grid.set_blocked(Cell::new(15, 0), true).unwrap();
    let options = RepairOptions::default();
    let repaired = Searcher::new()
        .repair_path(&grid, &original, &options)
        .unwrap();
    assert_eq!(repaired.repair, Repair::NoPath);
    assert_eq!(repaired.path, None);
    assert!(!repaired.optimal);
    check_repair(&grid, &original, &repaired, &options).unwrap();
}

#[test]
fn a_limit_of_the_caller_stops_the_full_search() {
    let mut grid = walled_grid();
    let original = straight_path(5, 0, 30);
    grid.set_blocked(Cell::new(15, 5), true).unwrap();
    let options = RepairOptions::new(SearchOptions::default().with_max_expansions(20));
    let repaired = Searcher::new()
        .repair_path(&grid, &original, &options)
        .unwrap();
    assert_eq!(
        repaired.repair,
        Repair::LimitReached(astar_grid::Limit::Expansions)
    );
    assert_eq!(repaired.path, None);
}

#[test]
fn blocking_cells_off_the_path_leaves_it_untouched() {
    let mut grid = Grid::new(10, 4);
    let original = straight_path(1, 0, 9);
    grid.set_blocked(Cell::new(4, 2), true).unwrap();
    grid.set_blocked(Cell::new(5, 0), true).unwrap();
    let repaired = Searcher::new()
        .repair_path(&grid, &original, &RepairOptions::default())
        .unwrap();
    assert_eq!(repaired.repair, Repair::Untouched);
    assert_eq!(repaired.path.unwrap().cells, original);
    assert_eq!(repaired.stats.expanded, 0);
}

#[test]
fn a_blocked_corner_breaks_a_diagonal_step_only_without_corner_cutting() {
    let mut grid = Grid::new(6, 6);
    let original = [(0, 0), (1, 1), (2, 2), (3, 3)].map(Cell::from).to_vec();
    grid.set_blocked(Cell::new(2, 1), true).unwrap();
    for (corners, expect_untouched) in [
        (CornerRule::Both, false),
        (CornerRule::One, true),
        (CornerRule::Any, true),
    ] {
        let options =
            RepairOptions::new(SearchOptions::default().with_movement(Movement::eight(corners)));
        let repaired = Searcher::new()
            .repair_path(&grid, &original, &options)
            .unwrap();
        assert_eq!(
            repaired.repair == Repair::Untouched,
            expect_untouched,
            "{corners:?}"
        );
        check_repair(&grid, &original, &repaired, &options).unwrap();
    }
}

#[test]
fn repair_can_start_from_the_current_position() {
    let mut grid = Grid::new(20, 5);
    let original = straight_path(2, 0, 19);
    grid.set_blocked(Cell::new(10, 2), true).unwrap();
    let options = RepairOptions::default().with_splice_expansions(0);
    let repaired = Searcher::new()
        .repair_path(&grid, &original[6..], &options)
        .unwrap();
    assert_eq!(repaired.repair, Repair::FullSearch);
    let path = repaired.path.as_ref().unwrap();
    assert_eq!(path.cells.first(), Some(&Cell::new(6, 2)));
    check_repair(&grid, &original[6..], &repaired, &options).unwrap();
}

#[test]
fn bad_requests_are_refused() {
    let mut grid = Grid::new(5, 5);
    let mut searcher = Searcher::new();
    let options = RepairOptions::default();
    assert_eq!(
        searcher.repair_path(&grid, &[], &options),
        Err(RepairError::EmptyPath)
    );
    let gap = [Cell::new(0, 0), Cell::new(2, 0)];
    assert_eq!(
        searcher.repair_path(&grid, &gap, &options),
        Err(RepairError::NotAdjacent { index: 0 })
    );
    let diagonal = [Cell::new(0, 0), Cell::new(1, 1)];
    let four = RepairOptions::new(SearchOptions::default().with_neighborhood(Neighborhood::Four));
    assert_eq!(
        searcher.repair_path(&grid, &diagonal, &four),
        Err(RepairError::NotAdjacent { index: 0 })
    );
    let outside = [Cell::new(4, 4), Cell::new(5, 4)];
    assert_eq!(
        searcher.repair_path(&grid, &outside, &options),
        Err(RepairError::OutOfBounds {
            index: 1,
            cell: Cell::new(5, 4)
        })
    );
    let weighted = RepairOptions::new(SearchOptions::default().with_weight(0.5));
    assert!(matches!(
        searcher.repair_path(&grid, &diagonal, &weighted),
        Err(RepairError::Search(_))
    ));
    let path = straight_path(0, 0, 4);
    grid.set_blocked(Cell::new(4, 0), true).unwrap();
    assert_eq!(
        searcher.repair_path(&grid, &path, &options),
        Err(RepairError::GoalBlocked(Cell::new(4, 0)))
    );
    grid.set_blocked(Cell::new(0, 0), true).unwrap();
    assert_eq!(
        searcher.repair_path(&grid, &path, &options),
        Err(RepairError::StartBlocked(Cell::new(0, 0)))
    );
}

/// A cheapest path whose cells stay open after cells elsewhere were blocked is still a cheapest
/// path: told that the path was optimal, the repair says the untouched path is; not told, it
/// cannot know and says it is not.
#[test]
fn an_untouched_optimal_path_stays_optimal_when_the_caller_says_it_was() {
    let mut grid = Grid::new(10, 4);
    let (start, goal) = (Cell::new(0, 1), Cell::new(9, 1));
    let mut searcher = Searcher::new();
    let options = SearchOptions::default();
    let found = searcher.find_path(&grid, start, goal, &options).unwrap();
    let original = found.found().unwrap().cells.clone();
    grid.set_blocked(Cell::new(4, 3), true).unwrap();
    let told = RepairOptions::new(options).with_optimal_input(true);
    let repaired = searcher.repair_path(&grid, &original, &told).unwrap();
    assert_eq!(repaired.repair, Repair::Untouched);
    assert!(repaired.optimal);
    let not_told = searcher
        .repair_path(&grid, &original, &RepairOptions::new(options))
        .unwrap();
    assert_eq!(not_told.repair, Repair::Untouched);
    assert!(!not_told.optimal);
}
