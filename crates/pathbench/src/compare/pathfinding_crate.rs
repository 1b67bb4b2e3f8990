//! The `pathfinding` crate's `astar` with a successor closure over the benchmark's grid and rules.

use super::{Answer, Contender, timed};
use astar_grid::{Cell, Grid};

/// Cost of a straight step, scaled to an integer because `pathfinding` needs `Ord` costs.
const STRAIGHT: u64 = 1_000_000;
/// Cost of a diagonal step: `round(sqrt(2) * 1e6)`.
const DIAGONAL: u64 = 1_414_214;
/// The eight neighbour offsets.
const STEPS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// `pathfinding::directed::astar::astar` over [`Cell`]s: the successors are the walkable
/// neighbours, diagonals only when both corner cells are walkable; costs and heuristic are octile,
/// in millionths.
pub struct PathfindingAstar;

impl Contender for PathfindingAstar {
    fn name(&self) -> &'static str {
        "pathfinding-astar"
    }

    fn rules(&self) -> &'static str {
        "the benchmark's, with costs in integer millionths (diagonal 1414214)"
    }

    fn prepare(&mut self, _grid: &Grid) -> Result<(), String> {
        Ok(())
    }

    fn query(&mut self, grid: &Grid, start: Cell, goal: Cell) -> Result<Answer, String> {
        let (micros, found) = timed(|| {
            pathfinding::directed::astar::astar(
                &start,
                |&cell| successors(grid, cell),
                |&cell| octile_estimate(cell, goal),
                |&cell| cell == goal,
            )
        });
        Ok(Answer {
            micros,
            cells: found.map(|(cells, _cost)| cells),
        })
    }
}

/// The cells one legal step from `cell`, with their scaled costs.
fn successors(grid: &Grid, cell: Cell) -> impl Iterator<Item = (Cell, u64)> + '_ {
    STEPS.iter().filter_map(move |&(dx, dy)| {
        let next = cell.offset(dx, dy)?;
        if !grid.is_walkable(next) {
            return None;
        }
        if dx == 0 || dy == 0 {
            return Some((next, STRAIGHT));
        }
        let corners_free = grid.is_walkable(Cell::new(next.x, cell.y))
            && grid.is_walkable(Cell::new(cell.x, next.y));
        corners_free.then_some((next, DIAGONAL))
    })
}

/// Octile distance in the same scaled costs: admissible and consistent for them.
fn octile_estimate(from: Cell, to: Cell) -> u64 {
    let dx = u64::from(from.x.abs_diff(to.x));
    let dy = u64::from(from.y.abs_diff(to.y));
    let diagonal = dx.min(dy);
    diagonal * DIAGONAL + (dx.max(dy) - diagonal) * STRAIGHT
}
