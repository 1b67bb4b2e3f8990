//! Connectivity labels and blocking checks against plain flood fills and A* on edited copies.

use astar_grid::{
    Cell, Components, ConnectivityError, CornerRule, Grid, Movement, SearchOptions, Searcher,
};
use proptest::prelude::*;
use std::collections::{HashMap, VecDeque};

const MOVEMENTS: [Movement; 4] = [
    Movement::FOUR,
    Movement::EIGHT,
    Movement::eight(CornerRule::One),
    Movement::eight(CornerRule::Any),
];

/// Component numbers from a breadth-first flood fill that steps by `Movement::allows_step`.
fn oracle_labels(grid: &Grid, movement: Movement) -> HashMap<Cell, usize> {
    let mut labels = HashMap::new();
    let mut next_label = 0;
    for (start, _) in grid.cells().filter(|&(_, value)| value != 0) {
        if labels.contains_key(&start) {
            continue;
        }
        labels.insert(start, next_label);
        let mut queue = VecDeque::from([start]);
        while let Some(cell) = queue.pop_front() {
            for neighbour in legal_steps(grid, movement, cell) {
                if let std::collections::hash_map::Entry::Vacant(entry) = labels.entry(neighbour) {
                    entry.insert(next_label);
                    queue.push_back(neighbour);
                }
            }
        }
        next_label += 1;
    }
    labels
}

fn legal_steps(grid: &Grid, movement: Movement, cell: Cell) -> Vec<Cell> {
    let mut steps = Vec::new();
    for dy in -1..=1 {
        for dx in -1..=1 {
            if (dx, dy) == (0, 0) {
                continue;
            }
            let Some(next) = cell.offset(dx, dy) else {
                continue;
            };
            let corner_a = cell.offset(dx, 0).is_some_and(|c| grid.is_walkable(c));
            let corner_b = cell.offset(0, dy).is_some_and(|c| grid.is_walkable(c));
            if grid.is_walkable(next) && movement.allows_step(dx, dy, corner_a, corner_b) {
                steps.push(next);
            }
        }
    }
    steps
}

/// Asserts that `components` partitions the walkable cells exactly as the oracle does.
fn assert_matches_oracle(grid: &Grid, movement: Movement, components: &Components) {
    let oracle = oracle_labels(grid, movement);
    let mut forward = HashMap::new();
    let mut backward = HashMap::new();
    let mut oracle_sizes: HashMap<usize, usize> = HashMap::new();
    for (cell, value) in grid.cells() {
        let id = components.component(cell);
        if value == 0 {
            assert_eq!(id, None, "blocked {cell} has a label");
            continue;
        }
        let id = id.unwrap_or_else(|| panic!("walkable {cell} has no label"));
        let truth = oracle[&cell];
        *oracle_sizes.entry(truth).or_default() += 1;
        assert_eq!(
            *forward.entry(id).or_insert(truth),
            truth,
            "{cell}: label joins two components"
        );
        assert_eq!(
            *backward.entry(truth).or_insert(id),
            id,
            "{cell}: component split over labels"
        );
    }
    assert_eq!(components.component_count(), oracle_sizes.len());
    for (truth, size) in oracle_sizes {
        assert_eq!(components.component_size(backward[&truth]), size);
    }
}

fn grid_strategy(max_side: u32) -> impl Strategy<Value = Grid> {
    (1..=max_side, 1..=max_side).prop_flat_map(|(width, height)| {
        prop::collection::vec(
            prop_oneof![2 => Just(0u8), 3 => 1..=3u8],
            (width * height) as usize,
        )
        .prop_map(move |values| {
            Grid::from_fn(width, height, |cell| {
                values[(cell.y * width + cell.x) as usize]
            })
        })
    })
}

fn movement_strategy() -> impl Strategy<Value = Movement> {
    prop::sample::select(MOVEMENTS.to_vec())
}

