//! An independent model of hexagonal grids stored in axial coordinates, written from the rules
//! alone (no crate search, heuristic or geometry code): the six-neighbour graph with its step
//! costs and links, Dijkstra over it in both directions, connected components, hex distances,
//! and an exact geometric line-of-sight oracle on regular hexagons.

use astar_grid::{Cell, CostModel, Grid};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The six axial steps `(dq, dr)` of a hexagonal grid; `(1, 1)` and `(-1, -1)` are not steps.
pub const HEX_STEPS: [(i64, i64); 6] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)];

/// Relative tolerance for comparing costs summed in different orders.
pub const TOLERANCE: f64 = 1e-9;

/// Whether two costs agree within [`TOLERANCE`] (relative, and absolute near 0).
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOLERANCE * a.abs().max(b.abs()).max(1.0)
}

/// The signed axial displacement from `a` to `b`.
pub fn displacement(a: Cell, b: Cell) -> (i64, i64) {
    (
        i64::from(b.x) - i64::from(a.x),
        i64::from(b.y) - i64::from(a.y),
    )
}

/// Whether `a` and `b` are hex neighbours: their displacement is one of [`HEX_STEPS`].
pub fn hex_neighbours(a: Cell, b: Cell) -> bool {
    HEX_STEPS.contains(&displacement(a, b))
}

/// The number of hex steps between two axial cells on open ground: in cube coordinates
/// `(q, r, s = -q - r)`, the largest of the three coordinate differences.
pub fn hex_steps(a: Cell, b: Cell) -> u64 {
    let (dq, dr) = displacement(a, b);
    let ds = -dq - dr;
    dq.unsigned_abs()
        .max(dr.unsigned_abs())
        .max(ds.unsigned_abs())
}

/// The distance between the centres of two hexes, neighbours one apart: the centre of `(q, r)`
/// lies at `(q + r / 2, r * sqrt(3) / 2)`.
pub fn centre_distance(a: Cell, b: Cell) -> f64 {
    let (dq, dr) = displacement(a, b);
    let (dq, dr) = (dq as f64, dr as f64);
    let x = dq + dr / 2.0;
    let y = dr * 3f64.sqrt() / 2.0;
    (x * x + y * y).sqrt()
}

/// The price of one step before terrain, from the cost model's documented values: 1 for the
/// octile model, `straight` for an integer one. Every hex step is a straight step.
pub fn straight_price(cost: CostModel) -> f64 {
    match cost {
        CostModel::Octile => 1.0,
        CostModel::Integer { straight, .. } => f64::from(straight),
    }
}

/// A hexagonal grid copied cell by cell, with the price of a step and the open links whose two
/// ends are walkable, as directed edges.
#[derive(Clone, Debug)]
pub struct HexGraph {
    width: usize,
    height: usize,
    values: Vec<u8>,
    straight: f64,
    /// Per cell (row-major), the directed link edges leaving it, with their costs.
    links: Vec<Vec<(usize, f64)>>,
}

