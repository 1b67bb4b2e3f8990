//! Footprint shapes: the square of cells from an anchor on square grids, the disc of hexes
//! around a centre on hexagonal ones, and the anchors whose footprint covers given cells.

use super::clearance::anchors_within;
use crate::{Cell, Movement, Neighborhood};

/// The shape of an agent's footprint of side or size `size`.
///
/// ```
/// use astar_grid::agent::Footprint;
/// use astar_grid::{Cell, Movement};
///
/// assert_eq!(Footprint::for_movement(Movement::HEX), Footprint::Hex);
/// // A hex agent of size 2 stands on its hex and the six around it.
/// assert_eq!(Footprint::Hex.cells(Cell::new(5, 5), 2).count(), 7);
/// assert_eq!(Footprint::Square.cells(Cell::new(5, 5), 2).count(), 4);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Footprint {
    /// `size` x `size` cells from the anchor, the footprint's top-left cell.
    #[default]
    Square,
    /// On a hexagonal grid ([`Neighborhood::Hex`]): the hexes within `size - 1` steps of the
    /// anchor, the footprint's centre hex (1 hex, 7, 19 and so on).
    Hex,
}

impl Footprint {
    /// The footprint of agents moving by `movement`: hexes around a centre on a hexagonal grid,
    /// squares otherwise.
    #[must_use]
    pub const fn for_movement(movement: Movement) -> Self {
        match movement.neighborhood {
            Neighborhood::Hex => Self::Hex,
            Neighborhood::Four | Neighborhood::Eight => Self::Square,
        }
    }

    /// The cells of the footprint of `size` anchored at `anchor`, row by row, leaving out those
    /// that would have a negative coordinate or pass `u32::MAX`.
    pub fn cells(self, anchor: Cell, size: u8) -> impl Iterator<Item = Cell> + use<> {
        let reach = i64::from(size.max(1)) - 1;
        let (low, high) = match self {
            Self::Square => (0, reach),
            Self::Hex => (-reach, reach),
        };
        (low..=high).flat_map(move |dy| {
            let (from, to) = match self {
                Self::Square => (0, reach),
                // Within `reach` steps: |dq| <= reach and |dq + dr| <= reach.
                Self::Hex => ((-reach).max(-reach - dy), reach.min(reach - dy)),
            };
            (from..=to).filter_map(move |dx| {
                let x = u32::try_from(i64::from(anchor.x) + dx).ok()?;
                let y = u32::try_from(i64::from(anchor.y) + dy).ok()?;
                Some(Cell::new(x, y))
            })
        })
    }

    /// Whether the whole footprint of `size` anchored at `anchor` lies on a `width` x `height`
    /// map.
    #[must_use]
    pub fn inside(self, anchor: Cell, size: u8, (width, height): (u32, u32)) -> bool {
        let reach = u32::from(size.max(1)) - 1;
        let fits = |at: u32, extent: u32, before: u32| {
            at >= before && at.checked_add(reach).is_some_and(|end| end < extent)
        };
        match self {
            Self::Square => fits(anchor.x, width, 0) && fits(anchor.y, height, 0),
            // The disc reaches `reach` columns and rows either way.
            Self::Hex => fits(anchor.x, width, reach) && fits(anchor.y, height, reach),
        }
    }

    /// The anchors of a `width` x `height` map whose footprint of `size` covers one of
    /// `cells`, in row-major order and each once (anchors off the map left out): the derived
    /// cells that blocking those terrain cells would block.
    ///
    /// ```
    /// use astar_grid::agent::Footprint;
    /// use astar_grid::Cell;
    ///
    /// let around = Footprint::Hex.anchors_covering(&[Cell::new(2, 2)], 2, 5, 5);
    /// assert_eq!(around.len(), 7);
    /// assert_eq!(Footprint::Square.anchors_covering(&[Cell::new(0, 0)], 2, 5, 5), [Cell::new(0, 0)]);
    /// ```
    #[must_use]
    pub fn anchors_covering(self, cells: &[Cell], size: u8, width: u32, height: u32) -> Vec<Cell> {
        let width_cells = width.max(1) as usize;
        self.anchor_indices(cells, size, (width, height))
            .into_iter()
            .map(|index| Cell::new((index % width_cells) as u32, (index / width_cells) as u32))
            .collect()
    }

    /// [`Footprint::anchors_covering`] as sorted row-major indices.
    pub(crate) fn anchor_indices(
        self,
        cells: &[Cell],
        size: u8,
        (width, height): (u32, u32),
    ) -> Vec<usize> {
        match self {
            Self::Square => anchors_within(cells, size, width, height),
            Self::Hex => {
                // A disc is symmetric: the anchors whose disc covers a cell are the disc
                // around that cell.
                let mut anchors: Vec<usize> = cells
                    .iter()
                    .flat_map(|&cell| self.cells(cell, size))
                    .filter(|cell| cell.x < width && cell.y < height)
                    .map(|cell| cell.y as usize * width as usize + cell.x as usize)
                    .collect();
                anchors.sort_unstable();
                anchors.dedup();
                anchors
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::hex_distance;

    #[test]
    fn a_hex_footprint_is_the_disc_of_its_size() {
        let centre = Cell::new(10, 10);
        for size in 1..=5u8 {
            let cells: Vec<Cell> = Footprint::Hex.cells(centre, size).collect();
            let expected = 1 + 3 * u64::from(size) * (u64::from(size) - 1);
            assert_eq!(cells.len() as u64, expected, "size {size}");
            assert!(
                cells
                    .iter()
                    .all(|&cell| hex_distance(cell, centre) < u64::from(size))
            );
        }
        // Near the origin, the cells with negative coordinates are left out.
        assert_eq!(Footprint::Hex.cells(Cell::new(0, 0), 2).count(), 3);
    }

    #[test]
    fn inside_means_every_footprint_cell_is_on_the_map() {
        let bounds = (7, 6);
        for footprint in [Footprint::Square, Footprint::Hex] {
            for size in 1..=3u8 {
                for y in 0..8 {
                    for x in 0..9 {
                        let anchor = Cell::new(x, y);
                        let reach = i64::from(size) - 1;
                        let all_on = footprint
                            .cells(anchor, size)
                            .all(|cell| cell.x < bounds.0 && cell.y < bounds.1)
                            && (footprint == Footprint::Square
                                || (i64::from(x) >= reach && i64::from(y) >= reach));
                        assert_eq!(
                            footprint.inside(anchor, size, bounds),
                            all_on,
                            "{footprint:?} {size} {anchor}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn anchors_covering_a_cell_are_those_whose_footprint_holds_it() {
        let (width, height) = (8, 7);
        for footprint in [Footprint::Square, Footprint::Hex] {
            for size in 1..=3u8 {
                let target = Cell::new(3, 4);
                let anchors = footprint.anchors_covering(&[target], size, width, height);
                let expected: Vec<Cell> = (0..height)
                    .flat_map(|y| (0..width).map(move |x| Cell::new(x, y)))
                    .filter(|&anchor| footprint.cells(anchor, size).any(|cell| cell == target))
                    .collect();
                assert_eq!(anchors, expected, "{footprint:?} {size}");
            }
        }
    }
}
