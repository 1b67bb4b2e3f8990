//! The search over the nodes of a renewed [`SectorFlowField`], repaired from the field it
//! renews: only the nodes whose way to the goal crossed a sector that edits rebuilt are
//! searched again; the others keep their cost and way.

use super::{NO_NODE, SectorFlowField};
use crate::Grid;
use crate::hierarchy::{Hierarchy, NodeNumbers, is_edge};
use crate::movement::DIRECTIONS;

/// The least share of its nodes the field renewed must have settled for a repair: a field
/// that searched little is cheaper searched again lazily than repaired in full.
const LEAST_SETTLED_SHARE: usize = 2;

/// What a node of the field renewed is to the repair.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Standing {
    Unknown,
    /// Its way to the goal crosses no rebuilt sector: it keeps its cost and way.
    Kept,
    /// Searched again: its way crossed a rebuilt sector, or it was not settled.
    Searched,
}

impl SectorFlowField {
    /// Repairs this field's search over the nodes (a field just made over `hierarchy` on
    /// `grid`) from `older`'s, the field it renews: the nodes whose way crossed no sector
    /// rebuilt since `older` was made keep their cost and way, and a search from them settles
    /// the rest, all at once. It leaves the field as it was (its search lazy, from the goal)
    /// when it cannot repair: where either grid has links, where the goal's sector or one
    /// beside it was rebuilt, and where `older` had settled fewer than half its nodes.
    ///
    /// A way that crosses no rebuilt sector costs what it cost: an edge between two nodes of
    /// a sector changes only with a new build of it, and a step from one sector into another
    /// only with a new build of the sector it leaves. An edit marks every sector within a cell
    /// of it, and a sector rebuilt keeps its build only when it comes out as it was, the steps
    /// out of each of its nodes included ([`Hierarchy::build_of`]); the cost of a step into a
    /// cell changes only with the cell, whose own sector is then built anew.
    pub(super) fn repair_nodes_from(&mut self, older: &Self, hierarchy: &Hierarchy, grid: &Grid) {
        let Some(rebuilt) = self.rebuilt_sectors(older, hierarchy, grid) else {
            return;
        };
        let standing = kept_ways(older, &rebuilt);
        // The goal's own sector's ways, as the new field joined them to the goal.
        let joined: Vec<(u32, f64)> = hierarchy
            .sector_of(self.goal)
            .map(|sector| self.numbers.of_sector(sector))
            .into_iter()
            .flatten()
            .map(|node| (node, self.to_goal[node as usize]))
            .filter(|(_, cost)| cost.is_finite())
            .collect();
        self.open.clear();
        self.to_goal.fill(f64::INFINITY);
        self.via.fill(NO_NODE);
        self.settled.fill(false);
        let mut searched = Vec::new();
        for (old, &standing) in standing.iter().enumerate() {
            let (sector, local) = older.numbers.locate(old as u32);
            let node = self.numbers.number(sector, local);
            if standing != Standing::Kept {
                // A rebuilt sector's nodes are numbered afresh, below.
                if !rebuilt[sector] {
                    searched.push(node);
                }
                continue;
            }
            self.nodes_kept += 1;
            self.to_goal[node as usize] = older.to_goal[old];
            self.via[node as usize] = renumbered(older.via[old], &older.numbers, &self.numbers);
        }
        for (sector, _) in rebuilt.iter().enumerate().filter(|&(_, &rebuilt)| rebuilt) {
            searched.extend(self.numbers.of_sector(sector));
        }
        for (node, cost) in joined {
            self.reach(node, cost, NO_NODE);
        }
        // Each node searched again starts from its cheapest step onto a node kept; the search
        // then lowers whatever its nodes lead to, kept nodes included.
        for node in searched {
            self.seed_from_kept(hierarchy, grid, node);
        }
        while let Some(entry) = self.open.pop() {
            let node = entry.id();
            if core::mem::replace(&mut self.settled[node as usize], true) {
                continue;
            }
            let (sector, local) = self.numbers.locate(node);
            let cost = self.to_goal[node as usize];
            self.relax_into(hierarchy, grid, (sector, local), cost);
        }
        self.settled.fill(true);
        self.unchanged = unchanged_sectors(self, older, (hierarchy, &rebuilt));
    }

    /// Lowers `node`'s cost to its cheapest step onto a node whose cost is known: another node
    /// of its sector, or a node of another sector that a step from its cell enters (the edges
    /// [`SectorFlowField::relax_into`] follows backwards, followed forwards).
    fn seed_from_kept(&mut self, hierarchy: &Hierarchy, grid: &Grid, node: u32) {
        let (sector, local) = self.numbers.locate(node);
        let entry = &hierarchy.sectors[sector];
        let count = entry.nodes.len();
        let mut best = (f64::INFINITY, NO_NODE);
        for other in (0..count).filter(|&other| other != local) {
            let edge = entry.costs[local * count + other];
            let onto = self.numbers.number(sector, other);
            let cost = f64::from(edge) + self.to_goal[onto as usize];
            if is_edge(edge) && cost < best.0 {
                best = (cost, onto);
            }
        }
        let cell = entry.nodes[local];
        let rect = hierarchy.sector_rect_of(sector);
        let rules = hierarchy.rules();
        let index = grid.index(cell);
        for &(dx, dy) in &DIRECTIONS[..rules.directions()] {
            let Some(after) = cell.offset(dx, dy) else {
                continue;
            };
            let steps_out = !rect.contains(after)
                && grid.is_walkable(after)
                && rules.walk(grid, index, (dx, dy)).is_some();
            if let Some(onto) = self.numbers.node_at(hierarchy, after).filter(|_| steps_out) {
                let cost = rules.base((dx, dy)) * f64::from(grid.value(after))
                    + self.to_goal[onto as usize];
                if cost < best.0 {
                    best = (cost, onto);
                }
            }
        }
        if best.0.is_finite() {
            self.reach(node, best.0, best.1);
        }
    }

