//! Property tests of line of sight and path smoothing against an exact geometric oracle that
//! intersects each segment with every cell square, independently of the supercover walk,
//! terrain costs included.

use astar_grid::{
    Cell, CornerRule, Grid, Movement, Neighborhood, SearchOptions, Searcher, SmoothingError,
    SmoothingOptions, Waypoint, line_of_sight, line_of_sight_within, parse_map, parse_scenario,
    smooth_path, smooth_path_cells,
};
use proptest::prelude::*;
use proptest::sample::Index;
use std::collections::BTreeMap;
use std::num::NonZeroUsize;

/// A rational number `num / den` with `den > 0`.
#[derive(Clone, Copy, Debug)]
struct Ratio {
    num: i64,
    den: i64,
}

impl Ratio {
    const ZERO: Self = Self { num: 0, den: 1 };
    const ONE: Self = Self { num: 1, den: 1 };

    fn new(num: i64, den: i64) -> Self {
        if den < 0 {
            Self {
                num: -num,
                den: -den,
            }
        } else {
            Self { num, den }
        }
    }

    fn less(self, other: Self) -> bool {
        i128::from(self.num) * i128::from(other.den) < i128::from(other.num) * i128::from(self.den)
    }

    fn max(self, other: Self) -> Self {
        if self.less(other) { other } else { self }
    }

    fn min(self, other: Self) -> Self {
        if other.less(self) { other } else { self }
    }
}

/// The closed range of `t` in which `origin + t * delta` lies in `[low, low + 2]` (doubled
/// coordinates), or `None` when it never does.
fn slab(origin: i64, delta: i64, low: i64) -> Option<(Ratio, Ratio)> {
    if delta == 0 {
        return (low <= origin && origin <= low + 2)
            .then_some((Ratio::new(i64::MIN / 4, 1), Ratio::new(i64::MAX / 4, 1)));
    }
    let enter = Ratio::new(low - origin, delta);
    let leave = Ratio::new(low + 2 - origin, delta);
    Some(if enter.less(leave) {
        (enter, leave)
    } else {
        (leave, enter)
    })
}

/// How the segment between the centres of `a` and `b` meets `cell`'s closed square.
enum Contact {
    None,
    /// The segment passes through the interior.
    Interior,
    /// The segment only touches the square at the grid corner with these coordinates.
    Corner(i64, i64),
}

fn contact(a: Cell, b: Cell, cell: Cell) -> Contact {
    let (x0, y0) = (2 * i64::from(a.x) + 1, 2 * i64::from(a.y) + 1);
    let (dx, dy) = (
        2 * (i64::from(b.x) - i64::from(a.x)),
        2 * (i64::from(b.y) - i64::from(a.y)),
    );
    let (Some((x_in, x_out)), Some((y_in, y_out))) = (
        slab(x0, dx, 2 * i64::from(cell.x)),
        slab(y0, dy, 2 * i64::from(cell.y)),
    ) else {
        return Contact::None;
    };
    let enter = Ratio::ZERO.max(x_in).max(y_in);
    let leave = Ratio::ONE.min(x_out).min(y_out);
    if leave.less(enter) {
        Contact::None
    } else if enter.less(leave) {
        Contact::Interior
    } else {
        let x = (x0 * enter.den + enter.num * dx) / enter.den;
        let y = (y0 * enter.den + enter.num * dy) / enter.den;
        assert!(
            x % 2 == 0 && y % 2 == 0,
            "a single contact point must be a grid corner"
        );
        Contact::Corner(x / 2, y / 2)
    }
}

/// The cells whose interior the segment between the centres of `a` and `b` enters.
fn entered_cells(a: Cell, b: Cell) -> Vec<Cell> {
    let mut entered = Vec::new();
    for y in a.y.min(b.y)..=a.y.max(b.y) {
        for x in a.x.min(b.x)..=a.x.max(b.x) {
            let cell = Cell::new(x, y);
            if matches!(contact(a, b, cell), Contact::Interior) {
                entered.push(cell);
            }
        }
    }
    entered
}

