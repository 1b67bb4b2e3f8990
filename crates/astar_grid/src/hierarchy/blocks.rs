//! Blocks of sectors ([`Block`]): a square of sectors seen from outside, the nodes on its
//! border and the cheapest costs between them over the nodes inside, so that a route search
//! crosses a block in one edge and refines the edge into the sectors' nodes when it gets there.

use super::{Hierarchy, SectorState, costs_from, pruned_costs};
use crate::Cell;
use crate::search::{OpenEntry, OpenList};

/// The most border nodes a block keeps: one with more (a large block of small sectors) is
/// searched by its sectors' nodes instead. Its costs take 4 bytes a pair, and leaving out the
/// edges a third node matches takes time in the cube of the count (a block of 8 x 8 sectors
/// of 64 cells has about 170).
pub(super) const MAX_BLOCK_NODES: usize = 512;

/// A square of sectors ([`HierarchyOptions::block_sectors`](super::HierarchyOptions::block_sectors)
/// on a side), seen from outside: the nodes of its sectors that step out of it (its border
/// nodes) and, between each two, the cheapest cost over the nodes, costs and steps inside it.
///
/// Distances over blocks and the sectors outside them are those over the sectors alone (the
/// overlay of multi-level Dijkstra): a way between two nodes outside a block enters and leaves
/// it at border nodes, and between those it costs at least the block's cost.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Block {
    /// Its border nodes, as (sector, local index), sorted.
    nodes: Vec<(u32, u8)>,
    /// Between its border nodes, kept as a sector keeps its costs (see [`pruned_costs`]).
    costs: Vec<f32>,
}

impl Block {
    /// The block `block` of `hierarchy`, from its sectors as built; `None` when one of them is
    /// not built and kept by its nodes, or holds a link's end (a link may leave the block
    /// anywhere), or the block has more than [`MAX_BLOCK_NODES`] border nodes.
    pub(super) fn build(
        hierarchy: &Hierarchy,
        block: usize,
        flood: &mut BlockFlood,
    ) -> Option<Self> {
        let graph = BlockGraph::new(hierarchy, block)?;
        let border: Vec<u32> = (0..graph.total())
            .filter(|&number| graph.steps_out(number))
            .collect();
        let count = border.len();
        if count > MAX_BLOCK_NODES {
            return None;
        }
        let mut exact = vec![f32::INFINITY; count * count];
        for (row, &from) in exact.chunks_exact_mut(count.max(1)).zip(&border) {
            flood.run(&graph, from, None);
            for (cost, &to) in row.iter_mut().zip(&border) {
                *cost = flood.cost[to as usize] as f32;
            }
        }
        Some(Self {
            nodes: border.iter().map(|&number| graph.locate(number)).collect(),
            costs: pruned_costs(&exact, count),
        })
    }

    /// The index of node `local` of `sector` among the border nodes.
    pub(super) fn index_of(&self, sector: u32, local: u8) -> Option<usize> {
        self.nodes.binary_search(&(sector, local)).ok()
    }

    /// Border node `index`, as (sector, local index).
    pub(super) fn node(&self, index: usize) -> (u32, u8) {
        self.nodes[index]
    }

    /// The edges searches relax from border node `index` to the others: each one's index and
    /// the edge's cost.
    pub(super) fn edges_from(&self, index: usize) -> impl Iterator<Item = (usize, f64)> {
        costs_from(&self.costs, self.nodes.len(), index)
    }

    /// The number of edges searches relax.
    pub(super) fn edge_count(&self) -> usize {
        (0..self.nodes.len())
            .map(|index| self.edges_from(index).count())
            .sum()
    }

    /// The number of border nodes.
    pub(super) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes held: the shared allocation's two counts, the block and what it points to.
    pub(super) fn memory_bytes(&self) -> usize {
        2 * size_of::<usize>()
            + size_of::<Self>()
            + self.nodes.capacity() * size_of::<(u32, u8)>()
            + self.costs.capacity() * size_of::<f32>()
    }
}

/// The nodes of the cheapest way inside block `block` from the node at cell `from` to the
/// node at cell `to`, both ends included, each as its sector and its cell; `None` when either
/// cell is not a node of the block, a sector of the block is not built, or there is no such
/// way.
pub(super) fn way_inside(
    hierarchy: &Hierarchy,
    block: usize,
    (from, to): (Cell, Cell),
    flood: &mut BlockFlood,
) -> Option<Vec<(u32, Cell)>> {
    let graph = BlockGraph::new(hierarchy, block)?;
    let (source, target) = (graph.number_at(from)?, graph.number_at(to)?);
    flood.run(&graph, source, Some(target));
    if !flood.cost[target as usize].is_finite() {
        return None;
    }
    let mut at = target;
    let mut nodes = vec![(graph.locate(at).0, to)];
    while at != source {
        at = flood.parent[at as usize];
        nodes.push((graph.locate(at).0, graph.cell(at)));
    }
    nodes.reverse();
    Some(nodes)
}

/// The nodes of one block's sectors as a graph, numbered sector by sector.
struct BlockGraph<'a> {
    hierarchy: &'a Hierarchy,
    block: usize,
    /// The block's sectors, row by row.
    sectors: Vec<u32>,
    /// The block's first sector's column and row, and its width in sectors.
    corner: (u32, u32),
    width: u32,
    /// Per sector of the block, the number of its first node; one more entry, the count.
    first: Vec<u32>,
}

