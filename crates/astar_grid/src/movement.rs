//! Movement rules: which neighbours a cell has (4, 6 or 8) and when a diagonal may cut a corner.
//!
//! [`Movement::allows_step`] is the one statement of which single steps are legal. Everything
//! else that decides step legality derives from it: [`Movement::allows_step_on`] applies it to a
//! [`Grid`], and the searches, flow fields and connectivity labels build their precomputed tables
//! from it when they start.

use crate::{Cell, Grid};

/// How many neighbours a cell has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Neighborhood {
    /// Up, down, left and right.
    Four,
    /// The four straight neighbours and the four diagonals.
    #[default]
    Eight,
    /// The six neighbours of a hexagonal grid stored in axial coordinates (see
    /// [`crate::hex`]): the four straight neighbours and the two diagonals `(1, -1)` and
    /// `(-1, 1)`. Every step costs a straight step, and no corner is ever cut.
    Hex,
}

impl Neighborhood {
    /// Whether a step by `(dx, dy)` (each -1, 0 or 1, not both 0) costs a diagonal step:
    /// a diagonal under eight neighbours. Every step of the other neighbourhoods costs a
    /// straight step.
    ///
    /// ```
    /// use astar_grid::Neighborhood;
    ///
    /// assert!(Neighborhood::Eight.is_diagonal(1, -1));
    /// assert!(!Neighborhood::Eight.is_diagonal(0, -1));
    /// assert!(!Neighborhood::Hex.is_diagonal(1, -1));
    /// ```
    #[must_use]
    pub const fn is_diagonal(self, dx: i32, dy: i32) -> bool {
        matches!(self, Self::Eight) && dx != 0 && dy != 0
    }

    /// Whether `a` and `b` are neighbours: distinct cells one step apart under this
    /// neighbourhood, whatever the cells hold.
    ///
    /// ```
    /// use astar_grid::{Cell, Neighborhood};
    ///
    /// let cell = Cell::new(3, 3);
    /// assert!(Neighborhood::Eight.are_neighbours(cell, Cell::new(4, 4)));
    /// assert!(!Neighborhood::Hex.are_neighbours(cell, Cell::new(4, 4)));
    /// assert!(Neighborhood::Hex.are_neighbours(cell, Cell::new(4, 2)));
    /// assert!(!Neighborhood::Four.are_neighbours(cell, Cell::new(4, 2)));
    /// ```
    #[must_use]
    pub const fn are_neighbours(self, a: Cell, b: Cell) -> bool {
        match (unit_offset(a.x, b.x), unit_offset(a.y, b.y)) {
            (Some(0), Some(0)) | (None, _) | (_, None) => false,
            (Some(dx), Some(dy)) => match self {
                Self::Four => dx == 0 || dy == 0,
                Self::Eight => true,
                Self::Hex => dx != dy,
            },
        }
    }

    /// How many steps a cell has at most: 4, 6 or 8.
    #[must_use]
    pub const fn steps(self) -> usize {
        match self {
            Self::Four => 4,
            Self::Eight => 8,
            Self::Hex => 6,
        }
    }
}

/// When a diagonal step is allowed past the two cells it squeezes between.
///
/// For a step from `(x, y)` to `(x + 1, y + 1)` the two "corner" cells are `(x + 1, y)` and
/// `(x, y + 1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CornerRule {
    /// Both corner cells must be walkable: no corner cutting. The Moving AI benchmark rule.
    #[default]
    Both,
    /// At least one corner cell must be walkable: corners may be cut, but not squeezed through.
    One,
    /// Only the target cell matters: agents may slip between two diagonal walls.
    Any,
}

/// A movement rule: a neighbourhood and, for eight neighbours, a corner rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Movement {
    /// Four or eight neighbours.
    pub neighborhood: Neighborhood,
    /// When diagonals may pass corners; ignored for [`Neighborhood::Four`] and
    /// [`Neighborhood::Hex`].
    pub corners: CornerRule,
}