impl HexGraph {
    /// Copies `grid` (values and open links) under cost model `cost`.
    pub fn new(grid: &Grid, cost: CostModel) -> Self {
        let width = grid.width() as usize;
        let height = grid.height() as usize;
        let mut values = Vec::with_capacity(width * height);
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                values.push(grid.value(Cell::new(x, y)));
            }
        }
        let mut graph = Self {
            width,
            height,
            values,
            straight: straight_price(cost),
            links: vec![Vec::new(); width * height],
        };
        for (_, link) in grid.links().iter() {
            if !link.open || !graph.walkable(link.from) || !graph.walkable(link.to) {
                continue;
            }
            let (from, to) = (graph.slot(link.from), graph.slot(link.to));
            graph.links[from].push((to, link.cost));
            if link.both_ways {
                graph.links[to].push((from, link.cost));
            }
        }
        graph
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the grid has no cells.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Row-major index of `cell`, or `None` outside the grid.
    pub fn index(&self, cell: Cell) -> Option<usize> {
        let (x, y) = (cell.x as usize, cell.y as usize);
        (x < self.width && y < self.height).then_some(y * self.width + x)
    }

    fn slot(&self, cell: Cell) -> usize {
        self.index(cell).expect("a cell of the grid")
    }

    /// The cell at row-major `index`.
    pub fn cell(&self, index: usize) -> Cell {
        Cell::new((index % self.width) as u32, (index / self.width) as u32)
    }

    /// Every cell of the grid, row-major.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.values.len()).map(|index| self.cell(index))
    }

    /// The value of `cell` (0 blocked, else its terrain multiplier); 0 outside the grid.
    pub fn value(&self, cell: Cell) -> u8 {
        self.index(cell).map_or(0, |index| self.values[index])
    }

    /// Whether `cell` is inside the grid and walkable.
    pub fn walkable(&self, cell: Cell) -> bool {
        self.value(cell) != 0
    }

    /// The cost of walking from `from` to its hex neighbour `to`: the step's price times the
    /// terrain of `to`; `None` when they are not neighbours or either is not walkable.
    pub fn walk_cost(&self, from: Cell, to: Cell) -> Option<f64> {
        (hex_neighbours(from, to) && self.walkable(from) && self.walkable(to))
            .then(|| self.straight * f64::from(self.value(to)))
    }

    /// The cheapest open link from `from` to `to`, if any.
    pub fn link_cost(&self, from: Cell, to: Cell) -> Option<f64> {
        let (from, to) = (self.index(from)?, self.index(to)?);
        self.links[from]
            .iter()
            .filter(|&&(end, _)| end == to)
            .map(|&(_, cost)| cost)
            .reduce(f64::min)
    }

    /// Whether an open link leads from `from` to `to`.
    pub fn has_link(&self, from: Cell, to: Cell) -> bool {
        self.link_cost(from, to).is_some()
    }

    /// The cost of one path step from `from` to `to`: the cheaper of a walk and a link.
    pub fn step_cost(&self, from: Cell, to: Cell) -> Option<f64> {
        match (self.walk_cost(from, to), self.link_cost(from, to)) {
            (Some(walk), Some(link)) => Some(walk.min(link)),
            (walk, link) => walk.or(link),
        }
    }

    /// Checks that `cells` is a legal walk from `start` to `end` (walkable cells, each step a
    /// hex step or an open link) and returns the sum of its step costs.
    pub fn path_cost(&self, cells: &[Cell], start: Cell, end: Cell) -> Result<f64, String> {
        if cells.first() != Some(&start) {
            return Err(format!("path starts at {:?}, not {start}", cells.first()));
        }
        if cells.last() != Some(&end) {
            return Err(format!("path ends at {:?}, not {end}", cells.last()));
        }
        if let Some(cell) = cells.iter().find(|&&cell| !self.walkable(cell)) {
            return Err(format!("path enters blocked or outside cell {cell}"));
        }
        let mut total = 0.0;
        for pair in cells.windows(2) {
            let step = self.step_cost(pair[0], pair[1]).ok_or_else(|| {
                format!(
                    "{} -> {} is neither a hex step nor a link",
                    pair[0], pair[1]
                )
            })?;
            total += step;
        }
        Ok(total)
    }

    /// The edges leaving row-major `index`, forwards (`reverse` false: the cells one step from it,
    /// with the step's cost) or backwards (the cells one step to it, with that step's cost).
    fn edges(&self, index: usize, reverse: bool, out: &mut Vec<(usize, f64)>) {
        out.clear();
        let cell = self.cell(index);
        if !self.walkable(cell) {
            return;
        }
        for (dq, dr) in HEX_STEPS {
            let (Some(x), Some(y)) = (
                cell.x.checked_add_signed(dq as i32),
                cell.y.checked_add_signed(dr as i32),
            ) else {
                continue;
            };
            let other = Cell::new(x, y);
            let cost = if reverse {
                self.walk_cost(other, cell)
            } else {
                self.walk_cost(cell, other)
            };
            if let Some(cost) = cost {
                out.push((self.slot(other), cost));
            }
        }
        if reverse {
            for (from, leaving) in self.links.iter().enumerate() {
                for &(to, cost) in leaving {
                    if to == index {
                        out.push((from, cost));
                    }
                }
            }
        } else {
            out.extend_from_slice(&self.links[index]);
        }
    }

    fn dijkstra(&self, sources: &[Cell], reverse: bool) -> Vec<Option<f64>> {
        let mut best: Vec<Option<f64>> = vec![None; self.len()];
        let mut done = vec![false; self.len()];
        let mut heap = BinaryHeap::new();
        for &source in sources {
            if let Some(index) = self.index(source).filter(|_| self.walkable(source)) {
                best[index] = Some(0.0);
                heap.push(Reverse((0f64.to_bits(), index)));
            }
        }
        let mut edges = Vec::new();
        while let Some(Reverse((bits, index))) = heap.pop() {
            if done[index] {
                continue;
            }
            done[index] = true;
            let cost = f64::from_bits(bits);
            self.edges(index, reverse, &mut edges);
            for &(next, step) in &edges {
                let candidate = cost + step;
                if best[next].is_none_or(|known| candidate < known) {
                    best[next] = Some(candidate);
                    // Non-negative floats order like their bit patterns.
                    heap.push(Reverse((candidate.to_bits(), next)));
                }
            }
        }
        best
    }

    /// The cheapest cost from `start` to every cell (row-major), `None` where unreachable.
    pub fn costs_from(&self, start: Cell) -> Vec<Option<f64>> {
        self.dijkstra(&[start], false)
    }

    /// The cheapest cost from every cell (row-major) to the nearest walkable cell of `goals`.
    pub fn costs_to(&self, goals: &[Cell]) -> Vec<Option<f64>> {
        self.dijkstra(goals, true)
    }

    /// The cheapest cost from `start` to `goal`, `None` when it cannot be reached.
    pub fn cost_between(&self, start: Cell, goal: Cell) -> Option<f64> {
        let index = self.index(goal)?;
        self.costs_from(start)[index]
    }

    /// Connected components, hex steps and open links joining cells whichever way they lead:
    /// per cell (row-major) a label from 1, 0 for blocked cells; and the number of components.
    pub fn components(&self) -> (Vec<usize>, usize) {
        let mut undirected: Vec<Vec<usize>> = vec![Vec::new(); self.len()];
        for (from, leaving) in self.links.iter().enumerate() {
            for &(to, _) in leaving {
                undirected[from].push(to);
                undirected[to].push(from);
            }
        }
        let mut labels = vec![0; self.len()];
        let mut count = 0;
        let mut edges = Vec::new();
        for seed in 0..self.len() {
            if labels[seed] != 0 || self.values[seed] == 0 {
                continue;
            }
            count += 1;
            labels[seed] = count;
            let mut queue = VecDeque::from([seed]);
            while let Some(index) = queue.pop_front() {
                self.edges(index, false, &mut edges);
                let stepped = edges.iter().map(|&(next, _)| next);
                let linked: Vec<usize> = stepped.chain(undirected[index].iter().copied()).collect();
                for next in linked {
                    if labels[next] == 0 {
                        labels[next] = count;
                        queue.push_back(next);
                    }
                }
            }
        }
        (labels, count)
    }
}

