//! The reachable cell closest to a goal: the distance "closest" is measured in, the rule that
//! breaks ties, and the flood that finds the cell for the searches that do not visit every
//! reachable cell themselves (jump point search and flow fields).
//!
//! The distance is counted in cells on open ground, whatever the terrain and the cost model: the
//! octile distance (a straight step 1, a diagonal `sqrt(2)`) for eight neighbours, the Manhattan
//! distance for four. Among cells at the same distance the one reached more cheaply from the
//! start wins, then the one with the smaller `(y, x)`.

use crate::links::Links;
use crate::movement::DIRECTIONS;
use crate::{Cell, CostModel, Grid, JumpGrid, Movement, Neighborhood, Path};
use core::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// How "closest" is measured: `long - short + diagonal * short` for a displacement whose
/// longer side is `long` cells and shorter side `short`, with `diagonal` the price of a diagonal
/// in cells: `sqrt(2)` for eight neighbours (the octile distance) and 2 for four (the Manhattan
/// distance, `dx + dy`). On a hexagonal grid it is the hex distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CellDistance {
    diagonal: f64,
    hex: bool,
}

impl CellDistance {
    /// The distance for moves under `neighborhood`.
    pub(crate) const fn new(neighborhood: Neighborhood) -> Self {
        Self {
            diagonal: match neighborhood {
                Neighborhood::Four | Neighborhood::Hex => 2.0,
                Neighborhood::Eight => core::f64::consts::SQRT_2,
            },
            hex: matches!(neighborhood, Neighborhood::Hex),
        }
    }

    /// The distance from `a` to `b` (columns and rows, padded or not alike).
    #[inline]
    pub(crate) fn between(self, a: (u32, u32), b: (u32, u32)) -> f64 {
        if self.hex {
            crate::hex::steps_between(a, b) as f64
        } else {
            self.of(a.0.abs_diff(b.0), a.1.abs_diff(b.1))
        }
    }

    /// The distance of a displacement of `dx` columns and `dy` rows on a square grid.
    #[inline]
    pub(crate) fn of(self, dx: u32, dy: u32) -> f64 {
        let (long, short) = (dx.max(dy), dx.min(dy));
        f64::from(long - short) + self.diagonal * f64::from(short)
    }

    /// The distance from `cell` to the nearest of `goals` (infinite without goals).
    fn to_nearest(self, cell: Cell, goals: &[Cell]) -> f64 {
        goals
            .iter()
            .map(|goal| self.between((cell.x, cell.y), (goal.x, goal.y)))
            .fold(f64::INFINITY, f64::min)
    }
}

/// The best candidate so far for the closest cell, by distance, then cost from the start, then
/// `(y, x)`. Coordinates may be padded (shifted by one), which keeps their order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Closest {
    /// The candidate's index, in whatever layout the search uses.
    pub(crate) index: usize,
    distance: f64,
    cost: f64,
    y: u32,
    x: u32,
}

impl Closest {
    /// The candidate at `index`, `(x, y)`, `distance` from the goal and `cost` from the start.
    #[inline]
    pub(crate) const fn new(index: usize, x: u32, y: u32, distance: f64, cost: f64) -> Self {
        Self {
            index,
            distance,
            cost,
            y,
            x,
        }
    }

    /// Keeps `other` instead if it is closer, or as close and cheaper, or as close and as cheap
    /// with a smaller `(y, x)`.
    #[inline]
    pub(crate) fn offer(&mut self, other: Self) {
        let closer = other.distance < self.distance
            || other.distance == self.distance
                && (other.cost < self.cost
                    || other.cost == self.cost && (other.y, other.x) < (self.y, self.x));
        if closer {
            *self = other;
        }
    }
}

/// A map the flood can walk: its size and each cell's terrain multiplier.
pub(crate) trait FloodMap {
    /// Columns.
    fn columns(&self) -> u32;
    /// Rows.
    fn rows(&self) -> u32;
    /// The multiplier of the cell at `(x, y)` inside the map; 0 when it is blocked.
    fn terrain(&self, x: u32, y: u32) -> u8;
    /// The map's links, their search table in the padded layout of a grid of its size.
    fn links(&self) -> &Links;
}

impl FloodMap for Grid {
    fn columns(&self) -> u32 {
        self.width()
    }

    fn rows(&self) -> u32 {
        self.height()
    }

    fn terrain(&self, x: u32, y: u32) -> u8 {
        self.value(Cell::new(x, y))
    }

    fn links(&self) -> &Links {
        Grid::links(self)
    }
}

impl FloodMap for JumpGrid {
    fn columns(&self) -> u32 {
        self.width()
    }

    fn rows(&self) -> u32 {
        self.height()
    }

    fn terrain(&self, x: u32, y: u32) -> u8 {
        u8::from(self.is_walkable(Cell::new(x, y)))
    }

    fn links(&self) -> &Links {
        JumpGrid::links(self)
    }
}

