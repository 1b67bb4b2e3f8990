//! A plain Dijkstra on an [`ErodedGrid`], written from the documented movement and cost rules
//! without the core's searches: the optimal lengths that fat agents and terrain profiles are
//! checked against, where the Moving AI scenario lengths no longer apply.

use crate::erosion::ErodedGrid;
use astar_grid::{Cell, CornerRule, CostModel, Movement, Neighborhood};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The eight step directions, straight ones first.
const STEPS: [(i64, i64); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// Dijkstra's algorithm on the anchors of an eroded map: a step goes to a neighbouring anchor
/// whose footprint fits; a diagonal step also asks the movement's corner rule of its two corner
/// anchors; it costs the straight or diagonal base cost times the cost of the anchor stepped
/// onto. Its buffers are kept between queries.
#[derive(Clone, Debug)]
pub struct ReferenceDijkstra<'a> {
    eroded: &'a ErodedGrid,
    movement: Movement,
    straight: f64,
    diagonal: f64,
    /// Best known cost of each anchor, valid where `reached` holds the current query's stamp.
    best: Vec<f64>,
    reached: Vec<u32>,
    /// Settled anchors: the current query's stamp.
    settled: Vec<u32>,
    stamp: u32,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl<'a> ReferenceDijkstra<'a> {
    /// A reference on `eroded` under `movement`, with the step costs of `cost` resolved from
    /// their documented values (octile: 1 and `sqrt(2)`; integer: as given).
    pub fn new(eroded: &'a ErodedGrid, movement: Movement, cost: CostModel) -> Self {
        let (straight, diagonal) = match cost {
            CostModel::Octile => (1.0, 2f64.sqrt()),
            CostModel::Integer { straight, diagonal } => (f64::from(straight), f64::from(diagonal)),
        };
        let cells = eroded.costs().len();
        Self {
            eroded,
            movement,
            straight,
            diagonal,
            best: vec![0.0; cells],
            reached: vec![0; cells],
            settled: vec![0; cells],
            stamp: 0,
            heap: BinaryHeap::new(),
        }
    }

    /// Whether the anchor at `(x, y)` fits (false off the map).
    fn open(&self, x: i64, y: i64) -> bool {
        match (u32::try_from(x), u32::try_from(y)) {
            (Ok(x), Ok(y)) => self.eroded.fits(Cell::new(x, y)),
            _ => false,
        }
    }

    /// Whether the step from `(x, y)` by `(dx, dy)` is legal, and its base cost.
    fn step(&self, x: i64, y: i64, dx: i64, dy: i64) -> Option<f64> {
        if !self.open(x + dx, y + dy) {
            return None;
        }
        if dx == 0 || dy == 0 {
            return Some(self.straight);
        }
        let corner_a = self.open(x + dx, y);
        let corner_b = self.open(x, y + dy);
        let allowed = match (self.movement.neighborhood, self.movement.corners) {
            (Neighborhood::Four, _) => false,
            // The two slanted hex neighbours, (1, -1) and (-1, 1), cost a straight step.
            (Neighborhood::Hex, _) => return (dx == -dy).then_some(self.straight),
            (Neighborhood::Eight, CornerRule::Both) => corner_a && corner_b,
            (Neighborhood::Eight, CornerRule::One) => corner_a || corner_b,
            (Neighborhood::Eight, CornerRule::Any) => true,
        };
        allowed.then_some(self.diagonal)
    }

    /// The cheapest cost from `start` to `goal`, `None` when either does not fit or no path
    /// joins them.
    pub fn cost(&mut self, start: Cell, goal: Cell) -> Option<f64> {
        if !self.eroded.fits(start) || !self.eroded.fits(goal) {
            return None;
        }
        self.begin();
        let width = self.eroded.width() as usize;
        let goal_index = self.eroded.index(goal);
        self.reach(self.eroded.index(start), 0.0);
        while let Some(Reverse((bits, index))) = self.heap.pop() {
            if self.settled[index] == self.stamp {
                continue;
            }
            self.settled[index] = self.stamp;
            let cost = f64::from_bits(bits);
            if index == goal_index {
                return Some(cost);
            }
            let (x, y) = ((index % width) as i64, (index / width) as i64);
            for (dx, dy) in STEPS {
                let Some(base) = self.step(x, y, dx, dy) else {
                    continue;
                };
                let next = (y + dy) as usize * width + (x + dx) as usize;
                let entered = f64::from(self.eroded.costs()[next]);
                self.reach(next, cost + base * entered);
            }
        }
        None
    }

    /// Starts a query: a fresh stamp (clearing the marks when the stamps wrap) and an empty heap.
    fn begin(&mut self) {
        self.heap.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.reached.fill(0);
            self.settled.fill(0);
            self.stamp = 1;
        }
    }

    /// Offers `cost` for the anchor at `index`, kept when it is the best yet.
    fn reach(&mut self, index: usize, cost: f64) {
        if self.settled[index] == self.stamp {
            return;
        }
        if self.reached[index] != self.stamp || cost < self.best[index] {
            self.reached[index] = self.stamp;
            self.best[index] = cost;
            // Non-negative floats order like their bit patterns.
            self.heap.push(Reverse((cost.to_bits(), index)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::{Grid, TerrainProfile};

    const SQRT_2: f64 = std::f64::consts::SQRT_2;

    fn close(found: Option<f64>, expected: f64) -> bool {
        found.is_some_and(|found| (found - expected).abs() < 1e-9)
    }

    #[test]
    fn open_ground_costs_octile_distances() {
        let eroded = ErodedGrid::new(&Grid::new(10, 6), &TerrainProfile::identity(), 1);
        let mut reference = ReferenceDijkstra::new(&eroded, Movement::EIGHT, CostModel::Octile);
        let found = reference.cost(Cell::new(0, 0), Cell::new(9, 3));
        assert!(close(found, 6.0 + 3.0 * SQRT_2), "{found:?}");
        assert!(close(reference.cost(Cell::new(4, 4), Cell::new(4, 4)), 0.0));
        let mut four = ReferenceDijkstra::new(&eroded, Movement::FOUR, CostModel::INTEGER_10_14);
        assert!(close(four.cost(Cell::new(0, 0), Cell::new(9, 3)), 120.0));
        let mut integer =
            ReferenceDijkstra::new(&eroded, Movement::EIGHT, CostModel::INTEGER_10_14);
        assert!(close(
            integer.cost(Cell::new(0, 0), Cell::new(9, 3)),
            60.0 + 42.0
        ));
    }

    #[test]
    fn the_corner_rule_decides_the_squeeze_between_two_walls() {
        // `.#` over `#.`: the diagonal passes between two blocked corners.
        let grid = Grid::from_fn(2, 2, |cell| u8::from(cell.x == cell.y));
        let eroded = ErodedGrid::new(&grid, &TerrainProfile::identity(), 1);
        let (start, goal) = (Cell::new(0, 0), Cell::new(1, 1));
        for (corners, expected) in [
            (CornerRule::Both, None),
            (CornerRule::One, None),
            (CornerRule::Any, Some(SQRT_2)),
        ] {
            let mut reference =
                ReferenceDijkstra::new(&eroded, Movement::eight(corners), CostModel::Octile);
            let found = reference.cost(start, goal);
            assert_eq!(found.is_some(), expected.is_some(), "{corners:?}");
            if let Some(expected) = expected {
                assert!(close(found, expected), "{corners:?}: {found:?}");
            }
        }
        // One corner open: only `One` and `Any` cut it.
        let grid = Grid::from_fn(2, 2, |cell| u8::from(cell != Cell::new(1, 0)));
        let eroded = ErodedGrid::new(&grid, &TerrainProfile::identity(), 1);
        let mut both = ReferenceDijkstra::new(&eroded, Movement::EIGHT, CostModel::Octile);
        assert!(close(both.cost(start, goal), 2.0));
        let mut one =
            ReferenceDijkstra::new(&eroded, Movement::eight(CornerRule::One), CostModel::Octile);
        assert!(close(one.cost(start, goal), SQRT_2));
    }

    #[test]
    fn a_step_costs_the_anchor_it_enters_and_buffers_serve_many_queries() {
        // A row of costs 1, 3, 1: entering the middle costs 3 each way.
        let grid = Grid::from_fn(3, 1, |cell| if cell.x == 1 { 3 } else { 1 });
        let eroded = ErodedGrid::new(&grid, &TerrainProfile::identity(), 1);
        let mut reference = ReferenceDijkstra::new(&eroded, Movement::EIGHT, CostModel::Octile);
        assert!(close(reference.cost(Cell::new(0, 0), Cell::new(2, 0)), 4.0));
        assert!(close(reference.cost(Cell::new(2, 0), Cell::new(1, 0)), 3.0));
        assert!(close(reference.cost(Cell::new(1, 0), Cell::new(0, 0)), 1.0));
        // Many queries on one reference: the stamps keep them apart.
        for _ in 0..3 {
            assert!(close(reference.cost(Cell::new(0, 0), Cell::new(2, 0)), 4.0));
        }
    }

    #[test]
    fn a_wall_a_footprint_cannot_pass_cuts_the_map_for_that_size() {
        // A wall down column 3 with a one-cell gap at row 2: one-cell agents pass, 2x2 ones not.
        let grid = Grid::from_fn(7, 5, |cell| u8::from(cell.x != 3 || cell.y == 2));
        let (start, goal) = (Cell::new(0, 0), Cell::new(5, 0));
        let one = ErodedGrid::new(&grid, &TerrainProfile::identity(), 1);
        let mut small = ReferenceDijkstra::new(&one, Movement::EIGHT, CostModel::Octile);
        assert!(small.cost(start, goal).is_some());
        let two = ErodedGrid::new(&grid, &TerrainProfile::identity(), 2);
        let mut fat = ReferenceDijkstra::new(&two, Movement::EIGHT, CostModel::Octile);
        assert!(two.fits(start) && two.fits(goal));
        assert_eq!(fat.cost(start, goal), None);
        // A goal whose footprint does not fit has no cost.
        assert_eq!(fat.cost(start, Cell::new(6, 0)), None);
    }
}