impl Movement {
    /// Four-connected movement.
    pub const FOUR: Self = Self {
        neighborhood: Neighborhood::Four,
        corners: CornerRule::Both,
    };
    /// Eight-connected movement without corner cutting (the Moving AI rule).
    pub const EIGHT: Self = Self {
        neighborhood: Neighborhood::Eight,
        corners: CornerRule::Both,
    };

    /// Six-connected movement on a hexagonal grid in axial coordinates.
    pub const HEX: Self = Self {
        neighborhood: Neighborhood::Hex,
        corners: CornerRule::Both,
    };

    /// Eight-connected movement with the given corner rule.
    #[must_use]
    pub const fn eight(corners: CornerRule) -> Self {
        Self {
            neighborhood: Neighborhood::Eight,
            corners,
        }
    }

    /// Whether a step by `(dx, dy)` (each -1, 0 or 1, not both 0) is allowed when the target is
    /// walkable and the two corner cells' walkability is `corner_a` and `corner_b`.
    ///
    /// This is the rule every part of the crate follows; [`Movement::allows_step_on`] applies it
    /// to the cells of a grid.
    ///
    /// ```
    /// use astar_grid::{CornerRule, Movement};
    ///
    /// // A straight step is always allowed; a diagonal past one blocked corner only when
    /// // corners may be cut.
    /// assert!(Movement::FOUR.allows_step(1, 0, false, false));
    /// assert!(!Movement::FOUR.allows_step(1, 1, true, true));
    /// assert!(!Movement::EIGHT.allows_step(1, 1, true, false));
    /// assert!(Movement::eight(CornerRule::One).allows_step(1, 1, true, false));
    /// assert!(Movement::eight(CornerRule::Any).allows_step(-1, 1, false, false));
    /// // On a hexagonal grid, two of the diagonals are neighbours and never cut a corner.
    /// assert!(Movement::HEX.allows_step(1, -1, false, false));
    /// assert!(!Movement::HEX.allows_step(1, 1, true, true));
    /// ```
    #[must_use]
    pub const fn allows_step(self, dx: i32, dy: i32, corner_a: bool, corner_b: bool) -> bool {
        if dx == 0 || dy == 0 {
            return true;
        }
        match self.neighborhood {
            Neighborhood::Four => false,
            Neighborhood::Hex => dx != dy,
            Neighborhood::Eight => match self.corners {
                CornerRule::Both => corner_a && corner_b,
                CornerRule::One => corner_a || corner_b,
                CornerRule::Any => true,
            },
        }
    }

    /// Whether the single step from `from` to `to` is legal on `grid` as it is now: the two
    /// cells are neighbours under this movement (one step apart, straight or diagonal, and not
    /// the same cell), both are walkable, and the corner cells of a diagonal step satisfy the
    /// corner rule ([`Movement::allows_step`]). Cells outside the grid count as blocked.
    ///
    /// ```
    /// use astar_grid::{Cell, CornerRule, Grid, Movement};
    ///
    /// let grid = Grid::from_ascii(
    ///     ".#
    ///      ..",
    /// )?;
    /// let (from, to) = (Cell::new(0, 0), Cell::new(1, 1));
    /// assert!(!Movement::EIGHT.allows_step_on(&grid, from, to)); // (1, 0) is a wall
    /// assert!(Movement::eight(CornerRule::One).allows_step_on(&grid, from, to));
    /// assert!(Movement::FOUR.allows_step_on(&grid, from, Cell::new(0, 1)));
    /// assert!(!Movement::FOUR.allows_step_on(&grid, from, Cell::new(1, 0))); // onto the wall
    /// assert!(!Movement::EIGHT.allows_step_on(&grid, from, from)); // not a step
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn allows_step_on(self, grid: &Grid, from: Cell, to: Cell) -> bool {
        let (Some(dx), Some(dy)) = (unit_offset(from.x, to.x), unit_offset(from.y, to.y)) else {
            return false;
        };
        if (dx, dy) == (0, 0) || !grid.is_walkable(from) || !grid.is_walkable(to) {
            return false;
        }
        let corner_a = grid.is_walkable(Cell::new(to.x, from.y));
        let corner_b = grid.is_walkable(Cell::new(from.x, to.y));
        self.allows_step(dx, dy, corner_a, corner_b)
    }

