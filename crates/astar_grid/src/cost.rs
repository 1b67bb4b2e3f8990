//! Step costs: exact octile distances or integer costs such as 10/14.

use core::f64::consts::SQRT_2;

use crate::Neighborhood;

/// What a straight and a diagonal step cost, before the target cell's terrain multiplier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CostModel {
    /// Straight steps cost 1 and diagonal steps exactly `sqrt(2)`: lengths match the Moving AI
    /// benchmark files.
    #[default]
    Octile,
    /// Integer costs. `Integer { straight: 10, diagonal: 14 }` is the classic game setting.
    /// While a diagonal costs less than two straight steps, open-ground paths take as many
    /// diagonals as with 14 (raising it to 17 changes which detours win around obstacles);
    /// at two straight steps or more (`diagonal >= 2 * straight`, e.g. 10/20 or 10/25)
    /// diagonals never pay and paths become stair-stepped.
    Integer {
        /// Cost of a straight step, at least 1.
        straight: u32,
        /// Cost of a diagonal step, at least 1.
        diagonal: u32,
    },
}

impl CostModel {
    /// The classic integer model: 10 straight, 14 diagonal.
    pub const INTEGER_10_14: Self = Self::Integer {
        straight: 10,
        diagonal: 14,
    };

    /// Cost of one straight step.
    #[must_use]
    pub fn straight(self) -> f64 {
        match self {
            Self::Octile => 1.0,
            Self::Integer { straight, .. } => f64::from(straight),
        }
    }

    /// Cost of one diagonal step.
    #[must_use]
    pub fn diagonal(self) -> f64 {
        match self {
            Self::Octile => SQRT_2,
            Self::Integer { diagonal, .. } => f64::from(diagonal),
        }
    }

    /// The cost of a step by `(dx, dy)` under `neighborhood`, before terrain: a diagonal
    /// step's cost where [`Neighborhood::is_diagonal`] says so, a straight step's otherwise
    /// (every step of a hexagonal grid costs a straight step).
    ///
    /// ```
    /// use astar_grid::{CostModel, Neighborhood};
    ///
    /// let cost = CostModel::INTEGER_10_14;
    /// assert_eq!(cost.step(Neighborhood::Eight, 1, -1), 14.0);
    /// assert_eq!(cost.step(Neighborhood::Hex, 1, -1), 10.0);
    /// assert_eq!(cost.step(Neighborhood::Four, 0, 1), 10.0);
    /// ```
    #[must_use]
    pub fn step(self, neighborhood: Neighborhood, dx: i32, dy: i32) -> f64 {
        if neighborhood.is_diagonal(dx, dy) {
            self.diagonal()
        } else {
            self.straight()
        }
    }

    /// The cheapest single step under `neighborhood`, before terrain: a straight step with
    /// four or six neighbours; with eight, the cheaper of a straight and a diagonal one.
    pub(crate) fn least_step(self, neighborhood: Neighborhood) -> f64 {
        match neighborhood {
            Neighborhood::Four | Neighborhood::Hex => self.straight(),
            Neighborhood::Eight => self.straight().min(self.diagonal()),
        }
    }

    /// Whether both costs are positive.
    #[must_use]
    pub fn is_valid(self) -> bool {
        match self {
            Self::Octile => true,
            Self::Integer { straight, diagonal } => straight > 0 && diagonal > 0,
        }
    }
}