    /// The sectors rebuilt since `older` was made; `None` when the field cannot be repaired
    /// from `older`.
    fn rebuilt_sectors(
        &self,
        older: &Self,
        hierarchy: &Hierarchy,
        grid: &Grid,
    ) -> Option<Vec<bool>> {
        let count = hierarchy.sectors.len();
        let settled = older.settled.iter().filter(|&&settled| settled).count();
        let repairable = older.builds.len() == count
            && older.goal == self.goal
            && !older.linked
            && !grid.links.has_steps()
            && settled * LEAST_SETTLED_SHARE >= older.settled.len();
        if !repairable {
            return None;
        }
        let rebuilt: Vec<bool> = (0..count)
            .map(|sector| hierarchy.build_of(sector) != older.builds[sector])
            .collect();
        // A sector of the same build keeps its nodes, and so their numbers within it.
        let same_nodes = rebuilt.iter().enumerate().all(|(sector, &rebuilt)| {
            rebuilt || self.numbers.of_sector(sector).len() == older.numbers.of_sector(sector).len()
        });
        if !same_nodes {
            return None;
        }
        // The goal's sector joins the goal afresh, and those beside it step into it.
        let goal_sector = hierarchy.sector_of(self.goal)?;
        (!any_beside(hierarchy, &rebuilt, goal_sector)).then_some(rebuilt)
    }
}

/// Whether each of `older`'s nodes keeps its way: settled, and its way to the goal crossing
/// no `rebuilt` sector.
fn kept_ways(older: &SectorFlowField, rebuilt: &[bool]) -> Vec<Standing> {
    let total = older.to_goal.len();
    let mut standing = vec![Standing::Unknown; total];
    let mut chain = Vec::new();
    for first in 0..total {
        chain.clear();
        let mut at = first as u32;
        let verdict = loop {
            let known = standing[at as usize];
            if known != Standing::Unknown {
                break known;
            }
            let (sector, _) = older.numbers.locate(at);
            if rebuilt[sector] || !older.settled[at as usize] || chain.len() > total {
                break Standing::Searched;
            }
            chain.push(at);
            let via = older.via[at as usize];
            if via == NO_NODE {
                break Standing::Kept;
            }
            at = via;
        };
        for &node in &chain {
            standing[node as usize] = verdict;
        }
        if standing[first] == Standing::Unknown {
            standing[first] = verdict;
        }
    }
    standing
}

/// Whether `sector` or one of the eight around it is `marked`.
fn any_beside(hierarchy: &Hierarchy, marked: &[bool], sector: usize) -> bool {
    let columns = hierarchy.columns as usize;
    let rows = marked.len().div_ceil(columns.max(1));
    let (column, row) = (sector % columns, sector / columns);
    (row.saturating_sub(1)..=(row + 1).min(rows - 1)).any(|near_row| {
        (column.saturating_sub(1)..=(column + 1).min(columns - 1))
            .any(|near_column| marked.get(near_row * columns + near_column) == Some(&true))
    })
}

/// `node`, numbered by `from`, as `to` numbers it (the same sector and index within it), or
/// [`NO_NODE`].
fn renumbered(node: u32, from: &NodeNumbers, to: &NodeNumbers) -> u32 {
    if node == NO_NODE {
        return NO_NODE;
    }
    let (sector, local) = from.locate(node);
    to.number(sector, local)
}

/// Per sector of `field` (repaired from `older`), whether `older` measured it on the build it
/// has now (it was not rebuilt) and every node of it has the cost and way it had in `older`:
/// the same seeds, and so the same flood.
fn unchanged_sectors(
    field: &SectorFlowField,
    older: &SectorFlowField,
    (hierarchy, rebuilt): (&Hierarchy, &[bool]),
) -> Vec<bool> {
    let mut unchanged: Vec<bool> = rebuilt
        .iter()
        .enumerate()
        .map(|(sector, &rebuilt)| {
            let measured = older.sectors.get(sector).and_then(Option::as_ref);
            !rebuilt && measured.is_some_and(|costs| costs.build == hierarchy.build_of(sector))
        })
        .collect();
    for old in 0..older.to_goal.len() {
        let (sector, local) = older.numbers.locate(old as u32);
        if !unchanged[sector] {
            continue;
        }
        let node = field.numbers.number(sector, local) as usize;
        let same_via =
            field.via[node] == renumbered(older.via[old], &older.numbers, &field.numbers);
        let same_cost = field.to_goal[node].to_bits() == older.to_goal[old].to_bits();
        unchanged[sector] = same_via && same_cost;
    }
    unchanged
}