    /// Whether the walkability of a diagonal step's corner cells changes the verdict of
    /// [`Movement::allows_step`]: true under [`CornerRule::Both`] and [`CornerRule::One`] with
    /// eight neighbours, false when diagonals are never allowed or always are. When it is false,
    /// a path depends on its own cells only.
    ///
    /// ```
    /// use astar_grid::{CornerRule, Movement};
    ///
    /// assert!(Movement::EIGHT.corners_decide());
    /// assert!(!Movement::eight(CornerRule::Any).corners_decide());
    /// assert!(!Movement::FOUR.corners_decide());
    /// ```
    #[must_use]
    pub const fn corners_decide(self) -> bool {
        self.allows_step(1, 1, true, true) != self.allows_step(1, 1, false, false)
    }

    /// The two corner cells whose walkability decides, beside `to` itself, whether the
    /// diagonal step from `from` to its neighbour `to` is allowed: `(to.x, from.y)` and
    /// `(from.x, to.y)`. `None` when no other cell matters: a straight step, a step under
    /// [`CornerRule::Any`], or any step under [`Neighborhood::Four`] or [`Neighborhood::Hex`]
    /// (which never squeeze between corners).
    ///
    /// A path stays legal after a map edit only if the edit leaves its cells walkable *and*
    /// these corners of its diagonal steps as they were, so they belong to what a path
    /// depends on.
    ///
    /// ```
    /// use astar_grid::{Cell, CornerRule, Movement};
    ///
    /// let (from, to) = (Cell::new(0, 0), Cell::new(1, 1));
    /// assert_eq!(Movement::EIGHT.step_corners(from, to), Some([Cell::new(1, 0), Cell::new(0, 1)]));
    /// assert_eq!(Movement::EIGHT.step_corners(from, Cell::new(1, 0)), None);
    /// assert_eq!(Movement::eight(CornerRule::Any).step_corners(from, to), None);
    /// ```
    #[must_use]
    pub const fn step_corners(self, from: Cell, to: Cell) -> Option<[Cell; 2]> {
        let diagonal = from.x != to.x && from.y != to.y;
        if diagonal && self.corners_decide() {
            Some([Cell::new(to.x, from.y), Cell::new(from.x, to.y)])
        } else {
            None
        }
    }
}

/// `-1`, `0` or `1`: the step from coordinate `from` to `to`, or `None` when they lie further
/// apart.
const fn unit_offset(from: u32, to: u32) -> Option<i32> {
    if to == from {
        Some(0)
    } else if from < u32::MAX && to == from + 1 {
        Some(1)
    } else if to < u32::MAX && from == to + 1 {
        Some(-1)
    } else {
        None
    }
}

/// Straight moves first, then diagonals, so that among equal-cost paths the straight-looking one
/// is found first. The steps of [`Neighborhood::Hex`] are the four straight ones and the
/// diagonals at indices 5 and 7.
pub(crate) const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (0, 1),
    (-1, 0),
    (0, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
    (1, -1),
];

#[cfg(test)]
mod tests {
    use super::*;

    const MOVEMENTS: [Movement; 5] = [
        Movement::FOUR,
        Movement::HEX,
        Movement::EIGHT,
        Movement::eight(CornerRule::One),
        Movement::eight(CornerRule::Any),
    ];

