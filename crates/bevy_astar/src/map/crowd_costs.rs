//! The crowd's cost layer: how many avoiding agents stand on each cell, as a cost added to the
//! terrain's, so that the goals' shared trees route a crowd round its own queues.

use astar_grid::{Cell, Grid};
use bevy::prelude::*;
use std::sync::{Arc, OnceLock};

/// A cost added to stepping onto each cell of the map for the crowd standing on it: the
/// [`CrowdSettings::route_density_weight`](crate::CrowdSettings::route_density_weight) times
/// the agents on the cell, rounded, in the units of a terrain cost (a plain cell costs 1).
///
/// Kept sparse, as the cells agents stand on: counting, comparing and storing a layer cost
/// the agents, not the map (a 4096 x 4096 map has 16.7 million cells).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CrowdCostLayer {
    width: u32,
    height: u32,
    /// The cells with a cost added, by their index row by row (ascending, each once), with the
    /// cost added (never 0).
    extra: Box<[(u64, u8)]>,
}

impl CrowdCostLayer {
    /// The layer of agents standing on `cells` (a cell once per agent; cells off the `width` x
    /// `height` map are left out) at `weight` per agent; `None` when it adds nothing (no
    /// agent, or a weight that rounds to nothing).
    pub(crate) fn of_cells(
        (width, height): (u32, u32),
        cells: impl IntoIterator<Item = Cell>,
        weight: f32,
    ) -> Option<Self> {
        if !(weight > 0.0 && weight.is_finite()) {
            return None;
        }
        let mut indices: Vec<u64> = cells
            .into_iter()
            .filter(|cell| cell.x < width && cell.y < height)
            .map(|cell| index_of(cell, width))
            .collect();
        indices.sort_unstable();
        let extra: Box<[(u64, u8)]> = indices
            .chunk_by(|a, b| a == b)
            .filter_map(|agents| {
                let count = u16::try_from(agents.len()).unwrap_or(u16::MAX);
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "a non-negative cost, clamped to a byte first"
                )]
                let added = (f32::from(count) * weight).round().min(254.0) as u8;
                (added > 0).then_some((agents[0], added))
            })
            .collect();
        (!extra.is_empty()).then_some(Self {
            width,
            height,
            extra,
        })
    }

    /// `grid` with the layer's costs added to its walkable cells (a cell's cost stops at 255;
    /// blocked cells stay blocked); `None` when the grid is not the layer's size.
    pub(crate) fn apply(&self, grid: &Grid) -> Option<Grid> {
        if (grid.width(), grid.height()) != (self.width, self.height) {
            return None;
        }
        let mut crowded = grid.clone();
        for &(index, added) in &self.extra {
            let cell = cell_at(index, self.width);
            match grid.value(cell) {
                0 => {}
                cost => {
                    crowded.set_cost(cell, cost.saturating_add(added)).ok()?;
                }
            }
        }
        Some(crowded)
    }

    /// The cells whose added cost differs between `before` and `after` (either may be none,
    /// which adds nothing), row by row; every cell of the larger when their sizes differ.
    pub(crate) fn changed_cells(before: Option<&Self>, after: Option<&Self>) -> Vec<Cell> {
        let (width, height) = match (before, after) {
            (Some(layer), _) | (None, Some(layer)) => (layer.width, layer.height),
            (None, None) => return Vec::new(),
        };
        let same_size = |layer: Option<&Self>| {
            layer.is_none_or(|layer| (layer.width, layer.height) == (width, height))
        };
        if !(same_size(before) && same_size(after)) {
            let (width, height) = [before, after]
                .into_iter()
                .flatten()
                .map(|layer| (layer.width, layer.height))
                .max_by_key(|&(width, height)| u64::from(width) * u64::from(height))
                .unwrap_or((width, height));
            return (0..height)
                .flat_map(|y| (0..width).map(move |x| Cell::new(x, y)))
                .collect();
        }
        fn extra_of(layer: Option<&CrowdCostLayer>) -> &[(u64, u8)] {
            layer.map_or(&[], |layer| &layer.extra)
        }
        let (mut old, mut new) = (
            extra_of(before).iter().peekable(),
            extra_of(after).iter().peekable(),
        );
        let mut changed = Vec::new();
        loop {
            let index = match (old.peek(), new.peek()) {
                (None, None) => break,
                (Some(&&(a, x)), Some(&&(b, y))) if a == b => {
                    old.next();
                    new.next();
                    if x == y {
                        continue;
                    }
                    a
                }
                (Some(&&(a, _)), Some(&&(b, _))) if a < b => {
                    old.next();
                    a
                }
                (Some(&&(a, _)), None) => {
                    old.next();
                    a
                }
                (_, Some(&&(b, _))) => {
                    new.next();
                    b
                }
            };
            changed.push(cell_at(index, width));
        }
        changed
    }

    /// The cost added to `cell`; 0 outside the map.
    pub(crate) fn extra_at(&self, cell: Cell) -> u8 {
        if cell.x >= self.width || cell.y >= self.height {
            return 0;
        }
        let index = index_of(cell, self.width);
        self.extra
            .binary_search_by_key(&index, |&(at, _)| at)
            .ok()
            .and_then(|found| self.extra.get(found))
            .map_or(0, |&(_, added)| added)
    }
}