/// `via` of the start, which no step reached.
const START: u8 = u8::MAX;
/// `via` of a cell reached by a link: its parent is in [`FloodScratch::link_parents`].
const LINK: u8 = 9;

/// Memory of a flood, kept between floods by those that can keep it.
#[derive(Clone, Debug, Default)]
pub(crate) struct FloodScratch {
    /// Row-major: the cheapest known cost from the start.
    costs: Vec<f64>,
    /// Row-major: the direction of the step that reached the cell, or [`START`].
    via: Vec<u8>,
    /// Cost bits (non-negative floats order like their bits) and row-major index.
    open: BinaryHeap<Reverse<(u64, u32)>>,
    /// Row-major: the cell each cell reached by a link was reached from.
    link_parents: HashMap<u32, u32>,
}

impl FloodScratch {
    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.costs.capacity() * size_of::<f64>()
            + self.via.capacity()
            + self.open.capacity() * size_of::<Reverse<(u64, u32)>>()
            + self.link_parents.capacity() * 2 * size_of::<u32>()
    }
}

/// What a flood found: the optimal path to the closest reachable cell, and its work counters.
#[derive(Clone, Debug)]
pub(crate) struct Flood {
    /// From the start to the closest cell.
    pub(crate) path: Path,
    /// Cells settled.
    pub(crate) settled: u32,
    /// Entries pushed onto the queue.
    pub(crate) pushed: u32,
}

/// The cheapest path from `start` (a walkable cell of `map`) to the reachable cell closest to
/// the nearest of `goals`: Dijkstra's algorithm over every cell `start` reaches under `movement`
/// and `cost`, each step priced by the terrain of the cell it enters. O(n log n) for the n cells
/// reached, plus an O(cells) reset; memory in `scratch`, 9 bytes per cell and the queue.
pub(crate) fn flood_to_closest(
    scratch: &mut FloodScratch,
    map: &impl FloodMap,
    movement: Movement,
    cost: CostModel,
    start: Cell,
    goals: &[Cell],
) -> Flood {
    let columns = map.columns() as usize;
    let cells = columns * map.rows() as usize;
    let distance = CellDistance::new(movement.neighborhood);
    scratch.costs.clear();
    scratch.costs.resize(cells, f64::INFINITY);
    scratch.via.clear();
    scratch.via.resize(cells, START);
    scratch.open.clear();
    scratch.link_parents.clear();
    let start_index = start.y as usize * columns + start.x as usize;
    scratch.costs[start_index] = 0.0;
    scratch
        .open
        .push(Reverse((0f64.to_bits(), start_index as u32)));
    let mut closest = Closest::new(
        start_index,
        start.x,
        start.y,
        distance.to_nearest(start, goals),
        0.0,
    );
    let (mut settled, mut pushed) = (0_u32, 1_u32);
    while let Some(Reverse((bits, index))) = scratch.open.pop() {
        let index = index as usize;
        if bits != scratch.costs[index].to_bits() {
            continue; // a stale entry: the cell was queued again at a lower cost
        }
        settled += 1;
        let here = cell_at(index, columns);
        let g = scratch.costs[index];
        closest.offer(Closest::new(
            index,
            here.x,
            here.y,
            distance.to_nearest(here, goals),
            g,
        ));
        pushed += relax_neighbours(scratch, map, movement, cost, here, g);
        pushed += relax_links(scratch, map, here, g);
    }
    Flood {
        path: path_back(scratch, closest.index, columns),
        settled,
        pushed,
    }
}

/// The cell at row-major `index` on a map `columns` wide.
fn cell_at(index: usize, columns: usize) -> Cell {
    Cell::new((index % columns) as u32, (index / columns) as u32)
}

/// Offers every neighbour `here` (reached at cost `g`) may step onto a cost through it; returns
/// how many were queued.
fn relax_neighbours(
    scratch: &mut FloodScratch,
    map: &impl FloodMap,
    movement: Movement,
    cost: CostModel,
    here: Cell,
    g: f64,
) -> u32 {
    let (columns, rows) = (map.columns(), map.rows());
    let mut pushed = 0;
    for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
        let Some(next) = here
            .offset(dx, dy)
            .filter(|next| next.x < columns && next.y < rows)
        else {
            continue;
        };
        let terrain = map.terrain(next.x, next.y);
        if terrain == 0
            || !movement.allows_step(
                dx,
                dy,
                map.terrain(next.x, here.y) != 0,
                map.terrain(here.x, next.y) != 0,
            )
        {
            continue;
        }
        let step = cost.step(movement.neighborhood, dx, dy);
        let next_index = next.y as usize * columns as usize + next.x as usize;
        let next_g = g + step * f64::from(terrain);
        if next_g < scratch.costs[next_index] {
            scratch.costs[next_index] = next_g;
            scratch.via[next_index] = direction as u8;
            scratch
                .open
                .push(Reverse((next_g.to_bits(), next_index as u32)));
            pushed += 1;
        }
    }
    pushed
}

