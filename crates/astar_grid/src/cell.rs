//! Grid coordinates: the [`Cell`] type shared by every part of the crate, and [`Waypoint`], a
//! point in grid space.

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

/// A point in grid space, in cell units: `x` grows to the right and `y` downwards, and cell
/// `(x, y)` covers the square from `(x, y)` to `(x + 1, y + 1)`. Smoothing returns cell centres,
/// `(x + 0.5, y + 0.5)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Waypoint {
    /// Horizontal position, in cells from the left edge of the grid.
    pub x: f64,
    /// Vertical position, in cells from the top edge of the grid.
    pub y: f64,
}

impl Waypoint {
    /// The point `(x, y)`.
    #[must_use]
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    /// The centre of `cell`: `(cell.x + 0.5, cell.y + 0.5)`.
    #[must_use]
    pub fn center_of(cell: Cell) -> Self {
        Self {
            x: f64::from(cell.x) + 0.5,
            y: f64::from(cell.y) + 0.5,
        }
    }

    /// The straight-line distance to `other`, in cells.
    #[must_use]
    pub fn distance(self, other: Self) -> f64 {
        let (dx, dy) = (self.x - other.x, self.y - other.y);
        (dx * dx + dy * dy).sqrt()
    }
}

impl From<Cell> for Waypoint {
    fn from(cell: Cell) -> Self {
        Self::center_of(cell)
    }
}
