//! A [`Movement`] resolved to offsets in a grid's padded buffer: which single steps are legal.

use crate::movement::DIRECTIONS;
use crate::{CornerRule, Movement, Neighborhood};

/// The steps a movement allows, as offsets in a padded buffer of a given stride.
///
/// Directions are numbered as in [`DIRECTIONS`]: 0 to 3 straight, 4 to 7 diagonal. A step and
/// its reverse test the same two corner cells, so a step is legal exactly when its reverse is:
/// the cells and legal steps form an undirected graph.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepRule {
    /// 4 or 8.
    pub directions: usize,
    /// Offset of the neighbour in each direction.
    pub delta: [isize; 8],
    /// Offsets of the two corner cells a diagonal step passes.
    corner_a: [isize; 8],
    corner_b: [isize; 8],
    corners: CornerRule,
}

impl StepRule {
    /// The rule of `movement` on a padded buffer whose rows are `stride` long.
    pub fn new(movement: Movement, stride: usize) -> Self {
        let stride = stride as isize;
        let mut delta = [0; 8];
        let mut corner_a = [0; 8];
        let mut corner_b = [0; 8];
        for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            let (dx, dy) = (dx as isize, dy as isize);
            delta[direction] = dy * stride + dx;
            corner_a[direction] = dx;
            corner_b[direction] = dy * stride;
        }
        Self {
            directions: match movement.neighborhood {
                Neighborhood::Four => 4,
                Neighborhood::Eight => 8,
            },
            delta,
            corner_a,
            corner_b,
            corners: movement.corners,
        }
    }

    /// The padded index one step from `index` in `direction`, when that step is legal on a
    /// buffer where `open(i)` tells whether index `i` is walkable. `index` must not lie on the
    /// buffer's outer edge (the border cells of a grid never are walkable, so a walkable cell
    /// never does).
    #[inline]
    pub fn step(
        &self,
        index: usize,
        direction: usize,
        open: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let next = index.wrapping_add_signed(self.delta[direction]);
        if !open(next) {
            return None;
        }
        if direction >= 4 {
            let a = open(index.wrapping_add_signed(self.corner_a[direction]));
            let b = open(index.wrapping_add_signed(self.corner_b[direction]));
            let allowed = match self.corners {
                CornerRule::Both => a && b,
                CornerRule::One => a || b,
                CornerRule::Any => true,
            };
            if !allowed {
                return None;
            }
        }
        Some(next)
    }

    /// The direction that undoes `direction`.
    #[inline]
    pub const fn opposite(direction: usize) -> usize {
        if direction < 4 {
            (direction + 2) % 4
        } else {
            4 + (direction - 2) % 4
        }
    }

    /// The nine padded indices of the 3x3 block centred on `index` (`index` included).
    #[inline]
    pub fn block(&self, index: usize) -> [usize; 9] {
        let mut block = [index; 9];
        for (slot, delta) in block.iter_mut().skip(1).zip(self.delta) {
            *slot = index.wrapping_add_signed(delta);
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_directions_cancel() {
        for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            let opposite = StepRule::opposite(direction);
            assert_eq!(DIRECTIONS[opposite], (-dx, -dy));
        }
    }

    #[test]
    fn corner_rules_gate_diagonals() {
        // A 3x3 padded buffer with one open diagonal pair: index 4 is (0, 0) of a 1-wide view.
        let stride = 4;
        let open_cells = [5usize, 10];
        let open = |index: usize| open_cells.contains(&index);
        let diagonal = 4; // (1, 1)
        for (corners, legal) in [
            (CornerRule::Both, false),
            (CornerRule::One, false),
            (CornerRule::Any, true),
        ] {
            let rule = StepRule::new(Movement::eight(corners), stride);
            assert_eq!(rule.step(5, diagonal, open).is_some(), legal, "{corners:?}");
        }
        let with_corner = [5usize, 6, 10];
        let open = |index: usize| with_corner.contains(&index);
        assert!(
            StepRule::new(Movement::eight(CornerRule::One), stride)
                .step(5, diagonal, open)
                .is_some()
        );
        assert!(
            StepRule::new(Movement::EIGHT, stride)
                .step(5, diagonal, open)
                .is_none()
        );
        assert!(StepRule::new(Movement::FOUR, stride).directions == 4);
    }
}
