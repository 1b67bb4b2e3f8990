//! Rebuilding a sector's costs after an edit: only the costs between its nodes that a way
//! through the edited cells could change are flooded again; the others are kept.
//!
//! The cost from node `i` to node `j` inside the sector can change only if some way from `i`
//! to `j` that passes through an edited cell, or beside one (a diagonal step whose corner it
//! is), cost at most the old cost, before the edit or after it: otherwise the old cheapest
//! way avoided the edited cells and the cells around them, is still there at the same cost,
//! and nothing through them undercuts it. Any such way costs at least the cost from `i` to a
//! neighbour of an edited cell plus the cost from a neighbour to `j` (in the grid as it is
//! now: the part of an old way before its first edited cell, and after its last, is still
//! there). Two bounds of that rule are checked in turn:
//! 1. by the straight-line estimate, which costs nothing to compute;
//! 2. for the pairs left, by two floods from the edited cells' neighbours, backwards to every
//!    node and forwards from them.
//!
//! A sector with a link inside it, before the edit or after, is flooded whole: a way along a
//! link passes cells without stepping beside them, and the estimate does not see it.
//!
//! Each row with a pair left is flooded from its node until those pairs' nodes are settled.
//! A flood settles each node at the same cost whenever it stops, and a pair kept had no way
//! within a small margin of its cost through the edited cells, so the rebuilt sector equals
//! one built fresh.

use super::Sector;
use super::local::{Flow, LocalSearch, Rect, StepRules};
use crate::{Cell, Grid};
use std::sync::Arc;

/// The most edited cells a waiting sector remembers; past them it is flooded whole.
const MOST_CELLS_REMEMBERED: usize = 64;

/// Relative margin by which every way through the edited cells must cost more than a pair's
/// old cost for the pair to be kept: far above the rounding of the `f32` costs.
const MARGIN: f64 = 1e-5;

/// A built sector marked for rebuilding, kept so that the rebuild can reuse its costs: the
/// sector as built, the build that made it, and the cells changed since (each once).
#[derive(Clone, Debug)]
pub(super) struct Stale {
    pub(super) built: Arc<Sector>,
    pub(super) build: u64,
    pub(super) cells: Vec<Cell>,
}

impl Stale {
    /// The sector `built` by build `build`, marked because `cell` changed.
    pub(super) fn new(built: Arc<Sector>, build: u64, cell: Cell) -> Self {
        Self {
            built,
            build,
            cells: vec![cell],
        }
    }

    /// Remembers that `cell` changed too; `false` when that makes more cells than a sector
    /// remembers, and it is to be flooded whole.
    pub(super) fn record(&mut self, cell: Cell) -> bool {
        if !self.cells.contains(&cell) {
            self.cells.push(cell);
        }
        self.cells.len() <= MOST_CELLS_REMEMBERED
    }
}

/// The exact cost inside `rect` from each of `nodes` to each, row by row: infinite where no
/// way inside the sector joins them.
pub(super) fn flooded_costs(
    scratch: &mut LocalSearch,
    grid: &Grid,
    (rules, rect): (StepRules, Rect),
    nodes: &[Cell],
) -> Vec<f32> {
    let count = nodes.len();
    let mut exact = vec![f32::INFINITY; count * count];
    let every: Vec<usize> = (0..count).collect();
    for row in 0..count {
        flood_row(
            scratch,
            grid,
            (rules, rect),
            nodes,
            (row, &every),
            &mut exact,
        );
    }
    exact
}

/// The exact costs between `nodes`, the nodes `stale` was built with, on `grid` as it is
/// now: the pairs a way through the cells changed since could have changed are flooded
/// again, and the others keep `stale`'s costs. `None` when one of the nodes is itself a cell
/// changed, which could change every cost from it.
pub(super) fn updated_costs(
    scratch: &mut LocalSearch,
    grid: &Grid,
    (rules, rect): (StepRules, Rect),
    stale: &Stale,
    nodes: &[Cell],
) -> Option<Vec<f32>> {
    let count = nodes.len();
    let mut exact: Vec<f32> = stale.built.costs.iter().map(|cost| cost.abs()).collect();
    let changed: Vec<Cell> = stale
        .cells
        .iter()
        .copied()
        .filter(|&cell| rect.contains(cell))
        .collect();
    if changed.is_empty() {
        return Some(exact);
    }
    if nodes.iter().any(|node| changed.contains(node)) {
        return None;
    }
    let open = pairs_to_flood(scratch, grid, (rules, rect), (&changed, nodes), &exact);
    for row in 0..count {
        let columns: Vec<usize> = (0..count).filter(|&j| open[row * count + j]).collect();
        if !columns.is_empty() {
            flood_row(
                scratch,
                grid,
                (rules, rect),
                nodes,
                (row, &columns),
                &mut exact,
            );
        }
    }
    Some(exact)
}

