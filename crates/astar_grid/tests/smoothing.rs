//! Property tests of line of sight and path smoothing against an exact geometric oracle that
//! intersects each segment with every cell square, independently of the supercover walk.

use astar_grid::{
    Cell, CornerRule, Grid, Movement, Neighborhood, SearchOptions, Searcher, SmoothingError,
    SmoothingOptions, Waypoint, line_of_sight, parse_map, parse_scenario, smooth_path,
    smooth_path_cells,
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

/// Line of sight decided from the geometry alone.
fn oracle_line_of_sight(grid: &Grid, a: Cell, b: Cell, movement: Movement) -> bool {
    if !grid.is_walkable(a) || !grid.is_walkable(b) {
        return false;
    }
    let rule = match movement.neighborhood {
        Neighborhood::Four => CornerRule::Both,
        Neighborhood::Eight => movement.corners,
    };
    let mut corners: BTreeMap<(i64, i64), Vec<bool>> = BTreeMap::new();
    for y in a.y.min(b.y)..=a.y.max(b.y) {
        for x in a.x.min(b.x)..=a.x.max(b.x) {
            let cell = Cell::new(x, y);
            match contact(a, b, cell) {
                Contact::None => {}
                Contact::Interior => {
                    if !grid.is_walkable(cell) {
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
    // The waypoints are path cells in path order.
    let mut rest = path.iter();
    for cell in &kept {
        prop_assert!(rest.any(|on_path| on_path == cell), "{cell} out of order");
    }
    for pair in kept.windows(2) {
        prop_assert!(
            oracle_line_of_sight(grid, pair[0], pair[1], movement),
            "segment {} -> {} is not clear",
            pair[0],
            pair[1]
        );
        if let Some(max) = options.max_segment {
            prop_assert!(cell_distance(pair[0], pair[1]) <= max);
        }
    }
    if let Some(lookahead) = options.max_lookahead {
        let positions: Vec<usize> = kept
            .iter()
            .scan(0, |from, cell| {
                *from += path[*from..].iter().position(|on_path| on_path == cell)?;
                Some(*from)
            })
            .collect();
        prop_assert!(
            positions
                .windows(2)
                .all(|pair| pair[1] - pair[0] <= lookahead.get())
        );
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
        check_smoothing(&grid, &path.cells, movement, SmoothingOptions { max_segment, max_lookahead })?;
    }
}

#[test]
fn smoothing_holds_on_benchmark_maps() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/maps");
    let mut searcher = Searcher::new();
    let mut total_waypoints = 0;
    let mut total_cells = 0;
    for name in ["arena", "den312d"] {
        let map = std::fs::read_to_string(format!("{root}/{name}.map")).unwrap();
        let scenario = std::fs::read_to_string(format!("{root}/{name}.map.scen")).unwrap();
        let grid = parse_map(&map).unwrap();
        let scenario = parse_scenario(&scenario).unwrap();
        let step = (scenario.queries.len() / 40).max(1);
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