/// The closest reachable cell to `goals` by the documented rule: the smallest hex distance to
/// the nearest goal, then the lowest cost from the start (compared exactly), then the smallest
/// `(y, x)`. `costs` are a graph's [`HexGraph::costs_from`] the start.
pub fn closest_reachable(
    graph: &HexGraph,
    costs: &[Option<f64>],
    goals: &[Cell],
) -> Option<(Cell, f64)> {
    let distance = |cell: Cell| goals.iter().map(|&goal| hex_steps(cell, goal)).min();
    graph
        .cells()
        .zip(costs)
        .filter_map(|(cell, cost)| cost.map(|cost| (cell, cost)))
        .min_by(|&(a, a_cost), &(b, b_cost)| {
            distance(a)
                .cmp(&distance(b))
                .then(a_cost.total_cmp(&b_cost))
                .then((a.y, a.x).cmp(&(b.y, b.x)))
        })
}

/// A rational number `n / d` with `d > 0`.
type Ratio = (i128, i128);

/// `a < b` for rationals with positive denominators.
fn less(a: Ratio, b: Ratio) -> bool {
    a.0 * b.1 < b.0 * a.1
}

/// How the segment from the centre of hex `a` to the centre of hex `b` meets the hex centred
/// on `c`: `(touches, enters)`, whether it meets the closed hexagon at all and whether it meets
/// its interior.
///
/// In cube coordinates `(q, r, s = -q - r)` the closed hex of centre `c` is the set of points
/// `p` with `|d(q - r)| <= 1`, `|d(r - s)| <= 1` and `|d(s - q)| <= 1` for `d = p - c`, the
/// interior the same with strict inequalities. Along the segment `p(t) = a + t (b - a)`,
/// `t` in `[0, 1]`, each difference is `k + m t` with integers `k` and `m`, so each condition is
/// an interval of `t`, intersected exactly in rational arithmetic.
pub fn segment_meets_hex(a: (i64, i64), b: (i64, i64), c: (i64, i64)) -> (bool, bool) {
    let forms = |(q, r): (i64, i64)| {
        let s = -q - r;
        [q - r, r - s, s - q].map(i128::from)
    };
    let (fa, fb, fc) = (forms(a), forms(b), forms(c));
    // Closed: [lo, hi] starts as [0, 1]; open: (open_lo, open_hi) starts unbounded.
    let (mut lo, mut hi): (Ratio, Ratio) = ((0, 1), (1, 1));
    let (mut open_lo, mut open_hi): (Option<Ratio>, Option<Ratio>) = (None, None);
    let (mut touches, mut enters) = (true, true);
    for family in 0..3 {
        let k = fa[family] - fc[family];
        let m = fb[family] - fa[family];
        if m == 0 {
            touches &= k.abs() <= 1;
            enters &= k == 0;
            continue;
        }
        // -1 <= k + m t <= 1.
        let (low, high): (Ratio, Ratio) = if m > 0 {
            ((-1 - k, m), (1 - k, m))
        } else {
            ((k - 1, -m), (k + 1, -m))
        };
        if less(lo, low) {
            lo = low;
        }
        if less(high, hi) {
            hi = high;
        }
        if open_lo.is_none_or(|known| less(known, low)) {
            open_lo = Some(low);
        }
        if open_hi.is_none_or(|known| less(high, known)) {
            open_hi = Some(high);
        }
    }
    touches &= !less(hi, lo);
    // Some t in (open_lo, open_hi) lies in [0, 1].
    let (zero, one) = ((0, 1), (1, 1));
    enters &= match (open_lo, open_hi) {
        (Some(low), Some(high)) => less(low, high) && less(low, one) && less(zero, high),
        (Some(low), None) => less(low, one),
        (None, Some(high)) => less(zero, high),
        (None, None) => true,
    };
    (touches, enters)
}

/// Whether the segment between the centres of hexes `a` and `b` touches only walkable hexes of
/// `grid` (cells off the grid are not walkable) and enters only hexes costing at most
/// `max_cost`: the geometric definition of line of sight on a hexagonal grid.
pub fn hex_sight(grid: &Grid, a: Cell, b: Cell, max_cost: u8) -> bool {
    let (a, b) = (
        (i64::from(a.x), i64::from(a.y)),
        (i64::from(b.x), i64::from(b.y)),
    );
    // Every point of a hex lies within 1 of its centre in q and in r.
    for q in a.0.min(b.0) - 1..=a.0.max(b.0) + 1 {
        for r in a.1.min(b.1) - 1..=a.1.max(b.1) + 1 {
            let (touches, enters) = segment_meets_hex(a, b, (q, r));
            if !touches {
                continue;
            }
            let value = match (u32::try_from(q), u32::try_from(r)) {
                (Ok(x), Ok(y)) if x < grid.width() && y < grid.height() => {
                    grid.value(Cell::new(x, y))
                }
                _ => 0,
            };
            if value == 0 || enters && value > max_cost {
                return false;
            }
        }
    }
    true
}