/// A cell of `grid` from two arbitrary numbers.
fn pick(grid: &Grid, (x, y): (u32, u32)) -> Cell {
    Cell::new(x % grid.width(), y % grid.height())
}

fn reachable(searcher: &mut Searcher, grid: &Grid, movement: Movement, a: Cell, b: Cell) -> bool {
    let options = SearchOptions::default().with_movement(movement);
    searcher
        .find_path(grid, a, b, &options)
        .is_ok_and(|result| result.found().is_some())
}

proptest! {
    #[test]
    fn labels_follow_random_edits(
        mut grid in grid_strategy(12),
        movement in movement_strategy(),
        edits in prop::collection::vec(
            prop::collection::vec(((0u32..64, 0u32..64), prop_oneof![Just(0u8), 1..=2u8]), 1..4),
            1..24,
        ),
    ) {
        let mut components = Components::new(&grid, movement);
        assert_matches_oracle(&grid, movement, &components);
        for batch in edits {
            let mut changed = Vec::new();
            for (position, value) in batch {
                let cell = pick(&grid, position);
                grid.set_cost(cell, value).unwrap();
                changed.push(cell);
            }
            components.update(&grid, &changed).unwrap();
            assert_matches_oracle(&grid, movement, &components);
        }
    }

    #[test]
    fn blocking_checks_agree_with_astar_on_an_edited_copy(
        grid in grid_strategy(10),
        movement in movement_strategy(),
        blocked in prop::collection::vec((0u32..64, 0u32..64), 1..5),
        from in prop::collection::vec((0u32..64, 0u32..64), 1..4),
        to in (0u32..64, 0u32..64),
    ) {
        let components = Components::new(&grid, movement);
        let blocked: Vec<Cell> = blocked.into_iter().map(|position| pick(&grid, position)).collect();
        let from: Vec<Cell> = from.into_iter().map(|position| pick(&grid, position)).collect();
        let to = pick(&grid, to);
        let check = components.check_blocking(&blocked, &from, to).unwrap();

        let mut edited = grid.clone();
        for &cell in &blocked {
            edited.set_blocked(cell, true).unwrap();
        }
        let mut searcher = Searcher::new();
        let (mut cut_off, mut already, mut covered) = (Vec::new(), Vec::new(), Vec::new());
        // Whether the candidates take the goal away from a point that reaches it, or altogether.
        let mut loses_goal = false;
        for &point in &from {
            let reaches_now = reachable(&mut searcher, &grid, movement, point, to);
            if !reaches_now {
                already.push(point);
            }
            if blocked.contains(&point) && grid.is_walkable(point) {
                covered.push(point);
                loses_goal |= reaches_now;
            } else if reaches_now && !reachable(&mut searcher, &edited, movement, point, to) {
                cut_off.push(point);
                loses_goal = true;
            }
        }
        if blocked.contains(&to) && grid.is_walkable(to) {
            covered.push(to);
            loses_goal = true;
        }
        prop_assert_eq!(&check.cut_off, &cut_off);
        prop_assert_eq!(&check.already_unreachable, &already);
        prop_assert_eq!(&check.covered, &covered);
        prop_assert_eq!(check.disconnects(), loses_goal);
        prop_assert_eq!(
            components.would_disconnect(&blocked, &from, to).unwrap(),
            loses_goal
        );
    }
}

#[test]
fn blocking_a_cell_in_open_ground_does_little_work() {
    let mut grid = Grid::new(200, 200);
    for movement in MOVEMENTS {
        let mut components = Components::new(&grid, movement);
        let work = components
            .set_blocked(&mut grid, Cell::new(100, 100), true)
            .unwrap();
        assert_eq!(work.changed, 1);
        assert_eq!(work.relabeled, 0);
        assert!(work.visited < 200, "{movement:?}: visited {}", work.visited);
        assert_eq!(components.component_count(), 1);
        components
            .set_blocked(&mut grid, Cell::new(100, 100), false)
            .unwrap();
    }
}

