//! Building blocks shared by the integration tests: an independent reference search, a path
//! checker, the documented choice of the closest reachable cell and proptest strategies for
//! random grids and queries.

pub mod closest_cell;
pub mod path_check;
pub mod random_grid;
pub mod reference_search;
