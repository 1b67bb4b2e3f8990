//! The checks of a search's start and goal against a map, and [`SearchError`], why a search
//! refuses to run: below the grid and every algorithm, which all share them.

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

/// What checking a request's start and goal needs to know about the map it searches.
pub(crate) trait EndpointMap {
    /// Whether the map has no cells.
    fn has_no_cells(&self) -> bool;
    /// Whether `cell` lies inside the map.
    fn holds(&self, cell: Cell) -> bool;
    /// Whether `cell` is inside the map and walkable.
    fn is_open(&self, cell: Cell) -> bool;
}

/// Refuses an empty map, and a start or goal outside the map or blocked.
pub(crate) fn validate_endpoints(
    map: &impl EndpointMap,
    start: Cell,
    goal: Cell,
) -> Result<(), SearchError> {
    validate_bounds_and_start(map, start, goal)?;
    if !map.is_open(goal) {
        return Err(SearchError::GoalBlocked(goal));
    }
    Ok(())
}

/// Refuses an empty map, a start or goal outside the map, and a blocked start; a blocked goal
/// passes (for searches asked for the closest reachable cell).
pub(crate) fn validate_bounds_and_start(
    map: &impl EndpointMap,
    start: Cell,
    goal: Cell,
) -> Result<(), SearchError> {
    if map.has_no_cells() {
        return Err(SearchError::EmptyGrid);
    }
    if !map.holds(start) {
        return Err(SearchError::StartOutOfBounds(start));
    }
    if !map.holds(goal) {
        return Err(SearchError::GoalOutOfBounds(goal));
    }
    if !map.is_open(start) {
        return Err(SearchError::StartBlocked(start));
    }
    Ok(())
}