impl<'a> BlockGraph<'a> {
    /// `None` when a sector of the block is not built and kept by its nodes, or holds a link's
    /// end.
    fn new(hierarchy: &'a Hierarchy, block: usize) -> Option<Self> {
        let (corner, width, sectors) = hierarchy.block_sectors(block)?;
        let mut first = Vec::with_capacity(sectors.len() + 1);
        let mut total = 0;
        for &sector in &sectors {
            let entry = &hierarchy.sectors[sector as usize];
            if entry.state != SectorState::Built || entry.linked {
                return None;
            }
            first.push(total);
            total += entry.nodes.len() as u32;
        }
        first.push(total);
        Some(Self {
            hierarchy,
            block,
            sectors,
            corner,
            width,
            first,
        })
    }

    fn total(&self) -> u32 {
        self.first.last().copied().unwrap_or(0)
    }

    /// The position of `sector` among the block's sectors, when it is one of them.
    fn position(&self, sector: u32) -> Option<usize> {
        let columns = self.hierarchy.columns;
        let (column, row) = (sector % columns, sector / columns);
        let (dx, dy) = (
            column.checked_sub(self.corner.0)?,
            row.checked_sub(self.corner.1)?,
        );
        let position = (dy * self.width + dx) as usize;
        (dx < self.width && self.sectors.get(position) == Some(&sector)).then_some(position)
    }

    fn number(&self, (sector, local): (u32, u8)) -> Option<u32> {
        let position = self.position(sector)?;
        let number = self.first[position] + u32::from(local);
        (number < self.first[position + 1]).then_some(number)
    }

    /// The number of the node at `cell`, when it is a node of the block.
    fn number_at(&self, cell: Cell) -> Option<u32> {
        let sector = self.hierarchy.sector_of(cell)?;
        let local = self.hierarchy.node_index(sector, cell)?;
        self.number((sector as u32, local as u8))
    }

    fn locate(&self, number: u32) -> (u32, u8) {
        let position = self.first.partition_point(|&first| first <= number) - 1;
        (
            self.sectors[position],
            (number - self.first[position]) as u8,
        )
    }

    /// The cell of node `number`.
    fn cell(&self, number: u32) -> Cell {
        let (sector, local) = self.locate(number);
        self.hierarchy.sectors[sector as usize].nodes[usize::from(local)]
    }

    /// Whether node `number` has a step out of the block.
    fn steps_out(&self, number: u32) -> bool {
        let (sector, local) = self.locate(number);
        let entry = &self.hierarchy.sectors[sector as usize];
        entry
            .exits_of(usize::from(local), self.hierarchy.rules())
            .any(|(to, _)| self.hierarchy.block_of_cell(to) != Some(self.block))
    }

    /// Calls `visit` with each node of the block one edge from node `number` and the edge's
    /// cost: its sector's costs, and its steps into the block's other sectors.
    fn edges(&self, number: u32, mut visit: impl FnMut(u32, f64)) {
        let (sector, local) = self.locate(number);
        let entry = &self.hierarchy.sectors[sector as usize];
        let base = number - u32::from(local);
        for (other, cost) in entry.edges_from(usize::from(local)) {
            visit(base + other as u32, cost);
        }
        for (to, cost) in entry.exits_of(usize::from(local), self.hierarchy.rules()) {
            if let Some(next) = self.number_at(to) {
                visit(next, cost);
            }
        }
    }
}

/// Scratch memory of the searches inside blocks, kept between them.
#[derive(Clone, Debug, Default)]
pub(super) struct BlockFlood {
    open: OpenList,
    cost: Vec<f64>,
    parent: Vec<u32>,
    done: Vec<bool>,
}

impl BlockFlood {
    /// Dijkstra's algorithm over `graph` from `source`, or A* towards `target` (guided by the
    /// straight-line estimate between the nodes' cells) until it is settled: `cost` and
    /// `parent` hold what it found.
    fn run(&mut self, graph: &BlockGraph<'_>, source: u32, target: Option<u32>) {
        let rules = graph.hierarchy.rules();
        let goal = target.map(|target| graph.cell(target));
        let estimate = |node: u32| goal.map_or(0.0, |goal| rules.estimate(graph.cell(node), goal));
        let total = graph.total() as usize;
        self.cost.clear();
        self.cost.resize(total, f64::INFINITY);
        self.parent.clear();
        self.parent.resize(total, u32::MAX);
        self.done.clear();
        self.done.resize(total, false);
        self.open.clear();
        self.cost[source as usize] = 0.0;
        self.open
            .push(OpenEntry::new(estimate(source), 0.0, source));
        while let Some(entry) = self.open.pop() {
            let node = entry.id();
            if core::mem::replace(&mut self.done[node as usize], true) {
                continue;
            }
            if Some(node) == target {
                return;
            }
            let here = self.cost[node as usize];
            graph.edges(node, |next, cost| {
                let candidate = here + cost;
                if candidate < self.cost[next as usize] {
                    self.cost[next as usize] = candidate;
                    self.parent[next as usize] = node;
                    let f = candidate + estimate(next);
                    self.open.push(OpenEntry::new(f, candidate, next));
                }
            });
        }
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        self.open.memory_bytes()
            + self.cost.capacity() * size_of::<f64>()
            + self.parent.capacity() * size_of::<u32>()
            + self.done.capacity()
    }
}