    /// Every 3x3 pattern of walls around a walkable centre, each movement, each direction:
    /// the grid-level check agrees with the rule it applies, written out independently here.
    #[test]
    fn steps_on_a_grid_follow_the_rule() {
        for pattern in 0u32..1 << 9 {
            let grid = Grid::from_fn(3, 3, |cell| {
                let bit = cell.y * 3 + cell.x;
                u8::from(bit == 4 || pattern >> bit & 1 != 0)
            });
            let centre = Cell::new(1, 1);
            for movement in MOVEMENTS {
                for (dx, dy) in DIRECTIONS {
                    let to = Cell::new(1u32.wrapping_add_signed(dx), 1u32.wrapping_add_signed(dy));
                    let a = grid.is_walkable(Cell::new(to.x, 1));
                    let b = grid.is_walkable(Cell::new(1, to.y));
                    let expected = grid.is_walkable(to)
                        && match (movement.neighborhood, movement.corners) {
                            _ if dx == 0 || dy == 0 => true,
                            (Neighborhood::Four, _) => false,
                            (Neighborhood::Hex, _) => dx == -dy,
                            (Neighborhood::Eight, CornerRule::Both) => a && b,
                            (Neighborhood::Eight, CornerRule::One) => a || b,
                            (Neighborhood::Eight, CornerRule::Any) => true,
                        };
                    assert_eq!(
                        movement.allows_step_on(&grid, centre, to),
                        expected,
                        "{movement:?} {pattern:09b} ({dx}, {dy})"
                    );
                }
            }
        }
    }

    #[test]
    fn only_neighbours_between_walkable_cells_are_steps() {
        let grid = Grid::new(4, 4);
        let from = Cell::new(1, 1);
        for movement in MOVEMENTS {
            assert!(!movement.allows_step_on(&grid, from, from));
            assert!(!movement.allows_step_on(&grid, from, Cell::new(3, 1)));
            assert!(!movement.allows_step_on(&grid, from, Cell::new(1, 3)));
            assert!(!movement.allows_step_on(&grid, Cell::new(0, 0), Cell::new(u32::MAX, 0)));
            assert!(!movement.allows_step_on(&grid, Cell::new(3, 3), Cell::new(4, 3)));
        }
        let mut walled = grid.clone();
        walled.fill_rect(from, from, 0);
        assert!(!Movement::EIGHT.allows_step_on(&walled, from, Cell::new(2, 1)));
        assert!(Movement::EIGHT.allows_step_on(&grid, from, Cell::new(2, 1)));
    }

    #[test]
    fn corners_matter_exactly_where_they_change_the_verdict() {
        let (from, to) = (Cell::new(0, 0), Cell::new(1, 1));
        let corners = Some([Cell::new(1, 0), Cell::new(0, 1)]);
        assert_eq!(Movement::FOUR.step_corners(from, to), None);
        assert_eq!(Movement::EIGHT.step_corners(from, to), corners);
        assert_eq!(
            Movement::eight(CornerRule::One).step_corners(from, to),
            corners
        );
        assert_eq!(
            Movement::eight(CornerRule::Any).step_corners(from, to),
            None
        );
        assert_eq!(
            Movement::HEX.step_corners(from, Cell::new(1, u32::MAX)),
            None
        );
        assert!(!Movement::HEX.corners_decide());
    }

    /// Each neighbourhood's steps are those `are_neighbours` and `allows_step` agree on, and
    /// come in opposite pairs.
    #[test]
    fn neighbourhoods_list_their_steps() {
        let centre = Cell::new(5, 5);
        for neighborhood in [Neighborhood::Four, Neighborhood::Eight, Neighborhood::Hex] {
            let movement = Movement {
                neighborhood,
                corners: CornerRule::Any,
            };
            let steps: Vec<_> = DIRECTIONS
                .into_iter()
                .filter(|&(dx, dy)| movement.allows_step(dx, dy, false, false))
                .collect();
            assert_eq!(steps.len(), neighborhood.steps(), "{neighborhood:?}");
            for y in 3..8 {
                for x in 3..8 {
                    let (dx, dy) = (x as i32 - 5, y as i32 - 5);
                    assert_eq!(
                        neighborhood.are_neighbours(centre, Cell::new(x, y)),
                        steps.contains(&(dx, dy)),
                        "{neighborhood:?} ({dx}, {dy})"
                    );
                }
            }
            assert!(steps.iter().all(|&(dx, dy)| steps.contains(&(-dx, -dy))));
        }
    }
}
