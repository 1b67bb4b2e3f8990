//! `bevy_northstar`'s grid searches, A* and refined HPA*, on a copy of the benchmark grid.
//!
//! The grid is an `OrdinalGrid` (eight neighbours) with the crate's `NoCornerCutting` filter,
//! which forbids a diagonal step when either corner cell is blocked: the benchmark's rule. Every
//! walkable cell is `Nav::Passable(1)`, as in the crate's examples and benchmarks. Its costs
//! differ from the benchmark's and cannot be made to match: a step costs the entered cell's cost
//! whatever its direction (diagonals cost the same as straight steps), and its heuristic is
//! 1000 times the Chebyshev distance (plus a tie-breaker), far above those step costs, so its A*
//! is close to a greedy best-first search. Lengths are therefore measured here in octile units
//! from the returned cells. HPA* uses the crate's default 16x16 chunks and refinement; some of
//! its paths cut corners despite the filter, which the comparison counts as illegal steps.

use super::{Answer, Contender, timed};
use astar_grid::{Cell, Grid};
use bevy::math::UVec3;
use bevy_northstar::OrdinalGrid;
use bevy_northstar::filter::NoCornerCutting;
use bevy_northstar::grid::GridSettingsBuilder;
use bevy_northstar::nav::Nav;
use bevy_northstar::pathfind::PathfindArgs;

/// Which of the crate's searches to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NorthstarMode {
    /// `PathfindMode::AStar`: A* over the whole grid.
    Astar,
    /// `PathfindMode::Refined` (the crate's default): HPA* over 16x16 chunks, then the path is
    /// straightened by line tracing. Not optimal, and some paths cut corners.
    Hpa,
}

/// `Grid::pathfind` on a built `OrdinalGrid`.
pub struct Northstar {
    mode: NorthstarMode,
    grid: Option<OrdinalGrid>,
}

impl Northstar {
    /// A contender running `mode`; [`Contender::prepare`] builds its grid for each map.
    pub fn new(mode: NorthstarMode) -> Self {
        Self { mode, grid: None }
    }
}

impl Contender for Northstar {
    fn name(&self) -> &'static str {
        match self.mode {
            NorthstarMode::Astar => "northstar-astar",
            NorthstarMode::Hpa => "northstar-hpa",
        }
    }

    fn rules(&self) -> &'static str {
        match self.mode {
            NorthstarMode::Astar => {
                "8 neighbours, no corner cutting; every step costs 1, heuristic 1000x Chebyshev"
            }
            NorthstarMode::Hpa => {
                "as northstar-astar, hierarchical over 16x16 chunks with path refinement"
            }
        }
    }

    fn prepare(&mut self, grid: &Grid) -> Result<(), String> {
        if grid.width() < 3 || grid.height() < 3 {
            return Err(format!(
                "{}: bevy_northstar needs a grid of at least 3x3, not {}x{}",
                self.name(),
                grid.width(),
                grid.height()
            ));
        }
        self.grid = Some(build_grid(grid));
        Ok(())
    }

    fn query(&mut self, _grid: &Grid, start: Cell, goal: Cell) -> Result<Answer, String> {
        let northstar = self
            .grid
            .as_ref()
            .ok_or_else(|| format!("{}: queried before prepare", self.name()))?;
        let mut request = PathfindArgs::new(to_position(start), to_position(goal));
        request = match self.mode {
            NorthstarMode::Astar => request.astar(),
            NorthstarMode::Hpa => request.refined(),
        };
        let (micros, found) = timed(|| northstar.pathfind(&mut request));
        // The crate's paths leave out the start cell.
        let cells = found.map(|path| {
            core::iter::once(start)
                .chain(
                    path.into_iter()
                        .map(|position| Cell::new(position.x, position.y)),
                )
                .collect()
        });
        Ok(Answer { micros, cells })
    }
}

/// A cell as the crate's 3D position on layer 0.
/// The crate's grid for `grid` (8 neighbours, no corner cutting), built.
pub(crate) fn build_grid(grid: &Grid) -> OrdinalGrid {
    let settings = GridSettingsBuilder::new_2d(grid.width(), grid.height())
        .add_neighbor_filter(NoCornerCutting)
        .build();
    let mut northstar = OrdinalGrid::new(&settings);
    for (cell, value) in grid.cells() {
        if value == 0 {
            northstar.set_nav(to_position(cell), Nav::Impassable);
        }
    }
    northstar.build();
    northstar
}

fn to_position(cell: Cell) -> UVec3 {
    UVec3::new(cell.x, cell.y, 0)
}