/// The pairs of `nodes` (row by row, as `exact` holds their costs before the edit) whose cost
/// `changed`, the cells edited inside the sector, could have changed: those some way past an
/// edited cell could reach within the margin of their cost, first by the estimate, then by
/// floods.
fn pairs_to_flood(
    scratch: &mut LocalSearch,
    grid: &Grid,
    (rules, rect): (StepRules, Rect),
    (changed, nodes): (&[Cell], &[Cell]),
    exact: &[f32],
) -> Vec<bool> {
    let count = nodes.len();
    // Blocking a cell only makes ways dearer: nodes with no way between them stay so.
    let only_blocked = changed.iter().all(|&cell| !grid.is_walkable(cell));
    let mut open = vec![false; count * count];
    let mut left = 0;
    for i in 0..count {
        for j in 0..count {
            let old = exact[i * count + j];
            let open_pair = i != j
                && (old.is_finite() || !only_blocked)
                && changed
                    .iter()
                    .any(|&cell| may_pass(rules, (nodes[i], cell, nodes[j]), old));
            open[i * count + j] = open_pair;
            left += usize::from(open_pair);
        }
    }
    if left > 0 {
        close_pairs_by_floods(
            scratch,
            grid,
            (rules, rect),
            (changed, nodes),
            exact,
            &mut open,
        );
    }
    open
}

/// Whether a way from `from` past `cell` to `to` (through it, or beside it) could cost at
/// most `old` (with the margin), by the straight-line estimate: each of its two parts costs
/// at least the estimate to the cell, less a step.
fn may_pass(rules: StepRules, (from, cell, to): (Cell, Cell, Cell), old: f32) -> bool {
    let origin = Cell::new(0, 0);
    let step = rules
        .estimate(origin, Cell::new(1, 1))
        .max(rules.estimate(origin, Cell::new(1, 0)));
    let least =
        (rules.estimate(from, cell) - step).max(0.0) + (rules.estimate(cell, to) - step).max(0.0);
    !old.is_finite() || least <= f64::from(old) * (1.0 + MARGIN)
}

/// Closes the pairs of `open` whose every way past `changed` costs more than the pair's cost
/// in `exact` (with the margin): the cost from `i` to the nearest neighbour of a changed cell,
/// plus the cost from the nearest neighbour to `j`, is more than that.
fn close_pairs_by_floods(
    scratch: &mut LocalSearch,
    grid: &Grid,
    (rules, rect): (StepRules, Rect),
    (changed, nodes): (&[Cell], &[Cell]),
    exact: &[f32],
    open: &mut [bool],
) {
    let count = nodes.len();
    let mut seeds: Vec<(Cell, f64)> = Vec::new();
    for &cell in changed {
        for dy in -1..=1 {
            for dx in -1..=1 {
                if let Some(near) = cell.offset(dx, dy).filter(|&near| {
                    rect.contains(near) && grid.is_walkable(near) && !changed.contains(&near)
                }) {
                    seeds.push((near, 0.0));
                }
            }
        }
    }
    let rows: Vec<Cell> = (0..count)
        .filter(|&i| (0..count).any(|j| open[i * count + j]))
        .map(|i| nodes[i])
        .collect();
    let columns: Vec<Cell> = (0..count)
        .filter(|&j| (0..count).any(|i| open[i * count + j]))
        .map(|j| nodes[j])
        .collect();
    scratch.flood_seeded(grid, rules, (rect, &seeds), Flow::Backward, &rows);
    let to_edit: Vec<f64> = nodes
        .iter()
        .map(|&node| scratch.settled_cost(node).unwrap_or(f64::INFINITY))
        .collect();
    scratch.flood_seeded(grid, rules, (rect, &seeds), Flow::Forward, &columns);
    for j in 0..count {
        let from_edit = scratch.settled_cost(nodes[j]).unwrap_or(f64::INFINITY);
        for i in 0..count {
            let pair = &mut open[i * count + j];
            if *pair {
                let least = to_edit[i] + from_edit;
                let old = f64::from(exact[i * count + j]);
                *pair = least.is_finite() && (!old.is_finite() || least <= old * (1.0 + MARGIN));
            }
        }
    }
}

