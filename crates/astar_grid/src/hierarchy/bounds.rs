//! Lower bounds on path costs over a hierarchy's sectors: per sector, the least cost inside it
//! from each of its sides to each other and of a step onto each side and corner
//! ([`SideBounds`]); per query, Dijkstra's algorithm over every sector's sides from the start
//! and to the goal ([`SideSearch`]), which bounds from below the cost of any path through a
//! sector.
//!
//! **Why they are lower bounds.** Cut a path at its steps between sectors: each piece stays
//! inside one sector, arriving on one side (the outermost row or column facing the step that
//! came in) and leaving from another, so it costs at least that sector's least cost between
//! those sides; each step between sectors costs at least the least step onto the side (or
//! corner) it lands on. The search's graph has two nodes per side, one to arrive at and one to
//! leave from, so that a piece crosses its sector once: an arrival joins each side's leaving
//! node at the sector's least cost between the two, and a leaving node joins the arrival
//! nodes beyond the steps out. Its distances are then no greater than any path's. A link
//! jumps from and to cells that need not lie on a side: it joins every leaving node of its
//! sector to every arrival node of the other at its own cost, and since arriving at a side
//! joins leaving by the same side at no cost (even a side with no walkable cell, in a sector
//! that only links reach), a path may go on from wherever it landed. (The estimate inside a
//! sector that a link leaves or reaches leaves out the rows to its sides.)

use super::local::{Flow, LocalSearch, Rect, StepRules};
use super::{Hierarchy, SectorState};
use crate::search::{OpenEntry, OpenList};
use crate::{Cell, Grid, Neighborhood};

/// The sides of a sector, in the order their bounds are kept.
const NORTH: usize = 0;
const EAST: usize = 1;
const SOUTH: usize = 2;
const WEST: usize = 3;

/// The corners of a sector, in the order their bounds are kept.
const NORTH_EAST: usize = 0;
const SOUTH_EAST: usize = 1;
const SOUTH_WEST: usize = 2;
const NORTH_WEST: usize = 3;

/// Nothing reaches: no walkable cell, or no way inside the sector.
const NONE: f32 = f32::INFINITY;

/// One sector's least costs, each rounded down to `f32`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SideBounds {
    /// `inside[from * 4 + to]`: the least cost inside the sector from a walkable cell of side
    /// `from` to a cell of side `to` (a side to itself is read as 0, see `Sides::inside`).
    inside: [f32; 16],
    /// The least cost of a step onto a walkable cell of each side from outside the sector.
    onto_side: [f32; 4],
    /// The least cost of a diagonal step onto each corner cell from the sector diagonally
    /// beyond it.
    onto_corner: [f32; 4],
}

/// `value` as an `f32` no greater than it.
fn f32_below(value: f64) -> f32 {
    let rounded = value as f32;
    if f64::from(rounded) > value {
        rounded.next_down()
    } else {
        rounded
    }
}

/// The cells of `side` of `rect`.
fn side_cells(rect: Rect, side: usize) -> impl Iterator<Item = Cell> {
    let (min, max) = (rect.min, rect.max);
    let (xs, ys) = match side {
        NORTH => (min.x..=max.x, min.y..=min.y),
        SOUTH => (min.x..=max.x, max.y..=max.y),
        WEST => (min.x..=min.x, min.y..=max.y),
        _ => (max.x..=max.x, min.y..=max.y),
    };
    ys.flat_map(move |y| xs.clone().map(move |x| Cell::new(x, y)))
}

/// The least cost the last flood of `scratch` (inside `rect`) settled on a cell of `side`;
/// infinite when it settled none.
fn least_on_side(scratch: &LocalSearch, rect: Rect, side: usize) -> f64 {
    side_cells(rect, side)
        .filter_map(|cell| scratch.settled_cost(cell))
        .fold(f64::INFINITY, f64::min)
}

