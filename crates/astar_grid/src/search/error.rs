//! Why a search could not start.

use crate::Cell;

/// A request the search refuses to run. An unreachable goal is not an error: it is a
/// [`SearchStatus::NoPath`](crate::SearchStatus::NoPath) result.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// The grid has no cells.
    #[error("the grid is empty")]
    EmptyGrid,
    /// The start lies outside the grid.
    #[error("start {0} is outside the grid")]
    StartOutOfBounds(Cell),
    /// The goal lies outside the grid.
    #[error("goal {0} is outside the grid")]
    GoalOutOfBounds(Cell),
    /// The start cell is blocked.
    #[error("start {0} is blocked")]
    StartBlocked(Cell),
    /// The goal cell is blocked.
    #[error("goal {0} is blocked")]
    GoalBlocked(Cell),
    /// The static weight is below 1 or not finite, or a dynamic epsilon is negative.
    #[error("invalid weight {0}: weights must be finite and at least 1 (epsilon at least 0)")]
    InvalidWeight(f64),
    /// An integer cost model has a zero cost.
    #[error("invalid cost model: step costs must be positive")]
    InvalidCostModel,
    /// The search window does not contain the start.
    #[error("the search window does not contain the start {0}")]
    StartOutsideWindow(Cell),
    /// The algorithm does not support these options (for example jump point search with terrain
    /// costs or corner cutting).
    #[error("{0}")]
    Unsupported(&'static str),
}