/// The index of `cell`, row by row, on a map `width` cells wide.
fn index_of(cell: Cell, width: u32) -> u64 {
    u64::from(cell.y) * u64::from(width) + u64::from(cell.x)
}

/// The cell of index `index`, row by row, on a map `width` cells wide ([`index_of`]'s inverse).
#[expect(
    clippy::cast_possible_truncation,
    reason = "an index of a map whose sides are u32"
)]
const fn cell_at(index: u64, width: u32) -> Cell {
    let width = width as u64;
    Cell::new((index % width) as u32, (index / width) as u32)
}

/// The crowd's cost layer in use, written by the crowd's density count and read by the store of
/// the goals' shared trees: `None` adds nothing.
#[derive(Resource, Debug, Default)]
pub(crate) struct CrowdCosts {
    /// The layer; replaced (never changed in place) when the count finds another one.
    pub layer: Option<Arc<CrowdCostLayer>>,
}

/// Whether two layers (or their absence) are the same one.
pub(crate) fn same_layer(a: Option<&Arc<CrowdCostLayer>>, b: Option<&Arc<CrowdCostLayer>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// The move of the shared trees from one crowd cost layer to the next: the cells whose added
/// cost differs, found once (by whichever background update needs them first) for every tree
/// that makes the same move, instead of once per tree on the main thread.
#[derive(Debug)]
pub(crate) struct CrowdLayerChange {
    before: Option<Arc<CrowdCostLayer>>,
    after: Option<Arc<CrowdCostLayer>>,
    cells: OnceLock<Vec<Cell>>,
}

impl CrowdLayerChange {
    /// The change from `before` to `after` kept in `latest` when it is that move, or a new one
    /// kept there; `None` when the two are the same layer (nothing changes).
    pub(crate) fn between(
        latest: &mut Option<Arc<Self>>,
        before: Option<&Arc<CrowdCostLayer>>,
        after: Option<&Arc<CrowdCostLayer>>,
    ) -> Option<Arc<Self>> {
        if same_layer(before, after) {
            return None;
        }
        let kept = latest.as_ref().filter(|change| {
            same_layer(change.before.as_ref(), before) && same_layer(change.after.as_ref(), after)
        });
        if let Some(change) = kept {
            return Some(Arc::clone(change));
        }
        let change = Arc::new(Self {
            before: before.cloned(),
            after: after.cloned(),
            cells: OnceLock::new(),
        });
        *latest = Some(Arc::clone(&change));
        Some(change)
    }

    /// The cells whose added cost differs between the two layers
    /// ([`CrowdCostLayer::changed_cells`]), worked out on the first call.
    pub(crate) fn cells(&self) -> &[Cell] {
        self.cells.get_or_init(|| {
            CrowdCostLayer::changed_cells(self.before.as_deref(), self.after.as_deref())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells of agents standing `counts[i]` to a cell, cell `i` row by row of a map
    /// `width` wide.
    fn standing(width: u32, counts: &[u16]) -> Vec<Cell> {
        (0u32..)
            .zip(counts)
            .flat_map(|(index, &count)| {
                let cell = Cell::new(index % width, index / width);
                core::iter::repeat_n(cell, usize::from(count))
            })
            .collect()
    }

    #[test]
    fn a_layer_adds_its_weighted_counts_to_walkable_cells_only() {
        let grid = Grid::from_ascii("..#\n...").expect("a grid");
        let counts = [0, 2, 3, 1, 0, 0];
        let layer = CrowdCostLayer::of_cells((3, 2), standing(3, &counts), 1.5).expect("a crowd");
        let crowded = layer.apply(&grid).expect("the same size");
        // 2 agents at 1.5 each: 3 more; the wall stays a wall.
        assert_eq!(crowded.value(Cell::new(1, 0)), 4);
        assert_eq!(crowded.value(Cell::new(2, 0)), 0);
        assert_eq!(crowded.value(Cell::new(0, 1)), 3);
        assert_eq!(crowded.value(Cell::new(0, 0)), 1);
        assert_eq!(layer.extra_at(Cell::new(1, 0)), 3);
        assert_eq!(layer.extra_at(Cell::new(9, 9)), 0);
        assert!(layer.apply(&Grid::new(2, 2)).is_none());
    }

    #[test]
    fn nothing_to_add_is_no_layer() {
        assert!(CrowdCostLayer::of_cells((2, 1), standing(2, &[0, 0]), 1.0).is_none());
        assert!(CrowdCostLayer::of_cells((2, 1), standing(2, &[1, 4]), 0.0).is_none());
        assert!(CrowdCostLayer::of_cells((2, 1), standing(2, &[1, 4]), f32::NAN).is_none());
        // Agents off the map add nothing.
        assert!(
            CrowdCostLayer::of_cells((2, 1), [Cell::new(2, 0), Cell::new(0, 1)], 1.0).is_none()
        );
    }

    #[test]
    fn changed_cells_are_those_whose_added_cost_differs() {
        let before = CrowdCostLayer::of_cells((3, 1), standing(3, &[1, 0, 2]), 1.0);
        let after = CrowdCostLayer::of_cells((3, 1), standing(3, &[1, 1, 0]), 1.0);
        let changed = CrowdCostLayer::changed_cells(before.as_ref(), after.as_ref());
        assert_eq!(changed, [Cell::new(1, 0), Cell::new(2, 0)]);
        let cleared = CrowdCostLayer::changed_cells(before.as_ref(), None);
        assert_eq!(cleared, [Cell::new(0, 0), Cell::new(2, 0)]);
        assert!(CrowdCostLayer::changed_cells(None, None).is_empty());
    }

    #[test]
    fn trees_making_the_same_move_share_one_change_worked_out_once() {
        let first = CrowdCostLayer::of_cells((3, 1), standing(3, &[1, 0, 2]), 1.0).map(Arc::new);
        let second = CrowdCostLayer::of_cells((3, 1), standing(3, &[1, 1, 0]), 1.0).map(Arc::new);
        let mut latest = None;
        assert!(CrowdLayerChange::between(&mut latest, first.as_ref(), first.as_ref()).is_none());
        let one = CrowdLayerChange::between(&mut latest, first.as_ref(), second.as_ref());
        let again = CrowdLayerChange::between(&mut latest, first.as_ref(), second.as_ref());
        let (one, again) = (one.expect("a change"), again.expect("a change"));
        assert!(Arc::ptr_eq(&one, &again));
        assert_eq!(one.cells(), [Cell::new(1, 0), Cell::new(2, 0)]);
        // Another move is another change, with its own cells.
        let cleared = CrowdLayerChange::between(&mut latest, second.as_ref(), None);
        let cleared = cleared.expect("a change");
        assert!(!Arc::ptr_eq(&one, &cleared));
        assert_eq!(cleared.cells(), [Cell::new(0, 0), Cell::new(1, 0)]);
    }

    /// A dense reference: the cost added to each cell, row by row, counted cell by cell.
    fn dense_extra((width, height): (u32, u32), cells: &[Cell], weight: f32) -> Vec<u8> {
        let mut counts = vec![0u32; (width * height) as usize];
        for cell in cells
            .iter()
            .filter(|cell| cell.x < width && cell.y < height)
        {
            counts[(cell.y * width + cell.x) as usize] += 1;
        }
        counts
            .iter()
            .map(|&count| {
                (count.min(u32::from(u16::MAX)) as f32 * weight)
                    .round()
                    .min(254.0) as u8
            })
            .collect()
    }

    proptest::proptest! {
        /// The sparse layer against the dense reference, on random maps and crowds (agents off
        /// the map included): its costs, the grid it makes, and the cells two layers differ at.
        #[test]
        fn a_sparse_layer_matches_a_dense_count(
            (width, height) in (1u32..12, 1u32..12),
            first in proptest::collection::vec((0u32..14, 0u32..14), 0..40),
            second in proptest::collection::vec((0u32..14, 0u32..14), 0..40),
            weight in proptest::sample::select(vec![0.3f32, 0.5, 1.0, 2.5, 40.0]),
            walls in proptest::collection::vec(proptest::bool::weighted(0.2), 144),
        ) {
            let size = (width, height);
            let cells = |agents: &[(u32, u32)]| -> Vec<Cell> {
                agents.iter().map(|&(x, y)| Cell::new(x, y)).collect()
            };
            let (first, second) = (cells(&first), cells(&second));
            let grid = Grid::from_fn(width, height, |cell| {
                u8::from(!walls[(cell.y * 12 + cell.x) as usize]) * (1 + (cell.x % 3) as u8 * 100)
            });
            let dense = dense_extra(size, &first, weight);
            let layer = CrowdCostLayer::of_cells(size, first.iter().copied(), weight);
            proptest::prop_assert_eq!(layer.is_some(), dense.iter().any(|&extra| extra > 0));
            for y in 0..height {
                for x in 0..width {
                    let cell = Cell::new(x, y);
                    let expected = dense[(y * width + x) as usize];
                    let extra = layer.as_ref().map_or(0, |layer| layer.extra_at(cell));
                    proptest::prop_assert_eq!(extra, expected);
                    if let Some(crowded) = layer.as_ref().and_then(|layer| layer.apply(&grid)) {
                        let value = match grid.value(cell) {
                            0 => 0,
                            cost => cost.saturating_add(expected),
                        };
                        proptest::prop_assert_eq!(crowded.value(cell), value);
                    }
                }
            }
            let other = dense_extra(size, &second, weight);
            let next = CrowdCostLayer::of_cells(size, second.iter().copied(), weight);
            let expected: Vec<Cell> = (0..height)
                .flat_map(|y| (0..width).map(move |x| Cell::new(x, y)))
                .filter(|cell| {
                    let index = (cell.y * width + cell.x) as usize;
                    dense[index] != other[index]
                })
                .collect();
            proptest::prop_assert_eq!(
                CrowdCostLayer::changed_cells(layer.as_ref(), next.as_ref()),
                expected
            );
        }
    }
}