impl SideBounds {
    /// Measures the sector `rect` of `grid`: four floods inside it, one from each side.
    pub(crate) fn measure(
        grid: &Grid,
        rules: StepRules,
        rect: Rect,
        scratch: &mut LocalSearch,
    ) -> Self {
        let mut inside = [NONE; 16];
        let mut seeds = Vec::new();
        for from in 0..4 {
            seeds.clear();
            seeds.extend(
                side_cells(rect, from)
                    .filter(|&cell| grid.is_walkable(cell))
                    .map(|cell| (cell, 0.0)),
            );
            if seeds.is_empty() {
                continue;
            }
            scratch.flood_seeded(grid, rules, (rect, &seeds), Flow::Forward, &[]);
            for to in 0..4 {
                inside[from * 4 + to] = f32_below(least_on_side(scratch, rect, to));
            }
        }
        let step = rules.cost.least_step(rules.movement.neighborhood);
        let onto_side = [NORTH, EAST, SOUTH, WEST].map(|side| {
            let terrain = side_cells(rect, side)
                .map(|cell| grid.value(cell))
                .filter(|&value| value != 0)
                .min();
            terrain.map_or(NONE, |value| f32_below(step * f64::from(value)))
        });
        let corners = [
            Cell::new(rect.max.x, rect.min.y),
            rect.max,
            Cell::new(rect.min.x, rect.max.y),
            rect.min,
        ];
        let eight = rules.movement.neighborhood == Neighborhood::Eight;
        let onto_corner = corners.map(|cell| match grid.value(cell) {
            value if value != 0 && eight => f32_below(rules.cost.diagonal() * f64::from(value)),
            _ => NONE,
        });
        Self {
            inside,
            onto_side,
            onto_corner,
        }
    }
}

/// Dijkstra's algorithm over the sides of every sector, forwards from a query's start and
/// backwards to its goal: per side, a lower bound on the cost from the start to a cell of it,
/// and from a cell of it to the goal.
///
/// Nodes are numbered `sector * 8 + 4 * layer + side`, where layer 0 is arriving at the side
/// and layer 1 leaving from it.
#[derive(Clone, Debug, Default)]
pub(crate) struct SideSearch {
    /// Per node, the bound from the start.
    pub(crate) from_start: Vec<f64>,
    /// Per node, the bound to the goal.
    pub(crate) to_goal: Vec<f64>,
    /// Per sector, whether a link leaves or reaches it (even one inside it, which may shortcut
    /// the way to its sides).
    pub(crate) linked: Vec<bool>,
    /// The open links between walkable cells: from sector, to sector, cost.
    links: Vec<(u32, u32, f64)>,
    open: OpenList,
    /// Per node, whether the running search has settled it.
    settled: Vec<bool>,
    scratch: LocalSearch,
}

/// The node for arriving at `side` of `sector`.
const fn arrival(sector: usize, side: usize) -> usize {
    sector * 8 + side
}

/// The node for leaving `sector` from `side`.
const fn leaving(sector: usize, side: usize) -> usize {
    sector * 8 + 4 + side
}

/// Calls `visit` with each node one link from `sector`'s leaving nodes (forwards: the arrival
/// nodes of the sector each link reaches) or from which a link reaches its arrival nodes
/// (backwards: the leaving nodes of the sector each link leaves), and the link's cost.
fn follow_links(
    links: &[(u32, u32, f64)],
    (sector, flow): (usize, Flow),
    mut visit: impl FnMut(usize, f64),
) {
    for &(from, to, link) in links {
        let far = match flow {
            Flow::Forward if from as usize == sector => to as usize,
            Flow::Backward if to as usize == sector => from as usize,
            _ => continue,
        };
        for far_side in 0..4 {
            let node = match flow {
                Flow::Forward => arrival(far, far_side),
                Flow::Backward => leaving(far, far_side),
            };
            visit(node, link);
        }
    }
}

/// Lowers the bound of `node` to `cost` when that is lower, and queues it.
fn relax(open: &mut OpenList, distances: &mut [f64], node: usize, cost: f64) {
    if cost < distances[node] {
        distances[node] = cost;
        open.push(OpenEntry::new(cost, cost, node as u32));
    }
}

/// What the side search reads of a hierarchy.
#[derive(Clone, Copy)]
struct Sides<'a> {
    hierarchy: &'a Hierarchy,
    linked: &'a [bool],
    eight: bool,
}

