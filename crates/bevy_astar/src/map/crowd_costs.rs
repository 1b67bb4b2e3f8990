//! The crowd's cost layer: how many avoiding agents stand on each cell, as a cost added to the
//! terrain's, so that the goals' shared trees route a crowd round its own queues.

use astar_grid::{Cell, Grid};
use bevy::prelude::*;
use std::sync::{Arc, OnceLock};

/// A cost added to stepping onto each cell of the map for the crowd standing on it: the
/// [`CrowdSettings::route_density_weight`](crate::CrowdSettings::route_density_weight) times
/// the agents on the cell, rounded, in the units of a terrain cost (a plain cell costs 1).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CrowdCostLayer {
    width: u32,
    height: u32,
    /// Row by row, the cost added to each cell.
    extra: Box<[u8]>,
}

impl CrowdCostLayer {
    /// The layer of `counts` (agents per cell, row by row, of a `width` x `height` map) at
    /// `weight` per agent; `None` when it adds nothing (no agent, or a weight that rounds to
    /// nothing), or the counts do not cover the map.
    pub(crate) fn of_counts(
        (width, height): (u32, u32),
        counts: &[u16],
        weight: f32,
    ) -> Option<Self> {
        let cells = usize::try_from(u64::from(width) * u64::from(height)).ok()?;
        if counts.len() != cells || !(weight > 0.0 && weight.is_finite()) {
            return None;
        }
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a non-negative cost, clamped to a byte first"
        )]
        let extra: Box<[u8]> = counts
            .iter()
            .map(|&count| (f32::from(count) * weight).round().min(254.0) as u8)
            .collect();
        extra.iter().any(|&extra| extra > 0).then_some(Self {
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
        let mut extra = self.extra.iter();
        Some(Grid::from_fn(self.width, self.height, |cell| {
            let added = extra.next().copied().unwrap_or(0);
            match grid.value(cell) {
                0 => 0,
                cost => cost.saturating_add(added),
            }
        }))
    }

    /// The cells whose added cost differs between `before` and `after` (either may be none,
    /// which adds nothing); every cell of the larger when their sizes differ.
    pub(crate) fn changed_cells(before: Option<&Self>, after: Option<&Self>) -> Vec<Cell> {
        let (width, height) = match (before, after) {
            (Some(layer), _) | (None, Some(layer)) => (layer.width, layer.height),
            (None, None) => return Vec::new(),
        };
        let same_size = |layer: Option<&Self>| {
            layer.is_none_or(|layer| (layer.width, layer.height) == (width, height))
        };
        let extra_of = |layer: Option<&Self>, index: usize| {
            layer.map_or(0, |layer| layer.extra.get(index).copied().unwrap_or(0))
        };
        let all = !(same_size(before) && same_size(after));
        (0..height)
            .flat_map(|y| (0..width).map(move |x| Cell::new(x, y)))
            .enumerate()
            .filter(|&(index, _)| all || extra_of(before, index) != extra_of(after, index))
            .map(|(_, cell)| cell)
            .collect()
    }

    /// The cost added to `cell`; 0 outside the map.
    pub(crate) fn extra_at(&self, cell: Cell) -> u8 {
        if cell.x >= self.width || cell.y >= self.height {
            return 0;
        }
        let index = u64::from(cell.y) * u64::from(self.width) + u64::from(cell.x);
        usize::try_from(index)
            .ok()
            .and_then(|index| self.extra.get(index).copied())
            .unwrap_or(0)
    }
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

    #[test]
    fn a_layer_adds_its_weighted_counts_to_walkable_cells_only() {
        let grid = Grid::from_ascii("..#\n...").expect("a grid");
        let counts = [0, 2, 3, 1, 0, 0];
        let layer = CrowdCostLayer::of_counts((3, 2), &counts, 1.5).expect("a crowd");
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
        assert!(CrowdCostLayer::of_counts((2, 1), &[0, 0], 1.0).is_none());
        assert!(CrowdCostLayer::of_counts((2, 1), &[1, 4], 0.0).is_none());
        assert!(CrowdCostLayer::of_counts((2, 1), &[1, 4], f32::NAN).is_none());
        assert!(CrowdCostLayer::of_counts((2, 1), &[1], 1.0).is_none());
    }

    #[test]
    fn changed_cells_are_those_whose_added_cost_differs() {
        let before = CrowdCostLayer::of_counts((3, 1), &[1, 0, 2], 1.0);
        let after = CrowdCostLayer::of_counts((3, 1), &[1, 1, 0], 1.0);
        let changed = CrowdCostLayer::changed_cells(before.as_ref(), after.as_ref());
        assert_eq!(changed, [Cell::new(1, 0), Cell::new(2, 0)]);
        let cleared = CrowdCostLayer::changed_cells(before.as_ref(), None);
        assert_eq!(cleared, [Cell::new(0, 0), Cell::new(2, 0)]);
        assert!(CrowdCostLayer::changed_cells(None, None).is_empty());
    }

    #[test]
    fn trees_making_the_same_move_share_one_change_worked_out_once() {
        let first = CrowdCostLayer::of_counts((3, 1), &[1, 0, 2], 1.0).map(Arc::new);
        let second = CrowdCostLayer::of_counts((3, 1), &[1, 1, 0], 1.0).map(Arc::new);
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
}
