//! `grid_pathfinding`'s jump point search, on a copy of the benchmark grid.
//!
//! Its rules differ from the benchmark's and cannot be configured to match: with diagonal moves
//! on, a diagonal step only needs its target cell free, so it cuts corners and even slips between
//! two diagonally touching walls; its costs are integers, 70 straight and 99 diagonal (a ratio of
//! 1.41429 rather than 1.41421). Its paths are therefore measured here in octile units from the
//! returned cells, and steps that cut corners are counted as illegal.

use super::{Answer, Contender, timed};
use astar_grid::{Cell, Grid};
use grid_pathfinding::PathingGrid;
use grid_util::grid::{BoolGrid, ValueGrid};
use grid_util::point::Point;

/// `PathingGrid::get_path_single_goal` with diagonal moves, its default improved pruning and
/// heuristic factor 1 (optimal under its own rules); connected components are precomputed.
#[derive(Default)]
pub struct GridPathfindingJps {
    pathing: Option<PathingGrid>,
}

impl Contender for GridPathfindingJps {
    fn name(&self) -> &'static str {
        "grid_pathfinding-jps"
    }

    fn rules(&self) -> &'static str {
        "8 neighbours with corner cutting (not configurable), costs 70/99"
    }

    fn prepare(&mut self, grid: &Grid) -> Result<(), String> {
        let (width, height) = (grid.width() as usize, grid.height() as usize);
        // `true` marks a blocked cell; the set-up follows the crate's own benchmark runner.
        let mut blocked = BoolGrid::new(width, height, false);
        for (cell, value) in grid.cells() {
            if value == 0 {
                blocked.set(to_coordinate(cell.x)?, to_coordinate(cell.y)?, true);
            }
        }
        let mut pathing = PathingGrid::new(width, height, true);
        pathing.grid = blocked;
        pathing.allow_diagonal_move = true;
        pathing.improved_pruning = true;
        pathing.heuristic_factor = 1.0;
        pathing.initialize();
        pathing.generate_components();
        self.pathing = Some(pathing);
        Ok(())
    }

    fn query(&mut self, _grid: &Grid, start: Cell, goal: Cell) -> Result<Answer, String> {
        let pathing = self
            .pathing
            .as_ref()
            .ok_or_else(|| format!("{}: queried before prepare", self.name()))?;
        let from = Point::new(to_coordinate(start.x)?, to_coordinate(start.y)?);
        let to = Point::new(to_coordinate(goal.x)?, to_coordinate(goal.y)?);
        let (micros, found) = timed(|| pathing.get_path_single_goal(from, to, false));
        let cells = found
            .map(|points| {
                points
                    .into_iter()
                    .map(to_cell)
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(Answer { micros, cells })
    }
}

/// A grid coordinate as the crate's `i32`.
fn to_coordinate(value: u32) -> Result<i32, String> {
    i32::try_from(value).map_err(|_| format!("coordinate {value} does not fit grid_pathfinding"))
}

/// A returned point as a [`Cell`].
fn to_cell(point: Point) -> Result<Cell, String> {
    match (u32::try_from(point.x), u32::try_from(point.y)) {
        (Ok(x), Ok(y)) => Ok(Cell::new(x, y)),
        _ => Err(format!(
            "grid_pathfinding returned a point off the grid: {point}"
        )),
    }
}