/// Offers the far end of every open link leaving `here` (reached at cost `g`) a cost through
/// it; returns how many were queued.
fn relax_links(scratch: &mut FloodScratch, map: &impl FloodMap, here: Cell, g: f64) -> u32 {
    let columns = map.columns() as usize;
    let padded = |cell: Cell| (cell.y as usize + 1) * (columns + 2) + cell.x as usize + 1;
    let here_index = here.y as usize * columns + here.x as usize;
    let mut pushed = 0;
    for step in map.links().steps_from(padded(here)) {
        let to = step.to as usize;
        let next = Cell::new(
            (to % (columns + 2)) as u32 - 1,
            (to / (columns + 2)) as u32 - 1,
        );
        let next_index = next.y as usize * columns + next.x as usize;
        let next_g = g + step.cost;
        if map.terrain(next.x, next.y) != 0 && next_g < scratch.costs[next_index] {
            scratch.costs[next_index] = next_g;
            scratch.via[next_index] = LINK;
            scratch
                .link_parents
                .insert(next_index as u32, here_index as u32);
            scratch
                .open
                .push(Reverse((next_g.to_bits(), next_index as u32)));
            pushed += 1;
        }
    }
    pushed
}

/// The path from the flood's start to the cell at row-major `end`, read back along the steps
/// (and links) that reached each cell.
fn path_back(scratch: &FloodScratch, end: usize, columns: usize) -> Path {
    let mut cells = Vec::new();
    let mut index = end;
    loop {
        let cell = cell_at(index, columns);
        cells.push(cell);
        if scratch.via[index] == LINK {
            let Some(&parent) = scratch.link_parents.get(&(index as u32)) else {
                break; // every cell reached by a link has its parent, so this cannot happen
            };
            index = parent as usize;
            continue;
        }
        let Some(&(dx, dy)) = DIRECTIONS.get(usize::from(scratch.via[index])) else {
            break; // the start
        };
        let Some(parent) = cell.offset(-dx, -dy) else {
            break; // every step was taken inside the map, so this cannot happen
        };
        index = parent.y as usize * columns + parent.x as usize;
    }
    cells.reverse();
    Path {
        cells,
        cost: scratch.costs[end],
    }
}

/// The waypoints of a path: its first and last cells and every cell where it changes
/// direction, so that consecutive waypoints lie on one straight or diagonal line.
pub(crate) fn turning_points(cells: &[Cell]) -> Vec<Cell> {
    let step = |pair: &[Cell]| {
        (
            i64::from(pair[1].x) - i64::from(pair[0].x),
            i64::from(pair[1].y) - i64::from(pair[0].y),
        )
    };
    // A step longer than one cell is a link's: its ends are always kept.
    let long = |(dx, dy): (i64, i64)| dx.abs() > 1 || dy.abs() > 1;
    let mut kept = Vec::with_capacity(cells.len().min(2));
    kept.extend(cells.first().copied());
    for (at, window) in cells.windows(3).enumerate() {
        let (before, after) = (step(&window[..2]), step(&window[1..]));
        if before != after || long(before) {
            kept.push(cells[at + 1]);
        }
    }
    if cells.len() > 1 {
        kept.extend(cells.last().copied());
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_octile_for_eight_neighbours_and_manhattan_for_four() {
        let eight = CellDistance::new(Neighborhood::Eight);
        assert_eq!(eight.of(3, 1), 2.0 + core::f64::consts::SQRT_2);
        assert_eq!(eight.of(1, 3), eight.of(3, 1));
        assert_eq!(CellDistance::new(Neighborhood::Four).of(3, 1), 4.0);
        let hex = CellDistance::new(Neighborhood::Hex);
        assert_eq!(hex.between((0, 3), (3, 0)), 3.0);
        assert_eq!(hex.between((0, 0), (3, 1)), 4.0);
    }

    #[test]
    fn ties_break_by_cost_then_row_then_column() {
        let mut best = Closest::new(0, 5, 5, 2.0, 3.0);
        best.offer(Closest::new(1, 0, 0, 2.0, 4.0)); // dearer
        assert_eq!(best.index, 0);
        best.offer(Closest::new(2, 6, 4, 2.0, 3.0)); // as dear, earlier row
        assert_eq!(best.index, 2);
        best.offer(Closest::new(3, 5, 4, 2.0, 3.0)); // same row, earlier column
        assert_eq!(best.index, 3);
        best.offer(Closest::new(4, 9, 9, 1.0, 9.0)); // closer
        assert_eq!(best.index, 4);
    }

    #[test]
    fn turning_points_keep_the_ends_and_the_turns() {
        let cells = [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (4, 3)].map(|(x, y)| Cell::new(x, y));
        let expected = [(0, 0), (2, 0), (4, 2), (4, 3)].map(|(x, y)| Cell::new(x, y));
        assert_eq!(turning_points(&cells), expected);
        assert_eq!(turning_points(&cells[..1]), cells[..1]);
    }
}
