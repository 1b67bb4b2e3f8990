//! The reachable cell closest to a goal: the distance "closest" is measured in and the rule that
//! breaks ties.
//!
//! The distance is counted in cells on open ground, whatever the terrain and the cost model: the
//! octile distance (a straight step 1, a diagonal `sqrt(2)`) for eight neighbours, the Manhattan
//! distance for four. Among cells at the same distance the one reached more cheaply from the
//! start wins, then the one with the smaller `(y, x)`.

use crate::Neighborhood;

/// How "closest" is measured: `long - short + diagonal * short` for a displacement whose
/// longer side is `long` cells and shorter side `short`, with `diagonal` the price of a diagonal
/// in cells: `sqrt(2)` for eight neighbours (the octile distance) and 2 for four (the Manhattan
/// distance, `dx + dy`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CellDistance {
    diagonal: f64,
}

impl CellDistance {
    /// The distance for moves under `neighborhood`.
    pub(crate) const fn new(neighborhood: Neighborhood) -> Self {
        Self {
            diagonal: match neighborhood {
                Neighborhood::Four => 2.0,
                Neighborhood::Eight => core::f64::consts::SQRT_2,
            },
        }
    }

    /// The distance of a displacement of `dx` columns and `dy` rows.
    #[inline]
    pub(crate) fn of(self, dx: u32, dy: u32) -> f64 {
        let (long, short) = (dx.max(dy), dx.min(dy));
        f64::from(long - short) + self.diagonal * f64::from(short)
    }
}

/// The best candidate so far for the closest cell, by distance, then cost from the start, then
/// `(y, x)`. Coordinates may be padded (shifted by one), which keeps their order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Closest {
    /// The candidate's index, in whatever layout the search uses.
    pub(crate) index: usize,
    distance: f64,
    cost: f64,
    y: u32,
    x: u32,
}

impl Closest {
    /// The candidate at `index`, `(x, y)`, `distance` from the goal and `cost` from the start.
    #[inline]
    pub(crate) const fn new(index: usize, x: u32, y: u32, distance: f64, cost: f64) -> Self {
        Self {
            index,
            distance,
            cost,
            y,
            x,
        }
    }

    /// Keeps `other` instead if it is closer, or as close and cheaper, or as close and as cheap
    /// with a smaller `(y, x)`.
    #[inline]
    pub(crate) fn offer(&mut self, other: Self) {
        let closer = other.distance < self.distance
            || other.distance == self.distance
                && (other.cost < self.cost
                    || other.cost == self.cost && (other.y, other.x) < (self.y, self.x));
        if closer {
            *self = other;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_octile_for_eight_neighbours_and_manhattan_for_four() {
        let eight = CellDistance::new(Neighborhood::Eight);
        assert_eq!(eight.of(3, 1), 2.0 + core::f64::consts::SQRT_2);
        assert_eq!(eight.of(1, 3), eight.of(3, 1));
        assert_eq!(CellDistance::new(Neighborhood::Four).of(3, 1), 4.0);
    }

    #[test]
    fn ties_break_by_cost_then_row_then_column() {
        let mut best = Closest::new(0, 5, 5, 2.0, 3.0);
        best.offer(Closest::new(1, 0, 0, 2.0, 4.0)); // dearer
        assert_eq!(best.index, 0);
        best.offer(Closest::new(2, 6, 4, 2.0, 3.0)); // as dear, earlier row
        assert_eq!(best.index, 2);
        best.offer(Closest::new(3, 5, 4, 2.0, 3.0)); // same row, earlier column
        assert_eq!(best.index, 3);
        best.offer(Closest::new(4, 9, 9, 1.0, 9.0)); // closer
        assert_eq!(best.index, 4);
    }
}