impl Sides<'_> {
    fn bounds(&self, sector: usize) -> Option<&SideBounds> {
        let entry = &self.hierarchy.sectors[sector];
        match entry.state {
            SectorState::Pending => None,
            SectorState::Built | SectorState::Exact => entry.sides.as_deref(),
        }
    }

    /// The least cost inside `sector` from side `from` to side `to`: 0 from a side to itself,
    /// even one with no walkable cell (a link may land inside a walled sector and leave by
    /// another link, as if it left by that side).
    fn inside(&self, sector: usize, from: usize, to: usize) -> f64 {
        if from == to {
            return 0.0;
        }
        self.bounds(sector)
            .map_or(0.0, |bounds| f64::from(bounds.inside[from * 4 + to]))
    }

    fn onto_side(&self, sector: usize, side: usize) -> f64 {
        self.bounds(sector)
            .map_or(0.0, |bounds| f64::from(bounds.onto_side[side]))
    }

    fn onto_corner(&self, sector: usize, corner: usize) -> f64 {
        self.bounds(sector)
            .map_or(0.0, |bounds| f64::from(bounds.onto_corner[corner]))
    }

    /// The sector `(dx, dy)` sectors from `sector`, if there is one.
    fn beside(&self, sector: usize, (dx, dy): (i32, i32)) -> Option<usize> {
        let columns = self.hierarchy.columns as usize;
        let rows = self.hierarchy.sectors.len() / columns;
        let column = (sector % columns).checked_add_signed(dx as isize)?;
        let row = (sector / columns).checked_add_signed(dy as isize)?;
        (column < columns && row < rows).then(|| row * columns + column)
    }

    /// Calls `visit` with each side one step between sectors from side `side` of `sector`
    /// (forwards) or from which one leads to it (backwards), and the bound on that step.
    fn crossings(
        &self,
        (sector, side): (usize, usize),
        flow: Flow,
        mut visit: impl FnMut(usize, usize, f64),
    ) {
        // Forwards a step leaves across `side` onto the facing side beside it, or from an east
        // or west side onto the diagonal sector's corner (kept as its west or east side);
        // backwards the same edges run the other way, priced at this sector's side or corner.
        let facing = (side + 2) % 4;
        let straight = match side {
            NORTH => (0, -1),
            EAST => (1, 0),
            SOUTH => (0, 1),
            _ => (-1, 0),
        };
        if let Some(next) = self.beside(sector, straight) {
            let cost = match flow {
                Flow::Forward => self.onto_side(next, facing),
                Flow::Backward => self.onto_side(sector, side),
            };
            visit(next, facing, cost);
        }
        if !self.eight || side == NORTH || side == SOUTH {
            return;
        }
        for dy in [-1, 1] {
            let Some(next) = self.beside(sector, (straight.0, dy)) else {
                continue;
            };
            // The corner of `next` that the step lands on (forwards), or of this sector
            // (backwards).
            let landing = match (side, dy, flow) {
                (EAST, -1, Flow::Forward) | (WEST, 1, Flow::Backward) => SOUTH_WEST,
                (EAST, 1, Flow::Forward) | (WEST, -1, Flow::Backward) => NORTH_WEST,
                (WEST, -1, Flow::Forward) | (EAST, 1, Flow::Backward) => SOUTH_EAST,
                _ => NORTH_EAST,
            };
            let cost = match flow {
                Flow::Forward => self.onto_corner(next, landing),
                Flow::Backward => self.onto_corner(sector, landing),
            };
            visit(next, facing, cost);
        }
    }
}

impl SideSearch {
    /// Runs both searches for `start` and `goal` over `hierarchy`, a hierarchy of `grid`.
    pub(crate) fn measure(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        (start, goal): (Cell, Cell),
    ) {
        let count = hierarchy.sectors.len();
        self.linked.clear();
        self.linked.resize(count, false);
        self.links.clear();
        for step in grid.links.steps() {
            let (from, to) = (
                grid.cell_at(step.from as usize),
                grid.cell_at(step.to as usize),
            );
            let (Some(a), Some(b)) = (hierarchy.sector_of(from), hierarchy.sector_of(to)) else {
                continue;
            };
            if grid.is_walkable(from) && grid.is_walkable(to) {
                self.linked[a] = true;
                self.linked[b] = true;
                self.links.push((a as u32, b as u32, step.cost));
            }
        }
        let linked = core::mem::take(&mut self.linked);
        let sides = Sides {
            hierarchy,
            linked: &linked,
            eight: hierarchy.rules().movement.neighborhood == Neighborhood::Eight,
        };
        let mut from_start = core::mem::take(&mut self.from_start);
        let mut to_goal = core::mem::take(&mut self.to_goal);
        for (distances, cell, flow) in [
            (&mut from_start, start, Flow::Forward),
            (&mut to_goal, goal, Flow::Backward),
        ] {
            distances.clear();
            distances.resize(count * 8, f64::INFINITY);
            let seeds = self.seeds(grid, hierarchy, &sides, (cell, flow));
            self.dijkstra(sides, distances, &seeds, flow);
        }
        self.from_start = from_start;
        self.to_goal = to_goal;
        self.linked = linked;
    }

