//! Grid coordinates: the [`Cell`] type shared by every part of the crate.

use core::fmt;

/// A cell of a [`Grid`](crate::Grid), by column `x` and row `y`; `(0, 0)` is the top-left cell,
/// as in Moving AI maps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    /// Column, counted from the left edge.
    pub x: u32,
    /// Row, counted from the top edge.
    pub y: u32,
}

impl Cell {
    /// The cell at column `x`, row `y`.
    #[must_use]
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }

    /// The cell offset by `(dx, dy)`, or `None` when that would leave the non-negative quadrant.
    #[must_use]
    pub fn offset(self, dx: i32, dy: i32) -> Option<Self> {
        Some(Self {
            x: self.x.checked_add_signed(dx)?,
            y: self.y.checked_add_signed(dy)?,
        })
    }

    /// Whether `other` is one of the eight cells around `self` (or `self` itself).
    #[must_use]
    pub fn is_adjacent_8(self, other: Self) -> bool {
        self.x.abs_diff(other.x) <= 1 && self.y.abs_diff(other.y) <= 1
    }
}

impl From<(u32, u32)> for Cell {
    fn from((x, y): (u32, u32)) -> Self {
        Self { x, y }
    }
}

impl From<Cell> for (u32, u32) {
    fn from(cell: Cell) -> Self {
        (cell.x, cell.y)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}