/// Line of sight decided from the geometry alone.
fn oracle_line_of_sight(grid: &Grid, a: Cell, b: Cell, movement: Movement) -> bool {
    oracle_line_of_sight_within(grid, a, b, movement, u8::MAX)
}

/// Line of sight through cells costing at most `max_cost`, decided from the geometry alone.
fn oracle_line_of_sight_within(
    grid: &Grid,
    a: Cell,
    b: Cell,
    movement: Movement,
    max_cost: u8,
) -> bool {
    if !grid.is_walkable(a) || !grid.is_walkable(b) {
        return false;
    }
    let rule = match movement.neighborhood {
        Neighborhood::Four => CornerRule::Both,
        Neighborhood::Eight => movement.corners,
        Neighborhood::Hex => unreachable!("this oracle draws square grids"),
    };
    let mut corners: BTreeMap<(i64, i64), Vec<bool>> = BTreeMap::new();
    for y in a.y.min(b.y)..=a.y.max(b.y) {
        for x in a.x.min(b.x)..=a.x.max(b.x) {
            let cell = Cell::new(x, y);
            match contact(a, b, cell) {
                Contact::None => {}
                Contact::Interior => {
                    if grid.cost(cell).is_none_or(|cost| cost > max_cost) {
                        return false;
                    }
                }
                Contact::Corner(cx, cy) => corners
                    .entry((cx, cy))
                    .or_default()
                    .push(grid.is_walkable(cell)),
            }
        }
    }
    corners.values().all(|sides| {
        assert_eq!(sides.len(), 2, "a corner crossing touches two side cells");
        match rule {
            CornerRule::Both => sides.iter().all(|&free| free),
            CornerRule::One => sides.iter().any(|&free| free),
            CornerRule::Any => true,
        }
    })
}

fn grid_from(width: u32, height: u32, blocked: &[bool]) -> Grid {
    Grid::from_fn(width, height, |cell| {
        u8::from(!blocked[(cell.y * width + cell.x) as usize])
    })
}

fn grids() -> impl Strategy<Value = Grid> {
    (1u32..=12, 1u32..=12, 0.0..0.45f64).prop_flat_map(|(width, height, density)| {
        prop::collection::vec(prop::bool::weighted(density), (width * height) as usize)
            .prop_map(move |blocked| grid_from(width, height, &blocked))
    })
}

/// Grids with blocked cells, scattered terrain costs from 2 to 9 and a few costly rectangles
/// (swamps) that paths tend to go around.
fn terrain_grids() -> impl Strategy<Value = Grid> {
    (1u32..=12, 1u32..=12).prop_flat_map(|(width, height)| {
        let cell = prop_oneof![2 => Just(0u8), 6 => Just(1u8), 2 => 2u8..=9];
        let swamp = (any::<Index>(), any::<Index>(), 2u8..=9);
        (
            prop::collection::vec(cell, (width * height) as usize),
            prop::collection::vec(swamp, 0..=3),
        )
            .prop_map(move |(values, swamps)| {
                let mut grid = Grid::from_fn(width, height, |cell| {
                    values[(cell.y * width + cell.x) as usize]
                });
                for (corner, other, cost) in swamps {
                    let (a, b) = (pick(&grid, corner), pick(&grid, other));
                    let min = Cell::new(a.x.min(b.x), a.y.min(b.y));
                    let max = Cell::new(a.x.max(b.x), a.y.max(b.y));
                    grid.fill_rect(min, max, cost);
                }
                grid
            })
    })
}

fn movements() -> impl Strategy<Value = Movement> {
    prop_oneof![
        Just(Movement::FOUR),
        Just(Movement::EIGHT),
        Just(Movement::eight(CornerRule::One)),
        Just(Movement::eight(CornerRule::Any)),
    ]
}

fn pick(grid: &Grid, index: Index) -> Cell {
    let position = index.index(grid.len());
    let width = grid.width() as usize;
    Cell::new((position % width) as u32, (position / width) as u32)
}