#[test]
fn a_split_relabels_only_the_piece_cut_off() {
    // A 30-cell room joined to a big field by a one-cell door at (0, 4).
    let mut grid = Grid::new(100, 100);
    grid.fill_rect(Cell::new(0, 3), Cell::new(99, 3), 0);
    grid.set_blocked(Cell::new(0, 3), false).unwrap();
    grid.fill_rect(Cell::new(10, 0), Cell::new(10, 2), 0);
    let mut components = Components::new(&grid, Movement::EIGHT);
    let small_room = 10 * 3;
    let work = components
        .set_blocked(&mut grid, Cell::new(0, 3), true)
        .unwrap();
    assert_eq!(work.relabeled, small_room);
    assert!(work.visited < 20 * small_room, "visited {}", work.visited);
    assert!(!components.same_component(Cell::new(0, 0), Cell::new(50, 50)));
    assert_eq!(
        components.component_size(components.component(Cell::new(0, 0)).unwrap()),
        small_room
    );
}

#[test]
fn diagonal_gaps_follow_the_corner_rule() {
    let grid = Grid::from_ascii(
        ".#
         #.",
    )
    .unwrap();
    let (a, b) = (Cell::new(0, 0), Cell::new(1, 1));
    assert!(!Components::new(&grid, Movement::EIGHT).same_component(a, b));
    assert!(!Components::new(&grid, Movement::eight(CornerRule::One)).same_component(a, b));
    assert!(Components::new(&grid, Movement::eight(CornerRule::Any)).same_component(a, b));
    assert!(!Components::new(&grid, Movement::FOUR).same_component(a, b));
}

#[test]
fn bad_requests_get_typed_errors_and_change_nothing() {
    let mut grid = Grid::new(4, 4);
    let mut components = Components::new(&grid, Movement::EIGHT);
    assert!(matches!(
        components.update(&Grid::new(5, 4), &[]),
        Err(ConnectivityError::GridMismatch { .. })
    ));
    grid.set_blocked(Cell::new(0, 0), true).unwrap();
    assert!(matches!(
        components.update(&grid, &[Cell::new(0, 0), Cell::new(4, 0)]),
        Err(ConnectivityError::OutOfBounds { .. })
    ));
    assert!(
        components.component(Cell::new(0, 0)).is_some(),
        "no partial update"
    );
    assert!(matches!(
        components.check_blocking(&[Cell::new(9, 9)], &[Cell::new(0, 0)], Cell::new(3, 3)),
        Err(ConnectivityError::OutOfBounds { .. })
    ));
    assert!(matches!(
        components.set_blocked(&mut grid, Cell::new(0, 4), true),
        Err(ConnectivityError::OutOfBounds { .. })
    ));
    assert!(!components.same_component(Cell::new(0, 0), Cell::new(7, 7)));
}

/// A candidate on a point that cannot reach the goal even now takes nothing from it: the point
/// is reported as covered and as already unreachable, and the check does not count as
/// disconnecting.
#[test]
fn covering_a_point_already_walled_off_does_not_disconnect() {
    let grid = Grid::from_ascii(
        "..#..
         ..#..",
    )
    .unwrap();
    let components = Components::new(&grid, Movement::FOUR);
    let (point, goal) = (Cell::new(0, 0), Cell::new(4, 1));
    let check = components.check_blocking(&[point], &[point], goal).unwrap();
    assert_eq!(check.covered, [point]);
    assert_eq!(check.already_unreachable, [point]);
    assert!(check.cut_off.is_empty());
    assert!(!check.disconnects());
    assert!(
        !components
            .would_disconnect(&[point], &[point], goal)
            .unwrap()
    );
    // A point that reaches the goal and is covered does lose it.
    let reaching = Cell::new(3, 0);
    let covered = components
        .check_blocking(&[reaching], &[point, reaching], goal)
        .unwrap();
    assert_eq!(covered.covered, [reaching]);
    assert!(covered.disconnects());
}
