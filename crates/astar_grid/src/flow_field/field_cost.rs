//! The number type a flow field stores its costs in: `f64` for exact costs, `f32` for a
//! shortest-path tree of 5 bytes a cell.

use core::fmt::Debug;

mod sealed {
    /// Only the crate implements [`FieldCost`](super::FieldCost).
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
}

/// The type a [`CostField`](crate::CostField) stores each cell's cost in: `f64` (the
/// [`FlowField`](crate::FlowField), exact) or `f32` (the [`GoalTree`](crate::GoalTree), half
/// the memory). Sealed: implemented for these two only.
///
/// The Dijkstra always adds step costs in `f64`; only what a cell keeps is converted.
pub trait FieldCost: sealed::Sealed + Copy + PartialOrd + Debug + Send + Sync + 'static {
    /// The cost of a cell that reaches no goal.
    const UNREACHED: Self;
    /// The cost of a goal.
    const ZERO: Self;

    /// The stored form of the exact cost `exact`: itself for `f64`, rounded to nearest for
    /// `f32`.
    fn store(exact: f64) -> Self;

    /// The stored cost as an `f64` (exactly: widening loses nothing).
    fn widen(self) -> f64;

    /// Whether the cost is finite, i.e. a goal is reached.
    fn is_reached(self) -> bool;

    /// Whether a cell storing `stored` may keep it when its next step now offers `offered`:
    /// the step is no dearer than when the cost was stored. For `f64` exactly
    /// `offered <= stored`; for `f32` up to one unit in the last place more, since `offered`
    /// adds the step to the next cell's rounded cost while `stored` rounded the exact sum.
    fn covers(stored: Self, offered: f64) -> bool;
}

impl FieldCost for f64 {
    const UNREACHED: Self = Self::INFINITY;
    const ZERO: Self = 0.0;

    #[inline]
    fn store(exact: f64) -> Self {
        exact
    }

    #[inline]
    fn widen(self) -> f64 {
        self
    }

    #[inline]
    fn is_reached(self) -> bool {
        self.is_finite()
    }

    #[inline]
    fn covers(stored: Self, offered: f64) -> bool {
        offered <= stored
    }
}

impl FieldCost for f32 {
    const UNREACHED: Self = Self::INFINITY;
    const ZERO: Self = 0.0;

    #[inline]
    fn store(exact: f64) -> Self {
        // Rounding to nearest is the point: the cost is kept in 4 bytes.
        exact as Self
    }

    #[inline]
    fn widen(self) -> f64 {
        f64::from(self)
    }

    #[inline]
    fn is_reached(self) -> bool {
        self.is_finite()
    }

    #[inline]
    fn covers(stored: Self, offered: f64) -> bool {
        Self::store(offered) <= stored.next_up()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_rounds_to_nearest_and_widens_exactly() {
        let third = 1.0 / 3.0;
        let stored = <f32 as FieldCost>::store(third);
        assert!((stored.widen() - third).abs() <= f64::from(f32::EPSILON) * third / 2.0);
        assert_eq!(<f64 as FieldCost>::store(third), third);
    }

    #[test]
    fn f32_covers_one_unit_of_rounding_and_no_more() {
        let stored: f32 = 1000.0;
        assert!(FieldCost::covers(stored, 1000.0));
        assert!(FieldCost::covers(stored, stored.next_up().widen()));
        assert!(!FieldCost::covers(
            stored,
            stored.next_up().next_up().widen()
        ));
        assert!(!FieldCost::covers(1000.0_f64, 1000.0 + 1e-9));
    }
}
