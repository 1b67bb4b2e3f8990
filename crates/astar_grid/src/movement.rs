//! Movement rules: which neighbours a cell has (4 or 8) and when a diagonal may cut a corner.

use crate::Cell;

/// How many neighbours a cell has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Neighborhood {
    /// Up, down, left and right.
    Four,
    /// The four straight neighbours and the four diagonals.
    #[default]
    Eight,
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
    /// When diagonals may pass corners; ignored for [`Neighborhood::Four`].
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
    #[must_use]
    pub const fn allows_step(self, dx: i32, dy: i32, corner_a: bool, corner_b: bool) -> bool {
        if dx == 0 || dy == 0 {
            return true;
        }
        match self.neighborhood {
            Neighborhood::Four => false,
            Neighborhood::Eight => match self.corners {
                CornerRule::Both => corner_a && corner_b,
                CornerRule::One => corner_a || corner_b,
                CornerRule::Any => true,
            },
        }
    }

    /// The two corner cells whose walkability decides, beside `to` itself, whether the
    /// diagonal step from `from` to its neighbour `to` is allowed: `(to.x, from.y)` and
    /// `(from.x, to.y)`. `None` when no other cell matters: a straight step, a step under
    /// [`CornerRule::Any`], or any step under [`Neighborhood::Four`] (which never moves
    /// diagonally).
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
        let corners_matter = match self.neighborhood {
            Neighborhood::Four => false,
            Neighborhood::Eight => !matches!(self.corners, CornerRule::Any),
        };
        if diagonal && corners_matter {
            Some([Cell::new(to.x, from.y), Cell::new(from.x, to.y)])
        } else {
            None
        }
    }
}

/// Straight moves first, then diagonals, so that among equal-cost paths the straight-looking one
/// is found first.
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
