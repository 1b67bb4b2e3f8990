//! Judging a returned path by the benchmark's rules: its octile length and its illegal steps.

use astar_grid::{Cell, Grid};

/// `sqrt(2)`, the cost of a diagonal step in the Moving AI benchmarks.
const DIAGONAL: f64 = core::f64::consts::SQRT_2;

/// Relative tolerance when comparing a length with the benchmark's optimum (the `.scen` files
/// give lengths to 8 decimal places and libraries add up rounded or scaled costs).
pub const LENGTH_TOLERANCE: f64 = 1e-4;

/// A path measured by the benchmark's rules: eight neighbours, straight steps 1, diagonal steps
/// `sqrt(2)`, no diagonal step past a blocked corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathCheck {
    /// Octile length of the steps; a step between cells that are not neighbours counts its octile
    /// distance (a lower bound of any legal detour).
    pub length: f64,
    /// The steps that break the rules.
    pub illegal: IllegalSteps,
    /// Whether the path begins at the start and ends at the goal.
    pub joins_endpoints: bool,
}

impl PathCheck {
    /// Whether an agent could walk this path from start to goal under the benchmark's rules.
    pub fn is_legal(&self) -> bool {
        self.illegal.total() == 0 && self.joins_endpoints
    }
}

/// Steps that break the benchmark's rules, by kind (each step counts once, as the first kind
/// that fits in this order: jump, wall, corner cut).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IllegalSteps {
    /// Steps to a cell that is not one of the eight neighbours, or to the same cell.
    pub jumps: usize,
    /// Steps onto a blocked cell (a blocked first cell counts as one).
    pub into_walls: usize,
    /// Diagonal steps between free cells past a blocked corner cell.
    pub corner_cuts: usize,
}

impl IllegalSteps {
    /// All illegal steps.
    pub fn total(&self) -> usize {
        self.jumps + self.into_walls + self.corner_cuts
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: Self) {
        self.jumps += other.jumps;
        self.into_walls += other.into_walls;
        self.corner_cuts += other.corner_cuts;
    }
}

/// The octile distance between two cells: `sqrt(2)` per diagonal, 1 per straight step.
pub fn octile_distance(from: Cell, to: Cell) -> f64 {
    let dx = from.x.abs_diff(to.x);
    let dy = from.y.abs_diff(to.y);
    let diagonal = dx.min(dy);
    f64::from(diagonal) * DIAGONAL + f64::from(dx.max(dy) - diagonal)
}

/// Measures `cells` (start to goal inclusive) on `grid` for the query `start` to `goal`.
pub fn check_path(grid: &Grid, cells: &[Cell], start: Cell, goal: Cell) -> PathCheck {
    let joins_endpoints = cells.first() == Some(&start) && cells.last() == Some(&goal);
    let mut illegal = IllegalSteps {
        into_walls: usize::from(cells.first().is_some_and(|&first| !grid.is_walkable(first))),
        ..IllegalSteps::default()
    };
    let mut length = 0.0;
    for pair in cells.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        length += octile_distance(from, to);
        if from == to || !from.is_adjacent_8(to) {
            illegal.jumps += 1;
        } else if !grid.is_walkable(to) {
            illegal.into_walls += 1;
        } else if from.x != to.x
            && from.y != to.y
            && !(grid.is_walkable(Cell::new(to.x, from.y))
                && grid.is_walkable(Cell::new(from.x, to.y)))
        {
            illegal.corner_cuts += 1;
        }
    }
    PathCheck {
        length,
        illegal,
        joins_endpoints,
    }
}

/// Whether `length` matches the benchmark's `optimal` length within [`LENGTH_TOLERANCE`].
pub fn matches_optimal(length: f64, optimal: f64) -> bool {
    (length - optimal).abs() <= LENGTH_TOLERANCE * optimal.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        // Walls at (1, 1) and (3, 0).
        Grid::from_ascii(
            "...#.
             .#...
             .....",
        )
        .unwrap()
    }

    #[test]
    fn legal_path_has_its_octile_length() {
        // Two straight steps, then a diagonal whose corner cells (3, 1) and (2, 2) are free.
        let cells = [
            Cell::new(1, 0),
            Cell::new(2, 0),
            Cell::new(2, 1),
            Cell::new(3, 2),
        ];
        let check = check_path(&grid(), &cells, Cell::new(1, 0), Cell::new(3, 2));
        assert!(check.is_legal(), "{check:?}");
        assert!((check.length - (2.0 + DIAGONAL)).abs() < 1e-12);
    }

    #[test]
    fn cutting_a_corner_is_illegal() {
        // (0, 0) -> (1, 0) -> (2, 1): the diagonal passes the wall at (1, 1).
        let cells = [Cell::new(0, 0), Cell::new(1, 0), Cell::new(2, 1)];
        let check = check_path(&grid(), &cells, Cell::new(0, 0), Cell::new(2, 1));
        assert_eq!(check.illegal.corner_cuts, 1);
        assert_eq!(check.illegal.total(), 1);
        assert!(!check.is_legal());
    }

    #[test]
    fn walls_jumps_and_wrong_ends_are_illegal() {
        let g = grid();
        let only = |jumps, into_walls, corner_cuts| IllegalSteps {
            jumps,
            into_walls,
            corner_cuts,
        };
        let into_wall = [Cell::new(0, 1), Cell::new(1, 1), Cell::new(2, 1)];
        let check = check_path(&g, &into_wall, Cell::new(0, 1), Cell::new(2, 1));
        assert_eq!(check.illegal, only(0, 1, 0));
        let from_wall = [Cell::new(1, 1), Cell::new(2, 1)];
        let check = check_path(&g, &from_wall, Cell::new(1, 1), Cell::new(2, 1));
        assert_eq!(check.illegal, only(0, 1, 0));
        let jump = [Cell::new(0, 2), Cell::new(3, 2)];
        let check = check_path(&g, &jump, Cell::new(0, 2), Cell::new(3, 2));
        assert_eq!(check.illegal, only(1, 0, 0));
        assert!((check.length - 3.0).abs() < 1e-12);
        let repeat = [Cell::new(0, 2), Cell::new(0, 2)];
        let check = check_path(&g, &repeat, Cell::new(0, 2), Cell::new(0, 2));
        assert_eq!(check.illegal, only(1, 0, 0));
        let short = [Cell::new(0, 2), Cell::new(1, 2)];
        let check = check_path(&g, &short, Cell::new(0, 2), Cell::new(2, 2));
        assert!(!check.joins_endpoints);
        assert_eq!(check.illegal.total(), 0);
        assert!(!check.is_legal());
    }

    #[test]
    fn octile_distance_is_the_shortest_path_cost_on_an_open_grid() {
        let open = Grid::new(10, 10);
        let options = astar_grid::SearchOptions::default();
        let origin = Cell::new(2, 3);
        for (cell, _) in open.cells() {
            let cost = astar_grid::find_path(&open, origin, cell, &options)
                .unwrap()
                .cost()
                .unwrap();
            assert!(
                (octile_distance(origin, cell) - cost).abs() < 1e-9,
                "{cell}"
            );
            assert!(
                (octile_distance(cell, origin) - cost).abs() < 1e-9,
                "{cell}"
            );
        }
    }

    #[test]
    fn optimal_match_is_relative() {
        assert!(matches_optimal(1000.05, 1000.0));
        assert!(!matches_optimal(1000.2, 1000.0));
        assert!(matches_optimal(0.0, 0.0));
        assert!(!matches_optimal(1.0, 0.0));
    }
}
