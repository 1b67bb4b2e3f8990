//! Line of sight on a hexagonal grid: the hexes a segment between two hex centres touches.
//!
//! The grid stores hexes in axial coordinates `(q, r)` ([`crate::hex`]); with `s = -q - r`, the
//! hex centred on `c` is the set of points `p` with `|u(p) - u(c)| <= 1` for each of the three
//! differences `u = q - r`, `v = r - s` and `w = s - q`. The lines where one of them is an
//! integer cut the plane into triangles, each inside one hex, so between two crossings of such
//! lines a segment stays beside the same hexes. The walk visits every crossing and every
//! stretch between two in exact integer arithmetic.

use crate::{Cell, Grid};

/// Whether the segment from the centre of hex `a` to the centre of hex `b` touches only
/// walkable hexes, and enters (passes through the interior of) only hexes that cost at most
/// `max_cost`. Hexes the segment touches only at a vertex, or along an edge, must be walkable
/// whatever they cost, as under [`crate::CornerRule::Both`] on a square grid.
pub(super) fn hex_line_of_sight(grid: &Grid, a: Cell, b: Cell, max_cost: u8) -> bool {
    let walk = HexSegment::new(a, b);
    let mut previous = (0i128, 1i128);
    for event in walk.crossings() {
        let middle = (
            previous.0 * event.1 + event.0 * previous.1,
            2 * previous.1 * event.1,
        );
        if !walk.clear_at(grid, middle, max_cost) || !walk.clear_at(grid, event, 0) {
            return false;
        }
        previous = event;
    }
    walk.clear_at(grid, (previous.0 + previous.1, 2 * previous.1), max_cost)
        && walk.clear_at(grid, (1, 1), max_cost)
        && walk.clear_at(grid, (0, 1), max_cost)
}

/// A segment between two hex centres, in axial coordinates.
struct HexSegment {
    start: (i128, i128),
    delta: (i128, i128),
    /// How many integer lines of `u`, `v` and `w` the segment crosses (each one more than it
    /// passes strictly inside).
    spans: [i128; 3],
}

impl HexSegment {
    fn new(a: Cell, b: Cell) -> Self {
        let start = (i128::from(a.x), i128::from(a.y));
        let delta = (i128::from(b.x) - start.0, i128::from(b.y) - start.1);
        let ds = -delta.0 - delta.1;
        let spans = [
            (delta.0 - delta.1).abs(),
            (delta.1 - ds).abs(),
            (ds - delta.0).abs(),
        ];
        Self {
            start,
            delta,
            spans,
        }
    }

    /// The parameters `t = n / d` in `(0, 1)`, in increasing order and each once, where the
    /// segment crosses an integer line of `u`, `v` or `w`: `j / span` for each family.
    fn crossings(&self) -> impl Iterator<Item = (i128, i128)> + '_ {
        let mut next = [1i128; 3];
        core::iter::from_fn(move || {
            let pending = (0..3).filter(|&k| next[k] < self.spans[k]);
            let least = pending
                .min_by(|&i, &j| (next[i] * self.spans[j]).cmp(&(next[j] * self.spans[i])))?;
            let event = (next[least], self.spans[least]);
            for (numerator, &span) in next.iter_mut().zip(&self.spans) {
                // Every family crossing at the same parameter moves on together.
                if *numerator < span && *numerator * event.1 == event.0 * span {
                    *numerator += 1;
                }
            }
            Some(event)
        })
    }

    /// Whether every hex whose closure holds the segment's point at `t = n / d` is walkable,
    /// and each holding it in its interior costs at most `max_cost` (0 when the point is a
    /// crossing, which enters no interior that the stretches beside it do not).
    fn clear_at(&self, grid: &Grid, (n, d): (i128, i128), max_cost: u8) -> bool {
        // The point, scaled by `d`.
        let q = d * self.start.0 + n * self.delta.0;
        let r = d * self.start.1 + n * self.delta.1;
        let s = -q - r;
        let (base_q, base_r) = (q.div_euclid(d), r.div_euclid(d));
        for (cq, cr) in [
            (base_q, base_r),
            (base_q + 1, base_r),
            (base_q, base_r + 1),
            (base_q + 1, base_r + 1),
        ] {
            let cs = -cq - cr;
            let offsets = [
                (q - r) - d * (cq - cr),
                (r - s) - d * (cr - cs),
                (s - q) - d * (cs - cq),
            ];
            if offsets.iter().any(|offset| offset.abs() > d) {
                continue;
            }
            let cost = u32::try_from(cq)
                .ok()
                .zip(u32::try_from(cr).ok())
                .and_then(|(x, y)| grid.cost(Cell::new(x, y)));
            let Some(cost) = cost else {
                return false;
            };
            let interior = offsets.iter().all(|offset| offset.abs() < d);
            if interior && max_cost > 0 && cost > max_cost {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open hex grid of `side` by `side` with the hexes of `walls` blocked.
    fn grid(side: u32, walls: &[(u32, u32)]) -> Grid {
        Grid::from_fn(side, side, |cell| {
            u8::from(!walls.contains(&(cell.x, cell.y)))
        })
    }

    /// Whether `grid` has a hex line of sight from `a` to `b` within `max_cost`.
    fn sees(grid: &Grid, a: (u32, u32), b: (u32, u32), max_cost: u8) -> bool {
        hex_line_of_sight(grid, Cell::new(a.0, a.1), Cell::new(b.0, b.1), max_cost)
    }

    #[test]
    fn a_step_touches_its_two_hexes_only() {
        let open = grid(3, &[(2, 0), (0, 2)]);
        // (1, 1) to (2, 1) and (1, 1) to (2, 0) cross one edge each.
        assert!(sees(&open, (1, 1), (2, 1), 1));
        assert!(!sees(&open, (1, 1), (2, 0), 1));
        assert!(sees(&open, (1, 1), (0, 1), 1));
    }

    #[test]
    fn a_segment_along_an_edge_needs_both_hexes() {
        // From (0, 0) to (1, 1) the segment runs along the edge between (1, 0) and (0, 1).
        assert!(sees(&grid(2, &[]), (0, 0), (1, 1), 1));
        assert!(!sees(&grid(2, &[(1, 0)]), (0, 0), (1, 1), 1));
        assert!(!sees(&grid(2, &[(0, 1)]), (0, 0), (1, 1), 1));
    }

    #[test]
    fn a_long_straight_line_checks_every_hex_on_it() {
        assert!(sees(&grid(8, &[]), (0, 7), (7, 0), 1));
        let walled = grid(8, &[(4, 3)]);
        assert!(!sees(&walled, (0, 7), (7, 0), 1));
        assert!(sees(&walled, (0, 0), (7, 0), 1));
    }

    #[test]
    fn costly_hexes_count_only_where_entered() {
        let mut swamp = grid(4, &[]);
        swamp.set_cost(Cell::new(1, 0), 5).expect("on the grid");
        // Beside the edge the segment runs along: touched, not entered.
        assert!(sees(&swamp, (0, 0), (1, 1), 1));
        // Through its middle: entered.
        assert!(!sees(&swamp, (0, 0), (2, 0), 1));
        assert!(sees(&swamp, (0, 0), (2, 0), 5));
    }
}
