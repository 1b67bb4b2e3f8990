//! Random crowd scenes shared by the crowd suites: the agents of a scene, picking distinct
//! cells by fractions, and two rooms joined by a corridor.

use astar_grid::{Cell, Grid};
use proptest::prelude::*;
use std::fmt;

/// One agent of a scene: where it starts, where it goes, how fast, and its priority.
#[derive(Clone, Copy, Debug)]
pub struct SceneAgent {
    /// The cell at whose centre it starts.
    pub start: Cell,
    /// The cell at whose centre it arrives.
    pub goal: Cell,
    /// Its top speed, in cells a second.
    pub speed: f32,
    /// Its priority where it meets an agent walking against it.
    pub priority: u32,
}

/// A scene: a grid, its agents, and the length of the narrow passage (a door or a corridor)
/// between its two parts, if it has one.
#[derive(Clone, Debug)]
pub struct CrowdScene {
    /// The ground; blocked cells and everything outside are walls.
    pub grid: Grid,
    /// The agents, by id.
    pub agents: Vec<SceneAgent>,
    /// The length in cells of the passage, if any: the scene's time bound allows for it.
    pub passage: Option<u32>,
}

impl fmt::Display for CrowdScene {
    /// The grid as ASCII, then one line per agent.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "passage {:?}\n{}", self.passage, self.grid.to_ascii())?;
        for (id, agent) in self.agents.iter().enumerate() {
            writeln!(f, "  {id}: {agent:?}")?;
        }
        Ok(())
    }
}

/// Picks distinct cells of `cells` by the fractions `picks` (each the share of the way along
/// the list, taking the next free one on a clash). There must be no more picks than cells.
pub fn distinct_cells(cells: &[Cell], picks: impl Iterator<Item = f32>) -> Vec<Cell> {
    let mut taken = vec![false; cells.len()];
    picks
        .map(|pick| {
            let mut index = ((cells.len() as f32 * pick) as usize).min(cells.len() - 1);
            while taken[index] {
                index = (index + 1) % cells.len();
            }
            taken[index] = true;
            cells[index]
        })
        .collect()
}

/// The walkable cells of `grid` for which `keep` holds, row by row.
pub fn walkable_cells(grid: &Grid, keep: impl Fn(Cell) -> bool) -> Vec<Cell> {
    grid.cells()
        .filter(|&(cell, cost)| cost != 0 && keep(cell))
        .map(|(cell, _)| cell)
        .collect()
}

/// The raw draw of one agent: where it starts and ends (fractions of the cells it may use),
/// its speed, and whether it heads east (in a corridor scene).
pub type RawAgent = (f32, f32, f32, bool);

/// A raw agent: start and goal fractions, `min_speed` to 3 cells a second, a heading.
pub fn raw_agent(min_speed: f32) -> impl Strategy<Value = RawAgent> {
    (0.0..1.0f32, 0.0..1.0f32, min_speed..3.0f32, any::<bool>())
}

/// The shape of a corridor scene: room width and height, corridor length and width, and
/// where the corridor meets the rooms (a fraction of the free rows).
pub type CorridorShape = (u32, u32, u32, u32, f32);

/// Two rooms joined by a corridor (a door in a wall one cell thick when its length is 1), from
/// `shape`, the corridor its passage, and its agents: from `raw`, they start on distinct cells of the west room and head
/// for distinct cells of the east one when they head east (all of them for `one_flow`), the
/// others the other way. The eastward flow has priority `priorities.0`, the westward
/// `priorities.1`.
pub fn corridor_from(
    shape: CorridorShape,
    raw: &[RawAgent],
    one_flow: bool,
    priorities: (u32, u32),
) -> CrowdScene {
    let (room, height, length, width, offset) = shape;
    let first = ((height - width) as f32 * offset) as u32;
    let grid = Grid::from_fn(2 * room + length, height, |cell| {
        let in_room = cell.x < room || cell.x >= room + length;
        u8::from(in_room || (first..first + width).contains(&cell.y))
    });
    let west = walkable_cells(&grid, |cell| cell.x < room);
    let east = walkable_cells(&grid, |cell| cell.x >= room + length);
    let eastward: Vec<bool> = raw.iter().map(|r| one_flow || r.3).collect();
    let group = |heading: bool, from: &[Cell], to: &[Cell]| {
        let chosen = || {
            raw.iter()
                .zip(&eastward)
                .filter(move |(_, e)| **e == heading)
        };
        let starts = distinct_cells(from, chosen().map(|(r, _)| r.0));
        let goals = distinct_cells(to, chosen().map(|(r, _)| r.1));
        let priority = if heading { priorities.0 } else { priorities.1 };
        (starts.into_iter().zip(goals).zip(chosen()))
            .map(|((start, goal), (r, _))| SceneAgent {
                start,
                goal,
                speed: r.2,
                priority,
            })
            .collect::<Vec<_>>()
    };
    let mut agents = group(true, &west, &east);
    agents.extend(group(false, &east, &west));
    CrowdScene {
        grid,
        agents,
        passage: Some(length),
    }
}
