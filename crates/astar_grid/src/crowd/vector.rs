//! The 2-D vector of the crowd module: positions, velocities and displacements in cell units.

use core::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// A 2-D vector in cell units of grid space: `x` grows with the column, `y` with the row (as in
/// [`Grid`](crate::Grid), so `y` points down the map).
///
/// ```
/// use astar_grid::crowd::Vector;
///
/// let a = Vector::new(3.0, 4.0);
/// assert_eq!(a.length(), 5.0);
/// assert_eq!(a.dot(Vector::new(1.0, 0.0)), 3.0);
/// assert_eq!(Vector::new(1.0, 0.0).det(Vector::new(0.0, 1.0)), 1.0);
/// assert_eq!((a * 2.0 - a).normalize_or_zero(), Vector::new(0.6, 0.8));
/// assert_eq!(Vector::ZERO.normalize_or_zero(), Vector::ZERO);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vector {
    /// Along the columns (to the right of the map).
    pub x: f32,
    /// Along the rows (down the map).
    pub y: f32,
}

impl Vector {
    /// The zero vector.
    pub const ZERO: Self = Self { x: 0.0, y: 0.0 };

    /// The vector `(x, y)`.
    #[must_use]
    pub const fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    /// The dot product.
    #[must_use]
    pub fn dot(self, other: Self) -> f32 {
        self.x * other.x + self.y * other.y
    }

    /// The determinant of the 2 x 2 matrix with columns `self` and `other` (the z component of
    /// their cross product): positive when `other` lies counter-clockwise of `self` in a frame
    /// whose `y` points up (clockwise on the map, whose `y` points down).
    #[must_use]
    pub fn det(self, other: Self) -> f32 {
        self.x * other.y - self.y * other.x
    }

    /// The squared length.
    #[must_use]
    pub fn length_squared(self) -> f32 {
        self.dot(self)
    }

    /// The length.
    #[must_use]
    pub fn length(self) -> f32 {
        self.length_squared().sqrt()
    }

    /// The vector scaled to length 1, or zero when its length is zero (or not finite).
    #[must_use]
    pub fn normalize_or_zero(self) -> Self {
        let length = self.length();
        if length > 0.0 && length.is_finite() {
            self / length
        } else {
            Self::ZERO
        }
    }

    /// The vector turned a quarter turn: `(-y, x)`.
    #[must_use]
    pub const fn perpendicular(self) -> Self {
        Self::new(-self.y, self.x)
    }

    /// Whether both components are finite.
    #[must_use]
    pub const fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

impl Add for Vector {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self::new(self.x + other.x, self.y + other.y)
    }
}

impl AddAssign for Vector {
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}

impl Sub for Vector {
    type Output = Self;
    fn sub(self, other: Self) -> Self {
        Self::new(self.x - other.x, self.y - other.y)
    }
}

impl SubAssign for Vector {
    fn sub_assign(&mut self, other: Self) {
        *self = *self - other;
    }
}

impl Mul<f32> for Vector {
    type Output = Self;
    fn mul(self, factor: f32) -> Self {
        Self::new(self.x * factor, self.y * factor)
    }
}

impl Mul<Vector> for f32 {
    type Output = Vector;
    fn mul(self, vector: Vector) -> Vector {
        vector * self
    }
}

impl Div<f32> for Vector {
    type Output = Self;
    fn div(self, divisor: f32) -> Self {
        Self::new(self.x / divisor, self.y / divisor)
    }
}

impl Neg for Vector {
    type Output = Self;
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y)
    }
}