    /// The bounds at the four sides of `cell`'s sector: from `cell` to leaving by each
    /// (forwards) or from arriving at each to `cell` (backwards), by a flood inside the sector;
    /// 0 where a link may shortcut.
    fn seeds(
        &mut self,
        grid: &Grid,
        hierarchy: &Hierarchy,
        sides: &Sides<'_>,
        (cell, flow): (Cell, Flow),
    ) -> Vec<(usize, f64)> {
        let Some(sector) = hierarchy.sector_of(cell) else {
            return Vec::new();
        };
        let node = |side| match flow {
            Flow::Forward => leaving(sector, side),
            Flow::Backward => arrival(sector, side),
        };
        if sides.linked[sector] {
            return (0..4).map(|side| (node(side), 0.0)).collect();
        }
        let rect = hierarchy.sector_rect_of(sector);
        self.scratch
            .flood(grid, hierarchy.rules(), (rect, cell), flow, &[]);
        (0..4)
            .map(|side| (node(side), least_on_side(&self.scratch, rect, side)))
            .filter(|&(_, least)| least.is_finite())
            .collect()
    }

    fn dijkstra(
        &mut self,
        sides: Sides<'_>,
        distances: &mut [f64],
        seeds: &[(usize, f64)],
        flow: Flow,
    ) {
        let open = &mut self.open;
        open.clear();
        self.settled.clear();
        self.settled.resize(distances.len(), false);
        for &(node, cost) in seeds {
            relax(open, distances, node, cost);
        }
        while let Some(entry) = open.pop() {
            let node = entry.id() as usize;
            if core::mem::replace(&mut self.settled[node], true) {
                continue;
            }
            let (sector, layer, side) = (node / 8, node % 8 / 4, node % 4);
            let cost = distances[node];
            match (flow, layer) {
                // Across the sector: from arriving at `side` to leaving by each side, or back.
                (Flow::Forward, 0) => {
                    for other in 0..4 {
                        let inside = sides.inside(sector, side, other);
                        relax(open, distances, leaving(sector, other), cost + inside);
                    }
                }
                (Flow::Backward, 1) => {
                    for other in 0..4 {
                        let inside = sides.inside(sector, other, side);
                        relax(open, distances, arrival(sector, other), cost + inside);
                    }
                }
                // Out of the sector, or (backwards) into it.
                _ => {
                    sides.crossings((sector, side), flow, |next, facing, step| {
                        let far = match flow {
                            Flow::Forward => arrival(next, facing),
                            Flow::Backward => leaving(next, facing),
                        };
                        relax(open, distances, far, cost + step);
                    });
                    if sides.linked[sector] {
                        follow_links(&self.links, (sector, flow), |node, link| {
                            relax(open, distances, node, cost + link);
                        });
                    }
                }
            }
        }
    }

    /// A lower bound on the cost of any path from the start to the goal through a cell of
    /// `sector`, when the sector holds neither: such a path last arrives in the sector on some
    /// side.
    pub(crate) fn through(&self, sector: usize) -> f64 {
        (0..4)
            .map(|side| {
                let node = arrival(sector, side);
                self.from_start[node] + self.to_goal[node]
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// A lower bound on the cost from `cell`, in `sector` (`rect`) which does not hold the goal,
    /// to the goal: it leaves the sector from a side, at least `step` a row or column away.
    pub(crate) fn to_goal_from(&self, (sector, rect): (usize, Rect), cell: Cell, step: f64) -> f64 {
        let linked = self.linked[sector];
        let away = |rows: u32| if linked { 0.0 } else { f64::from(rows) * step };
        let to_side = [
            away(cell.y - rect.min.y),
            away(rect.max.x - cell.x),
            away(rect.max.y - cell.y),
            away(cell.x - rect.min.x),
        ];
        (0..4)
            .map(|side| to_side[side] + self.to_goal[leaving(sector, side)])
            .fold(f64::INFINITY, f64::min)
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.from_start.capacity() + self.to_goal.capacity()) * size_of::<f64>()
            + self.linked.capacity()
            + self.settled.capacity()
            + self.links.capacity() * size_of::<(u32, u32, f64)>()
            + self.open.memory_bytes()
            + self.scratch.memory_bytes()
    }
}
