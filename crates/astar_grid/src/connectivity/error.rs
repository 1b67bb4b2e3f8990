//! Why a connectivity query or update was refused.

use crate::{Cell, GridError};

/// A request [`Components`](crate::Components) refuses; the labels are unchanged when it is
/// returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnectivityError {
    /// The grid does not have the size the labels were built for.
    #[error("the grid is {found_width}x{found_height}, the labels were built for {width}x{height}")]
    GridMismatch {
        /// Width the labels were built for.
        width: u32,
        /// Height the labels were built for.
        height: u32,
        /// Width of the grid passed in.
        found_width: u32,
        /// Height of the grid passed in.
        found_height: u32,
    },
    /// A cell lies outside the grid.
    #[error("cell {cell} is outside the {width}x{height} grid")]
    OutOfBounds {
        /// The offending cell.
        cell: Cell,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// Editing the grid failed.
    #[error(transparent)]
    Grid(#[from] GridError),
}
