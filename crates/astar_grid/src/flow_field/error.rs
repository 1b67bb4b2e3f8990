//! Why a flow field could not be built or updated.

use crate::Cell;

/// A request [`FlowField`](crate::FlowField) refuses; the field is unchanged when it is
/// returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlowFieldError {
    /// The grid has no cells.
    #[error("the grid is empty")]
    EmptyGrid,
    /// No goal cell was given.
    #[error("a flow field needs at least one goal")]
    NoGoals,
    /// A goal lies outside the grid.
    #[error("goal {0} is outside the grid")]
    GoalOutOfBounds(Cell),
    /// A goal cell is blocked.
    #[error("goal {0} is blocked")]
    GoalBlocked(Cell),
    /// An integer cost model has a zero cost.
    #[error("invalid cost model: step costs must be positive")]
    InvalidCostModel,
    /// The grid does not have the size the field was built for.
    #[error("the grid is {found_width}x{found_height}, the field was built for {width}x{height}")]
    GridMismatch {
        /// Width the field was built for.
        width: u32,
        /// Height the field was built for.
        height: u32,
        /// Width of the grid passed in.
        found_width: u32,
        /// Height of the grid passed in.
        found_height: u32,
    },
    /// A changed cell lies outside the grid.
    #[error("changed cell {0} is outside the grid")]
    CellOutOfBounds(Cell),
}
