//! Why an agent grid or clearance map could not be built or updated, and why an endpoint does
//! not suit an agent.

use super::MAX_AGENT_SIZE;
use crate::Cell;
use core::fmt;

/// Which end of a query an [`AgentError::FootprintDoesNotFit`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// Where the search starts.
    Start,
    /// Where it should end.
    Goal,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Start => "start",
            Self::Goal => "goal",
        })
    }
}

/// Why an agent's footprint does not fit at an anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FootprintProblem {
    /// Part of the footprint (or the anchor itself) lies outside the map.
    OutsideMap,
    /// This cell of the footprint is impassable under the agent's profile (the first one in
    /// row-major order).
    Impassable(Cell),
}

impl fmt::Display for FootprintProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutsideMap => f.write_str("it reaches outside the map"),
            Self::Impassable(cell) => write!(
                f,
                "its cell {cell} is impassable under the agent's terrain profile"
            ),
        }
    }
}

/// The words of [`AgentError::FootprintDoesNotFit`]: a one-cell agent's endpoint is simply
/// impassable (there is no footprint to speak of), a larger agent's names the cell in the way.
struct FootprintFit {
    endpoint: Endpoint,
    cell: Cell,
    size: u8,
    problem: FootprintProblem,
}

impl fmt::Display for FootprintFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self {
            endpoint,
            cell,
            size,
            problem,
        } = self;
        match problem {
            FootprintProblem::Impassable(blocked) if *size == 1 && blocked == cell => write!(
                f,
                "the {endpoint} {cell} is impassable under the agent's terrain profile"
            ),
            _ => write!(
                f,
                "the {endpoint} {cell} does not fit an agent of size {size}: {problem}"
            ),
        }
    }
}

/// A request about agent kinds that is refused; nothing is changed when it is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The agent size is 0 or above [`MAX_AGENT_SIZE`].
    #[error("agent size {size} is not in 1..={MAX_AGENT_SIZE}")]
    InvalidSize {
        /// The size asked for.
        size: u8,
    },
    /// The agent is wider or taller than the map, so it fits nowhere.
    #[error("an agent of size {size} does not fit on a {width}x{height} map")]
    LargerThanMap {
        /// The size asked for.
        size: u8,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// The terrain profile makes every terrain value impassable.
    #[error("the terrain profile has no passable terrain")]
    NoPassableTerrain,
    /// The terrain grid does not have the size the derived data was built for.
    #[error("the terrain grid is {found_width}x{found_height}, it was {width}x{height}")]
    GridMismatch {
        /// Width the derived data was built for.
        width: u32,
        /// Height the derived data was built for.
        height: u32,
        /// Width of the grid passed in.
        found_width: u32,
        /// Height of the grid passed in.
        found_height: u32,
    },
    /// A changed cell lies outside the map.
    #[error("changed cell {cell} is outside the {width}x{height} map")]
    OutOfBounds {
        /// The offending cell.
        cell: Cell,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// The agent's footprint does not fit at a query's start or goal.
    #[error(
        "{}",
        FootprintFit { endpoint: *.endpoint, cell: *.cell, size: *.size, problem: *.problem }
    )]
    FootprintDoesNotFit {
        /// Which end of the query.
        endpoint: Endpoint,
        /// The anchor asked for.
        cell: Cell,
        /// The agent's size.
        size: u8,
        /// What stops the footprint from fitting.
        problem: FootprintProblem,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn does_not_fit(size: u8, problem: FootprintProblem) -> String {
        AgentError::FootprintDoesNotFit {
            endpoint: Endpoint::Goal,
            cell: Cell::new(3, 4),
            size,
            problem,
        }
        .to_string()
    }

    #[test]
    fn a_one_cell_agent_is_told_its_endpoint_is_impassable_not_that_it_does_not_fit() {
        assert_eq!(
            does_not_fit(1, FootprintProblem::Impassable(Cell::new(3, 4))),
            "the goal (3, 4) is impassable under the agent's terrain profile"
        );
        assert_eq!(
            does_not_fit(2, FootprintProblem::Impassable(Cell::new(4, 4))),
            "the goal (3, 4) does not fit an agent of size 2: its cell (4, 4) is impassable \
             under the agent's terrain profile"
        );
        assert_eq!(
            does_not_fit(1, FootprintProblem::OutsideMap),
            "the goal (3, 4) does not fit an agent of size 1: it reaches outside the map"
        );
    }
}