fn walkable_cells(grid: &Grid) -> Vec<Cell> {
    grid.cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect()
}

fn cell_distance(a: Cell, b: Cell) -> f64 {
    Waypoint::center_of(a).distance(Waypoint::center_of(b))
}

fn polyline_length(points: &[Waypoint]) -> f64 {
    points
        .windows(2)
        .map(|pair| pair[0].distance(pair[1]))
        .sum()
}

/// The costliest cell of `stretch`.
fn costliest(grid: &Grid, stretch: &[Cell]) -> u8 {
    stretch
        .iter()
        .map(|&cell| grid.value(cell))
        .max()
        .unwrap_or(0)
}

/// The positions in `path` of the kept cells, which must be path cells in path order.
fn positions_in_path(path: &[Cell], kept: &[Cell]) -> Result<Vec<usize>, TestCaseError> {
    let mut positions = Vec::with_capacity(kept.len());
    let mut from = 0;
    for cell in kept {
        let Some(offset) = path[from..].iter().position(|on_path| on_path == cell) else {
            return Err(TestCaseError::fail(format!("{cell} out of order")));
        };
        from += offset;
        positions.push(from);
    }
    Ok(positions)
}

/// Checks every promise of `smooth_path` for one path; returns the number of waypoints.
fn check_smoothing(
    grid: &Grid,
    path: &[Cell],
    movement: Movement,
    options: SmoothingOptions,
) -> Result<usize, TestCaseError> {
    let waypoints = smooth_path(grid, path, movement, options).expect("a valid path");
    let kept = smooth_path_cells(grid, path, movement, options).expect("a valid path");
    let centres: Vec<Waypoint> = kept.iter().copied().map(Waypoint::center_of).collect();
    prop_assert_eq!(&waypoints, &centres);
    prop_assert_eq!(kept.first(), path.first());
    prop_assert_eq!(kept.last(), path.last());
    let positions = positions_in_path(path, &kept)?;
    for pair in positions.windows(2) {
        let (from, to) = (path[pair[0]], path[pair[1]]);
        prop_assert!(
            oracle_line_of_sight(grid, from, to, movement),
            "segment {} -> {} is not clear",
            from,
            to
        );
        let limit = costliest(grid, &path[pair[0]..=pair[1]]);
        for cell in entered_cells(from, to) {
            prop_assert!(
                grid.value(cell) <= limit,
                "segment {} -> {} enters {} costing {}, more than the {} of the stretch it replaces",
                from,
                to,
                cell,
                grid.value(cell),
                limit
            );
        }
        if let Some(max) = options.max_segment {
            prop_assert!(cell_distance(from, to) <= max);
        }
        if let Some(lookahead) = options.max_lookahead {
            prop_assert!(pair[1] - pair[0] <= lookahead.get());
        }
    }
    let grid_length = polyline_length(
        &path
            .iter()
            .copied()
            .map(Waypoint::center_of)
            .collect::<Vec<_>>(),
    );
    let smoothed_length = polyline_length(&waypoints);
    prop_assert!(smoothed_length <= grid_length + 1e-9 * grid_length.max(1.0));
    Ok(waypoints.len())
}

