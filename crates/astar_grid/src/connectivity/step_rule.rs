//! A [`Movement`] resolved to offsets in a grid's padded buffer: which single steps are legal,
//! tabulated from [`Movement::allows_step`].

use crate::Movement;
use crate::movement::DIRECTIONS;

/// The steps a movement allows, as offsets in a padded buffer of a given stride.
///
/// Directions are numbered as in [`DIRECTIONS`]: 0 to 3 straight, 4 to 7 diagonal. A step and
/// its reverse test the same two corner cells, so a step is legal exactly when its reverse is:
/// the cells and legal steps form an undirected graph. The verdicts are those of
/// [`Movement::allows_step`], computed once per direction and corner pattern when the rule is
/// made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepRule {
    /// 4 or 8.
    pub directions: usize,
    /// Offset of the neighbour in each direction.
    pub delta: [isize; 8],
    /// Offsets of the two corner cells a diagonal step passes.
    corner_a: [isize; 8],
    corner_b: [isize; 8],
    /// Per direction, bit `a | b << 1` set when [`Movement::allows_step`] allows the step with
    /// corner walkability `a` and `b`.
    verdicts: [u8; 8],
}

impl StepRule {
    /// The rule of `movement` on a padded buffer whose rows are `stride` long.
    pub fn new(movement: Movement, stride: usize) -> Self {
        let stride = stride as isize;
        let mut delta = [0; 8];
        let mut corner_a = [0; 8];
        let mut corner_b = [0; 8];
        let mut verdicts = [0; 8];
        for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            for pattern in 0..4 {
                let (a, b) = (pattern & 1 != 0, pattern & 2 != 0);
                if movement.allows_step(dx, dy, a, b) {
                    verdicts[direction] |= 1 << pattern;
                }
            }
            let (dx, dy) = (dx as isize, dy as isize);
            delta[direction] = dy * stride + dx;
            corner_a[direction] = dx;
            corner_b[direction] = dy * stride;
        }
        // Directions 4 to 7 are the diagonals: looked at only when the rule allows some of them.
        let diagonals = verdicts[4..].iter().any(|&verdict| verdict != 0);
        Self {
            directions: if diagonals { 8 } else { 4 },
            delta,
            corner_a,
            corner_b,
            verdicts,
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
            let a = usize::from(open(index.wrapping_add_signed(self.corner_a[direction])));
            let b = usize::from(open(index.wrapping_add_signed(self.corner_b[direction])));
            if self.verdicts[direction] >> (a | b << 1) & 1 == 0 {
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
    use crate::{Cell, CornerRule, Grid};

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

    /// Every 3x3 pattern of walls around a walkable centre, every movement: the padded-buffer
    /// rule allows exactly the steps [`Movement::allows_step_on`] allows on the grid.
    #[test]
    fn tabulated_steps_match_the_movement_rule() {
        let movements = [
            Movement::FOUR,
            Movement::EIGHT,
            Movement::eight(CornerRule::One),
            Movement::eight(CornerRule::Any),
        ];
        for pattern in 0u32..1 << 9 {
            let grid = Grid::from_fn(3, 3, |cell| {
                let bit = cell.y * 3 + cell.x;
                u8::from(bit == 4 || pattern >> bit & 1 != 0)
            });
            let raw = grid.raw();
            let centre = Cell::new(1, 1);
            let centre_index = grid.index(centre);
            for movement in movements {
                let rule = StepRule::new(movement, grid.stride());
                for (direction, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                    let to = Cell::new(1u32.wrapping_add_signed(dx), 1u32.wrapping_add_signed(dy));
                    let tabulated = direction < rule.directions
                        && rule
                            .step(centre_index, direction, |i| raw[i] != 0)
                            .is_some();
                    assert_eq!(
                        tabulated,
                        movement.allows_step_on(&grid, centre, to),
                        "{movement:?} {pattern:09b} ({dx}, {dy})"
                    );
                }
            }
        }
    }
}
