//! A plain Dijkstra over a copy of the grid, written from the documented movement and cost rules
//! without any of the crate's search code, so the crate is not only checked against itself.

use astar_grid::{Cell, CornerRule, CostModel, Grid, Movement, Neighborhood};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The eight step directions; order does not matter to a Dijkstra that only reports costs.
const OFFSETS: [(i64, i64); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// A grid as a plain row-major vector of values (0 blocked, else the terrain multiplier) with a
/// movement rule and step costs.
#[derive(Clone, Debug)]
pub struct ReferenceGraph {
    width: usize,
    height: usize,
    values: Vec<u8>,
    movement: Movement,
    straight: f64,
    diagonal: f64,
}

impl ReferenceGraph {
    /// Copies `grid` cell by cell and resolves the step costs of `cost` from their documented
    /// values (octile: 1 and `sqrt(2)`; integer: as given).
    pub fn new(grid: &Grid, movement: Movement, cost: CostModel) -> Self {
        let (straight, diagonal) = match cost {
            CostModel::Octile => (1.0, 2f64.sqrt()),
            CostModel::Integer { straight, diagonal } => (f64::from(straight), f64::from(diagonal)),
        };
        let width = grid.width() as usize;
        let height = grid.height() as usize;
        let mut values = Vec::with_capacity(width * height);
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                values.push(grid.value(Cell::new(x, y)));
            }
        }
        Self {
            width,
            height,
            values,
            movement,
            straight,
            diagonal,
        }
    }

    /// Row-major index of `cell`, which must be inside the grid.
    pub fn index(&self, cell: Cell) -> usize {
        cell.y as usize * self.width + cell.x as usize
    }

    /// The value at `(x, y)`; 0 (blocked) outside the grid.
    fn value(&self, x: i64, y: i64) -> u8 {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return 0;
        }
        self.values[y as usize * self.width + x as usize]
    }

    /// The cells one step away from `(x, y)` under the movement rule, with the base cost of the
    /// step (before the terrain multiplier). Steps are symmetric: `b` is a neighbour of `a` exactly
    /// when `a` is a neighbour of `b`.
    fn neighbours(&self, x: i64, y: i64) -> Vec<(i64, i64, f64)> {
        let mut found = Vec::with_capacity(8);
        for (dx, dy) in OFFSETS {
            let (nx, ny) = (x + dx, y + dy);
            if self.value(nx, ny) == 0 {
                continue;
            }
            if dx == 0 || dy == 0 {
                found.push((nx, ny, self.straight));
                continue;
            }
            let corner_a = self.value(x + dx, y) != 0;
            let corner_b = self.value(x, y + dy) != 0;
            let allowed = match (self.movement.neighborhood, self.movement.corners) {
                (Neighborhood::Four, _) => false,
                // On a hexagonal grid in axial coordinates, (1, -1) and (-1, 1) are neighbours
                // costing a straight step; (1, 1) and (-1, -1) are not.
                (Neighborhood::Hex, _) => {
                    if dx == -dy {
                        found.push((nx, ny, self.straight));
                    }
                    false
                }
                (Neighborhood::Eight, CornerRule::Both) => corner_a && corner_b,
                (Neighborhood::Eight, CornerRule::One) => corner_a || corner_b,
                (Neighborhood::Eight, CornerRule::Any) => true,
            };
            if allowed {
                found.push((nx, ny, self.diagonal));
            }
        }
        found
    }

    /// The legal steps from `cell` under the movement rule, each with its full cost (the base
    /// cost times the multiplier of the cell stepped onto).
    pub fn steps(&self, cell: Cell) -> Vec<(Cell, f64)> {
        self.neighbours(i64::from(cell.x), i64::from(cell.y))
            .into_iter()
            .map(|(x, y, base)| {
                let next = Cell::new(x as u32, y as u32);
                (next, base * f64::from(self.values[self.index(next)]))
            })
            .collect()
    }

    /// Dijkstra from `source`; `towards_source` reverses the edges so that the result is the cost
    /// of reaching `source` from each cell (stepping onto a cell costs its multiplier, so the two
    /// directions differ on terrain).
    fn dijkstra(&self, source: Cell, towards_source: bool) -> Vec<Option<f64>> {
        let mut best: Vec<Option<f64>> = vec![None; self.values.len()];
        let mut done = vec![false; self.values.len()];
        let mut heap = BinaryHeap::new();
        let source_index = self.index(source);
        best[source_index] = Some(0.0);
        // Non-negative floats order like their bit patterns.
        heap.push(Reverse((0f64.to_bits(), source_index)));
        while let Some(Reverse((bits, index))) = heap.pop() {
            if done[index] {
                continue;
            }
            done[index] = true;
            let cost = f64::from_bits(bits);
            let (x, y) = ((index % self.width) as i64, (index / self.width) as i64);
            for (nx, ny, base) in self.neighbours(x, y) {
                let next = ny as usize * self.width + nx as usize;
                let entered = if towards_source {
                    self.values[index]
                } else {
                    self.values[next]
                };
                let candidate = cost + base * f64::from(entered);
                if best[next].is_none_or(|known| candidate < known) {
                    best[next] = Some(candidate);
                    heap.push(Reverse((candidate.to_bits(), next)));
                }
            }
        }
        best
    }

    /// The cheapest cost from `start` to every cell (row-major), `None` where unreachable.
    pub fn costs_from(&self, start: Cell) -> Vec<Option<f64>> {
        self.dijkstra(start, false)
    }

    /// The cheapest cost from every cell (row-major) to `goal`, `None` where it cannot be reached.
    pub fn costs_to(&self, goal: Cell) -> Vec<Option<f64>> {
        self.dijkstra(goal, true)
    }

    /// The cheapest cost from `start` to `goal`, or `None` when there is no path.
    pub fn cost(&self, start: Cell, goal: Cell) -> Option<f64> {
        self.costs_from(start)[self.index(goal)]
    }

    /// Whether `goal` can be reached from `start`.
    pub fn reachable(&self, start: Cell, goal: Cell) -> bool {
        self.cost(start, goal).is_some()
    }
}