/// Checks that each waypoint is followed by the farthest path cell that the oracle says it may
/// reach: in sight through cells no costlier than the stretch replaced, within the limits.
fn check_farthest(
    grid: &Grid,
    path: &[Cell],
    movement: Movement,
    options: SmoothingOptions,
) -> Result<(), TestCaseError> {
    let kept = smooth_path_cells(grid, path, movement, options).expect("a valid path");
    let positions = positions_in_path(path, &kept)?;
    for pair in positions.windows(2) {
        let (anchor, next) = (pair[0], pair[1]);
        for later in next + 1..path.len() {
            if options
                .max_lookahead
                .is_some_and(|lookahead| later - anchor > lookahead.get())
            {
                break;
            }
            if options
                .max_segment
                .is_some_and(|max| cell_distance(path[anchor], path[later]) > max)
            {
                continue;
            }
            let limit = costliest(grid, &path[anchor..=later]);
            prop_assert!(
                !oracle_line_of_sight_within(grid, path[anchor], path[later], movement, limit),
                "{} stops at {} but may reach {}",
                path[anchor],
                path[next],
                path[later]
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn line_of_sight_matches_the_geometric_oracle(
        grid in grids(),
        from in any::<Index>(),
        to in any::<Index>(),
        movement in movements(),
    ) {
        let (a, b) = (pick(&grid, from), pick(&grid, to));
        let seen = line_of_sight(&grid, a, b, movement);
        prop_assert_eq!(seen, oracle_line_of_sight(&grid, a, b, movement), "{} -> {}", a, b);
        prop_assert_eq!(seen, line_of_sight(&grid, b, a, movement));
    }

    #[test]
    fn line_of_sight_between_neighbours_is_the_step_rule(grid in grids(), movement in movements()) {
        let diagonal_rule = match movement.neighborhood {
            Neighborhood::Four => Movement::EIGHT,
            Neighborhood::Eight => movement,
            Neighborhood::Hex => unreachable!("these tests draw square grids"),
        };
        for (cell, _) in grid.cells() {
            for (dx, dy) in [(1, 0), (0, 1), (1, 1), (-1, 1)] {
                let Some(next) = cell.offset(dx, dy) else { continue };
                let side_x = cell.offset(dx, 0).is_some_and(|side| grid.is_walkable(side));
                let side_y = cell.offset(0, dy).is_some_and(|side| grid.is_walkable(side));
                let step = grid.is_walkable(cell)
                    && grid.is_walkable(next)
                    && diagonal_rule.allows_step(dx, dy, side_x, side_y);
                prop_assert_eq!(line_of_sight(&grid, cell, next, movement), step, "{} -> {}", cell, next);
            }
        }
    }

    #[test]
    fn smoothed_paths_are_clear_no_longer_and_keep_their_ends(
        grid in grids(),
        from in any::<Index>(),
        to in any::<Index>(),
        movement in movements(),
        max_segment in prop_oneof![Just(None), (1.5..8.0f64).prop_map(Some)],
        max_lookahead in prop_oneof![Just(None), (1usize..12).prop_map(NonZeroUsize::new)],
    ) {
        let walkable = walkable_cells(&grid);
        prop_assume!(!walkable.is_empty());
        let (start, goal) = (from.get(&walkable).to_owned(), to.get(&walkable).to_owned());
        let options = SearchOptions::default().with_movement(movement);
        let result = Searcher::new().find_path(&grid, start, goal, &options).expect("valid query");
        prop_assume!(result.path.is_some());
        let path = result.path.expect("checked");
        let options = SmoothingOptions { max_segment, max_lookahead };
        check_smoothing(&grid, &path.cells, movement, options)?;
        check_farthest(&grid, &path.cells, movement, options)?;
    }

    #[test]
    fn line_of_sight_within_a_cost_matches_the_geometric_oracle(
        grid in terrain_grids(),
        from in any::<Index>(),
        to in any::<Index>(),
        movement in movements(),
        max_cost in 0u8..=10,
    ) {
        let (a, b) = (pick(&grid, from), pick(&grid, to));
        let seen = line_of_sight_within(&grid, a, b, movement, max_cost);
        prop_assert_eq!(
            seen,
            oracle_line_of_sight_within(&grid, a, b, movement, max_cost),
            "{} -> {} within {}",
            a,
            b,
            max_cost
        );
        prop_assert_eq!(seen, line_of_sight_within(&grid, b, a, movement, max_cost));
        prop_assert_eq!(
            line_of_sight_within(&grid, a, b, movement, u8::MAX),
            line_of_sight(&grid, a, b, movement)
        );
    }

    #[test]
    fn smoothed_segments_enter_no_terrain_costlier_than_the_stretch_they_replace(
        grid in terrain_grids(),
        from in any::<Index>(),
        to in any::<Index>(),
        movement in movements(),
        max_segment in prop_oneof![Just(None), (1.5..8.0f64).prop_map(Some)],
        max_lookahead in prop_oneof![Just(None), (1usize..12).prop_map(NonZeroUsize::new)],
    ) {
        let walkable = walkable_cells(&grid);
        prop_assume!(!walkable.is_empty());
        let (start, goal) = (from.get(&walkable).to_owned(), to.get(&walkable).to_owned());
        let options = SearchOptions::default().with_movement(movement);
        let result = Searcher::new().find_path(&grid, start, goal, &options).expect("valid query");
        prop_assume!(result.path.is_some());
        let path = result.path.expect("checked");
        let options = SmoothingOptions { max_segment, max_lookahead };
        check_smoothing(&grid, &path.cells, movement, options)?;
        check_farthest(&grid, &path.cells, movement, options)?;
    }
}

/// `grid` with its walkable cells in 5 by 5 squares, one every 15 cells each way, costing 5.
fn with_swamp_patches(grid: &Grid) -> Grid {
    Grid::from_fn(grid.width(), grid.height(), |cell| match grid.value(cell) {
        0 => 0,
        _ if (cell.x / 5) % 3 == 1 && (cell.y / 5) % 3 == 1 => 5,
        value => value,
    })
}

#[test]
fn smoothing_holds_on_benchmark_maps() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/maps/dao");
    let mut searcher = Searcher::new();
    let mut total_waypoints = 0;
    let mut total_cells = 0;
    for name in ["arena", "den312d"] {
        let map = std::fs::read_to_string(format!("{root}/{name}.map")).unwrap();
        let scenario = std::fs::read_to_string(format!("{root}/{name}.map.scen")).unwrap();
        let grid = parse_map(&map).unwrap();
        let scenario = parse_scenario(&scenario).unwrap();
        let step = (scenario.queries.len() / 40).max(1);
        for grid in [grid.clone(), with_swamp_patches(&grid)] {
            for query in scenario.queries.iter().step_by(step) {
                for movement in [
                    Movement::EIGHT,
                    Movement::FOUR,
                    Movement::eight(CornerRule::Any),
                ] {
                    let options = SearchOptions::default().with_movement(movement);
                    let result = searcher
                        .find_path(&grid, query.start, query.goal, &options)
                        .unwrap();
                    let Some(path) = result.path else { continue };
                    for options in [
                        SmoothingOptions::default(),
                        SmoothingOptions::default().with_max_segment(5.0),
                        SmoothingOptions::default()
                            .with_max_lookahead(NonZeroUsize::MIN.saturating_add(7)),
                    ] {
                        total_waypoints += check_smoothing(&grid, &path.cells, movement, options)
                            .unwrap_or_else(|error| panic!("{name} {query:?}: {error}"));
                        total_cells += path.cells.len();
                    }
                }
            }
        }
    }
    assert!(
        total_waypoints < total_cells,
        "smoothing should remove cells"
    );
}

#[test]
fn an_open_grid_path_becomes_one_segment() {
    let grid = Grid::new(9, 7);
    let mut searcher = Searcher::new();
    for movement in [Movement::FOUR, Movement::EIGHT] {
        let options = SearchOptions::default().with_movement(movement);
        let path = searcher
            .find_path(&grid, Cell::new(0, 6), Cell::new(8, 1), &options)
            .unwrap()
            .path
            .unwrap();
        let waypoints =
            smooth_path(&grid, &path.cells, movement, SmoothingOptions::default()).unwrap();
        assert_eq!(
            waypoints,
            [Waypoint::new(0.5, 6.5), Waypoint::new(8.5, 1.5)]
        );
    }
}

#[test]
fn a_path_that_does_not_fit_the_movement_is_refused() {
    let grid = Grid::from_ascii(
        "..
         #.",
    )
    .unwrap();
    let cut = [Cell::new(0, 0), Cell::new(1, 1)];
    assert_eq!(
        smooth_path(&grid, &cut, Movement::EIGHT, SmoothingOptions::default()),
        Err(SmoothingError::CornerBlocked { index: 0 })
    );
    assert!(
        smooth_path(
            &grid,
            &cut,
            Movement::eight(CornerRule::One),
            SmoothingOptions::default()
        )
        .is_ok()
    );
}

/// A 12 by 7 field with a swamp (cost 9) in the middle, from (3, 2) to (8, 4).
fn swamp_field() -> Grid {
    Grid::from_ascii(
        "............
         ............
         ...999999...
         ...999999...
         ...999999...
         ............
         ............",
    )
    .expect("a valid drawing")
}

#[test]
fn a_path_around_a_swamp_is_not_smoothed_through_it() {
    let grid = swamp_field();
    let is_swamp = |cell: Cell| grid.value(cell) == 9;
    let (start, goal) = (Cell::new(0, 3), Cell::new(11, 3));
    // Plain line of sight would take the straight line through the swamp.
    assert!(line_of_sight(&grid, start, goal, Movement::EIGHT));
    assert!(entered_cells(start, goal).into_iter().any(is_swamp));
    let mut searcher = Searcher::new();
    for movement in [
        Movement::FOUR,
        Movement::EIGHT,
        Movement::eight(CornerRule::Any),
    ] {
        let options = SearchOptions::default().with_movement(movement);
        let path = searcher
            .find_path(&grid, start, goal, &options)
            .unwrap()
            .path
            .unwrap();
        assert!(
            !path.cells.iter().copied().any(is_swamp),
            "the search goes around the swamp"
        );
        for options in [
            SmoothingOptions::default(),
            SmoothingOptions::default().with_max_segment(4.0),
        ] {
            let kept = smooth_path_cells(&grid, &path.cells, movement, options).unwrap();
            assert!(kept.len() >= 3, "{kept:?} goes straight through the swamp");
            for pair in kept.windows(2) {
                let crossed: Vec<Cell> = entered_cells(pair[0], pair[1])
                    .into_iter()
                    .filter(|&cell| is_swamp(cell))
                    .collect();
                assert!(
                    crossed.is_empty(),
                    "{} -> {} crosses the swamp at {crossed:?}",
                    pair[0],
                    pair[1]
                );
            }
            check_smoothing(&grid, &path.cells, movement, options).unwrap();
        }
    }
}

#[test]
fn a_path_that_must_cross_a_swamp_is_straightened_inside_it() {
    // The swamp fills columns 3 to 8 from top to bottom: every path from left to right crosses
    // it, so a segment may enter swamp wherever the stretch it replaces does.
    let mut grid = Grid::new(12, 7);
    grid.fill_rect(Cell::new(3, 0), Cell::new(8, 6), 9);
    let (start, goal) = (Cell::new(0, 0), Cell::new(11, 6));
    let path = Searcher::new()
        .find_path(&grid, start, goal, &SearchOptions::default())
        .unwrap()
        .path
        .unwrap();
    assert!(path.cells.iter().any(|&cell| grid.value(cell) == 9));
    let kept = smooth_path_cells(
        &grid,
        &path.cells,
        Movement::EIGHT,
        SmoothingOptions::default(),
    )
    .unwrap();
    assert_eq!(kept, [start, goal]);
}

/// Under four-connected movement a diagonal step is no step at all: a path that takes one is
/// refused, naming the step, as it is under eight-connected movement when the cells are not
/// neighbours.
#[test]
fn a_diagonal_step_is_refused_under_four_connected_movement() {
    let grid = Grid::new(4, 4);
    let path = [(0, 0), (1, 0), (2, 1), (3, 1)].map(Cell::from);
    let options = SmoothingOptions::default();
    assert_eq!(
        smooth_path_cells(&grid, &path, Movement::FOUR, options),
        Err(SmoothingError::NotAdjacent { index: 1 })
    );
    assert_eq!(
        smooth_path(&grid, &path, Movement::FOUR, options),
        Err(SmoothingError::NotAdjacent { index: 1 })
    );
    assert!(smooth_path_cells(&grid, &path, Movement::EIGHT, options).is_ok());
}