/// Floods from node `row` until the nodes of `columns` are settled, and writes their costs
/// into row `row` of `exact` (infinite for those it does not reach).
fn flood_row(
    scratch: &mut LocalSearch,
    grid: &Grid,
    (rules, rect): (StepRules, Rect),
    nodes: &[Cell],
    (row, columns): (usize, &[usize]),
    exact: &mut [f32],
) {
    let count = nodes.len();
    let targets: Vec<Cell> = columns.iter().map(|&j| nodes[j]).collect();
    scratch.flood(grid, rules, (rect, nodes[row]), Flow::Forward, &targets);
    for &column in columns {
        exact[row * count + column] = scratch
            .settled_cost(nodes[column])
            .map_or(f32::INFINITY, |cost| cost as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Hierarchy, HierarchyOptions};

    /// Which pairs of sector 0's nodes an edit of `cell` (already made on `grid`) floods
    /// again, `hierarchy` being built before it.
    fn flooded(hierarchy: &Hierarchy, grid: &Grid, cell: Cell) -> Vec<bool> {
        let sector = &hierarchy.sectors[0];
        let exact: Vec<f32> = sector.costs.iter().map(|cost| cost.abs()).collect();
        let place = (hierarchy.rules(), hierarchy.sector_rect_of(0));
        let nodes = (&[cell][..], sector.nodes.as_slice());
        pairs_to_flood(&mut LocalSearch::default(), grid, place, nodes, &exact)
    }

    #[test]
    fn only_the_pairs_whose_ways_pass_an_edited_cell_are_flooded_again() {
        // Two sectors side by side; the left one's two nodes lie at the ends of the border,
        // (15, 0) and (15, 15), and a wall at x = 13 with a gap at the top stands beside them.
        let mut grid = Grid::new(32, 16);
        grid.fill_rect(Cell::new(13, 1), Cell::new(13, 15), 0);
        let options = HierarchyOptions::default()
            .with_sector_size(16)
            .with_landmarks(0);
        let hierarchy = Hierarchy::build(&grid, options).expect("valid options");
        assert_eq!(
            hierarchy.sector_nodes(0),
            [Cell::new(15, 0), Cell::new(15, 15)]
        );
        let rules = hierarchy.rules();
        let both_ways = vec![false, true, true, false];

        // Far from the way down the border: the estimate rules it out.
        let far = Cell::new(2, 8);
        grid.set_blocked(far, true).expect("inside");
        assert!(flooded(&hierarchy, &grid, far).iter().all(|&open| !open));
        grid.set_blocked(far, false).expect("inside");

        // Behind the wall: near by the estimate, far by the floods.
        let behind = Cell::new(12, 8);
        let nodes = (Cell::new(15, 0), behind, Cell::new(15, 15));
        assert!(may_pass(rules, nodes, 15.0));
        grid.set_blocked(behind, true).expect("inside");
        assert!(flooded(&hierarchy, &grid, behind).iter().all(|&open| !open));
        grid.set_blocked(behind, false).expect("inside");

        // Beside the way, and on it: both directions are flooded again.
        for cell in [Cell::new(14, 8), Cell::new(14, 0)] {
            grid.set_cost(cell, 5).expect("inside");
            assert_eq!(flooded(&hierarchy, &grid, cell), both_ways, "{cell}");
            grid.set_cost(cell, 1).expect("inside");
        }

        // The rebuild after each of those edits equals a fresh build.
        let mut edited = hierarchy.clone();
        for cell in [far, behind, Cell::new(14, 8)] {
            grid.set_cost(cell, 3).expect("inside");
            edited.cells_changed([cell]);
            edited.build_sectors(&grid, usize::MAX).expect("same grid");
            assert!(edited == Hierarchy::build(&grid, options).expect("valid options"));
        }
    }
}
