//! Landmark distances over a built hierarchy ([`Landmarks`]): for a few nodes far apart, the
//! distance from each to every node, which bounds the way to a goal from below far better than
//! the straight-line estimate on maps whose streets force detours (A* with landmarks and the
//! triangle inequality, "ALT").

use super::local::links_leaving;
use super::{Hierarchy, NodeNumbers, SectorState};
use crate::Grid;
use crate::search::{OpenEntry, OpenList};

/// The distance from each landmark to each node of a hierarchy whose every sector is built.
///
/// For a landmark `L`, a node `v` and the goal `t`, the triangle inequality gives
/// `d(v, t) >= d(L, t) - d(L, v)`: a lower bound on the way on that is consistent, as the
/// distance from `L` changes along an edge by at most the edge's cost. Where every step costs
/// the same both ways (no terrain costs, no open link), `d(v, L) = d(L, v)`, and the
/// inequality the other way round, `d(v, t) >= d(v, L) - d(t, L)`, bounds it too: the bound is
/// then `|d(L, t) - d(L, v)|`. The search takes the largest over the landmarks, and the plain
/// estimate.
#[derive(Clone, Debug, Default)]
pub(crate) struct Landmarks {
    /// The nodes' numbers.
    numbers: NodeNumbers,
    /// The number of landmarks.
    count: usize,
    /// Node-major: the distances of node `n` from the landmarks are
    /// `distances[n * count..][..count]`, infinite where a landmark does not reach it.
    distances: Vec<f32>,
    /// Whether every step cost the same both ways when the distances were measured: no cell
    /// dearer than 1, no open link.
    symmetric: bool,
}

impl Landmarks {
    /// Up to `count` landmarks on `hierarchy` (every sector built, as of `grid`), picked
    /// farthest first: each is the node farthest from those picked before. `None` when a
    /// sector is not built or kept by its nodes, or there is no node.
    pub(crate) fn pick(hierarchy: &Hierarchy, grid: &Grid, count: usize) -> Option<Self> {
        let all_built = hierarchy
            .sectors
            .iter()
            .all(|sector| sector.state == SectorState::Built);
        if !all_built || count == 0 {
            return None;
        }
        let numbers = NodeNumbers::new(hierarchy);
        let total = numbers.total();
        if total == 0 {
            return None;
        }
        let graph = Graph {
            hierarchy,
            grid,
            numbers: &numbers,
        };
        let mut flood = Flood::default();
        // The farthest node from node 0 starts; each next one is the farthest from all picked.
        let mut nearest = graph.distances_from(0, &mut flood);
        let mut picked: Vec<Vec<f64>> = Vec::with_capacity(count);
        while picked.len() < count {
            let Some(next) = farthest(&nearest) else {
                break;
            };
            let distances = graph.distances_from(next, &mut flood);
            if picked.is_empty() {
                nearest.clone_from(&distances);
            } else {
                for (near, &distance) in nearest.iter_mut().zip(&distances) {
                    *near = near.min(distance);
                }
            }
            picked.push(distances);
        }
        let count = picked.len();
        let mut distances = vec![f32::INFINITY; total * count];
        for (landmark, from) in picked.iter().enumerate() {
            for (node, &distance) in from.iter().enumerate() {
                distances[node * count + landmark] = distance as f32;
            }
        }
        Some(Self {
            numbers,
            count,
            distances,
            symmetric: !grid.has_terrain_costs() && !grid.links().has_steps(),
        })
    }

    /// The distances of node `local` of `sector` from the landmarks.
    pub(crate) fn of(&self, sector: u32, local: u8) -> &[f32] {
        let node = self.numbers.number(sector as usize, usize::from(local)) as usize;
        &self.distances[node * self.count..][..self.count]
    }

    /// The number of landmarks.
    pub(crate) const fn count(&self) -> usize {
        self.count
    }

    /// Whether the distances to the landmarks equal those from them.
    pub(crate) const fn symmetric(&self) -> bool {
        self.symmetric
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.numbers.memory_bytes() + self.distances.capacity() * size_of::<f32>()
    }
}

/// The node farthest from the picked landmarks among those they reach, or `None` when none
/// is left at a positive distance.
fn farthest(nearest: &[f64]) -> Option<u32> {
    nearest
        .iter()
        .enumerate()
        .filter(|(_, distance)| distance.is_finite() && **distance > 0.0)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(node, _)| node as u32)
}

/// The hierarchy's nodes as a graph, numbered sector by sector.
struct Graph<'a> {
    hierarchy: &'a Hierarchy,
    grid: &'a Grid,
    numbers: &'a NodeNumbers,
}

/// Scratch memory of the floods.
#[derive(Default)]
struct Flood {
    open: OpenList,
    done: Vec<bool>,
}

impl Graph<'_> {
    /// Dijkstra's algorithm over the nodes from `source`: the distance to each node.
    fn distances_from(&self, source: u32, flood: &mut Flood) -> Vec<f64> {
        let total = self.numbers.total();
        let mut distance = vec![f64::INFINITY; total];
        flood.done.clear();
        flood.done.resize(total, false);
        flood.open.clear();
        distance[source as usize] = 0.0;
        flood.open.push(OpenEntry::new(0.0, 0.0, source));
        while let Some(entry) = flood.open.pop() {
            let node = entry.id();
            if core::mem::replace(&mut flood.done[node as usize], true) {
                continue;
            }
            let here = distance[node as usize];
            self.edges(node, |next, cost| {
                let candidate = here + cost;
                if candidate < distance[next as usize] {
                    distance[next as usize] = candidate;
                    flood.open.push(OpenEntry::new(candidate, candidate, next));
                }
            });
        }
        distance
    }

    /// Calls `visit` with each node one edge from `node` and the edge's cost: the node's
    /// sector's costs, and the steps and links into other sectors' nodes.
    fn edges(&self, node: u32, mut visit: impl FnMut(u32, f64)) {
        let (sector, local) = self.numbers.locate(node);
        let entry = &self.hierarchy.sectors[sector];
        let base = self.numbers.number(sector, 0);
        for (other, cost) in entry.edges_from(local) {
            visit(base + other as u32, cost);
        }
        let node_of = |cell| self.numbers.node_at(self.hierarchy, cell);
        for (to, cost) in entry.exits_of(local, self.hierarchy.rules()) {
            if let Some(next) = node_of(to) {
                visit(next, cost);
            }
        }
        let rect = self.hierarchy.sector_rect_of(sector);
        links_leaving(self.grid, (entry.nodes[local], Some(rect)), |next, cost| {
            if let Some(node) = node_of(next) {
                visit(node, cost);
            }
        });
    }
}
